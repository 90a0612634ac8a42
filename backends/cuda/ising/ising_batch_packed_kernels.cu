/*
 * The ensembles' batched Ising update on the multi-spin coded layout (ising_batch.h,
 * ising_packed.h), each member in its own packed arrays, at its own beta (thresholds) and
 * seed: the fused kernel (below: one block per member, every colour of many sweeps in one
 * launch, for members of at most 2048 words a colour) and, for larger members, one launch
 * per colour for every member:
 *
 * Item i of the grid is chunk c = i mod C of member m = i / C: NW consecutive words of the
 * colour being updated (8 NW sites), C = words per colour / NW. Each word is handled like
 * the single-lattice kernels' (ising_packed.cu): its 2 ndim neighbour words from the other
 * colour (the x neighbours through a funnel shift with the next / previous word of its row,
 * for L_x = 16 the word itself, periodic), the +-J coupling words xor-ed in, the class sum,
 * the site's Philox draw (block 2 w + m / 4 of word w, the same numbering) and the same
 * integer decision (packed_decide). So a member is bit for bit its standalone sim, whichever
 * kernels that runs. Each word finds its own neighbours, so a chunk may span rows
 * (L_x = 16 is one word a row).
 *
 * Where a member's row holds whole groups of 2 or more words (+-J: 4 or more), the rows
 * kernel (below) runs instead: a block's threads walk the
 * groups of one member exactly as the single-lattice kernel walks its lattice
 * (ising_packed_groups.cuh: vector loads, one table of 16 thresholds a block), so the
 * member is its standalone sim by construction; LATMC_ENS_ISING_SWEEP=words keeps the
 * word-by-word kernel for every member (the tests compare both).
 *
 * Per-member values: the Philox round keys and the fold of the first rounds are computed
 * per item from the member's seed (the single-lattice kernels get them from the host); the
 * 16 thresholds go into this thread's column of a shared table, table[class][thread]: every
 * thread reads its own column, so no two lanes of a warp ever share a bank and no
 * synchronisation is needed (each thread writes and reads only its own column).
 */
#include "cuda_device.h"
#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_batch.h"
#include "ising_batch_word.cuh"
#include "ising_packed_groups.cuh"
#include "ising_rules.h" /* latmc_ising_rng_name */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/sim.h> /* LATMC_ALGO_* */

struct ens_packed_geom {
    uint32_t wpr;        /* words per row: L_x / 16 */
    uint32_t ly, lz;     /* lz 1 in 2D */
    uint32_t words;      /* words of one colour of a member: L_x L_y L_z / 16 */
    uint32_t chunks;     /* items per member: words / NW */
    int64_t items;       /* chunks x members */
};

/* Word w's neighbour indices (ising_batch_word.cuh), `right` for colour 0. */
template <int ND>
static __device__ __forceinline__ struct ens_word_nbrs
ens_word_nbrs_of(const struct ens_packed_geom &p, uint32_t w)
{
    const uint32_t r = w / p.wpr, wi = w - r * p.wpr, z = r / p.ly, y = r - z * p.ly;
    const uint32_t row = r * p.wpr, plane = p.ly * p.wpr, vol = p.words;
    struct ens_word_nbrs n;
    n.w = w;
    n.next = row + (wi + 1 == p.wpr ? 0 : wi + 1);
    n.prev = row + (wi == 0 ? p.wpr - 1 : wi - 1);
    n.y_up = y + 1 == p.ly ? w - (p.ly - 1) * p.wpr : w + p.wpr;
    n.y_down = y == 0 ? w + (p.ly - 1) * p.wpr : w - p.wpr;
    n.z_up = ND == 6 ? (z + 1 == p.lz ? w + plane - vol : w + plane) : 0;
    n.z_down = ND == 6 ? (z == 0 ? w + vol - plane : w - plane) : 0;
    n.right = ((y + z) & 1u) != 0;
    return n;
}

/* The decision with the thresholds in this thread's column `col` of the shared table
 * (packed_update_word's, entry `cls` at col[CUDA_THREADS cls]). */
template <bool HEATBATH>
struct ens_decide_column {
    const uint32_t *col;
    __device__ __forceinline__ uint32_t operator()(uint32_t own, uint32_t cls,
                                                   const latmc_philox_ctr &u0,
                                                   const latmc_philox_ctr &u1) const
    {
        uint32_t w = HEATBATH ? 0u : own;
#pragma unroll
        for (int n = 0; n < 8; n++) {
            const uint32_t t = col[CUDA_THREADS * ((cls >> (4 * n)) & 15u)];
            packed_decide<HEATBATH>(w, n < 4 ? u0.v[n] : u1.v[n - 4], t, 1u << (4 * n));
        }
        return w;
    }
};

