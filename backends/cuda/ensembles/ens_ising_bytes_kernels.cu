/*
 * The ensembles' batched Ising update on the byte layout (ens_ising_batch.h): one launch
 * per colour for every member, or whole sweeps a launch where a member fits a block's
 * shared memory (the fused byte kernel, below). Item i of the per-colour grid is Philox
 * block b = i mod B of member m = i / B (B blocks of four same-colour sites per member); it
 * runs latmc_ising_update_block[_coupled], the
 * function of the CPU reference and of the module's per-block kernels, with the member's
 * spins, couplings, tables and seed. Members do not share memory, sites of one colour do
 * not interact: the order of the items never matters.
 */
#include "cuda_device.h"
#include "cuda_launch.cuh"
#include "ens_ising_batch.h"
#include "ising_rules.h"

template <bool COUPLED>
__global__ void ens_ising_colour_kernel(struct latmc_lattice g,
                                        const struct cuda_ens_ising_member *members,
                                        int64_t n_members, int algorithm,
                                        struct latmc_rng_name name,
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
                                                           algorithm, mem.seed, name, colour,
                                                           b)
                        : latmc_ising_update_block(&g, mem.spins, mem.tables, algorithm,
                                                   mem.seed, name, colour, b);
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
                                                   int algorithm, struct latmc_rng_name name,
                                                   int colour,
                                                   unsigned long long *changed)
{
    const int64_t items = (g->nsites / 2 + 3) / 4 * n_members;
    if (coupled)
        ens_ising_colour_kernel<true><<<cuda_grid(items), CUDA_THREADS, 0, stream>>>(
            *g, members, n_members, algorithm, name, colour, changed);
    else
        ens_ising_colour_kernel<false><<<cuda_grid(items), CUDA_THREADS, 0, stream>>>(
            *g, members, n_members, algorithm, name, colour, changed);
    return cudaGetLastError();
}

/*
 * Whole sweeps of every member, one block a member: its spins (and +-J couplings) and its
 * tables copied into shared memory, every colour of n_sweeps sweeps run there (the
 * colours separated by __syncthreads: a colour's sites read only the other colour), then
 * the spins written back. Each Philox block of four sites by the very function of the
 * per-colour kernel above, with the pass's name latmc_ising_rng_name(sweep, colour) (the
 * plan's), on the shared copies: the same chain. changed[m] gains member m's flips.
 */
template <bool COUPLED>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_ising_bytes_fused_kernel(struct latmc_lattice g, const struct cuda_ens_ising_member *members,
                             int algorithm, uint64_t sweep0, uint32_t n_sweeps,
                             unsigned long long *changed)
{
    /* tables (64-bit words: the base aligned), spins, then couplings */
    extern __shared__ __align__(16) int8_t bytes_shared[];
    const struct cuda_ens_ising_member mem = members[blockIdx.x];
    const int64_t N = g.nsites, per_member = (N / 2 + 3) / 4;
    struct latmc_ising_tables *tables = (struct latmc_ising_tables *)bytes_shared;
    int8_t *spins = bytes_shared + sizeof(struct latmc_ising_tables);
    int8_t *eps = spins + N;
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x)
        spins[i] = mem.spins[i];
    if (COUPLED)
        for (int64_t i = threadIdx.x; i < (int64_t)g.ndim * N; i += blockDim.x)
            eps[i] = mem.eps[i];
    const unsigned *tw = (const unsigned *)mem.tables;
    for (unsigned i = threadIdx.x; i < sizeof(struct latmc_ising_tables) / 4; i += blockDim.x)
        ((unsigned *)tables)[i] = tw[i];
    __syncthreads();
    uint64_t n = 0;
    for (uint32_t t = 0; t < n_sweeps; t++)
        for (int colour = 0; colour < 2; colour++) {
            const struct latmc_rng_name name = latmc_ising_rng_name(sweep0 + t, colour);
            for (int64_t b = threadIdx.x; b < per_member; b += blockDim.x)
                n += COUPLED ? latmc_ising_update_block_coupled(&g, spins, eps, tables,
                                                                algorithm, mem.seed, name,
                                                                colour, b)
                             : latmc_ising_update_block(&g, spins, tables, algorithm, mem.seed,
                                                        name, colour, b);
            __syncthreads();
        }
    for (int64_t i = threadIdx.x; i < N; i += blockDim.x)
        mem.spins[i] = spins[i];
    cuda_warp_add(&changed[blockIdx.x], n);
}

