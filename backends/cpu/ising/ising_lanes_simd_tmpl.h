/*
 * The member lanes' sweeps over W groups at once (ising_lanes.h), written once over one
 * SIMD level's primitives, which the level's file defines before the inclusion:
 *   LV, LW, ls_e          the vector, its W lanes (one group each) and a lane's integer
 *                         (uint64_t: the 32-bit word in a lane's low half; uint32_t);
 *   LANES_ENTRY, LANES_KEEP, LANES_SUMS  the level's entries (cpu_ising_lanes_fn: run,
 *                         keep, sums);
 *   LANES_DSP_INIT, LANES_LEVEL  where defined, the level's table entry (ising_lanes.h)
 *                         and its name, which installs those two; with LANES_NARROW,
 *                         also LANES_RUN_NARROW, LANES_KEEP_NARROW and LANES_SUMS_NARROW
 *                         for calls of at most
 *                         LANES_NARROW groups (another file's narrower vectors);
 *   LANES_KEYS, LANES_KEYS_INIT  philox_lanes_tmpl.h's keys;
 *   ls_draw(keys, gN, nl, i, name, q, r)  planes 4q .. 4q + 3 of the colour's name `name`
 *                         in r[0 .. 3], lane l's from its block gN[l] + i (lanes from nl
 *                         on: anything);
 *   v_loadw, v_storew     a site's W words (uint32_t, site-major) to and from the lanes;
 *   v_loadt               W ls_e of a table; v_zero, v_ones32 (0xffffffff in every lane);
 *   v_and, v_or, v_xor, v_andnot (~a & b), v_any.
 * Each lane runs lib/ens_lanes_sliced.h's site update of its own group: its own classes
 * (by key slot (neg, cnt) here, so groups of either key form share a vector), its own
 * block g N + i; the words and changed counts equal the scalar form's bit for bit. Only the
 * low 32 bits of a lane mean anything: the high halves of Philox's outputs are masked by
 * the (zero-extended) lane masks before they reach a word.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ens_lanes_sliced.h"
#include "lattice_numbering.h"

int LANES_ENTRY(const struct latmc_ens_lanes_job *job);
int LANES_KEEP(const struct latmc_ens_lanes_job *job);
int LANES_SUMS(const struct latmc_ens_lanes_job *job);

/* Key slots (neg, cnt): 2 x (2 ndim + 1). */
#define LS_SLOTS (2 * LATMC_ISING_MAX_K)
/* Planes of the bit-sliced changed counters (a call's changes per lane < 2^64). */
#define LS_CTR 64

struct ls_tables {
    _Alignas(64) ls_e always[LS_SLOTS][LW];
    _Alignas(64) ls_e open[LS_SLOTS][LW];
    _Alignas(64) ls_e plane[LS_SLOTS][LATMC_BITSLICE_PLANES][LW];
    _Alignas(64) ls_e own[LW];     /* by_unsat lanes: all ones (count s_i ^ s_j ^ c) */
    _Alignas(64) ls_e active[LW];
    _Alignas(64) uint64_t gN[LW];      /* the lane's first block, g N */
    int slot[LS_SLOTS], nslot;         /* slots with an always or open lane */
    int oslot[LS_SLOTS], noslot;       /* slots with an open lane */
    int split;                         /* a lane with keys (spin, k): both neg slots */
    int nl;                            /* lanes holding a group (the rest: no lane active) */
};

/* The W groups' classes by slot: lane l's slot (neg, cnt) holds the key its scalar form
 * gives cnt and a spin of sign neg (one-key lanes: the same key for both signs, so the
 * union over neg of the lanes of a slot is the scalar form's lanes of that key). */
