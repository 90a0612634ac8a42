/*
 * Potts on the GPU: the colour-by-colour update (c = 2 or 3 colours) of a whole lattice.
 *
 * The update launcher takes the row-segment kernels of potts_rows.cu where the lattice
 * suits them, and otherwise the per-block reference kernel below: one thread per Philox
 * block of four same-colour sites, running latmc_potts_step_lanes(), the function the
 * CPU reference runs for the same block: the same sites, Philox counters and integer
 * decisions, hence the same configuration bit for bit. Sites of one colour never interact,
 * so the order of the threads does not matter. LATMC_CUDA_KERNELS=reference forces the
 * reference kernel (cuda_kernel_choice.cuh).
 */
#include "cuda_kernel_choice.cuh"
#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "potts_rows.cuh"

__global__ void potts_sweep_colour_kernel(struct latmc_lattice g, uint8_t *spins,
                                          struct latmc_potts_chain chain,
                                          struct latmc_rng_name rng, int colour,
                                          unsigned long long *changed)
{
    const int64_t nblocks = (g.nsites / chain.colours + 3) / 4;
    /* The heat bath's per-state neighbour counters (all 0 between calls), in the thread's
     * local memory, cleared once per thread (the grid is capped, see below). Metropolis
     * does not touch them. */
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    if (chain.algorithm == LATMC_ALGO_HEATBATH)
        for (int k = 0; k <= LATMC_POTTS_MAX_Q; k++)
            n_of[k] = 0;
    uint64_t n_changed = 0;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride())
        n_changed += latmc_potts_step_lanes(&g, spins, &chain, rng, colour, b, 0, 4, n_of);
    cuda_warp_add(changed, n_changed);
}

extern "C" cudaError_t cuda_potts_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                               uint8_t *spins, const struct latmc_potts_chain *chain,
                                               struct latmc_rng_name rng, int colour,
                                               unsigned long long *changed)
{
    cudaError_t err = cudaSuccess;
    if (!cuda_reference_kernels_only() &&
        cuda_potts_rows_sweep_colour(stream, g, spins, chain, rng, colour, changed, &err))
        return err;
    /* capped: each thread then strides over many Philox blocks, so that the 256 bytes of
     * heat-bath counters it clears at its start are cleared once per many sites, not once
     * per four */
    const int64_t nblocks = (g->nsites / chain->colours + 3) / 4;
    const unsigned grid = cuda_grid_capped(nblocks);
    potts_sweep_colour_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*g, spins, *chain, rng,
                                                                 colour, changed);
    return cudaGetLastError();
}
