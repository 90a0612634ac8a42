#include <math.h>
#include <stdlib.h>

#include "exact_phi4.h"

int64_t exact_phi4_nsites(const struct exact_phi4_lattice *lat)
{
    int64_t n = 1;
    for (int mu = 0; mu < lat->ndim; mu++)
        n *= lat->L[mu];
    return n;
}

int64_t exact_phi4_index(const struct exact_phi4_lattice *lat, const int64_t *x)
{
    int64_t index = 0, stride = 1;
    for (int mu = 0; mu < lat->ndim; mu++) {
        int64_t a = x[mu] % lat->L[mu];
        if (a < 0)
            a += lat->L[mu];
        index += stride * a;
        stride *= lat->L[mu];
    }
    return index;
}

/* Coordinates of site i. */
static void coords(const struct exact_phi4_lattice *lat, int64_t i, int64_t *x)
{
    x[0] = x[1] = x[2] = 0;
    for (int mu = 0; mu < lat->ndim; mu++) {
        x[mu] = i % lat->L[mu];
        i /= lat->L[mu];
    }
}

/* phi at x + s e_mu. */
static double shifted(const struct exact_phi4_lattice *lat, const double *f, const int64_t *x,
                      int mu, int s)
{
    int64_t y[3] = { x[0], x[1], x[2] };
    y[mu] += s;
    return f[exact_phi4_index(lat, y)];
}

/* (D f)(x) = sum_mu (f(x+mu) - 2 f(x) + f(x-mu)). */
static double laplacian(const struct exact_phi4_lattice *lat, const double *f, const int64_t *x)
{
    const double v = f[exact_phi4_index(lat, x)];
    double sum = 0;
    for (int mu = 0; mu < lat->ndim; mu++)
        sum += shifted(lat, f, x, mu, +1) - 2.0 * v + shifted(lat, f, x, mu, -1);
    return sum;
}

long double exact_phi4_hamiltonian(const struct exact_phi4_lattice *lat, const double *phi,
                                   double mu2, double g, double lambda)
{
    const int64_t n = exact_phi4_nsites(lat);
    long double h = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t x[3];
        coords(lat, i, x);
        const long double v = phi[i];
        long double kinetic = 0, lap = 0;
        for (int mu = 0; mu < lat->ndim; mu++) {
            const long double up = shifted(lat, phi, x, mu, +1);
            const long double down = shifted(lat, phi, x, mu, -1);
            kinetic += (up - v) * (up - v);
            lap += up - 2 * v + down;
        }
        h += kinetic / 2 + (long double)mu2 / 2 * v * v + (long double)g / 24 * v * v * v * v;
        if (isfinite(lambda))
            h += lap * lap / (2 * (long double)lambda);
    }
    return h;
}

double exact_phi4_gaussian_phi2(const struct exact_phi4_lattice *lat, double mu2, double lambda)
{
    const double two_pi = 6.283185307179586476925286766559;
    const int64_t n = exact_phi4_nsites(lat);
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t k[3];
        coords(lat, i, k);
        double p2 = 0;
        for (int mu = 0; mu < lat->ndim; mu++) {
            const double s = sin(two_pi * (double)k[mu] / (double)lat->L[mu] / 2.0);
            p2 += 4.0 * s * s;
        }
        double kp = p2 + mu2;
        if (isfinite(lambda))
            kp += p2 * p2 / lambda;
        if (!(kp > 0))
            return NAN;
        sum += 1.0 / kp;
    }
    return sum / (double)n;
}

double exact_phi4_gaussian_m2(const struct exact_phi4_lattice *lat, double mu2)
{
    return 1.0 / ((double)exact_phi4_nsites(lat) * mu2);
}

int exact_phi4_force_sums(const struct exact_phi4_lattice *lat, const double *phi, double mu2,
                          double g, double lambda, double *sum_force2, double *sum_curvature)
{
    const int64_t n = exact_phi4_nsites(lat);
    const double k = lat->ndim;
    double *lap = malloc((size_t)n * sizeof *lap);
    if (!lap)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        int64_t x[3];
        coords(lat, i, x);
        lap[i] = laplacian(lat, phi, x);
    }
    double f2 = 0, curv = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t x[3];
        coords(lat, i, x);
        const double v = phi[i];
        double force = -lap[i] + mu2 * v + g / 6.0 * v * v * v;
        double c = 2.0 * k + mu2 + g / 2.0 * v * v;
        if (isfinite(lambda)) {
            force += laplacian(lat, lap, x) / lambda;
            c += (4.0 * k * k + 2.0 * k) / lambda;
        }
        f2 += force * force;
        curv += c;
    }
    free(lap);
    *sum_force2 = f2;
    *sum_curvature = curv;
    return 0;
}
