/*
 * latmc front end — the files the program writes itself (--csv, --json, --hdf5) and the
 * checks of every output path (also --checkpoint, which the library writes), made
 * before the run, not after an hour of it.
 *
 * Rules (doc/cli.md): "-" is standard output (where the option allows it). A symbolic
 * link is followed, and the file is written next to its target (the link stays a link).
 * An existing target that is not a regular file (device, FIFO, socket, directory) is
 * refused: latmc never replaces one. Files are written to a unique temporary name in the
 * target's directory (mkstemp), synced and renamed over the target, so a reader sees the
 * old file or the new one, never a part; the streamed CSV is the exception (it grows
 * while the run goes, see series_out.h).
 */
#ifndef LATMC_CLI_OUTFILE_H
#define LATMC_CLI_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "failure.h"

#define OUTFILE_MAX_PATH 4000

struct outfile {
    const char *option;              /* "--csv" */
    const char *arg;                 /* as given */
    bool is_stdout;                  /* "-" */
    char real[OUTFILE_MAX_PATH + 1]; /* where it is written: symlinks resolved */
};

/* Check the path of `option` (a usage error is printed and false returned when it is
 * bad) and fill *o. allow_stdout: "-" means standard output. */
bool outfile_check(struct outfile *o, const char *option, const char *arg, bool allow_stdout);

/* Start writing o: a new temporary file next to o->real (or stdout). NULL on failure,
 * *f says why. tmp receives the temporary name. */
FILE *outfile_begin(const struct outfile *o, char *tmp, size_t tmp_size, struct failure *f);

/* Finish: flush, sync, close and rename tmp over o->real (stdout: flush only). On
 * failure the temporary file is removed and *f says why. */
int outfile_commit(const struct outfile *o, FILE *out, const char *tmp, struct failure *f);

/* Give up: close and remove the temporary file. */
void outfile_abort(const struct outfile *o, FILE *out, const char *tmp);

#endif
