/*
 * latmc front end — --json FILE|-: every input (meta.h) and every result (results.h),
 * the run's figures and timing, as one JSON object (doc/cli.md lists the keys). Written
 * at the end of the run, also of one stopped by a signal or a failed checkpoint.
 */
#ifndef LATMC_CLI_JSON_OUT_H
#define LATMC_CLI_JSON_OUT_H

#include "failure.h"
#include "meta.h"
#include "observables.h"
#include "outfile.h"
#include "results.h"
#include "run.h"

struct json_run {
    const struct run_meta *meta;
    const struct run_stats *stats;
    const struct observables *obs;
    const struct results *res;
    uint64_t therm, every;   /* --therm and --every of this run */
    const char *checkpoint;  /* the checkpoint file written, or NULL */
    int signal;              /* that stopped the run, 0: none */
    int exit_status;         /* latmc's exit status */
};

int json_write(const struct outfile *target, const struct json_run *jr, struct failure *f);

#endif
