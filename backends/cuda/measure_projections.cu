/*
 * The measurement's sums and the Fourier modes' projections (mode_projections.h) from one
 * read of a box's configuration: what the measurement kernels (ising_packed.cu,
 * reductions.cu, the box kernels) and the projection kernels (mode_projections.cu) give,
 * integer for integer, in the pass of the first alone.
 *
 * The walk: a thread takes a column (4, 2 or 1 packed words of 16 x each, or one x of the
 * bytes) of every row of a chunk of rows, in row order, the loads of a few rows issued
 * before it counts them (packed rows of 32 or 64 threads: the block's 4 or 2 warps across
 * the same columns each take a part of the chunk's rows, into the same counters; in 3D
 * the parts divide a plane, fold_plane_chunk). The neighbour row behind the thread is the
 * row it read just before (a sliding window of rows in registers: each word read from
 * memory once), the neighbour word beside it its lane neighbour's (a shuffle).
 *   - P_x: the column's counts (packed: 15 rows' nibble bits added in a register without
 *     carries, then spread into 16-bit lanes in shared memory, a chunk having at most
 *     CHUNK_MAX rows; bytes: a register, Potts a shared counter per state), added at the
 *     chunk's end with one atomic per x and chunk, consecutive x in consecutive lanes (the
 *     packed count with limbs: weighed there instead, below).
 *   - P_y (3D) and P_last: the block's row sums of its chunk (at most its window's rows) in
 *     shared memory (measure_fold.cuh), each warp adding its part of a row with a shared
 *     atomic (no barrier inside a chunk), handed to the entries at the chunk's end, one
 *     global atomic per row, block and entry, consecutive entries in consecutive lanes.
 *     Packed, each lane's part of a row's sum is stored as a byte of the row in shared
 *     memory and every ROW_BATCH rows lane k adds row k's bytes (warp_rows_flush: no
 *     warp reduction per row); bytes (Ising), one warp reduction a row and warp.
 * Integers added with atomics: the totals do not depend on the order of the additions.
 * Bytes (a packed 65536^2 lattice, 2^31 bytes): the measurement's, plus 8 bytes per x and
 * chunk and per row and block (some 36 MB of atomics in the L2 for 66 chunks and 4 blocks
 * across a row: one chunk per resident block). Then each box's exact sums of the modes of
 * its projections on the device (the end of the file). Potts q <= 16 with L_x a multiple of 4
 * has its own kernel, four sites a thread (potts/potts_fold.cu).
 */
#include "measure_fold.cuh"
#include "modes_exact.cuh"
#include "potts.h"

#define FOLD_POTTS_STATES 32      /* Potts q up to this: counters in shared memory */
#define NIBBLE_BITS 0x11111111u   /* a packed word's sites: the nibbles' low bits */
/* Rows whose loads a thread issues together before it counts them (and the words beside
 * the warp's, its couplings): the bandwidth wants some 30 KiB in flight per SM (Little's
 * law: 4.8 TB/s x 0.8 us over 132 SMs), from 512 threads an SM; a packed row is 32 bytes a
 * thread (4 words of each colour), a byte row 1. No load waited for inside a row's count.
 * 3D with 4 words a thread 2 rows (the planes beside take the registers), else 4 (3D
 * 1024^3's count, 2 words a thread: half the waits for a batch's loads of 2 rows). */
#define PACKED_AHEAD (THREE && NW > 2 ? 2 : 4)
#define BYTES_AHEAD (THREE ? 8 : 16)

/* ---- Ising's packed layout (ising_packed.h) ---- */

/* NW consecutive words at p (NW 1, 2, 4, or 8 coupling words; p aligned to NW words, or
 * to 16 bytes for 8). */
template <int NW> __device__ __forceinline__ void load_words(const uint32_t *p, uint32_t *w)
{
    if constexpr (NW >= 4) {
#pragma unroll
        for (int i = 0; i < NW / 4; i++) {
            const uint4 v = ((const uint4 *)p)[i];
            w[4 * i] = v.x; w[4 * i + 1] = v.y; w[4 * i + 2] = v.z; w[4 * i + 3] = v.w;
        }
    } else if constexpr (NW == 2) {
        const uint2 v = *(const uint2 *)p;
        w[0] = v.x; w[1] = v.y;
    } else {
        w[0] = *p;
    }
}

/* The bytes of a word of the packed walk's anti-bond counts summed (each at most 12 NW a
 * row in 3D, 8 NW in 2D, added over a batch of rows). */
__device__ __forceinline__ uint32_t byte_total(uint32_t bytes)
{
    const uint32_t halves = (bytes & 0x00FF00FFu) + ((bytes >> 8) & 0x00FF00FFu);
    return (halves & 0xFFFFu) + (halves >> 16);
}

/* A row's walk so far: colour 1's words of the row and of the row below, the chunk's
 * anti-bond and -1 counts of the thread's words. */
template <int NW> struct packed_fold_walk {
    uint32_t mine[NW], down[NW];
    uint32_t anti, neg;
};

/*
 * One row's work after its loads: the anti-bonds of colour 0's words a (nibble by nibble,
 * folded into the bytes of `anti_bytes`: at most 12 NW a row in 3D, 8 NW in 2D; at most 6
 * a nibble, the words holding only their nibbles' low bits), its count n of -1 (both
 * colours, returned), the columns' nibble bits (PROJ: acc_a takes a and acc_b colour 1's
 * words, or the reverse where a_in_b). par: the row's parity (y + z) & 1: colour 0 holds
 * the x of that parity; its other x neighbours are the next word's first nibble (par 1) or
 * the previous word's last, the word beyond the thread's from the lane beside or, at a
 * warp's edge, `beside`.
 */
