/*
 * The cluster decisions that need the clusters' sums (cuda_wolff.h): Wolff's one
 * cluster, and every cluster in a field; and the clusters' statistics. They run on the labels of cuda_sw_kernels.cu,
 * where labels[labels[i]] is the name (the smallest site) of site i's cluster.
 *
 * Sums by label are integers (sites, spins +-1), added with atomics in any order: the
 * same totals whatever the order, so the decisions are the CPU's. One thread per site in
 * a grid-stride loop; the counting kernels on a bounded grid (a warp adds its sum once).
 */
#include <stdint.h>

#include "cluster_bonds.h"
#include "cuda_launch.cuh"
#include "cuda_sw_device.cuh"
#include "cuda_sw_faces.h"
#include "cuda_wolff.h"

/* Blocks of the counting kernels: enough to fill any current GPU, few enough that the
 * warps' atomics on one counter do not queue in the L2. */
#define WOLFF_COUNT_BLOCKS 2048u

static unsigned count_blocks(int64_t sites)
{
    const unsigned grid = cuda_grid(sites);
    return grid < WOLFF_COUNT_BLOCKS ? grid : WOLFF_COUNT_BLOCKS;
}

/* Wolff in a field: the sites and the magnetisation of the seed's cluster into c->n and
 * c->m (cleared before). */
__global__ void wolff_sum_kernel(struct cuda_sw_box b, uint32_t seed_site,
                                 struct cuda_wolff_counts *c)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    const uint32_t r = sw_root(b, seed_site);
    unsigned long long sites = 0;
    long long m = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        if (sw_root(b, i) == r) {
            sites++;
            m += b.spins[i]; /* Ising's +-1; Potts reads only the sites */
        }
    }
    cuda_warp_add(&c->n, sites);
    cuda_warp_add(&c->m, (unsigned long long)m); /* two's complement: the sum wraps right */
}

/* Wolff: the decision of the seed's cluster, drawn at its name r (lane r mod 4 of block
 * r / 4 of `name`; lib/cluster_draws.c's latmc_cluster_decide): without a field Ising
 * always flips and Potts takes one of the q - 1 other colours; in a field the heat bath
 * over its states, from its magnetisation (Ising) or its size (Potts). One thread. The
 * spins are read for Potts only (the embedded clusters' box has none). */
__global__ void wolff_decide_kernel(struct cuda_sw_box b, uint32_t seed_site, uint64_t seed,
                                    struct latmc_rng_name name, double beta_h, int q,
                                    struct cuda_wolff_counts *c)
{
    const uint32_t r = sw_root(b, seed_site);
    const uint32_t u = sw_draw(seed, name, r);
    const int old = q ? (uint8_t)b.spins[seed_site] : 0; /* the cluster's colour (Potts) */
    int d;
    if (!q)
        d = beta_h == 0.0 ? 0
                          : latmc_cluster_ising_keep(
                                u, latmc_cluster_keep_threshold(beta_h, (long long)c->m));
    else if (beta_h == 0.0)
        d = latmc_cluster_potts_other(u, old, q);
    else
        d = latmc_cluster_potts_colour(
            u, latmc_cluster_zero_threshold(beta_h, q, (int64_t)c->n), q);
    c->root = r;
    c->decision = (uint32_t)d;
}

/* Wolff: every site of the seed's cluster takes its decision; counts the sites changed
 * and the cluster's sites. */
template <bool POTTS>
__global__ void wolff_flip_kernel(struct cuda_sw_box b, struct cuda_wolff_counts *c,
                                  unsigned long long *changed)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    const uint32_t r = c->root, d = c->decision;
    unsigned long long sites = 0, flipped = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        if (sw_root(b, i) != r)
            continue;
        sites++;
        flipped += sw_take_decision<POTTS>(b.spins, i, d);
    }
    cuda_warp_add(changed, flipped);
    cuda_warp_add(&c->sites, sites);
}

/* Wolff on a part (or one of k boxes): every own site of a marked piece
 * (cuda_sw_faces_mark) takes the update of the cluster named target[0]: without a field
 * Ising flips and Potts takes one of the other colours, drawn at the name, from the
 * site's colour, which is the cluster's; in a field the heat bath of wolff_decide_kernel
 * from the cluster's sum (magnetisation or size) joined across the boxes, target[2..3]
 * as an int64 (low, high). Counts the sites changed and the cluster's sites here (into
 * c->sites and this sweep's c->n). */
