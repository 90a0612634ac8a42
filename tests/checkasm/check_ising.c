/*
 * checkasm, Ising (backends/cpu/ising/ising_split.h): the functions of struct cpu_ising_dsp at
 * every level against the C reference.
 *
 *   draws        the level's Philox against the scalar generator (lib/philox.h), counter
 *                words anywhere, first blocks near 0, around 2^32 and anywhere;
 *   draws_xor    the generator as the kernels run it (the Philox ceiling's probe);
 *   colour_rows  (with prepare) a sweep on the split layout, the library's fused pair of
 *                colours on one box on 1 to 3 threads, against the reference sweep
 *                (cpu_ising_colour_range) on the natural layout, compared after every
 *                sweep: spins, changed count, bond and spin sums. Cases: 2D and 3D,
 *                Metropolis and heat bath, h != 0, J < 0, beta = 0 and beta so large that
 *                thresholds are 0 (the "never" variants), rows on a group of Philox blocks
 *                or not (the two row drivers of ising_simd_tmpl.h), tails, extents of 2,
 *                AVX-512's narrow rows (L_x 16 and 32), sweep numbers at and beyond 2^32,
 *                random, hot and cold starts;
 *   colour_rows +-J  the same with bimodal couplings (the coupled variants), the couplings
 *                redrawn between sweeps (random, all -1, a third flipped) and the bond
 *                plane rebuilt;
 *   measure_rows (and +-J) random lattices measured in runs of rows with their columns
 *                counted, the C level's too: the sums against the natural layout's
 *                reduction, each row's and column's up count against a direct count.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_ising_common.h"
#include "checkasm.h"
#include "checkasm_bench.h"
#include "coupling_fill.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "decision.h"
#include "ising_ref.h"
#include "ising_rules.h"
#include "ising_split.h"
#include "philox.h"
#include "rng_streams.h"

#if CHECKASM_ISING_EMU512
/* ising_avx512.c built once more with SIMDe's emulated intrinsics (meson.build) */
void cpu_ising_dsp_init_avx512_emulated(struct cpu_ising_dsp *dsp);
#endif

/* The level's table, or 0 when this build has no Ising kernels for it. */
static int level_dsp(const struct checkasm_level *lv, struct cpu_ising_dsp *dsp)
{
    memset(dsp, 0, sizeof *dsp);
    if (lv->emulated) {
#if CHECKASM_ISING_EMU512
        cpu_ising_dsp_init(dsp, 0); /* the C entries first, as every table */
        cpu_ising_dsp_init_avx512_emulated(dsp);
        return 1;
#else
        return 0;
#endif
    }
    cpu_ising_dsp_init(dsp, lv->flags);
    return strcmp(dsp->level, lv->name) == 0;
}

/* ---- draws, draws_xor ---- */

static void check_draws(const struct checkasm_level *lv, const struct cpu_ising_dsp *dsp)
{
    uint32_t out[32 * 5];
    for (int trial = 0; trial < 100; trial++) {
        const uint64_t seed = checkasm_rand(), r = checkasm_rand();
        const uint32_t c1 = (uint32_t)r, c2 = (uint32_t)(r >> 32);
        const uint32_t c3 = (uint32_t)checkasm_rand();
        /* first blocks near 0, near 2^32 (the low word wraps inside the run), anywhere */
        uint64_t first = checkasm_rand() & UINT64_C(0xfffffffffff8);
        if (trial % 3 == 0)
            first &= 0xff8;
        else if (trial % 3 == 1)
            first = UINT64_C(0xffffffe0) - 8 * (uint64_t)(trial & 3);
        const struct latmc_rng_name name = { c1, c2, c3 };
        dsp->draws(seed, name, first, 5, out);
        for (int m = 0; m < 32 * 5; m++) {
            const latmc_philox_ctr cnt = { { (uint32_t)(first + (uint64_t)(m / 4)), c1, c2,
                                             c3 } };
            const uint32_t want = latmc_philox4x32_10(cnt, latmc_rng_key(seed)).v[m % 4];
            if (out[m] != want) {
                checkasm_fail("ising.draws", lv->name, "seed %llu block %llu lane %d: %08x, "
                              "the scalar generator %08x", (unsigned long long)seed,
                              (unsigned long long)(first + (uint64_t)m / 4), m % 4, out[m],
                              want);
                return;
            }
        }
    }
    checkasm_ok("ising.draws", lv->name, "100 runs of 40 blocks");
}