template <int NW, bool THREE, int CW, bool PROJ>
__device__ __forceinline__ unsigned packed_fold_row(const struct fold_lane &t,
                                                    struct packed_fold_walk<NW> &w, bool par,
                                                    const uint32_t (&a)[NW],
                                                    const uint32_t (&up)[NW], uint32_t beside,
                                                    const uint32_t *z_up, const uint32_t *z_down,
                                                    const uint32_t *eps, uint32_t &anti_bytes,
                                                    uint32_t (&acc_a)[NW], uint32_t (&acc_b)[NW],
                                                    bool a_in_b)
{
    uint32_t edge;
    if (par) {
        const uint32_t from_lane = __shfl_down_sync(0xffffffffu, w.mine[0], 1);
        edge = t.edge_next ? beside : from_lane;
    } else {
        const uint32_t from_lane = __shfl_up_sync(0xffffffffu, w.mine[NW - 1], 1);
        edge = t.edge_prev ? beside : from_lane;
    }
    unsigned n = 0;
#pragma unroll
    for (int k = 0; k < NW; k++) {
        const uint32_t side =
            par ? __funnelshift_r(w.mine[k], k + 1 < NW ? w.mine[k + 1] : edge, 4)
                : __funnelshift_l(k > 0 ? w.mine[k - 1] : edge, w.mine[k], 4);
        uint32_t nb[6] = { w.mine[k], side, up[k], w.down[k], 0, 0 };
        if constexpr (THREE) {
            nb[4] = z_up[k];
            nb[5] = z_down[k];
        }
        if constexpr (CW > 0) { /* direction d's bit d % 4 of word d / 4 */
            const uint32_t e0 = eps[CW * k];
#pragma unroll
            for (int d = 0; d < 4; d++)
                nb[d] ^= (e0 >> d) & NIBBLE_BITS;
            if constexpr (CW > 1) {
                const uint32_t e1 = eps[CW * k + 1];
                nb[4] ^= e1 & NIBBLE_BITS;
                nb[5] ^= (e1 >> 1) & NIBBLE_BITS;
            }
        }
        uint32_t s = (a[k] ^ nb[0]) + (a[k] ^ nb[1]) + (a[k] ^ nb[2]) + (a[k] ^ nb[3]);
        if constexpr (THREE)
            s += (a[k] ^ nb[4]) + (a[k] ^ nb[5]);
        anti_bytes += (s & 0x0F0F0F0Fu) + ((s >> 4) & 0x0F0F0F0Fu);
        n += __popc(a[k]) + __popc(w.mine[k]);
        if constexpr (PROJ) {
            acc_a[k] += a_in_b ? w.mine[k] : a[k];
            acc_b[k] += a_in_b ? a[k] : w.mine[k];
        }
    }
    w.neg += n;
#pragma unroll
    for (int k = 0; k < NW; k++) {
        w.down[k] = w.mine[k];
        w.mine[k] = up[k];
    }
    return n;
}

/* A lane's row byte: its part of the row's spin sum offset by 16 NW (0 .. 32 NW), or the
 * offset alone past the row; warp_rows_flush takes 32 x 16 NW off the row's total. */
template <int NW> __device__ __forceinline__ unsigned char packed_row_byte(bool in, unsigned n)
{
    return (unsigned char)(in ? 32 * NW - 2 * n : 16 * NW);
}

/*
 * A batch of AHEAD rows within one plane, none of them the plane's last (its row above is
 * the next row) and, in 3D, not its first (its row below the previous one): the loads by
 * 32-bit word offsets from `off` (row r0's first word of the thread; narrow launches only),
 * no wrap tested, the row parities PAR0, !PAR0, ... known to the compiler.
 */
template <int NW, bool THREE, int CW, bool PROJ, bool PAR0>
__device__ __forceinline__ void packed_fold_fast(const struct fold_lane &t,
                                                 struct packed_fold_walk<NW> &w,
                                                 const uint32_t *c0, const uint32_t *c1,
                                                 const uint32_t *eps0, uint32_t off,
                                                 uint32_t wpr, uint32_t to_z_up,
                                                 uint32_t to_z_down, unsigned char *row_bytes,
                                                 uint32_t (&acc_even)[NW],
                                                 uint32_t (&acc_odd)[NW])
{
    constexpr int AHEAD = PACKED_AHEAD;
    uint32_t own[AHEAD][NW], above[AHEAD][NW], beside[AHEAD];
    uint32_t z_up[THREE ? AHEAD : 1][NW], z_down[THREE ? AHEAD : 1][NW];
    uint32_t eps[CW > 0 ? AHEAD : 1][CW > 0 ? CW * NW : 1];
#pragma unroll
    for (int i = 0; i < AHEAD; i++) {
        const bool par = PAR0 ^ (i & 1);
        const uint32_t at = off + (uint32_t)i * wpr;
        load_words<NW>(c0 + at, own[i]);
        load_words<NW>(c1 + (at + wpr), above[i]);
        beside[i] = 0;
        if (par ? t.edge_next : t.edge_prev) /* only a warp's edge lanes read it */
            beside[i] = c1[at + (par ? t.to_next : t.to_prev)];
        if constexpr (THREE) {
            load_words<NW>(c1 + (at + to_z_up), z_up[THREE ? i : 0]);
            load_words<NW>(c1 + (at + to_z_down), z_down[THREE ? i : 0]);
        }
        if constexpr (CW > 0)
            load_words<CW * NW>(eps0 + (uint32_t)CW * at, eps[CW > 0 ? i : 0]);
    }
    uint32_t anti_bytes = 0;
#pragma unroll
    for (int i = 0; i < AHEAD; i++) {
        const bool par = PAR0 ^ (i & 1);
        const unsigned n = packed_fold_row<NW, THREE, CW, PROJ>(
            t, w, par, own[i], above[i], beside[i], z_up[THREE ? i : 0], z_down[THREE ? i : 0],
            eps[CW > 0 ? i : 0], anti_bytes, acc_even, acc_odd, THREE ? par : (i & 1));
        if constexpr (PROJ)
            row_bytes[i * 4 * ROW_PITCH_WORDS] = packed_row_byte<NW>(t.in, n);
    }
    w.anti += byte_total(anti_bytes);
}

