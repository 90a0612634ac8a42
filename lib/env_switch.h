#ifndef LATMC_ENV_SWITCH_H
#define LATMC_ENV_SWITCH_H
/*
 * The environment's switches (doc/environment.md): variables that pick between code paths
 * or size a buffer. Each reader compares the value it is given; a value no reader knows
 * would silently be taken as unset, so a test or a user asking for a path by a misspelt
 * value would run the other one. The core (lib/env_switches.c) and each backend module
 * keep a table of the switches they read and fail a sim's creation on a value outside it.
 * Header-only: a module never links liblatmc.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct latmc_env_switch {
    const char *name;
    /* the values it takes, '|'-separated ("bits|packed"); NULL: a positive decimal integer */
    const char *values;
};

/* Is `value` one of the '|'-separated `values`? */
static inline bool latmc_env_value_listed(const char *value, const char *values)
{
    const size_t n = strlen(value);
    for (const char *p = values; *p;) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, value, n) == 0)
            return true;
        if (!bar)
            break;
        p = bar + 1;
    }
    return false;
}

static inline bool latmc_env_positive_integer(const char *value)
{
    if (*value < '0' || *value > '9')
        return false;
    char *end = NULL;
    const unsigned long long v = strtoull(value, &end, 10);
    return end && *end == '\0' && v > 0;
}

/* A value in a message: its first LATMC_ENV_SHOWN characters, then latmc_env_shown_tail's
 * "..." where there are more (a long value would push the values a switch takes out of the
 * message's fixed size). */
#define LATMC_ENV_SHOWN 64
static inline const char *latmc_env_shown_tail(const char *value)
{
    return strlen(value) > LATMC_ENV_SHOWN ? "..." : "";
}

/* The first switch of table[0..n) set to a value it does not take (*value: that value),
 * or NULL. An empty value counts as unset, as every reader takes it. */
static inline const struct latmc_env_switch *
latmc_env_unknown(const struct latmc_env_switch *table, size_t n, const char **value)
{
    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(table[i].name);
        if (!v || !*v)
            continue;
        if (table[i].values ? !latmc_env_value_listed(v, table[i].values)
                            : !latmc_env_positive_integer(v)) {
            *value = v;
            return &table[i];
        }
    }
    return NULL;
}

#endif
