/*
 * Internal to the CUDA module: the per-sim state. Every model is a leaf of the one
 * executor (exec/cuda_leaf.h, cuda_leaf_of), which holds the sim's boxes and all their
 * device memory; the module's operations (cuda_backend.c) go to it.
 */
#ifndef LATMC_CUDA_BACKEND_H
#define LATMC_CUDA_BACKEND_H

#include <stdbool.h>

#include <cuda_runtime_api.h>

#include "box.h"
#include "cuda_kernels.h"
#include "internal.h"

struct cuda_sim {
    int device;                         /* CUDA device ordinal: the first box's */
    /* A box alone (one box on one device, cuda_exec_lone_box): its stream and stored lattice,
     * on which the ensembles it leads run (ising/cuda_ising_batch.c); else NULL and unused.
     */
    cudaStream_t stream;
    struct latmc_lattice lattice;
    struct cuda_exec *exec;             /* the one executor: the sim's boxes */
    /* The batch state a model keeps itself for the ensembles whose member 0 is this sim
     * (exec/cuda_batch.h, cuda_batch_lead_slot: Ising's; NULL until its first batched
     * call). */
    struct cuda_lead_state *ens_batch;
    /* The tempering state of that ensemble on the device (exec/cuda_temper.c; NULL
     * until its first upload). Kept here, where the routing finds it for the driver, not in
     * a model's batch: no batch file calls the tempering files that call it. */
    struct cuda_ens_temper *ens_temper;
    /* The member lanes' words of that ensemble (ensembles/ens_lanes.c; NULL until loaded). */
    struct cuda_ens_lanes *ens_lanes;
    /* As an ensemble's member this sim runs one by one, not in the batch: a Heisenberg,
     * Potts or phi^4 sim made with LATMC_ENS_HEIS_BATCH=0, LATMC_ENS_POTTS_BATCH=0 or
     * LATMC_ENS_PHI4_BATCH=0 in the environment (it also is measured and swaps its
     * parameters one by one: exec/cuda_batch.c, and the swaps' check in
     * ensembles/ens_batch_steps.c; the tests' reference), and a
     * Swendsen-Wang or Wolff sim of Ising or Potts made with LATMC_ENS_SW_BATCH=0 (the
     * cluster steps' batch and its measurement: exec/cuda_batch.c, clusters/cuda_sw_batch.c;
     * their overlaps and swaps are one by one either way). Read once here, not at every launch
     * and swap. */
    bool ens_one_by_one;
    /* The embedded cluster steps' arrays (cuda_embed.c; NULL until the first). */
    struct cuda_embed *embed;
    /* The same on k > 1 boxes (cuda_embed_boxes.c; NULL until the first). */
    struct cuda_embed_boxes *embed_boxes;
    bool embed_on_host; /* LATMC_CUDA_EMBED=host at create: ops.embed_step declines */
    bool embed_no_room_noted; /* cuda_embed_note_no_room has logged */
};

/* ops.embed_step (lib/backend.h; cuda_embed.c) and the release of its arrays. */
struct latmc_embed_job;
int cuda_embed_step(latmc_sim *sim, int what, struct latmc_embed_job *job);
void cuda_embed_free(struct cuda_embed *e);

static inline struct cuda_sim *cuda_sim_of(const latmc_sim *sim)
{
    return (struct cuda_sim *)sim->backend;
}

extern const struct latmc_backend_ops latmc_cuda_backend_ops;

#endif
