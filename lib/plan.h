/*
 * Internal: the plan of a sim, its boxes and the schedule of one sweep, and the core's
 * loop that executes a sweep over them (doc/architecture.md).
 */
#ifndef LATMC_LIB_PLAN_H
#define LATMC_LIB_PLAN_H

#include "box.h"
#include "internal.h"

struct latmc_model_def;

/*
 * What a sim that runs one box of a plan whose other boxes live in other processes gives
 * the plan's loop (lib/part.c provides it for the parts of a shared lattice): after every
 * step the loop calls exchange, which brings the neighbours' planes into the box's halos
 * (after a cluster label step it joins the clusters across the parts instead:
 * lib/cluster_part_steps.c). `status` is the step's (or a failure latched before it): a
 * collective exchange runs in full whatever it is, so that no part is left waiting. A
 * sim without one (sim->halo NULL) runs every box of its plan in its backend's memory,
 * where the halos need no exchange. The loop thus never calls into the parts' code.
 */
struct latmc_halo_table {
    int (*exchange)(latmc_sim *sim, const struct latmc_step *step, int status);
};

struct latmc_plan {
    int n_boxes;                /* >= 1; slabs in order along the last axis */
    struct latmc_box *boxes;
    int n_steps;                /* steps of one sweep (model_def.sweep_steps; a model with
                                   sweep_schedule gives them per sweep call instead) */
};

/* Slabs the desc asks for: n_devices where > 1 (one slab per device), else n_parts. */
int latmc_plan_parts(const latmc_sim_desc *d);

/*
 * Check desc->n_parts (a validated desc of `model`): negative, or slabs thinner than the
 * model's halo or its colouring allow, LATMC_EINVAL; n_parts > 1 for a model without a
 * schedule, LATMC_EUNSUPPORTED. Messages name the field and the rule.
 */
int latmc_plan_check(const latmc_sim_desc *d, const struct latmc_model_def *model);

/* The plan of a checked desc: n_parts slabs (0 and 1: one box); LATMC_ENOMEM. */
int latmc_plan_build(const latmc_sim_desc *d, const struct latmc_model_def *model,
                     struct latmc_plan *plan);
void latmc_plan_free(struct latmc_plan *plan);

/* The backend's LATMC_STEP_CAP_* for sim (0 where its build has no step_caps). */
unsigned latmc_plan_step_caps(const latmc_sim *sim);

/*
 * Whether sim->ops can execute the plan step by step (run_step); a plan of one box needs
 * nothing more (ops.run_steps runs it: latmc_plan_runs_sweeps). LATMC_EUNSUPPORTED with a
 * message otherwise.
 */
struct latmc_backend_ops;
bool latmc_plan_backend_runs(const struct latmc_backend_ops *ops, const struct latmc_plan *plan);
int latmc_plan_check_backend(const latmc_sim *sim, const struct latmc_plan *plan);

/*
 * Whether latmc_sim_sweep can run the sim's sweeps through the plan (latmc_plan_sweep),
 * the one way a sim sweeps: k > 1 boxes, or one box on a backend that takes lists of
 * steps (ops.run_steps: the CPU and CUDA) for a model with a schedule (every model), so
 * that the colour loop of a sweep is the model's schedule, once. Otherwise the sweep is
 * refused (LATMC_EUNSUPPORTED).
 */
bool latmc_plan_runs_sweeps(const latmc_sim *sim, const struct latmc_plan *plan);

/*
 * n sweeps numbered sim->sweeps, ... over the plan's boxes: for each step (the model's
 * step_of, lib/step.h), ops.run_step on the boxes (one call per executor; one executor so
 * far) then the halo exchange, or lists of steps to ops.run_steps where the halos need no
 * exchange. Adds the updates accepted and attempted.
 */
int latmc_plan_sweep(latmc_sim *sim, const struct latmc_plan *plan, uint64_t n,
                     uint64_t *accepted, uint64_t *attempted);

