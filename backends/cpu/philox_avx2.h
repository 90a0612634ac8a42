/*
 * Philox4x32-10 (lib/philox.h) for groups of eight blocks with AVX2: the random numbers of
 * the SIMD levels, bit-identical to the scalar generator. Include only from translation
 * units built with -mavx2 (the AVX2 and AVX-512 static libraries).
 *
 * State. A register pair (U, V) holds four Philox instances, one per 64-bit lane:
 *     U = [ x0 | x1 ^ k0 ]   V = [ x2 | x3 ^ k1 ]   (low | high 32 bits of each lane)
 * with k0, k1 the keys of the round about to run. _mm256_mul_epu32 reads only the low
 * halves, so p0 = M0 x0 = mul(U, M0) and p1 = M1 x2 = mul(V, M1), full 64-bit products.
 * The round  x0' = hi(p1) ^ x1 ^ k0,  x1' = lo(p1),  x2' = hi(p0) ^ x3 ^ k1,  x3' = lo(p0)
 * then becomes, with n0, n1 the keys of the next round in the low halves of N0, N1:
 *     U' = swap(p1 ^ blend(U, N0)),   V' = swap(p0 ^ blend(V, N1))
 * where blend takes the low halves from N and swap exchanges the halves of each lane
 * (_mm256_shuffle_epi32). 8 instructions per round and four instances (2 multiplies on
 * the multiply pipes, 2 swaps on the shuffle pipes, 2 blends and 2 xors anywhere), a
 * critical path of multiply + xor + swap = 5 cycles on Zen 3, and only two registers of
 * state: sixteen instances (four pairs) fit in the sixteen ymm registers with room for
 * the temporaries, enough independent chains to keep four pipes busy.
 *
 * After the last round ("next key" 0, or the sign bit, see below) U = [out0 | out1] and
 * V = [out2 | out3]: two unpacks give the draws of a block side by side.
 *
 * Counter words c1, c2, c3 are the same for all blocks of a call (callers pass groups of
 * eight blocks aligned to 8, so block >> 32 cannot change inside one): round 1 then only
 * multiplies c0, and round 2 only x2; their constant parts are folded once per setup
 * (lib/philox_fold.h; 73 instructions per pair and ten rounds instead of 80).
 */
#ifndef LATMC_CPU_PHILOX_AVX2_H
#define LATMC_CPU_PHILOX_AVX2_H

#include <immintrin.h>
#include <stdint.h>

#include "philox_fold.h"

#define PHILOX8_ALWAYS_INLINE static inline __attribute__((always_inline))

/* The vectors of one fold (seed, c1, c2, c3) and out_xor. */
struct philox8_avx2 {
    __m256i n0[10], n1[10]; /* round r blends in these: the keys of round r + 1 (r = 9: out_xor) */
    __m256i u1;             /* U after round 1 (constant) */
    __m256i w0;             /* round 1: V' = swap(p0 ^ w0) */
    __m256i w1;             /* round 2: U' = swap(p1 ^ w1) */
    __m256i q0;             /* round 2: p0 = M0 lo(u1), constant */
    __m256i m0, m1;         /* the multipliers */
};

/*
 * The vectors of one fold (lib/philox_fold.h: the keys and folded constants are computed
 * there, broadcast here). out_xor is xored into all four outputs at no cost (the kernels
 * want the sign bit flipped for signed compares: 0x80000000; plain draws: 0).
 */
