/*
 * Internal: the Heisenberg model's couplings (doc/models/heisenberg.md, "Couplings") from
 * their draws (lib/coupling_draws.h), usable from C and CUDA (LATMC_HOSTDEV): the CPU's
 * bulk draw (backends/cpu/coupling_fill*.c) and the CUDA module's device draw
 * (backends/cuda/cuda_coupling_draws.cu) call these very functions. The Gaussian's log and
 * sine/cosine are lib/latmc_math.h's fixed sequences of IEEE operations and sqrt is
 * correctly rounded everywhere, so with no fused multiply-adds (the CUDA module is built
 * with -fmad=false) every backend computes the same float bits.
 */
#ifndef LATMC_LIB_HEISENBERG_COUPLINGS_H
#define LATMC_LIB_HEISENBERG_COUPLINGS_H

#include <math.h>
#include <stdint.h>

#include <latmc/sim.h> /* LATMC_COUPLINGS_* */

#include "coupling_draws.h"
#include "latmc_math.h"

/* A 32-bit draw as a uniform number in (0, 1): (r + 1/2) 2^-32, never 0 or 1. */
LATMC_HOSTDEV double latmc_heisenberg_uniform(uint32_t r)
{
    return ((double)r + 0.5) * 0x1p-32;
}

/* A Gaussian coupling (mean 0, variance 1) by Box-Muller from two uniforms in (0, 1). */
LATMC_HOSTDEV float latmc_heisenberg_gaussian_coupling(double u1, double u2)
{
    double sin_phi, cos_phi;
    latmc_math_sincos_2pi(u2, &sin_phi, &cos_phi);
    return (float)(sqrt(-2.0 * latmc_math_log(u1)) * cos_phi);
}

/* A +-1 coupling: +1 when the top bit of the draw is clear (lib/coupling_draws.h, the
 * very rule of the Ising +-J couplings). */
LATMC_HOSTDEV float latmc_heisenberg_bimodal_coupling(uint32_t r)
{
    return (float)latmc_bimodal_sign(r);
}

/*
 * The four couplings 4b .. 4b + 3 (coupling k = ndim i + mu) of the kind `kind` into
 * j[0 .. 3]: key coupling_seed, COUPLINGS stream (replica 0: both replicas share them),
 * sweep 0, phase 0; sub 0 the first draw, sub 1 the second (doc/models/heisenberg.md).
 * Each is a function of its own draws only, so the whole lattice (_block) and a range of
 * it (_range: a slab's local planes, CPU and GPU) get the very same values.
 */
LATMC_HOSTDEV void latmc_heisenberg_couplings_lanes(float j[4], int kind,
                                                     uint64_t coupling_seed, int64_t b)
{
    latmc_philox_ctr r0 = { { 0, 0, 0, 0 } }, r1 = { { 0, 0, 0, 0 } };
    if (kind != LATMC_COUPLINGS_UNIFORM)
        r0 = latmc_coupling_draws(coupling_seed, b, 0);
    if (kind == LATMC_COUPLINGS_GAUSSIAN)
        r1 = latmc_coupling_draws(coupling_seed, b, 1);
    for (int lane = 0; lane < 4; lane++) {
        j[lane] = 1.0f;
        if (kind == LATMC_COUPLINGS_GAUSSIAN)
            j[lane] = latmc_heisenberg_gaussian_coupling(latmc_heisenberg_uniform(r0.v[lane]),
                                                         latmc_heisenberg_uniform(r1.v[lane]));
        else if (kind == LATMC_COUPLINGS_BIMODAL)
            j[lane] = latmc_heisenberg_bimodal_coupling(r0.v[lane]);
    }
}

#endif
