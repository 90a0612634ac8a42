/*
 * The bit-sliced Ising decisions (decisions = 1, doc/models/ising-decisions.md) on the split
 * rows (ising_split.h), written once over a few per-ISA primitives and compiled per level:
 * ising_decisions_avx2.c (8 groups a batch) and ising_decisions_avx512.c (16) define the
 * primitives and include this file. The decisions are those of the C reference
 * (lib/ising_decision_rules.h) bit for bit; only the order of the work differs:
 *
 * - A group of 32 sites lying whole in one half-row is 32 consecutive bytes: 32-byte loads
 *   of the neighbour runs, byte adds give the up-neighbour counts k (0 .. 6), and one
 *   pshufb maps (k, spin) to a class code byte: bit c for open threshold c (0 < T < 2^32;
 *   equal thresholds share a bit, so 2D Metropolis at h = 0 has two, 3D three, heat bath
 *   up to seven), bit 7 for T = 2^32, none for T = 0. A movemask per bit gives the
 *   group's class masks (bit i = lane i).
 * - NB groups (consecutive numbers g .. g + NB - 1) are a batch, one group per 32-bit
 *   lane: the class masks, the threshold planes and the planes' logic are NB-lane vector
 *   logic, and planes 0 .. 7 of the batch come from two NB-block Philox calls (subs 0 and
 *   1, computed together). No branch depends on how many planes a batch needs.
 * - The tail ("The tail" in the doc): a group still undecided after plane 7 (probability
 *   0.12 with 32 open lanes) goes to a queue with its state; the queue's NB groups, from
 *   anywhere in the range, take plane block 2 (planes 8 .. 11) in one NB-block call with
 *   their own block numbers, and block 3 (planes 12 .. 15) likewise where a lane is left
 *   (0.008 per group); the few still undecided after plane 15 finish with the scalar
 *   reference rule. The decided lanes of a group flip at once, the rest when the queue
 *   is run: same-colour sites do not read each other, so the order of the flips within a
 *   step changes nothing.
 * Per group of 32 sites (2D Metropolis at beta_c): the chain names 1.94 Philox blocks
 * (blocks 0 .. 3 until the group is decided; tests/physics/validate_ising_decisions'
 * planes); the batches draw 2 and the queue's runs 0.21 more (counted at 4096^2: block 2
 * 0.137, block 3 0.069, scalar 0.0004; the runs are 73 % full, one part-empty at each
 * range's end), with 8.5 planes of vector logic.
 *
 * Groups that do not lie whole in one half-row (rows of fewer than 32 sites per colour
 * or not a multiple of 32, the ends of a thread's, box's or part's range) take the C path
 * (cpu_ising_decisions_group): the same decisions.
 *
 * Primitives (the ISA file defines them before including this file):
 *   bvec, NB                  NB 32-bit lanes, one group each
 *   b_zero, b_ones, b_load(p), b_store(p, x) (p NB-aligned uint32_t[NB]), b_and, b_or, b_andnot(a, b)
 *                             (~a & b), b_xor
 *   b_plane(acc, und, w, tb)  one plane: *acc |= *und & tb & ~w; *und &= ~(w ^ tb)
 *   b_or_and(x, a, s)         x | (a & s)
 *   b_lanes_below(n)          all ones in lanes 0 .. n - 1, zero above (0 <= n <= NB)
 *   b_nonzero_lanes(x)        bit i: lane i of x is not 0
 *   b_count_add(cnt, x)       add the set bits of x to the counter vector *cnt;
 *   b_count_total(cnt)        its total
 *   DEC_SUBS                  the subs whose folds struct dphilox holds (4: 0 .. 3)
 *   struct dphilox, dphilox_setup(p, f) (f: the folds of subs 0 .. DEC_SUBS - 1 of one
 *                             block >> 32)
 *   dphilox_main(p, blo, w)   w[4 q + l] = output l of block (blo + i, sub q) in lane i,
 *                             q = 0, 1 (planes 0 .. 7)
 *   dphilox_tail(p, q, blo, w) w[l] = output l of block (blo[i], sub q) in lane i,
 *                             q = 2, 3
 *   DEC_LEVEL_ENTRY, DEC_LEVEL_PREPARE, DEC_LEVEL_RANGE_PASS
 *                             the level's entry points (cpu_ising_decisions_range_<isa>,
 *                             _prepare_<isa>, _range_pass_<isa>: ising_decisions.h)
 *   DEC_LEVEL_NAME, DEC_LEVEL_DSP_INIT
 *                             the level's name and its table entry
 *                             (cpu_ising_dec_dsp_init_<isa>)
 */
#include <stdint.h>
#include <string.h>

#include "ising_decision_rules.h"
#include "ising_decisions.h"

#define DINLINE static inline __attribute__((always_inline))

#define MAIN_PLANES 8   /* planes every batch draws: blocks of subs 0 and 1 */
#define TAIL_PLANES 4   /* the queue's planes per block: subs 2 and 3 */
#define TAIL_BLOCKS (DEC_SUBS - 2) /* 2: planes 8 .. 15 in the queue's vectors */
#define VEC_PLANES (MAIN_PLANES + TAIL_BLOCKS * TAIL_PLANES)
#define MAX_OPEN 7      /* distinct open thresholds: at most one class per k (2D 5, 3D 7) */
#define ALWAYS_BIT 7    /* the code bit of T = 2^32 */

