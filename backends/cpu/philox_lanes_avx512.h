/*
 * Philox4x32-10 (lib/philox.h) on eight counters at once with AVX-512 (F), for the phi^4
 * and Heisenberg SIMD kernels: philox_lanes_tmpl.h over this level's primitives (eight
 * 64-bit lanes per __m512i, one block per lane; each round's three-way xors hi(p) ^ c ^ k
 * one vpternlogq). Include only from translation units built with -mavx512f.
 */
#ifndef LATMC_CPU_PHILOX_LANES_AVX512_H
#define LATMC_CPU_PHILOX_LANES_AVX512_H

#include <immintrin.h>
#include <stdint.h>

#include "philox_fold.h"

/* Sets of eight blocks latmc_philox_x8_finish_sets interleaves. */
#define LATMC_PHILOX_X8_NSETS 4

/* vpternlog truth table of a ^ b ^ c */
#define LATMC_XOR3_ 0x96

/*
 * Round 9 and the pack at once: a product with its 32-bit halves swapped (vpshufd) holds
 * (hi, lo) = (word 0 or 2 before its xors, word 1 or 3), and the round's three-way xor is
 * one vpternlogd on the low halves only (a mask register), so a pair of words costs a
 * multiply, a shuffle and one ternlog: 6 instructions per set of eight blocks, not 10
 * (round 9's six and the pack's two shifts and two blends).
 */
static inline __attribute__((always_inline)) void latmc_philox_x8_last_(const __m512i *k0_9,
                                                                       const __m512i *k1_9,
                                                                       __m512i c0, __m512i c1,
                                                                       __m512i c2, __m512i c3,
                                                                       __m512i *out01,
                                                                       __m512i *out23)
{
    const __m512i p0 = _mm512_mul_epu32(c0, _mm512_set1_epi64(LATMC_PHILOX_M0));
    const __m512i p1 = _mm512_mul_epu32(c2, _mm512_set1_epi64(LATMC_PHILOX_M1));
    const __m512i s0 = _mm512_shuffle_epi32(p0, _MM_PERM_CDAB);
    const __m512i s1 = _mm512_shuffle_epi32(p1, _MM_PERM_CDAB);
    *out01 = _mm512_mask_ternarylogic_epi32(s1, 0x5555, c1, *k0_9, LATMC_XOR3_);
    *out23 = _mm512_mask_ternarylogic_epi32(s0, 0x5555, c3, *k1_9, LATMC_XOR3_);
}

#define PL_FN(name) latmc_philox_x8_##name
#define PL_FULL latmc_philox_x8
#define PL_V __m512i
#define PL_SET1_64(x) _mm512_set1_epi64(x)
#define PL_MUL(a, b) _mm512_mul_epu32(a, b)
#define PL_SRLI_32(a) _mm512_srli_epi64(a, 32)
#define PL_SLLI_32(a) _mm512_slli_epi64(a, 32)
#define PL_AND(a, b) _mm512_and_si512(a, b)
#define PL_OR(a, b) _mm512_or_si512(a, b)
#define PL_XOR(a, b) _mm512_xor_si512(a, b)
#define PL_XOR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, LATMC_XOR3_)
#define PL_BLEND_ODD32(a, b) _mm512_mask_blend_epi32(0xaaaa, a, b)
#define PL_NSETS LATMC_PHILOX_X8_NSETS
#define PL_LOOP_END 9
#define PL_LAST(k, c0, c1, c2, c3, out01, out23)                                                   \
    latmc_philox_x8_last_(&(k)->k0[9], &(k)->k1[9], c0, c1, c2, c3, out01, out23)
#include "philox_lanes_tmpl.h"

/* One Philox round on eight blocks (keys of round r). */
#define LATMC_PHILOX_X8_ROUND(K, r, c0, c1, c2, c3)                                                \
    latmc_philox_x8_round((K), (r), &(c0), &(c1), &(c2), &(c3))

#endif
