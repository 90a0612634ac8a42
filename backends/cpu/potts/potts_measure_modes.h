/*
 * Potts: the Fourier modes' projections read from the backend's own layouts (potts_measure.c,
 * lib/modes.h): for every state a and axis mu, P_a,mu[x] = the number of sites in state a
 * with x_mu = x (q blocks of L_0 + L_1 (+ L_2) entries: latmc_modes_partial's layout).
 * Integers, so any thread count gives the same.
 */
#ifndef LATMC_CPU_POTTS_MEASURE_MODES_H
#define LATMC_CPU_POTTS_MEASURE_MODES_H

#include <stdint.h>

#include "cpu_lattice.h"
#include "potts.h"
#include "potts_split.h"

/* A level's byte counting (cpu_potts_count_state below). */
typedef int64_t (*cpu_potts_count_fn)(uint8_t *restrict ca, const uint8_t *restrict v,
                                      uint8_t a, int64_t P);

/* The natural layout (one byte per site): the model's sums, as cpu_potts_measure, and the
 * projections (zeroed here) in the same pass. LATMC_OK or LATMC_ENOMEM, nothing written. */
int cpu_potts_measure_modes(const struct latmc_lattice *g, const uint8_t *spins, int q,
                            int n_threads, struct latmc_potts_sums *sums, int64_t *proj);

/* State a's sites among v[0, P): each one more in its byte counter ca[t] (modulo 256, as
 * the counters are between their flushes), and their number (a row's count). The byte
 * counting of the functions above and below (potts_count_tmpl.h; the SIMD levels' own
 * in their dsp tables, cpu_potts_dsp's count_state, the same integers;
 * tests/kernels/test_potts_count.c). This one is the C level's. */
int64_t cpu_potts_count_state(uint8_t *restrict ca, const uint8_t *restrict v, uint8_t a,
                              int64_t P);

/* The split colour arrays of the SIMD levels: the projections (zeroed here), read in place
 * (no copy into site order), counted by `count` (the level's count_state), and the
 * populations, sums->count, from the same counts (sums->matches untouched: the level's
 * reduction makes the bonds). LATMC_OK or LATMC_ENOMEM. */
int cpu_potts_split_projections(const struct latmc_lattice *g, const struct cpu_potts_split *s,
                                int q, int n_threads, cpu_potts_count_fn count, int64_t *proj,
                                struct latmc_potts_sums *sums);

#endif
