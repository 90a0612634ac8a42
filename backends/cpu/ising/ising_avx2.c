/*
 * Ising kernels of the AVX2 level: the primitives of ising_simd_tmpl.h (which holds the row
 * drivers, the neighbour count and the dispatch, written once for every level) over 32-byte
 * vectors. 32 sites of one colour per vector, two vectors per 16 Philox blocks, the same
 * integer decisions from the same Philox draws as the reference (lib/ising_rules.h), so
 * the chain is bit-identical.
 *
 * One vector, 32 sites j .. j+31 of one half-row (vector instructions, 2D Metropolis):
 *   - draws: Philox4x32-10 of 8 blocks, 142 (philox_avx2.h), left in the order its last
 *     round produces them, with the sign bit flipped for the signed compare (both free);
 *   - k, the number of up neighbours: 4 byte loads at offsets 0 / -1 / +1, 3 byte adds
 *     (3D: 6 loads, 5 adds); table index k | s << 3 (Metropolis): 2; into the draws'
 *     order: 1 byte shuffle;
 *   - threshold T - 1 of each site: 4 byte-table lookups (one per byte of the 32-bit value,
 *     _mm256_shuffle_epi8 with a 16-entry table) and 8 unpacks that spread them into
 *     dwords: 12;
 *   - 4 compares, 3 packs back to one byte per site, 1 shuffle back to site order, 2 to
 *     form the new spins, 1 movemask (+ a scalar popcount) to count the changes, 1 store.
 * About 172 vector instructions per 32 sites, five sixths of them Philox: the kernel is
 * bound by the generator (doc/PERFORMANCE.md has the ceiling measured alone).
 * +-J couplings: each neighbour's bytes xor-ed with its bond bit (ising_simd_tmpl.h): 3 (3D
 * 4) more loads and 10 (3D 16) more operations (and, xor, shift) per vector.
 */
#include <immintrin.h>
#include <stdint.h>

#include "ising_split.h"
#include "philox_avx2.h"

typedef __m256i vec;
#define VW 32

#define AI static inline __attribute__((always_inline))

AI vec v_loadu(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)(const void *)p); }
AI vec v_set1_8(int x) { return _mm256_set1_epi8((char)x); }
AI vec v_zero(void) { return _mm256_setzero_si256(); }
AI vec v_and(vec a, vec b) { return _mm256_and_si256(a, b); }
AI vec v_xor(vec a, vec b) { return _mm256_xor_si256(a, b); }
AI vec v_add8(vec a, vec b) { return _mm256_add_epi8(a, b); }
AI vec v_srli16(vec a, int n) { return _mm256_srli_epi16(a, n); }
AI uint32_t v_xor_fold(vec a)
{
    a = _mm256_xor_si256(a, _mm256_srli_si256(a, 8));
    a = _mm256_xor_si256(a, _mm256_srli_si256(a, 4));
    return (uint32_t)(_mm256_extract_epi32(a, 0) ^ _mm256_extract_epi32(a, 4));
}

/* ---- Philox: philox_avx2.h, eight blocks (four instances per register pair) a group ---- */

#define philox_consts philox8_avx2
/* the kernels compare signed: draws with the sign bit flipped (free in the last round) */
AI void philox_setup_kernels(struct philox8_avx2 *pc, const struct latmc_philox_fold *f)
{
    philox8_avx2_setup(pc, f, 0x80000000u);
}
AI void philox_setup_draws(struct philox8_avx2 *pc, const struct latmc_philox_fold *f)
{
    philox8_avx2_setup(pc, f, 0);
}
/* "pair order" (philox_avx2.h), as the last round leaves them; decide_store reorders the
 * sites instead (one byte shuffle per vector, against 12 instructions per 32 draws) */
AI void philox_registers(const struct philox8_avx2 *pc, uint64_t blk, vec *d, const int groups)
{
    philox8_avx2_pairs(pc, blk, d, groups);
}
AI void philox_natural(const struct philox8_avx2 *pc, uint64_t blk, uint32_t *out,
                       const int groups)
{
    vec d[8];
    philox8_avx2_groups(pc, blk, d, groups);
    for (int g = 0; g < groups; g++)
        philox8_avx2_store(d + 4 * g, out + 32 * g);
}
AI void draws_from_natural(const uint32_t *in, vec *d)
{
    philox8_avx2_load(in, d);
}

