/*
 * The q-state Potts model on a one-device CUDA sim that is one part of a lattice shared
 * by processes (cuda_planes.h; doc/mpi.md "GPU ranks"): a colour on a plane range, the
 * per-plane reduction and copies. The scheduling of a step (borders on the border
 * stream, interior on the sim's stream) is cuda_planes.c's.
 *
 * Slab storage (the default for a part of several; cuda_planes_potts_part_kernels): the
 * sim keeps only its own planes and one halo plane on each side (local plane 0: the lower
 * halo), in the API's layout, as a box of a sim on several devices (exec/cuda_exec.c):
 * the range kernels read the planes next to a range where they lie, a halo at the slab's
 * ends, and no window is needed. The rest of this comment is the storage of a part with
 * several replicas, which keeps the whole lattice (cuda_planes_potts_part_kernels).
 *
 * The sim keeps the whole lattice in the API's layout (one byte per site, natural order).
 * An update runs the several-GPU slabs' range kernels (potts_slabs.h) on ranges of whole
 * multiples of the c colours from a plane that is a multiple of c (the plan cuts parts so),
 * so the draws are named by the lattice's within-colour numbers: each range writes what
 * the one-device step writes there, bit for bit. Those kernels read the planes next to a
 * range one plane away, without wrap: a range inside the lattice reads them where they lie
 * in the whole lattice; a range at its first or last plane (the first or last part's
 * border) is run in a window of scratch memory holding the range and the plane on each
 * side (the other end of the lattice, a halo that set_planes wrote), and its planes are
 * copied back. Such a range is c planes (a border), so the copies are small.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "model.h"
#include "part.h"
#include "plan.h"
#include "potts.h"
#include "potts_slabs.h"

static int64_t plane_bytes(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lx * cs->lattice.ly : cs->lattice.lx;
}

static int64_t lattice_planes(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lz : cs->lattice.ly;
}

/* The lattice with `planes` planes along its last axis (a window's). */
static struct latmc_lattice planes_lattice(const struct cuda_sim *cs, int64_t planes)
{
    struct latmc_lattice g = cs->lattice;
    if (g.ndim == 3)
        g.lz = planes;
    else
        g.ly = planes;
    g.nsites = planes * plane_bytes(cs);
    return g;
}

/* ---- slab storage ---- */

struct potts_slab {
    struct cuda_planes_slab geom;   /* halo 1 */
    struct latmc_lattice local;     /* own planes + 2 */
};

static const struct cuda_model_kernels slab_potts_kernels;

static struct potts_slab *slab_of(const struct cuda_sim *cs)
{
    return cs->kernels == &slab_potts_kernels ? cs->model_state : NULL;
}

static size_t slab_bytes(const struct cuda_sim *cs, const struct potts_slab *s)
{
    return (size_t)((s->geom.planes + 2 * s->geom.halo) * plane_bytes(cs));
}

static int slab_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct potts_slab *s = calloc(1, sizeof *s);
    if (!s)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Potts part's "
                               "state");
    cs->model_state = s;
    /* the part's box (sim->part->p0, p1 are set after the creation) */
    const int axis = sim->desc.ndim - 1;
    const struct latmc_box *box = &sim->plan->boxes[sim->part->rank];
    s->geom = (struct cuda_planes_slab){ box->origin[axis], box->extent[axis], 1,
                                         lattice_planes(cs) };
    s->local = planes_lattice(cs, s->geom.planes + 2 * s->geom.halo);
    /* cs->spins: the local planes (freed with the sim, cuda_backend.c) */
    int st = cuda_check(cudaMalloc(&cs->spins, slab_bytes(cs, s)),
                        "cannot allocate device memory for the spins of the part's slab");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(cs->spins, 0, slab_bytes(cs, s), cs->stream),
                        "clearing the spins");
    if (st == LATMC_OK)
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: Potts part %d of %d stores "
                       "planes [%lld, %lld) and 2 halo planes (%zu bytes of spins)",
                       sim->part->rank, sim->part->n_parts, (long long)s->geom.origin,
                       (long long)(s->geom.origin + s->geom.planes), slab_bytes(cs, s));
    return st;
}

static void slab_destroy(struct cuda_sim *cs)
{
    free(cs->model_state);
    cs->model_state = NULL;
}

static int slab_colours(const latmc_sim_desc *d)
{
    return latmc_potts_colours(d->ndim, d->extent);
}

static cudaError_t slab_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    return cudaMemsetAsync(cs->spins, 0, slab_bytes(cs, slab_of(cs)), cs->stream); /* state 0 */
}

/* The one-device hot start's draws of global planes [plane0, plane0 + planes), named by
 * the global site, into dev (cuda_planes_slab_values). */
static cudaError_t hot_planes(const latmc_sim *sim, struct cuda_sim *cs, void *dev,
                              int64_t plane0, int64_t planes)
{
    const int64_t pb = plane_bytes(cs);
    return cuda_potts_hot_start_range(cs->stream, dev, plane0 * pb, planes * pb, sim->desc.q,
                                      sim->desc.seed);
}