/*
 * Any batch of rows r0 .. r0 + n - 1 (n <= AHEAD): 64-bit offsets and the wraps of the rows
 * above and below and of the planes beside, the loads of the batch first. y, z: row r0's,
 * advanced past the batch.
 */
template <int NW, bool THREE, int CW, bool PROJ>
__device__ __forceinline__ void packed_fold_any(const struct fold_geom &p,
                                                const struct fold_lane &t,
                                                struct packed_fold_walk<NW> &w,
                                                const uint32_t *c0, const uint32_t *c1,
                                                const uint32_t *eps0, int64_t r0, int n,
                                                int64_t &y, int64_t &z, unsigned char *row_bytes,
                                                uint32_t (&acc_even)[NW],
                                                uint32_t (&acc_odd)[NW])
{
    constexpr int AHEAD = PACKED_AHEAD;
    const int64_t wpr = p.cols * NW, plane = p.ly * wpr;
    uint32_t own[AHEAD][NW], above[AHEAD][NW], beside[AHEAD];
    uint32_t z_up[THREE ? AHEAD : 1][NW], z_down[THREE ? AHEAD : 1][NW];
    uint32_t eps[CW > 0 ? AHEAD : 1][CW > 0 ? CW * NW : 1];
    {
        int64_t yy = y, zz = z;
#pragma unroll
        for (int i = 0; i < AHEAD; i++) {
            if (i >= n) /* the same for the whole warp */
                break;
            const int64_t row = (r0 + i) * wpr, at = row + t.w0;
            load_words<NW>(c0 + at, own[i]);
            load_words<NW>(c1 + at + (yy + 1 == p.ly ? -(p.ly - 1) * wpr : wpr), above[i]);
            beside[i] = c1[row + (((yy + zz) & 1) ? t.next_w : t.prev_w)];
            if constexpr (THREE) {
                load_words<NW>(c1 + at + (zz + 1 == p.lz ? -(p.lz - 1) * plane : plane),
                               z_up[THREE ? i : 0]);
                load_words<NW>(c1 + at + (zz == 0 ? (p.lz - 1) * plane : -plane),
                               z_down[THREE ? i : 0]);
            }
            if constexpr (CW > 0)
                load_words<CW * NW>(eps0 + CW * at, eps[CW > 0 ? i : 0]);
            if (++yy == p.ly) {
                yy = 0;
                zz++;
            }
        }
    }
    uint32_t anti_bytes = 0;
#pragma unroll
    for (int i = 0; i < AHEAD; i++) {
        if (i >= n)
            break;
        if (THREE && y == 0) { /* the plane's first row: below it its last */
            const int64_t at = (r0 + i) * wpr + t.w0;
            load_words<NW>(c1 + at, w.mine);
            load_words<NW>(c1 + at + (p.ly - 1) * wpr, w.down);
        }
        const bool par = (y + z) & 1;
        const unsigned n_row = packed_fold_row<NW, THREE, CW, PROJ>(
            t, w, par, own[i], above[i], beside[i], z_up[THREE ? i : 0], z_down[THREE ? i : 0],
            eps[CW > 0 ? i : 0], anti_bytes, acc_even, acc_odd, THREE ? par : (i & 1));
        if constexpr (PROJ)
            row_bytes[i * 4 * ROW_PITCH_WORDS] = packed_row_byte<NW>(t.in, n_row);
        if (++y == p.ly) {
            y = 0;
            z++;
        }
    }
    w.anti += byte_total(anti_bytes);
}

/*
 * A thread: NW consecutive words (16 NW sites) of the rows of its chunks, a batch of AHEAD
 * rows' loads issued before it counts them (packed_fold_fast inside a plane, narrow
 * launches; packed_fold_any elsewhere). The bonds: every bond has one colour-0 end, so
 * each colour-0 word against its 2 ndim neighbour words of colour 1 counts each bond once;
 * a word's anti-bonds added nibble by nibble (at most 6 a nibble: the words hold only their
 * nibbles' low bits), folded into bytes and summed once a batch. The columns: each word's
 * nibble bits of both x parities added over up to 15 rows without carries, then spread
 * into 16-bit lanes in shared memory by shared atomics (one instruction a word instead of
 * a load, an addition and a store; cnt[slot][ct], slot (2 k + parity) 4 + lane word: the
 * column thread ct's, added to by the same column thread of every part of the chunk, no
 * conflict within a warp), read by every thread for the chunk's atomics, one per x,
 * consecutive x in consecutive lanes (a slot's row of CT + 1 words, so that the slots of
 * one thread a warp reads there lie in different banks); with limbs (the exact modes,
 * lib/modes_exact.h) each column's and row's sum is weighed instead, by the weights of
 * the phase tables, and the block's sums go into the limbs (modes_exact.cuh), no
 * projections. PROJ false (no projections asked for): the sums alone, the packed layout's
 * measurement where a row fills a block (cuda_ising_packed.c), no counters, no barrier.
 * narrow: every word offset the fast batches form (the coupling words' CW a word
 * included) fits 32 bits.
 */
