/*
 * latmc front end — writing a checkpoint: the measurement series to FILE.csv, then the
 * sim to FILE (latmc_sim_save). Each file is written aside and renamed into place; the
 * series goes first, so a crash between the two leaves a series with more rows than the
 * (older) checkpoint implies, which --resume reads only as far as it needs.
 */
#ifndef LATMC_CLI_CHECKPOINT_H
#define LATMC_CLI_CHECKPOINT_H

#include <stddef.h>

#include <latmc/latmc.h>

#include "failure.h"
#include "observables.h"

/* FILE.csv, the series next to checkpoint FILE, in buf. Returns 0, or -1 when it
 * does not fit. */
int checkpoint_series_path(const char *path, char *buf, size_t size);

/* Save sim and obs's series under path. */
int checkpoint_save(latmc_sim *sim, const struct observables *obs, const char *path,
                    struct failure *f);

#endif
