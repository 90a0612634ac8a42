/*
 * A Potts sim run as k boxes (desc.n_parts, slabs along the last axis: lib/plan.c, one
 * step per colour of lib/model_potts.c) is the same chain as one box, bit for bit:
 * configuration, every observable, the acceptance counts, for q = 2, 3, 5, Metropolis and
 * heat bath, 2D and 3D, the checkerboard (2 colours, slabs of whole 2-plane units) and the
 * 3-colour lattices (3-plane units), k = 2, 3, 5 (uneven slabs, and the thinnest the
 * colouring allows), 1 and 2 threads (lattices large enough for the threaded paths too),
 * and every CPU level (LATMC_CPU_MASK c, avx2, avx512; a level the CPU lacks runs the
 * highest it has, which the test says). A checkpoint taken from k boxes continues on 1 box
 * bit for bit. Cuts the lattice cannot take are LATMC_EINVAL with a message. The per-plane
 * forms of the CPU backend (lib/backend.h: measure_planes, get_planes, set_planes) are
 * checked against an independent count from the configuration and against measure,
 * get_spins and set_spins.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "model.h"
#include "potts.h"
#include "potts_kernels.h" /* cpu_potts_level */
#include "boxes_check.h"
#include "sim_helpers.h"

static const int observables[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                   LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                   LATMC_OBS_ACCEPTANCE };
#define N_OBS (sizeof observables / sizeof observables[0])

static const char *const levels[] = { "c", "avx2", "avx512" };

static latmc_sim_desc potts_desc(int ndim, int64_t lx, int64_t ly, int64_t lz, int q,
                                 int algorithm, int n_threads, uint64_t seed)
{
    latmc_sim_desc d = ising_desc(ndim, lx, ly, lz, algorithm, n_threads, seed);
    d.model = LATMC_MODEL_POTTS;
    d.q = q;
    return d;
}

static latmc_sim *make(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                       const void *unused)
{
    (void)unused;
    latmc_sim *sim = box_create(ctx, d, level);
    const char *ran = cpu_potts_level(sim);
    if (strcmp(ran, level) != 0) {
        assert_string_not_equal(level, "c"); /* the C level always exists */
        static int said[3];
        const int i = strcmp(level, "avx2") == 0 ? 1 : 2;
        if (!said[i]++)
            print_message("this CPU has no %s level: those runs use %s\n", level, ran);
    }
    /* near the transition of q = 3 (2D 1.005, 3D 0.55): a chain that moves and orders */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, d->ndim == 2 ? 0.95 : 0.5),
                     LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.05), LATMC_OK);
    return sim;
}

static struct box_result run(const latmc_sim_desc *d, const char *level, int nsweeps)
{
    return box_run(d, level, make, NULL, (uint64_t)nsweeps, observables, N_OBS);
}

/* Each box count against one box, at every level and thread count. */
static void same_chain_parts(int ndim, int64_t lx, int64_t ly, int64_t lz, int q,
                             int algorithm, const int *parts, size_t nparts, int nsweeps)
{
    const int threads[] = { 1, 2 };
    for (size_t l = 0; l < 3; l++) {
        for (size_t t = 0; t < 2; t++) {
            latmc_sim_desc d = potts_desc(ndim, lx, ly, lz, q, algorithm, threads[t],
                                          20261122);
            struct box_result one = run(&d, levels[l], nsweeps);
            /* a moving chain: some proposals taken, some refused */
            assert_true(one.accepted > one.attempted / 50 && one.accepted < one.attempted);
            for (size_t k = 0; k < nparts; k++) {
                d.n_parts = parts[k];
                struct box_result boxes = run(&d, levels[l], nsweeps);
                char what[128];
                snprintf(what, sizeof what, "%dD %lldx%lldx%lld, q %d, level %s, %d threads, "
                         "%d parts", ndim, (long long)lx, (long long)ly, (long long)lz, q,
                         levels[l], threads[t], parts[k]);
                box_assert_same(&one, &boxes, what);
                box_result_free(&boxes);
            }
            box_result_free(&one);
        }
    }
}

static void same_chain(int ndim, int64_t lx, int64_t ly, int64_t lz, int q, int algorithm)
{
    const int parts[] = { 2, 3, 5 };
    same_chain_parts(ndim, lx, ly, lz, q, algorithm, parts, 3, 10);
}

