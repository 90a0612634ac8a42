/* Exact Ising averages with one coupling per bond, by summing over every state. */
#include "exact_ising_coupled.h"

#include <math.h>
#include <stdlib.h>

/* Bond sum B = sum_x sum_mu eps s_x s_{x+mu} and M of state `bits` (bit i set: s_i = -1). */
static void state_sums(int ndim, const int *L, const double *eps, uint32_t bits, double *b,
                       int *m)
{
    const int lz = ndim == 3 ? L[2] : 1, n = L[0] * L[1] * lz;
    double bonds = 0;
    int mag = 0;
    for (int i = 0; i < n; i++) {
        const int x = i % L[0], y = (i / L[0]) % L[1], z = i / (L[0] * L[1]);
        const int s = (bits >> i) & 1u ? -1 : 1;
        const int up[3] = { (x + 1) % L[0] + L[0] * (y + L[1] * z),
                            x + L[0] * ((y + 1) % L[1] + L[1] * z),
                            x + L[0] * (y + L[1] * ((z + 1) % lz)) };
        for (int mu = 0; mu < ndim; mu++)
            bonds += eps[ndim * i + mu] * s * ((bits >> up[mu]) & 1u ? -1 : 1);
        mag += s;
    }
    *b = bonds;
    *m = mag;
}

int exact_ising_coupled_moments(int ndim, const int *extent, const double *eps, double beta,
                                double J, double h, struct exact_ising_moments *out)
{
    if ((ndim != 2 && ndim != 3) || !extent || !eps || !out)
        return EXACT_ISING_EINVAL;
    int n = 1;
    for (int mu = 0; mu < ndim; mu++) {
        if (extent[mu] < 2 || extent[mu] > EXACT_ISING_COUPLED_MAX_SITES)
            return EXACT_ISING_EINVAL;
        n *= extent[mu];
    }
    if (n > EXACT_ISING_COUPLED_MAX_SITES)
        return EXACT_ISING_EINVAL;
    const uint32_t nstates = UINT32_C(1) << n;
    double *e = malloc(nstates * sizeof *e), *m = malloc(nstates * sizeof *m);
    if (!e || !m) {
        free(e);
        free(m);
        return EXACT_ISING_ENOMEM;
    }
    double wmax = -INFINITY;
    for (uint32_t k = 0; k < nstates; k++) {
        double b;
        int mag;
        state_sums(ndim, extent, eps, k, &b, &mag);
        e[k] = (-J * b - h * mag) / n;
        m[k] = (double)mag / n;
        if (-beta * n * e[k] > wmax)
            wmax = -beta * n * e[k];
    }
    /* weights exp(-beta H - wmax) <= 1: nothing overflows */
    double z = 0, se = 0, se2 = 0, sm = 0, sabsm = 0, sm2 = 0, sm4 = 0;
    for (uint32_t k = 0; k < nstates; k++) {
        const double w = exp(-beta * n * e[k] - wmax);
        z += w;
        se += w * e[k];
        se2 += w * e[k] * e[k];
        sm += w * m[k];
        sabsm += w * fabs(m[k]);
        sm2 += w * m[k] * m[k];
        sm4 += w * m[k] * m[k] * m[k] * m[k];
    }
    out->lnz = log(z) + wmax;
    out->e = se / z;
    out->e2 = se2 / z;
    out->m = sm / z;
    out->absm = sabsm / z;
    out->m2 = sm2 / z;
    out->m4 = sm4 / z;
    double var = 0;
    for (uint32_t k = 0; k < nstates; k++) {
        const double d = e[k] - out->e;
        var += exp(-beta * n * e[k] - wmax) * d * d;
    }
    out->var_e = var / z;
    free(e);
    free(m);
    return 0;
}
