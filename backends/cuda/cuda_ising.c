/*
 * Ising in the CUDA module: the model's table (cuda_backend.h) and which of its two
 * layouts holds the configuration.
 *
 * Two layouts: the API's byte layout (cs->spins, one int8 per site: the byte kernels,
 * device_view) and, where the lattice fits it, the packed layout of ising_packed.h (two
 * colour arrays, half a byte per site together). Two flags say which layouts hold the
 * configuration: a sweep that can run the packed kernels packs the bytes first if the
 * packed arrays are stale, and leaves the bytes stale; anything that needs the byte array
 * unpacks it first. Both layouts hold the same configuration, and both kernels follow the
 * same chain bit for bit, so which one runs never shows in a result.
 *
 * Packed-only sims (every sim whose lattice fits the packed layout, unless
 * LATMC_CUDA_KERNELS=reference): only the packed arrays are resident, half a byte per
 * site (doc/cuda.md, "Memory"). The bytes the API speaks are made on demand, a piece of
 * rows at a time, in a staging buffer allocated with the sim (at most
 * LATMC_CUDA_ISING_PIECE_BYTES, 256 MiB by default): hot start, get/set_spins (and so
 * checkpoints). The whole byte array is allocated on
 * first need only, and then kept: by latmc_sim_device_view (which hands it out), by a
 * sweep on the byte kernels (a beta whose thresholds do not fit 32 bits) and by the
 * ensembles' batched sweeps on the byte layout; LATMC_ENOMEM there when it does not fit.
 *
 * The packed kernels run when the lattice fits (L_x a multiple of 16; 64 with +-J
 * couplings), the decision tables fit 32-bit thresholds (all but extreme beta), and
 * LATMC_CUDA_KERNELS is not "reference". +-J sims with L_x a multiple of 16 but not of 64
 * have the packed arrays too (not packed-only): the ensembles' packed kernel sweeps them
 * (ens_cuda.h, cuda_ising_packed_member), their own sweeps run the byte kernels.
 *
 * +-J couplings (desc.couplings = BIMODAL): one int8 +-1 per bond, eps[ndim i + mu], on the
 * host for get_couplings (the device never changes them), drawn by the core's
 * draw_couplings on desc.n_threads host threads (lib/module_abi.h; the definition in
 * lib/coupling_draws.h): the CPU's couplings bit for bit. On the device: packed per
 * colour for the packed kernels (half a byte per site in 2D, one in 3D), and the bytes
 * (eps_dev) for the byte kernels. Packed-only sims pack them from the host's bytes through
 * a window of a few planes (cuda_ising_pack_couplings_host: create, set_couplings), and
 * have byte couplings on the device only from their first byte-kernel or ensemble sweep.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_ising_pieces.h"
#include "ens_cuda.h"
#include "ising_packed.h"
#include "model.h"

struct cuda_ising_state {
    uint32_t *colour[2];  /* the packed arrays; NULL where the lattice does not fit */
    /* Which layouts hold the configuration (at least one; both after an unpack for
     * get_spins, so that the next packed sweep needs no packing). */
    bool bytes_valid, packed_valid;
    int8_t *eps_dev, *eps_host;  /* +-J couplings; NULL when uniform */
    uint32_t *eps_packed[2];     /* +-J couplings for the packed kernels, per colour */
    bool eps_packed_valid;       /* eps_packed matches eps_dev */
    /* The packed kernels' thresholds, from the core's tables (ising_params_changed);
     * thr_fit false where they do not fit 32 bits (the byte kernels run). */
    struct cuda_ising_packed_thresholds thr;
    bool thr_fit;
    /* Packed-only (see the top): cs->spins and eps_dev are NULL until first needed. */
    bool packed_only;
    int8_t *stage;               /* packed-only: a piece of stage_rows rows of bytes */
    int64_t stage_rows;
    /* The module's packed kernels can sweep this lattice (with +-J they need L_x a multiple
     * of 64; the packed arrays exist also where only an ensemble's kernel can: ens_cuda.h) */
    bool packed_kernels;
    /* An ensemble led by this sim (its member 0): the batch's device table (ens_cuda.c) */
    struct cuda_ens_batch *ens_batch;
    bool in_batch;               /* prepared for an ensemble's batch at least once */
};

