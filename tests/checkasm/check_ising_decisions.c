/*
 * checkasm, the bit-sliced Ising decisions (decisions = 1, doc/models/ising-decisions.md):
 * the SIMD kernels (backends/cpu/ising/ising_decisions_simd_tmpl.h: cpu_ising_decisions_range_avx2,
 * _avx512, and _avx512 emulated with SIMDe) on the split rows against the C reference
 * (cpu_ising_decisions_range) on the C level's int8 sites, bit for bit: after every colour
 * step the spins and the changed count. Cases: 2D and 3D, Metropolis and heat bath,
 * uniform and +-J, h != 0 and J < 0 (up to seven open threshold classes), beta = 0 and
 * beta so large that thresholds are 0 or 2^32, rows of whole batches, of a few groups (a
 * batch across rows), of groups across rows (the C path), ranges cut inside groups, and
 * team members sharing the groups (each member's call alone, as a thread runs it), sweep
 * numbers at and beyond 2^32. The same lattices as sweeps of the fused pair (both colours
 * in one wavefront, one box or two, cpu_ising_dec_pair) against the C reference's two
 * colour steps. --bench: one colour of 2D 1024^2 and 3D 128^3 per call.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/sim.h> /* LATMC_ALGO_* */

#include "check_ising_common.h"
#include "checkasm.h"
#include "checkasm_bench.h"
#include "coupling_fill.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "decision.h"
#include "ising_decisions.h"
#include "ising_ref.h"
#include "ising_split.h"
#include "step.h"

#if CHECKASM_ISING_DEC_EMU512
/* ising_decisions_avx512.c built once more with SIMDe's emulated intrinsics (meson.build) */
void cpu_ising_dec_dsp_init_avx512_emulated(struct cpu_ising_dec_dsp *dsp);
#endif

/* The level's table, or 0 when this build has no bit-sliced kernels for it. */
static int level_dsp(const struct checkasm_level *lv, struct cpu_ising_dec_dsp *dsp)
{
    cpu_ising_dec_dsp_init(dsp, 0); /* the C entries first, as every table */
    if (lv->emulated) {
#if CHECKASM_ISING_DEC_EMU512
        cpu_ising_dec_dsp_init_avx512_emulated(dsp);
        return 1;
#else
        return 0;
#endif
    }
    cpu_ising_dec_dsp_init(dsp, lv->flags);
    return strcmp(dsp->level, lv->name) == 0;
}

struct dec_case {
    int ndim;
    int64_t lx, ly, lz;
    double beta, J, h;
    int pmj;          /* +-J couplings */
    int sweeps;
    uint64_t first_sweep;
    int members;      /* team members sharing each step */
    int cut;          /* 1: the colour's range in three pieces cut inside groups */
};

/* One colour step over [j0, j1) by `members` members, each call alone. */
static uint64_t run_range(cpu_ising_decisions_range_fn f, const struct cpu_ising_dec_view *v,
                          const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                          const struct latmc_step *step, int64_t j0, int64_t j1, int members)
{
    uint64_t changed = 0;
    for (int m = 0; m < members; m++) {
        const struct cpu_team team = { m, members };
        changed += f(v, t, algorithm, seed, step, j0, j1, &team);
    }
    return changed;
}

/* One colour step over the colour's sites, whole or in pieces (c->cut). */
static uint64_t run_step(cpu_ising_decisions_range_fn f, const struct cpu_ising_dec_view *v,
                         const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                         const struct latmc_step *step, const struct dec_case *c,
                         const int64_t cuts[2])
{
    const int64_t n = v->global->nsites / 2;
    if (!c->cut)
        return run_range(f, v, t, algorithm, seed, step, 0, n, c->members);
    return run_range(f, v, t, algorithm, seed, step, 0, cuts[0], c->members) +
           run_range(f, v, t, algorithm, seed, step, cuts[0], cuts[1], c->members) +
           run_range(f, v, t, algorithm, seed, step, cuts[1], n, c->members);
}

