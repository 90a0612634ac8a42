/*
 * Ising kernels of the AVX-512 level (F, BW, DQ, VL; and BMI2): the primitives of
 * ising_simd_tmpl.h (which holds the row drivers, the neighbour count and the dispatch,
 * written once for every level) over 64-byte vectors, and one path of this level's own
 * (narrow rows, below). 64 sites of one colour per vector, the same integer decisions
 * from the same Philox draws as the C reference (lib/ising_rules.h), bit for bit.
 *
 * Differences from the AVX2 level (ising_avx2.c), all from wider registers and new
 * instructions, none in the chain:
 *   - Philox: eight instances per register, one state word per register (32 registers
 *     hold two groups of eight with room to spare), each word's three-way xor
 *     hi(p) ^ x ^ k in one vpternlogq: 6 instructions per round and 8 instances
 *     (AVX2: 8 per 4);
 *   - thresholds: one vpermd looks up a 16-entry table of 32-bit values for 16 sites,
 *     taking the site's table index from the low bits of a dword, so four of them (the
 *     index bytes shifted by 0, 8, 16, 24) give the thresholds of 64 sites in "lane
 *     order" (site 4 i + l in dword i of vector l) -- the order in which the draws of 16
 *     blocks come out of the generator (output l of block i);
 *   - unsigned compares into mask registers; the four 16-bit masks interleave into the
 *     64-bit site mask with pdep (integer pipes), which then selects bytes directly.
 * Per 64 sites: ~110 instructions of Philox, ~25 for everything else.
 */
#include <immintrin.h>
#include <string.h>

#include "ising_rules.h" /* latmc_wrap_* */
#include "ising_split.h"
#include "philox16_avx512.h"
#include "philox_fold.h"

#define AI static inline __attribute__((always_inline))

/* ---- Philox, eight instances per register (one per 64-bit lane, words in low halves) ---- */

struct philox16 {
    struct latmc_philox16_fold f; /* round keys and folded constants (philox16_avx512.h) */
    __m512i m0, m1;
};

/* The vectors of one fold (lib/philox_fold.h computes the keys and constants). */
static void philox16_setup(struct philox16 *pc, const struct latmc_philox_fold *f)
{
    latmc_philox16_fold_set(&pc->f, f);
    pc->m0 = _mm512_set1_epi64(LATMC_PHILOX_M0);
    pc->m1 = _mm512_set1_epi64(LATMC_PHILOX_M1);
}

/*
 * Ten rounds for `groups` (compile-time 1 or 2) groups of eight blocks, c[g] their block
 * numbers (low halves used); x[g][w] = output word w of each block on return.
 */
AI void philox16_rounds(const struct philox16 *pc, const __m512i *c, __m512i x[][4],
                        const int groups)
{
#define ISING_FOLD_(g) (&pc->f) /* one fold for all groups */
    LATMC_PHILOX16_ROUNDS(ISING_FOLD_, pc->m0, pc->m1, c, x, groups);
#undef ISING_FOLD_
}

/* Block numbers b .. b+7 in the eight lanes. */
AI __m512i blocks8(uint64_t b)
{
    return _mm512_add_epi64(_mm512_set1_epi64((long long)b),
                            _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
}

/*
 * The 64 draws of blocks b .. b+15 in "lane order": u[l] holds output l of block b+i in
 * dword i, i.e. draw 4 i + l (relative to 4b).
 */
AI void philox16_lanes(const struct philox16 *pc, uint64_t b, __m512i u[4], const int groups)
{
    __m512i c[2], x[2][4];
    c[0] = blocks8(b);
    c[1] = blocks8(b + 8);
    philox16_rounds(pc, c, x, groups);
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                           28, 30);
    for (int l = 0; l < 4; l++)
        u[l] = _mm512_permutex2var_epi32(x[0][l], even, x[groups - 1][l]);
}

