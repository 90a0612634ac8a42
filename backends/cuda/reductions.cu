/*
 * Observables on the GPU: the exact integer sums of lib/ising.h and lib/potts.h, reduced
 * on the device; only the sums struct travels to the host. Bonds are counted per site and
 * positive direction, sum_x sum_mu b(s_x, s_{x+mu}), as on the CPU (doc/conventions.md);
 * Ising with +-J couplings weighs each by its coupling eps_{x,mu}.
 * Every partial sum is an integer and 64-bit atomicAdd is exact and order-independent, so
 * the sums (and the observables the core derives from them) equal the CPU backend's
 * exactly, for any launch geometry.
 */
#include "cuda_kernels.h"
#include "cuda_launch.cuh"

/* The neighbours of site i in the positive directions (x+1, y+1, z+1). */
struct up_neighbours {
    int64_t x, y, z;
};

__device__ __forceinline__ struct up_neighbours cuda_up_neighbours(const struct latmc_lattice *g,
                                                                   int64_t i)
{
    const int64_t x = i % g->lx, row = i / g->lx;
    const int64_t y = row % g->ly, z = row / g->ly;
    struct up_neighbours up;
    up.x = latmc_wrap_up(x, g->lx) + g->lx * row;
    up.y = x + g->lx * (latmc_wrap_up(y, g->ly) + g->ly * z);
    up.z = x + g->lx * (y + g->ly * latmc_wrap_up(z, g->lz));
    return up;
}

__global__ void ising_measure_kernel(struct latmc_lattice g, const int8_t *spins,
                                     struct latmc_ising_sums *sums)
{
    int64_t bonds = 0, total = 0;
    for (int64_t i = cuda_first_item(); i < g.nsites; i += cuda_item_stride()) {
        const struct up_neighbours up = cuda_up_neighbours(&g, i);
        int nb = spins[up.x] + spins[up.y];
        if (g.ndim == 3)
            nb += spins[up.z];
        bonds += spins[i] * nb;
        total += spins[i];
    }
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)total);
}

/* The same with +-J couplings: bonds = sum_i sum_mu eps[ndim i + mu] s_i s_{i+mu}. */
__global__ void ising_measure_coupled_kernel(struct latmc_lattice g, const int8_t *spins,
                                             const int8_t *eps, struct latmc_ising_sums *sums)
{
    int64_t bonds = 0, total = 0;
    const int nd = g.ndim;
    for (int64_t i = cuda_first_item(); i < g.nsites; i += cuda_item_stride()) {
        const struct up_neighbours up = cuda_up_neighbours(&g, i);
        const int8_t *e = eps + nd * i;
        int nb = e[0] * spins[up.x] + e[1] * spins[up.y];
        if (nd == 3)
            nb += e[2] * spins[up.z];
        bonds += spins[i] * nb;
        total += spins[i];
    }
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)total);
}

/*
 * Potts: satisfied bond terms by warp sums; state populations by a histogram per block in
 * shared memory (64-bit counters: a block may stride over many sites), added to the global
 * counts once per block and state. The lanes of a warp that hold the same state are found
 * with one __match_any_sync and add their count with one shared-memory atomic (a warp adds
 * at most as many as it holds distinct states: one per warp and state for small q, where
 * 32 lanes hitting the same counter would otherwise serialise). The thread's site walks
 * as a mixed-radix counter (x, y, z) over the grid stride: no division per site.
 */
struct potts_measure_walk {
    int64_t stride;              /* threads of the grid */
    int64_t st_x, st_y, st_z;    /* stride = st_x + L_x (st_y + L_y st_z) */
};

__global__ void potts_measure_kernel(struct latmc_lattice g, const uint8_t *spins,
                                     struct potts_measure_walk walk,
                                     struct latmc_potts_sums *sums)
{
    __shared__ unsigned long long hist[LATMC_POTTS_MAX_Q + 1];
    for (int k = threadIdx.x; k <= LATMC_POTTS_MAX_Q; k += blockDim.x)
        hist[k] = 0;
    __syncthreads();
    int64_t matches = 0;
    /* The whole warp walks together (the stride is a multiple of 32), so that
     * __match_any_sync sees all 32 lanes; lanes past the lattice take part with a value no
     * state has and count nothing. */
    const int64_t first = cuda_first_item();
    const unsigned lane = threadIdx.x & 31u;
    const int64_t lx = g.lx, ly = g.ly, lz = g.lz, plane = g.lx * g.ly;
    int64_t x = first % lx;
    const int64_t row = first / lx;
    int64_t y = row % ly, z = row / ly;
    for (int64_t i = first; i - (int64_t)lane < g.nsites; i += walk.stride) {
        const bool site = i < g.nsites;
        unsigned s = 256 + lane;
        if (site) {
            s = spins[i];
            matches += (s == spins[i + (x + 1 == lx ? 1 - lx : 1)]) +
                       (s == spins[i + (y + 1 == ly ? -(ly - 1) * lx : lx)]);
            if (g.ndim == 3)
                matches += s == spins[i + (z + 1 == lz ? -(lz - 1) * plane : plane)];
        }
        const unsigned same = __match_any_sync(0xffffffffu, s);
        if (site && lane == (unsigned)(__ffs(same) - 1))
            atomicAdd(&hist[s], (unsigned long long)__popc(same));
        x += walk.st_x;
        y += walk.st_y;
        z += walk.st_z;
        if (x >= lx) {
            x -= lx;
            y++;
        }
        if (y >= ly) {
            y -= ly;
            z++;
        }
    }
    cuda_warp_add((unsigned long long *)&sums->matches, (unsigned long long)matches);
    __syncthreads();
    for (int k = threadIdx.x; k <= LATMC_POTTS_MAX_Q; k += blockDim.x)
        if (hist[k] != 0)
            atomicAdd((unsigned long long *)&sums->count[k], hist[k]);
}

extern "C" cudaError_t cuda_ising_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                          const int8_t *spins, const int8_t *eps,
                                          struct latmc_ising_sums *sums)
{
    if (eps)
        ising_measure_coupled_kernel<<<cuda_grid(g->nsites), CUDA_THREADS, 0, stream>>>(
            *g, spins, eps, sums);
    else
        ising_measure_kernel<<<cuda_grid(g->nsites), CUDA_THREADS, 0, stream>>>(*g, spins, sums);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_potts_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                          const uint8_t *spins, struct latmc_potts_sums *sums)
{
    /* capped: the block's histogram is cleared and flushed once per many sites */
    const unsigned grid = cuda_grid_capped(g->nsites);
    struct potts_measure_walk walk;
    walk.stride = (int64_t)grid * CUDA_THREADS;
    walk.st_x = walk.stride % g->lx;
    const int64_t rows = walk.stride / g->lx;
    walk.st_y = rows % g->ly;
    walk.st_z = rows / g->ly; /* past the lattice: the walk ends there anyway */
    potts_measure_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*g, spins, walk, sums);
    return cudaGetLastError();
}
