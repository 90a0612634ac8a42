/*
 * Potts kernels at every SIMD level the CPU has, bitwise against the C reference
 * (backends/cpu/potts_fast.h): configurations after every sweep, the acceptance count and
 * the observables, for Metropolis and heat bath, 2D and 3D, both colourings, q from 2 to
 * 255, h != 0, J < 0, extreme beta, extents that are not multiples of the vector width
 * (rows that share a vector, tiny lattices), 1 to 3 threads, and with every site forced
 * through the scalar rule. Levels the CPU lacks are skipped and named; the test prints
 * which levels ran. The AVX-512 template also runs everywhere with its primitives
 * emulated in plain C ("emu512", potts_emu512.c).
 *
 * Besides the chains: the fast tables against the reference rule itself (every threshold
 * of every neighbour count vector separates the draws the rule sends above and below it),
 * and the heat-bath table of 4 <= q <= 9 the same way for every neighbour tuple.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <latmc/latmc.h>

#include "cpu_features.h"
#include "internal.h"
#include "potts_fast.h"
#include "potts_emu512.h"
#include "potts_kernels.h"
#include "sim_helpers.h"

enum { COLD = 0, HOT = 1, RANDOM = 2 };

struct chain_case {
    int ndim;
    int64_t ext[3];
    int q, algorithm;
    double beta, J, h;
    int start, sweeps;
    uint64_t seed;
    int threads;       /* of the fast sim; the reference runs on 1 */
    int scalar;        /* every site through the scalar rule */
};

#define METRO LATMC_ALGO_METROPOLIS
#define HB LATMC_ALGO_HEATBATH

