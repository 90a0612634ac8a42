/*
 * latmc front end — the names of the library's enum values as the command line and the
 * report spell them ("ising", "metropolis", "cuda", ...), in both directions.
 */
#ifndef LATMC_CLI_NAMES_H
#define LATMC_CLI_NAMES_H

#include <stdbool.h>

/* One name <-> value pair; tables end with a { NULL, 0 } entry. */
struct name_value {
    const char *name;
    int value;
};

const struct name_value *names_models(void);       /* enum latmc_model, the library's */
extern const struct name_value names_algorithm[]; /* enum latmc_algorithm */
extern const struct name_value names_device[];    /* enum latmc_device */
extern const struct name_value names_start[];     /* enum latmc_init */
extern const struct name_value names_couplings[]; /* enum latmc_couplings */
extern const struct name_value names_precision[]; /* enum latmc_precision */

/* Look name up in table (exact match); true and *value on success. */
bool names_lookup(const struct name_value *table, const char *name, int *value);

/* The name of value in table, or `fallback` when it has none. */
const char *names_of(const struct name_value *table, int value, const char *fallback);

/* "a, b, c or d": the names of table, for messages. Static storage; not thread-safe. */
const char *names_list(const struct name_value *table);

#endif
