/*
 * The one CUDA executor over boxes on devices (cuda_exec.h; doc/architecture.md, "One
 * CUDA executor").
 *
 * A box (cuda_leaf.h) keeps its own planes of the lattice's last axis and the leaf's
 * `halo` planes on each side; one box alone keeps the whole lattice and no halo (its
 * halo is its own wrap). Every step of the core's plan (lib/plan.c) on k boxes:
 *   1. every box's streams wait for what they read of the previous step
 *      (cuda_box_exec_order_step);
 *   2. every box's main stream updates its interior (interior_done), which reads no halo;
 *      then every box updates its border ranges (the leaf's border_planes at each end) on
 *      its border stream (high priority), records border_done, sends its outermost `halo`
 *      own planes into the neighbours' halos through its transport (cuda_halo.h), records
 *      copies_done. (The interiors are enqueued first so that the last box's device starts
 *      its step early: launch_boxes.) A box thinner than three border ranges is one range,
 *      one launch, on the border stream (no interior).
 *   Boxes that all share one device are not split (cuda_box_exec.h, split): each box's
 *   step is one range, one launch, on its border stream, then its sends and copies_done;
 *   its next step waits for its neighbours' copies alone. The split buys the overlap of
 *   a transfer between devices with the interior; on one device a box's halo copy is
 *   one short kernel, and the split's 2 more launches, 2 more records and 2 more waits a
 *   box and step cost the host more than the steps of a small lattice take on the GPU
 *   (Ising 3D 128^3 on 2 boxes of one H200: 6-7x one box's time a sweep split, the
 *   host's enqueueing the bound, 3-3.7x not split; doc/PERFORMANCE.md, "Boxes on one
 *   GPU"). The boxes keep their own streams, so their steps still run side by side.
 *   LATMC_CUDA_BOX_SPLIT=1 splits them as boxes of several devices are
 *   (doc/environment.md): the schedule of several GPUs on one.
 * Within a step a box's sends may overwrite a neighbour's halo while that neighbour's
 * borders (a box not split: its whole step) read it: a step reads only the sites of the
 * other colours there, which it does not change, so the bytes read are the same either
 * way.
 * A leaf whose steps read whole boxes (cuda_leaf.h, join: Swendsen-Wang's labels) runs
 * each step on each box's own planes at once on its border stream, then the leaf's join
 * across the boxes, then the events and sends as above (launch_joined); a part's box the
 * same, its join across the parts the core's (ops.cluster_faces, leaf part_faces).
 * One box alone: each step is one launch on its main stream, which orders them; a large
 * box alone whose leaf takes ranges of it runs each step in halves instead (launch_halves:
 * its halves' ends on the border stream, the two interiors on the main and the half stream,
 * so that one half's step overlaps the other's), and large split boxes run their
 * interiors so (launch_boxes: the interior's middle planes on the border stream after the
 * sends). The box
 * of a part of a lattice shared by processes: the same as one of k boxes, but it sends
 * nothing (its transport is the part's): the core's exchange after the step (lib/part.c)
 * moves its border planes and halos through get_planes / set_planes on the border stream,
 * behind the borders and beside the interior.
 * The host waits only at the last step of a latmc_sim_sweep call, where the counters are
 * read (updates since the previous read: the counters are never cleared).
 *
 * Init and set_spins write the own planes and the halos, so no exchange follows them.
 * The measurements, the Fourier modes and a part's per-plane forms are
 * cuda_exec_measure.c's; the state both files share is cuda_exec_state.h's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_check.h"
#include "cuda_exec_state.h"
#include "model.h"
#include "part.h"
#include "plan.h"

static void free_box(struct cuda_box_exec *ex)
{
    struct cuda_box *b = (struct cuda_box *)ex; /* ex: its first member */
    cudaFree(b->data);
    cudaFree(b->tables);
    cudaFree(b->sums);
    cudaFree(b->projections);
    cudaFree(b->weights);
}

void cuda_exec_destroy(struct cuda_exec *x)
{
    if (!x)
        return;
    for (int i = 0; x->box && i < x->n; i++)
        if (x->box[i].own && x->leaf->box_destroy) {
            (void)cudaSetDevice(x->box[i].ex.device);
            x->leaf->box_destroy(&x->box[i]);
        }
    if (x->box)
        cuda_box_exec_release_all(&x->box[0].ex, sizeof *x->box, x->n, free_box);
    cuda_part_wire_release(&x->wire); /* the streams waited for above */
    free(x->couplings);
    free(x->box);
    free(x->transport);
    cudaFreeHost(x->stage);
    free(x);
}

static size_t storage_bytes(const struct cuda_exec *x, const struct cuda_box *b)
{
    return (size_t)x->arrays * (size_t)(b->ex.planes + 2 * x->halo) * x->plane_bytes;
}

static int alloc_on(void **ptr, size_t bytes, int device, int i, const char *what)
{
    char msg[160];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory on device %d for "
             "the %s of box %d", bytes, device, what, i);
    return cuda_check(cudaMalloc(ptr, bytes), msg);
}

/* Box i of the executor, own planes [origin, origin + planes) of the last axis, on its
 * device: executor state, storage (cold), tables, sums. */
static int create_box(const latmc_sim *sim, struct cuda_exec *x, int i, int64_t origin,
                      int64_t planes)
{
    const latmc_sim_desc *d = &sim->desc;
    struct cuda_box *b = &x->box[i];
    /* a part runs on desc.device_index (lib/part.c chose it for its rank) */
    b->ex.device = x->part ? d->device_index : cuda_box_device_of(d, i);
    b->ex.split = true; /* borders and interior; boxes of one device not (cuda_exec_create) */
    b->ex.origin = origin;
    b->ex.planes = planes;
    b->halo = x->halo;
    b->local.ndim = d->ndim;
    b->local.lx = d->extent[0];
    b->local.ly = d->ndim == 3 ? d->extent[1] : b->ex.planes + 2 * x->halo;
    b->local.lz = d->ndim == 3 ? b->ex.planes + 2 * x->halo : 1;
    b->local.nsites = b->local.lx * b->local.ly * b->local.lz;
    b->array_bytes = (size_t)(b->ex.planes + 2 * x->halo) * x->plane_bytes;
    int st;
    if ((st = cuda_box_exec_create(&b->ex)) < 0 ||
        (st = alloc_on(&b->data, storage_bytes(x, b), b->ex.device, i, "configuration")) < 0 ||
        (st = alloc_on(&b->tables, sim->model->data_size, b->ex.device, i,
                       "decision tables")) < 0 ||
        (st = alloc_on(&b->sums, sim->model->sums_size, b->ex.device, i, "sums")) < 0)
        return st;
    /* the cold start until the configuration is set */
    if ((st = cuda_check(cudaMemsetAsync(b->data, x->leaf->cold_byte, storage_bytes(x, b),
                                         b->ex.stream), "clearing the configuration")) < 0 ||
        (x->leaf->box_create && (st = x->leaf->box_create(sim, b)) < 0) ||
        (x->leaf->cold && (st = cuda_check(x->leaf->cold(sim, b, b->ex.stream),
                                           "launching the cold start")) < 0))
        return st;
    if (x->drawn)
        return cuda_check(x->leaf->draw_couplings_on_box(sim, b, b->ex.stream),
                          "drawing the couplings on the device");
    if (!x->couplings)
        return LATMC_OK;
    return cuda_check(x->leaf->couplings_to_box(sim, b, b->ex.stream, x->couplings,
                                                x->cpl_first, x->cpl_planes),
                      "copying the couplings to the device");
}

