/*
 * The bit-sliced decisions' kernel on the packed layout (cuda_ising_bitsliced.h).
 *
 * One thread takes one group: the 4 words of the group in the updated colour's array and,
 * for each word, its 2 ndim neighbour words in the other colour's array (as the packed
 * kernels find them: the same word, the word shifted by one nibble, the rows y +- 1 and
 * planes z +- 1). The nibbles hold one spin each (bit 0: spin -1), so the four words of a
 * direction interleaved, word k shifted left by k, make one 32-bit word of the 32 sites in
 * the order p = 4 m + k ("interleaved order"). There the neighbour counts are a bit-sliced
 * adder (count bits c0, c1, c2 of 32 sites at once), and four delta swaps bring the own
 * spins and the count bits into the chain's lane order i = 8 k + m. The lanes' classes
 * (own spin, count) are ANDs of those masks; classes of equal thresholds are merged on the
 * host, so a plane of thresholds is one AND-OR per open class (2D Metropolis at h = 0: 2).
 * Then the planes, four per Philox block (lib/bitslice_decision.h's step) until no lane of
 * the group is undecided, and the accept mask back to the interleaved order and into the
 * words. A warp runs until its slowest group is settled (doc/models/ising-decisions.md,
 * "The tail").
 */
#include "cuda_ising_bitsliced.h"

#include <latmc/sim.h> /* LATMC_ALGO_*, LATMC_COUPLINGS_* */

#include "bitslice_decision.h"
#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_decision_rules.h"

/* Site classes (own spin, count m of neighbours at -1): code = 7 own + m, own 1 for -1. */
#define BS_CODES 14

struct bs_params {
    int64_t words;         /* words of one colour's array */
    int64_t groups;        /* ceil(words / 4) */
    int64_t wpr, ly, lz;   /* words per row, rows and planes */
    int n_open;            /* open classes: 0 < T < 2^32 */
    uint32_t open_t[BS_CODES];     /* their thresholds */
    uint32_t open_codes[BS_CODES]; /* their codes (bit `code`) */
    uint32_t always_codes;         /* codes of T = 2^32 */
    struct latmc_rng_name names[LATMC_ISING_DECISION_BLOCKS]; /* planes 4q .. 4q + 3 */
    struct cuda_philox_keys keys;
};

/* Exchange bits a and b (a > b) of the bit positions of x: a delta swap. */
__host__ __device__ constexpr uint32_t swap_mask(int a, int b)
{
    uint32_t m = 0;
    for (int q = 0; q < 32; q++)
        if (((q >> b) & 1) && !((q >> a) & 1))
            m |= 1u << q;
    return m;
}

template <int A, int B> __host__ __device__ __forceinline__ uint32_t swap_index_bits(uint32_t x)
{
    constexpr uint32_t m = swap_mask(A, B);
    constexpr int s = (1 << A) - (1 << B);
    const uint32_t t = ((x >> s) ^ x) & m;
    return x ^ t ^ (t << s);
}

/* Interleaved order p = 4 m + k -> lane order i = 8 k + m (the index's 5 bits rotated
 * right by 2: four index-bit swaps), and back. */
__host__ __device__ __forceinline__ uint32_t to_lanes(uint32_t x)
{
    x = swap_index_bits<3, 0>(x);
    x = swap_index_bits<1, 0>(x);
    x = swap_index_bits<4, 0>(x);
    return swap_index_bits<2, 0>(x);
}

__host__ __device__ __forceinline__ uint32_t to_interleaved(uint32_t x)
{
    x = swap_index_bits<2, 0>(x);
    x = swap_index_bits<4, 0>(x);
    x = swap_index_bits<1, 0>(x);
    return swap_index_bits<3, 0>(x);
}

/* Add one input bit to the bit-sliced counts (at most 6: no overflow of c2). */
__device__ __forceinline__ void count_add(uint32_t &c0, uint32_t &c1, uint32_t &c2, uint32_t x)
{
    const uint32_t k0 = c0 & x;
    c0 ^= x;
    const uint32_t k1 = c1 & k0;
    c1 ^= k0;
    c2 |= k1;
}

