/*
 * Internal to the CUDA module: the integer projections of the Fourier modes (lib/modes.h:
 * Ising's spins, Potts' state indicators, summed per axis), counted on the device from a
 * box's stored planes and added into a device array of latmc_modes_projection_entries
 * int64 (cleared by the caller). Integers: the CPU's exactly (mode_projections.cu).
 */
#ifndef LATMC_CUDA_MODE_PROJECTIONS_H
#define LATMC_CUDA_MODE_PROJECTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ising.h" /* struct latmc_ising_sums */
#include "potts.h" /* struct latmc_potts_sums */
#include "lattice_numbering.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Local planes [p0, p0 + planes) of a box's stored lattice, which are the lattice's planes
 * global_p0 .. of L along the last axis. */
struct cuda_proj_range {
    int64_t p0, planes, global_p0, L;
};

/* One byte a site in site order (x fastest): Ising's int8 spins (potts_q 0), or Potts'
 * uint8 states (q blocks of entries, state a's at a (L_x (+ L_y) + L)). */
cudaError_t cuda_byte_projections(cudaStream_t stream, const struct latmc_lattice *g,
                                  const void *sites, const struct cuda_proj_range *r,
                                  int potts_q, int64_t *proj);

/* Ising's packed layout (ising_packed.h): the box's two colour arrays. */
cudaError_t cuda_ising_packed_projections(cudaStream_t stream, const struct latmc_lattice *g,
                                          const uint32_t *colour0, const uint32_t *colour1,
                                          const struct cuda_proj_range *r, int64_t *proj);

/*
 * The measurement's sums and the projections of the same range in one read of the
 * configuration (measure_projections.cu): the sums added to *sums (as the measurement
 * kernels of the layout: cleared by the caller), the projections to proj (as above); proj
 * NULL: the sums alone, from the same walk without the counting (the packed measurement
 * where it was measured the faster: cuda_ising_packed.c).
 */
cudaError_t cuda_ising_packed_measure_projections(cudaStream_t stream,
                                                  const struct latmc_lattice *g,
                                                  const uint32_t *colour0,
                                                  const uint32_t *colour1, const uint32_t *eps0,
                                                  const struct cuda_proj_range *r,
                                                  struct latmc_ising_sums *sums, int64_t *proj);
/* The same sums and, instead of the projections, the exact sums of their modes added into
 * limbs from the weights (cuda_projections_exact's layouts in CUDA_MODES_LIMB_SLOTS slots,
 * one component): each chunk's columns and rows weighed where they are counted, no
 * projections' array.
 * cudaErrorNotSupported, nothing launched, where the walk's chunks and blocks would add
 * more than LATMC_MODES_LIMB_SUMS sums into a limb (lib/modes_exact.h). */
cudaError_t cuda_ising_packed_measure_modes(cudaStream_t stream, const struct latmc_lattice *g,
                                            const uint32_t *colour0, const uint32_t *colour1,
                                            const uint32_t *eps0,
                                            const struct cuda_proj_range *r,
                                            struct latmc_ising_sums *sums,
                                            const int64_t *weights, int64_t *limbs);

/* The threads across a row of the folded walk's blocks on g where all of them work, else 0
 * (L_x 528: 33 groups of words a row, L_x 4112: 257; part of a block's threads would
 * idle). *row_block: a row is exactly 32, 64 or 128 groups of some 4, 2 or 1 words, the
 * threads across one block (2D L_x 512 to 8192, 3D 1024^3; a block of 128 threads holds
 * 128 / that many parts of a chunk); else a row is whole blocks of 256 groups. */
int cuda_ising_packed_fold_threads(const struct latmc_lattice *g, bool *row_block);

/* Bytes: Ising (potts_q 0; eps: ndim int8 +-J couplings a site, or NULL), sums a struct
 * latmc_ising_sums, or Potts, a struct latmc_potts_sums, where
 * cuda_byte_measure_projections_fits(q) (else cudaErrorInvalidValue, nothing launched). */
bool cuda_byte_measure_projections_fits(int potts_q);
cudaError_t cuda_byte_measure_projections(cudaStream_t stream, const struct latmc_lattice *g,
                                          const void *sites, const int8_t *eps,
                                          const struct cuda_proj_range *r, int potts_q,
                                          void *sums, int64_t *proj);

/*
 * Potts, four sites a thread (potts/potts_fold.cu), where cuda_potts_fold_fits (q <= 16,
 * L_x a multiple of 4; else cudaErrorInvalidValue, nothing launched): the measurement's
 * sums added to *sums (cleared by the caller) and, where proj is not NULL, the projections
 * to proj (as above), from one read of the range (q <= 4: cuda_potts_measure_planes).
 */
bool cuda_potts_fold_fits(const struct latmc_lattice *g, int q);
cudaError_t cuda_potts_measure_fold(cudaStream_t stream, const struct latmc_lattice *g,
                                    const uint8_t *sites, const struct cuda_proj_range *r,
                                    int q, struct latmc_potts_sums *sums, int64_t *proj);

/* The same for q <= 4 (L_x a multiple of 4), counted from the states' bit planes
 * (potts/potts_planes.cu); cuda_potts_measure_fold takes this kernel where it fits. */
bool cuda_potts_planes_fits(const struct latmc_lattice *g, int q);
cudaError_t cuda_potts_measure_planes(cudaStream_t stream, const struct latmc_lattice *g,
                                      const uint8_t *sites, const struct cuda_proj_range *r,
                                      int q, struct latmc_potts_sums *sums, int64_t *proj);

/*
 * The limbs of the counts that weigh their own columns and rows (the packed and 1-bit Ising
 * counts' measure_modes) come in CUDA_MODES_LIMB_SLOTS slots of the same layout, the mode
 * being the sum of all slots' (integers: in any order): each block adds its sums into one
 * slot (exact_block_limbs, modes_exact.cuh), so that the hundreds or thousands of blocks of
 * a count that end together (3D 1024^3: 512 to 1,024 blocks of 4 warps, a chunk each)
 * spread their atomics over 32 copies of the limbs instead of one. The exact kernel's few
 * blocks add into the first slot.
 */
#define CUDA_MODES_LIMB_SLOTS 32

/*
 * The exact sums of the modes of a box's projections on the device (lib/modes_exact.h):
 * for each component k and axis mu, sum_x P[x] w_cos[x] and the same with the sines'
 * weights, added into limbs (device, int64: component k's axis mu's real part's three
 * limbs at 6 (k ndim + mu), its imaginary part's after them; zero before the first box's
 * call) by atomics, so that several boxes may add into one set of limbs or each into its
 * own. Axis mu's projections at proj_at[mu] (+ k per_state for component k); `weights`
 * (device) the phase tables' weights in their layout (latmc_modes_weight of each entry of
 * latmc_modes_sim_phases), axis mu's cosines' at phase_at[mu] and its sines' L_mu after.
 * The projections are zero again after it (read and cleared): the next count needs no
 * clear.
 */
struct cuda_proj_transform {
    int ndim, components;
    int64_t extent[3], proj_at[3], phase_at[3], per_state;
};
cudaError_t cuda_projections_exact(cudaStream_t stream, const struct cuda_proj_transform *t,
                                   int64_t *proj, const int64_t *weights, int64_t *limbs);
/* The limbs it adds into: components x ndim x 2 x 3 (a slot's, the first). */
size_t cuda_projections_exact_limbs(const struct cuda_proj_transform *t);

#ifdef __cplusplus
}
#endif

#endif
