/*
 * latmc front end — the progress bar on stderr: phase, bar, percent, sweeps done of the
 * total, sweeps per second and ETA, redrawn in place at most 10 times per second. Disabled (prints nothing at
 * all) unless enabled at init, which the caller does only when stderr is a terminal.
 */
#ifndef LATMC_CLI_PROGRESS_H
#define LATMC_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
    bool enabled;
    bool visible;     /* a bar is on the terminal line now */
    double t_start;   /* timer_now() at init */
    double t_drawn;   /* last redraw */
    uint64_t first;   /* sweeps done before this run (resumed from a checkpoint) */
    uint64_t total;   /* sweeps in all phases */
};

void progress_init(struct progress *p, bool enabled, uint64_t first, uint64_t total_sweeps);

/* `done` sweeps of `total` are finished (counted from the start, also before a resume),
 * in phase `phase` ("therm", "measure"). Redraws when 0.1 s have passed since the last
 * redraw; the rate and the ETA count only this run's sweeps. */
void progress_update(struct progress *p, const char *phase, uint64_t done);

/* Erase the bar (before other output on stderr, and at the end). */
void progress_clear(struct progress *p);

#endif
