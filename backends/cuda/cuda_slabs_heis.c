/*
 * The Heisenberg spin glass on several devices: one slab of the plan per device
 * (cuda_slabs.h; doc/cuda.md, "Several GPUs").
 *
 * A one-device pass (heisenberg_kernels.cu) updates both colours of a plane range from
 * the old configuration up to two planes beyond it (colour 0 of the neighbouring planes
 * is recomputed, as the block owning them does). So a slab holds its own planes plus
 * HALO = 2 planes on each side, of both spin buffers and of the couplings: local plane p
 * is plane origin - 2 + p (mod L) of the lattice, own planes [2, 2 + planes). Its pass
 * is the one-device pass restricted to the own planes (struct cuda_heis_geom: own0,
 * own_n, cut0 name the planes, the draws and the colouring by the lattice's coordinates),
 * so it writes the one-device floats; then the two outer own planes of every spin array
 * go to the neighbours' halos of the buffer just written.
 *
 * The schedule (lib/model_heisenberg.c) has two steps per pass (colour 0, colour 1),
 * which the slabs take as the core's pair (LATMC_STEP_CAP_PAIR, as one device does):
 * the interior part launches the pass, the border part sends its halos. A pass
 * over a plane range writes exactly what the whole pass writes there (each block
 * recomputes the colour-0 spins it needs from the old ones), so a slab of more than two
 * border ranges' planes (border_planes: a kernel chunk, at least HALO) runs its pass as
 * three launches: the border ranges at each end on the border stream (high priority),
 * then the HALO outer planes' copies out on that stream, while the main stream updates
 * the interior planes, which read no halo. What each stream waits for before the next
 * pass: launch_pass says. Thinner slabs run one launch on the border stream.
 *
 * Couplings: drawn on the host as on one device, kept there (get_couplings), and every
 * slab gets its local planes with halos. Hot start and set_spins fill the local planes
 * with halos from the whole lattice's host copy, so no exchange is needed after them.
 * Observables: every slab's sums per plane (the one-device chunks), added on the host in
 * plane order with the model's add_sums: the one-device total bit for bit.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_slab_exec.h"
#include "cuda_slabs.h"
#include "heisenberg.h"
#include "heisenberg_cuda.h"
#include "heisenberg_rules.h"
#include "model.h"
#include "plan.h"

#define HALO 2
#define NSUMS 13

struct heis_slab {
    /* ex.stream: the interior and everything outside the passes; ex.border_stream (high
     * priority): the border planes and their copies out (no copy stream); ex.border_done:
     * the last pass's borders and their copies out; ex.interior_done: its interior;
     * ex.recorded: the events name this slab's previous pass; ex.changed: heat-bath
     * updates; ex.split: more than two border ranges' planes, borders + interior */
    struct cuda_slab_exec ex;
    int64_t n_local;                /* sites of the local lattice (own + 2 HALO planes) */
    float *buf[2];                  /* spins, SoA over the local lattice */
    float *J;                       /* couplings, SoA over the local lattice */
    double *partials, *plane_sums;
    long long nchunks;              /* the reduction's chunks of the own planes */
    /* [range][heat bath?]: range 0 the lower border (all own planes when !split), 1 the
     * upper border, 2 the interior */
    struct cuda_heis_geom geom[3][2];
    struct cuda_heis_geom mgeom;    /* the reduction over the own planes */
};

struct cuda_heis_slabs {
    int n;
    struct heis_slab *slab;
    int cur;                        /* the buffer holding the configuration (all slabs) */
    int ndim, nrep;
    int64_t plane_sites, L;         /* sites per plane; planes of the last axis */
    long long rows_per_chunk;
    float *J_host;                  /* the couplings of the whole lattice (API layout) */
};

static void free_arrays(struct cuda_slab_exec *ex)
{
    struct heis_slab *sl = (struct heis_slab *)ex; /* its first member */
    cudaFree(sl->buf[0]);
    cudaFree(sl->buf[1]);
    cudaFree(sl->J);
    cudaFree(sl->partials);
    cudaFree(sl->plane_sums);
}

void cuda_heis_slabs_destroy(struct cuda_heis_slabs *hs)
{
    if (!hs)
        return;
    if (hs->slab)
        cuda_slab_exec_release_all(&hs->slab[0].ex, sizeof *hs->slab, hs->n, free_arrays);
    free(hs->slab);
    free(hs->J_host);
    free(hs);
}

