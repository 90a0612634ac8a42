/*
 * Internal: the ensemble object (include/latmc/ens.h, doc/ensembles.md).
 *
 * Every member is a latmc_sim of its own; the one place that decides how members execute
 * is lib/ens_exec.c: a batch of the core's plan where the backend runs one
 * (latmc_plan_sweep_batch: one CUDA launch per step for all members, or its fused
 * multi-sweep kernels), else the public sim functions member by member, or, with the
 * ensemble's own chain of member lanes (decisions = 2), lib/ens_lanes.c, which it calls.
 * Nothing else here knows how a member is swept.
 */
#ifndef LATMC_LIB_ENS_INTERNAL_H
#define LATMC_LIB_ENS_INTERNAL_H

#include <latmc/ens.h>
#include "backend.h"
#include "cluster_sweep.h"
#include "internal.h"
#include "plan.h"

/*
 * Philox streams of the ensemble (doc/conventions.md, "Random numbers"). Keyed by the
 * ensemble's seeds, never by a member's, so they cannot meet a member's own draws except
 * by a key collision. Chosen high in the purpose nibble to stay clear of the sim streams
 * (lib/rng_streams.h: 0, 1, 2, ...).
 */
enum {
    LATMC_STREAM_ENS_MEMBER_SEED   = 13, /* key layout.seed, block = member index */
    LATMC_STREAM_ENS_SAMPLE_DISORDER = 14, /* key layout.coupling_seed, block = sample */
    LATMC_STREAM_ENS_EXCHANGE      = 15  /* key layout.seed, sweep field = exchange round */
};
/* Stream 12 (key layout.seed): the planes of the member lanes' chain,
 * LATMC_STREAM_ENS_LANES in lib/ens_lanes_rules.h. */

/* At most this many members (indices stay ints, per-member arrays stay small). */
#define LATMC_ENS_MAX_MEMBERS (1 << 24)

/*
 * The accepted swaps' parameter moves of an exchange round or a map's sync
 * (lib/ens_exchange.c): latmc_ens_swaps_begin over the batch `members` and the ladder's
 * parameter `key`; latmc_ens_swap_ladder_values for each accepted swap, member a taking
 * value_a, b value_b (the members' parameters and model data move at once; where the
 * backend moves what it derived from them, it does so for all the pairs in one call at
 * latmc_ens_swaps_end, LATMC_STEP_SWAP_PARAMS, else each pair takes set_param);
 * latmc_ens_swaps_end before anything reads the members. Its arrays are the caller's to
 * keep (latmc_ens_swaps_free).
 */
struct latmc_ens_swaps {
    latmc_sim *const *members;
    int n_members, key;
    bool batched;     /* the backend takes LATMC_STEP_SWAP_PARAMS for these members */
    int n, cap;       /* pairs waiting for the call; room for cap */
    int32_t *pairs;   /* their members a, b */
    double *values;   /* their value_a, value_b */
};

struct latmc_ens {
    latmc_ctx *ctx;
    latmc_sim_desc desc;       /* the members' desc as validated (seeds: member 0's) */
    latmc_ens_layout layout;   /* n_threads resolved */
    int n_members;
    int64_t nsites;
    latmc_sim **members;       /* n_members, NULL until created */

    bool have_temps;
    int ladder_key;            /* the parameter the temperatures set: LATMC_PARAM_BETA, or
                                  LATMC_PARAM_MU2 (phi^4, latmc_ens_set_ladder) */
    double *beta;              /* n_temperatures: the ladder's values (beta or mu2) */
    int *member_at;            /* [(s * n_T + t) * n_R + r] -> member */
    int *temp_of;              /* [m] -> temperature index */
    signed char cluster_auto;  /* device AUTO and a cluster algorithm: 0 not yet asked,
                                  1 AUTO kept (the members' backend batches their cluster
                                  steps), -1 the CPU (latmc_ens_member_placed) */

    uint64_t every;            /* exchange period in sweeps, 0 = off */
    uint64_t sweeps;           /* sweeps of every member since creation */
    uint64_t rounds;           /* exchange rounds done (the round number of the next) */
    uint64_t *pair_accepted;   /* n_T - 1 (at least 1 entry) */
    uint64_t *pair_attempted;

    /* Round trips: per member the direction since its last extreme temperature
     * (+1: left 0 going up, -1: reached the top, 0: neither yet) and when it left 0. */
    signed char *rt_dir;
    uint64_t *rt_start;
    uint64_t rt_count, rt_sum_sweeps;

