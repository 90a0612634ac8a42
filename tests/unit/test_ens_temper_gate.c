/*
 * Which ensembles take the device's exchange rounds (lib/ens_temper.c,
 * latmc_ens_temper_sweep; doc/ensembles.md "Tempering on the device"). A recording backend
 * (the CPU's ops with step_caps and run_steps replaced, the tempering state's requests
 * (LATMC_STEP_TEMPER_STATE) answered by rec_ens_temper, put on the members of
 * a CPU ensemble) stands for the device, so the gate is checked on any machine. It
 * declares LATMC_STEP_CAP_BATCH_EXCHANGE per model as the CUDA module does (Ising,
 * Heisenberg and phi^4 members, backends/cuda/ensembles/ens_batch_steps.c), or as a test
 * says, and moves its members along the ladders of the parameters a test says (as the
 * module's rows do: beta, or phi^4's mu2; it declines the load of another): Ising and
 * Heisenberg members with a beta ladder and phi^4 members with a mu2 ladder have the state
 * loaded once, with the ladder's parameter and its factor in Delta (1 for beta, 1/2 for
 * mu2), and get lists marked device_map; Potts members (beta ladder, no capability
 * declared for them), phi^4 members of a backend that moves beta ladders only, a backend
 * without the capability, members whose other parameters differ, and any of them with
 * LATMC_ENS_HOST_ROUNDS=1 keep the host's rounds (lists without device_map, no state
 * left loaded), the map on the device fetched first where it was there. The gate follows
 * the capability and the backend's word, not a list of models: Potts members whose backend
 * declared it would take the device's rounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "backend.h"
#include "ens_internal.h"
#include "internal.h"

enum { NS = 2, NT = 4, NR = 1, M = NS * NT * NR, L = 8 }; /* 8: phi^4's colouring too */

static struct {
    unsigned caps;            /* every member's */
    unsigned exchange_models; /* bit m: model m's members add LATMC_STEP_CAP_BATCH_EXCHANGE */
    unsigned ladder_keys;     /* bit k: the backend moves members along a ladder of param k */
    int loads, fetches, declined, device_lists, host_lists;
    int ladder_key;           /* the last load's */
    double scale, ladder[8];
    int32_t member_at[M], temp_of[M]; /* the map as loaded (a fetch gives it back) */
    uint64_t accepted[NT];    /* per pair, as loaded, plus every pair each round offers */
    signed char rt_dir[M];    /* the round trips' state, as loaded ... */
    uint64_t rt_start[M];     /* ... and a trip begun by each list's swap (permute) */
    bool permute;             /* each device list swaps the members at (0, 0, 0), (0, 1, 0) */
    int fail_status;          /* a device list fails with it (0: none) ... */
    int fail_after;           /* ... once this many more have run */
    bool fail_kills, dead;    /* the failure loses the state (a fetch fails), as CUDA's */
} rec;

static unsigned rec_caps(latmc_sim *sim)
{
    const bool exchange = (rec.exchange_models >> sim->desc.model) & 1u;
    return rec.caps | (exchange ? LATMC_STEP_CAP_BATCH_EXCHANGE : 0u);
}

static int rec_ens_temper(latmc_sim *const *members, int n, struct latmc_ens_temper *job)
{
    (void)members;
    assert_int_equal(n, M);
    if (job->what == LATMC_ENS_TEMPER_LOAD) {
        if (!((rec.ladder_keys >> job->ladder_key) & 1u)) { /* as the module's rows */
            rec.declined++;
            return LATMC_EUNSUPPORTED;
        }
        rec.loads++;
        rec.dead = false;
        rec.ladder_key = job->ladder_key;
        rec.scale = job->scale;
        assert_true(job->n_temperatures <= 8);
        memcpy(rec.ladder, job->ladder, (size_t)job->n_temperatures * sizeof *job->ladder);
        memcpy(rec.member_at, job->member_at, sizeof rec.member_at);
        memcpy(rec.temp_of, job->temp_of, sizeof rec.temp_of);
        memcpy(rec.accepted, job->pair_accepted, (NT - 1) * sizeof *rec.accepted);
        memcpy(rec.rt_dir, job->rt_dir, sizeof rec.rt_dir);
        memcpy(rec.rt_start, job->rt_start, sizeof rec.rt_start);
    } else {
        if (rec.dead)
            return latmc_fail(LATMC_ESTATE, "the recorder holds no tempering state");
        rec.fetches++;
        memcpy(job->member_at, rec.member_at, sizeof rec.member_at);
        memcpy(job->temp_of, rec.temp_of, sizeof rec.temp_of);
        memcpy(job->pair_accepted, rec.accepted, (NT - 1) * sizeof *rec.accepted);
        memcpy(job->rt_dir, rec.rt_dir, sizeof rec.rt_dir);
        memcpy(job->rt_start, rec.rt_start, sizeof rec.rt_start);
    }
    return LATMC_OK;
}

