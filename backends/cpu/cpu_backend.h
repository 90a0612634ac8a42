/* Internal to the CPU backend: its per-sim state and the per-model kernel tables. */
#ifndef LATMC_CPU_BACKEND_H
#define LATMC_CPU_BACKEND_H

#include "box.h"
#include "backend.h"
#include "cpu_lattice.h"
#include "cpu_omp.h"

struct cpu_model_kernels;

struct cpu_state {
    struct latmc_lattice lattice;
    const struct cpu_model_kernels *kernels;
    void *model_state;    /* the model's arrays, owned by its kernels */
    unsigned simd_flags;  /* cpu_flags() at creation: the kernels' SIMD level */
};

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
};

/* NULL when the CPU backend has no kernels for the model (cpu_models.c). */
const struct cpu_model_kernels *cpu_model_kernels_get(int model);

#endif
