/*
 * The embedded step's decisions in a field F != 0 (cuda_embed.h; Heisenberg, F = beta h
 * r_z): each cluster keeps its signs iff its draw at its name r < floor(2^32 / (1 +
 * exp(-2 F A))), A its sum of a as lib/cluster_embed_sum.h defines it -- each a_i rounded
 * to an integer q_i of 2^-30, the q_i added in int64 -- so the sums are integers and
 * atomics in any order give the core's very totals; the threshold is the core's function
 * (-fmad=false; liblatmc's exp).
 *
 * Swendsen-Wang: every cluster's Q at its root in an int64 a site (the scratch), then each
 * root's decision into its bonds byte. Wolff: the seed's cluster's Q into the step's
 * counters (c->m), then its decision in one thread.
 */
#include <stdint.h>

#include "cluster_bonds.h"
#include "cluster_embed_sum.h"
#include "cuda_embed.h"
#include "cuda_launch.cuh"
#include "cuda_sw_device.cuh"

/* Blocks of the summing kernels: enough to fill any current GPU, few enough that the
 * warps' atomics on one counter (Wolff's, a spanning cluster's root) do not queue in the
 * L2 (as cuda_wolff_kernels.cu's); each warp then runs many passes. */
#define FIELD_SUM_BLOCKS 2048u

extern "C" size_t cuda_embed_field_bytes(uint32_t n)
{
    return (size_t)n * sizeof(long long);
}

