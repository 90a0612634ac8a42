/*
 * The heat bath through the public API draws each spin from p(s) ~ exp(beta s . H_loc).
 *
 * In the first (colour-0) half of a heat-bath pass every colour-0 site sees neighbours
 * (colour 1) that have not moved yet, so its local field H_loc = sum_j J_ij s_j + h e_z is
 * known from the configuration the test set: the test sets random spins and couplings
 * (set_spins, set_couplings), sweeps once with nover = 0, and reads the colour-0 spins,
 * which colour 1's later half-pass does not touch. Each one is a draw from its own p:
 *  - u = F_a(cos theta), F_a the distribution function of p(x) ~ exp(a x) on [-1, 1]
 *    with a = beta |H_loc|, is uniform on [0, 1] for every site whatever its a, so all
 *    sites are pooled into one Kolmogorov-Smirnov test;
 *  - the azimuth around H_loc, measured in a frame of the test's own, is uniform.
 * Rounds with couplings scaled over 1e-9 .. 30 cover a = beta |H| from ~0 to ~100.
 * 1% critical value 1.63 / sqrt(n).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "heisenberg_test_helpers.h"

#define LX 64
#define LY 64
#define N (LX * LY)
#define TWO_PI 6.283185307179586

static double cdf(double a, double x)
{
    if (a == 0.0)
        return 0.5 * (x + 1.0);
    return exp(a * (x - 1.0)) * expm1(-a * (x + 1.0)) / expm1(-2.0 * a);
}

static int cmp_double(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double ks_uniform(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    double d = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double lo = v[k] - (double)k / (double)n, hi = (double)(k + 1) / (double)n - v[k];
        d = lo > d ? lo : d;
        d = hi > d ? hi : d;
    }
    return d;
}

/* The test's frame around unit n: e1 from a fixed skew vector, e2 = n x e1. */
static void frame(const double n[3], double e1[3], double e2[3])
{
    const double t[3] = { -0.42, 0.13, 0.9 };
    const double tn = t[0] * n[0] + t[1] * n[1] + t[2] * n[2];
    double len = 0.0;
    for (int c = 0; c < 3; c++) {
        e1[c] = t[c] - tn * n[c];
        len += e1[c] * e1[c];
    }
    for (int c = 0; c < 3; c++)
        e1[c] /= sqrt(len);
    e2[0] = n[1] * e1[2] - n[2] * e1[1];
    e2[1] = n[2] * e1[0] - n[0] * e1[2];
    e2[2] = n[0] * e1[1] - n[1] * e1[0];
}

static void heatbath_distribution(void **state)
{
    (void)state;
    const double scales[] = { 1e-9, 0.05, 0.3, 1.0, 4.0, 30.0 };
    const double fields[] = { 0.0, 0.0, 0.5, 0.0, -1.0, 0.0 };
    const int nrounds = 6;
    const double beta = 1.0;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = heisenberg_desc(2, LX, LY, 0, 1, LATMC_COUPLINGS_UNIFORM,
                                       LATMC_ALGO_HEATBATH, 1, 8100);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    const struct test_lattice g = test_lattice_of(&d);
    float *spins = malloc(3 * N * sizeof *spins), *after = malloc(3 * N * sizeof *after);
    float *J = malloc(2 * N * sizeof *J);
    double *pit = malloc(nrounds * (N / 2) * sizeof *pit);
    double *azimuth = malloc(nrounds * (N / 2) * sizeof *azimuth);
    assert_non_null(spins);
    assert_non_null(after);
    assert_non_null(J);
    assert_non_null(pit);
    assert_non_null(azimuth);
    uint64_t rng = 8101;
    size_t n = 0;
    for (int round = 0; round < nrounds; round++) {
        const double h = fields[round];
        for (int64_t i = 0; i < N; i++)
            test_unit_vector(&rng, spins + 3 * i);
        for (int64_t k = 0; k < 2 * N; k++)
            J[k] = (float)(scales[round] * test_gaussian(&rng));
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
        assert_int_equal(latmc_sim_set_spins(sim, spins, 3 * N * sizeof *spins), LATMC_OK);
        assert_int_equal(latmc_sim_set_couplings(sim, J, 2 * N), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, after, 3 * N * sizeof *after), LATMC_OK);
        for (int64_t i = 0; i < N; i++) {
            const int64_t x = i % LX, y = i / LX;
            if ((x + y) % 2 != 0)
                continue; /* colour 1 saw updated neighbours */
            double H[3] = { 0.0, 0.0, h };
            for (int mu = 0; mu < 2; mu++) {
                const int64_t f = test_neighbour(&g, i, mu, +1), b = test_neighbour(&g, i, mu, -1);
                for (int c = 0; c < 3; c++)
                    H[c] += (double)J[2 * i + mu] * spins[3 * f + c] +
                            (double)J[2 * b + mu] * spins[3 * b + c];
            }
            const double len = sqrt(H[0] * H[0] + H[1] * H[1] + H[2] * H[2]);
            const double nvec[3] = { H[0] / len, H[1] / len, H[2] / len };
            double e1[3], e2[3], x_cos = 0.0, p1 = 0.0, p2 = 0.0;
            frame(nvec, e1, e2);
            for (int c = 0; c < 3; c++) {
                x_cos += after[3 * i + c] * nvec[c];
                p1 += after[3 * i + c] * e1[c];
                p2 += after[3 * i + c] * e2[c];
            }
            x_cos = x_cos > 1.0 ? 1.0 : x_cos < -1.0 ? -1.0 : x_cos;
            pit[n] = cdf(beta * len, x_cos);
            azimuth[n] = atan2(p2, p1) / TWO_PI + 0.5;
            n++;
        }
    }
    const double crit = 1.63 / sqrt((double)n);
    const double d_cos = ks_uniform(pit, n), d_phi = ks_uniform(azimuth, n);
    printf("heat bath via the API, %zu sites, a = beta|H| from ~1e-9 to ~100:\n"
           "  KS F_a(cos theta) D = %.4f, azimuth D = %.4f (1%% critical %.4f)\n",
           n, d_cos, d_phi, crit);
    assert_true(d_cos < crit);
    assert_true(d_phi < crit);
    free(spins);
    free(after);
    free(J);
    free(pit);
    free(azimuth);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(heatbath_distribution),
    };
    return cmocka_run_group_tests_name("heisenberg_heatbath", tests, NULL, NULL);
}
