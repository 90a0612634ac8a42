/*
 * Overrelaxation is microcanonical: s -> 2 (H.s)/(H.H) H - s keeps every s . H, so the
 * energy stays what it was, up to float rounding of the stored spins. On an 8^3 Gaussian
 * spin glass, from a configuration thermalised by heat bath at beta = 1, 1000 OVERRELAX
 * sweeps (one pass each: nover = 0 runs max(nover, 1) = 1 pass) keep the energy to a
 * relative 1e-5, with h = 0 and with a field, while the configuration itself moves far.
 * OVERRELAX alone attempts no counted updates: the acceptance is then LATMC_ESTATE.
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

#include "heisenberg_test_helpers.h"

#define L 8
#define NSWEEPS 1000
#define MAX_DRIFT 1e-5

static void energy_conserved(double h, uint64_t seed)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    /* thermalise with heat bath: an overrelaxation test from a random start would test a
     * configuration of energy ~0, where a relative drift means nothing */
    latmc_sim_desc d = heisenberg_desc(3, L, L, L, 1, LATMC_COUPLINGS_GAUSSIAN,
                                       LATMC_ALGO_HEATBATH, 1, seed);
    latmc_sim *hb = NULL, *ov = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &hb), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(hb, LATMC_PARAM_BETA, 1.0), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(hb, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(hb, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(hb, 200), LATMC_OK);
    size_t bytes = 0, nc = 0;
    assert_int_equal(latmc_sim_spins_size(hb, &bytes), LATMC_OK);
    assert_int_equal(latmc_sim_couplings_size(hb, &nc), LATMC_OK);
    float *start = malloc(bytes), *end = malloc(bytes);
    float *J0 = malloc(nc * sizeof *J0), *J1 = malloc(nc * sizeof *J1);
    assert_non_null(start);
    assert_non_null(end);
    assert_non_null(J0);
    assert_non_null(J1);
    assert_int_equal(latmc_sim_get_spins(hb, start, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(hb, J0, nc), LATMC_OK);

    /* the same disorder (same coupling_seed), overrelaxation only */
    d.algorithm = LATMC_ALGO_OVERRELAX;
    assert_int_equal(latmc_sim_create(ctx, &d, &ov), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(ov, J1, nc), LATMC_OK);
    assert_memory_equal(J0, J1, nc * sizeof *J0);
    assert_int_equal(latmc_sim_set_param(ov, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(ov, start, bytes), LATMC_OK);
    double e0 = 0.0, worst = 0.0;
    assert_int_equal(latmc_sim_observable(ov, LATMC_OBS_ENERGY, &e0), LATMC_OK);
    assert_true(e0 < -0.5); /* thermalised: well below the random-configuration energy 0 */
    for (int t = 0; t < NSWEEPS; t += 100) {
        double e = 0.0;
        assert_int_equal(latmc_sim_sweep(ov, 100), LATMC_OK);
        assert_int_equal(latmc_sim_observable(ov, LATMC_OBS_ENERGY, &e), LATMC_OK);
        const double drift = fabs(e - e0) / fabs(e0);
        worst = drift > worst ? drift : worst;
    }
    double acc = 0.0;
    assert_int_equal(latmc_sim_observable(ov, LATMC_OBS_ACCEPTANCE, &acc), LATMC_ESTATE);

    /* it moved: the mean s_i(0) . s_i(end) is far from 1 */
    assert_int_equal(latmc_sim_get_spins(ov, end, bytes), LATMC_OK);
    double same = 0.0;
    for (int64_t i = 0; i < L * L * L; i++)
        same += (double)start[3 * i] * end[3 * i] + (double)start[3 * i + 1] * end[3 * i + 1] +
                (double)start[3 * i + 2] * end[3 * i + 2];
    same /= L * L * L;
    printf("h = %.2f: e0 = %.9f, largest relative energy drift over %d sweeps %.2e "
           "(limit %.0e); mean s(0).s(end) = %.3f\n", h, e0, NSWEEPS, worst, MAX_DRIFT, same);
    assert_true(worst < MAX_DRIFT);
    assert_true(same < 0.5);
    free(start);
    free(end);
    free(J0);
    free(J1);
    latmc_sim_destroy(&hb);
    latmc_sim_destroy(&ov);
    latmc_ctx_destroy(&ctx);
}

static void energy_conserved_zero_field(void **state)
{
    (void)state;
    energy_conserved(0.0, 7001);
}

static void energy_conserved_with_field(void **state)
{
    (void)state;
    energy_conserved(0.7, 7002);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(energy_conserved_zero_field),
        cmocka_unit_test(energy_conserved_with_field),
    };
    return cmocka_run_group_tests_name("heisenberg_overrelax", tests, NULL, NULL);
}
