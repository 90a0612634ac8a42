/*
 * The Heisenberg spin glass in the CUDA module: device state, launch geometry and the
 * hooks of struct cuda_model_kernels (cuda_backend.h). Kernels: heisenberg_kernels.cu.
 *
 * State: the spins in structure-of-arrays layout in two buffers (buf[0] is the generic
 * cs->spins, of the same size), cur naming the one that holds the configuration; a pass
 * reads buf[cur], writes buf[1 - cur] and flips cur. Between passes the other buffer is
 * free, and it stages the API-layout copies of get/set_spins and get/set_couplings. The
 * couplings (SoA) and the reduction's per-chunk partial sums complete the state.
 *
 * The couplings (the core's draw_couplings, on desc.n_threads host threads) and the hot
 * start (the per-block functions of lib/heisenberg_rules.h) are drawn on the host and
 * copied in, so they are the CPU's floats bit for bit.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "heisenberg.h"
#include "heisenberg_cuda.h"
#include "heisenberg_rules.h"

/* The kernels write the sums as 13 consecutive doubles. */
_Static_assert(sizeof(struct latmc_heisenberg_sums) == 13 * sizeof(double) &&
               offsetof(struct latmc_heisenberg_sums, mag) == sizeof(double) &&
               offsetof(struct latmc_heisenberg_sums, overlap) == 4 * sizeof(double),
               "struct latmc_heisenberg_sums is not 13 packed doubles");

/* The launch-geometry override: "TX,TY,ZC,THREADS[,PREFETCH[,JSMEM]]" (doc/cuda.md). */
#define HEIS_TILE_ENV "LATMC_CUDA_HEISENBERG_TILE"

/*
 * Default geometries, the fastest measured on an H200 at 256^3 with two replicas
 * (doc/PERFORMANCE.md): overrelaxation in float 64 x 8 tiles (68 x 12 with the halo;
 * 96 KiB of shared memory, two blocks per SM), everything else 32 x 8 (51 KiB); 32 planes
 * per block; 256 threads (heat bath in double: 128); the next plane prefetched (3D); the
 * couplings read from global memory (through shared memory, JSMEM = 1, was slower: the
 * extra shared memory halves the blocks per SM).
 */
struct heis_default {
    int tx, ty, zc, threads;
};
static const struct heis_default heis_defaults[2][2] = {
    /* [heat bath][double] */
    { { 64, 8, 32, 256 }, { 32, 8, 32, 256 } },  /* overrelaxation: float, double */
    { { 32, 8, 32, 256 }, { 32, 8, 32, 128 } },  /* heat bath: float, double */
};
#define HEIS_PREFETCH 1
#define HEIS_JSMEM 0

/* Extents the kernels' 32-bit coordinates take (a lattice that large would not fit
 * anyway). */
#define HEIS_MAX_EXTENT (INT64_C(1) << 30)

struct heis_state {
    float *buf[2];
    int cur;
    float *couplings;
    double *partials;
    long long rows_per_chunk, nchunks;
    struct cuda_heis_geom geom[2];  /* [0] overrelaxation passes, [1] heat-bath passes */
};

static struct heis_state *hstate(const struct cuda_sim *cs)
{
    return cs->model_state;
}

static size_t spin_floats(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.replicas * LATMC_HEISENBERG_COMPONENTS;
}

static size_t coupling_floats(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.ndim;
}

/* One integer in [lo, hi] at *s, advancing *s; -1 when there is none. */
static long parse_field(const char **s, long lo, long hi)
{
    char *end;
    errno = 0;
    const long v = strtol(*s, &end, 10);
    if (end == *s || errno != 0 || v < lo || v > hi)
        return -1;
    *s = end;
    return v;
}

/* The geometry of LATMC_CUDA_HEISENBERG_TILE, when set:
 * "TX,TY,ZC,THREADS[,PREFETCH[,JSMEM]]". */
