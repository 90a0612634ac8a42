/*
 * Counting the 1-bit layout's columns (ising_bits_fold.cu): each lane's count of -1 over
 * a chunk of rows in bit-sliced counters (word k: bit k of every lane's count), added a
 * batch of rows at a time by carry-save additions, and the counters transposed at the
 * chunk's end into a word a lane. BITS_HOST_CHECK (tools/bits-host-check.sh):
 * host-callable.
 */
#ifndef LATMC_CUDA_ISING_BITS_COUNT_CUH
#define LATMC_CUDA_ISING_BITS_COUNT_CUH

#include <stdint.h>

#include "ising_bits_walk.cuh" /* BITS_FN */

/* A chunk's count of -1 in a column: at most 2^BITS_LEVELS - 1 rows (the kernel's chunks
 * are capped below it). */
#define BITS_LEVELS 11
static_assert(2 * BITS_LEVELS <= 32 && BITS_LEVELS <= 16, "both parities' counts in a word");

/* sum, carry of a + b + c, bit by bit: two three-input logic operations */
BITS_FN void carry_save(uint32_t &sum, uint32_t &carry, uint32_t a, uint32_t b, uint32_t c)
{
    sum = a ^ b ^ c;
    carry = (a & b) | (c & (a ^ b));
}

/* Add k (weight 2^FROM) into the levels FROM .. of the counters, a half adder a level. */
template <int FROM> BITS_FN void ripple(uint32_t (&c)[BITS_LEVELS], uint32_t k)
{
#pragma unroll
    for (int lvl = FROM; lvl < BITS_LEVELS; lvl++) {
        const uint32_t t = c[lvl] & k;
        c[lvl] ^= k;
        k = t;
    }
}

/*
 * A batch's AHEAD words into the counters: carry-save additions level by level down to one
 * word of weight AHEAD (AHEAD - 1 of them), which waits in *pend for the next batch's; the
 * two then make one carry-save addition at level LOG_AHEAD and ripple on (half: a word
 * waits). Every thread of the block takes the same batches: half is the block's.
 */
template <int AHEAD, int LOG_AHEAD>
BITS_FN void count_batch(uint32_t (&c)[BITS_LEVELS], uint32_t (&w)[AHEAD],
                                            uint32_t &pend, bool half)
{
#pragma unroll
    for (int lvl = 0; lvl < LOG_AHEAD; lvl++) {
#pragma unroll
        for (int j = 0; j < (AHEAD >> (lvl + 1)); j++) {
            uint32_t s, k;
            carry_save(s, k, c[lvl], w[2 * j], w[2 * j + 1]);
            c[lvl] = s;
            w[j] = k;
        }
    }
    if (half) {
        uint32_t s, k;
        carry_save(s, k, c[LOG_AHEAD], pend, w[0]);
        c[LOG_AHEAD] = s;
        ripple<LOG_AHEAD + 1>(c, k);
    } else {
        pend = w[0];
    }
}

/* The chunk's end: the word still waiting (half), added at its level. */
template <int LOG_AHEAD>
BITS_FN void count_finish(uint32_t (&c)[BITS_LEVELS], uint32_t pend, bool half)
{
    if (half)
        ripple<LOG_AHEAD>(c, pend);
}

/* m[r] bit c <-> m[c] bit r: the off-diagonal blocks of each size swapped (rows k and
 * k + s, k's bit s clear: k's columns with bit s set against k + s's without). */
BITS_FN void transpose32(uint32_t (&m)[32])
{
    uint32_t lo = 0x0000FFFFu;
#pragma unroll
    for (int s = 16; s > 0; s >>= 1, lo ^= lo << s) {
#pragma unroll
        for (int k = 0; k < 32; k++) {
            if (k & s)
                continue;
            const uint32_t t = ((m[k] >> s) ^ m[k + s]) & lo;
            m[k] ^= t << s;
            m[k + s] ^= t;
        }
    }
}

#endif
