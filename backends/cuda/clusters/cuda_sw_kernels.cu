/*
 * Swendsen-Wang's kernels on one box holding the whole lattice (cuda_sw.h). One thread
 * per site in a grid-stride loop; a site is a 32-bit index (the core refuses cluster
 * updates on 2^32 sites or more).
 *
 * The labelling is union-find with atomicMin (the label-equivalence scheme of Komura and
 * Okabe, in the block-local form of Playne and Hawick): parents only ever point to
 * smaller sites, a union hangs the larger of the two roots under the smaller with
 * atomicMin and retries from the value it displaced, so once every bond is joined each
 * tree's root is its smallest site whatever order the threads ran in. Three passes:
 *   1. tiles (32 x 8 sites in 2D, 16 x 4 x 4 in 3D; one block each): the bonds inside a
 *      tile joined in shared memory, every site's parent then its tile-local root's
 *      global index (the tile's order of sites is the lattice's, so a local root, the
 *      smallest local index of its piece, is its smallest site);
 *   2. the bonds that leave a tile (and the wraps) joined in global memory;
 *   3. the tiles' roots flattened to their clusters' roots; every other site's parent is
 *      its tile's root, so its cluster's name is two reads away (labels[labels[i]]).
 * The decisions are drawn at the clusters' roots only and kept in their bonds bytes; the
 * flip reads them there. The bonds: four sites a thread, whose draws are whole blocks.
 * A find reads the parents around L1 (__ldcg): a stale parent is still an ancestor, so a
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

/* Bit 7 of a site's bonds byte: the site is the root of its tile's piece (pass 1), and
 * after the decisions a cluster's root keeps its decision in its byte (1: keep). */
#define SW_TILE_ROOT 0x80u
#define SW_BOND_BITS 0x07u
/* Blocks of the counting flip kernel: a few per SM of any current GPU, enough to fill it. */
#define SW_COUNT_BLOCKS 2048u

/* Four sites a thread, i0 = 4 k .. 4 k + 3: their draws nd i0 .. nd i0 + 4 nd - 1 are the
 * nd whole blocks from nd k on, each computed once (N is a multiple of 4: even extents).
 * A bond's ends are satisfied iff "same state" ^ (eps < 0) ^ flip (lib/cluster_draws.c:
 * K eps s_i s_j > 0 for Ising, s_i = s_j for Potts, whose bytes compare alike as int8).
 * EPS: the +-J couplings eps[ND i + mu] are read (else uniform, eps NULL). */
