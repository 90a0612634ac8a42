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
#include "cuda_philox.cuh"
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
 * the spins written back. The chain is the per-colour kernel's above: Philox block b of
 * the pass named latmc_ising_rng_name(sweep, colour) draws for checkerboard sites 4 b ..
 * 4 b + 3 (lattice_numbering.h), each decided by latmc_ising_new_spin's comparison with
 * the member's tables. What differs is the work a site costs (the rule's function takes
 * a 64-bit site from divisions and the whole Philox key schedule a block): a thread keeps
 * its member's round keys, folds each pass's name once (cuda_philox.cuh) and walks its
 * blocks b = t, t + blockDim.x, ... by 32-bit increments of (x / 2, y, z), members
 * having at most 2^20 sites. changed[m] gains member m's flips.
 */

/* A checkerboard site of the walk: its half-x index hx = x / 2, y and z (both colours
 * number their sites alike, lattice_numbering.h; x = 2 hx + (colour + y + z) mod 2). */
struct bytes_place {
    uint32_t hx, y, z;
};

/* A member's geometry in 32 bits, and a thread's step to its next Philox block:
 * 4 blockDim.x sites of a colour as increments of hx (< hxn), y (< ly) and z. */
struct bytes_walk_geom {
    uint32_t lx, ly, lz, hxn, plane, n; /* hxn = L_x / 2, plane = L_x L_y, n sites */
    uint32_t half, blocks;              /* sites of a colour, Philox blocks of a colour */
    uint32_t step_hx, step_y, step_z;
};

__device__ __forceinline__ void bytes_next_site(const struct bytes_walk_geom &g,
                                                struct bytes_place &p)
{
    if (++p.hx == g.hxn) {
        p.hx = 0;
        if (++p.y == g.ly) {
            p.y = 0;
            p.z++;
        }
    }
}

__device__ __forceinline__ void bytes_next_block(const struct bytes_walk_geom &g,
                                                 struct bytes_place &p)
{
    p.hx += g.step_hx;
    const uint32_t carry = p.hx >= g.hxn;
    if (carry)
        p.hx -= g.hxn;
    p.y += g.step_y + carry; /* at most 2 L_y - 1 */
    const uint32_t wrap = p.y >= g.ly;
    if (wrap)
        p.y -= g.ly;
    p.z += g.step_z + wrap;
}

/* The decision of site p of `colour` with draw u (latmc_ising_update_lanes[_coupled]'s,
 * the neighbour sums latmc_ising_neighbour_sum's and latmc_ising_coupled_sum's integers);
 * 1 where the spin changed. */
template <bool COUPLED, int ND, bool HEATBATH>
__device__ __forceinline__ uint32_t bytes_update_site(const struct bytes_walk_geom &g,
                                                      int8_t *s, const int8_t *eps,
                                                      const struct latmc_ising_tables *t,
                                                      int colour, const struct bytes_place &p,
                                                      uint32_t u)
{
    const uint32_t x = 2 * p.hx + ((colour + p.y + p.z) & 1u);
    const uint32_t i = x + g.lx * (p.y + g.ly * p.z);
    const uint32_t xp = x + 1 == g.lx ? i + 1 - g.lx : i + 1;
    const uint32_t xm = x == 0 ? i + g.lx - 1 : i - 1;
    const uint32_t yp = p.y + 1 == g.ly ? i + g.lx - g.plane : i + g.lx;
    const uint32_t ym = p.y == 0 ? i + g.plane - g.lx : i - g.lx;
    int sum;
    if constexpr (COUPLED) {
        const int8_t *own = eps + ND * i;
        sum = own[0] * s[xp] + eps[ND * xm] * s[xm] + own[1] * s[yp] + eps[ND * ym + 1] * s[ym];
    } else {
        sum = s[xp] + s[xm] + s[yp] + s[ym];
    }
    if constexpr (ND == 3) {
        const uint32_t zp = p.z + 1 == g.lz ? i + g.plane - g.n : i + g.plane;
        const uint32_t zm = p.z == 0 ? i + g.n - g.plane : i - g.plane;
        if constexpr (COUPLED)
            sum += eps[ND * i + 2] * s[zp] + eps[ND * zm + 2] * s[zm];
        else
            sum += s[zp] + s[zm];
    }
    const int k = (sum + 2 * ND) >> 1;
    const int8_t old = s[i];
    int8_t next;
    if constexpr (HEATBATH)
        next = (uint64_t)u < t->heatbath[k] ? (int8_t)1 : (int8_t)-1;
    else
        next = (uint64_t)u < t->metropolis[old > 0][k] ? (int8_t)-old : old;
    s[i] = next;
    return next != old;
}

