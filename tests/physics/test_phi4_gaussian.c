/*
 * phi^4 Monte Carlo against exact results (fixed seeds, within 4 sigma of binning errors):
 *
 * (b) Gaussian model (g = 0, mu2 = 0.5): <phi^2> = (1/V) sum_p 1/K(p) with
 *     K(p) = p^2 + mu2 + (p^2)^2 / Lambda (tests/support/exact_phi4.c, itself checked
 *     against the real-space Gaussian integral), <m^2> = 1 / (V mu2), and <H>/V = 1/2
 *     (equipartition), in 2D (8x8 with 8 colours, 10x10 with 5) and 3D (8x8x8), Lambda
 *     finite and infinite, float and double fields, several nhit and nloc.
 * Interacting model (g > 0, mu2 of both signs, Lambda finite and infinite): two exact
 *     Schwinger-Dyson identities from integrating by parts,
 *       <2 H/V + g/12 sum_x phi^4 / V> = 1             (sum_x phi(x) dH/dphi(x))
 *       <sum_x (dH/dphi(x))^2 - d2H/dphi(x)^2> / V = 0
 *     with the derivatives computed here from the definition of H on the field read back
 *     with latmc_sim_get_spins: they test the quartic and 1/Lambda terms of the chain.
 * Epsilon is tuned towards 50% acceptance (latmc_sim_tune_epsilon) during thermalisation.
 * LATMC_TEST_POINT_STRIDE (tests/support/sim_helpers.h) runs about one run in that many,
 * each as in the full test.
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
    int nhit, nloc;
    uint64_t nmeas;
};

enum { C_PHI2, C_ENERGY, C_M2, C_SD1, C_SD2, NC };

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
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = seed;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, r->mu2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, r->g), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, r->lambda), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NHIT, r->nhit), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, r->nloc), LATMC_OK);
    return sim;
}

static double check_run(latmc_ctx *ctx, const struct run *r, uint64_t seed)
{
    const struct exact_phi4_lattice lat = { r->ndim, { r->L[0], r->L[1], r->ndim == 3 ? r->L[2] : 1 } };
    const int64_t n = exact_phi4_nsites(&lat);
    const int gaussian = r->g == 0.0;
    latmc_sim *sim = make_sim(ctx, r, seed);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_tune_epsilon(sim, 0.5, 400), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 400), LATMC_OK);
    assert_int_equal(latmc_sim_reset_acceptance(sim), LATMC_OK);
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
        if (!gaussian)
            phi4_sd_columns(sim, r->precision, r->mu2, r->g, r->lambda, &lat, row[C_ENERGY], phi,
                            fphi, &row[C_SD1], &row[C_SD2]);
        assert_int_equal(latmc_acc_push(acc, row, NC), LATMC_OK);
    }
    double eps = 0, acceptance = 0;
    assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_EPSILON, &eps), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acceptance), LATMC_OK);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "%dD %lldx%lld%s %s L=%g g=%g nhit=%d nloc=%d", r->ndim,
             (long long)r->L[0], (long long)r->L[1], r->ndim == 3 ? "x8" : "",
             r->precision == LATMC_PRECISION_FLOAT ? "float" : "double", r->lambda, r->g, r->nhit,
             r->nloc);
    printf("%s: epsilon %.3f, acceptance %.3f\n", prefix, eps, acceptance);
    assert_true(acceptance > 0.4 && acceptance < 0.6); /* the tuning reached its target */
    double worst = 0, dev[3];
    char label[128];
    int nchecks = 0;
    if (gaussian) {
        const double want[3] = { exact_phi4_gaussian_phi2(&lat, r->mu2, r->lambda), 0.5,
                                 exact_phi4_gaussian_m2(&lat, r->mu2) };
        const char *names[3] = { "<phi^2>", "<H>/V", "<m^2>" };
        for (int c = 0; c < 3; c++) {
            snprintf(label, sizeof label, "  %s", names[c]);
            dev[nchecks++] = mc_deviation(acc, c, want[c], label);
        }
    } else {
        snprintf(label, sizeof label, "  <2e + g/12 phi^4>");
        dev[nchecks++] = mc_deviation(acc, C_SD1, 1.0, label);
        snprintf(label, sizeof label, "  <(dH)^2 - d2H>/V");
        dev[nchecks++] = mc_deviation(acc, C_SD2, 0.0, label);
    }
    for (int c = 0; c < nchecks; c++) {
        if (fabs(dev[c]) > worst)
            worst = fabs(dev[c]);
        assert_true(fabs(dev[c]) < MAX_SIGMA);
    }
    free(phi);
    free(fphi);
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
    return worst;
}

