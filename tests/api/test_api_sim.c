/*
 * The sim API doing what it documents: defaults, observables against values computed
 * here from the configuration, spin round trips, hot/cold starts, limiting cases whose
 * outcome is known exactly, and concurrent sims on one ctx.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim_helpers.h"

static latmc_sim *make_sim(latmc_ctx *ctx, latmc_sim_desc d)
{
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, &d, &sim);
    if (st != LATMC_OK)
        print_error("create: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    return sim;
}

static void defaults(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    assert_int_equal(d.struct_size, sizeof d);
    assert_int_equal(d.model, LATMC_MODEL_NONE);
    assert_int_equal(d.replicas, 1);
    d = ising_desc(3, 4, 6, 8, LATMC_ALGO_DEFAULT, 0, 5);
    latmc_sim *sim = make_sim(ctx, d);
    latmc_sim_desc got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.algorithm, LATMC_ALGO_METROPOLIS); /* DEFAULT resolved */
    assert_int_equal(got.extent[2], 8);
    assert_true(got.n_threads >= 1); /* 0 resolved to the runtime default */
    double v;
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_BETA, &v), LATMC_OK);
    assert_true(v == 0.0);
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_J, &v), LATMC_OK);
    assert_true(v == 1.0);
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_H, &v), LATMC_OK);
    assert_true(v == 0.0);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, -0.75), LATMC_OK);
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_J, &v), LATMC_OK);
    assert_true(v == -0.75);
    assert_non_null(latmc_version_string());
    assert_string_equal(latmc_version_string(), LATMC_VERSION_STRING);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Energy and magnetisation sums computed here, site by site, for comparison. */
static void direct_sums(int ndim, const int64_t *L, const int8_t *s, long long *bonds,
                        long long *total)
{
    int64_t lz = ndim == 3 ? L[2] : 1;
    *bonds = 0;
    *total = 0;
    for (int64_t z = 0; z < lz; z++)
        for (int64_t y = 0; y < L[1]; y++)
            for (int64_t x = 0; x < L[0]; x++) {
                int64_t i = x + L[0] * (y + L[1] * z);
                int64_t ix = (x + 1) % L[0] + L[0] * (y + L[1] * z);
                int64_t iy = x + L[0] * ((y + 1) % L[1] + L[1] * z);
                int64_t iz = x + L[0] * (y + L[1] * ((z + 1) % lz));
                *bonds += s[i] * (s[ix] + s[iy] + (ndim == 3 ? s[iz] : 0));
                *total += s[i];
            }
}

static void observables_of_given_configuration(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct { int ndim; int64_t L[3]; } shapes[] = {
        { 2, { 2, 2, 0 } }, { 2, { 4, 6, 0 } }, { 2, { 10, 2, 0 } }, { 3, { 2, 2, 2 } },
        { 3, { 4, 6, 2 } }, { 3, { 6, 4, 8 } },
    };
    uint64_t rng = 11;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const int64_t *L = shapes[k].L;
        latmc_sim *sim = make_sim(ctx, ising_desc(shapes[k].ndim, L[0], L[1], L[2], 0, 1, 1));
        size_t n = 0;
        assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
        int8_t *s = malloc(n), *back = malloc(n);
        for (int trial = 0; trial < 4; trial++) {
            for (size_t i = 0; i < n; i++)
                s[i] = (test_rng_next(&rng) >> 63) ? 1 : -1;
            assert_int_equal(latmc_sim_set_spins(sim, s, n), LATMC_OK);
            assert_int_equal(latmc_sim_get_spins(sim, back, n), LATMC_OK);
            assert_memory_equal(s, back, n);
            const double J = trial == 2 ? -1.25 : 0.5 + trial, h = 0.3 * (trial - 1);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, J), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
            long long bonds, total;
            direct_sums(shapes[k].ndim, L, s, &bonds, &total);
            double e, m, am, m2, m4;
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ABS_MAGNETIZATION, &am), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M4, &m4), LATMC_OK);
            const double N = (double)n, mm = (double)total / N;
            assert_close(e, (-J * (double)bonds - h * (double)total) / N, 1e-12);
            assert_close(m, mm, 1e-15);
            assert_close(am, fabs(mm), 1e-15);
            assert_close(m2, mm * mm, 1e-15);
            assert_close(m4, mm * mm * mm * mm, 1e-15);
        }
        free(s);
        free(back);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