template <int NW, bool THREE, int CW, bool PROJ, int BT, int RW, int WIN>
__global__ void __launch_bounds__(BT, FOLD_BLOCKS_PER_SM * CUDA_THREADS / BT)
packed_fold_kernel(struct fold_geom p, const uint32_t *colour0, const uint32_t *colour1,
                   const uint32_t *eps0, struct latmc_ising_sums *sums,
                   unsigned long long *proj, const long long *weights,
                   unsigned long long *limbs, bool narrow)
{
    constexpr int AHEAD = PACKED_AHEAD;
    static_assert(THREE || AHEAD % 2 == 0, "2D: a row's parity from i's (acc_even below)");
    static_assert(ROW_BATCH % AHEAD == 0, "a batch's row bytes in one row batch");
    static_assert((THREE ? 12 : 8) * NW * AHEAD <= 255, "a batch's anti-bond bytes");
    constexpr int SLOTS = 8 * NW;
    constexpr int CT = BT / RW; /* the threads across the block's columns */
    static_assert(CT * RW == BT && CT % 32 == 0, "whole warps a part of the chunk");
    static_assert(WIN <= CHUNK_MAX, "a chunk of the window past the 16-bit column counters");
    /* without the projections (PROJ false: the sums alone) none of the counters below */
    __shared__ uint32_t cnt[PROJ ? SLOTS : 1][PROJ ? CT + 1 : 1];
    __shared__ uint32_t row_bytes_of[PROJ ? BT / 32 : 1][PROJ ? ROW_BATCH * ROW_PITCH_WORDS
                                                             : 1];
    __shared__ int row_window[PROJ ? WIN : 1]; /* the block's row sums (measure_fold.cuh) */
    constexpr int MODES = THREE ? 6 : 4; /* weighed (limbs): x, (y,) the last axis, re/im */
    __shared__ unsigned __int128 modes_of_warps[PROJ ? MODES * BT / 32 : 1];
    const unsigned lane = threadIdx.x & 31u;
    const int ct = (int)threadIdx.x % CT, part = (int)threadIdx.x / CT;
    const int64_t g = (int64_t)blockIdx.x * CT + ct; /* the group */
    const int64_t wpr = p.cols * NW;
    const struct fold_lane t = fold_lane_of<NW>(g, p.cols);
    uint32_t *row_words = row_bytes_of[PROJ ? threadIdx.x >> 5 : 0];
    unsigned char *lane_bytes = (unsigned char *)row_words + lane;
    const int64_t plane = p.ly * wpr;
    uint64_t anti = 0, neg = 0, items = 0;
    if constexpr (PROJ)
        fold_clear_window(row_window, BT, WIN);
    for (int64_t c = blockIdx.y; c < p.nchunks; c += gridDim.y) {
        const int64_t first = p.row0 + c * p.chunk;
        const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
        /* the thread's part of the chunk: its rows [mine, mine_end) */
        const struct fold_part fp = fold_part_of(p.chunk, RW, part, first, end);
        const int64_t mine = fp.mine, mine_end = fp.end;
        int64_t z = mine / p.ly, y = mine - z * p.ly;
        struct warp_rows wr = { 0, (int)(mine - first) };
        if constexpr (PROJ) {
            if (part == 0)
#pragma unroll
                for (int s = 0; s < SLOTS; s++)
                    cnt[s][ct] = 0;
            if constexpr (RW > 1)
                __syncthreads(); /* cleared before another part adds */
        }
        /* 3D: the columns' nibble bits of even and odd x. 2D: a row's parity alternates
         * and the rows of a part come AHEAD at a time from `mine`, so the words of row
         * r0 + i go by i's parity alone (no select a word): acc_even takes the colour-0
         * words of even i and the colour-1 words of odd i, the x parity of mine's
         * colour 0 (swap: odd), acc_odd the others */
        uint32_t acc_even[NW], acc_odd[NW];
        const bool swap = !THREE && ((y + z) & 1);
#pragma unroll
        for (int k = 0; k < NW; k++)
            acc_even[k] = acc_odd[k] = 0;
        int pending = 0;
        struct packed_fold_walk<NW> w;
        w.anti = w.neg = 0;
        if (mine < mine_end) { /* the first row's colour-1 words and the row below's */
            const int64_t at = mine * wpr + t.w0;
            load_words<NW>(colour1 + at, w.mine);
            load_words<NW>(colour1 + at + (y == 0 ? (p.ly - 1) * wpr : -wpr), w.down);
        }
        uint32_t off = (uint32_t)(mine * wpr + t.w0); /* narrow: row r0's first word */
        const uint32_t step = (uint32_t)(AHEAD * wpr);
        for (int64_t r0 = mine; r0 < mine_end; r0 += AHEAD, off += step) {
            const int n = (int)min((int64_t)AHEAD, mine_end - r0);
            unsigned char *row_at = lane_bytes + wr.k * 4 * ROW_PITCH_WORDS; /* row r0's */
            if (FOLD_BATCH_IS_FAST(THREE, narrow, n, AHEAD, y, p.ly)) {
                uint32_t zu = 0, zd = 0;
                if constexpr (THREE) {
                    zu = (uint32_t)(z + 1 == p.lz ? -(p.lz - 1) * plane : plane);
                    zd = (uint32_t)(z == 0 ? (p.lz - 1) * plane : -plane);
                }
                if ((y + z) & 1)
                    packed_fold_fast<NW, THREE, CW, PROJ, true>(t, w, colour0, colour1, eps0,
                                                                off, (uint32_t)wpr, zu, zd,
                                                                row_at, acc_even, acc_odd);
                else
                    packed_fold_fast<NW, THREE, CW, PROJ, false>(t, w, colour0, colour1, eps0,
                                                                 off, (uint32_t)wpr, zu, zd,
                                                                 row_at, acc_even, acc_odd);
                y += AHEAD;
            } else {
                packed_fold_any<NW, THREE, CW, PROJ>(p, t, w, colour0, colour1, eps0, r0, n, y,
                                                     z, row_at, acc_even, acc_odd);
            }
            if constexpr (!PROJ)
                continue;
            wr.k += n;
            if (wr.k == ROW_BATCH || r0 + n == mine_end) /* the row sums offset by 16 NW a lane */
                warp_rows_flush(wr, row_words, row_window, 1, -32 * 16 * NW);
            pending += n;
            if (pending > 15 - AHEAD || r0 + n == mine_end) { /* into the 16-bit lanes */
#pragma unroll
                for (int k = 0; k < NW; k++) {
#pragma unroll
                    for (int par2 = 0; par2 < 2; par2++) {
                        const uint32_t acc = (par2 != swap) ? acc_odd[k] : acc_even[k];
                        const uint32_t lo = acc & 0x0F0F0F0Fu, hi = (acc >> 4) & 0x0F0F0F0Fu;
                        uint32_t *s = &cnt[(2 * k + par2) * 4][ct];
                        constexpr int P = CT + 1; /* the counters' pitch */
                        atomicAdd(&s[0], lo & 0x00FF00FFu);
                        atomicAdd(&s[P], (lo >> 8) & 0x00FF00FFu);
                        atomicAdd(&s[2 * P], hi & 0x00FF00FFu);
                        atomicAdd(&s[3 * P], (hi >> 8) & 0x00FF00FFu);
                    }
                    acc_even[k] = acc_odd[k] = 0;
                }
                pending = 0;
            }
        }
        if (t.in) {
            anti += w.anti;
            neg += w.neg;
            items += (uint64_t)(mine_end - mine);
        }
        if constexpr (!PROJ)
            continue; /* the sums alone: nothing to hand on at a chunk's end */
        if (!limbs && c + gridDim.y >= p.nchunks) /* the block's last chunk counted */
            fold_let_transform_start();
        __syncthreads(); /* every thread's counters and row sums in shared memory */
        /* limbs: the chunk's columns and rows weighed here, the block's sums added into
         * the limbs (modes_exact.cuh), no projections */
        __int128 mode[MODES] = {};
        if (limbs)
            weigh_row_window<THREE>(p, row_window, first, (int)(end - first), weights, mode,
                                    BT);
        else
            flush_row_window(p, row_window, first, (int)(end - first), proj, BT);
        /* the block's columns: x = x0 + e, word e / 16 of the block's (thread / NW, word
         * k), nibble m = (e % 16) / 2, parity e % 2; the column's sum rows - 2 (count of -1).
         * Lane words of spread: 0 nibbles 0 and 4, 1: 2, 6, 2: 1, 5, 3: 3, 7 (low, high) */
        const int rows = (int)(end - first);
        const int64_t x0 = 16 * NW * (int64_t)blockIdx.x * CT;
        /* the block's columns: those of its groups within the row */
        const int64_t groups = min((int64_t)CT, p.cols - (int64_t)blockIdx.x * CT);
        const int columns = (int)(16 * NW * groups);
        auto column_sum = [&](int e) {
            const int wb = e >> 4, j = e & 15, m = j >> 1;
            const int owner = wb / NW, k = wb - owner * NW;
            const int slot = (2 * k + (j & 1)) * 4 + (((m & 1) << 1) | ((m >> 1) & 1));
            const uint32_t word = cnt[slot][owner];
            const int neg_count = (int)((m >> 2) ? word >> 16 : word & 0xFFFFu);
            return rows - 2 * neg_count;
        };
        if (limbs) {
            /* a thread's 16 NW / RW columns' |v| add up to at most 16 NW WIN / RW (2^16);
             * the loops unrolled: several columns' weight loads in flight */
            struct exact_acc re = {}, im = {};
            if constexpr ((BT / 16) % NW == 0) {
                /* a thread's columns e = threadIdx.x + i BT share their nibble, parity and
                 * word k (column_sum's slot and half), their owners BT / 16 / NW apart */
                const int j = (int)threadIdx.x & 15, m = j >> 1, wb = (int)threadIdx.x >> 4;
                const int slot = (2 * (wb % NW) + (j & 1)) * 4 + (((m & 1) << 1) | ((m >> 1) & 1));
                const int shift = (m >> 2) ? 16 : 0;
                const uint32_t *counts = cnt[slot];
                int owner = wb / NW;
#pragma unroll 4
                for (int e = threadIdx.x; e < columns; e += BT, owner += BT / 16 / NW) {
                    const int v = rows - 2 * (int)((counts[owner] >> shift) & 0xFFFFu);
                    exact_acc_add(re, v, weights[x0 + e]);
                    exact_acc_add(im, v, weights[p.lx + x0 + e]);
                }
            } else {
#pragma unroll 4
                for (int e = threadIdx.x; e < columns; e += BT) {
                    const int v = column_sum(e);
                    exact_acc_add(re, v, weights[x0 + e]);
                    exact_acc_add(im, v, weights[p.lx + x0 + e]);
                }
            }
            mode[0] += exact_acc_value(re);
            mode[1] += exact_acc_value(im);
        } else {
            for (int e = threadIdx.x; e < columns; e += BT) {
                const int v = column_sum(e);
                if (v != 0)
                    atomicAdd(proj + x0 + e, (unsigned long long)(long long)v);
            }
        }
        if (limbs)
            exact_block_limbs<MODES, BT, CUDA_MODES_LIMB_SLOTS>(mode, modes_of_warps, limbs);
        __syncthreads(); /* the counters and the window free for the next chunk */
    }
    /* a word pair: 8 colour-0 sites with 2 ndim bonds each, 16 sites */
    const int nd2 = THREE ? 6 : 4;
    const int64_t bonds = (int64_t)items * 8 * NW * nd2 - 2 * (int64_t)anti;
    const int64_t spins = (int64_t)items * 16 * NW - 2 * (int64_t)neg;
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)spins);
}

