/*
 * latmc front end — the sim a run starts from: a new one built from the command line
 * (sim_setup.c), or one loaded from a checkpoint and checked against the command line
 * (resume.c).
 *
 * Each returns 0 to go on, EXIT_USAGE when the command line is at fault (the message is
 * printed), or EXIT_LIBRARY when the library refused or failed (*f says why).
 */
#ifndef LATMC_CLI_SIM_SETUP_H
#define LATMC_CLI_SIM_SETUP_H

#include <stdint.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "failure.h"
#include "observables.h"

/* Create the sim, set the parameters given, initialise the configuration. */
int setup_fresh(latmc_ctx *ctx, const struct cli_options *opt, latmc_sim **out,
                struct failure *f);

/* Things worth a note on stderr before a run (unless --quiet): Ising Metropolis at
 * beta = 0 (degenerate). */
void setup_notes(latmc_sim *sim, const struct cli_options *opt);

/* --tune-epsilon: does the model have an epsilon to tune? (asked once, with 0 sweeps) */
int setup_check_tuning(latmc_sim *sim, const struct cli_options *opt, struct failure *f);

/* A parameter the sim refused (status rc): the message of a usage error. */
void setup_param_error(latmc_sim *sim, int key, double value, int rc);

/* Load the sim of --resume FILE and check the settings the command line gives against
 * it; also that its sweep count is not past the end of this run. */
int setup_resume(latmc_ctx *ctx, const struct cli_options *opt, latmc_sim **out,
                 struct failure *f);

/* Read back the measurements the resumed run had made (saved in the checkpoint) into
 * obs: 0, EXIT_USAGE (another --therm or --every) or EXIT_LIBRARY. */
int setup_resume_series(latmc_sim *sim, const struct cli_options *opt,
                        struct observables *obs, struct failure *f);

#endif
