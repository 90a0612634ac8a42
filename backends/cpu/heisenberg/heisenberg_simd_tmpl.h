/*
 * The Heisenberg steps of the SIMD levels, written once: included by each level's file
 * (heisenberg_avx2.c, heisenberg_avx512.c) after its primitives (heisenberg_vec_avx2.h,
 * heisenberg_vec_avx512.h: HEISENBERG_W sites per vector hv, masks hm, W draws hu, loads and
 * arithmetic, hv_set_first/last, the Philox set heisenberg_draws, and through
 * heisenberg_rules_simd.h the per-site rules) and HEISENBERG_DSP_INIT (the name of the level's
 * entry, cpu_heisenberg_dsp_init_<isa>, heisenberg_dsp.h) and HEISENBERG_LEVEL (the level's
 * name). It defines the level's step_boxes_simd, pair_boxes_simd and or_passes_simd
 * (static) and that entry, which installs them.
 *
 * Work unit: HEISENBERG_V vectors of W sites of one colour whose numbers j are consecutive and
 * start at a multiple of W (the heat bath's draws of four such sites are one Philox block
 * per sub -- cos theta, azimuth -- so two vectors' draws are one Philox set of the level).
 * When L_x / 2 is a multiple of W every vector lies in one row and the pass walks row by
 * row: per row one pointer per neighbouring row reaches all three components, and the local
 * field of a vector is summed, in the reference's order (x, y, z; forward then backward; h
 * last), from contiguous loads. Otherwise the pass walks the flat numbering, and vectors
 * that straddle rows gather their fields lane by lane. Then the HEISENBERG_V vectors run the
 * update step by step together (the interleaved chains keep the core busy), and the
 * results are rounded to float and stored as doubles. On rows the updates run as
 * software pipelines across the rows of a call: overrelaxation four stages of four vectors
 * a step (overrelax_rows: a reflection is ~110 cycles of dependent arithmetic through the
 * divider), the heat bath one chunk of HEISENBERG_V vectors a step (heatbath_rows).
 *
 * Threads: one team per step (or pair); each colour's rows are cut into the members'
 * consecutive runs (the flat walk's groups: a static loop); draws are named by the step's
 * name (its sweep and colour) and j, never by thread.
 */
struct heisenberg_pass {
    const struct latmc_lattice *g;
    struct cpu_heisenberg_soa *s;
    int replica, colour;
    double beta, h;
    bool heatbath;
    const struct heisenberg_keys *keys;
    struct latmc_rng_name name; /* the step's draws in this replica's stream (sub 0) */
    uint32_t c3_phi;            /* counter word 3 of its sub 1 (the azimuth) */
    int64_t n; /* L_x / 2: sites of one colour per row */
};

/* Where the field of a row's vectors comes from: the row bases (component or direction
 * k at offset k n) of the other colour's spins in the rows x (its own), y +- 1, z +- 1,
 * of the couplings J_{i,mu} of the row's sites and J_{i-mu,mu} of their backward
 * neighbours (rows x, y - 1, z - 1), and of the row's own spins. */
struct heisenberg_row {
    const double *sx, *syf, *syb, *szf, *szb;
    const float *j, *jbx, *jby, *jbz;
    double *own;
    int64_t n;
    int q; /* x mod 2 of the row's sites: forward x neighbour at m + q, backward m - 1 + q */
    bool three;
    double h;
};

static inline void heisenberg_row_of(const struct heisenberg_pass *p, int64_t row, int64_t y,
                                     int64_t z, struct heisenberg_row *r)
{
    const struct latmc_lattice *g = p->g;
    const struct cpu_heisenberg_soa *s = p->s;
    const int c = p->colour, oc = 1 - c;
    const int64_t n = p->n, ly = g->ly, lz = g->lz;
    const int64_t ryf = latmc_wrap_up(y, ly) + ly * z, ryb = latmc_wrap_down(y, ly) + ly * z;
    const int64_t rzf = y + ly * latmc_wrap_up(z, lz), rzb = y + ly * latmc_wrap_down(z, lz);
    const double *o = s->spin[p->replica][oc];
    const float *jo = s->coupling[oc];
    r->n = n;
    r->q = (int)((c + y + z) & 1);
    r->three = g->ndim == 3;
    r->h = p->h;
    r->sx = o + 3 * row * n;
    r->syf = o + 3 * ryf * n;
    r->syb = o + 3 * ryb * n;
    r->szf = o + 3 * rzf * n;
    r->szb = o + 3 * rzb * n;
    r->own = s->spin[p->replica][c] + 3 * row * n;
    r->j = s->coupling[c] + 3 * row * n;
    r->jbx = jo + 3 * row * n;
    r->jby = jo + 3 * ryb * n + n;
    r->jbz = jo + 3 * rzb * n + 2 * n;
}

/* One direction's two terms, component by component: f += jf sf, then f += jb sb, the
 * components of neighbour rows sf, sb at offsets 0, n, 2n from (sf + af), (sb + ab).
 * Each term is one FMA, the reference's product and sum bit for bit: a coupling (a float)
 * times a spin component (a float held in a double) is exact in double (24 + 24 bits of
 * significand, no underflow), so rounding f + jf sf once is rounding it after the exact
 * product; the first term's FMA onto +0 is the reference's 0 + jf sf (a -0 product gives
 * +0 in both). 18 FMAs a vector in 3D in place of 18 products and 21 sums. */
#define HEISENBERG_TERMS(f, jf, jb, sf, af, sb, ab, n)                                             \
    do {                                                                                           \
        f[0] = hv_fma(jb, hv_load(sb + (ab)), hv_fma(jf, hv_load(sf + (af)), f[0]));               \
        f[1] = hv_fma(jb, hv_load(sb + (n) + (ab)), hv_fma(jf, hv_load(sf + (n) + (af)), f[1]));   \
        f[2] = hv_fma(jb, hv_load(sb + 2 * (n) + (ab)),                                            \
                      hv_fma(jf, hv_load(sf + 2 * (n) + (af)), f[2]));                             \
    } while (0)

