/*
 * The CUDA backend's operations (struct latmc_backend_ops): device selection, memory, and
 * the order of the kernel launches; the kernels themselves are in the .cu files.
 *
 * Every operation first selects the sim's device (cudaSetDevice: the sim may be used from
 * any thread, one at a time), enqueues its work on the sim's stream, and synchronises
 * before returning, so that a failure is reported by the call that caused it. Every CUDA
 * error becomes LATMC_EDEVICE (LATMC_ENOMEM for an allocation) with the CUDA message
 * (cuda_check.h); after any failure the sim can still be destroyed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_exec.h"
#include "cuda_planes.h"
#include "cuda_slabs.h"
#include "ens_cuda.h"
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

/* Enqueued work is done: the error of anything that failed on the stream, else OK. */
static int finish(const struct cuda_sim *cs, const char *what)
{
    return cuda_check(cudaStreamSynchronize(cs->stream), what);
}

/* Free everything of cs (any member may be missing). Errors are ignored: after a sticky
 * device error these calls fail, and the host side is released all the same. */
static void release(struct cuda_sim *cs)
{
    cuda_planes_free(cs); /* first: its stream may still read the model's arrays */
    cuda_ens_batch_free(cs->ens_batch);
    cuda_exec_destroy(cs->exec);
    if (cs->exec)
        cs->stream = NULL; /* its box's (create_exec) */
    if (cs->slabs)
        cuda_slabs_destroy(cs);
    if (cs->kernels && cs->kernels->destroy)
        cs->kernels->destroy(cs);
    cudaFree(cs->changed);
    cudaFree(cs->sums);
    cudaFree(cs->tables);
    cudaFree(cs->spins);
    if (cs->stream)
        cudaStreamDestroy(cs->stream);
    (void)cudaGetLastError();
    free(cs);
}

static int allocate(void **ptr, size_t bytes, const char *what)
{
    char msg[128];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory for the %s", bytes,
             what);
    return cuda_check(cudaMalloc(ptr, bytes), msg);
}

/* Bytes of the spins in the API's layout: sites x replicas x site_bytes. */
static size_t spin_bytes(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.replicas * sim->model->site_bytes(&sim->desc);
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

/* A sim with a leaf (cuda_leaf_of): the one executor holds its boxes (cuda_exec.h). */
static int create_exec(latmc_sim *sim, const struct cuda_leaf *leaf, int count)
{
    const latmc_sim_desc *d = &sim->desc;
    struct cuda_sim *cs = calloc(1, sizeof *cs);
    if (!cs)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate its state");
    /* slabs on devices: the first box's; a part (MPI rank) runs on device_index */
    cs->device = d->n_devices > 1 && d->device_list && !latmc_part_many(sim)
                     ? d->device_list[0] : d->device_index;
    if (cs->device < 0 || cs->device >= count) {
        free(cs);
        return cuda_core->fail(LATMC_ENODEV, "desc.device_index = %d: the CUDA backend sees "
                               "%d device(s)", d->device_index, count);
    }
    int st;
    if ((st = use_device(cs)) < 0 || (st = check_image(cs)) < 0 ||
        (st = cuda_exec_create(sim, leaf, &cs->exec)) < 0) {
        release(cs);
        return st;
    }
    /* a box alone: its stream and lattice, on which the ensembles led by this sim run
     * their batches (ens_cuda.c) */
    const struct cuda_leaf *lone_leaf = NULL;
    const struct cuda_box *lone = cuda_exec_lone_box(cs->exec, &lone_leaf);
    if (lone) {
        cs->stream = lone->ex.stream;
        cs->lattice = lone->local;
    }
    sim->n_threads = 1; /* host threads are not used */
    sim->backend = cs;
    return LATMC_OK;
}

static int cuda_create(latmc_sim *sim)
{
    /* a sim with a leaf: the one executor (one box, k boxes, a part's box); else a GPU
     * rank (a part of several) stores its slab only (cuda_planes.h) */
    const struct cuda_leaf *leaf = cuda_leaf_of(sim);
    const struct cuda_model_kernels *k = leaf ? NULL : cuda_planes_part_kernels(sim);
    if (!k && !leaf)
        k = cuda_model_kernels_get(sim->desc.model);
    if (!k && !leaf)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA backend has no %s kernels yet",
                               sim->model->name);
    int count = 0;
    int st = cuda_check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    if (st < 0)
        return st;
    if (sim->desc.device_index < 0 || sim->desc.device_index >= count)
        return cuda_core->fail(LATMC_ENODEV, "desc.device_index = %d: the CUDA backend sees %d "
                               "device(s)", sim->desc.device_index, count);
    if (leaf)
        return create_exec(sim, leaf, count);
    struct cuda_sim *cs = calloc(1, sizeof *cs);
    if (!cs)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate its state");
    cs->device = sim->desc.device_index;
    cs->kernels = k;
    cs->lattice.ndim = sim->desc.ndim;
    cs->lattice.lx = sim->desc.extent[0];
    cs->lattice.ly = sim->desc.extent[1];
    cs->lattice.lz = sim->desc.ndim == 3 ? sim->desc.extent[2] : 1;
    cs->lattice.nsites = sim->nsites;
    cs->colours = k->colours ? k->colours(&sim->desc) : 0;
    /* A part of a lattice shared by processes (sim->part) is one box on one device. */
    if (cuda_slabs_wanted(sim) && !sim->part) {
        /* several slabs (devices): they own all device memory (cuda_slabs.c) */
        if (sim->desc.device_list)
            cs->device = sim->desc.device_list[0];
        if ((st = use_device(cs)) < 0 || (st = check_image(cs)) < 0 ||
            (st = cuda_slabs_create(sim, cs)) < 0) {
            release(cs);
            return st;
        }
        sim->n_threads = 1;
        sim->backend = cs;
        return LATMC_OK;
    }
    if ((st = use_device(cs)) < 0 || (st = check_image(cs)) < 0 ||
        (st = cuda_check(cudaStreamCreateWithFlags(&cs->stream, cudaStreamNonBlocking),
                         "cudaStreamCreateWithFlags")) < 0 ||
        (!(k->model_owns_spins && k->model_owns_spins(sim)) &&
         (st = allocate(&cs->spins, spin_bytes(sim), "spins")) < 0) ||
        (st = allocate(&cs->tables, sim->model->data_size, "decision tables")) < 0 ||
        (st = allocate(&cs->sums, sim->model->sums_size, "reduction")) < 0 ||
        (st = allocate((void **)&cs->changed, sizeof *cs->changed, "acceptance counter")) < 0 ||
        (k->create && (st = k->create(sim, cs)) < 0)) {
        release(cs);
        return st;
    }
    sim->n_threads = 1; /* host threads are not used */
    sim->backend = cs;
    cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: %s sim of %lld sites on device %d, "
                   "%d colour(s)", sim->model->name, (long long)sim->nsites, cs->device,
                   cs->colours);
    return LATMC_OK;
}

