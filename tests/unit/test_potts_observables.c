/*
 * The Potts model through the public API: observables against H and m computed here from
 * latmc_sim_get_spins (random configurations, q up to 255, both colourings, 2D and 3D, and
 * configurations the chain produced), cold and hot starts, acceptance counting, and every
 * bad input the descriptor and set_spins must refuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_helpers.h"

/* The desc of these tests: one thread (sim_helpers.h). */
static latmc_sim_desc potts_desc(int ndim, int64_t lx, int64_t ly, int64_t lz, int q,
                                 int algorithm, uint64_t seed)
{
    return potts_test_desc(ndim, lx, ly, lz, q, algorithm, 1, seed);
}

struct expected {
    double e, m;
};

/* H / N and m from the configuration, straight from the definitions. */
static struct expected from_definition(const latmc_sim_desc *d, const uint8_t *s, double J,
                                       double h)
{
    const int64_t lx = d->extent[0], ly = d->extent[1], lz = d->ndim == 3 ? d->extent[2] : 1;
    const int64_t n = lx * ly * lz;
    int64_t matches = 0, pop[256] = { 0 };
    for (int64_t z = 0; z < lz; z++)
        for (int64_t y = 0; y < ly; y++)
            for (int64_t x = 0; x < lx; x++) {
                const int v = s[x + lx * (y + ly * z)];
                matches += v == s[(x + 1) % lx + lx * (y + ly * z)];
                matches += v == s[x + lx * ((y + 1) % ly + ly * z)];
                if (d->ndim == 3)
                    matches += v == s[x + lx * (y + ly * ((z + 1) % lz))];
                pop[v]++;
            }
    int64_t nmax = 0;
    for (int k = 0; k < 256; k++)
        nmax = pop[k] > nmax ? pop[k] : nmax;
    struct expected r;
    r.e = (-J * (double)matches - h * (double)pop[0]) / (double)n;
    r.m = ((double)d->q * (double)nmax / (double)n - 1.0) / (double)(d->q - 1);
    return r;
}

static void check_observables(latmc_sim *sim, const latmc_sim_desc *d, double J, double h)
{
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    uint8_t *s = malloc(n);
    assert_non_null(s);
    assert_int_equal(latmc_sim_get_spins(sim, s, n), LATMC_OK);
    const struct expected ex = from_definition(d, s, J, h);
    double e, m, am, m2, m4;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ABS_MAGNETIZATION, &am), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M4, &m4), LATMC_OK);
    assert_close(e, ex.e, 1e-12 * (1 + fabs(ex.e)));
    assert_close(m, ex.m, 1e-12);
    assert_true(am == m && m >= 0.0 && m <= 1.0);
    assert_close(m2, ex.m * ex.m, 1e-12);
    assert_close(m4, ex.m * ex.m * ex.m * ex.m, 1e-12);
    free(s);
}

static void observables_match_definition(void **state)
{
    (void)state;
    struct lattice {
        int ndim;
        int64_t l[3];
    } const lattices[] = { { 2, { 4, 4, 0 } }, { 2, { 6, 9, 0 } }, { 2, { 2, 10, 0 } },
                           { 3, { 2, 2, 2 } }, { 3, { 3, 6, 9 } }, { 3, { 4, 6, 8 } } };
    const int qs[] = { 2, 3, 7, 200, 255 };
    const double couplings[][2] = { { 1.0, 0.0 }, { -0.7, 0.3 }, { 1.3, -1.1 } };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    uint64_t rng = 424242;
    for (size_t a = 0; a < sizeof lattices / sizeof lattices[0]; a++)
        for (size_t b = 0; b < sizeof qs / sizeof qs[0]; b++) {
            const double J = couplings[(a + b) % 3][0], h = couplings[(a + b) % 3][1];
            latmc_sim_desc d = potts_desc(lattices[a].ndim, lattices[a].l[0], lattices[a].l[1],
                                          lattices[a].l[2], qs[b],
                                          b % 2 ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS,
                                          77 + a * 10 + b);
            latmc_sim *sim = NULL;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, J), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.8), LATMC_OK);
            size_t n = 0;
            assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
            uint8_t *s = malloc(n);
            assert_non_null(s);
            for (int rep = 0; rep < 4; rep++) {
                /* random, then biased towards few states so that matches and nmax vary */
                const uint64_t span = rep % 2 ? (uint64_t)qs[b] : 1 + (uint64_t)rep;
                for (size_t i = 0; i < n; i++)
                    s[i] = (uint8_t)(test_rng_next(&rng) % (span < (uint64_t)qs[b] ? span : (uint64_t)qs[b]));
                assert_int_equal(latmc_sim_set_spins(sim, s, n), LATMC_OK);
                check_observables(sim, &d, J, h);
                /* and configurations the chain made */
                assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
                check_observables(sim, &d, J, h);
            }
            assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
            check_observables(sim, &d, J, h);
            free(s);
            latmc_sim_destroy(&sim);
        }
    latmc_ctx_destroy(&ctx);
}

