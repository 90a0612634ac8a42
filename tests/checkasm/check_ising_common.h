/*
 * What checkasm's two Ising checks (check_ising.c, check_ising_decisions.c) share: the
 * core's tables rebuilt from the model's definition, and the --bench lattice.
 */
#ifndef LATMC_CHECKASM_ISING_COMMON_H
#define LATMC_CHECKASM_ISING_COMMON_H

#include <stdint.h>

#include "ising.h"       /* struct latmc_ising_tables */
#include "ising_split.h" /* struct cpu_ising_split, struct latmc_lattice */

/* The core's tables (lib/model_ising.c), rebuilt here from the model's definition. */
void checkasm_ising_tables(struct latmc_ising_tables *t, int ndim, double beta, double J,
                           double h);

/* The --bench lattice: L x rows (2D) or L x rows x rows (3D) at beta 2/3 (2D) or 1/4 (3D), J = 1, after a hot start, in
 * the natural layout (spins) and the split one (s). */
struct checkasm_ising_bench {
    struct latmc_lattice g;
    struct latmc_ising_tables t;
    int8_t *spins;
    struct cpu_ising_split s;
};

/* 0 (after checkasm_fail naming func) when out of memory. */
int checkasm_ising_bench_open(struct checkasm_ising_bench *b, const char *func, int ndim,
                              int64_t L, int64_t rows);
void checkasm_ising_bench_close(struct checkasm_ising_bench *b);

#endif
