/*
 * Potts' measurement (matches, populations) and, optionally, its Fourier modes'
 * projections (mode_projections.h) for q <= 4, from one read of a range of planes: the
 * states' bit planes counted instead of the states (potts_fold.cu's kernel, q up to 16,
 * compares and counts each state).
 *
 * A state a < 4 is two bits a byte: plane 0 (bit 0), plane 1 (bit 1) and plane 01 (both)
 * of a word are one AND (and a shift) each, and a set of sites' counts of the three
 * planes give its states' counts exactly: n3 = c01, n1 = c0 - c01, n2 = c1 - c01,
 * n0 = sites - n1 - n2 - n3 (q <= 3: no state 3, c01 = 0, not counted).
 *   - matches: s ^ neighbour is 0 in a byte iff the states match; the directions'
 *     differences side by side in a byte (x in bits 0-1, y 2-3, z 4-5: a shift and an OR
 *     each), e | e >> 1 masked to bits 0, 2 (and 4) marks the mismatches, one popc a word;
 *     matches = ndim sites - mismatches;
 *   - the populations: the planes' per-row counts (below) summed by each thread;
 *   - the columns (with the projections): each word's planes added into byte counters in
 *     registers (at most 255 rows between two flushes, 127 below, into the block's column
 *     counts in shared memory, one shared atomic per plane and x); at a chunk's end one
 *     global atomic per state and x of the block;
 *   - the rows (with the projections): a thread's row counts of the planes packed in one
 *     word (fields of 16 bits; 10 with plane 01), one warp reduction a row, whose result
 *     lane 0 adds into the block's row counts in shared memory (a shared atomic, no
 *     barrier), handed to the entries (one atomic per row and state of the block) at the
 *     chunk's end. (Before, lane k kept row k of a batch of 32 and the lanes added the
 *     batch's rows together: a compare and a select a row and a batch's bookkeeping.)
 *     q <= 3: the counters' flush is checked once per group of PL_AHEAD rows whose loads
 *     go together, not once per row.
 *   - q <= 3 (no state 3), with the projections: the states themselves counted (a byte
 *     0..2): per word its sum, n1 + 2 n2, and its bits 1 (one AND), 2 n2, so that plane 0
 *     costs nothing; a row's counts c0 | c1 << 16 = S + 32767 T from the row's sum S and
 *     bits-1 count T (two __dp4a and a multiply-add); the column counters take a pair of
 *     rows' words in one three-operand addition (bytes of at most 2 a row: flushed by the
 *     group that brings them to at most 127 rows, without tests for zero); a group's rows'
 *     warp sums go to the block's row counts in one shared atomic, lane i adding row i, no
 *     branch. The counting adds a few warp instructions a warp and row over the
 *     measurement, a third of the form above's (doc/observables.md has the counts).
 * The walk: a batch of PL_AHEAD rows inside a plane (none the plane's last row, whose row
 * above wraps, nor in 3D its first, whose own words are not the row above the one before)
 * by 32-bit word offsets from the batch's first row, no wrap tested; every other batch (a
 * plane's edges, the short last batch of a warp's share of a chunk, lattices past 32-bit
 * offsets or LATMC_CUDA_FOLD_WIDE=1) by 64-bit offsets with every wrap tested. A row's
 * own words are the row above the one before (loaded only at a warp share's first row and,
 * in 3D, a plane's).
 * The block: wx warps across a row (W words, 4 W sites, a thread) and 8 / wx warps down,
 * each warp a contiguous part of the chunk's rows; wx is chosen to make the fewest global
 * atomics (columns: L_x a chunk; rows: one a row and block across). Two barriers a chunk,
 * none inside it. Integers added with atomics: the sums and projections are the other
 * kernels' exactly (and the CPU's).
 */
#include "measure_fold.cuh"
#include "potts.h"

