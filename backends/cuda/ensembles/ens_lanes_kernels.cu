/*
 * The member lanes' chain on the device (ens_lanes.h; doc/ensembles.md "Member lanes").
 *
 * One thread block per group of 32 members. The block copies the group's words (spins,
 * and +-J bond words) into shared memory where they fit, builds the group's classes (lib/
 * ens_lanes_sliced.h: per key the lanes that always accept, the open ones, and 32 threshold
 * planes, bit l of plane b = bit 31 - b of lane l's threshold) with one warp per key, the
 * warp's lane l computing lane l's threshold and __ballot_sync forming the words, and then
 * runs every sweep of the call: per colour the block's threads take the colour's sites
 * j = tid, tid + blockDim, ... and update each with latmc_ens_lanes_update_site_sliced, the
 * CPU's own function (the same neighbours, Philox blocks and comparison, so the same word);
 * a __syncthreads between colours (sites of one colour do not read each other). Each
 * thread counts the lanes' changed spins in bit-sliced 8-plane counters, added into the
 * block's 64-bit per-lane counters every 255 words. Nothing of a group depends on another
 * group, on the block size or on the order of a colour's sites: the CPU's words, bit for
 * bit. Two forms of the site update: the plain one calls the CPU's function itself
 * (LATMC_ENS_LANES=plain in the environment), the default one (lanes_site_fast) the same
 * steps with the dimension, the couplings and the kind of classes compiled in, one kernel
 * each (their registers allocated alone: one kernel holding every form spilled).
 */
#include "cuda_launch.cuh"
#include "ens_lanes.h"
#include "ens_lanes_sliced.h"

#define LANES_THREADS 1024
#define LANES_FULL 0xffffffffu
#define LANES_CTR_PLANES 8 /* a thread's counter holds 255 words before it is added */

/* A thread's bit-sliced per-lane counter. */
struct lanes_ctr {
    uint32_t p[LANES_CTR_PLANES];
    uint32_t n;
};

__device__ __forceinline__ void lanes_ctr_flush(lanes_ctr *c, unsigned long long *block)
{
    for (int l = 0; l < 32; l++) {
        uint32_t v = 0;
#pragma unroll
        for (int k = 0; k < LANES_CTR_PLANES; k++)
            v |= ((c->p[k] >> l) & 1u) << k;
        if (v)
            atomicAdd(&block[l], (unsigned long long)v);
    }
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++)
        c->p[k] = 0;
    c->n = 0;
}

__device__ __forceinline__ void lanes_ctr_add(lanes_ctr *c, uint32_t x, unsigned long long *block)
{
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++) {
        if (!x) /* the carry dies after about two planes */
            break;
        const uint32_t carry = c->p[k] & x;
        c->p[k] ^= x;
        x = carry;
    }
    if (++c->n == (1u << LANES_CTR_PLANES) - 1u)
        lanes_ctr_flush(c, block);
}

/*
 * latmc_ens_lanes_classes_make's classes, one warp per key: the same thresholds (lane l's
 * from its own tables), the same words. The whole block calls it (blockDim a multiple of
 * 32).
 */
__device__ void lanes_classes_build(struct latmc_ens_lanes_classes *c,
                                    const struct latmc_ising_tables *tables, uint32_t active,
                                    int algorithm, int ndim, int force_by_unsat)
{
    const int lane = (int)(threadIdx.x & 31u), warp = (int)(threadIdx.x >> 5);
    const int nwarps = (int)(blockDim.x >> 5);
    const bool on = (active >> lane) & 1u;
    const int heatbath = algorithm == LATMC_ALGO_HEATBATH, nk = 2 * ndim + 1;
    const int sym = on && !heatbath ? latmc_ens_lanes_symmetric(&tables[lane], ndim) : 1;
    /* force_by_unsat 0 or 1: the kind the launch chose for every group (the host checked
     * that 1 holds for all lanes; 0, keys (spin, k), gives the same words as 1 where it
     * holds: both thresholds are metropolis[0][u]); -1: as the CPU decides per group */
    const int all = __all_sync(LANES_FULL, sym);
    const int by_unsat = !heatbath && (force_by_unsat < 0 ? all : force_by_unsat);
    if (threadIdx.x == 0) {
        c->heatbath = heatbath;
        c->nk = nk;
        c->by_unsat = by_unsat;
    }
    for (int key = warp; key < LATMC_ENS_LANES_KEYS; key += nwarps) {
        const int neg = key / LATMC_ISING_MAX_K, k = key % LATMC_ISING_MAX_K;
        const bool skip = k >= nk || ((heatbath || by_unsat) && neg);
        uint64_t t = 0;
        if (!skip && on)
            t = latmc_ising_site_threshold(&tables[lane], algorithm,
                                           (int8_t)(neg || by_unsat ? -1 : 1), k);
        const uint32_t always = __ballot_sync(LANES_FULL, (t >> 32) != 0);
        const uint32_t open = __ballot_sync(LANES_FULL, (t >> 32) == 0 && t != 0);
        if (lane == 0) {
            c->always[key] = always;
            c->open[key] = open;
        }
        for (int b = 0; b < LATMC_BITSLICE_PLANES; b++) {
            const uint32_t pl = __ballot_sync(LANES_FULL, (t >> (31 - b)) & 1u);
            if (lane == 0)
                c->plane[key][b] = pl;
        }
    }
}

