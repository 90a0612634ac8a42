/*
 * latmc front end — derived quantities with jackknife errors.
 *
 * The Binder cumulant U4 = 1 - <m^4>/(3 <m^2>^2) is the form for a scalar order
 * parameter. For the Potts and Heisenberg order parameters (several components) its
 * normalisation depends on conventions, so latmc prints the plain moment ratio
 * <m^4>/<m^2>^2 there, and likewise <q^4>/<q^2>^2 (q^4 = (q^2)^2 per measurement) for
 * the overlap of two replicas.
 */
#include <stdio.h>

#include "report.h"

#define JACKKNIFE_BLOCKS 32

/* <a>/<b>^2 of columns a and b; with square set, <a^2>/<a>^2 of column a. */
struct ratio {
    int a, b;
    int square;
};

static double moment_ratio(const double *means, const double *sq_means, void *user)
{
    const struct ratio *r = user;
    if (r->square)
        return sq_means[r->a] / (means[r->a] * means[r->a]);
    return means[r->a] / (means[r->b] * means[r->b]);
}

/* factor * <col> */
struct scaled {
    int col;
    double factor;
};

static double scaled_mean(const double *means, const double *sq_means, void *user)
{
    (void)sq_means;
    const struct scaled *s = user;
    return s->factor * means[s->col];
}

/* One derived quantity: rc is the library's status, or a reason of our own given as
 * `why` (then rc is ignored). */
static void print_row(FILE *out, const char *label, const char *why, int rc, double value,
                      double err)
{
    char mbuf[40], ebuf[40];
    if (why == NULL && rc != LATMC_OK)
        why = latmc_strerror(rc);
    if (why != NULL) {
        fprintf(out, "  %-14s %14s %12s   (%s)\n", label, "n/a", "n/a", why);
        return;
    }
    report_format_mean_error(mbuf, sizeof mbuf, ebuf, sizeof ebuf, value, err, 1);
    fprintf(out, "  %-14s %14s %12s\n", label, mbuf, ebuf);
}

void report_derived(FILE *out, const latmc_sim *sim, const struct observables *obs,
                    double sites)
{
    const latmc_acc *acc = obs->acc;
    uint64_t n_meas = latmc_acc_count(acc);
    double beta = 1.0;
    int have_beta = latmc_sim_get_param(sim, LATMC_PARAM_BETA, &beta) == LATMC_OK;
    if (!have_beta)
        beta = 1.0; /* phi^4: the weight is exp(-H) */
    int nblocks = n_meas < JACKKNIFE_BLOCKS ? (int)n_meas : JACKKNIFE_BLOCKS;
    const char *few = nblocks < 2 ? "needs at least 2 measurements" : NULL;
    if (nblocks >= 2)
        fprintf(out, "\n  %-14s %14s %12s   (jackknife, %d blocks)\n", "derived", "value",
                "error", nblocks);
    else
        fprintf(out, "\n  %-14s %14s %12s\n", "derived", "value", "error");

    double v = 0.0, e = 0.0;
    int rc = LATMC_OK;
    const char *why = (obs->col_m2 < 0 || obs->col_m4 < 0) ? "the model has no m^2 or m^4" : few;
    if (obs->scalar) {
        if (why == NULL)
            rc = latmc_acc_binder(acc, obs->col_m2, obs->col_m4, nblocks, &v, &e);
        print_row(out, "Binder U4", why, rc, v, e);
    } else {
        struct ratio r = { obs->col_m4, obs->col_m2, 0 };
        if (why == NULL)
            rc = latmc_acc_jackknife(acc, nblocks, moment_ratio, &r, &v, &e);
        print_row(out, "<m^4>/<m^2>^2", why, rc, v, e);
    }
    why = (obs->col_absm < 0 || obs->col_m2 < 0) ? "the model has no |m| or m^2" : few;
    if (why == NULL)
        rc = latmc_acc_susceptibility(acc, obs->col_absm, obs->col_m2, beta * sites, nblocks,
                                      &v, &e);
    print_row(out, "chi", why, rc, v, e);
    why = obs->col_energy < 0 ? "the model has no energy" : few;
    if (why == NULL)
        rc = latmc_acc_specific_heat(acc, obs->col_energy, beta * beta * sites, nblocks, &v, &e);
    print_row(out, "C", why, rc, v, e);

    if (obs->col_overlap2 >= 0) {
        struct ratio r = { obs->col_overlap2, obs->col_overlap2, 1 };
        if (few == NULL)
            rc = latmc_acc_jackknife(acc, nblocks, moment_ratio, &r, &v, &e);
        print_row(out, "<q^4>/<q^2>^2", few, rc, v, e);
        struct scaled s = { obs->col_overlap2, sites };
        if (few == NULL)
            rc = latmc_acc_jackknife(acc, nblocks, scaled_mean, &s, &v, &e);
        print_row(out, "chi_SG", few, rc, v, e);
    }

    fprintf(out, "\n  chi = %s (<m^2> - <|m|>^2), C = %s (<e^2> - <e>^2), per site;"
            " tau_int in measurements\n", have_beta ? "beta N" : "N",
            have_beta ? "beta^2 N" : "N");
    if (!obs->scalar)
        fprintf(out, "  the order parameter has no sign here (|m| is the library's m);"
                " <m^4>/<m^2>^2 is the plain\n  moment ratio: the normalisation of a Binder"
                " cumulant depends on the number of components\n");
    if (obs->col_overlap2 >= 0)
        fprintf(out, "  q^2 = sum_{mu,nu} q_{mu nu}^2 of replicas 0 and 1, q^4 = (q^2)^2, "
                "chi_SG = N <q^2>;\n  the other observables are of replica 0\n");
}
