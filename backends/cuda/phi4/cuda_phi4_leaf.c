/*
 * phi^4's leaf of the CUDA executor (exec/cuda_leaf.h): one float or double per site in
 * the API's layout, plane after plane; halo 2 planes (the 1/Lambda term and the diagonals
 * reach two sites; the kernels read them for Lambda = inf too). The chain is fixed by the
 * sim's plan (cuda_phi4_plan.c; doc/models/phi4.md, "The CUDA chain"):
 *
 * - Chunk schedule (the default where the extents take chunks): a chain of the kernels'
 *   own (own_steps), two steps per sweep: step q updates the chunk layers (chunks along
 *   the last axis) of parity q, each chunk through the sub-grids of that parity in the
 *   one-device order, all nloc passes in shared memory. A layer's chunks read only the
 *   two layers beside it, of the other parity, so the layers of one parity are
 *   independent and step q is the one-device chain's sub-grids of cut parity q (the
 *   highest bit of a sub-grid's number: they are consecutive). Boxes are whole layers
 *   (cut), the border ranges one layer each. A box alone runs the one-device kernel on
 *   the sub-grids, wrapping periodically.
 * - Site order (LATMC_CUDA_PHI4_CHUNK=none, or extents without chunks): the model's
 *   schedule (a pass and a colour a step), on any cut of the plan; border ranges of 2
 *   planes (the plan's boxes are at least 4: the colouring's period along the last axis).
 * A box with halos runs the range kernels (cuda_phi4_box_update), which name every site,
 * draw and colour by the lattice's coordinates and read the last axis from the halos: every
 * range writes what the one-device step writes there, so the chain is one GPU's bit for
 * bit on any number of boxes, devices and GPU ranks. GPU ranks (parts of a lattice shared
 * by processes) run the site order only: the core's plan cuts their boxes (box_create
 * refuses the chunk schedule, naming the way out).
 *
 * Observables: a box alone adds its rows and planes in the CPU reference's order
 * (cuda_phi4_measure); boxes with halos give sums per plane (measure_planes), which the
 * executor adds in plane order: the same additions, so the same doubles. The Fourier
 * modes' projections are integers of fixed-point values (lib/modes.h, lib/modes_exact.h),
 * counted in the measurement's read of 2D rows where its tile walk takes them
 * (phi4_tile_walk.cu), else by a kernel of their own (cuda_phi4_projections).
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_check.h"
#include "cuda_embed.h"
#include "cuda_leaf.h"
#include "cuda_phi4_plan.h"
#include "model.h"
#include "part.h"

#define HALO CUDA_PHI4_HALO
#define NSUMS 5 /* struct latmc_phi4_sums */
#define CHUNK_STEPS 2 /* the chunk schedule's steps: one per parity of the chunk layers */

_Static_assert(sizeof(struct latmc_phi4_sums) == NSUMS * sizeof(double),
               "struct latmc_phi4_sums is not 5 doubles");

/* A box's own state (b->own). */
struct phi4_box {
    struct cuda_phi4_plan plan;
    struct cuda_phi4_keys keys;
    struct latmc_lattice g;       /* the whole lattice (the range kernels name sites by it) */
    bool part;                    /* the box of a part of a lattice shared by processes */
    double *partials;             /* 5 doubles per row of the box's own planes */
    double *plane_sums;           /* 5 doubles per own plane (a box with halos) */
};

static struct phi4_box *own_of(const struct cuda_box *b)
{
    return b->own;
}

static size_t value_bytes(const latmc_sim_desc *d)
{
    return d->precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double);
}

static int64_t plane_sites(const latmc_sim_desc *d)
{
    return d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
}

static int64_t rows_per_plane(const latmc_sim_desc *d)
{
    return d->ndim == 3 ? d->extent[1] : 1;
}

/* The device whose shared-memory limit the plan is made for: a part's, or the first
 * box's; every box runs the same plan. */
static int plan_device(const latmc_sim *sim)
{
    return latmc_part_many(sim) ? sim->desc.device_index : cuda_box_device_of(&sim->desc, 0);
}