static int rec_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                         uint64_t *accepted, uint64_t *attempted)
{
    (void)sim;
    (void)accepted;
    (void)attempted;
    if (calls[0].step.kind == LATMC_STEP_TEMPER_STATE) { /* a request: a call alone */
        assert_int_equal(n_calls, 1);
        return rec_ens_temper(calls[0].members, calls[0].n_members, calls[0].request->temper);
    }
    for (int c = 1; c < n_calls; c++) /* a list is one kind or the other */
        assert_int_equal(calls[c].device_map, calls[0].device_map);
    if (calls[0].device_map)
        rec.device_lists++;
    else
        rec.host_lists++;
    if (calls[0].device_map && rec.fail_status && rec.fail_after-- == 0) {
        const int st = rec.fail_status;
        rec.fail_status = 0;
        rec.dead = rec.fail_kills;
        return latmc_fail(st, "the recorder's list failed");
    }
    /* a list that ran: each of its rounds accepts every pair it offers, in every chain (the
     * most a chain can accept: the host's attempts must keep up with it) */
    for (int c = 0; c < n_calls; c++)
        if (calls[c].device_map && calls[c].step.kind == LATMC_STEP_EXCHANGE)
            for (uint64_t t = calls[c].round % 2; t + 1 < NT; t += 2)
                rec.accepted[t] += NS * NR;
    if (calls[0].device_map && rec.permute) { /* a swap in chain (0, 0): slots 0 and 1 */
        const int32_t a = rec.member_at[0], b = rec.member_at[1];
        rec.member_at[0] = b;
        rec.member_at[1] = a;
        rec.temp_of[a] = 1;
        rec.temp_of[b] = 0;
        /* b reaches temperature 0: a trip (re)starts at the list's last round (a stand-in
         * for the rule's bookkeeping, lib/ens_exchange_rule.h: a start the device holds) */
        for (int c = 0; c < n_calls; c++)
            if (calls[c].step.kind == LATMC_STEP_EXCHANGE) {
                rec.rt_dir[b] = 1;
                rec.rt_start[b] = calls[c].round_sweeps;
            }
    }
    return LATMC_OK; /* the members' spins stay as they were: the gate is tested */
}

static struct latmc_backend_ops rec_ops;
static latmc_ctx *ctx;

static int setup(void **state)
{
    (void)state;
    rec_ops = latmc_cpu_backend_ops;
    rec_ops.step_caps = rec_caps;
    rec_ops.run_steps = rec_run_steps;
    return latmc_ctx_create(&ctx) == LATMC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    latmc_ctx_destroy(&ctx);
    return 0;
}

/* A CPU ensemble of `model` members, a ladder of its parameter `key`, a round every
 * sweep, its members on the recording backend. */
static latmc_ens *gate_ensemble(int model, int key)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = L;
    d.device = LATMC_DEVICE_CPU;
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = NS;
    l.n_temperatures = NT;
    l.n_replicas = NR;
    l.seed = 7;
    l.coupling_seed = 8;
    l.n_threads = 1;
    latmc_ens *e = NULL;
    if (latmc_ens_create(ctx, &d, &l, &e) != LATMC_OK)
        fail_msg("%s", latmc_last_error());
    if (model == LATMC_MODEL_PHI4) /* g > 0: a normalisable weight at mu2 < 0 */
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
    double ladder[NT];
    for (int t = 0; t < NT; t++)
        ladder[t] = key == LATMC_PARAM_MU2 ? -0.6 + 0.05 * t : 0.3 + 0.05 * t;
    if (latmc_ens_set_ladder(e, key, ladder, NT) != LATMC_OK)
        fail_msg("%s", latmc_ens_last_error(e));
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    for (int m = 0; m < e->n_members; m++)
        e->members[m]->ops = &rec_ops;
    return e;
}

