/*
 * A sim on several devices: one slab per device, halos exchanged between steps
 * (cuda_slabs.h says how; doc/cuda.md, "Several GPUs").
 *
 * Local geometry of slab i (own planes [origin, origin + planes) of the last axis): the
 * local lattice has the sim's extents but planes + 2 halo planes along the last axis;
 * local plane p is global plane origin - halo + p (mod L), own planes are [halo, halo +
 * planes). A plane is `plane_rows` rows of the packed layout (3D: L_y rows, 2D: one row).
 * Only the `reach` planes next to the own planes (the model's halo, 1) are ever read, so
 * only those are exchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_ising.h"
#include "cuda_slab_exec.h"
#include "cuda_slabs.h"
#include "ising_packed.h"
#include "model.h"
#include "plan.h"

struct cuda_slab {
    struct cuda_slab_exec ex;       /* device, streams (copy stream too), events, the
                                       acceptance counter */
    struct latmc_lattice local;     /* the local lattice (own planes + 2 halo) */
    int8_t *stage;                  /* bytes of stage_rows rows: init, get/set_spins
                                       convert through it a piece at a time (the packed
                                       layout alone is resident) */
    int64_t stage_rows;
    uint32_t *colour[2];            /* local packed layout: the configuration */
    struct latmc_ising_sums *sums;
    uint32_t *eps_packed[2];        /* +-J: the packed coupling words of the local lattice */
};

struct cuda_slabs {
    int n;
    struct cuda_slab *slab;
    int halo;                       /* allocated halo planes per side (even) */
    int reach;                      /* planes the update reads beyond its own (exchanged) */
    int64_t plane_rows;             /* packed rows per plane */
    int64_t plane_sites;
    int64_t wpr;                    /* packed words per row */
    struct cuda_ising_packed_thresholds thr;
    bool thr_fit;
    int8_t *eps_host;               /* +-J couplings of the whole lattice (NULL: uniform) */
    struct cuda_heis_slabs *heis;   /* a Heisenberg sim: its own slabs, the rest unused */
    struct cuda_phi4_slabs *phi4;   /* a phi^4 sim: likewise */
    struct cuda_byte_slabs *bytes;  /* Ising on the byte layout: likewise
                                       (cuda_slabs_ising_bytes.c) */
};

static struct cuda_slabs *slabs_of(const struct cuda_sim *cs)
{
    return cs->slabs;
}

bool cuda_slabs_wanted(const latmc_sim *sim)
{
    return sim->plan && sim->plan->n_boxes > 1;
}

/* Words of one packed colour plane; bytes of `n` of them. */
static size_t plane_words(const struct cuda_slabs *ss)
{
    return (size_t)(ss->plane_rows * ss->wpr);
}

static void free_arrays(struct cuda_slab_exec *ex)
{
    struct cuda_slab *sl = (struct cuda_slab *)ex; /* its first member */
    cudaFree(sl->stage);
    cudaFree(sl->eps_packed[0]);
    cudaFree(sl->eps_packed[1]);
    cudaFree(sl->colour[0]);
    cudaFree(sl->colour[1]);
    cudaFree(sl->sums);
}

/* Release every slab on its own device (cuda_slab_exec_release_all) and the other
 * models' slabs. */
static void release_all(struct cuda_slabs *ss)
{
    if (!ss)
        return;
    if (ss->slab)
        cuda_slab_exec_release_all(&ss->slab[0].ex, sizeof *ss->slab, ss->n, free_arrays);
    cuda_heis_slabs_destroy(ss->heis);
    cuda_phi4_slabs_destroy(ss->phi4);
    cuda_byte_slabs_destroy(ss->bytes);
    free(ss->slab);
    free(ss->eps_host);
    free(ss);
}

void cuda_slabs_destroy(struct cuda_sim *cs)
{
    release_all(cs->slabs);
    cs->slabs = NULL;
}

/* Wait for everything of every slab; the first failure is reported. */
static int finish_all(struct cuda_slabs *ss, const char *what)
{
    return cuda_slab_exec_finish_all(&ss->slab[0].ex, sizeof *ss->slab, ss->n, what);
}

/*
 * +-J: every slab's packed coupling words from ss->eps_host (eps[ndim i + mu] of the whole
 * lattice): the couplings of its local planes, halos included (global plane origin - halo
 * + p, periodic), a piece of planes at a time (cuda_ising_pack_couplings_host). The
 * packing's periodic wrap only touches the outermost halo plane, which is never updated.
 */
