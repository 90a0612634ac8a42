/*
 * How an ensemble's members execute: the one place that knows. Today each member is its
 * own sim; CPU members run on OpenMP threads, one member per thread at a time, each member
 * single-threaded (n_threads 1) with its SIMD kernels. Members are independent chains with
 * their own random numbers, so the result is the same for any thread count and schedule.
 * Calls with less work than a thread team is worth (ENS_OMP_MIN_ITEMS) run on the calling
 * thread. Members on a backend that runs them as a batch of the plan (ops.run_steps with
 * LATMC_STEP_CAP_BATCH: CUDA Ising, Heisenberg, Potts and phi^4 of a local update, small
 * Swendsen-Wang and Wolff Ising and Potts members) run together, one launch per step for
 * all of them (or its fused multi-sweep kernels); members the backend does not batch (the
 * embedded clusters, Swendsen-Wang and Wolff members made with LATMC_ENS_SW_BATCH=0 or
 * that its batch does not take) run one after the other (one launch per member
 * and step, correct but slow).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ens_internal.h"
#include "thread_probe.h"
#include "model.h"
#include "params.h"
#include "part.h"
#include "plan.h"
#include "rng_streams.h"

#ifdef _OPENMP
#  include <omp.h>
#  define ENS_PRAGMA_(x) _Pragma(#x)
#  define ENS_OMP(x) ENS_PRAGMA_(omp x)
#else
#  define ENS_OMP(x)
#endif

int latmc_ens_resolve_threads(int requested)
{
#ifdef _OPENMP
    return requested > 0 ? requested : omp_get_max_threads();
#else
    (void)requested;
    return 1;
#endif
}

/*
 * Below this many site updates (or measured sites) per call a thread team costs more than
 * it saves: waking it costs microseconds on idle cores, and its threads then spin on the
 * cores while the caller works between calls (a tempering loop with small members calls
 * once per sweep). As in backends/cpu/cpu_omp.h; only speed depends on it.
 */
#define ENS_OMP_MIN_ITEMS 32768.0

/* Threads for `items` site updates over this ensemble's members: host threads only where
 * every member runs on the CPU (a device's sims share one device and its streams). */
static int member_threads(const latmc_ens *e, double items)
{
    if (e->members[0]->ops != &latmc_cpu_backend_ops || items < ENS_OMP_MIN_ITEMS)
        return 1;
    return e->layout.n_threads < e->n_members ? e->layout.n_threads : e->n_members;
}

/* Can this thread have a team of nt (thread_probe.h)? Else the ensemble's failure. */
static int team_refused(latmc_ens *e, int nt, const char *what)
{
    const int st = latmc_team_ready(nt);
    if (st == LATMC_OK)
        return LATMC_OK;
    char why[LATMC_ERRMSG_SIZE];
    snprintf(why, sizeof why, "%s", latmc_thread_error());
    return ENS_FAIL(e, st, "%s: the team over members: %s", what, why);
}

/* The lowest failing member's code, its message recorded on the ensemble. */
static int first_failure(latmc_ens *e, const char *what)
{
    for (int m = 0; m < e->n_members; m++)
        if (e->status[m] < 0)
            return ENS_FAIL(e, e->status[m], "%s: member %d: %s", what, m,
                            latmc_sim_last_error(e->members[m]));
    return LATMC_OK;
}

/*
 * The members' bookkeeping of latmc_sim_sweep for the batched calls so far (their sweeps,
 * accepted and attempted counts, sums stale), kept by the ensemble until now (batch_done):
 * a short call then touches no member, where a pass over thousands of sims cost more than
 * the rest of the call's host work (4096 members: tens of microseconds). Every path that
 * reads or runs a member comes here first: latmc_ens_sync (every reader of the members,
 * the map, statistics, parameters, configurations and checkpoints), the host's rounds and
 * measurements, the members run one by one, the checks of every member.
 */
