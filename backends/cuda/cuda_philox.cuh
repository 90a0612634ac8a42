/*
 * Philox draws of the update stream with the round keys computed once on the host
 * (lib/philox_fold.h): the keys key + r (W0, W1), r = 0 .. 9, that latmc_philox4x32_10
 * bumps between its rounds.
 * Passed as a kernel parameter they sit in the constant bank, so a kernel spends no
 * instruction on the key schedule; the counter and the rounds are lib/rng_streams.h's and
 * lib/philox.h's, so the draws are exactly latmc_rng_block's. Host and device.
 */
#ifndef LATMC_CUDA_PHILOX_CUH
#define LATMC_CUDA_PHILOX_CUH

#include "philox_fold.h"

struct cuda_philox_keys {
    latmc_philox_key k[10];
};

static inline struct cuda_philox_keys cuda_philox_round_keys(uint64_t seed)
{
    struct cuda_philox_keys keys;
    latmc_philox_round_keys(seed, keys.k);
    return keys;
}

/*
 * latmc_philox4x32_10 of counter c and key k, each round's two products one 32 x 32 -> 64
 * multiply (PTX mul.wide.u32, one IMAD.WIDE.U32); the xors and the key's bumps are
 * lib/philox.h's. For a counter cut from 64-bit numbers (latmc_rng_block's block index)
 * the C form's products reached nvcc as masked 64-bit values, and the 64 x 64 multiply it
 * made added their zero cross terms: one instruction more a product (the Heisenberg pass
 * kernel). The same outputs: only the products' form. (lib/philox.h stays as it is: the
 * other kernels were tuned on the code nvcc makes from it.)
 */
__device__ __forceinline__ latmc_philox_ctr cuda_philox10_wide(latmc_philox_ctr c,
                                                            latmc_philox_key k)
{
#pragma unroll
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k.v[0] += LATMC_PHILOX_W0;
            k.v[1] += LATMC_PHILOX_W1;
        }
        uint64_t p0, p1;
        asm("mul.wide.u32 %0, %1, %2;" : "=l"(p0) : "r"(c.v[0]), "n"(LATMC_PHILOX_M0));
        asm("mul.wide.u32 %0, %1, %2;" : "=l"(p1) : "r"(c.v[2]), "n"(LATMC_PHILOX_M1));
        const latmc_philox_ctr in = c;
        c.v[0] = (uint32_t)(p1 >> 32) ^ in.v[1] ^ k.v[0];
        c.v[1] = (uint32_t)p1;
        c.v[2] = (uint32_t)(p0 >> 32) ^ in.v[3] ^ k.v[1];
        c.v[3] = (uint32_t)p0;
    }
    return c;
}

/* The draws of block `block` of the draws named n (a step's, lib/step.h):
 * latmc_rng_name_block's. */
__host__ __device__ __forceinline__ latmc_philox_ctr
cuda_philox_named_draws(const struct cuda_philox_keys &keys, struct latmc_rng_name n,
                        uint64_t block)
{
    latmc_philox_ctr c = latmc_rng_name_counter(n, block);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int round = 0; round < 10; round++)
        c = latmc_philox_round(c, keys.k[round]);
    return c;
}

/*
 * The same draws with the first two rounds folded where their inputs are shared. For
 * the blocks of one (sweep, stream, phase, sub) whose numbers agree in bits 32..47 (a
 * "group", e.g. the consecutive blocks of one thread), only c0 differs, so:
 *   round 1: M1 * c2 is the same for all (c2 = the sweep's low word): hoisted to the host,
 *            and c0' = hi(M1 c2) ^ c1 ^ k0 is the same for the group;
 *   round 2: M0 * c0' is the same for the group: one product per group;
 * leaving one wide multiply in each of the first two rounds per block: 18 instead of 20,
 * and no per-block counter assembly. The constants are lib/philox_fold.h's. Exactly latmc_rng_block's outputs (a host test
 * checks it: tests/backends/test_philox_folded_host.cu).
 */
struct cuda_philox_folded {
    struct cuda_philox_keys keys;
    uint32_t c1_high;     /* (sweep >> 32) << 16: c1 without the block's bits 32..47 */
    uint32_t p1_hi_k0;    /* hi(M1 c2) ^ k0.v[0] */
    uint32_t p1_lo_k1;    /* lo(M1 c2) ^ k1.v[0] */
    uint32_t c3_k0;       /* c3 ^ k0.v[1] */
};

struct cuda_philox_group {
    uint32_t v;           /* hi(M0 c0') ^ k1.v[1] */
    uint32_t w;           /* lo(M0 c0') */
};

/* A name's words of the fold without the keys: kernels that keep one seed's keys for
 * several names (the Potts rows' proposals and acceptances) hold these a name. */
struct cuda_philox_name_fold {
    uint32_t c1_high, p1_hi_k0, p1_lo_k1, c3_k0; /* cuda_philox_folded's */
};

/* The words from lib/philox_fold.h's fold of block_hi 0 (the group's c1 replaces c1_high
 * in u0). */
__host__ __device__ __forceinline__ struct cuda_philox_name_fold
cuda_philox_name_fold_from(const struct latmc_philox_fold &lf)
{
    const struct cuda_philox_name_fold w = { lf.c.v[1], lf.u0 ^ lf.c.v[1], lf.a2, lf.a1 };
    return w;
}