#define PL_M 0x01010101u    /* a word's bytes' bit 0 */
#define PL_M2 0x05050505u   /* bits 0 and 2 of each byte: two directions' mismatches */
#define PL_M3 0x15151515u   /* bits 0, 2 and 4: three directions' */
#define PL_CHUNK_MAX 2048   /* rows of a chunk: the block's row counts in shared memory */
#define PL_WX_MAX 4         /* warps across: the block's column counts in shared memory */
#define PL_FLUSH 255        /* rows between two flushes of the byte counters */
/* Rows whose loads are in flight. The kernel runs FOLD_BLOCKS_PER_SM blocks an SM (up to
 * 128 registers). The walk waits on its batch's loads (their first use holds half its warp
 * samples), so 2D rows of 16 sites a thread go 8 rows a batch at 2 blocks (124-127
 * registers, no spills), measured faster with and without the count than 4 rows at 3 blocks
 * (80 registers: the count spilled 136 bytes); the count then adds less (its instructions
 * issue while the loads are on their way). */
#define PL_AHEAD (W == 4 ? 8 : (THREE ? 8 : 16))

template <int W>
__device__ __forceinline__ void pl_load(const uint32_t *words, int64_t at, uint32_t (&w)[W])
{
    if constexpr (W == 4) {
        const uint4 v = ((const uint4 *)words)[at];
        w[0] = v.x; w[1] = v.y; w[2] = v.z; w[3] = v.w;
    } else {
        w[0] = words[at];
    }
}

/* A planes' row word (16-bit fields) as the block's row entries: c0 | c1 << 16, c01. */
template <int NP>
__device__ __forceinline__ void pl_add_row(uint32_t *rows, uint32_t *rows01, int64_t at,
                                           uint32_t packed)
{
    if constexpr (NP == 3) { /* the warp's 10-bit fields */
        atomicAdd(rows + at, (packed & 0x3FFu) | ((packed >> 10) & 0x3FFu) << 16);
        atomicAdd(rows01 + at, packed >> 20);
    } else {
        atomicAdd(rows + at, packed);
    }
}

/* A thread's byte counters of the columns into the block's counts, and cleared. */
template <int NP, int W>
__device__ __forceinline__ void pl_flush_cols(uint32_t (&colb)[NP][W], uint32_t *colsum,
                                              int pitch, int tx)
{
    constexpr int XS = 4 * W;
#pragma unroll
    for (int a = 0; a < NP; a++)
#pragma unroll
        for (int j = 0; j < W; j++) {
#pragma unroll
            for (int b = 0; b < 4; b++) {
                const uint32_t n = (colb[a][j] >> (8 * b)) & 0xFFu;
                if (n)
                    atomicAdd(&colsum[((a * XS) + 4 * j + b) * pitch + tx], n);
            }
            colb[a][j] = 0;
        }
}

/* q <= 3 with the projections (SUMS): a thread's byte counters of the columns, sum[j] the
 * states' sum (n1 + 2 n2 of a column's rows since the last flush) and two[j] the bits 1
 * (2 n2), each byte at most 2 x 127, into the block's counts of states 1 and 2, and
 * cleared; no test of a count for zero (no branches) */
template <int W>
__device__ __forceinline__ void pl_flush_sums(uint32_t (&sum)[W], uint32_t (&two)[W],
                                              uint32_t *colsum, int pitch, int tx)
{
    constexpr int XS = 4 * W;
#pragma unroll
    for (int j = 0; j < W; j++) {
#pragma unroll
        for (int b = 0; b < 4; b++) {
            const uint32_t n = (sum[j] >> (8 * b)) & 0xFFu, t = (two[j] >> (8 * b)) & 0xFFu;
            atomicAdd(&colsum[(4 * j + b) * pitch + tx], n - t);
            atomicAdd(&colsum[(XS + 4 * j + b) * pitch + tx], t >> 1);
        }
        sum[j] = two[j] = 0;
    }
}

/* The batch's kind, as a type (the walk's lambda takes either) */
template <bool B> struct pl_fast {
    static constexpr bool value = B;
};

