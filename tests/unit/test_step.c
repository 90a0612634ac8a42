/*
 * The concrete steps of each model (model_def.step_of, lib/step.h) against the schedules
 * the docs define (doc/models/, lib/heisenberg.h, lib/phi4.h): for every step of a
 * sweep, its index, kind, colour and pass, the names of its random numbers (sweep word,
 * stream, phase, sub), and counter words equal to latmc_rng_counter's for those names.
 * Sweep numbers past 2^32 check that the counter words carry the sweep's high bits. And
 * the names kernels derive from a step's (lib/rng_streams.h) against the counter words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "heisenberg.h"
#include "internal.h"
#include "ising_decision_rules.h"
#include "ising_rules.h"
#include "model.h"
#include "phi4.h"
#include "potts_rules.h"
#include "rng_streams.h"

static const uint64_t sweeps[] = { 0, 1, 77, UINT64_C(0x100000003), UINT64_C(0xfffffffff) };

static latmc_sim *make(latmc_ctx *ctx, int model, int ndim, int64_t l, int algorithm)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = ndim;
    for (int mu = 0; mu < ndim; mu++)
        d.extent[mu] = l;
    d.algorithm = algorithm;
    d.n_threads = 1;
    d.seed = 5;
    d.device = LATMC_DEVICE_CPU;
    if (model == LATMC_MODEL_POTTS)
        d.q = 3;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    return sim;
}

/* The words of the step's names, as lib/rng_streams.h builds them. */
static void check_words(const struct latmc_step *st)
{
    assert_int_equal(st->stream, latmc_rng_stream(LATMC_STREAM_UPDATE, 0));
    const latmc_philox_ctr c = latmc_rng_counter(0, st->rng_sweep, st->stream, st->phase,
                                                 st->sub);
    assert_int_equal(st->rng.c1, c.v[1]);
    assert_int_equal(st->rng.c2, c.v[2]);
    assert_int_equal(st->rng.c3, c.v[3]);
}

/* Steps 0 .. n - 1 of a sweep of `sim`: n is the model's schedule for its parameters. */
static int schedule_length(latmc_sim *sim)
{
    const struct latmc_model_def *m = sim->model;
    return m->sweep_schedule ? m->sweep_schedule(sim) : m->sweep_steps;
}

/* Colour s of the checkerboard, Ising and Potts alike: step s is colour s, one pass, the
 * draws of (sweep, phase = the colour, sub 0: Potts' propose and heat-bath sub). */
static void colour_steps(latmc_sim *sim, int colours)
{
    assert_int_equal(schedule_length(sim), colours);
    for (size_t k = 0; k < sizeof sweeps / sizeof *sweeps; k++)
        for (int s = 0; s < colours; s++) {
            const struct latmc_step st = sim->model->step_of(sim, sweeps[k], s);
            assert_int_equal(st.index, s);
            assert_int_equal(st.kind, LATMC_STEP_COLOUR);
            assert_int_equal(st.colour, s);
            assert_int_equal(st.pass, 0);
            assert_true(st.rng_sweep == sweeps[k]);
            assert_int_equal(st.phase, (uint32_t)s);
            assert_int_equal(st.sub, 0);
            check_words(&st);
            /* the model's name of a colour, which kernels handed (sweep, colour) use */
            const struct latmc_rng_name n =
                sim->desc.model == LATMC_MODEL_ISING
                    ? latmc_ising_rng_name(sweeps[k], s)
                    : latmc_potts_rng_name(sweeps[k], s, sim->desc.algorithm);
            assert_int_equal(n.c1, st.rng.c1);
            assert_int_equal(n.c2, st.rng.c2);
            assert_int_equal(n.c3, st.rng.c3);
            if (sim->desc.model == LATMC_MODEL_ISING) { /* the bit-sliced chain's planes */
                const struct latmc_ising_plane_names a = latmc_ising_plane_names_step(9, &st);
                const struct latmc_ising_plane_names b =
                    latmc_ising_plane_names_of(9, sweeps[k], s);
                for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS; q++)
                    assert_int_equal(latmc_ising_plane_name(&a, q).c3,
                                     latmc_ising_plane_name(&b, q).c3);
                assert_int_equal(a.name.c1, b.name.c1);
                assert_int_equal(a.name.c2, b.name.c2);
            }
        }
}

static void ising_and_potts(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, LATMC_MODEL_ISING, 2, 8, LATMC_ALGO_METROPOLIS);
    colour_steps(sim, 2);
    latmc_sim_destroy(&sim);
    sim = make(ctx, LATMC_MODEL_POTTS, 2, 8, LATMC_ALGO_HEATBATH); /* even: 2 colours */
    colour_steps(sim, 2);
    latmc_sim_destroy(&sim);
    sim = make(ctx, LATMC_MODEL_POTTS, 3, 9, LATMC_ALGO_METROPOLIS); /* odd: 3 colours */
    colour_steps(sim, 3);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* phi^4 (doc/models/phi4.md): step s is colour s mod nc of pass s / nc, its draws named by
 * the sweep word sweep nloc + pass, phase the colour, sub 0 (hit 0, draw 0). */
