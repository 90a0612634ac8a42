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
 */
static double tau_int(const double *x, size_t n)
{
    if (all_equal(x, n))
        return 0.5;
    double k = scale_for(x, n);
    double m = scaled_mean(x, n, k);
    double c0 = lagged_sum(x, n, 0, k, m) / (double)n;
    if (!(c0 > 0.0)) /* all deviations below the double resolution of the mean */
        return 0.5;
    double tau = 0.5;
    size_t wmax = n / 2;
    for (size_t t = 1; t <= wmax; t++) {
        tau += lagged_sum(x, n, t, k, m) / (double)(n - t) / c0;
        if ((double)t >= 6.0 * tau)
            break;
    }
    return tau;
}

/* ---------------------------------------------------------------------------------
 * Life cycle and rows
 * ------------------------------------------------------------------------------- */

LATMC_API int latmc_acc_create(latmc_acc **out, int ncols)
{
    if (!out)
        return latmc_fail(LATMC_EINVAL, "acc_create: out is NULL");
    *out = NULL;
    if (ncols < 1 || ncols > ACC_MAX_COLS)
        return latmc_fail(LATMC_EINVAL, "acc_create: ncols = %d, must be in 1..%d", ncols,
                          ACC_MAX_COLS);
    latmc_acc *acc = calloc(1, sizeof *acc);
    if (!acc)
        return latmc_fail(LATMC_ENOMEM, "acc_create: out of memory");
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
        return latmc_fail(LATMC_EINVAL, "acc_ncols: acc is NULL");
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
        return latmc_fail(LATMC_ENOMEM, "acc_push: row count overflows size_t");
    size_t new_cap = acc->cap ? 2 * acc->cap : ACC_INITIAL_CAP;
    if (new_cap > SIZE_MAX / sizeof(double) / ncols)
        return latmc_fail(LATMC_ENOMEM, "acc_push: %zu rows of %zu columns overflow size_t",
                          new_cap, ncols);
    double *p = malloc(new_cap * ncols * sizeof *p);
    if (!p)
        return latmc_fail(LATMC_ENOMEM, "acc_push: cannot grow storage to %zu rows of %zu columns",
                          new_cap, ncols);
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
        return latmc_fail(LATMC_EINVAL, "acc_push: %s is NULL", !acc ? "acc" : "row");
    if (n != acc->ncols)
        return latmc_fail(LATMC_EINVAL, "acc_push: row has %d values, acc has %d columns", n,
                          acc->ncols);
    for (int c = 0; c < n; c++)
        if (!isfinite(row[c]))
            return latmc_fail(LATMC_EINVAL, "acc_push: value %g in column %d is not finite",
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
        return latmc_fail(LATMC_EINVAL, "acc_row: %s is NULL", !acc ? "acc" : "row");
    if (n != acc->ncols)
        return latmc_fail(LATMC_EINVAL, "acc_row: buffer has %d values, acc has %d columns", n,
                          acc->ncols);
    if (index >= acc->count)
        return latmc_fail(LATMC_EINVAL, "acc_row: index %" PRIu64 " out of range (%zu rows)",
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
        return latmc_fail(LATMC_EINVAL, "acc_mean: %s is NULL", !acc ? "acc" : "mean");
    int rc = check_col(acc, col, "acc_mean");
    if (rc != LATMC_OK)
        return rc;
    if (acc->count == 0)
        return latmc_fail(LATMC_ESTATE, "acc_mean: no rows");
    const double *x = column(acc, col);
    double k = scale_for(x, acc->count);
    *mean = scaled_mean(x, acc->count, k) / k;
    return LATMC_OK;
}

LATMC_API int latmc_acc_binning_error(const latmc_acc *acc, int col, int level, double *err)
{
    if (!acc || !err)
        return latmc_fail(LATMC_EINVAL, "acc_binning_error: %s is NULL", !acc ? "acc" : "err");
    int rc = check_col(acc, col, "acc_binning_error");
    if (rc != LATMC_OK)
        return rc;
    if (level < 0)
        return latmc_fail(LATMC_EINVAL, "acc_binning_error: level %d is negative", level);
    /* Levels past 62 cannot have 2 bins of any size_t count (and would overflow the
     * shift), so they are the "fewer than 2 bins" state like any other too-high level. */
    size_t nbins = level > 62 ? 0 : (size_t)((uint64_t)acc->count >> level);
    if (nbins < 2)
        return latmc_fail(LATMC_ESTATE,
                          "acc_binning_error: %zu rows give %zu bins at level %d, need 2",
                          acc->count, nbins, level);
    *err = binned_sigma(column(acc, col), nbins, level);
    return LATMC_OK;
}

LATMC_API int latmc_acc_error(const latmc_acc *acc, int col, double *err)
{
    if (!acc || !err)
        return latmc_fail(LATMC_EINVAL, "acc_error: %s is NULL", !acc ? "acc" : "err");
    int rc = check_col(acc, col, "acc_error");
    if (rc != LATMC_OK)
        return rc;
    if (acc->count < 2)
        return latmc_fail(LATMC_ESTATE, "acc_error: %zu rows, need at least 2", acc->count);
    /* The highest level keeping >= 32 bins: bins as long as possible (so longer than
     * tau_int) while the error estimate itself is still good to ~13%. */
    int level = 0;
    while ((acc->count >> (level + 1)) >= 32)
        level++;
    *err = binned_sigma(column(acc, col), acc->count >> level, level);
    return LATMC_OK;
}

LATMC_API int latmc_acc_tau_int(const latmc_acc *acc, int col, double *tau)
{
    if (!acc || !tau)
        return latmc_fail(LATMC_EINVAL, "acc_tau_int: %s is NULL", !acc ? "acc" : "tau");
    int rc = check_col(acc, col, "acc_tau_int");
    if (rc != LATMC_OK)
        return rc;
    if (acc->count < 2)
        return latmc_fail(LATMC_ESTATE, "acc_tau_int: %zu rows, need at least 2", acc->count);
    *tau = tau_int(column(acc, col), acc->count);
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

LATMC_API int latmc_acc_jackknife(const latmc_acc *acc, int nblocks, latmc_derived_fn fn,
                                  void *user, double *value, double *err)
{
    if (!acc || !fn || !value || !err)
        return latmc_fail(LATMC_EINVAL, "acc_jackknife: %s is NULL",
                          !acc ? "acc" : !fn ? "fn" : !value ? "value" : "err");
    if (nblocks < 2)
        return latmc_fail(LATMC_EINVAL, "acc_jackknife: nblocks = %d, need at least 2", nblocks);
    if (acc->count < (size_t)nblocks)
        return latmc_fail(LATMC_ESTATE, "acc_jackknife: %zu rows, fewer than nblocks = %d",
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
        return latmc_fail(LATMC_EINVAL, "acc_jackknife: derived function is not finite (%g) "
                          "on the means of all rows", f_all);

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
            return latmc_fail(LATMC_EINVAL, "acc_jackknife: derived function is not finite (%g) "
                              "without block %zu", f, j);
        double d = f - fbar;
        fbar += d / (double)(j + 1);
        ss += d * (f - fbar);
    }
    double n = (double)nb;
    *value = n * f_all - (n - 1.0) * fbar;
    *err = sqrt((n - 1.0) / n * ss);
    return LATMC_OK;
}

struct binder_cols { int m2, m4; };
struct chi_cols { int absm, m2; double factor; };
struct heat_cols { int e; double factor; };

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
        return latmc_fail(LATMC_EINVAL, "acc_binder: acc is NULL");
    int rc = check_col(acc, col_m2, "acc_binder");
    if (rc == LATMC_OK)
        rc = check_col(acc, col_m4, "acc_binder");
    if (rc != LATMC_OK)
        return rc;
    struct binder_cols p = {col_m2, col_m4};
    return latmc_acc_jackknife(acc, nblocks, binder_fn, &p, value, err);
}

LATMC_API int latmc_acc_susceptibility(const latmc_acc *acc, int col_absm, int col_m2,
                                       double factor, int nblocks, double *value, double *err)
{
    if (!acc)
        return latmc_fail(LATMC_EINVAL, "acc_susceptibility: acc is NULL");
    int rc = check_col(acc, col_absm, "acc_susceptibility");
    if (rc == LATMC_OK)
        rc = check_col(acc, col_m2, "acc_susceptibility");
    if (rc != LATMC_OK)
        return rc;
    if (!isfinite(factor))
        return latmc_fail(LATMC_EINVAL, "acc_susceptibility: factor %g is not finite", factor);
    struct chi_cols p = {col_absm, col_m2, factor};
    return latmc_acc_jackknife(acc, nblocks, chi_fn, &p, value, err);
}

LATMC_API int latmc_acc_specific_heat(const latmc_acc *acc, int col_e, double factor,
                                      int nblocks, double *value, double *err)
{
    if (!acc)
        return latmc_fail(LATMC_EINVAL, "acc_specific_heat: acc is NULL");
    int rc = check_col(acc, col_e, "acc_specific_heat");
    if (rc != LATMC_OK)
        return rc;
    if (!isfinite(factor))
        return latmc_fail(LATMC_EINVAL, "acc_specific_heat: factor %g is not finite", factor);
    struct heat_cols p = {col_e, factor};
    return latmc_acc_jackknife(acc, nblocks, heat_fn, &p, value, err);
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
            return latmc_fail(LATMC_EINVAL, "acc_write_csv: names[%d] is NULL", c);
        if (strpbrk(names[c], ",\"\r\n"))
            return latmc_fail(LATMC_EINVAL,
                              "acc_write_csv: names[%d] = \"%s\" contains a comma, quote or newline",
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

LATMC_API int latmc_acc_write_csv(const latmc_acc *acc, const char *path,
                                  const char *const *names)
{
    if (!acc || !path)
        return latmc_fail(LATMC_EINVAL, "acc_write_csv: %s is NULL", !acc ? "acc" : "path");
    if (!*path)
        return latmc_fail(LATMC_EINVAL, "acc_write_csv: path is empty");
    int rc = check_names(names, acc->ncols);
    if (rc != LATMC_OK)
        return rc;

    size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".tmp");
    if (!tmp)
        return latmc_fail(LATMC_ENOMEM, "acc_write_csv: out of memory");
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp", sizeof ".tmp");

    FILE *f = fopen(tmp, "w");
    if (!f) {
        int e = errno;
        rc = latmc_fail(LATMC_EIO, "acc_write_csv: cannot create '%s': %s", tmp, strerror(e));
        free(tmp);
        return rc;
    }
    const char *what = NULL;
    if (write_rows(acc, f, names) != 0)
        what = "cannot write";
    else if (fflush(f) != 0)
        what = "cannot write";
    /* fsync so that the rename below never publishes a file whose data is not on disk;
     * file systems without sync support (EINVAL) are accepted as they are. */
    else if (fsync(fileno(f)) != 0 && errno != EINVAL)
        what = "cannot sync";
    int e = errno;
    if (fclose(f) != 0 && !what) {
        what = "cannot close";
        e = errno;
    }
    if (!what && rename(tmp, path) != 0) {
        what = "cannot rename temporary file to";
        e = errno;
    }
    if (what) {
        rc = latmc_fail(LATMC_EIO, "acc_write_csv: %s '%s': %s", what, path, strerror(e));
        remove(tmp);
    }
    free(tmp);
    return rc;
}
