/*
 * The measurement's sums and the Fourier modes' projections (mode_projections.h) from one
 * read of a box's configuration: what the measurement kernels (ising_packed.cu,
 * reductions.cu, the slab kernels) and the projection kernels (mode_projections.cu) give,
 * integer for integer, in the pass of the first alone.
 *
 * The walk: a thread takes a column (a packed word of 16 x, or one x of the bytes) of every
 * row of a chunk of rows, in row order. The neighbour row behind the thread is the row it
 * read just before (a sliding window of rows in registers: each word read from memory once),
 * the neighbour word beside it its lane neighbour's (a shuffle).
 *   - P_x: the column's counts, kept in registers (packed: 15 rows' nibble bits added
 *     without carries, then spread into 16-bit lanes: a chunk has at most CHUNK_MAX rows),
 *     transposed through shared memory at the chunk's end and added with one atomic per x
 *     and chunk, consecutive x in consecutive lanes.
 *   - P_y (3D) and P_last: a row's sum is its warps' sums (one warp reduction each) added in
 *     shared memory; every ROW_BATCH rows one warp adds them, one atomic per row, block and
 *     entry, again consecutive entries in consecutive lanes. Two buffers alternate, so one
 *     barrier per batch suffices.
 * Integers added with atomics: the totals do not depend on the order of the additions.
 * Bytes (a packed 65536^2 lattice, 2^31 bytes): the measurement's, plus 8 bytes per x and
 * chunk and per row and block (a few MiB: one chunk per resident block).
 */
#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "mode_projections.h"
#include "potts.h"

#define FOLD_WARPS (CUDA_THREADS / 32)
#define ROW_BATCH 32              /* rows between two additions of the rows' sums */
#define CHUNK_MIN 64              /* rows: fewer chunks, fewer column atomics */
#define CHUNK_MAX 65520           /* rows: the packed columns' 16-bit counters (15 x 4368) */
#define FOLD_BLOCKS_PER_SM 2      /* the kernels' __launch_bounds__: 128 registers */
#define FOLD_POTTS_STATES 32      /* Potts q up to this: counters in shared memory */
#define NIBBLE_BITS 0x11111111u   /* a packed word's sites: the nibbles' low bits */
/* Rows whose loads a thread issues together before it counts them (and the words beside
 * the warp's, its couplings): the bandwidth wants some 30 KiB in flight per SM (Little's
 * law: 4.8 TB/s x 0.8 us over 132 SMs), from 512 threads an SM; a packed row is 8 bytes a
 * thread. No load waited for inside a row's count. */
#define PACKED_AHEAD (THREE ? 4 : 12)
#define BYTES_AHEAD (THREE ? 8 : 16)

/* Where a range's rows sit, where their sums go, and how the chunks cut them. Rows are
 * r = y + L_y z of the stored lattice (2D: z = 0, y the last axis). */
struct fold_geom {
    int64_t lx, cols;           /* sites of a row; a row's thread columns */
    int64_t ly, lz;             /* the stored extents (2D: lz 1) */
    int64_t row0, nrows;        /* local rows [row0, row0 + nrows) */
    int64_t plane_shift;        /* global plane = local plane + plane_shift */
    int64_t y_at, last_at;      /* the entries of P_y (3D) and P_last */
    int64_t per_state;          /* Potts: entries of one state's block */
    int64_t chunk, nchunks;     /* rows a chunk */
    bool three;
};

static int sms_of_current_device(void)
{
    static thread_local int known[64]; /* 0: not asked yet */
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 132;
    }
    if (device >= 0 && device < 64 && known[device])
        return known[device];
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        sms <= 0) {
        (void)cudaGetLastError();
        return 132;
    }
    if (device >= 0 && device < 64)
        known[device] = sms;
    return sms;
}

