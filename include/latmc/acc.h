/*
 * liblatmc — accumulators for Monte Carlo time series.
 *
 * An accumulator holds a time series of rows of ncols doubles (one row per measurement,
 * e.g. energy, |m|, m^2, m^4), keeps every row, and gives for each column the mean, the
 * logarithmic-binning error, the integrated autocorrelation time, and jackknife
 * estimates of derived quantities (Binder cumulant, susceptibility, specific heat, or
 * any function of column means).
 *
 * Thread safety: one acc must not be used by two threads at once when one of them
 * modifies it (push, clear); concurrent const calls are safe. Different accs are
 * independent.
 */
#ifndef LATMC_ACC_H
#define LATMC_ACC_H

#include <latmc/defs.h>

LATMC_BEGIN_DECLS

typedef struct latmc_acc latmc_acc;

/**
 * Create an accumulator for rows of ncols values (1 <= ncols <= 64).
 * Errors: LATMC_EINVAL, LATMC_ENOMEM. Since 0.1.
 */
LATMC_API int latmc_acc_create(latmc_acc **out, int ncols);

/** Destroy and set *acc = NULL; accepts NULL. Since 0.1. */
LATMC_API void latmc_acc_destroy(latmc_acc **acc);

/** Number of columns. */
LATMC_API int latmc_acc_ncols(const latmc_acc *acc);

/** Number of rows pushed so far. */
LATMC_API uint64_t latmc_acc_count(const latmc_acc *acc);

/**
 * Append one row. n must equal ncols; NaN or inf values are rejected (LATMC_EINVAL,
 * nothing appended). Errors: LATMC_EINVAL, LATMC_ENOMEM (nothing appended). Since 0.1.
 */
LATMC_API int latmc_acc_push(latmc_acc *acc, const double *row, int n);

/** Drop all rows. */
LATMC_API void latmc_acc_clear(latmc_acc *acc);

/** Read row `index` (0-based) into row[0..n-1], n == ncols. */
LATMC_API int latmc_acc_row(const latmc_acc *acc, uint64_t index, double *row, int n);

/** Mean of column col. Errors: LATMC_EINVAL, LATMC_ESTATE (no rows). */
LATMC_API int latmc_acc_mean(const latmc_acc *acc, int col, double *mean);

/**
 * Error of the mean at binning level `level` (bins of 2^level consecutive rows,
 * sigma = sqrt(var(bin means) / (nbins - 1)), nbins = count >> level).
 * Errors: LATMC_ESTATE when fewer than 2 bins.
 */
LATMC_API int latmc_acc_binning_error(const latmc_acc *acc, int col, int level, double *err);

/**
 * Logarithmic-binning error of the mean of column col: the binning error at the
 * highest level that still has at least 32 bins (at level 0 when count < 64).
 * Errors: LATMC_ESTATE (fewer than 2 rows).
 */
LATMC_API int latmc_acc_error(const latmc_acc *acc, int col, double *err);

/**
 * Integrated autocorrelation time tau_int = 1/2 + sum_{t>=1} rho(t) of column col,
 * from the normalised autocorrelation function summed up to the self-consistent
 * window W (smallest W with W >= 6 tau_int(W), Madras–Sokal). With this convention
 * the error of the mean is sqrt(2 tau_int var / n); uncorrelated data give 1/2.
 * A constant column gives tau_int = 0.5. Errors: LATMC_ESTATE (fewer than 2 rows).
 */
LATMC_API int latmc_acc_tau_int(const latmc_acc *acc, int col, double *tau);

/**
 * A derived quantity of the column means. `means` has ncols entries (means over the
 * rows being used); `sq_means` the means of the squares of each column.
 */
typedef double (*latmc_derived_fn)(const double *means, const double *sq_means, void *user);

/**
 * Jackknife estimate and error of fn over nblocks blocks of consecutive rows
 * (2 <= nblocks <= count; rows beyond nblocks * floor(count / nblocks) are dropped).
 * *value is the bias-corrected estimate n f(all) - (n-1) mean_j f(without block j).
 * Errors: LATMC_EINVAL, LATMC_ESTATE (too few rows).
 */
LATMC_API int latmc_acc_jackknife(const latmc_acc *acc, int nblocks, latmc_derived_fn fn,
                                  void *user, double *value, double *err);

/**
 * Binder cumulant U4 = 1 - <m^4> / (3 <m^2>^2) by jackknife, from the columns holding
 * m^2 and m^4 per measurement.
 */
LATMC_API int latmc_acc_binder(const latmc_acc *acc, int col_m2, int col_m4, int nblocks,
                               double *value, double *err);

/**
 * Susceptibility chi = factor * (<m^2> - <|m|>^2) by jackknife (for the usual
 * per-site chi of a lattice of N sites at inverse temperature beta, factor = beta * N),
 * from the columns holding |m| and m^2.
 */
LATMC_API int latmc_acc_susceptibility(const latmc_acc *acc, int col_absm, int col_m2,
                                       double factor, int nblocks, double *value, double *err);

/**
 * Specific heat per site C = factor * (<e^2> - <e>^2) by jackknife (factor = beta^2 * N
 * for e = H/N), from the column holding e.
 */
LATMC_API int latmc_acc_specific_heat(const latmc_acc *acc, int col_e, double factor,
                                      int nblocks, double *value, double *err);

/**
 * Write the series as CSV: a header line "index,<name0>,<name1>,..." (names may be NULL:
 * "index,c0,c1,..."; names must not contain ',', '"', CR or LF), then one line per row
 * with the row index and the values printed with 17 significant digits. Written to
 * path.tmp, flushed and renamed, so a failure never leaves a partial file at path.
 * Errors: LATMC_EINVAL, LATMC_EIO, LATMC_ENOMEM.
 */
LATMC_API int latmc_acc_write_csv(const latmc_acc *acc, const char *path,
                                  const char *const *names);

LATMC_END_DECLS

#endif /* LATMC_ACC_H */
