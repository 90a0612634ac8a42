/*
 * Kernels of a sim on several devices (cuda_slabs.c) that the one-device code does not
 * have: the Ising hot start of a slab, its sites named by their global index.
 */
#include "cuda_launch.cuh"
#include "cuda_slabs.h"
#include "ising_rules.h"

/* Sites first_block * 4 .. of the lattice into dst[0 ..]: latmc_ising_hot_block's draws. */
__global__ void ising_hot_range_kernel(int8_t *dst, int64_t first_block, int64_t nblocks,
                                       uint64_t seed)
{
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_block(seed, (uint64_t)(first_block + b), 0,
                                                   LATMC_STREAM_INIT, 0, 0);
#pragma unroll
        for (int lane = 0; lane < 4; lane++)
            dst[4 * b + lane] = (r.v[lane] >> 31) ? (int8_t)-1 : (int8_t)1;
    }
}

extern "C" cudaError_t cuda_ising_hot_start_range(cudaStream_t stream, int8_t *dst,
                                                  int64_t first_site, int64_t n, uint64_t seed)
{
    const int64_t nblocks = n / 4;
    ising_hot_range_kernel<<<cuda_grid(nblocks), CUDA_THREADS, 0, stream>>>(
        dst, first_site / 4, nblocks, seed);
    return cudaGetLastError();
}
