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

/* The fold's words for counter words c1, c2, c3 from round keys k computed before (k[0 ..
 * 2] read; f->k is left as it is): a kernel that keeps the keys of its seed across passes
 * (CUDA ensembles) folds each pass so. */
LATMC_HOSTDEV void latmc_philox_fold_fill(struct latmc_philox_fold *out, const latmc_philox_key *k,
                                          uint32_t c1, uint32_t c2, uint32_t c3)
{
    out->c.v[0] = 0;
    out->c.v[1] = c1;
    out->c.v[2] = c2;
    out->c.v[3] = c3;
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * c2;
    out->u0 = (uint32_t)(p1 >> 32) ^ c1 ^ k[0].v[0];
    out->u1 = (uint32_t)p1;
    out->a1 = c3 ^ k[0].v[1];
    out->m0u0 = (uint64_t)LATMC_PHILOX_M0 * out->u0;
    out->a2 = out->u1 ^ k[1].v[0];
    out->a3 = (uint32_t)(out->m0u0 >> 32) ^ k[1].v[1];
    out->a4 = (uint32_t)out->m0u0 ^ k[2].v[1];
}

/* The fold for counter words c1, c2, c3 as they are (latmc_philox_fold_name's). */
LATMC_HOSTDEV struct latmc_philox_fold latmc_philox_fold_words(uint64_t seed, uint32_t c1,
                                                               uint32_t c2, uint32_t c3)
{
    struct latmc_philox_fold f;
    latmc_philox_round_keys(seed, f.k);
    latmc_philox_fold_fill(&f, f.k, c1, c2, c3);
    return f;
}

/* The fold of blocks (block_hi << 32) + c0 of the draws named `n` (a step's, lib/step.h). */
LATMC_HOSTDEV struct latmc_philox_fold latmc_philox_fold_name(uint64_t seed,
                                                              struct latmc_rng_name n,
                                                              uint32_t block_hi)
{
    const latmc_philox_ctr c = latmc_rng_name_counter(n, (uint64_t)block_hi << 32);
    return latmc_philox_fold_words(seed, c.v[1], c.v[2], c.v[3]);
}

/*
 * The second fold: one block of one sweep word, counter words c0, c1, c2 fixed and word 3
 * varying (phi^4: a site's hits and draws are named by phase and sub, so one block serves
 * 2 nhit Philox calls). Round 0 gives
 *   x0 = hi(M1 c2) ^ c1 ^ k0[0]     x1 = lo(M1 c2)
 *   x2 = hi(M0 c0) ^ k1[0] ^ c3     x3 = lo(M0 c0)
 * so round 0 is computed once per block but for the xor of c3 into word 2.
 */
struct latmc_philox_fold3 {
    uint32_t x0, x1, x2, x3;  /* round 0's words, word 2 without c3 */
};

/* The second fold of block `block` of the draws named `n` (a step's, lib/step.h; its word
 * 3 is left out: each draw xors its own in), with round 0's key (k0, k1). */
LATMC_HOSTDEV struct latmc_philox_fold3 latmc_philox_fold3_name(uint32_t k0, uint32_t k1,
                                                                struct latmc_rng_name n,
                                                                uint64_t block)
{
    const latmc_philox_ctr c = latmc_rng_name_counter(n, block);
    const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * c.v[0];
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * c.v[2];
    struct latmc_philox_fold3 f;
    f.x0 = (uint32_t)(p1 >> 32) ^ c.v[1] ^ k0;
    f.x1 = (uint32_t)p1;
    f.x2 = (uint32_t)(p0 >> 32) ^ k1;
    f.x3 = (uint32_t)p0;
    return f;
}

/* The words after round 0 of the block's counter with word 3 = c3 (latmc_rng_word3):
 * rounds 1 .. 9 of lib/philox.h on them give latmc_rng_block's draws. */
LATMC_HOSTDEV latmc_philox_ctr latmc_philox_fold3_round0(const struct latmc_philox_fold3 *f,
                                                         uint32_t c3)
{
    latmc_philox_ctr c;
    c.v[0] = f->x0;
    c.v[1] = f->x1;
    c.v[2] = f->x2 ^ c3;
    c.v[3] = f->x3;
    return c;
}

#endif /* LATMC_LIB_PHILOX_FOLD_H */
