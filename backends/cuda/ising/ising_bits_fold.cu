/*
 * The measurement's sums of the 1-bit layout, alone (cuda_ising_bits_measure), with the
 * Fourier modes' projections (cuda_ising_bits_measure_projections) or with the exact sums
 * of their modes (cuda_ising_bits_measure_modes), from one read of its
 * words (ising_bits.h; cuda_ising_bitsliced.h: word g of a colour is group g, bit l lane l,
 * set for a spin -1; colour c's lane l of group gi in a row of parity par = (y + z) & 1 is
 * x = 64 gi + 2 l + (c ^ par)): the integers of lib/ising.h's sums and of the byte
 * projections of the unpacked rows.
 *
 * The walk is measure_projections.cu's (measure_fold.cuh: chunks of rows, one block column
 * of threads a chunk, the rows' sums in the block's window): a thread takes one group of
 * both colours (64 x) down the rows of its chunk (rows of 64 groups or fewer: of its part
 * of the chunk, a block of 128 threads taking 128 / bt parts, each part's warps across the
 * row; the parts divide a plane in 3D), a batch of rows' loads issued before it
 * counts them, the colour-1 row behind it the one it read just before, the word beside its
 * group its lane neighbour's (a shuffle; memory at a warp's edge). A batch inside a plane
 * whose rows above and below are the next and previous rows (nearly all of them) runs with
 * 32-bit word offsets, no wrap tested and the rows' parities known to the compiler
 * (bits_fold_fast); the others test every wrap (bits_fold_any).
 *   - The sums: each colour-0 word against its 2 ndim neighbour words of colour 1 (each
 *     bond once), the popcounts of the words.
 *   - P_x: each lane's count of -1 in a chunk, in bit-sliced counters of BITS_LEVELS words
 *     a column parity (bit l of level k: bit k of lane l's count), added a batch of rows at
 *     a time by carry-save additions (one three-input sum and one majority per word and
 *     level: about 2 logic operations a word in all), not a transpose a row. At the chunk's
 *     end the counters are transposed (32 x 32 bits: word l then holds lane l's counts of
 *     both parities), staged in shared memory and added with one atomic per x and chunk,
 *     consecutive x in consecutive lanes.
 *   - P_y (3D) and P_last: a lane's count of -1 in a row as a byte, the warp's bytes of a
 *     batch of rows added by warp_rows_flush.
 *   - The exact modes (limbs): at a chunk's end each column's and row's sum is weighed
 *     instead of added to the projections (lib/modes_exact.h, as the packed count does,
 *     measure_projections.cu), and the block's sums go into the limbs (modes_exact.cuh):
 *     no projections' array, no exact kernel after the count.
 */
#include "ising_bits.h"

#include "ising_bits_count.cuh"
#include "measure_fold.cuh"
#include "modes_exact.cuh"

static_assert(ROW_WINDOW < (1 << BITS_LEVELS), "a chunk's count past the counters' levels");

/* Rows whose loads a thread issues before it counts them: a row is 8 bytes a thread (4
 * of each colour), some 30 KiB in flight per SM wanted (measure_projections.cu); fewer
 * where the planes beside and the coupling words take the registers (3D +-J: 2, else
 * spills); a power of 2 (the carry-save tree of a batch) that divides ROW_BATCH (a batch's
 * row bytes in one row batch). */
template <bool THREE, bool EPS> struct bits_fold_shape {
    static constexpr int LOG_AHEAD = (THREE && EPS) ? 1 : (THREE || EPS) ? 2 : 3;
    static constexpr int AHEAD = 1 << LOG_AHEAD;
    static_assert(ROW_BATCH % AHEAD == 0, "a batch's rows in one row batch");
};

/* A row's walk so far: colour 1's words of the row and of the row below, the chunk's
 * bond and -1 counts of the thread's group. */
struct bits_fold_walk {
    uint32_t mine, down, anti, neg;
};

