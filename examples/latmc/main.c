/*
 * latmc — the command-line front end of liblatmc: one Monte Carlo run of a lattice
 * model, with a progress bar and a table of results. See `latmc --help`.
 *
 * Uses only the public API (<latmc/latmc.h>). The parts: cli_options, cli_values and
 * cli_help (command line), sim_setup and resume (the sim to start from), observables
 * and series_io (what is measured), run (the sweep loop), checkpoint (saving), progress
 * (the bar), report and report_derived (the tables), log_sink (library messages),
 * failure (the error line), interrupt (Ctrl-C), outpath (output files).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "failure.h"
#include "interrupt.h"
#include "log_sink.h"
#include "names.h"
#include "observables.h"
#include "outpath.h"
#include "progress.h"
#include "report.h"
#include "run.h"
#include "sim_setup.h"

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

/* Create or load the sim and get everything ready for the run: 0, EXIT_USAGE (message
 * printed) or EXIT_LIBRARY (*f says why). */
static int prepare(latmc_ctx *ctx, const struct cli_options *opt, latmc_sim **sim,
                   struct observables *obs, struct failure *f)
{
    int st = opt->resume_path != NULL ? setup_resume(ctx, opt, sim, f)
                                      : setup_fresh(ctx, opt, sim, f);
    if (st != 0)
        return st;
    st = setup_check_tuning(*sim, opt, f);
    if (st != 0)
        return st;
    setup_notes(*sim, opt);
    if (observables_setup(obs, *sim, f) != LATMC_OK)
        return EXIT_LIBRARY;
    if (opt->resume_path != NULL && setup_resume_series(*sim, opt, obs, f) != LATMC_OK)
        return EXIT_LIBRARY;
    return 0;
}

/* After the report: the CSV, and where the checkpoint is. */
static int write_outputs(const struct cli_options *opt, const struct run_stats *stats,
                         const struct observables *obs, struct failure *f)
{
    if (opt->csv_path != NULL) {
        int rc = observables_write_csv(obs, opt->csv_path, f);
        if (rc != LATMC_OK)
            return rc;
        if (!opt->quiet)
            fprintf(stderr, "latmc: wrote %llu measurements to %s\n",
                    (unsigned long long)latmc_acc_count(obs->acc), opt->csv_path);
    }
    if (opt->checkpoint_path != NULL && !opt->quiet)
        fprintf(stderr, "latmc: checkpoint at sweep %llu in %s (measurements in %s.csv)%s\n",
                (unsigned long long)stats->last_sweep, opt->checkpoint_path,
                opt->checkpoint_path, stats->interrupted ? ": continue with --resume" : "");
    return LATMC_OK;
}

int main(int argc, char **argv)
{
    struct cli_options opt;
    switch (cli_parse(argc, argv, &opt)) {
    case CLI_RUN: break;
    case CLI_EXIT_OK: return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_LIBRARY;
    default: return EXIT_USAGE;
    }
    if ((opt.csv_path != NULL && !outpath_check("--csv", opt.csv_path)) ||
        (opt.checkpoint_path != NULL && !outpath_check("--checkpoint", opt.checkpoint_path)))
        return EXIT_USAGE;

    int status = EXIT_LIBRARY;
    struct failure fail;
    memset(&fail, 0, sizeof fail);
    struct progress pg;
    progress_init(&pg, false, 0, 0);
    struct observables obs;
    memset(&obs, 0, sizeof obs);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;

    if (opt.demo && !opt.quiet && opt.resume_path == NULL)
        print_demo_banner(&opt);

    int rc = latmc_ctx_create(&ctx);
    if (rc != LATMC_OK) {
        failure_set(&fail, rc, latmc_last_error(), "cannot create a context");
        goto fail;
    }
    latmc_ctx_set_log(ctx, log_sink, &pg, opt.verbose ? LATMC_LOG_INFO : LATMC_LOG_WARN);

    int st = prepare(ctx, &opt, &sim, &obs, &fail);
    if (st == EXIT_USAGE) {
        status = EXIT_USAGE;
        goto out;
    }
    if (st != 0)
        goto fail;

    struct run_plan plan = { opt.therm, opt.sweeps, opt.every, opt.tune_target,
                             opt.checkpoint_path, opt.checkpoint_every };
    struct run_stats stats;
    uint64_t first = 0;
    latmc_sim_sweep_count(sim, &first);
    progress_init(&pg, !opt.quiet && isatty(STDERR_FILENO), first, opt.therm + opt.sweeps);
    interrupt_install();
    if (run_simulation(sim, &plan, &obs, &pg, &stats, &fail) != LATMC_OK)
        goto fail;

    report_print(stdout, sim, &opt, &stats, &obs);
    if (opt.demo)
        print_demo_footer();
    fflush(stdout);
    if (write_outputs(&opt, &stats, &obs, &fail) != LATMC_OK)
        goto fail;
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
