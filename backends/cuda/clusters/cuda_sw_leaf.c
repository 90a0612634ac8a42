/*
 * The Swendsen-Wang leaf of the one executor (exec/cuda_leaf.h): an Ising sim whose
 * desc.algorithm is LATMC_ALGO_SWENDSEN_WANG, its configuration in the API's layout (one
 * int8 +-1 per site), its sweeps the plan's three cluster steps (lib/cluster_steps.c),
 * each one step of cuda_sw.h's kernels. Measurement, the hot start and the Fourier
 * projections are the byte kernels every Ising byte layout uses.
 *
 * What it runs: one box alone on one GPU (its halo its own wrap), uniform couplings, no
 * field, J of either sign. It refuses at create what it does not run (boxes on one or
 * several devices, +-J couplings, Potts; the core refuses Wolff, parts and the embedded
 * clusters of phi^4 and Heisenberg on CUDA), and a field at the sweep. Several boxes need
 * the labels joined across the faces, a label-halo exchange repeated until no label
 * changes over all boxes: the step LATMC_STEP_CLUSTER_LABEL is where that will go.
 */
#include <stdlib.h>

#include "cuda_check.h"
#include "cuda_kernels.h"
#include "cuda_leaf.h"
#include "cuda_sw.h"
#include "mode_projections.h"
#include "model.h"
#include "part.h"
#include "plan.h"
#include "ising_range_kernels.h"

/* A box's own state: its labels and bonds (device). */
struct sw_box {
    uint32_t *labels;
    uint8_t *bonds;
};

static int64_t sw_halo(const latmc_sim *sim)
{
    (void)sim;
    return 1; /* never used: one box alone has none (sw_box_create refuses more) */
}

static int64_t sw_border_planes(const latmc_sim *sim)
{
    (void)sim;
    return 1;
}

static size_t sw_plane_bytes(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return (size_t)(d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0]);
}

static cudaError_t sw_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                 cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                 int64_t planes)
{
    const int64_t pb = (int64_t)sw_plane_bytes(sim);
    return cuda_ising_bytes_hot_start_range(stream, (int8_t *)b->data + local_p0 * pb,
                                            global_p0 * pb, planes * pb, sim->desc.seed);
}

static struct cuda_sw_box kernel_box(const struct cuda_box *b)
{
    const struct sw_box *sb = b->own;
    const struct cuda_sw_box k = { b->local, b->data, sb->bonds, sb->labels };
    return k;
}

static cudaError_t sw_update(const latmc_sim *sim, const struct cuda_box_range *r,
                             uint64_t sweep, const struct latmc_step *step,
                             cudaStream_t stream, unsigned long long *changed)
{
    (void)sweep; /* the draws are named by step->rng */
    if (!r->whole)
        return cudaErrorInvalidValue; /* sw_box_create refused boxes with halos */
    const struct cuda_sw_box k = kernel_box(r->box);
    const double K = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_J];
    switch (step->kind) {
    case LATMC_STEP_CLUSTER_BONDS:
        return cuda_sw_ising_bonds(stream, &k, sim->desc.seed, step->rng, K < 0.0,
                                   step->cluster_threshold);
    case LATMC_STEP_CLUSTER_LABEL:
        return cuda_sw_label(stream, &k);
    case LATMC_STEP_CLUSTER_FLIP:
        return cuda_sw_ising_flip(stream, &k, sim->desc.seed, step->rng,
                                  step->cluster_threshold, changed);
    default:
        return cudaErrorInvalidValue; /* sw_check_steps refuses a non-cluster schedule */
    }
}

static cudaError_t sw_measure(const latmc_sim *sim, const struct cuda_box_range *own,
                              cudaStream_t stream, void *sums)
{
    (void)sim;
    return cuda_ising_measure(stream, &own->box->local, own->box->data, NULL, sums);
}

static cudaError_t sw_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                  cudaStream_t stream, int64_t *proj)
{
    (void)sim;
    const struct cuda_proj_range pr = { r->p0, r->planes, r->global_p0, r->L };
    return cuda_byte_projections(stream, &r->box->local, r->box->data, &pr, 0, proj);
}

static void sw_box_destroy(struct cuda_box *b)
{
    struct sw_box *sb = b->own;
    if (!sb)
        return;
    cudaFree(sb->labels);
    cudaFree(sb->bonds);
    free(sb);
    b->own = NULL;
}

static int sw_box_create(const latmc_sim *sim, struct cuda_box *b)
{
    const latmc_sim_desc *d = &sim->desc;
    if (d->model != LATMC_MODEL_ISING || d->algorithm != LATMC_ALGO_SWENDSEN_WANG)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the %s algorithm on CUDA runs Ising sims "
                               "only in this version (the %s model's clusters run on the CPU: "
                               "desc.device = LATMC_DEVICE_CPU or AUTO)",
                               d->algorithm == LATMC_ALGO_WOLFF ? "Wolff" : "Swendsen-Wang",
                               sim->model->name);
    if (b->halo != 0 || latmc_part_many(sim) || sim->plan->n_boxes > 1)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "Swendsen-Wang on CUDA runs one box on one "
                               "GPU only in this version (desc.n_parts = %d, desc.n_devices = "
                               "%d: the labels are not joined across boxes yet); use one box, "
                               "or the CPU", d->n_parts, d->n_devices);
    if (d->couplings != LATMC_COUPLINGS_UNIFORM)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "Swendsen-Wang on CUDA runs uniform "
                               "couplings only in this version (+-J couplings: the CPU)");
    struct sw_box *sb = calloc(1, sizeof *sb);
    if (!sb)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Swendsen-Wang: cannot allocate a box's state");
    b->own = sb; /* freed by sw_box_destroy, also after a failure below */
    const size_t n = (size_t)b->local.nsites;
    int st = cuda_check(cudaMalloc((void **)&sb->labels, n * sizeof *sb->labels),
                        "allocating the cluster labels on the device");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&sb->bonds, n), "allocating the cluster bonds on "
                        "the device");
    return st;
}

/* Without a field only: a cluster's decision in a field needs its magnetisation. */
static int sw_check_steps(const latmc_sim *sim, const struct cuda_box *b)
{
    (void)b;
    const double beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H];
    if (beta_h != 0.0)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: Swendsen-Wang on CUDA "
                               "runs without a field only in this version (beta h = %g); "
                               "the CPU runs it in a field", beta_h);
    return LATMC_OK;
}

const struct cuda_leaf cuda_sw_ising_leaf = {
    .model = LATMC_MODEL_ISING,
    .halo = sw_halo,
    .border_planes = sw_border_planes,
    .plane_bytes = sw_plane_bytes,
    .cold_byte = 1, /* +1 */
    .hot_planes = sw_hot_planes,
    .box_create = sw_box_create,
    .box_destroy = sw_box_destroy,
    .check_steps = sw_check_steps,
    .update = sw_update,
    .measure = sw_measure,
    .projections = sw_projections,
    .view_dtype = LATMC_DTYPE_INT8, /* the API's layout: one int8 per site */
};
