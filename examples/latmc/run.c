/* latmc front end — the sweep/measure/checkpoint loop. */
#include <stdio.h>
#include <string.h>

#include "checkpoint.h"
#include "cluster.h"
#include "interrupt.h"
#include "run.h"
#include "timer.h"

/* Chunks of sweeps between checks of the clock, the progress bar and Ctrl-C. */
#define CHUNK_TARGET_S 0.03
#define CHUNK_MAX      (UINT64_C(1) << 30)
/* The --csv stream reaches the file at least this often (and before every checkpoint). */
#define SERIES_FLUSH_S 0.5

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* What one run carries around. */
struct loop {
    latmc_sim *sim;
    const struct run_plan *plan;
    struct observables *obs;
    struct progress *pg;
    struct run_stats *st;
    struct failure *f;
    uint64_t s;         /* the sim's sweep count */
    uint64_t chunk;     /* sweeps per call, adapted to CHUNK_TARGET_S */
    uint64_t next_save; /* sweep count of the next periodic checkpoint; UINT64_MAX: none */
    double t_flush;     /* when the --csv stream was last flushed */
    unsigned failed_in_a_row; /* periodic checkpoints failed since the last good one */
};

/* n sweeps (tuning epsilon if asked and thermalizing), timed; adapts the chunk size. */
static int timed_sweeps(struct loop *lp, uint64_t n, bool tune)
{
    double t0 = timer_now();
    int rc = tune ? latmc_sim_tune_epsilon(lp->sim, lp->plan->tune_target, n)
                  : latmc_sim_sweep(lp->sim, n);
    /* the slowest process's time: every process sizes its chunks alike */
    double dt = cluster_max_double(timer_now() - t0);
    lp->st->sweep_s += dt;
    if (rc != LATMC_OK)
        return failure_set(lp->f, rc, latmc_sim_last_error(lp->sim),
                           tune ? "sweeping (tuning epsilon)" : "sweeping");
    lp->s += n;
    lp->st->saved = false;
    /* only a full chunk says something about the chunk size */
    if (n >= lp->chunk) {
        if (dt < 0.5 * CHUNK_TARGET_S && lp->chunk < CHUNK_MAX)
            lp->chunk *= 2;
        else if (dt > 2.0 * CHUNK_TARGET_S && lp->chunk > 1)
            lp->chunk /= 2;
    }
    return LATMC_OK;
}

static int save(struct loop *lp)
{
    int rc = series_flush(lp->plan->series, 1, lp->f);
    if (rc == LATMC_OK)
        rc = checkpoint_save(lp->sim, lp->obs, lp->plan->therm, lp->plan->every,
                             lp->plan->checkpoint_path, lp->f);
    if (rc == LATMC_OK)
        lp->st->saved = true;
    return rc;
}

/* A periodic checkpoint when one is due (at or after next_save). Its failure does not
 * end the run (see run.h): the error is reported and the run goes on or stops. */
static int maybe_save(struct loop *lp)
{
    if (lp->s < lp->next_save)
        return LATMC_OK;
    uint64_t every = lp->plan->checkpoint_every;
    lp->next_save = (lp->s / every + 1) * every;
    if (save(lp) == LATMC_OK) {
        if (lp->failed_in_a_row > 0) {
            progress_clear(lp->pg);
            fprintf(stderr, "latmc: checkpoint at sweep %llu written again (after %u failed "
                    "tries)\n", (unsigned long long)lp->s, lp->failed_in_a_row);
        }
        lp->failed_in_a_row = 0;
        return LATMC_OK;
    }
    lp->st->checkpoint_failures++;
    /* the first failure of a streak in full; the rest only counted (they come every
     * checkpoint_every sweeps, which may be many per second) */
    if (lp->failed_in_a_row++ > 0 && !lp->plan->stop_on_checkpoint_failure)
        return LATMC_OK;
    progress_clear(lp->pg);
    fprintf(stderr, "latmc: warning: checkpoint at sweep %llu failed: ",
            (unsigned long long)lp->s);
    failure_print_detail(lp->f, stderr);
    if (lp->plan->stop_on_checkpoint_failure) {
        fprintf(stderr, "latmc: stopping (--checkpoint-failure stop); the previous "
                "checkpoint, if any, is unchanged\n");
        lp->st->checkpoint_stopped = true;
    } else {
        fprintf(stderr, "latmc: the previous checkpoint, if any, is unchanged; going on, "
                "trying again every %llu sweeps (next at sweep %llu)\n",
                (unsigned long long)every, (unsigned long long)lp->next_save);
    }
    return LATMC_OK;
}

