/*
 * The per-site rules of the Heisenberg chain (heisenberg_rules.h) on AVX2 vectors of four
 * sites, lane by lane the same IEEE double operations as the scalar originals: the
 * uniform conversion, the heat bath (latmc_heisenberg_sample_cos, _heatbath_spin: every
 * branch on every lane, each lane keeping its own), the reflection
 * (latmc_heisenberg_overrelax_spin), the rounding of a stored spin to float. Used by
 * heisenberg_avx2.c; tests/kernels/test_simd_rules.c checks each against its original.
 * Include only where -mavx2 is on.
 */
#ifndef LATMC_CPU_HEISENBERG_RULES_AVX2_H
#define LATMC_CPU_HEISENBERG_RULES_AVX2_H

#include <immintrin.h>

#include "heisenberg_rules.h"
#include "math_avx2.h"

enum { HEIS_V = 4 }; /* vectors of 4 sites updated together (heis_overrelax_avx2) */
#define HEIS_EACH _Pragma("GCC unroll 4") for (int k = 0; k < HEIS_V; k++)

/* a . b, summed x, y, z (latmc_heisenberg_dot). */
static inline __m256d heis_dot3(const __m256d a[3], const __m256d b[3])
{
    return _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(a[0], b[0]), _mm256_mul_pd(a[1], b[1])),
                         _mm256_mul_pd(a[2], b[2]));
}

/* Round to float and back: the stored spin (latmc_heisenberg_store_unit's (float) cast). */
static inline __m256d heis_to_float(__m256d x)
{
    return _mm256_cvtps_pd(_mm256_cvtpd_ps(x));
}

static inline __m256d heis_sel(__m256d mask, __m256d yes, __m256d no)
{
    return _mm256_blendv_pd(no, yes, mask);
}

/*
 * latmc_heisenberg_overrelax_spin on HEIS_V vectors, step by step together (one reflection
 * is ~100 cycles of dependent arithmetic: interleaving the vectors keeps the core busy).
 * s -> 2 (H.s)/(H.H) H - s, normalised and rounded to float; unchanged where !(H.H > 0).
 * Written without inner loops over the components: GCC at -O2 would keep those arrays in
 * memory.
 */
static inline __attribute__((always_inline)) void heis_overrelax_avx2(const __m256d f[HEIS_V][3],
                                                                      const __m256d s[HEIS_V][3],
                                                                      __m256d out[HEIS_V][3])
{
    __m256d hh[HEIS_V], fs[HEIS_V], v0[HEIS_V], v1[HEIS_V], v2[HEIS_V], inv[HEIS_V];
    const __m256d zero = _mm256_setzero_pd(), two = _mm256_set1_pd(2.0), one = _mm256_set1_pd(1.0);
    HEIS_EACH hh[k] = heis_dot3(f[k], f[k]);
    HEIS_EACH fs[k] = _mm256_div_pd(_mm256_mul_pd(two, heis_dot3(f[k], s[k])), hh[k]);
    HEIS_EACH
    {
        v0[k] = _mm256_sub_pd(_mm256_mul_pd(fs[k], f[k][0]), s[k][0]);
        v1[k] = _mm256_sub_pd(_mm256_mul_pd(fs[k], f[k][1]), s[k][1]);
        v2[k] = _mm256_sub_pd(_mm256_mul_pd(fs[k], f[k][2]), s[k][2]);
    }
    HEIS_EACH
    {
        const __m256d vv =
            _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(v0[k], v0[k]), _mm256_mul_pd(v1[k], v1[k])),
                          _mm256_mul_pd(v2[k], v2[k]));
        inv[k] = _mm256_div_pd(one, _mm256_sqrt_pd(vv));
    }
    HEIS_EACH
    {
        const __m256d keep = _mm256_cmp_pd(hh[k], zero, _CMP_NGT_UQ);
        out[k][0] = heis_sel(keep, s[k][0], heis_to_float(_mm256_mul_pd(v0[k], inv[k])));
        out[k][1] = heis_sel(keep, s[k][1], heis_to_float(_mm256_mul_pd(v1[k], inv[k])));
        out[k][2] = heis_sel(keep, s[k][2], heis_to_float(_mm256_mul_pd(v2[k], inv[k])));
    }
}

