/*
 * Accumulators: every row of a Monte Carlo time series is kept, and the statistics
 * (mean, binning error, tau_int, jackknife) are computed from the stored rows on demand.
 *
 * Storage is column-major (data[c * cap + i]) because every statistic walks one
 * column at a time; contiguous columns keep the O(n W) autocorrelation sum and the
 * binning passes streaming through memory without a scratch copy.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/acc.h>
#include "error.h"
#include "safe_file.h"

#define ACC_MAX_COLS 64
#define ACC_INITIAL_CAP 64

struct latmc_acc {
    int ncols;
    size_t count; /* rows stored */
    size_t cap;   /* rows that fit before the next growth */
    double *data; /* column-major, column c at data + c * cap */
};

static const double *column(const latmc_acc *acc, int col)
{
    return acc->data + (size_t)col * acc->cap;
}

static int check_col(const latmc_acc *acc, int col, const char *fn)
{
    if (col < 0 || col >= acc->ncols)
        return latmc_fail(LATMC_EINVAL, "%s: column %d out of range (acc has %d columns)",
                          fn, col, acc->ncols);
    return LATMC_OK;
}

/* ---------------------------------------------------------------------------------
 * Column numerics
 * ------------------------------------------------------------------------------- */

/*
 * A power of two k such that the scaled values x*k have magnitudes near 1. Sums of
 * squares of values beyond ~1e154 would overflow and those below ~1e-154 underflow to
 * zero; scaling by a power of two is exact, so for ordinary data (k == 1) nothing
 * changes and for extreme data the statistics stay finite and exact-as-possible.
 */
static double scale_for(const double *x, size_t n)
{
    double amax = 0.0;
    for (size_t i = 0; i < n; i++) {
        double a = fabs(x[i]);
        if (a > amax)
            amax = a;
    }
    if (amax == 0.0 || (amax > 0x1p-500 && amax < 0x1p500))
        return 1.0;
    int e = ilogb(amax);
    if (e < -1021) /* keep k itself finite; the scaled values are then >= 2^-53 */
        e = -1021;
    return ldexp(1.0, -e);
}

static bool all_equal(const double *x, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (x[i] != x[0])
            return false;
    return true;
}

/*
 * Mean of the scaled values x*k. The plain sum/n is corrected by the mean residual,
 * which removes most of the rounding error of the first pass at the cost of one more
 * streaming pass.
 */
static double scaled_mean(const double *x, size_t n, double k)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++)
        s += x[i] * k;
    double m = s / (double)n;
    double r = 0.0;
    for (size_t i = 0; i < n; i++)
        r += x[i] * k - m;
    return m + r / (double)n;
}

/*
 * Standard error of the mean from nbins bins of 2^level rows (the first nbins << level
 * rows; the incomplete tail bin is dropped). "var(bin means)" in the contract is the
 * variance with divisor nbins, so sigma^2 = sum (b - bbar)^2 / (nbins (nbins - 1)),
 * the usual unbiased estimate of the variance of the mean for independent bins.
 */
static double binned_sigma(const double *x, size_t nbins, int level)
{
    size_t bsize = (size_t)1 << level;
    size_t used = nbins * bsize;
    if (all_equal(x, used))
        return 0.0;
    double k = scale_for(x, used);
    double bbar = scaled_mean(x, used, k); /* the mean of the bin means */
    double ss = 0.0;
    for (size_t b = 0; b < nbins; b++) {
        const double *p = x + b * bsize;
        double s = 0.0;
        for (size_t i = 0; i < bsize; i++)
            s += p[i] * k;
        double d = s / (double)bsize - bbar;
        ss += d * d;
    }
    return sqrt(ss / ((double)nbins * (double)(nbins - 1))) / k;
}

/*
 * sum_{i < n - t} d_i d_{i+t} with d = x*k - m. Four partial sums break the addition
 * dependency chain, which is what limits this loop (it runs W times over the column).
 */
