/*
 * The bit-sliced Ising decisions (decisions = 1, doc/models/ising-decisions.md) with AVX2,
 * on the split rows (ising_split.h). The decisions are those of the C reference
 * (lib/ising_decision_rules.h) bit for bit; only the work is arranged for vectors:
 *
 * - A group of 32 sites lying in one half-row is 32 consecutive bytes: one 32-byte load
 *   per neighbour run, byte adds give the up-neighbour counts k (0 .. 6, no carries), and
 *   three movemasks turn them into the bit planes k0, k1, k2 of the group; a fourth the
 *   spins. So a group's classes cost a few instructions instead of 32 table look-ups.
 * - Eight such groups are decided side by side, one group per 32-bit lane: the class
 *   masks, the threshold planes and the plane loop are 8-lane vector logic, and planes
 *   4q .. 4q + 3 of the eight groups are one 8-block Philox call (philox_avx2.h; blocks
 *   g .. g+7 of sub q are consecutive blocks of one fold).
 * - The tail (doc/models/ising-decisions.md, "The tail"): the eight run together while any
 *   of their lanes is undecided, up to 16 planes (four calls: a call for eight groups
 *   costs about what a scalar call for one does, and a group of 32 lanes needs more than
 *   4, 8, 12 planes with probability 0.87, 0.12, 0.008, so eight of them need a second
 *   call almost always and a third in 63 % of runs); the groups still undecided after 16
 *   (probability 5e-4 each) go on with the scalar reference rule from plane 16, their
 *   state being the reference's after plane 15.
 * Groups that do not lie whole in one half-row (rows of fewer than 32 sites per colour,
 * the ends of a thread's, box's or part's range) take the C path
 * (cpu_ising_decisions_group): the same decisions.
 */
#include <immintrin.h>
#include <stdint.h>

#include "ising_decision_rules.h"
#include "ising_decisions.h"
#include "philox_avx2.h"

#define BATCH 8           /* groups decided side by side: 8 lanes of 32 bits */
#define VECTOR_BLOCKS 4   /* Philox blocks (4 planes each) drawn for all eight at most */

/* What one range's batches share: the classes, their threshold planes, the Philox folds. */
struct dec_avx2 {
    const struct cpu_ising_dec_view *v;
    int metropolis;
    /* the classes with 0 < T < 2^32 ("open") and with T = 0 ("never"): k and the spin they
     * need (-1: any, 0: down, 1: up); the lanes in neither have T = 2^32 and accept */
    int n_open, n_never;
    int open_k[CPU_ISING_DEC_CLASSES], open_s[CPU_ISING_DEC_CLASSES];
    int never_k[CPU_ISING_DEC_CLASSES], never_s[CPU_ISING_DEC_CLASSES];
    uint64_t open_t[CPU_ISING_DEC_CLASSES];
    uint32_t plane_classes[LATMC_BITSLICE_PLANES]; /* bit c: open class c's T has bit 31 - b */
    /* the same for the vector planes: all ones where open class c's T has bit 31 - b */
    __m256i plane_sel[CPU_ISING_DEC_CLASSES][VECTOR_BLOCKS * LATMC_ISING_PLANES_PER_BLOCK];
    struct latmc_ising_plane_names names;
    struct philox8_avx2 pc[VECTOR_BLOCKS];
    int64_t fold_hi; /* block >> 32 the folds are for; -1: none yet */
};

static void dec_setup(struct dec_avx2 *d, const struct cpu_ising_dec_view *v, const uint64_t *ct,
                      int algorithm, const struct latmc_ising_plane_names *names)
{
    d->v = v;
    d->metropolis = algorithm != LATMC_ALGO_HEATBATH;
    d->n_open = d->n_never = 0;
    const int kmax = 2 * v->global->ndim;
    for (int s_up = 0; s_up < (d->metropolis ? 2 : 1); s_up++)
        for (int k = 0; k <= kmax; k++) {
            const uint64_t t = ct[k + LATMC_ISING_MAX_K * s_up];
            const int s = d->metropolis ? s_up : -1;
            if (t == 0) {
                d->never_k[d->n_never] = k;
                d->never_s[d->n_never++] = s;
            } else if (!(t >> 32)) {
                d->open_k[d->n_open] = k;
                d->open_s[d->n_open] = s;
                d->open_t[d->n_open++] = t;
            }
        }
    for (int b = 0; b < LATMC_BITSLICE_PLANES; b++) {
        d->plane_classes[b] = 0;
        for (int c = 0; c < d->n_open; c++)
            d->plane_classes[b] |= (uint32_t)((d->open_t[c] >> (31 - b)) & 1u) << c;
    }
    for (int c = 0; c < d->n_open; c++)
        for (int b = 0; b < VECTOR_BLOCKS * LATMC_ISING_PLANES_PER_BLOCK; b++)
            d->plane_sel[c][b] = _mm256_set1_epi32(-(int)((d->open_t[c] >> (31 - b)) & 1u));
    d->names = *names;
    d->fold_hi = -1;
}

