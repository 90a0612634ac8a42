/*
 * Ising on the byte layout (one int8 per site) on several devices, where the multi-spin
 * coded slabs of cuda_slabs.c cannot run (L_x not a multiple of 16, or of 64 with +-J
 * couplings): one slab of the plan per device (cuda_slabs.h; doc/cuda.md, "Several
 * GPUs"). Potts, which these slabs ran too, runs on the one executor (exec/cuda_exec.c);
 * this file goes when Ising moves there.
 *
 * A slab holds its own planes of the lattice's last axis plus one halo plane on each side:
 * local plane p is plane origin - 1 + p (mod L) of the lattice, own planes [1, 1 +
 * planes). The plan cuts slabs in multiples of the 2 colours, and every update runs the
 * kernels of ising_slab_kernels.cu on ranges of whole multiples of 2 planes
 * (potts_slabs.h), so the range's colouring is the lattice's and its draws are named by
 * the lattice's within-colour numbers: each step writes exactly what the one-device step
 * writes, bit for bit.
 *
 * One step (a colour) per run_step call:
 *   1. every slab's streams wait for what they read of the previous step (launch_step
 *      says which);
 *   2. every slab updates its border ranges (2 planes at each end) on the border stream
 *      (high priority), records border_done, then copies its outermost own planes into
 *      the neighbours' halos on that stream (cudaMemcpyPeerAsync between devices, a
 *      device copy within one), records copies_done; the main stream updates the
 *      interior meanwhile, which reads no halo.
 * The host waits only at the call's last step, where the counters are read.
 *
 * Init and set_spins write the own planes and the halos, so no exchange follows them.
 * Observables: every slab's integer sums of its own planes, added in slab order. +-J
 * couplings are drawn on the host for the whole lattice (the CPU's function, kept for
 * get_couplings) and every slab holds those of its local planes, halos included.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_slab_exec.h"
#include "cuda_slabs.h"
#include "model.h"
#include "plan.h"
#include "potts_slabs.h"

struct byte_slab {
    /* ex.stream: the interior and everything outside the steps; ex.border_stream: the
     * border ranges and the halo copies out (no copy stream); events as cuda_slab_exec.h;
     * ex.changed: sites changed */
    struct cuda_slab_exec ex;
    struct latmc_lattice local;     /* own planes + 2 halo planes */
    uint8_t *spins;                 /* the local lattice's bytes */
    int8_t *eps;                    /* Ising +-J: the local lattice's couplings (else NULL) */
    void *tables;                   /* device copy of the core's tables */
    void *sums;                     /* the model's sums struct */
};

struct cuda_byte_slabs {
    int n;
    struct byte_slab *slab;
    int8_t *eps_host;               /* Ising +-J: the whole lattice's couplings (else NULL) */
    int64_t plane_sites, L;
    bool copy_kernel;               /* halos to slabs of the same device by one kernel
                                       launch (default), else cudaMemcpyAsync per plane
                                       (LATMC_CUDA_SLAB_COPY=memcpy) */
};

static void free_arrays(struct cuda_slab_exec *ex)
{
    struct byte_slab *sl = (struct byte_slab *)ex; /* its first member */
    cudaFree(sl->spins);
    cudaFree(sl->eps);
    cudaFree(sl->tables);
    cudaFree(sl->sums);
}

void cuda_byte_slabs_destroy(struct cuda_byte_slabs *ps)
{
    if (!ps)
        return;
    if (ps->slab)
        cuda_slab_exec_release_all(&ps->slab[0].ex, sizeof *ps->slab, ps->n, free_arrays);
    free(ps->slab);
    free(ps->eps_host);
    free(ps);
}

/* Wait for every slab's streams; the first failure is reported. */
static int finish_all(struct cuda_byte_slabs *ps, const char *what)
{
    return cuda_slab_exec_finish_all(&ps->slab[0].ex, sizeof *ps->slab, ps->n, what);
}

/* A slab's device arrays, for cuda_slab_exec_put_planes / get_planes. */
static void *spins_of(struct cuda_slab_exec *ex)
{
    return ((struct byte_slab *)ex)->spins; /* ex: its first member */
}

static void *couplings_of(struct cuda_slab_exec *ex)
{
    return ((struct byte_slab *)ex)->eps;
}

/* Whole-lattice host data of `unit` bytes per site into every slab's local spins (or
 * couplings), own planes and both halos. */
static int upload_planes(struct cuda_byte_slabs *ps, const void *whole, size_t unit,
                         bool couplings)
{
    return cuda_slab_exec_put_planes(&ps->slab[0].ex, sizeof *ps->slab, ps->n,
                                     couplings ? couplings_of : spins_of, 1, ps->L,
                                     (size_t)ps->plane_sites * unit, whole,
                                     "copying to the device");
}

