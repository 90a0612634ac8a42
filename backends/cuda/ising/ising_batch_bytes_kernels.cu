/*
 * The ensembles' batched Ising update on the byte layout (ising_batch.h): whole sweeps
 * a launch where a member fits a block's shared memory (the fused kernel), else one launch
 * per colour for every member, and the batched measurement. The chain is the CPU
 * reference's (lib/ising_rules.h): site j of a colour takes lane j mod 4 of Philox block
 * j / 4 of the pass's draws and is decided by latmc_ising_new_spin's comparison with the
 * member's tables; the kernels below walk the sites in 32 bits and fold each pass's name
 * once instead of calling the rule's function a block. Members do not share memory, sites
 * of one colour do not interact: the order of the updates never matters.
 */
#include "cuda_device.h"
#include "cuda_launch.cuh"
#include "ising_batch.h"
#include "ising_bytes_walk.cuh"
#include "ising_rules.h"

/*
 * A thread's share of the sums of lib/ising.h of a member from its bytes: sites i =
 * first, first + stride, ..., its place (x, y, z) found once and stepped by additions,
 * each site's bonds to its + e_mu neighbours. Integers: the member's sums, however its
 * sites are shared out (cuda_ising_measure's).
 */
template <bool COUPLED, int ND>
__device__ __forceinline__ void bytes_measure_sites(const struct latmc_lattice &g,
                                                    const int8_t *s, const int8_t *eps,
                                                    int64_t first, int64_t stride,
                                                    long long &bonds, long long &spins)
{
    const int64_t plane = g.lx * g.ly;
    int64_t i = first;
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

/*
 * Whole sweeps of every member, one block a member: its spins (and +-J couplings) and its
 * tables copied into shared memory, every colour of n_sweeps sweeps run there (the
 * colours separated by __syncthreads: a colour's sites read only the other colour), then
 * the spins written back. The chain is the per-colour kernel's above: Philox block b of
 * the pass named latmc_ising_rng_name(sweep, colour) draws for checkerboard sites 4 b ..
 * 4 b + 3 (lattice_numbering.h), each decided by latmc_ising_new_spin's comparison with
 * the member's tables. What differs is the work a site costs (the rule's function takes
 * a 64-bit site from divisions and the whole Philox key schedule a block): a thread keeps
 * its member's round keys and folds each pass's name once (cuda_philox.cuh); a warp takes
 * chunks of 128 consecutive sites of a colour, each lane drawing one of the chunk's 32
 * Philox blocks into the warp's slots in shared memory and then deciding sites lane,
 * lane + 32, lane + 64, lane + 96 with the draws read back from the slots, so that a
 * warp's loads of a step are 32 consecutive sites of a colour (a few banks apart, not
 * 4 sites apart a lane); places stepped by 32-bit increments of (x / 2, y, z), members
 * having at most 2^20 sites. changed[m] gains member m's flips.
 */

/* n bytes from src to dst by the block's threads: 16 bytes a load where both are 16-byte
 * aligned and n a multiple of 16 (the members' arrays are, at the usual sizes). */
__device__ __forceinline__ void bytes_block_copy(int8_t *dst, const int8_t *src, uint32_t n)
{
    if ((((uintptr_t)dst | (uintptr_t)src | n) & 15u) == 0) {
        for (uint32_t i = threadIdx.x; i < n / 16; i += blockDim.x)
            ((uint4 *)dst)[i] = ((const uint4 *)src)[i];
    } else {
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
            dst[i] = src[i];
    }
}

/* The tables' room at the start of the block's shared memory: a multiple of 16 bytes,
 * so that the spins and couplings after it take 16-byte copies. */
#define BYTES_TABLES_ROOM ((sizeof(struct latmc_ising_tables) + 15) / 16 * 16)

template <bool COUPLED, int ND, bool HEATBATH>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_ising_bytes_fused_kernel(struct bytes_walk_geom g, struct latmc_lattice lattice,
                             const struct cuda_ens_ising_member *members, uint64_t sweep0,
                             uint32_t n_sweeps, unsigned long long *changed,
                             struct latmc_ising_sums *sums)
{
    constexpr unsigned WARPS = CUDA_THREADS / 32;
    /* tables (64-bit words: the base aligned), spins, then couplings */
    extern __shared__ __align__(16) int8_t bytes_shared[];
    __shared__ uint4 slots[WARPS][32]; /* a warp's chunk's draws, Philox block by block */
    const struct cuda_ens_ising_member mem = members[blockIdx.x];
    struct latmc_ising_tables *tables = (struct latmc_ising_tables *)bytes_shared;
    int8_t *spins = bytes_shared + BYTES_TABLES_ROOM;
    int8_t *eps = spins + g.n;
    bytes_block_copy(spins, mem.spins, g.n);
    if (COUPLED)
        bytes_block_copy(eps, mem.eps, ND * g.n);
    const unsigned *tw = (const unsigned *)mem.tables;
    for (unsigned i = threadIdx.x; i < sizeof(struct latmc_ising_tables) / 4; i += blockDim.x)
        ((unsigned *)tables)[i] = tw[i];
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    struct cuda_philox_folded f;
    latmc_philox_round_keys(mem.seed, f.keys.k);
    /* site BYTES_CHUNK warp + lane, the lane's first */
    const struct bytes_place first = bytes_place_of(g, BYTES_CHUNK * warp + lane);
    __syncthreads();
    uint32_t n = 0;
    for (uint32_t t = 0; t < n_sweeps; t++)
        for (int colour = 0; colour < 2; colour++) {
            cuda_philox_refold_named(&f, latmc_ising_rng_name(sweep0 + t, colour));
            const struct cuda_philox_group grp = cuda_philox_group_of(f, 0);
            struct bytes_place at = first;
            for (uint32_t c = warp; BYTES_CHUNK * c < g.half; c += WARPS) {
                n += bytes_chunk<COUPLED, ND, HEATBATH>(g, spins, eps, tables, colour, f, grp,
                                                        slots[warp], c, at);
                bytes_advance(g, g.chunk_step, at);
            }
            __syncthreads();
        }
    bytes_block_copy(mem.spins, spins, g.n);
    cuda_warp_add(&changed[blockIdx.x], n);
    /* the member's sums after the last sweep from the shared copies (a tempering round
     * next: no measurement launch), stored, not added */
    if (sums) { /* the same for the whole block */
        __shared__ unsigned long long block_sums[2];
        if (threadIdx.x == 0)
            block_sums[0] = block_sums[1] = 0;
        __syncthreads();
        long long bonds = 0, spin_sum = 0;
        bytes_measure_sites<COUPLED, ND>(lattice, spins, COUPLED ? eps : NULL, threadIdx.x,
                                         blockDim.x, bonds, spin_sum);
        cuda_warp_add(&block_sums[0], (unsigned long long)bonds);
        cuda_warp_add(&block_sums[1], (unsigned long long)spin_sum);
        __syncthreads();
        if (threadIdx.x == 0) {
            sums[blockIdx.x].bonds = (int64_t)block_sums[0];
            sums[blockIdx.x].spins = (int64_t)block_sums[1];
        }
    }
}

/* The fused kernel's static shared memory: the warps' slots, the sums' two words. */
#define BYTES_FUSED_STATIC ((CUDA_THREADS / 32) * 32 * sizeof(uint4) + 2 * sizeof(uint64_t))

/* Shared memory of the fused byte kernel's block for a member of this lattice (its
 * dynamic part). */
static size_t bytes_fused_shared(const struct latmc_lattice *g, bool coupled)
{
    return BYTES_TABLES_ROOM + (size_t)g->nsites * (coupled ? 1u + (unsigned)g->ndim : 1u);
}

extern "C" bool cuda_ens_ising_fused_fits(const struct latmc_lattice *g, int coupled, int device)
{
    return !cuda_ens_fused_off() && g->nsites <= ((int64_t)1 << 20) &&
           cuda_device_smem_fits(device, bytes_fused_shared(g, coupled != 0) +
                                             BYTES_FUSED_STATIC);
}

template <typename Form>
static cudaError_t bytes_fused_launch(Form, cudaStream_t stream, const struct bytes_walk_geom &w,
                                      const struct latmc_lattice &g, size_t shared,
                                      const struct cuda_ens_ising_member *members,
                                      int64_t n_members, uint64_t sweep0, uint64_t n_sweeps,
                                      unsigned long long *changed,
                                      struct latmc_ising_sums *sums)
{
    constexpr auto kernel =
        ens_ising_bytes_fused_kernel<Form::COUPLED, Form::ND, Form::HEATBATH>;
    if (shared + BYTES_FUSED_STATIC > 48 * 1024) { /* static and dynamic past the default */
        const cudaError_t err = cuda_allow_shared((const void *)kernel, shared);
        if (err != cudaSuccess)
            return err;
    }
    for (uint64_t done = 0; done < n_sweeps;) {
        const uint32_t n = (uint32_t)(n_sweeps - done < 1024 ? n_sweeps - done : 1024);
        kernel<<<(unsigned)n_members, CUDA_THREADS, shared, stream>>>(
            w, g, members, sweep0 + done, n, changed, done + n == n_sweeps ? sums : NULL);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
        done += n;
    }
    return cudaSuccess;
}

extern "C" cudaError_t cuda_ens_ising_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                             const struct cuda_ens_ising_member *members,
                                             int64_t n_members, int coupled, int algorithm,
                                             uint64_t sweep0, uint64_t n_sweeps,
                                             unsigned long long *changed,
                                             struct latmc_ising_sums *sums)
{
    if (g->nsites > ((int64_t)1 << 20)) /* cuda_ens_ising_fused_fits refuses them */
        return cudaErrorInvalidValue;
    const struct bytes_walk_geom w = bytes_walk_geom_of(g);
    const size_t shared = bytes_fused_shared(g, coupled != 0);
    return bytes_form_launch(coupled != 0, g->ndim, algorithm, [&](auto form) {
        return bytes_fused_launch(form, stream, w, *g, shared, members, n_members, sweep0,
                                  n_sweeps, changed, sums);
    });
}