/* Shared memory of the fused byte kernel's block for a member of this lattice. */
static size_t bytes_fused_shared(const struct latmc_lattice *g, bool coupled)
{
    return sizeof(struct latmc_ising_tables) +
           (size_t)g->nsites * (coupled ? 1u + (unsigned)g->ndim : 1u);
}

extern "C" bool cuda_ens_ising_fused_fits(const struct latmc_lattice *g, int coupled, int device)
{
    return !cuda_ens_fused_off() && g->nsites <= ((int64_t)1 << 20) &&
           cuda_device_smem_fits(device, bytes_fused_shared(g, coupled != 0));
}

extern "C" cudaError_t cuda_ens_ising_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                             const struct cuda_ens_ising_member *members,
                                             int64_t n_members, int coupled, int algorithm,
                                             uint64_t sweep0, uint64_t n_sweeps,
                                             unsigned long long *changed)
{
    const void *k = coupled ? (const void *)ens_ising_bytes_fused_kernel<true>
                            : (const void *)ens_ising_bytes_fused_kernel<false>;
    const size_t shared = bytes_fused_shared(g, coupled != 0);
    if (shared > 48 * 1024) {
        const cudaError_t err = cuda_allow_shared(k, shared);
        if (err != cudaSuccess)
            return err;
    }
    for (uint64_t done = 0; done < n_sweeps;) {
        const uint32_t n = (uint32_t)(n_sweeps - done < 1024 ? n_sweeps - done : 1024);
        if (coupled)
            ens_ising_bytes_fused_kernel<true><<<(unsigned)n_members, CUDA_THREADS, shared,
                                                 stream>>>(*g, members, algorithm,
                                                           sweep0 + done, n, changed);
        else
            ens_ising_bytes_fused_kernel<false><<<(unsigned)n_members, CUDA_THREADS, shared,
                                                  stream>>>(*g, members, algorithm,
                                                            sweep0 + done, n, changed);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
        done += n;
    }
    return cudaSuccess;
}

/*
 * The sums of lib/ising.h of every member from its bytes (ens_ising_batch.h), one block per
 * member, each thread a strided share of the sites: integers, added by warp sums and a
 * 64-bit atomicAdd per warp, so each member's sums are exactly cuda_ising_measure's.
 */
__global__ void __launch_bounds__(CUDA_THREADS)
ens_ising_measure_kernel(struct latmc_lattice g, const struct cuda_ens_ising_member *members,
                         struct latmc_ising_sums *sums)
{
    const struct cuda_ens_ising_member mem = members[blockIdx.x];
    const int8_t *s = mem.spins, *eps = mem.eps;
    const int64_t plane = g.lx * g.ly;
    const int nd = g.ndim;
    long long bonds = 0, spins = 0;
    for (int64_t i = threadIdx.x; i < g.nsites; i += blockDim.x) {
        const int64_t row = latmc_div(i, g.lx), x = i - row * g.lx;
        const int64_t z = latmc_div(row, g.ly), y = row - z * g.ly;
        const int si = s[i];
        spins += si;
        int64_t j[3];
        j[0] = x + 1 == g.lx ? i - x : i + 1;
        j[1] = y + 1 == g.ly ? i - y * g.lx : i + g.lx;
        j[2] = z + 1 == g.lz ? i - z * plane : i + plane;
        for (int mu = 0; mu < nd; mu++)
            bonds += (eps ? eps[nd * i + mu] : 1) * si * s[j[mu]];
    }
    cuda_warp_add((unsigned long long *)&sums[blockIdx.x].bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums[blockIdx.x].spins, (unsigned long long)spins);
}

extern "C" cudaError_t cuda_ens_ising_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                              const struct cuda_ens_ising_member *members,
                                              int64_t n_members, struct latmc_ising_sums *sums)
{
    const int64_t t = (g->nsites + 31) / 32 * 32;
    const unsigned threads = (unsigned)(t < CUDA_THREADS ? t : CUDA_THREADS);
    if (n_members > 0)
        ens_ising_measure_kernel<<<(unsigned)n_members, threads, 0, stream>>>(*g, members, sums);
    return cudaGetLastError();
}
