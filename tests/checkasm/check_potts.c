/*
 * checkasm, Potts (backends/cpu/potts/potts_fast.h): the functions of struct cpu_potts_dsp
 * (metropolis, heatbath, measure) at every level against the C reference. Both sims of a
 * case get their table by cpu_potts_use_dsp: the C level (cpu_potts_dsp_init with no
 * flags) and the level under test (its flags, or the AVX-512 template with its primitives
 * emulated in plain C, potts_emu512.c, on any machine). Compared after every sweep:
 * configurations, the acceptance count and the observables, for Metropolis and heat bath,
 * 2D and 3D, both colourings, q from 2 to 255, h != 0, J < 0, extreme beta, extents that
 * are not multiples of the vector width (rows that share a vector, tiny lattices), 1 to 3
 * threads, every site forced through the scalar rule, and draws of exactly 2^32 - 1.
 *
 * Besides the chains, the tables the kernels read (level-independent, reported at "c"):
 * the fast tables against the reference rule itself (every threshold of every neighbour
 * count vector separates the draws the rule sends above and below it), and the heat-bath
 * table of 4 <= q <= 9 the same way for every neighbour tuple.
 */
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "checkasm.h"
#include "cpu_features.h"
#include "internal.h"
#include "potts_fast.h"
#include "potts_emu512.h"
#include "potts_kernels.h"
#include "sim_helpers.h"

/* A failed check ends the function at that level (one report each): back to check_*(). */
static jmp_buf bail;
static const char *cur_func, *cur_level;
#define CHECK(x)                                                                            \
    do {                                                                                    \
        if (!(x)) {                                                                         \
            checkasm_fail(cur_func, cur_level, "%s:%d: %s", __FILE__, __LINE__, #x);         \
            longjmp(bail, 1);                                                               \
        }                                                                                   \
    } while (0)

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
#define CHECK_EQ(a, b) CHECK((a) == (b))

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

/* A sim of the case with the kernel table `dsp` (the C level's: cpu_potts_dsp_init(, 0)). */
static latmc_sim *make_sim(latmc_ctx *ctx, const struct cpu_potts_dsp *dsp,
                           const struct chain_case *c, int threads)
{
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
    CHECK_EQ(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    CHECK_EQ(cpu_potts_use_dsp(sim, dsp), LATMC_OK);
    CHECK_EQ(latmc_sim_set_param(sim, LATMC_PARAM_BETA, c->beta), LATMC_OK);
    CHECK_EQ(latmc_sim_set_param(sim, LATMC_PARAM_J, c->J), LATMC_OK);
    CHECK_EQ(latmc_sim_set_param(sim, LATMC_PARAM_H, c->h), LATMC_OK);
    return sim;
}

static latmc_sim *make_c_sim(latmc_ctx *ctx, const struct chain_case *c)
{
    struct cpu_potts_dsp dsp;
    cpu_potts_dsp_init(&dsp, 0);
    return make_sim(ctx, &dsp, c, 1);
}

static void start(latmc_sim *sim, const struct chain_case *c, uint8_t *buf, size_t n)
{
    if (c->start == RANDOM) {
        uint64_t rng = c->seed * 977;
        for (size_t i = 0; i < n; i++)
            buf[i] = (uint8_t)(test_rng_next(&rng) % (uint64_t)c->q);
        CHECK_EQ(latmc_sim_set_spins(sim, buf, n), LATMC_OK);
    } else {
        CHECK_EQ(latmc_sim_init_spins(sim, c->start == HOT ? LATMC_INIT_HOT : LATMC_INIT_COLD),
                 LATMC_OK);
    }
}

static void check_same_state(latmc_sim *ref, latmc_sim *fast, uint8_t *a, uint8_t *b, size_t n,
                             const struct chain_case *c, int sweep)
{
    CHECK_EQ(latmc_sim_get_spins(ref, a, n), LATMC_OK);
    CHECK_EQ(latmc_sim_get_spins(fast, b, n), LATMC_OK);
    if (memcmp(a, b, n) != 0) {
        size_t i = 0;
        while (a[i] == b[i])
            i++;
        checkasm_fail(cur_func, cur_level, "%dD %lldx%lldx%lld q=%d %s beta=%g J=%g h=%g "
                      "seed %llu threads %d: after sweep %d site %zu is %d, the reference "
                      "has %d", c->ndim, (long long)c->ext[0], (long long)c->ext[1],
                      (long long)c->ext[2], c->q,
                      c->algorithm == METRO ? "Metropolis" : "heat bath", c->beta, c->J, c->h,
                      (unsigned long long)c->seed, c->threads, sweep, i, b[i], a[i]);
        longjmp(bail, 1);
    }
    /* exact integer sums: bitwise; the acceptance after a sweep */
    const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M4,
                         LATMC_OBS_ACCEPTANCE };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0] - (sweep < 0); k++) {
        double va, vb;
        CHECK_EQ(latmc_sim_observable(ref, keys[k], &va), LATMC_OK);
        CHECK_EQ(latmc_sim_observable(fast, keys[k], &vb), LATMC_OK);
        CHECK(memcmp(&va, &vb, sizeof va) == 0);
    }
}