template <int NW, int BT, int RW, int WIN, bool PROJ>
static void launch_packed_fold_kernel(cudaStream_t stream, const struct latmc_lattice *g,
                                      dim3 grid, const struct fold_geom &p,
                                      const uint32_t *colour0, const uint32_t *colour1,
                                      const uint32_t *eps0, struct latmc_ising_sums *sums,
                                      const struct fold_out &o)
{
    /* the fast batches' 32-bit word offsets: every one they form is a word's of a colour
     * (p.ly p.lz rows of p.cols NW words) or of the coupling words (CW a word) */
    const int64_t words = p.ly * p.lz * p.cols * NW;
    const int cw = !eps0 ? 1 : g->ndim == 3 ? 2 : 1;
    const bool narrow = cw * words < ((int64_t)1 << 32) && !fold_wide_forced();
    if (g->ndim == 3) {
        if (eps0)
            packed_fold_kernel<NW, true, 2, PROJ, BT, RW, WIN><<<grid, BT, 0, stream>>>(
                p, colour0, colour1, eps0, sums, o.proj, o.weights, o.limbs, narrow);
        else
            packed_fold_kernel<NW, true, 0, PROJ, BT, RW, WIN><<<grid, BT, 0, stream>>>(
                p, colour0, colour1, NULL, sums, o.proj, o.weights, o.limbs, narrow);
    } else {
        if (eps0)
            packed_fold_kernel<NW, false, 1, PROJ, BT, RW, WIN><<<grid, BT, 0, stream>>>(
                p, colour0, colour1, eps0, sums, o.proj, o.weights, o.limbs, narrow);
        else
            packed_fold_kernel<NW, false, 0, PROJ, BT, RW, WIN><<<grid, BT, 0, stream>>>(
                p, colour0, colour1, NULL, sums, o.proj, o.weights, o.limbs, narrow);
    }
}

