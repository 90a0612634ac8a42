/*
 * What the Ising leaves share (cuda_ising_leaf.h): the state epoch and the +-J couplings
 * (drawn on the device, or on the host where a read or set_couplings needs them).
 * Apart from cuda_ising_leaf.c, which calls the leaves, so that no two files call each
 * other (tests/layering).
 */
#include <stdatomic.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "cuda_coupling_draws.h"
#include "cuda_ising_leaf.h"

static _Atomic uint64_t state_epoch;

uint64_t cuda_ising_state_epoch(void)
{
    return atomic_load_explicit(&state_epoch, memory_order_relaxed);
}

void cuda_ising_state_touched(bool member)
{
    if (member)
        atomic_fetch_add_explicit(&state_epoch, 1, memory_order_relaxed);
}

/* Couplings of one plane of the last axis: ndim per site. */
int64_t cuda_ising_coupling_plane(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return (d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0]) * d->ndim;
}

int cuda_ising_draw_couplings(const latmc_sim *sim, int64_t first, int64_t planes, void **host)
{
    *host = NULL;
    if (sim->desc.couplings != LATMC_COUPLINGS_BIMODAL)
        return LATMC_OK; /* uniform: none */
    const int64_t L = sim->desc.extent[sim->desc.ndim - 1], pp = cuda_ising_coupling_plane(sim);
    const size_t n = (size_t)(planes * pp);
    int8_t *eps = malloc(n);
    if (!eps)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of host "
                               "memory for the couplings", n);
    /* runs of consecutive lattice planes, each drawn where it lies in the global draws */
    int st = LATMC_OK;
    for (int64_t k = 0; k < planes && st == LATMC_OK;) {
        const int64_t g = ((first + k) % L + L) % L;
        int64_t run = 1;
        while (k + run < planes && g + run < L)
            run++;
        st = cuda_core->draw_couplings(eps + k * pp, 0, LATMC_COUPLINGS_BIMODAL, g * pp,
                                       (g + run) * pp, sim->desc.coupling_seed,
                                       sim->desc.n_threads);
        k += run;
    }
    if (st < 0) {
        free(eps);
        return st;
    }
    *host = eps;
    return LATMC_OK;
}

cudaError_t cuda_ising_eps_to_box(const latmc_sim *sim, const struct cuda_box *b,
                                  cudaStream_t stream, int8_t *eps, const void *host,
                                  int64_t host_first)
{
    const size_t plane = (size_t)cuda_ising_coupling_plane(sim);
    const int64_t L = sim->desc.extent[sim->desc.ndim - 1];
    struct cuda_box_run r[3];
    cuda_box_runs(&b->ex, b->halo, L, r);
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < 3 && err == cudaSuccess; k++)
        if (r[k].planes > 0)
            err = cudaMemcpyAsync(eps + (size_t)r[k].local * plane,
                                  (const int8_t *)host +
                                      (size_t)(((r[k].global - host_first) % L + L) % L) *
                                          plane,
                                  (size_t)r[k].planes * plane, cudaMemcpyHostToDevice, stream);
    return err;
}

bool cuda_ising_draws_couplings(const latmc_sim *sim)
{
    return sim->desc.couplings == LATMC_COUPLINGS_BIMODAL;
}

cudaError_t cuda_ising_eps_draw_box(const latmc_sim *sim, const struct cuda_box *b,
                                    cudaStream_t stream, int8_t *eps)
{
    const int64_t plane = cuda_ising_coupling_plane(sim);
    const int64_t L = sim->desc.extent[sim->desc.ndim - 1];
    struct cuda_box_run r[3];
    cuda_box_runs(&b->ex, b->halo, L, r);
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < 3; k++) /* each run in pieces that do not pass plane L - 1 */
        for (int64_t done = 0; done < r[k].planes && err == cudaSuccess;) {
            const int64_t g = (r[k].global + done) % L;
            const int64_t n = r[k].planes - done < L - g ? r[k].planes - done : L - g;
            err = cuda_draw_bimodal_bytes(stream, eps + (r[k].local + done) * plane, g * plane,
                                          (g + n) * plane, sim->desc.coupling_seed);
            done += n;
        }
    return err;
}

void cuda_ising_couplings_to_float(const latmc_sim *sim, const void *host, int64_t host_plane,
                                   float *buf, int64_t planes)
{
    const int64_t pp = cuda_ising_coupling_plane(sim);
    const int8_t *eps = (const int8_t *)host + host_plane * pp;
    for (int64_t i = 0; i < planes * pp; i++)
        buf[i] = (float)eps[i];
}

/* Values checked by the core: exactly +1.0f or -1.0f. */
void cuda_ising_couplings_from_float(const latmc_sim *sim, void *host, int64_t host_plane,
                                     const float *whole, int64_t global_plane, int64_t planes)
{
    const int64_t pp = cuda_ising_coupling_plane(sim);
    int8_t *eps = (int8_t *)host + host_plane * pp;
    const float *from = whole + global_plane * pp;
    for (int64_t i = 0; i < planes * pp; i++)
        eps[i] = from[i] > 0.0f ? (int8_t)1 : (int8_t)-1;
}
