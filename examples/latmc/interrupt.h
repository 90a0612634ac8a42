/*
 * latmc front end — Ctrl-C: the first SIGINT asks the run to stop after the current
 * chunk of sweeps (the results so far are then printed); a second one kills as usual.
 */
#ifndef LATMC_CLI_INTERRUPT_H
#define LATMC_CLI_INTERRUPT_H

#include <stdbool.h>

void interrupt_install(void);
bool interrupt_requested(void);

#endif