static double lagged_sum(const double *x, size_t n, size_t t, double k, double m)
{
    size_t len = n - t;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    size_t i = 0;
    for (; i + 4 <= len; i += 4) {
        s0 += (x[i] * k - m) * (x[i + t] * k - m);
        s1 += (x[i + 1] * k - m) * (x[i + 1 + t] * k - m);
        s2 += (x[i + 2] * k - m) * (x[i + 2 + t] * k - m);
        s3 += (x[i + 3] * k - m) * (x[i + 3 + t] * k - m);
    }
    for (; i < len; i++)
        s0 += (x[i] * k - m) * (x[i + t] * k - m);
    return (s0 + s1) + (s2 + s3);
}

/*
 * tau_int with the Madras–Sokal automatic window. C(t) is divided by n - t (the
 * number of pairs at lag t), which is unbiased apart from the mean subtraction; for
 * W << n this and the 1/n convention agree to O(W/n).
 *
 * The result is floored at 1/2 (see acc.h): the raw sum of an anticorrelated series
 * can fall below 1/2, down to -1/2 for a period-2 chain, where sqrt(2 tau var / n)
 * would claim a tiny (or imaginary) error. 1/2 makes that formula the naive error,
 * an upper bound for anticorrelated data. *flags gets the LATMC_ACC_WARN_* bits of the
 * estimator: TAU_UNDEFINED, NO_WINDOW, ANTICORRELATED.
 */
static double tau_int(const double *x, size_t n, unsigned *flags)
{
    *flags = 0;
    if (all_equal(x, n)) {
        *flags |= LATMC_ACC_WARN_TAU_UNDEFINED;
        return 0.5;
    }
    double k = scale_for(x, n);
    double m = scaled_mean(x, n, k);
    double c0 = lagged_sum(x, n, 0, k, m) / (double)n;
    if (!(c0 > 0.0)) { /* all deviations below the double resolution of the mean */
        *flags |= LATMC_ACC_WARN_TAU_UNDEFINED;
        return 0.5;
    }
    double tau = 0.5;
    size_t wmax = n / 2, w = 0;
    bool closed = false;
    for (size_t t = 1; t <= wmax; t++) {
        tau += lagged_sum(x, n, t, k, m) / (double)(n - t) / c0;
        w = t;
        if ((double)t >= 6.0 * tau) {
            closed = true;
            break;
        }
    }
    if (!closed)
        *flags |= LATMC_ACC_WARN_NO_WINDOW;
    if (tau < 0.5) {
        /* Madras–Sokal: var(tau) ~ 2 (2W + 1) / n tau^2, here at tau = 1/2, the value
         * of uncorrelated data; only a significant shortfall is flagged, noise of
         * uncorrelated data around 1/2 is not. */
        double sigma = 0.5 * sqrt(2.0 * (2.0 * (double)w + 1.0) / (double)n);
        if (tau < 0.5 - 4.0 * sigma)
            *flags |= LATMC_ACC_WARN_ANTICORRELATED;
        tau = 0.5;
    }
    return tau;
}

/* ---------------------------------------------------------------------------------
 * Life cycle and rows
 * ------------------------------------------------------------------------------- */

LATMC_API int latmc_acc_create(latmc_acc **out, int ncols)
{
    if (!out)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_create: out is NULL");
    *out = NULL;
    if (ncols < 1 || ncols > ACC_MAX_COLS)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_create: ncols = %d, must be in 1..%d", ncols,
                          ACC_MAX_COLS);
    latmc_acc *acc = calloc(1, sizeof *acc);
    if (!acc)
        return latmc_fail(LATMC_ENOMEM, "latmc_acc_create: out of memory");
    acc->ncols = ncols;
    *out = acc;
    return LATMC_OK;
}

LATMC_API void latmc_acc_destroy(latmc_acc **acc)
{
    if (!acc || !*acc)
        return;
    free((*acc)->data);
    free(*acc);
    *acc = NULL;
}

