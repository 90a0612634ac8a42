/*
 * The phi^4 step of the SIMD levels, written once: included by each level's file
 * (phi4_avx2.c, phi4_avx512.c) once per field type (phi4_precisions.h), with PHI4_R (float, double) and
 * PHI4_S (f, d), which select the level's vector primitives name_S and the coefficients
 * t->S. What differs between levels is only in the primitives the level's header defines
 * before the inclusion (phi4_vec_avx2.h, phi4_vec_avx512.h):
 *   PHI4_W           lanes per vector (sites per group): 8 (AVX2), 16 (AVX-512);
 *   vec_S, mask_S    W field values, a mask of W lanes; load_S, load2_S (lanes
 *                    [0, W/2) and [W/2, W) from two places), store_S, set1_S, add_S,
 *                    sub_S, mul_S, select_S, lanes_S, set_lane_S, maskstore_S;
 *   signed_S, unit_S the draw conversions (signed_raw_S: signed_S over the power of two
 *                    PHI4_SIGNED_SCALE_S, 1 where the level has no cheaper form; unitq_S:
 *                    the unit value logq_S reads, within the level's PHI4_UNITQ_SLACK_F),
 *                    logq_S (PHI4_LOG_N logarithms at once) and hitq_S (one Metropolis
 *                    hit on W lanes, its accepted lanes as a mask; written once in
 *                    phi4_vec_hit.h over the primitives above) and hitq_n_S
 *                    (PHI4_HIT_N of them, stage by stage), lane by lane the reference's;
 *   phi4_count       accepted hits: phi4_count_zero, count_add_S (the accepted and valid
 *                    lanes of a mask), count_sum_S; where PHI4_DECIDE_FULL is 1, also
 *                    count_add_all_S (every accepted lane: the decisions of full blocks in a
 *                    copy of their own);
 *   phi4_iv          W 32-bit words as W / 2 64-bit lanes (one Philox block per lane),
 *                    phi4_iv_pairs, phi4_iv_set1, phi4_iv_alternate, phi4_iv_add64,
 *                    phi4_iv_unpacklo/hi;
 *   phi4_keys, phi4_pre, phi4_keys_init, phi4_pre_of, phi4_finish_sets, PHI4_NSETS:
 *                    the Philox rounds over phi4_iv (the hit-independent part first);
 * and the level's file sets PHI4_ISA (the name of the exported steps), PHI4_GROUPS and
 * PHI4_HITS (the block's shape, phi4_simd_block).
 */
#define PHI4_CAT2_(a, b) a##_##b
#define PHI4_CAT_(a, b) PHI4_CAT2_(a, b)
#define PHI4_FN(name) PHI4_CAT_(name, PHI4_S)
#define PHI4_STEP_FN PHI4_CAT_(PHI4_CAT_(cpu_phi4_step, PHI4_ISA), PHI4_S)
#define PHI4_SEGMENTS_FN PHI4_CAT_(PHI4_CAT_(cpu_phi4_segments, PHI4_ISA), PHI4_S)
#define V PHI4_FN(vec)
#define PHI4_SIGNED_SCALE PHI4_CAT_(PHI4_SIGNED_SCALE, PHI4_S)
#define M PHI4_FN(mask)

/* Hits whose Philox word 3 the pass keeps (phi4_simd_pass.w3): nhit 8 and 16 whole. */
#ifndef PHI4_W3_TABLE
#define PHI4_W3_TABLE 16
#endif

/* What every group of one pass needs. */
struct PHI4_FN(phi4_simd_pass) {
    const struct phi4_geom *g;
    PHI4_R *phi; /* colour-transposed */
    const struct PHI4_FN(latmc_phi4_coef) *k;
    uint32_t nhit;
    const struct phi4_keys *keys;
    struct latmc_rng_name name; /* the step's draws (hit 0, draw 0), lib/step.h */
    int64_t n;  /* L_x / ncolours: values per sub-row */
    int r_wrap; /* the sub-row's change (mod ncolours) from row (L_y - 1, z) to (0, z + 1) */
    /* per sub-row r and dx + 2: where x + dx lies, relative to the row and to number m of
     * sub-row r -- sub-row r + dx, or wrapped around with m shifted by one (carry): once
     * per pass, not per group (ncolours is 8 or 5, lib/phi4.h) */
    int64_t sub_off[8][5];
    int sub_carry[8][5];
    /* per sub-row r: some dx wraps backwards (carry -1) / forwards (+1) */
    bool wraps_first[8], wraps_last[8];
    /* phi4_simd_stencil's distances, once per pass: x + dx from x per sub-row r; rows
     * y + d from y and z + d from z per edge class (phi4_simd_edge_class) */
    int64_t dx_rel[8][5], dy_rel[5][5], dz_rel[5][5];
    /* word 3 of the first PHI4_W3_TABLE hits' blocks (phi4_simd_w3), once per pass: per
     * block and hit it was ~15 scalar instructions and a broadcast, 2 per group and hit */
    phi4_iv w3[PHI4_W3_TABLE];
    /* the step's factor on signed_raw_S (phi4_simd_convert): epsilon times the level's
     * PHI4_SIGNED_SCALE_S, and whether that product is exact (every epsilon but the
     * tiniest: then one multiply per vector, else the scale and epsilon in turn) */
    PHI4_R eps_raw;
    bool eps_fold;
};

/* Word 3 of hit `hit`'s blocks in the pass of colour `colour` of the step named `name`:
 * the lanes (b, eta), (b, u) of each block (latmc_rng_name_at's word 3 of (hit, draw 0),
 * the draw added per lane). */
static inline phi4_iv PHI4_FN(phi4_simd_w3)(struct latmc_rng_name name, int colour,
                                            uint32_t hit)
{
    const uint32_t w3h = latmc_rng_name_at(name, latmc_phi4_rng_phase(colour, hit),
                                           latmc_phi4_rng_sub(hit, 0)).c3;
    return phi4_iv_add64(phi4_iv_set1(w3h),
                         phi4_iv_alternate(LATMC_PHI4_DRAW_ETA, LATMC_PHI4_DRAW_ACCEPT));
}

/*
 * Where the W values at offset (dx, dy, dz) from W sites of one row (y, z) and sub-row r
 * (their x mod ncolours) are, lane l at number m = m0 + l of the sub-row (lanes whose m
 * falls outside 0 .. n-1 get values that the caller discards): row bases of the rows
 * (y + dy, z + dz), and per dx the offset in the row -- x + dx lies in sub-row r + dx, or,
 * past either end of 0 .. ncolours-1, in the sub-row wrapped around with m shifted by one,
 * and then the one lane whose m leaves the row wraps to the row's other end (fix, from).
 * Computed once per group and row; the loads may touch up to W values outside the field:
 * the PHI4_PAD slack.
 */
struct PHI4_FN(phi4_simd_nbh) {
    const PHI4_R *row[5][5]; /* [dy + 2][dz + 2] */
    int64_t off[5];          /* [dx + 2]: where lane 0 loads from, relative to the row */
    int fix[5];              /* [dx + 2]: the lane that wraps, or -1 */
    int64_t from[5];         /* [dx + 2]: where that lane's value is */
};

/* (always_inline, as the loads below: one copy per caller, no calls in the groups' loads) */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_nbh_of)(
    const struct PHI4_FN(phi4_simd_pass) *p, int64_t y, int64_t z, int r, int64_t m0,
    struct PHI4_FN(phi4_simd_nbh) *w)
{
    const struct phi4_geom *g = p->g;
    const int nc = g->colouring.ncolours, three = g->lat.ndim == 3;
    const int64_t ly = g->lat.ly, lz = g->lat.lz, n = p->n, lx = g->lat.lx;
    int64_t yo[5], zo[5];
    for (int d = -2; d <= 2; d++) { /* |d| <= 2 < every extent */
        const int64_t yy = y + d, zz = z + d;
        yo[d + 2] = (yy + (yy < 0 ? ly : yy >= ly ? -ly : 0)) * lx;
        zo[d + 2] = three ? (zz + (zz < 0 ? lz : zz >= lz ? -lz : 0)) * ly * lx : 0;
    }
    /* the 13 rows the stencil reaches (5 in 2D) */
    for (int d = -2; d <= 2; d++) {
        w->row[d + 2][2] = p->phi + yo[d + 2] + zo[2];
        w->row[2][d + 2] = p->phi + yo[2] + zo[d + 2];
    }
    for (int a = -1; a <= 1; a += 2)
        for (int b = -1; b <= 1; b += 2)
            w->row[a + 2][b + 2] = p->phi + yo[a + 2] + zo[b + 2];
    for (int dx = -2; dx <= 2; dx++) {
        int rr = r + dx, carry = 0;
        if (rr < 0) {
            rr += nc;
            carry = -1;
        } else if (rr >= nc) {
            rr -= nc;
            carry = 1;
        }
        w->off[dx + 2] = (int64_t)rr * n + m0 + carry;
        w->fix[dx + 2] = -1;
        w->from[dx + 2] = 0;
        if (carry < 0 && m0 <= 0 && m0 > -PHI4_W) { /* the lane with m = 0 */
            w->fix[dx + 2] = (int)-m0;
            w->from[dx + 2] = (int64_t)rr * n + n - 1;
        } else if (carry > 0 && n - 1 - m0 >= 0 && n - 1 - m0 < PHI4_W) { /* with m = n - 1 */
            w->fix[dx + 2] = (int)(n - 1 - m0);
            w->from[dx + 2] = (int64_t)rr * n;
        }
    }
}

