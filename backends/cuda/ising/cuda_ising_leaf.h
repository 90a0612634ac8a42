/*
 * Internal to the CUDA module: the Ising model's leaves of the one executor
 * (exec/cuda_leaf.h), one per layout of the configuration, and what they share.
 *
 *   cuda_ising_packed.c  the multi-spin coded layout (ising_packed.h: one array per
 *                        colour, half a byte per site), where L_x is a multiple of 16
 *   cuda_ising_bytes.c   the API's layout (one int8 per site), every other lattice and
 *                        every lattice under LATMC_CUDA_KERNELS=reference
 *   cuda_ising_bits.c    the 1-bit layout alone (cuda_ising_bitsliced.h: an eighth of a
 *                        byte per site), L_x a multiple of 64 whose packed arrays do not
 *                        fit the devices (or LATMC_CUDA_ISING_FORM=bits): a box alone,
 *                        boxes with halos, a part's box
 *   cuda_ising_leaf.c    the choice between them, the ensembles' member accessors
 *   cuda_ising_shared.c  what both leaves call: the state epoch, the +-J couplings
 */
#ifndef LATMC_CUDA_ISING_LEAF_H
#define LATMC_CUDA_ISING_LEAF_H

#include "cuda_leaf.h"
#include "ising_packed.h" /* struct cuda_ising_packed_thresholds */

extern const struct cuda_leaf cuda_ising_packed_leaf;
extern const struct cuda_leaf cuda_ising_bytes_leaf;
extern const struct cuda_leaf cuda_ising_bits_leaf;

/* The leaf of an Ising sim: the packed layout where its lattice fits it, else the bytes.
 * One box, several boxes or a part: the packed layout wherever L_x is a multiple of 16 and
 * the packed kernels are allowed (LATMC_CUDA_KERNELS is not "reference"); a box alone's
 * steps run the byte kernels on a byte copy where the packed ones cannot (thresholds
 * beyond 32 bits). A sim with L_x a multiple of 64 (any layout) whose packed
 * arrays (each device's boxes' local planes, and a margin) do not fit a device's free
 * memory, or every such sim with
 * LATMC_CUDA_ISING_FORM=bits: the 1-bit leaf (never with LATMC_CUDA_ISING_FORM=packed or
 * LATMC_CUDA_KERNELS=reference).
 * cuda_ising_leaf_of is declared in cuda_leaf.h with every model's. */

/*
 * For the module's ensembles (cuda_ising_batch.c), which run the batched kernels
 * (ising_batch_*_kernels.cu) on the members' state: a member is a sim of one box alone
 * (cuda_batch_lone_box), and these accessors of its leaf make one form of its configuration
 * current and describe it.
 *
 * cuda_ising_member_packed: where the box can run the ensembles' packed kernels (the
 * packed leaf, thresholds that fit 32 bits), its packed arrays made current (packed from
 * its bytes where only those held the configuration), its bytes marked stale (the kernel
 * writes the arrays), colour/eps_packed/thr filled; false with nothing done elsewhere.
 * cuda_ising_member_bytes: its bytes made current (unpacked where needed), its packed
 * arrays marked stale, spins/eps/tables filled. *enqueued: work went on `stream` (the
 * box's), which the caller drains before its own stream reads the result.
 *
 * cuda_ising_state_epoch: bumped at every access to the state of a box that was ever
 * prepared as a member: an ensemble whose members saw none since its last batch reuses
 * that batch's table. Boxes never prepared as members never bump it.
 */
struct cuda_ising_member {
    uint32_t *colour[2];                 /* packed arrays */
    const uint32_t *eps_packed[2];       /* +-J coupling words per colour, else NULL */
    struct cuda_ising_packed_thresholds thr;
    int8_t *spins;                       /* bytes */
    const int8_t *eps;                   /* +-J byte couplings, else NULL */
    const void *tables;                  /* the device copy of the core's tables */
};
bool cuda_ising_member_packed(const struct cuda_leaf *leaf, const latmc_sim *sim,
                              struct cuda_box *b, struct cuda_ising_member *out,
                              bool *enqueued, cudaError_t *err);
cudaError_t cuda_ising_member_bytes(const struct cuda_leaf *leaf, const latmc_sim *sim,
                                    struct cuda_box *b, struct cuda_ising_member *out,
                                    bool *enqueued);
uint64_t cuda_ising_state_epoch(void);

/* Within the leaves: the epoch bumped where `member` (the box was prepared as one). */
void cuda_ising_state_touched(bool member);

/* The leaves' member accessors (the functions above for their own boxes). */
bool cuda_ising_packed_member(const latmc_sim *sim, struct cuda_box *b,
                              struct cuda_ising_member *out, bool *enqueued, cudaError_t *err);
cudaError_t cuda_ising_packed_member_bytes(const latmc_sim *sim, struct cuda_box *b,
                                           struct cuda_ising_member *out, bool *enqueued);
cudaError_t cuda_ising_bytes_member(const latmc_sim *sim, struct cuda_box *b,
                                    struct cuda_ising_member *out, bool *enqueued);

/* +-J couplings (desc.couplings = BIMODAL; the leaves' draw_couplings, couplings_to_float,
 * couplings_from_float): one int8 +-1 per bond, eps[ndim i + mu], of the planes a sim
 * keeps on the host (the whole lattice, or a part's local planes; drawn when first
 * needed, cuda_exec.c), each drawn where it lies in the core's draw_couplings
 * (lib/coupling_draws.h: the CPU's couplings bit for bit). cuda_ising_coupling_plane:
 * couplings of one plane. */
int64_t cuda_ising_coupling_plane(const latmc_sim *sim);
int cuda_ising_draw_couplings(const latmc_sim *sim, int64_t first, int64_t planes, void **host);
void cuda_ising_couplings_to_float(const latmc_sim *sim, const void *host, int64_t host_plane,
                                   float *buf, int64_t planes);
void cuda_ising_couplings_from_float(const latmc_sim *sim, void *host, int64_t host_plane,
                                     const float *whole, int64_t global_plane, int64_t planes);
/* The leaves' draws_couplings (+-J) and the byte-layout leaves' draw_couplings_on_box:
 * box b's local planes of the couplings drawn on its device into eps (the values above,
 * cuda_coupling_draws.h). */
bool cuda_ising_draws_couplings(const latmc_sim *sim);
cudaError_t cuda_ising_eps_draw_box(const latmc_sim *sim, const struct cuda_box *b,
                                    cudaStream_t stream, int8_t *eps);
/* The byte-layout leaves' couplings_to_box: box b's local planes (own planes and halos,
 * each a run of the lattice's planes) of the host's int8 couplings into the device's eps,
 * run global g from host plane g - host_first (mod L) of the host's planes (the whole
 * lattice, or exactly the box's local planes). */
cudaError_t cuda_ising_eps_to_box(const latmc_sim *sim, const struct cuda_box *b,
                                  cudaStream_t stream, int8_t *eps, const void *host,
                                  int64_t host_first);

#endif
