/*
 * Ising in the CUDA module: the model's table (cuda_backend.h) and which of its two
 * layouts holds the configuration.
 *
 * The spins live in the API's byte layout (cs->spins: hot and cold start, set/get_spins
 * and the byte kernels work there) and, where the lattice fits it, also in the packed
 * layout of ising_packed.h (two colour arrays, an eighth of the bytes' size together).
 * Two flags say which layouts hold the configuration: a sweep that can run the packed
 * kernels packs the bytes first if the packed arrays are stale, and leaves the bytes
 * stale; anything that needs bytes unpacks them first. Both layouts hold the same configuration, and both kernels
 * follow the same chain bit for bit, so which one runs never shows in a result.
 *
 * The packed kernels run when the lattice fits (L_x a multiple of 16; 64 with +-J
 * couplings), the decision tables fit 32-bit thresholds (all but extreme beta), and
 * LATMC_CUDA_KERNELS is not "reference".
 *
 * +-J couplings (desc.couplings = BIMODAL): one int8 +-1 per bond, eps[ndim i + mu], on the
 * device for the byte kernels, packed per colour for the packed kernels (rebuilt on the
 * device after set_couplings), and the same bytes on the host for get_couplings (the
 * device never changes them). Drawn on the host with the CPU's function
 * (lib/coupling_draws.h): the CPU's couplings bit for bit.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coupling_draws.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_planes.h"
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
};

static struct cuda_ising_state *state_of(const struct cuda_sim *cs)
{
    return (struct cuda_ising_state *)cs->model_state;
}

static size_t coupling_count(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.ndim;
}

/* The +-J couplings, drawn on the host, copied to the device. */
static int create_couplings(const latmc_sim *sim, struct cuda_sim *cs,
                            struct cuda_ising_state *st)
{
    const size_t n = coupling_count(sim);
    st->eps_host = malloc(n);
    if (!st->eps_host)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of host "
                               "memory for the couplings", n);
    for (int64_t b = 0; b < (int64_t)((n + 3) / 4); b++)
        latmc_ising_bimodal_block(st->eps_host, (int64_t)n, sim->desc.coupling_seed, b);
    char msg[128];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory for the couplings", n);
    int s = cuda_check(cudaMalloc((void **)&st->eps_dev, n), msg);
    if (s == LATMC_OK)
        s = cuda_check(cudaMemcpyAsync(st->eps_dev, st->eps_host, n, cudaMemcpyHostToDevice,
                                       cs->stream), "copying the couplings to the device");
    if (s == LATMC_OK)
        s = cuda_check(cudaStreamSynchronize(cs->stream), "copying the couplings to the device");
    return s;
}

static int ising_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct cuda_ising_state *st = calloc(1, sizeof *st);
    if (!st)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Ising state");
    cs->model_state = st; /* freed by ising_destroy, also after a failure below */
    st->bytes_valid = true; /* what init_spins or set_spins will write */
    const bool pmj = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    int s = LATMC_OK;
    if (pmj && (s = create_couplings(sim, cs, st)) < 0)
        return s;
    if (pmj ? !cuda_ising_packed_fits_couplings(&cs->lattice)
            : !cuda_ising_packed_fits(&cs->lattice))
        return LATMC_OK;
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
    return LATMC_OK;
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
    free(st->eps_host);
    free(st);
    cs->model_state = NULL;
}

/* Make the bytes hold the configuration (unpack them if only the packed arrays do). */
static cudaError_t bytes_valid(struct cuda_sim *cs)
{
    struct cuda_ising_state *st = state_of(cs);
    if (st->bytes_valid)
        return cudaSuccess;
    const cudaError_t err = cuda_ising_unpack(cs->stream, &cs->lattice, st->colour[0],
                                              st->colour[1], cs->spins);
    if (err == cudaSuccess)
        st->bytes_valid = true;
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
    *enqueued = !state_of(cs)->bytes_valid;
    const cudaError_t err = bytes_valid(cs);
    if (err == cudaSuccess)
        bytes_written(cs);
    *eps = state_of(cs)->eps_dev;
    return err;
}

