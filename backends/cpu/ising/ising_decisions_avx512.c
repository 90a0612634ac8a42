/*
 * The bit-sliced Ising decisions (decisions = 1, doc/models/ising-decisions.md) at the
 * AVX-512 level (F, BW, DQ, VL): the primitives of ising_decisions_simd_tmpl.h over 16
 * lanes of 32 bits (16 groups of 32 sites a batch). Differences from AVX2, none in the
 * chain: Philox with one state word per register and vpternlogq for its three-way xors
 * (eight instances a register, as ising_avx512.c runs it), the outputs put in lane order
 * by one vpermt2d each, and each plane of the comparison in three instructions
 * (vpternlogd: und & tb & ~w, and und & ~(w ^ tb)).
 */
#include <immintrin.h>
#include <stdint.h>

#include "philox16_avx512.h"
#include "philox_fold.h"

typedef __m512i bvec;
#define NB 16
/* Philox subs whose folds a pass keeps: planes 0 .. 15 (ising_decisions_simd_tmpl.h) */
#define DEC_SUBS 4
#define DEC_LEVEL_ENTRY cpu_ising_decisions_range_avx512
#define DEC_LEVEL_PREPARE cpu_ising_decisions_prepare_avx512
#define DEC_LEVEL_RANGE_PASS cpu_ising_decisions_range_pass_avx512
#define DEC_LEVEL_NAME "avx512"
#define DEC_LEVEL_DSP_INIT cpu_ising_dec_dsp_init_avx512
/* a batch's whole groups two at a time in 64-byte vectors (group_codes_pair) */
#define DEC_PAIRS 1
/* a batch's undecided groups go to the tail queue by vpcompressd (queue_compress) */
#define DEC_COMPRESS 1

/* The primitives are inlined into every variant, except in checkasm's copy with emulated
 * intrinsics (tests/checkasm/meson.build), which would take many minutes to compile so:
 * there each is a function of its own. The same code either way. */
#ifdef LATMC_DEC_EMULATED
#define BINLINE static __attribute__((noinline, unused))
#else
#define BINLINE static inline __attribute__((always_inline))
#endif
#define PINLINE BINLINE

BINLINE bvec b_zero(void) { return _mm512_setzero_si512(); }
BINLINE bvec b_ones(void) { return _mm512_set1_epi32(-1); }
BINLINE bvec b_load(const uint32_t *p) { return _mm512_load_si512((const void *)p); }
BINLINE void b_store(uint32_t *p, bvec x) { _mm512_store_si512((void *)p, x); }
BINLINE bvec b_and(bvec a, bvec b) { return _mm512_and_si512(a, b); }
BINLINE bvec b_or(bvec a, bvec b) { return _mm512_or_si512(a, b); }
BINLINE bvec b_xor(bvec a, bvec b) { return _mm512_xor_si512(a, b); }
BINLINE bvec b_andnot(bvec a, bvec b) { return _mm512_andnot_si512(a, b); }
/* x | (a & s): truth table 0xF8 of (x, a, s) */
BINLINE bvec b_or_and(bvec x, bvec a, bvec s) { return _mm512_ternarylogic_epi32(x, a, s, 0xF8); }

/* latmc_bitslice_plane on 16 groups: acc |= und & tb & ~w (table 0x40 of (und, tb, w));
 * und &= ~(w ^ tb) (table 0x90 of (und, w, tb)). */
BINLINE void b_plane(bvec *acc, bvec *und, bvec w, bvec tb)
{
    *acc = _mm512_or_si512(*acc, _mm512_ternarylogic_epi32(*und, tb, w, 0x40));
    *und = _mm512_ternarylogic_epi32(*und, w, tb, 0x90);
}

/* All ones in lanes 0 .. n - 1 (0 <= n <= NB), zero above. */
BINLINE bvec b_lanes_below(int n)
{
    return _mm512_maskz_mov_epi32((__mmask16)((1u << n) - 1u), b_ones());
}

BINLINE uint32_t b_nonzero_lanes(bvec x) { return (uint32_t)_mm512_test_epi32_mask(x, x); }

/* The lanes of x in `keep` packed to dst[0 ..] (64 bytes written: dst has room). */
BINLINE void queue_compress(uint32_t *dst, uint32_t keep, bvec x)
{
    _mm512_storeu_si512((void *)dst, _mm512_maskz_compress_epi32((__mmask16)keep, x));
}