static inline V PHI4_FN(phi4_simd_at)(const struct PHI4_FN(phi4_simd_nbh) *w, int dx, int dy,
                                      int dz)
{
    const PHI4_R *row = w->row[dy + 2][dz + 2];
    V v = PHI4_FN(load)(row + w->off[dx + 2]);
    if (dx != 0 && w->fix[dx + 2] >= 0)
        v = PHI4_FN(set_lane)(v, w->fix[dx + 2], row[w->from[dx + 2]]);
    return v;
}

/*
 * The neighbourhood sums in the order of phi4_neighbour_sums (lib/phi4.h), written once for
 * every way of loading: AT(dx, dy, dz) gives the W values at that offset (literal -2 .. 2),
 * accumulated into the V variables near (c01), far (c02) and diag (c11), which start at 0.
 */
#define PHI4_SIMD_SUMS_ORDER(AT, three, near, far, diag)                                   \
    do {                                                                                   \
        near = PHI4_FN(add)(near, AT(1, 0, 0));                                            \
        near = PHI4_FN(add)(near, AT(-1, 0, 0));                                           \
        far = PHI4_FN(add)(far, AT(2, 0, 0));                                              \
        far = PHI4_FN(add)(far, AT(-2, 0, 0));                                             \
        near = PHI4_FN(add)(near, AT(0, 1, 0));                                            \
        near = PHI4_FN(add)(near, AT(0, -1, 0));                                           \
        far = PHI4_FN(add)(far, AT(0, 2, 0));                                              \
        far = PHI4_FN(add)(far, AT(0, -2, 0));                                             \
        if (three) {                                                                       \
            near = PHI4_FN(add)(near, AT(0, 0, 1));                                        \
            near = PHI4_FN(add)(near, AT(0, 0, -1));                                       \
            far = PHI4_FN(add)(far, AT(0, 0, 2));                                          \
            far = PHI4_FN(add)(far, AT(0, 0, -2));                                         \
        }                                                                                  \
        diag = PHI4_FN(add)(diag, AT(1, 1, 0));                                            \
        diag = PHI4_FN(add)(diag, AT(1, -1, 0));                                           \
        diag = PHI4_FN(add)(diag, AT(-1, 1, 0));                                           \
        diag = PHI4_FN(add)(diag, AT(-1, -1, 0));                                          \
        if (three) {                                                                       \
            diag = PHI4_FN(add)(diag, AT(1, 0, 1));                                        \
            diag = PHI4_FN(add)(diag, AT(1, 0, -1));                                       \
            diag = PHI4_FN(add)(diag, AT(-1, 0, 1));                                       \
            diag = PHI4_FN(add)(diag, AT(-1, 0, -1));                                      \
            diag = PHI4_FN(add)(diag, AT(0, 1, 1));                                        \
            diag = PHI4_FN(add)(diag, AT(0, 1, -1));                                       \
            diag = PHI4_FN(add)(diag, AT(0, -1, 1));                                       \
            diag = PHI4_FN(add)(diag, AT(0, -1, -1));                                      \
        }                                                                                  \
    } while (0)
/* A row distance from a pass's table t of 5 (t[d + 2]), 0 for the literal d = 0 without a
 * load (the tables hold 0 there). */
#define PHI4_SIMD_ROW(t, d) ((d) != 0 ? (t)[(d) + 2] : 0)

/* The neighbourhood sums of W sites of one row, in the order of phi4_neighbour_sums. */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_sums)(
    const struct PHI4_FN(phi4_simd_pass) *p, int64_t y, int64_t z, int r, int64_t m0, V *c01,
    V *c02, V *c11)
{
    const int three = p->g->lat.ndim == 3;
    struct PHI4_FN(phi4_simd_nbh) w;
    PHI4_FN(phi4_simd_nbh_of)(p, y, z, r, m0, &w);
    V near = PHI4_FN(set1)(0), far = PHI4_FN(set1)(0), diag = PHI4_FN(set1)(0);
#define AT(dx, dy, dz) PHI4_FN(phi4_simd_at)(&w, dx, dy, dz)
    PHI4_SIMD_SUMS_ORDER(AT, three, near, far, diag);
#undef AT
    *c01 = near;
    *c02 = far;
    *c11 = diag;
}

/* The sub-row of `colour` in row (y, z). */
static inline int PHI4_FN(phi4_simd_subrow)(const struct phi4_geom *g, int colour, int64_t y,
                                            int64_t z)
{
    const int nc = g->colouring.ncolours;
    const int shift = (int)((g->colouring.ay * y + g->colouring.az * z) % nc);
    return (colour - shift + nc) % nc;
}

/* Which of the pass's tables of row distances a row a (of extent l >= 5) takes: the two
 * rows at each end (0, 1; 3, 4 for l - 2, l - 1), whose stencils wrap, or the interior
 * (2), whose do not; a past the end (a cursor moved beyond the last row) the last class. */
static inline int PHI4_FN(phi4_simd_edge_class)(int64_t a, int64_t l)
{
    return a < 2 ? (int)a : a >= l - 2 ? (a >= l ? 4 : (int)(a - l + 5)) : 2;
}

/* A position in the numbering of one colour: number m of sub-row r of row (y, z), with
 * what the loads need of the row, once per row instead of once per group (at 128^3 float,
 * ~25 instructions per group): the row's place and its tables of row distances. */
struct PHI4_FN(phi4_simd_cursor) {
    int64_t row, m, y, z;
    int r;
    const PHI4_R *base;           /* the row: p->phi + row L_x */
    const PHI4_R *sub;            /* its sub-row r: base + p->sub_off[r][2] */
    const int64_t *dx, *dy, *dz;  /* p->dx_rel[r]; p->dy_rel, p->dz_rel of the edge classes */
};

/* The row-dependent fields of c from c->base, c->r, c->y, c->z. */
static inline void PHI4_FN(phi4_simd_cursor_rows)(const struct PHI4_FN(phi4_simd_pass) *p,
                                                  struct PHI4_FN(phi4_simd_cursor) *c)
{
    const struct phi4_geom *g = p->g;
    c->sub = c->base + p->sub_off[c->r][2];
    c->dx = p->dx_rel[c->r];
    c->dy = p->dy_rel[PHI4_FN(phi4_simd_edge_class)(c->y, g->lat.ly)];
    c->dz = p->dz_rel[g->lat.ndim == 3 ? PHI4_FN(phi4_simd_edge_class)(c->z, g->lat.lz) : 2];
}

static inline void PHI4_FN(phi4_simd_cursor_at)(const struct PHI4_FN(phi4_simd_pass) *p,
                                                int colour, int64_t j,
                                                struct PHI4_FN(phi4_simd_cursor) *c)
{
    c->row = j / p->n;
    c->m = j - c->row * p->n;
    c->y = c->row % p->g->lat.ly;
    c->z = c->row / p->g->lat.ly;
    c->r = PHI4_FN(phi4_simd_subrow)(p->g, colour, c->y, c->z);
    c->base = p->phi + c->row * p->g->lat.lx;
    PHI4_FN(phi4_simd_cursor_rows)(p, c);
}

/* The first number of the next row, without divisions: the colour's sub-row moves by
 * -ay (mod ncolours) from row to row, by p->r_wrap where y wraps to 0 and z grows. */
