/*
 * Internal: a box, the part of one sim's lattice that one executor updates, and the call
 * by which the core asks a backend to run one step of a sweep on one box
 * (doc/architecture.md, DESIGN.md section 11).
 */
#ifndef LATMC_LIB_BOX_H
#define LATMC_LIB_BOX_H

#include <stdint.h>

#include "step.h"

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
    LATMC_STEP_PAIR_WHOLE = 3
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
};

#endif