/* Bumped at every access to the state of an Ising sim that was ever prepared for an
 * ensemble's batch (in_batch): an ensemble whose members' states saw none since its last
 * batched sweep reuses that sweep's member table (ens_cuda.c). Other sims never bump it. */
static _Atomic uint64_t state_epoch;

uint64_t cuda_ising_state_epoch(void)
{
    return atomic_load_explicit(&state_epoch, memory_order_relaxed);
}

static struct cuda_ising_state *state_of(const struct cuda_sim *cs)
{
    struct cuda_ising_state *st = cs->model_state;
    if (st && st->in_batch)
        atomic_fetch_add_explicit(&state_epoch, 1, memory_order_relaxed);
    return st;
}

static size_t coupling_count(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.ndim;
}

/* The byte couplings on the device (eps_dev), from the host's. */
static int upload_couplings(const latmc_sim *sim, struct cuda_sim *cs,
                            struct cuda_ising_state *st)
{
    const size_t n = coupling_count(sim);
    char msg[128];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory for the couplings", n);
    int s = st->eps_dev ? LATMC_OK : cuda_check(cudaMalloc((void **)&st->eps_dev, n), msg);
    if (s == LATMC_OK)
        s = cuda_check(cudaMemcpyAsync(st->eps_dev, st->eps_host, n, cudaMemcpyHostToDevice,
                                       cs->stream), "copying the couplings to the device");
    return s;
}

/* The +-J couplings, drawn on the host, copied to the device (the byte couplings: not for
 * packed-only sims, which pack them from the host: ising_create). */
static int create_couplings(const latmc_sim *sim, struct cuda_sim *cs,
                            struct cuda_ising_state *st)
{
    const size_t n = coupling_count(sim);
    st->eps_host = malloc(n);
    if (!st->eps_host)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of host "
                               "memory for the couplings", n);
    int s = cuda_core->draw_couplings(st->eps_host, 0, LATMC_COUPLINGS_BIMODAL, 0, (int64_t)n,
                                      sim->desc.coupling_seed, sim->desc.n_threads);
    if (s < 0 || st->packed_only)
        return s;
    s = upload_couplings(sim, cs, st);
    if (s == LATMC_OK)
        s = cuda_check(cudaStreamSynchronize(cs->stream), "copying the couplings to the device");
    return s;
}

/* Whether a sim keeps only the packed layout resident: its lattice fits the packed
 * kernels and they are allowed. Also the hook by which the generic create leaves
 * cs->spins to the model. */
static bool ising_packed_only(const latmc_sim *sim)
{
    const struct latmc_lattice g = { .ndim = sim->desc.ndim, .lx = sim->desc.extent[0],
                                     .ly = sim->desc.extent[1],
                                     .lz = sim->desc.ndim == 3 ? sim->desc.extent[2] : 1,
                                     .nsites = sim->nsites };
    const bool pmj = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    return (pmj ? cuda_ising_packed_fits_couplings(&g) : cuda_ising_packed_fits(&g)) &&
           cuda_ising_packed_allowed();
}