static inline void PHI4_FN(phi4_simd_next_row)(const struct PHI4_FN(phi4_simd_pass) *p,
                                               struct PHI4_FN(phi4_simd_cursor) *c)
{
    const struct phi4_geom *g = p->g;
    const int nc = g->colouring.ncolours;
    c->row++;
    c->m = 0;
    c->base += g->lat.lx;
    if (++c->y == g->lat.ly) {
        c->y = 0;
        c->z++;
        c->r -= p->r_wrap;
    } else {
        c->r -= g->colouring.ay;
    }
    c->r += c->r < 0 ? nc : 0;
    PHI4_FN(phi4_simd_cursor_rows)(p, c);
}

/* One group of W sites during its hits: what phi4_simd_load fills in. */
struct PHI4_FN(phi4_simd_group) {
    V o, c;                                 /* the field values and their linear coefficients */
    struct phi4_pre pre;                    /* the hit-independent part of their Philox blocks */
    unsigned valid;                         /* lanes that are sites (bit per lane) */
    M valid_mask;                           /* the same lanes as a mask */
    int npieces;                       /* rows the group's sites lie in (1 .. W) */
    PHI4_R *piece_at[PHI4_W];          /* where lane 0 would be in each row's sub-row */
    signed char piece_from[PHI4_W], piece_to[PHI4_W]; /* the lanes [from, to) of each row */
};

/*
 * The stencil of W sites in one row as distances from their own place c: every load is c
 * moved by an x offset's and a row's distance, each in a register, so that a load is one
 * instruction (with the wrap tests and the row's address per load: 1.1 instructions per
 * hit more at 128^3, nhit 8, and 4-6 % more time). x + dx lies at c + dx_off[dx + 2] (its
 * sub-row, or the wrapped one with m shifted by one), the rows (y + d, z) and (y, z + d) at
 * dy[d + 2] and dz[d + 2].
 */
struct PHI4_FN(phi4_simd_stencil) {
    const PHI4_R *c;
    const int64_t *dx_off, *dy, *dz; /* tables of the pass, [5] each */
    int64_t n;
};

/* The W values at c + d, x offset k - 2; with may_fix (a constant) the lane that wraps
 * around the row's end: lane 0 backwards where lo[k], lane W - 1 forwards where hi[k]
 * (lane m = 0 reads the sub-row's last value, lane m = n - 1 its first). */
static inline __attribute__((always_inline)) V PHI4_FN(phi4_simd_stencil_at)(
    const struct PHI4_FN(phi4_simd_stencil) *st, int64_t d, int k, bool may_fix,
    const bool lo[5], const bool hi[5])
{
    const PHI4_R *ptr = st->c + d + st->dx_off[k];
    V v = PHI4_FN(load)(ptr);
    if (may_fix && k != 2 && lo[k])
        v = PHI4_FN(set_lane)(v, 0, ptr[st->n]);
    else if (may_fix && k != 2 && hi[k])
        v = PHI4_FN(set_lane)(v, PHI4_W - 1, ptr[PHI4_W - 1 - st->n]);
    return v;
}

/* The three neighbourhood sums, in the order of phi4_neighbour_sums. */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_stencil_sums)(
    const struct PHI4_FN(phi4_simd_stencil) *st, int three, bool may_fix, const bool lo[5],
    const bool hi[5], V *c01, V *c02, V *c11)
{
    const int64_t *dy = st->dy, *dz = st->dz;
#define AT(dx, ry, rz)                                                                    \
    PHI4_FN(phi4_simd_stencil_at)(st, PHI4_SIMD_ROW(dy, ry) + PHI4_SIMD_ROW(dz, rz), (dx) + 2, \
                                  may_fix, lo, hi)
    V near = PHI4_FN(set1)(0), far = near, diag = near;
    PHI4_SIMD_SUMS_ORDER(AT, three, near, far, diag);
#undef AT
    *c01 = near;
    *c02 = far;
    *c11 = diag;
}

/*
 * The common case of phi4_simd_load: all W sites in one row (cur->m + W <= n), as
 * straight-line code -- the stencil's 13 rows and 5 x offsets computed once, 24 vector
 * loads -- instead of the general loop over rows (which GCC compiles with much spilling).
 */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_load_in_row)(
    const struct PHI4_FN(phi4_simd_pass) *p, const struct PHI4_FN(phi4_simd_cursor) *cur,
    PHI4_R **at, V *o, V *c01, V *c02, V *c11)
{
    const struct phi4_geom *g = p->g;
    const int three = g->lat.ndim == 3;
    const int64_t n = p->n, m = cur->m;
    /* the lane whose m leaves the row wraps to its other end: lane 0 (m = 0) backwards,
     * lane W - 1 (m + W = n) forwards */
    const bool first = m == 0, last = m + PHI4_W == n;
    const int *carry = p->sub_carry[cur->r];
    const PHI4_R *const c = cur->sub + m;
    const struct PHI4_FN(phi4_simd_stencil) st = { c, cur->dx, cur->dy, cur->dz, n };
    if ((first && p->wraps_first[cur->r]) || (last && p->wraps_last[cur->r])) {
        bool lo[5], hi[5];
        for (int k = 0; k < 5; k++) {
            lo[k] = first && carry[k] < 0;
            hi[k] = last && carry[k] > 0;
        }
        PHI4_FN(phi4_simd_stencil_sums)(&st, three, true, lo, hi, c01, c02, c11);
    } else {
        /* no lane wraps: 3/4 of the groups at 128^3, more on longer rows */
        const bool none[5] = { false, false, false, false, false };
        PHI4_FN(phi4_simd_stencil_sums)(&st, three, false, none, none, c01, c02, c11);
    }
    *at = (PHI4_R *)c;
    *o = PHI4_FN(load)(c);
}

/* The linear coefficient of the W sites from their neighbourhood sums (lib/phi4.h). */
static inline V PHI4_FN(phi4_simd_coef)(const struct PHI4_FN(latmc_phi4_coef) *k, V c01, V c02,
                                        V c11)
{
    if (!k->finite_lambda)
        return c01;
    /* c01 - (c02 - four_k c01 + 2 c11) inv_lambda */
    const V t = PHI4_FN(sub)(c02, PHI4_FN(mul)(PHI4_FN(set1)(k->four_k), c01));
    const V u = PHI4_FN(add)(t, PHI4_FN(mul)(PHI4_FN(set1)(2), c11));
    return PHI4_FN(sub)(c01, PHI4_FN(mul)(u, PHI4_FN(set1)(k->inv_lambda)));
}

/*
 * Load group grp (numbers j0 = W grp .. j0 + W - 1) of `colour`, its lanes whose numbers lie in
 * [j_lo, j_hi) (the colour, or one box's part of it): values, coefficients, Philox
 * invariants.
 */
