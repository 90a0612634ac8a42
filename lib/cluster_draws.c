/*
 * The cluster updates' random numbers and decisions (lib/cluster_bonds.h defines them):
 * the bond pass of a Swendsen-Wang sweep, a row's Philox blocks computed together, and a
 * cluster's new state from its draw.
 */
#include <string.h>

#include "cluster_bonds.h"
#include "cluster_job.h"
#include "x86_avx2.h"

int latmc_cluster_can_join(const struct latmc_cluster_job *job, const uint8_t *s, int64_t i,
                           int64_t j, int mu)
{
    if (job->potts)
        return s[i] == s[j];
    const int eps = job->eps ? job->eps[(int64_t)job->g.ndim * i + mu] : 1;
    return latmc_cluster_ising_satisfied(job->sign_k, eps, (int8_t)s[i], (int8_t)s[j]);
}

/* The same for the bonds of one row: "same state" flipped where K eps < 0 (Ising). */
static inline int can_bond(const struct latmc_cluster_job *job, const uint8_t *s, int64_t i,
                           int64_t j, int mu, int flip)
{
    int same = s[i] == s[j];
    if (job->eps) /* the same branch for every site */
        same ^= job->eps[(int64_t)job->g.ndim * i + mu] < 0;
    return same ^ flip;
}

/*
 * The draws of the LATMC_CLUSTER_BATCH blocks blk[k] of phase `phase` of the sweep
 * (lib/cluster_bonds.h) into out[4 k + lane]: latmc_rng_block's numbers, computed
 * together so that the rounds of independent blocks overlap (one block's ten rounds are
 * one long chain of dependent multiplications). On x86-64 the blocks go through the
 * vector lanes, one block per 64-bit lane with its 32-bit word in the low half: the
 * unsigned 32 x 32 -> 64 multiply (pmuludq) then gives a round's "hi" and "lo" words
 * with no shuffle. AVX2 where the CPU has it (four blocks per instruction), else SSE2
 * (two; every x86-64 has it); the scalar loop elsewhere. All give the same numbers.
 */
static void batch_scalar(const latmc_philox_ctr *c, latmc_philox_key key, uint32_t *out)
{
    enum { B = LATMC_CLUSTER_BATCH };
    uint32_t x0[B], x1[B], x2[B], x3[B];
    for (int k = 0; k < B; k++)
        x0[k] = c[k].v[0], x1[k] = c[k].v[1], x2[k] = c[k].v[2], x3[k] = c[k].v[3];
    uint32_t key0 = key.v[0], key1 = key.v[1];
    for (int round = 0; round < 10; round++) {
        for (int k = 0; k < B; k++) {
            const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * x0[k];
            const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * x2[k];
            const uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1[k] ^ key0;
            const uint32_t y2 = (uint32_t)(p0 >> 32) ^ x3[k] ^ key1;
            x1[k] = (uint32_t)p1;
            x3[k] = (uint32_t)p0;
            x0[k] = y0;
            x2[k] = y2;
        }
        key0 += LATMC_PHILOX_W0;
        key1 += LATMC_PHILOX_W1;
    }
    for (int k = 0; k < B; k++) {
        out[4 * k] = x0[k], out[4 * k + 1] = x1[k], out[4 * k + 2] = x2[k];
        out[4 * k + 3] = x3[k];
    }
}