static int pack_slab_couplings(const latmc_sim *sim, struct cuda_slabs *ss)
{
    const int64_t L = sim->desc.extent[sim->desc.ndim - 1];
    int st = LATMC_OK;
    for (int i = 0; i < ss->n && st == LATMC_OK; i++) {
        struct cuda_slab *sl = &ss->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        st = cuda_check(cuda_ising_pack_couplings_host(sl->ex.stream, &sl->local, ss->eps_host, L,
                                                       sl->ex.origin - ss->halo, sl->eps_packed[0],
                                                       sl->eps_packed[1]),
                        "packing the couplings");
    }
    return st;
}

/* +-J: the couplings drawn on the host by the CPU's function, then packed per slab. */
static int draw_couplings(const latmc_sim *sim, struct cuda_slabs *ss)
{
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    if (!(ss->eps_host = malloc(n)))
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of host "
                               "memory for the couplings", n);
    const int st = cuda_core->draw_couplings(ss->eps_host, 0, LATMC_COUPLINGS_BIMODAL, 0,
                                             (int64_t)n, sim->desc.coupling_seed,
                                             sim->desc.n_threads);
    return st < 0 ? st : pack_slab_couplings(sim, ss);
}

int cuda_slabs_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf)
{
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_get_couplings(sim, slabs_of(cs)->bytes, buf);
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_get_couplings(sim, slabs_of(cs)->heis, buf);
    const struct cuda_slabs *ss = slabs_of(cs);
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)ss->eps_host[i];
    return LATMC_OK;
}

/* Values checked by the core: exactly +1.0f or -1.0f. */
int cuda_slabs_set_couplings(const latmc_sim *sim, struct cuda_sim *cs, const float *buf)
{
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_set_couplings(sim, slabs_of(cs)->bytes, buf);
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_set_couplings(sim, slabs_of(cs)->heis, buf);
    struct cuda_slabs *ss = slabs_of(cs);
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    int st = finish_all(ss, "setting the couplings");
    if (st < 0)
        return st;
    for (size_t i = 0; i < n; i++)
        ss->eps_host[i] = buf[i] > 0.0f ? (int8_t)1 : (int8_t)-1;
    return pack_slab_couplings(sim, ss);
}

