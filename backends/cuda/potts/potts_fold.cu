/*
 * Potts' measurement (matches, populations) and, optionally, its Fourier modes'
 * projections (mode_projections.h: each state's P_x, P_y in 3D, P_last) from one read of a
 * range of planes, four sites a thread: the Potts leaf's measurement kernel and its folded
 * pass (q <= 16, L_x a multiple of 4), for q >= 5: q <= 4 goes to potts_planes.cu, which
 * counts the states' two bit planes instead of each state.
 *
 * A thread takes a column of words (4 consecutive x of the byte layout) of every row of a
 * chunk of rows (measure_fold.cuh), in row order, the loads of a few rows issued before it
 * counts them; its row is the row before's "up" word, the word beside its lane
 * neighbour's (a shuffle).
 *   - matches: one byte compare of 4 sites (__vcmpeq4) per direction, counted with popc;
 *   - the columns: a thread's own 16-bit counters in shared memory, one per state and x,
 *     one addition per site; at the chunk's end one atomic per state and x into P_x, and
 *     the populations (the columns' totals) per block;
 *   - the rows (with the projections): a thread's 4 sites as 8-bit counts of 4 states in a
 *     word (at most 4, a warp 128: no carries); q <= 4: each lane's word stored in shared
 *     memory, and every ROW_BATCH rows lane k adds row k's 32 words (no warp reduction
 *     per row), else one warp reduction per 4 states and row; the warps' sums added in
 *     shared memory and handed to the entries every ROW_BATCH rows by the whole block (two
 *     buffers alternating: one barrier a batch).
 * Integers added with atomics: the sums and projections are the one-site-a-thread
 * kernels' exactly (and the CPU's).
 */
#include "measure_fold.cuh"
#include "potts.h"

#define P4_STATES 16 /* q up to this: 4 words of 4 byte counters for a row's states */
#define P4_WORDS (P4_STATES / 4)
/* Rows whose loads are in flight together (a row is 4 bytes a thread). */
#define P4_AHEAD (THREE ? 8 : 16)

