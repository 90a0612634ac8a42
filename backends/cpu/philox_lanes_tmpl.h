/*
 * Philox4x32-10 (lib/philox.h) on one vector's worth of counters at once, written once
 * over one SIMD level's primitives (philox_lanes_avx2.h: four blocks per __m256i;
 * philox_lanes_avx512.h: eight per __m512i). Each counter word is a vector of 64-bit
 * lanes, one Philox block per lane, the 32-bit word in the low half of its lane: vpmuludq
 * multiplies the low halves into the full 64-bit product, whose high half is the next
 * round's "hi" and whose low half is already the next "lo" word, so a round is 2
 * multiplies, 2 shifts and 2 three-way xors, with no shuffles. The high halves carry
 * garbage, which never reaches a low half (xor is bitwise, vpmuludq reads only low halves).
 *
 * The kernels draw many blocks whose counters differ only in word 3 (stream, phase, sub:
 * hit and draw number) while words 0-2 (block, sweep) are fixed for a group of sites;
 * _pre / _finish_sets hoist everything of the first three rounds that does not depend on
 * word 3 out of the loop over hits (the same function, evaluated in another order).
 *
 * The level's header defines before the inclusion (this file undefines them after it):
 *   PL_FN(name)          the level's name of a function or struct (latmc_philox_x4_name),
 *   PL_FULL              and of the full Philox (latmc_philox_x4);
 *   PL_V                 the vector; PL_SET1_64, PL_MUL (vpmuludq), PL_SRLI_32 (the high
 *                        halves down), PL_SLLI_32 (the low halves up), PL_AND, PL_OR,
 *                        PL_XOR, PL_XOR3 (a ^ b ^ c),
 *                        PL_BLEND_ODD32 (odd 32-bit elements from the second operand);
 *   PL_NSETS             sets of blocks _finish_sets interleaves;
 *   PL_LOOP_END, PL_LAST(k, c0, c1, c2, c3, out01, out23): _finish_sets runs rounds 4 to
 *                        PL_LOOP_END - 1 in its loop, then PL_LAST on each set gives its
 *                        packed outputs (the remaining rounds and the pack);
 * and the level's header names the round PL_FN(round) as its ROUND macro.
 */

/* The ten round keys (lib/philox_fold.h), broadcast. */
struct PL_FN(keys) {
    PL_V k0[10], k1[10];
};

static inline void PL_FN(keys_init)(struct PL_FN(keys) *k, uint64_t seed)
{
    latmc_philox_key key[10];
    latmc_philox_round_keys(seed, key);
    for (int r = 0; r < 10; r++) {
        k->k0[r] = PL_SET1_64((long long)key[r].v[0]);
        k->k1[r] = PL_SET1_64((long long)key[r].v[1]);
    }
}

/* The counters of blocks `block` (one per 64-bit lane, below 2^48) of the draws named by
 * the words c1 (block 0's), c2 and c3 (lib/rng_streams.h): word 0 the block's low half
 * (the lane's low half), word 1 c1 | the block's bits 32 to 47 (latmc_rng_word1_at). */
static inline void PL_FN(counters)(PL_V block, uint32_t c1, uint32_t c2, uint32_t c3,
                                   PL_V c[4])
{
    c[0] = block;
    c[1] = PL_OR(PL_SET1_64(c1), PL_AND(PL_SRLI_32(block), PL_SET1_64(0xffff)));
    c[2] = PL_SET1_64(c2);
    c[3] = PL_SET1_64(c3);
}

/* One Philox round on the blocks of a vector (keys of round r). */
static inline __attribute__((always_inline)) void PL_FN(round)(const struct PL_FN(keys) *k,
                                                               int r, PL_V *c0, PL_V *c1,
                                                               PL_V *c2, PL_V *c3)
{
    const PL_V p0 = PL_MUL(*c0, PL_SET1_64(LATMC_PHILOX_M0));
    const PL_V p1 = PL_MUL(*c2, PL_SET1_64(LATMC_PHILOX_M1));
    *c0 = PL_XOR3(PL_SRLI_32(p1), *c1, k->k0[r]);
    *c1 = p1;
    *c2 = PL_XOR3(PL_SRLI_32(p0), *c3, k->k1[r]);
    *c3 = p0;
}

/* Words (0, 1) of each block as one 64-bit lane (out01), words (2, 3) (out23); lane i of
 * each is block i of the input. */
static inline void PL_FN(pack)(PL_V c0, PL_V c1, PL_V c2, PL_V c3, PL_V *out01, PL_V *out23)
{
    *out01 = PL_BLEND_ODD32(c0, PL_SLLI_32(c1));
    *out23 = PL_BLEND_ODD32(c2, PL_SLLI_32(c3));
}

/* Full Philox4x32-10 of a vector of counters (words in 64-bit lanes, high halves ignored). */
static inline void PL_FULL(const struct PL_FN(keys) *k, PL_V *c0, PL_V *c1, PL_V *c2, PL_V *c3)
{
    PL_V a = *c0, b = *c1, c = *c2, d = *c3;
    for (int r = 0; r < 10; r++)
        PL_FN(round)(k, r, &a, &b, &c, &d);
    *c0 = a;
    *c1 = b;
    *c2 = c;
    *c3 = d;
}