template <int NW, int ND, bool HEATBATH, int CW>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_packed_kernel(struct ens_packed_geom p, const struct cuda_ens_packed_member *members,
                  struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    __shared__ uint32_t table[16 * CUDA_THREADS];
    uint32_t *col = table + threadIdx.x;
    const unsigned lane = threadIdx.x & 31u;
    int64_t have = -1; /* the member whose thresholds are in col */
    /* whole warps walk the items together (the warp sums below need all 32 lanes) */
    for (int64_t i = cuda_first_item(); i - (int64_t)lane < p.items; i += cuda_item_stride()) {
        const bool valid = i < p.items;
        const int64_t m = valid ? latmc_div(i, p.chunks) : -1;
        uint64_t n_changed = 0;
        if (valid) {
            const struct cuda_ens_packed_member *mem = &members[m];
            if (m != have) {
#pragma unroll
                for (int k = 0; k < 16; k++)
                    col[CUDA_THREADS * k] = mem->thr.t[k];
                have = m;
            }
            uint32_t *own_words = mem->colour[colour];
            const uint32_t *other = mem->colour[colour ^ 1];
            const uint32_t *eps = CW > 0 ? mem->eps[colour] : NULL;
            const struct cuda_philox_folded f = cuda_philox_fold_named(mem->seed, name);
            const uint32_t w0 = (uint32_t)(i - m * p.chunks) * NW;
            /* the chunk's 2 NW blocks 2 w0 .. share bits 32..47 (w0 a multiple of NW) */
            const struct cuda_philox_group grp = cuda_philox_group_of(f, 2 * (uint64_t)w0);
            uint32_t r = w0 / p.wpr, wi = w0 - r * p.wpr;
            uint32_t z = r / p.ly, y = r - z * p.ly;
#pragma unroll
            for (int k = 0; k < NW; k++) {
                const uint32_t w = w0 + k, row_start = w - wi;
                const uint32_t plane = p.ly * p.wpr;
                struct ens_word_nbrs n;
                n.w = w;
                n.y_up = y + 1 == p.ly ? w - (p.ly - 1) * p.wpr : w + p.wpr;
                n.y_down = y == 0 ? w + (p.ly - 1) * p.wpr : w - p.wpr;
                n.z_up = ND == 6 ? (z + 1 == p.lz ? w - (p.lz - 1) * plane : w + plane) : 0;
                n.z_down = ND == 6 ? (z == 0 ? w + (p.lz - 1) * plane : w - plane) : 0;
                n.next = row_start + (wi + 1 == p.wpr ? 0 : wi + 1);
                n.prev = row_start + (wi == 0 ? p.wpr - 1 : wi - 1);
                n.right = ((colour + y + z) & 1u) != 0;
                const uint32_t own = own_words[w];
                uint32_t nb[ND];
                ens_neighbours<ND, CW>(other, n, eps + CW * w, nb);
                const uint32_t nw = ens_new_word<ND>(own, nb, f, grp, ens_block_product(2 * w),
                                                     ens_block_product(2 * w + 1),
                                                     ens_decide_column<HEATBATH>{ col });
                n_changed += __popc(nw ^ own);
                own_words[w] = nw;
                /* the next word: along the row, then the next row */
                if (++wi == p.wpr) {
                    wi = 0;
                    if (++y == p.ly) {
                        y = 0;
                        z++;
                    }
                }
            }
        }
        /* one atomic per warp where the warp's items belong to one member (nearly always) */
        const int64_t m0 = __shfl_sync(0xffffffffu, m, 0);
        if (__all_sync(0xffffffffu, m == m0)) {
            cuda_warp_add(&changed[m0 < 0 ? 0 : m0], n_changed);
        } else if (valid && n_changed) {
            atomicAdd(&changed[m], (unsigned long long)n_changed);
        }
    }
}

/*
 * The rows kernel: blockIdx.y is member m0 + blockIdx.y, whose groups the block's threads
 * walk as ising_packed_sweep_kernel walks a lattice (packed_sweep_groups: the same code),
 * with the member's thresholds in the block's table and the pass's fold of its seed.
 */
