/*
 * The embedded Swendsen-Wang step's decisions in a field F != 0 (cuda_embed.h; Heisenberg,
 * F = beta h r_z): each cluster keeps its signs iff its draw at its name r <
 * floor(2^32 / (1 + exp(-2 F A))), A its sum of a, which must round as the core's: the
 * core adds a_i into its cluster's sum for i = 0, 1, .. N - 1 (lib/cluster_embed.c,
 * latmc_embed_sw_stats), i.e. each cluster's a in increasing site order, from 0.0, one
 * rounding an addition. No parallel or atomic sum rounds so, so the sites are put in that
 * order first -- a stable radix sort of (root, site) pairs (CUB; the roots are < N) --
 * and each cluster's run is then added in order, a small one by one thread, a long one by
 * a warp that loads 256 values at a time and adds them in order, every lane the same sum
 * (no divergence; the spanning cluster's additions are the step's critical path: one
 * dependent double addition a site). Every operation of the threshold is the core's
 * keep_threshold's, rounded alike (-fmad=false; liblatmc's exp).
 */
#include <stdint.h>

#include <cub/device/device_radix_sort.cuh>

#include "cluster_bonds.h"
#include "cuda_embed.h"
#include "cuda_launch.cuh"
#include "cuda_sw_device.cuh"
#include "latmc_math.h"

/* A run of this many sites or fewer is added by its first site's thread alone. */
#define FIELD_SHORT_RUN 32u
/* A warp's loads in flight on a long run: 8 values a lane. */
#define FIELD_WARP_LOADS 8

/* The scratch of n sites: keys in and out, sites in and out (4 bytes each), a in site
 * order (8), then CUB's temporary storage (SortPairs without double buffers: its
 * alternate keys and sites, 8 bytes a site more). */
struct field_work {
    uint32_t *key, *key_sorted, *site, *site_sorted;
    double *a_sorted;
    void *temp;
    size_t temp_bytes;
};

static int key_bits(uint32_t n)
{
    int bits = 1;
    while (bits < 32 && (UINT64_C(1) << bits) < n)
        bits++;
    return bits;
}