/*
 * The part of rounds 0-3 that depends only on words 0-2 of the counters (see the top of
 * the file). Round r's words are written c_w^r (after the round):
 *   r0: c0 = hi(M1 w2) ^ w1 ^ k0_0, c1 = lo(M1 w2), c2 = hi(M0 w0) ^ w3 ^ k1_0, c3 = lo(M0 w0)
 *   r1: c0 = hi(M1 c2) ^ c1 ^ k0_1 (c2 depends on w3), c2 = hi(M0 c0) ^ c3 ^ k1_1 (fixed)
 *   r2: c1 = lo(M1 c2) fixed, c3 = lo(M0 c0) depends on w3; c0 = hi(M1 c2) ^ c1 ^ k0_2 with
 *       fixed hi(M1 c2) and the varying c1 of r1, ...
 */
struct PL_FN(pre) {
    PL_V v;  /* r0: c2 = v ^ w3 */
    PL_V b;  /* r1: c0 = hi(M1 c2) ^ b */
    PL_V d2; /* r1: c2 (fixed) */
    PL_V d3; /* r1: c3 (fixed) */
    PL_V f;  /* r2: c0 = c1(r1) ^ f */
    PL_V g;  /* r2: c2 = hi(M0 c0(r1)) ^ g */
    PL_V h;  /* r3: c0 = hi(M1 c2(r2)) ^ h */
};

static inline void PL_FN(pre)(const struct PL_FN(keys) *k, PL_V w0, PL_V w1, PL_V w2,
                              struct PL_FN(pre) *pre)
{
    const PL_V m0 = PL_SET1_64(LATMC_PHILOX_M0);
    const PL_V m1 = PL_SET1_64(LATMC_PHILOX_M1);
    /* round 0 */
    const PL_V p0 = PL_MUL(w0, m0), p1 = PL_MUL(w2, m1);
    const PL_V a0 = PL_XOR3(PL_SRLI_32(p1), w1, k->k0[0]);
    const PL_V a1 = p1, a3 = p0;
    pre->v = PL_XOR(PL_SRLI_32(p0), k->k1[0]);
    /* round 1 */
    const PL_V q = PL_MUL(a0, m0);
    pre->b = PL_XOR(a1, k->k0[1]);
    pre->d2 = PL_XOR3(PL_SRLI_32(q), a3, k->k1[1]);
    pre->d3 = q;
    /* round 2 */
    const PL_V e = PL_MUL(pre->d2, m1);
    pre->f = PL_XOR(PL_SRLI_32(e), k->k0[2]);
    pre->g = PL_XOR(pre->d3, k->k1[2]);
    /* round 3: c1(r2) = lo(e) is fixed */
    pre->h = PL_XOR(e, k->k0[3]);
}

/*
 * The rest of Philox4x32-10 for word 3 = w3 (per lane) on PL_NSETS independent sets of
 * blocks at once, round by round, so that the instruction stream interleaves PL_NSETS
 * dependency chains (one Philox is ~55 cycles of serial latency; out-of-order execution
 * alone overlaps too few of them); returns the packed outputs.
 */
static inline __attribute__((always_inline)) void PL_FN(finish_sets)(
    const struct PL_FN(keys) *k, const struct PL_FN(pre) *const pre[PL_NSETS], PL_V w3,
    PL_V out01[PL_NSETS], PL_V out23[PL_NSETS])
{
    enum { N = PL_NSETS };
    const PL_V m0 = PL_SET1_64(LATMC_PHILOX_M0);
    const PL_V m1 = PL_SET1_64(LATMC_PHILOX_M1);
    PL_V c0[N], c1[N], c2[N], c3[N];
#pragma GCC unroll 4
    for (int i = 0; i < N; i++) {
        /* rounds 0 and 1 */
        const PL_V p1_1 = PL_MUL(PL_XOR(pre[i]->v, w3), m1);
        const PL_V c0_1 = PL_XOR(PL_SRLI_32(p1_1), pre[i]->b);
        /* round 2 */
        const PL_V p0_2 = PL_MUL(c0_1, m0);
        c0[i] = PL_XOR(p1_1, pre[i]->f);
        c2[i] = PL_XOR(PL_SRLI_32(p0_2), pre[i]->g);
        c3[i] = p0_2;
    }
#pragma GCC unroll 4
    for (int i = 0; i < N; i++) {
        /* round 3: c1 was fixed, folded into h */
        const PL_V p0_3 = PL_MUL(c0[i], m0), p1_3 = PL_MUL(c2[i], m1);
        c0[i] = PL_XOR(PL_SRLI_32(p1_3), pre[i]->h);
        c1[i] = p1_3;
        c2[i] = PL_XOR3(PL_SRLI_32(p0_3), c3[i], k->k1[3]);
        c3[i] = p0_3;
    }
#pragma GCC unroll 6
    for (int r = 4; r < PL_LOOP_END; r++) {
#pragma GCC unroll 4
        for (int i = 0; i < N; i++)
            PL_FN(round)(k, r, &c0[i], &c1[i], &c2[i], &c3[i]);
    }
#pragma GCC unroll 4
    for (int i = 0; i < N; i++)
        PL_LAST(k, c0[i], c1[i], c2[i], c3[i], &out01[i], &out23[i]);
}

#undef PL_FN
#undef PL_FULL
#undef PL_V
#undef PL_SET1_64
#undef PL_MUL
#undef PL_SRLI_32
#undef PL_SLLI_32
#undef PL_AND
#undef PL_OR
#undef PL_XOR
#undef PL_XOR3
#undef PL_BLEND_ODD32
#undef PL_NSETS
#undef PL_LOOP_END
#undef PL_LAST
