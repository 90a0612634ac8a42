/*
 * The per-site rules of the Heisenberg chain (heisenberg_rules.h) on vectors of HEISENBERG_W
 * sites, written once for every SIMD level over the level's primitives (heisenberg_vec_
 * avx2.h, heisenberg_vec_avx512.h: hv, hm, hv_add ..., the shared transcendental functions),
 * lane by lane the same IEEE double operations as the scalar originals: the uniform
 * conversion, the heat bath (latmc_heisenberg_sample_cos, _heatbath_spin: every branch on
 * every lane, each lane keeping its own), the reflection (latmc_heisenberg_overrelax_spin),
 * the rounding of a stored spin to float. Included by the level's primitives header after
 * its definitions; tests/kernels/test_simd_rules.c checks the AVX2 instance against the
 * originals, tests/checkasm every level's whole steps.
 */
#ifndef LATMC_CPU_HEISENBERG_RULES_SIMD_H
#define LATMC_CPU_HEISENBERG_RULES_SIMD_H

#include "heisenberg_rules.h"

enum {
    HEISENBERG_V = 4
}; /* vectors of HEISENBERG_W sites updated together (heisenberg_overrelax) */
#define HEISENBERG_EACH _Pragma("GCC unroll 4") for (int k = 0; k < HEISENBERG_V; k++)

static inline hv heisenberg_sel(hm mask, hv yes, hv no)
{
    return hv_sel(mask, yes, no);
}

/* a . b, summed x, y, z (latmc_heisenberg_dot). */
static inline hv heisenberg_dot3(const hv a[3], const hv b[3])
{
    return hv_add(hv_add(hv_mul(a[0], b[0]), hv_mul(a[1], b[1])), hv_mul(a[2], b[2]));
}

/*
 * latmc_heisenberg_overrelax_spin, s -> 2 (H.s)/(H.H) H - s normalised and rounded to float
 * (unchanged where !(H.H > 0)), in pieces that the row loop issues as stages of a software
 * pipeline, each for a different vector (overrelax_rows in heisenberg_simd_tmpl.h): the
 * first half (the division 2 (H.s) / (H.H), v, v.v), the square root, then the division
 * 1 / sqrt(v.v) and the rounding (heisenberg_reflect_end_sqrt).
 *
 * The first half: v = 2 (H.s)/(H.H) H - s, its square v.v, and H.H (the keep test).
 */
static inline __attribute__((always_inline)) void heisenberg_reflect_begin(const hv f[3],
                                                                     const hv s[3], hv v[3],
                                                                     hv *vv, hv *hh)
{
    const hv h2 = heisenberg_dot3(f, f);
    const hv fs = hv_div(hv_mul(hv_set1(2.0), heisenberg_dot3(f, s)), h2);
    v[0] = hv_sub(hv_mul(fs, f[0]), s[0]);
    v[1] = hv_sub(hv_mul(fs, f[1]), s[1]);
    v[2] = hv_sub(hv_mul(fs, f[2]), s[2]);
    *vv = hv_add(hv_add(hv_mul(v[0], v[0]), hv_mul(v[1], v[1])), hv_mul(v[2], v[2]));
    *hh = h2;
}

/* The second half after its square root (root = sqrt(v.v)): v / root rounded to float,
 * right where H.H > 0. */
static inline __attribute__((always_inline)) void heisenberg_reflect_end_sqrt(const hv v[3],
                                                                              hv root, hv out[3])
{
    const hv inv = hv_div(hv_set1(1.0), root);
    out[0] = hv_to_float(hv_mul(v[0], inv));
    out[1] = hv_to_float(hv_mul(v[1], inv));
    out[2] = hv_to_float(hv_mul(v[2], inv));
}

/* The second half: v / sqrt(v.v) rounded to float, right where H.H > 0. */
static inline __attribute__((always_inline)) void heisenberg_reflect_end(const hv v[3], hv vv,
                                                                   hv out[3])
{
    heisenberg_reflect_end_sqrt(v, hv_sqrt(vv), out);
}

/* The lanes that keep their old spin: !(H.H > 0) (the reference's early return). */
static inline hm heisenberg_reflect_keep(hv hh)
{
    return hv_ngt(hh, hv_zero());
}