/* The field and old spin of the row's sites m .. m+W-1 (m < n, m + W <= n). At the row's
 * ends one lane's x neighbour wraps to the other end: lane W-1's forward (q = 1,
 * m + W = n) or lane 0's backward (q = 0, m = 0). */
static inline __attribute__((always_inline)) void
heisenberg_row_field(const struct heisenberg_row *r, int64_t m, hv f[3], hv s[3])
{
    const int64_t n = r->n, fx = m + r->q, bx = m - 1 + r->q;
    f[0] = f[1] = f[2] = hv_zero();
    if ((r->q == 1 && m + HEISENBERG_W == n) || (r->q == 0 && m == 0)) {
        /* written out, not as loops over arrays: GCC would keep those in memory */
        hv jb = hv_load_f(r->jbx + bx);
        hv a0 = hv_load(r->sx + fx), a1 = hv_load(r->sx + n + fx);
        hv a2 = hv_load(r->sx + 2 * n + fx);
        hv b0 = hv_load(r->sx + bx), b1 = hv_load(r->sx + n + bx);
        hv b2 = hv_load(r->sx + 2 * n + bx);
        if (r->q == 1) {
            a0 = hv_set_last(a0, r->sx[0]);
            a1 = hv_set_last(a1, r->sx[n]);
            a2 = hv_set_last(a2, r->sx[2 * n]);
        } else {
            jb = hv_set_first(jb, (double)r->jbx[n - 1]);
            b0 = hv_set_first(b0, r->sx[n - 1]);
            b1 = hv_set_first(b1, r->sx[2 * n - 1]);
            b2 = hv_set_first(b2, r->sx[3 * n - 1]);
        }
        const hv jf = hv_load_f(r->j + m);
        f[0] = hv_fma(jb, b0, hv_fma(jf, a0, f[0])); /* exact products: HEISENBERG_TERMS */
        f[1] = hv_fma(jb, b1, hv_fma(jf, a1, f[1]));
        f[2] = hv_fma(jb, b2, hv_fma(jf, a2, f[2]));
    } else {
        HEISENBERG_TERMS(f, hv_load_f(r->j + m), hv_load_f(r->jbx + bx), r->sx, fx, r->sx, bx, n);
    }
    HEISENBERG_TERMS(f, hv_load_f(r->j + n + m), hv_load_f(r->jby + m), r->syf, m, r->syb, m, n);
    if (r->three)
        HEISENBERG_TERMS(f, hv_load_f(r->j + 2 * n + m), hv_load_f(r->jbz + m), r->szf, m, r->szb,
                         m, n);
    f[2] = hv_add(f[2], hv_set1(r->h));
    s[0] = hv_load(r->own + m);
    s[1] = hv_load(r->own + n + m);
    s[2] = hv_load(r->own + 2 * n + m);
}

static inline void heisenberg_row_store(const struct heisenberg_row *r, int64_t m, const hv out[3])
{
    hv_store(r->own + m, out[0]);
    hv_store(r->own + r->n + m, out[1]);
    hv_store(r->own + 2 * r->n + m, out[2]);
}

/* The field of one site (colour c, number j), scalar, in the reference's order. */
static void field_one(const struct heisenberg_pass *p, int64_t j, double field[3])
{
    const struct latmc_lattice *g = p->g;
    const struct cpu_heisenberg_soa *s = p->s;
    const int c = p->colour, oc = 1 - c;
    const double *o = s->spin[p->replica][oc];
    const struct latmc_site site = latmc_checkerboard_site(g, c, j);
    int64_t fwd[3], bwd[3];
    cpu_heisenberg_neighbours(g, site, fwd, bwd);
    field[0] = field[1] = field[2] = 0.0;
    for (int mu = 0; mu < g->ndim; mu++) {
        const double jf = (double)s->coupling[c][cpu_heisenberg_soa_index(s, j, mu)];
        const double jb = (double)s->coupling[oc][cpu_heisenberg_soa_index(s, bwd[mu] / 2, mu)];
        for (int k = 0; k < 3; k++) {
            field[k] += jf * o[cpu_heisenberg_soa_index(s, fwd[mu] / 2, k)];
            field[k] += jb * o[cpu_heisenberg_soa_index(s, bwd[mu] / 2, k)];
        }
    }
    field[2] += p->h;
}

/* The heat-bath uniforms of HEISENBERG_V vectors of W sites j0[k] .. j0[k] + W - 1 (j0[k] a
 * multiple of W): Philox blocks j0[k] / 4 .. j0[k] / 4 + W / 4 - 1, sub 0 (cos theta) and 1
 * (azimuth); one Philox set of the level (heisenberg_draws) holds both subs of both vectors'
 * blocks, two vectors at a time (sub 1's word 3: the pass's c3_phi). */
static inline __attribute__((always_inline)) void heatbath_uniforms(const struct heisenberg_pass *p,
                                                                    const int64_t j0[HEISENBERG_V],
                                                                    hv u_cos[HEISENBERG_V],
                                                                    hv u_phi[HEISENBERG_V])
{
    for (int k = 0; k < HEISENBERG_V; k += 2) {
        /* the counters of (block, sub 0) of both vectors' blocks (rng_streams.h), named by
         * the global numbers (a slab: j_origin, heisenberg_dsp.h) */
        latmc_philox_ctr x[HEISENBERG_W / 2];
        for (int v = 0; v < 2; v++)
            for (int i = 0; i < HEISENBERG_W / 4; i++)
                x[v * (HEISENBERG_W / 4) + i] = latmc_rng_name_counter(
                    p->name, (uint64_t)(j0[k + v] + p->s->j_origin) / 4 + (uint64_t)i);
        hu cos_draws[2], phi_draws[2];
        heisenberg_draws(p->keys, x, p->c3_phi, cos_draws, phi_draws);
        for (int v = 0; v < 2; v++) {
            u_cos[k + v] = heisenberg_uniform(cos_draws[v]);
            u_phi[k + v] = heisenberg_uniform(phi_draws[v]);
        }
    }
}

/* The update of HEISENBERG_V vectors (fields f, old spins s, numbers j0) into out: heat bath
 * or overrelaxation (the flat walk's groups; rows run heatbath_rows, overrelax_rows). */
