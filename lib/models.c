/* The model registry (lib/model_list.h: one line per model), its public names, and helpers
 * shared by the model descriptors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

/* Each descriptor with its public name, the token of its line in model_list.h. */
static const struct {
    const struct latmc_model_def *def;
    const char *name;
} models[] = {
#define LATMC_MODEL(m) { &latmc_model_##m, #m },
#include "model_list.h"
#undef LATMC_MODEL
};

enum { n_models = sizeof models / sizeof models[0] };

void latmc_model_add_planes(const struct latmc_model_def *model, void *sums, const void *planes,
                            int64_t n)
{
    memset(sums, 0, model->sums_size);
    for (int64_t p = 0; p < n; p++)
        model->add_sums(sums, (const char *)planes + (size_t)p * model->sums_size);
}

const struct latmc_model_def *latmc_model_get(int id)
{
    for (size_t i = 0; i < n_models; i++)
        if (models[i].def->id == id)
            return models[i].def;
    return NULL;
}

const char *latmc_model_name(int model)
{
    for (size_t i = 0; i < n_models; i++)
        if (models[i].def->id == model)
            return models[i].name;
    return NULL;
}

int latmc_model_by_name(const char *name, int *model)
{
    if (!name || !model)
        return latmc_fail(LATMC_EINVAL, "latmc_model_by_name: %s is NULL",
                          name ? "model" : "name");
    for (size_t i = 0; i < n_models; i++) {
        if (strcmp(models[i].name, name) == 0) {
            *model = models[i].def->id;
            return LATMC_OK;
        }
    }
    char known[256] = ""; /* the names, in enum order, for the message */
    for (int m = 1; latmc_model_name(m); m++) {
        const size_t len = strlen(known);
        snprintf(known + len, sizeof known - len, "%s%s", len ? " " : "", latmc_model_name(m));
    }
    return latmc_fail(LATMC_EINVAL, "unknown model name \"%s\" (known: %s)", name, known);
}

bool latmc_model_has_couplings(const struct latmc_model_def *model, const latmc_sim_desc *d)
{
    if (!(model->coupling_kinds & (1u << d->couplings)))
        return false;
    return d->couplings != LATMC_COUPLINGS_UNIFORM || model->uniform_couplings;
}

const char *latmc_algorithm_name(int algorithm)
{
    switch (algorithm) {
    case LATMC_ALGO_DEFAULT:    return "default";
    case LATMC_ALGO_METROPOLIS: return "Metropolis";
    case LATMC_ALGO_HEATBATH:   return "heat bath";
    case LATMC_ALGO_OVERRELAX:  return "overrelaxation";
    case LATMC_ALGO_SWENDSEN_WANG: return "Swendsen-Wang";
    case LATMC_ALGO_WOLFF:      return "Wolff";
    default:                    return "unknown";
    }
}

int latmc_check_even_extents(const latmc_sim_desc *d)
{
    for (int mu = 0; mu < d->ndim; mu++)
        if (d->extent[mu] % 2 != 0)
            return latmc_fail(LATMC_EINVAL, "desc.extent[%d] = %lld is odd: the checkerboard "
                              "update needs even extents", mu, (long long)d->extent[mu]);
    return LATMC_OK;
}

int latmc_moment_observable(int key, double m, double m2, double *value)
{
    switch (key) {
    case LATMC_OBS_MAGNETIZATION:
        *value = m;
        return LATMC_OK;
    case LATMC_OBS_ABS_MAGNETIZATION:
        *value = fabs(m);
        return LATMC_OK;
    case LATMC_OBS_M2:
    case LATMC_OBS_M2_K0: /* the vector m of the Fourier observables (Potts: its own) */
        *value = m2;
        return LATMC_OK;
    case LATMC_OBS_M4:
        *value = m2 * m2;
        return LATMC_OK;
    default:
        return LATMC_EUNSUPPORTED;
    }
}