LATMC_API int latmc_acc_ncols(const latmc_acc *acc)
{
    if (!acc)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_ncols: acc is NULL");
    return acc->ncols;
}

LATMC_API uint64_t latmc_acc_count(const latmc_acc *acc)
{
    return acc ? (uint64_t)acc->count : 0;
}

/*
 * Doubles the capacity. A column-major block cannot be grown by realloc, so the
 * columns are copied into a new block; the old block stays intact until the copy has
 * succeeded, which is what makes a failed push leave the acc unchanged.
 */
static int grow(latmc_acc *acc)
{
    size_t ncols = (size_t)acc->ncols;
    if (acc->cap > SIZE_MAX / 2)
        return latmc_fail(LATMC_ENOMEM, "latmc_acc_push: row count overflows size_t");
    size_t new_cap = acc->cap ? 2 * acc->cap : ACC_INITIAL_CAP;
    if (new_cap > SIZE_MAX / sizeof(double) / ncols)
        return latmc_fail(LATMC_ENOMEM, "latmc_acc_push: %zu rows of %zu columns overflow size_t",
                          new_cap, ncols);
    double *p = malloc(new_cap * ncols * sizeof *p);
    if (!p)
        return latmc_fail(LATMC_ENOMEM, "latmc_acc_push: cannot grow storage to %zu rows of %zu "
                          "columns", new_cap, ncols);
    if (acc->count > 0)
        for (size_t c = 0; c < ncols; c++)
            memcpy(p + c * new_cap, acc->data + c * acc->cap, acc->count * sizeof *p);
    free(acc->data);
    acc->data = p;
    acc->cap = new_cap;
    return LATMC_OK;
}

LATMC_API int latmc_acc_push(latmc_acc *acc, const double *row, int n)
{
    if (!acc || !row)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_push: %s is NULL", !acc ? "acc" : "row");
    if (n != acc->ncols)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_push: row has %d values, acc has %d columns", n,
                          acc->ncols);
    for (int c = 0; c < n; c++)
        if (!isfinite(row[c]))
            return latmc_fail(LATMC_EINVAL, "latmc_acc_push: value %g in column %d is not finite",
                              row[c], c);
    if (acc->count == acc->cap) {
        int rc = grow(acc);
        if (rc != LATMC_OK)
            return rc;
    }
    for (int c = 0; c < n; c++)
        acc->data[(size_t)c * acc->cap + acc->count] = row[c];
    acc->count++;
    return LATMC_OK;
}

/* The storage is kept: a cleared acc is typically refilled with a similar series. */
LATMC_API void latmc_acc_clear(latmc_acc *acc)
{
    if (acc)
        acc->count = 0;
}

LATMC_API int latmc_acc_row(const latmc_acc *acc, uint64_t index, double *row, int n)
{
    if (!acc || !row)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_row: %s is NULL", !acc ? "acc" : "row");
    if (n != acc->ncols)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_row: buffer has %d values, acc has %d columns",
                          n, acc->ncols);
    if (index >= acc->count)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_row: index %" PRIu64 " out of range (%zu rows)",
                          index, acc->count);
    for (int c = 0; c < n; c++)
        row[c] = column(acc, c)[index];
    return LATMC_OK;
}

/* ---------------------------------------------------------------------------------
 * Mean, errors, autocorrelation
 * ------------------------------------------------------------------------------- */

LATMC_API int latmc_acc_mean(const latmc_acc *acc, int col, double *mean)
{
    if (!acc || !mean)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_mean: %s is NULL", !acc ? "acc" : "mean");
    int rc = check_col(acc, col, "latmc_acc_mean");
    if (rc != LATMC_OK)
        return rc;
    if (acc->count == 0)
        return latmc_fail(LATMC_ESTATE, "latmc_acc_mean: no rows");
    const double *x = column(acc, col);
    double k = scale_for(x, acc->count);
    *mean = scaled_mean(x, acc->count, k) / k;
    return LATMC_OK;
}