/* Wait for every slab's streams; the first failure is reported. */
static int finish_all(struct cuda_heis_slabs *hs, const char *what)
{
    return cuda_slab_exec_finish_all(&hs->slab[0].ex, sizeof *hs->slab, hs->n, what);
}

/* The local planes (halos included) of `blocks` blocks of the whole lattice's AoS data
 * `whole` (m floats per site) into `local` (the same layout over the local lattice). */
static void gather_local(const struct cuda_heis_slabs *hs, const struct heis_slab *sl,
                         float *local, const float *whole, int m, int blocks)
{
    const int64_t N = hs->plane_sites * hs->L;
    const size_t plane = (size_t)hs->plane_sites * (size_t)m;
    for (int b = 0; b < blocks; b++)
        for (int64_t p = 0; p < sl->ex.planes + 2 * HALO; p++) {
            const int64_t g = ((sl->ex.origin - HALO + p) % hs->L + hs->L) % hs->L;
            memcpy(local + ((size_t)b * (size_t)sl->n_local + (size_t)(p * hs->plane_sites)) *
                               (size_t)m,
                   whole + ((size_t)b * (size_t)N + (size_t)(g * hs->plane_sites)) * (size_t)m,
                   plane * sizeof(float));
        }
}

/*
 * Whole-lattice AoS host data into every slab's SoA array (the spins' buf[cur] when
 * spins != 0, else the couplings), halos included, through the spare spin buffer.
 */
static int upload_all(struct cuda_heis_slabs *hs, const float *whole, int spins)
{
    const int m = spins ? LATMC_HEISENBERG_COMPONENTS : hs->ndim;
    const int blocks = spins ? hs->nrep : 1;
    int st = finish_all(hs, "writing to the slabs");
    for (int i = 0; i < hs->n && st == LATMC_OK; i++) {
        struct heis_slab *sl = &hs->slab[i];
        const size_t floats = (size_t)sl->n_local * (size_t)m * (size_t)blocks;
        float *local = malloc(floats * sizeof *local);
        if (!local)
            return cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate %zu bytes "
                                   "of host memory for a slab", floats * sizeof *local);
        gather_local(hs, sl, local, whole, m, blocks);
        float *staging = sl->buf[1 - hs->cur];
        float *to = spins ? sl->buf[hs->cur] : sl->J;
        if ((st = cuda_slab_set_device(sl->ex.device)) == LATMC_OK &&
            (st = cuda_check(cudaMemcpyAsync(staging, local, floats * sizeof *local,
                                             cudaMemcpyHostToDevice, sl->ex.stream),
                             "copying to a slab")) == LATMC_OK &&
            (st = cuda_check(cuda_heis_aos_to_soa(sl->ex.stream, to, staging, sl->n_local, m,
                                                  blocks), "converting a slab's layout")) ==
                LATMC_OK)
            st = cuda_check(cudaStreamSynchronize(sl->ex.stream), "copying to a slab");
        free(local);
    }
    return st;
}

/*
 * Planes of each border range: a block of the pass kernel streams through a chunk of zc
 * planes (3D; 2D: a tile of ty rows) and recomputes colour 0 of the planes next to it, a
 * cost per chunk whatever its size. Borders of HALO = 2 planes added two chunks per slab
 * to the one-device count (at 128^3 on one H200, two slabs ran 10 % slower than one box
 * with the copies off); borders of a whole chunk keep the count: a slab of 2 zc planes
 * then runs as one range, like the one-device pass over those planes. At least HALO
 * (what the neighbours need; the interior then reads no halo), and the widest chunk of
 * the two passes' geometries.
 */
static int border_planes(const struct cuda_heis_geom g[2])
{
    int w = HALO;
    for (int hb = 0; hb < 2; hb++) {
        const int unit = g[hb].ndim == 3 ? g[hb].zc : g[hb].ty;
        w = unit > w ? unit : w;
    }
    return w;
}

