/*
 * phi^4: every SIMD level this machine has against the C reference, bit for bit. For each
 * case two sims are made, one with LATMC_CPU_MASK=c and one at the level, given the same
 * field (random, with edge values), parameters and seed, swept, and compared after every
 * sweep: the whole field (get_spins, which also undoes the SIMD levels' layout), the
 * acceptance counts and the observables. The cases cover float and double, 2D with 8 and
 * 5 colours and 3D; extents where the vector path sees whole rows and where its groups
 * straddle rows or run past the end of a colour (non-power-of-two extents); Lambda
 * finite, tiny and +inf; g = 0 and large; tiny and huge proposals; nhit from 1 to past
 * 32768 (the second phase block of the random-number names); nloc > 1; and the threaded
 * path (2 threads at the SIMD level against 1 in C).
 * Levels the machine lacks are skipped and named; with no SIMD level at all the test
 * exits 77 (skipped).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "cpu_features.h"
#include "phi4_dsp.h"
#include "simd_levels.h"
#include "sim_helpers.h"

struct phi4_case {
    int ndim;
    int64_t L[3];
    int precision;
    double mu2, g, lambda, epsilon;
    int nhit, nloc, sweeps;
    int threads;       /* at the SIMD level; the C reference always runs on 1 */
    int field;         /* 0: uniform (-2, 2); 1: with edge values; 2: cold */
};

static latmc_sim *make(latmc_ctx *ctx, const struct phi4_case *c, const char *mask, int threads)
{
    setenv("LATMC_CPU_MASK", mask, 1);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = c->ndim;
    for (int mu = 0; mu < c->ndim; mu++)
        d.extent[mu] = c->L[mu];
    d.precision = c->precision;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.seed = UINT64_C(0x5eed00000000) + (uint64_t)c->nhit * 977u + (uint64_t)c->L[0];
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, c->mu2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, c->g), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, c->lambda), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, c->epsilon), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NHIT, c->nhit), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, c->nloc), LATMC_OK);
    return sim;
}

/* The starting field, as doubles (converted to the field type by the caller). */
static double start_value(const struct phi4_case *c, int64_t i, uint64_t *rng)
{
    const double u = (double)(test_rng_next(rng) >> 11) * 0x1p-53;
    if (c->field == 2)
        return 0.0;
    if (c->field == 1) {
        switch (i % 11) {
        case 0: return 0.0;
        case 1: return -0.0;
        case 2: return 40.0 * (u - 0.5);              /* far out in the quartic */
        case 3: return 1e-30 * (u - 0.5);             /* tiny */
        case 4: return i % 2 ? 1.0 : -1.0;
        default: break;
        }
    }
    return 4.0 * (u - 0.5);
}

