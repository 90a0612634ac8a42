/*
 * The primitives of phi4_simd_tmpl.h for the AVX-512 level (F, DQ, BW, VL): sixteen phi^4
 * field values per vector -- float: one __m512, double: two __m512d -- masks of sixteen
 * lanes in one __mmask16, and the Philox over eight blocks per __m512i
 * (philox_lanes_avx512.h). Every function performs, lane by lane, the same IEEE operations
 * as its phi4_vec_avx2.h counterpart (the same exact fused multiply-adds, no others), so
 * the level computes the reference's chain bit for bit; only the width and the means of
 * the exact steps (mask registers in place of blends) differ. Include only where the
 * AVX-512 flags are on.
 */
#ifndef LATMC_CPU_PHI4_VEC_AVX512_H
#define LATMC_CPU_PHI4_VEC_AVX512_H

#include <immintrin.h>

#include "math_avx512.h"
#include "philox_lanes_avx512.h"
#include "phi4.h"

/* Lanes per vector: a group of 16 sites, four Philox blocks (phi4_simd_tmpl.h). */
#define PHI4_W 16

/* ---- the Philox primitives: eight blocks per __m512i ---- */

typedef __m512i phi4_iv;
/* the level's Philox (phi4_vec_philox.h gives the template's names for it) */
#define PHI4_PHILOX(name) latmc_philox_x8_##name
#define PHI4_NSETS LATMC_PHILOX_X8_NSETS
#include "phi4_vec_philox.h"

/* Each of w[0 .. 3] twice: lanes (w0, w0, w1, w1, w2, w2, w3, w3). */
static inline phi4_iv phi4_iv_pairs(const uint32_t w[PHI4_W / 4])
{
    return _mm512_setr_epi64(w[0], w[0], w[1], w[1], w[2], w[2], w[3], w[3]);
}
static inline phi4_iv phi4_iv_set1(uint32_t w)
{
    return _mm512_set1_epi64(w);
}
static inline phi4_iv phi4_iv_alternate(uint32_t a, uint32_t b)
{
    return _mm512_setr_epi64(a, b, a, b, a, b, a, b);
}
static inline phi4_iv phi4_iv_add64(phi4_iv a, phi4_iv b)
{
    return _mm512_add_epi64(a, b);
}
/* Lanes 0, 2, 4, 6 of a and b interleaved (a0 b0 a2 b2 a4 b4 a6 b6): words 0-3 of blocks
 * 0, 2, 4, 6 of eight -- with the blocks as (b, eta), (b, u) pairs, the eta words of the
 * group's four blocks in site order. */
static inline phi4_iv phi4_iv_unpacklo(phi4_iv a, phi4_iv b)
{
    return _mm512_unpacklo_epi64(a, b);
}
static inline phi4_iv phi4_iv_unpackhi(phi4_iv a, phi4_iv b)
{
    return _mm512_unpackhi_epi64(a, b);
}

/* ---- float: one __m512 ---- */

typedef __m512 vec_f;
typedef __mmask16 mask_f;

static inline vec_f load_f(const float *p)
{
    return _mm512_loadu_ps(p);
}
/* Lanes 0-7 from a, 8-15 from b (the paired groups of the chunk schedule). */
static inline vec_f load2_f(const float *a, const float *b)
{
    return _mm512_insertf32x8(_mm512_castps256_ps512(_mm256_loadu_ps(a)), _mm256_loadu_ps(b), 1);
}
static inline void store_f(float *p, vec_f v)
{
    _mm512_storeu_ps(p, v);
}
static inline vec_f set1_f(float s)
{
    return _mm512_set1_ps(s);
}
static inline vec_f add_f(vec_f a, vec_f b)
{
    return _mm512_add_ps(a, b);
}
static inline vec_f sub_f(vec_f a, vec_f b)
{
    return _mm512_sub_ps(a, b);
}
static inline vec_f mul_f(vec_f a, vec_f b)
{
    return _mm512_mul_ps(a, b);
}
static inline vec_f neg_f(vec_f a)
{
    return _mm512_xor_ps(a, _mm512_set1_ps(-0.0f));
}
static inline mask_f gt_f(vec_f a, vec_f b)
{
    return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ);
}
/* m ? a : b, lane by lane */
static inline vec_f select_f(mask_f m, vec_f a, vec_f b)
{
    return _mm512_mask_blend_ps(m, b, a);
}
static inline unsigned bits_f(mask_f m)
{
    return (unsigned)m;
}
/* Lanes [from, to) of a mask (0 <= from <= to <= 16). */
static inline mask_f lanes_f(int from, int to)
{
    return (mask_f)(((1u << to) - 1u) & ~((1u << from) - 1u));
}
static inline vec_f set_lane_f(vec_f v, int lane, float s)
{
    return _mm512_mask_mov_ps(v, (mask_f)(1u << lane), _mm512_set1_ps(s));
}
static inline void maskstore_f(float *p, mask_f m, vec_f v)
{
    _mm512_mask_storeu_ps(p, m, v);
}