template <bool COUPLED, int ND, bool HEATBATH>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_ising_bytes_fused_kernel(struct bytes_walk_geom g,
                             const struct cuda_ens_ising_member *members, uint64_t sweep0,
                             uint32_t n_sweeps, unsigned long long *changed)
{
    /* tables (64-bit words: the base aligned), spins, then couplings */
    extern __shared__ __align__(16) int8_t bytes_shared[];
    const struct cuda_ens_ising_member mem = members[blockIdx.x];
    struct latmc_ising_tables *tables = (struct latmc_ising_tables *)bytes_shared;
    int8_t *spins = bytes_shared + sizeof(struct latmc_ising_tables);
    int8_t *eps = spins + g.n;
    for (uint32_t i = threadIdx.x; i < g.n; i += blockDim.x)
        spins[i] = mem.spins[i];
    if (COUPLED)
        for (uint32_t i = threadIdx.x; i < ND * g.n; i += blockDim.x)
            eps[i] = mem.eps[i];
    const unsigned *tw = (const unsigned *)mem.tables;
    for (unsigned i = threadIdx.x; i < sizeof(struct latmc_ising_tables) / 4; i += blockDim.x)
        ((unsigned *)tables)[i] = tw[i];
    struct cuda_philox_folded f;
    latmc_philox_round_keys(mem.seed, f.keys.k);
    struct bytes_place first; /* site 4 threadIdx.x, the thread's first block's */
    {
        const uint32_t j = 4 * threadIdx.x, row = j / g.hxn;
        first.hx = j - row * g.hxn;
        first.z = row / g.ly;
        first.y = row - first.z * g.ly;
    }
    __syncthreads();
    uint32_t n = 0;
    for (uint32_t t = 0; t < n_sweeps; t++)
        for (int colour = 0; colour < 2; colour++) {
            cuda_philox_refold_named(&f, latmc_ising_rng_name(sweep0 + t, colour));
            const struct cuda_philox_group grp = cuda_philox_group_of(f, 0);
            struct bytes_place at = first;
            for (uint32_t b = threadIdx.x; b < g.blocks; b += blockDim.x) {
                const latmc_philox_ctr r = cuda_philox_folded_draws(f, grp, b);
                struct bytes_place p = at;
#pragma unroll
                for (int lane = 0; lane < 4; lane++) {
                    if (4 * b + lane < g.half) /* only a colour's last block is short */
                        n += bytes_update_site<COUPLED, ND, HEATBATH>(g, spins, eps, tables,
                                                                      colour, p, r.v[lane]);
                    if (lane < 3)
                        bytes_next_site(g, p);
                }
                bytes_next_block(g, at);
            }
            __syncthreads();
        }
    for (uint32_t i = threadIdx.x; i < g.n; i += blockDim.x)
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

template <bool COUPLED, int ND, bool HEATBATH>
static cudaError_t bytes_fused_launch(cudaStream_t stream, const struct bytes_walk_geom &w,
                                      size_t shared,
                                      const struct cuda_ens_ising_member *members,
                                      int64_t n_members, uint64_t sweep0, uint64_t n_sweeps,
                                      unsigned long long *changed)
{
    const void *k = (const void *)ens_ising_bytes_fused_kernel<COUPLED, ND, HEATBATH>;
    if (shared > 48 * 1024) {
        const cudaError_t err = cuda_allow_shared(k, shared);
        if (err != cudaSuccess)
            return err;
    }
    for (uint64_t done = 0; done < n_sweeps;) {
        const uint32_t n = (uint32_t)(n_sweeps - done < 1024 ? n_sweeps - done : 1024);
        ens_ising_bytes_fused_kernel<COUPLED, ND, HEATBATH>
            <<<(unsigned)n_members, CUDA_THREADS, shared, stream>>>(w, members, sweep0 + done,
                                                                   n, changed);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
        done += n;
    }
    return cudaSuccess;
}

template <bool COUPLED, int ND>
static cudaError_t bytes_fused_algorithm(cudaStream_t stream, const struct bytes_walk_geom &w,
                                         size_t shared,
                                         const struct cuda_ens_ising_member *members,
                                         int64_t n_members, int algorithm, uint64_t sweep0,
                                         uint64_t n_sweeps, unsigned long long *changed)
{
    /* latmc_ising_new_spin: heat bath, else Metropolis */
    return algorithm == LATMC_ALGO_HEATBATH
               ? bytes_fused_launch<COUPLED, ND, true>(stream, w, shared, members, n_members,
                                                       sweep0, n_sweeps, changed)
               : bytes_fused_launch<COUPLED, ND, false>(stream, w, shared, members, n_members,
                                                        sweep0, n_sweeps, changed);
}

extern "C" cudaError_t cuda_ens_ising_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                             const struct cuda_ens_ising_member *members,
                                             int64_t n_members, int coupled, int algorithm,
                                             uint64_t sweep0, uint64_t n_sweeps,
                                             unsigned long long *changed)
{
    if (g->nsites > ((int64_t)1 << 20)) /* cuda_ens_ising_fused_fits refuses them */
        return cudaErrorInvalidValue;
    struct bytes_walk_geom w;
    w.lx = (uint32_t)g->lx;
    w.ly = (uint32_t)g->ly;
    w.lz = (uint32_t)g->lz;
    w.hxn = w.lx / 2;
    w.plane = w.lx * w.ly;
    w.n = (uint32_t)g->nsites;
    w.half = w.n / 2;
    w.blocks = (w.half + 3) / 4;
    const uint32_t step = 4 * CUDA_THREADS, rows = step / w.hxn;
    w.step_hx = step - rows * w.hxn;
    w.step_z = rows / w.ly;
    w.step_y = rows - w.step_z * w.ly;
    const size_t shared = bytes_fused_shared(g, coupled != 0);
    if (g->ndim == 3)
        return coupled ? bytes_fused_algorithm<true, 3>(stream, w, shared, members, n_members,
                                                        algorithm, sweep0, n_sweeps, changed)
                       : bytes_fused_algorithm<false, 3>(stream, w, shared, members, n_members,
                                                         algorithm, sweep0, n_sweeps, changed);
    return coupled ? bytes_fused_algorithm<true, 2>(stream, w, shared, members, n_members,
                                                    algorithm, sweep0, n_sweeps, changed)
                   : bytes_fused_algorithm<false, 2>(stream, w, shared, members, n_members,
                                                     algorithm, sweep0, n_sweeps, changed);
}

