/*
 * Unit test of tests/support/exact_ising.{h,c}: the exact Ising references
 * that the physics suite compares Monte Carlo results with. Every source is
 * checked against an independent one:
 *   - the Gray-code histogram against a naive per-state evaluation of H;
 *   - enumeration against the 1D transfer matrix (with field, extents 1..10),
 *     against its own numerical derivatives, and against limits that can fail
 *     (beta = 0, beta -> infinity, spin-flip symmetry);
 *   - Kaufman's closed form against enumeration (even and odd sizes, both
 *     orientations, both sides of K_c and at K_c, J != 1, J < 0);
 *   - Kaufman's analytic derivatives against finite differences at L = 16, 32,
 *     and against 60-digit reference values;
 *   - Kaufman at L = 256 against Onsager's infinite-lattice energy.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <time.h>

#include "exact_ising.h"

/* ln(1 + sqrt 2) / 2 */
#define BETA_C 0.44068679350977151262

/* ------------------------------------------------------------------------- */
/* helpers                                                                    */
/* ------------------------------------------------------------------------- */

/* |a - b| <= tol |b|, with a readable message on failure. */
static void check_rel_at(double a, double b, double tol, const char *what, const char *file,
                         int line)
{
    if (!(fabs(a - b) <= tol * fabs(b))) {
        print_error("%s: got %.17g, expected %.17g (rel diff %.3g > %.3g)\n", what, a, b,
                    fabs(a - b) / fabs(b), tol);
        _fail(file, line);
    }
}

/* |a - b| <= tol */
static void check_abs_at(double a, double b, double tol, const char *what, const char *file,
                         int line)
{
    if (!(fabs(a - b) <= tol)) {
        print_error("%s: got %.17g, expected %.17g (abs diff %.3g > %.3g)\n", what, a, b,
                    fabs(a - b), tol);
        _fail(file, line);
    }
}

#define CHECK_REL(a, b, tol) check_rel_at((a), (b), (tol), #a, __FILE__, __LINE__)
#define CHECK_ABS(a, b, tol) check_abs_at((a), (b), (tol), #a, __FILE__, __LINE__)

/*
 * Naive reference: every state, H evaluated from coordinates straight from the
 * definition (neighbour of x in direction mu = x with x_mu + 1 mod L_mu), no
 * Gray code, no histogram, no index arithmetic shared with the library.
 */
static void brute_force(int ndim, const int *extent, double beta, double J, double h,
                        struct exact_ising_moments *out)
{
    int n = 1;
    for (int k = 0; k < ndim; ++k)
        n *= extent[k];
    assert_true(n <= 16);
    const uint32_t nstates = (uint32_t)1 << n;

    double lwmax = -INFINITY;
    for (int pass = 0; pass < 2; ++pass) {
        /* long double sums: the reference should be the more accurate side */
        long double z = 0, se = 0, se2 = 0, sm = 0, sabsm = 0, sm2 = 0, sm4 = 0;
        for (uint32_t st = 0; st < nstates; ++st) {
            double B = 0, M = 0;
            for (int i = 0; i < n; ++i) {
                int x[EXACT_ISING_MAX_DIM];
                int rem = i;
                for (int k = 0; k < ndim; ++k) {
                    x[k] = rem % extent[k];
                    rem /= extent[k];
                }
                const int si = (st >> i) & 1u ? -1 : 1;
                M += si;
                for (int mu = 0; mu < ndim; ++mu) {
                    int y[EXACT_ISING_MAX_DIM];
                    for (int k = 0; k < ndim; ++k)
                        y[k] = x[k];
                    y[mu] = (x[mu] + 1) % extent[mu];
                    int j = 0;
                    for (int k = ndim - 1; k >= 0; --k)
                        j = j * extent[k] + y[k];
                    B += si * (((st >> j) & 1u) ? -1 : 1);
                }
            }
            const double lw = beta * (J * B + h * M);
            if (pass == 0) {
                if (lw > lwmax)
                    lwmax = lw;
                continue;
            }
            const double w = exp(lw - lwmax);
            const double e = (-J * B - h * M) / n, m = M / n;
            z += w;
            se += w * e;
            se2 += w * e * e;
            sm += w * m;
            sabsm += w * fabs(m);
            sm2 += w * m * m;
            sm4 += w * m * m * m * m;
        }
        if (pass == 1) {
            out->lnz = lwmax + (double)logl(z);
            out->e = (double)(se / z);
            out->e2 = (double)(se2 / z);
            out->var_e = (double)(se2 / z - (se / z) * (se / z));
            out->m = (double)(sm / z);
            out->absm = (double)(sabsm / z);
            out->m2 = (double)(sm2 / z);
            out->m4 = (double)(sm4 / z);
        }
    }
}