/* Where the boxes draw their couplings on the device: the leaf's say, unless
 * LATMC_CUDA_COUPLINGS=host asks for the host's draw and copies (the way before the
 * device drew them: a comparison for tests and benchmarks, the same values). */
static bool couplings_drawn_on_device(const latmc_sim *sim, const struct cuda_leaf *leaf)
{
    const char *how = getenv("LATMC_CUDA_COUPLINGS");
    if (how && strcmp(how, "host") == 0)
        return false;
    return leaf->draws_couplings && leaf->draw_couplings_on_box && leaf->draws_couplings(sim);
}

/* The host's couplings of the executor's planes, drawn now where the boxes drew theirs
 * (the same rule, the same values): the reads and set_couplings work on them. */
static int host_couplings(const latmc_sim *sim, struct cuda_exec *x)
{
    if (x->couplings || !x->drawn)
        return LATMC_OK;
    return x->leaf->draw_couplings(sim, x->cpl_first, x->cpl_planes, &x->couplings);
}

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

const struct cuda_leaf *cuda_exec_leaf(const struct cuda_exec *x)
{
    return x->leaf;
}

/* A box alone's steps in halves (launch_halves), and split boxes' and a part's box's
 * interiors in halves (launch_boxes), where the leaf takes such ranges and the boxes are
 * large enough that a step's launches, records and waits cost the host less than the
 * overlap gains on the GPU.
 * The host enqueues every box's step in turn, a device's step takes a time in proportion to
 * its sites: so HALVES_SITES own sites a device for each box of the sim (one H200, a box
 * alone, Ising: 2^28 sites and more 1.4-12 % faster, 2^26 11-23 % slower, 2^27 mixed; four
 * H200 with two 3D boxes of 2^29 sites a device, 8 boxes: 25 % slower in halves, a box of
 * 2^30 a device 4.6 % faster; doc/PERFORMANCE.md, "Halves"). LATMC_CUDA_HALVES (read at
 * sim creation): "1" any such box of HALVES_MIN_PLANES planes (beyond its borders) or more
 * (the tests), "0" none. */
#define HALVES_SITES ((int64_t)1 << 28)
#define HALVES_MIN_PLANES 6

static bool halves_wanted(const struct cuda_exec *x)
{
    if (!x->leaf->halves)
        return false;
    /* a box alone, or split boxes (launch_boxes: their interiors in halves) */
    const int64_t edges = x->halo == 0 ? 0 : 2 * x->border;
    int64_t least = INT64_MAX;
    for (int i = 0; i < x->n; i++) {
        if (x->halo > 0 && !x->box[i].ex.split)
            return false;
        if (x->box[i].ex.planes < least)
            least = x->box[i].ex.planes;
    }
    if (least < edges + HALVES_MIN_PLANES)
        return false;
    const char *v = getenv("LATMC_CUDA_HALVES");
    if (v && strcmp(v, "0") == 0)
        return false;
    if (v && strcmp(v, "1") == 0)
        return true;
    int devices = 0;
    for (int i = 0; i < x->n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++)
            seen = x->box[j].ex.device == x->box[i].ex.device;
        devices += !seen;
    }
    return x->own_sites / devices >= HALVES_SITES * x->n;
}

