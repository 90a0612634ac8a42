/*
 * The Potts SIMD kernels, written once over a small set of vector primitives and compiled
 * per ISA: potts_avx2.c and potts_avx512.c define the primitives (the list is at the top
 * of potts_avx2.c), POTTS_DSP_INIT (the name of the level's entry point,
 * cpu_potts_dsp_init_<isa>(), potts_fast.h) and POTTS_LEVEL (the level's name), and
 * include this file, which defines that entry point; everything else here is private to
 * that translation unit.
 *
 * One chunk = VW sites of one colour with consecutive within-colour indices j0 .. j0+VW-1
 * (j0 a multiple of VW), one byte per site, in the split layout of potts_fast.h. Their
 * draws are the VW/4 Philox blocks j0/4 .. j0/4 + VW/4 - 1, computed here VW/4 at a time
 * (philox_chunk): output word l of block j0/4 + m is the draw of site j0 + 4m + l, i.e.
 * 32-bit lane m of the l-th output vector lines up with bytes 4m .. 4m+3 of the chunk.
 */
#include <string.h>

#include "potts_fast.h"

enum { NINST = VW / 4 };    /* Philox blocks per chunk */

/* The pass is instantiated per (algorithm, ndim, kind) with those as constants; the
 * compiler must inline everything into each instance for them to fold. */
#define INLINE static inline __attribute__((always_inline))

/* ---- Philox4x32-10 on VW/4 blocks ---- */

/* The pass-constant vectors of one name of draws (a step's sub), cpu_potts_philox_init(). */
struct philox_vecs {
    vec k0[10], k1[10], a1, a2, a3, a4;
};

static void philox_vecs_init(struct philox_vecs *v, const struct cpu_potts_philox *r)
{
    for (int i = 0; i < 10; i++) {
        v->k0[i] = v_set1_32(r->k0[i]);
        v->k1[i] = v_set1_32(r->k1[i]);
    }
    v->a1 = v_set1_32(r->a1);
    v->a2 = v_set1_32(r->a2);
    v->a3 = v_set1_32(r->a3);
    v->a4 = v_set1_32(r->a4);
}

/*
 * The four outputs of blocks b0 .. b0 + NINST - 1 (b0 = block mod 2^32, a multiple of
 * NINST; block >> 32 and the other counter words are those of `v`). Two groups of NINST/2
 * blocks, even and odd, each block's words in the low half of a 64-bit lane: _mul_epu32
 * gives the full 64-bit products, hi = product >> 32 and lo = product (its high half is
 * never read by a later multiply and is dropped when the groups are merged at the end).
 * The first three rounds skip what is uniform over the blocks (cpu_potts_philox_init).
 */
INLINE void philox_chunk(const struct philox_vecs *v, uint32_t b0, vec out[4])
{
    const vec m0 = v_set1_32(LATMC_PHILOX_M0), m1 = v_set1_32(LATMC_PHILOX_M1);
    vec c0[2], c1[2], c2[2], c3[2];
    const vec base = v_set1_32(b0);
    c0[0] = v_add32(base, v_even_offsets());
    c0[1] = v_add32(c0[0], v_set1_32(1));
    for (int g = 0; g < 2; g++) {
        /* round 1: c0' = U0 and c1' = U1 are uniform */
        const vec p0 = v_mul_u32(c0[g], m0);
        c2[g] = v_xor(V_SRLI64(p0, 32), v->a1);
        c3[g] = p0;
        /* round 2: M0 c0' is uniform, c3'' = u3 too */
        const vec p1 = v_mul_u32(c2[g], m1);
        c0[g] = v_xor(V_SRLI64(p1, 32), v->a2);
        c1[g] = p1;
        c2[g] = v_xor(c3[g], v->a3);
    }
    for (int g = 0; g < 2; g++) {
        /* round 3: c3'' = u3 is uniform (folded into a4) */
        const vec p0 = v_mul_u32(c0[g], m0), p1 = v_mul_u32(c2[g], m1);
        c0[g] = v_xor3(V_SRLI64(p1, 32), c1[g], v->k0[2]);
        c1[g] = p1;
        c2[g] = v_xor(V_SRLI64(p0, 32), v->a4);
        c3[g] = p0;
    }
#pragma GCC unroll 7
    for (int r = 3; r < 10; r++)
#pragma GCC unroll 2
        for (int g = 0; g < 2; g++) {
            const vec p0 = v_mul_u32(c0[g], m0), p1 = v_mul_u32(c2[g], m1);
            c0[g] = v_xor3(V_SRLI64(p1, 32), c1[g], v->k0[r]);
            c2[g] = v_xor3(V_SRLI64(p0, 32), c3[g], v->k1[r]);
            c1[g] = p1;
            c3[g] = p0;
        }
    /* 32-bit lane m = block b0 + m: even blocks from group 0, odd ones from group 1 */
    out[0] = v_blend32_odd(c0[0], V_SLLI64(c0[1], 32));
    out[1] = v_blend32_odd(c1[0], V_SLLI64(c1[1], 32));
    out[2] = v_blend32_odd(c2[0], V_SLLI64(c2[1], 32));
    out[3] = v_blend32_odd(c3[0], V_SLLI64(c3[1], 32));
}

