/*
 * latmc front end — the final report on stdout: what ran (report.c), then a table of
 * means, errors and autocorrelation times and the pooled acceptance (report.c), then
 * the derived quantities with jackknife errors (report_derived.c).
 */
#ifndef LATMC_CLI_REPORT_H
#define LATMC_CLI_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "observables.h"
#include "run.h"

void report_print(FILE *out, latmc_sim *sim, const struct cli_options *opt,
                  const struct run_stats *st, const struct observables *obs);

/* The derived quantities: for scalar models U4, else <m^4>/<m^2>^2; chi and C; with
 * two replicas <q^4>/<q^2>^2 and chi_SG. `sites` is N. */
void report_derived(FILE *out, const latmc_sim *sim, const struct observables *obs,
                    double sites);

/* Mean and error as text, the mean rounded to the error's second significant digit
 * (shared by both tables). */
void report_format_mean_error(char *mbuf, size_t msize, char *ebuf, size_t esize,
                              double mean, double err, int have_err);

#endif
