/*
 * The Ising chain with bit-sliced decisions (decisions = 1) is defined by
 * doc/models/ising-decisions.md, not by the code: this test re-implements that definition
 * from scratch (its own site loops, groups of 32, thresholds, Philox counters and the
 * integer comparison u < T on u rebuilt from the plane words) and requires the library's
 * configuration and acceptance counts to match it bit for bit after several sweeps, on
 * every CPU level (the C level's int8 layout, the SIMD levels' split rows), 1 and 2
 * threads, 1, 2 and 3 boxes (groups cut by threads and boxes), 2D and 3D, Metropolis and
 * heat bath, uniform and +-J couplings, and across a switch between the two chains.
 * Then the parameter's errors: range, model; its checkpoints' size.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "philox.h"
#include "sim_helpers.h"

struct spec {
    int ndim;
    int64_t L[3];
    int algorithm;
    double beta, J, h;
    uint64_t seed;
};

static double spec_probability(const struct spec *sp, int s, int n)
{
    const double field = sp->J * n + sp->h;
    if (sp->algorithm == LATMC_ALGO_HEATBATH)
        return sp->beta == 0.0 ? 0.5 : 1.0 / (1.0 + exp(-2.0 * sp->beta * field));
    const double de = 2.0 * s * field;
    return sp->beta == 0.0 || de <= 0.0 ? 1.0 : exp(-sp->beta * de);
}

static uint64_t spec_threshold(double p)
{
    if (p <= 0)
        return 0;
    if (p >= 1)
        return UINT64_C(1) << 32;
    return (uint64_t)ldexp(p, 32);
}

static int64_t wrapped(int64_t a, int64_t L)
{
    return (a % L + L) % L;
}

static int64_t site_of(const struct spec *sp, int64_t x, int64_t y, int64_t z)
{
    return wrapped(x, sp->L[0]) + sp->L[0] * (wrapped(y, sp->L[1]) + sp->L[1] * wrapped(z, sp->L[2]));
}

/* sum_j eps_ij s_j over the 2 ndim neighbours; eps as latmc_sim_get_couplings (NULL: 1). */
static int spec_sum(const struct spec *sp, const int8_t *s, const float *eps, int64_t x,
                    int64_t y, int64_t z)
{
    const int64_t i = site_of(sp, x, y, z);
    int sum = 0;
    for (int mu = 0; mu < sp->ndim; mu++) {
        const int64_t dx = mu == 0, dy = mu == 1, dz = mu == 2;
        const int64_t up = site_of(sp, x + dx, y + dy, z + dz);
        const int64_t down = site_of(sp, x - dx, y - dy, z - dz);
        const int e_up = eps ? (int)eps[sp->ndim * i + mu] : 1;
        const int e_down = eps ? (int)eps[sp->ndim * down + mu] : 1;
        sum += e_up * s[up] + e_down * s[down];
    }
    return sum;
}

/* Plane b of group g: output b mod 4 of block (g, sweep, stream 0, phase colour, sub b/4). */
static uint32_t spec_plane(const struct spec *sp, uint64_t sweep, int colour, uint64_t g, int b)
{
    const latmc_philox_key key = { { (uint32_t)sp->seed, (uint32_t)(sp->seed >> 32) } };
    const latmc_philox_ctr c = { { (uint32_t)g,
                                   (uint32_t)((g >> 32) & 0xffff) |
                                       (uint32_t)((sweep >> 32) << 16),
                                   (uint32_t)sweep, ((uint32_t)colour << 16) | (uint32_t)(b / 4) } };
    return latmc_philox4x32_10(c, key).v[b % 4];
}

/* One sweep of the definition; returns the spins that changed. */
static uint64_t spec_sweep(const struct spec *sp, int8_t *s, const float *eps, uint64_t sweep)
{
    const int64_t n = sp->L[0] * sp->L[1] * sp->L[2];
    const int64_t half = n / 2;
    uint64_t *thr = malloc((size_t)half * sizeof *thr);
    int64_t *where = malloc((size_t)half * sizeof *where);
    assert_non_null(thr);
    assert_non_null(where);
    uint64_t changed = 0;
    for (int colour = 0; colour < 2; colour++) {
        for (int64_t z = 0; z < sp->L[2]; z++)
            for (int64_t y = 0; y < sp->L[1]; y++)
                for (int64_t x = 0; x < sp->L[0]; x++) {
                    if ((x + y + z) % 2 != colour)
                        continue;
                    const int64_t i = site_of(sp, x, y, z), j = i / 2;
                    where[j] = i;
                    thr[j] = spec_threshold(spec_probability(sp, s[i], spec_sum(sp, s, eps, x, y, z)));
                }
        uint32_t plane[32]; /* the planes of group j / 32 */
        for (int64_t j = 0; j < half; j++) {
            if (j % 32 == 0)
                for (int b = 0; b < 32; b++)
                    plane[b] = spec_plane(sp, sweep, colour, (uint64_t)(j / 32), b);
            uint32_t u = 0; /* bit 31 - b of u: bit j mod 32 of plane b of group j / 32 */
            for (int b = 0; b < 32; b++)
                u |= ((plane[b] >> (j % 32)) & 1u) << (31 - b);
            const int accept = (uint64_t)u < thr[j];
            const int8_t old = s[where[j]];
            const int8_t new_spin = sp->algorithm == LATMC_ALGO_HEATBATH ? (accept ? 1 : -1)
                                    : accept ? (int8_t)-old : old;
            changed += new_spin != old;
            s[where[j]] = new_spin;
        }
    }
    free(thr);
    free(where);
    return changed;
}

