/*
 * The Heisenberg spin glass on a one-device CUDA sim that is one part of a lattice shared
 * by processes (cuda_planes.h; doc/mpi.md "GPU ranks"): a pass on a plane range, the
 * halo planes, the per-plane reduction and copies. The scheduling of a step (borders on
 * the border stream, interior on the sim's stream) is cuda_planes.c's.
 *
 * The sim keeps its slab (below). A pass of the one-device kernels (heisenberg_kernels.cu)
 * over planes [q0, q1) (geometry narrowed with cuda_heis_geom_range; planes, draws and
 * colouring named by the lattice's coordinates) writes exactly what the one-device pass
 * writes there: it reads the old configuration up to two planes beyond the range
 * (colour 0 of the neighbouring planes is recomputed).
 *
 * The core's plan (lib/model_heisenberg.c) has two steps per pass with halo 1, and
 * exchanges one plane per side after each. The kernels run the whole pass at the even
 * step (both colours: its plane ranges are the borders, cuda_planes_heis_border, and the
 * interior) and nothing at the odd one. Their halo of two planes travels in the two exchanges of
 * the pass: the one after the even step carries the second plane from each end (planes
 * q0 + 1 and q1 - 2, into the neighbours' planes two beyond their ends), the one after
 * the odd step the first (the planes the core names). get_planes and set_planes, called
 * by that exchange inside a sweep call, map the planes so (pl->shift). So at every pass
 * the part holds the old configuration of the two planes beyond each end.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "cuda_planes_transpose.h"
#include "heisenberg.h"
#include "heisenberg_cuda.h"
#include "heisenberg_rules.h"
#include "model.h"
#include "part.h"
#include "plan.h"

#define NSUMS 13
#define HALO CUDA_PLANES_HEIS_HALO /* planes beyond a range that its pass reads */

static int64_t plane_sites(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lx * cs->lattice.ly : cs->lattice.lx;
}

static int64_t lattice_planes(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lz : cs->lattice.ly;
}

/*
 * Slab storage (every part of several; cuda_planes_heis_part_kernels): the
 * sim keeps its own planes and HALO = 2 planes on each side, of both spin buffers and of
 * the couplings (SoA over the local lattice, as a slab of a sim on several devices,
 * cuda_slabs_heis.c): local plane p is plane origin - 2 + p (mod L). The passes run the
 * slab geometry (cuda_heis_slab_geometry: planes, draws and colouring named by the
 * lattice's coordinates) narrowed to a range of own planes; the reduction reads the
 * plane after a range where it lies (an own plane or the upper halo), so no window is
 * needed; the exchange's planes (the pass's two halo planes, above) land in the halos.
 * The host keeps the local planes' couplings only (drawn where they lie in the global
 * draws; a part's couplings are gathered plane by plane: ops.get_coupling_planes); the
 * hot start draws the local planes' spins only.
 */
struct heis_slab {
    struct cuda_planes_slab geom;   /* halo HALO */
    long long n_local;              /* sites of the local lattice */
    float *buf[2];
    int cur;
    float *J;
    double *partials;               /* the reduction's chunks of the own planes */
    long long rows_per_chunk;
    struct cuda_heis_geom g[2];     /* [heat bath?] the pass over the own planes */
    float *J_local;                 /* the local planes' couplings (API layout: ndim
                                       floats per local site), on the host */
};

static const struct cuda_model_kernels slab_heis_kernels;

/* What the functions below work on: the one-device sim's whole lattice, or the slab. */
struct heis_view {
    float *buf[2];
    int *cur;
    float *J;
    double *partials;
    long long rows_per_chunk;
    const struct cuda_heis_geom *geom;  /* [heat bath?] */
    long long stride;                   /* sites of the arrays (SoA stride) */
    const struct cuda_planes_slab *slab;
};

static void view_of(const latmc_sim *sim, struct cuda_sim *cs, struct heis_view *v)
{
    (void)sim;
    struct heis_slab *s = cs->model_state;
    *v = (struct heis_view){ { s->buf[0], s->buf[1] }, &s->cur, s->J, s->partials,
                             s->rows_per_chunk, s->g, s->n_local, &s->geom };
}

