/*
 * The per-plane work of the Fourier modes (lib/modes.h, doc/observables.md): from the
 * backend's per-plane configuration copies, one tile per plane along the last axis (phi^4),
 * or the integer projections onto the axes (Ising, Potts, Heisenberg in fixed point),
 * spread over the sim's threads by planes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "model.h"
#include "modes.h"
#include "modes_exact.h"
#include "modes_heisenberg_avx2.h"
#include "modes_phi4_avx2.h"
#include "potts.h"

#ifdef _OPENMP
#  define MODES_PRAGMA_(x) _Pragma(#x)
#  define MODES_OMP(x) MODES_PRAGMA_(omp x)
#else
#  define MODES_OMP(x)
#endif

/* At most this many bytes of configuration copied per block of planes. */
#define MODES_BLOCK_BYTES ((size_t)1 << 20)
/* Fewer sites than this in a block: one thread (a team costs more than it saves). */
#define MODES_THREAD_SITES 32768

/* ---- one plane ---- */

/* What every plane's kernel needs: the plane's shape and the phase tables. */
struct plane_geom {
    int ndim;
    int64_t lx, rows;            /* a plane: rows of lx sites (2D: 1 row) */
    const double *cx, *sx;       /* along x */
    const double *cy, *sy;       /* along y (3D: in the plane) */
    const double *cp, *sp;       /* along the last axis, indexed by the plane */
};

/* tile[(c ndim + mu) 2 + {0, 1}]: re, im of component c along direction mu. */
static inline double *slot(double *tile, int ndim, int c, int mu)
{
    return tile + ((size_t)c * (size_t)ndim + (size_t)mu) * 2;
}

/*
 * The row sums of a row y of the plane: direction y in 3D (the row's total times the
 * phase of y); the plane's totals gather the rows for the last axis.
 */
static inline void close_row(const struct plane_geom *g, double *tile, int C, int64_t y,
                             const double *row, double *total)
{
    for (int c = 0; c < C; c++) {
        if (g->ndim == 3) {
            double *t = slot(tile, 3, c, 1);
            t[0] += row[c] * g->cy[y];
            t[1] += row[c] * g->sy[y];
        }
        total[c] += row[c];
    }
}

static inline void close_plane(const struct plane_geom *g, double *tile, int C, int64_t p,
                               const double *total)
{
    const int last = g->ndim - 1;
    for (int c = 0; c < C; c++) {
        double *t = slot(tile, g->ndim, c, last);
        t[0] = total[c] * g->cp[p];
        t[1] = total[c] * g->sp[p];
    }
}

/*
 * The dense kernels: LOAD(i, v) puts the C component values of the plane's site i into
 * v[0 .. C). The summation order is fixed by the plane alone: in each row, site x adds into
 * lane x mod MODES_LANES (independent sums, so that the additions need not wait for each
 * other), the lanes are combined as (l0 + l1) + (l2 + l3) at the row's end, and rows are
 * added in order. Every decomposition runs this same code on whole planes.
 */
#define MODES_LANES 4
/* Site x of the row into lane l (a constant where the loop is unrolled, so that the lanes
 * stay in registers). */
#define DENSE_SITE_AT(LOAD, l, xx)                                                          \
    do {                                                                                    \
        LOAD(row0 + (xx), v);                                                               \
        for (int c = 0; c < C; c++) {                                                       \
            re[l][c] += v[c] * g->cx[xx];                                                   \
            im[l][c] += v[c] * g->sx[xx];                                                   \
            sum[l][c] += v[c];                                                              \
        }                                                                                   \
    } while (0)