/* The local planes, halos included, from the whole lattice's bytes `host` (or the hot
 * start: host NULL); or the own planes into `out` (cuda_planes_slab_values). */
static cudaError_t slab_rows(const latmc_sim *sim, struct cuda_sim *cs, const void *host,
                             void *out)
{
    return cuda_planes_slab_values(sim, cs, &slab_of(cs)->geom, (size_t)plane_bytes(cs), host,
                                   out, hot_planes);
}

static cudaError_t slab_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    return slab_rows(sim, cs, NULL, NULL);
}

static cudaError_t slab_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    return slab_rows(sim, cs, buf, NULL);
}

static cudaError_t slab_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    return slab_rows(sim, cs, NULL, buf);
}

/* The own planes' sums (a part measures by measure_planes: lib/part.c). */
static cudaError_t slab_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    const struct potts_slab *s = slab_of(cs);
    const struct cuda_potts_range r = { s->geom.halo, s->geom.planes, s->geom.origin,
                                        sim->desc.extent[sim->desc.ndim - 1] };
    return cuda_potts_measure_range(cs->stream, &s->local, cs->spins, &r, cs->sums);
}

static const struct cuda_model_kernels slab_potts_kernels = {
    .model = LATMC_MODEL_POTTS,
    .cold_byte = 0, /* unused: cold_start */
    .colours = slab_colours,
    .create = slab_create,
    .destroy = slab_destroy,
    .cold_start = slab_cold_start,
    .hot_start = slab_hot_start,
    .step = cuda_planes_slab_no_step,
    .measure = slab_measure,
    .get_spins = slab_get_spins,
    .set_spins = slab_set_spins,
    .model_owns_spins = cuda_planes_slab_owns_spins,
    /* no device_view: no device array holds the lattice */
};

const struct cuda_model_kernels *cuda_planes_potts_part_kernels(const latmc_sim *sim)
{
    return sim->desc.replicas <= 1 ? &slab_potts_kernels : NULL;
}

/* ---- the steps, reductions and copies ---- */

size_t cuda_planes_potts_window_bytes(const struct cuda_sim *cs)
{
    return (size_t)(cs->colours + 2) * (size_t)plane_bytes(cs);
}

