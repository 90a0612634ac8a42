/*
 * The measurement's sums and the Fourier modes' projections of the 1-bit layout
 * (ising_bits.h; cuda_ising_bitsliced.h: word g of a colour is group g, bit l lane l, set
 * for a spin -1; colour c's lane l of group gi in a row of parity par = (y + z) & 1 is
 * x = 64 gi + 2 l + (c ^ par)) from one read of its words, integer for integer what
 * cuda_ising_bits_measure and the byte projections of the unpacked rows give.
 *
 * The walk is measure_projections.cu's (measure_fold.cuh: chunks of rows, one block column
 * of threads a chunk, the rows' sums in the block's window): a thread takes one group of
 * both colours (64 x) down the rows of its chunk, the loads of a few rows issued before it
 * counts them, the colour-1 row behind it the one it read just before, the word beside its
 * group its lane neighbour's (a shuffle).
 *   - The sums: each colour-0 word against its 2 ndim neighbour words of colour 1 (each
 *     bond once), the popcounts of the words.
 *   - P_x: each lane's count of -1 in a chunk, in bit-sliced counters of BITS_LEVELS words
 *     a column parity (bit l of level k: bit k of lane l's count), added a batch of rows at
 *     a time by carry-save additions (one three-input sum and one majority per word and
 *     level: about 2 logic operations a word in all), not a transpose a row. At the chunk's
 *     end the counters are transposed (32 x 32 bits: word l then holds lane l's counts of
 *     both parities), staged in shared memory and added with one atomic per x and chunk,
 *     consecutive x in consecutive lanes.
 *   - P_y (3D) and P_last: a lane's part of a row's sum as a byte (warp_row_done).
 */
#include "ising_bits.h"

#include "ising_bits_count.cuh"
#include "measure_fold.cuh"

static_assert(ROW_WINDOW < (1 << BITS_LEVELS), "a chunk's count past the counters' levels");

/* Rows whose loads a thread issues before it counts them: a row is 8 bytes a thread (4
 * of each colour), some 30 KiB in flight per SM wanted (measure_projections.cu); fewer
 * where the planes beside and the coupling words take the registers (3D +-J: 2, else
 * spills); a power of 2 (the carry-save tree of a batch). */
template <bool THREE, bool EPS> struct bits_fold_shape {
    static constexpr int LOG_AHEAD = (THREE && EPS) ? 1 : (THREE || EPS) ? 2 : 3;
    static constexpr int AHEAD = 1 << LOG_AHEAD;
};

/*
 * A thread: group g of a row (colour 0's and colour 1's word) in every row of its chunks.
 * BT threads a block (as many groups across a row as BT covers). sums may be NULL (the
 * projections alone); proj is not.
 */