/* latmc_heisenberg_uniform: (r + 1/2) 2^-32, exact in double. */
static inline __m256d heis_uniform_avx2(__m128i r)
{
    const __m256d rs = _mm256_cvtepi32_pd(_mm_xor_si128(r, _mm_set1_epi32((int)0x80000000u)));
    return _mm256_mul_pd(_mm256_add_pd(rs, _mm256_set1_pd(2147483648.5)), _mm256_set1_pd(0x1p-32));
}

/* latmc_heisenberg_sample_cos on two vectors (the two logarithms interleaved): every branch
 * on every lane, then each lane takes its own. */
static inline void heis_sample_cos_pair_avx2(const __m256d a[2], const __m256d u[2], __m256d x[2])
{
    const __m256d one = _mm256_set1_pd(1.0), zero = _mm256_setzero_pd();
    __m256d t[2], y[2], small[2], arg[2], lg[2];
    for (int i = 0; i < 2; i++) {
        /* a >= 0.5: 1 + log(u + (1 - u) exp(-2a)) / a; 1e-8 <= a < 0.5:
         * 1 + log1p((1 - u) expm1(-2a)) / a, log1p(t) = t if 1 + t == 1, else
         * log(1 + t) (t / ((1 + t) - 1)) */
        const __m256d xm = _mm256_mul_pd(_mm256_set1_pd(-2.0), a[i]);
        __m256d scale;
        const __m256d pe = latmc_exp_kernel_avx2(xm, &scale);
        const __m256d ex = heis_sel(_mm256_cmp_pd(xm, _mm256_set1_pd(-708.0), _CMP_LT_OQ), zero,
                                    _mm256_mul_pd(scale, _mm256_add_pd(one, pe)));
        const __m256d em1 = _mm256_add_pd(_mm256_mul_pd(scale, pe), _mm256_sub_pd(scale, one));
        const __m256d omu = _mm256_sub_pd(one, u[i]);
        t[i] = _mm256_mul_pd(omu, em1);
        y[i] = _mm256_add_pd(one, t[i]);
        small[i] = _mm256_cmp_pd(a[i], _mm256_set1_pd(0.5), _CMP_LT_OQ);
        arg[i] = heis_sel(small[i], y[i], _mm256_add_pd(u[i], _mm256_mul_pd(omu, ex)));
    }
    latmc_log_avx2_n(arg, lg);
    for (int i = 0; i < 2; i++) {
        const __m256d l1p =
            heis_sel(_mm256_cmp_pd(y[i], one, _CMP_EQ_OQ), t[i],
                     _mm256_mul_pd(lg[i], _mm256_div_pd(t[i], _mm256_sub_pd(y[i], one))));
        const __m256d l = heis_sel(small[i], l1p, lg[i]);
        const __m256d xlog = _mm256_add_pd(one, _mm256_div_pd(l, a[i]));
        /* a < 1e-8: y2 + 0.5 a (1 - y2)(1 + y2), y2 = 2u - 1; a == 0: y2 */
        const __m256d y2 = _mm256_sub_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), u[i]), one);
        const __m256d h =
            _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.5), a[i]), _mm256_sub_pd(one, y2));
        const __m256d xlin = _mm256_add_pd(y2, _mm256_mul_pd(h, _mm256_add_pd(one, y2)));
        __m256d xi = heis_sel(_mm256_cmp_pd(a[i], _mm256_set1_pd(1e-8), _CMP_LT_OQ), xlin, xlog);
        xi = heis_sel(_mm256_cmp_pd(a[i], zero, _CMP_EQ_OQ), y2, xi);
        /* clamp to [-1, 1]: x < -1 ? -1 : x > 1 ? 1 : x */
        xi = heis_sel(_mm256_cmp_pd(xi, one, _CMP_GT_OQ), one, xi);
        x[i] =
            heis_sel(_mm256_cmp_pd(xi, _mm256_set1_pd(-1.0), _CMP_LT_OQ), _mm256_set1_pd(-1.0), xi);
    }
}

static inline __m256d heis_abs(__m256d x)
{
    return _mm256_andnot_pd(_mm256_set1_pd(-0.0), x);
}

/* The heat-bath spin (latmc_heisenberg_heatbath_spin) after cos theta = x: direction nv of
 * the field, azimuth from u_phi. */
