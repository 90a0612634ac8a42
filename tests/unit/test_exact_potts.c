/*
 * Unit test of tests/support/exact_potts.{h,c}, the enumeration the Potts physics tests
 * trust. Each check compares it with something computed another way:
 *   - the histogram against a naive per-state evaluation from coordinates;
 *   - the 2x2 torus (a 4-cycle with doubled bonds) against its closed form
 *     Z = (e^{2K} + q - 1)^4 + (q - 1)(e^{2K} - 1)^4, and its K derivative;
 *   - rings (ndim 1, lengths 1..8, with a field) against the q x q transfer matrix;
 *   - hand-computable limits: beta = 0, J = 0 (independent sites in a field), N = 2, and
 *     the ground state at large beta;
 *   - q = 2 against the exact Ising enumeration through delta(s, s') = (1 + s s') / 2.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exact_ising.h"
#include "exact_potts.h"

static void check_close_at(double a, double b, double tol, const char *what, const char *file,
                           int line)
{
    if (!(fabs(a - b) <= tol * (1.0 + fabs(b)))) {
        print_error("%s: got %.17g, expected %.17g (diff %.3g > %.3g (1 + |expected|))\n", what,
                    a, b, fabs(a - b), tol);
        _fail(file, line);
    }
}
#define CHECK_CLOSE(a, b, tol) check_close_at((a), (b), (tol), #a, __FILE__, __LINE__)

/* Every state decoded from its number, H from coordinates: no table shared with the code
 * under test. Fills the same (matches, n0, nmax) histogram. */
static void naive_histogram(int lx, int ly, int q, uint64_t *count, int width)
{
    const int n = lx * ly;
    uint64_t nstates = 1;
    for (int i = 0; i < n; ++i)
        nstates *= (uint64_t)q;
    for (uint64_t st = 0; st < nstates; ++st) {
        int s[16];
        uint64_t r = st;
        for (int i = 0; i < n; ++i) {
            s[i] = (int)(r % (uint64_t)q);
            r /= (uint64_t)q;
        }
        int matches = 0, pop[EXACT_POTTS_MAX_Q] = { 0 };
        for (int y = 0; y < ly; ++y)
            for (int x = 0; x < lx; ++x) {
                const int v = s[x + lx * y];
                matches += v == s[(x + 1) % lx + lx * y];
                matches += v == s[x + lx * ((y + 1) % ly)];
                pop[v]++;
            }
        int nmax = 0;
        for (int k = 0; k < q; ++k)
            nmax = pop[k] > nmax ? pop[k] : nmax;
        count[((size_t)matches * (size_t)width + (size_t)pop[0]) * (size_t)width + (size_t)nmax]++;
    }
}

