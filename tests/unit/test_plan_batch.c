/*
 * The plan's batch layout (lib/plan.c latmc_plan_sweep_batch, lib/box.h): what a backend
 * that runs an ensemble's members as one batch is handed. A recording backend (the CPU's
 * ops with step_caps and run_steps replaced) stands for the device, so the calls are
 * checked on any machine: no batch without LATMC_STEP_CAP_BATCH; whole sweeps in one
 * call where the backend declares LATMC_STEP_CAP_BATCH_SWEEPS; after a refusal of them
 * the steps of the Ising schedule (colour s, draws named (sweep, phase s, sub 0):
 * doc/models/ising.md) one call each, in lists of at most 64 calls, every call carrying
 * the batch; each member counted on its own; a refusal after the first list an error,
 * never a silent "run them one by one". Parallel tempering on the device
 * (latmc_plan_sweep_batch_rounds): whole sweeps up to each ensemble sweep count that is a
 * multiple of the period, then the round as a LATMC_STEP_EXCHANGE call with its number and
 * that count, every call marked device_map, a sweep and its round never split between two
 * lists; nothing without LATMC_STEP_CAP_BATCH_EXCHANGE. latmc_plan_batch_one_list says
 * when a call is one list, as the plan then runs it. A batch's requests
 * (latmc_plan_batch_request): one call alone, only with their own capability.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "backend.h"
#include "internal.h"
#include "plan.h"

enum { MEMBERS = 3, L = 4, MAX_CALLS = 512 };

/* What the recording backend declares and answers, and what it was handed. */
static struct {
    unsigned caps;
    int refuse_sweeps;   /* answer LATMC_STEP_SWEEPS calls LATMC_EUNSUPPORTED */
    int refuse_list;     /* answer list number refuse_list (1-based) LATMC_EUNSUPPORTED */
    int lists;
    int list_len[MAX_CALLS];
    int n;
    struct latmc_step_call calls[MAX_CALLS];
} rec;

static unsigned rec_caps(latmc_sim *sim)
{
    (void)sim;
    return rec.caps;
}

static int rec_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                         uint64_t *accepted, uint64_t *attempted)
{
    (void)sim;
    rec.list_len[rec.lists++] = n_calls;
    if (rec.lists == rec.refuse_list)
        return LATMC_EUNSUPPORTED;
    if (rec.refuse_sweeps && calls[0].part == LATMC_STEP_SWEEPS)
        return LATMC_EUNSUPPORTED;
    for (int c = 0; c < n_calls; c++) {
        assert_true(rec.n < MAX_CALLS);
        rec.calls[rec.n++] = calls[c];
        /* member m: m + 1 accepted and 10 attempted a call, to see each counted apart (a
         * batch's request counts nothing: accepted and attempted may be NULL) */
        for (int m = 0; m < calls[c].n_members && !calls[c].request; m++) {
            accepted[m] += (uint64_t)m + 1;
            attempted[m] += 10;
        }
    }
    return LATMC_OK;
}

static struct latmc_backend_ops rec_ops;
static latmc_ctx *ctx;
static latmc_sim *members[MEMBERS];
/* the members' own sweep count: where a batch starts unless a lagging ensemble says */
#define S0 (members[0]->sweeps)

static int setup(void **state)
{
    (void)state;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int m = 0; m < MEMBERS; m++) {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        d.model = LATMC_MODEL_ISING;
        d.ndim = 2;
        d.extent[0] = d.extent[1] = L;
        d.n_threads = 1;
        d.seed = 100 + (uint64_t)m;
        d.device = LATMC_DEVICE_CPU;
        assert_int_equal(latmc_sim_create(ctx, &d, &members[m]), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(members[m], LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(members[m], 5), LATMC_OK); /* sweep numbers 5.. */
    }
    rec_ops = *members[0]->ops;
    rec_ops.step_caps = rec_caps;
    rec_ops.run_steps = rec_run_steps;
    for (int m = 0; m < MEMBERS; m++)
        members[m]->ops = &rec_ops;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int m = 0; m < MEMBERS; m++) {
        members[m]->ops = &latmc_cpu_backend_ops;
        latmc_sim_destroy(&members[m]);
    }
    latmc_ctx_destroy(&ctx);
    return 0;
}

