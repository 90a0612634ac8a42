/*
 * phi^4 on a one-device CUDA sim that is one part of a lattice shared by processes
 * (cuda_planes.h; doc/mpi.md "GPU ranks"): a step on a plane range, the per-plane
 * reduction and copies. The scheduling of a step (borders on the border stream, interior
 * on the sim's stream) is cuda_planes.c's.
 *
 * The sim keeps its slab in the API's layout (below: one float or double per site,
 * natural order). Parts run the site-order schedule, whose steps are the core's
 * (lib/model_phi4.c: the step's colour and pass; halo 2): the several-GPU slabs' kernels
 * (cuda_phi4_slab_update, cuda_phi4_measure_planes) on a plane range, sites, draws and
 * colours named by the lattice's coordinates, so each step writes exactly what the
 * one-device step writes there. Those kernels read the planes within 2 of a range from
 * memory without wrap (memory plane = lattice plane - cut0), where the slab holds them.
 *
 * The chunk schedule (the one-device default wherever the extents take chunks) is a
 * different chain, two phases per sweep that the core's plan does not have: a sim on
 * it is refused as a part, with the reason (run it with LATMC_CUDA_PHI4_CHUNK=none).
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "cuda_slabs.h" /* cuda_phi4_plan_for_slabs */
#include "model.h"
#include "part.h"
#include "phi4_cuda.h"
#include "plan.h"

#define HALO CUDA_PHI4_HALO
#define NSUMS 5

static int64_t plane_sites(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lx * cs->lattice.ly : cs->lattice.lx;
}

static int64_t lattice_planes(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lz : cs->lattice.ly;
}

static size_t value_bytes(const struct cuda_phi4_plan *plan)
{
    return plan->precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double);
}

/*
 * Slab storage (every part of several; cuda_planes_phi4_part_kernels): the
 * sim keeps its own planes and HALO = 2 planes on each side (local plane p is plane
 * origin - 2 + p mod L), the memory of the slab kernels' ranges with cut0 = origin - 2:
 * every range of own planes reads its neighbours where they lie, so no window is needed.
 */
struct phi4_slab {
    struct cuda_planes_slab geom;   /* halo HALO */
    struct cuda_phi4_plan plan;     /* the one-device plan (value size, hot start) */
    struct cuda_phi4_keys keys;
};

static const struct cuda_model_kernels slab_phi4_kernels;

static struct phi4_slab *slab_of(const struct cuda_sim *cs)
{
    return cs->kernels == &slab_phi4_kernels ? cs->model_state : NULL;
}

static size_t slab_bytes(const struct cuda_sim *cs, const struct phi4_slab *s)
{
    return (size_t)((s->geom.planes + 2 * HALO) * plane_sites(cs)) * value_bytes(&s->plan);
}

static int slab_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct phi4_slab *s = calloc(1, sizeof *s);
    if (!s)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the phi^4 part's "
                               "state");
    cs->model_state = s;
    const int axis = sim->desc.ndim - 1;
    /* the part's box (sim->part->p0, p1 are set after the creation) */
    const struct latmc_box *box = &sim->plan->boxes[sim->part->rank];
    s->geom = (struct cuda_planes_slab){ box->origin[axis], box->extent[axis], HALO,
                                         lattice_planes(cs) };
    int st = cuda_phi4_plan_for_slabs(sim, cs, &s->plan, &s->keys);
    if (st == LATMC_OK)
        st = cuda_check(cuda_phi4_prepare_slabs(&s->plan), "setting the phi^4 kernels' "
                        "shared memory");
    /* cs->spins: the local planes (freed with the sim, cuda_backend.c) */
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc(&cs->spins, slab_bytes(cs, s)),
                        "cannot allocate device memory for the field of the part's slab");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(cs->spins, 0, slab_bytes(cs, s), cs->stream),
                        "clearing the field");
    if (st == LATMC_OK)
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: phi^4 part %d of %d stores "
                       "planes [%lld, %lld) and 2 x %d halo planes (%zu bytes)",
                       sim->part->rank, sim->part->n_parts, (long long)s->geom.origin,
                       (long long)(s->geom.origin + s->geom.planes), HALO, slab_bytes(cs, s));
    return st;
}