#ifdef LATMC_X86_AVX2
#  define CLUSTER_X86 1
/* W(k) lanes of 64 bits: one counter word of the blocks, 2 (SSE2) or 4 (AVX2) per vector. */
#  define CLUSTER_PHILOX_LANES(VEC, W, SET1, MUL, SRL, XOR, STORE, LOADW)                       \
    do {                                                                                   \
        enum { NV = LATMC_CLUSTER_BATCH / W };                                             \
        VEC a[NV], b[NV], cc[NV], d[NV];                                                   \
        for (int v = 0; v < NV; v++) {                                                     \
            a[v] = LOADW(0), b[v] = LOADW(1), cc[v] = LOADW(2), d[v] = LOADW(3);           \
        }                                                                                  \
        const VEC m0 = SET1(LATMC_PHILOX_M0), m1 = SET1(LATMC_PHILOX_M1);                  \
        uint32_t key0 = key.v[0], key1 = key.v[1];                                         \
        _Pragma("GCC unroll 10")                                                           \
        for (int round = 0; round < 10; round++) {                                         \
            const VEC k0 = SET1(key0), k1 = SET1(key1);                                    \
            _Pragma("GCC unroll 4")                                                        \
            for (int v = 0; v < NV; v++) {                                                 \
                const VEC p0 = MUL(a[v], m0), p1 = MUL(cc[v], m1);                         \
                a[v] = XOR(SRL(p1, 32), XOR(b[v], k0));                                    \
                b[v] = p1;                                                                 \
                cc[v] = XOR(SRL(p0, 32), XOR(d[v], k1));                                   \
                d[v] = p0;                                                                 \
            }                                                                              \
            key0 += LATMC_PHILOX_W0;                                                       \
            key1 += LATMC_PHILOX_W1;                                                       \
        }                                                                                  \
        for (int v = 0; v < NV; v++)                                                       \
            STORE(out + 4 * W * v, a[v], b[v], cc[v], d[v]);                               \
    } while (0)

#  include <immintrin.h>

static void batch_sse2(const latmc_philox_ctr *c, latmc_philox_key key, uint32_t *out)
{
#  define SSE2_SET1(x) _mm_set1_epi64x((long long)(uint32_t)(x))
/* words (w0 .. w3) of two blocks, one per 64-bit lane, to 8 consecutive draws */
#  define SSE2_STORE(p, w0, w1, w2, w3)                                                   \
    do {                                                                                 \
        const __m128i lo_ = _mm_set1_epi64x(0xffffffffll);                              \
        const __m128i x01_ = _mm_or_si128(_mm_and_si128((w0), lo_), _mm_slli_epi64((w1), 32)); \
        const __m128i x23_ = _mm_or_si128(_mm_and_si128((w2), lo_), _mm_slli_epi64((w3), 32)); \
        _mm_storeu_si128((__m128i *)(void *)(p), _mm_unpacklo_epi64(x01_, x23_));       \
        _mm_storeu_si128((__m128i *)(void *)((p) + 4), _mm_unpackhi_epi64(x01_, x23_)); \
    } while (0)
#  define SSE2_LOADW(q) _mm_set_epi64x((long long)c[2 * v + 1].v[q], (long long)c[2 * v].v[q])
    CLUSTER_PHILOX_LANES(__m128i, 2, SSE2_SET1, _mm_mul_epu32, _mm_srli_epi64, _mm_xor_si128,
                         SSE2_STORE, SSE2_LOADW);
}

__attribute__((target("avx2"))) static void batch_avx2(const latmc_philox_ctr *c,
                                                        latmc_philox_key key, uint32_t *out)
{
#  define AVX2_SET1(x) _mm256_set1_epi64x((long long)(uint32_t)(x))
/* words (w0 .. w3) of four blocks, one per 64-bit lane, to 16 consecutive draws */
#  define AVX2_STORE(p, w0, w1, w2, w3)                                                   \
    do {                                                                                 \
        const __m256i x01_ = _mm256_blend_epi32((w0), _mm256_slli_epi64((w1), 32), 0xaa); \
        const __m256i x23_ = _mm256_blend_epi32((w2), _mm256_slli_epi64((w3), 32), 0xaa); \
        const __m256i e_ = _mm256_unpacklo_epi64(x01_, x23_); /* blocks 0, 2 */          \
        const __m256i o_ = _mm256_unpackhi_epi64(x01_, x23_); /* blocks 1, 3 */          \
        _mm256_storeu_si256((__m256i *)(void *)(p), _mm256_permute2x128_si256(e_, o_, 0x20)); \
        _mm256_storeu_si256((__m256i *)(void *)((p) + 8),                                \
                            _mm256_permute2x128_si256(e_, o_, 0x31));                    \
    } while (0)
#  define AVX2_LOADW(q) _mm256_set_epi64x((long long)c[4 * v + 3].v[q],                     \
                                          (long long)c[4 * v + 2].v[q],                     \
                                          (long long)c[4 * v + 1].v[q], (long long)c[4 * v].v[q])
    CLUSTER_PHILOX_LANES(__m256i, 4, AVX2_SET1, _mm256_mul_epu32, _mm256_srli_epi64,
                         _mm256_xor_si256, AVX2_STORE, AVX2_LOADW);
}
#endif