static void reset(unsigned caps, int refuse_sweeps, int refuse_list)
{
    memset(&rec, 0, sizeof rec);
    rec.caps = caps;
    rec.refuse_sweeps = refuse_sweeps;
    rec.refuse_list = refuse_list;
}

/* Every call carries the batch, and its box is the whole lattice (each member's own wrap). */
static void check_batch(const struct latmc_step_call *c)
{
    assert_ptr_equal(c->members, members);
    assert_int_equal(c->n_members, MEMBERS);
    assert_int_equal(c->n_boxes, 1);
    for (int mu = 0; mu < 2; mu++) {
        assert_int_equal(c->boxes[0].origin[mu], 0);
        assert_int_equal(c->boxes[0].extent[mu], L);
    }
}

static void no_batch_without_the_capability(void **state)
{
    (void)state;
    uint64_t acc[MEMBERS] = { 0 }, att[MEMBERS] = { 0 };
    reset(0u, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, 3, acc, att), LATMC_EUNSUPPORTED);
    assert_int_equal(rec.lists, 0);
    reset(LATMC_STEP_CAP_BATCH_SWEEPS, 0, 0); /* whole sweeps alone name no batch */
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, 3, acc, att), LATMC_EUNSUPPORTED);
    assert_int_equal(rec.lists, 0);
    assert_int_equal(latmc_plan_sweep_batch(members, 0, S0, 3, acc, att), LATMC_EUNSUPPORTED);
}

static void whole_sweeps_in_one_call(void **state)
{
    (void)state;
    uint64_t acc[MEMBERS] = { 0 }, att[MEMBERS] = { 0 };
    reset(LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, 300, acc, att), LATMC_OK);
    assert_int_equal(rec.lists, 1);
    assert_int_equal(rec.n, 1);
    const struct latmc_step_call *c = &rec.calls[0];
    check_batch(c);
    assert_int_equal(c->part, LATMC_STEP_SWEEPS);
    assert_true(c->sweep == 5 && c->n_sweeps == 300);
    assert_int_equal(c->step.index, 0);
    for (int m = 0; m < MEMBERS; m++) {
        assert_true(acc[m] == (uint64_t)m + 1);
        assert_true(att[m] == 10);
    }
}

/* The steps of n sweeps from sweep 5 as the Ising schedule names them, from call `first`. */
static void check_steps(int first, int n)
{
    assert_int_equal(rec.n - first, 2 * n);
    for (int k = 0; k < n; k++)
        for (int s = 0; s < 2; s++) {
            const struct latmc_step_call *c = &rec.calls[first + 2 * k + s];
            const uint64_t sweep = 5 + (uint64_t)k;
            check_batch(c);
            assert_int_equal(c->part, LATMC_STEP_WHOLE);
            assert_true(c->sweep == sweep);
            assert_int_equal(c->step.kind, LATMC_STEP_COLOUR);
            assert_int_equal(c->step.colour, s);
            assert_true(c->step.rng_sweep == sweep);
            assert_int_equal(c->step.phase, (uint32_t)s);
            assert_int_equal(c->step.sub, 0);
            const struct latmc_rng_name name = latmc_rng_update_name(sweep, (uint32_t)s, 0);
            assert_true(c->step.rng.c1 == name.c1 && c->step.rng.c2 == name.c2 &&
                        c->step.rng.c3 == name.c3);
            assert_int_equal(c->last, k == n - 1 && s == 1);
        }
}