/* Ising +-J: the couplings drawn on the host by the CPU's function, then every slab's. */
static int draw_couplings(const latmc_sim *sim, struct cuda_byte_slabs *ps)
{
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    if (!(ps->eps_host = malloc(n)))
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of host "
                               "memory for the couplings", n);
    const int st = cuda_core->draw_couplings(ps->eps_host, 0, LATMC_COUPLINGS_BIMODAL, 0,
                                             (int64_t)n, sim->desc.coupling_seed,
                                             sim->desc.n_threads);
    return st < 0 ? st : upload_planes(ps, ps->eps_host, (size_t)sim->desc.ndim, true);
}

int cuda_byte_slabs_get_couplings(const latmc_sim *sim, struct cuda_byte_slabs *ps,
                                   float *buf)
{
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)ps->eps_host[i];
    return LATMC_OK;
}

/* Values checked by the core: exactly +1.0f or -1.0f. */
int cuda_byte_slabs_set_couplings(const latmc_sim *sim, struct cuda_byte_slabs *ps,
                                   const float *buf)
{
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    int st = finish_all(ps, "setting the couplings");
    if (st < 0)
        return st;
    for (size_t i = 0; i < n; i++)
        ps->eps_host[i] = buf[i] > 0.0f ? (int8_t)1 : (int8_t)-1;
    return upload_planes(ps, ps->eps_host, (size_t)sim->desc.ndim, true);
}

int cuda_byte_slabs_create(const latmc_sim *sim, struct cuda_byte_slabs **out)
{
    const latmc_sim_desc *d = &sim->desc;
    const struct latmc_plan *plan = sim->plan;
    struct cuda_byte_slabs *ps = calloc(1, sizeof *ps);
    if (!ps || !(ps->slab = calloc((size_t)plan->n_boxes, sizeof *ps->slab))) {
        free(ps);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the slabs' state");
    }
    ps->n = plan->n_boxes;
    const bool pmj = d->couplings == LATMC_COUPLINGS_BIMODAL;
    const char *copy = getenv("LATMC_CUDA_SLAB_COPY");
    /* on one H200, 2 slabs of 16384^2 (heat bath, q = 3) ran at 1/1.02-1/1.08 of one
     * slab's speed with the kernel, 1/1.11 with the device copies: those are scheduled
     * behind the interior's persistent wave (doc/PERFORMANCE.md, "Slabs on one GPU") */
    ps->copy_kernel = !(copy && strcmp(copy, "memcpy") == 0);
    ps->L = d->extent[d->ndim - 1];
    ps->plane_sites = d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
    const int axis = d->ndim - 1;
    int st = LATMC_OK;
    for (int i = 0; i < ps->n && st == LATMC_OK; i++) {
        struct byte_slab *sl = &ps->slab[i];
        sl->ex.device = cuda_slab_device_of(d, i);
        sl->ex.split = true; /* the interior's event recorded at every step */
        sl->ex.origin = plan->boxes[i].origin[axis];
        sl->ex.planes = plan->boxes[i].extent[axis];
        sl->local.ndim = d->ndim;
        sl->local.lx = d->extent[0];
        sl->local.ly = d->ndim == 3 ? d->extent[1] : sl->ex.planes + 2;
        sl->local.lz = d->ndim == 3 ? sl->ex.planes + 2 : 1;
        sl->local.nsites = ps->plane_sites * (sl->ex.planes + 2);
        if ((st = cuda_slab_exec_create(&sl->ex)) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->spins, (size_t)sl->local.nsites,
                                     sl->ex.device, "spins")) < 0 ||
            (st = cuda_slab_alloc_on(&sl->tables, sim->model->data_size, sl->ex.device,
                                     "decision tables")) < 0 ||
            (st = cuda_slab_alloc_on(&sl->sums, sim->model->sums_size, sl->ex.device,
                                     "sums")) < 0 ||
            (pmj && (st = cuda_slab_alloc_on((void **)&sl->eps, (size_t)sl->local.nsites *
                                             (size_t)d->ndim, sl->ex.device, "couplings")) < 0))
            break;
        /* the cold start until the configuration is set */
        st = cuda_check(cudaMemsetAsync(sl->spins, 1, (size_t)sl->local.nsites,
                                        sl->ex.stream), "clearing the spins");
    }
    if (st == LATMC_OK)
        st = finish_all(ps, "creating the slabs");
    if (st == LATMC_OK && pmj)
        st = draw_couplings(sim, ps);
    if (st < 0) {
        cuda_byte_slabs_destroy(ps);
        return st;
    }
    *out = ps;
    return LATMC_OK;
}

