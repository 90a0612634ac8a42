/*
 * The Heisenberg spin glass: cuts the lattice cannot take (LATMC_EINVAL), and the
 * per-plane forms (lib/backend.h, through the internal ops): measure is exactly the
 * combination in plane order (model add_sums) of measure_planes, for any split of the
 * planes and thread count; get_planes is the planes' slice of get_spins (replica 0's
 * planes, then replica 1's) and set_planes writes exactly those planes. That k boxes run
 * the one-box chain bit for bit is the identity matrix's (tests/repro/identity).
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
#include "boxes_check.h"
#include "heisenberg.h"
#include "heisenberg_test_helpers.h"
#include "internal.h"
#include "model.h"
#include "sim_make.h"

enum { HB = LATMC_ALGO_HEATBATH, OR = LATMC_ALGO_OVERRELAX };
enum { UNI = LATMC_COUPLINGS_UNIFORM, GAU = LATMC_COUPLINGS_GAUSSIAN };

static const int observables[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                   LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                   LATMC_OBS_OVERLAP2, LATMC_OBS_ACCEPTANCE };
#define N_OBS (sizeof observables / sizeof observables[0])

/* levels the CPU lacks run the highest it has (LATMC_CPU_MASK only lowers) */
static const char *const levels[] = { "c", "avx2", "avx512" };
#define N_LEVELS (sizeof levels / sizeof levels[0])

/* the chain of every case: low temperature in a field, one overrelaxation pass */
static const struct test_params chain = { { { LATMC_PARAM_BETA, 1.1 }, { LATMC_PARAM_H, 0.15 },
                                            { LATMC_PARAM_NOVER, 1 } } };


static void bad_decompositions(void **state)
{
    (void)state;
    latmc_sim_desc d = heisenberg_desc(3, 8, 6, 10, 1, GAU, HB, 1, 1);
    d.n_parts = -1;
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = -1");
    d.n_parts = 6; /* 10 planes along z: at most 5 slabs of 2 planes */
    box_expect_refused(&d, LATMC_EINVAL, "at most 5 parts");
    d.n_parts = 11; /* more parts than planes */
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = 11");
    d = heisenberg_desc(2, 8, 6, 0, 2, UNI, OR, 1, 1);
    d.n_parts = 4; /* 2D: the cut is along y, 6 planes */
    box_expect_refused(&d, LATMC_EINVAL, "at most 3 parts");
    d.n_parts = 3; /* the thinnest allowed: accepted */
    box_expect_accepted(&d);
}

/* ---- the per-plane forms (internal ops) ---- */

static int64_t n_planes(const latmc_sim *sim)
{
    return sim->desc.extent[sim->desc.ndim - 1];
}

/* measure == measure_planes over every plane combined in plane order, and == any split of
 * the planes into runs, asked run by run. */
static void check_measure_is_planes(latmc_sim *sim)
{
    const struct latmc_model_def *m = sim->model;
    const int64_t planes = n_planes(sim);
    struct latmc_heisenberg_sums whole, combined, split;
    assert_int_equal(sim->ops->measure(sim, &whole), LATMC_OK);
    struct latmc_heisenberg_sums *per = calloc((size_t)planes, sizeof *per);
    struct latmc_heisenberg_sums *per2 = calloc((size_t)planes, sizeof *per2);
    assert_non_null(per);
    assert_non_null(per2);
    assert_int_equal(sim->ops->measure_planes(sim, 0, planes, per), LATMC_OK);
    memset(&combined, 0, sizeof combined);
    for (int64_t p = 0; p < planes; p++)
        m->add_sums(&combined, &per[p]);
    assert_memory_equal(&whole, &combined, sizeof whole);
    /* runs of 1, 2, 3, ... planes */
    for (int64_t p0 = 0, len = 1; p0 < planes; p0 += len, len++) {
        const int64_t p1 = p0 + len < planes ? p0 + len : planes;
        assert_int_equal(sim->ops->measure_planes(sim, p0, p1, per2 + p0), LATMC_OK);
    }
    memset(&split, 0, sizeof split);
    for (int64_t p = 0; p < planes; p++)
        m->add_sums(&split, &per2[p]);
    assert_memory_equal(per, per2, (size_t)planes * sizeof *per);
    assert_memory_equal(&whole, &split, sizeof whole);
    free(per);
    free(per2);
}

