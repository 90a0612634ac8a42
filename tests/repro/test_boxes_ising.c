/*
 * A sim run as k boxes (desc.n_parts, slabs along the last axis: lib/plan.c) is the same
 * chain as one box, bit for bit: configuration, every observable, the acceptance counts,
 * for k = 2, 3, 5 (uneven slabs, the thinnest the checkerboard allows: 2 planes), 2D and
 * 3D, Metropolis and heat bath, uniform and +-J couplings, 1 and 2 threads, and every CPU
 * level (LATMC_CPU_MASK c, avx2, avx512; a level the CPU lacks runs the highest it has).
 * A checkpoint taken from k boxes continues on 1 box bit for bit. Decompositions the
 * lattice cannot take are LATMC_EINVAL, other models LATMC_EUNSUPPORTED.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_helpers.h"

static const int observables[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                   LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                   LATMC_OBS_ACCEPTANCE };
#define N_OBS (sizeof observables / sizeof observables[0])

struct result {
    int8_t *spins;
    size_t n;
    double obs[N_OBS];
    uint64_t accepted, attempted;
};

static latmc_sim *make(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level)
{
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, d, &sim);
    unsetenv("LATMC_CPU_MASK");
    if (st != LATMC_OK)
        print_message("create: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, d->ndim == 2 ? 0.42 : 0.22),
                     LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.05), LATMC_OK);
    return sim;
}

static struct result take(latmc_sim *sim)
{
    struct result r;
    assert_int_equal(latmc_sim_spins_size(sim, &r.n), LATMC_OK);
    r.spins = malloc(r.n);
    assert_non_null(r.spins);
    assert_int_equal(latmc_sim_get_spins(sim, r.spins, r.n), LATMC_OK);
    for (size_t i = 0; i < N_OBS; i++)
        assert_int_equal(latmc_sim_observable(sim, observables[i], &r.obs[i]), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(sim, &r.accepted, &r.attempted), LATMC_OK);
    return r;
}

static struct result run(const latmc_sim_desc *d, const char *level, int nsweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, d, level);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, (uint64_t)nsweeps), LATMC_OK);
    struct result r = take(sim);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return r;
}

static void assert_same(const struct result *a, const struct result *b)
{
    assert_int_equal(a->n, b->n);
    assert_memory_equal(a->spins, b->spins, a->n);
    for (size_t i = 0; i < N_OBS; i++)
        assert_memory_equal(&a->obs[i], &b->obs[i], sizeof(double));
    assert_int_equal(a->accepted, b->accepted);
    assert_int_equal(a->attempted, b->attempted);
}

static const char *const levels[] = { "c", "avx2", "avx512" };

/*
 * Each box count against one box, at every level and thread count. The last axis has L
 * planes: k = 5 cuts 2D L = 22 into 11 two-plane units as 2,2,2,2,3 units (4,4,4,4,6
 * planes), k = 3 as 3,4,4 units; L = 10 with k = 5 gives slabs of 2 planes each.
 */
static void same_chain_parts(int ndim, int64_t lx, int64_t ly, int64_t lz, int algorithm,
                             int couplings, const int *parts, size_t nparts)
{
    const int threads[] = { 1, 2 };
    for (size_t l = 0; l < 3; l++) {
        for (size_t t = 0; t < 2; t++) {
            latmc_sim_desc d = ising_desc(ndim, lx, ly, lz, algorithm, threads[t], 20261122);
            d.couplings = couplings;
            d.coupling_seed = 77;
            struct result one = run(&d, levels[l], 12);
            assert_true(one.accepted > one.attempted / 20 &&
                        one.accepted < one.attempted - one.attempted / 20); /* a moving chain */
            for (size_t k = 0; k < nparts; k++) {
                d.n_parts = parts[k];
                struct result boxes = run(&d, levels[l], 12);
                assert_same(&one, &boxes);
                free(boxes.spins);
            }
            free(one.spins);
        }
    }
}

