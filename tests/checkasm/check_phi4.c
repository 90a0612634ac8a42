/*
 * checkasm, phi^4 (backends/cpu/phi4/phi4_dsp.h): step_f and step_d of struct cpu_phi4_dsp at
 * every level against the C level's (the reference kernels of phi4_sweep_impl.h), and
 * segments_f, segments_d (the chunk schedule's colour step) likewise on random row
 * segments, on the same random field, parameters and seed, compared bit for bit after every
 * step: the whole field (the SIMD levels' colour-transposed layout converted back to
 * natural order) and the accepted-hit count.
 *
 * Cases: 2D with 8 and 5 colours and 3D; extents whose rows hold whole vectors of a level's
 * lanes (8 for AVX2, 16 for AVX-512) and extents whose vector groups straddle rows or run
 * past the end of a colour (L_x / ncolours = 1, 2, 3, 5, 9, 24 ...); Lambda finite, tiny
 * and +inf; g = 0 and large; tiny and huge proposals; fields with edge values (+-0, tiny,
 * far out in the quartic); nhit from 1 to past 32768 (the second phase block of the
 * random-number names); pass numbers past 2^32; one box, boxes of planes (as the core cuts
 * them) and boxes cut at arbitrary numbers (a vector group shared by two boxes, each
 * updating its own lanes); 1 to 3 threads sharing a step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "checkasm_bench.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "phi4_dsp.h"
#include "phi4_ref.h"
#include "phi4.h"
#include "step.h"

#if CHECKASM_PHI4_EMU512
/* phi4_avx512.c built once more with SIMDe's emulated intrinsics (meson.build) */
void cpu_phi4_dsp_init_avx512_emulated(struct cpu_phi4_dsp *dsp);
int64_t cpu_phi4_avx512_emulated_logq_violations(uint32_t first, uint32_t last);
int64_t cpu_phi4_avx512_emulated_unitq_violations(uint64_t first, uint64_t last, uint64_t step);
#endif

/* The level's table, or 0 when this build has no phi^4 kernels for it. */
static int level_dsp(const struct checkasm_level *lv, struct cpu_phi4_dsp *dsp)
{
    memset(dsp, 0, sizeof *dsp);
    if (lv->emulated) {
#if CHECKASM_PHI4_EMU512
        cpu_phi4_dsp_init(dsp, 0); /* the C entries first, as every table */
        cpu_phi4_dsp_init_avx512_emulated(dsp);
        return 1;
#else
        return 0;
#endif
    }
    cpu_phi4_dsp_init(dsp, lv->flags);
    return strcmp(dsp->level, lv->name) == 0;
}

/* The coefficients as the core computes them (lib/model_phi4.c, phi4_update_data). */
static void tables(struct latmc_phi4_tables *t, int ndim, double mu2, double g, double lambda,
                   double epsilon, uint32_t nhit)
{
    memset(t, 0, sizeof *t);
    const double k = ndim;
    const int finite = isfinite(lambda);
    t->d.finite_lambda = t->f.finite_lambda = finite;
    t->d.site = k + mu2 / 2.0;
    if (finite)
        t->d.site += k * (1.0 + 2.0 * k) / lambda;
    t->d.inv_lambda = finite ? 1.0 / lambda : 0.0;
    t->d.quartic = g / 24.0;
    t->d.four_k = 4.0 * k;
    t->d.epsilon = epsilon;
    t->f.site = (float)t->d.site;
    t->f.inv_lambda = (float)t->d.inv_lambda;
    t->f.quartic = (float)t->d.quartic;
    t->f.four_k = (float)t->d.four_k;
    t->f.epsilon = (float)t->d.epsilon;
    t->nhit = nhit;
    t->nloc = 1;
}

enum { FLOAT = 0, DOUBLE = 1 };
enum { UNIFORM = 0, EDGES = 1, COLD = 2 };
enum { WHOLE = 0, PLANES = 1, CUTS = 2 };

