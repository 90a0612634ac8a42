/* Internal to the CPU backend: its per-sim state and the model kernels it dispatches to. */
#ifndef LATMC_CPU_BACKEND_H
#define LATMC_CPU_BACKEND_H

#include "backend.h"
#include "cpu_lattice.h"

struct cpu_state {
    struct cpu_lattice lattice;
    int8_t *spins;        /* Ising: nsites int8 values, natural site order */
};

static inline struct cpu_state *cpu_state_of(latmc_sim *sim)
{
    return (struct cpu_state *)sim->backend;
}

/* Ising reference kernels (ising_sweep.c, ising_measure.c). */
uint64_t cpu_ising_sweep(const struct cpu_lattice *g, int8_t *spins,
                         const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                         uint64_t sweep, int n_threads);
void cpu_ising_hot_start(const struct cpu_lattice *g, int8_t *spins, uint64_t seed, int n_threads);
struct latmc_ising_sums cpu_ising_measure(const struct cpu_lattice *g, const int8_t *spins,
                                          int n_threads);

#endif