static void phi4(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, LATMC_MODEL_PHI4, 3, 8, LATMC_ALGO_METROPOLIS);
    const int nc = 8, nloc = 3; /* 8^3: 8 colours, (x + 3y + 2z) mod 8 */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, nloc), LATMC_OK);
    assert_int_equal(schedule_length(sim), nc * nloc);
    for (size_t k = 0; k < sizeof sweeps / sizeof *sweeps; k++)
        for (int s = 0; s < nc * nloc; s++) {
            const struct latmc_step st = sim->model->step_of(sim, sweeps[k], s);
            assert_int_equal(st.index, s);
            assert_int_equal(st.kind, LATMC_STEP_COLOUR);
            assert_int_equal(st.colour, s % nc);
            assert_int_equal(st.pass, s / nc);
            assert_true(st.rng_sweep == sweeps[k] * (uint64_t)nloc + (uint64_t)(s / nc));
            assert_int_equal(st.phase, (uint32_t)(s % nc));
            assert_int_equal(st.sub, 0);
            check_words(&st);
            /* the model's name of a pass's colour, which kernels running the passes
             * themselves use (CUDA's chunk chain) */
            const struct latmc_rng_name n =
                latmc_phi4_rng_name(sweeps[k], (uint32_t)nloc, (uint32_t)(s / nc), s % nc);
            assert_int_equal(n.c1, st.rng.c1);
            assert_int_equal(n.c2, st.rng.c2);
            assert_int_equal(n.c3, st.rng.c3);
        }
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Heisenberg (lib/heisenberg.h): passes of colour 0 then 1; the heat bath is pass 0 of a
 * heat-bath sweep and nover overrelaxation passes follow; overrelaxation alone is
 * max(nover, 1) passes. */
static void heisenberg(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int hb = 0; hb < 2; hb++)
        for (int nover = 0; nover <= 2; nover++) {
            latmc_sim *sim = make(ctx, LATMC_MODEL_HEISENBERG, 3, 4,
                                  hb ? LATMC_ALGO_HEATBATH : LATMC_ALGO_OVERRELAX);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, nover), LATMC_OK);
            const int passes = hb ? 1 + nover : (nover < 1 ? 1 : nover);
            assert_int_equal(schedule_length(sim), 2 * passes);
            for (size_t k = 0; k < sizeof sweeps / sizeof *sweeps; k++)
                for (int s = 0; s < 2 * passes; s++) {
                    const struct latmc_step st = sim->model->step_of(sim, sweeps[k], s);
                    assert_int_equal(st.index, s);
                    assert_int_equal(st.kind, hb && s < 2 ? LATMC_STEP_COLOUR
                                                          : LATMC_STEP_OVERRELAX);
                    assert_int_equal(st.colour, s % 2);
                    assert_int_equal(st.pass, s / 2);
                    assert_true(st.rng_sweep == sweeps[k]);
                    assert_int_equal(st.phase, (uint32_t)(s % 2));
                    assert_int_equal(st.sub, 0);
                    check_words(&st);
                    /* the model's name of a sweep's colour (the CUDA ensemble kernel's) */
                    const struct latmc_rng_name n = latmc_heisenberg_rng_name(sweeps[k], s % 2);
                    assert_int_equal(n.c1, st.rng.c1);
                    assert_int_equal(n.c2, st.rng.c2);
                    assert_int_equal(n.c3, st.rng.c3);
                }
            latmc_sim_destroy(&sim);
        }
    latmc_ctx_destroy(&ctx);
}

/* Equal counters and draws. */
static void assert_same_block(latmc_philox_ctr a, latmc_philox_ctr b)
{
    for (int w = 0; w < 4; w++)
        assert_int_equal(a.v[w], b.v[w]);
}

/*
 * A name's derived names (another sub, phase and sub, replica) and blocks against
 * latmc_rng_counter / latmc_rng_block of the numbers themselves: blocks and sweep words
 * past 2^32, every stream purpose, both replicas, phases and subs at the edges of their
 * fields. The kernels draw through these functions, so the chains rest on this identity.
 */