#define DENSE_SITE(LOAD, l) DENSE_SITE_AT(LOAD, l, x + (l))
#define DEFINE_DENSE_PLANE(NAME, C_EXPR, LOAD, ROW_AVX2)                                    \
    static void NAME(const struct plane_geom *g, const void *const *rep, int64_t p,        \
                     double *tile)                                                          \
    {                                                                                       \
        enum { C = (C_EXPR) };                                                              \
        double v[C], total[C];                                                              \
        for (int c = 0; c < C; c++)                                                         \
            total[c] = 0;                                                                   \
        for (int64_t y = 0; y < g->rows; y++) {                                             \
            double re[MODES_LANES][C], im[MODES_LANES][C], sum[MODES_LANES][C];             \
            memset(re, 0, sizeof re);                                                       \
            memset(im, 0, sizeof im);                                                       \
            memset(sum, 0, sizeof sum);                                                     \
            const int64_t row0 = y * g->lx;                                                 \
            int64_t x = ROW_AVX2(rep, row0, g, re, im, sum);                                \
            for (; x + MODES_LANES <= g->lx; x += MODES_LANES) {                            \
                DENSE_SITE(LOAD, 0);                                                        \
                DENSE_SITE(LOAD, 1);                                                        \
                DENSE_SITE(LOAD, 2);                                                        \
                DENSE_SITE(LOAD, 3);                                                        \
            }                                                                               \
            for (int l = 0; x < g->lx; x++, l++) /* the last lx mod 4 sites: lanes 0, 1, 2 */ \
                DENSE_SITE_AT(LOAD, l, x);                                                  \
            double row[C];                                                                  \
            for (int c = 0; c < C; c++) {                                                   \
                double *tx = slot(tile, g->ndim, c, 0);                                     \
                tx[0] += (re[0][c] + re[1][c]) + (re[2][c] + re[3][c]);                     \
                tx[1] += (im[0][c] + im[1][c]) + (im[2][c] + im[3][c]);                     \
                row[c] = (sum[0][c] + sum[1][c]) + (sum[2][c] + sum[3][c]);                 \
            }                                                                               \
            close_row(g, tile, C, y, row, total);                                           \
        }                                                                                   \
        close_plane(g, tile, C, p, total);                                                  \
    }

#define LOAD_PHI4_F(i, v) ((v)[0] = ((const float *)rep[0])[i])
#define LOAD_PHI4_D(i, v) ((v)[0] = ((const double *)rep[0])[i])
/* A row's first sites four at a time with AVX2 where the CPU has it (the same lanes, the
 * same doubles: lib/modes_phi4_avx2.c); how many it took (C = 1: lane l's sums at re[l]). */
#ifdef LATMC_X86_AVX2
#  define PHI4_ROW_AVX2(ROW, T, rep, row0, g, re, im, sum)                                   \
      (latmc_have_avx2() ? ROW((const T *)(rep)[0] + (row0), (g)->lx, (g)->cx, (g)->sx,      \
                               &(re)[0][0], &(im)[0][0], &(sum)[0][0])                       \
                         : 0)
#else
#  define PHI4_ROW_AVX2(ROW, T, rep, row0, g, re, im, sum) 0
#endif
#define PHI4_ROW_AVX2_F(...) PHI4_ROW_AVX2(latmc_modes_phi4_row_avx2_f, float, __VA_ARGS__)
#define PHI4_ROW_AVX2_D(...) PHI4_ROW_AVX2(latmc_modes_phi4_row_avx2_d, double, __VA_ARGS__)
DEFINE_DENSE_PLANE(phi4_plane_f, 1, LOAD_PHI4_F, PHI4_ROW_AVX2_F)
DEFINE_DENSE_PLANE(phi4_plane_d, 1, LOAD_PHI4_D, PHI4_ROW_AVX2_D)

/* ---- planes of a sim ---- */

struct phase_tables {
    double *buf;
    struct plane_geom g;
};

/* Doubles of the phase tables of every axis: cos, then sin, of each in turn. */
static size_t phase_doubles(const latmc_sim_desc *d)
{
    int64_t n = 0;
    for (int mu = 0; mu < d->ndim; mu++)
        n += d->extent[mu];
    return 2 * (size_t)n;
}

static void fill_phases(const latmc_sim_desc *d, double *at)
{
    for (int mu = 0; mu < d->ndim; mu++) {
        latmc_modes_phases(d->extent[mu], at, at + d->extent[mu]);
        at += 2 * d->extent[mu];
    }
}

const double *latmc_modes_sim_phases(latmc_sim *sim)
{
    if (!sim->mode_phases) {
        sim->mode_phases = malloc(phase_doubles(&sim->desc) * sizeof *sim->mode_phases);
        if (!sim->mode_phases) {
            latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate the phase tables");
            return NULL;
        }
        fill_phases(&sim->desc, sim->mode_phases);
    }
    return sim->mode_phases;
}