static latmc_sim *make_sim(latmc_ctx *ctx, const struct spec *sp, const char *level, int threads,
                           int parts, int couplings)
{
    latmc_sim_desc d = ising_desc(sp->ndim, sp->L[0], sp->L[1], sp->L[2], sp->algorithm, threads,
                                  sp->seed);
    d.n_parts = parts;
    d.couplings = couplings;
    d.coupling_seed = 99;
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    unsetenv("LATMC_CPU_MASK");
    if (st != LATMC_OK)
        print_message("create: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, sp->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, sp->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, sp->h), LATMC_OK);
    return sim;
}

/* The library against the definition: sweeps with `pattern[k]` the chain of sweep k
 * (0: one draw per site, checked only through what follows; 1: bit-sliced). */
static void check_case(const struct spec *sp, int couplings, const char *level, int threads,
                       int parts, const int *pattern, int nsweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make_sim(ctx, sp, level, threads, parts, couplings);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    const int64_t n = sp->L[0] * sp->L[1] * sp->L[2];
    int8_t *want = malloc((size_t)n), *got = malloc((size_t)n);
    float *eps = NULL;
    assert_non_null(want);
    assert_non_null(got);
    if (couplings == LATMC_COUPLINGS_BIMODAL) {
        eps = malloc((size_t)n * (size_t)sp->ndim * sizeof *eps);
        assert_non_null(eps);
        assert_int_equal(latmc_sim_get_couplings(sim, eps, (size_t)n * (size_t)sp->ndim),
                         LATMC_OK);
    }
    assert_int_equal(latmc_sim_get_spins(sim, want, (size_t)n), LATMC_OK);
    uint64_t acc0 = 0, att0 = 0;
    assert_int_equal(latmc_sim_acceptance_counts(sim, &acc0, &att0), LATMC_OK);
    uint64_t changed = 0;
    for (int k = 0; k < nsweeps; k++) {
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, pattern[k]), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        if (pattern[k]) {
            changed += spec_sweep(sp, want, eps, (uint64_t)k);
        } else { /* the one-draw chain (tests/unit/test_ising_chain.c): take the library's */
            assert_int_equal(latmc_sim_get_spins(sim, want, (size_t)n), LATMC_OK);
            uint64_t a, t;
            assert_int_equal(latmc_sim_acceptance_counts(sim, &a, &t), LATMC_OK);
            changed = a - acc0;
        }
    }
    assert_int_equal(latmc_sim_get_spins(sim, got, (size_t)n), LATMC_OK);
    if (memcmp(want, got, (size_t)n) != 0)
        print_message("%dD %s, %s couplings, level %s, %d threads, %d parts: configurations "
                      "differ\n", sp->ndim,
                      sp->algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
                      couplings ? "+-J" : "uniform", level, threads, parts);
    assert_memory_equal(want, got, (size_t)n);
    uint64_t acc = 0, att = 0;
    assert_int_equal(latmc_sim_acceptance_counts(sim, &acc, &att), LATMC_OK);
    assert_int_equal(acc - acc0, changed);
    assert_true(changed > 0 && changed < (uint64_t)(nsweeps * n)); /* a moving chain */
    free(eps);
    free(want);
    free(got);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static const char *const levels[] = { "c", "avx2", "avx512" };

static void every_layout(const struct spec *sp, int couplings)
{
    static const int all[6] = { 1, 1, 1, 1, 1, 1 };
    for (int l = 0; l < 3; l++)
        for (int threads = 1; threads <= 2; threads++)
            for (int parts = 1; parts <= 3; parts++)
                check_case(sp, couplings, levels[l], threads, parts, all, 6);
}

static void test_2d(void **state)
{
    (void)state;
    /* 36 x 10: 180 sites per colour, 5 groups and a partial one; boxes of 2 to 4 rows of
     * 18 sites per colour cut groups */
    for (int a = 0; a < 2; a++) {
        const struct spec sp = { 2, { 36, 10, 1 }, a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS,
                                 0.42, 1.0, 0.05, 20261123 };
        every_layout(&sp, LATMC_COUPLINGS_UNIFORM);
        every_layout(&sp, LATMC_COUPLINGS_BIMODAL);
    }
}

/* Rows of at least 32 sites per colour: whole groups in one row (the kernels' fast case)
 * and, with 48 per row, groups across two rows. */
static void test_long_rows(void **state)
{
    (void)state;
    for (int a = 0; a < 2; a++) {
        const int algorithm = a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
        const struct spec wide = { 2, { 128, 6, 1 }, algorithm, 0.42, 1.0, 0.05, 77 };
        const struct spec odd = { 2, { 96, 6, 1 }, algorithm, 0.42, 1.0, -0.05, 78 };
        const struct spec deep = { 3, { 64, 2, 6 }, algorithm, 0.22, 1.0, 0.1, 79 };
        every_layout(&wide, LATMC_COUPLINGS_UNIFORM);
        every_layout(&wide, LATMC_COUPLINGS_BIMODAL);
        every_layout(&odd, LATMC_COUPLINGS_UNIFORM);
        every_layout(&odd, LATMC_COUPLINGS_BIMODAL);
        every_layout(&deep, LATMC_COUPLINGS_UNIFORM);
        every_layout(&deep, LATMC_COUPLINGS_BIMODAL);
    }
}

/* Rows of 256 sites per colour: runs of eight whole groups, which the AVX2 kernel decides
 * side by side (and finishes group by group past plane 8); 2D and 3D, low temperature
 * (many lanes with T = 2^32 or near 0) and beta = 0.1 (nearly every lane open). */
static void test_vector_batches(void **state)
{
    (void)state;
    for (int a = 0; a < 2; a++) {
        const int algorithm = a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
        const struct spec cold = { 2, { 512, 6, 1 }, algorithm, 0.7, 1.0, 0.02, 91 };
        const struct spec hot = { 2, { 512, 6, 1 }, algorithm, 0.1, 1.0, 0.0, 92 };
        const struct spec deep = { 3, { 64, 8, 6 }, algorithm, 0.25, 1.0, 0.0, 93 };
        every_layout(&cold, LATMC_COUPLINGS_UNIFORM);
        every_layout(&hot, LATMC_COUPLINGS_BIMODAL);
        every_layout(&deep, LATMC_COUPLINGS_UNIFORM);
        every_layout(&deep, LATMC_COUPLINGS_BIMODAL);
    }
}

static void test_3d(void **state)
{
    (void)state;
    for (int a = 0; a < 2; a++) {
        const struct spec sp = { 3, { 6, 4, 6 }, a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS,
                                 0.22, 1.0, -0.1, 4711 };
        every_layout(&sp, LATMC_COUPLINGS_UNIFORM);
        every_layout(&sp, LATMC_COUPLINGS_BIMODAL);
    }
}

/* Thread teams (a colour of at least 32768 sites: cpu_omp.h) cutting the runs of eight
 * groups anywhere, with and without boxes, at the AVX2 and C levels. */
static void test_thread_teams(void **state)
{
    (void)state;
    static const int all[3] = { 1, 1, 1 };
    const struct spec metro = { 2, { 512, 130, 1 }, LATMC_ALGO_METROPOLIS, 0.44, 1.0, 0.0, 31 };
    const struct spec heat = { 2, { 384, 172, 1 }, LATMC_ALGO_HEATBATH, 0.5, 1.0, 0.01, 32 };
    for (int l = 0; l < 2; l++)
        for (int threads = 2; threads <= 3; threads++) {
            check_case(&metro, LATMC_COUPLINGS_UNIFORM, levels[l], threads, 1 + 2 * (l == 0),
                       all, 3);
            check_case(&heat, LATMC_COUPLINGS_BIMODAL, levels[1 - l], threads, threads - 1,
                       all, 3);
        }
}

/* Switching chains between sweeps: each sweep runs the chain its parameter names. */
static void test_switch(void **state)
{
    (void)state;
    static const int pattern[6] = { 1, 0, 0, 1, 1, 0 };
    static const int tail[6] = { 0, 1, 0, 1, 0, 1 };
    const struct spec sp = { 2, { 12, 8, 1 }, LATMC_ALGO_METROPOLIS, 0.3, 1.0, 0.0, 5 };
    for (int l = 0; l < 3; l++) {
        check_case(&sp, LATMC_COUPLINGS_UNIFORM, levels[l], 2, 2, pattern, 6);
        check_case(&sp, LATMC_COUPLINGS_UNIFORM, levels[l], 1, 1, tail, 6);
    }
}

/* An ensemble on the CPU (members sweep on threads) runs each member's chain: the member
 * equals a standalone sim of its desc with decisions = 1, bit for bit; with two threads
 * as with one. Saved and loaded, it goes on bit for bit. */
static void test_ensemble(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc member = ising_desc(2, 64, 8, 0, LATMC_ALGO_METROPOLIS, 1, 0);
    member.couplings = LATMC_COUPLINGS_BIMODAL;
    const double beta[2] = { 0.4, 0.9 };
    for (int threads = 1; threads <= 2; threads++) {
        latmc_ens_layout l;
        latmc_ens_layout_init(&l);
        l.n_samples = 2;
        l.n_temperatures = 2;
        l.seed = 606;
        l.coupling_seed = 607;
        l.n_threads = threads;
        latmc_ens *e = NULL;
        assert_int_equal(latmc_ens_create(ctx, &member, &l, &e), LATMC_OK);
        assert_int_equal(latmc_ens_set_temperatures(e, beta, 2), LATMC_OK);
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 6), LATMC_OK);
        size_t bytes = 0;
        assert_int_equal(latmc_ens_spins_size(e, &bytes), LATMC_OK);
        unsigned char *a = malloc(bytes), *b = malloc(bytes);
        assert_non_null(a);
        assert_non_null(b);
        for (int m = 0; m < 4; m++) {
            latmc_sim_desc md;
            assert_int_equal(latmc_ens_member_desc(e, m, &md), LATMC_OK);
            int t = -1;
            assert_int_equal(latmc_ens_temperature_of(e, m, &t), LATMC_OK);
            latmc_sim *sim = NULL;
            assert_int_equal(latmc_sim_create(ctx, &md, &sim), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta[t]), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
            assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 6), LATMC_OK);
            assert_int_equal(latmc_sim_get_spins(sim, a, bytes), LATMC_OK);
            assert_int_equal(latmc_ens_get_spins(e, m, b, bytes), LATMC_OK);
            assert_memory_equal(a, b, bytes);
            latmc_sim_destroy(&sim);
        }
        /* saved while the members run the chain (their checkpoints of format version 3),
         * the ensemble loads and goes on alike */
        char path[] = "/tmp/latmc_decisions_ensXXXXXX";
        const int fd = mkstemp(path);
        assert_true(fd >= 0);
        close(fd);
        assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
        latmc_ens *back = NULL;
        assert_int_equal(latmc_ens_load(ctx, path, &back), LATMC_OK);
        unlink(path);
        assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(back, 3), LATMC_OK);
        for (int m = 0; m < 4; m++) {
            assert_int_equal(latmc_ens_get_spins(e, m, a, bytes), LATMC_OK);
            assert_int_equal(latmc_ens_get_spins(back, m, b, bytes), LATMC_OK);
            assert_memory_equal(a, b, bytes);
        }
        latmc_ens_destroy(&back);
        free(a);
        free(b);
        latmc_ens_destroy(&e);
    }
    latmc_ctx_destroy(&ctx);
}