static const struct chain_case cases[] = {
    /* the benchmark's model, vectors only, 1 to 3 threads (threads start at 32768 sites
     * per colour) */
    { 2, { 256, 256 }, 3, METRO, 0.6667, 1, 0, HOT, 6, 1, 1, 0 },
    { 2, { 256, 256 }, 3, HB, 0.6667, 1, 0, HOT, 6, 2, 1, 0 },
    { 2, { 256, 256 }, 3, METRO, 1.2, 1, 0.1, HOT, 4, 3, 2, 0 },
    { 2, { 256, 256 }, 3, HB, 1.2, 1, 0.1, RANDOM, 4, 4, 3, 0 },
    { 3, { 42, 42, 42 }, 3, HB, 0.4, 1, -0.2, HOT, 3, 5, 2, 0 },
    { 3, { 42, 42, 42 }, 17, METRO, 0.4, 1, 0.3, RANDOM, 3, 6, 3, 0 },
    /* rows of 50 and 17 sites: vectors span rows */
    { 2, { 100, 60 }, 2, METRO, 0.4, 1, 0.3, RANDOM, 5, 7, 1, 0 },
    { 2, { 100, 60 }, 2, HB, 0.4, 1, 0.3, RANDOM, 5, 8, 1, 0 },
    { 2, { 100, 60 }, 8, METRO, 0.7, -1, 0.25, HOT, 5, 9, 1, 0 },
    { 2, { 100, 60 }, 8, HB, 0.7, -1, 0.25, HOT, 5, 10, 1, 0 },
    { 2, { 34, 66 }, 5, METRO, 1.1, 1, -0.4, HOT, 5, 11, 1, 0 },
    { 2, { 34, 66 }, 5, HB, 1.1, 1, -0.4, HOT, 5, 12, 1, 0 },
    { 2, { 130, 2 }, 129, METRO, 0.5, 1, 0.5, RANDOM, 5, 13, 1, 0 },
    { 2, { 2, 130 }, 4, HB, 0.5, 1, 0.5, RANDOM, 5, 14, 1, 0 },
    { 2, { 4, 6 }, 255, METRO, 0.3, 1, 2, RANDOM, 8, 15, 1, 0 },
    { 2, { 4, 6 }, 255, HB, 0.3, 1, 2, RANDOM, 8, 16, 1, 0 },
    { 2, { 2, 2 }, 3, METRO, 0.8, 1, 0.2, HOT, 8, 17, 1, 0 },
    { 2, { 2, 2 }, 3, HB, 0.8, 1, 0.2, HOT, 8, 18, 1, 0 },
    /* the 3-colouring */
    { 2, { 9, 15 }, 3, METRO, 0.6, 1, 0.5, HOT, 5, 19, 1, 0 },
    { 2, { 9, 15 }, 3, HB, 0.6, 1, 0.5, HOT, 5, 20, 1, 0 },
    { 2, { 33, 45 }, 7, METRO, 0.9, 1, -0.3, RANDOM, 5, 21, 1, 0 },
    { 2, { 33, 45 }, 7, HB, 0.9, 1, -0.3, RANDOM, 5, 22, 1, 0 },
    { 2, { 3, 3 }, 2, METRO, 0.5, 1, 0.1, HOT, 8, 23, 1, 0 },
    { 2, { 3, 3 }, 2, HB, 0.5, 1, 0.1, HOT, 8, 24, 1, 0 },
    { 3, { 6, 9, 3 }, 3, METRO, 0.5, 1, 0.2, HOT, 5, 25, 1, 0 },
    { 3, { 6, 9, 3 }, 3, HB, 0.5, 1, 0.2, HOT, 5, 26, 1, 0 },
    { 3, { 9, 9, 9 }, 5, METRO, 0.4, -1, 0.6, RANDOM, 5, 27, 1, 0 },
    { 3, { 9, 9, 9 }, 5, HB, 0.4, -1, 0.6, RANDOM, 5, 28, 1, 0 },
    /* 3D checkerboard */
    { 3, { 10, 6, 14 }, 3, METRO, 0.5, 1, -0.3, HOT, 5, 29, 1, 0 },
    { 3, { 10, 6, 14 }, 3, HB, 0.5, 1, -0.3, HOT, 5, 30, 1, 0 },
    { 3, { 2, 2, 2 }, 2, METRO, 0.3, 1, 0.4, HOT, 8, 31, 1, 0 },
    { 3, { 2, 2, 2 }, 2, HB, 0.3, 1, 0.4, HOT, 8, 32, 1, 0 },
    { 3, { 8, 4, 6 }, 200, METRO, 0.6, 1, 0.1, RANDOM, 5, 33, 1, 0 },
    { 3, { 8, 4, 6 }, 200, HB, 0.6, 1, 0.1, RANDOM, 5, 34, 1, 0 },
    /* extreme beta: every threshold 0 or 2^32, weights 0, ties everywhere */
    { 2, { 64, 64 }, 3, METRO, 0, 1, 0, HOT, 4, 35, 1, 0 },
    { 2, { 64, 64 }, 3, HB, 0, 1, 0, HOT, 4, 36, 1, 0 },
    { 2, { 64, 64 }, 3, METRO, 1e-9, 1, 0.5, HOT, 4, 37, 1, 0 },
    { 2, { 64, 64 }, 3, HB, 1e3, 1, 0.5, HOT, 4, 38, 1, 0 },
    { 2, { 64, 64 }, 2, HB, 50, 1, 0.3, RANDOM, 4, 39, 1, 0 },
    { 2, { 64, 64 }, 3, METRO, 1e3, -1, -0.5, RANDOM, 4, 40, 1, 0 },
    { 3, { 8, 8, 8 }, 3, METRO, 40, 1, -1, RANDOM, 4, 41, 1, 0 },
    { 3, { 8, 8, 8 }, 3, HB, 40, 1, -1, RANDOM, 4, 42, 1, 0 },
    { 3, { 8, 8, 8 }, 2, HB, 7.4, 1, 3, HOT, 4, 43, 1, 0 },
    /* heat bath 4 <= q <= 9 by the neighbour-tuple table (lattices of at least 64 sites
     * per entry): h != 0, J < 0, weights 0 at large beta */
    { 2, { 128, 128 }, 4, HB, 0.9, 1, 0.3, HOT, 3, 48, 1, 0 },
    { 2, { 128, 128 }, 4, HB, 60, -1, -0.5, RANDOM, 3, 49, 2, 0 },
    { 2, { 512, 512 }, 8, HB, 1.1, 1, -0.2, RANDOM, 2, 50, 2, 0 },
    { 2, { 648, 648 }, 9, HB, 0.05, 1, 1.5, HOT, 2, 51, 1, 0 },
    { 3, { 64, 64, 64 }, 4, HB, 0.4, 1, 0.1, HOT, 2, 52, 3, 0 },
    /* the scalar rule on every site */
    { 2, { 64, 34 }, 3, METRO, 0.7, 1, 0.2, HOT, 4, 44, 1, 1 },
    { 2, { 64, 34 }, 3, HB, 0.7, 1, 0.2, HOT, 4, 45, 1, 1 },
    { 3, { 6, 6, 6 }, 2, METRO, 0.5, 1, -0.2, HOT, 4, 46, 1, 1 },
    { 2, { 9, 15 }, 3, HB, 0.6, 1, 0.5, HOT, 4, 47, 1, 1 },
};

