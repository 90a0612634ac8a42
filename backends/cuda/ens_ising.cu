/*
 * The ensembles' batched Ising update (ens_cuda.h): one launch per colour for every
 * member. Item i of the grid is Philox block b = i mod B of member m = i / B (B blocks of
 * four same-colour sites per member); it runs latmc_ising_update_block[_coupled], the
 * function of the CPU reference and of the module's per-block kernels, with the member's
 * spins, couplings, tables and seed. Members do not share memory, sites of one colour do
 * not interact: the order of the items never matters.
 */
#include "cuda_launch.cuh"
#include "ens_cuda.h"
#include "ising_rules.h"

template <bool COUPLED>
__global__ void ens_ising_colour_kernel(struct latmc_lattice g,
                                        const struct cuda_ens_ising_member *members,
                                        int64_t n_members, int algorithm, uint64_t sweep,
                                        int colour, unsigned long long *changed)
{
    const int64_t per_member = (g.nsites / 2 + 3) / 4, total = per_member * n_members;
    const unsigned lane = threadIdx.x & 31u;
    /* whole warps walk the items together (the warp sums below need all 32 lanes) */
    for (int64_t i = cuda_first_item(); i - (int64_t)lane < total; i += cuda_item_stride()) {
        const bool valid = i < total;
        const int64_t m = valid ? latmc_div(i, per_member) : -1;
        const int64_t b = valid ? i - m * per_member : 0;
        uint64_t n = 0;
        if (valid) {
            const struct cuda_ens_ising_member mem = members[m];
            n = COUPLED ? latmc_ising_update_block_coupled(&g, mem.spins, mem.eps, mem.tables,
                                                           algorithm, mem.seed, sweep, colour,
                                                           b)
                        : latmc_ising_update_block(&g, mem.spins, mem.tables, algorithm,
                                                   mem.seed, sweep, colour, b);
        }
        /* one atomic per warp where the warp's items belong to one member (nearly always) */
        const int64_t m0 = __shfl_sync(0xffffffffu, m, 0);
        if (__all_sync(0xffffffffu, m == m0)) {
            cuda_warp_add(&changed[m0 < 0 ? 0 : m0], n);
        } else if (valid && n) {
            atomicAdd(&changed[m], (unsigned long long)n);
        }
    }
}

extern "C" cudaError_t cuda_ens_ising_sweep_colour(cudaStream_t stream,
                                                   const struct latmc_lattice *g,
                                                   const struct cuda_ens_ising_member *members,
                                                   int64_t n_members, int coupled,
                                                   int algorithm, uint64_t sweep, int colour,
                                                   unsigned long long *changed)
{
    const int64_t items = (g->nsites / 2 + 3) / 4 * n_members;
    if (coupled)
        ens_ising_colour_kernel<true><<<cuda_grid(items), CUDA_THREADS, 0, stream>>>(
            *g, members, n_members, algorithm, sweep, colour, changed);
    else
        ens_ising_colour_kernel<false><<<cuda_grid(items), CUDA_THREADS, 0, stream>>>(
            *g, members, n_members, algorithm, sweep, colour, changed);
    return cudaGetLastError();
}
