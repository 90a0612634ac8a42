/*
 * The CPU executor's own declarations: what cpu_backend.c (the ops, run_steps) calls in
 * cpu_boxes.c (in-process boxes) and cpu_models.c (the kernel tables). The executor calls
 * a model's kernels through their table (cpu_backend.h) and the models call only the layer
 * below both (cpu_shared.c, cpu_omp.h, coupling_fill.c, ...): no file of a model's folder
 * includes this header (the `layering` test).
 */
#ifndef LATMC_CPU_EXEC_H
#define LATMC_CPU_EXEC_H

#include "cpu_backend.h"

/* The boxes of a sim cut into k > 1 in-process boxes (below); cpu_state.boxes. */
struct cpu_boxes {
    int n;
    int64_t planes;            /* the boxes' planes: the lattice's along the cut axis */
    struct cpu_state *box;     /* n states, box i the slab of plan box i */
    unsigned char *halo_buf;   /* n buffers of halo_bytes: a box's halo in transit */
    size_t halo_bytes;
};

/*
 * Whether calls[c] and calls[c + 1] are the two parts of one fused pair (lib/box.h): with
 * nothing to exchange between them, they run as one LATMC_STEP_PAIR_WHOLE call, which
 * saves the team a barrier and keeps a box's ends in the members' bands.
 */
static inline bool cpu_is_pair_start(const struct latmc_step_call *calls, int n_calls, int c)
{
    return calls[c].part == LATMC_STEP_PAIR_INTERIOR && c + 1 < n_calls &&
           calls[c + 1].part == LATMC_STEP_PAIR_BORDER && calls[c + 1].sweep == calls[c].sweep &&
           calls[c + 1].step.index == calls[c].step.index;
}

static inline struct latmc_step_call cpu_pair_whole(const struct latmc_step_call *calls, int c)
{
    struct latmc_step_call whole = calls[c];
    whole.part = LATMC_STEP_PAIR_WHOLE;
    whole.last = calls[c + 1].last;
    return whole;
}

/* Slab-only storage of `box` (a box of sim->plan) in st: st->lattice, st->global as the
 * whole lattice, set before, become the slab's local lattice and the whole one. */
void cpu_slab_setup(latmc_sim *sim, struct cpu_state *st, const struct latmc_box *box);

/*
 * In-process boxes with their own memory (cpu_boxes.c): a sim of desc.n_parts = k > 1
 * (not a part of a shared lattice) whose model's kernels take slab storage holds k states,
 * each a slab of its own with its halos (struct cpu_slab); the steps write the border
 * planes into the neighbours' halos as they go (copy_step_sites, run_pair_own_boxes;
 * else a copy through the per-plane forms after a barrier). The whole-lattice
 * ops run on every state in turn (cpu_state_count, cpu_state_at, cpu_backend.h).
 */
bool cpu_boxes_wanted(const latmc_sim *sim, const struct cpu_state *st, int n_boxes);
int cpu_boxes_create(latmc_sim *sim, struct cpu_state *st, const struct latmc_box *boxes,
                     int n_boxes);
void cpu_boxes_destroy(struct cpu_state *st);
int cpu_boxes_init_spins(latmc_sim *sim, struct cpu_state *st, int how);
int cpu_boxes_measure(latmc_sim *sim, struct cpu_state *st, void *sums);
int cpu_boxes_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             void *sums);
int cpu_boxes_get_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                         void *buf);
int cpu_boxes_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                         const void *buf);
int cpu_boxes_get_coupling_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0,
                                  int64_t p1, float *buf);
int cpu_boxes_run_steps(latmc_sim *sim, struct cpu_state *st,
                        const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                        uint64_t *attempted);
/* Whether the plan's boxes (a step call's) are not the storage's, after
 * latmc_sim_set_parts; recut then moves the state into storage for them. */
bool cpu_boxes_recut_needed(const latmc_sim *sim, const struct cpu_state *st,
                            const struct latmc_box *boxes, int n_boxes);
int cpu_boxes_recut(latmc_sim *sim, struct cpu_state *st, const struct latmc_box *boxes,
                    int n_boxes);

/* NULL when the CPU backend has no kernels for the model (cpu_models.c). */
const struct cpu_model_kernels *cpu_model_kernels_get(int model);

#endif