struct phi4_case {
    int ndim;
    int64_t lx, ly, lz;
    double mu2, g, lambda, epsilon;
    uint32_t nhit;
    int steps;           /* colour steps, colour after colour, pass after pass */
    uint64_t first_pass; /* the sweep word of the first pass (pass_name) */
    int field;           /* UNIFORM in (-2, 2), EDGES, COLD */
    int boxes;           /* WHOLE, PLANES (3 boxes of planes), CUTS (4 at random numbers) */
    int threads;         /* at the level; the C level runs alone */
};

static double start_value(int field, int64_t i)
{
    const double u = (double)(checkasm_rand() >> 11) * 0x1p-53;
    if (field == COLD)
        return 0.0;
    if (field == EDGES) {
        switch (i % 11) {
        case 0: return 0.0;
        case 1: return -0.0;
        case 2: return 40.0 * (u - 0.5);  /* far out in the quartic */
        case 3: return 1e-30 * (u - 0.5); /* tiny */
        case 4: return i % 2 ? 1.0 : -1.0;
        default: break;
        }
    }
    return 4.0 * (u - 0.5);
}

/* The start `field` in ref (natural order) and in the kernel's field (its layout). */
static void start_fields(const struct phi4_geom *g, const struct cpu_phi4_dsp *dsp, int field_kind,
                         int precision, void *ref, char *field)
{
    const size_t n = (size_t)g->lat.nsites;
    const size_t size = precision == FLOAT ? sizeof(float) : sizeof(double);
    for (size_t i = 0; i < n; i++) {
        const double v = start_value(field_kind, (int64_t)i);
        if (precision == FLOAT)
            ((float *)ref)[i] = (float)v;
        else
            ((double *)ref)[i] = v;
    }
    if (dsp->transposed)
        cpu_phi4_to_transposed(g, ref, field, (int)size, 1);
    else
        memcpy(field, ref, n * size);
}

/* The step's boxes (of one colour's numbers [0, per_colour)). */
static int make_boxes(const struct phi4_geom *g, int kind, struct phi4_range *b)
{
    const int64_t per = g->per_colour;
    if (kind == WHOLE) {
        b[0] = (struct phi4_range){ 0, per };
        return 1;
    }
    if (kind == PLANES) {
        /* planes along the last axis: rows of L_x / ncolours numbers, L_y rows per plane
         * in 3D */
        const int64_t planes = g->lat.ndim == 3 ? g->lat.lz : g->lat.ly;
        const int64_t per_plane = per / planes;
        for (int i = 0; i < 3; i++)
            b[i] = (struct phi4_range){ planes * i / 3 * per_plane,
                                        planes * (i + 1) / 3 * per_plane };
        return 3;
    }
    int64_t cut[5] = { 0, 0, 0, 0, per };
    for (int i = 1; i < 4; i++)
        cut[i] = (int64_t)(checkasm_rand() % (uint64_t)(per + 1));
    for (int i = 1; i < 4; i++) /* sort the three cuts */
        for (int k = i + 1; k < 4; k++)
            if (cut[k] < cut[i]) {
                const int64_t x = cut[i];
                cut[i] = cut[k];
                cut[k] = x;
            }
    for (int i = 0; i < 4; i++)
        b[i] = (struct phi4_range){ cut[i], cut[i + 1] };
    return 4;
}

/* The draws of colour `colour` of the pass whose sweep word is `pass`, named as
 * lib/model_phi4.c's step_of names the step: phase the colour, the sub of hit 0, draw 0. */
static struct latmc_rng_name pass_name(uint64_t pass, int colour)
{
    return latmc_step_name(colour, LATMC_STEP_COLOUR, colour, 0, pass,
                           latmc_phi4_rng_phase(colour, 0), latmc_phi4_rng_sub(0, 0))
        .rng;
}