    /* Tempering on the device (lib/ens_temper.c): while map_on_device, the backend's copy
     * of member_at, temp_of, the round trips and pair_accepted is the newer one and the
     * members' ladder parameters are those of temp_of before it; latmc_ens_sync brings
     * them back. */
    bool map_on_device;
    /* The member lanes' rounds on the host (lib/ens_exchange.c): while map_lagging, the
     * members' ladder parameters are those of applied_temp (applied_at the slots' members
     * as they hold them), not yet those of temp_of, whose tables the lanes' words already
     * run with (a round swaps the words' tables, not the members'); latmc_ens_sync_map
     * moves the members, as after the device's rounds. NULL until the first such round. */
    bool map_lagging;
    int *applied_at, *applied_temp;

    /* The ensemble's chain: false, each member its own sim's chain (its parameter
     * decisions 0 or 1); true, the member lanes (ensemble parameter decisions = 2,
     * lib/ens_lanes.c, doc/ensembles.md "Member lanes"). */
    bool lanes;
    struct latmc_ens_lanes_words *lanes_words; /* their words between calls, or NULL */
    uint64_t lanes_tables_gen; /* the member lanes' tables' generation: counts the copies of
                                  changed tables (lib/ens_lanes.c), never reset */

    double *scratch;           /* n_members doubles (energies of a round) */
    /* What the batched path (lib/ens_exec.c) knows without walking the members: every
     * member has a configuration (have_config never goes back to false), and every
     * member's sweep count is e->sweeps with one box (true after a full check; false
     * again after any failed sweep call, which may leave the members uneven). */
    bool all_config, members_in_step;
    uint64_t *counts;          /* 2 n_members: a batched call's accepted, attempted (zero
                                  between calls) */
    /* The members' own bookkeeping of batched calls (lib/ens_exec.c), kept here until
     * something reads the members (latmc_ens_exec_settle: every reader of a member goes
     * through it), so that a short call touches no member: lag_sweeps sweeps not yet in any
     * member's count (the members stay in step, each behind by the same), pending the
     * accepted and attempted updates (2 n_members) not yet in theirs, and their sums stale
     * (unsettled). attempted_bound: at least every member's own attempted count, where
     * attempted_known (else worked out again by the next batched call). */
    uint64_t lag_sweeps;
    uint64_t *pending;
    bool unsettled, attempted_known;
    uint64_t attempted_bound;
    void *batch_sums;          /* n_members model sums (a batched measurement) */
    struct latmc_ens_swaps swaps; /* the accepted swaps' moves (lib/ens_exchange.c) */
    int *status;               /* n_members: per-member results of a parallel step */
    char errmsg[LATMC_ERRMSG_SIZE];
};

/* Record the failure on the ensemble as well (message copied) and return status. */
int latmc_ens_record_failure(const latmc_ens *ens, int status);
#define ENS_FAIL(ens, status, ...) latmc_ens_record_failure((ens), latmc_fail((status), __VA_ARGS__))

/* Seeds of member m (ens_seed.c-free: pure functions of the layout, lib/ens.c). */
uint64_t latmc_ens_member_seed(uint64_t seed, uint64_t member);
uint64_t latmc_ens_sample_coupling_seed(uint64_t coupling_seed, uint64_t sample);

/* Home coordinates of member m. */
static inline int ens_sample_of(const latmc_ens *e, int m)
{
    return m / (e->layout.n_temperatures * e->layout.n_replicas);
}
static inline int ens_replica_of(const latmc_ens *e, int m)
{
    return m % e->layout.n_replicas;
}
/* Index of (sample, temperature, replica) in member_at and in BY_TEMPERATURE arrays. */
static inline int ens_slot_index(const latmc_ens *e, int s, int t, int r)
{
    return (s * e->layout.n_temperatures + t) * e->layout.n_replicas + r;
}

/* The backend whose ensemble operations (overlaps, device tempering) may take these
 * members, or NULL: the CPU's (its host threads run the members) and members whose backend
 * labels clusters as steps of its own (CUDA Swendsen-Wang, Wolff: those operations are the
 * local updates'), which run them one by one, as sims. (Their sweeps are batched where the
 * backend's capabilities offer it: lib/ens_exec.c, batched_sweeps; their measurement where
 * the backend measures them together: ens_measure_batched.) */
static inline const struct latmc_backend_ops *ens_batch_ops(const latmc_ens *e)
{
    const latmc_sim *m0 = e->members[0];
    return m0->ops == &latmc_cpu_backend_ops || latmc_cluster_as_steps(m0) ? NULL : m0->ops;
}

