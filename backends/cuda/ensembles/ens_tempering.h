/*
 * Internal to the CUDA module: tempering on the device (ens_tempering.c), as the module's
 * top and the routing of the plan's calls (ens_batch_steps.c) call it.
 */
#ifndef LATMC_CUDA_ENS_TEMPERING_H
#define LATMC_CUDA_ENS_TEMPERING_H

#include <stdint.h>

#include "backend.h"
#include "box.h"
#include "internal.h"

/* The LATMC_STEP_TEMPER_STATE request (lib/backend.h, struct latmc_ens_temper: the state
 * loaded and fetched), the batch's tempering lists (lib/box.h: whole sweeps and
 * LATMC_STEP_EXCHANGE calls, each with device_map; LATMC_EUNSUPPORTED, nothing done, where
 * the members' batch cannot run them), and the state's end (a lead sim's ens_temper, freed
 * with it). */
struct cuda_ens_temper;
int cuda_ens_temper(latmc_sim *const *members, int n_members, struct latmc_ens_temper *job);
int cuda_ens_temper_run_steps(const struct latmc_step_call *calls, int n_calls,
                              uint64_t *accepted, uint64_t *attempted);
void cuda_ens_temper_free(struct cuda_ens_temper *t);

#endif
