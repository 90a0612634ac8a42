/*
 * Test support: exact reference results for the q-state Potts model by full enumeration
 * of all q^N states of a small periodic lattice.
 *
 * Conventions (the same as the library's Potts model, doc/models/potts.md):
 *   H = -J sum_x sum_mu delta(s_x, s_{x+mu}) - h sum_x delta(s_x, 0),   s = 0 .. q-1,
 * periodic boundaries, x over every site and mu over the ndim positive directions: N*ndim
 * bond terms. On an extent of 2 the pair (x, x+mu) is coupled twice; on an extent of 1 the
 * term delta(s_x, s_x) = 1 is a constant. Weights exp(-beta H). Per site: e = H/N and the
 * order parameter m = (q max_k n_k / N - 1) / (q - 1), n_k the number of sites in state k.
 * Site index i = x + Lx*(y + Ly*z) (first coordinate fastest).
 *
 * Independent of the library: its own neighbour table, its own state loop. Reentrant.
 */
#ifndef LATMC_TESTS_EXACT_POTTS_H
#define LATMC_TESTS_EXACT_POTTS_H

#include <stdint.h>

/* Largest number of states enumerated (q^N): 4^13 takes about a second. */
#define EXACT_POTTS_MAX_STATES (UINT64_C(1) << 26)
#define EXACT_POTTS_MAX_SITES 26
#define EXACT_POTTS_MAX_DIM 3
#define EXACT_POTTS_MAX_Q 16

#define EXACT_POTTS_EINVAL (-1)
#define EXACT_POTTS_ENOMEM (-2)

/* Exact thermal averages per site. */
struct exact_potts_moments {
    double lnz;   /* ln Z */
    double e;     /* <H/N> */
    double var_e; /* <(H/N - <H/N>)^2>, summed about the mean */
    double n0;    /* <n_0 / N>, the fraction of sites in state 0 */
    double m;     /* <m> */
    double m2;    /* <m^2> */
    double m4;    /* <m^4> */
};

/*
 * Density of states: count[(b * (N + 1) + n0) * (N + 1) + nmax] states with b satisfied
 * bond terms, n0 sites in state 0 and largest population nmax. Built once; any
 * (beta, J, h) is then a cheap sum.
 */
struct exact_potts_hist {
    int nsites;      /* N */
    int nterms;      /* N * ndim bond terms */
    int q;
    uint64_t *count; /* (nterms + 1) (N + 1)^2 entries, owned */
};

/*
 * Enumerate the q^N states of the periodic lattice extent[0] x ... x extent[ndim-1]
 * (1 <= ndim <= EXACT_POTTS_MAX_DIM, extents >= 1, 2 <= q <= EXACT_POTTS_MAX_Q,
 * q^N <= EXACT_POTTS_MAX_STATES). Returns 0, EXACT_POTTS_EINVAL or EXACT_POTTS_ENOMEM; on
 * failure hist is empty (safe to free).
 */
int exact_potts_hist_build(int ndim, const int *extent, int q, struct exact_potts_hist *hist);

/* Release the histogram's memory and zero it; accepts NULL and empty. */
void exact_potts_hist_free(struct exact_potts_hist *hist);

/* Number of states with the given (satisfied terms, sites in state 0, largest
 * population); 0 outside the table. */
uint64_t exact_potts_hist_count(const struct exact_potts_hist *hist, int matches, int n0,
                                int nmax);

/*
 * Exact moments at (beta, J, h), any finite values; weights are shifted by their maximum
 * (log-sum-exp) so nothing overflows. Returns 0 or EXACT_POTTS_EINVAL.
 */
int exact_potts_hist_moments(const struct exact_potts_hist *hist, double beta, double J,
                             double h, struct exact_potts_moments *out);

/* Build, evaluate and free in one call. */
int exact_potts_enumerate(int ndim, const int *extent, int q, double beta, double J, double h,
                          struct exact_potts_moments *out);

#endif