/* Whether the members' backend reads them as a batch (their sums in one run_steps call,
 * LATMC_STEP_MEASURE, lib/plan.c latmc_plan_batch_request; it may still refuse, and the
 * core measures them one by one): not the CPU's, whose host threads run the members;
 * cluster members as steps only where the backend batches their steps (LATMC_STEP_CAP_BATCH:
 * CUDA Swendsen-Wang and Wolff members measured in one launch), so that members it runs one
 * by one are not offered at every round. */
static inline bool ens_measure_batched(const latmc_ens *e)
{
    latmc_sim *m0 = e->members[0];
    if (m0->ops == &latmc_cpu_backend_ops)
        return false;
    const unsigned caps = latmc_plan_step_caps(m0);
    return (caps & LATMC_STEP_CAP_BATCH_MEASURE) &&
           (!latmc_cluster_as_steps(m0) || (caps & LATMC_STEP_CAP_BATCH));
}

/* Allocate an ensemble with every array but no member (members[] all NULL); validates
 * the layout and the desc. lib/ens.c. */
int latmc_ens_alloc(latmc_ctx *ctx, const latmc_sim_desc *member, const latmc_ens_layout *layout,
                    latmc_ens **out);
/* Home temperature map, statistics and round trips reset. */
void latmc_ens_reset_map(latmc_ens *e);

/* Member m's desc (latmc_ens_member_desc) where the member runs: with device AUTO, a
 * cluster algorithm's members where AUTO puts a sim of member 0's desc if its backend
 * batches their cluster steps there (CUDA Swendsen-Wang and Wolff members of Ising and
 * Potts the batch takes: asked once, of a sim made and destroyed for it), else on the CPU
 * (the embedded clusters, which the GPU runs one member at a time, members its batch does
 * not take, no GPU). Returns whether that placement differs from the desc's own. */
bool latmc_ens_member_placed(latmc_ens *e, int m, latmc_sim_desc *out);

/* The members' own counts and sums brought up to date with the batched calls since the
 * last (sweeps, accepted, attempted, sums_valid false): before anything reads or runs a
 * member other than a batched call. lib/ens_exec.c. */
void latmc_ens_exec_settle(latmc_ens *e);

/*
 * Execution (lib/ens_exec.c): the only code that decides how members run.
 * latmc_ens_exec_sweeps: n sweeps of every member; latmc_ens_exec_observable: `key` of
 * every member into values[m]. On failure the lowest failing member's code, its message
 * recorded on the ensemble.
 */
int latmc_ens_exec_sweeps(latmc_ens *e, uint64_t n);
int latmc_ens_exec_observable(latmc_ens *e, int key, double *values);
/* The same for an exchange round (every member has a configuration: after sweeps). */
int latmc_ens_exec_round_values(latmc_ens *e, int key, double *values);
struct latmc_batch_rounds; /* lib/plan.h */
/* n sweeps with their exchange rounds as the batch's plan (latmc_plan_sweep_batch_rounds:
 * the tempering state on the device, loaded by a LATMC_STEP_TEMPER_STATE request), or as
 * the member lanes' call on their device (the state loaded by latmc_ens_lanes_temper), the
 * members' bookkeeping done; LATMC_EUNSUPPORTED, nothing done, where the backend does not
 * run them. *rounds_run: the rounds of the lists the backend completed (all of them where
 * the call succeeded; on a failure, those before the failed list). */
int latmc_ens_exec_temper(latmc_ens *e, uint64_t n, const struct latmc_batch_rounds *rounds,
                          uint64_t *rounds_run);
int latmc_ens_resolve_threads(int requested);

/* The member lanes (lib/ens_lanes.c): LATMC_OK where the ensemble can run them, else
 * LATMC_EUNSUPPORTED with the reason (thread's error only; `fn` names the caller); n
 * sweeps of every member by them (e->sweeps not advanced), their counts added to counts
 * (accepted counts[m], attempted counts[M + m]: the ensemble's pending ones) or, NULL,
 * to the members' own counters. */
int latmc_ens_lanes_check(const latmc_ens *e, const char *fn);
/* The same without the placement: whether the members' model, algorithm and size have
 * the chain at all (a file that says otherwise is damaged). */
int latmc_ens_lanes_check_chain(const latmc_ens *e, const char *fn);
int latmc_ens_lanes_sweeps(latmc_ens *e, uint64_t n, uint64_t *counts,
                           const struct latmc_batch_rounds *rounds);
/* The member lanes' exchange rounds on their device (lib/ens_temper.c; rounds above, not
 * NULL: every `every` sweeps from sweep rounds->sweeps, numbered from rounds->round).
 * latmc_ens_lanes_temper_ready: LATMC_EUNSUPPORTED where the members run on the CPU, else
 * the words made and current (a failure recorded). latmc_ens_lanes_temper: the tempering
 * state's load or fetch (temper->what) by the device's ops.ens_lanes, each temperature's
 * tables with the load (LATMC_EUNSUPPORTED, thread's error only, where a member's tables
 * are not its temperature's or the backend runs no rounds). */