/* How a sweep of the fused pair runs (pair_sweep). */
enum pair_form {
    ONE_BOX,    /* PAIR_WHOLE on one box */
    TWO_BOXES,  /* PAIR_INTERIOR on two boxes, then PAIR_BORDER */
    THREE_UNITS /* PAIR_WHOLE, the wavefront's calls of 3 units (rows / planes) each */
};

/*
 * One sweep of the fused pair (ising_split.h's wavefront, as the library runs the PAIR
 * parts) on the split rows, units: rows in 2D, planes in 3D.
 */
static uint64_t pair_sweep(cpu_ising_dec_prepare_fn prepare, cpu_ising_dec_range_pass_fn range_pass,
                           const struct latmc_lattice *g, const struct cpu_ising_split *s,
                           const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                           const struct latmc_step pair[2], enum pair_form form)
{
    const int two_boxes = form == TWO_BOXES;
    const int axis = g->ndim - 1;
    const int64_t units = g->ndim == 3 ? g->lz : g->ly;
    struct latmc_box boxes[2] = { { .axis = axis, .halo = 1 }, { .axis = axis, .halo = 1 } };
    boxes[0].extent[axis] = two_boxes ? units / 2 : units;
    boxes[1].origin[axis] = units / 2;
    boxes[1].extent[axis] = units - units / 2;
    const struct cpu_team alone = cpu_team_alone();
    struct cpu_ising_dec_pair run; /* two prepared passes: 24 kB */
    cpu_ising_dec_pair_setup(&run, prepare, range_pass, g, t, algorithm, seed, pair);
    if (form == THREE_UNITS) /* the lattices here are a call or two of the default */
        run.runner.min_sites = 3 * s->half * (g->ndim == 3 ? g->ly : 1);
    if (!two_boxes)
        return cpu_ising_split_boxes_interior(s, &run.runner, boxes, 1, true, &alone);
    return cpu_ising_split_boxes_interior(s, &run.runner, boxes, 2, false, &alone) +
           cpu_ising_split_boxes_border(s, &run.runner, boxes, 2, &alone);
}

/* A case's lattice, tables, random start (natural in ref, split in s) and +-J couplings. */
struct dec_fixture {
    struct latmc_lattice g;
    struct latmc_ising_tables t;
    int8_t *ref, *out, *eps;
    struct cpu_ising_split s;
};

/* 1 when set up; 0 after a failure (reported, everything freed). */
static int fixture_setup(struct dec_fixture *x, const struct checkasm_level *lv, const char *func,
                         const struct dec_case *c)
{
    x->g = (struct latmc_lattice){ c->ndim, c->lx, c->ly, c->ndim == 3 ? c->lz : 1, 0 };
    x->g.nsites = x->g.lx * x->g.ly * x->g.lz;
    checkasm_ising_tables(&x->t, c->ndim, c->beta, c->J, c->h);
    x->ref = malloc((size_t)x->g.nsites);
    x->out = malloc((size_t)x->g.nsites);
    x->eps = c->pmj ? malloc((size_t)(x->g.nsites * c->ndim)) : NULL;
    const int split_ok = cpu_ising_split_alloc(&x->s, &x->g) == 0;
    if (!x->ref || !x->out || (c->pmj && !x->eps) || !split_ok ||
        (c->pmj && cpu_ising_split_alloc_bonds(&x->s) != 0)) {
        checkasm_fail(func, lv->name, "out of memory");
        if (split_ok)
            cpu_ising_split_free(&x->s);
        free(x->ref);
        free(x->out);
        free(x->eps);
        return 0;
    }
    for (int64_t i = 0; i < x->g.nsites; i++)
        x->ref[i] = (int8_t)checkasm_rand_pm1();
    cpu_ising_split_from_natural(&x->s, x->ref, 1);
    if (c->pmj) {
        cpu_draw_couplings(x->eps, CPU_COUPLINGS_I8_BIMODAL, 0, x->g.nsites * x->g.ndim,
                           checkasm_rand(), 1, 0);
        cpu_ising_split_bonds_from_eps(&x->s, x->eps, 1);
    }
    return 1;
}

