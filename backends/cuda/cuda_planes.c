/*
 * A one-device CUDA sim as one part of a lattice shared by processes (cuda_planes.h,
 * lib/part.h, doc/mpi.md "GPU ranks"): the step on the part's box, and the per-plane ops
 * by which lib/part.c exchanges halos, measures and gathers configurations, for the models
 * not yet on the one executor (Ising, Potts and phi^4 parts run on exec/cuda_exec.c). This
 * file has the step's schedule on two streams (below); cuda_planes_heis.c has the model's
 * updates of a plane range, reductions and copies, and says how wide its border ranges
 * are and how they reach across the lattice's wrap.
 *
 * Every model: the halo exchange hides behind the interior: a step updates the box's
 * border planes (those its neighbours read) on a border stream of the highest priority
 * (its blocks go before the interior's waiting ones, so the borders end early in the
 * interior's run) and the planes between on the sim's stream; the exchange that follows (lib/part.c: get_planes of the end planes,
 * the transport, set_planes of the halo planes) runs on the border stream and waits for
 * it alone, while the interior goes on. What each stream waits for, from the step before:
 *   border stream: the previous interior (it wrote the planes next to the border ones);
 *     the previous borders and halo copies are in its own order;
 *   sim's stream (interior): the previous borders. The interior reads no halo plane, and
 *     the halo copies touch no plane the interior writes or reads.
 * Between latmc_sim_sweep calls both streams are idle (the last step waits for both), and
 * the per-plane ops run on the sim's stream. Heisenberg planes travel
 * through a pinned host stage kept with the part (cuda_planes_stage): one DMA copy per
 * move, no allocation; a Heisenberg exchange inside a sweep goes straight between the
 * device and the part's page-locked halo buffers (cuda_planes_heis.c, wire_move), and
 * the last step waits for the border stream (its halo copies are not waited for). Where
 * the transport shares the halo buffers with the neighbours (lib/part.c: liblatmc_mpi's
 * MPI-3 window on one node), those are the buffers: each is page-locked in this process
 * at its first use (cuda_planes_halo_buffer), so the DMA writes the border plane into
 * memory the neighbour reads and reads the neighbour's plane from its buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "model.h"
#include "part.h"
#include "plan.h"

/* A part's own state, made at its first use (the sim's device current). */
struct cuda_planes {
    void *scratch;              /* device bytes of planes in transit */
    size_t scratch_bytes;
    cudaStream_t border;        /* border planes and halo copies during a sweep call */
    cudaEvent_t border_done, interior_done;
    bool in_sweep;              /* between the first and the last step of a sweep call */
    /* Heisenberg (cuda_planes_heis.c): the exchange that follows a pass's first step moves
     * the second plane from each end of the box [box0, box1) and the plane two beyond */
    bool shift;
    int64_t box0, box1;
    /* Heisenberg: planes in transit (cuda_planes_stage) */
    void *stage_dev, *stage_host; /* device; pinned host */
    size_t stage_dev_bytes, stage_host_bytes;
    /* Heisenberg's halo exchange (cuda_planes_halo_buffer): the part's halo buffers
     * (lib/part.c's halo_buf, which outlives this state), page-locked at their first use
     * (halo_tried; NULL where they could not be), so that the planes go by DMA straight
     * between them and the device; sets_pending: a set enqueued on the border stream and
     * not waited for */
    /* the halo regions tried (latmc_part_is_halo_buffer: halo_buf, or each buffer shared
     * with the neighbours, lib/part.c); halo_locked[k]: page-locked by us */
    void *halo_region[CUDA_PLANES_HALO_REGIONS];
    bool halo_locked[CUDA_PLANES_HALO_REGIONS];
    int halo_regions;
    bool sets_pending;
};

/* Rows per plane along the last axis (rows are y + L_y z): L_y in 3D, 1 in 2D. */
static int64_t plane_rows(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.ly : 1;
}

static int64_t plane_sites(const struct cuda_sim *cs)
{
    return cs->lattice.lx * plane_rows(cs);
}

static int planes_state(struct cuda_sim *cs, struct cuda_planes **out);

