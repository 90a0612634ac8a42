/*
 * Internal to the CUDA module: the device transposition of a Heisenberg part's planes
 * (cuda_planes_heis.c) between the sim's SoA buffer and the API's layout, so that a
 * halo plane crosses the bus as one contiguous copy (doc/mpi.md, "GPU ranks").
 *
 * API layout (AoS): replica r's n sites, 3 floats each, replica after replica:
 *   aos[(r n + j) 3 + c].
 * The sim's layout (SoA): component c of replica r at soa[(3 r + c) stride + j], stride
 * the whole lattice's sites (soa points at the range's first site).
 */
#ifndef LATMC_CUDA_PLANES_TRANSPOSE_H
#define LATMC_CUDA_PLANES_TRANSPOSE_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

cudaError_t cuda_planes_heis_gather(cudaStream_t stream, float *aos, const float *soa,
                                    long long stride, long long n, int nrep);
cudaError_t cuda_planes_heis_scatter(cudaStream_t stream, float *soa, long long stride,
                                     const float *aos, long long n, int nrep);

#ifdef __cplusplus
}
#endif

#endif