template <int NW, int ND, bool HEATBATH, int CW>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_packed_rows_kernel(struct packed_geom p, struct packed_stride st,
                       const struct cuda_ens_packed_member *members, struct latmc_rng_name name,
                       int colour, unsigned long long *changed)
{
    __shared__ uint32_t table[16];
    const struct cuda_ens_packed_member *mem = &members[blockIdx.y];
    if (threadIdx.x < 16)
        table[threadIdx.x] = mem->thr.t[threadIdx.x];
    __syncthreads();
    const struct cuda_philox_folded draws = cuda_philox_fold_named(mem->seed, name);
    const unsigned long long n_changed = packed_sweep_groups<NW, ND, HEATBATH, CW>(
        p, st, mem->colour[colour], mem->colour[colour ^ 1], CW > 0 ? mem->eps[colour] : NULL,
        (const unsigned char *)table, draws, colour);
    cuda_warp_add(&changed[blockIdx.y], n_changed);
}

/*
 * The fused kernel: one block per member runs every colour of n sweeps in one launch, the
 * member's two colour arrays in shared memory (loaded once, written back once), the
 * colours separated by __syncthreads (sites of one colour only read the other). For
 * members of at most 2048 words a colour (16^3: 256, 32^3: 2048): thread t takes the words
 * t, t + T, ... (WPT of them, T threads), whose neighbour indices it computes once. The
 * draws and decisions are the per-colour kernel's; the per-(sweep, colour) part of the
 * Philox fold is computed from round keys kept in registers, and the 16 thresholds sit in
 * one shared table (one member a block: packed_update_word's table, bytes permuted).
 */
/* Members of more than 512 words a colour (2D 96^2, 128^2, 32^3, 256 x 128): blocks of
 * more than CUDA_THREADS threads, up to this many, two words a thread (the kernel's BIG
 * instances, launch bounds of their own: 40-63 registers, no spill; four words a thread
 * in blocks of CUDA_THREADS took 166-194 registers, one block an SM, and ran 1024 x 128^2
 * +-J at 684 flips/ns against 867-882 on one H200). */
#define ENS_FUSED_BIG_THREADS 1024
#define ENS_FUSED_BIG_WPT 2
/* Words a thread of the measurement walks in a member of more than 512 words a colour
 * (blocks of CUDA_THREADS, several a member past 2048 words). */
#define ENS_MEASURE_WORDS 8
#define ENS_FUSED_MAX_SWEEPS 1024 /* sweeps per launch: a launch stays short */


/* WPT 0 (STREAM): members past 2048 words a colour whose two colour arrays fit a block's
 * shared memory (the device's opt-in; at most ENS_STREAM_MAX_WORDS): blocks of
 * ENS_FUSED_BIG_THREADS threads, each word's neighbour indices and couplings found where
 * it is updated instead of kept in registers. */
#define ENS_STREAM_MAX_WORDS 16384

