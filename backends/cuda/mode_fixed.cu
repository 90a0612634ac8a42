/*
 * Heisenberg's projections of the Fourier modes in fixed point (mode_fixed.h,
 * cuda_fixed_projections; the definition: lib/modes_exact.h, latmc_modes_fixed, and
 * lib/modes_planes.c's heisenberg_project_plane, whose integers these are): integers, so
 * the columns' and the rows' atomics may add in any order.
 */
#include <stdint.h>

#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "mode_fixed.h"
#include "modes_fixed.cuh"

#define FIXED_MAX_COMPONENTS 12 /* 3, or 3 + 9 with two replicas (lib/modes.h) */
#define FIXED_TILE_ROWS 32      /* rows of a chunk: one row a lane when the counters go out */
#define FIXED_TILE_WARPS 8      /* warps of a block, a 32-column strip each */
#define FIXED_TILE_MAX_X ((int64_t)32767 * 32) /* L_x at most (2^20: grid.y's 4096 groups
                                                  of strips; cubic lattices never come near) */
static_assert(32 * FIXED_TILE_WARPS == CUDA_THREADS, "cuda_resident_wave's block");

#define FIXED_SPIN 3 /* a spin's components (cuda_fixed_projections takes no other) */

/* The floats of the site at p that its C fixed-point values need: replica 0's components
 * (stride floats apart), then, with two replicas, replica 1's. */
template <int C> struct fixed_floats {
    static_assert(C == FIXED_SPIN || C == FIXED_MAX_COMPONENTS, "one replica or two");
    static constexpr int N = C == FIXED_SPIN ? FIXED_SPIN : 2 * FIXED_SPIN;
    float v[N];
};

template <int C>
__device__ __forceinline__ void fixed_load(const float *p, int64_t stride, fixed_floats<C> *f)
{
#pragma unroll
    for (int c = 0; c < fixed_floats<C>::N; c++)
        f->v[c] = p[c * stride];
}

/* The site's C fixed-point values (modes_fixed.cuh: |q| < 2^26): replica 0's components
 * c < 3, then the products s^0_m s^1_k at 3 + 3 m + k, every index known to the compiler. */
template <int C>
__device__ __forceinline__ void fixed_values(const fixed_floats<C> &f, int q[C])
{
#pragma unroll
    for (int c = 0; c < FIXED_SPIN; c++)
        q[c] = cuda_modes_fixed(f.v[c]);
    if constexpr (C == FIXED_MAX_COMPONENTS)
#pragma unroll
        for (int m = 0; m < FIXED_SPIN; m++)
#pragma unroll
            for (int k = 0; k < FIXED_SPIN; k++)
                q[FIXED_SPIN + FIXED_SPIN * m + k] =
                    cuda_modes_fixed_product(f.v[m], f.v[FIXED_SPIN + k]);
}

/* Blocks an SM: the registers of 5 (one replica, 48 a thread) or 3 (two, 80). */
__host__ __device__ constexpr int fixed_tile_blocks(int c)
{
    return c == FIXED_SPIN ? 5 : 3;
}

/* A chunk's row counters (rows [r0, r0 + nr) of the range, nr <= 32) into P_y (3D) and
 * P_last, and zeroed for the chunk after next: warp-wide per component, lane k a row,
 * whose P_last terms, where the warp's rows lie in one plane (3D: most chunks), are added
 * up first, one atomic a component instead of 32 on one address. */
template <int C>
__device__ __forceinline__ void fixed_rows_out(unsigned (*lo)[C], int (*hi)[C], int64_t r0,
                                               int nr, int64_t lx, int64_t ly_rows, bool three,
                                               int64_t n, int64_t last_at, int64_t global_p0,
                                               unsigned long long *proj)
{
    static_assert(FIXED_TILE_ROWS == 32, "a lane a row");
    const int lane = (int)(threadIdx.x % 32);
    for (int c = (int)(threadIdx.x / 32); c < C; c += FIXED_TILE_WARPS) {
        long long v = 0;
        if (lane < nr) {
            v = cuda_modes_halves_value(lo[lane][c], hi[lane][c]);
            lo[lane][c] = 0;
            hi[lane][c] = 0;
        }
        const int64_t r = r0 + (lane < nr ? lane : 0);
        const int64_t y = r % ly_rows, p = r / ly_rows;
        unsigned long long *o = proj + c * n;
        if (three && v != 0)
            atomicAdd(o + lx + y, (unsigned long long)v);
        if (__all_sync(0xffffffffu, p == r0 / ly_rows)) {
#pragma unroll
            for (int d = 16; d > 0; d /= 2)
                v += __shfl_down_sync(0xffffffffu, v, d);
            if (lane == 0 && v != 0)
                atomicAdd(o + last_at + global_p0 + p, (unsigned long long)v);
        } else if (v != 0) {
            atomicAdd(o + last_at + global_p0 + p, (unsigned long long)v);
        }
    }
}

/*
 * P_x, P_y (3D) and P_last of the range in one read. Warp w of block (b, g) walks the
 * 32-column strip g W + w (W = FIXED_TILE_WARPS; grid.y covers the strips) down block
 * row range b of gridDim.x (contiguous, as even as can be), lane x adding its column's
 * values (32-bit within a chunk of 32 rows: |sum| < 2^31, then 64-bit for the block's
 * range) and the warp each row's strip sum per component (one 32-bit reduction: 32
 * values, |sum| < 2^31), which lane c adds into the chunk's row counters of component c
 * as its 16-bit halves (cuda_modes_add_halves: a counter takes one sum a warp of the
 * block). After each chunk, one barrier, and the chunk's row counters go to
 * P_y and P_last while the warps walk the next chunk into the other set; the columns go
 * to P_x at the block's end. Integers: the atomics add in any order.
 * One resident wave of blocks (the launch), each walking many chunks: the columns' atomics
 * once a block (L_x C), not once a chunk. A lane issues its next row's loads before it
 * counts the row it has, so the count overlaps their latency; the loop then copies them
 * into the current row's registers, which waits for them (SASS), so a warp has one row's
 * loads in flight at a time (rows unrolled instead cost the counters' registers twice:
 * two replicas 110 against 76).
 */