void latmc_ens_exec_settle(latmc_ens *e)
{
    if (!e->unsettled)
        return;
    const int M = e->n_members;
    const uint64_t lag = e->lag_sweeps;
    uint64_t *pending = e->pending, bound = 0;
    for (int m = 0; m < M; m++) {
        latmc_sim *sim = e->members[m];
        sim->sums_valid = false;
        sim->sweeps += lag;
        sim->accepted += pending[m];
        sim->attempted += pending[M + m];
        bound = sim->attempted > bound ? sim->attempted : bound;
    }
    memset(pending, 0, 2 * (size_t)M * sizeof *pending);
    e->lag_sweeps = 0;
    e->unsettled = false;
    e->attempted_bound = bound;
    e->attempted_known = true;
}

/*
 * The members' checks of latmc_sim_sweep for a batched call of n sweeps (a batch of the plan,
 * with or without its exchange rounds): LATMC_OK, or LATMC_EUNSUPPORTED where anything differs (the core then
 * runs the members one by one, and latmc_sim_sweep reports what it refuses). Touching
 * thousands of sims costs more than a short call's kernel, so after one full pass they
 * are done per member only where they can differ: parameters of phi^4 (mu2 ladders; its
 * joint check); the sweep counts and boxes stay in step while every call succeeds
 * (members_in_step; member 0's count is behind by lag_sweeps, as every member's). Also
 * makes the counts' arrays.
 */
static int batch_checks(latmc_ens *e, uint64_t n)
{
    const int M = e->n_members;
    const bool full = !e->members_in_step || e->desc.model == LATMC_MODEL_PHI4;
    if (full)
        latmc_ens_exec_settle(e);
    const uint64_t lag = e->lag_sweeps;
    for (int m = 0; m < (full ? M : 1); m++) {
        const latmc_sim *sim = e->members[m];
        const uint64_t max_sweeps = latmc_sim_max_sweeps(sim), done = sim->sweeps + lag;
        if (sim->plan->n_boxes > 1 || sim->sweeps != e->members[0]->sweeps ||
            done > max_sweeps || n > max_sweeps - done ||
            latmc_params_check_joint(sim->desc.model, sim->param) < 0)
            return LATMC_EUNSUPPORTED;
    }
    e->members_in_step = true;
    if (!e->counts && !(e->counts = calloc(2 * (size_t)M, sizeof *e->counts)))
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the counts of %d "
                        "members", M);
    if (!e->pending && !(e->pending = calloc(2 * (size_t)M, sizeof *e->pending)))
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the counts of %d "
                        "members", M);
    return LATMC_OK;
}

/* The members' sweep count before a batched call (all in step, batch_checks). */
static uint64_t batch_first(const latmc_ens *e)
{
    return e->members[0]->sweeps + e->lag_sweeps;
}

/*
 * Where a batched call of n sweeps adds its counts: straight into the pending ones where
 * the plan hands the backend one list (a failure then adds nothing, lib/box.h), else into
 * the call's own (zero between calls), added to the pending ones once the call succeeded,
 * so that a failed call counts nothing, as a failed latmc_sim_sweep.
 */
static uint64_t *batch_counts(latmc_ens *e, uint64_t n, const struct latmc_batch_rounds *rounds)
{
    return latmc_plan_batch_one_list(e->members[0], n, rounds) ? e->pending : e->counts;
}

/* After a batched call of n sweeps that answered st, its counts in `counts` (batch_counts):
 * the members' bookkeeping of latmc_sim_sweep (their sums stale whatever happened), kept by
 * the ensemble where the call succeeded (latmc_ens_exec_settle), and the ensemble's
 * failure. */