int cuda_exec_create(const latmc_sim *sim, const struct cuda_leaf *leaf, struct cuda_exec **out)
{
    const latmc_sim_desc *d = &sim->desc;
    struct cuda_exec *x = calloc(1, sizeof *x);
    /* a part of several: its own box of the plan, its neighbours in other processes */
    const bool part = latmc_part_many(sim);
    const int n = part ? 1 : sim->plan->n_boxes;
    if (!x || !(x->box = calloc((size_t)n, sizeof *x->box)) ||
        !(x->transport = calloc((size_t)n, sizeof *x->transport))) {
        cuda_exec_destroy(x);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the boxes' state");
    }
    x->leaf = leaf;
    x->n = n;
    x->part = part;
    x->halo = n > 1 || part ? leaf->halo(sim) : 0; /* one box alone: its own wrap */
    x->border = leaf->border_planes(sim);
    x->sent = leaf->sent_planes ? leaf->sent_planes(sim) : x->halo;
    x->L = d->extent[d->ndim - 1];
    x->plane_bytes = leaf->plane_bytes(sim);
    x->arrays = leaf->arrays > 1 ? leaf->arrays : 1;
    int64_t plane_sites = 1;
    for (int mu = 0; mu < d->ndim - 1; mu++)
        plane_sites *= d->extent[mu];
    x->api_plane_bytes = (size_t)plane_sites * sim->model->site_bytes(d);
    int st = LATMC_OK;
    /* the couplings' planes: of the whole lattice, or a part's local planes only (drawn on
     * each box's device where the leaf can, else once on the host: couplings_drawn_on_device) */
    x->cpl_first = 0;
    x->cpl_planes = x->L;
    if (part) {
        const struct latmc_box *pb = &sim->plan->boxes[sim->part->rank];
        x->cpl_first = pb->origin[d->ndim - 1] - x->halo;
        x->cpl_planes = pb->extent[d->ndim - 1] + 2 * x->halo;
    }
    const double t0 = seconds_now();
    x->drawn = couplings_drawn_on_device(sim, leaf);
    if (!x->drawn && leaf->draw_couplings &&
        (st = leaf->draw_couplings(sim, x->cpl_first, x->cpl_planes, &x->couplings)) < 0) {
        cuda_exec_destroy(x);
        return st;
    }
    const double t1 = seconds_now();
    /* the boxes' own planes: the plan's cut, or the leaf's (k boxes in this process) */
    int64_t *cut = calloc(2 * (size_t)n, sizeof *cut);
    if (!cut)
        st = cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the boxes' cut");
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        const struct latmc_box *pb = &sim->plan->boxes[part ? sim->part->rank : i];
        cut[i] = pb->origin[d->ndim - 1];
        cut[n + i] = pb->extent[d->ndim - 1];
    }
    if (st == LATMC_OK && n > 1 && leaf->cut)
        st = leaf->cut(sim, n, cut, cut + n);
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        st = create_box(sim, x, i, cut[i], cut[n + i]);
        x->own_sites += x->box[i].ex.planes * plane_sites;
    }
    free(cut);
    if (st == LATMC_OK)
        st = cuda_exec_finish_all(x, "creating the boxes");
    if (st < 0) {
        cuda_exec_destroy(x);
        return st;
    }
    cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA executor: couplings %s; host draw %.3f s, "
                   "boxes (storage, cold start, couplings) %.3f s",
                   x->drawn ? "drawn on the device" : x->couplings ? "drawn on the host"
                                                                  : "none",
                   t1 - t0, seconds_now() - t1);
    if (part) {
        x->transport[0] = cuda_halo_part();
    } else if (n > 1) {
        cuda_box_exec_enable_peers(d, n);
        const char *copy = getenv("LATMC_CUDA_BOX_COPY");
        if (!copy || !*copy) /* its name before the layouts were called boxes, still
                              * honoured where this one is unset (the empty value too) */
            copy = getenv("LATMC_CUDA_SLAB_COPY");
        /* on one H200, 2 boxes of 16384^2 Potts (heat bath, q = 3) ran at 1/1.02-1/1.08
         * of one box's speed with the copy kernel, 1/1.11 with device copies: those are
         * scheduled behind the interior's persistent wave (doc/PERFORMANCE.md, "Boxes on
         * one GPU") */
        const bool memcpy_only = copy && strcmp(copy, "memcpy") == 0;
        for (int i = 0; i < n; i++)
            x->transport[i] = cuda_halo_pick(x->box[i].ex.device,
                                             x->box[(i + n - 1) % n].ex.device,
                                             x->box[(i + 1) % n].ex.device, memcpy_only);
        /* boxes of one device: not split (the file's comment) */
        bool one_device = true;
        for (int i = 1; i < n; i++)
            one_device = one_device && x->box[i].ex.device == x->box[0].ex.device;
        /* LATMC_CUDA_BOX_SPLIT: 1 splits the boxes of one device too, 0 splits none (the
         * boxes of several devices each one launch a step, then their sends: no overlap
         * of the transfers with the interior) */
        const char *split = getenv("LATMC_CUDA_BOX_SPLIT");
        const bool split_all = split && strcmp(split, "1") == 0;
        const bool split_none = split && strcmp(split, "0") == 0;
        for (int i = 0; i < n && ((one_device && !split_all) || split_none); i++)
            x->box[i].ex.split = false;
    }
    x->halves = halves_wanted(x);
    x->half_kind = -1;
    for (int i = 0; i < x->n && x->halves && st == LATMC_OK; i++)
        st = cuda_box_exec_add_half(&x->box[i].ex);
    if (st < 0) {
        cuda_exec_destroy(x);
        return st;
    }
    (void)cudaSetDevice(x->box[0].ex.device);
    cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA executor: %s sim of %lld sites as %d "
                   "box(es), halo %lld, borders of %lld planes%s%s, halo transport of box 0: "
                   "%s", sim->model->name, (long long)sim->nsites, n, (long long)x->halo,
                   (long long)x->border, x->box[0].ex.split ? "" : " (boxes not split)",
                   x->halves ? ", steps in halves where the leaf takes them" : "",
                   x->halo > 0 ? x->transport[0]->name : "its own wrap");
    *out = x;
    return LATMC_OK;
}

int cuda_exec_params_changed(const latmc_sim *sim, struct cuda_exec *x)
{
    int st = cuda_exec_finish_all(x, "copying the decision tables");
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) == LATMC_OK)
            st = cuda_check(cudaMemcpyAsync(b->tables, sim->model_data, sim->model->data_size,
                                            cudaMemcpyHostToDevice, b->ex.stream),
                            "copying the decision tables");
        if (st == LATMC_OK && x->leaf->params_changed)
            x->leaf->params_changed(sim, b);
    }
    const int fin = cuda_exec_finish_all(x, "copying the decision tables");
    return st < 0 ? st : fin;
}

int cuda_exec_init_spins(const latmc_sim *sim, struct cuda_exec *x, int how)
{
    int st = cuda_exec_finish_all(x, "initialising the spins");
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) < 0)
            break;
        if (how == LATMC_INIT_COLD) {
            st = cuda_check(x->leaf->cold ? x->leaf->cold(sim, b, b->ex.stream)
                                          : cudaMemsetAsync(b->data, x->leaf->cold_byte,
                                                            storage_bytes(x, b), b->ex.stream),
                            "cold start");
            if (x->leaf->stored)
                x->leaf->stored(sim, b);
            continue;
        }
        /* the lower halo, the own planes, the upper halo: each a run of the lattice's
         * planes, drawn as the lattice's sites */
        struct cuda_box_run r[3];
        cuda_box_runs(&b->ex, x->halo, x->L, r);
        for (int k = 0; k < 3 && st == LATMC_OK; k++)
            if (r[k].planes > 0)
                st = cuda_check(x->leaf->hot_planes(sim, b, b->ex.stream, r[k].local,
                                                    r[k].global, r[k].planes),
                                "launching the hot start");
    }
    const int fin = cuda_exec_finish_all(x, "initialising the spins");
    return st < 0 ? st : fin;
}

/* A box's storage, for cuda_box_exec_put_planes / get_planes. */
static void *data_of(struct cuda_box_exec *ex)
{
    return ((struct cuda_box *)ex)->data; /* ex: its first member */
}

/*
 * The whole lattice's API buffer keeps the replicas one after another (L planes each),
 * a leaf's put/get_planes takes planes of every replica in get_planes' layout (cuda_leaf.h):
 * with several replicas, planes [global, global + planes) of each go through `tmp`
 * (replicas x planes planes), copied there (to_tmp) or back.
 */
static void replica_planes(const struct cuda_exec *x, int replicas, char *tmp, char *whole,
                           int64_t global, int64_t planes, bool to_tmp)
{
    const size_t run = (size_t)planes * x->api_plane_bytes;
    for (int r = 0; r < replicas; r++) {
        char *w = whole + ((size_t)r * (size_t)x->L + (size_t)global) * x->api_plane_bytes;
        if (to_tmp)
            memcpy(tmp + (size_t)r * run, w, run);
        else
            memcpy(w, tmp + (size_t)r * run, run);
    }
}

/* A host buffer of the replicas' planes of the largest run of box planes (own planes or a
 * halo), or NULL where one replica needs none; *st set on failure. */
