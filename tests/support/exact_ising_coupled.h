/*
 * Test support: exact thermal averages of the Ising model with one coupling per bond,
 *   H = -J sum_x sum_mu eps[ndim x + mu] s_x s_{x+mu} - h sum_x s_x,
 * (the +-J model for eps = +-1; the library's bond convention and site order, see
 * exact_ising.h), by direct summation over all 2^N states. Independent of the library:
 * the energy of each state is recomputed from its definition.
 */
#ifndef LATMC_TESTS_EXACT_ISING_COUPLED_H
#define LATMC_TESTS_EXACT_ISING_COUPLED_H

#include <stdint.h>

#include "exact_ising.h" /* struct exact_ising_moments, return codes */

/* Largest lattice summed (2^20 states take well under a second). */
#define EXACT_ISING_COUPLED_MAX_SITES 20

/*
 * Moments at (beta, J, h) of the periodic lattice extent[0] x extent[1] (x extent[2]) with
 * couplings eps (N * ndim values, any real numbers). ndim 2 or 3, extents >= 2,
 * N <= EXACT_ISING_COUPLED_MAX_SITES. Returns 0, EXACT_ISING_EINVAL or EXACT_ISING_ENOMEM.
 */
int exact_ising_coupled_moments(int ndim, const int *extent, const double *eps, double beta,
                                double J, double h, struct exact_ising_moments *out);

#endif
