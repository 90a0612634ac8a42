/*
 * latmc front end — the --csv time series, streamed: the column line
 * "index,sweep,<observables>", a header comment ("# key = value" lines: every input of
 * meta.h), then one line per measurement, appended as the run makes it (flushed every chunk of sweeps,
 * synced before every checkpoint, so the file always holds at least the measurements
 * the checkpoint has). The file is created through outfile.h (a new file renamed into
 * place: symlinks followed, no device or FIFO replaced), then appended to. A resumed
 * run writes it anew from the measurements in the checkpoint and goes on appending, so
 * rows written after the last checkpoint by the interrupted run never stay behind.
 * "-" streams to standard output.
 */
#ifndef LATMC_CLI_SERIES_OUT_H
#define LATMC_CLI_SERIES_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "failure.h"
#include "meta.h"
#include "observables.h"
#include "outfile.h"

struct series_out {
    const struct outfile *target; /* NULL: no --csv */
    FILE *f;
    uint64_t therm, every;        /* sweep of measurement i: therm + (i + 1) every */
    int n_cols;
};

/* Create the file with the header and the rows obs already has (resumed run). */
int series_open(struct series_out *s, const struct outfile *target, const struct run_meta *m,
                const struct observables *obs, struct failure *f);

/* Append obs's last row (index count - 1). */
int series_append(struct series_out *s, const struct observables *obs, struct failure *f);

/* Flush (sync: also to disk). */
int series_flush(struct series_out *s, int sync, struct failure *f);

/* Flush, sync and close (does nothing without --csv). */
int series_close(struct series_out *s, struct failure *f);

#endif
