/*
 * Heisenberg spin glass with AVX2: the chain of doc/models/heisenberg.md, bit for bit, on
 * the SoA layout of heisenberg_dsp.h, four sites (one __m256d) per vector.
 *
 * Work unit: a group of HEIS_V vectors, checkerboard numbers j0 .. j0 + 4 HEIS_V - 1
 * (j0 = 4 HEIS_V grp); the heat bath's draws of four consecutive j are one Philox block
 * per sub (cos theta, azimuth), so a group's draws are HEIS_V blocks per sub: whole sets
 * of the four-lane Philox (philox_lanes_avx2.h). Per vector the local field is summed in
 * the reference's order (x, y, z; forward then backward; h last), from contiguous loads
 * when its four sites lie in one row, else lane by lane; then every vector of the group
 * runs the update step by step together (overrelaxation: one chain of ~120 cycles of
 * dependent arithmetic per site, so the HEIS_V chains are interleaved for the out-of-order
 * core), and the results are rounded to float and stored as doubles.
 *
 * Threads: one parallel region per sweep; each colour is a static loop over groups with
 * a barrier after it; draws are named by (sweep, colour, j), never by thread.
 */
#include <immintrin.h>
#include <string.h>

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
    uint64_t sweep;
    uint32_t stream;
    int64_t n;            /* L_x / 2: sites of one colour per row */
};

/* A vector of 4 sites: field, old spin, where to store. */
struct heis_vec {
    __m256d f[3];         /* local field */
    __m256d s[3];         /* old spin */
    int nvalid;           /* sites in the vector (0 .. 4) */
    int64_t j0;           /* contiguous when nvalid == 4 and in one row ... */
    bool contiguous;
    int64_t j[4];         /* ... else each lane's number */
};

static inline __m256d load4(const double *p) { return _mm256_loadu_pd(p); }

/*
 * The field of 4 sites j0 .. j0+3 of one row (contiguous in the SoA arrays): the other
 * colour's neighbours along y, z at the same numbers in the neighbouring rows, along x at
 * numbers m + q (forward) and m - 1 + q (backward), q = x mod 2 of the row's sites; at the
 * row's ends one lane wraps to the other end.
 */
static inline void field_row(const struct heis_pass *p, struct heis_vec *v)
{
    const struct latmc_lattice *g = p->g;
    const struct cpu_heisenberg_soa *s = p->s;
    const int c = p->colour, oc = 1 - c;
    const int64_t n = p->n, row = v->j0 / n, m0 = v->j0 - row * n, base = row * n;
    const int64_t y = row % g->ly, z = row / g->ly;
    const int q = (int)((c + y + z) & 1);
    const double *const *so = (const double *const *)s->spin[p->replica][oc];
    __m256d f[3];
    for (int k = 0; k < 3; k++)
        f[k] = _mm256_setzero_pd();
    for (int mu = 0; mu < g->ndim; mu++) {
        int64_t fwd, bwd;     /* numbers of lane 0's neighbours */
        int wrap_f = 0, wrap_b = 0;
        if (mu == 0) {
            fwd = base + m0 + q;
            bwd = base + m0 - 1 + q;
            wrap_f = q == 1 && m0 + 4 == n;   /* lane 3 -> number 0 of the row */
            wrap_b = q == 0 && m0 == 0;       /* lane 0 -> number n - 1 */
        } else {
            const int64_t ly = g->ly, lz = g->lz;
            int64_t rf, rb;
            if (mu == 1) {
                rf = latmc_wrap_up(y, ly) + ly * z;
                rb = latmc_wrap_down(y, ly) + ly * z;
            } else {
                rf = y + ly * latmc_wrap_up(z, lz);
                rb = y + ly * latmc_wrap_down(z, lz);
            }
            fwd = rf * n + m0;
            bwd = rb * n + m0;
        }
        const __m256d jf = load4(s->coupling[c][mu] + v->j0);
        __m256d jb = load4(s->coupling[oc][mu] + bwd);
        if (wrap_b)
            jb = _mm256_blend_pd(jb, _mm256_set1_pd(s->coupling[oc][mu][base + n - 1]), 0x1);
        for (int k = 0; k < 3; k++) {
            __m256d sf = load4(so[k] + fwd), sb = load4(so[k] + bwd);
            if (wrap_f)
                sf = _mm256_blend_pd(sf, _mm256_set1_pd(so[k][base]), 0x8);
            if (wrap_b)
                sb = _mm256_blend_pd(sb, _mm256_set1_pd(so[k][base + n - 1]), 0x1);
            f[k] = _mm256_add_pd(f[k], _mm256_mul_pd(jf, sf));
            f[k] = _mm256_add_pd(f[k], _mm256_mul_pd(jb, sb));
        }
    }
    f[2] = _mm256_add_pd(f[2], _mm256_set1_pd(p->h));
    for (int k = 0; k < 3; k++) {
        v->f[k] = f[k];
        v->s[k] = load4(s->spin[p->replica][c][k] + v->j0);
    }
}