/* always_inline: with two callers (the block, the segments) GCC would keep one copy out of
 * line, and the block's groups would pay a call and the spills of its arguments each. */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_load)(
    const struct PHI4_FN(phi4_simd_pass) *p, int colour, int64_t grp, int64_t j_lo,
    int64_t j_hi, struct PHI4_FN(phi4_simd_cursor) *cur, struct PHI4_FN(phi4_simd_group) *q)
{
    const int64_t j0 = PHI4_W * grp, n = p->n, left = j_hi - j0, skip = j_lo - j0;
    const int hi = left <= 0 ? 0 : left < PHI4_W ? (int)left : PHI4_W;
    const int lo = skip <= 0 ? 0 : skip < hi ? (int)skip : hi;
    q->valid = ((1u << hi) - 1u) & ~((1u << lo) - 1u);
    q->valid_mask = PHI4_FN(lanes)(lo, hi);
    q->npieces = 0;
    /* Row by row (one row unless the group straddles rows): that row's lanes get the
     * sums computed with its addressing, lane for lane the reference's arithmetic. *cur
     * is at j0 + lo and moves on to j0 + hi. */
    V o = PHI4_FN(set1)(0), c01 = o, c02 = o, c11 = o;
    if (hi > lo && cur->m == n)
        PHI4_FN(phi4_simd_next_row)(p, cur);
    if (lo == 0 && hi == PHI4_W && cur->m + PHI4_W <= n) {
        PHI4_R *at;
        PHI4_FN(phi4_simd_load_in_row)(p, cur, &at, &o, &c01, &c02, &c11);
        q->piece_at[0] = at;
        q->piece_from[0] = 0;
        q->piece_to[0] = PHI4_W;
        q->npieces = 1;
        cur->m += PHI4_W;
    }
    for (int lane = q->npieces ? PHI4_W : lo; lane < hi;) {
        if (cur->m == n)
            PHI4_FN(phi4_simd_next_row)(p, cur);
        const int len = n - cur->m < hi - lane ? (int)(n - cur->m) : hi - lane;
        const int64_t m0 = cur->m - lane; /* lane l sits at number m0 + l */
        PHI4_R *at = (PHI4_R *)cur->base + (int64_t)cur->r * n + m0;
        V a01, a02, a11;
        PHI4_FN(phi4_simd_sums)(p, cur->y, cur->z, cur->r, m0, &a01, &a02, &a11);
        const V ov = PHI4_FN(load)(at);
        if (len == PHI4_W) {
            o = ov;
            c01 = a01;
            c02 = a02;
            c11 = a11;
        } else {
            const M m = PHI4_FN(lanes)(lane, lane + len);
            o = PHI4_FN(select)(m, ov, o);
            c01 = PHI4_FN(select)(m, a01, c01);
            c02 = PHI4_FN(select)(m, a02, c02);
            c11 = PHI4_FN(select)(m, a11, c11);
        }
        q->piece_at[q->npieces] = at;
        q->piece_from[q->npieces] = (signed char)lane;
        q->piece_to[q->npieces] = (signed char)(lane + len);
        q->npieces++;
        lane += len;
        cur->m += len;
    }
    q->o = o;
    q->c = PHI4_FN(phi4_simd_coef)(p->k, c01, c02, c11);
    /* Philox blocks b = (W / 4) grp + i, i < W / 4, four sites each: lanes (b, eta), (b, u)
     * of each block in turn, named by the global numbers (a slab: j_origin, a multiple of
     * 64, phi4_lattice.h); words 0..2 of the step's name here (rng_streams.h: word 2 is the
     * step's alone), word 3 per hit */
    const uint64_t b0 = (PHI4_W / 4) * (uint64_t)grp + (uint64_t)(p->g->j_origin / 4);
    uint32_t word0[PHI4_W / 4], word1[PHI4_W / 4], word2 = 0;
    for (int i = 0; i < PHI4_W / 4; i++) {
        const latmc_philox_ctr x = latmc_rng_name_counter(p->name, b0 + (uint64_t)i);
        word0[i] = x.v[0];
        word1[i] = x.v[1];
        word2 = x.v[2];
    }
    phi4_pre_of(p->keys, phi4_iv_pairs(word0), phi4_iv_pairs(word1), phi4_iv_set1(word2),
                &q->pre);
}

/*
 * phi4_simd_load of a group of a full block (phi4_simd_block): every lane valid, all in the
 * cursor's row (n a multiple of W), and words 0..2 of its Philox blocks given as vectors
 * (the block's first ones moved on by the caller), so that none of the general load's
 * tests and scalar counter words are paid per group.
 */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_load_full)(
    const struct PHI4_FN(phi4_simd_pass) *p, struct PHI4_FN(phi4_simd_cursor) *cur, M all,
    phi4_iv word0, phi4_iv word1, phi4_iv word2, struct PHI4_FN(phi4_simd_group) *q)
{
    if (cur->m == p->n)
        PHI4_FN(phi4_simd_next_row)(p, cur);
    PHI4_R *at;
    V o, c01, c02, c11;
    PHI4_FN(phi4_simd_load_in_row)(p, cur, &at, &o, &c01, &c02, &c11);
    cur->m += PHI4_W;
    q->valid = (1u << PHI4_W) - 1u;
    q->valid_mask = all;
    q->npieces = 1;
    q->piece_at[0] = at;
    q->piece_from[0] = 0;
    q->piece_to[0] = PHI4_W;
    q->o = o;
    q->c = PHI4_FN(phi4_simd_coef)(p->k, c01, c02, c11);
    phi4_pre_of(p->keys, word0, word1, word2, &q->pre);
}

/*
 * Paired groups (the chunk schedule's segments of W/2 numbers: b_x = 64 with 8 colours on
 * AVX-512, b_x = 32 on AVX2): lanes [0, W/2) are the W/2 numbers of one segment, lanes
 * [W/2, W) those of another, each half in one row, so that such segments fill whole
 * vectors. Each half keeps its own row's addressing; every lane's sums are the very
 * additions, in the very order, of the same neighbours as in a group of its own.
 */
struct PHI4_FN(phi4_simd_half) {
    const PHI4_R *c; /* the half's first site */
    /* the cursor's tables copied as values (phi4_simd_stencil: x offsets per dx + 2) and
     * the 13 rows the stencil reaches as one distance each, [ry + 2][rz + 2]: read through
     * the cursor's pointers, every load's address was a chain of spilled pointers and
     * table loads (the paired loads were a third of a sweep's time at nloc 8, perf) */
    int64_t dx[5];
    int64_t row[5][5];
    bool lo[5], hi[5]; /* per x offset: its first lane (m = 0) wraps backwards,
                        * its last (m = n - 1) forwards */
};

static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_half_of)(
    const struct PHI4_FN(phi4_simd_pass) *p, const struct PHI4_FN(phi4_simd_cursor) *cur,
    struct PHI4_FN(phi4_simd_half) *h)
{
    const int *carry = p->sub_carry[cur->r];
    const bool first = cur->m == 0, last = cur->m + PHI4_W / 2 == p->n;
    h->c = cur->sub + cur->m;
    for (int k = 0; k < 5; k++) {
        h->dx[k] = cur->dx[k];
        h->lo[k] = first && carry[k] < 0;
        h->hi[k] = last && carry[k] > 0;
    }
}

/* The half's 13 row distances from its cursor's tables (rows near the lattice's edges). */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_half_rows)(
    const struct PHI4_FN(phi4_simd_cursor) *cur, struct PHI4_FN(phi4_simd_half) *h)
{
    for (int d = 0; d < 5; d++) {
        h->row[d][2] = PHI4_SIMD_ROW(cur->dy, d - 2);
        h->row[2][d] = PHI4_SIMD_ROW(cur->dz, d - 2);
    }
    for (int a = 1; a <= 3; a += 2)
        for (int b = 1; b <= 3; b += 2)
            h->row[a][b] = cur->dy[a] + cur->dz[b];
}

/* The W values at offset (dx = k - 2, ry, rz) of the two halves; the lanes that wrap around
 * their row's end read the sub-row's other end (as phi4_simd_stencil_at). */
static inline __attribute__((always_inline)) V PHI4_FN(phi4_simd_pair_at)(
    const struct PHI4_FN(phi4_simd_half) *a, const struct PHI4_FN(phi4_simd_half) *b, int k,
    int64_t da, int64_t db, int64_t n, bool may_fix)
{
    enum { H = PHI4_W / 2 };
    const PHI4_R *pa = a->c + da + a->dx[k];
    const PHI4_R *pb = b->c + db + b->dx[k];
    V v = PHI4_FN(load2)(pa, pb);
    if (may_fix && k != 2) {
        if (a->lo[k])
            v = PHI4_FN(set_lane)(v, 0, pa[n]);
        else if (a->hi[k])
            v = PHI4_FN(set_lane)(v, H - 1, pa[H - 1 - n]);
        if (b->lo[k])
            v = PHI4_FN(set_lane)(v, H, pb[n]);
        else if (b->hi[k])
            v = PHI4_FN(set_lane)(v, PHI4_W - 1, pb[H - 1 - n]);
    }
    return v;
}

