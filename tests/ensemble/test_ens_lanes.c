/*
 * The ensemble chain of member lanes (latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2),
 * doc/ensembles.md "Member lanes"):
 *  - the library against this test's own implementation of the definition, bit for bit
 *    (2D and 3D, uniform and +-J, Metropolis and heat bath, a field, a partial last group):
 *    every lane's u rebuilt from all 32 planes and compared with its threshold, no early
 *    stop, the counters written out from doc/conventions.md's layout; the rounds' per-lane
 *    sums against the members' measurements and against a count lane by lane;
 *  - the same chain for any thread count, any split of the sweeps into calls, a save and
 *    load in the middle, with tempering on; members 0 .. 39 of 40 and of 64 members equal
 *    (the last group's absent lanes change nothing);
 *  - statistics: <e> and <|m|> per temperature against exact enumeration on 4x4 (uniform
 *    with and without a field, +-J), both algorithms; every decision of 2D +-J runs read
 *    off consecutive configurations: accept frequency per (temperature, class) against p
 *    (chi^2) and two lanes of one word against independence; 3D +-J <e> against the
 *    default chain's at three temperatures;
 *  - refusals: a sim (decisions 2 is the ensemble's), other models and algorithms;
 *  - CUDA members: the same chain as the CPU's, bit for bit (spins, counters, rounds on
 *    the device, which the log says, and the host's rounds with LATMC_ENS_HOST_ROUNDS=1;
 *    run where a CUDA ensemble can be made);
 *  - calls of more sweeps than a CUDA launch takes (1024): the reference, the SIMD
 *    vectors, small calls and CUDA, bit for bit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../fuzz/ens_format.h" /* the file's offsets, its checksum */
#include "ens_test_helpers.h"
#include "ens_internal.h"   /* the ensemble's lanes_words: freed when decisions leaves 2 */
#include "ens_lanes_sums.h" /* latmc_ens_lanes_sums */
#include "model.h"          /* a member's tables: model_data, data_size */
#include "philox.h"

static latmc_ctx *ctx;
static int device_rounds_logged; /* the loads of the exchange rounds' state on a device */

static void on_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "exchange rounds on the device"))
        device_rounds_logged++;
}

static int setup(void **state)
{
    (void)state;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return -1;
    latmc_ctx_set_log(ctx, on_log, NULL, LATMC_LOG_DEBUG);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    latmc_ctx_destroy(&ctx);
    return 0;
}

/* ---- the test's own implementation of the definition ---- */

struct lat {
    int nd, L[3];
    int N;
};

static struct lat lat_of(const latmc_sim_desc *d)
{
    struct lat g = { d->ndim, { (int)d->extent[0], (int)d->extent[1],
                                d->ndim == 3 ? (int)d->extent[2] : 1 }, 0 };
    g.N = g.L[0] * g.L[1] * g.L[2];
    return g;
}

/* Neighbour of i in direction mu (0 .. nd-1), step +1 or -1. */
static int nbr(const struct lat *g, int i, int mu, int step)
{
    int c[3] = { i % g->L[0], (i / g->L[0]) % g->L[1], i / (g->L[0] * g->L[1]) };
    c[mu] = (c[mu] + step + g->L[mu]) % g->L[mu];
    return c[0] + g->L[0] * (c[1] + g->L[1] * c[2]);
}

/* floor(p 2^32) in [0, 2^32] (doc/conventions.md, "Integer decisions"). */
static uint64_t thr(double p)
{
    if (!(p > 0.0))
        return 0;
    if (p >= 1.0)
        return UINT64_C(1) << 32;
    return (uint64_t)ldexp(p, 32);
}

/* The site's threshold: Metropolis flips s with min(1, exp(-beta dE)), dE = 2 s (J n + h);
 * heat bath sets +1 with 1 / (1 + exp(-2 beta (J n + h))). */
static uint64_t site_threshold(int algo, double beta, double J, double h, int s, int n)
{
    if (algo == LATMC_ALGO_HEATBATH)
        return thr(beta == 0.0 ? 0.5 : 1.0 / (1.0 + exp(-2.0 * beta * (J * n + h))));
    if (beta == 0.0)
        return thr(1.0);
    const double de = 2.0 * s * (J * n + h);
    return thr(de <= 0.0 ? 1.0 : exp(-beta * de));
}

/* Output b % 4 of the Philox block (block, key seed, sweep, stream 12, phase c, sub b / 4),
 * the counter words written out as doc/conventions.md lays them out. */
static uint32_t plane(uint64_t seed, uint64_t block, uint64_t sweep, int c, int b)
{
    latmc_philox_ctr ctr;
    ctr.v[0] = (uint32_t)block;
    ctr.v[1] = (uint32_t)((block >> 32) & 0xffffu) | (uint32_t)((sweep >> 32) << 16);
    ctr.v[2] = (uint32_t)sweep;
    ctr.v[3] = (12u << 24) | ((uint32_t)c << 16) | (uint32_t)(b / 4);
    latmc_philox_key key = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
    return latmc_philox4x32_10(ctr, key).v[b % 4];
}

/* n sweeps from sweep number s0 of M members: spins[m][i], eps[m][nd i + mu], beta[m]. */
static void own_sweeps(const struct lat *g, int M, int8_t **spins, float **eps,
                       const double *beta, double J, double h, int algo, uint64_t seed,
                       uint64_t s0, uint64_t n)
{
    for (uint64_t sw = s0; sw < s0 + n; sw++)
        for (int c = 0; c < 2; c++)
            for (int i = 0; i < g->N; i++) {
                const int x = i % g->L[0], y = (i / g->L[0]) % g->L[1],
                          z = i / (g->L[0] * g->L[1]);
                if ((x + y + z) % 2 != c)
                    continue;
                for (int grp = 0; grp * 32 < M; grp++) {
                    uint32_t W[32];
                    for (int b = 0; b < 32; b++)
                        W[b] = plane(seed, (uint64_t)grp * (uint64_t)g->N + (uint64_t)i, sw, c,
                                     b);
                    for (int l = 0; l < 32 && grp * 32 + l < M; l++) {
                        const int m = grp * 32 + l;
                        int nsum = 0;
                        for (int mu = 0; mu < g->nd; mu++) {
                            const int up = nbr(g, i, mu, 1), dn = nbr(g, i, mu, -1);
                            const double eu = eps ? eps[m][g->nd * i + mu] : 1.0;
                            const double ed = eps ? eps[m][g->nd * dn + mu] : 1.0;
                            nsum += (int)eu * spins[m][up] + (int)ed * spins[m][dn];
                        }
                        uint64_t u = 0;
                        for (int b = 0; b < 32; b++)
                            u |= (uint64_t)((W[b] >> l) & 1u) << (31 - b);
                        const int s = spins[m][i];
                        const bool acc = u < site_threshold(algo, beta[m], J, h, s, nsum);
                        spins[m][i] = (int8_t)(algo == LATMC_ALGO_HEATBATH ? (acc ? 1 : -1)
                                                                          : (acc ? -s : s));
                    }
                }
            }
}

/* ---- ensembles ---- */

static latmc_sim_desc lanes_desc(int nd, int L0, int L1, int L2, int couplings, int algo)
{
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, nd, L0);
    d.extent[1] = L1;
    if (nd == 3)
        d.extent[2] = L2;
    d.couplings = couplings;
    d.algorithm = algo;
    return d;
}

static latmc_ens *lanes_ens(latmc_sim_desc d, int ns, int nt, int nr, uint64_t seed,
                            int threads, const double *betas, uint64_t every, double h)
{
    latmc_ens_layout l = ens_test_layout(ns, nt, nr, seed, threads);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    assert_int_equal(latmc_ens_set_temperatures(e, betas, nt), LATMC_OK);
    if (h != 0.0)
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, every), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    return e;
}

/* Member m's couplings (those of a standalone sim of its desc: the same draws). */
static float *member_couplings(latmc_ens *e, int m, int N, int nd)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    assert_int_equal(latmc_ens_member_desc(e, m, &d), LATMC_OK);
    d.device = LATMC_DEVICE_CPU;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    float *eps = malloc((size_t)N * (size_t)nd * sizeof *eps);
    assert_non_null(eps);
    assert_int_equal(latmc_sim_get_couplings(sim, eps, (size_t)N * (size_t)nd), LATMC_OK);
    latmc_sim_destroy(&sim);
    return eps;
}

static int n_members(latmc_ens *e)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    latmc_ens_get_layout(e, &l);
    return l.n_samples * l.n_temperatures * l.n_replicas;
}

