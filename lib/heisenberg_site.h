/*
 * Internal: the per-site rules of the Heisenberg chain (doc/models/heisenberg.md) written
 * once for every backend and precision: heat bath and overrelaxation as pure functions of
 * the local field and the uniform numbers. C has no templates, so this body is included
 * with its arithmetic named by macros (no include guard; each includer defines them,
 * includes this file, and the file undefines them at its end):
 *
 *   HEISENBERG_R               the real type (double; float for CUDA's FLOAT precision)
 *   HEISENBERG_QUAL            the functions' qualifiers (static inline; __device__
 * __forceinline__) HEISENBERG_SQRT, HEISENBERG_LOG, HEISENBERG_LOG1P, HEISENBERG_EXP,
 * HEISENBERG_EXPM1, HEISENBERG_ABS   the functions of one argument of that type
 *   HEISENBERG_SINCOS_2PI(u, s, c)   *s = sin(2 pi u), *c = cos(2 pi u)
 *
 * and, optionally (each defaults to the plain operation, so that the double instances are
 * the same expressions as ever):
 *
 *   HEISENBERG_DIV(a, b)       a / b
 *   HEISENBERG_RSQRT(x)        1 / sqrt(x)
 *   HEISENBERG_MADD(a, b, c)   c + a b, in this order (CUDA's float: one fused multiply-add)
 *   HEISENBERG_DIVISOR_OK(x)   x > 0 (CUDA's float: x >= 2^-126, a normal number, since its
 *                              division flushes a subnormal divisor to zero)
 *
 * lib/heisenberg_rules.h includes it with double and lib/latmc_math.h (the CPU, every SIMD
 * level's reference); backends/cuda/heisenberg/heisenberg_site_cuda.cuh with double and
 * with float and CUDA's functions (overloads by argument type; float with the hardware's
 * approximate division, square roots, exp, log and sine, doc/cuda.md). Every operation is
 * written in one order here, so the backends' chains differ only where their functions
 * round differently.
 */
#ifndef HEISENBERG_DIV
#define HEISENBERG_DIV(a, b) ((a) / (b))
#endif
#ifndef HEISENBERG_RSQRT
#define HEISENBERG_RSQRT(x) ((HEISENBERG_R)1 / HEISENBERG_SQRT(x))
#endif
#ifndef HEISENBERG_MADD
#define HEISENBERG_MADD(a, b, c) ((c) + (a) * (b))
#endif
#ifndef HEISENBERG_DIVISOR_OK
#define HEISENBERG_DIVISOR_OK(x) ((x) > (HEISENBERG_R)0)
#endif

/*
 * x = cos(theta) in [-1, 1] with density p(x) ~ exp(a x), a = beta |H| >= 0, by inverting
 * the distribution function F(x) = (e^{a x} - e^{-a}) / (e^{a} - e^{-a}) at u in (0, 1):
 *     x = 1 + log(u + (1 - u) e^{-2a}) / a.
 * Each branch is accurate to ~1e-15 absolute (in double) where it is used:
 *   a == 0         : x = 2u - 1 (uniform), exactly;
 *   a < 1e-8       : x = y + a (1 - y^2) / 2, y = 2u - 1 (first order in a; error O(a^2));
 *   a < 0.5        : x = 1 + log1p((1 - u) expm1(-2a)) / a (no cancellation in 1 - 2a);
 *   otherwise      : the formula as written (its argument >= e^{-2a} is a sum of positive
 *                    terms, and e^{-2a} underflowing to 0 leaves x = 1 + log(u) / a).
 * The result is clamped to [-1, 1] against rounding.
 */
HEISENBERG_QUAL HEISENBERG_R latmc_heisenberg_sample_cos(HEISENBERG_R a, HEISENBERG_R u)
{
    HEISENBERG_R x;
    if (a == (HEISENBERG_R)0) {
        x = (HEISENBERG_R)2 * u - (HEISENBERG_R)1;
    } else if (a < (HEISENBERG_R)1e-8) {
        const HEISENBERG_R y = (HEISENBERG_R)2 * u - (HEISENBERG_R)1;
        x = y + (HEISENBERG_R)0.5 * a * ((HEISENBERG_R)1 - y) * ((HEISENBERG_R)1 + y);
    } else if (a < (HEISENBERG_R)0.5) {
        x = (HEISENBERG_R)1 +
            HEISENBERG_DIV(HEISENBERG_LOG1P(((HEISENBERG_R)1 - u) *
                                            HEISENBERG_EXPM1((HEISENBERG_R)-2 * a)),
                           a);
    } else {
        x = (HEISENBERG_R)1 +
            HEISENBERG_DIV(HEISENBERG_LOG(HEISENBERG_MADD((HEISENBERG_R)1 - u,
                                                          HEISENBERG_EXP((HEISENBERG_R)-2 * a),
                                                          u)),
                           a);
    }
    return x < (HEISENBERG_R)-1 ? (HEISENBERG_R)-1 : x > (HEISENBERG_R)1 ? (HEISENBERG_R)1 : x;
}

HEISENBERG_QUAL HEISENBERG_R latmc_heisenberg_dot(const HEISENBERG_R a[3], const HEISENBERG_R b[3])
{
    return HEISENBERG_MADD(a[2], b[2], HEISENBERG_MADD(a[1], b[1], a[0] * b[0]));
}

/* v / |v| (|v| > 0), rounded to float: every stored spin goes through here. */
HEISENBERG_QUAL void latmc_heisenberg_store_unit(const HEISENBERG_R v[3], float out[3])
{
    const HEISENBERG_R inv = HEISENBERG_RSQRT(latmc_heisenberg_dot(v, v));
    out[0] = (float)(v[0] * inv);
    out[1] = (float)(v[1] * inv);
    out[2] = (float)(v[2] * inv);
}