static inline __attribute__((always_inline)) void update_vecs(const struct heisenberg_pass *p,
                                                              const int64_t j0[HEISENBERG_V],
                                                              const hv f[HEISENBERG_V][3],
                                                              const hv s[HEISENBERG_V][3],
                                                              hv out[HEISENBERG_V][3])
{
    if (!p->heatbath) {
        heisenberg_overrelax(f, s, out);
        return;
    }
    hv u_cos[HEISENBERG_V], u_phi[HEISENBERG_V];
    heatbath_uniforms(p, j0, u_cos, u_phi);
    for (int k = 0; k < HEISENBERG_V; k += 2)
        heisenberg_heatbath_pair(&f[k], p->beta, &u_cos[k], &u_phi[k], &out[k]);
}

/* The fields of chunk m0 of a row: HEISENBERG_V vectors of W sites from m0 (those past the row's
 * end are zeros, computed but never stored). */
static inline __attribute__((always_inline)) void
row_chunk(const struct heisenberg_row *r, int64_t row, int64_t m0, int64_t j0[HEISENBERG_V],
          hv f[HEISENBERG_V][3], hv sp[HEISENBERG_V][3])
{
    HEISENBERG_EACH
    {
        const int64_t m = m0 + HEISENBERG_W * k;
        j0[k] = row * r->n + (m < r->n ? m : m0);
        if (m < r->n) {
            heisenberg_row_field(r, m, f[k], sp[k]);
        } else {
            f[k][0] = f[k][1] = f[k][2] = sp[k][0] = sp[k][1] = sp[k][2] = hv_zero();
        }
    }
}

/*
 * Overrelaxation on rows when every vector lies in one (L_x / 2 a multiple of W), as a
 * software pipeline of four stages over the vectors of a run of rows. One reflection is a
 * dependent chain of ~110 cycles (the field's 6 FMAs per component, then H.H and 2 (H.s)
 * through the division, v and v.v, the square root, the division 1 / sqrt(v.v), the
 * products and the rounding to float), longer than the core's window holds of other work.
 * So the chain is cut into four stages of 20-40 cycles, and step t of the loop issues
 * stage 1 of vector t, stage 2 of t - 1, stage 3 of t - 2 and stage 4 of t - 3: every
 * stage but the first finds its inputs ready, and the core's window (~115 instructions a
 * vector) holds work of four vectors that can issue. The stages' values pass in local
 * variables (registers where they fit: a ring of slots in memory, indexed by t, was
 * slower; five stages, the division apart from v, no faster; on EPYC 2, 64^3, 5 % less
 * CPU than the two halves three vectors apart). The pipeline runs across the rows and replicas of a call,
 * drained at its end. Stage 4 of vector t - 3 stores spins that none of the younger
 * vectors' stages read (the other colour's spins, the couplings, their own spins). The
 * stages are the same IEEE operations in the same order as the reference
 * (heisenberg_reflect_begin, heisenberg_reflect_end).
 */
struct heisenberg_or_pipe {
    hv f1[3];               /* after stage 1: the field */
    hv v2[3], vv2, hh2;     /* after stage 2: v, v.v, H.H */
    hv v3[3], root3, hh3;   /* after stage 3: v, sqrt(v.v), H.H */
    double *own1, *own2, *own3; /* the vectors' own spins: component k at own[k n] */
};

/* Stage 4 of the vector after stage 3: 1 / sqrt(v.v), the new spin rounded to float (the
 * old one where H.H = 0), stored. */
static inline __attribute__((always_inline)) void
overrelax_stage4(const struct heisenberg_or_pipe *q, int64_t n)
{
    hv out[3];
    heisenberg_reflect_end_sqrt(q->v3, q->root3, out);
    const hm keep = heisenberg_reflect_keep(q->hh3);
    if (hm_any(keep)) { /* a zero field: rare */
        out[0] = heisenberg_sel(keep, hv_load(q->own3), out[0]);
        out[1] = heisenberg_sel(keep, hv_load(q->own3 + n), out[1]);
        out[2] = heisenberg_sel(keep, hv_load(q->own3 + 2 * n), out[2]);
    }
    hv_store(q->own3, out[0]);
    hv_store(q->own3 + n, out[1]);
    hv_store(q->own3 + 2 * n, out[2]);
}

/* Stage 3: sqrt(v.v) of the vector after stage 2, which moves on. */
static inline __attribute__((always_inline)) void overrelax_stage3(struct heisenberg_or_pipe *q)
{
    q->root3 = hv_sqrt(q->vv2);
    q->v3[0] = q->v2[0];
    q->v3[1] = q->v2[1];
    q->v3[2] = q->v2[2];
    q->hh3 = q->hh2;
    q->own3 = q->own2;
}

/* Stage 2: the old spin, v = 2 (H.s)/(H.H) H - s, v.v and H.H of the vector after stage 1. */
static inline __attribute__((always_inline)) void overrelax_stage2(struct heisenberg_or_pipe *q,
                                                                   int64_t n)
{
    const hv s[3] = { hv_load(q->own1), hv_load(q->own1 + n), hv_load(q->own1 + 2 * n) };
    heisenberg_reflect_begin(q->f1, s, q->v2, &q->vv2, &q->hh2);
    q->own2 = q->own1;
}

/* Step t: stages 4, 3, 2 of vectors t - 3, t - 2, t - 1 where they are among the `pushed`
 * vectors, then (t < pushed) stage 1 of vector t: its field f, own spins at own. */
static inline __attribute__((always_inline)) void overrelax_step(struct heisenberg_or_pipe *q,
                                                                 uint64_t t, uint64_t pushed,
                                                                 const hv f[3], double *own,
                                                                 int64_t n)
{
    if (t >= 3 && t - 3 < pushed)
        overrelax_stage4(q, n);
    if (t >= 2 && t - 2 < pushed)
        overrelax_stage3(q);
    if (t >= 1 && t - 1 < pushed)
        overrelax_stage2(q, n);
    if (t < pushed) {
        q->f1[0] = f[0];
        q->f1[1] = f[1];
        q->f1[2] = f[2];
        q->own1 = own;
    }
}

