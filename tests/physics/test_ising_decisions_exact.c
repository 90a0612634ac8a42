/*
 * The Ising chain with bit-sliced decisions (decisions = 1, doc/models/ising-decisions.md)
 * against exact results:
 * - exact enumeration: 4x4 and 2x2x2 uniform, 4x4 +-J (a fixed realisation): <e>, <|m|>,
 *   <m^2>, <m^4> (and <m> with a field) within 4 binning sigma, Metropolis and heat bath;
 * - the decisions themselves, read off the lattice: in a sweep, colour 0's sites see
 *   their neighbours as before the sweep and colour 1's as after it (colour 0 is done by
 *   then), so the configurations before and after each sweep give every site's field
 *   class, old spin and decision. Accept frequency per class against T / 2^32 (chi^2 over
 *   the classes), and the joint accepts of consecutive sites of one group (neighbouring
 *   lanes of the same words) against independence.
 * A wrong rule (a biased plane, lanes sharing bits, a threshold bit misplaced) moves these
 * by many sigma.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact_ising.h"
#include "exact_ising_coupled.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define NMEAS (UINT64_C(1) << 16)
#define MAX_SIGMA 4.0

static latmc_sim *make(latmc_ctx *ctx, int ndim, const int *extent, int algorithm,
                       int couplings, uint64_t seed, double beta, double h)
{
    latmc_sim_desc d = ising_desc(ndim, extent[0], extent[1], ndim == 3 ? extent[2] : 0,
                                  algorithm, 1, seed);
    d.couplings = couplings;
    d.coupling_seed = 2024;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
    return sim;
}

struct point {
    int ndim;
    int extent[3];
    int couplings;
    double beta, h;
};

static void enumeration(void **state)
{
    (void)state;
    const struct point points[] = {
        { 2, { 4, 4, 0 }, LATMC_COUPLINGS_UNIFORM, 0.44, 0.1 },
        { 2, { 4, 4, 0 }, LATMC_COUPLINGS_UNIFORM, 0.6, 0.0 },
        { 3, { 2, 2, 2 }, LATMC_COUPLINGS_UNIFORM, 0.3, 0.1 },
        { 2, { 4, 4, 0 }, LATMC_COUPLINGS_BIMODAL, 1.2, 0.2 },
    };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    double worst = 0;
    uint64_t seed = 900;
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
        const struct point *pt = &points[p];
        for (int a = 0; a < 2; a++) {
            const int algorithm = a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
            latmc_sim *sim = make(ctx, pt->ndim, pt->extent, algorithm, pt->couplings, seed++,
                                  pt->beta, pt->h);
            struct exact_ising_moments ex;
            if (pt->couplings == LATMC_COUPLINGS_BIMODAL) {
                const size_t n = (size_t)(pt->extent[0] * pt->extent[1]) * (size_t)pt->ndim;
                float eps[64];
                double epsd[64];
                assert_true(n <= 64);
                assert_int_equal(latmc_sim_get_couplings(sim, eps, n), LATMC_OK);
                for (size_t i = 0; i < n; i++)
                    epsd[i] = eps[i];
                assert_int_equal(exact_ising_coupled_moments(pt->ndim, pt->extent, epsd,
                                                             pt->beta, 1.0, pt->h, &ex), 0);
            } else {
                assert_int_equal(exact_ising_enumerate(pt->ndim, pt->extent, pt->beta, 1.0,
                                                       pt->h, &ex), 0);
            }
            latmc_acc *acc = NULL;
            assert_int_equal(mc_sample_ising(sim, 1000, NMEAS, &acc), LATMC_OK);
            char prefix[80];
            snprintf(prefix, sizeof prefix, "%dD %s %s beta=%.2f h=%.1f", pt->ndim,
                     pt->couplings ? "+-J" : "uniform", a ? "heatb" : "metro", pt->beta, pt->h);
            const double dev = mc_ising_moments_deviation(acc, &ex, pt->h != 0.0 && pt->beta < 0.5,
                                                          prefix);
            if (dev > worst)
                worst = dev;
            assert_true(dev < MAX_SIGMA);
            latmc_acc_destroy(&acc);
            latmc_sim_destroy(&sim);
        }
    }
    printf("largest deviation: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

/* ---- the decisions read off the lattice ---- */

#define LX 64
#define LY 32
#define NSITES (LX * LY)

static int wrapx(int x) { return (x + LX) % LX; }
static int wrapy(int y) { return (y + LY) % LY; }

/* sum_j eps_ij s_j of site (x, y) in configuration s; eps as get_couplings (NULL: 1). */
static int field_sum(const int8_t *s, const float *eps, int x, int y)
{
    const int i = x + LX * y;
    const int xm = wrapx(x - 1) + LX * y, ym = x + LX * wrapy(y - 1);
    const int xp = wrapx(x + 1) + LX * y, yp = x + LX * wrapy(y + 1);
    if (!eps)
        return s[xp] + s[xm] + s[yp] + s[ym];
    return (int)eps[2 * i] * s[xp] + (int)eps[2 * xm] * s[xm] + (int)eps[2 * i + 1] * s[yp] +
           (int)eps[2 * ym + 1] * s[ym];
}

