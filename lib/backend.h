/*
 * Internal: the table of operations every backend provides. The core validates every
 * argument and the sim's state before calling; backends never re-validate, and report
 * only their own failures (allocation, device) through latmc_fail().
 */
#ifndef LATMC_LIB_BACKEND_H
#define LATMC_LIB_BACKEND_H

#include <stddef.h>

#include "box.h"
#include "internal.h"

struct latmc_ens_temper; /* below */
struct latmc_ens_lanes_job; /* below */
struct latmc_cluster_stats; /* lib/cluster_sweep.h */
struct latmc_embed_job;      /* below */

struct latmc_backend_ops {
    size_t size;            /* sizeof(struct latmc_backend_ops) of the backend's build */
    const char *name;

    /* Allocate sim->backend for sim->desc (configuration undefined until init/set), and
     * set sim->n_threads. */
    int (*create)(latmc_sim *sim);
    void (*destroy)(latmc_sim *sim);

    int (*init_spins)(latmc_sim *sim, int how);
    /* (Sweeps are no member: the core runs every sweep as steps, through run_steps and
     * run_step below, lib/plan.c.) */
    /* The model's reduction of the current configuration into `sums`
     * (sim->model->sums_size bytes). */
    int (*measure)(latmc_sim *sim, void *sums);
    /* Host copies in site order i = x + L_x (y + L_y z), replica 0 first; sizes and values
     * checked by the core. */
    int (*get_spins)(latmc_sim *sim, void *buf);
    int (*set_spins)(latmc_sim *sim, const void *buf);
    /* Couplings of models that have them (count checked by the core). */
    int (*get_couplings)(latmc_sim *sim, float *buf);
    int (*set_couplings)(latmc_sim *sim, const float *buf);

    /* Appended. Optional (NULL: the backend derives nothing): sim->model_data was just
     * rebuilt from sim->param, after create and after every parameter change; rebuild what
     * the backend derives from it (kernel tables, a device copy), so that sweeps use it
     * as it stands instead of deriving it again at every call. */
    int (*params_changed)(latmc_sim *sim);

    /* Appended. Optional (NULL: the backend runs sims of one box only, and the core refuses
     * desc.n_parts > 1): run call->part of the step call->step (lib/step.h) of sweep
     * call->sweep on the
     * sites of the boxes call->boxes (lib/box.h, lib/plan.c), in any order or at once;
     * adds the updates accepted and attempted. The core then exchanges halos. */
    int (*run_step)(latmc_sim *sim, const struct latmc_step_call *call, uint64_t *accepted,
                    uint64_t *attempted);
    /* Optional: LATMC_STEP_CAP_* bits of what run_step takes for this sim (NULL: none). */
    unsigned (*step_caps)(latmc_sim *sim);
    /* Appended. Optional (NULL, or a backend built with a smaller ops struct: the core
     * refuses with LATMC_EUNSUPPORTED): fill view->device .. view->readonly with the
     * configuration's device memory, made current first (the core has checked the sim
     * has a configuration, and zeroed *view); LATMC_EUNSUPPORTED with a message where the
     * layout is not one strided array. */
    int (*device_view)(latmc_sim *sim, latmc_device_view *view);

    /* Appended. Optional (NULL: LATMC_EUNSUPPORTED from the callers that need them): the
     * per-plane forms used by transports that hold one slab per process or device
     * (DESIGN.md section 11). Planes are counted along the last axis, p0 < p1 <= extent.
     *
     * measure_planes: the model's sums of each plane p in [p0, p1) separately, into
     * sums + (p - p0) * model->sums_size. Adding them in plane order (model->add_sums)
     * gives exactly what ops.measure gives for the whole lattice.
     *
     * get_planes / set_planes: the configuration of planes [p0, p1) in the byte layout
     * of get_spins restricted to those planes (for each replica in order: the planes'
     * sites in site order), (p1 - p0) * plane sites * replicas * site bytes. */
    int (*measure_planes)(latmc_sim *sim, int64_t p0, int64_t p1, void *sums);
    int (*get_planes)(latmc_sim *sim, int64_t p0, int64_t p1, void *buf);
    int (*set_planes)(latmc_sim *sim, int64_t p0, int64_t p1, const void *buf);