/* The C reference of draws_xor: the xor of all draws of blocks [first, first + 8 n). */
static uint32_t draws_xor_c(uint64_t seed, uint64_t first, int64_t n)
{
    uint32_t x = 0;
    for (uint64_t b = first; b < first + 8 * (uint64_t)n; b++) {
        const latmc_philox_ctr cnt = { { (uint32_t)b, 0, 0, 0 } };
        const latmc_philox_ctr u = latmc_philox4x32_10(cnt, latmc_rng_key(seed));
        x ^= u.v[0] ^ u.v[1] ^ u.v[2] ^ u.v[3];
    }
    return x;
}

static void check_draws_xor(const struct checkasm_level *lv, const struct cpu_ising_dsp *dsp)
{
    for (int trial = 0; trial < 20; trial++) {
        const uint64_t seed = checkasm_rand(), first = (checkasm_rand() & 0xffff) * 8;
        const int64_t n = 2 * (1 + trial % 4);
        const uint32_t got = dsp->draws_xor(seed, first, n), want = draws_xor_c(seed, first, n);
        if (got != want) {
            checkasm_fail("ising.draws_xor", lv->name, "seed %llu first %llu n %lld: %08x, "
                          "the scalar generator %08x", (unsigned long long)seed,
                          (unsigned long long)first, (long long)n, got, want);
            return;
        }
    }
    checkasm_ok("ising.draws_xor", lv->name, "20 runs");
}

/* ---- colour_rows ---- */

/* New +-1 couplings after sweep k of a +-J run: random, all -1, a random third flipped. */
static void redraw(int8_t *eps, int64_t n, int k)
{
    for (int64_t i = 0; i < n; i++) {
        if (k % 3 == 0)
            eps[i] = (int8_t)checkasm_rand_pm1();
        else if (k % 3 == 1)
            eps[i] = -1;
        else if (checkasm_rand() % 3 == 0)
            eps[i] = (int8_t)-eps[i];
    }
}

/* The Ising chain's steps of sweep `sweep` (lib/model_ising.c's step_of: colour c, its
 * draws latmc_ising_rng_name; tests/unit/test_step.c checks the two agree). */
static void sweep_steps(uint64_t sweep, struct latmc_step steps[2])
{
    for (int c = 0; c < 2; c++)
        steps[c] = latmc_step_name(c, LATMC_STEP_COLOUR, c, 0, sweep, (uint32_t)c, 0);
}

/* The reference sweep: colour 0, then colour 1, each on all its checkerboard numbers (the
 * C level's steps on one box). eps NULL: uniform couplings. */
static uint64_t reference_sweep(const struct latmc_lattice *g, int8_t *spins, const int8_t *eps,
                                const struct latmc_ising_tables *t, int algorithm,
                                uint64_t seed, uint64_t sweep)
{
    const struct cpu_team alone = cpu_team_alone();
    uint64_t changed = 0;
    for (int colour = 0; colour < 2; colour++)
        changed += cpu_ising_colour_range(g, spins, eps, t, algorithm, seed,
                                          latmc_ising_rng_name(sweep, colour), colour, 0,
                                          g->nsites / 2, &alone);
    return changed;
}

/* One sweep of the split layout as the library runs it on one box: the plan's fused pair
 * (LATMC_STEP_PAIR_WHOLE, cpu_run_steps), on `threads` members where OpenMP is there. */
static uint64_t split_sweep(const struct cpu_ising_split *s, const struct cpu_ising_dsp *dsp,
                            const struct cpu_ising_decisions *d, uint64_t seed, uint64_t sweep,
                            int threads)
{
    struct latmc_box box = { .axis = s->ndim - 1, .halo = 1 };
    box.extent[box.axis] = s->ndim == 3 ? s->rows / s->ly : s->rows; /* units */
    struct latmc_step pair[2];
    sweep_steps(sweep, pair);
    uint64_t changed = 0;
    if (!cpu_use_threads(threads, s->rows * s->half)) {
        const struct cpu_team alone = cpu_team_alone();
        struct cpu_ising_pair_simd run;
        cpu_ising_pair_simd_setup(&run, dsp, d, seed, pair);
        return cpu_ising_split_boxes_interior(s, &run.runner, &box, 1, true, &alone);
    }
#ifdef _OPENMP
    LATMC_OMP(parallel num_threads(threads) reduction(+:changed))
    {
        const struct cpu_team team = { omp_get_thread_num(), omp_get_num_threads() };
        struct cpu_ising_pair_simd run;
        cpu_ising_pair_simd_setup(&run, dsp, d, seed, pair);
        changed += cpu_ising_split_boxes_interior(s, &run.runner, &box, 1, true, &team);
    }
#endif
    return changed;
}

enum { RANDOM = 0, HOT = 1, COLD = 2 };

