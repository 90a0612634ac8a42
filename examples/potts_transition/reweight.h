/*
 * potts_transition — single-histogram reweighting and the phase weights of a first-order
 * transition.
 *
 * From counts n(B) sampled at beta, the distribution at beta' is
 * P'(B) ~ n(B) exp((beta' - beta) B) (E = -B), exact up to the statistics of the tails.
 * At a first-order point in a periodic box the q ordered phases together carry q times the
 * weight of the disordered phase, up to corrections exponentially small in L (Borgs and
 * Kotecky; Janke's "equal weight" criterion, PRB 47, 14757 (1993)): the beta' where
 * W_ordered = q W_disordered estimates beta_c without power-law finite-size shifts.
 */
#ifndef POTTS_REWEIGHT_H
#define POTTS_REWEIGHT_H

#include <stdbool.h>

#include "potts.h"

enum { HIST_BINS = 80 };

/* The binned distribution of e = E/N at beta' (chains all, or all but `skip`), normalised
 * to a density in e. Bin j holds `width` consecutive values of B (whole numbers of them, so
 * that no bin gets more values than another) and is centred at e[j], increasing in j. */
struct binned {
    int nbins, width;
    int b_top;               /* the largest B with data: bin 0 starts there */
    double e[HIST_BINS], p[HIST_BINS];
};

/* False only when out of memory. */
bool hist_binned(const struct energy_hist *h, int skip, double beta, struct binned *out);

/* The two peaks (ordered: low e, disordered: high e) of a binned distribution, and the
 * minimum between them; false if it has a single peak. */
bool hist_peaks(const struct binned *b, double *e_ord, double *e_dis, double *e_min,
                double *dip);

/* beta' with W_ordered = q W_disordered (split at the minimum between the peaks), searched
 * in [beta - width, beta + width]; NaN if there is no double peak or no solution there. */
double hist_equal_weight(const struct energy_hist *h, int skip, int q, double width);

#endif
