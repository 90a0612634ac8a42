/* Internal to the CPU backend: its per-sim state and the per-model kernel tables, which the
 * executor and the models share (the executor's own declarations: cpu_exec.h). */
#ifndef LATMC_CPU_BACKEND_H
#define LATMC_CPU_BACKEND_H

#include "box.h"
#include "backend.h"
#include "cpu_lattice.h"
#include "cpu_omp.h"

struct cpu_model_kernels;
struct cpu_boxes;

/*
 * Slab-only storage of a part of a lattice shared by processes (lib/part.h, n_parts > 1,
 * for a model whose kernels take it: cpu_model_kernels.slab_storage). The backend then
 * holds `planes` = `below` planes, the slab's, and `halo` planes above, as a lattice of its
 * own (cpu_state.lattice: L_y, or L_z in 3D, = planes), not the whole lattice. Local
 * plane l is global plane (origin + l) mod L, origin = the slab's first plane - below
 * (negative for part 0). below >= halo: the planes under the slab's lower halo are never
 * read; a model may ask for more than the halo (cpu_model_kernels.slab_below) so that the
 * local lattice's colouring and chunks line up with the global ones. The kernels update
 * the local planes [below, below + slab) only, so the periodic wrap of the local lattice
 * is never used for an updated site (its neighbours are halo planes); the random numbers
 * and the colours take the global plane, origin + l, which is never negative there. Off
 * (on = false) for every other sim: then local = global and nothing changes.
 */
struct cpu_slab {
    bool on;
    int halo;
    int64_t below;          /* local planes under the slab (>= halo) */
    int64_t origin;         /* global plane of local plane 0 (may be negative) */
    int64_t planes;         /* local planes: below + the slab's + halo */
    int64_t global_planes;  /* L along the last axis */
    int64_t p0, p1;         /* the slab's global planes [p0, p1) */
};

struct cpu_state {
    struct latmc_lattice lattice;  /* the lattice the arrays hold (a slab's: local) */
    const struct cpu_model_kernels *kernels;
    void *model_state;    /* the model's arrays, owned by its kernels */
    unsigned simd_flags;  /* cpu_flags() at creation: the kernels' SIMD level */
    /* appended: slab-only storage (above) and the whole lattice's geometry */
    struct cpu_slab slab;
    struct latmc_lattice global;
    /* appended: in-process boxes with their own memory (cpu_boxes.c); NULL: one state */
    struct cpu_boxes *boxes;
};

/* The local plane of global plane g (slab storage; else g itself). Only the slab's planes
 * and its halos are asked for: the slab and the upper halo from `below` on, the lower halo
 * just under it. */
static inline int64_t cpu_slab_local(const struct cpu_state *st, int64_t g)
{
    if (!st->slab.on)
        return g;
    const int64_t L = st->slab.global_planes;
    int64_t d = (g - st->slab.p0) % L;
    d += d < 0 ? L : 0;
    return d < L - st->slab.halo ? st->slab.below + d : st->slab.below - (L - d);
}

/* The global plane of local plane l (slab storage; else l itself). */
static inline int64_t cpu_slab_global(const struct cpu_state *st, int64_t l)
{
    if (!st->slab.on)
        return l;
    int64_t g = (l + st->slab.origin) % st->slab.global_planes;
    return g < 0 ? g + st->slab.global_planes : g;
}

static inline struct cpu_state *cpu_state_of(latmc_sim *sim)
{
    return (struct cpu_state *)sim->backend;
}

/*
 * What one model provides to the CPU backend. The core has validated everything; these
 * only fail on allocation. Every function must give the same result for any
 * sim->n_threads (the reproducibility guarantee).
 */