int cuda_byte_slabs_params_changed(const latmc_sim *sim, struct cuda_byte_slabs *ps)
{
    int st = finish_all(ps, "copying the decision tables");
    for (int i = 0; i < ps->n && st == LATMC_OK; i++) {
        struct byte_slab *sl = &ps->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) == LATMC_OK)
            st = cuda_check(cudaMemcpyAsync(sl->tables, sim->model_data, sim->model->data_size,
                                            cudaMemcpyHostToDevice, sl->ex.stream),
                            "copying the decision tables");
    }
    const int fin = finish_all(ps, "copying the decision tables");
    return st < 0 ? st : fin;
}

int cuda_byte_slabs_init_spins(const latmc_sim *sim, struct cuda_byte_slabs *ps, int how)
{
    int st = finish_all(ps, "initialising the spins");
    for (int i = 0; i < ps->n && st == LATMC_OK; i++) {
        struct byte_slab *sl = &ps->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        if (how == LATMC_INIT_COLD) { /* +1 */
            st = cuda_check(cudaMemsetAsync(sl->spins, 1, (size_t)sl->local.nsites,
                                            sl->ex.stream), "cold start");
            continue;
        }
        /* the lower halo plane, the own planes, the upper halo plane: each a contiguous
         * run of the lattice's sites */
        struct cuda_slab_run r[3];
        cuda_slab_runs(&sl->ex, 1, ps->L, r);
        for (int k = 0; k < 3 && st == LATMC_OK; k++) {
            uint8_t *dst = sl->spins + r[k].local * ps->plane_sites;
            const int64_t first = r[k].global * ps->plane_sites;
            const int64_t n = r[k].planes * ps->plane_sites;
            st = cuda_check(cuda_ising_bytes_hot_start_range(sl->ex.stream, (int8_t *)dst,
                                                             first, n, sim->desc.seed),
                            "launching the hot start");
        }
    }
    const int fin = finish_all(ps, "initialising the spins");
    return st < 0 ? st : fin;
}

int cuda_byte_slabs_set_spins(const latmc_sim *sim, struct cuda_byte_slabs *ps,
                               const void *buf)
{
    (void)sim;
    /* own planes and both halos, so that no exchange is needed */
    return upload_planes(ps, buf, 1, false);
}

int cuda_byte_slabs_get_spins(const latmc_sim *sim, struct cuda_byte_slabs *ps, void *buf)
{
    (void)sim;
    return cuda_slab_exec_get_planes(&ps->slab[0].ex, sizeof *ps->slab, ps->n, spins_of, 1,
                                     (size_t)ps->plane_sites, buf,
                                     "copying the spins to the host");
}

/* Slab i's outermost own planes into its neighbours' halos, on its border stream (its
 * device current): the first own plane is the lower neighbour's upper halo, the last the
 * upper neighbour's lower halo. */
static cudaError_t send_halos(const struct cuda_byte_slabs *ps, int i)
{
    const struct byte_slab *sl = &ps->slab[i];
    const struct byte_slab *to[2] = { &ps->slab[(i + ps->n - 1) % ps->n],
                                       &ps->slab[(i + 1) % ps->n] };
    const int64_t from_plane[2] = { 1, sl->ex.planes }, to_plane[2] = { to[0]->ex.planes + 1, 0 };
    const size_t bytes = (size_t)ps->plane_sites;
    struct cuda_slab_copies runs = { .n = 2 };
    for (int k = 0; k < 2; k++) {
        runs.src[k] = sl->spins + (size_t)from_plane[k] * bytes;
        runs.dst[k] = to[k]->spins + (size_t)to_plane[k] * bytes;
        runs.bytes[k] = bytes;
    }
    if (ps->copy_kernel && to[0]->ex.device == sl->ex.device &&
        to[1]->ex.device == sl->ex.device)
        return cuda_slab_copy_runs(sl->ex.border_stream, &runs);
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < 2 && err == cudaSuccess; k++)
        err = cuda_slab_copy_to(&sl->ex, runs.src[k], &to[k]->ex, runs.dst[k], bytes,
                                sl->ex.border_stream);
    return err;
}

/* Update colour c of sweep `sweep` on local planes [p0, p0 + n) of slab sl (nothing when
 * n = 0). */
static cudaError_t update_range(const latmc_sim *sim, const struct cuda_byte_slabs *ps,
                                struct byte_slab *sl, cudaStream_t stream, int64_t p0,
                                int64_t n, uint64_t sweep, int c)
{
    if (n <= 0)
        return cudaSuccess;
    const struct cuda_potts_range r = { p0, n, sl->ex.origin + p0 - 1, ps->L };
    return cuda_ising_sweep_colour_range(stream, &sl->local, (int8_t *)sl->spins, sl->eps,
                                         sl->tables, sim->desc.algorithm, sim->desc.seed, sweep,
                                         c, &r, sl->ex.changed);
}