/* The field of one site (colour c, number j), scalar, in the reference's order. */
static void field_one(const struct heis_pass *p, int64_t j, double field[3])
{
    const struct latmc_lattice *g = p->g;
    const struct cpu_heisenberg_soa *s = p->s;
    const int c = p->colour, oc = 1 - c;
    const struct latmc_site site = latmc_checkerboard_site(g, c, j);
    int64_t fwd[3], bwd[3];
    cpu_heisenberg_neighbours(g, site, fwd, bwd);
    field[0] = field[1] = field[2] = 0.0;
    for (int mu = 0; mu < g->ndim; mu++) {
        const double jf = s->coupling[c][mu][j], jb = s->coupling[oc][mu][bwd[mu] / 2];
        for (int k = 0; k < 3; k++) {
            field[k] += jf * s->spin[p->replica][oc][k][fwd[mu] / 2];
            field[k] += jb * s->spin[p->replica][oc][k][bwd[mu] / 2];
        }
    }
    field[2] += p->h;
}

/* Vector number j0 / 4 of the pass's colour: its field and old spin. */
static void load_vec(const struct heis_pass *p, int64_t j0, struct heis_vec *v)
{
    const int64_t half = p->s->half;
    v->j0 = j0;
    v->nvalid = half - j0 >= 4 ? 4 : half - j0 > 0 ? (int)(half - j0) : 0;
    v->contiguous = v->nvalid == 4 && j0 % p->n + 4 <= p->n;
    if (v->contiguous) {
        field_row(p, v);
        return;
    }
    double f[3][4] = { { 0 } }, sp[3][4] = { { 0 } };
    for (int lane = 0; lane < v->nvalid; lane++) {
        double field[3];
        v->j[lane] = j0 + lane;
        field_one(p, j0 + lane, field);
        for (int k = 0; k < 3; k++) {
            f[k][lane] = field[k];
            sp[k][lane] = p->s->spin[p->replica][p->colour][k][j0 + lane];
        }
    }
    for (int k = 0; k < 3; k++) {
        v->f[k] = _mm256_loadu_pd(f[k]);
        v->s[k] = _mm256_loadu_pd(sp[k]);
    }
}

static void store_vec(const struct heis_pass *p, const struct heis_vec *v, const __m256d out[3])
{
    double *const *dst = p->s->spin[p->replica][p->colour];
    if (v->contiguous) {
        for (int k = 0; k < 3; k++)
            _mm256_storeu_pd(dst[k] + v->j0, out[k]);
        return;
    }
    double o[3][4];
    for (int k = 0; k < 3; k++)
        _mm256_storeu_pd(o[k], out[k]);
    for (int lane = 0; lane < v->nvalid; lane++)
        for (int k = 0; k < 3; k++)
            dst[k][v->j[lane]] = o[k][lane];
}

/* ---------------------------------------------------------------------------------- */
/* Overrelaxation and heat bath of a group (the arithmetic: heisenberg_rules_avx2.h)     */

static void overrelax_group(const struct heis_pass *p, int64_t grp)
{
    struct heis_vec v[HEIS_V];
    __m256d f[HEIS_V][3], sp[HEIS_V][3], out[HEIS_V][3];
    for (int k = 0; k < HEIS_V; k++) {
        load_vec(p, 4 * (HEIS_V * grp + k), &v[k]);
        for (int c = 0; c < 3; c++) {
            f[k][c] = v[k].f[c];
            sp[k][c] = v[k].s[c];
        }
    }
    heis_overrelax_avx2(f, sp, out);
    for (int k = 0; k < HEIS_V; k++)
        if (v[k].nvalid > 0)
            store_vec(p, &v[k], out[k]);
}