static struct fold_geom geom_of(const struct latmc_lattice *g, const struct cuda_proj_range *r,
                                int64_t cols)
{
    struct fold_geom p;
    const bool three = g->ndim == 3;
    p.three = three;
    p.lx = g->lx;
    p.cols = cols;
    p.ly = g->ly;
    p.lz = three ? g->lz : 1;
    const int64_t rpp = three ? g->ly : 1;
    p.row0 = r->p0 * rpp;
    p.nrows = r->planes * rpp;
    p.plane_shift = r->global_p0 - r->p0;
    p.y_at = g->lx;
    p.last_at = g->lx + (three ? g->ly : 0);
    p.per_state = p.last_at + r->L;
    /* one chunk per resident block: the longest chunks, the fewest column atomics */
    const int64_t across = (cols + CUDA_THREADS - 1) / CUDA_THREADS;
    int64_t chunks = (int64_t)sms_of_current_device() * FOLD_BLOCKS_PER_SM / across;
    if (chunks < 1)
        chunks = 1;
    int64_t chunk = (p.nrows + chunks - 1) / chunks;
    if (chunk < CHUNK_MIN)
        chunk = CHUNK_MIN;
    if (chunk > CHUNK_MAX)
        chunk = CHUNK_MAX;
    p.chunk = chunk;
    p.nchunks = (p.nrows + chunk - 1) / chunk;
    return p;
}

static dim3 grid_of(const struct fold_geom &p)
{
    const int64_t across = (p.cols + CUDA_THREADS - 1) / CUDA_THREADS;
    return dim3((unsigned)across, (unsigned)(p.nchunks < 65535 ? p.nchunks : 65535));
}

__device__ __forceinline__ int warp_sum(int v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
#endif
}

/* Add a row's sum v to its entries of P_y (3D) and P_last of the block proj. */
__device__ __forceinline__ void add_row_entries(const struct fold_geom &p, int64_t r, long long v,
                                                unsigned long long *proj)
{
    if (v == 0)
        return;
    const int64_t z = r / p.ly, y = r - z * p.ly;
    if (p.three) { /* P_y[y], P_last[z] */
        atomicAdd(proj + p.y_at + y, (unsigned long long)v);
        atomicAdd(proj + p.last_at + z + p.plane_shift, (unsigned long long)v);
    } else { /* 2D: the row is the last axis's y */
        atomicAdd(proj + p.last_at + y + p.plane_shift, (unsigned long long)v);
    }
}

/*
 * The rows' sums of one chunk, each row's warps' sums added in shared memory and handed
 * to the proj entries every ROW_BATCH rows by warp 0. Every thread of the block calls
 * row_done once per row (the block walks its rows together).
 */
struct row_batches {
    int buf, k;
    int64_t first;  /* the batch's first row */
};

__device__ __forceinline__ void row_done(const struct fold_geom &p, struct row_batches &rb,
                                         int (*sums)[FOLD_WARPS][ROW_BATCH], int v, bool last,
                                         unsigned long long *proj)
{
    const int s = warp_sum(v);
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0)
        sums[rb.buf][warp][rb.k] = s;
    if (++rb.k < ROW_BATCH && !last)
        return;
    __syncthreads();
    if (warp == 0 && (int)lane < rb.k) {
        long long total = 0;
#pragma unroll
        for (int w = 0; w < FOLD_WARPS; w++)
            total += sums[rb.buf][w][lane];
        add_row_entries(p, rb.first + lane, total, proj);
    }
    rb.first += rb.k;
    rb.k = 0;
    rb.buf ^= 1;
}

/* ---- Ising's packed layout (ising_packed.h) ---- */

/* 15 rows' nibble counts of a word into four words of 16-bit lanes: c[0] nibbles 0 and 4,
 * c[1] 2 and 6, c[2] 1 and 5, c[3] 3 and 7 (low lane, high lane). */
__device__ __forceinline__ void spread_nibbles(uint32_t acc, uint32_t c[4])
{
    const uint32_t lo = acc & 0x0F0F0F0Fu, hi = (acc >> 4) & 0x0F0F0F0Fu;
    c[0] += lo & 0x00FF00FFu;
    c[1] += (lo >> 8) & 0x00FF00FFu;
    c[2] += hi & 0x00FF00FFu;
    c[3] += (hi >> 8) & 0x00FF00FFu;
}

/* Nibble m's count of spread_nibbles' words. */
__device__ __forceinline__ int nibble_count(const uint32_t c[4], int m)
{
    const uint32_t word = c[((m & 1) << 1) | ((m >> 1) & 1)];
    return (int)((m >> 2) ? word >> 16 : word & 0xFFFFu);
}

/* Bytes of up to 15 rows' anti-bond counts (each at most 12) summed. */
__device__ __forceinline__ uint64_t byte_total(uint32_t bytes)
{
    const uint32_t halves = (bytes & 0x00FF00FFu) + ((bytes >> 8) & 0x00FF00FFu);
    return (halves & 0xFFFFu) + (halves >> 16);
}