static cudaError_t ising_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    bytes_written(cs);
    return cudaMemsetAsync(cs->spins, 1, (size_t)sim->nsites, cs->stream); /* +1 */
}

static cudaError_t ising_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    bytes_written(cs);
    return cuda_ising_hot_start(cs->stream, cs->spins, sim->nsites, sim->desc.seed);
}

static cudaError_t ising_sweep(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep)
{
    struct cuda_ising_state *st = state_of(cs);
    const bool packed = st->colour[0] && cuda_ising_packed_allowed() && st->thr_fit;
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
        for (int colour = 0; colour < 2 && err == cudaSuccess; colour++)
            err = cuda_ising_packed_sweep_colour(cs->stream, &cs->lattice, st->colour[colour],
                                                 st->colour[colour ^ 1], st->eps_packed[colour],
                                                 &st->thr,
                                                 sim->desc.algorithm, sim->desc.seed, sweep,
                                                 colour, cs->changed);
        return err;
    }
    if ((err = bytes_valid(cs)) != cudaSuccess)
        return err;
    bytes_written(cs);
    for (int colour = 0; colour < 2 && err == cudaSuccess; colour++)
        err = cuda_ising_sweep_colour(cs->stream, &cs->lattice, cs->spins, st->eps_dev,
                                      cs->tables,
                                      sim->desc.algorithm, sim->desc.seed, sweep, colour,
                                      cs->changed);
    return err;
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
    if (st->packed_valid)
        return cuda_ising_packed_measure(cs->stream, &cs->lattice, st->colour[0], st->colour[1],
                                         st->eps_packed[0], cs->sums);
    return cuda_ising_measure(cs->stream, &cs->lattice, cs->spins, st->eps_dev, cs->sums);
}

static cudaError_t ising_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    cudaError_t err = bytes_valid(cs);
    if (err != cudaSuccess)
        return err;
    return cudaMemcpyAsync(buf, cs->spins, (size_t)sim->nsites, cudaMemcpyDeviceToHost,
                           cs->stream);
}

static cudaError_t ising_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
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
    return cudaMemcpyAsync(st->eps_dev, st->eps_host, n, cudaMemcpyHostToDevice, cs->stream);
}

/* The byte array, brought up to date on the device first (an unpack when only the
 * packed words hold the configuration: both layouts stay valid, so the next packed sweep
 * needs no packing). The packed words themselves are no strided array (32 spins per
 * word, split by colour), so the view is always of the bytes. */
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
    .sweep = ising_sweep,
    .measure = ising_measure,
    .get_spins = ising_get_spins,
    .set_spins = ising_set_spins,
    .get_couplings = ising_get_couplings,
    .set_couplings = ising_set_couplings,
    .params_changed = ising_params_changed,
    .device_view = ising_device_view,
};

/* The packed layout for a part's per-plane ops (cuda_planes.h). */
cudaError_t cuda_ising_packed_access(struct cuda_sim *cs, bool writing,
                                     struct cuda_ising_packed_access *out)
{
    struct cuda_ising_state *st = state_of(cs);
    memset(out, 0, sizeof *out);
    if (!st->colour[0])
        return cudaSuccess;
    cudaError_t err = cudaSuccess;
    if (!st->packed_valid) {
        err = cuda_ising_pack(cs->stream, &cs->lattice, cs->spins, st->colour[0], st->colour[1]);
        if (err != cudaSuccess)
            return err;
        st->packed_valid = true;
    }
    if ((err = eps_packed_current(cs)) != cudaSuccess)
        return err;
    if (writing)
        st->bytes_valid = false;
    for (int c = 0; c < 2; c++) {
        out->colour[c] = st->colour[c];
        out->eps[c] = st->eps_packed[c];
    }
    out->thr = &st->thr;
    out->thr_fit = st->thr_fit;
    return cudaSuccess;
}
