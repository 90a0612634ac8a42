/*
 * phi^4 on several devices: one slab per device (cuda_slabs.h; doc/cuda.md, "Several
 * GPUs"), the one-device chain bit for bit.
 *
 * A slab holds its own planes of the last axis plus HALO = 2 planes on each side (the
 * 1/Lambda term and the diagonals reach two sites; the kernels read them for Lambda = inf
 * too), natural order: local plane p is plane origin - 2 + p (mod L) of the lattice. The
 * slab kernels (phi4_kernels.cu, cuda_phi4_slab_update) name every site, draw and colour by
 * the lattice's coordinates and read the cut axis from the halo planes, so each update is
 * the one-device update.
 *
 * The two schedules of the one-device chain (cuda_phi4.c, doc/models/phi4.md):
 *
 * - Chunk schedule: the slabs are cut along the chunks' boundaries (slab i gets chunk
 *   layers [C i / n, C (i + 1) / n) of the C along the last axis; not necessarily the
 *   plan's cut, which only names the count). The sub-grids whose chunks have cut-axis
 *   parity q (half the sub-grids, consecutive in the one-device order) update only the
 *   layers of parity q, and a layer's chunks read only the two neighbouring layers, of
 *   the other parity: so the layers of one parity are independent, and a sweep is two
 *   phases (parity 0, parity 1) with one halo exchange after each: the outer layer of a
 *   slab, when of the phase's parity, goes to the neighbour's halo. Like the one-device
 *   chunk chain, this is a schedule of the kernels' own, declared to the core
 *   (ops.own_schedule, cuda_phi4_slabs_own_steps): two steps per sweep, step q the phase
 *   of parity q with its exchange.
 * - Site order: the plan's slabs; one phase per step (pass, colour), its 2 outer planes
 *   at each end exchanged after it.
 *
 * A phase: the slab's outer layers (planes) on the border stream (high priority), then
 * their copies to the neighbours' halos on that stream, while the main stream updates the
 * interior, which reads no halo (the interior exists for more than two layers, more than
 * 2 HALO planes; thinner slabs run all on the border stream). What each stream waits for:
 * run_phase says. Observables: every slab's sums per plane (the one-device reduction's
 * per-plane values), added on the host in plane order with the model's add_sums.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_slab_exec.h"
#include "cuda_slabs.h"
#include "model.h"
#include "phi4_cuda.h"
#include "plan.h"

#define HALO CUDA_PHI4_HALO
#define NSUMS 5
#define CHUNK_PHASES 2 /* the chunk schedule's sweep on slabs: one phase per cut parity */

struct phi4_slab {
    /* ex.stream: the interior and everything outside the phases; ex.border_stream: the
     * outer layers (planes) and their copies out; no copy stream; ex.changed: accepted
     * hits; ex.split: an interior beside the outer layers (planes) */
    struct cuda_slab_exec ex;
    int64_t layer0, layers;         /* chunk schedule: own chunk layers */
    void *phi;                      /* the field on the local planes (own + 2 HALO) */
    double *partials, *plane_sums;  /* the reduction: per row, per own plane */
};

struct cuda_phi4_slabs {
    int n;
    struct phi4_slab *slab;
    struct cuda_phi4_plan plan;
    struct cuda_phi4_keys keys;
    struct latmc_lattice g;         /* the whole lattice */
    int64_t L, plane_sites;         /* planes of the last axis; sites per plane */
    int64_t rows_per_plane;
    size_t vb;                      /* bytes per value */
    int64_t bc;                     /* chunk schedule: planes per chunk layer */
};

static bool chunked(const struct cuda_phi4_slabs *ps)
{
    return ps->plan.schedule == CUDA_PHI4_CHUNKS;
}

static void free_arrays(struct cuda_slab_exec *ex)
{
    struct phi4_slab *sl = (struct phi4_slab *)ex; /* its first member */
    cudaFree(sl->phi);
    cudaFree(sl->partials);
    cudaFree(sl->plane_sums);
}