/* The local plane of planes [p0, p1) in the view's arrays (-1: not there). */
static int64_t view_plane(const struct heis_view *v, int64_t p0, int64_t p1)
{
    return cuda_planes_local(v->slab, p0, p1);
}

static struct heis_slab *slab_of(const struct cuda_sim *cs)
{
    return cs->model_state;
}

static void slab_destroy(struct cuda_sim *cs)
{
    struct heis_slab *s = slab_of(cs);
    if (!s)
        return;
    cudaFree(s->buf[0]);
    cudaFree(s->buf[1]);
    cudaFree(s->J);
    cudaFree(s->partials);
    free(s->J_local);
    free(s);
    cs->model_state = NULL;
}

/* `blocks` blocks of the whole lattice's AoS host data (m floats per site) restricted to
 * the local planes, halos included, into `local` (the same layout over the local
 * lattice). */
static void gather_local(const latmc_sim *sim, const struct heis_slab *s, float *local,
                         const float *whole, int m, int blocks)
{
    const int64_t ps = plane_sites(cuda_sim_of(sim)), N = sim->nsites;
    const size_t plane = (size_t)ps * (size_t)m;
    for (int b = 0; b < blocks; b++)
        for (int64_t p = 0; p < s->geom.planes + 2 * HALO; p++) {
            const int64_t g = cuda_planes_global(&s->geom, p);
            memcpy(local + ((size_t)b * (size_t)s->n_local + (size_t)(p * ps)) * (size_t)m,
                   whole + ((size_t)b * (size_t)N + (size_t)(g * ps)) * (size_t)m,
                   plane * sizeof(float));
        }
}

/* The local lattice's AoS host data `local` (m floats per site, `blocks` blocks) into
 * the SoA array `soa`, through the spare spin buffer; waited for. */
static cudaError_t upload_aos(struct cuda_sim *cs, float *soa, const float *local, int m,
                              int blocks)
{
    const struct heis_slab *s = slab_of(cs);
    const size_t floats = (size_t)s->n_local * (size_t)m * (size_t)blocks;
    float *staging = s->buf[1 - s->cur];
    cudaError_t err = cudaMemcpyAsync(staging, local, floats * sizeof *local,
                                      cudaMemcpyHostToDevice, cs->stream);
    if (err == cudaSuccess)
        err = cuda_heis_aos_to_soa(cs->stream, soa, staging, s->n_local, m, blocks);
    const cudaError_t fin = cudaStreamSynchronize(cs->stream); /* before `local` goes */
    return err != cudaSuccess ? err : fin;
}

/* The whole lattice's AoS host data into the SoA array `soa` of the local lattice
 * (gather_local, upload_aos). */
static cudaError_t upload_local(const latmc_sim *sim, struct cuda_sim *cs, float *soa,
                                const float *whole, int m, int blocks)
{
    const struct heis_slab *s = slab_of(cs);
    const size_t floats = (size_t)s->n_local * (size_t)m * (size_t)blocks;
    float *local = malloc(floats * sizeof *local);
    if (!local)
        return cudaErrorMemoryAllocation;
    gather_local(sim, s, local, whole, m, blocks);
    const cudaError_t err = upload_aos(cs, soa, local, m, blocks);
    free(local);
    return err;
}