int cuda_slabs_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    const latmc_sim_desc *d = &sim->desc;
    if (d->model == LATMC_MODEL_HEISENBERG || d->model == LATMC_MODEL_PHI4) {
        struct cuda_slabs *hss = calloc(1, sizeof *hss);
        if (!hss)
            return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the slabs' "
                                   "state");
        const int st = d->model == LATMC_MODEL_PHI4 ? cuda_phi4_slabs_create(sim, cs, &hss->phi4)
                                                    : cuda_heis_slabs_create(sim, &hss->heis);
        if (st < 0) {
            free(hss);
            return st;
        }
        hss->n = sim->plan->n_boxes;
        cuda_slab_exec_enable_peers(d, hss->n);
        cs->slabs = hss;
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: %s sim as %d slabs "
                       "(halo 2 planes)", sim->model->name, hss->n);
        return LATMC_OK;
    }
    /* Ising where the multi-spin coded kernels do not fit L_x: the byte slabs (Potts runs
     * on the one executor, exec/cuda_exec.c) */
    if (d->model == LATMC_MODEL_ISING &&
        d->extent[0] % (d->couplings == LATMC_COUPLINGS_BIMODAL ? 64 : 16) != 0) {
        struct cuda_slabs *pss = calloc(1, sizeof *pss);
        int st = pss ? cuda_byte_slabs_create(sim, &pss->bytes)
                     : cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the slabs");
        if (st < 0) {
            free(pss);
            return st;
        }
        pss->n = sim->plan->n_boxes;
        cuda_slab_exec_enable_peers(d, pss->n);
        cs->slabs = pss;
        return LATMC_OK;
    }
    if (d->model != LATMC_MODEL_ISING)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA backend runs the %s model as one "
                               "box only in this version (desc.n_parts = %d, desc.n_devices = "
                               "%d; several boxes or devices: Ising, Potts, phi^4 and Heisenberg); "
                               "use 0 or 1 for both", sim->model->name, d->n_parts, d->n_devices);
    const bool pmj = d->couplings == LATMC_COUPLINGS_BIMODAL;
    const struct latmc_plan *plan = sim->plan;
    struct cuda_slabs *ss = calloc(1, sizeof *ss);
    if (!ss || !(ss->slab = calloc((size_t)plan->n_boxes, sizeof *ss->slab))) {
        free(ss);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the slabs' state");
    }
    ss->n = plan->n_boxes;
    const int mult = sim->model->box_plane_multiple > 1 ? sim->model->box_plane_multiple : 1;
    ss->reach = plan->boxes[0].halo;
    ss->halo = (ss->reach + mult - 1) / mult * mult;
    ss->plane_rows = d->ndim == 3 ? d->extent[1] : 1;
    ss->plane_sites = d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
    ss->wpr = d->extent[0] / 16;
    const int axis = d->ndim - 1;
    int st = LATMC_OK;
    for (int i = 0; i < ss->n && st == LATMC_OK; i++) {
        struct cuda_slab *sl = &ss->slab[i];
        sl->ex.device = cuda_slab_device_of(d, i);
        sl->ex.split = true; /* the interior's event recorded at every step */
        sl->ex.origin = plan->boxes[i].origin[axis];
        sl->ex.planes = plan->boxes[i].extent[axis];
        sl->local = cs->lattice;
        const int64_t local_planes = sl->ex.planes + 2 * ss->halo;
        if (d->ndim == 3)
            sl->local.lz = local_planes;
        else
            sl->local.ly = local_planes;
        sl->local.nsites = ss->plane_sites * local_planes;
        const size_t words = (size_t)(sl->local.nsites / 16);
        const size_t cw = (size_t)cuda_ising_packed_coupling_words(&sl->local);
        sl->stage_rows = cuda_ising_piece_rows(d->extent[0], sl->ex.planes * ss->plane_rows);
        if ((st = cuda_slab_exec_create(&sl->ex)) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->stage,
                                     (size_t)(sl->stage_rows * d->extent[0]), sl->ex.device,
                                     "staging piece of the spins")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->colour[0], words * 4, sl->ex.device,
                                     "packed spins")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->colour[1], words * 4, sl->ex.device,
                                     "packed spins")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->sums, sizeof *sl->sums, sl->ex.device,
                                     "sums")) < 0 ||
            (pmj && ((st = cuda_slab_alloc_on((void **)&sl->eps_packed[0], words * 4 * cw,
                                              sl->ex.device, "packed couplings")) < 0 ||
                     (st = cuda_slab_alloc_on((void **)&sl->eps_packed[1], words * 4 * cw,
                                              sl->ex.device, "packed couplings")) < 0)))
            break;
        for (int c = 0; c < 2 && st == LATMC_OK; c++) /* defined halos (+1) until the
                                                          first exchange */
            st = cuda_check(cudaMemsetAsync(sl->colour[c], 0, words * 4, sl->ex.stream),
                            "clearing the spins");
    }
    if (st == LATMC_OK)
        st = finish_all(ss, "creating the slabs");
    if (st == LATMC_OK && pmj)
        st = draw_couplings(sim, ss);
    if (st < 0) {
        release_all(ss);
        return st;
    }
    cuda_slab_exec_enable_peers(d, ss->n);
    cs->slabs = ss;
    cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: Ising sim as %d slabs (halo %d "
                   "planes)", ss->n, ss->halo);
    return LATMC_OK;
}

int cuda_slabs_params_changed(const latmc_sim *sim, struct cuda_sim *cs)
{
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_params_changed(sim, slabs_of(cs)->bytes);
    if (slabs_of(cs)->heis || slabs_of(cs)->phi4)
        return LATMC_OK; /* the passes read the parameters at launch */
    struct cuda_slabs *ss = slabs_of(cs);
    ss->thr_fit = cuda_ising_packed_thresholds_of(sim->model_data, sim->desc.algorithm,
                                                  sim->desc.ndim, &ss->thr);
    return LATMC_OK;
}

/*
 * Enqueue on src's stream `stream` the copy of n planes of colour c: src's local planes
 * [p_src, p_src + n) into dst's local planes [p_dst, ...). The current device is src's.
 */
static cudaError_t copy_planes(const struct cuda_slabs *ss, const struct cuda_slab *src,
                               int64_t p_src, const struct cuda_slab *dst, int64_t p_dst,
                               int64_t n, int c, cudaStream_t stream)
{
    const size_t pw = plane_words(ss);
    const size_t bytes = (size_t)n * pw * sizeof(uint32_t);
    const uint32_t *from = src->colour[c] + (size_t)p_src * pw;
    uint32_t *to = dst->colour[c] + (size_t)p_dst * pw;
    return cuda_slab_copy_to(&src->ex, from, &dst->ex, to, bytes, stream);
}

