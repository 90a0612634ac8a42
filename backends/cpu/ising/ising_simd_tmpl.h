/*
 * The Ising SIMD kernels on the split-row layout (ising_split.h), written once over a small
 * set of per-ISA primitives and compiled per level: ising_avx2.c and ising_avx512.c define
 * the primitives and include this file (as potts_avx2.c / potts_avx512.c do with
 * potts_simd.h). Everything here is private to that translation unit; the level's entry
 * point is ISING_DSP_INIT (cpu_ising_dsp_init_<isa>, ising_split.h).
 *
 * What is written here once: the row cursor (a half-row and its neighbours' half-rows,
 * the rows to prefetch, the periodic pads), the two row drivers (rows that start on a
 * group of 8 Philox blocks take their draws straight from registers; other rows fill a
 * window of draws in natural order), the counter-word change for blocks beyond 2^32, the
 * neighbour count k of a vector of sites (uniform and +-J), the 16 variants (2D/3D,
 * Metropolis/heat bath, with or without "never" entries, uniform/+-J) and their dispatch,
 * the generator-only entries draws / draws_xor, and (ising_measure_tmpl.h, plain byte
 * loops the level's flags vectorise) the measurement of rows.
 *
 * The primitives, defined by the ISA file before including this (VW bytes a vector):
 *   vec, VW                   the vector type and its width in bytes (sites)
 *   v_loadu, v_set1_8, v_zero, v_and, v_xor, v_add8, v_srli16
 *   v_xor_fold(vec)           the xor of all 32-bit lanes
 *   struct philox_consts      the Philox vectors of one (seed, c1, c2, c3)
 *   philox_setup_kernels(pc, fold), philox_setup_draws(pc, fold)
 *                             as the kernels want them / plain draws (AVX2 flips the sign
 *                             bit of the kernels' draws, for signed compares)
 *   philox_registers(pc, blk, d, groups)
 *                             the draws of groups (1 or 2) x 8 blocks from blk, in the
 *                             order the step wants them from registers: d[4 h .. 4 h + 3]
 *                             are those of sites VW h .. VW h + VW - 1
 *   philox_natural(pc, blk, out, groups)   the same draws stored in natural order
 *   draws_from_natural(in, d) VW draws in[0 .. VW - 1] (natural order) into d[0..3]
 *   struct tables, tables_prepare(tb, p)   the pass's decision tables in vector form
 *   decide_store(dst, s, k, d, tb, heatbath, never, from_registers, valid)
 *                             the per-word step: new bytes of VW sites with bytes s and
 *                             up-neighbour counts k from draws d (from philox_registers
 *                             or from draws_from_natural) stored to dst; returns how many
 *                             of the sites in `valid` (bit i: site i) changed
 *   ISING_LEVEL, ISING_DSP_INIT            the level's name and entry point
 *   ISING_NARROW_ROWS         (optional) defined when the ISA file provides narrow_rows,
 *                             a faster path for some lattices (AVX-512: L_x 16 and 32)
 */
#include <string.h>

#include "ising_rules.h" /* LATMC_ALGO_*, latmc_wrap_* */
#include "ising_split.h"
#include "philox_fold.h"

/* The variants take (three, heatbath, never, coupled) as constants: everything must be
 * inlined into each of them for the branches to fold. */
#define INLINE static inline __attribute__((always_inline))

/* Draws of 64 sites, in vectors (AVX2 8, AVX-512 4). */
enum { DRAW_VECS64 = 256 / VW };

/* ---- Philox constants: blocks beyond 2^32 (lattices above 2^34 sites) change c1 ---- */

static __attribute__((noinline)) void set_consts(struct philox_consts *pc, uint64_t hi,
                                                 const struct cpu_ising_pass *p)
{
    const struct latmc_philox_fold f = latmc_philox_fold_name(p->seed, p->name, (uint32_t)hi);
    philox_setup_kernels(pc, &f);
}

INLINE void ensure_consts(const struct philox_consts **pc, struct philox_consts *local,
                          uint64_t *cur_hi, uint64_t hi, const struct cpu_ising_pass *p)
{
    if (__builtin_expect(hi != *cur_hi, 0)) {
        set_consts(local, hi, p);
        *pc = local;
        *cur_hi = hi;
    }
}

/* The window's next two groups (blocks blk .. blk + 15, natural order, to out) where the
 * second starts on a multiple of 2^32 blocks: out of line, once for all variants. */
static __attribute__((noinline)) void window_across(const struct philox_consts **pc,
                                                    struct philox_consts *local,
                                                    uint64_t *cur_hi, uint64_t blk,
                                                    uint32_t *out, const struct cpu_ising_pass *p)
{
    philox_natural(*pc, blk, out, 1);
    ensure_consts(pc, local, cur_hi, (blk + 8) >> 32, p);
    philox_natural(*pc, blk + 8, out + 32, 1);
}

