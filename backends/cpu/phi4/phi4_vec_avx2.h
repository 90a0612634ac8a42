/*
 * Eight phi^4 field values as AVX2 vectors -- float: one __m256, double: two __m256d --
 * and the per-hit arithmetic of latmc_phi4_hit (lib/phi4.h) on them, lane by lane the same
 * IEEE operations as the scalar reference: the draw conversions, the shared logarithm and
 * the Metropolis decision: the AVX2 level's primitives of phi4_simd_tmpl.h (which lists
 * them), with its Philox over four blocks per __m256i. Used by phi4_avx2.c;
 * tests/kernels/test_simd_rules.c checks each function against its scalar original. Include
 * only where -mavx2 is on.
 */
#ifndef LATMC_CPU_PHI4_VEC_AVX2_H
#define LATMC_CPU_PHI4_VEC_AVX2_H

#include <immintrin.h>

#include "math_avx2.h"
#include "philox_lanes_avx2.h"
#include "phi4.h"

/* Lanes per vector: a group of 8 sites, two Philox blocks (phi4_simd_tmpl.h). */
#define PHI4_W 8

/* ---- the Philox primitives of phi4_simd_tmpl.h: four blocks per __m256i ---- */

typedef __m256i phi4_iv;
/* the level's Philox (phi4_vec_philox.h gives the template's names for it) */
#define PHI4_PHILOX(name) latmc_philox_x4_##name
#define PHI4_NSETS LATMC_PHILOX_X4_NSETS
#include "phi4_vec_philox.h"

/* Each of w[0], w[1] twice: lanes (w0, w0, w1, w1). */
static inline phi4_iv phi4_iv_pairs(const uint32_t w[PHI4_W / 4])
{
    return _mm256_setr_epi64x(w[0], w[0], w[1], w[1]);
}
static inline phi4_iv phi4_iv_set1(uint32_t w)
{
    return _mm256_set1_epi64x(w);
}
/* Lanes (a, b, a, b). */
static inline phi4_iv phi4_iv_alternate(uint32_t a, uint32_t b)
{
    return _mm256_setr_epi64x(a, b, a, b);
}
static inline phi4_iv phi4_iv_add64(phi4_iv a, phi4_iv b)
{
    return _mm256_add_epi64(a, b);
}
/* Lanes 0 and 2 of a, b interleaved (a0 b0 a2 b2): words 0-3 of blocks 0 and 2 of four. */
static inline phi4_iv phi4_iv_unpacklo(phi4_iv a, phi4_iv b)
{
    return _mm256_unpacklo_epi64(a, b);
}
static inline phi4_iv phi4_iv_unpackhi(phi4_iv a, phi4_iv b)
{
    return _mm256_unpackhi_epi64(a, b);
}

/* ---- W field values ---- */

typedef __m256 vec_f;
typedef __m256 mask_f;
typedef struct {
    __m256d lo, hi;
} vec_d;
typedef vec_d mask_d;

