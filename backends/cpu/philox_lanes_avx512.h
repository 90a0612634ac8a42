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
#define LATMC_PHILOX_X8_NSETS 2

/* vpternlog truth table of a ^ b ^ c */
#define LATMC_XOR3_ 0x96

#define PL_FN(name) latmc_philox_x8_##name
#define PL_FULL latmc_philox_x8
#define PL_V __m512i
#define PL_SET1_64(x) _mm512_set1_epi64(x)
#define PL_MUL(a, b) _mm512_mul_epu32(a, b)
#define PL_SRLI_32(a) _mm512_srli_epi64(a, 32)
#define PL_SLLI_32(a) _mm512_slli_epi64(a, 32)
#define PL_XOR(a, b) _mm512_xor_si512(a, b)
#define PL_XOR3(a, b, c) _mm512_ternarylogic_epi64(a, b, c, LATMC_XOR3_)
#define PL_BLEND_ODD32(a, b) _mm512_mask_blend_epi32(0xaaaa, a, b)
#define PL_NSETS LATMC_PHILOX_X8_NSETS
#define PL_LOOP_END 10
#define PL_LAST(k, c0, c1, c2, c3, out01, out23) latmc_philox_x8_pack(c0, c1, c2, c3, out01, out23)
#include "philox_lanes_tmpl.h"

/* One Philox round on eight blocks (keys of round r). */
#define LATMC_PHILOX_X8_ROUND(K, r, c0, c1, c2, c3)                                                \
    latmc_philox_x8_round((K), (r), &(c0), &(c1), &(c2), &(c3))

#endif