/* The tables: `phases` (latmc_modes_sim_phases) where given, else made here (t->buf, to
 * free). The sines and cosines of a lattice of 2048^2 cost about as much as its Ising
 * projections: a sim keeps them. */
static int make_tables(const latmc_sim_desc *d, const double *phases, struct phase_tables *t)
{
    const int nd = d->ndim;
    t->buf = NULL;
    if (!phases) {
        t->buf = malloc(phase_doubles(d) * sizeof *t->buf);
        if (!t->buf)
            return latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate the phase tables");
        fill_phases(d, t->buf);
        phases = t->buf;
    }
    const double *c[3], *s[3], *at = phases;
    for (int mu = 0; mu < nd; mu++) {
        c[mu] = at;
        s[mu] = at + d->extent[mu];
        at += 2 * d->extent[mu];
    }
    t->g.ndim = nd;
    t->g.lx = d->extent[0];
    t->g.rows = nd == 3 ? d->extent[1] : 1;
    t->g.cx = c[0];
    t->g.sx = s[0];
    t->g.cy = nd == 3 ? c[1] : NULL;
    t->g.sy = nd == 3 ? s[1] : NULL;
    t->g.cp = c[nd - 1];
    t->g.sp = s[nd - 1];
    return LATMC_OK;
}

/* Plane p's tile (zeroed here) from its replicas' sites rep[r]. */
static void plane_tile(const latmc_sim *sim, const struct plane_geom *g,
                       const void *const *rep, int64_t p, double *tile)
{
    const latmc_sim_desc *d = &sim->desc;
    memset(tile, 0, latmc_modes_tile_doubles(d) * sizeof *tile);
    /* phi^4 alone: Ising, Potts and Heisenberg make projections instead */
    if (d->precision == LATMC_PRECISION_FLOAT)
        phi4_plane_f(g, rep, p, tile);
    else
        phi4_plane_d(g, rep, p, tile);
}

void latmc_modes_phi4_tile(const latmc_sim *sim, const double *phases, const void *plane,
                           int64_t p, double *tile)
{
    struct phase_tables t;
    make_tables(&sim->desc, phases, &t); /* given the tables, it allocates nothing */
    const void *rep[1] = { plane };
    plane_tile(sim, &t.g, rep, p, tile);
}

int latmc_modes_tiles(latmc_sim *sim, int64_t p0, int64_t p1, double *tiles)
{
    const latmc_sim_desc *d = &sim->desc;
    const int R = d->replicas;
    const int64_t plane_sites = sim->nsites / d->extent[d->ndim - 1];
    const size_t site_bytes = sim->model->site_bytes(d);
    const size_t one = (size_t)plane_sites * site_bytes; /* one plane of one replica */
    const size_t td = latmc_modes_tile_doubles(d);
    int64_t block = (int64_t)(MODES_BLOCK_BYTES / (one * (size_t)R));
    if (block < 1)
        block = 1;
    if (block > p1 - p0)
        block = p1 - p0;
    const double *phases = latmc_modes_sim_phases(sim);
    if (!phases)
        return LATMC_ENOMEM;
    struct phase_tables t;
    int st = make_tables(d, phases, &t);
    if (st < 0)
        return st;
    unsigned char *buf = malloc((size_t)block * one * (size_t)R);
    if (!buf) {
        free(t.buf);
        return latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate %lld planes",
                          (long long)block);
    }
    for (int64_t b0 = p0; b0 < p1 && st == LATMC_OK; b0 += block) {
        const int64_t b1 = b0 + block < p1 ? b0 + block : p1, nb = b1 - b0;
        st = sim->ops->get_planes(sim, b0, b1, buf);
        if (st < 0)
            break;
        const int threads = nb * plane_sites * R >= MODES_THREAD_SITES ? sim->n_threads : 1;
        (void)threads;
        MODES_OMP(parallel for num_threads(threads) schedule(static))
        for (int64_t p = b0; p < b1; p++) {
            const void *rep[2];
            for (int r = 0; r < R; r++) /* get_planes: each replica's planes in turn */
                rep[r] = buf + ((size_t)r * (size_t)nb + (size_t)(p - b0)) * one;
            plane_tile(sim, &t.g, rep, p, tiles + (size_t)(p - p0) * td);
        }
    }
    free(buf);
    free(t.buf);
    return st;
}