template <int WPT, int ND, bool HEATBATH, int CW, bool BIG>
__global__ void __launch_bounds__(BIG ? ENS_FUSED_BIG_THREADS : CUDA_THREADS)
ens_packed_fused_kernel(struct ens_packed_geom p, const struct cuda_ens_packed_member *members,
                        uint64_t sweep0, uint32_t n_sweeps, unsigned long long *changed,
                        bool clear, struct latmc_ising_sums *sums)
{
    constexpr bool STREAM = WPT == 0;
    constexpr int NK = STREAM ? 1 : WPT; /* the words whose places a thread keeps */
    extern __shared__ uint32_t words[]; /* colour 0 then colour 1, p.words each */
    __shared__ uint32_t table[16];
    /* the block's flips (clear), bonds and spins (sums != NULL) */
    __shared__ unsigned long long block_sums[3];
    const struct cuda_ens_packed_member *mem = &members[blockIdx.x];
    const uint32_t T = blockDim.x, tid = threadIdx.x;
    for (uint32_t w = tid; w < p.words; w += T) {
        words[w] = mem->colour[0][w];
        words[p.words + w] = mem->colour[1][w];
    }
    if (tid < 16)
        table[tid] = mem->thr.t[tid];
    /* this thread's words and their neighbours (right: colour 0's x parity in its row),
     * and their coupling words, both colours (read-only: registers) */
    struct ens_word_nbrs at[NK];
    uint32_t e[2][NK][CW > 0 ? CW : 1];
    if constexpr (!STREAM) {
#pragma unroll
        for (int k = 0; k < WPT; k++)
            at[k] = ens_word_nbrs_of<ND>(p, tid + k * T);
        if constexpr (CW > 0) {
#pragma unroll
            for (int c = 0; c < 2; c++)
#pragma unroll
                for (int k = 0; k < WPT; k++)
#pragma unroll
                    for (int q = 0; q < CW; q++)
                        e[c][k][q] = at[k].w < p.words ? mem->eps[c][CW * at[k].w + q] : 0u;
        }
    }
    /* word w's place and couplings of colour c: kept, or found (STREAM) */
    auto place = [&](int k, uint32_t w, int c, uint32_t *ew) {
        if constexpr (STREAM) {
            (void)k;
#pragma unroll
            for (int q = 0; q < CW; q++)
                ew[q] = mem->eps[c][CW * w + q];
            return ens_word_nbrs_of<ND>(p, w);
        } else {
#pragma unroll
            for (int q = 0; q < CW; q++)
                ew[q] = e[c][k][q];
            return at[k];
        }
    };
    /* the round keys of the member's seed, and the fold of every (sweep, colour) from them */
    struct cuda_philox_folded f;
    latmc_philox_round_keys(mem->seed, f.keys.k);
    __syncthreads();
    const unsigned char *table_bytes = (const unsigned char *)table;
    uint64_t n_changed = 0;
    for (uint32_t t = 0; t < n_sweeps; t++) {
        const uint64_t sweep = sweep0 + t;
#pragma unroll
        for (int colour = 0; colour < 2; colour++) {
            /* the fold of this pass, named as the step of (sweep, colour) is (block >> 32
             * is 0: words < 2^31) */
            cuda_philox_refold_named(&f, latmc_ising_rng_name(sweep, colour));
            const struct cuda_philox_group grp = cuda_philox_group_of(f, 0);
            uint32_t *own_words = words + (colour ? p.words : 0);
            const uint32_t *other = words + (colour ? 0 : p.words);
            auto update = [&](int k, uint32_t w) {
                uint32_t ew[CW > 0 ? CW : 1];
                struct ens_word_nbrs a = place(k, w, colour, ew);
                a.right = a.right != (colour != 0);
                const uint32_t own = own_words[a.w];
                uint32_t nb[ND];
                ens_neighbours<ND, CW>(other, a, ew, nb);
                const uint32_t nw = ens_new_word<ND>(
                    own, nb, f, grp, ens_block_product(2 * a.w),
                    ens_block_product(2 * a.w + 1), ens_decide_table<HEATBATH>{ table_bytes });
                n_changed += __popc(nw ^ own);
                own_words[a.w] = nw;
            };
            if constexpr (STREAM) {
                for (uint32_t w = tid; w < p.words; w += T)
                    update(0, w);
            } else {
#pragma unroll
                for (int k = 0; k < WPT; k++)
                    if (at[k].w < p.words)
                        update(k, at[k].w);
            }
            __syncthreads();
        }
    }
    for (uint32_t w = tid; w < p.words; w += T) {
        mem->colour[0][w] = words[w];
        mem->colour[1][w] = words[p.words + w];
    }
    /* The counters: each warp's flips added, or, with clear (a call's first launch), the
     * block's total stored, so no clearing launch goes before; nothing here waits on a
     * global load (a block ends as soon as it can). */
    if (!clear)
        cuda_warp_add(&changed[blockIdx.x], n_changed);
    if (clear || sums) { /* the same for the whole block */
        if (tid == 0)
            block_sums[0] = block_sums[1] = block_sums[2] = 0;
        __syncthreads();
    }
    if (clear)
        cuda_warp_add(&block_sums[2], n_changed);
    /* The member's sums after the last sweep, from the words in shared memory (an exchange
     * round's energy without a measurement launch): ens_packed_measure_kernel's walk over
     * the colour-0 words (below), each bond once, exact integers. */
    if (sums) { /* the same for the whole block */
        const uint32_t *c0 = words, *c1 = words + p.words;
        uint64_t anti = 0, neg = 0;
        int64_t mine = 0;
        auto count = [&](int k, uint32_t w) {
            uint32_t ew[CW > 0 ? CW : 1];
            const struct ens_word_nbrs a = place(k, w, 0, ew);
            const uint32_t own = c0[a.w];
            neg += __popc(own) + __popc(c1[a.w]);
            uint32_t nb[ND];
            ens_neighbours<ND, CW>(c1, a, ew, nb);
            anti += ens_anti_bonds<ND>(own, nb);
            mine++;
        };
        if constexpr (STREAM) {
            for (uint32_t w = tid; w < p.words; w += T)
                count(0, w);
        } else {
#pragma unroll
            for (int k = 0; k < WPT; k++)
                if (at[k].w < p.words)
                    count(k, at[k].w);
        }
        const int64_t bonds = mine * 8 * ND - 2 * (int64_t)anti;
        const int64_t spins = mine * 16 - 2 * (int64_t)neg;
        cuda_warp_add(&block_sums[0], (unsigned long long)bonds);
        cuda_warp_add(&block_sums[1], (unsigned long long)spins);
    }
    if (clear || sums) {
        __syncthreads();
        if (tid == 0) { /* the member's block alone writes its entries */
            if (clear)
                changed[blockIdx.x] = block_sums[2];
            if (sums) {
                sums[blockIdx.x].bonds = (int64_t)block_sums[0];
                sums[blockIdx.x].spins = (int64_t)block_sums[1];
            }
        }
    }
}

