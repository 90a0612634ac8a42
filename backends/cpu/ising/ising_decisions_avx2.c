/*
 * The bit-sliced Ising decisions (decisions = 1, doc/models/ising-decisions.md) at the
 * AVX2 level: the primitives of ising_decisions_simd_tmpl.h over 8 lanes of 32 bits
 * (8 groups of 32 sites a batch), Philox from philox_avx2.h.
 */
#include <immintrin.h>
#include <stdint.h>

#include "philox_avx2.h"

typedef __m256i bvec;
#define NB 8
/* Philox subs whose folds a pass keeps: planes 0 .. 15 (ising_decisions_simd_tmpl.h) */
#define DEC_SUBS 4
#define DEC_LEVEL_ENTRY cpu_ising_decisions_range_avx2
#define DEC_LEVEL_PREPARE cpu_ising_decisions_prepare_avx2
#define DEC_LEVEL_RANGE_PASS cpu_ising_decisions_range_pass_avx2
#define DEC_LEVEL_NAME "avx2"
#define DEC_LEVEL_DSP_INIT cpu_ising_dec_dsp_init_avx2

#define BINLINE static inline __attribute__((always_inline))

BINLINE bvec b_zero(void) { return _mm256_setzero_si256(); }
BINLINE bvec b_ones(void) { return _mm256_set1_epi32(-1); }
BINLINE bvec b_load(const uint32_t *p) { return _mm256_load_si256((const __m256i *)(const void *)p); }
BINLINE void b_store(uint32_t *p, bvec x) { _mm256_store_si256((__m256i *)(void *)p, x); }
BINLINE bvec b_and(bvec a, bvec b) { return _mm256_and_si256(a, b); }
BINLINE bvec b_or(bvec a, bvec b) { return _mm256_or_si256(a, b); }
BINLINE bvec b_xor(bvec a, bvec b) { return _mm256_xor_si256(a, b); }
BINLINE bvec b_andnot(bvec a, bvec b) { return _mm256_andnot_si256(a, b); }
BINLINE bvec b_or_and(bvec x, bvec a, bvec s) { return _mm256_or_si256(x, _mm256_and_si256(a, s)); }

/* latmc_bitslice_plane on 8 groups: u's bit 0 and t's 1 accept; differing bits decide. */
BINLINE void b_plane(bvec *acc, bvec *und, bvec w, bvec tb)
{
    *acc = _mm256_or_si256(*acc, _mm256_andnot_si256(w, _mm256_and_si256(*und, tb)));
    *und = _mm256_andnot_si256(_mm256_xor_si256(w, tb), *und);
}

