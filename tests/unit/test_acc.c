/*
 * Unit tests of the accumulators (lib/acc.c). Every random series comes from a fixed
 * seed of the splitmix64 generator below, so each run sees the same numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <latmc/acc.h>
#include <latmc/ctx.h>

/* ---- deterministic normal deviates: splitmix64 + Box–Muller ---- */

typedef struct {
    uint64_t s;
    int have_spare;
    double spare;
} rng_t;

static rng_t rng_seed(uint64_t seed)
{
    rng_t r = {seed, 0, 0.0};
    return r;
}

static uint64_t splitmix64(rng_t *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in (0, 1]: never 0, so log() below is finite. */
static double uniform(rng_t *r)
{
    return (double)((splitmix64(r) >> 11) + 1) * 0x1p-53;
}

static double normal(rng_t *r)
{
    if (r->have_spare) {
        r->have_spare = 0;
        return r->spare;
    }
    double rad = sqrt(-2.0 * log(uniform(r)));
    double th = 6.283185307179586 * uniform(r);
    r->spare = rad * sin(th);
    r->have_spare = 1;
    return rad * cos(th);
}

static latmc_acc *new_acc(int ncols)
{
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, ncols), LATMC_OK);
    assert_non_null(acc);
    return acc;
}

static void push1(latmc_acc *acc, double x)
{
    assert_int_equal(latmc_acc_push(acc, &x, 1), LATMC_OK);
}

/* Absolute tolerance in double (cmocka 1.1.5 has only a float version). */
static void assert_near(double got, double want, double tol)
{
    if (!(fabs(got - want) <= tol))
        fail_msg("got %.17g, want %.17g within %g (off by %.3g)", got, want, tol, got - want);
}

static void assert_rel(double got, double want, double rel)
{
    if (!(fabs(got - want) <= rel * fabs(want)))
        fail_msg("got %.17g, want %.17g within %g relative (off by %.3g)", got, want, rel,
                 (got - want) / want);
}

static double mean0_over_mean1(const double *m, const double *sq, void *user)
{
    (void)sq;
    (void)user;
    return m[0] / m[1];
}

static double mean0(const double *m, const double *sq, void *user)
{
    (void)sq;
    (void)user;
    return m[0];
}

static double always_nan(const double *m, const double *sq, void *user)
{
    (void)m;
    (void)sq;
    (void)user;
    return NAN;
}

static double inf_at_mean_one(const double *m, const double *sq, void *user)
{
    (void)sq;
    (void)user;
    return m[0] == 1.0 ? INFINITY : m[0];
}

/* ---- 1. argument and state errors ---- */

