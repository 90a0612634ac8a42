/* The Potts model on the CPU: uint8 states in natural site order, reference kernels. */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "potts.h"
#include "potts_ref.h"

struct potts_state {
    uint8_t *spins;
    int colours;
};

static struct potts_state *potts_of(struct cpu_state *st)
{
    return st->model_state;
}

static int potts_create(latmc_sim *sim, struct cpu_state *st)
{
    struct potts_state *ps = calloc(1, sizeof *ps);
    const size_t bytes = (size_t)sim->nsites;
    if (ps)
        ps->spins = malloc(bytes);
    if (!ps || !ps->spins) {
        free(ps);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Potts "
                          "states", bytes);
    }
    /* check_desc has accepted the extents, so this is 2 or 3 */
    ps->colours = latmc_potts_colours(sim->desc.ndim, sim->desc.extent);
    st->model_state = ps;
    return LATMC_OK;
}

static void potts_destroy(struct cpu_state *st)
{
    struct potts_state *ps = potts_of(st);
    if (ps)
        free(ps->spins);
    free(ps);
    st->model_state = NULL;
}

static int potts_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    if (how == LATMC_INIT_COLD)
        memset(potts_of(st)->spins, 0, (size_t)sim->nsites);
    else
        cpu_potts_hot_start(&st->lattice, potts_of(st)->spins, sim->desc.q, sim->desc.seed,
                            sim->n_threads);
    return LATMC_OK;
}

static void potts_sweep(latmc_sim *sim, struct cpu_state *st, uint64_t sweep,
                        uint64_t *accepted, uint64_t *attempted)
{
    const struct latmc_potts_chain chain = {
        .tables = sim->model_data,
        .algorithm = sim->desc.algorithm,
        .q = sim->desc.q,
        .colours = potts_of(st)->colours,
        .seed = sim->desc.seed,
    };
    *accepted += cpu_potts_sweep(&st->lattice, potts_of(st)->spins, &chain, sweep,
                                 sim->n_threads);
    *attempted += (uint64_t)sim->nsites;
}

static void potts_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    cpu_potts_measure(&st->lattice, potts_of(st)->spins, sim->n_threads, sums);
}

static void potts_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    memcpy(buf, potts_of(st)->spins, (size_t)sim->nsites);
}

static void potts_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    memcpy(potts_of(st)->spins, buf, (size_t)sim->nsites);
}

const struct cpu_model_kernels cpu_potts_kernels = {
    .model = LATMC_MODEL_POTTS,
    .create = potts_create,
    .destroy = potts_destroy,
    .init_spins = potts_init_spins,
    .sweep = potts_sweep,
    .measure = potts_measure,
    .get_spins = potts_get_spins,
    .set_spins = potts_set_spins,
};