static double probability(int algorithm, double beta, double h, int s, int n)
{
    if (algorithm == LATMC_ALGO_HEATBATH)
        return 1.0 / (1.0 + exp(-2.0 * beta * (n + h)));
    const double de = 2.0 * s * (n + h);
    return de <= 0 ? 1.0 : exp(-beta * de);
}

/* T / 2^32 exactly: the probability the chain is defined to realise. */
static double realised(double p)
{
    if (p >= 1.0)
        return 1.0;
    return ldexp((double)(uint64_t)ldexp(p, 32), -32);
}

static void decisions_case(int algorithm, int couplings, double beta, double h)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int extent[2] = { LX, LY };
    latmc_sim *sim = make(ctx, 2, extent, algorithm, couplings, 31, beta, h);
    static float eps[2 * NSITES];
    const float *e = NULL;
    if (couplings == LATMC_COUPLINGS_BIMODAL) {
        assert_int_equal(latmc_sim_get_couplings(sim, eps, 2 * NSITES), LATMC_OK);
        e = eps;
    }
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 100), LATMC_OK);
    static int8_t before[NSITES], after[NSITES];
    /* class c = 5 (s == +1) + k, k = (n + 4) / 2 */
    double n_cls[10] = { 0 }, acc_cls[10] = { 0 }, p_cls[10] = { 0 };
    double pair_n = 0, pair_both = 0, pair_expect = 0, pair_var = 0;
    const int sweeps = 400;
    for (int sw = 0; sw < sweeps; sw++) {
        assert_int_equal(latmc_sim_get_spins(sim, before, NSITES), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, after, NSITES), LATMC_OK);
        int prev_acc = -1;
        double prev_p = 0;
        for (int colour = 0; colour < 2; colour++)
            for (int y = 0; y < LY; y++)
                for (int x = 0; x < LX; x++) {
                    if ((x + y) % 2 != colour)
                        continue;
                    const int i = x + LX * y;
                    /* colour 0 sees the old neighbours, colour 1 the new ones */
                    const int n = field_sum(colour == 0 ? before : after, e, x, y);
                    const int s = before[i];
                    const int accept = algorithm == LATMC_ALGO_HEATBATH ? after[i] == 1
                                                                        : after[i] != s;
                    const double p = realised(probability(algorithm, beta, h, s, n));
                    const int c = 5 * (algorithm == LATMC_ALGO_METROPOLIS && s > 0) + (n + 4) / 2;
                    n_cls[c] += 1;
                    acc_cls[c] += accept;
                    p_cls[c] = p;
                    /* lanes 2m and 2m + 1 of a group: consecutive sites of a colour (the
                     * checkerboard number i / 2), here along a row of 32 such sites */
                    if (((i / 2) % 2) == 1 && prev_acc >= 0 && p < 1.0 && prev_p < 1.0) {
                        pair_n += 1;
                        pair_both += accept && prev_acc;
                        pair_expect += p * prev_p;
                        pair_var += p * prev_p * (1 - p * prev_p);
                    }
                    prev_acc = accept;
                    prev_p = p;
                }
    }
    double chi2 = 0;
    int dof = 0;
    for (int c = 0; c < 10; c++) {
        if (n_cls[c] < 50 || p_cls[c] >= 1.0 || p_cls[c] <= 0.0) {
            if (p_cls[c] >= 1.0) /* always accepted, exactly */
                assert_true(acc_cls[c] == n_cls[c]);
            continue;
        }
        const double ex = n_cls[c] * p_cls[c];
        chi2 += (acc_cls[c] - ex) * (acc_cls[c] - ex) / (ex * (1 - p_cls[c]));
        dof++;
    }
    /* chi^2 quantile 0.9999 for up to 10 dof is below 33.7 */
    printf("%s %s beta=%.2f: chi^2 = %.2f over %d classes; pairs both %.0f, expected %.1f "
           "(%.2f sigma)\n", algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
           couplings ? "+-J" : "uniform", beta, chi2, dof, pair_both, pair_expect,
           (pair_both - pair_expect) / sqrt(pair_var));
    assert_true(dof >= 2);
    assert_true(chi2 < 33.7);
    assert_true(fabs(pair_both - pair_expect) < MAX_SIGMA * sqrt(pair_var));
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void decisions_per_class(void **state)
{
    (void)state;
    decisions_case(LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 0.35, 0.1);
    decisions_case(LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 0.44, 0.0);
    decisions_case(LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, 0.8, 0.0);
    decisions_case(LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL, 0.8, 0.3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(enumeration),
        cmocka_unit_test(decisions_per_class),
    };
    return cmocka_run_group_tests_name("ising_decisions_exact", tests, NULL, NULL);
}