static void destroy(latmc_ens **e)
{
    for (int m = 0; m < (*e)->n_members; m++)
        (*e)->members[m]->ops = &latmc_cpu_backend_ops;
    latmc_ens_destroy(e);
}

static const unsigned batch_caps = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS;

/* The models whose members the CUDA module declares the exchange rounds for, and the
 * ladders' parameters its models move (cuda_<m>_temper.c). */
static const unsigned cuda_exchange_models =
    1u << LATMC_MODEL_ISING | 1u << LATMC_MODEL_HEISENBERG | 1u << LATMC_MODEL_PHI4;
static const unsigned cuda_ladder_keys = 1u << LATMC_PARAM_BETA | 1u << LATMC_PARAM_MU2;

/* Three sweeps of a fresh ensemble whose backend declares `caps` for every member and the
 * exchange rounds for the members of exchange_models: true when the device ran them
 * (state loaded, lists marked) and false when the host did (nothing loaded, no list
 * marked); never both. */
static bool device_rounds_keys(int model, int key, unsigned caps, unsigned exchange_models,
                               unsigned ladder_keys, bool host_forced)
{
    memset(&rec, 0, sizeof rec);
    rec.caps = caps;
    rec.exchange_models = exchange_models;
    rec.ladder_keys = ladder_keys;
    latmc_ens *e = gate_ensemble(model, key);
    if (host_forced)
        assert_int_equal(setenv("LATMC_ENS_HOST_ROUNDS", "1", 1), 0);
    if (latmc_ens_sweep(e, 3) != LATMC_OK)
        fail_msg("%s", latmc_ens_last_error(e));
    unsetenv("LATMC_ENS_HOST_ROUNDS");
    const bool dev = rec.loads > 0;
    if (dev) {
        assert_int_equal(rec.loads, 1);
        assert_true(rec.device_lists > 0);
        assert_int_equal(rec.host_lists, 0);
        /* the ladder's parameter, its values and its factor in Delta went with the state */
        assert_int_equal(rec.ladder_key, key);
        assert_true(rec.scale == (key == LATMC_PARAM_MU2 ? 0.5 : 1.0));
        double values[NT];
        int got = -1;
        assert_int_equal(latmc_ens_get_ladder(e, &got, values, NT), LATMC_OK);
        assert_memory_equal(rec.ladder, values, sizeof values);
    } else {
        assert_int_equal(rec.device_lists, 0);
    }
    destroy(&e);
    return dev;
}

static bool device_rounds(int model, int key, unsigned caps, unsigned exchange_models,
                          bool host_forced)
{
    return device_rounds_keys(model, key, caps, exchange_models, cuda_ladder_keys,
                              host_forced);
}

static void beta_ladders_of_ising_and_heisenberg_on_the_device(void **state)
{
    (void)state;
    assert_true(device_rounds(LATMC_MODEL_ISING, LATMC_PARAM_BETA, batch_caps,
                              cuda_exchange_models, false));
    assert_true(device_rounds(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA, batch_caps,
                              cuda_exchange_models, false));
}

/* phi^4 (the only model with a mu2 ladder; it has no beta): its members take the device's
 * rounds where the backend declares them and moves mu2 ladders, with the factor 1/2. */
static void mu2_ladders_of_phi4_on_the_device(void **state)
{
    (void)state;
    assert_true(device_rounds(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, batch_caps,
                              cuda_exchange_models, false));
    assert_int_equal(rec.declined, 0);
}

/* Potts: batches, but no exchange rounds declared for its members (as on CUDA); phi^4 of a
 * backend that moves beta ladders only: it declines the load at every call, and the host's
 * rounds run (nothing left on the device). */
