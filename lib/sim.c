/*
 * The public sim API: argument and state validation, then dispatch to the backend.
 * Backends never re-validate, so every check lives here, once.
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "desc.h"
#include "ising.h"
#include "params.h"
#include "rng_streams.h"

/* Record a failure on the sim as well as the thread, log it, and pass the status on. */
static int sim_fail_status(const latmc_sim *csim, int status)
{
    latmc_sim *sim = (latmc_sim *)csim; /* the message buffer is mutable state of any sim */
    strncpy(sim->errmsg, latmc_thread_error(), sizeof sim->errmsg - 1);
    sim->errmsg[sizeof sim->errmsg - 1] = '\0';
    latmc_log(sim->ctx, LATMC_LOG_ERROR, "%s", sim->errmsg);
    return status;
}

#define SIM_FAIL(sim, status, ...) sim_fail_status((sim), latmc_fail((status), __VA_ARGS__))

static void configuration_changed(latmc_sim *sim)
{
    sim->sums_valid = false;
}

static void update_tables(latmc_sim *sim)
{
    if (sim->desc.model == LATMC_MODEL_ISING)
        latmc_ising_tables_compute(&sim->ising, sim->desc.ndim, sim->param[LATMC_PARAM_BETA],
                                   sim->param[LATMC_PARAM_J], sim->param[LATMC_PARAM_H]);
}

int latmc_sim_create(latmc_ctx *ctx, const latmc_sim_desc *desc, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !desc || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create: %s is NULL",
                          !ctx ? "ctx" : !desc ? "desc" : "out");
    latmc_sim_desc d;
    int64_t nsites = 0;
    const struct latmc_backend_ops *ops = NULL;
    int st = latmc_desc_validate(desc, &d, &nsites);
    if (st == LATMC_OK)
        st = latmc_backend_select(ctx, &d, &ops);
    if (st < 0) {
        latmc_log(ctx, LATMC_LOG_ERROR, "latmc_sim_create: %s", latmc_thread_error());
        return st;
    }
    latmc_sim *sim = calloc(1, sizeof *sim);
    if (!sim)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_create: cannot allocate the sim");
    sim->ctx = ctx;
    sim->desc = d;
    sim->nsites = nsites;
    sim->ops = ops;
    latmc_param_defaults(sim->param);
    update_tables(sim);
    if ((st = ops->create(sim)) < 0) {
        latmc_log(ctx, LATMC_LOG_ERROR, "latmc_sim_create: %s", latmc_thread_error());
        free(sim);
        return st;
    }
    latmc_ctx_ref(ctx);
    latmc_log(ctx, LATMC_LOG_DEBUG, "created a %dD %s sim of %lld sites on backend %s, "
              "%d thread(s)", d.ndim, latmc_model_info(d.model)->name, (long long)nsites,
              ops->name, sim->n_threads);
    *out = sim;
    return LATMC_OK;
}

void latmc_sim_destroy(latmc_sim **psim)
{
    if (!psim || !*psim)
        return;
    latmc_sim *sim = *psim;
    sim->ops->destroy(sim);
    latmc_ctx_unref(sim->ctx);
    free(sim);
    *psim = NULL;
}

int latmc_sim_get_desc(const latmc_sim *sim, latmc_sim_desc *out)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_get_desc: sim is NULL");
    if (!out)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_get_desc: out is NULL");
    *out = sim->desc;
    return LATMC_OK;
}

const char *latmc_sim_backend_name(const latmc_sim *sim)
{
    return sim ? sim->ops->name : "none";
}

/* Common checks of set/get_param: the key exists and belongs to the sim's model. */
static int check_param_key(const latmc_sim *sim, int key)
{
    if (!latmc_param_name(key))
        return SIM_FAIL(sim, LATMC_EINVAL, "unknown parameter key %d", key);
    const struct latmc_model_info *info = latmc_model_info(sim->desc.model);
    if (!(info->params & (1u << key)))
        return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "parameter %s does not belong to the %s model",
                        latmc_param_name(key), info->name);
    return LATMC_OK;
}

int latmc_sim_set_param(latmc_sim *sim, int key, double value)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_set_param: sim is NULL");
    int st = check_param_key(sim, key);
    if (st < 0)
        return st;
    if ((st = latmc_param_check(key, value)) < 0)
        return sim_fail_status(sim, st);
    sim->param[key] = value;
    update_tables(sim);
    return LATMC_OK;
}

int latmc_sim_get_param(const latmc_sim *sim, int key, double *value)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_get_param: sim is NULL");
    if (!value)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_get_param: value is NULL");
    int st = check_param_key(sim, key);
    if (st < 0)
        return st;
    *value = sim->param[key];
    return LATMC_OK;
}

int latmc_sim_init_spins(latmc_sim *sim, int how)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_init_spins: sim is NULL");
    if (how != LATMC_INIT_COLD && how != LATMC_INIT_HOT)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_init_spins: how = %d is not "
                        "LATMC_INIT_COLD or LATMC_INIT_HOT", how);
    int st = sim->ops->init_spins(sim, how);
    if (st < 0)
        return sim_fail_status(sim, st);
    sim->have_config = true;
    sim->accepted = sim->attempted = 0;
    configuration_changed(sim);
    return LATMC_OK;
}

