/*
 * latmc front end — the inputs of a run as one list of named values (model, extents,
 * parameters, seed, algorithm, backend, threads, version, ...), read from the sim itself
 * (so a resumed run reports what it really runs) and from the command line. The CSV
 * header comment, --json and --hdf5 all write this list.
 */
#ifndef LATMC_CLI_META_H
#define LATMC_CLI_META_H

#include <stdbool.h>
#include <stdint.h>

#include <latmc/latmc.h>

#include "cli_options.h"

#define META_MAX 48

enum meta_type { META_STR, META_U64, META_F64, META_BOOL, META_EXTENT };

struct meta_item {
    const char *key;
    bool param;          /* a model parameter (JSON: inside "parameters") */
    enum meta_type type;
    char s[1024];
    uint64_t u;
    double d;
    int n;               /* META_EXTENT: number of extents in e */
    int64_t e[3];
};

struct run_meta {
    int n;
    struct meta_item item[META_MAX];
};

void meta_fill(struct run_meta *m, latmc_sim *sim, const struct cli_options *opt,
               const char *start);

/* The value as text ("8x8" for extents, %.17g for reals). */
void meta_value_text(const struct meta_item *it, char *buf, size_t size);

#endif
