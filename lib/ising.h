/*
 * Internal: Ising model data shared by the core and every backend. Plain C structs only:
 * this header is included from CUDA too (lib/ising_rules.h, backends/cuda/).
 */
#ifndef LATMC_LIB_ISING_H
#define LATMC_LIB_ISING_H

#include <stdint.h>

#include "philox.h" /* LATMC_HOSTDEV */

/*
 * Integer acceptance decisions, computed once per parameter change by the core and used
 * unchanged by every backend, so all backends take the same decisions: a uniform 32-bit
 * draw u accepts iff u < threshold, threshold = floor(p * 2^32) in [0, 2^32].
 * Index k = (n + 2 ndim) / 2 where n = sum of the 2 ndim neighbour spins (with +-J
 * couplings: sum of eps_ij s_j, lib/ising_rules.h).
 * This is the Ising sim's model_data.
 */
#define LATMC_ISING_MAX_K 7   /* 2 * ndim + 1 entries for ndim <= 3 */
struct latmc_ising_tables {
    uint64_t metropolis[2][LATMC_ISING_MAX_K]; /* [s == +1][k]: accept the flip of s */
    uint64_t heatbath[LATMC_ISING_MAX_K];      /* [k]: new spin is +1 */
};

/* Exact integer sums behind the Ising observables: one reduction gives all of them. */
struct latmc_ising_sums {
    int64_t bonds;   /* sum_x sum_mu eps_{x,mu} s_x s_{x+mu}; eps = 1 unless the sim has
                        +-J couplings (desc.couplings = BIMODAL) */
    int64_t spins;   /* sum_x s_x */
};

/* The energy per site of sums s at coupling J and field h on n sites: the ENERGY
 * observable, written once for the core and the device's exchange rounds. */
LATMC_HOSTDEV double latmc_ising_energy_per_site(double J, double h, int64_t bonds,
                                                 int64_t spins, double n)
{
    return (-J * (double)bonds - h * (double)spins) / n;
}

#endif
