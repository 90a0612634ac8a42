/*
 * Swendsen-Wang and Wolff members of an ensemble, a launch a cluster step for all of them
 * (cuda_sw_batch.h). A block a member, its threads striding over the member's sites (a
 * member alone: its own wrap, its sites its global names). The draws and rules are the
 * single-lattice kernels' (clusters/cuda_sw_kernels.cu, cuda_wolff_kernels.cu,
 * cuda_sw_device.cuh):
 *   bonds:  bond (i, mu) active iff its ends are satisfied (the states agree, Ising with
 *           K eps_{i,mu} < 0 differ) and draw ND i + mu of the step's name < the member's
 *           threshold;
 *   labels: union-find with atomicMin (a root the smallest site of its tree whatever order
 *           the threads ran in) in the block's shared memory, then every site's root found
 *           in the fixed forest and written to the member's labels; members past shared
 *           memory on their own labels, then flattened (labels[labels[i]] is the root as
 *           after the single lattice's flattening, so its statistics read them);
 *   flips:  each site takes the decision drawn at its cluster's name (its root; in a field
 *           from the cluster's sum), the changed sites counted into the member's counter;
 *           Wolff's only the seed site's cluster, its sites counted as attempted.
 */
#include <stdint.h>

#include "cluster_bonds.h"
#include "cuda_launch.cuh"
#include "cuda_sw_device.cuh"
#include "cuda_wolff.h"
#include "cuda_sw_batch.h"

/* Site i's bonds byte (bit mu: bond (i, mu) active): its ends satisfied (the states agree,
 * or for Ising with K eps_{i,mu} < 0 differ) and draw ND i + mu of the step's name below the member's
 * threshold (cuda_sw_kernels.cu's rule and draws; host-callable: tools/ens_sw_host_check.cu). */
template <int ND>
__host__ __device__ __forceinline__ unsigned ens_sw_bonds_of(const struct latmc_lattice &g,
                                                             const struct cuda_ens_sw_member &m,
                                                             struct latmc_rng_name name,
                                                             uint32_t i)
{
    const int8_t si = m.spins[i];
    uint32_t j[3];
    neighbours(g, i, j);
    unsigned bits = 0;
    uint64_t held = UINT64_MAX;
    latmc_philox_ctr blk = { { 0, 0, 0, 0 } };
    for (int mu = 0; mu < ND; mu++) { /* unrolled (ND a constant; no pragma: host code too) */
        const uint64_t d = (uint64_t)ND * i + (uint64_t)mu;
        if (held != d >> 2) {
            held = d >> 2;
            blk = latmc_rng_name_block(m.seed, name, held);
        }
        const uint32_t u = lane_of(blk, (unsigned)(d & 3u));
        const int same = si == m.spins[j[mu]];
        const int neg = m.eps ? m.eps[(size_t)ND * i + (size_t)mu] < 0 : 0;
        bits |= (unsigned)((same ^ neg ^ m.flip) & ((uint64_t)u < m.bond_threshold)) << mu;
    }
    return bits;
}

template <int ND>
__global__ void ens_sw_bonds_kernel(struct latmc_lattice g,
                                    const struct cuda_ens_sw_member *members,
                                    struct latmc_rng_name name)
{
    const struct cuda_ens_sw_member m = members[blockIdx.x];
    const uint32_t n = (uint32_t)g.nsites;
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
        m.bonds[i] = (uint8_t)ens_sw_bonds_of<ND>(g, m, name, i);
}

/* The unions of member m's active bonds (bit mu of bonds[i]: bond (i, mu)) on `parent`: a
 * block's shared memory (Shared) or the member's own labels (loads past L1), each thread a
 * strided share of the sites. */
template <int ND, bool Shared>
__device__ __forceinline__ void ens_sw_unite_bonds(const struct latmc_lattice &g,
                                                   const struct cuda_ens_sw_member &m,
                                                   uint32_t *parent)
{
    const uint32_t n = (uint32_t)g.nsites;
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x) {
        const unsigned bits = m.bonds[i];
        uint32_t j[3];
        neighbours(g, i, j);
#pragma unroll
        for (int mu = 0; mu < ND; mu++)
            if (bits >> mu & 1u)
                unite_in<Shared>(parent, i, j[mu]);
    }
}

template <int ND>
__global__ void ens_sw_label_kernel(struct latmc_lattice g,
                                    const struct cuda_ens_sw_member *members)
{
    extern __shared__ uint32_t parent[];
    const struct cuda_ens_sw_member m = members[blockIdx.x];
    const uint32_t n = (uint32_t)g.nsites;
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
        parent[i] = i;
    __syncthreads();
    ens_sw_unite_bonds<ND, true>(g, m, parent);
    __syncthreads();
    /* the forest is fixed and only read now: each site's root goes straight to the
     * member's labels (no compression in shared memory, whose plain writes under other
     * threads' finds would be a data race) */
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
        m.labels[i] = find_shared(parent, i);
}

