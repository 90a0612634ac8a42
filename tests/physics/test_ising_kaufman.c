/*
 * 2D Ising Monte Carlo against Kaufman's exact partition function of the periodic L x L
 * lattice (1949): energy per site and specific heat at L = 16 and 32, beta = 0.3,
 * beta_c = ln(1 + sqrt 2)/2 and 0.6, for Metropolis and heat bath, within 4 sigma
 * (binning error for the energy, jackknife error for the specific heat).
 * Runs on the backend LATMC_TEST_DEVICE names (tests/support/sim_helpers.h): meson runs it
 * on the CPU and, as "test_ising_kaufman cuda", on the CUDA backend (skipped without a GPU).
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

#define MAX_SIGMA 4.0

static void check_size(int L, uint64_t nmeas)
{
    const double beta_c = 0.5 * log(1.0 + sqrt(2.0));
    const double betas[] = { 0.3, beta_c, 0.6 };
    const int algorithms[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    uint64_t seed = 900 + (uint64_t)L;
    unsigned point = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++) {
            if (!test_point_selected(point++ + (L == 32 ? 6 : 0))) { /* LATMC_TEST_POINT_STRIDE */
                seed++;
                continue;
            }
            struct exact_ising_kaufman_result ex;
            assert_int_equal(exact_ising_kaufman_eval(L, L, betas[b], 1.0, &ex), 0);
            latmc_sim_desc d = ising_desc(2, L, L, 0, algorithms[a], 1, seed++);
            d.device = test_device(); /* LATMC_TEST_DEVICE: cpu or cuda */
            latmc_sim *sim = NULL;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
            latmc_acc *acc = NULL;
            assert_int_equal(mc_sample_ising(sim, 2000, nmeas, &acc), LATMC_OK);
            char label[96];
            snprintf(label, sizeof label, "L=%d %s beta=%.4f <e>", L, a == 0 ? "metro" : "heatb",
                     betas[b]);
            assert_true(fabs(mc_deviation(acc, COL_E, ex.e, label)) < MAX_SIGMA);

            double c = 0, c_err = 0;
            const double n = (double)L * L;
            assert_int_equal(latmc_acc_specific_heat(acc, COL_E, betas[b] * betas[b] * n, 32, &c,
                                                     &c_err), LATMC_OK);
            double dev = (c - ex.c) / c_err;
            printf("%-44s %.6f +- %.6f  exact %.6f  %+5.2f sigma\n", "  specific heat", c, c_err,
                   ex.c, dev);
            assert_true(fabs(dev) < MAX_SIGMA);
            latmc_acc_destroy(&acc);
            latmc_sim_destroy(&sim);
        }
    latmc_ctx_destroy(&ctx);
}

static void lattice_16(void **state)
{
    (void)state;
    check_size(16, UINT64_C(1) << 16);
}

static void lattice_32(void **state)
{
    (void)state;
    check_size(32, UINT64_C(1) << 16);
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
        cmocka_unit_test(lattice_16),
        cmocka_unit_test(lattice_32),
    };
    return cmocka_run_group_tests_name("ising_kaufman", tests, NULL, NULL);
}
