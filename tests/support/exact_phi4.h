/*
 * Test support: reference results for the phi^4 model, written from the definition
 * (DESIGN.md section 3, doc/models/phi4.md) without any of the library's code:
 *
 *   H = sum_x [ 1/2 sum_mu (phi(x+mu) - phi(x))^2 + mu2/2 phi^2 + g/24 phi^4
 *             + 1/(2 Lambda) (sum_mu (phi(x+mu) - 2 phi(x) + phi(x-mu)))^2 ],
 *
 * periodic lattice, site index i = x + L_x (y + L_y z), weight exp(-H).
 * Lambda = INFINITY drops the last term. Everything is reentrant.
 */
#ifndef LATMC_TESTS_EXACT_PHI4_H
#define LATMC_TESTS_EXACT_PHI4_H

#include <stdint.h>

/* A periodic lattice of ndim (1..3) extents; unused extents are ignored. */
struct exact_phi4_lattice {
    int ndim;
    int64_t L[3];
};

int64_t exact_phi4_nsites(const struct exact_phi4_lattice *lat);

/* Index of (x[0], x[1], x[2]) after wrapping every coordinate into [0, L). */
int64_t exact_phi4_index(const struct exact_phi4_lattice *lat, const int64_t *x);

/*
 * H of the field phi (N values), term by term from the formula above, accumulated in
 * long double so that the difference of two H of nearby fields is accurate to far
 * better than double precision.
 */
long double exact_phi4_hamiltonian(const struct exact_phi4_lattice *lat, const double *phi,
                                   double mu2, double g, double lambda);

/*
 * Gaussian model (g = 0): <phi^2> = (1/V) sum_p 1/K(p), K(p) = p^2 + mu2 + (p^2)^2/Lambda,
 * p^2 = sum_mu 4 sin^2(p_mu / 2), p_mu = 2 pi n_mu / L_mu. Needs K(p) > 0 for every p
 * (mu2 > 0 suffices for Lambda > 0); NaN otherwise.
 */
double exact_phi4_gaussian_phi2(const struct exact_phi4_lattice *lat, double mu2, double lambda);

/* Gaussian model: <m^2> = <(sum phi / V)^2> = 1 / (V mu2) (the p = 0 mode alone). */
double exact_phi4_gaussian_m2(const struct exact_phi4_lattice *lat, double mu2);

/*
 * dH/dphi(x) and d^2H/dphi(x)^2 of the field, written as operators, not through the
 * library's local energy change: with the lattice Laplacian (D f)(x) =
 * sum_mu (f(x+mu) - 2 f(x) + f(x-mu)),
 *   dH/dphi(x)    = -(D phi)(x) + mu2 phi + g/6 phi^3 + (D D phi)(x) / Lambda
 *   d2H/dphi(x)^2 = 2 ndim + mu2 + g/2 phi^2 + (4 ndim^2 + 2 ndim) / Lambda
 * (the last is the square of D's diagonal plus its 2 ndim unit off-diagonal entries).
 * Sums over x of dH/dphi(x)^2 and of d2H/dphi(x)^2; used by the exact Schwinger-Dyson
 * identity <sum_x (dH/dphi(x))^2> = <sum_x d2H/dphi(x)^2>, valid for any parameters.
 * Returns 0, or -1 on allocation failure.
 */
int exact_phi4_force_sums(const struct exact_phi4_lattice *lat, const double *phi, double mu2,
                          double g, double lambda, double *sum_force2, double *sum_curvature);

#endif
