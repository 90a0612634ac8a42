/*
 * The per-site rules of the Heisenberg chain (lib/heisenberg_rules.h), called
 * directly:
 *  - cos(theta) sampling: F(x(u)) = u to ~1e-12 on a grid spanning every branch
 *    (a = 0, tiny, small, large, huge), and a Kolmogorov-Smirnov test of 10^5 draws per a
 *    against p(x) ~ exp(a x) (1% critical value 1.63 / sqrt(n));
 *  - the heat-bath spin for random local fields: unit length, cos(theta) to H and the
 *    azimuth around H (measured in the test's own frame) pass KS tests, the first through
 *    the probability integral transform F_a(cos theta) so that fields of every size mix;
 *  - overrelaxation: keeps s . H and |s|, is its own inverse, leaves s alone when H = 0.
 * The random numbers are the test's own (splitmix64), not the library's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "heisenberg_rules.h"
#include "heisenberg_test_helpers.h"

#define NDRAWS 100000

/* The distribution function of p(x) ~ exp(a x) on [-1, 1], written stably for a > 0:
 * F(x) = e^{a(x-1)} (1 - e^{-a(x+1)}) / (1 - e^{-2a}). */
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

/* Kolmogorov-Smirnov statistic of n values v already mapped through their claimed
 * distribution function (so that they should be uniform on [0, 1]); sorts v. */
static double ks_uniform(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    double d = 0.0;
    for (size_t k = 0; k < n; k++) {
        const double lo = v[k] - (double)k / (double)n;
        const double hi = (double)(k + 1) / (double)n - v[k];
        d = lo > d ? lo : d;
        d = hi > d ? hi : d;
    }
    return d;
}

static void assert_ks(double *v, size_t n, const char *what)
{
    const double d = ks_uniform(v, n), crit = 1.63 / sqrt((double)n);
    printf("KS %-40s D = %.5f (1%% critical %.5f)\n", what, d, crit);
    assert_true(d < crit);
}

static const double a_values[] = { 0.0, 1e-300, 1e-12, 9.99e-9, 1.01e-8, 1e-5, 0.1, 0.4999,
                                   0.5001, 1.0, 3.0, 20.0, 300.0, 1e5 };
#define N_A (sizeof a_values / sizeof a_values[0])

static void inversion_is_exact(void **state)
{
    (void)state;
    for (size_t k = 0; k < N_A; k++) {
        const double a = a_values[k];
        for (int j = 0; j <= 1000; j++) {
            const double u = (j + 0.5) / 1001.0;
            const double x = latmc_heisenberg_sample_cos(a, u);
            assert_true(x >= -1.0 && x <= 1.0);
            /* where the density is steep, compare in x instead: dF/dx = a / (1 - e^{-2a}) */
            const double slope = a == 0.0 ? 0.5 : a / -expm1(-2.0 * a);
            assert_close(cdf(a, x), u, 1e-12 * (slope > 1.0 ? slope : 1.0));
        }
        /* the extreme uniforms the library can produce stay inside [-1, 1] */
        const double lo = latmc_heisenberg_sample_cos(a, latmc_heisenberg_uniform(0));
        const double hi = latmc_heisenberg_sample_cos(a, latmc_heisenberg_uniform(UINT32_MAX));
        assert_true(lo >= -1.0 && lo < hi && hi <= 1.0);
    }
    /* the branches meet: no jump at a = 1e-8 or a = 0.5 */
    for (int j = 1; j < 100; j++) {
        const double u = j / 100.0;
        assert_close(latmc_heisenberg_sample_cos(1e-8 * (1 - 1e-12), u),
                     latmc_heisenberg_sample_cos(1e-8, u), 1e-15);
        assert_close(latmc_heisenberg_sample_cos(0.5 * (1 - 1e-15), u),
                     latmc_heisenberg_sample_cos(0.5, u), 1e-14);
    }
}

static void cos_theta_ks(void **state)
{
    (void)state;
    double *v = malloc(NDRAWS * sizeof *v);
    assert_non_null(v);
    uint64_t rng = 77;
    for (size_t k = 0; k < N_A; k++) {
        const double a = a_values[k];
        for (size_t j = 0; j < NDRAWS; j++)
            v[j] = cdf(a, latmc_heisenberg_sample_cos(a, latmc_heisenberg_uniform(
                                                           (uint32_t)(test_rng_next(&rng) >> 32))));
        char what[64];
        snprintf(what, sizeof what, "cos(theta), a = %g", a);
        assert_ks(v, NDRAWS, what);
    }
    free(v);
}