/*
 * The sums of lib/ising.h of every member from its bytes (ens_ising_batch.h): gridDim.y
 * blocks a member, each thread the sites i = its item, item + stride, ... (stride: the
 * member's threads), its place (x, y, z) found once and stepped by additions; each site's
 * bonds to its + e_mu neighbours. Integers, added by warp sums and a 64-bit atomicAdd per
 * warp, so each member's sums are exactly cuda_ising_measure's whatever the grid.
 */
template <bool COUPLED, int ND>
__device__ __forceinline__ void bytes_measure_sites(const struct latmc_lattice &g,
                                                    const int8_t *s, const int8_t *eps,
                                                    long long &bonds, long long &spins)
{
    const int64_t stride = (int64_t)blockDim.x * gridDim.y;
    const int64_t plane = g.lx * g.ly;
    int64_t i = (int64_t)blockIdx.y * blockDim.x + threadIdx.x;
    const int64_t row0 = latmc_div(i, g.lx), rows = latmc_div(stride, g.lx);
    int64_t x = i - row0 * g.lx, z = latmc_div(row0, g.ly), y = row0 - z * g.ly;
    const int64_t dx = stride - rows * g.lx, dz = latmc_div(rows, g.ly), dy = rows - dz * g.ly;
    for (; i < g.nsites; i += stride) {
        const int si = s[i];
        spins += si;
        const int64_t xp = x + 1 == g.lx ? i + 1 - g.lx : i + 1;
        const int64_t yp = y + 1 == g.ly ? i + g.lx - plane : i + g.lx;
        int b;
        if constexpr (COUPLED)
            b = eps[ND * i] * s[xp] + eps[ND * i + 1] * s[yp];
        else
            b = s[xp] + s[yp];
        if constexpr (ND == 3) {
            const int64_t zp = z + 1 == g.lz ? i + plane - g.nsites : i + plane;
            b += (COUPLED ? eps[ND * i + 2] : 1) * s[zp];
        }
        bonds += si * b;
        x += dx; /* the next site's place: at most one carry into y, then into z */
        const int64_t cx = x >= g.lx;
        x -= cx ? g.lx : 0;
        y += dy + cx;
        const int64_t cy = y >= g.ly;
        y -= cy ? g.ly : 0;
        z += dz + cy;
    }
}

template <int ND>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_ising_measure_kernel(struct latmc_lattice g, const struct cuda_ens_ising_member *members,
                         struct latmc_ising_sums *sums)
{
    const struct cuda_ens_ising_member mem = members[blockIdx.x];
    long long bonds = 0, spins = 0;
    if (mem.eps) /* the same for the whole block */
        bytes_measure_sites<true, ND>(g, mem.spins, mem.eps, bonds, spins);
    else
        bytes_measure_sites<false, ND>(g, mem.spins, NULL, bonds, spins);
    cuda_warp_add((unsigned long long *)&sums[blockIdx.x].bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums[blockIdx.x].spins, (unsigned long long)spins);
}

/* Sites a thread measures at the least before a member takes another block. */
#define BYTES_MEASURE_PER_THREAD 16

extern "C" cudaError_t cuda_ens_ising_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                              const struct cuda_ens_ising_member *members,
                                              int64_t n_members, struct latmc_ising_sums *sums)
{
    if (n_members <= 0)
        return cudaSuccess;
    const int64_t t = (g->nsites + 31) / 32 * 32;
    const unsigned threads = (unsigned)(t < CUDA_THREADS ? t : CUDA_THREADS);
    int64_t per_member = g->nsites / ((int64_t)threads * BYTES_MEASURE_PER_THREAD);
    per_member = per_member < 1 ? 1 : per_member > 65535 ? 65535 : per_member;
    const dim3 grid((unsigned)n_members, (unsigned)per_member);
    if (g->ndim == 3)
        ens_ising_measure_kernel<3><<<grid, threads, 0, stream>>>(*g, members, sums);
    else
        ens_ising_measure_kernel<2><<<grid, threads, 0, stream>>>(*g, members, sums);
    return cudaGetLastError();
}