/* One step of a table, on `threads` members sharing it (as cpu_run_steps does). */
static uint64_t run_step(const struct cpu_phi4_dsp *dsp, int precision,
                         const struct phi4_geom *g, void *phi, const struct latmc_phi4_tables *t,
                         uint64_t seed, struct latmc_rng_name name, int colour,
                         const struct phi4_range *b, int nb, int threads)
{
#define PHI4_STEP(team)                                                                     \
    (precision == FLOAT                                                                     \
         ? dsp->step_f(g, phi, t, seed, name, colour, b, nb, team)                          \
         : dsp->step_d(g, phi, t, seed, name, colour, b, nb, team))
    uint64_t accepted = 0;
#ifdef _OPENMP
    if (threads > 1) {
        LATMC_OMP(parallel num_threads(threads) reduction(+:accepted))
        {
            const struct cpu_team team = { omp_get_thread_num(), omp_get_num_threads() };
            accepted += PHI4_STEP(&team);
        }
        return accepted;
    }
#else
    (void)threads;
#endif
    const struct cpu_team alone = cpu_team_alone();
    accepted = PHI4_STEP(&alone);
#undef PHI4_STEP
    return accepted;
}

/* One case at one level; 0 after a mismatch (reported). */
static int run_case(const struct checkasm_level *lv, const struct cpu_phi4_dsp *dsp,
                    const struct cpu_phi4_dsp *c_dsp, const struct phi4_case *c, int precision)
{
    const char *func = precision == FLOAT ? "phi4.step_f" : "phi4.step_d";
    struct latmc_lattice lat = { c->ndim, c->lx, c->ly, c->ndim == 3 ? c->lz : 1, 0 };
    lat.nsites = lat.lx * lat.ly * lat.lz;
    const struct phi4_geom g = phi4_geom_of(&lat);
    const size_t size = precision == FLOAT ? 4 : 8, n = (size_t)lat.nsites;
    struct latmc_phi4_tables t;
    tables(&t, c->ndim, c->mu2, c->g, c->lambda, c->epsilon, c->nhit);
    char *ref = malloc(n * size), *back = malloc(n * size);
    char *alloc = calloc(n + 2 * PHI4_PAD, size);
    if (!ref || !back || !alloc || g.colouring.ncolours == 0) {
        checkasm_fail(func, lv->name, "out of memory or no colouring");
        free(ref);
        free(back);
        free(alloc);
        return 0;
    }
    char *field = alloc + PHI4_PAD * size;
    start_fields(&g, dsp, c->field, precision, ref, field);
    const uint64_t seed = checkasm_rand();
    int ok = 1;
    for (int k = 0; ok && k < c->steps; k++) {
        const int colour = k % g.colouring.ncolours;
        const uint64_t pass = c->first_pass + (uint64_t)(k / g.colouring.ncolours);
        struct phi4_range b[4];
        const int nb = make_boxes(&g, c->boxes, b);
        const struct latmc_rng_name name = pass_name(pass, colour);
        const uint64_t na = run_step(c_dsp, precision, &g, ref, &t, seed, name, colour, b, nb,
                                     1);
        const uint64_t nl = run_step(dsp, precision, &g, field, &t, seed, name, colour, b, nb,
                                     c->threads);
        if (dsp->transposed)
            cpu_phi4_from_transposed(&g, field, back, (int)size, 1);
        else
            memcpy(back, field, n * size);
        if (na != nl || memcmp(ref, back, n * size) != 0) {
            size_t i = 0;
            while (i < n && memcmp(ref + i * size, back + i * size, size) == 0)
                i++;
            const double want = i == n ? 0 : precision == FLOAT ? ((float *)ref)[i]
                                                                   : ((double *)ref)[i];
            const double got = i == n ? 0 : precision == FLOAT ? ((float *)back)[i]
                                                                  : ((double *)back)[i];
            checkasm_fail(func, lv->name,
                          "%dD %lldx%lldx%lld nhit %u boxes %d, %d thread(s): step %d (colour "
                          "%d, pass %llu) differs: accepted %llu (C %llu), first differing "
                          "site %zu of %zu: %a (C %a)",
                          c->ndim, (long long)lat.lx, (long long)lat.ly, (long long)lat.lz,
                          c->nhit, c->boxes, c->threads, k, colour, (unsigned long long)pass,
                          (unsigned long long)nl, (unsigned long long)na, i, n, got, want);
            ok = 0;
        }
    }
    free(ref);
    free(back);
    free(alloc);
    return ok;
}