template <bool PROJ, bool THREE, int W, int NP>
__global__ void __launch_bounds__(CUDA_THREADS, FOLD_BLOCKS_PER_SM)
potts_planes_kernel(struct fold_geom p, int wx, const uint32_t *words, int q,
                    struct latmc_potts_sums *sums, unsigned long long *proj, bool narrow)
{
    constexpr int AHEAD = PL_AHEAD;
    /* the byte counters' bookkeeping once a group of AHEAD rows (q <= 3); with plane 01
     * too (q = 4) once a row: grouped, its registers spill (128) */
    constexpr bool GROUPED = NP == 2;
    /* q <= 3 with the projections: the columns' byte counters hold the states' sum and the
     * bits 1 (no plane 0 a word), and the group's rows go to the block's row counts in one
     * shared atomic (lane i row i of the group) */
    constexpr bool SUMS = PROJ && GROUPED;
    constexpr int FLUSH = SUMS ? PL_FLUSH / 2 : PL_FLUSH; /* bytes <= 255 */
    constexpr int XS = 4 * W; /* sites a thread */
    /* PROJ: rows[chunk] (c0 | c1 << 16), rows01[chunk] (NP 3), then the columns
     * colsum[NP][XS][32 wx + 1] (thread-major: a lane's own entries in distinct banks) */
    extern __shared__ uint32_t pl_shared[];
    const int across = 32 * wx;
    uint32_t *rows = pl_shared;
    uint32_t *rows01 = rows + (NP == 3 ? p.chunk : 0);
    uint32_t *colsum = rows01 + p.chunk;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const int wxi = (int)warp % wx, wy = (int)warp / wx, wys = FOLD_WARPS / wx;
    const int tx = wxi * 32 + (int)lane; /* the thread's column in the block */
    const int64_t g = (int64_t)blockIdx.x * across + tx;
    const bool in = g < p.cols;
    const uint32_t in_mask = in ? ~0u : 0u; /* SUMS: a row's counts without a branch */
    const int64_t gc = in ? g : p.cols - 1; /* lanes past the row: its last words */
    const bool next_in_warp = lane < 31 && gc + 1 < p.cols;
    const int64_t next_g = gc + 1 == p.cols ? 0 : gc + 1;
    const int64_t plane = p.ly * p.cols;
    const int64_t block_cols = min((int64_t)across, p.cols - (int64_t)blockIdx.x * across);
    const int pitch = across + 1; /* a column count's row: x = u apart in distinct banks */
    const int ncol = NP * XS * pitch;
    if (PROJ) {
        for (int k = threadIdx.x; k < (NP == 3 ? 2 : 1) * (int)p.chunk + ncol; k += CUDA_THREADS)
            pl_shared[k] = 0;
        __syncthreads();
    }
    uint64_t mism = 0, sites = 0, t0 = 0, t1 = 0, t01 = 0;
    for (int64_t c = blockIdx.y; c < p.nchunks; c += gridDim.y) {
        const int64_t first = p.row0 + c * p.chunk;
        const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
        const int64_t sub = (end - first + wys - 1) / wys;
        const int64_t sfirst = min(first + wy * sub, end), send = min(sfirst + sub, end);
        int64_t z = sfirst / p.ly, y = sfirst - z * p.ly;
        int nb = 0;
        uint32_t tot = 0, tot01 = 0, mis = 0;
        uint32_t colb[NP][W];
#pragma unroll
        for (int a = 0; a < NP; a++)
#pragma unroll
            for (int i = 0; i < W; i++)
                colb[a][i] = 0;
        uint32_t s[W], up[W];
#pragma unroll
        for (int i = 0; i < W; i++)
            s[i] = up[i] = 0;
        if (sfirst < send) /* the sub-range's first row: then each row's is the one above */
            pl_load<W>(words, sfirst * p.cols + gc, s);
        uint32_t off = (uint32_t)(sfirst * p.cols + gc); /* narrow: row r0's word group */
        const uint32_t step = (uint32_t)(AHEAD * p.cols), to_next = (uint32_t)(next_g - gc);
        for (int64_t r0 = sfirst; r0 < send; r0 += AHEAD, off += step) {
            const int ahead = (int)min((int64_t)AHEAD, send - r0);
            /* FAST: a batch of AHEAD rows inside a plane, none its last (the row above each
             * the next) nor, in 3D, its first: 32-bit offsets, no wrap tested, y once */
            auto batch = [&](auto fast) {
                constexpr bool FAST = decltype(fast)::value;
                uint32_t above[AHEAD][W], beside[AHEAD], z_above[THREE ? AHEAD : 1][W];
                uint32_t red[SUMS ? AHEAD : 1], sp[W], mp[W];
                if constexpr (FAST) {
                    const uint32_t zo =
                        (uint32_t)(THREE ? (z + 1 == p.lz ? -(p.lz - 1) * plane : plane) : 0);
#pragma unroll
                    for (int i = 0; i < AHEAD; i++) {
                        const uint32_t at = off + (uint32_t)i * (uint32_t)p.cols;
                        pl_load<W>(words, (int64_t)(uint32_t)(at + (uint32_t)p.cols), above[i]);
                        beside[i] = 0;
                        if (!next_in_warp)
                            beside[i] = words[(int64_t)(uint32_t)(at + to_next) * W];
                        if (THREE)
                            pl_load<W>(words, (int64_t)(uint32_t)(at + zo), z_above[THREE ? i : 0]);
                    }
                } else {
                    int64_t yy = y, zz = z;
#pragma unroll
                    for (int i = 0; i < AHEAD; i++) {
                        if (i >= ahead)
                            break;
                        const int64_t at = (r0 + i) * p.cols + gc;
                        pl_load<W>(words, at + (yy + 1 == p.ly ? -(p.ly - 1) * p.cols : p.cols),
                                   above[i]);
                        beside[i] = next_in_warp ? 0u : words[(at - gc + next_g) * W];
                        if (THREE)
                            pl_load<W>(words,
                                       at + (zz + 1 == p.lz ? -(p.lz - 1) * plane : plane),
                                       z_above[THREE ? i : 0]);
                        if (++yy == p.ly) {
                            yy = 0;
                            zz++;
                        }
                    }
                }
#pragma unroll
                for (int i = 0; i < AHEAD; i++) {
                    if (!FAST && i >= ahead) /* the same for the whole warp */
                        break;
                    const int64_t r = r0 + i;
                    if (!FAST && THREE && y == 0) /* a plane's first row: its own words */
                        pl_load<W>(words, r * p.cols + gc, s);
#pragma unroll
                    for (int j = 0; j < W; j++)
                        up[j] = above[i][j];
                    const uint32_t from_lane = __shfl_down_sync(0xffffffffu, s[0], 1);
                    const uint32_t next = next_in_warp ? from_lane : beside[i];
                    uint32_t nz = 0, p0 = 0, p1 = 0, p01 = 0, ps = 0, pm = 0;
#pragma unroll
                    for (int j = 0; j < W; j++) {
                        /* x + 1 of the word's 4 sites: its bytes 1..3 and the next word's 0 */
                        const uint32_t right =
                            __byte_perm(s[j], j + 1 < W ? s[j + 1] : next, 0x4321);
                        /* the states' two bits: the directions' differences side by side in
                         * a byte (x bits 0-1, y 2-3, z 4-5), a mismatch a pair not 00 */
                        uint32_t e = (s[j] ^ right) | (s[j] ^ up[j]) << 2;
                        if (THREE)
                            e |= (s[j] ^ z_above[THREE ? i : 0][j]) << 4;
                        nz += __popc((e | e >> 1) & (THREE ? PL_M3 : PL_M2));
                        if (SUMS) { /* a byte's state 0..2: sum n1 + 2 n2, bit 1 2 n2 */
                            const uint32_t m = s[j] & (PL_M << 1);
                            ps += s[j];
                            pm += m;
                            if (i & 1) { /* the columns a pair of rows at once (3 operands) */
                                colb[0][j] += sp[j] + s[j];
                                colb[1][j] += mp[j] + m;
                            } else {
                                sp[j] = s[j];
                                mp[j] = m;
                            }
                            continue;
                        }
                        const uint32_t b0 = s[j] & PL_M, b1 = (s[j] >> 1) & PL_M;
                        p0 += b0;
                        p1 += b1;
                        if (NP == 3)
                            p01 += b0 & b1;
                        if (PROJ) {
                            colb[0][j] += b0;
                            colb[1][j] += b1;
                            if (NP == 3)
                                colb[NP == 3 ? 2 : 0][j] += b0 & b1;
                        }
                    }
                    if (SUMS) { /* c0 | c1 << 16 = (S - T) + (T / 2) 65536 = S + 32767 T */
                        const uint32_t packed =
                            (__dp4a(ps, PL_M, 0u) + 32767u * __dp4a(pm, PL_M, 0u)) & in_mask;
                        mis += nz & in_mask;
                        tot += packed;
                        red[SUMS ? i : 0] = __reduce_add_sync(0xffffffffu, packed);
                    }
                    const uint32_t c0 = __dp4a(p0, PL_M, 0u), c1 = __dp4a(p1, PL_M, 0u);
                    const uint32_t c01 = NP == 3 ? __dp4a(p01, PL_M, 0u) : 0u;
                    if (!SUMS && in) {
                        mis += nz;
                        tot += c0 | c1 << 16;
                        tot01 += c01;
                    }
                    if (PROJ && !SUMS) { /* the warp's part of the row: lane 0 adds it to
                                          * the block's */
                        const uint32_t packed =
                            !in ? 0u : (NP == 3 ? c0 | c1 << 10 | c01 << 20 : c0 | c1 << 16);
                        const uint32_t red = __reduce_add_sync(0xffffffffu, packed);
                        if (lane == 0)
                            pl_add_row<NP>(rows, rows01, r - first, red);
                        if (!GROUPED && (++nb == PL_FLUSH || r + 1 == send)) { /* bytes <= 255 */
                            pl_flush_cols<NP, W>(colb, colsum, pitch, tx);
                            nb = 0;
                        }
                    }
                    if (!FAST && ++y == p.ly) {
                        y = 0;
                        z++;
                    }
#pragma unroll
                    for (int j = 0; j < W; j++)
                        s[j] = up[j];
                }
                if (FAST)
                    y += AHEAD;
                /* the byte counters' bookkeeping once a group of AHEAD rows, not once a row */
                if (PROJ && GROUPED) {
                    if (SUMS) { /* an odd group's last row into the columns; lane i adds row
                                 * i's warp sum */
                        if (ahead & 1)
#pragma unroll
                            for (int j = 0; j < W; j++) {
                                colb[0][j] += sp[j];
                                colb[1][j] += mp[j];
                            }
                        uint32_t v = red[0];
#pragma unroll
                        for (int i = 1; i < AHEAD; i++)
                            v = (int)lane == i ? red[SUMS ? i : 0] : v;
                        if ((int)lane < ahead)
                            atomicAdd(rows + (r0 - first) + (int)lane, v);
                    }
                    const bool last = r0 + ahead == send;
                    nb += ahead; /* <= FLUSH - AHEAD before the group: <= FLUSH after it */
                    if (nb > FLUSH - AHEAD || last) { /* PROJ and GROUPED: SUMS */
                        pl_flush_sums<W>(colb[0], colb[SUMS ? 1 : 0], colsum, pitch, tx);
                        nb = 0;
                    }
                }
            };
            if (FOLD_BATCH_IS_FAST(THREE, narrow, ahead, AHEAD, y, p.ly))
                batch(pl_fast<true>{});
            else
                batch(pl_fast<false>{});
        }
        /* tot's 16-bit fields: at most 4 W rows a chunk <= 16 x 2048 / 2 */
        mism += mis;
        t0 += tot & 0xFFFFu;
        t1 += tot >> 16;
        t01 += tot01;
        if (in)
            sites += (uint64_t)XS * (uint64_t)(send - sfirst);
        if (PROJ) {
            if (c + gridDim.y >= p.nchunks) /* the block's last chunk counted */
                fold_let_transform_start();
            __syncthreads();
            const long long len = end - first;
            /* the rows: states from the planes, one atomic per row and state */
            for (int t = threadIdx.x; t < (int)len; t += CUDA_THREADS) {
                const uint32_t v = rows[t], n3 = NP == 3 ? rows01[t] : 0u;
                rows[t] = 0;
                if (NP == 3)
                    rows01[t] = 0;
                const long long n1 = (long long)(v & 0xFFFFu) - n3,
                                n2 = (long long)(v >> 16) - n3;
                const long long n[4] = { XS * (long long)block_cols - n1 - n2 - n3, n1, n2,
                                         (long long)n3 };
#pragma unroll
                for (int a = 0; a < 4; a++)
                    if (a < q)
                        add_row_entries(p, first + t, n[a], proj + a * p.per_state);
            }
            /* the columns: one atomic per state and x, consecutive x in consecutive lanes
             * (4 in a 32-byte sector of the L2: a quarter of the sectors' operations of
             * a thread's x XS apart) */
            for (int e = threadIdx.x; e < XS * across; e += CUDA_THREADS) {
                const int t = e / XS, u = e - t * XS;
                uint32_t cnt[3];
#pragma unroll
                for (int a = 0; a < NP; a++) {
                    cnt[a] = colsum[(a * XS + u) * pitch + t];
                    colsum[(a * XS + u) * pitch + t] = 0;
                }
                const int64_t gt = (int64_t)blockIdx.x * across + t;
                if (gt >= p.cols)
                    continue;
                const long long n3 = NP == 3 ? cnt[NP == 3 ? 2 : 0] : 0;
                const long long n1 = (long long)cnt[0] - n3, n2 = (long long)cnt[1] - n3;
                const long long n[4] = { len - n1 - n2 - n3, n1, n2, n3 };
                const int64_t x = gt * XS + u;
#pragma unroll
                for (int a = 0; a < 4; a++)
                    if (a < q && n[a] != 0)
                        atomicAdd(proj + a * p.per_state + x, (unsigned long long)n[a]);
            }
            __syncthreads();
        }
    }
    const uint64_t n1 = t0 - t01, n2 = t1 - t01, n3 = t01;
    const uint64_t n[4] = { sites - n1 - n2 - n3, n1, n2, n3 };
    cuda_warp_add((unsigned long long *)&sums->matches,
                  (unsigned long long)((THREE ? 3 : 2) * sites - mism));
#pragma unroll
    for (int a = 0; a < 4; a++)
        if (a < q)
            cuda_warp_add((unsigned long long *)&sums->count[a], (unsigned long long)n[a]);
}