static inline vec_f load_f(const float *p)
{
    return _mm256_loadu_ps(p);
}
/* Lanes 0-3 from a, 4-7 from b (the paired groups of the chunk schedule). */
static inline vec_f load2_f(const float *a, const float *b)
{
    return _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(a)), _mm_loadu_ps(b), 1);
}
static inline void store_f(float *p, vec_f v)
{
    _mm256_storeu_ps(p, v);
}
static inline vec_f set1_f(float s)
{
    return _mm256_set1_ps(s);
}
static inline vec_f add_f(vec_f a, vec_f b)
{
    return _mm256_add_ps(a, b);
}
static inline vec_f sub_f(vec_f a, vec_f b)
{
    return _mm256_sub_ps(a, b);
}
static inline vec_f mul_f(vec_f a, vec_f b)
{
    return _mm256_mul_ps(a, b);
}
static inline vec_f neg_f(vec_f a)
{
    return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f));
}
static inline mask_f gt_f(vec_f a, vec_f b)
{
    return _mm256_cmp_ps(a, b, _CMP_GT_OQ);
}
static inline vec_f select_f(mask_f m, vec_f a, vec_f b)
{
    return _mm256_blendv_ps(b, a, m);
}
static inline unsigned bits_f(mask_f m)
{
    return (unsigned)_mm256_movemask_ps(m);
}
/* Lanes [from, to) of a mask. */
static inline mask_f lanes_f(int from, int to)
{
    const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_castsi256_ps(
        _mm256_and_si256(_mm256_cmpgt_epi32(idx, _mm256_set1_epi32(from - 1)),
                         _mm256_cmpgt_epi32(_mm256_set1_epi32(to), idx)));
}
/* v with lane `lane` (0..7) replaced by s. */
static inline vec_f set_lane_f(vec_f v, int lane, float s)
{
    return _mm256_blendv_ps(v, _mm256_set1_ps(s), lanes_f(lane, lane + 1));
}
/* Store the lanes of m only. */
static inline void maskstore_f(float *p, mask_f m, vec_f v)
{
    _mm256_maskstore_ps(p, _mm256_castps_si256(m), v);
}

/* latmc_phi4_signed_f: (float)(2r + 1 - 2^32) 2^-32. With s = r - 2^31 (int32), the odd
 * integer 2s + 1 = 2 hi + lo, hi = s with its low 8 bits cleared (24 significant bits:
 * exact as a float), lo = 2 (s & 255) + 1, and the result is RN((2 hi + lo) 2^-32): one
 * rounding of a sum of two exact floats. Both fused multiply-adds below are that: the first
 * is exact ((2 (s & 255) + 1) 2^-32 has 9 significant bits), the second rounds the exact
 * sum hi 2^-31 + lo 2^-32 once -- the reference's operations, bit for bit, in fewer steps
 * (no product here is ever rounded, so fusing changes nothing). */
static inline vec_f signed_f(__m256i r)
{
    const __m256i s = _mm256_xor_si256(r, _mm256_set1_epi32((int)0x80000000u));
    const __m256 hi = _mm256_cvtepi32_ps(_mm256_and_si256(s, _mm256_set1_epi32(~0xff)));
    const __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(r, _mm256_set1_epi32(0xff)));
    const __m256 lo_scaled =
        _mm256_fmadd_ps(lo, _mm256_set1_ps(0x1p-31f), _mm256_set1_ps(0x1p-32f));
    return _mm256_fmadd_ps(hi, _mm256_set1_ps(0x1p-31f), lo_scaled);
}
/* the template's signed_raw_f (phi4_simd_tmpl.h): signed_f itself */
#define PHI4_SIGNED_SCALE_f 1.0f
static inline vec_f signed_raw_f(__m256i r)
{
    return signed_f(r);
}

/* latmc_phi4_unit_f: (float)(r + 1) 2^-32, r + 1 = 256 (r >> 8) + ((r & 255) + 1), both
 * parts exact as floats, one rounding of their sum: the first fused multiply-add is exact
 * (((r & 255) + 1) 2^-32), the second rounds (r >> 8) 2^-24 plus it once. */
static inline vec_f unit_f(__m256i r)
{
    const __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(r, 8));
    const __m256 lo = _mm256_cvtepi32_ps(_mm256_and_si256(r, _mm256_set1_epi32(0xff)));
    const __m256 lo_scaled =
        _mm256_fmadd_ps(lo, _mm256_set1_ps(0x1p-32f), _mm256_set1_ps(0x1p-32f));
    return _mm256_fmadd_ps(hi, _mm256_set1_ps(0x1p-24f), lo_scaled);
}

/* The unit value the quick logarithm reads (phi4_vec_avx512.h's unitq_f has a cheaper
 * one): here the exact one, so no slack on the decision's bound. */
#define PHI4_UNITQ_SLACK_F 0.0f
static inline vec_f unitq_f(__m256i r)
{
    return unit_f(r);
}