static void slab_destroy(struct cuda_sim *cs)
{
    free(cs->model_state);
    cs->model_state = NULL;
}

static int slab_colours(const latmc_sim_desc *d)
{
    return latmc_phi4_colouring_of(d->ndim, d->extent).ncolours;
}

static cudaError_t slab_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    return cudaMemsetAsync(cs->spins, 0, slab_bytes(cs, slab_of(cs)), cs->stream); /* phi = 0 */
}

/* The one-device hot start's values of global planes [plane0, plane0 + planes), named by
 * the global site, into dev (cuda_planes_slab_values). */
static cudaError_t hot_planes(const latmc_sim *sim, struct cuda_sim *cs, void *dev,
                              int64_t plane0, int64_t planes)
{
    const int64_t ps = plane_sites(cs);
    return cuda_phi4_hot_range(cs->stream, &slab_of(cs)->plan, dev, plane0 * ps, planes * ps,
                               sim->desc.seed);
}

/* The local planes, halos included, from the whole field `host` (or the hot start: host
 * NULL); or the own planes into `out` (cuda_planes_slab_values). */
static cudaError_t slab_values(const latmc_sim *sim, struct cuda_sim *cs, const void *host,
                               void *out)
{
    const struct phi4_slab *s = slab_of(cs);
    return cuda_planes_slab_values(sim, cs, &s->geom,
                                   (size_t)plane_sites(cs) * value_bytes(&s->plan), host, out,
                                   hot_planes);
}

static cudaError_t slab_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    return slab_values(sim, cs, NULL, NULL);
}

static cudaError_t slab_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    return slab_values(sim, cs, buf, NULL);
}

static cudaError_t slab_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    return slab_values(sim, cs, NULL, buf);
}

static cudaError_t slab_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim, (void)cs;
    return cudaErrorNotSupported;
}

static const struct cuda_model_kernels slab_phi4_kernels = {
    .model = LATMC_MODEL_PHI4,
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

const struct cuda_model_kernels *cuda_planes_phi4_part_kernels(const latmc_sim *sim)
{
    (void)sim;
    return &slab_phi4_kernels;
}

/* ---- the steps, reductions and copies ---- */

int cuda_planes_phi4_plan(latmc_sim *sim, struct cuda_phi4_plan *plan,
                          struct cuda_phi4_keys *keys)
{
    const int st = cuda_phi4_plan_for_slabs(sim, cuda_sim_of(sim), plan, keys);
    if (st == LATMC_OK && plan->schedule != CUDA_PHI4_SITE_ORDER)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: phi^4 on the chunk schedule "
                               "(the default where the extents take chunks) has no per-plane "
                               "steps: a sim of several parts (MPI ranks) on CUDA runs phi^4 "
                               "on the site-order schedule (LATMC_CUDA_PHI4_CHUNK=none, or "
                               "extents without chunks; doc/mpi.md, \"GPU ranks\")");
    return st;
}

cudaError_t cuda_planes_phi4_update(const latmc_sim *sim, struct cuda_sim *cs,
                                    const struct cuda_phi4_plan *plan,
                                    const struct cuda_phi4_keys *keys, cudaStream_t stream,
                                    int64_t q0, int64_t q1, uint64_t sweep,
                                    const struct latmc_step *step)
{
    if (q1 <= q0)
        return cudaSuccess;
    const struct latmc_phi4_tables *t = sim->model_data;
    /* memory plane = plane - (origin - HALO): the slab */
    const struct cuda_phi4_slab_range r = { slab_of(cs)->geom.origin - HALO, q0, q1 - q0, 0 };
    return cuda_phi4_slab_update(stream, plan, &cs->lattice, cs->spins, t, keys, sweep, step, &r,
                                 cs->changed);
}