static void run_case(const struct phi4_case *c, int level)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *ref = make(ctx, c, "c", 1);
    latmc_sim *fast = make(ctx, c, level_name[level], c->threads);
    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(ref, &bytes), LATMC_OK);
    const int64_t n = (int64_t)(bytes / (c->precision == LATMC_PRECISION_FLOAT ? 4 : 8));
    unsigned char *a = malloc(bytes), *b = malloc(bytes), *start = malloc(bytes);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(start);
    uint64_t rng = (uint64_t)n * 31u + (uint64_t)c->field;
    for (int64_t i = 0; i < n; i++) {
        const double v = start_value(c, i, &rng);
        if (c->precision == LATMC_PRECISION_FLOAT)
            ((float *)start)[i] = (float)v;
        else
            ((double *)start)[i] = v;
    }
    assert_int_equal(latmc_sim_set_spins(ref, start, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(fast, start, bytes), LATMC_OK);
    /* the layout round trip alone is exact */
    assert_int_equal(latmc_sim_get_spins(fast, b, bytes), LATMC_OK);
    assert_memory_equal(start, b, bytes);
    for (int t = 0; t < c->sweeps; t++) {
        assert_int_equal(latmc_sim_sweep(ref, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(fast, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(ref, a, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(fast, b, bytes), LATMC_OK);
        if (memcmp(a, b, bytes) != 0) {
            for (int64_t i = 0; i < n; i++) {
                const size_t sz = c->precision == LATMC_PRECISION_FLOAT ? 4 : 8;
                if (memcmp(a + i * sz, b + i * sz, sz) != 0) {
                    print_error("%s: sweep %d, first difference at site %lld\n",
                                level_name[level], t, (long long)i);
                    break;
                }
            }
        }
        assert_memory_equal(a, b, bytes);
        uint64_t acc_a, att_a, acc_b, att_b;
        assert_int_equal(latmc_sim_acceptance_counts(ref, &acc_a, &att_a), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(fast, &acc_b, &att_b), LATMC_OK);
        assert_true(acc_a == acc_b && att_a == att_b);
    }
    assert_true(c->field == 2 || memcmp(a, start, bytes) != 0 || c->epsilon < 1e-20);
    const int obs[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_PHI2, LATMC_OBS_M4 };
    for (size_t k = 0; k < sizeof obs / sizeof obs[0]; k++) {
        double va, vb;
        assert_int_equal(latmc_sim_observable(ref, obs[k], &va), LATMC_OK);
        assert_int_equal(latmc_sim_observable(fast, obs[k], &vb), LATMC_OK);
        assert_memory_equal(&va, &vb, sizeof va);
    }
    free(a);
    free(b);
    free(start);
    latmc_sim_destroy(&ref);
    latmc_sim_destroy(&fast);
    latmc_ctx_destroy(&ctx);
}

static void run_all_levels(const struct phi4_case *cases, size_t ncases)
{
    for (int level = 0; level < SIMD_LEVELS; level++) {
        if (!level_runs(level))
            continue;
        for (size_t i = 0; i < ncases; i++)
            run_case(&cases[i], level);
    }
}

#define F LATMC_PRECISION_FLOAT
#define D LATMC_PRECISION_DOUBLE

/* 2D, 8 and 5 colours; L_x / ncolours = 1, 2, 3, 8, 9 (whole rows, straddling, short) */
static void phi4_2d(void **state)
{
    (void)state;
    const struct phi4_case cases[] = {
        { 2, { 8, 8, 1 }, F, 0.5, 0.0, INFINITY, 1.0, 1, 1, 4, 1, 0 },
        { 2, { 64, 16, 1 }, F, -1.0, 2.0, 5.0, 1.5, 8, 1, 3, 1, 1 },
        { 2, { 72, 24, 1 }, D, -1.0, 2.0, 5.0, 1.5, 3, 2, 3, 1, 1 },
        { 2, { 16, 40, 1 }, D, 0.3, 1.0, 0.1, 0.7, 5, 1, 3, 1, 0 },
        { 2, { 10, 15, 1 }, F, 0.3, 1.0, 2.0, 0.7, 4, 1, 3, 1, 1 },  /* 5 colours */
        { 2, { 45, 20, 1 }, D, -0.5, 0.5, INFINITY, 1.0, 2, 3, 3, 1, 0 },
        { 2, { 80, 10, 1 }, F, -0.5, 0.5, 1.0, 1.0, 9, 1, 3, 1, 1 },
    };
    run_all_levels(cases, sizeof cases / sizeof cases[0]);
}

/* 3D: powers of two and not, vector path in whole rows (L_x = 64, 128) and not */
static void phi4_3d(void **state)
{
    (void)state;
    const struct phi4_case cases[] = {
        { 3, { 8, 8, 8 }, F, 0.5, 0.2, INFINITY, 1.0, 2, 1, 3, 1, 1 },
        { 3, { 64, 8, 16 }, F, -1.0, 1.0, 10.0, 1.2, 8, 1, 2, 1, 1 },
        { 3, { 64, 8, 16 }, D, -1.0, 1.0, 10.0, 1.2, 8, 1, 2, 1, 1 },
        { 3, { 128, 8, 8 }, F, 0.1, 5.0, 0.5, 0.8, 3, 2, 2, 1, 0 },
        { 3, { 24, 16, 40 }, D, 1.0, 0.0, INFINITY, 2.0, 4, 1, 2, 1, 1 },
        { 3, { 72, 8, 24 }, F, -2.0, 3.0, 3.0, 1.0, 7, 1, 2, 1, 1 },
        { 3, { 16, 24, 8 }, D, -2.0, 3.0, 0.05, 1.0, 1, 1, 3, 1, 2 },
    };
    run_all_levels(cases, sizeof cases / sizeof cases[0]);
}

/* Edge parameters: extreme g and mu2, proposals tiny and huge, Lambda tiny, nhit past
 * 32768 (phase block 1 of the names), and the threaded SIMD path. */
static void phi4_edges(void **state)
{
    (void)state;
    const struct phi4_case cases[] = {
        { 2, { 64, 8, 1 }, F, 1e3, 1e4, 1e-3, 1e-6, 3, 1, 2, 1, 1 },
        { 2, { 64, 8, 1 }, D, -50.0, 1e-3, INFINITY, 50.0, 3, 1, 2, 1, 1 },
        { 2, { 64, 8, 1 }, F, -50.0, 1e-3, 1e9, 1e3, 3, 1, 2, 1, 1 },
        { 2, { 16, 8, 1 }, F, 0.5, 1.0, INFINITY, 0.5, 32770, 1, 1, 1, 0 },
        { 2, { 16, 8, 1 }, D, 0.5, 1.0, 4.0, 0.5, 32770, 1, 1, 1, 0 },
        { 3, { 64, 64, 64 }, F, -1.0, 1.0, 10.0, 1.0, 1, 1, 1, 2, 0 },
        { 3, { 64, 64, 64 }, D, -1.0, 1.0, INFINITY, 1.0, 2, 1, 1, 2, 0 },
    };
    run_all_levels(cases, sizeof cases / sizeof cases[0]);
}

/*
 * The AVX2 float decision first tries a quick logarithm and falls back to the exact one
 * only where the two could decide differently; that is exact only if the quick one is
 * within its bound of the exact one for every value the draws give: every float in
 * [2^-32, 1] is checked (a superset of the unit values (r + 1) 2^-32 rounded).
 */
static void phi4_quick_log_bound(void **state)
{
    (void)state;
    if (!level_runs(0))
        skip();
#if LATMC_HAVE_AVX2
    const uint32_t first = 0x2f800000u /* 2^-32 */, last = 0x3f800000u /* 1 */;
    assert_int_equal(cpu_phi4_avx2_logq_violations(first, last), 0);
#endif
}

int main(void)
{
    if (!report_levels("phi4 kernels"))
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phi4_2d),
        cmocka_unit_test(phi4_3d),
        cmocka_unit_test(phi4_edges),
        cmocka_unit_test(phi4_quick_log_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