/* The plan's schedule and chunk extents (no strides), or the failure with its reason. */
static int shape_of(const latmc_sim *sim, struct cuda_phi4_plan *p)
{
    return cuda_phi4_plan_make(sim, plan_device(sim), true, p);
}

static int64_t phi4_halo(const latmc_sim *sim)
{
    (void)sim;
    return HALO;
}

/* Chunk schedule: one chunk layer (the planes of a chunk along the last axis); site
 * order: the halo. A plan that fails here fails again, with its reason, at the cut or
 * at box_create. */
static int64_t phi4_border_planes(const latmc_sim *sim)
{
    struct cuda_phi4_plan p;
    if (shape_of(sim, &p) < 0 || p.schedule != CUDA_PHI4_CHUNKS)
        return HALO;
    return p.b[sim->desc.ndim - 1];
}

static size_t phi4_plane_bytes(const latmc_sim *sim)
{
    return (size_t)plane_sites(&sim->desc) * value_bytes(&sim->desc);
}

/* Chunk schedule on n boxes: whole chunk layers, spread as evenly as they go (box i gets
 * layers [C i / n, C (i + 1) / n) of the C along the last axis); site order: the plan's. */
static int phi4_cut(const latmc_sim *sim, int n, int64_t *origin, int64_t *planes)
{
    struct cuda_phi4_plan p;
    const int st = shape_of(sim, &p);
    if (st < 0 || p.schedule != CUDA_PHI4_CHUNKS)
        return st;
    const latmc_sim_desc *d = &sim->desc;
    const int64_t L = d->extent[d->ndim - 1], bc = p.b[d->ndim - 1], layers = L / bc;
    if (layers < n)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "phi^4 on %d CUDA boxes: the chunk schedule "
                               "cuts the last axis (%lld planes) into %lld layers of %lld-plane "
                               "chunks, fewer than the boxes (a box is whole layers); set "
                               "LATMC_CUDA_PHI4_CHUNK with a thinner last extent (or \"none\": "
                               "the site order), or use fewer devices", n, (long long)L,
                               (long long)layers, (long long)bc);
    for (int i = 0; i < n; i++) {
        const int64_t l0 = layers * i / n, l1 = layers * (i + 1) / n;
        origin[i] = l0 * bc;
        planes[i] = (l1 - l0) * bc;
    }
    return LATMC_OK;
}

static void phi4_box_destroy(struct cuda_box *b)
{
    struct phi4_box *s = own_of(b);
    if (!s)
        return;
    cudaFree(s->partials);
    cudaFree(s->plane_sums);
    free(s);
    b->own = NULL;
}

static void log_plan(const latmc_sim *sim, const struct cuda_phi4_plan *p)
{
    if (p->schedule == CUDA_PHI4_CHUNKS)
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA phi^4: chunks %dx%dx%d (%dx%dx%d per "
                       "axis), %d segments and %d threads per block, %zu bytes of shared memory "
                       "(strides %d, %d)", p->b[0], p->b[1], p->b[2], p->nchunks[0],
                       p->nchunks[1], p->nchunks[2], p->segments, p->threads, p->smem_bytes,
                       p->pitch_y, p->pitch_z);
    else
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA phi^4: site-order schedule (the "
                       "extents take no chunks, or LATMC_CUDA_PHI4_CHUNK=none), %d threads "
                       "per block", p->threads);
}

