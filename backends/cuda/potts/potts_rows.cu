/*
 * The fast Potts kernels: row segments (potts_rows.cuh says how they follow the chain of
 * doc/models/potts.md bit for bit). One block of pr_threads() threads per multiprocessor,
 * grid-stride over the segments; each block first builds its decision table in shared
 * memory from the core's tables (device copy, refreshed at every latmc_sim_sweep call):
 * heat bath, the thresholds of every neighbour tuple; Metropolis, the 39 thresholds.
 *
 * cuda_potts_rows_sweep_colour() launches them where they apply and says so; the caller
 * (potts_kernels.cu) falls back to the per-block reference kernel otherwise.
 */
#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "potts_rows.cuh"
#include "potts_range_kernels.h"

template <int NDIM, int C, int NW, int NT, bool REPL, bool HI>
__global__ void __launch_bounds__(NW == 8 ? PR_THREADS_WIDE : PR_THREADS, 1)
potts_hb_rows_kernel(const __grid_constant__ struct pr_geom g, uint8_t *spins,
                     const struct latmc_potts_tables *tables,
                     const __grid_constant__ struct cuda_philox_keys keys,
                     unsigned long long *changed)
{
    extern __shared__ uint4 pr_smem[];
    uint32_t *table = (uint32_t *)pr_smem;
    const int64_t entries = pr_hb_table_entries(NDIM, g.radix);
    for (int64_t e = threadIdx.x; e < entries; e += blockDim.x)
        pr_hb_build_entry<NDIM, NT, REPL>(g, tables, (uint32_t)e, table);
    __syncthreads();
    const pr_hb_step<NDIM, C, NW, NT, REPL, HI> step = { &g, spins, table, threadIdx.x & 7u,
                                                         &keys };
    const uint64_t n = pr_walk(g, cuda_first_item(), step);
    cuda_warp_add(changed, n);
}

template <int NDIM, int C, int NW>
__global__ void __launch_bounds__(PR_THREADS, 1)
potts_metro_rows_kernel(const __grid_constant__ struct pr_geom g, uint8_t *spins,
                        const struct latmc_potts_tables *tables,
                        const __grid_constant__ struct cuda_philox_keys keys,
                        unsigned long long *changed)
{
    __shared__ uint64_t thr[PR_METRO_ENTRIES * 16];
    for (int i = threadIdx.x; i < PR_METRO_ENTRIES * 16; i += blockDim.x)
        thr[i] = pr_metro_entry(tables, i / 16);
    __syncthreads();
    const pr_metro_step<NDIM, C, NW> step = { &g, spins, thr, threadIdx.x & 15u, &keys };
    const uint64_t n = pr_walk(g, cuda_first_item(), step);
    cuda_warp_add(changed, n);
}

/* ---- launch ---- */

/* Launches the kernel pr_dispatch() picks. */
struct pr_launcher {
    cudaStream_t stream;
    unsigned grid;
    uint8_t *spins;
    const struct latmc_potts_tables *tables;
    struct cuda_philox_keys keys;
    unsigned long long *changed;

    template <int NDIM, int C, int NW, int NT, bool REPL, bool HI>
    cudaError_t hb(const struct pr_geom &g)
    {
        const size_t bytes = pr_hb_table_bytes<NT, REPL>(NDIM, g.radix);
        auto kernel = potts_hb_rows_kernel<NDIM, C, NW, NT, REPL, HI>;
        if (bytes > 48 * 1024) {
            const cudaError_t err = cuda_allow_shared((const void *)kernel, bytes);
            if (err != cudaSuccess)
                return err;
        }
        kernel<<<grid, pr_threads(NW), bytes, stream>>>(g, spins, tables, keys, changed);
        return cudaGetLastError();
    }

    template <int NDIM, int C, int NW> cudaError_t metro(const struct pr_geom &g)
    {
        potts_metro_rows_kernel<NDIM, C, NW><<<grid, PR_THREADS, 0, stream>>>(g, spins, tables,
                                                                                keys, changed);
        return cudaGetLastError();
    }
};

/* The shared memory the kernel pr_dispatch() picks needs. */
struct pr_shared_bytes {
    template <int NDIM, int C, int NW, int NT, bool REPL, bool HI>
    size_t hb(const struct pr_geom &g)
    {
        return pr_hb_table_bytes<NT, REPL>(NDIM, g.radix);
    }
    template <int NDIM, int C, int NW> size_t metro(const struct pr_geom &g)
    {
        (void)g;
        return PR_METRO_ENTRIES * 16 * sizeof(uint64_t);
    }
};

