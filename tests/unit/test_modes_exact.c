/*
 * The exact sums behind Ising's and Potts' Fourier modes (lib/modes_exact.h,
 * latmc_modes_exact_sum): the 128-bit products against the compiler's 128-bit integers
 * and hand values at the ends of the range, the device's limbs (split as
 * backends/cuda/modes_exact.cuh splits a block's sum) added up to the sum, also over the
 * most sums a limb takes (LATMC_MODES_LIMB_SUMS, every one of the largest limbs), the
 * rounding to a double against long double, the weights, and the mode of a projection
 * against a direct long double sum and as the sum of its parts' sums; Heisenberg's fixed
 * point of its site values (latmc_modes_fixed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "modes.h"
#include "modes_exact.h"

#ifndef __SIZEOF_INT128__
#error "this test compares with the compiler's 128-bit integers"
#endif

static uint64_t rng_state = UINT64_C(0x2545f4914f6cdd1d);

static uint64_t next_u64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A signed value of about `bits` bits (the top bits cut at random). */
static int64_t next_signed(int bits)
{
    const int b = 1 + (int)(next_u64() % (uint64_t)bits);
    const int64_t v = (int64_t)(next_u64() >> (64 - b));
    return (next_u64() & 1) ? -v : v;
}

static __int128 as_int128(latmc_i128 v)
{
    return (__int128)(((unsigned __int128)v.hi << 64) | v.lo);
}

static latmc_i128 of_int128(__int128 v)
{
    const latmc_i128 r = { (uint64_t)v, (uint64_t)((unsigned __int128)v >> 64) };
    return r;
}

static void products(void **state)
{
    (void)state;
    const int64_t ends[] = { 0, 1, -1, 2, -2, INT64_MAX, INT64_MIN, INT64_MIN + 1,
                             INT64_C(1) << 62, -(INT64_C(1) << 62), (INT64_C(1) << 41) - 1,
                             INT64_C(0xffffffff), -INT64_C(0x100000000) };
    const size_t n = sizeof ends / sizeof ends[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            const __int128 want = (__int128)ends[i] * (__int128)ends[j];
            assert_true(as_int128(latmc_i128_mul_portable(ends[i], ends[j])) == want);
            assert_true(as_int128(latmc_i128_mul(ends[i], ends[j])) == want);
        }
    const latmc_i128 m = latmc_i128_mul_portable(INT64_MIN, INT64_MIN); /* 2^126 */
    assert_true(m.lo == 0 && m.hi == UINT64_C(1) << 62);
    for (int k = 0; k < 200000; k++) {
        const int64_t a = next_signed(63), b = next_signed(63);
        const __int128 want = (__int128)a * (__int128)b;
        assert_true(as_int128(latmc_i128_mul_portable(a, b)) == want);
        assert_true(as_int128(latmc_i128_mul(a, b)) == want);
    }
}

static void sums_and_limbs(void **state)
{
    (void)state;
    for (int k = 0; k < 20000; k++) {
        /* blocks' sums as a device makes them (|s| < 2^103), added in limbs */
        const int blocks = 1 + (int)(next_u64() % 64);
        __int128 want = 0;
        int64_t limbs[3] = { 0, 0, 0 };
        latmc_i128 added = latmc_i128_of(0);
        for (int b = 0; b < blocks; b++) {
            const __int128 s = (__int128)next_signed(41) * (__int128)next_signed(62);
            const __int128 mask = ((__int128)1 << LATMC_MODES_LIMB_BITS) - 1;
            limbs[0] += (int64_t)(s & mask);
            limbs[1] += (int64_t)((s >> LATMC_MODES_LIMB_BITS) & mask);
            limbs[2] += (int64_t)(s >> (2 * LATMC_MODES_LIMB_BITS));
            added = latmc_i128_add(added, of_int128(s));
            want += s;
        }
        assert_true(as_int128(latmc_i128_of_limbs(limbs)) == want);
        assert_true(as_int128(added) == want);
    }
    /* the most sums a limb takes, each of the largest limbs: no 64-bit limb overflows */
    for (int sign = -1; sign <= 1; sign += 2) {
        const __int128 top = ((__int128)1 << 102) - 1, s = sign < 0 ? -top : top;
        const __int128 mask = ((__int128)1 << LATMC_MODES_LIMB_BITS) - 1;
        int64_t limbs[3] = { 0, 0, 0 };
        for (int b = 0; b < LATMC_MODES_LIMB_SUMS; b++) {
            limbs[0] += (int64_t)(s & mask);
            limbs[1] += (int64_t)((s >> LATMC_MODES_LIMB_BITS) & mask);
            limbs[2] += (int64_t)(s >> (2 * LATMC_MODES_LIMB_BITS));
        }
        assert_true(limbs[0] >= 0 && limbs[1] >= 0);
        assert_true(as_int128(latmc_i128_of_limbs(limbs)) == s * LATMC_MODES_LIMB_SUMS);
    }
}

