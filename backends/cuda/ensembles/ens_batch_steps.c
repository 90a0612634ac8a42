/*
 * Ensembles as a batch layout of the executor (lib/box.h, struct latmc_step_call::members;
 * doc/ensembles.md "Execution"): the members of an ensemble are boxes whose halo is their
 * own wrap, and the core's plan (lib/plan.c, latmc_plan_sweep_batch) hands the CUDA
 * run_steps one call per step for all of them, or whole sweeps in one call where the
 * batch declares them (LATMC_STEP_CAP_BATCH_SWEEPS: fused multi-sweep kernels, or a
 * launch a colour), with exchange
 * rounds between them where it declares parallel tempering on the device
 * (LATMC_STEP_CAP_BATCH_EXCHANGE: lists whose calls carry device_map), and the batch's
 * requests as calls alone (LATMC_STEP_MEASURE, _OVERLAPS, _SWAP_PARAMS, _TEMPER_STATE:
 * lib/box.h). This file routes those calls, the capability question and the release of a
 * batch with its first member to the model's batch (Ising, Heisenberg, Potts, phi^4),
 * through one table, and Swendsen-Wang members (Ising, Potts) to
 * the cluster steps' batch (clusters/cuda_sw_batch.c); the batches keep their members' device
 * tables between calls. The table also names each model's opt-out variable, read when a sim is
 * made (cuda_backend.c), so that the module's top names no model.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_batch.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_exec.h"
#include "ens_batch_steps.h"
#include "heisenberg_batch.h"
#include "ising_batch.h"
#include "phi4_batch.h"
#include "potts_batch.h"
#include "cuda_sw_batch.h"
#include "model.h"

/* The models that run as a batch: their capabilities for a sim, their list of calls, their
 * members' sums, the optional operations and the variable that declines the batch. */
struct ens_batch_model {
    int model;
    /* LATMC_ENS_<MODEL>_BATCH=0 when a sim is made: its members run one by one (NULL: no
     * such variable) */
    const char *one_by_one_env;
    unsigned (*caps)(const latmc_sim *sim);
    int (*run_steps)(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                     uint64_t *attempted);
    /* optional: the lists of a tempering sweep on the device (device_map) */
    int (*temper_steps)(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                        uint64_t *attempted);
    /* LATMC_STEP_MEASURE: every member's sums (n_members >= 1) */
    int (*measure_all)(latmc_sim *const *members, int n_members, void *sums);
    /* optional: a tempering swap's move (LATMC_STEP_SWAP_PARAMS) where the model keeps more
     * than the boxes' tables (NULL: the boxes swap their tables) */
    int (*swap_params)(latmc_sim *a, latmc_sim *b);
    /* optional: LATMC_STEP_OVERLAPS on the device (NULL: none) */
    int (*overlaps)(latmc_sim *const *members, int n_members, const int32_t *pairs,
                    int n_pairs, int64_t *q, int64_t *ql);
};

static const struct ens_batch_model batch_models[] = {
    { LATMC_MODEL_ISING, NULL, cuda_ens_ising_caps, cuda_ens_ising_run_steps,
      cuda_ens_temper_run_steps, cuda_ens_ising_measure_all, cuda_ens_ising_swap_params,
      cuda_ens_ising_overlaps },
    { LATMC_MODEL_HEISENBERG, "LATMC_ENS_HEIS_BATCH", cuda_ens_heisenberg_caps,
      cuda_ens_heisenberg_run_steps, cuda_ens_temper_run_steps, cuda_ens_heisenberg_measure_all,
      NULL, NULL },
    { LATMC_MODEL_POTTS, "LATMC_ENS_POTTS_BATCH", cuda_ens_potts_caps, cuda_ens_potts_run_steps,
      NULL, cuda_ens_potts_measure_all, NULL, NULL },
    { LATMC_MODEL_PHI4, "LATMC_ENS_PHI4_BATCH", cuda_ens_phi4_caps, cuda_ens_phi4_run_steps,
      cuda_ens_temper_run_steps, cuda_ens_phi4_measure_all, NULL, NULL },
};

static const struct ens_batch_model *batch_model(int model)
{
    for (size_t k = 0; k < sizeof batch_models / sizeof batch_models[0]; k++)
        if (batch_models[k].model == model)
            return &batch_models[k];
    return NULL;
}

/* The model's batch capabilities, and the batch's requests whatever its steps take (the
 * members may be at different sweep counts): every member's sums, tempering swaps' moves,
 * pairs' overlaps where the model has them. */
unsigned cuda_ens_batch_caps(const latmc_sim *sim)
{
    /* Swendsen-Wang and Wolff members (Ising, Potts): the cluster steps' batch
     * (clusters/cuda_sw_batch.c), their sums too (not their swaps: the core swaps cluster
     * members the long way) */
    if (cuda_ens_sw_kind(sim->desc.model, sim->desc.algorithm))
        return cuda_ens_sw_caps(sim) | LATMC_STEP_CAP_BATCH_MEASURE;
    const struct ens_batch_model *m = batch_model(sim->desc.model);
    return m ? m->caps(sim) | LATMC_STEP_CAP_BATCH_MEASURE | LATMC_STEP_CAP_BATCH_SWAP |
                   (m->overlaps ? LATMC_STEP_CAP_BATCH_OVERLAPS : 0u)
             : 0u;
}

