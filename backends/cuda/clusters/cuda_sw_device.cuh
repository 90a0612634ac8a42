/*
 * Internal to the CUDA module: the device helpers that Swendsen-Wang's kernels
 * (cuda_sw_kernels.cu: inside a box), the joins across boxes (cuda_sw_faces.cu) and the
 * batched ensemble members (clusters/cuda_sw_batch_kernels.cu) share: a site's neighbours, a draw
 * of a block, union-find with atomicMin (a root is always the smallest index of
 * its tree, whatever order the threads ran in), a site's cluster root after the labels
 * were flattened, its global name, a cluster's decision drawn at its name, a site taking
 * its cluster's decision (Wolff's kernels, cuda_wolff_kernels.cu, share these two), and a
 * piece's face slot and joined name on k boxes (the embedded step's kernels share these,
 * cuda_embed_kernels.cu).
 */
#ifndef LATMC_CUDA_SW_DEVICE_CUH
#define LATMC_CUDA_SW_DEVICE_CUH

#include <stdint.h>

#include "cluster_bonds.h"
#include "cuda_sw.h"

/* Lane `lane` of a block of draws, without indexing the struct by a variable (which
 * would put it in local memory). Host-callable, as the draws and decisions below
 * (tools/ens_sw_host_check.cu). */
__host__ __device__ __forceinline__ uint32_t lane_of(const latmc_philox_ctr &c, unsigned lane)
{
    const uint32_t lo = lane & 1u ? c.v[1] : c.v[0];
    const uint32_t hi = lane & 1u ? c.v[3] : c.v[2];
    return lane & 2u ? hi : lo;
}

/* Draw number `n` of the name (lane n mod 4 of block n / 4). */
__host__ __device__ __forceinline__ uint32_t sw_draw(uint64_t seed, struct latmc_rng_name name,
                                            uint64_t n)
{
    return lane_of(latmc_rng_name_block(seed, name, n >> 2), (unsigned)(n & 3u));
}

/* The neighbour of site i = x + L_x (y + L_y z) in direction +mu, periodic, from its
 * coordinates (local: the stored lattice's). */
__host__ __device__ __forceinline__ void neighbours_at(const struct latmc_lattice &g, uint32_t i,
                                              uint32_t x, uint32_t y, uint32_t z, uint32_t *j)
{
    const uint32_t lx = (uint32_t)g.lx, ly = (uint32_t)g.ly, lz = (uint32_t)g.lz;
    const uint32_t plane = lx * ly;
    j[0] = x + 1 == lx ? i - x : i + 1;
    j[1] = y + 1 == ly ? i - y * lx : i + lx;
    j[2] = g.ndim == 3 ? (z + 1 == lz ? i - z * plane : i + plane) : i;
}

/* The same from i alone: its coordinates cost three divisions by the extents (run-time
 * divisors, some 20 instructions each), which the kernels that know them skip. */
__host__ __device__ __forceinline__ void neighbours(const struct latmc_lattice &g, uint32_t i,
                                           uint32_t *j)
{
    const uint32_t lx = (uint32_t)g.lx, ly = (uint32_t)g.ly;
    const uint32_t x = i % lx, row = i / lx;
    neighbours_at(g, i, x, row % ly, row / ly, j);
}

/* A cluster's decision drawn at its name r (as latmc_cluster_decide without a field):
 * q = 0 Ising 1 keep, 0 flip; q >= 2 Potts its new colour; sw_decision_of: from its draw u
 * (lane r mod 4 of block r / 4). */
__host__ __device__ __forceinline__ uint8_t sw_decision_of(uint32_t u, uint64_t keep, int q)
{
    return (uint8_t)(q ? latmc_cluster_potts_uniform(u, q) : latmc_cluster_ising_keep(u, keep));
}

__host__ __device__ __forceinline__ uint8_t sw_decision(uint64_t seed, struct latmc_rng_name name,
                                               uint32_t r, uint64_t keep, int q)
{
    return sw_decision_of(sw_draw(seed, name, r), keep, q);
}


/* The root of x's tree: global labels are read past L1 (__ldcg: other blocks move them),
 * a block's labels in shared memory plainly. */
template <bool Shared>
__device__ __forceinline__ uint32_t find_root_in(const uint32_t *parent, uint32_t x)
{
    uint32_t p;
    while ((p = Shared ? parent[x] : __ldcg(parent + x)) != x)
        x = p;
    return x;
}

/* A parent read past L1 (global: other blocks move them) or plainly (a block's shared
 * memory). */
template <bool Shared>
__device__ __forceinline__ uint32_t parent_of(const uint32_t *parent, uint32_t x)
{
    return Shared ? parent[x] : __ldcg(parent + x);
}

