/*
 * Potts: cuts the lattice cannot take (LATMC_EINVAL with a message; the 2- and 3-plane
 * units of the colourings), and the per-plane forms of the CPU backend (lib/backend.h:
 * measure_planes, get_planes, set_planes) against an independent count from the
 * configuration and against measure, get_spins and set_spins. That k boxes run the
 * one-box chain bit for bit is the identity matrix's (tests/repro/identity).
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
#include "sim_make.h"


static const char *const levels[] = { "c", "avx2", "avx512" };

/* The chain: near the transition of q = 3 (2D 1.005, 3D 0.55), one that moves and orders. */
static const struct test_params chain_2d = { { { LATMC_PARAM_BETA, 0.95 },
                                               { LATMC_PARAM_H, 0.05 } } };
static const struct test_params chain_3d = { { { LATMC_PARAM_BETA, 0.5 },
                                               { LATMC_PARAM_H, 0.05 } } };

/* Says once per level when this CPU lacks the level asked for (sim runs `ran` instead). */
static void note_level(const char *level, const char *ran)
{
    if (strcmp(ran, level) == 0)
        return;
    assert_string_not_equal(level, "c"); /* the C level always exists */
    static int said[3];
    const int i = strcmp(level, "avx2") == 0 ? 1 : 2;
    if (!said[i]++)
        print_message("this CPU has no %s level: those runs use %s\n", level, ran);
}

static void bad_decompositions(void **state)
{
    (void)state;
    /* 2 colours, 10 planes: at most 5 slabs of 2 */
    latmc_sim_desc d = potts_test_desc(2, 8, 10, 0, 3, LATMC_ALGO_METROPOLIS, 1, 1);
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
    d = potts_test_desc(2, 9, 12, 0, 3, LATMC_ALGO_HEATBATH, 1, 1);
    d.n_parts = 5;
    box_expect_refused(&d, LATMC_EINVAL, "whole number of 3-plane units");
    box_expect_refused(&d, LATMC_EINVAL, "at most 4 parts");
    d.n_parts = 4;
    box_expect_accepted(&d);
    /* 3D: the cut is along z (9 planes, 3 colours) */
    d = potts_test_desc(3, 6, 9, 9, 2, LATMC_ALGO_METROPOLIS, 1, 1);
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
    latmc_sim *sim =
        test_sim_ready(box_create(ctx, d, level), d->ndim == 2 ? &chain_2d : &chain_3d, -1);
    note_level(level, cpu_potts_level(sim));
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
            latmc_sim_desc d = potts_test_desc(2, 12, 22, 0, 3, LATMC_ALGO_METROPOLIS, t, 5);
            check_planes_of(&d, levels[l]);
            d = potts_test_desc(3, 10, 6, 8, 5, LATMC_ALGO_HEATBATH, t, 5);
            check_planes_of(&d, levels[l]);
            d = potts_test_desc(2, 9, 15, 0, 2, LATMC_ALGO_HEATBATH, t, 5); /* 3 colours */
            check_planes_of(&d, levels[l]);
            d = potts_test_desc(3, 9, 6, 12, 3, LATMC_ALGO_METROPOLIS, t, 5);
            check_planes_of(&d, levels[l]);
            /* threaded paths: 2 threads, >= 32768 sites */
            d = potts_test_desc(2, 300, 250, 0, 20, LATMC_ALGO_METROPOLIS, t, 5);
            check_planes_of(&d, levels[l]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_decompositions),
        cmocka_unit_test(plane_forms),
    };
    return cmocka_run_group_tests_name("cuts_potts", tests, NULL, NULL);
}
