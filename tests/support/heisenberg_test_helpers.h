/*
 * Small helpers of the Heisenberg tests (public API only): descs, the test's own random
 * unit vectors, and the energy and overlap computed from get_spins / get_couplings
 * independently of the library's reduction.
 */
#ifndef LATMC_TEST_HEISENBERG_HELPERS_H
#define LATMC_TEST_HEISENBERG_HELPERS_H

#include <math.h>

#include <latmc/latmc.h>
#include "sim_helpers.h"

/* A desc for a Heisenberg lattice: extents lx, ly, and lz (ignored for ndim 2). */
static inline latmc_sim_desc heisenberg_desc(int ndim, int64_t lx, int64_t ly, int64_t lz,
                                             int replicas, int couplings, int algorithm,
                                             int n_threads, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = ndim;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.extent[2] = ndim == 3 ? lz : 0;
    d.replicas = replicas;
    d.couplings = couplings;
    d.coupling_seed = seed ^ UINT64_C(0xc0ff1e);
    d.algorithm = algorithm;
    d.n_threads = n_threads;
    d.seed = seed;
    d.device = LATMC_DEVICE_CPU;
    return d;
}

/* A uniform number in (0, 1) from the tests' own generator. */
static inline double test_uniform(uint64_t *rng)
{
    return ((double)(test_rng_next(rng) >> 11) + 0.5) * 0x1p-53;
}

/* A standard normal number (Box-Muller, cosine branch). */
static inline double test_gaussian(uint64_t *rng)
{
    const double u1 = test_uniform(rng), u2 = test_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* A random unit vector (normalised Gaussian triple), rounded to float. */
static inline void test_unit_vector(uint64_t *rng, float out[3])
{
    double v[3], n2 = 0.0;
    do {
        n2 = 0.0;
        for (int c = 0; c < 3; c++) {
            v[c] = test_gaussian(rng);
            n2 += v[c] * v[c];
        }
    } while (n2 < 1e-6);
    const double inv = 1.0 / sqrt(n2);
    for (int c = 0; c < 3; c++)
        out[c] = (float)(v[c] * inv);
}

/* Lattice geometry as the tests see it. */
struct test_lattice {
    int ndim;
    int64_t L[3]; /* L[2] = 1 in 2D */
    int64_t n;
};

static inline struct test_lattice test_lattice_of(const latmc_sim_desc *d)
{
    struct test_lattice g;
    g.ndim = d->ndim;
    g.L[0] = d->extent[0];
    g.L[1] = d->extent[1];
    g.L[2] = d->ndim == 3 ? d->extent[2] : 1;
    g.n = g.L[0] * g.L[1] * g.L[2];
    return g;
}

/* Index of the neighbour of site i in direction mu, step +1 or -1 (periodic). */
static inline int64_t test_neighbour(const struct test_lattice *g, int64_t i, int mu, int step)
{
    int64_t c[3] = { i % g->L[0], (i / g->L[0]) % g->L[1], i / (g->L[0] * g->L[1]) };
    c[mu] = (c[mu] + step + g->L[mu]) % g->L[mu];
    return c[0] + g->L[0] * (c[1] + g->L[1] * c[2]);
}

/* H / N = (-sum_i sum_mu J_{i,mu} s_i . s_{i+mu} - h sum_i s_i^z) / N of one replica. */
static inline double test_energy_per_site(const struct test_lattice *g, const float *spins,
                                          const float *J, double h)
{
    double e = 0.0;
    for (int64_t i = 0; i < g->n; i++) {
        const float *s = spins + 3 * i;
        for (int mu = 0; mu < g->ndim; mu++) {
            const float *t = spins + 3 * test_neighbour(g, i, mu, +1);
            e -= (double)J[g->ndim * i + mu] *
                 ((double)s[0] * t[0] + (double)s[1] * t[1] + (double)s[2] * t[2]);
        }
        e -= h * s[2];
    }
    return e / (double)g->n;
}

/* sum_{mu,nu} q_{mu nu}^2, q_{mu nu} = (1/N) sum_i a_{i mu} b_{i nu}. */
static inline double test_overlap2(int64_t n, const float *a, const float *b)
{
    double q[3][3] = { { 0 } };
    for (int64_t i = 0; i < n; i++)
        for (int mu = 0; mu < 3; mu++)
            for (int nu = 0; nu < 3; nu++)
                q[mu][nu] += (double)a[3 * i + mu] * b[3 * i + nu];
    double q2 = 0.0;
    for (int mu = 0; mu < 3; mu++)
        for (int nu = 0; nu < 3; nu++)
            q2 += (q[mu][nu] / (double)n) * (q[mu][nu] / (double)n);
    return q2;
}

#endif