static void ls_tables_make(struct ls_tables *t, const struct latmc_ens_lanes_job *job, int g0,
                           int nl, int64_t N)
{
    const int nd = job->ndim, nk = 2 * nd + 1;
    memset(t, 0, sizeof *t);
    t->nl = nl;
    struct latmc_ens_lanes_classes c;
    for (int l = 0; l < nl; l++) {
        const int g = g0 + l;
        const int present = job->n_members - g * LATMC_ENS_LANES;
        const uint32_t active = present >= LATMC_ENS_LANES ? 0xffffffffu : (1u << present) - 1u;
        latmc_ens_lanes_classes_make(&c, job->tables + (size_t)g * LATMC_ENS_LANES, active,
                                     job->algorithm, nd);
        const int one_key = c.heatbath || c.by_unsat;
        t->split |= !one_key;
        t->own[l] = c.by_unsat ? 0xffffffffu : 0u;
        t->active[l] = active;
        t->gN[l] = (uint64_t)g * (uint64_t)N;
        for (int neg = 0; neg < 2; neg++)
            for (int cnt = 0; cnt < nk; cnt++) {
                const int k = c.by_unsat ? cnt : 2 * nd - cnt;
                const int key = (one_key ? 0 : neg) * LATMC_ISING_MAX_K + k;
                const int s = neg * LATMC_ISING_MAX_K + cnt;
                t->always[s][l] = c.always[key];
                t->open[s][l] = c.open[key];
                for (int b = 0; b < LATMC_BITSLICE_PLANES; b++)
                    t->plane[s][b][l] = c.plane[key][b];
            }
    }
    for (int neg = 0; neg < (t->split ? 2 : 1); neg++)
        for (int cnt = 0; cnt < nk; cnt++) {
            const int s = neg * LATMC_ISING_MAX_K + cnt;
            ls_e any_a = 0, any_o = 0;
            for (int l = 0; l < LW; l++) {
                any_a |= t->always[s][l];
                any_o |= t->open[s][l];
            }
            if (any_a | any_o)
                t->slot[t->nslot++] = s;
            if (any_o)
                t->oslot[t->noslot++] = s;
        }
}

/* One site of colour name `name` for the W groups (words ts: site-major, W per site). */
static inline __attribute__((always_inline)) LV
ls_site(const struct ls_tables *t, const struct LANES_KEYS *keys, const struct latmc_lattice *g,
        uint32_t *ts, const uint32_t *tb, int heatbath, struct latmc_rng_name name,
        struct latmc_site s)
{
    const int nd = g->ndim;
    int64_t nb[6];
    latmc_ens_lanes_neighbour_sites(g, s, nb);
    const LV w = v_loadw(ts + s.index * LW);
    const LV own = v_and(v_loadt(t->own), w);
    LV c0 = v_zero(), c1 = v_zero(), c2 = v_zero();
    for (int d = 0; d < 2 * nd; d++) {
        LV x = v_loadw(ts + nb[d] * LW);
        if (tb)
            x = v_xor(x, v_loadw(tb + ((d & 1) ? nd * nb[d] + d / 2 : nd * s.index + d / 2) * LW));
        x = v_xor(x, own);
        const LV carry0 = v_and(c0, x);
        c0 = v_xor(c0, x);
        c2 = v_or(c2, v_and(c1, carry0));
        c1 = v_xor(c1, carry0);
    }
    const LV active = v_loadt(t->active);
    const LV ones = v_ones32();
    const LV nc[3] = { v_xor(c0, ones), v_xor(c1, ones), v_xor(c2, ones) };
    const LV pc[3] = { c0, c1, c2 };
    const LV nw_mask = v_xor(w, ones);
    LV acc = v_zero(), und = v_zero();
    LV lanes[LS_SLOTS];
    for (int i = 0; i < t->nslot; i++) {
        const int sl = t->slot[i], cnt = sl % LATMC_ISING_MAX_K, neg = sl / LATMC_ISING_MAX_K;
        LV m = v_and(v_and((cnt & 1) ? pc[0] : nc[0], (cnt & 2) ? pc[1] : nc[1]),
                     v_and((cnt & 4) ? pc[2] : nc[2], active));
        if (t->split)
            m = v_and(m, neg ? w : nw_mask);
        acc = v_or(acc, v_and(m, v_loadt(t->always[sl])));
        lanes[sl] = v_and(m, v_loadt(t->open[sl]));
        und = v_or(und, lanes[sl]);
    }
    if (v_any(und)) {
        for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS; q++) {
            LV r[4];
            ls_draw(keys, t->gN, t->nl, s.index, name, q, r);
            for (int p = 0; p < LATMC_ISING_PLANES_PER_BLOCK; p++) {
                LV tbp = v_zero();
                for (int i = 0; i < t->noslot; i++) {
                    const int sl = t->oslot[i];
                    tbp = v_or(tbp, v_and(lanes[sl], v_loadt(t->plane[sl][4 * q + p])));
                }
                /* latmc_bitslice_plane: acc |= und & tb & ~w; und &= ~(w ^ tb) */
                acc = v_or(acc, v_andnot(r[p], v_and(und, tbp)));
                und = v_andnot(v_xor(r[p], tbp), und);
            }
            if (!v_any(und))
                break;
        }
    }
    /* Metropolis: accepted lanes flip; heat bath: accepted lanes +1, the others -1 */
    const LV nw = heatbath ? v_or(v_andnot(active, w), v_andnot(acc, active)) : v_xor(w, acc);
    v_storew(ts + s.index * LW, nw);
    return v_xor(w, nw);
}