/* ---- Ising: integer projections ---- */

/* Entries of one component's projections: L_0 + ... + L_{d-1}. */
static int64_t axis_entries(const latmc_sim_desc *d)
{
    int64_t n = 0;
    for (int mu = 0; mu < d->ndim; mu++)
        n += d->extent[mu];
    return n;
}

int64_t latmc_modes_projection_entries(const latmc_sim_desc *d)
{
    return axis_entries(d) * latmc_modes_components(d);
}

/* One plane's spins into the projections: P_x[x], (3D) P_y[y], P_last[p]. */
static void ising_project_plane(const latmc_sim_desc *d, const int8_t *s, int64_t p,
                                int64_t *proj)
{
    const int64_t lx = d->extent[0], rows = d->ndim == 3 ? d->extent[1] : 1;
    /* restrict: the spins (bytes, which may alias anything) are never the sums, so the
     * row's loop runs in vector registers */
    int64_t *restrict px = proj;
    int64_t *py = proj + lx;
    int64_t *plast = proj + latmc_modes_projection_entries(d) - d->extent[d->ndim - 1];
    int64_t total = 0;
    for (int64_t y = 0; y < rows; y++) {
        const int8_t *restrict row = s + y * lx;
        int64_t sum = 0;
        MODES_OMP(simd reduction(+ : sum)) /* -O2 alone leaves the widening adds scalar */
        for (int64_t x = 0; x < lx; x++) {
            px[x] += row[x];
            sum += row[x];
        }
        if (d->ndim == 3)
            py[y] += sum;
        total += sum;
    }
    plast[p] += total;
}

/* Row y's sums row[c] of each of nc components into P_c,y (3D) and the plane's totals
 * (proj + c n: component c's projections, n entries, P_c,y from L_x on). */
static void add_row_sums(const latmc_sim_desc *d, int64_t n, int64_t y, const int64_t *row,
                         int nc, int64_t *total, int64_t *proj)
{
    for (int c = 0; c < nc; c++) {
        if (d->ndim == 3)
            proj[c * n + d->extent[0] + y] += row[c];
        total[c] += row[c];
    }
}

/* Plane p's totals of each of nc components into P_c,last[p] (from entry `last` on). */
static void add_plane_totals(int64_t n, int64_t last, int64_t p, const int64_t *total,
                             int nc, int64_t *proj)
{
    for (int c = 0; c < nc; c++)
        proj[c * n + last + p] += total[c];
}

/* Potts: one plane's states into the projections of each state a,
 * proj + a (L_x + L_y (+ L_z)): P_a,x[x], (3D) P_a,y[y], P_a,last[p], counts of the sites
 * in state a. */
static void potts_project_plane(const latmc_sim_desc *d, const uint8_t *s, int64_t p,
                                int64_t *proj)
{
    const int64_t lx = d->extent[0], rows = d->ndim == 3 ? d->extent[1] : 1;
    const int64_t n = axis_entries(d), last = n - d->extent[d->ndim - 1];
    const int q = d->q;
    int64_t total[LATMC_POTTS_MAX_Q] = { 0 };
    for (int64_t y = 0; y < rows; y++) {
        const uint8_t *row = s + y * lx;
        int64_t count[LATMC_POTTS_MAX_Q] = { 0 };
        for (int64_t x = 0; x < lx; x++) {
            proj[row[x] * n + x]++;
            count[row[x]]++;
        }
        add_row_sums(d, n, y, count, q, total, proj);
    }
    add_plane_totals(n, last, p, total, q, proj);
}

/* Heisenberg: one plane's site values in fixed point (latmc_modes_fixed: a spin's three
 * components, with two replicas also the nine products s^0_m s^1_n, component 3 + 3 m + n)
 * into the projections of each component c, proj + c (L_x + L_y (+ L_z)), as Potts'
 * states'. rep[r]: replica r's plane, 3 floats a site. */
