/*
 * Philox4x32-10 (lib/philox.h) on eight counters at once with AVX-512 (F), for the phi^4
 * and Heisenberg SIMD kernels: philox_lanes_avx2.h's scheme on 64-byte vectors -- each
 * counter word a __m512i of eight 64-bit lanes, one Philox block per lane, the 32-bit word
 * in the low half; vpmuludq gives the next round's "hi" (high half) and "lo" (low half) at once; the
 * high halves carry garbage that never reaches a low half. Each round's three-way xors
 * hi(p) ^ c ^ k are one vpternlogq. The same hoisting of the word-3-independent part of
 * the first rounds (latmc_philox_x8_pre / _finish_sets), the same function. Include only
 * from translation units built with -mavx512f.
 */
#ifndef LATMC_CPU_PHILOX_LANES_AVX512_H
#define LATMC_CPU_PHILOX_LANES_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#include "philox_fold.h"

/* vpternlog truth table of a ^ b ^ c */
#define LATMC_XOR3_ 0x96

/* The ten round keys (lib/philox_fold.h), broadcast. */
struct latmc_philox_x8_keys {
    __m512i k0[10], k1[10];
};

static inline void latmc_philox_x8_keys_init(struct latmc_philox_x8_keys *k, uint64_t seed)
{
    latmc_philox_key key[10];
    latmc_philox_round_keys(seed, key);
    for (int r = 0; r < 10; r++) {
        k->k0[r] = _mm512_set1_epi64((long long)key[r].v[0]);
        k->k1[r] = _mm512_set1_epi64((long long)key[r].v[1]);
    }
}

/* One Philox round on eight blocks (keys of round r). */
#define LATMC_PHILOX_X8_ROUND(K, r, c0, c1, c2, c3)                                                \
    do {                                                                                           \
        const __m512i p0_ = _mm512_mul_epu32((c0), _mm512_set1_epi64(LATMC_PHILOX_M0));            \
        const __m512i p1_ = _mm512_mul_epu32((c2), _mm512_set1_epi64(LATMC_PHILOX_M1));            \
        (c0) = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1_, 32), (c1), (K)->k0[r],             \
                                         LATMC_XOR3_);                                             \
        (c1) = p1_;                                                                                \
        (c2) = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0_, 32), (c3), (K)->k1[r],             \
                                         LATMC_XOR3_);                                             \
        (c3) = p0_;                                                                                \
    } while (0)

/* Words (0, 1) of each block as one 64-bit lane (out01), words (2, 3) (out23). */
static inline void latmc_philox_x8_pack(__m512i c0, __m512i c1, __m512i c2, __m512i c3,
                                        __m512i *out01, __m512i *out23)
{
    *out01 = _mm512_mask_blend_epi32(0xaaaa, c0, _mm512_slli_epi64(c1, 32));
    *out23 = _mm512_mask_blend_epi32(0xaaaa, c2, _mm512_slli_epi64(c3, 32));
}

/* Full Philox4x32-10 of eight counters (words in 64-bit lanes, high halves ignored). */
static inline void latmc_philox_x8(const struct latmc_philox_x8_keys *k, __m512i *c0,
                                   __m512i *c1, __m512i *c2, __m512i *c3)
{
    __m512i a = *c0, b = *c1, c = *c2, d = *c3;
    for (int r = 0; r < 10; r++)
        LATMC_PHILOX_X8_ROUND(k, r, a, b, c, d);
    *c0 = a;
    *c1 = b;
    *c2 = c;
    *c3 = d;
}

/* The part of rounds 0-3 that depends only on words 0-2 (philox_lanes_avx2.h says which). */
struct latmc_philox_x8_pre {
    __m512i v, b, d2, d3, f, g, h;
};