/* The library's sweeps against own_sweeps from the same start, member by member. */
static void check_definition(latmc_sim_desc d, int ns, int nt, int nr, double h, int threads)
{
    const double betas[8] = { 0.1, 0.25, 0.35, 0.42, 0.5, 0.65, 0.8, 1.1 };
    assert_true(nt <= 8);
    const uint64_t seed = 0x9a11e5u + (uint64_t)d.algorithm;
    latmc_ens *e = lanes_ens(d, ns, nt, nr, seed, threads, betas, 0, h);
    const struct lat g = lat_of(&d);
    const int M = n_members(e);
    int8_t **spins = calloc((size_t)M, sizeof *spins);
    float **eps = d.couplings == LATMC_COUPLINGS_BIMODAL ? calloc((size_t)M, sizeof *eps) : NULL;
    double *beta = calloc((size_t)M, sizeof *beta);
    assert_true(spins && beta);
    for (int m = 0; m < M; m++) {
        spins[m] = malloc((size_t)g.N);
        assert_int_equal(latmc_ens_get_spins(e, m, spins[m], (size_t)g.N), LATMC_OK);
        if (eps)
            eps[m] = member_couplings(e, m, g.N, g.nd);
        int t = -1;
        assert_int_equal(latmc_ens_temperature_of(e, m, &t), LATMC_OK);
        beta[m] = betas[t];
    }
    /* two calls, member 3 read (the words written back) and written with site 0
     * flipped between them (the words packed again) */
    int8_t *got = malloc((size_t)g.N);
    assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
    own_sweeps(&g, M, spins, eps, beta, 1.0, h, d.algorithm, seed, 0, 2);
    assert_int_equal(latmc_ens_get_spins(e, 3, got, (size_t)g.N), LATMC_OK);
    assert_memory_equal(got, spins[3], (size_t)g.N);
    got[0] = (int8_t)-got[0];
    spins[3][0] = (int8_t)-spins[3][0];
    assert_int_equal(latmc_ens_set_spins(e, 3, got, (size_t)g.N), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 1), LATMC_OK);
    own_sweeps(&g, M, spins, eps, beta, 1.0, h, d.algorithm, seed, 2, 1);
    for (int m = 0; m < M; m++) {
        assert_int_equal(latmc_ens_get_spins(e, m, got, (size_t)g.N), LATMC_OK);
        if (memcmp(got, spins[m], (size_t)g.N) != 0)
            fail_msg("member %d of %d differs from the definition", m, M);
    }
    /* the members' counters (set_spins emptied member 3's): in (0, 1) */
    double *accs = malloc((size_t)M * sizeof *accs);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER, accs,
                                           (size_t)M), LATMC_OK);
    for (int m = 0; m < M; m++)
        assert_true(accs[m] > 0.0 && accs[m] < 1.0);
    uint64_t count = 0;
    assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
    assert_int_equal(count, 3);
    for (int m = 0; m < M; m++) {
        free(spins[m]);
        if (eps)
            free(eps[m]);
    }
    free(accs);
    free(got);
    free(spins);
    free(eps);
    free(beta);
    latmc_ens_destroy(&e);
}

static void test_definition(void **state)
{
    (void)state;
    /* 3D +-J Metropolis, 40 members: a partial second group */
    check_definition(lanes_desc(3, 4, 4, 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS),
                     5, 8, 1, 0.0, 1);
    /* 3D +-J heat bath on an uneven box, two replicas */
    check_definition(lanes_desc(3, 4, 2, 6, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH),
                     3, 4, 2, 0.0, 2);
    /* 2D uniform with a field, both algorithms */
    check_definition(lanes_desc(2, 8, 6, 0, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_METROPOLIS),
                     2, 6, 3, 0.3, 2);
    check_definition(lanes_desc(2, 8, 6, 0, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH),
                     1, 8, 4, -0.2, 1);
    /* 2D +-J Metropolis, 70 members (three groups) */
    check_definition(lanes_desc(2, 4, 4, 0, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS),
                     7, 5, 2, 0.0, 3);
}

/* Everything a run leaves: spins, temperatures, pair statistics, energies. */
struct run_state {
    size_t bytes;
    unsigned char *spins;
    int temp[128];
    uint64_t acc[16], att[16];
    double energy[128];
};

static void capture(latmc_ens *e, struct run_state *s)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    latmc_ens_get_layout(e, &l);
    const int M = n_members(e);
    assert_true(M <= 128 && l.n_temperatures <= 16);
    s->spins = ens_test_all_spins(e, &s->bytes);
    assert_non_null(s->spins);
    for (int m = 0; m < M; m++)
        assert_int_equal(latmc_ens_temperature_of(e, m, &s->temp[m]), LATMC_OK);
    assert_int_equal(latmc_ens_exchange_counts(e, s->acc, s->att, l.n_temperatures - 1),
                     LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, s->energy,
                                           (size_t)M), LATMC_OK);
}

static void assert_same(const struct run_state *a, const struct run_state *b, int M, int nT)
{
    assert_int_equal(a->bytes, b->bytes);
    assert_memory_equal(a->spins, b->spins, a->bytes);
    assert_memory_equal(a->temp, b->temp, (size_t)M * sizeof a->temp[0]);
    assert_memory_equal(a->acc, b->acc, (size_t)(nT - 1) * sizeof a->acc[0]);
    assert_memory_equal(a->att, b->att, (size_t)(nT - 1) * sizeof a->att[0]);
    assert_memory_equal(a->energy, b->energy, (size_t)M * sizeof a->energy[0]);
}

static const double ladder[12] = { 0.2, 0.25, 0.3, 0.35, 0.4, 0.45,
                                   0.5, 0.55, 0.6, 0.7, 0.8, 0.9 };

/* 3 samples x 12 T x 2 R = 72 members (two full groups and one of 8) of 8^3 +-J,
 * a tempering round after every sweep: 36864 site updates a sweep, enough for a team. */
static latmc_ens *tempering(int threads)
{
    return lanes_ens(lanes_desc(3, 8, 8, 8, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS),
                     3, 12, 2, 77, threads, ladder, 1, 0.0);
}

static void test_threads_batching_files(void **state)
{
    (void)state;
    const int M = 72, nT = 12, total = 30;
    latmc_ens *a = tempering(1);
    assert_int_equal(latmc_ens_sweep(a, (uint64_t)total), LATMC_OK);
    struct run_state sa, sb, sc;
    capture(a, &sa);

    latmc_ens *b = tempering(3);
    const int calls[] = { 1, 2, 5, 7, 15 };
    for (int i = 0; i < 5; i++)
        assert_int_equal(latmc_ens_sweep(b, (uint64_t)calls[i]), LATMC_OK);
    capture(b, &sb);
    assert_same(&sa, &sb, M, nT);

    char dir[] = "/tmp/latmc-lanes-XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.ens", dir);
    latmc_ens *c = tempering(2);
    assert_int_equal(latmc_ens_sweep(c, 13), LATMC_OK);
    assert_int_equal(latmc_ens_save(c, path), LATMC_OK);
    latmc_ens_destroy(&c);
    assert_int_equal(latmc_ens_load(ctx, path, &c), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(c, (uint64_t)(total - 13)), LATMC_OK);
    capture(c, &sc);
    assert_same(&sa, &sc, M, nT);
    /* the file says which chain: version 2, the chain (2) after the sweep and round
     * counts; another chain value, resealed, is a damaged file */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *bytes = malloc(1 << 20);
    const size_t n = fread(bytes, 1, 1 << 20, f);
    fclose(f);
    assert_true(n > 1000 && n < (1 << 20));
    assert_int_equal(ckpt_get_le(bytes + ENS_OFF_VERSION, 4), 2);
    const size_t chain_at = ENS_OFF_LADDER_VALUES + 8 * 12 + 24;
    assert_int_equal(ckpt_get_le(bytes + chain_at, 4), 2);
    ckpt_put_le(bytes + chain_at, 3, 4);
    ckpt_put_le(bytes + n - 8, ckpt_fnv1a(bytes, n - 8), 8);
    f = fopen(path, "wb");
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    fclose(f);
    latmc_ens *bad = (latmc_ens *)&bad;
    assert_int_equal(latmc_ens_load(ctx, path, &bad), LATMC_ECORRUPT);
    assert_null(bad);
    free(bytes);
    remove(path);
    rmdir(dir);

    /* the chain differs from the members' own (decisions 0): not a no-op */
    latmc_ens *d = tempering(1);
    assert_int_equal(latmc_ens_set_param(d, LATMC_PARAM_DECISIONS, 0), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(d, (uint64_t)total), LATMC_OK);
    struct run_state sd;
    capture(d, &sd);
    assert_true(memcmp(sa.spins, sd.spins, sa.bytes) != 0);

    free(sa.spins);
    free(sb.spins);
    free(sc.spins);
    free(sd.spins);
    latmc_ens_destroy(&a);
    latmc_ens_destroy(&b);
    latmc_ens_destroy(&c);
    latmc_ens_destroy(&d);
}

/* The per-lane reference (LATMC_ENS_LANES=reference) and the bit-sliced path the CPU
 * runs by default: the same run, bit for bit (2D heat bath with a field, 3D +-J
 * Metropolis and heat bath with tempering, a partial group). */
static void test_reference_equals_sliced(void **state)
{
    (void)state;
    const struct { latmc_sim_desc d; int ns, nt, nr; double h; uint64_t every; } runs[] = {
        { lanes_desc(2, 6, 8, 0, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH), 2, 8, 3, 0.4, 0 },
        { lanes_desc(3, 4, 6, 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS), 3, 6, 2, 0.0, 1 },
        { lanes_desc(3, 4, 4, 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH), 5, 4, 2, -0.3, 2 },
    };
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        struct run_state sr, ss;
        for (int ref = 0; ref < 2; ref++) {
            if (ref)
                assert_int_equal(setenv("LATMC_ENS_LANES", "reference", 1), 0);
            latmc_ens *e = lanes_ens(runs[i].d, runs[i].ns, runs[i].nt, runs[i].nr, 606, 2,
                                     ladder, runs[i].every, runs[i].h);
            assert_int_equal(latmc_ens_sweep(e, 9), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 11), LATMC_OK);
            capture(e, ref ? &sr : &ss);
            latmc_ens_destroy(&e);
            unsetenv("LATMC_ENS_LANES");
        }
        const int M = runs[i].ns * runs[i].nt * runs[i].nr;
        assert_same(&sr, &ss, M, runs[i].nt);
        free(sr.spins);
        free(ss.spins);
    }
}

