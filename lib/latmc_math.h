/*
 * Internal: the transcendental functions of the floating-point Markov chains (phi^4 and
 * Heisenberg), one implementation shared by the C reference, every SIMD level and
 * (LATMC_HOSTDEV) CUDA.
 *
 * Why not libm: a chain is bit-reproducible only if every backend computes the very same
 * numbers, and libm's log/exp/cos differ between C libraries, versions and vector
 * libraries. These functions are written as a fixed sequence of IEEE 754 operations --
 * +, -, *, / and conversions, each rounded to nearest, no fused multiply-add, plus
 * exponent manipulation on the bit pattern -- so that a SIMD kernel evaluates each lane
 * with the same operations in the same order and gets the same bits
 * (the backends/cpu AVX2 files; the kernels test suite checks it). Exact steps (exponent
 * extraction, power-of-two scaling, conversions of small integers) may be done by any
 * exact means; every rounded step must be done as written. sqrt is IEEE's correctly
 * rounded square root everywhere (sqrt(), vsqrtpd), so it needs no shared version.
 *
 * Accuracy against libm over dense sweeps of the domains below (tests/unit/
 * test_latmc_math.c, doc/models/phi4.md and heisenberg.md): within 1 ulp for logf and
 * exp, 1.5 ulp for log, 2 ulp for the sine and cosine, 2.5 ulp for expm1 and 3 ulp for
 * log1p (about a double's 1e-16 relative: far below anything a Markov chain can resolve,
 * and the same function on every backend). Domains (the callers stay inside them;
 * outside, results are unspecified, never a trap):
 *   latmc_math_logf        positive normal floats
 *   latmc_math_log         positive normal doubles
 *   latmc_math_log1p       t > -1 with 1 + t normal
 *   latmc_math_exp         x <= 709 (0 below -708)
 *   latmc_math_expm1       x <= 709
 *   latmc_math_sincos_2pi  |u| <= 2^50
 */
#ifndef LATMC_LIB_MATH_H
#define LATMC_LIB_MATH_H

#include <stdint.h>
#include <string.h>

#include "philox.h" /* LATMC_HOSTDEV */

/* ---------------------------------------------------------------------------------- */
/* Constants (hex literals: exact, whatever the compiler's decimal conversion)          */

/* ln 2 split for exact products k * LN2_HI: double with 42 significant bits (|k| < 2^11),
 * float with 16 (|k| < 2^8); the LO parts are ln 2 - HI rounded. */
#define LATMC_MATH_LN2_HI 0x1.62e42fefa38p-1
#define LATMC_MATH_LN2_LO 0x1.ef35793c7673p-45
#define LATMC_MATH_LN2_HI_F 0x1.62e4p-1f
#define LATMC_MATH_LN2_LO_F 0x1.7f7d1cp-20f
#define LATMC_MATH_INV_LN2 0x1.71547652b82fep+0
#define LATMC_MATH_PI_2 0x1.921fb54442d18p+0
/* Adding then subtracting 1.5 * 2^52 rounds a double of magnitude < 2^51 to the nearest
 * integer (ties to even), which then sits in the low bits of the sum. */
#define LATMC_MATH_ROUND_MAGIC 0x1.8p52
/* Bit patterns of the mantissa bound sqrt(2) rounded down (above it, m is halved). */
#define LATMC_MATH_SQRT2_BITS_F 0x3fb504f3u
#define LATMC_MATH_SQRT2_BITS UINT64_C(0x3ff6a09e667f3bcc)

/*
 * log(1 + f) = 2 atanh(s), s = f / (2 + f): 2s + s R(z), z = s^2,
 *   R(z) = sum_k 2 z^k / (2k + 1)  (k >= 1), the Taylor series, truncated where the next
 * term is below 2^-56 (double, |z| <= 0.0295: 9 terms) or 2^-30 (float: 4 terms).
 */
