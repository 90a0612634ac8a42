/* latmc front end — a new sim from the command line. */
#include <stdio.h>
#include <string.h>

#include "cluster.h"
#include "names.h"
#include "sim_setup.h"

void setup_param_error(latmc_sim *sim, int key, double value, int rc)
{
    const char *name = latmc_param_name(key);
    const char *detail = latmc_sim_last_error(sim);
    /* The library's message often names the parameter and value itself: say them once. */
    if (strncmp(detail, "parameter ", 10) == 0)
        cli_usage_error("%s: %s", latmc_strerror(rc), detail);
    else
        cli_usage_error("parameter %s = %g: %s%s%s", name != NULL ? name : "?", value,
                        latmc_strerror(rc), detail[0] != '\0' ? ": " : "", detail);
}

int setup_fresh(latmc_ctx *ctx, const struct cli_options *opt, latmc_sim **out,
                struct failure *f)
{
    latmc_sim_desc desc;
    latmc_sim_desc_init(&desc);
    desc.model = opt->model;
    desc.ndim = opt->ndim;
    for (int d = 0; d < opt->ndim; d++)
        desc.extent[d] = opt->extent[d];
    if (opt->q_given)
        desc.q = opt->q;
    desc.algorithm = opt->algorithm;
    if (opt->precision_given)
        desc.precision = opt->precision;
    if (opt->couplings_given)
        desc.couplings = opt->couplings;
    desc.coupling_seed = opt->coupling_seed;
    desc.replicas = opt->replicas;
    desc.device = opt->device;
    desc.n_devices = opt->devices;
    desc.n_threads = opt->threads;
    desc.seed = opt->seed;
    int rc = cluster_sim_create(ctx, &desc, out);
    if (rc != LATMC_OK) {
        failure_set(f, rc, latmc_last_error(), "cannot create the %s simulation",
                    names_of(names_models(), opt->model, "?"));
        return EXIT_LIBRARY;
    }
    for (int i = 0; i < opt->n_params; i++) {
        rc = latmc_sim_set_param(*out, opt->params[i].key, opt->params[i].value);
        if (rc != LATMC_OK) {
            /* the model has no such parameter, or refuses the value: a usage error */
            setup_param_error(*out, opt->params[i].key, opt->params[i].value, rc);
            return EXIT_USAGE;
        }
    }
    rc = latmc_sim_init_spins(*out, opt->start);
    if (rc != LATMC_OK) {
        failure_set(f, rc, latmc_sim_last_error(*out), "cannot initialise the spins");
        return EXIT_LIBRARY;
    }
    return 0;
}

/* The value of a parameter of the sim's model; false when the model lacks it. */
static bool param(const latmc_sim *sim, int key, double *v)
{
    return latmc_sim_get_param(sim, key, v) == LATMC_OK;
}

void setup_notes(latmc_sim *sim, const struct cli_options *opt)
{
    if (opt->quiet || opt->demo || opt->resume_path != NULL)
        return;
    /* beta = 0 given explicitly: allowed (heat bath then draws independent spins), but
     * Metropolis there is the degenerate chain the temperature rule keeps from being a
     * default. */
    double beta = 1.0;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    if (param(sim, LATMC_PARAM_BETA, &beta) && beta == 0.0 &&
        latmc_sim_get_desc(sim, &d) == LATMC_OK && d.model == LATMC_MODEL_ISING &&
        d.algorithm == LATMC_ALGO_METROPOLIS)
        fprintf(stderr, "latmc: note: Ising Metropolis at beta = 0 accepts every proposal: the "
                "checkerboard flips every spin every sweep, a periodic chain (its errors "
                "cannot be estimated; use --algo heatbath for infinite temperature)\n");
}

int setup_check_tuning(latmc_sim *sim, const struct cli_options *opt, struct failure *f)
{
    if (opt->tune_target <= 0.0)
        return 0;
    int rc = latmc_sim_tune_epsilon(sim, opt->tune_target, 0);
    if (rc != LATMC_OK) {
        failure_set(f, rc, latmc_sim_last_error(sim), "--tune-epsilon");
        return EXIT_LIBRARY;
    }
    return 0;
}