static char *replica_stage(const latmc_sim *sim, const struct cuda_exec *x, int *st)
{
    *st = LATMC_OK;
    if (sim->desc.replicas <= 1)
        return NULL;
    int64_t most = x->halo;
    for (int i = 0; i < x->n; i++)
        most = x->box[i].ex.planes > most ? x->box[i].ex.planes : most;
    const size_t bytes = (size_t)sim->desc.replicas * (size_t)most * x->api_plane_bytes;
    char *tmp = malloc(bytes);
    if (!tmp)
        *st = cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate %zu bytes of host "
                              "memory for the replicas' planes", bytes);
    return tmp;
}

int cuda_exec_set_spins(const latmc_sim *sim, struct cuda_exec *x, const void *buf)
{
    const char *what = "copying the spins to the device";
    /* own planes and both halos, so that no exchange is needed */
    if (!x->leaf->put_planes)
        return cuda_box_exec_put_planes(&x->box[0].ex, sizeof *x->box, x->n, data_of,
                                         x->halo, x->L, x->plane_bytes, buf, what);
    int st = cuda_exec_finish_all(x, what);
    char *tmp = st == LATMC_OK ? replica_stage(sim, x, &st) : NULL;
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        struct cuda_box_run r[3];
        cuda_box_runs(&b->ex, x->halo, x->L, r);
        if ((st = cuda_box_set_device(b->ex.device)) < 0)
            break;
        for (int k = 0; k < 3 && st == LATMC_OK; k++) {
            if (r[k].planes <= 0)
                continue;
            const char *from = (const char *)buf + (size_t)r[k].global * x->api_plane_bytes;
            if (tmp) {
                replica_planes(x, sim->desc.replicas, tmp, (char *)buf, r[k].global,
                               r[k].planes, true);
                from = tmp;
            }
            st = cuda_check(x->leaf->put_planes(sim, b, b->ex.stream, r[k].local, from,
                                                r[k].planes), what);
            if (st == LATMC_OK && tmp) /* before tmp is written again */
                st = cuda_check(cudaStreamSynchronize(b->ex.stream), what);
        }
    }
    free(tmp);
    const int fin = cuda_exec_finish_all(x, what);
    return st < 0 ? st : fin;
}

int cuda_exec_get_spins(const latmc_sim *sim, struct cuda_exec *x, void *buf)
{
    const char *what = "copying the spins to the host";
    if (!x->leaf->get_planes)
        return cuda_box_exec_get_planes(&x->box[0].ex, sizeof *x->box, x->n, data_of,
                                         x->halo, x->plane_bytes, buf, what);
    int st = cuda_exec_finish_all(x, what);
    char *tmp = st == LATMC_OK ? replica_stage(sim, x, &st) : NULL;
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        char *to = tmp ? tmp : (char *)buf + (size_t)b->ex.origin * x->api_plane_bytes;
        if ((st = cuda_box_set_device(b->ex.device)) == LATMC_OK)
            st = cuda_check(x->leaf->get_planes(sim, b, b->ex.stream, x->halo, to,
                                                b->ex.planes), what);
        if (st == LATMC_OK && tmp) {
            st = cuda_check(cudaStreamSynchronize(b->ex.stream), what);
            if (st == LATMC_OK)
                replica_planes(x, sim->desc.replicas, tmp, buf, b->ex.origin, b->ex.planes,
                               false);
        }
    }
    free(tmp);
    const int fin = cuda_exec_finish_all(x, what);
    return st < 0 ? st : fin;
}

int cuda_exec_get_couplings(const latmc_sim *sim, struct cuda_exec *x, float *buf)
{
    if (!x->couplings && !x->drawn)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA %s kernels have no couplings",
                               sim->model->name);
    if (x->part)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: a part holds the couplings "
                               "of its planes only, read plane by plane");
    const int st = host_couplings(sim, x);
    if (st < 0)
        return st;
    x->leaf->couplings_to_float(sim, x->couplings, 0, buf, x->L);
    return LATMC_OK;
}

int cuda_exec_get_coupling_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0,
                                  int64_t p1, float *buf)
{
    /* a sim of the whole lattice: LATMC_EUNSUPPORTED, no message (the core reads them
     * whole) */
    if ((!x->couplings && !x->drawn) || !x->part)
        return LATMC_EUNSUPPORTED;
    const int64_t k0 = ((p0 - x->cpl_first) % x->L + x->L) % x->L;
    if (p1 <= p0 || k0 + (p1 - p0) > x->cpl_planes)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: the couplings of planes [%lld, "
                               "%lld) are not in the part's planes", (long long)p0,
                               (long long)p1);
    const int st = host_couplings(sim, x);
    if (st < 0)
        return st;
    x->leaf->couplings_to_float(sim, x->couplings, k0, buf, p1 - p0);
    return LATMC_OK;
}

int cuda_exec_set_couplings(const latmc_sim *sim, struct cuda_exec *x, const float *buf)
{
    const char *what = "copying the couplings to the device";
    if (!x->couplings && !x->drawn)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA %s kernels have no couplings",
                               sim->model->name);
    /* the host's planes (drawn first where the boxes drew theirs: all then overwritten) */
    int st = host_couplings(sim, x);
    if (st == LATMC_OK)
        st = cuda_exec_finish_all(x, what); /* nothing still reads the host's couplings */
    if (st < 0)
        return st;
    /* the host's planes, each from the lattice's plane it holds */
    for (int64_t k = 0; k < x->cpl_planes; k++)
        x->leaf->couplings_from_float(sim, x->couplings, k, buf,
                                      ((x->cpl_first + k) % x->L + x->L) % x->L, 1);
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) == LATMC_OK)
            st = cuda_check(x->leaf->couplings_to_box(sim, b, b->ex.stream, x->couplings,
                                                      x->cpl_first, x->cpl_planes),
                            what);
    }
    const int fin = cuda_exec_finish_all(x, what);
    return st < 0 ? st : fin;
}


/* Step `step` of sweep `sweep` on local planes [p0, p0 + planes) of box b (nothing when
 * empty). */
static cudaError_t update(const latmc_sim *sim, const struct cuda_exec *x, struct cuda_box *b,
                          cudaStream_t stream, int64_t p0, int64_t planes, uint64_t sweep,
                          const struct latmc_step *step)
{
    if (planes <= 0)
        return cudaSuccess;
    const struct cuda_box_range r = cuda_exec_range_of(x, b, p0, planes);
    return x->leaf->update(sim, &r, sweep, step, stream, b->ex.changed);
}

/* Where box b keeps the arrays a step like `step` writes: its storage, or the leaf's
 * other form (cuda_leaf.h, step_arrays). */
struct step_storage {
    char *base;
    size_t array_bytes, plane_bytes;
};

