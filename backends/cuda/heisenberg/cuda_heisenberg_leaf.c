/*
 * The Heisenberg spin glass's leaf of the CUDA executor (cuda_leaf.h; doc/cuda.md,
 * "Heisenberg spin glass"). Kernels: heisenberg_kernels.cu (heisenberg_cuda.h), launch
 * geometry: cuda_heisenberg_geometry.c.
 *
 * Storage: two buffers of the configuration, each the structure of arrays of the box's
 * local planes (component c of replica r at (3 r + c) n_local + i), so the executor's
 * arrays are 3 R per buffer, buffer k's from 3 R k on (one leaf table per replica count).
 * A pass reads one buffer and writes the other (every site of its planes); `cur` names
 * the one that holds the configuration.
 *
 * Steps: the schedule has two per pass (colour 0, colour 1). The pass kernel updates
 * colour 0 of a tile and its halo from the old configuration, then colour 1 from those,
 * so the colour-0 step runs the whole pass and the colour-1 step nothing. A pass over a
 * plane range (struct cuda_heisenberg_geom: own0, own_n, cut0 name the planes, the draws and
 * the colouring by the lattice's coordinates) writes exactly what the whole pass writes
 * there, reading the old configuration up to two planes beyond the range: halo 2, and
 * every range of one step reads the buffer the step's first range read (cur flips once a
 * pass). After the colour-0 step the executor sends the written buffer's outer own planes
 * (written_arrays); the colour-1 step it neither orders nor sends (empty_step), so the
 * next pass waits for the neighbours' copies alone, not for their interiors.
 *
 * A part of a lattice shared by processes: the core's plan has halo 1 and exchanges one
 * plane per side after each step, through get_planes / put_planes. The pass's halo of two
 * travels in the two exchanges of a pass: the one after the colour-0 step carries the
 * second plane from each end into the planes two beyond the neighbours' ends, the one
 * after the colour-1 step the first (the planes the core names), so at every pass the
 * part holds the two planes beyond each end. Those planes travel between the parts as
 * the buffer's own floats (wire_arrays: one 2D copy of 3 R runs, no transposition).
 *
 * Couplings (SoA on the device, J_{i,mu} at mu n_local + i) are drawn on the device by the
 * CPU's functions (cuda_coupling_draws.h, lib/heisenberg_couplings.h), the host's copy
 * only when a read or set_couplings needs it (the core's draw_couplings); the hot start is
 * drawn on the host where it lies in the CPU's draws (lib/heisenberg_rules.h): both are
 * the CPU's floats bit for bit. Observables: the
 * sums of each plane (the CPU's chunks, lib/heisenberg.h), added in plane order by the
 * executor (measure_planes): the same doubles for every cut into boxes or parts.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_check.h"
#include "cuda_coupling_draws.h"
#include "cuda_embed.h"
#include "cuda_heisenberg_leaf.h"
#include "heisenberg.h"
#include "heisenberg_cuda.h"
#include "heisenberg_rules.h"
#include "mode_fixed.h"
#include "model.h"
#include "plan.h"

#define HALO 2   /* planes a pass reads beyond its range */
#define NSUMS 13 /* struct latmc_heisenberg_sums as doubles */
#define COMPONENTS LATMC_HEISENBERG_COMPONENTS

_Static_assert(sizeof(struct latmc_heisenberg_sums) == NSUMS * sizeof(double) &&
               offsetof(struct latmc_heisenberg_sums, mag) == sizeof(double) &&
               offsetof(struct latmc_heisenberg_sums, overlap) == 4 * sizeof(double),
               "struct latmc_heisenberg_sums is not 13 packed doubles");

/* The leaf's state of a box (b->own). */
struct heisenberg_box {
    int nrep;
    int64_t plane_sites, n_local;   /* sites of a plane, of the local planes */
    int cur;                        /* the buffer holding the configuration */
    /* the pass in flight: from its colour-0 step's first range to its colour-1 step
     * (pass_sweep, pass_step name the colour-0 step; pass_src the buffer it reads) */
    bool in_pass;
    uint64_t pass_sweep;
    int pass_step, pass_src;
    float *J;                       /* couplings, SoA over the local planes */
    double *partials, *plane_sums;  /* the reduction's chunks and planes of the own planes */
    long long rows_per_chunk, rows_per_plane;
    struct cuda_heisenberg_geom geom[2];  /* [heat bath?] passes over the own planes */
};

