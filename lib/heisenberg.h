/*
 * Internal: Heisenberg spin-glass data shared by the core (lib/model_heisenberg.c) and
 * every backend. The chain itself is defined in doc/models/heisenberg.md.
 */
#ifndef LATMC_LIB_HEISENBERG_H
#define LATMC_LIB_HEISENBERG_H

#include <stdint.h>

#include "rng_streams.h" /* struct latmc_rng_name, LATMC_HOSTDEV */

/* Floats per site and replica in storage and in latmc_sim_get/set_spins: x, y, z. */
#define LATMC_HEISENBERG_COMPONENTS 3

/* latmc_sim_set_spins accepts a spin when | |s| - 1 | <= this (|s| computed in double). */
#define LATMC_HEISENBERG_UNIT_TOLERANCE 1e-5

/* 2 pi, for the azimuth of heat-bath and hot-start draws (M_PI is not ISO C). */
#define LATMC_HEISENBERG_TWO_PI 6.283185307179586476925286766559

/*
 * The parameters as the backends use them (the sim's model_data), rebuilt by the core on
 * every parameter change: beta, the field h along e_z, and the overrelaxation passes per
 * sweep.
 */
struct latmc_heisenberg_params {
    double beta;
    double h;
    int nover;
};

/*
 * The schedule of one sweep (doc/models/heisenberg.md), the one definition every backend
 * and the core's plan (lib/plan.c) use: passes over the lattice, each colour 0 then
 * colour 1; the heat bath (heatbath != 0) is one heat-bath pass then nover
 * overrelaxation passes, overrelaxation alone max(nover, 1) passes (else a sweep would do
 * nothing). Step s of a sweep is colour s % 2 of pass s / 2, a heat-bath step when the
 * pass is 0 of a heat-bath sweep.
 */
static inline int latmc_heisenberg_passes(int heatbath, int nover)
{
    if (heatbath)
        return 1 + nover;
    return nover < 1 ? 1 : nover;
}

static inline int latmc_heisenberg_step_is_heatbath(int heatbath, int step)
{
    return heatbath && step < 2;
}

static inline int latmc_heisenberg_step_colour(int step)
{
    return step % 2;
}

/*
 * The name of colour `colour`'s heat-bath draws in sweep `sweep` (UPDATE stream of
 * replica 0, phase = the colour, sub 0; the azimuth: latmc_rng_name_sub(.., 1), replica
 * r: latmc_rng_name_replica): what lib/model_heisenberg.c's step_of names its steps, for
 * the kernels that run a call's sweeps themselves (the CUDA ensemble kernel).
 */
LATMC_HOSTDEV struct latmc_rng_name latmc_heisenberg_rng_name(uint64_t sweep, int colour)
{
    return latmc_rng_update_name(sweep, (uint32_t)colour, 0);
}

/*
 * The reduction's chunks, the one grouping every backend adds the sums in (so that the
 * observables agree bit for bit, doc/models/heisenberg.md): whole rows of lx sites, at
 * most 1024 sites (one row where a row is longer), never across a plane along the last
 * axis: the largest divisor of a plane's rows_per_plane rows that fits.
 */
static inline int64_t latmc_heisenberg_rows_per_chunk(int64_t lx, int64_t rows_per_plane)
{
    int64_t rows = 1024 / lx > 0 ? 1024 / lx : 1;
    if (rows > rows_per_plane)
        rows = rows_per_plane;
    while (rows_per_plane % rows != 0)
        rows--;
    return rows;
}

/*
 * Sums behind every observable: one reduction of the current configuration, in double.
 * `bonds`, `mag` describe replica 0; `overlap` is zero with one replica.
 */
struct latmc_heisenberg_sums {
    double bonds;          /* sum_x sum_mu J_{x,mu} s_x . s_{x+mu} */
    double mag[3];         /* M = sum_x s_x */
    double overlap[3][3];  /* N q_{mu nu} = sum_x s^0_{x,mu} s^1_{x,nu} */
};

/* The energy per site of sums with bond sum `bonds` and M_z `mag_z` at field h on n sites:
 * the ENERGY observable, written once for the core and the device's exchange rounds. */
LATMC_HOSTDEV double latmc_heisenberg_energy_per_site(double h, double bonds, double mag_z,
                                                      double n)
{
    return (-bonds - h * mag_z) / n;
}

#endif