/*
 * The sums of every member, `bpm` blocks per member (1 for the fused kernel's members):
 * every bond joins a colour-0 site to a colour-1 one, so walking the colour-0 words with
 * their 2 ndim neighbour words (couplings xor-ed in) counts each bond once, as the packed
 * measurement kernels (ising_packed.cu, measure_projections.cu) do: bonds = ndim N - 2
 * (bonds with eps s_i s_j = -1), spins = N - 2 (spins at -1). Each thread's share is an
 * integer, added into the member's sums by atomics: the same sums in any order.
 */
template <int ND, int CW>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_packed_measure_kernel(struct ens_packed_geom p, const struct cuda_ens_packed_member *members,
                          uint32_t bpm, struct latmc_ising_sums *sums)
{
    const uint32_t m = blockIdx.x / bpm, part = blockIdx.x - m * bpm;
    const uint32_t start = part * blockDim.x + threadIdx.x, stride = bpm * blockDim.x;
    const struct cuda_ens_packed_member *mem = &members[m];
    const uint32_t *c0 = mem->colour[0], *c1 = mem->colour[1];
    uint64_t anti = 0, neg = 0;
    for (uint32_t w = start; w < p.words; w += stride) {
        const struct ens_word_nbrs n = ens_word_nbrs_of<ND>(p, w);
        const uint32_t own = c0[w];
        neg += __popc(own) + __popc(c1[w]);
        uint32_t e[CW > 0 ? CW : 1];
#pragma unroll
        for (int q = 0; q < CW; q++)
            e[q] = mem->eps[0][CW * w + q];
        uint32_t nb[ND];
        ens_neighbours<ND, CW>(c1, n, e, nb);
        anti += ens_anti_bonds<ND>(own, nb);
    }
    /* each thread's share: its colour-0 sites' bonds and its words' sites; the shares add
     * up exactly (integers) to the member's sums */
    const uint32_t mine = start < p.words ? (p.words - start + stride - 1) / stride : 0;
    const int64_t bonds = (int64_t)mine * 8 * ND - 2 * (int64_t)anti;
    const int64_t spins = (int64_t)mine * 16 - 2 * (int64_t)neg;
    cuda_warp_add((unsigned long long *)&sums[m].bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums[m].spins, (unsigned long long)spins);
}

/* Threads of the fused kernel's block for a member of `words` words a colour: all words
 * in at most two rounds of whole warps, at most CUDA_THREADS threads or else (the BIG
 * instances) at most ENS_FUSED_BIG_THREADS, or 0 (too large: per-colour kernel). */
static unsigned ens_fused_threads(uint32_t words)
{
    const uint32_t warps = (words + 31) / 32;
    const uint32_t t = 32 * (warps < CUDA_THREADS / 32 ? warps : CUDA_THREADS / 32);
    if (words <= 2 * t)
        return t;
    const uint32_t big = 32 * ((words + 63) / 64); /* > CUDA_THREADS: words > 2 t */
    return big <= ENS_FUSED_BIG_THREADS ? big : 0;
}

/* An instance of the fused kernel (its arguments). */
typedef void (*ens_fused_fn)(struct ens_packed_geom, const struct cuda_ens_packed_member *,
                             uint64_t, uint32_t, unsigned long long *, bool,
                             struct latmc_ising_sums *);

/* The fused kernel's instance for WPT words a thread (0: STREAM; BIG: blocks of more than
 * CUDA_THREADS threads). */
template <int WPT, int ND, bool BIG>
static ens_fused_fn fused_fn(bool coupled, bool heatbath)
{
    constexpr int CW = ND == 6 ? 2 : 1;
    if (coupled)
        return heatbath ? ens_packed_fused_kernel<WPT, ND, true, CW, BIG>
                        : ens_packed_fused_kernel<WPT, ND, false, CW, BIG>;
    return heatbath ? ens_packed_fused_kernel<WPT, ND, true, 0, BIG>
                    : ens_packed_fused_kernel<WPT, ND, false, 0, BIG>;
}