/* The folds of blocks (hi << 32) + c0 for subs sub0 .. sub0 + VECTOR_BLOCKS - 1. */
static void dec_fold(struct dec_avx2 *d, int64_t hi, uint64_t seed)
{
    if (d->fold_hi == hi)
        return;
    for (int q = 0; q < VECTOR_BLOCKS; q++) {
        const struct latmc_philox_fold f =
            latmc_philox_fold_name(seed, latmc_ising_plane_name(&d->names, q), (uint32_t)hi);
        philox8_avx2_setup(&d->pc[q], &f, 0);
    }
    d->fold_hi = hi;
}

/* The half-rows a run of groups in one half-row reads (ising_split.h), found once per run:
 * its own, the other parity of its row (shifted so that byte j is the neighbour at
 * x + 1, byte j - 1 the one at x - 1; the pads make the periodic wrap an offset), the same
 * parity of the rows above and below (and in 3D, of the planes), and for +-J their bonds:
 * the bond to +e_mu is bit mu of the site's own bond byte, to -e_mu the neighbour's. */
struct run_rows {
    uint8_t *own;
    const uint8_t *oth, *nb[4];
    const uint8_t *ownb, *othb, *nbb[4]; /* NULL: uniform couplings */
    int nrows;
};

static inline __attribute__((always_inline)) void run_rows_of(const struct cpu_ising_split *sp, const struct latmc_site *first,
                        struct run_rows *rr)
{
    const int64_t y = first->y, z = first->z, ly = sp->ly, r = first->row;
    const int par = (int)(first->x & 1);
    const int64_t nr[4] = { latmc_wrap_up(y, ly) + ly * z, latmc_wrap_down(y, ly) + ly * z,
                            y + ly * latmc_wrap_up(z, sp->lz), y + ly * latmc_wrap_down(z, sp->lz) };
    rr->nrows = sp->ndim == 3 ? 4 : 2;
    rr->own = cpu_ising_split_row(sp, r, par);
    rr->oth = cpu_ising_split_row(sp, r, par ^ 1) + par;
    for (int m = 0; m < rr->nrows; m++)
        rr->nb[m] = cpu_ising_split_row(sp, nr[m], par);
    rr->ownb = rr->othb = NULL;
    if (sp->bonds) {
        rr->ownb = cpu_ising_split_bond_row(sp, r, par);
        rr->othb = cpu_ising_split_bond_row(sp, r, par ^ 1) + par;
        for (int m = 0; m < rr->nrows; m++) /* +y, +z: the site's own; -y, -z: the row's */
            rr->nbb[m] = m % 2 == 0 ? rr->ownb : cpu_ising_split_bond_row(sp, nr[m], par);
    }
}

static inline __m256i load32(const uint8_t *p)
{
    return _mm256_loadu_si256((const __m256i *)(const void *)p);
}

/* The bit planes of k (k0, k1, k2) and of the spins of the group at bytes jx .. jx + 31 of
 * the run's half-row, bit i = lane i (the same runs of bytes as the C path's
 * split_row_group, 32 at once). */