static inline void philox8_avx2_setup(struct philox8_avx2 *pc, const struct latmc_philox_fold *f,
                                      uint32_t out_xor)
{
    uint32_t n0[10], n1[10];
    for (int r = 0; r < 10; r++) {
        /* round 8 blends in round 9's keys, whose xor reaches outputs 0 and 2; round 9
         * blends in out_xor, which becomes part of outputs 1 and 3 */
        n0[r] = r < 9 ? f->k[r + 1].v[0] : 0;
        n1[r] = r < 9 ? f->k[r + 1].v[1] : 0;
        if (r >= 8) {
            n0[r] ^= out_xor;
            n1[r] ^= out_xor;
        }
        pc->n0[r] = _mm256_set1_epi64x((long long)n0[r]);
        pc->n1[r] = _mm256_set1_epi64x((long long)n1[r]);
    }
    /* round 1: V = [c2 | c3 ^ k1] is constant, so p1 and U' = [u0 | u1 ^ n0[0] = a2] are */
    pc->u1 = _mm256_set1_epi64x((long long)(((uint64_t)f->a2 << 32) | f->u0));
    pc->w0 = _mm256_set1_epi64x((long long)(((uint64_t)f->a1 << 32) | n1[0]));
    /* round 2: U = u1 is constant, so p0 = M0 u0 is */
    pc->w1 = _mm256_set1_epi64x((long long)(((uint64_t)f->a2 << 32) | n0[1]));
    pc->q0 = _mm256_set1_epi64x((long long)f->m0u0);
    pc->m0 = _mm256_set1_epi64x(LATMC_PHILOX_M0);
    pc->m1 = _mm256_set1_epi64x(LATMC_PHILOX_M1);
}

#define PHILOX8_SWAP(x) _mm256_shuffle_epi32((x), 0xB1)

/*
 * Ten rounds for `pairs` register pairs (a compile-time constant, 1 to 6): on entry c[i]
 * holds the four blocks of pair i as 64-bit numbers (only the low halves are used); on
 * exit u[i] = [out0 | out1], v[i] = [out2 | out3] of each -- or, without the last swap
 * (last_swap 0), u[i] = [out1 | out0], v[i] = [out3 | out2].
 */
PHILOX8_ALWAYS_INLINE void philox8_avx2_rounds(const struct philox8_avx2 *pc, const __m256i *c,
                                               __m256i *u, __m256i *v, const int pairs,
                                               const int last_swap)
{
    /* round 1 */
#pragma GCC unroll 6
    for (int i = 0; i < pairs; i++)
        v[i] = PHILOX8_SWAP(_mm256_xor_si256(_mm256_mul_epu32(c[i], pc->m0), pc->w0));
    /* round 2 */
#pragma GCC unroll 6
    for (int i = 0; i < pairs; i++) {
        const __m256i p1 = _mm256_mul_epu32(v[i], pc->m1);
        u[i] = PHILOX8_SWAP(_mm256_xor_si256(p1, pc->w1));
        v[i] = PHILOX8_SWAP(_mm256_xor_si256(pc->q0, _mm256_blend_epi32(v[i], pc->n1[1], 0x55)));
    }
#pragma GCC unroll 8
    for (int r = 2; r < 10; r++) {
#pragma GCC unroll 6
        for (int i = 0; i < pairs; i++) {
            const __m256i p0 = _mm256_mul_epu32(u[i], pc->m0);
            const __m256i p1 = _mm256_mul_epu32(v[i], pc->m1);
            u[i] = _mm256_xor_si256(p1, _mm256_blend_epi32(u[i], pc->n0[r], 0x55));
            v[i] = _mm256_xor_si256(p0, _mm256_blend_epi32(v[i], pc->n1[r], 0x55));
            if (r < 9 || last_swap) {
                u[i] = PHILOX8_SWAP(u[i]);
                v[i] = PHILOX8_SWAP(v[i]);
            }
        }
    }
}

/* The counters of `groups` groups of 8 blocks from b0, in pairs: pair 2g holds blocks
 * (b, b+1, b+4, b+5), pair 2g+1 (b+2, b+3, b+6, b+7), b = b0 + 8g (the orders below). */
PHILOX8_ALWAYS_INLINE void philox8_avx2_counters(uint64_t b0, __m256i *c, const int groups)
{
    const __m256i base = _mm256_set1_epi64x((long long)b0);
#pragma GCC unroll 3
    for (int g = 0; g < groups; g++) {
        c[2 * g] = _mm256_add_epi64(base, _mm256_setr_epi64x(8 * g, 8 * g + 1, 8 * g + 4,
                                                             8 * g + 5));
        c[2 * g + 1] = _mm256_add_epi64(base, _mm256_setr_epi64x(8 * g + 2, 8 * g + 3,
                                                                 8 * g + 6, 8 * g + 7));
    }
}