/*
 * A thread: word w of the rows of its chunks. The bonds as ising_packed_measure_kernel
 * counts them (every bond has one colour-0 end: the colour-0 word against its 2 ndim
 * neighbour words of colour 1), the anti-bonds of a row added nibble by nibble (at most 6
 * a nibble, the words holding only their nibbles' low bits) and in bytes over 15 rows.
 */
template <bool THREE, int CW>
__global__ void __launch_bounds__(CUDA_THREADS, FOLD_BLOCKS_PER_SM)
packed_fold_kernel(struct fold_geom p, const uint32_t *colour0, const uint32_t *colour1,
                   const uint32_t *eps0, struct latmc_ising_sums *sums,
                   unsigned long long *proj)
{
    __shared__ int row_sums[2][FOLD_WARPS][ROW_BATCH];
    __shared__ int col_sums[16 * CUDA_THREADS];
    const unsigned lane = threadIdx.x & 31u;
    const int64_t w = (int64_t)blockIdx.x * CUDA_THREADS + threadIdx.x;
    const bool in = w < p.cols;
    const int64_t wc = in ? w : p.cols - 1; /* lanes past the row read its last word */
    const bool next_in_warp = lane < 31 && wc + 1 < p.cols, prev_in_warp = lane > 0 && wc > 0;
    const int64_t next_w = wc + 1 == p.cols ? 0 : wc + 1, prev_w = wc == 0 ? p.cols - 1 : wc - 1;
    const int64_t plane = p.ly * p.cols;
    uint64_t anti = 0, neg = 0, items = 0;
    for (int64_t c = blockIdx.y; c < p.nchunks; c += gridDim.y) {
        const int64_t first = p.row0 + c * p.chunk;
        const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
        int64_t z = first / p.ly, y = first - z * p.ly;
        struct row_batches rb = { 0, 0, first };
        uint32_t acc_even = 0, acc_odd = 0, anti_bytes = 0;
        uint32_t cnt_even[4] = { 0, 0, 0, 0 }, cnt_odd[4] = { 0, 0, 0, 0 };
        int pending = 0;
        uint32_t down = 0, mine = 0, up = 0;
        for (int64_t r0 = first; r0 < end; r0 += PACKED_AHEAD) {
            /* the group's loads first, all in flight together: the colour-0 words and the
             * colour-1 words one row up (and the planes beside, 3D) */
            const int ahead = (int)min((int64_t)PACKED_AHEAD, end - r0);
            uint32_t own[PACKED_AHEAD], above[PACKED_AHEAD], beside[PACKED_AHEAD];
            uint32_t z_up[THREE ? PACKED_AHEAD : 1], z_down[THREE ? PACKED_AHEAD : 1];
            uint32_t e0[CW > 0 ? PACKED_AHEAD : 1], e1[CW > 1 ? PACKED_AHEAD : 1];
            {
                int64_t yy = y, zz = z;
#pragma unroll
                for (int i = 0; i < PACKED_AHEAD; i++) {
                    if (i >= ahead)
                        break;
                    const int64_t at = (r0 + i) * p.cols + wc;
                    own[i] = colour0[at];
                    above[i] = colour1[at + (yy + 1 == p.ly ? -(p.ly - 1) * p.cols : p.cols)];
                    /* the word beside (the shuffle's, where the lane beside holds no word
                     * of the row): the same lines, so a cache hit, but not a wait a row */
                    beside[i] = colour1[at - wc + (((yy + zz) & 1) ? next_w : prev_w)];
                    if (THREE) {
                        z_up[i] = colour1[at + (zz + 1 == p.lz ? -(p.lz - 1) * plane : plane)];
                        z_down[i] = colour1[at + (zz == 0 ? (p.lz - 1) * plane : -plane)];
                    }
                    if constexpr (CW > 0) /* ising_packed.cu: CW coupling words a word */
                        e0[i] = eps0[CW * at];
                    if constexpr (CW > 1)
                        e1[i] = eps0[CW * at + 1];
                    if (++yy == p.ly) {
                        yy = 0;
                        zz++;
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < PACKED_AHEAD; i++) {
                if (i >= ahead) /* the same for the whole block */
                    break;
                const int64_t r = r0 + i;
                const int64_t at = r * p.cols;
                if (r == first || (THREE && y == 0)) {
                    mine = colour1[at + wc];
                    down = colour1[at + (y == 0 ? (p.ly - 1) * p.cols : -p.cols) + wc];
                } else {
                    down = mine;
                    mine = up;
                }
                up = above[i];
                const uint32_t a = own[i];
                /* colour 0 holds the x of parity (y + z) & 1 of the row; the other x
                 * neighbour: the next word's first nibble (par 1) or the previous word's
                 * last */
                const bool par = (y + z) & 1;
                uint32_t side;
                if (par) {
                    const uint32_t from_lane = __shfl_down_sync(0xffffffffu, mine, 1);
                    side = __funnelshift_r(mine, next_in_warp ? from_lane : beside[i], 4);
                } else {
                    const uint32_t from_lane = __shfl_up_sync(0xffffffffu, mine, 1);
                    side = __funnelshift_l(prev_in_warp ? from_lane : beside[i], mine, 4);
                }
                uint32_t nb[6] = { mine, side, up, down, 0, 0 };
                if (THREE) {
                    nb[4] = z_up[THREE ? i : 0];
                    nb[5] = z_down[THREE ? i : 0];
                }
                if constexpr (CW > 0) { /* ising_packed.cu: direction d's bit d % 4 of word d / 4 */
#pragma unroll
                    for (int d = 0; d < 4; d++)
                        nb[d] ^= (e0[CW > 0 ? i : 0] >> d) & NIBBLE_BITS;
                    if constexpr (CW > 1) {
                        nb[4] ^= e1[CW > 1 ? i : 0] & NIBBLE_BITS;
                        nb[5] ^= (e1[CW > 1 ? i : 0] >> 1) & NIBBLE_BITS;
                    }
                }
                uint32_t t = (a ^ nb[0]) + (a ^ nb[1]) + (a ^ nb[2]) + (a ^ nb[3]);
                if (THREE)
                    t += (a ^ nb[4]) + (a ^ nb[5]);
                const int n = __popc(a) + __popc(mine);
                if (in) {
                    anti_bytes += (t & 0x0F0F0F0Fu) + ((t >> 4) & 0x0F0F0F0Fu);
                    neg += (uint64_t)n;
                    items++;
                    acc_even += par ? mine : a;
                    acc_odd += par ? a : mine;
                }
                if (++pending == 15) {
                    spread_nibbles(acc_even, cnt_even);
                    spread_nibbles(acc_odd, cnt_odd);
                    anti += byte_total(anti_bytes);
                    acc_even = acc_odd = anti_bytes = 0;
                    pending = 0;
                }
                row_done(p, rb, row_sums, in ? 16 - 2 * n : 0, r + 1 == end, proj);
                if (++y == p.ly) {
                    y = 0;
                    z++;
                }
            }
        }
        spread_nibbles(acc_even, cnt_even);
        spread_nibbles(acc_odd, cnt_odd);
        anti += byte_total(anti_bytes);
        /* the columns: x = 16 w + 2 m (+ 1 for the odd x), sum rows - 2 (count of -1) */
        const int rows = (int)(end - first);
#pragma unroll
        for (int m = 0; m < 8; m++) {
            col_sums[16 * threadIdx.x + 2 * m] = in ? rows - 2 * nibble_count(cnt_even, m) : 0;
            col_sums[16 * threadIdx.x + 2 * m + 1] = in ? rows - 2 * nibble_count(cnt_odd, m) : 0;
        }
        __syncthreads();
        const int64_t x0 = 16 * (int64_t)blockIdx.x * CUDA_THREADS;
#pragma unroll 4
        for (int k = 0; k < 16; k++) {
            const int j = k * CUDA_THREADS + (int)threadIdx.x;
            const int v = col_sums[j];
            if (x0 + j < p.lx && v != 0)
                atomicAdd(proj + x0 + j, (unsigned long long)(long long)v);
        }
        __syncthreads(); /* col_sums and row_sums free for the next chunk */
    }
    /* a word pair: 8 colour-0 sites with 2 ndim bonds each, 16 sites */
    const int nd2 = THREE ? 6 : 4;
    const int64_t bonds = (int64_t)items * 8 * nd2 - 2 * (int64_t)anti;
    const int64_t spins = (int64_t)items * 16 - 2 * (int64_t)neg;
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)spins);
}