/* What one range's batches share. */
struct dec_simd {
    const struct cpu_ising_dec_view *v;
    int metropolis;
    /* no class code 0 (T = 0) for any k and spin: a lane of a whole group is either in
     * an open class or always accepted, so "always" is the complement of the open masks */
    int no_never;
    int n_open;
    uint64_t open_t[MAX_OPEN];
    /* (k + 8 s) -> code byte, s the spin byte (0 / 1); heat bath: the same for both s */
    uint8_t code[16];
    /* all ones where open class c's T has bit 31 - b, b = 0 .. 15 (VEC_PLANES) */
    bvec sel[MAX_OPEN][VEC_PLANES];
    uint32_t plane_classes[LATMC_BITSLICE_PLANES]; /* bit c: open class c's T has bit 31 - b */
    struct latmc_ising_plane_names names;
    struct dphilox pc;
    int64_t fold_hi; /* block >> 32 the folds are for; -1: none yet */
};

static void dec_simd_setup(struct dec_simd *d, int ndim, const uint64_t *ct, int algorithm,
                           const struct latmc_ising_plane_names *names)
{
    memset(d->code, 0, sizeof d->code);
    d->v = NULL;
    d->metropolis = algorithm != LATMC_ALGO_HEATBATH;
    d->n_open = 0;
    const int kmax = 2 * ndim;
    for (int s_up = 0; s_up < 2; s_up++)
        for (int k = 0; k <= kmax; k++) {
            const uint64_t t = ct[k + (d->metropolis ? LATMC_ISING_MAX_K * s_up : 0)];
            uint8_t code = 0;
            if (t >> 32) {
                code = 1u << ALWAYS_BIT;
            } else if (t != 0) {
                int c = 0;
                while (c < d->n_open && d->open_t[c] != t)
                    c++;
                if (c == d->n_open) /* at most MAX_OPEN: one class per k */
                    d->open_t[d->n_open++] = t;
                code = (uint8_t)(1u << c);
            }
            d->code[k + 8 * s_up] = code;
        }
    d->no_never = 1;
    for (int s_up = 0; s_up < 2; s_up++)
        for (int k = 0; k <= kmax; k++)
            d->no_never &= d->code[k + 8 * s_up] != 0;
    for (int b = 0; b < LATMC_BITSLICE_PLANES; b++) {
        d->plane_classes[b] = 0;
        for (int c = 0; c < d->n_open; c++)
            d->plane_classes[b] |= (uint32_t)((d->open_t[c] >> (31 - b)) & 1u) << c;
    }
    for (int c = 0; c < MAX_OPEN; c++)
        for (int b = 0; b < VEC_PLANES; b++)
            d->sel[c][b] = (d->plane_classes[b] >> c) & 1u ? b_ones() : b_zero();
    d->names = *names;
    d->fold_hi = -1;
}

/* The folds of subs sub0 .. sub0 + DEC_SUBS - 1 for blocks of one value of block >> 32. */
static void dec_simd_fold(struct dec_simd *d, int64_t hi)
{
    struct latmc_philox_fold f[DEC_SUBS];
    for (int q = 0; q < DEC_SUBS; q++)
        f[q] = latmc_philox_fold_name(d->names.seed, latmc_ising_plane_name(&d->names, q),
                                      (uint32_t)hi);
    dphilox_setup(&d->pc, f);
    d->fold_hi = hi;
}

/* The half-rows a group of a half-row reads (ising_split.h), found once per row: its own,
 * the other parity of its row (shifted so that byte j is the neighbour at x + 1, byte
 * j - 1 the one at x - 1; the pads make the periodic wrap an offset), the same parity of
 * the rows above and below (and in 3D, of the planes), and for +-J their bonds: the bond
 * to +e_mu is bit mu of the site's own bond byte, to -e_mu the neighbour's. */
struct run_rows {
    uint8_t *own;
    const uint8_t *oth, *nb[4];
    const uint8_t *ownb, *othb, *nbb[4]; /* NULL: uniform couplings */
};

static inline void run_rows_of(const struct cpu_ising_split *sp, const struct latmc_site *first,
                        struct run_rows *rr)
{
    const int64_t y = first->y, z = first->z, ly = sp->ly, r = first->row;
    const int par = (int)(first->x & 1);
    const int64_t nr[4] = { latmc_wrap_up(y, ly) + ly * z, latmc_wrap_down(y, ly) + ly * z,
                            y + ly * latmc_wrap_up(z, sp->lz), y + ly * latmc_wrap_down(z, sp->lz) };
    const int nrows = sp->ndim == 3 ? 4 : 2;
    rr->own = cpu_ising_split_row(sp, r, par);
    rr->oth = cpu_ising_split_row(sp, r, par ^ 1) + par;
    for (int m = 0; m < nrows; m++)
        rr->nb[m] = cpu_ising_split_row(sp, nr[m], par);
    rr->ownb = rr->othb = NULL;
    if (sp->bonds) {
        rr->ownb = cpu_ising_split_bond_row(sp, r, par);
        rr->othb = cpu_ising_split_bond_row(sp, r, par ^ 1) + par;
        for (int m = 0; m < nrows; m++) /* +y, +z: the site's own; -y, -z: the row's */
            rr->nbb[m] = m % 2 == 0 ? rr->ownb : cpu_ising_split_bond_row(sp, nr[m], par);
    }
}

