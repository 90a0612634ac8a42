/*
 * The Heisenberg spin glass on the CPU: float spins and couplings in the API's own
 * layout (heisenberg_ref.h), reference kernels.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "heisenberg_ref.h"

static struct cpu_heisenberg_state *hstate(struct cpu_state *st)
{
    return st->model_state;
}

static size_t spin_bytes(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.replicas * LATMC_HEISENBERG_COMPONENTS *
           sizeof(float);
}

static size_t coupling_bytes(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.ndim * sizeof(float);
}

static void heisenberg_destroy(struct cpu_state *st)
{
    struct cpu_heisenberg_state *hs = hstate(st);
    if (!hs)
        return;
    free(hs->spins);
    free(hs->couplings);
    free(hs->partials);
    free(hs);
    st->model_state = NULL;
}

/* Allocate the state and draw the couplings from desc.coupling_seed. */
static int heisenberg_create(latmc_sim *sim, struct cpu_state *st)
{
    const struct latmc_lattice *g = &st->lattice;
    struct cpu_heisenberg_state *hs = calloc(1, sizeof *hs);
    st->model_state = hs;
    if (!hs)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the Heisenberg state");
    hs->replicas = sim->desc.replicas;
    hs->rows_per_chunk = cpu_heisenberg_rows_per_chunk(g);
    hs->nchunks = (g->ly * g->lz + hs->rows_per_chunk - 1) / hs->rows_per_chunk;
    hs->spins = malloc(spin_bytes(sim));
    hs->couplings = malloc(coupling_bytes(sim));
    hs->partials = malloc((size_t)hs->nchunks * sizeof *hs->partials);
    if (!hs->spins || !hs->couplings || !hs->partials) {
        heisenberg_destroy(st);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Heisenberg "
                          "spins and %zu of couplings", spin_bytes(sim), coupling_bytes(sim));
    }
    cpu_heisenberg_draw_couplings(g, hs->couplings, sim->desc.couplings, sim->desc.coupling_seed,
                                  sim->n_threads);
    return LATMC_OK;
}

static float *replica_spins(const latmc_sim *sim, struct cpu_heisenberg_state *hs, int replica)
{
    return hs->spins + (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)sim->nsites * (size_t)replica;
}

static int heisenberg_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct cpu_heisenberg_state *hs = hstate(st);
    for (int r = 0; r < hs->replicas; r++) {
        if (how == LATMC_INIT_COLD)
            cpu_heisenberg_cold_start(&st->lattice, replica_spins(sim, hs, r));
        else
            cpu_heisenberg_hot_start(&st->lattice, replica_spins(sim, hs, r), sim->desc.seed, r,
                                     sim->n_threads);
    }
    return LATMC_OK;
}

/* The replicas share the couplings and have independent update streams; every heat-bath
 * update counts as attempted and accepted, overrelaxation moves as neither. */
static void heisenberg_sweep(latmc_sim *sim, struct cpu_state *st, uint64_t sweep,
                             uint64_t *accepted, uint64_t *attempted)
{
    struct cpu_heisenberg_state *hs = hstate(st);
    for (int r = 0; r < hs->replicas; r++) {
        const uint64_t updates = cpu_heisenberg_sweep(&st->lattice, replica_spins(sim, hs, r),
                                                      hs->couplings, sim->model_data,
                                                      sim->desc.algorithm, sim->desc.seed, r,
                                                      sweep, sim->n_threads);
        *accepted += updates;
        *attempted += updates;
    }
}

static void heisenberg_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    cpu_heisenberg_measure(&st->lattice, hstate(st), sums, sim->n_threads);
}

static void heisenberg_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    memcpy(buf, hstate(st)->spins, spin_bytes(sim));
}

static void heisenberg_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    memcpy(hstate(st)->spins, buf, spin_bytes(sim));
}

static void heisenberg_get_couplings(latmc_sim *sim, struct cpu_state *st, float *buf)
{
    memcpy(buf, hstate(st)->couplings, coupling_bytes(sim));
}

static void heisenberg_set_couplings(latmc_sim *sim, struct cpu_state *st, const float *buf)
{
    memcpy(hstate(st)->couplings, buf, coupling_bytes(sim));
}

const struct cpu_model_kernels cpu_heisenberg_kernels = {
    .model = LATMC_MODEL_HEISENBERG,
    .create = heisenberg_create,
    .destroy = heisenberg_destroy,
    .init_spins = heisenberg_init_spins,
    .sweep = heisenberg_sweep,
    .measure = heisenberg_measure,
    .get_spins = heisenberg_get_spins,
    .set_spins = heisenberg_set_spins,
    .get_couplings = heisenberg_get_couplings,
    .set_couplings = heisenberg_set_couplings,
};