/*
 * Small lattices: every chunk of the SIMD levels (32 or 64 sites of one colour) crosses
 * box boundaries, and in 2D a slab of 2 rows is 14 sites, so box ends cut Philox blocks
 * of 4 too. 2D 14 x 22, 2 colours: 11 two-plane units, k = 3 as 3,4,4 units, k = 5 as
 * 2,2,2,2,3; 14 x 10 with k = 5: five slabs of 2 planes, the thinnest. 3D 10 x 6 x 22 the
 * same along z.
 */
static void two_colours_2d(void **state)
{
    (void)state;
    const int q[] = { 2, 3, 5 };
    for (int i = 0; i < 3; i++) {
        same_chain(2, 14, 22, 0, q[i], LATMC_ALGO_METROPOLIS);
        same_chain(2, 14, 22, 0, q[i], LATMC_ALGO_HEATBATH);
    }
    const int five[] = { 5 };
    same_chain_parts(2, 14, 10, 0, 3, LATMC_ALGO_METROPOLIS, five, 1, 10);
    same_chain_parts(2, 14, 10, 0, 5, LATMC_ALGO_HEATBATH, five, 1, 10);
}

static void two_colours_3d(void **state)
{
    (void)state;
    const int q[] = { 2, 3, 5 };
    for (int i = 0; i < 3; i++) {
        same_chain(3, 10, 6, 22, q[i], LATMC_ALGO_METROPOLIS);
        same_chain(3, 10, 6, 22, q[i], LATMC_ALGO_HEATBATH);
    }
    const int five[] = { 5 };
    same_chain_parts(3, 4, 6, 10, 3, LATMC_ALGO_HEATBATH, five, 1, 10);
}

/*
 * Three colours (every extent a multiple of 3, one odd): 3-plane units. 2D 9 x 30: 10
 * units, k = 3 as 3,3,4, k = 5 two each; 9 x 15 with k = 5: five slabs of 3 planes, the
 * thinnest. 3D 9 x 6 x 21: 7 units along z, k = 5 as 1,1,1,2,2.
 */
static void three_colours(void **state)
{
    (void)state;
    const int q[] = { 2, 3, 5 };
    for (int i = 0; i < 3; i++) {
        same_chain(2, 9, 30, 0, q[i], LATMC_ALGO_METROPOLIS);
        same_chain(2, 9, 30, 0, q[i], LATMC_ALGO_HEATBATH);
    }
    same_chain(3, 9, 6, 21, 3, LATMC_ALGO_METROPOLIS);
    same_chain(3, 9, 6, 21, 5, LATMC_ALGO_HEATBATH);
    const int five[] = { 5 };
    same_chain_parts(2, 9, 15, 0, 3, LATMC_ALGO_HEATBATH, five, 1, 10);
}

/*
 * Large enough for the threaded paths (>= 32768 sites of a colour in the boxes): the whole
 * chunks of the boxes shared among the threads, the chunks cut by a box's ends on one.
 * 300 x 250: 150 sites of a colour per row, so box ends fall inside chunks. q = 5 heat
 * bath in 2D takes the neighbour-tuple table. 3D 66 x 40 x 30; 3 colours 333 x 300.
 */
static void threaded(void **state)
{
    (void)state;
    const int parts[] = { 3, 5 };
    same_chain_parts(2, 300, 250, 0, 3, LATMC_ALGO_METROPOLIS, parts, 2, 4);
    same_chain_parts(2, 300, 250, 0, 5, LATMC_ALGO_HEATBATH, parts, 2, 4);
    same_chain_parts(3, 66, 40, 30, 2, LATMC_ALGO_HEATBATH, parts, 2, 4);
    same_chain_parts(2, 333, 300, 0, 3, LATMC_ALGO_HEATBATH, parts, 2, 4);
}

/*
 * Every plane a whole number of SIMD chunks (a multiple of 64 sites of a colour): the split
 * layout's steps then write the boxes' halos through (potts_through_safe, cpu_boxes.c),
 * the team's bands cutting boxes at planes. 2D 256 x 300 (128 sites of a colour per row,
 * large enough for the team), 3D 32 x 4 x 40 (64 per plane).
 */