static inline __m256i load32(const uint8_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* One group of a batch: its half-row's pointers and its first byte there. */
struct slot {
    const struct run_rows *rr;
    int64_t jx;
};

/*
 * The class masks of the group at bytes jx .. jx + 31 of its half-row: mk[c] for the open
 * classes c < nopen, always (T = 2^32) and the spins, bit i = lane i.
 */
DINLINE void group_codes(const struct dec_simd *d, const struct run_rows *rr, int64_t jx,
                         uint32_t *mk, uint32_t *always, uint32_t *spin, const int bonds,
                         const int nrows, const int nopen)
{
    const __m256i one = _mm256_set1_epi8(1);
    __m256i xp = load32(rr->oth + jx), xm = load32(rr->oth + jx - 1);
    if (bonds) { /* +-J: eps s = +1 iff spin byte ^ bond bit = 1 */
        xp = _mm256_xor_si256(xp, _mm256_and_si256(load32(rr->ownb + jx), one));
        xm = _mm256_xor_si256(xm, _mm256_and_si256(load32(rr->othb + jx - 1), one));
    }
    __m256i k = _mm256_add_epi8(xp, xm);
#pragma GCC unroll 4
    for (int m = 0; m < nrows; m++) {
        __m256i nb = load32(rr->nb[m] + jx);
        if (bonds) {
            const __m256i bits = _mm256_srl_epi16(load32(rr->nbb[m] + jx),
                                                  _mm_cvtsi32_si128(1 + m / 2));
            nb = _mm256_xor_si256(nb, _mm256_and_si256(bits, one));
        }
        k = _mm256_add_epi8(k, nb);
    }
    const __m256i own = load32(rr->own + jx);
    /* k + 8 s (k < 8: the spin bit lands on bit 3; 16-bit shifts cross no byte's top) */
    const __m256i idx = _mm256_or_si256(k, _mm256_slli_epi16(own, 3));
    const __m256i table = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)d->code));
    const __m256i code = _mm256_shuffle_epi8(table, idx);
    /* bit c of each byte to its top bit, then one bit per byte */
    for (int c = 0; c < nopen; c++)
        mk[c] = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(code, 7 - c));
    *always = (uint32_t)_mm256_movemask_epi8(code);
    *spin = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(own, 7));
}

#ifdef DEC_PAIRS
/*
 * The AVX-512 level's form of group_codes for groups jx and jx + 32 of one half-row (a
 * batch's run of whole groups): 64-byte loads take both, and a vptestmb per class gives
 * both groups' masks at once (bit i of the 64 = byte i: group jx in bits 0 .. 31), stored
 * as mk[c][i], mk[c][i + 1]. The same masks as two group_codes calls.
 */
static inline __m512i load64(const uint8_t *p)
{
    return _mm512_loadu_si512((const void *)p);
}

DINLINE void group_codes_pair(const struct dec_simd *d, const struct run_rows *rr, int64_t jx,
                              uint32_t (*mk)[NB], uint32_t *always, uint32_t *spin, int i,
                              const int bonds, const int nrows, const int nopen)
{
    const __m512i one = _mm512_set1_epi8(1);
    __m512i xp = load64(rr->oth + jx), xm = load64(rr->oth + jx - 1);
    if (bonds) {
        xp = _mm512_xor_si512(xp, _mm512_and_si512(load64(rr->ownb + jx), one));
        xm = _mm512_xor_si512(xm, _mm512_and_si512(load64(rr->othb + jx - 1), one));
    }
    __m512i k = _mm512_add_epi8(xp, xm);
#pragma GCC unroll 4
    for (int m = 0; m < nrows; m++) {
        __m512i nb = load64(rr->nb[m] + jx);
        if (bonds) {
            const __m512i bits = _mm512_srl_epi16(load64(rr->nbb[m] + jx),
                                                  _mm_cvtsi32_si128(1 + m / 2));
            nb = _mm512_xor_si512(nb, _mm512_and_si512(bits, one));
        }
        k = _mm512_add_epi8(k, nb);
    }
    const __m512i own = load64(rr->own + jx);
    const __m512i idx = _mm512_or_si512(k, _mm512_slli_epi16(own, 3));
    const __m512i table = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)d->code));
    const __m512i code = _mm512_shuffle_epi8(table, idx);
    uint64_t w;
    for (int c = 0; c < nopen; c++) {
        w = (uint64_t)_mm512_test_epi8_mask(code, _mm512_set1_epi8((char)(1 << c)));
        memcpy(&mk[c][i], &w, sizeof w);
    }
    if (!d->no_never) { /* else decide_batch takes the complement of the open masks */
        w = (uint64_t)_mm512_movepi8_mask(code);
        memcpy(&always[i], &w, sizeof w);
    }
    if (!d->metropolis) { /* Metropolis flips the accepted lanes: no spins wanted */
        w = (uint64_t)_mm512_test_epi8_mask(own, one);
        memcpy(&spin[i], &w, sizeof w);
    }
}

/* Flip the lanes in flip[0] and flip[1] of the groups at bytes jx and jx + 32 of `row`:
 * bytes masked by the 64 bits xor 1. */
DINLINE void group_flip_pair(uint8_t *row, int64_t jx, const uint32_t *flip)
{
    uint64_t f;
    memcpy(&f, flip, sizeof f);
    const __m512i v = load64(row + jx);
    _mm512_storeu_si512((void *)(row + jx),
                        _mm512_xor_si512(v, _mm512_maskz_mov_epi8((__mmask64)f,
                                                                  _mm512_set1_epi8(1))));
}
#endif

/* Flip the lanes in `flip` of the group at byte jx of half-row `row` (pads: group_pads). */
DINLINE void group_flip_only(uint8_t *row, int64_t jx, const uint32_t *flip)
{
    uint8_t *own = row + jx;
#ifdef DEC_PAIRS /* AVX-512 BW/VL: the 32 bits as a byte mask */
    __mmask32 k;
    memcpy(&k, flip, sizeof k);
    _mm256_storeu_si256((__m256i *)(void *)own,
                        _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)own),
                                         _mm256_maskz_mov_epi8(k, _mm256_set1_epi8(1))));
#else
    /* byte i gets byte i / 8 of flip, keeps its bit i mod 8, and becomes 0 or 1 */
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32((int)*flip),
        _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                         3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i bit = _mm256_set1_epi64x((long long)UINT64_C(0x8040201008040201));
    const __m256i bytes = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit),
                                           _mm256_set1_epi8(1));
    _mm256_storeu_si256((__m256i *)own,
                        _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)own), bytes));
#endif
}