struct ising_case {
    int ndim;
    int64_t lx, ly, lz;
    int algorithm;
    double beta, J, h;
    int sweeps;
    uint64_t first_sweep;
    int start;   /* RANDOM (the harness's generator), HOT (the layouts' hot starts), COLD */
    int pmj;     /* 0 uniform; 1 +-J couplings; 2 +-J, redrawn after every sweep but the last */
    int threads;
};

/* One case at one level; 0 after a mismatch (reported). */
static int run_case(const struct checkasm_level *lv, const struct cpu_ising_dsp *dsp,
                    const struct ising_case *c)
{
    const char *func = c->pmj ? "ising.colour_rows +-J" : "ising.colour_rows";
    struct latmc_lattice g = { c->ndim, c->lx, c->ly, c->ndim == 3 ? c->lz : 1, 0 };
    g.nsites = g.lx * g.ly * g.lz;
    struct latmc_ising_tables t;
    checkasm_ising_tables(&t, c->ndim, c->beta, c->J, c->h);
    struct cpu_ising_decisions dec;
    cpu_ising_decisions_build(&dec, &t, c->ndim, c->algorithm);
    int8_t *ref = malloc((size_t)g.nsites), *out = malloc((size_t)g.nsites);
    int8_t *eps = c->pmj ? malloc((size_t)(g.nsites * c->ndim)) : NULL;
    struct cpu_ising_split s;
    if (!ref || !out || (c->pmj && !eps) || cpu_ising_split_alloc(&s, &g) != 0) {
        checkasm_fail(func, lv->name, "out of memory");
        free(ref);
        free(out);
        free(eps);
        return 0;
    }
    const uint64_t seed = checkasm_rand();
    for (int64_t i = 0; i < g.nsites; i++)
        ref[i] = c->start == COLD ? 1 : (int8_t)checkasm_rand_pm1();
    if (c->start == HOT) {
        cpu_ising_hot_start(&g, ref, seed, 1);
        cpu_ising_split_hot(&s, seed, c->threads);
    } else {
        cpu_ising_split_from_natural(&s, ref, 1);
    }
    int ok = 1;
    if (c->pmj) {
        cpu_draw_couplings(eps, CPU_COUPLINGS_I8_BIMODAL, 0, g.nsites * g.ndim, checkasm_rand(), 1, 0);
        if (cpu_ising_split_alloc_bonds(&s) != 0) {
            checkasm_fail(func, lv->name, "out of memory");
            ok = 0;
        } else {
            cpu_ising_split_bonds_from_eps(&s, eps, c->threads);
        }
    }
    /* the start (the hot starts of both layouts: the same spins) */
    cpu_ising_split_to_natural(&s, out, 1);
    if (ok && memcmp(ref, out, (size_t)g.nsites) != 0) {
        checkasm_fail(func, lv->name, "the %s start differs before the first sweep",
                      c->start == HOT ? "hot" : "given");
        ok = 0;
    }
    for (int k = 0; ok && k < c->sweeps; k++) {
        const uint64_t sweep = c->first_sweep + (uint64_t)k;
        const uint64_t na = reference_sweep(&g, ref, eps, &t, c->algorithm, seed, sweep);
        const uint64_t nb = split_sweep(&s, dsp, &dec, seed, sweep, c->threads);
        cpu_ising_split_to_natural(&s, out, 1);
        const struct latmc_ising_sums ma =
            c->pmj ? cpu_ising_measure_coupled(&g, ref, eps, 1) : cpu_ising_measure(&g, ref, 1);
        const struct latmc_ising_sums mb =
            cpu_ising_split_measure(&s, dsp->measure_rows, c->threads);
        if (na != nb || memcmp(ref, out, (size_t)g.nsites) != 0 || ma.bonds != mb.bonds ||
            ma.spins != mb.spins) {
            int64_t i = 0;
            while (i < g.nsites && ref[i] == out[i])
                i++;
            checkasm_fail(func, lv->name,
                          "%dD %lldx%lldx%lld %s beta %g J %g h %g, %d thread(s), pmj %d: "
                          "sweep %llu differs: changed %llu (C %llu), first differing site "
                          "%lld of %lld, bond sum %lld (C %lld), spin sum %lld (C %lld)",
                          c->ndim, (long long)c->lx, (long long)c->ly, (long long)g.lz,
                          c->algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
                          c->beta, c->J, c->h, c->threads, c->pmj, (unsigned long long)sweep,
                          (unsigned long long)nb, (unsigned long long)na, (long long)i,
                          (long long)g.nsites, (long long)mb.bonds, (long long)ma.bonds,
                          (long long)mb.spins, (long long)ma.spins);
            ok = 0;
        }
        if (c->pmj == 2 && k + 1 < c->sweeps) {
            redraw(eps, g.nsites * c->ndim, k);
            cpu_ising_split_bonds_from_eps(&s, eps, c->threads);
        }
    }
    cpu_ising_split_free(&s);
    free(eps);
    free(ref);
    free(out);
    return ok;
}