#define LATMC_MATH_LOG_C1 0x1.5555555555555p-1  /* 2/3 */
#define LATMC_MATH_LOG_C2 0x1.999999999999ap-2  /* 2/5 */
#define LATMC_MATH_LOG_C3 0x1.2492492492492p-2  /* 2/7 */
#define LATMC_MATH_LOG_C4 0x1.c71c71c71c71cp-3  /* 2/9 */
#define LATMC_MATH_LOG_C5 0x1.745d1745d1746p-3  /* 2/11 */
#define LATMC_MATH_LOG_C6 0x1.3b13b13b13b14p-3  /* 2/13 */
#define LATMC_MATH_LOG_C7 0x1.1111111111111p-3  /* 2/15 */
#define LATMC_MATH_LOG_C8 0x1.e1e1e1e1e1e1ep-4  /* 2/17 */
#define LATMC_MATH_LOG_C9 0x1.af286bca1af28p-4  /* 2/19 */
#define LATMC_MATH_LOG_C1_F 0x1.555556p-1f
#define LATMC_MATH_LOG_C2_F 0x1.99999ap-2f
#define LATMC_MATH_LOG_C3_F 0x1.24924ap-2f
#define LATMC_MATH_LOG_C4_F 0x1.c71c72p-3f

/* 1/n!, for the Taylor series of e^r - 1 (|r| <= ln2/2: up to r^13) and of the sine and
 * cosine (|theta| <= pi/4: up to theta^17 and theta^16). */
#define LATMC_MATH_INV_FACT2 0x1p-1
#define LATMC_MATH_INV_FACT3 0x1.5555555555555p-3
#define LATMC_MATH_INV_FACT4 0x1.5555555555555p-5
#define LATMC_MATH_INV_FACT5 0x1.1111111111111p-7
#define LATMC_MATH_INV_FACT6 0x1.6c16c16c16c17p-10
#define LATMC_MATH_INV_FACT7 0x1.a01a01a01a01ap-13
#define LATMC_MATH_INV_FACT8 0x1.a01a01a01a01ap-16
#define LATMC_MATH_INV_FACT9 0x1.71de3a556c734p-19
#define LATMC_MATH_INV_FACT10 0x1.27e4fb7789f5cp-22
#define LATMC_MATH_INV_FACT11 0x1.ae64567f544e4p-26
#define LATMC_MATH_INV_FACT12 0x1.1eed8eff8d898p-29
#define LATMC_MATH_INV_FACT13 0x1.6124613a86d09p-33
#define LATMC_MATH_INV_FACT14 0x1.93974a8c07c9dp-37
#define LATMC_MATH_INV_FACT15 0x1.ae7f3e733b81fp-41
#define LATMC_MATH_INV_FACT16 0x1.ae7f3e733b81fp-45
#define LATMC_MATH_INV_FACT17 0x1.952c77030ad4ap-49

/* ---------------------------------------------------------------------------------- */
/* Bit patterns (device code: the CUDA intrinsics; host code, CUDA's host pass too: memcpy) */

LATMC_HOSTDEV uint32_t latmc_math_float_bits(float x)
{
#if defined(__CUDA_ARCH__)
    return (uint32_t)__float_as_uint(x);
#else
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

LATMC_HOSTDEV float latmc_math_float_of_bits(uint32_t b)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

LATMC_HOSTDEV uint64_t latmc_math_double_bits(double x)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

LATMC_HOSTDEV double latmc_math_double_of_bits(uint64_t b)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)b);
#else
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

/* ---------------------------------------------------------------------------------- */
/* Logarithms                                                                          */

/*
 * log x for positive normal floats, in float arithmetic. x = 2^e m with m in
 * (sqrt(1/2), sqrt(2)] (m > sqrt(2) is halved, e raised), f = m - 1 (exact),
 *   log x = e LN2_HI + (f - (s (f - R) - e LN2_LO)),
 * from log(1 + f) = 2s + s R = f - s f + s R (2s = f - s f because s (2 + f) = f).
 */