static struct step_storage storage_of(const latmc_sim *sim, const struct cuda_exec *x,
                                      const struct cuda_box *b, const struct latmc_step *step)
{
    struct step_storage s = { (char *)b->data, b->array_bytes, x->plane_bytes };
    if (x->leaf->step_arrays &&
        x->leaf->step_arrays(sim, b, step, &s.base, &s.array_bytes, &s.plane_bytes))
        return s;
    s.base = (char *)b->data;
    s.array_bytes = b->array_bytes;
    s.plane_bytes = x->plane_bytes;
    return s;
}

/* Box i's outermost own planes of arrays [a, a + count) into its neighbours' halos, on its
 * border stream: one run per neighbour of `count` rows (the arrays a pitch apart, in the
 * storage a step like `step` writes: storage_of), so a step that wrote several arrays
 * sends them in one call per neighbour (one launch on one device). */
static cudaError_t send_arrays(const latmc_sim *sim, const struct cuda_exec *x, int i, int a,
                               int count, const struct latmc_step *step)
{
    if (count <= 0)
        return cudaSuccess;
    const struct cuda_box *b = &x->box[i];
    const struct cuda_box *to[2] = { &x->box[(i + x->n - 1) % x->n], &x->box[(i + 1) % x->n] };
    /* the first `sent` own planes are the lower neighbour's upper halo next to its own
     * planes, the last `sent` the upper neighbour's lower halo next to its own */
    const int64_t h = x->halo, s = x->sent;
    const int64_t from_plane[2] = { h, h + b->ex.planes - s };
    const int64_t to_plane[2] = { to[0]->ex.planes + h, h - s };
    const struct step_storage from = storage_of(sim, x, b, step);
    struct cuda_halo_runs runs = { .from = &b->ex, .to = { &to[0]->ex, &to[1]->ex },
                                   .bytes = (size_t)s * from.plane_bytes, .rows = count,
                                   .src_pitch = from.array_bytes,
                                   .dst_pitch = { storage_of(sim, x, to[0], step).array_bytes,
                                                  storage_of(sim, x, to[1], step).array_bytes } };
    for (int k = 0; k < 2; k++) {
        const struct step_storage dst = storage_of(sim, x, to[k], step);
        runs.src[k] = from.base + (size_t)a * from.array_bytes +
                      (size_t)from_plane[k] * from.plane_bytes;
        runs.dst[k] = dst.base + (size_t)a * dst.array_bytes +
                      (size_t)to_plane[k] * dst.plane_bytes;
    }
    return x->transport[i]->send(&runs, b->ex.border_stream);
}

/* After a step: the arrays it wrote (the leaf's written_arrays or written_array, else all)
 * of box i, arrays *first .. *first + count - 1. */
static int arrays_written(const struct cuda_exec *x, int i, const struct latmc_step *step,
                          int *first)
{
    *first = 0;
    if (x->leaf->written_arrays)
        return x->leaf->written_arrays(&x->box[i], step, first);
    if (x->leaf->written_array) {
        *first = x->leaf->written_array(step);
        return 1;
    }
    return x->arrays;
}

/* Boxes with halos whose leaf keeps a second form (cuda_leaf.h, form_differs): every box
 * in the form of steps like `step`, switched with nothing in flight. */
static int forms_for(const latmc_sim *sim, struct cuda_exec *x, const struct latmc_step *step)
{
    if (x->halo == 0 || !x->leaf->form_differs)
        return LATMC_OK;
    bool differs = false;
    for (int i = 0; i < x->n; i++)
        differs = differs || x->leaf->form_differs(sim, &x->box[i], step);
    if (!differs)
        return LATMC_OK;
    const char *what = "switching the boxes' form of the configuration";
    int st = cuda_exec_finish_all(x, what);
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) == LATMC_OK)
            st = cuda_check(x->leaf->switch_form(sim, b, step, b->ex.stream), what);
    }
    const int fin = cuda_exec_finish_all(x, what);
    return st < 0 ? st : fin;
}

/* After box i's border planes are enqueued on its border stream: their event, the halo
 * sends of arrays first .. first + count - 1, and the sends' event. */
static cudaError_t arrays_sent(const latmc_sim *sim, const struct cuda_exec *x, int i,
                               int first, int count, const struct latmc_step *step)
{
    const struct cuda_box *b = &x->box[i];
    /* border_done: the next interior's wait (a box not split has none) */
    cudaError_t err = b->ex.split ? cudaEventRecord(b->ex.border_done, b->ex.border_stream)
                                  : cudaSuccess;
    if (err == cudaSuccess)
        err = send_arrays(sim, x, i, first, count, step);
    if (err == cudaSuccess)
        err = cudaEventRecord(b->ex.copies_done, b->ex.border_stream);
    return err;
}

/* The same for the arrays the step wrote. */
static cudaError_t borders_sent(const latmc_sim *sim, const struct cuda_exec *x, int i,
                                const struct latmc_step *step)
{
    int first;
    const int count = arrays_written(x, i, step, &first);
    return arrays_sent(sim, x, i, first, count, step);
}

/* Whether box b's step is one range on its border stream (its sends wait for all of it):
 * a box of one device's boxes (not split: the file's comment), or a box thinner than three
 * borders. Two border launches on the one border stream run one after the other, each on a
 * fraction of the blocks, and a thin interior hides little beside them (Heisenberg at 128^3
 * on one H200, borders of a whole 32-plane chunk: 2 boxes of 64 planes 1.9x one box's time
 * a sweep, 3 of 42-43 planes 1.4x; doc/PERFORMANCE.md, "Boxes on one GPU"). */
static bool one_range(const struct cuda_exec *x, const struct cuda_box *b)
{
    return !b->ex.split || b->ex.planes < 3 * x->border;
}

/* Box b's interior of a step on its main stream (whole, or in halves: half A there, half B
 * on the half stream), each with its event. `fresh`: the first step in halves since the
 * host's wait or a whole interior (half B after the main stream's last interior too);
 * `after_halves`: a whole interior after interiors in halves (after half B's last step). */
