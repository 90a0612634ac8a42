/**
 * @file latmc/acc.h
 * @brief liblatmc — accumulators for Monte Carlo time series.
 *
 * An accumulator holds a time series of rows of ncols doubles (one row per measurement,
 * e.g. energy, |m|, m^2, m^4), keeps every row, and gives for each column the mean, the
 * logarithmic-binning error, the integrated autocorrelation time, and jackknife
 * estimates of derived quantities (Binder cumulant, susceptibility, specific heat, or
 * any function of column means).
 *
 * Thread safety: one acc must not be used by two threads at once when one of them
 * modifies it (push, clear); concurrent const calls are safe. Different accs are
 * independent. Accs need no ctx. Failing calls record their message for the calling
 * thread (latmc_last_error()). On failure, output values are left unchanged (but
 * latmc_acc_create() sets *out to NULL).
 *
 * @since 0.1
 */
#ifndef LATMC_ACC_H
#define LATMC_ACC_H

#include <latmc/defs.h>

LATMC_BEGIN_DECLS

/**
 * Opaque accumulator, owned by its creator: latmc_acc_create() allocates it,
 * latmc_acc_destroy() frees it.
 * @since 0.1
 */
typedef struct latmc_acc latmc_acc;

/**
 * Create an accumulator for rows of ncols values (1 <= ncols <= 64).
 * @param[out] out   receives the new acc, owned by the caller (latmc_acc_destroy());
 *                   set to NULL on failure when out is not NULL.
 * @param[in]  ncols number of columns, 1..64.
 * @return LATMC_OK; LATMC_EINVAL (out NULL, ncols out of range); LATMC_ENOMEM.
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API int latmc_acc_create(latmc_acc **out, int ncols);

/**
 * Destroy and set *acc = NULL; accepts NULL and *acc == NULL.
 * @param[in,out] acc address of the caller's handle; the acc and its rows are freed.
 * @note Not thread-safe on the same acc (it modifies it).
 * @since 0.1
 */
LATMC_API void latmc_acc_destroy(latmc_acc **acc);

/**
 * Number of columns.
 * @param[in] acc the accumulator.
 * @return ncols (>= 1); LATMC_EINVAL when acc is NULL.
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_ncols(const latmc_acc *acc);

/**
 * Number of rows pushed so far (since creation or the last latmc_acc_clear()).
 * @param[in] acc the accumulator.
 * @return the row count; 0 when acc is NULL.
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API uint64_t latmc_acc_count(const latmc_acc *acc);

/**
 * Append one row. n must equal ncols; NaN or inf values are rejected (LATMC_EINVAL,
 * nothing appended). The values are copied.
 * @param[in,out] acc the accumulator.
 * @param[in]     row n values; borrowed for the call only.
 * @param[in]     n   number of values, == ncols.
 * @return LATMC_OK; LATMC_EINVAL (acc or row NULL, n != ncols, a value not finite);
 *         LATMC_ENOMEM (storage cannot grow). On failure nothing is appended.
 * @note Modifies the acc: not concurrently with any other call on it.
 * @since 0.1
 */
LATMC_API int latmc_acc_push(latmc_acc *acc, const double *row, int n);

/**
 * Drop all rows (the storage is kept for refilling). Does nothing when acc is NULL.
 * @param[in,out] acc the accumulator.
 * @note Modifies the acc: not concurrently with any other call on it.
 * @since 0.1
 */
LATMC_API void latmc_acc_clear(latmc_acc *acc);

