/*
 * Parameter ranges (issue 12 item 1): every parameter of every model has a closed range,
 * latmc_param_bounds() reports it, latmc_sim_set_param() accepts both ends and refuses the
 * nearest doubles outside (LATMC_EINVAL, the message naming the range), integer keys refuse
 * fractions, and a checkpoint carrying an out-of-range value is refused. phi^4: g < 0
 * refused; g = 0 with mu2 <= 0 (not normalisable, whatever lambda) cannot be swept.
 * Floating fields: phi^4 set_spins refuses |phi| > 1e40 and non-finite values, and at the
 * bound every observable is finite even at the most extreme valid parameters.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../fuzz/ckpt_format.h"
#include "sim_helpers.h"

struct model_case {
    int model, ndim;
    int64_t l;
    int q;
};

static const struct model_case models[] = {
    { LATMC_MODEL_ISING, 2, 8, 2 },
    { LATMC_MODEL_POTTS, 2, 6, 3 },
    { LATMC_MODEL_PHI4, 2, 8, 2 },
    { LATMC_MODEL_HEISENBERG, 2, 4, 2 },
};

static latmc_sim *make_sim(latmc_ctx *ctx, const struct model_case *m, int precision)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = m->model;
    d.ndim = m->ndim;
    d.extent[0] = d.extent[1] = m->l;
    d.q = m->q;
    d.precision = precision;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 5;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    return sim;
}

static bool is_integer_key(int key)
{
    return key == LATMC_PARAM_NHIT || key == LATMC_PARAM_NLOC || key == LATMC_PARAM_NOVER ||
           key == LATMC_PARAM_DECISIONS;
}

/* The documented ranges (sim.h, doc/conventions.md), written out independently. */
static void expected_range(int key, double *lo, double *hi)
{
    switch (key) {
    case LATMC_PARAM_BETA: case LATMC_PARAM_G: *lo = 0; *hi = 1e100; return;
    case LATMC_PARAM_J: case LATMC_PARAM_H: case LATMC_PARAM_MU2: *lo = -1e100; *hi = 1e100; return;
    case LATMC_PARAM_LAMBDA: *lo = 1e-100; *hi = INFINITY; return;
    case LATMC_PARAM_EPSILON: *lo = 1e-100; *hi = 1e100; return;
    case LATMC_PARAM_NHIT: case LATMC_PARAM_NLOC: *lo = 1; *hi = 65535; return;
    case LATMC_PARAM_NOVER: *lo = 0; *hi = 65535; return;
    case LATMC_PARAM_DECISIONS: *lo = 0; *hi = 1; return;
    default: fail();
    }
}

