/*
 * Ising: every SIMD level this machine has against the C reference, bit for bit (issue
 * "CPU fast paths"). For each level the CPU supports (others are skipped, and the test
 * says which ran), sims at that level and at the C level (LATMC_CPU_MASK=c) start from the
 * same configuration and must agree after every sweep: spins, bond and spin sums (energy,
 * magnetization) and the number of changed spins. Cases: 2D and 3D, Metropolis and heat
 * bath, h != 0, J < 0, beta = 0 and beta so large that thresholds are 0 (the "never"
 * variant), extents that are not powers of two, rows whose start is not on a group of
 * Philox blocks (the kernels' general path), extents of 2, 1-3 threads, sweep numbers at and
 * beyond 2^32 (the high counter word). The level's Philox generator is also checked alone
 * against the scalar one, and hot start, get/set and the measurement of the level's layout
 * against the C level's.
 * The same for +-J sims (desc.couplings = BIMODAL, the coupled kernels): couplings drawn
 * from the coupling seed, and replaced through latmc_sim_set_couplings in mid-run (the
 * level's bond plane must follow), compared after every sweep including the energy
 * sum_ij eps_ij s_i s_j.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"
#include "internal.h" /* sim->sweeps: start at any sweep number */
#include "ising_split.h"
#include "rng_streams.h"
#include "sim_helpers.h"

static const struct { const char *name; unsigned flag; } levels[] = {
    { "avx2", CPU_FLAG_AVX2 },
    { "avx512", CPU_FLAG_AVX512 },
};

/* Whether `level` is built into this library and this CPU runs it; says so when not. */
static int level_usable(int i)
{
    struct cpu_ising_dsp dsp;
    cpu_ising_dsp_init(&dsp, levels[i].flag | (levels[i].flag >> 1));
    if (!dsp.name || strcmp(dsp.name, levels[i].name) != 0) {
        print_message("level %s: not built into this library, skipped\n", levels[i].name);
        return 0;
    }
    if (!(cpu_flags_detected() & levels[i].flag)) {
        print_message("level %s: this CPU lacks it, skipped\n", levels[i].name);
        return 0;
    }
    return 1;
}

static latmc_sim *make_sim(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                           double beta, double J, double h)
{
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, d, &sim), LATMC_OK);
    unsetenv("LATMC_CPU_MASK");
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
    return sim;
}

struct snapshot {
    int8_t *spins;
    double e, m;
    uint64_t accepted;
};

static struct snapshot take(latmc_sim *sim, size_t n)
{
    struct snapshot s;
    s.spins = malloc(n);
    assert_non_null(s.spins);
    assert_int_equal(latmc_sim_get_spins(sim, s.spins, n), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &s.e), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &s.m), LATMC_OK);
    s.accepted = sim->accepted;
    return s;
}

/* Same spins, exactly the same observables (functions of the same integer sums). */
static void assert_same(const struct snapshot *a, const struct snapshot *b, size_t n,
                        const char *what)
{
    if (memcmp(a->spins, b->spins, n) != 0) {
        size_t i = 0;
        while (a->spins[i] == b->spins[i])
            i++;
        print_error("%s: first differing site %zu (C %d, SIMD %d)\n", what, i, a->spins[i],
                    b->spins[i]);
    }
    assert_memory_equal(a->spins, b->spins, n);
    assert_true(a->e == b->e);
    assert_true(a->m == b->m);
    assert_true(a->accepted == b->accepted);
}

struct ising_case {
    int ndim;
    int64_t lx, ly, lz;
    int algorithm;
    double beta, J, h;
    int sweeps;
    uint64_t first_sweep;
    int start; /* 0: random spins from the test's generator, 1: hot start, 2: cold start */
    int pmj;   /* 0: uniform; 1: +-J couplings drawn; 2: also replaced after each sweep but
                  the last (random couplings, then all -1, then a random third flipped) */
};

/* A value of the test's generator: +1 or -1 */
static float pm1(uint64_t *state)
{
    return (test_rng_next(state) >> 63) ? 1.0f : -1.0f;
}