/* The decision of member m's cluster named r, drawn at r by the CPU's rule
 * (lib/cluster_bonds.h, latmc_cluster_decision). q = 0: Ising. Host-callable
 * (tools/ens_sw_host_check.cu). */
__host__ __device__ __forceinline__ uint32_t ens_cluster_decision(const struct cuda_ens_sw_member &m,
                                                                uint64_t sweep, int q, bool wolff,
                                                                uint32_t r, int64_t size,
                                                                int64_t mag, int old)
{
    return (uint32_t)latmc_cluster_decision(latmc_cluster_decide_draw(m.seed, sweep, r), m.beta_h,
                                            q, wolff, size, mag, old);
}

/* The labels of members larger than a block's shared memory: the same union-find on the
 * member's own labels (global memory: cuda_sw_device.cuh's unite and find_root, their
 * loads past L1, as the single lattice's), then each label flattened to its root: a label
 * read while another thread writes its root over it is the old parent or the root, both
 * ancestors, so every find still ends at the root (the single lattice's flattening). */
template <int ND>
__global__ void ens_sw_label_global_kernel(struct latmc_lattice g,
                                           const struct cuda_ens_sw_member *members)
{
    const struct cuda_ens_sw_member m = members[blockIdx.x];
    const uint32_t n = (uint32_t)g.nsites;
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
        m.labels[i] = i;
    __syncthreads();
    ens_sw_unite_bonds<ND, false>(g, m, m.labels);
    __syncthreads();
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
        m.labels[i] = find_root(m.labels, i);
}

/* Swendsen-Wang's flip, a block a member: every site takes its cluster's decision (drawn at
 * its name, the root its label gives). In a field (the member's beta_h != 0, alike for the
 * block) the clusters' sums first, in the block's shared memory (n ints: each root's
 * magnetisation, Potts its size, added with shared atomics, integers so in any order),
 * then each root's decision written over its sum, then every site takes its root's. */
template <bool POTTS>
__global__ void ens_sw_flip_kernel(struct latmc_lattice g,
                                   const struct cuda_ens_sw_member *members,
                                   struct latmc_rng_name name, uint64_t sweep, uint64_t keep,
                                   int q, unsigned long long *changed)
{
    extern __shared__ int cluster_sum[];
    const struct cuda_ens_sw_member m = members[blockIdx.x];
    const uint32_t n = (uint32_t)g.nsites;
    unsigned long long mine = 0;
    if (m.beta_h == 0.0) {
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
            mine += sw_take_decision<POTTS>(m.spins, i,
                                            sw_decision(m.seed, name, m.labels[i], keep, q));
    } else {
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
            cluster_sum[i] = 0;
        __syncthreads();
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
            atomicAdd(&cluster_sum[m.labels[i]], POTTS ? 1 : (int)m.spins[i]);
        __syncthreads();
        for (uint32_t r = threadIdx.x; r < n; r += blockDim.x)
            if (m.labels[r] == r)
                cluster_sum[r] = (int)ens_cluster_decision(m, sweep, POTTS ? q : 0, false, r,
                                                           cluster_sum[r], cluster_sum[r], 0);
        __syncthreads();
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
            mine += sw_take_decision<POTTS>(m.spins, i, (uint32_t)cluster_sum[m.labels[i]]);
    }
    cuda_warp_add(&changed[blockIdx.x], mine);
}

/* Wolff's one cluster of member m: that of its seed site drawn from the sweep
 * (latmc_cluster_seed_site), named by the root its labels give. Host-callable. */
__host__ __device__ __forceinline__ uint32_t ens_wolff_seed(const struct latmc_lattice &g,
                                                          const struct cuda_ens_sw_member &m,
                                                          uint64_t sweep)
{
    return (uint32_t)latmc_cluster_seed_site(m.seed, sweep, g.nsites);
}

/* Wolff's flip of every member, a block a member: in a field the cluster's size and
 * magnetisation first (a block's reduction: integers, any order); the decision
 * (ens_cluster_decision, from the seed's colour for Potts) computed before any site
 * changes; then the cluster's sites take it, the changed ones counted into changed[m], the
 * cluster's into changed[n + m]; the leaf's counters get the cluster's name and decision
 * (its statistics read them), not its sites (the ensemble counts the batch's updates). */