template <int C>
__global__ void __launch_bounds__(32 * FIXED_TILE_WARPS, fixed_tile_blocks(C))
fixed_tile_kernel(const float *__restrict__ data, int64_t stride, int64_t lx, int64_t rows,
                  int64_t ly_rows, bool three, int64_t n, int64_t last_at, int64_t global_p0,
                  unsigned long long *proj)
{
    __shared__ unsigned row_lo[2][FIXED_TILE_ROWS][C];
    __shared__ int row_hi[2][FIXED_TILE_ROWS][C];
    for (int i = threadIdx.x; i < 2 * FIXED_TILE_ROWS * C; i += blockDim.x) {
        const int set = i / (FIXED_TILE_ROWS * C), k = i / C % FIXED_TILE_ROWS, c = i % C;
        row_lo[set][k][c] = 0;
        row_hi[set][k][c] = 0;
    }
    const int64_t b = blockIdx.x, nb = gridDim.x, per = rows / nb, extra = rows % nb;
    const int64_t lo = b * per + (b < extra ? b : extra), hi = lo + per + (b < extra);
    const int lane = (int)(threadIdx.x % 32);
    const int64_t x0 = 32 * ((int64_t)blockIdx.y * FIXED_TILE_WARPS + threadIdx.x / 32);
    const int64_t x = x0 + lane;
    const bool walks = x0 < lx, in = x < lx; /* lanes past the row count nothing */
    const float *at = data + x;
    long long col[C] = {};
    fixed_floats<C> next;
    if (in && lo < hi)
        fixed_load<C>(at + lx * lo, stride, &next);
    __syncthreads();
    for (int64_t r0 = lo, set = 0; r0 < hi; r0 += FIXED_TILE_ROWS, set ^= 1) {
        const int nr = (int)min((int64_t)FIXED_TILE_ROWS, hi - r0);
        if (walks) {
            int part[C] = {};
#pragma unroll 1
            for (int k = 0; k < nr; k++) {
                const fixed_floats<C> f = next;
                if (in && r0 + k + 1 < hi)
                    fixed_load<C>(at + lx * (r0 + k + 1), stride, &next);
                int q[C] = {};
                if (in)
                    fixed_values<C>(f, q);
                int mine = 0;
#pragma unroll
                for (int c = 0; c < C; c++) {
                    part[c] += q[c];
                    const int sum = __reduce_add_sync(0xffffffffu, q[c]);
                    mine = lane == c ? sum : mine;
                }
                if (lane < C)
                    cuda_modes_add_halves(&row_lo[set][k][lane], &row_hi[set][k][lane], mine);
            }
#pragma unroll
            for (int c = 0; c < C; c++)
                col[c] += part[c];
        }
        /* the chunk's rows complete; the set the next chunk takes went out a chunk ago */
        __syncthreads();
        fixed_rows_out<C>(row_lo[set], row_hi[set], r0, nr, lx, ly_rows, three, n, last_at,
                          global_p0, proj);
    }
    if (in)
#pragma unroll
        for (int c = 0; c < C; c++)
            if (col[c] != 0)
                atomicAdd(proj + c * n + x, (unsigned long long)col[c]);
}

/* One resident wave: the strips' groups (grid.y) times as many row ranges as fill it. */
template <int C>
static cudaError_t launch_fixed(cudaStream_t stream, const struct cuda_fixed_source *src,
                               const struct cuda_fixed_range *r, int64_t *proj)
{
    const bool three = r->ndim == 3;
    const int64_t lx = r->extent[0], ly_rows = three ? r->extent[1] : 1;
    const int64_t rows = r->planes * ly_rows;
    int64_t last_at;
    const int64_t n = cuda_fixed_range_entries(r, &last_at);
    if (rows <= 0)
        return cudaSuccess;
    const int64_t groups = ((lx + 31) / 32 + FIXED_TILE_WARPS - 1) / FIXED_TILE_WARPS;
    const int64_t chunks = (rows + FIXED_TILE_ROWS - 1) / FIXED_TILE_ROWS;
    int64_t ranges = (int64_t)cuda_resident_wave<fixed_tile_kernel<C>>() / groups;
    if (ranges > chunks)
        ranges = chunks; /* each range a chunk at least */
    if (ranges < 1)
        ranges = 1;
    const dim3 grid((unsigned)ranges, (unsigned)groups);
    fixed_tile_kernel<C><<<grid, 32 * FIXED_TILE_WARPS, 0, stream>>>(
        (const float *)src->data, src->stride, lx, rows, ly_rows, three, n, last_at,
        r->global_p0, (unsigned long long *)proj);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_fixed_projections(cudaStream_t stream,
                                              const struct cuda_fixed_source *src,
                                              const struct cuda_fixed_range *r, int64_t *proj)
{
    if (src->is_double || src->components != FIXED_SPIN || src->replicas < 1 ||
        src->replicas > 2)
        return cudaErrorNotSupported;
    if (r->extent[0] > FIXED_TILE_MAX_X) /* grid.y: at most 4096 groups of strips */
        return cudaErrorNotSupported;
    return src->replicas == 2 ? launch_fixed<FIXED_MAX_COMPONENTS>(stream, src, r, proj)
                              : launch_fixed<FIXED_SPIN>(stream, src, r, proj);
}
