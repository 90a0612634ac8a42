/*
 * Cluster updates (Swendsen-Wang, Wolff) against exact results that carry no statistical
 * error: full enumeration of the Ising 4x4 square and 2x2x2 cube (h = 0 and a field, the
 * field handled by the clusters' heat bath), the +-J 4x4 lattice (exact sum over its
 * 2^16 states), the q = 3 Potts 3x3 torus (h = 0 and a field), and Kaufman's exact
 * energy of the periodic 16x16 and 64x64 lattices at beta_c; the improved estimator of
 * <m^2> (LATMC_OBS_CLUSTER_M2) against the exact <m^2>. Each mean within 4 sigma of its
 * binning error; fixed seeds.
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
#include "exact_ising_coupled.h"
#include "exact_potts.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define NMEAS (UINT64_C(1) << 16)
#define MAX_SIGMA 4.0

static const int algorithms[2] = { LATMC_ALGO_SWENDSEN_WANG, LATMC_ALGO_WOLFF };
static const char *algo_name[2] = { "SW", "Wolff" };

/* Wolff updates one cluster per sweep: at high temperature its clusters are small, so it
 * sweeps `every` times between measurements. */
static int sample(latmc_sim *sim, uint64_t therm, uint64_t nmeas, int every, latmc_acc **out)
{
    return mc_sample_every(sim, therm, nmeas, (uint64_t)every, out);
}

static void check_ising(int ndim, const int *extent)
{
    const double betas[] = { 0.2, 0.44, 0.6 };
    const double fields[] = { 0.0, 0.1 };
    struct exact_ising_hist hist;
    assert_int_equal(exact_ising_hist_build(ndim, extent, &hist), 0);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    uint64_t seed = 700 + (uint64_t)ndim;
    double worst = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int f = 0; f < 2; f++) {
                struct exact_ising_moments ex;
                assert_int_equal(exact_ising_hist_moments(&hist, betas[b], 1.0, fields[f], &ex), 0);
                latmc_sim_desc d = ising_desc(ndim, extent[0], extent[1],
                                              ndim == 3 ? extent[2] : 0, algorithms[a], 1,
                                              seed++);
                latmc_sim *sim = NULL;
                assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, fields[f]), LATMC_OK);
                latmc_acc *acc = NULL;
                assert_int_equal(sample(sim, 1000, NMEAS, a == 1 ? 4 : 1, &acc), LATMC_OK);
                char prefix[64];
                snprintf(prefix, sizeof prefix, "%dD %s beta=%.2f h=%.1f", ndim, algo_name[a],
                         betas[b], fields[f]);
                /* <m> where a field breaks the symmetry: clusters tunnel freely */
                const double dev = mc_ising_moments_deviation(acc, &ex, fields[f] != 0.0, prefix);
                worst = dev > worst ? dev : worst;
                assert_true(dev < MAX_SIGMA);
                latmc_acc_destroy(&acc);
                latmc_sim_destroy(&sim);
            }
    printf("largest deviation: %.2f sigma\n", worst);
    exact_ising_hist_free(&hist);
    latmc_ctx_destroy(&ctx);
}

static void ising_4x4(void **state)
{
    (void)state;
    const int extent[2] = { 4, 4 };
    check_ising(2, extent);
}

static void ising_2x2x2(void **state)
{
    (void)state;
    const int extent[3] = { 2, 2, 2 };
    check_ising(3, extent);
}

/* The +-J model: bonds only between satisfied pairs, p = 1 - exp(-2 beta |J|). */
static void ising_pmj_4x4(void **state)
{
    (void)state;
    const int extent[2] = { 4, 4 };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int a = 0; a < 2; a++) {
        latmc_sim_desc d = ising_desc(2, 4, 4, 0, algorithms[a], 1, 811 + (uint64_t)a);
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.coupling_seed = 5;
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        const double beta = 0.8, h = 0.2;
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
        float c[32];
        double eps[32];
        assert_int_equal(latmc_sim_get_couplings(sim, c, 32), LATMC_OK);
        int negative = 0;
        for (int k = 0; k < 32; k++) {
            eps[k] = c[k];
            negative += c[k] < 0;
        }
        assert_true(negative > 4 && negative < 28); /* frustrated, not a gauge of uniform */
        struct exact_ising_moments ex;
        assert_int_equal(exact_ising_coupled_moments(2, extent, eps, beta, 1.0, h, &ex), 0);
        latmc_acc *acc = NULL;
        assert_int_equal(sample(sim, 1000, NMEAS, a == 1 ? 4 : 1, &acc), LATMC_OK);
        char prefix[64];
        snprintf(prefix, sizeof prefix, "+-J 4x4 %s beta=%.1f h=%.1f", algo_name[a], beta, h);
        assert_true(mc_ising_moments_deviation(acc, &ex, true, prefix) < MAX_SIGMA);
        latmc_acc_destroy(&acc);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

static void potts_q3_3x3(void **state)
{
    (void)state;
    const int extent[2] = { 3, 3 };
    struct exact_potts_hist hist;
    assert_int_equal(exact_potts_hist_build(2, extent, 3, &hist), 0);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double betas[] = { 0.5, 1.0, 1.5 }, fields[] = { 0.0, 0.2 };
    uint64_t seed = 930;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 3; b++)
            for (int f = 0; f < 2; f++) {
                struct exact_potts_moments ex;
                assert_int_equal(exact_potts_hist_moments(&hist, betas[b], 1.0, fields[f], &ex), 0);
                latmc_sim_desc d = ising_desc(2, 3, 3, 0, algorithms[a], 1, seed++);
                d.model = LATMC_MODEL_POTTS;
                d.q = 3;
                latmc_sim *sim = NULL;
                assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, fields[f]), LATMC_OK);
                latmc_acc *acc = NULL;
                assert_int_equal(sample(sim, 1000, NMEAS, a == 1 ? 4 : 1, &acc), LATMC_OK);
                const int cols[] = { COL_E, COL_M, COL_M2, COL_M4 };
                const double exact[] = { ex.e, ex.m, ex.m2, ex.m4 };
                const char *names[] = { "<e>", "<m>", "<m^2>", "<m^4>" };
                for (int c = 0; c < 4; c++) {
                    char label[96];
                    snprintf(label, sizeof label, "q3 3x3 %s b=%.2f h=%.1f %s", algo_name[a],
                             betas[b], fields[f], names[c]);
                    assert_true(fabs(mc_deviation(acc, cols[c], exact[c], label)) < MAX_SIGMA);
                }
                latmc_acc_destroy(&acc);
                latmc_sim_destroy(&sim);
            }
    exact_potts_hist_free(&hist);
    latmc_ctx_destroy(&ctx);
}

