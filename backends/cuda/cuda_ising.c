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
 * The packed kernels run when the lattice fits (L_x a multiple of 16), the decision
 * tables fit 32-bit thresholds (all but extreme beta), and LATMC_CUDA_KERNELS is not
 * "reference".
 */
#include <stdbool.h>
#include <stdlib.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "ising_packed.h"
#include "model.h"

struct cuda_ising_state {
    uint32_t *colour[2];  /* the packed arrays; NULL where the lattice does not fit */
    /* Which layouts hold the configuration (at least one; both after an unpack for
     * get_spins, so that the next packed sweep needs no packing). */
    bool bytes_valid, packed_valid;
};

static struct cuda_ising_state *state_of(const struct cuda_sim *cs)
{
    return (struct cuda_ising_state *)cs->model_state;
}

static int ising_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    struct cuda_ising_state *st = calloc(1, sizeof *st);
    if (!st)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Ising state");
    cs->model_state = st;
    st->bytes_valid = true; /* what init_spins or set_spins will write */
    if (!cuda_ising_packed_fits(&cs->lattice))
        return LATMC_OK;
    const size_t bytes = (size_t)cuda_ising_packed_words(&cs->lattice) * sizeof(uint32_t);
    for (int c = 0; c < 2; c++) {
        int s = cuda_check(cudaMalloc((void **)&st->colour[c], bytes),
                           "cannot allocate device memory for the packed Ising spins");
        if (s < 0)
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
    struct cuda_ising_packed_thresholds thr;
    const bool packed = st->colour[0] && cuda_ising_packed_allowed() &&
                        cuda_ising_packed_thresholds_of(sim->model_data, sim->desc.algorithm,
                                                        sim->desc.ndim, &thr);
    cudaError_t err = cudaSuccess;
    if (packed) {
        if (!st->packed_valid) {
            err = cuda_ising_pack(cs->stream, &cs->lattice, cs->spins, st->colour[0],
                                  st->colour[1]);
            if (err != cudaSuccess)
                return err;
            st->packed_valid = true;
        }
        st->bytes_valid = false;
        for (int colour = 0; colour < 2 && err == cudaSuccess; colour++)
            err = cuda_ising_packed_sweep_colour(cs->stream, &cs->lattice, st->colour[colour],
                                                 st->colour[colour ^ 1], &thr,
                                                 sim->desc.algorithm, sim->desc.seed, sweep,
                                                 colour, cs->changed);
        return err;
    }
    if ((err = bytes_valid(cs)) != cudaSuccess)
        return err;
    bytes_written(cs);
    for (int colour = 0; colour < 2 && err == cudaSuccess; colour++)
        err = cuda_ising_sweep_colour(cs->stream, &cs->lattice, cs->spins, cs->tables,
                                      sim->desc.algorithm, sim->desc.seed, sweep, colour,
                                      cs->changed);
    return err;
}

static cudaError_t ising_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    const struct cuda_ising_state *st = state_of(cs);
    if (st->packed_valid)
        return cuda_ising_packed_measure(cs->stream, &cs->lattice, st->colour[0], st->colour[1],
                                         cs->sums);
    return cuda_ising_measure(cs->stream, &cs->lattice, cs->spins, cs->sums);
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
};
