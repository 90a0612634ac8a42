/*
 * phi^4 through the public API: bad inputs are refused with their documented code and a
 * message that says why, leaving the sim unchanged; and latmc_sim_tune_epsilon moves the
 * acceptance towards its target from either side.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim_helpers.h"

/* The desc of these tests: one thread, seed 3 (sim_helpers.h). */
static latmc_sim_desc phi4_desc(int ndim, int64_t lx, int64_t ly, int64_t lz, int precision)
{
    return phi4_test_desc(ndim, lx, ly, lz, precision, 1, 3);
}

static void expect_create_fails(latmc_ctx *ctx, const latmc_sim_desc *d, int code,
                                const char *const *words, int nwords)
{
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    if (st != code)
        print_error("expected %d, got %d: %s\n", code, st, latmc_last_error());
    assert_int_equal(st, code);
    assert_null(sim);
    for (int w = 0; w < nwords; w++) {
        if (!strstr(latmc_last_error(), words[w]))
            print_error("message \"%s\" lacks \"%s\"\n", latmc_last_error(), words[w]);
        assert_non_null(strstr(latmc_last_error(), words[w]));
    }
}

static void extents_without_colouring(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    /* the message names the extents given and the ones that work */
    const char *w2[] = { "12 x 12", "divisible by 8", "divisible by 5" };
    latmc_sim_desc d = phi4_desc(2, 12, 12, 0, LATMC_PRECISION_DOUBLE);
    expect_create_fails(ctx, &d, LATMC_EINVAL, w2, 3);
    d = phi4_desc(2, 8, 10, 0, LATMC_PRECISION_FLOAT);   /* one by 8, the other by 5 */
    expect_create_fails(ctx, &d, LATMC_EINVAL, w2 + 1, 2);
    const char *w3[] = { "10 x 10 x 10", "divisible by 8" };
    d = phi4_desc(3, 10, 10, 10, LATMC_PRECISION_DOUBLE); /* no 5-colouring in 3D */
    expect_create_fails(ctx, &d, LATMC_EINVAL, w3, 2);
    d = phi4_desc(3, 8, 8, 12, LATMC_PRECISION_DOUBLE);
    expect_create_fails(ctx, &d, LATMC_EINVAL, w3 + 1, 1);
    /* replicas and algorithms phi^4 does not have */
    d = phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE);
    d.replicas = 2;
    expect_create_fails(ctx, &d, LATMC_EUNSUPPORTED, NULL, 0);
    d = phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE);
    d.algorithm = LATMC_ALGO_HEATBATH;
    expect_create_fails(ctx, &d, LATMC_EUNSUPPORTED, NULL, 0);
    d.precision = 7;
    d.algorithm = LATMC_ALGO_DEFAULT;
    expect_create_fails(ctx, &d, LATMC_EINVAL, NULL, 0);
    /* the extents that do work */
    const int64_t good[][4] = { { 2, 8, 8, 0 }, { 2, 5, 10, 0 }, { 2, 40, 15, 0 },
                                { 3, 8, 16, 24 } };
    for (int k = 0; k < 4; k++) {
        d = phi4_desc((int)good[k][0], good[k][1], good[k][2], good[k][3], LATMC_PRECISION_FLOAT);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

static void expect_param_fails(latmc_sim *sim, int key, double value)
{
    double before = 0, after = 0;
    assert_int_equal(latmc_sim_get_param(sim, key, &before), LATMC_OK);
    const int st = latmc_sim_set_param(sim, key, value);
    if (st != LATMC_EINVAL)
        print_error("%s = %g: expected LATMC_EINVAL, got %d\n", latmc_param_name(key), value, st);
    assert_int_equal(st, LATMC_EINVAL);
    assert_non_null(strstr(latmc_sim_last_error(sim), latmc_param_name(key)));
    assert_int_equal(latmc_sim_get_param(sim, key, &after), LATMC_OK);
    assert_true(before == after || (isnan(before) && isnan(after)));
}

static void bad_parameters(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    expect_param_fails(sim, LATMC_PARAM_LAMBDA, 0.0);
    expect_param_fails(sim, LATMC_PARAM_LAMBDA, -1.0);
    expect_param_fails(sim, LATMC_PARAM_LAMBDA, -INFINITY);
    expect_param_fails(sim, LATMC_PARAM_LAMBDA, NAN);
    expect_param_fails(sim, LATMC_PARAM_EPSILON, 0.0);
    expect_param_fails(sim, LATMC_PARAM_EPSILON, -0.5);
    expect_param_fails(sim, LATMC_PARAM_EPSILON, INFINITY);
    expect_param_fails(sim, LATMC_PARAM_NHIT, 0.0);
    expect_param_fails(sim, LATMC_PARAM_NHIT, 1.5);
    expect_param_fails(sim, LATMC_PARAM_NHIT, 65536.0);
    expect_param_fails(sim, LATMC_PARAM_NLOC, 0.0);
    expect_param_fails(sim, LATMC_PARAM_MU2, INFINITY);
    expect_param_fails(sim, LATMC_PARAM_G, NAN);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, INFINITY), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, 1e-3), LATMC_OK);
    /* parameters of other models */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.5), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 1), LATMC_EUNSUPPORTED);
    double v = 0;
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &v), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void bad_fields(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int prec = 0; prec < 2; prec++) {
        latmc_sim_desc d = phi4_desc(2, 5, 5, 0, prec);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        size_t bytes = 0;
        assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
        assert_int_equal(bytes, 25 * (prec == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double)));
        double dbuf[25], before[25], after[25];
        float fbuf[25];
        for (int i = 0; i < 25; i++)
            fbuf[i] = (float)(dbuf[i] = 0.1 * i - 1);
        void *buf = prec == LATMC_PRECISION_FLOAT ? (void *)fbuf : (void *)dbuf;
        assert_int_equal(latmc_sim_set_spins(sim, buf, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, before, bytes), LATMC_OK);
        const double bad[] = { NAN, INFINITY, -INFINITY };
        for (int b = 0; b < 3; b++) {
            fbuf[17] = (float)(dbuf[17] = bad[b]);
            assert_int_equal(latmc_sim_set_spins(sim, buf, bytes), LATMC_EINVAL);
            assert_non_null(strstr(latmc_sim_last_error(sim), "finite"));
            assert_non_null(strstr(latmc_sim_last_error(sim), "17"));
            assert_int_equal(latmc_sim_get_spins(sim, after, bytes), LATMC_OK);
            assert_memory_equal(before, after, bytes); /* unchanged */
        }
        /* a float-sized buffer for a double sim, and the other way round */
        const size_t other = 25 * (prec == LATMC_PRECISION_FLOAT ? sizeof(double) : sizeof(float));
        assert_int_equal(latmc_sim_set_spins(sim, dbuf, other), LATMC_EINVAL);
        assert_int_equal(latmc_sim_get_spins(sim, dbuf, other), LATMC_EINVAL);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