/* x into the bit-sliced counters ctr (plane k: bit k of every lane's count) at plane k0. */
static inline void ls_count_at(LV *ctr, int k0, LV x)
{
    for (int k = k0; k < LS_CTR && v_any(x); k++) {
        const LV carry = v_and(ctr[k], x);
        ctr[k] = v_xor(ctr[k], x);
        x = carry;
    }
}

/* The sites' changed words are first added into four planes without tests (at most 15
 * sites: no carry out of the top), then those into ctr: a carry through ctr's planes runs
 * as long as any of the W x 32 lanes carries (about eight planes), once per 15 sites. */
struct ls_small {
    LV p[4];
    int n;
};

static inline void ls_small_flush(struct ls_small *m, LV *ctr)
{
    for (int k = 0; k < 4; k++) {
        ls_count_at(ctr, k, m->p[k]);
        m->p[k] = v_zero();
    }
    m->n = 0;
}

static inline __attribute__((always_inline)) void ls_count(struct ls_small *m, LV *ctr, LV x)
{
    for (int k = 0; k < 4; k++) {
        const LV carry = v_and(m->p[k], x);
        m->p[k] = v_xor(m->p[k], x);
        x = carry;
    }
    if (++m->n == 15)
        ls_small_flush(m, ctr);
}

/* The geometry of the job's lattice (the checkerboard's walk). */
static struct latmc_lattice ls_geom(const struct latmc_ens_lanes_job *job)
{
    struct latmc_lattice geom;
    memset(&geom, 0, sizeof geom);
    geom.ndim = job->ndim;
    geom.lx = job->extent[0];
    geom.ly = job->extent[1];
    geom.lz = job->ndim == 3 ? job->extent[2] : 1;
    geom.nsites = geom.lx * geom.ly * geom.lz;
    return geom;
}

/* The bit-sliced counters' counts (ctr: LS_CTR planes) of the vector's nl lanes, added:
 * out[l * stride + b] += the count of bit b of lane l. */
static void ls_counts_add(const LV *ctr, int nl, uint64_t *out, size_t stride)
{
    _Alignas(64) ls_e plane[LW];
    for (int c = 0; c < LS_CTR; c++) {
        memcpy(plane, &ctr[c], sizeof plane);
        for (int l = 0; l < nl; l++)
            for (uint32_t x = (uint32_t)plane[l]; x; x &= x - 1)
                out[(size_t)l * stride + (size_t)__builtin_ctz(x)] += (uint64_t)1 << c;
    }
}

/* The keep's block (lib/backend.h's latmc_ens_lanes_keep): per vector of W groups its
 * words site-major (W a site; lanes without a group zero), spins (sbytes) then bonds
 * (bbytes, +-J only); after the vectors a call's tables and counters. */
struct ls_block {
    size_t sbytes, bbytes, vbytes, total;
    int vectors;
};

