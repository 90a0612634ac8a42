/*
 * The shared transcendental functions of the phi^4 and Heisenberg chains (lib/latmc_math.h)
 * against the C library in long double (64-bit mantissa, so its own error is far below a
 * double ulp): the maximum error in ulps over dense sweeps of each domain, and exact values
 * where the functions must be exact (log 1 = 0, exp 0 = 1, the quadrant points of the
 * sine and cosine). The bounds are the ones lib/latmc_math.h and doc/models/phi4.md and
 * heisenberg.md state; 10x denser sweeps than these found at most logf 0.95, log 1.05,
 * log1p 2.41, exp 0.96, expm1 1.93, sine and cosine 1.83 ulp.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "latmc_math.h"

/* A fixed xorshift stream: deterministic test points. */
static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* Uniform in [0, 1). */
static double next_unit(void)
{
    return (double)(next_u64() >> 11) * 0x1p-53;
}

/* Error of `got` in units of the last place of the double nearest `ref`. */
static double ulps_d(double got, long double ref)
{
    const double r = (double)ref;
    if (r == 0.0)
        return got == 0.0 ? 0.0 : INFINITY;
    int e;
    frexp(r, &e);
    const long double ulp = ldexpl(1.0L, e - 53 < -1074 ? -1074 : e - 53);
    return (double)(fabsl((long double)got - ref) / ulp);
}

/* The same in float ulps. */
static double ulps_f(float got, long double ref)
{
    const float r = (float)ref;
    if (r == 0.0f)
        return got == 0.0f ? 0.0 : INFINITY;
    int e;
    frexpf(r, &e);
    const long double ulp = ldexpl(1.0L, e - 24 < -149 ? -149 : e - 24);
    return (double)(fabsl((long double)got - ref) / ulp);
}

static void logf_accuracy(void **state)
{
    (void)state;
    double worst = 0;
    float worst_x = 0;
    /* every 7th float of [2^-32, 1], the range of the phi^4 acceptance test */
    for (uint32_t b = 0x2f800000u; b <= 0x3f800000u; b += 7) {
        float x;
        memcpy(&x, &b, sizeof x);
        const double e = ulps_f(latmc_math_logf(x), logl((long double)x));
        if (e > worst) {
            worst = e;
            worst_x = x;
        }
    }
    /* the whole normal range, random bit patterns */
    for (int i = 0; i < 2000000; i++) {
        uint32_t b = (uint32_t)(next_u64() >> 33) % (0x7f800000u - 0x00800000u) + 0x00800000u;
        float x;
        memcpy(&x, &b, sizeof x);
        const double e = ulps_f(latmc_math_logf(x), logl((long double)x));
        if (e > worst) {
            worst = e;
            worst_x = x;
        }
    }
    print_message("latmc_math_logf: max error %.3f ulp (at %a)\n", worst, (double)worst_x);
    assert_true(worst <= 1.0);
    assert_true(latmc_math_logf(1.0f) == 0.0f);
    assert_true(latmc_math_logf(2.0f) == (float)logl(2.0L));
}

static void log_accuracy(void **state)
{
    (void)state;
    double worst = 0, worst_x = 0;
    for (int i = 0; i < 3000000; i++) {
        double x;
        if (i % 3 == 0) { /* the whole normal range */
            const uint64_t lo = UINT64_C(0x0010000000000000), hi = UINT64_C(0x7ff0000000000000);
            const uint64_t b = next_u64() % (hi - lo) + lo;
            memcpy(&x, &b, sizeof x);
        } else if (i % 3 == 1) { /* [2^-34, 1]: the arguments of the chains */
            x = ldexp(1.0 + next_unit(), -1 - (int)(next_u64() % 34));
        } else { /* near 1, where log is smallest */
            x = 1.0 + (next_unit() - 0.5) * ldexp(1.0, -(int)(next_u64() % 40));
        }
        const double e = ulps_d(latmc_math_log(x), logl((long double)x));
        if (e > worst) {
            worst = e;
            worst_x = x;
        }
    }
    print_message("latmc_math_log: max error %.3f ulp (at %a)\n", worst, worst_x);
    assert_true(worst <= 1.5);
    assert_true(latmc_math_log(1.0) == 0.0);
}