/* A run at SIMD level `mask` (LATMC_CPU_MASK when the members are made: the level of the
 * CPU backend's vectors of groups, backends/cpu/ising/ising_lanes.c): every member's
 * spins, acceptance (its counters) and energy after three calls with tempering rounds,
 * the last member's spins written between the first two (the words packed again: the
 * vectors' kept copies must take them) and read between the last two. */
static void level_run(latmc_sim_desc d, int groups, int threads, double h, const char *mask,
                      unsigned char **spins, size_t *bytes, double *acc, double *energy)
{
    const double betas[4] = { 0.3, 0.44, 0.6, 0.9 };
    assert_int_equal(setenv("LATMC_CPU_MASK", mask, 1), 0);
    /* 32 groups - 4 members: the last group partial (28 lanes) */
    latmc_ens *e = lanes_ens(d, 8 * groups - 1, 4, 1, 4242 + (uint64_t)groups, threads, betas,
                             2, h);
    unsetenv("LATMC_CPU_MASK");
    const int M = n_members(e);
    assert_int_equal(M, 32 * groups - 4);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    const int64_t N = d.extent[0] * d.extent[1] * (d.ndim == 3 ? d.extent[2] : 1);
    int8_t *one = malloc((size_t)N);
    assert_non_null(one);
    assert_int_equal(latmc_ens_get_spins(e, M - 1, one, (size_t)N), LATMC_OK);
    for (int64_t i = 0; i < N; i += 3)
        one[i] = (int8_t)-one[i];
    assert_int_equal(latmc_ens_set_spins(e, M - 1, one, (size_t)N), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 4), LATMC_OK);
    assert_int_equal(latmc_ens_get_spins(e, 0, one, (size_t)N), LATMC_OK);
    free(one);
    assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
    *spins = ens_test_all_spins(e, bytes);
    assert_non_null(*spins);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER, acc,
                                           (size_t)M), LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, energy,
                                           (size_t)M), LATMC_OK);
    latmc_ens_destroy(&e);
}

/* The CPU's vectors of groups at each SIMD level equal the scalar form (LATMC_CPU_MASK=c)
 * bit for bit: spins, counters, energies, with tempering; group counts around the widths
 * (AVX2 4, AVX-512 16 groups a vector: whole and masked vectors), 2D and 3D, uniform and
 * +-J, both algorithms, with a field (classes by (spin, k)) and without (by unsatisfied bonds),
 * one and two threads. Levels the CPU lacks run lower ones (still equal, less tested). */
static void test_simd_levels_equal_scalar(void **state)
{
    (void)state;
    const struct { latmc_sim_desc d; double h; } runs[] = {
        { lanes_desc(3, 4, 4, 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS), 0.0 },
        { lanes_desc(2, 6, 8, 0, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH), 0.3 },
        { lanes_desc(2, 4, 6, 0, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS), -0.2 },
        { lanes_desc(3, 4, 4, 2, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH), 0.0 },
        { lanes_desc(3, 2, 4, 4, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_METROPOLIS), 0.0 },
        /* 1536 bond words a group: the vectors' sums carry past their first tallies */
        { lanes_desc(3, 8, 8, 8, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS), 0.1 },
    };
    const int group_counts[] = { 1, 7, 8, 9, 17, 33 };
    const char *levels[] = { "avx2", "avx512" };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++)
        for (size_t gi = 0; gi < sizeof group_counts / sizeof group_counts[0]; gi++) {
            const int G = group_counts[gi], M = 32 * G - 4, threads = 1 + (int)(gi % 2);
            double *acc[2], *en[2];
            unsigned char *sp[2];
            size_t bytes[2];
            for (int i = 0; i < 2; i++) {
                acc[i] = malloc((size_t)M * sizeof *acc[i]);
                en[i] = malloc((size_t)M * sizeof *en[i]);
                assert_true(acc[i] && en[i]);
            }
            level_run(runs[r].d, G, threads, runs[r].h, "c", &sp[0], &bytes[0], acc[0], en[0]);
            for (size_t lv = 0; lv < 2; lv++) {
                level_run(runs[r].d, G, 3 - threads, runs[r].h, levels[lv], &sp[1], &bytes[1],
                          acc[1], en[1]);
                if (bytes[0] != bytes[1] || memcmp(sp[0], sp[1], bytes[0]) != 0 ||
                    memcmp(acc[0], acc[1], (size_t)M * sizeof *acc[0]) != 0 ||
                    memcmp(en[0], en[1], (size_t)M * sizeof *en[0]) != 0)
                    fail_msg("run %zu, %d groups: level %s differs from the scalar form", r, G,
                             levels[lv]);
                free(sp[1]);
            }
            free(sp[0]);
            for (int i = 0; i < 2; i++) {
                free(acc[i]);
                free(en[i]);
            }
        }
}

static uint64_t sums_rng(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Lane l's sums read lane by lane: s_i = -1 where its bit is set, eps_ij likewise, each
 * bond (i, i + e_mu) once with periodic wrap. */
static void lane_sums_by_hand(int nd, const int64_t L[3], const uint32_t *spin,
                              const uint32_t *bond, int l, int64_t *bonds, int64_t *spins)
{
    *bonds = *spins = 0;
    for (int64_t z = 0; z < L[2]; z++)
        for (int64_t y = 0; y < L[1]; y++)
            for (int64_t x = 0; x < L[0]; x++) {
                const int64_t i = x + L[0] * (y + L[1] * z);
                const int si = (spin[i] >> l) & 1u ? -1 : 1;
                *spins += si;
                for (int mu = 0; mu < nd; mu++) {
                    const int64_t xj = mu == 0 ? (x + 1) % L[0] : x;
                    const int64_t yj = mu == 1 ? (y + 1) % L[1] : y;
                    const int64_t zj = mu == 2 ? (z + 1) % L[2] : z;
                    const int sj = (spin[xj + L[0] * (yj + L[1] * zj)] >> l) & 1u ? -1 : 1;
                    const int eps = bond && ((bond[nd * i + mu] >> l) & 1u) ? -1 : 1;
                    *bonds += eps * si * sj;
                }
            }
}

/* latmc_ens_lanes_sums (lib/ens_lanes_sums.h: carry-save planes, flushes, staged rows)
 * against the count lane by lane, on random words: 2D and 3D, uniform and +-J, sizes whose
 * word counts are no multiple of 32, rows longer than a staged piece, more words than one
 * flush holds, a partial last group (lanes 5 .. 31 zero), all lanes -1 and all bonds
 * unsatisfied (the largest counts, through every flush). */
static void test_lane_sums_direct(void **state)
{
    (void)state;
    static const struct { int nd; int64_t L[3]; } shapes[] = {
        { 2, { 6, 4, 1 } },   { 2, { 5, 7, 1 } },   { 2, { 300, 21, 1 } }, { 3, { 4, 4, 4 } },
        { 3, { 5, 3, 7 } },   { 3, { 16, 16, 16 } }, { 3, { 130, 3, 2 } }, { 2, { 1, 9, 1 } },
    };
    uint64_t seed = 20261124;
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        const int nd = shapes[c].nd;
        const int64_t N = shapes[c].L[0] * shapes[c].L[1] * shapes[c].L[2];
        const struct latmc_lattice geom = { nd, shapes[c].L[0], shapes[c].L[1],
                                            shapes[c].L[2], N };
        uint32_t *spin = malloc((size_t)N * sizeof *spin);
        uint32_t *bond = malloc((size_t)N * (size_t)nd * sizeof *bond);
        assert_non_null(spin);
        assert_non_null(bond);
        for (int fill = 0; fill < 4; fill++)
            for (int pm = 0; pm < 2; pm++) {
                /* fill 0: random; 1: partial group; 2: all -1, bonds random; 3: all
                 * bonds unsatisfied where +-J (spins +1, every bond -1) */
                const uint32_t lanes = fill == 1 ? 0x1fu : 0xffffffffu;
                for (int64_t i = 0; i < N; i++)
                    spin[i] = fill == 2 ? 0xffffffffu
                              : fill == 3 ? 0u : (uint32_t)sums_rng(&seed) & lanes;
                for (int64_t i = 0; i < N * nd; i++)
                    bond[i] = fill == 3 ? 0xffffffffu : (uint32_t)sums_rng(&seed) & lanes;
                const struct latmc_ens_lanes_group grp = { spin, pm ? bond : NULL, NULL, lanes };
                int64_t bonds[32], spins[32];
                latmc_ens_lanes_sums(&geom, &grp, bonds, spins);
                for (int l = 0; l < 32; l++) {
                    int64_t b, sp;
                    lane_sums_by_hand(nd, shapes[c].L, spin, pm ? bond : NULL, l, &b, &sp);
                    if (bonds[l] != b || spins[l] != sp)
                        fail_msg("shape %zu fill %d pm %d lane %d: bonds %lld (by hand %lld), "
                                 "spins %lld (%lld)", c, fill, pm, l, (long long)bonds[l],
                                 (long long)b, (long long)spins[l], (long long)sp);
                }
            }
        free(spin);
        free(bond);
    }
}

