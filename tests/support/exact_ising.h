/*
 * Test support: exact reference results for the Ising model.
 *
 * The physics tests compare Monte Carlo estimates with numbers that carry no
 * statistical error. Two independent sources are provided, and the unit test
 * tests/unit/test_exact_ising.c checks each against the other:
 *
 *   1. Full enumeration of all 2^N states (N <= EXACT_ISING_MAX_SITES) on a
 *      periodic hypercubic lattice of any dimension, with a magnetic field.
 *   2. Kaufman's (1949) closed form for the partition function of the periodic
 *      Lx x Ly square lattice at h = 0, for any size, with analytic first and
 *      second derivatives in K = beta J (energy and specific heat).
 *   Plus Onsager's infinite-lattice energy, the L -> infinity limit of 2.
 *
 * Conventions (the same as the library's Ising model):
 *   H = -J sum_x sum_mu s_x s_{x+mu} - h sum_x s_x,   s = +-1,
 * periodic boundaries, x over every site and mu over the ndim positive
 * directions, so there are exactly N*ndim bond terms. On an extent of 2 the
 * terms (x, x+mu) and (x+mu, x+2mu = x) both count, i.e. the pair is coupled
 * twice; on an extent of 1 the term is s_x s_x = 1, a constant.
 * Weights exp(-beta H). Per-site observables: e = H/N, m = M/N, M = sum_x s_x.
 * Site index i = x + Lx*(y + Ly*z) (first coordinate fastest).
 *
 * Everything is reentrant: no global or static mutable state.
 */
#ifndef LATMC_TESTS_EXACT_ISING_H
#define LATMC_TESTS_EXACT_ISING_H

#include <stdint.h>

/* Largest lattice enumerated: 2^24 states take about 0.1 s. */
#define EXACT_ISING_MAX_SITES 24
/* Largest dimension accepted by the enumerator (extents of 1 are allowed). */
#define EXACT_ISING_MAX_DIM 8

/* Return codes (0 is success). */
#define EXACT_ISING_EINVAL (-1)
#define EXACT_ISING_ENOMEM (-2)

/* Exact thermal averages per site, from enumeration. */
struct exact_ising_moments {
    double lnz;   /* ln Z */
    double e;     /* <H/N> */
    double e2;    /* <(H/N)^2> */
    double var_e; /* <(H/N - <H/N>)^2>, summed about the mean (no cancellation) */
    double m;     /* <M/N> (exactly 0 at h = 0, by pairing M with -M) */
    double absm;  /* <|M/N|> */
    double m2;    /* <(M/N)^2> */
    double m4;    /* <(M/N)^4> */
};

/*
 * Density of states of one lattice: count[u * (nsites + 1) + d] is the number
 * of spin states with u unsatisfied bond terms (s_x s_{x+mu} = -1) and d down
 * spins, so bond sum B = nterms - 2u and magnetization M = nsites - 2d.
 * Built once (2^N Gray-code steps); any (beta, J, h) is then a cheap sum.
 */
struct exact_ising_hist {
    int nsites;      /* N */
    int nterms;      /* N * ndim bond terms */
    uint64_t *count; /* (nterms + 1) * (nsites + 1) entries, owned */
};

/*
 * Enumerate all states of the periodic lattice extent[0] x ... x extent[ndim-1]
 * (1 <= ndim <= EXACT_ISING_MAX_DIM, extent[k] >= 1, N <= EXACT_ISING_MAX_SITES).
 * On success hist owns memory released by exact_ising_hist_free. On failure
 * hist is left empty (safe to free). Returns 0, EXACT_ISING_EINVAL or
 * EXACT_ISING_ENOMEM.
 */
int exact_ising_hist_build(int ndim, const int *extent, struct exact_ising_hist *hist);

/* Release the histogram's memory and zero it; accepts NULL and empty. */
void exact_ising_hist_free(struct exact_ising_hist *hist);

