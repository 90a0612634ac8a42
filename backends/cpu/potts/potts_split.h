/*
 * The split layout of the Potts states used by the SIMD levels (potts_fast.h): one array
 * per colour in within-colour order, with CPU_POTTS_PAD bytes before and after each.
 * Conversions from and to the natural site order and the starts (the sweeps and the
 * observables' reduction are the SIMD levels' own, potts_simd.h). Every function gives
 * the same result for any thread count.
 */
#ifndef LATMC_CPU_POTTS_SPLIT_H
#define LATMC_CPU_POTTS_SPLIT_H

#include <stdint.h>

#include "cpu_lattice.h"
#include "potts.h"

struct cpu_potts_split {
    int colours;
    int64_t per_row;        /* L_x / c */
    int64_t per_colour;     /* N / c */
    uint8_t *block;         /* the one allocation */
    uint8_t *sub[3];        /* colour arrays, 64-byte aligned */
};

/* LATMC_OK or LATMC_ENOMEM through latmc_fail(). */
int cpu_potts_split_alloc(struct cpu_potts_split *s, const struct latmc_lattice *g,
                          int colours);
void cpu_potts_split_free(struct cpu_potts_split *s);

void cpu_potts_split_from_natural(const struct latmc_lattice *g, struct cpu_potts_split *s,
                                  const uint8_t *natural, int n_threads);
void cpu_potts_split_to_natural(const struct latmc_lattice *g, const struct cpu_potts_split *s,
                                uint8_t *natural, int n_threads);
/* The same for rows [row0, row1) only (row = y + L_y z): `natural` holds their
 * (row1 - row0) L_x states in natural order. */
void cpu_potts_split_rows_from_natural(const struct latmc_lattice *g,
                                       struct cpu_potts_split *s, int64_t row0, int64_t row1,
                                       const uint8_t *natural, int n_threads);
void cpu_potts_split_rows_to_natural(const struct latmc_lattice *g,
                                     const struct cpu_potts_split *s, int64_t row0,
                                     int64_t row1, uint8_t *natural, int n_threads);
void cpu_potts_split_cold_start(struct cpu_potts_split *s);
/* The hot start of doc/models/potts.md, written straight into the split layout. */
void cpu_potts_split_hot_start(const struct latmc_lattice *g, struct cpu_potts_split *s, int q,
                               uint64_t seed, int n_threads);

#endif
