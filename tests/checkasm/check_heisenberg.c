/*
 * checkasm, Heisenberg (backends/cpu/heisenberg/heisenberg_dsp.h): the functions of struct
 * cpu_heisenberg_dsp at every level against the C level's step (the reference step on the
 * reference layout), on the same random spins, couplings, parameters and seed,
 * compared bit for bit after every step or pair: the spins of every replica (the SoA
 * layout exported) and the heat-bath update count.
 *
 *   step      one step of the schedule (heat bath or overrelaxation, either colour) on one
 *             box or boxes of planes, on 1 to 3 threads;
 *   pair_soa  the pair of a pass (both colours): the WHOLE part on the boxes, and the
 *             INTERIOR part on every box followed by the BORDER part on every box (as the
 *             core runs it between halo exchanges), where the level has a pair and L_x / 2
 *             is a multiple of 4.
 *   or_passes_soa  the overrelaxation passes of consecutive sweeps fused, as many at once
 *             as every thread's band allows (4 planes a pass), the heat-bath passes between
 *             them as pairs; compared at the end of every fused run (1 to 3 threads).
 * Cases: 2D and 3D, extents 2 to 256 with rows of whole vectors and rows that are not;
 * heat bath with 0 to 3 overrelaxation passes, overrelaxation alone; uniform, Gaussian and
 * +-J couplings and couplings with zeros (+0 and -0: zero local fields, the heat bath's
 * uniform branch, the reflection's no-op); beta 0, 1e-9, 0.05 and 0.12 (small fields: the
 * log1p branch), 1, 50 and 1e6; h = 0, +-0.3 and 1e3; one and two replicas; axis-aligned
 * spins among random ones; sweep numbers past 2^32.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "checkasm.h"
#include "checkasm_bench.h"
#include "coupling_fill.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "heisenberg.h"
#include "heisenberg_dsp.h"
#include "step.h"

#if CHECKASM_HEISENBERG_EMU512
/* heisenberg_avx512.c built once more with SIMDe's emulated intrinsics (meson.build) */
void cpu_heisenberg_dsp_init_avx512_emulated(struct cpu_heisenberg_dsp *dsp);
#endif

/* The level's table, or 0 when this build has no Heisenberg kernels for it. */
static int level_dsp(const struct checkasm_level *lv, struct cpu_heisenberg_dsp *dsp)
{
    memset(dsp, 0, sizeof *dsp);
    if (lv->emulated) {
#if CHECKASM_HEISENBERG_EMU512
        cpu_heisenberg_dsp_init(dsp, 0); /* the C entries first, as every table */
        cpu_heisenberg_dsp_init_avx512_emulated(dsp);
        return 1;
#else
        return 0;
#endif
    }
    cpu_heisenberg_dsp_init(dsp, lv->flags);
    return strcmp(dsp->level, lv->name) == 0 && dsp->soa;
}

enum { PLAIN = 0, PAIR_WHOLE = 1, PAIR_PARTS = 2, FUSED = 3 };

struct heisenberg_case {
    int ndim;
    int64_t lx, ly, lz;
    int replicas, couplings, zeros;
    int heatbath, nover;
    double beta, h;
    int sweeps;
    uint64_t first_sweep;
    int boxes;   /* 1, or 3 boxes of planes */
    int threads; /* at the level; the C reference runs alone */
};

/* Random unit spins, every 13th axis-aligned (zeros and ties in the frame choice). */
static void random_spins(float *s, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        double v[3], r2;
        do {
            for (int k = 0; k < 3; k++)
                v[k] = 2.0 * ((double)(checkasm_rand() >> 11) * 0x1p-53) - 1.0;
            r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
        } while (r2 > 1.0 || r2 < 1e-4);
        for (int k = 0; k < 3; k++)
            s[3 * i + k] = (float)(v[k] / sqrt(r2));
        if (i % 13 == 5) {
            s[3 * i] = 0.0f;
            s[3 * i + 1] = i % 2 ? -1.0f : 1.0f;
            s[3 * i + 2] = -0.0f;
        }
    }
}