static void other_models_on_the_host(void **state)
{
    (void)state;
    assert_false(device_rounds(LATMC_MODEL_POTTS, LATMC_PARAM_BETA, batch_caps,
                               cuda_exchange_models, false));
    assert_false(device_rounds(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, batch_caps, 0u, false));
    assert_false(device_rounds_keys(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, batch_caps, ~0u,
                                    1u << LATMC_PARAM_BETA, false));
    assert_true(rec.declined > 0);
    assert_true(rec.host_lists > 0);
}

/* The capability decides, not the model: Potts members of a backend that declared the
 * exchange rounds for them take the device's. */
static void the_capability_decides(void **state)
{
    (void)state;
    assert_true(device_rounds(LATMC_MODEL_POTTS, LATMC_PARAM_BETA, batch_caps,
                              cuda_exchange_models | 1u << LATMC_MODEL_POTTS, false));
}

static void no_device_rounds_without_the_capability(void **state)
{
    (void)state;
    assert_false(device_rounds(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA, batch_caps, 0u, false));
    assert_false(device_rounds(LATMC_MODEL_ISING, LATMC_PARAM_BETA, batch_caps, 0u, false));
}

static void host_rounds_forced(void **state)
{
    (void)state;
    assert_false(device_rounds(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA, batch_caps,
                               cuda_exchange_models, true));
    assert_false(device_rounds(LATMC_MODEL_ISING, LATMC_PARAM_BETA, batch_caps,
                               cuda_exchange_models, true));
    assert_false(device_rounds(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, batch_caps,
                               cuda_exchange_models, true));
}

/* Members whose parameters other than the ladder's differ (one member's field; phi^4: its
 * g): the device's round takes member 0's J and h for all, its moves a temperature's
 * part for all its members, so the host's rounds run (nothing loaded). Three models. */
static void unlike_members_on_the_host(void **state)
{
    (void)state;
    const int models[] = { LATMC_MODEL_ISING, LATMC_MODEL_HEISENBERG, LATMC_MODEL_PHI4 };
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        const bool phi4 = models[k] == LATMC_MODEL_PHI4;
        memset(&rec, 0, sizeof rec);
        rec.caps = batch_caps;
        rec.exchange_models = cuda_exchange_models;
        rec.ladder_keys = cuda_ladder_keys;
        latmc_ens *e = gate_ensemble(models[k], phi4 ? LATMC_PARAM_MU2 : LATMC_PARAM_BETA);
        assert_int_equal(latmc_sim_set_param(e->members[M - 1],
                                             phi4 ? LATMC_PARAM_G : LATMC_PARAM_H, 0.125),
                         LATMC_OK);
        if (latmc_ens_sweep(e, 3) != LATMC_OK)
            fail_msg("%s", latmc_ens_last_error(e));
        assert_int_equal(rec.loads, 0);
        assert_int_equal(rec.device_lists, 0);
        assert_true(rec.host_lists > 0);
        destroy(&e);
    }
}

/* Device rounds, then the host's forced: the map is fetched before the host's first round,
 * and loaded again once the switch is off. */
static void switching_fetches_then_loads(void **state)
{
    (void)state;
    memset(&rec, 0, sizeof rec);
    rec.caps = batch_caps;
    rec.exchange_models = cuda_exchange_models;
    rec.ladder_keys = cuda_ladder_keys;
    latmc_ens *e = gate_ensemble(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA);
    assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
    assert_int_equal(rec.loads, 1);
    assert_int_equal(rec.fetches, 0);
    assert_int_equal(setenv("LATMC_ENS_HOST_ROUNDS", "1", 1), 0);
    assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
    unsetenv("LATMC_ENS_HOST_ROUNDS");
    assert_int_equal(rec.fetches, 1);
    assert_int_equal(rec.loads, 1);
    assert_true(rec.host_lists > 0);
    uint64_t count = 0;
    assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
    assert_int_equal(count, 4);
    assert_int_equal(latmc_ens_sweep(e, 1), LATMC_OK);
    assert_int_equal(rec.loads, 2);
    destroy(&e);
}