/*
 * The same loop for a batch: n sweeps of every member of members[0 .. n_members) (an
 * ensemble's members, lib/ens_exec.c: one desc but for seeds and parameters, one box each,
 * all at sweep `first`: their own counts may lag the ensemble's batched calls,
 * latmc_ens_exec_settle), each step one call of ops.run_steps over all members
 * (struct latmc_step_call::members), or whole sweeps in one call where the backend
 * declares LATMC_STEP_CAP_BATCH_SWEEPS and takes them (e.g. fused kernels). Adds member
 * m's updates to accepted[m], attempted[m]. LATMC_EUNSUPPORTED with nothing done where
 * the backend does not run this batch (no LATMC_STEP_CAP_BATCH, or it refused it): the
 * core then sweeps the members one by one. The members' bookkeeping is the caller's.
 */
int latmc_plan_sweep_batch(latmc_sim *const *members, int n_members, uint64_t first,
                           uint64_t n, uint64_t *accepted, uint64_t *attempted);

/*
 * Parallel tempering in the batch's plan: the exchange rounds of an ensemble whose
 * tempering map the backend holds (lib/ens_temper.c loads it aside,
 * LATMC_STEP_TEMPER_STATE). The ensemble's sweep count is `sweeps` before the call; a round
 * follows every count that is a multiple of `every`, rounds numbered `round`, `round` + 1,
 * ...
 */
struct latmc_batch_rounds {
    uint64_t every, sweeps, round;
};

/* The rounds n sweeps from rounds->sweeps hold (every > 0). */
static inline uint64_t latmc_batch_rounds_in(const struct latmc_batch_rounds *rounds,
                                             uint64_t n)
{
    return (rounds->sweeps + n) / rounds->every - rounds->sweeps / rounds->every;
}

/*
 * latmc_plan_sweep_batch with the rounds as steps: whole sweeps up to each round, then
 * the round (LATMC_STEP_EXCHANGE), every call with device_map set (lib/box.h), a sweep
 * and its round always in one list. Only where the backend declares
 * LATMC_STEP_CAP_BATCH_SWEEPS and LATMC_STEP_CAP_BATCH_EXCHANGE for the batch and takes
 * its first list; LATMC_EUNSUPPORTED with nothing done otherwise (the core then runs the
 * rounds itself, lib/ens_exchange.c). Adds member m's updates to accepted[m], attempted[m].
 * *rounds_run (where not NULL): the rounds of the lists the backend completed, set on
 * every return -- on a failure, those of the lists before the failed one (a failed list
 * runs no round the backend keeps: it refuses before anything ran, or drops its tempering
 * state, lib/backend.h), so that the caller counts the attempts of the rounds whose
 * accepted swaps the backend's state holds.
 */
int latmc_plan_sweep_batch_rounds(latmc_sim *const *members, int n_members, uint64_t first,
                                  uint64_t n, const struct latmc_batch_rounds *rounds,
                                  uint64_t *accepted, uint64_t *attempted,
                                  uint64_t *rounds_run);

/*
 * A batch's request in one run_steps call (lib/box.h, struct latmc_batch_request): kind
 * LATMC_STEP_MEASURE (every member's sums), LATMC_STEP_OVERLAPS, LATMC_STEP_SWAP_PARAMS or
 * LATMC_STEP_TEMPER_STATE, where the backend declares LATMC_STEP_CAP_BATCH_MEASURE /
 * _OVERLAPS / _SWAP / _EXCHANGE for member 0; the members may be at different sweep counts.
 * LATMC_EUNSUPPORTED with nothing done where it does not or refuses (the caller then does
 * it member by member), else the backend's status.
 */
int latmc_plan_batch_request(latmc_sim *const *members, int n_members, int kind,
                             const struct latmc_batch_request *request);

/* Whether latmc_plan_sweep_batch (rounds NULL) or latmc_plan_sweep_batch_rounds of n
 * sweeps hands the backend one list of calls at most (a backend adds a list's counts only
 * once it succeeded, lib/box.h): then a failed call has added nothing to accepted and
 * attempted, and a caller may pass the arrays that hold its totals. */
bool latmc_plan_batch_one_list(latmc_sim *lead, uint64_t n,
                               const struct latmc_batch_rounds *rounds);

#endif
