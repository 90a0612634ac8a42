/*
 * The integer projections behind the Fourier modes at k_min (lib/modes.h), counted on the
 * device from a box's stored planes: P_x[x], (3D) P_y[y] and P_last[p] of the Ising spins,
 * or of each Potts state's indicator. Integers added with atomics: their totals do not
 * depend on the order of the additions, so every launch shape, box and rank gives the
 * CPU's integers exactly (mode_projections.h).
 *
 * One thread takes a column (an x, or a packed word of 16 x) over a chunk of rows and
 * keeps its column sums in registers: one atomic per column value and chunk. A row's sum
 * is a warp's sum (32 consecutive columns of the row) and one atomic per warp.
 */
#include "cuda_launch.cuh"
#include "mode_projections.h"

/* Threads a launch aims at: every SM filled a few times over, chunks long enough that
 * the columns' atomics stay few. */
#define PROJ_THREADS_WANTED ((int64_t)1 << 19)

/* Where the range's rows sit and where their sums go. */
struct proj_geom {
    int64_t lx, rpp;          /* sites of a row, rows of a plane (2D: 1, 3D: L_y) */
    int64_t row0, nrows;      /* local rows [row0, row0 + nrows) */
    int64_t plane_shift;      /* global plane = local plane + plane_shift */
    int64_t y_at, last_at;    /* the entries of P_y (3D) and P_last */
    int64_t chunk;            /* rows per thread */
    bool three;
};

static struct proj_geom geom_of(const struct latmc_lattice *g, const struct cuda_proj_range *r,
                                int64_t columns)
{
    struct proj_geom p;
    p.three = g->ndim == 3;
    p.lx = g->lx;
    p.rpp = p.three ? g->ly : 1;
    p.row0 = r->p0 * p.rpp;
    p.nrows = r->planes * p.rpp;
    p.plane_shift = r->global_p0 - r->p0;
    p.y_at = g->lx;
    p.last_at = g->lx + (p.three ? g->ly : 0);
    int64_t chunks = PROJ_THREADS_WANTED / (columns > 0 ? columns : 1);
    if (chunks < 1)
        chunks = 1;
    if (chunks > p.nrows)
        chunks = p.nrows;
    if (chunks > 65535) /* the grid's y extent */
        chunks = 65535;
    p.chunk = (p.nrows + chunks - 1) / chunks;
    return p;
}

/* Add a row's value v of each thread of the warp (the warp's lanes: one row, the local
 * (y, z) of the row: 2D y 0 and z the row, 3D the row y + L_y z) to its P_y and P_last
 * entries. */
__device__ __forceinline__ void add_row(const struct proj_geom &p, int64_t y, int64_t z, int v,
                                        unsigned long long *proj)
{
#if __CUDA_ARCH__ >= 800
    v = __reduce_add_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
#endif
    if ((threadIdx.x & 31u) != 0 || v == 0)
        return;
    if (p.three)
        atomicAdd(proj + p.y_at + y, (unsigned long long)(long long)v);
    atomicAdd(proj + p.last_at + z + p.plane_shift, (unsigned long long)(long long)v);
}

/*
 * One byte per site (Ising: the spin as int8; Potts: the state, counted where it is
 * `state`). Grid: x over columns (whole warps), y over chunks of rows. The rows' (y, z)
 * are stepped, not divided out (a 64-bit division per row would cost more than the rest).
 */
template <bool POTTS>
__global__ void byte_projections_kernel(struct proj_geom p, const uint8_t *sites, int state,
                                        unsigned long long *proj)
{
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t first = p.row0 + (int64_t)blockIdx.y * p.chunk;
    const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
    const bool in = x < p.lx;
    int64_t z = first / p.rpp, y = first - z * p.rpp;
    const uint8_t *at = sites + first * p.lx + (in ? x : 0);
    long long column = 0;
    for (int64_t r = first; r < end; r++) {
        int v = 0;
        if (in) {
            const uint8_t s = *at;
            v = POTTS ? (s == state) : (int)(int8_t)s;
        }
        column += v;
        add_row(p, y, z, v, proj);
        at += p.lx;
        if (++y == p.rpp) {
            y = 0;
            z++;
        }
    }
    if (in && column != 0)
        atomicAdd(proj + x, (unsigned long long)column);
}

/* The nibbles' low bits: one site each, 0 for spin +1 and 1 for -1 (ising_packed.h). */
#define PROJ_NIBBLE_BITS 0x11111111u

/* Add the -1 counts of an accumulated word (at most 15 a nibble) to neg[8]. */
__device__ __forceinline__ void unpack_counts(uint32_t acc, int neg[8])
{
#pragma unroll
    for (int m = 0; m < 8; m++)
        neg[m] += (acc >> (4 * m)) & 15u;
}