    /* Appended. Needed to sweep a sim (NULL: latmc_sim_sweep refuses with
     * LATMC_EUNSUPPORTED, except on k > 1 boxes, where the core calls run_step once per
     * call): run_step on
     * calls[0 .. n_calls) in order, as the core's loop would, for a sim whose boxes all
     * live in the backend's own memory, so that the halo exchange between two calls has
     * nothing to copy (lib/plan.c offers a list only then). The backend keeps one set of
     * threads across the calls (the CPU: one team, a barrier between two steps) instead
     * of starting them per call. Adds the updates accepted and attempted. Where step_caps
     * declares LATMC_STEP_CAP_BATCH, it also takes the calls of a batch (lib/box.h: an
     * ensemble's members as one layout, one launch per step over all of them; with
     * LATMC_STEP_CAP_BATCH_SWEEPS whole sweeps in one call), counted per member; with
     * LATMC_STEP_CAP_BATCH_MEASURE / _OVERLAPS / _SWAP the batch's requests (a call alone,
     * lib/box.h's struct latmc_batch_request): every member's sums, pairs' overlaps,
     * tempering swaps' parameter moves; with LATMC_STEP_CAP_BATCH_EXCHANGE the tempering
     * state's load and fetch. */
    int (*run_steps)(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                     uint64_t *accepted, uint64_t *attempted);

    /* Appended. Optional (NULL, or 0 for a sim: the model's schedule, model_def.sweep_steps
     * or sweep_schedule): the number of steps of one sweep of this sim where the backend
     * runs a chain of its own, declared instead of the model's (CUDA phi^4's chunk
     * schedule, a sim of one box: step p is sub-grid p, doc/models/phi4.md "The CUDA
     * chain"). The core then hands run_step / run_steps steps 0 .. n - 1 of that chain,
     * in order, as it would the model's. */
    int (*own_schedule)(latmc_sim *sim);

    /* Appended. Optional (NULL, or LATMC_EUNSUPPORTED: the backend holds every coupling,
     * and get_couplings gives them): the couplings of the sites of planes [p0, p1) in
     * get_couplings' layout restricted to those sites, (p1 - p0) * plane sites * ndim
     * floats. A part of a shared lattice that stores its slab only (lib/part.c) gathers
     * its couplings so. */
    int (*get_coupling_planes)(latmc_sim *sim, int64_t p0, int64_t p1, float *buf);

    /* Appended. Optional (NULL, or at most the part's halo: the part's halo): the planes
     * beyond each end of a part's slab (lib/part.c) that the backend reads in a sweep
     * call and keeps current through its exchanges, where that is more than the model's
     * halo (CUDA Heisenberg: 2, its whole pass at a plan's even step; the exchange
     * after that step carries the second plane, backends/cuda/heisenberg/). A load that sets
     * the slab's own planes only fills that many from the neighbours
     * (latmc_part_fill_halos). */
    int (*part_halo_depth)(const latmc_sim *sim);

    /* Appended. Optional (NULL: the core measures, then reduces the Fourier modes from
     * get_planes, lib/modes.c): measure() and, in the same pass over the configuration,
     * the partial result of the Fourier modes of the whole lattice (latmc_modes_partial of
     * planes [0, L) into modes_partial, latmc_modes_partial_bytes bytes), each exactly
     * what those give. With sums NULL a question, nothing done: LATMC_OK where the
     * backend can for this sim, LATMC_EUNSUPPORTED (no message) where not. */
    int (*measure_modes)(latmc_sim *sim, void *sums, void *modes_partial);

