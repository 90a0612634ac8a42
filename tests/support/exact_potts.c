/*
 * Test support: exact Potts averages by full enumeration (see exact_potts.h). The states
 * are visited as the digits of a base-q counter; each increment changes one site (plus
 * the sites it carries into), so the satisfied-term count and the populations are updated
 * locally instead of recomputed.
 */
#include "exact_potts.h"

#include <math.h>
#include <stdlib.h>

void exact_potts_hist_free(struct exact_potts_hist *hist)
{
    if (!hist)
        return;
    free(hist->count);
    hist->count = NULL;
    hist->nsites = hist->nterms = hist->q = 0;
}

static size_t hist_index(const struct exact_potts_hist *hist, int matches, int n0, int nmax)
{
    const size_t w = (size_t)hist->nsites + 1;
    return ((size_t)matches * w + (size_t)n0) * w + (size_t)nmax;
}

uint64_t exact_potts_hist_count(const struct exact_potts_hist *hist, int matches, int n0,
                                int nmax)
{
    if (!hist || !hist->count || matches < 0 || matches > hist->nterms || n0 < 0 ||
        n0 > hist->nsites || nmax < 0 || nmax > hist->nsites)
        return 0;
    return hist->count[hist_index(hist, matches, n0, nmax)];
}

/*
 * Neighbour table: for each site, the forward and backward neighbour in every direction of
 * extent > 1 (extent 1: the term delta(s_x, s_x) = 1 never changes, and is added as a
 * constant). On an extent of 2 both entries name the same site, so changing s_i changes
 * both terms of that pair, as the N*ndim-term convention requires. Returns the number of
 * entries per site.
 */
static int build_neighbours(int ndim, const int *extent, int n,
                            int nb[EXACT_POTTS_MAX_SITES][2 * EXACT_POTTS_MAX_DIM],
                            int *constant_terms)
{
    int nnb = 0, stride = 1;
    *constant_terms = 0;
    for (int k = 0; k < ndim; ++k) {
        const int L = extent[k];
        if (L == 1) {
            *constant_terms += n;
        } else {
            for (int i = 0; i < n; ++i) {
                const int xk = (i / stride) % L;
                const int base = i - xk * stride;
                nb[i][nnb] = base + ((xk + 1) % L) * stride;
                nb[i][nnb + 1] = base + ((xk + L - 1) % L) * stride;
            }
            nnb += 2;
        }
        stride *= L;
    }
    return nnb;
}

/* Satisfied terms that involve site i if it were in state v. */
static int local_matches(const int *nb_i, int nnb, const unsigned char *s, int v)
{
    int m = 0;
    for (int a = 0; a < nnb; ++a)
        m += s[nb_i[a]] == v;
    return m;
}

int exact_potts_hist_build(int ndim, const int *extent, int q, struct exact_potts_hist *hist)
{
    if (!hist)
        return EXACT_POTTS_EINVAL;
    hist->nsites = hist->nterms = hist->q = 0;
    hist->count = NULL;
    if (!extent || ndim < 1 || ndim > EXACT_POTTS_MAX_DIM || q < 2 || q > EXACT_POTTS_MAX_Q)
        return EXACT_POTTS_EINVAL;
    int n = 1;
    for (int k = 0; k < ndim; ++k) {
        if (extent[k] < 1 || extent[k] > EXACT_POTTS_MAX_SITES)
            return EXACT_POTTS_EINVAL;
        n *= extent[k];
        if (n > EXACT_POTTS_MAX_SITES)
            return EXACT_POTTS_EINVAL;
    }
    uint64_t nstates = 1;
    for (int i = 0; i < n; ++i) {
        nstates *= (uint64_t)q;
        if (nstates > EXACT_POTTS_MAX_STATES)
            return EXACT_POTTS_EINVAL;
    }
    int nb[EXACT_POTTS_MAX_SITES][2 * EXACT_POTTS_MAX_DIM];
    int constant_terms = 0;
    const int nnb = build_neighbours(ndim, extent, n, nb, &constant_terms);
    hist->nsites = n;
    hist->nterms = n * ndim;
    hist->q = q;
    hist->count = calloc((size_t)(hist->nterms + 1) * (size_t)(n + 1) * (size_t)(n + 1),
                         sizeof *hist->count);
    if (!hist->count) {
        exact_potts_hist_free(hist);
        return EXACT_POTTS_ENOMEM;
    }

    /* Start: every site in state 0, every term satisfied. */
    unsigned char s[EXACT_POTTS_MAX_SITES] = { 0 };
    int pop[EXACT_POTTS_MAX_Q] = { 0 };
    pop[0] = n;
    int matches = hist->nterms;
    for (uint64_t state = 0;; ++state) {
        int nmax = 0;
        for (int k = 0; k < q; ++k)
            nmax = pop[k] > nmax ? pop[k] : nmax;
        hist->count[hist_index(hist, matches, pop[0], nmax)] += 1;
        if (state + 1 == nstates)
            break;
        /* Next state: add 1 to the base-q number s[n-1] ... s[0]. */
        for (int i = 0; i < n; ++i) {
            const int old = s[i], new_state = (old + 1) % q;
            matches += local_matches(nb[i], nnb, s, new_state) - local_matches(nb[i], nnb, s, old);
            pop[old]--;
            pop[new_state]++;
            s[i] = (unsigned char)new_state;
            if (new_state != 0)
                break; /* no carry */
        }
    }
    (void)constant_terms; /* always satisfied: included in the start value nterms */
    return 0;
}