static void heisenberg_project_plane(const latmc_sim_desc *d, const void *const *rep,
                                     int64_t p, int64_t *proj)
{
    enum { CMAX = 12 };
    const int64_t lx = d->extent[0], rows = d->ndim == 3 ? d->extent[1] : 1;
    const int64_t n = axis_entries(d), last = n - d->extent[d->ndim - 1];
    const int C = latmc_modes_components(d);
    const float *a = rep[0], *b = C > 3 ? rep[1] : NULL;
    int64_t total[CMAX] = { 0 };
    for (int64_t y = 0; y < rows; y++) {
        int64_t row[CMAX] = { 0 }, x = 0;
#ifdef LATMC_X86_AVX2
        if (latmc_have_avx2()) /* the same integers, 8 sites a step */
            x = latmc_modes_heisenberg_row_avx2(a + 3 * y * lx, b ? b + 3 * y * lx : NULL, lx,
                                                n, proj, row);
#endif
        for (; x < lx; x++) {
            const float *s0 = a + 3 * (y * lx + x);
            int64_t q[CMAX];
            for (int m = 0; m < 3; m++)
                q[m] = latmc_modes_fixed((double)s0[m] * LATMC_MODES_SPIN_SCALE);
            if (b) {
                const float *s1 = b + 3 * (y * lx + x);
                for (int m = 0; m < 3; m++)
                    for (int k = 0; k < 3; k++)
                        q[3 + 3 * m + k] =
                            latmc_modes_fixed((double)s0[m] * (double)s1[k] *
                                              LATMC_MODES_SPIN_SCALE);
            }
            for (int c = 0; c < C; c++) {
                proj[c * n + x] += q[c];
                row[c] += q[c];
            }
        }
        add_row_sums(d, n, y, row, C, total, proj);
    }
    add_plane_totals(n, last, p, total, C, proj);
}

void latmc_modes_heisenberg_project(const latmc_sim_desc *d, const float *r0, const float *r1,
                                    int64_t p, int64_t *proj)
{
    const void *rep[2] = { r0, r1 };
    heisenberg_project_plane(d, rep, p, proj);
}

/* One plane of the model's projections (rep[r]: replica r's sites; Ising and Potts one
 * byte a site, one replica). */
static void project_plane(const latmc_sim_desc *d, const void *const *rep, int64_t p,
                          int64_t *proj)
{
    if (d->model == LATMC_MODEL_HEISENBERG)
        heisenberg_project_plane(d, rep, p, proj);
    else if (d->model == LATMC_MODEL_POTTS)
        potts_project_plane(d, rep[0], p, proj);
    else
        ising_project_plane(d, rep[0], p, proj);
}

/* Planes [b0, b1) of the block buf (get_planes: each replica's planes in turn, `one`
 * bytes a plane) into proj, plane by plane. */
static void project_planes(const latmc_sim_desc *d, const unsigned char *buf, size_t one,
                           int64_t b0, int64_t b1, int64_t q0, int64_t q1, int64_t *proj)
{
    const int64_t nb = b1 - b0;
    for (int64_t p = q0; p < q1; p++) {
        const void *rep[2];
        for (int r = 0; r < d->replicas && r < 2; r++)
            rep[r] = buf + ((size_t)r * (size_t)nb + (size_t)(p - b0)) * one;
        project_plane(d, rep, p, proj);
    }
}

/* The projections of planes [p0, p1) added into proj (projection_entries; integers, so in
 * any order: the threads' shares simply add up). */
