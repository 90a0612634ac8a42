/*
 * Internal to the CUDA module: the per-sim state and the per-model kernel tables.
 *
 * Memory of one sim, all allocated by create() (nothing later allocates, so an
 * out-of-memory failure can only happen there and leaves no sim behind):
 *   spins   the API layout: nsites x replicas x site_bytes (int8 Ising, uint8 Potts), natural
 *           site order, unless the model keeps its own layout (get_spins/set_spins hooks)
 *   tables  a device copy of sim->model_data (the core's decision tables), refreshed
 *           when the core rebuilds them (ops.params_changed: after create and at every
 *           parameter change)
 *   sums    the model's sums struct (lib/ising.h, lib/potts.h), target of measure()
 *   changed one 64-bit counter of the updates that changed a site
 * and one stream: every operation of the sim is ordered on it, and different sims run
 * concurrently.
 */
#ifndef LATMC_CUDA_BACKEND_H
#define LATMC_CUDA_BACKEND_H

#include <cuda_runtime_api.h>

#include "box.h"
#include "cuda_kernels.h"
#include "internal.h"

struct cuda_model_kernels;

struct cuda_sim {
    int device;                         /* CUDA device ordinal (desc.device_index) */
    const struct cuda_model_kernels *kernels;
    struct latmc_lattice lattice;
    int colours;                        /* colours of the sweep (2, or 3 for some Potts) */
    cudaStream_t stream;
    void *spins;
    void *tables;
    void *sums;
    unsigned long long *changed;
    void *model_state;                  /* a model's own device arrays (couplings, ...) */
    /* A sim on several devices (cuda_slabs.h): then the members above from spins on are
     * unused (NULL) and every operation goes to the slabs. */
    struct cuda_slabs *slabs;
    /* A part of a lattice shared by processes: the per-plane ops' own state
     * (cuda_planes.c; NULL until first used). */
    struct cuda_planes *planes;
    /* A sim with a leaf (cuda_leaf_of: Potts and Ising in every layout): the one
     * executor (exec/cuda_exec.h) holds its boxes, and the members above from kernels on
     * are unused (NULL) but, for a box alone, stream and lattice: its box's (owned by the
     * executor), on which the ensembles it leads run (ens_cuda.c); every operation goes
     * to the executor. */
    struct cuda_exec *exec;
    /* The batch state of an ensemble whose member 0 is this sim (ens_cuda.c; NULL until
     * its first batched call). */
    struct cuda_ens_batch *ens_batch;
};

static inline struct cuda_sim *cuda_sim_of(const latmc_sim *sim)
{
    return (struct cuda_sim *)sim->backend;
}

/*
 * What one model provides (cuda_models.c and the per-model files). The functions returning
 * cudaError_t only enqueue work on cs->stream and return the launch status; the generic
 * code (cuda_backend.c) synchronises and translates errors. Optional members may be NULL.
 */
struct cuda_model_kernels {
    int model;
    int cold_byte;          /* the byte of every spin byte in the cold start (no cold_start) */
    /* Optional: colours of the sweep for this desc (cs->colours: the Potts chain). */
    int (*colours)(const latmc_sim_desc *d);

    /* Optional: allocate the model's own device state into cs->model_state (returns a
     * library status, through cuda_check); destroy frees it, also after a failed create. */
    int (*create)(const latmc_sim *sim, struct cuda_sim *cs);
    void (*destroy)(struct cuda_sim *cs);

    /* Optional: the cold start when it is not a byte pattern (NULL: memset cold_byte). */
    cudaError_t (*cold_start)(const latmc_sim *sim, struct cuda_sim *cs);
    cudaError_t (*hot_start)(const latmc_sim *sim, struct cuda_sim *cs);

    /*
     * One step of a sweep of a one-box sim, as the core's plan hands it (lib/plan.c,
     * cuda_backend.c: run_steps): the model's step (lib/step.h: its colour, kind, sweep
     * word), or, with LATMC_STEP_CAP_PAIR in caps, the step fused with
     * the next (Heisenberg: both colours of the step's pass in one launch). Enqueue only:
     * the tables are on the device already; accepted updates are added to cs->changed.
     */
    cudaError_t (*step)(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                        const struct latmc_step *step);
    /* LATMC_STEP_CAP_* that the one-box steps take (0: WHOLE steps only). */
    unsigned caps;
    /* Optional: updates attempted per sweep (NULL: one per site). */
    uint64_t (*attempted_per_sweep)(const latmc_sim *sim);

    /* The sums of the configuration into cs->sums (zeroed by the caller). */
    cudaError_t (*measure)(const latmc_sim *sim, struct cuda_sim *cs);

    /* Optional: host copies when the device layout differs from the API's (NULL: a plain
     * copy of nsites * site_bytes). `buf` is the caller's host buffer; it must stay
     * untouched after the call returns, so the hooks copy synchronously or the generic code
     * synchronises before returning (it does). */
    cudaError_t (*get_spins)(const latmc_sim *sim, struct cuda_sim *cs, void *buf);
    cudaError_t (*set_spins)(const latmc_sim *sim, struct cuda_sim *cs, const void *buf);
    /* Models with couplings (layout of latmc_sim_get_couplings). */
    cudaError_t (*get_couplings)(const latmc_sim *sim, struct cuda_sim *cs, float *buf);
    cudaError_t (*set_couplings)(const latmc_sim *sim, struct cuda_sim *cs, const float *buf);
    /* Optional: the core's tables changed (after create and every parameter change;
     * cs->tables is being refreshed on the stream): rebuild the model's host-side form. */
    void (*params_changed)(const latmc_sim *sim, struct cuda_sim *cs);
    /* Optional (NULL: latmc_sim_device_view is refused, the layout being no strided
     * array): make the device memory of the configuration current (enqueue on cs->stream;
     * the generic code waits) and describe it with cuda_view_fill(). */
    cudaError_t (*device_view)(const latmc_sim *sim, struct cuda_sim *cs,
                               latmc_device_view *view);
    /* Optional: true when the model allocates cs->spins itself, if at all (create leaves
     * it NULL): a part's slab (cuda_planes.c). */
    bool (*model_owns_spins)(const latmc_sim *sim);
};

/*
 * Fill a device view of the configuration at `data` (cuda_backend.c): shape in the API's
 * order ([replica,] [z,] y, x [, component]), strides in bytes: site_stride between
 * neighbours along x (y and z follow from the extents), component_stride (used when
 * components > 1) and replica_stride (used with 2 replicas).
 */
void cuda_view_fill(const latmc_sim *sim, const struct cuda_sim *cs, latmc_device_view *view,
                    const void *data, int dtype, int64_t site_stride, int components,
                    int64_t component_stride, int64_t replica_stride);

/* NULL when the CUDA module has no kernels for the model. */
const struct cuda_model_kernels *cuda_model_kernels_get(int model);

extern const struct latmc_backend_ops latmc_cuda_backend_ops;

#endif
