/*
 * latmc front end — the run: thermalization sweeps (tuning epsilon if asked), then
 * measured sweeps with a measurement every `every` sweeps, in chunks of about 30 ms so
 * that the progress bar and Ctrl-C stay responsive; checkpoints on the way.
 *
 * Everything is placed by the sim's sweep count s, counted from its creation: sweeps
 * 0..therm-1 thermalize, a measurement follows every sweep with (s - therm) a positive
 * multiple of every, checkpoints fall on multiples of checkpoint_every. A run resumed
 * from a checkpoint therefore continues exactly where the saved one stood.
 */
#ifndef LATMC_CLI_RUN_H
#define LATMC_CLI_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include <latmc/latmc.h>

#include "failure.h"
#include "observables.h"
#include "progress.h"
#include "series_out.h"

/* latmc_sim_tune_epsilon() adapts epsilon after every block of this many sweeps. */
#define TUNE_BLOCK 10

struct run_plan {
    uint64_t therm;              /* thermalization sweeps */
    uint64_t sweeps;             /* measured sweeps */
    uint64_t every;              /* measurement interval, >= 1 */
    double tune_target;          /* > 0: tune epsilon towards it while thermalizing */
    const char *checkpoint_path; /* NULL: no checkpoints */
    uint64_t checkpoint_every;   /* 0: only at the end (and when interrupted) */
    bool stop_on_checkpoint_failure; /* else: warn, keep the last good one, retry */
    struct series_out *series;   /* --csv stream (its target NULL: none) */
};

struct run_stats {
    uint64_t first_sweep; /* the sim's sweep count when this run began (resumed: > 0) */
    uint64_t last_sweep;  /* ... and when it ended */
    bool measuring;       /* the measurement phase began (acceptance counted from there) */
    double wall_s;        /* this run: sweeps, measurements, checkpoints */
    double sweep_s;       /* inside latmc_sim_sweep() / latmc_sim_tune_epsilon() only */
    bool interrupted;     /* stopped by a signal (interrupt.h) */
    bool saved;           /* a checkpoint was written at last_sweep */
    unsigned checkpoint_failures; /* periodic checkpoints that failed */
    bool checkpoint_stopped;      /* stopped after a failed checkpoint (stop policy) */
    bool final_save_failed;       /* the checkpoint at the end failed: *f says why */
};

/* Run the plan on sim (which has a configuration) from its current sweep count, which
 * must not be past therm + sweeps. Returns LATMC_OK, also when interrupted
 * (stats->interrupted), when a checkpoint failed (stats: checkpoint_failures,
 * checkpoint_stopped, final_save_failed, with *f describing the last failure), or a
 * failure of the run itself described in *f (no results then).
 *
 * A failed periodic checkpoint is reported on stderr and, by default, the run goes on:
 * the previous checkpoint file stays as it was (the library writes aside and renames),
 * and the next one is tried at the next multiple of checkpoint_every. With
 * stop_on_checkpoint_failure the run stops there as if interrupted. */
int run_simulation(latmc_sim *sim, const struct run_plan *plan, struct observables *obs,
                   struct progress *pg, struct run_stats *stats, struct failure *f);

#endif