/* Vector t of the pipeline: its field f, own spins at own. */
static inline __attribute__((always_inline)) void overrelax_push(struct heisenberg_or_pipe *q,
                                                                 uint64_t t, const hv f[3],
                                                                 double *own, int64_t n)
{
    overrelax_step(q, t, UINT64_MAX, f, own, n);
}

/* The pointers of a vector in a row's interior (no x neighbour across the row's ends),
 * advanced by W from vector to vector: the other colour's spins of its forward x
 * neighbours (the backward ones one place before) and of the rows y +- 1, z +- 1, its
 * couplings and those of its backward neighbours, its own spins. Component or direction
 * k at offset k n. */
struct heisenberg_cursor {
    const double *xf, *yf, *yb, *zf, *zb; /* x backward: xf - 1 */
    const float *j, *jx, *jy, *jz;
    double *own;
};

static inline __attribute__((always_inline)) void
heisenberg_cursor_at(const struct heisenberg_row *r, int64_t m, struct heisenberg_cursor *c)
{
    c->xf = r->sx + m + r->q;
    c->yf = r->syf + m;
    c->yb = r->syb + m;
    c->zf = r->szf + m;
    c->zb = r->szb + m;
    c->j = r->j + m;
    c->jx = r->jbx + m - 1 + r->q;
    c->jy = r->jby + m;
    c->jz = r->jbz + m;
    c->own = r->own + m;
}

static inline __attribute__((always_inline)) void
heisenberg_cursor_next(struct heisenberg_cursor *c)
{
    c->xf += HEISENBERG_W;
    c->yf += HEISENBERG_W;
    c->yb += HEISENBERG_W;
    c->zf += HEISENBERG_W;
    c->zb += HEISENBERG_W;
    c->j += HEISENBERG_W;
    c->jx += HEISENBERG_W;
    c->jy += HEISENBERG_W;
    c->jz += HEISENBERG_W;
    c->own += HEISENBERG_W;
}

/* heisenberg_row_field's field for an interior vector, through its cursor. */
static inline __attribute__((always_inline)) void
heisenberg_cursor_field(const struct heisenberg_cursor *c, int64_t n, bool three, hv h, hv f[3])
{
    f[0] = f[1] = f[2] = hv_zero();
    HEISENBERG_TERMS(f, hv_load_f(c->j), hv_load_f(c->jx), c->xf, 0, c->xf, -1, n);
    HEISENBERG_TERMS(f, hv_load_f(c->j + n), hv_load_f(c->jy), c->yf, 0, c->yb, 0, n);
    if (three)
        HEISENBERG_TERMS(f, hv_load_f(c->j + 2 * n), hv_load_f(c->jz), c->zf, 0, c->zb, 0, n);
    f[2] = hv_add(f[2], h);
}

/* Overrelaxation of rows [row0, row1) (y = row mod L_y, z = row / L_y: L_z = 1 in 2D),
 * each row of every replica in turn (the couplings they share are loaded once). A row's
 * first and last vectors (whose x neighbours may wrap) go through heisenberg_row_field, the
 * others through a cursor. */
static void overrelax_rows(const struct heisenberg_pass *p, int replicas, int64_t row0,
                           int64_t row1)
{
    const int64_t ly = p->g->ly, n = p->n;
    const bool three = p->g->ndim == 3;
    const hv h = hv_set1(p->h);
    int64_t y = row0 % ly, z = row0 / ly;
    struct heisenberg_or_pipe q = {
        .own1 = NULL
    }; /* (zeros: the stages before the first vectors are skipped) */
    uint64_t t = 0;
    for (int64_t row = row0; row < row1; row++) {
        for (int rep = 0; rep < replicas; rep++) {
            struct heisenberg_row r;
            heisenberg_row_of(&p[rep], row, y, z, &r);
            hv f[3], sp[3];
            heisenberg_row_field(&r, 0, f, sp);
            overrelax_push(&q, t++, f, r.own, n);
            if (n == HEISENBERG_W)
                continue;
            struct heisenberg_cursor c;
            heisenberg_cursor_at(&r, HEISENBERG_W, &c);
            for (int64_t m = HEISENBERG_W; m < n - HEISENBERG_W; m += HEISENBERG_W) {
                heisenberg_cursor_field(&c, n, three, h, f);
                overrelax_push(&q, t++, f, c.own, n);
                heisenberg_cursor_next(&c);
            }
            heisenberg_row_field(&r, n - HEISENBERG_W, f, sp);
            overrelax_push(&q, t++, f, r.own + n - HEISENBERG_W, n);
        }
        if (++y == ly) {
            y = 0;
            z++;
        }
    }
    for (uint64_t u = t; u < t + 3; u++) { /* the drain */
        const hv none[3] = { hv_zero(), hv_zero(), hv_zero() };
        overrelax_step(&q, u, t, none, NULL, n);
    }
}

/*
 * The heat bath on rows when every vector lies in one, as a software pipeline of chunks
 * of HEISENBERG_V vectors across the rows and replicas of a call, like overrelax_rows: step c
 * gathers chunk c's fields and draws and takes them to cos theta
 * (heisenberg_heatbath_pair_begin: the field's length and direction, the exponential and the
 * logarithm), then finishes chunk c - 1 (heisenberg_heatbath_spin: the azimuth's sine and
 * cosine, the frame, the normalisation, the stores), whose inputs are ready by then.
 * Chunk c - 1's stores touch none of chunk c's inputs.
 */
struct heisenberg_hb_slot {
    hv nv[HEISENBERG_V][3], x[HEISENBERG_V], u_phi[HEISENBERG_V];
    double *own; /* the row's own spins: component k of site m at own[k n + m] */
    int64_t m0;
};