LATMC_API int latmc_acc_binning_error(const latmc_acc *acc, int col, int level, double *err)
{
    if (!acc || !err)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_binning_error: %s is NULL",
                          !acc ? "acc" : "err");
    int rc = check_col(acc, col, "latmc_acc_binning_error");
    if (rc != LATMC_OK)
        return rc;
    if (level < 0)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_binning_error: level %d is negative", level);
    /* Levels past 62 cannot have 2 bins of any size_t count (and would overflow the
     * shift), so they are the "fewer than 2 bins" state like any other too-high level. */
    size_t nbins = level > 62 ? 0 : (size_t)((uint64_t)acc->count >> level);
    if (nbins < 2)
        return latmc_fail(LATMC_ESTATE,
                          "latmc_acc_binning_error: %zu rows give %zu bins at level %d, need 2",
                          acc->count, nbins, level);
    *err = binned_sigma(column(acc, col), nbins, level);
    return LATMC_OK;
}

/* The level latmc_acc_error() uses: the highest keeping >= 32 bins (bins as long as
 * possible, so longer than tau_int, while the error estimate itself is still good to
 * ~13%). count >= 2. */
static int error_level(size_t count)
{
    int level = 0;
    while ((count >> (level + 1)) >= 32)
        level++;
    return level;
}

LATMC_API int latmc_acc_error(const latmc_acc *acc, int col, double *err)
{
    if (!acc || !err)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_error: %s is NULL", !acc ? "acc" : "err");
    int rc = check_col(acc, col, "latmc_acc_error");
    if (rc != LATMC_OK)
        return rc;
    if (acc->count < 2)
        return latmc_fail(LATMC_ESTATE, "latmc_acc_error: %zu rows, need at least 2", acc->count);
    int level = error_level(acc->count);
    *err = binned_sigma(column(acc, col), acc->count >> level, level);
    return LATMC_OK;
}

LATMC_API int latmc_acc_tau_int(const latmc_acc *acc, int col, double *tau)
{
    if (!acc || !tau)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_tau_int: %s is NULL", !acc ? "acc" : "tau");
    int rc = check_col(acc, col, "latmc_acc_tau_int");
    if (rc != LATMC_OK)
        return rc;
    if (acc->count < 2)
        return latmc_fail(LATMC_ESTATE, "latmc_acc_tau_int: %zu rows, need at least 2", acc->count);
    unsigned flags = 0;
    *tau = tau_int(column(acc, col), acc->count, &flags);
    return LATMC_OK;
}

LATMC_API int latmc_acc_warnings(const latmc_acc *acc, int col, unsigned *flags)
{
    if (!acc || !flags)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_warnings: %s is NULL", !acc ? "acc" : "flags");
    int rc = check_col(acc, col, "latmc_acc_warnings");
    if (rc != LATMC_OK)
        return rc;
    if (acc->count < 2)
        return latmc_fail(LATMC_ESTATE, "latmc_acc_warnings: %zu rows, need at least 2",
                          acc->count);
    const double *x = column(acc, col);
    unsigned f = 0;
    (void)tau_int(x, acc->count, &f);
    int level = error_level(acc->count);
    if (binned_sigma(x, acc->count >> level, level) == 0.0)
        f |= LATMC_ACC_WARN_ZERO_ERROR;
    *flags = f;
    return LATMC_OK;
}

/* ---------------------------------------------------------------------------------
 * Jackknife
 * ------------------------------------------------------------------------------- */

/*
 * Sums of x and x^2 over rows [from, from + len) of every column. Plain sums rather
 * than shifted ones: fn receives <x> and <x^2>, so any cancellation in a variance-like
 * fn happens there anyway.
 */