static void cuda_destroy(latmc_sim *sim)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (!cs)
        return;
    (void)cudaSetDevice(cs->device);
    release(cs);
    sim->backend = NULL;
}

static int cuda_init_spins(latmc_sim *sim, int how)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->exec)
        return cuda_exec_init_spins(sim, cs->exec, how);
    if (cs->slabs)
        return cuda_slabs_init_spins(sim, cs, how);
    int st = use_device(cs);
    if (st < 0)
        return st;
    if (how == LATMC_INIT_COLD && cs->kernels->cold_start)
        st = cuda_check(cs->kernels->cold_start(sim, cs), "launching the cold start");
    else if (how == LATMC_INIT_COLD)
        st = cuda_check(cudaMemsetAsync(cs->spins, cs->kernels->cold_byte, spin_bytes(sim),
                                        cs->stream), "cold start");
    else
        st = cuda_check(cs->kernels->hot_start(sim, cs), "launching the hot start");
    return st < 0 ? st : finish(cs, "initialising the spins");
}

/* The core rebuilt its tables (after create, and at every parameter change): the device
 * copy and the model's own derived form follow, once, not at every sweep call. */
static int cuda_params_changed(latmc_sim *sim)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->exec)
        return cuda_exec_params_changed(sim, cs->exec);
    if (cs->slabs)
        return cuda_slabs_params_changed(sim, cs);
    int st = use_device(cs);
    if (st < 0 ||
        (st = cuda_check(cudaMemcpyAsync(cs->tables, sim->model_data, sim->model->data_size,
                                         cudaMemcpyHostToDevice, cs->stream),
                         "copying the decision tables")) < 0)
        return st;
    if (cs->kernels->params_changed)
        cs->kernels->params_changed(sim, cs);
    return finish(cs, "copying the decision tables");
}

