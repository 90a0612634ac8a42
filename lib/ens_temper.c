/*
 * Parallel tempering on the device (doc/ensembles.md, "Tempering on the device"): where
 * the members' backend runs the exchange rounds itself (LATMC_STEP_CAP_BATCH_EXCHANGE: CUDA
 * Ising and Heisenberg members with a beta ladder, phi^4 members with a mu2 ladder;
 * LATMC_ENS_HOST_ROUNDS=1 keeps the host's), the map (member_at, temp_of), the acceptance
 * per pair and the round trips are loaded onto the device once (a LATMC_STEP_TEMPER_STATE
 * request, LATMC_ENS_TEMPER_LOAD), and latmc_ens_sweep runs the sweeps and their rounds as
 * the batch's plan (lib/ens_exec.c, latmc_plan_sweep_batch_rounds: each
 * round a step of the batch); the state stays on the device between calls. The rule is the
 * host's (lib/ens_exchange_rule.h), the draws the same, so the chain is the one
 * lib/ens_exchange.c gives, bit for bit.
 *
 * The host learns the map only when something reads it: latmc_ens_sync, called by every
 * function that reads the map, the statistics, a member's parameters or its state, fetches
 * it and moves the members' parameters to their temperatures with the swaps of the host
 * round (latmc_ens_swap_ladder_values: tables exchanged, no upload per member).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ens_internal.h"
#include "plan.h"
#include "rng_streams.h"

/* The tempering state's load or fetch (job->what) by the members' backend (the member
 * lanes': by their device's ops.ens_lanes, lib/ens_lanes.c). */
static int temper_state(latmc_ens *e, struct latmc_ens_temper *job)
{
    const struct latmc_batch_request request = { .temper = job };
    const int st = e->lanes ? latmc_ens_lanes_temper(e, job)
                            : latmc_plan_batch_request(e->members, e->n_members,
                                                       LATMC_STEP_TEMPER_STATE, &request);
    /* the map on the device and its backend no longer offering the request: no message
     * would say why (the capabilities change only through latmc_ens_sync, which fetches
     * first) */
    if (st == LATMC_EUNSUPPORTED && job->what == LATMC_ENS_TEMPER_FETCH)
        return latmc_fail(LATMC_ESTATE, "the members' backend no longer takes the tempering "
                          "state's fetch");
    return st;
}

static void fill_job(latmc_ens *e, struct latmc_ens_temper *job, int what, int *member_at,
                     int *temp_of)
{
    memset(job, 0, sizeof *job);
    job->what = what;
    job->n_samples = e->layout.n_samples;
    job->n_temperatures = e->layout.n_temperatures;
    job->n_replicas = e->layout.n_replicas;
    job->seed = e->layout.seed;
    job->stream = latmc_rng_stream(LATMC_STREAM_ENS_EXCHANGE, 0);
    job->ladder = e->beta;
    job->ladder_key = e->ladder_key; /* the backend declines a parameter it does not move */
    job->scale = latmc_ens_ladder_scale(e);
    job->member_at = member_at;
    job->temp_of = temp_of;
    job->rt_dir = e->rt_dir;
    job->rt_start = e->rt_start;
    job->pair_accepted = e->pair_accepted;
    job->rt_count = &e->rt_count;
    job->rt_sum_sweeps = &e->rt_sum_sweeps;
}

/* The members' parameters other than the ladder's agree (the device's energies take
 * member 0's J and h, its moves the part of a temperature -- thresholds, tables, beta,
 * phi^4's coefficients -- for all the members at it). */
static bool members_alike(const latmc_ens *e)
{
    for (int m = 1; m < e->n_members; m++)
        if (!latmc_ens_params_alike(e->members[0], e->members[m], e->ladder_key))
            return false;
    return true;
}

/* LATMC_ENS_HOST_ROUNDS=1 (lib/env_switches.c, doc/environment.md): the host's rounds
 * wherever the device could run them; read at every call, so that one process can time
 * or compare both (an ensemble whose map is on the device fetches it and goes on). */
static bool host_rounds_forced(void)
{
    const char *v = getenv("LATMC_ENS_HOST_ROUNDS");
    return v && strcmp(v, "1") == 0;
}

/* The attempts of n_rounds rounds from round number `first`: they do not depend on the
 * chain (every offered pair is one), so the host counts them; the rounds alternate two
 * pair sets (lib/ens_exchange.c). */
