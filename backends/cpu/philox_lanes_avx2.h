/*
 * Philox4x32-10 (lib/philox.h) on four counters at once with AVX2, for the phi^4 and
 * Heisenberg SIMD kernels. Include only from translation units built with -mavx2.
 *
 * Layout: each counter word is a __m256i of four 64-bit lanes, one Philox block per lane,
 * the 32-bit word in the low half of its lane. vpmuludq multiplies the low halves into
 * the full 64-bit product, whose high half is the next round's "hi" and whose low half is
 * already the next "lo" word: a round is 2 multiplies, 2 shifts and 4 xors for four
 * blocks, with no shuffles. The high halves of the lanes carry garbage, which never
 * reaches a low half (xor is bitwise, vpmuludq reads only low halves).
 *
 * The kernels draw many blocks whose counters differ only in word 3 (stream, phase, sub:
 * hit and draw number) while words 0-2 (block, sweep) are fixed for a group of sites;
 * latmc_philox_x4_pre / _finish hoist everything of the first three rounds that does not
 * depend on word 3 out of the loop over hits (the same function, evaluated in another
 * order: 63 instead of 80 vector operations per four blocks).
 */
#ifndef LATMC_CPU_PHILOX_LANES_AVX2_H
#define LATMC_CPU_PHILOX_LANES_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "philox_fold.h"

/* The ten round keys (lib/philox_fold.h), broadcast. */
struct latmc_philox_x4_keys {
    __m256i k0[10], k1[10];
};

static inline void latmc_philox_x4_keys_init(struct latmc_philox_x4_keys *k, uint64_t seed)
{
    latmc_philox_key key[10];
    latmc_philox_round_keys(seed, key);
    for (int r = 0; r < 10; r++) {
        k->k0[r] = _mm256_set1_epi64x((long long)key[r].v[0]);
        k->k1[r] = _mm256_set1_epi64x((long long)key[r].v[1]);
    }
}

/* One Philox round on four blocks (keys of round r). */
#define LATMC_PHILOX_X4_ROUND(K, r, c0, c1, c2, c3)                                                \
    do {                                                                                           \
        const __m256i p0_ = _mm256_mul_epu32((c0), _mm256_set1_epi64x(LATMC_PHILOX_M0));           \
        const __m256i p1_ = _mm256_mul_epu32((c2), _mm256_set1_epi64x(LATMC_PHILOX_M1));           \
        (c0) = _mm256_xor_si256(_mm256_srli_epi64(p1_, 32), _mm256_xor_si256((c1), (K)->k0[r]));   \
        (c1) = p1_;                                                                                \
        (c2) = _mm256_xor_si256(_mm256_srli_epi64(p0_, 32), _mm256_xor_si256((c3), (K)->k1[r]));   \
        (c3) = p0_;                                                                                \
    } while (0)

/*
 * Words 0..3 of four blocks, lanes 0..3 of the result = blocks 0..3 of the input:
 * out01 holds words (0, 1) of each block as a 64-bit lane, out23 words (2, 3).
 */
static inline void latmc_philox_x4_pack(__m256i c0, __m256i c1, __m256i c2, __m256i c3,
                                        __m256i *out01, __m256i *out23)
{
    *out01 = _mm256_blend_epi32(c0, _mm256_slli_epi64(c1, 32), 0xaa);
    *out23 = _mm256_blend_epi32(c2, _mm256_slli_epi64(c3, 32), 0xaa);
}

/* Full Philox4x32-10 of four counters (words in 64-bit lanes, high halves ignored). */
static inline void latmc_philox_x4(const struct latmc_philox_x4_keys *k, __m256i *c0, __m256i *c1,
                                   __m256i *c2, __m256i *c3)
{
    __m256i a = *c0, b = *c1, c = *c2, d = *c3;
    for (int r = 0; r < 10; r++)
        LATMC_PHILOX_X4_ROUND(k, r, a, b, c, d);
    *c0 = a;
    *c1 = b;
    *c2 = c;
    *c3 = d;
}

/*
 * The part of rounds 0-3 that depends only on words 0-2 of the counters (see the top of
 * the file). Round r's words are written c_w^r (after the round):
 *   r0: c0 = hi(M1 w2) ^ w1 ^ k0_0, c1 = lo(M1 w2), c2 = hi(M0 w0) ^ w3 ^ k1_0, c3 = lo(M0 w0)
 *   r1: c0 = hi(M1 c2) ^ c1 ^ k0_1 (c2 depends on w3), c2 = hi(M0 c0) ^ c3 ^ k1_1 (fixed)
 *   r2: c1 = lo(M1 c2) fixed, c3 = lo(M0 c0) depends on w3; c0 = hi(M1 c2) ^ c1 ^ k0_2 with
 *       fixed hi(M1 c2) and the varying c1 of r1, ...
 */