/*
 * latmc_ens_lanes_update_site_sliced with the dimension, the couplings and the classes'
 * kind known at compile time (MODE 0: heat bath, keys k; 1: Metropolis by unsatisfied
 * bonds, keys u; 2: Metropolis, keys (spin, k)), so that the site's lanes of each key stay
 * in registers, and the site's place in 32-bit arithmetic (the host launches it where
 * ndim N < 2^31): the same neighbours, keys, masks, planes and comparison in the same
 * order, the same word. Keys whose lanes at this site are none read no plane word. Site
 * j of colour col: latmc_checkerboard_site's numbering.
 */
struct lanes_geom32 {
    uint32_t lx, ly, lz, hx, plane;
};

template <int ND, bool COUPLED, int MODE>
__device__ __forceinline__ uint32_t lanes_site_fast(const lanes_geom32 &g, uint32_t *sp,
                                                    const uint32_t *bd,
                                                    const struct latmc_ens_lanes_classes *c,
                                                    uint32_t active, uint64_t seed,
                                                    struct latmc_rng_name name, uint64_t block0,
                                                    int col, uint32_t j)
{
    const uint32_t row = j / g.hx;
    const uint32_t z = ND == 3 ? row / g.ly : 0u;
    const uint32_t y = row - z * g.ly;
    const uint32_t x = 2u * (j - row * g.hx) + (((uint32_t)col + y + z) & 1u);
    const uint32_t rowbase = g.lx * row, zb = z * g.plane;
    const uint32_t i = x + rowbase;
    uint32_t nb[6];
    nb[0] = rowbase + (x + 1u == g.lx ? 0u : x + 1u);
    nb[1] = rowbase + (x == 0u ? g.lx - 1u : x - 1u);
    nb[2] = x + g.lx * (y + 1u == g.ly ? 0u : y + 1u) + zb;
    nb[3] = x + g.lx * (y == 0u ? g.ly - 1u : y - 1u) + zb;
    if (ND == 3) {
        nb[4] = x + g.lx * y + (z + 1u == g.lz ? 0u : z + 1u) * g.plane;
        nb[5] = x + g.lx * y + (z == 0u ? g.lz - 1u : z - 1u) * g.plane;
    }
    const uint32_t w = sp[i];
    const uint32_t own = MODE == 1 ? w : 0u;
    uint32_t c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
    for (int d = 0; d < 2 * ND; d++) {
        uint32_t xw = sp[nb[d]] ^ own;
        if (COUPLED)
            xw ^= bd[(d & 1) ? ND * nb[d] + d / 2 : ND * i + d / 2];
        latmc_ens_lanes_count(&c0, &c1, &c2, xw);
    }
    constexpr int NK = 2 * ND + 1, SETS = MODE == 2 ? 2 : 1;
    uint32_t lanes[NK * SETS];
    struct latmc_bitslice st;
    st.accept = st.undecided = 0;
    st.planes = 0;
#pragma unroll
    for (int cnt = 0; cnt < NK; cnt++) {
        const uint32_t m = ((cnt & 1) ? c0 : ~c0) & ((cnt & 2) ? c1 : ~c1) &
                           ((cnt & 4) ? c2 : ~c2) & active;
#pragma unroll
        for (int neg = 0; neg < SETS; neg++) {
            const int k = MODE == 1 ? cnt : 2 * ND - cnt;
            const int key = neg * LATMC_ISING_MAX_K + k;
            const uint32_t lk = SETS == 1 ? m : m & (neg ? w : ~w);
            st.accept |= lk & c->always[key];
            const uint32_t o = lk & c->open[key];
            st.undecided |= o;
            lanes[cnt * SETS + neg] = o;
        }
    }
    const uint64_t block = block0 + i;
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS && st.undecided; q++) {
        const latmc_philox_ctr r = latmc_ens_lanes_planes(seed, name, block, q);
#pragma unroll
        for (int p = 0; p < LATMC_ISING_PLANES_PER_BLOCK; p++) {
            if (!st.undecided)
                break;
            uint32_t tb = 0;
#pragma unroll
            for (int n = 0; n < NK * SETS; n++) {
                const int cnt = n / SETS, neg = n % SETS;
                const int key = neg * LATMC_ISING_MAX_K + (MODE == 1 ? cnt : 2 * ND - cnt);
                if (lanes[n])
                    tb |= lanes[n] & c->plane[key][4 * q + p];
            }
            latmc_bitslice_plane(&st, r.v[p], tb);
        }
    }
    const uint32_t nw = MODE == 0 ? (w & ~active) | (active & ~st.accept) : w ^ st.accept;
    sp[i] = nw;
    return w ^ nw;
}

