/*
 * A one-device CUDA sim as one part of a lattice shared by processes (cuda_planes.h,
 * lib/part.h, doc/mpi.md "GPU ranks"): the step on the part's box, and the per-plane ops
 * by which lib/part.c exchanges halos, measures and gathers configurations.
 *
 * The sim stores the whole lattice (as a CPU part does); a step updates the rows of its
 * box only, with the one-device packed kernels restricted to those rows (row offset 0:
 * the lattice is the global one, so every random number is named by the global site, as
 * on one device and on the CPU). The periodic wrap of the box's first and last planes
 * reads the planes next to it, which are the halos set_planes wrote.
 *
 * Planes travel in get_spins' byte layout restricted to them (lib/backend.h): a small
 * pack or unpack of planes [q0, q1) between the colour arrays and a device scratch
 * buffer, then one copy. The pack kernels walk a lattice of q1 - q0 planes at the planes'
 * words; a row's colour parity is that of y + z, so an odd first plane swaps the colours.
 */
#include <stdio.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "ising.h"
#include "ising_packed.h"
#include "model.h"
#include "plan.h"

/* Scratch of at most this many bytes moves planes in chunks (a whole slab's gather). */
#define CHUNK_BYTES ((size_t)64 << 20)

/* Packed rows per plane along the last axis (rows are y + L_y z): L_y in 3D, 1 in 2D. */
static int64_t plane_rows(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.ly : 1;
}

static int64_t plane_sites(const struct cuda_sim *cs)
{
    return cs->lattice.lx * plane_rows(cs);
}

/* Words of one colour per plane. */
static size_t plane_words(const struct cuda_sim *cs)
{
    return (size_t)(plane_rows(cs) * (cs->lattice.lx / 16));
}

/*
 * The sim's packed layout made current on its device, or a refusal saying why: a part on
 * CUDA runs Ising on the packed kernels of a one-device sim.
 */
static int packed_part(latmc_sim *sim, bool writing, struct cuda_ising_packed_access *pa,
                       const char *what)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    memset(pa, 0, sizeof *pa);
    if (cs->slabs)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: %s of a part spread over "
                               "several devices (desc.n_devices > 1): a part (MPI rank) runs "
                               "on one device", what);
    if (sim->desc.model != LATMC_MODEL_ISING)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: no per-plane %s for the %s "
                               "model in this version: a sim of several parts (MPI ranks) on "
                               "CUDA runs Ising", what, sim->model->name);
    int st = cuda_check(cudaSetDevice(cs->device), "cudaSetDevice");
    if (st == LATMC_OK)
        st = cuda_check(cuda_ising_packed_access(cs, writing, pa),
                        "making the packed spins current");
    if (st == LATMC_OK && !pa->colour[0])
        st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: %s: the lattice does not fit "
                             "the multi-spin coded layout that the parts of a sim on CUDA "
                             "use (L_x a multiple of 16, of 64 with +-J couplings)", what);
    return st;
}

/* A device scratch buffer of at least `bytes`, kept with the sim (freed by destroy). */
static int scratch(struct cuda_sim *cs, size_t bytes, void **out)
{
    if (cs->planes_scratch_bytes < bytes) {
        cudaFree(cs->planes_scratch);
        cs->planes_scratch = NULL;
        cs->planes_scratch_bytes = 0;
        int st = cuda_check(cudaMalloc(&cs->planes_scratch, bytes),
                            "cannot allocate device memory for moving planes");
        if (st < 0)
            return st;
        cs->planes_scratch_bytes = bytes;
    }
    *out = cs->planes_scratch;
    return LATMC_OK;
}

/* The lattice of planes [q0, q1) and its colour arrays (c0, c1: colour 0 and 1 of it). */
static void planes_view(const struct cuda_sim *cs, const struct cuda_ising_packed_access *pa,
                        int64_t q0, int64_t q1, struct latmc_lattice *g, uint32_t **c0,
                        uint32_t **c1)
{
    *g = cs->lattice;
    if (g->ndim == 3)
        g->lz = q1 - q0;
    else
        g->ly = q1 - q0;
    g->nsites = (q1 - q0) * plane_sites(cs);
    const size_t at = (size_t)q0 * plane_words(cs);
    const int swap = (int)(q0 & 1);
    *c0 = pa->colour[swap] + at;
    *c1 = pa->colour[swap ^ 1] + at;
}

/* Planes per chunk and the scratch for them. */
static int chunking(struct cuda_sim *cs, int64_t p0, int64_t p1, int64_t *per, void **buf)
{
    const size_t pb = (size_t)plane_sites(cs);
    int64_t n = (int64_t)(CHUNK_BYTES / pb);
    if (n < 1)
        n = 1;
    if (n > p1 - p0)
        n = p1 - p0;
    *per = n;
    return scratch(cs, (size_t)n * pb, buf);
}

int cuda_planes_get(latmc_sim *sim, int64_t p0, int64_t p1, void *buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    struct cuda_ising_packed_access pa;
    int64_t per = 0;
    void *dev = NULL;
    int st = packed_part(sim, false, &pa, "configuration copy");
    if (st == LATMC_OK)
        st = chunking(cs, p0, p1, &per, &dev);
    const size_t pb = (size_t)plane_sites(cs);
    for (int64_t q = p0; q < p1 && st == LATMC_OK; q += per) {
        const int64_t q1 = q + per < p1 ? q + per : p1;
        struct latmc_lattice g;
        uint32_t *c0, *c1;
        planes_view(cs, &pa, q, q1, &g, &c0, &c1);
        cudaError_t err = cuda_ising_unpack(cs->stream, &g, c0, c1, (int8_t *)dev);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync((int8_t *)buf + (size_t)(q - p0) * pb, dev,
                                  (size_t)(q1 - q) * pb, cudaMemcpyDeviceToHost, cs->stream);
        st = cuda_check(err, "copying planes to the host");
    }
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "copying planes to the host");
    return st < 0 ? st : fin;
}

