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

static inline __attribute__((always_inline)) void latmc_logf_avx2_n(
    const __m256 x[LATMC_LOG_AVX2_N], __m256 out[LATMC_LOG_AVX2_N])
{
    __m256i e[LATMC_LOG_AVX2_N], mb[LATMC_LOG_AVX2_N];
    __m256 f[LATMC_LOG_AVX2_N], s[LATMC_LOG_AVX2_N], z[LATMC_LOG_AVX2_N], r[LATMC_LOG_AVX2_N];
    LATMC_LOG_EACH_
    {
        const __m256i b = _mm256_castps_si256(x[i_]);
        e[i_] = _mm256_sub_epi32(_mm256_srli_epi32(b, 23), _mm256_set1_epi32(127));
        mb[i_] = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)),
                                 _mm256_set1_epi32(0x3f800000));
    }
    LATMC_LOG_EACH_
    {
        /* m > sqrt(2): halve m, raise e (big is -1 in those lanes) */
        const __m256i big =
            _mm256_cmpgt_epi32(mb[i_], _mm256_set1_epi32((int)LATMC_MATH_SQRT2_BITS_F));
        mb[i_] = _mm256_sub_epi32(mb[i_], _mm256_and_si256(big, _mm256_set1_epi32(0x00800000)));
        e[i_] = _mm256_sub_epi32(e[i_], big);
        f[i_] = _mm256_sub_ps(_mm256_castsi256_ps(mb[i_]), _mm256_set1_ps(1.0f));
    }
    LATMC_LOG_EACH_ s[i_] = _mm256_div_ps(f[i_], _mm256_add_ps(_mm256_set1_ps(2.0f), f[i_]));
    LATMC_LOG_EACH_ z[i_] = _mm256_mul_ps(s[i_], s[i_]);
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_ps(z[i_], _mm256_set1_ps(LATMC_MATH_LOG_C4_F));
    LATMC_LOG_EACH_ r[i_] =
        _mm256_mul_ps(z[i_], _mm256_add_ps(_mm256_set1_ps(LATMC_MATH_LOG_C3_F), r[i_]));
    LATMC_LOG_EACH_ r[i_] =
        _mm256_mul_ps(z[i_], _mm256_add_ps(_mm256_set1_ps(LATMC_MATH_LOG_C2_F), r[i_]));
    LATMC_LOG_EACH_ r[i_] =
        _mm256_mul_ps(z[i_], _mm256_add_ps(_mm256_set1_ps(LATMC_MATH_LOG_C1_F), r[i_]));
    LATMC_LOG_EACH_
    {
        const __m256 k = _mm256_cvtepi32_ps(e[i_]);
        const __m256 t = _mm256_sub_ps(_mm256_mul_ps(s[i_], _mm256_sub_ps(f[i_], r[i_])),
                                       _mm256_mul_ps(k, _mm256_set1_ps(LATMC_MATH_LN2_LO_F)));
        out[i_] = _mm256_add_ps(_mm256_mul_ps(k, _mm256_set1_ps(LATMC_MATH_LN2_HI_F)),
                                _mm256_sub_ps(f[i_], t));
    }
}

