/*
 * Reproducibility guarantee: the configuration after n sweeps from a seed is bit-identical
 * for 1, 2 and 3 threads (and so are the acceptance counts and every observable).
 * Lattices are large enough that the threaded code paths really run (>= 32768 sites per
 * colour, LATMC_OMP_MIN_ITEMS), and include extents that are not powers of two.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_helpers.h"

struct run_result {
    int8_t *spins;
    double energy, acceptance;
};

static struct run_result run(const latmc_sim_desc *d, double beta, double h, int nsweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, (uint64_t)nsweeps), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    struct run_result r;
    r.spins = malloc(n);
    assert_non_null(r.spins);
    assert_int_equal(latmc_sim_get_spins(sim, r.spins, n), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &r.energy), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &r.acceptance), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return r;
}

static void identical_for_thread_counts(int ndim, int64_t lx, int64_t ly, int64_t lz, int algorithm)
{
    const int threads[] = { 1, 2, 3 };
    struct run_result ref = { 0 };
    size_t n = (size_t)(lx * ly * (ndim == 3 ? lz : 1));
    for (int t = 0; t < 3; t++) {
        latmc_sim_desc d = ising_desc(ndim, lx, ly, lz, algorithm, threads[t], 20261121);
        struct run_result r = run(&d, ndim == 2 ? 0.42 : 0.21, 0.05, 25);
        if (t == 0) {
            ref = r;
            assert_true(r.acceptance > 0.05 && r.acceptance < 0.95); /* a real, moving chain */
            continue;
        }
        assert_memory_equal(ref.spins, r.spins, n);
        assert_true(ref.energy == r.energy);
        assert_true(ref.acceptance == r.acceptance);
        free(r.spins);
    }
    free(ref.spins);
}

static void metropolis_2d(void **state)
{
    (void)state;
    identical_for_thread_counts(2, 300, 220, 0, LATMC_ALGO_METROPOLIS);
    identical_for_thread_counts(2, 256, 256, 0, LATMC_ALGO_METROPOLIS);
}

static void heatbath_2d(void **state)
{
    (void)state;
    identical_for_thread_counts(2, 300, 220, 0, LATMC_ALGO_HEATBATH);
    identical_for_thread_counts(2, 6, 11000, 0, LATMC_ALGO_HEATBATH);
}

static void metropolis_3d(void **state)
{
    (void)state;
    identical_for_thread_counts(3, 42, 40, 40, LATMC_ALGO_METROPOLIS);
    identical_for_thread_counts(3, 48, 32, 44, LATMC_ALGO_METROPOLIS);
}

static void heatbath_3d(void **state)
{
    (void)state;
    identical_for_thread_counts(3, 42, 40, 40, LATMC_ALGO_HEATBATH);
    identical_for_thread_counts(3, 2, 180, 190, LATMC_ALGO_HEATBATH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metropolis_2d),
        cmocka_unit_test(heatbath_2d),
        cmocka_unit_test(metropolis_3d),
        cmocka_unit_test(heatbath_3d),
    };
    return cmocka_run_group_tests_name("thread_identity", tests, NULL, NULL);
}