#define INF INFINITY
/* ndim, lx, ly, lz, mu2, g, lambda, epsilon, nhit, steps, first pass, field, boxes,
 * threads; each case runs in both precisions */
static const struct phi4_case cases[] = {
    /* 2D, 8 colours: L_x / 8 = 1, 2, 3, 8, 9, 16, 24 */
    { 2, 8, 8, 1, 0.5, 0.0, INF, 1.0, 1, 10, 0, UNIFORM, WHOLE, 1 },
    { 2, 16, 16, 1, -1.0, 2.0, 5.0, 1.5, 8, 9, 0, EDGES, CUTS, 1 },
    { 2, 24, 24, 1, -1.0, 2.0, 5.0, 1.5, 3, 17, 7, EDGES, PLANES, 1 },
    { 2, 64, 16, 1, -1.0, 2.0, 5.0, 1.5, 8, 9, 0, EDGES, WHOLE, 1 },
    { 2, 72, 24, 1, -1.0, 2.0, 5.0, 1.5, 3, 16, 1, EDGES, CUTS, 1 },
    { 2, 128, 16, 1, 0.3, 1.0, 0.1, 0.7, 5, 9, 0, UNIFORM, PLANES, 1 },
    { 2, 192, 8, 1, 0.3, 1.0, 2.0, 0.7, 4, 8, 0, UNIFORM, CUTS, 1 },
    /* 2D, 5 colours: L_x / 5 = 2, 9, 16, 3 */
    { 2, 10, 15, 1, 0.3, 1.0, 2.0, 0.7, 4, 11, 0, EDGES, WHOLE, 1 },
    { 2, 45, 20, 1, -0.5, 0.5, INF, 1.0, 2, 10, 0, UNIFORM, CUTS, 1 },
    { 2, 80, 10, 1, -0.5, 0.5, 1.0, 1.0, 9, 5, 0, EDGES, PLANES, 1 },
    { 2, 15, 30, 1, -0.5, 0.5, 1.0, 1.0, 2, 6, 0, UNIFORM, WHOLE, 1 },
    /* 3D: whole rows (L_x 64, 128: 8 and 16 numbers per sub-row) and not */
    { 3, 8, 8, 8, 0.5, 0.2, INF, 1.0, 2, 9, 0, EDGES, WHOLE, 1 },
    { 3, 64, 8, 16, -1.0, 1.0, 10.0, 1.2, 8, 8, 0, EDGES, PLANES, 1 },
    { 3, 128, 8, 8, 0.1, 5.0, 0.5, 0.8, 3, 9, 3, UNIFORM, CUTS, 1 },
    { 3, 24, 16, 40, 1.0, 0.0, INF, 2.0, 4, 8, 0, EDGES, WHOLE, 1 },
    { 3, 72, 8, 24, -2.0, 3.0, 3.0, 1.0, 7, 8, 0, EDGES, CUTS, 1 },
    { 3, 16, 24, 8, -2.0, 3.0, 0.05, 1.0, 1, 10, 0, COLD, PLANES, 1 },
    { 3, 256, 8, 8, -1.0, 1.0, 10.0, 1.2, 8, 8, 0, UNIFORM, WHOLE, 1 },
    /* edges: extreme g and mu2, tiny and huge proposals, tiny Lambda */
    { 2, 64, 8, 1, 1e3, 1e4, 1e-3, 1e-6, 3, 8, 0, EDGES, WHOLE, 1 },
    { 2, 64, 8, 1, -1e3, 0.0, INF, 1e3, 3, 8, 0, EDGES, CUTS, 1 },
    { 3, 16, 8, 8, -5.0, 1e-6, 1e6, 30.0, 2, 8, 0, UNIFORM, WHOLE, 1 },
    /* epsilon 2^-32 of which is no float (subnormal): AVX-512's steps unfolded */
    { 3, 128, 8, 8, -1.0, 1.0, 4.0, 1e-30, 3, 8, 0, EDGES, WHOLE, 1 },
    /* nhit past 32768: hits in the second phase block of the names */
    { 2, 16, 8, 1, -1.0, 1.0, 4.0, 0.5, 32800, 2, 0, UNIFORM, WHOLE, 1 },
    /* pass numbers past 2^32 (counter word 1 and the high half of word 2) */
    { 3, 32, 8, 8, -1.0, 1.0, 4.0, 1.0, 3, 8, (UINT64_C(1) << 40) + 3, UNIFORM, CUTS, 1 },
    /* threads sharing a step */
    { 3, 64, 32, 32, -1.0, 1.0, 10.0, 1.2, 2, 3, 0, UNIFORM, WHOLE, 2 },
    { 3, 128, 16, 16, -1.0, 1.0, 4.0, 1.2, 2, 3, 0, EDGES, CUTS, 3 },
    { 3, 72, 32, 16, -1.0, 1.0, 4.0, 1.2, 2, 3, 0, EDGES, PLANES, 3 },
    { 2, 256, 256, 1, -1.0, 1.0, INF, 1.2, 2, 3, 0, UNIFORM, CUTS, 2 },
};