/* latmc_math_log on LATMC_LOG_AVX2_N vectors of 4 positive normal doubles at once. */
static inline __attribute__((always_inline)) void latmc_log_avx2_n(
    const __m256d x[LATMC_LOG_AVX2_N], __m256d out[LATMC_LOG_AVX2_N])
{
    __m256d k[LATMC_LOG_AVX2_N], f[LATMC_LOG_AVX2_N], s[LATMC_LOG_AVX2_N], z[LATMC_LOG_AVX2_N];
    __m256d r[LATMC_LOG_AVX2_N];
    LATMC_LOG_EACH_
    {
        const __m256i b = _mm256_castpd_si256(x[i_]);
        /* e + 1023 as a double: the 11 exponent bits under the exponent of 2^52 */
        const __m256i magic = _mm256_set1_epi64x(0x4330000000000000LL);
        k[i_] = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(_mm256_srli_epi64(b, 52), magic)),
                              _mm256_set1_pd(0x1p52 + 1023.0));
        __m256i mb = _mm256_or_si256(_mm256_and_si256(b, _mm256_set1_epi64x(0x000fffffffffffffLL)),
                                     _mm256_set1_epi64x(0x3ff0000000000000LL));
        const __m256i big =
            _mm256_cmpgt_epi64(mb, _mm256_set1_epi64x((long long)LATMC_MATH_SQRT2_BITS));
        mb = _mm256_sub_epi64(mb, _mm256_and_si256(big, _mm256_set1_epi64x(0x0010000000000000LL)));
        k[i_] = _mm256_add_pd(k[i_], _mm256_and_pd(_mm256_castsi256_pd(big), _mm256_set1_pd(1.0)));
        f[i_] = _mm256_sub_pd(_mm256_castsi256_pd(mb), _mm256_set1_pd(1.0));
    }
    LATMC_LOG_EACH_ s[i_] = _mm256_div_pd(f[i_], _mm256_add_pd(_mm256_set1_pd(2.0), f[i_]));
    LATMC_LOG_EACH_ z[i_] = _mm256_mul_pd(s[i_], s[i_]);
    LATMC_LOG_EACH_ r[i_] = _mm256_mul_pd(z[i_], _mm256_set1_pd(LATMC_MATH_LOG_C9));
#define LATMC_LOG_STEP_(C)                                                                         \
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
    LATMC_LOG_EACH_
    {
        const __m256d t = _mm256_sub_pd(_mm256_mul_pd(s[i_], _mm256_sub_pd(f[i_], r[i_])),
                                        _mm256_mul_pd(k[i_], _mm256_set1_pd(LATMC_MATH_LN2_LO)));
        out[i_] = _mm256_add_pd(_mm256_mul_pd(k[i_], _mm256_set1_pd(LATMC_MATH_LN2_HI)),
                                _mm256_sub_pd(f[i_], t));
    }
}

/* latmc_math_exp_kernel on 4 doubles: returns p = e^r - 1, sets *scale = 2^k. */
static inline __attribute__((always_inline)) __m256d latmc_exp_kernel_avx2(__m256d x,
                                                                           __m256d *scale)
{
    const __m256d lim = _mm256_set1_pd(-708.0);
    const __m256d xc = _mm256_blendv_pd(x, lim, _mm256_cmp_pd(x, lim, _CMP_LT_OQ));
    const __m256d t = _mm256_add_pd(_mm256_mul_pd(xc, _mm256_set1_pd(LATMC_MATH_INV_LN2)),
                                    _mm256_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m256d k = _mm256_sub_pd(t, _mm256_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m256d r =
        _mm256_sub_pd(_mm256_sub_pd(xc, _mm256_mul_pd(k, _mm256_set1_pd(LATMC_MATH_LN2_HI))),
                      _mm256_mul_pd(k, _mm256_set1_pd(LATMC_MATH_LN2_LO)));
    __m256d q = _mm256_mul_pd(r, _mm256_set1_pd(LATMC_MATH_INV_FACT13));
#define LATMC_EXP_STEP_(C) q = _mm256_mul_pd(r, _mm256_add_pd(_mm256_set1_pd(C), q))
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT12);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT11);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT10);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT9);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT8);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT7);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT6);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT5);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT4);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT3);
#undef LATMC_EXP_STEP_
    q = _mm256_add_pd(_mm256_set1_pd(LATMC_MATH_INV_FACT2), q);
    /* 2^k: the low bits of t hold k (t = 1.5 2^52 + k); (k + 1023) << 52 is its double */
    *scale = _mm256_castsi256_pd(
        _mm256_slli_epi64(_mm256_add_epi64(_mm256_castpd_si256(t), _mm256_set1_epi64x(1023)), 52));
    return _mm256_add_pd(r, _mm256_mul_pd(_mm256_mul_pd(r, r), q));
}