int cuda_heis_slabs_create(const latmc_sim *sim, struct cuda_heis_slabs **out)
{
    const latmc_sim_desc *d = &sim->desc;
    const struct latmc_plan *plan = sim->plan;
    struct cuda_heis_slabs *hs = calloc(1, sizeof *hs);
    if (!hs || !(hs->slab = calloc((size_t)plan->n_boxes, sizeof *hs->slab))) {
        free(hs);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the slabs' state");
    }
    hs->n = plan->n_boxes;
    hs->ndim = d->ndim;
    hs->nrep = d->replicas;
    hs->L = d->extent[d->ndim - 1];
    hs->plane_sites = d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
    /* the one-device reduction's chunks (lib/heisenberg.h) */
    const long long rows_per_plane = d->ndim == 3 ? d->extent[1] : 1;
    hs->rows_per_chunk = latmc_heisenberg_rows_per_chunk(d->extent[0], rows_per_plane);
    const int axis = d->ndim - 1;
    int st = LATMC_OK;
    for (int i = 0; i < hs->n && st == LATMC_OK; i++) {
        struct heis_slab *sl = &hs->slab[i];
        sl->ex.device = cuda_slab_device_of(d, i);
        sl->ex.origin = plan->boxes[i].origin[axis];
        sl->ex.planes = plan->boxes[i].extent[axis];
        sl->n_local = hs->plane_sites * (sl->ex.planes + 2 * HALO);
        sl->nchunks = (long long)sl->ex.planes * rows_per_plane / hs->rows_per_chunk;
        const size_t spin_bytes = (size_t)sl->n_local * 3u * (size_t)hs->nrep * sizeof(float);
        const int local_planes = (int)(sl->ex.planes + 2 * HALO);
        if ((st = cuda_slab_exec_create(&sl->ex)) < 0 ||
            (st = cuda_heis_slab_geometry(sim, 0, local_planes, HALO, (int)sl->ex.planes,
                                          (int)(sl->ex.origin - HALO), &sl->geom[0][0])) < 0 ||
            (st = cuda_heis_slab_geometry(sim, 1, local_planes, HALO, (int)sl->ex.planes,
                                          (int)(sl->ex.origin - HALO), &sl->geom[0][1])) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->buf[0], spin_bytes, sl->ex.device,
                                     "spins")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->buf[1], spin_bytes, sl->ex.device,
                                     "spins")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->J, (size_t)sl->n_local * (size_t)hs->ndim *
                                     sizeof(float), sl->ex.device, "couplings")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->partials, (size_t)sl->nchunks * NSUMS *
                                     sizeof(double), sl->ex.device, "partial sums")) < 0 ||
            (st = cuda_slab_alloc_on((void **)&sl->plane_sums, (size_t)sl->ex.planes * NSUMS *
                                     sizeof(double), sl->ex.device, "sums per plane")) < 0)
            break;
        /* the reduction reads the own planes and the next one (the forward bonds of the
         * last own plane), never wrapping: a lattice of planes + 1 planes along the last
         * axis with the local stride, its pointers at the first own plane */
        sl->mgeom = sl->geom[0][0];
        if (d->ndim == 3)
            sl->mgeom.lz = (int)sl->ex.planes + 1;
        else
            sl->mgeom.ly = (int)sl->ex.planes + 1;
        sl->mgeom.n = sl->n_local;
        /* the pass's plane ranges: own planes [HALO, HALO + planes); borders of w planes
         * at each end, then the interior */
        const int w = border_planes(sl->geom[0]);
        sl->ex.split = sl->ex.planes > 2 * w;
        for (int hb = 0; hb < 2 && sl->ex.split; hb++) {
            sl->geom[1][hb] = sl->geom[2][hb] = sl->geom[0][hb];
            cuda_heis_geom_range(&sl->geom[0][hb], HALO, w);
            cuda_heis_geom_range(&sl->geom[1][hb], HALO + (int)sl->ex.planes - w, w);
            cuda_heis_geom_range(&sl->geom[2][hb], HALO + w, (int)sl->ex.planes - 2 * w);
        }
        /* members past the replicas stay zero */
        st = cuda_check(cudaMemsetAsync(sl->plane_sums, 0, (size_t)sl->ex.planes * NSUMS *
                                        sizeof(double), sl->ex.stream), "clearing the sums");
    }
    if (st == LATMC_OK)
        st = finish_all(hs, "creating the slabs");
    const int64_t nc = sim->nsites * (int64_t)d->ndim;
    if (st == LATMC_OK && !(hs->J_host = malloc((size_t)nc * sizeof(float))))
        st = cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate %zu bytes of host "
                             "memory for the couplings", (size_t)nc * sizeof(float));
    if (st == LATMC_OK) {
        st = cuda_core->draw_couplings(hs->J_host, 1, d->couplings, 0, nc, d->coupling_seed,
                                       d->n_threads);
        if (st == LATMC_OK)
            st = upload_all(hs, hs->J_host, 0);
    }
    if (st < 0) {
        cuda_heis_slabs_destroy(hs);
        return st;
    }
    *out = hs;
    return LATMC_OK;
}

