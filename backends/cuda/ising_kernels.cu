/*
 * Ising on the GPU: hot start and the checkerboard update, one thread per Philox block of
 * four same-colour sites. Each thread runs latmc_ising_update_block(), the function the
 * CPU reference runs for the same block: the same sites, the same Philox counter, the same
 * integer decisions from the same tables, hence the same configuration bit for bit. Sites
 * of one colour never interact, so the order in which threads run does not matter.
 */
#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "ising_rules.h"

__global__ void ising_hot_start_kernel(int8_t *spins, int64_t n, uint64_t seed)
{
    const int64_t nblocks = (n + 3) / 4;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride())
        latmc_ising_hot_block(spins, n, seed, b);
}

__global__ void ising_sweep_colour_kernel(struct latmc_lattice g, int8_t *spins,
                                          const struct latmc_ising_tables *tables, int algorithm,
                                          uint64_t seed, uint64_t sweep, int colour,
                                          unsigned long long *changed)
{
    const int64_t nblocks = (g.nsites / 2 + 3) / 4;
    uint64_t n_changed = 0;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride())
        n_changed += latmc_ising_update_block(&g, spins, tables, algorithm, seed, sweep, colour, b);
    cuda_warp_add(changed, n_changed);
}

extern "C" cudaError_t cuda_ising_hot_start(cudaStream_t stream, int8_t *spins, int64_t n,
                                            uint64_t seed)
{
    ising_hot_start_kernel<<<cuda_grid((n + 3) / 4), CUDA_THREADS, 0, stream>>>(spins, n, seed);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ising_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                               int8_t *spins,
                                               const struct latmc_ising_tables *tables,
                                               int algorithm, uint64_t seed, uint64_t sweep,
                                               int colour, unsigned long long *changed)
{
    const int64_t nblocks = (g->nsites / 2 + 3) / 4;
    ising_sweep_colour_kernel<<<cuda_grid(nblocks), CUDA_THREADS, 0, stream>>>(
        *g, spins, tables, algorithm, seed, sweep, colour, changed);
    return cudaGetLastError();
}