extern "C" bool cuda_potts_planes_fits(const struct latmc_lattice *g, int q)
{
    return q >= 2 && q <= 4 && g->lx % 4 == 0;
}

/* 16 sites a thread where a row has at least 2 warps of them (2D), else 4. */
static int words_a_thread(const struct latmc_lattice *g)
{
    return g->ndim == 2 && g->lx % 16 == 0 && g->lx / 16 >= 64 ? 4 : 1;
}

/* geom_of's chunks for blocks of wx warps across, wx of 1, 2, 4 making the fewest
 * atomics: L_x columns a chunk, the rows' entries once a block across. */
static struct fold_geom planes_geom(const struct latmc_lattice *g,
                                    const struct cuda_proj_range *r, int64_t cols,
                                    int *wx_out)
{
    struct fold_geom p = geom_of(g, r, cols);
    const int64_t resident = (int64_t)sms_of_current_device() * FOLD_BLOCKS_PER_SM;
    const int64_t per_row = p.three ? 2 : 1;
    int64_t best = -1;
    for (int wx = 1; wx <= PL_WX_MAX; wx *= 2) {
        const int64_t across = (cols + 32 * wx - 1) / (32 * wx);
        int64_t chunks = resident / across;
        if (chunks < 1)
            chunks = 1;
        int64_t chunk = (p.nrows + chunks - 1) / chunks;
        chunk = chunk < CHUNK_MIN ? CHUNK_MIN : (chunk > PL_CHUNK_MAX ? PL_CHUNK_MAX : chunk);
        const int64_t nchunks = (p.nrows + chunk - 1) / chunk;
        const int64_t atomics = g->lx * nchunks + p.nrows * per_row * across;
        if (best < 0 || atomics < best) {
            best = atomics;
            *wx_out = wx;
            p.chunk = chunk;
            p.nchunks = nchunks;
        }
    }
    return p;
}

