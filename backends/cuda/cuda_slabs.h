/*
 * Internal to the CUDA module: a sim on several devices (desc.n_devices > 1, or n_parts >
 * 1 on CUDA), one slab of the plan (lib/plan.c: slabs along the last axis) per device.
 *
 * Each slab keeps a local lattice of its own planes plus `halo` planes on each side
 * (halo = the model's halo rounded up to its plane multiple, 2, so that a local plane
 * has the parity of its global plane and the one-device kernels' colouring holds).
 * The one-device kernels run on the local lattice restricted to the own planes, with the
 * slab's global row offset naming the random numbers: every draw is named by global
 * site, sweep and step, so the chain is the one-device chain bit for bit. Their periodic
 * wrap only ever reaches halo planes, which are never updated, only overwritten by the
 * neighbours' planes.
 *
 * One step (a colour) per ops.run_step call, with all slabs (the core's loop, lib/plan.c;
 * this executor owns all its boxes and exchanges the halos inside run_step):
 *   for every slab: its streams wait for what they read of the previous step (events:
 *     cuda_slabs_run_step says which);
 *   for every slab: update the border planes (border stream), record an event; the copy
 *     stream waits for it and copies those planes to the neighbours' halos
 *     (cudaMemcpyPeerAsync between devices, the driver staging through host memory where
 *     peer access is missing; a plain device copy between slabs on one device), and
 *     records its own event; the main stream updates the interior meanwhile.
 * The host waits only at the last step of a latmc_sim_sweep call (latmc_step_call.last), where
 * the acceptance counters are read.
 *
 * Models: the Heisenberg spin glass (cuda_slabs_heis.c: its own slabs, halo 2, a pass's
 * two colour steps taken as the core's pair, LATMC_STEP_CAP_PAIR, border planes and
 * copies beside the interior). Ising, Potts and phi^4 run on the one executor
 * (exec/cuda_exec.h); everything else is refused at create with
 * LATMC_EUNSUPPORTED and the reason.
 *
 * A slab's device, own planes, streams, events and update counter, their creation and
 * release, the waits of a step on the previous one and on all slabs, the counters' read
 * and the host copies of whole planes: cuda_slab_exec.h, shared by every model's slabs.
 */
#ifndef LATMC_CUDA_SLABS_H
#define LATMC_CUDA_SLABS_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Up to CUDA_SLAB_COPY_RUNS runs of bytes between device memory that the stream's device
 * reaches (its own), copied by one kernel launch (slab_kernels.cu): the halo copies of a
 * slab whose neighbours are on its device, as one launch where cudaMemcpyAsync takes
 * one per run. */
#define CUDA_SLAB_COPY_RUNS 2
struct cuda_slab_copies {
    const void *src[CUDA_SLAB_COPY_RUNS];
    void *dst[CUDA_SLAB_COPY_RUNS];
    size_t bytes[CUDA_SLAB_COPY_RUNS];
    int n;
};
cudaError_t cuda_slab_copy_runs(cudaStream_t stream, const struct cuda_slab_copies *c);

#ifndef __CUDACC__
#include "backend.h"

struct cuda_sim;
struct cuda_slabs;

/* Whether the sim runs as several slabs (sim->plan has more than one box). */
bool cuda_slabs_wanted(const latmc_sim *sim);

/* Allocate every slab on its device into cs->slabs; on failure release what was allocated
 * on every device and return the error (LATMC_ENOMEM naming the device, ...). */
int cuda_slabs_create(const latmc_sim *sim, struct cuda_sim *cs);
void cuda_slabs_destroy(struct cuda_sim *cs);

int cuda_slabs_params_changed(const latmc_sim *sim, struct cuda_sim *cs);
int cuda_slabs_init_spins(const latmc_sim *sim, struct cuda_sim *cs, int how);
/* What the slabs declare to the core's plan (ops.step_caps): the Heisenberg slabs take a
 * pass's two colours as a pair (LATMC_STEP_CAP_PAIR). */
unsigned cuda_slabs_step_caps(const latmc_sim *sim, const struct cuda_sim *cs);
int cuda_slabs_run_step(const latmc_sim *sim, struct cuda_sim *cs,
                        const struct latmc_step_call *call, uint64_t *accepted,
                        uint64_t *attempted);
int cuda_slabs_measure(const latmc_sim *sim, struct cuda_sim *cs, void *sums);
int cuda_slabs_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf);
int cuda_slabs_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf);
/* +-J sims (the core calls these only for sims with couplings). */
int cuda_slabs_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf);
int cuda_slabs_set_couplings(const latmc_sim *sim, struct cuda_sim *cs, const float *buf);

/* The Heisenberg slabs (cuda_slabs_heis.c), behind the functions above. */
struct cuda_heis_slabs;
int cuda_heis_slabs_create(const latmc_sim *sim, struct cuda_heis_slabs **out);
void cuda_heis_slabs_destroy(struct cuda_heis_slabs *hs);
int cuda_heis_slabs_init_spins(const latmc_sim *sim, struct cuda_heis_slabs *hs, int how);
int cuda_heis_slabs_run_step(const latmc_sim *sim, struct cuda_heis_slabs *hs,
                             const struct latmc_step_call *call, uint64_t *accepted,
                             uint64_t *attempted);
int cuda_heis_slabs_measure(const latmc_sim *sim, struct cuda_heis_slabs *hs, void *sums);
int cuda_heis_slabs_get_spins(const latmc_sim *sim, struct cuda_heis_slabs *hs, void *buf);
int cuda_heis_slabs_set_spins(const latmc_sim *sim, struct cuda_heis_slabs *hs,
                              const void *buf);
int cuda_heis_slabs_get_couplings(const latmc_sim *sim, struct cuda_heis_slabs *hs, float *buf);
int cuda_heis_slabs_set_couplings(const latmc_sim *sim, struct cuda_heis_slabs *hs,
                                  const float *buf);

#endif

#ifdef __cplusplus
}
#endif

#endif
