/*
 * phi^4 with embedded cluster steps (Swendsen-Wang and Wolff on the field's signs,
 * doc/models/phi4.md "Cluster steps") against exact results, each within 4 sigma of
 * binning errors (fixed seeds):
 *
 *   Gaussian model (g = 0, mu2 = 1): <phi^2> = (1/V) sum_p 1/K(p)
 *     (tests/support/exact_phi4.c), <H>/V = 1/2, <m^2> = 1/(V mu2), and the clusters'
 *     improved estimator of <m^2> (LATMC_OBS_CLUSTER_M2) against the same 1/(V mu2);
 *   interacting model (g > 0, the broken phase mu2 < 0 included): the Schwinger-Dyson
 *     identities <2 H/V + g/12 sum phi^4 / V> = 1 and <sum_x (dH/dphi)^2 - d2H/dphi^2> = 0,
 *     with the derivatives computed here from H's definition, and <m> = 0 (the symmetry
 *     that the sign flips restore; Metropolis alone on these lattices stays in one phase
 *     for thousands of sweeps);
 * Lambda finite (its antiferromagnetic pairs two sites apart are in the clusters) and
 * infinite, 2D and 3D, float and double. A sweep is nloc Metropolis passes then one
 * cluster step; epsilon is tuned during thermalisation. A cluster step that broke detailed
 * balance (a pair left out of the bonds, a wrong bond probability) biases these values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "phi4_schwinger_dyson.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define MAX_SIGMA 4.0

struct run {
    int ndim;
    int64_t L[3];
    int precision;
    double mu2, g, lambda;
    int algorithm, nloc;
    uint64_t nmeas;
};

enum { C_PHI2, C_ENERGY, C_M2, C_CM2, C_M, C_SD1, C_SD2, NC };

static latmc_sim *make_sim(latmc_ctx *ctx, const struct run *r, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = r->ndim;
    d.extent[0] = r->L[0];
    d.extent[1] = r->L[1];
    d.extent[2] = r->ndim == 3 ? r->L[2] : 0;
    d.precision = r->precision;
    d.algorithm = r->algorithm;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = seed;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, r->mu2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, r->g), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, r->lambda), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, r->nloc), LATMC_OK);
    return sim;
}

static double check_run(latmc_ctx *ctx, const struct run *r, uint64_t seed)
{
    const struct exact_phi4_lattice lat = {
        r->ndim, { r->L[0], r->L[1], r->ndim == 3 ? r->L[2] : 1 } };
    const int64_t n = exact_phi4_nsites(&lat);
    const int gaussian = r->g == 0.0;
    latmc_sim *sim = make_sim(ctx, r, seed);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_tune_epsilon(sim, 0.5, 300), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 200), LATMC_OK);
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, NC), LATMC_OK);
    double *phi = malloc((size_t)n * sizeof *phi);
    float *fphi = malloc((size_t)n * sizeof *fphi);
    assert_non_null(phi);
    assert_non_null(fphi);
    for (uint64_t t = 0; t < r->nmeas; t++) {
        double row[NC] = { 0 };
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_PHI2, &row[C_PHI2]), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &row[C_ENERGY]), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &row[C_M2]), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTER_M2, &row[C_CM2]), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &row[C_M]), LATMC_OK);
        if (!gaussian)
            phi4_sd_columns(sim, r->precision, r->mu2, r->g, r->lambda, &lat, row[C_ENERGY], phi,
                            fphi, &row[C_SD1], &row[C_SD2]);
        assert_int_equal(latmc_acc_push(acc, row, NC), LATMC_OK);
    }
    printf("%dD %lldx%lld %s %s Lambda=%g mu2=%g g=%g nloc=%d:\n", r->ndim, (long long)r->L[0],
           (long long)r->L[1], r->precision == LATMC_PRECISION_FLOAT ? "float" : "double",
           r->algorithm == LATMC_ALGO_WOLFF ? "Wolff" : "SW", r->lambda, r->mu2, r->g, r->nloc);
    double dev[5];
    int nd = 0;
    dev[nd++] = mc_deviation(acc, C_M, 0.0, "  <m>");
    if (gaussian) {
        const double m2 = exact_phi4_gaussian_m2(&lat, r->mu2);
        dev[nd++] = mc_deviation(acc, C_PHI2, exact_phi4_gaussian_phi2(&lat, r->mu2, r->lambda),
                                 "  <phi^2>");
        dev[nd++] = mc_deviation(acc, C_ENERGY, 0.5, "  <H>/V");
        dev[nd++] = mc_deviation(acc, C_M2, m2, "  <m^2>");
        dev[nd++] = mc_deviation(acc, C_CM2, m2, "  <m^2> (clusters)");
    } else {
        dev[nd++] = mc_deviation(acc, C_SD1, 1.0, "  <2e + g/12 phi^4>");
        dev[nd++] = mc_deviation(acc, C_SD2, 0.0, "  <(dH)^2 - d2H>/V");
    }
    double worst = 0;
    for (int c = 0; c < nd; c++) {
        worst = fabs(dev[c]) > worst ? fabs(dev[c]) : worst;
        assert_true(fabs(dev[c]) < MAX_SIGMA);
    }
    free(phi);
    free(fphi);
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
    return worst;
}

static void run_all(const struct run *runs, size_t nruns, uint64_t seed)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    double worst = 0;
    for (size_t i = 0; i < nruns; i++) {
        const double w = check_run(ctx, &runs[i], seed + i);
        worst = w > worst ? w : worst;
    }
    printf("largest deviation: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

#define F LATMC_PRECISION_FLOAT
#define D LATMC_PRECISION_DOUBLE
#define SW LATMC_ALGO_SWENDSEN_WANG
#define WO LATMC_ALGO_WOLFF

static void gaussian(void **state)
{
    (void)state;
    const uint64_t nm = UINT64_C(1) << 15;
    const struct run runs[] = {
        { 2, { 8, 8, 1 }, D, 1.0, 0.0, INFINITY, SW, 1, nm },
        { 2, { 8, 8, 1 }, F, 1.0, 0.0, 1.0, SW, 2, nm },
        { 2, { 10, 10, 1 }, D, 1.0, 0.0, 0.5, WO, 2, nm },
        { 3, { 8, 8, 8 }, F, 1.0, 0.0, 2.0, SW, 1, nm / 16 },
    };
    run_all(runs, sizeof runs / sizeof runs[0], 8100);
}

static void schwinger_dyson(void **state)
{
    (void)state;
    const uint64_t nm = UINT64_C(1) << 12;
    const struct run runs[] = {
        { 2, { 8, 8, 1 }, D, -1.0, 3.0, 1.0, SW, 1, nm },
        { 2, { 8, 8, 1 }, F, -0.6, 1.5, INFINITY, WO, 2, nm },
        { 2, { 10, 10, 1 }, D, -0.8, 2.0, 0.6, WO, 1, nm },
        { 3, { 8, 8, 8 }, D, -1.5, 4.0, 2.0, SW, 1, nm / 4 },
    };
    run_all(runs, sizeof runs / sizeof runs[0], 8300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gaussian),
        cmocka_unit_test(schwinger_dyson),
    };
    return cmocka_run_group_tests_name("phi4_clusters", tests, NULL, NULL);
}