static void block_sums(const latmc_acc *acc, size_t from, size_t len, double *s, double *s2)
{
    for (int c = 0; c < acc->ncols; c++) {
        const double *x = column(acc, c) + from;
        double a = 0.0, a2 = 0.0;
        for (size_t i = 0; i < len; i++) {
            a += x[i];
            a2 += x[i] * x[i];
        }
        s[c] = a;
        s2[c] = a2;
    }
}

/* The jackknife of latmc_acc_jackknife and of the derived quantities built on it; `name`
 * is the public function called, which every message names. */
static int jackknife(const char *name, const latmc_acc *acc, int nblocks, latmc_derived_fn fn,
                     void *user, double *value, double *err)
{
    if (!acc || !fn || !value || !err)
        return latmc_fail(LATMC_EINVAL, "%s: %s is NULL", name,
                          !acc ? "acc" : !fn ? "fn" : !value ? "value" : "err");
    if (nblocks < 2)
        return latmc_fail(LATMC_EINVAL, "%s: nblocks = %d, need at least 2", name, nblocks);
    if (acc->count < (size_t)nblocks)
        return latmc_fail(LATMC_ESTATE, "%s: %zu rows, fewer than nblocks = %d", name,
                          acc->count, nblocks);

    int nc = acc->ncols;
    size_t nb = (size_t)nblocks;
    size_t bsize = acc->count / nb;
    size_t used = bsize * nb;
    double tot[ACC_MAX_COLS], tot2[ACC_MAX_COLS];
    double bs[ACC_MAX_COLS], bs2[ACC_MAX_COLS];
    double mean[ACC_MAX_COLS], sq[ACC_MAX_COLS];

    /* Totals as the sum of the block sums, so that "all but block j" is consistent
     * with the blocks to rounding. */
    for (int c = 0; c < nc; c++)
        tot[c] = tot2[c] = 0.0;
    for (size_t j = 0; j < nb; j++) {
        block_sums(acc, j * bsize, bsize, bs, bs2);
        for (int c = 0; c < nc; c++) {
            tot[c] += bs[c];
            tot2[c] += bs2[c];
        }
    }
    for (int c = 0; c < nc; c++) {
        mean[c] = tot[c] / (double)used;
        sq[c] = tot2[c] / (double)used;
    }
    double f_all = fn(mean, sq, user);
    if (!isfinite(f_all))
        return latmc_fail(LATMC_EINVAL, "%s: the derived quantity is not finite (%g) on the "
                          "means of all rows", name, f_all);

    /* Welford's update gives mean and spread of the f_j in one pass without storing
     * them (nblocks may be as large as the row count). */
    double fbar = 0.0, ss = 0.0;
    double rest = (double)(used - bsize);
    for (size_t j = 0; j < nb; j++) {
        block_sums(acc, j * bsize, bsize, bs, bs2);
        for (int c = 0; c < nc; c++) {
            mean[c] = (tot[c] - bs[c]) / rest;
            sq[c] = (tot2[c] - bs2[c]) / rest;
        }
        double f = fn(mean, sq, user);
        if (!isfinite(f))
            return latmc_fail(LATMC_EINVAL, "%s: the derived quantity is not finite (%g) "
                              "without block %zu", name, f, j);
        double d = f - fbar;
        fbar += d / (double)(j + 1);
        ss += d * (f - fbar);
    }
    double n = (double)nb;
    *value = n * f_all - (n - 1.0) * fbar;
    *err = sqrt((n - 1.0) / n * ss);
    return LATMC_OK;
}

LATMC_API int latmc_acc_jackknife(const latmc_acc *acc, int nblocks, latmc_derived_fn fn,
                                  void *user, double *value, double *err)
{
    return jackknife("latmc_acc_jackknife", acc, nblocks, fn, user, value, err);
}

struct binder_cols { int m2, m4; };
struct chi_cols { int absm, m2; double factor; };
struct heat_cols { int e; double factor; };
struct xi_cols { int k0, kmin; double scale; };