static inline __attribute__((always_inline)) void heatbath_begin(const struct heisenberg_pass *p,
                                                                 const struct heisenberg_row *r,
                                                                 int64_t row, int64_t m0,
                                                                 struct heisenberg_hb_slot *a)
{
    int64_t j0[HEISENBERG_V];
    hv f[HEISENBERG_V][3], sp[HEISENBERG_V][3], u_cos[HEISENBERG_V];
    row_chunk(r, row, m0, j0, f, sp);
    heatbath_uniforms(p, j0, u_cos, a->u_phi);
    for (int k = 0; k < HEISENBERG_V; k += 2)
        heisenberg_heatbath_pair_begin((const hv(*)[3])&f[k], p->beta, &u_cos[k], &a->nv[k],
                                 &a->x[k]);
    a->own = r->own;
    a->m0 = m0;
}

static inline __attribute__((always_inline)) void heatbath_end(const struct heisenberg_hb_slot *a,
                                                               int64_t n)
{
    for (int k = 0; k < HEISENBERG_V; k++) {
        const int64_t m = a->m0 + HEISENBERG_W * k;
        if (m >= n)
            break;
        hv out[3];
        heisenberg_heatbath_spin(a->nv[k], a->x[k], a->u_phi[k], out);
        hv_store(a->own + m, out[0]);
        hv_store(a->own + n + m, out[1]);
        hv_store(a->own + 2 * n + m, out[2]);
    }
}

/* The heat bath on rows [row0, row1) (y = row mod L_y, z = row / L_y: L_z = 1 in 2D), each
 * row of every replica in turn (the couplings they share are loaded once). */
static void heatbath_rows(const struct heisenberg_pass *p, int replicas, int64_t row0, int64_t row1)
{
    const int64_t ly = p->g->ly, n = p->n;
    int64_t y = row0 % ly, z = row0 / ly;
    struct heisenberg_hb_slot slot[2];
    int cur = 0;
    bool pending = false;
    for (int64_t row = row0; row < row1; row++) {
        for (int rep = 0; rep < replicas; rep++) {
            struct heisenberg_row r;
            heisenberg_row_of(&p[rep], row, y, z, &r);
            for (int64_t m0 = 0; m0 < n; m0 += HEISENBERG_W * HEISENBERG_V) {
                heatbath_begin(&p[rep], &r, row, m0, &slot[cur]);
                if (pending)
                    heatbath_end(&slot[cur ^ 1], n);
                pending = true;
                cur ^= 1;
            }
        }
        if (++y == ly) {
            y = 0;
            z++;
        }
    }
    if (pending)
        heatbath_end(&slot[cur ^ 1], n);
}

/* Rows [row0, row1) by the passes' update. */
static void update_rows(const struct heisenberg_pass *p, int replicas, int64_t row0, int64_t row1)
{
    if (p[0].heatbath)
        heatbath_rows(p, replicas, row0, row1);
    else
        overrelax_rows(p, replicas, row0, row1);
}

/*
 * Group grp of the flat numbering (L_x / 2 not a multiple of W): vectors
 * j0 = W (HEISENBERG_V grp + k), of which the sites with numbers in [jlo, jhi) are updated (a
 * whole colour: [0, N / 2); a box: its rows' numbers). A vector whose four sites are all
 * in the range and in one row loads as a row's vectors do, the others lane by lane.
 */
static inline void update_group_range(const struct heisenberg_pass *p, int64_t grp, int64_t jlo,
                                      int64_t jhi)
{
    const struct cpu_heisenberg_soa *s = p->s;
    const int c = p->colour;
    int64_t j0[HEISENBERG_V];
    int lane0[HEISENBERG_V], nvalid[HEISENBERG_V];
    bool contiguous[HEISENBERG_V];
    struct heisenberg_row r[HEISENBERG_V];
    hv f[HEISENBERG_V][3], sp[HEISENBERG_V][3], out[HEISENBERG_V][3];
    for (int k = 0; k < HEISENBERG_V; k++) {
        j0[k] = HEISENBERG_W * (HEISENBERG_V * grp + k);
        const int64_t left = jhi - j0[k];
        nvalid[k] = left >= HEISENBERG_W ? HEISENBERG_W
                    : left > 0           ? (int)left
                                         : 0; /* lanes below nvalid */
        lane0[k] = jlo > j0[k] ? (int)(jlo - j0[k] < HEISENBERG_W ? jlo - j0[k] : HEISENBERG_W)
                               : 0; /* from */
        const int64_t row = j0[k] / p->n, m = j0[k] - row * p->n;
        contiguous[k] = lane0[k] == 0 && nvalid[k] == HEISENBERG_W && m + HEISENBERG_W <= p->n;
        if (contiguous[k]) {
            heisenberg_row_of(p, row, row % p->g->ly, row / p->g->ly, &r[k]);
            heisenberg_row_field(&r[k], m, f[k], sp[k]);
            continue;
        }
        double fl[3][HEISENBERG_W] = { { 0 } }, sl[3][HEISENBERG_W] = { { 0 } };
        for (int lane = lane0[k]; lane < nvalid[k]; lane++) {
            double field[3];
            field_one(p, j0[k] + lane, field);
            for (int kk = 0; kk < 3; kk++) {
                fl[kk][lane] = field[kk];
                sl[kk][lane] =
                    s->spin[p->replica][c][cpu_heisenberg_soa_index(s, j0[k] + lane, kk)];
            }
        }
        for (int kk = 0; kk < 3; kk++) {
            f[k][kk] = hv_load(fl[kk]);
            sp[k][kk] = hv_load(sl[kk]);
        }
    }
    update_vecs(p, j0, f, sp, out);
    for (int k = 0; k < HEISENBERG_V; k++) {
        if (contiguous[k]) {
            heisenberg_row_store(&r[k], j0[k] - (j0[k] / p->n) * p->n, out[k]);
            continue;
        }
        double o[3][HEISENBERG_W];
        for (int kk = 0; kk < 3; kk++)
            hv_store(o[kk], out[k][kk]);
        for (int lane = lane0[k]; lane < nvalid[k]; lane++)
            for (int kk = 0; kk < 3; kk++)
                s->spin[p->replica][c][cpu_heisenberg_soa_index(s, j0[k] + lane, kk)] = o[kk][lane];
    }
}

/* ---------------------------------------------------------------------------------- */