template <bool PROJ, bool THREE, int QW>
__global__ void __launch_bounds__(CUDA_THREADS, FOLD_BLOCKS_PER_SM)
potts4_fold_kernel(struct fold_geom p, const uint32_t *words, int q,
                   struct latmc_potts_sums *sums, unsigned long long *proj)
{
    extern __shared__ uint32_t col[]; /* (2 state + pair) CUDA_THREADS + thread: the
                                        thread's x pair's 16-bit counters of a state */
    __shared__ uint32_t row_pk[PROJ ? 2 : 1][FOLD_WARPS][QW][ROW_BATCH];
    /* q <= 4 (one word a row): each lane's word of each row of the batch, rows of the
     * warp 33 words apart (lane k reading row k: distinct banks) */
    constexpr bool TRANSPOSE = PROJ && QW == 1;
    __shared__ uint32_t lanes_of[TRANSPOSE ? FOLD_WARPS : 1][ROW_BATCH][TRANSPOSE ? 33 : 1];
    __shared__ unsigned long long population[P4_STATES];
    constexpr int AHEAD = P4_AHEAD;
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    const int64_t g = (int64_t)blockIdx.x * CUDA_THREADS + threadIdx.x;
    const bool in = g < p.cols;
    const int64_t gc = in ? g : p.cols - 1; /* lanes past the row: its last word */
    const bool next_in_warp = lane < 31 && gc + 1 < p.cols;
    const int64_t next_g = gc + 1 == p.cols ? 0 : gc + 1;
    const int64_t plane = p.ly * p.cols;
    for (int k = threadIdx.x; k < 2 * q * CUDA_THREADS; k += CUDA_THREADS)
        col[k] = 0;
    for (int k = threadIdx.x; k < P4_STATES; k += CUDA_THREADS)
        population[k] = 0;
    __syncthreads();
    uint64_t matches8 = 0; /* 8 a match: the compares' bytes */
    int buf = 0; /* the row buffer in use, alternating across chunks too */
    for (int64_t c = blockIdx.y; c < p.nchunks; c += gridDim.y) {
        const int64_t first = p.row0 + c * p.chunk;
        const int64_t end = min(first + p.chunk, p.row0 + p.nrows);
        int64_t z = first / p.ly, y = first - z * p.ly;
        int k = 0;
        int64_t batch_first = first;
        uint32_t s = 0, up = 0;
        for (int64_t r0 = first; r0 < end; r0 += AHEAD) {
            const int ahead = (int)min((int64_t)AHEAD, end - r0);
            uint32_t above[AHEAD], beside[AHEAD], z_above[THREE ? AHEAD : 1];
            {
                int64_t yy = y, zz = z;
#pragma unroll
                for (int i = 0; i < AHEAD; i++) {
                    if (i >= ahead)
                        break;
                    const int64_t at = (r0 + i) * p.cols + gc;
                    above[i] = words[at + (yy + 1 == p.ly ? -(p.ly - 1) * p.cols : p.cols)];
                    beside[i] = next_in_warp ? 0u : words[at - gc + next_g];
                    if (THREE)
                        z_above[i] = words[at + (zz + 1 == p.lz ? -(p.lz - 1) * plane : plane)];
                    if (++yy == p.ly) {
                        yy = 0;
                        zz++;
                    }
                }
            }
#pragma unroll
            for (int i = 0; i < AHEAD; i++) {
                if (i >= ahead) /* the same for the whole block */
                    break;
                const int64_t r = r0 + i;
                s = r == first || (THREE && y == 0) ? words[r * p.cols + gc] : up;
                up = above[i];
                const uint32_t from_lane = __shfl_down_sync(0xffffffffu, s, 1);
                /* x + 1 of the word's 4 sites: its bytes 1..3 and the next word's byte 0 */
                const uint32_t right = __byte_perm(s, next_in_warp ? from_lane : beside[i],
                                                   0x4321);
                uint32_t m = __popc(__vcmpeq4(s, right)) + __popc(__vcmpeq4(s, up));
                if (THREE)
                    m += __popc(__vcmpeq4(s, z_above[THREE ? i : 0]));
                uint32_t pk[QW];
#pragma unroll
                for (int w = 0; w < QW; w++)
                    pk[w] = 0;
                if (in) {
                    matches8 += m;
#pragma unroll
                    for (int j = 0; j < 4; j++) {
                        const uint32_t a = (s >> (8 * j)) & 0xFFu;
                        col[(2 * a + (j >> 1)) * CUDA_THREADS + threadIdx.x] += 1u << (16 * (j & 1));
                        if (PROJ) {
                            const uint32_t bit = 1u << (8 * (a & 3u));
#pragma unroll
                            for (int w = 0; w < QW; w++)
                                pk[w] += (a >> 2) == (uint32_t)w ? bit : 0u;
                        }
                    }
                }
                if (TRANSPOSE) {
                    lanes_of[TRANSPOSE ? warp : 0][k][TRANSPOSE ? lane : 0] = pk[0];
                } else if (PROJ) {
#pragma unroll
                    for (int w = 0; w < QW; w++) {
                        const uint32_t t = __reduce_add_sync(0xffffffffu, pk[w]);
                        if (lane == 0)
                            row_pk[PROJ ? buf : 0][warp][w][k] = t;
                    }
                }
                if (PROJ) {
                    if (++k == ROW_BATCH || r + 1 == end) {
                        if (TRANSPOSE) { /* lane kk: row kk's 32 words (fields <= 128) */
                            __syncwarp();
                            if ((int)lane < k) {
                                uint32_t t = 0;
#pragma unroll 8
                                for (int j = 0; j < 32; j++)
                                    t += lanes_of[TRANSPOSE ? warp : 0][lane][TRANSPOSE ? j : 0];
                                row_pk[buf][warp][0][lane] = t;
                            }
                        }
                        __syncthreads();
                        for (int t = threadIdx.x; t < q * ROW_BATCH; t += CUDA_THREADS) {
                            const int a = t / ROW_BATCH, kk = t - a * ROW_BATCH;
                            if (kk >= k)
                                continue;
                            unsigned n = 0;
#pragma unroll
                            for (int w = 0; w < FOLD_WARPS; w++)
                                n += (row_pk[PROJ ? buf : 0][w][a >> 2][kk] >> (8 * (a & 3))) &
                                     0xFFu;
                            add_row_entries(p, batch_first + kk, (long long)n,
                                            proj + a * p.per_state);
                        }
                        batch_first += k;
                        k = 0;
                        buf ^= 1;
                    }
                }
                if (++y == p.ly) {
                    y = 0;
                    z++;
                }
            }
        }
        if (PROJ && c + gridDim.y >= p.nchunks) /* the block's last chunk counted */
            fold_let_transform_start();
        /* the chunk's columns: the thread's own counters (no barrier needed to read them) */
        for (int a = 0; a < q; a++) {
            uint32_t *pair = &col[2 * a * CUDA_THREADS + threadIdx.x];
            const uint32_t lo = pair[0], hi = pair[CUDA_THREADS];
            pair[0] = pair[CUDA_THREADS] = 0;
            const uint32_t n[4] = { lo & 0xFFFFu, lo >> 16, hi & 0xFFFFu, hi >> 16 };
            if (!in)
                continue;
            if (PROJ)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (n[j] != 0)
                        atomicAdd(proj + a * p.per_state + 4 * g + j, (unsigned long long)n[j]);
            const unsigned total = n[0] + n[1] + n[2] + n[3];
            if (total != 0)
                atomicAdd(&population[a], (unsigned long long)total);
        }
    }
    cuda_warp_add((unsigned long long *)&sums->matches, (unsigned long long)(matches8 >> 3));
    __syncthreads();
    for (int a = threadIdx.x; a < q; a += CUDA_THREADS)
        if (population[a] != 0)
            atomicAdd((unsigned long long *)&sums->count[a], population[a]);
}