void cuda_phi4_slabs_destroy(struct cuda_phi4_slabs *ps)
{
    if (!ps)
        return;
    if (ps->slab)
        cuda_slab_exec_release_all(&ps->slab[0].ex, sizeof *ps->slab, ps->n, free_arrays);
    free(ps->slab);
    free(ps);
}

static int finish_all(struct cuda_phi4_slabs *ps, const char *what)
{
    return cuda_slab_exec_finish_all(&ps->slab[0].ex, sizeof *ps->slab, ps->n, what);
}

/* Where slab i's own planes lie: the chunk layers' boundaries (chunk schedule) or the
 * plan's. */
static int cut(const latmc_sim *sim, struct cuda_phi4_slabs *ps)
{
    const int axis = sim->desc.ndim - 1;
    if (!chunked(ps)) {
        for (int i = 0; i < ps->n; i++) {
            struct phi4_slab *sl = &ps->slab[i];
            sl->ex.origin = sim->plan->boxes[i].origin[axis];
            sl->ex.planes = sim->plan->boxes[i].extent[axis];
            sl->ex.split = sl->ex.planes > 2 * HALO;
        }
        return LATMC_OK;
    }
    ps->bc = ps->plan.b[axis];
    const int64_t layers = ps->L / ps->bc;
    if (layers < ps->n)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "phi^4 on %d CUDA slabs: the chunk schedule "
                               "cuts the last axis (%lld planes) into %lld layers of %lld-plane "
                               "chunks, fewer than the slabs (a slab is whole layers); set "
                               "LATMC_CUDA_PHI4_CHUNK with a thinner last extent (or \"none\": "
                               "the site order), or use fewer devices", ps->n,
                               (long long)ps->L, (long long)layers, (long long)ps->bc);
    for (int i = 0; i < ps->n; i++) {
        struct phi4_slab *sl = &ps->slab[i];
        sl->layer0 = layers * i / ps->n;
        sl->layers = layers * (i + 1) / ps->n - sl->layer0;
        sl->ex.origin = sl->layer0 * ps->bc;
        sl->ex.planes = sl->layers * ps->bc;
        sl->ex.split = sl->layers > 2;
    }
    return LATMC_OK;
}

int cuda_phi4_slabs_create(const latmc_sim *sim, const struct cuda_sim *cs,
                           struct cuda_phi4_slabs **out)
{
    const latmc_sim_desc *d = &sim->desc;
    struct cuda_phi4_slabs *ps = calloc(1, sizeof *ps);
    if (!ps || !(ps->slab = calloc((size_t)sim->plan->n_boxes, sizeof *ps->slab))) {
        free(ps);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the slabs' state");
    }
    ps->n = sim->plan->n_boxes;
    ps->g = cs->lattice;
    ps->L = d->extent[d->ndim - 1];
    ps->plane_sites = d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
    ps->rows_per_plane = d->ndim == 3 ? d->extent[1] : 1;
    ps->vb = d->precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double);
    int st = cuda_phi4_plan_for_slabs(sim, cs, &ps->plan, &ps->keys);
    if (st == LATMC_OK)
        st = cut(sim, ps);
    for (int i = 0; i < ps->n && st == LATMC_OK; i++) {
        struct phi4_slab *sl = &ps->slab[i];
        sl->ex.device = cuda_slab_device_of(d, i);
        const size_t values = (size_t)(ps->plane_sites * (sl->ex.planes + 2 * HALO));
        const size_t rows = (size_t)(sl->ex.planes * ps->rows_per_plane);
        if ((st = cuda_slab_exec_create(&sl->ex)) < 0 ||
            (st = cuda_check(cuda_phi4_prepare_slabs(&ps->plan),
                             "setting the phi^4 kernel's shared memory")) < 0 ||
            (st = cuda_slab_alloc_on(&sl->phi, values * ps->vb, sl->ex.device, "field")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->partials, rows * NSUMS * sizeof(double),
                                     sl->ex.device, "partial sums")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->plane_sums, (size_t)sl->ex.planes * NSUMS *
                                     sizeof(double), sl->ex.device, "sums per plane")) < 0)
            break;
    }
    if (st == LATMC_OK)
        st = finish_all(ps, "creating the slabs");
    if (st < 0) {
        cuda_phi4_slabs_destroy(ps);
        return st;
    }
    if (chunked(ps))
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA phi^4: %d slabs of whole chunk layers "
                       "(%lld planes each), chunks %dx%dx%d", ps->n, (long long)ps->bc,
                       ps->plan.b[0], ps->plan.b[1], ps->plan.b[2]);
    *out = ps;
    return LATMC_OK;
}