/* The bit-sliced per-lane sums (lib/ens_lanes_sums.h, what a kernel's exchange round
 * counts) from words the test packs itself: every member's energy and magnetisation as
 * the ensemble measures them (2D uniform, 3D +-J, partial groups). */
static void test_lane_sums(void **state)
{
    (void)state;
    const latmc_sim_desc ds[2] = {
        lanes_desc(2, 6, 4, 0, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_METROPOLIS),
        lanes_desc(3, 4, 6, 2, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH),
    };
    for (int c = 0; c < 2; c++) {
        latmc_ens *e = lanes_ens(ds[c], 5, 4, 2, 88, 1, ladder, 1, 0.0);
        assert_int_equal(latmc_ens_sweep(e, 7), LATMC_OK);
        const struct lat g = lat_of(&ds[c]);
        const int M = n_members(e), G = (M + 31) / 32;
        struct latmc_lattice geom = { g.nd, g.L[0], g.L[1], g.L[2], g.N };
        uint32_t *spin = calloc((size_t)G * g.N, sizeof *spin);
        uint32_t *bond = calloc((size_t)G * g.N * g.nd, sizeof *bond);
        int8_t *cfg = malloc((size_t)g.N);
        for (int m = 0; m < M; m++) {
            assert_int_equal(latmc_ens_get_spins(e, m, cfg, (size_t)g.N), LATMC_OK);
            float *eps = ds[c].couplings == LATMC_COUPLINGS_BIMODAL
                             ? member_couplings(e, m, g.N, g.nd) : NULL;
            for (int i = 0; i < g.N; i++) {
                spin[(size_t)(m / 32) * g.N + i] |= (uint32_t)(cfg[i] < 0) << (m % 32);
                for (int mu = 0; eps && mu < g.nd; mu++)
                    bond[((size_t)(m / 32) * g.N + i) * g.nd + mu] |=
                        (uint32_t)(eps[g.nd * i + mu] < 0) << (m % 32);
            }
            free(eps);
        }
        double en[128], mag[128];
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, en,
                                               (size_t)M), LATMC_OK);
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_MAGNETIZATION, LATMC_ENS_BY_MEMBER,
                                               mag, (size_t)M), LATMC_OK);
        for (int grp = 0; grp < G; grp++) {
            const struct latmc_ens_lanes_group lg = {
                spin + (size_t)grp * g.N,
                ds[c].couplings == LATMC_COUPLINGS_BIMODAL ? bond + (size_t)grp * g.N * g.nd
                                                           : NULL,
                NULL, 0 };
            int64_t bonds[32], spins[32];
            latmc_ens_lanes_sums(&geom, &lg, bonds, spins);
            for (int l = 0; l < 32 && grp * 32 + l < M; l++) {
                assert_true(-(double)bonds[l] / g.N == en[grp * 32 + l]);
                assert_true((double)spins[l] / g.N == mag[grp * 32 + l]);
            }
        }
        free(spin);
        free(bond);
        free(cfg);
        latmc_ens_destroy(&e);
    }
}

/* 40 members and 64 with the same first five samples: members 0 .. 39 equal. */
static void test_padding(void **state)
{
    (void)state;
    latmc_sim_desc d = lanes_desc(3, 4, 4, 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH);
    latmc_ens *a = lanes_ens(d, 5, 8, 1, 5, 1, ladder, 1, 0.0);
    latmc_ens *b = lanes_ens(d, 8, 8, 1, 5, 2, ladder, 1, 0.0);
    assert_int_equal(latmc_ens_sweep(a, 12), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(b, 12), LATMC_OK);
    struct run_state sa, sb;
    capture(a, &sa);
    capture(b, &sb);
    assert_memory_equal(sa.spins, sb.spins, sa.bytes);
    assert_memory_equal(sa.temp, sb.temp, 40 * sizeof sa.temp[0]);
    free(sa.spins);
    free(sb.spins);
    latmc_ens_destroy(&a);
    latmc_ens_destroy(&b);
}

/* Chains switched between sweeps: 0, then 2, then 1; the members' sweep counts advance. */
static void test_switch(void **state)
{
    (void)state;
    latmc_ens *e = tempering(2);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 0), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    uint64_t count = 0;
    assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
    assert_int_equal(count, 9);
    /* a file of chain 1 is version 1 (the members' checkpoints hold their parameter) */
    char dir[] = "/tmp/latmc-lanes-XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.ens", dir);
    assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
    FILE *f = fopen(path, "rb");
    unsigned char head[12];
    assert_int_equal(fread(head, 1, 12, f), 12);
    fclose(f);
    assert_int_equal(head[8], 1);
    remove(path);
    rmdir(dir);
    latmc_ens_destroy(&e);
}

/* Back and forth: 2, then 0 (the words freed), then 2 again (packed anew) in one
 * ensemble, against the same switches where the last part runs on an ensemble loaded from
 * a file written after the 0 part (it never had words): the same members, bit for bit. */
static void test_switch_back(void **state)
{
    (void)state;
    const int M = 72, nT = 12;
    char dir[] = "/tmp/latmc-lanes-XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.ens", dir);
    latmc_ens *a = tempering(2);
    assert_int_equal(latmc_ens_sweep(a, 4), LATMC_OK);
    assert_non_null(a->lanes_words); /* kept between the calls of decisions = 2 */
    assert_int_equal(latmc_ens_set_param(a, LATMC_PARAM_DECISIONS, 0), LATMC_OK);
    assert_null(a->lanes_words); /* freed with the CPU's kept copies */
    assert_int_equal(latmc_ens_sweep(a, 3), LATMC_OK);
    assert_int_equal(latmc_ens_save(a, path), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(a, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(a, 5), LATMC_OK);
    latmc_ens *b = NULL;
    assert_int_equal(latmc_ens_load(ctx, path, &b), LATMC_OK);
    remove(path);
    rmdir(dir);
    assert_int_equal(latmc_ens_set_param(b, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(b, 5), LATMC_OK);
    struct run_state sa, sb;
    capture(a, &sa);
    capture(b, &sb);
    assert_same(&sa, &sb, M, nT);
    /* and the 0 part did run the default chain: the lanes' own 12 sweeps differ */
    latmc_ens *c = tempering(2);
    assert_int_equal(latmc_ens_sweep(c, 12), LATMC_OK);
    struct run_state sc;
    capture(c, &sc);
    assert_true(memcmp(sa.spins, sc.spins, sa.bytes) != 0);
    free(sa.spins);
    free(sb.spins);
    free(sc.spins);
    latmc_ens_destroy(&a);
    latmc_ens_destroy(&b);
    latmc_ens_destroy(&c);
}

/* The member lanes keep the members' tables between calls and copy only those whose
 * parameters changed: by the exchange rounds' swaps (a round after every sweep), a new
 * ladder, set_param. One ensemble runs 3 sweeps a call; the other is saved and loaded
 * before every sweep (its words and tables made anew each time) with the same changes
 * between the calls: the same members, bit for bit. Misses any path that changes a
 * member's tables without telling the lanes (latmc_ens_lanes_params_changed). */
static void test_tables_follow_params(void **state)
{
    (void)state;
    const int M = 72, nT = 12;
    static const double other[12] = { 0.22, 0.27, 0.31, 0.36, 0.41, 0.47,
                                      0.52, 0.56, 0.62, 0.71, 0.83, 0.95 };
    char dir[] = "/tmp/latmc-lanes-XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.ens", dir);
    latmc_ens *a = tempering(2), *b = tempering(1);
    for (int call = 0; call < 4; call++) {
        for (int i = 0; i < 2; i++) {
            latmc_ens *e = i ? b : a;
            if (call == 1)
                assert_int_equal(latmc_ens_set_temperatures(e, other, nT), LATMC_OK);
            if (call == 2)
                assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, 0.05), LATMC_OK);
            if (call == 3)
                assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, 0.0), LATMC_OK);
        }
        assert_int_equal(latmc_ens_sweep(a, 3), LATMC_OK);
        for (int k = 0; k < 3; k++) {
            assert_int_equal(latmc_ens_save(b, path), LATMC_OK);
            latmc_ens_destroy(&b);
            assert_int_equal(latmc_ens_load(ctx, path, &b), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(b, 1), LATMC_OK);
        }
    }
    remove(path);
    rmdir(dir);
    struct run_state sa, sb;
    capture(a, &sa);
    capture(b, &sb);
    assert_true(sa.acc[0] + sa.acc[5] + sa.acc[10] > 0); /* swaps did happen */
    assert_same(&sa, &sb, M, nT);
    free(sa.spins);
    free(sb.spins);
    latmc_ens_destroy(&a);
    latmc_ens_destroy(&b);
}

/* The host's rounds move the words' tables alone (every member's parameters but beta
 * alike): the members' betas lag the map (map_lagging) across calls of sweeps until
 * something reads the map or a member; then each member holds its temperature's beta, and
 * a member's own tables are those its lane ran with. (test_tables_follow_params and the
 * definition's test hold the chain itself to the members' own sweeps and to the test's
 * rules.) */
