/* latmc front end — the results: what ran, and the table of observables. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "report.h"

void report_format_mean_error(char *mbuf, size_t msize, char *ebuf, size_t esize,
                              double mean, double err, int have_err)
{
    if (!have_err || !isfinite(err)) {
        snprintf(mbuf, msize, "%.10g", mean);
        snprintf(ebuf, esize, "n/a");
        return;
    }
    if (err <= 0.0) {
        snprintf(mbuf, msize, "%.10g", mean);
        snprintf(ebuf, esize, "0");
        return;
    }
    int decimals = 1 - (int)floor(log10(err));
    if (decimals < 0)
        decimals = 0;
    if (decimals > 10 || fabs(mean) >= 1e9) {
        snprintf(mbuf, msize, "%.6e", mean);
        snprintf(ebuf, esize, "%.1e", err);
    } else {
        snprintf(mbuf, msize, "%.*f", decimals, mean);
        snprintf(ebuf, esize, "%.*f", decimals, err);
    }
}

/* One row of the observables table. A degenerate error or tau_int is never printed as
 * a number: "n/a" and the '!' that the notes below the table explain. */
static void print_obs_row(FILE *out, const struct obs_result *o)
{
    char mbuf[40], ebuf[40], tbuf[24];
    if (!o->have_mean) {
        fprintf(out, "  %-12s %16s %12s %9s\n", o->label, "n/a", "n/a", "n/a");
        return;
    }
    report_format_mean_error(mbuf, sizeof mbuf, ebuf, sizeof ebuf, o->mean, o->err,
                             o->have_err);
    if (o->flags & LATMC_ACC_WARN_ZERO_ERROR)
        snprintf(ebuf, sizeof ebuf, "n/a !");
    if (!o->have_tau || (o->flags & LATMC_ACC_WARN_TAU_UNDEFINED))
        snprintf(tbuf, sizeof tbuf, "n/a%s", o->have_tau ? " !" : "");
    else
        snprintf(tbuf, sizeof tbuf, o->tau < 1000.0 ? "%.2f%s" : "%.4g%s", o->tau,
                 (o->flags & LATMC_ACC_WARN_ANTICORRELATED) ? " !" : o->rough ? "*" : "");
    fprintf(out, "  %-12s %16s %12s %9s\n", o->label, mbuf, ebuf, tbuf);
}