/* After flips in bytes [jx, jx + len) of half-row `row`: its pads repeat its ends. */
DINLINE void group_pads(const struct cpu_ising_split *sp, uint8_t *row, int64_t jx, int64_t len)
{
    if (jx == 0)
        row[sp->half] = row[0];
    if (jx + len == sp->half)
        row[-1] = row[sp->half - 1];
}

DINLINE void group_flip(const struct cpu_ising_split *sp, uint8_t *row, int64_t jx,
                        const uint32_t *flip)
{
    group_flip_only(row, jx, flip);
    group_pads(sp, row, jx, 32);
}

/* Set bits of x (the levels' flags have no popcnt). */
static inline int dec_popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (int)((x * 0x01010101u) >> 24);
}

/* The groups undecided after their batch's planes, waiting for plane block 2, lane by
 * lane as the vectors want them (a run of fewer than NB masks lanes n .. NB - 1). Room
 * for 2 NB: a batch may append its NB lanes whole (queue_compress) to a queue of up to
 * NB - 1, which then runs its first NB and keeps the rest. Every group queued has block
 * >> 32 = d->fold_hi (the queue runs before the folds change). */
struct tail_queue {
    int n;
    _Alignas(64) uint32_t blo[2 * NB], und[2 * NB], spin[2 * NB], jx[2 * NB];
    _Alignas(64) uint32_t m[MAX_OPEN][2 * NB]; /* the open classes' masks */
    uint8_t *row[2 * NB];
};

/* Plane b of the thresholds of the open classes' masks m[c][i] (the scalar rest's form). */
static inline uint32_t threshold_plane(const struct dec_simd *d, const struct tail_queue *q,
                                       int i, int b)
{
    uint32_t tb = 0;
    for (int c = 0; c < d->n_open; c++)
        tb |= q->m[c][i] & (0u - ((d->plane_classes[b] >> c) & 1u));
    return tb;
}

/* The rare rest of queue lane i: planes 16 .. 31 by the reference rule. */
static __attribute__((noinline)) uint32_t tail_rest(const struct dec_simd *d,
                                                    const struct tail_queue *q, int i,
                                                    uint32_t und, uint32_t acc)
{
    struct latmc_bitslice s = { und, acc, VEC_PLANES };
    for (int qb = VEC_PLANES / LATMC_ISING_PLANES_PER_BLOCK;
         qb < LATMC_ISING_DECISION_BLOCKS && s.undecided; qb++) {
        const uint64_t g = ((uint64_t)d->fold_hi << 32) | q->blo[i];
        const latmc_philox_ctr r = latmc_ising_plane_block(&d->names, g, qb);
        for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK && s.undecided; l++)
            latmc_bitslice_plane(&s, r.v[l],
                                 threshold_plane(d, q, i, LATMC_ISING_PLANES_PER_BLOCK * qb + l));
    }
    return s.accept; /* lanes still undecided have u = T: rejected */
}

/*
 * The queue's first NB groups (all if fewer): planes 8 .. 11 side by side, planes 12 .. 15
 * likewise where a lane is left (2/3 of the runs at beta_c, 2D: one Philox call instead
 * of a scalar block per group left, 1 in 15 of them), the rest by the reference rule from
 * plane 16; then their deferred lanes flip, and the groups after them move to the front.
 * Returns the spins changed.
 */
DINLINE uint64_t tail_run_queue(struct dec_simd *d, struct tail_queue *q, const int nopen)
{
    const int nq = q->n < NB ? q->n : NB;
    /* lanes nq .. NB - 1 (a part-full run: the end of each range) hold no group: no lane
     * undecided there, no class, block 0 (what they draw is not used); masked in the
     * vectors, not cleared in the queue (GCC made that loop four memset calls a run) */
    const bvec lt = b_lanes_below(nq);
    _Alignas(64) uint32_t blo[NB];
    b_store(blo, b_and(b_load(q->blo), lt));
    const bvec und0 = b_and(b_load(q->und), lt);
    bvec u = und0, a = b_zero(), mv[MAX_OPEN];
    for (int c = 0; c < nopen; c++)
        mv[c] = b_and(b_load(q->m[c]), lt);
    for (int t = 0; t < TAIL_BLOCKS && (t == 0 || b_nonzero_lanes(u)); t++) {
        bvec w[TAIL_PLANES];
        dphilox_tail(&d->pc, 2 + t, blo, w);
        for (int l = 0; l < TAIL_PLANES; l++) {
            const int b = MAIN_PLANES + TAIL_PLANES * t + l;
            bvec tb = b_and(mv[0], d->sel[0][b]);
            for (int c = 1; c < nopen; c++)
                tb = b_or_and(tb, mv[c], d->sel[c][b]);
            b_plane(&a, &u, w[l], tb);
        }
    }
    _Alignas(64) uint32_t und[NB], acc[NB], flip[NB];
    b_store(und, u);
    b_store(acc, a);
    for (int i = 0; i < nq; i++)
        if (und[i])
            acc[i] = tail_rest(d, q, i, und[i], acc[i]);
    /* the deferred lanes: Metropolis flips the accepted, heat bath sets them to the
     * accepted value */
    a = b_load(acc);
    const bvec f = b_and(d->metropolis ? a : b_xor(a, b_load(q->spin)), und0);
    b_store(flip, f);
    bvec cnt = b_zero();
    b_count_add(&cnt, f);
    const struct cpu_ising_split *sp = d->v->split;
    for (int i = 0; i < nq; i++)
        group_flip(sp, q->row[i], q->jx[i], &flip[i]);
    q->n -= nq;
    if (q->n > 0) { /* fewer than NB: lanes NB .. 2 NB - 1 hold them */
        b_store(q->blo, b_load(q->blo + NB));
        b_store(q->und, b_load(q->und + NB));
        b_store(q->spin, b_load(q->spin + NB));
        b_store(q->jx, b_load(q->jx + NB));
        for (int c = 0; c < nopen; c++)
            b_store(q->m[c], b_load(q->m[c] + NB));
        memcpy(q->row, q->row + NB, NB * sizeof q->row[0]);
    }
    return b_count_total(cnt);
}