/* Load the paired group of the W/2 numbers from ja (cursor a) and from jb (cursor b), each
 * a multiple of W/2 and the first of W/2 numbers of one row: values, coefficients, Philox
 * invariants (blocks ja/4 .. and jb/4 .., W/8 each). */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_load_pair)(
    const struct PHI4_FN(phi4_simd_pass) *p, const struct PHI4_FN(phi4_simd_cursor) *ca,
    const struct PHI4_FN(phi4_simd_cursor) *cb, int64_t ja, int64_t jb,
    struct PHI4_FN(phi4_simd_group) *q)
{
    enum { H = PHI4_W / 2 };
    const int three = p->g->lat.ndim == 3;
    struct PHI4_FN(phi4_simd_half) a, b;
    PHI4_FN(phi4_simd_half_of)(p, ca, &a);
    PHI4_FN(phi4_simd_half_of)(p, cb, &b);
    V near = PHI4_FN(set1)(0), far = near, diag = near;
    bool wraps = false;
    for (int k = 0; k < 5; k++)
        wraps |= a.lo[k] | a.hi[k] | b.lo[k] | b.hi[k];
    /* Both halves' rows away from the lattice's edges (the interior class of
     * phi4_simd_edge_class on both axes, in 3D (L_y - 4)(L_z - 4) of the L_y L_z rows: 94 %
     * at 128^3, 62/64 x 124/128 of the pairs with 64 x 16 x 16): every row distance is
     * ry L_x + rz L_x L_y, a multiple of two numbers in registers, instead of 13 distances per
     * half from tables (the paired loads' addresses were ~200 scalar instructions per
     * group, mostly loads of spilled distances). */
    const bool inner = ca->dy == p->dy_rel[2] && cb->dy == p->dy_rel[2] &&
                       ca->dz == p->dz_rel[2] && cb->dz == p->dz_rel[2];
    if (inner) {
        const int64_t lx = p->g->lat.lx, lxy = three ? lx * p->g->lat.ly : 0;
#define AT_IN(dx, ry, rz, fix)                                                            \
    PHI4_FN(phi4_simd_pair_at)(&a, &b, (dx) + 2, (ry) * lx + (rz) * lxy,                   \
                               (ry) * lx + (rz) * lxy, p->n, fix)
        if (wraps) {
#define AT(dx, ry, rz) AT_IN(dx, ry, rz, true)
            PHI4_SIMD_SUMS_ORDER(AT, three, near, far, diag);
#undef AT
        } else {
#define AT(dx, ry, rz) AT_IN(dx, ry, rz, false)
            PHI4_SIMD_SUMS_ORDER(AT, three, near, far, diag);
#undef AT
        }
#undef AT_IN
    } else {
        PHI4_FN(phi4_simd_half_rows)(ca, &a);
        PHI4_FN(phi4_simd_half_rows)(cb, &b);
#define AT_ROW(dx, ry, rz, fix)                                                           \
    PHI4_FN(phi4_simd_pair_at)(&a, &b, (dx) + 2, a.row[(ry) + 2][(rz) + 2],                \
                               b.row[(ry) + 2][(rz) + 2], p->n, fix)
        if (wraps) {
#define AT(dx, ry, rz) AT_ROW(dx, ry, rz, true)
            PHI4_SIMD_SUMS_ORDER(AT, three, near, far, diag);
#undef AT
        } else {
            /* no lane of either half wraps (9/16 of the pairs at 128^3 with 64 x 16 x 16):
             * straight-line loads, none of the 48 wrap tests */
#define AT(dx, ry, rz) AT_ROW(dx, ry, rz, false)
            PHI4_SIMD_SUMS_ORDER(AT, three, near, far, diag);
#undef AT
        }
#undef AT_ROW
    }
    q->o = PHI4_FN(load2)(a.c, b.c);
    q->c = PHI4_FN(phi4_simd_coef)(p->k, near, far, diag);
    q->valid = (1u << PHI4_W) - 1u;
    q->valid_mask = PHI4_FN(lanes)(0, PHI4_W);
    q->npieces = 2;
    q->piece_at[0] = (PHI4_R *)a.c;
    q->piece_from[0] = 0;
    q->piece_to[0] = H;
    q->piece_at[1] = (PHI4_R *)b.c - H; /* where lane 0 would be */
    q->piece_from[1] = H;
    q->piece_to[1] = PHI4_W;
    /* lane l of a half is number j + l of its segment: block j/4 + l/4, lane l mod 4 */
    const uint64_t origin = (uint64_t)(p->g->j_origin / 4);
    uint32_t word0[PHI4_W / 4], word1[PHI4_W / 4], word2 = 0;
    for (int i = 0; i < PHI4_W / 4; i++) {
        const uint64_t blk = origin + (i < PHI4_W / 8 ? (uint64_t)ja / 4 + (uint64_t)i
                                                      : (uint64_t)jb / 4 + (uint64_t)(i - PHI4_W / 8));
        const latmc_philox_ctr x = latmc_rng_name_counter(p->name, blk);
        word0[i] = x.v[0];
        word1[i] = x.v[1];
        word2 = x.v[2];
    }
    phi4_pre_of(p->keys, phi4_iv_pairs(word0), phi4_iv_pairs(word1), phi4_iv_set1(word2),
                &q->pre);
}

/* Only the group's valid lanes: another box's lanes of the group may be written by another
 * thread at the same time (masked stores write nothing else). */
static inline void PHI4_FN(phi4_simd_store)(const struct PHI4_FN(phi4_simd_group) *q)
{
    if (q->npieces == 1 && q->valid == (1u << PHI4_W) - 1u) {
        PHI4_FN(store)(q->piece_at[0], q->o);
        return;
    }
    for (int i = 0; i < q->npieces; i++)
        PHI4_FN(maskstore)(q->piece_at[i], PHI4_FN(lanes)(q->piece_from[i], q->piece_to[i]), q->o);
}

/*
 * Prefetch what the next block of W PHI4_GROUPS numbers (from c on) will read first and nothing
 * before it has read: the leading rows of the stencil, (y, z + 2) in 3D and (y + 2) in
 * 2D, in the five sub-rows r - 2 .. r + 2 around its numbers. The rest of the stencil was
 * read by the blocks before it and is in the caches; the leading row comes from L3 or
 * memory, and without this every block waited for it (a quarter of the time, profiled at
 * 128^3). A block's hits take microseconds, far longer than a miss, so one block ahead is
 * enough. Touches no value: the chain is unchanged.
 */
/* always_inline: as a function of its own GCC finds it "pure" (a prefetch has no effect it
 * models) and deletes the call. */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_prefetch_next)(
    const struct PHI4_FN(phi4_simd_pass) *p, struct PHI4_FN(phi4_simd_cursor) c)
{
    enum { MAX_ROWS = 8 };
    const struct phi4_geom *g = p->g;
    const int nc = g->colouring.ncolours, three = g->lat.ndim == 3;
    const int64_t lx = g->lat.lx, ly = g->lat.ly, n = p->n;
    const int64_t nrows = three ? ly * g->lat.lz : ly, ahead = three ? 2 * ly : 2;
    int64_t left = PHI4_W * PHI4_GROUPS;
    if (n * (int64_t)sizeof(PHI4_R) <= 128 && left % n == 0 && (c.m == 0 || c.m == n)) {
        /* whole short rows (below), and the next block's are consecutive rows: their
         * leading rows are one range of lines, or two where they wrap to the first rows
         * (128^3 float: 4 rows, 32 lines, in one loop of 4 instructions per line, against
         * ~8 per line with the row by row loop below) */
        const int64_t row = c.row + (c.m == n);
        const int64_t rows = row + left / n <= nrows ? left / n : nrows - row;
        if (rows <= 0)
            return;
        const int64_t lead = row + ahead < nrows ? row + ahead : row + ahead - nrows;
        const int64_t part = lead + rows <= nrows ? rows : nrows - lead;
        for (int k = 0; k < 2; k++) {
            const PHI4_R *from = k == 0 ? p->phi + lead * lx : p->phi;
            const int64_t len = (k == 0 ? part : rows - part) * lx;
            if (len <= 0)
                break;
            const uintptr_t first = (uintptr_t)from & ~(uintptr_t)63;
            const uintptr_t last = (uintptr_t)(from + len - 1) & ~(uintptr_t)63;
            for (uintptr_t a = first; a <= last; a += 64)
                _mm_prefetch((const char *)a, _MM_HINT_T0);
        }
        return;
    }
    for (int rows = 0; left > 0 && rows < MAX_ROWS; rows++) {
        if (c.m == n)
            PHI4_FN(phi4_simd_next_row)(p, &c);
        if (c.row >= nrows)
            return;
        const int64_t len = n - c.m < left ? n - c.m : left;
        const int64_t lead = c.row + ahead < nrows ? c.row + ahead : c.row + ahead - nrows;
        const PHI4_R *base = p->phi + lead * lx;
        if (c.m == 0 && len == n && n * (int64_t)sizeof(PHI4_R) <= 128) {
            /* the whole short row (all nc sub-rows, a superset of the 5): fewer instructions
             * than the 5 ranges of lines (128^3 float: 8 lines against ~7, 2 % less time
             * per hit on the EPYC 2) */
            const uintptr_t first = (uintptr_t)base & ~(uintptr_t)63;
            const uintptr_t last = (uintptr_t)(base + lx - 1) & ~(uintptr_t)63;
            for (uintptr_t a = first; a <= last; a += 64)
                _mm_prefetch((const char *)a, _MM_HINT_T0);
            left -= len;
            c.m += len;
            continue;
        }
        for (int dx = -2; dx <= 2; dx++) {
            const int rr = c.r + dx + (c.r + dx < 0 ? nc : c.r + dx >= nc ? -nc : 0);
            const int64_t from = rr * n + (c.m > 0 ? c.m - 1 : 0);
            const int64_t to = rr * n + (c.m + len < n ? c.m + len + 1 : n);
            /* each cache line of [from, to) once */
            const uintptr_t first = (uintptr_t)(base + from) & ~(uintptr_t)63;
            const uintptr_t last = (uintptr_t)(base + to - 1) & ~(uintptr_t)63;
            for (uintptr_t a = first; a <= last; a += 64)
                _mm_prefetch((const char *)a, _MM_HINT_T0);
        }
        left -= len;
        c.m += len;
    }
}

