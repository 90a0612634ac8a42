/*
 * The AVX2 steps of the Swendsen-Wang row passes (lib/cluster_sw_rows.c, which says what
 * each computes and runs the rest of a row, or of a unit, in C): the same values, bit for
 * bit, 8 to 32 sites a step. Compiled for every x86-64 (the functions carry the target);
 * called only where latmc_have_avx2().
 */
#include "cluster_sw_rows.h"

#ifdef LATMC_ROWS_X86
#  include <immintrin.h>

/* 16 dword masks (0 or -1), in two vectors, to 16 bytes in order. */
__attribute__((target("avx2"))) static inline __m128i bytes_of(__m256i a, __m256i b)
{
    const __m256i w = _mm256_permute4x64_epi64(_mm256_packs_epi32(a, b), 0xd8);
    return _mm_packs_epi16(_mm256_castsi256_si128(w), _mm256_extracti128_si256(w, 1));
}

/* The draws' and the spins' masks in bytes, interleaved (x bond, y bond) per site as the
 * draws (and the couplings) are, then split. Inlined twice, with and without e, so that
 * the uniform loop carries no test of e. */
__attribute__((target("avx2"), always_inline)) static inline int64_t
bonds_avx2(const uint8_t *si, const uint8_t *su, const uint32_t *u, const int8_t *e,
           uint32_t last_draw, uint8_t flip, int64_t n, uint8_t *hx, uint8_t *vy)
{
    const __m128i zero = _mm_setzero_si128();
    const __m256i t = _mm256_set1_epi32((int)last_draw);
    const __m128i f = _mm_set1_epi8((char)(flip ? 0xff : 0)), one = _mm_set1_epi8(1);
    const __m128i split = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    int64_t x = 0;
    for (; x + 8 <= n; x += 8) {
        const __m256i u0 = _mm256_loadu_si256((const __m256i *)(const void *)(u + 2 * x));
        const __m256i u1 = _mm256_loadu_si256((const __m256i *)(const void *)(u + 2 * x + 8));
        const __m128i on = bytes_of(_mm256_cmpeq_epi32(_mm256_min_epu32(u0, t), u0),
                                    _mm256_cmpeq_epi32(_mm256_min_epu32(u1, t), u1));
        const __m128i s0 = _mm_loadl_epi64((const __m128i *)(const void *)(si + x));
        const __m128i s1 = _mm_loadl_epi64((const __m128i *)(const void *)(si + x + 1));
        const __m128i s2 = _mm_loadl_epi64((const __m128i *)(const void *)(su + x));
        __m128i same = _mm_unpacklo_epi8(_mm_cmpeq_epi8(s0, s1), _mm_cmpeq_epi8(s0, s2));
        if (e) /* a +-J coupling -1 flips "same" */
            same = _mm_xor_si128(
                same, _mm_cmplt_epi8(
                          _mm_loadu_si128((const __m128i *)(const void *)(e + 2 * x)), zero));
        const __m128i b = _mm_shuffle_epi8(
            _mm_and_si128(_mm_and_si128(_mm_xor_si128(same, f), on), one), split);
        _mm_storel_epi64((__m128i *)(void *)(hx + x), b);
        _mm_storel_epi64((__m128i *)(void *)(vy + x), _mm_srli_si128(b, 8));
    }
    return x;
}

__attribute__((target("avx2"))) int64_t latmc_rows_bonds_avx2(const uint8_t *si,
                                                               const uint8_t *su,
                                                               const uint32_t *u,
                                                               const int8_t *e,
                                                               uint32_t last_draw, uint8_t flip,
                                                               int64_t n, uint8_t *hx,
                                                               uint8_t *vy)
{
    return e ? bonds_avx2(si, su, u, e, last_draw, flip, n, hx, vy)
             : bonds_avx2(si, su, u, NULL, last_draw, flip, n, hx, vy);
}

/* The 3D bonds of 8 sites a step, as bonds_avx2: the 24 draws' masks (x, y, z bond per
 * site) and the couplings split by one shuffle per 16 bytes. */