int cuda_heis_slabs_init_spins(const latmc_sim *sim, struct cuda_heis_slabs *hs, int how)
{
    if (how == LATMC_INIT_COLD) {
        int st = finish_all(hs, "cold start");
        for (int i = 0; i < hs->n && st == LATMC_OK; i++) {
            struct heis_slab *sl = &hs->slab[i];
            if ((st = cuda_slab_set_device(sl->ex.device)) == LATMC_OK)
                st = cuda_check(cuda_heis_cold_start(sl->ex.stream, sl->buf[hs->cur], sl->n_local,
                                                     hs->nrep), "cold start");
        }
        return st < 0 ? st : finish_all(hs, "cold start");
    }
    /* the one-device hot start's draws (cuda_heisenberg.c, heis_hot_start) */
    const int64_t n = sim->nsites;
    const size_t floats = (size_t)n * LATMC_HEISENBERG_COMPONENTS * (size_t)hs->nrep;
    float *host = malloc(floats * sizeof *host);
    if (!host)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate %zu bytes of "
                               "host memory for the hot start", floats * sizeof *host);
    for (int r = 0; r < hs->nrep; r++) {
        float *spins = host + (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)n * (size_t)r;
        for (int64_t b = 0; b < (n + 3) / 4; b++)
            latmc_heisenberg_hot_block(spins, n, sim->desc.seed, (uint32_t)r, b);
    }
    const int st = upload_all(hs, host, 1);
    free(host);
    return st;
}

int cuda_heis_slabs_set_spins(const latmc_sim *sim, struct cuda_heis_slabs *hs,
                              const void *buf)
{
    (void)sim;
    return upload_all(hs, buf, 1);
}

int cuda_heis_slabs_get_spins(const latmc_sim *sim, struct cuda_heis_slabs *hs, void *buf)
{
    const int64_t N = sim->nsites;
    const int m = LATMC_HEISENBERG_COMPONENTS;
    int st = finish_all(hs, "copying the spins to the host");
    for (int i = 0; i < hs->n && st == LATMC_OK; i++) {
        struct heis_slab *sl = &hs->slab[i];
        const size_t floats = (size_t)sl->n_local * (size_t)m * (size_t)hs->nrep;
        float *local = malloc(floats * sizeof *local);
        if (!local)
            return cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate %zu bytes "
                                   "of host memory for a slab", floats * sizeof *local);
        float *staging = sl->buf[1 - hs->cur];
        if ((st = cuda_slab_set_device(sl->ex.device)) == LATMC_OK &&
            (st = cuda_check(cuda_heis_soa_to_aos(sl->ex.stream, staging, sl->buf[hs->cur],
                                                  sl->n_local, m, hs->nrep),
                             "converting a slab's layout")) == LATMC_OK &&
            (st = cuda_check(cudaMemcpyAsync(local, staging, floats * sizeof *local,
                                             cudaMemcpyDeviceToHost, sl->ex.stream),
                             "copying the spins to the host")) == LATMC_OK &&
            (st = cuda_check(cudaStreamSynchronize(sl->ex.stream),
                             "copying the spins to the host")) == LATMC_OK) {
            const size_t own = (size_t)(sl->ex.planes * hs->plane_sites) * (size_t)m;
            for (int r = 0; r < hs->nrep; r++)
                memcpy((float *)buf + ((size_t)r * (size_t)N +
                                       (size_t)(sl->ex.origin * hs->plane_sites)) * (size_t)m,
                       local + ((size_t)r * (size_t)sl->n_local +
                                (size_t)(HALO * hs->plane_sites)) * (size_t)m,
                       own * sizeof(float));
        }
        free(local);
    }
    return st;
}

int cuda_heis_slabs_get_couplings(const latmc_sim *sim, struct cuda_heis_slabs *hs, float *buf)
{
    memcpy(buf, hs->J_host, (size_t)sim->nsites * (size_t)hs->ndim * sizeof(float));
    return LATMC_OK;
}

int cuda_heis_slabs_set_couplings(const latmc_sim *sim, struct cuda_heis_slabs *hs,
                                  const float *buf)
{
    memcpy(hs->J_host, buf, (size_t)sim->nsites * (size_t)hs->ndim * sizeof(float));
    return upload_all(hs, hs->J_host, 0);
}