static void enumerate_ok(int ndim, const int *extent, double beta, double J, double h,
                         struct exact_ising_moments *out)
{
    assert_int_equal(exact_ising_enumerate(ndim, extent, beta, J, h, out), 0);
}

static double lnz_at(const struct exact_ising_hist *hist, double beta, double J, double h)
{
    struct exact_ising_moments mo;
    assert_int_equal(exact_ising_hist_moments(hist, beta, J, h, &mo), 0);
    return mo.lnz;
}

/* Five-point central first derivative: error O(d^4 f^(5)) + O(eps f / d). */
static double d1_5pt(double fm2, double fm1, double fp1, double fp2, double d)
{
    return (fm2 - 8.0 * fm1 + 8.0 * fp1 - fp2) / (12.0 * d);
}

/* ------------------------------------------------------------------------- */
/* enumeration                                                                */
/* ------------------------------------------------------------------------- */

static void test_hist_vs_brute_force(void **state)
{
    (void)state;
    /* 1D, 2D, 3D, 4D; extents 1 (self-bond), 2 (double bond), odd and even. */
    static const struct {
        int ndim;
        int extent[4];
    } lat[] = {
        {1, {7}},          {1, {2}},          {1, {1}},       {2, {3, 2}},
        {2, {2, 2}},       {2, {3, 4}},       {2, {1, 5}},    {3, {2, 2, 2}},
        {3, {2, 3, 2}},    {3, {3, 1, 3}},    {4, {2, 2, 2, 2}},
    };
    static const double par[][3] = {
        /* beta, J, h */
        {0.0, 1.0, 0.0}, {0.3, 1.0, 0.0}, {0.7, 1.0, 0.25}, {1.3, -0.8, 0.4}, {0.45, 1.7, -0.6},
    };
    for (size_t a = 0; a < sizeof lat / sizeof lat[0]; ++a) {
        struct exact_ising_hist hist;
        assert_int_equal(exact_ising_hist_build(lat[a].ndim, lat[a].extent, &hist), 0);
        int n = 1;
        for (int k = 0; k < lat[a].ndim; ++k)
            n *= lat[a].extent[k];
        assert_int_equal(hist.nsites, n);
        assert_int_equal(hist.nterms, n * lat[a].ndim);
        /* every state counted once; one all-up and one all-down ground state */
        uint64_t total = 0;
        for (int u = 0; u <= hist.nterms; ++u)
            for (int d = 0; d <= n; ++d)
                total += exact_ising_hist_count(&hist, u, d);
        assert_true(total == ((uint64_t)1 << n));
        assert_true(exact_ising_hist_count(&hist, 0, 0) == 1);
        assert_true(exact_ising_hist_count(&hist, 0, n) == 1);
        assert_true(exact_ising_hist_count(&hist, -1, 0) == 0);
        assert_true(exact_ising_hist_count(&hist, 0, n + 1) == 0);

        for (size_t p = 0; p < sizeof par / sizeof par[0]; ++p) {
            struct exact_ising_moments mo, bf;
            assert_int_equal(
                exact_ising_hist_moments(&hist, par[p][0], par[p][1], par[p][2], &mo), 0);
            brute_force(lat[a].ndim, lat[a].extent, par[p][0], par[p][1], par[p][2], &bf);
            CHECK_REL(mo.lnz, bf.lnz, 1e-13);
            CHECK_ABS(mo.e, bf.e, 1e-13);
            CHECK_REL(mo.e2, bf.e2, 1e-13);
            CHECK_ABS(mo.var_e, bf.var_e, 1e-12);
            CHECK_ABS(mo.m, bf.m, 1e-13);
            CHECK_ABS(mo.absm, bf.absm, 1e-13);
            CHECK_ABS(mo.m2, bf.m2, 1e-13);
            CHECK_ABS(mo.m4, bf.m4, 1e-13);
        }
        exact_ising_hist_free(&hist);
        assert_null(hist.count);
    }
}