static void test_errors(void **state)
{
    (void)state;
    latmc_acc *acc = (latmc_acc *)0x1; /* must be reset to NULL on failure */
    double v = 0.0, e = 0.0, row[3] = {1, 2, 3};

    assert_int_equal(latmc_acc_create(NULL, 2), LATMC_EINVAL);
    assert_true(strlen(latmc_last_error()) > 0);
    assert_int_equal(latmc_acc_create(&acc, 0), LATMC_EINVAL);
    assert_null(acc);
    assert_int_equal(latmc_acc_create(&acc, 65), LATMC_EINVAL);
    assert_null(acc);
    assert_non_null(strstr(latmc_last_error(), "65"));
    latmc_acc_destroy(NULL);
    latmc_acc_destroy(&acc); /* *acc == NULL */

    acc = new_acc(64);
    latmc_acc_destroy(&acc);
    assert_null(acc);

    acc = new_acc(2);
    assert_int_equal(latmc_acc_ncols(acc), 2);
    assert_int_equal(latmc_acc_ncols(NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_count(NULL), 0);

    /* queries on an empty acc */
    assert_int_equal(latmc_acc_mean(acc, 0, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_error(acc, 0, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 0, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_tau_int(acc, 0, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_jackknife(acc, 2, mean0, NULL, &v, &e), LATMC_ESTATE);
    assert_int_equal(latmc_acc_binder(acc, 0, 1, 2, &v, &e), LATMC_ESTATE);
    assert_int_equal(latmc_acc_susceptibility(acc, 0, 1, 1.0, 2, &v, &e), LATMC_ESTATE);
    assert_int_equal(latmc_acc_specific_heat(acc, 0, 1.0, 2, &v, &e), LATMC_ESTATE);
    assert_int_equal(latmc_acc_row(acc, 0, row, 2), LATMC_EINVAL);

    /* push: NULLs, wrong n, non-finite values; nothing is appended */
    assert_int_equal(latmc_acc_push(NULL, row, 2), LATMC_EINVAL);
    assert_int_equal(latmc_acc_push(acc, NULL, 2), LATMC_EINVAL);
    assert_int_equal(latmc_acc_push(acc, row, 1), LATMC_EINVAL);
    assert_int_equal(latmc_acc_push(acc, row, 3), LATMC_EINVAL);
    double bad[4][2] = {{NAN, 1.0}, {1.0, INFINITY}, {-INFINITY, 0.0}, {0.0, -NAN}};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(latmc_acc_push(acc, bad[i], 2), LATMC_EINVAL);
        assert_int_equal(latmc_acc_count(acc), 0);
    }
    assert_non_null(strstr(latmc_last_error(), "not finite"));

    /* one good row: still too few for errors, tau and a 2-block jackknife */
    double r0[2] = {1.0, 2.0};
    assert_int_equal(latmc_acc_push(acc, r0, 2), LATMC_OK);
    assert_int_equal(latmc_acc_count(acc), 1);
    assert_int_equal(latmc_acc_mean(acc, 0, &v), LATMC_OK);
    assert_true(v == 1.0);
    assert_int_equal(latmc_acc_error(acc, 0, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_tau_int(acc, 0, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_jackknife(acc, 2, mean0, NULL, &v, &e), LATMC_ESTATE);
    assert_int_equal(latmc_acc_push(acc, bad[0], 2), LATMC_EINVAL);
    assert_int_equal(latmc_acc_count(acc), 1);
    for (int i = 0; i < 9; i++)
        assert_int_equal(latmc_acc_push(acc, r0, 2), LATMC_OK);
    assert_int_equal(latmc_acc_count(acc), 10);

    /* column out of range, NULL outputs */
    const int badcols[2] = {-1, 2};
    for (int i = 0; i < 2; i++) {
        int c = badcols[i];
        assert_int_equal(latmc_acc_mean(acc, c, &v), LATMC_EINVAL);
        assert_int_equal(latmc_acc_error(acc, c, &v), LATMC_EINVAL);
        assert_int_equal(latmc_acc_binning_error(acc, c, 0, &v), LATMC_EINVAL);
        assert_int_equal(latmc_acc_tau_int(acc, c, &v), LATMC_EINVAL);
        assert_int_equal(latmc_acc_binder(acc, c, 0, 2, &v, &e), LATMC_EINVAL);
        assert_int_equal(latmc_acc_binder(acc, 0, c, 2, &v, &e), LATMC_EINVAL);
        assert_int_equal(latmc_acc_susceptibility(acc, c, 0, 1.0, 2, &v, &e), LATMC_EINVAL);
        assert_int_equal(latmc_acc_susceptibility(acc, 0, c, 1.0, 2, &v, &e), LATMC_EINVAL);
        assert_int_equal(latmc_acc_specific_heat(acc, c, 1.0, 2, &v, &e), LATMC_EINVAL);
    }
    assert_non_null(strstr(latmc_last_error(), "out of range"));
    assert_int_equal(latmc_acc_mean(NULL, 0, &v), LATMC_EINVAL);
    assert_int_equal(latmc_acc_mean(acc, 0, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_error(acc, 0, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 0, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_tau_int(NULL, 0, &v), LATMC_EINVAL);
    assert_int_equal(latmc_acc_tau_int(acc, 0, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_row(acc, 0, NULL, 2), LATMC_EINVAL);
    assert_int_equal(latmc_acc_row(acc, 0, row, 3), LATMC_EINVAL);
    assert_int_equal(latmc_acc_row(acc, 10, row, 2), LATMC_EINVAL);
    assert_int_equal(latmc_acc_row(acc, 9, row, 2), LATMC_OK);

    /* binning levels */
    assert_int_equal(latmc_acc_binning_error(acc, 0, -1, &v), LATMC_EINVAL);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 64, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 1000, &v), LATMC_ESTATE);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 2, &v), LATMC_OK);    /* 2 bins */
    assert_int_equal(latmc_acc_binning_error(acc, 0, 3, &v), LATMC_ESTATE); /* 10 >> 3 = 1 bin */

    /* jackknife arguments */
    assert_int_equal(latmc_acc_jackknife(NULL, 2, mean0, NULL, &v, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_jackknife(acc, 2, NULL, NULL, &v, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_jackknife(acc, 2, mean0, NULL, NULL, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_jackknife(acc, 2, mean0, NULL, &v, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_jackknife(acc, 1, mean0, NULL, &v, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_jackknife(acc, 0, mean0, NULL, &v, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_jackknife(acc, -3, mean0, NULL, &v, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_jackknife(acc, 11, mean0, NULL, &v, &e), LATMC_ESTATE);
    assert_int_equal(latmc_acc_jackknife(acc, 10, mean0, NULL, &v, &e), LATMC_OK);
    assert_int_equal(latmc_acc_binder(acc, 0, 1, 1, &v, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_specific_heat(acc, 0, 1.0, 11, &v, &e), LATMC_ESTATE);
    assert_int_equal(latmc_acc_specific_heat(acc, 0, NAN, 2, &v, &e), LATMC_EINVAL);
    assert_int_equal(latmc_acc_susceptibility(acc, 0, 1, INFINITY, 2, &v, &e), LATMC_EINVAL);
    /* a derived function that is not finite on all rows, or only without one block */
    latmc_acc *z = new_acc(1);
    const double zr[4] = {0.0, 0.0, 1.0, 1.0};
    for (int i = 0; i < 4; i++)
        push1(z, zr[i]);
    assert_int_equal(latmc_acc_jackknife(z, 2, always_nan, NULL, &v, &e), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "not finite"));
    assert_int_equal(latmc_acc_jackknife(z, 2, inf_at_mean_one, NULL, &v, &e), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "block 0"));
    latmc_acc_destroy(&z);

    /* clear empties the acc but keeps it usable */
    latmc_acc_clear(acc);
    latmc_acc_clear(NULL);
    assert_int_equal(latmc_acc_count(acc), 0);
    assert_int_equal(latmc_acc_mean(acc, 0, &v), LATMC_ESTATE);
    double r1[2] = {5.0, 6.0};
    assert_int_equal(latmc_acc_push(acc, r1, 2), LATMC_OK);
    assert_int_equal(latmc_acc_mean(acc, 1, &v), LATMC_OK);
    assert_true(v == 6.0);

    /* write_csv arguments */
    assert_int_equal(latmc_acc_write_csv(NULL, "/tmp/x.csv", NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_write_csv(acc, NULL, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_write_csv(acc, "", NULL), LATMC_EINVAL);
    const char *bad_names1[2] = {"e", NULL};
    const char *bad_names2[2] = {"e", "m,x"};
    assert_int_equal(latmc_acc_write_csv(acc, "/nonexistent-latmc/x.csv", bad_names1),
                     LATMC_EINVAL);
    assert_int_equal(latmc_acc_write_csv(acc, "/nonexistent-latmc/x.csv", bad_names2),
                     LATMC_EINVAL);
    latmc_acc_destroy(&acc);
}

/* ---- 2. small hand-computable series ---- */

static void test_small_exact(void **state)
{
    (void)state;
    /* x: mean 5, sum of squared deviations 32; y: constant 0.1 (not exact in binary) */
    const double x[8] = {2, 4, 4, 4, 5, 5, 7, 9};
    latmc_acc *acc = new_acc(2);
    for (int i = 0; i < 8; i++) {
        double r[2] = {x[i], 0.1};
        assert_int_equal(latmc_acc_push(acc, r, 2), LATMC_OK);
    }
    double r[2];
    assert_int_equal(latmc_acc_row(acc, 6, r, 2), LATMC_OK);
    assert_true(r[0] == 7.0 && r[1] == 0.1);

    double v;
    assert_int_equal(latmc_acc_mean(acc, 0, &v), LATMC_OK);
    assert_true(v == 5.0);
    /* level 0: sqrt(32 / (8 * 7)) */
    assert_int_equal(latmc_acc_binning_error(acc, 0, 0, &v), LATMC_OK);
    assert_near(v, sqrt(4.0 / 7.0), 1e-15);
    assert_int_equal(latmc_acc_error(acc, 0, &v), LATMC_OK); /* count < 64: level 0 */
    assert_near(v, sqrt(4.0 / 7.0), 1e-15);
    /* level 1: bins 3, 4, 5, 8 -> sum of squared deviations 14, sqrt(14 / (4 * 3)) */
    assert_int_equal(latmc_acc_binning_error(acc, 0, 1, &v), LATMC_OK);
    assert_near(v, sqrt(7.0 / 6.0), 1e-15);
    /* level 2: bins 3.5, 6.5 -> sqrt(4.5 / (2 * 1)) */
    assert_int_equal(latmc_acc_binning_error(acc, 0, 2, &v), LATMC_OK);
    assert_near(v, 1.5, 1e-15);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 3, &v), LATMC_ESTATE);

    /* constant column: exact mean, zero error, tau 1/2 */
    assert_int_equal(latmc_acc_mean(acc, 1, &v), LATMC_OK);
    assert_true(v == 0.1);
    assert_int_equal(latmc_acc_error(acc, 1, &v), LATMC_OK);
    assert_true(v == 0.0);
    assert_int_equal(latmc_acc_binning_error(acc, 1, 1, &v), LATMC_OK);
    assert_true(v == 0.0);
    assert_int_equal(latmc_acc_tau_int(acc, 1, &v), LATMC_OK);
    assert_true(v == 0.5);

    /* a 9th row: the incomplete tail bin is dropped at level >= 1, used at level 0 */
    double r9[2] = {100.0, 0.1};
    assert_int_equal(latmc_acc_push(acc, r9, 2), LATMC_OK);
    assert_int_equal(latmc_acc_mean(acc, 0, &v), LATMC_OK);
    assert_near(v, 140.0 / 9.0, 1e-14);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 1, &v), LATMC_OK);
    assert_near(v, sqrt(7.0 / 6.0), 1e-15);
    /* sum x^2 = 10232, SS = 10232 - 140^2 / 9 = 72488 / 9, sigma^2 = SS / (9 * 8) */
    assert_int_equal(latmc_acc_binning_error(acc, 0, 0, &v), LATMC_OK);
    assert_near(v, sqrt(72488.0 / 648.0), 1e-13);

    /* delete-one jackknife of the mean: value = mean, error = level-0 error */
    double jv, je;
    assert_int_equal(latmc_acc_jackknife(acc, 9, mean0, NULL, &jv, &je), LATMC_OK);
    assert_near(jv, 140.0 / 9.0, 1e-13);
    assert_near(je, sqrt(72488.0 / 648.0), 1e-13);
    latmc_acc_destroy(&acc);

    /* a longer constant column, where bin sums of 0.1 are no longer exact */
    acc = new_acc(1);
    for (int i = 0; i < 512; i++)
        push1(acc, 0.1);
    assert_int_equal(latmc_acc_mean(acc, 0, &v), LATMC_OK);
    assert_true(v == 0.1);
    assert_int_equal(latmc_acc_error(acc, 0, &v), LATMC_OK); /* level 4: 32 bins of 16 */
    assert_true(v == 0.0);
    for (int level = 0; level <= 8; level++) {
        assert_int_equal(latmc_acc_binning_error(acc, 0, level, &v), LATMC_OK);
        assert_true(v == 0.0);
    }
    assert_int_equal(latmc_acc_tau_int(acc, 0, &v), LATMC_OK);
    assert_true(v == 0.5);
    latmc_acc_destroy(&acc);

    /* values near the ends of the double range: no overflow in the variance sums */
    acc = new_acc(1);
    const double big[4] = {1e300, 3e300, 1e300, 3e300};
    for (int i = 0; i < 4; i++)
        push1(acc, big[i]);
    assert_int_equal(latmc_acc_mean(acc, 0, &v), LATMC_OK);
    assert_rel(v, 2e300, 1e-15);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 0, &v), LATMC_OK);
    assert_rel(v, sqrt(1.0 / 3.0) * 1e300, 1e-15); /* sqrt(4e600 / (4 * 3)) */
    latmc_acc_clear(acc);
    const double tiny[4] = {1e-310, 3e-310, 1e-310, 3e-310}; /* subnormal: squares are 0 */
    for (int i = 0; i < 4; i++)
        push1(acc, tiny[i]);
    assert_int_equal(latmc_acc_binning_error(acc, 0, 0, &v), LATMC_OK);
    assert_rel(v, (tiny[1] - tiny[0]) / 2.0 / sqrt(3.0), 1e-12);
    assert_int_equal(latmc_acc_tau_int(acc, 0, &v), LATMC_OK);
    assert_true(v == 0.5); /* period 2: the floor */
    unsigned fl = 0;
    assert_int_equal(latmc_acc_warnings(acc, 0, &fl), LATMC_OK);
    /* not mistaken for a constant column (4 rows are too few for the shortfall to be
     * significant: test_warnings has the long period-2 series) */
    assert_false(fl & LATMC_ACC_WARN_TAU_UNDEFINED);
    assert_false(fl & LATMC_ACC_WARN_ZERO_ERROR);
    latmc_acc_destroy(&acc);
}

/* Independent tau_int: 1/(n - t) autocovariance, Madras–Sokal window, capped at n/2. */
static double ref_tau(const double *x, size_t n)
{
    double m = 0.0;
    for (size_t i = 0; i < n; i++)
        m += x[i];
    m /= (double)n;
    double c0 = 0.0;
    for (size_t i = 0; i < n; i++)
        c0 += (x[i] - m) * (x[i] - m);
    c0 /= (double)n;
    double tau = 0.5;
    for (size_t t = 1; t <= n / 2; t++) {
        double c = 0.0;
        for (size_t i = 0; i + t < n; i++)
            c += (x[i] - m) * (x[i + t] - m);
        tau += c / (double)(n - t) / c0;
        if ((double)t >= 6.0 * tau)
            break;
    }
    return tau;
}

/* ---- 3. AR(1) series with known tau_int ---- */

static void test_ar1(void **state)
{
    (void)state;
    enum { N = 1 << 20, BURN = 2000 };
    const double a[2] = {0.9, 0.5};
    latmc_acc *acc = new_acc(3); /* AR(0.9), AR(0.5), i.i.d. */
    rng_t rng = rng_seed(20240611);
    double x[2] = {0.0, 0.0};
    for (int i = 0; i < BURN + N; i++) {
        double row[3];
        for (int k = 0; k < 2; k++) {
            x[k] = a[k] * x[k] + sqrt(1.0 - a[k] * a[k]) * normal(&rng);
            row[k] = x[k];
        }
        row[2] = normal(&rng);
        if (i >= BURN)
            assert_int_equal(latmc_acc_push(acc, row, 3), LATMC_OK);
    }
    assert_int_equal(latmc_acc_count(acc), N);

    const double a_all[3] = {0.9, 0.5, 0.0};
    for (int c = 0; c < 3; c++) {
        double tau_exact = (1.0 + a_all[c]) / (2.0 * (1.0 - a_all[c]));
        double err_exact = sqrt(2.0 * tau_exact * 1.0 / N); /* variance 1 */
        double tau, err, err10, err15, mean;
        assert_int_equal(latmc_acc_tau_int(acc, c, &tau), LATMC_OK);
        assert_int_equal(latmc_acc_error(acc, c, &err), LATMC_OK);
        assert_int_equal(latmc_acc_binning_error(acc, c, 10, &err10), LATMC_OK);
        assert_int_equal(latmc_acc_binning_error(acc, c, 15, &err15), LATMC_OK);
        assert_int_equal(latmc_acc_mean(acc, c, &mean), LATMC_OK);
        print_message("    a = %.1f: tau %.4f (exact %.4f), error %.6g, level-10 error %.6g "
                      "(exact %.6g), mean %.3g\n", a_all[c], tau, tau_exact, err, err10,
                      err_exact, mean);

        if (c < 2)
            assert_rel(tau, tau_exact, 0.10);
        else
            assert_true(fabs(tau - 0.5) <= 0.05);
        /* latmc_acc_error is the level with exactly 32 bins here (2^20 >> 15). */
        assert_true(err == err15);
        /* With 32 bins the error estimate itself scatters by 1/sqrt(2 * 31) = 12.7%, so
         * it is held to 3 of its own standard deviations; the 1024-bin level (bins of
         * 1024 >> tau) is precise to 2.2% and is held to 10%. */
        assert_rel(err, err_exact, 3.0 / sqrt(2.0 * 31.0));
        assert_rel(err10, err_exact, 0.10);
        assert_true(fabs(mean) <= 4.0 * err_exact);
    }

    /* The exact estimator on a shorter stretch, against the independent reference. */
    enum { NS = 5000 };
    static double xs[NS];
    latmc_acc *s = new_acc(1);
    for (int i = 0; i < NS; i++) {
        double row[3];
        assert_int_equal(latmc_acc_row(acc, (uint64_t)i, row, 3), LATMC_OK);
        xs[i] = row[0];
        push1(s, xs[i]);
    }
    double tau;
    assert_int_equal(latmc_acc_tau_int(s, 0, &tau), LATMC_OK);
    assert_rel(tau, ref_tau(xs, NS), 1e-10);
    latmc_acc_destroy(&s);
    latmc_acc_destroy(&acc);
}

/* ---- 4. jackknife ---- */

/* Independent jackknife of mean0/mean1 (blocks of consecutive rows, tail dropped). */
static void ref_ratio_jackknife(const double *x0, const double *x1, size_t count, size_t nb,
                                double *value, double *err)
{
    size_t b = count / nb, used = b * nb;
    double s0 = 0.0, s1 = 0.0;
    for (size_t i = 0; i < used; i++) {
        s0 += x0[i];
        s1 += x1[i];
    }
    double f_all = s0 / s1;
    double *f = malloc(nb * sizeof *f);
    assert_non_null(f);
    double fbar = 0.0;
    for (size_t j = 0; j < nb; j++) {
        double t0 = 0.0, t1 = 0.0;
        for (size_t i = 0; i < used; i++)
            if (i / b != j) {
                t0 += x0[i];
                t1 += x1[i];
            }
        f[j] = t0 / t1;
        fbar += f[j];
    }
    fbar /= (double)nb;
    double ss = 0.0;
    for (size_t j = 0; j < nb; j++)
        ss += (f[j] - fbar) * (f[j] - fbar);
    free(f);
    *value = (double)nb * f_all - (double)(nb - 1) * fbar;
    *err = sqrt((double)(nb - 1) / (double)nb * ss);
}

static void test_jackknife(void **state)
{
    (void)state;
    enum { N = 1 << 16, NB = 64 };
    const double mu = -1.2, s = 0.7;
    latmc_acc *acc = new_acc(4); /* e, |m|, m^2, m^4 */
    rng_t rng = rng_seed(7);
    for (int i = 0; i < N; i++) {
        double e = mu + s * normal(&rng);
        double m = normal(&rng);
        double row[4] = {e, fabs(m), m * m, m * m * m * m};
        assert_int_equal(latmc_acc_push(acc, row, 4), LATMC_OK);
    }
    double v, err;

    /* specific heat, factor 1: the variance s^2; its estimator scatters by
     * s^2 sqrt(2 / N) for Gaussian data */
    assert_int_equal(latmc_acc_specific_heat(acc, 0, 1.0, NB, &v, &err), LATMC_OK);
    print_message("    C = %.6f +- %.6f (exact %.6f, expected error %.6f)\n", v, err, s * s,
                  s * s * sqrt(2.0 / N));
    assert_true(fabs(v - s * s) <= 4.0 * err);
    assert_rel(err, s * s * sqrt(2.0 / N), 0.4);
    double v2, err2;
    assert_int_equal(latmc_acc_specific_heat(acc, 0, 2.5, NB, &v2, &err2), LATMC_OK);
    assert_rel(v2, 2.5 * v, 1e-12);
    assert_rel(err2, 2.5 * err, 1e-12);

    /* susceptibility, factor 1: var |m| = 1 - 2/pi for a standard normal m */
    const double var_abs = 1.0 - 2.0 / 3.141592653589793;
    assert_int_equal(latmc_acc_susceptibility(acc, 1, 2, 1.0, NB, &v, &err), LATMC_OK);
    print_message("    chi = %.6f +- %.6f (exact %.6f)\n", v, err, var_abs);
    assert_true(fabs(v - var_abs) <= 4.0 * err);
    assert_true(err > 0.0 && err < 0.01);
    assert_int_equal(latmc_acc_susceptibility(acc, 1, 2, 3.0, NB, &v2, &err2), LATMC_OK);
    assert_rel(v2, 3.0 * v, 1e-12);
    assert_rel(err2, 3.0 * err, 1e-12);

    /* Binder: <m^4> = 3 <m^2>^2 for a Gaussian, so U4 = 0 */
    assert_int_equal(latmc_acc_binder(acc, 2, 3, NB, &v, &err), LATMC_OK);
    print_message("    U4 = %.6f +- %.6f (exact 0)\n", v, err);
    assert_true(fabs(v) <= 4.0 * err);
    assert_true(err > 0.0 && err < 0.02);
    latmc_acc_destroy(&acc);

    /* ratio of means, constructed to be exactly r: x0 = r x1 + eta with eta in +-
     * pairs, so every block (even length) and every all-but-one-block set has
     * sum(eta) = 0 and mean0 / mean1 = r */
    enum { NR = 1000, NBR = 10 };
    const double r = 2.5;
    acc = new_acc(2);
    rng = rng_seed(99);
    for (int i = 0; i < NR; i += 2) {
        double x1 = 1.0 + 0.5 * uniform(&rng), y1 = 1.0 + 0.5 * uniform(&rng);
        double eta = normal(&rng);
        double ra[2] = {r * x1 + eta, x1}, rb[2] = {r * y1 - eta, y1};
        assert_int_equal(latmc_acc_push(acc, ra, 2), LATMC_OK);
        assert_int_equal(latmc_acc_push(acc, rb, 2), LATMC_OK);
    }
    assert_int_equal(latmc_acc_jackknife(acc, NBR, mean0_over_mean1, NULL, &v, &err), LATMC_OK);
    assert_near(v, r, 1e-12);
    assert_true(err < 1e-12);
    latmc_acc_destroy(&acc);

    /* ratio of means on noisy data against the independent reference, with a row
     * count that leaves a tail (1003 = 10 * 100 + 3), and against the exact ratio
     * E[x0] / E[x1] = 3 / 2 */
    enum { NN = 1003 };
    static double x0[NN], x1[NN];
    acc = new_acc(2);
    rng = rng_seed(12345);
    for (int i = 0; i < NN; i++) {
        x1[i] = 2.0 + 0.3 * normal(&rng);
        x0[i] = 3.0 + 0.5 * normal(&rng);
        double row[2] = {x0[i], x1[i]};
        assert_int_equal(latmc_acc_push(acc, row, 2), LATMC_OK);
    }
    double rv, re;
    ref_ratio_jackknife(x0, x1, NN, NBR, &rv, &re);
    assert_int_equal(latmc_acc_jackknife(acc, NBR, mean0_over_mean1, NULL, &v, &err), LATMC_OK);
    print_message("    ratio = %.6f +- %.6f (exact 1.5, reference %.6f +- %.6f)\n", v, err, rv,
                  re);
    assert_rel(v, rv, 1e-12);
    assert_rel(err, re, 1e-9);
    assert_true(fabs(v - 1.5) <= 4.0 * err);
    assert_true(err > 0.0 && err < 0.02);
    latmc_acc_destroy(&acc);
}

/* ---- 5. CSV ---- */

static void test_csv(void **state)
{
    (void)state;
    char dir[] = "/tmp/latmc_test_acc_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256], tmp[256], sub[256];
    snprintf(path, sizeof path, "%s/series.csv", dir);
    snprintf(tmp, sizeof tmp, "%s/series.csv.tmp", dir);

    const double vals[][3] = {
        {1.0 / 3.0, -2.0 / 3.0, 0.1},
        {3.141592653589793, 1e-300, -1.7976931348623157e308},
        {-0.0, 4.9406564584124654e-324, 123456789.123456789},
        {2.718281828459045, 1e22, -1e-5},
    };
    enum { NROWS = sizeof vals / sizeof vals[0] };
    latmc_acc *acc = new_acc(3);
    for (int i = 0; i < NROWS; i++)
        assert_int_equal(latmc_acc_push(acc, vals[i], 3), LATMC_OK);

    const char *names[3] = {"e", "absm", "m2"};
    assert_int_equal(latmc_acc_write_csv(acc, path, names), LATMC_OK);
    assert_int_equal(access(tmp, F_OK), -1);

    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "index,e,absm,m2\n");
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        char *p = line, *end;
        assert_true(rows < NROWS);
        long idx = strtol(p, &end, 10);
        assert_int_equal(idx, rows);
        p = end;
        for (int c = 0; c < 3; c++) {
            assert_int_equal(*p, ',');
            double x = strtod(p + 1, &end);
            assert_true(end > p + 1);
            if (!(x == vals[rows][c] && signbit(x) == signbit(vals[rows][c])))
                fail_msg("row %d col %d: read %.17g, wrote %.17g", rows, c, x, vals[rows][c]);
            p = end;
        }
        assert_string_equal(p, "\n");
        rows++;
    }
    assert_int_equal(rows, NROWS);
    fclose(f);

    /* default names; overwriting an existing file */
    assert_int_equal(latmc_acc_write_csv(acc, path, NULL), LATMC_OK);
    f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "index,c0,c1,c2\n");
    fclose(f);
    assert_int_equal(remove(path), 0);

    /* a directory that does not exist: EIO naming the path, and no file anywhere */
    char missing[256], missing_tmp[300];
    snprintf(missing, sizeof missing, "%s/no/such/dir/out.csv", dir);
    snprintf(missing_tmp, sizeof missing_tmp, "%s.tmp", missing);
    assert_int_equal(latmc_acc_write_csv(acc, missing, names), LATMC_EIO);
    assert_non_null(strstr(latmc_last_error(), "no/such/dir/out.csv"));
    assert_non_null(strstr(latmc_last_error(), strerror(ENOENT)));
    assert_int_equal(access(missing, F_OK), -1);
    assert_int_equal(access(missing_tmp, F_OK), -1);

    /* the rename fails (target is a directory): EIO and the tmp file is removed */
    snprintf(sub, sizeof sub, "%s/isdir.csv", dir);
    snprintf(tmp, sizeof tmp, "%s/isdir.csv.tmp", dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(latmc_acc_write_csv(acc, sub, NULL), LATMC_EIO);
    assert_non_null(strstr(latmc_last_error(), sub));
    assert_int_equal(access(tmp, F_OK), -1);
    assert_int_equal(rmdir(sub), 0);

    /* a symlink is followed: the target gets the file, the link stays a link (also to a
     * file that does not exist yet) */
    char target[300], link[300];
    snprintf(target, sizeof target, "%s/target.csv", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    assert_int_equal(symlink("target.csv", link), 0);
    assert_int_equal(latmc_acc_write_csv(acc, link, names), LATMC_OK);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(lstat(target, &sb), 0);
    assert_true(S_ISREG(sb.st_mode) && sb.st_size > 0);
    assert_int_equal(remove(link), 0);
    assert_int_equal(remove(target), 0);

    /* a FIFO is refused and stays a FIFO (opening it would block; replacing it would
     * destroy it) */
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s/fifo.csv", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(latmc_acc_write_csv(acc, fifo, names), LATMC_EIO);
    assert_non_null(strstr(latmc_last_error(), "fifo.csv"));
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    assert_int_equal(remove(fifo), 0);

    latmc_acc_destroy(&acc);
    assert_int_equal(rmdir(dir), 0); /* empty: nothing left behind */
}

/* ---- 6. warnings and the tau_int floor ---- */

static unsigned warnings_of(const latmc_acc *acc, int col)
{
    unsigned fl = 0xdeadu;
    assert_int_equal(latmc_acc_warnings(acc, col, &fl), LATMC_OK);
    return fl;
}

static void test_warnings(void **state)
{
    (void)state;
    /* columns: period-2 (+-a), constant, i.i.d. normal, AR(0.999) (short for its tau) */
    enum { N = 4096 };
    latmc_acc *acc = new_acc(4);
    rng_t rng = rng_seed(77);
    double ar = 0.0;
    for (int i = 0; i < N; i++) {
        ar = 0.999 * ar + sqrt(1.0 - 0.999 * 0.999) * normal(&rng);
        double row[4] = { (i & 1) ? -0.0029 : 0.0029, 0.75, normal(&rng), ar };
        assert_int_equal(latmc_acc_push(acc, row, 4), LATMC_OK);
    }
    double tau, err;
    /* period 2: the raw sum is -1/2; returned as the floor 1/2 and flagged. Its bins of
     * two rows all have mean 0, so its binning error is exactly 0: flagged too. */
    assert_int_equal(latmc_acc_tau_int(acc, 0, &tau), LATMC_OK);
    assert_true(tau == 0.5);
    assert_int_equal(latmc_acc_error(acc, 0, &err), LATMC_OK);
    assert_true(err == 0.0);
    assert_int_equal(warnings_of(acc, 0), LATMC_ACC_WARN_ANTICORRELATED | LATMC_ACC_WARN_ZERO_ERROR);
    /* constant: zero error, tau undefined */
    assert_int_equal(warnings_of(acc, 1), LATMC_ACC_WARN_ZERO_ERROR | LATMC_ACC_WARN_TAU_UNDEFINED);
    /* i.i.d.: nothing, tau at or above the floor */
    assert_int_equal(latmc_acc_tau_int(acc, 2, &tau), LATMC_OK);
    assert_true(tau >= 0.5 && tau < 0.6);
    assert_int_equal(warnings_of(acc, 2), 0);
    /* tau_int ~ 1000 in 4096 rows: the window cannot close before N / 2 */
    assert_int_equal(warnings_of(acc, 3) & LATMC_ACC_WARN_NO_WINDOW, LATMC_ACC_WARN_NO_WINDOW);
    latmc_acc_destroy(&acc);

    /* Uncorrelated data scatter around 1/2: the floor clamps but must not flag. Many
     * seeds, short series (where the scatter is largest). */
    int clamped = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        latmc_acc *a = new_acc(1);
        rng_t r = rng_seed(seed);
        for (int i = 0; i < 256; i++)
            push1(a, normal(&r));
        assert_int_equal(latmc_acc_tau_int(a, 0, &tau), LATMC_OK);
        assert_true(tau >= 0.5);
        clamped += tau == 0.5;
        assert_int_equal(warnings_of(a, 0) & LATMC_ACC_WARN_ANTICORRELATED, 0);
        latmc_acc_destroy(&a);
    }
    assert_true(clamped > 20); /* the floor did act on many of them */

    /* strongly anticorrelated AR(-0.9) (true tau_int 0.053): floor and flag */
    acc = new_acc(1);
    double x = 0.0;
    for (int i = 0; i < 4096; i++) {
        x = -0.9 * x + sqrt(1.0 - 0.81) * normal(&rng);
        push1(acc, x);
    }
    assert_int_equal(latmc_acc_tau_int(acc, 0, &tau), LATMC_OK);
    assert_true(tau == 0.5);
    assert_int_equal(warnings_of(acc, 0), LATMC_ACC_WARN_ANTICORRELATED);

    /* arguments and state */
    unsigned fl = 7;
    assert_int_equal(latmc_acc_warnings(NULL, 0, &fl), LATMC_EINVAL);
    assert_int_equal(latmc_acc_warnings(acc, 0, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_warnings(acc, 1, &fl), LATMC_EINVAL);
    assert_int_equal(latmc_acc_warnings(acc, -1, &fl), LATMC_EINVAL);
    latmc_acc_clear(acc);
    push1(acc, 1.0);
    assert_int_equal(latmc_acc_warnings(acc, 0, &fl), LATMC_ESTATE);
    assert_int_equal(fl, 7); /* unchanged on failure */
    latmc_acc_destroy(&acc);
}

/* ---- 7. serialize / deserialize ---- */

static void assert_same_acc(const latmc_acc *a, const latmc_acc *b)
{
    int nc = latmc_acc_ncols(a);
    assert_int_equal(latmc_acc_ncols(b), nc);
    assert_int_equal(latmc_acc_count(b), latmc_acc_count(a));
    for (uint64_t i = 0; i < latmc_acc_count(a); i++) {
        double ra[8], rb[8];
        assert_int_equal(latmc_acc_row(a, i, ra, nc), LATMC_OK);
        assert_int_equal(latmc_acc_row(b, i, rb, nc), LATMC_OK);
        assert_memory_equal(ra, rb, (size_t)nc * sizeof(double));
    }
}

/* Re-seal the FNV-1a hash of an edited blob (so that the other checks are reached). */
static void reseal(unsigned char *p, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 32; i < size; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    for (int i = 0; i < 8; i++)
        p[24 + i] = (unsigned char)(h >> (8 * i));
}

static void expect_corrupt(const unsigned char *p, size_t size)
{
    latmc_acc *out = (latmc_acc *)&out; /* not NULL: must be reset */
    assert_int_equal(latmc_acc_deserialize(p, size, &out), LATMC_ECORRUPT);
    assert_null(out);
}

static void test_serialize(void **state)
{
    (void)state;
    latmc_acc *acc = new_acc(3);
    rng_t rng = rng_seed(5);
    for (int i = 0; i < 1000; i++) {
        double row[3] = { normal(&rng), -0.0, 1e-310 * (i + 1) };
        assert_int_equal(latmc_acc_push(acc, row, 3), LATMC_OK);
    }
    size_t size = 0;
    assert_int_equal(latmc_acc_serialize(acc, NULL, 0, &size), LATMC_OK);
    assert_int_equal(size, 32 + 8 * 3 * 1000);
    unsigned char *buf = malloc(size + 1);
    assert_non_null(buf);
    size_t got = 0;
    assert_int_equal(latmc_acc_serialize(acc, buf, size - 1, &got), LATMC_EINVAL);
    assert_int_equal(got, size);
    assert_int_equal(latmc_acc_serialize(acc, buf, size, &got), LATMC_OK);
    assert_memory_equal(buf, "LATMCACC", 8);

    latmc_acc *back = NULL;
    assert_int_equal(latmc_acc_deserialize(buf, size, &back), LATMC_OK);
    assert_same_acc(acc, back);
    double a, b;
    assert_int_equal(latmc_acc_tau_int(acc, 0, &a), LATMC_OK);
    assert_int_equal(latmc_acc_tau_int(back, 0, &b), LATMC_OK);
    assert_true(a == b);
    /* the restored acc grows like any other */
    double row[3] = { 1.0, 2.0, 3.0 };
    assert_int_equal(latmc_acc_push(back, row, 3), LATMC_OK);
    assert_int_equal(latmc_acc_count(back), 1001);
    latmc_acc_destroy(&back);

    /* damage: every single-byte change of the header, truncation, extra bytes */
    for (size_t i = 0; i < 32; i++) {
        buf[i] ^= 0x40;
        expect_corrupt(buf, size);
        buf[i] ^= 0x40;
    }
    buf[1000] ^= 1; /* payload without resealing: the hash */
    expect_corrupt(buf, size);
    buf[1000] ^= 1;
    expect_corrupt(buf, size - 1);
    expect_corrupt(buf, size - 8);
    buf[size] = 0;
    expect_corrupt(buf, size + 1);
    expect_corrupt(buf, 31);
    expect_corrupt(buf, 0);
    /* a NaN and an infinity with a valid hash: refused */
    unsigned char keep[8];
    memcpy(keep, buf + 32 + 8 * 10, 8);
    const double bad[2] = { NAN, -INFINITY };
    for (int k = 0; k < 2; k++) {
        memcpy(buf + 32 + 8 * 10, &bad[k], 8); /* little-endian hosts (x86, arm64) */
        reseal(buf, size);
        expect_corrupt(buf, size);
    }
    memcpy(buf + 32 + 8 * 10, keep, 8);
    reseal(buf, size);
    assert_int_equal(latmc_acc_deserialize(buf, size, &back), LATMC_OK);
    latmc_acc_destroy(&back);
    /* a count that would need more bytes than given (no allocation from the header) */
    unsigned char hdr[32];
    memcpy(hdr, buf, 32);
    for (int i = 0; i < 8; i++)
        hdr[16 + i] = 0xff;
    expect_corrupt(hdr, 32);
    /* 0 and 65 columns */
    memcpy(hdr, buf, 32);
    hdr[12] = 0;
    expect_corrupt(hdr, 32);
    hdr[12] = 65;
    expect_corrupt(hdr, 32);
    free(buf);

    /* an empty acc: header only, and back */
    latmc_acc_clear(acc);
    assert_int_equal(latmc_acc_serialize(acc, NULL, 0, &size), LATMC_OK);
    assert_int_equal(size, 32);
    unsigned char small[32];
    assert_int_equal(latmc_acc_serialize(acc, small, sizeof small, &size), LATMC_OK);
    assert_int_equal(latmc_acc_deserialize(small, size, &back), LATMC_OK);
    assert_int_equal(latmc_acc_ncols(back), 3);
    assert_int_equal(latmc_acc_count(back), 0);
    latmc_acc_destroy(&back);

    /* arguments */
    assert_int_equal(latmc_acc_serialize(NULL, small, 32, &size), LATMC_EINVAL);
    assert_int_equal(latmc_acc_serialize(acc, small, 32, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_deserialize(NULL, 32, &back), LATMC_EINVAL);
    assert_int_equal(latmc_acc_deserialize(small, 32, NULL), LATMC_EINVAL);
    latmc_acc_destroy(&acc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_small_exact),
        cmocka_unit_test(test_ar1),
        cmocka_unit_test(test_jackknife),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_serialize),
    };
    return cmocka_run_group_tests_name("acc", tests, NULL, NULL);
}