/* One row's work after its loads: the bonds of colour 0's word a (the side word from the
 * lane beside or, at a warp's edge, `beside`), its count n of -1 (both colours), the
 * words of each column parity. par: the row's parity (colour 0 holds the x of parity par;
 * its other x neighbours are colour 1's lanes l + 1 (par 1) or l - 1 (par 0), the bit past
 * the group's from the next group's lane 0 or the previous group's lane 31). */
template <bool THREE, bool EPS>
__device__ __forceinline__ unsigned bits_fold_row(const struct fold_lane &t,
                                                  struct bits_fold_walk &w, bool par,
                                                  uint32_t a, uint32_t up, uint32_t beside,
                                                  uint32_t z_up, uint32_t z_down,
                                                  const uint32_t *eps, uint32_t &even_x,
                                                  uint32_t &odd_x)
{
    constexpr int ND = THREE ? 6 : 4;
    uint32_t side;
    if (par) {
        const uint32_t from_lane = __shfl_down_sync(0xffffffffu, w.mine, 1);
        side = __funnelshift_r(w.mine, t.edge_next ? beside : from_lane, 1);
    } else {
        const uint32_t from_lane = __shfl_up_sync(0xffffffffu, w.mine, 1);
        side = __funnelshift_l(t.edge_prev ? beside : from_lane, w.mine, 1);
    }
    uint32_t nb[ND];
    nb[0] = w.mine;
    nb[1] = side;
    nb[2] = up;
    nb[3] = w.down;
    if constexpr (THREE) {
        nb[4] = z_up;
        nb[5] = z_down;
    }
    uint32_t n_anti = 0;
#pragma unroll
    for (int d = 0; d < ND; d++)
        n_anti += __popc(a ^ nb[d] ^ (EPS ? eps[d] : 0u));
    const unsigned n = (unsigned)(__popc(a) + __popc(w.mine));
    w.anti += n_anti;
    w.neg += n;
    even_x = par ? w.mine : a;
    odd_x = par ? a : w.mine;
    w.down = w.mine;
    w.mine = up;
    return n;
}

/* The row bytes of a lane: its count n of -1 (0 .. 64), or 32 past the row (a sum of 0):
 * a row's sum is 2048 - 2 (the warp's total), warp_rows_flush's mul and add. */
#define BITS_ROW_MUL (-2)
#define BITS_ROW_ADD 2048

/*
 * A batch of AHEAD rows within one plane, none of them the plane's last (its row above is
 * the next row) and, in 3D, not its first (its row below the previous one): the loads by
 * 32-bit word offsets from `off` (row r0's word of the thread's group; `narrow` launches
 * only), no wrap tested, the row parities PAR0, !PAR0, ... known to the compiler.
 */
