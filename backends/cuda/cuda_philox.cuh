/*
 * Philox draws of the update stream with the round keys computed once on the host: the
 * keys key + r (W0, W1), r = 0 .. 9, that latmc_philox4x32_10 bumps between its rounds.
 * Passed as a kernel parameter they sit in the constant bank, so a kernel spends no
 * instruction on the key schedule; the counter and the rounds are lib/rng_streams.h's and
 * lib/philox.h's, so the draws are exactly latmc_rng_block()'s. Host and device.
 */
#ifndef LATMC_CUDA_PHILOX_CUH
#define LATMC_CUDA_PHILOX_CUH

#include "rng_streams.h"

struct cuda_philox_keys {
    latmc_philox_key k[10];
};

static inline struct cuda_philox_keys cuda_philox_round_keys(uint64_t seed)
{
    struct cuda_philox_keys keys;
    keys.k[0] = latmc_rng_key(seed);
    for (int r = 1; r < 10; r++) {
        keys.k[r].v[0] = keys.k[r - 1].v[0] + LATMC_PHILOX_W0;
        keys.k[r].v[1] = keys.k[r - 1].v[1] + LATMC_PHILOX_W1;
    }
    return keys;
}

/* latmc_rng_block(seed, block, sweep, UPDATE stream of replica 0, phase, sub). */
__host__ __device__ __forceinline__ latmc_philox_ctr
cuda_philox_update_draws(const struct cuda_philox_keys &keys, uint64_t block, uint64_t sweep,
                         uint32_t phase, uint32_t sub)
{
    latmc_philox_ctr c = latmc_rng_counter(block, sweep, latmc_rng_stream(LATMC_STREAM_UPDATE, 0),
                                           phase, sub);
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int round = 0; round < 10; round++)
        c = latmc_philox_round(c, keys.k[round]);
    return c;
}

#endif