/* The plan, keys and reduction scratch of box b (its device current). */
static int phi4_box_create(const latmc_sim *sim, struct cuda_box *b)
{
    const latmc_sim_desc *d = &sim->desc;
    struct phi4_box *s = calloc(1, sizeof *s);
    if (!s)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the phi^4 box's "
                               "state");
    b->own = s;
    s->part = latmc_part_many(sim);
    s->g = cuda_phi4_lattice(d);
    cuda_phi4_keys_of(d->seed, &s->keys);
    int st = cuda_phi4_plan_make(sim, plan_device(sim), false, &s->plan);
    if (st < 0)
        return st;
    if (s->part && s->plan.schedule != CUDA_PHI4_SITE_ORDER)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: phi^4 on the chunk schedule "
                               "(the default where the extents take chunks) has no per-plane "
                               "steps: a sim of several parts (MPI ranks) on CUDA runs phi^4 "
                               "on the site-order schedule (LATMC_CUDA_PHI4_CHUNK=none, or "
                               "extents without chunks; doc/mpi.md, \"GPU ranks\")");
    const size_t rows = (size_t)(b->ex.planes * rows_per_plane(d));
    if ((st = cuda_box_alloc_on((void **)&s->partials, rows * NSUMS * sizeof(double),
                                 b->ex.device, "phi^4 reduction")) < 0 ||
        (b->halo > 0 &&
         (st = cuda_box_alloc_on((void **)&s->plane_sums, (size_t)b->ex.planes * NSUMS *
                                  sizeof(double), b->ex.device, "phi^4 sums per plane")) < 0) ||
        (st = cuda_check(b->halo > 0 ? cuda_phi4_prepare_boxes(&s->plan)
                                     : cuda_phi4_prepare(&s->plan),
                         "setting the phi^4 kernel's shared memory")) < 0)
        return st;
    if (b->ex.origin == 0)
        log_plan(sim, &s->plan);
    return LATMC_OK;
}

const struct cuda_phi4_plan *cuda_phi4_box_plan(const struct cuda_box *b)
{
    return &own_of(b)->plan;
}

static int phi4_own_steps(const latmc_sim *sim, const struct cuda_box *first)
{
    (void)sim;
    const struct phi4_box *s = own_of(first);
    return s->plan.schedule == CUDA_PHI4_CHUNKS && !s->part ? CHUNK_STEPS : 0;
}

/* The one-device hot start's values (INIT stream, named by the lattice's site index). */
static cudaError_t phi4_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                   cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                   int64_t planes)
{
    const struct phi4_box *s = own_of(b);
    const int64_t ps = plane_sites(&sim->desc);
    if (b->halo == 0) /* the whole lattice */
        return cuda_phi4_hot_start(stream, &s->plan, b->data, sim->nsites, sim->desc.seed);
    return cuda_phi4_hot_range(stream, &s->plan,
                               (char *)b->data + (size_t)(local_p0 * ps) *
                                                     value_bytes(&sim->desc),
                               global_p0 * ps, planes * ps, sim->desc.seed);
}

/* Range r's part of the chunk schedule's layers or the site order's planes. */
static struct cuda_phi4_box_range box_range_of(const struct phi4_box *s,
                                                 const struct cuda_box_range *r, int parity)
{
    /* memory plane 0 holds the lattice's plane global_p0 - p0 (below 0 for the first box:
     * the kernels read the cut axis without wrap) */
    const int64_t cut0 = r->global_p0 - r->p0;
    if (s->plan.schedule != CUDA_PHI4_CHUNKS)
        return (struct cuda_phi4_box_range){ cut0, r->global_p0, r->planes, 0 };
    const int64_t bc = s->plan.b[s->plan.ndim - 1];
    return (struct cuda_phi4_box_range){ cut0, r->global_p0 / bc, r->planes / bc, parity };
}

static cudaError_t phi4_update(const latmc_sim *sim, const struct cuda_box_range *r,
                               uint64_t sweep, const struct latmc_step *step,
                               cudaStream_t stream, unsigned long long *changed)
{
    const struct phi4_box *s = own_of(r->box);
    const struct latmc_phi4_tables *t = sim->model_data;
    const bool chunks = s->plan.schedule == CUDA_PHI4_CHUNKS;
    if (!r->whole) {
        const struct cuda_phi4_box_range sr = box_range_of(s, r, chunks ? step->index : 0);
        return cuda_phi4_box_update(stream, &s->plan, &s->g, r->box->data, t, &s->keys, sweep,
                                     step, &sr, changed);
    }
    if (!chunks)
        return cuda_phi4_step(stream, &s->plan, &s->g, r->box->data, t, &s->keys, sweep, step,
                              changed);
    /* the sub-grids of cut parity step->index, in the one-device order */
    const int nsub = 1 << (s->plan.ndim - 1);
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < nsub && err == cudaSuccess; k++) {
        struct latmc_step sub = *step;
        sub.index = nsub * step->index + k;
        err = cuda_phi4_step(stream, &s->plan, &s->g, r->box->data, t, &s->keys, sweep, &sub,
                             changed);
    }
    return err;
}

