/*
 * The q-state Potts model on a one-device CUDA sim that is one part of a lattice shared
 * by processes (cuda_planes.h; doc/mpi.md "GPU ranks"): a colour on a plane range, the
 * per-plane reduction and copies. The scheduling of a step (borders on the border
 * stream, interior on the sim's stream) is cuda_planes.c's.
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
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "model.h"
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
    const int64_t L = lattice_planes(cs), pb = plane_bytes(cs);
    if (q0 > 0 && q1 < L) {
        const struct cuda_potts_range r = { q0, q1 - q0, q0 };
        return cuda_potts_sweep_colour_range(stream, &cs->lattice, cs->spins, &chain, sweep,
                                             colour, &r, cs->changed);
    }
    /* at an end of the lattice: in the window (q1 - q0 <= c planes, a border) */
    const struct latmc_lattice w = planes_lattice(cs, q1 - q0 + 2);
    const struct cuda_potts_range r = { 1, q1 - q0, q0 };
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
        const struct cuda_potts_range r = { p0, direct_end - p0, p0 };
        err = cuda_potts_measure_range(cs->stream, &cs->lattice, cs->spins, &r, dev);
    }
    if (err == cudaSuccess && p1 == L) {
        const uint8_t *spins = cs->spins;
        const struct latmc_lattice w = planes_lattice(cs, 2);
        const struct cuda_potts_range r = { 0, 1, L - 1 };
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
    uint8_t *dev = (uint8_t *)cs->spins + p0 * pb;
    const size_t bytes = (size_t)((p1 - p0) * pb);
    return set_buf ? cudaMemcpyAsync(dev, set_buf, bytes, cudaMemcpyHostToDevice, stream)
                   : cudaMemcpyAsync(get_buf, dev, bytes, cudaMemcpyDeviceToHost, stream);
}
