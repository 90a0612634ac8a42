/*
 * The couplings drawn on the device (cuda_coupling_draws.h): one thread per Philox block
 * of four couplings, the lib's rules (lib/coupling_draws.h, lib/heisenberg_couplings.h)
 * evaluated as they are on the CPU (the module is built with -fmad=false, so the
 * Gaussian's operations round as written).
 */
#include "coupling_draws.h"
#include "heisenberg_couplings.h"
#include "cuda_coupling_draws.h"
#include "cuda_launch.cuh"

/* Blocks [b0, b0 + nb) into out (coupling e at out[e - e0], only e in [e0, e1)). Where
 * `words`, out + 4 b - e0 is 4-byte aligned and a whole block is one 32-bit store. */
__global__ void bimodal_bytes_kernel(int8_t *out, int64_t e0, int64_t e1, int64_t b0,
                                     int64_t nb, uint64_t seed, bool words)
{
    for (int64_t k = cuda_first_item(); k < nb; k += cuda_item_stride()) {
        const int64_t b = b0 + k;
        const latmc_philox_ctr r = latmc_coupling_draws(seed, b, 0);
        const int64_t e = 4 * b;
        if (words && e >= e0 && e + 4 <= e1) {
            uint32_t w = 0;
            for (int lane = 0; lane < 4; lane++) /* little-endian: byte lane at e + lane */
                w |= (uint32_t)(uint8_t)(int8_t)latmc_bimodal_sign(r.v[lane]) << (8 * lane);
            *(uint32_t *)(out + (e - e0)) = w;
        } else {
            for (int lane = 0; lane < 4; lane++)
                if (e + lane >= e0 && e + lane < e1)
                    out[e + lane - e0] = (int8_t)latmc_bimodal_sign(r.v[lane]);
        }
    }
}

extern "C" cudaError_t cuda_draw_bimodal_bytes(cudaStream_t stream, int8_t *out, int64_t e0,
                                               int64_t e1, uint64_t coupling_seed)
{
    if (e1 <= e0)
        return cudaSuccess;
    const int64_t b0 = e0 / 4, nb = (e1 + 3) / 4 - b0;
    const bool words = (((uintptr_t)out - (uintptr_t)e0) & 3u) == 0;
    bimodal_bytes_kernel<<<cuda_grid(nb), CUDA_THREADS, 0, stream>>>(out, e0, e1, b0, nb,
                                                                     coupling_seed, words);
    return cudaGetLastError();
}

/* Blocks [b0, b0 + nb) of the couplings [e0, e1) (a run of whole planes), each lane's
 * coupling ndim i + mu to J[mu * stride + s0 + i - i0] (i0: the run's first site). */
__global__ void heisenberg_soa_kernel(float *J, int64_t stride, int64_t s0, int64_t e0,
                                      int64_t e1, int64_t b0, int64_t nb, int ndim, int kind,
                                      uint64_t seed)
{
    for (int64_t k = cuda_first_item(); k < nb; k += cuda_item_stride()) {
        float j[4];
        latmc_heisenberg_couplings_lanes(j, kind, seed, b0 + k);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t e = 4 * (b0 + k) + lane;
            if (e < e0 || e >= e1)
                continue;
            const int64_t site = (e - e0) / ndim, mu = (e - e0) - site * ndim;
            J[mu * stride + s0 + site] = j[lane];
        }
    }
}

extern "C" cudaError_t cuda_draw_heisenberg_soa(cudaStream_t stream, float *J, int64_t stride,
                                                int64_t s0, int64_t g0, int64_t planes,
                                                int64_t plane_sites, int ndim, int kind,
                                                uint64_t coupling_seed)
{
    const int64_t per = plane_sites * ndim, e0 = g0 * per, e1 = (g0 + planes) * per;
    if (e1 <= e0)
        return cudaSuccess;
    const int64_t b0 = e0 / 4, nb = (e1 + 3) / 4 - b0;
    heisenberg_soa_kernel<<<cuda_grid(nb), CUDA_THREADS, 0, stream>>>(J, stride, s0, e0, e1, b0,
                                                                      nb, ndim, kind,
                                                                      coupling_seed);
    return cudaGetLastError();
}
