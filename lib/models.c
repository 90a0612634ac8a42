/* The model registry and helpers shared by the model descriptors. */
#include <math.h>

#include "model.h"

static const struct latmc_model_def *const models[] = {
    &latmc_model_ising, &latmc_model_potts, &latmc_model_phi4, &latmc_model_heisenberg,
};

const struct latmc_model_def *latmc_model_get(int id)
{
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++)
        if (models[i]->id == id)
            return models[i];
    return NULL;
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