static void measure_planes(void **state)
{
    (void)state;
    static const struct {
        int ndim;
        int64_t l[3];
        int threads, parts;
    } cases[] = {
        { 3, { 8, 6, 10 }, 1, 1 },   { 3, { 10, 6, 14 }, 2, 3 }, { 2, { 6, 22, 0 }, 1, 5 },
        { 3, { 40, 40, 42 }, 2, 1 }, { 3, { 40, 40, 42 }, 1, 1 }, { 3, { 24, 200, 6 }, 1, 2 },
    };
    for (size_t l = 0; l < N_LEVELS; l++) {
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            latmc_sim_desc d = heisenberg_desc(cases[c].ndim, cases[c].l[0], cases[c].l[1],
                                               cases[c].l[2], 2, GAU, HB, cases[c].threads, 5);
            d.n_parts = cases[c].parts;
            latmc_ctx *ctx = NULL;
            assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
            latmc_sim *sim =
                test_sim_ready(box_create(ctx, &d, levels[l]), &chain, LATMC_INIT_HOT);
            assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
            check_measure_is_planes(sim);
            latmc_sim_destroy(&sim);
            latmc_ctx_destroy(&ctx);
        }
    }
}

/* get_planes is the slice of get_spins; set_planes writes those planes only. */
static void planes_round_trip(void **state)
{
    (void)state;
    for (size_t l = 0; l < N_LEVELS; l++) {
        for (int replicas = 1; replicas <= 2; replicas++) {
            for (int ndim = 2; ndim <= 3; ndim++) {
                latmc_sim_desc d = ndim == 3
                                       ? heisenberg_desc(3, 10, 6, 14, replicas, GAU, HB, 2, 8)
                                       : heisenberg_desc(2, 6, 22, 0, replicas, GAU, HB, 1, 8);
                latmc_ctx *ctx = NULL;
                assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
                latmc_sim *a =
                    test_sim_ready(box_create(ctx, &d, levels[l]), &chain, LATMC_INIT_HOT);
                latmc_sim *b = test_sim_ready(box_create(ctx, &d, levels[l]), &chain, -1);
                assert_int_equal(latmc_sim_sweep(a, 1), LATMC_OK);
                assert_int_equal(latmc_sim_init_spins(b, LATMC_INIT_COLD), LATMC_OK);
                size_t bytes = 0;
                assert_int_equal(latmc_sim_spins_size(a, &bytes), LATMC_OK);
                float *sa = malloc(bytes), *sb = malloc(bytes), *slice = malloc(bytes);
                assert_non_null(sa);
                assert_non_null(sb);
                assert_non_null(slice);
                assert_int_equal(latmc_sim_get_spins(a, sa, bytes), LATMC_OK);
                assert_int_equal(latmc_sim_get_spins(b, sb, bytes), LATMC_OK);
                const int64_t planes = n_planes(a);
                const size_t per_plane = (size_t)(a->nsites / planes) * 3; /* floats */
                const size_t per_replica = (size_t)a->nsites * 3;
                const int64_t p0 = 2, p1 = planes - 3;
                const size_t run = (size_t)(p1 - p0) * per_plane;
                /* a's planes [p0, p1): replica 0's, then replica 1's */
                assert_int_equal(a->ops->get_planes(a, p0, p1, slice), LATMC_OK);
                for (int r = 0; r < replicas; r++)
                    assert_memory_equal(slice + run * (size_t)r,
                                        sa + per_replica * (size_t)r + (size_t)p0 * per_plane,
                                        run * sizeof(float));
                /* into the cold b: those planes become a's, the others stay cold */
                assert_int_equal(b->ops->set_planes(b, p0, p1, slice), LATMC_OK);
                for (int r = 0; r < replicas; r++)
                    memcpy(sb + per_replica * (size_t)r + (size_t)p0 * per_plane,
                           slice + run * (size_t)r, run * sizeof(float));
                float *got = malloc(bytes);
                assert_non_null(got);
                assert_int_equal(latmc_sim_get_spins(b, got, bytes), LATMC_OK);
                assert_memory_equal(got, sb, bytes);
                /* and b measures as a sim given that whole configuration does */
                latmc_sim *c = test_sim_ready(box_create(ctx, &d, levels[l]), &chain, -1);
                assert_int_equal(latmc_sim_set_spins(c, sb, bytes), LATMC_OK);
                for (size_t i = 0; i + 1 < N_OBS; i++) {
                    if (observables[i] == LATMC_OBS_OVERLAP2 && replicas < 2)
                        continue;
                    double x = 0, y = 0;
                    assert_int_equal(latmc_sim_observable(b, observables[i], &x), LATMC_OK);
                    assert_int_equal(latmc_sim_observable(c, observables[i], &y), LATMC_OK);
                    assert_memory_equal(&x, &y, sizeof x);
                }
                free(got);
                free(sa);
                free(sb);
                free(slice);
                latmc_sim_destroy(&a);
                latmc_sim_destroy(&b);
                latmc_sim_destroy(&c);
                latmc_ctx_destroy(&ctx);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_decompositions),
        cmocka_unit_test(measure_planes),
        cmocka_unit_test(planes_round_trip),
    };
    return cmocka_run_group_tests_name("cuts_heisenberg", tests, NULL, NULL);
}
