/*
 * The Ising measurement with the Fourier modes' projections in the same pass (ising_measure.c,
 * lib/modes.h): the model's sums, and P_mu[x] = sum of the spins over the sites with
 * x_mu = x for every axis (L_0 entries, then L_1, then L_2: latmc_modes_partial's layout),
 * read once from the backend's own layout. Integers, so any thread count gives the same.
 */
#ifndef LATMC_CPU_ISING_MEASURE_MODES_H
#define LATMC_CPU_ISING_MEASURE_MODES_H

#include <stdint.h>

#include "cpu_lattice.h"
#include "ising.h"
#include "ising_split.h"

/* The natural layout (one int8 +-1 per site; eps NULL: uniform). LATMC_OK, or
 * LATMC_ENOMEM with nothing written (the threads' rows). proj: zeroed here. */
int cpu_ising_measure_modes(const struct latmc_lattice *g, const int8_t *spins,
                            const int8_t *eps, int n_threads, struct latmc_ising_sums *sums,
                            int64_t *proj);

/* The split rows of the SIMD levels (ising_split.h; +-J too), measured by `rows` (the
 * level's measure_rows), which counts the columns too. */
int cpu_ising_split_measure_modes(const struct cpu_ising_split *s,
                                  cpu_ising_measure_rows_fn rows, int n_threads,
                                  struct latmc_ising_sums *sums, int64_t *proj);

#endif