/* The 32 draws of blocks b .. b+7 in natural order, stored to out[0..31]. */
AI void philox16_store(const struct philox16 *pc, uint64_t b, uint32_t *out)
{
    __m512i c[1], x[1][4];
    c[0] = blocks8(b);
    philox16_rounds(pc, c, x, 1);
    const __m512i pairs = _mm512_setr_epi32(0, 16, 2, 18, 4, 20, 6, 22, 8, 24, 10, 26, 12, 28,
                                            14, 30);
    const __m512i w01 = _mm512_permutex2var_epi32(x[0][0], pairs, x[0][1]);
    const __m512i w23 = _mm512_permutex2var_epi32(x[0][2], pairs, x[0][3]);
    const __m512i lo = _mm512_setr_epi32(0, 1, 16, 17, 2, 3, 18, 19, 4, 5, 20, 21, 6, 7, 22, 23);
    const __m512i hi = _mm512_setr_epi32(8, 9, 24, 25, 10, 11, 26, 27, 12, 13, 28, 29, 14, 15,
                                         30, 31);
    _mm512_storeu_si512((void *)out, _mm512_permutex2var_epi32(w01, lo, w23));
    _mm512_storeu_si512((void *)(out + 16), _mm512_permutex2var_epi32(w01, hi, w23));
}

/* Lane order from natural order: draws in[0..63] (any alignment). */
AI void lanes_from_natural(const uint32_t *in, __m512i u[4])
{
    const __m512i n0 = _mm512_loadu_si512((const void *)in);
    const __m512i n1 = _mm512_loadu_si512((const void *)(in + 16));
    const __m512i n2 = _mm512_loadu_si512((const void *)(in + 32));
    const __m512i n3 = _mm512_loadu_si512((const void *)(in + 48));
    /* words 0 and 1 (then 2 and 3) of each block of n0 | n1, and of n2 | n3 */
    const __m512i i01 = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 1, 5, 9, 13, 17, 21, 25, 29);
    const __m512i i23 = _mm512_setr_epi32(2, 6, 10, 14, 18, 22, 26, 30, 3, 7, 11, 15, 19, 23, 27,
                                          31);
    const __m512i lo = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23);
    const __m512i hi = _mm512_setr_epi32(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30,
                                         31);
    const __m512i a01 = _mm512_permutex2var_epi32(n0, i01, n1);
    const __m512i b01 = _mm512_permutex2var_epi32(n2, i01, n3);
    const __m512i a23 = _mm512_permutex2var_epi32(n0, i23, n1);
    const __m512i b23 = _mm512_permutex2var_epi32(n2, i23, n3);
    u[0] = _mm512_permutex2var_epi32(a01, lo, b01);
    u[1] = _mm512_permutex2var_epi32(a01, hi, b01);
    u[2] = _mm512_permutex2var_epi32(a23, lo, b23);
    u[3] = _mm512_permutex2var_epi32(a23, hi, b23);
}

/* ---- the primitives of ising_simd_tmpl.h ---- */

typedef __m512i vec;
#define VW 64

AI vec v_loadu(const uint8_t *p) { return _mm512_loadu_si512((const void *)p); }
AI vec v_set1_8(int x) { return _mm512_set1_epi8((char)x); }
AI vec v_zero(void) { return _mm512_setzero_si512(); }
AI vec v_and(vec a, vec b) { return _mm512_and_si512(a, b); }
AI vec v_xor(vec a, vec b) { return _mm512_xor_si512(a, b); }
AI vec v_add8(vec a, vec b) { return _mm512_add_epi8(a, b); }
AI vec v_srli16(vec a, int n) { return _mm512_srli_epi16(a, (unsigned)n); }
AI uint32_t v_xor_fold(vec a)
{
    uint32_t lanes[16];
    _mm512_storeu_si512((void *)lanes, a);
    uint32_t x = 0;
    for (int i = 0; i < 16; i++)
        x ^= lanes[i];
    return x;
}

#define philox_consts philox16
/* unsigned compares: the kernels take the plain draws */
AI void philox_setup_kernels(struct philox16 *pc, const struct latmc_philox_fold *f)
{
    philox16_setup(pc, f);
}
AI void philox_setup_draws(struct philox16 *pc, const struct latmc_philox_fold *f)
{
    philox16_setup(pc, f);
}
/* lane order, which the threshold lookup of decide64 produces at no cost */
AI void philox_registers(const struct philox16 *pc, uint64_t blk, vec *u, const int groups)
{
    philox16_lanes(pc, blk, u, groups);
}
AI void philox_natural(const struct philox16 *pc, uint64_t blk, uint32_t *out, const int groups)
{
    for (int g = 0; g < groups; g++)
        philox16_store(pc, blk + 8 * (uint64_t)g, out + 32 * g);
}
AI void draws_from_natural(const uint32_t *in, vec *u)
{
    lanes_from_natural(in, u);
}