static void written_through(void **state)
{
    (void)state;
    const int parts[] = { 2, 3, 5 };
    same_chain_parts(2, 256, 300, 0, 3, LATMC_ALGO_METROPOLIS, parts, 3, 4);
    same_chain_parts(3, 32, 4, 40, 3, LATMC_ALGO_HEATBATH, parts, 3, 10);
}

/* Saved from 3 boxes, restored, continued as 1 box (after a refused cut), 2 or 5: the
 * continuation is the uncut chain's. */
static void checkpoint_from_boxes(void **state)
{
    (void)state;
    static const int resume[] = { 0, 2, 5 };
    for (size_t l = 0; l < 3; l++) {
        for (int colours = 2; colours <= 3; colours++) {
            latmc_sim_desc d = colours == 2
                ? potts_desc(3, 10, 6, 22, 3, LATMC_ALGO_METROPOLIS, 1, 99)
                : potts_desc(2, 9, 30, 0, 5, LATMC_ALGO_HEATBATH, 2, 99);
            struct box_result straight = run(&d, levels[l], 14);
            d.n_parts = 3;
            for (size_t r = 0; r < 3; r++)
                box_check_restored(&straight, &d, levels[l], make, NULL, 6, 8, 0, resume[r]);
            box_result_free(&straight);
        }
    }
}

