/*
 * Internal to the CUDA module: the quenched couplings drawn on the device, by the very
 * functions the CPU draws them with (lib/coupling_draws.h, lib/heisenberg_couplings.h,
 * LATMC_HOSTDEV: coupling k takes lane k mod 4 of the Philox block k / 4 named for the
 * couplings), so a device's couplings are the CPU's bit for bit without a host copy or a
 * transfer (doc/cuda.md, "Ising +-J" and the Heisenberg section's "Couplings").
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

/* The Heisenberg couplings of kind `kind` (lib/heisenberg_couplings.h) of the lattice's
 * planes [g0, g0 + planes) (plane_sites sites of ndim couplings each: coupling ndim i + mu
 * of lattice site i) into the device's SoA J: coupling mu of the run's site s at
 * J[mu * stride + s0 + s]. Enqueued on `stream` (the device current). */
cudaError_t cuda_draw_heisenberg_soa(cudaStream_t stream, float *J, int64_t stride, int64_t s0,
                                     int64_t g0, int64_t planes, int64_t plane_sites,
                                     int ndim, int kind, uint64_t coupling_seed);

#ifdef __cplusplus
}
#endif

#endif