/*
 * One step of the plan on boxes for every replica (cpu_heisenberg_step_boxes_at): the
 * colour's sites of each box, by rows (L_x / 2 a multiple of W) or by the groups of the
 * flat numbering that meet the box's numbers (a group across two boxes is visited by both,
 * each updating its own sites). The replicas' rows (groups) are updated one after the
 * other, so that the couplings they share are loaded once per step from far memory. Threads:
 * one team for the step; each box's items are split among it, no barrier between boxes (a
 * step writes one colour and reads the other; the replicas share only the couplings).
 */
static inline void box_group(const struct heisenberg_pass *p, int replicas, int64_t item,
                             int64_t jlo, int64_t jhi)
{
    for (int r = 0; r < replicas; r++)
        update_group_range(&p[r], item, jlo, jhi);
}

/* The passes of colour `colour` of every replica, the step's draws `name` (replica 0,
 * sub 0): each replica's stream, and word 3 of its sub 1 once per pass, not per group. */
static void passes_setup(struct heisenberg_pass p[2], const struct latmc_lattice *g,
                         struct cpu_heisenberg_soa *s, int replicas,
                         const struct latmc_heisenberg_params *prm, bool heatbath, int colour,
                         const struct heisenberg_keys *keys, struct latmc_rng_name name)
{
    for (int r = 0; r < replicas; r++)
        p[r] = (struct heisenberg_pass){
            .g = g,
            .s = s,
            .replica = r,
            .colour = colour,
            .beta = prm->beta,
            .h = prm->h,
            .heatbath = heatbath,
            .keys = keys,
            .name = latmc_rng_name_replica(name, (uint32_t)r),
            .c3_phi = latmc_rng_name_sub(latmc_rng_name_replica(name, (uint32_t)r), 1).c3,
            .n = g->lx / 2,
        };
}

static uint64_t step_boxes_simd(const struct latmc_lattice *g,
                                const struct cpu_heisenberg_fields *f, int replicas,
                                const struct latmc_heisenberg_params *prm, bool heatbath,
                                int colour, uint64_t seed, struct latmc_rng_name name,
                                const struct latmc_box *boxes, int n_boxes,
                                const struct cpu_team *team)
{
    struct cpu_heisenberg_soa *s = f->soa;
    struct heisenberg_keys keys;
    heisenberg_keys_init(&keys, seed);
    const bool by_rows = (g->lx / 2) % HEISENBERG_W == 0;
    const int64_t n = g->lx / 2, rpp = cpu_heisenberg_rows_per_plane(g);
    const int64_t per_group = HEISENBERG_W * HEISENBERG_V;
    struct heisenberg_pass p[2];
    passes_setup(p, g, s, replicas, prm, heatbath, colour, &keys, name);
    uint64_t updates = 0;
    for (int i = 0; i < n_boxes; i++)
        updates += (uint64_t)(boxes[i].extent[boxes[i].axis] * rpp * n);
    if (team->size == 1) {
        for (int i = 0; i < n_boxes; i++) {
            const int64_t r0 = boxes[i].origin[boxes[i].axis] * rpp;
            const int64_t r1 = r0 + boxes[i].extent[boxes[i].axis] * rpp;
            const int64_t jlo = r0 * n, jhi = r1 * n;
            if (by_rows) {
                update_rows(p, replicas, r0, r1);
                continue;
            }
            const int64_t first = jlo / per_group, last = (jhi + per_group - 1) / per_group;
            for (int64_t item = first; item < last; item++)
                box_group(p, replicas, item, jlo, jhi);
        }
        return heatbath ? updates * (uint64_t)replicas : 0;
    }
    /* in the team's region (cpu_omp.h): the loops bind to it */
    for (int i = 0; i < n_boxes; i++) {
        const int64_t r0 = boxes[i].origin[boxes[i].axis] * rpp;
        const int64_t r1 = r0 + boxes[i].extent[boxes[i].axis] * rpp;
        const int64_t jlo = r0 * n, jhi = r1 * n;
        if (by_rows) { /* the member's consecutive rows, one pipeline */
            int64_t u0, u1;
            cpu_team_share(team, r1 - r0, &u0, &u1);
            update_rows(p, replicas, r0 + u0, r0 + u1);
            continue;
        }
        const int64_t first = jlo / per_group, last = (jhi + per_group - 1) / per_group;
        LATMC_OMP(for schedule(static) nowait)
        for (int64_t item = first; item < last; item++)
            box_group(p, replicas, item, jlo, jhi);
    }
    return heatbath ? updates * (uint64_t)replicas : 0;
}

/* ---- a fused pair: both colours of a pass in one wavefront over the planes ---- */

/*
 * Why the fused pair is the chain bit for bit. A pass is colour c on every site, then
 * colour c' = 1 - c on every site. A site reads only sites of the other colour, in its own
 * plane and the planes directly below and above it along the cut axis (planes z in 3D,
 * rows y in 2D; nearest neighbours). In the plain order every c site sees its neighbours'
 * c' values from before the pass and every c' site the c values after the pass's colour
 * c. The wavefront over a band of consecutive planes [a, b) updates colour c on plane z,
 * then colour c' on plane z - 1 when z - 1 > a:
 *  (1) when c' of plane q (a < q < b - 1) is updated, c of q - 1, q and q + 1 is done:
 *      they lie in the band and were taken in increasing order up to q + 1;
 *  (2) when c of plane z is updated, c' of z - 1, z and z + 1 is not: c' is only updated
 *      on planes a < q <= z - 2 of the band, and on no plane outside it before the
 *      barrier below (the neighbouring bands' own c' planes are never neighbours of this
 *      band's planes: those are the bands' first and last planes, left for later).
 * The first and last planes of a band read c on the neighbouring bands' planes (plane 0
 * reads plane L - 1 across the periodic wrap), so their c' comes after every band's
 * colour c: after the team's barrier, or for a box's own first and last planes in the
 * PAIR_BORDER part, after the core's halo exchange. So every site sees exactly the values
 * of the plain order. The updates of one colour commute (no two of them interact;
 * overrelaxation is deterministic and the heat bath's draws are named by (sweep, colour,
 * site), never by position in time or thread), so the configuration after the pair is
 * that of the two WHOLE steps, bit for bit, for any team size and cut into boxes.
 * Memory: a pass streams every array once instead of twice (the c' sites of plane z - 1
 * and their couplings are still in the cache from plane z's colour c).
 */

