/*
 * Unit test of tests/support/exact_phi4.{h,c}, the references of the phi^4 physics
 * tests, each against an independent computation:
 *   - the momentum sum <phi^2> = (1/V) sum_p 1/K(p) against the real-space Gaussian
 *     integral: the matrix A of H = 1/2 phi^T A phi is read off the Hamiltonian by
 *     polarisation, and <phi^2> = tr(A^-1) / V, <m^2> = sum_ij (A^-1)_ij / V^2;
 *   - the force and curvature sums against finite differences of the Hamiltonian.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "exact_phi4.h"
#include "sim_helpers.h"

/* A with H(phi) = 1/2 phi^T A phi at g = 0, by polarisation of H on unit vectors. */
static double *quadratic_form(const struct exact_phi4_lattice *lat, double mu2, double lambda)
{
    const int64_t n = exact_phi4_nsites(lat);
    double *a = calloc((size_t)(n * n), sizeof *a), *e = calloc((size_t)n, sizeof *e);
    double *diag = calloc((size_t)n, sizeof *diag);
    assert_non_null(a);
    assert_non_null(e);
    assert_non_null(diag);
    for (int64_t i = 0; i < n; i++) {
        e[i] = 1;
        diag[i] = (double)exact_phi4_hamiltonian(lat, e, mu2, 0.0, lambda);
        e[i] = 0;
    }
    for (int64_t i = 0; i < n; i++) {
        a[i * n + i] = 2 * diag[i];
        for (int64_t j = i + 1; j < n; j++) {
            e[i] = e[j] = 1;
            const double hij = (double)exact_phi4_hamiltonian(lat, e, mu2, 0.0, lambda);
            e[i] = e[j] = 0;
            a[i * n + j] = a[j * n + i] = hij - diag[i] - diag[j];
        }
    }
    free(e);
    free(diag);
    return a;
}

/* In-place Gauss-Jordan inverse of a symmetric positive-definite matrix. */
static void invert(double *a, int64_t n)
{
    for (int64_t p = 0; p < n; p++) {
        const double pivot = a[p * n + p];
        assert_true(pivot > 0);
        for (int64_t j = 0; j < n; j++)
            a[p * n + j] /= pivot;
        a[p * n + p] = 1.0 / pivot;
        for (int64_t i = 0; i < n; i++) {
            if (i == p)
                continue;
            const double f = a[i * n + p];
            a[i * n + p] = 0;
            for (int64_t j = 0; j < n; j++)
                a[i * n + j] -= f * a[p * n + j];
        }
    }
}

static void check_gaussian(int ndim, int64_t lx, int64_t ly, int64_t lz, double mu2, double lambda)
{
    const struct exact_phi4_lattice lat = { ndim, { lx, ly, lz } };
    const int64_t n = exact_phi4_nsites(&lat);
    double *a = quadratic_form(&lat, mu2, lambda);
    invert(a, n);
    double trace = 0, total = 0;
    for (int64_t i = 0; i < n; i++) {
        trace += a[i * n + i];
        for (int64_t j = 0; j < n; j++)
            total += a[i * n + j];
    }
    free(a);
    const double phi2 = exact_phi4_gaussian_phi2(&lat, mu2, lambda);
    const double m2 = exact_phi4_gaussian_m2(&lat, mu2);
    assert_close(trace / (double)n, phi2, 1e-10 * phi2);
    assert_close(total / ((double)n * (double)n), m2, 1e-9 * m2);
}

static void momentum_sum_matches_real_space(void **state)
{
    (void)state;
    const double lambdas[] = { INFINITY, 3.0, 0.4 };
    for (int l = 0; l < 3; l++) {
        check_gaussian(2, 8, 8, 1, 0.5, lambdas[l]);
        check_gaussian(2, 5, 10, 1, 0.3, lambdas[l]);
        check_gaussian(2, 3, 7, 1, 1.7, lambdas[l]);
        check_gaussian(3, 4, 4, 4, 0.5, lambdas[l]);
        check_gaussian(3, 3, 4, 5, 0.2, lambdas[l]);
    }
    /* the Lambda term changes the answer: the check above can tell */
    const struct exact_phi4_lattice lat = { 2, { 8, 8, 1 } };
    assert_true(exact_phi4_gaussian_phi2(&lat, 0.5, 3.0) < 0.95 * exact_phi4_gaussian_phi2(&lat, 0.5, INFINITY));
    assert_true(isnan(exact_phi4_gaussian_phi2(&lat, -0.1, INFINITY)));
}

/* Force and curvature sums against central differences of H (long double). */
static void force_sums_match_differences(void **state)
{
    (void)state;
    const struct exact_phi4_lattice lats[] = { { 2, { 5, 6, 1 } }, { 3, { 4, 3, 5 } } };
    const double lambdas[] = { INFINITY, 1.3 };
    uint64_t rng = 77;
    for (int li = 0; li < 2; li++)
        for (int l = 0; l < 2; l++) {
            const struct exact_phi4_lattice *lat = &lats[li];
            const int64_t n = exact_phi4_nsites(lat);
            const double mu2 = -0.4, g = 2.2, lambda = lambdas[l];
            double *phi = malloc((size_t)n * sizeof *phi);
            assert_non_null(phi);
            for (int64_t i = 0; i < n; i++)
                phi[i] = ldexp((double)(test_rng_next(&rng) >> 11), -53) * 3.0 - 1.5;
            double f2 = 0, curv = 0;
            assert_int_equal(exact_phi4_force_sums(lat, phi, mu2, g, lambda, &f2, &curv), 0);
            double f2_num = 0, curv_num = 0;
            const double h = 1e-4;
            const long double h0 = exact_phi4_hamiltonian(lat, phi, mu2, g, lambda);
            for (int64_t i = 0; i < n; i++) {
                const double v = phi[i];
                phi[i] = v + h;
                const long double hp = exact_phi4_hamiltonian(lat, phi, mu2, g, lambda);
                phi[i] = v - h;
                const long double hm = exact_phi4_hamiltonian(lat, phi, mu2, g, lambda);
                phi[i] = v;
                const double d1 = (double)((hp - hm) / (2 * h));
                f2_num += d1 * d1;
                curv_num += (double)((hp - 2 * h0 + hm) / ((long double)h * h));
            }
            assert_close(f2, f2_num, 1e-6 * f2);
            assert_close(curv, curv_num, 1e-5 * curv);
            free(phi);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(momentum_sum_matches_real_space),
        cmocka_unit_test(force_sums_match_differences),
    };
    return cmocka_run_group_tests_name("phi4_exact_gaussian", tests, NULL, NULL);
}