/* 1D ring: Z = lambda+^L + lambda-^L with the 2x2 transfer matrix, field included. */
static void test_enum_1d_transfer_matrix(void **state)
{
    (void)state;
    static const int lengths[] = {1, 2, 3, 10, 17};
    static const double par[][3] = {
        {0.7, 1.0, 0.3}, {0.2, 1.0, 0.0}, {1.5, -1.0, 0.2}, {2.0, 1.0, -0.05}, {0.9, 0.5, 1.1},
    };
    for (size_t a = 0; a < sizeof lengths / sizeof lengths[0]; ++a)
        for (size_t p = 0; p < sizeof par / sizeof par[0]; ++p) {
            const int L = lengths[a];
            const double K = par[p][0] * par[p][1], hb = par[p][0] * par[p][2];
            const double root = sqrt(exp(2 * K) * sinh(hb) * sinh(hb) + exp(-2 * K));
            const double lp = exp(K) * cosh(hb) + root, lm = exp(K) * cosh(hb) - root;
            const double lnz = log(pow(lp, L) + pow(lm, L));
            struct exact_ising_moments mo;
            enumerate_ok(1, &L, par[p][0], par[p][1], par[p][2], &mo);
            CHECK_REL(mo.lnz, lnz, 1e-13);
        }
}

static void test_enum_beta_zero(void **state)
{
    (void)state;
    static const struct {
        int ndim;
        int extent[3];
    } lat[] = {{2, {4, 4}}, {2, {3, 3}}, {3, {2, 2, 2}}, {2, {4, 6}}};
    for (size_t a = 0; a < sizeof lat / sizeof lat[0]; ++a) {
        struct exact_ising_moments mo;
        enumerate_ok(lat[a].ndim, lat[a].extent, 0.0, 1.0, 0.0, &mo);
        double n = 1;
        for (int k = 0; k < lat[a].ndim; ++k)
            n *= lat[a].extent[k];
        /*
         * Independent spins: <M^2> = N, <M^4> = 3N^2 - 2N, each bond term
         * averages 0 and distinct pairs are uncorrelated, so <B^2> = N per
         * direction, except on an extent of 2, where the two terms of a pair
         * are the same product: (2 s s')^2 over N/2 pairs = 2N.
         */
        double b2 = 0;
        for (int k = 0; k < lat[a].ndim; ++k)
            b2 += (lat[a].extent[k] == 2) ? 2.0 * n : n;
        CHECK_REL(mo.lnz, n * log(2.0), 1e-15);
        CHECK_ABS(mo.e, 0.0, 1e-15);
        CHECK_REL(mo.e2, b2 / (n * n), 1e-14);
        CHECK_REL(mo.m2, 1.0 / n, 1e-14);
        CHECK_REL(mo.m4, (3.0 * n * n - 2.0 * n) / (n * n * n * n), 1e-14);
        assert_true(mo.m == 0.0);
    }
}

static void test_enum_symmetry_and_ground_state(void **state)
{
    (void)state;
    static const int cube[3] = {2, 2, 2};
    static const int sq3[2] = {3, 3};
    static const double betas[] = {0.1, 0.2216, 0.5, 1.0, 3.0};
    for (size_t b = 0; b < sizeof betas / sizeof betas[0]; ++b) {
        struct exact_ising_moments mo;
        enumerate_ok(3, cube, betas[b], 1.0, 0.0, &mo);
        assert_true(mo.m == 0.0); /* exactly, by the d <-> N-d pairing */
        assert_true(mo.absm > 0.0 && mo.absm <= 1.0);
        assert_true(mo.m2 >= mo.absm * mo.absm - 1e-15);
        enumerate_ok(2, sq3, betas[b], 1.0, 0.0, &mo);
        assert_true(mo.m == 0.0);
    }
    /* beta -> infinity: the two ground states, e = -ndim J, |m| = 1 */
    struct exact_ising_moments mo;
    enumerate_ok(3, cube, 5.0, 1.0, 0.0, &mo);
    CHECK_REL(mo.absm, 1.0, 1e-12);
    CHECK_REL(mo.m4, 1.0, 1e-12);
    CHECK_REL(mo.e, -3.0, 1e-12);
    CHECK_REL(mo.lnz, log(2.0) + 5.0 * 24.0, 1e-15);
    /* antiferromagnet on a bipartite lattice: ground state e = -ndim |J|, m = 0 */
    enumerate_ok(3, cube, 5.0, -1.0, 0.0, &mo);
    CHECK_REL(mo.e, -3.0, 1e-12);
    CHECK_ABS(mo.absm, 0.0, 1e-12);
    /* strong field, no coupling: all spins along h */
    enumerate_ok(3, cube, 10.0, 0.0, 2.0, &mo);
    CHECK_REL(mo.m, 1.0, 1e-12);
    CHECK_REL(mo.e, -2.0, 1e-12);
}