uint64_t cuda_planes_phi4_attempted(const latmc_sim *sim, int64_t sites)
{
    const struct latmc_phi4_tables *t = sim->model_data;
    return (uint64_t)sites * t->nloc * t->nhit;
}

/*
 * Each plane's sums (the one-device reduction's per-plane values, which the slabs add in
 * plane order too): scratch holds the plane sums and the rows' partials. The slab holds
 * the planes after its own that the reduction reads (its upper halo).
 */
int cuda_planes_phi4_measure(latmc_sim *sim, const struct cuda_phi4_plan *plan, int64_t p0,
                             int64_t p1, void *sums)
{
    _Static_assert(sizeof(struct latmc_phi4_sums) == NSUMS * sizeof(double),
                   "struct latmc_phi4_sums is not 5 doubles");
    struct cuda_sim *cs = cuda_sim_of(sim);
    const int64_t np = p1 - p0;
    const int64_t rows = np * (cs->lattice.ndim == 3 ? cs->lattice.ly : 1);
    const struct phi4_slab *slab = slab_of(cs);
    if (!(slab->geom.origin <= p0 && p1 <= slab->geom.origin + slab->geom.planes))
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: measuring planes [%lld, %lld) "
                               "outside the part's planes", (long long)p0, (long long)p1);
    const size_t sums_bytes = (size_t)np * NSUMS * sizeof(double);
    const size_t partial_bytes = (size_t)rows * NSUMS * sizeof(double);
    void *scratch = NULL;
    int st = cuda_planes_scratch(cs, sums_bytes + partial_bytes, &scratch);
    if (st < 0)
        return st;
    double *plane_sums = scratch, *partials = plane_sums + (size_t)np * NSUMS;
    const struct cuda_phi4_slab_range r = { slab->geom.origin - HALO, p0, np, 0 };
    cudaError_t err = cuda_phi4_measure_planes(cs->stream, plan, &cs->lattice, cs->spins, &r,
                                               partials, plane_sums);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(sums, plane_sums, sums_bytes, cudaMemcpyDeviceToHost, cs->stream);
    st = cuda_check(err, "measuring planes");
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "measuring planes");
    return st < 0 ? st : fin;
}

/* The layout is the API's (one replica): planes [p0, p1) are one run of values. */
size_t cuda_planes_phi4_plane_bytes(const struct cuda_sim *cs,
                                    const struct cuda_phi4_plan *plan)
{
    return (size_t)plane_sites(cs) * value_bytes(plan);
}

cudaError_t cuda_planes_phi4_move(const struct cuda_sim *cs, const struct cuda_phi4_plan *plan,
                                  cudaStream_t stream, int64_t p0, int64_t p1, void *get_buf,
                                  const void *set_buf)
{
    const size_t pb = (size_t)plane_sites(cs) * value_bytes(plan);
    const struct phi4_slab *slab = slab_of(cs);
    /* a slab: the own planes for a get, every local copy for a set (cuda_planes_local_all) */
    int64_t lp[4] = { p0 };
    const int copies = cuda_planes_local_all(&slab->geom, p0, p1, lp);
    if (copies == 0)
        return cudaErrorInvalidValue; /* a range the slab does not hold (a bug) */
    const size_t bytes = (size_t)(p1 - p0) * pb;
    if (!set_buf)
        return cudaMemcpyAsync(get_buf, (char *)cs->spins + (size_t)lp[0] * pb, bytes,
                               cudaMemcpyDeviceToHost, stream);
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < copies && err == cudaSuccess; k++)
        err = cudaMemcpyAsync((char *)cs->spins + (size_t)lp[k] * pb, set_buf, bytes,
                              cudaMemcpyHostToDevice, stream);
    return err;
}