/* Both sims' couplings equal (the level's copy is what the core reads back). */
static void assert_same_couplings(latmc_sim *ref, latmc_sim *simd)
{
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(ref, &nc), LATMC_OK);
    float *a = malloc(nc * sizeof *a), *b = malloc(nc * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(latmc_sim_get_couplings(ref, a, nc), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(simd, b, nc), LATMC_OK);
    assert_memory_equal(a, b, nc * sizeof *a);
    free(a);
    free(b);
}

/* New couplings for both sims; `round` picks the pattern (see struct ising_case). */
static void replace_couplings(latmc_sim *ref, latmc_sim *simd, int round, uint64_t *state)
{
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(ref, &nc), LATMC_OK);
    float *eps = malloc(nc * sizeof *eps);
    assert_non_null(eps);
    assert_int_equal(latmc_sim_get_couplings(ref, eps, nc), LATMC_OK);
    for (size_t i = 0; i < nc; i++) {
        if (round % 3 == 0)
            eps[i] = pm1(state);
        else if (round % 3 == 1)
            eps[i] = -1.0f;
        else if (test_rng_next(state) % 3 == 0)
            eps[i] = -eps[i];
    }
    assert_int_equal(latmc_sim_set_couplings(ref, eps, nc), LATMC_OK);
    assert_int_equal(latmc_sim_set_couplings(simd, eps, nc), LATMC_OK);
    free(eps);
    assert_same_couplings(ref, simd);
}

static void run_case(const char *level, const struct ising_case *c, int threads)
{
    char what[200];
    snprintf(what, sizeof what, "%s %dD %lldx%lldx%lld %s beta %g J %g h %g, %d thread(s), "
             "sweep %llu%s", level, c->ndim, (long long)c->lx, (long long)c->ly,
             (long long)c->lz, c->algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
             c->beta, c->J, c->h, threads, (unsigned long long)c->first_sweep,
             c->pmj == 0 ? "" : c->pmj == 1 ? ", +-J" : ", +-J set in mid-run");
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(c->ndim, c->lx, c->ly, c->lz, c->algorithm, 1,
                                  UINT64_C(0x5eed0000) + (uint64_t)c->lx * 7 + (uint64_t)c->ly);
    if (c->pmj) {
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.coupling_seed = UINT64_C(0xc0de) + (uint64_t)c->lz * 11 + (uint64_t)c->ly;
    }
    latmc_sim *ref = make_sim(ctx, &d, "c", c->beta, c->J, c->h);
    d.n_threads = threads;
    latmc_sim *simd = make_sim(ctx, &d, level, c->beta, c->J, c->h);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(ref, &n), LATMC_OK);
    if (c->start == 0) {
        int8_t *init = malloc(n);
        assert_non_null(init);
        uint64_t state = n * 31 + (uint64_t)c->ndim;
        for (size_t i = 0; i < n; i++)
            init[i] = (test_rng_next(&state) >> 63) ? 1 : -1;
        assert_int_equal(latmc_sim_set_spins(ref, init, n), LATMC_OK);
        assert_int_equal(latmc_sim_set_spins(simd, init, n), LATMC_OK);
        free(init);
    } else {
        const int how = c->start == 1 ? LATMC_INIT_HOT : LATMC_INIT_COLD;
        assert_int_equal(latmc_sim_init_spins(ref, how), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(simd, how), LATMC_OK);
    }
    if (c->pmj)
        assert_same_couplings(ref, simd);
    struct snapshot a = take(ref, n), b = take(simd, n);
    assert_same(&a, &b, n, what);
    free(a.spins);
    free(b.spins);
    uint64_t eps_state = n * 17 + 3;
    ref->sweeps = simd->sweeps = c->first_sweep;
    uint64_t moved = 0;
    for (int s = 0; s < c->sweeps; s++) {
        assert_int_equal(latmc_sim_sweep(ref, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(simd, 1), LATMC_OK);
        a = take(ref, n);
        b = take(simd, n);
        assert_same(&a, &b, n, what);
        moved = a.accepted;
        free(a.spins);
        free(b.spins);
        if (c->pmj == 2 && s + 1 < c->sweeps) {
            replace_couplings(ref, simd, s, &eps_state);
            a = take(ref, n); /* the energy with the new couplings */
            b = take(simd, n);
            assert_same(&a, &b, n, what);
            free(a.spins);
            free(b.spins);
        }
    }
    (void)moved;
    latmc_sim_destroy(&simd);
    latmc_sim_destroy(&ref);
    latmc_ctx_destroy(&ctx);
}