typedef void (*batch_fn)(const latmc_philox_ctr *, latmc_philox_key, uint32_t *);

/* The widest of the batches above that this CPU runs (latmc_have_avx2 asks once). */
static batch_fn batch_impl(void)
{
#ifdef CLUSTER_X86
    (void)batch_scalar;
    return latmc_have_avx2() ? batch_avx2 : batch_sse2;
#else
    return batch_scalar;
#endif
}

void latmc_cluster_batch(uint64_t seed, uint64_t sweep, uint32_t phase, const uint64_t *blk,
                         uint32_t *out)
{
    const struct latmc_rng_name name = latmc_rng_cluster_name(sweep, 0, phase, 0);
    latmc_philox_ctr c[LATMC_CLUSTER_BATCH];
    for (int k = 0; k < LATMC_CLUSTER_BATCH; k++)
        c[k] = latmc_rng_name_counter(name, blk[k]);
    batch_impl()(c, latmc_rng_key(seed), out);
}

#ifdef CLUSTER_X86
/*
 * Consecutive blocks b0 .. b0 + 8 m - 1 (m = n / 8 groups), AVX2: the counters built in
 * the lanes (block, its word 1, then the sweep's and the phase's words, the same for
 * every block), the round keys broadcast once per call (a broadcast per round and word
 * cost more than the rounds' own xors), 8 blocks a step in two vectors.
 */
__attribute__((target("avx2"))) static void blocks_avx2(latmc_philox_key key, uint32_t c1,
                                                         uint32_t c2, uint32_t c3, uint64_t b0,
                                                         int64_t n, uint32_t *out)
{
    enum { NV = 2 };
    const __m256i step = _mm256_set1_epi64x(4 * NV), lo16 = _mm256_set1_epi64x(0xffff);
    const __m256i w1 = _mm256_set1_epi64x((long long)c1), w2 = AVX2_SET1(c2),
                  w3 = AVX2_SET1(c3);
    const __m256i m0 = AVX2_SET1(LATMC_PHILOX_M0), m1 = AVX2_SET1(LATMC_PHILOX_M1);
    __m256i rk0[10], rk1[10];
    uint32_t key0 = key.v[0], key1 = key.v[1];
    for (int round = 0; round < 10; round++) {
        rk0[round] = AVX2_SET1(key0);
        rk1[round] = AVX2_SET1(key1);
        key0 += LATMC_PHILOX_W0;
        key1 += LATMC_PHILOX_W1;
    }
    __m256i blk[NV];
    for (int v = 0; v < NV; v++)
        blk[v] = _mm256_add_epi64(_mm256_set1_epi64x((long long)b0),
                                  _mm256_set_epi64x(4 * v + 3, 4 * v + 2, 4 * v + 1, 4 * v));
    for (int64_t g = 0; g + 4 * NV <= n; g += 4 * NV) {
        /* two vectors in named registers (arrays indexed in a loop end up in memory) */
        __m256i a0 = blk[0], a1 = blk[1];
        __m256i b0w = _mm256_or_si256(w1, _mm256_and_si256(_mm256_srli_epi64(blk[0], 32), lo16));
        __m256i b1w = _mm256_or_si256(w1, _mm256_and_si256(_mm256_srli_epi64(blk[1], 32), lo16));
        __m256i c0 = w2, c1w = w2, d0 = w3, d1 = w3;
#  define ROUND(r)                                                                         \
        do {                                                                               \
            const __m256i p00 = _mm256_mul_epu32(a0, m0), p10 = _mm256_mul_epu32(c0, m1);  \
            const __m256i p01 = _mm256_mul_epu32(a1, m0), p11 = _mm256_mul_epu32(c1w, m1); \
            a0 = _mm256_xor_si256(_mm256_srli_epi64(p10, 32), _mm256_xor_si256(b0w, rk0[r])); \
            a1 = _mm256_xor_si256(_mm256_srli_epi64(p11, 32), _mm256_xor_si256(b1w, rk0[r])); \
            c0 = _mm256_xor_si256(_mm256_srli_epi64(p00, 32), _mm256_xor_si256(d0, rk1[r]));  \
            c1w = _mm256_xor_si256(_mm256_srli_epi64(p01, 32), _mm256_xor_si256(d1, rk1[r])); \
            b0w = p10, b1w = p11, d0 = p00, d1 = p01;                                      \
        } while (0)
        ROUND(0); ROUND(1); ROUND(2); ROUND(3); ROUND(4);
        ROUND(5); ROUND(6); ROUND(7); ROUND(8); ROUND(9);
#  undef ROUND
        AVX2_STORE(out + 4 * g, a0, b0w, c0, d0);
        AVX2_STORE(out + 4 * g + 16, a1, b1w, c1w, d1);
        blk[0] = _mm256_add_epi64(blk[0], step);
        blk[1] = _mm256_add_epi64(blk[1], step);
    }
}
#endif

