/* The models the CUDA module runs, and how their kernels are called (cuda_backend.h). */
#include "cuda_backend.h"
#include "heisenberg_cuda.h"

/* ---- Potts ---- */

static int potts_colours(const latmc_sim_desc *d)
{
    /* check_desc has accepted the extents, so this is 2 or 3 */
    return latmc_potts_colours(d->ndim, d->extent);
}

static cudaError_t potts_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    return cuda_potts_hot_start(cs->stream, cs->spins, sim->nsites, sim->desc.q, sim->desc.seed);
}

/* Step `colour` of the model's schedule: one launch over that colour's sites. */
static cudaError_t potts_step(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                              const struct latmc_step *step)
{
    const struct latmc_potts_chain chain = {
        .tables = cs->tables, /* the device copy */
        .algorithm = sim->desc.algorithm,
        .q = sim->desc.q,
        .colours = cs->colours,
        .seed = sim->desc.seed,
    };
    return cuda_potts_sweep_colour(cs->stream, &cs->lattice, cs->spins, &chain, sweep,
                                   step->colour, cs->changed);
}

static cudaError_t potts_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    return cuda_potts_measure(cs->stream, &cs->lattice, cs->spins, cs->sums);
}

/* The API's layout: one uint8 per site, natural order. */
static cudaError_t potts_device_view(const latmc_sim *sim, struct cuda_sim *cs,
                                    latmc_device_view *view)
{
    cuda_view_fill(sim, cs, view, cs->spins, LATMC_DTYPE_UINT8, 1, 1, 0, (int64_t)sim->nsites);
    return cudaSuccess;
}

static const struct cuda_model_kernels cuda_potts_kernels = {
    .model = LATMC_MODEL_POTTS,
    .cold_byte = 0, /* state 0 */
    .colours = potts_colours,
    .hot_start = potts_hot_start,
    .step = potts_step,
    .measure = potts_measure,
    .device_view = potts_device_view,
};

extern const struct cuda_model_kernels cuda_ising_kernels; /* cuda_ising.c */
extern const struct cuda_model_kernels cuda_phi4_kernels; /* cuda_phi4.c */

const struct cuda_model_kernels *cuda_model_kernels_get(int model)
{
    switch (model) {
    case LATMC_MODEL_ISING: return &cuda_ising_kernels;
    case LATMC_MODEL_POTTS: return &cuda_potts_kernels;
    case LATMC_MODEL_PHI4:  return &cuda_phi4_kernels;
    case LATMC_MODEL_HEISENBERG: return &cuda_heisenberg_kernels;
    default:                return NULL;
    }
}
