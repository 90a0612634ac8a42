/*
 * The Ising leaves' choice of layout and their +-J couplings (cuda_ising_leaf.h).
 */
#include <stdlib.h>

#include "cuda_check.h"
#include "cuda_ising_leaf.h"
#include "model.h"

const struct cuda_leaf *cuda_ising_leaf_of(const latmc_sim *sim)
{
    /* the packed kernels take +-J couplings in groups of 4 words a row (L_x / 64) */
    const int64_t words = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL ? 64 : 16;
    return sim->desc.extent[0] % words == 0 ? &cuda_ising_packed_leaf : &cuda_ising_bytes_leaf;
}

static size_t coupling_count(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.ndim;
}

int cuda_ising_draw_couplings(const latmc_sim *sim, void **host)
{
    *host = NULL;
    if (sim->desc.couplings != LATMC_COUPLINGS_BIMODAL)
        return LATMC_OK; /* uniform: none */
    const size_t n = coupling_count(sim);
    int8_t *eps = malloc(n);
    if (!eps)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of host "
                               "memory for the couplings", n);
    const int st = cuda_core->draw_couplings(eps, 0, LATMC_COUPLINGS_BIMODAL, 0, (int64_t)n,
                                             sim->desc.coupling_seed, sim->desc.n_threads);
    if (st < 0) {
        free(eps);
        return st;
    }
    *host = eps;
    return LATMC_OK;
}

void cuda_ising_couplings_to_float(const latmc_sim *sim, const void *host, float *buf)
{
    const int8_t *eps = host;
    const size_t n = coupling_count(sim);
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)eps[i];
}

/* Values checked by the core: exactly +1.0f or -1.0f. */
void cuda_ising_couplings_from_float(const latmc_sim *sim, void *host, const float *buf)
{
    int8_t *eps = host;
    const size_t n = coupling_count(sim);
    for (size_t i = 0; i < n; i++)
        eps[i] = buf[i] > 0.0f ? (int8_t)1 : (int8_t)-1;
}
