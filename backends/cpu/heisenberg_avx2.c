/*
 * Heisenberg spin glass with AVX2: the chain of doc/models/heisenberg.md, bit for bit, on
 * the SoA layout of heisenberg_dsp.h, four sites (one __m256d) per vector.
 *
 * Work unit: HEIS_V vectors of four sites of one colour whose numbers j are
 * consecutive and start at a multiple of 4 (the heat bath's draws of four such sites are
 * one Philox block per sub -- cos theta, azimuth -- so two vectors' draws are one set of
 * the four-lane Philox, philox_lanes_avx2.h). When L_x / 2 is a multiple of 4 every vector
 * lies in one row and the pass walks row by row: per row one pointer per neighbouring row
 * reaches all three components, and the local field of a vector is summed, in the
 * reference's order (x, y, z; forward then backward; h last), from contiguous loads.
 * Otherwise the pass walks the flat numbering, and vectors that straddle rows gather
 * their fields lane by lane. Then the HEIS_V vectors run the update step by step together
 * (overrelaxation is ~100 cycles of dependent arithmetic per site; the interleaved chains
 * keep the core busy), and the results are rounded to float and stored as doubles.
 *
 * Threads: one parallel region per sweep; each colour is a static loop over rows (or
 * groups) with a barrier after it; draws are named by (sweep, colour, j), never by thread.
 */
#include <immintrin.h>

#include "cpu_omp.h"
#include "heisenberg_dsp.h"
#include "heisenberg_rules_avx2.h"
#include "philox_lanes_avx2.h"
#include "rng_streams.h"

struct heis_pass {
    const struct latmc_lattice *g;
    struct cpu_heisenberg_soa *s;
    int replica, colour;
    double beta, h;
    bool heatbath;
    const struct latmc_philox_x4_keys *keys;
    struct latmc_rng_name name; /* the step's draws in this replica's stream (sub 0) */
    uint32_t c3_phi;            /* counter word 3 of its sub 1 (the azimuth) */
    int64_t n; /* L_x / 2: sites of one colour per row */
};

static inline __m256d load4(const double *p)
{
    return _mm256_loadu_pd(p);
}

/* Where the field of a row's vectors comes from: the row bases (component or direction
 * k at offset k n) of the other colour's spins in the rows x (its own), y +- 1, z +- 1,
 * of the couplings J_{i,mu} of the row's sites and J_{i-mu,mu} of their backward
 * neighbours (rows x, y - 1, z - 1), and of the row's own spins. */
struct heis_row {
    const double *sx, *syf, *syb, *szf, *szb;
    const double *j, *jbx, *jby, *jbz;
    double *own;
    int64_t n;
    int q; /* x mod 2 of the row's sites: forward x neighbour at m + q, backward m - 1 + q */
    bool three;
    double h;
};