static cudaError_t interior_of(const latmc_sim *sim, const struct cuda_exec *x,
                               struct cuda_box *b, uint64_t sweep, const struct latmc_step *step,
                               bool halved, bool fresh, bool after_halves)
{
    const int64_t h = x->halo, nb = x->border, planes = b->ex.planes;
    cudaError_t err = cudaSuccess;
    if (halved) {
        const int64_t m = h + planes / 2, end = h + planes - nb;
        if (fresh)
            err = cudaStreamWaitEvent(b->ex.half_stream, b->ex.interior_done, 0);
        if (err == cudaSuccess)
            err = update(sim, x, b, b->ex.stream, h + nb, m - 1 - (h + nb), sweep, step);
        if (err == cudaSuccess)
            err = cudaEventRecord(b->ex.interior_done, b->ex.stream);
        if (err == cudaSuccess)
            err = update(sim, x, b, b->ex.half_stream, m + 1, end - (m + 1), sweep, step);
        if (err == cudaSuccess)
            err = cudaEventRecord(b->ex.half_done, b->ex.half_stream);
        return err;
    }
    if (after_halves && b->ex.half_stream)
        err = cudaStreamWaitEvent(b->ex.stream, b->ex.half_done, 0);
    if (err == cudaSuccess)
        err = update(sim, x, b, b->ex.stream, h + nb, one_range(x, b) ? 0 : planes - 2 * nb,
                     sweep, step);
    if (err == cudaSuccess)
        err = cudaEventRecord(b->ex.interior_done, b->ex.stream);
    return err;
}

/* Box b's borders of a step on its border stream (or its whole step: one_range), their
 * sends, and in halves the interior's two middle planes after them. */
static cudaError_t borders_of(const latmc_sim *sim, const struct cuda_exec *x, int i,
                              uint64_t sweep, const struct latmc_step *step, bool halved)
{
    struct cuda_box *b = &x->box[i];
    const int64_t h = x->halo, nb = x->border, planes = b->ex.planes;
    const bool one = one_range(x, b);
    cudaError_t err = update(sim, x, b, b->ex.border_stream, h, one ? planes : nb, sweep,
                             step);
    if (err == cudaSuccess && !one)
        err = update(sim, x, b, b->ex.border_stream, h + planes - nb, nb, sweep, step);
    if (err == cudaSuccess)
        err = borders_sent(sim, x, i, step);
    if (err == cudaSuccess && halved && !one)
        err = update(sim, x, b, b->ex.border_stream, h + planes / 2 - 1, 2, sweep, step);
    if (err == cudaSuccess && halved && !one) /* the borders and the middle: the next wait */
        err = cudaEventRecord(b->ex.border_done, b->ex.border_stream);
    return err;
}

/* One step on k > 1 boxes, or a part's box (the file's comment, 1 and 2): every split box's
 * interior first, then every box's borders and sends. An interior waits for its box's last
 * borders only (cuda_box_exec_order_step), not for this step's, so it goes first: the host
 * enqueues the boxes in turn, and the last device's interior then starts after the others'
 * interiors are enqueued instead of after their whole steps (a call's start: four H200, 3D
 * 1024^3 a GPU, doc/PERFORMANCE.md "Several GPUs"). In halves (x->halves and the leaf's
 * halves) the interior runs as launch_halves runs a box alone's: half A on the main stream,
 * half B on the half stream, the two middle planes on the border stream after the sends. */
static int launch_boxes(const latmc_sim *sim, struct cuda_exec *x, uint64_t sweep,
                        const struct latmc_step *step)
{
    const bool halved = x->halves && x->leaf->halves(sim, &x->box[0], step);
    const bool fresh = !x->box[0].ex.recorded || x->half_kind != (int)step->kind;
    const bool after_halves = !halved && x->box[0].ex.recorded && x->half_kind >= 0;
    x->half_kind = halved ? (int)step->kind : -1;
    int st = cuda_box_exec_order_step(&x->box[0].ex, sizeof *x->box, x->n,
                                       "ordering a step after the previous one");
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if (b->ex.split && (st = cuda_box_set_device(b->ex.device)) == LATMC_OK)
            st = cuda_check(interior_of(sim, x, b, sweep, step, halved && !one_range(x, b),
                                        fresh, after_halves),
                            "launching a step's interior on a box");
    }
    for (int i = 0; i < x->n && st == LATMC_OK; i++)
        if ((st = cuda_box_set_device(x->box[i].ex.device)) == LATMC_OK)
            st = cuda_check(borders_of(sim, x, i, sweep, step, halved),
                            "launching a step's borders on a box");
    for (int i = 0; i < x->n; i++)
        x->box[i].ex.recorded = true;
    return st;
}

/* One step of a leaf whose steps read whole boxes (cuda_leaf.h, join) on k > 1 boxes:
 * every box's own planes as one range on its border stream, the leaf's join across the
 * boxes, then the events and sends of launch_boxes (the interior's event recorded on the
 * idle main stream, so that the waits of cuda_box_exec_order_step hold as they are). */
static int launch_joined(const latmc_sim *sim, struct cuda_exec *x, uint64_t sweep,
                         const struct latmc_step *step)
{
    int st = cuda_box_exec_order_step(&x->box[0].ex, sizeof *x->box, x->n,
                                       "ordering a step after the previous one");
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) == LATMC_OK)
            st = cuda_check(update(sim, x, b, b->ex.border_stream, x->halo, b->ex.planes,
                                   sweep, step),
                            "launching a step on a box");
    }
    if (st == LATMC_OK)
        st = x->leaf->join(sim, x->box, x->n, step);
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) < 0)
            break;
        cudaError_t err = borders_sent(sim, x, i, step);
        if (err == cudaSuccess && b->ex.split)
            err = cudaEventRecord(b->ex.interior_done, b->ex.stream);
        st = cuda_check(err, "launching a step on a box");
    }
    for (int i = 0; i < x->n; i++)
        x->box[i].ex.recorded = true;
    return st;
}

/* Step `step` on local planes [p0, p0 + planes) of a box alone as a range (the leaf's
 * halves), not as its whole step. */
static cudaError_t update_half(const latmc_sim *sim, const struct cuda_exec *x,
                               struct cuda_box *b, cudaStream_t stream, int64_t p0,
                               int64_t planes, uint64_t sweep, const struct latmc_step *step)
{
    if (planes <= 0)
        return cudaSuccess;
    struct cuda_box_range r = cuda_exec_range_of(x, b, p0, planes);
    r.whole = false;
    return x->leaf->update(sim, &r, sweep, step, stream, b->ex.changed);
}

/*
 * A step of a box alone in halves (x->halves, the leaf's halves for the step): its P planes
 * as half A [0, H) and half B [H, P), H = P / 2. The boundary (planes 0, H - 1, H, P - 1,
 * the halves' ends) runs on the border stream after both halves' last steps
 * (interior_done, recorded here on the main stream, and half_done), then border_done;
 * half A's interior [1, H - 1) on the main stream and half B's [H + 1, P - 1) on the half
 * stream, each after the previous step's boundary (border_done as recorded before this
 * step's), then half_done; the border stream then waits for half B and records
 * copies_done (what the counter's read and a whole step after the halves wait for). A
 * step reads the other colour of its planes and their neighbours and writes its own: the
 * boundary reads both halves' last step, each interior its own last step and the last
 * boundary's, and the next writes of what each reads come after it in the same way;
 * nothing of one half's interior is the other's. So half A's step overlaps half B's and
 * the boundary's: each launch's ramp and tail and the gaps between launches, which a step
 * of one launch leaves idle, are filled (doc/PERFORMANCE.md, "Halves").
 * The boundary alone has the border stream's high priority: the two interiors are equals.
 * tools/halves_order_check.py writes this order (and launch_boxes' in halves) out and
 * checks every conflict and every wait (the 'cuda halves order' test): change both.
 */