/* Range, name, model and checkpoint. */
static void test_errors(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct spec sp = { 2, { 8, 8, 1 }, LATMC_ALGO_METROPOLIS, 0.3, 1.0, 0.0, 5 };
    latmc_sim *sim = make_sim(ctx, &sp, "c", 1, 1, LATMC_COUPLINGS_UNIFORM);
    int key = 0;
    assert_int_equal(latmc_param_by_name("decisions", &key), LATMC_OK);
    assert_int_equal(key, LATMC_PARAM_DECISIONS);
    double v = -1;
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_DECISIONS, &v), LATMC_OK);
    assert_true(v == 0.0); /* the default: today's chain */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 2), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 0.5), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, -1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_DECISIONS, &v), LATMC_OK);
    assert_true(v == 0.0); /* refused values leave the old one */
    double lo = -1, hi = -1;
    assert_int_equal(latmc_param_bounds(LATMC_MODEL_ISING, LATMC_PARAM_DECISIONS, &lo, &hi),
                     LATMC_OK);
    assert_true(lo == 0.0 && hi == 1.0);
    assert_int_equal(latmc_param_bounds(LATMC_MODEL_POTTS, LATMC_PARAM_DECISIONS, &lo, &hi),
                     LATMC_EUNSUPPORTED);
    /* a checkpoint records the chain (format version 3: tests/api/test_checkpoint_chain.c):
     * one more parameter block than the default chain's file */
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    size_t size0 = 0, size1 = 0;
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &size0), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &size1), LATMC_OK);
    assert_int_equal(size1, size0 + 16);
    latmc_sim_destroy(&sim);

    /* other models do not have the parameter */
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_POTTS;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 6;
    d.q = 3;
    d.device = LATMC_DEVICE_CPU;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_2d),
        cmocka_unit_test(test_3d),
        cmocka_unit_test(test_long_rows),
        cmocka_unit_test(test_vector_batches),
        cmocka_unit_test(test_thread_teams),
        cmocka_unit_test(test_switch),
        cmocka_unit_test(test_ensemble),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