/*
 * A right-handed orthonormal frame (e1, e2, n) around the unit vector n: e1 is the
 * coordinate axis least aligned with n (the first such in the order x, y, z), made
 * orthogonal to n and normalised; e2 = n x e1. (Selects, not indexing by k: a GPU keeps
 * the arrays in registers.)
 */
HEISENBERG_QUAL void latmc_heisenberg_frame(const HEISENBERG_R n[3], HEISENBERG_R e1[3],
                                            HEISENBERG_R e2[3])
{
    const HEISENBERG_R ax = HEISENBERG_ABS(n[0]), ay = HEISENBERG_ABS(n[1]),
                       az = HEISENBERG_ABS(n[2]);
    const int k = (ax <= ay && ax <= az) ? 0 : (ay <= az ? 1 : 2);
    const HEISENBERG_R tn = k == 0 ? n[0] : k == 1 ? n[1] : n[2];
    HEISENBERG_R t[3] = { k == 0 ? (HEISENBERG_R)1 : (HEISENBERG_R)0,
                          k == 1 ? (HEISENBERG_R)1 : (HEISENBERG_R)0,
                          k == 2 ? (HEISENBERG_R)1 : (HEISENBERG_R)0 };
    for (int c = 0; c < 3; c++)
        t[c] = HEISENBERG_MADD(-tn, n[c], t[c]);
    const HEISENBERG_R inv = HEISENBERG_RSQRT(latmc_heisenberg_dot(t, t));
    for (int c = 0; c < 3; c++)
        e1[c] = t[c] * inv;
    e2[0] = HEISENBERG_MADD(n[1], e1[2], -(n[2] * e1[1]));
    e2[1] = HEISENBERG_MADD(n[2], e1[0], -(n[0] * e1[2]));
    e2[2] = HEISENBERG_MADD(n[0], e1[1], -(n[1] * e1[0]));
}

/*
 * Heat bath: a new spin drawn from p(s) ~ exp(beta s . H), independent of the old one.
 * cos(theta) to H from u_cos (latmc_heisenberg_sample_cos with a = beta |H|), azimuth
 * 2 pi u_phi in the frame of latmc_heisenberg_frame(H / |H|); for H = 0 the frame is that
 * of e_z (the spin is then uniform on the sphere).
 */
HEISENBERG_QUAL void latmc_heisenberg_heatbath_spin(const HEISENBERG_R field[3], HEISENBERG_R beta,
                                                    HEISENBERG_R u_cos, HEISENBERG_R u_phi,
                                                    float out[3])
{
    const HEISENBERG_R len = HEISENBERG_SQRT(latmc_heisenberg_dot(field, field));
    HEISENBERG_R n[3] = { (HEISENBERG_R)0, (HEISENBERG_R)0, (HEISENBERG_R)1 };
    if (len > (HEISENBERG_R)0)
        for (int c = 0; c < 3; c++)
            n[c] = HEISENBERG_DIV(field[c], len);
    const HEISENBERG_R x = latmc_heisenberg_sample_cos(beta * len, u_cos);
    const HEISENBERG_R sin_theta = HEISENBERG_SQRT(((HEISENBERG_R)1 - x) * ((HEISENBERG_R)1 + x));
    HEISENBERG_R sin_phi, cos_phi;
    HEISENBERG_SINCOS_2PI(u_phi, &sin_phi, &cos_phi);
    const HEISENBERG_R c1 = sin_theta * cos_phi, c2 = sin_theta * sin_phi;
    HEISENBERG_R e1[3], e2[3], v[3];
    latmc_heisenberg_frame(n, e1, e2);
    for (int c = 0; c < 3; c++)
        v[c] = HEISENBERG_MADD(c2, e2[c], HEISENBERG_MADD(c1, e1[c], x * n[c]));
    latmc_heisenberg_store_unit(v, out);
}

/*
 * Overrelaxation: the reflection of s about the local field, s -> 2 (H.s)/(H.H) H - s,
 * which keeps s . H and hence the energy. Left unchanged when H = 0.
 */
HEISENBERG_QUAL void latmc_heisenberg_overrelax_spin(const HEISENBERG_R field[3], float s[3])
{
    const HEISENBERG_R hh = latmc_heisenberg_dot(field, field);
    if (!HEISENBERG_DIVISOR_OK(hh))
        return;
    const HEISENBERG_R old[3] = { (HEISENBERG_R)s[0], (HEISENBERG_R)s[1], (HEISENBERG_R)s[2] };
    const HEISENBERG_R f = HEISENBERG_DIV((HEISENBERG_R)2 * latmc_heisenberg_dot(field, old), hh);
    HEISENBERG_R v[3];
    for (int c = 0; c < 3; c++)
        v[c] = HEISENBERG_MADD(f, field[c], -old[c]);
    latmc_heisenberg_store_unit(v, s);
}

#undef HEISENBERG_R
#undef HEISENBERG_QUAL
#undef HEISENBERG_SQRT
#undef HEISENBERG_LOG
#undef HEISENBERG_LOG1P
#undef HEISENBERG_EXP
#undef HEISENBERG_EXPM1
#undef HEISENBERG_ABS
#undef HEISENBERG_SINCOS_2PI
#undef HEISENBERG_DIV
#undef HEISENBERG_RSQRT
#undef HEISENBERG_MADD
#undef HEISENBERG_DIVISOR_OK