struct latmc_philox_x4_pre {
    __m256i v;  /* r0: c2 = v ^ w3 */
    __m256i b;  /* r1: c0 = hi(M1 c2) ^ b */
    __m256i d2; /* r1: c2 (fixed) */
    __m256i d3; /* r1: c3 (fixed) */
    __m256i f;  /* r2: c0 = c1(r1) ^ f */
    __m256i g;  /* r2: c2 = hi(M0 c0(r1)) ^ g */
    __m256i h;  /* r3: c0 = hi(M1 c2(r2)) ^ h */
};

static inline void latmc_philox_x4_pre(const struct latmc_philox_x4_keys *k, __m256i w0, __m256i w1,
                                       __m256i w2, struct latmc_philox_x4_pre *pre)
{
    const __m256i m0 = _mm256_set1_epi64x(LATMC_PHILOX_M0);
    const __m256i m1 = _mm256_set1_epi64x(LATMC_PHILOX_M1);
    /* round 0 */
    const __m256i p0 = _mm256_mul_epu32(w0, m0), p1 = _mm256_mul_epu32(w2, m1);
    const __m256i a0 = _mm256_xor_si256(_mm256_srli_epi64(p1, 32), _mm256_xor_si256(w1, k->k0[0]));
    const __m256i a1 = p1, a3 = p0;
    pre->v = _mm256_xor_si256(_mm256_srli_epi64(p0, 32), k->k1[0]);
    /* round 1 */
    const __m256i q = _mm256_mul_epu32(a0, m0);
    pre->b = _mm256_xor_si256(a1, k->k0[1]);
    pre->d2 = _mm256_xor_si256(_mm256_srli_epi64(q, 32), _mm256_xor_si256(a3, k->k1[1]));
    pre->d3 = q;
    /* round 2 */
    const __m256i e = _mm256_mul_epu32(pre->d2, m1);
    pre->f = _mm256_xor_si256(_mm256_srli_epi64(e, 32), k->k0[2]);
    pre->g = _mm256_xor_si256(pre->d3, k->k1[2]);
    /* round 3: c1(r2) = lo(e) is fixed */
    pre->h = _mm256_xor_si256(e, k->k0[3]);
}

/* The rest of Philox4x32-10 for word 3 = w3 (per lane); returns the packed outputs. */
static inline __attribute__((always_inline)) void latmc_philox_x4_finish(
    const struct latmc_philox_x4_keys *k, const struct latmc_philox_x4_pre *pre, __m256i w3,
    __m256i *out01, __m256i *out23)
{
    const __m256i m0 = _mm256_set1_epi64x(LATMC_PHILOX_M0);
    const __m256i m1 = _mm256_set1_epi64x(LATMC_PHILOX_M1);
    /* round 0 */
    const __m256i c2_0 = _mm256_xor_si256(pre->v, w3);
    /* round 1 */
    const __m256i p1_1 = _mm256_mul_epu32(c2_0, m1);
    const __m256i c0_1 = _mm256_xor_si256(_mm256_srli_epi64(p1_1, 32), pre->b);
    const __m256i c1_1 = p1_1;
    /* round 2 */
    const __m256i p0_2 = _mm256_mul_epu32(c0_1, m0);
    __m256i c0 = _mm256_xor_si256(c1_1, pre->f);
    __m256i c2 = _mm256_xor_si256(_mm256_srli_epi64(p0_2, 32), pre->g);
    __m256i c3 = p0_2;
    /* round 3: c1 was fixed, folded into h */
    const __m256i p0_3 = _mm256_mul_epu32(c0, m0), p1_3 = _mm256_mul_epu32(c2, m1);
    c0 = _mm256_xor_si256(_mm256_srli_epi64(p1_3, 32), pre->h);
    __m256i c1 = p1_3;
    c2 = _mm256_xor_si256(_mm256_srli_epi64(p0_3, 32), _mm256_xor_si256(c3, k->k1[3]));
    c3 = p0_3;
    LATMC_PHILOX_X4_ROUND(k, 4, c0, c1, c2, c3);
    LATMC_PHILOX_X4_ROUND(k, 5, c0, c1, c2, c3);
    LATMC_PHILOX_X4_ROUND(k, 6, c0, c1, c2, c3);
    LATMC_PHILOX_X4_ROUND(k, 7, c0, c1, c2, c3);
    LATMC_PHILOX_X4_ROUND(k, 8, c0, c1, c2, c3);
    LATMC_PHILOX_X4_ROUND(k, 9, c0, c1, c2, c3);
    latmc_philox_x4_pack(c0, c1, c2, c3, out01, out23);
}