/* A device list fails while the map is on the device (after a call of device rounds that
 * moved it): the call fails with the list's error, and the ensemble stays usable -- its map
 * read, the ladder set again, the next call loading the state again. Where the failure
 * lost the backend's state (as the CUDA module's failed lists do), the host's copy of the
 * load stands (the members' parameters are still those of that map: they lag the
 * device's); where the backend still holds it (a list refused before it ran), its map
 * comes back. phi^4 with its mu2 ladder, and Heisenberg with beta. Also the second list of
 * a loading call refused, the first having moved the map: the device's map comes back. */
static void failed_list_leaves_the_ensemble_usable(void **state)
{
    (void)state;
    const int models[] = { LATMC_MODEL_PHI4, LATMC_MODEL_HEISENBERG };
    for (size_t k = 0; k < 2 * sizeof models / sizeof models[0]; k++) {
        const int model = models[k / 2];
        const bool kills = k % 2 == 0;
        const int key = model == LATMC_MODEL_PHI4 ? LATMC_PARAM_MU2 : LATMC_PARAM_BETA;
        memset(&rec, 0, sizeof rec);
        rec.caps = batch_caps;
        rec.exchange_models = cuda_exchange_models;
        rec.ladder_keys = cuda_ladder_keys;
        rec.permute = true;
        latmc_ens *e = gate_ensemble(model, key);
        int at_load[M];
        for (int m = 0; m < M; m++)
            assert_int_equal(latmc_ens_temperature_of(e, m, &at_load[m]), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
        assert_int_equal(rec.loads, 1);
        int32_t on_device[M];
        memcpy(on_device, rec.temp_of, sizeof on_device);
        assert_true(on_device[rec.member_at[0]] != at_load[rec.member_at[0]]); /* it moved */
        rec.fail_status = kills ? LATMC_EDEVICE : LATMC_EINVAL;
        rec.fail_kills = kills;
        assert_int_equal(latmc_ens_sweep(e, 1), kills ? LATMC_EDEVICE : LATMC_EINVAL);
        assert_non_null(strstr(latmc_ens_last_error(e), "the recorder's list failed"));
        double ladder[NT];
        int got = -1;
        assert_int_equal(latmc_ens_get_ladder(e, &got, ladder, NT), LATMC_OK);
        for (int m = 0; m < M; m++) {
            int t = -1;
            double value = -1;
            if (latmc_ens_temperature_of(e, m, &t) != LATMC_OK)
                fail_msg("%s", latmc_ens_last_error(e));
            assert_int_equal(t, kills ? at_load[m] : on_device[m]);
            assert_int_equal(latmc_sim_get_param(e->members[m], key, &value), LATMC_OK);
            assert_true(value == ladder[t]);
        }
        uint64_t count = 0;
        assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
        assert_int_equal(count, 2);
        assert_int_equal(latmc_ens_set_ladder(e, key, ladder, NT), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 1), LATMC_OK);
        assert_int_equal(rec.loads, 2);
        destroy(&e);
    }
    /* a loading call of 40 rounds (more than one list): its first list runs, the second
     * is refused with the state kept */
    memset(&rec, 0, sizeof rec);
    rec.caps = batch_caps;
    rec.exchange_models = cuda_exchange_models;
    rec.ladder_keys = cuda_ladder_keys;
    rec.permute = true;
    rec.fail_status = LATMC_EINVAL;
    rec.fail_after = 1;
    latmc_ens *e = gate_ensemble(LATMC_MODEL_PHI4, LATMC_PARAM_MU2);
    assert_int_equal(latmc_ens_sweep(e, 40), LATMC_EINVAL);
    assert_int_equal(rec.loads, 1);
    assert_int_equal(rec.device_lists, 2);
    assert_int_equal(rec.temp_of[rec.member_at[0]], 0);
    assert_int_equal(rec.member_at[0], 1); /* the first list's swap: member 1 now at 0 */
    for (int m = 0; m < M; m++) {
        int t = -1;
        assert_int_equal(latmc_ens_temperature_of(e, m, &t), LATMC_OK);
        assert_int_equal(t, rec.temp_of[m]);
    }
    destroy(&e);
}

/* The attempts per pair of the rounds numbered 0 .. n_rounds - 1 (round r offers the pairs
 * t = r mod 2, t + 2, ... in each of the NS * NR chains). */