/*
 * Draws of exactly 2^32 - 1, found by search, on colour 0 of sweep 0 (a 16 x 8 lattice has
 * 64 sites per colour, blocks 0 .. 15; any larger one has the same first 64 sites): where a
 * threshold is 2^32 (Metropolis at beta = 0; the heat bath of a cold start at large beta,
 * whose other states weigh 0) this draw is the one that a threshold clamped to 32 bits
 * would decide wrongly.
 */
struct ones_case {
    uint64_t seed;
    int64_t block;
    int lane;
    int algorithm;
    int q;
    int64_t extent;    /* L x L/2; 128 x 64 and larger take the heat-bath table for q = 4 */
};
static const struct ones_case ones_cases[] = {
    { 36996439, 8, 0, METRO, 3, 16 },      /* acceptance draw (sub 1) of site j = 32 */
    { 111840233, 14, 1, METRO, 3, 16 },    /* j = 57 */
    { 39896521, 15, 1, HB, 3, 16 },        /* heat-bath draw (sub 0) of site j = 61 */
    { 40222668, 9, 2, HB, 3, 16 },         /* j = 38 */
    { 39896521, 15, 1, HB, 4, 256 },       /* the same draws, heat-bath table of q = 4 */
    { 40222668, 9, 2, HB, 4, 256 },
};

static latmc_sim *make_sim(latmc_ctx *ctx, const char *level, const struct chain_case *c,
                           int threads)
{
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_POTTS;
    d.ndim = c->ndim;
    d.extent[0] = c->ext[0];
    d.extent[1] = c->ext[1];
    d.extent[2] = c->ndim == 3 ? c->ext[2] : 0;
    d.q = c->q;
    d.algorithm = c->algorithm;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.seed = c->seed;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    unsetenv("LATMC_CPU_MASK");
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, c->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, c->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, c->h), LATMC_OK);
    return sim;
}

static void start(latmc_sim *sim, const struct chain_case *c, uint8_t *buf, size_t n)
{
    if (c->start == RANDOM) {
        uint64_t rng = c->seed * 977;
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)(test_rng_next(&rng) % (uint64_t)c->q);
        assert_int_equal(latmc_sim_set_spins(sim, buf, n), LATMC_OK);
    } else {
        assert_int_equal(latmc_sim_init_spins(sim, c->start == HOT ? LATMC_INIT_HOT
                                                                   : LATMC_INIT_COLD),
                         LATMC_OK);
    }
}

static void assert_same_state(latmc_sim *ref, latmc_sim *fast, uint8_t *a, uint8_t *b, size_t n,
                              const char *level, const struct chain_case *c, int sweep)
{
    assert_int_equal(latmc_sim_get_spins(ref, a, n), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(fast, b, n), LATMC_OK);
    if (memcmp(a, b, n) != 0) {
        size_t i = 0;
        while (a[i] == b[i])
            i++;
        print_error("%s: %dD %lldx%lldx%lld q=%d %s beta=%g J=%g h=%g seed %llu threads %d: "
                    "after sweep %d site %zu is %d, the reference has %d\n", level, c->ndim,
                    (long long)c->ext[0], (long long)c->ext[1], (long long)c->ext[2], c->q,
                    c->algorithm == METRO ? "Metropolis" : "heat bath", c->beta, c->J, c->h,
                    (unsigned long long)c->seed, c->threads, sweep, i, b[i], a[i]);
        fail();
    }
    const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M4 };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        double va, vb;
        assert_int_equal(latmc_sim_observable(ref, keys[k], &va), LATMC_OK);
        assert_int_equal(latmc_sim_observable(fast, keys[k], &vb), LATMC_OK);
        assert_memory_equal(&va, &vb, sizeof va);   /* exact integer sums: bitwise */
    }
    if (sweep >= 0) {
        double va, vb;
        assert_int_equal(latmc_sim_observable(ref, LATMC_OBS_ACCEPTANCE, &va), LATMC_OK);
        assert_int_equal(latmc_sim_observable(fast, LATMC_OBS_ACCEPTANCE, &vb), LATMC_OK);
        assert_memory_equal(&va, &vb, sizeof va);
    }
}