static void cold_and_hot_starts(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *a = make_sim(ctx, ising_desc(3, 8, 8, 8, 0, 1, 77));
    latmc_sim *b = make_sim(ctx, ising_desc(3, 8, 8, 8, 0, 1, 77));
    latmc_sim *c = make_sim(ctx, ising_desc(3, 8, 8, 8, 0, 1, 78));
    assert_int_equal(latmc_sim_set_param(a, LATMC_PARAM_H, 0.25), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(a, LATMC_INIT_COLD), LATMC_OK);
    double e, m;
    assert_int_equal(latmc_sim_observable(a, LATMC_OBS_ENERGY, &e), LATMC_OK);
    assert_int_equal(latmc_sim_observable(a, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
    assert_true(e == -3.0 - 0.25); /* every bond +1: -J ndim - h */
    assert_true(m == 1.0);
    int8_t sa[512], sb[512], sc[512];
    assert_int_equal(latmc_sim_init_spins(a, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(b, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(c, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(a, sa, sizeof sa), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(b, sb, sizeof sb), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(c, sc, sizeof sc), LATMC_OK);
    assert_memory_equal(sa, sb, sizeof sa);
    assert_memory_not_equal(sa, sc, sizeof sa);
    int up = 0;
    for (int i = 0; i < 512; i++) {
        assert_true(sa[i] == 1 || sa[i] == -1);
        up += sa[i] == 1;
    }
    /* Binomial(512, 1/2): sigma = 11.3 */
    assert_true(abs(up - 256) < 46);
    latmc_sim_destroy(&a);
    latmc_sim_destroy(&b);
    latmc_sim_destroy(&c);
    latmc_ctx_destroy(&ctx);
}

/* Limits with exactly known outcomes. */
static void exact_limits(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int ndim = 2; ndim <= 3; ndim++) {
        /* beta = 0 Metropolis: every flip accepted, so one sweep negates the lattice. */
        latmc_sim *s = make_sim(ctx, ising_desc(ndim, 6, 4, 4, LATMC_ALGO_METROPOLIS, 1, 9));
        size_t n = 0;
        latmc_sim_spins_size(s, &n);
        int8_t before[96], after[96];
        assert_int_equal(latmc_sim_init_spins(s, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(s, before, n), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(s, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(s, after, n), LATMC_OK);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(after[i], -before[i]);
        double acc;
        assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
        assert_true(acc == 1.0);
        uint64_t nacc = 0, natt = 0;
        assert_int_equal(latmc_sim_acceptance_counts(s, &nacc, &natt), LATMC_OK);
        assert_int_equal(nacc, n);
        assert_int_equal(natt, n);
        uint64_t count;
        assert_int_equal(latmc_sim_sweep(s, 4), LATMC_OK);
        assert_int_equal(latmc_sim_sweep_count(s, &count), LATMC_OK);
        assert_int_equal(count, 5);

        /* Very low temperature from the ordered state: no flip is ever accepted. */
        assert_int_equal(latmc_sim_set_param(s, LATMC_PARAM_BETA, 50.0), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(s, LATMC_INIT_COLD), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(s, 20), LATMC_OK);
        assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
        assert_true(acc == 0.0);
        double m;
        assert_int_equal(latmc_sim_observable(s, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
        assert_true(m == 1.0);
        /* A strong field against the spins turns them all at once, in the first sweep. */
        assert_int_equal(latmc_sim_set_param(s, LATMC_PARAM_H, -100.0), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(s, 1), LATMC_OK);
        assert_int_equal(latmc_sim_observable(s, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
        assert_true(m == -1.0);
        latmc_sim_destroy(&s);

        /* beta = 0 heat bath: fresh fair coins, acceptance (changed spins) near 1/2. */
        s = make_sim(ctx, ising_desc(ndim, 16, 16, 16, LATMC_ALGO_HEATBATH, 1, 9));
        assert_int_equal(latmc_sim_init_spins(s, LATMC_INIT_COLD), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(s, 10), LATMC_OK);
        assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
        double nupd = 10.0 * (ndim == 3 ? 4096 : 256);
        assert_true(fabs(acc - 0.5) < 4.0 * 0.5 / sqrt(nupd));
        latmc_sim_destroy(&s);
    }
    latmc_ctx_destroy(&ctx);
}

/* Sweeping in one call or in pieces gives the same chain. */
static void chunking_invariance(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *a = make_sim(ctx, ising_desc(2, 12, 10, 0, LATMC_ALGO_HEATBATH, 1, 3));
    latmc_sim *b = make_sim(ctx, ising_desc(2, 12, 10, 0, LATMC_ALGO_HEATBATH, 1, 3));
    for (latmc_sim *s = a; s; s = s == a ? b : NULL) {
        assert_int_equal(latmc_sim_set_param(s, LATMC_PARAM_BETA, 0.4), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(s, LATMC_INIT_HOT), LATMC_OK);
    }
    assert_int_equal(latmc_sim_sweep(a, 30), LATMC_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(latmc_sim_sweep(b, 5), LATMC_OK);
    int8_t sa[120], sb[120];
    assert_int_equal(latmc_sim_get_spins(a, sa, sizeof sa), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(b, sb, sizeof sb), LATMC_OK);
    assert_memory_equal(sa, sb, sizeof sa);
    latmc_sim_destroy(&a);
    latmc_sim_destroy(&b);
    latmc_ctx_destroy(&ctx);
}

/* Different sims on one ctx from different threads: same results as one after another. */
struct worker {
    latmc_ctx *ctx;
    uint64_t seed;
    int8_t spins[1024];
    int status;
};

static void *run_worker(void *arg)
{
    struct worker *w = arg;
    latmc_sim_desc d = ising_desc(2, 32, 32, 0, LATMC_ALGO_METROPOLIS, 1, w->seed);
    latmc_sim *sim = NULL;
    w->status = latmc_sim_create(w->ctx, &d, &sim);
    if (w->status == LATMC_OK)
        w->status = latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.44);
    if (w->status == LATMC_OK)
        w->status = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (w->status == LATMC_OK)
        w->status = latmc_sim_sweep(sim, 50);
    if (w->status == LATMC_OK)
        w->status = latmc_sim_get_spins(sim, w->spins, sizeof w->spins);
    latmc_sim_destroy(&sim);
    return NULL;
}

static void concurrent_sims(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    enum { NW = 4 };
    static struct worker par[NW], seq[NW];
    pthread_t th[NW];
    for (int i = 0; i < NW; i++) {
        par[i].ctx = seq[i].ctx = ctx;
        par[i].seed = seq[i].seed = 100 + (uint64_t)i;
        assert_int_equal(pthread_create(&th[i], NULL, run_worker, &par[i]), 0);
    }
    for (int i = 0; i < NW; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < NW; i++) {
        run_worker(&seq[i]);
        assert_int_equal(par[i].status, LATMC_OK);
        assert_int_equal(seq[i].status, LATMC_OK);
        assert_memory_equal(par[i].spins, seq[i].spins, sizeof par[i].spins);
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults),
        cmocka_unit_test(observables_of_given_configuration),
        cmocka_unit_test(cold_and_hot_starts),
        cmocka_unit_test(exact_limits),
        cmocka_unit_test(chunking_invariance),
        cmocka_unit_test(concurrent_sims),
    };
    return cmocka_run_group_tests_name("api_sim", tests, NULL, NULL);
}
