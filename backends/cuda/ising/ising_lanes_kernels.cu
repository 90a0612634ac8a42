/*
 * The member lanes' chain on the device (ising_lanes.h; doc/ensembles.md "Member lanes").
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
#include <stdlib.h>

#include <cuda_pipeline.h>

#include "cuda_launch.cuh"
#include "ens_lanes_sliced.h"
#include "cuda_philox.cuh"
#include "ising_lanes.h"

/* The site functions: host-callable in the host check (tools/lanes-host-check.sh). */
#ifdef LANES_HOST_CHECK
#define LANES_FN __host__ __device__ __forceinline__
#else
#define LANES_FN __device__ __forceinline__
#endif
/* The site arithmetic: on the host too (the sites' table, cuda_ens_lanes_table_make). */
#define LANES_HD __host__ __device__ __forceinline__

#define LANES_THREADS 1024
#define LANES_FULL 0xffffffffu
#define LANES_CTR_PLANES 8 /* a thread's counter holds 255 words before it is added */

/* A thread's bit-sliced per-lane counter. */
struct lanes_ctr {
    uint32_t p[LANES_CTR_PLANES];
    uint32_t n;
};

/* Lane l's count in the planes. */
__device__ __forceinline__ uint32_t lanes_ctr_lane(const lanes_ctr *c, int l)
{
    uint32_t v = 0;
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++)
        v |= ((c->p[k] >> l) & 1u) << k;
    return v;
}

__device__ __forceinline__ void lanes_ctr_zero(lanes_ctr *c)
{
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++)
        c->p[k] = 0;
    c->n = 0;
}

/* A thread's counts into the block's, alone (a thread whose counter is full): the lanes of
 * a warp start at different counters, so that no two of them wait on one address (the
 * 64-bit shared atomicAdd is a compare-and-swap loop on sm_90). */
__device__ __forceinline__ void lanes_ctr_flush(lanes_ctr *c, unsigned long long *block)
{
    const int lane = (int)(threadIdx.x & 31u);
    for (int r = 0; r < 32; r++) {
        const int l = (r + lane) & 31;
        const uint32_t v = lanes_ctr_lane(c, l);
        if (v)
            atomicAdd(&block[l], (unsigned long long)v);
    }
    lanes_ctr_zero(c);
}

/* The 32 x 32 bit matrix whose row t is lane t's x, transposed: lane i gets column i (its
 * bit t is bit i of lane t's x). Five stages of block swaps, each a shuffle: at width w
 * the lanes without bit w of their number trade their rows' columns with bit w for their
 * partner's columns without it. */
__device__ __forceinline__ uint32_t lanes_transpose32(uint32_t x)
{
    const uint32_t lane = threadIdx.x & 31u;
    const uint32_t lo_of[5] = { 0x0000ffffu, 0x00ff00ffu, 0x0f0f0f0fu, 0x33333333u,
                                0x55555555u };
#pragma unroll
    for (int k = 0; k < 5; k++) {
        const uint32_t w = 16u >> k, lo = lo_of[k];
        const uint32_t y = __shfl_xor_sync(LANES_FULL, x, w);
        x = lane & w ? (x & ~lo) | ((y & ~lo) >> w) : (x & lo) | ((y & lo) << w);
    }
    return x;
}

/* The same, the whole warp at once (every lane calls it): each lane's count summed over the
 * warp (at most 32 x 255) and added by one thread, so a block's counter takes one atomic
 * a warp instead of one a thread. Lane l's sum is that of the planes' bits l over the warp,
 * each plane transposed (lanes_transpose32) so that lane l holds them in one word: a
 * population count a plane, some 300 instructions a warp instead of some 960 for 32 warp
 * reductions of each lane's count. */
__device__ __forceinline__ void lanes_ctr_flush_warp(lanes_ctr *c, unsigned long long *block)
{
    const int lane = (int)(threadIdx.x & 31u);
    uint32_t mine = 0;
    /* a plane zero in every thread of the warp (the high planes of a short launch's or of
     * the round's sums' counters) adds nothing: skipped, the warp agreeing */
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++)
        if (__any_sync(LANES_FULL, c->p[k]))
            mine += (uint32_t)__popc(lanes_transpose32(c->p[k])) << k;
    if (mine)
        atomicAdd(&block[lane], (unsigned long long)mine);
    lanes_ctr_zero(c);
}