static int slab_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct heis_slab *s = calloc(1, sizeof *s);
    if (!s)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Heisenberg "
                               "part's state");
    cs->model_state = s;
    const latmc_sim_desc *d = &sim->desc;
    const int axis = d->ndim - 1;
    /* the part's box (sim->part->p0, p1 are set after the creation) */
    const struct latmc_box *box = &sim->plan->boxes[sim->part->rank];
    s->geom = (struct cuda_planes_slab){ box->origin[axis], box->extent[axis], HALO,
                                         lattice_planes(cs) };
    const int64_t ps = plane_sites(cs), nloc = s->geom.planes + 2 * HALO;
    s->n_local = (long long)(nloc * ps);
    /* the one-device reduction's chunks (lib/heisenberg.h) */
    const long long rows_per_plane = d->ndim == 3 ? d->extent[1] : 1;
    s->rows_per_chunk = latmc_heisenberg_rows_per_chunk(d->extent[0], rows_per_plane);
    const long long nchunks = s->geom.planes * rows_per_plane / s->rows_per_chunk;
    const size_t spin_bytes = (size_t)s->n_local * 3u * (size_t)d->replicas * sizeof(float);
    int st = LATMC_OK;
    for (int hb = 0; hb < 2 && st == LATMC_OK; hb++)
        st = cuda_heis_slab_geometry(sim, hb, (int)nloc, HALO, (int)s->geom.planes,
                                     (int)(s->geom.origin - HALO), &s->g[hb]);
    for (int b = 0; b < 2 && st == LATMC_OK; b++)
        st = cuda_check(cudaMalloc((void **)&s->buf[b], spin_bytes), "cannot allocate device "
                        "memory for the spins of the part's slab");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&s->J, (size_t)s->n_local * (size_t)d->ndim *
                                   sizeof(float)), "cannot allocate device memory for the "
                        "couplings of the part's slab");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&s->partials, (size_t)nchunks * NSUMS *
                                   sizeof(double)), "cannot allocate device memory for the "
                        "reduction's partial sums");
    /* the local planes' couplings only, drawn where they lie in the global draws */
    const int64_t per_plane = ps * d->ndim;
    const size_t nc = (size_t)(nloc * per_plane);
    if (st == LATMC_OK && !(s->J_local = malloc(nc * sizeof(float))))
        st = cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate %zu bytes of host "
                             "memory for the couplings of the part's slab", nc * sizeof(float));
    if (st == LATMC_OK) {
        for (int64_t p = 0; p < nloc && st == LATMC_OK; p++) {
            const int64_t g = cuda_planes_global(&s->geom, p);
            st = cuda_core->draw_couplings(s->J_local + p * per_plane, 1, d->couplings,
                                           g * per_plane, (g + 1) * per_plane,
                                           d->coupling_seed, d->n_threads);
        }
        if (st == LATMC_OK)
            st = cuda_check(upload_aos(cs, s->J, s->J_local, d->ndim, 1),
                            "copying the couplings to the device");
    }
    if (st == LATMC_OK)
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: Heisenberg part %d of %d "
                       "stores planes [%lld, %lld) and 2 x %d halo planes (%zu bytes of spins)",
                       sim->part->rank, sim->part->n_parts, (long long)s->geom.origin,
                       (long long)(s->geom.origin + s->geom.planes), HALO, 2 * spin_bytes);
    return st;
}

static int slab_colours(const latmc_sim_desc *d)
{
    (void)d;
    return 2;
}

static cudaError_t slab_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    if (cuda_planes_settle(cs) < 0) /* no halo set of a failed sweep call left */
        return cudaErrorUnknown;
    const struct heis_slab *s = slab_of(cs);
    return cuda_heis_cold_start(cs->stream, s->buf[s->cur], s->n_local, sim->desc.replicas);
}

/* The one-device hot start's draws of the local planes only, where they lie in the
 * global draws (sites named by their global index). */
static cudaError_t slab_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    if (cuda_planes_settle(cs) < 0)
        return cudaErrorUnknown;
    const struct heis_slab *s = slab_of(cs);
    const int64_t ps = plane_sites(cs), nloc = s->geom.planes + 2 * HALO;
    const int nrep = sim->desc.replicas;
    const size_t per_rep = (size_t)s->n_local * LATMC_HEISENBERG_COMPONENTS;
    float *local = malloc(per_rep * (size_t)nrep * sizeof *local);
    if (!local)
        return cudaErrorMemoryAllocation;
    for (int r = 0; r < nrep; r++)
        for (int64_t p = 0; p < nloc; p++) {
            const int64_t g = cuda_planes_global(&s->geom, p);
            latmc_heisenberg_hot_range(local + per_rep * (size_t)r +
                                           (size_t)(p * ps) * LATMC_HEISENBERG_COMPONENTS,
                                       g * ps, (g + 1) * ps, sim->desc.seed, r);
        }
    const cudaError_t err = upload_aos(cs, s->buf[s->cur], local, LATMC_HEISENBERG_COMPONENTS,
                                       nrep);
    free(local);
    return err;
}

