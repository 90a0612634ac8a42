/* The Potts reference kernels of the CPU backend (potts_sweep.c, potts_measure.c). */
#ifndef LATMC_CPU_POTTS_REF_H
#define LATMC_CPU_POTTS_REF_H

#include "cpu_lattice.h"
#include "potts_rules.h"

/* One sweep numbered `sweep`: colours 0 .. c-1 in turn. Returns the updates accepted
 * (Metropolis) or the sites whose state changed (heat bath). */
uint64_t cpu_potts_sweep(const struct latmc_lattice *g, uint8_t *spins,
                         const struct latmc_potts_chain *chain, uint64_t sweep, int n_threads);
void cpu_potts_hot_start(const struct latmc_lattice *g, uint8_t *spins, int q, uint64_t seed,
                         int n_threads);
void cpu_potts_measure(const struct latmc_lattice *g, const uint8_t *spins, int n_threads,
                       struct latmc_potts_sums *sums);

#endif
