/*
 * Ising kernels of the AVX2 level on the split-row layout (ising_split.h): 32 sites of one
 * colour per step, two steps per Philox call, the same integer decisions from the same
 * Philox draws as the reference (lib/ising_rules.h), so the chain is bit-identical.
 *
 * One step, 32 sites j .. j+31 of one half-row (vector instructions, 2D Metropolis):
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
 * +-J couplings (the `coupled` variants, ising_split.h): each neighbour's bytes xor-ed with
 * its bond bit, from the site's own bond byte or (the bonds to -e_mu) the byte of the
 * neighbour at -e_mu: 3 (3D 4) more loads and 10 (3D 16) more operations (and, xor, shift)
 * per step.
 */
#include <immintrin.h>
#include <string.h>

#include "ising_rules.h" /* LATMC_ALGO_* */
#include "ising_split.h"
#include "philox_avx2.h"

struct row_ptrs {
    uint8_t *dst;                      /* the half-row updated */
    const uint8_t *xl, *xr;            /* along x: the other half-row at -1 / 0 or 0 / +1 */
    const uint8_t *yp, *ym, *zp, *zm;  /* along y and z: the same half of the rows next to it */
    /* +-J: the bond bytes (ising_split.h) of the sites and of their neighbours at -e_mu */
    const uint8_t *bown, *bxl, *bym, *bzm;
};

struct tables {
    __m256i plane[4], never, one;
    __m256i pair_order;  /* _mm256_shuffle_epi8 control: natural <-> pair order (an involution) */
};

/*
 * Update 32 sites from jl on (only the first `valid` are real: the others are in the tail
 * beyond the half-row, which may be overwritten); d: their draws in block order.
 * Returns how many of the valid sites changed.
 */
/* 32 bytes from p + jl (unaligned) */
PHILOX8_ALWAYS_INLINE __m256i load32(const uint8_t *p, int64_t jl)
{
    return _mm256_loadu_si256((const __m256i *)(p + jl));
}

/* A neighbour's 32 bytes; +-J: xor-ed with bit mu of the bond bytes b (1 iff
 * eps s_j = +1). The 16-bit shift moves bits across bytes, but only bit 0 of each is kept. */
PHILOX8_ALWAYS_INLINE __m256i neighbour32(const uint8_t *n, __m256i b, int mu, __m256i one,
                                          int64_t jl, int coupled)
{
    if (!coupled)
        return load32(n, jl);
    const __m256i bit = _mm256_and_si256(mu ? _mm256_srli_epi16(b, mu) : b, one);
    return _mm256_xor_si256(load32(n, jl), bit);
}

PHILOX8_ALWAYS_INLINE unsigned step32(const struct row_ptrs *q, int64_t jl, const __m256i d[4],
                                      const struct tables *tb, int three, int heatbath,
                                      int never, int pair_order, uint32_t valid, int coupled)
{
    const __m256i s = load32(q->dst, jl);
    /* +-J: the sites' own bond bytes (bonds to +e_mu), those of the neighbours at -e_mu */
    const __m256i one = tb->one;
    const __m256i bo = coupled ? load32(q->bown, jl) : one;
    const __m256i bxl = coupled ? load32(q->bxl, jl) : one;
    const __m256i bym = coupled ? load32(q->bym, jl) : one;
    __m256i k = _mm256_add_epi8(neighbour32(q->xl, bxl, 0, one, jl, coupled),
                                neighbour32(q->xr, bo, 0, one, jl, coupled));
    k = _mm256_add_epi8(k, neighbour32(q->yp, bo, 1, one, jl, coupled));
    k = _mm256_add_epi8(k, neighbour32(q->ym, bym, 1, one, jl, coupled));
    if (three) {
        const __m256i bzm = coupled ? load32(q->bzm, jl) : one;
        k = _mm256_add_epi8(k, neighbour32(q->zp, bo, 2, one, jl, coupled));
        k = _mm256_add_epi8(k, neighbour32(q->zm, bzm, 2, one, jl, coupled));
    }
    /* bytes 0 / 1: shifting 16-bit words by 3 moves no bit across a byte */
    __m256i idx = heatbath ? k : _mm256_or_si256(k, _mm256_slli_epi16(s, 3));
    /* the sites in the order of the draws (philox_avx2.h): the unpacks below then give
     * each dword the threshold of the site whose draw is in the same dword of d */
    if (pair_order)
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
    if (pair_order)
        reject = _mm256_shuffle_epi8(reject, tb->pair_order);
    const __m256i accept = _mm256_andnot_si256(reject, tb->one);
    uint32_t same;
    if (heatbath) {
        _mm256_storeu_si256((__m256i *)(q->dst + jl), accept);
        same = (uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(accept, s));
    } else {
        _mm256_storeu_si256((__m256i *)(q->dst + jl), _mm256_xor_si256(s, accept));
        same = (uint32_t)_mm256_movemask_epi8(reject);
    }
    return (unsigned)__builtin_popcount(~same & valid);
}

