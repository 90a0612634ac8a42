/*
 * Internal: a box, the part of one sim's lattice that one executor updates, and the call
 * by which the core asks a backend to run one step of a sweep on one box
 * (doc/architecture.md, DESIGN.md section 11).
 */
#ifndef LATMC_LIB_BOX_H
#define LATMC_LIB_BOX_H

#include <stdint.h>

#include "step.h"

struct latmc_ens_temper; /* lib/backend.h */

struct latmc_sim;

/*
 * A slab of the lattice in global coordinates: sites origin[mu] <= x_mu < origin[mu] +
 * extent[mu]. Slabs are cut along `axis` (the last one) and span the lattice along the
 * others. A step on the box reads `halo` planes beyond each of its two ends.
 */
struct latmc_box {
    int axis;
    int halo;
    int64_t origin[4];
    int64_t extent[4];
};

/* Which sites of a box one call updates (struct latmc_step_call::part). */
enum latmc_step_part {
    /* the step on every site of the box */
    LATMC_STEP_WHOLE = 0,
    /* the step and the next one of the schedule fused (the model's pair: Ising's two
     * colours, a Heisenberg pass): the step on the whole box, the next one on all its
     * planes but the `halo` planes at each end (they read the neighbouring boxes' results
     * of the step, which are not there yet). Only with LATMC_STEP_CAP_PAIR. */
    LATMC_STEP_PAIR_INTERIOR = 1,
    /* the rest of a pair: the next step on the `halo` planes at each end of the box */
    LATMC_STEP_PAIR_BORDER = 2,
    /* Appended. The step and the next one fused on the whole box: a PAIR_INTERIOR and
     * the PAIR_BORDER after it as one part. The core never asks for it; a backend's
     * run_steps may run the two so, where its run_step takes it, since nothing separates
     * them there (the halo exchange between them has nothing to copy). */
    LATMC_STEP_PAIR_WHOLE = 3,
    /* Appended. Whole sweeps of a batch (struct latmc_step_call::members) in one call:
     * call->n_sweeps sweeps numbered call->sweep, call->sweep + 1, ..., every step of each
     * in the model's order, as the plan would hand them one by one (e.g. the ensembles'
     * fused multi-sweep kernels: one launch for every step of many sweeps). Only to a backend
     * that declares LATMC_STEP_CAP_BATCH_SWEEPS for the batch's member 0; call->step is
     * step 0 of the first sweep. */
    LATMC_STEP_SWEEPS = 4
};

/* run_step capabilities (latmc_backend_ops::step_caps). */
#define LATMC_STEP_CAP_PAIR 1u /* takes the PAIR parts (the CPU's wavefront over two colours;
                                 CUDA Heisenberg: both colours of a pass in one launch) */
/* Appended. The backend's boxes each own memory cut at creation (CUDA): the cut cannot
 * change between sweeps, so latmc_sim_set_parts refuses. */
#define LATMC_STEP_CAP_FIXED_CUT 2u
/* Appended. run_step takes steps of kind LATMC_STEP_COLOUR_BITSLICED (lib/step.h) for this
 * sim: latmc_sim_set_param accepts decisions = 1 on a backend other than the CPU. */
#define LATMC_STEP_CAP_BITSLICED 4u
/* Appended. run_steps takes batches for this sim as member 0 (struct latmc_step_call::
 * members: an ensemble's members as one layout, lib/plan.c latmc_plan_sweep_batch). */
#define LATMC_STEP_CAP_BATCH 8u
/* Appended. ... and whole sweeps of a batch in one call (LATMC_STEP_SWEEPS: e.g. fused
 * multi-sweep kernels). The backend may still refuse a batch's call (below). */
#define LATMC_STEP_CAP_BATCH_SWEEPS 16u
/* Appended. ... and exchange rounds between them (LATMC_STEP_EXCHANGE calls, with
 * device_map set on every call of such a list): parallel tempering on the device, its
 * state loaded aside first (LATMC_STEP_TEMPER_STATE, lib/backend.h). */
#define LATMC_STEP_CAP_BATCH_EXCHANGE 32u
/* Appended. ... and LATMC_STEP_MEASURE calls of a batch of such members (the members'
 * sums in one launch). Declared apart from LATMC_STEP_CAP_BATCH: a backend may measure
 * members together whose steps it runs one by one. */