template <int ND, bool HEATBATH>
__global__ void __launch_bounds__(CUDA_THREADS)
ising_bitsliced_kernel(const struct bs_params p, uint32_t *own_words, const uint32_t *other,
                       int colour, unsigned long long *changed)
{
    unsigned long long n_changed = 0;
    const int64_t plane = p.ly * p.wpr;
    for (int64_t g = cuda_first_item(); g < p.groups; g += cuda_item_stride()) {
        const int64_t w0 = 4 * g;
        const int nvalid = p.words - w0 < 4 ? (int)(p.words - w0) : 4;
        uint32_t own[4], own_p = 0, nb_p[ND];
#pragma unroll
        for (int d = 0; d < ND; d++)
            nb_p[d] = 0;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            own[k] = 0;
            if (k >= nvalid)
                continue;
            const int64_t wi = w0 + k, r = latmc_div(wi, p.wpr), w = wi - r * p.wpr;
            const int64_t z = ND == 6 ? latmc_div(r, p.ly) : 0, y = r - z * p.ly;
            const int64_t row_start = r * p.wpr;
            own[k] = own_words[wi];
            uint32_t nb[ND];
            nb[0] = other[wi];
            if ((colour + y + z) & 1) /* x + 1: nibble m + 1, the last from the next word */
                nb[1] = __funnelshift_r(nb[0], other[row_start + (w + 1 == p.wpr ? 0 : w + 1)], 4);
            else                      /* x - 1: nibble m - 1, the first from the previous */
                nb[1] = __funnelshift_l(other[row_start + (w == 0 ? p.wpr - 1 : w - 1)], nb[0], 4);
            nb[2] = other[wi + (y + 1 == p.ly ? -(p.ly - 1) : 1) * p.wpr];
            nb[3] = other[wi + (y == 0 ? p.ly - 1 : -1) * p.wpr];
            if (ND == 6) {
                nb[4] = other[wi + (z + 1 == p.lz ? -(p.lz - 1) : 1) * plane];
                nb[5] = other[wi + (z == 0 ? p.lz - 1 : -1) * plane];
            }
            own_p |= own[k] << k;
#pragma unroll
            for (int d = 0; d < ND; d++)
                nb_p[d] |= (nb[d] & 0x11111111u) << k;
        }
        uint32_t c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
        for (int d = 0; d < ND; d++)
            count_add(c0, c1, c2, nb_p[d]);
        const uint32_t o = to_lanes(own_p);
        c0 = to_lanes(c0);
        c1 = to_lanes(c1);
        c2 = to_lanes(c2);
        const uint32_t active = nvalid == 4 ? ~0u : (1u << (8 * nvalid)) - 1u;
        /* the classes' lanes */
        uint32_t code_mask[BS_CODES];
#pragma unroll
        for (int m = 0; m <= ND; m++) {
            const uint32_t eq = (m & 1 ? c0 : ~c0) & (m & 2 ? c1 : ~c1) & (m & 4 ? c2 : ~c2) &
                                active;
            code_mask[m] = ~o & eq;
            code_mask[7 + m] = o & eq;
        }
        uint32_t open_mask[BS_CODES], always = 0, open_all = 0;
#pragma unroll
        for (int c = 0; c < BS_CODES; c++)
            if (c % 7 <= ND)
                always |= code_mask[c] & (0u - ((p.always_codes >> c) & 1u));
#pragma unroll
        for (int q = 0; q < BS_CODES; q++) {
            open_mask[q] = 0;
            if (q < p.n_open) {
#pragma unroll
                for (int c = 0; c < BS_CODES; c++)
                    if (c % 7 <= ND)
                        open_mask[q] |= code_mask[c] & (0u - ((p.open_codes[q] >> c) & 1u));
                open_all |= open_mask[q];
            }
        }
        /* the planes (lib/bitslice_decision.h), four per block, until all are settled */
        struct latmc_bitslice s;
        s.accept = always;
        s.undecided = open_all;
        s.planes = 0;
        for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS && s.undecided; q++) {
            const latmc_philox_ctr u = cuda_philox_named_draws(p.keys, p.names[q], (uint64_t)g);
#pragma unroll
            for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK; l++) {
                const int b = 4 * q + l;
                uint32_t tb = 0;
#pragma unroll
                for (int c = 0; c < BS_CODES; c++)
                    if (c < p.n_open)
                        tb |= open_mask[c] & (0u - ((p.open_t[c] >> (31 - b)) & 1u));
                latmc_bitslice_plane(&s, u.v[l], tb);
            }
        }
        /* Metropolis flips the accepted lanes; heat bath sets -1 where not accepted */
        const uint32_t acc_p = to_interleaved(s.accept);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            if (k >= nvalid)
                continue;
            const uint32_t bits = ((HEATBATH ? ~acc_p : acc_p) >> k) & 0x11111111u;
            const uint32_t w = HEATBATH ? bits : own[k] ^ bits;
            n_changed += (unsigned long long)__popc(w ^ own[k]);
            if (w != own[k])
                own_words[w0 + k] = w;
        }
    }
    cuda_warp_add(changed, n_changed);
}

