/* Small helpers shared by the api, repro and physics suites (public API only). */
#ifndef LATMC_TEST_SIM_HELPERS_H
#define LATMC_TEST_SIM_HELPERS_H

#include <latmc/latmc.h>

/* A desc for an Ising lattice: extents lx, ly, and lz (ignored for ndim 2). */
static inline latmc_sim_desc ising_desc(int ndim, int64_t lx, int64_t ly, int64_t lz,
                                        int algorithm, int n_threads, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = ndim;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.extent[2] = ndim == 3 ? lz : 0;
    d.algorithm = algorithm;
    d.n_threads = n_threads;
    d.seed = seed;
    d.device = LATMC_DEVICE_CPU;
    return d;
}

/* splitmix64: the tests' own generator, independent of the library's Philox. */
static inline uint64_t test_rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/*
 * |a - b| <= tol, printing both values when it fails (cmocka 1.1 has no double asserts).
 * Use after including <cmocka.h> and <math.h>.
 */
#define assert_close(a, b, tol)                                                            \
    do {                                                                                   \
        double a_ = (a), b_ = (b), t_ = (tol);                                             \
        if (!(fabs(a_ - b_) <= t_))                                                        \
            print_error("%s = %.17g vs %s = %.17g (tolerance %.3g)\n", #a, a_, #b, b_, t_); \
        assert_true(fabs(a_ - b_) <= t_);                                                  \
    } while (0)

#endif
