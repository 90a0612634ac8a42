/*
 * latmc front end — can a file be created at a path? Checked before the run (for --csv
 * and --checkpoint), not after an hour of it.
 */
#ifndef LATMC_CLI_OUTPATH_H
#define LATMC_CLI_OUTPATH_H

#include <stdbool.h>

/* True when path names no directory and its directory exists and is writable;
 * otherwise prints a usage error naming `option` and returns false. */
bool outpath_check(const char *option, const char *path);

#endif