extern "C" bool cuda_ising_bitsliced_fits(const struct latmc_lattice *g, int couplings)
{
    return (g->ndim == 2 || g->ndim == 3) && g->lx % 16 == 0 &&
           couplings == LATMC_COUPLINGS_UNIFORM;
}

/* The classes of the tables: each code's threshold, codes of equal open thresholds
 * merged into one class. */
static void classes_of(const struct latmc_ising_tables *tables, int algorithm, int nd,
                       struct bs_params *p)
{
    p->n_open = 0;
    p->always_codes = 0;
    for (int own = 0; own < 2; own++)
        for (int m = 0; m <= 2 * nd; m++) {
            const int code = 7 * own + m;
            const uint64_t t = latmc_ising_site_threshold(tables, algorithm,
                                                          own ? (int8_t)-1 : (int8_t)1,
                                                          2 * nd - m);
            if (t >> 32) {
                p->always_codes |= 1u << code;
                continue;
            }
            if (t == 0)
                continue;
            int q = 0;
            while (q < p->n_open && p->open_t[q] != (uint32_t)t)
                q++;
            if (q == p->n_open) {
                p->open_t[q] = (uint32_t)t;
                p->open_codes[q] = 0;
                p->n_open++;
            }
            p->open_codes[q] |= 1u << code;
        }
}

template <int ND, bool HB>
static void launch(cudaStream_t stream, const struct bs_params &p, uint32_t *own,
                   const uint32_t *other, int colour, unsigned long long *changed)
{
    ising_bitsliced_kernel<ND, HB><<<cuda_grid(p.groups), CUDA_THREADS, 0, stream>>>(
        p, own, other, colour, changed);
}

extern "C" cudaError_t cuda_ising_bitsliced_colour(cudaStream_t stream,
                                                   const struct latmc_lattice *g, uint32_t *own,
                                                   const uint32_t *other,
                                                   const struct latmc_ising_tables *tables,
                                                   int algorithm, uint64_t seed,
                                                   const struct latmc_step *step,
                                                   unsigned long long *changed)
{
    struct bs_params p = {};
    p.wpr = g->lx / 16;
    p.ly = g->ly;
    p.lz = g->lz;
    p.words = g->nsites / 16;
    p.groups = (p.words + 3) / 4;
    classes_of(tables, algorithm, g->ndim, &p);
    const struct latmc_ising_plane_names names = latmc_ising_plane_names_step(seed, step);
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS; q++)
        p.names[q] = latmc_ising_plane_name(&names, q);
    p.keys = cuda_philox_round_keys(seed);
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    const int c = step->colour;
    if (g->ndim == 3)
        hb ? launch<6, true>(stream, p, own, other, c, changed)
           : launch<6, false>(stream, p, own, other, c, changed);
    else
        hb ? launch<4, true>(stream, p, own, other, c, changed)
           : launch<4, false>(stream, p, own, other, c, changed);
    return cudaGetLastError();
}