int latmc_modes_projections(latmc_sim *sim, int64_t p0, int64_t p1, int64_t *proj)
{
    const latmc_sim_desc *d = &sim->desc;
    if (d->model == LATMC_MODEL_HEISENBERG && sim->nsites >= LATMC_MODES_FIXED_MAX_SITES)
        return latmc_fail(LATMC_EUNSUPPORTED, "Fourier modes: Heisenberg's exact sums hold "
                          "lattices of fewer than 2^35 sites (this one has %lld)",
                          (long long)sim->nsites);
    const int64_t plane_sites = sim->nsites / d->extent[d->ndim - 1];
    const int64_t n = latmc_modes_projection_entries(d);
    const int R = d->model == LATMC_MODEL_HEISENBERG ? d->replicas : 1;
    const size_t one = (size_t)plane_sites * sim->model->site_bytes(d); /* a replica's plane */
    int64_t block = (int64_t)(MODES_BLOCK_BYTES / (one * (size_t)R));
    if (block < 1)
        block = 1;
    if (block > p1 - p0)
        block = p1 - p0;
    unsigned char *buf = malloc((size_t)block * one * (size_t)R);
    if (!buf)
        return latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate %lld planes",
                          (long long)block);
    int st = LATMC_OK;
    for (int64_t b0 = p0; b0 < p1; b0 += block) {
        const int64_t b1 = b0 + block < p1 ? b0 + block : p1;
        if ((st = sim->ops->get_planes(sim, b0, b1, buf)) < 0)
            break;
        int threads = (b1 - b0) * plane_sites * R >= MODES_THREAD_SITES ? sim->n_threads : 1;
        if (threads > b1 - b0)
            threads = (int)(b1 - b0);
        if (threads <= 1) {
            project_planes(d, buf, one, b0, b1, b0, b1, proj);
            continue;
        }
        /* one row of projections per thread on the heap (an array-section reduction would
         * put n = L_x + L_y entries per thread on its stack: 8 MiB at L = 2^19), each
         * thread a contiguous run of planes; integers, so the sum of the rows is exact */
        int64_t *rows = calloc((size_t)threads * (size_t)n, sizeof *rows);
        if (!rows) {
            st = latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate %d x %lld "
                            "projections", threads, (long long)n);
            break;
        }
        const int64_t planes = b1 - b0;
        MODES_OMP(parallel for num_threads(threads) schedule(static, 1))
        for (int t = 0; t < threads; t++) {
            const int64_t q0 = b0 + planes * t / threads, q1 = b0 + planes * (t + 1) / threads;
            project_planes(d, buf, one, b0, b1, q0, q1, rows + (size_t)t * (size_t)n);
        }
        for (int t = 0; t < threads; t++)
            for (int64_t i = 0; i < n; i++)
                proj[i] += rows[(size_t)t * (size_t)n + (size_t)i];
        free(rows);
    }
    free(buf);
    return st;
}

/* The mode of one projection: sum_x proj[x] w[x], exactly (lib/modes_exact.h). */
double latmc_modes_exact_sum(const int64_t *proj, const double *table, int64_t L)
{
    latmc_i128 sum = latmc_i128_of(0);
    for (int64_t x = 0; x < L; x++)
        sum = latmc_i128_add(sum, latmc_i128_mul(proj[x], latmc_modes_weight(table[x])));
    return latmc_i128_value(sum);
}

int latmc_modes_of_projections(const latmc_sim_desc *d, const double *phases,
                               const int64_t *proj, double *modes)
{
    struct phase_tables t;
    const int st = make_tables(d, phases, &t);
    if (st < 0)
        return st;
    const double *c[3] = { t.g.cx, t.g.cy, t.g.cp }, *sn[3] = { t.g.sx, t.g.sy, t.g.sp };
    if (d->ndim == 2) {
        c[1] = t.g.cp;
        sn[1] = t.g.sp;
    }
    const int components = latmc_modes_components(d); /* Ising 1, Potts q, Heisenberg 3, 12 */
    /* Heisenberg's projections are of values times 2^25 (latmc_modes_fixed): the scaling
     * back is exact */
    const double scale = d->model == LATMC_MODEL_HEISENBERG ? 1 / LATMC_MODES_SPIN_SCALE : 1.0;
    for (int k = 0; k < components; k++)
        for (int mu = 0; mu < d->ndim; mu++) {
            double *m = modes + 2 * (k * d->ndim + mu);
            m[0] = latmc_modes_exact_sum(proj, c[mu], d->extent[mu]) * scale;
            m[1] = latmc_modes_exact_sum(proj, sn[mu], d->extent[mu]) * scale;
            proj += d->extent[mu];
        }
    free(t.buf);
    return LATMC_OK;
}
