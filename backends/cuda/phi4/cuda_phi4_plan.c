/*
 * phi^4's plan of a sim's sweeps on CUDA (cuda_phi4_plan.h), fixed at latmc_sim_create
 * (doc/models/phi4.md, "The CUDA chain"):
 *
 * - which schedule runs: chunks where the extents take them, else the site order;
 * - the chunk shape: a default from the extents, or LATMC_CUDA_PHI4_CHUNK
 *   ("32x16x8", "32x256", or "none" for the site order), validated here;
 * - threads per block: a default, or LATMC_CUDA_PHI4_THREADS (a multiple of 32, at most
 *   256); it changes how the work is spread, never the result;
 * - the shared-memory strides of the chunk's box, padded against bank conflicts.
 *
 * The environment is read when a sim is created, so a program (or a test) may set it
 * between creations; nothing in the public API changes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_phi4_plan.h"
#include "phi4_chunk_shape.h"
#include "philox_fold.h"

#define CHUNK_ENV "LATMC_CUDA_PHI4_CHUNK"
#define THREADS_ENV "LATMC_CUDA_PHI4_THREADS"

/* The chunk shapes' rule, the default's caps included, is lib/phi4_chunk_shape.h's (the
 * CPU's too). The default x extent is one segment; 2D chunks are tall (many threads, small
 * halo share); 3D ones 16 x 16 rows of 32 sites: 256 threads, 60 KB (float) of shared
 * memory with the halo. */

static int width_of(const struct cuda_phi4_plan *p)
{
    return CUDA_PHI4_LANES * p->ncolours;
}

static size_t value_bytes(const struct cuda_phi4_plan *p)
{
    return p->precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double);
}

/* ---- bank-conflict padding ---- */

/*
 * The worst number of distinct shared-memory words a warp's access puts into one bank,
 * summed over the colours and the first warps of a chunk, for strides py (y) and pz (z).
 * A warp's 32 threads take 32 consecutive segments, i.e. mostly consecutive rows; its
 * access to the first site of each thread's segment (every other access of the update is
 * that one plus a constant) lands at x offset (colour - ay y - az z) mod ncolours. Doubles
 * are served per half warp, two banks per word (so 16 "banks" of 8 bytes).
 */
static long conflict_cost(const struct cuda_phi4_plan *p, int py, int pz)
{
    const int rows = p->b[1] * p->b[2], nc = p->ncolours, w = width_of(p);
    const int doubles = p->precision == LATMC_PRECISION_DOUBLE;
    const int group = doubles ? 16 : 32, banks = doubles ? 16 : 32;
    const int segs = p->segments < 256 ? p->segments : 256;
    long cost = 0;
    for (int colour = 0; colour < nc; colour++)
        for (int s0 = 0; s0 < segs; s0 += group) {
            /* the segments own disjoint sites: the addresses are distinct */
            int count[32] = { 0 }, worst = 0;
            for (int s = s0; s < s0 + group && s < p->segments; s++) {
                const int row = s % rows, xs = s / rows;
                const int y = row % p->b[1], z = row / p->b[1];
                const int off = ((colour - p->ay * y - p->az * z) % nc + nc) % nc;
                const int bank = (xs * w + off + y * py + z * pz) % banks;
                if (++count[bank] > worst)
                    worst = count[bank];
            }
            cost += worst;
        }
    return cost;
}

/* The strides with the fewest conflicts: y in [box x, box x + 32), z (3D) in
 * [py box y, py box y + 32); ties to the smallest. */
static void choose_pitches(struct cuda_phi4_plan *p)
{
    long best = -1;
    const int zs = p->ndim == 3 ? 32 : 1;
    for (int dy = 0; dy < 32; dy++) {
        const int py = p->box[0] + dy;
        for (int dz = 0; dz < zs; dz++) {
            const int pz = py * p->box[1] + dz;
            const long cost = conflict_cost(p, py, pz);
            if (best < 0 || cost < best) {
                best = cost;
                p->pitch_y = py;
                p->pitch_z = pz;
            }
        }
    }
    p->smem_bytes = (size_t)(p->ndim == 3 ? p->pitch_z * p->box[2] : p->pitch_y * p->box[1]) *
                    value_bytes(p);
}

/* ---- chunk shape ---- */

/* Fill the chunk fields of p from the chunk extents in p->b (already validated); the
 * strides (and shared memory) too unless shape_only. */
static void finish_chunks(struct cuda_phi4_plan *p, const struct latmc_lattice *g,
                          bool shape_only)
{
    const int64_t ext[3] = { g->lx, g->ly, g->ndim == 3 ? g->lz : 1 };
    if (p->ndim == 2)
        p->b[2] = 1;
    for (int mu = 0; mu < 3; mu++) {
        p->nchunks[mu] = mu < p->ndim ? (int)(ext[mu] / p->b[mu]) : 1;
        p->box[mu] = mu < p->ndim ? p->b[mu] + 2 * CUDA_PHI4_HALO : 1;
    }
    p->segments = (p->b[0] / width_of(p)) * p->b[1] * p->b[2];
    if (!shape_only)
        choose_pitches(p);
}