static cudaError_t slab_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    if (cuda_planes_settle(cs) < 0) /* no halo set of a failed sweep call left */
        return cudaErrorUnknown;
    const struct heis_slab *s = slab_of(cs);
    return upload_local(sim, cs, s->buf[s->cur], buf, LATMC_HEISENBERG_COMPONENTS,
                        sim->desc.replicas);
}

/* The own planes into the whole lattice's layout (the other planes untouched). */
static cudaError_t slab_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    const struct heis_slab *s = slab_of(cs);
    const int m = LATMC_HEISENBERG_COMPONENTS, nrep = sim->desc.replicas;
    const int64_t ps = plane_sites(cs), N = sim->nsites;
    const size_t floats = (size_t)s->n_local * (size_t)m * (size_t)nrep;
    float *local = malloc(floats * sizeof *local);
    if (!local)
        return cudaErrorMemoryAllocation;
    float *staging = s->buf[1 - s->cur];
    cudaError_t err = cuda_heis_soa_to_aos(cs->stream, staging, s->buf[s->cur], s->n_local, m,
                                           nrep);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(local, staging, floats * sizeof *local, cudaMemcpyDeviceToHost,
                              cs->stream);
    const cudaError_t fin = cudaStreamSynchronize(cs->stream);
    if (err == cudaSuccess && fin == cudaSuccess) {
        const size_t own = (size_t)(s->geom.planes * ps) * (size_t)m;
        for (int r = 0; r < nrep; r++)
            memcpy((float *)buf + ((size_t)r * (size_t)N + (size_t)(s->geom.origin * ps)) *
                                      (size_t)m,
                   local + ((size_t)r * (size_t)s->n_local + (size_t)(HALO * ps)) * (size_t)m,
                   own * sizeof(float));
    }
    free(local);
    return err != cudaSuccess ? err : fin;
}

/* The slab holds its planes' couplings only: a part's are gathered plane by plane
 * (cuda_planes_heis_coupling_planes, ops.get_coupling_planes), never whole. */
static cudaError_t slab_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf)
{
    (void)sim, (void)cs, (void)buf;
    return cudaErrorNotSupported;
}

/* The whole lattice's couplings: the local planes' taken. */
static cudaError_t slab_set_couplings(const latmc_sim *sim, struct cuda_sim *cs,
                                      const float *buf)
{
    struct heis_slab *s = slab_of(cs);
    gather_local(sim, s, s->J_local, buf, sim->desc.ndim, 1);
    return upload_aos(cs, s->J, s->J_local, sim->desc.ndim, 1);
}

int cuda_planes_heis_coupling_planes(const latmc_sim *sim, struct cuda_sim *cs, int64_t p0,
                                     int64_t p1, float *buf)
{
    if (cs->kernels != &slab_heis_kernels)
        return LATMC_EUNSUPPORTED;
    const struct heis_slab *s = slab_of(cs);
    const int64_t l0 = cuda_planes_local(&s->geom, p0, p1);
    if (l0 < 0)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: the couplings of planes [%lld, "
                               "%lld) are not in the part's slab", (long long)p0,
                               (long long)p1);
    const int64_t per_plane = plane_sites(cs) * sim->desc.ndim;
    memcpy(buf, s->J_local + l0 * per_plane, (size_t)((p1 - p0) * per_plane) * sizeof(float));
    return LATMC_OK;
}

static cudaError_t slab_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim, (void)cs;
    return cudaErrorNotSupported;
}

static const struct cuda_model_kernels slab_heis_kernels = {
    .model = LATMC_MODEL_HEISENBERG,
    .colours = slab_colours,
    .create = slab_create,
    .destroy = slab_destroy,
    .cold_start = slab_cold_start,
    .hot_start = slab_hot_start,
    .step = cuda_planes_slab_no_step,
    .measure = slab_measure,
    .get_spins = slab_get_spins,
    .set_spins = slab_set_spins,
    .get_couplings = slab_get_couplings,
    .set_couplings = slab_set_couplings,
    .model_owns_spins = cuda_planes_slab_owns_spins,
    /* no device_view: no device array holds the lattice */
};