void latmc_cluster_blocks(uint64_t seed, uint64_t sweep, uint32_t phase, uint64_t b0,
                          int64_t n, uint32_t *out)
{
    int64_t k0 = 0;
#ifdef CLUSTER_X86
    if (batch_impl() == batch_avx2) { /* whole groups of 8 here, the rest below */
        const struct latmc_rng_name name = latmc_rng_cluster_name(sweep, 0, phase, 0);
        blocks_avx2(latmc_rng_key(seed), name.c1, name.c2, name.c3, b0, n, out);
        k0 = n / 8 * 8;
    }
#endif
    for (; k0 < n; k0 += LATMC_CLUSTER_BATCH) {
        uint64_t blk[LATMC_CLUSTER_BATCH];
        for (int k = 0; k < LATMC_CLUSTER_BATCH; k++)
            blk[k] = b0 + (uint64_t)(k0 + k);
        latmc_cluster_batch(seed, sweep, phase, blk, out + 4 * k0);
    }
}

/* The bonds of one row of a lattice without +-J couplings: bit mu of bonds[x] is
 * bond (base + x, mu), from the row's draws u[nd x + mu]. Without branches on the spins
 * or the draws (they are unpredictable), and the row's last site (the x wrap) apart, so
 * that the loop vectorises. nd is a constant where it is inlined. */
static inline __attribute__((always_inline)) void row_bonds(int nd, const uint8_t *s,
                                                            uint8_t *bonds, const uint32_t *u,
                                                            int64_t base, int64_t lx,
                                                            int64_t up_y, int64_t up_z,
                                                            int flip, uint32_t last_draw)
{
    const uint8_t *si = s + base;
    const uint8_t f = (uint8_t)flip;
    for (int64_t x = 0; x < lx; x++) {
        const int64_t right = x + 1 < lx ? x + 1 : 0;
        unsigned b = (unsigned)(((si[x] == si[right]) ^ f) & (u[nd * x] <= last_draw));
        b |= (unsigned)(((si[x] == si[x + up_y]) ^ f) & (u[nd * x + 1] <= last_draw)) << 1;
        if (nd == 3)
            b |= (unsigned)(((si[x] == si[x + up_z]) ^ f) & (u[nd * x + 2] <= last_draw)) << 2;
        bonds[x] = (uint8_t)b;
    }
}

/* The same with +-J couplings ("same state" flipped where K eps < 0). */
static void row_bonds_eps(const struct latmc_cluster_job *job, const uint8_t *s,
                          uint8_t *bonds, const uint32_t *u, int64_t base, int64_t up_y,
                          int64_t up_z, int flip)
{
    const int nd = job->g.ndim;
    const int64_t lx = job->g.l[0];
    for (int64_t x = 0; x < lx; x++) {
        const int64_t i = base + x;
        const int64_t j[3] = { x + 1 == lx ? base : i + 1, i + up_y, i + up_z };
        unsigned b = 0;
        for (int mu = 0; mu < nd; mu++) {
            const unsigned on = (unsigned)can_bond(job, s, i, j[mu], mu, flip) &
                                (unsigned)((uint64_t)u[x * nd + mu] < job->bond_threshold);
            b |= on << mu;
        }
        bonds[i] = (uint8_t)b;
    }
}

