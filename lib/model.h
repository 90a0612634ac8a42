/*
 * Internal: what the core knows about each model. One descriptor per model
 * (lib/model_<name>.c); the core validates and dispatches through it, the backends
 * implement the updates and the reductions.
 */
#ifndef LATMC_LIB_MODEL_H
#define LATMC_LIB_MODEL_H

#include "internal.h"
#include "step.h"

struct latmc_model_def {
    int id;                     /* enum latmc_model */
    const char *name;           /* for messages: "Ising", "Potts", ... */
    bool implemented;           /* false: latmc_sim_create() says "not implemented yet" */
    uint32_t params;            /* bit (1u << key) for each parameter of the model */
    uint32_t algorithms;        /* bit (1u << algorithm) for each supported algorithm */
    int default_algorithm;
    int max_replicas;
    bool uniform_couplings;     /* a UNIFORM sim has a coupling array too (Heisenberg: all
                                   1); else only the random kinds of coupling_kinds have
                                   one (Ising +-J). See latmc_model_has_couplings(). */
    uint32_t observables;       /* bit (1u << key) for each observable it defines */
    size_t sums_size;           /* bytes of the backends' reduction result (sim->sums) */
    size_t data_size;           /* bytes of the derived tables (sim->model_data) */

    /* Model-specific checks of a desc whose generic fields are already valid (extents
     * >= 2, ndim, enums): parity or divisibility of extents, q, ... LATMC_OK or a code
     * set through latmc_fail(). */
    int (*check_desc)(const latmc_sim_desc *d);
    /* Bytes per site of one replica in latmc_sim_get/set_spins. */
    size_t (*site_bytes)(const latmc_sim_desc *d);
    /* Check a host configuration (sites x replicas) before latmc_sim_set_spins. */
    int (*check_spins)(const latmc_sim *sim, const void *buf);
    /* Rebuild sim->model_data (decision tables, ...) from sim->param. */
    void (*update_data)(latmc_sim *sim);
    /* Observable `key` (a bit of `observables`) from a reduction. */
    int (*observable)(const latmc_sim *sim, const void *sums, int key, double *value);

    /* Appended (the members above keep their offsets, which the backend modules read). */
    uint32_t coupling_kinds;    /* bit (1u << kind) for each desc.couplings value it takes;
                                   0: UNIFORM only (any other value is refused) */
    /* Optional: check couplings (latmc_sim_couplings_size() floats, all finite) before
     * latmc_sim_set_couplings or a checkpoint hands them to the backend. `fn` names the
     * caller in the message. */
    int (*check_couplings)(const latmc_sim *sim, const float *buf, size_t count,
                           const char *fn);

    /* Appended: the schedule of a sweep for the plan (lib/plan.c). 0 steps: the model runs
     * as one box only (desc.n_parts > 1 is LATMC_EUNSUPPORTED). */
    int sweep_steps;            /* steps of one sweep (Ising: colour 0, colour 1) */
    int box_halo;               /* planes a step reads beyond its box (1: nearest neighbours) */
    int box_plane_multiple;     /* a slab's thickness is a multiple of this, so that its
                                   colouring is the global one (2: the checkerboard) */

    /* Appended: decomposition-independent reductions (DESIGN.md section 11). Add one tile's
     * sums (one lattice plane along the last axis, or an ordered run of planes) into
     * `total`, member by member. Every reduction of a whole lattice is the combination of
     * its planes' sums in increasing plane order, starting from zeros: so observables do
     * not depend on boxes, threads, devices or ranks. Integer members stay integers. */
    void (*add_sums)(void *total, const void *tile);

    /* Appended, optional: the plan's schedule and box rules where they depend on the sim.
     * sweep_schedule: the steps of one sweep for the sim's current parameters (phi^4: nloc
     * passes times the colours), asked at every latmc_sim_sweep, so a parameter change
     * applies from the next sweep; NULL: sweep_steps. box_plane_multiple_of: the plane
     * multiple for these extents (phi^4: the colouring's period along the cut axis);
     * NULL: box_plane_multiple. A model has a schedule if sweep_steps > 0 or
     * sweep_schedule is set. */
    int (*sweep_schedule)(const latmc_sim *sim);
    int (*box_plane_multiple_of)(const latmc_sim_desc *d);

    /* Appended: what step s (0 .. steps of the sweep - 1) of sweep `sweep` is, as
     * executors get it (lib/step.h): kind, colour, pass and the names of its random
     * numbers with their counter words (latmc_step_name). Set for every model with a
     * schedule; the one place that decodes a step's number. */
    struct latmc_step (*step_of)(const latmc_sim *sim, uint64_t sweep, int s);
};

/* Whether a sim of this model and desc (validated) has couplings: latmc_sim_get/
 * set_couplings apply and checkpoints carry them. */
bool latmc_model_has_couplings(const struct latmc_model_def *model, const latmc_sim_desc *d);

/* The sums of n planes (model->sums_size bytes each, in plane order) added in that order
 * from zero into sums (add_sums): a whole reduction, the same for any cut. */
void latmc_model_add_planes(const struct latmc_model_def *model, void *sums, const void *planes,
                            int64_t n);

/* NULL for an unknown model number. The models are those of lib/model_list.h, each the
 * descriptor `latmc_model_<m>` of its lib/model_<m>.c. */
const struct latmc_model_def *latmc_model_get(int id);

const char *latmc_algorithm_name(int algorithm);

/*
 * The order-parameter observables every model shares, from this configuration's m (its
 * signed or non-negative magnetisation per site) and m2 = |m|^2: MAGNETIZATION m,
 * ABS_MAGNETIZATION |m|, M2 and M2_K0 m2, M4 m2^2. LATMC_EUNSUPPORTED for any other key.
 */
int latmc_moment_observable(int key, double m, double m2, double *value);

/* The generic check that every extent in use is even (checkerboard models). */
int latmc_check_even_extents(const latmc_sim_desc *d);

/* The descriptors: `latmc_model_<m>` of lib/model_<m>.c, one per line of model_list.h. */
#define LATMC_MODEL(m) extern const struct latmc_model_def latmc_model_##m;
#include "model_list.h"
#undef LATMC_MODEL

#endif