/*
 * The packed layout: a thread per word w of the rows (16 sites, 8 of each x parity) over a
 * chunk of rows. The word of the even x of row r is that of colour (y + z) & 1 (nibble m:
 * x = 16 w + 2 m), the other colour's holds the odd x (x = 16 w + 2 m + 1). Up to 15 rows'
 * nibble bits add up in a word without carries before they are unpacked.
 */
__global__ void packed_projections_kernel(struct proj_geom p, int64_t wpr,
                                          const uint32_t *colour0, const uint32_t *colour1,
                                          unsigned long long *proj)
{
    const int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t first = p.row0 + (int64_t)blockIdx.y * p.chunk;
    const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
    const bool in = w < wpr;
    int neg_even[8] = { 0 }, neg_odd[8] = { 0 };
    uint32_t acc_even = 0, acc_odd = 0;
    int pending = 0;
    /* the row's local (y, z), stepped: 2D y 0 and z the row, 3D row y + L_y z */
    int64_t z = first / p.rpp, y = first - z * p.rpp;
    const int64_t at0 = first * wpr + (in ? w : 0);
    const uint32_t *pa = colour0 + at0, *pb = colour1 + at0;
    for (int64_t r = first; r < end; r++) {
        int v = 0;
        if (in) {
            const uint32_t a = *pa, b = *pb;
            const bool odd_row = (y + z) & 1;
            acc_even += (odd_row ? b : a) & PROJ_NIBBLE_BITS;
            acc_odd += (odd_row ? a : b) & PROJ_NIBBLE_BITS;
            if (++pending == 15) {
                unpack_counts(acc_even, neg_even);
                unpack_counts(acc_odd, neg_odd);
                acc_even = acc_odd = 0;
                pending = 0;
            }
            v = 16 - 2 * (int)(__popc(a) + __popc(b));
        }
        add_row(p, y, z, v, proj);
        pa += wpr;
        pb += wpr;
        if (++y == p.rpp) {
            y = 0;
            z++;
        }
    }
    if (!in)
        return;
    unpack_counts(acc_even, neg_even);
    unpack_counts(acc_odd, neg_odd);
    const long long rows = end > first ? end - first : 0;
#pragma unroll
    for (int m = 0; m < 8; m++) {
        const int64_t x = 16 * w + 2 * m;
        atomicAdd(proj + x, (unsigned long long)(rows - 2 * (long long)neg_even[m]));
        atomicAdd(proj + x + 1, (unsigned long long)(rows - 2 * (long long)neg_odd[m]));
    }
}

static dim3 grid_of(const struct proj_geom &p, int64_t columns)
{
    const int64_t blocks = (columns + CUDA_THREADS - 1) / CUDA_THREADS;
    return dim3((unsigned)blocks, (unsigned)((p.nrows + p.chunk - 1) / p.chunk));
}

extern "C" cudaError_t cuda_byte_projections(cudaStream_t stream, const struct latmc_lattice *g,
                                             const void *sites, const struct cuda_proj_range *r,
                                             int potts_q, int64_t *proj)
{
    if (r->planes <= 0)
        return cudaSuccess;
    const struct proj_geom p = geom_of(g, r, g->lx);
    const dim3 grid = grid_of(p, g->lx);
    unsigned long long *out = (unsigned long long *)proj;
    if (potts_q == 0) {
        byte_projections_kernel<false><<<grid, CUDA_THREADS, 0, stream>>>(
            p, (const uint8_t *)sites, 0, out);
        return cudaGetLastError();
    }
    /* state a's projections: block a of latmc_modes_projection_entries / q entries */
    const int64_t per_state = p.last_at + r->L;
    for (int a = 0; a < potts_q; a++)
        byte_projections_kernel<true><<<grid, CUDA_THREADS, 0, stream>>>(
            p, (const uint8_t *)sites, a, out + a * per_state);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ising_packed_projections(cudaStream_t stream,
                                                     const struct latmc_lattice *g,
                                                     const uint32_t *colour0,
                                                     const uint32_t *colour1,
                                                     const struct cuda_proj_range *r,
                                                     int64_t *proj)
{
    if (r->planes <= 0)
        return cudaSuccess;
    const int64_t wpr = g->lx / 16;
    const struct proj_geom p = geom_of(g, r, wpr);
    packed_projections_kernel<<<grid_of(p, wpr), CUDA_THREADS, 0, stream>>>(
        p, wpr, colour0, colour1, (unsigned long long *)proj);
    return cudaGetLastError();
}