/* Planes below (q0 - 1 mod L), [q0, q1) and above (q1 mod L) into the window. */
static cudaError_t fill_window(const struct cuda_sim *cs, cudaStream_t stream, int64_t q0,
                               int64_t q1, uint8_t *window)
{
    const int64_t L = lattice_planes(cs), pb = plane_bytes(cs);
    const uint8_t *spins = cs->spins;
    const int64_t below = (q0 + L - 1) % L, above = q1 % L;
    cudaError_t err = cudaMemcpyAsync(window, spins + below * pb, (size_t)pb,
                                      cudaMemcpyDeviceToDevice, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(window + pb, spins + q0 * pb, (size_t)((q1 - q0) * pb),
                              cudaMemcpyDeviceToDevice, stream);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(window + (1 + q1 - q0) * pb, spins + above * pb, (size_t)pb,
                              cudaMemcpyDeviceToDevice, stream);
    return err;
}

cudaError_t cuda_planes_potts_update(const latmc_sim *sim, struct cuda_sim *cs,
                                     cudaStream_t stream, int64_t q0, int64_t q1,
                                     uint64_t sweep, int colour, uint8_t *window)
{
    if (q1 <= q0)
        return cudaSuccess;
    const struct latmc_potts_chain chain = {
        .tables = cs->tables, /* the device copy */
        .algorithm = sim->desc.algorithm,
        .q = sim->desc.q,
        .colours = cs->colours,
        .seed = sim->desc.seed,
    };
    const struct potts_slab *slab = slab_of(cs);
    const int64_t planes = sim->desc.extent[sim->desc.ndim - 1]; /* the lattice's */
    if (slab) { /* the neighbours of every own range lie in the slab */
        const struct cuda_potts_range r = { cuda_planes_local(&slab->geom, q0, q1), q1 - q0, q0,
                                            planes };
        return cuda_potts_sweep_colour_range(stream, &slab->local, cs->spins, &chain, sweep,
                                             colour, &r, cs->changed);
    }
    const int64_t L = lattice_planes(cs), pb = plane_bytes(cs);
    if (q0 > 0 && q1 < L) {
        const struct cuda_potts_range r = { q0, q1 - q0, q0, planes };
        return cuda_potts_sweep_colour_range(stream, &cs->lattice, cs->spins, &chain, sweep,
                                             colour, &r, cs->changed);
    }
    /* at an end of the lattice: in the window (q1 - q0 <= c planes, a border) */
    const struct latmc_lattice w = planes_lattice(cs, q1 - q0 + 2);
    const struct cuda_potts_range r = { 1, q1 - q0, q0, planes };
    cudaError_t err = fill_window(cs, stream, q0, q1, window);
    if (err == cudaSuccess)
        err = cuda_potts_sweep_colour_range(stream, &w, window, &chain, sweep, colour, &r,
                                            cs->changed);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync((uint8_t *)cs->spins + q0 * pb, window + pb,
                              (size_t)((q1 - q0) * pb), cudaMemcpyDeviceToDevice, stream);
    return err;
}

/*
 * The sums are integers, whose total does not depend on the grouping: all of planes
 * [p0, p1) go into the first plane's tile, zeros into the others (as Ising's,
 * cuda_planes.c). The last plane of the lattice reads plane 0 across the wrap: it is
 * measured in a window of the two.
 */
int cuda_planes_potts_measure(latmc_sim *sim, int64_t p0, int64_t p1, void *sums)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const struct potts_slab *slab = slab_of(cs);
    if (slab && !(slab->geom.origin <= p0 && p1 <= slab->geom.origin + slab->geom.planes))
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: measuring planes [%lld, %lld) "
                               "outside the part's planes", (long long)p0, (long long)p1);
    if (slab) { /* the plane after the range lies in the slab (an own or the halo plane) */
        memset(sums, 0, (size_t)(p1 - p0) * sim->model->sums_size);
        const struct cuda_potts_range r = { cuda_planes_local(&slab->geom, p0, p1), p1 - p0,
                                            p0, sim->desc.extent[sim->desc.ndim - 1] };
        cudaError_t err = cudaMemsetAsync(cs->sums, 0, sizeof(struct latmc_potts_sums),
                                          cs->stream);
        if (err == cudaSuccess)
            err = cuda_potts_measure_range(cs->stream, &slab->local, cs->spins, &r, cs->sums);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(sums, cs->sums, sizeof(struct latmc_potts_sums),
                                  cudaMemcpyDeviceToHost, cs->stream);
        const int st = cuda_check(err, "measuring planes");
        const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "measuring planes");
        return st < 0 ? st : fin;
    }
    const int64_t L = lattice_planes(cs), pb = plane_bytes(cs);
    const int64_t direct_end = p1 < L ? p1 : L - 1;
    uint8_t *window = NULL;
    int st = LATMC_OK;
    if (p1 == L)
        st = cuda_planes_scratch(cs, cuda_planes_potts_window_bytes(cs), (void **)&window);
    if (st < 0)
        return st;
    memset(sums, 0, (size_t)(p1 - p0) * sim->model->sums_size);
    struct latmc_potts_sums *dev = cs->sums;
    cudaError_t err = cudaMemsetAsync(dev, 0, sizeof *dev, cs->stream);
    if (err == cudaSuccess && direct_end > p0) {
        const struct cuda_potts_range r = { p0, direct_end - p0, p0, L };
        err = cuda_potts_measure_range(cs->stream, &cs->lattice, cs->spins, &r, dev);
    }
    if (err == cudaSuccess && p1 == L) {
        const uint8_t *spins = cs->spins;
        const struct latmc_lattice w = planes_lattice(cs, 2);
        const struct cuda_potts_range r = { 0, 1, L - 1, L };
        err = cudaMemcpyAsync(window, spins + (L - 1) * pb, (size_t)pb,
                              cudaMemcpyDeviceToDevice, cs->stream);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(window + pb, spins, (size_t)pb, cudaMemcpyDeviceToDevice,
                                  cs->stream);
        if (err == cudaSuccess)
            err = cuda_potts_measure_range(cs->stream, &w, window, &r, dev);
    }
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(sums, dev, sizeof *dev, cudaMemcpyDeviceToHost, cs->stream);
    st = cuda_check(err, "measuring planes");
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "measuring planes");
    return st < 0 ? st : fin;
}

/* The layout is the API's (one replica): planes [p0, p1) are one run of bytes. */
size_t cuda_planes_potts_plane_bytes(const struct cuda_sim *cs)
{
    return (size_t)plane_bytes(cs);
}

cudaError_t cuda_planes_potts_move(const struct cuda_sim *cs, cudaStream_t stream, int64_t p0,
                                   int64_t p1, void *get_buf, const void *set_buf)
{
    const int64_t pb = plane_bytes(cs);
    const struct potts_slab *slab = slab_of(cs);
    const int64_t at = slab ? cuda_planes_local(&slab->geom, p0, p1) : p0;
    if (at < 0)
        return cudaErrorInvalidValue; /* a range the slab does not hold (a bug) */
    uint8_t *dev = (uint8_t *)cs->spins + at * pb;
    const size_t bytes = (size_t)((p1 - p0) * pb);
    if (!set_buf)
        return cudaMemcpyAsync(get_buf, dev, bytes, cudaMemcpyDeviceToHost, stream);
    /* a slab: every local plane that is one of these (cuda_planes_local_all) */
    int64_t lp[4] = { at };
    const int copies = slab ? cuda_planes_local_all(&slab->geom, p0, p1, lp) : 1;
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < copies && err == cudaSuccess; k++)
        err = cudaMemcpyAsync((uint8_t *)cs->spins + lp[k] * pb, set_buf, bytes,
                              cudaMemcpyHostToDevice, stream);
    return err;
}
