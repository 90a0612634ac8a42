/*
 * potts_transition — exact results of the 2D q-state Potts model at beta_c (Baxter 1973),
 * per site, J = 1, two bonds per site:
 *   beta_c = ln(1 + sqrt q);
 *   q <= 4 (continuous): e(beta_c) = -(1 + 1/sqrt q);
 *   q > 4 (first order): the ordered and disordered energies e_o, e_d have the mean
 *   -(1 + 1/sqrt q) and differ by the latent heat
 *   2 (1 + 1/sqrt q) tanh(theta/2) prod_{n>=1} tanh^2(n theta), 2 cosh theta = sqrt q.
 */
#ifndef POTTS_EXACT_H
#define POTTS_EXACT_H

#include <math.h>

static inline double potts_beta_c(int q)
{
    return log(1.0 + sqrt((double)q));
}

static inline double potts_latent_heat(int q)
{
    if (q <= 4)
        return 0.0;
    double theta = acosh(sqrt((double)q) / 2.0), prod = 1.0;
    for (int n = 1; n < 200; n++) {
        double t = tanh(n * theta);
        prod *= t * t;
    }
    return 2.0 * (1.0 + 1.0 / sqrt((double)q)) * tanh(theta / 2.0) * prod;
}

/* e_o (sign -1) or e_d (sign +1); both equal e(beta_c) for q <= 4. */
static inline double potts_energy_c(int q, int sign)
{
    return -(1.0 + 1.0 / sqrt((double)q)) + sign * 0.5 * potts_latent_heat(q);
}

#endif
