/*
 * The launch geometry of the Heisenberg passes (heisenberg_cuda.h: struct cuda_heisenberg_geom):
 * tiles, planes per block, threads, and the override LATMC_CUDA_HEISENBERG_TILE, for the
 * leaf's boxes (cuda_heisenberg_leaf.c): the whole lattice of a box alone, or a box's local
 * planes with halos.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "heisenberg_cuda.h"
#include "internal.h"

/* The launch-geometry override: "TX,TY,ZC,THREADS[,PREFETCH[,JSMEM]]" (doc/cuda.md). */
#define HEISENBERG_TILE_ENV "LATMC_CUDA_HEISENBERG_TILE"

/*
 * Default geometries, the fastest measured on an H200 at 256^3 with two replicas
 * (doc/PERFORMANCE.md): in 3D in float with two replicas 32 x 16 tiles (36 x 20 with the
 * halo; 94 KiB of shared memory in the fixed-tile kernels' rows of 40 floats, two blocks
 * per SM) with 320 threads for both passes, so
 * that colour 0's 306 site updates of a plane (the tile and its halo of one) take one round
 * of the block's warps, not two (1.05x overrelaxation, 1.08x heat bath against 256
 * threads); otherwise overrelaxation in float 64 x 8 tiles (68 x 12 with the halo; one
 * replica 48 KiB, 51 KiB in rows of 72 floats), everything else 32 x 8 (two replicas 51
 * KiB); 32 planes per block; 256 threads
 * (heat bath in double: 128); the next plane prefetched (3D); the
 * couplings read from global memory (through shared memory, JSMEM = 1, was slower: the
 * extra shared memory halves the blocks per SM). heisenberg_kernels.cu's
 * heisenberg_fixed_tile names these tiles again (two replicas: float 32 x 16, double 32 x 8;
 * one replica in float: 64 x 8, 32 x 8) for its instances with the extents as constants: a
 * default changed here runs the run-time-tile kernels until that table follows. A default
 * tile at least twice as wide as the lattice is halved until it is not (64 x 8 on L_x = 32
 * becomes 32 x 8).
 */
struct heisenberg_default {
    int tx, ty, zc, threads;
};
static const struct heisenberg_default heisenberg_defaults[2][2] = {
    /* [heat bath][double] */
    { { 64, 8, 32, 256 }, { 32, 8, 32, 256 } },  /* overrelaxation: float, double */
    { { 32, 8, 32, 256 }, { 32, 8, 32, 128 } },  /* heat bath: float, double */
};
static const struct heisenberg_default heisenberg_default_3d_float_pair = { 32, 16, 32, 320 };
#define HEISENBERG_PREFETCH 1
#define HEISENBERG_JSMEM 0

/* Extents the kernels' 32-bit coordinates take (a lattice that large would not fit
 * anyway). */
#define HEISENBERG_MAX_EXTENT (INT64_C(1) << 30)

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
static int read_tile_env(struct cuda_heisenberg_geom *g)
{
    const char *env = getenv(HEISENBERG_TILE_ENV);
    if (!env || !*env)
        return LATMC_OK;
    const char *s = env;
    g->tx = g->ty = g->zc = g->threads = 0;
    long v[6] = { -1, -1, -1, -1, HEISENBERG_PREFETCH, HEISENBERG_JSMEM };
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
                               "[32, 1024], PREFETCH and JSMEM 0 or 1", HEISENBERG_TILE_ENV, env);
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
static int finish_geometry(struct cuda_heisenberg_geom *g)
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
    g->smem = cuda_heisenberg_smem_bytes(g);
    int limit_threads = 0;
    size_t limit_smem = 0;
    const cudaError_t err = cuda_heisenberg_prepare(g, &limit_threads, &limit_smem);
    if (err == cudaErrorInvalidConfiguration)
        return cuda_core->fail(LATMC_EINVAL, "CUDA Heisenberg: a tile of %d x %d sites with %d "
                               "threads needs %zu bytes of shared memory per block; on this "
                               "device the kernels take at most %d threads and %zu bytes "
                               "(%s)", g->tx, g->ty, g->threads, g->smem, limit_threads,
                               limit_smem, HEISENBERG_TILE_ENV);
    return cuda_check(err, "preparing the Heisenberg kernels");
}