static double binder_fn(const double *means, const double *sq_means, void *user)
{
    const struct binder_cols *p = user;
    (void)sq_means;
    double m2 = means[p->m2];
    return 1.0 - means[p->m4] / (3.0 * m2 * m2);
}

static double chi_fn(const double *means, const double *sq_means, void *user)
{
    const struct chi_cols *p = user;
    (void)sq_means;
    double a = means[p->absm];
    return p->factor * (means[p->m2] - a * a);
}

/* sqrt(chi / F - 1) / (2 sin(k_min / 2)): NaN (refused by the jackknife) where chi < F. */
static double xi_fn(const double *means, const double *sq_means, void *user)
{
    const struct xi_cols *p = user;
    (void)sq_means;
    return sqrt(means[p->k0] / means[p->kmin] - 1.0) * p->scale;
}

static double heat_fn(const double *means, const double *sq_means, void *user)
{
    const struct heat_cols *p = user;
    double e = means[p->e];
    return p->factor * (sq_means[p->e] - e * e);
}

LATMC_API int latmc_acc_binder(const latmc_acc *acc, int col_m2, int col_m4, int nblocks,
                               double *value, double *err)
{
    if (!acc)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_binder: acc is NULL");
    int rc = check_col(acc, col_m2, "latmc_acc_binder");
    if (rc == LATMC_OK)
        rc = check_col(acc, col_m4, "latmc_acc_binder");
    if (rc != LATMC_OK)
        return rc;
    struct binder_cols p = {col_m2, col_m4};
    return jackknife("latmc_acc_binder", acc, nblocks, binder_fn, &p, value, err);
}

LATMC_API int latmc_acc_susceptibility(const latmc_acc *acc, int col_absm, int col_m2,
                                       double factor, int nblocks, double *value, double *err)
{
    if (!acc)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_susceptibility: acc is NULL");
    int rc = check_col(acc, col_absm, "latmc_acc_susceptibility");
    if (rc == LATMC_OK)
        rc = check_col(acc, col_m2, "latmc_acc_susceptibility");
    if (rc != LATMC_OK)
        return rc;
    if (!isfinite(factor))
        return latmc_fail(LATMC_EINVAL, "latmc_acc_susceptibility: factor %g is not finite",
                          factor);
    struct chi_cols p = {col_absm, col_m2, factor};
    return jackknife("latmc_acc_susceptibility", acc, nblocks, chi_fn, &p, value, err);
}

LATMC_API int latmc_acc_corr_length(const latmc_acc *acc, int col_k0, int col_kmin, int64_t L,
                                    int nblocks, double *value, double *err)
{
    if (!acc)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_corr_length: acc is NULL");
    int rc = check_col(acc, col_k0, "latmc_acc_corr_length");
    if (rc == LATMC_OK)
        rc = check_col(acc, col_kmin, "latmc_acc_corr_length");
    if (rc != LATMC_OK)
        return rc;
    if (L < 2)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_corr_length: L = %lld, need at least 2",
                          (long long)L);
    const double pi = 3.14159265358979323846;
    struct xi_cols p = {col_k0, col_kmin, 0.5 / sin(pi / (double)L)};
    return jackknife("latmc_acc_corr_length", acc, nblocks, xi_fn, &p, value, err);
}

LATMC_API int latmc_acc_specific_heat(const latmc_acc *acc, int col_e, double factor,
                                      int nblocks, double *value, double *err)
{
    if (!acc)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_specific_heat: acc is NULL");
    int rc = check_col(acc, col_e, "latmc_acc_specific_heat");
    if (rc != LATMC_OK)
        return rc;
    if (!isfinite(factor))
        return latmc_fail(LATMC_EINVAL, "latmc_acc_specific_heat: factor %g is not finite", factor);
    struct heat_cols p = {col_e, factor};
    return jackknife("latmc_acc_specific_heat", acc, nblocks, heat_fn, &p, value, err);
}

/* ---------------------------------------------------------------------------------
 * Serialization: the rows as bytes (format in acc.h), for checkpoints
 * ------------------------------------------------------------------------------- */

