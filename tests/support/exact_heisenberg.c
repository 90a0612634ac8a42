#include <math.h>

#include "exact_heisenberg.h"

int exact_heisenberg_bessel_ratios(double x, int lmax, double *r)
{
    if (!r || lmax < 0 || lmax > EXACT_HEISENBERG_LMAX || !(fabs(x) <= EXACT_HEISENBERG_XMAX))
        return EXACT_HEISENBERG_EINVAL;
    r[0] = 1.0;
    if (x == 0.0) {
        for (int l = 1; l <= lmax; l++)
            r[l] = 0.0;
        return 0;
    }
    /* i_l is even in x for even l and odd for odd l: work with |x|, restore the sign. */
    const double ax = fabs(x);
    /* Above l ~ |x| the ratio i_{l+1} / i_l falls like x / (2l + 3); starting 100 orders
     * above max(lmax, |x|) leaves a relative error far below double rounding. */
    const int start = (lmax > (int)ax ? lmax : (int)ax) + 100;
    double ratio = 0.0; /* i_{l+1} / i_l at l = start */
    double ratios[EXACT_HEISENBERG_LMAX + 1];
    for (int l = start; l >= 1; l--) {
        ratio = 1.0 / ((2.0 * l + 1.0) / ax + ratio); /* now i_l / i_{l-1} */
        if (l <= lmax)
            ratios[l] = ratio;
    }
    for (int l = 1; l <= lmax; l++)
        r[l] = r[l - 1] * ratios[l];
    if (x < 0)
        for (int l = 1; l <= lmax; l += 2)
            r[l] = -r[l];
    return 0;
}

double exact_heisenberg_i0(double x)
{
    return x == 0.0 ? 1.0 : sinh(x) / x;
}

double exact_heisenberg_il(int l, double x)
{
    double r[EXACT_HEISENBERG_LMAX + 1];
    if (exact_heisenberg_bessel_ratios(x, l, r) != 0)
        return NAN;
    return r[l] * exact_heisenberg_i0(x);
}

/*
 * dZ/dbeta = (4 pi)^n sum_l (2l + 1) sum_k J_k i_l'(x_k) prod_{m != k} i_l(x_m), x_k = beta J_k,
 * with i_l' = (l i_{l-1} + (l + 1) i_{l+1}) / (2l + 1) (no 1/x, so J_k = 0 is fine).
 * Z and dZ/dbeta are both divided by (4 pi)^n prod_k i_0(x_k), which keeps every term <= 1
 * in size: with r_l = i_l / i_0 and d_l = i_l' / i_0,
 *   z  = sum_l (2l + 1) prod_k r_l(x_k),
 *   z' = sum_l (2l + 1) sum_k J_k d_l(x_k) prod_{m != k} r_l(x_m),
 *   <H> = -(dZ/dbeta) / Z = -z' / z.
 */
int exact_heisenberg_ring_energy(int n, const double *J, double beta, double *energy)
{
    if (!J || !energy || n < 1 || n > EXACT_HEISENBERG_MAX_RING || !(beta >= 0.0))
        return EXACT_HEISENBERG_EINVAL;
    const int lmax = EXACT_HEISENBERG_LMAX - 1; /* d_l needs r_{l+1} */
    double r[EXACT_HEISENBERG_MAX_RING][EXACT_HEISENBERG_LMAX + 1];
    for (int k = 0; k < n; k++)
        if (exact_heisenberg_bessel_ratios(beta * J[k], EXACT_HEISENBERG_LMAX, r[k]) != 0)
            return EXACT_HEISENBERG_EINVAL;
    double z = 0.0, dz = 0.0;
    for (int l = 0; l <= lmax; l++) {
        double prod = 1.0;
        for (int k = 0; k < n; k++)
            prod *= r[k][l];
        double sum_k = 0.0;
        for (int k = 0; k < n; k++) {
            const double d = l == 0 ? r[k][1]
                                    : (l * r[k][l - 1] + (l + 1) * r[k][l + 1]) / (2.0 * l + 1.0);
            double others = 1.0;
            for (int m = 0; m < n; m++)
                if (m != k)
                    others *= r[m][l];
            sum_k += J[k] * d * others;
        }
        z += (2.0 * l + 1.0) * prod;
        dz += (2.0 * l + 1.0) * sum_k;
    }
    *energy = -dz / z;
    return 0;
}
