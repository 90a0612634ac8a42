/*
 * Internal to the CUDA module: what the kernels that count a measurement's sums and the
 * Fourier modes' projections in one read share (measure_projections.cu, potts_fold.cu,
 * ising/ising_bits_fold.cu):
 * how a range's rows are cut into chunks of rows, one block column of threads per chunk,
 * and how the rows' sums reach the projections (P_y in 3D, P_last), as integer atomics
 * whose totals do not depend on their order.
 */
#ifndef LATMC_CUDA_MEASURE_FOLD_CUH
#define LATMC_CUDA_MEASURE_FOLD_CUH

#include <stdlib.h>
#include <string.h>

#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "mode_projections.h"
#include "modes_exact.cuh"

/* The exact sums of the counts' modes (measure_projections.cu, projections_exact_kernel)
 * are launched programmatically after the counting kernel: once every counting block has
 * reached its last chunk's end (and let it), its blocks start (taking an SM's room as the
 * counting blocks leave it), load their weights and wait for the counts (all the counting
 * kernel's blocks done and their writes seen) before they read them: no launch gap
 * between the two. sm_90 on; before, the launch is ordinary and both are nothing. A count
 * that weighs its own columns and rows has no such kernel after it and lets nothing start
 * early. */
__device__ __forceinline__ void fold_let_transform_start(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

__device__ __forceinline__ void fold_wait_for_counts(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

#define FOLD_WARPS (CUDA_THREADS / 32)
#define ROW_BATCH 32              /* rows between two additions of the rows' sums */
#define CHUNK_MIN 64              /* rows: fewer chunks, fewer column atomics */
#define CHUNK_MAX 65520           /* rows: the packed columns' 16-bit counters (15 x 4368) */
#define FOLD_BLOCKS_PER_SM 2      /* the kernels' __launch_bounds__ (128 registers) where
                                   * a kernel takes no other */

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

/* Where a count's projections go (the packed and 1-bit Ising counts): out (proj), or
 * weighed into limbs (limbs not NULL, from weights); neither: the sums alone. */
struct fold_out {
    unsigned long long *proj;
    const long long *weights;
    unsigned long long *limbs;
};

/* Whether a count of nchunks chunks and `across` blocks a row may weigh into o's limbs:
 * each chunk of each block adds its sums into them once, and a limb holds
 * LATMC_MODES_LIMB_SUMS (a lattice of very many rows of few groups exceeds it; the caller
 * counts projections then). */
static inline bool fold_limbs_hold(const struct fold_out &o, int64_t nchunks, int64_t across)
{
    return !o.limbs || nchunks * across <= LATMC_MODES_LIMB_SUMS;
}

static int sms_of_current_device(void)
{
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cuda_device_sm_count(device, &sms) != cudaSuccess || sms <= 0) {
        (void)cudaGetLastError();
        return 132;
    }
    return sms;
}

/* LATMC_CUDA_FOLD_WIDE=1 (doc/environment.md): the walks' wide batches everywhere, as the
 * lattices past their narrow offsets take them, so that tests of small lattices run those */
static inline bool fold_wide_forced(void)
{
    const char *v = getenv("LATMC_CUDA_FOLD_WIDE");
    return v && strcmp(v, "1") == 0;
}

/* What a thread of the packed or 1-bit walk keeps for its NW words of a row (the 1-bit
 * walk's group: NW 1) of `cols` threads' words: where the words beside them are, and
 * whether they are in the row (lanes past it take the row's last words and count
 * nothing). */
struct fold_lane {
    int64_t w0, next_w, prev_w;    /* the first word, the words beside the thread's (wrapped) */
    uint32_t to_next, to_prev;     /* next_w - w0, prev_w - w0 (mod 2^32: narrow offsets) */
    bool in, edge_next, edge_prev; /* the word beside not in the lane beside */
};

/* Thread column g's (blockIdx.x CT + the thread's column ct) fold_lane. */
template <int NW> __device__ __forceinline__ struct fold_lane fold_lane_of(int64_t g, int64_t cols)
{
    const unsigned lane = threadIdx.x & 31u;
    const int64_t wpr = cols * NW;
    struct fold_lane t;
    t.in = g < cols;
    t.w0 = (t.in ? g : cols - 1) * NW;
    t.next_w = t.w0 + NW == wpr ? 0 : t.w0 + NW;
    t.prev_w = t.w0 == 0 ? wpr - 1 : t.w0 - 1;
    t.to_next = (uint32_t)(t.next_w - t.w0);
    t.to_prev = (uint32_t)(t.prev_w - t.w0);
    t.edge_next = !(lane < 31 && t.w0 + NW < wpr);
    t.edge_prev = !(lane > 0 && t.w0 > 0);
    return t;
}

/* Whether a batch of n rows from row y of its plane goes by the walks' fast batch: a
 * launch of narrow offsets, a whole batch (ahead rows), none of them the plane's last (the
 * row above each the next) nor, in 3D, its first (the row below each the one before). A
 * macro: as a function the compiler schedules some kernels' code otherwise. */
#define FOLD_BATCH_IS_FAST(three, narrow, n, ahead, y, ly)                                    \
    ((narrow) && (n) == (ahead) && (y) + (ahead) < (ly) && (!(three) || (y) != 0))

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

/*
 * 3D: a chunk of `chunk` rows made a divisor of a plane's ly rows where one lies within a
 * quarter above it (else chunk). A walk reads each colour-1 row as the row above its own,
 * and again as the planes beside of the rows ly before and after: with chunks that divide
 * a plane, the chunks ly rows apart start ly rows apart and walk those rows at the same
 * time, so that the second and third reads find the row in the L2.
 */
static inline int64_t fold_plane_chunk(const struct fold_geom &p, int64_t chunk)
{
    if (!p.three || chunk <= 0 || chunk >= p.ly)
        return chunk;
    for (int64_t k = p.ly / chunk; k >= 1; k--) {
        const int64_t c = p.ly / k;
        if (c > chunk + chunk / 4)
            break;
        if (p.ly % k == 0)
            return c;
    }
    return chunk;
}

/* p's chunks as rw parts of `sub` rows, a part for each ct threads the SMs hold at once
 * (per_sm blocks of CUDA_THREADS an SM) over the `across` blocks across a row, taken down
 * to whole chunks of rw parts (no chunk past the SMs' one wave): sub the rows' share of a
 * part, at most `most`, in 3D a divisor of a plane where one is near (fold_plane_chunk), a
 * chunk at least CHUNK_MIN rows. */
static inline void fold_set_parts(struct fold_geom &p, int per_sm, int ct, int64_t across,
                                  int rw, int64_t most)
{
    int64_t parts = (int64_t)sms_of_current_device() * per_sm * (CUDA_THREADS / ct) / across;
    parts = parts / rw * rw;
    if (parts < rw)
        parts = rw;
    int64_t sub = fold_plane_chunk(p, min((p.nrows + parts - 1) / parts, most));
    if (sub > most)
        sub = most;
    if (sub * rw < CHUNK_MIN)
        sub = (CHUNK_MIN + rw - 1) / rw;
    p.chunk = sub * rw;
    p.nchunks = (p.nrows + p.chunk - 1) / p.chunk;
}

/* Part `part`'s rows [mine, end) of a chunk [first, end) of `chunk` rows cut in rw parts
 * of ceil(chunk / rw) rows (empty for the parts past a short chunk's end). */
struct fold_part {
    int64_t mine, end;
};
__device__ __forceinline__ struct fold_part fold_part_of(int64_t chunk, int rw, int part,
                                                         int64_t first, int64_t end)
{
    const int64_t sub = (chunk + rw - 1) / rw;
    struct fold_part f;
    f.mine = min(first + part * sub, end);
    f.end = min(f.mine + sub, end);
    return f;
}

static inline dim3 grid_of(const struct fold_geom &p)
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

/* The byte Potts kernel's rows (measure_projections.cu): its state counts of ROW_BATCH rows
 * in shared memory, two buffers alternating, handed to the entries by the whole block. */
struct row_batches {
    int buf, k;
    int64_t first;  /* the batch's first row */
};

/*
 * The rows of packed and 1-bit Ising: no barriers and no reduction per row, for a layout with few
 * warps across a row (L_x / 512 or fewer). Each lane writes its part of a row's
 * sum as one byte (packed: offset into 0 .. 32 NW; 1-bit: its count of -1; the sum made by
 * warp_rows_flush's mul and add) of the warp's row in shared memory (`rows`: the
 * warp's ROW_BATCH rows, ROW_PITCH_WORDS words apart: lane k's words k ROW_PITCH_WORDS + i
 * fall in distinct banks), a batch of rows at a time; every ROW_BATCH rows (a whole number
 * of the walks' batches) and at a chunk's end lane k adds row k's 32 bytes (8 words, a
 * __dp4a each) and adds the row's sum into the block's window of row sums in shared memory
 * (a shared atomic, consecutive rows in consecutive lanes: no barrier, the block's warps
 * in any order). The window (a chunk's rows: the launches cap a chunk at the window's rows,
 * ROW_WINDOW or, for the packed count of rows of 1024 sites, 2 ROW_WINDOW, so that no
 * barrier sits inside the walk) goes to the entries after the chunk's barrier,
 * one global atomic per row, block and entry (flush_row_window): at 65536^2 four
 * blocks across a row instead of 32 warps (2.1M 64-bit global atomics -> 0.26M). No warp
 * waits for another inside a window, and a row costs a lane one byte store instead of a
 * warp reduction.
 */
#define ROW_PITCH_WORDS 9 /* 32 bytes of a row and one word of padding */
/* rows of the block's row sums (4 KiB), the longest chunk of the Ising fold kernels but
 * the packed count's of rows of 1024 sites (2 ROW_WINDOW, measure_projections.cu); a
 * smaller one only to test many chunks (a diagnostic build's -DROW_WINDOW=32) */
#ifndef ROW_WINDOW
#define ROW_WINDOW 1024
#endif
/* a chunk capped at ROW_WINDOW rows is within the packed columns' 16-bit counters */
static_assert(ROW_WINDOW <= CHUNK_MAX, "ROW_WINDOW past the 16-bit column counters");

struct warp_rows {
    int k;   /* rows of the batch so far */
    int at;  /* the batch's first row in the window; after a batch, the window's rows */
};

/* The warp's wr.k rows of bytes (`rows`) added: lane k adds row k's 32 bytes (8 words, a
 * __dp4a each); the row's sum is mul (their total) + add, added into the block's window. */
__device__ __forceinline__ void warp_rows_flush(struct warp_rows &wr, const uint32_t *rows,
                                                int *window, int mul, int add)
{
    const int lane = (int)(threadIdx.x & 31u);
    __syncwarp();
    if (lane < wr.k) {
        const uint32_t *row = rows + lane * ROW_PITCH_WORDS;
        unsigned total = 0;
#pragma unroll
        for (int i = 0; i < 8; i++)
            total = __dp4a(row[i], 0x01010101u, total);
        const int v = mul * (int)total + add; /* |v| <= 32 x 32 NW: an int */
        if (v != 0)
            atomicAdd(window + wr.at + lane, v);
    }
    __syncwarp(); /* the rows read before the next batch's writes */
    wr.at += wr.k;
    wr.k = 0;
}

/* The block's window of row sums (`rows` of them) cleared before its first chunk, by every
 * thread of the block (`threads` of them), and the barrier after. */
__device__ __forceinline__ void fold_clear_window(int *window, int threads = CUDA_THREADS,
                                                  int rows = ROW_WINDOW)
{
    for (int k = threadIdx.x; k < rows; k += threads)
        window[k] = 0;
    __syncthreads();
}

/* The block's window of n rows from window_first into the proj entries, and cleared: called
 * by every thread of the block (`threads` of them) after a barrier (every warp's additions
 * done), followed by another before the window is added to again. */
__device__ __forceinline__ void flush_row_window(const struct fold_geom &p, int *window,
                                                 int64_t window_first, int n,
                                                 unsigned long long *proj,
                                                 int threads = CUDA_THREADS)
{
#pragma unroll 1
    for (int i = (int)threadIdx.x; i < n; i += threads) {
        const int v = window[i];
        window[i] = 0;
        add_row_entries(p, window_first + i, (long long)v, proj);
    }
}

/*
 * flush_row_window's rows weighed instead (the exact modes, modes_exact.cuh): each row's
 * sum v times its entries' weights (cuda_projections_exact's layout), added to the thread's
 * mode: 3D mode[2], [3] P_y's (real, imaginary) and mode[4], [5] P_last's; 2D mode[2], [3]
 * P_last's. The window cleared as it is read. 3D: a thread's rows are `threads` apart, so
 * its (y, z) steps by one division's quotient and remainder instead of a 64-bit division a
 * row, and its rows of one plane are summed before they are weighed by P_last's weights
 * (a plane holds ly rows: a thread's rows change plane once in ly / threads rows or so).
 */
template <bool THREE>
__device__ __forceinline__ void weigh_row_window(const struct fold_geom &p, int *window,
                                                 int64_t window_first, int n,
                                                 const long long *weights,
                                                 __int128 (&mode)[THREE ? 6 : 4],
                                                 int threads = CUDA_THREADS)
{
    const int64_t last_len = p.per_state - p.last_at; /* the last axis's extent */
    const long long *wy = weights + 2 * p.y_at, *wl = weights + 2 * p.last_at;
    /* a thread's rows' |v| add up to at most (the window's rows) / threads rows of at
     * most 64 x (the threads across a row) sites each (2^16 for a window of ROW_WINDOW rows
     * and 256 threads across, less for the other shapes), far below exact_acc's 2^32; a
     * plane's part of them (vz) likewise */
    struct exact_acc acc[THREE ? 4 : 2] = {};
    if constexpr (THREE) {
        const int i0 = (int)threadIdx.x;
        if (i0 < n) {
            const int64_t r = window_first + i0;
            int64_t z = r / p.ly, y = r - z * p.ly;
            const int64_t dz = threads / p.ly, dy = threads - dz * p.ly;
            int vz = 0; /* the thread's rows of plane z so far */
#pragma unroll 4
            for (int i = i0; i < n; i += threads) {
                const int v = window[i];
                window[i] = 0;
                exact_acc_add(acc[0], v, wy[y]);
                exact_acc_add(acc[1], v, wy[p.ly + y]);
                vz += v;
                int64_t ny = y + dy, nz = z + dz;
                if (ny >= p.ly) {
                    ny -= p.ly;
                    nz++;
                }
                if (nz != z || i + threads >= n) { /* the thread's rows of plane z done */
                    exact_acc_add(acc[2], vz, wl[z + p.plane_shift]);
                    exact_acc_add(acc[3], vz, wl[last_len + z + p.plane_shift]);
                    vz = 0;
                }
                y = ny;
                z = nz;
            }
        }
    } else {
#pragma unroll 4
        for (int i = (int)threadIdx.x; i < n; i += threads) {
            const int v = window[i];
            window[i] = 0;
            const int64_t r = window_first + i; /* 2D: a row is a plane */
            exact_acc_add(acc[0], v, wl[r + p.plane_shift]);
            exact_acc_add(acc[1], v, wl[last_len + r + p.plane_shift]);
        }
    }
#pragma unroll
    for (int k = 0; k < (THREE ? 4 : 2); k++)
        mode[2 + k] += exact_acc_value(acc[k]);
}

#endif
