/*
 * phi^4 in the CUDA module: the model's table (cuda_backend.h) and the plan of a sim's
 * sweeps, fixed at latmc_sim_create (doc/models/phi4.md, "The CUDA chain"):
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_slabs.h"
#include "model.h"
#include "phi4_cuda.h"
#include "philox_fold.h"
#include "phi4_chunk_shape.h"

#define CHUNK_ENV "LATMC_CUDA_PHI4_CHUNK"
#define THREADS_ENV "LATMC_CUDA_PHI4_THREADS"

/* The chunk shapes' rule, the default's caps included, is lib/phi4_chunk_shape.h's (the
 * CPU's too). The default x extent is one segment; 2D chunks are tall (many threads, small
 * halo share); 3D ones 16 x 16 rows of 32 sites: 256 threads, 60 KB (float) of shared
 * memory with the halo. */

struct cuda_phi4_state {
    struct cuda_phi4_plan plan;
    struct cuda_phi4_keys keys;
    double *partials;            /* 5 doubles per row, for the measurement */
};

static struct cuda_phi4_state *state_of(const struct cuda_sim *cs)
{
    return (struct cuda_phi4_state *)cs->model_state;
}

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

/* Fill the chunk fields of p from the chunk extents in p->b (already validated). */
static void finish_chunks(struct cuda_phi4_plan *p, const struct latmc_lattice *g)
{
    const int64_t ext[3] = { g->lx, g->ly, g->ndim == 3 ? g->lz : 1 };
    if (p->ndim == 2)
        p->b[2] = 1;
    for (int mu = 0; mu < 3; mu++) {
        p->nchunks[mu] = mu < p->ndim ? (int)(ext[mu] / p->b[mu]) : 1;
        p->box[mu] = mu < p->ndim ? p->b[mu] + 2 * CUDA_PHI4_HALO : 1;
    }
    p->segments = (p->b[0] / width_of(p)) * p->b[1] * p->b[2];
    choose_pitches(p);
}

/* The default chunk for these extents, or the site order when none fits. */
static void default_chunks(struct cuda_phi4_plan *p, const struct latmc_lattice *g)
{
    const int64_t ext[3] = { g->lx, g->ly, g->ndim == 3 ? g->lz : 1 };
    p->schedule = CUDA_PHI4_SITE_ORDER;
    if (!latmc_phi4_chunk_default(p->ndim, ext, width_of(p), p->b))
        return;
    p->schedule = CUDA_PHI4_CHUNKS;
    finish_chunks(p, g);
}

static int max_smem(const struct cuda_sim *cs, size_t *bytes)
{
    int v = 0;
    const int st = cuda_check(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                                     cs->device),
                              "reading the device's shared-memory limit");
    *bytes = (size_t)v;
    return st;
}

/* LATMC_CUDA_PHI4_CHUNK: "none", or ndim extents joined by 'x', each fitting the lattice. */
static int chunks_from_env(struct cuda_phi4_plan *p, const struct latmc_lattice *g,
                           const char *text, const struct cuda_sim *cs)
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
    finish_chunks(p, g);
    size_t limit = 0;
    const int st = max_smem(cs, &limit);
    if (st < 0)
        return st;
    if (p->smem_bytes > limit)
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": the chunk with its halo needs %zu bytes "
                               "of shared memory; device %d allows %zu per block", CHUNK_ENV, text,
                               p->smem_bytes, cs->device, limit);
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

