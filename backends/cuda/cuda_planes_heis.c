/*
 * The Heisenberg spin glass on a one-device CUDA sim that is one part of a lattice shared
 * by processes (cuda_planes.h; doc/mpi.md "GPU ranks"): a pass on a plane range, the
 * halo planes, the per-plane reduction and copies. The scheduling of a step (borders on
 * the border stream, interior on the sim's stream) is cuda_planes.c's.
 *
 * The sim keeps the whole lattice in its two SoA buffers (cuda_heisenberg.c). A pass of
 * the one-device kernels (heisenberg_kernels.cu) over planes [q0, q1) of the whole
 * lattice (geometry narrowed with cuda_heis_geom_range; planes, draws and colouring named
 * by the lattice's coordinates, wrapping periodically) writes exactly what the
 * one-device pass writes there: it reads the old configuration up to two planes beyond
 * the range (colour 0 of the neighbouring planes is recomputed). Only the part's planes
 * and the halos are kept current in the buffer a pass writes; the others are stale and
 * never read (lib/part.c reads and measures a part's own planes only, and set_spins
 * writes the whole lattice).
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
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
#include "cuda_planes_transpose.h"
#include "heisenberg.h"
#include "heisenberg_cuda.h"
#include "model.h"

#define NSUMS 13
#define HALO 2 /* planes beyond a range that its pass reads */

static int64_t plane_sites(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lx * cs->lattice.ly : cs->lattice.lx;
}

static int64_t lattice_planes(const struct cuda_sim *cs)
{
    return cs->lattice.ndim == 3 ? cs->lattice.lz : cs->lattice.ly;
}

cudaError_t cuda_planes_heis_pass(const latmc_sim *sim, struct cuda_sim *cs,
                                  cudaStream_t stream, int64_t q0, int64_t q1, uint64_t sweep,
                                  int step)
{
    if (q1 <= q0 || latmc_heisenberg_step_colour(step) != 0)
        return cudaSuccess;
    struct cuda_heis_part hp;
    cuda_heis_part_state(cs, &hp);
    const struct latmc_heisenberg_params *p = sim->model_data;
    const int hb = latmc_heisenberg_step_is_heatbath(sim->desc.algorithm == LATMC_ALGO_HEATBATH,
                                                     step);
    struct cuda_heis_geom g = hp.geom[hb];
    cuda_heis_geom_range(&g, (int)q0, (int)(q1 - q0));
    struct cuda_heis_pass_args a;
    memset(&a, 0, sizeof a);
    a.src = hp.buf[*hp.cur];
    a.dst = hp.buf[1 - *hp.cur];
    a.J = hp.couplings;
    a.beta = p->beta;
    a.h = p->h;
    a.seed = sim->desc.seed;
    a.sweep = sweep;
    a.count = cs->changed;
    return cuda_heis_pass(stream, &g, &a, sim->desc.precision == LATMC_PRECISION_DOUBLE, hb);
}

void cuda_planes_heis_flip(struct cuda_sim *cs)
{
    struct cuda_heis_part hp;
    cuda_heis_part_state(cs, &hp);
    *hp.cur = 1 - *hp.cur;
}