template <bool THREE, bool EPS, bool PROJ, bool PAR0, int AHEAD>
__device__ __forceinline__ void bits_fold_fast(const struct fold_lane &t,
                                               struct bits_fold_walk &w, const uint32_t *c0,
                                               const uint32_t *c1, const uint32_t *eps0,
                                               uint32_t off, uint32_t gpr, uint32_t to_z_up,
                                               uint32_t to_z_down, unsigned char *row_bytes,
                                               uint32_t (&wx)[AHEAD], uint32_t (&wo)[AHEAD])
{
    constexpr int ND = THREE ? 6 : 4;
    uint32_t own[AHEAD], above[AHEAD], beside[AHEAD];
    uint32_t z_up[THREE ? AHEAD : 1], z_down[THREE ? AHEAD : 1];
    uint32_t eps[EPS ? AHEAD : 1][EPS ? ND : 1];
#pragma unroll
    for (int i = 0; i < AHEAD; i++) {
        const bool par = PAR0 ^ (i & 1);
        const uint32_t at = off + (uint32_t)i * gpr;
        own[i] = c0[at];
        above[i] = c1[at + gpr];
        beside[i] = 0;
        if (par ? t.edge_next : t.edge_prev) /* only a warp's edge lanes read it */
            beside[i] = c1[at + (par ? t.to_next : t.to_prev)];
        if constexpr (THREE) {
            z_up[i] = c1[at + to_z_up];
            z_down[i] = c1[at + to_z_down];
        }
        if constexpr (EPS) { /* ND words a group, 8-byte aligned */
            const uint2 *e = (const uint2 *)(eps0 + (uint32_t)ND * at);
#pragma unroll
            for (int d = 0; d < ND / 2; d++) {
                const uint2 v = e[d];
                eps[EPS ? i : 0][2 * d] = v.x;
                eps[EPS ? i : 0][2 * d + 1] = v.y;
            }
        }
    }
#pragma unroll
    for (int i = 0; i < AHEAD; i++) {
        const bool par = PAR0 ^ (i & 1);
        uint32_t even_x, odd_x;
        const unsigned n = bits_fold_row<THREE, EPS>(
            t, w, par, own[i], above[i], beside[i], THREE ? z_up[THREE ? i : 0] : 0u,
            THREE ? z_down[THREE ? i : 0] : 0u, eps[EPS ? i : 0], even_x, odd_x);
        if constexpr (PROJ)
            row_bytes[i * 4 * ROW_PITCH_WORDS] = (unsigned char)(t.in ? n : 32u);
        if constexpr (THREE) { /* cx: even x */
            wx[i] = even_x;
            wo[i] = odd_x;
        } else { /* cx: x parity swap, the batch's first row's (2D, AHEAD even) */
            wx[i] = PAR0 ? odd_x : even_x;
            wo[i] = PAR0 ? even_x : odd_x;
        }
    }
}

/*
 * Any batch of rows r0 .. r0 + n - 1 (n <= AHEAD; rows past n give zero words): 64-bit
 * offsets and the wraps of the rows above and below and of the planes beside. y, z: row
 * r0's, advanced past the batch.
 */
template <bool THREE, bool EPS, bool PROJ, int AHEAD>
__device__ __forceinline__ void bits_fold_any(const struct fold_geom &p,
                                              const struct fold_lane &t,
                                              struct bits_fold_walk &w, const uint32_t *c0,
                                              const uint32_t *c1, const uint32_t *eps0,
                                              int64_t r0, int n, int64_t &y, int64_t &z,
                                              bool swap, unsigned char *row_bytes,
                                              uint32_t (&wx)[AHEAD], uint32_t (&wo)[AHEAD])
{
    constexpr int ND = THREE ? 6 : 4;
    const int64_t gpr = p.cols, plane = p.ly * gpr;
#pragma unroll
    for (int i = 0; i < AHEAD; i++) {
        wx[i] = wo[i] = 0;
        if (i >= n) /* the same for the whole warp */
            continue;
        const int64_t row = (r0 + i) * gpr, at = row + t.w0;
        if (THREE && y == 0) { /* the plane's first row: below it its last */
            w.mine = c1[at];
            w.down = c1[at + (p.ly - 1) * gpr];
        }
        const bool par = (y + z) & 1;
        const uint32_t a = c0[at];
        const uint32_t up = c1[at + (y + 1 == p.ly ? -(p.ly - 1) * gpr : gpr)];
        const uint32_t beside = c1[row + (par ? t.next_w : t.prev_w)];
        uint32_t z_up = 0, z_down = 0, eps[EPS ? ND : 1];
        if constexpr (THREE) {
            z_up = c1[at + (z + 1 == p.lz ? -(p.lz - 1) * plane : plane)];
            z_down = c1[at + (z == 0 ? (p.lz - 1) * plane : -plane)];
        }
        if constexpr (EPS) {
#pragma unroll
            for (int d = 0; d < ND; d++)
                eps[d] = eps0[(int64_t)ND * at + d];
        }
        uint32_t even_x, odd_x;
        const unsigned cnt = bits_fold_row<THREE, EPS>(t, w, par, a, up, beside, z_up, z_down,
                                                       eps, even_x, odd_x);
        if constexpr (PROJ)
            row_bytes[i * 4 * ROW_PITCH_WORDS] = (unsigned char)(t.in ? cnt : 32u);
        if constexpr (THREE) {
            wx[i] = even_x;
            wo[i] = odd_x;
        } else { /* par is swap ^ (i & 1) */
            wx[i] = swap ? odd_x : even_x;
            wo[i] = swap ? even_x : odd_x;
        }
        if (++y == p.ly) {
            y = 0;
            z++;
        }
    }
}

