/* latmc front end — strict number parsing. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "numparse.h"

enum num_status parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (s == NULL || !isdigit((unsigned char)s[0]))
        return NUM_SYNTAX; /* also rejects "", "-1", "+1", " 1" */
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end != '\0')
        return NUM_SYNTAX;
    if (errno == ERANGE || (uint64_t)v < lo || (uint64_t)v > hi)
        return NUM_RANGE;
    *out = (uint64_t)v;
    return NUM_OK;
}

enum num_status parse_double(const char *s, bool allow_inf, double *out)
{
    if (s == NULL || s[0] == '\0' || isspace((unsigned char)s[0]))
        return NUM_SYNTAX;
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s || *end != '\0')
        return NUM_SYNTAX;
    if (isnan(v))
        return NUM_SYNTAX;
    if (isinf(v)) {
        if (errno == ERANGE || !allow_inf)
            return NUM_RANGE; /* overflow ("1e999"), or "inf" where it is not allowed */
    }
    /* Underflow (ERANGE with a tiny result) is accepted: the value is as close as it gets. */
    *out = v;
    return NUM_OK;
}