/*
 * The 32 draws of blocks b .. b+7 of each of `groups` groups (group g: b = b0 + 8 g;
 * lane l of block b+i is draw 4 (b+i) + l, lib/rng_streams.h), in "block order":
 * d[4g + m] holds, in its low 128-bit lane, the four draws of block b+m and, in its high
 * lane, those of block b+4+m. In draw numbers relative to 4b:
 *     d[0] = 0..3 | 16..19,  d[1] = 4..7 | 20..23,  d[2] = 8..11 | 24..27,  d[3] = 12..15 | 28..31
 * which is the order in which _mm256_unpack{lo,hi}_epi{8,16} spread 32 bytes into dwords
 * (and _mm256_packs_epi{32,16} gather them back). Pair 2g holds blocks (b, b+1, b+4, b+5),
 * pair 2g+1 (b+2, b+3, b+6, b+7).
 */
PHILOX8_ALWAYS_INLINE void philox8_avx2_groups(const struct philox8_avx2 *pc, uint64_t b0,
                                               __m256i *d, const int groups)
{
    __m256i c[6], u[6], v[6];
    philox8_avx2_counters(b0, c, groups);
    philox8_avx2_rounds(pc, c, u, v, 2 * groups, 1);
#pragma GCC unroll 6
    for (int i = 0; i < 2 * groups; i++) {
        d[2 * i] = _mm256_unpacklo_epi64(u[i], v[i]);
        d[2 * i + 1] = _mm256_unpackhi_epi64(u[i], v[i]);
    }
}

/*
 * The same draws in "pair order", as the last round leaves them (no swap, no unpack, 3
 * instructions fewer per 8 draws): d[2i] = [out1 | out0], d[2i+1] = [out3 | out2] of the
 * four blocks of pair i, i.e. in draw numbers relative to 4b:
 *     d[0] = 1 0 5 4 | 17 16 21 20,   d[1] = 3 2 7 6 | 19 18 23 22,
 *     d[2] = 9 8 13 12 | 25 24 29 28,  d[3] = 11 10 15 14 | 27 26 31 30
 * (the same pattern, plus 32, for the second group).
 */
PHILOX8_ALWAYS_INLINE void philox8_avx2_pairs(const struct philox8_avx2 *pc, uint64_t b0,
                                              __m256i *d, const int groups)
{
    __m256i c[6], u[6], v[6];
    philox8_avx2_counters(b0, c, groups);
    philox8_avx2_rounds(pc, c, u, v, 2 * groups, 0);
#pragma GCC unroll 6
    for (int i = 0; i < 2 * groups; i++) {
        d[2 * i] = u[i];
        d[2 * i + 1] = v[i];
    }
}

/* Block order -> natural order: store the 32 draws of d[0..3] to out[0..31]. */
PHILOX8_ALWAYS_INLINE void philox8_avx2_store(const __m256i *d, uint32_t *out)
{
    _mm256_storeu_si256((__m256i *)out, _mm256_permute2x128_si256(d[0], d[1], 0x20));
    _mm256_storeu_si256((__m256i *)(out + 8), _mm256_permute2x128_si256(d[2], d[3], 0x20));
    _mm256_storeu_si256((__m256i *)(out + 16), _mm256_permute2x128_si256(d[0], d[1], 0x31));
    _mm256_storeu_si256((__m256i *)(out + 24), _mm256_permute2x128_si256(d[2], d[3], 0x31));
}

/* Natural order -> block order: draws in[0..31] (any alignment) into d[0..3]. */
PHILOX8_ALWAYS_INLINE void philox8_avx2_load(const uint32_t *in, __m256i *d)
{
    for (int m = 0; m < 4; m++)
        d[m] = _mm256_loadu2_m128i((const __m128i *)(in + 16 + 4 * m),
                                   (const __m128i *)(in + 4 * m));
}

#endif
