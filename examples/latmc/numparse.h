/*
 * latmc front end — strict parsing of numbers from the command line: the whole string
 * must be the number ("12abc", "", " 12", "1e3" for an integer are all rejected).
 */
#ifndef LATMC_CLI_NUMPARSE_H
#define LATMC_CLI_NUMPARSE_H

#include <stdbool.h>
#include <stdint.h>

enum num_status {
    NUM_OK = 0,
    NUM_SYNTAX, /* empty, not a number, or trailing characters */
    NUM_RANGE   /* a number, but outside the allowed range */
};

/* Unsigned decimal integer in [lo, hi]; no sign, no spaces. */
enum num_status parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);

/*
 * Real number (strtod syntax, no leading spaces). NaN is always rejected; +-inf only
 * when allow_inf (as "inf"/"infinity"); otherwise overflow is NUM_RANGE.
 */
enum num_status parse_double(const char *s, bool allow_inf, double *out);

#endif