static void every_range_reported_and_enforced(void **state)
{
    (void)state;
    /* every model of the library has its case */
    const int uncovered = test_model_without_case(models, sizeof models / sizeof models[0],
                                                  model);
    if (uncovered != LATMC_MODEL_NONE)
        fail_msg("model %s has no case in models[]", latmc_model_name(uncovered));
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        latmc_sim *sim = make_sim(ctx, &models[m], LATMC_PRECISION_DOUBLE);
        for (int key = 1; key <= LATMC_PARAM_DECISIONS; key++) {
            double lo = 7, hi = 7, v = 0;
            const int st = latmc_param_bounds(models[m].model, key, &lo, &hi);
            const int owned = latmc_sim_get_param(sim, key, &v);
            if (owned == LATMC_EUNSUPPORTED) {
                assert_int_equal(st, LATMC_EUNSUPPORTED);
                assert_true(lo == 7 && hi == 7);
                assert_true(strlen(latmc_last_error()) > 0);
                continue;
            }
            assert_int_equal(owned, LATMC_OK);
            assert_int_equal(st, LATMC_OK);
            double elo, ehi;
            expected_range(key, &elo, &ehi);
            assert_true(lo == elo && hi == ehi);
            assert_true(v >= lo && v <= hi); /* the default lies inside */
            /* Both ends accepted (closed). */
            assert_int_equal(latmc_sim_set_param(sim, key, lo), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, key, hi), LATMC_OK);
            /* The nearest values outside refused, the old value kept, the range named. */
            const double below = is_integer_key(key) ? lo - 1 : nextafter(lo, -INFINITY);
            const double above = is_integer_key(key) ? hi + 1 : nextafter(hi, INFINITY);
            const double outside[] = { below, above, NAN, -INFINITY };
            for (size_t i = 0; i < sizeof outside / sizeof outside[0]; i++) {
                if (isinf(outside[i]) && outside[i] > 0 && isinf(hi))
                    continue;
                if (!isfinite(above) && i == 1)
                    continue; /* lambda: nothing above +inf */
                assert_int_equal(latmc_sim_set_param(sim, key, outside[i]), LATMC_EINVAL);
                double now;
                assert_int_equal(latmc_sim_get_param(sim, key, &now), LATMC_OK);
                assert_true(now == hi);
                char range[64];
                snprintf(range, sizeof range, "[%g, %g]", lo, hi);
                assert_non_null(strstr(latmc_sim_last_error(sim), range));
                assert_non_null(strstr(latmc_sim_last_error(sim), latmc_param_name(key)));
            }
            if (is_integer_key(key)) {
                assert_int_equal(latmc_sim_set_param(sim, key, lo + 0.5), LATMC_EINVAL);
                assert_non_null(strstr(latmc_sim_last_error(sim), "whole number"));
            }
        }
        latmc_sim_destroy(&sim);
    }
    double lo, hi;
    assert_int_equal(latmc_param_bounds(LATMC_MODEL_NONE, LATMC_PARAM_BETA, &lo, &hi), LATMC_EINVAL);
    assert_int_equal(latmc_param_bounds(99, LATMC_PARAM_BETA, &lo, &hi), LATMC_EINVAL);
    assert_int_equal(latmc_param_bounds(LATMC_MODEL_ISING, 0, &lo, &hi), LATMC_EINVAL);
    assert_int_equal(latmc_param_bounds(LATMC_MODEL_ISING, 12, &lo, &hi), LATMC_EINVAL);
    assert_int_equal(latmc_param_bounds(LATMC_MODEL_ISING, LATMC_PARAM_BETA, NULL, &hi), LATMC_EINVAL);
    assert_int_equal(latmc_param_bounds(LATMC_MODEL_ISING, LATMC_PARAM_BETA, &lo, NULL), LATMC_EINVAL);
    assert_true(strlen(latmc_last_error()) > 0);
    latmc_ctx_destroy(&ctx);
}

static void phi4_normalisability(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make_sim(ctx, &models[2], LATMC_PRECISION_DOUBLE);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    /* g < 0: refused, whatever else. */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, -1.0), LATMC_EINVAL);
    assert_non_null(strstr(latmc_sim_last_error(sim), "normalisable"));
    /* g = 0 with mu2 <= 0: refused at the sweep, with every lambda (the uniform mode). */
    const double lambdas[] = { INFINITY, 1e-100, 0.5, 1e100 };
    const double mu2s[] = { 0.0, -0.5, -1e100 };
    for (size_t l = 0; l < 4; l++)
        for (size_t m = 0; m < 3; m++) {
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, lambdas[l]), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, mu2s[m]), LATMC_OK);
            uint64_t before, after;
            assert_int_equal(latmc_sim_sweep_count(sim, &before), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_ESTATE);
            assert_non_null(strstr(latmc_sim_last_error(sim), "mu2 > 0 or g > 0"));
            assert_int_equal(latmc_sim_tune_epsilon(sim, 0.5, 10), LATMC_ESTATE);
            assert_int_equal(latmc_sim_sweep_count(sim, &after), LATMC_OK);
            assert_true(before == after);
        }
    /* Either way out is accepted: mu2 > 0 at g = 0 (the Gaussian), or g > 0 at any mu2. */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, 1e-100), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -1.0), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1e-100), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    /* The rule is between parameters, so set_param takes either order: mu2 < 0 first. */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 0.0), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 6.0), LATMC_OK);
    /* n = 0 is a no-op even then (nothing runs). */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 0.0), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 0), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* A checkpoint whose parameter lies outside its range is refused at load (the loader runs
 * set_param's own check), and one saved with g = 0, mu2 = 0 loads but does not sweep. */
static void checkpoint_params_checked(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make_sim(ctx, &models[2], LATMC_PRECISION_DOUBLE);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &n), LATMC_OK);
    unsigned char *buf = malloc(n);
    assert_non_null(buf);
    assert_int_equal(latmc_sim_serialize(sim, buf, n, &n), LATMC_OK);
    latmc_sim *back = NULL;
    assert_int_equal(latmc_sim_deserialize(ctx, buf, n, &back), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(back, 1), LATMC_ESTATE);
    latmc_sim_destroy(&back);
    const struct { int key; double v; } bad[] = {
        { LATMC_PARAM_G, -1.0 }, { LATMC_PARAM_EPSILON, 1e-200 }, { LATMC_PARAM_LAMBDA, 1e-300 },
        { LATMC_PARAM_NHIT, 1.5 }, { LATMC_PARAM_MU2, 2e100 },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        unsigned char *copy = malloc(n);
        assert_non_null(copy);
        memcpy(copy, buf, n);
        uint64_t bits;
        memcpy(&bits, &bad[i].v, 8);
        ckpt_put_le(copy + CKPT_OFF_PARAMS + 8 * (size_t)(bad[i].key - 1), bits, 8);
        ckpt_reseal(copy, n);
        assert_int_equal(latmc_sim_deserialize(ctx, copy, n, &back), LATMC_ECORRUPT);
        assert_null(back);
        assert_true(strlen(latmc_last_error()) > 0);
        free(copy);
    }
    free(buf);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* phi^4 fields: |phi| <= 1e40 and finite (issue 13 item 9); at the bound, with the most
 * extreme valid parameters, every observable is finite; Heisenberg's unit length. */