static struct heisenberg_box *own_of(const struct cuda_box *b)
{
    return b->own;
}

static int64_t plane_sites_of(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
}

/* Buffer k of box b (3 nrep arrays of n_local floats). */
static float *buffer(const struct cuda_box *b, int k)
{
    const struct heisenberg_box *h = own_of(b);
    return (float *)b->data + (size_t)k * (size_t)(COMPONENTS * h->nrep) * (size_t)h->n_local;
}

float *cuda_heisenberg_member_spins(const struct cuda_box *b)
{
    return buffer(b, own_of(b)->cur);
}

const float *cuda_heisenberg_member_couplings(const struct cuda_box *b)
{
    return own_of(b)->J;
}

void cuda_heisenberg_member_buffers(const struct cuda_box *b, float **cur, float **other)
{
    *cur = buffer(b, own_of(b)->cur);
    *other = buffer(b, 1 - own_of(b)->cur);
}

const struct cuda_heisenberg_geom *cuda_heisenberg_member_geom(const struct cuda_box *b,
                                                               int heatbath)
{
    return &own_of(b)->geom[heatbath ? 1 : 0];
}

void cuda_heisenberg_member_passed(struct cuda_box *b, uint64_t passes)
{
    struct heisenberg_box *h = own_of(b);
    h->in_pass = false; /* the next step starts a pass of its own */
    h->cur ^= (int)(passes & 1u);
}

static int64_t heisenberg_halo(const latmc_sim *sim)
{
    (void)sim;
    return HALO;
}

/*
 * Planes of each border range: a block of the pass kernel streams through a chunk of zc
 * planes (3D; 2D: a tile of ty rows) and recomputes colour 0 of the planes next to it, a
 * cost per chunk whatever its size. Borders of HALO = 2 planes added two chunks per box
 * to the one-device count (at 128^3 on one H200, two boxes ran 10 % slower than one with
 * the copies off); borders of a whole chunk keep the count (borders that meet, as 128^3
 * on 2 boxes, are one launch of the executor's: two on the border stream ran one after
 * the other, 1.9x one box's time). At least HALO (what the
 * neighbours need; the interior then reads no halo), and at most half the thinnest box
 * (the executor's two border ranges of a box must not overlap).
 */
static int64_t heisenberg_border_planes(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    const int64_t L = d->extent[d->ndim - 1];
    int64_t w = HALO;
    for (int hb = 0; hb < 2; hb++) {
        struct cuda_heisenberg_geom g;
        if (cuda_heisenberg_box_geometry(sim, hb, (int)(L + 2 * HALO), HALO, (int)L, -HALO, &g) < 0)
            continue; /* refused again, with the reason, at the box's creation */
        const int64_t unit = g.ndim == 3 ? g.zc : g.ty;
        w = unit > w ? unit : w;
    }
    int64_t thinnest = L;
    for (int i = 0; i < sim->plan->n_boxes; i++) {
        const int64_t planes = sim->plan->boxes[i].extent[d->ndim - 1];
        thinnest = planes < thinnest ? planes : thinnest;
    }
    if (2 * w > thinnest)
        w = thinnest / 2 > HALO ? thinnest / 2 : HALO;
    return w;
}

static size_t heisenberg_plane_bytes(const latmc_sim *sim)
{
    return (size_t)plane_sites_of(sim) * sizeof(float);
}

static int heisenberg_written_arrays(const struct cuda_box *b, const struct latmc_step *step,
                               int *first)
{
    const struct heisenberg_box *h = own_of(b);
    *first = h->cur * COMPONENTS * h->nrep; /* flipped by the pass's first range */
    return step->colour == 0 ? COMPONENTS * h->nrep : 0;
}

static cudaError_t heisenberg_cold(const latmc_sim *sim, const struct cuda_box *b,
                             cudaStream_t stream)
{
    (void)sim;
    struct heisenberg_box *h = own_of(b);
    h->in_pass = false;
    /* both buffers, as 2 nrep replicas of the local planes */
    return cuda_heisenberg_cold_start(stream, b->data, h->n_local, 2 * h->nrep);
}

/*
 * A part's exchange inside a pass (between its colour-0 and colour-1 steps) moves the
 * second plane from each end and the plane two beyond: local plane lp of a one-plane
 * move, as the exchange names it, to the plane it carries (the file's comment).
 */
