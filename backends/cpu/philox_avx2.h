/*
 * Philox4x32-10 (lib/philox.h) for eight blocks at once with AVX2: the random numbers of
 * the SIMD levels, bit-identical to the scalar generator. Include only from translation
 * units built with -mavx2 (the AVX2 and AVX-512 static libraries).
 *
 * Layout: a register holds four Philox instances, one per 64-bit lane, each word of the
 * state in the low half of its lane. _mm256_mul_epu32 then gives the four full 64-bit
 * products M * x of one word in one instruction, the high half is one shift away, and the
 * low half needs no masking (the next multiplication reads only low halves; the upper
 * halves only ever meet xors). One round of four instances is 2 multiplications, 2 shifts
 * and 4 xors: 8 instructions, 2 per output. Two registers (A, B) hold eight consecutive
 * blocks b .. b+7 as A = (b, b+1, b+4, b+5) and B = (b+2, b+3, b+6, b+7), an order chosen
 * so that the outputs come out with two unpacks in the order the byte-table lookups of
 * the kernels produce (philox8_avx2_block_order below).
 *
 * Counter words c1, c2, c3 are the same for all eight blocks (the callers pass groups of
 * eight blocks aligned to 8, so block >> 32 cannot change inside one): the first two rounds
 * then partly depend on constants only, which are folded once per pass (70 instead of 80
 * instructions per register).
 */
#ifndef LATMC_CPU_PHILOX_AVX2_H
#define LATMC_CPU_PHILOX_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "philox.h"

#define PHILOX8_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The round keys and the folded constants of one (key, c1, c2, c3). */
struct philox8_avx2 {
    __m256i k0[10], k1[10];  /* round keys, in the low half of each 64-bit lane */
    __m256i a1;              /* round 1: c3 ^ k1[0] */
    __m256i b2, c2;          /* round 2: lo(M1 c2) ^ k0[1]; hi(M0 r0) ^ k1[1] */
    __m256i d3;              /* round 3: lo(M0 r0) ^ k1[2] */
    __m256i m0, m1;          /* the multipliers */
};

static inline void philox8_avx2_setup(struct philox8_avx2 *pc, uint64_t seed, uint32_t c1,
                                      uint32_t c2, uint32_t c3)
{
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    uint32_t rk0[10], rk1[10];
    for (int r = 0; r < 10; r++) {
        rk0[r] = k0;
        rk1[r] = k1;
        pc->k0[r] = _mm256_set1_epi64x((long long)k0);
        pc->k1[r] = _mm256_set1_epi64x((long long)k1);
        k0 += LATMC_PHILOX_W0;
        k1 += LATMC_PHILOX_W1;
    }
    /* Round 1: p1 = M1 c2 is constant, so r0 = hi(p1) ^ c1 ^ k0 and r1 = lo(p1) are. */
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * c2;
    const uint32_t r0 = (uint32_t)(p1 >> 32) ^ c1 ^ rk0[0];
    /* Round 2: its p0 = M0 r0 is constant too. */
    const uint64_t q0 = (uint64_t)LATMC_PHILOX_M0 * r0;
    pc->a1 = _mm256_set1_epi64x((long long)(c3 ^ rk1[0]));
    pc->b2 = _mm256_set1_epi64x((long long)((uint32_t)p1 ^ rk0[1]));
    pc->c2 = _mm256_set1_epi64x((long long)((uint32_t)(q0 >> 32) ^ rk1[1]));
    pc->d3 = _mm256_set1_epi64x((long long)((uint32_t)q0 ^ rk1[2]));
    pc->m0 = _mm256_set1_epi64x(LATMC_PHILOX_M0);
    pc->m1 = _mm256_set1_epi64x(LATMC_PHILOX_M1);
}

/* One generic round on the four instances of one register. */
#define PHILOX8_ROUND(pc, r, x0, x1, x2, x3)                                              \
    do {                                                                                  \
        const __m256i p0_ = _mm256_mul_epu32((x0), (pc)->m0);                             \
        const __m256i p1_ = _mm256_mul_epu32((x2), (pc)->m1);                             \
        (x0) = _mm256_xor_si256(_mm256_srli_epi64(p1_, 32),                               \
                                _mm256_xor_si256((x1), (pc)->k0[r]));                     \
        (x2) = _mm256_xor_si256(_mm256_srli_epi64(p0_, 32),                               \
                                _mm256_xor_si256((x3), (pc)->k1[r]));                     \
        (x1) = p1_;                                                                       \
        (x3) = p0_;                                                                       \
    } while (0)

/*
 * The ten rounds for the blocks whose c0 are the low halves of ca (A) and cb (B); the four
 * output words of each instance are returned in the low halves of a[0..3], b[0..3].
 */