static void test_members_lag_the_map(void **state)
{
    (void)state;
    latmc_ens *e = tempering(1);
    assert_int_equal(latmc_ens_sweep(e, 4), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 4), LATMC_OK);
    assert_true(e->map_lagging);
    const int M = e->n_members;
    int behind = 0;
    for (int m = 0; m < M; m++)
        behind += e->members[m]->param[LATMC_PARAM_BETA] != e->beta[e->temp_of[m]];
    assert_true(behind > 0); /* swaps happened, and the members did not take them */
    int t = -1;
    assert_int_equal(latmc_ens_temperature_of(e, 5, &t), LATMC_OK);
    assert_false(e->map_lagging);
    assert_int_equal(t, e->temp_of[5]);
    for (int m = 0; m < M; m++) {
        assert_true(e->members[m]->param[LATMC_PARAM_BETA] == e->beta[e->temp_of[m]]);
        assert_int_equal(e->member_at[ens_slot_index(e, ens_sample_of(e, m), e->temp_of[m],
                                                     ens_replica_of(e, m))], m);
    }
    /* a member's own tables against a fresh sim's at its beta: the words ran with these */
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    assert_int_equal(latmc_ens_member_desc(e, 7, &d), LATMC_OK);
    latmc_sim *one = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &one), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(one, LATMC_PARAM_BETA, e->beta[e->temp_of[7]]), LATMC_OK);
    assert_memory_equal(one->model_data, e->members[7]->model_data, one->model->data_size);
    latmc_sim_destroy(&one);
    latmc_ens_destroy(&e);
}

/* The member lanes' counts kept by the ensemble (its pending counts, lib/ens_exec.c) bound as
 * latmc_sim_sweep's: member 5's attempted updates set to 2^62 in the file (its checkpoint's
 * counter; the other members far below). A call of sweeps still runs (the check comes
 * before it), the next is refused (LATMC_ESTATE, nothing changed) although no sim holds
 * the counts yet and member 0's are small; member 5's configuration given back empties its
 * counters and the ensemble sweeps again. */
static void test_counters_bound(void **state)
{
    (void)state;
    const uint64_t bound = UINT64_C(1) << 62;
    char dir[] = "/tmp/latmc-lanes-XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.ens", dir);
    latmc_ens *e = tempering(1);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
    latmc_ens_destroy(&e);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *p = malloc(1 << 20);
    assert_non_null(p);
    const size_t n = fread(p, 1, 1 << 20, f);
    fclose(f);
    assert_true(n > 1000 && n < (1 << 20));
    assert_int_equal(ckpt_get_le(p + ENS_OFF_VERSION, 4), 2);
    struct ens_layout l = ens_layout_of(p, n); /* version 1's: the chain's u32 after rounds */
    assert_true(l.members != 0 && l.n_members == 72);
    l.members += 4;
    const size_t at = ens_member_offset(p, n, &l, 5) + 8; /* member 5's checkpoint */
    assert_true(at > 8);
    const size_t size = (size_t)ckpt_get_le(p + at - 8, 8);
    const size_t attempted = at + ckpt_config_offset(p + at) - 20;
    assert_true(ckpt_get_le(p + attempted, 8) == 3 * 512);
    ckpt_put_le(p + attempted, bound, 8);
    ckpt_reseal(p + at, size);
    ckpt_put_le(p + n - 8, ckpt_fnv1a(p, n - 8), 8);
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fclose(f);
    free(p);

    assert_int_equal(latmc_ens_load(ctx, path, &e), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK); /* at the bound: not past it */
    struct run_state before, after;
    uint64_t count = 0, count_after = 0;
    capture(e, &before);
    assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_ESTATE);
    assert_non_null(strstr(latmc_ens_last_error(e), "member 5's acceptance counters"));
    assert_non_null(strstr(latmc_ens_last_error(e), "2^62"));
    capture(e, &after);
    assert_int_equal(latmc_ens_sweep_count(e, &count_after), LATMC_OK);
    assert_int_equal(count_after, count);
    assert_same(&before, &after, 72, 12);
    free(after.spins);
    /* the same refused without a read between (the pending counts, not the members') */
    latmc_ens_destroy(&e);
    assert_int_equal(latmc_ens_load(ctx, path, &e), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_ESTATE);
    capture(e, &after);
    assert_same(&before, &after, 72, 12);
    size_t bytes = 0;
    assert_int_equal(latmc_ens_spins_size(e, &bytes), LATMC_OK);
    unsigned char *spins = malloc(bytes);
    assert_non_null(spins);
    assert_int_equal(latmc_ens_get_spins(e, 5, spins, bytes), LATMC_OK);
    assert_int_equal(latmc_ens_set_spins(e, 5, spins, bytes), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    free(spins);
    free(before.spins);
    free(after.spins);
    latmc_ens_destroy(&e);
    remove(path);
    rmdir(dir);
}

static void test_refusals(void **state)
{
    (void)state;
    /* a sim: 2 is not one of its chains */
    latmc_sim_desc d = lanes_desc(2, 4, 4, 0, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_METROPOLIS);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 2), LATMC_EINVAL);
    latmc_sim_destroy(&sim);
    latmc_ens_layout l = ens_test_layout(1, 2, 1, 3, 1);
    struct { int model, algo; } no[] = {
        { LATMC_MODEL_POTTS, LATMC_ALGO_METROPOLIS },
        { LATMC_MODEL_ISING, LATMC_ALGO_WOLFF },
        { LATMC_MODEL_ISING, LATMC_ALGO_SWENDSEN_WANG },
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        latmc_sim_desc dd = ens_test_desc(no[i].model, 2, 4);
        dd.algorithm = no[i].algo;
        if (no[i].model == LATMC_MODEL_POTTS)
            dd.q = 3, dd.extent[0] = dd.extent[1] = 6;
        latmc_ens *e = NULL;
        assert_int_equal(latmc_ens_create(ctx, &dd, &l, &e), LATMC_OK);
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2), LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_ens_last_error(e), "member lanes"));
        latmc_ens_destroy(&e);
    }
}

/* One run of the chain on `device`: two calls of 9 and 11 sweeps with member 3 read,
 * changed and written back between them (the device's words fetched, dropped and loaded
 * again), then everything it leaves and each member's acceptance (its counters: accepted
 * = spins changed, attempted). NULL where an ensemble cannot be made on the device. */
static latmc_ens *device_run(latmc_sim_desc d, int device, int ns, int nt, int nr, double h,
                             uint64_t every, const double *betas, struct run_state *out,
                             double *acc)
{
    d.device = device;
    latmc_ens_layout l = ens_test_layout(ns, nt, nr, 4242, 1);
    latmc_ens *e = NULL;
    if (latmc_ens_create(ctx, &d, &l, &e) != LATMC_OK)
        return NULL;
    assert_int_equal(latmc_ens_set_temperatures(e, betas, nt), LATMC_OK);
    if (h != 0.0)
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, h), LATMC_OK);
    const int st = latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2);
    if (st != LATMC_OK)
        fail_msg("decisions = 2 on device %d: %s", device, latmc_ens_last_error(e));
    assert_int_equal(latmc_ens_set_exchange(e, every), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    const int64_t N = d.extent[0] * d.extent[1] * (d.ndim == 3 ? d.extent[2] : 1);
    int8_t *one = malloc((size_t)N);
    assert_non_null(one);
    assert_int_equal(latmc_ens_sweep(e, 9), LATMC_OK);
    assert_int_equal(latmc_ens_get_spins(e, 3, one, (size_t)N), LATMC_OK);
    one[N / 2] = (int8_t)-one[N / 2];
    assert_int_equal(latmc_ens_set_spins(e, 3, one, (size_t)N), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 11), LATMC_OK);
    free(one);
    capture(e, out);
    const int M = ns * nt * nr;
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER, acc,
                                           (size_t)M), LATMC_OK);
    return e;
}

/* CUDA = CPU bit for bit (run where a CUDA ensemble can be made; skipped otherwise): the
 * members' spins, temperatures, pair statistics, energies and counters after sweeps and
 * exchange rounds; partial last groups, +-J and uniform, a field, 2D and 3D, Metropolis
 * and heat bath, words in shared memory (up to 16^3 +-J, 24^3 uniform) and in global memory
 * (32^3 +-J); the register form's instances by the zero planes of the thresholds
 * (backends/cuda/ising/ising_lanes.h, CUDA_ENS_LANES_ZEROS): the ladder from 0.2 gives
 * none, 0.45 .. 0.6 the planes 0 .. 1 of every open key zero and 0 .. 3 of all but the
 * largest (e^{-4 beta} < 2^-2, e^{-8 beta} < 2^-4: instance 1), 0.62 .. 1.2 the planes
 * 0 .. 2 and 0 .. 5 (2), 0.72 .. 1.5 the planes 0 .. 3 and 0 .. 7 (3). */
