/*
 * The CUDA backend's operations (struct latmc_backend_ops): a sim of any model is its
 * leaf's boxes on the one executor (exec/cuda_exec.h), which every operation goes to; an
 * ensemble's members run as a batch of run_steps (ensembles/ens_batch_steps.c: each model's
 * batch in its leaf folder, tempering on the device in exec/cuda_temper.c), and the
 * member lanes' chain is ensembles/ens_lanes.c's.
 *
 * Every operation selects the sim's device (cudaSetDevice: the sim may be used from any
 * thread, one at a time), enqueues its work, and synchronises before returning, so that a
 * failure is reported by the call that caused it. Every CUDA error becomes LATMC_EDEVICE
 * (LATMC_ENOMEM for an allocation) with the CUDA message (cuda_check.h); after any
 * failure the sim can still be destroyed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_embed_boxes.h"
#include "cuda_env.h"
#include "cuda_exec.h"
#include "ens_batch_steps.h"
#include "cuda_temper.h"
#include "cuda_batch.h" /* the batch state a sim keeps (struct cuda_lead_state) */
#include "ens_lanes.h"
#include "model.h"
#include "part.h"
#include "plan.h"

#ifndef LATMC_CUDA_ARCH
#  define LATMC_CUDA_ARCH "(unknown)"
#endif

static int use_device(const struct cuda_sim *cs)
{
    return cuda_check(cudaSetDevice(cs->device), "cudaSetDevice");
}

/* Free everything of cs (any member may be missing). Errors are ignored: after a sticky
 * device error these calls fail, and the host side is released all the same. */
static void release(struct cuda_sim *cs)
{
    if (cs->ens_batch)
        cs->ens_batch->free(cs->ens_batch);
    cuda_temper_free(cs->ens_temper);
    cuda_ens_lanes_free(cs->ens_lanes);
    cuda_embed_free(cs->embed);
    cuda_embed_boxes_free(cs->embed_boxes);
    cuda_exec_destroy(cs->exec); /* owns the lone box's stream (cs->stream) */
    (void)cudaGetLastError();
    free(cs);
}

/* The device can run this build's kernels (gpu_arch): else LATMC_EUNSUPPORTED, so that
 * LATMC_DEVICE_AUTO falls back to the CPU. */
static int check_image(const struct cuda_sim *cs)
{
    cudaError_t err = cuda_kernels_check_device();
    if (err == cudaErrorNoKernelImageForDevice || err == cudaErrorInvalidDeviceFunction) {
        (void)cudaGetLastError();
        int major = 0, minor = 0;
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, cs->device);
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, cs->device);
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA module was built for %s "
                               "(gpu_arch), which device %d (compute capability %d.%d) cannot "
                               "run: %s", LATMC_CUDA_ARCH, cs->device, major, minor,
                               cudaGetErrorString(err));
    }
    return cuda_check(err, "checking the kernels' image for the device");
}

/* Every model is a leaf (cuda_leaf_of): the one executor holds the sim's boxes (one box,
 * k boxes on devices, a part's box: cuda_exec.h). */