/*
 * A block of PHI4_GROUPS consecutive groups (W PHI4_GROUPS sites), hits in chunks of
 * PHI4_HITS. Per chunk, three phases, each a loop of short independent iterations, so
 * that out-of-order execution overlaps their long dependency chains (one Philox4x32-10:
 * ~55 cycles; the logarithm: ~50; the Metropolis decision: ~30 cycles per hit, serial in
 * the hits of one site):
 *   1. the W / 2 Philox blocks of every (hit, group): raw draws to a buffer;
 *   2. their conversions and logarithms: proposals and log(u) to a buffer (float: the
 *      level's quick logarithm, double: the shared one);
 *   3. the decisions, hit by hit, the block's groups interleaved (PHI4_GROUPS independent
 *      chains;
 *      float: the exact logarithm where the quick one cannot decide).
 * Every lane computes exactly latmc_phi4_hit's operations on exactly its own draws and
 * takes its decision.
 */
/* Phase 2 of a chunk of nh hits (below): the proposals' steps xi and the quick logarithms
 * lg of the draws. `fold` (a constant where it is inlined, so two copies): xi = f
 * signed_raw(r) with f = epsilon PHI4_SIGNED_SCALE exact (the pass's eps_fold), else
 * epsilon (signed_raw(r) s) with s = PHI4_SIGNED_SCALE: the same product either way, the
 * reference's epsilon signed(r) (s is a power of two and signed(r) = signed_raw(r) s). */
static inline __attribute__((always_inline)) void PHI4_FN(phi4_simd_convert)(
    phi4_iv r_eta[][PHI4_GROUPS], phi4_iv r_u[][PHI4_GROUPS], V xi[][PHI4_GROUPS],
    V lg[][PHI4_GROUPS], int nh, V f, V s, bool fold)
{
    for (int hh = 0; hh < nh; hh++)
        for (int gi = 0; gi < PHI4_GROUPS; gi += PHI4_LOG_N) {
            V u[PHI4_LOG_N];
            for (int i = 0; i < PHI4_LOG_N; i++) {
                const V raw = PHI4_FN(signed_raw)(r_eta[hh][gi + i]);
                xi[hh][gi + i] = fold ? PHI4_FN(mul)(f, raw)
                                      : PHI4_FN(mul)(f, PHI4_FN(mul)(raw, s));
                u[i] = PHI4_FN(unitq)(r_u[hh][gi + i]);
            }
            PHI4_FN(logq)(u, &lg[hh][gi]);
        }
}

/* Phase 3 of a chunk of nh hits (below): the decisions, PHI4_HIT_N groups side by side,
 * the accepted hits added to `accepted`; `masked` (a constant where it is inlined, so two
 * copies): count the valid lanes only, else every lane (a full block: no mask loads and
 * ands per group and hit). */
static inline __attribute__((always_inline)) phi4_count PHI4_FN(phi4_simd_decide)(
    V o[PHI4_GROUPS], const V c[PHI4_GROUPS], V xi[][PHI4_GROUPS], V lg[][PHI4_GROUPS],
    phi4_iv r_u[][PHI4_GROUPS], int nh, V site, V quartic,
    const struct PHI4_FN(phi4_simd_group) *q, phi4_count accepted, bool masked)
{
    for (int hh = 0; hh < nh; hh++) {
#pragma GCC unroll 16
        for (int gi = 0; gi < PHI4_GROUPS; gi += PHI4_HIT_N) {
            M acc[PHI4_HIT_N];
            PHI4_FN(hitq_n)(&o[gi], &xi[hh][gi], &lg[hh][gi], &c[gi], site, quartic,
                            &r_u[hh][gi], acc);
#pragma GCC unroll 16
            for (int i = 0; i < PHI4_HIT_N; i++)
#if PHI4_DECIDE_FULL
                accepted = masked ? PHI4_FN(count_add)(accepted, acc[i], q[gi + i].valid_mask)
                                  : PHI4_FN(count_add_all)(accepted, acc[i]);
#else
                accepted = PHI4_FN(count_add)(accepted, acc[i], q[gi + i].valid_mask);
#endif
        }
    }
    return accepted;
}

/* The hits of PHI4_GROUPS loaded groups q[] (below), then their stores; returns the
 * accepted hits of their valid lanes. noinline: a function of its own, so that GCC
 * allocates the Philox rounds' registers apart from the loads' code (inlined into the
 * block, a change in the loads moved spills into the rounds: 13 % more time for 1.2 fewer
 * load instructions per hit); one call per block of W PHI4_GROUPS sites. */
static __attribute__((noinline)) uint64_t PHI4_FN(phi4_simd_hits)(
    const struct PHI4_FN(phi4_simd_pass) *p, int colour, struct PHI4_FN(phi4_simd_group) *q)
{
    enum { G = PHI4_GROUPS, H = PHI4_HITS };
    /* the decisions run PHI4_HIT_N groups at a time: a remainder would be left unhit */
    _Static_assert(PHI4_GROUPS % PHI4_HIT_N == 0, "PHI4_GROUPS is a multiple of PHI4_HIT_N");
    const struct PHI4_FN(latmc_phi4_coef) *k = p->k;
    const V eps = PHI4_FN(set1)(k->epsilon), site = PHI4_FN(set1)(k->site);
    const V eps_raw = PHI4_FN(set1)(p->eps_raw), scale = PHI4_FN(set1)(PHI4_SIGNED_SCALE);
    const V quartic = PHI4_FN(set1)(k->quartic);
    phi4_iv r_eta[H][G], r_u[H][G];
    V xi[H][G], lg[H][G];
    /* the groups' values and coefficients in registers across the hits (G = 8: 16 of the
     * 32 zmm registers; AVX2 spills some, as q[] was in memory before): in q[] each
     * decision's new value went through a store and a load into the next hit's chain */
    V o[G], c[G];
#pragma GCC unroll 16
    for (int gi = 0; gi < G; gi++) {
        o[gi] = q[gi].o;
        c[gi] = q[gi].c;
    }
#if PHI4_DECIDE_FULL
    /* every lane of every group valid (all but a pass's edges): the count needs no masks */
    unsigned valid = ~0u;
    for (int gi = 0; gi < G; gi++)
        valid &= q[gi].valid;
    const bool full = valid == (1u << PHI4_W) - 1u;
#endif
    phi4_count accepted = phi4_count_zero();
    for (uint32_t h0 = 0; h0 < p->nhit; h0 += H) {
        const int nh = p->nhit - h0 < (uint32_t)H ? (int)(p->nhit - h0) : H;
        for (int hh = 0; hh < nh; hh++) {
            const uint32_t hit = h0 + (uint32_t)hh;
            const phi4_iv w3 = hit < PHI4_W3_TABLE ? p->w3[hit]
                                                   : PHI4_FN(phi4_simd_w3)(p->name, colour, hit);
            /* unrolled: both sets' rounds in one stretch of code (AVX-512: 450 instructions
             * per hit of 8 groups against the loop's 456; llvm-mca's cycles alike) */
#pragma GCC unroll 4
            for (int gi = 0; gi < G; gi += PHI4_NSETS) {
                const struct phi4_pre *pre[PHI4_NSETS];
                phi4_iv o01[PHI4_NSETS], o23[PHI4_NSETS];
                /* unrolled: the pointers are then constants off q, not an array in memory
                 * (0.6 instructions per hit as a loop) */
#pragma GCC unroll 16
                for (int i = 0; i < PHI4_NSETS; i++)
                    pre[i] = &q[gi + i].pre;
                phi4_finish_sets(p->keys, pre, w3, o01, o23);
                for (int i = 0; i < PHI4_NSETS; i++) {
                    /* words 0-3 of each block in turn: the group's W lanes */
                    r_eta[hh][gi + i] = phi4_iv_unpacklo(o01[i], o23[i]);
                    r_u[hh][gi + i] = phi4_iv_unpackhi(o01[i], o23[i]);
                }
            }
        }
        /* a level whose scale is 1 folds always (one copy) */
        if (PHI4_SIGNED_SCALE == 1 || p->eps_fold)
            PHI4_FN(phi4_simd_convert)(r_eta, r_u, xi, lg, nh, eps_raw, eps_raw, true);
        else
            PHI4_FN(phi4_simd_convert)(r_eta, r_u, xi, lg, nh, eps, scale, false);
#if PHI4_DECIDE_FULL
        if (full)
            accepted = PHI4_FN(phi4_simd_decide)(o, c, xi, lg, r_u, nh, site, quartic, q,
                                                 accepted, false);
        else
#endif
            accepted = PHI4_FN(phi4_simd_decide)(o, c, xi, lg, r_u, nh, site, quartic, q,
                                                 accepted, true);
    }
    for (int gi = 0; gi < G; gi++) {
        q[gi].o = o[gi];
        PHI4_FN(phi4_simd_store)(&q[gi]);
    }
    return PHI4_FN(count_sum)(accepted);
}