static void fixture_free(struct dec_fixture *x)
{
    cpu_ising_split_free(&x->s);
    free(x->eps);
    free(x->ref);
    free(x->out);
}

/* One case as sweeps of the fused pair against the C reference's two colour steps; 0
 * after a mismatch (reported). */
static int run_case_pair(const struct checkasm_level *lv, cpu_ising_dec_prepare_fn prepare,
                         cpu_ising_dec_range_pass_fn range_pass, const struct dec_case *c,
                         int algorithm)
{
    const char *func = c->pmj ? "ising.decisions_pair +-J" : "ising.decisions_pair";
    struct dec_fixture x;
    if (!fixture_setup(&x, lv, func, c))
        return 0;
    const struct latmc_lattice g = x.g;
    const struct latmc_ising_tables t = x.t;
    int8_t *ref = x.ref, *out = x.out, *eps = x.eps;
    struct cpu_ising_split *s = &x.s;
    int ok = 1;
    const struct cpu_ising_dec_view vref = { &g, &g, 0, ref, NULL, eps };
    const struct cpu_team alone = cpu_team_alone();
    const uint64_t seed = checkasm_rand();
    const int64_t units = g.ndim == 3 ? g.lz : g.ly;
    for (int k = 0; ok && k < c->sweeps; k++) {
        const uint64_t sweep = c->first_sweep + (uint64_t)k;
        struct latmc_step pair[2];
        uint64_t na = 0;
        for (int colour = 0; colour < 2; colour++) {
            pair[colour] = latmc_step_name(colour, LATMC_STEP_COLOUR_BITSLICED, colour, 0, sweep,
                                           (uint32_t)colour, 0);
            na += cpu_ising_decisions_range(&vref, &t, algorithm, seed, &pair[colour], 0,
                                            g.nsites / 2, &alone);
        }
        /* the forms in turn (two boxes where each can have 2 units) */
        enum pair_form form = (enum pair_form)(k % 3);
        if (form == TWO_BOXES && units < 4)
            form = ONE_BOX;
        const uint64_t nb = pair_sweep(prepare, range_pass, &g, s, &t, algorithm, seed, pair,
                                       form);
        cpu_ising_split_to_natural(s, out, 1);
        if (na != nb || memcmp(ref, out, (size_t)g.nsites) != 0) {
            int64_t i = 0;
            while (i < g.nsites && ref[i] == out[i])
                i++;
            checkasm_fail(func, lv->name,
                          "%dD %lldx%lldx%lld %s beta %g J %g h %g, %s: sweep %llu differs: "
                          "changed %llu (C %llu), first differing site %lld of %lld",
                          c->ndim, (long long)c->lx, (long long)c->ly, (long long)g.lz,
                          algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
                          c->beta, c->J, c->h,
                          form == TWO_BOXES ? "two boxes" : form == ONE_BOX ? "one box"
                                                                           : "calls of 3 units",
                          (unsigned long long)sweep, (unsigned long long)nb,
                          (unsigned long long)na, (long long)i, (long long)g.nsites);
            ok = 0;
        }
    }
    fixture_free(&x);
    return ok;
}

