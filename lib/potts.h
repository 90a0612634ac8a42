/*
 * Internal: q-state Potts model data shared by the core and every backend.
 *
 *   H = -J sum_<ij> delta(s_i, s_j) - h sum_i delta(s_i, 0),   s = 0 .. q-1,  2 <= q <= 255
 *
 * The core (lib/model_potts.c) turns the parameters into integer decision tables once per
 * parameter change; every backend takes its decisions from these tables with integer
 * arithmetic only, so that all backends follow bit-identical Markov chains
 * (doc/models/potts.md gives the full chain definition). Plain C only: this header is
 * included from CUDA too (lib/potts_rules.h, backends/cuda/).
 */
#ifndef LATMC_LIB_POTTS_H
#define LATMC_LIB_POTTS_H

#include <stdint.h>

#include "philox.h" /* LATMC_HOSTDEV */

#define LATMC_POTTS_MIN_Q 2
#define LATMC_POTTS_MAX_Q 255          /* states travel as uint8 */
#define LATMC_POTTS_MAX_NB 6           /* 2 ndim neighbours, ndim <= 3 */

/*
 * Metropolis. A proposal s -> s' changes the energy by dE = -J dn - h dz with
 * dn = n_{s'} - n_s in [-2 ndim, 2 ndim] (n_k = neighbours in state k) and
 * dz = delta(s', 0) - delta(s, 0) in {-1, 0, 1}; it is accepted iff u < threshold,
 * threshold = floor(min(1, exp(-beta dE)) 2^32) in [0, 2^32] (latmc_threshold_u32).
 * Index: metropolis[dn + 2 ndim][dz + 1]; the rows past 4 ndim are unused.
 */
#define LATMC_POTTS_METRO_ROWS (4 * 3 + 1)

/*
 * Heat bath. P(s = k) is proportional to exp(beta a_k), a_k = J n_k + h delta(k, 0). A
 * state's weight depends only on its class c = 2 n + z (n = n_k in [0, 2 ndim],
 * z = delta(k, 0)): at most 14 classes. The weights of one site are taken relative to the
 * largest weight present at that site (its reference class r, the present class of
 * highest rank), as 32-bit fixed point:
 *     heatbath[r][c] = floor(2^32 exp(beta (a_c - a_r)))  clamped to [0, 2^32 - 1]
 * so the largest weight of every site is 2^32 - 1 and the sum of the q weights is never 0.
 * rank[c] = number of classes with a strictly smaller a (all 0 at beta = 0 or J = h = 0).
 */
#define LATMC_POTTS_CLASSES (2 * (2 * 3 + 1))

LATMC_HOSTDEV int latmc_potts_class(int n, int is_zero)
{
    return 2 * n + (is_zero ? 1 : 0);
}

/* This is the Potts sim's model_data. */
struct latmc_potts_tables {
    uint64_t metropolis[LATMC_POTTS_METRO_ROWS][3];
    uint32_t heatbath[LATMC_POTTS_CLASSES][LATMC_POTTS_CLASSES]; /* [reference][class] */
    uint8_t rank[LATMC_POTTS_CLASSES];
};

/* Exact integer sums behind every Potts observable: one reduction gives all of them. */
struct latmc_potts_sums {
    int64_t matches;                     /* sum_x sum_mu delta(s_x, s_{x+mu}) */
    int64_t count[LATMC_POTTS_MAX_Q + 1]; /* sites in state k (entries >= q are 0) */
};

/*
 * The colouring of the sweep: colour(x, y, z) = (x + y + z) mod c with c = 2 when every
 * extent is even (checkerboard), else c = 3 when every extent is divisible by 3, else 0
 * (the lattice is refused). Neighbours differ by +-1 mod c in their colour, also across
 * the periodic boundary because c divides every extent, so a colour's sites never
 * interact.
 */
static inline int latmc_potts_colours(int ndim, const int64_t *extent)
{
    int even = 1, thirds = 1;
    for (int mu = 0; mu < ndim; mu++) {
        even &= extent[mu] % 2 == 0;
        thirds &= extent[mu] % 3 == 0;
    }
    return even ? 2 : thirds ? 3 : 0;
}

#endif