template <bool POTTS>
__global__ void wolff_part_flip_kernel(struct cuda_sw_box b, const uint32_t *target,
                                       uint64_t seed, uint64_t sweep, double beta_h, int q,
                                       struct cuda_wolff_counts *c, unsigned long long *changed)
{
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b);
    const uint32_t t = target[0];
    const long long sum = (long long)((unsigned long long)target[3] << 32 | target[2]);
    const uint32_t u = latmc_cluster_decide_draw(seed, sweep, t);
    /* in a field one decision for the cluster (Potts: its colour; Ising: keep) */
    const uint32_t field_d =
        beta_h == 0.0 ? 0u
        : POTTS       ? (uint32_t)latmc_cluster_potts_colour(
                      u, latmc_cluster_zero_threshold(beta_h, q, sum), q)
                      : (uint32_t)latmc_cluster_ising_keep(
                      u, latmc_cluster_keep_threshold(beta_h, sum));
    unsigned long long sites = 0, flipped = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = sw_own_site(b, (uint32_t)k);
        if (!b.bonds[sw_root(b, i)])
            continue;
        sites++;
        const uint32_t d = POTTS && beta_h == 0.0
                               ? (uint32_t)latmc_cluster_potts_other(u, (uint8_t)b.spins[i], q)
                               : field_d;
        flipped += sw_take_decision<POTTS>(b.spins, i, d);
    }
    cuda_warp_add(changed, flipped);
    cuda_warp_add(&c->sites, sites);
    cuda_warp_add(&c->n, sites);
}

/* A field: every cluster's magnetisation (Ising) or size (Potts) at its root, sums[r]
 * (cleared before). The lanes of a warp that share a cluster add once: their sum from the
 * warp's ballots. Near T_c one cluster holds a finite fraction of the sites, and one
 * atomic a warp on its root would still queue hundreds of thousands of atomics on one
 * address; so each warp keeps one cluster "hot" -- the largest group of the last pass in
 * which the previous hot cluster had no site -- and adds the hot cluster's sites to a
 * register, flushed when the hot cluster changes and at the end (a bounded grid: many
 * passes a warp). Integer sums, so the totals are the same for any grouping. The loop
 * runs whole warps (k0 the warp's first site) so that the ballots see all lanes. */
template <bool POTTS>
__global__ void sw_sums_kernel(struct cuda_sw_box b, long long *sums)
{
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b); /* the own sites */
    const unsigned lane = threadIdx.x & 31u;
    uint32_t hot = UINT32_MAX; /* warp-uniform: the hot cluster's root (none yet) */
    long long acc = 0;         /* warp-uniform: its sites' sum not yet added */
    for (uint64_t k0 = (uint64_t)cuda_first_item() - lane; k0 < n;
         k0 += (uint64_t)cuda_item_stride()) {
        const uint64_t k = k0 + lane;
        const bool valid = k < n;
        const uint32_t i = valid ? sw_own_site(b, (uint32_t)k) : 0u;
        const uint32_t r = valid ? sw_root(b, i) : UINT32_MAX; /* not a site */
        const int8_t v = valid ? b.spins[i] : 0;
        const unsigned up = __ballot_sync(0xffffffffu, valid && (POTTS || v > 0));
        const unsigned down = __ballot_sync(0xffffffffu, valid && !POTTS && v < 0);
        const bool in_hot = valid && r == hot;
        unsigned hm = __ballot_sync(0xffffffffu, in_hot);
        /* the other lanes grouped by cluster; the hot and the invalid lanes have no leader */
        const unsigned same = __match_any_sync(0xffffffffu, valid && !in_hot ? r : UINT32_MAX);
        bool leader = valid && !in_hot && lane == (unsigned)__ffs(same) - 1u;
        if (hm == 0u) { /* the hot cluster is not here: the largest group here becomes it */
            const unsigned best = __reduce_max_sync(
                0xffffffffu, leader ? ((unsigned)__popc(same) << 5) | lane : 0u);
            if (best != 0u) {
                if (lane == 0u && acc != 0)
                    atomicAdd((unsigned long long *)&sums[hot], (unsigned long long)acc);
                const unsigned src = best & 31u;
                hot = __shfl_sync(0xffffffffu, r, src);
                hm = __shfl_sync(0xffffffffu, same, src);
                acc = 0;
                leader = leader && lane != src;
            }
        }
        acc += (long long)__popc(hm & up) - (long long)__popc(hm & down);
        if (leader) {
            const long long sum = (long long)__popc(same & up) - (long long)__popc(same & down);
            atomicAdd((unsigned long long *)&sums[r], (unsigned long long)sum);
        }
    }
    if (lane == 0u && acc != 0)
        atomicAdd((unsigned long long *)&sums[hot], (unsigned long long)acc);
}