    /* Appended. Optional (NULL: the core counts them from get_planes, on the CPU backend
     * only; lib/modes.c): the integer projections of the Fourier modes (lib/modes.h) of
     * the lattice's planes [p0, p1), the whole lattice [0, L) or a part's own
     * planes, into proj (latmc_modes_projection_entries int64, set here), exactly
     * latmc_modes_projections' integers. LATMC_EUNSUPPORTED with the reason where the
     * backend cannot for this sim. */
    int (*mode_projections)(latmc_sim *sim, int64_t p0, int64_t p1, int64_t *proj);

    /* Appended. Optional (NULL: measure_planes, then latmc_modes_partial: lib/part.c): a
     * part's measure_planes of [p0, p1) into sums and, in the same pass over the
     * configuration, the partial result of the Fourier modes of those planes
     * (latmc_modes_partial of [p0, p1) into modes_partial), each exactly what those give.
     * With sums NULL a question, nothing done: LATMC_OK where the backend can for this
     * sim, LATMC_EUNSUPPORTED (no message) where not. */
    int (*measure_planes_modes)(latmc_sim *sim, int64_t p0, int64_t p1, void *sums,
                                void *modes_partial);

    /* Appended. Optional (NULL, or LATMC_EUNSUPPORTED: measure_modes, lib/modes.c): a sim
     * of the whole lattice: measure() and, with it, the exact sums of the modes of the
     * whole lattice's projections (latmc_modes_doubles doubles, bit for bit
     * latmc_modes_of_projections of them with these phase tables, latmc_modes_sim_phases,
     * the same pointer for the sim's life, before its scale: the core multiplies by
     * latmc_modes_scale), transformed where the projections are, in the same pass. With
     * sums NULL a question, nothing done: LATMC_OK where the backend can for this sim,
     * LATMC_EUNSUPPORTED (no message) where not. */
    int (*measure_kmin)(latmc_sim *sim, void *sums, const double *phases, double *modes);

    /* Appended. Optional (NULL: the cluster observables answer LATMC_EUNSUPPORTED on the
     * backend): a sim whose cluster sweeps run as steps of the plan (lib/cluster_steps.c),
     * what its last cluster sweep built (struct latmc_cluster_stats: the clusters, the
     * largest one's sites, the sum of the clusters' squared sizes; Wolff: 1, its cluster's
     * sites twice), exactly the CPU's integers; LATMC_ESTATE with a message where the sim
     * has made no cluster sweep yet. */
    int (*cluster_stats)(latmc_sim *sim, struct latmc_cluster_stats *out);

    /* Appended (module ABI 11). Optional (NULL: the core refuses cluster sims on parts of
     * this backend): a part of a lattice shared by processes whose Swendsen-Wang sweeps
     * run as steps of the plan (lib/cluster_steps.c) joins its clusters across the parts
     * between its label step and its flip (lib/cluster_part_steps.c). The record is the
     * backend's own (its format the same on every part, which all run this backend):
     * LATMC_CLUSTER_FACES_SIZE: *bytes the bytes of one part's record for the sim's
     * parameters as they stand (asked before every call of sweeps, after which the parts'
     * parameters are agreed on: the same on every part), nothing done (buf NULL);
     * LATMC_CLUSTER_FACES_OUT: after the
     * part's label step, its record into buf (*bytes bytes); LATMC_CLUSTER_FACES_JOIN:
     * buf holds every part's record in part order, *bytes bytes apart (at least a
     * record's size; n_parts of them): join the
     * clusters that reach the faces and keep this part's joined names for its flip.
     * LATMC_CLUSTER_FACES_STATS or'ed into `what` (module ABI 14; at the last sweep of
     * each call, and its SIZE before the sweeps): the larger record that also carries
     * what the part needs to count the clusters (the pieces that reach no face counted,
     * the face pieces' sizes), joined on every part alike, so that cluster_stats then
     * answers every part the same whole-lattice statistics with no message. A library
     * status. */
    int (*cluster_faces)(latmc_sim *sim, int what, void *buf, size_t *bytes);

