/*
 * The couplings of whole Philox blocks by their definition, block by block
 * (lib/coupling_draws.h, lib/heisenberg_rules.h): the C level's kernels (coupling_fill.c)
 * and the blocks past the vector kernels' last whole group (coupling_fill_avx2.c), so
 * that both levels' values are the definition's by the same code.
 */
#ifndef LATMC_CPU_COUPLING_FILL_BLOCKS_H
#define LATMC_CPU_COUPLING_FILL_BLOCKS_H

#include <stdint.h>

#include "coupling_draws.h"
#include "heisenberg_rules.h"

/* int8 +-1: couplings 4 b0 .. 4 (b0 + nb) - 1 into o[0 ..]. */
static inline void cpu_couplings_i8_blocks(int8_t *o, int64_t b0, int64_t nb, uint64_t seed)
{
    for (int64_t k = 0; k < nb; k++) {
        const latmc_philox_ctr r = latmc_coupling_draws(seed, b0 + k, 0);
        for (int lane = 0; lane < 4; lane++)
            o[4 * k + lane] = (int8_t)latmc_bimodal_sign(r.v[lane]);
    }
}

/* float of kind `kind` (LATMC_COUPLINGS_BIMODAL, _GAUSSIAN): likewise. */
static inline void cpu_couplings_f32_blocks(float *o, int64_t b0, int64_t nb, uint64_t seed,
                                            int kind)
{
    for (int64_t k = 0; k < nb; k++)
        latmc_heisenberg_couplings_lanes(o + 4 * k, kind, seed, b0 + k);
}

#endif