#define METRO LATMC_ALGO_METROPOLIS
#define HEAT LATMC_ALGO_HEATBATH
/* ndim, lx, ly, lz, algorithm, beta, J, h, sweeps, first sweep, start, pmj, threads;
 * each uniform case also runs with the other algorithm */
static const struct ising_case cases[] = {
    /* 2D, rows on groups of 8 Philox blocks: 64- and 32-site steps */
    { 2, 64, 64, 1, METRO, 0.44, 1, 0, 4, 0, RANDOM, 0, 1 },
    { 2, 128, 6, 1, METRO, 0.44, 1, 0.1, 3, 0, RANDOM, 0, 1 },
    { 2, 192, 10, 1, METRO, 0.3, -0.7, 0.25, 3, 7, HOT, 0, 1 },
    { 2, 200, 2, 1, METRO, 0.5, 1, 0.1, 3, 0, RANDOM, 0, 1 },
    { 2, 128, 2, 1, METRO, 0.6, 1, -0.4, 3, 0, RANDOM, 0, 1 },
    /* the window path: rows start inside a group, tails shorter than a vector */
    { 2, 96, 8, 1, METRO, 0.2, -1, 1.5, 3, 0, HOT, 0, 1 },
    { 2, 130, 66, 1, METRO, 0.44, 1, 0.1, 3, 1, RANDOM, 0, 1 },
    { 2, 330, 4, 1, METRO, 0.5, 1, 0.1, 3, 0, RANDOM, 0, 1 },
    { 2, 6, 4, 1, METRO, 0.44, 1, 0, 6, 0, RANDOM, 0, 1 },
    { 2, 2, 2, 1, METRO, 0.3, 1, 0.2, 6, 0, RANDOM, 0, 1 },
    { 2, 34, 2, 1, METRO, 1.0, 1, 0, 4, 0, COLD, 0, 1 },
    { 2, 10, 14, 1, METRO, 0.1, 1, -3, 4, 0, COLD, 0, 1 },
    /* beta = 0, thresholds 0 ("never"), tiny beta, J = 0 */
    { 2, 64, 8, 1, METRO, 0, 1, 0.5, 3, 0, RANDOM, 0, 1 },
    { 2, 64, 8, 1, METRO, 50, 1, 0.3, 3, 0, RANDOM, 0, 1 },
    { 2, 18, 6, 1, METRO, 1e6, -1, 0.7, 3, 0, RANDOM, 0, 1 },
    { 2, 18, 6, 1, METRO, 1e6, 1, 1e-3, 3, 0, RANDOM, 0, 1 },
    { 2, 64, 8, 1, METRO, 1e-9, 1, 0, 2, 0, RANDOM, 0, 1 },
    { 2, 64, 8, 1, METRO, 0.7, 0, 2.0, 2, 0, RANDOM, 0, 1 },
    /* sweep numbers around and beyond 2^32: counter word c1 */
    { 2, 64, 16, 1, METRO, 0.44, 1, 0, 3, UINT64_C(0xffffffff), RANDOM, 0, 1 },
    { 2, 70, 16, 1, METRO, 0.44, 1, 0.2, 3, (UINT64_C(1) << 40) + 5, RANDOM, 0, 1 },
    /* 3D */
    { 3, 64, 4, 6, METRO, 0.22, 1, 0, 3, 0, HOT, 0, 1 },
    { 3, 96, 4, 4, METRO, 0.3, 1, 0.1, 3, 0, RANDOM, 0, 1 },
    { 3, 128, 6, 4, METRO, 0.3, -1, 0.2, 3, 3, RANDOM, 0, 1 },
    { 3, 10, 6, 4, METRO, 0.22, 1, 0.3, 3, 0, RANDOM, 0, 1 },
    { 3, 2, 2, 2, METRO, 0.4, 1, 0, 5, 0, RANDOM, 0, 1 },
    { 3, 66, 4, 2, METRO, 0.5, 1, -0.6, 3, 0, HOT, 0, 1 },
    { 3, 6, 2, 4, METRO, 2.0, 1, 0, 3, 0, RANDOM, 0, 1 },
    { 3, 64, 4, 4, METRO, 40, 1, 0.5, 2, 0, RANDOM, 0, 1 },
    /* narrow rows (L_x 16, 32: several rows per AVX-512 vector), L_y a multiple of the
     * rows per vector or not (then the general path) */
    { 3, 16, 16, 4, METRO, 0.22, 1, 0, 3, 0, HOT, 0, 1 },
    { 3, 16, 8, 6, METRO, 0.22, 1, 0.1, 3, 0, RANDOM, 0, 1 },
    { 3, 32, 4, 6, METRO, 0.3, -1, 0.2, 3, 5, RANDOM, 0, 1 },
    { 3, 32, 12, 2, METRO, 0.3, 1, 0.2, 3, 0, HOT, 0, 1 },
    { 3, 16, 12, 2, METRO, 0.3, 1, 0, 3, 0, RANDOM, 0, 1 },
    { 3, 16, 8, 2, METRO, 40, 1, 0, 2, 0, RANDOM, 0, 1 },
    { 3, 16, 8, 4, METRO, 0.4, 1, 0, 3, (UINT64_C(1) << 40) + 5, HOT, 0, 1 },
    { 3, 16, 2048, 2, METRO, 0.22, 1, 0, 2, 0, RANDOM, 0, 3 },
    /* threads (>= 32768 sites per colour): bands of rows or planes in wavefront order,
     * and too few of them for that (the two-pass order on rows, ising_split.c) */
    { 2, 256, 260, 1, METRO, 0.44, 1, 0.01, 2, 0, HOT, 0, 2 },
    { 2, 258, 256, 1, METRO, 0.44, 1, 0, 2, 0, RANDOM, 0, 3 },
    { 3, 64, 34, 32, METRO, 0.22, 1, 0, 2, 0, RANDOM, 0, 3 },
    { 3, 128, 128, 4, METRO, 0.22, 1, 0, 2, 0, RANDOM, 0, 3 },
    { 2, 8192, 8, 1, METRO, 0.44, 1, 0.02, 2, 0, RANDOM, 0, 2 },
    { 3, 16, 64, 64, METRO, 0.22, 1, 0, 2, 0, HOT, 0, 3 },
    { 3, 32, 1024, 2, METRO, 0.3, -1, 0.1, 2, 0, RANDOM, 0, 2 },
};

