/*
 * potts_transition — the 2D q-state Potts model across its transition at
 * beta_c = ln(1 + sqrt q): continuous for q = 3, first order for q = 10.
 */
#ifndef POTTS_EX_H
#define POTTS_EX_H

#include <stdbool.h>
#include <stdint.h>

#include <latmc/latmc.h>

enum { MAX_SCAN = 64, MAX_CHAINS = 64 };

/* One model of the example: q, its lattice and its runs. */
struct potts_case {
    int q, L;
    double beta_c;            /* ln(1 + sqrt q) */
    /* the scan: nscan points beta/beta_c in [lo, hi], one chain each */
    int nscan;
    double lo, hi;
    /* the energy histogram at beta_c: nchains independent chains */
    int nchains;
};

struct run_plan {
    uint64_t therm, sweeps;   /* per chain: thermalisation, measured (scan) */
    uint64_t hist_sweeps;     /* measured sweeps per histogram chain */
    uint64_t seed;
    int jobs;
};

/* One scan point's results (per site), errors by binning (e, m) and jackknife (C, chi,
 * xi/L). xi/L: the second-moment correlation length of the simplex order parameter over L
 * (doc/observables.md); NaN where it is not real (<|m(0)|^2> <= <|m(k_min)|^2>, deep in
 * the disordered phase within the errors). */
struct scan_point {
    double beta, e, de, m, dm, c, dc, chi, dchi, xil, dxil;
};

/* Histogram of B = -E/J (the number of satisfied bonds, an integer 0..2N) pooled over
 * chains run at beta_run, kept per chain so that the jackknife can leave one out. */
struct energy_hist {
    int N;                    /* sites */
    int nchains;
    double beta_run;
    uint64_t *count;          /* [chain * (2N + 1) + B] */
};

/* Run the scan of c (results in pts[0..nscan-1]). 0 on success. */
int potts_scan(latmc_ctx *ctx, const struct potts_case *c, const struct run_plan *p,
               struct scan_point *pts);

/* Run the histogram chains of c at beta_c. 0 on success; free with hist_free. */
int potts_histogram(latmc_ctx *ctx, const struct potts_case *c, const struct run_plan *p,
                    struct energy_hist *h);
void hist_free(struct energy_hist *h);

#endif