/* A box alone: every row, then every plane, added in order into the device struct. */
static cudaError_t phi4_measure(const latmc_sim *sim, const struct cuda_box_range *own,
                                cudaStream_t stream, void *sums)
{
    (void)sim;
    const struct phi4_box *s = own_of(own->box);
    if (!own->whole) /* boxes with halos measure plane by plane (phi4_measure_planes) */
        return cudaErrorInvalidValue;
    return cuda_phi4_measure(stream, &s->plan, &s->g, own->box->data, s->partials,
                             (struct latmc_phi4_sums *)sums);
}

/* Range r's planes as the kernels' box range (its first plane in the box's storage). */
static struct cuda_phi4_box_range own_planes_of(const struct cuda_box_range *r)
{
    const struct cuda_phi4_box_range sr = { r->global_p0 - r->p0, r->global_p0, r->planes, 0 };
    return sr;
}

static cudaError_t phi4_measure_planes(const latmc_sim *sim, const struct cuda_box_range *r,
                                       cudaStream_t stream, double **plane_sums)
{
    (void)sim;
    const struct phi4_box *s = own_of(r->box);
    const struct cuda_phi4_box_range sr = own_planes_of(r);
    *plane_sums = s->plane_sums;
    return cuda_phi4_measure_planes(stream, &s->plan, &s->g, r->box->data, &sr, s->partials,
                                    s->plane_sums);
}

/* Range r's integer projections of the Fourier modes (lib/modes.h, one component:
 * q = round(phi 2^20) of each site) added into proj; each plane alone, no halo read. */
static cudaError_t phi4_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                    cudaStream_t stream, int64_t *proj)
{
    const latmc_sim_desc *d = &sim->desc;
    const struct phi4_box *s = own_of(r->box);
    const char *at = (const char *)r->box->data +
                     (size_t)(r->p0 * plane_sites(d)) * value_bytes(d);
    return cuda_phi4_projections(stream, &s->plan, &s->g, at, r->global_p0, r->planes, proj);
}

/* Whether the projections take their own kernel beside the measurement's
 * (LATMC_CUDA_PHI4_MODES=split, doc/environment.md) rather than its walk's read. */
static bool projections_split(void)
{
    const char *env = getenv("LATMC_CUDA_PHI4_MODES");
    return env && strcmp(env, "split") == 0;
}

/* A box alone: phi4_measure's sums and phi4_projections' integers, in one read where the
 * tile walk takes the rows, else one after the other. */
static cudaError_t phi4_measure_projections(const latmc_sim *sim,
                                            const struct cuda_box_range *own,
                                            cudaStream_t stream, void *sums, int64_t *proj)
{
    const struct phi4_box *s = own_of(own->box);
    if (!own->whole) /* boxes with halos measure plane by plane */
        return cudaErrorInvalidValue;
    cudaError_t err = cudaErrorNotSupported;
    if (!projections_split())
        err = cuda_phi4_measure_projections(stream, &s->plan, &s->g, own->box->data, NULL,
                                            s->partials, sums, proj);
    if (err != cudaErrorNotSupported) /* nothing enqueued where not supported */
        return err;
    err = phi4_measure(sim, own, stream, sums);
    return err == cudaSuccess ? phi4_projections(sim, own, stream, proj) : err;
}

/* phi4_measure_planes' sums and phi4_projections' integers of range r in one read where
 * the tile walk takes the rows; cudaErrorNotSupported elsewhere (and with
 * LATMC_CUDA_PHI4_MODES=split), nothing enqueued: the executor takes the two then. */
static cudaError_t phi4_measure_planes_projections(const latmc_sim *sim,
                                                   const struct cuda_box_range *r,
                                                   cudaStream_t stream, double **plane_sums,
                                                   int64_t *proj)
{
    (void)sim;
    const struct phi4_box *s = own_of(r->box);
    if (projections_split())
        return cudaErrorNotSupported;
    const struct cuda_phi4_box_range sr = own_planes_of(r);
    *plane_sums = s->plane_sums;
    return cuda_phi4_measure_projections(stream, &s->plan, &s->g, r->box->data, &sr,
                                         s->partials, s->plane_sums, proj);
}

