/*
 * Heisenberg's projections of the Fourier modes in fixed point (mode_tiles.h,
 * cuda_fixed_projections; the definition: lib/modes_exact.h, latmc_modes_fixed, and
 * lib/modes_planes.c's heisenberg_project_plane, whose integers these are): integers, so
 * the columns' and the rows' atomics may add in any order.
 */
#include <stdint.h>

#include "cuda_kernels.h"
#include "mode_tiles.h"
#include "modes_fixed.cuh"

#define FIXED_MAX_COMPONENTS 12 /* 3, or 3 + 9 with two replicas (lib/modes.h) */
#define FIXED_CHUNK_ROWS 256    /* rows a column thread walks */
#define FIXED_ROW_THREADS 128   /* threads of a row's block */

/* Component c's fixed-point value of site i (modes_fixed.cuh) of replica 0's component
 * c < C0, else of the product s^0_m s^1_k, c = C0 + m C0 + k. */
__device__ __forceinline__ long long fixed_value(const float *data, int64_t stride, int C0,
                                                 int c, int64_t i)
{
    if (c < C0)
        return cuda_modes_fixed(data[c * stride + i]);
    const int m = (c - C0) / C0, k = (c - C0) % C0;
    return cuda_modes_fixed_product(data[m * stride + i], data[(C0 + k) * stride + i]);
}

/* P_x: thread x walks rows [chunk FIXED_CHUNK_ROWS, +FIXED_CHUNK_ROWS) of the range. */
template <int C>
__global__ void fixed_columns_kernel(const float *data, int64_t stride, int C0, int64_t lx,
                                     int64_t rows, int64_t n, unsigned long long *proj)
{
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= lx)
        return;
    const int64_t r0 = (int64_t)blockIdx.y * FIXED_CHUNK_ROWS;
    const int64_t r1 = min(r0 + FIXED_CHUNK_ROWS, rows);
    long long col[C] = {};
    for (int64_t r = r0; r < r1; r++)
#pragma unroll
        for (int c = 0; c < C; c++)
            col[c] += fixed_value(data, stride, C0, c, x + lx * r);
#pragma unroll
    for (int c = 0; c < C; c++)
        if (col[c] != 0)
            atomicAdd(proj + c * n + x, (unsigned long long)col[c]);
}

/* P_y (3D) and P_last: block r sums row r (y = r mod ly_rows, the range's plane r / ly_rows). */
template <int C>
__global__ void fixed_rows_kernel(const float *data, int64_t stride, int C0, int64_t lx,
                                  int64_t ly_rows, bool three, int64_t n, int64_t last_at,
                                  int64_t global_p0, unsigned long long *proj)
{
    constexpr int WARPS = FIXED_ROW_THREADS / 32;
    __shared__ long long warp_sums[C][WARPS];
    const int64_t r = blockIdx.x;
    long long row[C] = {};
    for (int64_t x = threadIdx.x; x < lx; x += FIXED_ROW_THREADS)
#pragma unroll
        for (int c = 0; c < C; c++)
            row[c] += fixed_value(data, stride, C0, c, x + lx * r);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
#pragma unroll
    for (int c = 0; c < C; c++) {
        long long v = row[c];
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(0xffffffffu, v, o);
        if (lane == 0)
            warp_sums[c][warp] = v;
    }
    __syncthreads();
    if (threadIdx.x < C) {
        const int c = threadIdx.x;
        long long v = 0;
        for (int w = 0; w < WARPS; w++)
            v += warp_sums[c][w];
        if (v != 0) {
            const int64_t y = r % ly_rows, p = r / ly_rows;
            if (three)
                atomicAdd(proj + c * n + lx + y, (unsigned long long)v);
            atomicAdd(proj + c * n + last_at + global_p0 + p, (unsigned long long)v);
        }
    }
}

template <int C>
static cudaError_t launch_fixed(cudaStream_t stream, const struct cuda_tiles_source *src,
                               const struct cuda_tiles_range *r, int64_t *proj)
{
    const float *data = (const float *)src->data;
    const bool three = r->ndim == 3;
    const int64_t lx = r->extent[0], ly_rows = three ? r->extent[1] : 1;
    const int64_t rows = r->planes * ly_rows;
    int64_t last_at;
    const int64_t n = cuda_tiles_range_entries(r, &last_at);
    if (rows <= 0)
        return cudaSuccess;
    unsigned long long *out = (unsigned long long *)proj;
    const dim3 cols((unsigned)((lx + 127) / 128),
                    (unsigned)((rows + FIXED_CHUNK_ROWS - 1) / FIXED_CHUNK_ROWS));
    fixed_columns_kernel<C><<<cols, 128, 0, stream>>>(data, src->stride, src->components, lx,
                                                       rows, n, out);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    fixed_rows_kernel<C><<<(unsigned)rows, FIXED_ROW_THREADS, 0, stream>>>(
        data, src->stride, src->components, lx, ly_rows, three, n, last_at, r->global_p0,
        out);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_fixed_projections(cudaStream_t stream,
                                              const struct cuda_tiles_source *src,
                                              const struct cuda_tiles_range *r, int64_t *proj)
{
    if (src->is_double || src->components != 3 || src->replicas < 1 || src->replicas > 2)
        return cudaErrorNotSupported;
    if ((int64_t)(r->planes * (r->ndim == 3 ? r->extent[1] : 1)) > (int64_t)0x7fffffff)
        return cudaErrorNotSupported; /* a block a row: gridDim.x */
    return src->replicas == 2 ? launch_fixed<FIXED_MAX_COMPONENTS>(stream, src, r, proj)
                              : launch_fixed<3>(stream, src, r, proj);
}
