/*
 * phi^4 on a one-device CUDA sim that is one part of a lattice shared by processes
 * (cuda_planes.h; doc/mpi.md "GPU ranks"): a step on a plane range, the per-plane
 * reduction and copies. The scheduling of a step (borders on the border stream, interior
 * on the sim's stream) is cuda_planes.c's.
 *
 * The sim keeps the whole field in the API's layout (cs->spins: one float or double per
 * site, natural order). Parts run the site-order schedule, whose steps are the core's
 * (lib/model_phi4.c: step s is colour s mod ncolours of pass s / ncolours; halo 2): the
 * several-GPU slabs' kernels (cuda_phi4_slab_update, cuda_phi4_measure_planes) on a plane
 * range, sites, draws and colours named by the lattice's coordinates, so each step writes
 * exactly what the one-device step writes there. Those kernels read the planes within 2
 * of a range from memory without wrap (memory plane = lattice plane - cut0): a range two
 * planes or more from the lattice's ends reads them where they lie in the whole field
 * (cut0 = 0); a range nearer an end (the first or last part's border, 2 planes) runs in a
 * window of scratch memory holding it and 2 planes on each side (across the wrap: halos
 * that set_planes wrote), its planes copied back after the update.
 *
 * The chunk schedule (the one-device default wherever the extents take chunks) is a
 * different chain, two phases per sweep that the core's plan does not have: a sim on
 * it is refused as a part, with the reason (run it with LATMC_CUDA_PHI4_CHUNK=none).
 */
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "cuda_slabs.h" /* cuda_phi4_plan_for_slabs */
#include "model.h"
#include "phi4_cuda.h"

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

/* Planes [q0 - HALO, q1 + HALO) (mod L) into the window. */
static cudaError_t fill_window(const struct cuda_sim *cs, size_t vb, cudaStream_t stream,
                               int64_t q0, int64_t q1, char *window)
{
    const int64_t L = lattice_planes(cs);
    const size_t pb = (size_t)plane_sites(cs) * vb;
    const char *phi = cs->spins;
    cudaError_t err = cudaSuccess;
    /* in runs of planes that do not wrap */
    for (int64_t p = q0 - HALO; p < q1 + HALO && err == cudaSuccess;) {
        const int64_t at = (p % L + L) % L;
        int64_t run = q1 + HALO - p;
        if (run > L - at)
            run = L - at;
        err = cudaMemcpyAsync(window + (size_t)(p - (q0 - HALO)) * pb, phi + (size_t)at * pb,
                              (size_t)run * pb, cudaMemcpyDeviceToDevice, stream);
        p += run;
    }
    return err;
}

size_t cuda_planes_phi4_window_bytes(const struct cuda_sim *cs,
                                     const struct cuda_phi4_plan *plan, int64_t planes)
{
    return (size_t)(planes + 2 * HALO) * (size_t)plane_sites(cs) * value_bytes(plan);
}

cudaError_t cuda_planes_phi4_update(const latmc_sim *sim, struct cuda_sim *cs,
                                    const struct cuda_phi4_plan *plan,
                                    const struct cuda_phi4_keys *keys, cudaStream_t stream,
                                    int64_t q0, int64_t q1, uint64_t sweep, int step,
                                    void *window)
{
    if (q1 <= q0)
        return cudaSuccess;
    const struct latmc_phi4_tables *t = sim->model_data;
    const int64_t L = lattice_planes(cs);
    if (q0 >= HALO && q1 <= L - HALO) {
        const struct cuda_phi4_slab_range r = { 0, q0, q1 - q0, 0 };
        return cuda_phi4_slab_update(stream, plan, &cs->lattice, cs->spins, t, keys, sweep, step,
                                     &r, cs->changed);
    }
    /* near an end of the lattice: in the window (a border of at most HALO planes) */
    const size_t vb = value_bytes(plan), pb = (size_t)plane_sites(cs) * vb;
    const struct cuda_phi4_slab_range r = { q0 - HALO, q0, q1 - q0, 0 };
    cudaError_t err = fill_window(cs, vb, stream, q0, q1, window);
    if (err == cudaSuccess)
        err = cuda_phi4_slab_update(stream, plan, &cs->lattice, window, t, keys, sweep, step,
                                    &r, cs->changed);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync((char *)cs->spins + (size_t)q0 * pb, (char *)window + HALO * pb,
                              (size_t)(q1 - q0) * pb, cudaMemcpyDeviceToDevice, stream);
    return err;
}

uint64_t cuda_planes_phi4_attempted(const latmc_sim *sim, int64_t sites)
{
    const struct latmc_phi4_tables *t = sim->model_data;
    return (uint64_t)sites * t->nloc * t->nhit;
}

/*
 * Each plane's sums (the one-device reduction's per-plane values, which the slabs add in
 * plane order too): scratch holds the plane sums, the rows' partials and, for a range
 * within 2 planes of an end, the window.
 */
int cuda_planes_phi4_measure(latmc_sim *sim, const struct cuda_phi4_plan *plan, int64_t p0,
                             int64_t p1, void *sums)
{
    _Static_assert(sizeof(struct latmc_phi4_sums) == NSUMS * sizeof(double),
                   "struct latmc_phi4_sums is not 5 doubles");
    struct cuda_sim *cs = cuda_sim_of(sim);
    const int64_t L = lattice_planes(cs), np = p1 - p0;
    const int64_t rows = np * (cs->lattice.ndim == 3 ? cs->lattice.ly : 1);
    const bool direct = p0 >= HALO && p1 <= L - HALO;
    const size_t sums_bytes = (size_t)np * NSUMS * sizeof(double);
    const size_t partial_bytes = (size_t)rows * NSUMS * sizeof(double);
    const size_t window_bytes = direct ? 0 : cuda_planes_phi4_window_bytes(cs, plan, np);
    void *scratch = NULL;
    int st = cuda_planes_scratch(cs, sums_bytes + partial_bytes + window_bytes, &scratch);
    if (st < 0)
        return st;
    double *plane_sums = scratch, *partials = plane_sums + (size_t)np * NSUMS;
    void *window = (char *)scratch + sums_bytes + partial_bytes;
    cudaError_t err = cudaSuccess;
    struct cuda_phi4_slab_range r = { 0, p0, np, 0 };
    const void *phi = cs->spins;
    if (!direct) {
        err = fill_window(cs, value_bytes(plan), cs->stream, p0, p1, window);
        r.cut0 = p0 - HALO;
        phi = window;
    }
    if (err == cudaSuccess)
        err = cuda_phi4_measure_planes(cs->stream, plan, &cs->lattice, phi, &r, partials,
                                       plane_sums);
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
    char *dev = (char *)cs->spins + (size_t)p0 * pb;
    const size_t bytes = (size_t)(p1 - p0) * pb;
    return set_buf ? cudaMemcpyAsync(dev, set_buf, bytes, cudaMemcpyHostToDevice, stream)
                   : cudaMemcpyAsync(get_buf, dev, bytes, cudaMemcpyDeviceToHost, stream);
}
