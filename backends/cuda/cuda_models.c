/* The models the CUDA module runs, and how their kernels are called (cuda_backend.h). */
#include <stdio.h>
#include <stdlib.h>

#include "coupling_draws.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "heisenberg_cuda.h"

/* ---- Ising ---- */

/*
 * +-J couplings (desc.couplings = BIMODAL): one int8 +-1 per bond, eps[ndim i + mu], on the
 * device for the kernels, and the same bytes on the host for get_couplings (the device never
 * changes them). Drawn on the host with the CPU's function (lib/coupling_draws.h): the CPU's
 * couplings bit for bit. model_state stays NULL with uniform couplings.
 */
struct ising_couplings {
    int8_t *dev;
    int8_t *host;
};

static size_t ising_coupling_count(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.ndim;
}

/* The device couplings, or NULL: the kernels' switch between +-J and uniform. */
static const int8_t *ising_eps(const struct cuda_sim *cs)
{
    const struct ising_couplings *c = cs->model_state;
    return c ? c->dev : NULL;
}

static void ising_destroy(struct cuda_sim *cs)
{
    struct ising_couplings *c = cs->model_state;
    if (!c)
        return;
    cudaFree(c->dev);
    free(c->host);
    free(c);
    cs->model_state = NULL;
}

static int ising_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    if (sim->desc.couplings != LATMC_COUPLINGS_BIMODAL)
        return LATMC_OK;
    const size_t n = ising_coupling_count(sim);
    struct ising_couplings *c = calloc(1, sizeof *c);
    if (!c)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Ising state");
    cs->model_state = c; /* freed by ising_destroy, also after a failure below */
    c->host = malloc(n);
    if (!c->host)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of host "
                               "memory for the couplings", n);
    for (int64_t b = 0; b < (int64_t)((n + 3) / 4); b++)
        latmc_ising_bimodal_block(c->host, (int64_t)n, sim->desc.coupling_seed, b);
    char msg[128];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory for the couplings", n);
    int st = cuda_check(cudaMalloc((void **)&c->dev, n), msg);
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(c->dev, c->host, n, cudaMemcpyHostToDevice, cs->stream),
                        "copying the couplings to the device");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(cs->stream), "copying the couplings to the device");
    return st;
}

static int ising_colours(const latmc_sim_desc *d)
{
    (void)d;
    return 2;
}

static cudaError_t ising_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    return cuda_ising_hot_start(cs->stream, cs->spins, sim->nsites, sim->desc.seed);
}

static cudaError_t ising_sweep_colour(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                                      int colour)
{
    return cuda_ising_sweep_colour(cs->stream, &cs->lattice, cs->spins, ising_eps(cs),
                                   cs->tables, sim->desc.algorithm, sim->desc.seed, sweep,
                                   colour, cs->changed);
}

static cudaError_t ising_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    return cuda_ising_measure(cs->stream, &cs->lattice, cs->spins, ising_eps(cs), cs->sums);
}

/* Called by the core only for a sim with couplings (model_state set). */
static cudaError_t ising_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf)
{
    const struct ising_couplings *c = cs->model_state;
    const size_t n = ising_coupling_count(sim);
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)c->host[i];
    return cudaSuccess;
}

/* Values checked by the core: exactly +1.0f or -1.0f. The generic code synchronises. */
static cudaError_t ising_set_couplings(const latmc_sim *sim, struct cuda_sim *cs, const float *buf)
{
    struct ising_couplings *c = cs->model_state;
    const size_t n = ising_coupling_count(sim);
    for (size_t i = 0; i < n; i++)
        c->host[i] = buf[i] > 0.0f ? (int8_t)1 : (int8_t)-1;
    return cudaMemcpyAsync(c->dev, c->host, n, cudaMemcpyHostToDevice, cs->stream);
}

static const struct cuda_model_kernels cuda_ising_kernels = {
    .model = LATMC_MODEL_ISING,
    .cold_byte = 1, /* +1 */
    .colours = ising_colours,
    .create = ising_create,
    .destroy = ising_destroy,
    .hot_start = ising_hot_start,
    .sweep_colour = ising_sweep_colour,
    .measure = ising_measure,
    .get_couplings = ising_get_couplings,
    .set_couplings = ising_set_couplings,
};

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

static cudaError_t potts_sweep_colour(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                                      int colour)
{
    const struct latmc_potts_chain chain = {
        .tables = cs->tables, /* the device copy */
        .algorithm = sim->desc.algorithm,
        .q = sim->desc.q,
        .colours = cs->colours,
        .seed = sim->desc.seed,
    };
    return cuda_potts_sweep_colour(cs->stream, &cs->lattice, cs->spins, &chain, sweep, colour,
                                   cs->changed);
}

static cudaError_t potts_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    return cuda_potts_measure(cs->stream, &cs->lattice, cs->spins, cs->sums);
}

static const struct cuda_model_kernels cuda_potts_kernels = {
    .model = LATMC_MODEL_POTTS,
    .cold_byte = 0, /* state 0 */
    .colours = potts_colours,
    .hot_start = potts_hot_start,
    .sweep_colour = potts_sweep_colour,
    .measure = potts_measure,
};

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