/*
 * One step on every slab: per slab the border ranges, then the copies of its outermost
 * own planes into the neighbours' halos, on the border stream (high priority), and the
 * interior on the main stream. What each stream waits for, from the previous step (all
 * waits are enqueued before any event is recorded again; cuda_slab_exec_order_step):
 *   border_stream: this slab's previous interior (its planes are read by the borders),
 *     and both neighbours' previous copies (into this slab's halos, read now; recorded
 *     after the neighbours' previous borders, which read their halos that this slab's
 *     copies now overwrite). Its own previous copies: in order.
 *   stream (interior): this slab's previous borders (read by the interior's end planes;
 *     they read the planes written now), not their copies. The interior reads no halo.
 * Within a step, a slab's copies may overwrite a neighbour's halo while that neighbour's
 * borders read it: they read only sites of the other colours (the colouring is proper),
 * which the step does not change, so the bytes read are the same either way (as phi^4's
 * site order). This is why the copies need not wait for the neighbours' borders (a copy
 * stream and three waits a step, formerly).
 */
static int launch_step(const latmc_sim *sim, struct cuda_byte_slabs *ps, uint64_t sweep,
                       int c)
{
    const int64_t nc = 2; /* the colours: border ranges of 2 planes */
    int st = cuda_slab_exec_order_step(&ps->slab[0].ex, sizeof *ps->slab, ps->n,
                                       "ordering a step after the previous one");
    /* the borders (c planes at each end; all own planes of a slab of c) and their copies
     * out; the interior */
    for (int i = 0; i < ps->n && st == LATMC_OK; i++) {
        struct byte_slab *sl = &ps->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        const int64_t lower = sl->ex.planes > nc ? nc : sl->ex.planes;
        const int64_t upper = sl->ex.planes > nc ? nc : 0;
        cudaError_t err = update_range(sim, ps, sl, sl->ex.border_stream, 1, lower, sweep, c);
        if (err == cudaSuccess)
            err = update_range(sim, ps, sl, sl->ex.border_stream, 1 + sl->ex.planes - upper, upper,
                               sweep, c);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.border_done, sl->ex.border_stream);
        if (err == cudaSuccess)
            err = send_halos(ps, i);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.copies_done, sl->ex.border_stream);
        const int64_t interior = sl->ex.planes > 2 * nc ? sl->ex.planes - 2 * nc : 0;
        if (err == cudaSuccess)
            err = update_range(sim, ps, sl, sl->ex.stream, 1 + nc, interior, sweep, c);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.interior_done, sl->ex.stream);
        st = cuda_check(err, "launching a step on a slab");
    }
    return st;
}

int cuda_byte_slabs_run_step(const latmc_sim *sim, struct cuda_byte_slabs *ps,
                              const struct latmc_step_call *call, uint64_t *accepted,
                              uint64_t *attempted)
{
    int st = launch_step(sim, ps, call->sweep, call->step.colour);
    for (int i = 0; i < ps->n; i++)
        ps->slab[i].ex.recorded = true;
    if (st < 0) {
        cuda_slab_exec_drain(&ps->slab[0].ex, sizeof *ps->slab, ps->n);
        return st;
    }
    if (call->step.index == 1) /* the schedule's last step (one per colour) */
        *attempted += (uint64_t)sim->nsites; /* a sweep: one update per site */
    if (!call->last)
        return LATMC_OK; /* no host wait until the last step of the latmc_sim_sweep call */
    st = cuda_slab_exec_read_counts(&ps->slab[0].ex, sizeof *ps->slab, ps->n,
                                    "reading the update counter", accepted);
    if (st < 0)
        cuda_slab_exec_drain(&ps->slab[0].ex, sizeof *ps->slab, ps->n);
    return st;
}

/* Slab ex's reduction of its own planes (cuda_slab_exec_measure_slabs). */
static cudaError_t reduce_slab(struct cuda_slab_exec *ex, const void *ctx, void **slab_sums)
{
    const struct cuda_byte_slabs *ps = ctx;
    struct byte_slab *sl = (struct byte_slab *)ex; /* ex: its first member */
    const struct cuda_potts_range own = { 1, ex->planes, ex->origin, ps->L };
    const size_t size = sizeof(struct latmc_ising_sums); /* the model's sums_size */
    *slab_sums = sl->sums;
    const cudaError_t err = cudaMemsetAsync(sl->sums, 0, size, ex->stream);
    if (err != cudaSuccess)
        return err;
    return cuda_ising_measure_range(ex->stream, &sl->local, (const int8_t *)sl->spins, sl->eps,
                                    &own, sl->sums);
}

int cuda_byte_slabs_measure(const latmc_sim *sim, struct cuda_byte_slabs *ps, void *sums)
{
    return cuda_slab_exec_measure_slabs(sim, &ps->slab[0].ex, sizeof *ps->slab, ps->n,
                                        reduce_slab, ps, sums);
}