uint64_t cuda_planes_heis_attempted(const latmc_sim *sim, int64_t sites)
{
    return sim->desc.algorithm == LATMC_ALGO_HEATBATH
               ? (uint64_t)sites * (uint64_t)sim->desc.replicas : 0;
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
    struct cuda_heis_part hp;
    cuda_heis_part_state(cs, &hp);
    const int nrep = sim->desc.replicas;
    const int64_t ps = plane_sites(cs);
    const size_t m = (size_t)((p1 - p0) * ps), n = (size_t)sim->nsites;
    const size_t site_bytes = 3 * sizeof(float), plane_bytes = (size_t)nrep * (size_t)ps * site_bytes;
    int64_t per = (int64_t)(CUDA_PLANES_STAGE_BYTES / plane_bytes);
    if (per < 1)
        per = 1;
    if (per > p1 - p0)
        per = p1 - p0;
    void *dev = NULL, *host = NULL;
    int st = cuda_planes_stage(cs, (size_t)per * plane_bytes, (size_t)per * plane_bytes, &dev,
                               &host);
    const char *what = set_buf ? "copying planes to the device" : "copying planes to the host";
    for (int64_t q = p0; q < p1 && st == LATMC_OK; q += per) {
        const int64_t q1 = q + per < p1 ? q + per : p1;
        const size_t mc = (size_t)((q1 - q) * ps), at = (size_t)((q - p0) * ps);
        const size_t run = mc * site_bytes, bytes = (size_t)nrep * run;
        float *soa = hp.buf[*hp.cur] + (size_t)q * (size_t)ps;
        /* replica r's sites of the chunk: at r m + at in the caller's buffer, r mc in the
         * stage */
        cudaError_t err;
        if (set_buf) {
            for (int r = 0; r < nrep; r++)
                memcpy((char *)host + (size_t)r * run,
                       (const char *)set_buf + ((size_t)r * m + at) * site_bytes, run);
            err = cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, stream);
            if (err == cudaSuccess)
                err = cuda_planes_heis_scatter(stream, soa, (long long)n, dev, (long long)mc,
                                               nrep);
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
int64_t cuda_planes_heis_border(struct cuda_sim *cs)
{
    struct cuda_heis_part hp;
    cuda_heis_part_state(cs, &hp);
    int64_t w = HALO;
    for (int hb = 0; hb < 2; hb++) {
        const int unit = hp.geom[hb].ndim == 3 ? hp.geom[hb].zc : hp.geom[hb].ty;
        w = unit > w ? unit : w;
    }
    return w;
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
    struct cuda_heis_part hp;
    cuda_heis_part_state(cs, &hp);
    const int64_t L = lattice_planes(cs), ps = plane_sites(cs), np = p1 - p0;
    const int nrep = sim->desc.replicas, ndim = cs->lattice.ndim;
    const long long per_plane = (ndim == 3 ? cs->lattice.ly : 1) / hp.rows_per_chunk;
    const size_t sums_bytes = (size_t)np * NSUMS * sizeof(double);
    const size_t window_floats = (size_t)(3 * nrep * 2 + ndim * 2) * (size_t)ps;
    void *scratch = NULL;
    int st = cuda_planes_scratch(cs, sums_bytes + window_floats * sizeof(float), &scratch);
    if (st < 0)
        return st;
    double *plane_sums = scratch;
    float *window = (float *)((char *)scratch + sums_bytes);
    const float *spins = hp.buf[*hp.cur];
    const size_t n = (size_t)sim->nsites;
    /* the planes with a next plane in memory: [p0, direct_end) */
    const int64_t direct_end = p1 < L ? p1 : L - 1;
    cudaError_t err = cudaMemsetAsync(plane_sums, 0, sums_bytes, cs->stream);
    if (err == cudaSuccess && direct_end > p0) {
        struct cuda_heis_geom g = hp.geom[0];
        if (ndim == 3)
            g.lz = (int)(direct_end - p0) + 1;
        else
            g.ly = (int)(direct_end - p0) + 1;
        g.n = (long long)n; /* the arrays' stride: the whole lattice */
        const size_t at = (size_t)(p0 * ps);
        err = cuda_heis_measure_planes(cs->stream, &g, spins + at, hp.couplings + at,
                                       hp.rows_per_chunk, (direct_end - p0) * per_plane,
                                       hp.partials, plane_sums);
    }
    if (err == cudaSuccess && p1 == L) {
        /* window: 2 planes (L - 1, then 0) of each spin run and coupling run */
        const size_t wn = 2 * (size_t)ps;
        const int runs = 3 * nrep + ndim;
        for (int k = 0; k < runs && err == cudaSuccess; k++) {
            const float *from = k < 3 * nrep ? spins + (size_t)k * n
                                             : hp.couplings + (size_t)(k - 3 * nrep) * n;
            float *to = window + (size_t)k * wn;
            err = cudaMemcpyAsync(to, from + (size_t)((L - 1) * ps), (size_t)ps * sizeof(float),
                                  cudaMemcpyDeviceToDevice, cs->stream);
            if (err == cudaSuccess)
                err = cudaMemcpyAsync(to + ps, from, (size_t)ps * sizeof(float),
                                      cudaMemcpyDeviceToDevice, cs->stream);
        }
        struct cuda_heis_geom g = hp.geom[0];
        if (ndim == 3)
            g.lz = 2;
        else
            g.ly = 2;
        g.n = (long long)wn;
        if (err == cudaSuccess)
            err = cuda_heis_measure_planes(cs->stream, &g, window, window + (size_t)3 * nrep * wn,
                                           hp.rows_per_chunk, per_plane, hp.partials,
                                           plane_sums + (size_t)(L - 1 - p0) * NSUMS);
    }
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(sums, plane_sums, sums_bytes, cudaMemcpyDeviceToHost, cs->stream);
    st = cuda_check(err, "measuring planes");
    const int fin = cuda_check(cudaStreamSynchronize(cs->stream), "measuring planes");
    return st < 0 ? st : fin;
}
