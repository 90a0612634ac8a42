/*
 * latmc front end — the values of options: numbers in a range, names from a table,
 * model parameters, lattice sizes. Each getter prints its own usage error and returns
 * false when the value is bad.
 */
#ifndef LATMC_CLI_VALUES_H
#define LATMC_CLI_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "cli_options.h"
#include "names.h"

/* Unsigned integer in [lo, hi]; `what` describes the range for the message. */
bool get_u64(const char *opt, const char *arg, uint64_t lo, uint64_t hi, const char *what,
             uint64_t *out);

/* Real number strictly between lo and hi. */
bool get_open_interval(const char *opt, const char *arg, double lo, double hi, double *out);

/* One of the names of table. */
bool get_name(const char *opt, const char *arg, const struct name_value *table, int *out);

/* A non-empty file name. */
bool get_path(const char *opt, const char *arg, const char **out);

/* A parameter value for key (finite, lambda may be +inf, beta >= 0), recorded in opt. */
bool get_param(struct cli_options *opt, const char *optname, int key, const char *arg);

/* --param NAME=VALUE */
bool get_named_param(struct cli_options *opt, const char *arg);

/* Record parameter key = value (a repeated key keeps the last value). */
bool set_param(struct cli_options *opt, int key, double value);

/* -L: "L", "LxL" or "LxLxL" ('x' or 'X'). Sets extent[] and *n (1..3). */
bool get_size(const char *arg, int64_t extent[3], int *n);

#endif