/* The log-sum-exp shift: no overflow, no zero Z, exact ground-state limit. */
static void test_enum_no_overflow(void **state)
{
    (void)state;
    static const int sq4[2] = {4, 4};
    static const int r46[2] = {4, 6};
    static const int sq3[2] = {3, 3};
    const double betas[] = {2.0, 50.0, 400.0};
    struct exact_ising_hist h46;
    assert_int_equal(exact_ising_hist_build(2, r46, &h46), 0);
    for (size_t b = 0; b < sizeof betas / sizeof betas[0]; ++b) {
        struct exact_ising_moments mo;
        enumerate_ok(2, sq4, betas[b], 1.0, 0.0, &mo);
        assert_true(isfinite(mo.lnz) && isfinite(mo.e) && isfinite(mo.var_e));
        /* ln Z = ln 2 + 2N beta + N e^{-8 beta} (single flips) + O(e^{-12 beta}) */
        const double lead = log(2.0) + betas[b] * 32.0, flip = 16.0 * exp(-8.0 * betas[b]);
        CHECK_ABS(mo.lnz - lead, flip, 1e-2 * flip + 1e-15 * lead);
        CHECK_REL(mo.absm, 1.0, 1e-5);
        assert_int_equal(exact_ising_hist_moments(&h46, betas[b], 1.0, 0.5, &mo), 0);
        assert_true(isfinite(mo.lnz) && isfinite(mo.e) && isfinite(mo.var_e));
        CHECK_REL(mo.m, 1.0, 1e-5);
        /* frustrated antiferromagnet: still finite, degenerate ground states */
        enumerate_ok(2, sq3, betas[b], -1.0, 0.0, &mo);
        assert_true(isfinite(mo.lnz) && isfinite(mo.e) && mo.var_e >= 0.0);
    }
    exact_ising_hist_free(&h46);
    /* negative temperature is just another weight: finite too */
    struct exact_ising_moments mo;
    enumerate_ok(2, sq4, -50.0, 1.0, 0.0, &mo);
    assert_true(isfinite(mo.lnz) && isfinite(mo.e));
}

/* Moments against numerical derivatives of ln Z (which the same sum produces). */
static void test_enum_derivatives(void **state)
{
    (void)state;
    static const struct {
        int ndim;
        int extent[3];
        double beta, J, h;
    } cases[] = {
        {2, {3, 3}, 0.4, 1.0, 0.3},
        {2, {4, 4}, 0.44, 1.0, 0.05},
        {3, {2, 2, 3}, 0.25, 1.0, -0.2},
        {2, {4, 2}, 0.9, -0.7, 0.6},
    };
    for (size_t a = 0; a < sizeof cases / sizeof cases[0]; ++a) {
        struct exact_ising_hist hist;
        assert_int_equal(exact_ising_hist_build(cases[a].ndim, cases[a].extent, &hist), 0);
        const double b = cases[a].beta, J = cases[a].J, h = cases[a].h;
        const double N = hist.nsites;
        struct exact_ising_moments mo;
        assert_int_equal(exact_ising_hist_moments(&hist, b, J, h, &mo), 0);

        /* d lnZ / dh = beta N <m> */
        const double dh = 1e-3;
        const double dlnz_dh =
            d1_5pt(lnz_at(&hist, b, J, h - 2 * dh), lnz_at(&hist, b, J, h - dh),
                   lnz_at(&hist, b, J, h + dh), lnz_at(&hist, b, J, h + 2 * dh), dh);
        CHECK_REL(mo.m, dlnz_dh / (b * N), 1e-9);

        /* d lnZ / dbeta = -N <e>,  d^2 lnZ / dbeta^2 = N^2 var(e) */
        const double db = 1e-3;
        const double f0 = lnz_at(&hist, b, J, h);
        const double fm1 = lnz_at(&hist, b - db, J, h), fp1 = lnz_at(&hist, b + db, J, h);
        const double fm2 = lnz_at(&hist, b - 2 * db, J, h);
        const double fp2 = lnz_at(&hist, b + 2 * db, J, h);
        CHECK_REL(mo.e, -d1_5pt(fm2, fm1, fp1, fp2, db) / N, 1e-9);
        const double d2 = (-fm2 + 16 * fm1 - 30 * f0 + 16 * fp1 - fp2) / (12 * db * db);
        CHECK_REL(mo.var_e, d2 / (N * N), 1e-6);
        CHECK_REL(mo.e2 - mo.e * mo.e, mo.var_e, 1e-10);
        exact_ising_hist_free(&hist);
    }
}