/* The pass's words of f from lib/philox_fold.h's fold of block_hi 0; f->keys as they
 * are. */
__host__ __device__ __forceinline__ void cuda_philox_fold_words(struct cuda_philox_folded *f,
                                                                const struct latmc_philox_fold &lf)
{
    const struct cuda_philox_name_fold w = cuda_philox_name_fold_from(lf);
    f->c1_high = w.c1_high;
    f->p1_hi_k0 = w.p1_hi_k0;
    f->p1_lo_k1 = w.p1_lo_k1;
    f->c3_k0 = w.c3_k0;
}

/* The words of the draws named n (a step's, lib/step.h) under the seed of `keys`: the fold
 * of cuda_philox_fold_named without the key schedule (a kernel holding the keys). */
__host__ __device__ __forceinline__ struct cuda_philox_name_fold
cuda_philox_name_fold_by(const struct cuda_philox_keys &keys, struct latmc_rng_name n)
{
    const latmc_philox_ctr c = latmc_rng_name_counter(n, 0);
    struct latmc_philox_fold lf;
    latmc_philox_fold_fill(&lf, keys.k, c.v[1], c.v[2], c.v[3]);
    return cuda_philox_name_fold_from(lf);
}

/* The fold of the draws named n (a step's, lib/step.h), keys included. */
__host__ __device__ __forceinline__ struct cuda_philox_folded
cuda_philox_fold_named(uint64_t seed, struct latmc_rng_name n)
{
    const struct latmc_philox_fold lf = latmc_philox_fold_name(seed, n, 0);
    struct cuda_philox_folded f;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int r = 0; r < 10; r++)
        f.keys.k[r] = lf.k[r];
    cuda_philox_fold_words(&f, lf);
    return f;
}

/* f's words (cuda_philox_name_fold), and a fold from the keys and a name's words. */
__host__ __device__ __forceinline__ struct cuda_philox_name_fold
cuda_philox_name_fold_of(const struct cuda_philox_folded &f)
{
    const struct cuda_philox_name_fold w = { f.c1_high, f.p1_hi_k0, f.p1_lo_k1, f.c3_k0 };
    return w;
}

__host__ __device__ __forceinline__ struct cuda_philox_folded
cuda_philox_folded_of(const struct cuda_philox_keys &keys, const struct cuda_philox_name_fold &w)
{
    struct cuda_philox_folded f;
    f.keys = keys;
    f.c1_high = w.c1_high;
    f.p1_hi_k0 = w.p1_hi_k0;
    f.p1_lo_k1 = w.p1_lo_k1;
    f.c3_k0 = w.c3_k0;
    return f;
}

/* A new pass of f, the draws named n (block >> 32 = 0), whose keys stay: the fold without
 * the key schedule (a kernel that keeps a seed's keys across its passes, each named by
 * lib's name functions). */
__host__ __device__ __forceinline__ void cuda_philox_refold_named(struct cuda_philox_folded *f,
                                                                  struct latmc_rng_name n)
{
    struct latmc_philox_fold lf;
    latmc_philox_fold_fill(&lf, f->keys.k, n.c1, n.c2, n.c3);
    cuda_philox_fold_words(f, lf);
}

/* The group of block numbers sharing block >> 32 with `block`. */
__host__ __device__ __forceinline__ struct cuda_philox_group
cuda_philox_group_of(const struct cuda_philox_folded &f, uint64_t block)
{
    const uint32_t c1 = latmc_rng_word1_at(f.c1_high, block);
    const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * (f.p1_hi_k0 ^ c1);
    struct cuda_philox_group g;
    g.v = (uint32_t)(p0 >> 32) ^ f.keys.k[1].v[1];
    g.w = (uint32_t)p0;
    return g;
}

/* The draws of the block of the group g whose low 32 bits b give p0 = M0 b (round 1's
 * product: a caller walking its blocks may step it by additions instead). */
__host__ __device__ __forceinline__ latmc_philox_ctr
cuda_philox_folded_draws_p0(const struct cuda_philox_folded &f,
                            const struct cuda_philox_group &g, uint64_t p0)
{
    /* round 1: only the c0 product is per block */
    const uint32_t r1_2 = (uint32_t)(p0 >> 32) ^ f.c3_k0, r1_3 = (uint32_t)p0;
    /* round 2: only the c2 product is per block */
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * r1_2;
    latmc_philox_ctr c;
    c.v[0] = (uint32_t)(p1 >> 32) ^ f.p1_lo_k1;
    c.v[1] = (uint32_t)p1;
    c.v[2] = g.v ^ r1_3;
    c.v[3] = g.w;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int round = 2; round < 10; round++)
        c = latmc_philox_round(c, f.keys.k[round]);
    return c;
}

/* The draws of block `block` of the group g (its low 32 bits are enough). */
__host__ __device__ __forceinline__ latmc_philox_ctr
cuda_philox_folded_draws(const struct cuda_philox_folded &f, const struct cuda_philox_group &g,
                         uint32_t block_low)
{
    return cuda_philox_folded_draws_p0(f, g, (uint64_t)LATMC_PHILOX_M0 * block_low);
}

#endif