/* nb boxes of planes along the last axis (1 or 3), each at least 2 planes where it can. */
static int make_boxes(const struct latmc_lattice *g, int nb, struct latmc_box *b)
{
    const int axis = g->ndim - 1;
    const int64_t planes = axis == 2 ? g->lz : g->ly;
    if (planes < 2 * nb)
        nb = 1;
    for (int i = 0; i < nb; i++) {
        memset(&b[i], 0, sizeof b[i]);
        b[i].axis = axis;
        b[i].halo = 1;
        b[i].origin[axis] = planes * i / nb;
        b[i].extent[axis] = planes * (i + 1) / nb - planes * i / nb;
    }
    return nb;
}

/* The draws of both colours' steps of sweep `sweep`, named as lib/model_heisenberg.c's
 * step_of names them: the sweep word, phase = the colour, sub 0 (replica 0; the kernels
 * derive the other replica's stream and the azimuth's sub 1). */
struct heisenberg_names {
    struct latmc_rng_name colour[2];
};

static struct heisenberg_names sweep_names(uint64_t sweep)
{
    struct heisenberg_names n;
    for (int c = 0; c < 2; c++)
        n.colour[c] = latmc_step_name(c, LATMC_STEP_COLOUR, c, 0, sweep, (uint32_t)c, 0).rng;
    return n;
}

/* Couplings of `kind` for lattice g from seed, as a sim draws them (coupling_fill.h). */
static void draw_couplings(const struct latmc_lattice *g, float *J, int kind, uint64_t seed)
{
    cpu_draw_couplings(J, cpu_couplings_float_layout(kind), 0, g->ndim * g->nsites, seed, 1, 0);
}

/* The C level's step on one thread. */
static uint64_t ref_step(const struct latmc_lattice *g, float *spins, int replicas,
                         const float *J, const struct latmc_heisenberg_params *p, bool hb,
                         int colour, uint64_t seed, struct heisenberg_names names,
                         const struct latmc_box *b, int nb)
{
    struct cpu_heisenberg_dsp c_dsp;
    cpu_heisenberg_dsp_init(&c_dsp, 0);
    const struct cpu_heisenberg_fields f = { spins, J, 0, NULL };
    const struct cpu_team alone = cpu_team_alone();
    return c_dsp.step(g, &f, replicas, p, hb, colour, seed, names.colour[colour], b, nb,
                      &alone);
}

/* A level's step (part < 0) or pair part (steps colour, then 1 - colour) on `threads`
 * members sharing it; the count is the step's (every member returns it, as the backend
 * takes member 0's). */
static uint64_t level_call(const struct cpu_heisenberg_dsp *dsp, const struct latmc_lattice *g,
                           struct cpu_heisenberg_soa *s, int replicas,
                           const struct latmc_heisenberg_params *p, bool hb, int colour, int part,
                           uint64_t seed, struct heisenberg_names names, const struct latmc_box *b,
                           int nb, int threads)
{
#define HEISENBERG_CALL(team)                                                                     \
    (part < 0 ? dsp->step(g, &f, replicas, p, hb, colour, seed, pair[0], b, nb, team)       \
              : dsp->pair_soa(g, s, replicas, p, hb, colour, part, seed, pair, b, nb, team))
    const struct cpu_heisenberg_fields f = { NULL, NULL, 0, s };
    const struct latmc_rng_name pair[2] = { names.colour[colour], names.colour[1 - colour] };
    uint64_t n = 0;
#ifdef _OPENMP
    if (threads > 1) {
        LATMC_OMP(parallel num_threads(threads))
        {
            const struct cpu_team team = { omp_get_thread_num(), omp_get_num_threads() };
            const uint64_t mine = HEISENBERG_CALL(&team);
            if (team.id == 0)
                n = mine;
        }
        return n;
    }
#else
    (void)threads;
#endif
    const struct cpu_team alone = cpu_team_alone();
    n = HEISENBERG_CALL(&alone);
#undef HEISENBERG_CALL
    return n;
}