/**
 * Read row `index` (0-based) into row[0..n-1], n == ncols.
 * @param[in]  acc   the accumulator.
 * @param[in]  index 0 <= index < latmc_acc_count().
 * @param[out] row   caller's buffer of n doubles.
 * @param[in]  n     its length, == ncols.
 * @return LATMC_OK; LATMC_EINVAL (acc or row NULL, n != ncols, index out of range).
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_row(const latmc_acc *acc, uint64_t index, double *row, int n);

/**
 * Mean of column col.
 * @param[in]  acc  the accumulator.
 * @param[in]  col  column, 0 <= col < ncols.
 * @param[out] mean receives the mean.
 * @return LATMC_OK; LATMC_EINVAL (acc or mean NULL, col out of range); LATMC_ESTATE
 *         (no rows).
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_mean(const latmc_acc *acc, int col, double *mean);

/**
 * Error of the mean at binning level `level` (bins of 2^level consecutive rows,
 * sigma = sqrt(var(bin means) / (nbins - 1)), nbins = count >> level; the rows of an
 * incomplete last bin are not used). A constant column gives 0.
 * @param[in]  acc   the accumulator.
 * @param[in]  col   column, 0 <= col < ncols.
 * @param[in]  level binning level, >= 0.
 * @param[out] err   receives the error.
 * @return LATMC_OK; LATMC_EINVAL (acc or err NULL, col out of range, level < 0);
 *         LATMC_ESTATE when fewer than 2 bins.
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_binning_error(const latmc_acc *acc, int col, int level, double *err);

/**
 * Logarithmic-binning error of the mean of column col: the binning error at the
 * highest level that still has at least 32 bins (at level 0 when count < 64).
 * @param[in]  acc the accumulator.
 * @param[in]  col column, 0 <= col < ncols.
 * @param[out] err receives the error.
 * @return LATMC_OK; LATMC_EINVAL (acc or err NULL, col out of range); LATMC_ESTATE
 *         (fewer than 2 rows).
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_error(const latmc_acc *acc, int col, double *err);

/**
 * Integrated autocorrelation time tau_int = 1/2 + sum_{t>=1} rho(t) of column col,
 * from the normalised autocorrelation function summed up to the self-consistent
 * window W (smallest W with W >= 6 tau_int(W), Madras–Sokal; W stops at count / 2 when
 * no smaller window qualifies). With this convention the error of the mean is
 * sqrt(2 tau_int var / n); uncorrelated data give 1/2. A constant column gives
 * tau_int = 0.5 (a convention: flagged LATMC_ACC_WARN_TAU_UNDEFINED).
 *
 * Floor (since 0.2): the result is never below 1/2, the value of uncorrelated data. The
 * sum of an anticorrelated series can fall below it (to -1/2 for a period-2 chain, as
 * Metropolis at beta = 0 produces); it is then returned as 1/2, so that
 * sqrt(2 tau_int var / n) is the naive error, an upper bound for anticorrelated data,
 * never a vanishing or imaginary one. latmc_acc_warnings() says when the floor hid a
 * significant shortfall (LATMC_ACC_WARN_ANTICORRELATED) or when the window did not
 * close (LATMC_ACC_WARN_NO_WINDOW).
 * @param[in]  acc the accumulator.
 * @param[in]  col column, 0 <= col < ncols.
 * @param[out] tau receives tau_int.
 * @return LATMC_OK; LATMC_EINVAL (acc or tau NULL, col out of range); LATMC_ESTATE
 *         (fewer than 2 rows).
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_tau_int(const latmc_acc *acc, int col, double *tau);

/** @name Warning bits of latmc_acc_warnings()
 * @{ */
/** latmc_acc_error() is exactly 0: the column does not fluctuate within the rows the
 *  binning uses (a frozen chain, or a periodic one such as Metropolis at beta = 0, which
 *  flips every spin every sweep). Zero is then not an error estimate: nothing can be
 *  said about the statistical error from this series. @since 0.2 */
#define LATMC_ACC_WARN_ZERO_ERROR     (1u << 0)
/** The column has no variance: tau_int is undefined (latmc_acc_tau_int() returns the
 *  convention 1/2). @since 0.2 */
#define LATMC_ACC_WARN_TAU_UNDEFINED  (1u << 1)
/** The autocorrelation sum fell below 1/2 by more than 4 of its standard errors
 *  (Madras–Sokal, sigma = (1/2) sqrt(2 (2W + 1) / n)): the series is anticorrelated or
 *  periodic, and latmc_acc_tau_int() returned its floor 1/2. Noise of uncorrelated data
 *  around 1/2 is not flagged. @since 0.2 */
#define LATMC_ACC_WARN_ANTICORRELATED (1u << 2)
/** The self-consistent window did not close before count / 2: the series is too short
 *  for its autocorrelation, tau_int is an underestimate and so may be the error.
 *  @since 0.2 */
#define LATMC_ACC_WARN_NO_WINDOW      (1u << 3)
/** @} */

/**
 * Which results of column col cannot be trusted as they stand: a combination of the
 * LATMC_ACC_WARN_* bits (0: none). Bits may be added in later versions; ignore unknown
 * ones.
 * @param[in]  acc   the accumulator.
 * @param[in]  col   column, 0 <= col < ncols.
 * @param[out] flags receives the bits.
 * @return LATMC_OK; LATMC_EINVAL (acc or flags NULL, col out of range); LATMC_ESTATE
 *         (fewer than 2 rows).
 * @note Thread-safe (const).
 * @since 0.2
 */
LATMC_API int latmc_acc_warnings(const latmc_acc *acc, int col, unsigned *flags);