static inline void heis_row_of(const struct heis_pass *p, int64_t row, int64_t y, int64_t z,
                               struct heis_row *r)
{
    const struct latmc_lattice *g = p->g;
    const struct cpu_heisenberg_soa *s = p->s;
    const int c = p->colour, oc = 1 - c;
    const int64_t n = p->n, ly = g->ly, lz = g->lz;
    const int64_t ryf = latmc_wrap_up(y, ly) + ly * z, ryb = latmc_wrap_down(y, ly) + ly * z;
    const int64_t rzf = y + ly * latmc_wrap_up(z, lz), rzb = y + ly * latmc_wrap_down(z, lz);
    const double *o = s->spin[p->replica][oc], *jo = s->coupling[oc];
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
 * components of neighbour rows sf, sb at offsets 0, n, 2n from (sf + af), (sb + ab). */
#define HEIS_TERMS(f, jf, jb, sf, af, sb, ab, n)                                                   \
    do {                                                                                           \
        f[0] = _mm256_add_pd(_mm256_add_pd(f[0], _mm256_mul_pd(jf, load4(sf + (af)))),             \
                             _mm256_mul_pd(jb, load4(sb + (ab))));                                 \
        f[1] = _mm256_add_pd(_mm256_add_pd(f[1], _mm256_mul_pd(jf, load4(sf + (n) + (af)))),       \
                             _mm256_mul_pd(jb, load4(sb + (n) + (ab))));                           \
        f[2] = _mm256_add_pd(_mm256_add_pd(f[2], _mm256_mul_pd(jf, load4(sf + 2 * (n) + (af)))),   \
                             _mm256_mul_pd(jb, load4(sb + 2 * (n) + (ab))));                       \
    } while (0)

/* The field and old spin of the row's sites m .. m+3 (m < n, m + 4 <= n). At the row's
 * ends one lane's x neighbour wraps to the other end: lane 3's forward (q = 1, m + 4 = n)
 * or lane 0's backward (q = 0, m = 0). */
static inline __attribute__((always_inline)) void heis_row_field(const struct heis_row *r,
                                                                 int64_t m, __m256d f[3],
                                                                 __m256d s[3])
{
    const int64_t n = r->n, fx = m + r->q, bx = m - 1 + r->q;
    f[0] = f[1] = f[2] = _mm256_setzero_pd();
    if ((r->q == 1 && m + 4 == n) || (r->q == 0 && m == 0)) {
        __m256d jb = load4(r->jbx + bx), a[3], b[3];
        for (int k = 0; k < 3; k++) {
            a[k] = load4(r->sx + k * n + fx);
            b[k] = load4(r->sx + k * n + bx);
        }
        if (r->q == 1) {
            for (int k = 0; k < 3; k++)
                a[k] = _mm256_blend_pd(a[k], _mm256_broadcast_sd(r->sx + k * n), 0x8);
        } else {
            jb = _mm256_blend_pd(jb, _mm256_broadcast_sd(r->jbx + n - 1), 0x1);
            for (int k = 0; k < 3; k++)
                b[k] = _mm256_blend_pd(b[k], _mm256_broadcast_sd(r->sx + k * n + n - 1), 0x1);
        }
        const __m256d jf = load4(r->j + m);
        for (int k = 0; k < 3; k++)
            f[k] = _mm256_add_pd(_mm256_add_pd(f[k], _mm256_mul_pd(jf, a[k])),
                                 _mm256_mul_pd(jb, b[k]));
    } else {
        HEIS_TERMS(f, load4(r->j + m), load4(r->jbx + bx), r->sx, fx, r->sx, bx, n);
    }
    HEIS_TERMS(f, load4(r->j + n + m), load4(r->jby + m), r->syf, m, r->syb, m, n);
    if (r->three)
        HEIS_TERMS(f, load4(r->j + 2 * n + m), load4(r->jbz + m), r->szf, m, r->szb, m, n);
    f[2] = _mm256_add_pd(f[2], _mm256_set1_pd(r->h));
    s[0] = load4(r->own + m);
    s[1] = load4(r->own + n + m);
    s[2] = load4(r->own + 2 * n + m);
}

static inline void heis_row_store(const struct heis_row *r, int64_t m, const __m256d out[3])
{
    _mm256_storeu_pd(r->own + m, out[0]);
    _mm256_storeu_pd(r->own + r->n + m, out[1]);
    _mm256_storeu_pd(r->own + 2 * r->n + m, out[2]);
}

/* The field of one site (colour c, number j), scalar, in the reference's order. */
static void field_one(const struct heis_pass *p, int64_t j, double field[3])
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
        const double jf = s->coupling[c][cpu_heisenberg_soa_index(s, j, mu)];
        const double jb = s->coupling[oc][cpu_heisenberg_soa_index(s, bwd[mu] / 2, mu)];
        for (int k = 0; k < 3; k++) {
            field[k] += jf * o[cpu_heisenberg_soa_index(s, fwd[mu] / 2, k)];
            field[k] += jb * o[cpu_heisenberg_soa_index(s, bwd[mu] / 2, k)];
        }
    }
    field[2] += p->h;
}

/* The heat-bath uniforms of HEIS_V vectors of four sites j0[k] .. j0[k] + 3 (j0[k] a
 * multiple of 4): Philox block j0[k] / 4, sub 0 (cos theta) and 1 (azimuth); one
 * four-lane set holds (b, 0), (b, 1), (b', 0), (b', 1) for two vectors. */
