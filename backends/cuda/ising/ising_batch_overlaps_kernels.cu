/*
 * The two-replica overlaps of an ensemble's Ising members on the device (ising_batch.h,
 * LATMC_STEP_OVERLAPS; doc/ensembles.md "Spin-glass observables"): for every pair of members
 * (the two replicas of a sample at one temperature, after swaps) the integer sums
 *     q  = sum_i s_i^a s_i^b,
 *     ql = sum_i sum_mu c_i c_{i+mu},  c_i = s_i^a s_i^b,
 * one thread block per pair, each thread a strided share of the sites, the shares added
 * by warp sums and one 64-bit atomicAdd per warp: integers, so the result is exact and
 * independent of the launch geometry, and equal to the host's sums (lib/ens_overlap.c).
 *
 * Byte members (ising_batch_bytes_kernels.cu's layout, int8 per site in natural order): c_i =
 * a_i b_i. Packed members (ising_packed.h, nibbles 0 = +1, 1 = -1): the xor of the two
 * replicas' words holds c_i (1 where c_i = -1), so q over a word is 8 - 2 popc; every bond
 * joins a colour-0 site to a colour-1 one, so walking the colour-0 words with their 2 ndim
 * neighbour words of colour 1 (found as ens_packed_measure_kernel finds them; the xor commutes
 * with the funnel shifts) counts each bond once: ql over a word is 8 (2 ndim) - 2 popc(own ^
 * neighbour) summed over the directions.
 */
#include "cuda_launch.cuh"
#include "ising_batch.h"

/* Threads of a block that walks `items` items: whole warps, at most CUDA_THREADS. */
static unsigned pair_threads(int64_t items)
{
    const int64_t t = (items + 31) / 32 * 32;
    return (unsigned)(t < CUDA_THREADS ? (t < 32 ? 32 : t) : CUDA_THREADS);
}

__global__ void __launch_bounds__(CUDA_THREADS)
ens_overlap_bytes_kernel(struct latmc_lattice g, const struct cuda_ens_ising_member *members,
                         const int32_t *pairs, unsigned long long *q, unsigned long long *ql)
{
    const int8_t *a = members[pairs[2 * (int64_t)blockIdx.x]].spins;
    const int8_t *b = members[pairs[2 * (int64_t)blockIdx.x + 1]].spins;
    const int64_t plane = g.lx * g.ly;
    long long sq = 0, sl = 0;
    for (int64_t i = threadIdx.x; i < g.nsites; i += blockDim.x) {
        const int64_t row = latmc_div(i, g.lx), x = i - row * g.lx;
        const int64_t z = latmc_div(row, g.ly), y = row - z * g.ly;
        const int c = a[i] * b[i];
        sq += c;
        int64_t j = x + 1 == g.lx ? i - x : i + 1;
        int l = a[j] * b[j];
        j = y + 1 == g.ly ? i - y * g.lx : i + g.lx;
        l += a[j] * b[j];
        if (g.ndim == 3) {
            j = z + 1 == g.lz ? i - z * plane : i + plane;
            l += a[j] * b[j];
        }
        sl += c * l;
    }
    cuda_warp_add(&q[blockIdx.x], (unsigned long long)sq);
    cuda_warp_add(&ql[blockIdx.x], (unsigned long long)sl);
}

struct overlap_geom {
    uint32_t wpr;   /* words per row: L_x / 16 */
    uint32_t ly, lz; /* lz 1 in 2D */
    uint32_t words; /* words of one colour */
};

