/*
 * ising_critical — Binder cumulants and their crossings, errors by the jackknife over
 * the R independent chains of every (L, T) point.
 *
 * Jackknife sample k leaves chain k out of every point at once, pools the other R - 1
 * chains' means, and redoes everything downstream (U4, the fits, the crossings). The
 * spread of the R samples gives the error: sigma^2 = (R - 1)/R sum_k (v_k - mean_k v)^2.
 * Because each sample redoes the whole chain of analysis, the error includes the
 * nonlinearity of U4 and of the fits, and the correlations between crossings that share
 * data. Chains are independent Markov chains (different seeds), so no autocorrelation
 * enters between jackknife blocks; within a chain the mean is all that is used.
 */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "fit.h"

/* Means pooled over the chains of (l, t), leaving out chain `skip` (-1: none). */
static struct chain_means pooled(const struct study *s, int l, int t, int skip)
{
    struct chain_means m = { 0 };
    int n = 0;
    for (int r = 0; r < s->R; r++) {
        if (r == skip)
            continue;
        const struct chain_means *c = study_chain(s, l, t, r);
        m.m2 += c->m2;
        m.m4 += c->m4;
        m.absm += c->absm;
        m.e += c->e;
        m.e2 += c->e2;
        m.mk2 += c->mk2;
        n++;
    }
    m.m2 /= n;
    m.m4 /= n;
    m.absm /= n;
    m.e /= n;
    m.e2 /= n;
    m.mk2 /= n;
    return m;
}

enum quantity { Q_U4, Q_ABSM, Q_CHI, Q_E, Q_C, Q_XIL, NQ };

static double quantity(enum quantity q, const struct chain_means *m, int L, double N, double T)
{
    switch (q) {
    case Q_U4:   return 1.0 - m->m4 / (3.0 * m->m2 * m->m2);
    case Q_ABSM: return m->absm;
    case Q_CHI:  return N / T * (m->m2 - m->absm * m->absm);
    case Q_E:    return m->e;
    case Q_C:    return N / (T * T) * (m->e2 - m->e * m->e);
    case Q_XIL:
        return sqrt(m->m2 / m->mk2 - 1.0) / (2.0 * sin(3.14159265358979323846 / L)) / L;
    default:     return NAN;
    }
}

/* The jackknife error of samples v[0..R-1]. */
static double jack_error(const double *v, int R)
{
    double mean = 0.0, ss = 0.0;
    for (int k = 0; k < R; k++)
        mean += v[k];
    mean /= R;
    for (int k = 0; k < R; k++)
        ss += (v[k] - mean) * (v[k] - mean);
    return sqrt((R - 1.0) / R * ss);
}

static void point_estimates(const struct study *s, int l, int t, struct point *p)
{
    double full[NQ], samp[NQ][MAX_R], err[NQ];
    struct chain_means all = pooled(s, l, t, -1);
    for (int q = 0; q < NQ; q++)
        full[q] = quantity(q, &all, s->L[l], study_sites(s, l), s->T[t]);
    for (int k = 0; k < s->R; k++) {
        struct chain_means m = pooled(s, l, t, k);
        for (int q = 0; q < NQ; q++)
            samp[q][k] = quantity(q, &m, s->L[l], study_sites(s, l), s->T[t]);
    }
    for (int q = 0; q < NQ; q++)
        err[q] = jack_error(samp[q], s->R);
    *p = (struct point){ full[Q_U4], err[Q_U4], full[Q_ABSM], err[Q_ABSM], full[Q_CHI],
                         err[Q_CHI], full[Q_E], err[Q_E], full[Q_C], err[Q_C], full[Q_XIL],
                         err[Q_XIL] };
}

/* Quantity q (U4 or xi/L) at every temperature of size l, chain `skip` left out (-1:
 * none). */
static void series(const struct study *s, enum quantity q, int l, int skip, double *y)
{
    for (int t = 0; t < s->nT; t++) {
        struct chain_means m = pooled(s, l, t, skip);
        y[t] = quantity(q, &m, s->L[l], study_sites(s, l), s->T[t]);
    }
}

static double point_value(const struct point *p, enum quantity q)
{
    return q == Q_XIL ? p->xil : p->u4;
}

/* The fit window of a pair from the full-sample data: the first neighbouring temperatures
 * where U4 of the larger size drops below that of the smaller, widened to `window` points
 * nearest to that bracket. False when the data do not cross. */
static bool fit_window(const struct study *s, const struct analysis *a, enum quantity q,
                       int la, int lb, int window, int *t_lo, int *t_hi)
{
    for (int t = 0; t + 1 < s->nT; t++) {
        double d0 = point_value(&a->pt[lb][t], q) - point_value(&a->pt[la][t], q);
        double d1 = point_value(&a->pt[lb][t + 1], q) - point_value(&a->pt[la][t + 1], q);
        if (d0 > 0.0 && d1 <= 0.0) {
            int lo = t + 1 - window / 2, hi;
            if (lo < 0)
                lo = 0;
            hi = lo + window - 1;
            if (hi > s->nT - 1) {
                hi = s->nT - 1;
                lo = hi - window + 1 > 0 ? hi - window + 1 : 0;
            }
            *t_lo = lo;
            *t_hi = hi;
            return true;
        }
    }
    return false;
}

