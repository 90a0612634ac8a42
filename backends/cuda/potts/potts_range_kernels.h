/*
 * Internal to the CUDA module: the Potts kernels on a range of planes of a box
 * (cuda_plane_range.h says what a range is; the leaf: potts/cuda_potts.c).
 */
#ifndef LATMC_CUDA_POTTS_RANGE_KERNELS_H
#define LATMC_CUDA_POTTS_RANGE_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_kernels.h"
#include "cuda_plane_range.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One colour of sweep `sweep` on the range r of the local lattice `local` (the box's
 * extents: own planes + 2 along the last axis), spins its local byte array: the row
 * kernels where the one-device launcher takes them (potts_rows.cu), else the per-block
 * reference kernel. Adds the sites that changed to *changed.
 */
cudaError_t cuda_potts_sweep_colour_range(cudaStream_t stream, const struct latmc_lattice *local,
                                          uint8_t *spins, const struct latmc_potts_chain *chain,
                                          struct latmc_rng_name rng, int colour,
                                          const struct cuda_plane_range *r,
                                          unsigned long long *changed);

/* Hot start of sites first .. first + n - 1 of the lattice into dst[0 .. n): the
 * one-device hot start's draws. */
cudaError_t cuda_potts_hot_start_range(cudaStream_t stream, uint8_t *dst, int64_t first,
                                       int64_t n, int q, uint64_t seed);

/* Adds the sums of the range's sites (bonds in the positive directions, the last axis's
 * read from the plane after the range) to *sums (device, zeroed by the caller). */
cudaError_t cuda_potts_measure_range(cudaStream_t stream, const struct latmc_lattice *local,
                                     const uint8_t *spins, const struct cuda_plane_range *r,
                                     struct latmc_potts_sums *sums);

/* potts_rows.cu: the row kernels on a range, where they apply (returns 1 and the launch
 * status in *err; 0: nothing launched), as cuda_potts_rows_sweep_colour. */
int cuda_potts_rows_sweep_range(cudaStream_t stream, const struct latmc_lattice *local,
                                uint8_t *spins, const struct latmc_potts_chain *chain,
                                struct latmc_rng_name rng, int colour,
                                const struct cuda_plane_range *r, unsigned long long *changed,
                                cudaError_t *err);

#ifdef __cplusplus
}
#endif

#endif
