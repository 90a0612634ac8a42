/*
 * latmc front end — the run: thermalization sweeps, then measured sweeps with a
 * measurement every `every` sweeps, in chunks of latmc_sim_sweep() of about 30 ms so
 * the progress bar and Ctrl-C stay responsive.
 */
#ifndef LATMC_CLI_RUN_H
#define LATMC_CLI_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <latmc/latmc.h>

#include "failure.h"
#include "observables.h"
#include "progress.h"

struct run_plan {
    uint64_t therm;  /* thermalization sweeps */
    uint64_t sweeps; /* measured sweeps */
    uint64_t every;  /* measurement interval, >= 1 */
};

struct run_stats {
    uint64_t therm_done;
    uint64_t sweeps_done;
    double wall_s;   /* whole run: sweeps and measurements */
    double sweep_s;  /* inside latmc_sim_sweep() only */
    bool interrupted;
};

/* Run the plan on sim (which has a configuration). Returns LATMC_OK, also when
 * interrupted (stats->interrupted), or a failure described in *f. */
int run_simulation(latmc_sim *sim, const struct run_plan *plan, struct observables *obs,
                   struct progress *pg, struct run_stats *stats, struct failure *f);

#endif