template <int ND>
static ens_fused_fn fused_fn_of(unsigned threads, int wpt, bool coupled, bool heatbath)
{
    if (wpt == 0) /* the members past 2048 words: STREAM */
        return fused_fn<0, ND, true>(coupled, heatbath);
    if (threads > CUDA_THREADS) /* the big members' blocks: ENS_FUSED_BIG_WPT words */
        return fused_fn<ENS_FUSED_BIG_WPT, ND, true>(coupled, heatbath);
    return wpt == 1 ? fused_fn<1, ND, false>(coupled, heatbath)
                    : fused_fn<2, ND, false>(coupled, heatbath);
}

/* The geometry of n_members members in items of nw words (the fused kernel: nw 1). */
static struct ens_packed_geom ens_packed_geom_of(const struct latmc_lattice *g, int64_t n_members,
                                                 int nw)
{
    struct ens_packed_geom p;
    p.wpr = (uint32_t)(g->lx / 16);
    p.ly = (uint32_t)g->ly;
    p.lz = g->ndim == 3 ? (uint32_t)g->lz : 1u;
    p.words = (uint32_t)(g->nsites / 16);
    p.chunks = p.words / (uint32_t)nw;
    p.items = (int64_t)p.chunks * n_members;
    return p;
}

extern "C" bool cuda_ens_packed_fused_stream(const struct latmc_lattice *g)
{
    return ens_fused_threads((uint32_t)(g->nsites / 16)) == 0;
}

/* The fused kernel's shared memory for a member of `words` words a colour. */
static size_t ens_fused_shared(uint32_t words)
{
    return 2 * (size_t)words * sizeof(uint32_t);
}

extern "C" bool cuda_ens_packed_fused_fits(const struct latmc_lattice *g, int device)
{
    if (cuda_ens_fused_off() || g->nsites / 16 > ENS_STREAM_MAX_WORDS)
        return false;
    const uint32_t words = (uint32_t)(g->nsites / 16);
    /* past 2048 words: STREAM, where the two colour arrays fit a block */
    return ens_fused_threads(words) > 0 || cuda_device_smem_fits(device, ens_fused_shared(words));
}

extern "C" cudaError_t cuda_ens_packed_measure(cudaStream_t stream,
                                               const struct latmc_lattice *g,
                                               const struct cuda_ens_packed_member *members,
                                               int64_t n_members, int coupled,
                                               struct latmc_ising_sums *sums)
{
    const struct ens_packed_geom p = ens_packed_geom_of(g, n_members, 1);
    /* the fused kernel's members of blocks of at most CUDA_THREADS: a block each, as its
     * threads; larger ones: blocks of CUDA_THREADS, some ENS_MEASURE_WORDS words a thread */
    const unsigned fused = ens_fused_threads(p.words);
    const bool one = fused && fused <= CUDA_THREADS;
    const unsigned threads = one ? fused : CUDA_THREADS;
    const uint64_t per_block = (uint64_t)threads * ENS_MEASURE_WORDS;
    const uint32_t bpm = one ? 1u : (uint32_t)((p.words + per_block - 1) / per_block);
    if ((uint64_t)n_members * bpm > (uint64_t)INT32_MAX)
        return cudaErrorInvalidConfiguration;
    const unsigned grid = (unsigned)((uint64_t)n_members * bpm);
    if (g->ndim == 3) {
        if (coupled)
            ens_packed_measure_kernel<6, 2><<<grid, threads, 0, stream>>>(p, members, bpm, sums);
        else
            ens_packed_measure_kernel<6, 0><<<grid, threads, 0, stream>>>(p, members, bpm, sums);
    } else {
        if (coupled)
            ens_packed_measure_kernel<4, 1><<<grid, threads, 0, stream>>>(p, members, bpm, sums);
        else
            ens_packed_measure_kernel<4, 0><<<grid, threads, 0, stream>>>(p, members, bpm, sums);
    }
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ens_packed_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                              const struct cuda_ens_packed_member *members,
                                              int64_t n_members, int coupled, int algorithm,
                                              uint64_t sweep0, uint64_t n_sweeps,
                                              unsigned long long *changed, int clear,
                                              struct latmc_ising_sums *sums)
{
    const struct ens_packed_geom p = ens_packed_geom_of(g, n_members, 1);
    const unsigned fused = ens_fused_threads(p.words);
    /* STREAM past 2048 words (cuda_ens_packed_fused_fits said it fits) */
    const unsigned threads = fused ? fused : ENS_FUSED_BIG_THREADS;
    const int wpt = fused ? (int)((p.words + threads - 1) / threads) : 0; /* at most 2 */
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    const ens_fused_fn k = g->ndim == 3 ? fused_fn_of<6>(threads, wpt, coupled != 0, hb)
                                        : fused_fn_of<4>(threads, wpt, coupled != 0, hb);
    const size_t shared = ens_fused_shared(p.words);
    if (shared > 48 * 1024) {
        const cudaError_t err = cuda_allow_shared((const void *)k, shared);
        if (err != cudaSuccess)
            return err;
    }
    for (uint64_t done = 0; done < n_sweeps;) {
        const uint32_t n = (uint32_t)(n_sweeps - done < ENS_FUSED_MAX_SWEEPS
                                          ? n_sweeps - done : ENS_FUSED_MAX_SWEEPS);
        struct latmc_ising_sums *last = done + n == n_sweeps ? sums : NULL;
        k<<<(unsigned)n_members, threads, shared, stream>>>(p, members, sweep0 + done, n, changed,
                                                            clear && done == 0, last);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
        done += n;
    }
    return cudaSuccess;
}