static uint64_t attempts_of(int t, uint64_t n_rounds)
{
    return (uint64_t)(NS * NR) * ((n_rounds + 1 - (uint64_t)t % 2) / 2);
}

/* A call of several lists whose second fails, after a call that ran three rounds: where
 * the backend keeps its state (the list refused before it ran) the fetched statistics hold
 * the accepted swaps of the first list's 32 rounds, and the host counts their attempts
 * (the recorder accepts every offered pair: the attempts equal the accepted swaps, those
 * of the 3 + 32 rounds that ran); where the failure took the state (as CUDA's), the
 * accepted swaps since the load are lost and the attempts stay those of the first call.
 * Either way the ensemble saves, and the file loads with the same statistics. */
static void failed_later_list_counts_its_attempts(void **state)
{
    (void)state;
    for (int kills = 0; kills < 2; kills++) {
        memset(&rec, 0, sizeof rec);
        rec.caps = batch_caps;
        rec.exchange_models = cuda_exchange_models;
        rec.ladder_keys = cuda_ladder_keys;
        rec.permute = true;
        latmc_ens *e = gate_ensemble(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA);
        assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
        rec.fail_status = kills ? LATMC_EDEVICE : LATMC_EINVAL;
        rec.fail_kills = kills;
        rec.fail_after = 1;
        assert_int_equal(latmc_ens_sweep(e, 40), kills ? LATMC_EDEVICE : LATMC_EINVAL);
        assert_int_equal(rec.device_lists, 3); /* the first call's, and two of this one's */
        assert_non_null(strstr(latmc_ens_last_error(e), "the recorder's list failed"));
        const uint64_t ran = kills ? 0 : 3 + 32; /* the rounds whose swaps the map holds */
        uint64_t acc[NT - 1], att[NT - 1];
        assert_int_equal(latmc_ens_exchange_counts(e, acc, att, NT - 1), LATMC_OK);
        for (int t = 0; t + 1 < NT; t++) {
            assert_true(att[t] >= acc[t]);
            assert_true(acc[t] == attempts_of(t, ran));
            assert_true(att[t] == attempts_of(t, kills ? 3 : ran));
        }
        char dir[] = "/tmp/latmc_test_temper_gate_XXXXXX";
        assert_non_null(mkdtemp(dir));
        char path[256];
        snprintf(path, sizeof path, "%s/ens.lat", dir);
        if (latmc_ens_save(e, path) != LATMC_OK)
            fail_msg("%s", latmc_ens_last_error(e));
        latmc_ens *back = NULL;
        if (latmc_ens_load(ctx, path, &back) != LATMC_OK)
            fail_msg("%s", latmc_last_error());
        uint64_t acc2[NT - 1], att2[NT - 1];
        assert_int_equal(latmc_ens_exchange_counts(back, acc2, att2, NT - 1), LATMC_OK);
        assert_true(back->rt_start[rec.member_at[0]] <= 3); /* the trip of the list that ran */
        assert_memory_equal(acc2, acc, sizeof acc);
        assert_memory_equal(att2, att, sizeof att);
        latmc_ens_destroy(&back);
        assert_int_equal(remove(path), 0);
        assert_int_equal(rmdir(dir), 0);
        /* and it goes on: the state loaded again */
        assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
        assert_int_equal(rec.loads, 2);
        destroy(&e);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(beta_ladders_of_ising_and_heisenberg_on_the_device),
        cmocka_unit_test(mu2_ladders_of_phi4_on_the_device),
        cmocka_unit_test(other_models_on_the_host),
        cmocka_unit_test(the_capability_decides),
        cmocka_unit_test(no_device_rounds_without_the_capability),
        cmocka_unit_test(host_rounds_forced),
        cmocka_unit_test(unlike_members_on_the_host),
        cmocka_unit_test(switching_fetches_then_loads),
        cmocka_unit_test(failed_list_leaves_the_ensemble_usable),
        cmocka_unit_test(failed_later_list_counts_its_attempts),
    };
    return cmocka_run_group_tests_name("ens_temper_gate", tests, setup, teardown);
}