static void floating_fields_bounded(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int prec = 0; prec < 2; prec++) {
        latmc_sim *sim = make_sim(ctx, &models[2], prec);
        const size_t n = 64;
        double dv[64];
        float fv[64];
        const double values[] = { 1e300, -1e41, NAN, INFINITY, -INFINITY };
        for (size_t k = 0; k < sizeof values / sizeof values[0]; k++) {
            for (size_t i = 0; i < n; i++) {
                dv[i] = 0.25;
                fv[i] = 0.25f;
            }
            dv[17] = values[k];
            fv[17] = (float)values[k];
            if (prec == LATMC_PRECISION_FLOAT && isfinite(values[k]))
                continue; /* a float cannot hold them: it is inf, tested below */
            const int st = prec ? latmc_sim_set_spins(sim, dv, sizeof dv)
                                : latmc_sim_set_spins(sim, fv, sizeof fv);
            assert_int_equal(st, LATMC_EINVAL);
            assert_non_null(strstr(latmc_sim_last_error(sim), "17"));
        }
        /* At the bound (alternating sign: the largest gradients and Laplacians), with the
         * largest coefficients: everything finite. */
        for (size_t i = 0; i < n; i++) {
            const double s = ((i % 8) + (i / 8)) % 2 ? -1.0 : 1.0;
            dv[i] = s * 1e40;
            fv[i] = (float)(s * 3.0e38);
        }
        assert_int_equal(prec ? latmc_sim_set_spins(sim, dv, sizeof dv)
                              : latmc_sim_set_spins(sim, fv, sizeof fv), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1e100), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -1e100), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, 1e-100), LATMC_OK);
        const int obs[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2,
                            LATMC_OBS_M4, LATMC_OBS_PHI2 };
        for (size_t k = 0; k < sizeof obs / sizeof obs[0]; k++) {
            double v;
            assert_int_equal(latmc_sim_observable(sim, obs[k], &v), LATMC_OK);
            assert_true(isfinite(v));
        }
        latmc_sim_destroy(&sim);
    }
    /* Heisenberg: unit length within 1e-5, finite. */
    latmc_sim *sim = make_sim(ctx, &models[3], LATMC_PRECISION_DOUBLE);
    float s[16 * 3];
    for (int i = 0; i < 16; i++) {
        s[3 * i] = 0.0f;
        s[3 * i + 1] = 0.0f;
        s[3 * i + 2] = 1.0f;
    }
    s[3 * 5 + 2] = 1.0f + 2e-5f;
    assert_int_equal(latmc_sim_set_spins(sim, s, sizeof s), LATMC_EINVAL);
    s[3 * 5 + 2] = 1.0f + 5e-6f;
    assert_int_equal(latmc_sim_set_spins(sim, s, sizeof s), LATMC_OK);
    s[3 * 5 + 2] = NAN;
    assert_int_equal(latmc_sim_set_spins(sim, s, sizeof s), LATMC_EINVAL);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_range_reported_and_enforced),
        cmocka_unit_test(phi4_normalisability),
        cmocka_unit_test(checkpoint_params_checked),
        cmocka_unit_test(floating_fields_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