    /* Appended (module ABI 12). Optional (NULL: the members refuse the chain): the
     * ensemble chain of member lanes (ensemble decisions = 2, doc/ensembles.md "Member
     * lanes", lib/ens_lanes.c) on the members' device, its words kept there between
     * calls; struct latmc_ens_lanes_job says what. Members as a batch of run_steps has them
     * (lib/box.h), each with a configuration. A backend
     * op and not the batch plan's steps: the chain is the ensemble's, not a step of its
     * members, and its state (the group words) outlives the calls, where the core loads,
     * fetches and measures it. */
    int (*ens_lanes)(latmc_sim *const *members, int n_members, struct latmc_ens_lanes_job *job);

    /* Appended (module ABI 15). Optional (NULL: the core's step on a host copy): one
     * embedded cluster step (lib/cluster_embed.h, doc/clusters.md "Embedded clusters") of
     * a whole sim on the backend's own configuration, the CPU's flips bit for bit; struct
     * latmc_embed_job says what (LATMC_EMBED_ASK / _STEP / _NAMES). A library status. */
    int (*embed_step)(latmc_sim *sim, int what, struct latmc_embed_job *job);
};

/*
 * A job of ops.embed_step (lib/cluster_heisenberg.c, lib/cluster_phi4.c): a Swendsen-Wang
 * or Wolff step (desc.algorithm) of the sim's embedded Ising model, the draws of
 * lib/cluster_embed.h named by `sweep`. Heisenberg: K of bond (i, mu) = beta J_{i,mu},
 * replica r's direction axis[r] and field F = field[r] (beta h r_z, as the core rounds it;
 * the decisions' sums in a field as lib/cluster_embed_sum.h defines them, module ABI 18).
 * phi^4: a_i = phi_i, K = beta for the nearest-neighbour bonds (k_near), axis unused,
 * F = 0; with a finite Lambda (module ABI 19) n_dirs = 3 ndim (2D) or 4 ndim (3D), the
 * pairs 2 e_mu apart with K = k_axis2 and the planar diagonals with K = k_diag too, in
 * lib/cluster_phi4.c's order of directions, which numbers the bond draws (n_dirs i + d);
 * n_dirs 0 or ndim: the nearest neighbours alone (Heisenberg, phi^4 with Lambda = inf).
 *   LATMC_EMBED_ASK: LATMC_OK where the backend steps this sim itself, LATMC_EUNSUPPORTED
 *     (no message) where not; nothing done.
 *   LATMC_EMBED_STEP: the step of every replica on the backend's configuration.
 *   LATMC_EMBED_NAMES: replica 0's a_i (double) of the last step into a (host arrays of
 *     nsites); Swendsen-Wang each site's cluster name (its smallest site) into name, from
 *     which the core counts the cluster statistics as its own step does (exact integer
 *     sums); Wolff (module ABI 17) the step's bonds into bonds (bit mu of bonds[i]: bond
 *     (i, mu) active; the other bits undefined), over which the core regrows the seed's
 *     cluster as its own step grows it (lib/cluster_embed.c); with
 *     n_dirs > ndim (bonds that a byte a site does not hold) bonds is NULL: the core
 *     regrows the cluster drawing the bonds itself from a, as its own step does.
 */
enum { LATMC_EMBED_ASK = 0, LATMC_EMBED_STEP = 1, LATMC_EMBED_NAMES = 2 };
struct latmc_embed_job {
    uint64_t sweep;
    double beta;
    double axis[2][3];
    double *a;
    uint32_t *name;
    uint8_t *bonds;
    double field[2];
    int n_dirs;
    double k_axis2, k_diag;
};

/* The backend's op `member` where its table (of its build's size) has one and sets it,
 * else NULL: tables only grow at their end, so an older module's table is shorter. */
#define LATMC_BACKEND_OP(ops, member)                                                       \
    ((ops)->size >= offsetof(struct latmc_backend_ops, member) + sizeof (ops)->member        \
         ? (ops)->member                                                                    \
         : NULL)