/* All ones in lanes 0 .. n - 1 (0 <= n <= NB), zero above. */
BINLINE bvec b_lanes_below(int n)
{
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

BINLINE uint32_t b_nonzero_lanes(bvec x)
{
    const __m256i zero = _mm256_cmpeq_epi32(x, _mm256_setzero_si256());
    return ~(uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(zero)) & 0xffu;
}

/* Set bits per byte (a nibble table), summed into the four 64-bit lanes of *cnt. */
BINLINE void b_count_add(bvec *cnt, bvec x)
{
    const __m256i table = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4,
                                           0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
    const __m256i low = _mm256_set1_epi8(0x0f);
    const __m256i n = _mm256_add_epi8(
        _mm256_shuffle_epi8(table, _mm256_and_si256(x, low)),
        _mm256_shuffle_epi8(table, _mm256_and_si256(_mm256_srli_epi16(x, 4), low)));
    *cnt = _mm256_add_epi64(*cnt, _mm256_sad_epu8(n, _mm256_setzero_si256()));
}

static inline uint64_t b_count_total(bvec cnt)
{
    _Alignas(32) uint64_t q[4];
    _mm256_store_si256((__m256i *)(void *)q, cnt);
    return q[0] + q[1] + q[2] + q[3];
}

/* The folds of subs 0 .. DEC_SUBS - 1 (philox_avx2.h's form). */
struct dphilox {
    struct philox8_avx2 f[DEC_SUBS];
};

static void dphilox_setup(struct dphilox *p, const struct latmc_philox_fold f[DEC_SUBS])
{
    for (int q = 0; q < DEC_SUBS; q++)
        philox8_avx2_setup(&p->f[q], &f[q], 0);
}

/*
 * philox8_avx2_rounds with each register pair's own fold (pcs[i]; the multipliers are
 * those of every fold), without the last swap: u[i] = [out1 | out0], v[i] = [out3 | out2].
 */
BINLINE void rounds_of(const struct philox8_avx2 *const *pcs, const __m256i *c, __m256i *u,
                       __m256i *v, const int pairs)
{
    const __m256i m0 = pcs[0]->m0, m1 = pcs[0]->m1;
#pragma GCC unroll 4
    for (int i = 0; i < pairs; i++)
        v[i] = PHILOX8_SWAP(_mm256_xor_si256(_mm256_mul_epu32(c[i], m0), pcs[i]->w0));
#pragma GCC unroll 4
    for (int i = 0; i < pairs; i++) {
        const __m256i p1 = _mm256_mul_epu32(v[i], m1);
        u[i] = PHILOX8_SWAP(_mm256_xor_si256(p1, pcs[i]->w1));
        v[i] = PHILOX8_SWAP(
            _mm256_xor_si256(pcs[i]->q0, _mm256_blend_epi32(v[i], pcs[i]->n1[1], 0x55)));
    }
#pragma GCC unroll 8
    for (int r = 2; r < 10; r++) {
#pragma GCC unroll 4
        for (int i = 0; i < pairs; i++) {
            const __m256i p0 = _mm256_mul_epu32(u[i], m0);
            const __m256i p1 = _mm256_mul_epu32(v[i], m1);
            u[i] = _mm256_xor_si256(p1, _mm256_blend_epi32(u[i], pcs[i]->n0[r], 0x55));
            v[i] = _mm256_xor_si256(p0, _mm256_blend_epi32(v[i], pcs[i]->n1[r], 0x55));
            if (r < 9) {
                u[i] = PHILOX8_SWAP(u[i]);
                v[i] = PHILOX8_SWAP(v[i]);
            }
        }
    }
}

/*
 * Block numbers b (dword i: lane i) as the two pairs of a Philox call: pair 0 holds the
 * blocks of the even lanes, pair 1 those of the odd ones (the low half of each 64-bit
 * lane is read). Then the outputs come out in lane order with one blend each.
 */
BINLINE void lanes_of_pairs(const __m256i *u, const __m256i *v, bvec *w)
{
    w[0] = _mm256_blend_epi32(_mm256_srli_epi64(u[0], 32), u[1], 0xAA);
    w[1] = _mm256_blend_epi32(u[0], _mm256_slli_epi64(u[1], 32), 0xAA);
    w[2] = _mm256_blend_epi32(_mm256_srli_epi64(v[0], 32), v[1], 0xAA);
    w[3] = _mm256_blend_epi32(v[0], _mm256_slli_epi64(v[1], 32), 0xAA);
}

BINLINE void dphilox_main(const struct dphilox *p, uint32_t blo, bvec *w)
{
    const __m256i b = _mm256_add_epi32(_mm256_set1_epi32((int)blo),
                                       _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    const __m256i c[4] = { b, _mm256_srli_epi64(b, 32), b, _mm256_srli_epi64(b, 32) };
    const struct philox8_avx2 *const pcs[4] = { &p->f[0], &p->f[0], &p->f[1], &p->f[1] };
    __m256i u[4], v[4];
    rounds_of(pcs, c, u, v, 4);
    lanes_of_pairs(u, v, w);
    lanes_of_pairs(u + 2, v + 2, w + 4);
}

static inline void dphilox_tail(const struct dphilox *p, int q, const uint32_t *blo, bvec *w)
{
    const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)blo);
    const __m256i c[2] = { b, _mm256_srli_epi64(b, 32) };
    const struct philox8_avx2 *const pcs[2] = { &p->f[q], &p->f[q] };
    __m256i u[2], v[2];
    rounds_of(pcs, c, u, v, 2);
    lanes_of_pairs(u, v, w);
}

#include "ising_decisions_simd_tmpl.h"