/*
 * The checks every per-plane op makes first, the part's device made current: a part runs
 * on one device, a model with per-plane forms here (what: the operation, for the message).
 */
static int part_ready(latmc_sim *sim, const char *what)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->slabs)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: %s of a part spread over "
                               "several devices (desc.n_devices > 1): a part (MPI rank) runs "
                               "on one device", what);
    /* (Ising, Potts, phi^4: the one executor's per-plane forms, exec/cuda_exec.c) */
    if (sim->desc.model != LATMC_MODEL_HEISENBERG)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: no per-plane %s for the %s "
                               "model in this version", what, sim->model->name);
    return cuda_check(cudaSetDevice(cs->device), "cudaSetDevice");
}

static bool is_heis(const latmc_sim *sim)
{
    return sim->desc.model == LATMC_MODEL_HEISENBERG;
}

int cuda_planes_halo_depth(const latmc_sim *sim)
{
    return sim->part && is_heis(sim) ? CUDA_PLANES_HEIS_HALO : 0;
}

/* The plane that a one-plane get (get != 0) or set of plane p means: p itself, but in
 * the Heisenberg exchange after a pass's first step the second plane from the box's end
 * and the plane two beyond it (cuda_planes_heis.c). */
static int64_t shifted_plane(const struct cuda_sim *cs, int64_t p, bool get)
{
    const struct cuda_planes *pl = cs->planes;
    if (!pl || !pl->in_sweep || !pl->shift)
        return p;
    const int64_t L = cs->lattice.ndim == 3 ? cs->lattice.lz : cs->lattice.ly;
    if (get)
        return p == pl->box0 ? pl->box0 + 1 : p == pl->box1 - 1 ? pl->box1 - 2 : p;
    return p == (pl->box0 - 1 + L) % L ? (pl->box0 - 2 + L) % L
         : p == pl->box1 % L           ? (pl->box1 + 1) % L
                                       : p;
}

void cuda_planes_free(struct cuda_sim *cs)
{
    struct cuda_planes *pl = cs->planes;
    if (!pl)
        return;
    if (pl->border)
        cudaStreamSynchronize(pl->border);
    for (int k = 0; k < pl->halo_regions; k++)
        if (pl->halo_locked[k])
            cudaHostUnregister(pl->halo_region[k]);
    cudaFree(pl->scratch);
    cudaFree(pl->stage_dev);
    cudaFreeHost(pl->stage_host);
    if (pl->border_done)
        cudaEventDestroy(pl->border_done);
    if (pl->interior_done)
        cudaEventDestroy(pl->interior_done);
    if (pl->border)
        cudaStreamDestroy(pl->border);
    (void)cudaGetLastError();
    free(pl);
    cs->planes = NULL;
}

static int planes_state(struct cuda_sim *cs, struct cuda_planes **out)
{
    if (!cs->planes) {
        struct cuda_planes *pl = calloc(1, sizeof *pl);
        if (!pl)
            return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate a part's state");
        cs->planes = pl;
        /* the border stream at the highest priority: its kernels' blocks go before the
         * interior's waiting ones, so the borders (and the exchange after them) finish
         * early in the interior's run rather than after it */
        int low = 0, high = 0;
        int st = cuda_check(cudaDeviceGetStreamPriorityRange(&low, &high),
                            "cudaDeviceGetStreamPriorityRange");
        if (st == LATMC_OK)
            st = cuda_check(cudaStreamCreateWithPriority(&pl->border, cudaStreamNonBlocking,
                                                         high),
                            "cudaStreamCreateWithPriority");
        if (st == LATMC_OK)
            st = cuda_check(cudaEventCreateWithFlags(&pl->border_done, cudaEventDisableTiming),
                            "cudaEventCreateWithFlags");
        if (st == LATMC_OK)
            st = cuda_check(cudaEventCreateWithFlags(&pl->interior_done,
                                                     cudaEventDisableTiming),
                            "cudaEventCreateWithFlags");
        if (st < 0) {
            cuda_planes_free(cs);
            return st;
        }
    }
    *out = cs->planes;
    return LATMC_OK;
}