template <int ND>
__global__ void __launch_bounds__(CUDA_THREADS)
ens_overlap_packed_kernel(struct overlap_geom p, const struct cuda_ens_packed_member *members,
                          const int32_t *pairs, unsigned long long *q, unsigned long long *ql)
{
    const struct cuda_ens_packed_member *ma = &members[pairs[2 * (int64_t)blockIdx.x]];
    const struct cuda_ens_packed_member *mb = &members[pairs[2 * (int64_t)blockIdx.x + 1]];
    const uint32_t *a0 = ma->colour[0], *a1 = ma->colour[1];
    const uint32_t *b0 = mb->colour[0], *b1 = mb->colour[1];
    const uint32_t plane = p.ly * p.wpr, vol = p.words;
    long long sq = 0, sl = 0;
    for (uint32_t w = threadIdx.x; w < p.words; w += blockDim.x) {
        const uint32_t r = w / p.wpr, wi = w - r * p.wpr, z = r / p.ly, y = r - z * p.ly;
        const uint32_t row = r * p.wpr, own = a0[w] ^ b0[w];
        uint32_t k[ND], nb[ND];
        k[0] = w;
        k[2] = y + 1 == p.ly ? w - (p.ly - 1) * p.wpr : w + p.wpr;
        k[3] = y == 0 ? w + (p.ly - 1) * p.wpr : w - p.wpr;
        if constexpr (ND == 6) {
            k[4] = z + 1 == p.lz ? w + plane - vol : w + plane;
            k[5] = z == 0 ? w + vol - plane : w - plane;
        }
        /* the other x neighbour's word: the next (colour 0 at odd x in this row) or the
         * previous word of the row, periodic */
        const bool odd = ((y + z) & 1u) != 0;
        k[1] = row + (odd ? (wi + 1 == p.wpr ? 0 : wi + 1) : (wi == 0 ? p.wpr - 1 : wi - 1));
#pragma unroll
        for (int d = 0; d < ND; d++)
            nb[d] = d == 1 ? 0u : a1[k[d]] ^ b1[k[d]];
        const uint32_t side = a1[k[1]] ^ b1[k[1]];
        nb[1] = odd ? __funnelshift_r(nb[0], side, 4) : __funnelshift_l(side, nb[0], 4);
        sq += 16 - 2 * (__popc(own) + __popc(nb[0])); /* 8 sites of each colour */
        int anti = 0;
#pragma unroll
        for (int d = 0; d < ND; d++)
            anti += __popc(own ^ nb[d]);
        sl += 8 * ND - 2 * anti;
    }
    cuda_warp_add(&q[blockIdx.x], (unsigned long long)sq);
    cuda_warp_add(&ql[blockIdx.x], (unsigned long long)sl);
}

extern "C" cudaError_t cuda_ens_overlaps_bytes(cudaStream_t stream, const struct latmc_lattice *g,
                                               const struct cuda_ens_ising_member *members,
                                               const int32_t *pairs, int64_t n_pairs,
                                               unsigned long long *q, unsigned long long *ql)
{
    if (n_pairs > 0)
        ens_overlap_bytes_kernel<<<(unsigned)n_pairs, pair_threads(g->nsites), 0, stream>>>(
            *g, members, pairs, q, ql);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ens_overlaps_packed(cudaStream_t stream, const struct latmc_lattice *g,
                                                const struct cuda_ens_packed_member *members,
                                                const int32_t *pairs, int64_t n_pairs,
                                                unsigned long long *q, unsigned long long *ql)
{
    struct overlap_geom p;
    p.wpr = (uint32_t)(g->lx / 16);
    p.ly = (uint32_t)g->ly;
    p.lz = g->ndim == 3 ? (uint32_t)g->lz : 1u;
    p.words = (uint32_t)(g->nsites / 16);
    const unsigned threads = pair_threads(p.words);
    if (n_pairs > 0 && g->ndim == 3)
        ens_overlap_packed_kernel<6><<<(unsigned)n_pairs, threads, 0, stream>>>(p, members,
                                                                              pairs, q, ql);
    else if (n_pairs > 0)
        ens_overlap_packed_kernel<4><<<(unsigned)n_pairs, threads, 0, stream>>>(p, members,
                                                                              pairs, q, ql);
    return cudaGetLastError();
}