/*
 * A LATMC_STEP_SWAP_PARAMS call: tempering swaps moved each pair's parameters and tables
 * from a to b and from b to a (lib/ens_exchange.c), so their device tables change places
 * too (two pointers, equal sizes, nothing in flight: every operation of the module returns
 * drained) and the model's host-side forms (Ising: the packed thresholds) are rebuilt from
 * the swapped tables -- what params_changed gives, without a copy and a synchronisation
 * per member. Every pair is checked before any moves (all or nothing).
 */
static int swap_params(latmc_sim *const *members, const struct latmc_batch_request *r)
{
    const struct ens_batch_model *m = batch_model(members[0]->desc.model);
    for (int k = 0; k < r->n_pairs; k++) {
        const latmc_sim *a = members[r->pairs[2 * k]], *b = members[r->pairs[2 * k + 1]];
        const struct cuda_sim *ca = cuda_sim_of(a), *cb = cuda_sim_of(b);
        /* a model's LATMC_ENS_<MODEL>_BATCH=0 (or LATMC_ENS_SW_BATCH=0) when either member
         * was made (cuda_ens_batch_declined): those members the long way too (the tests'
         * reference; members made at different times may differ) */
        if (ca->ens_one_by_one || cb->ens_one_by_one || a->desc.model != m->model ||
            b->desc.model != m->model || !cuda_exec_can_swap_tables(ca->exec, cb->exec))
            return LATMC_EUNSUPPORTED;
    }
    for (int k = 0; k < r->n_pairs; k++) {
        latmc_sim *a = members[r->pairs[2 * k]], *b = members[r->pairs[2 * k + 1]];
        /* the model's own (Ising: its batches patched too), else the one executor's boxes
         * swap their tables */
        const int st = m->swap_params ? m->swap_params(a, b)
                                      : cuda_exec_swap_tables(a, cuda_sim_of(a)->exec, b,
                                                              cuda_sim_of(b)->exec);
        /* checked above: never; were it to, the core's set_param of every pair (its answer
         * to a failed request) uploads each member's tables again */
        if (st != LATMC_OK)
            return cuda_core->fail(LATMC_EDEVICE, "CUDA: a tempering swap's tables could not "
                                   "move after the check");
    }
    return LATMC_OK;
}

/* A LATMC_STEP_MEASURE, _OVERLAPS, _SWAP_PARAMS or _TEMPER_STATE call (a list alone). */
static int batch_request(const struct latmc_step_call *call)
{
    latmc_sim *const *members = call->members;
    const int n = call->n_members;
    const struct latmc_batch_request *r = call->request;
    const struct ens_batch_model *m = batch_model(members[0]->desc.model);
    if (call->step.kind == LATMC_STEP_TEMPER_STATE) /* ens_tempering.c */
        return cuda_ens_temper(members, n, r->temper);
    if (call->step.kind == LATMC_STEP_SWAP_PARAMS)
        return m && !cuda_ens_sw_kind(members[0]->desc.model, members[0]->desc.algorithm)
                   ? swap_params(members, r)
                   : LATMC_EUNSUPPORTED;
    if (call->step.kind == LATMC_STEP_OVERLAPS) {
        if (!m || !m->overlaps)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no device overlaps for these "
                                   "members");
        return m->overlaps(members, n, r->pairs, r->n_pairs, r->q, r->ql);
    }
    if (cuda_ens_sw_kind(members[0]->desc.model, members[0]->desc.algorithm))
        return cuda_ens_sw_measure_all(members, n, r->sums); /* clusters/cuda_sw_batch.c */
    if (!m)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched measure for these members");
    return m->measure_all(members, n, r->sums);
}

int cuda_ens_run_steps(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                       uint64_t *attempted)
{
    const int kind = calls[0].step.kind;
    if (kind == LATMC_STEP_MEASURE || kind == LATMC_STEP_OVERLAPS ||
        kind == LATMC_STEP_SWAP_PARAMS || kind == LATMC_STEP_TEMPER_STATE) {
        if (n_calls != 1 || !calls[0].request)
            return cuda_core->fail(LATMC_EINVAL, "CUDA: a batch's request is a list alone, with "
                                   "where it writes");
        return batch_request(&calls[0]);
    }
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

bool cuda_ens_batch_declined(int model, int algorithm)
{
    const struct ens_batch_model *m = batch_model(model);
    const char *one_by_one = m && m->one_by_one_env ? getenv(m->one_by_one_env) : NULL;
    bool declined = one_by_one && strcmp(one_by_one, "0") == 0;
    /* Swendsen-Wang and Wolff members' batch (Ising, Potts; clusters/cuda_sw_batch.c):
     * declined with LATMC_ENS_SW_BATCH=0. Not the embedded clusters' models: their members
     * sweep one by one anyway, and LATMC_ENS_HEIS_BATCH / _PHI4_BATCH keep ruling their
     * swaps (swap_params). */
    if (cuda_ens_sw_kind(model, algorithm)) {
        const char *sw = getenv("LATMC_ENS_SW_BATCH");
        declined = sw && strcmp(sw, "0") == 0;
    }
    return declined;
}

/* What the module keeps for the batches led by `sim` (the driver's: Heisenberg, Potts,
 * phi^4, Swendsen-Wang; Ising's is its leader's own, freed with it), freed: the sim is
 * being destroyed. */
void cuda_ens_release_led(const latmc_sim *sim)
{
    cuda_batch_release_led(sim);
}
