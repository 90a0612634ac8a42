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
#include "ising_packed.h"
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

/*
 * One member of a packed batched launch (ens_ising_packed.cu): the member's own packed
 * arrays (ising_packed.h's layout), its +-J coupling words per colour (NULL: uniform), its
 * thresholds (at its own beta) and seed. Any L_x a multiple of 16: the kernel takes one
 * to eight words of a colour per thread, each with its own neighbours, so unlike the
 * single-lattice kernels it needs no 4-word groups for +-J (L_x = 16 is one word a row).
 */
struct cuda_ens_packed_member {
    uint32_t *colour[2];
    const uint32_t *eps[2];
    uint64_t seed;
    struct cuda_ising_packed_thresholds thr;
};

/* Colour `colour` of sweep `sweep` of all members, one launch, as the single-lattice
 * packed kernels would do it member by member (the same draws and decisions); changed
 * as above. */
cudaError_t cuda_ens_packed_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                         const struct cuda_ens_packed_member *members,
                                         int64_t n_members, int coupled, int algorithm,
                                         uint64_t sweep, int colour,
                                         unsigned long long *changed);

/* The sums of lib/ising.h of every member from its packed arrays, one block per member
 * (fused_fits lattices), into sums[m] (zeroed by the caller): each exactly
 * cuda_ising_packed_measure's / cuda_ising_measure's. */
cudaError_t cuda_ens_packed_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                    const struct cuda_ens_packed_member *members,
                                    int64_t n_members, int coupled,
                                    struct latmc_ising_sums *sums);

/* The fused kernel takes members of this lattice (at most 1024 words a colour, e.g. 16^3,
 * 32^2 x 64). */
bool cuda_ens_packed_fused_fits(const struct latmc_lattice *g);

/* n_sweeps sweeps (sweeps sweep0 ..) of all members with the fused kernel: one block per
 * member runs both colours of up to 1024 sweeps a launch, its spins in shared memory;
 * the same chain as cuda_ens_packed_sweep_colour for each colour in turn. */
cudaError_t cuda_ens_packed_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                   const struct cuda_ens_packed_member *members,
                                   int64_t n_members, int coupled, int algorithm,
                                   uint64_t sweep0, uint64_t n_sweeps,
                                   unsigned long long *changed);

/* The sums of lib/ising.h of every member from its bytes (ens_ising.cu), one block per
 * member, into sums[m] (zeroed by the caller): each exactly cuda_ising_measure's. */
cudaError_t cuda_ens_ising_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                   const struct cuda_ens_ising_member *members,
                                   int64_t n_members, struct latmc_ising_sums *sums);

/* The overlap sums of the pairs of members pairs[2k], pairs[2k + 1] (indices into the
 * member table, k < n_pairs; ens_overlaps.cu): q[k] = sum_i s_i^a s_i^b and
 * ql[k] = sum_{i,mu} s_i^a s_i^b s_{i+mu}^a s_{i+mu}^b as two's-complement 64-bit
 * integers, added to q and ql (zeroed by the caller); one block per pair. From the
 * members' bytes or from their packed arrays. */
cudaError_t cuda_ens_overlaps_bytes(cudaStream_t stream, const struct latmc_lattice *g,
                                    const struct cuda_ens_ising_member *members,
                                    const int32_t *pairs, int64_t n_pairs,
                                    unsigned long long *q, unsigned long long *ql);
cudaError_t cuda_ens_overlaps_packed(cudaStream_t stream, const struct latmc_lattice *g,
                                     const struct cuda_ens_packed_member *members,
                                     const int32_t *pairs, int64_t n_pairs,
                                     unsigned long long *q, unsigned long long *ql);

#ifdef __cplusplus
}

#else /* the C side */

#include "cuda_backend.h"

/* cuda_ising.c: make the bytes of member cs hold its configuration (the batched kernel
 * runs the byte layout's rule), mark its packed copy stale, and give its device couplings
 * (NULL when uniform). *enqueued: whether that needed work on cs->stream (an unpack). */
cudaError_t cuda_ising_batch_member(struct cuda_sim *cs, const int8_t **eps, bool *enqueued);

/* cuda_ising.c: where member cs can run the packed batched kernel, make its packed arrays
 * (and coupling words) current, mark its bytes stale and fill *out (not its seed); false
 * with nothing done where it cannot (the byte path runs). *enqueued: work went on
 * cs->stream; *err: its status. */
bool cuda_ising_packed_member(struct cuda_sim *cs, struct cuda_ens_packed_member *out,
                              bool *enqueued, cudaError_t *err);

/* cuda_ising.c: where the batch state of an ensemble whose member 0 is cs lives (NULL
 * until its first batched sweep; freed with cs by cuda_ens_batch_free). */
struct cuda_ens_batch;
uint64_t cuda_ising_state_epoch(void);
struct cuda_ens_batch **cuda_ising_ens_batch(struct cuda_sim *cs);
void cuda_ens_batch_free(struct cuda_ens_batch *b);

/* ens_cuda.c: the ens_sweep and ens_measure operations (lib/backend.h). */
int cuda_ens_sweep(latmc_sim *const *members, int n_members, uint64_t n, uint64_t *accepted,
                   uint64_t *attempted);
int cuda_ens_measure(latmc_sim *const *members, int n_members, void *sums);
int cuda_ens_swap_params(latmc_sim *a, latmc_sim *b);
int cuda_ens_overlaps(latmc_sim *const *members, int n_members, const int32_t *pairs,
                      int n_pairs, int64_t *q, int64_t *ql);

#endif

#endif