static void test_enum_bad_args(void **state)
{
    (void)state;
    struct exact_ising_moments mo;
    static const int sq5[2] = {5, 5};   /* N = 25 > 24 */
    static const int bad0[2] = {4, 0};
    static const int huge[2] = {1 << 30, 1 << 30}; /* product must not overflow */
    static const int ok[2] = {2, 2};
    assert_int_not_equal(exact_ising_enumerate(2, sq5, 0.3, 1.0, 0.0, &mo), 0);
    assert_int_not_equal(exact_ising_enumerate(2, bad0, 0.3, 1.0, 0.0, &mo), 0);
    assert_int_not_equal(exact_ising_enumerate(2, huge, 0.3, 1.0, 0.0, &mo), 0);
    assert_int_not_equal(exact_ising_enumerate(0, ok, 0.3, 1.0, 0.0, &mo), 0);
    assert_int_not_equal(exact_ising_enumerate(EXACT_ISING_MAX_DIM + 1, ok, 0.3, 1.0, 0.0, &mo),
                         0);
    assert_int_not_equal(exact_ising_enumerate(2, NULL, 0.3, 1.0, 0.0, &mo), 0);
    assert_int_not_equal(exact_ising_enumerate(2, ok, 0.3, 1.0, 0.0, NULL), 0);
    assert_int_not_equal(exact_ising_enumerate(2, ok, NAN, 1.0, 0.0, &mo), 0);
    assert_int_not_equal(exact_ising_enumerate(2, ok, 0.3, INFINITY, 0.0, &mo), 0);
    assert_int_not_equal(exact_ising_enumerate(2, ok, 0.3, 1.0, NAN, &mo), 0);
    struct exact_ising_hist hist;
    assert_int_not_equal(exact_ising_hist_build(2, sq5, &hist), 0);
    assert_null(hist.count);
    exact_ising_hist_free(&hist); /* safe on the empty result */
    exact_ising_hist_free(NULL);
    assert_int_not_equal(exact_ising_hist_moments(&hist, 0.3, 1.0, 0.0, &mo), 0);
}

static void test_enum_speed(void **state)
{
    (void)state;
    static const int sq4[2] = {4, 4};
    static const int r46[2] = {4, 6};
    struct exact_ising_moments mo;
    clock_t t0 = clock();
    enumerate_ok(2, sq4, 0.44, 1.0, 0.0, &mo);
    const double t44 = (double)(clock() - t0) / CLOCKS_PER_SEC;
    t0 = clock();
    enumerate_ok(2, r46, 0.44, 1.0, 0.0, &mo);
    const double t46 = (double)(clock() - t0) / CLOCKS_PER_SEC;
    print_message("enumeration CPU time: 4x4 %.2f ms, 4x6 (2^24 states) %.1f ms\n", 1e3 * t44,
                  1e3 * t46);
    assert_true(t44 < 0.05);
}

/* ------------------------------------------------------------------------- */
/* Kaufman                                                                    */
/* ------------------------------------------------------------------------- */