/*
 * Bytes 3 and 2 of every draw, site-ordered (byte p = site j0 + p), each XOR 0x80 for
 * signed byte compares: a 4x4 byte transpose inside each 32-bit lane of the four outputs,
 * of which only the two upper rows are needed.
 */
INLINE void top_bytes(const vec u[4], vec *b3, vec *b2)
{
    const vec e1 = v_blend8_odd(V_SRLI16(u[0], 8), u[1]);   /* a1 b1 a3 b3 */
    const vec f1 = v_blend8_odd(V_SRLI16(u[2], 8), u[3]);   /* c1 d1 c3 d3 */
    const vec e0 = v_blend8_odd(u[0], V_SLLI16(u[1], 8));   /* a0 b0 a2 b2 */
    const vec f0 = v_blend8_odd(u[2], V_SLLI16(u[3], 8));   /* c0 d0 c2 d2 */
    const vec bias = v_set1_8(0x80);
    *b3 = v_xor(v_blend16_odd(V_SRLI32(e1, 16), f1), bias); /* a3 b3 c3 d3 */
    *b2 = v_xor(v_blend16_odd(V_SRLI32(e0, 16), f0), bias); /* a2 b2 c2 d2 */
}

/* ---- byte tables of up to 3 levels of 16 entries ---- */

struct table_vecs {
    vec level[3];
};

static void table_vecs_init(struct table_vecs *t, const uint8_t *bytes, int levels)
{
    for (int l = 0; l < 3; l++)
        t->level[l] = l < levels ? v_bcast16(bytes + 16 * l) : v_zero();
}

/* Shuffle controls of index vector idx for `levels` levels: pshufb reads the low four
 * bits of a control byte and returns 0 when its top bit is set; saturating 0x70 + (idx -
 * 16 l) keeps exactly the indices of level l below 0x80. */
INLINE void table_controls(vec idx, int levels, vec ctl[3])
{
    if (levels == 1) {
        ctl[0] = ctl[1] = ctl[2] = idx;     /* only ctl[0] is read */
        return;
    }
    const vec top = v_set1_8(0x70);
    ctl[0] = v_adds_u8(idx, top);
    ctl[1] = v_adds_u8(v_sub8(idx, v_set1_8(16)), top);
    ctl[2] = levels > 2 ? v_adds_u8(v_sub8(idx, v_set1_8(32)), top) : ctl[1];
}

INLINE vec table_lookup(const struct table_vecs *t, const vec ctl[3], int levels)
{
    vec r = v_shuffle8(t->level[0], ctl[0]);
    if (levels > 1)
        r = v_or(r, v_shuffle8(t->level[1], ctl[1]));
    if (levels > 2)
        r = v_or(r, v_shuffle8(t->level[2], ctl[2]));
    return r;
}

/* ---- rows and neighbours ---- */

/*
 * Where the neighbours of the sites of one row of the colour array are: neighbour d of
 * site j is array[d][j + offset[d]], except for the one site of the row whose x-neighbour
 * crosses the periodic boundary (wrap_j, value at wrap_src). Directions x+, x-, y+, y-,
 * z+, z-. Colour (x+y+z) mod c: the +directions are colour col+1, the - ones col-1; y and z
 * neighbours sit at the same within-row index, x ones at the same or the next/previous
 * (doc/models/potts.md, potts_fast.h).
 */
struct row_geom {
    int64_t row, y, z, start;
    int off;                        /* x = c t + off for this colour in this row */
    const uint8_t *array[6];
    int64_t offset[6];
    int64_t wrap_j[2];
    const uint8_t *wrap_src[2];
};