/*
 * +-J. The kernels' index k counts the neighbours with eps_ij s_j = +1: J < 0, h != 0,
 * extreme beta (thresholds 0) and all-negative couplings (round 1 of pmj 2: the
 * antiferromagnet in disguise) reach every table entry. Each runs with both algorithms.
 */
static const struct ising_case pmj_cases[] = {
    { 2, 64, 64, 1, METRO, 0.44, 1, 0, 4, 0, RANDOM, 1, 1 },
    { 2, 192, 10, 1, METRO, 0.3, -0.7, 0.25, 4, 7, HOT, 2, 1 },
    { 2, 200, 2, 1, METRO, 0.5, 1, 0.1, 4, 0, RANDOM, 2, 1 },
    { 2, 96, 8, 1, METRO, 0.2, -1, 1.5, 3, 0, HOT, 1, 1 },
    { 2, 130, 66, 1, METRO, 0.44, 1, 0.1, 4, 1, RANDOM, 2, 1 },
    { 2, 6, 4, 1, METRO, 0.44, 1, 0, 6, 0, RANDOM, 2, 1 },
    { 2, 2, 2, 1, METRO, 0.3, -1, 0.2, 6, 0, RANDOM, 2, 1 },
    { 2, 10, 14, 1, METRO, 0.1, 1, -3, 4, 0, COLD, 2, 1 },
    { 2, 64, 8, 1, METRO, 0, 1, 0, 3, 0, RANDOM, 2, 1 },
    { 2, 64, 8, 1, METRO, 50, -1, 0.3, 4, 0, RANDOM, 2, 1 },
    { 2, 18, 6, 1, METRO, 1e6, 1, 0.7, 4, 0, RANDOM, 2, 1 },
    { 2, 70, 16, 1, METRO, 0.44, 1, 0.2, 3, (UINT64_C(1) << 40) + 5, RANDOM, 2, 1 },
    { 3, 64, 4, 6, METRO, 0.22, 1, 0.1, 4, 0, HOT, 2, 1 },
    { 3, 128, 6, 4, METRO, 0.3, -1, 0.2, 4, 3, RANDOM, 1, 1 },
    { 3, 10, 6, 4, METRO, 0.22, -1, 0.3, 4, 0, RANDOM, 2, 1 },
    { 3, 2, 2, 2, METRO, 0.4, 1, 0.1, 5, 0, RANDOM, 2, 1 },
    { 3, 66, 4, 2, METRO, 0.5, -1, -0.6, 4, 0, HOT, 2, 1 },
    { 3, 6, 2, 4, METRO, 2.0, 1, 0, 3, 0, RANDOM, 2, 1 },
    { 3, 64, 4, 4, METRO, 40, -1, 0.5, 3, 0, RANDOM, 2, 1 },
    /* narrow rows */
    { 3, 16, 16, 4, METRO, 0.3, 1, 0, 4, 0, RANDOM, 2, 1 },
    { 3, 16, 8, 6, METRO, 0.3, -1, 0.1, 4, 0, RANDOM, 2, 1 },
    { 3, 32, 4, 6, METRO, 0.3, 1, 0.2, 4, 5, RANDOM, 2, 1 },
    { 3, 32, 12, 2, METRO, 0.3, 1, 0, 3, 0, HOT, 2, 1 },
    { 3, 16, 8, 2, METRO, 40, 1, 0, 3, 0, RANDOM, 2, 1 },
    { 3, 16, 2048, 2, METRO, 0.3, 1, 0.1, 3, 0, RANDOM, 2, 3 },
    /* threads */
    { 2, 256, 260, 1, METRO, 0.44, 1, 0.01, 3, 0, HOT, 2, 2 },
    { 2, 258, 256, 1, METRO, 0.44, -1, 0.1, 3, 0, RANDOM, 2, 3 },
    { 3, 128, 128, 4, METRO, 0.3, 1, 0, 3, 0, RANDOM, 2, 3 },
    { 3, 64, 34, 16, METRO, 0.3, 1, 0.1, 3, 0, RANDOM, 2, 2 },
};

