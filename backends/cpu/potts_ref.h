/* The Potts reference kernels of the CPU backend (potts_sweep.c, potts_measure.c). */
#ifndef LATMC_CPU_POTTS_REF_H
#define LATMC_CPU_POTTS_REF_H

#include "cpu_lattice.h"
#include "potts.h"

/* What the sweep needs besides the configuration. */
struct potts_chain {
    const struct latmc_potts_tables *tables;
    int algorithm;      /* LATMC_ALGO_METROPOLIS or LATMC_ALGO_HEATBATH */
    int q;
    int colours;        /* c = 2 or 3 */
    uint64_t seed;
};

/* One sweep numbered `sweep`: colours 0 .. c-1 in turn. Returns the updates accepted
 * (Metropolis) or the sites whose state changed (heat bath). */
uint64_t cpu_potts_sweep(const struct cpu_lattice *g, uint8_t *spins,
                         const struct potts_chain *chain, uint64_t sweep, int n_threads);
void cpu_potts_hot_start(const struct cpu_lattice *g, uint8_t *spins, int q, uint64_t seed,
                         int n_threads);
void cpu_potts_measure(const struct cpu_lattice *g, const uint8_t *spins, int n_threads,
                       struct latmc_potts_sums *sums);

#endif