/* The Philox constants for the blocks whose index has high word `hi` (block >> 32). */
static __attribute__((noinline)) void set_consts(struct philox8_avx2 *pc, uint64_t hi,
                                                 const struct cpu_ising_pass *p)
{
    const struct latmc_philox_fold f =
        latmc_philox_fold_words(p->seed, latmc_rng_word1_at(p->c1_sweep, hi << 32), p->c2, p->c3);
    philox8_avx2_setup(pc, &f, 0x80000000u);
}

/* Blocks beyond 2^32 (lattices above 2^34 sites) change counter word c1. */
static inline void ensure_consts(const struct philox8_avx2 **pc, struct philox8_avx2 *local,
                                 uint64_t *cur_hi, uint64_t hi, const struct cpu_ising_pass *p)
{
    if (__builtin_expect(hi != *cur_hi, 0)) {
        set_consts(local, hi, p);
        *pc = local;
        *cur_hi = hi;
    }
}

/* The row being updated: its neighbours' half-rows and the rows to prefetch. */
struct row_cursor {
    struct row_ptrs q;
    const char *pf[4];
    const char *pfb[2]; /* +-J: the bond rows to prefetch */
    int64_t r, y, z;
};

/*
 * +-J: the bond bytes (ising_split.h) of half-row (c->r, par) and of its neighbours at
 * -e_mu (rym / rzm: the rows at y - 1 / z - 1), and those of row rpf = r + 4 to prefetch
 * (in 3D the bonds of plane z - 1 that the later rows need have been read already).
 */
PHILOX8_ALWAYS_INLINE void cursor_set_bonds(struct row_cursor *c,
                                            const struct cpu_ising_split *sp, int par,
                                            int three, int64_t rym, int64_t rzm, int64_t rpf)
{
    c->q.bown = cpu_ising_split_bond_row(sp, c->r, par);
    c->q.bxl = cpu_ising_split_bond_row(sp, c->r, par ^ 1) - (par == 0);
    c->q.bym = cpu_ising_split_bond_row(sp, rym, par);
    c->q.bzm = three ? cpu_ising_split_bond_row(sp, rzm, par) : c->q.bym;
    c->pfb[0] = (const char *)cpu_ising_split_bond_row(sp, rpf, 0);
    c->pfb[1] = (const char *)cpu_ising_split_bond_row(sp, rpf, 1);
}

PHILOX8_ALWAYS_INLINE void cursor_set(struct row_cursor *c, const struct cpu_ising_split *sp,
                                      int colour, int three, int coupled)
{
    const int64_t ly = sp->ly, lz = sp->lz, rows = sp->rows, y = c->y, z = c->z;
    const int par = colour ^ (int)((y + z + sp->plane_parity) & 1);
    c->q.dst = cpu_ising_split_row(sp, c->r, par);
    const uint8_t *xo = cpu_ising_split_row(sp, c->r, par ^ 1);
    c->q.xl = xo - (par == 0);
    c->q.xr = xo + (par == 1);
    c->q.yp = cpu_ising_split_row(sp, latmc_wrap_up(y, ly) + ly * z, par);
    c->q.ym = cpu_ising_split_row(sp, latmc_wrap_down(y, ly) + ly * z, par);
    c->q.zp = c->q.zm = c->q.yp;
    if (three) {
        c->q.zp = cpu_ising_split_row(sp, y + ly * latmc_wrap_up(z, lz), par);
        c->q.zm = cpu_ising_split_row(sp, y + ly * latmc_wrap_down(z, lz), par);
    }
    /*
     * Software prefetch of what this pass reaches a few rows later (row r + 4; in 3D also
     * the row of plane z + 1 that becomes a z neighbour then): the hardware prefetchers do
     * not keep up with five to seven interleaved streams, and a lattice larger than the
     * caches then costs 10 % (2D 4096^2) to 40 % (3D 256^3).
     */
    int64_t rpf = c->r + 4, rzpf = rpf + (three ? ly : 0);
    while (rpf >= rows)
        rpf -= rows;
    while (rzpf >= rows)
        rzpf -= rows;
    c->pf[0] = (const char *)cpu_ising_split_row(sp, rpf, 0);
    c->pf[1] = (const char *)cpu_ising_split_row(sp, rpf, 1);
    c->pf[2] = (const char *)cpu_ising_split_row(sp, rzpf, 0);
    c->pf[3] = (const char *)cpu_ising_split_row(sp, rzpf, 1);
    if (coupled)
        cursor_set_bonds(c, sp, par, three, latmc_wrap_down(y, ly) + ly * z,
                         y + ly * latmc_wrap_down(z, lz), rpf);
}

