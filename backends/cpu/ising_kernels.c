/* The Ising model on the CPU: int8 spins in natural site order, reference kernels. */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "ising.h"
#include "ising_ref.h"

static int8_t *ising_spins(struct cpu_state *st)
{
    return st->model_state;
}

static int ising_create(latmc_sim *sim, struct cpu_state *st)
{
    size_t bytes = (size_t)sim->nsites;
    st->model_state = malloc(bytes);
    if (!st->model_state)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of spins", bytes);
    return LATMC_OK;
}

static void ising_destroy(struct cpu_state *st)
{
    free(st->model_state);
    st->model_state = NULL;
}

static int ising_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    if (how == LATMC_INIT_COLD)
        memset(ising_spins(st), 1, (size_t)sim->nsites);
    else
        cpu_ising_hot_start(&st->lattice, ising_spins(st), sim->desc.seed, sim->n_threads);
    return LATMC_OK;
}

static void ising_sweep(latmc_sim *sim, struct cpu_state *st, uint64_t sweep, uint64_t *accepted,
                        uint64_t *attempted)
{
    *accepted += cpu_ising_sweep(&st->lattice, ising_spins(st), sim->model_data,
                                 sim->desc.algorithm, sim->desc.seed, sweep, sim->n_threads);
    *attempted += (uint64_t)sim->nsites;
}

static void ising_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    *(struct latmc_ising_sums *)sums = cpu_ising_measure(&st->lattice, ising_spins(st),
                                                         sim->n_threads);
}

static void ising_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    memcpy(buf, ising_spins(st), (size_t)sim->nsites);
}

static void ising_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    memcpy(ising_spins(st), buf, (size_t)sim->nsites);
}

const struct cpu_model_kernels cpu_ising_kernels = {
    .model = LATMC_MODEL_ISING,
    .create = ising_create,
    .destroy = ising_destroy,
    .init_spins = ising_init_spins,
    .sweep = ising_sweep,
    .measure = ising_measure,
    .get_spins = ising_get_spins,
    .set_spins = ising_set_spins,
};