__device__ __forceinline__ uint32_t lanes_active(int n_members, int group)
{
    const int present = n_members - 32 * group;
    return present >= 32 ? LANES_FULL : (1u << present) - 1u;
}

/* The block's group words: in shared memory (copied in) or in place. */
__device__ __forceinline__ void lanes_words_in(const struct latmc_lattice &g, uint32_t *gs,
                                               const uint32_t *gb, int in_shared,
                                               uint32_t *sh, uint32_t **s, const uint32_t **b)
{
    const int64_t N = g.nsites;
    *s = gs;
    *b = gb;
    if (!in_shared)
        return;
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x)
        sh[i] = gs[i];
    if (gb) {
        for (int64_t i = threadIdx.x; i < N * g.ndim; i += blockDim.x)
            sh[N + i] = gb[i];
        *b = sh + N;
    }
    *s = sh;
}

/* The counters added, the words written back, the lanes' counts out. */
__device__ __forceinline__ void lanes_words_out(const struct latmc_lattice &g, uint32_t *gs,
                                                const uint32_t *s, int in_shared,
                                                lanes_ctr *ctr, unsigned long long *block_changed,
                                                unsigned long long *changed, int group)
{
    lanes_ctr_flush(ctr, block_changed);
    if (in_shared)
        for (int64_t i = threadIdx.x; i < g.nsites; i += blockDim.x)
            gs[i] = s[i];
    __syncthreads();
    if (threadIdx.x < 32)
        changed[(size_t)group * 32 + threadIdx.x] = block_changed[threadIdx.x];
}

__device__ __forceinline__ void lanes_ctr_zero(lanes_ctr *ctr)
{
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++)
        ctr->p[k] = 0;
    ctr->n = 0;
}

/* The plain form: every site by latmc_ens_lanes_update_site_sliced itself. */
__global__ void __launch_bounds__(LANES_THREADS)
ens_lanes_plain_kernel(struct latmc_lattice g, int n_members, int algorithm, uint64_t seed,
                       uint64_t sweep0, uint64_t n_sweeps, uint32_t *spin, const uint32_t *bond,
                       const struct latmc_ising_tables *tables, unsigned long long *changed,
                       int in_shared)
{
    extern __shared__ uint32_t lanes_words[];
    __shared__ struct latmc_ens_lanes_classes cls;
    __shared__ unsigned long long block_changed[32];
    const int group = (int)blockIdx.x;
    const int64_t N = g.nsites;
    uint32_t *gs = spin + (size_t)group * (size_t)N;
    const uint32_t *gb = bond ? bond + (size_t)group * (size_t)N * (size_t)g.ndim : NULL;
    uint32_t *s;
    const uint32_t *b;
    lanes_words_in(g, gs, gb, in_shared, lanes_words, &s, &b);
    if (threadIdx.x < 32)
        block_changed[threadIdx.x] = 0;
    const uint32_t active = lanes_active(n_members, group);
    lanes_classes_build(&cls, tables + (size_t)group * 32, active, algorithm, g.ndim, -1);
    __syncthreads();
    const struct latmc_ens_lanes_group grp = { s, b, NULL, active };
    lanes_ctr ctr;
    lanes_ctr_zero(&ctr);
    const int64_t half = N / 2;
    for (uint64_t k = 0; k < n_sweeps; k++)
        for (int c = 0; c < 2; c++) {
            const struct latmc_rng_name name = latmc_ens_lanes_name(sweep0 + k, c);
            for (int64_t j = threadIdx.x; j < half; j += blockDim.x) {
                int planes = 0;
                const uint32_t ch = latmc_ens_lanes_update_site_sliced(
                    &g, &grp, &cls, seed, name, (uint64_t)group, latmc_checkerboard_site(&g, c, j),
                    &planes);
                lanes_ctr_add(&ctr, ch, block_changed);
            }
            __syncthreads();
        }
    lanes_words_out(g, gs, s, in_shared, &ctr, block_changed, changed, group);
}