static inline __attribute__((always_inline)) void
group_planes(const struct run_rows *rr, int64_t jx, uint32_t *k0, uint32_t *k1, uint32_t *k2,
             uint32_t *spin, const int bonds, const int nrows)
{
    const __m256i one = _mm256_set1_epi8(1);
    __m256i xp = load32(rr->oth + jx), xm = load32(rr->oth + jx - 1);
    if (bonds) { /* +-J: eps s = +1 iff spin byte ^ bond bit = 1 */
        xp = _mm256_xor_si256(xp, _mm256_and_si256(load32(rr->ownb + jx), one));
        xm = _mm256_xor_si256(xm, _mm256_and_si256(load32(rr->othb + jx - 1), one));
    }
    __m256i k = _mm256_add_epi8(xp, xm);
    for (int m = 0; m < nrows; m++) {
        __m256i nb = load32(rr->nb[m] + jx);
        if (bonds) {
            const __m256i bits = _mm256_srl_epi16(load32(rr->nbb[m] + jx),
                                                  _mm_cvtsi32_si128(1 + m / 2));
            nb = _mm256_xor_si256(nb, _mm256_and_si256(bits, one));
        }
        k = _mm256_add_epi8(k, nb);
    }
    /* bit j of each byte to its top bit (16-bit shifts: k < 8, nothing crosses a byte's
     * top), then one bit per byte */
    *k0 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(k, 7));
    *k1 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(k, 6));
    *k2 = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(k, 5));
    *spin = (uint32_t)_mm256_movemask_epi8(_mm256_slli_epi16(load32(rr->own + jx), 7));
}

/* Flip the lanes in `flip` (bit i: byte jx + i of the run's half-row), refresh the pads. */
static inline void group_flip(const struct cpu_ising_split *sp, uint8_t *row, int64_t jx,
                              uint32_t flip)
{
    uint8_t *own = row + jx;
    /* byte i gets byte i / 8 of flip, keeps its bit i mod 8, and becomes 0 or 1 */
    const __m256i spread = _mm256_shuffle_epi8(
        _mm256_set1_epi32((int)flip),
        _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
                         3, 3, 3, 3, 3, 3, 3, 3));
    const __m256i bit = _mm256_set1_epi64x((long long)UINT64_C(0x8040201008040201));
    const __m256i bytes = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_and_si256(spread, bit), bit),
                                           _mm256_set1_epi8(1));
    _mm256_storeu_si256((__m256i *)own,
                        _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)own), bytes));
    if (jx == 0) /* the pads repeat the half-row's ends */
        row[sp->half] = row[0];
    if (jx + 32 == sp->half)
        row[-1] = row[sp->half - 1];
}

/* Lanes whose k equals `k` (k0 k1 k2 and their complements n0 n1 n2). */
static inline __m256i lanes_with_k(int k, __m256i k0, __m256i k1, __m256i k2, __m256i n0,
                                   __m256i n1, __m256i n2)
{
    return _mm256_and_si256(_mm256_and_si256(k & 1 ? k0 : n0, k & 2 ? k1 : n1), k & 4 ? k2 : n2);
}

/* Plane b of the thresholds of open classes' masks m[] (the scalar tail's form). */
static inline uint32_t threshold_plane(const struct dec_avx2 *d, const uint32_t *m, int b)
{
    uint32_t tb = 0;
    for (int c = 0; c < d->n_open; c++)
        tb |= m[c] & (0u - ((d->plane_classes[b] >> c) & 1u));
    return tb;
}

/*
 * Groups g .. g + n - 1 (n <= 8), whole and consecutive in one half-row from site `first`
 * (group i's lanes at bytes first->x / 2 + 32 i), blocks g .. g + 7 of one value of
 * block >> 32. Returns the spins changed.
 */