LATMC_HOSTDEV float latmc_math_logf(float x)
{
    const uint32_t b = latmc_math_float_bits(x);
    int32_t e = (int32_t)(b >> 23) - 127;
    uint32_t mb = (b & 0x007fffffu) | 0x3f800000u;
    if (mb > LATMC_MATH_SQRT2_BITS_F) {
        mb -= 0x00800000u;
        e += 1;
    }
    const float f = latmc_math_float_of_bits(mb) - 1.0f;
    const float s = f / (2.0f + f);
    const float z = s * s;
    const float r = z * (LATMC_MATH_LOG_C1_F +
                         z * (LATMC_MATH_LOG_C2_F +
                              z * (LATMC_MATH_LOG_C3_F + z * LATMC_MATH_LOG_C4_F)));
    const float k = (float)e;
    return k * LATMC_MATH_LN2_HI_F + (f - (s * (f - r) - k * LATMC_MATH_LN2_LO_F));
}

/* log x for positive normal doubles: latmc_math_logf's algorithm in double, 9 series terms. */
LATMC_HOSTDEV double latmc_math_log(double x)
{
    const uint64_t b = latmc_math_double_bits(x);
    int64_t e = (int64_t)(b >> 52) - 1023;
    uint64_t mb = (b & UINT64_C(0x000fffffffffffff)) | UINT64_C(0x3ff0000000000000);
    if (mb > LATMC_MATH_SQRT2_BITS) {
        mb -= UINT64_C(0x0010000000000000);
        e += 1;
    }
    const double f = latmc_math_double_of_bits(mb) - 1.0;
    const double s = f / (2.0 + f);
    const double z = s * s;
    const double r =
        z * (LATMC_MATH_LOG_C1 +
             z * (LATMC_MATH_LOG_C2 +
                  z * (LATMC_MATH_LOG_C3 +
                       z * (LATMC_MATH_LOG_C4 +
                            z * (LATMC_MATH_LOG_C5 +
                                 z * (LATMC_MATH_LOG_C6 +
                                      z * (LATMC_MATH_LOG_C7 +
                                           z * (LATMC_MATH_LOG_C8 + z * LATMC_MATH_LOG_C9))))))));
    const double k = (double)e;
    return k * LATMC_MATH_LN2_HI + (f - (s * (f - r) - k * LATMC_MATH_LN2_LO));
}

/*
 * log(1 + t) for t > -1: y = 1 + t rounded, then log(y) t / (y - 1), which cancels the
 * rounding of y to first order (y - 1 is exact); t itself when y == 1 (|t| < 2^-53).
 */
LATMC_HOSTDEV double latmc_math_log1p(double t)
{
    const double y = 1.0 + t;
    if (y == 1.0)
        return t;
    return latmc_math_log(y) * (t / (y - 1.0));
}

/* ---------------------------------------------------------------------------------- */
/* Exponentials                                                                        */

/*
 * The common part of exp and expm1: x (clamped to >= -708, so that 2^k stays normal) =
 * k ln2 + r, k the nearest integer to x / ln2, |r| <= ln2/2 + tiny; returns
 * p = e^r - 1 = r + r^2 (1/2! + r (1/3! + ... + r / 13!)) and sets *scale = 2^k.
 */