/* The default chunk for these extents, or the site order when none fits. */
static void default_chunks(struct cuda_phi4_plan *p, const struct latmc_lattice *g,
                           bool shape_only)
{
    const int64_t ext[3] = { g->lx, g->ly, g->ndim == 3 ? g->lz : 1 };
    p->schedule = CUDA_PHI4_SITE_ORDER;
    if (!latmc_phi4_chunk_default(p->ndim, ext, width_of(p), p->b))
        return;
    p->schedule = CUDA_PHI4_CHUNKS;
    finish_chunks(p, g, shape_only);
}

static int max_smem(int device, size_t *bytes)
{
    int v = 0;
    const int st = cuda_check(cuda_device_smem_optin(device, &v),
                              "reading the device's shared-memory limit");
    *bytes = (size_t)v;
    return st;
}

/* LATMC_CUDA_PHI4_CHUNK: "none", or ndim extents joined by 'x', each fitting the lattice. */
static int chunks_from_env(struct cuda_phi4_plan *p, const struct latmc_lattice *g,
                           const char *text, int device, bool shape_only)
{
    if (strcmp(text, "none") == 0) {
        p->schedule = CUDA_PHI4_SITE_ORDER;
        return LATMC_OK;
    }
    const int64_t ext[3] = { g->lx, g->ly, g->ndim == 3 ? g->lz : 1 };
    char why[200];
    if (!latmc_phi4_chunk_parse(text, p->ndim, ext, width_of(p), p->b, why, sizeof why))
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": \"none\" or a chunk shape: %s",
                               CHUNK_ENV, text, why);
    p->schedule = CUDA_PHI4_CHUNKS;
    finish_chunks(p, g, shape_only);
    if (shape_only)
        return LATMC_OK;
    size_t limit = 0;
    const int st = max_smem(device, &limit);
    if (st < 0)
        return st;
    if (p->smem_bytes > limit)
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": the chunk with its halo needs %zu bytes "
                               "of shared memory; device %d allows %zu per block", CHUNK_ENV, text,
                               p->smem_bytes, device, limit);
    return LATMC_OK;
}

/* LATMC_CUDA_PHI4_THREADS: threads per block, a multiple of 32 in [32, 256]. */
static int threads_from_env(struct cuda_phi4_plan *p, const char *text)
{
    char *end;
    errno = 0;
    const long t = strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || errno != 0 || t < 32 || t > CUDA_PHI4_MAX_THREADS ||
        t % 32 != 0)
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": expected a multiple of 32 from 32 to %d "
                               "(threads per block)", THREADS_ENV, text, CUDA_PHI4_MAX_THREADS);
    p->threads = (int)t;
    return LATMC_OK;
}

int cuda_phi4_plan_make(const latmc_sim *sim, int device, bool shape_only,
                        struct cuda_phi4_plan *p)
{
    const latmc_sim_desc *d = &sim->desc;
    const struct latmc_lattice g = cuda_phi4_lattice(d);
    const struct latmc_phi4_colouring col = latmc_phi4_colouring_of(d->ndim, d->extent);
    memset(p, 0, sizeof *p);
    p->ndim = d->ndim;
    p->ncolours = col.ncolours;
    p->ay = col.ay;
    p->az = col.az;
    p->precision = d->precision;
    const char *chunk = getenv(CHUNK_ENV), *threads = getenv(THREADS_ENV);
    int st = LATMC_OK;
    if (chunk && *chunk)
        st = chunks_from_env(p, &g, chunk, device, shape_only);
    else
        default_chunks(p, &g, shape_only);
    if (st < 0)
        return st;
    if (p->schedule == CUDA_PHI4_CHUNKS && !(chunk && *chunk) && !shape_only) {
        /* the defaults stay far below every current GPU's limit; check all the same */
        size_t limit = 0;
        if ((st = max_smem(device, &limit)) < 0)
            return st;
        if (p->smem_bytes > limit)
            p->schedule = CUDA_PHI4_SITE_ORDER;
    }
    if (threads && *threads) {
        if ((st = threads_from_env(p, threads)) < 0)
            return st;
    } else if (p->schedule == CUDA_PHI4_CHUNKS) {
        const int t = (p->segments + 31) / 32 * 32;
        p->threads = t < CUDA_PHI4_MAX_THREADS ? t : CUDA_PHI4_MAX_THREADS;
    } else {
        p->threads = CUDA_PHI4_MAX_THREADS;
    }
    return LATMC_OK;
}

struct latmc_lattice cuda_phi4_lattice(const latmc_sim_desc *d)
{
    struct latmc_lattice g = { .ndim = d->ndim, .lx = d->extent[0], .ly = d->extent[1],
                               .lz = d->ndim == 3 ? d->extent[2] : 1 };
    g.nsites = g.lx * g.ly * g.lz;
    return g;
}

void cuda_phi4_keys_of(uint64_t seed, struct cuda_phi4_keys *keys)
{
    latmc_philox_key key[10];
    latmc_philox_round_keys(seed, key);
    for (int r = 0; r < 10; r++) {
        keys->k[r][0] = key[r].v[0];
        keys->k[r][1] = key[r].v[1];
    }
}