static struct ls_block ls_block_of(const struct latmc_ens_lanes_job *job, int64_t N)
{
    struct ls_block b;
    b.sbytes = ((size_t)N * LW * sizeof(uint32_t) + 63) / 64 * 64;
    b.bbytes = job->bond ? b.sbytes * (size_t)job->ndim : 0;
    b.vbytes = b.sbytes + b.bbytes;
    b.vectors = (job->groups - job->group0 + LW - 1) / LW;
    b.total = b.vbytes * (size_t)b.vectors + (sizeof(struct ls_tables) + 63) / 64 * 64 +
              LS_CTR * sizeof(LV);
    return b;
}

int LANES_KEEP(const struct latmc_ens_lanes_job *job)
{
    struct latmc_ens_lanes_keep *k = job->keep;
    if (k->mem && k->group0 == job->group0 && k->groups == job->groups && k->width == LW)
        return LATMC_OK;
    const int64_t N = ls_geom(job).nsites;
    const int nd = job->ndim, whole = job->groups - job->group0;
    const struct ls_block b = ls_block_of(job, N);
    unsigned char *mem = aligned_alloc(64, b.total);
    if (!mem)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the site-major words of "
                          "member groups %d .. %d (%zu bytes)", job->group0, job->groups - 1,
                          b.total);
    memset(mem, 0, b.vbytes * (size_t)b.vectors);
    for (int v = 0; v < b.vectors && job->bond; v++) {
        uint32_t *tb = (uint32_t *)(mem + b.vbytes * (size_t)v + b.sbytes);
        const int g0 = job->group0 + v * LW, nl = whole - v * LW < LW ? whole - v * LW : LW;
        for (int l = 0; l < nl; l++) {
            const uint32_t *bp = job->bond + (size_t)(g0 + l) * (size_t)N * (size_t)nd;
            for (int64_t i = 0; i < N * nd; i++)
                tb[i * LW + l] = bp[i];
        }
    }
    free(k->mem);
    k->mem = mem;
    k->group0 = job->group0;
    k->groups = job->groups;
    k->width = LW;
    k->spin_gen = 0;
    return LATMC_OK;
}

int LANES_ENTRY(const struct latmc_ens_lanes_job *job)
{
    struct latmc_ens_lanes_keep *k = job->keep;
    const int whole = job->groups - job->group0; /* the last vector's lanes past it: none */
    if (whole <= 0 || !k || !k->mem || k->group0 != job->group0 || k->groups != job->groups ||
        k->width != LW)
        return 0; /* the caller's scalar form runs them */
    const struct latmc_lattice geom = ls_geom(job);
    const int64_t N = geom.nsites, half = N / 2;
    const int heatbath = job->algorithm == LATMC_ALGO_HEATBATH;
    const struct ls_block b = ls_block_of(job, N);
    unsigned char *mem = k->mem;
    struct ls_tables *t = (struct ls_tables *)(mem + b.vbytes * (size_t)b.vectors);
    LV *ctr = (LV *)((unsigned char *)t + (sizeof *t + 63) / 64 * 64);
    /* the kept spins are the core's words unless it wrote them since (or ran these
     * groups itself) */
    const bool spins_in = k->spin_gen != job->spin_gen;
    struct LANES_KEYS keys;
    LANES_KEYS_INIT(&keys, job->seed);
    for (int v = 0; v < b.vectors; v++) {
        const int g0 = job->group0 + v * LW, nl = whole - v * LW < LW ? whole - v * LW : LW;
        uint32_t *ts = (uint32_t *)(mem + b.vbytes * (size_t)v);
        const uint32_t *tb =
            job->bond ? (const uint32_t *)(mem + b.vbytes * (size_t)v + b.sbytes) : NULL;
        for (int l = 0; l < nl && spins_in; l++) {
            const uint32_t *sp = job->spin + (size_t)(g0 + l) * (size_t)N;
            for (int64_t i = 0; i < N; i++)
                ts[i * LW + l] = sp[i];
        }
        ls_tables_make(t, job, g0, nl, N);
        for (int c = 0; c < LS_CTR; c++)
            ctr[c] = v_zero();
        struct ls_small small = { { v_zero(), v_zero(), v_zero(), v_zero() }, 0 };
        for (uint64_t s = 0; s < job->n_sweeps; s++)
            for (int c = 0; c < 2; c++) {
                const struct latmc_rng_name name = latmc_ens_lanes_name(job->sweep0 + s, c);
                struct latmc_site site = latmc_checkerboard_site(&geom, c, 0);
                for (int64_t j = 0; j < half; j++, latmc_checkerboard_next(&geom, c, &site))
                    ls_count(&small, ctr,
                             ls_site(t, &keys, &geom, ts, tb, heatbath, name, site));
            }
        ls_small_flush(&small, ctr);
        ls_counts_add(ctr, nl, job->changed + (size_t)g0 * LATMC_ENS_LANES, LATMC_ENS_LANES);
        /* the core's words (its rounds' sums and the members read them) */
        for (int l = 0; l < nl; l++) {
            uint32_t *sp = job->spin + (size_t)(g0 + l) * (size_t)N;
            for (int64_t i = 0; i < N; i++)
                sp[i] = ts[i * LW + l];
        }
    }
    k->spin_gen = job->spin_gen;
    return whole;
}

