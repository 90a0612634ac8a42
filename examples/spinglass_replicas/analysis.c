/*
 * spinglass_replicas — disorder averages [.] over the samples, with jackknife errors over
 * the samples (independent disorder realisations and independent chains, so the samples are
 * independent). Thermal noise within a chain is part of each sample's value and so is in the
 * error too.
 */
#include <math.h>

#include "analysis.h"

/* Langevin function L(x) = coth x - 1/x = <cos theta> of a spin in the field x. */
static double langevin(double x)
{
    double ax = fabs(x);
    if (ax < 1e-3)
        return x / 3.0 - x * x * x / 45.0;  /* the next term, 2x^5/945, is below 1e-18 */
    return 1.0 / tanh(x) - 1.0 / x;
}

/*
 * The energy per site when every bond is thermally independent: -ndim [J L(beta J)] with J
 * standard normal. In the high-temperature expansion of the disorder-averaged energy the
 * first loop corrections are odd in some coupling and average to zero, so this is the
 * high-temperature limit with corrections of high order in beta: a check of the simulation
 * at T >~ 1, not at low T. Simpson's rule on [-10, 10].
 */
static double energy_tree(int ndim, double beta)
{
    enum { N = 4000 };
    double a = -10.0, h = 20.0 / N, sum = 0.0;
    for (int i = 0; i <= N; i++) {
        double J = a + i * h;
        double f = J * langevin(beta * J) * exp(-0.5 * J * J);
        sum += (i == 0 || i == N ? 1.0 : i % 2 ? 4.0 : 2.0) * f;
    }
    return -ndim * sum * h / 3.0 / sqrt(2.0 * 3.14159265358979323846);
}

static double jack_error(const double *v, int n)
{
    double mean = 0.0, ss = 0.0;
    for (int k = 0; k < n; k++)
        mean += v[k] / n;
    for (int k = 0; k < n; k++)
        ss += (v[k] - mean) * (v[k] - mean);
    return sqrt((n - 1.0) / n * ss);
}

void sg_analyse(const struct sg_study *s, const struct sg_chain *res, struct sg_point *pts)
{
    int n = s->nsamples;
    double sites = pow(s->L, s->ndim);
    for (int t = 0; t < s->nT; t++) {
        const struct sg_chain *c = &res[t * n];
        struct sg_point *p = &pts[t];
        double se = 0, sq2 = 0, sq4 = 0, slate = 0;
        for (int k = 0; k < n; k++) {
            se += c[k].e;
            sq2 += c[k].q2;
            sq4 += c[k].q4;
            slate += c[k].q2_late;
        }
        p->e = se / n;
        p->q2 = sq2 / n;
        p->chi = sites * p->q2;
        p->g = 0.5 * (11.0 - 9.0 * (sq4 / n) / (p->q2 * p->q2));
        p->q2_late = slate / n;
        double je[SG_MAX_SAMPLES], jq[SG_MAX_SAMPLES], jg[SG_MAX_SAMPLES];
        for (int k = 0; k < n; k++) {
            /* leave sample k out */
            double q2 = (sq2 - c[k].q2) / (n - 1), q4 = (sq4 - c[k].q4) / (n - 1);
            je[k] = (se - c[k].e) / (n - 1);
            jq[k] = q2;
            jg[k] = 0.5 * (11.0 - 9.0 * q4 / (q2 * q2));
        }
        p->de = jack_error(je, n);
        p->dq2 = jack_error(jq, n);
        p->dchi = sites * p->dq2;
        p->dg = jack_error(jg, n);
        p->e_tree = energy_tree(s->ndim, 1.0 / s->T[t]);
        for (int b = 0; b < SG_QBINS; b++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++)
                sum += c[k].hist[b];
            p->p[b] = sum / n * SG_QBINS / -SG_QLOG_MIN;  /* fraction / bin width in log10 */
        }
    }
}
