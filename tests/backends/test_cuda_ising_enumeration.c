/*
 * Physics on the CUDA backend: Ising Monte Carlo on the GPU against the full enumeration
 * of all 2^N states (tests/support/exact_ising.c), as tests/physics/test_ising_enumeration.c
 * does on the CPU: the 4x4 square lattice at beta 0.44 (h = 0 and 0.1) and the 2x2x2 cube
 * at beta 0.3, h = 0.1, Metropolis and heat bath, <E>, <|M|>, <M^2>, <M^4> (and <M> where the
 * field breaks the symmetry) within 4 sigma of their binning errors. Fixed seeds.
 * Exits 77 (skipped) when the CUDA backend is unavailable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exact_ising.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define NMEAS (UINT64_C(1) << 16)
#define MAX_SIGMA 4.0

struct point {
    double beta, h;
};

static void check_lattice(int ndim, const int *extent, const struct point *points, int npoints)
{
    const int algorithms[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    struct exact_ising_hist hist;
    assert_int_equal(exact_ising_hist_build(ndim, extent, &hist), 0);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    double worst = 0;
    uint64_t seed = 9100;
    for (int a = 0; a < 2; a++)
        for (int p = 0; p < npoints; p++) {
            struct exact_ising_moments ex;
            assert_int_equal(exact_ising_hist_moments(&hist, points[p].beta, 1.0, points[p].h, &ex), 0);
            latmc_sim_desc d = ising_desc(ndim, extent[0], extent[1], ndim == 3 ? extent[2] : 0,
                                          algorithms[a], 0, seed++);
            d.device = LATMC_DEVICE_CUDA;
            latmc_sim *sim = NULL;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_string_equal(latmc_sim_backend_name(sim), "cuda");
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, points[p].beta), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, points[p].h), LATMC_OK);
            latmc_acc *acc = NULL;
            int st = mc_sample_ising(sim, 1000, NMEAS, &acc);
            if (st != LATMC_OK)
                print_error("sampling on CUDA: %s\n", latmc_sim_last_error(sim));
            assert_int_equal(st, LATMC_OK);
            char prefix[64];
            snprintf(prefix, sizeof prefix, "cuda %dD %s beta=%.2f h=%.1f", ndim,
                     a == 0 ? "metro" : "heatb", points[p].beta, points[p].h);
            const double dev = mc_ising_moments_deviation(acc, &ex, points[p].h != 0.0, prefix);
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
    const struct point points[] = { { 0.44, 0.0 }, { 0.44, 0.1 } };
    check_lattice(2, extent, points, 2);
}

static void cube_2x2x2(void **state)
{
    (void)state;
    const int extent[] = { 2, 2, 2 };
    const struct point points[] = { { 0.3, 0.1 } };
    check_lattice(3, extent, points, 1);
}

int main(void)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, LATMC_ALGO_METROPOLIS, 0, 1);
    d.device = LATMC_DEVICE_CUDA;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    int st = latmc_sim_create(ctx, &d, &sim);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    if (st == LATMC_EBACKEND || st == LATMC_ENODEV) {
        const char *why = latmc_last_error();
        const char *prefix = "CUDA backend unavailable: ";
        printf("%s%s\n", strncmp(why, prefix, strlen(prefix)) == 0 ? "" : prefix, why);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(square_4x4),
        cmocka_unit_test(cube_2x2x2),
    };
    return cmocka_run_group_tests_name("cuda_ising_enumeration", tests, NULL, NULL);
}