static void check_colour_rows(const struct checkasm_level *lv, const struct cpu_ising_dsp *dsp,
                              const struct ising_case *list, size_t n, int pmj)
{
    const int before = checkasm_failures();
    for (size_t i = 0; i < n; i++)
        for (int a = 0; a < 2; a++) {
            struct ising_case c = list[i];
            c.algorithm = a ? HEAT : METRO;
            if (!run_case(lv, dsp, &c))
                return; /* one report per function and level */
        }
    if (checkasm_failures() == before) {
        char what[80];
        snprintf(what, sizeof what, "%zu lattices x 2 algorithms", n);
        checkasm_ok(pmj ? "ising.colour_rows +-J" : "ising.colour_rows", lv->name, what);
    }
}

/* ---- measure_rows ---- */

/*
 * One lattice at one level: random spins, or (checkerboard) the Neel state, whose bonds
 * are all unequal (the byte lanes at their most before they are emptied), with +-J random
 * couplings and the bond plane, on the split layout, measured in runs of rows with their
 * columns counted; the sums against the natural layout's reduction, each row's up count
 * and each column's (its byte counter, modulo 256) against a direct count. 0 after a
 * mismatch (reported).
 */
static int measure_case(const struct checkasm_level *lv, const struct cpu_ising_dsp *dsp,
                        int ndim, int64_t lx, int64_t ly, int64_t lz, int checkerboard,
                        int pmj)
{
    const char *func = pmj ? "ising.measure_rows +-J" : "ising.measure_rows";
    struct latmc_lattice g = { ndim, lx, ly, ndim == 3 ? lz : 1, 0 };
    g.nsites = g.lx * g.ly * g.lz;
    int8_t *spins = malloc((size_t)g.nsites);
    int8_t *eps = pmj ? malloc((size_t)(g.nsites * ndim)) : NULL;
    uint8_t *cols = calloc((size_t)lx, 1);
    struct cpu_ising_split s;
    if (!spins || (pmj && !eps) || !cols || cpu_ising_split_alloc(&s, &g) != 0) {
        checkasm_fail(func, lv->name, "out of memory");
        free(spins);
        free(eps);
        free(cols);
        return 0;
    }
    for (int64_t i = 0; i < g.nsites; i++)
        spins[i] = checkerboard ? (int8_t)(((i % lx) + (i / lx) % ly + i / (lx * ly)) % 2
                                               ? -1 : 1)
                                : (int8_t)checkasm_rand_pm1();
    cpu_ising_split_from_natural(&s, spins, 1);
    int ok = 1;
    if (pmj) {
        cpu_draw_couplings(eps, CPU_COUPLINGS_I8_BIMODAL, 0, g.nsites * ndim, checkasm_rand(),
                           1, 0);
        if (cpu_ising_split_alloc_bonds(&s) != 0) {
            checkasm_fail(func, lv->name, "out of memory");
            ok = 0;
        } else {
            cpu_ising_split_bonds_from_eps(&s, eps, 1);
        }
    }
    /* runs of 1, 7 and up to 200 rows: the lanes carried across rows and calls' ends */
    const int64_t rows = g.ly * g.lz, half = lx / 2;
    uint64_t unequal = 0, up = 0, row_up[200];
    for (int64_t r0 = 0, k = 0; ok && r0 < rows; k++) {
        const int64_t want_n = k == 0 ? 1 : k == 1 ? 7 : 200;
        const int64_t r1 = rows - r0 < want_n ? rows : r0 + want_n;
        dsp->measure_rows(&s, r0, r1, cols, row_up, &unequal, &up);
        for (int64_t r = r0; ok && r < r1; r++) {
            int64_t want = 0;
            for (int64_t x = 0; x < lx; x++)
                want += spins[r * lx + x] > 0;
            if ((int64_t)row_up[r - r0] != want) {
                checkasm_fail(func, lv->name, "%dD %lldx%lldx%lld: row %lld has %llu up "
                              "spins, not %lld", ndim, (long long)lx, (long long)ly,
                              (long long)g.lz, (long long)r,
                              (unsigned long long)row_up[r - r0], (long long)want);
                ok = 0;
            }
        }
        r0 = r1;
    }
    for (int64_t x = 0; ok && x < lx; x++) {
        int64_t want = 0;
        for (int64_t r = 0; r < rows; r++)
            want += spins[r * lx + x] > 0;
        const uint8_t got = cols[(x & 1) * half + x / 2];
        if (got != (uint8_t)want) {
            checkasm_fail(func, lv->name, "%dD %lldx%lldx%lld: column %lld counted %u, not "
                          "%lld mod 256", ndim, (long long)lx, (long long)ly, (long long)g.lz,
                          (long long)x, got, (long long)want);
            ok = 0;
        }
    }
    if (ok) {
        const struct latmc_ising_sums want =
            pmj ? cpu_ising_measure_coupled(&g, spins, eps, 1) : cpu_ising_measure(&g, spins, 1);
        const struct latmc_ising_sums got = cpu_ising_split_measure(&s, dsp->measure_rows, 2);
        const int64_t bonds = g.nsites * ndim - 2 * (int64_t)unequal;
        if (got.bonds != want.bonds || got.spins != want.spins || bonds != want.bonds ||
            2 * (int64_t)up - g.nsites != want.spins) {
            checkasm_fail(func, lv->name, "%dD %lldx%lldx%lld: bonds %lld (rows %lld), "
                          "spins %lld, not %lld and %lld", ndim, (long long)lx, (long long)ly,
                          (long long)g.lz, (long long)got.bonds, (long long)bonds,
                          (long long)got.spins, (long long)want.bonds, (long long)want.spins);
            ok = 0;
        }
    }
    cpu_ising_split_free(&s);
    free(spins);
    free(eps);
    free(cols);
    return ok;
}