/*
 * A job of ops.ens_lanes (lib/ens_lanes.c). The words of groups g = 0 .. groups - 1 (32
 * members each, the last one's lanes past n_members absent), in lib/ens_lanes_rules.h's
 * layout: spin[g N + i], bond[g ndim N + ndim i + mu].
 *   LATMC_ENS_LANES_ASK: LATMC_OK where the backend runs the chain for these members,
 *     LATMC_EUNSUPPORTED with the reason where not; nothing done.
 *   LATMC_ENS_LANES_LOAD: spin and bond (NULL: uniform) onto the device; from now on the
 *     device's words are the chain's state.
 *   LATMC_ENS_LANES_SWEEPS: n_sweeps sweeps numbered sweep0 .. of every group with the
 *     lanes' tables (groups x 32, absent lanes zero), exactly lib/ens_lanes_rules.h's;
 *     changed[32 g + l] set to lane l's spins that changed.
 *   LATMC_ENS_LANES_SUMS: every lane's latmc_ens_lanes_sums into sums[64 g + l] (bonds)
 *     and sums[64 g + 32 + l] (spins).
 *   LATMC_ENS_LANES_FETCH: the device's spin words into spin.
 *   LATMC_ENS_LANES_KEEP (the CPU backend's, below): keep made for groups group0 ..
 *     groups - 1, their bond words copied into it; LATMC_ENOMEM (keep unchanged) where it
 *     cannot be allocated.
 *   LATMC_ENS_LANES_TEMPER_LOAD, _TEMPER_FETCH (module ABI 22, below): the exchange
 *     rounds' state onto the device and back.
 */
enum {
    LATMC_ENS_LANES_ASK = 0,
    LATMC_ENS_LANES_LOAD = 1,
    LATMC_ENS_LANES_SWEEPS = 2,
    LATMC_ENS_LANES_SUMS = 3,
    LATMC_ENS_LANES_FETCH = 4,
    LATMC_ENS_LANES_KEEP = 5,
    LATMC_ENS_LANES_TEMPER_LOAD = 6,
    LATMC_ENS_LANES_TEMPER_FETCH = 7,
};

/* The CPU backend's copy of one vector's groups in its own layout (site-major), kept by
 * lib/ens_lanes.c between calls (one per vector of groups, freed with the ensemble) so
 * that a call neither allocates nor copies the bonds, and copies the spins in only where
 * the core's words changed since (spin_gen). */
struct latmc_ens_lanes_keep {
    void *mem;                 /* one block (free() frees it), or NULL */
    int group0, groups, width; /* what it holds */
    uint64_t spin_gen;         /* its spins equal the core's words while this equals the
                                * job's spin_gen (0: never) */
};

