/*
 * Internal to the CUDA module: the batch layout (lib/box.h; ens_batch_steps.c) of the
 * module's run_steps (the batch's steps and requests) and step_caps, each routed to the
 * members' batch (exec/cuda_batch.h: the model's, or the cluster steps' for Swendsen-Wang
 * and Wolff members), found by cuda_batch_model_of. The module's top (cuda_backend.c)
 * names no model.
 */
#ifndef LATMC_CUDA_ENS_BATCH_STEPS_H
#define LATMC_CUDA_ENS_BATCH_STEPS_H

#include <stdbool.h>
#include <stdint.h>

#include "box.h"
#include "internal.h"

/* A list of calls over a batch of members, and a sim's batch capabilities. */
int cuda_ens_run_steps(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                       uint64_t *attempted);
unsigned cuda_ens_batch_caps(const latmc_sim *sim);
/* What the module keeps for the batches whose member 0 is `sim`, freed (it is being
 * destroyed). */
void cuda_ens_release_led(const latmc_sim *sim);
/* A sim made now declines the batch (its ensembles run one by one: cuda_sim's
 * ens_one_by_one): its batch's variable (LATMC_ENS_<MODEL>_BATCH, LATMC_ENS_SW_BATCH for
 * Swendsen-Wang and Wolff sims of Ising and Potts; none for Ising's local updates) is "0".
 * Read at the sim's creation. */
bool cuda_ens_batch_declined(const latmc_sim *sim);

#endif
