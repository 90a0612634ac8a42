/*
 * The phi^4 chain's definition pieces that the tests write out themselves, from
 * doc/models/phi4.md and doc/conventions.md, not from the library: a test case's
 * parameters, the colouring and the Philox draw of the update stream. Used by the CPU
 * chain test (tests/unit/test_phi4_chain.c) and the CUDA chain test
 * (tests/backends/test_cuda_phi4.c), which differ only in the schedule they define.
 */
#ifndef LATMC_TEST_PHI4_SPEC_H
#define LATMC_TEST_PHI4_SPEC_H

#include <stdint.h>

#include "philox.h"

struct spec {
    int ndim;
    int64_t L[3];
    int precision;
    double mu2, g, lambda, epsilon;
    int nhit, nloc;
};

/* Colour of (x, y, z): (x + 3y + 2z) mod 8 if every extent is divisible by 8, else
 * (x + 2y) mod 5 (2D, both extents divisible by 5). */
static inline int spec_ncolours(const struct spec *sp)
{
    for (int mu = 0; mu < sp->ndim; mu++)
        if (sp->L[mu] % 8 != 0)
            return 5;
    return 8;
}

static inline int spec_colour(int nc, int64_t x, int64_t y, int64_t z)
{
    return nc == 8 ? (int)((x + 3 * y + 2 * z) % 8) : (int)((x + 2 * y) % 5);
}

/* Draw `lane` of block `block` of pass t, stream 0 (updates), counter layout of
 * doc/conventions.md assembled by hand. */
static inline uint32_t spec_draw(uint64_t seed, uint64_t block, uint64_t t, uint32_t phase,
                                 uint32_t sub, int lane)
{
    latmc_philox_ctr c = { { (uint32_t)block,
                             (uint32_t)(block >> 32 & 0xffff) | (uint32_t)(t >> 32) << 16,
                             (uint32_t)t,
                             phase << 16 | sub } };
    latmc_philox_key k = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
    return latmc_philox4x32_10(c, k).v[lane];
}

#endif