/* The sums' tally: words into 4 planes without tests (15 at most), those into 8 planes
 * without tests (255 at most), those into ctr by ls_count_at (whose carries' loop runs as
 * long as any of the W x 32 counters carries: once per 255 words, not per 15 as ls_count's
 * flush: the sums add every word of a lattice, where the sweeps' counts add a changed
 * word a site). */
struct ls_sum_tally {
    LV p[4], q[8];
    int n, m;
};

static inline __attribute__((always_inline)) void ls_sum_ripple(LV *q, int k, LV y)
{
    for (int j = k; j < 8; j++) {
        const LV carry = v_and(q[j], y);
        q[j] = v_xor(q[j], y);
        y = carry;
    }
}

static inline void ls_sum_flush(struct ls_sum_tally *t, LV *ctr)
{
    for (int k = 0; k < 4; k++) {
        ls_sum_ripple(t->q, k, t->p[k]);
        t->p[k] = v_zero();
    }
    for (int j = 0; j < 8; j++) {
        ls_count_at(ctr, j, t->q[j]);
        t->q[j] = v_zero();
    }
    t->n = t->m = 0;
}

static inline __attribute__((always_inline)) void ls_sum_add(struct ls_sum_tally *t, LV *ctr,
                                                             LV x)
{
    for (int k = 0; k < 4; k++) {
        const LV carry = v_and(t->p[k], x);
        t->p[k] = v_xor(t->p[k], x);
        x = carry;
    }
    if (++t->n < 15)
        return;
    t->n = 0;
    for (int k = 0; k < 4; k++) {
        ls_sum_ripple(t->q, k, t->p[k]);
        t->p[k] = v_zero();
    }
    if (++t->m == 17) /* 17 x 15 = 255 */
        ls_sum_flush(t, ctr);
}

/*
 * lib/ens_lanes_sums.h's integers of groups group0 .. groups - 1 (SUMS) from the kept
 * site-major words: a site's W groups' words side by side, the unsatisfied bond words of
 * the positive directions (s_i ^ s_j ^ c_ij) and the spin words counted a vector wide in
 * bit-sliced counters (ls_sum_add); bonds = N ndim - 2 unsatisfied
 * into job->sums[64 g + l], spins = N - 2 negative into job->sums[64 g + 32 + l]. The same
 * integers as the scalar count, in any order. Returns the groups counted: all, or 0 where
 * the keep was not made for them at this width or does not hold the core's words (the
 * caller counts them).
 */
