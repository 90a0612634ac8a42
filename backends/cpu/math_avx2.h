/*
 * The shared transcendental functions of lib/latmc_math.h, lane by lane with AVX2: each
 * function performs, in every lane, exactly the rounded operations of its scalar original
 * in the same order (the exact steps -- exponent extraction, power-of-two scaling, integer
 * conversions -- by other exact means), so the results are bit-identical to the scalar
 * ones. Any change here or there must be made in both; the kernels test suite compares
 * whole Markov chains. Include only from translation units built with -mavx2.
 */
#ifndef LATMC_CPU_MATH_AVX2_H
#define LATMC_CPU_MATH_AVX2_H

#include <immintrin.h>

#include "latmc_math.h"

/*
 * latmc_math_logf on LATMC_LOG_AVX2_N vectors of 8 positive normal floats at once, step by
 * step, so that the instruction stream interleaves independent dependency chains (a
 * logarithm is ~50 cycles of serial latency: division, then the series).
 */
#define LATMC_LOG_AVX2_N 2
#define LATMC_LOG_EACH_ _Pragma("GCC unroll 4") for (int i_ = 0; i_ < LATMC_LOG_AVX2_N; i_++)

static inline __attribute__((always_inline)) void
latmc_logf_avx2_n(const __m256 x[LATMC_LOG_AVX2_N], __m256 out[LATMC_LOG_AVX2_N])
{
    __m256i e[LATMC_LOG_AVX2_N], mb[LATMC_LOG_AVX2_N];
    __m256 f[LATMC_LOG_AVX2_N], s[LATMC_LOG_AVX2_N], z[LATMC_LOG_AVX2_N], r[LATMC_LOG_AVX2_N];
    LATMC_LOG_EACH_ {
        const __m256i b = _mm256_castps_si256(x[i_]);
        e[i_] = _mm256_sub_epi32(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(127));
        mb[i_] = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)),
                                 _mm256_set1_epi32(0x3f800000));
    }
    LATMC_LOG_EACH_ {
        /* m > sqrt(2): halve m, raise e (big is -1 in those lanes) */
        const __m256i big = _mm256_cmpgt_epi32(mb[i_], _mm256_set1_epi32((int)LATMC_MATH_SQRT2_BITS_F));
        mb[i_] = _mm256_sub_epi32(mb[i_], _mm256_and_si256(big, _mm256_set1_epi32(0x00800000)));
        e[i_] = _mm256_sub_epi32(e[i_], big);
        f[i_] = _mm256_sub_ps(_mm256_castsi256_ps(mb[i_]), _mm256_set1_ps(1.0f));
    }
    LATMC_LOG_EACH_ s[i_] = _mm256_div_ps(f[i_], _mm256_add_ps(_mm256_set1_ps(2.0f), f[i_]));
    LATMC_LOG_EACH_ z[i_] = _mm256_mul_ps(s[i_], s[i_]);
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_ps(z[i_], _mm256_set1_ps(LATMC_MATH_LOG_C4_F));
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_ps(z[i_], _mm256_add_ps(_mm256_set1_ps(LATMC_MATH_LOG_C3_F), r[i_]));
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_ps(z[i_], _mm256_add_ps(_mm256_set1_ps(LATMC_MATH_LOG_C2_F), r[i_]));
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_ps(z[i_], _mm256_add_ps(_mm256_set1_ps(LATMC_MATH_LOG_C1_F), r[i_]));
    LATMC_LOG_EACH_ {
        const __m256 k = _mm256_cvtepi32_ps(e[i_]);
        const __m256 t = _mm256_sub_ps(_mm256_mul_ps(s[i_], _mm256_sub_ps(f[i_], r[i_])),
                                       _mm256_mul_ps(k, _mm256_set1_ps(LATMC_MATH_LN2_LO_F)));
        out[i_] = _mm256_add_ps(_mm256_mul_ps(k, _mm256_set1_ps(LATMC_MATH_LN2_HI_F)),
                                _mm256_sub_ps(f[i_], t));
    }
}

/* latmc_math_log on LATMC_LOG_AVX2_N vectors of 4 positive normal doubles at once. */
static inline __attribute__((always_inline)) void
latmc_log_avx2_n(const __m256d x[LATMC_LOG_AVX2_N], __m256d out[LATMC_LOG_AVX2_N])
{
    __m256d k[LATMC_LOG_AVX2_N], f[LATMC_LOG_AVX2_N], s[LATMC_LOG_AVX2_N], z[LATMC_LOG_AVX2_N];
    __m256d r[LATMC_LOG_AVX2_N];
    LATMC_LOG_EACH_ {
        const __m256i b = _mm256_castpd_si256(x[i_]);
        /* e + 1023 as a double: the 11 exponent bits under the exponent of 2^52 */
        const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
        k[i_] = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(b, 52), magic)),
                              _mm256_set1_pd(0x1p52 + 1023.0));
        __m256i mb = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi64x(0x000fffffffffffffLL)),
                                     _mm256_set1_epi64x(0x3ff0000000000000LL));
        const __m256i big = _mm256_cmpgt_epi64(mb, _mm256_set1_epi64x((long long)LATMC_MATH_SQRT2_BITS));
        mb = _mm256_sub_epi64(mb, _mm256_and_si256(big, _mm256_set1_epi64x(0x0010000000000000LL)));
        k[i_] = _mm256_add_pd(k[i_], _mm256_and_pd(_mm256_castsi256_pd(big), _mm256_set1_pd(1.0)));
        f[i_] = _mm256_sub_pd(_mm256_castsi256_pd(mb), _mm256_set1_pd(1.0));
    }
    LATMC_LOG_EACH_ s[i_] = _mm256_div_pd(f[i_], _mm256_add_pd(_mm256_set1_pd(2.0), f[i_]));
    LATMC_LOG_EACH_ z[i_] = _mm256_mul_pd(s[i_], s[i_]);
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_pd(z[i_], _mm256_set1_pd(LATMC_MATH_LOG_C9));
#define LATMC_LOG_STEP_(C) \
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_pd(z[i_], _mm256_add_pd(_mm256_set1_pd(C), r[i_]))
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C8);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C7);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C6);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C5);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C4);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C3);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C2);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C1);
#undef LATMC_LOG_STEP_
    LATMC_LOG_EACH_ {
        const __m256d t = _mm256_sub_pd(_mm256_mul_pd(s[i_], _mm256_sub_pd(f[i_], r[i_])),
                                        _mm256_mul_pd(k[i_], _mm256_set1_pd(LATMC_MATH_LN2_LO)));
        out[i_] = _mm256_add_pd(_mm256_mul_pd(k[i_], _mm256_set1_pd(LATMC_MATH_LN2_HI)),
                                _mm256_sub_pd(f[i_], t));
    }
}

#endif