/* Join the trees of a and b, whose parents pa and pb were read (at any time: a stale
 * parent is a smaller site of the same cluster, though not always an ancestor while
 * other unions run -- an atomicMin that finds its root already moved hangs it under its
 * own smaller root and leaves the parent it displaced to its retry -- so the unions from
 * it join the same clusters): the larger root under the smaller (atomicMin); a union
 * that finds its root already moved retries from the value it displaced (smaller, so this
 * ends). The two finds are stepped together, so that their loads wait once a step. */
template <bool Shared>
__device__ __forceinline__ void unite_from_in(uint32_t *parent, uint32_t a, uint32_t pa,
                                              uint32_t b, uint32_t pb)
{
    for (;;) {
        while (pa != a || pb != b) {
            if (pa != a) {
                a = pa;
                pa = parent_of<Shared>(parent, a);
            }
            if (pb != b) {
                b = pb;
                pb = parent_of<Shared>(parent, b);
            }
        }
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
        pa = parent_of<Shared>(parent, a);
        pb = parent_of<Shared>(parent, b);
    }
}

template <bool Shared>
__device__ __forceinline__ void unite_in(uint32_t *parent, uint32_t a, uint32_t b)
{
    unite_from_in<Shared>(parent, a, parent_of<Shared>(parent, a), b,
                          parent_of<Shared>(parent, b));
}

/* Global labels (a box's whole lattice) and a block's tile in shared memory. */
__device__ __forceinline__ uint32_t find_root(const uint32_t *parent, uint32_t x)
{
    return find_root_in<false>(parent, x);
}

__device__ __forceinline__ void unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    unite_in<false>(parent, a, b);
}

__device__ __forceinline__ void unite_from(uint32_t *parent, uint32_t a, uint32_t pa, uint32_t b,
                                           uint32_t pb)
{
    unite_from_in<false>(parent, a, pa, b, pb);
}

__device__ __forceinline__ uint32_t find_shared(const uint32_t *parent, uint32_t x)
{
    return find_root_in<true>(parent, x);
}

__device__ __forceinline__ void unite_shared(uint32_t *parent, uint32_t a, uint32_t b)
{
    unite_in<true>(parent, a, b);
}

/* Sites of one plane of the last axis. */
__host__ __device__ __forceinline__ uint32_t sw_plane_sites(const struct cuda_sw_box &b)
{
    return (uint32_t)(b.g.ndim == 3 ? b.g.lx * b.g.ly : b.g.lx);
}

/* The local index of the box's own site k (0 .. np plane - 1). */
__device__ __forceinline__ uint32_t sw_own_site(const struct cuda_sw_box &b, uint32_t k)
{
    return b.p0 * sw_plane_sites(b) + k;
}

/* The global name of local own site i (the box's own planes do not wrap, so local
 * order is global order). */
__device__ __forceinline__ uint32_t sw_global(const struct cuda_sw_box &b, uint32_t i)
{
    return b.g0 + (i - b.p0 * sw_plane_sites(b));
}

/* The local root of own site i once the labels are flattened (cuda_sw_label). */
__device__ __forceinline__ uint32_t sw_root(const struct cuda_sw_box &b, uint32_t i)
{
    return b.labels[b.labels[i]];
}

/* The local site of face slot f of a box joined to others (cuda_sw_faces.h): plane site f
 * of the first own plane (f < ps), or f - ps of the last. */
__device__ __forceinline__ uint32_t sw_face_site(const struct cuda_sw_box &b, uint32_t f,
                                                 uint32_t ps)
{
    return f < ps ? sw_own_site(b, f) : sw_own_site(b, (b.np - 1) * ps + (f - ps));
}

/* The name of the cluster of the piece whose local root is r, on a box joined to others
 * after the join (scratch and face as cuda_sw_faces_out left them, face's names joined):
 * a face piece's joined name (scratch[r] names its first slot), else its root's global
 * site. An interior root's scratch word is stale, but never names a slot of its piece. */
__device__ __forceinline__ uint32_t sw_joined_name(const struct cuda_sw_box &b, uint32_t r,
                                                   const uint32_t *scratch,
                                                   const uint32_t *face)
{
    const uint32_t ps = sw_plane_sites(b), f = scratch[r];
    return f < 2 * ps && sw_root(b, sw_face_site(b, f, ps)) == r ? face[2 * ps + f]
                                                                  : sw_global(b, r);
}

/* Site i takes its cluster's decision d (Potts: the colour; Ising: 1 keep, 0 flip);
 * whether the spin changed. */
template <bool POTTS>
__device__ __forceinline__ bool sw_take_decision(int8_t *spins, uint32_t i, uint32_t d)
{
    const int8_t old = spins[i];
    const int8_t v = POTTS ? (int8_t)d : d ? old : (int8_t)-old;
    if (v == old)
        return false;
    spins[i] = v;
    return true;
}

#endif