/* tail_run_queue for each number of open classes: one call per NB groups queued. */
#define DEC_TAIL(o)                                                                         \
    static __attribute__((noinline)) uint64_t tail_o##o(struct dec_simd *d,                 \
                                                        struct tail_queue *q)               \
    {                                                                                       \
        return tail_run_queue(d, q, o);                                                     \
    }
DEC_TAIL(1)
DEC_TAIL(2)
DEC_TAIL(3)
DEC_TAIL(5)
DEC_TAIL(7)

/* The queue's groups, if any. */
DINLINE uint64_t tail_run(struct dec_simd *d, struct tail_queue *q, const int nopen)
{
    if (q->n == 0)
        return 0;
    switch (nopen) { /* a constant where inlined into a batch kernel */
    case 1: return tail_o1(d, q);
    case 2: return tail_o2(d, q);
    case 3: return tail_o3(d, q);
    case 5: return tail_o5(d, q);
    default: return tail_o7(d, q);
    }
}

/*
 * Groups g .. g + n - 1 (n <= NB, blocks of one value of block >> 32, the folds'), each
 * whole in one half-row: group i at byte sl[i].jx of sl[i].rr's half-row, or with
 * `contiguous` (a constant; then n = NB) at byte jx0 + 32 i of rr0's. Their decided lanes
 * flip now; the groups with lanes still undecided after plane 7 go to the queue. Adds the
 * spins changed to *cnt (or, for those of a queue run, *changed).
 */
DINLINE void decide_batch(struct dec_simd *d, int64_t g, int n, const struct slot *sl,
                          const struct run_rows *rr0, int64_t jx0, const int contiguous,
                          struct tail_queue *q, bvec *cnt, uint64_t *changed, const int bonds,
                          const int nrows, const int nopen)
{
    _Alignas(64) uint32_t mk[MAX_OPEN][NB], al[NB], sp[NB], fl[NB], un[NB];
#define SLOT_RR(i) (contiguous ? rr0 : sl[i].rr)
#define SLOT_JX(i) (contiguous ? jx0 + 32 * (i) : sl[i].jx)
    if (contiguous) {
#ifdef DEC_PAIRS
#pragma GCC unroll 8
        for (int i = 0; i < NB; i += 2)
            group_codes_pair(d, rr0, jx0 + 32 * i, mk, al, sp, i, bonds, nrows, nopen);
#else
#pragma GCC unroll 16
        for (int i = 0; i < NB; i++) {
            uint32_t m[MAX_OPEN];
            group_codes(d, rr0, jx0 + 32 * i, m, &al[i], &sp[i], bonds, nrows, nopen);
            for (int c = 0; c < nopen; c++)
                mk[c][i] = m[c];
        }
#endif
    } else { /* a loop: the slots' pointers are loaded anyway, and the file compiles faster */
#pragma GCC unroll 1
        for (int i = 0; i < NB; i++) {
            if (i < n) {
                uint32_t m[MAX_OPEN];
                group_codes(d, sl[i].rr, sl[i].jx, m, &al[i], &sp[i], bonds, nrows, nopen);
                for (int c = 0; c < nopen; c++)
                    mk[c][i] = m[c];
            } else {
                for (int c = 0; c < nopen; c++)
                    mk[c][i] = 0;
                al[i] = sp[i] = 0;
            }
        }
    }
    /* after the class codes: their loads go first (from L2/L3 at 4096^2); Philox first
     * was 2 % faster in L2 but 1-5 % slower at 4096^2, Philox in two halves between the
     * codes 4 % slower in L2 */
    bvec w[MAIN_PLANES];
    dphilox_main(&d->pc, (uint32_t)g, w);
    bvec m[MAX_OPEN], und = b_zero();
    for (int c = 0; c < nopen; c++) {
        m[c] = b_load(mk[c]);
        und = b_or(und, m[c]);
    }
#ifdef DEC_PAIRS
    /* group_codes_pair left al unset: every lane of a whole group not open is always */
    bvec acc = contiguous && d->no_never ? b_andnot(und, b_ones()) : b_load(al);
#else
    bvec acc = b_load(al);
#endif
    for (int b = 0; b < MAIN_PLANES; b++) {
        bvec tb = b_and(m[0], d->sel[0][b]);
        for (int c = 1; c < nopen; c++)
            tb = b_or_and(tb, m[c], d->sel[c][b]);
        b_plane(&acc, &und, w[b], tb);
    }
    /* the decided lanes that change: Metropolis the accepted, heat bath those set to the
     * other value (undecided lanes are not in acc) */
    const bvec flip = d->metropolis ? acc : b_andnot(und, b_xor(acc, b_load(sp)));
    b_store(fl, flip);
    b_store(un, und);
    b_count_add(cnt, flip);
    const struct cpu_ising_split *spl = d->v->split;
    if (contiguous) {
#ifdef DEC_PAIRS
        /* each pair's 64 bits as a mask register straight from fl (kmovq k, m64): GCC
         * would otherwise take them out of the vector, 2-3 more instructions a pair */
        __asm__("" : : "m"(fl));
        __asm__("" : "+m"(fl));
        /* one base pointer in a register, the pairs at constant offsets: with rr0->own
         * reread after each store (bytes may alias it) GCC kept the eight offsets
         * jx0 + 64 i live, some in vector registers, and moved them back one by one
         * (vmovq, vector to integer: on Zen 4 such transfers issue about one per two
         * cycles) */
        uint8_t *base = rr0->own + jx0;
        __asm__("" : "+r"(base)); /* opaque: not rebuilt from the codes' offsets */
#pragma GCC unroll 8
        for (int i = 0; i < NB; i += 2)
            group_flip_pair(base, 32 * i, &fl[i]);
#else
#pragma GCC unroll 16
        for (int i = 0; i < NB; i++)
            group_flip_only(rr0->own, jx0 + 32 * i, &fl[i]);
#endif
        group_pads(spl, rr0->own, jx0, 32 * NB);
    } else {
        for (int i = 0; i < n; i++)
            group_flip(spl, sl[i].rr->own, sl[i].jx, &fl[i]);
    }
#ifdef DEC_COMPRESS
    if (contiguous) {
        /* the groups with undecided lanes appended whole: each array's kept lanes packed
         * by one vpcompressd (lanes past them are written but not counted), no branch per
         * group; the queue runs once it holds NB */
        const uint32_t keep = b_nonzero_lanes(und);
        const int e = q->n;
        const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13,
                                               14, 15);
        queue_compress(q->und + e, keep, und);
        if (!d->metropolis)
            queue_compress(q->spin + e, keep, b_load(sp));
        queue_compress(q->blo + e, keep,
                       _mm512_add_epi32(_mm512_set1_epi32((int)(uint32_t)g), iota));
        queue_compress(q->jx + e, keep, _mm512_add_epi32(_mm512_set1_epi32((int)jx0),
                                                         _mm512_slli_epi32(iota, 5)));
        for (int c = 0; c < nopen; c++)
            queue_compress(q->m[c] + e, keep, m[c]);
        const __m512i own = _mm512_set1_epi64((long long)(uintptr_t)rr0->own);
        _mm512_storeu_si512((void *)(q->row + e), own);
        _mm512_storeu_si512((void *)(q->row + e + 8), own);
        q->n = e + dec_popcount32(keep);
        if (q->n >= NB)
            *changed += tail_run(d, q, nopen);
        return;
    }