/* Words per item: the most that divide a colour's words and leave enough items to fill
 * the device a few times over (each item pays the member's fold and table once; 4096 x
 * 16^3 on an H200: 2 words 196-264 flips/ns, 1 word 225, 4 words 220, 8 words 175).
 * LATMC_ENS_ISING_WORDS=1, 2, 4 or 8 asks for that many where it divides them (the tests:
 * items that cross a row's end with few members). */
static int ens_words_per_item(uint32_t words, int64_t n_members)
{
    const char *env = getenv("LATMC_ENS_ISING_WORDS"); /* 1, 2, 4 or 8 (cuda_env.c) */
    if (env && *env) {
        const int asked = atoi(env);
        if ((asked == 1 || asked == 2 || asked == 4 || asked == 8) && words % (uint32_t)asked == 0)
            return asked;
    }
    for (int nw = 8; nw > 1; nw /= 2)
        if (words % nw == 0 && (int64_t)(words / nw) * n_members >= (int64_t)1 << 19)
            return nw;
    return 1;
}

template <int NW, int ND>
static void launch(cudaStream_t stream, const struct ens_packed_geom &p,
                   const struct cuda_ens_packed_member *members, bool coupled, bool heatbath,
                   struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    constexpr int CW = ND == 6 ? 2 : 1;
    const unsigned grid = cuda_grid(p.items);
    if (coupled) {
        if (heatbath)
            ens_packed_kernel<NW, ND, true, CW><<<grid, CUDA_THREADS, 0, stream>>>(
                p, members, name, colour, changed);
        else
            ens_packed_kernel<NW, ND, false, CW><<<grid, CUDA_THREADS, 0, stream>>>(
                p, members, name, colour, changed);
    } else {
        if (heatbath)
            ens_packed_kernel<NW, ND, true, 0><<<grid, CUDA_THREADS, 0, stream>>>(
                p, members, name, colour, changed);
        else
            ens_packed_kernel<NW, ND, false, 0><<<grid, CUDA_THREADS, 0, stream>>>(
                p, members, name, colour, changed);
    }
}

template <int ND>
static void launch_nw(cudaStream_t stream, struct ens_packed_geom p, int nw,
                      const struct cuda_ens_packed_member *members, bool coupled,
                      bool heatbath, struct latmc_rng_name name, int colour,
                      unsigned long long *changed)
{
    switch (nw) {
    case 8: launch<8, ND>(stream, p, members, coupled, heatbath, name, colour, changed); break;
    case 4: launch<4, ND>(stream, p, members, coupled, heatbath, name, colour, changed); break;
    case 2: launch<2, ND>(stream, p, members, coupled, heatbath, name, colour, changed); break;
    default: launch<1, ND>(stream, p, members, coupled, heatbath, name, colour, changed); break;
    }
}

/* Groups per thread of the rows kernel: enough that the per-thread fold and the block's
 * table are paid over several groups, few enough that the members' blocks fill the device. */
#define ENS_ROWS_GROUPS_PER_THREAD 8
#define ENS_ROWS_MAX_MEMBERS 65535 /* grid.y */