/* LATMC_LOG_AVX2_N logarithms at once (math_avx2.h). */
enum { PHI4_LOG_N = LATMC_LOG_AVX2_N };
static inline __attribute__((always_inline)) void logn_f(const vec_f x[PHI4_LOG_N],
                                                         vec_f out[PHI4_LOG_N])
{
    latmc_logf_avx2_n(x, out);
}

static inline vec_d load_d(const double *p)
{
    return (vec_d){ _mm256_loadu_pd(p), _mm256_loadu_pd(p + 4) };
}
static inline vec_d load2_d(const double *a, const double *b)
{
    return (vec_d){ _mm256_loadu_pd(a), _mm256_loadu_pd(b) };
}
static inline void store_d(double *p, vec_d v)
{
    _mm256_storeu_pd(p, v.lo);
    _mm256_storeu_pd(p + 4, v.hi);
}
static inline vec_d set1_d(double s)
{
    return (vec_d){ _mm256_set1_pd(s), _mm256_set1_pd(s) };
}
static inline vec_d add_d(vec_d a, vec_d b)
{
    return (vec_d){ _mm256_add_pd(a.lo, b.lo), _mm256_add_pd(a.hi, b.hi) };
}
static inline vec_d sub_d(vec_d a, vec_d b)
{
    return (vec_d){ _mm256_sub_pd(a.lo, b.lo), _mm256_sub_pd(a.hi, b.hi) };
}
static inline vec_d mul_d(vec_d a, vec_d b)
{
    return (vec_d){ _mm256_mul_pd(a.lo, b.lo), _mm256_mul_pd(a.hi, b.hi) };
}
static inline vec_d neg_d(vec_d a)
{
    const __m256d m = _mm256_set1_pd(-0.0);
    return (vec_d){ _mm256_xor_pd(a.lo, m), _mm256_xor_pd(a.hi, m) };
}
static inline mask_d gt_d(vec_d a, vec_d b)
{
    return (vec_d){ _mm256_cmp_pd(a.lo, b.lo, _CMP_GT_OQ), _mm256_cmp_pd(a.hi, b.hi, _CMP_GT_OQ) };
}
static inline vec_d select_d(mask_d m, vec_d a, vec_d b)
{
    return (vec_d){ _mm256_blendv_pd(b.lo, a.lo, m.lo), _mm256_blendv_pd(b.hi, a.hi, m.hi) };
}
static inline unsigned bits_d(mask_d m)
{
    return (unsigned)_mm256_movemask_pd(m.lo) | (unsigned)_mm256_movemask_pd(m.hi) << 4;
}
static inline mask_d lanes_d(int from, int to)
{
    const __m256i lo = _mm256_setr_epi64x(0, 1, 2, 3), hi = _mm256_setr_epi64x(4, 5, 6, 7);
    const __m256i f = _mm256_set1_epi64x(from - 1), t = _mm256_set1_epi64x(to);
    return (vec_d){
        _mm256_castsi256_pd(_mm256_and_si256(_mm256_cmpgt_epi64(lo, f), _mm256_cmpgt_epi64(t, lo))),
        _mm256_castsi256_pd(_mm256_and_si256(_mm256_cmpgt_epi64(hi, f), _mm256_cmpgt_epi64(t, hi)))
    };
}
static inline void maskstore_d(double *p, mask_d m, vec_d v)
{
    _mm256_maskstore_pd(p, _mm256_castpd_si256(m.lo), v.lo);
    _mm256_maskstore_pd(p + 4, _mm256_castpd_si256(m.hi), v.hi);
}

/* latmc_phi4_signed_d: 2r + 1 - 2^32 = 2s + 1 (s = r - 2^31), and (2s + 1) 2^-32 = s 2^-31 +
 * 2^-32, are exact in double: one exact fused multiply-add per half. */