int latmc_sim_sweep(latmc_sim *sim, uint64_t n)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_sweep: sim is NULL");
    if (!sim->have_config)
        return SIM_FAIL(sim, LATMC_ESTATE, "latmc_sim_sweep: no configuration yet "
                        "(call latmc_sim_init_spins or latmc_sim_set_spins first)");
    if (n == 0)
        return LATMC_OK;
    if (n > (LATMC_RNG_MAX_SWEEP + 1) - sim->sweeps)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_sweep: %llu more sweeps would pass the "
                        "2^48 sweeps the random-number counters can name",
                        (unsigned long long)n);
    uint64_t accepted = 0;
    int st = sim->ops->sweep(sim, n, &accepted);
    configuration_changed(sim);
    if (st < 0)
        return sim_fail_status(sim, st);
    sim->sweeps += n;
    sim->accepted += accepted;
    sim->attempted += n * (uint64_t)sim->nsites;
    return LATMC_OK;
}

int latmc_sim_sweep_count(const latmc_sim *sim, uint64_t *count)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_sweep_count: sim is NULL");
    if (!count)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_sweep_count: count is NULL");
    *count = sim->sweeps;
    return LATMC_OK;
}

int latmc_sim_reset_acceptance(latmc_sim *sim)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_reset_acceptance: sim is NULL");
    sim->accepted = sim->attempted = 0;
    return LATMC_OK;
}

int latmc_sim_observable(latmc_sim *sim, int key, double *value)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_observable: sim is NULL");
    if (!value)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_observable: value is NULL");
    if (!latmc_observable_name(key))
        return SIM_FAIL(sim, LATMC_EINVAL, "unknown observable key %d", key);
    if (key == LATMC_OBS_ACCEPTANCE) {
        if (sim->attempted == 0)
            return SIM_FAIL(sim, LATMC_ESTATE, "acceptance: no update attempted since the "
                            "last reset");
        *value = (double)sim->accepted / (double)sim->attempted;
        return LATMC_OK;
    }
    if (key == LATMC_OBS_PHI2 || key == LATMC_OBS_OVERLAP2)
        return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "observable %s is not defined for the %s model",
                        latmc_observable_name(key), latmc_model_info(sim->desc.model)->name);
    if (!sim->have_config)
        return SIM_FAIL(sim, LATMC_ESTATE, "observable %s: no configuration yet",
                        latmc_observable_name(key));
    if (!sim->sums_valid) {
        int st = sim->ops->measure_ising(sim, &sim->sums);
        if (st < 0)
            return sim_fail_status(sim, st);
        sim->sums_valid = true;
    }
    return latmc_ising_observable(&sim->sums, sim->nsites, sim->param[LATMC_PARAM_J],
                                  sim->param[LATMC_PARAM_H], key, value);
}

const char *latmc_observable_name(int key)
{
    switch (key) {
    case LATMC_OBS_ENERGY:            return "energy";
    case LATMC_OBS_MAGNETIZATION:     return "magnetization";
    case LATMC_OBS_ABS_MAGNETIZATION: return "abs_magnetization";
    case LATMC_OBS_M2:                return "m2";
    case LATMC_OBS_M4:                return "m4";
    case LATMC_OBS_PHI2:              return "phi2";
    case LATMC_OBS_ACCEPTANCE:        return "acceptance";
    case LATMC_OBS_OVERLAP2:          return "overlap2";
    default:                          return NULL;
    }
}

int latmc_sim_spins_size(const latmc_sim *sim, size_t *bytes)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_spins_size: sim is NULL");
    if (!bytes)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_spins_size: bytes is NULL");
    *bytes = (size_t)sim->nsites * (size_t)sim->desc.replicas * sizeof(int8_t);
    return LATMC_OK;
}

static int check_spin_buffer(const latmc_sim *sim, const char *fn, const void *buf, size_t bytes)
{
    size_t want = 0;
    latmc_sim_spins_size(sim, &want);
    if (!buf)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: buf is NULL", fn);
    if (bytes != want)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: buffer of %zu bytes, the configuration takes "
                        "%zu (sites x replicas x 1 byte)", fn, bytes, want);
    return LATMC_OK;
}

int latmc_sim_get_spins(latmc_sim *sim, void *buf, size_t bytes)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_get_spins: sim is NULL");
    int st = check_spin_buffer(sim, "latmc_sim_get_spins", buf, bytes);
    if (st < 0)
        return st;
    if (!sim->have_config)
        return SIM_FAIL(sim, LATMC_ESTATE, "latmc_sim_get_spins: no configuration yet");
    if ((st = sim->ops->get_spins(sim, buf)) < 0)
        return sim_fail_status(sim, st);
    return LATMC_OK;
}

int latmc_sim_set_spins(latmc_sim *sim, const void *buf, size_t bytes)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: sim is NULL");
    int st = check_spin_buffer(sim, "latmc_sim_set_spins", buf, bytes);
    if (st < 0)
        return st;
    const int8_t *s = buf;
    for (size_t i = 0; i < bytes; i++)
        if (s[i] != 1 && s[i] != -1)
            return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_set_spins: entry %zu is %d; Ising "
                            "spins are +1 or -1", i, s[i]);
    if ((st = sim->ops->set_spins(sim, buf)) < 0)
        return sim_fail_status(sim, st);
    sim->have_config = true;
    sim->accepted = sim->attempted = 0;
    configuration_changed(sim);
    return LATMC_OK;
}

int latmc_sim_save(latmc_sim *sim, const char *path)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_save: sim is NULL");
    if (!path)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_save: path is NULL");
    return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "latmc_sim_save: checkpoints are not implemented "
                    "in liblatmc %s yet", latmc_version_string());
}

int latmc_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !path || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_load: %s is NULL",
                          !ctx ? "ctx" : !path ? "path" : "out");
    return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_load: checkpoints are not implemented in "
                      "liblatmc %s yet", latmc_version_string());
}

const char *latmc_sim_last_error(const latmc_sim *sim)
{
    return sim ? sim->errmsg : "sim is NULL";
}