__attribute__((target("avx2"), always_inline)) static inline int64_t
bonds3_avx2(const uint8_t *si, const uint8_t *su, const uint8_t *sv, const uint32_t *u,
            const int8_t *e, uint32_t last_draw, uint8_t flip, int64_t n, uint8_t *hx,
            uint8_t *vy, uint8_t *vz)
{
    const __m128i zero = _mm_setzero_si128();
    const __m256i t = _mm256_set1_epi32((int)last_draw), zero8 = _mm256_setzero_si256();
    const __m128i f = _mm_set1_epi8((char)(flip ? 0xff : 0)), one = _mm_set1_epi8(1);
    /* bytes 0 .. 15 and 16 .. 23 of the interleaved (x, y, z) triples to (x bonds, y
     * bonds) and (z bonds) */
    const __m128i xy_lo = _mm_setr_epi8(0, 3, 6, 9, 12, 15, -1, -1, 1, 4, 7, 10, 13, -1, -1, -1);
    const __m128i xy_hi = _mm_setr_epi8(-1, -1, -1, -1, -1, -1, 2, 5, -1, -1, -1, -1, -1, 0, 3, 6);
    const __m128i z_lo = _mm_setr_epi8(2, 5, 8, 11, 14, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i z_hi = _mm_setr_epi8(-1, -1, -1, -1, -1, 1, 4, 7, -1, -1, -1, -1, -1, -1, -1, -1);
#  define SPLIT(lo, hi, mlo, mhi) _mm_or_si128(_mm_shuffle_epi8(lo, mlo), _mm_shuffle_epi8(hi, mhi))
    int64_t x = 0;
    for (; x + 8 <= n; x += 8) {
        const uint32_t *ux = u + 3 * x;
        const __m256i u0 = _mm256_loadu_si256((const __m256i *)(const void *)ux);
        const __m256i u1 = _mm256_loadu_si256((const __m256i *)(const void *)(ux + 8));
        const __m256i u2 = _mm256_loadu_si256((const __m256i *)(const void *)(ux + 16));
        const __m128i on_lo = bytes_of(_mm256_cmpeq_epi32(_mm256_min_epu32(u0, t), u0),
                                       _mm256_cmpeq_epi32(_mm256_min_epu32(u1, t), u1));
        const __m128i on_hi = bytes_of(_mm256_cmpeq_epi32(_mm256_min_epu32(u2, t), u2), zero8);
        const __m128i s0 = _mm_loadl_epi64((const __m128i *)(const void *)(si + x));
        const __m128i s1 = _mm_loadl_epi64((const __m128i *)(const void *)(si + x + 1));
        const __m128i s2 = _mm_loadl_epi64((const __m128i *)(const void *)(su + x));
        const __m128i s3 = _mm_loadl_epi64((const __m128i *)(const void *)(sv + x));
        __m128i same_xy = _mm_unpacklo_epi64(_mm_cmpeq_epi8(s0, s1), _mm_cmpeq_epi8(s0, s2));
        __m128i same_z = _mm_cmpeq_epi8(s0, s3);
        if (e) { /* a +-J coupling -1 flips "same" */
            const __m128i e_lo = _mm_cmplt_epi8(
                _mm_loadu_si128((const __m128i *)(const void *)(e + 3 * x)), zero);
            const __m128i e_hi = _mm_cmplt_epi8(
                _mm_loadl_epi64((const __m128i *)(const void *)(e + 3 * x + 16)), zero);
            same_xy = _mm_xor_si128(same_xy, SPLIT(e_lo, e_hi, xy_lo, xy_hi));
            same_z = _mm_xor_si128(same_z, SPLIT(e_lo, e_hi, z_lo, z_hi));
        }
        const __m128i b_xy = _mm_and_si128(
            _mm_and_si128(_mm_xor_si128(same_xy, f), SPLIT(on_lo, on_hi, xy_lo, xy_hi)), one);
        const __m128i b_z = _mm_and_si128(
            _mm_and_si128(_mm_xor_si128(same_z, f), SPLIT(on_lo, on_hi, z_lo, z_hi)), one);
        _mm_storel_epi64((__m128i *)(void *)(hx + x), b_xy);
        _mm_storel_epi64((__m128i *)(void *)(vy + x), _mm_srli_si128(b_xy, 8));
        _mm_storel_epi64((__m128i *)(void *)(vz + x), b_z);
    }
#  undef SPLIT
    return x;
}

__attribute__((target("avx2"))) int64_t
latmc_rows_bonds3_avx2(const uint8_t *si, const uint8_t *su, const uint8_t *sv,
                       const uint32_t *u, const int8_t *e, uint32_t last_draw, uint8_t flip,
                       int64_t n, uint8_t *hx, uint8_t *vy, uint8_t *vz)
{
    return e ? bonds3_avx2(si, su, sv, u, e, last_draw, flip, n, hx, vy, vz)
             : bonds3_avx2(si, su, sv, u, NULL, last_draw, flip, n, hx, vy, vz);
}

__attribute__((target("avx2"))) int64_t latmc_rows_keep_avx2(const uint32_t *ud, int64_t n,
                                                              uint8_t *t)
{
    const __m128i one = _mm_set1_epi8(1);
    int64_t x = 0;
    for (; x + 16 <= n; x += 16) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(ud + x));
        const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(ud + x + 8));
        const __m128i flip = bytes_of(_mm256_srai_epi32(a, 31), _mm256_srai_epi32(b, 31));
        _mm_storeu_si128((__m128i *)(void *)(t + x), _mm_add_epi8(flip, one));
    }
    return x;
}