/* Blocks of CUDA_THREADS an SM the kernel's registers are capped for: with the counters
 * (PROJ) FOLD_BLOCKS_PER_SM, the sums alone twice as many (64 registers, no spill). */
template <bool PROJ> struct bits_fold_blocks {
    static constexpr int PER_SM = PROJ ? FOLD_BLOCKS_PER_SM : 2 * FOLD_BLOCKS_PER_SM;
};

/*
 * A thread: group g of a row (colour 0's and colour 1's word) in every row of its part of
 * its chunks. BT threads a block: CT across the row (as many groups as CT covers), RW
 * parts of a chunk. PROJ: the projections
 * too (proj), sums may then be NULL (the projections alone); else the sums alone. narrow:
 * every word offset the fast batches form (the coupling words' ND per group included) fits
 * 32 bits.
 */
template <bool THREE, bool EPS, bool PROJ, int BT, int RW>
__global__ void __launch_bounds__(BT, bits_fold_blocks<PROJ>::PER_SM * CUDA_THREADS / BT)
bits_fold_kernel(struct fold_geom p, const uint32_t *colour0, const uint32_t *colour1,
                 const uint32_t *eps0, struct latmc_ising_sums *sums,
                 unsigned long long *proj, const long long *weights,
                 unsigned long long *limbs, bool narrow)
{
    constexpr int AHEAD = bits_fold_shape<THREE, EPS>::AHEAD;
    constexpr int LOG_AHEAD = bits_fold_shape<THREE, EPS>::LOG_AHEAD;
    constexpr int ND = THREE ? 6 : 4;
    static_assert(THREE || AHEAD % 2 == 0, "2D: a row's parity from i's");
    constexpr int CT = BT / RW; /* the threads across the block's groups */
    static_assert(CT * RW == BT && CT % 32 == 0, "whole warps a part of the chunk");
    /* a thread's 32 count words, padded: no conflicts (part p's threads' rows p CT ..);
     * the warps' row bytes; the rows' sums (PROJ: else a word each, unused) */
    __shared__ uint32_t staged[PROJ ? BT : 1][33];
    __shared__ uint32_t row_bytes_of[PROJ ? BT / 32 : 1][ROW_BATCH * ROW_PITCH_WORDS];
    __shared__ int row_window[PROJ ? ROW_WINDOW : 1];
    constexpr int MODES = THREE ? 6 : 4; /* weighed (limbs): x, (y,) the last axis, re/im */
    __shared__ unsigned __int128 modes_of_warps[PROJ ? MODES * BT / 32 : 1];
    const unsigned lane = threadIdx.x & 31u;
    const int64_t gpr = p.cols;
    const int ct = (int)threadIdx.x % CT, part = (int)threadIdx.x / CT;
    const int64_t col = (int64_t)blockIdx.x * CT + ct;
    const struct fold_lane t = fold_lane_of<1>(col, gpr); /* a group: w0 its index */
    const uint32_t *row_words = row_bytes_of[PROJ ? threadIdx.x >> 5 : 0];
    unsigned char *lane_bytes = (unsigned char *)row_words + lane;
    const int64_t plane = p.ly * gpr, last_row = p.row0 + p.nrows;
    uint64_t anti = 0, neg = 0, items = 0;
    if constexpr (PROJ)
        fold_clear_window(row_window, BT);
    for (int64_t ch = blockIdx.y; ch < p.nchunks; ch += gridDim.y) {
        const int64_t first = p.row0 + ch * p.chunk;
        const int64_t end = min(first + p.chunk, last_row);
        /* the thread's part of the chunk: its rows [mine, mine_end) */
        const struct fold_part fp = fold_part_of(p.chunk, RW, part, first, end);
        const int64_t mine = fp.mine, mine_end = fp.end;
        int64_t z = mine / p.ly, y = mine - z * p.ly;
        struct warp_rows wr = { 0, (int)(mine - first) };
        /* the column counters: cx of x parity swap (2D: by i's parity, no select a word;
         * 3D: even x), co of the other */
        const bool swap = !THREE && ((y + z) & 1);
        uint32_t cx[BITS_LEVELS], co[BITS_LEVELS], pend_x = 0, pend_o = 0;
#pragma unroll
        for (int k = 0; k < BITS_LEVELS; k++)
            cx[k] = co[k] = 0;
        bool half = false;
        struct bits_fold_walk w;
        w.anti = w.neg = w.mine = w.down = 0;
        if (mine < mine_end) {
            const int64_t at = mine * gpr + t.w0;
            w.mine = colour1[at];
            w.down = colour1[at + (y == 0 ? (p.ly - 1) * gpr : -gpr)];
        }
        uint32_t off = (uint32_t)(mine * gpr + t.w0); /* narrow: row r0's word */
        const uint32_t step = (uint32_t)(AHEAD * gpr);
        for (int64_t r0 = mine; r0 < mine_end; r0 += AHEAD, off += step) {
            const int n = (int)min((int64_t)AHEAD, mine_end - r0);
            uint32_t wx[AHEAD], wo[AHEAD]; /* the batch's words of each column parity */
            unsigned char *bytes = lane_bytes + wr.k * 4 * ROW_PITCH_WORDS;
            if (FOLD_BATCH_IS_FAST(THREE, narrow, n, AHEAD, y, p.ly)) {
                uint32_t zu = 0, zd = 0;
                if constexpr (THREE) {
                    zu = (uint32_t)(z + 1 == p.lz ? -(p.lz - 1) * plane : plane);
                    zd = (uint32_t)(z == 0 ? (p.lz - 1) * plane : -plane);
                }
                if ((y + z) & 1)
                    bits_fold_fast<THREE, EPS, PROJ, true, AHEAD>(
                        t, w, colour0, colour1, eps0, off, (uint32_t)gpr, zu, zd, bytes, wx, wo);
                else
                    bits_fold_fast<THREE, EPS, PROJ, false, AHEAD>(
                        t, w, colour0, colour1, eps0, off, (uint32_t)gpr, zu, zd, bytes, wx, wo);
                y += AHEAD;
            } else {
                bits_fold_any<THREE, EPS, PROJ, AHEAD>(p, t, w, colour0, colour1, eps0, r0, n,
                                                       y, z, swap, bytes, wx, wo);
            }
            if constexpr (!PROJ)
                continue;
            wr.k += n;
            if (wr.k == ROW_BATCH || r0 + n == mine_end)
                warp_rows_flush(wr, row_words, row_window, BITS_ROW_MUL, BITS_ROW_ADD);
            count_batch<AHEAD, LOG_AHEAD>(cx, wx, pend_x, half);
            count_batch<AHEAD, LOG_AHEAD>(co, wo, pend_o, half);
            half = !half;
        }
        if (t.in) {
            anti += w.anti;
            neg += w.neg;
            items += (uint64_t)(mine_end - mine);
        }
        if constexpr (!PROJ)
            continue; /* the sums alone: nothing counted by columns or rows */
        count_finish<LOG_AHEAD>(cx, pend_x, half);
        count_finish<LOG_AHEAD>(co, pend_o, half);
        /* word l: lane l's count of even x in bits 0 .., of odd x from bit 16 */
        uint32_t m[32];
#pragma unroll
        for (int k = 0; k < 32; k++)
            m[k] = 0;
#pragma unroll
        for (int k = 0; k < BITS_LEVELS; k++) {
            m[k] = swap ? co[k] : cx[k];
            m[16 + k] = swap ? cx[k] : co[k];
        }
        transpose32(m);
#pragma unroll
        for (int l = 0; l < 32; l++)
            staged[threadIdx.x][l] = m[l];
        /* no early start of the next kernel here (fold_let_transform_start, which the
         * packed walk calls before the same additions): this kernel also counts the
         * projections alone, which a copy to the host follows (no kernel that waits by
         * griddepcontrol.wait), and with the early start those came back wrong on one H100
         * (a 64^2 lattice, one block: the row sums right, the columns, added last, not),
         * right with a synchronisation after the kernel or without the early start */
        __syncthreads(); /* every thread's counts and row sums in shared memory */
        /* limbs: the chunk's columns and rows weighed here (as the packed count does,
         * measure_projections.cu), the block's sums added into the limbs, no projections */
        __int128 mode[MODES] = {};
        if (limbs)
            weigh_row_window<THREE>(p, row_window, first, (int)(end - first), weights, mode,
                                    BT);
        else
            flush_row_window(p, row_window, first, (int)(end - first), proj, BT);
        /* x = 64 (block's first group + e / 32) + 2 (e % 32) + parity */
        const int rows = (int)(end - first);
        const int64_t x0 = 64 * (int64_t)blockIdx.x * CT;
        /* the block's entries e: those of its groups within the row; an entry's word the
         * sum of the parts' (each half a count of at most a chunk's rows: no carry) */
        const int entries = (int)(32 * min((int64_t)CT, gpr - (int64_t)blockIdx.x * CT));
        auto entry_word = [&](int e) {
            uint32_t word = 0;
#pragma unroll
            for (int q = 0; q < RW; q++)
                word += staged[q * CT + (e >> 5)][e & 31];
            return word;
        };
        if (limbs) {
            /* an entry's two x (even, odd) weighed by one 16-byte load of each table (x
             * even, the tables' starts 16-byte aligned); unrolled: several entries' loads
             * in flight */
            const longlong2 *wc = (const longlong2 *)(weights + x0),
                            *ws = (const longlong2 *)(weights + p.lx + x0);
            /* a thread's 64 x' |v| add up to at most 64 ROW_WINDOW (2^16) */
            struct exact_acc re = {}, im = {};
#pragma unroll 4
            for (int e = threadIdx.x; e < entries; e += BT) {
                const uint32_t word = entry_word(e);
                const int v0 = rows - 2 * (int)(word & 0xFFFFu),
                          v1 = rows - 2 * (int)(word >> 16);
                const longlong2 c = wc[e], sn = ws[e]; /* x = x0 + 2 e, x0 + 2 e + 1 */
                exact_acc_add(re, v0, c.x);
                exact_acc_add(re, v1, c.y);
                exact_acc_add(im, v0, sn.x);
                exact_acc_add(im, v1, sn.y);
            }
            mode[0] += exact_acc_value(re);
            mode[1] += exact_acc_value(im);
            exact_block_limbs<MODES, BT, CUDA_MODES_LIMB_SLOTS>(mode, modes_of_warps, limbs);
        } else {
            for (int e = threadIdx.x; e < entries; e += BT) {
                const uint32_t word = entry_word(e);
                const int v0 = rows - 2 * (int)(word & 0xFFFFu),
                          v1 = rows - 2 * (int)(word >> 16);
                unsigned long long *at = proj + x0 + 2 * e; /* 64 owner + 2 l */
                if (v0 != 0)
                    atomicAdd(at, (unsigned long long)(long long)v0);
                if (v1 != 0)
                    atomicAdd(at + 1, (unsigned long long)(long long)v1);
            }
        }
        __syncthreads(); /* the staging, the window and the warps' modes free for the next
                          * chunk */
    }
    if (!sums)
        return;
    /* a group pair: 32 colour-0 sites with ND bonds each, 64 sites */
    const int64_t bonds = (int64_t)items * 32 * ND - 2 * (int64_t)anti;
    const int64_t spins = (int64_t)items * 64 - 2 * (int64_t)neg;
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)spins);
}