/* The plan of the folded walk with NW words a thread in blocks of CT threads across a row
 * and RW parts of a chunk (BT = CT RW threads a block), a window of WIN rows' sums, on g's
 * range r: CT CUDA_THREADS, as many blocks across a row as its groups need (*across), a
 * chunk a resident block (geom_of); CT < CUDA_THREADS, a part of a chunk for each CT
 * threads the SMs hold at once (CUDA_THREADS / CT times as many as full blocks: as many
 * warps an SM) over the blocks across a row (one for a row of exactly CT groups,
 * fold_shape), whole chunks of RW parts, at most WIN / RW rows a part, in 3D a divisor of
 * a plane where one is near (fold_plane_chunk). A chunk's rows fit the block's window of
 * row sums: no barrier inside a chunk (one in the walk costs the warps' convergence at
 * every row: measured slower). */
template <int NW, int CT, int RW, int WIN>
static struct fold_geom packed_fold_plan(const struct latmc_lattice *g,
                                         const struct cuda_proj_range *r, int64_t *across)
{
    struct fold_geom p = geom_of(g, r, g->lx / 16 / NW);
    *across = (p.cols + CT - 1) / CT;
    if (CT < CUDA_THREADS)
        fold_set_parts(p, FOLD_BLOCKS_PER_SM, CT, *across, RW, WIN / RW);
    if (p.chunk > WIN) {
        p.chunk = WIN;
        p.nchunks = (p.nrows + p.chunk - 1) / p.chunk;
    }
    return p;
}

/* The folded walk of packed_fold_plan's plan. PLAIN false: a shape that only counts (o
 * names projections or limbs; the sums alone are not compiled for it). */
template <int NW, int CT, int RW, int WIN = ROW_WINDOW, bool PLAIN = true>
static cudaError_t launch_packed_fold(cudaStream_t stream, const struct latmc_lattice *g,
                                      const uint32_t *colour0, const uint32_t *colour1,
                                      const uint32_t *eps0, const struct cuda_proj_range *r,
                                      struct latmc_ising_sums *sums, const struct fold_out &o)
{
    constexpr int BT = CT * RW;
    int64_t across;
    const struct fold_geom p = packed_fold_plan<NW, CT, RW, WIN>(g, r, &across);
    const dim3 grid((unsigned)across, (unsigned)(p.nchunks < 65535 ? p.nchunks : 65535));
    if (!fold_limbs_hold(o, p.nchunks, grid.x))
        return cudaErrorNotSupported;
    if (o.proj || o.limbs)
        launch_packed_fold_kernel<NW, BT, RW, WIN, true>(stream, g, grid, p, colour0,
                                                         colour1, eps0, sums, o);
    else if constexpr (PLAIN)
        launch_packed_fold_kernel<NW, BT, RW, WIN, false>(stream, g, grid, p, colour0,
                                                          colour1, eps0, sums, o);
    else
        return cudaErrorInvalidValue; /* a counting shape asked for the sums alone */
    return cudaGetLastError();
}

/* The folded walk's shape on g: words a thread (4, 2 or 1, as many as divide a row) and
 * threads across a row (bt). Rows of at least CUDA_THREADS groups: blocks of CUDA_THREADS;
 * narrower rows: the most words a thread for which a row is exactly 32, 64 or 128 groups,
 * as many threads across (3D 1024^3: 2 words, 32 threads; packed_fold makes blocks of 128
 * threads, parts of a chunk); rows of fewer than 32 words: a word a thread, 32 threads
 * across (3D 256^3: 16 of them work; blocks of CUDA_THREADS there had 4 working threads in
 * 256). Returns whether every thread works: false for rows of CUDA_THREADS groups or more
 * that are not whole blocks (L_x 4112: 257 groups, the last block nearly idle) and where no
 * shape exists (blocks of CUDA_THREADS, or of 32 below 32 words, with the rest of a block
 * idle). */
static bool fold_shape(const struct latmc_lattice *g, int *nw, int *bt)
{
    const int64_t wpr = g->lx / 16;
    *nw = wpr % 4 == 0 ? 4 : wpr % 2 == 0 ? 2 : 1;
    *bt = CUDA_THREADS;
    if (wpr / *nw >= CUDA_THREADS) /* busy where the row is whole blocks (65536: 4) */
        return (wpr / *nw) % CUDA_THREADS == 0;
    for (int n = 4; n >= 1; n /= 2) {
        const int64_t c = wpr % n == 0 ? wpr / n : 0;
        if (c == 32 || c == 64 || c == 128) {
            *nw = n;
            *bt = (int)c;
            return true;
        }
    }
    if (wpr < 32) {
        *nw = 1;
        *bt = 32;
    }
    return false;
}

extern "C" int cuda_ising_packed_fold_threads(const struct latmc_lattice *g, bool *row_block)
{
    int nw, bt;
    const bool busy = fold_shape(g, &nw, &bt);
    *row_block = busy && bt < CUDA_THREADS;
    return busy ? bt : 0;
}