template <int ND, bool EPS>
__global__ void sw_bonds_kernel(struct cuda_sw_box b, uint64_t seed,
                                struct latmc_rng_name name, int flip, uint64_t thr)
{
    const uint64_t groups = (uint64_t)b.g.nsites / 4;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < groups;
         k += (uint64_t)cuda_item_stride()) {
        latmc_philox_ctr c[ND];
#pragma unroll
        for (int q = 0; q < ND; q++)
            c[q] = latmc_rng_name_block(seed, name, (uint64_t)ND * k + (uint64_t)q);
        const uint32_t i0 = (uint32_t)(4 * k);
        const uint32_t four = *(const uint32_t *)(b.spins + i0);
        /* the 4 ND couplings of the four sites: ND whole 32-bit words from ND i0 */
        uint32_t eps_neg[ND];
#pragma unroll
        for (int q = 0; q < ND; q++)
            eps_neg[q] = EPS ? __ldg((const unsigned int *)(b.eps + (size_t)ND * i0) + q) : 0u;
        uint32_t out = 0;
#pragma unroll
        for (int s = 0; s < 4; s++) {
            const uint32_t i = i0 + (uint32_t)s;
            uint32_t j[3];
            neighbours(b.g, i, j);
            const int8_t si = (int8_t)(four >> (8 * s));
            unsigned bits = 0;
#pragma unroll
            for (int mu = 0; mu < ND; mu++) {
                const int m = ND * s + mu; /* the draw's (and coupling's) place */
                const uint32_t u = lane_of(c[m >> 2], (unsigned)(m & 3));
                /* the coupling's byte: +1 or -1 (0xff), its top bit the sign */
                const int neg = EPS ? (int)(eps_neg[m >> 2] >> (8 * (m & 3) + 7) & 1u) : 0;
                const int same = si == b.spins[j[mu]];
                bits |= (unsigned)((same ^ neg ^ flip) & ((uint64_t)u < thr)) << mu;
            }
            out |= bits << (8 * s);
        }
        *(uint32_t *)(b.bonds + i0) = out;
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

/* The tiles of pass 1: TX x TY x TZ sites, one block of CUDA_THREADS threads each. */
struct tile_shape {
    uint32_t tx, ty, tz;
};

static_assert(32 * 8 == CUDA_THREADS && 16 * 4 * 4 == CUDA_THREADS, "a tile is a block");

__host__ __device__ static inline struct tile_shape tile_of(int ndim)
{
    const struct tile_shape t2 = { 32, 8, 1 }, t3 = { 16, 4, 4 };
    return ndim == 3 ? t3 : t2;
}

/* Bond (x, mu) lies inside its tile: the next site along mu is in the same tile and no
 * wrap is crossed. */
__device__ __forceinline__ bool inside_tile(uint32_t c, uint32_t t, uint32_t l)
{
    return c % t + 1 < t && c + 1 < l;
}

__device__ __forceinline__ uint32_t find_shared(const uint32_t *parent, uint32_t x)
{
    uint32_t p;
    while ((p = parent[x]) != x)
        x = p;
    return x;
}

__device__ void unite_shared(uint32_t *parent, uint32_t a, uint32_t b)
{
    for (;;) {
        a = find_shared(parent, a);
        b = find_shared(parent, b);
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

/* Pass 1 (the file's comment): blockDim.x = tx ty tz = CUDA_THREADS. */
__global__ void sw_tile_kernel(struct cuda_sw_box b)
{
    __shared__ uint32_t parent[CUDA_THREADS];
    const struct tile_shape t = tile_of(b.g.ndim);
    const uint32_t lx = (uint32_t)b.g.lx, ly = (uint32_t)b.g.ly, lz = (uint32_t)b.g.lz;
    const uint32_t nx = (lx + t.tx - 1) / t.tx, ny = (ly + t.ty - 1) / t.ty;
    const uint32_t nz = (lz + t.tz - 1) / t.tz;
    const uint32_t me = threadIdx.x;
    const uint32_t mx = me % t.tx, my = me / t.tx % t.ty, mz = me / (t.tx * t.ty);
    for (uint64_t tile = blockIdx.x; tile < (uint64_t)nx * ny * nz; tile += gridDim.x) {
        const uint32_t gx = (uint32_t)(tile % nx), rest = (uint32_t)(tile / nx);
        const uint32_t x0 = gx * t.tx, y0 = rest % ny * t.ty, z0 = rest / ny * t.tz;
        const uint32_t x = x0 + mx, y = y0 + my, z = z0 + mz;
        const bool valid = x < lx && y < ly && z < lz;
        const uint32_t i = x + lx * (y + ly * z);
        parent[me] = me;
        __syncthreads();
        const unsigned bits = valid ? b.bonds[i] : 0u; /* no mark yet */
        if (bits & 1u && inside_tile(x, t.tx, lx))
            unite_shared(parent, me, me + 1);
        if (bits & 2u && inside_tile(y, t.ty, ly))
            unite_shared(parent, me, me + t.tx);
        if (bits & 4u && inside_tile(z, t.tz, lz))
            unite_shared(parent, me, me + t.tx * t.ty);
        __syncthreads();
        const uint32_t r = find_shared(parent, me);
        /* the local root's site (a valid one: it is joined to this site by bonds) */
        const uint32_t rx = r % t.tx, ry = r / t.tx % t.ty, rz = r / (t.tx * t.ty);
        if (valid)
            b.labels[i] = x0 + rx + lx * (y0 + ry + ly * (z0 + rz));
        if (valid && r == me)
            b.bonds[i] = (uint8_t)(bits | SW_TILE_ROOT);
        __syncthreads(); /* parent[] is the next tile's */
    }
}

/* Pass 2: the bonds that pass 1 left, those leaving a tile or wrapping. */
__global__ void sw_union_kernel(struct cuda_sw_box b)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    const struct tile_shape t = tile_of(b.g.ndim);
    const uint32_t lx = (uint32_t)b.g.lx, ly = (uint32_t)b.g.ly, lz = (uint32_t)b.g.lz;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        unsigned bits = b.bonds[i] & SW_BOND_BITS;
        if (!bits)
            continue;
        const uint32_t x = i % lx, row = i / lx, y = row % ly, z = row / ly;
        if (inside_tile(x, t.tx, lx))
            bits &= ~1u;
        if (inside_tile(y, t.ty, ly))
            bits &= ~2u;
        if (inside_tile(z, t.tz, lz))
            bits &= ~4u;
        if (!bits)
            continue;
        uint32_t j[3];
        neighbours(b.g, i, j);
        for (int mu = 0; mu < b.g.ndim; mu++)
            if (bits >> mu & 1u)
                unite(b.labels, i, j[mu]);
    }
}

/* Pass 3: each tile root's label flattened to its cluster's root. The other sites'
 * parents are their tile roots still (pass 2 only hangs roots), so after this pass every
 * site reaches its cluster's name in two steps: labels[labels[i]]. A root's label is
 * read by others while it is written: the old parent or the root, both its ancestors. */
__global__ void sw_flatten_kernel(struct cuda_sw_box b)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        if (!(b.bonds[i] & SW_TILE_ROOT))
            continue;
        const uint32_t p = b.labels[i];
        if (p == i)
            continue;
        const uint32_t r = find_root(b.labels, p);
        if (r != p)
            b.labels[i] = r;
    }
}

