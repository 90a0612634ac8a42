/*
 * Heisenberg: every SIMD level this machine has against the C reference, bit for bit. For
 * each case two sims are made, one with LATMC_CPU_MASK=c and one at the level, with the
 * same desc, couplings, random unit spins and parameters, swept, and compared after every
 * sweep: spins of both replicas (get_spins undoes the SIMD layout), acceptance counts and
 * observables. Cases: 2D and 3D, extents 2 to 64 including non-powers of two (rows whose
 * sites fill whole vectors and rows that do not), heat bath with 0 to 3 overrelaxation
 * passes and overrelaxation alone, Gaussian, +-J and uniform couplings and couplings
 * with zeros (zero local fields: the heat bath's uniform branch, the reflection's no-op),
 * beta = 0, 1e-9 (first-order branch), small fields (log1p branch), 1, 50 and 1e6 (exp
 * underflow), h = 0, +-0.3 and 1e3, one and two replicas, and the threaded path.
 * Levels the machine lacks are skipped and named; with none at all the test exits 77.
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
#include "simd_levels.h"
#include "sim_helpers.h"

struct heis_case {
    int ndim;
    int64_t L[3];
    int replicas, couplings, algorithm, nover;
    double beta, h;
    int sweeps, threads;
    int zero_couplings;   /* every third coupling set to 0 */
};

static latmc_sim *make(latmc_ctx *ctx, const struct heis_case *c, const char *mask, int threads)
{
    setenv("LATMC_CPU_MASK", mask, 1);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = c->ndim;
    for (int mu = 0; mu < c->ndim; mu++)
        d.extent[mu] = c->L[mu];
    d.replicas = c->replicas;
    d.couplings = c->couplings;
    d.coupling_seed = 99u + (uint64_t)c->L[0];
    d.algorithm = c->algorithm;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.seed = UINT64_C(0xabcdef0123) + (uint64_t)c->L[1];
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, c->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, c->h), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, c->nover), LATMC_OK);
    return sim;
}