/*
 * One colour of every member a launch (members past the fused kernel, the plan's colour
 * steps): the fused kernel's chunks in the members' global memory, a warp taking
 * BYTES_CHUNKS_AN_ITEM consecutive chunks of one member an item (its fold and its place
 * found once an item), with the pass's draws `name` (the plan's). Same chain.
 */
#define BYTES_CHUNKS_AN_ITEM 4

template <bool COUPLED, int ND, bool HEATBATH>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_ising_bytes_colour_kernel(struct bytes_walk_geom g,
                              const struct cuda_ens_ising_member *members, int64_t n_members,
                              struct latmc_rng_name name, int colour,
                              unsigned long long *changed)
{
    constexpr unsigned WARPS = CUDA_THREADS / 32;
    __shared__ uint4 slots[WARPS][32];
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const uint32_t chunks = (g.half + BYTES_CHUNK - 1) / BYTES_CHUNK,
                   per_member = (chunks + BYTES_CHUNKS_AN_ITEM - 1) / BYTES_CHUNKS_AN_ITEM;
    const int64_t items = (int64_t)per_member * n_members;
    for (int64_t item = (int64_t)blockIdx.x * WARPS + warp; item < items;
         item += (int64_t)gridDim.x * WARPS) { /* the same for the whole warp */
        const int64_t m = item / per_member;
        const uint32_t c0 = (uint32_t)(item - m * per_member) * BYTES_CHUNKS_AN_ITEM;
        const struct cuda_ens_ising_member mem = members[m];
        const struct cuda_philox_folded f = cuda_philox_fold_named(mem.seed, name);
        const struct cuda_philox_group grp = cuda_philox_group_of(f, 0);
        struct bytes_place at = bytes_place_of(g, BYTES_CHUNK * c0 + lane);
        uint32_t n = 0;
        for (uint32_t c = c0; c < c0 + BYTES_CHUNKS_AN_ITEM && c < chunks; c++) {
            n += bytes_chunk<COUPLED, ND, HEATBATH>(g, mem.spins, mem.eps, mem.tables, colour,
                                                    f, grp, slots[warp], c, at);
            bytes_advance(g, g.chunk_step_one, at);
        }
        cuda_warp_add(&changed[m], n);
    }
}

