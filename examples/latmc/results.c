/*
 * latmc front end — computing the results (see results.h).
 *
 * The Binder cumulant U4 = 1 - <m^4>/(3 <m^2>^2) is the form for a scalar order
 * parameter. For the Potts and Heisenberg order parameters (several components) its
 * normalisation depends on conventions, so latmc gives the plain moment ratio
 * <m^4>/<m^2>^2 there, and likewise <q^4>/<q^2>^2 (q^4 = (q^2)^2 per measurement) for
 * the overlap of two replicas.
 */
#include <stdio.h>
#include <string.h>

#include "results.h"

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

static void observable(struct obs_result *o, const latmc_acc *acc, int col, uint64_t n)
{
    o->have_mean = n > 0 && latmc_acc_mean(acc, col, &o->mean) == LATMC_OK;
    o->have_err = o->have_mean && latmc_acc_error(acc, col, &o->err) == LATMC_OK;
    o->have_tau = o->have_mean && latmc_acc_tau_int(acc, col, &o->tau) == LATMC_OK;
    if (o->have_mean && latmc_acc_warnings(acc, col, &o->flags) != LATMC_OK)
        o->flags = 0;
    o->rough = (o->flags & LATMC_ACC_WARN_NO_WINDOW) ||
               (o->have_tau && (double)n < MIN_MEAS_PER_TAU * o->tau);
}

/* Add a derived quantity: rc is the library's status, or `why` a reason of our own
 * (then rc is ignored). */
static void add(struct results *r, const char *name, const char *label, const char *why,
                int rc, double value, double err)
{
    struct derived_result *d = &r->derived[r->n_derived++];
    memset(d, 0, sizeof *d);
    d->name = name;
    d->label = label;
    if (why == NULL && rc != LATMC_OK)
        why = latmc_strerror(rc);
    d->why = why;
    d->ok = why == NULL;
    if (!d->ok)
        return;
    d->value = value;
    d->err = err;
    if (err == 0.0) {
        d->flags = LATMC_ACC_WARN_ZERO_ERROR;
        r->degenerate = true;
    }
}

/* xi / L with its jackknife error (latmc_acc_corr_length); where <|m(0)|^2> is below
 * <|m(k_min)|^2> (deep in the disordered phase, or too few measurements) there is no real
 * xi, and the reason says so. */
static void corr_length(struct results *r, const latmc_acc *acc, int col_k0, int col_kmin,
                        const char *name, const char *label, const char *few)
{
    double v = 0.0, e = 0.0;
    int rc = LATMC_OK;
    const char *why = few;
    if (why == NULL) {
        rc = latmc_acc_corr_length(acc, col_k0, col_kmin, r->L, r->nblocks, &v, &e);
        if (rc == LATMC_EINVAL)
            why = "no real correlation length (<|m(0)|^2> <= <|m(kmin)|^2>)";
    }
    add(r, name, label, why, rc, v / (double)r->L, e / (double)r->L);
}