/* Rows of one block of lanes and less (tails only), of several blocks and of more than
 * 42 blocks (the lanes emptied inside a row), 2D and 3D, extents of 2; 3D 64 x 34 x 16:
 * 544 rows of one block (the lanes emptied across rows); the Neel state (last column 1)
 * on even extents. */
static void check_measure_rows(const struct checkasm_level *lv,
                               const struct cpu_ising_dsp *dsp)
{
    static const int64_t shapes[][5] = {
        { 2, 8, 6, 1, 0 },    { 2, 130, 66, 1, 0 }, { 2, 256, 9, 1, 0 },
        { 2, 5632, 3, 1, 0 }, { 3, 2, 2, 2, 0 },    { 3, 16, 6, 4, 0 },
        { 3, 64, 34, 16, 0 }, { 3, 200, 4, 3, 0 },  { 2, 5632, 4, 1, 1 },
        { 3, 128, 32, 24, 1 },
    };
    const size_t n = sizeof shapes / sizeof shapes[0];
    for (int pmj = 0; pmj < 2; pmj++) {
        const int before = checkasm_failures();
        for (size_t i = 0; i < n; i++)
            if (!measure_case(lv, dsp, (int)shapes[i][0], shapes[i][1], shapes[i][2],
                              shapes[i][3], (int)shapes[i][4], pmj))
                break; /* one report per function and level */
        if (checkasm_failures() == before) {
            char what[64];
            snprintf(what, sizeof what, "%zu lattices, columns and rows", n);
            checkasm_ok(pmj ? "ising.measure_rows +-J" : "ising.measure_rows", lv->name, what);
        }
    }
}

/* ---- --bench ---- */

static volatile uint64_t bench_sink;