static int read_tile_env(struct cuda_heis_geom *g)
{
    const char *env = getenv(HEIS_TILE_ENV);
    if (!env || !*env)
        return LATMC_OK;
    const char *s = env;
    g->tx = g->ty = g->zc = g->threads = 0;
    long v[6] = { -1, -1, -1, -1, HEIS_PREFETCH, HEIS_JSMEM };
    static const long lo[6] = { 2, 2, 1, 32, 0, 0 }, hi[6] = { 1024, 1024, 1 << 20, 1024, 1, 1 };
    bool ok = true;
    for (int k = 0; k < 6 && ok; k++) {
        if (k >= 4 && *s == '\0')
            break; /* PREFETCH and JSMEM are optional */
        if (k > 0 && *s++ != ',')
            ok = false;
        else
            ok = (v[k] = parse_field(&s, lo[k], hi[k])) >= 0;
    }
    if (!ok || *s != '\0' || v[0] % 2 || v[1] % 2 || v[3] % 32)
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": expected "
                               "\"TX,TY,ZC,THREADS[,PREFETCH[,JSMEM]]\" with TX, TY even in "
                               "[2, 1024], ZC in [1, 2^20], THREADS a multiple of 32 in "
                               "[32, 1024], PREFETCH and JSMEM 0 or 1", HEIS_TILE_ENV, env);
    g->tx = (int)v[0];
    g->ty = (int)v[1];
    g->zc = (int)v[2];
    g->threads = (int)v[3];
    g->prefetch = (int)v[4];
    g->jsmem = (int)v[5];
    return LATMC_OK;
}

static long long ceil_div(long long a, long long b)
{
    return (a + b - 1) / b;
}

/* Tiles, grid and shared memory of g's tile, and the kernels made ready for it: LATMC_OK,
 * LATMC_EINVAL when the device cannot launch it (message naming the limits), or the
 * failure. */
static int finish_geometry(struct cuda_heis_geom *g)
{
    if (g->ndim == 2) {
        g->zc = 1;
        g->prefetch = 0; /* one plane per block: nothing to prefetch */
    }
    /* the pass covers the own planes only (all of them on one device) */
    const int own_z = g->ndim == 3 ? g->own_n : 1, own_y = g->ndim == 3 ? g->ly : g->own_n;
    /* at most 65535 z chunks (the grid's y limit): longer chunks where needed */
    if (ceil_div(own_z, g->zc) > 65535)
        g->zc = (int)ceil_div(own_z, 65535);
    g->chunks_z = (int)ceil_div(own_z, g->zc);
    const long long tiles_x = ceil_div(g->lx, g->tx), tiles_y = ceil_div(own_y, g->ty);
    if (tiles_x * tiles_y > INT_MAX)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA Heisenberg: %lld x %lld tiles of "
                               "%d x %d sites are more than one launch takes", tiles_x,
                               tiles_y, g->tx, g->ty);
    g->tiles_x = (int)tiles_x;
    g->tiles_y = (int)tiles_y;
    g->smem = cuda_heis_smem_bytes(g);
    int limit_threads = 0;
    size_t limit_smem = 0;
    const cudaError_t err = cuda_heis_prepare(g, &limit_threads, &limit_smem);
    if (err == cudaErrorInvalidConfiguration)
        return cuda_core->fail(LATMC_EINVAL, "CUDA Heisenberg: a tile of %d x %d sites with %d "
                               "threads needs %zu bytes of shared memory per block; on this "
                               "device the kernels take at most %d threads and %zu bytes "
                               "(%s)", g->tx, g->ty, g->threads, g->smem, limit_threads,
                               limit_smem, HEIS_TILE_ENV);
    return cuda_check(err, "preparing the Heisenberg kernels");
}

/* The geometry of the heat-bath (heatbath != 0) or the overrelaxation passes: the
 * override, or the default, or (on a device with less shared memory than an H200's) the
 * first smaller tile that fits. */