/* Row done: refresh its pads (ising_split.h) and step to the next row. */
PHILOX8_ALWAYS_INLINE void cursor_next(struct row_cursor *c, const struct cpu_ising_split *sp)
{
    c->q.dst[-1] = c->q.dst[sp->half - 1];
    c->q.dst[sp->half] = c->q.dst[0];
    c->r++;
    if (++c->y == sp->ly) {
        c->y = 0;
        c->z++;
    }
}

PHILOX8_ALWAYS_INLINE void prefetch_rows(const struct row_cursor *c, int64_t offset, int three,
                                         int coupled)
{
    _mm_prefetch(c->pf[0] + offset, _MM_HINT_T0);
    _mm_prefetch(c->pf[1] + offset, _MM_HINT_T0);
    if (three) {
        _mm_prefetch(c->pf[2] + offset, _MM_HINT_T0);
        _mm_prefetch(c->pf[3] + offset, _MM_HINT_T0);
    }
    if (coupled) {
        _mm_prefetch(c->pfb[0] + offset, _MM_HINT_T0);
        _mm_prefetch(c->pfb[1] + offset, _MM_HINT_T0);
    }
}

/* What prepare() computes once per pass (cpu_ising_pass.prepared). */
struct prepared {
    struct philox8_avx2 pc;   /* Philox constants for blocks below 2^32 */
    struct tables tb;
};
_Static_assert(sizeof(struct prepared) <= sizeof(((struct cpu_ising_pass *)0)->prepared),
               "cpu_ising_pass.prepared too small");

static void prepare_avx2(struct cpu_ising_pass *p)
{
    struct prepared *w = (struct prepared *)(void *)p->prepared;
    struct tables *tb = &w->tb;
    for (int b = 0; b < 4; b++)
        tb->plane[b] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p->dec.plane[b]));
    tb->never = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p->dec.never));
    tb->one = _mm256_set1_epi8(1);
    tb->pair_order = _mm256_setr_epi8(1, 0, 5, 4, 3, 2, 7, 6, 9, 8, 13, 12, 11, 10, 15, 14,
                                      1, 0, 5, 4, 3, 2, 7, 6, 9, 8, 13, 12, 11, 10, 15, 14);
    set_consts(&w->pc, 0, p);
}