/*
 * A level under test: one the CPU runs (selected by LATMC_CPU_MASK), or a dsp installed
 * into the sim by the test (the emulated template).
 */
struct level {
    const char *name;
    unsigned flag;
    int built;
    void (*dsp_init)(struct cpu_potts_dsp *dsp);
};

/* One case at one level: both sims from the same start, compared after every sweep. */
static void run_case(latmc_ctx *ctx, const struct level *lv, const struct chain_case *c)
{
    const char *level = lv->name;
    latmc_sim *ref = make_sim(ctx, "c", c, 1);
    latmc_sim *fast = make_sim(ctx, lv->dsp_init ? "c" : level, c, c->threads);
    if (lv->dsp_init) {
        struct cpu_potts_dsp dsp;
        lv->dsp_init(&dsp);
        assert_int_equal(cpu_potts_use_dsp(fast, &dsp), LATMC_OK);
    }
    assert_string_equal(cpu_potts_level(ref), "c");
    assert_string_equal(cpu_potts_level(fast), level);
    cpu_potts_set_scalar_every_site(fast, c->scalar);
    const size_t n = (size_t)(c->ext[0] * c->ext[1] * (c->ndim == 3 ? c->ext[2] : 1));
    uint8_t *a = malloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    start(ref, c, a, n);
    start(fast, c, b, n);
    assert_same_state(ref, fast, a, b, n, level, c, -1);
    /* one sweep per call on the reference; the fast sim also in a call of two */
    for (int s = 0; s < c->sweeps;) {
        const int k = s + 2 <= c->sweeps && s % 3 == 1 ? 2 : 1;
        for (int i = 0; i < k; i++)
            assert_int_equal(latmc_sim_sweep(ref, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(fast, (uint64_t)k), LATMC_OK);
        s += k;
        assert_same_state(ref, fast, a, b, n, level, c, s);
    }
    free(a);
    free(b);
    latmc_sim_destroy(&ref);
    latmc_sim_destroy(&fast);
}

static const struct level levels[] = {
#if LATMC_HAVE_AVX2
    { "avx2", CPU_FLAG_AVX2, 1, NULL },
#else
    { "avx2", CPU_FLAG_AVX2, 0, NULL },
#endif
#if LATMC_HAVE_AVX512
    { "avx512", CPU_FLAG_AVX512, 1, NULL },
#else
    { "avx512", CPU_FLAG_AVX512, 0, NULL },
#endif
    { "emu512", 0, 1, potts_emu512_dsp_init },
};

/* The levels this machine can run; prints the others and why. */
static int runnable(const struct level *l)
{
    if (l->dsp_init)
        return 1;
    if (!l->built) {
        print_message("level %s: not built (no kernels for it in this build)\n", l->name);
        return 0;
    }
    if (!(cpu_flags_detected() & l->flag)) {
        print_message("level %s: skipped, this CPU lacks it\n", l->name);
        return 0;
    }
    return 1;
}

static void test_chains(void **state)
{
    (void)state;
    latmc_ctx *ctx;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    int ran = 0;
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (!runnable(&levels[l]))
            continue;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            run_case(ctx, &levels[l], &cases[i]);
        print_message("level %s: %zu chains bit-identical to the C reference\n",
                      levels[l].name, sizeof cases / sizeof cases[0]);
        ran++;
    }
    if (!ran)
        print_message("no SIMD level to compare on this machine\n");
    latmc_ctx_destroy(&ctx);
}