PHILOX8_ALWAYS_INLINE void philox8_avx2_rounds(const struct philox8_avx2 *pc, __m256i ca,
                                               __m256i cb, __m256i a[4], __m256i b[4])
{
    __m256i a0, a1, a2, a3, b0, b1, b2, b3;
    /* round 1: only p0 = M0 c0 varies */
    a3 = _mm256_mul_epu32(ca, pc->m0);
    b3 = _mm256_mul_epu32(cb, pc->m0);
    a2 = _mm256_xor_si256(_mm256_srli_epi64(a3, 32), pc->a1);
    b2 = _mm256_xor_si256(_mm256_srli_epi64(b3, 32), pc->a1);
    /* round 2: only p1 = M1 r2 varies; r3 becomes the constant lo(M0 r0) (in d3) */
    a1 = _mm256_mul_epu32(a2, pc->m1);
    b1 = _mm256_mul_epu32(b2, pc->m1);
    a0 = _mm256_xor_si256(_mm256_srli_epi64(a1, 32), pc->b2);
    b0 = _mm256_xor_si256(_mm256_srli_epi64(b1, 32), pc->b2);
    a2 = _mm256_xor_si256(a3, pc->c2);
    b2 = _mm256_xor_si256(b3, pc->c2);
    /* round 3: x3 is the constant folded into d3 */
    {
        const __m256i pa0 = _mm256_mul_epu32(a0, pc->m0), pa1 = _mm256_mul_epu32(a2, pc->m1);
        const __m256i pb0 = _mm256_mul_epu32(b0, pc->m0), pb1 = _mm256_mul_epu32(b2, pc->m1);
        a0 = _mm256_xor_si256(_mm256_srli_epi64(pa1, 32), _mm256_xor_si256(a1, pc->k0[2]));
        b0 = _mm256_xor_si256(_mm256_srli_epi64(pb1, 32), _mm256_xor_si256(b1, pc->k0[2]));
        a2 = _mm256_xor_si256(_mm256_srli_epi64(pa0, 32), pc->d3);
        b2 = _mm256_xor_si256(_mm256_srli_epi64(pb0, 32), pc->d3);
        a1 = pa1;
        b1 = pb1;
        a3 = pa0;
        b3 = pb0;
    }
    for (int r = 3; r < 10; r++) {
        PHILOX8_ROUND(pc, r, a0, a1, a2, a3);
        PHILOX8_ROUND(pc, r, b0, b1, b2, b3);
    }
    a[0] = a0; a[1] = a1; a[2] = a2; a[3] = a3;
    b[0] = b0; b[1] = b1; b[2] = b2; b[3] = b3;
}

/*
 * The 32 draws of blocks b .. b+7 (lane l of block b+i is draw 4 (b+i) + l, lib/rng_streams.h)
 * in "block order": d[m] holds, in its low 128-bit lane, the four draws of block b+m and,
 * in its high lane, those of block b+4+m. In draw numbers relative to 4b:
 *     d[0] = 0..3 | 16..19,  d[1] = 4..7 | 20..23,  d[2] = 8..11 | 24..27,  d[3] = 12..15 | 28..31
 * which is the order in which _mm256_unpack{lo,hi}_epi{8,16} spread 32 bytes into dwords
 * (and _mm256_packs_epi{32,16} gather them back).
 */
PHILOX8_ALWAYS_INLINE void philox8_avx2_block_order(const struct philox8_avx2 *pc, uint64_t b,
                                                    __m256i d[4])
{
    const __m256i ca = _mm256_add_epi64(_mm256_set1_epi64x((long long)b),
                                        _mm256_setr_epi64x(0, 1, 4, 5));
    const __m256i cb = _mm256_add_epi64(_mm256_set1_epi64x((long long)b),
                                        _mm256_setr_epi64x(2, 3, 6, 7));
    __m256i a[4], bb[4];
    philox8_avx2_rounds(pc, ca, cb, a, bb);
    /* (b, b+1 | b+4, b+5): words 0, 1 and words 2, 3 side by side, then one block per lane */
    const __m256i xa = _mm256_blend_epi32(a[0], _mm256_slli_epi64(a[1], 32), 0xAA);
    const __m256i ya = _mm256_blend_epi32(a[2], _mm256_slli_epi64(a[3], 32), 0xAA);
    const __m256i xb = _mm256_blend_epi32(bb[0], _mm256_slli_epi64(bb[1], 32), 0xAA);
    const __m256i yb = _mm256_blend_epi32(bb[2], _mm256_slli_epi64(bb[3], 32), 0xAA);
    d[0] = _mm256_unpacklo_epi64(xa, ya);
    d[1] = _mm256_unpackhi_epi64(xa, ya);
    d[2] = _mm256_unpacklo_epi64(xb, yb);
    d[3] = _mm256_unpackhi_epi64(xb, yb);
}

/* The same 32 draws in natural order, stored to out[0..31]. */
PHILOX8_ALWAYS_INLINE void philox8_avx2_store(const struct philox8_avx2 *pc, uint64_t b,
                                              uint32_t *out)
{
    __m256i d[4];
    philox8_avx2_block_order(pc, b, d);
    _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(d[0], d[1], 0x20));
    _mm256_storeu_si256((__m256i *)(out + 8), _mm256_permute2x128_si256(d[2], d[3], 0x20));
    _mm256_storeu_si256((__m256i *)(out + 16), _mm256_permute2x128_si256(d[0], d[1], 0x31));
    _mm256_storeu_si256((__m256i *)(out + 24), _mm256_permute2x128_si256(d[2], d[3], 0x31));
}

/* Block order from a natural-order array: draws p .. p+31 of `in` (any alignment). */
PHILOX8_ALWAYS_INLINE void philox8_avx2_load_block_order(const uint32_t *in, __m256i d[4])
{
    for (int m = 0; m < 4; m++)
        d[m] = _mm256_loadu2_m128i((const __m128i *)(in + 16 + 4 * m),
                                   (const __m128i *)(in + 4 * m));
}

#endif