static inline void latmc_philox_x8_pre(const struct latmc_philox_x8_keys *k, __m512i w0,
                                       __m512i w1, __m512i w2, struct latmc_philox_x8_pre *pre)
{
    const __m512i m0 = _mm512_set1_epi64(LATMC_PHILOX_M0);
    const __m512i m1 = _mm512_set1_epi64(LATMC_PHILOX_M1);
    /* round 0 */
    const __m512i p0 = _mm512_mul_epu32(w0, m0), p1 = _mm512_mul_epu32(w2, m1);
    const __m512i a0 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1, 32), w1, k->k0[0],
                                                 LATMC_XOR3_);
    const __m512i a1 = p1, a3 = p0;
    pre->v = _mm512_xor_si512(_mm512_srli_epi64(p0, 32), k->k1[0]);
    /* round 1 */
    const __m512i q = _mm512_mul_epu32(a0, m0);
    pre->b = _mm512_xor_si512(a1, k->k0[1]);
    pre->d2 = _mm512_ternarylogic_epi64(_mm512_srli_epi64(q, 32), a3, k->k1[1], LATMC_XOR3_);
    pre->d3 = q;
    /* round 2 */
    const __m512i e = _mm512_mul_epu32(pre->d2, m1);
    pre->f = _mm512_xor_si512(_mm512_srli_epi64(e, 32), k->k0[2]);
    pre->g = _mm512_xor_si512(pre->d3, k->k1[2]);
    /* round 3: c1(r2) = lo(e) is fixed */
    pre->h = _mm512_xor_si512(e, k->k0[3]);
}

/* The rest of Philox4x32-10 for word 3 = w3 on NSETS sets of eight blocks, round by round
 * (independent dependency chains interleaved); returns the packed outputs. */
#define LATMC_PHILOX_X8_NSETS 2
static inline __attribute__((always_inline)) void latmc_philox_x8_finish_sets(
    const struct latmc_philox_x8_keys *k,
    const struct latmc_philox_x8_pre *const pre[LATMC_PHILOX_X8_NSETS], __m512i w3,
    __m512i out01[LATMC_PHILOX_X8_NSETS], __m512i out23[LATMC_PHILOX_X8_NSETS])
{
    enum { N = LATMC_PHILOX_X8_NSETS };
    const __m512i m0 = _mm512_set1_epi64(LATMC_PHILOX_M0);
    const __m512i m1 = _mm512_set1_epi64(LATMC_PHILOX_M1);
    __m512i c0[N], c1[N], c2[N], c3[N];
#pragma GCC unroll 4
    for (int i = 0; i < N; i++) {
        /* rounds 0 and 1 */
        const __m512i p1_1 = _mm512_mul_epu32(_mm512_xor_si512(pre[i]->v, w3), m1);
        const __m512i c0_1 = _mm512_xor_si512(_mm512_srli_epi64(p1_1, 32), pre[i]->b);
        /* round 2 */
        const __m512i p0_2 = _mm512_mul_epu32(c0_1, m0);
        c0[i] = _mm512_xor_si512(p1_1, pre[i]->f);
        c2[i] = _mm512_xor_si512(_mm512_srli_epi64(p0_2, 32), pre[i]->g);
        c3[i] = p0_2;
    }
#pragma GCC unroll 4
    for (int i = 0; i < N; i++) {
        /* round 3 */
        const __m512i p0_3 = _mm512_mul_epu32(c0[i], m0), p1_3 = _mm512_mul_epu32(c2[i], m1);
        c0[i] = _mm512_xor_si512(_mm512_srli_epi64(p1_3, 32), pre[i]->h);
        c1[i] = p1_3;
        c2[i] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0_3, 32), c3[i], k->k1[3],
                                          LATMC_XOR3_);
        c3[i] = p0_3;
    }
#pragma GCC unroll 6
    for (int r = 4; r < 10; r++) {
#pragma GCC unroll 4
        for (int i = 0; i < N; i++)
            LATMC_PHILOX_X8_ROUND(k, r, c0[i], c1[i], c2[i], c3[i]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < N; i++)
        latmc_philox_x8_pack(c0[i], c1[i], c2[i], c3[i], &out01[i], &out23[i]);
}

#endif