static int make_plan(const latmc_sim *sim, const struct cuda_sim *cs, struct cuda_phi4_plan *p)
{
    const latmc_sim_desc *d = &sim->desc;
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
        st = chunks_from_env(p, &cs->lattice, chunk, cs);
    else
        default_chunks(p, &cs->lattice);
    if (st < 0)
        return st;
    if (p->schedule == CUDA_PHI4_CHUNKS && !(chunk && *chunk)) {
        /* the defaults stay far below every current GPU's limit; check all the same */
        size_t limit = 0;
        if ((st = max_smem(cs, &limit)) < 0)
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

/* ---- the model's hooks ---- */

static int phi4_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct cuda_phi4_state *s = calloc(1, sizeof *s);
    if (!s)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the phi^4 state");
    cs->model_state = s;
    int st = make_plan(sim, cs, &s->plan);
    if (st < 0)
        return st;
    latmc_philox_key key[10];
    latmc_philox_round_keys(sim->desc.seed, key);
    for (int r = 0; r < 10; r++) {
        s->keys.k[r][0] = key[r].v[0];
        s->keys.k[r][1] = key[r].v[1];
    }
    const size_t rows = (size_t)(cs->lattice.ly * cs->lattice.lz);
    char what[96];
    snprintf(what, sizeof what, "cannot allocate %zu bytes of device memory for the phi^4 "
             "reduction", rows * 5 * sizeof(double));
    if ((st = cuda_check(cudaMalloc((void **)&s->partials, rows * 5 * sizeof(double)), what)) < 0 ||
        (st = cuda_check(cuda_phi4_prepare(&s->plan), "setting the phi^4 kernel's shared memory")) < 0)
        return st;
    const struct cuda_phi4_plan *p = &s->plan;
    if (p->schedule == CUDA_PHI4_CHUNKS)
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA phi^4: chunks %dx%dx%d (%dx%dx%d per "
                       "axis), %d segments and %d threads per block, %zu bytes of shared memory "
                       "(strides %d, %d)", p->b[0], p->b[1], p->b[2], p->nchunks[0],
                       p->nchunks[1], p->nchunks[2], p->segments, p->threads, p->smem_bytes,
                       p->pitch_y, p->pitch_z);
    else
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA phi^4: site-order schedule (the "
                       "extents take no chunks, or %s=none), %d threads per block", CHUNK_ENV,
                       p->threads);
    return LATMC_OK;
}

/* The plan and keys of a sim on several devices (cuda_slabs_phi4.c): the one-device
 * ones, so that the slabs run the one-device chain. */
int cuda_phi4_plan_for_slabs(const latmc_sim *sim, const struct cuda_sim *cs,
                             struct cuda_phi4_plan *plan, struct cuda_phi4_keys *keys)
{
    const int st = make_plan(sim, cs, plan);
    if (st < 0)
        return st;
    latmc_philox_key key[10];
    latmc_philox_round_keys(sim->desc.seed, key);
    for (int r = 0; r < 10; r++) {
        keys->k[r][0] = key[r].v[0];
        keys->k[r][1] = key[r].v[1];
    }
    return LATMC_OK;
}

static void phi4_destroy(struct cuda_sim *cs)
{
    struct cuda_phi4_state *s = state_of(cs);
    if (!s)
        return;
    cudaFree(s->partials);
    free(s);
    cs->model_state = NULL;
}

static int phi4_colours(const latmc_sim_desc *d)
{
    return latmc_phi4_colouring_of(d->ndim, d->extent).ncolours;
}

static cudaError_t phi4_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    /* phi = 0: all bytes zero in both precisions */
    return cudaMemsetAsync(cs->spins, 0, (size_t)sim->nsites * value_bytes(&state_of(cs)->plan),
                           cs->stream);
}

static cudaError_t phi4_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    return cuda_phi4_hot_start(cs->stream, &state_of(cs)->plan, cs->spins, sim->nsites,
                               sim->desc.seed);
}

/*
 * One step of a sweep of a one-box sim. The site order runs the model's schedule (step =
 * pass x ncolours + colour). The chunk schedule is a chain of its own, declared to the
 * core (phi4_own_steps): its steps are the 2^ndim sub-grids, each chunk running all nloc
 * passes and every colour in shared memory. It cannot be cut into the model's steps (a
 * pass or a colour of the whole lattice): what makes it fast is that a chunk stays in
 * shared memory across them, and its order of updates is not the site order's (a chunk's
 * pass 2 runs before a later sub-grid's pass 1), so its draws give a different, equally
 * exact, chain (doc/models/phi4.md, "The CUDA chain").
 */
static cudaError_t phi4_step(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                             const struct latmc_step *step)
{
    const struct cuda_phi4_state *s = state_of(cs);
    return cuda_phi4_step(cs->stream, &s->plan, &cs->lattice, cs->spins,
                          (const struct latmc_phi4_tables *)sim->model_data, &s->keys, sweep,
                          step, cs->changed);
}

/* The chunk schedule's steps per sweep (its sub-grids); 0 in the site order (the model's
 * schedule). */
static int phi4_own_steps(const latmc_sim *sim, const struct cuda_sim *cs)
{
    return state_of(cs)->plan.schedule == CUDA_PHI4_CHUNKS ? 1 << sim->desc.ndim : 0;
}

static uint64_t phi4_attempted_per_sweep(const latmc_sim *sim)
{
    const struct latmc_phi4_tables *t = sim->model_data;
    return (uint64_t)sim->nsites * t->nloc * t->nhit;
}

static cudaError_t phi4_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    const struct cuda_phi4_state *s = state_of(cs);
    return cuda_phi4_measure(cs->stream, &s->plan, &cs->lattice, cs->spins, s->partials,
                             (struct latmc_phi4_sums *)cs->sums);
}

/* The API's layout: one float or double per site in natural order (both schedules update
 * cs->spins in place). */
static cudaError_t phi4_device_view(const latmc_sim *sim, struct cuda_sim *cs,
                                   latmc_device_view *view)
{
    const size_t vb = value_bytes(&state_of(cs)->plan);
    cuda_view_fill(sim, cs, view, cs->spins,
                   vb == sizeof(float) ? LATMC_DTYPE_FLOAT32 : LATMC_DTYPE_FLOAT64,
                   (int64_t)vb, 1, 0, (int64_t)vb * sim->nsites);
    return cudaSuccess;
}

const struct cuda_model_kernels cuda_phi4_kernels = {
    .model = LATMC_MODEL_PHI4,
    .colours = phi4_colours,
    .create = phi4_create,
    .destroy = phi4_destroy,
    .cold_start = phi4_cold_start,
    .hot_start = phi4_hot_start,
    .step = phi4_step,
    .own_steps = phi4_own_steps,
    .attempted_per_sweep = phi4_attempted_per_sweep,
    .measure = phi4_measure,
    .device_view = phi4_device_view,
};