/* A field: every cluster's decision at its root, as latmc_cluster_decide: Ising keep iff
 * u < floor(2^32 / (1 + exp(-2 beta h M))), Potts colour 0 below floor(2^32 / (1 + (q - 1)
 * exp(-beta h n))), else one of the others; drawn at the root's global site (a box's
 * face pieces drawn again at their joined names: cuda_sw_faces_field_decide). */
template <bool POTTS>
__global__ void sw_field_decide_kernel(struct cuda_sw_box b, const long long *sums,
                                       uint64_t seed, uint64_t sweep, double beta_h, int q)
{
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b); /* the own sites */
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t r = sw_own_site(b, (uint32_t)k);
        if (b.labels[r] != r)
            continue; /* a root's label is itself; every other site's a smaller site */
        const uint32_t u = latmc_cluster_decide_draw(seed, sweep, sw_global(b, r));
        b.bonds[r] = (uint8_t)(POTTS ? latmc_cluster_potts_colour(
                                           u, latmc_cluster_zero_threshold(beta_h, q, sums[r]), q)
                                     : latmc_cluster_ising_keep(
                                           u, latmc_cluster_keep_threshold(beta_h, sums[r])));
    }
}

/* Wolff's statistics: the sites of the cluster named c->root into out[1]. */
__global__ void wolff_size_kernel(struct cuda_sw_box b, const struct cuda_wolff_counts *c,
                                  unsigned long long *out)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    const uint32_t r = c->root;
    unsigned long long sites = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride())
        sites += sw_root(b, (uint32_t)k) == r;
    cuda_warp_add(&out[1], sites);
}

/* Swendsen-Wang's statistics from the sizes at the roots: the clusters into out[0], the
 * largest size into out[1], the sum of the squared sizes into out[2] (< N^2 < 2^64). */
__global__ void sw_stats_kernel(struct cuda_sw_box b, const long long *sizes,
                                unsigned long long *out)
{
    const uint64_t n = (uint64_t)b.g.nsites;
    unsigned long long clusters = 0, largest = 0, size2 = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t r = (uint32_t)k;
        if (b.labels[r] != r)
            continue;
        const unsigned long long s = (unsigned long long)sizes[r];
        clusters++;
        size2 += s * s;
        largest = s > largest ? s : largest;
    }
    cuda_warp_add(&out[0], clusters);
    cuda_warp_add(&out[2], size2);
    for (int offset = 16; offset > 0; offset >>= 1) {
        const unsigned long long other = __shfl_down_sync(0xffffffffu, largest, offset);
        largest = other > largest ? other : largest;
    }
    if ((threadIdx.x & 31u) == 0 && largest != 0)
        atomicMax(&out[1], largest);
}

extern "C" cudaError_t cuda_wolff_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                         uint32_t seed_site, uint64_t seed,
                                         struct latmc_rng_name name, double beta_h, int q,
                                         struct cuda_wolff_counts *c)
{
    wolff_decide_kernel<<<1, 1, 0, stream>>>(*b, seed_site, seed, name, beta_h, q, c);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_wolff_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                       uint64_t seed, uint64_t sweep, uint32_t seed_site,
                                       double beta_h, int q, struct cuda_wolff_counts *c,
                                       unsigned long long *changed)
{
    const unsigned blocks = count_blocks(b->g.nsites);
    cudaError_t err = cudaSuccess;
    if (beta_h != 0.0) { /* the decision needs the cluster's sites or magnetisation */
        err = cudaMemsetAsync(&c->n, 0, sizeof c->n + sizeof c->m, stream);
        if (err == cudaSuccess) {
            wolff_sum_kernel<<<blocks, CUDA_THREADS, 0, stream>>>(*b, seed_site, c);
            err = cudaGetLastError();
        }
    }
    if (err == cudaSuccess)
        err = cuda_wolff_decide(
            stream, b, seed_site, seed,
            latmc_rng_cluster_name(sweep, 0, LATMC_CLUSTER_PHASE_DECIDE, 0), beta_h, q, c);
    if (err == cudaSuccess) {
        if (q)
            wolff_flip_kernel<true><<<blocks, CUDA_THREADS, 0, stream>>>(*b, c, changed);
        else
            wolff_flip_kernel<false><<<blocks, CUDA_THREADS, 0, stream>>>(*b, c, changed);
        err = cudaGetLastError();
    }
    return err;
}