/* The need bits of 32 sites (latmc_rows_need): bytes -1 .. 31 of each row read. */
__attribute__((target("avx2"))) static inline uint32_t need32(const uint8_t *hx,
                                                              const uint8_t *hx_below,
                                                              const uint8_t *v_below)
{
#  define ROW32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
    const __m256i vb = ROW32(v_below), vb1 = ROW32(v_below - 1);
    const __m256i h1 = ROW32(hx - 1), hb1 = ROW32(hx_below - 1);
#  undef ROW32
    const __m256i implied = _mm256_and_si256(_mm256_and_si256(vb1, h1), hb1);
    const __m256i bit = _mm256_andnot_si256(implied, vb);
    return (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(bit, 7));
}

/* The runs' starts by a prefix maximum over 8 lanes (a start is its own index, other
 * sites 0), the bits by movemask. */
__attribute__((target("avx2"))) int64_t latmc_rows_runs_avx2(uint32_t *parent, int64_t base,
                                                              const uint8_t *hx,
                                                              const uint8_t *hx_below,
                                                              const uint8_t *vy_below,
                                                              int64_t n, uint32_t *need,
                                                              uint32_t *run)
{
    const __m256i zero = _mm256_setzero_si256(), lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i last = _mm256_set1_epi32(7);
    __m256i carry = zero;
    int64_t x = 0;
    for (; x + 32 <= n; x += 32) {
        for (int k = 0; k < 32; k += 8) {
            const __m256i joined = _mm256_cvtepu8_epi32(
                _mm_loadl_epi64((const __m128i *)(const void *)(hx + x + k - 1)));
            const __m256i index = _mm256_add_epi32(_mm256_set1_epi32((int)(base + x + k)), lane);
            __m256i v = _mm256_andnot_si256(_mm256_cmpgt_epi32(joined, zero), index);
            v = _mm256_max_epu32(v, _mm256_slli_si256(v, 4));
            v = _mm256_max_epu32(v, _mm256_slli_si256(v, 8));
            const __m256i low = _mm256_shuffle_epi32(v, 0xff); /* lane 3 of each half */
            v = _mm256_max_epu32(v, _mm256_permute2x128_si256(low, low, 0x08));
            v = _mm256_max_epu32(v, carry);
            carry = _mm256_permutevar8x32_epi32(v, last);
            _mm256_storeu_si256((__m256i *)(void *)(parent + base + x + k), v);
        }
        if (vy_below)
            need[x / 32] = need32(hx + x, hx_below + x, vy_below + x);
    }
    *run = x ? (uint32_t)_mm256_cvtsi256_si32(carry) : (uint32_t)base;
    return x;
}

__attribute__((target("avx2"))) int64_t latmc_rows_need_avx2(const uint8_t *hx,
                                                              const uint8_t *hx_below,
                                                              const uint8_t *v_below,
                                                              int64_t n, uint32_t *need)
{
    int64_t x = 0;
    for (; x + 32 <= n; x += 32)
        need[x / 32] = need32(hx + x, hx_below + x, v_below + x);
    return x;
}

/* The new states of 8 sites from their decisions d8 (bytes 0 .. 7): Potts the colour,
 * Ising keep (1) or flip (0) an int8 +-1; returns how many changed. */
__attribute__((target("avx2"))) static inline uint64_t apply8(uint8_t *s, __m128i d8, int potts)
{
    const __m128i zero = _mm_setzero_si128();
    const __m128i old = _mm_loadl_epi64((const __m128i *)(const void *)s);
    const __m128i v = potts ? d8 : _mm_blendv_epi8(old, _mm_sub_epi8(zero, old),
                                                   _mm_cmpeq_epi8(d8, zero));
    _mm_storel_epi64((__m128i *)(void *)s, v);
    const unsigned same = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, old)) & 0xffu;
    return (uint64_t)(8 - __builtin_popcount(same));
}

/*
 * Pass B without sizes, sites [i, end - 3) 8 at a time (the gather reads 4 bytes
 * from each site's table entry, so it stops 3 short of the unit's end): every lane's
 * source ("from": its parent inside the unit, else itself) gathered from the table;
 * sources inside the 8 lanes (always at smaller lanes: a run's start, or a root that a
 * later run of the row joined) hold the old table entries, so each lane follows its
 * chain of sources inside the 8 to its end by three doublings (a chain is at most 7
 * long) and takes that lane's gathered decision. Returns the sites changed; *next: the
 * first site left to the scalar loop.
 */