struct tables {
    __m512i thr;    /* T - 1 (32 bits, T = 0 wraps) for the 16 table indices */
    __m512i never;  /* 0xff where T = 0, as a byte table in each 128-bit lane */
    __m512i one;
};

static void tables_prepare(struct tables *tb, const struct cpu_ising_pass *p)
{
    tb->thr = _mm512_loadu_si512((const void *)p->dec.below);
    tb->never = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)p->dec.never));
    tb->one = _mm512_set1_epi8(1);
}

/*
 * The decisions for 64 sites with bytes s (0/1) and up-neighbour counts k (the table
 * index k = (n + 2 ndim) / 2, lib/ising_rules.h); u: their draws in lane order. Returns
 * the sites' new bytes; *changed_mask: the sites whose spin changed.
 */
AI __m512i decide64(__m512i s, __m512i k, const __m512i u[4], const struct tables *tb,
                    int heatbath, int never, uint64_t *changed_mask)
{
    /* bytes 0 / 1: shifting 16-bit words by 3 moves no bit across a byte */
    const __m512i idx = heatbath ? k : _mm512_or_si512(k, _mm512_slli_epi16(s, 3));
    /* vpermd reads the low 4 bits of each dword: byte l of dword i is site 4 i + l */
    uint64_t accept = 0;
    static const uint64_t spread[4] = {
        UINT64_C(0x1111111111111111), UINT64_C(0x2222222222222222),
        UINT64_C(0x4444444444444444), UINT64_C(0x8888888888888888),
    };
    for (int l = 0; l < 4; l++) {
        const __m512i il = l == 0 ? idx : _mm512_srli_epi32(idx, 8 * l);
        const __m512i t = _mm512_permutexvar_epi32(il, tb->thr);
        const uint64_t m = (uint64_t)_mm512_cmple_epu32_mask(u[l], t); /* u <= T - 1 */
        accept |= _pdep_u64(m, spread[l]);
    }
    if (never) {
        const __m512i nv = _mm512_shuffle_epi8(tb->never, idx);
        accept &= ~(uint64_t)_mm512_test_epi8_mask(nv, nv);
    }
    if (heatbath) {
        *changed_mask = accept ^ (uint64_t)_mm512_test_epi8_mask(s, s);
        return _mm512_maskz_mov_epi8(accept, tb->one);
    }
    *changed_mask = accept;
    return _mm512_mask_sub_epi8(s, accept, tb->one, s); /* flip: 1 - s where accepted */
}

AI unsigned decide_store(uint8_t *dst, vec s, vec k, const vec u[4], const struct tables *tb,
                         int heatbath, int never, int from_registers, uint64_t valid)
{
    (void)from_registers; /* lane order either way */
    uint64_t changed_mask;
    _mm512_storeu_si512((void *)dst, decide64(s, k, u, tb, heatbath, never, &changed_mask));
    return (unsigned)__builtin_popcountll(changed_mask & valid);
}

#define ISING_LEVEL "avx512"
#define ISING_DSP_INIT cpu_ising_dsp_init_avx512
#define ISING_NARROW_ROWS
#include "ising_simd_tmpl.h"

/*
 * ---- narrow rows: 3D lattices with L_x = 16 or 32 (half-rows of 8 or 16 sites) ----
 *
 * A half-row of 8 (16) sites fills an eighth (a quarter) of a vector, and rows_impl's
 * window would draw 96 numbers per row for 8 of them: small lattices (the members of an
 * ensemble, doc/ensembles.md) ran at a tenth of a large lattice's speed. But the draws
 * of consecutive rows are consecutive (draw j = i + half r), so the 64 sites of
 * g = 64 / half consecutive rows take exactly the 64 draws of 16 Philox blocks. Here each
 * vector holds g rows, one 64-bit element per 8 sites, gathered from the split layout
 * (element e: row r0 + e / q, bytes 8 (e mod q) .. of it, q = half / 8), so byte b of the
 * vector is draw half r0 + b, the byte order of step64. The x neighbours come from one
 * gather of the other half-rows, rotated by one site within each row where the row's
 * parity asks for it (the periodic pads are not read); the y neighbours are those same
 * half-rows one row up or down (rows y and y + 1 have opposite parities), the one row
 * outside the group loaded on its own; z neighbours are gathered; the results go back row by row
 * with one 16-byte store from pad to pad (L_x = 16), or with two scatters shifted by one
 * byte each way (L_x = 32); either also rewrites both pads of every row.
 * Groups start on a multiple of g rows and L_y is a multiple of g, so a group never
 * leaves its plane z. Same draws, same tables, same decisions: the chain is unchanged.
 */
