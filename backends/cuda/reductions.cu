/*
 * Observables on the GPU: the exact integer sums of lib/ising.h and lib/potts.h, reduced
 * on the device; only the sums struct travels to the host. Bonds are counted per site and
 * positive direction, sum_x sum_mu b(s_x, s_{x+mu}), as on the CPU (doc/conventions.md).
 * Every partial sum is an integer and 64-bit atomicAdd is exact and order-independent, so
 * the sums (and the observables the core derives from them) equal the CPU backend's
 * exactly, for any launch geometry. One thread per site in a grid-stride loop of at most
 * 8192 blocks, its site walked without divisions (cuda_site_walk).
 */
#include "cuda_kernels.h"
#include "cuda_launch.cuh"

/*
 * A thread's sites in a grid-stride loop, walked as a mixed-radix counter (x, y, z): a
 * stride of `stride` sites moves it by (st_x, st_y, st_z), so no site costs a (64-bit)
 * division. The whole warp walks together (the stride is a multiple of 32) until its first
 * lane is past the lattice, so that warp-wide operations see all 32 lanes.
 */
struct cuda_site_walk {
    int64_t stride;              /* threads of the grid */
    int64_t st_x, st_y, st_z;    /* stride = st_x + L_x (st_y + L_y st_z) */
};

static struct cuda_site_walk cuda_site_walk_init(const struct latmc_lattice *g, unsigned grid)
{
    struct cuda_site_walk w;
    w.stride = (int64_t)grid * CUDA_THREADS;
    w.st_x = w.stride % g->lx;
    const int64_t rows = w.stride / g->lx;
    w.st_y = rows % g->ly;
    w.st_z = rows / g->ly; /* past the lattice: the walk ends there anyway */
    return w;
}

/* Blocks of a reduction: at most 8192, so that per-block work (a histogram to clear and
 * flush) is paid once per many sites. */
static unsigned cuda_reduction_grid(int64_t nsites)
{
    const unsigned grid = cuda_grid(nsites);
    return grid > 8192 ? 8192u : grid;
}

struct cuda_site {
    int64_t i, x, y, z;
};

__device__ __forceinline__ struct cuda_site cuda_walk_first(const struct latmc_lattice *g)
{
    struct cuda_site s;
    s.i = cuda_first_item();
    s.x = s.i % g->lx;
    const int64_t row = s.i / g->lx;
    s.y = row % g->ly;
    s.z = row / g->ly;
    return s;
}

__device__ __forceinline__ bool cuda_walk_more(const struct latmc_lattice *g,
                                               const struct cuda_site *s)
{
    return s->i - (int64_t)(threadIdx.x & 31u) < g->nsites; /* the warp's first lane */
}

__device__ __forceinline__ void cuda_walk_next(const struct latmc_lattice *g,
                                               const struct cuda_site_walk *w,
                                               struct cuda_site *s)
{
    s->i += w->stride;
    s->x += w->st_x;
    s->y += w->st_y;
    s->z += w->st_z;
    if (s->x >= g->lx) {
        s->x -= g->lx;
        s->y++;
    }
    if (s->y >= g->ly) {
        s->y -= g->ly;
        s->z++;
    }
}

/* Offsets from site s to its neighbours in the positive directions (x+1, y+1, z+1). */
__device__ __forceinline__ int64_t cuda_up_x(const struct latmc_lattice *g,
                                             const struct cuda_site *s)
{
    return s->x + 1 == g->lx ? 1 - g->lx : 1;
}

__device__ __forceinline__ int64_t cuda_up_y(const struct latmc_lattice *g,
                                             const struct cuda_site *s)
{
    return s->y + 1 == g->ly ? -(g->ly - 1) * g->lx : g->lx;
}

__device__ __forceinline__ int64_t cuda_up_z(const struct latmc_lattice *g,
                                             const struct cuda_site *s)
{
    return s->z + 1 == g->lz ? -(g->lz - 1) * g->lx * g->ly : g->lx * g->ly;
}

__global__ void ising_measure_kernel(struct latmc_lattice g, const int8_t *spins,
                                     struct cuda_site_walk walk, struct latmc_ising_sums *sums)
{
    int64_t bonds = 0, total = 0;
    for (struct cuda_site s = cuda_walk_first(&g); cuda_walk_more(&g, &s);
         cuda_walk_next(&g, &walk, &s)) {
        if (s.i >= g.nsites)
            continue;
        const int8_t *p = spins + s.i;
        int nb = p[cuda_up_x(&g, &s)] + p[cuda_up_y(&g, &s)];
        if (g.ndim == 3)
            nb += p[cuda_up_z(&g, &s)];
        bonds += *p * nb;
        total += *p;
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
 * 32 lanes hitting the same counter would otherwise serialise).
 */
__global__ void potts_measure_kernel(struct latmc_lattice g, const uint8_t *spins,
                                     struct cuda_site_walk walk, struct latmc_potts_sums *sums)
{
    __shared__ unsigned long long hist[LATMC_POTTS_MAX_Q + 1];
    for (int k = threadIdx.x; k <= LATMC_POTTS_MAX_Q; k += blockDim.x)
        hist[k] = 0;
    __syncthreads();
    int64_t matches = 0;
    const unsigned lane = threadIdx.x & 31u;
    for (struct cuda_site s = cuda_walk_first(&g); cuda_walk_more(&g, &s);
         cuda_walk_next(&g, &walk, &s)) {
        /* lanes past the lattice take part with a value no state has, and count nothing */
        const bool site = s.i < g.nsites;
        unsigned state = 256 + lane;
        if (site) {
            const uint8_t *p = spins + s.i;
            state = *p;
            matches += (state == p[cuda_up_x(&g, &s)]) + (state == p[cuda_up_y(&g, &s)]);
            if (g.ndim == 3)
                matches += state == p[cuda_up_z(&g, &s)];
        }
        const unsigned same = __match_any_sync(0xffffffffu, state);
        if (site && lane == (unsigned)(__ffs(same) - 1))
            atomicAdd(&hist[state], (unsigned long long)__popc(same));
    }
    cuda_warp_add((unsigned long long *)&sums->matches, (unsigned long long)matches);
    __syncthreads();
    for (int k = threadIdx.x; k <= LATMC_POTTS_MAX_Q; k += blockDim.x)
        if (hist[k] != 0)
            atomicAdd((unsigned long long *)&sums->count[k], hist[k]);
}

extern "C" cudaError_t cuda_ising_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                          const int8_t *spins, struct latmc_ising_sums *sums)
{
    const unsigned grid = cuda_reduction_grid(g->nsites);
    ising_measure_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*g, spins,
                                                            cuda_site_walk_init(g, grid), sums);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_potts_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                          const uint8_t *spins, struct latmc_potts_sums *sums)
{
    const unsigned grid = cuda_reduction_grid(g->nsites);
    potts_measure_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*g, spins,
                                                            cuda_site_walk_init(g, grid), sums);
    return cudaGetLastError();
}