static void log1p_accuracy(void **state)
{
    (void)state;
    double worst = 0, worst_x = 0;
    for (int i = 0; i < 3000000; i++) {
        double t;
        if (i % 3 == 0) /* the heat bath's range (-0.633, 0) */
            t = -0.64 * next_unit();
        else if (i % 3 == 1) /* small, both signs */
            t = (next_unit() - 0.5) * ldexp(1.0, -(int)(next_u64() % 60));
        else /* (-1, 15) */
            t = -1.0 + 16.0 * next_unit();
        if (t <= -1.0)
            continue;
        const double e = ulps_d(latmc_math_log1p(t), log1pl((long double)t));
        if (e > worst) {
            worst = e;
            worst_x = t;
        }
    }
    print_message("latmc_math_log1p: max error %.3f ulp (at %a)\n", worst, worst_x);
    assert_true(worst <= 3.0);
    assert_true(latmc_math_log1p(0.0) == 0.0);
}

static void exp_accuracy(void **state)
{
    (void)state;
    double worst = 0, worst_x = 0, worst_m1 = 0, worst_m1_x = 0;
    for (int i = 0; i < 3000000; i++) {
        double x;
        if (i % 3 == 0)
            x = -708.0 + 1417.0 * next_unit();
        else if (i % 3 == 1) /* the heat bath's range of -2a */
            x = -1.0 * next_unit();
        else
            x = (next_unit() - 0.5) * ldexp(1.0, -(int)(next_u64() % 60));
        const double e = ulps_d(latmc_math_exp(x), expl((long double)x));
        if (e > worst) {
            worst = e;
            worst_x = x;
        }
        const double em = ulps_d(latmc_math_expm1(x), expm1l((long double)x));
        if (em > worst_m1) {
            worst_m1 = em;
            worst_m1_x = x;
        }
    }
    print_message("latmc_math_exp: max error %.3f ulp (at %a); "
                  "latmc_math_expm1: %.3f ulp (at %a)\n",
                  worst, worst_x, worst_m1, worst_m1_x);
    assert_true(worst <= 1.0);
    assert_true(worst_m1 <= 2.5);
    assert_true(latmc_math_exp(0.0) == 1.0);
    assert_true(latmc_math_expm1(0.0) == 0.0);
    assert_true(latmc_math_exp(-709.0) == 0.0);   /* flushed, as documented */
    assert_true(latmc_math_exp(-1e300) == 0.0);
    assert_true(latmc_math_expm1(-1e300) == -1.0);
}

/* sin and cos of 2 pi u in long double, reduced exactly in turns (so that the reference
 * stays accurate near the zeros, where 2 pi u itself would not be). */
static void sincos_2pi_ref(double u, long double *s, long double *c)
{
    const long double pi_2 = 1.570796326794896619231321691639751442L;
    const long double v = 4.0L * u, q = nearbyintl(v), th = (v - q) * pi_2;
    const long double sn = sinl(th), cs = cosl(th);
    switch ((int)((long long)q & 3)) {
    case 0: *s = sn; *c = cs; break;
    case 1: *s = cs; *c = -sn; break;
    case 2: *s = -sn; *c = -cs; break;
    default: *s = -cs; *c = sn; break;
    }
}

static void sincos_accuracy(void **state)
{
    (void)state;
    double worst = 0, worst_x = 0;
    for (int i = 0; i < 4000000; i++) {
        /* uniform, and the heat bath's azimuths (r + 1/2) 2^-32 */
        const double u = i % 2 ? next_unit() : (double)(next_u64() >> 32) * 0x1p-32 + 0x1p-33;
        double s, c;
        long double rs, rc;
        latmc_math_sincos_2pi(u, &s, &c);
        sincos_2pi_ref(u, &rs, &rc);
        const double es = ulps_d(s, rs), ec = ulps_d(c, rc);
        const double e = es > ec ? es : ec;
        if (e > worst) {
            worst = e;
            worst_x = u;
        }
    }
    print_message("latmc_math_sincos_2pi: max error %.3f ulp (at u = %a)\n", worst, worst_x);
    assert_true(worst <= 2.0);
    const double quarter[5][2] = { { 0, 1 }, { 1, 0 }, { 0, -1 }, { -1, 0 }, { 0, 1 } };
    for (int q = 0; q <= 4; q++) {
        double s, c;
        latmc_math_sincos_2pi(0.25 * q, &s, &c);
        assert_true(s == quarter[q][0]);
        assert_true(c == quarter[q][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(logf_accuracy),  cmocka_unit_test(log_accuracy),
        cmocka_unit_test(log1p_accuracy), cmocka_unit_test(exp_accuracy),
        cmocka_unit_test(sincos_accuracy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
