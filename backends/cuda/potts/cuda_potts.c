/*
 * The q-state Potts model's leaf of the CUDA executor (cuda_leaf.h): one byte per site in
 * the API's layout, plane after plane; halo 1 plane, border ranges of c planes (the
 * colours, 2 or 3).
 *
 * A box whose halo is its own wrap (one GPU) runs the one-device kernels on the whole
 * lattice (potts_kernels.cu: the row kernels where they apply, else the per-block
 * reference kernel; reductions.cu). A box with halos runs the range kernels
 * (potts_range_kernels.h) on ranges of whole multiples of c planes from a lattice plane
 * that is a multiple of c (the plan cuts boxes so), so the range's colouring is the lattice's and
 * its draws are named by the lattice's within-colour numbers: every range writes what
 * the one-device step writes there, and the chain is the one-device (and the CPU's) chain
 * bit for bit.
 */
#include "cuda_kernels.h"
#include "cuda_leaf.h"
#include "mode_projections.h"
#include "model.h"
#include "potts_range_kernels.h"

static int64_t potts_halo(const latmc_sim *sim)
{
    (void)sim;
    return 1; /* the nearest neighbours */
}

static int64_t potts_border_planes(const latmc_sim *sim)
{
    /* check_desc has accepted the extents, so this is 2 or 3 */
    return latmc_potts_colours(sim->desc.ndim, sim->desc.extent);
}

static size_t potts_plane_bytes(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return (size_t)(d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0]);
}

/* The one-device hot start's draws (lane i mod 4 of INIT block i / 4), named by the
 * lattice's site index. */
static cudaError_t potts_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                    cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                    int64_t planes)
{
    const int64_t pb = (int64_t)potts_plane_bytes(sim);
    return cuda_potts_hot_start_range(stream, (uint8_t *)b->data + local_p0 * pb,
                                      global_p0 * pb, planes * pb, sim->desc.q,
                                      sim->desc.seed);
}

static cudaError_t potts_update(const latmc_sim *sim, const struct cuda_box_range *r,
                                uint64_t sweep, const struct latmc_step *step,
                                cudaStream_t stream, unsigned long long *changed)
{
    (void)sweep; /* the draws are named by step->rng */
    const struct latmc_potts_chain chain = {
        .tables = r->box->tables, /* the box's device copy */
        .algorithm = sim->desc.algorithm,
        .q = sim->desc.q,
        .colours = (int)potts_border_planes(sim),
        .seed = sim->desc.seed,
    };
    if (r->whole)
        return cuda_potts_sweep_colour(stream, &r->box->local, r->box->data, &chain, step->rng,
                                       step->colour, changed);
    const struct cuda_plane_range pr = { r->p0, r->planes, r->global_p0, r->L };
    return cuda_potts_sweep_colour_range(stream, &r->box->local, r->box->data, &chain,
                                         step->rng, step->colour, &pr, changed);
}

static cudaError_t potts_measure(const latmc_sim *sim, const struct cuda_box_range *own,
                                 cudaStream_t stream, void *sums)
{
    if (cuda_potts_fold_fits(&own->box->local, sim->desc.q)) { /* four sites a thread */
        const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
        return cuda_potts_measure_fold(stream, &own->box->local, own->box->data, &pr,
                                       sim->desc.q, sums, NULL);
    }
    if (own->whole)
        return cuda_potts_measure(stream, &own->box->local, own->box->data, sums);
    const struct cuda_plane_range pr = { own->p0, own->planes, own->global_p0, own->L };
    return cuda_potts_measure_range(stream, &own->box->local, own->box->data, &pr, sums);
}

static cudaError_t potts_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                     cudaStream_t stream, int64_t *proj)
{
    const struct cuda_proj_range pr = { r->p0, r->planes, r->global_p0, r->L };
    return cuda_byte_projections(stream, &r->box->local, r->box->data, &pr, sim->desc.q, proj);
}

/* potts_measure and potts_projections in one read: four sites a thread where the kernel
 * has them (q <= 16, L_x a multiple of 4: potts_fold.cu), else a site a thread where the
 * counters fit the kernel's shared memory (q <= 32: measure_projections.cu), else the two
 * passes. */
static cudaError_t potts_measure_projections(const latmc_sim *sim,
                                             const struct cuda_box_range *own,
                                             cudaStream_t stream, void *sums, int64_t *proj)
{
    const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
    if (cuda_potts_fold_fits(&own->box->local, sim->desc.q))
        return cuda_potts_measure_fold(stream, &own->box->local, own->box->data, &pr,
                                       sim->desc.q, sums, proj);
    if (!cuda_byte_measure_projections_fits(sim->desc.q)) {
        const cudaError_t err = potts_measure(sim, own, stream, sums);
        return err == cudaSuccess ? potts_projections(sim, own, stream, proj) : err;
    }
    return cuda_byte_measure_projections(stream, &own->box->local, own->box->data, NULL, &pr,
                                         sim->desc.q, sums, proj);
}

/* q counts per plane, one per state (latmc_modes_components). */
static int potts_projection_components(const latmc_sim *sim)
{
    return sim->desc.q;
}

static const struct cuda_leaf potts_leaf = {
    .model = LATMC_MODEL_POTTS,
    .halo = potts_halo,
    .border_planes = potts_border_planes,
    .plane_bytes = potts_plane_bytes,
    .cold_byte = 0, /* state 0 */
    .hot_planes = potts_hot_planes,
    .update = potts_update,
    .measure = potts_measure,
    .projections = potts_projections,
    .measure_projections = potts_measure_projections,
    .view_dtype = LATMC_DTYPE_UINT8, /* the API's layout: one uint8 per site */
    .projection_components = potts_projection_components,
};

const struct cuda_leaf *cuda_potts_leaf_of(const latmc_sim *sim)
{
    (void)sim; /* one leaf for every Potts sim */
    return &potts_leaf;
}