static void count_attempts(latmc_ens *e, uint64_t first, uint64_t n_rounds)
{
    const int nT = e->layout.n_temperatures;
    const uint64_t chains = (uint64_t)e->layout.n_samples * (uint64_t)e->layout.n_replicas;
    for (uint64_t k = 0; k < n_rounds && k < 2; k++)
        for (int t = (int)((first + k) % 2); t + 1 < nT; t += 2)
            e->pair_attempted[t] += chains * ((n_rounds - k + 1) / 2);
}

/*
 * A device list failed after the state was loaded (by this call or an earlier one), the
 * call's earlier lists having run `rounds_run` rounds: the map fetched where the backend
 * still holds it (a list refused before it ran: the rounds of the call's earlier lists
 * come with it, their accepted swaps too, so their attempts are counted here -- never
 * fewer attempts than accepted swaps, which latmc_ens_load would reject -- though not into
 * the round count nor the sweep count, so the next call's rounds draw their numbers again
 * and a round trip that began in them begins at the sweep count; the backend's fetch
 * makes its table follow the members again); else (its state went with the failure: the
 * CUDA module drops it, its cuda_temper.c) the host's copy of the load stands -- its map,
 * and the members' parameters, which lag the device's map, are that copy's, so the
 * ensemble goes on from there, the rounds since the load lost (their accepted swaps and
 * round trips; the round count and the attempts of the calls that succeeded stay; the
 * failed call's rounds add nothing), and the next call loads again. Without this every
 * later sync would ask the backend for a state it no longer has, and the ensemble could
 * not even be saved. The list's error stays the call's.
 */
static int device_map_lost(latmc_ens *e, int status, uint64_t rounds_run)
{
    char why[LATMC_ERRMSG_SIZE];
    snprintf(why, sizeof why, "%s", e->errmsg);
    e->map_on_device = true; /* loaded: the backend's copy is the newer one, if any */
    if (latmc_ens_sync_map(e) < 0) {
        e->map_on_device = false;
        latmc_log(e->ctx, LATMC_LOG_WARN, "ensemble: the device's tempering state was lost "
                  "with a failed call: the map as loaded stands (the rounds since, lost)");
    } else {
        count_attempts(e, e->rounds, rounds_run);
        /* a trip that began in those rounds began past the host's sweep count, which the
         * next call's rounds start from again: it starts there (else its length would wrap
         * around, and latmc_ens_load rejects a start past the sweeps) */
        for (int m = 0; m < e->n_members; m++)
            if (e->rt_start[m] > e->sweeps)
                e->rt_start[m] = e->sweeps;
    }
    snprintf(e->errmsg, sizeof e->errmsg, "%s", why);
    return latmc_fail(status, "%s", why);
}

/* Which members take the device's rounds is the backend's to say, by member 0's
 * capabilities (LATMC_STEP_CAP_BATCH_EXCHANGE: the CUDA module declares it for Ising,
 * Heisenberg and small phi^4 members, whose moves along the ladder it makes in its own
 * table of the members), not a list of models here; the ladder's parameter goes with the
 * state (job.ladder_key, job.scale: beta, or phi^4's mu2), and a backend that does not
 * move its members along it declines the load. */
int latmc_ens_temper_sweep(latmc_ens *e, uint64_t n)
{
    const unsigned need = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS |
                          LATMC_STEP_CAP_BATCH_EXCHANGE;
    if (e->every == 0 || n == 0 || e->layout.n_temperatures < 2 || host_rounds_forced())
        return LATMC_EUNSUPPORTED;
    /* the member lanes (lib/ens_lanes.c): where their words live on a device, whose
     * ops.ens_lanes may run the rounds; the batches: by member 0's capabilities */
    if (e->lanes) {
        const int st = latmc_ens_lanes_temper_ready(e);
        if (st != LATMC_OK)
            return st;
    } else if (!ens_batch_ops(e) || (latmc_plan_step_caps(e->members[0]) & need) != need) {
        return LATMC_EUNSUPPORTED;
    }
    const bool load = !e->map_on_device;
    if (load) {
        /* the host's state onto the device, once per stretch of device rounds (the member
         * lanes' host rounds' lag ended first: the members at the map's temperatures; a
         * lag moves the ladder's parameter alone) */
        if (!members_alike(e))
            return LATMC_EUNSUPPORTED;
        int st = e->lanes ? latmc_ens_sync_map(e) : LATMC_OK;
        if (st < 0)
            return st;
        struct latmc_ens_temper job;
        fill_job(e, &job, LATMC_ENS_TEMPER_LOAD, e->member_at, e->temp_of);
        st = temper_state(e, &job);
        if (st == LATMC_EUNSUPPORTED)
            return st;
        if (st < 0)
            return ENS_FAIL(e, st, "latmc_ens_sweep: loading the tempering state onto the "
                            "device: %s", latmc_last_error());
    }
    const struct latmc_batch_rounds rounds = { e->every, e->sweeps, e->rounds };
    uint64_t rounds_run = 0;
    const int st = latmc_ens_exec_temper(e, n, &rounds, &rounds_run);
    if (st == LATMC_EUNSUPPORTED)
        return st; /* nothing done, the map where it was */
    if (st < 0)
        return device_map_lost(e, st, rounds_run);
    const uint64_t n_rounds = latmc_batch_rounds_in(&rounds, n);
    count_attempts(e, e->rounds, n_rounds);
    if (load)
        latmc_log(e->ctx, LATMC_LOG_DEBUG, "ensemble: exchange rounds on the device from "
                  "round %llu", (unsigned long long)e->rounds);
    e->sweeps += n;
    e->rounds += n_rounds;
    e->map_on_device = true;
    return LATMC_OK;
}

