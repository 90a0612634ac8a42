/*
 * phi^4: the per-plane forms of the CPU backend (measure is the in-order combination of
 * measure_planes for any thread count; get_planes / set_planes are get_spins / set_spins
 * restricted to the planes), and cuts the lattice cannot take (LATMC_EINVAL with a
 * message). That k boxes run the one-box chain bit for bit is the identity matrix's
 * (tests/repro/identity).
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

#include "backend.h"
#include "boxes_check.h"
#include "internal.h"
#include "model.h"
#include "phi4.h"
#include "sim_make.h"


/* levels the CPU lacks run the highest it has (LATMC_CPU_MASK only lowers) */
static const char *const levels[] = { "c", "avx2", "avx512" };
#define N_LEVELS (sizeof levels / sizeof levels[0])

struct lattice {
    int ndim;
    int64_t lx, ly, lz;
    int nhit, nloc; /* nloc: the first sweeps' value; later sweeps run nloc + 1 */
};

#define SEED 20261122

/* ---- the per-plane forms of the CPU backend (lib/backend.h) ---- */

/* A sim after a few sweeps: its measure against its planes' sums added in order, from
 * zeros (model.h), and a sub-range of planes against the same planes of the whole. */
static void check_measure_planes(const struct lattice *l, int precision, const char *level,
                                 int n_threads)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const latmc_sim_desc d =
        phi4_test_desc(l->ndim, l->lx, l->ly, l->lz, precision, n_threads, SEED);
    const struct test_params chain = phi4_test_params(2.5, l->nhit, l->nloc);
    latmc_sim *sim = test_sim_ready(box_create(ctx, &d, level), &chain, LATMC_INIT_HOT);
    assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
    const struct latmc_backend_ops *ops = sim->ops;
    assert_true(ops->size >= offsetof(struct latmc_backend_ops, set_planes) + sizeof ops->set_planes);
    const int64_t np = l->ndim == 3 ? l->lz : l->ly;
    struct latmc_phi4_sums whole, total = { 0, 0, 0, 0, 0 };
    struct latmc_phi4_sums *planes = malloc((size_t)np * sizeof *planes);
    assert_non_null(planes);
    assert_int_equal(ops->measure(sim, &whole), LATMC_OK);
    assert_int_equal(ops->measure_planes(sim, 0, np, planes), LATMC_OK);
    for (int64_t p = 0; p < np; p++)
        sim->model->add_sums(&total, &planes[p]);
    assert_memory_equal(&whole, &total, sizeof whole);
    /* a middle run of planes: the same sums as in the whole */
    const int64_t p0 = np / 3, p1 = np - np / 4;
    struct latmc_phi4_sums *part = malloc((size_t)(p1 - p0) * sizeof *part);
    assert_non_null(part);
    assert_int_equal(ops->measure_planes(sim, p0, p1, part), LATMC_OK);
    assert_memory_equal(part, planes + p0, (size_t)(p1 - p0) * sizeof *part);
    /* the observable is the model's reading of these sums */
    double e_sums = 0, e_obs = 0;
    assert_int_equal(sim->model->observable(sim, &total, LATMC_OBS_ENERGY, &e_sums), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e_obs), LATMC_OK);
    assert_memory_equal(&e_sums, &e_obs, sizeof e_obs);
    free(part);
    free(planes);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void measure_is_planes_in_order(void **state)
{
    (void)state;
    const struct lattice small3 = { 3, 8, 16, 16, 1, 1 }, small2 = { 2, 15, 20, 0, 1, 1 };
    const struct lattice big3 = { 3, 64, 64, 64, 1, 1 }; /* the threaded reduction */
    const struct lattice *ls[] = { &small3, &small2, &big3 };
    for (size_t i = 0; i < 3; i++)
        for (size_t v = 0; v < N_LEVELS; v++)
            for (int precision = 0; precision < 2; precision++)
                for (int t = 1; t <= 2; t++)
                    check_measure_planes(ls[i], precision, levels[v], t);
}