/* A slab's field, for cuda_slab_exec_put_planes / get_planes. */
static void *field_of(struct cuda_slab_exec *ex)
{
    return ((struct phi4_slab *)ex)->phi; /* ex: its first member */
}

int cuda_phi4_slabs_init_spins(const latmc_sim *sim, struct cuda_phi4_slabs *ps, int how)
{
    int st = finish_all(ps, "initialising the field");
    for (int i = 0; i < ps->n && st == LATMC_OK; i++) {
        struct phi4_slab *sl = &ps->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        if (how == LATMC_INIT_COLD) { /* phi = 0: all bytes zero in both precisions */
            st = cuda_check(cudaMemsetAsync(sl->phi, 0, (size_t)(ps->plane_sites *
                                            (sl->ex.planes + 2 * HALO)) * ps->vb, sl->ex.stream),
                            "cold start");
            continue;
        }
        struct cuda_slab_run r[3];
        cuda_slab_runs(&sl->ex, HALO, ps->L, r);
        for (int k = 0; k < 3 && st == LATMC_OK; k++)
            st = cuda_check(cuda_phi4_hot_range(sl->ex.stream, &ps->plan,
                                                (char *)sl->phi + (size_t)(r[k].local *
                                                ps->plane_sites) * ps->vb,
                                                r[k].global * ps->plane_sites,
                                                r[k].planes * ps->plane_sites, sim->desc.seed),
                            "launching the hot start");
    }
    const int fin = finish_all(ps, "initialising the field");
    return st < 0 ? st : fin;
}

int cuda_phi4_slabs_set_spins(const latmc_sim *sim, struct cuda_phi4_slabs *ps,
                              const void *buf)
{
    (void)sim;
    /* own planes and both halos, so that no exchange is needed */
    return cuda_slab_exec_put_planes(&ps->slab[0].ex, sizeof *ps->slab, ps->n, field_of, HALO,
                                     ps->L, (size_t)ps->plane_sites * ps->vb, buf,
                                     "copying the field to the slabs");
}

int cuda_phi4_slabs_get_spins(const latmc_sim *sim, struct cuda_phi4_slabs *ps, void *buf)
{
    (void)sim;
    return cuda_slab_exec_get_planes(&ps->slab[0].ex, sizeof *ps->slab, ps->n, field_of, HALO,
                                     (size_t)ps->plane_sites * ps->vb, buf,
                                     "copying the field to the host");
}

/* Enqueue on src's border stream the copy of src's local planes [p_src, p_src + HALO)
 * into dst's local planes [p_dst, p_dst + HALO) (src's device current). */
static cudaError_t copy_planes(const struct cuda_phi4_slabs *ps, const struct phi4_slab *src,
                               int64_t p_src, const struct phi4_slab *dst, int64_t p_dst)
{
    const size_t plane = (size_t)ps->plane_sites * ps->vb;
    const void *from = (const char *)src->phi + (size_t)p_src * plane;
    void *to = (char *)dst->phi + (size_t)p_dst * plane;
    return cuda_slab_copy_to(&src->ex, from, &dst->ex, to, HALO * plane, src->ex.border_stream);
}

/* The launches of slab sl in one phase: ranges[0 .. *n) on the border stream, the
 * interior (when split) in *interior; and which ends change (sent to the neighbours). */