AI int narrow_ok(const struct cpu_ising_split *sp)
{
    return sp->ndim == 3 && (sp->half == 8 || sp->half == 16) && sp->ly % (64 / sp->half) == 0;
}

/* Rotate each row of the vector by one site: up (byte i <- byte i - 1) or down. */
AI __m512i rotate_rows(__m512i v, int half, int up)
{
    if (half == 8)
        return up ? _mm512_rol_epi64(v, 8) : _mm512_ror_epi64(v, 8);
    const __m512i by_up = _mm512_broadcast_i32x4(_mm_setr_epi8(15, 0, 1, 2, 3, 4, 5, 6, 7, 8,
                                                                9, 10, 11, 12, 13, 14));
    const __m512i by_down = _mm512_broadcast_i32x4(_mm_setr_epi8(1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                                                  11, 12, 13, 14, 15, 0));
    return _mm512_shuffle_epi8(v, up ? by_up : by_down);
}

/* 64-bit elements at base + idx (SIMDe, which emulates this file for the kernels test on
 * machines without AVX-512, has no gather or scatter: element by element there). */
/* One half-row of 8 (q = 1) or 16 (q = 2) bytes into the low q elements. */
AI __m512i load_rows(const uint8_t *p, int q)
{
    return _mm512_castsi128_si512(q == 1 ? _mm_loadl_epi64((const __m128i *)(const void *)p)
                                         : _mm_loadu_si128((const __m128i *)(const void *)p));
}

AI __m512i gather64(const uint8_t *base, __m512i idx)
{
#ifdef SIMDE_VERSION
    int64_t off[8];
    uint64_t v[8];
    _mm512_storeu_si512((void *)off, idx);
    for (int e = 0; e < 8; e++)
        memcpy(&v[e], base + off[e], 8);
    return _mm512_loadu_si512((const void *)v);
#else
    return _mm512_i64gather_epi64(idx, (const void *)base, 1);
#endif
}

AI void scatter64(uint8_t *base, __m512i idx, __m512i v)
{
#ifdef SIMDE_VERSION
    int64_t off[8];
    uint64_t x[8];
    _mm512_storeu_si512((void *)off, idx);
    _mm512_storeu_si512((void *)x, v);
    for (int e = 0; e < 8; e++)
        memcpy(base + off[e], &x[e], 8);
#else
    _mm512_i64scatter_epi64((void *)base, idx, v, 1);
#endif
}