PHILOX8_ALWAYS_INLINE uint64_t rows_impl(const struct cpu_ising_split *sp,
                                         const struct cpu_ising_pass *p, int64_t r0, int64_t r1,
                                         int three, int heatbath, int never, int coupled)
{
    const struct prepared *w = (const struct prepared *)(const void *)p->prepared;
    const struct tables *tb = &w->tb;
    const int64_t half = sp->half;
    const struct philox8_avx2 *pc = &w->pc;
    struct philox8_avx2 local; /* constants for blocks beyond 2^32, when needed */
    uint64_t cur_hi = 0;
    uint64_t changed = 0;
    if (r0 >= r1)
        return 0;
    struct row_cursor cur;
    cur.r = r0;
    /* no division in 2D, where the wavefront calls this once per row */
    cur.y = three ? r0 % sp->ly : r0;
    cur.z = three ? r0 / sp->ly : 0;
    cursor_set(&cur, sp, p->colour, three, coupled);
    __m256i d[8];
    if (half % 32 == 0) {
        /*
         * Every row starts on a group of 8 Philox blocks: draws straight from registers,
         * two groups (64 sites) per step, sixteen Philox instances in flight. (Running
         * the chunks of all rows as one sequence, which the numbering allows, was not
         * faster: 2D the same, 3D with short rows mixed.)
         */
        for (;;) {
            uint64_t blk = (uint64_t)(half * (cur.r + sp->row_origin)) / 4;
            int64_t jl = 0;
            for (; jl + 64 <= half; jl += 64, blk += 16) {
                prefetch_rows(&cur, jl, three, coupled);
                ensure_consts(&pc, &local, &cur_hi, blk >> 32, p);
                philox8_avx2_pairs(pc, blk, d, 2);
                changed += step32(&cur.q, jl, d, tb, three, heatbath, never, 1, 0xffffffffu,
                                  coupled);
                changed += step32(&cur.q, jl + 32, d + 4, tb, three, heatbath, never, 1,
                                  0xffffffffu, coupled);
            }
            if (jl < half) {
                prefetch_rows(&cur, jl, three, coupled);
                ensure_consts(&pc, &local, &cur_hi, blk >> 32, p);
                philox8_avx2_pairs(pc, blk, d, 1);
                changed += step32(&cur.q, jl, d, tb, three, heatbath, never, 1, 0xffffffffu,
                                  coupled);
            }
            cursor_next(&cur, sp);
            if (cur.r == r1)
                return changed;
            cursor_set(&cur, sp, p->colour, three, coupled);
        }
    }
    /*
     * Rows start inside a group: per row, draws in natural order in a window that starts
     * on a group boundary, buf[0..31] the group holding the row's first site; each step
     * appends two groups and handles 64 sites from buf + off, the last ones masked.
     */
    uint32_t buf[96] __attribute__((aligned(32)));
    for (;;) {
        const uint64_t j0 = (uint64_t)(half * (cur.r + sp->row_origin));
        uint64_t blk = j0 / 32 * 8;
        const int64_t off = (int64_t)(j0 - 4 * blk);
        ensure_consts(&pc, &local, &cur_hi, blk >> 32, p);
        philox8_avx2_groups(pc, blk, d, 1);
        philox8_avx2_store(d, buf);
        for (int64_t jl = 0; jl < half; jl += 64) {
            prefetch_rows(&cur, jl, three, coupled);
            ensure_consts(&pc, &local, &cur_hi, (blk + 8) >> 32, p);
            philox8_avx2_groups(pc, blk + 8, d, 2);
            philox8_avx2_store(d, buf + 32);
            philox8_avx2_store(d + 4, buf + 64);
            for (int h = 0; h < 2 && jl + 32 * h < half; h++) {
                const int64_t n = half - jl - 32 * h < 32 ? half - jl - 32 * h : 32;
                const uint32_t valid = n == 32 ? 0xffffffffu : (UINT32_C(1) << n) - 1;
                philox8_avx2_load(buf + off + 32 * h, d);
                changed += step32(&cur.q, jl + 32 * h, d, tb, three, heatbath, never, 0,
                                  valid, coupled);
            }
            memcpy(buf, buf + 64, 32 * sizeof buf[0]);
            blk += 16;
        }
        cursor_next(&cur, sp);
        if (cur.r == r1)
            return changed;
        cursor_set(&cur, sp, p->colour, three, coupled);
    }
}

#define ROWS_VARIANT(name, three, heatbath, never, coupled)                                \
    static uint64_t name(const struct cpu_ising_split *s, const struct cpu_ising_pass *p,  \
                         int64_t r0, int64_t r1)                                           \
    {                                                                                      \
        return rows_impl(s, p, r0, r1, three, heatbath, never, coupled);                   \
    }