/* Stop here? (a signal, or a failed checkpoint with the stop policy) */
static bool stop_requested(struct loop *lp)
{
    if (interrupt_requested())
        lp->st->interrupted = true;
    return lp->st->interrupted || lp->st->checkpoint_stopped;
}

static int thermalize(struct loop *lp)
{
    const uint64_t therm = lp->plan->therm;
    const bool tune = lp->plan->tune_target > 0.0;
    while (lp->s < therm) {
        if (stop_requested(lp))
            return LATMC_OK;
        uint64_t end = lp->s + min_u64(lp->chunk, therm - lp->s);
        if (lp->next_save < end)
            end = lp->next_save;
        if (tune) {
            /* whole tuning blocks from sweep 0, so that a run resumed from any
             * checkpoint tunes exactly as the uninterrupted one */
            end = (end + TUNE_BLOCK - 1) / TUNE_BLOCK * TUNE_BLOCK;
            end = min_u64(end, therm);
        }
        int rc = timed_sweeps(lp, end - lp->s, tune);
        if (rc == LATMC_OK)
            rc = maybe_save(lp);
        if (rc != LATMC_OK)
            return rc;
        progress_update(lp->pg, "therm", lp->s);
    }
    return LATMC_OK;
}

static int measure(struct loop *lp)
{
    const uint64_t therm = lp->plan->therm, every = lp->plan->every;
    const uint64_t total = therm + lp->plan->sweeps;
    while (lp->s < total) {
        if (stop_requested(lp))
            return LATMC_OK;
        uint64_t next_measurement = therm + ((lp->s - therm) / every + 1) * every;
        uint64_t end = min_u64(min_u64(lp->s + lp->chunk, next_measurement), total);
        end = min_u64(end, lp->next_save);
        int rc = timed_sweeps(lp, end - lp->s, false);
        if (rc == LATMC_OK && (lp->s - therm) % every == 0) {
            rc = observables_measure(lp->obs, lp->sim, lp->f);
            if (rc == LATMC_OK)
                rc = series_append(lp->plan->series, lp->obs, lp->f);
        }
        if (rc == LATMC_OK)
            rc = maybe_save(lp);
        if (rc == LATMC_OK && timer_now() - lp->t_flush >= SERIES_FLUSH_S) {
            lp->t_flush = timer_now();
            rc = series_flush(lp->plan->series, 0, lp->f);
        }
        if (rc != LATMC_OK)
            return rc;
        progress_update(lp->pg, "measure", lp->s);
    }
    return LATMC_OK;
}

int run_simulation(latmc_sim *sim, const struct run_plan *plan, struct observables *obs,
                   struct progress *pg, struct run_stats *st, struct failure *f)
{
    memset(st, 0, sizeof *st);
    double t0 = timer_now();
    struct loop lp = { sim, plan, obs, pg, st, f, 0, 1, UINT64_MAX, t0, 0 };
    int rc = latmc_sim_sweep_count(sim, &lp.s);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_sim_last_error(sim), "reading the sweep count");
    st->first_sweep = lp.s;
    if (plan->checkpoint_path != NULL && plan->checkpoint_every > 0)
        lp.next_save = (lp.s / plan->checkpoint_every + 1) * plan->checkpoint_every;

    progress_update(pg, lp.s < plan->therm ? "therm" : "measure", lp.s);
    rc = thermalize(&lp);
    if (rc == LATMC_OK && !st->interrupted) {
        /* the acceptance is pooled over the measured sweeps: count from their start
         * (a run resumed inside them carries the counts in its checkpoint) */
        if (st->first_sweep <= plan->therm) {
            rc = latmc_sim_reset_acceptance(sim);
            if (rc != LATMC_OK)
                rc = failure_set(f, rc, latmc_sim_last_error(sim), "resetting the acceptance");
        }
        st->measuring = rc == LATMC_OK;
        if (rc == LATMC_OK)
            rc = measure(&lp);
    }
    if (rc == LATMC_OK && st->measuring)
        rc = observables_pool_acceptance(obs, sim, f);
    /* the final checkpoint: at the end, or where a signal stopped the run (not after a
     * failed one with the stop policy: the previous good one stays) */
    if (rc == LATMC_OK && plan->checkpoint_path != NULL && !st->saved &&
        !st->checkpoint_stopped && save(&lp) != LATMC_OK)
        st->final_save_failed = true;
    progress_clear(pg);
    st->last_sweep = lp.s;
    st->wall_s = timer_now() - t0;
    return rc;
}
