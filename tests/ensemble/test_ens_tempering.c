/*
 * Parallel tempering samples the right distribution: a 4x4 Ising ferromagnet at six
 * temperatures, exchanges after every sweep. Per temperature (whichever member holds it)
 * <e> and <|m|> must agree with exact enumeration, and the swap acceptance of each pair
 * with the exact value
 *     A(t, t+1) = sum_{E, E'} P_t(E) P_{t+1}(E') min(1, exp((beta_{t+1} - beta_t)(E' - E)))
 * from the exact energy distributions, each within 4 binning errors. Also checks that
 * temperatures do travel (round trips happen).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "ens_test_helpers.h"
#include "exact_ising.h"
#include "mc_sampling.h"

#define NT 6
#define NS 8
#define L 4
#define THERM 1000
#define PAIRS_MEAS 6000 /* measured rounds per pair: 2 sweeps each */

static const double beta[NT] = { 0.15, 0.25, 0.35, 0.45, 0.55, 0.7 };

/* Exact P_t(E) of the 4x4 lattice: p[t][u], E = -(nterms - 2u) (J = 1, h = 0). */
static void exact_energy_distribution(const struct exact_ising_hist *h, double p[NT][64])
{
    for (int t = 0; t < NT; t++) {
        double z = 0, w[64] = { 0 }, emin = -(double)h->nterms;
        for (int u = 0; u <= h->nterms; u++) {
            uint64_t g = 0;
            for (int d = 0; d <= h->nsites; d++)
                g += exact_ising_hist_count(h, u, d);
            const double e = -(double)(h->nterms - 2 * u);
            w[u] = (double)g * exp(-beta[t] * (e - emin));
            z += w[u];
        }
        for (int u = 0; u <= h->nterms; u++)
            p[t][u] = w[u] / z;
    }
}

static double exact_acceptance(const struct exact_ising_hist *h, double p[NT][64], int t)
{
    double a = 0;
    for (int u = 0; u <= h->nterms; u++)
        for (int v = 0; v <= h->nterms; v++) {
            const double e = -(double)(h->nterms - 2 * u), e2 = -(double)(h->nterms - 2 * v);
            const double x = (beta[t + 1] - beta[t]) * (e2 - e);
            a += p[t][u] * p[t + 1][v] * (x >= 0 ? 1.0 : exp(x));
        }
    return a;
}

static void test_tempering_exact(void **state)
{
    (void)state;
    const int extent[2] = { L, L };
    struct exact_ising_hist hist;
    assert_int_equal(exact_ising_hist_build(2, extent, &hist), 0);
    double p[NT][64];
    exact_energy_distribution(&hist, p);

    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, L);
    latmc_ens_layout l = ens_test_layout(NS, NT, 1, 20261122, 2);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    assert_int_equal(latmc_ens_set_temperatures(e, beta, NT), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, THERM), LATMC_OK);

    /* Rows: per temperature <e>, <|m|> over the samples (2 NT columns), then per pair
     * the fraction of its swaps accepted over the last two rounds (NT - 1 columns). */
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, 3 * NT - 1), LATMC_OK);
    uint64_t acc0[NT - 1], att0[NT - 1], acc1[NT - 1], att1[NT - 1];
    assert_int_equal(latmc_ens_exchange_counts(e, acc0, att0, NT - 1), LATMC_OK);
    double en[NS * NT], am[NS * NT];
    for (int i = 0; i < PAIRS_MEAS; i++) {
        assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_TEMPERATURE,
                                               en, NS * NT), LATMC_OK);
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ABS_MAGNETIZATION,
                                               LATMC_ENS_BY_TEMPERATURE, am, NS * NT), LATMC_OK);
        assert_int_equal(latmc_ens_exchange_counts(e, acc1, att1, NT - 1), LATMC_OK);
        double row[3 * NT - 1] = { 0 };
        for (int s = 0; s < NS; s++)
            for (int t = 0; t < NT; t++) {
                row[t] += en[s * NT + t] / NS;
                row[NT + t] += am[s * NT + t] / NS;
            }
        for (int t = 0; t + 1 < NT; t++) {
            assert_int_equal(att1[t] - att0[t], NS); /* each pair once per two rounds */
            row[2 * NT + t] = (double)(acc1[t] - acc0[t]) / NS;
            acc0[t] = acc1[t];
            att0[t] = att1[t];
        }
        assert_int_equal(latmc_acc_push(acc, row, 3 * NT - 1), LATMC_OK);
    }
    double worst = 0;
    char label[64];
    for (int t = 0; t < NT; t++) {
        struct exact_ising_moments ex;
        assert_int_equal(exact_ising_hist_moments(&hist, beta[t], 1.0, 0.0, &ex), 0);
        snprintf(label, sizeof label, "beta %.2f <e>", beta[t]);
        worst = fmax(worst, fabs(mc_deviation(acc, t, ex.e, label)));
        snprintf(label, sizeof label, "beta %.2f <|m|>", beta[t]);
        worst = fmax(worst, fabs(mc_deviation(acc, NT + t, ex.absm, label)));
    }
    for (int t = 0; t + 1 < NT; t++) {
        snprintf(label, sizeof label, "pair %d-%d acceptance", t, t + 1);
        worst = fmax(worst, fabs(mc_deviation(acc, 2 * NT + t, exact_acceptance(&hist, p, t),
                                              label)));
    }
    uint64_t trips = 0;
    double trip_mean = 0;
    assert_int_equal(latmc_ens_round_trips(e, &trips, &trip_mean), LATMC_OK);
    printf("round trips: %llu, mean %.1f sweeps; worst deviation %.2f sigma\n",
           (unsigned long long)trips, trip_mean, worst);
    assert_true(trips > 100);
    assert_true(trip_mean >= 2.0 * (NT - 1)); /* one step per round at most */
    assert_true(worst < 4.0);
    latmc_acc_destroy(&acc);
    latmc_ens_destroy(&e);
    latmc_ctx_destroy(&ctx);
    exact_ising_hist_free(&hist);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tempering_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