const struct cuda_model_kernels *cuda_planes_heis_part_kernels(const latmc_sim *sim)
{
    (void)sim;
    return &slab_heis_kernels;
}

/* ---- the passes, copies and reductions (either storage) ---- */

cudaError_t cuda_planes_heis_pass(const latmc_sim *sim, struct cuda_sim *cs,
                                  cudaStream_t stream, int64_t q0, int64_t q1,
                                  const struct latmc_step *step)
{
    if (q1 <= q0 || step->colour != 0)
        return cudaSuccess;
    struct heis_view v;
    view_of(sim, cs, &v);
    const struct latmc_heisenberg_params *p = sim->model_data;
    const int hb = step->kind == LATMC_STEP_COLOUR;
    struct cuda_heis_geom g = v.geom[hb];
    cuda_heis_geom_range(&g, (int)view_plane(&v, q0, q1), (int)(q1 - q0));
    struct cuda_heis_pass_args a;
    memset(&a, 0, sizeof a);
    a.src = v.buf[*v.cur];
    a.dst = v.buf[1 - *v.cur];
    a.J = v.J;
    a.beta = p->beta;
    a.h = p->h;
    a.seed = sim->desc.seed;
    a.rng = step->rng;
    a.count = cs->changed;
    return cuda_heis_pass(stream, &g, &a, sim->desc.precision == LATMC_PRECISION_DOUBLE, hb);
}

void cuda_planes_heis_flip(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct heis_view v;
    view_of(sim, cs, &v);
    *v.cur = 1 - *v.cur;
}

uint64_t cuda_planes_heis_attempted(const latmc_sim *sim, int64_t sites)
{
    return sim->desc.algorithm == LATMC_ALGO_HEATBATH
               ? (uint64_t)sites * (uint64_t)sim->desc.replicas : 0;
}

/*
 * The halo exchange's planes (lib/part.c, latmc_part_exchange: one plane from or into the
 * part's halo buffers, which nothing else uses), between parts that all run this code:
 * they travel in the buffers' SoA order (per replica, per component, a run of the plane's
 * sites: the same bytes as get_planes' layout, in another order), so a plane crosses the
 * bus as one 2D copy of 3 x replicas runs with no transposition kernel on the border
 * stream (whose blocks would wait for room beside the interior's). It goes by DMA
 * straight from or into the halo buffers, page-locked at the first exchange
 * (cuda_planes_halo_buffer; else through the pinned stage and a host copy); where the
 * transport shares them with the neighbours (share_halos), a get writes into memory the
 * neighbour reads and a set reads the neighbour's buffer. Inside a sweep call a set is
 * not waited for (cuda_planes_set_pending): its buffer is next written by the transport of
 * the next exchange (shared: by the neighbour, after this part's next handshake), after
 * that exchange's gets have waited for the border stream, and the sweep call's last step
 * waits for the border stream.
 */
static int wire_move(latmc_sim *sim, struct cuda_sim *cs, const struct heis_view *v,
                     cudaStream_t stream, int64_t p, void *get_buf, const void *set_buf,
                     bool direct)
{
    const int64_t ps = plane_sites(cs);
    const size_t rows = 3 * (size_t)sim->desc.replicas, run = (size_t)ps * sizeof(float);
    const size_t pitch = (size_t)v->stride * sizeof(float), bytes = rows * run;
    int64_t lp[4] = { p };
    const int copies = cuda_planes_local_all(v->slab, p, p + 1, lp);
    if (copies == 0)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: plane %lld is not in the part's "
                               "slab", (long long)p);
    void *dev = NULL, *host = NULL;
    int st = direct ? LATMC_OK : cuda_planes_stage(cs, 0, bytes, &dev, &host);
    if (st < 0)
        return st;
    float *soa = v->buf[*v->cur];
    const char *what = set_buf ? "copying a halo plane to the device"
                               : "copying a border plane to the host";
    cudaError_t err = cudaSuccess;
    if (set_buf) {
        const void *from = direct ? set_buf : host;
        if (!direct)
            memcpy(host, set_buf, bytes);
        for (int k = 0; k < copies && err == cudaSuccess; k++)
            err = cudaMemcpy2DAsync(soa + (size_t)lp[k] * (size_t)ps, pitch, from, run, run,
                                    rows, cudaMemcpyHostToDevice, stream);
        if (direct && err == cudaSuccess && cuda_planes_in_sweep(cs)) {
            cuda_planes_set_pending(cs);
            return LATMC_OK;
        }
    } else {
        err = cudaMemcpy2DAsync(direct ? get_buf : host, run, soa + (size_t)lp[0] * (size_t)ps,
                                pitch, run, rows, cudaMemcpyDeviceToHost, stream);
    }
    st = cuda_check(err, what);
    const int fin = cuda_check(cudaStreamSynchronize(stream), what);
    if (st == LATMC_OK)
        st = fin;
    if (st == LATMC_OK && get_buf && !direct)
        memcpy(get_buf, host, bytes);
    return st;
}