static int64_t exchanged_plane(const struct cuda_box *b, int64_t lp, int64_t planes, bool get)
{
    if (!own_of(b)->in_pass || b->halo == 0 || planes != 1)
        return lp;
    const int64_t lo = b->halo, hi = b->halo + b->ex.planes; /* own planes [lo, hi) */
    if (get)
        return lp == lo ? lo + 1 : lp == hi - 1 ? hi - 2 : lp;
    return lp == lo - 1 ? lo - 2 : lp == hi ? hi + 1 : lp;
}

/*
 * `planes` local planes from local_p0 of the configuration's buffer <-> the API's layout
 * at `host` (each replica's planes, 3 floats a site), transposed on the host through a
 * structure-of-arrays copy that crosses the bus as one 2D copy of 3 nrep runs; waited
 * for (the host copy is freed here).
 */
static cudaError_t move_planes(const struct cuda_box *b, cudaStream_t stream, float *soa,
                               int64_t local_p0, float *get, const float *put, int64_t planes)
{
    const struct heisenberg_box *h = own_of(b);
    const size_t m = (size_t)(planes * h->plane_sites), rows = (size_t)(COMPONENTS * h->nrep);
    float *tmp = malloc(m * rows * sizeof *tmp);
    if (!tmp)
        return cudaErrorMemoryAllocation;
    float *dev = soa + (size_t)(local_p0 * h->plane_sites);
    const size_t run = m * sizeof(float), pitch = (size_t)h->n_local * sizeof(float);
    /* the 2D copies take pitches below 2^31 bytes (cudaDevAttrMaxPitch on current GPUs);
     * larger boxes copy run by run */
    const bool by_runs = pitch >= ((size_t)1 << 31);
    cudaError_t err = cudaSuccess;
    if (put)
        for (int r = 0; r < h->nrep; r++)
            for (int c = 0; c < COMPONENTS; c++)
                for (size_t j = 0; j < m; j++)
                    tmp[(size_t)(COMPONENTS * r + c) * m + j] =
                        put[((size_t)r * m + j) * COMPONENTS + (size_t)c];
    for (size_t k = 0; by_runs && k < rows && err == cudaSuccess; k++)
        err = put ? cudaMemcpyAsync(dev + k * (size_t)h->n_local, tmp + k * m, run,
                                    cudaMemcpyHostToDevice, stream)
                  : cudaMemcpyAsync(tmp + k * m, dev + k * (size_t)h->n_local, run,
                                    cudaMemcpyDeviceToHost, stream);
    if (!by_runs)
        err = put ? cudaMemcpy2DAsync(dev, pitch, tmp, run, run, rows, cudaMemcpyHostToDevice,
                                      stream)
                  : cudaMemcpy2DAsync(tmp, run, dev, pitch, run, rows, cudaMemcpyDeviceToHost,
                                      stream);
    const cudaError_t fin = cudaStreamSynchronize(stream);
    if (err == cudaSuccess)
        err = fin;
    if (err == cudaSuccess && get)
        for (int r = 0; r < h->nrep; r++)
            for (int c = 0; c < COMPONENTS; c++)
                for (size_t j = 0; j < m; j++)
                    get[((size_t)r * m + j) * COMPONENTS + (size_t)c] =
                        tmp[(size_t)(COMPONENTS * r + c) * m + j];
    free(tmp);
    return err;
}

static cudaError_t heisenberg_put_planes(const latmc_sim *sim, const struct cuda_box *b,
                                   cudaStream_t stream, int64_t local_p0, const void *host,
                                   int64_t planes)
{
    (void)sim;
    return move_planes(b, stream, buffer(b, own_of(b)->cur),
                       exchanged_plane(b, local_p0, planes, false), NULL, host, planes);
}

static cudaError_t heisenberg_get_planes(const latmc_sim *sim, const struct cuda_box *b,
                                   cudaStream_t stream, int64_t local_p0, void *host,
                                   int64_t planes)
{
    (void)sim;
    return move_planes(b, stream, buffer(b, own_of(b)->cur),
                       exchanged_plane(b, local_p0, planes, true), host, NULL, planes);
}

/* The colour-1 step: its pass ran at the colour-0 step (heisenberg_update). */
static bool heisenberg_empty_step(const latmc_sim *sim, const struct latmc_step *step)
{
    (void)sim;
    return step->colour != 0;
}