static inline __attribute__((always_inline)) void heatbath_uniforms(const struct heis_pass *p,
                                                                    const int64_t j0[HEIS_V],
                                                                    __m256d u_cos[HEIS_V],
                                                                    __m256d u_phi[HEIS_V])
{
    for (int k = 0; k < HEIS_V; k += 2) {
        /* the counters of (block, sub 0) and (block, sub 1) of both blocks (rng_streams.h) */
        /* named by the global numbers (a slab: j_origin, heisenberg_dsp.h) */
        const uint64_t b0 = (uint64_t)(j0[k] + p->s->j_origin) / 4;
        const uint64_t b1 = (uint64_t)(j0[k + 1] + p->s->j_origin) / 4;
        const latmc_philox_ctr x0 = latmc_rng_name_counter(p->name, b0);
        const latmc_philox_ctr x1 = latmc_rng_name_counter(p->name, b1);
        const long long w3 = (long long)x0.v[3], w3_phi = (long long)p->c3_phi;
        __m256i c0 = _mm256_setr_epi64x((long long)x0.v[0], (long long)x0.v[0],
                                        (long long)x1.v[0], (long long)x1.v[0]);
        __m256i c1 = _mm256_setr_epi64x((long long)x0.v[1], (long long)x0.v[1],
                                        (long long)x1.v[1], (long long)x1.v[1]);
        __m256i c2 = _mm256_set1_epi64x((long long)x0.v[2]);
        __m256i c3 = _mm256_setr_epi64x(w3, w3_phi, w3, w3_phi);
        latmc_philox_x4(p->keys, &c0, &c1, &c2, &c3);
        __m256i o01, o23;
        latmc_philox_x4_pack(c0, c1, c2, c3, &o01, &o23);
        const __m256i cos_draws = _mm256_unpacklo_epi64(o01, o23); /* b0 words 0-3, b1 0-3 */
        const __m256i phi_draws = _mm256_unpackhi_epi64(o01, o23);
        u_cos[k] = heis_uniform_avx2(_mm256_castsi256_si128(cos_draws));
        u_cos[k + 1] = heis_uniform_avx2(_mm256_extracti128_si256(cos_draws, 1));
        u_phi[k] = heis_uniform_avx2(_mm256_castsi256_si128(phi_draws));
        u_phi[k + 1] = heis_uniform_avx2(_mm256_extracti128_si256(phi_draws, 1));
    }
}

/* The update of HEIS_V vectors (fields f, old spins s, numbers j0) into out: heat bath
 * or overrelaxation (a constant where the caller is specialised, update_row_at). */
static inline __attribute__((always_inline)) void update_vecs_as(const struct heis_pass *p,
                                                                 bool heatbath,
                                                                 const int64_t j0[HEIS_V],
                                                                 const __m256d f[HEIS_V][3],
                                                                 const __m256d s[HEIS_V][3],
                                                                 __m256d out[HEIS_V][3])
{
    if (!heatbath) {
        heis_overrelax_avx2(f, s, out);
        return;
    }
    __m256d u_cos[HEIS_V], u_phi[HEIS_V];
    heatbath_uniforms(p, j0, u_cos, u_phi);
    for (int k = 0; k < HEIS_V; k += 2)
        heis_heatbath_pair_avx2(&f[k], p->beta, &u_cos[k], &u_phi[k], &out[k]);
}

static inline __attribute__((always_inline)) void update_vecs(const struct heis_pass *p,
                                                              const int64_t j0[HEIS_V],
                                                              const __m256d f[HEIS_V][3],
                                                              const __m256d s[HEIS_V][3],
                                                              __m256d out[HEIS_V][3])
{
    update_vecs_as(p, p->heatbath, j0, f, s, out);
}

/* The fields of chunk m0 of a row: HEIS_V vectors from m0 (those past the row's end are
 * zeros, computed but never stored). */