static void same_chain(int ndim, int64_t lx, int64_t ly, int64_t lz, int algorithm,
                       int couplings)
{
    const int parts[] = { 2, 3, 5 };
    same_chain_parts(ndim, lx, ly, lz, algorithm, couplings, parts, 3);
}

/*
 * The threaded paths' corners: 3000 x 22 on 2 threads cuts the 22 rows into bands of 11,
 * so that with 5 boxes (rows [0,4), [4,8), [8,12), ...) the second band starts on the last
 * row of a box (a one-row piece that is its box's last row, left to the border part);
 * 120 x 40 x 14 with 3 boxes (planes [0,4), [4,8), [8,14)) likewise in 3D; 12000 x 6 has too few rows for the wavefront (< 4 per
 * thread) and runs the two-pass order on rows.
 */
static void thread_bands(void **state)
{
    (void)state;
    same_chain(2, 3000, 22, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM);
    same_chain(3, 120, 40, 14, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM);
    const int few[] = { 2, 3 };
    same_chain_parts(2, 12000, 6, 0, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, few, 2);
    same_chain_parts(3, 160, 100, 6, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, few, 2);
}

static void metropolis_2d(void **state)
{
    (void)state;
    same_chain(2, 40, 22, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM);
    same_chain(2, 138, 10, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM);
    /* large enough for the threaded paths (>= 32768 sites per colour) */
    same_chain(2, 300, 250, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM);
}

static void heatbath_2d(void **state)
{
    (void)state;
    same_chain(2, 40, 22, 0, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM);
    same_chain(2, 300, 250, 0, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM);
}

static void metropolis_3d(void **state)
{
    (void)state;
    same_chain(3, 10, 6, 22, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM);
    same_chain(3, 66, 40, 30, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM);
}

static void heatbath_3d(void **state)
{
    (void)state;
    same_chain(3, 14, 6, 10, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM);
    same_chain(3, 66, 40, 30, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM);
}

static void plus_minus_j(void **state)
{
    (void)state;
    same_chain(2, 40, 22, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL);
    same_chain(2, 300, 250, 0, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL);
    same_chain(3, 10, 6, 22, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL);
    same_chain(3, 66, 40, 30, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL);
}

/* Saved from 3 boxes, restored as 1 box: the continuation is the uncut chain's. */
static void checkpoint_from_boxes(void **state)
{
    (void)state;
    for (size_t l = 0; l < 3; l++) {
        latmc_sim_desc d = ising_desc(3, 10, 6, 22, LATMC_ALGO_METROPOLIS, 1, 99);
        struct result straight = run(&d, levels[l], 14);
        d.n_parts = 3;
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        latmc_sim *sim = make(ctx, &d, levels[l]);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 6), LATMC_OK);
        size_t size = 0;
        assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &size), LATMC_OK);
        void *buf = malloc(size);
        assert_non_null(buf);
        assert_int_equal(latmc_sim_serialize(sim, buf, size, &size), LATMC_OK);
        latmc_sim_destroy(&sim);
        setenv("LATMC_CPU_MASK", levels[l], 1);
        assert_int_equal(latmc_sim_deserialize(ctx, buf, size, &sim), LATMC_OK);
        unsetenv("LATMC_CPU_MASK");
        free(buf);
        latmc_sim_desc got;
        got.struct_size = sizeof got;
        assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
        assert_int_equal(got.n_parts, 0); /* not stored: the restored sim is one box */
        assert_int_equal(latmc_sim_sweep(sim, 8), LATMC_OK);
        struct result resumed = take(sim);
        assert_same(&straight, &resumed);
        free(resumed.spins);
        free(straight.spins);
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&ctx);
    }
}

