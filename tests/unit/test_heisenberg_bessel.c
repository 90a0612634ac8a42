/*
 * The exact results the Heisenberg physics tests rely on (tests/support/exact_heisenberg.c):
 * the modified spherical Bessel functions i_l against published-precision values (from
 * 40-digit evaluations of sqrt(pi / 2x) I_{l+1/2}(x)), closed forms and the power series;
 * the addition identity sum_l (2l+1) i_l(a) i_l(b) = i_0(a + b); and the ring energy
 * against the cases solvable by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "exact_heisenberg.h"
#include "sim_helpers.h"

static void known_values(void **state)
{
    (void)state;
    static const struct { int l; double x, value; } table[] = {
        { 0, 0.5, 1.0421906109874947232 },
        { 1, 1.0, 0.3678794411714423216 },  /* = 1/e */
        { 2, 3.0, 1.0965015247007011189 },
        { 5, 1.0, 0.000099962375200682591854 },
        { 10, 10.0, 5.4645416534307252442 },
        { 20, 5.0, 9.7082664411470049537e-12 },
        { 3, 0.01, 9.5238624339826847316e-9 },
        { 40, 30.0, 3.1574041898294180081 },
        { 100, 50.0, 2.3418937401088286619e-17 },
        { 1, 1e-6, 3.3333333333336665158e-7 },
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++) {
        const double got = exact_heisenberg_il(table[k].l, table[k].x);
        assert_close(got / table[k].value, 1.0, 1e-13);
        /* parity: i_l(-x) = (-1)^l i_l(x) */
        const double neg = exact_heisenberg_il(table[k].l, -table[k].x);
        assert_close(neg / got, (table[k].l & 1) ? -1.0 : 1.0, 1e-15);
    }
}

/* i_1 .. i_3 in closed form, where the forms do not cancel (x >= 1). */
static void closed_forms(void **state)
{
    (void)state;
    const double xs[] = { 1.0, 2.5, 7.0, 20.0 };
    for (size_t k = 0; k < sizeof xs / sizeof xs[0]; k++) {
        const double x = xs[k], sh = sinh(x), ch = cosh(x);
        const double i1 = ch / x - sh / (x * x);
        const double i2 = (1.0 / x + 3.0 / (x * x * x)) * sh - 3.0 / (x * x) * ch;
        const double i3 = (1.0 / x + 15.0 / (x * x * x)) * ch - (6.0 / (x * x) + 15.0 / (x * x * x * x)) * sh;
        assert_close(exact_heisenberg_il(0, x) / (sh / x), 1.0, 1e-15);
        assert_close(exact_heisenberg_il(1, x) / i1, 1.0, 1e-13);
        assert_close(exact_heisenberg_il(2, x) / i2, 1.0, 1e-12);
        assert_close(exact_heisenberg_il(3, x) / i3, 1.0, 1e-11);
    }
}

/* i_l(x) = x^l / (2l+1)!! sum_k (x^2/2)^k / (k! (2l+3)(2l+5)...(2l+2k+1)), summed here. */
static double series_il(int l, double x)
{
    double lead = 1.0;
    for (int j = 1; j <= l; j++)
        lead *= x / (2.0 * j + 1.0);
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 200; k++) {
        term *= (x * x / 2.0) / (k * (2.0 * l + 2.0 * k + 1.0));
        sum += term;
    }
    return lead * sum;
}

static void power_series(void **state)
{
    (void)state;
    const int ls[] = { 0, 1, 4, 9, 30, 80, 150 };
    const double xs[] = { 1e-3, 0.3, 2.0, 8.0 };
    for (size_t a = 0; a < sizeof ls / sizeof ls[0]; a++)
        for (size_t b = 0; b < sizeof xs / sizeof xs[0]; b++) {
            const double want = series_il(ls[a], xs[b]);
            if (want < 1e-290)
                continue; /* the series' own leading factor underflows */
            assert_close(exact_heisenberg_il(ls[a], xs[b]) / want, 1.0, 1e-13);
        }
}