static void test_cuda_equals_cpu(void **state)
{
    (void)state;
    static const double warm[4] = { 0.45, 0.5, 0.55, 0.6 };
    static const double cold[8] = { 0.62, 0.66, 0.7, 0.75, 0.8, 0.9, 1.0, 1.2 };
    static const double colder[4] = { 0.72, 0.9, 1.1, 1.5 };
    const int PMJ = LATMC_COUPLINGS_BIMODAL, UNI = LATMC_COUPLINGS_UNIFORM;
    const int MET = LATMC_ALGO_METROPOLIS, HB = LATMC_ALGO_HEATBATH;
    const struct {
        latmc_sim_desc d;
        int ns, nt, nr;
        double h;
        uint64_t every;
        const double *betas;
    } runs[] = {
        { lanes_desc(3, 4, 4, 4, PMJ, MET), 5, 8, 1, 0.0, 1, NULL },
        { lanes_desc(3, 4, 2, 6, PMJ, HB), 3, 4, 2, 0.0, 2, NULL },
        { lanes_desc(2, 8, 6, 0, UNI, MET), 2, 6, 3, 0.3, 0, NULL },
        { lanes_desc(2, 8, 6, 0, UNI, HB), 1, 8, 4, -0.2, 3, NULL },
        { lanes_desc(2, 4, 4, 0, PMJ, MET), 7, 5, 2, 0.0, 1, NULL },
        { lanes_desc(3, 16, 16, 16, PMJ, MET), 3, 12, 2, 0.0, 1, NULL },
        { lanes_desc(3, 16, 16, 16, PMJ, HB), 2, 12, 2, 0.0, 0, NULL },
        { lanes_desc(3, 32, 32, 32, PMJ, MET), 1, 10, 4, 0.0, 2, NULL },
        /* uniform 24^3: the words in shared memory, seven rounds of sites a colour, so the
         * register form's tail queue is drained inside the colour as well as at its end */
        { lanes_desc(3, 24, 24, 24, UNI, MET), 1, 8, 4, 0.0, 2, NULL },
        { lanes_desc(3, 16, 16, 16, PMJ, MET), 3, 8, 2, 0.0, 1, cold },
        { lanes_desc(3, 8, 8, 8, PMJ, MET), 5, 4, 2, 0.0, 2, warm },
        { lanes_desc(2, 8, 6, 0, UNI, MET), 2, 8, 3, 0.0, 1, cold },
        { lanes_desc(2, 16, 8, 0, PMJ, MET), 3, 4, 3, 0.0, 3, warm },
        { lanes_desc(3, 8, 8, 8, PMJ, MET), 4, 4, 2, 0.0, 1, colder },
        { lanes_desc(2, 8, 6, 0, UNI, MET), 3, 4, 3, 0.0, 2, colder },
    };
    /* each run with the rounds on the device, and where it has rounds with the host's */
    for (size_t k = 0; k < 2 * (sizeof runs / sizeof runs[0]); k++) {
        const size_t i = k / 2;
        const bool host_rounds = k % 2;
        if (host_rounds && runs[i].every == 0)
            continue;
        struct run_state sc, sg;
        const int M = runs[i].ns * runs[i].nt * runs[i].nr;
        double *acc_c = malloc((size_t)M * sizeof *acc_c), *acc_g = malloc((size_t)M * sizeof *acc_g);
        assert_true(acc_c && acc_g);
        const double *betas = runs[i].betas ? runs[i].betas : ladder;
        if (host_rounds)
            assert_int_equal(setenv("LATMC_ENS_HOST_ROUNDS", "1", 1), 0);
        device_rounds_logged = 0;
        latmc_ens *g = device_run(runs[i].d, LATMC_DEVICE_CUDA, runs[i].ns, runs[i].nt,
                                  runs[i].nr, runs[i].h, runs[i].every, betas, &sg, acc_g);
        unsetenv("LATMC_ENS_HOST_ROUNDS");
        /* device_run's two calls each load the state (a member's spins set between) */
        if (g && runs[i].every)
            assert_int_equal(device_rounds_logged, host_rounds ? 0 : 2);
        if (!g) {
            free(acc_c);
            free(acc_g);
            skip();
            return;
        }
        latmc_ens *c = device_run(runs[i].d, LATMC_DEVICE_CPU, runs[i].ns, runs[i].nt,
                                  runs[i].nr, runs[i].h, runs[i].every, betas, &sc, acc_c);
        assert_non_null(c);
        assert_same(&sc, &sg, M, runs[i].nt);
        assert_memory_equal(acc_c, acc_g, (size_t)M * sizeof *acc_c);
        for (int m = 0; m < M; m++)
            assert_true(acc_g[m] > 0.0 && acc_g[m] < 1.0);
        free(sc.spins);
        free(sg.spins);
        free(acc_c);
        free(acc_g);
        latmc_ens_destroy(&c);
        latmc_ens_destroy(&g);
    }
}

/* CUDA's rounds on the device across calls (the map left there between them, a round
 * period split by the calls), the host's rounds for two calls in the middle
 * (LATMC_ENS_HOST_ROUNDS=1: the map fetched, then loaded again) and a reader of the
 * energies between two calls (the map fetched, the words kept): the CPU's chain in one
 * call, bit for bit. */
static void test_cuda_rounds_across_calls(void **state)
{
    (void)state;
    const int M = 72, nT = 12, total = 40;
    latmc_sim_desc d = lanes_desc(3, 8, 8, 8, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS);
    latmc_ens *a = lanes_ens(d, 3, nT, 2, 77, 1, ladder, 3, 0.0);
    assert_int_equal(latmc_ens_sweep(a, (uint64_t)total), LATMC_OK);
    struct run_state sa, sb;
    capture(a, &sa);
    d.device = LATMC_DEVICE_CUDA;
    latmc_ens *b = lanes_ens(d, 3, nT, 2, 77, 1, ladder, 3, 0.0);
    const int calls[] = { 1, 2, 5, 7, 4, 6, 15 };
    double energy[72];
    device_rounds_logged = 0;
    for (int i = 0; i < 7; i++) {
        if (i == 2)
            assert_int_equal(setenv("LATMC_ENS_HOST_ROUNDS", "1", 1), 0);
        if (i == 4)
            unsetenv("LATMC_ENS_HOST_ROUNDS");
        assert_int_equal(latmc_ens_sweep(b, (uint64_t)calls[i]), LATMC_OK);
        if (i == 5)
            assert_int_equal(latmc_ens_observables(b, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER,
                                                   energy, (size_t)M), LATMC_OK);
    }
    /* loaded at calls 0, 4 and 6 */
    assert_int_equal(device_rounds_logged, 3);
    capture(b, &sb);
    assert_same(&sa, &sb, M, nT);
    free(sa.spins);
    free(sb.spins);
    latmc_ens_destroy(&a);
    latmc_ens_destroy(&b);
}

/* One run of `total` sweeps in calls of `per` (the last one shorter) on `device` with the
 * member lanes' form `form` (LATMC_ENS_LANES; NULL: the default), exchange off: a call is
 * one call of the lanes' sweeps; then everything it leaves and each member's acceptance.
 * NULL where an ensemble cannot be made on the device. */
static latmc_ens *long_run(latmc_sim_desc d, int device, const char *form, int ns, int nt,
                           double h, uint64_t total, uint64_t per, struct run_state *out,
                           double *acc)
{
    d.device = device;
    latmc_ens_layout l = ens_test_layout(ns, nt, 1, 5150, 2);
    latmc_ens *e = NULL;
    if (latmc_ens_create(ctx, &d, &l, &e) != LATMC_OK)
        return NULL;
    assert_int_equal(latmc_ens_set_temperatures(e, ladder, nt), LATMC_OK);
    if (h != 0.0)
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    if (form)
        assert_int_equal(setenv("LATMC_ENS_LANES", form, 1), 0);
    for (uint64_t done = 0; done < total; done += per)
        assert_int_equal(latmc_ens_sweep(e, total - done < per ? total - done : per), LATMC_OK);
    unsetenv("LATMC_ENS_LANES");
    capture(e, out);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER, acc,
                                           (size_t)(ns * nt)), LATMC_OK);
    return e;
}

/* Calls of more sweeps than a launch takes (the CUDA module's 1024,
 * backends/cuda/ensembles/ens_lanes.c: 2100 = 1024 + 1024 + 52): one call on the CPU by
 * the per-lane reference, by the SIMD vectors, the same sweeps in calls of 97, and on
 * CUDA in one call (where a CUDA ensemble can be made; said otherwise), all bit for bit:
 * spins, energies, counters. 3D +-J Metropolis (two groups, the last partial) and 2D
 * heat bath with a field (three). */
