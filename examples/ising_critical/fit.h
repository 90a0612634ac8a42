/* ising_critical — polynomial fits of U4(T) and their crossings. */
#ifndef ISING_CRITICAL_FIT_H
#define ISING_CRITICAL_FIT_H

#include <stdbool.h>

#include "analysis.h"

/* Weighted least-squares fit of y(T) with weights w (1 / sigma^2) by a polynomial of degree
 * deg in x = (T - t0) / h. False if the system is singular or n <= deg. */
bool poly_fit(const double *T, const double *y, const double *w, int n, int deg,
              double t0, double h, struct poly *p);

/* The temperature in [tmin, tmax] where big - small first changes sign from + to -, or NaN. */
double poly_crossing(const struct poly *small, const struct poly *big, double tmin,
                     double tmax);

#endif