/* The default form: one kernel per dimension, couplings and kind of classes (MODE of
 * lanes_site_fast), each allocated its registers alone; the words always in shared memory
 * (known so to the compiler: shared loads, not generic ones). */
template <int ND, bool COUPLED, int MODE>
__global__ void __launch_bounds__(LANES_THREADS)
ens_lanes_fast_kernel(struct latmc_lattice g, int n_members, int algorithm, uint64_t seed,
                      uint64_t sweep0, uint64_t n_sweeps, uint32_t *spin, const uint32_t *bond,
                      const struct latmc_ising_tables *tables, unsigned long long *changed,
                      int in_shared)
{
    extern __shared__ uint32_t lanes_words[];
    __shared__ struct latmc_ens_lanes_classes cls;
    __shared__ unsigned long long block_changed[32];
    (void)in_shared; /* always: the host launches this form only so */
    const int group = (int)blockIdx.x;
    const int64_t N = g.nsites;
    uint32_t *gs = spin + (size_t)group * (size_t)N;
    const uint32_t *gb = COUPLED ? bond + (size_t)group * (size_t)N * (size_t)ND : NULL;
    uint32_t *s = lanes_words;
    const uint32_t *b = lanes_words + N;
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x)
        s[i] = gs[i];
    if (COUPLED)
        for (int64_t i = threadIdx.x; i < N * ND; i += blockDim.x)
            lanes_words[N + i] = gb[i];
    if (threadIdx.x < 32)
        block_changed[threadIdx.x] = 0;
    const uint32_t active = lanes_active(n_members, group);
    lanes_classes_build(&cls, tables + (size_t)group * 32, active, algorithm, ND,
                        MODE == 0 ? -1 : MODE == 1 ? 1 : 0);
    __syncthreads();
    lanes_ctr ctr;
    lanes_ctr_zero(&ctr);
    lanes_geom32 g32;
    g32.lx = (uint32_t)g.lx;
    g32.ly = (uint32_t)g.ly;
    g32.lz = (uint32_t)g.lz;
    g32.hx = (uint32_t)(g.lx / 2);
    g32.plane = (uint32_t)(g.lx * g.ly);
    const uint32_t half = (uint32_t)(N / 2);
    const uint64_t block0 = (uint64_t)group * (uint64_t)N;
    for (uint64_t k = 0; k < n_sweeps; k++)
        for (int col = 0; col < 2; col++) {
            const struct latmc_rng_name name = latmc_ens_lanes_name(sweep0 + k, col);
            for (uint32_t j = threadIdx.x; j < half; j += blockDim.x) {
                const uint32_t ch = lanes_site_fast<ND, COUPLED, MODE>(
                    g32, s, b, &cls, active, seed, name, block0, col, j);
                lanes_ctr_add(&ctr, ch, block_changed);
            }
            __syncthreads();
        }
    lanes_words_out(g, gs, s, 1, &ctr, block_changed, changed, group);
}

static unsigned lanes_threads(int64_t items)
{
    const int64_t t = (items + 31) / 32 * 32;
    return (unsigned)(t < 32 ? 32 : t > LANES_THREADS ? LANES_THREADS : t);
}

extern "C" size_t cuda_ens_lanes_shared_bytes(const struct latmc_lattice *g, int coupled)
{
    return (size_t)g->nsites * (1u + (coupled ? (unsigned)g->ndim : 0u)) * sizeof(uint32_t);
}

typedef void (*lanes_kernel)(struct latmc_lattice, int, int, uint64_t, uint64_t, uint64_t,
                             uint32_t *, const uint32_t *, const struct latmc_ising_tables *,
                             unsigned long long *, int);

template <int ND, bool COUPLED>
static lanes_kernel lanes_fast_of(int mode)
{
    return mode == 0 ? ens_lanes_fast_kernel<ND, COUPLED, 0>
         : mode == 1 ? ens_lanes_fast_kernel<ND, COUPLED, 1>
                     : ens_lanes_fast_kernel<ND, COUPLED, 2>;
}