/*
 * latmc_phi4_signed_f: RN((s + 1/2) 2^-31) with s = r ^ 2^31 as a signed integer, i.e.
 * RN((2s + 1) 2^-32). Written as sign x RN(2t + 1) 2^-32 with t = s ^ (s >> 31) = |s + 1/2|
 * - 1/2 (RN is odd, and 2^-32 scales exactly: the values lie in [2^-32, 1]): 2t + 1 <
 * 2^32 is one unsigned integer, ((r << 1) ^ ~(r >> 31)) | 1 (the shift out of the top is
 * 2^31's, dropped in s), converted with one rounding by vcvtudq2ps; the sign, s's, is
 * the complement of r's top bit. signed_raw_f is sign x RN(2t + 1), five instructions
 * (two shifts, two vpternlogd, the conversion), and the template multiplies it by epsilon
 * 2^-32 where that is exact (PHI4_SIGNED_SCALE_f): the step in six instructions, were
 * eight (phi4_vec_avx2.h's form, a move for its destructive vpternlogd, the product);
 * signed_f equals that form for every one of the 2^32 words (checked when it was
 * written; checkasm's phi4 compares the steps with the C reference bit for bit).
 */
#define PHI4_SIGNED_SCALE_f 0x1p-32f
static inline vec_f signed_raw_f(__m512i r)
{
    const __m512i a = _mm512_srai_epi32(r, 31);
    /* C | ~(A ^ B): 0xaa | 0xc3 */
    const __m512i u =
        _mm512_ternarylogic_epi32(_mm512_slli_epi32(r, 1), a, _mm512_set1_epi32(1), 0xeb);
    const __m512i f = _mm512_castps_si512(_mm512_cvtepu32_ps(u));
    /* A | (B & ~C): 0xf0 | 0x44 (r last: the operand that may be in memory) */
    return _mm512_castsi512_ps(
        _mm512_ternarylogic_epi32(f, _mm512_set1_epi32((int)0x80000000u), r, 0xf4));
}
static inline vec_f signed_f(__m512i r)
{
    return _mm512_mul_ps(signed_raw_f(r), _mm512_set1_ps(PHI4_SIGNED_SCALE_f));
}

/* latmc_phi4_unit_f: phi4_vec_avx2.h's unit_f. */
static inline vec_f unit_f(__m512i r)
{
    const __m512 hi = _mm512_cvtepi32_ps(_mm512_srli_epi32(r, 8));
    const __m512 lo = _mm512_cvtepi32_ps(_mm512_and_si512(r, _mm512_set1_epi32(0xff)));
    const __m512 lo_scaled =
        _mm512_fmadd_ps(lo, _mm512_set1_ps(0x1p-32f), _mm512_set1_ps(0x1p-32f));
    return _mm512_fmadd_ps(hi, _mm512_set1_ps(0x1p-24f), lo_scaled);
}

/*
 * The unit value the quick logarithm reads (phase 2 of phi4_simd_hits): u' = RN(RN(r) + 1)
 * 2^-32, one vcvtudq2ps and one fused multiply-add (its product by 2^-32 exact), against
 * the 6 instructions of unit_f's u = RN(r + 1) 2^-32. Equal for r < 2^24; above, u is
 * within 1/2 ulp of (r + 1) 2^-32 and u' (two roundings) within 3/2 ulp of r's binade,
 * so |u' / u - 1| < 2^-22 (1 + 2^-22) and |ln u' - ln u| < 2^-21; with latmc_math_logf
 * within 1 ulp of ln (|L| < 32: ulp <= 2^-19), |logf(u') - logf(u)| < 2^-21 + 2^-18 <
 * 2^-17. The quick logarithm's bound E holds at u' (a float of [2^-32, 1], checked for
 * every one), so |logq(u') - logf(u)| < E + 2^-17: hitq_f decides with that wider bound
 * (PHI4_UNITQ_SLACK_F), and its argument (phi4_vec_avx2.h) stands as written. The exact
 * path still reads unit_f(r).
 */
#define PHI4_UNITQ_SLACK_F 0x1p-17f
static inline vec_f unitq_f(__m512i r)
{
    return _mm512_fmadd_ps(_mm512_cvtepu32_ps(r), _mm512_set1_ps(0x1p-32f),
                           _mm512_set1_ps(0x1p-32f));
}