/* A part's halo exchange on the wire (cuda_leaf.h): the 3 nrep arrays of the buffer
 * holding the configuration, the planes mapped as for get_planes / put_planes. */
static int heisenberg_wire_arrays(const struct cuda_box *b, int64_t *local_p0, int64_t planes,
                            bool get, int *first)
{
    const struct heisenberg_box *h = own_of(b);
    *local_p0 = exchanged_plane(b, *local_p0, planes, get);
    *first = h->cur * COMPONENTS * h->nrep;
    return COMPONENTS * h->nrep;
}

/* The hot start of the lattice's planes from global_p0: each replica's sites where they
 * lie in the CPU's draws. */
static cudaError_t heisenberg_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                   cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                   int64_t planes)
{
    struct heisenberg_box *h = own_of(b);
    h->in_pass = false;
    const int64_t m = planes * h->plane_sites, i0 = global_p0 * h->plane_sites;
    float *host = malloc((size_t)m * COMPONENTS * (size_t)h->nrep * sizeof *host);
    if (!host)
        return cudaErrorMemoryAllocation;
    for (int r = 0; r < h->nrep; r++)
        latmc_heisenberg_hot_range(host + (size_t)r * (size_t)m * COMPONENTS, i0, i0 + m,
                                   sim->desc.seed, r);
    const cudaError_t err = move_planes(b, stream, buffer(b, h->cur), local_p0, NULL, host,
                                        planes);
    free(host);
    return err;
}

static void heisenberg_box_destroy(struct cuda_box *b)
{
    struct heisenberg_box *h = own_of(b);
    if (!h)
        return;
    cudaFree(h->J);
    cudaFree(h->partials);
    cudaFree(h->plane_sums);
    free(h);
    b->own = NULL;
}

static int heisenberg_box_create(const latmc_sim *sim, struct cuda_box *b)
{
    const latmc_sim_desc *d = &sim->desc;
    struct heisenberg_box *h = calloc(1, sizeof *h);
    if (!h)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate a box's state");
    b->own = h;
    h->nrep = d->replicas;
    h->plane_sites = plane_sites_of(sim);
    const int64_t local = b->ex.planes + 2 * b->halo;
    h->n_local = h->plane_sites * local;
    /* the reduction's chunks, the CPU's (lib/heisenberg.h) */
    h->rows_per_plane = d->ndim == 3 ? d->extent[1] : 1;
    h->rows_per_chunk = latmc_heisenberg_rows_per_chunk(d->extent[0], h->rows_per_plane);
    const long long nchunks = b->ex.planes * h->rows_per_plane / h->rows_per_chunk;
    int st = LATMC_OK;
    for (int hb = 0; hb < 2 && st == LATMC_OK; hb++)
        st = cuda_heisenberg_box_geometry(sim, hb, (int)local, (int)b->halo, (int)b->ex.planes,
                                     (int)(b->ex.origin - b->halo), &h->geom[hb]);
    const size_t sums_bytes = (size_t)b->ex.planes * NSUMS * sizeof(double);
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&h->J, (size_t)h->n_local * (size_t)d->ndim *
                                   sizeof(float)), "cannot allocate device memory for the "
                        "couplings");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&h->partials, (size_t)nchunks * NSUMS *
                                   sizeof(double)), "cannot allocate device memory for the "
                        "reduction's partial sums");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&h->plane_sums, sums_bytes), "cannot allocate "
                        "device memory for the sums per plane");
    /* the members past the replicas stay zero */
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(h->plane_sums, 0, sums_bytes, b->ex.stream),
                        "clearing the sums");
    for (int k = 0; k < 2 && st == LATMC_OK; k++) {
        const struct cuda_heisenberg_geom *g = &h->geom[k];
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA Heisenberg, %s passes: tiles of %d x "
                       "%d sites, %d plane(s) per block, %d threads, prefetch %d, couplings in "
                       "shared memory %d, %zu bytes of shared memory, grid %d x %d",
                       k ? "heat-bath" : "overrelaxation", g->tx, g->ty, g->zc, g->threads,
                       g->prefetch, g->jsmem, g->smem, g->tiles_x * g->tiles_y, g->chunks_z);
    }
    return st;
}

/* ---- couplings: the API's floats (ndim per site) of the planes the executor keeps ---- */

static int64_t coupling_plane(const latmc_sim *sim)
{
    return plane_sites_of(sim) * sim->desc.ndim;
}

