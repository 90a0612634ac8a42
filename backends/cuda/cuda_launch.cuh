/*
 * Launch geometry and exact integer accumulation shared by the module's kernels.
 *
 * Every kernel walks its items with a grid-stride loop and reaches its accumulation with
 * all threads of the block (no early return), so full-warp shuffles are valid. Integer
 * sums are exact and atomicAdd of 64-bit integers is order-independent: the results do
 * not depend on the launch geometry or the scheduling.
 */
#ifndef LATMC_CUDA_LAUNCH_CUH
#define LATMC_CUDA_LAUNCH_CUH

#include <stdint.h>

#include <cuda_runtime.h>

/* Threads per block: a multiple of the warp size (cuda_warp_add needs whole warps). */
#define CUDA_THREADS 256
/* Enough blocks to fill any current GPU many times over; more items are strided. */
#define CUDA_MAX_BLOCKS (1 << 20)

static inline unsigned cuda_grid(int64_t items)
{
    int64_t blocks = (items + CUDA_THREADS - 1) / CUDA_THREADS;
    if (blocks < 1)
        blocks = 1;
    if (blocks > CUDA_MAX_BLOCKS)
        blocks = CUDA_MAX_BLOCKS;
    return (unsigned)blocks;
}

/* First item and stride of the calling thread in a grid-stride loop. */
__device__ __forceinline__ int64_t cuda_first_item(void)
{
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ int64_t cuda_item_stride(void)
{
    return (int64_t)gridDim.x * blockDim.x;
}

/*
 * Add each thread's v to *dst: a warp sum by shuffles, then one atomicAdd per warp. Call
 * with every thread of the block. Signed sums travel as their two's complement: the
 * 64-bit additions wrap exactly like int64_t arithmetic.
 */
__device__ __forceinline__ void cuda_warp_add(unsigned long long *dst, unsigned long long v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31u) == 0 && v != 0)
        atomicAdd(dst, v);
}

/*
 * Dynamic shared memory past 48 KiB for kernel fn, `bytes` of it a launch: its attribute set
 * to the device's whole opt-in room (less its static shared memory), never to this call's
 * bytes. The attribute belongs to the kernel, for the whole process: were each call to set
 * its own size, two threads launching it with different sizes (sims of different shapes,
 * doc/cuda.md "Using it": different sims run concurrently) could each lower it under the
 * other's launch. Every caller sets the same value, so the order does not matter.
 * cudaErrorInvalidValue where bytes do not fit.
 */
static inline cudaError_t cuda_allow_shared(const void *fn, size_t bytes)
{
    int device = 0, optin = 0;
    cudaFuncAttributes attr;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err == cudaSuccess)
        err = cudaFuncGetAttributes(&attr, fn);
    if (err != cudaSuccess)
        return err;
    const size_t room = (size_t)optin > attr.sharedSizeBytes ? (size_t)optin - attr.sharedSizeBytes
                                                             : 0;
    if (bytes > room)
        return cudaErrorInvalidValue;
    return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)room);
}

#endif
