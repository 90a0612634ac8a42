/*
 * latmc front end — what failed, for the one error line the program prints before it
 * exits: "latmc: <what>: <latmc_strerror(code)>: <library detail>".
 */
#ifndef LATMC_CLI_FAILURE_H
#define LATMC_CLI_FAILURE_H

#include <stdio.h>

struct failure {
    int code;          /* LATMC_E* status */
    char what[320];    /* what the program was doing */
    char detail[512];  /* the library's detail string (may be empty) */
};

/* Record a failure; detail may be NULL. Returns code. */
int failure_set(struct failure *f, int code, const char *detail, const char *what_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Print the recorded failure without the "latmc: " prefix (to continue a line). */
void failure_print_detail(const struct failure *fl, FILE *f);

/* Print the recorded failure as one line on f. */
void failure_print(const struct failure *fl, FILE *f);

#endif
