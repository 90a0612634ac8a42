/*
 * The primitives of the Heisenberg SIMD kernels (heisenberg_rules_simd.h,
 * heisenberg_simd_tmpl.h) for the AVX-512 level (F, DQ, BW, VL): eight sites per __m512d,
 * masks in one __mmask8, eight draws per __m256i, the shared transcendental functions of
 * math_avx512.h, and Philox on eight blocks per __m512i (philox_lanes_avx512.h). Each
 * performs, lane by lane, the same IEEE operations as its heisenberg_vec_avx2.h
 * counterpart (masks are mask registers in place of all-ones lanes), so the level computes
 * the reference's chain bit for bit. Include only where the AVX-512 flags are on.
 */
#ifndef LATMC_CPU_HEISENBERG_VEC_AVX512_H
#define LATMC_CPU_HEISENBERG_VEC_AVX512_H

#include <immintrin.h>

#include "math_avx512.h"
#include "philox_lanes_avx512.h"
#include "philox.h"

#define HEISENBERG_W 8 /* sites per vector */

typedef __m512d hv;  /* HEISENBERG_W doubles */
typedef __mmask8 hm; /* a mask of HEISENBERG_W lanes */
typedef __m256i hu;  /* HEISENBERG_W 32-bit draws */

static inline hv hv_load(const double *p)
{
    return _mm512_loadu_pd(p);
}
/* W floats, widened (exactly) to doubles */
static inline hv hv_load_f(const float *p)
{
    return _mm512_cvtps_pd(_mm256_loadu_ps(p));
}
static inline void hv_store(double *p, hv v)
{
    _mm512_storeu_pd(p, v);
}
static inline hv hv_zero(void)
{
    return _mm512_setzero_pd();
}
static inline hv hv_set1(double x)
{
    return _mm512_set1_pd(x);
}
static inline hv hv_add(hv a, hv b)
{
    return _mm512_add_pd(a, b);
}
static inline hv hv_sub(hv a, hv b)
{
    return _mm512_sub_pd(a, b);
}
static inline hv hv_mul(hv a, hv b)
{
    return _mm512_mul_pd(a, b);
}
/* a b + c rounded once (the field's terms, whose products are exact: heisenberg_row_field) */
static inline hv hv_fma(hv a, hv b, hv c)
{
    return _mm512_fmadd_pd(a, b, c);
}
static inline hv hv_div(hv a, hv b)
{
    return _mm512_div_pd(a, b);
}
static inline hv hv_sqrt(hv a)
{
    return _mm512_sqrt_pd(a);
}
static inline hm hv_gt(hv a, hv b)
{
    return _mm512_cmp_pd_mask(a, b, _CMP_GT_OQ);
}
static inline hm hv_lt(hv a, hv b)
{
    return _mm512_cmp_pd_mask(a, b, _CMP_LT_OQ);
}
static inline hm hv_le(hv a, hv b)
{
    return _mm512_cmp_pd_mask(a, b, _CMP_LE_OQ);
}
static inline hm hv_eq(hv a, hv b)
{
    return _mm512_cmp_pd_mask(a, b, _CMP_EQ_OQ);
}
/* !(a > b): true where unordered */
static inline hm hv_ngt(hv a, hv b)
{
    return _mm512_cmp_pd_mask(a, b, _CMP_NGT_UQ);
}
/* m ? yes : no */
static inline hv hv_sel(hm m, hv yes, hv no)
{
    return _mm512_mask_blend_pd(m, no, yes);
}
/* m ? v : +0 */
static inline hv hv_and_mask(hm m, hv v)
{
    return _mm512_maskz_mov_pd(m, v);
}
static inline hm hm_and(hm a, hm b)
{
    return (hm)(a & b);
}
/* !a && b */
static inline hm hm_andnot(hm a, hm b)
{
    return (hm)(~a & b);
}
static inline hm hm_or(hm a, hm b)
{
    return (hm)(a | b);
}
/* any lane set */
static inline int hm_any(hm a)
{
    return a != 0;
}
static inline hm hm_not(hm a)
{
    return (hm)~a;
}
static inline hv hv_abs(hv x)
{
    return _mm512_castsi512_pd(
        _mm512_andnot_si512(_mm512_castpd_si512(_mm512_set1_pd(-0.0)), _mm512_castpd_si512(x)));
}
/* Round to float and back: the stored spin (latmc_heisenberg_store_unit's (float) cast). */
static inline hv hv_to_float(hv x)
{
    return _mm512_cvtps_pd(_mm512_cvtpd_ps(x));
}
/* The draws r - 2^31 as signed integers, converted (exactly) to double. */
static inline hv hv_from_i32_flipped(hu r)
{
    return _mm512_cvtepi32_pd(_mm256_xor_si256(r, _mm256_set1_epi32((int)0x80000000u)));
}
/* v with lane 0 (lane HEISENBERG_W - 1) replaced by x */
static inline hv hv_set_first(hv v, double x)
{
    return _mm512_mask_mov_pd(v, 0x01, _mm512_set1_pd(x));
}
static inline hv hv_set_last(hv v, double x)
{
    return _mm512_mask_mov_pd(v, 0x80, _mm512_set1_pd(x));
}
static inline __attribute__((always_inline)) hv hv_exp_kernel(hv x, hv *scale)
{
    return latmc_exp_kernel_avx512(x, scale);
}
_Static_assert(LATMC_LOG_AVX512_N == 2, "hv_log2 takes two vectors");
static inline __attribute__((always_inline)) void hv_log2(const hv x[2], hv out[2])
{
    latmc_log_avx512_n(x, out);
}
static inline __attribute__((always_inline)) void hv_sincos_2pi(hv u, hv *s, hv *c)
{
    latmc_sincos_2pi_avx512(u, s, c);
}