/*
 * Whether a count of g's range r, rows of a multiple of 64 groups of 4 words that blocks of
 * CUDA_THREADS walk across (L_x a multiple of 4096 from 12288 on, fold_shape), is one wave
 * of blocks of 4 parts of 64 threads (launch_packed_fold<4, 64, 4>'s plan: a fourth of a
 * row's groups a block, chunks 4 times as long as blocks of CUDA_THREADS across make,
 * within the window of ROW_WINDOW rows). A count's chunk ends by weighing (or adding) every
 * column of its block, and all blocks of a wave end together: with a fourth of the columns
 * a block, a wave weighs a fourth of the columns (2D 65536^2 on 4 GPUs of 132 SMs: 16
 * chunks of 1024 rows a box instead of 66 of 249). Where the plan is more than one wave
 * (the same lattice on 1 or 2 GPUs) blocks of CUDA_THREADS across measured as fast.
 */
static bool quarter_blocks_fit(const struct latmc_lattice *g, const struct cuda_proj_range *r)
{
    if ((g->lx / 64) % 64 != 0)
        return false;
    int64_t across;
    const struct fold_geom p = packed_fold_plan<4, 64, 4, ROW_WINDOW>(g, r, &across);
    return p.nchunks * across <= (int64_t)sms_of_current_device() * FOLD_BLOCKS_PER_SM;
}

/* The folded walk of fold_shape's shape on g. */
static cudaError_t packed_fold(cudaStream_t stream, const struct latmc_lattice *g,
                               const uint32_t *colour0, const uint32_t *colour1,
                               const uint32_t *eps0, const struct cuda_proj_range *r,
                               struct latmc_ising_sums *sums, const struct fold_out &o)
{
    if (r->planes <= 0)
        return cudaSuccess;
    int nw, bt;
    (void)fold_shape(g, &nw, &bt);
    const bool count = o.proj || o.limbs;
    if (bt == CUDA_THREADS && nw == 4 && count && quarter_blocks_fit(g, r))
        return launch_packed_fold<4, 64, 4, ROW_WINDOW, false>(stream, g, colour0, colour1,
                                                               eps0, r, sums, o);
    if (bt == 32 && nw == 4)
        return launch_packed_fold<4, 32, 4>(stream, g, colour0, colour1, eps0, r, sums, o);
    /* a count's rows of 32 groups of 2 words (3D 1024^3): chunks of up to 2 ROW_WINDOW
     * rows, so that a whole 1024^3 lattice is one wave of blocks on a GPU of 132 SMs (512
     * chunks of 2048 rows; were 1024 chunks of 1024, 2 waves): a wave's ends (each
     * block's columns and rows weighed, its sums added into the limbs) come once */
    if (bt == 32 && nw == 2 && count)
        return launch_packed_fold<2, 32, 4, 2 * ROW_WINDOW, false>(stream, g, colour0, colour1,
                                                                    eps0, r, sums, o);
    if (bt == 32 && nw == 2)
        return launch_packed_fold<2, 32, 4>(stream, g, colour0, colour1, eps0, r, sums, o);
    if (bt == 32)
        return launch_packed_fold<1, 32, 4>(stream, g, colour0, colour1, eps0, r, sums, o);
    if (bt == 64)
        return launch_packed_fold<4, 64, 2>(stream, g, colour0, colour1, eps0, r, sums, o);
    if (bt == 128)
        return launch_packed_fold<4, 128, 1>(stream, g, colour0, colour1, eps0, r, sums, o);
    if (nw == 4)
        return launch_packed_fold<4, CUDA_THREADS, 1>(stream, g, colour0, colour1, eps0, r,
                                                      sums, o);
    if (nw == 2)
        return launch_packed_fold<2, CUDA_THREADS, 1>(stream, g, colour0, colour1, eps0, r,
                                                      sums, o);
    return launch_packed_fold<1, CUDA_THREADS, 1>(stream, g, colour0, colour1, eps0, r, sums,
                                                  o);
}

extern "C" cudaError_t cuda_ising_packed_measure_projections(
    cudaStream_t stream, const struct latmc_lattice *g, const uint32_t *colour0,
    const uint32_t *colour1, const uint32_t *eps0, const struct cuda_proj_range *r,
    struct latmc_ising_sums *sums, int64_t *proj)
{
    const struct fold_out o = { (unsigned long long *)proj, NULL, NULL };
    return packed_fold(stream, g, colour0, colour1, eps0, r, sums, o);
}

extern "C" cudaError_t cuda_ising_packed_measure_modes(
    cudaStream_t stream, const struct latmc_lattice *g, const uint32_t *colour0,
    const uint32_t *colour1, const uint32_t *eps0, const struct cuda_proj_range *r,
    struct latmc_ising_sums *sums, const int64_t *weights, int64_t *limbs)
{
    const struct fold_out o = { NULL, (const long long *)weights, (unsigned long long *)limbs };
    return packed_fold(stream, g, colour0, colour1, eps0, r, sums, o);
}

/* ---- one byte a site: Ising's int8 spins, Potts' uint8 states ---- */