/**
 * A derived quantity of the column means, for latmc_acc_jackknife(). Must return a
 * finite value (else the jackknife fails with LATMC_EINVAL). Called on the calling
 * thread, nblocks + 1 times per jackknife.
 * @param[in] means    ncols entries: the column means over the rows being used; valid
 *                     only during the call.
 * @param[in] sq_means ncols entries: the means of the squares of each column.
 * @param[in] user     the pointer given to latmc_acc_jackknife(), passed through.
 * @return the derived quantity.
 * @since 0.1
 */
typedef double (*latmc_derived_fn)(const double *means, const double *sq_means, void *user);

/**
 * Jackknife estimate and error of fn over nblocks blocks of consecutive rows
 * (2 <= nblocks <= count; rows beyond nblocks * floor(count / nblocks) are dropped).
 * *value is the bias-corrected estimate n f(all) - (n-1) mean_j f(without block j).
 * @param[in]  acc     the accumulator.
 * @param[in]  nblocks number of blocks n, 2 <= n <= count.
 * @param[in]  fn      the derived quantity.
 * @param[in]  user    passed to fn unchanged; not owned by the library.
 * @param[out] value   receives the bias-corrected estimate.
 * @param[out] err     receives its jackknife error.
 * @return LATMC_OK; LATMC_EINVAL (acc, fn, value or err NULL, nblocks < 2, fn returned a
 *         value that is not finite); LATMC_ESTATE (fewer rows than nblocks).
 * @note Thread-safe (const), as far as fn is.
 * @since 0.1
 */
LATMC_API int latmc_acc_jackknife(const latmc_acc *acc, int nblocks, latmc_derived_fn fn,
                                  void *user, double *value, double *err);

/**
 * Binder cumulant U4 = 1 - <m^4> / (3 <m^2>^2) by jackknife, from the columns holding
 * m^2 and m^4 per measurement.
 * @param[in]  acc     the accumulator.
 * @param[in]  col_m2  column of m^2.
 * @param[in]  col_m4  column of m^4.
 * @param[in]  nblocks jackknife blocks, as latmc_acc_jackknife().
 * @param[out] value   receives U4.
 * @param[out] err     receives its error.
 * @return LATMC_OK; LATMC_EINVAL (acc NULL, a column out of range, value or err NULL,
 *         nblocks < 2, U4 not finite, e.g. <m^2> = 0); LATMC_ESTATE (fewer rows than
 *         nblocks).
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_binder(const latmc_acc *acc, int col_m2, int col_m4, int nblocks,
                               double *value, double *err);

/**
 * Second-moment correlation length xi = sqrt(<|m(0)|^2> / <|m(k_min)|^2> - 1) /
 * (2 sin(pi / L)) by jackknife, from the columns holding |m(0)|^2 and |m(k_min)|^2 per
 * measurement (LATMC_OBS_M2_K0 and LATMC_OBS_M2_KMIN, or OVERLAP2 and OVERLAP2_KMIN for
 * the spin-glass xi of one sample), i.e. sqrt(chi / F - 1) / (2 sin(k_min / 2)) with
 * k_min = 2 pi / L. Divide value and err by L for xi / L (doc/observables.md).
 * @param[in]  acc      the accumulator.
 * @param[in]  col_k0   column of |m(0)|^2.
 * @param[in]  col_kmin column of |m(k_min)|^2.
 * @param[in]  L        the lattice's extent, >= 2.
 * @param[in]  nblocks  jackknife blocks, as latmc_acc_jackknife().
 * @param[out] value    receives xi.
 * @param[out] err      receives its error.
 * @return LATMC_OK; LATMC_EINVAL (acc NULL, a column out of range, L < 2, value or err
 *         NULL, nblocks < 2, xi not real or not finite: <|m(0)|^2> < <|m(k_min)|^2> or
 *         <|m(k_min)|^2> = 0, also in a jackknife block); LATMC_ESTATE (fewer rows than
 *         nblocks).
 * @note Thread-safe (const).
 * @since 0.2
 */
LATMC_API int latmc_acc_corr_length(const latmc_acc *acc, int col_k0, int col_kmin, int64_t L,
                                    int nblocks, double *value, double *err);