ROWS_VARIANT(rows_2d_metropolis, 0, 0, 0, 0)
ROWS_VARIANT(rows_2d_heatbath, 0, 1, 0, 0)
ROWS_VARIANT(rows_3d_metropolis, 1, 0, 0, 0)
ROWS_VARIANT(rows_3d_heatbath, 1, 1, 0, 0)
ROWS_VARIANT(rows_2d_metropolis_never, 0, 0, 1, 0)
ROWS_VARIANT(rows_2d_heatbath_never, 0, 1, 1, 0)
ROWS_VARIANT(rows_3d_metropolis_never, 1, 0, 1, 0)
ROWS_VARIANT(rows_3d_heatbath_never, 1, 1, 1, 0)
/* +-J couplings */
ROWS_VARIANT(rows_2d_metropolis_pmj, 0, 0, 0, 1)
ROWS_VARIANT(rows_2d_heatbath_pmj, 0, 1, 0, 1)
ROWS_VARIANT(rows_3d_metropolis_pmj, 1, 0, 0, 1)
ROWS_VARIANT(rows_3d_heatbath_pmj, 1, 1, 0, 1)
ROWS_VARIANT(rows_2d_metropolis_never_pmj, 0, 0, 1, 1)
ROWS_VARIANT(rows_2d_heatbath_never_pmj, 0, 1, 1, 1)
ROWS_VARIANT(rows_3d_metropolis_never_pmj, 1, 0, 1, 1)
ROWS_VARIANT(rows_3d_heatbath_never_pmj, 1, 1, 1, 1)

static uint64_t colour_rows_avx2(const struct cpu_ising_split *s, const struct cpu_ising_pass *p,
                                 int64_t r0, int64_t r1)
{
    typedef uint64_t (*rows_fn)(const struct cpu_ising_split *, const struct cpu_ising_pass *,
                                int64_t, int64_t);
    static const rows_fn variants[2][2][2][2] = {
        { { { rows_2d_metropolis, rows_2d_metropolis_never },
            { rows_2d_heatbath, rows_2d_heatbath_never } },
          { { rows_3d_metropolis, rows_3d_metropolis_never },
            { rows_3d_heatbath, rows_3d_heatbath_never } } },
        { { { rows_2d_metropolis_pmj, rows_2d_metropolis_never_pmj },
            { rows_2d_heatbath_pmj, rows_2d_heatbath_never_pmj } },
          { { rows_3d_metropolis_pmj, rows_3d_metropolis_never_pmj },
            { rows_3d_heatbath_pmj, rows_3d_heatbath_never_pmj } } },
    };
    return variants[s->bonds != NULL][s->ndim == 3][p->dec.algorithm == LATMC_ALGO_HEATBATH]
                   [p->dec.any_never != 0](s, p, r0, r1);
}

static void draws_avx2(uint64_t seed, uint32_t c1, uint32_t c2, uint32_t c3,
                       uint64_t first_block, int64_t n, uint32_t *out)
{
    struct philox8_avx2 pc;
    const struct latmc_philox_fold f = latmc_philox_fold_words(seed, c1, c2, c3);
    philox8_avx2_setup(&pc, &f, 0);
    for (int64_t i = 0; i < n; i++) {
        __m256i d[4];
        philox8_avx2_groups(&pc, first_block + 8 * (uint64_t)i, d, 1);
        philox8_avx2_store(d, out + 32 * i);
    }
}

/* The generator as the kernels run it (two groups per step), nothing else: the ceiling. */
static uint32_t draws_xor_avx2(uint64_t seed, uint64_t first_block, int64_t n)
{
    struct philox8_avx2 pc;
    const struct latmc_philox_fold f = latmc_philox_fold_words(seed, 0, 0, 0);
    philox8_avx2_setup(&pc, &f, 0x80000000u);
    __m256i acc = _mm256_setzero_si256();
    for (int64_t i = 0; i + 1 < n; i += 2) {
        __m256i d[8];
        philox8_avx2_groups(&pc, first_block + 8 * (uint64_t)i, d, 2);
        for (int m = 0; m < 8; m++)
            acc = _mm256_xor_si256(acc, d[m]);
    }
    acc = _mm256_xor_si256(acc, _mm256_srli_si256(acc, 8));
    acc = _mm256_xor_si256(acc, _mm256_srli_si256(acc, 4));
    return (uint32_t)(_mm256_extract_epi32(acc, 0) ^ _mm256_extract_epi32(acc, 4));
}

void cpu_ising_dsp_init_avx2(struct cpu_ising_dsp *dsp)
{
    dsp->prepare = prepare_avx2;
    dsp->colour_rows = colour_rows_avx2;
    dsp->draws = draws_avx2;
    dsp->draws_xor = draws_xor_avx2;
    dsp->name = "avx2";
}