static inline __attribute__((always_inline)) void row_chunk(const struct heis_row *r, int64_t row,
                                                            int64_t m0, int64_t j0[HEIS_V],
                                                            __m256d f[HEIS_V][3],
                                                            __m256d sp[HEIS_V][3])
{
    HEIS_EACH
    {
        const int64_t m = m0 + 4 * k;
        j0[k] = row * r->n + (m < r->n ? m : m0);
        if (m < r->n) {
            heis_row_field(r, m, f[k], sp[k]);
        } else {
            f[k][0] = f[k][1] = f[k][2] = sp[k][0] = sp[k][1] = sp[k][2] = _mm256_setzero_pd();
        }
    }
}

/*
 * Rows when every vector lies in one (L_x / 2 a multiple of 4): the whole row, no
 * divisions per vector. Software-pipelined: the next chunk's fields (memory-bound loads)
 * are gathered before this chunk's update (divider-bound), so that the two overlap; the
 * stores of this chunk touch none of the next chunk's inputs (the other colour's spins,
 * the couplings, the next chunk's own spins).
 */
static inline __attribute__((always_inline)) void update_row_as(const struct heis_pass *p,
                                                                bool heatbath, int64_t row,
                                                                int64_t y, int64_t z)
{
    struct heis_row r;
    heis_row_of(p, row, y, z, &r);
    if (!heatbath) {
        for (int64_t m0 = 0; m0 < r.n; m0 += 4 * HEIS_V) {
            int64_t j0[HEIS_V];
            __m256d f[HEIS_V][3], sp[HEIS_V][3], out[HEIS_V][3];
            row_chunk(&r, row, m0, j0, f, sp);
            heis_overrelax_avx2((const __m256d(*)[3])f, (const __m256d(*)[3])sp, out);
            HEIS_EACH
            {
                if (m0 + 4 * k < r.n)
                    heis_row_store(&r, m0 + 4 * k, out[k]);
            }
        }
        return;
    }
    int64_t j0[2][HEIS_V];
    __m256d f[2][HEIS_V][3], sp[2][HEIS_V][3];
    row_chunk(&r, row, 0, j0[0], f[0], sp[0]);
    int cur = 0;
    for (int64_t m0 = 0; m0 < r.n; m0 += 4 * HEIS_V, cur ^= 1) {
        if (m0 + 4 * HEIS_V < r.n)
            row_chunk(&r, row, m0 + 4 * HEIS_V, j0[cur ^ 1], f[cur ^ 1], sp[cur ^ 1]);
        __m256d out[HEIS_V][3];
        update_vecs_as(p, heatbath, j0[cur], (const __m256d(*)[3])f[cur],
                       (const __m256d(*)[3])sp[cur], out);
        HEIS_EACH
        {
            if (m0 + 4 * k < r.n)
                heis_row_store(&r, m0 + 4 * k, out[k]);
        }
    }
}

/* The row loop compiled once per update: overrelaxation's has no calls (the heat bath's
 * calls would make the compiler keep every live vector in memory across them). */
static void update_row_overrelax(const struct heis_pass *p, int64_t row, int64_t y, int64_t z)
{
    update_row_as(p, false, row, y, z);
}

static void update_row_heatbath(const struct heis_pass *p, int64_t row, int64_t y, int64_t z)
{
    update_row_as(p, true, row, y, z);
}

static void update_row_at(const struct heis_pass *p, int64_t row, int64_t y, int64_t z)
{
    if (p->heatbath)
        update_row_heatbath(p, row, y, z);
    else
        update_row_overrelax(p, row, y, z);
}

/* Row `row` (y = row mod L_y, z = row / L_y: lz = 1 in 2D). */
static void update_row(const struct heis_pass *p, int64_t row)
{
    update_row_at(p, row, row % p->g->ly, row / p->g->ly);
}

/*
 * Group grp of the flat numbering (L_x / 2 not a multiple of 4): vectors
 * j0 = 4 (HEIS_V grp + k), of which the sites with numbers in [jlo, jhi) are updated (a
 * whole colour: [0, N / 2); a box: its rows' numbers). A vector whose four sites are all
 * in the range and in one row loads as in update_row, the others lane by lane.
 */