/* Everything that follows from (row, y, z, off). */
static void row_geom_fill(const struct cpu_potts_pass *p, struct row_geom *r)
{
    const int c = p->colours, col = p->colour, off = r->off;
    const int64_t P = p->per_row, ly = p->g->ly, lz = p->g->lz, y = r->y, z = r->z;
    const uint8_t *plus = p->sub[(col + 1) % c], *minus = p->sub[(col + c - 1) % c];
    r->start = r->row * P;
    r->array[0] = plus;
    r->array[1] = minus;
    if (off + 1 == c) {             /* x + 1 = c (t + 1): next t, the row's last wraps */
        r->offset[0] = 1;
        r->wrap_j[0] = r->start + P - 1;
        r->wrap_src[0] = plus + r->start;
    } else {
        r->offset[0] = 0;
        r->wrap_j[0] = -1;
        r->wrap_src[0] = NULL;
    }
    if (off == 0) {                 /* x - 1 = c (t - 1) + c - 1: previous t */
        r->offset[1] = -1;
        r->wrap_j[1] = r->start;
        r->wrap_src[1] = minus + r->start + P - 1;
    } else {
        r->offset[1] = 0;
        r->wrap_j[1] = -1;
        r->wrap_src[1] = NULL;
    }
    r->array[2] = plus;
    r->array[3] = minus;
    r->offset[2] = (y + 1 == ly ? -y : 1) * P;
    r->offset[3] = (y == 0 ? ly - 1 : -1) * P;
    if (p->ndim == 3) {
        r->array[4] = plus;
        r->array[5] = minus;
        r->offset[4] = (z + 1 == lz ? -z : 1) * ly * P;
        r->offset[5] = (z == 0 ? lz - 1 : -1) * ly * P;
    }
}

static void row_geom_at(const struct cpu_potts_pass *p, int64_t row, struct row_geom *r)
{
    const int c = p->colours;
    r->row = row;
    r->y = row % p->g->ly;
    r->z = row / p->g->ly;
    r->off = (int)((p->colour + c - (r->y + r->z) % c) % c);
    row_geom_fill(p, r);
}

/* The next row, without divisions: y + z grows by one from row to row, or by 2 - L_y when
 * y wraps into the next plane, i.e. by 1 or 2 mod c (c divides L_y); the offset drops by
 * as much, mod c. */
static void row_geom_next(const struct cpu_potts_pass *p, struct row_geom *r)
{
    const int c = p->colours;
    int step = 1;
    r->row++;
    if (++r->y == p->g->ly) {
        r->y = 0;
        r->z++;
        step = 2;
    }
    r->off = (r->off + 2 * c - step) % c;
    row_geom_fill(p, r);
}

/* The neighbour vectors of chunk j0 as if every lane were in row r. */
INLINE void row_neighbours(const struct row_geom *r, int nnb, int64_t j0, vec nb[6])
{
    for (int d = 0; d < nnb; d++)
        nb[d] = v_load(r->array[d] + j0 + r->offset[d]);
    for (int d = 0; d < 2; d++) {
        const int64_t w = r->wrap_j[d] - j0;
        if (r->wrap_j[d] >= 0 && w >= 0 && w < VW)
            nb[d] = v_blend(nb[d], v_set1_8(*r->wrap_src[d]), m_lanes((int)w, (int)w + 1));
    }
}

/* Whether chunk [j0, jend) lies in row r (which holds j0): then every neighbour vector is
 * one load, and one lane more for a neighbour across the periodic x boundary. */
INLINE int chunk_in_row(const struct row_geom *r, int64_t P, int64_t jend)
{
    return jend <= r->start + P;
}

/*
 * The neighbour vectors of any other chunk [j0, jend) (jend - j0 <= VW): chunks over
 * several rows (L_x / c not a multiple of VW, or small). `r` is the geometry of the row holding j0 and is left at the row holding
 * jend - 1. Lanes past jend are garbage.
 */
static __attribute__((noinline)) void chunk_neighbours(const struct cpu_potts_pass *p,
                                                       struct row_geom *r, int nnb,
                                                       int64_t j0, int64_t jend, vec nb[6])
{
    const int64_t P = p->per_row;
    row_neighbours(r, nnb, j0, nb);
    while (r->start + P < jend) {   /* the chunk goes on in the next row(s) */
        row_geom_next(p, r);
        vec more[6];
        row_neighbours(r, nnb, j0, more);
        const int64_t hi = r->start + P < jend ? r->start + P : jend;
        const vmask m = m_lanes((int)(r->start - j0), (int)(hi - j0));
        for (int d = 0; d < nnb; d++)
            nb[d] = v_blend(nb[d], more[d], m);
    }
}