template <bool PROJ, bool THREE, int W>
static void launch_planes(cudaStream_t stream, const struct fold_geom &p, int wx, dim3 grid,
                          const uint32_t *w, int q, struct latmc_potts_sums *sums,
                          unsigned long long *proj)
{
    const int np = q == 4 ? 3 : 2;
    const size_t shared =
        PROJ ? sizeof(uint32_t) * ((np == 3 ? 2 : 1) * (size_t)p.chunk +
                                   (size_t)np * 4 * W * (32 * (size_t)wx + 1))
             : 0;
    /* the fast batches' 32-bit offsets (groups of W words): every one below the rows' */
    const bool narrow = p.ly * p.lz * p.cols < ((int64_t)1 << 32) && !fold_wide_forced();
    if (np == 3)
        potts_planes_kernel<PROJ, THREE, W, 3><<<grid, CUDA_THREADS, shared, stream>>>(
            p, wx, w, q, sums, proj, narrow);
    else
        potts_planes_kernel<PROJ, THREE, W, 2><<<grid, CUDA_THREADS, shared, stream>>>(
            p, wx, w, q, sums, proj, narrow);
}

extern "C" cudaError_t cuda_potts_measure_planes(cudaStream_t stream,
                                                 const struct latmc_lattice *g,
                                                 const uint8_t *sites,
                                                 const struct cuda_proj_range *r, int q,
                                                 struct latmc_potts_sums *sums, int64_t *proj)
{
    if (r->planes <= 0)
        return cudaSuccess;
    if (!cuda_potts_planes_fits(g, q))
        return cudaErrorInvalidValue;
    const int W = words_a_thread(g);
    int wx = 1;
    const struct fold_geom p = planes_geom(g, r, g->lx / (4 * W), &wx);
    const int64_t across = (p.cols + 32 * wx - 1) / (32 * wx);
    const dim3 grid((unsigned)across, (unsigned)(p.nchunks < 65535 ? p.nchunks : 65535));
    const uint32_t *w = (const uint32_t *)sites; /* rows of L_x bytes: 4 (16) byte aligned */
    unsigned long long *out = (unsigned long long *)proj;
    if (p.three) {
        if (proj)
            launch_planes<true, true, 1>(stream, p, wx, grid, w, q, sums, out);
        else
            launch_planes<false, true, 1>(stream, p, wx, grid, w, q, sums, NULL);
    } else if (W == 4) {
        if (proj)
            launch_planes<true, false, 4>(stream, p, wx, grid, w, q, sums, out);
        else
            launch_planes<false, false, 4>(stream, p, wx, grid, w, q, sums, NULL);
    } else {
        if (proj)
            launch_planes<true, false, 1>(stream, p, wx, grid, w, q, sums, out);
        else
            launch_planes<false, false, 1>(stream, p, wx, grid, w, q, sums, NULL);
    }
    return cudaGetLastError();
}
