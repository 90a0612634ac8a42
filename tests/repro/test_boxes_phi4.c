/*
 * phi^4 run as k boxes (desc.n_parts, slabs along the last axis: lib/plan.c) is the same
 * chain as one box, bit for bit: the field's bytes, every observable, the acceptance
 * counts, for k = 2, 3, 5 (uneven slabs, the thinnest the colouring allows: 4 planes in
 * 3D, 8 in 2D with 8 colours, 5 with 5 colours), 2D (8 and 5 colours) and 3D, float and
 * double, finite and infinite Lambda, 1 and 2 threads, the C and AVX2 levels
 * (LATMC_CPU_MASK; a level the CPU lacks runs the highest it has), and nloc changed
 * between sweeps (the plan asks the model for the schedule at every sweep call). A
 * checkpoint taken from k boxes continues on 1 box bit for bit. The per-plane forms of
 * the CPU backend: measure is the in-order combination of measure_planes for any thread
 * count, and get_planes / set_planes are get_spins / set_spins restricted to the planes.
 * Decompositions the lattice cannot take are LATMC_EINVAL with a message.
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

static const int observables[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                   LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                   LATMC_OBS_PHI2, LATMC_OBS_ACCEPTANCE };
#define N_OBS (sizeof observables / sizeof observables[0])

static const char *const levels[] = { "c", "avx2" };

struct lattice {
    int ndim;
    int64_t lx, ly, lz;
    int nhit, nloc; /* nloc: the first sweeps' value; later sweeps run nloc + 1 */
};

static latmc_sim_desc phi4_desc(const struct lattice *l, int precision, int n_threads,
                                int n_parts)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = l->ndim;
    d.extent[0] = l->lx;
    d.extent[1] = l->ly;
    d.extent[2] = l->ndim == 3 ? l->lz : 0;
    d.precision = precision;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = n_threads;
    d.n_parts = n_parts;
    d.seed = 20261122;
    return d;
}

static latmc_sim *make(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                       const struct lattice *l, double lambda)
{
    latmc_sim *sim = box_create(ctx, d, level);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.4), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.8), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, lambda), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, 0.9), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NHIT, l->nhit), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, l->nloc), LATMC_OK);
    return sim;
}

/* make's form for box_check_restored: the lattice, Lambda 2.5 */
static latmc_sim *make_box(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                           const void *lattice)
{
    return make(ctx, d, level, lattice, 2.5);
}

/* Hot start, 2 sweeps with nloc, 1 with nloc + 1 (a changed schedule). */
static struct box_result run(const struct lattice *l, int precision, double lambda,
                             const char *level, int n_threads, int n_parts)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const latmc_sim_desc d = phi4_desc(l, precision, n_threads, n_parts);
    latmc_sim *sim = make(ctx, &d, level, l, lambda);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, l->nloc + 1), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    struct box_result r = box_take(sim, observables, N_OBS, 0);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return r;
}

/* Each box count against one box on one thread: every level, precision, Lambda, and 1 and
 * 2 threads for the boxes. */
static void same_chain(const struct lattice *l, const int *parts, size_t nparts)
{
    const double lambdas[] = { 2.5, INFINITY };
    for (size_t v = 0; v < 2; v++)
        for (int precision = 0; precision < 2; precision++)
            for (size_t li = 0; li < 2; li++) {
                struct box_result one = run(l, precision, lambdas[li], levels[v], 1, 1);
                assert_true(one.accepted > one.attempted / 10 &&
                            one.accepted < one.attempted - one.attempted / 10); /* moving */
                for (int t = 1; t <= 2; t++)
                    for (size_t k = 0; k < nparts; k++) {
                        if (t == 1 && parts[k] == 1)
                            continue;
                        char what[128];
                        snprintf(what, sizeof what, "%dD %s %s lambda %g, %d threads, %d boxes",
                                 l->ndim, levels[v], precision ? "double" : "float",
                                 lambdas[li], t, parts[k]);
                        struct box_result boxes = run(l, precision, lambdas[li], levels[v], t,
                                                  parts[k]);
                        box_assert_same(&one, &boxes, what);
                        box_result_free(&boxes);
                    }
                box_result_free(&one);
            }
}

static const int parts_235[] = { 1, 2, 3, 5 };

/* 3D, the cut along z in units of 4 planes: 24 planes are 6 units, k = 5: 4 + 4 + 4 + 4 + 8
 * planes; 40 planes are 10 units, k = 3: 12 + 12 + 16. L_x = 8: one number per row and
 * colour, L_x = 24: 3, so that boxes start inside Philox blocks and SIMD groups. */
static void boxes_3d(void **state)
{
    (void)state;
    const struct lattice a = { 3, 8, 16, 24, 2, 2 };
    same_chain(&a, parts_235, 4);
    const struct lattice b = { 3, 24, 8, 40, 1, 1 };
    same_chain(&b, parts_235, 4);
}

/* 2D with 8 colours: 56 rows in 8-row units (7 units, as in 3D); with 5 colours: 35 rows
 * in 5-row units, 15 columns (3 numbers per row and colour). */
static void boxes_2d(void **state)
{
    (void)state;
    const struct lattice a = { 2, 16, 56, 0, 2, 2 };
    same_chain(&a, parts_235, 4);
    const struct lattice b = { 2, 15, 35, 0, 2, 1 };
    same_chain(&b, parts_235, 4);
}