/* The passes of both colours of a pair (every replica), rows per plane, and whether the
 * replicas run their wavefronts one after the other (apart) or row by row together. */
struct heisenberg_pair {
    struct heisenberg_pass first[2], second[2];
    int replicas;
    int64_t rpp;
    bool apart;
};

/*
 * Apart where the replicas' planes in use together would outgrow a 512 KiB L2 (the
 * wavefront keeps about three planes of each colour's spins, 24 bytes a site, and five
 * half-planes of couplings, 12 bytes a site, the replicas sharing the couplings), so
 * that each replica's wavefront stays in it; the couplings then stream once per replica.
 * The replicas share nothing else (their own spins and streams), so their order is free.
 */
static bool pair_apart(const struct latmc_lattice *g, int replicas)
{
    const int64_t plane = g->lx * cpu_heisenberg_rows_per_plane(g);
    return replicas > 1 && plane * (72 * replicas + 30) > 512 * 1024;
}

/* One colour (passes p of nrep replicas) on plane z: its rows, each replica in turn (a
 * plane is the rows y of one z in 3D, row y = z in 2D: no divisions per row). */
static void plane_colour_n(const struct heisenberg_pair *w, const struct heisenberg_pass *p,
                           int nrep, int64_t z)
{
    update_rows(p, nrep, z * w->rpp, (z + 1) * w->rpp);
}

static void plane_colour(const struct heisenberg_pair *w, const struct heisenberg_pass *p,
                         int64_t z)
{
    plane_colour_n(w, p, w->replicas, z);
}

/* The wavefront over band [a, b): colour c on every plane, c' on all but a and b - 1;
 * every replica's (apart: one replica after the other). */
static void wave_band(const struct heisenberg_pair *w, int64_t a, int64_t b)
{
    const int runs = w->apart ? w->replicas : 1, nrep = w->apart ? 1 : w->replicas;
    for (int r = 0; r < runs; r++)
        for (int64_t z = a; z < b; z++) {
            plane_colour_n(w, &w->first[r], nrep, z);
            if (z - 1 > a)
                plane_colour_n(w, &w->second[r], nrep, z - 1);
        }
}

static int64_t box_lo(const struct latmc_box *box)
{
    return box->origin[box->axis];
}

static int64_t box_hi(const struct latmc_box *box)
{
    return box->origin[box->axis] + box->extent[box->axis];
}

/* Member `team`'s band of the boxes' planes, taken box after box, cut at the boxes' ends:
 * piece [*a, *b) in box i (empty when *a >= *b). */
static void band_piece(const struct latmc_box *boxes, int i, int64_t before, int64_t u0,
                       int64_t u1, int64_t *a, int64_t *b)
{
    const int64_t ext = box_hi(&boxes[i]) - box_lo(&boxes[i]);
    *a = box_lo(&boxes[i]) + (u0 > before ? u0 - before : 0);
    *b = box_lo(&boxes[i]) + (u1 - before < ext ? u1 - before : ext);
}

/*
 * A PAIR part (lib/box.h) of steps (colour, 1 - colour) of one pass on the boxes, for
 * every replica, L_x / 2 a multiple of W (rows: the pair's step_caps, dsp.row_lanes): INTERIOR is colour
 * c on every plane of the boxes and c' on all but each box's first and last, BORDER c' on
 * those, WHOLE both. The team takes bands of consecutive planes of all the boxes at once
 * (a box never writes what another box reads in a part); a band's own first and last
 * planes wait for the one barrier. Returns the part's heat-bath updates (all members').
 */
static uint64_t pair_boxes_simd(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                                int replicas, const struct latmc_heisenberg_params *prm,
                                bool heatbath, int colour, int part, uint64_t seed,
                                const struct latmc_rng_name names[2],
                                const struct latmc_box *boxes, int n_boxes,
                                const struct cpu_team *team)
{
    struct heisenberg_keys keys;
    heisenberg_keys_init(&keys, seed);
    struct heisenberg_pair w;
    w.replicas = replicas;
    w.rpp = cpu_heisenberg_rows_per_plane(g);
    w.apart = pair_apart(g, replicas);
    passes_setup(w.first, g, s, replicas, prm, heatbath, colour, &keys, names[0]);
    passes_setup(w.second, g, s, replicas, prm, heatbath, 1 - colour, &keys, names[1]);
    const int64_t half_plane = w.rpp * (g->lx / 2);
    const uint64_t per_plane = heatbath ? (uint64_t)(half_plane * replicas) : 0;
    if (part == LATMC_STEP_PAIR_BORDER) { /* every box has at least 2 planes */
        int64_t u0, u1;
        cpu_team_share(team, 2 * (int64_t)n_boxes, &u0, &u1);
        for (int64_t u = u0; u < u1; u++)
            plane_colour(&w, w.second, u % 2 ? box_hi(&boxes[u / 2]) - 1 : box_lo(&boxes[u / 2]));
        return per_plane * 2 * (uint64_t)n_boxes;
    }
    const bool whole = part == LATMC_STEP_PAIR_WHOLE;
    int64_t planes = 0;
    for (int i = 0; i < n_boxes; i++)
        planes += box_hi(&boxes[i]) - box_lo(&boxes[i]);
    int64_t u0, u1;
    cpu_team_share(team, planes, &u0, &u1);
    for (int64_t i = 0, before = 0; i < n_boxes;
         before += box_hi(&boxes[i]) - box_lo(&boxes[i]), i++) {
        int64_t a, b;
        band_piece(boxes, (int)i, before, u0, u1, &a, &b);
        if (a < b)
            wave_band(&w, a, b);
    }
    cpu_team_barrier(team);
    for (int64_t i = 0, before = 0; i < n_boxes;
         before += box_hi(&boxes[i]) - box_lo(&boxes[i]), i++) {
        int64_t a, b;
        band_piece(boxes, (int)i, before, u0, u1, &a, &b);
        /* the band's ends, but for its box's own first and last planes (unless whole) */
        const int64_t first = whole ? -1 : box_lo(&boxes[i]);
        const int64_t last = whole ? -1 : box_hi(&boxes[i]) - 1;
        if (a < b && a != first && a != last)
            plane_colour(&w, w.second, a);
        if (b - 1 > a && b - 1 != last)
            plane_colour(&w, w.second, b - 1);
    }
    return per_plane * (uint64_t)(2 * planes - (whole ? 0 : 2 * (int64_t)n_boxes));
}


