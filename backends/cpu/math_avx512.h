/*
 * The shared logarithms of lib/latmc_math.h, lane by lane with AVX-512 (F, DQ): the same
 * rounded operations as the scalar originals and as math_avx2.h, in the same order (the
 * exact steps -- exponent extraction, the halving of m > sqrt 2 -- by other exact means:
 * here masked integer operations), so the results are bit-identical to the scalar ones.
 * Any change there must be made here too. Include only where -mavx512f -mavx512dq are on.
 */
#ifndef LATMC_CPU_MATH_AVX512_H
#define LATMC_CPU_MATH_AVX512_H

#include <immintrin.h>

#include "latmc_math.h"

/* Logarithms per call, interleaved step by step (independent dependency chains). */
#define LATMC_LOG_AVX512_N 2
#define LATMC_LOG512_EACH_ _Pragma("GCC unroll 4") for (int i_ = 0; i_ < LATMC_LOG_AVX512_N; i_++)

/* latmc_math_logf on LATMC_LOG_AVX512_N vectors of 16 positive normal floats. */
static inline __attribute__((always_inline)) void latmc_logf_avx512_n(
    const __m512 x[LATMC_LOG_AVX512_N], __m512 out[LATMC_LOG_AVX512_N])
{
    __m512i e[LATMC_LOG_AVX512_N], mb[LATMC_LOG_AVX512_N];
    __m512 f[LATMC_LOG_AVX512_N], s[LATMC_LOG_AVX512_N], z[LATMC_LOG_AVX512_N];
    __m512 r[LATMC_LOG_AVX512_N];
    LATMC_LOG512_EACH_
    {
        const __m512i b = _mm512_castps_si512(x[i_]);
        e[i_] = _mm512_sub_epi32(_mm512_srli_epi32(b, 23), _mm512_set1_epi32(127));
        mb[i_] = _mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi32(0x007fffff)),
                                 _mm512_set1_epi32(0x3f800000));
    }
    LATMC_LOG512_EACH_
    {
        /* m > sqrt(2): halve m, raise e */
        const __mmask16 big =
            _mm512_cmpgt_epi32_mask(mb[i_], _mm512_set1_epi32((int)LATMC_MATH_SQRT2_BITS_F));
        mb[i_] = _mm512_mask_sub_epi32(mb[i_], big, mb[i_], _mm512_set1_epi32(0x00800000));
        e[i_] = _mm512_mask_add_epi32(e[i_], big, e[i_], _mm512_set1_epi32(1));
        f[i_] = _mm512_sub_ps(_mm512_castsi512_ps(mb[i_]), _mm512_set1_ps(1.0f));
    }
    LATMC_LOG512_EACH_ s[i_] = _mm512_div_ps(f[i_], _mm512_add_ps(_mm512_set1_ps(2.0f), f[i_]));
    LATMC_LOG512_EACH_ z[i_] = _mm512_mul_ps(s[i_], s[i_]);
    LATMC_LOG512_EACH_ r[i_] = _mm512_mul_ps(z[i_], _mm512_set1_ps(LATMC_MATH_LOG_C4_F));
    LATMC_LOG512_EACH_ r[i_] =
        _mm512_mul_ps(z[i_], _mm512_add_ps(_mm512_set1_ps(LATMC_MATH_LOG_C3_F), r[i_]));
    LATMC_LOG512_EACH_ r[i_] =
        _mm512_mul_ps(z[i_], _mm512_add_ps(_mm512_set1_ps(LATMC_MATH_LOG_C2_F), r[i_]));
    LATMC_LOG512_EACH_ r[i_] =
        _mm512_mul_ps(z[i_], _mm512_add_ps(_mm512_set1_ps(LATMC_MATH_LOG_C1_F), r[i_]));
    LATMC_LOG512_EACH_
    {
        const __m512 k = _mm512_cvtepi32_ps(e[i_]);
        const __m512 t = _mm512_sub_ps(_mm512_mul_ps(s[i_], _mm512_sub_ps(f[i_], r[i_])),
                                       _mm512_mul_ps(k, _mm512_set1_ps(LATMC_MATH_LN2_LO_F)));
        out[i_] = _mm512_add_ps(_mm512_mul_ps(k, _mm512_set1_ps(LATMC_MATH_LN2_HI_F)),
                                _mm512_sub_ps(f[i_], t));
    }
}

