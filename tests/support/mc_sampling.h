/*
 * Test support: run a Monte Carlo chain through the public API and compare its means
 * with exact values in units of their binning errors.
 */
#ifndef LATMC_TEST_MC_SAMPLING_H
#define LATMC_TEST_MC_SAMPLING_H

#include <stdbool.h>

#include <latmc/latmc.h>

#include "exact_ising.h"

/* Columns recorded per measurement. */
enum { COL_E, COL_ABSM, COL_M2, COL_M4, COL_M, NCOLS };

/*
 * Thermalise `therm` sweeps from a hot start, then record NCOLS observables after each
 * of `nmeas` sweeps into a new accumulator (*out). LATMC_OK or the failing status.
 */
int mc_sample_ising(latmc_sim *sim, uint64_t therm, uint64_t nmeas, latmc_acc **out);

/* The same with `every` sweeps before each measurement (Wolff: one cluster a sweep). */
int mc_sample_every(latmc_sim *sim, uint64_t therm, uint64_t nmeas, uint64_t every,
                    latmc_acc **out);

/* The same from the start `init` (LATMC_INIT_HOT or LATMC_INIT_COLD). */
int mc_sample_from(latmc_sim *sim, int init, uint64_t therm, uint64_t nmeas, uint64_t every,
                   latmc_acc **out);

/*
 * Deviation of column col's mean from `exact` in units of its binning error, printed as
 * one table line "label: mean +- err (exact x, n.nn sigma, tau_int t)". Returns the
 * deviation (a huge value when the error cannot be estimated).
 */
double mc_deviation(const latmc_acc *acc, int col, double exact, const char *label);

/*
 * The deviations of <e>, <|m|>, <m^2>, <m^4> (and <m> when check_m) recorded by
 * mc_sample_ising() from the exact moments, one line each labelled "<prefix> <name>".
 * Returns the largest |deviation| in sigma.
 */
double mc_ising_moments_deviation(const latmc_acc *acc, const struct exact_ising_moments *ex,
                                  bool check_m, const char *prefix);

#endif
