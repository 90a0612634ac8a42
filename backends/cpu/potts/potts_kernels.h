/* Internal: what the kernels tests may ask of a Potts sim on the CPU backend. */
#ifndef LATMC_CPU_POTTS_KERNELS_H
#define LATMC_CPU_POTTS_KERNELS_H

#include "internal.h"
#include "potts_fast.h"

/* The SIMD level the sim's kernels run at: "c", "avx2" or "avx512". */
const char *cpu_potts_level(latmc_sim *sim);

/*
 * Tests: run the sim's sweeps with `dsp` (e.g. a level's template compiled with emulated
 * primitives). Only before the first configuration; LATMC_ESTATE otherwise.
 */
int cpu_potts_use_dsp(latmc_sim *sim, const struct cpu_potts_dsp *dsp);

/*
 * Tests: with on != 0, every site of the vector passes is redone by the scalar rule (the
 * path otherwise taken only when a draw's top 16 bits equal a threshold's), which checks
 * that path on every site. No effect at the C level.
 */
void cpu_potts_set_scalar_every_site(latmc_sim *sim, int on);

#endif