/* ---- one vector of sites ---- */

struct row_ptrs {
    uint8_t *dst;                      /* the half-row updated */
    const uint8_t *xl, *xr;            /* along x: the other half-row at -1 / 0 or 0 / +1 */
    const uint8_t *yp, *ym, *zp, *zm;  /* along y and z: the same half of the rows next to it */
    /* +-J: the bond bytes (ising_split.h) of the sites and of their neighbours at -e_mu */
    const uint8_t *bown, *bxl, *bym, *bzm;
};

/* A neighbour's VW bytes; +-J: xor-ed with bit mu of the bond bytes b (1 iff
 * eps s_j = +1). The 16-bit shift moves bits across bytes, but only bit 0 of each is kept. */
INLINE vec neighbour(const uint8_t *n, vec b, int mu, vec one, int coupled)
{
    if (!coupled)
        return v_loadu(n);
    const vec bit = v_and(mu ? v_srli16(b, mu) : b, one);
    return v_xor(v_loadu(n), bit);
}

/* k, the number of neighbours with (eps_ij) s_j = +1, of the VW sites from jl on. */
INLINE vec up_count(const struct row_ptrs *q, int64_t jl, vec one, int three, int coupled)
{
    /* +-J: the sites' own bond bytes (bonds to +e_mu), those of the neighbours at -e_mu */
    const vec bo = coupled ? v_loadu(q->bown + jl) : one;
    const vec bxl = coupled ? v_loadu(q->bxl + jl) : one;
    const vec bym = coupled ? v_loadu(q->bym + jl) : one;
    vec k = v_add8(neighbour(q->xl + jl, bxl, 0, one, coupled),
                   neighbour(q->xr + jl, bo, 0, one, coupled));
    k = v_add8(k, neighbour(q->yp + jl, bo, 1, one, coupled));
    k = v_add8(k, neighbour(q->ym + jl, bym, 1, one, coupled));
    if (three) {
        const vec bzm = coupled ? v_loadu(q->bzm + jl) : one;
        k = v_add8(k, neighbour(q->zp + jl, bo, 2, one, coupled));
        k = v_add8(k, neighbour(q->zm + jl, bzm, 2, one, coupled));
    }
    return k;
}

/* Bits 0 .. n - 1 (n <= 64). */
INLINE uint64_t low_bits(int64_t n)
{
    return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

/*
 * Update `sites` (<= 64) sites from jl on, VW at a time (only the first `sites` are real:
 * the others lie in the writable tail beyond the half-row). Their draws: d as
 * philox_registers leaves them (DRAW_VECS64 vectors), or with from_window (a constant)
 * win[0 .. sites - 1] in natural order, read a vector's worth at a time. Returns how many
 * changed.
 */
INLINE unsigned step64(const struct row_ptrs *q, int64_t jl, int64_t sites, const vec *d,
                       const uint32_t *win, const int from_window, const struct tables *tb,
                       int three, int heatbath, int never, int coupled)
{
    unsigned changed = 0;
    const vec one = v_set1_8(1);
#pragma GCC unroll 2 /* AVX2: two vectors of 32 sites, as two straight copies */
    for (int h = 0; h * VW < sites; h++) {
        const int64_t j = jl + VW * h;
        vec dw[4];
        if (from_window)
            draws_from_natural(win + VW * h, dw);
        const vec s = v_loadu(q->dst + j);
        const vec k = up_count(q, j, one, three, coupled);
        changed += decide_store(q->dst + j, s, k, from_window ? dw : d + 4 * h, tb, heatbath,
                                never, !from_window, low_bits(sites - VW * h));
    }
    return changed;
}

/* ---- rows ---- */

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
INLINE void cursor_set_bonds(struct row_cursor *c, const struct cpu_ising_split *sp, int par,
                             int three, int64_t rym, int64_t rzm, int64_t rpf)
{
    c->q.bown = cpu_ising_split_bond_row(sp, c->r, par);
    c->q.bxl = cpu_ising_split_bond_row(sp, c->r, par ^ 1) - (par == 0);
    c->q.bym = cpu_ising_split_bond_row(sp, rym, par);
    c->q.bzm = three ? cpu_ising_split_bond_row(sp, rzm, par) : c->q.bym;
    c->pfb[0] = (const char *)cpu_ising_split_bond_row(sp, rpf, 0);
    c->pfb[1] = (const char *)cpu_ising_split_bond_row(sp, rpf, 1);
}

INLINE void cursor_set(struct row_cursor *c, const struct cpu_ising_split *sp, int colour,
                       int three, int coupled)
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
INLINE void cursor_next(struct row_cursor *c, const struct cpu_ising_split *sp)
{
    c->q.dst[-1] = c->q.dst[sp->half - 1];
    c->q.dst[sp->half] = c->q.dst[0];
    c->r++;
    if (++c->y == sp->ly) {
        c->y = 0;
        c->z++;
    }
}

INLINE void prefetch_rows(const struct row_cursor *c, int64_t offset, int three, int coupled)
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
    struct philox_consts pc;   /* Philox constants for blocks below 2^32 */
    struct tables tb;
};
_Static_assert(sizeof(struct prepared) <= sizeof(((struct cpu_ising_pass *)0)->prepared),
               "cpu_ising_pass.prepared too small");