static void expect_refused(const latmc_sim_desc *d, int code, const char *needle)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    if (st != code)
        print_message("expected %d, got %d: %s\n", code, st, latmc_last_error());
    assert_int_equal(st, code);
    assert_null(sim);
    if (!strstr(latmc_last_error(), needle)) {
        print_message("message \"%s\" lacks \"%s\"\n", latmc_last_error(), needle);
        fail();
    }
    latmc_ctx_destroy(&ctx);
}

static void bad_decompositions(void **state)
{
    (void)state;
    latmc_sim_desc d = ising_desc(2, 8, 10, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = -1;
    expect_refused(&d, LATMC_EINVAL, "n_parts = -1");
    d.n_parts = 6; /* 10 planes: at most 5 slabs of 2 planes */
    expect_refused(&d, LATMC_EINVAL, "at most 5 parts");
    d.n_parts = 11; /* more parts than planes */
    expect_refused(&d, LATMC_EINVAL, "n_parts = 11");
    d.n_parts = 5; /* the thinnest allowed: accepted */
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    latmc_sim_desc got;
    got.struct_size = sizeof got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_parts, 5);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    d = ising_desc(3, 8, 8, 6, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = 4; /* 3D: the cut is along z, 6 planes */
    expect_refused(&d, LATMC_EINVAL, "at most 3 parts");

    /* CUDA runs Ising boxes as slabs on its multi-spin coded kernels (L_x a multiple of
     * 16; tests/cuda/test_cuda_devices.c checks their chain): other shapes are refused
     * when CUDA is asked for, and AUTO takes the CPU. Checked where the CUDA module finds
     * a device (the lead's GPU run). */
    int count = 0;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    if (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count) == LATMC_OK && count > 0) {
        d = ising_desc(2, 64, 64, 0, LATMC_ALGO_METROPOLIS, 1, 1);
        d.n_parts = 2;
        d.device = LATMC_DEVICE_CUDA;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cuda");
        latmc_sim_destroy(&sim);
        d.extent[0] = 24;
        expect_refused(&d, LATMC_EUNSUPPORTED, "multiple of 16");
        d.device = LATMC_DEVICE_AUTO;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cpu");
        latmc_sim_destroy(&sim);
    } else {
        print_message("no CUDA device: the CUDA backend's refusal of n_parts > 1 is not "
                      "checked in this run\n");
    }
    latmc_ctx_destroy(&ctx);

    /* Potts, phi^4 and Heisenberg run as boxes too: tests/repro/test_boxes_{potts,phi4,heisenberg}.c */
}

/* A caller built against the 0.1 header (struct_size without n_parts) still creates sims,
 * with n_parts 0, and latmc_sim_get_desc writes no byte past its shorter struct. */
static void old_desc_size(void **state)
{
    (void)state;
    const size_t v1 = offsetof(latmc_sim_desc, n_parts);
    latmc_sim_desc d = ising_desc(2, 8, 10, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.struct_size = (uint32_t)v1;
    d.n_parts = 7; /* past the caller's struct: never read */
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    latmc_sim_desc got;
    memset(&got, 0xA5, sizeof got);
    got.struct_size = (uint32_t)v1;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.struct_size, v1);
    assert_int_equal(got.extent[1], 10);
    const unsigned char *tail = (const unsigned char *)&got + v1;
    for (size_t i = 0; i < sizeof got - v1; i++)
        assert_int_equal(tail[i], 0xA5);
    got.struct_size = sizeof got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_parts, 0);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metropolis_2d),         cmocka_unit_test(heatbath_2d),
        cmocka_unit_test(metropolis_3d),         cmocka_unit_test(heatbath_3d),
        cmocka_unit_test(plus_minus_j),          cmocka_unit_test(thread_bands),
        cmocka_unit_test(checkpoint_from_boxes),
        cmocka_unit_test(bad_decompositions),    cmocka_unit_test(old_desc_size),
    };
    return cmocka_run_group_tests_name("boxes_ising", tests, NULL, NULL);
}
