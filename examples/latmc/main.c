/*
 * latmc — the command-line front end of liblatmc: one Monte Carlo run of a lattice
 * model, with a progress bar and a table of results. See `latmc --help`.
 *
 * Uses only the public API (<latmc/latmc.h>). The parts: cli_options (command line),
 * observables (what is measured), run (the sweep loop), progress (the bar), report
 * (the table), log_sink (library messages), interrupt (Ctrl-C).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "failure.h"
#include "interrupt.h"
#include "log_sink.h"
#include "names.h"
#include "observables.h"
#include "progress.h"
#include "report.h"
#include "run.h"

/* Can a file be created at path? Checked before the run, not after an hour of it. */
static int check_csv_path(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        cli_usage_error("--csv: '%s' is a directory", path);
        return 0;
    }
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == path) {
        snprintf(dir, sizeof dir, "/");
    } else {
        size_t n = (size_t)(slash - path);
        if (n >= sizeof dir) {
            cli_usage_error("--csv: path too long");
            return 0;
        }
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        cli_usage_error("--csv: no directory '%s' to write '%s' in", dir, path);
        return 0;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_usage_error("--csv: cannot write in directory '%s': %s", dir, strerror(errno));
        return 0;
    }
    return 1;
}

static void print_demo_banner(const struct cli_options *opt)
{
    printf("latmc: running the default demo: the 2D Ising model on a %lldx%lld lattice at T_c\n"
           "  (beta_c = ln(1+sqrt 2)/2 = %.7f), %s start, %llu thermalization + %llu "
           "measured\n"
           "  sweeps, measured every %llu (about a minute). 'latmc --help' lists the "
           "options.\n",
           (long long)opt->extent[0], (long long)opt->extent[1], ISING2D_BETA_C,
           names_of(names_start, opt->start, "?"), (unsigned long long)opt->therm,
           (unsigned long long)opt->sweeps, (unsigned long long)opt->every);
    fflush(stdout);
}

_Static_assert(DEMO_EXACT_L == DEMO_L, "recompute DEMO_EXACT_E and DEMO_EXACT_C for DEMO_L");

static void print_demo_footer(void)
{
    printf("\n  For comparison, exact results for the 2D Ising model at T_c = 2/ln(1+sqrt 2) "
           "= %.6f:\n"
           "    this %dx%d lattice (Kaufman 1949):  e = %.6f, C = %.5f\n"
           "    infinite lattice (Onsager 1944):      e = -sqrt 2 = %.6f; U4 -> 0.61069\n"
           "    (Binder cumulant at T_c for L -> infinity, periodic square lattice)\n",
           ISING2D_T_C, DEMO_L, DEMO_L, DEMO_EXACT_E, DEMO_EXACT_C, -1.4142135623730951);
}