/* Slab i's own boundary planes of colour c into its neighbours' halos (n planes each
 * side), on `stream` (slab i's device current). */
static cudaError_t send_borders(const struct cuda_slabs *ss, int i, int64_t n, int c,
                                cudaStream_t stream)
{
    const struct cuda_slab *sl = &ss->slab[i];
    const struct cuda_slab *lo = &ss->slab[(i + ss->n - 1) % ss->n];
    const struct cuda_slab *hi = &ss->slab[(i + 1) % ss->n];
    const int64_t h = ss->halo;
    /* the first n own planes are the lower neighbour's upper halo, the last n the upper
     * neighbour's lower halo */
    cudaError_t err = copy_planes(ss, sl, h, lo, h + lo->ex.planes, n, c, stream);
    if (err == cudaSuccess)
        err = copy_planes(ss, sl, h + sl->ex.planes - n, hi, h - n, n, c, stream);
    return err;
}

/* Both colours' full halos, synchronously (after init and set_spins). */
static int exchange_all(struct cuda_slabs *ss)
{
    int st = finish_all(ss, "writing the spins");
    for (int i = 0; i < ss->n && st == LATMC_OK; i++) {
        struct cuda_slab *sl = &ss->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        for (int c = 0; c < 2 && st == LATMC_OK; c++)
            st = cuda_check(send_borders(ss, i, ss->halo, c, sl->ex.border_stream),
                            "copying the halos");
    }
    return st < 0 ? st : finish_all(ss, "copying the halos");
}

/*
 * Slab sl's own rows, in pieces of its staging buffer: between the packed layout and the
 * host bytes of the whole lattice (`host` is the lattice's row 0); the hot start instead
 * of the host (host NULL, to_host false). Enqueued on the slab's stream (its device
 * current).
 */
static cudaError_t own_rows(const latmc_sim *sim, const struct cuda_slabs *ss,
                            struct cuda_slab *sl, int8_t *host, bool to_host)
{
    const int64_t lx = sim->desc.extent[0];
    const int64_t first = ss->halo * ss->plane_rows, rows = sl->ex.planes * ss->plane_rows;
    const int64_t global = sl->ex.origin * ss->plane_rows; /* global row of local row first */
    cudaError_t err = cudaSuccess;
    for (int64_t r = 0; r < rows && err == cudaSuccess; r += sl->stage_rows) {
        const int64_t n = rows - r < sl->stage_rows ? rows - r : sl->stage_rows;
        int8_t *at = host ? host + (global + r) * lx : NULL;
        if (to_host) {
            err = cuda_ising_unpack_rows(sl->ex.stream, &sl->local, first + r, n,
                                         sl->colour[0], sl->colour[1], sl->stage);
            if (err == cudaSuccess)
                err = cudaMemcpyAsync(at, sl->stage, (size_t)(n * lx), cudaMemcpyDeviceToHost,
                                      sl->ex.stream);
            continue;
        }
        if (host)
            err = cudaMemcpyAsync(sl->stage, at, (size_t)(n * lx), cudaMemcpyHostToDevice,
                                  sl->ex.stream);
        else
            err = cuda_ising_hot_start_range(sl->ex.stream, sl->stage, (global + r) * lx,
                                             n * lx, sim->desc.seed);
        if (err == cudaSuccess)
            err = cuda_ising_pack_rows(sl->ex.stream, &sl->local, first + r, n, sl->stage,
                                       sl->colour[0], sl->colour[1]);
    }
    return err;
}

int cuda_slabs_init_spins(const latmc_sim *sim, struct cuda_sim *cs, int how)
{
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_init_spins(sim, slabs_of(cs)->bytes, how);
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_init_spins(sim, slabs_of(cs)->heis, how);
    if (slabs_of(cs)->phi4)
        return cuda_phi4_slabs_init_spins(sim, slabs_of(cs)->phi4, how);
    struct cuda_slabs *ss = slabs_of(cs);
    int st = LATMC_OK;
    for (int i = 0; i < ss->n && st == LATMC_OK; i++) {
        struct cuda_slab *sl = &ss->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        const size_t bytes = (size_t)(sl->local.nsites / 16) * sizeof(uint32_t);
        cudaError_t err = cudaSuccess;
        for (int c = 0; c < 2 && how == LATMC_INIT_COLD && err == cudaSuccess; c++)
            err = cudaMemsetAsync(sl->colour[c], 0, bytes, sl->ex.stream); /* +1: nibble 0 */
        if (how != LATMC_INIT_COLD)
            err = own_rows(sim, ss, sl, NULL, false);
        st = cuda_check(err, how == LATMC_INIT_COLD ? "cold start" : "hot start");
    }
    return st < 0 ? st : exchange_all(ss);
}