/* latmc_math_sincos_2pi on 4 doubles. */
static inline __attribute__((always_inline)) void latmc_sincos_2pi_avx2(__m256d u, __m256d *sin_out,
                                                                        __m256d *cos_out)
{
    const __m256d v = _mm256_mul_pd(u, _mm256_set1_pd(4.0));
    const __m256d t = _mm256_add_pd(v, _mm256_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m256d q = _mm256_sub_pd(t, _mm256_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m256d th = _mm256_mul_pd(_mm256_sub_pd(v, q), _mm256_set1_pd(LATMC_MATH_PI_2));
    const __m256d t2 = _mm256_mul_pd(th, th);
    __m256d sp = _mm256_mul_pd(t2, _mm256_set1_pd(LATMC_MATH_INV_FACT17));
    __m256d cp = _mm256_mul_pd(t2, _mm256_set1_pd(LATMC_MATH_INV_FACT16));
#define LATMC_TRIG_STEP_(acc, C) acc = _mm256_mul_pd(t2, _mm256_add_pd(_mm256_set1_pd(C), acc))
    LATMC_TRIG_STEP_(sp, -LATMC_MATH_INV_FACT15);
    LATMC_TRIG_STEP_(cp, -LATMC_MATH_INV_FACT14);
    LATMC_TRIG_STEP_(sp, LATMC_MATH_INV_FACT13);
    LATMC_TRIG_STEP_(cp, LATMC_MATH_INV_FACT12);
    LATMC_TRIG_STEP_(sp, -LATMC_MATH_INV_FACT11);
    LATMC_TRIG_STEP_(cp, -LATMC_MATH_INV_FACT10);
    LATMC_TRIG_STEP_(sp, LATMC_MATH_INV_FACT9);
    LATMC_TRIG_STEP_(cp, LATMC_MATH_INV_FACT8);
    LATMC_TRIG_STEP_(sp, -LATMC_MATH_INV_FACT7);
    LATMC_TRIG_STEP_(cp, -LATMC_MATH_INV_FACT6);
    LATMC_TRIG_STEP_(sp, LATMC_MATH_INV_FACT5);
    LATMC_TRIG_STEP_(cp, LATMC_MATH_INV_FACT4);
#undef LATMC_TRIG_STEP_
    sp = _mm256_add_pd(_mm256_set1_pd(-LATMC_MATH_INV_FACT3), sp);
    cp = _mm256_add_pd(_mm256_set1_pd(-LATMC_MATH_INV_FACT2), cp);
    const __m256d sn = _mm256_add_pd(th, _mm256_mul_pd(th, _mm256_mul_pd(t2, sp)));
    const __m256d cs = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_mul_pd(t2, cp));
    /* quadrant q mod 4 (the low bits of t): 1 and 3 swap, 2 and 3 negate the sine, 1 and
     * 2 the cosine */
    const __m256i quad = _mm256_castpd_si256(t);
    const __m256i one = _mm256_set1_epi64x(1), two = _mm256_set1_epi64x(2);
    const __m256d swap = _mm256_castsi256_pd(_mm256_cmpeq_epi64(_mm256_and_si256(quad, one), one));
    const __m256i neg_s = _mm256_slli_epi64(_mm256_and_si256(quad, two), 62);
    const __m256i neg_c = _mm256_slli_epi64(_mm256_and_si256(_mm256_add_epi64(quad, one), two), 62);
    *sin_out = _mm256_xor_pd(_mm256_blendv_pd(sn, cs, swap), _mm256_castsi256_pd(neg_s));
    *cos_out = _mm256_xor_pd(_mm256_blendv_pd(cs, sn, swap), _mm256_castsi256_pd(neg_c));
}

#endif