static void steps_after_whole_sweeps_refused(void **state)
{
    (void)state;
    uint64_t acc[MEMBERS] = { 0 }, att[MEMBERS] = { 0 };
    reset(LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS, 1, 0);
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, 40, acc, att), LATMC_OK);
    /* the refused call, then 80 steps in lists of 64 and 16 */
    assert_int_equal(rec.lists, 3);
    assert_int_equal(rec.list_len[0], 1);
    assert_int_equal(rec.list_len[1], 64);
    assert_int_equal(rec.list_len[2], 16);
    check_steps(0, 40);
    for (int m = 0; m < MEMBERS; m++) {
        assert_true(acc[m] == 80 * ((uint64_t)m + 1));
        assert_true(att[m] == 800);
    }
}

static void steps_without_whole_sweeps(void **state)
{
    (void)state;
    uint64_t acc[MEMBERS] = { 0 }, att[MEMBERS] = { 0 };
    reset(LATMC_STEP_CAP_BATCH, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, 3, acc, att), LATMC_OK);
    assert_int_equal(rec.lists, 1);
    check_steps(0, 3);
}

static void refusals(void **state)
{
    (void)state;
    uint64_t acc[MEMBERS] = { 0 }, att[MEMBERS] = { 0 };
    /* refused at its first list: nothing done, the core runs the members one by one */
    reset(LATMC_STEP_CAP_BATCH, 0, 1);
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, 40, acc, att),
                     LATMC_EUNSUPPORTED);
    assert_int_equal(rec.lists, 1);
    /* refused after a list ran: part of the steps are done, so it is a failure */
    reset(LATMC_STEP_CAP_BATCH, 0, 2);
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, 40, acc, att), LATMC_EDEVICE);
    assert_int_equal(rec.lists, 2);
}

/* Call c is n whole sweeps from member sweep `sweep`, of a tempering list. */
static void check_sweeps_call(int c, uint64_t sweep, uint64_t n)
{
    const struct latmc_step_call *k = &rec.calls[c];
    check_batch(k);
    assert_int_equal(k->part, LATMC_STEP_SWEEPS);
    assert_true(k->sweep == sweep && k->n_sweeps == n);
    assert_int_equal(k->device_map, 1);
}

/* Call c is round `round` after the sweeps that end at member sweep `sweep`, ensemble
 * count `count`. */
static void check_round_call(int c, uint64_t sweep, uint64_t round, uint64_t count)
{
    const struct latmc_step_call *k = &rec.calls[c];
    check_batch(k);
    assert_int_equal(k->part, LATMC_STEP_WHOLE);
    assert_int_equal(k->step.kind, LATMC_STEP_EXCHANGE);
    assert_true(k->sweep == sweep && k->round == round && k->round_sweeps == count);
    assert_int_equal(k->device_map, 1);
}