extern "C" cudaError_t cuda_ising_packed_measure_projections(
    cudaStream_t stream, const struct latmc_lattice *g, const uint32_t *colour0,
    const uint32_t *colour1, const uint32_t *eps0, const struct cuda_proj_range *r,
    struct latmc_ising_sums *sums, int64_t *proj)
{
    if (r->planes <= 0)
        return cudaSuccess;
    const struct fold_geom p = geom_of(g, r, g->lx / 16);
    const dim3 grid = grid_of(p);
    unsigned long long *out = (unsigned long long *)proj;
    if (g->ndim == 3) {
        if (eps0)
            packed_fold_kernel<true, 2><<<grid, CUDA_THREADS, 0, stream>>>(p, colour0, colour1,
                                                                          eps0, sums, out);
        else
            packed_fold_kernel<true, 0><<<grid, CUDA_THREADS, 0, stream>>>(p, colour0, colour1,
                                                                          NULL, sums, out);
    } else {
        if (eps0)
            packed_fold_kernel<false, 1><<<grid, CUDA_THREADS, 0, stream>>>(p, colour0, colour1,
                                                                           eps0, sums, out);
        else
            packed_fold_kernel<false, 0><<<grid, CUDA_THREADS, 0, stream>>>(p, colour0, colour1,
                                                                           NULL, sums, out);
    }
    return cudaGetLastError();
}