/*
 * The improved estimator: the mean of LATMC_OBS_CLUSTER_M2 (sum |C|^2 / N^2 of a
 * Swendsen-Wang sweep, |C| / N of a Wolff cluster) is the exact <m^2> at h = 0. Also the
 * observables' refusals.
 */
static void improved_m2(void **state)
{
    (void)state;
    const int extent[2] = { 4, 4 };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double betas[] = { 0.3, 0.44 };
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) {
            struct exact_ising_moments ex;
            assert_int_equal(exact_ising_enumerate(2, extent, betas[b], 1.0, 0.0, &ex), 0);
            const uint64_t seed = 990 + (uint64_t)(2 * a + b);
            latmc_sim_desc d = ising_desc(2, 4, 4, 0, algorithms[a], 1, seed);
            latmc_sim *sim = NULL;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
            assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
            double v = 0;
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTER_M2, &v), LATMC_ESTATE);
            assert_int_equal(latmc_sim_sweep(sim, 500), LATMC_OK);
            latmc_acc *acc = NULL;
            assert_int_equal(latmc_acc_create(&acc, 3), LATMC_OK);
            for (uint64_t t = 0; t < NMEAS; t++) {
                double row[3];
                assert_int_equal(latmc_sim_sweep(sim, a == 1 ? 2 : 1), LATMC_OK);
                const int keys[3] = { LATMC_OBS_CLUSTER_M2, LATMC_OBS_CLUSTERS,
                                      LATMC_OBS_LARGEST_CLUSTER };
                for (int c = 0; c < 3; c++)
                    assert_int_equal(latmc_sim_observable(sim, keys[c], &row[c]), LATMC_OK);
                assert_true(row[1] >= 1 && row[1] <= (a == 1 ? 1 : 16));
                assert_true(row[2] > 0 && row[2] <= 1 && row[0] <= row[2]);
                assert_int_equal(latmc_acc_push(acc, row, 3), LATMC_OK);
            }
            char label[64];
            snprintf(label, sizeof label, "4x4 %s beta=%.2f cluster <m^2>", algo_name[a], betas[b]);
            assert_true(fabs(mc_deviation(acc, 0, ex.m2, label)) < MAX_SIGMA);
            latmc_acc_destroy(&acc);
            latmc_sim_destroy(&sim);
        }
    /* only cluster algorithms have them */
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    double v = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_EUNSUPPORTED);
    assert_string_equal(latmc_observable_name(LATMC_OBS_CLUSTER_M2), "cluster_m2");
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Kaufman's exact energy of the periodic L x L lattice at beta_c (Swendsen-Wang; Wolff
 * at 16 only, where its clusters cover a good part of the lattice). */
static void kaufman_beta_c(void **state)
{
    (void)state;
    const double beta_c = 0.5 * log(1.0 + sqrt(2.0));
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct { int L, a, every; uint64_t nmeas; } runs[] = {
        { 16, 0, 1, 40000 }, { 16, 1, 8, 40000 }, { 64, 0, 1, 8000 },
    };
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        const int L = runs[r].L;
        latmc_sim_desc d = ising_desc(2, L, L, 0, algorithms[runs[r].a], 0, 950 + r);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta_c), LATMC_OK);
        latmc_acc *acc = NULL;
        assert_int_equal(sample(sim, 500, runs[r].nmeas, runs[r].every, &acc), LATMC_OK);
        char label[64];
        snprintf(label, sizeof label, "L=%d %s beta_c <e>", L, algo_name[runs[r].a]);
        const double exact = exact_ising_kaufman_energy(L, L, beta_c, 1.0);
        assert_true(fabs(mc_deviation(acc, COL_E, exact, label)) < MAX_SIGMA);
        latmc_acc_destroy(&acc);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ising_4x4),
        cmocka_unit_test(ising_2x2x2),
        cmocka_unit_test(ising_pmj_4x4),
        cmocka_unit_test(potts_q3_3x3),
        cmocka_unit_test(improved_m2),
        cmocka_unit_test(kaufman_beta_c),
    };
    return cmocka_run_group_tests_name("cluster_enumeration", tests, NULL, NULL);
}