template <bool POTTS>
__global__ void ens_wolff_flip_kernel(struct latmc_lattice g,
                                      const struct cuda_ens_sw_member *members, uint64_t sweep,
                                      int q, unsigned long long *changed)
{
    __shared__ int size_mag[2];
    const struct cuda_ens_sw_member m = members[blockIdx.x];
    const uint32_t n = (uint32_t)g.nsites;
    const uint32_t seed_site = ens_wolff_seed(g, m, sweep);
    const uint32_t r = m.labels[seed_site];
    int size = 0, mag = 0;
    if (m.beta_h != 0.0) { /* alike for the block */
        if (threadIdx.x == 0)
            size_mag[0] = size_mag[1] = 0;
        __syncthreads();
        for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
            if (m.labels[i] == r) {
                size++;
                mag += m.spins[i];
            }
        atomicAdd(&size_mag[0], size);
        atomicAdd(&size_mag[1], mag);
        __syncthreads();
        size = size_mag[0];
        mag = size_mag[1];
    }
    const uint32_t d = ens_cluster_decision(m, sweep, POTTS ? q : 0, true, r, size, mag,
                                            (uint8_t)m.spins[seed_site]);
    __syncthreads();
    unsigned long long mine = 0, sites = 0;
    for (uint32_t i = threadIdx.x; i < n; i += blockDim.x)
        if (m.labels[i] == r) {
            sites++;
            mine += sw_take_decision<POTTS>(m.spins, i, d);
        }
    cuda_warp_add(&changed[blockIdx.x], mine);
    cuda_warp_add(&changed[gridDim.x + blockIdx.x], sites);
    if (threadIdx.x == 0) {
        m.wolff->root = r;
        m.wolff->decision = d;
    }
}

extern "C" int cuda_ens_sw_fits(const struct latmc_lattice *lat)
{
    return lat->nsites >= 1 && lat->nsites <= CUDA_ENS_SW_MAX_SITES;
}

extern "C" int cuda_ens_sw_shared_fits(const struct latmc_lattice *lat)
{
    return lat->nsites >= 1 && lat->nsites <= CUDA_ENS_SW_SHARED_SITES;
}

extern "C" cudaError_t cuda_ens_sw_step(cudaStream_t stream, const struct latmc_lattice *lat,
                                        const struct cuda_ens_sw_member *members, int n,
                                        const struct cuda_ens_sw_run *run,
                                        unsigned long long *changed)
{
    if (n < 1 || !cuda_ens_sw_fits(lat))
        return cudaErrorInvalidValue;
    /* members past shared memory: a whole block's 1024 threads each (their union-find
     * on global labels waits on memory; at most 48 registers a thread: they fit) */
    const dim3 grid((unsigned)n), block(cuda_ens_sw_shared_fits(lat) ? CUDA_THREADS : 1024u);
    const bool three = lat->ndim == 3;
    switch (run->kind) {
    case CUDA_ENS_SW_BONDS:
        if (three)
            ens_sw_bonds_kernel<3><<<grid, block, 0, stream>>>(*lat, members, run->rng);
        else
            ens_sw_bonds_kernel<2><<<grid, block, 0, stream>>>(*lat, members, run->rng);
        break;
    case CUDA_ENS_SW_LABEL: {
        if (!cuda_ens_sw_shared_fits(lat)) { /* the members' own labels */
            if (three)
                ens_sw_label_global_kernel<3><<<grid, block, 0, stream>>>(*lat, members);
            else
                ens_sw_label_global_kernel<2><<<grid, block, 0, stream>>>(*lat, members);
            break;
        }
        const size_t smem = (size_t)lat->nsites * sizeof(uint32_t); /* <= 48 KiB */
        if (three)
            ens_sw_label_kernel<3><<<grid, block, smem, stream>>>(*lat, members);
        else
            ens_sw_label_kernel<2><<<grid, block, smem, stream>>>(*lat, members);
        break;
    }
    case CUDA_ENS_SW_FLIP: { /* a field's sums in shared memory: <= 48 KiB */
        if (run->field && !cuda_ens_sw_shared_fits(lat))
            return cudaErrorInvalidValue; /* sw_same_chain declines such members */
        const size_t smem = run->field ? (size_t)lat->nsites * sizeof(int) : 0;
        if (run->q)
            ens_sw_flip_kernel<true><<<grid, block, smem, stream>>>(
                *lat, members, run->rng, run->sweep, run->keep_threshold, run->q, changed);
        else
            ens_sw_flip_kernel<false><<<grid, block, smem, stream>>>(
                *lat, members, run->rng, run->sweep, run->keep_threshold, 0, changed);
        break;
    }
    case CUDA_ENS_SW_FLIP_SEED:
        if (run->q)
            ens_wolff_flip_kernel<true><<<grid, block, 0, stream>>>(*lat, members, run->sweep,
                                                                    run->q, changed);
        else
            ens_wolff_flip_kernel<false><<<grid, block, 0, stream>>>(*lat, members, run->sweep,
                                                                     0, changed);
        break;
    default:
        return cudaErrorInvalidValue;
    }
    return cudaGetLastError();
}