#define ACC_MAGIC "LATMCACC"
#define ACC_FORMAT 1u
#define ACC_HEADER 32u /* magic 8, format 4, ncols 4, count 8, checksum 8 */

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* FNV-1a, 64 bit: catches damage to the payload when the blob travels without a
 * checksummed container around it. */
static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* Payload bytes of count rows of ncols doubles; false on size_t overflow. */
static bool payload_size(uint64_t count, uint64_t ncols, size_t *out)
{
    if (count > (SIZE_MAX - ACC_HEADER) / 8 / ncols)
        return false;
    *out = (size_t)(count * ncols * 8);
    return true;
}

LATMC_API int latmc_acc_serialize(const latmc_acc *acc, void *buf, size_t capacity,
                                  size_t *size)
{
    if (!acc || !size)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_serialize: %s is NULL", !acc ? "acc" : "size");
    size_t payload = 0;
    if (!payload_size(acc->count, (uint64_t)acc->ncols, &payload))
        return latmc_fail(LATMC_ENOMEM, "latmc_acc_serialize: %zu rows overflow size_t",
                          acc->count);
    size_t need = ACC_HEADER + payload;
    *size = need;
    if (!buf)
        return LATMC_OK;
    if (capacity < need)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_serialize: buffer of %zu bytes, need %zu",
                          capacity, need);
    unsigned char *p = buf;
    unsigned char *q = p + ACC_HEADER;
    for (int c = 0; c < acc->ncols; c++) {
        const double *x = column(acc, c);
        for (size_t i = 0; i < acc->count; i++, q += 8) {
            uint64_t bits;
            memcpy(&bits, &x[i], 8);
            put_u64(q, bits);
        }
    }
    memcpy(p, ACC_MAGIC, 8);
    put_u32(p + 8, ACC_FORMAT);
    put_u32(p + 12, (uint32_t)acc->ncols);
    put_u64(p + 16, (uint64_t)acc->count);
    put_u64(p + 24, fnv1a(p + ACC_HEADER, payload));
    return LATMC_OK;
}

LATMC_API int latmc_acc_deserialize(const void *buf, size_t size, latmc_acc **out)
{
    if (!out)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_deserialize: out is NULL");
    *out = NULL;
    if (!buf)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_deserialize: buf is NULL");
    const unsigned char *p = buf;
    if (size < ACC_HEADER || memcmp(p, ACC_MAGIC, 8) != 0)
        return latmc_fail(LATMC_ECORRUPT, "latmc_acc_deserialize: not accumulator data (%zu bytes, "
                          "no " ACC_MAGIC " header)", size);
    uint32_t format = get_u32(p + 8), ncols = get_u32(p + 12);
    uint64_t count = get_u64(p + 16);
    if (format != ACC_FORMAT)
        return latmc_fail(LATMC_ECORRUPT, "latmc_acc_deserialize: format %u, this library reads %u",
                          (unsigned)format, ACC_FORMAT);
    if (ncols < 1 || ncols > ACC_MAX_COLS)
        return latmc_fail(LATMC_ECORRUPT, "latmc_acc_deserialize: %u columns, must be 1..%d",
                          (unsigned)ncols, ACC_MAX_COLS);
    size_t payload = 0;
    if (!payload_size(count, ncols, &payload) || size - ACC_HEADER != payload)
        return latmc_fail(LATMC_ECORRUPT, "latmc_acc_deserialize: %zu bytes, but %" PRIu64
                          " rows of %u columns need %" PRIu64 " + %u", size, count,
                          (unsigned)ncols, count * ncols * 8, ACC_HEADER);
    if (fnv1a(p + ACC_HEADER, payload) != get_u64(p + 24))
        return latmc_fail(LATMC_ECORRUPT, "latmc_acc_deserialize: checksum mismatch (damaged "
                          "data)");

    latmc_acc *acc = NULL;
    int rc = latmc_acc_create(&acc, (int)ncols);
    if (rc != LATMC_OK)
        return rc;
    if (count > 0) {
        acc->data = malloc(payload);
        if (!acc->data) {
            latmc_acc_destroy(&acc);
            return latmc_fail(LATMC_ENOMEM, "latmc_acc_deserialize: cannot allocate %zu bytes",
                              payload);
        }
        acc->cap = (size_t)count;
    }
    const unsigned char *q = p + ACC_HEADER;
    for (size_t c = 0; c < ncols; c++) {
        for (size_t i = 0; i < count; i++, q += 8) {
            uint64_t bits = get_u64(q);
            double v;
            memcpy(&v, &bits, 8);
            if (!isfinite(v)) {
                latmc_acc_destroy(&acc);
                return latmc_fail(LATMC_ECORRUPT, "latmc_acc_deserialize: row %zu, column %zu is "
                                  "not finite", i, c);
            }
            acc->data[c * acc->cap + i] = v;
        }
    }
    acc->count = (size_t)count;
    *out = acc;
    return LATMC_OK;
}