static int batch_done(latmc_ens *e, uint64_t n, int st, uint64_t *counts)
{
    const int M = e->n_members;
    uint64_t *pending = e->pending;
    if (st == LATMC_OK) {
        if (counts != pending) /* the call's counts into the pending ones, zero again */
            for (int m = 0; m < 2 * M; m++) {
                pending[m] += counts[m];
                counts[m] = 0;
            }
        uint64_t most = 0;
        for (int m = M; m < 2 * M; m++)
            most = pending[m] > most ? pending[m] : most;
        e->lag_sweeps += n;
        e->unsettled = true;
        if (!e->attempted_known) { /* once after the members ran otherwise */
            uint64_t bound = 0;
            for (int m = 0; m < M; m++)
                bound = e->members[m]->attempted > bound ? e->members[m]->attempted : bound;
            e->attempted_bound = bound;
            e->attempted_known = true;
        }
        /* past latmc_sim_sweep's bound (perhaps): latmc_ens_sweep checks every member next */
        if (e->attempted_bound > LATMC_SWEEP_MAX_ATTEMPTED ||
            most > LATMC_SWEEP_MAX_ATTEMPTED - e->attempted_bound)
            e->members_in_step = false;
        return st;
    }
    if (st != LATMC_EUNSUPPORTED) { /* the sums stale, nothing counted (as latmc_sim_sweep) */
        if (counts != pending)
            memset(counts, 0, 2 * (size_t)M * sizeof *counts);
        latmc_ens_exec_settle(e);
        for (int m = 0; m < M; m++)
            e->members[m]->sums_valid = false;
    }
    if (st < 0 && st != LATMC_EUNSUPPORTED) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return ENS_FAIL(e, st, "latmc_ens_sweep: batched sweep of the members: %s", why);
    }
    return st;
}

/*
 * The members as one batch of the core's plan (latmc_plan_sweep_batch: CUDA, one launch
 * per step over all members, or the fused multi-sweep kernels), the checks and
 * bookkeeping of latmc_sim_sweep done here for every member. LATMC_EUNSUPPORTED, with
 * nothing done: run the members one by one (a backend or model that does not batch them,
 * or anything latmc_sim_sweep would refuse, which it then reports). Host threads over
 * members do better on the CPU (latmc_ens_exec_sweeps).
 */
static int batched_sweeps(latmc_ens *e, uint64_t n)
{
    /* the CPU's members run on its host threads; a cluster sim whose backend does not run
     * its steps (an embedded cluster sim's core step after the plan:
     * lib/cluster_embed_sweep.c) sweeps one by one; one whose backend does
     * (lib/cluster_steps.c: CUDA Swendsen-Wang and Wolff) batches where its capabilities
     * say so, though the ensemble's other operations are not its but the measurement
     * (ens_batch_ops, ens_measure_batched) */
    const latmc_sim *lead = e->members[0];
    if (lead->ops == &latmc_cpu_backend_ops ||
        (latmc_cluster_algorithm(lead->desc.algorithm) && !latmc_cluster_as_steps(lead)) ||
        !(latmc_plan_step_caps(lead) & LATMC_STEP_CAP_BATCH))
        return LATMC_EUNSUPPORTED;
    int st = batch_checks(e, n);
    if (st < 0)
        return st;
    const int M = e->n_members;
    uint64_t *counts = batch_counts(e, n, NULL);
    st = latmc_plan_sweep_batch(e->members, M, batch_first(e), n, counts, counts + M);
    return batch_done(e, n, st, counts);
}

static int lanes_sweeps(latmc_ens *e, uint64_t n, const struct latmc_batch_rounds *rounds);

int latmc_ens_exec_temper(latmc_ens *e, uint64_t n, const struct latmc_batch_rounds *rounds,
                          uint64_t *rounds_run)
{
    *rounds_run = 0;
    if (e->lanes) { /* the member lanes' call with its rounds on their device */
        const int st = lanes_sweeps(e, n, rounds);
        *rounds_run = st == LATMC_OK ? latmc_batch_rounds_in(rounds, n) : 0;
        return st;
    }
    int st = batch_checks(e, n);
    if (st < 0)
        return st;
    const int M = e->n_members;
    uint64_t *counts = batch_counts(e, n, rounds);
    st = latmc_plan_sweep_batch_rounds(e->members, M, batch_first(e), n, rounds, counts,
                                       counts + M, rounds_run);
    if (st < 0 && st != LATMC_EUNSUPPORTED)
        e->members_in_step = false; /* some members may have swept, others not */
    return batch_done(e, n, st, counts);
}

