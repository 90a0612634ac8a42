/* potts_transition — single-histogram reweighting and the phase weights (reweight.h). */
#include <math.h>
#include <stdlib.h>

#include "reweight.h"

/* Pooled counts of value B, leaving out chain `skip` (-1: none). */
static double pooled(const struct energy_hist *h, int skip, int B)
{
    double n = 0.0;
    for (int k = 0; k < h->nchains; k++)
        if (k != skip)
            n += (double)h->count[(size_t)k * (size_t)(2 * h->N + 1) + (size_t)B];
    return n;
}

/* log of the reweighted weight of each B (unnormalised; -inf where there is no data), and
 * the range of B with data. */
static void log_weights(const struct energy_hist *h, int skip, double beta, double *lw,
                        int *bmin, int *bmax)
{
    *bmin = 2 * h->N;
    *bmax = 0;
    for (int B = 0; B <= 2 * h->N; B++) {
        double n = pooled(h, skip, B);
        /* E = -B: exp(-(beta' - beta) E) = exp((beta' - beta) B). Logs keep the large
         * exponents (beta' - beta) B of big lattices finite. */
        lw[B] = n > 0.0 ? log(n) + (beta - h->beta_run) * B : -INFINITY;
        if (n > 0.0) {
            if (B < *bmin)
                *bmin = B;
            if (B > *bmax)
                *bmax = B;
        }
    }
}

bool hist_binned(const struct energy_hist *h, int skip, double beta, struct binned *out)
{
    double *lw = malloc((size_t)(2 * h->N + 1) * sizeof *lw);
    int bmin, bmax;
    if (lw == NULL)
        return false;
    log_weights(h, skip, beta, lw, &bmin, &bmax);
    double top = -INFINITY;
    for (int B = bmin; B <= bmax; B++)
        top = fmax(top, lw[B]);
    int span = bmax - bmin + 1;
    out->width = (span + HIST_BINS - 1) / HIST_BINS;
    out->nbins = (span + out->width - 1) / out->width;
    out->b_top = bmax;
    double total = 0.0;
    for (int j = 0; j < out->nbins; j++) {
        out->p[j] = 0.0;
        /* bin j holds B = bmax - j w .. bmax - (j + 1) w + 1; e = -B/N increases with j */
        out->e[j] = -(bmax - j * out->width - 0.5 * (out->width - 1)) / h->N;
    }
    for (int B = bmin; B <= bmax; B++) {
        double w = exp(lw[B] - top);
        out->p[(bmax - B) / out->width] += w;
        total += w;
    }
    double de = (double)out->width / h->N;
    for (int j = 0; j < out->nbins; j++)
        out->p[j] /= total * de;
    free(lw);
    return true;
}

bool hist_peaks(const struct binned *b, double *e_ord, double *e_dis, double *e_min,
                double *dip)
{
    if (b->nbins < 1 || b->nbins > HIST_BINS)
        return false; /* no histogram to read peaks from */
    /* Smooth over three bins so that noise in the tails is not taken for a peak. */
    double s[HIST_BINS];
    int g = 0;
    for (int j = 0; j < b->nbins; j++) {
        double sum = 0.0;
        int n = 0;
        for (int i = j - 1; i <= j + 1; i++)
            if (i >= 0 && i < b->nbins) {
                sum += b->p[i];
                n++;
            }
        s[j] = sum / n;
        if (s[j] > s[g])
            g = j;
    }
    /* The second peak: the highest bin, on either side of the global maximum, separated
     * from it by a dip to below 70 % of its own height. */
    int second = -1;
    for (int dir = -1; dir <= 1; dir += 2) {
        double run_min = s[g];
        for (int j = g + dir; j >= 0 && j < b->nbins; j += dir) {
            run_min = fmin(run_min, s[j]);
            if (s[j] > 0.05 * s[g] && run_min < 0.7 * s[j] && (second < 0 || s[j] > s[second]))
                second = j;
        }
    }
    if (second < 0)
        return false;
    int lo = g < second ? g : second, hi = g < second ? second : g, m = lo;
    for (int j = lo; j <= hi; j++)
        if (s[j] < s[m])
            m = j;
    *e_ord = b->e[lo];
    *e_dis = b->e[hi];
    *e_min = b->e[m];
    *dip = s[m] / fmin(s[lo], s[hi]);
    return true;
}

/* ln W_ordered - ln W_disordered - ln q at beta', split at the histogram's minimum (at beta'
 * when it is double-peaked there, else at the run's beta). NaN without a double peak. */
static double weight_balance(const struct energy_hist *h, int skip, int q, double beta)
{
    struct binned b;
    double e_o, e_d, e_min, dip;
    if (!hist_binned(h, skip, beta, &b))
        return NAN;
    if (!hist_peaks(&b, &e_o, &e_d, &e_min, &dip)) {
        if (!hist_binned(h, skip, h->beta_run, &b) ||
            !hist_peaks(&b, &e_o, &e_d, &e_min, &dip))
            return NAN;
    }
    double *lw = malloc((size_t)(2 * h->N + 1) * sizeof *lw);
    int bmin, bmax;
    if (lw == NULL)
        return NAN;
    log_weights(h, skip, beta, lw, &bmin, &bmax);
    double top = -INFINITY;
    for (int B = bmin; B <= bmax; B++)
        top = fmax(top, lw[B]);
    double b_split = -e_min * h->N, w_ord = 0.0, w_dis = 0.0;
    for (int B = bmin; B <= bmax; B++) {
        double w = exp(lw[B] - top);
        if (B > b_split)
            w_ord += w;  /* more satisfied bonds: lower energy, ordered */
        else
            w_dis += w;
    }
    free(lw);
    return log(w_ord) - log(w_dis) - log((double)q);
}

double hist_equal_weight(const struct energy_hist *h, int skip, int q, double width)
{
    double lo = h->beta_run - width, hi = h->beta_run + width;
    double flo = weight_balance(h, skip, q, lo), fhi = weight_balance(h, skip, q, hi);
    /* A larger beta favours the ordered phases: the balance increases with beta. */
    if (isnan(flo) || isnan(fhi) || flo > 0.0 || fhi < 0.0)
        return NAN;
    for (int it = 0; it < 60; it++) {
        double mid = 0.5 * (lo + hi), f = weight_balance(h, skip, q, mid);
        if (isnan(f))
            return NAN;
        if (f < 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}