/* The level's fused overrelaxation passes (k of them, colour 0 first) on `threads`
 * members. */
static void level_fused(const struct cpu_heisenberg_dsp *dsp, const struct latmc_lattice *g,
                        struct cpu_heisenberg_soa *s, int replicas,
                        const struct latmc_heisenberg_params *p, int k, int threads)
{
#ifdef _OPENMP
    if (threads > 1) {
        LATMC_OMP(parallel num_threads(threads))
        {
            const struct cpu_team team = { omp_get_thread_num(), omp_get_num_threads() };
            dsp->or_passes_soa(g, s, replicas, p, 0, k, &team);
        }
        return;
    }
#else
    (void)threads;
#endif
    const struct cpu_team alone = cpu_team_alone();
    dsp->or_passes_soa(g, s, replicas, p, 0, k, &alone);
}

/* The most passes or_passes_soa takes at once with `threads` members: every band at
 * least 4 planes a pass (the kernel's rule, heisenberg_simd_tmpl.h; no cache budget). */
static int fused_max(const struct latmc_lattice *g, int threads)
{
    return (int)((g->ndim == 3 ? g->lz : g->ly) / threads / 4);
}

/* One case at one level in one mode; 0 after a mismatch (reported). */
static int run_case(const struct checkasm_level *lv, const struct cpu_heisenberg_dsp *dsp,
                    const struct heisenberg_case *c, int mode)
{
    const char *func = mode == PLAIN        ? "heisenberg.step"
                       : mode == PAIR_WHOLE ? "heisenberg.pair_soa whole"
                       : mode == FUSED      ? "heisenberg.or_passes_soa"
                                            : "heisenberg.pair_soa parts";
    struct latmc_lattice g = { c->ndim, c->lx, c->ly, c->ndim == 3 ? c->lz : 1, 0 };
    g.nsites = g.lx * g.ly * g.lz;
    const size_t nspin = 3 * (size_t)g.nsites * (size_t)c->replicas;
    float *ref = malloc(nspin * sizeof *ref), *back = malloc(nspin * sizeof *back);
    float *J = malloc((size_t)(g.ndim * g.nsites) * sizeof *J);
    struct cpu_heisenberg_soa s;
    if (!ref || !back || !J || cpu_heisenberg_soa_alloc(&g, c->replicas, &s) != LATMC_OK) {
        checkasm_fail(func, lv->name, "out of memory");
        free(ref);
        free(back);
        free(J);
        return 0;
    }
    draw_couplings(&g, J, c->couplings, checkasm_rand());
    if (c->zeros) {
        for (int64_t k = 0; k < g.ndim * g.nsites; k += 3)
            J[k] = 0.0f;
        for (int64_t k = 1; k < g.ndim * g.nsites; k += 7)
            J[k] = -0.0f;
    }
    random_spins(ref, g.nsites * c->replicas);
    for (int r = 0; r < c->replicas; r++)
        cpu_heisenberg_soa_import_spins(&g, ref + 3 * g.nsites * r, &s, r, 1);
    cpu_heisenberg_soa_import_couplings(&g, J, &s, 1);
    const struct latmc_heisenberg_params p = { c->beta, c->h, c->nover };
    const uint64_t seed = checkasm_rand();
    struct latmc_box b[3];
    const int nb = make_boxes(&g, c->boxes, b);
    const int passes = latmc_heisenberg_passes(c->heatbath, c->nover);
    const int kmax = fused_max(&g, c->threads);
    int ok = 1, pending = 0; /* FUSED: overrelaxation passes done by the reference only */
    for (int k = 0; ok && k < c->sweeps; k++) {
        const uint64_t sweep = c->first_sweep + (uint64_t)k;
        const struct heisenberg_names names = sweep_names(sweep);
        for (int pass = 0; ok && pass < passes; pass++) {
            const bool hb = latmc_heisenberg_step_is_heatbath(c->heatbath, 2 * pass);
            uint64_t na = 0, nl = 0;
            const bool ends = k + 1 == c->sweeps && pass + 1 == passes;
            if (mode == FUSED && hb && pending) { /* the run before this heat bath */
                level_fused(dsp, &g, &s, c->replicas, &p, pending, c->threads);
                pending = 0;
            }
            for (int colour = 0; colour < 2; colour++)
                na += ref_step(&g, ref, c->replicas, J, &p, hb, colour, seed, names, b, nb);
            if (mode == FUSED) {
                if (!hb) {
                    na = 0;
                    if (++pending < kmax && !ends)
                        continue; /* compared when the run is done */
                    level_fused(dsp, &g, &s, c->replicas, &p, pending, c->threads);
                    pending = 0;
                } else {
                    nl = level_call(dsp, &g, &s, c->replicas, &p, hb, 0, LATMC_STEP_PAIR_WHOLE,
                                    seed, names, b, nb, c->threads);
                }
            } else if (mode == PLAIN) {
                for (int colour = 0; colour < 2; colour++)
                    nl += level_call(dsp, &g, &s, c->replicas, &p, hb, colour, -1, seed, names,
                                     b, nb, c->threads);
            } else if (mode == PAIR_WHOLE) {
                nl = level_call(dsp, &g, &s, c->replicas, &p, hb, 0, LATMC_STEP_PAIR_WHOLE, seed,
                                names, b, nb, c->threads);
            } else {
                /* every box's interior, then every box's border (the core's order) */
                for (int i = 0; i < nb; i++)
                    nl += level_call(dsp, &g, &s, c->replicas, &p, hb, 0,
                                     LATMC_STEP_PAIR_INTERIOR, seed, names, &b[i], 1,
                                     c->threads);
                for (int i = 0; i < nb; i++)
                    nl += level_call(dsp, &g, &s, c->replicas, &p, hb, 0, LATMC_STEP_PAIR_BORDER,
                                     seed, names, &b[i], 1, c->threads);
            }
            for (int r = 0; r < c->replicas; r++)
                cpu_heisenberg_soa_export_spins(&g, &s, r, back + 3 * g.nsites * r, 1);
            if (na != nl || memcmp(ref, back, nspin * sizeof *ref) != 0) {
                size_t i = 0;
                while (i < nspin && memcmp(&ref[i], &back[i], sizeof *ref) == 0)
                    i++;
                checkasm_fail(func, lv->name,
                              "%dD %lldx%lldx%lld, %d replica(s), couplings %d%s, beta %g h %g, "
                              "%d box(es), %d thread(s): sweep %llu pass %d (%s) differs: "
                              "updates %llu (C %llu), first differing spin %zu component %zu: "
                              "%a (C %a)",
                              c->ndim, (long long)g.lx, (long long)g.ly, (long long)g.lz,
                              c->replicas, c->couplings, c->zeros ? " with zeros" : "", c->beta,
                              c->h, nb, c->threads, (unsigned long long)sweep, pass,
                              hb ? "heat bath" : "overrelaxation", (unsigned long long)nl,
                              (unsigned long long)na, i / 3, i % 3,
                              i < nspin ? (double)back[i] : 0.0, i < nspin ? (double)ref[i] : 0.0);
                ok = 0;
            }
        }
    }
    cpu_heisenberg_soa_free(&s);
    free(ref);
    free(back);
    free(J);
    return ok;
}