#define METRO LATMC_ALGO_METROPOLIS
#define HEAT LATMC_ALGO_HEATBATH
static const struct ising_case cases[] = {
    /* 2D, rows on Philox groups (L_x a multiple of 64) */
    { 2, 64, 64, 1, METRO, 0.44, 1, 0, 4, 0, 0, 0 },
    { 2, 64, 64, 1, HEAT, 0.44, 1, 0, 4, 0, 0, 0 },
    { 2, 192, 10, 1, METRO, 0.3, 1, 0.25, 3, 7, 1, 0 },
    { 2, 192, 10, 1, HEAT, 0.3, -0.7, 0.25, 3, 7, 1, 0 },
    { 2, 128, 2, 1, METRO, 0.6, 1, -0.4, 3, 0, 0, 0 },
    /* 2D general path: rows start anywhere in a group, tails shorter than a vector */
    { 2, 130, 66, 1, METRO, 0.44, 1, 0, 3, 1, 0, 0 },
    { 2, 130, 66, 1, HEAT, 0.44, 1, 0.1, 3, 1, 0, 0 },
    { 2, 96, 8, 1, METRO, 0.2, -1, 1.5, 3, 0, 1, 0 },
    { 2, 6, 4, 1, METRO, 0.44, 1, 0, 6, 0, 0, 0 },
    { 2, 6, 4, 1, HEAT, 0.44, 1, 0, 6, 0, 0, 0 },
    { 2, 2, 2, 1, METRO, 0.3, 1, 0.2, 6, 0, 0, 0 },
    { 2, 2, 2, 1, HEAT, 0.3, 1, 0.2, 6, 0, 0, 0 },
    { 2, 34, 2, 1, METRO, 1.0, 1, 0, 4, 0, 0, 0 },
    { 2, 10, 14, 1, HEAT, 0.1, 1, -3, 4, 0, 2, 0 },
    /* beta = 0 (everything 1/2 or accepted), extreme beta (thresholds 0: "never") */
    { 2, 64, 8, 1, METRO, 0, 1, 0, 3, 0, 0, 0 },
    { 2, 64, 8, 1, HEAT, 0, 1, 0.5, 3, 0, 0, 0 },
    { 2, 64, 8, 1, METRO, 50, 1, 0, 3, 0, 0, 0 },
    { 2, 64, 8, 1, HEAT, 50, 1, 0.3, 3, 0, 0, 0 },
    { 2, 18, 6, 1, METRO, 1e6, -1, 0.7, 3, 0, 0, 0 },
    { 2, 18, 6, 1, HEAT, 1e6, 1, 1e-3, 3, 0, 0, 0 },
    { 2, 64, 8, 1, METRO, 1e-9, 1, 0, 2, 0, 0, 0 },
    { 2, 64, 8, 1, METRO, 0.7, 0, 2.0, 2, 0, 0, 0 },
    /* sweep numbers around and beyond 2^32: counter word c1 */
    { 2, 64, 16, 1, METRO, 0.44, 1, 0, 3, UINT64_C(0xffffffff), 0, 0 },
    { 2, 70, 16, 1, HEAT, 0.44, 1, 0.2, 3, (UINT64_C(1) << 40) + 5, 0, 0 },
    /* 3D */
    { 3, 64, 4, 6, METRO, 0.22, 1, 0, 3, 0, 0, 0 },
    { 3, 64, 4, 6, HEAT, 0.22, 1, 0.1, 3, 0, 1, 0 },
    { 3, 128, 6, 4, METRO, 0.3, -1, 0.2, 3, 3, 0, 0 },
    { 3, 10, 6, 4, METRO, 0.22, 1, 0.3, 3, 0, 0, 0 },
    { 3, 10, 6, 4, HEAT, 0.22, 1, 0.3, 3, 0, 0, 0 },
    { 3, 2, 2, 2, METRO, 0.4, 1, 0, 5, 0, 0, 0 },
    { 3, 2, 2, 2, HEAT, 0.4, 1, 0, 5, 0, 0, 0 },
    { 3, 66, 4, 2, METRO, 0.5, 1, -0.6, 3, 0, 1, 0 },
    { 3, 6, 2, 4, HEAT, 2.0, 1, 0, 3, 0, 0, 0 },
    { 3, 64, 4, 4, METRO, 40, 1, 0, 2, 0, 0, 0 },
    { 3, 64, 4, 4, HEAT, 40, 1, 0.5, 2, 0, 0, 0 },
    /* 3D narrow rows (L_x 16 or 32: several rows per vector, ising_avx512.c), L_y a
     * multiple of the rows per vector or not (then the general path) */
    { 3, 16, 16, 4, METRO, 0.22, 1, 0, 3, 0, 1, 0 },
    { 3, 16, 8, 6, HEAT, 0.22, 1, 0.1, 3, 0, 0, 0 },
    { 3, 32, 4, 6, METRO, 0.3, -1, 0.2, 3, 5, 0, 0 },
    { 3, 32, 12, 2, HEAT, 0.3, 1, 0.2, 3, 0, 1, 0 },
    { 3, 16, 12, 2, METRO, 0.3, 1, 0, 3, 0, 0, 0 },
    { 3, 16, 8, 2, METRO, 40, 1, 0, 2, 0, 0, 0 },
    { 3, 32, 8, 2, HEAT, 40, 1, 0.5, 2, 0, 0, 0 },
    { 3, 16, 8, 4, METRO, 0.4, 1, 0, 3, (UINT64_C(1) << 40) + 5, 1, 0 },
};