template <bool THREE, bool EPS, bool PROJ>
static void launch_bits_fold(cudaStream_t stream, int bt, dim3 grid, const struct fold_geom &p,
                             const uint32_t *bits, int64_t words, const uint32_t *eps0,
                             struct latmc_ising_sums *sums, const struct fold_out &o)
{
    const uint32_t *c0 = bits, *c1 = bits + words;
    /* the fast batches' 32-bit word offsets: every one they form is a word's (of a colour,
     * or of the coupling words, ND a group), all below 2^32 */
    const bool narrow = (THREE ? 6 : 4) * words < ((int64_t)1 << 32) && !fold_wide_forced();
#define BITS_FOLD_KERNEL(BT, RW)                                                               \
    bits_fold_kernel<THREE, EPS, PROJ, BT, RW><<<grid, BT, 0, stream>>>(                        \
        p, c0, c1, eps0, sums, o.proj, o.weights, o.limbs, narrow)
    if (bt == 32)
        BITS_FOLD_KERNEL(128, 4);
    else if (bt == 64)
        BITS_FOLD_KERNEL(128, 2);
    else if (bt == 128)
        BITS_FOLD_KERNEL(128, 1);
    else
        BITS_FOLD_KERNEL(CUDA_THREADS, 1);
#undef BITS_FOLD_KERNEL
}