static int ising_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct cuda_ising_state *st = calloc(1, sizeof *st);
    if (!st)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Ising state");
    cs->model_state = st; /* freed by ising_destroy, also after a failure below */
    st->packed_only = ising_packed_only(sim);
    /* what init_spins or set_spins will write */
    st->bytes_valid = !st->packed_only;
    st->packed_valid = st->packed_only;
    const bool pmj = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    int s = LATMC_OK;
    if (pmj && (s = create_couplings(sim, cs, st)) < 0)
        return s;
    if (!cuda_ising_packed_fits(&cs->lattice))
        return LATMC_OK;
    st->packed_kernels = !pmj || cuda_ising_packed_fits_couplings(&cs->lattice);
    const size_t bytes = (size_t)cuda_ising_packed_words(&cs->lattice) * sizeof(uint32_t);
    const size_t eps_bytes = bytes * (size_t)cuda_ising_packed_coupling_words(&cs->lattice);
    for (int c = 0; c < 2; c++) {
        if ((s = cuda_check(cudaMalloc((void **)&st->colour[c], bytes),
                            "cannot allocate device memory for the packed Ising spins")) < 0 ||
            (pmj && (s = cuda_check(cudaMalloc((void **)&st->eps_packed[c], eps_bytes),
                                    "cannot allocate device memory for the packed couplings"))
                        < 0))
            return s; /* destroy() frees what was allocated */
    }
    if (!st->packed_only)
        return LATMC_OK;
    st->stage_rows = cuda_ising_piece_rows(cs->lattice.lx, sim->nsites / cs->lattice.lx);
    if ((s = cuda_check(cudaMalloc((void **)&st->stage,
                                   (size_t)(st->stage_rows * cs->lattice.lx)),
                        "cannot allocate device memory for the Ising staging piece")) < 0)
        return s;
    if (pmj) {
        /* packed from the host a piece at a time: no byte couplings on the device until
         * a byte-kernel sweep needs them */
        const int64_t planes = cs->lattice.ndim == 3 ? cs->lattice.lz : cs->lattice.ly;
        s = cuda_check(cuda_ising_pack_couplings_host(cs->stream, &cs->lattice, st->eps_host,
                                                      planes, 0, st->eps_packed[0],
                                                      st->eps_packed[1]),
                       "packing the couplings");
        st->eps_packed_valid = s == LATMC_OK;
    }
    return s;
}

static void ising_destroy(struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    if (!st)
        return;
    cudaFree(st->colour[0]);
    cudaFree(st->colour[1]);
    cudaFree(st->eps_dev);
    cudaFree(st->eps_packed[0]);
    cudaFree(st->eps_packed[1]);
    cudaFree(st->stage);
    cuda_ens_batch_free(st->ens_batch);
    free(st->eps_host);
    free(st);
    cs->model_state = NULL;
}

/* Packed-only sims: allocate the whole byte array (and the byte couplings) on first need;
 * it is kept from then on (cudaErrorMemoryAllocation, i.e. LATMC_ENOMEM, when it does
 * not fit). Other sims have both from create. */
static cudaError_t byte_array(struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    cudaError_t err = cudaSuccess;
    if (!cs->spins)
        err = cudaMalloc(&cs->spins, (size_t)cs->lattice.nsites);
    if (err == cudaSuccess && st->eps_host && !st->eps_dev) {
        const size_t n = (size_t)cs->lattice.nsites * (size_t)cs->lattice.ndim;
        err = cudaMalloc((void **)&st->eps_dev, n);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(st->eps_dev, st->eps_host, n, cudaMemcpyHostToDevice,
                                  cs->stream);
    }
    return err;
}

/* Make the byte array hold the configuration (unpack it if only the packed arrays do). */
static cudaError_t bytes_valid(struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    if (st->bytes_valid)
        return cudaSuccess;
    cudaError_t err = byte_array(cs);
    if (err == cudaSuccess)
        err = cuda_ising_unpack(cs->stream, &cs->lattice, st->colour[0], st->colour[1],
                                cs->spins);
    if (err == cudaSuccess)
        st->bytes_valid = true;
    return err;
}

/*
 * Rows [r0, r1) of the configuration in the byte layout, to or from host memory at `host`
 * (row r at host + (r - r0) L_x), through the staging piece where only the packed arrays
 * hold the configuration. Enqueued on cs->stream; pageable host memory makes each piece's
 * copy wait for the host, so the caller synchronises before reusing `host`.
 */
static cudaError_t rows_to_host(struct cuda_sim *cs, int64_t r0, int64_t r1, int8_t *host)
{
    const struct cuda_ising_state *st = state_of(cs);
    const int64_t lx = cs->lattice.lx;
    /* a sim with bytes but no staging piece (+-J packed by an ensemble): unpack them all */
    cudaError_t unpacked = st->packed_only ? cudaSuccess : bytes_valid(cs);
    if (unpacked != cudaSuccess)
        return unpacked;
    if (st->bytes_valid)
        return cudaMemcpyAsync(host, (const int8_t *)cs->spins + r0 * lx,
                               (size_t)((r1 - r0) * lx), cudaMemcpyDeviceToHost, cs->stream);
    cudaError_t err = cudaSuccess;
    for (int64_t r = r0; r < r1 && err == cudaSuccess; r += st->stage_rows) {
        const int64_t n = r1 - r < st->stage_rows ? r1 - r : st->stage_rows;
        err = cuda_ising_unpack_rows(cs->stream, &cs->lattice, r, n, st->colour[0],
                                     st->colour[1], st->stage);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(host + (r - r0) * lx, st->stage, (size_t)(n * lx),
                                  cudaMemcpyDeviceToHost, cs->stream);
    }
    return err;
}

