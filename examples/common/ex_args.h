/*
 * liblatmc examples — strict parsing of numeric command-line values.
 * Each returns false, after a message on stderr naming the option, when the text is not a
 * number in range: examples refuse bad input instead of running with a misread value.
 */
#ifndef LATMC_EX_ARGS_H
#define LATMC_EX_ARGS_H

#include <stdbool.h>
#include <stdint.h>

/* The value after option argv[*i] (advancing *i), or NULL with a message if there is none. */
const char *ex_arg_value(int argc, char **argv, int *i);

bool ex_parse_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *out);
bool ex_parse_int(const char *opt, const char *text, int lo, int hi, int *out);
/* Finite doubles only; allow_inf also accepts "inf" (e.g. phi^4's Lambda). */
bool ex_parse_double(const char *opt, const char *text, bool allow_inf, double *out);
/* A comma-separated list of at most max ints in [lo, hi], e.g. "16,32,64". Returns the count,
 * 0 on error. */
int ex_parse_int_list(const char *opt, const char *text, int lo, int hi, int *out, int max);

/* The same for finite doubles, e.g. "0.2,0.5,1". */
int ex_parse_double_list(const char *opt, const char *text, double *out, int max);

#endif
