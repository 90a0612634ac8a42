/*
 * Reproducibility guarantee for the Potts model: the configuration after n sweeps from a
 * seed is bit-identical for 1, 2 and 3 threads (and so are the acceptance counts and the
 * observables), for Metropolis and heat bath, q = 3 and q = 200, 2D and 3D, with the
 * two-colour (every extent even) and the three-colour (every extent divisible by 3)
 * update. Lattices are large enough that the threaded code paths really run (>= 32768
 * sites per colour, LATMC_OMP_MIN_ITEMS), and include extents that are not powers of two.
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
    uint8_t *spins;
    double energy, m2, acceptance;
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
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &r.m2), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &r.acceptance), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return r;
}

static void identical_for_thread_counts(int ndim, int64_t lx, int64_t ly, int64_t lz, int q,
                                        int algorithm, int nsweeps)
{
    const int threads[] = { 1, 2, 3 };
    struct run_result ref = { 0 };
    size_t n = (size_t)(lx * ly * (ndim == 3 ? lz : 1));
    /* near the transition of q = 3 (2D: 1.005, 3D: ~0.55); q = 200 is disordered there,
     * so a colder beta keeps its heat bath away from "uniform over 200 states" */
    double beta = q == 3 ? (ndim == 2 ? 1.0 : 0.55) : (ndim == 2 ? 3.0 : 2.0);
    for (int t = 0; t < 3; t++) {
        latmc_sim_desc d = ising_desc(ndim, lx, ly, lz, algorithm, threads[t], 20261122);
        d.model = LATMC_MODEL_POTTS;
        d.q = q;
        struct run_result r = run(&d, beta, 0.05, nsweeps);
        if (t == 0) {
            ref = r;
            assert_true(r.acceptance > 0.01 && r.acceptance < 0.99); /* a real, moving chain */
            continue;
        }
        assert_memory_equal(ref.spins, r.spins, n);
        assert_true(ref.energy == r.energy);
        assert_true(ref.m2 == r.m2);
        assert_true(ref.acceptance == r.acceptance);
        free(r.spins);
    }
    free(ref.spins);
}

static void metropolis_2d(void **state)
{
    (void)state;
    identical_for_thread_counts(2, 300, 220, 0, 3, LATMC_ALGO_METROPOLIS, 20);
    identical_for_thread_counts(2, 333, 300, 0, 3, LATMC_ALGO_METROPOLIS, 20); /* c = 3 */
    identical_for_thread_counts(2, 6, 11000, 0, 200, LATMC_ALGO_METROPOLIS, 10);
}

static void heatbath_2d(void **state)
{
    (void)state;
    identical_for_thread_counts(2, 300, 220, 0, 3, LATMC_ALGO_HEATBATH, 20);
    identical_for_thread_counts(2, 333, 300, 0, 200, LATMC_ALGO_HEATBATH, 10); /* c = 3 */
}

static void metropolis_3d(void **state)
{
    (void)state;
    identical_for_thread_counts(3, 42, 40, 40, 3, LATMC_ALGO_METROPOLIS, 20);
    identical_for_thread_counts(3, 48, 48, 45, 200, LATMC_ALGO_METROPOLIS, 10); /* c = 3 */
}

static void heatbath_3d(void **state)
{
    (void)state;
    identical_for_thread_counts(3, 48, 48, 45, 3, LATMC_ALGO_HEATBATH, 20); /* c = 3 */
    identical_for_thread_counts(3, 2, 180, 190, 200, LATMC_ALGO_HEATBATH, 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metropolis_2d),
        cmocka_unit_test(heatbath_2d),
        cmocka_unit_test(metropolis_3d),
        cmocka_unit_test(heatbath_3d),
    };
    return cmocka_run_group_tests_name("potts_threads", tests, NULL, NULL);
}