/* The packed arrays' rows [r0, r1) from host bytes (packed-only sims; the caller marks
 * the layouts). */
static cudaError_t rows_from_host(struct cuda_sim *cs, int64_t r0, int64_t r1,
                                  const int8_t *host)
{
    const struct cuda_ising_state *st = state_of(cs);
    const int64_t lx = cs->lattice.lx;
    cudaError_t err = cudaSuccess;
    for (int64_t r = r0; r < r1 && err == cudaSuccess; r += st->stage_rows) {
        const int64_t n = r1 - r < st->stage_rows ? r1 - r : st->stage_rows;
        err = cudaMemcpyAsync(st->stage, host + (r - r0) * lx, (size_t)(n * lx),
                              cudaMemcpyHostToDevice, cs->stream);
        if (err == cudaSuccess)
            err = cuda_ising_pack_rows(cs->stream, &cs->lattice, r, n, st->stage,
                                       st->colour[0], st->colour[1]);
    }
    return err;
}

/* The bytes were just written: the packed arrays are stale. */
static void bytes_written(struct cuda_sim *cs)
{
    state_of(cs)->bytes_valid = true;
    state_of(cs)->packed_valid = false;
}

/* Make the packed couplings match the couplings (+-J sims whose lattice has the packed
 * layout; after set_couplings). */
static cudaError_t eps_packed_current(struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    if (!st->eps_packed[0] || st->eps_packed_valid)
        return cudaSuccess;
    const cudaError_t err = cuda_ising_pack_couplings(cs->stream, &cs->lattice, st->eps_dev,
                                                      st->eps_packed[0], st->eps_packed[1]);
    if (err == cudaSuccess)
        st->eps_packed_valid = true;
    return err;
}

/* The ensembles' batched sweeps (ens_cuda.h) update the bytes: make them current, and
 * the packed arrays stale, as a byte-kernel sweep does. */
cudaError_t cuda_ising_batch_member(struct cuda_sim *cs, const int8_t **eps, bool *enqueued)
{
    state_of(cs)->in_batch = true;
    *enqueued = !state_of(cs)->bytes_valid || (state_of(cs)->eps_host && !state_of(cs)->eps_dev);
    cudaError_t err = byte_array(cs);
    if (err == cudaSuccess)
        err = bytes_valid(cs);
    if (err == cudaSuccess)
        bytes_written(cs);
    *eps = state_of(cs)->eps_dev;
    return err;
}

/* Packed-only sims: the packed arrays now hold the configuration, the bytes are stale. */
static void packed_written(struct cuda_sim *cs)
{
    state_of(cs)->bytes_valid = false;
    state_of(cs)->packed_valid = true;
}

/* Not through state_of: finding the batch changes no member's state. */
struct cuda_ens_batch **cuda_ising_ens_batch(struct cuda_sim *cs)
{
    return &((struct cuda_ising_state *)cs->model_state)->ens_batch;
}

/* The ensembles' packed sweeps (ens_cuda.h): where this member can run them, make its
 * packed arrays and couplings current, mark its bytes stale (the sweep writes the packed
 * arrays) and describe them in *out; else false, nothing done. */
bool cuda_ising_packed_member(struct cuda_sim *cs, struct cuda_ens_packed_member *out,
                              bool *enqueued, cudaError_t *err)
{
    struct cuda_ising_state *st = state_of(cs);
    st->in_batch = true;
    *enqueued = false;
    *err = cudaSuccess;
    const bool pmj = st->eps_host != NULL;
    if (!st->colour[0] || !cuda_ising_packed_allowed() || !st->thr_fit ||
        (pmj && !st->eps_packed[0]))
        return false;
    *enqueued = !st->packed_valid || (pmj && !st->eps_packed_valid);
    if (!st->packed_valid &&
        (*err = cuda_ising_pack(cs->stream, &cs->lattice, cs->spins, st->colour[0],
                                st->colour[1])) != cudaSuccess)
        return true;
    st->packed_valid = true;
    if ((*err = eps_packed_current(cs)) != cudaSuccess)
        return true;
    st->bytes_valid = false;
    for (int c = 0; c < 2; c++) {
        out->colour[c] = st->colour[c];
        out->eps[c] = st->eps_packed[c]; /* NULL when uniform */
    }
    out->thr = st->thr;
    return true;
}