int cuda_heis_slab_geometry(const latmc_sim *sim, int heatbath, int local_planes, int own0,
                            int own_n, int cut0, struct cuda_heis_geom *g)
{
    const latmc_sim_desc *d = &sim->desc;
    for (int mu = 0; mu < d->ndim; mu++)
        if (d->extent[mu] > HEIS_MAX_EXTENT)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA Heisenberg kernels take "
                                   "extents up to 2^30, not %lld",
                                   (long long)d->extent[mu]);
    memset(g, 0, sizeof *g);
    g->ndim = d->ndim;
    g->nrep = d->replicas;
    g->lx = (int)d->extent[0];
    g->ly = (int)d->extent[1];
    g->lz = d->ndim == 3 ? (int)d->extent[2] : 1;
    /* the last axis: the whole lattice, or a slab's local planes (cuda_slabs_heis.c) */
    g->lcut = d->ndim == 3 ? g->lz : g->ly;
    g->cut0 = cut0;
    g->own0 = own0;
    g->own_n = own_n;
    if (d->ndim == 3)
        g->lz = local_planes;
    else
        g->ly = local_planes;
    g->n = (long long)g->lx * g->ly * g->lz;
    g->prefetch = HEIS_PREFETCH;
    g->jsmem = HEIS_JSMEM;
    const char *env = getenv(HEIS_TILE_ENV);
    if (env && *env) {
        const int st = read_tile_env(g);
        return st < 0 ? st : finish_geometry(g);
    }
    static const struct heis_default smaller[] = {
        { 32, 8, 32, 256 }, { 16, 8, 32, 128 }, { 8, 4, 32, 64 },
    };
    int st = LATMC_EINVAL;
    for (int k = -1; k < (int)(sizeof smaller / sizeof smaller[0]) && st == LATMC_EINVAL; k++) {
        const struct heis_default *t =
            k < 0 ? &heis_defaults[heatbath != 0][d->precision == LATMC_PRECISION_DOUBLE]
                  : &smaller[k];
        g->tx = t->tx;
        g->ty = t->ty;
        g->zc = t->zc;
        g->threads = t->threads;
        st = finish_geometry(g);
    }
    return st;
}

void cuda_heis_geom_range(struct cuda_heis_geom *g, int own0, int own_n)
{
    g->own0 = own0;
    g->own_n = own_n;
    if (g->ndim == 3)
        g->chunks_z = (int)ceil_div(own_n, g->zc);
    else
        g->tiles_y = (int)ceil_div(own_n, g->ty);
}

/* The geometry of the whole lattice on one device. */
static int choose_geometry(const latmc_sim *sim, int heatbath, struct cuda_heis_geom *g)
{
    const int l = (int)sim->desc.extent[sim->desc.ndim - 1];
    return cuda_heis_slab_geometry(sim, heatbath, l, 0, l, 0, g);
}

static int allocate(void **ptr, size_t bytes, const char *what)
{
    char msg[128];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory for the %s", bytes,
             what);
    return cuda_check(cudaMalloc(ptr, bytes), msg);
}

/* Host AoS data through the spare buffer into SoA at `soa` (enqueued). */
static cudaError_t upload(const latmc_sim *sim, struct cuda_sim *cs, float *soa, const float *aos,
                          int m, int blocks)
{
    struct heis_state *hs = hstate(cs);
    float *staging = hs->buf[1 - hs->cur];
    const size_t bytes = (size_t)sim->nsites * (size_t)m * (size_t)blocks * sizeof(float);
    cudaError_t err = cudaMemcpyAsync(staging, aos, bytes, cudaMemcpyHostToDevice, cs->stream);
    if (err != cudaSuccess)
        return err;
    return cuda_heis_aos_to_soa(cs->stream, soa, staging, sim->nsites, m, blocks);
}

/* SoA data at `soa` through the spare buffer into the host's AoS buffer. */
static cudaError_t download(const latmc_sim *sim, struct cuda_sim *cs, float *aos,
                            const float *soa, int m, int blocks)
{
    struct heis_state *hs = hstate(cs);
    float *staging = hs->buf[1 - hs->cur];
    const size_t bytes = (size_t)sim->nsites * (size_t)m * (size_t)blocks * sizeof(float);
    cudaError_t err = cuda_heis_soa_to_aos(cs->stream, staging, soa, sim->nsites, m, blocks);
    if (err != cudaSuccess)
        return err;
    return cudaMemcpyAsync(aos, staging, bytes, cudaMemcpyDeviceToHost, cs->stream);
}

/* The couplings of desc.couplings / desc.coupling_seed, drawn on the host as the CPU
 * backend draws them, into the device. */
static int draw_couplings(const latmc_sim *sim, struct cuda_sim *cs)
{
    const int64_t n = (int64_t)coupling_floats(sim);
    float *host = malloc((size_t)n * sizeof *host);
    if (!host)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Heisenberg: cannot allocate %zu bytes of "
                               "host memory for drawing the couplings",
                               (size_t)n * sizeof *host);
    int st = cuda_core->draw_couplings(host, 1, sim->desc.couplings, 0, n,
                                       sim->desc.coupling_seed, sim->desc.n_threads);
    if (st == LATMC_OK)
        st = cuda_check(upload(sim, cs, hstate(cs)->couplings, host, sim->desc.ndim, 1),
                        "copying the couplings to the device");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(cs->stream), "copying the couplings to the device");
    free(host);
    return st;
}