static inline void update_group_range(const struct heis_pass *p, int64_t grp, int64_t jlo,
                                      int64_t jhi)
{
    const struct cpu_heisenberg_soa *s = p->s;
    const int c = p->colour;
    int64_t j0[HEIS_V];
    int lane0[HEIS_V], nvalid[HEIS_V];
    bool contiguous[HEIS_V];
    struct heis_row r[HEIS_V];
    __m256d f[HEIS_V][3], sp[HEIS_V][3], out[HEIS_V][3];
    for (int k = 0; k < HEIS_V; k++) {
        j0[k] = 4 * (HEIS_V * grp + k);
        const int64_t left = jhi - j0[k];
        nvalid[k] = left >= 4 ? 4 : left > 0 ? (int)left : 0; /* lanes below nvalid ... */
        lane0[k] = jlo > j0[k] ? (int)(jlo - j0[k] < 4 ? jlo - j0[k] : 4) : 0; /* ... from lane0 */
        const int64_t row = j0[k] / p->n, m = j0[k] - row * p->n;
        contiguous[k] = lane0[k] == 0 && nvalid[k] == 4 && m + 4 <= p->n;
        if (contiguous[k]) {
            heis_row_of(p, row, row % p->g->ly, row / p->g->ly, &r[k]);
            heis_row_field(&r[k], m, f[k], sp[k]);
            continue;
        }
        double fl[3][4] = { { 0 } }, sl[3][4] = { { 0 } };
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
            f[k][kk] = _mm256_loadu_pd(fl[kk]);
            sp[k][kk] = _mm256_loadu_pd(sl[kk]);
        }
    }
    update_vecs(p, j0, f, sp, out);
    for (int k = 0; k < HEIS_V; k++) {
        if (contiguous[k]) {
            heis_row_store(&r[k], j0[k] - (j0[k] / p->n) * p->n, out[k]);
            continue;
        }
        double o[3][4];
        for (int kk = 0; kk < 3; kk++)
            _mm256_storeu_pd(o[kk], out[k][kk]);
        for (int lane = lane0[k]; lane < nvalid[k]; lane++)
            for (int kk = 0; kk < 3; kk++)
                s->spin[p->replica][c][cpu_heisenberg_soa_index(s, j0[k] + lane, kk)] = o[kk][lane];
    }
}

/* ---------------------------------------------------------------------------------- */

/*
 * One step of the plan on boxes for every replica (cpu_heisenberg_step_boxes_at): the
 * colour's sites of each box, by rows (L_x / 2 a multiple of 4) or by the groups of the
 * flat numbering that meet the box's numbers (a group across two boxes is visited by both,
 * each updating its own sites). The replicas' rows (groups) are updated one after the
 * other, so that the couplings they share are loaded once per step from far memory. Threads:
 * one team for the step; each box's items are split among it, no barrier between boxes (a
 * step writes one colour and reads the other; the replicas share only the couplings).
 */
static inline void box_item(const struct heis_pass *p, int replicas, bool by_rows, int64_t item,
                            int64_t jlo, int64_t jhi)
{
    for (int r = 0; r < replicas; r++) {
        if (by_rows)
            update_row(&p[r], item);
        else
            update_group_range(&p[r], item, jlo, jhi);
    }
}

