/*
 * q = 2 Potts against the exact Ising enumeration (tests/support/exact_ising.c) through
 * delta(s, s') = (1 + S S') / 2, delta(s, 0) = (1 + S) / 2 (S = +1 for s = 0):
 *   H_Potts(J, h) = H_Ising(J/2, h/2) - N (J ndim + h) / 2,   m_Potts = |M| / N,
 * so <e>_Potts(beta, J, h) = <e>_Ising(beta, J/2, h/2) - (J ndim + h) / 2 and
 * <m>, <m^2> are the Ising <|m|>, <m^2>. 4x4 square (Ising beta_c 0.4407 is Potts 0.8814)
 * and 2x2x2 cube, Metropolis, heat bath, Swendsen-Wang and Wolff (the Potts cluster
 * decisions at q = 2, in a field too), h = 0 and h = 0.2; 4 sigma of binning errors.
 * Runs on the backend LATMC_TEST_DEVICE names (tests/support/sim_helpers.h): meson runs it
 * on the CPU and, as "test_potts_ising cuda", on the CUDA backend (skipped without a GPU).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "exact_ising.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define NMEAS (UINT64_C(1) << 17)
#define MAX_SIGMA 4.0

static void check_lattice(int ndim, const int *extent, const double *betas, uint64_t seed)
{
    struct exact_ising_hist hist;
    assert_int_equal(exact_ising_hist_build(ndim, extent, &hist), 0);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double fields[] = { 0.0, 0.2 }, J = 1.0;
    double worst = 0;
    unsigned point = 0;
    static const int algorithms[4] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH,
                                       LATMC_ALGO_SWENDSEN_WANG, LATMC_ALGO_WOLFF };
    static const char *const algorithm_names[4] = { "metro", "heatb", "sw", "wolff" };
    for (int k = 0; k < 4; k++)
        for (int b = 0; b < 3; b++)
            for (int f = 0; f < 2; f++) {
                if (!test_point_selected(point++)) { /* LATMC_TEST_POINT_STRIDE */
                    seed++;
                    continue;
                }
                const double beta = betas[b], h = fields[f];
                struct exact_ising_moments ex;
                assert_int_equal(exact_ising_hist_moments(&hist, beta, J / 2, h / 2, &ex), 0);
                latmc_sim_desc d = ising_desc(ndim, extent[0], extent[1],
                                              ndim == 3 ? extent[2] : 0, algorithms[k], 1,
                                              seed++);
                d.device = test_device(); /* LATMC_TEST_DEVICE: cpu or cuda */
                d.model = LATMC_MODEL_POTTS;
                d.q = 2;
                latmc_sim *sim = NULL;
                assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, J), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
                latmc_acc *acc = NULL;
                assert_int_equal(mc_sample_ising(sim, 1000, NMEAS, &acc), LATMC_OK);
                double acceptance = 0;
                assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acceptance),
                                 LATMC_OK);
                const int cols[] = { COL_E, COL_M, COL_M2 };
                const double exact[] = { ex.e - (J * ndim + h) / 2, ex.absm, ex.m2 };
                const char *names[] = { "<e>", "<m>=<|m|>_I", "<m^2>" };
                for (int c = 0; c < 3; c++) {
                    char label[96];
                    snprintf(label, sizeof label, "q2 %dD %s b=%.2f h=%.1f %s", ndim,
                             algorithm_names[k], beta, h, names[c]);
                    const double dev = mc_deviation(acc, cols[c], exact[c], label);
                    worst = fabs(dev) > worst ? fabs(dev) : worst;
                    assert_true(fabs(dev) < MAX_SIGMA);
                }
                printf("    acceptance %.3f\n", acceptance);
                latmc_acc_destroy(&acc);
                latmc_sim_destroy(&sim);
            }
    printf("largest deviation on this lattice: %.2f sigma\n", worst);
    exact_ising_hist_free(&hist);
    latmc_ctx_destroy(&ctx);
}

static void square_4x4(void **state)
{
    (void)state;
    const int extent[] = { 4, 4 };
    const double betas[] = { 0.4, 0.88, 1.2 };
    check_lattice(2, extent, betas, 600);
}

static void cube_2x2x2(void **state)
{
    (void)state;
    const int extent[] = { 2, 2, 2 };
    const double betas[] = { 0.3, 0.6, 1.0 };
    check_lattice(3, extent, betas, 700);
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    /* LATMC_TEST_DEVICE=cuda: the same test on the CUDA backend (skipped without a GPU) */
    const int device_status = test_device_check();
    if (device_status != 0)
        return device_status;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(square_4x4),
        cmocka_unit_test(cube_2x2x2),
    };
    return cmocka_run_group_tests_name("potts_ising", tests, NULL, NULL);
}