template <bool THREE, bool EPS, int BT>
__global__ void __launch_bounds__(BT, FOLD_BLOCKS_PER_SM * CUDA_THREADS / BT)
bits_fold_kernel(struct fold_geom p, const uint32_t *colour0, const uint32_t *colour1,
                 const uint32_t *eps0, struct latmc_ising_sums *sums,
                 unsigned long long *proj)
{
    constexpr int AHEAD = bits_fold_shape<THREE, EPS>::AHEAD;
    constexpr int LOG_AHEAD = bits_fold_shape<THREE, EPS>::LOG_AHEAD;
    constexpr int ND = THREE ? 6 : 4;
    static_assert(THREE || AHEAD % 2 == 0, "2D: a row's parity from i's");
    __shared__ uint32_t staged[BT][33]; /* a thread's 32 count words, padded: no conflicts */
    __shared__ uint32_t row_bytes_of[BT / 32][ROW_BATCH * ROW_PITCH_WORDS];
    __shared__ int row_window[ROW_WINDOW];
    const unsigned lane = threadIdx.x & 31u;
    const int64_t gpr = p.cols;
    const int64_t col = (int64_t)blockIdx.x * BT + threadIdx.x;
    const bool in = col < gpr;
    const int64_t gi = in ? col : gpr - 1; /* lanes past the row: its last group */
    const bool next_in_warp = lane < 31 && gi + 1 < gpr, prev_in_warp = lane > 0 && gi > 0;
    const int64_t next_g = gi + 1 == gpr ? 0 : gi + 1, prev_g = gi == 0 ? gpr - 1 : gi - 1;
    const int64_t plane = p.ly * gpr;
    uint64_t anti = 0, neg = 0, items = 0;
    for (int k = threadIdx.x; k < ROW_WINDOW; k += BT)
        row_window[k] = 0;
    __syncthreads();
    for (int64_t ch = blockIdx.y; ch < p.nchunks; ch += gridDim.y) {
        const int64_t first = p.row0 + ch * p.chunk;
        const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
        int64_t z = first / p.ly, y = first - z * p.ly;
        struct warp_rows wr = { 0, 0 };
        /* the column counters: cx of x parity swap (2D: by i's parity, no select a word;
         * 3D: even x), co of the other */
        const bool swap = !THREE && ((y + z) & 1);
        uint32_t cx[BITS_LEVELS], co[BITS_LEVELS], pend_x = 0, pend_o = 0;
#pragma unroll
        for (int k = 0; k < BITS_LEVELS; k++)
            cx[k] = co[k] = 0;
        bool half = false;
        uint32_t chunk_anti = 0, chunk_neg = 0;
        uint32_t down = 0, mine = 0, up = 0;
        for (int64_t r0 = first; r0 < end; r0 += AHEAD) {
            const int ahead = (int)min((int64_t)AHEAD, end - r0);
            uint32_t own[AHEAD], above[AHEAD], beside[AHEAD];
            uint32_t z_up[THREE ? AHEAD : 1], z_down[THREE ? AHEAD : 1];
            uint32_t eps[EPS ? AHEAD : 1][EPS ? ND : 1];
            {
                int64_t yy = y, zz = z;
#pragma unroll
                for (int i = 0; i < AHEAD; i++) {
                    if (i >= ahead)
                        break;
                    const int64_t row = (r0 + i) * gpr, at = row + gi;
                    own[i] = colour0[at];
                    above[i] = colour1[at + (yy + 1 == p.ly ? -(p.ly - 1) * gpr : gpr)];
                    beside[i] = colour1[row + (((yy + zz) & 1) ? next_g : prev_g)];
                    if constexpr (THREE) {
                        z_up[i] = colour1[at + (zz + 1 == p.lz ? -(p.lz - 1) * plane : plane)];
                        z_down[i] = colour1[at + (zz == 0 ? (p.lz - 1) * plane : -plane)];
                    }
                    if constexpr (EPS) { /* ND words a group, 8-byte aligned */
                        const uint2 *e = (const uint2 *)(eps0 + (int64_t)ND * at);
#pragma unroll
                        for (int d = 0; d < ND / 2; d++) {
                            const uint2 v = e[d];
                            eps[EPS ? i : 0][2 * d] = v.x;
                            eps[EPS ? i : 0][2 * d + 1] = v.y;
                        }
                    }
                    if (++yy == p.ly) {
                        yy = 0;
                        zz++;
                    }
                }
            }
            uint32_t wx[AHEAD], wo[AHEAD]; /* the batch's words of each column parity */
#pragma unroll
            for (int i = 0; i < AHEAD; i++) {
                wx[i] = wo[i] = 0;
                if (i >= ahead) /* the same for the whole block */
                    continue;
                const int64_t r = r0 + i;
                if (r == first || (THREE && y == 0)) {
                    const int64_t at = r * gpr + gi;
                    mine = colour1[at];
                    down = colour1[at + (y == 0 ? (p.ly - 1) * gpr : -gpr)];
                } else {
                    down = mine;
                    mine = up;
                }
                up = above[i];
                /* colour 0 holds the x of parity par: its other x neighbours are colour
                 * 1's lanes l + 1 (par 1) or l - 1 (par 0), the bit past the group's from
                 * the next group's lane 0 or the previous group's lane 31 */
                const bool par = (y + z) & 1;
                uint32_t side;
                if (par) {
                    const uint32_t from_lane = __shfl_down_sync(0xffffffffu, mine, 1);
                    side = __funnelshift_r(mine, next_in_warp ? from_lane : beside[i], 1);
                } else {
                    const uint32_t from_lane = __shfl_up_sync(0xffffffffu, mine, 1);
                    side = __funnelshift_l(prev_in_warp ? from_lane : beside[i], mine, 1);
                }
                const uint32_t a = own[i];
                uint32_t nb[ND];
                nb[0] = mine;
                nb[1] = side;
                nb[2] = up;
                nb[3] = down;
                if constexpr (THREE) {
                    nb[4] = z_up[THREE ? i : 0];
                    nb[5] = z_down[THREE ? i : 0];
                }
                uint32_t n_anti = 0;
#pragma unroll
                for (int d = 0; d < ND; d++) {
                    if constexpr (EPS)
                        nb[d] ^= eps[EPS ? i : 0][d];
                    n_anti += __popc(a ^ nb[d]);
                }
                const int n = __popc(a) + __popc(mine);
                if (in) {
                    chunk_anti += n_anti;
                    chunk_neg += (uint32_t)n;
                }
                if constexpr (THREE) { /* cx even x: colour 0's where par is 0 */
                    wx[i] = par ? mine : a;
                    wo[i] = par ? a : mine;
                } else { /* par is swap ^ (i & 1): cx gets the words of x parity swap */
                    wx[i] = (i & 1) ? mine : a;
                    wo[i] = (i & 1) ? a : mine;
                }
                /* the row's sum offset by 64: 0 .. 128, a byte */
                warp_row_done(wr, row_bytes_of[threadIdx.x >> 5], row_window,
                              in ? 128u - 2u * (unsigned)n : 64u, 64, r + 1 == end);
                if (++y == p.ly) {
                    y = 0;
                    z++;
                }
            }
            count_batch<AHEAD, LOG_AHEAD>(cx, wx, pend_x, half);
            count_batch<AHEAD, LOG_AHEAD>(co, wo, pend_o, half);
            half = !half;
        }
        count_finish<LOG_AHEAD>(cx, pend_x, half);
        count_finish<LOG_AHEAD>(co, pend_o, half);
        anti += chunk_anti;
        neg += chunk_neg;
        items += in ? (uint64_t)(end - first) : 0;
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
        flush_row_window(p, row_window, end - wr.at, wr.at, proj, BT);
        /* x = 64 (block's first group + e / 32) + 2 (e % 32) + parity */
        const int rows = (int)(end - first);
        const int64_t x0 = 64 * (int64_t)blockIdx.x * BT;
        for (int e = threadIdx.x; e < 32 * BT; e += BT) {
            const int owner = e >> 5, l = e & 31;
            if ((int64_t)blockIdx.x * BT + owner >= gpr)
                break; /* e only grows */
            const uint32_t word = staged[owner][l];
            const int v0 = rows - 2 * (int)(word & 0xFFFFu), v1 = rows - 2 * (int)(word >> 16);
            unsigned long long *at = proj + x0 + 64 * owner + 2 * l;
            if (v0 != 0)
                atomicAdd(at, (unsigned long long)(long long)v0);
            if (v1 != 0)
                atomicAdd(at + 1, (unsigned long long)(long long)v1);
        }
        __syncthreads(); /* the staging and the window free for the next chunk */
    }
    if (!sums)
        return;
    /* a group pair: 32 colour-0 sites with ND bonds each, 64 sites */
    const int64_t bonds = (int64_t)items * 32 * ND - 2 * (int64_t)anti;
    const int64_t spins = (int64_t)items * 64 - 2 * (int64_t)neg;
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)spins);
}

