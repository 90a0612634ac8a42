/* The built-in CPU backend: state, configuration transfer and dispatch to the kernels. */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_omp.h"

static int resolve_threads(latmc_sim *sim)
{
    int want = sim->desc.n_threads;
#ifdef _OPENMP
    /* Reading the runtime default is fine; setting global OpenMP state is not. */
    return want > 0 ? want : omp_get_max_threads();
#else
    if (want > 1)
        latmc_log(sim->ctx, LATMC_LOG_WARN, "n_threads = %d requested, but this liblatmc was "
                  "built without OpenMP: running on 1 thread", want);
    return 1;
#endif
}

static int cpu_create(latmc_sim *sim)
{
    struct cpu_state *st = calloc(1, sizeof *st);
    if (!st)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate its state");
    st->lattice.ndim = sim->desc.ndim;
    st->lattice.lx = sim->desc.extent[0];
    st->lattice.ly = sim->desc.extent[1];
    st->lattice.lz = sim->desc.ndim == 3 ? sim->desc.extent[2] : 1;
    st->lattice.nsites = sim->nsites;
    size_t bytes = (size_t)sim->nsites * (size_t)sim->desc.replicas;
    st->spins = malloc(bytes);
    if (!st->spins) {
        free(st);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of spins", bytes);
    }
    sim->n_threads = resolve_threads(sim);
    sim->backend = st;
    return LATMC_OK;
}

static void cpu_destroy(latmc_sim *sim)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st)
        return;
    free(st->spins);
    free(st);
    sim->backend = NULL;
}

static int cpu_init_spins(latmc_sim *sim, int how)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (how == LATMC_INIT_COLD)
        memset(st->spins, 1, (size_t)sim->nsites);
    else
        cpu_ising_hot_start(&st->lattice, st->spins, sim->desc.seed, sim->n_threads);
    return LATMC_OK;
}

static int cpu_sweep(latmc_sim *sim, uint64_t n, uint64_t *accepted)
{
    struct cpu_state *st = cpu_state_of(sim);
    for (uint64_t k = 0; k < n; k++)
        *accepted += cpu_ising_sweep(&st->lattice, st->spins, &sim->ising, sim->desc.algorithm,
                                     sim->desc.seed, sim->sweeps + k, sim->n_threads);
    return LATMC_OK;
}

static int cpu_measure_ising(latmc_sim *sim, struct latmc_ising_sums *out)
{
    struct cpu_state *st = cpu_state_of(sim);
    *out = cpu_ising_measure(&st->lattice, st->spins, sim->n_threads);
    return LATMC_OK;
}

static int cpu_get_spins(latmc_sim *sim, void *buf)
{
    memcpy(buf, cpu_state_of(sim)->spins, (size_t)sim->nsites);
    return LATMC_OK;
}

static int cpu_set_spins(latmc_sim *sim, const void *buf)
{
    memcpy(cpu_state_of(sim)->spins, buf, (size_t)sim->nsites);
    return LATMC_OK;
}

const struct latmc_backend_ops latmc_cpu_backend_ops = {
    .size = sizeof(struct latmc_backend_ops),
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .init_spins = cpu_init_spins,
    .sweep = cpu_sweep,
    .measure_ising = cpu_measure_ising,
    .get_spins = cpu_get_spins,
    .set_spins = cpu_set_spins,
};