/* The all-ones draws: the draw is checked to be 2^32 - 1, then the chain compared. */
static void test_all_ones_draws(void **state)
{
    (void)state;
    latmc_ctx *ctx;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (!runnable(&levels[l]))
            continue;
        for (size_t i = 0; i < sizeof ones_cases / sizeof ones_cases[0]; i++) {
            const struct ones_case *o = &ones_cases[i];
            const int metro = o->algorithm == METRO;
            const latmc_philox_ctr r = latmc_rng_block(
                o->seed, (uint64_t)o->block, 0, latmc_rng_stream(LATMC_STREAM_UPDATE, 0), 0,
                metro ? LATMC_POTTS_SUB_ACCEPT : LATMC_POTTS_SUB_HEATBATH);
            assert_int_equal(r.v[o->lane], UINT32_MAX);
            /* Metropolis at beta = 0: every threshold is 2^32, the reference accepts.
             * Heat bath from a cold start at beta = 50: the other states weigh 0, the
             * reference keeps state 0 even for this draw. */
            const struct chain_case c = {
                2, { o->extent, o->extent / 2 }, o->q, o->algorithm, metro ? 0 : 50, 1, 0,
                metro ? HOT : COLD, 1, o->seed, 1, 0,
            };
            run_case(ctx, &levels[l], &c);
        }
    }
    latmc_ctx_destroy(&ctx);
}

/* The state the reference rule draws for counts n[] (sum 2 ndim) and draw u. */
static int rule_state(const struct latmc_potts_tables *t, int ndim, int q, const int *n,
                      uint32_t u)
{
    uint8_t nb[LATMC_POTTS_MAX_NB], n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    int m = 0;
    for (int k = 0; k < q; k++)
        for (int i = 0; i < n[k]; i++)
            nb[m++] = (uint8_t)k;
    assert_int_equal(m, 2 * ndim);
    return latmc_potts_heatbath(t, q, nb, m, u, n_of);
}

static unsigned top16(uint8_t b3, uint8_t b2)
{
    return ((unsigned)(b3 ^ 0x80u) << 8) | (b2 ^ 0x80u);
}

/*
 * Every tabulated heat-bath threshold separates the draws: the largest draw with smaller
 * top 16 bits gets a state <= k from the rule, the smallest draw with larger ones a state
 * > k. Every Metropolis entry holds the top 16 bits of min(T, 2^32 - 1).
 */
static void test_fast_tables(void **state)
{
    (void)state;
    const double params[][3] = {
        { 0.6667, 1, 0 }, { 0.3, -1, 0.5 }, { 50, 1, 0.2 }, { 0, 1, 0 }, { 7.4, 1, -3 },
        { 1e3, 1, 1 }, { 1.5, 0.5, -0.25 },
    };
    latmc_ctx *ctx;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int ndim = 2; ndim <= 3; ndim++)
        for (int q = 2; q <= 3; q++)
            for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
                const struct chain_case c = { ndim, { 4, 4, 4 }, q, HB, params[pi][0],
                                              params[pi][1], params[pi][2], COLD, 0, 1, 1, 0 };
                latmc_sim *sim = make_sim(ctx, "c", &c, 1);
                const struct latmc_potts_tables *t = sim->model_data;
                struct cpu_potts_fast_tables f;
                cpu_potts_fast_tables_build(&f, t, ndim, q);
                assert_true(f.hb_vector);
                const int two_d = 2 * ndim;
                int seen = 0;
                for (int n0 = 0; n0 <= two_d; n0++)
                    for (int n1 = 0; n1 <= two_d - n0; n1++) {
                        if (q == 2 && n1 != two_d - n0)
                            continue;
                        const int n[3] = { n0, n1, two_d - n0 - n1 };
                        int hash = 0;
                        for (int k = 0; k < q; k++)
                            hash += n[k] * f.hb_f[k];
                        assert_true(hash < 16 * f.hb_levels);
                        for (int k = 0; k + 1 < q; k++) {
                            const unsigned top = top16(f.hb_b3[k][hash], f.hb_b2[k][hash]);
                            if (top > 0)
                                assert_true(rule_state(t, ndim, q, n, (top << 16) - 1) <= k);
                            if (top < 0xffff)
                                assert_true(rule_state(t, ndim, q, n, (top + 1) << 16) > k);
                        }
                        seen++;
                    }
                /* the hash told every count vector apart */
                assert_int_equal(seen, q == 2 ? two_d + 1 : (two_d + 1) * (two_d + 2) / 2);
                for (int dn = -two_d; dn <= two_d; dn++)
                    for (int dz = -1; dz <= 1; dz++) {
                        const int idx = 3 * (dn + two_d) + dz + 1;
                        const uint64_t T = t->metropolis[dn + two_d][dz + 1];
                        const uint64_t clamped = T > UINT32_MAX ? UINT32_MAX : T;
                        assert_true(idx < 16 * f.metro_levels);
                        assert_int_equal(top16(f.metro_b3[idx], f.metro_b2[idx]), clamped >> 16);
                    }
                latmc_sim_destroy(&sim);
            }
    latmc_ctx_destroy(&ctx);
}