#endif
    /* the groups with undecided lanes, one bit each */
    for (uint32_t left = b_nonzero_lanes(b_load(un)); left; left &= left - 1) {
        const int i = __builtin_ctz(left);
        if (q->n == NB)
            *changed += tail_run(d, q, nopen);
        const int e = q->n++;
        q->row[e] = SLOT_RR(i)->own;
        q->jx[e] = (uint32_t)SLOT_JX(i);
        q->blo[e] = (uint32_t)(g + i);
        q->und[e] = un[i];
        q->spin[e] = sp[i];
        for (int c = 0; c < nopen; c++)
            q->m[c][e] = mk[c][i];
    }
#undef SLOT_RR
#undef SLOT_JX
}

/*
 The hardware prefetchers do not follow the interleaved streams of the rows (3D 256^3:
 * six of two lines each per row), and the rows come from L3 or memory one load latency
 * after another. So fetch ahead the rows that row r + 4 brings in: both halves of row
 * r + 4 and, in 3D, of row r + 4 + L_y (plane z + 1), as ising_simd_tmpl.h's row cursor
 * does. In 2D into L2 (T1), not L1: the wavefront's own rows (both colours of rows
 * r - 1 .. r + 2: 16 KiB at 4096^2) want L1, and rows fetched ahead into it pushed them
 * out (2D 4096^2 on Zen 4: 3.5 -> 4.4 flips/ns); in 3D into L1 (T0: T1 there took 256^3
 * from 2.0 to 1.3 flips/ns; doc/PERFORMANCE.md).
 */
DINLINE void prefetch_rows_ahead(const struct cpu_ising_split *sp, int64_t r, const int three,
                                 const int bonds)
{
    int64_t rpf = r + 4, rzpf = rpf + (three ? sp->ly : 0);
    while (rpf >= sp->rows)
        rpf -= sp->rows;
    while (rzpf >= sp->rows)
        rzpf -= sp->rows;
    /* _mm_prefetch wants a constant hint (at -O0 a macro: a literal, not `three`) */
#define DEC_PF(p)                                                                           \
    do {                                                                                    \
        if (three)                                                                          \
            _mm_prefetch((const char *)(p), _MM_HINT_T0);                                   \
        else                                                                                \
            _mm_prefetch((const char *)(p), _MM_HINT_T1);                                   \
    } while (0)
    for (int par = 0; par < 2; par++)
        for (int64_t o = -1; o < sp->half + 1; o += 64) {
            DEC_PF((const char *)cpu_ising_split_row(sp, rpf, par) + o);
            if (three)
                DEC_PF((const char *)cpu_ising_split_row(sp, rzpf, par) + o);
            if (bonds) {
                DEC_PF((const char *)cpu_ising_split_bond_row(sp, rpf, par) + o);
                if (three)
                    DEC_PF((const char *)cpu_ising_split_bond_row(sp, rzpf, par) + o);
            }
        }
#undef DEC_PF
}

/* Site s (global, the first of its row's colour-`colour` sites) to the first such site of
 * the next row, without divisions (latmc_checkerboard_next's row step). */
static inline void next_row(const struct latmc_lattice *g, int colour, struct latmc_site *s)
{
    s->row++;
    if (++s->y == g->ly) {
        s->y = 0;
        s->z++;
    }
    latmc_checkerboard_set_x(g, colour, 0, s);
}

/*
 * The whole batches of a run from group g (at byte jx of rr's half-row) on, while NB
 * groups of one value of block >> 32 are left before group `end`. Adds the spins
 * changed to *changed; returns the groups decided.
 */
