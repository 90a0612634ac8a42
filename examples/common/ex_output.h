/*
 * liblatmc examples — the output directory, data files and gnuplot.
 *
 * Every example writes plain-text data and a gnuplot script, and renders the script to a
 * PNG only where gnuplot is installed: the data and the script are the result, the picture
 * is a convenience, and its absence is never an error.
 */
#ifndef LATMC_EX_OUTPUT_H
#define LATMC_EX_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* Create directory dir if it does not exist (one level). False, with a message, on failure. */
bool ex_make_dir(const char *dir);

/* fopen(dir/name, "w"); NULL with a message on failure. *path (size n) receives the path. */
FILE *ex_create(const char *dir, const char *name, char *path, size_t n);

/* fclose with the write error check that fclose alone hides; false with a message. */
bool ex_close(FILE *f, const char *path);

enum ex_plot { EX_PLOT_DONE, EX_PLOT_NO_GNUPLOT, EX_PLOT_FAILED };

/* Run `gnuplot script` inside dir (the script names its output relative to dir), if gnuplot
 * is on PATH now (looked up at run time, every time). Prints one line saying what happened. */
enum ex_plot ex_gnuplot(const char *dir, const char *script);

#endif