static void bad_decompositions(void **state)
{
    (void)state;
    /* 2 colours, 10 planes: at most 5 slabs of 2 */
    latmc_sim_desc d = potts_desc(2, 8, 10, 0, 3, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = -1;
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = -1");
    d.n_parts = 6; /* slabs thinner than the 2-plane unit */
    box_expect_refused(&d, LATMC_EINVAL, "at most 5 parts");
    d.n_parts = 11; /* more parts than planes */
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = 11");
    d.n_parts = 5;
    box_expect_accepted(&d);
    /* 3 colours, 12 planes: 5 slabs of 2 or 3 planes would cover them, but a 2-plane slab
     * breaks the colouring (x + y) mod 3: at most 4 slabs of 3 */
    d = potts_desc(2, 9, 12, 0, 3, LATMC_ALGO_HEATBATH, 1, 1);
    d.n_parts = 5;
    box_expect_refused(&d, LATMC_EINVAL, "whole number of 3-plane units");
    box_expect_refused(&d, LATMC_EINVAL, "at most 4 parts");
    d.n_parts = 4;
    box_expect_accepted(&d);
    /* 3D: the cut is along z (9 planes, 3 colours) */
    d = potts_desc(3, 6, 9, 9, 2, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = 4;
    box_expect_refused(&d, LATMC_EINVAL, "at most 3 parts");
    d.n_parts = 3;
    box_expect_accepted(&d);
}

/* ---- the per-plane forms (lib/backend.h) ---- */

/* The plane sums of doc/conventions.md counted here from the natural configuration: each
 * site's +x, +y (+z) bonds and its state, for every plane of the last axis. */
static void count_planes(const latmc_sim_desc *d, const uint8_t *s, struct latmc_potts_sums *out)
{
    const int64_t lx = d->extent[0], ly = d->extent[1], lz = d->ndim == 3 ? d->extent[2] : 1;
    const int64_t planes = d->extent[d->ndim - 1];
    memset(out, 0, sizeof *out * (size_t)planes);
    for (int64_t z = 0; z < lz; z++)
        for (int64_t y = 0; y < ly; y++)
            for (int64_t x = 0; x < lx; x++) {
                struct latmc_potts_sums *p = &out[d->ndim == 3 ? z : y];
                const uint8_t v = s[x + lx * (y + ly * z)];
                p->count[v]++;
                p->matches += v == s[(x + 1) % lx + lx * (y + ly * z)];
                p->matches += v == s[x + lx * ((y + 1) % ly + ly * z)];
                if (d->ndim == 3)
                    p->matches += v == s[x + lx * (y + ly * ((z + 1) % lz))];
            }
}

static void check_planes_of(const latmc_sim_desc *d, const char *level)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, d, level, NULL);
    const struct latmc_backend_ops *ops = sim->ops;
    assert_true(ops->size >= offsetof(struct latmc_backend_ops, set_planes) +
                                 sizeof ops->set_planes);
    assert_non_null(ops->measure_planes);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);

    const int64_t planes = d->extent[d->ndim - 1];
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    const size_t plane_sites = n / (size_t)planes;
    uint8_t *spins = malloc(n), *part = malloc(n);
    struct latmc_potts_sums *expect = calloc((size_t)planes, sizeof *expect);
    struct latmc_potts_sums *got = calloc((size_t)planes, sizeof *got);
    assert_true(spins && part && expect && got);
    assert_int_equal(latmc_sim_get_spins(sim, spins, n), LATMC_OK);

    /* measure_planes: every plane's sums as counted here; in plane order, from zeros,
     * the whole lattice's measure; also in two calls cut anywhere */
    count_planes(d, spins, expect);
    assert_int_equal(ops->measure_planes(sim, 0, planes, got), LATMC_OK);
    assert_memory_equal(expect, got, sizeof *got * (size_t)planes);
    const int64_t cut = planes / 3 + 1;
    memset(got, 0xA5, sizeof *got * (size_t)planes);
    assert_int_equal(ops->measure_planes(sim, 0, cut, got), LATMC_OK);
    assert_int_equal(ops->measure_planes(sim, cut, planes, got + cut), LATMC_OK);
    assert_memory_equal(expect, got, sizeof *got * (size_t)planes);
    struct latmc_potts_sums total, whole;
    memset(&total, 0, sizeof total);
    for (int64_t p = 0; p < planes; p++)
        sim->model->add_sums(&total, &got[p]);
    assert_int_equal(ops->measure(sim, &whole), LATMC_OK);
    assert_memory_equal(&total, &whole, sizeof whole);

    /* get_planes: the planes' slice of get_spins */
    const int64_t p0 = 1, p1 = planes - 2;
    memset(part, 0xA5, n);
    assert_int_equal(ops->get_planes(sim, p0, p1, part), LATMC_OK);
    assert_memory_equal(part, spins + plane_sites * (size_t)p0,
                        plane_sites * (size_t)(p1 - p0));
    /* set_planes: new states in those planes only, as get_spins sees them */
    uint64_t rng = 12345;
    for (size_t i = 0; i < plane_sites * (size_t)(p1 - p0); i++)
        part[i] = (uint8_t)(test_rng_next(&rng) % (uint64_t)d->q);
    assert_int_equal(ops->set_planes(sim, p0, p1, part), LATMC_OK);
    memcpy(spins + plane_sites * (size_t)p0, part, plane_sites * (size_t)(p1 - p0));
    uint8_t *after = malloc(n);
    assert_non_null(after);
    assert_int_equal(latmc_sim_get_spins(sim, after, n), LATMC_OK);
    assert_memory_equal(spins, after, n);
    /* and the set configuration is the one the sweeps and the reduction use */
    count_planes(d, after, expect);
    assert_int_equal(ops->measure_planes(sim, 0, planes, got), LATMC_OK);
    assert_memory_equal(expect, got, sizeof *got * (size_t)planes);
    free(after);

    free(got);
    free(expect);
    free(part);
    free(spins);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void plane_forms(void **state)
{
    (void)state;
    for (size_t l = 0; l < 3; l++) {
        for (int t = 1; t <= 2; t++) {
            latmc_sim_desc d = potts_desc(2, 12, 22, 0, 3, LATMC_ALGO_METROPOLIS, t, 5);
            check_planes_of(&d, levels[l]);
            d = potts_desc(3, 10, 6, 8, 5, LATMC_ALGO_HEATBATH, t, 5);
            check_planes_of(&d, levels[l]);
            d = potts_desc(2, 9, 15, 0, 2, LATMC_ALGO_HEATBATH, t, 5); /* 3 colours */
            check_planes_of(&d, levels[l]);
            d = potts_desc(3, 9, 6, 12, 3, LATMC_ALGO_METROPOLIS, t, 5);
            check_planes_of(&d, levels[l]);
            /* threaded paths: 2 threads, >= 32768 sites */
            d = potts_desc(2, 300, 250, 0, 20, LATMC_ALGO_METROPOLIS, t, 5);
            check_planes_of(&d, levels[l]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_colours_2d),        cmocka_unit_test(two_colours_3d),
        cmocka_unit_test(three_colours),         cmocka_unit_test(threaded),
        cmocka_unit_test(checkpoint_from_boxes), cmocka_unit_test(bad_decompositions),
        cmocka_unit_test(plane_forms),           cmocka_unit_test(written_through),
    };
    return cmocka_run_group_tests_name("boxes_potts", tests, NULL, NULL);
}