__device__ __forceinline__ void lanes_ctr_add(lanes_ctr *c, uint32_t x, unsigned long long *block)
{
    /* every plane, no test: 2 LOP3 a plane; the early exit when the carry died cost about
     * 60 instructions a word in branches and moves (sm_90 SASS) */
#pragma unroll
    for (int k = 0; k < LANES_CTR_PLANES; k++) {
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
 * The Philox draws of the planes, folded where their inputs are shared (lib/philox_fold.h's
 * fold, as cuda_philox_folded_draws does for the bit-sliced kernels). Block (g N + i, sub q)
 * of a colour's name: the counter words c1, c2 are the sweep's and c3 the colour's and q's
 * (c3 of sub q = c3 ^ q), so, with every block number below 2^32 (the host launches the
 * default form only so), only c0 = g N + i and q vary in a launch's pass:
 *   round 0: x0 = u0, x1 = u1 the pass's; x2 = hi(M0 c0) ^ a1 ^ q; x3 = lo(M0 c0)
 *   round 1: y0 = hi(M1 x2) ^ a2; y1 = lo(M1 x2); y2 = lo(M0 c0) ^ a3; y3 the pass's
 *   round 2: z0 = hi(M1 y2) ^ y1 ^ k0[2]; z1 = lo(M1 y2); z2 = hi(M0 y0) ^ a4; z3 = lo(M0 y0)
 * M0 c0 and M1 y2 are the same for every sub q of a word: computed once a word
 * (lanes_word_draws), then each block costs 16 wide multiplies instead of 20. The round keys
 * come from the host (the kernel parameter, in the constant bank).
 */
struct lanes_pass {
    uint32_t a1, a2, a3, a4;
};

struct lanes_word {
    uint32_t h, l, sh, sl; /* hi, lo of M0 c0; hi, lo of M1 y2 */
};

LANES_FN lanes_pass lanes_pass_of(const struct cuda_philox_keys &keys, struct latmc_rng_name n)
{
    struct latmc_philox_fold f;
    latmc_philox_fold_fill(&f, keys.k, n.c1, n.c2, n.c3);
    lanes_pass p;
    p.a1 = f.a1;
    p.a2 = f.a2;
    p.a3 = f.a3;
    p.a4 = f.a4;
    return p;
}

LANES_FN lanes_word lanes_word_draws(const lanes_pass &p, uint32_t c0)
{
    const uint64_t m = (uint64_t)LATMC_PHILOX_M0 * c0;
    lanes_word w;
    w.h = (uint32_t)(m >> 32);
    w.l = (uint32_t)m;
    const uint64_t s = (uint64_t)LATMC_PHILOX_M1 * (w.l ^ p.a3);
    w.sh = (uint32_t)(s >> 32);
    w.sl = (uint32_t)s;
    return w;
}

/* Planes 4q .. 4q + 3 of the word: latmc_ens_lanes_planes(seed, name, block, q). */
LANES_FN latmc_philox_ctr lanes_block_draws(const struct cuda_philox_keys &keys,
                                            const lanes_pass &p, const lanes_word &w, uint32_t q)
{
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * (w.h ^ p.a1 ^ q);
    const uint32_t y0 = (uint32_t)(p1 >> 32) ^ p.a2;
    const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * y0;
    latmc_philox_ctr c;
    c.v[0] = w.sh ^ (uint32_t)p1 ^ keys.k[2].v[0];
    c.v[1] = w.sl;
    c.v[2] = (uint32_t)(p0 >> 32) ^ p.a4;
    c.v[3] = (uint32_t)p0;
#pragma unroll
    for (int round = 3; round < 10; round++)
        c = latmc_philox_round(c, keys.k[round]);
    return c;
}

/*
 * Site j of colour col (latmc_checkerboard_site's numbering) in 32-bit arithmetic (the host
 * launches the default form where ndim N < 2^31): its natural index and neighbours (+x, -x,
 * +y, -y, +z, -z). The divisions by L_x / 2 and L_y by multiplication (lanes_div): about 30
 * instructions a site fewer than the division's.
 */
struct lanes_div {
    uint32_t m, l; /* n / d = hi(2n m) >> l for every n < 2^31 */
};

/* l = ceil(log2 d), m = ceil(2^(31 + l) / d) (< 2^32; d = 2^l gives 2^31): n m / 2^(31 + l)
 * exceeds n / d by less than n 2^l / (d 2^(31 + l)) < 1 / d, which never reaches the next
 * integer, so its floor is floor(n / d). */
LANES_HD lanes_div lanes_div_of(uint32_t d)
{
    lanes_div v;
    v.l = 0;
    while ((1ull << v.l) < d)
        v.l++;
    v.m = (uint32_t)((((uint64_t)1 << (31 + v.l)) + d - 1) / d);
    return v;
}

LANES_HD uint32_t lanes_divide(uint32_t n, const lanes_div &v)
{
    return (uint32_t)(((uint64_t)(n << 1) * v.m) >> 32) >> v.l;
}

struct lanes_geom32 {
    uint32_t lx, ly, lz, hx, plane;
    lanes_div by_hx, by_ly;
};

LANES_HD lanes_geom32 lanes_geom_of(uint32_t lx, uint32_t ly, uint32_t lz)
{
    lanes_geom32 g;
    g.lx = lx;
    g.ly = ly;
    g.lz = lz;
    g.hx = lx / 2;
    g.plane = lx * ly;
    g.by_hx = lanes_div_of(g.hx);
    g.by_ly = lanes_div_of(ly);
    return g;
}

template <int ND>
LANES_HD uint32_t lanes_site_of(const lanes_geom32 &g, int col, uint32_t j, uint32_t nb[6])
{
    const uint32_t row = lanes_divide(j, g.by_hx);
    const uint32_t z = ND == 3 ? lanes_divide(row, g.by_ly) : 0u;
    const uint32_t y = row - z * g.ly;
    const uint32_t x = 2u * (j - row * g.hx) + (((uint32_t)col + y + z) & 1u);
    const uint32_t rowbase = g.lx * row, zb = z * g.plane;
    nb[0] = rowbase + (x + 1u == g.lx ? 0u : x + 1u);
    nb[1] = rowbase + (x == 0u ? g.lx - 1u : x - 1u);
    nb[2] = x + g.lx * (y + 1u == g.ly ? 0u : y + 1u) + zb;
    nb[3] = x + g.lx * (y == 0u ? g.ly - 1u : y - 1u) + zb;
    if (ND == 3) {
        nb[4] = x + g.lx * y + (z + 1u == g.lz ? 0u : z + 1u) * g.plane;
        nb[5] = x + g.lx * y + (z == 0u ? g.lz - 1u : z - 1u) * g.plane;
    }
    return x + rowbase;
}

/* The bit-sliced count (c0, c1, c2) of the site's neighbours at -1 after the couplings,
 * xored with `own` (own = the site's word: its unsatisfied bonds): the binary count that
 * latmc_ens_lanes_count's additions give, by full adders (sum = a ^ b ^ c, carry = maj(a,
 * b, c): one LOP3 each), 8 operations for 6 words instead of about 20. */
LANES_FN uint32_t lanes_maj(uint32_t a, uint32_t b, uint32_t c)
{
    return (a & b) | (c & (a | b));
}

/* The word at byte offset `off` of p: the sites' table (lanes_table) holds byte offsets, which
 * a shared load takes as they are. */
LANES_FN uint32_t lanes_at(const uint32_t *p, uint32_t off)
{
    return *(const uint32_t *)((const char *)p + off);
}

/* i4, nb4: the site's and its neighbours' byte offsets (4 i, 4 nb[d]). */
template <int ND, bool COUPLED>
LANES_FN void lanes_count_at(const uint32_t *sp, const uint32_t *bd, uint32_t i4,
                             const uint32_t nb4[6], uint32_t own, uint32_t *c0, uint32_t *c1,
                             uint32_t *c2)
{
    uint32_t x[6];
#pragma unroll
    for (int d = 0; d < 2 * ND; d++) {
        x[d] = lanes_at(sp, nb4[d]) ^ own;
        if (COUPLED)
            x[d] ^= lanes_at(bd, ND * ((d & 1) ? nb4[d] : i4) + 4u * (uint32_t)(d / 2));
    }
    const uint32_t s1 = x[0] ^ x[1] ^ x[2], k1 = lanes_maj(x[0], x[1], x[2]);
    if (ND == 3) {
        const uint32_t s2 = x[3] ^ x[4] ^ x[5], k2 = lanes_maj(x[3], x[4], x[5]);
        const uint32_t t = s1 & s2;
        *c0 = s1 ^ s2;
        *c1 = k1 ^ k2 ^ t;
        *c2 = lanes_maj(k1, k2, t);
    } else {
        const uint32_t t = s1 & x[3];
        *c0 = s1 ^ x[3];
        *c1 = k1 ^ t;
        *c2 = k1 & t;
    }
}

template <int ND, bool COUPLED>
LANES_FN void lanes_count(const uint32_t *sp, const uint32_t *bd, uint32_t i, const uint32_t nb[6],
                          uint32_t own, uint32_t *c0, uint32_t *c1, uint32_t *c2)
{
    uint32_t nb4[6];
#pragma unroll
    for (int d = 0; d < 2 * ND; d++)
        nb4[d] = 4u * nb[d];
    lanes_count_at<ND, COUPLED>(sp, bd, 4u * i, nb4, own, c0, c1, c2);
}

/* The lanes whose count is `cnt` (compile-time), of the active ones. */
template <int CNT>
LANES_FN uint32_t lanes_of_count(uint32_t c0, uint32_t c1, uint32_t c2)
{
    return ((CNT & 1) ? c0 : ~c0) & ((CNT & 2) ? c1 : ~c1) & ((CNT & 4) ? c2 : ~c2);
}

/*
 * latmc_ens_lanes_update_site_sliced with the dimension, the couplings and the classes'
 * kind known at compile time (MODE 0: heat bath, keys k; 1: Metropolis by unsatisfied
 * bonds, keys u; 2: Metropolis, keys (spin, k)), so that the site's lanes of each key stay
 * in registers: the same neighbours, keys, masks, planes and comparison in the same order,
 * the same word. Keys whose lanes at this site are none read no plane word. The form of
 * every group the register form below does not take (heat bath, a field, keys outside
 * u < ND open).
 */
template <int ND, bool COUPLED, int MODE>
LANES_FN uint32_t lanes_site_fast(const lanes_geom32 &g, uint32_t *sp, const uint32_t *bd,
                                  const struct latmc_ens_lanes_classes *c, uint32_t active,
                                  const struct cuda_philox_keys &keys, const lanes_pass &pass,
                                  uint32_t block0, int col, uint32_t j)
{
    uint32_t nb[6];
    const uint32_t i = lanes_site_of<ND>(g, col, j, nb);
    const uint32_t w = sp[i];
    uint32_t c0, c1, c2;
    lanes_count<ND, COUPLED>(sp, bd, i, nb, MODE == 1 ? w : 0u, &c0, &c1, &c2);
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
    if (st.undecided) {
        for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS && st.undecided; q++) {
            const latmc_philox_ctr r =
                lanes_block_draws(keys, pass, lanes_word_draws(pass, block0 + i), (uint32_t)q);
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
    }
    const uint32_t nw = MODE == 0 ? (w & ~active) | (active & ~st.accept) : w ^ st.accept;
    sp[i] = nw;
    return w ^ nw;
}

/*
 * The register form: Metropolis by unsatisfied bonds (MODE 1) in a group whose keys u >=
 * ND accept in every active lane (h = 0, J > 0 or +-J, beta >= 0: dE <= 0), so that only
 * the keys u < ND can be open. Their threshold planes 0 .. 7 sit in registers (lanes_regs,
 * loaded once a call), planes 8 .. 31 stay in the classes' shared memory.
 */
template <int ND>
struct lanes_regs {
    uint32_t p[ND][8];         /* plane[u][b], b < 8 */
    uint32_t open[ND], always[ND];
};

/* Whether a group's classes take the register form, instance ZY (CUDA_ENS_LANES_ZEROS: with
 * ZY > 0 every active lane is open at every key u < ND, and the top planes it leaves out
 * are zero in all of them). */
template <int ND, int ZY>
__device__ __forceinline__ bool lanes_regs_ok(const struct latmc_ens_lanes_classes *c,
                                              uint32_t active)
{
    bool ok = c->by_unsat && !c->heatbath;
    for (int u = ND; u <= 2 * ND; u++)
        ok = ok && c->open[u] == 0 && c->always[u] == active;
    for (int u = 0; u < ND && ZY > 0; u++) {
        ok = ok && c->open[u] == active && c->always[u] == 0;
        for (int b = 0; b < (u < ND - 1 ? CUDA_ENS_LANES_ZEROS_MOST(ZY)
                                        : CUDA_ENS_LANES_ZEROS_ALL(ZY)); b++)
            ok = ok && (c->plane[u][b] & c->open[u]) == 0;
    }
    return ok;
}

template <int ND>
LANES_FN void lanes_regs_load(lanes_regs<ND> *r, const struct latmc_ens_lanes_classes *c)
{
#pragma unroll
    for (int u = 0; u < ND; u++) {
        r->open[u] = c->open[u];
        r->always[u] = c->always[u];
#pragma unroll
        for (int b = 0; b < 8; b++)
            r->p[u][b] = c->plane[u][b];
    }
}

/* Plane b's threshold word for the lanes of the disjoint masks o[u] (others: any bits):
 * ND - 1 selects. */
template <int ND>
LANES_FN uint32_t lanes_sel(const uint32_t o[ND], const lanes_regs<ND> &r, int b)
{
    if (ND == 2)
        return (o[0] & r.p[0][b]) | (~o[0] & r.p[1][b]);
    const uint32_t t12 = (o[1] & r.p[1][b]) | (~o[1] & r.p[ND - 1][b]);
    return (o[0] & r.p[0][b]) | (~o[0] & t12);
}

/* The site's open lanes of each key u < ND (o[u]) and the lanes that accept without a
 * plane; the count of unsatisfied bonds as in lanes_site_fast with MODE 1. i4, nb4: byte
 * offsets (lanes_count_at). */
template <int ND, bool COUPLED>
LANES_FN uint32_t lanes_regs_classes(const uint32_t *sp, const uint32_t *bd, uint32_t i4,
                                     const uint32_t nb4[6], uint32_t w, const lanes_regs<ND> &r,
                                     uint32_t active, uint32_t o[ND])
{
    uint32_t c0, c1, c2;
    lanes_count_at<ND, COUPLED>(sp, bd, i4, nb4, w, &c0, &c1, &c2);
    /* u >= ND: 3D c2 | (c1 & c0), 2D c1 | c2 */
    uint32_t acc = (ND == 3 ? c2 | (c1 & c0) : c1 | c2) & active;
    o[0] = lanes_of_count<0>(c0, c1, c2);
    o[1] = lanes_of_count<1>(c0, c1, c2);
    if (ND == 3)
        o[ND - 1] = lanes_of_count<2>(c0, c1, c2);
#pragma unroll
    for (int u = 0; u < ND; u++) {
        acc |= o[u] & r.always[u];
        o[u] &= r.open[u];
    }
    return acc;
}

/* Site j of colour col as byte offsets: *i4 its own, nb4[d] its neighbours' (lanes_site_of's
 * order). */
template <int ND>
LANES_HD void lanes_site_bytes(const lanes_geom32 &g, int col, uint32_t j, uint32_t *i4,
                               uint32_t nb4[6])
{
    uint32_t nb[6];
    *i4 = 4u * lanes_site_of<ND>(g, col, j, nb);
    for (int d = 0; d < 2 * ND; d++) /* unrolled as it is (the host compiles it too) */
        nb4[d] = 4u * nb[d];
}

/*
 * The register form's head at the site of byte offsets i4, nb4: blocks 0 and 1 (planes 0
 * .. 7) for every open lane, compared from the bottom plane up (doc/models/
 * ising-decisions.md: less = maj(t_b, ~W_b, less) is "u's top 8 bits < t's", equal = the
 * lanes whose top 8 bits agree); the lanes decided so are written (the word's other lanes
 * keep their bits), the equal ones of key u returned in und[u] for the tail
 * (lanes_regs_tail_at), which continues from plane 8 as the comparison from the top
 * would: the same word. Returns the lanes that changed here. Instance ZY (CUDA_ENS_LANES_
 * ZEROS): the planes b < ZEROS_ALL have t_b = 0 in every open lane, so that less and
 * equal there are "W_b = 0" (their union taken once, after the others: the steps commute),
 * and in the planes b < ZEROS_MOST only key ND - 1's lanes can have t_b = 1 (no select);
 * every active lane is open at the keys u < ND, so that their masks are the count's alone
 * (no `always`, no `open`), the absent lanes kept out by `any`.
 */
template <int ND, bool COUPLED, int ZY = 0>
LANES_FN uint32_t lanes_regs_head_at(uint32_t *sp, const uint32_t *bd, uint32_t i4,
                                     const uint32_t nb4[6], const lanes_regs<ND> &r,
                                     uint32_t active, const struct cuda_philox_keys &keys,
                                     const lanes_pass &pass, uint32_t block0, uint32_t und[ND])
{
    uint32_t o[ND], acc, any;
    const uint32_t w = lanes_at(sp, i4);
    if (ZY > 0) {
        uint32_t c0, c1, c2;
        lanes_count_at<ND, COUPLED>(sp, bd, i4, nb4, w, &c0, &c1, &c2);
        const uint32_t high = ND == 3 ? c2 | (c1 & c0) : c1 | c2; /* u >= ND: accepted */
        acc = high & active;
        any = ~high & active;
        o[0] = lanes_of_count<0>(c0, c1, c2);
        o[1] = lanes_of_count<1>(c0, c1, c2);
        if (ND == 3)
            o[ND - 1] = lanes_of_count<2>(c0, c1, c2);
    } else {
        acc = lanes_regs_classes<ND, COUPLED>(sp, bd, i4, nb4, w, r, active, o);
        any = o[0] | o[1];
        if (ND == 3)
            any |= o[ND - 1];
    }
#pragma unroll
    for (int u = 0; u < ND; u++)
        und[u] = 0;
    if (any) {
        const lanes_word wd = lanes_word_draws(pass, block0 + (i4 >> 2));
        constexpr int ZALL = CUDA_ENS_LANES_ZEROS_ALL(ZY);
        constexpr int ZMOST = CUDA_ENS_LANES_ZEROS_MOST(ZY);
        uint32_t lt = 0, eq = LANES_FULL, top = 0;
#pragma unroll
        for (int q = 1; q >= 0; q--) {
            const latmc_philox_ctr d = lanes_block_draws(keys, pass, wd, (uint32_t)q);
#pragma unroll
            for (int p = 3; p >= 0; p--) {
                const int b = 4 * q + p;
                const uint32_t u = d.v[p];
                if (b < ZALL) {
                    top |= u;
                    continue;
                }
                const uint32_t t = b < ZMOST ? o[ND - 1] & r.p[ND - 1][b] : lanes_sel<ND>(o, r, b);
                lt = (t & ~u) | (lt & (t | ~u)); /* maj(t, ~u, lt) */
                eq &= ~(t ^ u);
            }
        }
        lt &= ~top;
        eq &= ~top;
        if (ZY > 0)
            eq &= any; /* the keys' masks hold absent lanes too (instance 0's: open ones only) */
        acc |= lt & any;
#pragma unroll
        for (int u = 0; u < ND; u++)
            und[u] = o[u] & eq;
    }
    *(uint32_t *)((char *)sp + i4) = w ^ acc;
    return acc;
}

/* The tail of a word the head left undecided in lanes und[u] of key u: planes 8 .. from the
 * classes, compared from the top, BLOCKS Philox blocks at a time (1 or 2: two drawn side by
 * side, as the instances that know zero planes have the registers for, shorten the drain,
 * which waits on the chains' latency, not on their instructions; a word that reaches the
 * tail mostly needs both, and planes compared after every lane is decided change nothing).
 * Returns the lanes that changed (the word rewritten). */
template <int ND, int BLOCKS = 1>
LANES_FN uint32_t lanes_regs_tail_at(uint32_t *sp, const struct latmc_ens_lanes_classes *c,
                                     const struct cuda_philox_keys &keys,
                                     const lanes_pass &pass, uint32_t block0, uint32_t i4,
                                     const uint32_t und[ND])
{
    static_assert((LATMC_ISING_DECISION_BLOCKS - 2) % BLOCKS == 0, "the tail's blocks in steps");
    const uint32_t w = lanes_at(sp, i4); /* the undecided lanes' bits as before the head */
    struct latmc_bitslice st;
    st.accept = 0;
    st.undecided = und[0] | und[1] | (ND == 3 ? und[ND - 1] : 0u);
    st.planes = 8;
    const lanes_word wd = lanes_word_draws(pass, block0 + (i4 >> 2));
    for (int q = 2; q < LATMC_ISING_DECISION_BLOCKS && st.undecided; q += BLOCKS) {
        latmc_philox_ctr d[BLOCKS];
#pragma unroll
        for (int k = 0; k < BLOCKS; k++)
            d[k] = lanes_block_draws(keys, pass, wd, (uint32_t)(q + k));
#pragma unroll
        for (int p = 0; p < BLOCKS * LATMC_ISING_PLANES_PER_BLOCK; p++) {
            uint32_t tb = 0;
#pragma unroll
            for (int u = 0; u < ND; u++)
                tb |= und[u] & c->plane[u][4 * q + p];
            /* reads tb in undecided lanes only */
            latmc_bitslice_plane(&st, d[p / LATMC_ISING_PLANES_PER_BLOCK]
                                           .v[p % LATMC_ISING_PLANES_PER_BLOCK], tb);
        }
    }
    *(uint32_t *)((char *)sp + i4) = w ^ st.accept;
    return st.accept;
}

/* The head and the tail at site j of colour col (the host check's entries: the same
 * functions with the site's offsets computed): *und the lanes left undecided. */
template <int ND, bool COUPLED>
LANES_FN uint32_t lanes_regs_head(const lanes_geom32 &g, uint32_t *sp, const uint32_t *bd,
                                  const lanes_regs<ND> &r, uint32_t active,
                                  const struct cuda_philox_keys &keys, const lanes_pass &pass,
                                  uint32_t block0, int col, uint32_t j, uint32_t *und)
{
    uint32_t i4, nb4[6], q[ND];
    lanes_site_bytes<ND>(g, col, j, &i4, nb4);
    const uint32_t acc = lanes_regs_head_at<ND, COUPLED>(sp, bd, i4, nb4, r, active, keys, pass,
                                                         block0, q);
    *und = q[0] | q[1] | (ND == 3 ? q[ND - 1] : 0u);
    return acc;
}

template <int ND, bool COUPLED>
LANES_FN uint32_t lanes_regs_tail(const lanes_geom32 &g, uint32_t *sp, const uint32_t *bd,
                                  const struct latmc_ens_lanes_classes *c,
                                  const lanes_regs<ND> &r, uint32_t active,
                                  const struct cuda_philox_keys &keys, const lanes_pass &pass,
                                  uint32_t block0, int col, uint32_t j, uint32_t und)
{
    uint32_t i4, nb4[6], o[ND];
    lanes_site_bytes<ND>(g, col, j, &i4, nb4);
    (void)lanes_regs_classes<ND, COUPLED>(sp, bd, i4, nb4, lanes_at(sp, i4), r, active, o);
#pragma unroll
    for (int u = 0; u < ND; u++)
        o[u] &= und;
    return lanes_regs_tail_at<ND>(sp, c, keys, pass, block0, i4, o);
}

__device__ __forceinline__ uint32_t lanes_active(int n_members, int group)
{
    const int present = n_members - 32 * group;
    return present >= 32 ? LANES_FULL : (1u << present) - 1u;
}

/* n words from global into shared memory by the block: 16-byte asynchronous copies
 * (cp.async: no registers, all of a thread's in flight, so that a launch's start does not
 * wait on them one at a time) where both ends are 16-byte aligned, completed by the
 * thread's __pipeline_wait_prior before the block's barrier. */
__device__ __forceinline__ void lanes_copy_in(uint32_t *dst, const uint32_t *src, int64_t n)
{
    int64_t i0 = 0;
    if ((((uintptr_t)dst | (uintptr_t)src) & 15u) == 0) {
        for (int64_t i = threadIdx.x; i < n / 4; i += blockDim.x)
            __pipeline_memcpy_async((uint4 *)dst + i, (const uint4 *)src + i, 16);
        __pipeline_commit();
        i0 = n / 4 * 4;
    }
    for (int64_t i = i0 + threadIdx.x; i < n; i += blockDim.x)
        dst[i] = src[i];
    __pipeline_wait_prior(0);
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
    lanes_copy_in(sh, gs, N);
    if (gb) {
        lanes_copy_in(sh + N, gb, N * g.ndim);
        *b = sh + N;
    }
    *s = sh;
}

/* The counters added, the words written back, the lanes' counts added to the call's. */
__device__ __forceinline__ void lanes_words_out(const struct latmc_lattice &g, uint32_t *gs,
                                                const uint32_t *s, int in_shared,
                                                lanes_ctr *ctr, unsigned long long *block_changed,
                                                unsigned long long *changed, int group)
{
    lanes_ctr_flush_warp(ctr, block_changed); /* every thread of the block is here */
    if (in_shared)
        for (int64_t i = threadIdx.x; i < g.nsites; i += blockDim.x)
            gs[i] = s[i];
    __syncthreads();
    if (threadIdx.x < 32)
        changed[(size_t)group * 32 + threadIdx.x] += block_changed[threadIdx.x];
}

/*
 * latmc_ens_lanes_sums of one group by its block: each thread its share of the sites, the
 * words d = s_i ^ s_j ^ c_ij of the positive directions and the spin words counted in
 * bit-sliced counters, added per lane into the block's; the same integers, into out[l]
 * (bonds) and out[32 + l] (spins). I: the sites' index type (32 bits where N ndim < 2^31:
 * the division's few instructions). Called by every thread of the block, the words final
 * (after a barrier).
 */
template <typename I>
__device__ __forceinline__ void lanes_block_sums(const struct latmc_lattice &g, const uint32_t *s,
                                                 const uint32_t *b, long long *out)
{
    __shared__ unsigned long long unsat[32], neg[32];
    const I N = (I)g.nsites, lx = (I)g.lx, ly = (I)g.ly, lz = (I)g.lz;
    const int nd = g.ndim;
    if (threadIdx.x < 32)
        unsat[threadIdx.x] = neg[threadIdx.x] = 0;
    __syncthreads();
    lanes_ctr cu, cn;
    lanes_ctr_zero(&cu);
    lanes_ctr_zero(&cn);
    for (I i = threadIdx.x; i < N; i += blockDim.x) {
        const I row = i / lx, x = i - row * lx;
        const I z = row / ly, y = row - z * ly;
        /* latmc_wrap_up's neighbours, in I (its int64_t would undo the 32-bit indices) */
        const uint32_t w = s[i];
        lanes_ctr_add(&cn, w, neg);
        const I j[3] = { i - x + (x + 1 == lx ? 0 : x + 1),
                         x + lx * ((y + 1 == ly ? 0 : y + 1) + ly * z),
                         x + lx * (y + ly * (z + 1 == lz ? 0 : z + 1)) };
#pragma unroll
        for (int mu = 0; mu < 3; mu++) { /* unrolled: j in registers, not on the stack */
            if (mu >= nd)
                break;
            uint32_t d = w ^ s[j[mu]];
            if (b)
                d ^= b[(I)nd * i + (I)mu];
            lanes_ctr_add(&cu, d, unsat);
        }
    }
    lanes_ctr_flush_warp(&cu, unsat);
    lanes_ctr_flush_warp(&cn, neg);
    __syncthreads();
    if (threadIdx.x < 32) {
        out[threadIdx.x] = (long long)g.nsites * nd - 2 * (long long)unsat[threadIdx.x];
        out[32 + threadIdx.x] = (long long)g.nsites - 2 * (long long)neg[threadIdx.x];
    }
}

/* Both kernels' start: the group's words in (shared memory where in_shared), its counters
 * zeroed, its classes built (force_by_unsat: lanes_classes_build's), the block in step. */
struct lanes_start {
    uint32_t *gs, *s;
    const uint32_t *b;
    uint32_t active;
    int group;
};

__device__ __forceinline__ lanes_start lanes_block_start(
    const struct latmc_lattice &g, int n_members, int algorithm, uint32_t *spin,
    const uint32_t *bond, const struct latmc_ising_tables *tables, int in_shared,
    uint32_t *words, struct latmc_ens_lanes_classes *cls, unsigned long long *block_changed,
    int force_by_unsat)
{
    lanes_start st;
    st.group = (int)blockIdx.x;
    const int64_t N = g.nsites;
    st.gs = spin + (size_t)st.group * (size_t)N;
    const uint32_t *gb = bond ? bond + (size_t)st.group * (size_t)N * (size_t)g.ndim : NULL;
    lanes_words_in(g, st.gs, gb, in_shared, words, &st.s, &st.b);
    if (threadIdx.x < 32)
        block_changed[threadIdx.x] = 0;
    st.active = lanes_active(n_members, st.group);
    lanes_classes_build(cls, tables + (size_t)st.group * 32, st.active, algorithm, g.ndim,
                        force_by_unsat);
    __syncthreads();
    return st;
}

/* The plain form: every site by latmc_ens_lanes_update_site_sliced itself. */
__global__ void __launch_bounds__(LANES_THREADS)
ens_lanes_plain_kernel(struct latmc_lattice g, int n_members, int algorithm, uint64_t seed,
                       struct cuda_philox_keys keys, uint64_t sweep0, uint64_t n_sweeps,
                       uint32_t *spin, const uint32_t *bond,
                       const struct latmc_ising_tables *tables, unsigned long long *changed,
                       const uint4 *table, int in_shared, long long *sums)
{
    extern __shared__ uint32_t lanes_words[];
    __shared__ struct latmc_ens_lanes_classes cls;
    __shared__ unsigned long long block_changed[32];
    (void)keys;
    (void)table;
    const lanes_start st = lanes_block_start(g, n_members, algorithm, spin, bond, tables,
                                             in_shared, lanes_words, &cls, block_changed, -1);
    const struct latmc_ens_lanes_group grp = { st.s, st.b, NULL, st.active };
    lanes_ctr ctr;
    lanes_ctr_zero(&ctr);
    const int64_t half = g.nsites / 2;
    for (uint64_t k = 0; k < n_sweeps; k++)
        for (int c = 0; c < 2; c++) {
            const struct latmc_rng_name name = latmc_ens_lanes_name(sweep0 + k, c);
            for (int64_t j = threadIdx.x; j < half; j += blockDim.x) {
                int planes = 0;
                const uint32_t ch = latmc_ens_lanes_update_site_sliced(
                    &g, &grp, &cls, seed, name, (uint64_t)st.group,
                    latmc_checkerboard_site(&g, c, j), &planes);
                lanes_ctr_add(&ctr, ch, block_changed);
            }
            __syncthreads();
        }
    if (sums) /* the round's sums of the last sweep's words */
        lanes_block_sums<int64_t>(g, st.s, st.b, sums + (size_t)st.group * 64);
    lanes_words_out(g, st.gs, st.s, in_shared, &ctr, block_changed, changed, st.group);
}

/*
 * The sites' table (the register form, where it fits the block's shared memory beside the
 * words): entry col N / 2 + e holds a site of colour col as 16-bit byte offsets, its own and
 * its neighbours' (lanes_site_bytes), so that a site costs one 16-byte shared load and seven
 * unpacking operations instead of the index arithmetic (about 50 instructions). Made on
 * the host once (cuda_ens_lanes_table_make), copied into each block's shared memory at a
 * launch. Byte offsets below 2^16: N <= 2^14. The sites of a colour in any order give the
 * same words (no site reads one of its own colour, its draws are named by the site): the
 * table orders them so that the 32 entries of a warp's round fall in 32 different banks of
 * shared memory where the lattice allows (16^3: every load of the head without a conflict;
 * in lattice order two sites of a warp share each bank).
 */
#define LANES_TABLE_MAX_SITES 16384

/* The table's byte offset in the dynamic shared memory: after the words, at 16 bytes. */
__host__ __device__ __forceinline__ size_t lanes_table_offset(const struct latmc_lattice *g,
                                                              bool coupled)
{
    const size_t words = (size_t)g->nsites * (1u + (coupled ? (unsigned)g->ndim : 0u)) *
                         sizeof(uint32_t);
    return (words + 15u) & ~(size_t)15u;
}

template <int ND>
LANES_FN void lanes_table_site(const uint4 e, uint32_t *i4, uint32_t nb4[6])
{
    *i4 = e.x & 0xffffu;
    nb4[0] = e.x >> 16;
    nb4[1] = e.y & 0xffffu;
    nb4[2] = e.y >> 16;
    nb4[3] = ND == 3 ? e.z & 0xffffu : e.z;
    if (ND == 3) {
        nb4[4] = e.z >> 16;
        nb4[5] = e.w;
    }
}

/*
 * The register form's colour pass with its tail queue: every thread runs the head of its
 * sites; a word left undecided after plane 7 (about 10 % at beta 2/3) goes with its
 * undecided lanes of each key to the block's queue (ring of LANES_QUEUE entries: the site's
 * byte offset, then the lanes of key u = 0 .. ND - 1), which the block's threads then
 * finish one entry a thread (no site arithmetic, no neighbours: the entry holds what the
 * tail reads), at the end of the colour and every LANES_QUEUE / blockDim rounds of sites
 * before the ring could overflow: a warp no longer runs to its slowest lane, and the
 * tail's blocks run on as many threads as there are tail words. qn: the entries pushed
 * this colour (qn[col], reset one colour ahead). tab: the sites' table (NULL: the sites
 * computed, lanes_site_bytes).
 */
#define LANES_QUEUE CUDA_ENS_LANES_QUEUE

template <int ND, int BLOCKS>
__device__ __forceinline__ void lanes_regs_drain(uint32_t *s,
                                                 const struct latmc_ens_lanes_classes *cls,
                                                 const struct cuda_philox_keys &keys,
                                                 const lanes_pass &pass, uint32_t block0,
                                                 const uint4 *queue, uint32_t from,
                                                 uint32_t to, lanes_ctr *ctr,
                                                 unsigned long long *block_changed)
{
    for (uint32_t e = from + threadIdx.x; e < to; e += blockDim.x) {
        const uint4 q = queue[e % LANES_QUEUE];
        const uint32_t und[3] = { q.y, q.z, q.w };
        const uint32_t ch = lanes_regs_tail_at<ND, BLOCKS>(s, cls, keys, pass, block0, q.x, und);
        lanes_ctr_add(ctr, ch, block_changed);
    }
}

template <int ND, bool COUPLED, int ZY>
__device__ __forceinline__ void lanes_regs_sweeps(const lanes_geom32 &g32, uint32_t *s,
                                                  const uint32_t *b, const uint4 *tab,
                                                  const struct latmc_ens_lanes_classes *cls,
                                                  uint32_t active,
                                                  const struct cuda_philox_keys &keys,
                                                  uint64_t sweep0, uint64_t n_sweeps,
                                                  uint32_t half, uint32_t block0, lanes_ctr *ctr,
                                                  unsigned long long *block_changed)
{
    __shared__ uint4 queue[LANES_QUEUE];
    __shared__ uint32_t qn[2];
    constexpr int TAIL_BLOCKS = ZY ? 2 : 1; /* the instance 0's registers spill with 2 */
    if (threadIdx.x < 2)
        qn[threadIdx.x] = 0;
    lanes_regs<ND> r;
    lanes_regs_load<ND>(&r, cls);
    __syncthreads();
    const uint32_t rounds = (half + blockDim.x - 1) / blockDim.x;
    const uint32_t every = LANES_QUEUE / blockDim.x; /* rounds between drains, >= 1 */
    for (uint64_t k = 0; k < n_sweeps; k++)
        for (int col = 0; col < 2; col++) {
            const lanes_pass pass = lanes_pass_of(keys, latmc_ens_lanes_name(sweep0 + k, col));
            if (threadIdx.x == 0)
                qn[col ^ 1] = 0; /* last read before the barrier ending the other colour */
            uint32_t done = 0;
            /* drains at rounds every, 2 every, ... (a count, not a remainder a round) */
            for (uint32_t t = 0, drain = every; t < rounds; t++) {
                if (t == drain) {
                    drain += every;
                    __syncthreads();
                    const uint32_t n = qn[col];
                    lanes_regs_drain<ND, TAIL_BLOCKS>(s, cls, keys, pass, block0, queue, done,
                                                      n, ctr, block_changed);
                    done = n;
                    __syncthreads();
                }
                const uint32_t j = t * blockDim.x + threadIdx.x;
                if (j < half) {
                    uint32_t i4, nb4[6], und[ND];
                    if (tab)
                        lanes_table_site<ND>(tab[(col ? half : 0u) + j], &i4, nb4);
                    else
                        lanes_site_bytes<ND>(g32, col, j, &i4, nb4);
                    const uint32_t ch = lanes_regs_head_at<ND, COUPLED, ZY>(
                        s, b, i4, nb4, r, active, keys, pass, block0, und);
                    if (und[0] | und[1] | (ND == 3 ? und[ND - 1] : 0u))
                        /* nvcc aggregates the warp's atomics into one */
                        queue[atomicAdd(&qn[col], 1u) % LANES_QUEUE] =
                            make_uint4(i4, und[0], und[1], ND == 3 ? und[ND - 1] : 0u);
                    lanes_ctr_add(ctr, ch, block_changed);
                }
            }
            __syncthreads();
            const uint32_t n = qn[col];
            lanes_regs_drain<ND, TAIL_BLOCKS>(s, cls, keys, pass, block0, queue, done, n, ctr,
                                              block_changed);
            __syncthreads();
        }
}

/* The default form: one kernel per dimension, couplings and kind of classes (MODE 0 .. 2 of
 * lanes_site_fast; 3: the register form, Metropolis by unsatisfied bonds where every lane
 * accepts the keys u >= ND, lanes_regs_ok, its instance ZY of CUDA_ENS_LANES_ZEROS), each
 * allocated its registers alone (the register form beside lanes_site_fast in one kernel
 * spilled); the words always in shared memory (known so to the compiler: shared loads, not
 * generic ones). */
template <int ND, bool COUPLED, int MODE, int ZY>
__global__ void __launch_bounds__(LANES_THREADS)
ens_lanes_fast_kernel(struct latmc_lattice g, int n_members, int algorithm, uint64_t seed,
                      struct cuda_philox_keys keys, uint64_t sweep0, uint64_t n_sweeps,
                      uint32_t *spin, const uint32_t *bond,
                      const struct latmc_ising_tables *tables, unsigned long long *changed,
                      const uint4 *table, int in_shared, long long *sums)
{
    extern __shared__ uint32_t lanes_words[];
    __shared__ struct latmc_ens_lanes_classes cls;
    __shared__ unsigned long long block_changed[32];
    /* the words always in shared memory (the host launches this form only so); in_shared 2:
     * the sites' table (`table`, N entries) copied after them (MODE 3) */
    (void)seed;      /* its round keys are `keys` */
    const lanes_start st = lanes_block_start(g, n_members, algorithm, spin,
                                             COUPLED ? bond : NULL, tables, 1, lanes_words,
                                             &cls, block_changed,
                                             MODE == 0 ? -1 : MODE == 2 ? 0 : 1);
    uint32_t *s = lanes_words;
    const uint32_t *b = lanes_words + g.nsites;
    lanes_ctr ctr;
    lanes_ctr_zero(&ctr);
    const lanes_geom32 g32 = lanes_geom_of((uint32_t)g.lx, (uint32_t)g.ly, (uint32_t)g.lz);
    /* every block number below 2^32 (the host's condition): c0 = block0 + i */
    const uint32_t block0 = (uint32_t)((uint64_t)st.group * (uint64_t)g.nsites);
    const uint32_t half = (uint32_t)(g.nsites / 2);
    if (MODE == 3) {
        if (!lanes_regs_ok<ND, ZY>(&cls, st.active))
            __trap(); /* the host chose the form from the same tables: never */
        /* the sites' table after the words where the host found room for it */
        uint4 *tab = NULL;
        if (in_shared == 2) {
            tab = (uint4 *)((char *)lanes_words + lanes_table_offset(&g, COUPLED));
            lanes_copy_in((uint32_t *)tab, (const uint32_t *)table, 8 * (int64_t)half);
        }
        lanes_regs_sweeps<ND, COUPLED, ZY>(g32, s, b, tab, &cls, st.active, keys, sweep0,
                                           n_sweeps, half, block0, &ctr, block_changed);
    } else {
        for (uint64_t k = 0; k < n_sweeps; k++)
            for (int col = 0; col < 2; col++) {
                const lanes_pass pass =
                    lanes_pass_of(keys, latmc_ens_lanes_name(sweep0 + k, col));
                for (uint32_t j = threadIdx.x; j < half; j += blockDim.x) {
                    const uint32_t ch = lanes_site_fast<ND, COUPLED, MODE == 3 ? 1 : MODE>(
                        g32, s, b, &cls, st.active, keys, pass, block0, col, j);
                    lanes_ctr_add(&ctr, ch, block_changed);
                }
                __syncthreads();
            }
    }
    if (sums) /* the round's sums of the last sweep's words (N ndim < 2^31 here) */
        lanes_block_sums<uint32_t>(g, s, COUPLED ? b : NULL, sums + (size_t)st.group * 64);
    lanes_words_out(g, st.gs, s, 1, &ctr, block_changed, changed, st.group);
}

static unsigned lanes_threads(int64_t items)
{
    const int64_t t = (items + 31) / 32 * 32;
    return (unsigned)(t < 32 ? 32 : t > LANES_THREADS ? LANES_THREADS : t);
}

extern "C" size_t cuda_ens_lanes_shared_bytes(const struct latmc_lattice *g, int coupled,
                                              int table)
{
    if (table)
        return g->nsites <= LANES_TABLE_MAX_SITES
                   ? lanes_table_offset(g, coupled) + (size_t)g->nsites * sizeof(uint4)
                   : 0;
    return (size_t)g->nsites * (1u + (coupled ? (unsigned)g->ndim : 0u)) * sizeof(uint32_t);
}

/* Round robin over the banks of the sites' own words: the next site of each bank in turn,
 * so that any 32 consecutive entries fall in 32 banks while every bank has sites left (all
 * of a colour's at 16^3: each bank holds N / 64 of them). */
template <int ND>
static int lanes_table_colour(const lanes_geom32 &g, int col, uint32_t half, uint32_t *out)
{
    uint32_t count[32] = { 0 }, next[32], start[32];
    uint32_t *by_bank = (uint32_t *)malloc((size_t)half * sizeof *by_bank);
    if (!by_bank)
        return -1;
    for (uint32_t j = 0; j < half; j++) {
        uint32_t nb[6];
        count[lanes_site_of<ND>(g, col, j, nb) % 32u]++;
    }
    for (uint32_t b = 0, at = 0; b < 32; b++) {
        start[b] = next[b] = at;
        at += count[b];
    }
    for (uint32_t j = 0; j < half; j++) {
        uint32_t nb[6];
        by_bank[next[lanes_site_of<ND>(g, col, j, nb) % 32u]++] = j;
    }
    for (uint32_t b = 0; b < 32; b++)
        next[b] = start[b];
    for (uint32_t e = 0; e < half;)
        for (uint32_t b = 0; b < 32 && e < half; b++) {
            if (next[b] == start[b] + count[b])
                continue;
            uint32_t i4, nb4[6];
            lanes_site_bytes<ND>(g, col, by_bank[next[b]++], &i4, nb4);
            uint32_t *t = out + 4 * (size_t)e++;
            t[0] = i4 | nb4[0] << 16;
            t[1] = nb4[1] | nb4[2] << 16;
            t[2] = ND == 3 ? nb4[3] | nb4[4] << 16 : nb4[3];
            t[3] = ND == 3 ? nb4[5] : 0u;
        }
    free(by_bank);
    return 0;
}

extern "C" int cuda_ens_lanes_table_make(const struct latmc_lattice *g, uint32_t *out)
{
    if (g->nsites > LANES_TABLE_MAX_SITES)
        return -1;
    const lanes_geom32 g32 = lanes_geom_of((uint32_t)g->lx, (uint32_t)g->ly, (uint32_t)g->lz);
    const uint32_t half = (uint32_t)(g->nsites / 2);
    int st = 0;
    for (int col = 0; col < 2 && st == 0; col++)
        st = g->ndim == 3
                 ? lanes_table_colour<3>(g32, col, half, out + 4 * (size_t)(col ? half : 0u))
                 : lanes_table_colour<2>(g32, col, half, out + 4 * (size_t)(col ? half : 0u));
    return st;
}

typedef void (*lanes_kernel)(struct latmc_lattice, int, int, uint64_t, struct cuda_philox_keys,
                             uint64_t, uint64_t,
                             uint32_t *, const uint32_t *, const struct latmc_ising_tables *,
                             unsigned long long *, const uint4 *, int, long long *);

template <int ND, bool COUPLED>
static lanes_kernel lanes_fast_of(int mode, int zeros)
{
    static_assert(CUDA_ENS_LANES_ZEROS == 4, "one register-form kernel an instance");
    return mode == 0 ? ens_lanes_fast_kernel<ND, COUPLED, 0, 0>
         : mode == 1 ? ens_lanes_fast_kernel<ND, COUPLED, 1, 0>
         : mode == 2 ? ens_lanes_fast_kernel<ND, COUPLED, 2, 0>
         : zeros == 3 ? ens_lanes_fast_kernel<ND, COUPLED, 3, 3>
         : zeros == 2 ? ens_lanes_fast_kernel<ND, COUPLED, 3, 2>
         : zeros == 1 ? ens_lanes_fast_kernel<ND, COUPLED, 3, 1>
                      : ens_lanes_fast_kernel<ND, COUPLED, 3, 0>;
}

extern "C" cudaError_t cuda_ens_lanes_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                             int n_members, int algorithm, uint64_t seed,
                                             uint64_t sweep0, uint64_t n_sweeps, uint32_t *spin,
                                             const uint32_t *bond,
                                             const struct latmc_ising_tables *tables,
                                             unsigned long long *changed,
                                             const uint32_t *table, int in_shared, int mode,
                                             int zeros, long long *sums)
{
    const unsigned groups = (unsigned)((n_members + 31) / 32);
    /* the fast form: its words in shared memory, its site arithmetic in 32 bits (ndim N <
     * 2^31); else the plain form */
    const bool fits32 = g->nsites * (int64_t)g->ndim < ((int64_t)1 << 31);
    /* and its Philox fold: every block number g N + i below 2^32 */
    const bool blocks32 = (uint64_t)groups * (uint64_t)g->nsites <= ((uint64_t)1 << 32);
    lanes_kernel k = ens_lanes_plain_kernel;
    const bool fast = mode >= 0 && fits32 && blocks32 && in_shared;
    if (fast)
        k = g->ndim == 3 ? (bond ? lanes_fast_of<3, true>(mode, zeros)
                                 : lanes_fast_of<3, false>(mode, zeros))
                         : (bond ? lanes_fast_of<2, true>(mode, zeros)
                                 : lanes_fast_of<2, false>(mode, zeros));
    /* the sites' table: the register form, where the host found room for it (in_shared 2) */
    const int use_table = fast && mode == 3 && in_shared == 2 && table;
    const size_t shared = in_shared ? cuda_ens_lanes_shared_bytes(g, bond != NULL, use_table)
                                    : 0;
    if (shared) {
        const cudaError_t err = cuda_allow_shared((const void *)k, shared);
        if (err != cudaSuccess)
            return err;
    }
    k<<<groups, lanes_threads(g->nsites / 2), shared, stream>>>(
        *g, n_members, algorithm, seed, cuda_philox_round_keys(seed), sweep0, n_sweeps, spin,
        bond, tables, changed, (const uint4 *)table, in_shared ? 1 + use_table : 0, sums);
    return cudaGetLastError();
}

/* latmc_ens_lanes_sums per group, one block a group (lanes_block_sums). */
__global__ void __launch_bounds__(LANES_THREADS)
ens_lanes_sums_kernel(struct latmc_lattice g, const uint32_t *spin, const uint32_t *bond,
                      long long *sums)
{
    const int group = (int)blockIdx.x;
    const int64_t N = g.nsites;
    const uint32_t *s = spin + (size_t)group * (size_t)N;
    const uint32_t *b = bond ? bond + (size_t)group * (size_t)N * (size_t)g.ndim : NULL;
    lanes_block_sums<int64_t>(g, s, b, sums + (size_t)group * 64);
}

extern "C" cudaError_t cuda_ens_lanes_sums(cudaStream_t stream, const struct latmc_lattice *g,
                                           int n_members, const uint32_t *spin,
                                           const uint32_t *bond, long long *sums)
{
    const unsigned groups = (unsigned)((n_members + 31) / 32);
    ens_lanes_sums_kernel<<<groups, lanes_threads(g->nsites), 0, stream>>>(*g, spin, bond, sums);
    return cudaGetLastError();
}