/* ---- the scalar rule for single lanes ---- */

/* What the scalar rule needs of a chunk, copied out only when it is needed. */
struct chunk_copy {
    uint8_t nb[6][VW], s[VW], result[VW];
    uint32_t u0[4][NINST], u1[4][NINST];
};

/* Redo the lanes in `lanes` with the shared rule of lib/potts_rules.h and full draws. */
static __attribute__((noinline)) void scalar_lanes(const struct cpu_potts_pass *p,
                                                   uint64_t lanes, int metropolis, int nnb,
                                                   struct chunk_copy *c)
{
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    while (lanes) {
        const int lane = __builtin_ctzll(lanes);
        lanes &= lanes - 1;
        uint8_t nbl[LATMC_POTTS_MAX_NB];
        for (int d = 0; d < nnb; d++)
            nbl[d] = c->nb[d][lane];
        const uint32_t ua = c->u0[lane & 3][lane >> 2];
        c->result[lane] = (uint8_t)(metropolis
            ? latmc_potts_metropolis(p->tables, p->ndim, p->q, c->s[lane], nbl, nnb, ua,
                                     c->u1[lane & 3][lane >> 2])
            : latmc_potts_heatbath(p->tables, p->q, nbl, nnb, ua, n_of));
    }
}

/*
 * Heat bath of 4 <= q <= 9 from the neighbour-tuple table (struct cpu_potts_hb_table):
 * every valid lane, one 8-word compare each; a draw of 2^32 - 1 takes the shared rule.
 */
static __attribute__((noinline)) void table_lanes(const struct cpu_potts_pass *p,
                                                  uint64_t lanes, int nnb, struct chunk_copy *c)
{
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    const uint32_t q = (uint32_t)p->q;
    while (lanes) {
        const int lane = __builtin_ctzll(lanes);
        lanes &= lanes - 1;
        const uint32_t u = c->u0[lane & 3][lane >> 2];
        uint32_t index = 0;
        for (int d = nnb - 1; d >= 0; d--)
            index = index * q + c->nb[d][lane];
        if (u != UINT32_MAX) {
            c->result[lane] = (uint8_t)count_reached8(p->hb_entry + 8 * (size_t)index,
                                                      u ^ 0x80000000u);
        } else {
            uint8_t nbl[LATMC_POTTS_MAX_NB];
            for (int d = 0; d < nnb; d++)
                nbl[d] = c->nb[d][lane];
            c->result[lane] = (uint8_t)latmc_potts_heatbath(p->tables, p->q, nbl, nnb, u, n_of);
        }
    }
}

/* The same, from the chunk's vectors (kept out of memory on the common path). */
INLINE vec redo_lanes(const struct cpu_potts_pass *p, uint64_t lanes, int metropolis,
                      int table, int nnb, const vec nb[6], vec s, const vec u0[4],
                      const vec u1[4], vec result)
{
    struct chunk_copy c;
    for (int d = 0; d < nnb; d++)
        v_store(c.nb[d], nb[d]);
    v_store(c.s, s);
    v_store(c.result, result);
    for (int l = 0; l < 4; l++) {
        v_store(c.u0[l], u0[l]);
        if (metropolis)
            v_store(c.u1[l], u1[l]);
    }
    if (table)
        table_lanes(p, lanes, nnb, &c);
    else
        scalar_lanes(p, lanes, metropolis, nnb, &c);
    return v_load(c.result);
}

/* ---- one colour pass ---- */

enum {
    ALGO_METROPOLIS, ALGO_HEATBATH,
    /* Metropolis proposals: q = 2 (always the other state), q - 1 a power of two (top bits
     * of the draw), any q (a 32 x 32 -> 64-bit multiply) */
    PROPOSE_Q2 = 0, PROPOSE_POW2, PROPOSE_ANY,
    /* heat bath: q = 2 and q = 3 in vectors, larger q per site (table or shared rule) */
    HB_Q2 = 0, HB_Q3, HB_SCALAR,
};

/* floor(u (q-1) / 2^32) of the 32-bit lanes of u, each < 256 */
INLINE vec mulhi_small(vec u, vec m)
{
    const vec even = v_mul_u32(u, m), odd = v_mul_u32(V_SRLI64(u, 32), m);
    return v_blend32_odd(V_SRLI64(even, 32), odd);
}