static int heisenberg_draw_couplings(const latmc_sim *sim, int64_t first, int64_t planes,
                               void **host)
{
    const latmc_sim_desc *d = &sim->desc;
    const int64_t L = d->extent[d->ndim - 1], per = coupling_plane(sim);
    float *c = malloc((size_t)(planes * per) * sizeof *c);
    if (!c)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate %zu bytes of "
                               "host memory for the couplings",
                               (size_t)(planes * per) * sizeof *c);
    int st = LATMC_OK;
    /* runs of consecutive lattice planes (the whole lattice: one run) */
    for (int64_t k = 0; k < planes && st == LATMC_OK;) {
        const int64_t g = ((first + k) % L + L) % L;
        const int64_t n = planes - k < L - g ? planes - k : L - g;
        st = cuda_core->draw_couplings(c + k * per, 1, d->couplings, g * per, (g + n) * per,
                                       d->coupling_seed, d->n_threads);
        k += n;
    }
    if (st < 0) {
        free(c);
        return st;
    }
    *host = c;
    return LATMC_OK;
}

static void heisenberg_couplings_to_float(const latmc_sim *sim, const void *host,
                                          int64_t host_plane, float *buf, int64_t planes)
{
    const int64_t per = coupling_plane(sim);
    memcpy(buf, (const float *)host + host_plane * per, (size_t)(planes * per) * sizeof(float));
}

static void heisenberg_couplings_from_float(const latmc_sim *sim, void *host, int64_t host_plane,
                                      const float *whole, int64_t global_plane, int64_t planes)
{
    const int64_t per = coupling_plane(sim);
    memcpy((float *)host + host_plane * per, whole + global_plane * per,
           (size_t)(planes * per) * sizeof(float));
}

/* The box's local planes of the host's couplings (planes from host_first on), transposed
 * to the device's SoA on the host; waited for. */
static cudaError_t heisenberg_couplings_to_box(const latmc_sim *sim, const struct cuda_box *b,
                                         cudaStream_t stream, const void *host,
                                         int64_t host_first, int64_t host_planes)
{
    (void)host_planes; /* the executor keeps every local plane's (cuda_exec.c) */
    const struct heisenberg_box *h = own_of(b);
    const int nd = sim->desc.ndim;
    const int64_t L = sim->desc.extent[nd - 1], ps = h->plane_sites;
    const int64_t local = b->ex.planes + 2 * b->halo;
    float *soa = malloc((size_t)h->n_local * (size_t)nd * sizeof *soa);
    if (!soa)
        return cudaErrorMemoryAllocation;
    const float *J = host;
    for (int64_t l = 0; l < local; l++) {
        const int64_t g = ((b->ex.origin - b->halo + l) % L + L) % L;
        const int64_t k = ((g - host_first) % L + L) % L; /* its host plane */
        for (int64_t j = 0; j < ps; j++)
            for (int mu = 0; mu < nd; mu++)
                soa[(size_t)mu * (size_t)h->n_local + (size_t)(l * ps + j)] =
                    J[(size_t)((k * ps + j) * nd + mu)];
    }
    cudaError_t err = cudaMemcpyAsync(h->J, soa, (size_t)h->n_local * (size_t)nd *
                                      sizeof(float), cudaMemcpyHostToDevice, stream);
    const cudaError_t fin = cudaStreamSynchronize(stream); /* before soa goes */
    free(soa);
    return err != cudaSuccess ? err : fin;
}

/* The sim's couplings (every kind: uniform ones are 1) are drawn on the device. */
static bool heisenberg_draws_couplings(const latmc_sim *sim)
{
    (void)sim;
    return true;
}

/* The box's local planes of the couplings drawn on its device into the SoA J, by the
 * CPU's functions (cuda_coupling_draws.h): the same floats as heisenberg_couplings_to_box's. */
static cudaError_t heisenberg_draw_couplings_on_box(const latmc_sim *sim, const struct cuda_box *b,
                                              cudaStream_t stream)
{
    const struct heisenberg_box *h = own_of(b);
    const latmc_sim_desc *d = &sim->desc;
    const int64_t L = d->extent[d->ndim - 1], local = b->ex.planes + 2 * b->halo;
    cudaError_t err = cudaSuccess;
    /* runs of consecutive lattice planes (a box alone: one run) */
    for (int64_t l = 0; l < local && err == cudaSuccess;) {
        const int64_t g = ((b->ex.origin - b->halo + l) % L + L) % L;
        const int64_t n = local - l < L - g ? local - l : L - g;
        err = cuda_draw_heisenberg_soa(stream, h->J, h->n_local, l * h->plane_sites, g, n,
                                       h->plane_sites, d->ndim, d->couplings,
                                       d->coupling_seed);
        l += n;
    }
    return err;
}