/*
 * latmc_philox_x4_finish on NSETS independent sets of four blocks at once, round by round,
 * so that the instruction stream interleaves NSETS dependency chains (one Philox is ~55
 * cycles of serial latency; out-of-order execution alone overlaps too few of them). Four
 * sets (16 of the 16 ymm registers in the rounds, a few spills): phi^4 3D 128^3 float nhit
 * 8 on the EPYC 2 (Zen 3), 1 thread, 4 % less CPU time per hit than two sets; eight spill
 * heavily (15 % more).
 */
#define LATMC_PHILOX_X4_NSETS 4
static inline __attribute__((always_inline)) void latmc_philox_x4_finish_sets(
    const struct latmc_philox_x4_keys *k,
    const struct latmc_philox_x4_pre *const pre[LATMC_PHILOX_X4_NSETS], __m256i w3,
    __m256i out01[LATMC_PHILOX_X4_NSETS], __m256i out23[LATMC_PHILOX_X4_NSETS])
{
    enum { N = LATMC_PHILOX_X4_NSETS };
    const __m256i m0 = _mm256_set1_epi64x(LATMC_PHILOX_M0);
    const __m256i m1 = _mm256_set1_epi64x(LATMC_PHILOX_M1);
    __m256i c0[N], c1[N], c2[N], c3[N];
#pragma GCC unroll 4
    for (int i = 0; i < N; i++) {
        /* rounds 0 and 1 */
        const __m256i p1_1 = _mm256_mul_epu32(_mm256_xor_si256(pre[i]->v, w3), m1);
        const __m256i c0_1 = _mm256_xor_si256(_mm256_srli_epi64(p1_1, 32), pre[i]->b);
        /* round 2 */
        const __m256i p0_2 = _mm256_mul_epu32(c0_1, m0);
        c0[i] = _mm256_xor_si256(p1_1, pre[i]->f);
        c2[i] = _mm256_xor_si256(_mm256_srli_epi64(p0_2, 32), pre[i]->g);
        c3[i] = p0_2;
    }
#pragma GCC unroll 4
    for (int i = 0; i < N; i++) {
        /* round 3 */
        const __m256i p0_3 = _mm256_mul_epu32(c0[i], m0), p1_3 = _mm256_mul_epu32(c2[i], m1);
        c0[i] = _mm256_xor_si256(_mm256_srli_epi64(p1_3, 32), pre[i]->h);
        c1[i] = p1_3;
        c2[i] = _mm256_xor_si256(_mm256_srli_epi64(p0_3, 32), _mm256_xor_si256(c3[i], k->k1[3]));
        c3[i] = p0_3;
    }
#pragma GCC unroll 5
    for (int r = 4; r < 9; r++) {
#pragma GCC unroll 4
        for (int i = 0; i < N; i++)
            LATMC_PHILOX_X4_ROUND(k, r, c0[i], c1[i], c2[i], c3[i]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < N; i++) {
        /* round 9 and latmc_philox_x4_pack at once: a product with its 32-bit halves
         * swapped holds (hi, lo) = (word 0 or 2 before its xors, word 1 or 3), and the
         * xors go to the low halves only (4 instructions per pair of words, not 5) */
        const __m256i p0 = _mm256_mul_epu32(c0[i], m0), p1 = _mm256_mul_epu32(c2[i], m1);
        const __m256i s0 = _mm256_shuffle_epi32(p0, _MM_SHUFFLE(2, 3, 0, 1));
        const __m256i s1 = _mm256_shuffle_epi32(p1, _MM_SHUFFLE(2, 3, 0, 1));
        out01[i] = _mm256_blend_epi32(
            s1, _mm256_xor_si256(s1, _mm256_xor_si256(c1[i], k->k0[9])), 0x55);
        out23[i] = _mm256_blend_epi32(
            s0, _mm256_xor_si256(s0, _mm256_xor_si256(c3[i], k->k1[9])), 0x55);
    }
}

#endif