template <int NW, int ND, bool HB, int CW>
static void launch_rows_one(cudaStream_t stream, const struct packed_geom &p,
                            const struct cuda_ens_packed_member *members, int64_t n_members,
                            struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    const int64_t groups = p.nrows * p.groups;
    const int64_t per_block = (int64_t)CUDA_THREADS * ENS_ROWS_GROUPS_PER_THREAD;
    const unsigned gx = (unsigned)((groups + per_block - 1) / per_block);
    const struct packed_stride st = packed_stride_of(p, gx);
    for (int64_t m0 = 0; m0 < n_members; m0 += ENS_ROWS_MAX_MEMBERS) {
        const int64_t n = n_members - m0 < ENS_ROWS_MAX_MEMBERS ? n_members - m0
                                                                : ENS_ROWS_MAX_MEMBERS;
        ens_packed_rows_kernel<NW, ND, HB, CW>
            <<<dim3(gx, (unsigned)n), CUDA_THREADS, 0, stream>>>(p, st, members + m0, name,
                                                                 colour, changed + m0);
    }
}

template <int NW, int ND>
static void launch_rows(cudaStream_t stream, const struct latmc_lattice *g,
                        const struct cuda_ens_packed_member *members, int64_t n_members,
                        bool coupled, bool heatbath, struct latmc_rng_name name, int colour,
                        unsigned long long *changed)
{
    constexpr int CW = ND == 6 ? 2 : 1;
    const struct packed_geom p = packed_geom_of(g, NW);
    if constexpr (NW >= 4) {
        if (coupled) {
            if (heatbath)
                launch_rows_one<NW, ND, true, CW>(stream, p, members, n_members, name, colour,
                                                  changed);
            else
                launch_rows_one<NW, ND, false, CW>(stream, p, members, n_members, name, colour,
                                                   changed);
            return;
        }
    }
    if (heatbath)
        launch_rows_one<NW, ND, true, 0>(stream, p, members, n_members, name, colour, changed);
    else
        launch_rows_one<NW, ND, false, 0>(stream, p, members, n_members, name, colour, changed);
}

template <int ND>
static void launch_rows_nw(cudaStream_t stream, const struct latmc_lattice *g, int nw,
                           const struct cuda_ens_packed_member *members, int64_t n_members,
                           bool coupled, bool heatbath, struct latmc_rng_name name, int colour,
                           unsigned long long *changed)
{
#define ENS_ROWS_CASE(NW)                                                                  \
    launch_rows<NW, ND>(stream, g, members, n_members, coupled, heatbath, name, colour,       \
                        changed)
    switch (nw) { /* groups of 2 or more words (ens_rows_fit) */
    case 8: ENS_ROWS_CASE(8); break;
    case 4: ENS_ROWS_CASE(4); break;
    default: ENS_ROWS_CASE(2); break;
    }
#undef ENS_ROWS_CASE
}

/* The rows kernel serves members whose rows hold whole groups of 2 or more words: uniform
 * couplings at 2, 4 or 8 words, +-J at 4 or 8. Rows of an odd number of words (groups of
 * one: L_x 48, 80, ...) run faster word by word (uniform, one H100: 256 x 48^3 1.08x,
 * 64 x 80^3 1.06x; +-J, one H200: 1.10x, 1.02x); so do +-J groups of 2 at some shapes (2D
 * 1120^2 members; 3D 32^3 went the other way). */
static bool ens_rows_fit(int nw, bool coupled)
{
    const char *env = getenv("LATMC_ENS_ISING_SWEEP");
    if (env && strcmp(env, "words") == 0)
        return false;
    return nw >= (coupled ? 4 : 2);
}

extern "C" cudaError_t cuda_ens_packed_sweep_colour(cudaStream_t stream,
                                                    const struct latmc_lattice *g,
                                                    const struct cuda_ens_packed_member *members,
                                                    int64_t n_members, int coupled,
                                                    int algorithm, struct latmc_rng_name name,
                                                    int colour,
                                                    unsigned long long *changed)
{
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    const int rows_nw = packed_words_per_thread(g);
    if (ens_rows_fit(rows_nw, coupled != 0)) {
        if (g->ndim == 3)
            launch_rows_nw<6>(stream, g, rows_nw, members, n_members, coupled != 0, hb, name,
                              colour, changed);
        else
            launch_rows_nw<4>(stream, g, rows_nw, members, n_members, coupled != 0, hb, name,
                              colour, changed);
        return cudaGetLastError();
    }
    const int nw = ens_words_per_item((uint32_t)(g->nsites / 16), n_members);
    const struct ens_packed_geom p = ens_packed_geom_of(g, n_members, nw);
    if (g->ndim == 3)
        launch_nw<6>(stream, p, nw, members, coupled != 0, hb, name, colour, changed);
    else
        launch_nw<4>(stream, p, nw, members, coupled != 0, hb, name, colour, changed);
    return cudaGetLastError();
}