/* The geometry of the heat-bath (heatbath != 0) or the overrelaxation passes: the
 * override, or the default, or (on a device with less shared memory than an H200's) the
 * first smaller tile that fits. */
int cuda_heisenberg_box_geometry(const latmc_sim *sim, int heatbath, int local_planes, int own0,
                            int own_n, int cut0, struct cuda_heisenberg_geom *g)
{
    const latmc_sim_desc *d = &sim->desc;
    for (int mu = 0; mu < d->ndim; mu++)
        if (d->extent[mu] > HEISENBERG_MAX_EXTENT)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA Heisenberg kernels take "
                                   "extents up to 2^30, not %lld",
                                   (long long)d->extent[mu]);
    /* the pass kernel takes a site's offset in its plane in 32 bits (heisenberg_colour) */
    if (d->ndim == 3 && d->extent[0] * d->extent[1] > (int64_t)UINT32_MAX)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "the CUDA Heisenberg kernels take planes "
                               "of up to 2^32 - 1 sites, not %lld x %lld",
                               (long long)d->extent[0], (long long)d->extent[1]);
    memset(g, 0, sizeof *g);
    g->ndim = d->ndim;
    g->nrep = d->replicas;
    g->lx = (int)d->extent[0];
    g->ly = (int)d->extent[1];
    g->lz = d->ndim == 3 ? (int)d->extent[2] : 1;
    /* the last axis: the whole lattice, or a box's local planes (cuda_heisenberg_leaf.c) */
    g->lcut = d->ndim == 3 ? g->lz : g->ly;
    g->cut0 = cut0;
    g->own0 = own0;
    g->own_n = own_n;
    if (d->ndim == 3)
        g->lz = local_planes;
    else
        g->ly = local_planes;
    g->n = (long long)g->lx * g->ly * g->lz;
    g->prefetch = HEISENBERG_PREFETCH;
    g->jsmem = HEISENBERG_JSMEM;
    const char *env = getenv(HEISENBERG_TILE_ENV);
    if (env && *env) {
        const int st = read_tile_env(g);
        return st < 0 ? st : finish_geometry(g);
    }
    static const struct heisenberg_default smaller[] = {
        { 32, 8, 32, 256 }, { 16, 8, 32, 128 }, { 8, 4, 32, 64 },
    };
    int st = LATMC_EINVAL;
    for (int k = -1; k < (int)(sizeof smaller / sizeof smaller[0]) && st == LATMC_EINVAL; k++) {
        const struct heisenberg_default *t =
            k >= 0 ? &smaller[k]
            : d->ndim == 3 && d->replicas == 2 && d->precision != LATMC_PRECISION_DOUBLE
                ? &heisenberg_default_3d_float_pair
                : &heisenberg_defaults[heatbath != 0][d->precision == LATMC_PRECISION_DOUBLE];
        g->tx = t->tx;
        /* a default tile at least twice as wide as the lattice is halved: the half it
         * would leave empty still takes shared memory, and so blocks an SM (32^3 members
         * of an ensemble, overrelaxation's 64 x 8) */
        while (k < 0 && g->tx % 4 == 0 && g->tx / 2 >= g->lx)
            g->tx /= 2;
        g->ty = t->ty;
        g->zc = t->zc;
        g->threads = t->threads;
        st = finish_geometry(g);
    }
    return st;
}

void cuda_heisenberg_geom_range(struct cuda_heisenberg_geom *g, int own0, int own_n)
{
    g->own0 = own0;
    g->own_n = own_n;
    if (g->ndim == 3)
        g->chunks_z = (int)ceil_div(own_n, g->zc);
    else
        g->tiles_y = (int)ceil_div(own_n, g->ty);
}