static int cuda_create(latmc_sim *sim)
{
    const struct cuda_leaf *leaf = cuda_leaf_of(sim);
    if (!leaf)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA backend has no %s kernels yet",
                               sim->model->name);
    int count = 0;
    int st = cuda_env_check();
    if (st == LATMC_OK)
        st = cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (st < 0)
        return st;
    const latmc_sim_desc *d = &sim->desc;
    if (d->device_index < 0 || d->device_index >= count)
        return cuda_core->fail(LATMC_ENODEV, "desc.device_index = %d: the CUDA backend sees %d "
                               "device(s)", d->device_index, count);
    struct cuda_sim *cs = calloc(1, sizeof *cs);
    if (!cs)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate its state");
    /* boxes on devices: the first box's; a part (MPI rank) runs on device_index */
    cs->device = d->n_devices > 1 && d->device_list && !latmc_part_many(sim)
                     ? d->device_list[0] : d->device_index;
    /* LATMC_CUDA_EMBED=host: the embedded cluster steps on the core's host copy (for
     * comparisons; cuda_embed.c), read at create as the module's other variables; `device`
     * names the default, so that a comparison can name both routes */
    const char *embed = getenv("LATMC_CUDA_EMBED");
    cs->embed_on_host = embed && strcmp(embed, "host") == 0;
    if (cs->device < 0 || cs->device >= count) {
        const int device = cs->device;
        free(cs);
        return cuda_core->fail(LATMC_ENODEV, "desc.device_list[0] = %d: the CUDA backend sees "
                               "%d device(s)", device, count);
    }
    if ((st = use_device(cs)) < 0 || (st = check_image(cs)) < 0 ||
        (st = cuda_exec_create(sim, leaf, &cs->exec)) < 0) {
        release(cs);
        return st;
    }
    /* a box alone: its stream and lattice, on which the ensembles led by this sim run
     * their batches (ising/cuda_ising_batch.c) */
    const struct cuda_leaf *lone_leaf = NULL;
    const struct cuda_box *lone = cuda_exec_lone_box(cs->exec, &lone_leaf);
    if (lone) {
        cs->stream = lone->ex.stream;
        cs->lattice = lone->local;
    }
    /* LATMC_ENS_<MODEL>_BATCH=0 (its batch's variable, LATMC_ENS_SW_BATCH=0 for the cluster
     * members): this sim's ensembles run one by one (ensembles/ens_batch_steps.c) */
    cs->ens_one_by_one = cuda_ens_batch_declined(sim);
    sim->n_threads = 1; /* host threads are not used */
    sim->backend = cs;
    return LATMC_OK;
}

static void cuda_destroy(latmc_sim *sim)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (!cs)
        return;
    (void)cudaSetDevice(cs->device);
    cuda_ens_release_led(sim); /* the batches it leads (ensembles/ens_batch_steps.c) */
    release(cs);
    sim->backend = NULL;
}

static struct cuda_exec *exec_of(const latmc_sim *sim)
{
    return cuda_sim_of(sim)->exec;
}

static int cuda_init_spins(latmc_sim *sim, int how)
{
    return cuda_exec_init_spins(sim, exec_of(sim), how);
}

/* The core rebuilt its tables (after create, and at every parameter change): the boxes'
 * device copies and the leaf's own derived forms follow, once, not at every sweep call. */
static int cuda_params_changed(latmc_sim *sim)
{
    return cuda_exec_params_changed(sim, exec_of(sim));
}

static int cuda_measure(latmc_sim *sim, void *sums)
{
    return cuda_exec_measure(sim, exec_of(sim), sums);
}

static int cuda_get_spins(latmc_sim *sim, void *buf)
{
    return cuda_exec_get_spins(sim, exec_of(sim), buf);
}

static int cuda_set_spins(latmc_sim *sim, const void *buf)
{
    return cuda_exec_set_spins(sim, exec_of(sim), buf);
}

/* The core calls these only for models with couplings. */
static int cuda_get_couplings(latmc_sim *sim, float *buf)
{
    return cuda_exec_get_couplings(sim, exec_of(sim), buf);
}

static int cuda_set_couplings(latmc_sim *sim, const float *buf)
{
    return cuda_exec_set_couplings(sim, exec_of(sim), buf);
}

/*
 * A device view of the configuration at `data`: shape in the API's order ([replica,]
 * [z,] y, x [, component]), strides in bytes: site_stride between neighbours along x (y
 * and z follow from the extents), component_stride (used when components > 1) and
 * replica_stride (used with 2 replicas).
 */
static void view_fill(const latmc_sim *sim, const struct cuda_sim *cs, latmc_device_view *v,
                      const void *data, int dtype, int64_t site_stride, int components,
                      int64_t component_stride, int64_t replica_stride)
{
    v->device = LATMC_DEVICE_CUDA;
    v->index = cs->device;
    v->data = (uint64_t)(uintptr_t)data;
    v->dtype = dtype;
    int nd = 0;
    if (sim->desc.replicas > 1) {
        v->shape[nd] = sim->desc.replicas;
        v->strides[nd++] = replica_stride;
    }
    /* z (3D), y, x: x fastest, site index i = x + L_x (y + L_y z) */
    int64_t below[3];
    below[0] = site_stride;
    for (int mu = 1; mu < sim->desc.ndim; mu++)
        below[mu] = below[mu - 1] * sim->desc.extent[mu - 1];
    for (int mu = sim->desc.ndim - 1; mu >= 0; mu--) {
        v->shape[nd] = sim->desc.extent[mu];
        v->strides[nd++] = below[mu];
    }
    if (components > 1) {
        v->shape[nd] = components;
        v->strides[nd++] = component_stride;
    }
    v->ndim = nd;
}