/* A right-handed orthonormal frame of the test's own: e1 from a fixed skew vector. */
static void test_frame(const double n[3], double e1[3], double e2[3])
{
    const double t[3] = { 0.31, -0.77, 0.55 };
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

static void heatbath_spin_distribution(void **state)
{
    (void)state;
    double *pit = malloc(NDRAWS * sizeof *pit), *azimuth = malloc(NDRAWS * sizeof *azimuth);
    assert_non_null(pit);
    assert_non_null(azimuth);
    uint64_t rng = 2024;
    const double beta = 0.8;
    for (size_t j = 0; j < NDRAWS; j++) {
        /* a field of random direction, size spread over 1e-9 .. 1e2 (log-uniform), and a few
         * exactly along the axes, where frames are easy to get wrong */
        float dir[3];
        test_unit_vector(&rng, dir);
        if (j % 50 == 0) {
            dir[0] = dir[1] = dir[2] = 0.0f;
            dir[(j / 50) % 3] = (j / 150) % 2 ? -1.0f : 1.0f;
        }
        const double size = pow(10.0, -9.0 + 11.0 * test_uniform(&rng));
        const double field[3] = { size * dir[0], size * dir[1], size * dir[2] };
        float s[3];
        latmc_heisenberg_heatbath_spin(field, beta, test_uniform(&rng), test_uniform(&rng), s);
        const double len = sqrt((double)s[0] * s[0] + (double)s[1] * s[1] + (double)s[2] * s[2]);
        assert_close(len, 1.0, 2e-7);
        double n[3], e1[3], e2[3], x = 0.0, p1 = 0.0, p2 = 0.0;
        for (int c = 0; c < 3; c++)
            n[c] = field[c] / sqrt(field[0] * field[0] + field[1] * field[1] + field[2] * field[2]);
        test_frame(n, e1, e2);
        for (int c = 0; c < 3; c++) {
            x += s[c] * n[c];
            p1 += s[c] * e1[c];
            p2 += s[c] * e2[c];
        }
        x = x > 1.0 ? 1.0 : x < -1.0 ? -1.0 : x;
        pit[j] = cdf(beta * size, x);
        azimuth[j] = atan2(p2, p1) / LATMC_HEISENBERG_TWO_PI + 0.5;
    }
    assert_ks(pit, NDRAWS, "heat-bath F_a(cos theta), random fields");
    assert_ks(azimuth, NDRAWS, "heat-bath azimuth in the test's frame");
    free(pit);
    free(azimuth);
}

/* With H = 0 (or beta = 0) the new spin is uniform on the sphere: s_z uniform in [-1, 1]. */
static void heatbath_zero_field_is_uniform(void **state)
{
    (void)state;
    double *v = malloc(NDRAWS * sizeof *v);
    assert_non_null(v);
    uint64_t rng = 99;
    const double zero[3] = { 0.0, 0.0, 0.0 }, some[3] = { 0.3, -2.0, 1.0 };
    for (int pass = 0; pass < 2; pass++) {
        for (size_t j = 0; j < NDRAWS; j++) {
            float s[3];
            latmc_heisenberg_heatbath_spin(pass ? some : zero, pass ? 0.0 : 1.7, test_uniform(&rng),
                                         test_uniform(&rng), s);
            const double z = s[0] * 0.6 + s[1] * 0.8; /* any fixed unit axis */
            v[j] = 0.5 * ((z > 1.0 ? 1.0 : z < -1.0 ? -1.0 : z) + 1.0);
        }
        assert_ks(v, NDRAWS, pass ? "beta = 0: projection uniform" : "H = 0: projection uniform");
    }
    free(v);
}

static void overrelaxation_reflects(void **state)
{
    (void)state;
    uint64_t rng = 5;
    for (int j = 0; j < 10000; j++) {
        float s[3], dir[3];
        test_unit_vector(&rng, s);
        test_unit_vector(&rng, dir);
        const double size = pow(10.0, -6.0 + 8.0 * test_uniform(&rng));
        const double field[3] = { size * dir[0], size * dir[1], size * dir[2] };
        const double before = (s[0] * field[0] + s[1] * field[1] + s[2] * field[2]) / size;
        const float orig[3] = { s[0], s[1], s[2] };
        latmc_heisenberg_overrelax_spin(field, s);
        const double after = (s[0] * field[0] + s[1] * field[1] + s[2] * field[2]) / size;
        assert_close(after, before, 3e-7);
        assert_close(sqrt((double)s[0] * s[0] + (double)s[1] * s[1] + (double)s[2] * s[2]), 1.0, 2e-7);
        /* the perpendicular part flips: s + s' is along H */
        const double sum[3] = { orig[0] + s[0], orig[1] + s[1], orig[2] + s[2] };
        const double along = (sum[0] * dir[0] + sum[1] * dir[1] + sum[2] * dir[2]);
        for (int c = 0; c < 3; c++)
            assert_close(sum[c], along * dir[c], 1e-6);
        latmc_heisenberg_overrelax_spin(field, s);
        for (int c = 0; c < 3; c++)
            assert_close(s[c], orig[c], 5e-7);
    }
    float s[3] = { 0.6f, 0.0f, 0.8f };
    const double zero[3] = { 0.0, 0.0, 0.0 };
    latmc_heisenberg_overrelax_spin(zero, s);
    assert_true(s[0] == 0.6f && s[1] == 0.0f && s[2] == 0.8f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inversion_is_exact),
        cmocka_unit_test(cos_theta_ks),
        cmocka_unit_test(heatbath_spin_distribution),
        cmocka_unit_test(heatbath_zero_field_is_uniform),
        cmocka_unit_test(overrelaxation_reflects),
    };
    return cmocka_run_group_tests_name("heisenberg_sampling", tests, NULL, NULL);
}