static void test_kaufman_vs_enumeration(void **state)
{
    (void)state;
    /* both orientations, extent 2 (double bonds) and odd extents */
    static const int sizes[][2] = {{4, 4}, {4, 6}, {6, 4}, {2, 4}, {4, 2},
                                   {2, 2}, {3, 3}, {3, 5}, {5, 4}, {2, 11}};
    static const double par[][2] = {
        /* beta, J */
        {0.2, 1.0}, {0.44, 1.0}, {BETA_C, 1.0}, {0.6, 1.0}, {1.0, 1.0},
        {0.05, 1.0}, {0.88, 0.5}, {0.15, 2.0}, {0.3, -1.0}, {0.5, -2.0},
    };
    double worst_lnz = 0, worst_e = 0, worst_c = 0, worst_c2 = 0;
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; ++a) {
        const int Lx = sizes[a][0], Ly = sizes[a][1];
        const int bipartite = !(Lx % 2) && !(Ly % 2);
        struct exact_ising_hist hist;
        assert_int_equal(exact_ising_hist_build(2, sizes[a], &hist), 0);
        const double N = hist.nsites;
        for (size_t p = 0; p < sizeof par / sizeof par[0]; ++p) {
            const double b = par[p][0], J = par[p][1];
            struct exact_ising_kaufman_result k;
            const int rc = exact_ising_kaufman_eval(Lx, Ly, b, J, &k);
            if (J < 0 && !bipartite) {
                assert_int_not_equal(rc, 0);
                assert_true(isnan(k.e));
                continue;
            }
            assert_int_equal(rc, 0);
            struct exact_ising_moments mo;
            assert_int_equal(exact_ising_hist_moments(&hist, b, J, 0.0, &mo), 0);
            const double c_var = b * b * N * mo.var_e;
            const double c_e2 = b * b * N * (mo.e2 - mo.e * mo.e);
            CHECK_REL(k.lnz, mo.lnz, 1e-10);
            CHECK_REL(k.e, mo.e, 1e-10);
            CHECK_REL(k.c, c_e2, 1e-6);
            CHECK_REL(k.c, c_var, 1e-10);
            CHECK_REL(exact_ising_kaufman_logz(Lx, Ly, b, J), mo.lnz, 1e-10);
            CHECK_REL(exact_ising_kaufman_energy(Lx, Ly, b, J), mo.e, 1e-10);
            CHECK_REL(exact_ising_kaufman_specific_heat(Lx, Ly, b, J), c_var, 1e-10);
            worst_lnz = fmax(worst_lnz, fabs(k.lnz / mo.lnz - 1));
            worst_e = fmax(worst_e, fabs(k.e / mo.e - 1));
            worst_c = fmax(worst_c, fabs(k.c / c_var - 1));
            worst_c2 = fmax(worst_c2, fabs(k.c / c_e2 - 1));
        }
        /* K = 0 is a special case; K = 1e-3 must join it continuously. */
        struct exact_ising_kaufman_result k, ks;
        struct exact_ising_moments mo0;
        assert_int_equal(exact_ising_hist_moments(&hist, 0.0, 1.0, 0.0, &mo0), 0);
        assert_int_equal(exact_ising_kaufman_eval(Lx, Ly, 0.0, 1.0, &k), 0);
        CHECK_REL(k.lnz, mo0.lnz, 1e-15);
        assert_true(k.e == 0.0 && k.c == 0.0);
        CHECK_REL(k.d2lnz, N * N * mo0.var_e, 1e-14); /* var B */
        assert_int_equal(exact_ising_kaufman_eval(Lx, Ly, 1e-3, 1.0, &ks), 0);
        /* close to K = 0 the derivatives lose ~eps/K^2 (documented): 1e-10 here */
        struct exact_ising_moments mos;
        assert_int_equal(exact_ising_hist_moments(&hist, 1e-3, 1.0, 0.0, &mos), 0);
        CHECK_REL(ks.lnz, mos.lnz, 1e-14);
        CHECK_REL(ks.e, mos.e, 1e-8);
        CHECK_REL(ks.d2lnz, N * N * mos.var_e, 1e-8);
        CHECK_REL(ks.d2lnz, k.d2lnz, 1e-2); /* var B is continuous at K = 0 */
        exact_ising_hist_free(&hist);
    }
    print_message("Kaufman vs enumeration, worst relative difference: ln Z %.1e, e %.1e, "
                  "c %.1e (vs var_e), %.1e (vs e2 - e^2)\n",
                  worst_lnz, worst_e, worst_c, worst_c2);
}