int latmc_ens_lanes_temper_ready(latmc_ens *e);
int latmc_ens_lanes_temper(latmc_ens *e, struct latmc_ens_temper *temper);
/* Member m's parameters (so its tables) changed, or every member's (m < 0): the member
 * lanes copy those tables again at their next call (they copy only changed ones). Every
 * path that changes a member's parameters calls it: set_param, the ladder, the swaps of
 * the exchange rounds and of the device's tempering. */
void latmc_ens_lanes_params_changed(latmc_ens *e, int m);
/* An exchange round's moves on the member lanes' tables alone (the members' parameters
 * lag, e->map_lagging): latmc_ens_lanes_swap_ready, whether the round may (the words exist
 * and every member's parameters but the ladder's are member 0's, so that two members'
 * tables after a swap are each other's before; the changed members' tables copied first);
 * latmc_ens_lanes_swap_tables, members a and b exchange their tables (the words' next call
 * sends them again). */
bool latmc_ens_lanes_swap_ready(latmc_ens *e);
void latmc_ens_lanes_swap_tables(latmc_ens *e, int a, int b);
/* The words stay between calls. latmc_ens_lanes_flush: the members brought up to them
 * (latmc_ens_sync calls it: every reader of a member). latmc_ens_lanes_drop: flush, then
 * forget them (a member's spins written from outside, the chain switched off; the next
 * call packs the members again). latmc_ens_lanes_round_values: an exchange round's
 * values from the words where the members lag them, else LATMC_EUNSUPPORTED (measure the
 * members). latmc_ens_lanes_free: at destruction. */
int latmc_ens_lanes_flush(latmc_ens *e);
int latmc_ens_lanes_drop(latmc_ens *e);
int latmc_ens_lanes_round_values(latmc_ens *e, int key, double *values);
void latmc_ens_lanes_free(latmc_ens *e);

/* The factor of the ladder's values in an exchange's Delta (lib/ens_exchange.c): 1 for
 * beta (times the energy), 1/2 for mu2 (H holds mu2/2 sum phi^2); the device's rounds take
 * it from the tempering job (struct latmc_ens_temper's scale). */
double latmc_ens_ladder_scale(const latmc_ens *e);

/* Whether sims a and b hold the same value of every parameter but `except` (NaN alike):
 * then each one's model data after their values of `except` are exchanged is the other's
 * before (the swaps' fast path, the member lanes' lagging map). */
bool latmc_ens_params_alike(const latmc_sim *a, const latmc_sim *b, int except);

/* struct latmc_ens_swaps's functions (above). */
void latmc_ens_swaps_begin(struct latmc_ens_swaps *q, latmc_sim *const *members, int n_members,
                           int key);
void latmc_ens_swap_ladder_values(struct latmc_ens_swaps *q, int a, int b, double value_a,
                                  double value_b);
void latmc_ens_swaps_end(struct latmc_ens_swaps *q);
void latmc_ens_swaps_free(struct latmc_ens_swaps *q);

/*
 * Tempering on the device (lib/ens_temper.c). latmc_ens_temper_sweep: n sweeps with their
 * exchange rounds on the backend (its state loaded by a LATMC_STEP_TEMPER_STATE request
 * where the host held it, then the batch's plan with the rounds as steps; e->sweeps,
 * e->rounds and the attempts counted), or LATMC_EUNSUPPORTED with nothing done.
 * latmc_ens_sync: where the device holds the map, bring it and the statistics back and move
 * the members' parameters to their temperatures; every reader of the map, the statistics or
 * a member calls it first.
 */
int latmc_ens_temper_sweep(latmc_ens *e, uint64_t n);
int latmc_ens_sync(latmc_ens *e);
/* latmc_ens_sync's map and statistics alone, the members' configurations left where they
 * are: the sweeps and their exchange rounds (which run on the member lanes' words) and
 * the readers of the map and the statistics alone. */
int latmc_ens_sync_map(latmc_ens *e);
/* The device's map and statistics alone: the members keep the parameters a lagging map
 * (map_lagging) left them (the sweeps and the member lanes' host rounds, which run on the
 * words' tables). */
int latmc_ens_sync_device_map(latmc_ens *e);

/* One exchange round (lib/ens_exchange.c). */
int latmc_ens_exchange_round(latmc_ens *e);
/* Round-trip bookkeeping of member m now at temperature t (lib/ens_exchange.c). */
void latmc_ens_track_trip(latmc_ens *e, int m, int t);

#endif
