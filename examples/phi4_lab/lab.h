/*
 * phi4_lab — the "virtual lab" of the phi^4 model with the 1/Lambda cut-off term
 * (doc/models/phi4.md; Bialas, Kowal, Strzelecki): scan mu2 at fixed g and Lambda and watch
 * the field order, through <|phi|>, the susceptibility and the Binder cumulant.
 */
#ifndef PHI4_LAB_H
#define PHI4_LAB_H

#include <stdbool.h>
#include <stdint.h>

#include <latmc/latmc.h>

enum { LAB_MAX_L = 6, LAB_MAX_POINTS = 64 };

struct lab {
    int ndim, nL, L[LAB_MAX_L];
    int precision;            /* LATMC_PRECISION_FLOAT or _DOUBLE */
    double g, lambda;         /* fixed couplings; lambda may be +inf (no cut-off term) */
    double mu2_lo, mu2_hi;    /* the scan */
    int npoints;
    int nhit, nloc;
    double target;            /* acceptance the proposal width is tuned to */
    uint64_t therm, sweeps, seed;
    int jobs;
};

/* One (L, mu2) point, per site; errors by binning (means) and jackknife (chi, U4). */
struct lab_point {
    double mu2;
    double absm, dabsm;       /* <|phi|>, phi = the lattice average of the field */
    double chi, dchi;         /* N (<phi^2> - <|phi|>^2) */
    double u4, du4;           /* 1 - <phi^4> / (3 <phi^2>^2) */
    double phi2, dphi2;       /* <sum_x phi(x)^2 / N> */
    double acceptance, epsilon;
};

/* Run every point; res[l * npoints + i]. 0 on success. */
int lab_run(const struct lab *lab, struct lab_point *res);

#endif