static void names(void **state)
{
    (void)state;
    const uint64_t sweep_words[] = { 0, 1, 77, UINT64_C(0xffffffff), UINT64_C(0x123456789ab),
                                     LATMC_RNG_MAX_SWEEP };
    const uint64_t blocks[] = { 0, 3, UINT64_C(0xfffffffe), UINT64_C(0x100000001),
                                UINT64_C(0xabcd12345678), LATMC_RNG_MAX_BLOCK };
    const uint32_t phases[] = { 0, 1, 7, 15, 255 }, subs[] = { 0, 1, 2, 0x7fff, 0xffff };
    for (size_t i = 0; i < sizeof sweep_words / sizeof *sweep_words; i++)
        for (uint32_t purpose = 0; purpose < 4; purpose++)
            for (uint32_t rep = 0; rep < 2; rep++)
                for (size_t p = 0; p < sizeof phases / sizeof *phases; p++)
                    for (size_t u = 0; u < sizeof subs / sizeof *subs; u++) {
                        const uint32_t stream = latmc_rng_stream(purpose, rep);
                        const uint64_t sw = sweep_words[i];
                        const struct latmc_rng_name n0 =
                            latmc_rng_name_of(sw, latmc_rng_stream(purpose, 0), 3, 5);
                        const struct latmc_rng_name n =
                            latmc_rng_name_of(sw, stream, phases[p], subs[u]);
                        const struct latmc_rng_name at =
                            latmc_rng_name_at(latmc_rng_name_replica(n0, rep), phases[p],
                                              subs[u]);
                        const struct latmc_rng_name sub = latmc_rng_name_sub(
                            latmc_rng_name_of(sw, stream, phases[p], 9), subs[u]);
                        const struct latmc_rng_name back =
                            latmc_rng_name_replica(latmc_rng_name_replica(n, 1 - rep), rep);
                        for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
                            const latmc_philox_ctr want =
                                latmc_rng_counter(blocks[b], sw, stream, phases[p], subs[u]);
                            assert_same_block(latmc_rng_name_counter(n, blocks[b]), want);
                            assert_same_block(latmc_rng_name_counter(at, blocks[b]), want);
                            assert_same_block(latmc_rng_name_counter(sub, blocks[b]), want);
                            assert_same_block(latmc_rng_name_counter(back, blocks[b]), want);
                        }
                        assert_true(latmc_rng_name_sweep(n) == sw);
                        assert_same_block(
                            latmc_rng_name_block(0x5eed, n, blocks[3]),
                            latmc_rng_block(0x5eed, blocks[3], sw, stream, phases[p], subs[u]));
                    }
    /* the hot start's draws: the INIT stream of each replica, sweep 0, phase 0 */
    for (uint32_t rep = 0; rep < 2; rep++)
        for (uint32_t sub = 0; sub < 2; sub++)
            assert_same_block(latmc_rng_init_block(0x5eed, rep, sub, blocks[4]),
                              latmc_rng_block(0x5eed, blocks[4], 0,
                                              latmc_rng_stream(LATMC_STREAM_INIT, rep), 0, sub));
    /* a different name gives different words: the test above can fail */
    const struct latmc_rng_name a = latmc_rng_name_of(5, 0, 1, 2);
    assert_true(latmc_rng_name_sub(a, 3).c3 != a.c3);
    assert_true(latmc_rng_name_replica(a, 1).c3 != a.c3);
    assert_true(latmc_rng_name_at(a, 2, 2).c3 != a.c3);
}

/* The counter of block b of (sweep, stream, phase, sub) with the stream as a number. */
static void assert_name_is(struct latmc_rng_name n, uint64_t sweep, uint32_t stream,
                           uint32_t phase, uint32_t sub)
{
    const uint64_t blocks[] = { 0, 9, UINT64_C(0x100000003), LATMC_RNG_MAX_BLOCK };
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        assert_same_block(latmc_rng_name_counter(n, blocks[b]),
                          latmc_rng_counter(blocks[b], sweep, stream, phase, sub));
}

/*
 * Each family's name function (lib/rng_streams.h) against the stream numbers of
 * doc/conventions.md and doc/ensembles.md, written here as numbers: UPDATE 0, INIT 1,
 * COUPLINGS 2, CLUSTER 3 (replica r: + 16 r), the ensemble's 13, 14, 15.
 */
static void family_names(void **state)
{
    (void)state;
    const uint64_t sweep_words[] = { 0, 41, UINT64_C(0x123456789ab) };
    for (size_t i = 0; i < sizeof sweep_words / sizeof *sweep_words; i++) {
        const uint64_t sw = sweep_words[i];
        assert_name_is(latmc_rng_update_name(sw, 1, 2), sw, 0, 1, 2);
        assert_name_is(latmc_rng_cluster_name(sw, 0, 2, 0), sw, 3, 2, 0);
        assert_name_is(latmc_rng_cluster_name(sw, 1, 1, 1), sw, 3 + 16, 1, 1);
        assert_name_is(latmc_rng_ens_name(15, sw), sw, 15, 0, 0);
    }
    for (uint32_t sub = 0; sub < 2; sub++) {
        assert_name_is(latmc_rng_init_name(0, sub), 0, 1, 0, sub);
        assert_name_is(latmc_rng_init_name(1, sub), 0, 1 + 16, 0, sub);
        assert_name_is(latmc_rng_coupling_name(sub), 0, 2, 0, sub);
    }
    assert_name_is(latmc_rng_ens_name(13, 0), 0, 13, 0, 0);
    assert_name_is(latmc_rng_ens_name(14, 0), 0, 14, 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ising_and_potts),
        cmocka_unit_test(phi4),
        cmocka_unit_test(heisenberg),
        cmocka_unit_test(names),
        cmocka_unit_test(family_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