/* get_planes is get_spins restricted to the planes; set_planes changes only them. */
static void planes_round_trip(void **state)
{
    (void)state;
    const struct lattice l3 = { 3, 16, 8, 16, 1, 1 }, l2 = { 2, 10, 15, 0, 1, 1 };
    const struct lattice *ls[] = { &l3, &l2 };
    for (size_t i = 0; i < 2; i++)
        for (size_t v = 0; v < N_LEVELS; v++)
            for (int precision = 0; precision < 2; precision++) {
                const struct lattice *l = ls[i];
                latmc_ctx *ctx = NULL;
                assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
                const latmc_sim_desc d =
                    phi4_test_desc(l->ndim, l->lx, l->ly, l->lz, precision, 1, SEED);
                const struct test_params chain = phi4_test_params(2.5, l->nhit, l->nloc);
                latmc_sim *sim =
                    test_sim_ready(box_create(ctx, &d, levels[v]), &chain, LATMC_INIT_HOT);
                assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
                size_t bytes = 0;
                assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
                const int64_t np = l->ndim == 3 ? l->lz : l->ly;
                const size_t plane_bytes = bytes / (size_t)np;
                unsigned char *all = malloc(bytes), *after = malloc(bytes), *slab = malloc(bytes);
                assert_true(all && after && slab);
                assert_int_equal(latmc_sim_get_spins(sim, all, bytes), LATMC_OK);
                const int64_t p0 = 2, p1 = np - 3;
                assert_int_equal(sim->ops->get_planes(sim, p0, p1, slab), LATMC_OK);
                assert_memory_equal(slab, all + p0 * plane_bytes, (p1 - p0) * plane_bytes);
                /* new values in the slab: other valid fields (the values halved) */
                for (int64_t s = 0; s < (p1 - p0) * (int64_t)plane_bytes / (precision ? 8 : 4); s++) {
                    if (precision)
                        ((double *)slab)[s] *= 0.5;
                    else
                        ((float *)slab)[s] *= 0.5f;
                }
                assert_int_equal(sim->ops->set_planes(sim, p0, p1, slab), LATMC_OK);
                assert_int_equal(latmc_sim_get_spins(sim, after, bytes), LATMC_OK);
                assert_memory_equal(after, all, p0 * plane_bytes);
                assert_memory_equal(after + p0 * plane_bytes, slab, (p1 - p0) * plane_bytes);
                assert_memory_equal(after + p1 * plane_bytes, all + p1 * plane_bytes,
                                    (np - p1) * plane_bytes);
                assert_memory_not_equal(after, all, bytes);
                free(all);
                free(after);
                free(slab);
                latmc_sim_destroy(&sim);
                latmc_ctx_destroy(&ctx);
            }
}

/* ---- decompositions the lattice cannot take ---- */

static void bad_decompositions(void **state)
{
    (void)state;
    /* 3D: 4-plane units along z; 16 planes take at most 4 parts */
    const struct lattice l3 = { 3, 8, 8, 16, 1, 1 };
    latmc_sim_desc d =
        phi4_test_desc(l3.ndim, l3.lx, l3.ly, l3.lz, LATMC_PRECISION_DOUBLE, 1, SEED);
    d.n_parts = 4;
    box_expect_accepted(&d);
    d.n_parts = 5;
    box_expect_refused(&d, LATMC_EINVAL, "at most 4 parts");
    d.n_parts = 17; /* more parts than planes */
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = 17");
    d.n_parts = -2;
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = -2");
    /* 2D, 8 colours: 8-row units; 24 rows take 3 */
    const struct lattice l8 = { 2, 8, 24, 0, 1, 1 };
    d = phi4_test_desc(l8.ndim, l8.lx, l8.ly, l8.lz, LATMC_PRECISION_FLOAT, 1, SEED);
    d.n_parts = 3;
    box_expect_accepted(&d);
    d.n_parts = 4;
    box_expect_refused(&d, LATMC_EINVAL, "8-plane units");
    /* 2D, 5 colours: 5-row units; 20 rows take 4 */
    const struct lattice l5 = { 2, 10, 20, 0, 1, 1 };
    d = phi4_test_desc(l5.ndim, l5.lx, l5.ly, l5.lz, LATMC_PRECISION_DOUBLE, 1, SEED);
    d.n_parts = 4;
    box_expect_accepted(&d);
    d.n_parts = 5;
    box_expect_refused(&d, LATMC_EINVAL, "5-plane units");
    /* 2D with 40 rows, 8 colours (x divisible by 8): units of 8, not 5 */
    const struct lattice l40 = { 2, 16, 40, 0, 1, 1 };
    d = phi4_test_desc(l40.ndim, l40.lx, l40.ly, l40.lz, LATMC_PRECISION_DOUBLE, 1, SEED);
    d.n_parts = 5;
    box_expect_accepted(&d);
    d.n_parts = 6;
    box_expect_refused(&d, LATMC_EINVAL, "at most 5 parts");

    /* The CUDA backend runs phi^4 as several slabs too (tests/cuda/test_cuda_devices_phi4.c:
     * the same chain as one GPU): an explicit request and AUTO both take CUDA. Checked
     * where the CUDA module finds a device (the lead's GPU run). */
    latmc_ctx *ctx = NULL;
    int count = 0;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    if (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count) == LATMC_OK && count > 0) {
        const int devices[2] = { LATMC_DEVICE_CUDA, LATMC_DEVICE_AUTO };
        for (int k = 0; k < 2; k++) {
            d = phi4_test_desc(l40.ndim, l40.lx, l40.ly, l40.lz, LATMC_PRECISION_DOUBLE, 1, SEED);
            d.n_parts = 2;
            d.device = devices[k];
            latmc_sim *sim = NULL;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_string_equal(latmc_sim_backend_name(sim), "cuda");
            latmc_sim_destroy(&sim);
        }
    } else {
        print_message("no CUDA device: phi^4 with n_parts > 1 on the CUDA backend is not "
                      "checked in this run\n");
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measure_is_planes_in_order),
        cmocka_unit_test(planes_round_trip),
        cmocka_unit_test(bad_decompositions),
    };
    return cmocka_run_group_tests_name("cuts_phi4", tests, NULL, NULL);
}