int cuda_planes_scratch(struct cuda_sim *cs, size_t bytes, void **out)
{
    struct cuda_planes *pl = NULL;
    int st = planes_state(cs, &pl);
    if (st < 0)
        return st;
    if (pl->scratch_bytes < bytes) {
        cudaFree(pl->scratch);
        pl->scratch = NULL;
        pl->scratch_bytes = 0;
        if ((st = cuda_check(cudaMalloc(&pl->scratch, bytes),
                             "cannot allocate device memory for moving planes")) < 0)
            return st;
        pl->scratch_bytes = bytes;
    }
    *out = pl->scratch;
    return LATMC_OK;
}

int cuda_planes_stage(struct cuda_sim *cs, size_t dev_bytes, size_t host_bytes, void **dev,
                      void **host)
{
    struct cuda_planes *pl = NULL;
    int st = planes_state(cs, &pl);
    if (st < 0)
        return st;
    /* nothing uses the old buffers: every move waited for its copies */
    if (pl->stage_dev_bytes < dev_bytes) {
        cudaFree(pl->stage_dev);
        pl->stage_dev = NULL;
        pl->stage_dev_bytes = 0;
        if ((st = cuda_check(cudaMalloc(&pl->stage_dev, dev_bytes),
                             "cannot allocate device memory for moving planes")) < 0)
            return st;
        pl->stage_dev_bytes = dev_bytes;
    }
    if (pl->stage_host_bytes < host_bytes) {
        cudaFreeHost(pl->stage_host);
        pl->stage_host = NULL;
        pl->stage_host_bytes = 0;
        if ((st = cuda_check(cudaMallocHost(&pl->stage_host, host_bytes),
                             "cannot allocate pinned host memory for moving planes")) < 0)
            return st;
        pl->stage_host_bytes = host_bytes;
    }
    *dev = pl->stage_dev;
    *host = pl->stage_host;
    return LATMC_OK;
}

static void drain(struct cuda_sim *cs);

bool cuda_planes_in_sweep(const struct cuda_sim *cs)
{
    return cs->planes && cs->planes->in_sweep;
}

bool cuda_planes_halo_buffer(latmc_sim *sim, const void *buf, size_t bytes, bool *pinned)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const struct latmc_part *part = sim->part;
    *pinned = false;
    void *region = NULL;
    size_t region_bytes = 0;
    if (!part || !latmc_part_is_halo_buffer(part, buf, bytes, &region, &region_bytes))
        return false;
    struct cuda_planes *pl = NULL;
    if (planes_state(cs, &pl) < 0)
        return true; /* in the halo buffers all the same: the stage path (which fails) */
    int k = 0;
    while (k < pl->halo_regions && pl->halo_region[k] != region)
        k++;
    if (k == pl->halo_regions) {
        if (k == CUDA_PLANES_HALO_REGIONS)
            return true; /* not expected (lib/part.c has at most 9): the stage path */
        pl->halo_region[k] = region;
        pl->halo_regions++;
        /* a buffer shared with a neighbour is mapped in this process too: its pages are
         * locked here for this process's DMA (each region is another range of pages) */
        pl->halo_locked[k] = cudaHostRegister(region, region_bytes, cudaHostRegisterDefault) ==
                             cudaSuccess;
        if (!pl->halo_locked[k])
            (void)cudaGetLastError(); /* e.g. a page already registered: the stage path */
    }
    *pinned = pl->halo_locked[k];
    return true;
}

void cuda_planes_set_pending(struct cuda_sim *cs)
{
    cs->planes->sets_pending = true;
}

int cuda_planes_settle(struct cuda_sim *cs)
{
    struct cuda_planes *pl = cs->planes;
    if (!pl || !pl->sets_pending)
        return LATMC_OK;
    pl->sets_pending = false;
    return cuda_check(cudaStreamSynchronize(pl->border), "waiting for the halo copies");
}

/* The stream of a per-plane copy: the border stream inside a sweep call (halos), else the
 * sim's. */
static cudaStream_t copy_stream(const struct cuda_sim *cs)
{
    return cs->planes && cs->planes->in_sweep ? cs->planes->border : cs->stream;
}

