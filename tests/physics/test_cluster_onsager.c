/*
 * 2D Ising by Swendsen-Wang and Wolff at large L against the infinite lattice's exact
 * results: Onsager's energy per site (1944) and Yang's spontaneous magnetisation
 * m = (1 - sinh(2 beta)^-4)^(1/8) (1952), within 4 binning sigma, at temperatures away from
 * T_c where the finite lattice's corrections are exponentially small in L / xi (xi at most a
 * few sites here), far below the errors; <e> also against Kaufman's exact energy of the
 * periodic L x L lattice (1949). Swendsen-Wang at beta 0.35 (disordered), 0.47 and 0.5
 * (ordered); Wolff at 0.47 and 0.5 (below T_c, where its one cluster is most of the lattice:
 * above, a sweep of Wolff's moves a few sites).
 * Runs on the backend LATMC_TEST_DEVICE names (tests/support/sim_helpers.h): meson runs it
 * on the CPU at L = 128 and, as "test_cluster_onsager cuda", on the CUDA backend at L = 1024
 * (skipped without a GPU). LATMC_TEST_ONSAGER_L=L and LATMC_TEST_ONSAGER_MEAS=N override
 * the size and the measurements.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exact_ising.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define MAX_SIGMA 4.0

/* A positive integer from the environment, or `fallback` (unset or not a number > 0). */
static long env_long(const char *name, long fallback)
{
    const char *v = getenv(name);
    char *end = NULL;
    const long x = v ? strtol(v, &end, 10) : 0;
    return v && end != v && *end == '\0' && x > 0 ? x : fallback;
}

/* Yang's spontaneous magnetisation of the infinite lattice (J = 1; 0 above T_c). */
static double yang_magnetisation(double beta)
{
    const double s = sinh(2.0 * beta);
    return s > 1.0 ? pow(1.0 - pow(s, -4.0), 0.125) : 0.0;
}

static void check_point(latmc_ctx *ctx, int L, int algorithm, double beta, uint64_t nmeas,
                        uint64_t seed)
{
    const bool wolff = algorithm == LATMC_ALGO_WOLFF;
    latmc_sim_desc d = ising_desc(2, L, L, 0, algorithm, 1, seed);
    d.device = test_device(); /* LATMC_TEST_DEVICE: cpu or cuda */
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    latmc_acc *acc = NULL;
    const double yang = yang_magnetisation(beta);
    /* below T_c from the cold start (from a hot one Wolff's first clusters are a few
     * sites); Wolff: two clusters a measurement, each most of the lattice there */
    assert_int_equal(mc_sample_from(sim, yang > 0.0 ? LATMC_INIT_COLD : LATMC_INIT_HOT,
                                    wolff ? 1000 : 200, nmeas, wolff ? 2 : 1, &acc),
                     LATMC_OK);
    const double onsager = exact_ising_onsager_energy(beta, 1.0);
    const double kaufman = exact_ising_kaufman_energy(L, L, beta, 1.0);
    char label[96];
    snprintf(label, sizeof label, "L=%d %s beta=%.2f <e> (Onsager)", L, wolff ? "wolff" : "sw",
             beta);
    assert_true(fabs(mc_deviation(acc, COL_E, onsager, label)) < MAX_SIGMA);
    snprintf(label, sizeof label, "L=%d %s beta=%.2f <e> (Kaufman)", L, wolff ? "wolff" : "sw",
             beta);
    assert_true(fabs(mc_deviation(acc, COL_E, kaufman, label)) < MAX_SIGMA);
    if (yang > 0.0) { /* above T_c <|m|> is of order L^-1, no infinite-lattice value */
        snprintf(label, sizeof label, "L=%d %s beta=%.2f <|m|> (Yang)", L,
                 wolff ? "wolff" : "sw", beta);
        assert_true(fabs(mc_deviation(acc, COL_ABSM, yang, label)) < MAX_SIGMA);
    }
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
}

static void onsager_yang(void **state)
{
    (void)state;
    const bool cuda = test_device() == LATMC_DEVICE_CUDA;
    const int L = (int)env_long("LATMC_TEST_ONSAGER_L", cuda ? 1024 : 128);
    const uint64_t nmeas = (uint64_t)env_long("LATMC_TEST_ONSAGER_MEAS", cuda ? 20000 : 2500);
    printf("2D Ising %d x %d, %llu measurements a point\n", L, L, (unsigned long long)nmeas);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    static const double sw_betas[3] = { 0.35, 0.47, 0.5 };
    for (int b = 0; b < 3; b++)
        check_point(ctx, L, LATMC_ALGO_SWENDSEN_WANG, sw_betas[b], nmeas, 7100 + (uint64_t)b);
    for (int b = 1; b < 3; b++)
        check_point(ctx, L, LATMC_ALGO_WOLFF, sw_betas[b], nmeas, 7200 + (uint64_t)b);
    latmc_ctx_destroy(&ctx);
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
        cmocka_unit_test(onsager_yang),
    };
    return cmocka_run_group_tests_name("cluster_onsager", tests, NULL, NULL);
}