/*
 * +-J couplings. The kernels' index k counts the neighbours with eps_ij s_j = +1: J < 0,
 * h != 0, extreme beta (thresholds 0) and all-negative couplings (round 1 of pmj 2: the
 * antiferromagnet in disguise) all reach every table entry.
 */
#define PMJ(pmj) 0, pmj /* start from random spins */
static const struct ising_case pmj_cases[] = {
    /* 2D, rows on Philox groups */
    { 2, 64, 64, 1, METRO, 0.44, 1, 0, 4, 0, PMJ(1) },
    { 2, 64, 64, 1, HEAT, 0.44, 1, 0, 4, 0, PMJ(1) },
    { 2, 192, 10, 1, METRO, 0.3, -0.7, 0.25, 4, 7, 1, 2 },
    { 2, 192, 10, 1, HEAT, 0.3, -0.7, 0.25, 4, 7, 1, 2 },
    { 2, 128, 2, 1, METRO, 0.6, 1, -0.4, 3, 0, PMJ(2) },
    /* general path: rows start inside a group, tails, extents of 2 */
    { 2, 130, 66, 1, METRO, 0.44, 1, 0.1, 4, 1, 0, 2 },
    { 2, 130, 66, 1, HEAT, 0.44, -1, 0.1, 4, 1, 0, 2 },
    { 2, 96, 8, 1, METRO, 0.2, -1, 1.5, 3, 0, 1, 1 },
    { 2, 6, 4, 1, METRO, 0.44, 1, 0, 6, 0, PMJ(2) },
    { 2, 6, 4, 1, HEAT, 0.44, 1, 0.3, 6, 0, PMJ(2) },
    { 2, 2, 2, 1, METRO, 0.3, 1, 0.2, 6, 0, PMJ(2) },
    { 2, 2, 2, 1, HEAT, 0.3, -1, 0.2, 6, 0, PMJ(2) },
    { 2, 34, 2, 1, METRO, 1.0, 1, 0, 4, 0, PMJ(1) },
    { 2, 10, 14, 1, HEAT, 0.1, 1, -3, 4, 0, 2, 2 },
    /* beta = 0, extreme beta ("never"), sweep numbers beyond 2^32 */
    { 2, 64, 8, 1, METRO, 0, 1, 0, 3, 0, PMJ(2) },
    { 2, 64, 8, 1, HEAT, 0, 1, 0.5, 3, 0, PMJ(1) },
    { 2, 64, 8, 1, METRO, 50, 1, 0, 4, 0, PMJ(2) },
    { 2, 64, 8, 1, HEAT, 50, -1, 0.3, 4, 0, PMJ(2) },
    { 2, 18, 6, 1, METRO, 1e6, -1, 0.7, 4, 0, PMJ(2) },
    { 2, 18, 6, 1, HEAT, 1e6, 1, 1e-3, 4, 0, PMJ(2) },
    { 2, 70, 16, 1, HEAT, 0.44, 1, 0.2, 3, (UINT64_C(1) << 40) + 5, 0, 2 },
    /* 3D */
    { 3, 64, 4, 6, METRO, 0.22, 1, 0, 4, 0, PMJ(2) },
    { 3, 64, 4, 6, HEAT, 0.22, 1, 0.1, 4, 0, 1, 2 },
    { 3, 128, 6, 4, METRO, 0.3, -1, 0.2, 3, 3, PMJ(1) },
    { 3, 10, 6, 4, METRO, 0.22, 1, 0.3, 4, 0, PMJ(2) },
    { 3, 10, 6, 4, HEAT, 0.22, -1, 0.3, 4, 0, PMJ(2) },
    { 3, 2, 2, 2, METRO, 0.4, 1, 0, 5, 0, PMJ(2) },
    { 3, 2, 2, 2, HEAT, 0.4, 1, 0.1, 5, 0, PMJ(2) },
    { 3, 66, 4, 2, METRO, 0.5, -1, -0.6, 4, 0, 1, 2 },
    { 3, 6, 2, 4, HEAT, 2.0, 1, 0, 3, 0, PMJ(2) },
    { 3, 64, 4, 4, METRO, 40, 1, 0, 3, 0, PMJ(2) },
    { 3, 64, 4, 4, HEAT, 40, -1, 0.5, 3, 0, PMJ(2) },
    /* 3D narrow rows (L_x 16 or 32) */
    { 3, 16, 16, 4, METRO, 0.3, 1, 0, 4, 0, PMJ(2) },
    { 3, 16, 8, 6, HEAT, 0.3, -1, 0.1, 4, 0, PMJ(2) },
    { 3, 32, 4, 6, METRO, 0.3, 1, 0.2, 4, 5, PMJ(2) },
    { 3, 32, 12, 2, HEAT, 0.3, 1, 0, 3, 0, 1, 2 },
    { 3, 16, 8, 2, METRO, 40, 1, 0, 3, 0, PMJ(2) },
    { 3, 32, 8, 2, HEAT, 40, -1, 0.5, 3, 0, PMJ(2) },
};