static int phase_ranges(const struct cuda_phi4_slabs *ps, const struct phi4_slab *sl,
                        int parity, struct cuda_phi4_slab_range border[2],
                        struct cuda_phi4_slab_range *interior, bool *send_lo, bool *send_hi)
{
    const int64_t cut0 = sl->ex.origin - HALO;
    /* chunk schedule: layers; site order: planes (the outer HALO at each end) */
    const int64_t first = chunked(ps) ? sl->layer0 : sl->ex.origin;
    const int64_t count = chunked(ps) ? sl->layers : sl->ex.planes;
    const int64_t outer = chunked(ps) ? 1 : HALO;
    const int64_t last = first + count - 1;
    *send_lo = !chunked(ps) || (sl->layer0 & 1) == parity;
    *send_hi = !chunked(ps) || (last & 1) == parity;
    if (!sl->ex.split) {
        border[0] = (struct cuda_phi4_slab_range){ cut0, first, count, parity };
        return 1;
    }
    border[0] = (struct cuda_phi4_slab_range){ cut0, first, outer, parity };
    border[1] = (struct cuda_phi4_slab_range){ cut0, first + count - outer, outer, parity };
    *interior = (struct cuda_phi4_slab_range){ cut0, first + outer, count - 2 * outer, parity };
    return 2;
}

/*
 * One phase on every slab (chunk schedule: the sub-grids of one cut parity; site order:
 * one step). What each stream of a slab waits for, from the previous phase (all waits are
 * enqueued before any event is recorded again):
 *   border_stream: this slab's previous interior (the outer layers read the planes next
 *     to them, and write planes the previous interior read), and both neighbours'
 *     previous copies (into this slab's halos; recorded after the neighbours' previous
 *     borders, which read their halos that this slab's copies now overwrite). Its own
 *     previous borders and copies: in order.
 *   stream (interior): this slab's previous borders (not their copies). The interior
 *     reads no halo, and no copy writes its planes.
 * Within a phase a copy may overwrite a halo that the neighbour's border launch of the
 * same phase reads: in the chunk schedule never (a layer is sent in the phase of its
 * parity, and the neighbour's layer next to it, the one reading that halo, has the other
 * parity); in the site order only values the step does not change are read (a site of
 * the step's colour never reads another of that colour), so the bytes read are the same.
 */
static int run_phase(const latmc_sim *sim, struct cuda_phi4_slabs *ps, uint64_t sweep,
                     const struct latmc_step *step, int parity)
{
    const struct latmc_phi4_tables *t = sim->model_data;
    int st = cuda_slab_exec_order_step(&ps->slab[0].ex, sizeof *ps->slab, ps->n,
                                       "ordering a phase after the previous one");
    for (int i = 0; i < ps->n && st == LATMC_OK; i++) {
        struct phi4_slab *sl = &ps->slab[i];
        const struct phi4_slab *lo = &ps->slab[(i + ps->n - 1) % ps->n];
        const struct phi4_slab *hi = &ps->slab[(i + 1) % ps->n];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        struct cuda_phi4_slab_range border[2], interior;
        bool send_lo = false, send_hi = false;
        const int nb = phase_ranges(ps, sl, parity, border, &interior, &send_lo, &send_hi);
        cudaError_t err = cudaSuccess;
        for (int k = 0; k < nb && err == cudaSuccess; k++)
            err = cuda_phi4_slab_update(sl->ex.border_stream, &ps->plan, &ps->g, sl->phi, t,
                                        &ps->keys, sweep, step, &border[k], sl->ex.changed);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.border_done, sl->ex.border_stream);
        /* the first own planes are the lower neighbour's upper halo, the last ones the
         * upper neighbour's lower halo */
        if (err == cudaSuccess && send_lo)
            err = copy_planes(ps, sl, HALO, lo, HALO + lo->ex.planes);
        if (err == cudaSuccess && send_hi)
            err = copy_planes(ps, sl, sl->ex.planes, hi, 0);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.copies_done, sl->ex.border_stream);
        if (err == cudaSuccess && sl->ex.split)
            err = cuda_phi4_slab_update(sl->ex.stream, &ps->plan, &ps->g, sl->phi, t, &ps->keys,
                                        sweep, step, &interior, sl->ex.changed);
        if (err == cudaSuccess && sl->ex.split)
            err = cudaEventRecord(sl->ex.interior_done, sl->ex.stream);
        st = cuda_check(err, "launching phi^4 on a slab");
    }
    if (st < 0)
        return st;
    for (int i = 0; i < ps->n; i++)
        ps->slab[i].ex.recorded = true;
    return LATMC_OK;
}