/* The decision of every cluster, drawn at its name (its root), into the root's bonds byte:
 * Ising 1 keep, 0 flip (q = 0); Potts its new colour (q >= 2). As latmc_cluster_decide
 * without a field. */
__global__ void sw_decide_kernel(struct cuda_sw_box b, uint64_t seed,
                                 struct latmc_rng_name name, uint64_t keep, int q)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t r = (uint32_t)k;
        if (!(b.bonds[r] & SW_TILE_ROOT) || b.labels[r] != r)
            continue;
        const uint32_t u = lane_of(latmc_rng_name_block(seed, name, r >> 2), r & 3u);
        b.bonds[r] = (uint8_t)(q ? latmc_cluster_potts_uniform(u, q)
                                 : latmc_cluster_ising_keep(u, keep));
    }
}

/* Every site takes its cluster's decision; counts the sites that changed. */
template <bool POTTS>
__global__ void sw_flip_kernel(struct cuda_sw_box b, unsigned long long *changed)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    unsigned long long flipped = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        const uint8_t d = b.bonds[b.labels[b.labels[i]]];
        const int8_t old = b.spins[i];
        const int8_t v = POTTS ? (int8_t)d : d ? old : (int8_t)-old;
        if (v != old) {
            b.spins[i] = v;
            flipped++;
        }
    }
    cuda_warp_add(changed, flipped);
}

template <int ND>
static void launch_bonds(unsigned grid, cudaStream_t stream, const struct cuda_sw_box *b,
                         uint64_t seed, struct latmc_rng_name name, int flip, uint64_t thr)
{
    if (b->eps)
        sw_bonds_kernel<ND, true><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name, flip, thr);
    else
        sw_bonds_kernel<ND, false><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name, flip, thr);
}

extern "C" cudaError_t cuda_sw_bonds(cudaStream_t stream, const struct cuda_sw_box *b,
                                     uint64_t seed, struct latmc_rng_name name, int flip,
                                     uint64_t threshold)
{
    const unsigned grid = cuda_grid(b->g.nsites / 4);
    if (b->g.ndim == 3)
        launch_bonds<3>(grid, stream, b, seed, name, flip, threshold);
    else
        launch_bonds<2>(grid, stream, b, seed, name, flip, threshold);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_label(cudaStream_t stream, const struct cuda_sw_box *b)
{
    const struct tile_shape t = tile_of(b->g.ndim);
    const int64_t tiles = ((b->g.lx + t.tx - 1) / t.tx) * ((b->g.ly + t.ty - 1) / t.ty) *
                          ((b->g.lz + t.tz - 1) / t.tz);
    sw_tile_kernel<<<tiles < CUDA_MAX_BLOCKS ? (unsigned)tiles : CUDA_MAX_BLOCKS, CUDA_THREADS,
                     0, stream>>>(*b);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) {
        sw_union_kernel<<<cuda_grid(b->g.nsites), CUDA_THREADS, 0, stream>>>(*b);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) {
        sw_flatten_kernel<<<cuda_grid(b->g.nsites), CUDA_THREADS, 0, stream>>>(*b);
        err = cudaGetLastError();
    }
    return err;
}

extern "C" cudaError_t cuda_sw_apply(cudaStream_t stream, const struct cuda_sw_box *b, int q,
                                     unsigned long long *changed)
{
    /* a bounded grid, each thread many sites: one atomicAdd per warp on one counter,
     * per 32 sites, would serialise in the L2 */
    const unsigned grid = cuda_grid(b->g.nsites);
    const unsigned blocks = grid < SW_COUNT_BLOCKS ? grid : SW_COUNT_BLOCKS;
    if (q)
        sw_flip_kernel<true><<<blocks, CUDA_THREADS, 0, stream>>>(*b, changed);
    else
        sw_flip_kernel<false><<<blocks, CUDA_THREADS, 0, stream>>>(*b, changed);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                    uint64_t seed, struct latmc_rng_name name,
                                    uint64_t keep_threshold, int q, unsigned long long *changed)
{
    sw_decide_kernel<<<cuda_grid(b->g.nsites), CUDA_THREADS, 0, stream>>>(
        *b, seed, name, keep_threshold, q);
    cudaError_t err = cudaGetLastError();
    return err == cudaSuccess ? cuda_sw_apply(stream, b, q, changed) : err;
}
