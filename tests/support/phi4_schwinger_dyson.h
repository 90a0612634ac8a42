/*
 * The two Schwinger-Dyson columns of a phi^4 field read back from a sim, for the physics
 * tests that check the chain against the identities (integration by parts of the action):
 *   sd1 = 2 H/V + g/12 sum_x phi^4 / V          (expectation 1)
 *   sd2 = sum_x ((dH/dphi)^2 - d2H/dphi^2) / V   (expectation 0)
 * The derivatives come from the action's definition (exact_phi4_force_sums), not from the
 * library. Needs cmocka.h before it.
 */
#ifndef LATMC_TESTS_PHI4_SCHWINGER_DYSON_H
#define LATMC_TESTS_PHI4_SCHWINGER_DYSON_H

#include "exact_phi4.h"
#include "latmc/latmc.h"

/* e: the sim's energy per site now; phi (and fphi for a float field) hold
 * exact_phi4_nsites(lat) values of scratch. */
static inline void phi4_sd_columns(latmc_sim *sim, int precision, double mu2, double g,
                                   double lambda, const struct exact_phi4_lattice *lat,
                                   double e, double *phi, float *fphi, double *sd1,
                                   double *sd2)
{
    const int64_t n = exact_phi4_nsites(lat);
    if (precision == LATMC_PRECISION_FLOAT) {
        assert_int_equal(latmc_sim_get_spins(sim, fphi, (size_t)n * sizeof *fphi), LATMC_OK);
        for (int64_t i = 0; i < n; i++)
            phi[i] = fphi[i];
    } else {
        assert_int_equal(latmc_sim_get_spins(sim, phi, (size_t)n * sizeof *phi), LATMC_OK);
    }
    double s4 = 0, f2 = 0, curv = 0;
    for (int64_t i = 0; i < n; i++)
        s4 += phi[i] * phi[i] * phi[i] * phi[i];
    assert_int_equal(exact_phi4_force_sums(lat, phi, mu2, g, lambda, &f2, &curv), 0);
    *sd1 = 2 * e + g / 12 * s4 / (double)n;
    *sd2 = (f2 - curv) / (double)n;
}

#endif
