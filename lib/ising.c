/*
 * Ising decision tables and observables. Both are computed here, once, in double
 * precision on the host, so that every backend takes bit-identical decisions and reports
 * bit-identical observables from the same integer state.
 */
#include <math.h>

#include "ising.h"

/* floor(p * 2^32) clamped to [0, 2^32]: u32 < threshold happens with probability p (to 2^-32). */
static uint64_t threshold(double p)
{
    if (!(p > 0.0))
        return 0;
    if (p >= 1.0)
        return UINT64_C(1) << 32;
    return (uint64_t)ldexp(p, 32);
}

/* Metropolis: flip s with probability min(1, exp(-beta dE)), dE = 2 s (J n + h). */
static double metropolis_probability(int s, int n, double beta, double J, double h)
{
    if (beta == 0.0)
        return 1.0;
    double de = 2.0 * s * (J * n + h);
    if (de <= 0.0)
        return 1.0; /* exactly 1, not exp() rounded */
    return exp(-beta * de);
}

/* Heat bath: the new spin is +1 with probability 1 / (1 + exp(-2 beta (J n + h))). */
static double heatbath_probability(int n, double beta, double J, double h)
{
    if (beta == 0.0)
        return 0.5;
    return 1.0 / (1.0 + exp(-2.0 * beta * (J * n + h)));
}

void latmc_ising_tables_compute(struct latmc_ising_tables *t, int ndim, double beta, double J,
                                double h)
{
    for (int k = 0; k < LATMC_ISING_MAX_K; k++) {
        if (k > 2 * ndim) {
            t->metropolis[0][k] = t->metropolis[1][k] = t->heatbath[k] = 0;
            continue;
        }
        int n = 2 * k - 2 * ndim; /* neighbour sum */
        t->metropolis[0][k] = threshold(metropolis_probability(-1, n, beta, J, h));
        t->metropolis[1][k] = threshold(metropolis_probability(+1, n, beta, J, h));
        t->heatbath[k] = threshold(heatbath_probability(n, beta, J, h));
    }
}

int latmc_ising_observable(const struct latmc_ising_sums *s, int64_t nsites, double J, double h,
                           int key, double *value)
{
    const double n = (double)nsites;
    const double m = (double)s->spins / n;
    switch (key) {
    case LATMC_OBS_ENERGY:
        *value = (-J * (double)s->bonds - h * (double)s->spins) / n;
        return LATMC_OK;
    case LATMC_OBS_MAGNETIZATION:
        *value = m;
        return LATMC_OK;
    case LATMC_OBS_ABS_MAGNETIZATION:
        *value = fabs(m);
        return LATMC_OK;
    case LATMC_OBS_M2:
        *value = m * m;
        return LATMC_OK;
    case LATMC_OBS_M4:
        *value = (m * m) * (m * m);
        return LATMC_OK;
    default:
        return LATMC_EUNSUPPORTED;
    }
}
