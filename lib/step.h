/*
 * Internal: a concrete step of a sweep, what the core hands an executor instead of a
 * number to decode (DESIGN.md section 12). The model says what step s of a sweep is
 * (model_def.step_of: its kind, colour, pass and the names of its random numbers); the
 * plan (lib/plan.c) completes the counter words once (latmc_step_name) and passes the
 * step down in struct latmc_step_call. Executors read the fields; none derives a colour
 * or a pass from the index.
 */
#ifndef LATMC_LIB_STEP_H
#define LATMC_LIB_STEP_H

#include <stdint.h>

#include "rng_streams.h"

enum latmc_step_kind {
    /* update of the sites of one colour class (Metropolis, heat bath) */
    LATMC_STEP_COLOUR = 0,
    /* overrelaxation of the sites of one colour class (Heisenberg: no random numbers) */
    LATMC_STEP_OVERRELAX = 1,
    /* step `index` of a chain the backend declares for a sim (ops.own_schedule, CUDA
     * phi^4's chunk phases): the backend names its own draws; the naming fields are 0 */
    LATMC_STEP_OWN = 2,
    /* update of the sites of one colour class with bit-sliced decisions (Ising decisions
     * = 1, doc/models/ising-decisions.md): block = a group of 32 sites of the colour, its
     * bit plane b output b mod 4 of sub `sub` + b / 4 */
    LATMC_STEP_COLOUR_BITSLICED = 3,
    /* The three steps of a Swendsen-Wang sweep on a backend that runs them as steps
     * (lib/cluster_steps.c; doc/clusters.md defines the chain). Their draws are named by
     * stream LATMC_STREAM_CLUSTER, sub 0 (lib/cluster_bonds.h), not by the UPDATE stream.
     * BONDS: every bond (i, mu) drawn, phase LATMC_CLUSTER_PHASE_BONDS, active iff its
     *   ends are satisfied and its draw < cluster_threshold; no site changes.
     * LABEL: every site labelled with its cluster's name, the smallest global site index
     *   of its component of the active bonds (CUDA: each box its own planes, then the
     *   pieces at the faces joined across the boxes within the same step); no draws.
     * FLIP: every cluster's decision drawn at its name, phase LATMC_CLUSTER_PHASE_DECIDE,
     *   and every site given its cluster's new state; counts the sites that changed. */
    LATMC_STEP_CLUSTER_BONDS = 4,
    LATMC_STEP_CLUSTER_LABEL = 5,
    LATMC_STEP_CLUSTER_FLIP = 6,
    /* The third step of a Wolff sweep, after BONDS and LABEL (the same bonds: the seed's
     * component of them is the cluster the CPU grows): only the cluster of the sweep's
     * seed site (lib/cluster_bonds.h, latmc_cluster_seed_site) updated, its decision drawn
     * at its name (phase LATMC_CLUSTER_PHASE_DECIDE); counts the sites that changed, and
     * the cluster's sites as the updates attempted. */
    LATMC_STEP_CLUSTER_FLIP_SEED = 7,
    /* An exchange round of parallel tempering over a batch's members (lib/box.h,
     * LATMC_STEP_CAP_BATCH_EXCHANGE; the rule and its draws: lib/ens_exchange_rule.h): no
     * site changes; the members' energies after the sweeps before it decide the pairs of
     * round struct latmc_step_call::round, and accepted pairs exchange temperatures in the
     * backend's map. Its names are 0 (the round's draws name themselves). */
    LATMC_STEP_EXCHANGE = 8,
    /* Requests of a batch (lib/box.h, struct latmc_batch_request), each a list alone (one
     * call): no site changes, no draws, no counts; the members may be at different sweep
     * counts. Their names are 0.
     * MEASURE: every member's sums (LATMC_STEP_CAP_BATCH_MEASURE);
     * OVERLAPS: the two-replica overlap sums of pairs of Ising members
     *   (LATMC_STEP_CAP_BATCH_OVERLAPS);
     * SWAP_PARAMS: the members of each pair have exchanged their parameters and model
     *   data (accepted tempering swaps: each holds what the other held, exactly what
     *   update_data gives for its new parameters); the backend exchanges what it derived
     *   from them, pair after pair, leaving each member as params_changed would, without
     *   copying tables to a device (LATMC_STEP_CAP_BATCH_SWAP). All pairs or none: a
     *   refusal leaves every member as it was (the core then applies params_changed).
     * TEMPER_STATE: the batch's tempering state (the temperature map, the pairs'
     *   acceptances, the round trips) loaded onto the backend or fetched from it
     *   (struct latmc_ens_temper, lib/backend.h, says which), where the backend runs the
     *   exchange rounds (LATMC_STEP_CAP_BATCH_EXCHANGE). */
    LATMC_STEP_MEASURE = 9,
    LATMC_STEP_OVERLAPS = 10,
    LATMC_STEP_SWAP_PARAMS = 11,
    LATMC_STEP_TEMPER_STATE = 12
};