/* The acceptance pooled over the measured sweeps: exact counts, no error bar. */
static void print_acceptance(FILE *out, const struct observables *obs)
{
    if (!obs->accept_valid || obs->attempted == 0) {
        fprintf(out, "  %-12s %16s %12s %9s   (no measured sweeps)\n", "acceptance", "n/a",
                "n/a", "n/a");
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.6f", (double)obs->accepted / (double)obs->attempted);
    fprintf(out, "  %-12s %16s %12s %9s   (pooled: %" PRIu64 " of %" PRIu64 " updates)\n",
            "acceptance", buf, "-", "-", obs->accepted, obs->attempted);
}

static void print_parameters(FILE *out, const latmc_sim *sim)
{
    char line[512];
    size_t len = 0;
    line[0] = '\0';
    /* every parameter key: the model's answer LATMC_OK, the others are refused quietly
     * (liblatmc logs refusals at DEBUG) */
    for (int key = 1; key < 64; key++) {
        const char *name = latmc_param_name(key);
        double v = 0.0;
        if (name == NULL || latmc_sim_get_param(sim, key, &v) != LATMC_OK)
            continue;
        int w;
        if (key == LATMC_PARAM_BETA && v > 0.0)
            w = snprintf(line + len, sizeof line - len, "%s%s = %.10g (T = %.7g)",
                         len ? ", " : "", name, v, 1.0 / v);
        else
            w = snprintf(line + len, sizeof line - len, "%s%s = %.10g", len ? ", " : "",
                         name, v);
        if (w < 0 || (size_t)w >= sizeof line - len)
            break;
        len += (size_t)w;
    }
    fprintf(out, "  %-13s %s\n", "parameters", len ? line : "(none)");
}

/* "ising, 2D, 8 x 8 = 64 sites" and the model's own settings. Returns N. */
static double print_model(FILE *out, const latmc_sim_desc *d)
{
    double sites = 1.0;
    char ext[128];
    size_t elen = 0;
    ext[0] = '\0';
    for (int k = 0; k < d->ndim && k < 4; k++) {
        sites *= (double)d->extent[k];
        int w = snprintf(ext + elen, sizeof ext - elen, "%s%" PRId64, k ? " x " : "",
                         d->extent[k]);
        if (w > 0 && (size_t)w < sizeof ext - elen)
            elen += (size_t)w;
    }
    fprintf(out, "  %-13s %s, %dD, %s = %.0f sites", "model",
            names_of(names_models(), d->model, "?"), d->ndim, ext, sites);
    if (d->model == LATMC_MODEL_POTTS)
        fprintf(out, ", q = %d", d->q);
    if (d->model == LATMC_MODEL_PHI4)
        fprintf(out, ", %s field", names_of(names_precision, d->precision, "?"));
    if (d->model == LATMC_MODEL_ISING && d->couplings != LATMC_COUPLINGS_UNIFORM)
        fprintf(out, ", %s couplings (seed %" PRIu64 ")",
                names_of(names_couplings, d->couplings, "?"), d->coupling_seed);
    if (d->model == LATMC_MODEL_HEISENBERG)
        fprintf(out, ", %s couplings (seed %" PRIu64 "), %d replica%s",
                names_of(names_couplings, d->couplings, "?"), d->coupling_seed, d->replicas,
                d->replicas == 1 ? "" : "s");
    fputc('\n', out);
    return sites;
}

static void print_run(FILE *out, const latmc_sim *sim, const struct cli_options *opt,
                      const latmc_sim_desc *d, const struct run_stats *st,
                      const struct observables *obs, double sites)
{
    if (opt->resume_path != NULL)
        fprintf(out, "  %-13s resumed from %s at sweep %" PRIu64 " (%" PRIu64 " measurements "
                "read back), seed %" PRIu64 "\n", "start", opt->resume_path, st->first_sweep,
                obs->reloaded, d->seed);
    else
        fprintf(out, "  %-13s %s start, seed %" PRIu64 "\n", "start",
                names_of(names_start, opt->start, "?"), d->seed);
    int parts = 1;
    latmc_sim_part_info(sim, NULL, &parts, NULL, NULL);
    fprintf(out, "  %-13s %s, %d thread%s", "backend", latmc_sim_backend_name(sim),
            d->n_threads, d->n_threads == 1 ? "" : "s");
    if (parts > 1) /* latmc-mpi: the threads of each rank */
        fprintf(out, " on each of %d MPI ranks (slabs along the last axis)", parts);
    fputc('\n', out);
    uint64_t therm = st->last_sweep < opt->therm ? st->last_sweep : opt->therm;
    uint64_t measured = st->last_sweep - therm;
    fprintf(out, "  %-13s %" PRIu64 " thermalization + %" PRIu64 " measured, measured every %"
            PRIu64 ": %" PRIu64 " measurements\n", "sweeps", therm, measured, opt->every,
            latmc_acc_count(obs->acc));
    if (opt->tune_target > 0.0)
        fprintf(out, "  %-13s epsilon tuned towards acceptance %g while thermalizing\n",
                "tuning", opt->tune_target);
    if (st->interrupted)
        fprintf(out, "  %-13s interrupted after %" PRIu64 " of %" PRIu64 " sweeps; the results "
                "are from the finished part\n", "note", st->last_sweep, opt->therm + opt->sweeps);
    uint64_t done = st->last_sweep - st->first_sweep;
    double updates = sites * (double)done;
    fprintf(out, "  %-13s %.2f s (%.2f s in sweeps", "wall time", st->wall_s, st->sweep_s);
    if (st->first_sweep > 0)
        fprintf(out, "; %" PRIu64 " sweeps in this run", done);
    fputs(")\n", out);
    if (st->sweep_s > 0.0 && updates > 0.0)
        fprintf(out, "  %-13s %.4g site updates/ns (%.3g ns per site update)\n", "speed",
                updates / (st->sweep_s * 1e9), st->sweep_s * 1e9 / updates);
    if (opt->checkpoint_path != NULL && st->saved)
        fprintf(out, "  %-13s %s at sweep %" PRIu64 "\n", "checkpoint", opt->checkpoint_path,
                st->last_sweep);
}

static void print_derived(FILE *out, const struct results *r, const struct observables *obs)
{
    if (r->nblocks >= 2)
        fprintf(out, "\n  %-14s %14s %12s   (jackknife, %d blocks)\n", "derived", "value",
                "error", r->nblocks);
    else
        fprintf(out, "\n  %-14s %14s %12s\n", "derived", "value", "error");
    for (int i = 0; i < r->n_derived; i++) {
        const struct derived_result *d = &r->derived[i];
        char mbuf[40], ebuf[40];
        if (!d->ok) {
            fprintf(out, "  %-14s %14s %12s   (%s)\n", d->label, "n/a", "n/a", d->why);
            continue;
        }
        report_format_mean_error(mbuf, sizeof mbuf, ebuf, sizeof ebuf, d->value, d->err, 1);
        if (d->flags & LATMC_ACC_WARN_ZERO_ERROR)
            snprintf(ebuf, sizeof ebuf, "n/a !");
        fprintf(out, "  %-14s %14s %12s\n", d->label, mbuf, ebuf);
    }
    fprintf(out, "\n  chi = %s (<m^2> - <|m|>^2), C = %s (<e^2> - <e>^2), per site;"
            " tau_int in measurements\n", r->have_beta ? "beta N" : "N",
            r->have_beta ? "beta^2 N" : "N");
    if (!obs->scalar)
        fprintf(out, "  the order parameter has no sign here (|m| is the library's m);"
                " <m^4>/<m^2>^2 is the plain\n  moment ratio: the normalisation of a Binder"
                " cumulant depends on the number of components\n");
    if (obs->col_overlap2 >= 0)
        fprintf(out, "  q^2 = sum_{mu,nu} q_{mu nu}^2 of replicas 0 and 1, q^4 = (q^2)^2, "
                "chi_SG = N <q^2>;\n  the other observables are of replica 0\n");
    if (obs->col_cluster_m2 >= 0)
        fprintf(out, "  clusters (sw), largest C/N, cluster m^2 = sum_C |C|^2 / N^2 (wolff: |C| / N)"
                " describe the\n  cluster sweep before each measurement; chi (clusters) ="
                " %s <cluster m^2>\n  (the improved estimator of %s <m^2>, Ising at h = 0)\n",
                r->have_beta ? "beta N" : "N", r->have_beta ? "beta N" : "N");
}

/* The notes on '!' and '*' marks. */
static void print_marks(FILE *out, const struct results *r)
{
    bool rough = false, zero = false, undefined = false, anti = false;
    for (int c = 0; c < r->n_obs; c++) {
        const struct obs_result *o = &r->obs[c];
        rough |= o->rough && !(o->flags & RES_DEGENERATE);
        zero |= (o->flags & LATMC_ACC_WARN_ZERO_ERROR) != 0;
        undefined |= (o->flags & LATMC_ACC_WARN_TAU_UNDEFINED) != 0;
        anti |= (o->flags & LATMC_ACC_WARN_ANTICORRELATED) != 0;
    }
    for (int i = 0; i < r->n_derived; i++)
        zero |= (r->derived[i].flags & LATMC_ACC_WARN_ZERO_ERROR) != 0;
    if (rough)
        fprintf(out, "  * fewer than %.0f tau_int of measurements (or no self-consistent "
                "window): that error and tau_int are rough\n", MIN_MEAS_PER_TAU);
    if (zero)
        fprintf(out, "  ! error n/a: the series does not fluctuate (its error would be "
                "exactly 0): a frozen or periodic\n    chain, from which no error can be "
                "estimated (Metropolis at beta = 0 flips every spin every sweep)\n");
    if (undefined)
        fprintf(out, "  ! tau_int n/a: the series has no variance, tau_int is undefined\n");
    if (anti)
        fprintf(out, "  ! tau_int 0.50 !: anticorrelated or periodic series; tau_int is "
                "shown at its floor 1/2\n");
}

void report_print(FILE *out, latmc_sim *sim, const struct cli_options *opt,
                  const struct run_stats *st, const struct observables *obs,
                  const struct results *r)
{
    latmc_sim_desc desc;
    latmc_sim_desc_init(&desc);
    latmc_sim_get_desc(sim, &desc); /* cannot fail for a valid sim */

    fprintf(out, "\nlatmc results (liblatmc %s)\n", latmc_version_string());
    double sites = print_model(out, &desc);
    fprintf(out, "  %-13s %s\n", "algorithm", names_of(names_algorithm, desc.algorithm, "?"));
    print_parameters(out, sim);
    print_run(out, sim, opt, &desc, st, obs, sites);

    fprintf(out, "\n  %-12s %16s %12s %9s\n", "observable", "mean", "error", "tau_int");
    for (int c = 0; c < r->n_obs; c++)
        print_obs_row(out, &r->obs[c]);
    print_acceptance(out, obs);

    print_derived(out, r, obs);
    print_marks(out, r);
}

void report_warn(FILE *err, const struct results *r)
{
    char list[256];
    size_t len = 0;
    list[0] = '\0';
    for (int c = 0; c < r->n_obs; c++)
        if (r->obs[c].flags & RES_DEGENERATE)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                    r->obs[c].label);
    for (int i = 0; i < r->n_derived && len < sizeof list; i++)
        if (r->derived[i].flags & RES_DEGENERATE)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
                                    r->derived[i].label);
    if (len > 0)
        fprintf(err, "latmc: warning: no error estimate for %s: the chain does not "
                "fluctuate or is periodic (see the notes under the results)\n", list);
}