static uint64_t phi4_attempted(const latmc_sim *sim, int64_t sites)
{
    const struct latmc_phi4_tables *t = sim->model_data;
    return (uint64_t)sites * t->nloc * t->nhit;
}

/* The embedded cluster step (cuda_leaf.h, struct cuda_embed_leaf; clusters/cuda_embed.h):
 * one step, whatever desc.replicas, on the field in place at b->data (a_i = phi_i,
 * K = beta for the nearest neighbours, the flip phi -> -phi). */
static int phi4_embed_replicas(const latmc_sim *sim)
{
    (void)sim;
    return 1;
}

/* A box alone takes a finite Lambda's further pairs too (job->n_dirs > ndim; the boxes'
 * faces join nearest neighbours only, so cuda_embed_boxes.c declines those). */
static cudaError_t phi4_embed_step(const latmc_sim *sim, cudaStream_t stream,
                                   const struct cuda_sw_box *v, const struct cuda_box *b,
                                   int rep, const struct latmc_embed_job *job, double *a,
                                   const struct cuda_embed_draws *d)
{
    (void)rep;
    struct cuda_embed_draws dl = *d;
    if (job->n_dirs > sim->desc.ndim) {
        dl.far.n_dirs = job->n_dirs;
        dl.far.k_axis2 = job->k_axis2;
        dl.far.k_diag = job->k_diag;
    }
    return cuda_embed_phi4_step(stream, v, b->data, sim->desc.precision == LATMC_PRECISION_FLOAT,
                                a, job->beta, &dl);
}

static cudaError_t phi4_embed_bonds(const latmc_sim *sim, cudaStream_t stream,
                                    const struct cuda_sw_box *v, const struct cuda_box *b,
                                    int rep, const struct latmc_embed_job *job, double *a,
                                    const struct cuda_embed_draws *d)
{
    (void)rep;
    return cuda_embed_phi4_bonds(stream, v, b->data,
                                 sim->desc.precision == LATMC_PRECISION_FLOAT, a, job->beta, d);
}

static cudaError_t phi4_embed_flip(const latmc_sim *sim, cudaStream_t stream,
                                   const struct cuda_sw_box *v, const struct cuda_box *b,
                                   int rep, const struct latmc_embed_job *job, const double *a,
                                   const struct cuda_embed_flips *flips)
{
    (void)rep, (void)job, (void)a;
    return cuda_embed_phi4_negate(stream, v, b->data,
                                  sim->desc.precision == LATMC_PRECISION_FLOAT, flips);
}

static const struct cuda_embed_leaf phi4_embed = {
    .replicas = phi4_embed_replicas,
    .step = phi4_embed_step,
    .bonds = phi4_embed_bonds,
    .flip = phi4_embed_flip,
};

/* The two precisions differ only in the dtype of a device view. */
#define PHI4_LEAF(dtype)                                                                   \
    {                                                                                      \
        .model = LATMC_MODEL_PHI4, .halo = phi4_halo, .border_planes = phi4_border_planes, \
        .plane_bytes = phi4_plane_bytes, .cold_byte = 0, /* phi = 0 in both precisions */  \
        .hot_planes = phi4_hot_planes, .box_create = phi4_box_create,                      \
        .box_destroy = phi4_box_destroy, .update = phi4_update, .measure = phi4_measure,   \
        .view_dtype = (dtype), .attempted = phi4_attempted, .own_steps = phi4_own_steps,   \
        .cut = phi4_cut, .measure_planes = phi4_measure_planes, .embed = &phi4_embed,      \
        .projections = phi4_projections, .measure_projections = phi4_measure_projections, \
        .measure_planes_projections = phi4_measure_planes_projections,                     \
    }

static const struct cuda_leaf phi4_float_leaf = PHI4_LEAF(LATMC_DTYPE_FLOAT32);
static const struct cuda_leaf phi4_double_leaf = PHI4_LEAF(LATMC_DTYPE_FLOAT64);

const struct cuda_leaf *cuda_phi4_leaf_of(const latmc_sim *sim)
{
    return sim->desc.precision == LATMC_PRECISION_FLOAT ? &phi4_float_leaf : &phi4_double_leaf;
}