/*
 * Run i of the table has seed `seed` + i and point number first_point + i for
 * LATMC_TEST_POINT_STRIDE (a point that runs keeps its seed and chain). The tables' first
 * point numbers (0, 12, 16) are chosen so that a stride of 3 (the sanitizer build) still
 * runs 2D and 3D, float and double, and both kinds of check: 5 runs of 14.
 */
static void run_all(const struct run *runs, size_t nruns, uint64_t seed, unsigned first_point)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    double worst = 0;
    for (size_t i = 0; i < nruns; i++) {
        if (!test_point_selected(first_point + (unsigned)i))
            continue;
        const double w = check_run(ctx, &runs[i], seed + i);
        worst = w > worst ? w : worst;
    }
    printf("largest deviation: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

#define F LATMC_PRECISION_FLOAT
#define D LATMC_PRECISION_DOUBLE

static void gaussian_2d(void **state)
{
    (void)state;
    const uint64_t nm = UINT64_C(1) << 16;
    const struct run runs[] = {
        { 2, { 8, 8, 1 }, D, 0.5, 0.0, INFINITY, 1, 1, nm },
        { 2, { 8, 8, 1 }, F, 0.5, 0.0, INFINITY, 2, 1, nm },
        { 2, { 8, 8, 1 }, D, 0.5, 0.0, 2.0, 1, 2, nm },
        { 2, { 8, 8, 1 }, F, 0.5, 0.0, 2.0, 1, 1, nm },
        { 2, { 10, 10, 1 }, D, 0.5, 0.0, 1.5, 1, 1, nm },
        { 2, { 10, 10, 1 }, F, 0.5, 0.0, INFINITY, 1, 1, nm },
    };
    run_all(runs, sizeof runs / sizeof runs[0], 7100, 0);
}

static void gaussian_3d(void **state)
{
    (void)state;
    const uint64_t nm = UINT64_C(1) << 14;
    const struct run runs[] = {
        { 3, { 8, 8, 8 }, D, 0.5, 0.0, INFINITY, 1, 1, nm },
        { 3, { 8, 8, 8 }, F, 0.5, 0.0, INFINITY, 1, 1, nm },
        { 3, { 8, 8, 8 }, D, 0.5, 0.0, 3.0, 2, 1, nm },
        { 3, { 8, 8, 8 }, F, 0.5, 0.0, 3.0, 1, 1, nm },
    };
    run_all(runs, sizeof runs / sizeof runs[0], 7200, 12);
}

static void schwinger_dyson(void **state)
{
    (void)state;
    const struct run runs[] = {
        { 2, { 8, 8, 1 }, D, -0.5, 3.0, 2.0, 1, 1, UINT64_C(1) << 15 },
        { 2, { 10, 10, 1 }, F, 0.1, 1.0, 0.8, 2, 1, UINT64_C(1) << 15 },
        { 3, { 8, 8, 8 }, F, 0.2, 2.4, INFINITY, 1, 1, UINT64_C(1) << 13 },
        { 3, { 8, 8, 8 }, D, -1.0, 4.0, 1.0, 1, 1, UINT64_C(1) << 13 },
    };
    run_all(runs, sizeof runs / sizeof runs[0], 7300, 16);
}

int main(void)
{
    if (test_point_stride_check() != 0) /* LATMC_TEST_POINT_STRIDE */
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gaussian_2d),
        cmocka_unit_test(gaussian_3d),
        cmocka_unit_test(schwinger_dyson),
    };
    return cmocka_run_group_tests_name("phi4_gaussian", tests, NULL, NULL);
}