/*
 * Planes [p0, p1) of the current buffer, API layout (per replica: 3 floats per site)
 * <-> SoA: transposed on the device (cuda_planes_transpose.cu) between the SoA buffer and
 * the device stage, which crosses the bus as one contiguous copy from or to the pinned
 * stage (cuda_planes_stage: no allocation per call, DMA at the bus's speed), and the
 * host copies one run per replica between the stage and the caller's buffer. In chunks
 * of planes that fit the stage; enqueued on `stream` and waited for. A copy: bit-exact.
 */
int cuda_planes_heis_move(latmc_sim *sim, cudaStream_t stream, int64_t p0, int64_t p1,
                          void *get_buf, const void *set_buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    struct heis_view v;
    view_of(sim, cs, &v);
    const size_t plane_bytes = (size_t)sim->desc.replicas * (size_t)plane_sites(cs) * 3 *
                               sizeof(float);
    bool pinned = false;
    if (p1 - p0 == 1 &&
        cuda_planes_halo_buffer(sim, get_buf ? get_buf : set_buf, plane_bytes, &pinned))
        return wire_move(sim, cs, &v, stream, p0, get_buf, set_buf, pinned);
    int st = cuda_planes_settle(cs);
    if (st < 0)
        return st;
    const int nrep = sim->desc.replicas;
    const int64_t ps = plane_sites(cs);
    const size_t m = (size_t)((p1 - p0) * ps), n = (size_t)v.stride;
    const size_t site_bytes = 3 * sizeof(float);
    int64_t per = (int64_t)(CUDA_PLANES_STAGE_BYTES / plane_bytes);
    if (per < 1)
        per = 1;
    if (per > p1 - p0)
        per = p1 - p0;
    void *dev = NULL, *host = NULL;
    st = cuda_planes_stage(cs, (size_t)per * plane_bytes, (size_t)per * plane_bytes, &dev,
                           &host);
    const char *what = set_buf ? "copying planes to the device" : "copying planes to the host";
    for (int64_t q = p0; q < p1 && st == LATMC_OK; q += per) {
        const int64_t q1 = q + per < p1 ? q + per : p1;
        const size_t mc = (size_t)((q1 - q) * ps), at = (size_t)((q - p0) * ps);
        const size_t run = mc * site_bytes, bytes = (size_t)nrep * run;
        /* every local copy of the planes for a set into a slab (cuda_planes_local_all),
         * the own one for a get */
        int64_t lp[4] = { q };
        const int copies = cuda_planes_local_all(v.slab, q, q1, lp);
        if (copies == 0) {
            st = cuda_core->fail(LATMC_EINVAL, "CUDA backend: planes [%lld, %lld) are not in "
                                 "the part's slab", (long long)q, (long long)q1);
            break;
        }
        float *soa = v.buf[*v.cur] + (size_t)lp[0] * (size_t)ps;
        /* replica r's sites of the chunk: at r m + at in the caller's buffer, r mc in the
         * stage */
        cudaError_t err;
        if (set_buf) {
            for (int r = 0; r < nrep; r++)
                memcpy((char *)host + (size_t)r * run,
                       (const char *)set_buf + ((size_t)r * m + at) * site_bytes, run);
            err = cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream);
            for (int k = 0; k < copies && err == cudaSuccess; k++)
                err = cuda_planes_heis_scatter(stream, v.buf[*v.cur] + (size_t)lp[k] *
                                                                      (size_t)ps,
                                               (long long)n, dev, (long long)mc, nrep);
        } else {
            err = cuda_planes_heis_gather(stream, dev, soa, (long long)n, (long long)mc, nrep);
            if (err == cudaSuccess)
                err = cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, stream);
        }
        st = cuda_check(err, what);
        const int fin = cuda_check(cudaStreamSynchronize(stream), what);
        if (st == LATMC_OK)
            st = fin;
        if (st == LATMC_OK && get_buf)
            for (int r = 0; r < nrep; r++)
                memcpy((char *)get_buf + ((size_t)r * m + at) * site_bytes,
                       (const char *)host + (size_t)r * run, run);
    }
    return st;
}