/*
 * segments_f / segments_d (the chunk schedule's colour step) of one case at one level
 * against the C level's: every step a new set of segments, one per row of about half the
 * rows, each a random run [m0, m1) of the row's numbers of the colour (whole vector groups,
 * parts of one, groups shared with the next row's segment where the rows are short), a
 * whole row, or 4 or 8 numbers from a multiple of 4 or 8 (two consecutive segments of W/2
 * share a paired group), on one thread as the chunk schedule calls it. 0 after a mismatch (reported).
 */
static int run_segments_case(const struct checkasm_level *lv, const struct cpu_phi4_dsp *dsp,
                             const struct cpu_phi4_dsp *c_dsp, const struct phi4_case *c,
                             int precision)
{
    const char *func = precision == FLOAT ? "phi4.segments_f" : "phi4.segments_d";
    struct latmc_lattice lat = { c->ndim, c->lx, c->ly, c->ndim == 3 ? c->lz : 1, 0 };
    lat.nsites = lat.lx * lat.ly * lat.lz;
    const struct phi4_geom g = phi4_geom_of(&lat);
    const size_t size = precision == FLOAT ? 4 : 8, n = (size_t)lat.nsites;
    const int nc = g.colouring.ncolours;
    const int64_t rows = lat.ly * lat.lz, per_row = nc ? lat.lx / nc : 0;
    struct latmc_phi4_tables t;
    tables(&t, c->ndim, c->mu2, c->g, c->lambda, c->epsilon, c->nhit);
    char *ref = malloc(n * size), *back = malloc(n * size);
    char *alloc = calloc(n + 2 * PHI4_PAD, size);
    struct phi4_range *segs = malloc((size_t)rows * sizeof *segs);
    if (!ref || !back || !alloc || !segs || g.colouring.ncolours == 0) {
        checkasm_fail(func, lv->name, "out of memory or no colouring");
        free(ref);
        free(back);
        free(alloc);
        free(segs);
        return 0;
    }
    char *field = alloc + PHI4_PAD * size;
    start_fields(&g, dsp, c->field, precision, ref, field);
    const uint64_t seed = checkasm_rand();
    int ok = 1;
    for (int k = 0; ok && k < c->steps; k++) {
        const int colour = k % g.colouring.ncolours;
        const uint64_t pass = c->first_pass + (uint64_t)(k / g.colouring.ncolours);
        int ns = 0;
        for (int64_t r = 0; r < rows; r++) {
            if (checkasm_rand() % 2)
                continue;
            int64_t m0 = (int64_t)(checkasm_rand() % (uint64_t)per_row);
            int64_t m1 = m0 + 1 + (int64_t)(checkasm_rand() % (uint64_t)(per_row - m0));
            const uint64_t kind = checkasm_rand() % 3;
            const int64_t h = 4 << (checkasm_rand() % 2);
            if (kind == 1) { /* a whole row, as chunks as wide as vectors give */
                m0 = 0;
                m1 = per_row;
            } else if (kind == 2 && per_row >= h) {
                /* h = 4 or 8 numbers from a multiple of h, as chunks of 32 or 64 sites
                 * give with 8 colours: two of them in a row fill one paired group (half
                 * W each) of AVX2 or AVX-512 */
                m0 = h * (int64_t)(checkasm_rand() % (uint64_t)(per_row / h));
                m1 = m0 + h;
            }
            segs[ns++] = (struct phi4_range){ r * per_row + m0, r * per_row + m1 };
        }
        const struct latmc_rng_name name = pass_name(pass, colour);
        const uint64_t na = precision == FLOAT
            ? c_dsp->segments_f(&g, (float *)ref, &t, seed, name, colour, segs, ns)
            : c_dsp->segments_d(&g, (double *)ref, &t, seed, name, colour, segs, ns);
        const uint64_t nl = precision == FLOAT
            ? dsp->segments_f(&g, (float *)field, &t, seed, name, colour, segs, ns)
            : dsp->segments_d(&g, (double *)field, &t, seed, name, colour, segs, ns);
        if (dsp->transposed)
            cpu_phi4_from_transposed(&g, field, back, (int)size, 1);
        else
            memcpy(back, field, n * size);
        if (na != nl || memcmp(ref, back, n * size) != 0) {
            size_t i = 0;
            while (i < n && memcmp(ref + i * size, back + i * size, size) == 0)
                i++;
            checkasm_fail(func, lv->name,
                          "%dD %lldx%lldx%lld nhit %u, %d segments: step %d (colour %d) "
                          "differs: accepted %llu (C %llu), first differing site %zu of %zu",
                          c->ndim, (long long)lat.lx, (long long)lat.ly, (long long)lat.lz,
                          c->nhit, ns, k, colour, (unsigned long long)nl,
                          (unsigned long long)na, i, n);
            ok = 0;
        }
    }
    free(ref);
    free(back);
    free(alloc);
    free(segs);
    return ok;
}

