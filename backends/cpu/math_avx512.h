/*
 * The shared transcendental functions of lib/latmc_math.h (log, logf, the exp kernel,
 * sincos(2 pi u)), lane by lane with AVX-512 (F, DQ): the same rounded operations as the
 * scalar originals and as math_avx2.h, in the same order (the exact steps -- exponent
 * extraction, the halving of m > sqrt 2, the quadrant's swap -- by other exact means: here
 * mask registers), so the results are bit-identical to the scalar ones.
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

/* latmc_math_exp_kernel on 8 doubles: returns p = e^r - 1, sets *scale = 2^k. */
static inline __attribute__((always_inline)) __m512d latmc_exp_kernel_avx512(__m512d x,
                                                                           __m512d *scale)
{
    const __m512d lim = _mm512_set1_pd(-708.0);
    const __m512d xc = _mm512_mask_blend_pd(_mm512_cmp_pd_mask(x, lim, _CMP_LT_OQ), x, lim);
    const __m512d t = _mm512_add_pd(_mm512_mul_pd(xc, _mm512_set1_pd(LATMC_MATH_INV_LN2)),
                                    _mm512_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m512d k = _mm512_sub_pd(t, _mm512_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m512d r =
        _mm512_sub_pd(_mm512_sub_pd(xc, _mm512_mul_pd(k, _mm512_set1_pd(LATMC_MATH_LN2_HI))),
                      _mm512_mul_pd(k, _mm512_set1_pd(LATMC_MATH_LN2_LO)));
    __m512d q = _mm512_mul_pd(r, _mm512_set1_pd(LATMC_MATH_INV_FACT13));
#define LATMC_EXP512_STEP_(C) q = _mm512_mul_pd(r, _mm512_add_pd(_mm512_set1_pd(C), q))
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT12);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT11);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT10);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT9);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT8);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT7);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT6);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT5);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT4);
    LATMC_EXP512_STEP_(LATMC_MATH_INV_FACT3);
#undef LATMC_EXP512_STEP_
    q = _mm512_add_pd(_mm512_set1_pd(LATMC_MATH_INV_FACT2), q);
    /* 2^k: the low bits of t hold k (t = 1.5 2^52 + k); (k + 1023) << 52 is its double */
    *scale = _mm512_castsi512_pd(
        _mm512_slli_epi64(_mm512_add_epi64(_mm512_castpd_si512(t), _mm512_set1_epi64(1023)), 52));
    return _mm512_add_pd(r, _mm512_mul_pd(_mm512_mul_pd(r, r), q));
}

/* latmc_math_sincos_2pi on 8 doubles. */
static inline __attribute__((always_inline)) void latmc_sincos_2pi_avx512(__m512d u, __m512d *sin_out,
                                                                        __m512d *cos_out)
{
    const __m512d v = _mm512_mul_pd(u, _mm512_set1_pd(4.0));
    const __m512d t = _mm512_add_pd(v, _mm512_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m512d q = _mm512_sub_pd(t, _mm512_set1_pd(LATMC_MATH_ROUND_MAGIC));
    const __m512d th = _mm512_mul_pd(_mm512_sub_pd(v, q), _mm512_set1_pd(LATMC_MATH_PI_2));
    const __m512d t2 = _mm512_mul_pd(th, th);
    __m512d sp = _mm512_mul_pd(t2, _mm512_set1_pd(LATMC_MATH_INV_FACT17));
    __m512d cp = _mm512_mul_pd(t2, _mm512_set1_pd(LATMC_MATH_INV_FACT16));
#define LATMC_TRIG512_STEP_(acc, C) acc = _mm512_mul_pd(t2, _mm512_add_pd(_mm512_set1_pd(C), acc))
    LATMC_TRIG512_STEP_(sp, -LATMC_MATH_INV_FACT15);
    LATMC_TRIG512_STEP_(cp, -LATMC_MATH_INV_FACT14);
    LATMC_TRIG512_STEP_(sp, LATMC_MATH_INV_FACT13);
    LATMC_TRIG512_STEP_(cp, LATMC_MATH_INV_FACT12);
    LATMC_TRIG512_STEP_(sp, -LATMC_MATH_INV_FACT11);
    LATMC_TRIG512_STEP_(cp, -LATMC_MATH_INV_FACT10);
    LATMC_TRIG512_STEP_(sp, LATMC_MATH_INV_FACT9);
    LATMC_TRIG512_STEP_(cp, LATMC_MATH_INV_FACT8);
    LATMC_TRIG512_STEP_(sp, -LATMC_MATH_INV_FACT7);
    LATMC_TRIG512_STEP_(cp, -LATMC_MATH_INV_FACT6);
    LATMC_TRIG512_STEP_(sp, LATMC_MATH_INV_FACT5);
    LATMC_TRIG512_STEP_(cp, LATMC_MATH_INV_FACT4);
#undef LATMC_TRIG512_STEP_
    sp = _mm512_add_pd(_mm512_set1_pd(-LATMC_MATH_INV_FACT3), sp);
    cp = _mm512_add_pd(_mm512_set1_pd(-LATMC_MATH_INV_FACT2), cp);
    const __m512d sn = _mm512_add_pd(th, _mm512_mul_pd(th, _mm512_mul_pd(t2, sp)));
    const __m512d cs = _mm512_add_pd(_mm512_set1_pd(1.0), _mm512_mul_pd(t2, cp));
    /* quadrant q mod 4 (the low bits of t): 1 and 3 swap, 2 and 3 negate the sine, 1 and
     * 2 the cosine */
    const __m512i quad = _mm512_castpd_si512(t);
    const __m512i one = _mm512_set1_epi64(1), two = _mm512_set1_epi64(2);
    const __mmask8 swap = _mm512_cmpeq_epi64_mask(_mm512_and_si512(quad, one), one);
    const __m512i neg_s = _mm512_slli_epi64(_mm512_and_si512(quad, two), 62);
    const __m512i neg_c = _mm512_slli_epi64(_mm512_and_si512(_mm512_add_epi64(quad, one), two), 62);
    *sin_out = _mm512_xor_pd(_mm512_mask_blend_pd(swap, sn, cs), _mm512_castsi512_pd(neg_s));
    *cos_out = _mm512_xor_pd(_mm512_mask_blend_pd(swap, cs, sn), _mm512_castsi512_pd(neg_c));
}

#endif