/* ---- Philox: the heat bath's draws of two vectors in one eight-block set ---- */

#define heisenberg_keys latmc_philox_x8_keys
static inline void heisenberg_keys_init(struct heisenberg_keys *k, uint64_t seed)
{
    latmc_philox_x8_keys_init(k, seed);
}

/*
 * The draws of subs 0 (cos theta) and 1 (azimuth) of blocks x[0], x[1] (the first
 * vector's eight sites) and x[2], x[3] (the second's): x[i] their counters with sub 0,
 * c3_phi word 3 of sub 1 (latmc_rng_name_sub). One set of eight lanes: (x0, sub 0),
 * (x0, sub 1), (x1, sub 0), ..., (x3, sub 1).
 */
static inline __attribute__((always_inline)) void heisenberg_draws(const struct heisenberg_keys *k,
                                                             const latmc_philox_ctr x[4],
                                                             uint32_t c3_phi, hu cos_draws[2],
                                                             hu phi_draws[2])
{
    const long long w3 = (long long)x[0].v[3], w3_phi = (long long)c3_phi;
    __m512i c0 = _mm512_setr_epi64(x[0].v[0], x[0].v[0], x[1].v[0], x[1].v[0], x[2].v[0],
                                   x[2].v[0], x[3].v[0], x[3].v[0]);
    __m512i c1 = _mm512_setr_epi64(x[0].v[1], x[0].v[1], x[1].v[1], x[1].v[1], x[2].v[1],
                                   x[2].v[1], x[3].v[1], x[3].v[1]);
    __m512i c2 = _mm512_set1_epi64(x[0].v[2]);
    __m512i c3 = _mm512_setr_epi64(w3, w3_phi, w3, w3_phi, w3, w3_phi, w3, w3_phi);
    latmc_philox_x8(k, &c0, &c1, &c2, &c3);
    __m512i o01, o23;
    latmc_philox_x8_pack(c0, c1, c2, c3, &o01, &o23);
    /* within each 128-bit lane: (block, sub 0) words 0-3, then (block, sub 1): x0 .. x3 */
    const __m512i cd = _mm512_unpacklo_epi64(o01, o23);
    const __m512i pd = _mm512_unpackhi_epi64(o01, o23);
    cos_draws[0] = _mm512_castsi512_si256(cd);
    cos_draws[1] = _mm512_extracti64x4_epi64(cd, 1);
    phi_draws[0] = _mm512_castsi512_si256(pd);
    phi_draws[1] = _mm512_extracti64x4_epi64(pd, 1);
}

#include "heisenberg_rules_simd.h"

#endif