/*
 * The member lanes' call of n sweeps (lib/ens_lanes.c), its counts kept by the ensemble as
 * a batched call's (batch_done) while the members are in step: every member sweeps every
 * call, so after one full check (the sweep counts equal) they stay so while calls
 * succeed; else (never yet checked, or not in step) into the members themselves.
 */
static int lanes_sweeps(latmc_ens *e, uint64_t n, const struct latmc_batch_rounds *rounds)
{
    const int M = e->n_members;
    if (!e->members_in_step) {
        latmc_ens_exec_settle(e);
        bool same = true;
        for (int m = 1; m < M && same; m++)
            same = e->members[m]->sweeps == e->members[0]->sweeps;
        e->members_in_step = same;
    }
    if (e->members_in_step && !e->pending &&
        !(e->pending = calloc(2 * (size_t)M, sizeof *e->pending)))
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the counts of %d "
                        "members", M);
    if (!e->members_in_step) {
        e->attempted_known = false; /* the members' counts move outside batch_done */
        return latmc_ens_lanes_sweeps(e, n, NULL, rounds);
    }
    /* the pending counts take the call's counts only where it succeeded; a failure was
     * recorded there, nothing counted and no member touched (batch_done would record it
     * again as a batched sweep's, and settle the members for nothing) */
    const int st = latmc_ens_lanes_sweeps(e, n, e->pending, rounds);
    return st < 0 ? st : batch_done(e, n, st, e->pending);
}

int latmc_ens_exec_sweeps(latmc_ens *e, uint64_t n)
{
    if (e->lanes) /* the ensemble's own chain: members in groups of 32 (lib/ens_lanes.c) */
        return lanes_sweeps(e, n, NULL);
    const int batched = batched_sweeps(e, n);
    if (batched != LATMC_EUNSUPPORTED)
        return batched;
    latmc_ens_exec_settle(e);
    e->attempted_known = false;
    const int M = e->n_members;
    const int nt = member_threads(e, (double)M * (double)e->nsites * (double)n);
    int *status = e->status;
    latmc_sim **members = e->members;
    /* a serial loop never enters the construct: even if(0) costs libgomp a futex trip */
    if (nt == 1) {
        for (int m = 0; m < M; m++)
            status[m] = latmc_sim_sweep(members[m], n);
        return first_failure(e, "latmc_ens_sweep");
    }
    const int team = team_refused(e, nt, "latmc_ens_sweep");
    if (team < 0)
        return team;
    ENS_OMP(parallel for num_threads(nt) schedule(dynamic, 1))
    for (int m = 0; m < M; m++)
        status[m] = latmc_sim_sweep(members[m], n);
    return first_failure(e, "latmc_ens_sweep");
}

/*
 * The members' sums in one call of their backend (LATMC_STEP_MEASURE, lib/plan.c; only
 * where ens_measure_batched) into `sums` (M x model->sums_size): LATMC_EUNSUPPORTED with
 * nothing done and no error left where it does not measure them together (the caller
 * measures one by one); else the call's status, with `what` and the backend's message
 * where it failed.
 */
static int measure_members(latmc_ens *e, void *sums, const char *what)
{
    const struct latmc_batch_request request = { .sums = sums };
    struct latmc_error_mark mark;
    latmc_error_mark(&mark);
    const int st =
        latmc_plan_batch_request(e->members, e->n_members, LATMC_STEP_MEASURE, &request);
    if (st == LATMC_EUNSUPPORTED) /* a decline is no failure of the caller's */
        latmc_error_restore(&mark);
    if (st < 0 && st != LATMC_EUNSUPPORTED) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return ENS_FAIL(e, st, "%s: batched measurement of the members: %s", what, why);
    }
    return st;
}

/*
 * Members on a backend with a batched measurement (CUDA: one launch for all members'
 * sums; cluster members as steps too, ens_measure_batched): where any member's sums are
 * stale, measure all at once and store each member's sums as latmc_sim_observable would
 * (sums_valid), so that the observables then need no device work. LATMC_EUNSUPPORTED,
 * nothing done: measure one by one.
 */