/* Heisenberg planes (cuda_planes_heis.c), on the copy stream. */
static int byte_move(latmc_sim *sim, int64_t p0, int64_t p1, void *get_buf,
                     const void *set_buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    int st = part_ready(sim, "configuration copy");
    if (st < 0)
        return st;
    cudaStream_t stream = copy_stream(cs);
    if (p1 - p0 == 1) {
        p0 = shifted_plane(cs, p0, get_buf != NULL);
        p1 = p0 + 1;
    }
    st = cuda_planes_heis_move(sim, stream, p0, p1, get_buf, set_buf);
    if (st < 0 && cs->planes && cs->planes->in_sweep)
        drain(cs);
    return st;
}

int cuda_planes_get_couplings(latmc_sim *sim, int64_t p0, int64_t p1, float *buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const int st = cs->slabs ? LATMC_EUNSUPPORTED
                             : cuda_planes_heis_coupling_planes(sim, cs, p0, p1, buf);
    /* LATMC_EUNSUPPORTED is no failure here: the core then reads the couplings whole,
     * so no message is left behind */
    return st;
}

int cuda_planes_get(latmc_sim *sim, int64_t p0, int64_t p1, void *buf)
{
    return byte_move(sim, p0, p1, buf, NULL);
}

int cuda_planes_set(latmc_sim *sim, int64_t p0, int64_t p1, const void *buf)
{
    return byte_move(sim, p0, p1, NULL, buf);
}

/* The sums of planes [p0, p1), one tile per plane (the models' forms). */
int cuda_planes_measure(latmc_sim *sim, int64_t p0, int64_t p1, void *sums)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const int settled = cuda_planes_settle(cs);
    if (settled < 0)
        return settled;
    const int st = part_ready(sim, "reduction");
    return st < 0 ? st : cuda_planes_heis_measure(sim, p0, p1, sums);
}

/* Step c on the box's planes [q0, q1) on `stream` (nothing when empty). */
static cudaError_t update(const latmc_sim *sim, struct cuda_sim *cs, cudaStream_t stream,
                          int64_t q0, int64_t q1, uint64_t sweep, const struct latmc_step *step)
{
    (void)sweep; /* the pass's draws are named by step->rng */
    if (q1 <= q0)
        return cudaSuccess;
    return cuda_planes_heis_pass(sim, cs, stream, q0, q1, step);
}

/* Whether the part can step, or the refusal. *border: planes at each end of the box that
 * its neighbours read or that must be updated as one range (the pass's halo, 2). */
static int step_ready(latmc_sim *sim, int64_t *border)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    int st = part_ready(sim, "step");
    *border = st == LATMC_OK ? cuda_planes_heis_border(sim, cs) : 2;
    return st;
}

/* After a failure inside a sweep call: nothing left running, the copies back on the
 * sim's stream (best effort after a sticky error). */
static void drain(struct cuda_sim *cs)
{
    (void)cudaStreamSynchronize(cs->planes->border);
    (void)cudaStreamSynchronize(cs->stream);
    (void)cudaGetLastError();
    cs->planes->in_sweep = false;
    cs->planes->sets_pending = false;
}

/*
 * One step on the part's box: its border ranges (step_ready says how thick) on the border stream, the planes between on the
 * sim's stream (the header says what each waits for). The
 * acceptance counter is cleared at the first step of a latmc_sim_sweep call and read at
 * its last (latmc_step_call.last), which waits for both streams; the steps between do not
 * wait on the host (the halo copies that follow each step wait for the borders only).
 */
