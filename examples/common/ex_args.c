/* liblatmc examples — strict parsing of numeric command-line values. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_args.h"

const char *ex_arg_value(int argc, char **argv, int *i)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s: option %s needs a value\n", argv[0], argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

bool ex_parse_u64(const char *opt, const char *text, uint64_t lo, uint64_t hi, uint64_t *out)
{
    /* strtoull accepts "-1" (wrapping it) and leading blanks: insist on a digit first. */
    if (text == NULL || !isdigit((unsigned char)text[0])) {
        fprintf(stderr, "%s: '%s' is not a non-negative integer\n", opt, text ? text : "");
        return false;
    }
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end != '\0' || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "%s: '%s' is not an integer in [%llu, %llu]\n", opt, text,
                (unsigned long long)lo, (unsigned long long)hi);
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

bool ex_parse_int(const char *opt, const char *text, int lo, int hi, int *out)
{
    errno = 0;
    char *end = NULL;
    long v = text != NULL ? strtol(text, &end, 10) : 0;
    if (text == NULL || end == text || *end != '\0' || errno == ERANGE || v < lo || v > hi) {
        fprintf(stderr, "%s: '%s' is not an integer in [%d, %d]\n", opt, text ? text : "",
                lo, hi);
        return false;
    }
    *out = (int)v;
    return true;
}

bool ex_parse_double(const char *opt, const char *text, bool allow_inf, double *out)
{
    errno = 0;
    char *end = NULL;
    double v = text != NULL ? strtod(text, &end) : NAN;
    if (text == NULL || end == text || *end != '\0' || isnan(v) ||
        (isinf(v) && (!allow_inf || errno == ERANGE))) {
        fprintf(stderr, "%s: '%s' is not a %snumber\n", opt, text ? text : "",
                allow_inf ? "" : "finite ");
        return false;
    }
    *out = v;
    return true;
}

int ex_parse_int_list(const char *opt, const char *text, int lo, int hi, int *out, int max)
{
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        fprintf(stderr, "%s: list too long\n", opt);
        return 0;
    }
    strcpy(buf, text);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == max) {
            fprintf(stderr, "%s: at most %d values\n", opt, max);
            return 0;
        }
        if (!ex_parse_int(opt, tok, lo, hi, &out[n]))
            return 0;
        n++;
    }
    if (n == 0)
        fprintf(stderr, "%s: empty list\n", opt);
    return n;
}

int ex_parse_double_list(const char *opt, const char *text, double *out, int max)
{
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        fprintf(stderr, "%s: list too long\n", opt);
        return 0;
    }
    strcpy(buf, text);
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok != NULL;
         tok = strtok_r(NULL, ",", &save)) {
        if (n == max) {
            fprintf(stderr, "%s: at most %d values\n", opt, max);
            return 0;
        }
        if (!ex_parse_double(opt, tok, false, &out[n]))
            return 0;
        n++;
    }
    if (n == 0)
        fprintf(stderr, "%s: empty list\n", opt);
    return n;
}
