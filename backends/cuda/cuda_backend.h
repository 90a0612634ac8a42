/*
 * Internal to the CUDA module: the per-sim state and the per-model kernel tables.
 *
 * Memory of one sim, all allocated by create() (nothing later allocates, so an
 * out-of-memory failure can only happen there and leaves no sim behind):
 *   spins   nsites bytes, one int8 (Ising) / uint8 (Potts) per site, natural site order
 *   tables  a device copy of sim->model_data (the core's decision tables), refreshed
 *           before every sweep call because latmc_sim_set_param rebuilds them
 *   sums    the model's sums struct (lib/ising.h, lib/potts.h), target of measure()
 *   changed one 64-bit counter of the updates that changed a site
 * and one stream: every operation of the sim is ordered on it, and different sims run
 * concurrently.
 */
#ifndef LATMC_CUDA_BACKEND_H
#define LATMC_CUDA_BACKEND_H

#include <cuda_runtime_api.h>

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
};

static inline struct cuda_sim *cuda_sim_of(const latmc_sim *sim)
{
    return (struct cuda_sim *)sim->backend;
}

/*
 * What one model provides (cuda_models.c). Each function only enqueues work on cs->stream
 * and returns the launch status; the generic code (cuda_backend.c) synchronises and
 * translates errors.
 */
struct cuda_model_kernels {
    int model;
    int cold_byte;          /* the byte of every site in the cold start */
    /* Colours of the sweep for this desc. */
    int (*colours)(const latmc_sim_desc *d);
    cudaError_t (*hot_start)(const latmc_sim *sim, struct cuda_sim *cs);
    /* One colour of sweep `sweep`, with the tables already on the device. */
    cudaError_t (*sweep_colour)(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                                int colour);
    /* The sums of the configuration into cs->sums (zeroed by the caller). */
    cudaError_t (*measure)(const latmc_sim *sim, struct cuda_sim *cs);
};

/* NULL when the CUDA module has no kernels for the model. */
const struct cuda_model_kernels *cuda_model_kernels_get(int model);

extern const struct latmc_backend_ops latmc_cuda_backend_ops;

#endif