static inline vec_d signed_d(__m256i r)
{
    const __m256i s = _mm256_xor_si256(r, _mm256_set1_epi32((int)0x80000000u));
    const __m256d scale = _mm256_set1_pd(0x1p-31), half = _mm256_set1_pd(0x1p-32);
    const __m256d lo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(s));
    const __m256d hi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(s, 1));
    return (vec_d){ _mm256_fmadd_pd(lo, scale, half), _mm256_fmadd_pd(hi, scale, half) };
}

/* latmc_phi4_unit_d: (r + 1) 2^-32 = (r - 2^31) 2^-32 + (2^31 + 1) 2^-32, exact in double:
 * one exact fused multiply-add per half. */
static inline vec_d unit_d(__m256i r)
{
    const __m256i s = _mm256_xor_si256(r, _mm256_set1_epi32((int)0x80000000u));
    const __m256d off = _mm256_set1_pd(2147483649.0 * 0x1p-32), scale = _mm256_set1_pd(0x1p-32);
    const __m256d lo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(s));
    const __m256d hi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(s, 1));
    return (vec_d){ _mm256_fmadd_pd(lo, scale, off), _mm256_fmadd_pd(hi, scale, off) };
}

/* Each vector's halves are the two chains of one latmc_log_avx2_n call. */
_Static_assert(LATMC_LOG_AVX2_N == 2, "logn_d pairs the halves of a vec_d");
static inline __attribute__((always_inline)) void logn_d(const vec_d x[PHI4_LOG_N],
                                                         vec_d out[PHI4_LOG_N])
{
    for (int i = 0; i < PHI4_LOG_N; i++) {
        const __m256d in[2] = { x[i].lo, x[i].hi };
        __m256d res[2];
        latmc_log_avx2_n(in, res);
        out[i].lo = res[0];
        out[i].hi = res[1];
    }
}

/*
 * The Metropolis decision with a cheap logarithm first (float). The decision is
 * -dH > L, L = latmc_math_logf(unit(r_u)) (doc/models/phi4.md). logq_one_f gives a with
 * |a - L| <= PHI4_LOGQ_BOUND_F for every unit value u in [2^-32, 1] (checked for every
 * float of that range by checkasm's phi4.quick_log_f through
 * cpu_phi4_avx2_logq_violations): ln u = e ln 2 + ln m, m in [1, 2), ln m by a degree-4
 * polynomial (Chebyshev interpolation, error 8.0e-5) and e ln 2 from u's bits as an integer
 * (below; ~7e-6 from the roundings), L itself within 1.9e-6 of ln u. With t = RN(dH + a):
 *   t < -E: RN(-dH - a) > E, so -dH - a > E (rounding is monotonic, E a float), and
 *           -dH > a + E >= L: accepted, as the reference decides;
 *   t >  E: likewise -dH < a - E <= L: rejected;
 *   else (|t| <= E, or NaN): the exact L decides; then |-dH - L| <= 2E (and a rounding),
 *           of probability at most about 4E per lane (given dH, L = log u has density
 *           e^L <= 1).
 * So every lane's decision is the reference's, bit for bit, and the logarithm with its
 * division runs for about 4 vectors in 10^4 (measured at 32^3, nhit 8, two parameter sets).
 */