/* Update colour c on the local planes [p0, p1) of slab sl. */
static cudaError_t update_planes(const latmc_sim *sim, const struct cuda_slabs *ss,
                                 struct cuda_slab *sl, cudaStream_t stream, int64_t p0,
                                 int64_t p1, uint64_t sweep, int c)
{
    const struct cuda_ising_rows rows = {
        p0 * ss->plane_rows, (p1 - p0) * ss->plane_rows,
        (sl->ex.origin - ss->halo) * ss->plane_rows
    };
    return cuda_ising_packed_sweep_rows(stream, &sl->local, &rows, sl->colour[c],
                                        sl->colour[c ^ 1], sl->eps_packed[c], &ss->thr, sim->desc.algorithm,
                                        sim->desc.seed, sweep, c, sl->ex.changed);
}

unsigned cuda_slabs_step_caps(const latmc_sim *sim, const struct cuda_sim *cs)
{
    (void)sim;
    return slabs_of(cs)->heis ? LATMC_STEP_CAP_PAIR : 0u;
}

int cuda_slabs_own_steps(const latmc_sim *sim, const struct cuda_sim *cs)
{
    (void)sim;
    return slabs_of(cs)->phi4 ? cuda_phi4_slabs_own_steps(slabs_of(cs)->phi4) : 0;
}

int cuda_slabs_run_step(const latmc_sim *sim, struct cuda_sim *cs,
                        const struct latmc_step_call *call, uint64_t *accepted,
                        uint64_t *attempted)
{
    if (slabs_of(cs)->heis) /* pairs; every other model's slabs take whole steps */
        return cuda_heis_slabs_run_step(sim, slabs_of(cs)->heis, call, accepted, attempted);
    if (call->part != LATMC_STEP_WHOLE)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA backend: a step call on slabs with part "
                               "%d (a bug in the core)", call->part);
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_run_step(sim, slabs_of(cs)->bytes, call, accepted, attempted);
    if (slabs_of(cs)->phi4)
        return cuda_phi4_slabs_run_step(sim, slabs_of(cs)->phi4, call, accepted, attempted);
    struct cuda_slabs *ss = slabs_of(cs);
    if (!ss->thr_fit)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "Ising on several CUDA devices: the "
                               "decision tables at this beta do not fit the multi-spin coded "
                               "kernels' 32-bit thresholds (extreme beta); run it on one "
                               "device");
    const int c = call->step.colour;
    const int64_t h = ss->halo, r = ss->reach;
    int st = LATMC_OK;
    /*
     * What each stream of a slab waits for, from the previous step (all waits are
     * enqueued before any event is recorded again):
     *   border_stream: the previous interior (it wrote the planes next to the borders),
     *     and the copies of the neighbours (into this slab's halos); its own copies (out
     *     of its border planes, which the borders now write) are in order on it;
     *   stream (interior): the previous borders (next to the interior). The interior
     *     reads no halo plane.
     */
    st = cuda_slab_exec_order_step(&ss->slab[0].ex, sizeof *ss->slab, ss->n,
                                   "ordering a step after the previous one");
    /* Borders (then their copies) and the interior, concurrently. */
    for (int i = 0; i < ss->n && st == LATMC_OK; i++) {
        struct cuda_slab *sl = &ss->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        const int64_t first = h, last = h + sl->ex.planes; /* own planes [first, last) */
        const int64_t border = sl->ex.planes > 2 * r ? r : sl->ex.planes / 2;
        cudaError_t err = update_planes(sim, ss, sl, sl->ex.border_stream, first, first + border,
                                        call->sweep, c);
        if (err == cudaSuccess)
            err = update_planes(sim, ss, sl, sl->ex.border_stream, last - border, last,
                                call->sweep, c);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.border_done, sl->ex.border_stream);
        if (err == cudaSuccess)
            err = send_borders(ss, i, r, c, sl->ex.border_stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.copies_done, sl->ex.border_stream);
        if (err == cudaSuccess)
            err = update_planes(sim, ss, sl, sl->ex.stream, first + border, last - border,
                                call->sweep, c);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.interior_done, sl->ex.stream);
        if ((st = cuda_check(err, "launching a step on a slab")) < 0)
            break;
    }
    for (int i = 0; i < ss->n && st == LATMC_OK; i++)
        ss->slab[i].ex.recorded = true;
    if (st < 0) {
        cuda_slab_exec_drain(&ss->slab[0].ex, sizeof *ss->slab, ss->n);
        return st;
    }
    if (call->step.index + 1 == sim->plan->n_steps)
        *attempted += (uint64_t)sim->nsites; /* a sweep's updates, all attempted */
    if (!call->last)
        return LATMC_OK; /* no host wait until the last step of the latmc_sim_sweep call */
    /* the call's last step: the counter (added to by both update streams, never reset)
     * after the borders and copies */
    st = cuda_slab_exec_read_counts(&ss->slab[0].ex, sizeof *ss->slab, ss->n,
                                    "reading the acceptance counter", accepted);
    if (st < 0)
        cuda_slab_exec_drain(&ss->slab[0].ex, sizeof *ss->slab, ss->n);
    return st;
}

