/*
 * Reproducibility of phi^4: the field after n sweeps from a seed is bit-identical for 1,
 * 2 and 3 threads, and so are the acceptance and every observable (deterministic
 * reductions), for float and double fields, 2D with 8 and with 5 colours, and 3D.
 * Each colour holds >= 32768 sites (LATMC_OMP_MIN_ITEMS), so the threaded update and
 * reduction paths really run; nhit and nloc > 1 and a finite Lambda exercise every term.
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

enum { NOBS = 7 };

struct run_result {
    void *field;
    size_t bytes;
    double obs[NOBS];
};

static struct run_result run(int ndim, int64_t lx, int64_t ly, int64_t lz, int precision,
                             int n_threads)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = ndim;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.extent[2] = ndim == 3 ? lz : 0;
    d.precision = precision;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = n_threads;
    d.seed = 20261122;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.4), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.8), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, 2.5), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, 0.8), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NHIT, 2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, 2), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    struct run_result r;
    assert_int_equal(latmc_sim_spins_size(sim, &r.bytes), LATMC_OK);
    r.field = malloc(r.bytes);
    assert_non_null(r.field);
    assert_int_equal(latmc_sim_get_spins(sim, r.field, r.bytes), LATMC_OK);
    const int keys[NOBS] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                             LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                             LATMC_OBS_PHI2, LATMC_OBS_ACCEPTANCE };
    for (int k = 0; k < NOBS; k++)
        assert_int_equal(latmc_sim_observable(sim, keys[k], &r.obs[k]), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return r;
}

static void identical_for_thread_counts(int ndim, int64_t lx, int64_t ly, int64_t lz)
{
    for (int precision = 0; precision < 2; precision++) {
        struct run_result ref = run(ndim, lx, ly, lz, precision, 1);
        assert_true(ref.obs[NOBS - 1] > 0.2 && ref.obs[NOBS - 1] < 0.9); /* a moving chain */
        for (int threads = 2; threads <= 3; threads++) {
            struct run_result r = run(ndim, lx, ly, lz, precision, threads);
            assert_int_equal(r.bytes, ref.bytes);
            assert_memory_equal(ref.field, r.field, ref.bytes);
            assert_memory_equal(ref.obs, r.obs, sizeof ref.obs); /* bitwise, not approximately */
            free(r.field);
        }
        free(ref.field);
    }
}

static void eight_colours_2d(void **state)
{
    (void)state;
    identical_for_thread_counts(2, 520, 520, 0);   /* 33800 sites per colour */
}

static void five_colours_2d(void **state)
{
    (void)state;
    identical_for_thread_counts(2, 410, 410, 0);   /* 33620 sites per colour */
}

static void eight_colours_3d(void **state)
{
    (void)state;
    identical_for_thread_counts(3, 72, 64, 64);    /* 36864 sites per colour */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eight_colours_2d),
        cmocka_unit_test(five_colours_2d),
        cmocka_unit_test(eight_colours_3d),
    };
    return cmocka_run_group_tests_name("phi4_threads", tests, NULL, NULL);
}