/* The configuration's device memory, made current, as one strided array (or a refusal
 * with the reason: cuda_exec_view). */
static int cuda_device_view(latmc_sim *sim, latmc_device_view *view)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const void *data = NULL;
    int dtype = 0;
    const int st = cuda_exec_view(sim, cs->exec, &data, &dtype);
    if (st < 0)
        return st;
    /* the API's site order; a site's components (Heisenberg: 3) one array after the
     * other, the replicas one after another (cuda_leaf.h, view_components) */
    const int comps = cuda_exec_view_components(cs->exec);
    const int64_t elem = (int64_t)(sim->model->site_bytes(&sim->desc) / (size_t)comps);
    const int64_t n = (int64_t)sim->nsites;
    view_fill(sim, cs, view, data, dtype, elem, comps, n * elem, comps * n * elem);
    return LATMC_OK;
}

/* A list of steps of the sim's boxes (one box, k boxes on devices, a part's box), or of
 * a batch of members (an ensemble: ensembles/ens_batch_steps.c). */
static int cuda_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                          uint64_t *accepted, uint64_t *attempted)
{
    if (calls[0].n_members > 0)
        return cuda_ens_run_steps(calls, n_calls, accepted, attempted);
    return cuda_exec_run_steps(sim, exec_of(sim), calls, n_calls, accepted, attempted);
}

static int cuda_run_step(latmc_sim *sim, const struct latmc_step_call *call,
                         uint64_t *accepted, uint64_t *attempted)
{
    return cuda_run_steps(sim, call, 1, accepted, attempted);
}

/* Every sim's cut is fixed at creation (its boxes own their memory); a sim of one box
 * may lead a batch of members (ensembles/ens_batch_steps.c). */
static unsigned cuda_step_caps(latmc_sim *sim)
{
    /* the leaf says whether it runs the bit-sliced decisions' steps: the sim's own (the
     * Ising leaf was chosen by the device's free memory at creation), before it is made
     * the one cuda_leaf_of would choose */
    const struct cuda_sim *cs = cuda_sim_of(sim);
    const struct cuda_leaf *leaf = cs && cs->exec ? cuda_exec_leaf(cs->exec) : cuda_leaf_of(sim);
    return LATMC_STEP_CAP_FIXED_CUT |
           (leaf && leaf->bitsliced && leaf->bitsliced(sim) ? LATMC_STEP_CAP_BITSLICED : 0u) |
           cuda_ens_batch_caps(sim);
}

/* The leaf's own chain (phi^4 chunks), else the model's schedule. */
static int cuda_own_schedule(latmc_sim *sim)
{
    return cuda_exec_own_steps(sim, exec_of(sim));
}

/* The per-plane forms of a part (lib/part.c). */
static int cuda_measure_planes(latmc_sim *sim, int64_t p0, int64_t p1, void *sums)
{
    return cuda_exec_measure_planes(sim, exec_of(sim), p0, p1, sums);
}

/* The Fourier modes' projections (lib/modes.h), through the leaf. */
static int cuda_mode_projections(latmc_sim *sim, int64_t p0, int64_t p1, int64_t *proj)
{
    return cuda_exec_projections(sim, exec_of(sim), p0, p1, proj);
}

/* The sums and the whole lattice's projections in one pass (ops.measure_modes; the core
 * asks with sums NULL, quietly). */
static int cuda_measure_modes(latmc_sim *sim, void *sums, void *modes_partial)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const bool can = cs->exec && cuda_exec_has_projections(cs->exec);
    if (!sums)
        return can ? LATMC_OK : LATMC_EUNSUPPORTED;
    if (!can)
        return cuda_mode_projections(sim, 0, sim->desc.extent[sim->desc.ndim - 1],
                                     modes_partial); /* its reason */
    return cuda_exec_measure_modes(sim, cs->exec, sums, modes_partial);
}

/* A part's measure_planes and its planes' projections in one pass
 * (ops.measure_planes_modes; sums NULL: the question). */
