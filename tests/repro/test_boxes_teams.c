/*
 * In-process boxes with their own memory (backends/cpu/cpu_boxes.c) under thread teams of
 * 2, 3 and 4 members: the same chain as one box on one thread, bit for bit, for every
 * model. The written-through steps (copy_step_sites; Ising's fused pair,
 * run_pair_own_boxes) cut the boxes' planes into one band per member, so a band starts
 * and ends anywhere relative to a box: inside a box's low or high halo-deep border
 * (phi^4: halo 2), covering a whole thin box and parts of its neighbours, or two boxes'
 * borders at once. The per-model box tests run 1 and 2 threads only; 3 and 4 members put
 * the band ends at the other places (uneven bands: 64 planes over 3 members, k = 3, 5, 7
 * uneven slabs). Lattices have at least 65536 sites, so the team is used
 * (LATMC_OMP_MIN_ITEMS). Potts runs a lattice whose split layout may be written through
 * (a plane's sites of a colour a multiple of 64) and one where it may not (through_safe).
 * Ising's pair also runs below its wavefront's threshold (fewer than 4 units a member).
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
#include "heisenberg_test_helpers.h"
#include "sim_helpers.h"

static const int obs_spin[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2,
                                 LATMC_OBS_ACCEPTANCE };
static const int obs_heis[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2,
                                 LATMC_OBS_OVERLAP2, LATMC_OBS_ACCEPTANCE };
static const int obs_phi4[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_PHI2,
                                 LATMC_OBS_ACCEPTANCE };

static latmc_sim *make_ising(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                             const void *unused)
{
    (void)unused;
    latmc_sim *sim = box_create(ctx, d, level);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, d->ndim == 2 ? 0.42 : 0.22),
                     LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.05), LATMC_OK);
    return sim;
}

static latmc_sim *make_potts(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                             const void *unused)
{
    (void)unused;
    latmc_sim *sim = box_create(ctx, d, level);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, d->ndim == 2 ? 0.95 : 0.5),
                     LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.05), LATMC_OK);
    return sim;
}

static latmc_sim *make_phi4(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                            const void *unused)
{
    (void)unused;
    latmc_sim *sim = box_create(ctx, d, level);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.4), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.8), LATMC_OK);
    /* finite Lambda: the update reads sites two planes away (halo 2) */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, 2.5), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, 0.9), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NHIT, 1), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, 1), LATMC_OK);
    return sim;
}

static latmc_sim *make_heis(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                            const void *unused)
{
    (void)unused;
    latmc_sim *sim = box_create(ctx, d, level);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 1.1), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.15), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 1), LATMC_OK);
    return sim;
}

struct team_case {
    const char *name;
    latmc_sim_desc d; /* n_threads and n_parts set per run */
    box_make_fn make;
    const int *ids;
    size_t n_obs;
    const int *parts; /* 0-terminated */
};

static const char *const levels[] = { "c", "avx2", "avx512" };

/* One box on one thread, then every k on 2, 3, 4 members, at every level. */
static void same_chain_teams(const struct team_case *c, int nsweeps)
{
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        latmc_sim_desc d = c->d;
        d.n_threads = 1;
        d.n_parts = 0;
        struct box_result one = box_run(&d, levels[l], c->make, NULL, (uint64_t)nsweeps,
                                        c->ids, c->n_obs);
        for (int t = 2; t <= 4; t++)
            for (const int *k = c->parts; *k; k++) {
                d.n_threads = t;
                d.n_parts = *k;
                struct box_result boxes = box_run(&d, levels[l], c->make, NULL,
                                                  (uint64_t)nsweeps, c->ids, c->n_obs);
                char what[128];
                snprintf(what, sizeof what, "%s, level %s, %d threads, %d parts", c->name,
                         levels[l], t, *k);
                box_assert_same(&one, &boxes, what);
                box_result_free(&boxes);
            }
        box_result_free(&one);
    }
}

static const int parts_357[] = { 3, 5, 7, 0 };