/* Four vectors of 32-bit lanes, each < 256, into the site-ordered bytes: lane m of r[l]
 * is site 4m + l. */
INLINE vec merge_bytes(const vec r[4])
{
    return v_or(v_or(r[0], V_SLLI32(r[1], 8)), v_or(V_SLLI32(r[2], 16), V_SLLI32(r[3], 24)));
}

/* The proposal s' = (s + 1 + floor(u0 (q-1) / 2^32)) mod q of every lane. */
INLINE vec propose(vec s, const vec u0[4], int kind, int q, int pow2_shift, vec qm1)
{
    if (kind == PROPOSE_Q2)
        return v_xor(s, v_set1_8(1));
    vec r[4];
    for (int l = 0; l < 4; l++)
        r[l] = kind == PROPOSE_POW2 ? v_srl32(u0[l], pow2_shift) : mulhi_small(u0[l], qm1);
    const vec step = v_add8(merge_bytes(r), v_set1_8(1));     /* 1 .. q-1 */
    const vec d = v_sub8(v_set1_8(q), step);                   /* s + step >= q <=> s >= d */
    return v_blend(v_add8(s, step), v_sub8(s, d), m_ge_u8(s, d));
}

INLINE uint64_t pass_impl(const struct cpu_potts_pass *p, int64_t chunk_begin,
                                 int64_t chunk_end, const int algo, const int ndim,
                                 const int kind)
{
    const int nnb = 2 * ndim, q = p->q;
    const int metropolis = algo == ALGO_METROPOLIS;
    const int64_t per_colour = p->per_colour, j_lo = p->j_begin, j_hi = p->j_end;
    /* the chunks wholly inside [j_lo, j_hi) */
    const int64_t whole_begin = (j_lo + VW - 1) / VW, whole_end = j_hi / VW;
    uint8_t *const own = p->sub[p->colour];
    const struct cpu_potts_fast_tables *f = p->fast;
    if (chunk_begin >= chunk_end)   /* a thread with nothing to do: no row to start at */
        return 0;

    struct philox_vecs rng[2];
    /* the draws are named by the global within-colour number, j + j_origin (a slab) */
    uint32_t block_hi = (uint32_t)(((uint64_t)(chunk_begin * VW + p->j_origin) / 4) >> 32);
    struct cpu_potts_philox pre[2] = { p->rng[0], p->rng[1] };
    for (int s = 0; s < 2; s++) {
        if (pre[s].block_hi != block_hi)
            cpu_potts_philox_init(&pre[s], p->seed, p->name[s], block_hi);
        philox_vecs_init(&rng[s], &pre[s]);
    }

    const int levels = metropolis ? (ndim == 2 ? 2 : 3)
                                  : (kind == HB_Q2 ? 1 : ndim == 2 ? 2 : 3);
    struct table_vecs t3[2], t2[2];
    vec hb_f = v_zero();
    if (metropolis) {
        table_vecs_init(&t3[0], f->metro_b3, levels);
        table_vecs_init(&t2[0], f->metro_b2, levels);
    } else if (kind != HB_SCALAR) {
        for (int k = 0; k < 2; k++) {
            table_vecs_init(&t3[k], f->hb_b3[k], levels);
            table_vecs_init(&t2[k], f->hb_b2[k], levels);
        }
        hb_f = v_bcast16(f->hb_f);
    }
    int pow2_shift = 0;
    if (metropolis && kind == PROPOSE_POW2)
        while ((1 << pow2_shift) < q - 1)
            pow2_shift++;
    pow2_shift = 32 - pow2_shift;
    const vec qm1 = v_set1_32((uint32_t)(q - 1));
    const vec metro_base = v_set1_8(6 * ndim + 1);

    struct row_geom geom;
    row_geom_at(p, (chunk_begin * VW) / p->per_row, &geom);

    uint64_t equal_total = 0, valid_total = 0;
    vec equal = v_zero();
    int pending = 0;
    for (int64_t chunk = chunk_begin; chunk < chunk_end; chunk++) {
        const int64_t j0 = chunk * VW;
        const int64_t jend = j0 + VW < per_colour ? j0 + VW : per_colour;
        const uint64_t block = (uint64_t)(j0 + p->j_origin) / 4;
        if ((uint32_t)(block >> 32) != block_hi) {     /* past 2^34 sites per colour */
            block_hi = (uint32_t)(block >> 32);
            for (int s = 0; s < 2; s++) {
                cpu_potts_philox_init(&pre[s], p->seed, p->name[s], block_hi);
                philox_vecs_init(&rng[s], &pre[s]);
            }
        }
        while (j0 >= geom.start + p->per_row)
            row_geom_next(p, &geom);

        vec nb[6];
        if (chunk_in_row(&geom, p->per_row, jend)) {
            row_neighbours(&geom, nnb, j0, nb);
        } else {
            vec slow[6];        /* keeps nb itself out of memory */
            chunk_neighbours(p, &geom, nnb, j0, jend, slow);
            for (int d = 0; d < nnb; d++)
                nb[d] = slow[d];
        }
        const vec s = v_load(own + j0);
        /* the lanes of the pass's sites [j_lo, j_hi): all of them but at a box's ends and
         * in the colour's last chunk */
        const int partial = chunk < whole_begin || chunk >= whole_end;
        int lane_lo = 0, lane_hi = VW;
        vmask valid = m_all();
        if (partial) {
            lane_lo = j0 < j_lo ? (int)(j_lo - j0) : 0;
            lane_hi = j0 + VW > j_hi ? (int)(j_hi - j0) : VW;
            valid = m_lanes(lane_lo, lane_hi);
        }

        vec u0[4], u1[4], result;
        vmask tie;
        if (metropolis) {
            if (kind != PROPOSE_Q2)
                philox_chunk(&rng[0], (uint32_t)block, u0);
            else
                u0[0] = u0[1] = u0[2] = u0[3] = v_zero();   /* q = 2 does not use it */
            philox_chunk(&rng[1], (uint32_t)block, u1);
            const vec sp = propose(s, u0, kind, q, pow2_shift, qm1);
            /* idx = 3 (dn + 2 ndim) + dz + 1, dn = n_{s'} - n_s, dz = d(s',0) - d(s,0) */
            vec dn = v_zero();
            for (int d = 0; d < nnb; d++)
                dn = v_sub_m(v_add_m(dn, m_eq8(nb[d], sp)), m_eq8(nb[d], s));
            const vec zero = v_zero();
            const vec dz = v_sub_m(v_add_m(zero, m_eq8(sp, zero)), m_eq8(s, zero));
            const vec idx = v_add8(v_add8(v_add8(dn, dn), v_add8(dn, dz)), metro_base);
            vec ctl[3];
            table_controls(idx, levels, ctl);
            const vec tb3 = table_lookup(&t3[0], ctl, levels);
            const vec tb2 = table_lookup(&t2[0], ctl, levels);
            vec ub3, ub2;
            top_bytes(u1, &ub3, &ub2);
            /* accept <=> u1 < T, decided on the top 16 bits; equal top bits: scalar */
            const vmask eq3 = m_eq8(ub3, tb3);
            const vmask accept = m_or(m_gt8(tb3, ub3), m_and(eq3, m_gt8(tb2, ub2)));
            tie = m_and(eq3, m_eq8(ub2, tb2));
            result = v_blend(s, sp, accept);
        } else {
            philox_chunk(&rng[0], (uint32_t)block, u0);
            if (kind == HB_SCALAR) {
                result = s;
                tie = valid;              /* every site: the tuple table or the shared rule */
            } else {
                vec hash = v_shuffle8(hb_f, nb[0]);
                for (int d = 1; d < nnb; d++)
                    hash = v_add8(hash, v_shuffle8(hb_f, nb[d]));
                vec ctl[3];
                table_controls(hash, levels, ctl);
                vec ub3, ub2;
                top_bytes(u0, &ub3, &ub2);
                result = v_zero();
                tie = m_none();
                for (int k = 0; k < (kind == HB_Q3 ? 2 : 1); k++) {
                    const vec tb3 = table_lookup(&t3[k], ctl, levels);
                    const vec tb2 = table_lookup(&t2[k], ctl, levels);
                    const vmask eq3 = m_eq8(ub3, tb3);
                    /* state > k <=> u >= U_k */
                    result = v_add_m(result, m_or(m_gt8(ub3, tb3),
                                                  m_and(eq3, m_gt8(ub2, tb2))));
                    tie = m_or(tie, m_and(eq3, m_eq8(ub2, tb2)));
                }
            }
        }
        if (p->scalar_every_site)
            tie = valid;
        const uint64_t redo = m_bits(m_and(tie, valid));
        if (redo)
            result = redo_lanes(p, redo, metropolis,
                                !metropolis && kind == HB_SCALAR && p->hb_entry &&
                                    !p->scalar_every_site,
                                nnb, nb, s, u0, u1, result);

        if (partial)                 /* lanes outside the pass keep their states */
            result = v_blend(s, result, valid);
        v_store(own + j0, result);   /* lanes past per_colour land in the padding */
        equal = v_add_m(equal, m_and(m_eq8(result, s), valid));
        valid_total += (uint64_t)(lane_hi - lane_lo);
        if (++pending == 255) {      /* byte counters: fold before they overflow */
            equal_total += v_sum_u8(equal);
            equal = v_zero();
            pending = 0;
        }
    }
    equal_total += v_sum_u8(equal);
    return valid_total - equal_total;
}