/* Members whose sites or couplings number 2^32 or more: item i is Philox block
 * b = i mod B of member m = i / B (B blocks of four sites a colour),
 * latmc_ising_update_block[_coupled] itself, the function of the CPU reference (64-bit
 * sites). */
template <bool COUPLED>
__global__ void ens_ising_rule_colour_kernel(struct latmc_lattice g,
                                             const struct cuda_ens_ising_member *members,
                                             int64_t n_members, int algorithm,
                                             struct latmc_rng_name name, int colour,
                                             unsigned long long *changed)
{
    const int64_t per_member = (g.nsites / 2 + 3) / 4, total = per_member * n_members;
    for (int64_t i = cuda_first_item(); i < total; i += cuda_item_stride()) {
        const int64_t m = latmc_div(i, per_member), b = i - m * per_member;
        const struct cuda_ens_ising_member mem = members[m];
        const uint64_t n =
            COUPLED ? latmc_ising_update_block_coupled(&g, mem.spins, mem.eps, mem.tables,
                                                       algorithm, mem.seed, name, colour, b)
                    : latmc_ising_update_block(&g, mem.spins, mem.tables, algorithm, mem.seed,
                                               name, colour, b);
        if (n)
            atomicAdd(&changed[m], (unsigned long long)n);
    }
}