/* latmc_math_log on LATMC_LOG_AVX512_N vectors of 8 positive normal doubles. */
static inline __attribute__((always_inline)) void latmc_log_avx512_n(
    const __m512d x[LATMC_LOG_AVX512_N], __m512d out[LATMC_LOG_AVX512_N])
{
    __m512d k[LATMC_LOG_AVX512_N], f[LATMC_LOG_AVX512_N], s[LATMC_LOG_AVX512_N];
    __m512d z[LATMC_LOG_AVX512_N], r[LATMC_LOG_AVX512_N];
    LATMC_LOG512_EACH_
    {
        const __m512i b = _mm512_castpd_si512(x[i_]);
        /* e + 1023 as a double: the 11 exponent bits under the exponent of 2^52 */
        const __m512i magic = _mm512_set1_epi64(0x4330000000000000LL);
        k[i_] = _mm512_sub_pd(_mm512_castsi512_pd(_mm512_or_si512(_mm512_srli_epi64(b, 52), magic)),
                              _mm512_set1_pd(0x1p52 + 1023.0));
        __m512i mb = _mm512_or_si512(_mm512_and_si512(b, _mm512_set1_epi64(0x000fffffffffffffLL)),
                                     _mm512_set1_epi64(0x3ff0000000000000LL));
        const __mmask8 big =
            _mm512_cmpgt_epi64_mask(mb, _mm512_set1_epi64((long long)LATMC_MATH_SQRT2_BITS));
        mb = _mm512_mask_sub_epi64(mb, big, mb, _mm512_set1_epi64(0x0010000000000000LL));
        /* math_avx2.h adds 1.0 where big and 0.0 elsewhere; k + 0.0 is k (k is never -0) */
        k[i_] = _mm512_mask_add_pd(k[i_], big, k[i_], _mm512_set1_pd(1.0));
        f[i_] = _mm512_sub_pd(_mm512_castsi512_pd(mb), _mm512_set1_pd(1.0));
    }
    LATMC_LOG512_EACH_ s[i_] = _mm512_div_pd(f[i_], _mm512_add_pd(_mm512_set1_pd(2.0), f[i_]));
    LATMC_LOG512_EACH_ z[i_] = _mm512_mul_pd(s[i_], s[i_]);
    LATMC_LOG512_EACH_ r[i_] = _mm512_mul_pd(z[i_], _mm512_set1_pd(LATMC_MATH_LOG_C9));
#define LATMC_LOG512_STEP_(C)                                                                      \
    LATMC_LOG512_EACH_ r[i_] = _mm512_mul_pd(z[i_], _mm512_add_pd(_mm512_set1_pd(C), r[i_]))
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C8);
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C7);
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C6);
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C5);
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C4);
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C3);
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C2);
    LATMC_LOG512_STEP_(LATMC_MATH_LOG_C1);
#undef LATMC_LOG512_STEP_
    LATMC_LOG512_EACH_
    {
        const __m512d t = _mm512_sub_pd(_mm512_mul_pd(s[i_], _mm512_sub_pd(f[i_], r[i_])),
                                        _mm512_mul_pd(k[i_], _mm512_set1_pd(LATMC_MATH_LN2_LO)));
        out[i_] = _mm512_add_pd(_mm512_mul_pd(k[i_], _mm512_set1_pd(LATMC_MATH_LN2_HI)),
                                _mm512_sub_pd(f[i_], t));
    }
}

#endif
