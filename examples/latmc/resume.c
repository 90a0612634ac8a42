/*
 * latmc front end — --resume FILE: the sim from the checkpoint (latmc_sim_load), the
 * settings the command line gives compared with it, and the measurements already made
 * read back from the checkpoint's application data (checkpoint.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checkpoint.h"
#include "cluster.h"
#include "names.h"
#include "sim_setup.h"

/* "8x8x8" */
static void format_extents(char *buf, size_t size, int ndim, const int64_t *extent)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int d = 0; d < ndim && d < 4 && len < size; d++)
        len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, d ? "x" : "", extent[d]);
}

static int mismatch(const struct cli_options *opt, const char *what, const char *saved,
                    const char *asked)
{
    cli_usage_error("--resume %s: the checkpoint has %s %s, the command line asks for %s%s "
                    "(give the command line of the run that wrote it)", opt->resume_path,
                    what, saved, asked, opt->demo ? " (the default demo)" : "");
    return EXIT_USAGE;
}

static int mismatch_name(const struct cli_options *opt, const char *what,
                         const struct name_value *table, int saved, int asked)
{
    return mismatch(opt, what, names_of(table, saved, "?"), names_of(table, asked, "?"));
}

static int mismatch_u64(const struct cli_options *opt, const char *what, uint64_t saved,
                        uint64_t asked)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "%" PRIu64, saved);
    snprintf(b, sizeof b, "%" PRIu64, asked);
    return mismatch(opt, what, a, b);
}

/* The lattice and the desc fields the command line gave. */
static int compare_desc(const struct cli_options *opt, const latmc_sim_desc *d)
{
    if (opt->model_given && d->model != opt->model)
        return mismatch_name(opt, "model", names_models(), d->model, opt->model);
    if ((opt->dim_given || opt->size_given) && d->ndim != opt->ndim)
        return mismatch_u64(opt, "dimension", (uint64_t)d->ndim, (uint64_t)opt->ndim);
    if (opt->size_given && memcmp(d->extent, opt->extent, (size_t)d->ndim * sizeof d->extent[0])) {
        char a[96], b[96];
        format_extents(a, sizeof a, d->ndim, d->extent);
        format_extents(b, sizeof b, opt->ndim, opt->extent);
        return mismatch(opt, "lattice", a, b);
    }
    if (opt->q_given && d->q != opt->q)
        return mismatch_u64(opt, "q", (uint64_t)d->q, (uint64_t)opt->q);
    if (opt->algo_given && opt->algorithm != LATMC_ALGO_DEFAULT && d->algorithm != opt->algorithm)
        return mismatch_name(opt, "algorithm", names_algorithm, d->algorithm, opt->algorithm);
    if (opt->precision_given && d->precision != opt->precision)
        return mismatch_name(opt, "precision", names_precision, d->precision, opt->precision);
    if (opt->replicas_given && d->replicas != opt->replicas)
        return mismatch_u64(opt, "replicas", (uint64_t)d->replicas, (uint64_t)opt->replicas);
    if (opt->couplings_given && d->couplings != opt->couplings)
        return mismatch_name(opt, "couplings", names_couplings, d->couplings, opt->couplings);
    if (opt->coupling_seed_given && d->coupling_seed != opt->coupling_seed)
        return mismatch_u64(opt, "coupling seed", d->coupling_seed, opt->coupling_seed);
    if (opt->seed_given && d->seed != opt->seed)
        return mismatch_u64(opt, "seed", d->seed, opt->seed);
    if (opt->device_given && d->device != opt->device)
        return mismatch_name(opt, "device", names_device, d->device, opt->device);
    if (opt->threads_given && opt->threads != 0 && opt->threads != d->n_threads && !opt->quiet)
        fprintf(stderr, "latmc: note: the checkpoint runs on %d threads: liblatmc restores the "
                "saved thread count (--threads %d is not applied; the results do not depend "
                "on it)\n", d->n_threads, opt->threads);
    if (opt->devices > 1 && !opt->quiet)
        fprintf(stderr, "latmc: note: a checkpoint loads on one device (--devices %d is not "
                "applied; the results do not depend on it)\n", opt->devices);
    return 0;
}

/* The parameters the command line gave (epsilon not, when it is being tuned). */
static int compare_params(latmc_sim *sim, const struct cli_options *opt)
{
    for (int i = 0; i < opt->n_params; i++) {
        int key = opt->params[i].key;
        double saved = 0.0;
        if (key == LATMC_PARAM_EPSILON && opt->tune_target > 0.0)
            continue;
        int rc = latmc_sim_get_param(sim, key, &saved);
        if (rc != LATMC_OK) {
            setup_param_error(sim, key, opt->params[i].value, rc);
            return EXIT_USAGE;
        }
        if (saved != opt->params[i].value) {
            char a[40], b[40], what[48];
            snprintf(a, sizeof a, "%.17g", saved);
            snprintf(b, sizeof b, "%.17g", opt->params[i].value);
            snprintf(what, sizeof what, "parameter %s =", latmc_param_name(key));
            return mismatch(opt, what, a, b);
        }
    }
    return 0;
}

int setup_resume(latmc_ctx *ctx, const struct cli_options *opt, latmc_sim **out,
                 struct failure *f)
{
    int rc = cluster_sim_load(ctx, opt->resume_path, out);
    if (rc != LATMC_OK) {
        failure_set(f, rc, latmc_last_error(), "--resume: cannot load '%s'", opt->resume_path);
        return EXIT_LIBRARY;
    }
    latmc_sim_desc desc;
    latmc_sim_desc_init(&desc);
    uint64_t sweeps = 0;
    rc = latmc_sim_get_desc(*out, &desc);
    if (rc == LATMC_OK)
        rc = latmc_sim_sweep_count(*out, &sweeps);
    if (rc != LATMC_OK) {
        failure_set(f, rc, latmc_sim_last_error(*out), "--resume: reading the checkpoint");
        return EXIT_LIBRARY;
    }
    int st = compare_desc(opt, &desc);
    if (st == 0)
        st = compare_params(*out, opt);
    if (st != 0)
        return st;
    if (sweeps > opt->therm + opt->sweeps) {
        cli_usage_error("--resume %s: the checkpoint is at sweep %" PRIu64 ", past the end of "
                        "this run (%" PRIu64 " thermalization + %" PRIu64 " measured sweeps)",
                        opt->resume_path, sweeps, opt->therm, opt->sweeps);
        return EXIT_USAGE;
    }
    return 0;
}

int setup_resume_series(latmc_sim *sim, const struct cli_options *opt,
                        struct observables *obs, struct failure *f)
{
    return checkpoint_load_measurements(opt->resume_path, sim, opt->therm, opt->every, obs, f);
}