__attribute__((target("avx2"))) uint64_t latmc_rows_flip_avx2(const uint32_t *parent,
                                                               uint8_t *table, uint8_t *s,
                                                               int potts, uint32_t start,
                                                               uint32_t end, uint32_t *next)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i first = _mm256_set1_epi32((int)start), low = _mm256_set1_epi32(0xff);
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, -1, -1);
    uint64_t diff = 0;
    uint32_t i = start;
    for (; end - i >= 8 + 3 && end >= 8 + 3; i += 8) {
        const __m256i p = _mm256_loadu_si256((const __m256i *)(const void *)(parent + i));
        const __m256i self = _mm256_add_epi32(_mm256_set1_epi32((int)i), lane);
        const __m256i inside = _mm256_cmpeq_epi32(_mm256_max_epu32(p, first), p);
        const __m256i from = _mm256_blendv_epi8(self, p, inside);
        __m256i d = _mm256_and_si256(
            _mm256_i32gather_epi32((const int *)(const void *)table, from, 1), low);
        const __m256i rel = _mm256_sub_epi32(from, _mm256_set1_epi32((int)i));
        const __m256i here = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(8), rel),
                                              _mm256_cmpgt_epi32(rel, _mm256_set1_epi32(-1)));
        __m256i idx = _mm256_blendv_epi8(lane, rel, here);
        idx = _mm256_permutevar8x32_epi32(idx, idx);
        idx = _mm256_permutevar8x32_epi32(idx, idx);
        idx = _mm256_permutevar8x32_epi32(idx, idx);
        d = _mm256_permutevar8x32_epi32(d, idx);
        const __m256i bytes = _mm256_shuffle_epi8(d, pick);
        const __m128i d8 = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes),
                                              _mm256_extracti128_si256(bytes, 1));
        _mm_storel_epi64((__m128i *)(void *)(table + i), d8);
        diff += apply8(s + i, d8, potts);
    }
    *next = i;
    return diff;
}

/*
 * Pass B counting sizes, as latmc_rows_flip_avx2: every lane's representative is
 * its source's (parent[from], already final before the 8 lanes; a source that is the lane
 * itself is its own), followed inside the 8 lanes by three doublings; the decision is the
 * representative's table entry (final from the face step on). The counts stay scalar: a
 * zero at every site, then one increment at each lane's representative.
 */
__attribute__((target("avx2"))) uint64_t latmc_rows_count_avx2(uint32_t *parent,
                                                                const uint8_t *table,
                                                                uint8_t *s, int potts,
                                                                uint32_t *size, uint32_t start,
                                                                uint32_t end, uint32_t *next)
{
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i first = _mm256_set1_epi32((int)start), low = _mm256_set1_epi32(0xff);
    const __m256i eight = _mm256_set1_epi32(8), minus = _mm256_set1_epi32(-1);
    const __m256i pick = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1,
                                          -1, -1, -1, -1);
    uint64_t diff = 0;
    uint32_t i = start, reps[8];
    for (; end - i >= 8 + 3 && end >= 8 + 3; i += 8) {
        const __m256i p = _mm256_loadu_si256((const __m256i *)(const void *)(parent + i));
        const __m256i self = _mm256_add_epi32(_mm256_set1_epi32((int)i), lane);
        const __m256i inside = _mm256_cmpeq_epi32(_mm256_max_epu32(p, first), p);
        const __m256i from = _mm256_blendv_epi8(self, p, inside);
        __m256i rep = _mm256_blendv_epi8(
            _mm256_i32gather_epi32((const int *)(const void *)parent, from, 4), self,
            _mm256_cmpeq_epi32(from, self));
        const __m256i rel = _mm256_sub_epi32(from, _mm256_set1_epi32((int)i));
        const __m256i here = _mm256_and_si256(_mm256_cmpgt_epi32(eight, rel),
                                              _mm256_cmpgt_epi32(rel, minus));
        __m256i idx = _mm256_blendv_epi8(lane, rel, here);
        idx = _mm256_permutevar8x32_epi32(idx, idx);
        idx = _mm256_permutevar8x32_epi32(idx, idx);
        idx = _mm256_permutevar8x32_epi32(idx, idx);
        rep = _mm256_permutevar8x32_epi32(rep, idx);
        _mm256_storeu_si256((__m256i *)(void *)(parent + i), rep);
        const __m256i d = _mm256_and_si256(
            _mm256_i32gather_epi32((const int *)(const void *)table, rep, 1), low);
        const __m256i bytes = _mm256_shuffle_epi8(d, pick);
        const __m128i d8 = _mm_unpacklo_epi32(_mm256_castsi256_si128(bytes),
                                              _mm256_extracti128_si256(bytes, 1));
        diff += apply8(s + i, d8, potts);
        _mm256_storeu_si256((__m256i *)(void *)(size + i), _mm256_setzero_si256());
        _mm256_storeu_si256((__m256i *)(void *)reps, rep);
        for (int k = 0; k < 8; k++)
            size[reps[k]]++;
    }
    *next = i;
    return diff;
}

#endif /* LATMC_ROWS_X86 */