#define U LATMC_COUPLINGS_UNIFORM
#define G LATMC_COUPLINGS_GAUSSIAN
#define B LATMC_COUPLINGS_BIMODAL
/* ndim, lx, ly, lz, replicas, couplings, zeros, heatbath, nover, beta, h, sweeps, first
 * sweep, boxes, threads */
static const struct heisenberg_case cases[] = {
    /* 3D, rows of whole vectors (L_x / 2 = 4, 8, 16, 32) */
    { 3, 8, 8, 8, 1, G, 0, 1, 1, 1.0, 0.0, 3, 0, 1, 1 },
    { 3, 16, 8, 6, 2, B, 0, 1, 2, 0.7, 0.3, 3, 5, 3, 1 },
    { 3, 32, 6, 6, 1, G, 1, 1, 0, 50.0, -0.3, 2, 0, 3, 1 },
    { 3, 64, 4, 4, 1, U, 0, 0, 2, 1.0, 0.0, 2, 0, 1, 1 },
    { 3, 8, 8, 8, 2, G, 1, 0, 3, 1.0, 1e3, 2, 0, 3, 1 },
    /* long rows (L_x / 2 = 128: the overrelaxation pipeline's interior vectors) */
    { 3, 256, 14, 4, 1, G, 0, 0, 2, 1.0, 0.0, 2, 0, 1, 1 },
    { 3, 256, 6, 6, 2, B, 1, 1, 1, 1.0, 0.3, 2, 0, 3, 1 },
    /* planes of 4096 sites, two replicas: the pair's replicas apart (pair_apart) */
    { 3, 64, 64, 4, 2, G, 0, 1, 1, 1.0, 0.0, 2, 0, 1, 1 },
    { 3, 64, 64, 6, 2, B, 1, 0, 2, 1.0, 0.3, 1, 0, 3, 2 },
    /* rows that are not (L_x / 2 = 1, 3, 5, 6, 9) */
    { 3, 2, 2, 2, 1, G, 0, 1, 1, 1.0, 0.0, 4, 0, 1, 1 },
    { 3, 6, 4, 6, 1, B, 1, 1, 1, 1e-9, 0.0, 3, 0, 3, 1 },
    { 3, 10, 6, 4, 2, G, 0, 1, 3, 1.0, 0.3, 2, 0, 1, 1 },
    { 3, 12, 6, 8, 1, G, 0, 0, 1, 1e6, 0.0, 3, 0, 3, 1 },
    { 3, 18, 4, 6, 1, U, 0, 1, 0, 0.0, 0.0, 3, 0, 1, 1 },
    { 3, 24, 8, 6, 2, G, 0, 1, 2, 1.1, 0.3, 2, 0, 3, 1 },
    /* small beta |h|: nearly every site on the heat bath's log1p branch */
    { 3, 16, 8, 8, 1, G, 0, 1, 1, 0.05, 0.0, 2, 0, 1, 1 },
    { 3, 16, 8, 8, 1, G, 1, 1, 1, 0.12, 0.3, 2, 0, 3, 1 },
    /* 2D (L_x / 2 = 1, 2 too) */
    { 2, 2, 4, 1, 1, G, 0, 1, 1, 1.0, 0.0, 3, 0, 1, 1 },
    { 2, 4, 6, 1, 2, B, 0, 1, 2, 0.7, 0.3, 3, 0, 3, 1 },
    { 2, 16, 16, 1, 1, G, 0, 1, 1, 1.0, 0.0, 3, 0, 1, 1 },
    { 2, 64, 12, 1, 2, B, 1, 1, 2, 0.5, -0.3, 3, 0, 3, 1 },
    { 2, 10, 14, 1, 1, G, 0, 0, 2, 1.0, 0.0, 3, 0, 3, 1 },
    { 2, 8, 6, 1, 1, G, 0, 1, 0, 50.0, 1e3, 3, 0, 1, 1 },
    /* fused overrelaxation runs (or_passes_soa): long runs across sweeps, heat bath
     * between runs, bands of 2 and 3 threads, planes not a multiple of the team */
    { 3, 16, 8, 24, 2, G, 0, 0, 6, 1.0, 0.3, 2, 0, 1, 1 },
    { 3, 8, 6, 32, 1, B, 1, 1, 5, 1.0, 0.0, 2, 0, 1, 2 },
    { 3, 16, 4, 38, 2, G, 0, 0, 4, 1.0, 1e3, 2, 0, 3, 3 },
    { 3, 32, 4, 18, 1, U, 0, 1, 3, 0.5, 0.0, 3, 0, 1, 1 },
    { 2, 16, 42, 1, 2, G, 1, 0, 5, 1.0, -0.3, 2, 0, 1, 2 },
    { 2, 64, 24, 1, 1, G, 0, 1, 7, 1.0, 0.0, 2, 0, 1, 1 },
    /* sweep numbers past 2^32 */
    { 3, 16, 8, 8, 1, G, 0, 1, 1, 1.0, 0.0, 2, (UINT64_C(1) << 40) + 7, 3, 1 },
    /* threads sharing a step (the reference's team shares need >= 32768 sites) */
    { 3, 64, 32, 32, 1, G, 0, 1, 1, 1.0, 0.0, 1, 0, 1, 2 },
    { 3, 64, 32, 32, 2, B, 0, 1, 0, 0.8, 0.1, 1, 0, 3, 3 },
    { 2, 256, 256, 1, 1, G, 0, 0, 2, 1.0, 0.0, 1, 0, 3, 2 },
};