static int cuda_measure(latmc_sim *sim, void *sums)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->exec)
        return cuda_exec_measure(sim, cs->exec, sums);
    if (cs->slabs)
        return cuda_slabs_measure(sim, cs, sums);
    const size_t bytes = sim->model->sums_size;
    int st = use_device(cs);
    if (st < 0 ||
        (st = cuda_check(cudaMemsetAsync(cs->sums, 0, bytes, cs->stream),
                         "clearing the reduction")) < 0 ||
        (st = cuda_check(cs->kernels->measure(sim, cs), "launching the reduction")) < 0 ||
        (st = cuda_check(cudaMemcpyAsync(sums, cs->sums, bytes, cudaMemcpyDeviceToHost,
                                         cs->stream), "reading the reduction")) < 0)
        return st;
    return finish(cs, "measuring");
}

static int copy_spins(latmc_sim *sim, void *dst, const void *src, enum cudaMemcpyKind kind,
                      const char *what)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    int st = use_device(cs);
    if (st < 0 ||
        (st = cuda_check(cudaMemcpyAsync(dst, src, spin_bytes(sim), kind, cs->stream), what)) < 0)
        return st;
    return finish(cs, what);
}

/* A model hook that moves data between the host and the device, then the wait for it. */
static int hook_then_finish(latmc_sim *sim, cudaError_t (*enqueue)(const latmc_sim *,
                                                                   struct cuda_sim *, void *),
                            void *buf, const char *what)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    int st = use_device(cs);
    if (st < 0 || (st = cuda_check(enqueue(sim, cs, buf), what)) < 0)
        return st;
    return finish(cs, what);
}

/* Adapters giving the const-buffer and float hooks the one signature of hook_then_finish. */
static const struct cuda_model_kernels *hooks_of(const latmc_sim *sim)
{
    return cuda_sim_of(sim)->kernels;
}

static cudaError_t enqueue_set_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    return hooks_of(sim)->set_spins(sim, cs, buf);
}

static cudaError_t enqueue_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    return hooks_of(sim)->get_couplings(sim, cs, buf);
}

static cudaError_t enqueue_set_couplings(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    return hooks_of(sim)->set_couplings(sim, cs, buf);
}

static int cuda_get_spins(latmc_sim *sim, void *buf)
{
    if (cuda_sim_of(sim)->exec)
        return cuda_exec_get_spins(sim, cuda_sim_of(sim)->exec, buf);
    if (cuda_sim_of(sim)->slabs)
        return cuda_slabs_get_spins(sim, cuda_sim_of(sim), buf);
    if (hooks_of(sim)->get_spins)
        return hook_then_finish(sim, hooks_of(sim)->get_spins, buf,
                                "copying the spins to the host");
    return copy_spins(sim, buf, cuda_sim_of(sim)->spins, cudaMemcpyDeviceToHost,
                      "copying the spins to the host");
}

static int cuda_set_spins(latmc_sim *sim, const void *buf)
{
    if (cuda_sim_of(sim)->exec)
        return cuda_exec_set_spins(sim, cuda_sim_of(sim)->exec, buf);
    if (cuda_sim_of(sim)->slabs)
        return cuda_slabs_set_spins(sim, cuda_sim_of(sim), buf);
    if (hooks_of(sim)->set_spins)
        return hook_then_finish(sim, enqueue_set_spins, (void *)buf,
                                "copying the spins to the device");
    return copy_spins(sim, cuda_sim_of(sim)->spins, buf, cudaMemcpyHostToDevice,
                      "copying the spins to the device");
}

/* The core calls these only for models with couplings, whose kernels provide the hooks. */
static int cuda_get_couplings(latmc_sim *sim, float *buf)
{
    if (cuda_sim_of(sim)->exec)
        return cuda_exec_get_couplings(sim, cuda_sim_of(sim)->exec, buf);
    if (cuda_sim_of(sim)->slabs)
        return cuda_slabs_get_couplings(sim, cuda_sim_of(sim), buf);
    if (!hooks_of(sim)->get_couplings)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA %s kernels have no couplings",
                               sim->model->name);
    return hook_then_finish(sim, enqueue_get_couplings, buf, "copying the couplings to the host");
}

static int cuda_set_couplings(latmc_sim *sim, const float *buf)
{
    if (cuda_sim_of(sim)->exec)
        return cuda_exec_set_couplings(sim, cuda_sim_of(sim)->exec, buf);
    if (cuda_sim_of(sim)->slabs)
        return cuda_slabs_set_couplings(sim, cuda_sim_of(sim), buf);
    if (!hooks_of(sim)->set_couplings)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA %s kernels have no couplings",
                               sim->model->name);
    return hook_then_finish(sim, enqueue_set_couplings, (void *)buf,
                            "copying the couplings to the device");
}

