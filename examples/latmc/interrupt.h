/*
 * latmc front end — stopping early on a signal: SIGINT (Ctrl-C), SIGTERM (what SLURM, PBS
 * and `timeout` send before they kill) and SIGUSR1 (what SLURM can send ahead of the
 * time limit, --signal=USR1@T) all ask the run to stop after the current chunk of sweeps;
 * the results so far are then printed and a checkpoint saved (with --checkpoint), and
 * latmc exits with 128 + the signal's number (130, 143, 138 on Linux). The handler is
 * reset after the first signal: a second one acts as usual (kills).
 */
#ifndef LATMC_CLI_INTERRUPT_H
#define LATMC_CLI_INTERRUPT_H

#include <stdbool.h>

void interrupt_install(void);
bool interrupt_requested(void);
/* The signal that stopped the run (0: none). */
int interrupt_signal(void);

#endif
