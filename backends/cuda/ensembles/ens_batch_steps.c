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
 * batch with its first member to the members' batch (exec/cuda_batch.h, struct
 * cuda_batch_model: the model's, or the cluster steps' for Swendsen-Wang and Wolff
 * members), found by cuda_batch_model_of, so that it names no model; the batches keep
 * their members' device tables between calls. Tempering lists and the tempering state's
 * requests go to exec/cuda_temper.c with the members' struct cuda_temper_model
 * (cuda_temper_model_of) and the lead's slot, device and stream. The batch also names its
 * opt-out variable, read when a sim is made (cuda_backend.c).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_backend.h"
#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_exec.h"
#include "cuda_temper.h"
#include "ens_batch_steps.h"
#include "model.h"

/* The batch's capabilities for a sim, and its requests whatever its steps take (the
 * members may be at different sweep counts): every member's sums, tempering swaps' moves
 * where the batch takes them, pairs' overlaps where it has them. */
unsigned cuda_ens_batch_caps(const latmc_sim *sim)
{
    const struct cuda_batch_model *m = cuda_batch_model_of(sim);
    return m ? m->caps(sim) | LATMC_STEP_CAP_BATCH_MEASURE |
                   (m->swaps ? LATMC_STEP_CAP_BATCH_SWAP : 0u) |
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
static int swap_params(const struct cuda_batch_model *m, latmc_sim *const *members,
                       const struct latmc_batch_request *r)
{
    for (int k = 0; k < r->n_pairs; k++) {
        const latmc_sim *a = members[r->pairs[2 * k]], *b = members[r->pairs[2 * k + 1]];
        const struct cuda_sim *ca = cuda_sim_of(a), *cb = cuda_sim_of(b);
        /* a model's LATMC_ENS_<MODEL>_BATCH=0 (or LATMC_ENS_SW_BATCH=0) when either member
         * was made (cuda_ens_batch_declined): those members the long way too (the tests'
         * reference; members made at different times may differ) */
        if (ca->ens_one_by_one || cb->ens_one_by_one || cuda_batch_model_of(a) != m ||
            cuda_batch_model_of(b) != m || !cuda_exec_can_swap_tables(ca->exec, cb->exec))
            return LATMC_EUNSUPPORTED;
    }
    for (int k = 0; k < r->n_pairs; k++) {
        latmc_sim *a = members[r->pairs[2 * k]], *b = members[r->pairs[2 * k + 1]];
        /* the model's own (Ising: its batches patched too), else the one executor's boxes
         * swap their tables */
        const int st = m->swap_params ? m->swap_params(a, b) : cuda_batch_swap_tables(a, b);
        /* checked above: never; were it to, the core's set_param of every pair (its answer
         * to a failed request) uploads each member's tables again */
        if (st != LATMC_OK)
            return cuda_core->fail(LATMC_EDEVICE, "CUDA: a tempering swap's tables could not "
                                   "move after the check");
    }
    return LATMC_OK;
}

/* Where members[0], the lead, keeps the tempering state of its ensemble (cuda_temper.h). */
static struct cuda_temper_lead temper_lead(latmc_sim *const *members)
{
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    const struct cuda_temper_lead lead = { &cs0->ens_temper, cs0->device, cs0->stream };
    return lead;
}

/* A LATMC_STEP_MEASURE, _OVERLAPS, _SWAP_PARAMS or _TEMPER_STATE call (a list alone). */
static int batch_request(const struct latmc_step_call *call)
{
    latmc_sim *const *members = call->members;
    const int n = call->n_members;
    const struct latmc_batch_request *r = call->request;
    const struct cuda_batch_model *m = cuda_batch_model_of(members[0]);
    if (call->step.kind == LATMC_STEP_TEMPER_STATE) {
        const struct cuda_temper_lead lead = temper_lead(members);
        return cuda_temper_state(cuda_temper_model_of(members[0]), &lead, members, n, r->temper);
    }
    if (call->step.kind == LATMC_STEP_SWAP_PARAMS)
        return m && m->swaps ? swap_params(m, members, r) : LATMC_EUNSUPPORTED;
    if (call->step.kind == LATMC_STEP_OVERLAPS) {
        if (!m || !m->overlaps)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no device overlaps for these "
                                   "members");
        return m->overlaps(members, n, r->pairs, r->n_pairs, r->q, r->ql);
    }
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
    const struct cuda_batch_model *m = cuda_batch_model_of(calls[0].members[0]);
    if (!m) /* the core asks only where the caps said so */
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for %s members",
                               calls[0].members[0]->model->name);
    if (calls[0].device_map) {
        const struct cuda_temper_model *tm = cuda_temper_model_of(calls[0].members[0]);
        if (!tm)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device for "
                                   "%s members", calls[0].members[0]->model->name);
        const struct cuda_temper_lead lead = temper_lead(calls[0].members);
        return cuda_temper_run_steps(tm, &lead, calls, n_calls, accepted, attempted);
    }
    return m->run_steps(calls, n_calls, accepted, attempted);
}

bool cuda_ens_batch_declined(const latmc_sim *sim)
{
    const struct cuda_batch_model *m = cuda_batch_model_of(sim);
    const char *one_by_one = m && m->one_by_one_env ? getenv(m->one_by_one_env) : NULL;
    return one_by_one && strcmp(one_by_one, "0") == 0;
}

/* What the module keeps for the batches led by `sim` (the driver's: Heisenberg, Potts,
 * phi^4, Swendsen-Wang; Ising's is its leader's own, freed with it), freed: the sim is
 * being destroyed. */
void cuda_ens_release_led(const latmc_sim *sim)
{
    cuda_batch_release_led(sim);
}