extern "C" cudaError_t cuda_sw_piece_sums(cudaStream_t stream, const struct cuda_sw_box *b,
                                          int q, long long *sums)
{
    const int64_t own = (int64_t)b->np * sw_plane_sites(*b);
    /* the own planes' sums only: the kernels below read no other */
    cudaError_t err = cudaMemsetAsync(sums + (size_t)b->p0 * sw_plane_sites(*b), 0,
                                      (size_t)own * sizeof *sums, stream);
    if (err == cudaSuccess) {
        /* a bounded grid: each warp runs many passes and keeps its hot cluster's sum */
        if (q)
            sw_sums_kernel<true><<<count_blocks(own), CUDA_THREADS, 0, stream>>>(*b, sums);
        else
            sw_sums_kernel<false><<<count_blocks(own), CUDA_THREADS, 0, stream>>>(*b, sums);
        err = cudaGetLastError();
    }
    return err;
}

extern "C" cudaError_t cuda_sw_field_decide_roots(cudaStream_t stream,
                                                  const struct cuda_sw_box *b, uint64_t seed,
                                                  uint64_t sweep, double beta_h, int q,
                                                  const long long *sums)
{
    const unsigned grid = cuda_grid((int64_t)b->np * sw_plane_sites(*b));
    if (q)
        sw_field_decide_kernel<true><<<grid, CUDA_THREADS, 0, stream>>>(*b, sums, seed, sweep,
                                                                        beta_h, q);
    else
        sw_field_decide_kernel<false><<<grid, CUDA_THREADS, 0, stream>>>(*b, sums, seed, sweep,
                                                                         beta_h, q);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_field_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                            uint64_t seed, uint64_t sweep, double beta_h,
                                            int q, long long *sums)
{
    const cudaError_t err = cuda_sw_piece_sums(stream, b, q, sums);
    return err == cudaSuccess ? cuda_sw_field_decide_roots(stream, b, seed, sweep, beta_h, q,
                                                           sums)
                              : err;
}

extern "C" cudaError_t cuda_cluster_stats(cudaStream_t stream, const struct cuda_sw_box *b,
                                          const struct cuda_wolff_counts *c, long long *sums,
                                          unsigned long long *out)
{
    const unsigned blocks = count_blocks(b->g.nsites);
    cudaError_t err = cudaMemsetAsync(out, 0, 3 * sizeof *out, stream);
    if (err == cudaSuccess && c) {
        wolff_size_kernel<<<blocks, CUDA_THREADS, 0, stream>>>(*b, c, out);
        return cudaGetLastError();
    }
    if (err == cudaSuccess) /* every cluster's size at its root */
        err = cuda_sw_piece_sums(stream, b, 1, sums);
    if (err == cudaSuccess) {
        sw_stats_kernel<<<blocks, CUDA_THREADS, 0, stream>>>(*b, sums, out);
        err = cudaGetLastError();
    }
    return err;
}

extern "C" cudaError_t cuda_wolff_part_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                            const uint32_t *face, const uint32_t *target,
                                            uint64_t seed, uint64_t sweep, double beta_h, int q,
                                            struct cuda_wolff_counts *c,
                                            unsigned long long *changed)
{
    cudaError_t err = cuda_sw_faces_mark(stream, b, face, target);
    if (err == cudaSuccess) /* this sweep's sites here (the boxes' cluster observables) */
        err = cudaMemsetAsync(&c->n, 0, sizeof c->n, stream);
    const unsigned blocks = count_blocks((int64_t)b->np * sw_plane_sites(*b));
    if (err == cudaSuccess) {
        if (q)
            wolff_part_flip_kernel<true><<<blocks, CUDA_THREADS, 0, stream>>>(
                *b, target, seed, sweep, beta_h, q, c, changed);
        else
            wolff_part_flip_kernel<false><<<blocks, CUDA_THREADS, 0, stream>>>(
                *b, target, seed, sweep, beta_h, q, c, changed);
        err = cudaGetLastError();
    }
    return err;
}
