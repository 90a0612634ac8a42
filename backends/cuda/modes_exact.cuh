/*
 * The device side of the Fourier modes' exact sums (lib/modes_exact.h): 128-bit sums of a
 * block added into a part's three 43-bit limbs (of the block's slot: mode_projections.h)
 * by atomics (any blocks, any order: the host's integers), for the exact kernel over the
 * projections and for the counts that weigh their own columns and rows
 * (measure_projections.cu, ising/ising_bits_fold.cu), whose threads sum their weighed
 * counts in 32-bit halves (exact_acc).
 */
#ifndef LATMC_CUDA_MODES_EXACT_CUH
#define LATMC_CUDA_MODES_EXACT_CUH

#include "mode_projections.h"
#include "modes_exact.h"

/*
 * A thread's exact sum of products v w of small integers v and 64-bit weights w in two
 * 64-bit sums of 32-bit products (two wide multiply-adds a product, far fewer
 * instructions than a 128-bit product): w = hi 2^32 + lo with lo the signed low word
 * and hi = (w - lo) / 2^32 (within 2^30 + 1 of 0 for |w| <= 2^62), so that sum v w =
 * 2^32 sum v hi + sum v lo exactly while the sum of |v| over one accumulator stays below
 * 2^32 (each 64-bit sum then below 2^63). Host-callable for
 * tools/modes-exact-host-check.sh.
 */
struct exact_acc {
    long long hi, lo;
};

__host__ __device__ __forceinline__ void exact_acc_add(struct exact_acc &a, int v, long long w)
{
    const int lo = (int)(unsigned)(unsigned long long)w;
    const int hi = (int)(w >> 32) + (int)((unsigned)lo >> 31); /* the borrow lo < 0 took */
    a.lo += (long long)v * lo;
    a.hi += (long long)v * hi;
}

__host__ __device__ __forceinline__ __int128 exact_acc_value(const struct exact_acc &a)
{
    return (__int128)a.hi * ((__int128)1 << 32) + a.lo;
}

/* v shifted down by o lanes (__shfl_down_sync of both halves). */
__device__ __forceinline__ unsigned __int128 exact_shfl_down(unsigned __int128 v, int o)
{
    const unsigned long long lo = (unsigned long long)v, hi = (unsigned long long)(v >> 64);
    const unsigned long long a = __shfl_down_sync(0xffffffffu, lo, o),
                             b = __shfl_down_sync(0xffffffffu, hi, o);
    return ((unsigned __int128)b << 64) | a;
}

/* s (a 128-bit two's complement value) added into three limbs (latmc_i128_of_limbs): the
 * low two 43-bit pieces as they are, the top one with the sign. */
__device__ __forceinline__ void exact_add_limbs(unsigned __int128 s, unsigned long long *limb)
{
    const unsigned long long mask = (1ull << LATMC_MODES_LIMB_BITS) - 1;
    atomicAdd(limb, (unsigned long long)s & mask);
    atomicAdd(limb + 1, (unsigned long long)(s >> LATMC_MODES_LIMB_BITS) & mask);
    atomicAdd(limb + 2, (unsigned long long)((__int128)s >> (2 * LATMC_MODES_LIMB_BITS)));
}

/*
 * The block's (BT threads) sums of the K values v[k] added into limbs + 3 k of the block's
 * slot of SLOTS (mode_projections.h: slot s at limbs + 3 K s, the K values' limbs a slot;
 * the block's the grid's block index modulo SLOTS): a warp's by shuffles, the warps' by
 * thread 0 from sh (K x BT / 32, shared). Every thread of the block calls it; a barrier
 * inside, and sh free again after the block's next barrier. The additions in unsigned
 * 128-bit integers, modulo 2^128: the sums the core accepts lie far inside (below 2^127
 * in magnitude, lib/modes_exact.h), and those it refuses after the fact (a phi^4 field
 * past its bound) wrap without undefined behaviour.
 */
template <int K, int BT, int SLOTS, typename V>
__device__ __forceinline__ void exact_block_limbs(const V (&v)[K], unsigned __int128 *sh,
                                                  unsigned long long *limbs)
{
    constexpr int WARPS = BT / 32;
    const int warp = (int)threadIdx.x / 32, lane = (int)threadIdx.x % 32;
#pragma unroll
    for (int k = 0; k < K; k++) {
        unsigned __int128 s = (unsigned __int128)v[k];
        for (int o = 16; o > 0; o /= 2)
            s += exact_shfl_down(s, o);
        if (lane == 0)
            sh[k * WARPS + warp] = s;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned block = blockIdx.x + gridDim.x * blockIdx.y;
        unsigned long long *slot = limbs + (block % SLOTS) * (3 * K);
#pragma unroll
        for (int k = 0; k < K; k++) {
            unsigned __int128 s = 0;
            for (int w = 0; w < WARPS; w++)
                s += sh[k * WARPS + w];
            exact_add_limbs(s, slot + 3 * k);
        }
    }
}

#endif