/* One case at one level: both sims from the same start, compared after every sweep. */
static void run_case(latmc_ctx *ctx, const struct cpu_potts_dsp *dsp, const struct chain_case *c)
{
    latmc_sim *ref = make_c_sim(ctx, c);
    latmc_sim *fast = make_sim(ctx, dsp, c, c->threads);
    CHECK(strcmp(cpu_potts_level(ref), "c") == 0);
    CHECK(strcmp(cpu_potts_level(fast), dsp->level) == 0);
    cpu_potts_set_scalar_every_site(fast, c->scalar);
    const size_t n = (size_t)(c->ext[0] * c->ext[1] * (c->ndim == 3 ? c->ext[2] : 1));
    uint8_t *a = malloc(n), *b = malloc(n);
    CHECK(a && b);
    start(ref, c, a, n);
    start(fast, c, b, n);
    check_same_state(ref, fast, a, b, n, c, -1);
    /* one sweep per call on the reference; the fast sim also in a call of two */
    for (int s = 0; s < c->sweeps;) {
        const int k = s + 2 <= c->sweeps && s % 3 == 1 ? 2 : 1;
        for (int i = 0; i < k; i++)
            CHECK_EQ(latmc_sim_sweep(ref, 1), LATMC_OK);
        CHECK_EQ(latmc_sim_sweep(fast, (uint64_t)k), LATMC_OK);
        s += k;
        check_same_state(ref, fast, a, b, n, c, s);
    }
    free(a);
    free(b);
    latmc_sim_destroy(&ref);
    latmc_sim_destroy(&fast);
}

/* The level's table; 0 when this build has no Potts kernels for it. */
static int level_dsp(const struct checkasm_level *lv, struct cpu_potts_dsp *dsp)
{
    if (lv->emulated) {
        memset(dsp, 0, sizeof *dsp);
        potts_emu512_dsp_init(dsp);
        return 1;
    }
    cpu_potts_dsp_init(dsp, lv->flags);
    return strcmp(dsp->level, lv->name) == 0;
}

static void check_chains(latmc_ctx *ctx, const struct cpu_potts_dsp *dsp)
{
    cur_func = "potts.metropolis+heatbath";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(ctx, dsp, &cases[i]);
    checkasm_ok(cur_func, cur_level, "chains, measure included");
}