/* Every case through one case runner (run_case or run_segments_case) at one level; the
 * first failing case ends the function's checks (one report per function and level). */
typedef int (*phi4_case_runner)(const struct checkasm_level *lv, const struct cpu_phi4_dsp *dsp,
                                const struct cpu_phi4_dsp *c_dsp, const struct phi4_case *c,
                                int precision);

static void check_cases(const struct checkasm_level *lv, const struct cpu_phi4_dsp *dsp,
                        int precision, phi4_case_runner run, const char *func_f,
                        const char *func_d, const char *what_tail)
{
    struct cpu_phi4_dsp c_dsp;
    cpu_phi4_dsp_init(&c_dsp, 0);
    const int before = checkasm_failures();
    const size_t n = sizeof cases / sizeof cases[0];
    for (size_t i = 0; i < n; i++) {
        if (cases[i].nhit > 1000 && precision == DOUBLE)
            continue; /* the long case once */
        if (!run(lv, dsp, &c_dsp, &cases[i], precision))
            return;
    }
    if (checkasm_failures() == before) {
        char what[80];
        snprintf(what, sizeof what, "%zu lattices, %s", n, what_tail);
        checkasm_ok(precision == FLOAT ? func_f : func_d, lv->name, what);
    }
}

static void check_steps(const struct checkasm_level *lv, const struct cpu_phi4_dsp *dsp,
                        int precision)
{
    check_cases(lv, dsp, precision, run_case, "phi4.step_f", "phi4.step_d",
                "1 to 4 boxes, 1 to 3 threads");
}