static cudaError_t ising_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    if (st->packed_only) {
        /* +1 is the nibble 0 */
        const size_t bytes = (size_t)cuda_ising_packed_words(&cs->lattice) * sizeof(uint32_t);
        packed_written(cs);
        cudaError_t err = cudaMemsetAsync(st->colour[0], 0, bytes, cs->stream);
        return err == cudaSuccess ? cudaMemsetAsync(st->colour[1], 0, bytes, cs->stream) : err;
    }
    bytes_written(cs);
    return cudaMemsetAsync(cs->spins, 1, (size_t)sim->nsites, cs->stream); /* +1 */
}

static cudaError_t ising_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    if (st->packed_only) {
        /* a piece of rows at a time: the one-device hot start's draws (sites named by
         * their global index), packed */
        const int64_t rows = sim->nsites / cs->lattice.lx, lx = cs->lattice.lx;
        cudaError_t err = cudaSuccess;
        packed_written(cs);
        for (int64_t r = 0; r < rows && err == cudaSuccess; r += st->stage_rows) {
            const int64_t n = rows - r < st->stage_rows ? rows - r : st->stage_rows;
            err = cuda_ising_hot_start_range(cs->stream, st->stage, r * lx, n * lx,
                                             sim->desc.seed);
            if (err == cudaSuccess)
                err = cuda_ising_pack_rows(cs->stream, &cs->lattice, r, n, st->stage,
                                           st->colour[0], st->colour[1]);
        }
        return err;
    }
    bytes_written(cs);
    return cuda_ising_hot_start(cs->stream, cs->spins, sim->nsites, sim->desc.seed);
}

/* The step: one launch over its colour, on the packed kernels where they run (the packed
 * layout made current first), else the byte kernels. */
static cudaError_t ising_step(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                              const struct latmc_step *step)
{
    (void)sweep; /* the draws are named by step->rng */
    const int colour = step->colour;
    struct cuda_ising_state *st = state_of(cs);
    const bool packed = st->packed_kernels && cuda_ising_packed_allowed() && st->thr_fit;
    cudaError_t err = cudaSuccess;
    if (packed) {
        if (!st->packed_valid) {
            err = cuda_ising_pack(cs->stream, &cs->lattice, cs->spins, st->colour[0],
                                  st->colour[1]);
            if (err != cudaSuccess)
                return err;
            st->packed_valid = true;
        }
        if ((err = eps_packed_current(cs)) != cudaSuccess)
            return err;
        st->bytes_valid = false;
        return cuda_ising_packed_sweep_colour(cs->stream, &cs->lattice, st->colour[colour],
                                              st->colour[colour ^ 1], st->eps_packed[colour],
                                              &st->thr, sim->desc.algorithm, sim->desc.seed,
                                              step->rng, colour, cs->changed);
    }
    if ((err = byte_array(cs)) != cudaSuccess || (err = bytes_valid(cs)) != cudaSuccess)
        return err;
    bytes_written(cs);
    return cuda_ising_sweep_colour(cs->stream, &cs->lattice, cs->spins, st->eps_dev, cs->tables,
                                   sim->desc.algorithm, sim->desc.seed, step->rng, colour,
                                   cs->changed);
}

static void ising_params_changed(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    st->thr_fit = cuda_ising_packed_thresholds_of(sim->model_data, sim->desc.algorithm,
                                                  sim->desc.ndim, &st->thr);
}