/* One colour of an L x rows (x rows) lattice per call (the pass's prepare included). */
static void bench_colour_rows(int ndim, int64_t L, int64_t rows, int algorithm)
{
    char func[64];
    char size[40];
    snprintf(size, sizeof size, rows == L ? "%lld" : "%lldx%lld", (long long)L, (long long)rows);
    snprintf(func, sizeof func, "colour_rows %dD %s %s", ndim, size,
             algorithm == HEAT ? "hb" : "metro");
    struct checkasm_ising_bench b;
    if (!checkasm_ising_bench_open(&b, func, ndim, L, rows))
        return;
    /* one colour: one draw per update; the lattice's bytes (1 a spin) read, the colour's
     * written */
    const double n = (double)b.g.nsites;
    checkasm_ceiling_work(func, &(struct checkasm_work){ n / 2, 1, n, n / 2 });
    struct cpu_ising_decisions dec;
    cpu_ising_decisions_build(&dec, &b.t, ndim, algorithm);
    const struct cpu_team alone = cpu_team_alone();
    uint64_t sweep = 0;
    const int calls = ndim == 3 ? 8 : 16;
    checkasm_bench(func, "c", CHECKASM_BEST_NS(calls, bench_sink += cpu_ising_colour_range(
        &b.g, b.spins, NULL, &b.t, algorithm, 1, latmc_ising_rng_name(sweep++, call_ & 1),
        call_ & 1, 0, b.g.nsites / 2, &alone)));
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_ising_dsp dsp;
        if (levels[l].emulated || !level_dsp(&levels[l], &dsp))
            continue;
        struct cpu_ising_pass pass;
        checkasm_bench(func, levels[l].name, CHECKASM_BEST_NS(calls, {
            struct latmc_step steps[2];
            sweep_steps(sweep++, steps);
            cpu_ising_pass_setup(&pass, &dec, 1, &steps[call_ & 1]);
            dsp.prepare(&pass);
            bench_sink += dsp.colour_rows(&b.s, &pass, 0, b.s.rows);
        }));
    }
    checkasm_ising_bench_close(&b);
}

/* The generator alone: 64 groups of 8 blocks (2048 draws) per call. */
static void bench_draws_xor(void)
{
    const char *func = "draws_xor 2048 draws";
    struct cpu_ising_dsp c_dsp;
    cpu_ising_dsp_init(&c_dsp, 0);
    /* other blocks every call: the same call again could be computed once */
    checkasm_bench(func, "c", CHECKASM_BEST_NS(64, bench_sink += c_dsp.draws_xor(
                                                      7, 512 * (uint64_t)call_, 64)));
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_ising_dsp dsp;
        if (!levels[l].emulated && level_dsp(&levels[l], &dsp))
            checkasm_bench(func, levels[l].name,
                           CHECKASM_BEST_NS(256, bench_sink += dsp.draws_xor(
                                                     7, 512 * (uint64_t)call_, 64)));
    }
}

void checkasm_check_ising(void)
{
    /* the C level's generator entries against the definition too (its colour_rows is the
     * reference sweep on the natural layout, which the levels are compared with) */
    const struct checkasm_level c_level = { "c", 0, false };
    struct cpu_ising_dsp c_dsp;
    cpu_ising_dsp_init(&c_dsp, 0);
    check_draws(&c_level, &c_dsp);
    check_draws_xor(&c_level, &c_dsp);
    check_measure_rows(&c_level, &c_dsp);
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        struct cpu_ising_dsp dsp;
        if (!level_dsp(&levels[l], &dsp)) {
            printf("  ising: level %s not built: skipped\n", levels[l].name);
            continue;
        }
        check_draws(&levels[l], &dsp);
        check_draws_xor(&levels[l], &dsp);
        check_measure_rows(&levels[l], &dsp);
        check_colour_rows(&levels[l], &dsp, cases, sizeof cases / sizeof cases[0], 0);
        check_colour_rows(&levels[l], &dsp, pmj_cases, sizeof pmj_cases / sizeof pmj_cases[0],
                          1);
    }
    if (checkasm_bench_on()) {
        const int64_t l2 = checkasm_quick() ? 16 : 1024, l3 = checkasm_quick() ? 8 : 128;
        bench_draws_xor();
        bench_colour_rows(2, l2, l2, METRO);
        bench_colour_rows(2, l2, l2, HEAT);
        bench_colour_rows(3, l3, l3, METRO);
        bench_colour_rows(3, l3, l3, HEAT);
        if (checkasm_in_cache_rows()) { /* the same rows, few of them: in L1 */
            bench_colour_rows(2, l2, 8, METRO);
            bench_colour_rows(3, l3, 8, METRO);
        }
    }
}