int cuda_planes_set(latmc_sim *sim, int64_t p0, int64_t p1, const void *buf)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    struct cuda_ising_packed_access pa;
    int64_t per = 0;
    void *dev = NULL;
    int st = packed_part(sim, true, &pa, "configuration copy");
    if (st == LATMC_OK)
        st = chunking(cs, p0, p1, &per, &dev);
    const size_t pb = (size_t)plane_sites(cs);
    for (int64_t q = p0; q < p1 && st == LATMC_OK; q += per) {
        const int64_t q1 = q + per < p1 ? q + per : p1;
        struct latmc_lattice g;
        uint32_t *c0, *c1;
        planes_view(cs, &pa, q, q1, &g, &c0, &c1);
        cudaError_t err = cudaMemcpyAsync(dev, (const int8_t *)buf + (size_t)(q - p0) * pb,
                                          (size_t)(q1 - q) * pb, cudaMemcpyHostToDevice,
                                          cs->stream);
        if (err == cudaSuccess)
            err = cuda_ising_pack(cs->stream, &g, (const int8_t *)dev, c0, c1);
        st = cuda_check(err, "copying planes to the device");
    }
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "copying planes to the device");
    return st < 0 ? st : fin;
}

/*
 * Ising's sums are integers, whose sum does not depend on how they are grouped: the sums
 * of all planes [p0, p1) in the first plane's tile and zeros in the others add up (in
 * plane order, model->add_sums) to exactly what one tile per plane would give, in one
 * launch instead of p1 - p0.
 */
int cuda_planes_measure(latmc_sim *sim, int64_t p0, int64_t p1, void *sums)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    struct cuda_ising_packed_access pa;
    int st = packed_part(sim, false, &pa, "reduction");
    if (st < 0)
        return st;
    memset(sums, 0, (size_t)(p1 - p0) * sim->model->sums_size);
    const struct cuda_ising_rows rows = { p0 * plane_rows(cs), (p1 - p0) * plane_rows(cs), 0, 0 };
    cudaError_t err = cudaMemsetAsync(cs->sums, 0, sizeof(struct latmc_ising_sums), cs->stream);
    if (err == cudaSuccess)
        err = cuda_ising_packed_measure_rows(cs->stream, &cs->lattice, &rows, pa.colour[0],
                                             pa.colour[1], pa.eps[0], cs->sums);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(sums, cs->sums, sizeof(struct latmc_ising_sums),
                              cudaMemcpyDeviceToHost, cs->stream);
    st = cuda_check(err, "measuring planes");
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "measuring planes");
    return st < 0 ? st : fin;
}

/*
 * One colour on the rows of the part's box. The acceptance counter is cleared at the
 * first step of a latmc_sim_sweep call and read at its last (latmc_step_call.last); the
 * steps between do not wait (the halo copies that follow each step do).
 */
int cuda_planes_run_step(latmc_sim *sim, const struct latmc_step_call *call,
                         uint64_t *accepted, uint64_t *attempted)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (call->n_boxes != 1 || call->part != LATMC_STEP_WHOLE)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA backend: run_step of a one-device sim "
                               "with %d boxes, part %d (a bug in the core)", call->n_boxes,
                               call->part);
    struct cuda_ising_packed_access pa;
    int st = packed_part(sim, true, &pa, "step");
    if (st < 0)
        return st;
    if (!pa.thr_fit)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "Ising on CUDA parts: the decision tables "
                               "at this beta do not fit the multi-spin coded kernels' 32-bit "
                               "thresholds (extreme beta); run it as one process");
    const struct latmc_box *box = &call->boxes[0];
    const int c = call->step;
    const int64_t q0 = box->origin[box->axis], n = box->extent[box->axis];
    const struct cuda_ising_rows rows = { q0 * plane_rows(cs), n * plane_rows(cs), 0, 0 };
    cudaError_t err = cudaSuccess;
    if (call->sweep == sim->sweeps && call->step == 0)
        err = cudaMemsetAsync(cs->changed, 0, sizeof *cs->changed, cs->stream);
    if (err == cudaSuccess)
        err = cuda_ising_packed_sweep_rows(cs->stream, &cs->lattice, &rows, pa.colour[c],
                                           pa.colour[c ^ 1], pa.eps[c], pa.thr,
                                           sim->desc.algorithm, sim->desc.seed, call->sweep, c,
                                           cs->changed);
    if ((st = cuda_check(err, "launching a step on the part's planes")) < 0)
        return st;
    if (call->step + 1 == sim->plan->n_steps)
        *attempted += (uint64_t)(n * plane_sites(cs)); /* the box's sites, all attempted */
    if (!call->last)
        return LATMC_OK;
    unsigned long long changed = 0;
    err = cudaMemcpyAsync(&changed, cs->changed, sizeof changed, cudaMemcpyDeviceToHost,
                          cs->stream);
    st = cuda_check(err, "reading the acceptance counter");
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "sweeping the part's planes");
    if (st == LATMC_OK && fin == LATMC_OK)
        *accepted += changed;
    return st < 0 ? st : fin;
}
