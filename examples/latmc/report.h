/*
 * latmc front end — the final report on stdout: what ran, then a table of means,
 * errors and autocorrelation times, then the derived quantities with jackknife errors.
 */
#ifndef LATMC_CLI_REPORT_H
#define LATMC_CLI_REPORT_H

#include <stdio.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "observables.h"
#include "run.h"

void report_print(FILE *out, latmc_sim *sim, const struct cli_options *opt,
                  const struct run_plan *plan, const struct run_stats *st,
                  const struct observables *obs);

#endif
