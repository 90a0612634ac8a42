/*
 * ising_critical — from chain means to Binder cumulants and second-moment correlation
 * lengths over L, fits and crossings of both, with errors by the jackknife over independent
 * chains.
 */
#ifndef ISING_CRITICAL_ANALYSIS_H
#define ISING_CRITICAL_ANALYSIS_H

#include <stdbool.h>

#include "study.h"

enum { MAX_DEG = 4 };

/* One (L, T) point: estimates and jackknife errors over the R chains. */
struct point {
    double u4, du4;     /* Binder cumulant 1 - <m^4> / (3 <m^2>^2) */
    double absm, dabsm; /* <|m|> */
    double chi, dchi;   /* beta N (<m^2> - <|m|>^2) */
    double e, de;       /* <H>/N */
    double c, dc;       /* beta^2 N (<e^2> - <e>^2) */
    double xil, dxil;   /* xi / L = sqrt(<m^2> / <|m(k_min)|^2> - 1) / (2 L sin(pi / L));
                           NaN where the chains have no |m(k_min)|^2 */
};

/* U4(T) ~ sum_k c[k] x^k with x = (T - t0) / h (scaled for a well-conditioned fit). */
struct poly {
    int deg;
    double c[MAX_DEG + 1];
    double t0, h;
};

/*
 * The crossing of U4(T) (or xi/L(T)) of two sizes. The data locate it between two neighbouring
 * temperatures; both curves are then fitted by polynomials over the `window` temperatures
 * nearest to that bracket only (where a low degree describes them well), and the fits
 * intersected.
 */
struct crossing {
    int la, lb;         /* indices of the two sizes, la < lb */
    bool found;         /* a crossing in the full sample and in every jackknife sample */
    int t_lo, t_hi;     /* the fit window: temperature indices t_lo..t_hi */
    struct poly fa, fb; /* full-sample fits of the two sizes over the window */
    double tc, dtc;     /* crossing temperature and its jackknife error */
    double u, du;       /* U4 (or xi/L) at the crossing */
};

struct analysis {
    struct point pt[MAX_L][MAX_T];
    int deg, window;
    int npairs;
    struct crossing pair[MAX_L * (MAX_L - 1) / 2];
    /* The headline: the crossing of the two largest sizes. Crossings approach Tc as the
     * sizes grow (corrections to scaling), so the largest pair is the least biased; the
     * others show the drift. */
    bool found;
    double tc, dtc, u;
    /* The same for xi/L (have_xi: every chain measured |m(k_min)|^2; a point whose xi/L
     * is not finite all the same has no crossing through it). Its crossings have smaller
     * corrections to scaling than U4's; xi/L at Tc tends to 0.9050488292 (Salas and Sokal
     * 2000). */
    bool have_xi;
    struct crossing xpair[MAX_L * (MAX_L - 1) / 2];
    bool xfound;
    double xtc, dxtc, xu;
};

double poly_eval(const struct poly *p, double T);

/* Analyse the study with fits of degree deg over `window` temperatures around each
 * crossing. Returns false on a numerical failure. */
bool analyse(const struct study *s, int deg, int window, struct analysis *a);

#endif