/*
 * The border ranges of a step: the pass's halo (HALO planes: the neighbours read them, and
 * the interior then reads no halo), widened to a whole kernel chunk (3D: zc planes; 2D: a
 * tile's ty rows), as the several-GPU slabs do (cuda_slabs_heis.c, border_planes): a
 * block costs about as much per chunk whatever its thickness, so thinner borders would
 * add a chunk per end to the pass.
 */
int64_t cuda_planes_heis_border(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct heis_view v;
    view_of(sim, cs, &v);
    int64_t w = HALO;
    for (int hb = 0; hb < 2; hb++) {
        const int unit = v.geom[hb].ndim == 3 ? v.geom[hb].zc : v.geom[hb].ty;
        w = unit > w ? unit : w;
    }
    return w;
}

/* A slab's own planes [p0, p1): the plane after them is in the slab (own or halo). */
static int slab_measure_planes(const latmc_sim *sim, struct cuda_sim *cs,
                               const struct heis_view *v, int64_t p0, int64_t p1, void *sums)
{
    const int64_t ps = plane_sites(cs), np = p1 - p0, l0 = view_plane(v, p0, p1);
    if (l0 < v->slab->halo || l0 + np > v->slab->halo + v->slab->planes)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: measuring planes [%lld, %lld) "
                               "outside the part's planes", (long long)p0, (long long)p1);
    const int ndim = cs->lattice.ndim;
    const long long per_plane = (ndim == 3 ? cs->lattice.ly : 1) / v->rows_per_chunk;
    const size_t sums_bytes = (size_t)np * NSUMS * sizeof(double);
    double *plane_sums = NULL;
    int st = cuda_planes_scratch(cs, sums_bytes, (void **)&plane_sums);
    if (st < 0)
        return st;
    struct cuda_heis_geom g = v->geom[0];
    if (ndim == 3)
        g.lz = (int)np + 1;
    else
        g.ly = (int)np + 1;
    g.n = v->stride;
    const size_t at = (size_t)(l0 * ps);
    cudaError_t err = cudaMemsetAsync(plane_sums, 0, sums_bytes, cs->stream);
    if (err == cudaSuccess)
        err = cuda_heis_measure_planes(cs->stream, &g, v->buf[*v->cur] + at, v->J + at,
                                       v->rows_per_chunk, np * per_plane, v->partials,
                                       plane_sums);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(sums, plane_sums, sums_bytes, cudaMemcpyDeviceToHost, cs->stream);
    st = cuda_check(err, "measuring planes");
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "measuring planes");
    return st < 0 ? st : fin;
}

/*
 * The sums of each plane (the one-device reduction's chunks, per plane: what the slabs
 * add, cuda_slabs_heis.c). The reduction reads the plane after each (forward bonds)
 * without wrapping, so a range ending at the lattice's last plane measures that plane in
 * a window of scratch memory holding it and plane 0 (spins of every replica, couplings).
 */
int cuda_planes_heis_measure(latmc_sim *sim, int64_t p0, int64_t p1, void *sums)
{
    _Static_assert(sizeof(struct latmc_heisenberg_sums) == NSUMS * sizeof(double),
                   "struct latmc_heisenberg_sums is not 13 doubles");
    struct cuda_sim *cs = cuda_sim_of(sim);
    struct heis_view v;
    view_of(sim, cs, &v);
    return slab_measure_planes(sim, cs, &v, p0, p1, sums);
}