static int launch_halves(const latmc_sim *sim, struct cuda_exec *x, uint64_t sweep,
                         const struct latmc_step *step)
{
    struct cuda_box *b = &x->box[0];
    const int64_t P = b->ex.planes, H = P / 2;
    const cudaStream_t main = b->ex.stream, side = b->ex.border_stream,
                       half = b->ex.half_stream;
    /* the box in the steps' form (a conversion, if any, before the streams part) */
    cudaError_t err = x->leaf->switch_form ? x->leaf->switch_form(sim, b, step, main)
                                           : cudaSuccess;
    if (err == cudaSuccess)
        err = cudaEventRecord(b->ex.interior_done, main);
    /* the last boundary (none yet: no wait) before each interior */
    if (err == cudaSuccess)
        err = cudaStreamWaitEvent(main, b->ex.border_done, 0);
    if (err == cudaSuccess)
        err = update_half(sim, x, b, main, 1, H - 2, sweep, step);
    /* the first step in halves since the host's wait, a whole step or a step of another
     * kind: half B after everything before it on the main stream too (switch_form may
     * have converted the box; else half B does not wait for half A's last step) */
    if (err == cudaSuccess && (!b->ex.recorded || x->half_kind != (int)step->kind))
        err = cudaStreamWaitEvent(half, b->ex.interior_done, 0);
    x->half_kind = (int)step->kind;
    if (err == cudaSuccess)
        err = cudaStreamWaitEvent(half, b->ex.border_done, 0);
    if (err == cudaSuccess)
        err = update_half(sim, x, b, half, H + 1, P - H - 2, sweep, step);
    if (err == cudaSuccess)
        err = cudaEventRecord(b->ex.half_done, half);
    /* this step's boundary after both halves' last steps */
    if (err == cudaSuccess)
        err = cudaStreamWaitEvent(side, b->ex.interior_done, 0);
    if (err == cudaSuccess)
        err = update_half(sim, x, b, side, H - 1, 2, sweep, step);
    if (err == cudaSuccess)
        err = update_half(sim, x, b, side, P - 1, 1, sweep, step);
    if (err == cudaSuccess)
        err = update_half(sim, x, b, side, 0, 1, sweep, step);
    if (err == cudaSuccess)
        err = cudaEventRecord(b->ex.border_done, side);
    if (err == cudaSuccess)
        err = cudaStreamWaitEvent(side, b->ex.half_done, 0);
    if (err == cudaSuccess)
        err = cudaEventRecord(b->ex.copies_done, side);
    b->ex.recorded = true;
    return cuda_check(err, "launching a step in halves");
}

/* A box alone's whole step or chain on its main stream: after the border stream's work
 * where a step in halves ran since the last wait. */
static cudaError_t wait_after_halves(struct cuda_exec *x, struct cuda_box *b)
{
    x->half_kind = -1;
    return b->ex.recorded ? cudaStreamWaitEvent(b->ex.stream, b->ex.copies_done, 0)
                          : cudaSuccess;
}

/* One step: one launch on the one box's main stream (after the border stream's work where
 * a step in halves ran since the last wait), the box's halves, or the k boxes' borders,
 * sends and interiors. */
static int launch_step(const latmc_sim *sim, struct cuda_exec *x, uint64_t sweep,
                       const struct latmc_step *step)
{
    if (x->leaf->empty_step && x->leaf->empty_step(sim, step)) {
        /* nothing launched: the leaf sees the step, the events keep naming the last one */
        int st = LATMC_OK;
        for (int i = 0; i < x->n && st == LATMC_OK; i++) {
            struct cuda_box *b = &x->box[i];
            st = cuda_check(update(sim, x, b, b->ex.stream, x->halo, b->ex.planes, sweep, step),
                            "launching a step");
        }
        return st;
    }
    if (x->halo > 0 && x->leaf->join) /* k boxes of whole-box steps, or a part's box */
        return launch_joined(sim, x, sweep, step);
    if (x->halo > 0) /* k boxes, or a part's box: borders, sends, interior */
        return launch_boxes(sim, x, sweep, step);
    struct cuda_box *b = &x->box[0];
    if (x->halves && x->leaf->halves(sim, b, step))
        return launch_halves(sim, x, sweep, step);
    cudaError_t err = wait_after_halves(x, b);
    if (err == cudaSuccess)
        err = update(sim, x, b, b->ex.stream, 0, b->ex.planes, sweep, step);
    return cuda_check(err, "launching a step");
}

/* How many of the n calls from `calls` run as one chain (cuda_leaf.h, chain): a box
 * alone not in halves, as many as the leaf takes, of whole steps up to the list's last (< 2:
 * none). */
static int chain_length(const latmc_sim *sim, struct cuda_exec *x,
                        const struct latmc_step_call *calls, int n)
{
    struct cuda_box *b = &x->box[0];
    if (!x->leaf->chain_steps || x->halo > 0 || x->n != 1 ||
        (x->halves && x->leaf->halves(sim, b, &calls[0].step)))
        return 0;
    const int k = x->leaf->chain_steps(sim, b, calls, n);
    int whole = 0; /* up to the list's last call (the host's wait) */
    while (whole < k && calls[whole].n_boxes == 1 && calls[whole].part == LATMC_STEP_WHOLE)
        if (calls[whole++].last)
            break;
    return whole > 1 ? whole : 0;
}

/* Steps calls[0 .. k) of a box alone as one chain on its main stream (after the border
 * stream's work where a step in halves ran since the last wait, as launch_step). */
static int launch_chain(const latmc_sim *sim, struct cuda_exec *x,
                        const struct latmc_step_call *calls, int k)
{
    struct cuda_box *b = &x->box[0];
    cudaError_t err = wait_after_halves(x, b);
    if (err == cudaSuccess)
        err = x->leaf->chain(sim, b, calls, k, b->ex.stream, b->ex.changed);
    return cuda_check(err, "launching a chain of steps");
}