/* Large enough for the threaded paths (>= 32768 sites per colour and step): 64^3 and
 * 520 x 520 (5 colours), boxes on 2 threads against one box on 1. */
static void boxes_threaded(void **state)
{
    (void)state;
    const struct lattice l3 = { 3, 64, 64, 64, 1, 1 };
    const struct lattice l2 = { 2, 520, 520, 0, 1, 1 };
    const struct lattice *ls[] = { &l3, &l2 };
    for (size_t i = 0; i < 2; i++)
        for (size_t v = 0; v < 2; v++)
            for (int precision = 0; precision < 2; precision++) {
                struct box_result one = run(ls[i], precision, 2.5, levels[v], 1, 1);
                const int parts[] = { 3, 5 };
                for (size_t k = 0; k < 2; k++) {
                    struct box_result boxes = run(ls[i], precision, 2.5, levels[v], 2, parts[k]);
                    box_assert_same(&one, &boxes, "threaded");
                    box_result_free(&boxes);
                }
                box_result_free(&one);
            }
}

/* Saved from 3 boxes, restored, continued as 1 box (after a refused cut), 2 or 5: the
 * continuation is the uncut chain's. */
static void checkpoint_from_boxes(void **state)
{
    (void)state;
    static const int resume[] = { 0, 2, 5 };
    const struct lattice l = { 3, 8, 16, 24, 2, 2 };
    for (size_t v = 0; v < 2; v++)
        for (int precision = 0; precision < 2; precision++) {
            latmc_ctx *ctx = NULL;
            assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
            latmc_sim_desc d = phi4_desc(&l, precision, 1, 1);
            latmc_sim *sim = make(ctx, &d, levels[v], &l, 2.5);
            assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 5), LATMC_OK);
            struct box_result straight = box_take(sim, observables, N_OBS, 0);
            latmc_sim_destroy(&sim);
            latmc_ctx_destroy(&ctx);

            d.n_parts = 3;
            for (size_t r = 0; r < 3; r++)
                box_check_restored(&straight, &d, levels[v], make_box, &l, 2, 3, 0, resume[r]);
            box_result_free(&straight);
        }
}

/* ---- the per-plane forms of the CPU backend (lib/backend.h) ---- */

/* A sim after a few sweeps: its measure against its planes' sums added in order, from
 * zeros (model.h), and a sub-range of planes against the same planes of the whole. */
static void check_measure_planes(const struct lattice *l, int precision, const char *level,
                                 int n_threads)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const latmc_sim_desc d = phi4_desc(l, precision, n_threads, 1);
    latmc_sim *sim = make(ctx, &d, level, l, 2.5);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
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
        for (size_t v = 0; v < 2; v++)
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
        for (size_t v = 0; v < 2; v++)
            for (int precision = 0; precision < 2; precision++) {
                const struct lattice *l = ls[i];
                latmc_ctx *ctx = NULL;
                assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
                const latmc_sim_desc d = phi4_desc(l, precision, 1, 1);
                latmc_sim *sim = make(ctx, &d, levels[v], l, 2.5);
                assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
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
    latmc_sim_desc d = phi4_desc(&l3, LATMC_PRECISION_DOUBLE, 1, 4);
    box_expect_accepted(&d);
    d.n_parts = 5;
    box_expect_refused(&d, LATMC_EINVAL, "at most 4 parts");
    d.n_parts = 17; /* more parts than planes */
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = 17");
    d.n_parts = -2;
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = -2");
    /* 2D, 8 colours: 8-row units; 24 rows take 3 */
    const struct lattice l8 = { 2, 8, 24, 0, 1, 1 };
    d = phi4_desc(&l8, LATMC_PRECISION_FLOAT, 1, 3);
    box_expect_accepted(&d);
    d.n_parts = 4;
    box_expect_refused(&d, LATMC_EINVAL, "8-plane units");
    /* 2D, 5 colours: 5-row units; 20 rows take 4 */
    const struct lattice l5 = { 2, 10, 20, 0, 1, 1 };
    d = phi4_desc(&l5, LATMC_PRECISION_DOUBLE, 1, 4);
    box_expect_accepted(&d);
    d.n_parts = 5;
    box_expect_refused(&d, LATMC_EINVAL, "5-plane units");
    /* 2D with 40 rows, 8 colours (x divisible by 8): units of 8, not 5 */
    const struct lattice l40 = { 2, 16, 40, 0, 1, 1 };
    d = phi4_desc(&l40, LATMC_PRECISION_DOUBLE, 1, 5);
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
            d = phi4_desc(&l40, LATMC_PRECISION_DOUBLE, 1, 2);
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
        cmocka_unit_test(boxes_3d),
        cmocka_unit_test(boxes_2d),
        cmocka_unit_test(boxes_threaded),
        cmocka_unit_test(checkpoint_from_boxes),
        cmocka_unit_test(measure_is_planes_in_order),
        cmocka_unit_test(planes_round_trip),
        cmocka_unit_test(bad_decompositions),
    };
    return cmocka_run_group_tests_name("boxes_phi4", tests, NULL, NULL);
}
