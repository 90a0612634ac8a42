/*
 * The shared transcendental functions of lib/latmc_math.h, lane by lane with AVX2
 * (latmc_logf_avx2_n, latmc_log_avx2_n, latmc_exp_kernel_avx2, latmc_sincos_2pi_avx2):
 * math_simd_tmpl.h over this level's primitives, bit-identical to the scalar originals.
 * Include only from translation units built with -mavx2.
 */
#ifndef LATMC_CPU_MATH_AVX2_H
#define LATMC_CPU_MATH_AVX2_H

#include <immintrin.h>

#include "latmc_math.h"

/* Logarithms per call, interleaved step by step (independent dependency chains). */
#define LATMC_LOG_AVX2_N 2

#define LATMC_MATH_ISA avx2
#define LATMC_MATH_LOG_N LATMC_LOG_AVX2_N
#define MV_F __m256
#define MV_D __m256d
#define MV_I __m256i
#define MV_SET1_F(x) _mm256_set1_ps(x)
#define MV_ADD_F(a, b) _mm256_add_ps(a, b)
#define MV_SUB_F(a, b) _mm256_sub_ps(a, b)
#define MV_MUL_F(a, b) _mm256_mul_ps(a, b)
#define MV_DIV_F(a, b) _mm256_div_ps(a, b)
#define MV_CVT_I32_F(a) _mm256_cvtepi32_ps(a)
#define MV_SET1_D(x) _mm256_set1_pd(x)
#define MV_ADD_D(a, b) _mm256_add_pd(a, b)
#define MV_SUB_D(a, b) _mm256_sub_pd(a, b)
#define MV_MUL_D(a, b) _mm256_mul_pd(a, b)
#define MV_DIV_D(a, b) _mm256_div_pd(a, b)
#define MV_XOR_D(a, b) _mm256_xor_pd(a, b)
#define MV_SET1_32_I(x) _mm256_set1_epi32(x)
#define MV_SET1_64_I(x) _mm256_set1_epi64x(x)
#define MV_SUB32_I(a, b) _mm256_sub_epi32(a, b)
#define MV_ADD64_I(a, b) _mm256_add_epi64(a, b)
#define MV_AND_I(a, b) _mm256_and_si256(a, b)
#define MV_OR_I(a, b) _mm256_or_si256(a, b)
#define MV_SRLI32_I(a, n) _mm256_srli_epi32(a, n)
#define MV_SRLI64_I(a, n) _mm256_srli_epi64(a, n)
#define MV_SLLI64_I(a, n) _mm256_slli_epi64(a, n)
#define MV_CAST_F_I(a) _mm256_castps_si256(a)
#define MV_CAST_I_F(a) _mm256_castsi256_ps(a)
#define MV_CAST_D_I(a) _mm256_castpd_si256(a)
#define MV_CAST_I_D(a) _mm256_castsi256_pd(a)
/* big is -1 in the lanes where m > sqrt(2): subtract the exponent's unit there, and big */
#define MV_HALVE_BIG_F(mb, e)                                                                      \
    do {                                                                                           \
        const __m256i big_ =                                                                       \
            _mm256_cmpgt_epi32(mb, _mm256_set1_epi32((int)LATMC_MATH_SQRT2_BITS_F));               \
        (mb) = _mm256_sub_epi32(mb, _mm256_and_si256(big_, _mm256_set1_epi32(0x00800000)));        \
        (e) = _mm256_sub_epi32(e, big_);                                                           \
    } while (0)
#define MV_HALVE_BIG_D(mb, k)                                                                      \
    do {                                                                                           \
        const __m256i big_ =                                                                       \
            _mm256_cmpgt_epi64(mb, _mm256_set1_epi64x((long long)LATMC_MATH_SQRT2_BITS));         \
        (mb) = _mm256_sub_epi64(mb, _mm256_and_si256(big_,                                         \
                                                     _mm256_set1_epi64x(0x0010000000000000LL)));   \
        (k) = _mm256_add_pd(k, _mm256_and_pd(_mm256_castsi256_pd(big_), _mm256_set1_pd(1.0)));     \
    } while (0)
#define MV_CLAMP_BELOW_D(x, lim) _mm256_blendv_pd(x, lim, _mm256_cmp_pd(x, lim, _CMP_LT_OQ))
#define MV_M __m256d /* all-ones lanes */
#define MV_ODD_QUADRANT(quad, one)                                                                 \
    _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(quad, one), one))
#define MV_SELECT_D(m, a, b) _mm256_blendv_pd(a, b, m)
#include "math_simd_tmpl.h"

#endif