static void check_mode(const struct checkasm_level *lv, const struct cpu_heisenberg_dsp *dsp,
                       int mode)
{
    const int before = checkasm_failures();
    const size_t n = sizeof cases / sizeof cases[0];
    size_t ran = 0;
    for (size_t i = 0; i < n; i++) {
        if (mode != PLAIN && (!dsp->pair_soa || (cases[i].lx / 2) % dsp->row_lanes != 0))
            continue; /* the pair is offered only there (heisenberg_step_caps) */
        if (mode == FUSED && (!dsp->or_passes_soa || fused_max(&(struct latmc_lattice){
                                  cases[i].ndim, cases[i].lx, cases[i].ly, cases[i].lz, 0 },
                                  cases[i].threads) < 2 ||
                              (cases[i].heatbath && cases[i].nover < 2)))
            continue; /* runs of at least 2 passes: the backend fuses no fewer */
        ran++;
        if (!run_case(lv, dsp, &cases[i], mode))
            return; /* one report per function and level */
    }
    if (checkasm_failures() == before && ran) {
        char what[80];
        snprintf(what, sizeof what, mode == FUSED ? "%zu lattices, 1 to 3 threads"
                                                  : "%zu lattices, 1 or 3 boxes, 1 to 3 threads",
                 ran);
        checkasm_ok(mode == PLAIN        ? "heisenberg.step"
                    : mode == PAIR_WHOLE ? "heisenberg.pair_soa whole"
                    : mode == FUSED      ? "heisenberg.or_passes_soa"
                                         : "heisenberg.pair_soa parts",
                    lv->name, what);
    }
}