int latmc_ens_sync(latmc_ens *e)
{
    latmc_ens_exec_settle(e); /* the members' own counts and sums (lib/ens_exec.c) */
    const int st = latmc_ens_sync_map(e);
    /* and the members' configurations where the member lanes hold newer ones */
    return st == LATMC_OK ? latmc_ens_lanes_flush(e) : st;
}

/*
 * Each member to its temperature in `at` (slot -> member), from the arrangement the members
 * hold (cur_at, cur_temp: moved along): the member that should hold the ladder's value t
 * (beta[t], or mu2) takes it from the one that holds it now (one swap each, the host
 * round's own move; the backend's part of the moves in one call at the end).
 */
static void move_members(latmc_ens *e, const int *at, int *cur_at, int *cur_temp)
{
    const int nT = e->layout.n_temperatures, nR = e->layout.n_replicas;
    latmc_ens_swaps_begin(&e->swaps, e->members, e->n_members, e->ladder_key);
    for (int s = 0; s < e->layout.n_samples; s++)
        for (int r = 0; r < nR; r++)
            for (int t = 0; t < nT; t++) {
                const int i = ens_slot_index(e, s, t, r);
                const int x = at[i], y = cur_at[i], tx = cur_temp[x];
                if (x == y)
                    continue;
                latmc_ens_swap_ladder_values(&e->swaps, x, y, e->beta[t], e->beta[tx]);
                latmc_ens_lanes_params_changed(e, x);
                latmc_ens_lanes_params_changed(e, y);
                cur_at[i] = x;
                cur_at[ens_slot_index(e, s, tx, r)] = y;
                cur_temp[x] = t;
                cur_temp[y] = tx;
            }
    latmc_ens_swaps_end(&e->swaps);
}

int latmc_ens_sync_device_map(latmc_ens *e)
{
    if (!e->map_on_device)
        return LATMC_OK;
    const int M = e->n_members, nT = e->layout.n_temperatures;
    int *at = malloc(2 * (size_t)M * sizeof *at);
    if (!at)
        return ENS_FAIL(e, LATMC_ENOMEM, "ensemble: cannot allocate the map of %d members", M);
    int *temp = at + M;
    struct latmc_ens_temper job;
    fill_job(e, &job, LATMC_ENS_TEMPER_FETCH, at, temp);
    int st = temper_state(e, &job);
    if (st < 0) {
        free(at);
        return ENS_FAIL(e, st, "ensemble: reading the tempering state from the device: %s",
                        latmc_last_error());
    }
    /* a permutation within each (sample, replica) chain, or nothing is moved */
    for (int m = 0; m < M && st == LATMC_OK; m++)
        if (temp[m] < 0 || temp[m] >= nT ||
            at[ens_slot_index(e, ens_sample_of(e, m), temp[m], ens_replica_of(e, m))] != m)
            st = ENS_FAIL(e, LATMC_ESTATE, "ensemble: the device's temperature map is not a "
                          "permutation (member %d)", m);
    if (st == LATMC_OK)
        move_members(e, at, e->member_at, e->temp_of);
    free(at);
    if (st == LATMC_OK)
        e->map_on_device = false;
    return st;
}

int latmc_ens_sync_map(latmc_ens *e)
{
    const int st = latmc_ens_sync_device_map(e);
    if (st < 0 || !e->map_lagging)
        return st;
    /* the member lanes' rounds since the lag began: the members to the map's temperatures */
    move_members(e, e->member_at, e->applied_at, e->applied_temp);
    e->map_lagging = false;
    return LATMC_OK;
}
