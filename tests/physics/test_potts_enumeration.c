/*
 * Potts Monte Carlo against full enumeration of every state (tests/support/exact_potts.c):
 * q = 3 on the 3x3 torus (19683 states; three colours), q = 4 on the 2x2 torus (256
 * states; on extent 2 both bonds between a pair count, in the enumeration as in the
 * library) and q = 3 on the 2x2x2 cube (6561 states). <e>, <m>, <m^2> and <m^4> per site at
 * three temperatures around the transition (2D q = 3: beta_c = ln(1 + sqrt 3) ~ 1.005),
 * h = 0 and h != 0, Metropolis and heat bath, plus an antiferromagnet (J < 0) in a field;
 * each within 4 sigma of its binning error. Fixed seeds: deterministic, and still fails
 * if the physics is wrong.
 * Runs on the backend LATMC_TEST_DEVICE names (tests/support/sim_helpers.h): meson runs it
 * on the CPU and, as "test_potts_enumeration cuda", on the CUDA backend (skipped without a GPU).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "exact_potts.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define NMEAS (UINT64_C(1) << 17)
#define MAX_SIGMA 4.0

struct lattice {
    const char *name;
    int ndim;
    int extent[3];
    int q;
    double betas[3];
};

struct point {
    double beta, J, h;
};

static double g_worst = 0;

static void check_point(latmc_ctx *ctx, const struct lattice *lat,
                        const struct exact_potts_hist *hist, int algorithm, struct point pt,
                        uint64_t seed)
{
    struct exact_potts_moments ex;
    assert_int_equal(exact_potts_hist_moments(hist, pt.beta, pt.J, pt.h, &ex), 0);
    latmc_sim_desc d = ising_desc(lat->ndim, lat->extent[0], lat->extent[1],
                                  lat->ndim == 3 ? lat->extent[2] : 0, algorithm, 1, seed);
    d.device = test_device(); /* LATMC_TEST_DEVICE: cpu or cuda */
    d.model = LATMC_MODEL_POTTS;
    d.q = lat->q;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, pt.beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, pt.J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, pt.h), LATMC_OK);
    latmc_acc *acc = NULL;
    assert_int_equal(mc_sample_ising(sim, 1000, NMEAS, &acc), LATMC_OK);
    double acceptance = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acceptance), LATMC_OK);
    /* for Potts, MAGNETIZATION = ABS_MAGNETIZATION = m >= 0 */
    const int cols[] = { COL_E, COL_M, COL_M2, COL_M4 };
    const double exact[] = { ex.e, ex.m, ex.m2, ex.m4 };
    const char *names[] = { "<e>", "<m>", "<m^2>", "<m^4>" };
    for (int c = 0; c < 4; c++) {
        char label[96];
        snprintf(label, sizeof label, "%s %s b=%.2f J=%+.0f h=%.1f %s", lat->name,
                 algorithm == LATMC_ALGO_METROPOLIS ? "metro" : "heatb", pt.beta, pt.J, pt.h,
                 names[c]);
        const double dev = mc_deviation(acc, cols[c], exact[c], label);
        g_worst = fabs(dev) > g_worst ? fabs(dev) : g_worst;
        assert_true(fabs(dev) < MAX_SIGMA);
    }
    printf("    acceptance %.3f\n", acceptance);
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
}

static void check_lattice(const struct lattice *lat, uint64_t seed)
{
    struct exact_potts_hist hist;
    assert_int_equal(exact_potts_hist_build(lat->ndim, lat->extent, lat->q, &hist), 0);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    g_worst = 0;
    const double fields[] = { 0.0, 0.2 };
    unsigned index = 0; /* LATMC_TEST_POINT_STRIDE: the points that run keep their seeds */
    for (int a = LATMC_ALGO_METROPOLIS; a <= LATMC_ALGO_HEATBATH; a++) {
        for (int b = 0; b < 3; b++)
            for (int f = 0; f < 2; f++, seed++) {
                const struct point pt = { lat->betas[b], 1.0, fields[f] };
                if (test_point_selected(index++))
                    check_point(ctx, lat, &hist, a, pt, seed);
            }
        const struct point afm = { lat->betas[1], -1.0, 0.3 };
        if (test_point_selected(index++))
            check_point(ctx, lat, &hist, a, afm, seed);
        seed++;
    }
    printf("%s: largest deviation %.2f sigma\n", lat->name, g_worst);
    exact_potts_hist_free(&hist);
    latmc_ctx_destroy(&ctx);
}

static void q3_square_3x3(void **state)
{
    (void)state;
    const struct lattice lat = { "q3 3x3", 2, { 3, 3, 0 }, 3, { 0.5, 1.0, 1.5 } };
    check_lattice(&lat, 300);
}

static void q4_square_2x2(void **state)
{
    (void)state;
    const struct lattice lat = { "q4 2x2", 2, { 2, 2, 0 }, 4, { 0.3, 0.6, 1.0 } };
    check_lattice(&lat, 400);
}

static void q3_cube_2x2x2(void **state)
{
    (void)state;
    const struct lattice lat = { "q3 2x2x2", 3, { 2, 2, 2 }, 3, { 0.2, 0.4, 0.7 } };
    check_lattice(&lat, 500);
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
        cmocka_unit_test(q3_square_3x3),
        cmocka_unit_test(q4_square_2x2),
        cmocka_unit_test(q3_cube_2x2x2),
    };
    return cmocka_run_group_tests_name("potts_enumeration", tests, NULL, NULL);
}