static void run_case(const struct heis_case *c, int level)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *ref = make(ctx, c, "c", 1);
    latmc_sim *fast = make(ctx, c, level_name[level], c->threads);
    size_t nc = 0, bytes = 0;
    assert_int_equal(latmc_sim_couplings_size(ref, &nc), LATMC_OK);
    float *J = malloc(nc * sizeof *J), *J2 = malloc(nc * sizeof *J2);
    assert_non_null(J);
    assert_non_null(J2);
    assert_int_equal(latmc_sim_get_couplings(ref, J, nc), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(fast, J2, nc), LATMC_OK);
    assert_memory_equal(J, J2, nc * sizeof *J);
    if (c->zero_couplings) {
        for (size_t k = 0; k < nc; k += 3)
            J[k] = 0.0f;
        for (size_t k = 1; k < nc; k += 7)
            J[k] = -0.0f;
        assert_int_equal(latmc_sim_set_couplings(ref, J, nc), LATMC_OK);
        assert_int_equal(latmc_sim_set_couplings(fast, J, nc), LATMC_OK);
    }
    assert_int_equal(latmc_sim_spins_size(ref, &bytes), LATMC_OK);
    float *a = malloc(bytes), *b = malloc(bytes), *start = malloc(bytes);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(start);
    uint64_t rng = bytes * 7u + (uint64_t)c->algorithm;
    for (size_t i = 0; i < bytes / 12; i++) {
        double v[3], r2;
        do {
            for (int k = 0; k < 3; k++)
                v[k] = 2.0 * ((double)(test_rng_next(&rng) >> 11) * 0x1p-53) - 1.0;
            r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        } while (r2 > 1.0 || r2 < 1e-4);
        for (int k = 0; k < 3; k++)
            start[3 * i + k] = (float)(v[k] / sqrt(r2));
        if (i % 13 == 5) { /* axis-aligned spins: zeros and ties in the frame choice */
            start[3 * i] = 0.0f;
            start[3 * i + 1] = i % 2 ? -1.0f : 1.0f;
            start[3 * i + 2] = -0.0f;
        }
    }
    assert_int_equal(latmc_sim_set_spins(ref, start, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(fast, start, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(fast, b, bytes), LATMC_OK);
    assert_memory_equal(start, b, bytes);  /* the layout round trip alone is exact */
    for (int t = 0; t < c->sweeps; t++) {
        assert_int_equal(latmc_sim_sweep(ref, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(fast, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(ref, a, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(fast, b, bytes), LATMC_OK);
        if (memcmp(a, b, bytes) != 0) {
            for (size_t i = 0; i < bytes / 4; i++)
                if (memcmp(&a[i], &b[i], 4) != 0) {
                    print_error("%s: sweep %d, first difference at spin %zu component %zu: "
                                "%a vs %a\n", level_name[level], t, i / 3, i % 3, a[i], b[i]);
                    break;
                }
        }
        assert_memory_equal(a, b, bytes);
        uint64_t acc_a, att_a, acc_b, att_b;
        assert_int_equal(latmc_sim_acceptance_counts(ref, &acc_a, &att_a), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(fast, &acc_b, &att_b), LATMC_OK);
        assert_true(acc_a == acc_b && att_a == att_b);
    }
    assert_true(memcmp(a, start, bytes) != 0);
    const int obs[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2 };
    for (size_t k = 0; k < sizeof obs / sizeof obs[0]; k++) {
        double va, vb;
        assert_int_equal(latmc_sim_observable(ref, obs[k], &va), LATMC_OK);
        assert_int_equal(latmc_sim_observable(fast, obs[k], &vb), LATMC_OK);
        assert_memory_equal(&va, &vb, sizeof va);
    }
    if (c->replicas == 2) {
        double va, vb;
        assert_int_equal(latmc_sim_observable(ref, LATMC_OBS_OVERLAP2, &va), LATMC_OK);
        assert_int_equal(latmc_sim_observable(fast, LATMC_OBS_OVERLAP2, &vb), LATMC_OK);
        assert_memory_equal(&va, &vb, sizeof va);
    }
    free(J);
    free(J2);
    free(a);
    free(b);
    free(start);
    latmc_sim_destroy(&ref);
    latmc_sim_destroy(&fast);
    latmc_ctx_destroy(&ctx);
}

static void run_all_levels(const struct heis_case *cases, size_t ncases)
{
    for (int level = 0; level < SIMD_LEVELS; level++) {
        if (!level_runs(level))
            continue;
        for (size_t i = 0; i < ncases; i++)
            run_case(&cases[i], level);
    }
}

#define HB LATMC_ALGO_HEATBATH
#define OR LATMC_ALGO_OVERRELAX
#define GA LATMC_COUPLINGS_GAUSSIAN
#define PM LATMC_COUPLINGS_BIMODAL
#define UN LATMC_COUPLINGS_UNIFORM

/* Extents: L_x / 2 = 1, 2, 3, 4, 5, 12, 16, 32 (whole vectors, straddling, short rows) */
static void heisenberg_extents(void **state)
{
    (void)state;
    const struct heis_case cases[] = {
        { 2, { 2, 4, 1 }, 1, GA, HB, 1, 1.0, 0.0, 3, 1, 0 },
        { 2, { 4, 6, 1 }, 2, PM, HB, 2, 0.7, 0.3, 3, 1, 0 },
        { 2, { 6, 10, 1 }, 1, GA, OR, 2, 1.0, -0.3, 3, 1, 0 },
        { 2, { 64, 8, 1 }, 2, GA, HB, 1, 1.3, 0.0, 3, 1, 0 },
        { 3, { 2, 2, 2 }, 1, UN, HB, 1, 0.9, 0.1, 3, 1, 0 },
        { 3, { 8, 4, 6 }, 2, GA, HB, 3, 2.0, 0.0, 3, 1, 0 },
        { 3, { 10, 6, 4 }, 1, PM, OR, 3, 1.0, 0.0, 3, 1, 0 },
        { 3, { 24, 8, 6 }, 2, GA, HB, 2, 1.1, 0.3, 3, 1, 0 },
        { 3, { 32, 6, 10 }, 1, GA, OR, 1, 1.0, 0.0, 3, 1, 0 },
        { 3, { 64, 4, 4 }, 2, PM, HB, 1, 0.5, -0.3, 3, 1, 0 },
    };
    run_all_levels(cases, sizeof cases / sizeof cases[0]);
}

/* Every branch of the heat bath and the reflection: beta = 0, 1e-9, small fields, large
 * beta (e^{-2a} underflows), large h, zero couplings. */
static void heisenberg_branches(void **state)
{
    (void)state;
    const struct heis_case cases[] = {
        { 3, { 16, 8, 8 }, 1, GA, HB, 0, 0.0, 0.0, 2, 1, 0 },
        { 3, { 16, 8, 8 }, 1, GA, HB, 0, 1e-9, 0.0, 2, 1, 0 },
        { 3, { 16, 8, 8 }, 1, GA, HB, 1, 0.05, 0.0, 2, 1, 0 },
        { 3, { 16, 8, 8 }, 1, GA, HB, 1, 0.12, 0.3, 2, 1, 1 },
        { 3, { 16, 8, 8 }, 2, GA, HB, 1, 50.0, 0.0, 2, 1, 0 },
        { 3, { 16, 8, 8 }, 1, PM, HB, 1, 1e6, 0.0, 2, 1, 1 },
        { 2, { 32, 16, 1 }, 1, UN, HB, 2, 1.0, 1e3, 2, 1, 0 },
        { 2, { 32, 16, 1 }, 2, GA, OR, 2, 1.0, 0.0, 2, 1, 1 },
        { 3, { 12, 12, 12 }, 1, GA, HB, 1, 0.3, 0.0, 2, 1, 1 },
    };
    run_all_levels(cases, sizeof cases / sizeof cases[0]);
}

/* The threaded path (parallel regions open from 32768 sites per colour). */
static void heisenberg_threads(void **state)
{
    (void)state;
    const struct heis_case cases[] = {
        { 3, { 64, 64, 32 }, 1, GA, HB, 1, 1.0, 0.0, 1, 2, 0 },
        { 3, { 64, 32, 64 }, 2, GA, OR, 2, 1.0, 0.0, 1, 2, 0 },
    };
    run_all_levels(cases, sizeof cases / sizeof cases[0]);
}

int main(void)
{
    if (!report_levels("heisenberg kernels"))
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heisenberg_extents),
        cmocka_unit_test(heisenberg_branches),
        cmocka_unit_test(heisenberg_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
