/*
 * Which ensembles take the device's exchange rounds (lib/ens_temper.c,
 * latmc_ens_temper_sweep; doc/ensembles.md "Tempering on the device"). A recording backend
 * (the CPU's ops with step_caps, run_steps and ens_temper replaced, put on the members of
 * a CPU ensemble) stands for the device, so the gate is checked on any machine. It
 * declares LATMC_STEP_CAP_BATCH_EXCHANGE per model as the CUDA module does (Ising and
 * Heisenberg members only, backends/cuda/ensembles/ens_batch_steps.c), or as a test says:
 * Ising and Heisenberg members with a beta ladder have the state loaded once and get lists
 * marked device_map; Potts members (beta ladder, no capability declared for them), phi^4
 * members (mu2 ladder, even with the capability), a backend without the capability,
 * members whose other parameters differ, and any of them with LATMC_ENS_HOST_ROUNDS=1 keep
 * the host's rounds (lists without device_map, nothing loaded), the map on the device
 * fetched first where it was there. The gate follows the capability, not a list of
 * models: Potts members whose backend declared it would take the device's rounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "backend.h"
#include "ens_internal.h"
#include "internal.h"

enum { NS = 2, NT = 4, NR = 1, M = NS * NT * NR, L = 8 }; /* 8: phi^4's colouring too */

static struct {
    unsigned caps;            /* every member's */
    unsigned exchange_models; /* bit m: model m's members add LATMC_STEP_CAP_BATCH_EXCHANGE */
    int loads, fetches, device_lists, host_lists;
    int32_t member_at[M], temp_of[M]; /* the map as loaded (a fetch gives it back) */
} rec;

static unsigned rec_caps(latmc_sim *sim)
{
    const bool exchange = (rec.exchange_models >> sim->desc.model) & 1u;
    return rec.caps | (exchange ? LATMC_STEP_CAP_BATCH_EXCHANGE : 0u);
}

static int rec_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                         uint64_t *accepted, uint64_t *attempted)
{
    (void)sim;
    (void)accepted;
    (void)attempted;
    for (int c = 1; c < n_calls; c++) /* a list is one kind or the other */
        assert_int_equal(calls[c].device_map, calls[0].device_map);
    if (calls[0].device_map)
        rec.device_lists++;
    else
        rec.host_lists++;
    return LATMC_OK; /* the members' spins stay as they were: the gate is tested */
}

static int rec_ens_temper(latmc_sim *const *members, int n, struct latmc_ens_temper *job)
{
    (void)members;
    assert_int_equal(n, M);
    if (job->what == LATMC_ENS_TEMPER_LOAD) {
        rec.loads++;
        memcpy(rec.member_at, job->member_at, sizeof rec.member_at);
        memcpy(rec.temp_of, job->temp_of, sizeof rec.temp_of);
    } else {
        rec.fetches++;
        memcpy(job->member_at, rec.member_at, sizeof rec.member_at);
        memcpy(job->temp_of, rec.temp_of, sizeof rec.temp_of);
    }
    return LATMC_OK;
}

static struct latmc_backend_ops rec_ops;
static latmc_ctx *ctx;

static int setup(void **state)
{
    (void)state;
    rec_ops = latmc_cpu_backend_ops;
    rec_ops.step_caps = rec_caps;
    rec_ops.run_steps = rec_run_steps;
    rec_ops.ens_temper = rec_ens_temper;
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

/* The models whose members the CUDA module declares the exchange rounds for. */
static const unsigned cuda_exchange_models =
    1u << LATMC_MODEL_ISING | 1u << LATMC_MODEL_HEISENBERG;

/* Three sweeps of a fresh ensemble whose backend declares `caps` for every member and the
 * exchange rounds for the members of exchange_models: true when the device ran them
 * (state loaded, lists marked) and false when the host did (nothing loaded, no list
 * marked); never both. */
static bool device_rounds(int model, int key, unsigned caps, unsigned exchange_models,
                          bool host_forced)
{
    memset(&rec, 0, sizeof rec);
    rec.caps = caps;
    rec.exchange_models = exchange_models;
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
    } else {
        assert_int_equal(rec.device_lists, 0);
    }
    destroy(&e);
    return dev;
}

static void beta_ladders_of_ising_and_heisenberg_on_the_device(void **state)
{
    (void)state;
    assert_true(device_rounds(LATMC_MODEL_ISING, LATMC_PARAM_BETA, batch_caps,
                              cuda_exchange_models, false));
    assert_true(device_rounds(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA, batch_caps,
                              cuda_exchange_models, false));
}

/* Potts: batches, but no exchange rounds declared for its members (as on CUDA); phi^4: a
 * mu2 ladder, whatever the backend declares. */
static void other_models_on_the_host(void **state)
{
    (void)state;
    assert_false(device_rounds(LATMC_MODEL_POTTS, LATMC_PARAM_BETA, batch_caps,
                               cuda_exchange_models, false));
    assert_false(device_rounds(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, batch_caps, ~0u, false));
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
}

/* Members whose parameters other than the ladder's differ (one member's field): the
 * device's round takes member 0's J and h for all, so the host's rounds run (nothing
 * loaded). Both models. */
static void unlike_members_on_the_host(void **state)
{
    (void)state;
    const int models[] = { LATMC_MODEL_ISING, LATMC_MODEL_HEISENBERG };
    for (size_t k = 0; k < sizeof models / sizeof models[0]; k++) {
        memset(&rec, 0, sizeof rec);
        rec.caps = batch_caps;
        rec.exchange_models = cuda_exchange_models;
        latmc_ens *e = gate_ensemble(models[k], LATMC_PARAM_BETA);
        assert_int_equal(latmc_sim_set_param(e->members[M - 1], LATMC_PARAM_H, 0.125),
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(beta_ladders_of_ising_and_heisenberg_on_the_device),
        cmocka_unit_test(other_models_on_the_host),
        cmocka_unit_test(the_capability_decides),
        cmocka_unit_test(no_device_rounds_without_the_capability),
        cmocka_unit_test(host_rounds_forced),
        cmocka_unit_test(unlike_members_on_the_host),
        cmocka_unit_test(switching_fetches_then_loads),
    };
    return cmocka_run_group_tests_name("ens_temper_gate", tests, setup, teardown);
}