void cuda_view_fill(const latmc_sim *sim, const struct cuda_sim *cs, latmc_device_view *v,
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
 * with the reason). */
static int cuda_device_view(latmc_sim *sim, latmc_device_view *view)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->exec) {
        const void *data = NULL;
        int dtype = 0;
        const int st = cuda_exec_view(sim, cs->exec, &data, &dtype);
        if (st == LATMC_OK) /* one value per site, the API's order */
            cuda_view_fill(sim, cs, view, data, dtype, 1, 1, 0, (int64_t)sim->nsites);
        return st;
    }
    if (cs->slabs)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "latmc_sim_device_view: the sim is spread "
                               "over %d slabs (desc.n_devices / n_parts), which no single "
                               "device array holds; copy the spins with latmc_sim_get_spins()",
                               sim->plan->n_boxes);
    if (!cs->kernels->device_view)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "latmc_sim_device_view: the CUDA %s "
                               "kernels keep a layout that no strided array expresses; copy "
                               "the spins with latmc_sim_get_spins()", sim->model->name);
    int st = use_device(cs);
    if (st < 0 ||
        (st = cuda_check(cs->kernels->device_view(sim, cs, view),
                         "making the spins current for a device view")) < 0)
        return st;
    return finish(cs, "making the spins current for a device view");
}

/*
 * The steps of a one-box sim (a plan of one box: neither slabs nor a part of a lattice
 * shared by processes), as the core's plan hands them, up to PLAN_BATCH at a time
 * (lib/plan.c): each step is the model's launch (cuda_model_kernels.step) on the sim's
 * stream, which orders them; the host does not wait between steps, nor between lists.
 * The acceptance counter is cleared before the first step of a latmc_sim_sweep call
 * (step 0 of sweep sim->sweeps) and read after its last (call->last), the one wait of
 * the call. A fused pair (LATMC_STEP_CAP_PAIR: the Heisenberg pass) is one launch at its
 * first part; its border part, on the one box whose halo is its own planes, has nothing
 * left to do.
 */
static int one_box_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                         uint64_t *accepted, uint64_t *attempted)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const struct cuda_model_kernels *k = cs->kernels;
    int st = use_device(cs);
    if (st < 0)
        return st;
    const bool pairs = (k->caps & LATMC_STEP_CAP_PAIR) != 0;
    for (int c = 0; c < n_calls; c++) {
        const struct latmc_step_call *call = &calls[c];
        if (call->n_boxes != 1 || (call->part != LATMC_STEP_WHOLE) != pairs)
            return cuda_core->fail(LATMC_EBACKEND, "CUDA backend: a one-box step call with %d "
                                   "boxes, part %d (a bug in the core)", call->n_boxes,
                                   call->part);
        cudaError_t err = cudaSuccess;
        if (call->step.index == 0 && call->sweep == sim->sweeps &&
            call->part != LATMC_STEP_PAIR_BORDER)
            err = cudaMemsetAsync(cs->changed, 0, sizeof *cs->changed, cs->stream);
        if (err == cudaSuccess && call->part != LATMC_STEP_PAIR_BORDER) {
            err = k->step(sim, cs, call->sweep, &call->step);
            if (call->step.index == 0)
                *attempted += k->attempted_per_sweep ? k->attempted_per_sweep(sim)
                                                     : (uint64_t)sim->nsites;
        }
        if ((st = cuda_check(err, "launching a step")) < 0) {
            (void)cudaStreamSynchronize(cs->stream); /* nothing left running */
            (void)cudaGetLastError();
            return st;
        }
        if (!call->last)
            continue;
        unsigned long long changed = 0;
        if ((st = cuda_check(cudaMemcpyAsync(&changed, cs->changed, sizeof changed,
                                             cudaMemcpyDeviceToHost, cs->stream),
                             "reading the acceptance counter")) < 0 ||
            (st = finish(cs, "sweeping")) < 0)
            return st;
        *accepted += changed;
    }
    return LATMC_OK;
}

/* A list of steps of a sim whose boxes are all in this executor: one box on one device,
 * or the slabs of a sim on several devices, step by step (cuda_slabs.h). */
static int cuda_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                          uint64_t *accepted, uint64_t *attempted)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->exec)
        return cuda_exec_run_steps(sim, cs->exec, calls, n_calls, accepted, attempted);
    if (sim->plan->n_boxes == 1)
        return one_box_steps(sim, calls, n_calls, accepted, attempted);
    for (int c = 0; c < n_calls; c++) {
        const int st = cuda_slabs_run_step(sim, cs, &calls[c], accepted, attempted);
        if (st < 0)
            return st;
    }
    return LATMC_OK;
}