/* One case with one algorithm at one level; 0 after a mismatch (reported). */
static int run_case(const struct checkasm_level *lv, cpu_ising_decisions_range_fn f,
                    const struct dec_case *c, int algorithm)
{
    const char *func = c->pmj ? "ising.decisions_range +-J" : "ising.decisions_range";
    struct dec_fixture x;
    if (!fixture_setup(&x, lv, func, c))
        return 0;
    const struct latmc_lattice g = x.g;
    const struct latmc_ising_tables t = x.t;
    int8_t *ref = x.ref, *out = x.out, *eps = x.eps;
    struct cpu_ising_split *s = &x.s;
    int ok = 1;
    const struct cpu_ising_dec_view vref = { &g, &g, 0, ref, NULL, eps };
    const struct cpu_ising_dec_view vsimd = { &g, &g, 0, NULL, s, NULL };
    const uint64_t seed = checkasm_rand();
    for (int k = 0; ok && k < c->sweeps; k++)
        for (int colour = 0; ok && colour < 2; colour++) {
            const uint64_t sweep = c->first_sweep + (uint64_t)k;
            const struct latmc_step step = latmc_step_name(colour, LATMC_STEP_COLOUR_BITSLICED,
                                                           colour, 0, sweep, (uint32_t)colour, 0);
            /* cuts anywhere (inside groups too) */
            const int64_t n = g.nsites / 2;
            int64_t cuts[2] = { (int64_t)(checkasm_rand() % (uint64_t)(n + 1)),
                                (int64_t)(checkasm_rand() % (uint64_t)(n + 1)) };
            if (cuts[0] > cuts[1]) {
                const int64_t first = cuts[1];
                cuts[1] = cuts[0];
                cuts[0] = first;
            }
            const uint64_t na = run_step(cpu_ising_decisions_range, &vref, &t, algorithm, seed,
                                         &step, c, cuts);
            const uint64_t nb = run_step(f, &vsimd, &t, algorithm, seed, &step, c, cuts);
            cpu_ising_split_to_natural(s, out, 1);
            if (na != nb || memcmp(ref, out, (size_t)g.nsites) != 0) {
                int64_t i = 0;
                while (i < g.nsites && ref[i] == out[i])
                    i++;
                checkasm_fail(func, lv->name,
                              "%dD %lldx%lldx%lld %s beta %g J %g h %g, %d member(s), cut %d: "
                              "sweep %llu colour %d differs: changed %llu (C %llu), first "
                              "differing site %lld of %lld",
                              c->ndim, (long long)c->lx, (long long)c->ly, (long long)g.lz,
                              algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
                              c->beta, c->J, c->h, c->members, c->cut,
                              (unsigned long long)sweep, colour, (unsigned long long)nb,
                              (unsigned long long)na, (long long)i, (long long)g.nsites);
                ok = 0;
            }
        }
    fixture_free(&x);
    return ok;
}

/* ndim, lx, ly, lz, beta, J, h, pmj, sweeps, first sweep, members, cut; each runs with both
 * algorithms. AVX2 batches 8 groups (256 sites of a colour), AVX-512 16 (512). */