int main(int argc, char **argv)
{
    struct cli_options opt;
    switch (cli_parse(argc, argv, &opt)) {
    case CLI_RUN: break;
    case CLI_EXIT_OK: return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_LIBRARY;
    default: return EXIT_USAGE;
    }
    if (opt.csv_path != NULL && !check_csv_path(opt.csv_path))
        return EXIT_USAGE;

    int status = EXIT_LIBRARY;
    struct failure fail;
    memset(&fail, 0, sizeof fail);
    struct progress pg;
    progress_init(&pg, false, 0);
    struct observables obs;
    memset(&obs, 0, sizeof obs);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;

    if (opt.demo && !opt.quiet)
        print_demo_banner(&opt);

    int rc = latmc_ctx_create(&ctx);
    if (rc != LATMC_OK) {
        failure_set(&fail, rc, latmc_last_error(), "cannot create a context");
        goto fail;
    }
    latmc_ctx_set_log(ctx, log_sink, &pg, opt.verbose ? LATMC_LOG_INFO : LATMC_LOG_WARN);

    latmc_sim_desc desc;
    latmc_sim_desc_init(&desc);
    desc.model = opt.model;
    desc.ndim = opt.ndim;
    for (int d = 0; d < opt.ndim; d++)
        desc.extent[d] = opt.extent[d];
    if (opt.q_given)
        desc.q = opt.q;
    desc.algorithm = opt.algorithm;
    if (opt.couplings_given)
        desc.couplings = opt.couplings;
    desc.coupling_seed = opt.coupling_seed;
    desc.device = opt.device;
    desc.n_threads = opt.threads;
    desc.seed = opt.seed;
    rc = latmc_sim_create(ctx, &desc, &sim);
    if (rc != LATMC_OK) {
        failure_set(&fail, rc, latmc_last_error(), "cannot create the %s simulation",
                    names_of(names_model, opt.model, "?"));
        goto fail;
    }

    for (int i = 0; i < opt.n_params; i++) {
        const char *name = latmc_param_name(opt.params[i].key);
        rc = latmc_sim_set_param(sim, opt.params[i].key, opt.params[i].value);
        if (rc != LATMC_OK) {
            /* the model has no such parameter, or refuses the value: a usage error */
            const char *detail = latmc_sim_last_error(sim);
            if (log_sink_shown(detail) || detail[0] == '\0')
                fprintf(stderr, "latmc: parameter %s = %g: %s\n", name ? name : "?",
                        opt.params[i].value, latmc_strerror(rc));
            else
                fprintf(stderr, "latmc: parameter %s = %g: %s: %s\n", name ? name : "?",
                        opt.params[i].value, latmc_strerror(rc), detail);
            fputs("Usage: latmc [--model M] [-L SIZE] [--beta B] [--sweeps N] [OPTION]...  "
                  "('latmc --help' lists all options)\n", stderr);
            status = EXIT_USAGE;
            goto out;
        }
    }
    double beta = 0.0;
    log_sink_mute(); /* not every model has beta */
    int have_beta = latmc_sim_get_param(sim, LATMC_PARAM_BETA, &beta) == LATMC_OK;
    log_sink_unmute();
    if (!opt.demo && !opt.quiet && !cli_param_given(&opt, LATMC_PARAM_BETA, NULL) && have_beta)
        fprintf(stderr, "latmc: note: no --beta given, using the library's default beta = %g\n",
                beta);

    rc = latmc_sim_init_spins(sim, opt.start);
    if (rc != LATMC_OK) {
        failure_set(&fail, rc, latmc_sim_last_error(sim), "cannot initialise the spins");
        goto fail;
    }
    rc = observables_setup(&obs, sim, &fail);
    if (rc != LATMC_OK)
        goto fail;

    struct run_plan plan = { opt.therm, opt.sweeps, opt.every };
    struct run_stats stats;
    progress_init(&pg, !opt.quiet && isatty(STDERR_FILENO), opt.therm + opt.sweeps);
    interrupt_install();
    rc = run_simulation(sim, &plan, &obs, &pg, &stats, &fail);
    if (rc != LATMC_OK)
        goto fail;

    report_print(stdout, sim, &opt, &plan, &stats, &obs);
    if (opt.demo)
        print_demo_footer();
    fflush(stdout);

    if (opt.csv_path != NULL) {
        rc = observables_write_csv(&obs, opt.csv_path, &fail);
        if (rc != LATMC_OK)
            goto fail;
        if (!opt.quiet)
            fprintf(stderr, "latmc: wrote %llu measurements to %s\n",
                    (unsigned long long)latmc_acc_count(obs.acc), opt.csv_path);
    }
    status = stats.interrupted ? EXIT_INTERRUPTED : EXIT_SUCCESS;
    goto out;

fail:
    progress_clear(&pg);
    fflush(stdout);
    failure_print(&fail, stderr);
    status = EXIT_LIBRARY;
out:
    observables_destroy(&obs);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    if (fflush(stdout) != 0 && status == EXIT_SUCCESS)
        status = EXIT_LIBRARY;
    return status;
}
