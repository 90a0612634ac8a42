/*
 * The per-site rules of the Heisenberg chain (doc/models/heisenberg.md), as pure
 * functions of the local field and the random numbers: heat bath, overrelaxation, and
 * the conversions from 32-bit draws. Everything is computed in double; spins are stored
 * as floats, normalised in double just before rounding. The transcendental functions are
 * the shared ones of lib/latmc_math.h (not libm's), so that every SIMD level and backend
 * computes the same bits; sqrt is IEEE's, correctly rounded everywhere. The lattice loops
 * (heisenberg_sweep.c) only gather local fields and call these; the unit tests call them
 * directly. The per-block draws of the couplings and of the hot start live here too:
 * the CUDA module runs them on its host side, so that both backends get the very same
 * couplings and hot starts.
 */
#ifndef LATMC_CPU_HEISENBERG_RULES_H
#define LATMC_CPU_HEISENBERG_RULES_H

#include <math.h>
#include <stdint.h>

#include "coupling_draws.h"
#include "heisenberg.h"
#include "latmc_math.h"
#include "rng_streams.h"

/* A 32-bit draw as a uniform number in (0, 1): (r + 1/2) 2^-32, never 0 or 1. */
static inline double cpu_heisenberg_uniform(uint32_t r)
{
    return ((double)r + 0.5) * 0x1p-32;
}

/*
 * x = cos(theta) in [-1, 1] with density p(x) ~ exp(a x), a = beta |H| >= 0, by inverting
 * the distribution function F(x) = (e^{a x} - e^{-a}) / (e^{a} - e^{-a}) at u in (0, 1):
 *     x = 1 + log(u + (1 - u) e^{-2a}) / a.
 * Each branch is accurate to ~1e-15 absolute where it is used:
 *   a == 0         : x = 2u - 1 (uniform), exactly;
 *   a < 1e-8       : x = y + a (1 - y^2) / 2, y = 2u - 1 (first order in a; error O(a^2));
 *   a < 0.5        : x = 1 + log1p((1 - u) expm1(-2a)) / a (no cancellation in 1 - 2a);
 *   otherwise      : the formula as written (its argument >= e^{-2a} is a sum of positive
 *                    terms, and e^{-2a} underflowing to 0 leaves x = 1 + log(u) / a).
 * The result is clamped to [-1, 1] against rounding.
 */
static inline double cpu_heisenberg_sample_cos(double a, double u)
{
    double x;
    if (a == 0.0) {
        x = 2.0 * u - 1.0;
    } else if (a < 1e-8) {
        const double y = 2.0 * u - 1.0;
        x = y + 0.5 * a * (1.0 - y) * (1.0 + y);
    } else if (a < 0.5) {
        x = 1.0 + latmc_math_log1p((1.0 - u) * latmc_math_expm1(-2.0 * a)) / a;
    } else {
        x = 1.0 + latmc_math_log(u + (1.0 - u) * latmc_math_exp(-2.0 * a)) / a;
    }
    return x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
}

