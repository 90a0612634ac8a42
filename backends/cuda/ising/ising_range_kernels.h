/*
 * Internal to the CUDA module: the Ising byte-layout kernels on a range of planes of a box
 * (cuda_plane_range.h says what a range is; the leaf: ising/cuda_ising_bytes.c).
 */
#ifndef LATMC_CUDA_ISING_RANGE_KERNELS_H
#define LATMC_CUDA_ISING_RANGE_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_kernels.h"
#include "cuda_plane_range.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ising_range_kernels.cu: Ising on the byte layout (spins int8 +-1; eps:
 * NULL, or the +-J couplings of the local lattice, eps[ndim i + mu]; tables: a device
 * copy of struct latmc_ising_tables). The update is the per-block reference rule on a box
 * (lib/ising_rules.h). */
cudaError_t cuda_ising_sweep_colour_range(cudaStream_t stream, const struct latmc_lattice *local,
                                          int8_t *spins, const int8_t *eps,
                                          const struct latmc_ising_tables *tables, int algorithm,
                                          uint64_t seed, struct latmc_rng_name name, int colour,
                                          const struct cuda_plane_range *r,
                                          unsigned long long *changed);
cudaError_t cuda_ising_bytes_hot_start_range(cudaStream_t stream, int8_t *dst, int64_t first,
                                             int64_t n, uint64_t seed);
/* Hot start of sites first_site .. first_site + n - 1 (both multiples of 4) of the lattice
 * into dst[0 .. n): the draws of the one-device hot start (the packed and bit-sliced
 * leaves' staging). */
cudaError_t cuda_ising_hot_start_range(cudaStream_t stream, int8_t *dst, int64_t first_site,
                                       int64_t n, uint64_t seed);
cudaError_t cuda_ising_measure_range(cudaStream_t stream, const struct latmc_lattice *local,
                                     const int8_t *spins, const int8_t *eps,
                                     const struct cuda_plane_range *r,
                                     struct latmc_ising_sums *sums);

#ifdef __cplusplus
}
#endif

#endif
