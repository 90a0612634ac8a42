/*
 * Kernels of a sim's boxes (the one executor) that a box alone does not need: the halo
 * copies between boxes of one device as one launch, the boxes' projections added. (The models' kernels are in their
 * folders: the Ising hot start by global site index is ising/ising_range_kernels.cu's.)
 */
#include "cuda_kernels.h"
#include "cuda_launch.cuh"

/* Block (x, k, j) of the grid copies its share of row j (blockIdx.z) of run k
 * (blockIdx.y), in 16-byte words where the row allows, else bytes. */
__global__ void box_copy_runs_kernel(struct cuda_box_copies c)
{
    const int k = blockIdx.y;
    const size_t j = blockIdx.z;
    const char *src = (const char *)c.src[k] + j * c.src_pitch[k];
    char *dst = (char *)c.dst[k] + j * c.dst_pitch[k];
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
    if (c->n <= 0 || c->rows <= 0)
        return cudaSuccess;
    size_t most = 0;
    for (int k = 0; k < c->n; k++)
        most = c->bytes[k] > most ? c->bytes[k] : most;
    /* a 16-byte word per thread and pass, at most 64 blocks per row (the rows are planes
     * of one array); the rows along the grid's z (at most 65535) */
    size_t blocks = (most / 16 + CUDA_THREADS - 1) / CUDA_THREADS;
    blocks = blocks < 1 ? 1 : blocks > 64 ? 64 : blocks;
    for (int j0 = 0; j0 < c->rows; j0 += 65535) {
        struct cuda_box_copies part = *c;
        const int rows = c->rows - j0 < 65535 ? c->rows - j0 : 65535;
        for (int k = 0; k < c->n; k++) {
            part.src[k] = (const char *)c->src[k] + (size_t)j0 * c->src_pitch[k];
            part.dst[k] = (char *)c->dst[k] + (size_t)j0 * c->dst_pitch[k];
        }
        box_copy_runs_kernel<<<dim3((unsigned)blocks, (unsigned)c->n, (unsigned)rows),
                               CUDA_THREADS, 0, stream>>>(part);
    }
    return cudaGetLastError();
}
