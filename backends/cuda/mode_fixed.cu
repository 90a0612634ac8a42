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
#define FIXED_TILE_ROWS 128     /* rows of a block */
#define FIXED_TILE_WARPS 8      /* warps of a block */
#define FIXED_TILE_MAX_X ((int64_t)32767 * 32) /* the row counters' bound on L_x (2^20:
                                                  cubic lattices never come near) */
/* Blocks a launch has at least where the strips allow (a block's rows then cut into
 * groups of strips, grid.y): with one block a chunk of rows, a lattice of few chunks (2D
 * 16384^2: 128) left most SMs one block of 8 warps or none, too few loads in flight to
 * stream the spins; several waves of the SMs' resident blocks keep the DRAM busy. */
#define FIXED_TILE_MIN_BLOCKS 4096

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

/*
 * P_x, P_y (3D) and P_last of the rows [FIXED_TILE_ROWS b, + FIXED_TILE_ROWS) of the range
 * (b = blockIdx.x) in one read, strip group g = blockIdx.y of G = gridDim.y: warp w walks
 * the 32-column strips g W + w, (g + G) W + w, ... (W = FIXED_TILE_WARPS) down the
 * block's rows, lane x adding its column's values (in 32 bits 32 rows at a time: |sum| <
 * 2^31; those sums in 64 bits) and the warp each row's strip sum per component (one 32-bit
 * reduction: 32 values, |sum| < 2^31), which lane c adds into the block's row counters of
 * component c as its 16-bit halves (cuda_modes_add_halves: exact for fewer than 2^15
 * strips, FIXED_TILE_MAX_X). At the end the columns go to P_x
 * and the block's part of the rows to P_y and P_last by 64-bit atomics (integers: the
 * groups' parts add in any order).
 */
template <int C>
__global__ void __launch_bounds__(32 * FIXED_TILE_WARPS)
fixed_tile_kernel(const float *__restrict__ data, int64_t stride, int64_t lx, int64_t rows,
                  int64_t ly_rows, bool three, int64_t n, int64_t last_at, int64_t global_p0,
                  unsigned long long *proj)
{
    __shared__ unsigned row_lo[FIXED_TILE_ROWS][C];
    __shared__ int row_hi[FIXED_TILE_ROWS][C];
    const int64_t r0 = (int64_t)blockIdx.x * FIXED_TILE_ROWS;
    const int nr = (int)min((int64_t)FIXED_TILE_ROWS, rows - r0);
    for (int i = threadIdx.x; i < FIXED_TILE_ROWS * C; i += blockDim.x) {
        row_lo[i / C][i % C] = 0;
        row_hi[i / C][i % C] = 0;
    }
    __syncthreads();
    const int lane = (int)(threadIdx.x % 32);
    const int64_t strips = (lx + 31) / 32;
    for (int64_t s = (int64_t)blockIdx.y * FIXED_TILE_WARPS + threadIdx.x / 32; s < strips;
         s += (int64_t)gridDim.y * FIXED_TILE_WARPS) {
        const int64_t x = 32 * s + lane;
        const float *at = data + x + lx * r0;
        long long col[C] = {};
        for (int rb = 0; rb < nr; rb += 32) {
            int part[C] = {};
            const int re = min(rb + 32, nr);
            /* a row at a time: the resident blocks' warps keep the loads in flight, and
             * rows unrolled cost registers (two replicas: 110 against 76) and time
             * (measured: NEWS.md) */
#pragma unroll 1
            for (int k = rb; k < re; k++) {
                int q[C] = {}; /* lanes past the row: nothing */
                if (x < lx)
                    fixed_site<C>(at + lx * k, stride, q);
                int mine = 0;
#pragma unroll
                for (int c = 0; c < C; c++) {
                    part[c] += q[c];
                    const int sum = __reduce_add_sync(0xffffffffu, q[c]);
                    mine = lane == c ? sum : mine;
                }
                if (lane < C)
                    cuda_modes_add_halves(&row_lo[k][lane], &row_hi[k][lane], mine);
            }
#pragma unroll
            for (int c = 0; c < C; c++)
                col[c] += part[c];
        }
        if (x < lx)
#pragma unroll
            for (int c = 0; c < C; c++)
                if (col[c] != 0)
                    atomicAdd(proj + c * n + x, (unsigned long long)col[c]);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < nr * C; i += blockDim.x) {
        const int k = i / C, c = i % C;
        const long long v = cuda_modes_halves_value(row_lo[k][c], row_hi[k][c]);
        if (v != 0) {
            const int64_t y = (r0 + k) % ly_rows, p = (r0 + k) / ly_rows;
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
    const bool three = r->ndim == 3;
    const int64_t lx = r->extent[0], ly_rows = three ? r->extent[1] : 1;
    const int64_t rows = r->planes * ly_rows;
    int64_t last_at;
    const int64_t n = cuda_tiles_range_entries(r, &last_at);
    if (rows <= 0)
        return cudaSuccess;
    const int64_t chunks = (rows + FIXED_TILE_ROWS - 1) / FIXED_TILE_ROWS;
    const int64_t groups = ((lx + 31) / 32 + FIXED_TILE_WARPS - 1) / FIXED_TILE_WARPS;
    int64_t per_chunk = (FIXED_TILE_MIN_BLOCKS + chunks - 1) / chunks;
    if (per_chunk > groups)
        per_chunk = groups;
    if (per_chunk > 65535)
        per_chunk = 65535;
    const dim3 grid((unsigned)chunks, (unsigned)per_chunk);
    fixed_tile_kernel<C><<<grid, 32 * FIXED_TILE_WARPS, 0, stream>>>(
        (const float *)src->data, src->stride, lx, rows, ly_rows, three, n, last_at,
        r->global_p0, (unsigned long long *)proj);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_fixed_projections(cudaStream_t stream,
                                              const struct cuda_tiles_source *src,
                                              const struct cuda_tiles_range *r, int64_t *proj)
{
    if (src->is_double || src->components != FIXED_SPIN || src->replicas < 1 ||
        src->replicas > 2)
        return cudaErrorNotSupported;
    if ((int64_t)(r->planes * (r->ndim == 3 ? r->extent[1] : 1)) / FIXED_TILE_ROWS >
        (int64_t)0x7fffffff)
        return cudaErrorNotSupported; /* a block FIXED_TILE_ROWS rows: gridDim.x */
    if (r->extent[0] > FIXED_TILE_MAX_X)
        return cudaErrorNotSupported;
    return src->replicas == 2 ? launch_fixed<FIXED_MAX_COMPONENTS>(stream, src, r, proj)
                              : launch_fixed<FIXED_SPIN>(stream, src, r, proj);
}