#define LATMC_STEP_CAP_BATCH_MEASURE 64u
/* Appended. ... and LATMC_STEP_OVERLAPS calls (the overlaps of pairs of members). */
#define LATMC_STEP_CAP_BATCH_OVERLAPS 128u
/* Appended. ... and LATMC_STEP_SWAP_PARAMS calls (tempering swaps' parameter moves). */
#define LATMC_STEP_CAP_BATCH_SWAP 256u

/*
 * What a batch's request (LATMC_STEP_MEASURE, _OVERLAPS, _SWAP_PARAMS, _TEMPER_STATE:
 * lib/step.h) reads and writes, the caller's arrays. MEASURE: member m's sums at sums + m *
 * model->sums_size, each exactly what ops.measure gives. OVERLAPS: for each pair k <
 * n_pairs of members a = pairs[2k], b = pairs[2k + 1] of Ising members,
 *     q[k]  = sum_i s_i^a s_i^b,
 *     ql[k] = sum_i sum_mu s_i^a s_i^b s_{i+mu}^a s_{i+mu}^b  (mu = 0 .. ndim - 1),
 * exact integers, so exactly the host's sums (lib/ens_overlap.c). SWAP_PARAMS: the pairs
 * (a, b) in the order the core swapped them (a member may be in several). TEMPER_STATE:
 * `temper`, the state and which way it goes.
 */
struct latmc_batch_request {
    void *sums;
    const int32_t *pairs;
    int n_pairs;
    int64_t *q, *ql;
    struct latmc_ens_temper *temper;
};

/*
 * One step (or part) on the boxes of one executor: boxes[0 .. n_boxes) in order along the
 * cut axis. The executor may run them in any order or concurrently: within one step, boxes
 * only read each other's planes that the step does not write (the halo).
 */
struct latmc_step_call {
    uint64_t sweep;                  /* the sweep's number (names its random numbers) */
    struct latmc_step step;          /* the step: kind, colour, pass, random-number names
                                        (lib/step.h); step.index: its place in the sweep */
    int part;                        /* enum latmc_step_part */
    const struct latmc_box *boxes;
    int n_boxes;
    /* Appended. Nonzero on the last call of a latmc_sim_sweep: an executor that runs
     * asynchronously (CUDA on several devices) waits for its work and reports its counts
     * by then at the latest, and may leave the host waits out before. */
    int last;
    /* Appended. A batch (n_members > 0, LATMC_STEP_CAP_BATCH): the call is the step on
     * every member members[0 .. n_members), sims of one desc but for seeds and parameters,
     * each one box alone (boxes[0], the whole lattice, whose halo is its own wrap), all at
     * sweep `sweep`; run_steps gets them with its sim = members[0], every call of a list
     * for the same batch, and adds member m's updates to accepted[m] and attempted[m]
     * (arrays of n_members) once the list succeeded (nothing where it fails). It may answer LATMC_EUNSUPPORTED with nothing done, where the
     * members cannot run together (the core then sweeps them one by one), only on the
     * first list of a latmc_plan_sweep_batch call. n_members 0: one sim, as above. What
     * a backend keeps for a batch between calls it frees when members[0] is destroyed
     * (an ensemble destroys its members in order). */
    struct latmc_sim *const *members;
    int n_members;
    /* Appended. The sweeps of a LATMC_STEP_SWEEPS call (0 otherwise). */
    uint64_t n_sweeps;
    /* Appended. A batch whose tempering map lives on the device (lib/ens_temper.c), set
     * on every call of its lists: each member's temperature is the one the backend's map
     * gives it, not its own parameters' (the core moves those only when it fetches the
     * map). With step.kind LATMC_STEP_EXCHANGE: the round's number and the ensemble's
     * sweep count after the sweeps before it (the round trips' clock). */
    int device_map;
    uint64_t round, round_sweeps;
    /* Appended. A batch's request (step.kind LATMC_STEP_MEASURE, _OVERLAPS, _SWAP_PARAMS or
     * _TEMPER_STATE): what it reads and writes; NULL for every other kind. Such a call is a
     * list alone, counts nothing (accepted and attempted may be NULL) and may be answered
     * LATMC_EUNSUPPORTED with nothing done (the core then does it member by member, or runs
     * the exchange rounds itself). */
    const struct latmc_batch_request *request;
};

#endif