/* ---- steps and observables ---- */

/*
 * Range r of the step's pass (the colour-0 step; the colour-1 step ends the pass). The
 * first range of a pass flips cur; its other ranges read the same buffer (a step's ranges
 * on a box come one after another, and a retried step after a failure reads what the
 * failed one read).
 */
static cudaError_t heisenberg_update(const latmc_sim *sim, const struct cuda_box_range *r,
                               uint64_t sweep, const struct latmc_step *step,
                               cudaStream_t stream, unsigned long long *changed)
{
    struct heisenberg_box *h = own_of(r->box);
    if (step->colour != 0) {
        h->in_pass = false;
        return cudaSuccess;
    }
    if (!h->in_pass || h->pass_sweep != sweep || h->pass_step != step->index) {
        h->in_pass = true;
        h->pass_sweep = sweep;
        h->pass_step = step->index;
        h->pass_src = h->cur;
        h->cur = 1 - h->cur;
    }
    const struct latmc_heisenberg_params *p = sim->model_data;
    const int hb = step->kind == LATMC_STEP_COLOUR;
    struct cuda_heisenberg_geom g = h->geom[hb];
    if (!r->whole)
        cuda_heisenberg_geom_range(&g, (int)r->p0, (int)r->planes);
    struct cuda_heisenberg_pass_args a;
    memset(&a, 0, sizeof a);
    a.src = buffer(r->box, h->pass_src);
    a.dst = buffer(r->box, 1 - h->pass_src);
    a.J = h->J;
    a.beta = p->beta;
    a.h = p->h;
    a.seed = sim->desc.seed;
    /* the step names its draws: the UPDATE stream of replica 0 at its colour 0, sub 0
     * (lib/model_heisenberg.c), whose sweep word the kernel takes (heisenberg_cuda.h) */
    const struct latmc_rng_name want = latmc_rng_name_of(latmc_rng_name_sweep(step->rng),
                                                         latmc_rng_stream(LATMC_STREAM_UPDATE, 0),
                                                         0, 0);
    if (hb && (step->rng.c1 != want.c1 || step->rng.c2 != want.c2 || step->rng.c3 != want.c3))
        return cudaErrorInvalidValue; /* a schedule the kernel does not know (a bug) */
    a.sweep = latmc_rng_name_sweep(step->rng);
    a.count = changed;
    return cuda_heisenberg_pass(stream, &g, &a, sim->desc.precision == LATMC_PRECISION_DOUBLE, hb);
}

/*
 * The geometry the plane sums of range r read, and the offset of its first site: the
 * reduction reads the plane after each (forward bonds): a box alone wraps at the
 * lattice's end; a range of a box with halos reads the next local plane, never wrapping
 * (a lattice of planes + 1 planes with the local stride, from the range's first plane).
 */
static size_t range_geom(const struct heisenberg_box *h, const struct cuda_box_range *r,
                         struct cuda_heisenberg_geom *g)
{
    *g = h->geom[0];
    if (r->whole)
        return 0;
    if (g->ndim == 3)
        g->lz = (int)r->planes + 1;
    else
        g->ly = (int)r->planes + 1;
    g->n = h->n_local;
    return (size_t)(r->p0 * h->plane_sites);
}

/* Range r's planes as the Fourier modes' projections see them (mode_fixed.h). */
static struct cuda_fixed_range fixed_range(const latmc_sim_desc *d,
                                           const struct cuda_box_range *r)
{
    const struct cuda_fixed_range range = {
        .ndim = d->ndim,
        .extent = { d->extent[0], d->extent[1], d->ndim == 3 ? d->extent[2] : 1 },
        .planes = r->planes,
        .global_p0 = r->global_p0,
    };
    return range;
}

/* The sums of each plane of range r (the CPU's chunks, lib/heisenberg.h) into the box's
 * plane_sums (range_geom). */
