/*
 * The shared transcendental functions of lib/latmc_math.h, lane by lane with AVX-512 (F,
 * DQ) (latmc_logf_avx512_n, latmc_log_avx512_n, latmc_exp_kernel_avx512,
 * latmc_sincos_2pi_avx512): math_simd_tmpl.h over this level's primitives, the same
 * rounded operations as the scalar originals and as math_avx2.h (the halving of m > sqrt 2
 * and the quadrant's swap through mask registers), so bit-identical to them. Include only
 * where -mavx512f -mavx512dq are on.
 */
#ifndef LATMC_CPU_MATH_AVX512_H
#define LATMC_CPU_MATH_AVX512_H

#include <immintrin.h>

#include "latmc_math.h"

/* Logarithms per call, interleaved step by step (independent dependency chains). */
#define LATMC_LOG_AVX512_N 2

#define LATMC_MATH_ISA avx512
#define LATMC_MATH_LOG_N LATMC_LOG_AVX512_N
#define MV_F __m512
#define MV_D __m512d
#define MV_I __m512i
#define MV_SET1_F(x) _mm512_set1_ps(x)
#define MV_ADD_F(a, b) _mm512_add_ps(a, b)
#define MV_SUB_F(a, b) _mm512_sub_ps(a, b)
#define MV_MUL_F(a, b) _mm512_mul_ps(a, b)
#define MV_DIV_F(a, b) _mm512_div_ps(a, b)
#define MV_CVT_I32_F(a) _mm512_cvtepi32_ps(a)
#define MV_SET1_D(x) _mm512_set1_pd(x)
#define MV_ADD_D(a, b) _mm512_add_pd(a, b)
#define MV_SUB_D(a, b) _mm512_sub_pd(a, b)
#define MV_MUL_D(a, b) _mm512_mul_pd(a, b)
#define MV_DIV_D(a, b) _mm512_div_pd(a, b)
#define MV_XOR_D(a, b) _mm512_xor_pd(a, b)
#define MV_SET1_32_I(x) _mm512_set1_epi32(x)
#define MV_SET1_64_I(x) _mm512_set1_epi64(x)
#define MV_SUB32_I(a, b) _mm512_sub_epi32(a, b)
#define MV_ADD64_I(a, b) _mm512_add_epi64(a, b)
#define MV_AND_I(a, b) _mm512_and_si512(a, b)
#define MV_OR_I(a, b) _mm512_or_si512(a, b)
#define MV_SRLI32_I(a, n) _mm512_srli_epi32(a, n)
#define MV_SRLI64_I(a, n) _mm512_srli_epi64(a, n)
#define MV_SLLI64_I(a, n) _mm512_slli_epi64(a, n)
#define MV_CAST_F_I(a) _mm512_castps_si512(a)
#define MV_CAST_I_F(a) _mm512_castsi512_ps(a)
#define MV_CAST_D_I(a) _mm512_castpd_si512(a)
#define MV_CAST_I_D(a) _mm512_castsi512_pd(a)
/* where m > sqrt(2) (a mask): subtract the exponent's unit there, add 1 to e */
#define MV_HALVE_BIG_F(mb, e)                                                                      \
    do {                                                                                           \
        const __mmask16 big_ =                                                                     \
            _mm512_cmpgt_epi32_mask(mb, _mm512_set1_epi32((int)LATMC_MATH_SQRT2_BITS_F));          \
        (mb) = _mm512_mask_sub_epi32(mb, big_, mb, _mm512_set1_epi32(0x00800000));                 \
        (e) = _mm512_mask_add_epi32(e, big_, e, _mm512_set1_epi32(1));                             \
    } while (0)
/* math_avx2.h adds 1.0 where big and 0.0 elsewhere; k + 0.0 is k (k is never -0) */
#define MV_HALVE_BIG_D(mb, k)                                                                      \
    do {                                                                                           \
        const __mmask8 big_ =                                                                      \
            _mm512_cmpgt_epi64_mask(mb, _mm512_set1_epi64((long long)LATMC_MATH_SQRT2_BITS));      \
        (mb) = _mm512_mask_sub_epi64(mb, big_, mb, _mm512_set1_epi64(0x0010000000000000LL));       \
        (k) = _mm512_mask_add_pd(k, big_, k, _mm512_set1_pd(1.0));                                 \
    } while (0)
#define MV_CLAMP_BELOW_D(x, lim) _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, lim, _CMP_LT_OQ), x, lim)
#define MV_M __mmask8
#define MV_ODD_QUADRANT(quad, one) _mm512_cmpeq_epi64_mask(_mm512_and_si512(quad, one), one)
#define MV_SELECT_D(m, a, b) _mm512_mask_blend_pd(m, a, b)
#include "math_simd_tmpl.h"

#endif