enum { PHI4_LOG_N = LATMC_LOG_AVX512_N };
static inline __attribute__((always_inline)) void logn_f(const vec_f x[PHI4_LOG_N],
                                                         vec_f out[PHI4_LOG_N])
{
    latmc_logf_avx512_n(x, out);
}

/* The quick logarithm (phi4_vec_avx2.h's argument for the decision holds with any a within
 * PHI4_LOGQ_BOUND_F of the exact logarithm): here ln u = k ln 2 + p(m) with the exponent k
 * taken from u's bits and p the degree-4 polynomial for ln m on [1, 2) -- not AVX2's form
 * with the exponent folded into the coefficients, so not its values; the bound is checked
 * for this form over every float of [2^-32, 1] (cpu_phi4_avx512_logq_violations, checkasm's
 * phi4.quick_log_f on the AVX-512 level, native or emulated). */
#define PHI4_LOGQ_BOUND_F 0x1p-13f
static inline vec_f logq_one_f(vec_f u)
{
    /* k = floor(log2 u) and m = u / 2^k in [1, 2) (u is a positive normal float): one
     * vgetexpps and one vgetmantps give exactly the exponent field less 127, converted,
     * and the mantissa with the exponent field of 1 (5 integer steps before; the same
     * values, so the bound checked for this form holds unchanged) */
    const __m512 k = _mm512_getexp_ps(u);
    const __m512 m = _mm512_getmant_ps(u, _MM_MANT_NORM_1_2, _MM_MANT_SIGN_src);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(-0x1.bd681cp-5f), m, _mm512_set1_ps(0x1.bc58cap-2f));
    p = _mm512_fmadd_ps(p, m, _mm512_set1_ps(-0x1.70caa6p+0f));
    p = _mm512_fmadd_ps(p, m, _mm512_set1_ps(0x1.657baap+1f));
    p = _mm512_fmadd_ps(p, m, _mm512_set1_ps(-0x1.bb526cp+0f));
    return _mm512_fmadd_ps(k, _mm512_set1_ps(0x1.62e43p-1f), p);
}

/* a < b (false where unordered) */
static inline mask_f lt_f(vec_f a, vec_f b)
{
    return _mm512_cmp_ps_mask(a, b, _CMP_LT_OQ);
}
/* The union of two lane masks; whether every lane of a mask is set (phi4_vec_hit.h's
 * hitq_f: one kortest). */
static inline mask_f mask_or_f(mask_f a, mask_f b)
{
    return _kor_mask16(a, b);
}
static inline mask_f mask_and_f(mask_f a, mask_f b)
{
    return _kand_mask16(a, b);
}
/* one kortestw: its carry flag is "all ones" */
static inline int mask_all_f(mask_f m)
{
    return _kortestc_mask16_u8(m, m);
}

/* ---- double: two __m512d, lanes 0-7 and 8-15; masks of 16 lanes ---- */

typedef struct {
    __m512d lo, hi;
} vec_d;
typedef __mmask16 mask_d;

static inline vec_d load_d(const double *p)
{
    return (vec_d){ _mm512_loadu_pd(p), _mm512_loadu_pd(p + 8) };
}
static inline vec_d load2_d(const double *a, const double *b)
{
    return (vec_d){ _mm512_loadu_pd(a), _mm512_loadu_pd(b) };
}
static inline void store_d(double *p, vec_d v)
{
    _mm512_storeu_pd(p, v.lo);
    _mm512_storeu_pd(p + 8, v.hi);
}
static inline vec_d set1_d(double s)
{
    return (vec_d){ _mm512_set1_pd(s), _mm512_set1_pd(s) };
}
static inline vec_d add_d(vec_d a, vec_d b)
{
    return (vec_d){ _mm512_add_pd(a.lo, b.lo), _mm512_add_pd(a.hi, b.hi) };
}
static inline vec_d sub_d(vec_d a, vec_d b)
{
    return (vec_d){ _mm512_sub_pd(a.lo, b.lo), _mm512_sub_pd(a.hi, b.hi) };
}
static inline vec_d mul_d(vec_d a, vec_d b)
{
    return (vec_d){ _mm512_mul_pd(a.lo, b.lo), _mm512_mul_pd(a.hi, b.hi) };
}
static inline vec_d neg_d(vec_d a)
{
    const __m512d m = _mm512_set1_pd(-0.0);
    return (vec_d){ _mm512_xor_pd(a.lo, m), _mm512_xor_pd(a.hi, m) };
}
static inline mask_d gt_d(vec_d a, vec_d b)
{
    return (mask_d)(_mm512_cmp_pd_mask(a.lo, b.lo, _CMP_GT_OQ) |
                    (unsigned)_mm512_cmp_pd_mask(a.hi, b.hi, _CMP_GT_OQ) << 8);
}
static inline vec_d select_d(mask_d m, vec_d a, vec_d b)
{
    return (vec_d){ _mm512_mask_blend_pd((__mmask8)m, b.lo, a.lo),
                    _mm512_mask_blend_pd((__mmask8)(m >> 8), b.hi, a.hi) };
}
static inline unsigned bits_d(mask_d m)
{
    return (unsigned)m;
}
static inline mask_d lanes_d(int from, int to)
{
    return lanes_f(from, to);
}
static inline void maskstore_d(double *p, mask_d m, vec_d v)
{
    _mm512_mask_storeu_pd(p, (__mmask8)m, v.lo);
    _mm512_mask_storeu_pd(p + 8, (__mmask8)(m >> 8), v.hi);
}