static size_t align_up(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

/* The layout of the scratch at base (NULL: sizes only); its total bytes, 0 where CUB's
 * query of its temporary storage failed (its error cleared: a layout without the sort's
 * room is never used). */
static size_t field_layout(uint32_t n, void *base, struct field_work *w)
{
    size_t temp_bytes = 0;
    if (cub::DeviceRadixSort::SortPairs(NULL, temp_bytes, (const uint32_t *)NULL,
                                        (uint32_t *)NULL, (const uint32_t *)NULL,
                                        (uint32_t *)NULL, (int)n, 0,
                                        key_bits(n)) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    const size_t words = align_up((size_t)n * 4), doubles = align_up((size_t)n * 8);
    char *p = (char *)base;
    w->key = (uint32_t *)p;
    w->key_sorted = (uint32_t *)(p + words);
    w->site = (uint32_t *)(p + 2 * words);
    w->site_sorted = (uint32_t *)(p + 3 * words);
    w->a_sorted = (double *)(p + 4 * words);
    w->temp = p + 4 * words + doubles;
    w->temp_bytes = temp_bytes;
    return 4 * words + doubles + align_up(temp_bytes);
}

extern "C" size_t cuda_embed_field_bytes(uint32_t n)
{
    struct field_work w;
    return field_layout(n, NULL, &w);
}

/* Every site's root and its own index: the pairs to sort. */
__global__ void field_keys_kernel(struct cuda_sw_box b, uint32_t n, uint32_t *key,
                                  uint32_t *site)
{
    for (int64_t k = cuda_first_item(); k < (int64_t)n; k += cuda_item_stride()) {
        key[k] = sw_root(b, (uint32_t)k);
        site[k] = (uint32_t)k;
    }
}

/* a in sorted order; the end of each cluster's run into end_at[root] (the unsorted keys'
 * array, free after the sort: a root is < n). */
__global__ void field_gather_kernel(uint32_t n, const uint32_t *key_sorted,
                                    const uint32_t *site_sorted, const double *a,
                                    double *a_sorted, uint32_t *end_at)
{
    for (int64_t k = cuda_first_item(); k < (int64_t)n; k += cuda_item_stride()) {
        a_sorted[k] = a[site_sorted[k]];
        if (k + 1 == (int64_t)n || key_sorted[k + 1] != key_sorted[k])
            end_at[key_sorted[k]] = (uint32_t)(k + 1);
    }
}

/* The core's keep_threshold (lib/cluster_embed.c): arg = (-2 F) A, capped at 700,
 * floor(2^32 / (1 + exp(arg))). */
__device__ __forceinline__ uint64_t field_keep_threshold(double F, double A)
{
    const double arg = __dmul_rn(__dmul_rn(-2.0, F), A);
    return latmc_cluster_threshold(
        __ddiv_rn(1.0, __dadd_rn(1.0, latmc_math_exp(arg < 700.0 ? arg : 700.0))));
}

/* Each cluster's decision at its root's bonds byte (1 keep), as cuda_sw_decide leaves
 * them. Whole warps (k0 the warp's first position), so that the long runs' shuffles see
 * every lane. */
__global__ void field_decide_kernel(uint32_t n, const uint32_t *key_sorted,
                                    const uint32_t *end_at, const double *a_sorted, double F,
                                    uint64_t seed, struct latmc_rng_name name, uint8_t *bonds)
{
    const unsigned lane = threadIdx.x & 31u;
    for (int64_t k0 = cuda_first_item() - (int64_t)lane; k0 < (int64_t)n;
         k0 += cuda_item_stride()) {
        const int64_t k = k0 + lane;
        const bool start = k < (int64_t)n && (k == 0 || key_sorted[k - 1] != key_sorted[k]);
        const uint32_t r = start ? key_sorted[k] : 0u;
        const uint32_t e = start ? end_at[r] : 0u;
        const bool shrt = start && e - (uint32_t)k <= FIELD_SHORT_RUN;
        if (shrt) {
            double A = 0.0;
            for (uint32_t m = (uint32_t)k; m < e; m++)
                A = __dadd_rn(A, a_sorted[m]);
            bonds[r] = (uint8_t)((uint64_t)sw_draw(seed, name, r) < field_keep_threshold(F, A));
        }
        unsigned longs = __ballot_sync(0xffffffffu, start && !shrt);
        while (longs) {
            const int src = __ffs(longs) - 1;
            longs &= longs - 1u;
            const uint32_t s = __shfl_sync(0xffffffffu, (uint32_t)k, src);
            const uint32_t se = __shfl_sync(0xffffffffu, e, src);
            const uint32_t sr = __shfl_sync(0xffffffffu, r, src);
            double A = 0.0;
            for (uint32_t m0 = s; m0 < se; m0 += 32u * FIELD_WARP_LOADS) {
                double v[FIELD_WARP_LOADS];
#pragma unroll
                for (int u = 0; u < FIELD_WARP_LOADS; u++) {
                    const uint32_t m = m0 + 32u * (uint32_t)u + lane;
                    v[u] = m < se ? a_sorted[m] : 0.0;
                }
#pragma unroll
                for (int u = 0; u < FIELD_WARP_LOADS; u++) {
                    const uint32_t base = m0 + 32u * (uint32_t)u;
                    const uint32_t cnt = base >= se ? 0u : se - base < 32u ? se - base : 32u;
                    for (uint32_t l = 0; l < cnt; l++) /* in order: the core's rounding */
                        A = __dadd_rn(A, __shfl_sync(0xffffffffu, v[u], (int)l));
                }
            }
            if (lane == 0)
                bonds[sr] =
                    (uint8_t)((uint64_t)sw_draw(seed, name, sr) < field_keep_threshold(F, A));
        }
    }
}

extern "C" cudaError_t cuda_embed_field_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                               uint32_t n, const double *a, double field,
                                               uint64_t seed, struct latmc_rng_name name,
                                               void *work, size_t work_bytes)
{
    /* the layout asked again: a scratch made from another answer (a failed query) would
     * be overrun by the sort */
    struct field_work w;
    const size_t need = field_layout(n, work, &w);
    if (!need || need > work_bytes)
        return cudaErrorInvalidValue;
    const unsigned grid = cuda_grid(n);
    field_keys_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*b, n, w.key, w.site);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) /* stable: each root's sites stay in increasing order */
        err = cub::DeviceRadixSort::SortPairs(w.temp, w.temp_bytes, w.key, w.key_sorted, w.site,
                                              w.site_sorted, (int)n, 0, key_bits(n), stream);
    if (err == cudaSuccess) {
        field_gather_kernel<<<grid, CUDA_THREADS, 0, stream>>>(n, w.key_sorted, w.site_sorted,
                                                               a, w.a_sorted, w.key);
        err = cudaGetLastError();
    }
    if (err == cudaSuccess) {
        field_decide_kernel<<<grid, CUDA_THREADS, 0, stream>>>(n, w.key_sorted, w.key,
                                                               w.a_sorted, field, seed, name,
                                                               b->bonds);
        err = cudaGetLastError();
    }
    return err;
}