/* Slab ex's reduction of its own planes (cuda_slab_exec_measure_slabs). */
static cudaError_t reduce_slab(struct cuda_slab_exec *ex, const void *ctx, void **slab_sums)
{
    const struct cuda_slabs *ss = ctx;
    struct cuda_slab *sl = (struct cuda_slab *)ex; /* ex: its first member */
    const struct cuda_ising_rows rows = { ss->halo * ss->plane_rows,
                                          ex->planes * ss->plane_rows, 0 };
    *slab_sums = sl->sums;
    const cudaError_t err = cudaMemsetAsync(sl->sums, 0, sizeof *sl->sums, ex->stream);
    return err != cudaSuccess ? err
                              : cuda_ising_packed_measure_rows(ex->stream, &sl->local, &rows,
                                                               sl->colour[0], sl->colour[1],
                                                               sl->eps_packed[0], sl->sums);
}

int cuda_slabs_measure(const latmc_sim *sim, struct cuda_sim *cs, void *sums)
{
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_measure(sim, slabs_of(cs)->bytes, sums);
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_measure(sim, slabs_of(cs)->heis, sums);
    if (slabs_of(cs)->phi4)
        return cuda_phi4_slabs_measure(sim, slabs_of(cs)->phi4, sums);
    struct cuda_slabs *ss = slabs_of(cs);
    return cuda_slab_exec_measure_slabs(sim, &ss->slab[0].ex, sizeof *ss->slab, ss->n,
                                        reduce_slab, ss, sums);
}

int cuda_slabs_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_get_spins(sim, slabs_of(cs)->bytes, buf);
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_get_spins(sim, slabs_of(cs)->heis, buf);
    if (slabs_of(cs)->phi4)
        return cuda_phi4_slabs_get_spins(sim, slabs_of(cs)->phi4, buf);
    struct cuda_slabs *ss = slabs_of(cs);
    int st = LATMC_OK;
    for (int i = 0; i < ss->n && st == LATMC_OK; i++) {
        struct cuda_slab *sl = &ss->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) == LATMC_OK)
            st = cuda_check(own_rows(sim, ss, sl, buf, true), "copying the spins to the host");
    }
    const int fin = finish_all(ss, "copying the spins to the host");
    return st < 0 ? st : fin;
}

int cuda_slabs_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    if (slabs_of(cs)->bytes)
        return cuda_byte_slabs_set_spins(sim, slabs_of(cs)->bytes, buf);
    if (slabs_of(cs)->heis)
        return cuda_heis_slabs_set_spins(sim, slabs_of(cs)->heis, buf);
    if (slabs_of(cs)->phi4)
        return cuda_phi4_slabs_set_spins(sim, slabs_of(cs)->phi4, buf);
    struct cuda_slabs *ss = slabs_of(cs);
    int st = LATMC_OK;
    for (int i = 0; i < ss->n && st == LATMC_OK; i++) {
        struct cuda_slab *sl = &ss->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) == LATMC_OK)
            st = cuda_check(own_rows(sim, ss, sl, (int8_t *)buf, false),
                            "copying the spins to the device");
    }
    return st < 0 ? st : exchange_all(ss);
}
