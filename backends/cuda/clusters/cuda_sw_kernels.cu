/*
 * Swendsen-Wang's kernels on one box holding the whole lattice (cuda_sw.h). One thread
 * per site in a grid-stride loop; a site is a 32-bit index (the core refuses cluster
 * updates on 2^32 sites or more).
 *
 * The labelling is union-find with atomicMin (the label-equivalence scheme of Komura and
 * Okabe and of Playne and Hawick, without their block-local first pass): parents only
 * ever point to smaller sites, a union hangs the larger of the two roots under the
 * smaller with atomicMin and retries from the value it displaced, so once every bond is
 * joined each tree's root is its smallest site whatever order the threads ran in. A
 * find reads the parents around L1 (__ldcg): a stale parent is still an ancestor, so a
 * find always ends, and the atomicMin's old value tells a union whether it won.
 */
#include <stdint.h>

#include "cluster_bonds.h"
#include "cuda_launch.cuh"
#include "cuda_sw.h"

/* Lane `lane` of a block of draws, without indexing the struct by a variable (which
 * would put it in local memory). */
__device__ __forceinline__ uint32_t lane_of(const latmc_philox_ctr &c, unsigned lane)
{
    const uint32_t lo = lane & 1u ? c.v[1] : c.v[0];
    const uint32_t hi = lane & 1u ? c.v[3] : c.v[2];
    return lane & 2u ? hi : lo;
}

/* The neighbour of site i = x + L_x (y + L_y z) in direction +mu, periodic. */
__device__ __forceinline__ void neighbours(const struct latmc_lattice &g, uint32_t i,
                                           uint32_t *j)
{
    const uint32_t lx = (uint32_t)g.lx, ly = (uint32_t)g.ly, lz = (uint32_t)g.lz;
    const uint32_t x = i % lx, row = i / lx, y = row % ly, z = row / ly;
    const uint32_t plane = lx * ly;
    j[0] = x + 1 == lx ? i - x : i + 1;
    j[1] = y + 1 == ly ? i - y * lx : i + lx;
    j[2] = g.ndim == 3 ? (z + 1 == lz ? i - z * plane : i + plane) : i;
}

__global__ void sw_ising_bonds_kernel(struct cuda_sw_box b, uint64_t seed,
                                      struct latmc_rng_name name, int flip, uint64_t thr)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    const int nd = b.g.ndim;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        uint32_t j[3];
        neighbours(b.g, i, j);
        const int8_t s = b.spins[i];
        /* draws nd i .. nd i + nd - 1: one block, or two where they cross one's end */
        const uint64_t d0 = (uint64_t)nd * i;
        const unsigned lane0 = (unsigned)(d0 & 3u);
        const latmc_philox_ctr c0 = latmc_rng_name_block(seed, name, d0 >> 2);
        latmc_philox_ctr c1 = c0;
        if (lane0 + (unsigned)nd > 4u)
            c1 = latmc_rng_name_block(seed, name, (d0 >> 2) + 1);
        unsigned bits = 0;
        for (int mu = 0; mu < nd; mu++) {
            const unsigned lane = lane0 + (unsigned)mu;
            const uint32_t u = lane < 4u ? lane_of(c0, lane) : lane_of(c1, lane - 4u);
            const int same = s == b.spins[j[mu]];
            bits |= (unsigned)((same ^ flip) & ((uint64_t)u < thr)) << mu;
        }
        b.bonds[i] = (uint8_t)bits;
        b.labels[i] = i;
    }
}

__device__ __forceinline__ uint32_t find_root(const uint32_t *parent, uint32_t x)
{
    uint32_t p;
    while ((p = __ldcg(parent + x)) != x)
        x = p;
    return x;
}

/* Join the trees of a and b: the larger root under the smaller (atomicMin); a union that
 * finds its root already moved retries from the value it displaced (smaller, so this
 * ends). */
__device__ void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_root(parent, a);
        b = find_root(parent, b);
        if (a == b)
            return;
        if (a > b) {
            const uint32_t t = a;
            a = b;
            b = t;
        }
        const uint32_t old = atomicMin(parent + b, a);
        if (old == b)
            return;
        b = old;
    }
}

__global__ void sw_union_kernel(struct cuda_sw_box b)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        const unsigned bits = b.bonds[i];
        if (!bits)
            continue;
        uint32_t j[3];
        neighbours(b.g, i, j);
        for (int mu = 0; mu < b.g.ndim; mu++)
            if (bits >> mu & 1u)
                unite(b.labels, i, j[mu]);
    }
}

__global__ void sw_flatten_kernel(struct cuda_sw_box b)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        const uint32_t p = b.labels[i];
        if (p == i)
            continue;
        const uint32_t r = find_root(b.labels, p);
        if (r != p)
            b.labels[i] = r; /* others may read p or r here: both ancestors of i */
    }
}

__global__ void sw_ising_flip_kernel(struct cuda_sw_box b, uint64_t seed,
                                     struct latmc_rng_name name, uint64_t keep,
                                     unsigned long long *changed)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    unsigned long long flipped = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        const uint32_t r = b.labels[i];
        const uint32_t u = lane_of(latmc_rng_name_block(seed, name, r >> 2), r & 3u);
        if (!latmc_cluster_ising_keep(u, keep)) {
            b.spins[i] = (int8_t)-b.spins[i];
            flipped++;
        }
    }
    cuda_warp_add(changed, flipped);
}

extern "C" cudaError_t cuda_sw_ising_bonds(cudaStream_t stream, const struct cuda_sw_box *b,
                                           uint64_t seed, struct latmc_rng_name name,
                                           int flip, uint64_t threshold)
{
    sw_ising_bonds_kernel<<<cuda_grid(b->g.nsites), CUDA_THREADS, 0, stream>>>(
        *b, seed, name, flip, threshold);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_label(cudaStream_t stream, const struct cuda_sw_box *b)
{
    sw_union_kernel<<<cuda_grid(b->g.nsites), CUDA_THREADS, 0, stream>>>(*b);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) {
        sw_flatten_kernel<<<cuda_grid(b->g.nsites), CUDA_THREADS, 0, stream>>>(*b);
        err = cudaGetLastError();
    }
    return err;
}

extern "C" cudaError_t cuda_sw_ising_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                          uint64_t seed, struct latmc_rng_name name,
                                          uint64_t keep_threshold, unsigned long long *changed)
{
    sw_ising_flip_kernel<<<cuda_grid(b->g.nsites), CUDA_THREADS, 0, stream>>>(
        *b, seed, name, keep_threshold, changed);
    return cudaGetLastError();
}