#define PHI4_LOGQ_BOUND_F 0x1p-13f
static inline vec_f logq_one_f(vec_f u)
{
    /* The bits b of u as an integer, converted (rounded to 24 bits: 2.6e-6 in the
     * logarithm), are 2^23 (e + 127 + m - 1): ln 2 b 2^-23 = e ln 2 + ln 2 (m - 1) + 126 ln 2,
     * so the polynomial gives ln m - ln 2 m - 126 ln 2 (the same polynomial with ln 2 taken
     * from its linear and 126 ln 2 from its constant coefficient; its constant rounds to
     * 3.8e-6) -- no shift and no subtraction for the exponent. */
    const __m256i b = _mm256_castps_si256(u);
    const __m256 bits = _mm256_cvtepi32_ps(b);
    const __m256 m = _mm256_castsi256_ps(_mm256_or_si256(
        _mm256_and_si256(b, _mm256_set1_epi32(0x007fffff)), _mm256_set1_epi32(0x3f800000)));
    __m256 p = _mm256_fmadd_ps(_mm256_set1_ps(-0x1.bd681cp-5f), m, _mm256_set1_ps(0x1.bc58cap-2f));
    p = _mm256_fmadd_ps(p, m, _mm256_set1_ps(-0x1.70caa6p+0f));
    p = _mm256_fmadd_ps(p, m, _mm256_set1_ps(0x1.0cc29ep+1f));
    p = _mm256_fmadd_ps(p, m, _mm256_set1_ps(-0x1.6445e8p+6f));
    return _mm256_fmadd_ps(bits, _mm256_set1_ps(0x1.62e43p-24f), p);
}

/* The double hit decides on the exact logarithms (phi4_vec_hit.h's hitq_d). */
static inline __attribute__((always_inline)) void logq_d(const vec_d x[PHI4_LOG_N],
                                                         vec_d out[PHI4_LOG_N])
{
    logn_d(x, out);
}

/* a < b (false where unordered) */
static inline mask_f lt_f(vec_f a, vec_f b)
{
    return _mm256_cmp_ps(a, b, _CMP_LT_OQ);
}
/* The union of two lane masks; whether every lane of a mask is set (one vtestps on the
 * masks' sign bits, not a movemask and a scalar compare: hitq_f's test of sure lanes). */
static inline mask_f mask_or_f(mask_f a, mask_f b)
{
    return _mm256_or_ps(a, b);
}
static inline mask_f mask_and_f(mask_f a, mask_f b)
{
    return _mm256_and_ps(a, b);
}
static inline int mask_all_f(mask_f m)
{
    return _mm256_testc_ps(m, _mm256_castsi256_ps(_mm256_set1_epi32(-1)));
}

/* Accepted hits, counted per lane in the vector unit: a mask lane is all ones (-1), so
 * subtracting the accepted and valid lanes adds one to each; summed once per block. Lanes
 * count at most nhit (65535) per group and PHI4_GROUPS groups: far inside 32 bits. */
typedef __m256i phi4_count;
static inline phi4_count phi4_count_zero(void)
{
    return _mm256_setzero_si256();
}
static inline phi4_count count_add_f(phi4_count n, mask_f acc, mask_f valid)
{
    return _mm256_sub_epi32(n, _mm256_castps_si256(_mm256_and_ps(acc, valid)));
}
/* a double mask is two vectors of 64-bit lanes (-1 each): 64-bit counts */
static inline phi4_count count_add_d(phi4_count n, mask_d acc, mask_d valid)
{
    n = _mm256_sub_epi64(n, _mm256_castpd_si256(_mm256_and_pd(acc.lo, valid.lo)));
    return _mm256_sub_epi64(n, _mm256_castpd_si256(_mm256_and_pd(acc.hi, valid.hi)));
}
/* no copy of the decisions for full blocks (phi4_simd_tmpl.h): here it saved one vandps
 * per group and hit and cost more in spills (callgrind, 128x32x32: +8.6 % in the decisions) */
#define PHI4_DECIDE_FULL 0
static inline uint64_t count_sum_f(phi4_count n)
{
    const __m128i s = _mm_add_epi32(_mm256_castsi256_si128(n), _mm256_extracti128_si256(n, 1));
    uint32_t w[4];
    _mm_storeu_si128((__m128i *)w, s);
    return (uint64_t)w[0] + w[1] + w[2] + w[3];
}
static inline uint64_t count_sum_d(phi4_count n)
{
    uint64_t w[4];
    _mm256_storeu_si256((__m256i *)w, n);
    return w[0] + w[1] + w[2] + w[3];
}

#include "phi4_vec_double.h"
#include "phi4_vec_hit.h"

#endif