static void check_segments(const struct checkasm_level *lv, const struct cpu_phi4_dsp *dsp,
                           int precision)
{
    check_cases(lv, dsp, precision, run_segments_case, "phi4.segments_f", "phi4.segments_d",
                "random row segments");
}

/* ---- --bench ---- */

static volatile uint64_t bench_sink;

/* One colour step of a 128 x L x L lattice per call, nhit 8, on one thread: rows of 16
 * numbers per colour, whole groups at every level (the geometry where every level runs,
 * cpu_phi4_dsp_flags). */
static void bench_step(int precision, int64_t L)
{
    char func[64];
    snprintf(func, sizeof func, "step_%c 3D 128x%lldx%lld nhit 8",
             precision == FLOAT ? 'f' : 'd', (long long)L, (long long)L);
    struct latmc_lattice lat = { 3, 128, L, L, 128 * L * L };
    const struct phi4_geom g = phi4_geom_of(&lat);
    const size_t size = precision == FLOAT ? 4 : 8, n = (size_t)lat.nsites;
    struct latmc_phi4_tables t;
    tables(&t, 3, -1.0, 1.0, INFINITY, 1.2, 8); /* acceptance ~1/3, as the runs */
    char *alloc = calloc(n + 2 * PHI4_PAD, size);
    if (!alloc) {
        checkasm_fail(func, "c", "out of memory");
        return;
    }
    char *field = alloc + PHI4_PAD * size;
    for (size_t i = 0; i < n; i++) {
        const double v = start_value(UNIFORM, (int64_t)i);
        if (precision == FLOAT)
            ((float *)field)[i] = (float)v;
        else
            ((double *)field)[i] = v;
    }
    const struct phi4_range whole = { 0, g.per_colour };
    /* one colour, nhit 8: two draws per hit (proposal and acceptance); the field read, the
     * colour's sites written */
    checkasm_ceiling_work(func, &(struct checkasm_work){ 8.0 * (double)g.per_colour, 2,
                                                         (double)(n * size),
                                                         (double)((size_t)g.per_colour * size) });
    const struct checkasm_level c_level = { "c", 0, false };
    struct cpu_phi4_dsp c_dsp;
    cpu_phi4_dsp_init(&c_dsp, 0);
    uint64_t pass = 0;
    checkasm_bench(func, c_level.name, CHECKASM_BEST_NS(8, bench_sink += run_step(
        &c_dsp, precision, &g, field, &t, 1, pass_name(pass++, call_ & 7), call_ & 7, &whole, 1,
        1)));
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_phi4_dsp dsp;
        if (levels[l].emulated || !level_dsp(&levels[l], &dsp))
            continue;
        /* the layout does not change the work: the same field, read as the level's */
        checkasm_bench(func, levels[l].name, CHECKASM_BEST_NS(8, bench_sink += run_step(
            &dsp, precision, &g, field, &t, 1, pass_name(pass++, call_ & 7), call_ & 7, &whole,
            1, 1)));
    }
    free(alloc);
}

/*
 * The float decision of the AVX2 and AVX-512 levels tries a quick logarithm first and falls
 * back to the exact one only where the two could decide differently: that is exact only if
 * the quick one stays within its bound of the exact one for every value the draws give.
 * Every float in [2^-32, 1] is checked, a superset of the unit values (r + 1) 2^-32
 * rounded, on each level's own form of the polynomial (phi4_vec_avx2.h, phi4_vec_avx512.h;
 * AVX-512 natively where the CPU has it, else emulated).
 */