static cudaError_t heisenberg_measure_planes(const latmc_sim *sim, const struct cuda_box_range *r,
                                       cudaStream_t stream, double **out)
{
    (void)sim;
    const struct cuda_box *b = r->box;
    const struct heisenberg_box *h = own_of(b);
    struct cuda_heisenberg_geom g;
    const size_t at = range_geom(h, r, &g);
    *out = h->plane_sums;
    return cuda_heisenberg_measure_planes(stream, &g, buffer(b, h->cur) + at, h->J + at,
                                    h->rows_per_chunk,
                                    r->planes * h->rows_per_plane / h->rows_per_chunk,
                                    h->partials, h->plane_sums);
}

/* The integer projections of the Fourier modes of range r's planes in fixed point
 * (mode_fixed.h's cuda_fixed_projections; lib/modes_exact.h): replica 0's spin and, with
 * two replicas, the products of the replicas' components, from the configuration's buffer
 * (components n_local floats apart, replica 1's after replica 0's). */
static cudaError_t heisenberg_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                          cudaStream_t stream, int64_t *proj)
{
    struct heisenberg_box *h = own_of(r->box);
    const struct cuda_fixed_source src = {
        .data = buffer(r->box, h->cur) + (size_t)(r->p0 * h->plane_sites),
        .stride = h->n_local,
        .is_double = 0,
        .components = COMPONENTS,
        .replicas = h->nrep,
    };
    const struct cuda_fixed_range range = fixed_range(&sim->desc, r);
    return cuda_fixed_projections(stream, &src, &range, proj);
}

/* heisenberg_measure_planes and heisenberg_projections in one kernel, where its lattice
 * takes them (cuda_heisenberg_measure_proj_fits; else cudaErrorNotSupported). */
static cudaError_t heisenberg_measure_planes_projections(const latmc_sim *sim,
                                                         const struct cuda_box_range *r,
                                                         cudaStream_t stream, double **out,
                                                         int64_t *proj)
{
    const struct cuda_box *b = r->box;
    const struct heisenberg_box *h = own_of(b);
    struct cuda_heisenberg_geom g;
    const size_t at = range_geom(h, r, &g);
    if (!cuda_heisenberg_measure_proj_fits(&g))
        return cudaErrorNotSupported;
    const struct cuda_fixed_range range = fixed_range(&sim->desc, r);
    *out = h->plane_sums;
    return cuda_heisenberg_measure_planes_proj(
        stream, &g, buffer(b, h->cur) + at, h->J + at, h->rows_per_chunk,
        r->planes * h->rows_per_plane / h->rows_per_chunk, h->partials, h->plane_sums, proj,
        &range);
}

/* The projections' components (latmc_modes_components): the spin's, and with two replicas
 * the nine products too. */
static int heisenberg_projection_components(const latmc_sim *sim)
{
    return COMPONENTS * (1 + (sim->desc.replicas == 2 ? COMPONENTS : 0));
}

/* The configuration's buffer (latmc_sim_device_view: components N floats apart, replicas
 * 3 N; it changes at every pass). */
static cudaError_t heisenberg_view(const latmc_sim *sim, struct cuda_box *b, cudaStream_t stream,
                             void **data)
{
    (void)sim, (void)stream;
    *data = cuda_heisenberg_member_spins(b);
    return cudaSuccess;
}

/* Heat-bath updates count as attempted (and accepted, by the kernel); overrelaxation moves
 * as neither, as on the CPU. Every algorithm but overrelaxation alone starts its sweep with
 * a heat-bath pass (the cluster algorithms too: lib/cluster_embed_sweep.c). */
static uint64_t heisenberg_attempted(const latmc_sim *sim, int64_t sites)
{
    return sim->desc.algorithm != LATMC_ALGO_OVERRELAX
               ? (uint64_t)sites * (uint64_t)sim->desc.replicas : 0;
}

/* The embedded cluster step (cuda_leaf.h, struct cuda_embed_leaf; clusters/cuda_embed.h):
 * every replica, on its spins in the current buffer (replica rep's components at
 * 3 rep n, n the box's stored sites) with the box's couplings, r = job->axis[rep],
 * K = beta J. */
static int heisenberg_embed_replicas(const latmc_sim *sim)
{
    return sim->desc.replicas;
}