/* One step: of a sim's slabs or its one box (cuda_run_steps), or, on a one-device sim
 * that is a part of a lattice shared by processes, on the part's box (cuda_planes.h). */
static int cuda_run_step(latmc_sim *sim, const struct latmc_step_call *call,
                         uint64_t *accepted, uint64_t *attempted)
{
    if (!cuda_sim_of(sim)->slabs && !cuda_sim_of(sim)->exec && sim->plan->n_boxes > 1)
        return cuda_planes_run_step(sim, call, accepted, attempted); /* a part's box */
    return cuda_run_steps(sim, call, 1, accepted, attempted);
}

/* Every sim's cut is fixed at creation (its boxes own their memory); the one-box steps
 * of some models are fused pairs (cuda_model_kernels.caps), and so are those of some
 * models' slabs (cuda_slabs_step_caps). */
static unsigned cuda_step_caps(latmc_sim *sim)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->exec) { /* the leaf says whether it runs the bit-sliced decisions' steps */
        const struct cuda_leaf *leaf = cuda_leaf_of(sim);
        return LATMC_STEP_CAP_FIXED_CUT |
               (leaf && leaf->bitsliced && leaf->bitsliced(sim) ? LATMC_STEP_CAP_BITSLICED : 0u);
    }
    if (cs->slabs)
        return LATMC_STEP_CAP_FIXED_CUT | cuda_slabs_step_caps(sim, cs);
    return LATMC_STEP_CAP_FIXED_CUT | (sim->plan->n_boxes == 1 ? cs->kernels->caps : 0u);
}

/* The kernels' own chain for a one-box sim or the slabs (phi^4 chunks), else the model's
 * schedule. */
static int cuda_own_schedule(latmc_sim *sim)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->exec)
        return 0;
    if (cs->slabs)
        return cuda_slabs_own_steps(sim, cs);
    if (sim->plan->n_boxes != 1 || !cs->kernels->own_steps)
        return 0;
    return cs->kernels->own_steps(sim, cs);
}

/* The per-plane forms: of the one executor's sim, else of a part on the old executors
 * (cuda_planes.c). */
static int cuda_measure_planes(latmc_sim *sim, int64_t p0, int64_t p1, void *sums)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    return cs->exec ? cuda_exec_measure_planes(sim, cs->exec, p0, p1, sums)
                    : cuda_planes_measure(sim, p0, p1, sums);
}

/* The Fourier modes' projections (lib/modes.h): the one executor's, through its leaf. */
static int cuda_mode_projections(latmc_sim *sim, int64_t p0, int64_t p1, int64_t *proj)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (!cs->exec)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the %s model runs on an "
                               "executor without the Fourier modes' reduction",
                               sim->model->name);
    return cuda_exec_projections(sim, cs->exec, p0, p1, proj);
}

static int cuda_get_planes(latmc_sim *sim, int64_t p0, int64_t p1, void *buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    return cs->exec ? cuda_exec_get_planes(sim, cs->exec, p0, p1, buf)
                    : cuda_planes_get(sim, p0, p1, buf);
}

static int cuda_set_planes(latmc_sim *sim, int64_t p0, int64_t p1, const void *buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    return cs->exec ? cuda_exec_set_planes(sim, cs->exec, p0, p1, buf)
                    : cuda_planes_set(sim, p0, p1, buf);
}

/* A part's couplings by planes; LATMC_EUNSUPPORTED without a message for a sim of the
 * whole lattice (the core then reads the couplings whole, lib/backend.h). */
static int cuda_get_coupling_planes(latmc_sim *sim, int64_t p0, int64_t p1, float *buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    return cs->exec ? cuda_exec_get_coupling_planes(sim, cs->exec, p0, p1, buf)
                    : cuda_planes_get_couplings(sim, p0, p1, buf);
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
    .ens_sweep = cuda_ens_sweep, /* ens_cuda.c */
    .ens_measure = cuda_ens_measure,
    .ens_swap_params = cuda_ens_swap_params,
    .run_steps = cuda_run_steps,
    .own_schedule = cuda_own_schedule,
    .ens_overlaps = cuda_ens_overlaps, /* ens_cuda.c */
    .get_coupling_planes = cuda_get_coupling_planes, /* a GPU rank's slab */
    .part_halo_depth = cuda_planes_halo_depth,
    .ens_temper = cuda_ens_temper, /* ens_temper_cuda.c */
    .mode_projections = cuda_mode_projections, /* exec/cuda_exec.c */
};