static const struct dec_case cases[] = {
    /* rows of whole batches at both widths (L_x / 2 a multiple of 512) */
    { 2, 1024, 6, 1, 0.44, 1, 0, 0, 3, 0, 1, 0 },
    { 2, 1024, 4, 1, 0.6666666667, 1, 0, 0, 3, 5, 1, 0 },
    { 2, 2048, 2, 1, 0.2, 1, 0.3, 0, 2, 0, 1, 0 },
    /* whole batches at one width, a batch across rows at the other; a few groups a row */
    { 2, 512, 8, 1, 0.44, 1, 0.1, 0, 3, 0, 1, 0 },
    { 2, 128, 16, 1, 0.44, 1, 0, 0, 3, 0, 1, 0 },
    { 2, 64, 40, 1, 0.3, -1, 0.2, 0, 3, 1, 1, 0 },
    { 2, 192, 12, 1, 0.5, 1, -0.4, 0, 3, 0, 1, 0 },
    /* groups across rows (the C path) mixed with whole ones */
    { 2, 96, 20, 1, 0.44, 1, 0, 0, 3, 0, 1, 0 },
    { 2, 100, 14, 1, 0.44, 1, 0.1, 0, 3, 0, 1, 0 },
    { 2, 6, 30, 1, 0.3, 1, 0, 0, 3, 0, 1, 0 },
    { 2, 2, 64, 1, 0.3, 1, 0.2, 0, 3, 0, 1, 0 },
    /* beta = 0, thresholds 0 and 2^32 only, tiny beta, J = 0 */
    { 2, 1024, 2, 1, 0, 1, 0.5, 0, 2, 0, 1, 0 },
    { 2, 512, 4, 1, 50, 1, 0.3, 0, 2, 0, 1, 0 },
    { 2, 256, 4, 1, 1e6, -1, 0.7, 0, 2, 0, 1, 0 },
    { 2, 512, 4, 1, 1e-9, 1, 0, 0, 2, 0, 1, 0 },
    { 2, 512, 4, 1, 0.7, 0, 2.0, 0, 2, 0, 1, 0 },
    /* sweep numbers at and beyond 2^32 */
    { 2, 1024, 2, 1, 0.44, 1, 0, 0, 2, UINT64_C(0xffffffff), 1, 0 },
    { 2, 512, 4, 1, 0.44, 1, 0.2, 0, 2, (UINT64_C(1) << 40) + 5, 1, 0 },
    /* ranges cut inside groups, team members */
    { 2, 1024, 8, 1, 0.44, 1, 0, 0, 2, 0, 3, 1 },
    { 2, 256, 16, 1, 0.5, 1, 0.1, 0, 2, 0, 2, 1 },
    { 2, 100, 20, 1, 0.44, 1, 0, 0, 2, 0, 3, 1 },
    { 3, 64, 8, 6, 0.3, 1, 0.1, 0, 2, 0, 3, 1 },
    /* 3D: seven open classes with h != 0 */
    { 3, 1024, 2, 2, 0.22, 1, 0, 0, 2, 0, 1, 0 },
    { 3, 64, 8, 8, 0.22, 1, 0, 0, 3, 0, 1, 0 },
    { 3, 32, 8, 6, 0.3, 1, 0.37, 0, 3, 0, 1, 0 },
    { 3, 128, 4, 4, 0.3, -1, 0.2, 0, 3, 3, 1, 0 },
    { 3, 10, 6, 4, 0.22, 1, 0.3, 0, 3, 0, 1, 0 },
    { 3, 2, 2, 2, 0.4, 1, 0, 0, 4, 0, 1, 0 },
    { 3, 64, 4, 4, 40, 1, 0.5, 0, 2, 0, 1, 0 },
    /* +-J */
    { 2, 1024, 4, 1, 0.44, 1, 0, 1, 3, 0, 1, 0 },
    { 2, 128, 16, 1, 0.3, -0.7, 0.25, 1, 3, 7, 1, 0 },
    { 2, 100, 10, 1, 0.5, 1, 0.1, 1, 3, 0, 2, 1 },
    { 2, 512, 4, 1, 50, -1, 0.3, 1, 2, 0, 1, 0 },
    { 3, 512, 2, 4, 0.3, 1, 0, 1, 3, 0, 1, 0 },
    { 3, 64, 8, 4, 0.3, 1, 0.3, 1, 3, 0, 1, 0 },
    { 3, 10, 6, 4, 0.22, -1, 0.3, 1, 3, 0, 3, 1 },
};

static void check_level(const struct checkasm_level *lv, const struct cpu_ising_dec_dsp *dsp)
{
    const int before = checkasm_failures();
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int a = 0; a < 2; a++)
            if (!run_case(lv, dsp->range, &cases[i],
                          a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS))
                return; /* one report per level */
    char what[80];
    snprintf(what, sizeof what, "%zu lattices x 2 algorithms", sizeof cases / sizeof cases[0]);
    if (checkasm_failures() == before)
        checkasm_ok("ising.decisions_range", lv->name, what);
    /* the fused pair: the cases whose ranges are whole colours of one member */
    if (!dsp->prepare || !dsp->range_pass)
        return;
    size_t n = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (cases[i].cut || cases[i].members != 1)
            continue;
        n++;
        for (int a = 0; a < 2; a++)
            if (!run_case_pair(lv, dsp->prepare, dsp->range_pass, &cases[i],
                               a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS))
                return;
    }
    if (checkasm_failures() == before) {
        snprintf(what, sizeof what,
                 "%zu lattices x 2 algorithms, 1 and 2 boxes, calls of 1 and 3 units", n);
        checkasm_ok("ising.decisions_pair", lv->name, what);
    }
}

