/*
 * A sim on several devices whose model has no leaf of the one executor yet: one slab per
 * device, behind the model's own slabs (cuda_slabs.h says how; doc/cuda.md, "Several
 * GPUs"): Heisenberg (cuda_slabs_heis.c). Ising, Potts and phi^4 run on the one executor
 * (exec/cuda_exec.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_slab_exec.h"
#include "cuda_slabs.h"
#include "model.h"
#include "plan.h"

struct cuda_slabs {
    int n;
    struct cuda_heis_slabs *heis;   /* a Heisenberg sim: its own slabs */
};

static struct cuda_slabs *slabs_of(const struct cuda_sim *cs)
{
    return cs->slabs;
}

bool cuda_slabs_wanted(const latmc_sim *sim)
{
    return sim->plan && sim->plan->n_boxes > 1;
}

void cuda_slabs_destroy(struct cuda_sim *cs)
{
    struct cuda_slabs *ss = cs->slabs;
    if (!ss)
        return;
    cuda_heis_slabs_destroy(ss->heis);
    free(ss);
    cs->slabs = NULL;
}

int cuda_slabs_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf)
{
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_get_couplings(sim, slabs_of(cs)->heis, buf);
    return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA %s slabs have no couplings",
                           sim->model->name);
}

int cuda_slabs_set_couplings(const latmc_sim *sim, struct cuda_sim *cs, const float *buf)
{
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_set_couplings(sim, slabs_of(cs)->heis, buf);
    return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA %s slabs have no couplings",
                           sim->model->name);
}

int cuda_slabs_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    const latmc_sim_desc *d = &sim->desc;
    if (d->model != LATMC_MODEL_HEISENBERG)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA backend runs the %s model as one "
                               "box only in this version (desc.n_parts = %d, desc.n_devices = "
                               "%d; several boxes or devices: Ising, Potts, phi^4 and Heisenberg); "
                               "use 0 or 1 for both", sim->model->name, d->n_parts, d->n_devices);
    struct cuda_slabs *ss = calloc(1, sizeof *ss);
    if (!ss)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the slabs' state");
    const int st = cuda_heis_slabs_create(sim, &ss->heis);
    if (st < 0) {
        free(ss);
        return st;
    }
    ss->n = sim->plan->n_boxes;
    cuda_slab_exec_enable_peers(d, ss->n);
    cs->slabs = ss;
    cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: %s sim as %d slabs (halo 2 planes)",
                   sim->model->name, ss->n);
    return LATMC_OK;
}

int cuda_slabs_params_changed(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim, (void)cs;
    return LATMC_OK; /* the passes read the parameters at launch */
}

int cuda_slabs_init_spins(const latmc_sim *sim, struct cuda_sim *cs, int how)
{
    return cuda_heis_slabs_init_spins(sim, slabs_of(cs)->heis, how);
}

unsigned cuda_slabs_step_caps(const latmc_sim *sim, const struct cuda_sim *cs)
{
    (void)sim;
    return slabs_of(cs)->heis ? LATMC_STEP_CAP_PAIR : 0u;
}

int cuda_slabs_run_step(const latmc_sim *sim, struct cuda_sim *cs,
                        const struct latmc_step_call *call, uint64_t *accepted,
                        uint64_t *attempted)
{
    /* pairs (LATMC_STEP_CAP_PAIR) */
    return cuda_heis_slabs_run_step(sim, slabs_of(cs)->heis, call, accepted, attempted);
}

int cuda_slabs_measure(const latmc_sim *sim, struct cuda_sim *cs, void *sums)
{
    return cuda_heis_slabs_measure(sim, slabs_of(cs)->heis, sums);
}

int cuda_slabs_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    return cuda_heis_slabs_get_spins(sim, slabs_of(cs)->heis, buf);
}

int cuda_slabs_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    return cuda_heis_slabs_set_spins(sim, slabs_of(cs)->heis, buf);
}