static void heis_destroy(struct cuda_sim *cs)
{
    struct heis_state *hs = hstate(cs);
    if (!hs)
        return;
    cudaFree(hs->buf[1]); /* buf[0] is cs->spins, the generic code's */
    cudaFree(hs->couplings);
    cudaFree(hs->partials);
    free(hs);
    cs->model_state = NULL;
}

static int heis_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct heis_state *hs = calloc(1, sizeof *hs);
    if (!hs)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Heisenberg state");
    cs->model_state = hs;
    int st;
    if ((st = choose_geometry(sim, 0, &hs->geom[0])) < 0 ||
        (st = choose_geometry(sim, 1, &hs->geom[1])) < 0)
        return st;
    const struct cuda_heis_geom *g = &hs->geom[0];
    /* the reduction's chunks, the CPU's (lib/heisenberg.h), so that the sums are added in
     * the CPU's order */
    hs->rows_per_chunk = latmc_heisenberg_rows_per_chunk(g->lx, g->ndim == 3 ? g->ly : 1);
    hs->nchunks = ceil_div((long long)g->ly * g->lz, hs->rows_per_chunk);
    hs->buf[0] = cs->spins;
    hs->cur = 0;
    if ((st = allocate((void **)&hs->buf[1], spin_floats(sim) * sizeof(float),
                       "second spin buffer")) < 0 ||
        (st = allocate((void **)&hs->couplings, coupling_floats(sim) * sizeof(float),
                       "couplings")) < 0 ||
        (st = allocate((void **)&hs->partials, (size_t)hs->nchunks * 13 * sizeof(double),
                       "reduction's partial sums")) < 0 ||
        (st = draw_couplings(sim, cs)) < 0)
        return st;
    for (int k = 0; k < 2; k++) {
        const struct cuda_heis_geom *gk = &hs->geom[k];
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA Heisenberg, %s passes: tiles of %d x "
                       "%d sites, %d plane(s) per block, %d threads, prefetch %d, couplings in "
                       "shared memory %d, %zu bytes of shared memory, grid %d x %d",
                       k ? "heat-bath" : "overrelaxation", gk->tx, gk->ty, gk->zc, gk->threads,
                       gk->prefetch, gk->jsmem, gk->smem, gk->tiles_x * gk->tiles_y,
                       gk->chunks_z);
    }
    return LATMC_OK;
}

static int heis_colours(const latmc_sim_desc *d)
{
    (void)d;
    return 2;
}

static cudaError_t heis_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct heis_state *hs = hstate(cs);
    return cuda_heis_cold_start(cs->stream, hs->buf[hs->cur], sim->nsites, sim->desc.replicas);
}

/* Drawn on the host with the CPU's function (same spins bit for bit), then copied in. */
static cudaError_t heis_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct heis_state *hs = hstate(cs);
    const int64_t n = sim->nsites;
    float *host = malloc(spin_floats(sim) * sizeof *host);
    if (!host)
        return cudaErrorMemoryAllocation;
    for (int r = 0; r < sim->desc.replicas; r++) {
        float *spins = host + (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)n * (size_t)r;
        for (int64_t b = 0; b < (n + 3) / 4; b++)
            latmc_heisenberg_hot_block(spins, n, sim->desc.seed, (uint32_t)r, b);
    }
    cudaError_t err = upload(sim, cs, hs->buf[hs->cur], host, LATMC_HEISENBERG_COMPONENTS,
                             sim->desc.replicas);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(cs->stream); /* before the host buffer goes */
    free(host);
    return err;
}

static cudaError_t run_pass(const latmc_sim *sim, struct cuda_sim *cs,
                            struct cuda_heis_pass_args *a, int heatbath)
{
    struct heis_state *hs = hstate(cs);
    a->src = hs->buf[hs->cur];
    a->dst = hs->buf[1 - hs->cur];
    const cudaError_t err = cuda_heis_pass(cs->stream, &hs->geom[heatbath != 0], a,
                                           sim->desc.precision == LATMC_PRECISION_DOUBLE,
                                           heatbath);
    if (err == cudaSuccess)
        hs->cur = 1 - hs->cur;
    return err;
}