struct cpu_model_kernels {
    int model;
    /* Allocate st->model_state for sim->desc (configuration undefined). */
    int (*create)(latmc_sim *sim, struct cpu_state *st);
    void (*destroy)(struct cpu_state *st);
    int (*init_spins)(latmc_sim *sim, struct cpu_state *st, int how);
    /* The reduction into the model's sums struct (lib/<model>.h). */
    void (*measure)(latmc_sim *sim, struct cpu_state *st, void *sums);
    void (*get_spins)(latmc_sim *sim, struct cpu_state *st, void *buf);
    void (*set_spins)(latmc_sim *sim, struct cpu_state *st, const void *buf);
    /* NULL for models without couplings. */
    void (*get_couplings)(latmc_sim *sim, struct cpu_state *st, float *buf);
    void (*set_couplings)(latmc_sim *sim, struct cpu_state *st, const float *buf);
    /* Optional: sim->model_data was rebuilt (after create and every parameter change):
     * rebuild the kernels' own form of it, so that no sweep derives it again. */
    void (*params_changed)(latmc_sim *sim, struct cpu_state *st);
    /* Optional (NULL: one box only): latmc_backend_ops.run_step and .step_caps for the
     * model (lib/box.h). run_step runs the share of team member `team` (cpu_omp.h: every
     * member calls it with the same call, no region of its own, no barrier at its end; the
     * backend's cpu_run_steps keeps the steps apart) and adds the updates its share
     * accepted; member 0 also adds the call's updates attempted. */
    void (*run_step)(latmc_sim *sim, struct cpu_state *st, const struct latmc_step_call *call,
                     const struct cpu_team *team, uint64_t *accepted, uint64_t *attempted);
    unsigned (*step_caps)(latmc_sim *sim, struct cpu_state *st);
    /* Optional (NULL: LATMC_EUNSUPPORTED): latmc_backend_ops.measure_planes, get_planes
     * and set_planes for the model (lib/backend.h). measure must equal the in-order
     * combination of measure_planes (model->add_sums) for every sim->n_threads. */
    void (*measure_planes)(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                           void *sums);
    void (*get_planes)(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                       void *buf);
    void (*set_planes)(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                       const void *buf);
    /* Appended. Whether the kernels take slab-only storage (struct cpu_slab): every
     * function above then works on st->lattice, the slab's local lattice, with local
     * plane numbers in the calls (the backend translates the boxes of run_step and the
     * global planes [p0, p1) of the per-plane forms, with cpu_slab_local), and
     * the whole-lattice buffers of set_spins and set_couplings give it its planes;
     * get_spins, get_couplings and measure cover its own slab only. */
    bool slab_storage;
    /* Optional (NULL: the halo): the planes to hold under a slab that starts at global
     * plane p0, at least `halo` (struct cpu_slab.below). */
    int64_t (*slab_below)(latmc_sim *sim, int64_t p0, int halo);
    /* Optional: latmc_backend_ops.get_coupling_planes (the couplings of the sites of
     * planes [p0, p1), in get_couplings' layout restricted to them). */
    void (*get_coupling_planes)(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                                float *buf);
    /* Appended. Optional (NULL: cpu_boxes.c runs the pair's two parts with its halo copies
     * between them): a fused pair (LATMC_STEP_PAIR_WHOLE, call->boxes the plan's global
     * boxes) on in-process boxes with their own memory, box i's state states[i] (slab
     * storage with one halo plane). The kernels write each box's border planes into its
     * neighbours' halos themselves as soon as they are final, one colour at a time, so
     * that the boxes need no meeting a shared lattice does not: the next step, after the
     * caller's barrier, reads them. Called only when step_caps has LATMC_STEP_CAP_PAIR. */
    void (*run_pair_own_boxes)(latmc_sim *sim, struct cpu_state *states,
                               const struct latmc_step_call *call, const struct cpu_team *team,
                               uint64_t *accepted, uint64_t *attempted);
    /* Appended. Optional (NULL: cpu_boxes.c copies whole planes after a barrier): for
     * in-process boxes with their own memory, copy the sites that step `step` of the
     * schedule updates (its colour) in local planes [l0, l0 + n) of box src into local
     * planes [d0, d0 + n) of box dst, and nothing else: while the step runs, no other
     * site reads them, so a box's border planes go into its neighbours' halos as soon as
     * they are updated, and a WHOLE step needs the one barrier at its end. */
    void (*copy_step_sites)(latmc_sim *sim, struct cpu_state *src, int64_t l0,
                            struct cpu_state *dst, int64_t d0, int64_t n,
                            const struct latmc_step *step);
    /* Appended. Optional (NULL: yes): whether copy_step_sites may write a box's halo while
     * the step runs there and members may cut a box at any plane: no, where a step's
     * stores write sites outside the planes it updates (a whole SIMD chunk across a
     * plane boundary, written back as read). Asked before each run of steps. */
    bool (*through_safe)(latmc_sim *sim, struct cpu_state *st);
    /* Appended. Optional (NULL: the core's separate pass): latmc_backend_ops.measure_modes
     * for a state that holds the whole lattice (no slab): measure() and the Fourier modes'
     * partial result in one pass. LATMC_OK or LATMC_ENOMEM (with its message). */
    int (*measure_modes)(latmc_sim *sim, struct cpu_state *st, void *sums,
                         void *modes_partial);
    /* Appended. Optional (NULL, or 0: the model's schedule): latmc_backend_ops.own_schedule
     * for a sim of one box in one state (phi^4's chunk schedule, phi4_chunks.h): the steps
     * of one sweep of the kernels' own chain, which run_step then gets as LATMC_STEP_OWN. */
    int (*own_steps)(latmc_sim *sim, struct cpu_state *st);
    /* Appended. Optional (NULL: pair by pair): fused pairs run as one. fuse_pairs says how
     * many of the n_pairs consecutive fused pairs at calls (calls[2i] a PAIR_INTERIOR,
     * calls[2i + 1] its PAIR_BORDER) run_pairs takes as one call, from the first, on one
     * state holding the lattice with a team of team_size members: k >= 2, or 0 (none; the
     * same answer for every member). run_pairs runs member team's share of those 2k
     * calls, as run_step runs a call's (Heisenberg: overrelaxation passes as one
     * wavefront). */
    int (*fuse_pairs)(latmc_sim *sim, struct cpu_state *st, const struct latmc_step_call *calls,
                      int n_pairs, int team_size);
    void (*run_pairs)(latmc_sim *sim, struct cpu_state *st, const struct latmc_step_call *calls,
                      int k, const struct cpu_team *team, uint64_t *accepted,
                      uint64_t *attempted);
};

/*
 * What the executor (cpu_backend.c, cpu_boxes.c) and the models' kernels both call
 * (cpu_shared.c, the layer below both: it calls neither, so no kernel calls back up into
 * the executor that calls it through its table).
 */
/* The two steps of the fused pair a PAIR call starts with (lib/box.h): the call's step and
 * the next one of the model's schedule (model_def.step_of), each with its names. */
void cpu_pair_steps(latmc_sim *sim, const struct latmc_step_call *call,
                    struct latmc_step pair[2]);

/* The states of a sim: 1 and st itself for a sim of one state, else its in-process boxes'
 * (cpu_exec.h), so that the whole-lattice ops run on every state in turn. */
int cpu_state_count(const struct cpu_state *st);
struct cpu_state *cpu_state_at(struct cpu_state *st, int i);

#endif