/* The references below in long double need more bits than a double has. */
#define WIDE_REFERENCE (LDBL_MANT_DIG >= 64)

static void values(void **state)
{
    (void)state;
    if (!WIDE_REFERENCE)
        skip();
    /* exact below 2^53, and odd: value(-v) = -value(v) */
    const int64_t small[] = { 0, 1, -1, 3, (INT64_C(1) << 53) - 1, -(INT64_C(1) << 52) };
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++)
        assert_true(latmc_i128_value(latmc_i128_of(small[i])) == ldexp((double)small[i], -62));
    for (int k = 0; k < 200000; k++) {
        const __int128 v = (__int128)next_signed(41) * (__int128)next_signed(62);
        const double got = latmc_i128_value(of_int128(v));
        assert_true(latmc_i128_value(of_int128(-v)) == -got);
        /* two roundings (the low word's conversion, the addition): within an ulp */
        const long double ref = ldexpl((long double)v, -62);
        const double ulp = ldexp(1.0, ilogb(got == 0 ? 1e-300 : got) - 52);
        assert_true(fabsl((long double)got - ref) <= (long double)ulp);
    }
}

static void weights(void **state)
{
    (void)state;
    assert_true(latmc_modes_weight(1.0) == INT64_C(1) << 62);
    assert_true(latmc_modes_weight(-1.0) == -(INT64_C(1) << 62));
    assert_true(latmc_modes_weight(0.5) == INT64_C(1) << 61);
    assert_true(latmc_modes_weight(0.0) == 0);
    assert_true(latmc_modes_weight(1e-30) == 0);
    assert_true(latmc_modes_weight(-1e-30) == 0);
    /* truncated toward zero: 2^-63 and 3 2^-63 weigh 0 and 1 */
    assert_true(latmc_modes_weight(ldexp(3.0, -63)) == 1);
    assert_true(latmc_modes_weight(-ldexp(3.0, -63)) == -1);
}

/* Projections of L = 4096 sites' columns and the phases of one axis: the mode against a
 * direct sum in long double, and as the sum of two parts' exact sums. */