/*
 * The step and the next of the model's schedule (lib/heisenberg.h: colours 0 and 1 of the
 * step's pass, heat bath or overrelaxation as the step's kind says) fused into one launch
 * of every replica, declared as
 * LATMC_STEP_CAP_PAIR: the pass kernel updates colour 0 of a tile and its halo from the
 * old configuration, then colour 1 from those (heisenberg_kernels.cu), reading one
 * buffer and writing the other.
 */
static cudaError_t heis_step(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                             const struct latmc_step *step)
{
    const struct latmc_heisenberg_params *p = sim->model_data;
    struct cuda_heis_pass_args a;
    memset(&a, 0, sizeof a);
    a.J = hstate(cs)->couplings;
    a.beta = p->beta;
    a.h = p->h;
    a.seed = sim->desc.seed;
    (void)sweep; /* the step names its draws */
    a.rng = step->rng;
    a.count = cs->changed;
    return run_pass(sim, cs, &a, step->kind == LATMC_STEP_COLOUR);
}

/* Heat-bath updates count as attempted (and accepted, by the kernel); overrelaxation moves
 * as neither, as on the CPU. */
static uint64_t heis_attempted(const latmc_sim *sim)
{
    return sim->desc.algorithm == LATMC_ALGO_HEATBATH
               ? (uint64_t)sim->nsites * (uint64_t)sim->desc.replicas : 0;
}

static cudaError_t heis_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    struct heis_state *hs = hstate(cs);
    return cuda_heis_measure(cs->stream, &hs->geom[0], hs->buf[hs->cur], hs->couplings,
                             hs->rows_per_chunk, hs->nchunks, hs->partials, cs->sums);
}

static cudaError_t heis_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    struct heis_state *hs = hstate(cs);
    return download(sim, cs, buf, hs->buf[hs->cur], LATMC_HEISENBERG_COMPONENTS,
                    sim->desc.replicas);
}

static cudaError_t heis_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    struct heis_state *hs = hstate(cs);
    return upload(sim, cs, hs->buf[hs->cur], buf, LATMC_HEISENBERG_COMPONENTS,
                  sim->desc.replicas);
}

static cudaError_t heis_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf)
{
    return download(sim, cs, buf, hstate(cs)->couplings, sim->desc.ndim, 1);
}

static cudaError_t heis_set_couplings(const latmc_sim *sim, struct cuda_sim *cs, const float *buf)
{
    return upload(sim, cs, hstate(cs)->couplings, buf, sim->desc.ndim, 1);
}

/* The buffer holding the configuration, structure of arrays: component c of replica r at
 * site i is buf[(3 r + c) N + i], so the API's axes (replica, z, y, x, component) have
 * strides 3 N, ..., 1, N floats. The buffer changes at every pass (a sweep). */
static cudaError_t heis_device_view(const latmc_sim *sim, struct cuda_sim *cs,
                                   latmc_device_view *view)
{
    const struct heis_state *hs = hstate(cs);
    const int64_t f = (int64_t)sizeof(float), n = sim->nsites;
    cuda_view_fill(sim, cs, view, hs->buf[hs->cur], LATMC_DTYPE_FLOAT32, f,
                   LATMC_HEISENBERG_COMPONENTS, n * f, LATMC_HEISENBERG_COMPONENTS * n * f);
    return cudaSuccess;
}

const struct cuda_model_kernels cuda_heisenberg_kernels = {
    .model = LATMC_MODEL_HEISENBERG,
    .colours = heis_colours,
    .create = heis_create,
    .destroy = heis_destroy,
    .cold_start = heis_cold_start,
    .hot_start = heis_hot_start,
    .step = heis_step,
    .caps = LATMC_STEP_CAP_PAIR, /* a pass's two colours in one launch */
    .attempted_per_sweep = heis_attempted,
    .measure = heis_measure,
    .get_spins = heis_get_spins,
    .set_spins = heis_set_spins,
    .get_couplings = heis_get_couplings,
    .set_couplings = heis_set_couplings,
    .device_view = heis_device_view,
};