/* The instances: one per (algorithm, ndim, kind), constants folded in. */
#define PASS_FN(name, algo, ndim, kind)                                                  \
    static uint64_t name(const struct cpu_potts_pass *p, int64_t b, int64_t e)           \
    {                                                                                    \
        return pass_impl(p, b, e, algo, ndim, kind);                                     \
    }
PASS_FN(metro2_q2, ALGO_METROPOLIS, 2, PROPOSE_Q2)
PASS_FN(metro2_pow2, ALGO_METROPOLIS, 2, PROPOSE_POW2)
PASS_FN(metro2_any, ALGO_METROPOLIS, 2, PROPOSE_ANY)
PASS_FN(metro3_q2, ALGO_METROPOLIS, 3, PROPOSE_Q2)
PASS_FN(metro3_pow2, ALGO_METROPOLIS, 3, PROPOSE_POW2)
PASS_FN(metro3_any, ALGO_METROPOLIS, 3, PROPOSE_ANY)
PASS_FN(hb2_q2, ALGO_HEATBATH, 2, HB_Q2)
PASS_FN(hb2_q3, ALGO_HEATBATH, 2, HB_Q3)
PASS_FN(hb2_scalar, ALGO_HEATBATH, 2, HB_SCALAR)
PASS_FN(hb3_q2, ALGO_HEATBATH, 3, HB_Q2)
PASS_FN(hb3_q3, ALGO_HEATBATH, 3, HB_Q3)
PASS_FN(hb3_scalar, ALGO_HEATBATH, 3, HB_SCALAR)