/* Analytic derivatives against finite differences where enumeration is impossible. */
static void test_kaufman_finite_differences(void **state)
{
    (void)state;
    static const int Ls[] = {16, 32};
    static const double betas[] = {0.3, BETA_C, 0.6};
    for (size_t a = 0; a < sizeof Ls / sizeof Ls[0]; ++a)
        for (size_t b = 0; b < sizeof betas / sizeof betas[0]; ++b) {
            const int L = Ls[a];
            const double N = (double)L * L, be = betas[b], d = 1e-4;
            double lz[4], en[4];
            const double off[4] = {-2, -1, 1, 2};
            for (int i = 0; i < 4; ++i) {
                lz[i] = exact_ising_kaufman_logz(L, L, be + off[i] * d, 1.0);
                en[i] = exact_ising_kaufman_energy(L, L, be + off[i] * d, 1.0);
            }
            /* e = -(1/N) d lnZ/dbeta,  c = -beta^2 de/dbeta (J = 1) */
            CHECK_REL(exact_ising_kaufman_energy(L, L, be, 1.0),
                      -d1_5pt(lz[0], lz[1], lz[2], lz[3], d) / N, 1e-8);
            CHECK_REL(exact_ising_kaufman_specific_heat(L, L, be, 1.0),
                      -be * be * d1_5pt(en[0], en[1], en[2], en[3], d), 1e-8);
        }
}

/*
 * Reference values from an independent 60-digit (mpmath) evaluation of
 * Kaufman's formula, derivatives by mpmath's numerical differentiation.
 * beta_c here is the double nearest ln(1+sqrt2)/2, as used in the suite.
 */
static void test_kaufman_high_precision(void **state)
{
    (void)state;
    static const struct {
        int Lx, Ly;
        double beta, lnz, e, c;
    } ref[] = {
        {16, 16, 0.3, 202.383232262540364, -0.70453267085876755446, 0.28651899654405080885},
        {16, 16, BETA_C, 238.64225663513289069, -1.4530648528134771497, 1.4987049594000259787},
        {16, 16, 0.6, 310.48703858986496985, -1.9090861748517106152, 0.31344545745473657728},
        {32, 32, 0.3, 809.53248866008964269, -0.70449907176965552142, 0.28629021616600582914},
        {32, 32, BETA_C, 952.64807954854281857, -1.4336584661462483846, 1.8467675900395586325},
        {32, 32, 0.6, 1239.8687127878947518, -1.9090861776840751551, 0.31344535812616970598},
        {16, 32, BETA_C, 476.71726531999305947, -1.4356808040665717, 1.656281090282730786},
        {256, 256, BETA_C, 60929.157538903391856, -1.4166449541968324657,
         2.8797862552024969807},
        {5, 7, 0.1, 24.613177413026473016, -0.20350561008866046335, 0.02107956934043697331},
        {32, 32, 0.01, 709.8851214274456807, -0.020003333760134961469,
         0.00020010002134278142401},
    };
    for (size_t a = 0; a < sizeof ref / sizeof ref[0]; ++a) {
        struct exact_ising_kaufman_result k;
        assert_int_equal(exact_ising_kaufman_eval(ref[a].Lx, ref[a].Ly, ref[a].beta, 1.0, &k), 0);
        /* K = 0.01 loses ~eps/K^2 in the derivatives (documented) */
        const double tol = ref[a].beta < 0.05 ? 1e-11 : 1e-13;
        CHECK_REL(k.lnz, ref[a].lnz, 1e-14);
        CHECK_REL(k.e, ref[a].e, tol);
        CHECK_REL(k.c, ref[a].c, tol);
    }
}