static void ising_teams(void **state)
{
    (void)state;
    struct team_case c = { "Ising 3D 32x32x64", ising_desc(3, 32, 32, 64, LATMC_ALGO_METROPOLIS,
                                                            1, 20261122),
                           make_ising, obs_spin, 4, parts_357 };
    same_chain_teams(&c, 2);
    /* +-J heat bath in 2D: a unit is one row */
    c.name = "Ising 2D 256x256 +-J";
    c.d = ising_desc(2, 256, 256, 0, LATMC_ALGO_HEATBATH, 1, 7);
    c.d.couplings = LATMC_COUPLINGS_BIMODAL;
    c.d.coupling_seed = 99;
    same_chain_teams(&c, 2);
    /* 8 planes: fewer than 4 units a member of 3 or 4 (the pair without its wavefront);
     * k = 4: slabs of 2 planes, the thinnest */
    static const int parts_234[] = { 2, 3, 4, 0 };
    c.name = "Ising 3D 128x64x8";
    c.d = ising_desc(3, 128, 64, 8, LATMC_ALGO_METROPOLIS, 1, 3);
    c.parts = parts_234;
    same_chain_teams(&c, 2);
}

static void potts_teams(void **state)
{
    (void)state;
    /* 64 x 64 planes: 2048 sites of a colour a plane, written through */
    struct team_case c = { "Potts q 3 3D 64x64x16", ising_desc(3, 64, 64, 16,
                                                                LATMC_ALGO_METROPOLIS, 1, 5),
                           make_potts, obs_spin, 4, parts_357 };
    c.d.model = LATMC_MODEL_POTTS;
    c.d.q = 3;
    static const int parts_358[] = { 3, 5, 8, 0 };
    c.parts = parts_358;
    same_chain_teams(&c, 2);
    /* 40 x 40 planes: 800 sites of a colour, not a multiple of 64: copied after a barrier */
    c.name = "Potts q 5 3D 40x40x48";
    c.d = ising_desc(3, 40, 40, 48, LATMC_ALGO_HEATBATH, 1, 6);
    c.d.model = LATMC_MODEL_POTTS;
    c.d.q = 5;
    c.parts = parts_357;
    same_chain_teams(&c, 2);
}

static void phi4_teams(void **state)
{
    (void)state;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = 3;
    d.extent[0] = 32;
    d.extent[1] = 32;
    d.extent[2] = 64; /* 16 units of 4 planes */
    d.precision = LATMC_PRECISION_FLOAT;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 20261122;
    struct team_case c = { "phi4 3D 32x32x64 float", d, make_phi4, obs_phi4, 4, parts_357 };
    same_chain_teams(&c, 2);
    c.name = "phi4 2D 256x256 double";
    c.d.ndim = 2;
    c.d.extent[0] = 256;
    c.d.extent[1] = 256;
    c.d.extent[2] = 0;
    c.d.precision = LATMC_PRECISION_DOUBLE;
    same_chain_teams(&c, 2);
}

static void heisenberg_teams(void **state)
{
    (void)state;
    struct team_case c = { "Heisenberg 3D 32x32x64", heisenberg_desc(3, 32, 32, 64, 2,
                                                                      LATMC_COUPLINGS_GAUSSIAN,
                                                                      LATMC_ALGO_HEATBATH, 1,
                                                                      11),
                           make_heis, obs_heis, 5, parts_357 };
    same_chain_teams(&c, 1);
    /* L_x / 2 = 9: the AVX2 kernel's flat walk, groups across rows and boxes */
    c.name = "Heisenberg 3D 18x38x96";
    c.d = heisenberg_desc(3, 18, 38, 96, 1, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH, 1, 12);
    c.ids = obs_spin;
    c.n_obs = 4;
    same_chain_teams(&c, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ising_teams),
        cmocka_unit_test(potts_teams),
        cmocka_unit_test(phi4_teams),
        cmocka_unit_test(heisenberg_teams),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