/* sum_l (2l+1) i_l(a) i_l(b) = i_0(a + b): the two-spin ring in two ways. */
static void addition_identity(void **state)
{
    (void)state;
    const double pairs[][2] = { { 0.1, 0.2 }, { 1.0, -0.4 }, { 3.0, 5.0 }, { -7.5, 2.0 },
                                { 40.0, 35.0 } };
    double ra[EXACT_HEISENBERG_LMAX + 1], rb[EXACT_HEISENBERG_LMAX + 1];
    for (size_t k = 0; k < sizeof pairs / sizeof pairs[0]; k++) {
        const double a = pairs[k][0], b = pairs[k][1];
        assert_int_equal(exact_heisenberg_bessel_ratios(a, EXACT_HEISENBERG_LMAX, ra), 0);
        assert_int_equal(exact_heisenberg_bessel_ratios(b, EXACT_HEISENBERG_LMAX, rb), 0);
        double sum = 0.0;
        for (int l = 0; l <= EXACT_HEISENBERG_LMAX; l++)
            sum += (2.0 * l + 1.0) * ra[l] * rb[l];
        const double want = exact_heisenberg_i0(a + b) /
                            (exact_heisenberg_i0(a) * exact_heisenberg_i0(b));
        assert_close(sum / want, 1.0, 1e-12);
    }
}

/* Langevin function coth(K) - 1/K, by its series at small K. */
static double langevin(double k)
{
    if (fabs(k) < 1e-3)
        return k / 3.0 - k * k * k / 45.0;
    return 1.0 / tanh(k) - 1.0 / k;
}

static void ring_energy_solvable_cases(void **state)
{
    (void)state;
    double e = 0.0;
    /* Two spins coupled twice (J0 + J1 in total): <H> = -(J0 + J1) L(beta (J0 + J1)). */
    const double two[] = { 0.7, -1.9 };
    for (double beta = 0.1; beta < 3.0; beta += 0.7) {
        assert_int_equal(exact_heisenberg_ring_energy(2, two, beta, &e), 0);
        assert_close(e, 1.2 * langevin(-1.2 * beta), 1e-12);
    }
    /* One zero coupling opens the ring into a chain of independent bonds:
     * <H> = -sum_k J_k L(beta J_k). */
    const double chain[] = { 1.0, -0.3, 2.2, 0.0, 0.8 };
    for (double beta = 0.2; beta < 4.0; beta += 0.9) {
        double want = 0.0;
        for (int k = 0; k < 5; k++)
            want -= chain[k] * langevin(beta * chain[k]);
        assert_int_equal(exact_heisenberg_ring_energy(5, chain, beta, &e), 0);
        assert_close(e, want, 1e-12);
    }
    /* Infinite temperature: <H> = 0. Arguments out of range are refused. */
    assert_int_equal(exact_heisenberg_ring_energy(5, chain, 0.0, &e), 0);
    assert_close(e, 0.0, 1e-15);
    assert_int_equal(exact_heisenberg_ring_energy(0, chain, 1.0, &e), EXACT_HEISENBERG_EINVAL);
    assert_int_equal(exact_heisenberg_ring_energy(5, chain, -1.0, &e), EXACT_HEISENBERG_EINVAL);
    assert_int_equal(exact_heisenberg_ring_energy(5, chain, 1e3, &e), EXACT_HEISENBERG_EINVAL);
}

/* A closed uniform ring differs from the open chain by the l >= 1 terms, which vanish as
 * the ring grows: at n = 64, beta J = 1, the ring's energy per bond is the chain's. */
static void long_ring_is_a_chain(void **state)
{
    (void)state;
    double J[64], e = 0.0;
    for (int k = 0; k < 64; k++)
        J[k] = 1.0;
    assert_int_equal(exact_heisenberg_ring_energy(64, J, 1.0, &e), 0);
    assert_close(e / 64.0, -langevin(1.0), 1e-12);
    /* A short ring is not: there the closing bond matters (an independent check that the
     * l >= 1 terms are there at all). */
    assert_int_equal(exact_heisenberg_ring_energy(4, J, 2.0, &e), 0);
    assert_true(fabs(e / 4.0 + langevin(2.0)) > 1e-3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_values),
        cmocka_unit_test(closed_forms),
        cmocka_unit_test(power_series),
        cmocka_unit_test(addition_identity),
        cmocka_unit_test(ring_energy_solvable_cases),
        cmocka_unit_test(long_ring_is_a_chain),
    };
    return cmocka_run_group_tests_name("heisenberg_bessel", tests, NULL, NULL);
}