/* The whole reflection of HEISENBERG_V vectors (the scalar rule's vector form, which
 * tests/kernels/test_simd_rules.c checks). */
static inline __attribute__((always_inline)) void heisenberg_overrelax(const hv f[HEISENBERG_V][3],
                                                                 const hv s[HEISENBERG_V][3],
                                                                 hv out[HEISENBERG_V][3])
{
    HEISENBERG_EACH
    {
        hv v[3], vv, hh, o[3];
        heisenberg_reflect_begin(f[k], s[k], v, &vv, &hh);
        heisenberg_reflect_end(v, vv, o);
        const hm keep = heisenberg_reflect_keep(hh);
        out[k][0] = heisenberg_sel(keep, s[k][0], o[0]);
        out[k][1] = heisenberg_sel(keep, s[k][1], o[1]);
        out[k][2] = heisenberg_sel(keep, s[k][2], o[2]);
    }
}

/* latmc_heisenberg_uniform: (r + 1/2) 2^-32, exact in double (hv_from_i32_flipped: the
 * signed int32 r - 2^31 of each draw as a double, exact). */
static inline hv heisenberg_uniform(hu r)
{
    const hv rs = hv_from_i32_flipped(r);
    return hv_mul(hv_add(rs, hv_set1(2147483648.5)), hv_set1(0x1p-32));
}

/* latmc_heisenberg_sample_cos on two vectors (the two logarithms interleaved): every branch
 * on every lane, then each lane takes its own. */
static inline void heisenberg_sample_cos_pair(const hv a[2], const hv u[2], hv x[2])
{
    const hv one = hv_set1(1.0), zero = hv_zero();
    hv t[2], y[2], arg[2], lg[2];
    hm small[2];
    for (int i = 0; i < 2; i++) {
        /* a >= 0.5: 1 + log(u + (1 - u) exp(-2a)) / a; 1e-8 <= a < 0.5:
         * 1 + log1p((1 - u) expm1(-2a)) / a, log1p(t) = t if 1 + t == 1, else
         * log(1 + t) (t / ((1 + t) - 1)) */
        const hv xm = hv_mul(hv_set1(-2.0), a[i]);
        hv scale;
        const hv pe = hv_exp_kernel(xm, &scale);
        const hv ex = heisenberg_sel(hv_lt(xm, hv_set1(-708.0)), zero,
                                    hv_mul(scale, hv_add(one, pe)));
        const hv em1 = hv_add(hv_mul(scale, pe), hv_sub(scale, one));
        const hv omu = hv_sub(one, u[i]);
        t[i] = hv_mul(omu, em1);
        y[i] = hv_add(one, t[i]);
        small[i] = hv_lt(a[i], hv_set1(0.5));
        arg[i] = heisenberg_sel(small[i], y[i], hv_add(u[i], hv_mul(omu, ex)));
    }
    hv_log2(arg, lg);
    for (int i = 0; i < 2; i++) {
        const hv l1p =
            heisenberg_sel(hv_eq(y[i], one), t[i],
                     hv_mul(lg[i], hv_div(t[i], hv_sub(y[i], one))));
        const hv l = heisenberg_sel(small[i], l1p, lg[i]);
        const hv xlog = hv_add(one, hv_div(l, a[i]));
        /* a < 1e-8: y2 + 0.5 a (1 - y2)(1 + y2), y2 = 2u - 1; a == 0: y2 */
        const hv y2 = hv_sub(hv_mul(hv_set1(2.0), u[i]), one);
        const hv h =
            hv_mul(hv_mul(hv_set1(0.5), a[i]), hv_sub(one, y2));
        const hv xlin = hv_add(y2, hv_mul(h, hv_add(one, y2)));
        hv xi = heisenberg_sel(hv_lt(a[i], hv_set1(1e-8)), xlin, xlog);
        xi = heisenberg_sel(hv_eq(a[i], zero), y2, xi);
        /* clamp to [-1, 1]: x < -1 ? -1 : x > 1 ? 1 : x */
        xi = heisenberg_sel(hv_gt(xi, one), one, xi);
        x[i] = heisenberg_sel(hv_lt(xi, hv_set1(-1.0)), hv_set1(-1.0), xi);
    }
}