static void test_long_calls(void **state)
{
    (void)state;
    const struct { latmc_sim_desc d; int ns, nt; double h; } runs[] = {
        { lanes_desc(3, 4, 4, 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS), 5, 8, 0.0 },
        { lanes_desc(2, 6, 8, 0, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH), 7, 10, 0.2 },
    };
    const uint64_t total = 2100;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const int M = runs[i].ns * runs[i].nt;
        struct run_state ref, other;
        double *acc_ref = malloc((size_t)M * sizeof *acc_ref), *acc = malloc((size_t)M * sizeof *acc);
        assert_true(acc_ref && acc);
        latmc_ens *e = long_run(runs[i].d, LATMC_DEVICE_CPU, "reference", runs[i].ns,
                                runs[i].nt, runs[i].h, total, total, &ref, acc_ref);
        assert_non_null(e);
        latmc_ens_destroy(&e);
        for (int m = 0; m < M; m++)
            assert_true(acc_ref[m] > 0.0 && acc_ref[m] < 1.0);
        const struct { int device; uint64_t per; const char *what; } ways[] = {
            { LATMC_DEVICE_CPU, total, "CPU, one call" },
            { LATMC_DEVICE_CPU, 97, "CPU, calls of 97" },
            { LATMC_DEVICE_CUDA, total, "CUDA, one call" },
        };
        for (size_t w = 0; w < sizeof ways / sizeof ways[0]; w++) {
            e = long_run(runs[i].d, ways[w].device, NULL, runs[i].ns, runs[i].nt, runs[i].h,
                         total, ways[w].per, &other, acc);
            if (!e) { /* only a CUDA ensemble may be missing here; the CPU's must run */
                if (ways[w].device != LATMC_DEVICE_CUDA)
                    fail_msg("run %zu, %s: no ensemble: %s", i, ways[w].what,
                             latmc_last_error());
                print_message("# run %zu, %s: not run (no CUDA ensemble here)\n", i,
                              ways[w].what);
                continue;
            }
            assert_same(&ref, &other, M, runs[i].nt);
            assert_memory_equal(acc_ref, acc, (size_t)M * sizeof *acc);
            print_message("# run %zu, %s: the reference's words bit for bit\n", i,
                          ways[w].what);
            free(other.spins);
            latmc_ens_destroy(&e);
        }
        free(ref.spins);
        free(acc_ref);
        free(acc);
    }
}

/* ---- statistics ---- */

/* Exact <e> (per site) and <|m|> of a 4x4 lattice with couplings eps (NULL: uniform). */
static void exact_4x4(const float *eps, double beta, double h, double *e_out, double *m_out)
{
    const struct lat g = { 2, { 4, 4, 1 }, 16 };
    double z = 0, se = 0, sm = 0;
    double wmax = -1e300;
    /* the largest exponent first, for a stable sum */
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t c = 0; c < (1u << 16); c++) {
            int bonds = 0, mag = 0;
            for (int i = 0; i < 16; i++) {
                const int s = (c >> i) & 1 ? -1 : 1;
                mag += s;
                for (int mu = 0; mu < 2; mu++) {
                    const int j = nbr(&g, i, mu, 1);
                    const int sj = (c >> j) & 1 ? -1 : 1;
                    bonds += (eps ? (int)eps[2 * i + mu] : 1) * s * sj;
                }
            }
            const double E = -(double)bonds - h * mag;
            const double x = -beta * E;
            if (pass == 0) {
                if (x > wmax)
                    wmax = x;
                continue;
            }
            const double w = exp(x - wmax);
            z += w;
            se += w * E / 16.0;
            sm += w * fabs(mag / 16.0);
        }
    *e_out = se / z;
    *m_out = sm / z;
}

/* Per temperature: the mean and error of `key` over nr replicas' bin means. */
static void run_means(latmc_ens *e, int nt, int nr, int key, int bins, int per_bin,
                      double *mean, double *err, double *mean2, double *err2, int key2)
{
    const int M = nt * nr;
    double *v = malloc((size_t)M * sizeof *v), *v2 = malloc((size_t)M * sizeof *v2);
    double *bin = calloc((size_t)M, sizeof *bin), *bin2 = calloc((size_t)M, sizeof *bin2);
    double *s1 = calloc((size_t)nt, sizeof *s1), *sq = calloc((size_t)nt, sizeof *sq);
    double *t1 = calloc((size_t)nt, sizeof *t1), *tq = calloc((size_t)nt, sizeof *tq);
    assert_int_equal(latmc_ens_sweep(e, 500), LATMC_OK); /* thermalise */
    for (int b = 0; b < bins; b++) {
        memset(bin, 0, (size_t)M * sizeof *bin);
        memset(bin2, 0, (size_t)M * sizeof *bin2);
        for (int k = 0; k < per_bin; k++) {
            assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
            assert_int_equal(latmc_ens_observables(e, key, LATMC_ENS_BY_TEMPERATURE, v,
                                                   (size_t)M), LATMC_OK);
            assert_int_equal(latmc_ens_observables(e, key2, LATMC_ENS_BY_TEMPERATURE, v2,
                                                   (size_t)M), LATMC_OK);
            for (int i = 0; i < M; i++) {
                bin[i] += v[i] / per_bin;
                bin2[i] += v2[i] / per_bin;
            }
        }
        for (int i = 0; i < M; i++) {
            const int t = (i / nr) % nt;
            s1[t] += bin[i];
            sq[t] += bin[i] * bin[i];
            t1[t] += bin2[i];
            tq[t] += bin2[i] * bin2[i];
        }
    }
    const double n = (double)bins * nr;
    for (int t = 0; t < nt; t++) {
        mean[t] = s1[t] / n;
        err[t] = sqrt((sq[t] / n - mean[t] * mean[t]) / (n - 1));
        mean2[t] = t1[t] / n;
        err2[t] = sqrt((tq[t] / n - mean2[t] * mean2[t]) / (n - 1));
    }
    free(v);
    free(v2);
    free(bin);
    free(bin2);
    free(s1);
    free(sq);
    free(t1);
    free(tq);
}

/* 4x4: one sample x 4 T x 16 replicas (two groups), every temperature against exact. */
static void check_exact(int couplings, int algo, double h, uint64_t every)
{
    const double betas[4] = { 0.2, 0.35, 0.44, 0.6 };
    latmc_sim_desc d = lanes_desc(2, 4, 4, 0, couplings, algo);
    latmc_ens *e = lanes_ens(d, 1, 4, 16, 31 + (uint64_t)algo, 2, betas, every, h);
    float *eps = couplings == LATMC_COUPLINGS_BIMODAL ? member_couplings(e, 0, 16, 2) : NULL;
    double me[4], ee[4], mm[4], em[4];
    run_means(e, 4, 16, LATMC_OBS_ENERGY, 40, 50, me, ee, mm, em, LATMC_OBS_ABS_MAGNETIZATION);
    for (int t = 0; t < 4; t++) {
        double xe, xm;
        exact_4x4(eps, betas[t], h, &xe, &xm);
        const double ze = (me[t] - xe) / ee[t], zm = (mm[t] - xm) / em[t];
        printf("# 4x4 %s %s h=%g beta %.2f: <e> %.5f +- %.5f exact %.5f (%+.2f sigma), "
               "<|m|> %.5f +- %.5f exact %.5f (%+.2f sigma)\n",
               couplings == LATMC_COUPLINGS_BIMODAL ? "+-J" : "uniform",
               algo == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis", h, betas[t], me[t],
               ee[t], xe, ze, mm[t], em[t], xm, zm);
        assert_true(fabs(ze) < 4.5);
        assert_true(fabs(zm) < 4.5);
    }
    free(eps);
    latmc_ens_destroy(&e);
}

/* Exact P(E) of a 4x4 lattice (E = -sum eps s s, h = 0): levels bonds = -32 .. 32. */
static void exact_levels_4x4(const float *eps, double beta, double p[65])
{
    const struct lat g = { 2, { 4, 4, 1 }, 16 };
    double w[65] = { 0 }, z = 0;
    for (uint32_t c = 0; c < (1u << 16); c++) {
        int bonds = 0;
        for (int i = 0; i < 16; i++)
            for (int mu = 0; mu < 2; mu++) {
                const int j = nbr(&g, i, mu, 1);
                bonds += (eps ? (int)eps[2 * i + mu] : 1) * (((c >> i) ^ (c >> j)) & 1 ? -1 : 1);
            }
        w[bonds + 32] += 1;
    }
    for (int b = 0; b < 65; b++)
        z += w[b] * exp(beta * (b - 32) - beta * 32);
    for (int b = 0; b < 65; b++)
        p[b] = w[b] * exp(beta * (b - 32) - beta * 32) / z;
}

/*
 * One member's whole stationary distribution of the energy against exact enumeration:
 * 4x4, one sample x 2 T x 16 replicas (one group), the energy of every member read every
 * 10 sweeps (nearly independent at these temperatures), a chi^2 over the levels with an
 * expected count of 10 or more (the rest pooled).
 */
static void check_levels(int couplings, int algo)
{
    const double betas[2] = { 0.3, 0.44 };
    latmc_sim_desc d = lanes_desc(2, 4, 4, 0, couplings, algo);
    latmc_ens *e = lanes_ens(d, 1, 2, 16, 515 + (uint64_t)algo, 1, betas, 0, 0.0);
    float *eps = couplings == LATMC_COUPLINGS_BIMODAL ? member_couplings(e, 0, 16, 2) : NULL;
    double count[2][65] = { { 0 } }, v[32];
    const int samples = 2500;
    assert_int_equal(latmc_ens_sweep(e, 200), LATMC_OK);
    for (int k = 0; k < samples; k++) {
        assert_int_equal(latmc_ens_sweep(e, 10), LATMC_OK);
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_TEMPERATURE, v,
                                               32), LATMC_OK);
        for (int i = 0; i < 32; i++) {
            const int bonds = (int)lround(-v[i] * 16.0);
            assert_true(bonds >= -32 && bonds <= 32);
            count[i / 16][bonds + 32] += 1;
        }
    }
    for (int t = 0; t < 2; t++) {
        double p[65], chi2 = 0, rest_n = 0, rest_p = 0;
        exact_levels_4x4(eps, betas[t], p);
        const double n = 16.0 * samples;
        int dof = -1;
        for (int b = 0; b < 65; b++) {
            if (n * p[b] >= 10) {
                chi2 += (count[t][b] - n * p[b]) * (count[t][b] - n * p[b]) / (n * p[b]);
                dof++;
            }
            else {
                rest_n += count[t][b];
                rest_p += p[b];
            }
        }
        if (n * rest_p >= 10) {
            chi2 += (rest_n - n * rest_p) * (rest_n - n * rest_p) / (n * rest_p);
            dof++;
        }
        printf("# 4x4 %s %s beta %.2f: P(E) chi^2 = %.1f for %d degrees of freedom\n",
               couplings == LATMC_COUPLINGS_BIMODAL ? "+-J" : "uniform",
               algo == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis", betas[t], chi2, dof);
        assert_true(dof >= 4);
        assert_true(chi2 < dof + 5.0 * sqrt(2.0 * dof));
    }
    free(eps);
    latmc_ens_destroy(&e);
}