static void check_quick_log(const struct checkasm_level *lv, const char *level)
{
    const uint32_t first = 0x2f800000u /* 2^-32 */, last = 0x3f800000u /* 1 */;
    int64_t bad = -1;
#if defined(LATMC_HAVE_AVX2) && LATMC_HAVE_AVX2
    if (strcmp(level, "avx2") == 0)
        bad = cpu_phi4_avx2_logq_violations(first, last);
#endif
#if defined(LATMC_HAVE_AVX512) && LATMC_HAVE_AVX512
    if (!lv->emulated && strcmp(level, "avx512") == 0)
        bad = cpu_phi4_avx512_logq_violations(first, last);
#endif
#if CHECKASM_PHI4_EMU512
    if (lv->emulated && strcmp(level, "avx512") == 0)
        bad = cpu_phi4_avx512_emulated_logq_violations(first, last);
#endif
    if (bad < 0)
        return; /* a level without a quick logarithm (C) */
    if (bad)
        checkasm_fail("phi4.quick_log_f", lv->name, "%lld floats in [2^-32, 1] beyond the bound",
                      (long long)bad);
    else
        checkasm_ok("phi4.quick_log_f", lv->name, "every float in [2^-32, 1] within its bound");
}

/*
 * The quick logarithm reads a quick unit value (AVX-512: RN(RN(r) + 1) 2^-32, not
 * RN(r + 1) 2^-32), and the decision widens its bound by the level's slack for it
 * (phi4_vec_avx512.h argues the bound). Checked on draws: every r < 2^24 (where the two
 * unit values are equal), then blocks of 16 consecutive draws every 4099 (4097 quick) up to
 * 2^32 - 1, and the last 16.
 */
static void check_quick_unit(const struct checkasm_level *lv, const char *level)
{
    int64_t (*fn)(uint64_t, uint64_t, uint64_t) = NULL;
#if defined(LATMC_HAVE_AVX2) && LATMC_HAVE_AVX2
    if (strcmp(level, "avx2") == 0)
        fn = cpu_phi4_avx2_unitq_violations;
#endif
#if defined(LATMC_HAVE_AVX512) && LATMC_HAVE_AVX512
    if (!lv->emulated && strcmp(level, "avx512") == 0)
        fn = cpu_phi4_avx512_unitq_violations;
#endif
#if CHECKASM_PHI4_EMU512
    if (lv->emulated && strcmp(level, "avx512") == 0)
        fn = cpu_phi4_avx512_emulated_unitq_violations;
#endif
    if (!fn)
        return;
    const uint64_t top = 0xffffffffu, step = checkasm_quick() ? 16 * 4097 : 16 * 4099;
    const int64_t bad = fn(0, (1u << 24) - 1, 16) + fn(1u << 24, top, step) +
                        fn(top - 15, top, 16);
    if (bad)
        checkasm_fail("phi4.quick_unit_f", lv->name, "%lld draws beyond the decision's bound",
                      (long long)bad);
    else
        checkasm_ok("phi4.quick_unit_f", lv->name,
                    "draws r < 2^24 and a sample up to 2^32 - 1 within the decision's bound");
}

void checkasm_check_phi4(void)
{
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_phi4_dsp dsp;
        if (!level_dsp(&levels[l], &dsp)) {
            printf("  phi4: level %s not built: skipped\n", levels[l].name);
            continue;
        }
        check_steps(&levels[l], &dsp, FLOAT);
        check_steps(&levels[l], &dsp, DOUBLE);
        check_segments(&levels[l], &dsp, FLOAT);
        check_segments(&levels[l], &dsp, DOUBLE);
        check_quick_log(&levels[l], dsp.level);
        check_quick_unit(&levels[l], dsp.level);
    }
    if (checkasm_bench_on()) {
        bench_step(FLOAT, checkasm_quick() ? 8 : 32);
        bench_step(DOUBLE, checkasm_quick() ? 8 : 32);
        if (checkasm_in_cache_rows())
            bench_step(FLOAT, 8);
    }
}
