/* latmc front end — the results table. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log_sink.h"
#include "names.h"
#include "report.h"

#define JACKKNIFE_BLOCKS 32
/* Below this many measurements per tau_int, errors and tau_int themselves are rough. */
#define MIN_MEAS_PER_TAU 100.0

/* Mean and error as text, the mean rounded to the error's second significant digit. */
static void format_mean_error(char *mbuf, size_t msize, char *ebuf, size_t esize,
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

/* One row of the observables table from column col of acc. Returns 1 when the
 * tau_int footnote applies. */
static int print_obs_row(FILE *out, const char *label, const latmc_acc *acc, int col)
{
    char mbuf[40], ebuf[40], tbuf[24];
    uint64_t n = latmc_acc_count(acc);
    double mean = 0.0, err = 0.0, tau = 0.0;
    int footnote = 0;

    if (n == 0 || latmc_acc_mean(acc, col, &mean) != LATMC_OK) {
        fprintf(out, "  %-12s %16s %12s %9s\n", label, "n/a", "n/a", "n/a");
        return 0;
    }
    int have_err = latmc_acc_error(acc, col, &err) == LATMC_OK;
    format_mean_error(mbuf, sizeof mbuf, ebuf, sizeof ebuf, mean, err, have_err);
    if (latmc_acc_tau_int(acc, col, &tau) == LATMC_OK) {
        footnote = (double)n < MIN_MEAS_PER_TAU * tau;
        snprintf(tbuf, sizeof tbuf, tau < 1000.0 ? "%.2f%s" : "%.4g%s", tau,
                 footnote ? "*" : "");
    } else {
        snprintf(tbuf, sizeof tbuf, "n/a");
    }
    fprintf(out, "  %-12s %16s %12s %9s\n", label, mbuf, ebuf, tbuf);
    return footnote;
}

/* One derived quantity: rc is the library's status, or a reason of our own given as
 * `why` (then rc is ignored). */
static void print_derived_row(FILE *out, const char *label, const char *why, int rc,
                              double value, double err)
{
    char mbuf[40], ebuf[40];
    if (why == NULL && rc != LATMC_OK)
        why = latmc_strerror(rc);
    if (why != NULL) {
        fprintf(out, "  %-12s %16s %12s   (%s)\n", label, "n/a", "n/a", why);
        return;
    }
    format_mean_error(mbuf, sizeof mbuf, ebuf, sizeof ebuf, value, err, 1);
    fprintf(out, "  %-12s %16s %12s\n", label, mbuf, ebuf);
}

static void print_parameters(FILE *out, const latmc_sim *sim)
{
    char line[512];
    size_t len = 0;
    line[0] = '\0';
    log_sink_mute(); /* asking for every parameter: the model's give LATMC_OK */
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
    log_sink_unmute();
    fprintf(out, "  %-13s %s\n", "parameters", len ? line : "(none)");
}

void report_print(FILE *out, latmc_sim *sim, const struct cli_options *opt,
                  const struct run_plan *plan, const struct run_stats *st,
                  const struct observables *obs)
{
    latmc_sim_desc desc;
    latmc_sim_desc_init(&desc);
    if (latmc_sim_get_desc(sim, &desc) != LATMC_OK) {
        /* fall back to what was asked for */
        desc.model = opt->model;
        desc.ndim = opt->ndim;
        for (int d = 0; d < opt->ndim; d++)
            desc.extent[d] = opt->extent[d];
        desc.algorithm = opt->algorithm;
        desc.n_threads = opt->threads;
        desc.seed = opt->seed;
    }
    double sites = 1.0;
    char ext[128];
    size_t elen = 0;
    ext[0] = '\0';
    for (int d = 0; d < desc.ndim && d < 4; d++) {
        sites *= (double)desc.extent[d];
        int w = snprintf(ext + elen, sizeof ext - elen, "%s%" PRId64, d ? " x " : "",
                         desc.extent[d]);
        if (w > 0 && (size_t)w < sizeof ext - elen)
            elen += (size_t)w;
    }
    uint64_t n_meas = latmc_acc_count(obs->acc);

    fprintf(out, "\nlatmc results (liblatmc %s)\n", latmc_version_string());
    fprintf(out, "  %-13s %s, %dD, %s = %.0f sites", "model",
            names_of(names_model, desc.model, "?"), desc.ndim, ext, sites);
    if (desc.model == LATMC_MODEL_POTTS)
        fprintf(out, ", q = %d", desc.q);
    if (desc.model == LATMC_MODEL_HEISENBERG)
        fprintf(out, ", %s couplings (seed %" PRIu64 ")",
                names_of(names_couplings, desc.couplings, "?"), desc.coupling_seed);
    fputc('\n', out);
    fprintf(out, "  %-13s %s\n", "algorithm", names_of(names_algorithm, desc.algorithm, "?"));
    print_parameters(out, sim);
    fprintf(out, "  %-13s %s start, seed %" PRIu64 "\n", "start",
            names_of(names_start, opt->start, "?"), desc.seed);
    if (desc.n_threads > 0)
        fprintf(out, "  %-13s %s, %d thread%s\n", "backend", latmc_sim_backend_name(sim),
                desc.n_threads, desc.n_threads == 1 ? "" : "s");
    else
        fprintf(out, "  %-13s %s, the library's default thread count\n", "backend",
                latmc_sim_backend_name(sim));
    fprintf(out, "  %-13s %" PRIu64 " thermalization + %" PRIu64 " measured, measured every %"
            PRIu64 ": %" PRIu64 " measurements\n", "sweeps", st->therm_done, st->sweeps_done,
            plan->every, n_meas);
    if (st->interrupted)
        fprintf(out, "  %-13s interrupted after %" PRIu64 " of %" PRIu64 " sweeps; the results "
                "are from the finished part\n", "note", st->therm_done + st->sweeps_done,
                plan->therm + plan->sweeps);
    double updates = sites * (double)(st->therm_done + st->sweeps_done);
    fprintf(out, "  %-13s %.2f s (%.2f s in sweeps)\n", "wall time", st->wall_s, st->sweep_s);
    if (st->sweep_s > 0.0 && updates > 0.0)
        fprintf(out, "  %-13s %.4g site updates/ns (%.3g ns per site update)\n", "speed",
                updates / (st->sweep_s * 1e9), st->sweep_s * 1e9 / updates);

    fprintf(out, "\n  %-12s %16s %12s %9s\n", "observable", "mean", "error", "tau_int");
    int footnote = 0;
    for (int c = 0; c < obs->n_cols; c++)
        footnote |= print_obs_row(out, obs->label[c], obs->acc, c);
    if (obs->accept_available) {
        footnote |= print_obs_row(out, "acceptance", obs->acc_accept, 0);
    } else {
        fprintf(out, "  %-12s %16s %12s %9s   (%s)\n", "acceptance", "n/a", "n/a", "n/a",
                latmc_strerror(obs->accept_status));
    }

    /* derived quantities */
    double beta = 1.0;
    log_sink_mute();
    int have_beta = latmc_sim_get_param(sim, LATMC_PARAM_BETA, &beta) == LATMC_OK;
    log_sink_unmute();
    if (!have_beta)
        beta = 1.0; /* phi^4: the weight is exp(-H) */
    int nblocks = n_meas < JACKKNIFE_BLOCKS ? (int)n_meas : JACKKNIFE_BLOCKS;
    const char *few = nblocks < 2 ? "needs at least 2 measurements" : NULL;
    if (nblocks >= 2)
        fprintf(out, "\n  %-12s %16s %12s   (jackknife, %d blocks)\n", "derived", "value",
                "error", nblocks);
    else
        fprintf(out, "\n  %-12s %16s %12s\n", "derived", "value", "error");
    double v = 0.0, e = 0.0;
    int rc = LATMC_OK;
    const char *why = (obs->col_m2 < 0 || obs->col_m4 < 0) ? "the model has no m^2 or m^4" : few;
    if (why == NULL)
        rc = latmc_acc_binder(obs->acc, obs->col_m2, obs->col_m4, nblocks, &v, &e);
    print_derived_row(out, "Binder U4", why, rc, v, e);
    why = (obs->col_absm < 0 || obs->col_m2 < 0) ? "the model has no |m| or m^2" : few;
    if (why == NULL)
        rc = latmc_acc_susceptibility(obs->acc, obs->col_absm, obs->col_m2, beta * sites,
                                      nblocks, &v, &e);
    print_derived_row(out, "chi", why, rc, v, e);
    why = obs->col_energy < 0 ? "the model has no energy" : few;
    if (why == NULL)
        rc = latmc_acc_specific_heat(obs->acc, obs->col_energy, beta * beta * sites, nblocks,
                                     &v, &e);
    print_derived_row(out, "C", why, rc, v, e);

    fprintf(out, "\n  chi = %s (<m^2> - <|m|>^2), C = %s (<e^2> - <e>^2), per site;"
            " tau_int in measurements\n", have_beta ? "beta N" : "N",
            have_beta ? "beta^2 N" : "N");
    if (footnote)
        fprintf(out, "  * fewer than %.0f tau_int of measurements: that error and tau_int are "
                "rough\n", MIN_MEAS_PER_TAU);
}