size_t latmc_cluster_row_words(const struct latmc_cluster_lattice *g)
{
    const int64_t row_blocks = (g->l[0] * g->ndim + 3) / 4 + 1; /* a row's draws span these */
    return (size_t)(row_blocks + LATMC_CLUSTER_BATCH) * 4;
}

/* The bonds of the local sites [i0, i1) of sweep `sweep` (global sites job->site0 + i0
 * ..), i0 and i1 at the start of rows, from the draws of lib/cluster_bonds.h (a row's
 * blocks computed together into `draws`). Memory is indexed locally, the draws and the
 * wraps globally; the neighbour above a part's last plane is its halo plane (halo_up). */
void latmc_cluster_draw_bonds_into(const struct latmc_cluster_job *job, uint64_t sweep,
                                   const uint8_t *s, uint8_t *bonds, int64_t i0, int64_t i1,
                                   uint32_t *draws)
{
    const int nd = job->g.ndim;
    const int64_t lx = job->g.l[0], ly = job->g.l[1], lz = job->g.l[2];
    if (job->bond_threshold == 0) { /* K = 0: no bond */
        memset(bonds + i0, 0, (size_t)(i1 - i0));
        return;
    }
    const int flip = !job->potts && job->sign_k < 0;
    const uint32_t last_draw = (uint32_t)(job->bond_threshold - 1); /* active: u <= it */
    /* the last axis wraps in memory only where the whole lattice is held */
    const int wraps = !job->halo_up;
    for (int64_t row = i0 / lx; row < i1 / lx; row++) {
        const int64_t base = row * lx, gbase = base + job->site0, grow = gbase / lx;
        const int64_t y = grow % ly, z = grow / ly;
        const int64_t up_y =
            y + 1 == ly && (nd == 3 || wraps) ? -(ly - 1) * lx : lx;
        const int64_t up_z =
            nd == 3 ? (z + 1 == lz && wraps ? -(lz - 1) * lx * ly : lx * ly) : 0;
        const uint64_t d0 = (uint64_t)gbase * (uint64_t)nd, b0 = d0 >> 2;
        const uint64_t b1 = ((uint64_t)(gbase + lx) * (uint64_t)nd + 3) >> 2;
        latmc_cluster_blocks(job->seed, sweep, LATMC_CLUSTER_PHASE_BONDS, b0, (int64_t)(b1 - b0),
                       draws);
        const uint32_t *u = draws + (d0 - 4 * b0); /* u[d - d0]: draw d */
        if (job->eps)
            row_bonds_eps(job, s, bonds, u, base, up_y, up_z, flip);
        else if (nd == 2)
            row_bonds(2, s, bonds + base, u, base, lx, up_y, 0, flip, last_draw);
        else
            row_bonds(3, s, bonds + base, u, base, lx, up_y, up_z, flip, last_draw);
    }
}

/* The decision of the cluster named r from its draw u: Ising 1 keep, 0 flip; Potts the
 * new colour. size: its sites, m: its magnetisation (Ising), old: its colour (Potts). */
uint8_t latmc_cluster_decide(const struct latmc_cluster_job *job, uint32_t u, int64_t size,
                             int64_t m, int old)
{
    return (uint8_t)latmc_cluster_decision(u, job->beta_h, job->potts ? job->q : 0, job->wolff,
                                           size, m, old);
}

/* The decision of the one cluster named r (Wolff). */
uint8_t latmc_cluster_decide_one(const struct latmc_cluster_job *job, uint64_t sweep,
                                 int64_t r, int64_t size, int64_t m, int old)
{
    return latmc_cluster_decide(job, latmc_cluster_decide_draw(job->seed, sweep, r), size, m, old);
}