/* ---- one byte a site: Ising's int8 spins, Potts' uint8 states ---- */

/*
 * A thread: site x of the rows of its chunks. Bonds in the positive directions (x + 1,
 * y + 1, z + 1) as the byte measurements count them. Ising: the column's sum in a register,
 * the rows' through row_done. Potts: each state's column counts in shared memory (a
 * thread's own counters: no conflicts), each state's row counts added in shared memory by
 * the lanes holding it (one __match_any_sync a row, as potts_measure_kernel), handed to proj
 * every ROW_BATCH rows by the whole block; the populations are the columns' totals.
 */
template <bool POTTS, bool THREE>
__global__ void __launch_bounds__(CUDA_THREADS, FOLD_BLOCKS_PER_SM)
byte_fold_kernel(struct fold_geom p, const uint8_t *sites, const int8_t *eps, int q, void *sums,
                 unsigned long long *proj)
{
    extern __shared__ unsigned potts_shared[]; /* Potts: q x CUDA_THREADS column counters,
                                                 2 x q x ROW_BATCH row counters */
    __shared__ int row_sums[2][FOLD_WARPS][ROW_BATCH];
    __shared__ unsigned long long population[FOLD_POTTS_STATES];
    unsigned *col_count = potts_shared;
    unsigned *row_count = potts_shared + q * CUDA_THREADS;
    const unsigned lane = threadIdx.x & 31u;
    const int64_t x = (int64_t)blockIdx.x * CUDA_THREADS + threadIdx.x;
    const bool in = x < p.lx;
    const int64_t xc = in ? x : p.lx - 1;
    const bool next_in_warp = lane < 31 && xc + 1 < p.lx;
    const int64_t next_x = xc + 1 == p.lx ? 0 : xc + 1;
    const int64_t plane = p.ly * p.lx;
    const int nd = THREE ? 3 : 2;
    if (POTTS) {
        for (int k = threadIdx.x; k < q * (CUDA_THREADS + 2 * ROW_BATCH); k += CUDA_THREADS)
            potts_shared[k] = 0;
        for (int k = threadIdx.x; k < q; k += CUDA_THREADS)
            population[k] = 0;
        __syncthreads();
    }
    int64_t bonds = 0, total = 0;
    for (int64_t c = blockIdx.y; c < p.nchunks; c += gridDim.y) {
        const int64_t first = p.row0 + c * p.chunk;
        const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
        int64_t z = first / p.ly, y = first - z * p.ly;
        struct row_batches rb = { 0, 0, first };
        long long column = 0;
        unsigned s = 0, up = 0;
        for (int64_t r0 = first; r0 < end; r0 += BYTES_AHEAD) {
            /* the group's loads first, all in flight together: the sites one row up (and
             * one plane up, 3D); a row's own sites are the row before's up */
            const int ahead = (int)min((int64_t)BYTES_AHEAD, end - r0);
            uint8_t above[BYTES_AHEAD], beside[BYTES_AHEAD], z_above[THREE ? BYTES_AHEAD : 1];
            {
                int64_t yy = y, zz = z;
#pragma unroll
                for (int i = 0; i < BYTES_AHEAD; i++) {
                    if (i >= ahead)
                        break;
                    const int64_t at = (r0 + i) * p.lx + xc;
                    above[i] = sites[at + (yy + 1 == p.ly ? -(p.ly - 1) * p.lx : p.lx)];
                    beside[i] = sites[at - xc + next_x]; /* where no lane holds x + 1 */
                    if (THREE)
                        z_above[i] = sites[at + (zz + 1 == p.lz ? -(p.lz - 1) * plane : plane)];
                    if (++yy == p.ly) {
                        yy = 0;
                        zz++;
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < BYTES_AHEAD; i++) {
                if (i >= ahead) /* the same for the whole block */
                    break;
                const int64_t r = r0 + i;
                const int64_t at = r * p.lx;
                s = r == first || (THREE && y == 0) ? sites[at + xc] : up;
                up = above[i];
                const unsigned from_lane = __shfl_down_sync(0xffffffffu, s, 1);
                const unsigned right = next_in_warp ? from_lane : beside[i];
                const unsigned zup = THREE ? z_above[THREE ? i : 0] : 0u;
                if (!POTTS) {
                    const int v = (int)(int8_t)s;
                    int nb;
                    if (eps) {
                        const int8_t *e = eps + nd * (at + xc);
                        /* the axes' order: x, y (, z) */
                        nb = e[0] * (int)(int8_t)right + e[1] * (int)(int8_t)up;
                        if (THREE)
                            nb += e[2] * (int)(int8_t)zup;
                    } else {
                        nb = (int)(int8_t)right + (int)(int8_t)up +
                             (THREE ? (int)(int8_t)zup : 0);
                    }
                    if (in) {
                        bonds += v * nb;
                        total += v;
                        column += v;
                    }
                    row_done(p, rb, row_sums, in ? v : 0, r + 1 == end, proj);
                } else {
                    if (in) {
                        bonds += (s == right) + (s == up) + (THREE && s == zup);
                        col_count[s * CUDA_THREADS + threadIdx.x]++;
                    }
                    const unsigned key = in ? s : 256u + lane;
                    const unsigned same = __match_any_sync(0xffffffffu, key);
                    if (in && lane == (unsigned)(__ffs(same) - 1))
                        atomicAdd(&row_count[(rb.buf * q + (int)s) * ROW_BATCH + rb.k],
                                  (unsigned)__popc(same));
                    if (++rb.k == ROW_BATCH || r + 1 == end) {
                        __syncthreads();
                        unsigned *batch = row_count + rb.buf * q * ROW_BATCH;
                        for (int k = threadIdx.x; k < q * ROW_BATCH; k += CUDA_THREADS) {
                            const int a = k / ROW_BATCH, t = k - a * ROW_BATCH;
                            const unsigned n = batch[k];
                            if (t < rb.k && n != 0)
                                add_row_entries(p, rb.first + t, (long long)n,
                                                proj + a * p.per_state);
                            batch[k] = 0;
                        }
                        rb.first += rb.k;
                        rb.k = 0;
                        rb.buf ^= 1;
                    }
                }
                if (++y == p.ly) {
                    y = 0;
                    z++;
                }
            }
        }
        if (!POTTS) {
            if (in && column != 0)
                atomicAdd(proj + x, (unsigned long long)column);
        } else {
            __syncthreads(); /* the last batch's counters cleared by all */
            for (int a = 0; a < q; a++) {
                const unsigned n = col_count[a * CUDA_THREADS + threadIdx.x];
                col_count[a * CUDA_THREADS + threadIdx.x] = 0;
                if (in && n != 0) {
                    atomicAdd(proj + a * p.per_state + x, (unsigned long long)n);
                    atomicAdd(&population[a], (unsigned long long)n);
                }
            }
            __syncthreads();
        }
    }
    if (!POTTS) {
        struct latmc_ising_sums *is = (struct latmc_ising_sums *)sums;
        cuda_warp_add((unsigned long long *)&is->bonds, (unsigned long long)bonds);
        cuda_warp_add((unsigned long long *)&is->spins, (unsigned long long)total);
    } else {
        struct latmc_potts_sums *ps = (struct latmc_potts_sums *)sums;
        cuda_warp_add((unsigned long long *)&ps->matches, (unsigned long long)bonds);
        __syncthreads();
        for (int a = threadIdx.x; a < q; a += CUDA_THREADS)
            if (population[a] != 0)
                atomicAdd((unsigned long long *)&ps->count[a], population[a]);
    }
}

extern "C" bool cuda_byte_measure_projections_fits(int potts_q)
{
    return potts_q <= FOLD_POTTS_STATES;
}

extern "C" cudaError_t cuda_byte_measure_projections(cudaStream_t stream,
                                                     const struct latmc_lattice *g,
                                                     const void *sites, const int8_t *eps,
                                                     const struct cuda_proj_range *r, int potts_q,
                                                     void *sums, int64_t *proj)
{
    if (r->planes <= 0)
        return cudaSuccess;
    if (!cuda_byte_measure_projections_fits(potts_q))
        return cudaErrorInvalidValue;
    const struct fold_geom p = geom_of(g, r, g->lx);
    const dim3 grid = grid_of(p);
    const uint8_t *s = (const uint8_t *)sites;
    unsigned long long *out = (unsigned long long *)proj;
    const size_t shared = (size_t)potts_q * (CUDA_THREADS + 2 * ROW_BATCH) * sizeof(unsigned);
    if (potts_q > 0) {
        if (g->ndim == 3)
            byte_fold_kernel<true, true><<<grid, CUDA_THREADS, shared, stream>>>(
                p, s, NULL, potts_q, sums, out);
        else
            byte_fold_kernel<true, false><<<grid, CUDA_THREADS, shared, stream>>>(
                p, s, NULL, potts_q, sums, out);
    } else if (g->ndim == 3) {
        byte_fold_kernel<false, true><<<grid, CUDA_THREADS, 0, stream>>>(p, s, eps, 0, sums, out);
    } else {
        byte_fold_kernel<false, false><<<grid, CUDA_THREADS, 0, stream>>>(p, s, eps, 0, sums, out);
    }
    return cudaGetLastError();
}

/* ---- the transform (lib/modes.h, latmc_modes_chain_sum) ---- */

#define MODES_CHAINS 64 /* LATMC_MODES_CHAINS (lib/modes.h) */

/* A block per part (component k, axis mu, real or imaginary), a thread per chain: the
 * chain's terms in increasing x, each product and sum rounded alone (no fused
 * multiply-add), then the chains added in pairs level by level, as on the host. */
__global__ void projections_transform_kernel(struct cuda_proj_transform t,
                                             const long long *proj, const double *phases,
                                             double *modes)
{
    __shared__ double part[MODES_CHAINS];
    const int im = (int)(blockIdx.x & 1u), axis = (int)(blockIdx.x >> 1);
    const int mu = axis % t.ndim, k = axis / t.ndim;
    const int64_t L = t.extent[mu];
    const long long *p = proj + (int64_t)k * t.per_state + t.proj_at[mu];
    const double *table = phases + t.phase_at[mu] + (im ? L : 0);
    const int j = (int)threadIdx.x;
    double sum = 0;
    for (int64_t x = j; x < L; x += MODES_CHAINS)
        sum = __dadd_rn(sum, __dmul_rn(__ll2double_rn(p[x]), table[x]));
    part[j] = sum;
    __syncthreads();
    for (int width = MODES_CHAINS; width > 1; width /= 2) {
        const double v = j < width / 2 ? __dadd_rn(part[2 * j], part[2 * j + 1]) : 0.0;
        __syncthreads();
        if (j < width / 2)
            part[j] = v;
        __syncthreads();
    }
    if (j == 0)
        modes[2 * axis + im] = part[0];
}

extern "C" cudaError_t cuda_projections_transform(cudaStream_t stream,
                                                  const struct cuda_proj_transform *t,
                                                  const int64_t *proj, const double *phases,
                                                  double *modes)
{
    const unsigned blocks = (unsigned)(t->components * t->ndim * 2);
    projections_transform_kernel<<<blocks, MODES_CHAINS, 0, stream>>>(
        *t, (const long long *)proj, phases, modes);
    return cudaGetLastError();
}