/* ---- --bench ---- */

static volatile uint64_t bench_sink;

/* Colour step number `call` of the bench (colours alternate, a new sweep every second). */
static uint64_t bench_step(cpu_ising_decisions_range_fn f, const struct cpu_ising_dec_view *v,
                           const struct latmc_ising_tables *t, int algorithm, int call)
{
    static uint64_t sweep;
    const struct cpu_team alone = cpu_team_alone();
    const struct latmc_step step = latmc_step_name(
        call & 1, LATMC_STEP_COLOUR_BITSLICED, call & 1, 0, sweep, (uint32_t)(call & 1), 0);
    sweep += call & 1;
    return f(v, t, algorithm, 1, &step, 0, v->global->nsites / 2, &alone);
}

static void bench_case(int ndim, int64_t L, int64_t rows, int algorithm)
{
    char func[64];
    char size[40];
    snprintf(size, sizeof size, rows == L ? "%lld" : "%lldx%lld", (long long)L, (long long)rows);
    snprintf(func, sizeof func, "decisions %dD %s %s", ndim, size,
             algorithm == LATMC_ALGO_HEATBATH ? "hb" : "metro");
    struct checkasm_ising_bench b;
    if (!checkasm_ising_bench_open(&b, func, ndim, L, rows))
        return;
    /* one colour: at least 2 Philox blocks (8 draws) per 32 flips, blocks 0 and 1 of every
     * group (more for the queued sites); bytes as the multi-spin kernels' */
    const double n = (double)b.g.nsites;
    checkasm_ceiling_work(func, &(struct checkasm_work){ n / 2, 0.25, n, n / 2 });
    const int calls = ndim == 3 ? 8 : 16;
    const struct cpu_ising_dec_view vref = { &b.g, &b.g, 0, b.spins, NULL, NULL };
    const struct cpu_ising_dec_view vsimd = { &b.g, &b.g, 0, NULL, &b.s, NULL };
    struct cpu_ising_dec_dsp dsp;
    cpu_ising_dec_dsp_init(&dsp, 0);
    checkasm_bench(func, "c", CHECKASM_BEST_NS(calls, bench_sink += bench_step(
                                                  dsp.range, &vref, &b.t, algorithm, call_)));
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++)
        if (!levels[l].emulated && level_dsp(&levels[l], &dsp))
            checkasm_bench(func, levels[l].name, CHECKASM_BEST_NS(calls, bench_sink += bench_step(
                                                     dsp.range, &vsimd, &b.t, algorithm, call_)));
    checkasm_ising_bench_close(&b);
}

void checkasm_check_ising_decisions(void)
{
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_ising_dec_dsp dsp;
        if (!level_dsp(&levels[l], &dsp)) {
            printf("  ising decisions: level %s not built: skipped\n", levels[l].name);
            continue;
        }
        check_level(&levels[l], &dsp);
    }
    if (checkasm_bench_on()) {
        const int64_t l2 = checkasm_quick() ? 64 : 1024, l3 = checkasm_quick() ? 16 : 128;
        bench_case(2, l2, l2, LATMC_ALGO_METROPOLIS);
        bench_case(2, l2, l2, LATMC_ALGO_HEATBATH);
        bench_case(3, l3, l3, LATMC_ALGO_METROPOLIS);
        bench_case(3, l3, l3, LATMC_ALGO_HEATBATH);
        if (checkasm_in_cache_rows()) { /* the same rows, few of them: in L1 */
            bench_case(2, l2, 8, LATMC_ALGO_METROPOLIS);
            bench_case(3, l3, 8, LATMC_ALGO_METROPOLIS);
        }
    }
}