static void histogram_matches_naive(void **state)
{
    (void)state;
    const int cases[][3] = { { 2, 2, 4 }, { 3, 3, 3 }, { 3, 2, 3 }, { 4, 3, 2 }, { 2, 4, 3 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const int ext[2] = { cases[c][0], cases[c][1] }, q = cases[c][2];
        struct exact_potts_hist hist;
        assert_int_equal(exact_potts_hist_build(2, ext, q, &hist), 0);
        const int n = ext[0] * ext[1], w = n + 1;
        static uint64_t naive[(2 * 12 + 1) * 13 * 13];
        memset(naive, 0, sizeof naive);
        naive_histogram(ext[0], ext[1], q, naive, w);
        uint64_t total = 0;
        for (int b = 0; b <= 2 * n; ++b)
            for (int n0 = 0; n0 <= n; ++n0)
                for (int nm = 0; nm <= n; ++nm) {
                    const uint64_t got = exact_potts_hist_count(&hist, b, n0, nm);
                    assert_true(got == naive[((size_t)b * (size_t)w + (size_t)n0) * (size_t)w +
                                             (size_t)nm]);
                    total += got;
                }
        uint64_t qn = 1;
        for (int i = 0; i < n; ++i)
            qn *= (uint64_t)q;
        assert_true(total == qn);
        exact_potts_hist_free(&hist);
    }
}

/* The 2x2 torus: each of the four pairs is coupled twice, a 4-cycle with coupling 2K. */
static void torus_2x2_closed_form(void **state)
{
    (void)state;
    const int ext[2] = { 2, 2 };
    for (int q = 2; q <= 5; ++q)
        for (double beta = 0.1; beta < 3.0; beta += 0.35) {
            const double J = 0.8, K = beta * J, x = exp(2 * K);
            const double a = x + q - 1, b = x - 1;
            const double z = pow(a, 4) + (q - 1) * pow(b, 4);
            /* d ln Z / dK = 8 x (a^3 + (q-1) b^3) / Z, and <H> = -J d ln Z / dK */
            const double e = -J * 8 * x * (pow(a, 3) + (q - 1) * pow(b, 3)) / z / 4.0;
            struct exact_potts_moments m;
            assert_int_equal(exact_potts_enumerate(2, ext, q, beta, J, 0.0, &m), 0);
            CHECK_CLOSE(m.lnz, log(z), 1e-13);
            CHECK_CLOSE(m.e, e, 1e-13);
        }
}

/* Tr T^L for the ring, T_ab = exp(beta J delta_ab + beta h (delta_a0 + delta_b0) / 2). */
static double ring_lnz(int L, int q, double beta, double J, double h)
{
    double t[EXACT_POTTS_MAX_Q][EXACT_POTTS_MAX_Q], p[EXACT_POTTS_MAX_Q][EXACT_POTTS_MAX_Q],
        r[EXACT_POTTS_MAX_Q][EXACT_POTTS_MAX_Q];
    for (int a = 0; a < q; ++a)
        for (int b = 0; b < q; ++b) {
            t[a][b] = exp(beta * J * (a == b) + beta * h * ((a == 0) + (b == 0)) / 2.0);
            p[a][b] = a == b;
        }
    for (int k = 0; k < L; ++k) {
        for (int a = 0; a < q; ++a)
            for (int b = 0; b < q; ++b) {
                r[a][b] = 0;
                for (int c = 0; c < q; ++c)
                    r[a][b] += p[a][c] * t[c][b];
            }
        memcpy(p, r, sizeof p);
    }
    double tr = 0;
    for (int a = 0; a < q; ++a)
        tr += p[a][a];
    return log(tr);
}

static void rings_match_transfer_matrix(void **state)
{
    (void)state;
    for (int q = 2; q <= 4; ++q)
        for (int L = 1; L <= 8; ++L) {
            const double beta = 0.7, J = 1.1, h = 0.35, d = 1e-5;
            struct exact_potts_moments m;
            assert_int_equal(exact_potts_enumerate(1, &L, q, beta, J, h, &m), 0);
            CHECK_CLOSE(m.lnz, ring_lnz(L, q, beta, J, h), 1e-13);
            /* <H> = -d ln Z / d beta, <n_0> = d ln Z / d(beta h): central differences */
            const double e = -(ring_lnz(L, q, beta + d, J, h) - ring_lnz(L, q, beta - d, J, h)) /
                             (2 * d) / L;
            const double n0 = (ring_lnz(L, q, beta, J, h + d) - ring_lnz(L, q, beta, J, h - d)) /
                              (2 * d) / beta / L;
            CHECK_CLOSE(m.e, e, 1e-8);
            CHECK_CLOSE(m.n0, n0, 1e-8);
        }
}

static void hand_computable_limits(void **state)
{
    (void)state;
    const int ext2[2] = { 3, 2 }, ext3[3] = { 2, 2, 2 }, pair[2] = { 2, 1 };
    struct exact_potts_moments m;
    for (int q = 2; q <= 4; ++q) {
        /* beta = 0: every term is satisfied with probability 1/q */
        assert_int_equal(exact_potts_enumerate(2, ext2, q, 0.0, 1.3, 0.4, &m), 0);
        CHECK_CLOSE(m.e, -(1.3 * 2 + 0.4) / q, 1e-14);
        CHECK_CLOSE(m.lnz, 6 * log(q), 1e-14);
        assert_int_equal(exact_potts_enumerate(3, ext3, q, 0.0, -0.7, 0.2, &m), 0);
        CHECK_CLOSE(m.e, -(-0.7 * 3 + 0.2) / q, 1e-14);
        /* J = 0: independent sites, P(s = 0) = e^{beta h} / (e^{beta h} + q - 1) */
        const double beta = 0.9, h = 0.6, p0 = exp(beta * h) / (exp(beta * h) + q - 1);
        assert_int_equal(exact_potts_enumerate(2, ext2, q, beta, 0.0, h, &m), 0);
        CHECK_CLOSE(m.n0, p0, 1e-14);
        CHECK_CLOSE(m.e, -h * p0, 1e-14);
        CHECK_CLOSE(m.lnz, 6 * log(exp(beta * h) + q - 1), 1e-14);
        /* two free sites: m = 1 if they agree (probability 1/q), else (q/2 - 1)/(q - 1) */
        assert_int_equal(exact_potts_enumerate(2, pair, q, 0.0, 1.0, 0.0, &m), 0);
        const double m_apart = (q / 2.0 - 1.0) / (q - 1.0);
        CHECK_CLOSE(m.m, 1.0 / q + (1.0 - 1.0 / q) * m_apart, 1e-14);
        CHECK_CLOSE(m.m2, 1.0 / q + (1.0 - 1.0 / q) * m_apart * m_apart, 1e-14);
        /* ground state at large beta: all sites in state 0 (h > 0), e = -J ndim - h, m = 1 */
        assert_int_equal(exact_potts_enumerate(2, ext2, q, 60.0, 1.0, 0.5, &m), 0);
        CHECK_CLOSE(m.e, -2.5, 1e-12);
        CHECK_CLOSE(m.m, 1.0, 1e-12);
        CHECK_CLOSE(m.n0, 1.0, 1e-12);
        CHECK_CLOSE(m.var_e, 0.0, 1e-12);
    }
}

/* q = 2: delta(s, s') = (1 + S S') / 2 and delta(s, 0) = (1 + S) / 2 with S = +1 for s = 0,
 * so H_Potts(J, h) = H_Ising(J/2, h/2) - N (J ndim + h) / 2 and m_Potts = |M| / N. */
static void q2_matches_ising(void **state)
{
    (void)state;
    const int ext2[2] = { 4, 4 }, ext3[3] = { 2, 2, 2 };
    const double betas[] = { 0.3, 0.88, 1.5 }, fields[] = { 0.0, 0.25, -0.4 };
    for (int d = 2; d <= 3; ++d)
        for (int b = 0; b < 3; ++b)
            for (int f = 0; f < 3; ++f) {
                const double beta = betas[b], J = 1.0, h = fields[f];
                const int *ext = d == 2 ? ext2 : ext3;
                const double n = d == 2 ? 16 : 8;
                struct exact_potts_moments p;
                struct exact_ising_moments is;
                assert_int_equal(exact_potts_enumerate(d, ext, 2, beta, J, h, &p), 0);
                assert_int_equal(exact_ising_enumerate(d, ext, beta, J / 2, h / 2, &is), 0);
                CHECK_CLOSE(p.lnz, is.lnz + beta * n * (J * d + h) / 2, 1e-12);
                CHECK_CLOSE(p.e, is.e - (J * d + h) / 2, 1e-12);
                CHECK_CLOSE(p.var_e, is.var_e, 1e-12);
                CHECK_CLOSE(p.m, is.absm, 1e-12);
                CHECK_CLOSE(p.m2, is.m2, 1e-12);
                CHECK_CLOSE(p.m4, is.m4, 1e-12);
                CHECK_CLOSE(p.n0, (1 + is.m) / 2, 1e-12);
            }
}

static void rejects_bad_arguments(void **state)
{
    (void)state;
    struct exact_potts_hist hist;
    const int ext[2] = { 3, 3 }, big[2] = { 5, 6 }, zero[2] = { 0, 3 };
    assert_int_equal(exact_potts_hist_build(2, ext, 1, &hist), EXACT_POTTS_EINVAL);
    assert_int_equal(exact_potts_hist_build(2, ext, EXACT_POTTS_MAX_Q + 1, &hist),
                     EXACT_POTTS_EINVAL);
    assert_int_equal(exact_potts_hist_build(2, big, 3, &hist), EXACT_POTTS_EINVAL);
    assert_int_equal(exact_potts_hist_build(2, zero, 3, &hist), EXACT_POTTS_EINVAL);
    assert_int_equal(exact_potts_hist_build(4, ext, 3, &hist), EXACT_POTTS_EINVAL);
    assert_null(hist.count);
    exact_potts_hist_free(&hist);
    exact_potts_hist_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(histogram_matches_naive),
        cmocka_unit_test(torus_2x2_closed_form),
        cmocka_unit_test(rings_match_transfer_matrix),
        cmocka_unit_test(hand_computable_limits),
        cmocka_unit_test(q2_matches_ising),
        cmocka_unit_test(rejects_bad_arguments),
    };
    return cmocka_run_group_tests_name("exact_potts", tests, NULL, NULL);
}