DINLINE int64_t run_batches(struct dec_simd *d, int64_t g, int64_t end,
                            const struct run_rows *rr, int64_t jx, struct tail_queue *q,
                            uint64_t *changed, const int bonds, const int nrows,
                            const int nopen)
{
    const int64_t g0 = g;
    bvec c = b_zero();
    while (end - g >= NB && (g >> 32) == ((g + NB - 1) >> 32)) {
        if (d->fold_hi != (g >> 32)) {
            *changed += tail_run(d, q, nopen);
            dec_simd_fold(d, g >> 32);
        }
        decide_batch(d, g, NB, NULL, rr, jx, 1, q, &c, changed, bonds, nrows, nopen);
        g += NB;
        jx += 32 * NB;
    }
    *changed += b_count_total(c);
    return g - g0;
}

/* The batch kernels of the range (run_batches, decide_batch), compiled for its constants. */
struct batch_kernels {
    int64_t (*batches)(struct dec_simd *d, int64_t g, int64_t end, const struct run_rows *rr,
                       int64_t jx, struct tail_queue *q, uint64_t *changed);
    /* n <= NB groups at sl[i] */
    void (*slots)(struct dec_simd *d, int64_t g, int n, const struct slot *sl,
                  struct tail_queue *q, bvec *cnt, uint64_t *changed);
    int nopen; /* the open classes they are compiled for (>= the range's) */
};

/*
 * A range's groups [gs, ge), their batches by k (compiled for the couplings' kind, the
 * rows of neighbours and the open classes). The groups come in runs, the whole groups of
 * one half-row in the range; batches take NB consecutive groups from one run or several.
 */
DINLINE uint64_t range_impl(struct dec_simd *d, const struct batch_kernels *k,
                            const uint64_t *ct, int algorithm, int colour, int64_t j0,
                            int64_t j1, int64_t gs, int64_t ge, const int bonds, const int three)
{
    const struct cpu_ising_dec_view *v = d->v;
    const struct cpu_ising_split *sp = v->split;
    const int64_t half = sp->half;
    uint64_t changed = 0;
    bvec cnt = b_zero();
    struct tail_queue q;
    q.n = 0;
    /* the rows of the batch's runs (at most one per group; the run going on is moved to
     * the front when a batch is decided) */
    struct run_rows rows[NB];
    struct slot sl[NB];
    int n = 0, nr = 0;   /* groups and rows in the batch */
    int64_t bg = 0;      /* the batch's first group */
    struct latmc_site site; /* global: the first site of group g, while have_site */
    int have_site = 0;
    for (int64_t g = gs; g < ge;) {
        if (!have_site) /* the divisions: only where a run did not end its row */
            site = latmc_checkerboard_site(v->global, colour, 32 * g);
        have_site = 0;
        int64_t run = 0;
        if (32 * g >= j0) {
            run = (half - site.group) / 32;
            const int64_t in_range = (j1 - 32 * g) / 32;
            run = run < in_range ? run : in_range;
            run = run < ge - g ? run : ge - g;
        }
        /* a batch holds consecutive groups of one value of block >> 32 */
        if (n > 0 && (run == 0 || (g >> 32) != (bg >> 32))) {
            k->slots(d, bg, n, sl, &q, &cnt, &changed);
            n = nr = 0;
        }
        if (run == 0) { /* a group across rows or the range's ends: the C path */
            const int64_t lo = j0 > 32 * g ? j0 : 32 * g, hi = j1 < 32 * g + 32 ? j1 : 32 * g + 32;
            changed += cpu_ising_decisions_group(v, ct, algorithm, &d->names, colour, g,
                                                 (int)(lo - 32 * g), (int)(hi - 32 * g));
            g++;
            continue;
        }
        const struct latmc_site local = cpu_ising_dec_local_site(v, site);
        run_rows_of(sp, &local, &rows[nr++]);
        prefetch_rows_ahead(sp, local.row, three, bonds);
        int64_t jx = site.group;
        const int64_t end = g + run;
        for (; g < end; g++, jx += 32) {
            if (n == 0) { /* whole batches of the run: no slots */
                const int64_t done = k->batches(d, g, end, &rows[nr - 1], jx, &q, &changed);
                g += done;
                jx += 32 * done;
            }
            if (g == end)
                break;
            if (n == 0) {
                bg = g;
                if (d->fold_hi != (g >> 32)) {
                    /* its folds are those of the old value */
                    changed += tail_run(d, &q, k->nopen);
                    dec_simd_fold(d, g >> 32);
                }
            }
            sl[n].rr = &rows[nr - 1];
            sl[n++].jx = jx;
            if (n == NB || ((g + 1) >> 32) != (g >> 32)) {
                k->slots(d, bg, n, sl, &q, &cnt, &changed);
                n = 0;
                rows[0] = rows[nr - 1];
                nr = 1;
            }
        }
        if (jx == half && g < ge) { /* the run ended its row: the next row without divisions */
            next_row(v->global, colour, &site);
            have_site = 1;
        }
        if (n == 0)
            nr = 0;
    }
    if (n > 0)
        k->slots(d, bg, n, sl, &q, &cnt, &changed);
    changed += tail_run(d, &q, k->nopen);
    return changed + b_count_total(cnt);
}

/*
 * The batch kernels, one pair per kind of couplings, rows of neighbours and number of open
 * classes (compile-time constants there), each a function of its own. Inlined into every
 * variant of the range loop, as they once were, the 20 variants made functions of 30-40 kB
 * of code and this file took minutes to compile (ising_decisions_avx512.c 200 s at -O2 -g:
 * GCC's passes grow faster than the function); now it takes seconds. A call per run of
 * whole batches (or per batch of slots) costs little next to their work.
 */