/* The sum of v over the warp, in every lane (two's complement: wraps as int64). */
__device__ __forceinline__ long long field_warp_sum(long long v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

/*
 * Every cluster's Q at its root, sums[r] (cleared before). Near T_c one cluster holds a
 * finite fraction of the sites, and an atomic a site on its root would queue on one
 * address; so each warp keeps one cluster "hot" -- the largest group of the first pass in
 * which the previous hot cluster had no site -- and every lane adds the hot cluster's
 * terms to a register, the warp's registers added to its root when the hot cluster
 * changes and at the end (a bounded grid: many passes a warp); the other sites add their
 * terms to their roots one by one. Integer sums: the totals are the same for any
 * grouping. Whole warps (k0 the warp's first site), so that the votes see every lane.
 */
__global__ void field_sums_kernel(struct cuda_sw_box b, const double *a,
                                  unsigned long long *sums)
{
    const uint32_t n = b.np * sw_plane_sites(b);
    const unsigned lane = threadIdx.x & 31u;
    uint32_t hot = UINT32_MAX; /* warp-uniform: the hot cluster's root (none yet) */
    long long acc = 0;         /* this lane's terms of the hot cluster not yet added */
    for (int64_t k0 = cuda_first_item() - (int64_t)lane; k0 < (int64_t)n;
         k0 += cuda_item_stride()) {
        const int64_t k = k0 + lane;
        const bool valid = k < (int64_t)n;
        const uint32_t i = valid ? sw_own_site(b, (uint32_t)k) : 0u;
        const uint32_t r = valid ? sw_root(b, i) : UINT32_MAX; /* not a site */
        const long long q = valid ? (long long)latmc_embed_sum_term(a[i]) : 0;
        bool in_hot = valid && r == hot;
        if (!__any_sync(0xffffffffu, in_hot)) {
            /* the largest group here becomes the hot cluster (the invalid lanes have no
             * leader); the last one's terms added first */
            const unsigned same = __match_any_sync(0xffffffffu, r);
            const bool leader = valid && lane == (unsigned)__ffs(same) - 1u;
            const unsigned best = __reduce_max_sync(
                0xffffffffu, leader ? ((unsigned)__popc(same) << 5) | lane : 0u);
            if (best != 0u) {
                const long long flush = field_warp_sum(acc);
                if (lane == 0u && flush != 0)
                    atomicAdd(&sums[hot], (unsigned long long)flush);
                acc = 0;
                hot = __shfl_sync(0xffffffffu, r, (int)(best & 31u));
                in_hot = valid && r == hot;
            }
        }
        if (in_hot)
            acc += q;
        else if (valid && q != 0)
            atomicAdd(&sums[r], (unsigned long long)q);
    }
    const long long flush = field_warp_sum(acc);
    if (lane == 0u && flush != 0)
        atomicAdd(&sums[hot], (unsigned long long)flush);
}

/* Each cluster's (on k boxes each piece's) decision at its root's bonds byte (1 keep), as
 * cuda_sw_decide leaves them, drawn at the root's global site: a root is its own label,
 * every other site's label a smaller site. */
__global__ void field_decide_kernel(struct cuda_sw_box b, const unsigned long long *sums,
                                    double F, uint64_t seed, struct latmc_rng_name name)
{
    const uint32_t n = b.np * sw_plane_sites(b);
    for (int64_t k = cuda_first_item(); k < (int64_t)n; k += cuda_item_stride()) {
        const uint32_t r = sw_own_site(b, (uint32_t)k);
        if (b.labels[r] != r)
            continue;
        b.bonds[r] = (uint8_t)((uint64_t)sw_draw(seed, name, sw_global(b, r)) <
                               latmc_embed_keep_threshold(F, (int64_t)sums[r]));
    }
}

extern "C" cudaError_t cuda_embed_field_sums(cudaStream_t stream, const struct cuda_sw_box *b,
                                             const double *a, void *work, size_t work_bytes)
{
    const uint32_t stored = (uint32_t)b->g.nsites;
    if (!work || work_bytes < cuda_embed_field_bytes(stored))
        return cudaErrorInvalidValue;
    unsigned long long *sums = (unsigned long long *)work;
    const unsigned grid = cuda_grid((int64_t)b->np * sw_plane_sites(*b));
    cudaError_t err = cudaMemsetAsync(sums, 0, cuda_embed_field_bytes(stored), stream);
    if (err == cudaSuccess) {
        field_sums_kernel<<<grid < FIELD_SUM_BLOCKS ? grid : FIELD_SUM_BLOCKS, CUDA_THREADS,
                            0, stream>>>(*b, a, sums);
        err = cudaGetLastError();
    }
    return err;
}

extern "C" cudaError_t cuda_embed_field_roots(cudaStream_t stream, const struct cuda_sw_box *b,
                                              const void *work, double field, uint64_t seed,
                                              struct latmc_rng_name name)
{
    field_decide_kernel<<<cuda_grid((int64_t)b->np * sw_plane_sites(*b)), CUDA_THREADS, 0,
                          stream>>>(*b, (const unsigned long long *)work, field, seed, name);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_embed_field_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                               uint32_t n, const double *a, double field,
                                               uint64_t seed, struct latmc_rng_name name,
                                               void *work, size_t work_bytes)
{
    (void)n; /* the box's own sites */
    cudaError_t err = cuda_embed_field_sums(stream, b, a, work, work_bytes);
    if (err == cudaSuccess)
        err = cuda_embed_field_roots(stream, b, work, field, seed, name);
    return err;
}

/* Wolff: the seed's cluster's Q into c->m (cleared before). */
__global__ void field_wolff_sum_kernel(struct cuda_sw_box b, uint32_t n, uint32_t seed_site,
                                       const double *a, struct cuda_wolff_counts *c)
{
    const uint32_t r = sw_root(b, seed_site);
    long long q = 0;
    for (int64_t k = cuda_first_item(); k < (int64_t)n; k += cuda_item_stride())
        if (sw_root(b, (uint32_t)k) == r)
            q += latmc_embed_sum_term(a[k]);
    cuda_warp_add(&c->m, (unsigned long long)q); /* two's complement: the sum wraps right */
}

/* Wolff: the seed's cluster's root into c->root and its decision (1 keep, 0 flip, as
 * cuda_wolff_decide's Ising) from its draw at the root. One thread. */
__global__ void field_wolff_decide_kernel(struct cuda_sw_box b, uint32_t seed_site, double F,
                                          uint64_t seed, struct latmc_rng_name name,
                                          struct cuda_wolff_counts *c)
{
    const uint32_t r = sw_root(b, seed_site);
    c->root = r;
    c->decision = (uint32_t)((uint64_t)sw_draw(seed, name, r) <
                             latmc_embed_keep_threshold(F, (int64_t)c->m));
}

extern "C" cudaError_t cuda_embed_field_wolff_decide(cudaStream_t stream,
                                                     const struct cuda_sw_box *b, uint32_t n,
                                                     const double *a, uint32_t seed_site,
                                                     double field, uint64_t seed,
                                                     struct latmc_rng_name name,
                                                     struct cuda_wolff_counts *c)
{
    const unsigned grid = cuda_grid(n);
    cudaError_t err = cudaMemsetAsync(&c->m, 0, sizeof c->m, stream);
    if (err == cudaSuccess) {
        field_wolff_sum_kernel<<<grid < FIELD_SUM_BLOCKS ? grid : FIELD_SUM_BLOCKS,
                                 CUDA_THREADS, 0, stream>>>(*b, n, seed_site, a, c);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) {
        field_wolff_decide_kernel<<<1, 1, 0, stream>>>(*b, seed_site, field, seed, name, c);
        err = cudaGetLastError();
    }
    return err;
}

/* Wolff on k boxes: the seed's cluster's decision from its joined name and sum. */
__global__ void target_decide_kernel(const uint32_t *target, double F, uint64_t seed,
                                     struct latmc_rng_name name, uint32_t *keep)
{
    const long long q = (long long)((unsigned long long)target[3] << 32 | target[2]);
    *keep = F != 0.0 && (uint64_t)sw_draw(seed, name, target[0]) <
                            latmc_embed_keep_threshold(F, (int64_t)q);
}

extern "C" cudaError_t cuda_embed_target_decide(cudaStream_t stream, const uint32_t *target,
                                                double field, uint64_t seed,
                                                struct latmc_rng_name name, uint32_t *keep)
{
    target_decide_kernel<<<1, 1, 0, stream>>>(target, field, seed, name, keep);
    return cudaGetLastError();
}
