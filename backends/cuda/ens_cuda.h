/*
 * Internal to the CUDA module: the ensembles' batched sweeps (lib/backend.h, ens_sweep;
 * doc/ensembles.md). One launch per colour covers every member of an ensemble: the grid
 * runs over members x Philox blocks, each member's device pointers and seed in a device
 * array, each site updated by the very per-block rule of the CPU reference
 * (lib/ising_rules.h), so every member is bit for bit its standalone sim.
 */
#ifndef LATMC_CUDA_ENS_CUDA_H
#define LATMC_CUDA_ENS_CUDA_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ising.h"
#include "lattice_numbering.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One member of a batched Ising launch. */
struct cuda_ens_ising_member {
    int8_t *spins;                           /* byte layout, natural site order */
    const int8_t *eps;                       /* +-J couplings eps[ndim i + mu]; NULL uniform */
    const struct latmc_ising_tables *tables; /* the device copy of the core's tables */
    uint64_t seed;
};

/* Colour `colour` of sweep `sweep` of all n_members members (device array `members`, one
 * lattice shape, uniform or all +-J as `coupled` says), one launch; the spins of member m
 * that changed are added to changed[m] (device counters). */
cudaError_t cuda_ens_ising_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                        const struct cuda_ens_ising_member *members,
                                        int64_t n_members, int coupled, int algorithm,
                                        uint64_t sweep, int colour, unsigned long long *changed);

#ifdef __cplusplus
}

#else /* the C side */

#include "cuda_backend.h"

/* cuda_ising.c: make the bytes of member cs hold its configuration (the batched kernel
 * runs the byte layout's rule), mark its packed copy stale, and give its device couplings
 * (NULL when uniform). *enqueued: whether that needed work on cs->stream (an unpack). */
cudaError_t cuda_ising_batch_member(struct cuda_sim *cs, const int8_t **eps, bool *enqueued);

/* ens_cuda.c: the ens_sweep operation (lib/backend.h). */
int cuda_ens_sweep(latmc_sim *const *members, int n_members, uint64_t n, uint64_t *accepted,
                   uint64_t *attempted);

#endif

#endif