static void heatbath_group(const struct heis_pass *p, int64_t grp)
{
    struct heis_vec v[HEIS_V];
    for (int k = 0; k < HEIS_V; k++)
        load_vec(p, 4 * (HEIS_V * grp + k), &v[k]);
    /* Philox blocks b = HEIS_V grp + k (k < HEIS_V), sub 0 (cos theta) and 1 (azimuth);
     * one four-lane set holds (b, 0), (b, 1), (b + 1, 0), (b + 1, 1) */
    __m128i r_cos[HEIS_V], r_phi[HEIS_V];
    for (int k = 0; k < HEIS_V; k += 2) {
        const uint64_t b0 = (uint64_t)(HEIS_V * grp + k), b1 = b0 + 1;
        const uint32_t sw_hi = (uint32_t)(p->sweep >> 32) << 16;
        const long long h0 = (long long)((uint32_t)(b0 >> 32 & 0xffff) | sw_hi);
        const long long h1 = (long long)((uint32_t)(b1 >> 32 & 0xffff) | sw_hi);
        __m256i c0 = _mm256_setr_epi64x((long long)(uint32_t)b0, (long long)(uint32_t)b0,
                                        (long long)(uint32_t)b1, (long long)(uint32_t)b1);
        __m256i c1 = _mm256_setr_epi64x(h0, h0, h1, h1);
        __m256i c2 = _mm256_set1_epi64x((long long)(uint32_t)p->sweep);
        const long long w3 = (long long)(p->stream << 24 | ((uint32_t)p->colour & 0xffu) << 16);
        __m256i c3 = _mm256_setr_epi64x(w3, w3 + 1, w3, w3 + 1);
        latmc_philox_x4(p->keys, &c0, &c1, &c2, &c3);
        __m256i o01, o23;
        latmc_philox_x4_pack(c0, c1, c2, c3, &o01, &o23);
        const __m256i cos_draws = _mm256_unpacklo_epi64(o01, o23); /* b0 words 0-3, b1 0-3 */
        const __m256i phi_draws = _mm256_unpackhi_epi64(o01, o23);
        r_cos[k] = _mm256_castsi256_si128(cos_draws);
        r_cos[k + 1] = _mm256_extracti128_si256(cos_draws, 1);
        r_phi[k] = _mm256_castsi256_si128(phi_draws);
        r_phi[k + 1] = _mm256_extracti128_si256(phi_draws, 1);
    }
    for (int k = 0; k < HEIS_V; k += 2) {
        const __m256d u_cos[2] = { heis_uniform_avx2(r_cos[k]), heis_uniform_avx2(r_cos[k + 1]) };
        const __m256d u_phi[2] = { heis_uniform_avx2(r_phi[k]), heis_uniform_avx2(r_phi[k + 1]) };
        const __m256d f[2][3] = { { v[k].f[0], v[k].f[1], v[k].f[2] },
                                  { v[k + 1].f[0], v[k + 1].f[1], v[k + 1].f[2] } };
        __m256d out[2][3];
        heis_heatbath_pair_avx2(f, p->beta, u_cos, u_phi, out);
        for (int i = 0; i < 2; i++)
            if (v[k + i].nvalid > 0)
                store_vec(p, &v[k + i], out[i]);
    }
}

/* ---------------------------------------------------------------------------------- */

static uint64_t sweep_avx2(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                           const struct latmc_heisenberg_params *prm, int algorithm, uint64_t seed,
                           int replica, uint64_t sweep, int n_threads)
{
    struct latmc_philox_x4_keys keys;
    latmc_philox_x4_keys_init(&keys, seed);
    const int64_t ngroups = (s->half + 4 * HEIS_V - 1) / (4 * HEIS_V);
    int nover = prm->nover;
    const bool heatbath = algorithm == LATMC_ALGO_HEATBATH;
    if (!heatbath && nover < 1)
        nover = 1; /* OVERRELAX alone: at least one pass (cpu_heisenberg_sweep) */
    const int npasses = (heatbath ? 1 : 0) + nover;
    struct heis_pass p = {
        .g = g, .s = s, .replica = replica, .beta = prm->beta, .h = prm->h, .keys = &keys,
        .sweep = sweep, .stream = latmc_rng_stream(LATMC_STREAM_UPDATE, (uint32_t)replica),
        .n = g->lx / 2,
    };
    if (!cpu_use_threads(n_threads, s->half)) {
        for (int pass = 0; pass < npasses; pass++) {
            p.heatbath = heatbath && pass == 0;
            for (p.colour = 0; p.colour < 2; p.colour++)
                for (int64_t grp = 0; grp < ngroups; grp++) {
                    if (p.heatbath)
                        heatbath_group(&p, grp);
                    else
                        overrelax_group(&p, grp);
                }
        }
    } else {
        LATMC_OMP(parallel num_threads(n_threads) firstprivate(p))
        {
            for (int pass = 0; pass < npasses; pass++) {
                p.heatbath = heatbath && pass == 0;
                for (p.colour = 0; p.colour < 2; p.colour++) {
                    /* the loop's closing barrier keeps the colours apart */
                    LATMC_OMP(for schedule(static))
                    for (int64_t grp = 0; grp < ngroups; grp++) {
                        if (p.heatbath)
                            heatbath_group(&p, grp);
                        else
                            overrelax_group(&p, grp);
                    }
                }
            }
        }
    }
    return heatbath ? (uint64_t)g->nsites : 0;
}

void cpu_heisenberg_dsp_init_avx2(struct cpu_heisenberg_dsp *dsp)
{
    dsp->level = "avx2";
    dsp->soa = true;
    dsp->sweep_soa = sweep_avx2;
}