static int batched_measure(latmc_ens *e)
{
    if (!ens_measure_batched(e))
        return LATMC_EUNSUPPORTED;
    const int M = e->n_members;
    bool all_valid = true;
    for (int m = 0; m < M; m++) {
        const latmc_sim *sim = e->members[m];
        if (!sim->have_config || latmc_part_many(sim))
            return LATMC_EUNSUPPORTED; /* latmc_sim_observable reports or handles it */
        all_valid = all_valid && sim->sums_valid;
    }
    if (all_valid)
        return LATMC_OK;
    const size_t size = e->members[0]->model->sums_size;
    unsigned char *sums = malloc((size_t)M * size);
    if (!sums)
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_observables: cannot allocate the sums of "
                        "%d members", M);
    const int st = measure_members(e, sums, "latmc_ens_observables");
    if (st == LATMC_OK)
        for (int m = 0; m < M; m++) {
            memcpy(e->members[m]->sums, sums + (size_t)m * size, size);
            e->members[m]->sums_valid = true;
            e->members[m]->modes_valid = false;
        }
    free(sums);
    return st;
}

int latmc_ens_exec_observable(latmc_ens *e, int key, double *values)
{
    latmc_ens_exec_settle(e);
    const int M = e->n_members, nt = member_threads(e, (double)M * (double)e->nsites);
    int *status = e->status;
    latmc_sim **members = e->members;
    const int batched = key == LATMC_OBS_ACCEPTANCE ? LATMC_EUNSUPPORTED : batched_measure(e);
    if (batched < 0 && batched != LATMC_EUNSUPPORTED)
        return batched;
    if (nt == 1) {
        for (int m = 0; m < M; m++)
            status[m] = latmc_sim_observable(members[m], key, &values[m]);
        return first_failure(e, "latmc_ens_observables");
    }
    const int team = team_refused(e, nt, "latmc_ens_observables");
    if (team < 0)
        return team;
    ENS_OMP(parallel for num_threads(nt) schedule(dynamic, 4))
    for (int m = 0; m < M; m++)
        status[m] = latmc_sim_observable(members[m], key, &values[m]);
    return first_failure(e, "latmc_ens_observables");
}

/*
 * The exchange round's values (`key` of every member into values[m]): on a backend with a
 * batched measurement, the members' sums in one launch into the ensemble's own array and
 * each value computed from it (the model's observable of that member's sums, exactly
 * latmc_sim_observable's), without storing the sums in each member and calling it per
 * member; otherwise as latmc_ens_exec_observable.
 */
int latmc_ens_exec_round_values(latmc_ens *e, int key, double *values)
{
    const int M = e->n_members;
    if (e->lanes_words) { /* from the member lanes' words where the members lag them */
        const int st = latmc_ens_lanes_round_values(e, key, values);
        if (st != LATMC_EUNSUPPORTED)
            return st;
    }
    /* measured on the members: as latmc_sim_sweep leaves them (the words' values touch no
     * member sim, so a round of the member lanes settles nothing: 4096 sims a round) */
    latmc_ens_exec_settle(e);
    if (e->all_config && !latmc_part_many(e->members[0]) && ens_measure_batched(e)) {
        const struct latmc_model_def *model = e->members[0]->model;
        if (!e->batch_sums && !(e->batch_sums = malloc((size_t)M * model->sums_size)))
            return ENS_FAIL(e, LATMC_ENOMEM, "exchange round: cannot allocate the sums of %d "
                            "members", M);
        int st = measure_members(e, e->batch_sums, "exchange round");
        if (st == LATMC_OK) {
            const unsigned char *sums = e->batch_sums;
            for (int m = 0; m < M && st == LATMC_OK; m++)
                st = model->observable(e->members[m], sums + (size_t)m * model->sums_size, key,
                                       &values[m]);
            if (st < 0)
                return ENS_FAIL(e, st, "exchange round: an observable: %s", latmc_thread_error());
            return LATMC_OK;
        }
        if (st != LATMC_EUNSUPPORTED) /* measured on the members below: not a failure */
            return st;
    }
    return latmc_ens_exec_observable(e, key, values);
}
