/*
 * Philox4x32-10 (Salmon, Moraes, Dror, Shaw, SC'11), the one random-number generator of
 * liblatmc. Counter-based: the output is a pure function of (key, counter), so every
 * backend, thread count and launch configuration can draw the same numbers for the same
 * site and sweep. Header-only and usable from C and CUDA: keep it free of anything that
 * is not plain 32/64-bit integer arithmetic.
 */
#ifndef LATMC_PHILOX_H
#define LATMC_PHILOX_H

#include <stdint.h>

#if defined(__CUDACC__)
#  define LATMC_HOSTDEV __host__ __device__ __forceinline__
#else
#  define LATMC_HOSTDEV static inline
#endif

typedef struct latmc_philox_ctr { uint32_t v[4]; } latmc_philox_ctr;
typedef struct latmc_philox_key { uint32_t v[2]; } latmc_philox_key;

/* The round multipliers and the Weyl key increments of the reference implementation. */
#define LATMC_PHILOX_M0 0xD2511F53u
#define LATMC_PHILOX_M1 0xCD9E8D57u
#define LATMC_PHILOX_W0 0x9E3779B9u
#define LATMC_PHILOX_W1 0xBB67AE85u

LATMC_HOSTDEV latmc_philox_ctr latmc_philox_round(latmc_philox_ctr c, latmc_philox_key k)
{
    const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * c.v[0];
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * c.v[2];
    latmc_philox_ctr r;
    r.v[0] = (uint32_t)(p1 >> 32) ^ c.v[1] ^ k.v[0];
    r.v[1] = (uint32_t)p1;
    r.v[2] = (uint32_t)(p0 >> 32) ^ c.v[3] ^ k.v[1];
    r.v[3] = (uint32_t)p0;
    return r;
}

/* Ten rounds, the key bumped between rounds: four independent 32-bit outputs. */
LATMC_HOSTDEV latmc_philox_ctr latmc_philox4x32_10(latmc_philox_ctr c, latmc_philox_key k)
{
    for (int round = 0; round < 10; round++) {
        if (round > 0) {
            k.v[0] += LATMC_PHILOX_W0;
            k.v[1] += LATMC_PHILOX_W1;
        }
        c = latmc_philox_round(c, k);
    }
    return c;
}

#endif /* LATMC_PHILOX_H */