/* The heat-bath spin (latmc_heisenberg_heatbath_spin) after cos theta = x: direction nv of
 * the field, azimuth from u_phi. */
static inline void heisenberg_heatbath_spin(const hv nv[3], hv x, hv u_phi, hv out[3])
{
    const hv one = hv_set1(1.0);
    const hv sin_theta =
        hv_sqrt(hv_mul(hv_sub(one, x), hv_add(one, x)));
    hv sin_phi, cos_phi;
    hv_sincos_2pi(u_phi, &sin_phi, &cos_phi);
    const hv c1 = hv_mul(sin_theta, cos_phi), c2 = hv_mul(sin_theta, sin_phi);
    /* frame: k = (ax <= ay && ax <= az) ? 0 : (ay <= az ? 1 : 2) */
    const hv ax = hv_abs(nv[0]), ay = hv_abs(nv[1]), az = hv_abs(nv[2]);
    const hm k0 = hm_and(hv_le(ax, ay), hv_le(ax, az));
    const hm k1 = hm_andnot(k0, hv_le(ay, az));
    const hm k2 = hm_not(hm_or(k0, k1));
    const hv tn = heisenberg_sel(k0, nv[0], heisenberg_sel(k1, nv[1], nv[2]));
    hv t[3];
    t[0] = hv_sub(hv_and_mask(k0, one), hv_mul(tn, nv[0]));
    t[1] = hv_sub(hv_and_mask(k1, one), hv_mul(tn, nv[1]));
    t[2] = hv_sub(hv_and_mask(k2, one), hv_mul(tn, nv[2]));
    const hv tinv = hv_div(one, hv_sqrt(heisenberg_dot3(t, t)));
    hv e1[3], e2[3];
    for (int c = 0; c < 3; c++)
        e1[c] = hv_mul(t[c], tinv);
    e2[0] = hv_sub(hv_mul(nv[1], e1[2]), hv_mul(nv[2], e1[1]));
    e2[1] = hv_sub(hv_mul(nv[2], e1[0]), hv_mul(nv[0], e1[2]));
    e2[2] = hv_sub(hv_mul(nv[0], e1[1]), hv_mul(nv[1], e1[0]));
    hv v[3];
    for (int c = 0; c < 3; c++)
        v[c] = hv_add(hv_add(hv_mul(x, nv[c]), hv_mul(c1, e1[c])),
                             hv_mul(c2, e2[c]));
    const hv inv = hv_div(one, hv_sqrt(heisenberg_dot3(v, v)));
    for (int c = 0; c < 3; c++)
        out[c] = hv_to_float(hv_mul(v[c], inv));
}

/* The first part of two vectors' heat-bath spins: the field's direction nv (e_z where the
 * field is 0) and cos theta = x, drawn from u_cos (heisenberg_heatbath_spin does the rest). */
static inline void heisenberg_heatbath_pair_begin(const hv field[2][3], double beta,
                                            const hv u_cos[2], hv nv[2][3], hv x[2])
{
    const hv zero = hv_zero(), one = hv_set1(1.0);
    hv a[2];
    for (int i = 0; i < 2; i++) {
        /* len = |H|, n = H / len (e_z when len = 0), a = beta len */
        const hv len = hv_sqrt(heisenberg_dot3(field[i], field[i]));
        const hm pos = hv_gt(len, zero);
        nv[i][0] = heisenberg_sel(pos, hv_div(field[i][0], len), zero);
        nv[i][1] = heisenberg_sel(pos, hv_div(field[i][1], len), zero);
        nv[i][2] = heisenberg_sel(pos, hv_div(field[i][2], len), one);
        a[i] = hv_mul(hv_set1(beta), len);
    }
    heisenberg_sample_cos_pair(a, u_cos, x);
}

/* Two vectors' heat-bath spins from their fields and uniforms. */
static inline void heisenberg_heatbath_pair(const hv field[2][3], double beta, const hv u_cos[2],
                                      const hv u_phi[2], hv out[2][3])
{
    hv nv[2][3], x[2];
    heisenberg_heatbath_pair_begin(field, beta, u_cos, nv, x);
    for (int i = 0; i < 2; i++)
        heisenberg_heatbath_spin(nv[i], x[i], u_phi[i], out[i]);
}

#endif