static void mode_of_projections(void **state)
{
    (void)state;
    if (!WIDE_REFERENCE)
        skip();
    enum { L = 4096 };
    int64_t *proj = malloc(L * sizeof *proj);
    double *c = malloc(L * sizeof *c), *s = malloc(L * sizeof *s);
    assert_non_null(proj);
    assert_non_null(c);
    assert_non_null(s);
    latmc_modes_phases(L, c, s);
    for (int trial = 0; trial < 8; trial++) {
        long double direct = 0;
        for (int64_t x = 0; x < L; x++) {
            proj[x] = next_signed(trial < 4 ? 12 : 40);
            direct += (long double)proj[x] * (long double)c[x];
        }
        const double got = latmc_modes_exact_sum(proj, c, L);
        long double scale = 0, direct_s = 0;
        for (int64_t x = 0; x < L; x++) {
            scale += fabsl((long double)proj[x]);
            direct_s += (long double)proj[x] * (long double)s[x];
        }
        /* the weights' truncation (2^-62 each) and the conversion (within an ulp) */
        assert_true(fabsl((long double)got - direct) <=
                    scale * 0x1p-62L + fabsl(direct) * 0x1p-52L);
        const double got_s = latmc_modes_exact_sum(proj, s, L);
        assert_true(fabsl((long double)got_s - direct_s) <=
                    scale * 0x1p-62L + fabsl(direct_s) * 0x1p-52L);
        latmc_i128 halves = latmc_i128_of(0), whole = latmc_i128_of(0);
        for (int64_t x = 0; x < L; x++) {
            const latmc_i128 t = latmc_i128_mul(proj[x], latmc_modes_weight(c[x]));
            whole = latmc_i128_add(whole, t);
        }
        for (int part = 0; part < 2; part++) {
            latmc_i128 ps = latmc_i128_of(0);
            for (int64_t x = part; x < L; x += 2)
                ps = latmc_i128_add(ps, latmc_i128_mul(proj[x], latmc_modes_weight(c[x])));
            halves = latmc_i128_add(halves, ps);
        }
        assert_true(as_int128(halves) == as_int128(whole));
        assert_true(latmc_i128_value(whole) == got);
    }
    free(proj);
    free(c);
    free(s);
}

/* Heisenberg's fixed point (latmc_modes_fixed): round to nearest, ties to even, against
 * the C library's rint under the default rounding, and the same under every rounding mode
 * (the function's arithmetic is exact); hand values at the ties and the ends; a spin's
 * components (floats) and their products times 2^25, at the bound |v| <= 1 + 1e-5:
 * |q| < 2^26. */
static void fixed_point(void **state)
{
    (void)state;
    const struct { double t; int64_t q; } hand[] = {
        { 0.0, 0 },   { 0.5, 0 },   { 1.5, 2 },    { 2.5, 2 },   { -0.5, 0 },
        { -1.5, -2 }, { -2.5, -2 }, { 0.49999999999999994, 0 }, { 3.5000000000000004, 4 },
        { 0x1p30, INT64_C(1) << 30 }, { -0x1p30, -(INT64_C(1) << 30) },
        { 0x1p52 + 1, (INT64_C(1) << 52) + 1 }, { 0x1p60, INT64_C(1) << 60 },
    };
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++)
        assert_true(latmc_modes_fixed(hand[i].t) == hand[i].q);
    const int modes[] = { FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO };
    for (int k = 0; k < 200000; k++) {
        /* a float component in [-1 - 1e-5, 1 + 1e-5], often tiny (below 2^-2 the scaling
         * leaves a fraction) */
        const double u = (double)(next_u64() >> 11) * 0x1p-53;
        const int e = (int)(next_u64() % 40);
        const float v = (float)((2 * u - 1) * (1 + 1e-5) * ldexp(1.0, -(e > 20 ? e - 20 : 0)));
        const float w = (float)((double)(next_u64() >> 11) * 0x1p-52 - 1);
        const double ts[2] = { (double)v * LATMC_MODES_SPIN_SCALE,
                               (double)v * (double)w * LATMC_MODES_SPIN_SCALE };
        for (int j = 0; j < 2; j++) {
            const int64_t want = (int64_t)rint(ts[j]);
            assert_true(latmc_modes_fixed(ts[j]) == want);
            assert_true(want < (INT64_C(1) << 26) && want > -(INT64_C(1) << 26));
            for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
                assert_int_equal(fesetround(modes[m]), 0);
                const int64_t got = latmc_modes_fixed(ts[j]);
                assert_int_equal(fesetround(FE_TONEAREST), 0);
                assert_true(got == want);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixed_point),
        cmocka_unit_test(products),
        cmocka_unit_test(sums_and_limbs),
        cmocka_unit_test(values),
        cmocka_unit_test(weights),
        cmocka_unit_test(mode_of_projections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