/*
 * The heat-bath table of 4 <= q <= 9 (struct cpu_potts_hb_table) against the shared rule:
 * for every neighbour tuple, the draws just below and at each stored threshold give the
 * rule's state when counted as the kernels count (leading words <= the biased draw).
 */
static int table_state(const uint32_t *entry, uint32_t u)
{
    int k = 0;
    while (k < 8 && (int32_t)entry[k] <= (int32_t)(u ^ 0x80000000u))
        k++;
    return k;
}

static void test_hb_table(void **state)
{
    (void)state;
    const double params[][3] = {
        { 0.6667, 1, 0 }, { 0.3, -1, 0.5 }, { 50, 1, 0.2 }, { 0, 1, 0 }, { 7.4, 1, -3 },
    };
    const int shapes[][2] = { { 2, 4 }, { 2, 5 }, { 2, 8 }, { 2, 9 }, { 3, 4 } };
    latmc_ctx *ctx;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t ci = 0; ci < sizeof shapes / sizeof shapes[0]; ci++)
        for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
            const int ndim = shapes[ci][0], q = shapes[ci][1];
            const struct chain_case c = { ndim, { 4, 4, 4 }, q, HB, params[pi][0],
                                          params[pi][1], params[pi][2], COLD, 0, 1, 1, 0 };
            latmc_sim *sim = make_sim(ctx, "c", &c, 1);
            const struct latmc_potts_tables *t = sim->model_data;
            struct cpu_potts_hb_table h = { NULL, 0 };
            assert_int_equal(cpu_potts_hb_table_build(&h, t, ndim, q), LATMC_OK);
            uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
            memset(n_of, 0, sizeof n_of);
            for (int64_t e = 0; e < h.entries; e++) {
                uint8_t nb[LATMC_POTTS_MAX_NB];
                int64_t rest = e;
                for (int d = 0; d < 2 * ndim; d++) {
                    nb[d] = (uint8_t)(rest % q);
                    rest /= q;
                }
                const uint32_t *entry = h.entry + 8 * e;
                for (int k = 0; k < 8; k++) {
                    const uint32_t thr = entry[k] ^ 0x80000000u;
                    if (k + 1 >= q) {
                        assert_int_equal(thr, UINT32_MAX);   /* padding */
                        continue;
                    }
                    const uint32_t probe[2] = { thr ? thr - 1 : 0, thr };
                    for (int i = 0; i < 2; i++) {
                        if (probe[i] == UINT32_MAX)
                            continue;                        /* the shared rule's draw */
                        assert_int_equal(table_state(entry, probe[i]),
                                         latmc_potts_heatbath(t, q, nb, 2 * ndim, probe[i],
                                                              n_of));
                    }
                }
            }
            cpu_potts_hb_table_free(&h);
            latmc_sim_destroy(&sim);
        }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_tables),
        cmocka_unit_test(test_hb_table),
        cmocka_unit_test(test_chains),
        cmocka_unit_test(test_all_ones_draws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