/* Set bits per byte (a nibble table), summed into the eight 64-bit lanes of *cnt. */
PINLINE void b_count_add(bvec *cnt, bvec x)
{
    const __m512i table = _mm512_broadcast_i32x4(
        _mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4));
    const __m512i low = _mm512_set1_epi8(0x0f);
    const __m512i n = _mm512_add_epi8(
        _mm512_shuffle_epi8(table, _mm512_and_si512(x, low)),
        _mm512_shuffle_epi8(table, _mm512_and_si512(_mm512_srli_epi16(x, 4), low)));
    *cnt = _mm512_add_epi64(*cnt, _mm512_sad_epu8(n, _mm512_setzero_si512()));
}

static inline uint64_t b_count_total(bvec cnt)
{
    _Alignas(64) uint64_t q[8];
    _mm512_store_si512((void *)q, cnt);
    return q[0] + q[1] + q[2] + q[3] + q[4] + q[5] + q[6] + q[7];
}

/* A sub's folded words (philox16_avx512.h: struct latmc_philox16_fold's a1 .. a4). */
struct dec_fold_a {
    __m512i a1, a2, a3, a4;
};

/* The folds of subs 0 .. DEC_SUBS - 1: the round keys once (every sub's fold has the
 * seed's keys) and each sub's folded words. */
struct dphilox {
    struct latmc_philox16_fold k; /* the keys (its a1 .. a4: sub 0's, unused) */
    struct dec_fold_a f[DEC_SUBS];
    __m512i m0, m1;
};

static void dphilox_setup(struct dphilox *p, const struct latmc_philox_fold f[DEC_SUBS])
{
    latmc_philox16_fold_set(&p->k, &f[0]);
    for (int q = 0; q < DEC_SUBS; q++) {
        p->f[q].a1 = _mm512_set1_epi64((long long)f[q].a1);
        p->f[q].a2 = _mm512_set1_epi64((long long)f[q].a2);
        p->f[q].a3 = _mm512_set1_epi64((long long)f[q].a3);
        p->f[q].a4 = _mm512_set1_epi64((long long)f[q].a4);
    }
    p->m0 = _mm512_set1_epi64(LATMC_PHILOX_M0);
    p->m1 = _mm512_set1_epi64(LATMC_PHILOX_M1);
}

/* Ten rounds for `chains` sets of eight blocks, chain g with fold fs[g]. */
BINLINE void rounds_of(const struct dphilox *p, const struct dec_fold_a *const *fs,
                       const __m512i *c, __m512i x[][4], const int chains)
{
#define DEC_FOLD_(g) (fs[g])
#define DEC_KEYS_(g) (&p->k) /* every fold's keys: those of the one seed */
    LATMC_PHILOX16_ROUNDS_KEYS(DEC_FOLD_, DEC_KEYS_, p->m0, p->m1, c, x, chains);
#undef DEC_KEYS_
#undef DEC_FOLD_
}

/* Chains e (even lanes' blocks) and o (odd lanes') to lane order: dword 2 j from e's
 * 64-bit lane j, dword 2 j + 1 from o's (its low dword moved up by a vpshufd merged into
 * e under the odd dwords' mask: within 128-bit lanes, so cheaper on Zen 4 than the
 * two-source vpermt2d it replaces). */
BINLINE void lanes_of_chains(__m512i e[4], __m512i o[4], bvec *w)
{
    for (int l = 0; l < 4; l++)
        w[l] = _mm512_mask_shuffle_epi32(e[l], (__mmask16)0xAAAA, o[l], _MM_PERM_CDAB);
}

PINLINE void dphilox_main(const struct dphilox *p, uint32_t blo, bvec *w)
{
    const __m512i b = _mm512_add_epi32(_mm512_set1_epi32((int)blo),
                                       _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                         12, 13, 14, 15));
    const __m512i c[4] = { b, _mm512_srli_epi64(b, 32), b, _mm512_srli_epi64(b, 32) };
    __m512i x[4][4];
    const struct dec_fold_a *const fs[4] = { &p->f[0], &p->f[0], &p->f[1], &p->f[1] };
    rounds_of(p, fs, c, x, 4);
    lanes_of_chains(x[0], x[1], w);
    lanes_of_chains(x[2], x[3], w + 4);
}

PINLINE void dphilox_tail(const struct dphilox *p, int q, const uint32_t *blo, bvec *w)
{
    const __m512i b = _mm512_loadu_si512((const void *)blo);
    const __m512i c[2] = { b, _mm512_srli_epi64(b, 32) };
    __m512i x[2][4];
    const struct dec_fold_a *const fs[2] = { &p->f[q], &p->f[q] };
    rounds_of(p, fs, c, x, 2);
    lanes_of_chains(x[0], x[1], w);
}

#include "ising_decisions_simd_tmpl.h"