/* Fit both sizes of crossing c over its window in one sample and intersect the fits. The
 * weights are those of the full sample in every sample, so that only the data vary. */
static double sample_crossing(const struct study *s, enum quantity q,
                              const struct crossing *c, int deg, int skip,
                              double w[MAX_L][MAX_T], struct poly *fa, struct poly *fb,
                              double *u)
{
    double ya[MAX_T], yb[MAX_T];
    int n = c->t_hi - c->t_lo + 1, t0i = c->t_lo;
    double t0 = 0.5 * (s->T[c->t_lo] + s->T[c->t_hi]);
    double h = 0.5 * (s->T[c->t_hi] - s->T[c->t_lo]);
    series(s, q, c->la, skip, ya);
    series(s, q, c->lb, skip, yb);
    if (!poly_fit(s->T + t0i, ya + t0i, w[c->la] + t0i, n, deg, t0, h, fa) ||
        !poly_fit(s->T + t0i, yb + t0i, w[c->lb] + t0i, n, deg, t0, h, fb))
        return NAN;
    double tc = poly_crossing(fa, fb, s->T[c->t_lo], s->T[c->t_hi]);
    *u = isnan(tc) ? NAN : poly_eval(fa, tc);
    return tc;
}

/* The crossings of quantity q of every pair of sizes into pair[], weights of q's errors;
 * false when a window has too few points for the fit. */
static bool crossings(const struct study *s, struct analysis *a, enum quantity q, int deg,
                      int window, struct crossing *pair)
{
    double w[MAX_L][MAX_T];
    for (int l = 0; l < s->nL; l++)
        for (int t = 0; t < s->nT; t++) {
            const struct point *p = &a->pt[l][t];
            double e = q == Q_XIL ? p->dxil : p->du4;
            /* An error of 0 (e.g. a point deep in the ordered phase) would dominate the fit. */
            w[l][t] = e > 1e-6 ? 1.0 / (e * e) : 1e12;
        }
    enum { MAXP = MAX_L * (MAX_L - 1) / 2 };
    double tc_s[MAXP][MAX_R], u_s[MAXP][MAX_R];
    int np = 0;
    for (int la = 0; la < s->nL; la++)
        for (int lb = la + 1; lb < s->nL; lb++, np++) {
            struct crossing *c = &pair[np];
            c->la = la;
            c->lb = lb;
            c->tc = c->u = c->dtc = c->du = NAN;
            if (!fit_window(s, a, q, la, lb, window, &c->t_lo, &c->t_hi))
                continue;
            if (c->t_hi - c->t_lo < deg + 1)
                return false;  /* fewer points than the fit needs more than one extra */
            c->tc = sample_crossing(s, q, c, deg, -1, w, &c->fa, &c->fb, &c->u);
            c->found = !isnan(c->tc);
            for (int k = 0; k < s->R; k++) {
                struct poly fa, fb;
                tc_s[np][k] = sample_crossing(s, q, c, deg, k, w, &fa, &fb, &u_s[np][k]);
                c->found = c->found && !isnan(tc_s[np][k]);
            }
            if (c->found) {
                c->dtc = jack_error(tc_s[np], s->R);
                c->du = jack_error(u_s[np], s->R);
            }
        }
    a->npairs = np;
    return true;
}

bool analyse(const struct study *s, int deg, int window, struct analysis *a)
{
    memset(a, 0, sizeof *a);
    a->deg = deg;
    a->window = window;
    a->have_xi = true;
    for (int l = 0; l < s->nL; l++)
        for (int t = 0; t < s->nT; t++) {
            point_estimates(s, l, t, &a->pt[l][t]);
            for (int r = 0; r < s->R; r++)
                a->have_xi = a->have_xi && study_chain(s, l, t, r)->has_k;
        }
    if (!crossings(s, a, Q_U4, deg, window, a->pair))
        return false;
    /* The headline: the crossing of the two largest sizes, pair (nL - 2, nL - 1), the last. */
    const struct crossing *last = &a->pair[a->npairs - 1];
    a->found = last->found;
    a->tc = last->tc;
    a->dtc = last->dtc;
    a->u = last->u;
    if (a->have_xi) {
        if (!crossings(s, a, Q_XIL, deg, window, a->xpair))
            return false;
        last = &a->xpair[a->npairs - 1];
        a->xfound = last->found;
        a->xtc = last->tc;
        a->dxtc = last->dtc;
        a->xu = last->u;
    }
    return true;
}