/* ln of the weight of one histogram bin: degeneracy times exp(-beta H). */
static double log_weight(uint64_t cnt, int matches, int n0, double beta, double J, double h)
{
    return log((double)cnt) + beta * (J * (double)matches + h * (double)n0);
}

int exact_potts_hist_moments(const struct exact_potts_hist *hist, double beta, double J,
                             double h, struct exact_potts_moments *out)
{
    if (!hist || !hist->count || !out || !isfinite(beta) || !isfinite(J) || !isfinite(h))
        return EXACT_POTTS_EINVAL;
    const int n = hist->nsites;
    const double N = (double)n, q = (double)hist->q;
    double lwmax = -INFINITY;
    for (int b = 0; b <= hist->nterms; ++b)
        for (int n0 = 0; n0 <= n; ++n0)
            for (int nm = 0; nm <= n; ++nm) {
                const uint64_t c = hist->count[hist_index(hist, b, n0, nm)];
                if (c) {
                    const double lw = log_weight(c, b, n0, beta, J, h);
                    lwmax = lw > lwmax ? lw : lwmax;
                }
            }
    /* Two passes: the mean of e first, then the variance about it (no cancellation). */
    double z = 0, se = 0, sn0 = 0, sm = 0, sm2 = 0, sm4 = 0;
    for (int b = 0; b <= hist->nterms; ++b)
        for (int n0 = 0; n0 <= n; ++n0)
            for (int nm = 0; nm <= n; ++nm) {
                const uint64_t c = hist->count[hist_index(hist, b, n0, nm)];
                if (!c)
                    continue;
                const double w = exp(log_weight(c, b, n0, beta, J, h) - lwmax);
                const double e = (-J * b - h * n0) / N;
                const double m = (q * nm / N - 1.0) / (q - 1.0);
                z += w;
                se += w * e;
                sn0 += w * n0 / N;
                sm += w * m;
                sm2 += w * m * m;
                sm4 += w * m * m * m * m;
            }
    out->lnz = lwmax + log(z);
    out->e = se / z;
    out->n0 = sn0 / z;
    out->m = sm / z;
    out->m2 = sm2 / z;
    out->m4 = sm4 / z;
    double sv = 0;
    for (int b = 0; b <= hist->nterms; ++b)
        for (int n0 = 0; n0 <= n; ++n0)
            for (int nm = 0; nm <= n; ++nm) {
                const uint64_t c = hist->count[hist_index(hist, b, n0, nm)];
                if (!c)
                    continue;
                const double w = exp(log_weight(c, b, n0, beta, J, h) - lwmax);
                const double d = (-J * b - h * n0) / N - out->e;
                sv += w * d * d;
            }
    out->var_e = sv / z;
    return 0;
}

int exact_potts_enumerate(int ndim, const int *extent, int q, double beta, double J, double h,
                          struct exact_potts_moments *out)
{
    struct exact_potts_hist hist;
    int st = exact_potts_hist_build(ndim, extent, q, &hist);
    if (st == 0)
        st = exact_potts_hist_moments(&hist, beta, J, h, out);
    exact_potts_hist_free(&hist);
    return st;
}