int cuda_planes_run_step(latmc_sim *sim, const struct latmc_step_call *call,
                         uint64_t *accepted, uint64_t *attempted)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (call->n_boxes != 1 || call->part != LATMC_STEP_WHOLE)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA backend: run_step of a one-device sim "
                               "with %d boxes, part %d (a bug in the core)", call->n_boxes,
                               call->part);
    struct cuda_planes *pl = NULL;
    int64_t b = 1;
    int st = step_ready(sim, &b);
    if (st == LATMC_OK)
        st = planes_state(cs, &pl);
    if (st < 0)
        return st;
    const struct latmc_box *box = &call->boxes[0];
    const struct latmc_step *step = &call->step;
    const int64_t q0 = box->origin[box->axis], n = box->extent[box->axis], q1 = q0 + n;
    /* the border planes at each end (a box of b planes is all lower border) */
    const int64_t lower = n < b ? n : b, upper = n - lower < b ? n - lower : b;
    cudaError_t err = cudaSuccess;
    const bool first = call->sweep == sim->sweeps && step->index == 0;
    if (first && pl->in_sweep)
        drain(cs); /* a sweep call that ended early (a failure latched by the core) */
    if (first || !pl->in_sweep) {
        /* the first step: after everything the sim's stream holds, the border stream too */
        err = cudaMemsetAsync(cs->changed, 0, sizeof *cs->changed, cs->stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(pl->interior_done, cs->stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(pl->border_done, cs->stream);
        pl->in_sweep = err == cudaSuccess;
    }
    /* Heisenberg: the pass at its colour-0 step, nothing at the colour-1 one (no waits
     * either, so that its exchange overlaps the pass's interior as the colour-0 step's
     * does) */
    const bool heis = is_heis(sim), launch = !heis || step->colour == 0;
    pl->shift = heis && step->colour == 0;
    pl->box0 = q0;
    pl->box1 = q1;
    if (err == cudaSuccess && launch)
        err = cudaStreamWaitEvent(pl->border, pl->interior_done, 0);
    if (err == cudaSuccess && launch)
        err = cudaStreamWaitEvent(cs->stream, pl->border_done, 0);
    if (err == cudaSuccess && launch)
        err = update(sim, cs, pl->border, q0, q0 + lower, call->sweep, step);
    if (err == cudaSuccess && launch)
        err = update(sim, cs, pl->border, q1 - upper, q1, call->sweep, step);
    if (err == cudaSuccess && launch)
        err = cudaEventRecord(pl->border_done, pl->border);
    if (err == cudaSuccess && launch)
        err = update(sim, cs, cs->stream, q0 + lower, q1 - upper, call->sweep, step);
    if (err == cudaSuccess && launch)
        err = cudaEventRecord(pl->interior_done, cs->stream);
    if (err == cudaSuccess && heis && launch)
        cuda_planes_heis_flip(sim, cs); /* the pass's buffer holds the configuration now */
    if ((st = cuda_check(err, "launching a step on the part's planes")) < 0) {
        drain(cs);
        return st;
    }
    /* the box's sites, once per sweep: at its step 0 (plan->n_steps is the model's
     * sweep_steps, not the current schedule's count: Heisenberg) */
    if (step->index == 0)
        *attempted += cuda_planes_heis_attempted(sim, n * plane_sites(cs));
    if (!call->last)
        return LATMC_OK;
    unsigned long long changed = 0;
    /* everything on the border stream: its borders and the halo sets not waited for */
    err = cudaEventRecord(pl->border_done, pl->border);
    if (err == cudaSuccess)
        err = cudaStreamWaitEvent(cs->stream, pl->border_done, 0);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(&changed, cs->changed, sizeof changed, cudaMemcpyDeviceToHost,
                              cs->stream);
    st = cuda_check(err, "reading the acceptance counter");
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "sweeping the part's planes");
    pl->in_sweep = false;
    pl->sets_pending = false;
    if (st < 0 || fin < 0) {
        drain(cs);
        return st < 0 ? st : fin;
    }
    *accepted += changed;
    return LATMC_OK;
}

const struct cuda_model_kernels *cuda_planes_part_kernels(const latmc_sim *sim)
{
    if (!sim->part || sim->part->n_parts < 2 || !sim->plan || sim->plan->n_boxes < 2)
        return NULL;
    if (sim->desc.model == LATMC_MODEL_HEISENBERG)
        return cuda_planes_heis_part_kernels(sim);
    return NULL;
}

cudaError_t cuda_planes_slab_no_step(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                                     const struct latmc_step *step)
{
    (void)sim, (void)cs, (void)sweep, (void)step;
    return cudaErrorNotSupported;
}

bool cuda_planes_slab_owns_spins(const latmc_sim *sim)
{
    (void)sim;
    return true;
}