struct latmc_ising_tables;
struct latmc_ens_lanes_job {
    int what;
    int ndim;
    int64_t extent[3];                       /* extent[2] = 1 in 2D */
    int groups, n_members;
    int algorithm;
    uint64_t seed;                           /* the ensemble's layout.seed */
    uint64_t sweep0, n_sweeps;               /* SWEEPS */
    uint32_t *spin;                          /* LOAD, FETCH: groups x N words */
    const uint32_t *bond;                    /* LOAD: groups x ndim N words, or NULL */
    const struct latmc_ising_tables *tables; /* SWEEPS */
    uint64_t *changed;                       /* SWEEPS: groups x 32 */
    int64_t *sums;                           /* SUMS: groups x 64 */
    /* appended: the CPU backend's ens_lanes runs SWEEPS on the host's words (spin, bond;
     * changed added to) for groups group0 .. groups - 1 in vectors of its SIMD level and
     * returns how many it ran (lib/ens_lanes.c runs the rest); ASK returns the vector's
     * groups (1: no SIMD). 0 for other backends. */
    int group0;
    /* appended: the CPU backend's KEEP and SWEEPS: the vector's kept words (SWEEPS runs
     * none, returning 0, unless KEEP made it for these groups); spin_gen: the core's count
     * of its writes to spin (a keep whose spin_gen differs copies the spins in). Its SUMS
     * counts groups group0 .. groups - 1 from the kept words into sums (64 g + l, as
     * above) and returns how many: all, or 0 where the keep was not made for them or
     * does not hold the core's words (lib/ens_lanes.c counts the rest). */
    struct latmc_ens_lanes_keep *keep;
    uint64_t spin_gen;
    /* appended (module ABI 16): SWEEPS: the tables' generation, never 0: the same value as
     * an earlier call of this ensemble means the same tables (the core counts its changes:
     * a parameter set, a ladder, an exchange's swap), so a backend that keeps a copy of
     * them compares this number instead of the tables. */
    uint64_t tables_gen;
    /* appended (module ABI 22): the exchange rounds on the device (lib/ens_temper.c,
     * doc/ensembles.md "Exchange rounds and measurements"). TEMPER_LOAD: the map, the round
     * trips and the acceptance per pair of `temper` (its `what` unused) and each
     * temperature's tables (temp_tables, n_temperatures of them, which every member at
     * that temperature has) onto the device; LATMC_EUNSUPPORTED where the backend runs no
     * rounds (the host's run). TEMPER_FETCH: the device's state back into temper's arrays.
     * SWEEPS with every > 0 (the state loaded): after each sweep numbered s with
     * (s + 1) % every == 0, lib/ens_exchange.c's exchange round numbered round0, round0 +
     * 1, ... on the lanes' sums (the energies with member 0's J and h), an accepted swap
     * giving each of the two members' lanes the tables of its new temperature; the host's
     * copy of the tables is then behind the device's until the core fetches the map. */
    struct latmc_ens_temper *temper;
    const struct latmc_ising_tables *temp_tables;
    uint64_t every, round0;
};

enum {
    LATMC_CLUSTER_FACES_SIZE = 0,
    LATMC_CLUSTER_FACES_OUT = 1,
    LATMC_CLUSTER_FACES_JOIN = 2,
    LATMC_CLUSTER_FACES_STATS = 8, /* a flag or'ed into the three above (cluster_faces) */
};

/*
 * The job of a LATMC_STEP_TEMPER_STATE request (lib/step.h; struct latmc_batch_request's
 * temper), offered where the backend declares LATMC_STEP_CAP_BATCH_EXCHANGE: the state of
 * parallel tempering on the device, loaded and fetched aside of the sweeps
 * (lib/ens_temper.c), whose rounds run as the batch's plan (LATMC_STEP_EXCHANGE calls).
 * Members as a batch of run_steps has them, each with a configuration, at one sweep count,
 * with a ladder of ladder_key (beta, or phi^4's mu2; a backend declines, LATMC_EUNSUPPORTED
 * with nothing done, the load of one it does not move: the core then runs the rounds
 * itself, lib/ens_exchange.c); every decision, move and statistic exactly the host round's.
 * LATMC_ENS_TEMPER_LOAD: the host's state below (current) onto the device, and the members
 * readied for the batch's exchange rounds (lib/box.h, LATMC_STEP_EXCHANGE: the plan's calls
 * of a tempering sweep then carry device_map, and the backend goes on from the state its
 * last call left). LATMC_ENS_TEMPER_FETCH: the device's state into the arrays below (the
 * members' own parameters are the core's to move, lib/ens_temper.c). The state: member_at,
 * temp_of, rt_dir, rt_start (n_members each), pair_accepted (n_T - 1), *rt_count,
 * *rt_sum_sweeps as in lib/ens_internal.h. Attempts are the core's to count (they do not
 * depend on the chain): those of the rounds of every list that succeeded, so a list that
 * fails either leaves the state as the list before it left it (refused before it ran) or
 * drops it (a later fetch fails): the core goes on from its own copy of the load
 * (lib/ens_temper.c).
 */
