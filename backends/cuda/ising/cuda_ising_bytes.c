/*
 * The Ising leaf of the one executor (exec/cuda_leaf.h) on the API's layout, one int8 +-1
 * per site, where the multi-spin coded leaf (cuda_ising_packed.c) cannot run (L_x not a
 * multiple of 16) or may not (LATMC_CUDA_KERNELS=reference). Halo 1 plane, border ranges of
 * 2 planes (the colours).
 *
 * A box whose halo is its own wrap runs the one-device byte kernels (ising_kernels.cu,
 * reductions.cu) on the whole lattice. A box with halos runs the range kernels
 * (ising_range_kernels.h) on ranges of whole multiples of 2 planes from an
 * even lattice plane (the plan cuts boxes so): the range's colouring is the lattice's and
 * its draws are named by the lattice's within-colour numbers and the step's name, so
 * every range writes what the one-device step writes there (and the CPU's chain) bit for
 * bit. +-J couplings: each box keeps the bytes of its local planes, halos included.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "cuda_ising_leaf.h"
#include "cuda_kernels.h"
#include "mode_projections.h"
#include "model.h"
#include "ising_range_kernels.h"

/* A box's own state (cuda_box.own): +-J, the couplings of its local planes,
 * eps[ndim i + mu] of local site i (NULL: uniform); whether it was prepared as an
 * ensemble's member (cuda_ising_leaf.h). */
struct bytes_box {
    int8_t *eps;
    bool member;
};

static int64_t bytes_halo(const latmc_sim *sim)
{
    (void)sim;
    return 1; /* the nearest neighbours */
}

static int64_t bytes_border_planes(const latmc_sim *sim)
{
    (void)sim;
    return 2; /* the colours */
}

static size_t bytes_plane_bytes(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return (size_t)(d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0]);
}

/* The one-device hot start's draws, named by the lattice's site index. */
static cudaError_t bytes_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                    cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                    int64_t planes)
{
    const int64_t pb = (int64_t)bytes_plane_bytes(sim);
    return cuda_ising_bytes_hot_start_range(stream, (int8_t *)b->data + local_p0 * pb,
                                            global_p0 * pb, planes * pb, sim->desc.seed);
}

static cudaError_t bytes_update(const latmc_sim *sim, const struct cuda_box_range *r,
                                uint64_t sweep, const struct latmc_step *step,
                                cudaStream_t stream, unsigned long long *changed)
{
    (void)sweep; /* the draws are named by step->rng */
    const struct cuda_box *b = r->box;
    const struct bytes_box *bb = b->own;
    if (r->whole)
        return cuda_ising_sweep_colour(stream, &b->local, b->data, bb->eps, b->tables,
                                       sim->desc.algorithm, sim->desc.seed, step->rng,
                                       step->colour, changed);
    const struct cuda_plane_range pr = { r->p0, r->planes, r->global_p0, r->L };
    return cuda_ising_sweep_colour_range(stream, &b->local, b->data, bb->eps, b->tables,
                                         sim->desc.algorithm, sim->desc.seed, step->rng,
                                         step->colour, &pr, changed);
}

static cudaError_t bytes_measure(const latmc_sim *sim, const struct cuda_box_range *own,
                                 cudaStream_t stream, void *sums)
{
    (void)sim;
    const struct cuda_box *b = own->box;
    const struct bytes_box *bb = b->own;
    if (own->whole)
        return cuda_ising_measure(stream, &b->local, b->data, bb->eps, sums);
    const struct cuda_plane_range pr = { own->p0, own->planes, own->global_p0, own->L };
    return cuda_ising_measure_range(stream, &b->local, b->data, bb->eps, &pr, sums);
}

static cudaError_t bytes_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                     cudaStream_t stream, int64_t *proj)
{
    (void)sim;
    const struct cuda_proj_range pr = { r->p0, r->planes, r->global_p0, r->L };
    return cuda_byte_projections(stream, &r->box->local, r->box->data, &pr, 0, proj);
}

