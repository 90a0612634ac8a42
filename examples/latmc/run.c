/* latmc front end — the sweep/measure loop. */
#include <string.h>

#include "interrupt.h"
#include "run.h"
#include "timer.h"

/* Chunks of sweeps between checks of the clock, the progress bar and Ctrl-C. */
#define CHUNK_TARGET_S 0.03
#define CHUNK_MAX      (UINT64_C(1) << 30)

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Sweep n times, timing it, and adapt *chunk towards CHUNK_TARGET_S per call. */
static int timed_sweeps(latmc_sim *sim, uint64_t n, uint64_t *chunk, struct run_stats *st,
                        struct failure *f)
{
    double t0 = timer_now();
    int rc = latmc_sim_sweep(sim, n);
    double dt = timer_now() - t0;
    st->sweep_s += dt;
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_sim_last_error(sim), "sweeping");
    /* only a full chunk says something about the chunk size */
    if (n == *chunk) {
        if (dt < 0.5 * CHUNK_TARGET_S && *chunk < CHUNK_MAX)
            *chunk *= 2;
        else if (dt > 2.0 * CHUNK_TARGET_S && *chunk > 1)
            *chunk /= 2;
    }
    return LATMC_OK;
}

int run_simulation(latmc_sim *sim, const struct run_plan *plan, struct observables *obs,
                   struct progress *pg, struct run_stats *st, struct failure *f)
{
    memset(st, 0, sizeof *st);
    double t0 = timer_now();
    uint64_t chunk = 1;
    int rc = LATMC_OK;

    progress_update(pg, "therm", 0);
    while (st->therm_done < plan->therm) {
        if (interrupt_requested()) {
            st->interrupted = true;
            goto done;
        }
        uint64_t n = min_u64(chunk, plan->therm - st->therm_done);
        rc = timed_sweeps(sim, n, &chunk, st, f);
        if (rc != LATMC_OK)
            goto done;
        st->therm_done += n;
        progress_update(pg, "therm", st->therm_done);
    }

    rc = observables_reset_acceptance(obs, sim, f);
    if (rc != LATMC_OK)
        goto done;
    while (st->sweeps_done < plan->sweeps) {
        if (interrupt_requested()) {
            st->interrupted = true;
            goto done;
        }
        uint64_t to_measurement = plan->every - st->sweeps_done % plan->every;
        uint64_t n = min_u64(min_u64(chunk, to_measurement), plan->sweeps - st->sweeps_done);
        rc = timed_sweeps(sim, n, &chunk, st, f);
        if (rc != LATMC_OK)
            goto done;
        st->sweeps_done += n;
        if (st->sweeps_done % plan->every == 0) {
            rc = observables_measure(obs, sim, f);
            if (rc != LATMC_OK)
                goto done;
        }
        progress_update(pg, "measure", plan->therm + st->sweeps_done);
    }

done:
    progress_clear(pg);
    st->wall_s = timer_now() - t0;
    return rc;
}