static void test_levels_against_c(void **state)
{
    (void)state;
    int ran = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (!level_usable((int)l))
            continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            run_case(levels[l].name, &cases[i], 1);
        print_message("level %s: %zu cases bit-identical to the C reference\n",
                      levels[l].name, sizeof cases / sizeof cases[0]);
        ran++;
    }
    if (!ran)
        print_message("no SIMD level on this machine: nothing to compare\n");
}

static void test_pmj_against_c(void **state)
{
    (void)state;
    int ran = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (!level_usable((int)l))
            continue;
        for (size_t i = 0; i < sizeof pmj_cases / sizeof pmj_cases[0]; i++)
            run_case(levels[l].name, &pmj_cases[i], 1);
        print_message("level %s: %zu +-J cases bit-identical to the C reference\n",
                      levels[l].name, sizeof pmj_cases / sizeof pmj_cases[0]);
        ran++;
    }
    if (!ran)
        print_message("no SIMD level on this machine: nothing to compare\n");
}

/* Lattices large enough for the threaded paths (>= 32768 sites per colour), with bands of
 * rows or planes in wavefront order, and with too few of them for that. */
static void test_threads(void **state)
{
    (void)state;
    static const struct ising_case big[] = {
        { 2, 256, 260, 1, METRO, 0.44, 1, 0.01, 3, 0, 1, 0 },
        { 2, 258, 256, 1, HEAT, 0.44, 1, 0, 3, 0, 0, 0 },
        { 3, 64, 34, 32, METRO, 0.22, 1, 0, 2, 0, 1, 0 },
        { 3, 42, 40, 40, HEAT, 0.22, 1, 0.05, 2, 0, 0, 0 },
        /* few rows or planes per thread: the two-pass order on rows (ising_split.c) */
        { 3, 128, 128, 4, METRO, 0.22, 1, 0, 2, 0, 1, 0 },
        { 2, 8192, 8, 1, HEAT, 0.44, 1, 0.02, 2, 0, 0, 0 },
        /* narrow rows (L_x 16, 32): bands of planes, and bands of rows that do not start
         * on a vector's group of rows */
        { 3, 16, 64, 64, METRO, 0.22, 1, 0, 2, 0, 1, 0 },
        { 3, 32, 32, 64, HEAT, 0.22, 1, 0.05, 2, 0, 0, 0 },
        { 3, 16, 2048, 2, METRO, 0.22, 1, 0, 2, 0, 1, 0 },
        { 3, 16, 64, 64, HEAT, 0.3, 1, 0, 3, 0, 1, 2 },
        { 3, 32, 1024, 2, METRO, 0.3, -1, 0.1, 3, 0, 0, 2 },
        /* +-J, couplings replaced in mid-run */
        { 2, 256, 260, 1, METRO, 0.44, 1, 0.01, 3, 0, 1, 2 },
        { 2, 258, 256, 1, HEAT, 0.44, -1, 0.1, 3, 0, 0, 2 },
        { 3, 64, 34, 32, METRO, 0.3, 1, 0, 3, 0, 1, 2 },
        { 3, 42, 40, 40, HEAT, 0.3, 1, 0.05, 3, 0, 0, 2 },
        { 3, 128, 128, 4, METRO, 0.3, -1, 0.2, 3, 0, 1, 2 },
        { 2, 8192, 8, 1, HEAT, 0.44, 1, 0.02, 3, 0, 0, 2 },
    };
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (!level_usable((int)l))
            continue;
        for (size_t i = 0; i < sizeof big / sizeof big[0]; i++)
            for (int t = 1; t <= 3; t++)
                run_case(levels[l].name, &big[i], t);
        print_message("level %s: 1, 2, 3 threads bit-identical to the C reference\n",
                      levels[l].name);
    }
}