int cuda_phi4_slabs_own_steps(const struct cuda_phi4_slabs *ps)
{
    return chunked(ps) ? CHUNK_PHASES : 0;
}

int cuda_phi4_slabs_run_step(const latmc_sim *sim, struct cuda_phi4_slabs *ps,
                             const struct latmc_step_call *call, uint64_t *accepted,
                             uint64_t *attempted)
{
    const struct latmc_phi4_tables *t = sim->model_data;
    int st = LATMC_OK;
    if (call->part != LATMC_STEP_WHOLE ||
        (chunked(ps) && (call->step.index < 0 || call->step.index >= CHUNK_PHASES)))
        return cuda_core->fail(LATMC_EBACKEND, "CUDA phi^4 slabs: step %d, part %d is not a "
                               "step of their schedule (a bug in the core)", call->step.index,
                               call->part);
    if (chunked(ps)) {
        /* the phase of cut parity step.index (cuda_phi4_slabs_own_steps) */
        st = run_phase(sim, ps, call->sweep, NULL, call->step.index);
        if (st == LATMC_OK && call->step.index == 0)
            *attempted += (uint64_t)sim->nsites * t->nloc * t->nhit;
    } else {
        st = run_phase(sim, ps, call->sweep, &call->step, 0);
        if (st == LATMC_OK)
            *attempted += (uint64_t)sim->nsites / (uint64_t)ps->plan.ncolours * t->nhit;
    }
    if (st < 0) {
        /* the failed call's updates are not reported, now or later (as every model's
         * slabs and one GPU do) */
        cuda_slab_exec_drain(&ps->slab[0].ex, sizeof *ps->slab, ps->n);
        return st;
    }
    if (!call->last)
        return LATMC_OK;
    /* the counter (added to by both streams) after both */
    st = cuda_slab_exec_read_counts(&ps->slab[0].ex, sizeof *ps->slab, ps->n,
                                    "reading the acceptance counter", accepted);
    if (st < 0)
        cuda_slab_exec_drain(&ps->slab[0].ex, sizeof *ps->slab, ps->n);
    return st;
}

/* Slab ex's reduction per own plane (cuda_slab_exec_measure_planes). */
static cudaError_t reduce_planes(struct cuda_slab_exec *ex, const void *ctx, double **plane_sums)
{
    const struct cuda_phi4_slabs *ps = ctx;
    struct phi4_slab *sl = (struct phi4_slab *)ex; /* ex: its first member */
    const struct cuda_phi4_slab_range own = { ex->origin - HALO, ex->origin, ex->planes, 0 };
    *plane_sums = sl->plane_sums;
    return cuda_phi4_measure_planes(ex->stream, &ps->plan, &ps->g, sl->phi, &own, sl->partials,
                                    sl->plane_sums);
}

int cuda_phi4_slabs_measure(const latmc_sim *sim, struct cuda_phi4_slabs *ps, void *sums)
{
    _Static_assert(sizeof(struct latmc_phi4_sums) == NSUMS * sizeof(double),
                   "struct latmc_phi4_sums is not 5 doubles");
    return cuda_slab_exec_measure_planes(sim, &ps->slab[0].ex, sizeof *ps->slab, ps->n, ps->L,
                                         NSUMS, reduce_planes, ps, sums);
}
