/*
 * Internal: the draws of the quenched disorder (desc.couplings, desc.coupling_seed), shared
 * by every model with random couplings, usable from C and CUDA (LATMC_HOSTDEV). Coupling
 * k = ndim i + mu (site i with i + e_mu) takes lane k mod 4 of Philox block k / 4 of key
 * coupling_seed, COUPLINGS stream of replica 0 (replicas share the couplings), sweep 0,
 * phase 0, sub 0 (sub 1: the second draw of a Gaussian coupling). The Heisenberg model
 * (lib/heisenberg_rules.h) and the Ising model (+-J) draw a BIMODAL coupling from
 * the same draw the same way, so one coupling_seed gives both the same +-1 realisation.
 * doc/models/heisenberg.md, "Couplings"; doc/conventions.md, "Ising +-J".
 */
#ifndef LATMC_LIB_COUPLING_DRAWS_H
#define LATMC_LIB_COUPLING_DRAWS_H

#include <stdint.h>

#include "rng_streams.h"

/* The four draws of block b (couplings 4b .. 4b + 3), sub `sub`. */
LATMC_HOSTDEV latmc_philox_ctr latmc_coupling_draws(uint64_t coupling_seed, int64_t b,
                                                    uint32_t sub)
{
    return latmc_rng_name_block(coupling_seed, latmc_rng_coupling_name(sub), (uint64_t)b);
}

/* A BIMODAL coupling from its draw: +1 when the top bit is clear, else -1. */
LATMC_HOSTDEV int latmc_bimodal_sign(uint32_t r)
{
    return (r >> 31) ? -1 : 1;
}

/* Ising +-J: the couplings 4b .. 4b + 3 of n as int8 +-1 (the CPU and CUDA layout). */
LATMC_HOSTDEV void latmc_ising_bimodal_block(int8_t *eps, int64_t n, uint64_t coupling_seed,
                                             int64_t b)
{
    const latmc_philox_ctr r = latmc_coupling_draws(coupling_seed, b, 0);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        eps[4 * b + lane] = (int8_t)latmc_bimodal_sign(r.v[lane]);
}

/* Ising +-J: couplings [e0, e1) of the lattice into out[e - e0] (a slab's local planes,
 * CPU and GPU: the same values as the blocks). */
LATMC_HOSTDEV void latmc_ising_bimodal_range(int8_t *out, int64_t e0, int64_t e1,
                                             uint64_t coupling_seed)
{
    for (int64_t b = e0 / 4; 4 * b < e1; b++) {
        const latmc_philox_ctr r = latmc_coupling_draws(coupling_seed, b, 0);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t e = 4 * b + lane;
            if (e >= e0 && e < e1)
                out[e - e0] = (int8_t)latmc_bimodal_sign(r.v[lane]);
        }
    }
}

#endif
