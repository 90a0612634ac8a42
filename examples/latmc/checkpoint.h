/*
 * latmc front end — checkpoints: the sim and the program's own state in one file
 * (latmc_sim_save_app_data), replaced in one atomic rename and covered by the
 * checkpoint's checksum. The program's state (the application-data section) is a line
 * naming its format, the columns and the run's --therm and --every, then the
 * accumulator holding every measurement so far (latmc_acc_serialize).
 */
#ifndef LATMC_CLI_CHECKPOINT_H
#define LATMC_CLI_CHECKPOINT_H

#include <stdint.h>

#include <latmc/latmc.h>

#include "failure.h"
#include "observables.h"

/* Save sim and obs's measurements under path. */
int checkpoint_save(latmc_sim *sim, const struct observables *obs, uint64_t therm,
                    uint64_t every, const char *path, struct failure *f);

/* Replace obs's (empty) accumulator by the one saved in path, after checking that it was
 * written for the same columns, --therm and --every, and that it has the number of rows
 * the sim's sweep count implies. Returns 0, EXIT_USAGE (message printed: the command
 * line does not match) or EXIT_LIBRARY (*f says why). */
int checkpoint_load_measurements(const char *path, const latmc_sim *sim, uint64_t therm,
                                 uint64_t every, struct observables *obs, struct failure *f);

#endif
