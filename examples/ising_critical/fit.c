/*
 * ising_critical — weighted least-squares polynomial fits and the crossing of two fits.
 * Small and dense (degree <= 4): normal equations with partial pivoting suffice once the
 * temperature is scaled to [-1, 1].
 */
#include <math.h>

#include "analysis.h"
#include "fit.h"

double poly_eval(const struct poly *p, double T)
{
    double x = (T - p->t0) / p->h, y = 0.0;
    for (int k = p->deg; k >= 0; k--)
        y = y * x + p->c[k];
    return y;
}

bool poly_fit(const double *T, const double *y, const double *w, int n, int deg,
              double t0, double h, struct poly *p)
{
    int m = deg + 1;
    if (deg < 0 || deg > MAX_DEG || n < m)
        return false;
    double A[MAX_DEG + 1][MAX_DEG + 2] = { { 0 } };  /* [A | b] */
    for (int i = 0; i < n; i++) {
        double x = (T[i] - t0) / h, xp[2 * MAX_DEG + 1];
        xp[0] = 1.0;
        for (int k = 1; k <= 2 * deg; k++)
            xp[k] = xp[k - 1] * x;
        for (int r = 0; r < m; r++) {
            for (int c = 0; c < m; c++)
                A[r][c] += w[i] * xp[r + c];
            A[r][m] += w[i] * xp[r] * y[i];
        }
    }
    for (int col = 0; col < m; col++) {
        int piv = col;
        for (int r = col + 1; r < m; r++)
            if (fabs(A[r][col]) > fabs(A[piv][col]))
                piv = r;
        if (A[piv][col] == 0.0)
            return false;
        for (int c = 0; c <= m; c++) {
            double tmp = A[col][c];
            A[col][c] = A[piv][c];
            A[piv][c] = tmp;
        }
        for (int r = 0; r < m; r++) {
            if (r == col)
                continue;
            double f = A[r][col] / A[col][col];
            for (int c = col; c <= m; c++)
                A[r][c] -= f * A[col][c];
        }
    }
    p->deg = deg;
    p->t0 = t0;
    p->h = h;
    for (int k = 0; k < m; k++)
        p->c[k] = A[k][m] / A[k][k];
    return true;
}

double poly_crossing(const struct poly *small, const struct poly *big, double tmin, double tmax)
{
    /* Below Tc the larger lattice is more ordered (larger U4), above it less: the crossing
     * is where big - small changes sign from + to -. Scan finely, then bisect. */
    enum { STEPS = 4096 };
    double prev_t = tmin, prev_d = poly_eval(big, tmin) - poly_eval(small, tmin);
    for (int i = 1; i <= STEPS; i++) {
        double t = tmin + (tmax - tmin) * i / STEPS;
        double d = poly_eval(big, t) - poly_eval(small, t);
        if (prev_d > 0.0 && d <= 0.0) {
            double lo = prev_t, hi = t;
            for (int it = 0; it < 60; it++) {
                double mid = 0.5 * (lo + hi);
                if (poly_eval(big, mid) - poly_eval(small, mid) > 0.0)
                    lo = mid;
                else
                    hi = mid;
            }
            return 0.5 * (lo + hi);
        }
        prev_t = t;
        prev_d = d;
    }
    return NAN;
}