/* Blocks: one per multiprocessor (a block fills one at <= 64 registers), fewer for small
 * lattices. *smem_max: the shared memory a block may have on this device (opt-in). */
static cudaError_t pr_grid(int64_t nseg, int threads, unsigned *grid, int *smem_max)
{
    int device = 0, sms = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cuda_device_sm_count(device, &sms);
    if (err == cudaSuccess)
        err = cuda_device_smem_optin(device, smem_max);
    if (err != cudaSuccess)
        return err;
    int64_t blocks = (nseg + threads - 1) / threads;
    if (blocks > sms)
        blocks = sms;
    *grid = blocks < 1 ? 1u : (unsigned)blocks;
    return cudaSuccess;
}

/*
 * The launch for the whole lattice `lat` (r NULL), or for the plane range r of a box's
 * local lattice `lat` (potts_range_kernels.h): the range as a lattice of r->planes planes whose
 * last-axis neighbours are the planes next to it (no wrap), its draws named by the
 * lattice's segment index (s_draw). The kernel is chosen from L_x, q and the algorithm
 * alone, so a range runs the kernel the whole lattice runs.
 */
static int rows_sweep(cudaStream_t stream, const struct latmc_lattice *lat, uint8_t *spins,
                      const struct latmc_potts_chain *chain, struct latmc_rng_name rng,
                      int colour, const struct cuda_plane_range *r, unsigned long long *changed,
                      cudaError_t *err)
{
    struct latmc_lattice view = *lat;
    int64_t plane = lat->lx * lat->ly;
    if (r) {
        if (lat->ndim == 3) {
            view.lz = r->planes;
        } else {
            plane = lat->lx;
            view.ly = r->planes;
        }
        view.nsites = r->planes * plane;
        spins += r->p0 * plane;
    }
    const int nw = pr_words_hb(&view, chain->colours, chain->algorithm, chain->q);
    if (nw == 0 || (chain->algorithm == LATMC_ALGO_HEATBATH &&
                    !pr_hb_table_q(view.ndim, chain->q)))
        return 0;
    struct pr_launcher l;
    l.stream = stream;
    l.spins = spins;
    l.tables = chain->tables;
    l.keys = cuda_philox_round_keys(chain->seed);
    l.changed = changed;
    int smem_max = 0;
    if ((*err = pr_grid(view.nsites / (4 * nw), pr_threads(nw), &l.grid, &smem_max)) != cudaSuccess)
        return 1;
    struct pr_geom g = {}; /* set by pr_geom_init; initialised for the compiler's sake */
    if (!pr_geom_init(&g, &view, chain->colours, nw, chain->q, colour, rng,
                      (int64_t)l.grid * pr_threads(nw)))
        return 0;
    pr_geom_fold(&g, l.keys);
    if (r) { /* the planes next to the range are read where they lie */
        if (view.ndim == 3) {
            g.z_up_wrap = g.z_up;
            g.z_dn_wrap = g.z_dn;
        } else {
            g.y_up_wrap = g.y_up;
            g.y_dn_wrap = g.y_dn;
        }
        g.s_draw = r->global_p0 * plane / (4 * nw);
    }
    /* a table larger than this device's blocks may have (up to 128 KiB, older GPUs have
     * less): the per-block kernel instead */
    struct pr_shared_bytes size;
    if (pr_dispatch(size, g, chain->colours, nw, chain->algorithm) > (size_t)smem_max)
        return 0;
    *err = pr_dispatch(l, g, chain->colours, nw, chain->algorithm);
    return 1;
}

extern "C" int cuda_potts_rows_sweep_colour(cudaStream_t stream, const struct latmc_lattice *lat,
                                            uint8_t *spins, const struct latmc_potts_chain *chain,
                                            struct latmc_rng_name rng, int colour,
                                            unsigned long long *changed, cudaError_t *err)
{
    return rows_sweep(stream, lat, spins, chain, rng, colour, NULL, changed, err);
}

extern "C" int cuda_potts_rows_sweep_range(cudaStream_t stream, const struct latmc_lattice *local,
                                           uint8_t *spins, const struct latmc_potts_chain *chain,
                                           struct latmc_rng_name rng, int colour,
                                           const struct cuda_plane_range *r,
                                           unsigned long long *changed, cudaError_t *err)
{
    return rows_sweep(stream, local, spins, chain, rng, colour, r, changed, err);
}