/* The fewest threads (32 to CUDA_THREADS) that cover a row's groups across a block (bt;
 * fewer than 128: blocks of 128 threads, 128 / bt parts of a chunk), and a part of a chunk
 * for each bt threads the SMs hold at once (per_sm blocks of CUDA_THREADS an SM; in 3D a
 * divisor of a plane where one is near, fold_plane_chunk): the longest chunks, the fewest
 * columns' atomics; with the projections at most ROW_WINDOW rows (the window of row sums
 * and the counters' levels). cudaErrorNotSupported, nothing launched, where the limbs
 * would take more sums than they hold (fold_limbs_hold). */
static cudaError_t bits_fold_launch(cudaStream_t stream, const struct latmc_lattice *g,
                                    struct fold_geom &p, const uint32_t *bits,
                                    const uint32_t *eps0, struct latmc_ising_sums *sums,
                                    const struct fold_out &o)
{
    const bool with_proj = o.proj || o.limbs;
    const int64_t gpr = p.cols;
    int bt = CUDA_THREADS;
    while (bt > 32 && bt / 2 >= gpr)
        bt /= 2;
    const int64_t across = (gpr + bt - 1) / bt;
    const int per_sm = with_proj ? bits_fold_blocks<true>::PER_SM : bits_fold_blocks<false>::PER_SM;
    /* parts: the rows of a warp (bt 32 or 64: a block of 128 threads takes 128 / bt parts
     * of a chunk, launch_bits_fold), as many as the SMs hold of bt threads */
    const int rw = bt < 128 ? 128 / bt : 1;
    /* with the projections a chunk within the window: a part at most ROW_WINDOW / rw */
    fold_set_parts(p, per_sm, bt, across, rw, with_proj ? ROW_WINDOW / rw : p.nrows);
    const dim3 grid((unsigned)across, (unsigned)(p.nchunks < 65535 ? p.nchunks : 65535));
    if (!fold_limbs_hold(o, p.nchunks, across))
        return cudaErrorNotSupported;
    const int64_t words = g->nsites / 64;
    const bool three = g->ndim == 3;
#define BITS_FOLD_LAUNCH(THREE, EPS, PROJ)                                                     \
    launch_bits_fold<THREE, EPS, PROJ>(stream, bt, grid, p, bits, words, EPS ? eps0 : NULL,     \
                                       sums, o)
    if (with_proj) {
        if (three)
            eps0 ? BITS_FOLD_LAUNCH(true, true, true) : BITS_FOLD_LAUNCH(true, false, true);
        else
            eps0 ? BITS_FOLD_LAUNCH(false, true, true) : BITS_FOLD_LAUNCH(false, false, true);
    } else {
        if (three)
            eps0 ? BITS_FOLD_LAUNCH(true, true, false) : BITS_FOLD_LAUNCH(true, false, false);
        else
            eps0 ? BITS_FOLD_LAUNCH(false, true, false) : BITS_FOLD_LAUNCH(false, false, false);
    }
#undef BITS_FOLD_LAUNCH
    return cudaGetLastError();
}