struct latmc_step {
    int index;          /* position in the sweep's schedule (0 .. steps - 1) */
    int kind;           /* enum latmc_step_kind */
    int colour;         /* the colour class it updates */
    int pass;           /* the pass of the sweep it belongs to (phi^4: of nloc; Heisenberg:
                           heat bath or overrelaxation passes) */
    /* The names of its random numbers (lib/rng_streams.h): the UPDATE stream of replica 0
     * (other replicas: latmc_rng_stream(UPDATE, r)), sweep word rng_sweep (the sweep's
     * number; phi^4: sweep nloc + pass), phase (the colour) and the first sub a draw of
     * the step uses (Potts: the propose or heat-bath sub; phi^4: hit 0, draw 0). */
    uint64_t rng_sweep;
    uint32_t stream;
    uint32_t phase;
    uint32_t sub;
    /* The name of its first draws (lib/rng_streams.h: counter words 1..3 of block 0 of
     * (rng_sweep, stream, phase, sub)), built once per step by latmc_step_name. Kernels
     * draw with latmc_rng_name_block(seed, rng, block) and derive the step's other draws
     * (other subs, phases, the other replica) from it. */
    struct latmc_rng_name rng;
    /* Appended for the cluster steps: BONDS, the bond threshold floor(p 2^32) of
     * doc/clusters.md (Ising p = 1 - exp(-2 |beta J|), Potts 1 - exp(-beta J)); FLIP, the
     * keep threshold of an Ising cluster without a field (2^31). 0 for other kinds. */
    uint64_t cluster_threshold;
};

/* A step of `kind` named by (rng_sweep, UPDATE stream of replica 0, phase, sub), with
 * its counter words. */
static inline struct latmc_step latmc_step_name(int index, int kind, int colour, int pass,
                                                uint64_t rng_sweep, uint32_t phase,
                                                uint32_t sub)
{
    struct latmc_step s;
    s.index = index;
    s.kind = kind;
    s.colour = colour;
    s.pass = pass;
    s.rng_sweep = rng_sweep;
    s.stream = latmc_rng_stream(LATMC_STREAM_UPDATE, 0);
    s.phase = phase;
    s.sub = sub;
    s.rng = latmc_rng_update_name(rng_sweep, phase, sub); /* of s.stream */
    s.cluster_threshold = 0;
    return s;
}

/* Step `index` of a backend's own chain (LATMC_STEP_OWN). */
static inline struct latmc_step latmc_step_own(int index)
{
    struct latmc_step s = latmc_step_name(index, LATMC_STEP_OWN, 0, 0, 0, 0, 0);
    return s;
}

/* A step without names of its own: an exchange round (LATMC_STEP_EXCHANGE), a batch's
 * requests (LATMC_STEP_MEASURE, _OVERLAPS, _SWAP_PARAMS, _TEMPER_STATE). */
static inline struct latmc_step latmc_step_unnamed(int kind)
{
    struct latmc_step s = latmc_step_name(0, kind, 0, 0, 0, 0, 0);
    return s;
}

static inline struct latmc_step latmc_step_exchange(void)
{
    return latmc_step_unnamed(LATMC_STEP_EXCHANGE);
}

#endif
