/*
 * The sum of the per-plane tiles of the Fourier modes on the device (mode_tiles.h), in
 * plane order from zero, each addition rounded on its own (__dadd_rn), as the core's
 * latmc_modes_combine adds them.
 */
#include <stdint.h>

#include "mode_tiles.h"

/* Warp i: double i of the tiles, added over the planes in plane order from zero; the lanes
 * load TOTAL_AHEAD x 32 planes' values at a time (their loads in flight together: one
 * round trip for up to 256 planes, where 32 a time took 8.6 us at 256^3, ncu on an H200;
 * 6.4 then) and lane 0 adds them in plane order, taking each from its lane by a shuffle
 * (a whole 32 unrolled: 4.7 us). */
#define TOTAL_AHEAD 8
__global__ void tiles_total_kernel(const double *tiles, int64_t planes, int doubles,
                                   double *total)
{
    const int i = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    const int lane = (int)(threadIdx.x & 31u);
    if (i >= doubles) /* the whole warp */
        return;
    double sum = 0.0;
    for (int64_t q0 = 0; q0 < planes; q0 += 32 * TOTAL_AHEAD) {
        double v[TOTAL_AHEAD];
#pragma unroll
        for (int u = 0; u < TOTAL_AHEAD; u++) {
            const int64_t q = q0 + 32 * u + lane;
            v[u] = q < planes ? tiles[q * doubles + i] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < TOTAL_AHEAD; u++) {
            const int64_t base = q0 + 32 * u;
            if (base >= planes)
                break;
            if (planes - base >= 32) { /* unrolled: the shuffles issued ahead of the chain */
#pragma unroll
                for (int k = 0; k < 32; k++)
                    sum = __dadd_rn(sum, __shfl_sync(0xffffffffu, v[u], k));
            } else {
                for (int k = 0; k < (int)(planes - base); k++)
                    sum = __dadd_rn(sum, __shfl_sync(0xffffffffu, v[u], k));
            }
        }
    }
    if (lane == 0)
        total[i] = sum;
}

extern "C" cudaError_t cuda_tiles_total(cudaStream_t stream, const double *tiles,
                                        int64_t planes, int doubles, double *total)
{
    const int threads = 128, warps = threads / 32;
    tiles_total_kernel<<<(unsigned)((doubles + warps - 1) / warps), threads, 0, stream>>>(
        tiles, planes, doubles, total);
    return cudaGetLastError();
}
