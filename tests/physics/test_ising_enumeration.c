/*
 * Ising Monte Carlo against full enumeration of all 2^N states: the 4x4 square lattice
 * (65536 states) and the 2x2x2 cube (256 states; on extent 2 both bonds between a pair
 * count, in the enumeration as in the library). <E>, <|M|>, <M^2>, <M^4> per site at
 * beta 0.2, 0.44, 0.6 and h = 0, 0.1, for Metropolis and heat bath, each within 4 sigma
 * of its binning error. Fixed seeds: deterministic, and still fails if the physics is wrong.
 * Runs on the backend LATMC_TEST_DEVICE names (tests/support/sim_helpers.h): meson runs it
 * on the CPU and, as "test_ising_enumeration cuda", on the CUDA backend (skipped without a GPU).
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

/* The 2x2x2 cube at beta 0.6, h 0.1 tunnels rarely between the two ordered states
 * (energy tau_int ~ 300-1500 sweeps), so it gets more measurements. */
#define NMEAS_2D (UINT64_C(1) << 17)
#define NMEAS_3D (UINT64_C(1) << 18)
#define MAX_SIGMA 4.0

static void check_lattice(int ndim, const int *extent)
{
    const double betas[] = { 0.2, 0.44, 0.6 };
    const double fields[] = { 0.0, 0.1 };
    const int algorithms[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    struct exact_ising_hist hist;
    assert_int_equal(exact_ising_hist_build(ndim, extent, &hist), 0);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    double worst = 0;
    uint64_t seed = 500;
    unsigned point = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int f = 0; f < 2; f++) {
                if (!test_point_selected(point++)) { /* LATMC_TEST_POINT_STRIDE */
                    seed++;
                    continue;
                }
                struct exact_ising_moments ex;
                assert_int_equal(exact_ising_hist_moments(&hist, betas[b], 1.0, fields[f], &ex), 0);
                latmc_sim_desc d = ising_desc(ndim, extent[0], extent[1], ndim == 3 ? extent[2] : 0,
                                              algorithms[a], 1, seed++);
                d.device = test_device(); /* LATMC_TEST_DEVICE: cpu or cuda */
                latmc_sim *sim = NULL;
                assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, fields[f]), LATMC_OK);
                latmc_acc *acc = NULL;
                assert_int_equal(mc_sample_ising(sim, 1000, ndim == 2 ? NMEAS_2D : NMEAS_3D, &acc), LATMC_OK);
                /* <m> as well where the field breaks the symmetry and the chain still
                 * tunnels often enough between the ordered states (beta <= 0.44; at 0.6 its
                 * tau_int reaches thousands of sweeps, too long for a binning error). */
                const bool check_m = fields[f] != 0.0 && betas[b] < 0.5;
                char prefix[64];
                snprintf(prefix, sizeof prefix, "%dD %s beta=%.2f h=%.1f", ndim,
                         a == 0 ? "metro" : "heatb", betas[b], fields[f]);
                const double dev = mc_ising_moments_deviation(acc, &ex, check_m, prefix);
                if (dev > worst)
                    worst = dev;
                assert_true(dev < MAX_SIGMA);
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
    check_lattice(2, extent);
}

static void cube_2x2x2(void **state)
{
    (void)state;
    const int extent[] = { 2, 2, 2 };
    check_lattice(3, extent);
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
    return cmocka_run_group_tests_name("ising_enumeration", tests, NULL, NULL);
}