/* Block `block` on the numbers [j_lo, j_hi): loads, the next block's prefetch, hits and
 * stores. *cur is where the last block's loads left it, at number *cur_j (-1: nowhere):
 * the blocks of one member follow each other, so the cursor moves on without divisions
 * (cursor_at's four at the start of each block were ~10 cycles per group, in the chain of
 * the first loads' addresses). noinline: a function of its own, like phi4_simd_hits, so
 * that GCC allocates the loads' registers apart from the step's loop over boxes and blocks
 * (inlined there, the loads took 16 % more time per site at nhit 1, and 78 fewer
 * instructions per group in them gave no time at all). */
static __attribute__((noinline)) uint64_t PHI4_FN(phi4_simd_block)(
    const struct PHI4_FN(phi4_simd_pass) *p, int colour, int64_t block, int64_t j_lo,
    int64_t j_hi, struct PHI4_FN(phi4_simd_cursor) *cur, int64_t *cur_j)
{
    enum { G = PHI4_GROUPS };
    struct PHI4_FN(phi4_simd_group) q[G];
    const int64_t start = PHI4_W * G * block, from = j_lo > start ? j_lo : start;
    if (*cur_j != from)
        PHI4_FN(phi4_simd_cursor_at)(p, colour, from, cur);
    /* words 0..2 of the first Philox block of the block and of its last (phi4_simd_load) */
    const uint64_t b_first = (PHI4_W / 4) * (uint64_t)(G * block) + (uint64_t)(p->g->j_origin / 4);
    const uint64_t b_last = b_first + (PHI4_W / 4) * G - 1;
    if (start >= j_lo && start + PHI4_W * G <= j_hi && p->n % PHI4_W == 0 &&
        b_first >> 32 == b_last >> 32) {
        /* a full block: every lane valid, each group in one row, word 1 the same for all */
        uint32_t w0[PHI4_W / 4], w1[PHI4_W / 4];
        for (int i = 0; i < PHI4_W / 4; i++) {
            const latmc_philox_ctr x = latmc_rng_name_counter(p->name, b_first + (uint64_t)i);
            w0[i] = x.v[0];
            w1[i] = x.v[1];
        }
        phi4_iv word0 = phi4_iv_pairs(w0);
        const phi4_iv word1 = phi4_iv_pairs(w1), word2 = phi4_iv_set1(p->name.c2);
        /* the next group's blocks: W / 4 on (the low halves of the 64-bit lanes carry the
         * words; b_first and b_last share their high half, so no word wraps) */
        const phi4_iv step = phi4_iv_set1(PHI4_W / 4);
        const M all = PHI4_FN(lanes)(0, PHI4_W);
        /* Where the next block's leading rows are one range of whole short rows
         * (phi4_simd_prefetch_next), their lines are prefetched here, a few per group: 32
         * prefetches at once filled the core's miss buffers and the last ones waited (~7 %
         * of the loads' time at 128^3). */
        uintptr_t pf = 1, pf_last = 0; /* none */
        int64_t per = 0;
        const int64_t n = p->n, lx = p->g->lat.lx, ly = p->g->lat.ly, rows = PHI4_W * G / n;
        const int64_t nrows = p->g->lat.ndim == 3 ? ly * p->g->lat.lz : ly;
        const int64_t ahead = p->g->lat.ndim == 3 ? 2 * ly : 2;
        if (n * (int64_t)sizeof(PHI4_R) <= 128 && rows * n == PHI4_W * G &&
            (cur->m == 0 || cur->m == n)) {
            const int64_t row = cur->row + (cur->m == n) + rows; /* the next block's first */
            const int64_t lead = row + ahead < nrows ? row + ahead : row + ahead - nrows;
            if (row + rows <= nrows && lead + rows <= nrows) {
                pf = (uintptr_t)(p->phi + lead * lx) & ~(uintptr_t)63;
                pf_last = (uintptr_t)(p->phi + (lead + rows) * lx - 1) & ~(uintptr_t)63;
                per = (int64_t)((pf_last - pf) / 64 + G) / G;
            }
        }
        const bool spread = pf <= pf_last;
        for (int gi = 0; gi < G; gi++) {
            PHI4_FN(phi4_simd_load_full)(p, cur, all, word0, word1, word2, &q[gi]);
            word0 = phi4_iv_add64(word0, step);
            for (int64_t k = 0; k < per && pf <= pf_last; k++, pf += 64)
                _mm_prefetch((const char *)pf, _MM_HINT_T0);
        }
        *cur_j = start + PHI4_W * G;
        if (!spread)
            PHI4_FN(phi4_simd_prefetch_next)(p, *cur);
    } else {
        for (int gi = 0; gi < G; gi++)
            PHI4_FN(phi4_simd_load)(p, colour, G * block + gi, j_lo, j_hi, cur, &q[gi]);
        *cur_j = -1;
        PHI4_FN(phi4_simd_prefetch_next)(p, *cur);
    }
    return PHI4_FN(phi4_simd_hits)(p, colour, q);
}

/* What every group of a pass needs, for the step named `name`. */
static void PHI4_FN(phi4_simd_pass_init)(struct PHI4_FN(phi4_simd_pass) *p,
                                         const struct phi4_geom *g, PHI4_R *phi,
                                         const struct latmc_phi4_tables *t,
                                         const struct phi4_keys *keys,
                                         struct latmc_rng_name name, int colour)
{
    const int ncolours = g->colouring.ncolours;
    p->g = g;
    p->phi = phi;
    p->k = &t->PHI4_S;
    p->nhit = t->nhit;
    p->eps_raw = t->PHI4_S.epsilon * PHI4_SIGNED_SCALE;
    p->eps_fold = p->eps_raw / PHI4_SIGNED_SCALE == t->PHI4_S.epsilon;
    p->keys = keys;
    p->name = name;
    for (uint32_t hit = 0; hit < PHI4_W3_TABLE && hit < t->nhit; hit++)
        p->w3[hit] = PHI4_FN(phi4_simd_w3)(name, colour, hit);
    p->n = g->lat.lx / ncolours;
    /* shift (ay y + az z) mod nc grows by az - ay (L_y - 1): the sub-row drops by it */
    p->r_wrap = (int)(((g->colouring.az - g->colouring.ay * (g->lat.ly - 1)) % ncolours +
                       ncolours) % ncolours);
    for (int r = 0; r < ncolours && r < 8; r++) {
        p->wraps_first[r] = p->wraps_last[r] = false;
        for (int dx = -2; dx <= 2; dx++) {
            const int rr = r + dx, carry = rr < 0 ? -1 : rr >= ncolours ? 1 : 0;
            p->sub_carry[r][dx + 2] = carry;
            p->sub_off[r][dx + 2] = (int64_t)(rr - carry * ncolours) * p->n + carry;
            p->wraps_first[r] |= carry < 0;
            p->wraps_last[r] |= carry > 0;
        }
        for (int k = 0; k < 5; k++)
            p->dx_rel[r][k] = p->sub_off[r][k] - p->sub_off[r][2];
    }
    /* a row of each class (extents >= 5: the colourings need 5 or 8 to divide them) */
    const int64_t lx = g->lat.lx, ly = g->lat.ly, lz = g->lat.lz;
    for (int cls = 0; cls < 5; cls++) {
        const int64_t y = cls < 2 ? cls : cls == 2 ? 2 : ly - 5 + cls;
        const int64_t z = cls < 2 ? cls : cls == 2 ? 2 : lz - 5 + cls;
        for (int d = -2; d <= 2; d++) {
            const int64_t yy = y + d, zz = z + d;
            p->dy_rel[cls][d + 2] = (yy < 0 ? ly : yy >= ly ? -ly : 0) * lx + d * lx;
            p->dz_rel[cls][d + 2] =
                g->lat.ndim == 3 ? ((zz < 0 ? lz : zz >= lz ? -lz : 0) + d) * ly * lx : 0;
        }
    }
}