/* A range's count into o (projections or limbs), the sums beside it where asked. */
static cudaError_t bits_fold_range(cudaStream_t stream, const struct latmc_lattice *g,
                                   const uint32_t *bits, const uint32_t *eps0,
                                   const struct cuda_proj_range *r,
                                   struct latmc_ising_sums *sums, const struct fold_out &o)
{
    if (g->lx % 64 != 0)
        return cudaErrorInvalidValue;
    if (r->planes <= 0)
        return cudaSuccess;
    if (!sums) /* the couplings enter the bonds only: no coupling words loaded */
        eps0 = NULL;
    struct fold_geom p = geom_of(g, r, g->lx / 64);
    return bits_fold_launch(stream, g, p, bits, eps0, sums, o);
}

extern "C" cudaError_t cuda_ising_bits_measure_projections(cudaStream_t stream,
                                                           const struct latmc_lattice *g,
                                                           const uint32_t *bits,
                                                           const uint32_t *eps0,
                                                           const struct cuda_proj_range *r,
                                                           struct latmc_ising_sums *sums,
                                                           int64_t *proj)
{
    if (!proj)
        return cudaErrorInvalidValue;
    const struct fold_out o = { (unsigned long long *)proj, NULL, NULL };
    return bits_fold_range(stream, g, bits, eps0, r, sums, o);
}