enum { LATMC_ENS_TEMPER_LOAD = 0, LATMC_ENS_TEMPER_FETCH = 1 };
struct latmc_ens_temper {
    int what;
    int n_samples, n_temperatures, n_replicas;
    uint64_t seed;            /* the exchange draws' key (layout.seed) */
    uint32_t stream;          /* their stream word (lib/ens_exchange_rule.h) */
    const double *ladder;     /* the ladder's value of each temperature (beta or mu2) */
    int *member_at, *temp_of;
    signed char *rt_dir;
    uint64_t *rt_start, *pair_accepted, *rt_count, *rt_sum_sweeps;
    /* appended (module ABI 18): the parameter the ladder sets (LATMC_PARAM_BETA, or
     * LATMC_PARAM_MU2: phi^4), whose values `ladder` holds, and its factor in Delta
     * (lib/ens_exchange.c: 1 for beta with the energy, 1/2 for mu2 with sum phi^2). A
     * backend that moves its members along another parameter declines the load
     * (LATMC_EUNSUPPORTED: the host's rounds run). */
    int ladder_key;
    double scale;
};

/*
 * The parameters in sim->param changed: rebuild the model's tables (model->update_data)
 * and what the backend derives from them. The one way the core and the checkpoint code
 * apply a parameter change.
 */
int latmc_sim_params_changed(latmc_sim *sim);

/*
 * Whether the sim's backend and algorithm run the chain that parameter `key` = value
 * chooses (decisions = 1: the bit-sliced decisions, doc/models/ising-decisions.md):
 * LATMC_OK, or LATMC_EUNSUPPORTED with the reason recorded for the thread. set_param and
 * the checkpoint loaders ask it, so that no sim runs another chain than the one it holds.
 */
int latmc_sim_check_chain_param(const latmc_sim *sim, int key, double value);

/*
 * The sweeps a sim can ever run: its random-number counters name 2^48 sweeps, 2^48 / nloc
 * for phi^4 (lib/phi4.h). latmc_sim_sweep refuses a call that would pass it; calls that
 * sweep in pieces (latmc_sim_tune_epsilon, an ensemble's sweeps between rounds) check
 * their whole count against it first, so that they refuse at once instead of sweeping
 * for ever.
 */
uint64_t latmc_sim_max_sweeps(const latmc_sim *sim);

/* latmc_sim_sweep refuses a sim whose acceptance counters hold more attempted updates than
 * this (latmc_sim_reset_acceptance empties them): a call adds far less than as many again,
 * so the counters stay within what a checkpoint loads (2^63, lib/checkpoint_format.h). */
#define LATMC_SWEEP_MAX_ATTEMPTED (UINT64_C(1) << 62)

extern const struct latmc_backend_ops latmc_cpu_backend_ops;

/*
 * The CPU backend, built in, described by the same table as a loaded module
 * (module_abi.h: device count, device info, ops), and its status line (a module's is the
 * loader's account of finding it).
 */
struct latmc_module;
extern const struct latmc_module latmc_cpu_module;
const char *latmc_cpu_module_status(void);

/*
 * The couplings [e0, e1) of desc.couplings `kind` from coupling_seed (coupling e = ndim i +
 * mu; lib/coupling_draws.h and heisenberg_rules.h define them) into out[e - e0]: float, or
 * (as_float 0, BIMODAL only) int8 +-1, the Ising layout. On up to n_threads threads (0: the
 * runtime default; one thread where the system refuses a team) at the CPU's SIMD level:
 * the values are the same whatever the threads and the level. Built in by the CPU backend;
 * modules reach it through their core services (module_abi.h). LATMC_OK, or LATMC_EINVAL
 * for a request that names nothing.
 */
int latmc_cpu_draw_couplings(void *out, int as_float, int kind, int64_t e0, int64_t e1,
                             uint64_t coupling_seed, int n_threads);

/*
 * Pick the backend for desc->device / desc->device_index. AUTO falls back to the CPU and
 * logs why; an explicit request that cannot be met fails (never a silent CPU run).
 */
int latmc_backend_select(latmc_ctx *ctx, const latmc_sim_desc *desc,
                         const struct latmc_backend_ops **out);

#endif