static inline void heis_heatbath_spin_avx2(const __m256d nv[3], __m256d x, __m256d u_phi,
                                           __m256d out[3])
{
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d sin_theta =
        _mm256_sqrt_pd(_mm256_mul_pd(_mm256_sub_pd(one, x), _mm256_add_pd(one, x)));
    __m256d sin_phi, cos_phi;
    latmc_sincos_2pi_avx2(u_phi, &sin_phi, &cos_phi);
    const __m256d c1 = _mm256_mul_pd(sin_theta, cos_phi), c2 = _mm256_mul_pd(sin_theta, sin_phi);
    /* frame: k = (ax <= ay && ax <= az) ? 0 : (ay <= az ? 1 : 2) */
    const __m256d ax = heis_abs(nv[0]), ay = heis_abs(nv[1]), az = heis_abs(nv[2]);
    const __m256d k0 =
        _mm256_and_pd(_mm256_cmp_pd(ax, ay, _CMP_LE_OQ), _mm256_cmp_pd(ax, az, _CMP_LE_OQ));
    const __m256d k1 = _mm256_andnot_pd(k0, _mm256_cmp_pd(ay, az, _CMP_LE_OQ));
    const __m256d k2 =
        _mm256_andnot_pd(_mm256_or_pd(k0, k1), _mm256_castsi256_pd(_mm256_set1_epi64x(-1)));
    const __m256d tn = heis_sel(k0, nv[0], heis_sel(k1, nv[1], nv[2]));
    __m256d t[3];
    t[0] = _mm256_sub_pd(_mm256_and_pd(k0, one), _mm256_mul_pd(tn, nv[0]));
    t[1] = _mm256_sub_pd(_mm256_and_pd(k1, one), _mm256_mul_pd(tn, nv[1]));
    t[2] = _mm256_sub_pd(_mm256_and_pd(k2, one), _mm256_mul_pd(tn, nv[2]));
    const __m256d tinv = _mm256_div_pd(one, _mm256_sqrt_pd(heis_dot3(t, t)));
    __m256d e1[3], e2[3];
    for (int c = 0; c < 3; c++)
        e1[c] = _mm256_mul_pd(t[c], tinv);
    e2[0] = _mm256_sub_pd(_mm256_mul_pd(nv[1], e1[2]), _mm256_mul_pd(nv[2], e1[1]));
    e2[1] = _mm256_sub_pd(_mm256_mul_pd(nv[2], e1[0]), _mm256_mul_pd(nv[0], e1[2]));
    e2[2] = _mm256_sub_pd(_mm256_mul_pd(nv[0], e1[1]), _mm256_mul_pd(nv[1], e1[0]));
    __m256d v[3];
    for (int c = 0; c < 3; c++)
        v[c] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(x, nv[c]), _mm256_mul_pd(c1, e1[c])),
                             _mm256_mul_pd(c2, e2[c]));
    const __m256d inv = _mm256_div_pd(one, _mm256_sqrt_pd(heis_dot3(v, v)));
    for (int c = 0; c < 3; c++)
        out[c] = heis_to_float(_mm256_mul_pd(v[c], inv));
}

/* Two vectors' heat-bath spins from their fields and uniforms. */
static inline void heis_heatbath_pair_avx2(const __m256d field[2][3], double beta,
                                           const __m256d u_cos[2], const __m256d u_phi[2],
                                           __m256d out[2][3])
{
    const __m256d zero = _mm256_setzero_pd(), one = _mm256_set1_pd(1.0);
    __m256d nv[2][3], a[2], x[2];
    for (int i = 0; i < 2; i++) {
        /* len = |H|, n = H / len (e_z when len = 0), a = beta len */
        const __m256d len = _mm256_sqrt_pd(heis_dot3(field[i], field[i]));
        const __m256d pos = _mm256_cmp_pd(len, zero, _CMP_GT_OQ);
        nv[i][0] = heis_sel(pos, _mm256_div_pd(field[i][0], len), zero);
        nv[i][1] = heis_sel(pos, _mm256_div_pd(field[i][1], len), zero);
        nv[i][2] = heis_sel(pos, _mm256_div_pd(field[i][2], len), one);
        a[i] = _mm256_mul_pd(_mm256_set1_pd(beta), len);
    }
    heis_sample_cos_pair_avx2(a, u_cos, x);
    for (int i = 0; i < 2; i++)
        heis_heatbath_spin_avx2(nv[i], x[i], u_phi[i], out[i]);
}

#endif