AI uint64_t narrow_impl(const struct cpu_ising_split *sp, const struct cpu_ising_pass *p,
                        int64_t r0, int64_t r1, const int half, int heatbath, int never,
                        int coupled)
{
    const struct prepared *w = (const struct prepared *)(const void *)p->prepared;
    const struct tables *tb = &w->tb;
    const struct philox16 *pc = &w->pc;
    struct philox16 local;
    uint64_t cur_hi = 0, changed = 0;
    const int q = half / 8, g = 64 / half;
    const int64_t ly = sp->ly, lz = sp->lz, stride = sp->stride;
    const uint8_t *base = cpu_ising_split_row(sp, 0, 0);
    const uint8_t *bbase = coupled ? cpu_ising_split_bond_row(sp, 0, 0) : NULL;
    /* per element: its row within the group and byte offset within the row */
    const __m512i row_of = q == 1 ? _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7)
                                  : _mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3);
    const __m512i byte_of = q == 1 ? _mm512_setzero_si512()
                                   : _mm512_setr_epi64(0, 8, 0, 8, 0, 8, 0, 8);
    const __m512i vstride = _mm512_set1_epi64(stride);
    const __m512i one64 = _mm512_set1_epi64(1);
    /* rows y + 1 of the group are its other half-rows moved up one row, the row after the
     * group added (and y - 1 moved down, the row before): permutes of xo, no gathers */
    const __m512i up = q == 1 ? _mm512_setr_epi64(1, 2, 3, 4, 5, 6, 7, 8)
                              : _mm512_setr_epi64(2, 3, 4, 5, 6, 7, 8, 9);
    const __m512i down = q == 1 ? _mm512_setr_epi64(8, 0, 1, 2, 3, 4, 5, 6)
                                : _mm512_setr_epi64(8, 9, 0, 1, 2, 3, 4, 5);
    /* elements of the rows with odd offset in the group */
    const __mmask8 odd_rows = q == 1 ? 0xaa : 0xcc;
    for (int64_t r = r0; r < r1; r += g) {
        const int64_t y0 = r % ly, z = r / ly;
        const int p0 = p->colour ^ (int)((y0 + z + sp->plane_parity) & 1);
        /* elements of the rows of parity 0 (sites at even x) */
        const __mmask8 even = p0 ? odd_rows : (__mmask8)~odd_rows;
        /* half-row numbers 2 r + par of the sites and of their neighbours */
        const __m512i rows = _mm512_add_epi64(_mm512_set1_epi64(r), row_of);
        const __m512i hr = _mm512_add_epi64(_mm512_slli_epi64(rows, 1),
                                            _mm512_mask_blend_epi64(even, one64,
                                                                    _mm512_setzero_si512()));
        const __m512i hr_x = _mm512_xor_si512(hr, one64);
        /* the half-rows next to the group along y (periodic within the plane): the row
         * after it at the parity of the group's last row, the row before at its first's */
        const int64_t row_up = y0 + g == ly ? r + g - ly : r + g;
        const int64_t row_down = y0 == 0 ? r + ly - 1 : r - 1;
        const int64_t off_up = (2 * row_up + (p0 ^ 1)) * stride;
        const int64_t off_down = (2 * row_down + p0) * stride;
        const int64_t dz_up = z == lz - 1 ? -2 * ly * (lz - 1) : 2 * ly;
        const int64_t dz_down = z == 0 ? 2 * ly * (lz - 1) : -2 * ly;
        const __m512i hr_zp = _mm512_add_epi64(hr, _mm512_set1_epi64(dz_up));
        const __m512i hr_zm = _mm512_add_epi64(hr, _mm512_set1_epi64(dz_down));
#define NARROW_OFF(h) _mm512_add_epi64(_mm512_mullo_epi64((h), vstride), byte_of)
        const __m512i o_s = NARROW_OFF(hr), o_x = NARROW_OFF(hr_x);
        const __m512i o_zm = NARROW_OFF(hr_zm);
        const __m512i s = gather64(base, o_s), xo = gather64(base, o_x);
        /* even-x sites: x - 1 is the other half-row's previous site, x + 1 its own */
        __m512i xl = _mm512_mask_blend_epi64(even, xo, rotate_rows(xo, half, 1));
        __m512i xr = _mm512_mask_blend_epi64(even, rotate_rows(xo, half, 0), xo);
        __m512i yp = _mm512_permutex2var_epi64(xo, up, load_rows(base + off_up, q));
        __m512i ym = _mm512_permutex2var_epi64(xo, down, load_rows(base + off_down, q));
        __m512i zp = gather64(base, NARROW_OFF(hr_zp)), zm = gather64(base, o_zm);
#undef NARROW_OFF
        if (coupled) {
            /* bit mu of the site's own bond byte (links to +e_mu), of the neighbours'
             * at -e_mu (ising_split.h): the x - 1 neighbour's from the rotated half-row */
            const __m512i one = tb->one;
            const __m512i bo = gather64(bbase, o_s), bxo = gather64(bbase, o_x);
            const __m512i bxl = _mm512_mask_blend_epi64(even, bxo, rotate_rows(bxo, half, 1));
            const __m512i bym = _mm512_permutex2var_epi64(bxo, down,
                                                          load_rows(bbase + off_down, q));
            const __m512i bzm = gather64(bbase, o_zm);
            xl = _mm512_xor_si512(xl, _mm512_and_si512(bxl, one));
            xr = _mm512_xor_si512(xr, _mm512_and_si512(bo, one));
            yp = _mm512_xor_si512(yp, _mm512_and_si512(_mm512_srli_epi16(bo, 1), one));
            ym = _mm512_xor_si512(ym, _mm512_and_si512(_mm512_srli_epi16(bym, 1), one));
            zp = _mm512_xor_si512(zp, _mm512_and_si512(_mm512_srli_epi16(bo, 2), one));
            zm = _mm512_xor_si512(zm, _mm512_and_si512(_mm512_srli_epi16(bzm, 2), one));
        }
        __m512i k = _mm512_add_epi8(_mm512_add_epi8(xl, xr), _mm512_add_epi8(yp, ym));
        k = _mm512_add_epi8(k, _mm512_add_epi8(zp, zm));
        const uint64_t blk = (uint64_t)(half * (r + sp->row_origin)) / 4;
        __m512i u[4];
        ensure_consts(&pc, &local, &cur_hi, blk >> 32, p);
        philox16_lanes(pc, blk, u, 2);
        uint64_t changed_mask;
        const __m512i out = decide64(s, k, u, tb, heatbath, never, &changed_mask);
        changed += (uint64_t)__builtin_popcountll(changed_mask);
        /* each row one site further (pad at -1 = last site) and one site back (pad at
         * half = first site): the two stores cover the row and both pads */
        uint8_t *dst = cpu_ising_split_row(sp, 0, 0);
        if (half == 8) {
            /* one 16-byte store per row at its pad -1: pad, the 8 sites, pad, then 6 bytes
             * of the tail that may hold anything (ising_split.h) */
            const __m512i even_row = _mm512_broadcast_i32x4(
                _mm_setr_epi8(7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0));
            const __m512i odd_row = _mm512_broadcast_i32x4(
                _mm_setr_epi8(15, 8, 9, 10, 11, 12, 13, 14, 15, 8, 8, 8, 8, 8, 8, 8));
            const __m512i a = _mm512_shuffle_epi8(out, even_row);
            const __m512i c = _mm512_shuffle_epi8(out, odd_row);
            int64_t off[8];
            _mm512_storeu_si512((void *)off, o_s);
            _mm_storeu_si128((__m128i *)(void *)(dst + off[0] - 1), _mm512_castsi512_si128(a));
            _mm_storeu_si128((__m128i *)(void *)(dst + off[1] - 1), _mm512_castsi512_si128(c));
            _mm_storeu_si128((__m128i *)(void *)(dst + off[2] - 1), _mm512_extracti32x4_epi32(a, 1));
            _mm_storeu_si128((__m128i *)(void *)(dst + off[3] - 1), _mm512_extracti32x4_epi32(c, 1));
            _mm_storeu_si128((__m128i *)(void *)(dst + off[4] - 1), _mm512_extracti32x4_epi32(a, 2));
            _mm_storeu_si128((__m128i *)(void *)(dst + off[5] - 1), _mm512_extracti32x4_epi32(c, 2));
            _mm_storeu_si128((__m128i *)(void *)(dst + off[6] - 1), _mm512_extracti32x4_epi32(a, 3));
            _mm_storeu_si128((__m128i *)(void *)(dst + off[7] - 1), _mm512_extracti32x4_epi32(c, 3));
        } else {
            scatter64(dst, _mm512_sub_epi64(o_s, one64), rotate_rows(out, half, 1));
            scatter64(dst, _mm512_add_epi64(o_s, one64), rotate_rows(out, half, 0));
        }
    }
    return changed;
}