/* Enqueue on src's border stream the copy of every spin array's local planes
 * [p_src, p_src + n) of src's buffer b into dst's local planes [p_dst, ...) of its buffer
 * b (src's device current): the 3 x nrep arrays, n_local floats apart, as one strided
 * copy. */
static cudaError_t copy_planes(const struct cuda_heis_slabs *hs, const struct heis_slab *src,
                               int64_t p_src, const struct heis_slab *dst, int64_t p_dst,
                               int64_t n, int b)
{
    const size_t bytes = (size_t)(n * hs->plane_sites) * sizeof(float);
    const float *from = src->buf[b] + (size_t)(p_src * hs->plane_sites);
    float *to = dst->buf[b] + (size_t)(p_dst * hs->plane_sites);
    return cuda_slab_copy_runs_to(&src->ex, from, (size_t)src->n_local * sizeof(float),
                                  &dst->ex, to, (size_t)dst->n_local * sizeof(float), bytes,
                                  (size_t)(3 * hs->nrep), src->ex.border_stream);
}

/* Slab i's outer own planes of buffer b into its neighbours' halos of buffer b: the first
 * HALO own planes are the lower neighbour's upper halo, the last HALO the upper
 * neighbour's lower halo (slabs have at least HALO planes: the plan's plane multiple). */
static cudaError_t send_halos(const struct cuda_heis_slabs *hs, int i, int b)
{
    const struct heis_slab *sl = &hs->slab[i];
    const struct heis_slab *lo = &hs->slab[(i + hs->n - 1) % hs->n];
    const struct heis_slab *hi = &hs->slab[(i + 1) % hs->n];
    cudaError_t err = copy_planes(hs, sl, HALO, lo, HALO + lo->ex.planes, HALO, b);
    if (err == cudaSuccess)
        err = copy_planes(hs, sl, HALO + sl->ex.planes - HALO, hi, 0, HALO, b);
    return err;
}

/*
 * The launches of one pass on every slab (the first part of the core's pair): the border
 * ranges on the border stream, the interior on the main stream. What each stream of a
 * slab waits for, from the previous pass (all waits are enqueued before any event is
 * recorded again):
 *   border_stream: this slab's previous interior (the border ranges read the two planes
 *     next to them, and write the buffer the previous interior read), and both
 *     neighbours' previous copies (into this slab's halos; recorded after the
 *     neighbours' previous borders, which read their halos that this slab's copies now
 *     overwrite). Its own previous borders and copies: in order.
 *   stream (interior): this slab's previous borders, not their copies (read as the
 *     interior's edges, and they read the planes the interior now writes). The interior
 *     reads no halo, and no copy writes its planes.
 */
static int launch_pass(const latmc_sim *sim, struct cuda_heis_slabs *hs,
                       const struct latmc_step *step, int heatbath)
{
    const struct latmc_heisenberg_params *p = sim->model_data;
    const int dbl = sim->desc.precision == LATMC_PRECISION_DOUBLE;
    const int hb = heatbath != 0;
    int st = cuda_slab_exec_order_step(&hs->slab[0].ex, sizeof *hs->slab, hs->n,
                                       "ordering a pass after the previous one");
    for (int i = 0; i < hs->n && st == LATMC_OK; i++) {
        struct heis_slab *sl = &hs->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        struct cuda_heis_pass_args a;
        memset(&a, 0, sizeof a);
        a.src = sl->buf[hs->cur];
        a.dst = sl->buf[1 - hs->cur];
        a.J = sl->J;
        a.beta = p->beta;
        a.h = p->h;
        a.seed = sim->desc.seed;
        a.rng = step->rng;
        a.count = sl->ex.changed;
        cudaError_t err = cuda_heis_pass(sl->ex.border_stream, &sl->geom[0][hb], &a, dbl,
                                         heatbath);
        if (err == cudaSuccess && sl->ex.split)
            err = cuda_heis_pass(sl->ex.border_stream, &sl->geom[1][hb], &a, dbl, heatbath);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.border_done, sl->ex.border_stream);
        if (err == cudaSuccess && sl->ex.split)
            err = cuda_heis_pass(sl->ex.stream, &sl->geom[2][hb], &a, dbl, heatbath);
        if (err == cudaSuccess && sl->ex.split)
            err = cudaEventRecord(sl->ex.interior_done, sl->ex.stream);
        st = cuda_check(err, "launching a pass on a slab");
    }
    return st;
}