static void cold_and_hot_starts(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = potts_desc(3, 6, 6, 9, 255, LATMC_ALGO_METROPOLIS, 5);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, 1.5), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.25), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    assert_int_equal((int)n, 6 * 6 * 9);
    uint8_t *s = malloc(n);
    assert_non_null(s);
    assert_int_equal(latmc_sim_get_spins(sim, s, n), LATMC_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(s[i], 0);
    double e, m;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
    assert_true(e == -1.5 * 3 - 0.25);
    assert_true(m == 1.0);
    /* hot start: every state in range; 324 sites fill 255 (1 - (254/255)^324) = 183 +- 5
     * distinct states */
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, s, n), LATMC_OK);
    int seen[256] = { 0 }, distinct = 0;
    for (size_t i = 0; i < n; i++) {
        assert_true(s[i] < 255);
        distinct += !seen[s[i]]++;
    }
    assert_true(distinct > 160 && distinct < 206);
    free(s);
    latmc_sim_destroy(&sim);

    /* and uniform: 3600 sites over q = 7 states, 514 +- 21 each (5 sigma allowed) */
    d = potts_desc(2, 60, 60, 0, 7, LATMC_ALGO_HEATBATH, 6);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    uint8_t big[3600];
    assert_int_equal(latmc_sim_get_spins(sim, big, sizeof big), LATMC_OK);
    int pop[7] = { 0 };
    for (size_t i = 0; i < sizeof big; i++) {
        assert_true(big[i] < 7);
        pop[big[i]]++;
    }
    for (int k = 0; k < 7; k++)
        assert_true(abs(pop[k] - 514) < 5 * 21);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* beta = 0: Metropolis accepts every proposal; heat bath changes a site with
 * probability (q - 1)/q. */
static void acceptance_counts(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int algo = LATMC_ALGO_METROPOLIS; algo <= LATMC_ALGO_HEATBATH; algo++) {
        latmc_sim_desc d = potts_desc(2, 30, 30, 0, 4, algo, 11);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        double acc = -1;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acc), LATMC_ESTATE);
        assert_int_equal(latmc_sim_sweep(sim, 40), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
        if (algo == LATMC_ALGO_METROPOLIS)
            assert_true(acc == 1.0);
        else /* 36000 independent trials: sigma = 0.0023 */
            assert_close(acc, 0.75, 0.012);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

static int create_status(latmc_ctx *ctx, const latmc_sim_desc *d)
{
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, d, &sim);
    latmc_sim_destroy(&sim);
    return st;
}

static void bad_inputs(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    /* q out of [2, 255]; the message names q */
    const int bad_q[] = { 0, 1, 256, -3, 1000 };
    for (size_t i = 0; i < sizeof bad_q / sizeof bad_q[0]; i++) {
        latmc_sim_desc d = potts_desc(2, 4, 4, 0, bad_q[i], LATMC_ALGO_DEFAULT, 1);
        assert_int_equal(create_status(ctx, &d), LATMC_EINVAL);
        assert_non_null(strstr(latmc_last_error(), "q"));
    }
    latmc_sim_desc ok = potts_desc(2, 4, 4, 0, 2, LATMC_ALGO_DEFAULT, 1);
    assert_int_equal(create_status(ctx, &ok), LATMC_OK);
    ok.q = 255;
    assert_int_equal(create_status(ctx, &ok), LATMC_OK);
    /* extents: all even (c = 2) or all divisible by 3 (c = 3), else refused */
    const int64_t good[][3] = { { 4, 6, 0 }, { 3, 9, 0 }, { 6, 9, 0 }, { 2, 2, 2 }, { 3, 3, 6 },
                                { 6, 12, 18 } };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        latmc_sim_desc d = potts_desc(good[i][2] ? 3 : 2, good[i][0], good[i][1], good[i][2], 3,
                                      LATMC_ALGO_DEFAULT, 1);
        assert_int_equal(create_status(ctx, &d), LATMC_OK);
    }
    const int64_t bad[][3] = { { 4, 3, 0 }, { 5, 5, 0 }, { 2, 6, 9 }, { 3, 3, 4 }, { 4, 4, 3 },
                               { 7, 14, 0 } };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        latmc_sim_desc d = potts_desc(bad[i][2] ? 3 : 2, bad[i][0], bad[i][1], bad[i][2], 3,
                                      LATMC_ALGO_DEFAULT, 1);
        assert_int_equal(create_status(ctx, &d), LATMC_EINVAL);
        assert_non_null(strstr(latmc_last_error(), "divisible by 3"));
    }
    /* algorithms and replicas the model does not have */
    latmc_sim_desc d = potts_desc(2, 4, 4, 0, 3, LATMC_ALGO_OVERRELAX, 1);
    assert_int_equal(create_status(ctx, &d), LATMC_EUNSUPPORTED);
    d = potts_desc(2, 4, 4, 0, 3, LATMC_ALGO_DEFAULT, 1);
    d.replicas = 2;
    assert_int_equal(create_status(ctx, &d), LATMC_EUNSUPPORTED);

    /* set_spins: states >= q are refused and change nothing */
    d = potts_desc(2, 6, 6, 0, 5, LATMC_ALGO_DEFAULT, 1);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    uint8_t s[36], back[36];
    for (int i = 0; i < 36; i++)
        s[i] = (uint8_t)(i % 5);
    assert_int_equal(latmc_sim_set_spins(sim, s, sizeof s), LATMC_OK);
    uint8_t bad_s[36];
    memcpy(bad_s, s, sizeof s);
    bad_s[17] = 5;
    assert_int_equal(latmc_sim_set_spins(sim, bad_s, sizeof bad_s), LATMC_EINVAL);
    bad_s[17] = 255;
    assert_int_equal(latmc_sim_set_spins(sim, bad_s, sizeof bad_s), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_spins(sim, s, sizeof s - 1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_spins(sim, back, sizeof back), LATMC_OK);
    assert_memory_equal(s, back, sizeof s);
    /* observables and parameters of other models */
    double v = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_PHI2, &v), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &v), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, 1.0), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 1.0), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, -1.0), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, NAN), LATMC_EINVAL);
    float c[72];
    assert_int_equal(latmc_sim_set_couplings(sim, c, 72), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(observables_match_definition),
        cmocka_unit_test(cold_and_hot_starts),
        cmocka_unit_test(acceptance_counts),
        cmocka_unit_test(bad_inputs),
    };
    return cmocka_run_group_tests_name("potts_observables", tests, NULL, NULL);
}