int cuda_exec_run_steps(const latmc_sim *sim, struct cuda_exec *x,
                        const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                        uint64_t *attempted)
{
    int st = cuda_box_set_device(x->box[0].ex.device);
    if (st == LATMC_OK && x->leaf->check_steps)
        st = x->leaf->check_steps(sim, &x->box[0]);
    const uint64_t per_sweep = x->leaf->attempted ? x->leaf->attempted(sim, x->own_sites)
                                                  : (uint64_t)x->own_sites;
    for (int c = 0; c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *call = &calls[c];
        if (call->n_boxes != x->n || call->part != LATMC_STEP_WHOLE)
            return cuda_core->fail(LATMC_EBACKEND, "CUDA executor: a step call with %d boxes "
                                   "(the sim has %d), part %d (a bug in the core)",
                                   call->n_boxes, x->n, call->part);
        if (call->step.kind == LATMC_STEP_COLOUR_BITSLICED &&
            !(x->leaf->bitsliced && x->leaf->bitsliced(sim))) {
            st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: the bit-sliced Ising decisions "
                                 "(decisions = 1) run on the boxes of one process only, of a "
                                 "lattice with L_x a multiple of 16 (one box, uniform "
                                 "couplings) or of 64 (+-J couplings, several boxes)");
            break;
        }
        const int chained = chain_length(sim, x, call, n_calls - c);
        if ((st = forms_for(sim, x, &call->step)) < 0 ||
            (st = chained ? launch_chain(sim, x, call, chained)
                          : launch_step(sim, x, call->sweep, &call->step)) < 0)
            break;
        for (int i = 0; i < (chained ? chained : 1); i++)
            if (call[i].step.index == 0)
                *attempted += per_sweep;
        if (chained) { /* its last call: the read below where it ends the list */
            c += chained - 1;
            call = &calls[c];
        }
        if (call->last) /* the one host wait of a latmc_sim_sweep call */
            st = cuda_box_exec_read_counts(&x->box[0].ex, sizeof *x->box, x->n,
                                            "reading the update counter", accepted);
        for (int i = 0; call->last && x->leaf->read_attempted && i < x->n && st == LATMC_OK; i++)
            if ((st = cuda_box_set_device(x->box[i].ex.device)) == LATMC_OK)
                st = x->leaf->read_attempted(sim, &x->box[i], attempted);
    }
    if (st < 0)
        cuda_box_exec_drain(&x->box[0].ex, sizeof *x->box, x->n);
    return st;
}

int cuda_exec_view(const latmc_sim *sim, struct cuda_exec *x, const void **data, int *dtype)
{
    if (x->n > 1 || x->part)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "latmc_sim_device_view: the sim is spread "
                               "over %d boxes (desc.n_devices / n_parts, or the parts of "
                               "processes), which no single device array holds; copy the "
                               "spins with latmc_sim_get_spins()", sim->plan->n_boxes);
    if (!x->leaf->view_dtype)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "latmc_sim_device_view: the CUDA %s "
                               "kernels keep a layout that no strided array expresses; copy "
                               "the spins with latmc_sim_get_spins()", sim->model->name);
    struct cuda_box *b = &x->box[0];
    void *view = b->data;
    int st = cuda_box_set_device(b->ex.device);
    if (st == LATMC_OK && x->leaf->view)
        st = cuda_check(x->leaf->view(sim, b, b->ex.stream, &view),
                        "making the spins current for a device view");
    *data = view;
    *dtype = x->leaf->view_dtype;
    const int fin = cuda_exec_finish_all(x, "making the spins current for a device view");
    return st < 0 ? st : fin;
}

int cuda_exec_view_components(const struct cuda_exec *x)
{
    return x->leaf->view_components > 1 ? x->leaf->view_components : 1;
}

bool cuda_exec_can_swap_tables(const struct cuda_exec *a, const struct cuda_exec *b)
{
    return a->n == 1 && b->n == 1 && !a->part && !b->part &&
           a->box[0].ex.device == b->box[0].ex.device && a->leaf == b->leaf;
}

int cuda_exec_swap_tables(const latmc_sim *sa, struct cuda_exec *a, const latmc_sim *sb,
                          struct cuda_exec *b)
{
    if (!cuda_exec_can_swap_tables(a, b))
        return LATMC_EUNSUPPORTED;
    void *t = a->box[0].tables;
    a->box[0].tables = b->box[0].tables;
    b->box[0].tables = t;
    /* the core swapped the sims' tables: the host-side forms follow them */
    if (a->leaf->params_changed) {
        a->leaf->params_changed(sa, &a->box[0]);
        b->leaf->params_changed(sb, &b->box[0]);
    }
    return LATMC_OK;
}

int cuda_exec_own_steps(const latmc_sim *sim, const struct cuda_exec *x)
{
    return x->leaf->own_steps ? x->leaf->own_steps(sim, &x->box[0]) : 0;
}

struct cuda_box *cuda_exec_lone_box(struct cuda_exec *x, const struct cuda_leaf **leaf)
{
    *leaf = x->leaf;
    return x->n == 1 && x->halo == 0 && !x->part ? &x->box[0] : NULL;
}

struct cuda_box *cuda_exec_boxes(struct cuda_exec *x, int *n, const struct cuda_leaf **leaf)
{
    *leaf = x->leaf;
    *n = x->n;
    return x->n > 1 && x->halo > 0 && !x->part ? x->box : NULL;
}

int cuda_exec_resend_halos(const latmc_sim *sim, struct cuda_exec *x)
{
    const struct latmc_step none = { 0 }; /* no step's own storage (storage_of) */
    int st = LATMC_OK;
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) < 0)
            break;
        int first = 0, count = x->arrays;
        if (x->leaf->wire_arrays) {
            int64_t p0 = x->halo; /* not read: the own planes' runs are send_arrays' */
            count = x->leaf->wire_arrays(b, &p0, x->sent, true, &first);
        }
        cudaError_t err = arrays_sent(sim, x, i, first, count, &none);
        if (err == cudaSuccess)
            err = cudaEventRecord(b->ex.interior_done, b->ex.border_stream);
        st = cuda_check(err, "sending the boxes' halos after a cluster step");
        b->ex.recorded = true;
    }
    /* each main stream after its own box's work and its neighbours' sends into its halos
     * (a measurement reads them) */
    for (int i = 0; i < x->n && st == LATMC_OK; i++) {
        struct cuda_box *b = &x->box[i];
        if ((st = cuda_box_set_device(b->ex.device)) < 0)
            break;
        cudaError_t err = cudaSuccess;
        for (int d = -1; d <= 1 && err == cudaSuccess; d++)
            err = cudaStreamWaitEvent(b->ex.stream, x->box[(i + x->n + d) % x->n].ex.copies_done,
                                      0);
        st = cuda_check(err, "ordering after a cluster step on the boxes");
    }
    return st;
}

int cuda_exec_part_halo_depth(const struct cuda_exec *x)
{
    return x->part ? (int)x->sent : 0;
}