static void test_kaufman_vs_onsager(void **state)
{
    (void)state;
    static const double par[][2] = {{0.3, 1.0}, {0.6, 1.0}, {0.15, 2.0}, {0.3, -1.0}};
    for (size_t p = 0; p < sizeof par / sizeof par[0]; ++p) {
        const double u = exact_ising_onsager_energy(par[p][0], par[p][1]);
        const double e = exact_ising_kaufman_energy(256, 256, par[p][0], par[p][1]);
        print_message("L=256 beta=%.2f J=%+.1f: Kaufman %.15f  Onsager %.15f  diff %.1e\n",
                      par[p][0], par[p][1], e, u, e - u);
        CHECK_REL(e, u, 1e-6);
    }
    /* K_c: coth(2 K_c) = sqrt 2, and the limit is continuous */
    CHECK_REL(exact_ising_onsager_energy(BETA_C, 1.0), -sqrt(2.0), 1e-15);
    CHECK_REL(exact_ising_onsager_energy(BETA_C * (1 + 1e-9), 1.0), -sqrt(2.0), 1e-6);
    CHECK_REL(exact_ising_onsager_energy(BETA_C * (1 - 1e-9), 1.0), -sqrt(2.0), 1e-6);
    /* limits */
    assert_true(exact_ising_onsager_energy(0.0, 1.0) == 0.0);
    CHECK_REL(exact_ising_onsager_energy(20.0, 1.0), -2.0, 1e-15);
    CHECK_REL(exact_ising_onsager_energy(1e-4, 1.0), -2e-4, 1e-6); /* u ~ -2K */
    assert_true(isnan(exact_ising_onsager_energy(NAN, 1.0)));
}

static void test_kaufman_bad_args(void **state)
{
    (void)state;
    struct exact_ising_kaufman_result k;
    assert_int_not_equal(exact_ising_kaufman_eval(1, 4, 0.3, 1.0, &k), 0);
    assert_true(isnan(k.lnz) && isnan(k.e) && isnan(k.c));
    assert_int_not_equal(exact_ising_kaufman_eval(4, 0, 0.3, 1.0, &k), 0);
    assert_int_not_equal(exact_ising_kaufman_eval(3, 4, 0.3, -1.0, &k), 0); /* frustrated */
    assert_int_not_equal(exact_ising_kaufman_eval(4, 4, 101.0, 1.0, &k), 0);
    assert_int_not_equal(exact_ising_kaufman_eval(4, 4, NAN, 1.0, &k), 0);
    assert_int_not_equal(exact_ising_kaufman_eval(4, 4, 0.3, 1.0, NULL), 0);
    assert_true(isnan(exact_ising_kaufman_energy(4, 1, 0.3, 1.0)));
    assert_true(isnan(exact_ising_kaufman_logz(4, 4, INFINITY, 1.0)));
    assert_true(isnan(exact_ising_kaufman_specific_heat(3, 3, 0.3, -1.0)));
}

/* The numbers the physics suite quotes. */
static void test_kaufman_table(void **state)
{
    (void)state;
    static const int Ls[] = {16, 32};
    static const double betas[] = {0.3, BETA_C, 0.6};
    print_message("Kaufman exact, periodic L x L, J = 1, h = 0:\n");
    print_message("   L  beta                  <H/N>                 c = beta^2 N var(e)\n");
    for (size_t a = 0; a < sizeof Ls / sizeof Ls[0]; ++a)
        for (size_t b = 0; b < sizeof betas / sizeof betas[0]; ++b) {
            struct exact_ising_kaufman_result k;
            assert_int_equal(exact_ising_kaufman_eval(Ls[a], Ls[a], betas[b], 1.0, &k), 0);
            print_message("  %2d  %-20.17g  %.15f  %.15f\n", Ls[a], betas[b], k.e, k.c);
            assert_true(k.e < 0.0 && k.e > -2.0 && k.c > 0.0);
        }
    /* J scaling: only K = beta J matters for e / J */
    CHECK_REL(exact_ising_kaufman_energy(16, 16, BETA_C / 2.0, 2.0),
              2.0 * exact_ising_kaufman_energy(16, 16, BETA_C, 1.0), 1e-14);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hist_vs_brute_force),
        cmocka_unit_test(test_enum_1d_transfer_matrix),
        cmocka_unit_test(test_enum_beta_zero),
        cmocka_unit_test(test_enum_symmetry_and_ground_state),
        cmocka_unit_test(test_enum_no_overflow),
        cmocka_unit_test(test_enum_derivatives),
        cmocka_unit_test(test_enum_bad_args),
        cmocka_unit_test(test_enum_speed),
        cmocka_unit_test(test_kaufman_vs_enumeration),
        cmocka_unit_test(test_kaufman_finite_differences),
        cmocka_unit_test(test_kaufman_high_precision),
        cmocka_unit_test(test_kaufman_vs_onsager),
        cmocka_unit_test(test_kaufman_bad_args),
        cmocka_unit_test(test_kaufman_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
