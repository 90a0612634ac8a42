/*
 * latmc_sim_tune_epsilon split over calls (issue 13 item 6): sim.h promises that splitting
 * never changes the chain. Splits inside a block (7 + 13, 3 + 4 + 13, 1 + 19) and on a
 * block end (10 + 10), starting from a block start and from inside one, and a split across
 * a checkpoint (serialize / deserialize in the middle of a block): epsilon, the field (bit
 * for bit) and the acceptance counters equal the unsplit call's.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_helpers.h"

#define L 16

struct state {
    double eps;
    double field[L * L];
    uint64_t acc, att, sweeps;
};

static latmc_sim *phi4_sim(latmc_ctx *ctx)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.extent[0] = d.extent[1] = L;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 77;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.5), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 3.0), LATMC_OK);
    /* Far from the target: every block changes epsilon, so any wrong block shows. */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, 4.0), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    return sim;
}

static void read_state(latmc_sim *sim, struct state *s)
{
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_EPSILON, &s->eps), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, s->field, sizeof s->field), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(sim, &s->acc, &s->att), LATMC_OK);
    assert_int_equal(latmc_sim_sweep_count(sim, &s->sweeps), LATMC_OK);
}

/* Run `pre` plain sweeps, then tuning in the pieces of `split` (0-terminated); with
 * `ckpt_after` > 0 the sim goes through serialize/deserialize after that many pieces. */
static void run(const uint64_t *split, uint64_t pre, int ckpt_after, struct state *out)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = phi4_sim(ctx);
    if (pre) {
        assert_int_equal(latmc_sim_sweep(sim, pre), LATMC_OK);
        assert_int_equal(latmc_sim_reset_acceptance(sim), LATMC_OK);
    }
    for (int i = 0; split[i]; i++) {
        assert_int_equal(latmc_sim_tune_epsilon(sim, 0.4, split[i]), LATMC_OK);
        if (i + 1 == ckpt_after) {
            size_t n = 0;
            assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &n), LATMC_OK);
            void *buf = malloc(n);
            assert_non_null(buf);
            assert_int_equal(latmc_sim_serialize(sim, buf, n, &n), LATMC_OK);
            latmc_sim_destroy(&sim);
            assert_int_equal(latmc_sim_deserialize(ctx, buf, n, &sim), LATMC_OK);
            free(buf);
        }
    }
    read_state(sim, out);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void assert_same(const struct state *a, const struct state *b)
{
    if (a->eps != b->eps)
        print_error("epsilon %.17g (split) vs %.17g (one call)\n", a->eps, b->eps);
    assert_true(a->eps == b->eps);
    assert_memory_equal(a->field, b->field, sizeof a->field);
    assert_true(a->acc == b->acc && a->att == b->att && a->sweeps == b->sweeps);
}

static void splits_match_one_call(void **st)
{
    (void)st;
    const uint64_t pres[] = { 0, 4 }; /* from a block start, and from inside a block */
    for (size_t p = 0; p < 2; p++) {
        static const uint64_t whole[] = { 20, 0 };
        static const uint64_t splits[][4] = {
            { 7, 13, 0 }, { 3, 4, 13, 0 }, { 1, 19, 0 }, { 10, 10, 0 }, { 13, 7, 0 },
        };
        struct state ref, got;
        run(whole, pres[p], 0, &ref);
        assert_true(ref.eps != 4.0); /* tuning did something */
        for (size_t s = 0; s < sizeof splits / sizeof splits[0]; s++) {
            run(splits[s], pres[p], 0, &got);
            assert_same(&got, &ref);
        }
        /* Across a checkpoint taken inside a block. */
        static const uint64_t ck[] = { 7, 13, 0 };
        run(ck, pres[p], 1, &got);
        assert_same(&got, &ref);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(splits_match_one_call) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