/*
 * A thread: site x of the rows of its chunks. Bonds in the positive directions (x + 1,
 * y + 1, z + 1) as the byte measurements count them. Ising: the column's sum in a register,
 * a row's sum one warp reduction a warp, added by lane 0 into the block's window of row
 * sums in shared memory (measure_fold.cuh: a shared atomic, no barrier), handed to proj at
 * the window's end (flush_row_window: one atomic per row and block). Potts: each state's
 * column counts in shared memory (a thread's own counters: no conflicts), each state's
 * row counts added in shared memory by
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
    __shared__ int row_window[POTTS ? 1 : ROW_WINDOW]; /* Ising: the block's row sums */
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
    } else {
        fold_clear_window(row_window);
    }
    int64_t bonds = 0, total = 0;
    for (int64_t c = blockIdx.y; c < p.nchunks; c += gridDim.y) {
        const int64_t first = p.row0 + c * p.chunk;
        const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
        int64_t z = first / p.ly, y = first - z * p.ly;
        struct row_batches rb = { 0, 0, first };
        int window_rows = 0; /* Ising: the window's rows so far */
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
                    const int row_sum = warp_sum(in ? v : 0);
                    if (lane == 0 && row_sum != 0)
                        atomicAdd(&row_window[window_rows], row_sum);
                    window_rows++;
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
        if (c + gridDim.y >= p.nchunks) /* the block's last chunk counted */
            fold_let_transform_start();
        if (!POTTS) {
            if (in && column != 0)
                atomicAdd(proj + x, (unsigned long long)column);
            __syncthreads(); /* every warp's row sums in the window */
            flush_row_window(p, row_window, end - window_rows, window_rows, proj);
            __syncthreads(); /* the window cleared before the next chunk's rows */
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
    struct fold_geom p = geom_of(g, r, g->lx);
    if (potts_q == 0 && p.chunk > ROW_WINDOW) { /* Ising: a chunk fits the row window */
        p.chunk = ROW_WINDOW;
        p.nchunks = (p.nrows + p.chunk - 1) / p.chunk;
    }
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

/* ---- the exact transform (lib/modes_exact.h) ---- */

#define EXACT_THREADS 256
#define EXACT_PER_THREAD 4 /* entries a thread, a tile: EXACT_THREADS apart */
#define EXACT_TILE (EXACT_THREADS * EXACT_PER_THREAD)
#define EXACT_BLOCKS_MAX 1024 /* blocks an axis: each limb's sum of them cannot overflow */
static_assert(EXACT_BLOCKS_MAX <= LATMC_MODES_LIMB_SUMS, "a limb's sums past its bound");

/* a[mu] without the struct's copy to local memory that indexing a parameter by a run-time
 * mu makes */
__device__ __forceinline__ int64_t exact_pick(const int64_t (&a)[3], int mu)
{
    return mu == 0 ? a[0] : mu == 1 ? a[1] : a[2];
}

/*
 * A row of blocks an axis of a component (blockIdx.y = k ndim + mu), a thread
 * EXACT_PER_THREAD entries a tile: sum_x P[x] w_cos[x] and sum_x P[x] w_sin[x] exactly in
 * 128-bit integers, each entry cleared once read; a block's two sums added into the
 * part's limbs (the real part's three, then the imaginary part's) by six atomics. Integer
 * sums: any blocks, any order, the host's value. A programmatic launch: the first tile's
 * weights are loaded before the wait for the counting kernel.
 */
__global__ void __launch_bounds__(EXACT_THREADS)
projections_exact_kernel(struct cuda_proj_transform t, long long *proj,
                         const long long *weights, unsigned long long *limbs)
{
    __shared__ unsigned __int128 sh[2 * EXACT_THREADS / 32];
    const int axis = (int)blockIdx.y, mu = axis % t.ndim, k = axis / t.ndim;
    const int64_t L = exact_pick(t.extent, mu);
    long long *p = proj + (int64_t)k * t.per_state + exact_pick(t.proj_at, mu);
    const long long *wcos = weights + exact_pick(t.phase_at, mu), *wsin = wcos + L;
    const int64_t stride = (int64_t)gridDim.x * EXACT_TILE;
    /* real, imaginary: modulo 2^128 (exact_block_limbs), each product exact (|c| < 2^63,
     * |w| <= 2^62) */
    unsigned __int128 sum[2] = { 0, 0 };
    long long wc[EXACT_PER_THREAD], ws[EXACT_PER_THREAD];
    int64_t x0 = (int64_t)blockIdx.x * EXACT_TILE + threadIdx.x;
#pragma unroll
    for (int v = 0; v < EXACT_PER_THREAD; v++) {
        const int64_t x = x0 + v * EXACT_THREADS;
        wc[v] = x < L ? wcos[x] : 0;
        ws[v] = x < L ? wsin[x] : 0;
    }
    fold_wait_for_counts(); /* launched early (programmatic launch): the counts are ready */
    for (; x0 < L; x0 += stride) {
#pragma unroll
        for (int v = 0; v < EXACT_PER_THREAD; v++) {
            const int64_t x = x0 + v * EXACT_THREADS;
            if (x < L) {
                const long long c = p[x];
                p[x] = 0; /* the next count starts from zero */
                sum[0] += (unsigned __int128)((__int128)c * wc[v]);
                sum[1] += (unsigned __int128)((__int128)c * ws[v]);
            }
        }
        if (x0 + stride < L)
#pragma unroll
            for (int v = 0; v < EXACT_PER_THREAD; v++) {
                const int64_t x = x0 + stride + v * EXACT_THREADS;
                wc[v] = x < L ? wcos[x] : 0;
                ws[v] = x < L ? wsin[x] : 0;
            }
    }
    exact_block_limbs<2, EXACT_THREADS, 1>(sum, sh, limbs + (int64_t)axis * 6);
}

extern "C" size_t cuda_projections_exact_limbs(const struct cuda_proj_transform *t)
{
    return (size_t)t->components * (size_t)t->ndim * 2 * 3;
}

extern "C" cudaError_t cuda_projections_exact(cudaStream_t stream,
                                              const struct cuda_proj_transform *t,
                                              int64_t *proj, const int64_t *weights,
                                              int64_t *limbs)
{
    int64_t longest = 0;
    for (int mu = 0; mu < t->ndim; mu++)
        longest = t->extent[mu] > longest ? t->extent[mu] : longest;
    int64_t blocks = (longest + EXACT_TILE - 1) / EXACT_TILE;
    blocks = blocks < EXACT_BLOCKS_MAX ? blocks : EXACT_BLOCKS_MAX;
    /* a programmatic launch (sm_90): the blocks start as the counting kernel's blocks
     * leave (it lets them, fold_let_transform_start), load their first weights and wait
     * for its counts (fold_wait_for_counts) instead of for a launch after it; elsewhere
     * an ordinary launch */
    return cuda_launch_programmatic(projections_exact_kernel,
                                    dim3((unsigned)blocks, (unsigned)(t->components * t->ndim)),
                                    dim3(EXACT_THREADS), 0, stream, true, *t,
                                    (long long *)proj, (const long long *)weights,
                                    (unsigned long long *)limbs);
}