/* The rest of the pair: every slab's outer own planes of the buffer just written into
 * its neighbours' halos, on the border stream after the border ranges; then the pass's
 * events name it, and that buffer holds the configuration. */
static int exchange_pass(struct cuda_heis_slabs *hs)
{
    int st = LATMC_OK;
    for (int i = 0; i < hs->n && st == LATMC_OK; i++) {
        struct heis_slab *sl = &hs->slab[i];
        if ((st = cuda_slab_set_device(sl->ex.device)) < 0)
            break;
        cudaError_t err = send_halos(hs, i, 1 - hs->cur);
        if (err == cudaSuccess)
            err = cudaEventRecord(sl->ex.copies_done, sl->ex.border_stream);
        st = cuda_check(err, "sending a slab's halos");
    }
    if (st < 0)
        return st;
    for (int i = 0; i < hs->n; i++)
        hs->slab[i].ex.recorded = true;
    hs->cur = 1 - hs->cur;
    return LATMC_OK;
}

/*
 * The schedule (lib/model_heisenberg.c) has two steps per pass (colour 0, colour 1), and
 * the slabs, like one device, declare LATMC_STEP_CAP_PAIR (cuda_slabs_step_caps): the core
 * hands each pass as the pair (PAIR_INTERIOR, PAIR_BORDER) of its colour-0 step. The
 * interior part is the pass's launches: both colours of every own plane, the colour-1
 * sites of the outer planes from colour 0 of the halo planes recomputed by the kernel
 * (which is why the halo is 2 planes); the border part is what the neighbours need of
 * the pair before the next one, the exchange of the outer own planes.
 */
int cuda_heis_slabs_run_step(const latmc_sim *sim, struct cuda_heis_slabs *hs,
                             const struct latmc_step_call *call, uint64_t *accepted,
                             uint64_t *attempted)
{
    const int heatbath = call->step.kind == LATMC_STEP_COLOUR;
    if (call->step.colour != 0 ||
        (call->part != LATMC_STEP_PAIR_INTERIOR && call->part != LATMC_STEP_PAIR_BORDER))
        return cuda_core->fail(LATMC_EBACKEND, "CUDA Heisenberg slabs: step %d, part %d is "
                               "not a pair of a pass's colours (a bug in the core)",
                               call->step.index, call->part);
    int st;
    if (call->part == LATMC_STEP_PAIR_INTERIOR) {
        st = launch_pass(sim, hs, &call->step, heatbath);
        if (st == LATMC_OK && heatbath)
            *attempted += (uint64_t)sim->nsites * (uint64_t)hs->nrep;
    } else {
        st = exchange_pass(hs);
    }
    if (st < 0) {
        /* the failed call's updates are not reported, now or later (as every model's
         * slabs and one GPU do) */
        cuda_slab_exec_drain(&hs->slab[0].ex, sizeof *hs->slab, hs->n);
        return st;
    }
    if (!call->last)
        return LATMC_OK;
    /* the counter (added to by both streams) after both */
    st = cuda_slab_exec_read_counts(&hs->slab[0].ex, sizeof *hs->slab, hs->n,
                                    "reading the update counter", accepted);
    if (st < 0)
        cuda_slab_exec_drain(&hs->slab[0].ex, sizeof *hs->slab, hs->n);
    return st;
}

/* Slab ex's reduction per own plane (cuda_slab_exec_measure_planes). */
static cudaError_t reduce_planes(struct cuda_slab_exec *ex, const void *ctx, double **plane_sums)
{
    const struct cuda_heis_slabs *hs = ctx;
    struct heis_slab *sl = (struct heis_slab *)ex; /* ex: its first member */
    const size_t own = (size_t)(HALO * hs->plane_sites);
    *plane_sums = sl->plane_sums;
    return cuda_heis_measure_planes(ex->stream, &sl->mgeom, sl->buf[hs->cur] + own, sl->J + own,
                                    hs->rows_per_chunk, sl->nchunks, sl->partials,
                                    sl->plane_sums);
}

int cuda_heis_slabs_measure(const latmc_sim *sim, struct cuda_heis_slabs *hs, void *sums)
{
    _Static_assert(sizeof(struct latmc_heisenberg_sums) == NSUMS * sizeof(double),
                   "struct latmc_heisenberg_sums is not 13 doubles");
    return cuda_slab_exec_measure_planes(sim, &hs->slab[0].ex, sizeof *hs->slab, hs->n, hs->L,
                                         NSUMS, reduce_planes, hs, sums);
}