/* The level's Philox alone against the scalar generator, including c1's high bits. */
static void test_draws(void **state)
{
    (void)state;
    uint64_t rng = 42;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (!level_usable((int)l))
            continue;
        struct cpu_ising_dsp dsp;
        cpu_ising_dsp_init(&dsp, cpu_flags_detected() & (levels[l].flag | (levels[l].flag >> 1)));
        assert_non_null(dsp.draws);
        uint32_t out[32 * 5];
        for (int trial = 0; trial < 200; trial++) {
            const uint64_t seed = test_rng_next(&rng);
            const uint64_t r = test_rng_next(&rng);
            const uint32_t c1 = (uint32_t)r, c2 = (uint32_t)(r >> 32);
            const uint32_t c3 = (uint32_t)test_rng_next(&rng);
            /* first blocks near 0, near 2^32 (low word wraps inside the run) and anywhere */
            uint64_t first = (test_rng_next(&rng) & UINT64_C(0xfffffffffff8));
            if (trial % 3 == 0)
                first &= 0xff8;
            else if (trial % 3 == 1)
                first = UINT64_C(0xffffffe0) - 8 * (trial & 3);
            dsp.draws(seed, c1, c2, c3, first, 5, out);
            for (int m = 0; m < 32 * 5; m++) {
                const latmc_philox_ctr cnt = { { (uint32_t)(first + (uint64_t)(m / 4)), c1, c2,
                                                 c3 } };
                const latmc_philox_ctr want = latmc_philox4x32_10(cnt, latmc_rng_key(seed));
                assert_int_equal(out[m], want.v[m % 4]);
            }
        }
        print_message("level %s: Philox draws identical to the scalar generator\n",
                      levels[l].name);
    }
}

int main(void)
{
    /* Nothing to compare (-Dsimd=false, or a CPU without AVX2): skipped (77), saying why. */
    int any = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++)
        any |= level_usable((int)l);
    if (!any) {
        printf("ising simd levels: no SIMD level both built and on this CPU: skipped\n");
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draws),
        cmocka_unit_test(test_levels_against_c),
        cmocka_unit_test(test_pmj_against_c),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