/* ---- fused overrelaxation passes: a temporal wavefront over the planes ---- */

/*
 * K overrelaxation passes in one walk over the planes (along the cut axis), so that a
 * window of about 2K + 2 planes stays in the cache while every site takes its K updates.
 * Why it is the chain bit for bit. Number the half-passes h = 0 .. 2K - 1 (pass h / 2,
 * colour c_h = colour for even h, 1 - colour for odd h). Half-pass h on plane q writes
 * colour c_h of q and reads colour 1 - c_h of planes q - 1, q, q + 1 (nearest neighbours).
 * In the plain order it reads the values half-pass h - 1 left there, and it overwrites the
 * values of c_h that half-pass h - 1 read on q - 1, q, q + 1. So the one rule is: (h, q)
 * comes after (h - 1, q - 1), (h - 1, q) and (h - 1, q + 1) (overrelaxation draws nothing:
 * the values are all an update depends on). Any order that keeps it computes the plain
 * chain's values, for every site and half-pass.
 *  (1) The wavefront: at time t, half-passes h = 0, 1, ... on plane t - h. (h - 1, q + 1)
 *      is at the same time, earlier in h; (h - 1, q) one time before, (h - 1, q - 1) two.
 *  (2) Bands: member i of the team takes planes [a, b) and does (h, q) for
 *      a + h <= q < b - h only (a trapezoid, in the wavefront's order). Its reads of
 *      another band's planes are plane a - 1 (and b) at h = 0, colour 1 - c_0, which the
 *      neighbours only write at h >= 1, on planes up to a - 2 (from b + 1): none. So the
 *      bands run without waiting for each other.
 *  (3) After one barrier, the seams: at each band start B (plane 0 meeting plane P - 1
 *      across the periodic wrap, for member 0), the half-passes the trapezoids left,
 *      (h, q) for B - h <= q < B + h, in the wavefront's order. Their reads at h - 1 lie
 *      in [B - h - 1, B + h]: in the seam, or done in (2) when the bands are at least 2h
 *      planes wide. Seams touch planes [B - 2K, B + 2K - 1] only: disjoint from every other
 *      seam when every band holds at least 4K planes (so no seam writes what another
 *      reads). With one member the single seam is the wrap, so no plane's old values need
 *      be kept aside for the last planes.
 * K = 1 is the pair (pair_boxes_simd) with its bands' ends done after the barrier.
 * Memory: the trapezoid's wavefront touches planes t - 2K .. t + 1, each array once per
 * K passes instead of once per pass; the seams (4K planes a member) come from farther.
 */
struct heisenberg_fused {
    struct heisenberg_pass pass[2][2]; /* [h mod 2][replica] */
    int64_t rpp, planes, halves;
};

static void fused_half(const struct heisenberg_fused *w, int r, int64_t h, int64_t q)
{
    q %= w->planes;
    if (q < 0)
        q += w->planes;
    update_rows(&w->pass[h & 1][r], 1, q * w->rpp, (q + 1) * w->rpp);
}

/* (2): the trapezoid of band [a, b), replica r, in the wavefront's order. */
static void fused_band(const struct heisenberg_fused *w, int r, int64_t a, int64_t b)
{
    const int64_t H = w->halves;
    for (int64_t t = a; t < b + H - 1; t++)
        for (int64_t h = 0; h < H; h++) {
            const int64_t q = t - h;
            if (q >= a + h && q < b - h)
                fused_half(w, r, h, q);
        }
}

/* (3): the seam at plane B, replica r: (h, q) with B - h <= q < B + h, so t = q + h in
 * [B, B + 2H). */
static void fused_seam(const struct heisenberg_fused *w, int r, int64_t B)
{
    const int64_t H = w->halves;
    for (int64_t t = B; t < B + 2 * H; t++)
        for (int64_t h = 1; h < H; h++) {
            const int64_t q = t - h;
            if (q >= B - h && q < B + h)
                fused_half(w, r, h, q);
        }
}

/*
 * `passes` overrelaxation passes (colour `colour` first in each) of every replica on the
 * whole lattice, SoA layout, L_x / 2 a multiple of W; every member's band at least
 * 4 passes planes (cpu_heisenberg_fused_passes). The replicas one after the other.
 */
static void or_passes_simd(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                           int replicas, const struct latmc_heisenberg_params *prm, int colour,
                           int passes, const struct cpu_team *team)
{
    struct heisenberg_fused w;
    const struct latmc_rng_name none = { 0 }; /* overrelaxation draws nothing */
    passes_setup(w.pass[0], g, s, replicas, prm, false, colour, NULL, none);
    passes_setup(w.pass[1], g, s, replicas, prm, false, 1 - colour, NULL, none);
    w.rpp = cpu_heisenberg_rows_per_plane(g);
    w.planes = cpu_heisenberg_planes(g);
    w.halves = 2 * (int64_t)passes;
    int64_t a, b;
    cpu_team_share(team, w.planes, &a, &b);
    for (int r = 0; r < replicas; r++)
        fused_band(&w, r, a, b);
    cpu_team_barrier(team);
    for (int r = 0; r < replicas; r++)
        fused_seam(&w, r, a);
}

/* The level's table entries. */
void HEISENBERG_DSP_INIT(struct cpu_heisenberg_dsp *dsp)
{
    dsp->level = HEISENBERG_LEVEL;
    dsp->soa = true;
    dsp->step = step_boxes_simd;
    dsp->pair_soa = pair_boxes_simd;
    dsp->or_passes_soa = or_passes_simd;
    dsp->row_lanes = HEISENBERG_W;
}