static void derived(struct results *r, const struct observables *obs, bool ising_h0)
{
    const latmc_acc *acc = obs->acc;
    int nb = r->nblocks;
    double factor = r->have_beta ? r->beta : 1.0;
    const char *few = nb < 2 ? "needs at least 2 measurements" : NULL;
    double v = 0.0, e = 0.0;
    int rc = LATMC_OK;

    const char *why = (obs->col_m2 < 0 || obs->col_m4 < 0) ? "the model has no m^2 or m^4" : few;
    if (obs->scalar) {
        if (why == NULL)
            rc = latmc_acc_binder(acc, obs->col_m2, obs->col_m4, nb, &v, &e);
        add(r, "binder_u4", "Binder U4", why, rc, v, e);
    } else {
        struct ratio q = { obs->col_m4, obs->col_m2, 0 };
        if (why == NULL)
            rc = latmc_acc_jackknife(acc, nb, moment_ratio, &q, &v, &e);
        add(r, "m4_over_m2_squared", "<m^4>/<m^2>^2", why, rc, v, e);
    }
    why = (obs->col_absm < 0 || obs->col_m2 < 0) ? "the model has no |m| or m^2" : few;
    if (why == NULL)
        rc = latmc_acc_susceptibility(acc, obs->col_absm, obs->col_m2, factor * r->sites, nb,
                                      &v, &e);
    add(r, "chi", "chi", why, rc, v, e);
    why = obs->col_energy < 0 ? "the model has no energy" : few;
    if (why == NULL)
        rc = latmc_acc_specific_heat(acc, obs->col_energy, factor * factor * r->sites, nb,
                                     &v, &e);
    add(r, "specific_heat", "C", why, rc, v, e);

    if (obs->col_overlap2 >= 0) {
        struct ratio q = { obs->col_overlap2, obs->col_overlap2, 1 };
        if (few == NULL)
            rc = latmc_acc_jackknife(acc, nb, moment_ratio, &q, &v, &e);
        add(r, "q4_over_q2_squared", "<q^4>/<q^2>^2", few, rc, v, e);
        struct scaled s = { obs->col_overlap2, r->sites };
        if (few == NULL)
            rc = latmc_acc_jackknife(acc, nb, scaled_mean, &s, &v, &e);
        add(r, "chi_sg", "chi_SG", few, rc, v, e);
    }
    /* the clusters' improved estimator: <cluster m^2> = <m^2> for Ising at h = 0 */
    if (obs->col_cluster_m2 >= 0) {
        why = !ising_h0 ? "the improved estimator is <m^2> only for the Ising model at h = 0"
                        : few;
        struct scaled s = { obs->col_cluster_m2, factor * r->sites };
        if (why == NULL)
            rc = latmc_acc_jackknife(acc, nb, scaled_mean, &s, &v, &e);
        add(r, "chi_improved", "chi (clusters)", why, rc, v, e);
    }
    /* second-moment correlation lengths over L from |m(0)|^2 and |m(k_min)|^2 */
    if (obs->col_kmin >= 0 && obs->col_k0 >= 0)
        corr_length(r, acc, obs->col_k0, obs->col_kmin, "xi_over_L", "xi/L", few);
    if (obs->col_overlap2_kmin >= 0 && obs->col_overlap2 >= 0)
        corr_length(r, acc, obs->col_overlap2, obs->col_overlap2_kmin, "xi_sg_over_L",
                    "xi_SG/L", few);
}

void results_compute(struct results *r, const latmc_sim *sim, const struct observables *obs)
{
    memset(r, 0, sizeof *r);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    latmc_sim_get_desc(sim, &d); /* cannot fail for a valid sim */
    r->sites = 1.0;
    for (int k = 0; k < d.ndim && k < 4; k++)
        r->sites *= (double)d.extent[k];
    r->L = d.extent[0];
    r->have_beta = latmc_sim_get_param(sim, LATMC_PARAM_BETA, &r->beta) == LATMC_OK;
    r->n_meas = latmc_acc_count(obs->acc);
    r->n_obs = obs->n_cols;
    for (int c = 0; c < obs->n_cols; c++) {
        struct obs_result *o = &r->obs[c];
        o->name = obs->csv_name[c];
        o->label = obs->label[c];
        observable(o, obs->acc, c, r->n_meas);
        if (o->flags & RES_DEGENERATE)
            r->degenerate = true;
    }
    r->nblocks = r->n_meas < JACKKNIFE_BLOCKS ? (int)r->n_meas : JACKKNIFE_BLOCKS;
    double h = 0.0;
    const bool ising_h0 = d.model == LATMC_MODEL_ISING &&
                          latmc_sim_get_param(sim, LATMC_PARAM_H, &h) == LATMC_OK && h == 0.0;
    derived(r, obs, ising_h0);
}

void results_flag_names(unsigned flags, bool rough, char *buf, size_t size)
{
    static const struct { unsigned bit; const char *name; } names[] = {
        { LATMC_ACC_WARN_ZERO_ERROR, "zero_error" },
        { LATMC_ACC_WARN_TAU_UNDEFINED, "tau_undefined" },
        { LATMC_ACC_WARN_ANTICORRELATED, "anticorrelated" },
        { LATMC_ACC_WARN_NO_WINDOW, "no_window" },
    };
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i <= sizeof names / sizeof names[0]; i++) {
        bool last = i == sizeof names / sizeof names[0];
        if (last ? !rough : !(flags & names[i].bit))
            continue;
        int w = snprintf(buf + len, size - len, "%s%s", len ? "," : "",
                         last ? "rough" : names[i].name);
        if (w < 0 || (size_t)w >= size - len)
            return;
        len += (size_t)w;
    }
}