static void prepare(struct cpu_ising_pass *p)
{
    struct prepared *w = (struct prepared *)(void *)p->prepared;
    tables_prepare(&w->tb, p);
    set_consts(&w->pc, 0, p);
}

INLINE uint64_t rows_impl(const struct cpu_ising_split *sp, const struct cpu_ising_pass *p,
                          int64_t r0, int64_t r1, int three, int heatbath, int never,
                          int coupled)
{
    const struct prepared *w = (const struct prepared *)(const void *)p->prepared;
    const struct tables *tb = &w->tb;
    const int64_t half = sp->half;
    const struct philox_consts *pc = &w->pc;
    struct philox_consts local; /* constants for blocks beyond 2^32, when needed */
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
    vec d[DRAW_VECS64];
    if (half % 32 == 0) {
        /*
         * Every row starts on a group of 8 Philox blocks: draws straight from registers,
         * two groups (64 sites) per step, sixteen Philox instances in flight. (Running
         * the chunks of all rows as one sequence, which the numbering allows, was not
         * faster: 2D the same, 3D with short rows mixed.)
         */
        for (;;) {
            uint64_t blk = (uint64_t)(half * (cur.r + sp->row_origin)) / 4;
            /* the group counts are constants: Philox's loops unroll on them */
            int64_t jl = 0;
            for (; jl + 64 <= half; jl += 64, blk += 16) {
                prefetch_rows(&cur, jl, three, coupled);
                ensure_consts(&pc, &local, &cur_hi, blk >> 32, p);
                philox_registers(pc, blk, d, 2);
                changed += step64(&cur.q, jl, 64, d, NULL, 0, tb, three, heatbath, never,
                                  coupled);
            }
            if (jl < half) { /* 32 sites left: one group */
                prefetch_rows(&cur, jl, three, coupled);
                ensure_consts(&pc, &local, &cur_hi, blk >> 32, p);
                philox_registers(pc, blk, d, 1);
                changed += step64(&cur.q, jl, 32, d, NULL, 0, tb, three, heatbath, never,
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
    uint32_t buf[96] __attribute__((aligned(VW)));
    for (;;) {
        const uint64_t j0 = (uint64_t)(half * (cur.r + sp->row_origin));
        uint64_t blk = j0 / 32 * 8;
        const int64_t off = (int64_t)(j0 - 4 * blk);
        ensure_consts(&pc, &local, &cur_hi, blk >> 32, p);
        philox_natural(pc, blk, buf, 1);
        for (int64_t jl = 0; jl < half; jl += 64) {
            prefetch_rows(&cur, jl, three, coupled);
            ensure_consts(&pc, &local, &cur_hi, (blk + 8) >> 32, p);
            if (__builtin_expect((blk + 16) >> 32 == cur_hi, 1))
                philox_natural(pc, blk + 8, buf + 32, 2);
            else
                window_across(&pc, &local, &cur_hi, blk + 8, buf + 32, p);
            const int64_t n = half - jl < 64 ? half - jl : 64;
            changed += step64(&cur.q, jl, n, NULL, buf + off, 1, tb, three, heatbath, never,
                              coupled);
            memcpy(buf, buf + 64, 32 * sizeof buf[0]);
            blk += 16;
        }
        cursor_next(&cur, sp);
        if (cur.r == r1)
            return changed;
        cursor_set(&cur, sp, p->colour, three, coupled);
    }
}

typedef uint64_t (*rows_fn)(const struct cpu_ising_split *, const struct cpu_ising_pass *,
                            int64_t, int64_t);

/*
 * The instances of a driver impl(s, p, r0, r1, x, heatbath, never, coupled), one function
 * each with its flags as constants (x: 3D for the rows, the half-row length for AVX-512's
 * narrow rows), named impl_x<x>_hb<heatbath>_never<never>_pmj<coupled>; ISING_TABLE4 is the
 * [heatbath][never] table of the four with the same x and coupled.
 */
#define ISING_INSTANCE(impl, x, hb, nv, cp)                                                 \
    static uint64_t impl##_x##x##_hb##hb##_never##nv##_pmj##cp(                            \
        const struct cpu_ising_split *s, const struct cpu_ising_pass *p, int64_t r0,        \
        int64_t r1)                                                                         \
    {                                                                                       \
        return impl(s, p, r0, r1, x, hb, nv, cp);                                           \
    }
#define ISING_INSTANCES4(impl, x, cp)                                                       \
    ISING_INSTANCE(impl, x, 0, 0, cp) ISING_INSTANCE(impl, x, 0, 1, cp)                     \
    ISING_INSTANCE(impl, x, 1, 0, cp) ISING_INSTANCE(impl, x, 1, 1, cp)
#define ISING_TABLE4(impl, x, cp)                                                           \
    { { impl##_x##x##_hb0_never0_pmj##cp, impl##_x##x##_hb0_never1_pmj##cp },              \
      { impl##_x##x##_hb1_never0_pmj##cp, impl##_x##x##_hb1_never1_pmj##cp } }

/* 2D / 3D, uniform / +-J couplings */
ISING_INSTANCES4(rows_impl, 0, 0)
ISING_INSTANCES4(rows_impl, 1, 0)
ISING_INSTANCES4(rows_impl, 0, 1)
ISING_INSTANCES4(rows_impl, 1, 1)

#ifdef ISING_NARROW_ROWS
/* The ISA file's faster path for some shapes: rows [r0, r1) by it where it applies, the
 * rest by `rows` (the general variant of the same pass). */
static uint64_t narrow_rows(const struct cpu_ising_split *s, const struct cpu_ising_pass *p,
                            int64_t r0, int64_t r1, rows_fn rows);
#endif

/* The one level dispatch of every level: the variant of (+-J, ndim, algorithm, never). */
static uint64_t colour_rows(const struct cpu_ising_split *s, const struct cpu_ising_pass *p,
                            int64_t r0, int64_t r1)
{
    static const rows_fn variants[2][2][2][2] = {
        { ISING_TABLE4(rows_impl, 0, 0), ISING_TABLE4(rows_impl, 1, 0) },
        { ISING_TABLE4(rows_impl, 0, 1), ISING_TABLE4(rows_impl, 1, 1) },
    };
    const rows_fn rows = variants[s->bonds != NULL][s->ndim == 3]
                                 [p->dec.algorithm == LATMC_ALGO_HEATBATH]
                                 [p->dec.any_never != 0];
#ifdef ISING_NARROW_ROWS
    return narrow_rows(s, p, r0, r1, rows);
#else
    return rows(s, p, r0, r1);
#endif
}

/* ---- the generator alone (tests, the Philox ceiling) ---- */

static void draws(uint64_t seed, struct latmc_rng_name name, uint64_t first_block, int64_t n,
                  uint32_t *out)
{
    struct philox_consts pc;
    const struct latmc_philox_fold f = latmc_philox_fold_name(seed, name, 0);
    philox_setup_draws(&pc, &f);
    for (int64_t i = 0; i < n; i++)
        philox_natural(&pc, first_block + 8 * (uint64_t)i, out + 32 * i, 1);
}

/* The generator as the kernels run it (two groups per step, from registers), nothing else. */
static uint32_t draws_xor(uint64_t seed, uint64_t first_block, int64_t n)
{
    struct philox_consts pc;
    const struct latmc_rng_name zero = { 0, 0, 0 };
    const struct latmc_philox_fold f = latmc_philox_fold_name(seed, zero, 0);
    philox_setup_kernels(&pc, &f);
    vec acc = v_zero();
    for (int64_t i = 0; i + 1 < n; i += 2) {
        vec d[DRAW_VECS64];
        philox_registers(&pc, first_block + 8 * (uint64_t)i, d, 2);
        for (int m = 0; m < DRAW_VECS64; m++)
            acc = v_xor(acc, d[m]);
    }
    return v_xor_fold(acc);
}

/* ---- the measurement of rows, in this level's vectors (plain byte loops) ---- */

#define ISING_MEASURE_ROWS_FN measure_rows
#include "ising_measure_tmpl.h"

void ISING_DSP_INIT(struct cpu_ising_dsp *dsp)
{
    dsp->prepare = prepare;
    dsp->colour_rows = colour_rows;
    dsp->draws = draws;
    dsp->draws_xor = draws_xor;
    dsp->measure_rows = measure_rows;
    dsp->level = ISING_LEVEL;
}
