/*
 * latmc front end — what is measured: the observables the model has among energy, m,
 * |m|, m^2 and m^4 (one accumulator column each, in that order, also the CSV columns),
 * and the acceptance rate of each interval between two measurements (its own
 * accumulator, so the CSV holds only the five observables).
 */
#ifndef LATMC_CLI_OBSERVABLES_H
#define LATMC_CLI_OBSERVABLES_H

#include <stdbool.h>

#include <latmc/latmc.h>

#include "failure.h"

#define OBS_MAX_COLS 5

struct observables {
    int n_cols;
    int key[OBS_MAX_COLS];              /* LATMC_OBS_* of each column */
    const char *csv_name[OBS_MAX_COLS]; /* "energy", "m", "absm", "m2", "m4" */
    const char *label[OBS_MAX_COLS];    /* "energy", "m", "|m|", "m^2", "m^4" */
    int col_energy, col_absm, col_m2, col_m4; /* column or -1 when the model lacks it */
    latmc_acc *acc;                     /* one row per measurement */

    latmc_acc *acc_accept;              /* acceptance of each interval */
    bool accept_available;              /* false once the library declined it */
    int accept_status;                  /* why not (LATMC_E*), when unavailable */
};

/* Find which observables the sim has (it must have a configuration) and create the
 * accumulators. On failure everything is released and *f says why. */
int observables_setup(struct observables *o, latmc_sim *sim, struct failure *f);

/* One measurement: a row of observables, and the acceptance since the previous
 * measurement (the acceptance counters are reset afterwards). */
int observables_measure(struct observables *o, latmc_sim *sim, struct failure *f);

/* Zero the acceptance counters (start of the measurement phase). */
int observables_reset_acceptance(struct observables *o, latmc_sim *sim, struct failure *f);

/* Write the observables' time series as CSV. */
int observables_write_csv(const struct observables *o, const char *path, struct failure *f);

void observables_destroy(struct observables *o);

#endif
