/*
 * latmc front end — what is measured: the observables the model defines among energy,
 * m, |m|, m^2, m^4, phi^2, q^2, |m(0)|^2, |m(k_min)|^2 and |q(k_min)|^2 (one accumulator
 * column each, in that order; also the CSV columns), found by asking the library for each
 * once. For the models whose m is not signed (Potts, Heisenberg: the library's m is |m|
 * there) the m column is left out, and |m(0)|^2 is recorded for Potts only (elsewhere it
 * is m^2 itself). The Fourier columns exist where the backend reduces them (the CPU) and
 * the extents are equal. The cluster algorithms (sw, wolff) add the number of clusters (sw
 * only: Wolff's is 1), the largest cluster / N and the improved estimator sum |C|^2 / N^2 (Wolff: |C| / N) of the
 * sweep before each measurement. The acceptance is not a column: it is pooled over the measured sweeps from
 * the library's exact counters.
 */
#ifndef LATMC_CLI_OBSERVABLES_H
#define LATMC_CLI_OBSERVABLES_H

#include <stdbool.h>
#include <stdint.h>

#include <latmc/latmc.h>

#include "failure.h"

#define OBS_MAX_COLS 13

struct observables {
    int n_cols;
    int key[OBS_MAX_COLS];              /* LATMC_OBS_* of each column */
    const char *csv_name[OBS_MAX_COLS]; /* "energy", "m", "absm", "m2", "m4", "phi2", "overlap2",
                                           "m2_k0", "m2_kmin", "overlap2_kmin" */
    const char *label[OBS_MAX_COLS];    /* "energy", "m", "|m|", "m^2", "m^4", "phi^2", "q^2",
                                           "|m(0)|^2", "|m(kmin)|^2", "|q(kmin)|^2" */
    int col_energy, col_absm, col_m2, col_m4, col_overlap2; /* column, or -1 */
    int col_k0, col_kmin, col_overlap2_kmin; /* |m(0)|^2 (m^2's column but for Potts),
                                                |m(k_min)|^2, |q(k_min)|^2: column, or -1 */
    int col_cluster_m2; /* the clusters' improved estimator of <m^2>, or -1 */
    bool scalar;        /* a signed scalar order parameter (Ising, phi^4): U4 applies */
    latmc_acc *acc;     /* one row per measurement */
    uint64_t reloaded;  /* rows read back from a checkpoint (--resume) */
    /* How the chain started ("hot", "cold"): saved in checkpoints, so that the outputs of
     * a resumed run state the original start; "" when a checkpoint did not say. */
    char start[16];

    bool accept_valid;  /* the counters below cover the measured sweeps */
    uint64_t accepted, attempted;
};

/* Find which observables the sim has (it must have a configuration) and create the
 * accumulator. On failure everything is released and *f says why. */
int observables_setup(struct observables *o, latmc_sim *sim, struct failure *f);

/* One measurement: a row of observables. */
int observables_measure(struct observables *o, latmc_sim *sim, struct failure *f);

/* Read the acceptance counters (at the end of the run; they were reset when the
 * measurement phase began). */
int observables_pool_acceptance(struct observables *o, const latmc_sim *sim, struct failure *f);

void observables_destroy(struct observables *o);

#endif