static cudaError_t heisenberg_embed_step(const latmc_sim *sim, cudaStream_t stream,
                                   const struct cuda_sw_box *v, const struct cuda_box *b,
                                   int rep, const struct latmc_embed_job *job, double *a,
                                   const struct cuda_embed_draws *d)
{
    return cuda_embed_heisenberg_step(
        stream, v,
        cuda_heisenberg_member_spins(b) + (size_t)LATMC_HEISENBERG_COMPONENTS *
                                              (size_t)sim->nsites * (size_t)rep, /* a box alone */
        cuda_heisenberg_member_couplings(b), a, job->axis[rep], job->beta, d);
}

static cudaError_t heisenberg_embed_bonds(const latmc_sim *sim, cudaStream_t stream,
                                    const struct cuda_sw_box *v, const struct cuda_box *b,
                                    int rep, const struct latmc_embed_job *job, double *a,
                                    const struct cuda_embed_draws *d)
{
    (void)sim;
    return cuda_embed_heisenberg_bonds(
        stream, v,
        cuda_heisenberg_member_spins(b) +
            (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)b->local.nsites * (size_t)rep,
        cuda_heisenberg_member_couplings(b), a, job->axis[rep], job->beta, d);
}

static cudaError_t heisenberg_embed_flip(const latmc_sim *sim, cudaStream_t stream,
                                   const struct cuda_sw_box *v, const struct cuda_box *b,
                                   int rep, const struct latmc_embed_job *job, const double *a,
                                   const struct cuda_embed_flips *flips)
{
    (void)sim;
    return cuda_embed_heisenberg_reflect(stream, v,
                                         cuda_heisenberg_member_spins(b) +
                                             (size_t)LATMC_HEISENBERG_COMPONENTS *
                                                 (size_t)b->local.nsites * (size_t)rep,
                                         a, job->axis[rep], flips);
}

static const struct cuda_embed_leaf heisenberg_embed = {
    .replicas = heisenberg_embed_replicas,
    .step = heisenberg_embed_step,
    .bonds = heisenberg_embed_bonds,
    .flip = heisenberg_embed_flip,
};

#define HEISENBERG_LEAF(replicas)                                                                  \
    {                                                                                        \
        .model = LATMC_MODEL_HEISENBERG,                                                     \
        .halo = heisenberg_halo,                                                                   \
        .border_planes = heisenberg_border_planes,                                                 \
        .plane_bytes = heisenberg_plane_bytes,                                                     \
        .arrays = 2 * COMPONENTS * (replicas), /* two buffers */                             \
        .cold_byte = 0,                                                                      \
        .hot_planes = heisenberg_hot_planes,                                                       \
        .put_planes = heisenberg_put_planes,                                                       \
        .get_planes = heisenberg_get_planes,                                                       \
        .box_create = heisenberg_box_create,                                                       \
        .box_destroy = heisenberg_box_destroy,                                                     \
        .draw_couplings = heisenberg_draw_couplings,                                               \
        .couplings_to_float = heisenberg_couplings_to_float,                                       \
        .couplings_from_float = heisenberg_couplings_from_float,                                   \
        .couplings_to_box = heisenberg_couplings_to_box,                                           \
        .draws_couplings = heisenberg_draws_couplings,                                             \
        .draw_couplings_on_box = heisenberg_draw_couplings_on_box,                                 \
        .update = heisenberg_update,                                                               \
        .view_dtype = LATMC_DTYPE_FLOAT32,                                                   \
        .view = heisenberg_view,                                                                   \
        .attempted = heisenberg_attempted,                                                         \
        .cold = heisenberg_cold,                                                                   \
        .written_arrays = heisenberg_written_arrays,                                               \
        .measure_planes = heisenberg_measure_planes,                                               \
        .view_components = COMPONENTS,                                                       \
        .wire_arrays = heisenberg_wire_arrays,                                                     \
        .empty_step = heisenberg_empty_step,                                                       \
        .projections = heisenberg_projections,                                               \
        .measure_planes_projections = heisenberg_measure_planes_projections,                 \
        .projection_components = heisenberg_projection_components,                           \
        .embed = &heisenberg_embed,                                                                \
    }

static const struct cuda_leaf heisenberg_leaves[2] = { HEISENBERG_LEAF(1), HEISENBERG_LEAF(2) };

const struct cuda_leaf *cuda_heisenberg_leaf_of(const latmc_sim *sim)
{
    return &heisenberg_leaves[sim->desc.replicas > 1]; /* the model takes 1 or 2 */
}