static void exchange_rounds_as_steps(void **state)
{
    (void)state;
    uint64_t acc[MEMBERS] = { 0 }, att[MEMBERS] = { 0 };
    const unsigned all = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS |
                         LATMC_STEP_CAP_BATCH_EXCHANGE;
    /* the ensemble at count 7 (its members at sweep 5), a round every 3: rounds 11, 12, 13
     * after counts 9, 12, 15, and two sweeps without a round at the end */
    const struct latmc_batch_rounds rounds = { 3, 7, 11 };
    reset(all, 0, 0);
    uint64_t run = 99;
    assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, S0, 10, &rounds, acc, att,
                                                   &run),
                     LATMC_OK);
    assert_int_equal(run, 3);
    assert_int_equal(rec.lists, 1);
    assert_int_equal(rec.n, 7);
    check_sweeps_call(0, 5, 2);
    check_round_call(1, 7, 11, 9);
    check_sweeps_call(2, 7, 3);
    check_round_call(3, 10, 12, 12);
    check_sweeps_call(4, 10, 3);
    check_round_call(5, 13, 13, 15);
    check_sweeps_call(6, 13, 2);
    for (int m = 0; m < MEMBERS; m++)
        assert_true(acc[m] == 7 * ((uint64_t)m + 1) && att[m] == 70);

    /* a round after every sweep: 40 pairs, 32 in the first list, no pair split */
    const struct latmc_batch_rounds each = { 1, 0, 0 };
    reset(all, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, S0, 40, &each, acc, att,
                                                   &run),
                     LATMC_OK);
    assert_int_equal(run, 40);
    assert_int_equal(rec.lists, 2);
    assert_int_equal(rec.list_len[0], 64);
    assert_int_equal(rec.list_len[1], 16);
    for (int k = 0; k < 40; k++) {
        check_sweeps_call(2 * k, 5 + (uint64_t)k, 1);
        check_round_call(2 * k + 1, 6 + (uint64_t)k, (uint64_t)k, (uint64_t)k + 1);
    }

    /* no rounds as steps without the capability, or without a period; a refusal of the
     * first list is "not here" with nothing done, of a later one a failure */
    reset(LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, S0, 4, &rounds, acc, att,
                                                   NULL),
                     LATMC_EUNSUPPORTED);
    const struct latmc_batch_rounds none = { 0, 7, 11 };
    reset(all, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, S0, 4, &none, acc, att,
                                                   NULL),
                     LATMC_EUNSUPPORTED);
    assert_int_equal(rec.lists, 0);
    reset(all, 0, 1);
    assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, S0, 4, &rounds, acc, att,
                                                   NULL),
                     LATMC_EUNSUPPORTED);
    reset(all, 0, 2);
    assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, S0, 40, &each, acc, att,
                                                   &run),
                     LATMC_EDEVICE);
    assert_int_equal(rec.lists, 2);
    assert_int_equal(run, 32); /* the first list's rounds: the refused one ran none */
}

/* latmc_plan_batch_one_list says what the plan then does: one list at most (a failure then
 * adds no count, lib/box.h), for rounds of every period and phase, and for the steps one by
 * one (whole sweeps refused, or not declared); a first sweep other than the members' own
 * count (an ensemble whose members' counts lag) names the sweeps. */
static void one_list_as_the_plan_runs(void **state)
{
    (void)state;
    uint64_t acc[MEMBERS] = { 0 }, att[MEMBERS] = { 0 };
    const unsigned all = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS |
                         LATMC_STEP_CAP_BATCH_EXCHANGE;
    const uint64_t every[] = { 1, 2, 3, 5 }, phase[] = { 0, 1, 4 };
    for (size_t i = 0; i < 4; i++)
        for (size_t j = 0; j < 3; j++)
            for (uint64_t n = 1; n <= 80; n++) {
                const struct latmc_batch_rounds r = { every[i], phase[j], 0 };
                reset(all, 0, 0);
                assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, S0, n, &r, acc,
                                                               att, NULL), LATMC_OK);
                assert_int_equal(rec.lists <= 1, latmc_plan_batch_one_list(members[0], n, &r));
            }
    for (uint64_t n = 1; n <= 70; n++) {
        reset(LATMC_STEP_CAP_BATCH, 0, 0);
        assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, n, acc, att), LATMC_OK);
        assert_int_equal(rec.lists <= 1, latmc_plan_batch_one_list(members[0], n, NULL));
        reset(LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS, 1, 0);
        assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, S0, n, acc, att), LATMC_OK);
        assert_int_equal(rec.lists - 1 <= 1, latmc_plan_batch_one_list(members[0], n, NULL));
    }
    reset(all, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch(members, MEMBERS, 9, 4, acc, att), LATMC_OK);
    assert_int_equal(rec.n, 1);
    assert_int_equal(rec.calls[0].part, LATMC_STEP_SWEEPS);
    assert_true(rec.calls[0].sweep == 9 && rec.calls[0].n_sweeps == 4);
    const struct latmc_batch_rounds r = { 3, 7, 11 };
    reset(all, 0, 0);
    assert_int_equal(latmc_plan_sweep_batch_rounds(members, MEMBERS, 20, 4, &r, acc, att, NULL),
                     LATMC_OK);
    check_sweeps_call(0, 20, 2);
    check_round_call(1, 22, 11, 9);
    check_sweeps_call(2, 22, 2);
}