static inline __attribute__((always_inline)) uint64_t
decide_batch(struct dec_avx2 *d, uint64_t seed, int64_t g, int n, const struct latmc_site *first,
             const int bonds, const int nrows)
{
    const struct cpu_ising_split *sp = d->v->split;
    const int64_t jx = first->x / 2;
    struct run_rows rr;
    run_rows_of(sp, first, &rr);
    uint32_t a0[BATCH], a1[BATCH], a2[BATCH], as[BATCH], live[BATCH];
    for (int i = 0; i < BATCH; i++) {
        if (i < n)
            group_planes(&rr, jx + 32 * i, &a0[i], &a1[i], &a2[i], &as[i], bonds, nrows);
        else
            a0[i] = a1[i] = a2[i] = as[i] = 0;
        live[i] = i < n ? UINT32_MAX : 0;
    }
    const __m256i ones = _mm256_set1_epi32(-1);
    const __m256i k0 = _mm256_loadu_si256((const __m256i *)a0);
    const __m256i k1 = _mm256_loadu_si256((const __m256i *)a1);
    const __m256i k2 = _mm256_loadu_si256((const __m256i *)a2);
    const __m256i n0 = _mm256_xor_si256(k0, ones), n1 = _mm256_xor_si256(k1, ones),
                  n2 = _mm256_xor_si256(k2, ones);
    const __m256i lanes = _mm256_loadu_si256((const __m256i *)live);
    const __m256i spin = _mm256_loadu_si256((const __m256i *)as);
    const __m256i with_spin[2] = { _mm256_andnot_si256(spin, lanes), _mm256_and_si256(spin, lanes) };

    /* the class masks, and the start of the comparison (latmc_bitslice_start_classes) */
    __m256i open[CPU_ISING_DEC_CLASSES];
    __m256i und = _mm256_setzero_si256(), acc = _mm256_setzero_si256();
    for (int c = 0; c < d->n_open; c++) {
        const __m256i who = d->open_s[c] < 0 ? lanes : with_spin[d->open_s[c]];
        open[c] = _mm256_and_si256(lanes_with_k(d->open_k[c], k0, k1, k2, n0, n1, n2), who);
        und = _mm256_or_si256(und, open[c]);
    }
    __m256i never = _mm256_setzero_si256();
    for (int c = 0; c < d->n_never; c++) {
        const __m256i who = d->never_s[c] < 0 ? lanes : with_spin[d->never_s[c]];
        never = _mm256_or_si256(never, _mm256_and_si256(
                                           lanes_with_k(d->never_k[c], k0, k1, k2, n0, n1, n2), who));
    }
    acc = _mm256_andnot_si256(_mm256_or_si256(und, never), lanes); /* T = 2^32 */

    /* planes 0 .. 15 of the eight groups, four per 8-block Philox call (blocks g + i of
     * sub sub0 + q) while any lane is undecided */
    dec_fold(d, g >> 32, seed);
    for (int q = 0; q < VECTOR_BLOCKS && !_mm256_testz_si256(und, und); q++) {
        __m256i r[4];
        philox8_avx2_groups(&d->pc[q], (uint64_t)g, r, 1);
        /* the threshold planes 4q .. 4q + 3: each open class's mask where its threshold
         * has a 1 (d->plane_sel: all ones or zero) */
        __m256i tb[LATMC_ISING_PLANES_PER_BLOCK];
        for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK; l++)
            tb[l] = _mm256_setzero_si256();
        for (int c = 0; c < d->n_open; c++)
            for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK; l++)
                tb[l] = _mm256_or_si256(tb[l], _mm256_and_si256(open[c], d->plane_sel[c][4 * q + l]));
        /* r[m] = [block m: out 0..3 | block m + 4: out 0..3]; w[l] = output l of blocks 0..7 */
        const __m256i t0 = _mm256_unpacklo_epi32(r[0], r[1]), t1 = _mm256_unpacklo_epi32(r[2], r[3]);
        const __m256i t2 = _mm256_unpackhi_epi32(r[0], r[1]), t3 = _mm256_unpackhi_epi32(r[2], r[3]);
        const __m256i w[4] = { _mm256_unpacklo_epi64(t0, t1), _mm256_unpackhi_epi64(t0, t1),
                               _mm256_unpacklo_epi64(t2, t3), _mm256_unpackhi_epi64(t2, t3) };
        for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK; l++) {
            /* latmc_bitslice_plane: u's bit 0 and t's 1 accept; differing bits decide */
            acc = _mm256_or_si256(acc, _mm256_andnot_si256(w[l], _mm256_and_si256(und, tb[l])));
            und = _mm256_andnot_si256(_mm256_xor_si256(w[l], tb[l]), und);
        }
    }

    uint32_t accept[BATCH], undecided[BATCH];
    _mm256_storeu_si256((__m256i *)accept, acc);
    _mm256_storeu_si256((__m256i *)undecided, und);
    if (!_mm256_testz_si256(und, und)) {
        /* the rare rest: the reference rule from plane 16 on, group by group */
        uint32_t masks[CPU_ISING_DEC_CLASSES][BATCH];
        for (int c = 0; c < d->n_open; c++)
            _mm256_storeu_si256((__m256i *)masks[c], open[c]);
        for (int i = 0; i < n; i++) {
            if (!undecided[i])
                continue;
            uint32_t m[CPU_ISING_DEC_CLASSES];
            for (int c = 0; c < d->n_open; c++)
                m[c] = masks[c][i];
            struct latmc_bitslice s = { undecided[i], accept[i],
                                        VECTOR_BLOCKS * LATMC_ISING_PLANES_PER_BLOCK };
            for (int q = VECTOR_BLOCKS; q < LATMC_ISING_DECISION_BLOCKS && s.undecided; q++) {
                const latmc_philox_ctr w = latmc_ising_plane_block(&d->names, (uint64_t)(g + i), q);
                for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK && s.undecided; l++)
                    latmc_bitslice_plane(&s, w.v[l], threshold_plane(d, m, 4 * q + l));
            }
            accept[i] = s.accept;
        }
    }

    uint64_t changed = 0;
    for (int i = 0; i < n; i++) {
        /* Metropolis flips the accepted lanes; heat bath sets them to +1 (the others -1) */
        const uint32_t flip = d->metropolis ? accept[i] : accept[i] ^ as[i];
        if (flip)
            group_flip(sp, rr.own, jx + 32 * i, flip);
        changed += (uint64_t)__builtin_popcount(flip);
    }
    return changed;
}

