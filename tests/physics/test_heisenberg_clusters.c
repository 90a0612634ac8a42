/*
 * Heisenberg with Wolff's embedded cluster steps (Swendsen-Wang and Wolff on the signs of
 * r . s for a drawn direction r, doc/models/heisenberg.md "Cluster steps") against exact
 * results, each within 4 binning sigma (fixed seeds):
 *
 *   rings: every y and z coupling 0 (latmc_sim_set_couplings), so the lattice is
 *     independent periodic rings along x with Gaussian couplings of both signs (the
 *     test's own draws); each ring's exact <H> from
 *     Z = (4 pi)^n sum_l (2l + 1) prod_k i_l(beta J_k) (tests/support/exact_heisenberg.c);
 *   free spins in a field: all couplings 0, so <e> = -h L(beta h), L(a) = coth a - 1/a.
 *     The heat bath samples free spins exactly, so what is measured after each sweep is
 *     the exact distribution moved by one cluster step: this checks the step's decision
 *     in a field (the heat bath over a cluster's two orientations) sharply.
 * A sweep is the heat-bath pass, nover overrelaxation passes, then one cluster step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "heisenberg_rings.h"
#include "mc_sampling.h"

#define MAX_SIGMA 4.0
#define THERM 300

/* Hot start, THERM sweeps, then the energy per site after each of nmeas sweeps. */
static latmc_acc *sample_energy(latmc_sim *sim, uint64_t nmeas)
{
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, 1), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, THERM), LATMC_OK);
    for (uint64_t t = 0; t < nmeas; t++) {
        double e = 0.0;
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
        assert_int_equal(latmc_acc_push(acc, &e, 1), LATMC_OK);
    }
    return acc;
}

/* Rings along x with Gaussian couplings; returns |deviation| in sigma. */
static double check_rings(latmc_ctx *ctx, int ndim, int64_t lx, int64_t ly, int64_t lz,
                          int algorithm, double beta, int nover, uint64_t seed)
{
    latmc_sim_desc d = heisenberg_desc(ndim, lx, ly, lz, 1, LATMC_COUPLINGS_UNIFORM,
                                       algorithm, 1, seed);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, nover), LATMC_OK);
    const double exact = heisenberg_set_rings(sim, &d, true, beta, seed);
    latmc_acc *acc = sample_energy(sim, UINT64_C(1) << 14);
    char label[128];
    snprintf(label, sizeof label, "%dD rings of %lld, %s, beta=%.1f nover=%d <e>", ndim,
             (long long)lx, algorithm == LATMC_ALGO_WOLFF ? "Wolff" : "SW", beta, nover);
    const double dev = mc_deviation(acc, 0, exact, label);
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
    return fabs(dev);
}

static void rings(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int algos[] = { LATMC_ALGO_SWENDSEN_WANG, LATMC_ALGO_WOLFF };
    double worst = 0.0;
    uint64_t seed = 5100;
    for (int a = 0; a < 2; a++) {
        double dev = check_rings(ctx, 2, 8, 4, 0, algos[a], 2.5, 0, seed++);
        worst = dev > worst ? dev : worst;
        assert_true(dev < MAX_SIGMA);
        dev = check_rings(ctx, 3, 4, 2, 2, algos[a], 0.8, 1, seed++);
        worst = dev > worst ? dev : worst;
        assert_true(dev < MAX_SIGMA);
    }
    printf("largest ring deviation: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

/* Langevin function coth(a) - 1/a. */
static double langevin(double a)
{
    return fabs(a) < 1e-3 ? a / 3.0 : 1.0 / tanh(a) - 1.0 / a;
}

static void free_spins_in_a_field(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct { double beta, h; int algorithm; } cases[] = {
        { 0.5, 0.8, LATMC_ALGO_SWENDSEN_WANG }, { 2.0, -1.5, LATMC_ALGO_WOLFF },
        { 1.0, 1.0, LATMC_ALGO_WOLFF },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        latmc_sim_desc d = heisenberg_desc(2, 8, 8, 0, 1, LATMC_COUPLINGS_UNIFORM,
                                           cases[c].algorithm, 1, 5200 + (uint64_t)c);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, cases[c].beta), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, cases[c].h), LATMC_OK);
        float J[128] = { 0 };
        assert_int_equal(latmc_sim_set_couplings(sim, J, 128), LATMC_OK);
        latmc_acc *acc = sample_energy(sim, UINT64_C(1) << 13);
        char label[96];
        snprintf(label, sizeof label, "free spins %s beta=%.1f h=%.1f <e>",
                 cases[c].algorithm == LATMC_ALGO_WOLFF ? "Wolff" : "SW", cases[c].beta,
                 cases[c].h);
        const double h = cases[c].h;
        const double dev = mc_deviation(acc, 0, -h * langevin(cases[c].beta * h), label);
        assert_true(fabs(dev) < MAX_SIGMA);
        latmc_acc_destroy(&acc);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rings),
        cmocka_unit_test(free_spins_in_a_field),
    };
    return cmocka_run_group_tests_name("heisenberg_clusters", tests, NULL, NULL);
}