template <bool THREE, bool EPS>
static void launch_bits_fold(cudaStream_t stream, int bt, dim3 grid, const struct fold_geom &p,
                             const uint32_t *bits, int64_t words, const uint32_t *eps0,
                             struct latmc_ising_sums *sums, unsigned long long *proj)
{
    const uint32_t *c0 = bits, *c1 = bits + words;
    if (bt == 32)
        bits_fold_kernel<THREE, EPS, 32><<<grid, 32, 0, stream>>>(p, c0, c1, eps0, sums, proj);
    else if (bt == 64)
        bits_fold_kernel<THREE, EPS, 64><<<grid, 64, 0, stream>>>(p, c0, c1, eps0, sums, proj);
    else if (bt == 128)
        bits_fold_kernel<THREE, EPS, 128><<<grid, 128, 0, stream>>>(p, c0, c1, eps0, sums,
                                                                     proj);
    else
        bits_fold_kernel<THREE, EPS, CUDA_THREADS><<<grid, CUDA_THREADS, 0, stream>>>(
            p, c0, c1, eps0, sums, proj);
}

extern "C" cudaError_t cuda_ising_bits_measure_projections(cudaStream_t stream,
                                                           const struct latmc_lattice *g,
                                                           const uint32_t *bits,
                                                           const uint32_t *eps0,
                                                           const struct cuda_proj_range *r,
                                                           struct latmc_ising_sums *sums,
                                                           int64_t *proj)
{
    if (g->lx % 64 != 0 || !proj)
        return cudaErrorInvalidValue;
    if (r->planes <= 0)
        return cudaSuccess;
    if (!sums) /* the couplings enter the bonds only: no coupling words loaded */
        eps0 = NULL;
    const int64_t gpr = g->lx / 64;
    struct fold_geom p = geom_of(g, r, gpr);
    /* blocks of the fewest threads (32 to CUDA_THREADS) that cover a row's groups, and a
     * chunk per resident block of that size (as many warps an SM) */
    int bt = CUDA_THREADS;
    while (bt > 32 && bt / 2 >= gpr)
        bt /= 2;
    if (bt < CUDA_THREADS) {
        const int64_t chunks =
            (int64_t)sms_of_current_device() * FOLD_BLOCKS_PER_SM * (CUDA_THREADS / bt);
        const int64_t chunk = (p.nrows + chunks - 1) / chunks;
        p.chunk = chunk < CHUNK_MIN ? CHUNK_MIN : chunk;
    }
    if (p.chunk > ROW_WINDOW) /* the window of row sums and the counters' levels */
        p.chunk = ROW_WINDOW;
    p.nchunks = (p.nrows + p.chunk - 1) / p.chunk;
    const dim3 grid((unsigned)((gpr + bt - 1) / bt),
                    (unsigned)(p.nchunks < 65535 ? p.nchunks : 65535));
    const int64_t words = g->nsites / 64;
    unsigned long long *out = (unsigned long long *)proj;
    if (g->ndim == 3) {
        if (eps0)
            launch_bits_fold<true, true>(stream, bt, grid, p, bits, words, eps0, sums, out);
        else
            launch_bits_fold<true, false>(stream, bt, grid, p, bits, words, NULL, sums, out);
    } else {
        if (eps0)
            launch_bits_fold<false, true>(stream, bt, grid, p, bits, words, eps0, sums, out);
        else
            launch_bits_fold<false, false>(stream, bt, grid, p, bits, words, NULL, sums, out);
    }
    return cudaGetLastError();
}