extern "C" cudaError_t cuda_ising_bits_measure_modes(cudaStream_t stream,
                                                     const struct latmc_lattice *g,
                                                     const uint32_t *bits, const uint32_t *eps0,
                                                     const struct cuda_proj_range *r,
                                                     struct latmc_ising_sums *sums,
                                                     const int64_t *weights, int64_t *limbs)
{
    if (!weights || !limbs)
        return cudaErrorInvalidValue;
    const struct fold_out o = { NULL, (const long long *)weights,
                                (unsigned long long *)limbs };
    return bits_fold_range(stream, g, bits, eps0, r, sums, o);
}

extern "C" cudaError_t cuda_ising_bits_measure(cudaStream_t stream,
                                               const struct latmc_lattice *g,
                                               const struct cuda_ising_rows *rows,
                                               const uint32_t *bits, const uint32_t *eps0,
                                               struct latmc_ising_sums *sums)
{
    if (g->lx % 64 != 0)
        return cudaErrorInvalidValue;
    if (rows && rows->nrows <= 0)
        return cudaSuccess;
    /* the walk's geometry alone: no entries of the projections */
    struct fold_geom p = {};
    p.three = g->ndim == 3;
    p.lx = g->lx;
    p.cols = g->lx / 64;
    p.ly = g->ly;
    p.lz = p.three ? g->lz : 1;
    p.row0 = rows ? rows->row0 : 0;
    p.nrows = rows ? rows->nrows : p.ly * p.lz;
    const struct fold_out o = { NULL, NULL, NULL };
    return bits_fold_launch(stream, g, p, bits, eps0, sums, o);
}