/* Blocks [u0, u1) of the concatenation of the boxes' blocks of W PHI4_GROUPS numbers
 * (phi4_range_units), each box's only on its own numbers. */
static uint64_t PHI4_FN(phi4_simd_boxes_blocks)(const struct PHI4_FN(phi4_simd_pass) *p,
                                                int colour, const struct phi4_range *boxes,
                                                int n_boxes, int64_t u0, int64_t u1)
{
    const int64_t unit = PHI4_W * PHI4_GROUPS;
    uint64_t accepted = 0;
    int64_t off = 0, cur_j = -1;
    struct PHI4_FN(phi4_simd_cursor) cur;
    for (int i = 0; i < n_boxes; i++) {
        const int64_t first = phi4_range_first_unit(&boxes[i], unit);
        const int64_t count = phi4_range_units(&boxes[i], unit);
        const int64_t a = u0 > off ? u0 : off, e = u1 < off + count ? u1 : off + count;
        for (int64_t u = a; u < e; u++)
            accepted += PHI4_FN(phi4_simd_block)(p, colour, first + u - off, boxes[i].j0,
                                                 boxes[i].j1, &cur, &cur_j);
        off += count;
    }
    return accepted;
}

uint64_t PHI4_STEP_FN(const struct phi4_geom *g, PHI4_R *phi,
                                     const struct latmc_phi4_tables *t, uint64_t seed,
                                     struct latmc_rng_name name, int colour,
                                     const struct phi4_range *boxes, int n_boxes,
                                     const struct cpu_team *team);

/*
 * One step of the core's plan (lib/box.h): colour `colour` of the step named `name` on
 * the boxes' numbers, the boxes' blocks shared out among the members of the team.
 */
uint64_t PHI4_STEP_FN(const struct phi4_geom *g, PHI4_R *phi,
                                     const struct latmc_phi4_tables *t, uint64_t seed,
                                     struct latmc_rng_name name, int colour,
                                     const struct phi4_range *boxes, int n_boxes,
                                     const struct cpu_team *team)
{
    struct phi4_keys keys;
    phi4_keys_init(&keys, seed);
    struct PHI4_FN(phi4_simd_pass) p;
    PHI4_FN(phi4_simd_pass_init)(&p, g, phi, t, &keys, name, colour);
    const int64_t unit = PHI4_W * PHI4_GROUPS;
    int64_t units = 0, u0, u1;
    for (int i = 0; i < n_boxes; i++)
        units += phi4_range_units(&boxes[i], unit);
    cpu_team_share(team, units, &u0, &u1);
    return PHI4_FN(phi4_simd_boxes_blocks)(&p, colour, boxes, n_boxes, u0, u1);
}

/* Where segment i starts: one row below segment i - 1 (a chunk's next row) without
 * divisions, else from the number (a few divisions, ~a quarter of a group's hits where
 * every row segment is one group). */
static inline void PHI4_FN(phi4_simd_segment_cursor)(const struct PHI4_FN(phi4_simd_pass) *p,
                                                     int colour, const struct phi4_range *segs,
                                                     int i, struct PHI4_FN(phi4_simd_cursor) *c)
{
    if (i > 0 && segs[i].j0 == segs[i - 1].j0 + p->n) {
        const int64_t m = c->m;
        PHI4_FN(phi4_simd_next_row)(p, c);
        c->m = m;
    } else {
        PHI4_FN(phi4_simd_cursor_at)(p, colour, segs[i].j0, c);
    }
}

/* A segment that is one half of a paired group: W/2 numbers from a multiple of W/2. */
static inline bool PHI4_FN(phi4_simd_half_segment)(const struct phi4_range *s)
{
    return s->j1 - s->j0 == PHI4_W / 2 && s->j0 % (PHI4_W / 2) == 0;
}

/*
 * The chunk schedule's colour step (phi4_dsp.h, segments_f/_d): the groups that the
 * segments touch, each loaded with its segment's lanes only (a group shared with another
 * segment or another chunk is loaded once per segment, each load updating and storing its
 * own lanes), gathered PHI4_GROUPS at a time into the blocks of phi4_simd_hits, so that a
 * chunk's short rows still fill whole blocks. A last, partial block is filled up with
 * copies of its first group with no valid lane (computed, never stored or counted). No
 * prefetch: a chunk's few rows stay in the caches across its passes.
 */
uint64_t PHI4_SEGMENTS_FN(const struct phi4_geom *g, PHI4_R *phi,
                          const struct latmc_phi4_tables *t, uint64_t seed,
                          struct latmc_rng_name name, int colour, const struct phi4_range *segs,
                          int n_segs);

uint64_t PHI4_SEGMENTS_FN(const struct phi4_geom *g, PHI4_R *phi,
                          const struct latmc_phi4_tables *t, uint64_t seed,
                          struct latmc_rng_name name, int colour, const struct phi4_range *segs,
                          int n_segs)
{
    enum { G = PHI4_GROUPS };
    struct phi4_keys keys;
    phi4_keys_init(&keys, seed);
    struct PHI4_FN(phi4_simd_pass) p;
    PHI4_FN(phi4_simd_pass_init)(&p, g, phi, t, &keys, name, colour);
    struct PHI4_FN(phi4_simd_group) q[G];
    struct PHI4_FN(phi4_simd_cursor) first = { 0 };
    uint64_t accepted = 0;
    int ng = 0;
    for (int i = 0; i < n_segs; i++) {
        PHI4_FN(phi4_simd_segment_cursor)(&p, colour, segs, i, &first);
        /* two segments of W/2 numbers (each a multiple of W/2 on): one paired group */
        if (i + 1 < n_segs && PHI4_FN(phi4_simd_half_segment)(&segs[i]) &&
            PHI4_FN(phi4_simd_half_segment)(&segs[i + 1])) {
            const struct PHI4_FN(phi4_simd_cursor) a = first;
            PHI4_FN(phi4_simd_segment_cursor)(&p, colour, segs, ++i, &first);
            PHI4_FN(phi4_simd_load_pair)(&p, &a, &first, segs[i - 1].j0, segs[i].j0, &q[ng]);
            if (++ng == G) {
                accepted += PHI4_FN(phi4_simd_hits)(&p, colour, q);
                ng = 0;
            }
            continue;
        }
        /* the loads move the cursor on, through the segment's groups */
        struct PHI4_FN(phi4_simd_cursor) cur = first;
        for (int64_t grp = segs[i].j0 / PHI4_W; PHI4_W * grp < segs[i].j1; grp++) {
            PHI4_FN(phi4_simd_load)(&p, colour, grp, segs[i].j0, segs[i].j1, &cur, &q[ng]);
            if (++ng == G) {
                accepted += PHI4_FN(phi4_simd_hits)(&p, colour, q);
                ng = 0;
            }
        }
    }
    if (ng > 0) {
        for (int gi = ng; gi < G; gi++) {
            q[gi] = q[0];
            q[gi].valid = 0;
            q[gi].valid_mask = PHI4_FN(lanes)(0, 0);
            q[gi].npieces = 0;
        }
        accepted += PHI4_FN(phi4_simd_hits)(&p, colour, q);
    }
    return accepted;
}

#undef PHI4_SIMD_SUMS_ORDER
#undef PHI4_SIMD_ROW
#undef V
#undef PHI4_SIGNED_SCALE
#undef M
#undef PHI4_FN
#undef PHI4_STEP_FN
#undef PHI4_SEGMENTS_FN
#undef PHI4_CAT_
#undef PHI4_CAT2_