static cudaError_t ising_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    const struct cuda_ising_state *st = state_of(cs);
    cudaError_t err = eps_packed_current(cs);
    if (err != cudaSuccess)
        return err;
    /* +-J where only an ensemble's kernel takes the packed layout: measure the bytes */
    if (!st->packed_kernels && (err = bytes_valid(cs)) != cudaSuccess)
        return err;
    if (st->packed_valid && st->packed_kernels)
        return cuda_ising_packed_measure(cs->stream, &cs->lattice, st->colour[0], st->colour[1],
                                         st->eps_packed[0], cs->sums);
    return cuda_ising_measure(cs->stream, &cs->lattice, cs->spins, st->eps_dev, cs->sums);
}

static cudaError_t ising_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    if (state_of(cs)->packed_only)
        return rows_to_host(cs, 0, sim->nsites / cs->lattice.lx, buf);
    cudaError_t err = bytes_valid(cs);
    if (err != cudaSuccess)
        return err;
    return cudaMemcpyAsync(buf, cs->spins, (size_t)sim->nsites, cudaMemcpyDeviceToHost,
                           cs->stream);
}

static cudaError_t ising_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    if (state_of(cs)->packed_only) {
        packed_written(cs);
        return rows_from_host(cs, 0, sim->nsites / cs->lattice.lx, buf);
    }
    bytes_written(cs);
    return cudaMemcpyAsync(cs->spins, buf, (size_t)sim->nsites, cudaMemcpyHostToDevice,
                           cs->stream);
}

/* Called by the core only for a sim with couplings (eps set). */
static cudaError_t ising_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf)
{
    const struct cuda_ising_state *st = state_of(cs);
    const size_t n = coupling_count(sim);
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)st->eps_host[i];
    return cudaSuccess;
}

/* Values checked by the core: exactly +1.0f or -1.0f. The generic code synchronises. */
static cudaError_t ising_set_couplings(const latmc_sim *sim, struct cuda_sim *cs, const float *buf)
{
    struct cuda_ising_state *st = state_of(cs);
    const size_t n = coupling_count(sim);
    for (size_t i = 0; i < n; i++)
        st->eps_host[i] = buf[i] > 0.0f ? (int8_t)1 : (int8_t)-1;
    st->eps_packed_valid = false; /* repacked before the next packed sweep */
    if (st->packed_only && !st->eps_dev) {
        /* packed now from the host, a piece at a time (no byte couplings on the device) */
        const int64_t planes = cs->lattice.ndim == 3 ? cs->lattice.lz : cs->lattice.ly;
        const cudaError_t err = cuda_ising_pack_couplings_host(
            cs->stream, &cs->lattice, st->eps_host, planes, 0, st->eps_packed[0],
            st->eps_packed[1]);
        st->eps_packed_valid = err == cudaSuccess;
        return err;
    }
    return cudaMemcpyAsync(st->eps_dev, st->eps_host, n, cudaMemcpyHostToDevice, cs->stream);
}

/* The byte array, brought up to date on the device first (an unpack when only the
 * packed words hold the configuration: both layouts stay valid, so the next packed sweep
 * needs no packing). The packed words themselves are no strided array (32 spins per
 * word, split by colour), so the view is always of the bytes: a packed-only sim
 * allocates its byte array here, once (LATMC_ENOMEM when it does not fit). */
static cudaError_t ising_device_view(const latmc_sim *sim, struct cuda_sim *cs,
                                    latmc_device_view *view)
{
    const cudaError_t err = bytes_valid(cs);
    if (err != cudaSuccess)
        return err;
    cuda_view_fill(sim, cs, view, cs->spins, LATMC_DTYPE_INT8, 1, 1, 0, (int64_t)sim->nsites);
    return cudaSuccess;
}

const struct cuda_model_kernels cuda_ising_kernels = {
    .model = LATMC_MODEL_ISING,
    .cold_byte = 1, /* +1 (unused: cold_start) */
    .create = ising_create,
    .destroy = ising_destroy,
    .cold_start = ising_cold_start,
    .hot_start = ising_hot_start,
    .step = ising_step,
    .measure = ising_measure,
    .get_spins = ising_get_spins,
    .set_spins = ising_set_spins,
    .get_couplings = ising_get_couplings,
    .set_couplings = ising_set_couplings,
    .params_changed = ising_params_changed,
    .device_view = ising_device_view,
    .model_owns_spins = ising_packed_only,
};