/* latmc_phi4_signed_d, latmc_phi4_unit_d: phi4_vec_avx2.h's (one exact fused
 * multiply-add per half). */
static inline vec_d signed_d(__m512i r)
{
    const __m512i s = _mm512_xor_si512(r, _mm512_set1_epi32((int)0x80000000u));
    const __m512d scale = _mm512_set1_pd(0x1p-31), half = _mm512_set1_pd(0x1p-32);
    const __m512d lo = _mm512_cvtepi32_pd(_mm512_castsi512_si256(s));
    const __m512d hi = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(s, 1));
    return (vec_d){ _mm512_fmadd_pd(lo, scale, half), _mm512_fmadd_pd(hi, scale, half) };
}
static inline vec_d unit_d(__m512i r)
{
    const __m512i s = _mm512_xor_si512(r, _mm512_set1_epi32((int)0x80000000u));
    const __m512d off = _mm512_set1_pd(2147483649.0 * 0x1p-32), scale = _mm512_set1_pd(0x1p-32);
    const __m512d lo = _mm512_cvtepi32_pd(_mm512_castsi512_si256(s));
    const __m512d hi = _mm512_cvtepi32_pd(_mm512_extracti64x4_epi64(s, 1));
    return (vec_d){ _mm512_fmadd_pd(lo, scale, off), _mm512_fmadd_pd(hi, scale, off) };
}

/* The double hit decides on the exact logarithm: each vector's halves are the two chains
 * of one latmc_log_avx512_n call. */
_Static_assert(LATMC_LOG_AVX512_N == 2, "logq_d pairs the halves of a vec_d");
static inline __attribute__((always_inline)) void logq_d(const vec_d x[PHI4_LOG_N],
                                                         vec_d out[PHI4_LOG_N])
{
    for (int i = 0; i < PHI4_LOG_N; i++) {
        const __m512d in[2] = { x[i].lo, x[i].hi };
        __m512d res[2];
        latmc_log_avx512_n(in, res);
        out[i].lo = res[0];
        out[i].hi = res[1];
    }
}

/* Accepted hits, counted per lane in the vector unit as phi4_vec_avx2.h does: each hit
 * adds one to the accepted and valid lanes (a kandw and a masked vpsubd of all ones; the
 * masks' bits were moved to general registers, and-ed, popcounted and added there: ~9
 * instructions per group and hit in the decisions, most of them moves); summed once per
 * block. Lanes count at most nhit (65535) per group and PHI4_GROUPS groups, the sum of
 * the 16 lanes 16 times that: inside 32 bits. */
typedef __m512i phi4_count;
static inline phi4_count phi4_count_zero(void)
{
    return _mm512_setzero_si512();
}
static inline phi4_count count_add_f(phi4_count n, mask_f acc, mask_f valid)
{
    return _mm512_mask_sub_epi32(n, _kand_mask16(acc, valid), n, _mm512_set1_epi32(-1));
}
static inline phi4_count count_add_d(phi4_count n, mask_d acc, mask_d valid)
{
    return count_add_f(n, acc, valid);
}
/* the decisions of full blocks in a copy of their own, without the valid masks
 * (phi4_simd_tmpl.h) */
#define PHI4_DECIDE_FULL 1
static inline phi4_count count_add_all_f(phi4_count n, mask_f acc)
{
    return _mm512_mask_sub_epi32(n, acc, n, _mm512_set1_epi32(-1));
}
static inline phi4_count count_add_all_d(phi4_count n, mask_d acc)
{
    return count_add_all_f(n, acc);
}
static inline uint64_t count_sum_f(phi4_count n)
{
    /* stored and added (once per block): checkasm's emulation has no vector reduction */
    uint32_t w[16];
    _mm512_storeu_si512(w, n);
    uint32_t sum = 0;
    for (int i = 0; i < 16; i++)
        sum += w[i];
    return sum;
}
static inline uint64_t count_sum_d(phi4_count n)
{
    return count_sum_f(n);
}

#include "phi4_vec_double.h"
#include "phi4_vec_hit.h"

#endif