static int cuda_measure_planes_modes(latmc_sim *sim, int64_t p0, int64_t p1, void *sums,
                                     void *modes_partial)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const bool can = cs->exec && cuda_exec_has_projections(cs->exec);
    if (!sums)
        return can ? LATMC_OK : LATMC_EUNSUPPORTED;
    if (!can)
        return cuda_mode_projections(sim, p0, p1, modes_partial); /* its reason */
    return cuda_exec_measure_planes_modes(sim, cs->exec, p0, p1, sums, modes_partial);
}

/* The sums and the whole lattice's modes, transformed on the device (ops.measure_kmin;
 * sums NULL: the question, quietly). */
static int cuda_measure_kmin(latmc_sim *sim, void *sums, const double *phases, double *modes)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const bool can = cs->exec && cuda_exec_has_kmin(cs->exec);
    if (!sums)
        return can ? LATMC_OK : LATMC_EUNSUPPORTED;
    if (!can)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the Fourier modes of this "
                               "sim are transformed on the host (ops.measure_modes)");
    return cuda_exec_measure_kmin(sim, cs->exec, sums, phases, modes);
}

static int cuda_get_planes(latmc_sim *sim, int64_t p0, int64_t p1, void *buf)
{
    return cuda_exec_get_planes(sim, exec_of(sim), p0, p1, buf);
}

static int cuda_set_planes(latmc_sim *sim, int64_t p0, int64_t p1, const void *buf)
{
    return cuda_exec_set_planes(sim, exec_of(sim), p0, p1, buf);
}

/* The halo planes a part keeps beyond its own: its leaf's. */
static int cuda_part_halo_depth(const latmc_sim *sim)
{
    return cuda_exec_part_halo_depth(exec_of(sim));
}

/* What the last cluster sweep built (the cluster observables), through the leaf. */
static int cuda_cluster_stats(latmc_sim *sim, struct latmc_cluster_stats *out)
{
    return cuda_exec_cluster_stats(sim, exec_of(sim), out);
}

/* A part's Swendsen-Wang clusters joined across the parts, through the leaf. */
static int cuda_cluster_faces(latmc_sim *sim, int what, void *buf, size_t *bytes)
{
    return cuda_exec_cluster_faces(sim, exec_of(sim), what, buf, bytes);
}

/* A part's couplings by planes; LATMC_EUNSUPPORTED without a message for a sim of the
 * whole lattice (the core then reads the couplings whole, lib/backend.h). */
static int cuda_get_coupling_planes(latmc_sim *sim, int64_t p0, int64_t p1, float *buf)
{
    return cuda_exec_get_coupling_planes(sim, exec_of(sim), p0, p1, buf);
}

const struct latmc_backend_ops latmc_cuda_backend_ops = {
    .size = sizeof(struct latmc_backend_ops),
    .name = "cuda",
    .create = cuda_create,
    .destroy = cuda_destroy,
    .init_spins = cuda_init_spins,
    /* no .sweep: the core runs every sweep through its plan (run_steps, lib/plan.c) */
    .measure = cuda_measure,
    .get_spins = cuda_get_spins,
    .set_spins = cuda_set_spins,
    .get_couplings = cuda_get_couplings,
    .set_couplings = cuda_set_couplings,
    .params_changed = cuda_params_changed,
    .run_step = cuda_run_step,
    .step_caps = cuda_step_caps,
    .device_view = cuda_device_view,
    .measure_planes = cuda_measure_planes, /* a part's planes */
    .get_planes = cuda_get_planes,
    .set_planes = cuda_set_planes,
    .run_steps = cuda_run_steps,
    .own_schedule = cuda_own_schedule,
    .get_coupling_planes = cuda_get_coupling_planes, /* a GPU rank's box */
    .part_halo_depth = cuda_part_halo_depth,
    .mode_projections = cuda_mode_projections, /* exec/cuda_exec_measure.c */
    .measure_modes = cuda_measure_modes,
    .measure_planes_modes = cuda_measure_planes_modes,
    .measure_kmin = cuda_measure_kmin,
    .cluster_stats = cuda_cluster_stats, /* clusters/cuda_sw_leaf.c */
    .cluster_faces = cuda_cluster_faces, /* clusters/cuda_sw_boxes.c */
    .ens_lanes = cuda_ens_lanes,         /* ensembles/ens_lanes.c */
    .embed_step = cuda_embed_step,       /* clusters/cuda_embed.c */
};