/**
 * Susceptibility chi = factor * (<m^2> - <|m|>^2) by jackknife (for the usual
 * per-site chi of a lattice of N sites at inverse temperature beta, factor = beta * N),
 * from the columns holding |m| and m^2.
 * @param[in]  acc      the accumulator.
 * @param[in]  col_absm column of |m|.
 * @param[in]  col_m2   column of m^2.
 * @param[in]  factor   finite prefactor.
 * @param[in]  nblocks  jackknife blocks, as latmc_acc_jackknife().
 * @param[out] value    receives chi.
 * @param[out] err      receives its error.
 * @return LATMC_OK; LATMC_EINVAL (acc NULL, a column out of range, factor not finite,
 *         value or err NULL, nblocks < 2, chi not finite); LATMC_ESTATE (fewer rows
 *         than nblocks).
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_susceptibility(const latmc_acc *acc, int col_absm, int col_m2,
                                       double factor, int nblocks, double *value, double *err);

/**
 * Specific heat per site `C = factor * (<e^2> - <e>^2)` by jackknife (factor = beta^2 * N
 * for e = H/N), from the column holding e.
 * @param[in]  acc     the accumulator.
 * @param[in]  col_e   column of e.
 * @param[in]  factor  finite prefactor.
 * @param[in]  nblocks jackknife blocks, as latmc_acc_jackknife().
 * @param[out] value   receives C.
 * @param[out] err     receives its error.
 * @return LATMC_OK; LATMC_EINVAL (acc NULL, col_e out of range, factor not finite,
 *         value or err NULL, nblocks < 2, C not finite); LATMC_ESTATE (fewer rows than
 *         nblocks).
 * @note Thread-safe (const).
 * @since 0.1
 */
LATMC_API int latmc_acc_specific_heat(const latmc_acc *acc, int col_e, double factor,
                                      int nblocks, double *value, double *err);

/**
 * Write the series as CSV: a header line "index,<name0>,<name1>,..." (names may be NULL:
 * "index,c0,c1,..."; names must not contain ',', '"', CR or LF), then one line per row
 * with the row index and the values printed with 17 significant digits. Written to a
 * uniquely named temporary file beside the target, synced and renamed over it (the
 * directory synced too), so a failure never leaves a partial file at path and
 * concurrent writers never share a temporary file (the last rename wins). A symbolic
 * link is followed and stays a link; an existing file at the target is replaced; a
 * target that is not a regular file (FIFO, device, directory) is refused (LATMC_EIO)
 * and left alone. (Since 0.2; before, path.tmp was used and any target replaced.)
 * @param[in] acc   the accumulator.
 * @param[in] path  destination file, non-empty.
 * @param[in] names NULL, or ncols non-NULL strings; borrowed for the call only.
 * @return LATMC_OK; LATMC_EINVAL (acc or path NULL, path empty, a name NULL or with a
 *         forbidden character); LATMC_EIO (not a regular file, or cannot create, write,
 *         sync or rename; the temporary file is removed); LATMC_ENOMEM.
 * @note Thread-safe (const) for the acc; concurrent writes to one path: the last wins.
 * @since 0.1
 */
LATMC_API int latmc_acc_write_csv(const latmc_acc *acc, const char *path,
                                  const char *const *names);

/**
 * The accumulator (its column count and every row) as bytes, e.g. to store next to a
 * sim checkpoint. Format 1, little-endian: "LATMCACC", u32 format (1), u32 ncols,
 * u64 count, u64 FNV-1a hash of the payload, then the payload: the count values of
 * column 0, then column 1, ..., each an IEEE 754 binary64. Size 32 + 8 ncols count.
 * With buf NULL only *size is set; otherwise capacity must be >= the size.
 * @param[in]  acc      the accumulator.
 * @param[out] buf      caller's buffer of capacity bytes, or NULL to ask the size.
 * @param[in]  capacity size of buf.
 * @param[out] size     receives the size of the serialized acc (also when capacity is
 *                      too small).
 * @return LATMC_OK; LATMC_EINVAL (acc or size NULL, capacity too small); LATMC_ENOMEM
 *         (the size overflows size_t).
 * @note Thread-safe (const).
 * @since 0.2
 */
LATMC_API int latmc_acc_serialize(const latmc_acc *acc, void *buf, size_t capacity,
                                  size_t *size);

/**
 * A new accumulator from latmc_acc_serialize() bytes. The bytes are untrusted input:
 * the header, the column count, that the size is exactly the one the header implies,
 * the hash and every value (finite) are checked before anything is returned.
 * @param[in]  buf  the bytes; borrowed for the call only.
 * @param[in]  size their number.
 * @param[out] out  receives the new acc, owned by the caller (latmc_acc_destroy());
 *                  NULL on failure when out is not NULL.
 * @return LATMC_OK; LATMC_EINVAL (out or buf NULL); LATMC_ECORRUPT (not accumulator
 *         data, unknown format, bad column count, size mismatch, hash mismatch, a value
 *         not finite); LATMC_ENOMEM.
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API int latmc_acc_deserialize(const void *buf, size_t size, latmc_acc **out);

LATMC_END_DECLS

#endif /* LATMC_ACC_H */
