/*
 * Philox4x32-10 with the folded first rounds of lib/philox_fold.h, on eight blocks per
 * __m512i (one block per 64-bit lane, words in the low halves; vpmuludq gives a round's
 * "hi" and "lo" at once, each three-way xor one vpternlogq), for the Ising AVX-512
 * kernels: ising_avx512.c (one fold for all its blocks) and ising_decisions_avx512.c (a
 * fold per chain of blocks). Include only where the AVX-512 flags are on.
 */
#ifndef LATMC_CPU_PHILOX16_AVX512_H
#define LATMC_CPU_PHILOX16_AVX512_H

#include <immintrin.h>

#include "philox_fold.h"

/* vpternlog truth table of a ^ b ^ c */
#define LATMC_PHILOX16_XOR3 0x96

/* One fold (lib/philox_fold.h) broadcast: the round keys and the folded constants. */
struct latmc_philox16_fold {
    __m512i k0[10], k1[10];
    __m512i a1; /* round 1: c3 ^ k1[0] */
    __m512i a2; /* round 2: lo(M1 c2) ^ k0[1] */
    __m512i a3; /* round 2: hi(M0 r0) ^ k1[1] */
    __m512i a4; /* round 3: lo(M0 r0) ^ k1[2] */
};

static inline void latmc_philox16_fold_set(struct latmc_philox16_fold *v,
                                           const struct latmc_philox_fold *f)
{
    for (int r = 0; r < 10; r++) {
        v->k0[r] = _mm512_set1_epi64((long long)f->k[r].v[0]);
        v->k1[r] = _mm512_set1_epi64((long long)f->k[r].v[1]);
    }
    v->a1 = _mm512_set1_epi64((long long)f->a1);
    v->a2 = _mm512_set1_epi64((long long)f->a2);
    v->a3 = _mm512_set1_epi64((long long)f->a3);
    v->a4 = _mm512_set1_epi64((long long)f->a4);
}

/*
 * Ten rounds for `chains` (a compile-time constant, at most 4) sets of eight blocks, c[g]
 * their block numbers (low halves used), chain g with fold FOLD(g) (FOLD a macro of the
 * includer's, so that the fold's address is the includer's own expression and the
 * kernels compile as they did when each wrote the rounds), m0 and m1 the multipliers
 * broadcast: x[g][w] = output word w of each block on return, in the low halves. The
 * chains are interleaved round by round (independent dependency chains).
 */
#define LATMC_PHILOX16_ROUNDS(FOLD, m0, m1, c, x, chains)                                          \
    LATMC_PHILOX16_ROUNDS_KEYS(FOLD, FOLD, m0, m1, c, x, chains)

/*
 * The same with the round keys of chain g read from KEYS(g)'s k0, k1 (the folded
 * constants still from FOLD(g)): chains whose folds share a seed share their keys, and
 * with KEYS the same address for all of them each round's two keys are loaded once.
 */
#define LATMC_PHILOX16_ROUNDS_KEYS(FOLD, KEYS, m0, m1, c, x, chains)                               \
    do {                                                                                           \
        for (int g = 0; g < (chains); g++) { /* round 1 */                                         \
            (x)[g][3] = _mm512_mul_epu32((c)[g], (m0));                                            \
            (x)[g][2] = _mm512_xor_si512(_mm512_srli_epi64((x)[g][3], 32), FOLD(g)->a1);           \
        }                                                                                          \
        for (int g = 0; g < (chains); g++) { /* round 2 (x3 becomes a constant) */                 \
            (x)[g][1] = _mm512_mul_epu32((x)[g][2], (m1));                                         \
            (x)[g][0] = _mm512_xor_si512(_mm512_srli_epi64((x)[g][1], 32), FOLD(g)->a2);           \
            (x)[g][2] = _mm512_xor_si512((x)[g][3], FOLD(g)->a3);                                  \
        }                                                                                          \
        for (int g = 0; g < (chains); g++) { /* round 3 */                                         \
            const __m512i p0_ = _mm512_mul_epu32((x)[g][0], (m0));                                 \
            const __m512i p1_ = _mm512_mul_epu32((x)[g][2], (m1));                                 \
            (x)[g][0] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1_, 32), (x)[g][1],           \
                                                  KEYS(g)->k0[2], LATMC_PHILOX16_XOR3);            \
            (x)[g][2] = _mm512_xor_si512(_mm512_srli_epi64(p0_, 32), FOLD(g)->a4);                 \
            (x)[g][1] = p1_;                                                                       \
            (x)[g][3] = p0_;                                                                       \
        }                                                                                          \
        _Pragma("GCC unroll 7") for (int r = 3; r < 10; r++)                                       \
        {                                                                                          \
            _Pragma("GCC unroll 4") for (int g = 0; g < (chains); g++)                             \
            {                                                                                      \
                const __m512i p0_ = _mm512_mul_epu32((x)[g][0], (m0));                             \
                const __m512i p1_ = _mm512_mul_epu32((x)[g][2], (m1));                             \
                (x)[g][0] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p1_, 32), (x)[g][1],       \
                                                      KEYS(g)->k0[r], LATMC_PHILOX16_XOR3);        \
                (x)[g][2] = _mm512_ternarylogic_epi64(_mm512_srli_epi64(p0_, 32), (x)[g][3],       \
                                                      KEYS(g)->k1[r], LATMC_PHILOX16_XOR3);        \
                (x)[g][1] = p1_;                                                                   \
                (x)[g][3] = p0_;                                                                   \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
