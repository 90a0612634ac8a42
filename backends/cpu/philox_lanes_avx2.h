/*
 * Philox4x32-10 (lib/philox.h) on four counters at once with AVX2, for the phi^4 and
 * Heisenberg SIMD kernels and the coupling fill: philox_lanes_tmpl.h over this level's
 * primitives (four 64-bit lanes per __m256i, one block per lane; a three-way xor is two
 * vpxor). Include only from translation units built with -mavx2.
 */
#ifndef LATMC_CPU_PHILOX_LANES_AVX2_H
#define LATMC_CPU_PHILOX_LANES_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "philox_fold.h"

/*
 * Sets of four blocks latmc_philox_x4_finish_sets interleaves. Four (16 of the 16 ymm
 * registers in the rounds, a few spills): phi^4 3D 128^3 float nhit 8 on the EPYC 2 (Zen
 * 3), 1 thread, 4 % less CPU time per hit than two sets; eight spill heavily (15 % more).
 */
#define LATMC_PHILOX_X4_NSETS 4

/*
 * Round 9 and latmc_philox_x4_pack at once: a product with its 32-bit halves swapped holds
 * (hi, lo) = (word 0 or 2 before its xors, word 1 or 3), and the xors go to the low halves
 * only (4 instructions per pair of words, not 5).
 */
static inline __attribute__((always_inline)) void latmc_philox_x4_last_(const __m256i *k0_9,
                                                                       const __m256i *k1_9,
                                                                       __m256i c0, __m256i c1,
                                                                       __m256i c2, __m256i c3,
                                                                       __m256i *out01,
                                                                       __m256i *out23)
{
    const __m256i p0 = _mm256_mul_epu32(c0, _mm256_set1_epi64x(LATMC_PHILOX_M0));
    const __m256i p1 = _mm256_mul_epu32(c2, _mm256_set1_epi64x(LATMC_PHILOX_M1));
    const __m256i s0 = _mm256_shuffle_epi32(p0, _MM_SHUFFLE(2, 3, 0, 1));
    const __m256i s1 = _mm256_shuffle_epi32(p1, _MM_SHUFFLE(2, 3, 0, 1));
    *out01 = _mm256_blend_epi32(s1, _mm256_xor_si256(s1, _mm256_xor_si256(c1, *k0_9)), 0x55);
    *out23 = _mm256_blend_epi32(s0, _mm256_xor_si256(s0, _mm256_xor_si256(c3, *k1_9)), 0x55);
}

#define PL_FN(name) latmc_philox_x4_##name
#define PL_FULL latmc_philox_x4
#define PL_V __m256i
#define PL_SET1_64(x) _mm256_set1_epi64x(x)
#define PL_MUL(a, b) _mm256_mul_epu32(a, b)
#define PL_SRLI_32(a) _mm256_srli_epi64(a, 32)
#define PL_SLLI_32(a) _mm256_slli_epi64(a, 32)
#define PL_AND(a, b) _mm256_and_si256(a, b)
#define PL_OR(a, b) _mm256_or_si256(a, b)
#define PL_XOR(a, b) _mm256_xor_si256(a, b)
#define PL_XOR3(a, b, c) _mm256_xor_si256(a, _mm256_xor_si256(b, c))
#define PL_BLEND_ODD32(a, b) _mm256_blend_epi32(a, b, 0xaa)
#define PL_NSETS LATMC_PHILOX_X4_NSETS
#define PL_LOOP_END 9
#define PL_LAST(k, c0, c1, c2, c3, out01, out23)                                                   \
    latmc_philox_x4_last_(&(k)->k0[9], &(k)->k1[9], c0, c1, c2, c3, out01, out23)
#include "philox_lanes_tmpl.h"

/* One Philox round on four blocks (keys of round r). */
#define LATMC_PHILOX_X4_ROUND(K, r, c0, c1, c2, c3)                                                \
    latmc_philox_x4_round((K), (r), &(c0), &(c1), &(c2), &(c3))

#endif
