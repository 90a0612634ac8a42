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
#define FIXED_CHUNK_ROWS 128    /* rows a column thread walks */
#define FIXED_ROW_WARPS 8       /* warps of a row block: a warp a row */

#define FIXED_SPIN 3 /* a spin's components (cuda_fixed_projections takes no other) */

/* The C fixed-point values (modes_fixed.cuh: |q| < 2^26) of the site at p (its components
 * stride floats apart, replica 1's after replica 0's): replica 0's components c < 3, then
 * the products s^0_m s^1_k at 3 + 3 m + k, every index known to the compiler. */
template <int C>
__device__ __forceinline__ void fixed_site(const float *p, int64_t stride, int q[C])
{
    static_assert(C == FIXED_SPIN || C == FIXED_MAX_COMPONENTS, "one replica or two");
    float a[FIXED_SPIN], b[FIXED_SPIN];
#pragma unroll
    for (int c = 0; c < FIXED_SPIN; c++)
        a[c] = p[c * stride];
#pragma unroll
    for (int c = 0; c < FIXED_SPIN; c++)
        q[c] = cuda_modes_fixed(a[c]);
    if (C == FIXED_MAX_COMPONENTS) {
#pragma unroll
        for (int k = 0; k < FIXED_SPIN; k++)
            b[k] = p[(FIXED_SPIN + k) * stride];
#pragma unroll
        for (int m = 0; m < FIXED_SPIN; m++)
#pragma unroll
            for (int k = 0; k < FIXED_SPIN; k++)
                q[FIXED_SPIN + FIXED_SPIN * m + k] = cuda_modes_fixed_product(a[m], b[k]);
    }
}

/* P_x: thread x walks rows [chunk FIXED_CHUNK_ROWS, +FIXED_CHUNK_ROWS) of the range, the
 * values added in 32 bits 32 rows at a time (|sum| < 2^31), those sums in 64 bits; chunks
 * of 128 rows give 256^3 512 x 256 threads, about a wave of the GPU. */
template <int C>
__global__ void fixed_columns_kernel(const float *data, int64_t stride, int64_t lx,
                                     int64_t rows, int64_t n, unsigned long long *proj)
{
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= lx)
        return;
    const int64_t r0 = (int64_t)blockIdx.y * FIXED_CHUNK_ROWS;
    const int64_t r1 = min(r0 + FIXED_CHUNK_ROWS, rows);
    long long col[C] = {};
    for (int64_t rb = r0; rb < r1; rb += 32) {
        int part[C] = {};
        const int64_t re = min(rb + 32, r1);
#pragma unroll 4
        for (int64_t r = rb; r < re; r++) {
            int q[C];
            fixed_site<C>(data + x + lx * r, stride, q);
#pragma unroll
            for (int c = 0; c < C; c++)
                part[c] += q[c];
        }
#pragma unroll
        for (int c = 0; c < C; c++)
            col[c] += part[c];
    }
#pragma unroll
    for (int c = 0; c < C; c++)
        if (col[c] != 0)
            atomicAdd(proj + c * n + x, (unsigned long long)col[c]);
}

/* The warp's sum of its lanes' v (|v| < 2^31), exact: the 16-bit halves by two 32-bit
 * reductions (each sum below 2^21 in magnitude). */
__device__ __forceinline__ long long fixed_warp_sum(int v)
{
    const long long lo = __reduce_add_sync(0xffffffffu, v & 0xffff);
    const long long hi = __reduce_add_sync(0xffffffffu, v >> 16);
    return hi * 65536 + lo;
}

/* P_y (3D) and P_last: warp w of block b sums row r = FIXED_ROW_WARPS b + w (y = r mod
 * ly_rows, the range's plane r / ly_rows), its lanes x = lane, lane + 32, ..., each lane's
 * values added in 32 bits 32 at a time; lane c adds component c's total. */
template <int C>
__global__ void fixed_rows_kernel(const float *data, int64_t stride, int64_t lx,
                                  int64_t rows, int64_t ly_rows, bool three, int64_t n,
                                  int64_t last_at, int64_t global_p0, unsigned long long *proj)
{
    const int64_t r = (int64_t)blockIdx.x * FIXED_ROW_WARPS + threadIdx.x / 32;
    if (r >= rows)
        return; /* a whole warp */
    const int lane = (int)(threadIdx.x % 32);
    long long row[C] = {};
    for (int64_t xb = 0; xb < lx; xb += 32 * 32) {
        int part[C] = {};
        const int64_t xe = min(xb + 32 * 32, lx);
        for (int64_t x = xb + lane; x < xe; x += 32) {
            int q[C];
            fixed_site<C>(data + x + lx * r, stride, q);
#pragma unroll
            for (int c = 0; c < C; c++)
                part[c] += q[c];
        }
#pragma unroll
        for (int c = 0; c < C; c++)
            row[c] += fixed_warp_sum(part[c]);
    }
    long long mine = 0;
#pragma unroll
    for (int c = 0; c < C; c++)
        if (lane == c)
            mine = row[c];
    if (lane < C && mine != 0) {
        const int64_t y = r % ly_rows, p = r / ly_rows;
        if (three)
            atomicAdd(proj + lane * n + lx + y, (unsigned long long)mine);
        atomicAdd(proj + lane * n + last_at + global_p0 + p, (unsigned long long)mine);
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
    fixed_columns_kernel<C><<<cols, 128, 0, stream>>>(data, src->stride, lx, rows, n, out);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    fixed_rows_kernel<C><<<(unsigned)((rows + FIXED_ROW_WARPS - 1) / FIXED_ROW_WARPS),
                           32 * FIXED_ROW_WARPS, 0, stream>>>(
        data, src->stride, lx, rows, ly_rows, three, n, last_at, r->global_p0, out);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_fixed_projections(cudaStream_t stream,
                                              const struct cuda_tiles_source *src,
                                              const struct cuda_tiles_range *r, int64_t *proj)
{
    if (src->is_double || src->components != FIXED_SPIN || src->replicas < 1 ||
        src->replicas > 2)
        return cudaErrorNotSupported;
    if ((int64_t)(r->planes * (r->ndim == 3 ? r->extent[1] : 1)) / FIXED_ROW_WARPS >
        (int64_t)0x7fffffff)
        return cudaErrorNotSupported; /* a block FIXED_ROW_WARPS rows: gridDim.x */
    if ((r->planes * (r->ndim == 3 ? r->extent[1] : 1) + FIXED_CHUNK_ROWS - 1) /
            FIXED_CHUNK_ROWS > 65535)
        return cudaErrorNotSupported; /* the columns' chunks: gridDim.y */
    return src->replicas == 2 ? launch_fixed<FIXED_MAX_COMPONENTS>(stream, src, r, proj)
                              : launch_fixed<FIXED_SPIN>(stream, src, r, proj);
}