/* The passes of colour `colour` of every replica. */
static void passes_setup(struct heis_pass p[2], const struct latmc_lattice *g,
                         struct cpu_heisenberg_soa *s, int replicas,
                         const struct latmc_heisenberg_params *prm, bool heatbath, int colour,
                         const struct latmc_philox_x4_keys *keys, struct latmc_rng_name name)
{
    for (int r = 0; r < replicas; r++)
        p[r] = (struct heis_pass){
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

static uint64_t step_boxes_avx2(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                                int replicas, const struct latmc_heisenberg_params *prm,
                                bool heatbath, int colour, uint64_t seed,
                                struct latmc_rng_name name, const struct latmc_box *boxes,
                                int n_boxes, const struct cpu_team *team)
{
    struct latmc_philox_x4_keys keys;
    latmc_philox_x4_keys_init(&keys, seed);
    const bool by_rows = (g->lx / 2) % 4 == 0;
    const int64_t n = g->lx / 2, rpp = cpu_heisenberg_rows_per_plane(g), per_group = 4 * HEIS_V;
    struct heis_pass p[2];
    passes_setup(p, g, s, replicas, prm, heatbath, colour, &keys, name);
    uint64_t updates = 0;
    for (int i = 0; i < n_boxes; i++)
        updates += (uint64_t)(boxes[i].extent[boxes[i].axis] * rpp * n);
    if (team->size == 1) {
        for (int i = 0; i < n_boxes; i++) {
            const int64_t r0 = boxes[i].origin[boxes[i].axis] * rpp;
            const int64_t r1 = r0 + boxes[i].extent[boxes[i].axis] * rpp;
            const int64_t jlo = r0 * n, jhi = r1 * n;
            const int64_t first = by_rows ? r0 : jlo / per_group;
            const int64_t last = by_rows ? r1 : (jhi + per_group - 1) / per_group;
            for (int64_t item = first; item < last; item++)
                box_item(p, replicas, by_rows, item, jlo, jhi);
        }
        return heatbath ? updates * (uint64_t)replicas : 0;
    }
    /* in the team's region (cpu_omp.h): the loops bind to it */
    for (int i = 0; i < n_boxes; i++) {
        const int64_t r0 = boxes[i].origin[boxes[i].axis] * rpp;
        const int64_t r1 = r0 + boxes[i].extent[boxes[i].axis] * rpp;
        const int64_t jlo = r0 * n, jhi = r1 * n;
        const int64_t first = by_rows ? r0 : jlo / per_group;
        const int64_t last = by_rows ? r1 : (jhi + per_group - 1) / per_group;
        LATMC_OMP(for schedule(static) nowait)
        for (int64_t item = first; item < last; item++)
            box_item(p, replicas, by_rows, item, jlo, jhi);
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

/* The passes of both colours of a pair (every replica), rows per plane. */
struct heis_pair {
    struct heis_pass first[2], second[2];
    int replicas;
    int64_t rpp;
};

/* One colour (passes p of every replica) on plane z: its rows, each replica in turn (a
 * plane is the rows y of one z in 3D, row y = z in 2D: no divisions per row). */
static void plane_colour(const struct heis_pair *w, const struct heis_pass *p, int64_t z)
{
    const bool three = p[0].g->ndim == 3;
    for (int64_t k = 0; k < w->rpp; k++)
        for (int r = 0; r < w->replicas; r++)
            update_row_at(&p[r], z * w->rpp + k, three ? k : z, three ? z : 0);
}

/* The wavefront over band [a, b): colour c on every plane, c' on all but a and b - 1. */
static void wave_band(const struct heis_pair *w, int64_t a, int64_t b)
{
    for (int64_t z = a; z < b; z++) {
        plane_colour(w, w->first, z);
        if (z - 1 > a)
            plane_colour(w, w->second, z - 1);
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
 * every replica, L_x / 2 a multiple of 4 (rows: the pair's step_caps): INTERIOR is colour
 * c on every plane of the boxes and c' on all but each box's first and last, BORDER c' on
 * those, WHOLE both. The team takes bands of consecutive planes of all the boxes at once
 * (a box never writes what another box reads in a part); a band's own first and last
 * planes wait for the one barrier. Returns the part's heat-bath updates (all members').
 */
static uint64_t pair_boxes_avx2(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                                int replicas, const struct latmc_heisenberg_params *prm,
                                bool heatbath, int colour, int part, uint64_t seed,
                                const struct latmc_rng_name names[2],
                                const struct latmc_box *boxes, int n_boxes,
                                const struct cpu_team *team)
{
    struct latmc_philox_x4_keys keys;
    latmc_philox_x4_keys_init(&keys, seed);
    struct heis_pair w;
    w.replicas = replicas;
    w.rpp = cpu_heisenberg_rows_per_plane(g);
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

void cpu_heisenberg_dsp_init_avx2(struct cpu_heisenberg_dsp *dsp)
{
    dsp->level = "avx2";
    dsp->soa = true;
    dsp->step_soa = step_boxes_avx2;
    dsp->pair_soa = pair_boxes_avx2;
}