int LANES_SUMS(const struct latmc_ens_lanes_job *job)
{
    const struct latmc_ens_lanes_keep *k = job->keep;
    const int whole = job->groups - job->group0;
    if (whole <= 0 || !k || !k->mem || k->group0 != job->group0 || k->groups != job->groups ||
        k->width != LW || k->spin_gen != job->spin_gen)
        return 0;
    const struct latmc_lattice geom = ls_geom(job);
    const int64_t N = geom.nsites, lx = geom.lx, ly = geom.ly, lz = geom.lz;
    const int nd = job->ndim;
    const struct ls_block b = ls_block_of(job, N);
    LV unsat[LS_CTR], neg[LS_CTR];
    for (int v = 0; v < b.vectors; v++) {
        const int g0 = job->group0 + v * LW, nl = whole - v * LW < LW ? whole - v * LW : LW;
        const unsigned char *mem = k->mem;
        const uint32_t *ts = (const uint32_t *)(mem + b.vbytes * (size_t)v);
        const uint32_t *tb =
            job->bond ? (const uint32_t *)(mem + b.vbytes * (size_t)v + b.sbytes) : NULL;
        for (int c = 0; c < LS_CTR; c++)
            unsat[c] = neg[c] = v_zero();
        struct ls_sum_tally su, sn;
        for (int q = 0; q < 8; q++)
            su.q[q] = sn.q[q] = su.p[q % 4] = sn.p[q % 4] = v_zero();
        su.n = su.m = sn.n = sn.m = 0;
        for (int64_t z = 0; z < lz; z++)
            for (int64_t y = 0; y < ly; y++) {
                const int64_t row = lx * (y + ly * z);
                const int64_t dy = lx * (latmc_wrap_up(y, ly) + ly * z) - row;
                const int64_t dz = lx * (y + ly * latmc_wrap_up(z, lz)) - row;
                for (int64_t x = 0; x < lx; x++) {
                    const int64_t i = row + x;
                    const LV w = v_loadw(ts + i * LW);
                    ls_sum_add(&sn, neg, w);
                    const int64_t j[3] = { row + latmc_wrap_up(x, lx), i + dy, i + dz };
                    for (int mu = 0; mu < nd; mu++) {
                        LV d = v_xor(w, v_loadw(ts + j[mu] * LW));
                        if (tb)
                            d = v_xor(d, v_loadw(tb + (nd * i + mu) * LW));
                        ls_sum_add(&su, unsat, d);
                    }
                }
            }
        ls_sum_flush(&su, unsat);
        ls_sum_flush(&sn, neg);
        /* lane l's counts at 64 l (unsatisfied) and 64 l + 32 (negative), as the sums */
        uint64_t cnt[LW * 2 * LATMC_ENS_LANES];
        memset(cnt, 0, sizeof cnt);
        ls_counts_add(unsat, nl, cnt, 2 * LATMC_ENS_LANES);
        ls_counts_add(neg, nl, cnt + LATMC_ENS_LANES, 2 * LATMC_ENS_LANES);
        for (int l = 0; l < nl; l++) {
            int64_t *o = job->sums + (size_t)(g0 + l) * 2 * LATMC_ENS_LANES;
            const uint64_t *c = cnt + (size_t)l * 2 * LATMC_ENS_LANES;
            for (int m = 0; m < LATMC_ENS_LANES; m++) {
                o[m] = N * nd - 2 * (int64_t)c[m];
                o[LATMC_ENS_LANES + m] = N - 2 * (int64_t)c[LATMC_ENS_LANES + m];
            }
        }
    }
    return whole;
}

#ifdef LANES_DSP_INIT
/* The level's table entries. */
void LANES_DSP_INIT(struct cpu_ising_lanes_dsp *dsp)
{
    dsp->run = LANES_ENTRY;
    dsp->keep = LANES_KEEP;
    dsp->sums = LANES_SUMS;
    dsp->width = LW;
    dsp->level = LANES_LEVEL;
#ifdef LANES_NARROW
    dsp->run_narrow = LANES_RUN_NARROW;
    dsp->keep_narrow = LANES_KEEP_NARROW;
    dsp->sums_narrow = LANES_SUMS_NARROW;
    dsp->narrow = LANES_NARROW;
#endif
}
#endif