/* ---- the per-vector step ---- */

struct tables {
    vec plane[4], never, one;
    vec pair_order;  /* _mm256_shuffle_epi8 control: natural <-> pair order (an involution) */
};

static void tables_prepare(struct tables *tb, const struct cpu_ising_pass *p)
{
    for (int b = 0; b < 4; b++)
        tb->plane[b] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p->dec.plane[b]));
    tb->never = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p->dec.never));
    tb->one = _mm256_set1_epi8(1);
    tb->pair_order = _mm256_setr_epi8(1, 0, 5, 4, 3, 2, 7, 6, 9, 8, 13, 12, 11, 10, 15, 14,
                                      1, 0, 5, 4, 3, 2, 7, 6, 9, 8, 13, 12, 11, 10, 15, 14);
}

/* d: the draws in pair order (from_registers) or block order (philox8_avx2_load). */
AI unsigned decide_store(uint8_t *dst, vec s, vec k, const vec d[4], const struct tables *tb,
                         int heatbath, int never, int from_registers, uint64_t valid)
{
    /* bytes 0 / 1: shifting 16-bit words by 3 moves no bit across a byte */
    __m256i idx = heatbath ? k : _mm256_or_si256(k, _mm256_slli_epi16(s, 3));
    /* the sites in the order of the draws (philox_avx2.h): the unpacks below then give
     * each dword the threshold of the site whose draw is in the same dword of d */
    if (from_registers)
        idx = _mm256_shuffle_epi8(idx, tb->pair_order);
    const __m256i p0 = _mm256_shuffle_epi8(tb->plane[0], idx);
    const __m256i p1 = _mm256_shuffle_epi8(tb->plane[1], idx);
    const __m256i p2 = _mm256_shuffle_epi8(tb->plane[2], idx);
    const __m256i p3 = _mm256_shuffle_epi8(tb->plane[3], idx);
    const __m256i w01lo = _mm256_unpacklo_epi8(p0, p1), w01hi = _mm256_unpackhi_epi8(p0, p1);
    const __m256i w23lo = _mm256_unpacklo_epi8(p2, p3), w23hi = _mm256_unpackhi_epi8(p2, p3);
    const __m256i t0 = _mm256_unpacklo_epi16(w01lo, w23lo);
    const __m256i t1 = _mm256_unpackhi_epi16(w01lo, w23lo);
    const __m256i t2 = _mm256_unpacklo_epi16(w01hi, w23hi);
    const __m256i t3 = _mm256_unpackhi_epi16(w01hi, w23hi);
    /* reject iff u > T - 1: signed, both with the sign bit flipped (the draws by Philox) */
    const __m256i r0 = _mm256_cmpgt_epi32(d[0], t0);
    const __m256i r1 = _mm256_cmpgt_epi32(d[1], t1);
    const __m256i r2 = _mm256_cmpgt_epi32(d[2], t2);
    const __m256i r3 = _mm256_cmpgt_epi32(d[3], t3);
    __m256i reject = _mm256_packs_epi16(_mm256_packs_epi32(r0, r1), _mm256_packs_epi32(r2, r3));
    if (never)
        reject = _mm256_or_si256(reject, _mm256_shuffle_epi8(tb->never, idx));
    if (from_registers)
        reject = _mm256_shuffle_epi8(reject, tb->pair_order);
    const __m256i accept = _mm256_andnot_si256(reject, tb->one);
    uint32_t same;
    if (heatbath) {
        _mm256_storeu_si256((__m256i *)(void *)dst, accept);
        same = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(accept, s));
    } else {
        _mm256_storeu_si256((__m256i *)(void *)dst, _mm256_xor_si256(s, accept));
        same = (uint32_t)_mm256_movemask_epi8(reject);
    }
    return (unsigned)__builtin_popcount(~same & (uint32_t)valid);
}

#define ISING_LEVEL "avx2"
#define ISING_DSP_INIT cpu_ising_dsp_init_avx2
#include "ising_simd_tmpl.h"
