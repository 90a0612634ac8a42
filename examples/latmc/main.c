/*
 * latmc — the command-line front end of liblatmc: one Monte Carlo run of a lattice
 * model, with a progress bar and a table of results. See `latmc --help`.
 *
 * Uses only the public API (<latmc/latmc.h>). The parts: cli_options, cli_values and
 * cli_help (command line), sim_setup and resume (the sim to start from), observables
 * (what is measured), run (the sweep loop), checkpoint (saving the sim and the
 * measurements), progress (the bar), results (the numbers) and report (the tables),
 * meta (the inputs), series_out (--csv), json_out (--json), hdf5_out (--hdf5), outfile
 * (output paths), log_sink (library messages), failure (the error line), interrupt
 * (SIGINT, SIGTERM, SIGUSR1).
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
#include "cluster.h"
#include "failure.h"
#include "interrupt.h"
#include "log_sink.h"
#include "names.h"
#include "observables.h"
#include "checkpoint.h"
#include "json_out.h"
#include "meta.h"
#include "outfile.h"
#include "progress.h"
#include "report.h"
#include "results.h"
#include "run.h"
#include "series_out.h"
#include "sim_setup.h"
#if LATMC_CLI_HDF5
#include "hdf5_out.h"
#endif

static void print_demo_banner(FILE *out, const struct cli_options *opt)
{
    fprintf(out, "latmc: running the default demo: the 2D Ising model on a %lldx%lld lattice at T_c\n"
           "  (beta_c = ln(1+sqrt 2)/2 = %.7f), %s start, %llu thermalization + %llu "
           "measured\n"
           "  sweeps, measured every %llu (about a minute). 'latmc --help' lists the "
           "options.\n",
           (long long)opt->extent[0], (long long)opt->extent[1], ISING2D_BETA_C,
           names_of(names_start, opt->start, "?"), (unsigned long long)opt->therm,
           (unsigned long long)opt->sweeps, (unsigned long long)opt->every);
    fflush(out);
}

_Static_assert(DEMO_EXACT_L == DEMO_L, "recompute DEMO_EXACT_E and DEMO_EXACT_C for DEMO_L");

static void print_demo_footer(FILE *out)
{
    fprintf(out, "\n  For comparison, exact results for the 2D Ising model at T_c = 2/ln(1+sqrt 2) "
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
    if (opt->resume_path == NULL)
        snprintf(obs->start, sizeof obs->start, "%s", names_of(names_start, opt->start, ""));
    if (opt->resume_path != NULL)
        return setup_resume_series(*sim, opt, obs, f);
    return 0;
}

/* The output files, checked before the run. */
struct outputs {
    struct outfile csv, json, hdf5, checkpoint;
    bool have_csv, have_json, have_hdf5, have_checkpoint;
};

static bool check_outputs(const struct cli_options *opt, struct outputs *o)
{
    memset(o, 0, sizeof *o);
    o->have_csv = opt->csv_path != NULL;
    o->have_json = opt->json_path != NULL;
    o->have_hdf5 = opt->hdf5_path != NULL;
    o->have_checkpoint = opt->checkpoint_path != NULL;
    return (!o->have_csv || outfile_check(&o->csv, "--csv", opt->csv_path, true)) &&
           (!o->have_json || outfile_check(&o->json, "--json", opt->json_path, true)) &&
           (!o->have_hdf5 || outfile_check(&o->hdf5, "--hdf5", opt->hdf5_path, false)) &&
           (!o->have_checkpoint ||
            outfile_check(&o->checkpoint, "--checkpoint", opt->checkpoint_path, false));
}

/* The exit status of a run that produced results. */
static int run_status(const struct cli_options *opt, const struct run_stats *st,
                      const struct results *r)
{
    if (st->final_save_failed || st->checkpoint_stopped)
        return EXIT_LIBRARY;
    if (st->interrupted)
        return EXIT_SIGNAL_BASE + interrupt_signal();
    if (opt->strict && r->degenerate)
        return EXIT_DEGENERATE;
    return EXIT_SUCCESS;
}

/* The notes on stderr after the report (unless --quiet). */
static void print_notes(const struct cli_options *opt, const struct outputs *o,
                        const struct run_stats *st, const struct observables *obs)
{
    if (opt->quiet)
        return;
    if (o->have_csv && !o->csv.is_stdout)
        fprintf(stderr, "latmc: wrote %llu measurements to %s\n",
                (unsigned long long)latmc_acc_count(obs->acc), opt->csv_path);
    if (o->have_json && !o->json.is_stdout)
        fprintf(stderr, "latmc: wrote the results to %s\n", opt->json_path);
    if (o->have_checkpoint && st->saved)
        fprintf(stderr, "latmc: checkpoint at sweep %llu in %s%s\n",
                (unsigned long long)st->last_sweep, opt->checkpoint_path,
                st->interrupted ? ": continue with --resume" : "");
}