static uint64_t metropolis_pass(const struct cpu_potts_pass *p, int64_t b, int64_t e)
{
    const int q = p->q;
    const int kind = q == 2 ? PROPOSE_Q2 : ((q - 1) & (q - 2)) == 0 ? PROPOSE_POW2
                                                                     : PROPOSE_ANY;
    static const cpu_potts_pass_fn fn[2][3] = {
        { metro2_q2, metro2_pow2, metro2_any }, { metro3_q2, metro3_pow2, metro3_any },
    };
    return fn[p->ndim - 2][kind](p, b, e);
}

static uint64_t heatbath_pass(const struct cpu_potts_pass *p, int64_t b, int64_t e)
{
    const int kind = p->q == 2 ? HB_Q2 : p->q == 3 ? HB_Q3 : HB_SCALAR;
    static const cpu_potts_pass_fn fn[2][3] = {
        { hb2_q2, hb2_q3, hb2_scalar }, { hb3_q2, hb3_q3, hb3_scalar },
    };
    return fn[p->ndim - 2][kind](p, b, e);
}

/* ---- the observables' reduction ---- */

/*
 * Satisfied bonds towards x+1, y+1 (z+1) and (pops) state populations of the sites of
 * chunks [chunk_begin, chunk_end) of one colour (the x+, y+, z+ neighbours are directions
 * 0, 2, 4 of the pass's geometry); added to *matches and count[]. Byte counters are folded
 * into the 64-bit sums before they can overflow.
 */
