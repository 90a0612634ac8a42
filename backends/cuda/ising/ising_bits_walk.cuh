/*
 * The 1-bit layout's walk over the groups of a colour and a group's neighbour words
 * (cuda_ising_bitsliced.h's layout: word g of a colour is group g, bit i lane i, set for a
 * spin -1), written once for the kernels on that layout: the default chain's
 * (ising_bits.cu) and the bit-sliced decisions' (ising_bitsliced.cu).
 *
 * P, the launch's geometry, is either file's parameter struct: any struct with gpr, ly, lz
 * (groups a row, rows, planes) and the grid's stride in groups as stride and its digits
 * stride_g, stride_y, stride_z (groups of a row, rows, planes; decomposed once on the
 * host). The functions read those fields where they lie, so each kernel reads its own
 * parameter bank as it would with a copy of this code.
 *
 * BITS_HOST_CHECK (tools/bits-host-check.sh): host-callable, the intrinsics emulated.
 */
#ifndef LATMC_CUDA_ISING_BITS_WALK_CUH
#define LATMC_CUDA_ISING_BITS_WALK_CUH

#include <stdint.h>

#include "lattice_numbering.h" /* latmc_div */

#ifdef BITS_HOST_CHECK
#define BITS_FN __host__ __device__ __forceinline__
#else
#define BITS_FN __device__ __forceinline__
#endif

/* The high and the low word of (hi:lo) shifted left / right by n (0 < n < 32). */
BITS_FN uint32_t bits_funnel_l(uint32_t lo, uint32_t hi, int n)
{
#if defined(BITS_HOST_CHECK) && !defined(__CUDA_ARCH__)
    return (uint32_t)(((uint64_t)hi << 32 | lo) << n >> 32);
#else
    return __funnelshift_l(lo, hi, n);
#endif
}

BITS_FN uint32_t bits_funnel_r(uint32_t lo, uint32_t hi, int n)
{
#if defined(BITS_HOST_CHECK) && !defined(__CUDA_ARCH__)
    return (uint32_t)(((uint64_t)hi << 32 | lo) >> n);
#else
    return __funnelshift_r(lo, hi, n);
#endif
}

/* Where a thread's group g lies: group gi of row y + L_y z, stepped by the grid's stride
 * without divisions. I: int64_t, or uint32_t where every index of the launch fits 31 bits
 * (half the instructions of the walk's and the neighbours' index arithmetic). */
template <typename I = int64_t> struct bits_walk {
    I g, gi, y, z;
};

/* Host: the grid's stride of p.stride groups as its digits (p.stride_g, p.stride_y,
 * p.stride_z), so that the walk steps without divisions. */
template <typename P> static inline void bits_walk_stride(P &p)
{
    const int64_t rows = p.stride / p.gpr;
    p.stride_g = p.stride - rows * p.gpr;
    p.stride_z = rows / p.ly; /* past the lattice: the walk ends there anyway */
    p.stride_y = rows - p.stride_z * p.ly;
}

template <typename I = int64_t, typename P>
BITS_FN bits_walk<I> bits_walk_at(const P &p, int64_t g)
{
    bits_walk<I> k;
    const int64_t r = latmc_div(g, p.gpr), z = latmc_div(r, p.ly);
    k.g = (I)g;
    k.gi = (I)(g - r * p.gpr);
    k.z = (I)z;
    k.y = (I)(r - z * p.ly);
    return k;
}

template <typename P, typename I> BITS_FN void bits_walk_next(const P &p, bits_walk<I> &k)
{
    k.g += (I)p.stride;
    k.gi += (I)p.stride_g;
    k.y += (I)p.stride_y;
    k.z += (I)p.stride_z;
    if (k.gi >= (I)p.gpr) {
        k.gi -= (I)p.gpr;
        k.y++;
    }
    if (k.y >= (I)p.ly) {
        k.y -= (I)p.ly;
        k.z++;
    }
}

/* The neighbour words of group k (x parity par of the updated colour in its row) in the
 * other colour: nb[0] the same word, nb[1] the other x side (par 1: x + 1, lane i + 1;
 * par 0: x - 1, lane i - 1), nb[2], nb[3] y + 1, y - 1, nb[4], nb[5] z + 1, z - 1 (the
 * packed kernels' direction order, which the coupling bits follow). */
template <int ND, typename P, typename I>
BITS_FN void bits_neighbours(const P &p, const uint32_t *other, const bits_walk<I> &k, int par,
                             uint32_t (&nb)[ND])
{
    const int64_t g = k.g, rs = g - k.gi;
    nb[0] = other[g];
    if (par) /* x + 1: lane i + 1, lane 31's from the next word */
        nb[1] = bits_funnel_r(nb[0], other[rs + (k.gi + 1 == p.gpr ? 0 : k.gi + 1)], 1);
    else     /* x - 1: lane i - 1, lane 0's from the previous word */
        nb[1] = bits_funnel_l(other[rs + (k.gi == 0 ? p.gpr - 1 : k.gi - 1)], nb[0], 1);
    nb[2] = other[g + (k.y + 1 == p.ly ? -(p.ly - 1) : 1) * p.gpr];
    nb[3] = other[g + (k.y == 0 ? p.ly - 1 : -1) * p.gpr];
    if (ND == 6) {
        const int64_t plane = p.ly * p.gpr;
        nb[4] = other[g + (k.z + 1 == p.lz ? -(p.lz - 1) : 1) * plane];
        nb[5] = other[g + (k.z == 0 ? p.lz - 1 : -1) * plane];
    }
}

#endif