/* A batch's requests (latmc_plan_batch_request): a call alone, offered only with its own
 * capability (the steps' capabilities offer none; the tempering state's with the device's
 * rounds), carrying the batch, its kind, no names and what it reads and writes; a refusal
 * comes back as it is, with nothing recorded; a kind that is no request is refused. */
static void batch_requests(void **state)
{
    (void)state;
    int64_t q[1], ql[1];
    const int32_t pairs[2] = { 0, 2 };
    unsigned char sums[8];
    struct latmc_ens_temper temper;
    memset(&temper, 0, sizeof temper);
    const struct latmc_batch_request measure = { .sums = sums };
    const struct latmc_batch_request overlaps = { .pairs = pairs, .n_pairs = 1, .q = q, .ql = ql };
    const struct latmc_batch_request swap = { .pairs = pairs, .n_pairs = 1 };
    const struct latmc_batch_request load = { .temper = &temper };
    enum { KINDS = 4 };
    const int kinds[KINDS] = { LATMC_STEP_MEASURE, LATMC_STEP_OVERLAPS, LATMC_STEP_SWAP_PARAMS,
                               LATMC_STEP_TEMPER_STATE };
    const unsigned caps[KINDS] = { LATMC_STEP_CAP_BATCH_MEASURE, LATMC_STEP_CAP_BATCH_OVERLAPS,
                                   LATMC_STEP_CAP_BATCH_SWAP, LATMC_STEP_CAP_BATCH_EXCHANGE };
    const struct latmc_batch_request *req[KINDS] = { &measure, &overlaps, &swap, &load };
    reset(LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS, 0, 0);
    for (int k = 0; k < KINDS; k++)
        assert_int_equal(latmc_plan_batch_request(members, MEMBERS, kinds[k], req[k]),
                         LATMC_EUNSUPPORTED);
    assert_int_equal(rec.lists, 0);
    assert_int_equal(latmc_plan_batch_request(members, MEMBERS, LATMC_STEP_COLOUR, &measure),
                     LATMC_EINVAL);
    for (int k = 0; k < KINDS; k++) {
        reset(caps[k], 0, 0);
        for (int other = 0; other < KINDS; other++)
            if (other != k)
                assert_int_equal(latmc_plan_batch_request(members, MEMBERS, kinds[other],
                                                          req[other]),
                                 LATMC_EUNSUPPORTED);
        assert_int_equal(rec.lists, 0);
        assert_int_equal(latmc_plan_batch_request(members, MEMBERS, kinds[k], req[k]), LATMC_OK);
        assert_int_equal(rec.lists, 1);
        assert_int_equal(rec.list_len[0], 1);
        assert_int_equal(rec.n, 1);
        const struct latmc_step_call *c = &rec.calls[0];
        check_batch(c);
        assert_int_equal(c->step.kind, kinds[k]);
        assert_int_equal(c->step.rng_sweep, 0);
        assert_int_equal(c->n_sweeps, 0);
        assert_int_equal(c->device_map, 0);
        assert_ptr_equal(c->request, req[k]);
        /* refused: nothing done, the refusal returned */
        reset(caps[k], 0, 1);
        assert_int_equal(latmc_plan_batch_request(members, MEMBERS, kinds[k], req[k]),
                         LATMC_EUNSUPPORTED);
        assert_int_equal(rec.n, 0);
        assert_int_equal(latmc_plan_batch_request(members, 0, kinds[k], req[k]),
                         LATMC_EUNSUPPORTED);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_batch_without_the_capability),
        cmocka_unit_test(whole_sweeps_in_one_call),
        cmocka_unit_test(steps_after_whole_sweeps_refused),
        cmocka_unit_test(steps_without_whole_sweeps),
        cmocka_unit_test(refusals),
        cmocka_unit_test(exchange_rounds_as_steps),
        cmocka_unit_test(one_list_as_the_plan_runs),
        cmocka_unit_test(batch_requests),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