/* bytes_measure and bytes_projections in one read (measure_projections.cu). */
static cudaError_t bytes_measure_projections(const latmc_sim *sim,
                                             const struct cuda_box_range *own,
                                             cudaStream_t stream, void *sums, int64_t *proj)
{
    (void)sim;
    const struct cuda_box *b = own->box;
    const struct bytes_box *bb = b->own;
    const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
    return cuda_byte_measure_projections(stream, &b->local, b->data, bb->eps, &pr, 0, sums,
                                         proj);
}

static void bytes_box_destroy(struct cuda_box *b)
{
    struct bytes_box *bb = b->own;
    if (!bb)
        return;
    cudaFree(bb->eps);
    free(bb);
    b->own = NULL;
}

static int bytes_box_create(const latmc_sim *sim, struct cuda_box *b)
{
    struct bytes_box *bb = calloc(1, sizeof *bb);
    if (!bb)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate a box's state");
    b->own = bb; /* freed by bytes_box_destroy, also after a failure below */
    if (sim->desc.couplings != LATMC_COUPLINGS_BIMODAL)
        return LATMC_OK;
    const size_t bytes = (size_t)b->local.nsites * (size_t)sim->desc.ndim;
    char msg[160];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory on device %d for "
             "the couplings", bytes, b->ex.device);
    return cuda_check(cudaMalloc((void **)&bb->eps, bytes), msg);
}

/* The couplings of the box's local planes (cuda_ising_eps_to_box). */
static cudaError_t bytes_couplings_to_box(const latmc_sim *sim, const struct cuda_box *b,
                                          cudaStream_t stream, const void *host,
                                          int64_t host_first, int64_t host_planes)
{
    (void)host_planes; /* every run lies inside them */
    const struct bytes_box *bb = b->own;
    return cuda_ising_eps_to_box(sim, b, stream, bb->eps, host, host_first);
}

/* The same drawn on the device (cuda_ising_eps_draw_box). */
static cudaError_t bytes_draw_couplings_on_box(const latmc_sim *sim, const struct cuda_box *b,
                                               cudaStream_t stream)
{
    const struct bytes_box *bb = b->own;
    return cuda_ising_eps_draw_box(sim, b, stream, bb->eps);
}

/* The tables moved (a parameter change, a tempering swap): an ensemble's byte table
 * names them (cuda_ising_leaf.h). */
static void bytes_params_changed(const latmc_sim *sim, struct cuda_box *b)
{
    (void)sim;
    const struct bytes_box *bb = b->own;
    cuda_ising_state_touched(bb->member);
}

/* The storage is the bytes, always current: nothing to make, nothing enqueued. */
cudaError_t cuda_ising_bytes_member(const latmc_sim *sim, struct cuda_box *b,
                                    struct cuda_ising_member *out, bool *enqueued)
{
    (void)sim;
    struct bytes_box *bb = b->own;
    bb->member = true;
    cuda_ising_state_touched(true);
    *enqueued = false;
    out->spins = b->data;
    out->eps = bb->eps;
    out->tables = b->tables;
    return cudaSuccess;
}

const struct cuda_leaf cuda_ising_bytes_leaf = {
    .model = LATMC_MODEL_ISING,
    .halo = bytes_halo,
    .border_planes = bytes_border_planes,
    .plane_bytes = bytes_plane_bytes,
    .cold_byte = 1, /* +1 */
    .hot_planes = bytes_hot_planes,
    .box_create = bytes_box_create,
    .box_destroy = bytes_box_destroy,
    .params_changed = bytes_params_changed,
    .draw_couplings = cuda_ising_draw_couplings,
    .couplings_to_float = cuda_ising_couplings_to_float,
    .couplings_from_float = cuda_ising_couplings_from_float,
    .couplings_to_box = bytes_couplings_to_box,
    .draws_couplings = cuda_ising_draws_couplings,
    .draw_couplings_on_box = bytes_draw_couplings_on_box,
    .update = bytes_update,
    .measure = bytes_measure,
    .projections = bytes_projections,
    .measure_projections = bytes_measure_projections,
    .view_dtype = LATMC_DTYPE_INT8, /* the API's layout: one int8 per site */
};