template <typename Form>
static cudaError_t bytes_colour_launch(Form, cudaStream_t stream, const struct bytes_walk_geom &w,
                                       const struct cuda_ens_ising_member *members,
                                       int64_t n_members, struct latmc_rng_name name,
                                       int colour, unsigned long long *changed)
{
    const int64_t chunks = (w.half + BYTES_CHUNK - 1) / BYTES_CHUNK,
                  items = (chunks + BYTES_CHUNKS_AN_ITEM - 1) / BYTES_CHUNKS_AN_ITEM * n_members;
    ens_ising_bytes_colour_kernel<Form::COUPLED, Form::ND, Form::HEATBATH>
        <<<cuda_grid(items * 32), CUDA_THREADS, 0, stream>>>(w, members, n_members, name,
                                                             colour, changed);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ens_ising_sweep_colour(cudaStream_t stream,
                                                   const struct latmc_lattice *g,
                                                   const struct cuda_ens_ising_member *members,
                                                   int64_t n_members, int coupled,
                                                   int algorithm, struct latmc_rng_name name,
                                                   int colour,
                                                   unsigned long long *changed)
{
    if (n_members <= 0)
        return cudaSuccess;
    /* 32-bit indices of spins and couplings (ndim i + mu) below 2^32 */
    if (g->nsites * (coupled ? g->ndim : 1) >= ((int64_t)1 << 32)) {
        const int64_t items = (g->nsites / 2 + 3) / 4 * n_members;
        if (coupled)
            ens_ising_rule_colour_kernel<true><<<cuda_grid(items), CUDA_THREADS, 0, stream>>>(
                *g, members, n_members, algorithm, name, colour, changed);
        else
            ens_ising_rule_colour_kernel<false><<<cuda_grid(items), CUDA_THREADS, 0, stream>>>(
                *g, members, n_members, algorithm, name, colour, changed);
        return cudaGetLastError();
    }
    const struct bytes_walk_geom w = bytes_walk_geom_of(g);
    return bytes_form_launch(coupled != 0, g->ndim, algorithm, [&](auto form) {
        return bytes_colour_launch(form, stream, w, members, n_members, name, colour, changed);
    });
}

/*
 * The sums of every member from its bytes (ising_batch.h): gridDim.y blocks a member,
 * the member's threads sharing its sites; added by warp sums and a 64-bit atomicAdd per
 * warp.
 */
template <int ND>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_ising_measure_kernel(struct latmc_lattice g, const struct cuda_ens_ising_member *members,
                         struct latmc_ising_sums *sums)
{
    const struct cuda_ens_ising_member mem = members[blockIdx.x];
    long long bonds = 0, spins = 0;
    const int64_t first = (int64_t)blockIdx.y * blockDim.x + threadIdx.x,
                  stride = (int64_t)blockDim.x * gridDim.y;
    if (mem.eps) /* the same for the whole block */
        bytes_measure_sites<true, ND>(g, mem.spins, mem.eps, first, stride, bonds, spins);
    else
        bytes_measure_sites<false, ND>(g, mem.spins, NULL, first, stride, bonds, spins);
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