static inline double cpu_heisenberg_dot(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* v / |v| (|v| > 0), rounded to float: every stored spin goes through here. */
static inline void cpu_heisenberg_store_unit(const double v[3], float out[3])
{
    const double inv = 1.0 / sqrt(cpu_heisenberg_dot(v, v));
    out[0] = (float)(v[0] * inv);
    out[1] = (float)(v[1] * inv);
    out[2] = (float)(v[2] * inv);
}

/*
 * A right-handed orthonormal frame (e1, e2, n) around the unit vector n: e1 is the
 * coordinate axis least aligned with n (the first such in the order x, y, z), made
 * orthogonal to n and normalised; e2 = n x e1.
 */
static inline void cpu_heisenberg_frame(const double n[3], double e1[3], double e2[3])
{
    const double ax = fabs(n[0]), ay = fabs(n[1]), az = fabs(n[2]);
    const int k = (ax <= ay && ax <= az) ? 0 : (ay <= az ? 1 : 2);
    double t[3] = { 0.0, 0.0, 0.0 };
    t[k] = 1.0;
    const double tn = n[k];
    for (int c = 0; c < 3; c++)
        t[c] -= tn * n[c];
    const double inv = 1.0 / sqrt(cpu_heisenberg_dot(t, t));
    for (int c = 0; c < 3; c++)
        e1[c] = t[c] * inv;
    e2[0] = n[1] * e1[2] - n[2] * e1[1];
    e2[1] = n[2] * e1[0] - n[0] * e1[2];
    e2[2] = n[0] * e1[1] - n[1] * e1[0];
}

/*
 * Heat bath: a new spin drawn from p(s) ~ exp(beta s . H), independent of the old one.
 * cos(theta) to H from u_cos (cpu_heisenberg_sample_cos with a = beta |H|), azimuth
 * 2 pi u_phi (latmc_math_sincos_2pi) in the frame of cpu_heisenberg_frame(H / |H|); for H = 0
 * the frame is that of e_z (the spin is then uniform on the sphere).
 */
static inline void cpu_heisenberg_heatbath_spin(const double field[3], double beta,
                                                double u_cos, double u_phi, float out[3])
{
    const double len = sqrt(cpu_heisenberg_dot(field, field));
    double n[3] = { 0.0, 0.0, 1.0 };
    if (len > 0.0)
        for (int c = 0; c < 3; c++)
            n[c] = field[c] / len;
    const double x = cpu_heisenberg_sample_cos(beta * len, u_cos);
    const double sin_theta = sqrt((1.0 - x) * (1.0 + x));
    double sin_phi, cos_phi;
    latmc_math_sincos_2pi(u_phi, &sin_phi, &cos_phi);
    const double c1 = sin_theta * cos_phi, c2 = sin_theta * sin_phi;
    double e1[3], e2[3], v[3];
    cpu_heisenberg_frame(n, e1, e2);
    for (int c = 0; c < 3; c++)
        v[c] = x * n[c] + c1 * e1[c] + c2 * e2[c];
    cpu_heisenberg_store_unit(v, out);
}

/*
 * Overrelaxation: the reflection of s about the local field, s -> 2 (H.s)/(H.H) H - s,
 * which keeps s . H and hence the energy. Left unchanged when H = 0.
 */
static inline void cpu_heisenberg_overrelax_spin(const double field[3], float s[3])
{
    const double hh = cpu_heisenberg_dot(field, field);
    if (!(hh > 0.0))
        return;
    const double old[3] = { s[0], s[1], s[2] };
    const double f = 2.0 * cpu_heisenberg_dot(field, old) / hh;
    double v[3];
    for (int c = 0; c < 3; c++)
        v[c] = f * field[c] - old[c];
    cpu_heisenberg_store_unit(v, s);
}

/* A spin uniform on the sphere (hot start): cos(theta) = 2 u_z - 1 to e_z, azimuth 2 pi u_phi. */
static inline void cpu_heisenberg_uniform_spin(double u_z, double u_phi, float out[3])
{
    const double z = 2.0 * u_z - 1.0;
    const double r = sqrt((1.0 - z) * (1.0 + z));
    double sin_phi, cos_phi;
    latmc_math_sincos_2pi(u_phi, &sin_phi, &cos_phi);
    const double v[3] = { r * cos_phi, r * sin_phi, z };
    cpu_heisenberg_store_unit(v, out);
}

/* A Gaussian coupling (mean 0, variance 1) by Box-Muller from two uniforms in (0, 1). */
static inline float cpu_heisenberg_gaussian_coupling(double u1, double u2)
{
    double sin_phi, cos_phi;
    latmc_math_sincos_2pi(u2, &sin_phi, &cos_phi);
    return (float)(sqrt(-2.0 * latmc_math_log(u1)) * cos_phi);
}

/* A +-1 coupling: +1 when the top bit of the draw is clear (lib/coupling_draws.h, the
 * very rule of the Ising +-J couplings). */
static inline float cpu_heisenberg_bimodal_coupling(uint32_t r)
{
    return (float)latmc_bimodal_sign(r);
}

/*
 * Couplings 4b .. 4b + 3 of n (coupling k = ndim i + mu) of the kind `kind`: key
 * coupling_seed, COUPLINGS stream (replica 0: both replicas share them), sweep 0,
 * phase 0; sub 0 the first draw, sub 1 the second (doc/models/heisenberg.md).
 */
static inline void cpu_heisenberg_couplings_block(float *couplings, int64_t n, int kind,
                                                  uint64_t coupling_seed, int64_t b)
{
    latmc_philox_ctr r0 = { { 0, 0, 0, 0 } }, r1 = { { 0, 0, 0, 0 } };
    if (kind != LATMC_COUPLINGS_UNIFORM)
        r0 = latmc_coupling_draws(coupling_seed, b, 0);
    if (kind == LATMC_COUPLINGS_GAUSSIAN)
        r1 = latmc_coupling_draws(coupling_seed, b, 1);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++) {
        float j = 1.0f;
        if (kind == LATMC_COUPLINGS_GAUSSIAN)
            j = cpu_heisenberg_gaussian_coupling(cpu_heisenberg_uniform(r0.v[lane]),
                                                 cpu_heisenberg_uniform(r1.v[lane]));
        else if (kind == LATMC_COUPLINGS_BIMODAL)
            j = cpu_heisenberg_bimodal_coupling(r0.v[lane]);
        couplings[4 * b + lane] = j;
    }
}

/* Hot start of sites 4b .. 4b + 3 of n (3 floats per site): the INIT stream `stream` of
 * the replica, sweep 0, phase 0; sub 0 gives cos(theta) = 2u - 1 to e_z, sub 1 the
 * azimuth. */
static inline void cpu_heisenberg_hot_block(float *spins, int64_t n, uint64_t seed,
                                            uint32_t stream, int64_t b)
{
    const latmc_philox_ctr rz = latmc_rng_block(seed, (uint64_t)b, 0, stream, 0, 0);
    const latmc_philox_ctr rphi = latmc_rng_block(seed, (uint64_t)b, 0, stream, 0, 1);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        cpu_heisenberg_uniform_spin(cpu_heisenberg_uniform(rz.v[lane]),
                                    cpu_heisenberg_uniform(rphi.v[lane]),
                                    spins + LATMC_HEISENBERG_COMPONENTS * (4 * b + lane));
}

#endif
