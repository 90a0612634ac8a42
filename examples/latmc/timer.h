/* latmc front end — a monotonic clock in seconds. */
#ifndef LATMC_CLI_TIMER_H
#define LATMC_CLI_TIMER_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double timer_now(void);

#endif