/* half-rows of 8 and 16 sites, uniform / +-J couplings (ising_simd_tmpl.h) */
ISING_INSTANCES4(narrow_impl, 8, 0)
ISING_INSTANCES4(narrow_impl, 8, 1)
ISING_INSTANCES4(narrow_impl, 16, 0)
ISING_INSTANCES4(narrow_impl, 16, 1)

static uint64_t narrow_rows(const struct cpu_ising_split *s, const struct cpu_ising_pass *p,
                            int64_t r0, int64_t r1, rows_fn rows)
{
    if (!narrow_ok(s))
        return rows(s, p, r0, r1);
    static const rows_fn narrow[2][2][2][2] = {
        { ISING_TABLE4(narrow_impl, 8, 0), ISING_TABLE4(narrow_impl, 8, 1) },
        { ISING_TABLE4(narrow_impl, 16, 0), ISING_TABLE4(narrow_impl, 16, 1) },
    };
    const int coupled = s->bonds != NULL, hb = p->dec.algorithm == LATMC_ALGO_HEATBATH,
              never = p->dec.any_never != 0;
    /* whole groups of g rows by the narrow path, the rows before and after as usual */
    const int64_t g = 64 / s->half, a = (r0 + g - 1) / g * g, b = r1 / g * g;
    if (b <= a)
        return rows(s, p, r0, r1);
    return (a > r0 ? rows(s, p, r0, a) : 0) +
           narrow[s->half == 16][coupled][hb][never](s, p, a, b) +
           (r1 > b ? rows(s, p, b, r1) : 0);
}
