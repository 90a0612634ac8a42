/*
 * latmc front end — the final report: what ran, then a table of means, errors and
 * autocorrelation times and the pooled acceptance, then the derived quantities with
 * jackknife errors (computed in results.c), and notes on what cannot be trusted.
 */
#ifndef LATMC_CLI_REPORT_H
#define LATMC_CLI_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "observables.h"
#include "results.h"
#include "run.h"

void report_print(FILE *out, latmc_sim *sim, const struct cli_options *opt,
                  const struct run_stats *st, const struct observables *obs,
                  const struct results *r);

/* One "latmc: warning:" line on err naming the degenerate results, if there are any. */
void report_warn(FILE *err, const struct results *r);

/* Mean and error as text, the mean rounded to the error's second significant digit
 * (shared by both tables). */
void report_format_mean_error(char *mbuf, size_t msize, char *ebuf, size_t esize,
                              double mean, double err, int have_err);

#endif