extern "C" bool cuda_potts_fold_fits(const struct latmc_lattice *g, int q)
{
    return q >= 2 && q <= P4_STATES && g->lx % 4 == 0;
}

template <bool PROJ, int QW>
static void launch_potts4(cudaStream_t stream, const struct fold_geom &p, dim3 grid,
                          size_t shared, const uint32_t *w, int q,
                          struct latmc_potts_sums *sums, unsigned long long *proj)
{
    if (p.three)
        potts4_fold_kernel<PROJ, true, QW><<<grid, CUDA_THREADS, shared, stream>>>(
            p, w, q, sums, proj);
    else
        potts4_fold_kernel<PROJ, false, QW><<<grid, CUDA_THREADS, shared, stream>>>(
            p, w, q, sums, proj);
}

extern "C" cudaError_t cuda_potts_measure_fold(cudaStream_t stream,
                                               const struct latmc_lattice *g,
                                               const uint8_t *sites,
                                               const struct cuda_proj_range *r, int q,
                                               struct latmc_potts_sums *sums, int64_t *proj)
{
    if (r->planes <= 0)
        return cudaSuccess;
    if (!cuda_potts_fold_fits(g, q))
        return cudaErrorInvalidValue;
    if (cuda_potts_planes_fits(g, q)) /* q <= 4: the states' bit planes (potts_planes.cu) */
        return cuda_potts_measure_planes(stream, g, sites, r, q, sums, proj);
    const struct fold_geom p = geom_of(g, r, g->lx / 4);
    const dim3 grid = grid_of(p);
    const uint32_t *w = (const uint32_t *)sites; /* rows of L_x bytes: 4-byte aligned */
    unsigned long long *out = (unsigned long long *)proj;
    const size_t shared = 2 * (size_t)q * CUDA_THREADS * sizeof(uint32_t);
    if (!proj)
        launch_potts4<false, 1>(stream, p, grid, shared, w, q, sums, NULL);
    else if (q <= 4)
        launch_potts4<true, 1>(stream, p, grid, shared, w, q, sums, out);
    else if (q <= 8)
        launch_potts4<true, 2>(stream, p, grid, shared, w, q, sums, out);
    else if (q <= 12)
        launch_potts4<true, 3>(stream, p, grid, shared, w, q, sums, out);
    else
        launch_potts4<true, 4>(stream, p, grid, shared, w, q, sums, out);
    return cudaGetLastError();
}
