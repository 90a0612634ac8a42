/*
 * Internal: the one key schedule of Philox4x32-10 and the one fold of its first rounds,
 * for every ISA and CUDA. Each vector kernel keeps only its round function over its own
 * vector type and broadcasts the scalars computed here (lib/philox.h defines the rounds,
 * lib/rng_streams.h the counter words; this header derives nothing else).
 *
 * Round keys: round r (0..9) of latmc_philox4x32_10 runs with (k0 + r W0, k1 + r W1).
 *
 * The fold. Within one pass -- (seed, sweep, stream, phase, sub) and one value of
 * block >> 32 -- the counter words c1, c2, c3 are the same for every block; only
 * c0 = block mod 2^32 varies. Writing (x0, x1, x2, x3) for the words after round r:
 *   round 0: x0 = hi(M1 c2) ^ c1 ^ k0[0] = u0      (the same for all blocks)
 *            x1 = lo(M1 c2)                = u1      (the same)
 *            x2 = hi(M0 c0) ^ a1,  a1 = c3 ^ k1[0]
 *            x3 = lo(M0 c0)
 *   round 1: x0 = hi(M1 x2) ^ a2,  a2 = u1 ^ k0[1]
 *            x1 = lo(M1 x2)
 *            x2 = x3(round 0) ^ a3,  a3 = hi(M0 u0) ^ k1[1]
 *            x3 = lo(M0 u0)                          (the same)
 *   round 2: x2 = hi(M0 x0) ^ a4,  a4 = lo(M0 u0) ^ k1[2]; the rest as in every round.
 * (Round numbers from 0, as latmc_philox4x32_10 counts.) Kernels start from these; which
 * of them a kernel uses depends on its vector layout, never on what they are.
 */
#ifndef LATMC_LIB_PHILOX_FOLD_H
#define LATMC_LIB_PHILOX_FOLD_H

#include "rng_streams.h"

/* The round keys of `seed`: k[r] is round r's key. */
LATMC_HOSTDEV void latmc_philox_round_keys(uint64_t seed, latmc_philox_key k[10])
{
    k[0] = latmc_rng_key(seed);
    for (int r = 1; r < 10; r++) {
        k[r].v[0] = k[r - 1].v[0] + LATMC_PHILOX_W0;
        k[r].v[1] = k[r - 1].v[1] + LATMC_PHILOX_W1;
    }
}

/* The constants of one pass and value of block >> 32 (see the top of the file). */
struct latmc_philox_fold {
    latmc_philox_key k[10];   /* the round keys */
    latmc_philox_ctr c;       /* counter words 1..3 (word 0: 0) */
    uint32_t u0, u1;          /* words 0 and 1 after round 0 */
    uint32_t a1, a2, a3, a4;  /* the folded xors */
    uint64_t m0u0;            /* M0 u0: round 1's product of word 0 */
};

/* The fold for counter words c1, c2, c3 as they are (the SIMD levels' raw generator). */
LATMC_HOSTDEV struct latmc_philox_fold latmc_philox_fold_words(uint64_t seed, uint32_t c1,
                                                               uint32_t c2, uint32_t c3)
{
    struct latmc_philox_fold f;
    latmc_philox_round_keys(seed, f.k);
    f.c.v[0] = 0;
    f.c.v[1] = c1;
    f.c.v[2] = c2;
    f.c.v[3] = c3;
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * c2;
    f.u0 = (uint32_t)(p1 >> 32) ^ c1 ^ f.k[0].v[0];
    f.u1 = (uint32_t)p1;
    f.a1 = c3 ^ f.k[0].v[1];
    f.m0u0 = (uint64_t)LATMC_PHILOX_M0 * f.u0;
    f.a2 = f.u1 ^ f.k[1].v[0];
    f.a3 = (uint32_t)(f.m0u0 >> 32) ^ f.k[1].v[1];
    f.a4 = (uint32_t)f.m0u0 ^ f.k[2].v[1];
    return f;
}

/* The fold of the blocks (block_hi << 32) + c0 of (seed, sweep, stream, phase, sub). */
LATMC_HOSTDEV struct latmc_philox_fold latmc_philox_fold_of(uint64_t seed, uint32_t block_hi,
                                                            uint64_t sweep, uint32_t stream,
                                                            uint32_t phase, uint32_t sub)
{
    const latmc_philox_ctr c = latmc_rng_counter((uint64_t)block_hi << 32, sweep, stream,
                                                 phase, sub);
    return latmc_philox_fold_words(seed, c.v[1], c.v[2], c.v[3]);
}

#endif /* LATMC_LIB_PHILOX_FOLD_H */