#define DEC_INSTANCE(b, r, o)                                                               \
    static __attribute__((noinline)) int64_t batches_b##b##_r##r##_o##o(                     \
        struct dec_simd *d, int64_t g, int64_t end, const struct run_rows *rr, int64_t jx,   \
        struct tail_queue *q, uint64_t *changed)                                            \
    {                                                                                       \
        return run_batches(d, g, end, rr, jx, q, changed, b, r, o);                         \
    }                                                                                       \
    static __attribute__((noinline)) void slots_b##b##_r##r##_o##o(                          \
        struct dec_simd *d, int64_t g, int n, const struct slot *sl, struct tail_queue *q,  \
        bvec *cnt, uint64_t *changed)                                                       \
    {                                                                                       \
        decide_batch(d, g, n, sl, NULL, 0, 0, q, cnt, changed, b, r, o);                    \
    }
#define DEC_KERNELS(b, r, o) { batches_b##b##_r##r##_o##o, slots_b##b##_r##r##_o##o, o }
#define DEC_INSTANCES(b, r)                                                                 \
    DEC_INSTANCE(b, r, 1) DEC_INSTANCE(b, r, 2) DEC_INSTANCE(b, r, 3) DEC_INSTANCE(b, r, 5)  \
    DEC_INSTANCE(b, r, 7)
#define DEC_TABLE(b, r)                                                                     \
    { DEC_KERNELS(b, r, 1), DEC_KERNELS(b, r, 2), DEC_KERNELS(b, r, 3), DEC_KERNELS(b, r, 5), \
      DEC_KERNELS(b, r, 7) }

DEC_INSTANCES(0, 2)
DEC_INSTANCES(0, 4)
DEC_INSTANCES(1, 2)
DEC_INSTANCES(1, 4)

/* range_impl for each kind of couplings and rows of neighbours (its row prefetches) */
typedef uint64_t (*range_fn)(struct dec_simd *d, const struct batch_kernels *k,
                             const uint64_t *ct, int algorithm, int colour, int64_t j0,
                             int64_t j1, int64_t gs, int64_t ge);
#define DEC_RANGE(b, r)                                                                     \
    static uint64_t range_b##b##_r##r(struct dec_simd *d, const struct batch_kernels *k,    \
                                      const uint64_t *ct, int a, int c, int64_t j0,         \
                                      int64_t j1, int64_t gs, int64_t ge)                   \
    {                                                                                       \
        return range_impl(d, k, ct, a, c, j0, j1, gs, ge, b, r == 4);                       \
    }
DEC_RANGE(0, 2)
DEC_RANGE(0, 4)
DEC_RANGE(1, 2)
DEC_RANGE(1, 4)

/* A prepared pass (struct cpu_ising_dec_pass's bytes, ising_decisions.h). */
struct dec_pass {
    struct dec_simd d;
    uint64_t ct[CPU_ISING_DEC_CLASSES];
    int algorithm, colour;
};
_Static_assert(sizeof(struct dec_pass) <= sizeof(struct cpu_ising_dec_pass),
               "CPU_ISING_DEC_PASS_BYTES too small for this level's pass");

void DEC_LEVEL_PREPARE(struct cpu_ising_dec_pass *pass, const struct latmc_ising_tables *t,
                       int algorithm, int ndim, uint64_t seed, const struct latmc_step *step)
{
    struct dec_pass *p = (struct dec_pass *)(void *)pass->bytes;
    const struct latmc_ising_plane_names names = latmc_ising_plane_names_step(seed, step);
    cpu_ising_decisions_class_thresholds(t, algorithm, p->ct);
    dec_simd_setup(&p->d, ndim, p->ct, algorithm, &names);
    p->algorithm = algorithm;
    p->colour = step->colour;
}

uint64_t DEC_LEVEL_RANGE_PASS(struct cpu_ising_dec_pass *pass, const struct cpu_ising_dec_view *v,
                              int64_t j0, int64_t j1, const struct cpu_team *team)
{
    if (j1 <= j0)
        return 0;
    struct dec_pass *p = (struct dec_pass *)(void *)pass->bytes;
    p->d.v = v;
    const int64_t g0 = j0 / LATMC_BITSLICE_LANES;
    const int64_t g1 = (j1 + LATMC_BITSLICE_LANES - 1) / LATMC_BITSLICE_LANES;
    int64_t s0, s1;
    cpu_team_share(team, g1 - g0, &s0, &s1);
    static const struct batch_kernels variants[2][2][5] = {
        { DEC_TABLE(0, 2), DEC_TABLE(0, 4) }, { DEC_TABLE(1, 2), DEC_TABLE(1, 4) }
    };
    static const int by_open[MAX_OPEN + 1] = { 0, 0, 1, 2, 3, 3, 4, 4 };
    const int bonds = v->split->bonds != NULL, three = v->split->ndim == 3;
    static const range_fn ranges[2][2] = { { range_b0_r2, range_b0_r4 },
                                           { range_b1_r2, range_b1_r4 } };
    return ranges[bonds][three](&p->d, &variants[bonds][three][by_open[p->d.n_open]], p->ct,
                                p->algorithm, p->colour, j0, j1, g0 + s0, g0 + s1);
}

uint64_t DEC_LEVEL_ENTRY(const struct cpu_ising_dec_view *v, const struct latmc_ising_tables *t,
                         int algorithm, uint64_t seed, const struct latmc_step *step,
                         int64_t j0, int64_t j1, const struct cpu_team *team)
{
    if (j1 <= j0)
        return 0;
    /* large: the threshold planes of every class; not on a thread's stack twice */
    struct cpu_ising_dec_pass pass;
    DEC_LEVEL_PREPARE(&pass, t, algorithm, v->global->ndim, seed, step);
    return DEC_LEVEL_RANGE_PASS(&pass, v, j0, j1, team);
}

void DEC_LEVEL_DSP_INIT(struct cpu_ising_dec_dsp *dsp)
{
    dsp->range = DEC_LEVEL_ENTRY;
    dsp->prepare = DEC_LEVEL_PREPARE;
    dsp->range_pass = DEC_LEVEL_RANGE_PASS;
    dsp->level = DEC_LEVEL_NAME;
}