/*
 * Number of states with nunsat unsatisfied bond terms and ndown down spins
 * (0 outside the table).
 */
uint64_t exact_ising_hist_count(const struct exact_ising_hist *hist, int nunsat, int ndown);

/*
 * Exact moments at (beta, J, h) from a built histogram. Any finite values are
 * accepted; the Boltzmann weights are shifted by their maximum (log-sum-exp)
 * so nothing overflows or underflows to a zero Z at any beta.
 * Returns 0 or EXACT_ISING_EINVAL.
 */
int exact_ising_hist_moments(const struct exact_ising_hist *hist, double beta, double J,
                             double h, struct exact_ising_moments *out);

/* Build, evaluate and free in one call. Same arguments and codes as above. */
int exact_ising_enumerate(int ndim, const int *extent, double beta, double J, double h,
                          struct exact_ising_moments *out);

/*
 * Kaufman's exact result for the periodic Lx x Ly square lattice at h = 0,
 * as a function of K = beta*J. Requires Lx, Ly >= 2 and 0 < |K| <= 100
 * (K = 0 is answered exactly: ln Z = N ln 2, e = 0, c = 0). K < 0
 * (antiferromagnet) is mapped to |K| by flipping one sublattice, which needs
 * Lx and Ly even; otherwise EXACT_ISING_EINVAL.
 *
 * Valid for all Lx, Ly >= 2, even or odd, either orientation (checked
 * against enumeration up to 24 sites).
 *
 * Accuracy, measured against enumeration and a 60-digit evaluation of the
 * same formula (sizes 4x4 .. 256x256, K = 0.01 .. 1, including K_c):
 * ln Z to 1e-15 relative; e and c to 1e-13 relative for 0.1 <= |K| <= 1.
 * Near K = 0 the derivatives are differences of terms of size N/K, and lose
 * about 1e-16/K^2 relative (2e-12 at K = 0.01). At large K, c ~ e^{-8K} is a
 * difference of terms of size N e^{-4K}, so its error is absolute, about
 * 1e-15 at K = 2 on 4x4 (c = 3e-5 there, 4e-11 relative).
 */
struct exact_ising_kaufman_result {
    double lnz;   /* ln Z */
    double dlnz;  /* d ln Z / dK = <B>, B = sum of bond terms */
    double d2lnz; /* d^2 ln Z / dK^2 = <B^2> - <B>^2 */
    double e;     /* <H/N> = -J <B> / N */
    double c;     /* specific heat per site beta^2 N (<e^2> - <e>^2) = K^2 d2lnz / N */
};

/* Fill out; returns 0 or EXACT_ISING_EINVAL (out then holds NaNs). */
int exact_ising_kaufman_eval(int Lx, int Ly, double beta, double J,
                             struct exact_ising_kaufman_result *out);

/* Convenience wrappers: NaN on invalid arguments. */
double exact_ising_kaufman_logz(int Lx, int Ly, double beta, double J);
double exact_ising_kaufman_energy(int Lx, int Ly, double beta, double J);
double exact_ising_kaufman_specific_heat(int Lx, int Ly, double beta, double J);

/*
 * Onsager's energy per site of the infinite square lattice at h = 0:
 *   u = -J coth(2K) [1 + (2/pi) (2 tanh^2(2K) - 1) K1(k)],
 *   k = 2 sinh(2K) / cosh^2(2K),
 * K1 the complete elliptic integral of the first kind, by the AGM.
 * At K = K_c, where K1 diverges and its prefactor vanishes, the limit
 * -J sqrt(2) is returned. Relative accuracy ~1e-15 for |K| >= 0.1; at small
 * |K| the bracket cancels to O(K^2), losing ~1e-16/K^2. K < 0 (antiferromagnet) maps to |K| by flipping a
 * sublattice: <B>(K) = -<B>(-K). NaN for non-finite arguments.
 */
double exact_ising_onsager_energy(double beta, double J);

#endif