/* decide_batch with the couplings' kind and the rows of neighbours known at compile time. */
static uint64_t decide_batch_any(struct dec_avx2 *d, uint64_t seed, int64_t g, int n,
                                 const struct latmc_site *first)
{
    const int bonds = d->v->split->bonds != NULL, three = d->v->split->ndim == 3;
    if (bonds)
        return three ? decide_batch(d, seed, g, n, first, 1, 4)
                     : decide_batch(d, seed, g, n, first, 1, 2);
    return three ? decide_batch(d, seed, g, n, first, 0, 4)
                 : decide_batch(d, seed, g, n, first, 0, 2);
}

uint64_t cpu_ising_decisions_range_avx2(const struct cpu_ising_dec_view *v,
                                        const struct latmc_ising_tables *t, int algorithm,
                                        uint64_t seed, const struct latmc_step *step,
                                        int64_t j0, int64_t j1, const struct cpu_team *team)
{
    if (j1 <= j0)
        return 0;
    const int colour = step->colour;
    const struct latmc_ising_plane_names names = latmc_ising_plane_names_step(seed, step);
    uint64_t ct[CPU_ISING_DEC_CLASSES];
    cpu_ising_decisions_class_thresholds(t, algorithm, ct);
    struct dec_avx2 d;
    dec_setup(&d, v, ct, algorithm, &names);
    const int64_t g0 = j0 / LATMC_BITSLICE_LANES;
    const int64_t g1 = (j1 + LATMC_BITSLICE_LANES - 1) / LATMC_BITSLICE_LANES;
    int64_t s0, s1;
    cpu_team_share(team, g1 - g0, &s0, &s1);
    const int64_t end = g0 + s1;
    const int64_t half = v->global->lx / 2;
    uint64_t changed = 0;
    struct latmc_site cur; /* the first site of group g (local), while have_cur */
    int have_cur = 0;
    for (int64_t g = g0 + s0; g < end;) {
        /* a run of up to 8 groups whole in the range and consecutive in one half-row,
         * blocks of one value of block >> 32 (the folds') */
        int64_t n = 0;
        if (32 * g >= j0 && g >> 32 == (g + BATCH - 1) >> 32) {
            if (!have_cur) /* the divisions: once per row */
                cur = cpu_ising_dec_local_site(v, latmc_checkerboard_site(v->global, colour,
                                                                          32 * g));
            have_cur = 1;
            const int64_t room = (half - cur.group) / 32;
            n = (j1 - 32 * g) / 32;
            n = n < room ? n : room;
            n = n < end - g ? n : end - g;
            n = n < BATCH ? n : BATCH;
            if (n > 0) {
                changed += decide_batch_any(&d, seed, g, (int)n, &cur);
                g += n;
                if (n < room) { /* the next group follows in the same half-row */
                    cur.group += 32 * n;
                    cur.x += 64 * n;
                    cur.index += 64 * n;
                } else {
                    have_cur = 0;
                }
                continue;
            }
        }
        have_cur = 0;
        const int64_t lo = j0 > 32 * g ? j0 : 32 * g, hi = j1 < 32 * g + 32 ? j1 : 32 * g + 32;
        changed += cpu_ising_decisions_group(v, ct, algorithm, &names, colour, g,
                                             (int)(lo - 32 * g), (int)(hi - 32 * g));
        g++;
    }
    return changed;
}