/* ---------------------------------------------------------------------------------
 * CSV output
 * ------------------------------------------------------------------------------- */

/* Names are written unquoted, so anything that would need CSV quoting is refused. */
static int check_names(const char *const *names, int ncols)
{
    if (!names)
        return LATMC_OK;
    for (int c = 0; c < ncols; c++) {
        if (!names[c])
            return latmc_fail(LATMC_EINVAL, "latmc_acc_write_csv: names[%d] is NULL", c);
        if (strpbrk(names[c], ",\"\r\n"))
            return latmc_fail(LATMC_EINVAL,
                              "latmc_acc_write_csv: names[%d] = \"%s\" contains a comma, quote or "
                              "newline",
                              c, names[c]);
    }
    return LATMC_OK;
}

/* Returns 0, or -1 with errno set by the failing stdio call. */
static int write_rows(const latmc_acc *acc, FILE *f, const char *const *names)
{
    if (fputs("index", f) == EOF)
        return -1;
    for (int c = 0; c < acc->ncols; c++) {
        int r = names ? fprintf(f, ",%s", names[c]) : fprintf(f, ",c%d", c);
        if (r < 0)
            return -1;
    }
    if (fputc('\n', f) == EOF)
        return -1;
    for (size_t i = 0; i < acc->count; i++) {
        if (fprintf(f, "%zu", i) < 0)
            return -1;
        for (int c = 0; c < acc->ncols; c++)
            if (fprintf(f, ",%.17g", column(acc, c)[i]) < 0)
                return -1;
        if (fputc('\n', f) == EOF)
            return -1;
    }
    return 0;
}

/*
 * The CSV is built in memory (about 3 times the acc's own footprint) and handed to the
 * library's safe writer, which follows symlinks, refuses devices, FIFOs and directories,
 * writes a uniquely named temporary file beside the target, syncs it, renames it into
 * place and syncs the directory (safe_file.h).
 */
LATMC_API int latmc_acc_write_csv(const latmc_acc *acc, const char *path,
                                  const char *const *names)
{
    if (!acc || !path)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_write_csv: %s is NULL", !acc ? "acc" : "path");
    if (!*path)
        return latmc_fail(LATMC_EINVAL, "latmc_acc_write_csv: path is empty");
    int rc = check_names(names, acc->ncols);
    if (rc != LATMC_OK)
        return rc;

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return latmc_fail(LATMC_ENOMEM, "latmc_acc_write_csv: out of memory");
    int bad = write_rows(acc, f, names);
    if (fclose(f) != 0 || bad != 0) {
        free(text);
        return latmc_fail(LATMC_ENOMEM, "latmc_acc_write_csv: out of memory formatting %zu rows",
                          acc->count);
    }
    rc = latmc_file_replace(path, text, len, "latmc_acc_write_csv");
    free(text);
    return rc;
}
