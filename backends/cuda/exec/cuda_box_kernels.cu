/*
 * Kernels of a sim's boxes (the one executor) that a box alone does not need: the Ising hot start of a box, its sites named by their
 * global index; the halo copies between boxes of one device as one launch.
 */
#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "ising_rules.h"

/* Sites first_block * 4 .. of the lattice into dst[0 ..]: latmc_ising_hot_block's draws. */
__global__ void ising_hot_range_kernel(int8_t *dst, int64_t first_block, int64_t nblocks,
                                       uint64_t seed)
{
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)(first_block + b));
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

/* Block b of the grid copies run b % n (blockIdx.y: the run), in 16-byte words where the
 * run allows, else bytes. */
__global__ void box_copy_runs_kernel(struct cuda_box_copies c)
{
    const int k = blockIdx.y;
    const char *src = (const char *)c.src[k];
    char *dst = (char *)c.dst[k];
    const size_t n = c.bytes[k];
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    if ((((uintptr_t)src | (uintptr_t)dst | n) & 15u) == 0) {
        const uint4 *s = (const uint4 *)src;
        uint4 *d = (uint4 *)dst;
        for (size_t i = first; i < n / 16; i += stride)
            d[i] = s[i];
        return;
    }
    for (size_t i = first; i < n; i += stride)
        dst[i] = src[i];
}

extern "C" cudaError_t cuda_box_copy_runs(cudaStream_t stream, const struct cuda_box_copies *c)
{
    if (c->n <= 0)
        return cudaSuccess;
    size_t most = 0;
    for (int k = 0; k < c->n; k++)
        most = c->bytes[k] > most ? c->bytes[k] : most;
    /* a 16-byte word per thread and pass, at most 64 blocks per run (the runs are planes) */
    size_t blocks = (most / 16 + CUDA_THREADS - 1) / CUDA_THREADS;
    blocks = blocks < 1 ? 1 : blocks > 64 ? 64 : blocks;
    box_copy_runs_kernel<<<dim3((unsigned)blocks, (unsigned)c->n), CUDA_THREADS, 0, stream>>>(*c);
    return cudaGetLastError();
}