static void test_energy_distribution(void **state)
{
    (void)state;
    check_levels(LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_METROPOLIS);
    check_levels(LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH);
}

static void test_exact_enumeration(void **state)
{
    (void)state;
    check_exact(LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_METROPOLIS, 0.0, 0);
    check_exact(LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH, 0.25, 0);
    check_exact(LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS, 0.0, 5);
    check_exact(LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH, 0.0, 5);
}

/*
 * Every decision of 2D 8x8 +-J runs (one sample x 8 T x 4 R: one group), read off the
 * configurations before and after each sweep: colour 0's classes from the configuration
 * before, colour 1's from colour 0 after. Accept counts per (temperature, spin, k) against
 * n p (chi^2 over the classes with 0 < p < 1), and lanes l, l + 1 of one site: the sum of
 * (a_l - p_l)(a_l+1 - p_l+1) against its standard deviation under independence.
 */
static void check_decisions(int algo)
{
    const double betas[8] = { 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.85, 1.0 };
    latmc_sim_desc d = lanes_desc(2, 8, 8, 0, LATMC_COUPLINGS_BIMODAL, algo);
    latmc_ens *e = lanes_ens(d, 1, 8, 4, 4242 + (uint64_t)algo, 1, betas, 0, 0.0);
    const struct lat g = lat_of(&d);
    const int M = 32, N = g.N, sweeps = 3000;
    float *eps = member_couplings(e, 0, N, 2);
    int8_t *before = malloc((size_t)M * N), *after = malloc((size_t)M * N);
    double n_cls[8][2][5] = { { { 0 } } }, a_cls[8][2][5] = { { { 0 } } };
    double cov = 0, var = 0;
    for (int m = 0; m < M; m++)
        latmc_ens_get_spins(e, m, after + (size_t)m * N, (size_t)N);
    for (int sw = 0; sw < sweeps; sw++) {
        memcpy(before, after, (size_t)M * N);
        assert_int_equal(latmc_ens_sweep(e, 1), LATMC_OK);
        for (int m = 0; m < M; m++)
            latmc_ens_get_spins(e, m, after + (size_t)m * N, (size_t)N);
        for (int i = 0; i < N; i++) {
            const int c = (i % 8 + i / 8) % 2;
            double prev_a = 0, prev_p = -1;
            for (int m = 0; m < M; m++) {
                const int8_t *cfg = c == 0 ? before + (size_t)m * N : after + (size_t)m * N;
                int nsum = 0;
                for (int mu = 0; mu < 2; mu++) {
                    const int up = nbr(&g, i, mu, 1), dn = nbr(&g, i, mu, -1);
                    nsum += (int)eps[2 * i + mu] * cfg[up] + (int)eps[2 * dn + mu] * cfg[dn];
                }
                const int s = before[(size_t)m * N + i], now = after[(size_t)m * N + i];
                const int t = m / 4; /* no exchanges: member m at its home temperature */
                const double u = (double)site_threshold(algo, betas[t], 1.0, 0.0, s, nsum) /
                                 4294967296.0;
                const int a = algo == LATMC_ALGO_HEATBATH ? now == 1 : now != s;
                const int k = (nsum + 4) / 2;
                n_cls[t][s > 0][k] += 1;
                a_cls[t][s > 0][k] += a;
                /* lanes m - 1 and m of one word, both undecided before the planes */
                if (prev_p > 0 && prev_p < 1 && u > 0 && u < 1 && m % 2 == 1) {
                    cov += (prev_a - prev_p) * (a - u);
                    var += prev_p * (1 - prev_p) * u * (1 - u);
                }
                prev_a = a;
                prev_p = u;
            }
        }
    }
    double chi2 = 0;
    int dof = 0;
    for (int t = 0; t < 8; t++)
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 5; k++) {
                const double n = n_cls[t][s][k];
                const double p = (double)site_threshold(algo, betas[t], 1.0, 0.0, s ? 1 : -1,
                                                        2 * k - 4) / 4294967296.0;
                if (n * p * (1 - p) < 20)
                    continue;
                chi2 += (a_cls[t][s][k] - n * p) * (a_cls[t][s][k] - n * p) / (n * p * (1 - p));
                dof++;
            }
    const double z = cov / sqrt(var);
    printf("# decisions %s: chi^2 = %.1f for %d classes, lanes pair z = %+.2f\n",
           algo == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis", chi2, dof, z);
    assert_true(dof >= 10);
    assert_true(chi2 < dof + 5.0 * sqrt(2.0 * dof));
    assert_true(fabs(z) < 4.5);
    free(eps);
    free(before);
    free(after);
    latmc_ens_destroy(&e);
}

static void test_decision_statistics(void **state)
{
    (void)state;
    check_decisions(LATMC_ALGO_METROPOLIS);
    check_decisions(LATMC_ALGO_HEATBATH);
}

/* 3D 4^3 +-J: <e> and <|m|> per temperature of the lanes against the default chain's,
 * two samples x 3 T x 16 R each (the same couplings). */
static void test_against_default_chain(void **state)
{
    (void)state;
    const double betas[3] = { 0.3, 0.6, 0.9 };
    latmc_sim_desc d = lanes_desc(3, 4, 4, 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS);
    for (int s = 0; s < 2; s++) {
        double me[2][3], ee[2][3], mm[2][3], em[2][3];
        for (int chain = 0; chain < 2; chain++) {
            /* one sample a run, the same coupling seed: the same disorder */
            latmc_ens *e = lanes_ens(d, 1, 3, 16, 900 + (uint64_t)s, 2, betas, 0, 0.0);
            if (chain == 0)
                assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 0), LATMC_OK);
            run_means(e, 3, 16, LATMC_OBS_ENERGY, 40, 40, me[chain], ee[chain], mm[chain],
                      em[chain], LATMC_OBS_ABS_MAGNETIZATION);
            latmc_ens_destroy(&e);
        }
        for (int t = 0; t < 3; t++) {
            const double ze = (me[1][t] - me[0][t]) / hypot(ee[0][t], ee[1][t]);
            const double zm = (mm[1][t] - mm[0][t]) / hypot(em[0][t], em[1][t]);
            printf("# 4^3 +-J run %d beta %.1f: <e> lanes %.5f +- %.5f, chain 0 %.5f +- %.5f "
                   "(%+.2f sigma); <|m|> %+.2f sigma\n", s, betas[t], me[1][t], ee[1][t],
                   me[0][t], ee[0][t], ze, zm);
            assert_true(fabs(ze) < 4.5);
            assert_true(fabs(zm) < 4.5);
        }
    }
}

int main(void)
{
    /* LATMC_TEST_DEVICE=cuda: CUDA = CPU alone, skipped (77) without a usable GPU */
    const char *dev = getenv("LATMC_TEST_DEVICE");
    if (dev && strcmp(dev, "cuda") == 0) {
        latmc_ctx *c = NULL;
        latmc_sim *sim = NULL;
        latmc_sim_desc d = lanes_desc(3, 16, 16, 16, LATMC_COUPLINGS_BIMODAL,
                                      LATMC_ALGO_METROPOLIS);
        d.device = LATMC_DEVICE_CUDA;
        const bool gpu = latmc_ctx_create(&c) == LATMC_OK &&
                         latmc_sim_create(c, &d, &sim) == LATMC_OK;
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&c);
        if (!gpu)
            return 77;
        const struct CMUnitTest cuda[] = { cmocka_unit_test(test_cuda_equals_cpu),
                                           cmocka_unit_test(test_cuda_rounds_across_calls),
                                           cmocka_unit_test(test_long_calls) };
        return cmocka_run_group_tests(cuda, setup, teardown);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_definition),
        cmocka_unit_test(test_threads_batching_files),
        cmocka_unit_test(test_reference_equals_sliced),
        cmocka_unit_test(test_simd_levels_equal_scalar),
        cmocka_unit_test(test_lane_sums),
        cmocka_unit_test(test_lane_sums_direct),
        cmocka_unit_test(test_padding),
        cmocka_unit_test(test_switch),
        cmocka_unit_test(test_switch_back),
        cmocka_unit_test(test_tables_follow_params),
        cmocka_unit_test(test_members_lag_the_map),
        cmocka_unit_test(test_counters_bound),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_cuda_equals_cpu),
        cmocka_unit_test(test_long_calls),
        cmocka_unit_test(test_exact_enumeration),
        cmocka_unit_test(test_energy_distribution),
        cmocka_unit_test(test_decision_statistics),
        cmocka_unit_test(test_against_default_chain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
