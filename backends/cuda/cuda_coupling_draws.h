/*
 * Internal to the CUDA module: the quenched couplings drawn on the device, by the very
 * rule the CPU draws them with (lib/coupling_draws.h, LATMC_HOSTDEV: coupling k takes lane
 * k mod 4 of the Philox block k / 4 named for the couplings), so a device's couplings are
 * the CPU's bit for bit without a host copy or a transfer (doc/cuda.md, "Couplings").
 */
#ifndef LATMC_CUDA_COUPLING_DRAWS_H
#define LATMC_CUDA_COUPLING_DRAWS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The +-J couplings [e0, e1) of the lattice as int8 +-1 into the device's out[e - e0],
 * enqueued on `stream` (the device current). */
cudaError_t cuda_draw_bimodal_bytes(cudaStream_t stream, int8_t *out, int64_t e0, int64_t e1,
                                    uint64_t coupling_seed);

#ifdef __cplusplus
}
#endif

#endif