/* Acceptance over `sweeps` fresh sweeps at the current epsilon. */
static double acceptance_now(latmc_sim *sim, uint64_t sweeps)
{
    double a = 0;
    assert_int_equal(latmc_sim_reset_acceptance(sim), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, sweeps), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &a), LATMC_OK);
    return a;
}

static void tune_epsilon_moves_towards_target(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double starts[] = { 0.01, 40.0 };
    const double targets[] = { 0.5, 0.3, 0.7 };
    for (int prec = 0; prec < 2; prec++)
        for (int s = 0; s < 2; s++)
            for (int t = 0; t < 3; t++) {
                latmc_sim_desc d = phi4_desc(2, 8, 8, 0, prec);
                latmc_sim *sim = NULL;
                assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.3), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, 2.0), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, starts[s]), LATMC_OK);
                assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
                assert_int_equal(latmc_sim_sweep(sim, 100), LATMC_OK);
                const double before = acceptance_now(sim, 50);
                assert_int_equal(latmc_sim_tune_epsilon(sim, targets[t], 300), LATMC_OK);
                const double after = acceptance_now(sim, 200);
                double eps = 0;
                assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_EPSILON, &eps), LATMC_OK);
                printf("%s start epsilon %5.2f: acceptance %.3f -> %.3f (target %.1f), "
                       "epsilon %.3f\n", prec ? "double" : "float ", starts[s], before, after,
                       targets[t], eps);
                assert_true(fabs(after - targets[t]) < fabs(before - targets[t]));
                assert_true(fabs(after - targets[t]) < 0.05);
                assert_true(s == 0 ? eps > starts[s] : eps < starts[s]);
                latmc_sim_destroy(&sim);
            }
    /* target out of range */
    latmc_sim_desc d = phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_tune_epsilon(sim, 1.0, 10), LATMC_EINVAL);
    assert_int_equal(latmc_sim_tune_epsilon(sim, 0.0, 10), LATMC_EINVAL);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(extents_without_colouring),
        cmocka_unit_test(bad_parameters),
        cmocka_unit_test(bad_fields),
        cmocka_unit_test(tune_epsilon_moves_towards_target),
    };
    return cmocka_run_group_tests_name("phi4_inputs", tests, NULL, NULL);
}