LATMC_HOSTDEV double latmc_math_exp_kernel(double x, double *scale)
{
    const double xc = x < -708.0 ? -708.0 : x;
    const double k = (xc * LATMC_MATH_INV_LN2 + LATMC_MATH_ROUND_MAGIC) - LATMC_MATH_ROUND_MAGIC;
    const double r = (xc - k * LATMC_MATH_LN2_HI) - k * LATMC_MATH_LN2_LO;
    const double q =
        LATMC_MATH_INV_FACT2 +
        r * (LATMC_MATH_INV_FACT3 +
             r * (LATMC_MATH_INV_FACT4 +
                  r * (LATMC_MATH_INV_FACT5 +
                       r * (LATMC_MATH_INV_FACT6 +
                            r * (LATMC_MATH_INV_FACT7 +
                                 r * (LATMC_MATH_INV_FACT8 +
                                      r * (LATMC_MATH_INV_FACT9 +
                                           r * (LATMC_MATH_INV_FACT10 +
                                                r * (LATMC_MATH_INV_FACT11 +
                                                     r * (LATMC_MATH_INV_FACT12 +
                                                          r * LATMC_MATH_INV_FACT13))))))))));
    *scale = latmc_math_double_of_bits((uint64_t)((int64_t)k + 1023) << 52);
    return r + (r * r) * q;
}

/* e^x: 2^k (1 + p); 0 for x < -708 (results below 2^-1021 are flushed). */
LATMC_HOSTDEV double latmc_math_exp(double x)
{
    double scale;
    const double p = latmc_math_exp_kernel(x, &scale);
    return x < -708.0 ? 0.0 : scale * (1.0 + p);
}

/* e^x - 1: 2^k p + (2^k - 1), no cancellation for small x (k = 0: exactly p + 0). */
LATMC_HOSTDEV double latmc_math_expm1(double x)
{
    double scale;
    const double p = latmc_math_exp_kernel(x, &scale);
    return scale * p + (scale - 1.0);
}

/* ---------------------------------------------------------------------------------- */
/* Sine and cosine of 2 pi u                                                           */

/*
 * sin(2 pi u) and cos(2 pi u). The argument is reduced in units of turns, exactly:
 * 4u = q + g, q the nearest integer, |g| <= 1/2, theta = g pi/2 in [-pi/4, pi/4]; Taylor
 * series of sin and cos at theta; the quadrant q mod 4 swaps and negates them.
 */
LATMC_HOSTDEV void latmc_math_sincos_2pi(double u, double *sin_out, double *cos_out)
{
    const double v = u * 4.0;
    const double q = (v + LATMC_MATH_ROUND_MAGIC) - LATMC_MATH_ROUND_MAGIC;
    const double th = (v - q) * LATMC_MATH_PI_2;
    const double t2 = th * th;
    const double sp =
        -LATMC_MATH_INV_FACT3 +
        t2 * (LATMC_MATH_INV_FACT5 +
              t2 * (-LATMC_MATH_INV_FACT7 +
                    t2 * (LATMC_MATH_INV_FACT9 +
                          t2 * (-LATMC_MATH_INV_FACT11 +
                                t2 * (LATMC_MATH_INV_FACT13 +
                                      t2 * (-LATMC_MATH_INV_FACT15 +
                                            t2 * LATMC_MATH_INV_FACT17))))));
    const double cp =
        -LATMC_MATH_INV_FACT2 +
        t2 * (LATMC_MATH_INV_FACT4 +
              t2 * (-LATMC_MATH_INV_FACT6 +
                    t2 * (LATMC_MATH_INV_FACT8 +
                          t2 * (-LATMC_MATH_INV_FACT10 +
                                t2 * (LATMC_MATH_INV_FACT12 +
                                      t2 * (-LATMC_MATH_INV_FACT14 +
                                            t2 * LATMC_MATH_INV_FACT16))))));
    const double sn = th + th * (t2 * sp);
    const double cs = 1.0 + t2 * cp;
    switch ((int)((int64_t)q & 3)) {
    case 0:
        *sin_out = sn;
        *cos_out = cs;
        break;
    case 1:
        *sin_out = cs;
        *cos_out = -sn;
        break;
    case 2:
        *sin_out = -sn;
        *cos_out = -cs;
        break;
    default:
        *sin_out = -cs;
        *cos_out = sn;
        break;
    }
}

#endif /* LATMC_LIB_MATH_H */
