/*
 * Ensembles as a batch layout of the executor (lib/box.h, struct latmc_step_call::members;
 * doc/ensembles.md "Execution"): the members of an ensemble are boxes whose halo is their
 * own wrap, and the core's plan (lib/plan.c, latmc_plan_sweep_batch) hands the CUDA
 * run_steps one call per step for all of them, or whole sweeps in one call where the
 * batch declares the fused multi-sweep kernels (LATMC_STEP_CAP_BATCH_SWEEPS), with exchange
 * rounds between them where it declares parallel tempering on the device
 * (LATMC_STEP_CAP_BATCH_EXCHANGE: lists whose calls carry device_map). This file routes
 * those calls and the capability question to the model's batch (Ising, Heisenberg, Potts,
 * phi^4), through one table, and Swendsen-Wang members (Ising, Potts) to the cluster steps'
 * batch (ens_sw_batch.c); the batches keep their members' device tables between calls.
 */
#include <stddef.h>

#include "backend.h"
#include "cuda_check.h"
#include "ens_heisenberg_batch.h"
#include "ens_ising_batch.h"
#include "ens_phi4_batch.h"
#include "ens_potts_batch.h"
#include "ens_sw_batch.h"
#include "model.h"

/* The models that run as a batch: their capabilities for a sim, their list of calls. */
struct ens_batch_model {
    int model;
    unsigned (*caps)(const latmc_sim *sim);
    int (*run_steps)(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                     uint64_t *attempted);
    /* optional: the lists of a tempering sweep on the device (device_map) */
    int (*temper_steps)(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                        uint64_t *attempted);
};

static const struct ens_batch_model batch_models[] = {
    { LATMC_MODEL_ISING, cuda_ens_ising_caps, cuda_ens_ising_run_steps,
      cuda_ens_temper_run_steps },
    { LATMC_MODEL_HEISENBERG, cuda_ens_heis_caps, cuda_ens_heis_run_steps,
      cuda_ens_temper_run_steps },
    { LATMC_MODEL_POTTS, cuda_ens_potts_caps, cuda_ens_potts_run_steps, NULL },
    { LATMC_MODEL_PHI4, cuda_ens_phi4_caps, cuda_ens_phi4_run_steps,
      cuda_ens_temper_run_steps },
};

static const struct ens_batch_model *batch_model(int model)
{
    for (size_t k = 0; k < sizeof batch_models / sizeof batch_models[0]; k++)
        if (batch_models[k].model == model)
            return &batch_models[k];
    return NULL;
}

unsigned cuda_ens_batch_caps(const latmc_sim *sim)
{
    /* Swendsen-Wang and Wolff members (Ising, Potts): the cluster steps' batch
     * (ens_sw_batch.c) */
    if (cuda_ens_sw_kind(sim->desc.model, sim->desc.algorithm))
        return cuda_ens_sw_caps(sim);
    const struct ens_batch_model *m = batch_model(sim->desc.model);
    return m ? m->caps(sim) : 0u;
}

int cuda_ens_run_steps(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                       uint64_t *attempted)
{
    if (cuda_ens_sw_kind(calls[0].members[0]->desc.model, calls[0].members[0]->desc.algorithm))
        return cuda_ens_sw_run_steps(calls, n_calls, accepted, attempted);
    const struct ens_batch_model *m = batch_model(calls[0].members[0]->desc.model);
    if (!m) /* the core asks only where the caps said so */
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for %s members",
                               calls[0].members[0]->model->name);
    if (calls[0].device_map) {
        if (!m->temper_steps)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device for "
                                   "%s members", calls[0].members[0]->model->name);
        return m->temper_steps(calls, n_calls, accepted, attempted);
    }
    return m->run_steps(calls, n_calls, accepted, attempted);
}