INLINE void measure_impl(const struct cpu_potts_pass *p, int64_t chunk_begin,
                         int64_t chunk_end, const int ndim, const int pops, int64_t *matches,
                         int64_t *count)
{
    enum { VECTOR_Q = 16 };   /* populations by compares up to this q, by a histogram above */
    const int nnb = 2 * ndim, q = p->q;
    const int64_t per_colour = p->per_colour, j_lo = p->j_begin, j_hi = p->j_end;
    /* the chunks wholly inside [j_lo, j_hi) */
    const int64_t whole_begin = (j_lo + VW - 1) / VW, whole_end = j_hi / VW;
    const uint8_t *const own = p->sub[p->colour];
    if (chunk_begin >= chunk_end)
        return;
    struct row_geom geom;
    row_geom_at(p, (chunk_begin * VW) / p->per_row, &geom);
    vec bonds = v_zero(), pop[VECTOR_Q];
    for (int k = 0; k < VECTOR_Q; k++)
        pop[k] = v_zero();
    int pending = 0;
    for (int64_t chunk = chunk_begin; chunk < chunk_end; chunk++) {
        const int64_t j0 = chunk * VW;
        const int64_t jend = j0 + VW < per_colour ? j0 + VW : per_colour;
        while (j0 >= geom.start + p->per_row)
            row_geom_next(p, &geom);
        vec nb[6];
        if (chunk_in_row(&geom, p->per_row, jend)) {
            row_neighbours(&geom, nnb, j0, nb);
        } else {
            vec slow[6];
            chunk_neighbours(p, &geom, nnb, j0, jend, slow);
            for (int d = 0; d < nnb; d++)
                nb[d] = slow[d];
        }
        const vec s = v_load(own + j0);
        const int partial = chunk < whole_begin || chunk >= whole_end;
        int lane_lo = 0, lane_hi = VW;
        vmask valid = m_all();
        if (partial) {
            lane_lo = j0 < j_lo ? (int)(j_lo - j0) : 0;
            lane_hi = j0 + VW > j_hi ? (int)(j_hi - j0) : VW;
            valid = m_lanes(lane_lo, lane_hi);
        }
        for (int d = 0; d < nnb; d += 2)
            bonds = v_add_m(bonds, m_and(m_eq8(s, nb[d]), valid));
        if (pops && q <= VECTOR_Q) {
            for (int k = 0; k < q; k++)
                pop[k] = v_add_m(pop[k], m_and(m_eq8(s, v_set1_8(k)), valid));
        } else if (pops) {
            uint8_t b[VW];
            v_store(b, s);
            for (int i = lane_lo; i < lane_hi; i++)
                count[b[i]]++;
        }
        if (++pending == 85) {   /* at most 3 bonds per site and chunk */
            *matches += (int64_t)v_sum_u8(bonds);
            bonds = v_zero();
            for (int k = 0; pops && k < VECTOR_Q && k < q; k++) {
                count[k] += (int64_t)v_sum_u8(pop[k]);
                pop[k] = v_zero();
            }
            pending = 0;
        }
    }
    *matches += (int64_t)v_sum_u8(bonds);
    for (int k = 0; pops && k < VECTOR_Q && k < q; k++)
        count[k] += (int64_t)v_sum_u8(pop[k]);
}

/* The reduction's entries: with the populations (measure) and without (measure_bonds). */
#define MEASURE_FN(name, ndim, pops)                                                          \
    static void name(const struct cpu_potts_pass *p, int64_t b, int64_t e, int64_t *matches, \
                     int64_t *count)                                                          \
    {                                                                                         \
        measure_impl(p, b, e, ndim, pops, matches, count);                                    \
    }
MEASURE_FN(measure_2d, 2, 1)
MEASURE_FN(measure_3d, 3, 1)
MEASURE_FN(bonds_2d, 2, 0)
MEASURE_FN(bonds_3d, 3, 0)

static void measure_pass(const struct cpu_potts_pass *p, int64_t b, int64_t e,
                         int64_t *matches, int64_t *count)
{
    (p->ndim == 2 ? measure_2d : measure_3d)(p, b, e, matches, count);
}

static void bonds_pass(const struct cpu_potts_pass *p, int64_t b, int64_t e, int64_t *matches,
                       int64_t *count)
{
    (p->ndim == 2 ? bonds_2d : bonds_3d)(p, b, e, matches, count);
}

#define POTTS_COUNT_FN count_state_level
#include "potts_count_tmpl.h"

/* The level's table entries. */
void POTTS_DSP_INIT(struct cpu_potts_dsp *dsp)
{
    dsp->width = VW;
    dsp->level = POTTS_LEVEL;
    dsp->metropolis = metropolis_pass;
    dsp->heatbath = heatbath_pass;
    dsp->measure = measure_pass;
    dsp->measure_bonds = bonds_pass;
    dsp->count_state = count_state_level;
}