/* The all-ones draws: the draw is checked to be 2^32 - 1, then the chain compared. */
static void check_all_ones_draws(latmc_ctx *ctx, const struct cpu_potts_dsp *dsp)
{
    cur_func = "potts.draws 2^32-1";
    for (size_t i = 0; i < sizeof ones_cases / sizeof ones_cases[0]; i++) {
        const struct ones_case *o = &ones_cases[i];
        const int metro = o->algorithm == METRO;
        const latmc_philox_ctr r = latmc_rng_block(
            o->seed, (uint64_t)o->block, 0, latmc_rng_stream(LATMC_STREAM_UPDATE, 0), 0,
            metro ? LATMC_POTTS_SUB_ACCEPT : LATMC_POTTS_SUB_HEATBATH);
        CHECK_EQ(r.v[o->lane], UINT32_MAX);
        /* Metropolis at beta = 0: every threshold is 2^32, the reference accepts.
         * Heat bath from a cold start at beta = 50: the other states weigh 0, the
         * reference keeps state 0 even for this draw. */
        const struct chain_case c = {
            2, { o->extent, o->extent / 2 }, o->q, o->algorithm, metro ? 0 : 50, 1, 0,
            metro ? HOT : COLD, 1, o->seed, 1, 0,
        };
        run_case(ctx, dsp, &c);
    }
    checkasm_ok(cur_func, cur_level, "chains");
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
    CHECK_EQ(m, 2 * ndim);
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
static void check_fast_tables(void)
{
    cur_func = "potts.fast_tables";
    const double params[][3] = {
        { 0.6667, 1, 0 }, { 0.3, -1, 0.5 }, { 50, 1, 0.2 }, { 0, 1, 0 }, { 7.4, 1, -3 },
        { 1e3, 1, 1 }, { 1.5, 0.5, -0.25 },
    };
    latmc_ctx *ctx;
    CHECK_EQ(latmc_ctx_create(&ctx), LATMC_OK);
    for (int ndim = 2; ndim <= 3; ndim++)
        for (int q = 2; q <= 3; q++)
            for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
                const struct chain_case c = { ndim, { 4, 4, 4 }, q, HB, params[pi][0],
                                              params[pi][1], params[pi][2], COLD, 0, 1, 1, 0 };
                latmc_sim *sim = make_c_sim(ctx, &c);
                const struct latmc_potts_tables *t = sim->model_data;
                struct cpu_potts_fast_tables f;
                cpu_potts_fast_tables_build(&f, t, ndim, q);
                CHECK(f.hb_vector);
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
                        CHECK(hash < 16 * f.hb_levels);
                        for (int k = 0; k + 1 < q; k++) {
                            const unsigned top = top16(f.hb_b3[k][hash], f.hb_b2[k][hash]);
                            if (top > 0)
                                CHECK(rule_state(t, ndim, q, n, (top << 16) - 1) <= k);
                            if (top < 0xffff)
                                CHECK(rule_state(t, ndim, q, n, (top + 1) << 16) > k);
                        }
                        seen++;
                    }
                /* the hash told every count vector apart */
                CHECK_EQ(seen, q == 2 ? two_d + 1 : (two_d + 1) * (two_d + 2) / 2);
                for (int dn = -two_d; dn <= two_d; dn++)
                    for (int dz = -1; dz <= 1; dz++) {
                        const int idx = 3 * (dn + two_d) + dz + 1;
                        const uint64_t T = t->metropolis[dn + two_d][dz + 1];
                        const uint64_t clamped = T > UINT32_MAX ? UINT32_MAX : T;
                        CHECK(idx < 16 * f.metro_levels);
                        CHECK_EQ(top16(f.metro_b3[idx], f.metro_b2[idx]), clamped >> 16);
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

static void check_hb_table(void)
{
    cur_func = "potts.hb_table";
    const double params[][3] = {
        { 0.6667, 1, 0 }, { 0.3, -1, 0.5 }, { 50, 1, 0.2 }, { 0, 1, 0 }, { 7.4, 1, -3 },
    };
    const int shapes[][2] = { { 2, 4 }, { 2, 5 }, { 2, 8 }, { 2, 9 }, { 3, 4 } };
    latmc_ctx *ctx;
    CHECK_EQ(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t ci = 0; ci < sizeof shapes / sizeof shapes[0]; ci++)
        for (size_t pi = 0; pi < sizeof params / sizeof params[0]; pi++) {
            const int ndim = shapes[ci][0], q = shapes[ci][1];
            const struct chain_case c = { ndim, { 4, 4, 4 }, q, HB, params[pi][0],
                                          params[pi][1], params[pi][2], COLD, 0, 1, 1, 0 };
            latmc_sim *sim = make_c_sim(ctx, &c);
            const struct latmc_potts_tables *t = sim->model_data;
            struct cpu_potts_hb_table h = { NULL, 0 };
            CHECK_EQ(cpu_potts_hb_table_build(&h, t, ndim, q), LATMC_OK);
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
                        CHECK_EQ(thr, UINT32_MAX);   /* padding */
                        continue;
                    }
                    const uint32_t probe[2] = { thr ? thr - 1 : 0, thr };
                    for (int i = 0; i < 2; i++) {
                        if (probe[i] == UINT32_MAX)
                            continue;                        /* the shared rule's draw */
                        CHECK_EQ(table_state(entry, probe[i]),
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

/* --bench: one sweep (the colours' passes and the measurement) of 2D L x rows, q = 3. */
static void bench_sweeps(latmc_ctx *ctx, int algorithm, int64_t L, int64_t rows)
{
    char func[64];
    snprintf(func, sizeof func, "sweep %lldx%lld q3 %s", (long long)L, (long long)rows,
             algorithm == METRO ? "metro" : "hb");
    const struct chain_case c = { 2, { L, rows }, 3, algorithm, 0.6667, 1, 0, HOT, 0, 1, 1, 0 };
    /* a sweep: one draw per heat-bath update, two per Metropolis update (proposal and
     * acceptance); each colour's pass reads the lattice's bytes (1 a spin) and writes its
     * colour's, the measurement reads them once more */
    const double n = (double)(L * rows);
    checkasm_ceiling_work(func, &(struct checkasm_work){ n, algorithm == METRO ? 2 : 1, 3 * n, n });
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = -1; l < nl; l++) {
        struct cpu_potts_dsp dsp;
        if (l < 0)
            cpu_potts_dsp_init(&dsp, 0);
        else if (levels[l].emulated || !level_dsp(&levels[l], &dsp))
            continue;
        cur_level = l < 0 ? "c" : levels[l].name;
        latmc_sim *sim = make_sim(ctx, &dsp, &c, 1);
        CHECK_EQ(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        double best = 1e300;
        for (int rep = 0; rep < 5; rep++) {
            const double t0 = checkasm_now_ns();
            CHECK_EQ(latmc_sim_sweep(sim, 2), LATMC_OK);
            const double t = (checkasm_now_ns() - t0) / 2;
            best = t < best ? t : best;
        }
        checkasm_bench(func, cur_level, best);
        latmc_sim_destroy(&sim);
    }
}

static void check_level(latmc_ctx *ctx, const struct checkasm_level *lv)
{
    struct cpu_potts_dsp dsp;
    if (!level_dsp(lv, &dsp)) {
        printf("  potts: level %s not built: skipped\n", lv->name);
        return;
    }
    cur_level = lv->name;
    if (setjmp(bail) == 0)
        check_chains(ctx, &dsp);
    if (setjmp(bail) == 0)
        check_all_ones_draws(ctx, &dsp);
}

void checkasm_check_potts(void)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK) {
        checkasm_fail("potts", "c", "latmc_ctx_create failed");
        return;
    }
    cur_level = "c";
    if (setjmp(bail) == 0) {
        check_fast_tables();
        checkasm_ok(cur_func, cur_level, "2D and 3D, q 2 and 3, 7 parameter sets");
    }
    if (setjmp(bail) == 0) {
        check_hb_table();
        checkasm_ok(cur_func, cur_level, "q 4 to 9, 5 parameter sets");
    }
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++)
        check_level(ctx, &levels[l]);
    if (checkasm_bench_on() && setjmp(bail) == 0) {
        const int64_t L = checkasm_quick() ? 16 : 512;
        bench_sweeps(ctx, METRO, L, L);
        bench_sweeps(ctx, HB, L, L);
        if (checkasm_in_cache_rows()) { /* the same rows, few of them: in L1 */
            bench_sweeps(ctx, METRO, L, 16);
            bench_sweeps(ctx, HB, L, 16);
        }
    }
    latmc_ctx_destroy(&ctx);
}
