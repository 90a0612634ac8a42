/*
 * latmc front end — the results of a run, computed once from the accumulator and the
 * sim: per observable the mean, its binning error, tau_int and the library's warning
 * bits; the derived quantities with jackknife errors. The text report, --json and
 * --hdf5 all print this one struct, so they cannot disagree.
 */
#ifndef LATMC_CLI_RESULTS_H
#define LATMC_CLI_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include <latmc/latmc.h>

#include "observables.h"

/* Below this many measurements per tau_int, errors and tau_int themselves are rough. */
#define MIN_MEAS_PER_TAU 100.0
#define JACKKNIFE_BLOCKS 32
#define RES_MAX_DERIVED 8

/* The warning bits that make a result degenerate (no error estimate at all), as
 * opposed to rough (LATMC_ACC_WARN_NO_WINDOW, or fewer than 100 tau_int). */
#define RES_DEGENERATE (LATMC_ACC_WARN_ZERO_ERROR | LATMC_ACC_WARN_TAU_UNDEFINED | \
                        LATMC_ACC_WARN_ANTICORRELATED)

struct obs_result {
    const char *name;  /* csv / json name: "energy", "absm", ... */
    const char *label; /* table label: "energy", "|m|", ... */
    bool have_mean, have_err, have_tau;
    double mean, err, tau;
    unsigned flags;    /* LATMC_ACC_WARN_* */
    bool rough;        /* fewer than MIN_MEAS_PER_TAU tau_int, or the window did not close */
};

struct derived_result {
    const char *name;  /* json name: "binder_u4", "chi", ... */
    const char *label; /* table label */
    bool ok;
    double value, err;
    const char *why;   /* !ok: the reason (static text) */
    unsigned flags;    /* LATMC_ACC_WARN_ZERO_ERROR when the jackknife error is exactly 0 */
};

struct results {
    uint64_t n_meas;
    double sites;
    int64_t L;        /* the first extent (the Fourier observables need all equal) */
    bool have_beta;   /* phi^4 has none: its factors use 1 */
    double beta;
    int n_obs;
    struct obs_result obs[OBS_MAX_COLS];
    int nblocks;      /* jackknife blocks (< 2: no derived quantities) */
    int n_derived;
    struct derived_result derived[RES_MAX_DERIVED];
    bool degenerate;  /* some result has a RES_DEGENERATE bit */
};

void results_compute(struct results *r, const latmc_sim *sim, const struct observables *obs);

/* The names of the warning bits set in flags, comma-separated ("zero_error, ..."). */
void results_flag_names(unsigned flags, bool rough, char *buf, size_t size);

#endif