/* ---- --bench ---- */

static volatile uint64_t bench_sink;

/* One step of colour call_ & 1 on L x rows x rows per call, one thread; the pair: one pass
 * per call. */
static void bench_steps(int64_t L, int64_t rows, bool hb)
{
    char func[64], pair_func[64];
    snprintf(func, sizeof func, "%s step 3D %lldx%lldx%lld", hb ? "hb" : "or", (long long)L,
             (long long)rows, (long long)rows);
    snprintf(pair_func, sizeof pair_func, "%s pass 3D %lldx%lldx%lld (pair)", hb ? "hb" : "or",
             (long long)L, (long long)rows, (long long)rows);
    struct latmc_lattice g = { 3, L, rows, rows, L * rows * rows };
    float *spins = malloc(3 * (size_t)g.nsites * sizeof *spins);
    float *J = malloc(3 * (size_t)g.nsites * sizeof *J);
    struct cpu_heisenberg_soa s;
    if (!spins || !J || cpu_heisenberg_soa_alloc(&g, 1, &s) != LATMC_OK) {
        checkasm_fail(func, "c", "out of memory");
        free(spins);
        free(J);
        return;
    }
    draw_couplings(&g, J, LATMC_COUPLINGS_GAUSSIAN, 1);
    cpu_heisenberg_hot_start(&g, spins, 2, 0, 1);
    cpu_heisenberg_soa_import_spins(&g, spins, &s, 0, 1);
    cpu_heisenberg_soa_import_couplings(&g, J, &s, 1);
    const struct latmc_heisenberg_params p = { 1.0, 0.0, 1 };
    struct latmc_box box;
    make_boxes(&g, 1, &box);
    uint64_t sweep = 0;
    /* the SoA layout: spins 3 doubles, couplings 3 floats a site. A step (one colour):
     * every spin and coupling read, the colour's spins written; the pair (both colours,
     * one wavefront): each read once, every spin written. Overrelaxation draws nothing;
     * the heat bath two per update (cos theta and the azimuth). */
    const double n = (double)g.nsites, draws = hb ? 2 : 0;
    checkasm_ceiling_work(func, &(struct checkasm_work){ n / 2, draws, 36 * n, 12 * n });
    checkasm_bench(func, "c", CHECKASM_BEST_NS(4, bench_sink += ref_step(
        &g, spins, 1, J, &p, hb, call_ & 1, 3, sweep_names(sweep++), &box, 1)));
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_heisenberg_dsp dsp;
        if (levels[l].emulated || !level_dsp(&levels[l], &dsp))
            continue;
        checkasm_bench(func, levels[l].name, CHECKASM_BEST_NS(4, bench_sink += level_call(
            &dsp, &g, &s, 1, &p, hb, call_ & 1, -1, 3, sweep_names(sweep++), &box, 1, 1)));
    }
    /* the pass: two C steps against the level's pair */
    checkasm_ceiling_work(pair_func, &(struct checkasm_work){ n, draws, 36 * n, 24 * n });
    checkasm_bench(pair_func, "c", CHECKASM_BEST_NS(2, {
        const struct heisenberg_names names = sweep_names(sweep++);
        bench_sink += ref_step(&g, spins, 1, J, &p, hb, 0, 3, names, &box, 1);
        bench_sink += ref_step(&g, spins, 1, J, &p, hb, 1, 3, names, &box, 1);
    }));
    for (int l = 0; l < nl; l++) {
        struct cpu_heisenberg_dsp dsp;
        if (levels[l].emulated || !level_dsp(&levels[l], &dsp) || !dsp.pair_soa)
            continue;
        checkasm_bench(pair_func, levels[l].name, CHECKASM_BEST_NS(2, bench_sink += level_call(
            &dsp, &g, &s, 1, &p, hb, 0, LATMC_STEP_PAIR_WHOLE, 3, sweep_names(sweep++), &box, 1,
            1)));
    }
    cpu_heisenberg_soa_free(&s);
    free(spins);
    free(J);
}

void checkasm_check_heisenberg(void)
{
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_heisenberg_dsp dsp;
        if (!level_dsp(&levels[l], &dsp)) {
            printf("  heisenberg: level %s not built: skipped\n", levels[l].name);
            continue;
        }
        check_mode(&levels[l], &dsp, PLAIN);
        check_mode(&levels[l], &dsp, PAIR_WHOLE);
        check_mode(&levels[l], &dsp, PAIR_PARTS);
        check_mode(&levels[l], &dsp, FUSED);
    }
    if (checkasm_bench_on()) {
        const int64_t L = checkasm_quick() ? 8 : 64;
        bench_steps(L, L, false);
        bench_steps(L, L, true);
        if (checkasm_in_cache_rows()) { /* the same rows, few of them: in L2 */
            bench_steps(L, 8, false);
            bench_steps(L, 8, true);
        }
    }
}
