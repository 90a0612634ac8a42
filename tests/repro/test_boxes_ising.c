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

#include "boxes_check.h"
#include "sim_helpers.h"

static const int observables[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                   LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                   LATMC_OBS_ACCEPTANCE };
#define N_OBS (sizeof observables / sizeof observables[0])

static latmc_sim *make(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                       const void *unused)
{
    (void)unused;
    latmc_sim *sim = box_create(ctx, d, level);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, d->ndim == 2 ? 0.42 : 0.22),
                     LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.05), LATMC_OK);
    return sim;
}

static struct box_result run(const latmc_sim_desc *d, const char *level, int nsweeps)
{
    return box_run(d, level, make, NULL, (uint64_t)nsweeps, observables, N_OBS);
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
            struct box_result one = run(&d, levels[l], 12);
            assert_true(one.accepted > one.attempted / 20 &&
                        one.accepted < one.attempted - one.attempted / 20); /* a moving chain */
            for (size_t k = 0; k < nparts; k++) {
                d.n_parts = parts[k];
                struct box_result boxes = run(&d, levels[l], 12);
                char what[128];
                snprintf(what, sizeof what, "%dD %lldx%lldx%lld, level %s, %d threads, %d parts",
                         ndim, (long long)lx, (long long)ly, (long long)lz, levels[l],
                         threads[t], parts[k]);
                box_assert_same(&one, &boxes, what);
                box_result_free(&boxes);
            }
            box_result_free(&one);
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

/* Saved from 3 boxes, restored, continued as 1 box (after a refused cut), 2 or 5: the
 * continuation is the uncut chain's. */
static void checkpoint_from_boxes(void **state)
{
    (void)state;
    static const int resume[] = { 0, 2, 5 };
    for (size_t l = 0; l < 3; l++) {
        latmc_sim_desc d = ising_desc(3, 10, 6, 22, LATMC_ALGO_METROPOLIS, 1, 99);
        struct box_result straight = run(&d, levels[l], 14);
        d.n_parts = 3;
        for (size_t r = 0; r < 3; r++)
            box_check_restored(&straight, &d, levels[l], make, NULL, 6, 8, 0, resume[r]);
        box_result_free(&straight);
    }
}

static void bad_decompositions(void **state)
{
    (void)state;
    latmc_sim_desc d = ising_desc(2, 8, 10, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = -1;
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = -1");
    d.n_parts = 6; /* 10 planes: at most 5 slabs of 2 planes */
    box_expect_refused(&d, LATMC_EINVAL, "at most 5 parts");
    d.n_parts = 11; /* more parts than planes */
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = 11");
    d.n_parts = 5; /* the thinnest allowed: accepted, n_parts kept */
    box_expect_accepted(&d);
    d = ising_desc(3, 8, 8, 6, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = 4; /* 3D: the cut is along z, 6 planes */
    box_expect_refused(&d, LATMC_EINVAL, "at most 3 parts");

    /* CUDA runs Ising boxes as slabs: on its multi-spin coded kernels where L_x is a
     * multiple of 16, on the byte layout otherwise (tests/cuda/test_cuda_devices.c and
     * test_cuda_devices_potts.c check their chains). Checked where the CUDA module finds
     * a device (the lead's GPU run). */
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    int count = 0;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    if (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count) == LATMC_OK && count > 0) {
        const int64_t lx[] = { 64, 24 };
        for (int i = 0; i < 2; i++) {
            d = ising_desc(2, lx[i], 64, 0, LATMC_ALGO_METROPOLIS, 1, 1);
            d.n_parts = 2;
            d.device = LATMC_DEVICE_CUDA;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_string_equal(latmc_sim_backend_name(sim), "cuda");
            latmc_sim_destroy(&sim);
        }
        d.n_parts = 64; /* slabs of one plane: thinner than the colouring allows */
        box_expect_refused(&d, LATMC_EINVAL, "at most 32 parts");
    } else {
        print_message("no CUDA device: the CUDA backend's slabs are not checked in this "
                      "run\n");
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