extern "C" cudaError_t cuda_ens_lanes_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                             int n_members, int algorithm, uint64_t seed,
                                             uint64_t sweep0, uint64_t n_sweeps, uint32_t *spin,
                                             const uint32_t *bond,
                                             const struct latmc_ising_tables *tables,
                                             unsigned long long *changed, int in_shared,
                                             int mode)
{
    const unsigned groups = (unsigned)((n_members + 31) / 32);
    const size_t shared = in_shared ? cuda_ens_lanes_shared_bytes(g, bond != NULL) : 0;
    /* the fast form: its words in shared memory, its site arithmetic in 32 bits (ndim N <
     * 2^31); else the plain form */
    const bool fits32 = g->nsites * (int64_t)g->ndim < ((int64_t)1 << 31);
    lanes_kernel k = ens_lanes_plain_kernel;
    if (mode >= 0 && fits32 && in_shared)
        k = g->ndim == 3 ? (bond ? lanes_fast_of<3, true>(mode) : lanes_fast_of<3, false>(mode))
                         : (bond ? lanes_fast_of<2, true>(mode) : lanes_fast_of<2, false>(mode));
    if (shared) {
        const cudaError_t err = cuda_allow_shared((const void *)k, shared);
        if (err != cudaSuccess)
            return err;
    }
    k<<<groups, lanes_threads(g->nsites / 2), shared, stream>>>(
        *g, n_members, algorithm, seed, sweep0, n_sweeps, spin, bond, tables, changed,
        in_shared);
    return cudaGetLastError();
}

/*
 * latmc_ens_lanes_sums per group, one block a group: each thread its share of the sites,
 * the words d = s_i ^ s_j ^ c_ij of the positive directions and the spin words counted in
 * bit-sliced counters, added per lane into the block's; the same integers.
 */
__global__ void __launch_bounds__(LANES_THREADS)
ens_lanes_sums_kernel(struct latmc_lattice g, const uint32_t *spin, const uint32_t *bond,
                      long long *sums)
{
    __shared__ unsigned long long unsat[32], neg[32];
    const int group = (int)blockIdx.x;
    const int64_t N = g.nsites;
    const int nd = g.ndim;
    const uint32_t *s = spin + (size_t)group * (size_t)N;
    const uint32_t *b = bond ? bond + (size_t)group * (size_t)N * (size_t)nd : NULL;
    if (threadIdx.x < 32)
        unsat[threadIdx.x] = neg[threadIdx.x] = 0;
    __syncthreads();
    lanes_ctr cu, cn;
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++)
        cu.p[k] = cn.p[k] = 0;
    cu.n = cn.n = 0;
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x) {
        const int64_t row = i / g.lx, x = i - row * g.lx;
        const int64_t z = row / g.ly, y = row - z * g.ly;
        const uint32_t w = s[i];
        lanes_ctr_add(&cn, w, neg);
        const int64_t j[3] = { i - x + latmc_wrap_up(x, g.lx),
                               x + g.lx * (latmc_wrap_up(y, g.ly) + g.ly * z),
                               x + g.lx * (y + g.ly * latmc_wrap_up(z, g.lz)) };
        for (int mu = 0; mu < nd; mu++) {
            uint32_t d = w ^ s[j[mu]];
            if (b)
                d ^= b[nd * i + mu];
            lanes_ctr_add(&cu, d, unsat);
        }
    }
    lanes_ctr_flush(&cu, unsat);
    lanes_ctr_flush(&cn, neg);
    __syncthreads();
    if (threadIdx.x < 32) {
        sums[(size_t)group * 64 + threadIdx.x] = (long long)(N * nd) - 2 * (long long)unsat[threadIdx.x];
        sums[(size_t)group * 64 + 32 + threadIdx.x] = (long long)N - 2 * (long long)neg[threadIdx.x];
    }
}

extern "C" cudaError_t cuda_ens_lanes_sums(cudaStream_t stream, const struct latmc_lattice *g,
                                           int n_members, const uint32_t *spin,
                                           const uint32_t *bond, long long *sums)
{
    const unsigned groups = (unsigned)((n_members + 31) / 32);
    ens_lanes_sums_kernel<<<groups, lanes_threads(g->nsites), 0, stream>>>(*g, spin, bond, sums);
    return cudaGetLastError();
}