static int run_main(int argc, char **argv);

/* latmc-mpi: every rank runs run_main alike; rank 0 writes the output (cluster.h). */
int main(int argc, char **argv)
{
    cluster_init(&argc, &argv);
    return cluster_finish(run_main(argc, argv));
}

static int run_main(int argc, char **argv)
{
    struct cli_options opt;
    switch (cli_parse(argc, argv, &opt)) {
    case CLI_RUN: break;
    case CLI_EXIT_OK: return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_LIBRARY;
    default: return EXIT_USAGE;
    }
    if (!cluster_is_root()) {
        /* the other ranks of latmc-mpi write no file (the checkpoint: rank 0 for all) */
        opt.csv_path = opt.json_path = opt.hdf5_path = NULL;
    }
    struct outputs outs;
    if (!check_outputs(&opt, &outs))
        return EXIT_USAGE;
    /* from here on a signal stops the run cleanly (also during the setup) */
    interrupt_install();

    int status = EXIT_LIBRARY;
    struct failure fail;
    memset(&fail, 0, sizeof fail);
    struct progress pg;
    progress_init(&pg, false, 0, 0);
    struct observables obs;
    memset(&obs, 0, sizeof obs);
    struct series_out series;
    memset(&series, 0, sizeof series);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    /* machine-readable output on stdout moves the human-readable report to stderr, or
     * drops it with --quiet (a pipeline wants the data only) */
    bool data_on_stdout = (outs.have_csv && outs.csv.is_stdout) ||
                          (outs.have_json && outs.json.is_stdout);
    FILE *report = !data_on_stdout ? stdout : opt.quiet ? NULL : stderr;

    if (opt.demo && !opt.quiet && opt.resume_path == NULL && report != NULL)
        print_demo_banner(report, &opt);

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

    struct run_meta meta;
    meta_fill(&meta, sim, &opt, obs.start);
    if (series_open(&series, outs.have_csv ? &outs.csv : NULL, &meta, &obs, &fail) != LATMC_OK)
        goto fail;

    struct run_plan plan = { opt.therm, opt.sweeps, opt.every, opt.tune_target,
                             outs.have_checkpoint ? outs.checkpoint.real : NULL,
                             opt.checkpoint_every, opt.checkpoint_stop, &series };
    struct run_stats stats;
    uint64_t first = 0;
    latmc_sim_sweep_count(sim, &first);
    progress_init(&pg, !opt.quiet && isatty(STDERR_FILENO), first, opt.therm + opt.sweeps);
    if (run_simulation(sim, &plan, &obs, &pg, &stats, &fail) != LATMC_OK)
        goto fail;
    struct failure ckpt_fail = fail; /* a checkpoint's failure, if stats says so */

    struct results res;
    results_compute(&res, sim, &obs);
    if (report != NULL) {
        report_print(report, sim, &opt, &stats, &obs, &res);
        if (opt.demo)
            print_demo_footer(report);
        fflush(report);
    }
    report_warn(stderr, &res);
    status = run_status(&opt, &stats, &res);

    if (series_close(&series, &fail) != LATMC_OK)
        goto fail;

    struct json_run jr = { &meta, &stats, &obs, &res, opt.therm, opt.every,
                           stats.saved ? opt.checkpoint_path : NULL, interrupt_signal(), status };
    if (outs.have_json && json_write(&outs.json, &jr, &fail) != LATMC_OK)
        goto fail;
#if LATMC_CLI_HDF5
    if (outs.have_hdf5 && hdf5_write(&outs.hdf5, &jr, &fail) != LATMC_OK)
        goto fail;
#endif
    print_notes(&opt, &outs, &stats, &obs);
    if (stats.final_save_failed || stats.checkpoint_stopped) {
        fprintf(stderr, "latmc: %s: ", stats.checkpoint_stopped ? "stopped after a failed "
                "checkpoint" : "the final checkpoint failed");
        failure_print_detail(&ckpt_fail, stderr);
    }
    goto out;

fail:
    progress_clear(&pg);
    fflush(stdout);
    failure_print(&fail, stderr);
    status = EXIT_LIBRARY;
out:
    if (series.f != NULL) {
        struct failure ignored;
        series_close(&series, &ignored);
    }
    observables_destroy(&obs);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    if (fflush(stdout) != 0 && status == EXIT_SUCCESS)
        status = EXIT_LIBRARY;
    return status;
}
