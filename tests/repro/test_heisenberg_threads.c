/*
 * Reproducibility guarantee for the Heisenberg spin glass: the configuration (both
 * replicas) after n sweeps of heat bath + 2 overrelaxation passes, with Gaussian couplings
 * drawn at creation, is bit-identical for 1, 2 and 3 threads, and so are the couplings,
 * the hot start, every observable (energy, |m|, overlap: deterministic reductions) and
 * the acceptance. Lattices are large enough that the threaded paths run (>= 32768 sites
 * per colour, LATMC_OMP_MIN_ITEMS), with extents that are not powers of two, 3D and 2D.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heisenberg_test_helpers.h"

enum { OBS_E, OBS_M, OBS_Q2, NOBS };

struct run_result {
    float *spins, *couplings;
    double obs[NOBS];
};

static struct run_result run(const latmc_sim_desc *d, int algorithm, int nsweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc dd = *d;
    dd.algorithm = algorithm;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &dd, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 1.2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.1), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 2), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, (uint64_t)nsweeps), LATMC_OK);
    size_t bytes = 0, nc = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
    assert_int_equal(latmc_sim_couplings_size(sim, &nc), LATMC_OK);
    struct run_result r;
    r.spins = malloc(bytes);
    r.couplings = malloc(nc * sizeof *r.couplings);
    assert_non_null(r.spins);
    assert_non_null(r.couplings);
    assert_int_equal(latmc_sim_get_spins(sim, r.spins, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(sim, r.couplings, nc), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &r.obs[OBS_E]), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ABS_MAGNETIZATION, &r.obs[OBS_M]),
                     LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &r.obs[OBS_Q2]), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return r;
}

static void identical_for_thread_counts(int ndim, int64_t lx, int64_t ly, int64_t lz,
                                        int algorithm, int nsweeps)
{
    const int threads[] = { 1, 2, 3 };
    struct run_result ref = { 0 };
    const size_t n = (size_t)(lx * ly * (ndim == 3 ? lz : 1));
    for (int t = 0; t < 3; t++) {
        latmc_sim_desc d = heisenberg_desc(ndim, lx, ly, lz, 2, LATMC_COUPLINGS_GAUSSIAN,
                                           algorithm, threads[t], 20261122);
        struct run_result r = run(&d, algorithm, nsweeps);
        if (t == 0) {
            ref = r;
            if (algorithm == LATMC_ALGO_HEATBATH) /* a real, moving chain at beta 1.2 */
                assert_true(ref.obs[OBS_E] < -0.3);
            continue;
        }
        assert_memory_equal(ref.spins, r.spins, n * 2 * 3 * sizeof(float));
        assert_memory_equal(ref.couplings, r.couplings, n * (size_t)ndim * sizeof(float));
        for (int k = 0; k < NOBS; k++)
            assert_true(ref.obs[k] == r.obs[k]);
        free(r.spins);
        free(r.couplings);
    }
    free(ref.spins);
    free(ref.couplings);
}

static void heatbath_3d(void **state)
{
    (void)state;
    identical_for_thread_counts(3, 42, 40, 40, LATMC_ALGO_HEATBATH, 6);
}

static void heatbath_2d(void **state)
{
    (void)state;
    identical_for_thread_counts(2, 300, 220, 0, LATMC_ALGO_HEATBATH, 6);
    identical_for_thread_counts(2, 6, 11000, 0, LATMC_ALGO_HEATBATH, 3);
}

static void overrelax_3d(void **state)
{
    (void)state;
    identical_for_thread_counts(3, 2, 180, 190, LATMC_ALGO_OVERRELAX, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heatbath_3d),
        cmocka_unit_test(heatbath_2d),
        cmocka_unit_test(overrelax_3d),
    };
    return cmocka_run_group_tests_name("heisenberg_threads", tests, NULL, NULL);
}
