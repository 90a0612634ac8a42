/*
 * The per-plane work of the Fourier modes (lib/modes.h, doc/observables.md): from the
 * backend's per-plane configuration copies, the integer projections onto the axes (Ising,
 * Potts, phi^4 and Heisenberg in fixed point), spread over the sim's threads by planes,
 * and their exact transform.
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

/* ---- the phase tables ---- */

/* The tables of each axis: cos and sin of 2 pi x / L_mu; buf: made here, to free. */
struct phase_tables {
    double *buf;
    const double *c[3], *s[3];
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
    const double *at = phases;
    for (int mu = 0; mu < nd; mu++) {
        t->c[mu] = at;
        t->s[mu] = at + d->extent[mu];
        at += 2 * d->extent[mu];
    }
    return LATMC_OK;
}

/* ---- integer projections ---- */

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

/* *at += v, wrapping: the sums of a phi^4 field beyond the modes' bound (refused after,
 * latmc_modes_field_range) may overflow; every other sum is the exact integer. */
static inline void wrap_add(int64_t *at, int64_t v)
{
    *at = (int64_t)((uint64_t)*at + (uint64_t)v);
}

/* Row y's sums row[c] of each of nc components into P_c,y (3D) and the plane's totals
 * (proj + c n: component c's projections, n entries, P_c,y from L_x on). */
static void add_row_sums(const latmc_sim_desc *d, int64_t n, int64_t y, const int64_t *row,
                         int nc, int64_t *total, int64_t *proj)
{
    for (int c = 0; c < nc; c++) {
        if (d->ndim == 3)
            wrap_add(&proj[c * n + d->extent[0] + y], row[c]);
        wrap_add(&total[c], row[c]);
    }
}

/* Plane p's totals of each of nc components into P_c,last[p] (from entry `last` on). */
static void add_plane_totals(int64_t n, int64_t last, int64_t p, const int64_t *total,
                             int nc, int64_t *proj)
{
    for (int c = 0; c < nc; c++)
        wrap_add(&proj[c * n + last + p], total[c]);
}

/* phi^4: one plane's field values in fixed point (latmc_modes_field_fixed) into the
 * projections P_x[x], (3D) P_y[y], P_last[p], as Ising's spins; `plane` floats or doubles
 * as d->precision. */
void latmc_modes_phi4_project(const latmc_sim_desc *d, const void *plane, int64_t p,
                              int64_t *proj)
{
    const int64_t lx = d->extent[0], rows = d->ndim == 3 ? d->extent[1] : 1;
    const int64_t n = axis_entries(d), last = n - d->extent[d->ndim - 1];
    const bool single = d->precision == LATMC_PRECISION_FLOAT;
    const float *vf = plane;
    const double *vd = plane;
    int64_t total = 0;
    for (int64_t y = 0; y < rows; y++) {
        uint64_t row = 0;
        int64_t x = 0;
#ifdef LATMC_X86_AVX2
        if (latmc_have_avx2()) /* the same integers, 4 sites a step */
            x = single ? latmc_modes_phi4_row_avx2_f(vf + y * lx, lx, proj, &row)
                       : latmc_modes_phi4_row_avx2_d(vd + y * lx, lx, proj, &row);
#endif
        for (; x < lx; x++) {
            const int64_t q = latmc_modes_field_fixed(single ? (double)vf[y * lx + x]
                                                             : vd[y * lx + x]);
            wrap_add(&proj[x], q);
            row += (uint64_t)q;
        }
        add_row_sums(d, n, y, (const int64_t[1]){ (int64_t)row }, 1, &total, proj);
    }
    add_plane_totals(n, last, p, &total, 1, proj);
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
 * byte a site, phi^4 a float or a double, one replica). */
static void project_plane(const latmc_sim_desc *d, const void *const *rep, int64_t p,
                          int64_t *proj)
{
    if (d->model == LATMC_MODEL_HEISENBERG)
        heisenberg_project_plane(d, rep, p, proj);
    else if (d->model == LATMC_MODEL_PHI4)
        latmc_modes_phi4_project(d, rep[0], p, proj);
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
                wrap_add(&proj[i], rows[(size_t)t * (size_t)n + (size_t)i]);
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
    const int components = latmc_modes_components(d); /* Ising 1, Potts q, Heisenberg 3, 12 */
    /* phi^4's and Heisenberg's projections are of values times a power of two: the
     * scaling back is exact */
    const double scale = latmc_modes_scale(d);
    for (int k = 0; k < components; k++)
        for (int mu = 0; mu < d->ndim; mu++) {
            double *m = modes + 2 * (k * d->ndim + mu);
            m[0] = latmc_modes_exact_sum(proj, t.c[mu], d->extent[mu]) * scale;
            m[1] = latmc_modes_exact_sum(proj, t.s[mu], d->extent[mu]) * scale;
            proj += d->extent[mu];
        }
    free(t.buf);
    return LATMC_OK;
}
