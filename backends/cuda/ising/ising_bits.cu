/*
 * The kernels of a box that holds the Ising configuration in the 1-bit layout alone
 * (ising_bits.h).
 *
 * The default chain's step: one thread takes one group of 32 sites of the updated colour
 * (one word), or two groups of one row (rows of an even number of groups: 8-byte loads, the
 * walk and index arithmetic shared by 64 sites), and their 2 ndim neighbour words of the
 * other colour (the same word, the word shifted by one bit with the missing bit from the
 * word beside it, the rows y +- 1 and planes z +- 1; +-J: each xor-ed with the group's
 * coupling bits of its direction). A bit-sliced adder counts each lane's neighbours at -1
 * (c0, c1, c2); two rounds of zips (a shift and a bit select each) turn the three count
 * words and the own word into four words of one class a nibble, and a shift and a mask each
 * into eight words of table addresses (byte j of word 2 r + h: 4 x (count + 8 own) of lane
 * 8 j + 4 h + r), 32 operations a group. Lane 8 j + m is nibble m of the packed layout's
 * word 4 g + j (ising_packed.h), so its draw is that nibble's (output m % 4 of Philox block
 * 8 g + 2 j + m / 4) and its decision packed_update_word's (the same threshold table,
 * compare and predicated operation), applied to bit 8 j + m of the group's word itself:
 * the packed kernel's decisions bit for bit by construction, without a transpose of the
 * lanes either way.
 */
#include "ising_bits.h"

#include <latmc/sim.h> /* LATMC_ALGO_* */

#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_bits_walk.cuh"
#include "ising_packed.cuh"

/* The group's arithmetic (the walk and the neighbour words, ising_bits_walk.cuh; the
 * classes): host-callable in the host check (tools/bits-host-check.sh, BITS_FN). */

/* A thread's walk over groups g of a colour (bits_walk, ising_bits_walk.cuh), stepped by
 * the grid's stride decomposed once on the host: no division a group. The walk takes the
 * groups [g0, groups): all of them (g0 = 0, groups N / 64), or whole rows of a box with
 * halos (ising_bits.h, `rows`), whose group g is the lattice's g + name_shift, the number
 * its draws are named by (0 for the whole lattice). */
struct bits_geom {
    int64_t g0, groups;  /* the walk's first group and its end (of one colour) */
    int64_t name_shift;  /* groups (not pairs) from the local to the lattice's numbering */
    int64_t gpr, ly, lz; /* groups a row (L_x / 64), rows, planes */
    /* the grid's threads, and as stride_g + gpr (stride_y + L_y stride_z) */
    int64_t stride, stride_g, stride_y, stride_z;
};

__device__ __forceinline__ bits_walk<> bits_walk_start(const struct bits_geom &p)
{
    return bits_walk_at(p, p.g0 + cuda_first_item());
}

/* The walk over the rows `rows` (NULL: the whole lattice) with a grid of `grid` blocks. */
static struct bits_geom bits_geom_rows(const struct latmc_lattice *g, unsigned grid,
                                       const struct cuda_ising_rows *rows = NULL)
{
    struct bits_geom p;
    p.gpr = g->lx / 64;
    p.ly = g->ly;
    p.lz = g->ndim == 3 ? g->lz : 1;
    p.g0 = rows ? rows->row0 * p.gpr : 0;
    p.groups = rows ? (rows->row0 + rows->nrows) * p.gpr : g->nsites / 64;
    p.name_shift = rows ? rows->row_offset * p.gpr : 0;
    p.stride = (int64_t)grid * CUDA_THREADS;
    bits_walk_stride(p);
    return p;
}

/* Add a neighbour word to the bit-sliced counts (c0, c1, c2: bits of the count of each
 * lane, at most 6). */
BITS_FN void count_in(uint32_t &c0, uint32_t &c1, uint32_t &c2, uint32_t x)
{
    const uint32_t k0 = c0 & x;
    c0 ^= x;
    const uint32_t k1 = c1 & k0;
    c1 ^= k0;
    c2 |= k1;
}

/* Where m is set a's bits, elsewhere b's: one LOP3 (ptxas splits the select of two masked
 * inputs into two when it is written out). */
BITS_FN uint32_t bit_select(uint32_t m, uint32_t a, uint32_t b)
{
#if defined(BITS_HOST_CHECK) && !defined(__CUDA_ARCH__)
    return (a & m) | (b & ~m);
#else
    uint32_t r;
    asm("lop3.b32 %0, %1, %2, %3, 0xe4;" : "=r"(r) : "r"(a), "r"(b), "r"(m));
    return r;
#endif
}

/* x >> s (0 < s < 32) as the high word of x 2^(32 - s): on the multiply pipe (~170
 * instructions a group of 32, Philox's products most), not the logic pipe (~315) that
 * bounds the group. */
BITS_FN uint32_t shr_mul(uint32_t x, int s)
{
#if defined(BITS_HOST_CHECK) && !defined(__CUDA_ARCH__)
    return x >> s;
#else
    uint32_t r;
    asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(1u << (32 - s)));
    return r;
#endif
}

/* Fields of 2 s bits from a and b alternating: where m is set (the low s bits of each
 * field) a's bits, above them b's bits from s lower (zip_lo: a's even fields, b's; zip_hi:
 * a's odd fields, b's) -- one shift and one bit select each. */
BITS_FN uint32_t zip_lo(uint32_t a, uint32_t b, int s, uint32_t m)
{
    return bit_select(m, a, b << s);
}

BITS_FN uint32_t zip_hi(uint32_t a, uint32_t b, int s, uint32_t m)
{
    return bit_select(m, shr_mul(a, s), b);
}

/*
 * The group's classes as table addresses: byte j of adr[2 r + h] holds 4 x (count + 8 own)
 * of lane 8 j + 4 h + r (the packed word 4 g + j's nibble 4 h + r). Two rounds of zips
 * take the four words (c0, c1, c2, own) into four words of one class a nibble (nib[r]
 * nibble m: lane 4 m + r, bits c0 c1 c2 own), whose even and odd nibbles then go to the
 * bytes' bits 2..5: 32 operations, no full transpose (the lanes stay in their bits: the
 * decisions flip bit l of the group's word directly).
 */
BITS_FN void group_addresses(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t own,
                             uint32_t (&adr)[8])
{
    const uint32_t a = zip_lo(c0, c1, 1, 0x55555555u), b = zip_hi(c0, c1, 1, 0x55555555u);
    const uint32_t c = zip_lo(c2, own, 1, 0x55555555u), d = zip_hi(c2, own, 1, 0x55555555u);
    const uint32_t nib[4] = { zip_lo(a, c, 2, 0x33333333u), zip_lo(b, d, 2, 0x33333333u),
                              zip_hi(a, c, 2, 0x33333333u), zip_hi(b, d, 2, 0x33333333u) };
#pragma unroll
    for (int r = 0; r < 4; r++) {
        adr[2 * r] = (nib[r] << 2) & 0x3c3c3c3cu;
        adr[2 * r + 1] = shr_mul(nib[r], 2) & 0x3c3c3c3cu;
    }
}

/* Group k's neighbour words in the other colour (colour: the updated one), +-J (EPS) each
 * xor-ed with the group's coupling bits of its direction (eps: the updated colour's), so
 * that a bit is set where eps_ij s_j = -1. */
template <int ND, bool EPS>
__device__ __forceinline__ void group_neighbours(const struct bits_geom &p,
                                                 const uint32_t *other, const uint32_t *eps,
                                                 const bits_walk<> &k, int colour,
                                                 uint32_t (&nb)[ND])
{
    bits_neighbours<ND>(p, other, k, (int)((colour + k.y + k.z) & 1), nb);
    if constexpr (EPS) {
        const uint32_t *e = eps + (size_t)ND * (size_t)k.g;
#pragma unroll
        for (int d = 0; d < ND; d++)
            nb[d] ^= e[d];
    }
}

/* The neighbour words (bits_neighbours' directions) of the pair k of a walk over pairs
 * (p's gpr and groups halved): nb0 of group 2 k.g, nb1 of group 2 k.g + 1, from 8-byte
 * loads of the pair's words and its rows' y and z neighbours, and the word beside the pair
 * (par 1: x + 1, the next word's lane 0; par 0: x - 1, the previous word's lane 31). */
template <int ND>
BITS_FN void pair_neighbours(const struct bits_geom &p, const uint32_t *other,
                             const bits_walk<> &k, int par, uint32_t (&nb0)[ND],
                             uint32_t (&nb1)[ND])
{
    const int64_t wpr = 2 * p.gpr, w0 = 2 * k.g, rs = w0 - 2 * k.gi;
    const int64_t beside = par ? (2 * k.gi + 2 == wpr ? 0 : 2 * k.gi + 2)
                               : (k.gi == 0 ? wpr - 1 : 2 * k.gi - 1);
    const uint32_t edge = other[rs + beside];
    const uint2 o = *(const uint2 *)(other + w0);
    const uint2 yp = *(const uint2 *)(other + w0 + (k.y + 1 == p.ly ? -(p.ly - 1) : 1) * wpr);
    const uint2 ym = *(const uint2 *)(other + w0 + (k.y == 0 ? p.ly - 1 : -1) * wpr);
    nb0[0] = o.x;
    nb1[0] = o.y;
    nb0[1] = par ? bits_funnel_r(o.x, o.y, 1) : bits_funnel_l(edge, o.x, 1);
    nb1[1] = par ? bits_funnel_r(o.y, edge, 1) : bits_funnel_l(o.x, o.y, 1);
    nb0[2] = yp.x;
    nb1[2] = yp.y;
    nb0[3] = ym.x;
    nb1[3] = ym.y;
    if constexpr (ND == 6) {
        const int64_t plane = p.ly * wpr;
        const uint2 zp = *(const uint2 *)(other + w0 + (k.z + 1 == p.lz ? -(p.lz - 1) : 1) * plane);
        const uint2 zm = *(const uint2 *)(other + w0 + (k.z == 0 ? p.lz - 1 : -1) * plane);
        nb0[4] = zp.x;
        nb1[4] = zp.y;
        nb0[5] = zm.x;
        nb1[5] = zm.y;
    }
}

/* The walk's geometry over pairs of groups (rows of an even number of groups): g0, groups
 * and gpr in pairs, name_shift in groups. */
static struct bits_geom bits_geom_pairs(const struct latmc_lattice *g, unsigned grid,
                                        const struct cuda_ising_rows *rows = NULL)
{
    struct bits_geom p = bits_geom_rows(g, grid, rows);
    p.gpr /= 2;
    p.g0 /= 2;
    p.groups /= 2;
    bits_walk_stride(p);
    return p;
}

/* The threshold of the class whose address is byte j of a (table: the 16 words). */
BITS_FN uint32_t table_at(const unsigned char *table, uint32_t a, int j)
{
#if defined(BITS_HOST_CHECK) && !defined(__CUDA_ARCH__)
    return *(const uint32_t *)(table + ((a >> (8 * j)) & 0xffu));
#else
    return *(const uint32_t *)(table + __byte_perm(a, 0, 0x4440 | j));
#endif
}

/* packed_decide (ising_packed.cuh): Metropolis flips bit where u <= t, heat bath sets it
 * (spin -1) where u >= t. */
template <bool HEATBATH> BITS_FN void bits_decide(uint32_t &w, uint32_t u, uint32_t t, uint32_t bit)
{
#if defined(BITS_HOST_CHECK) && !defined(__CUDA_ARCH__)
    if (HEATBATH ? u >= t : u <= t)
        w = HEATBATH ? w | bit : w ^ bit;
#else
    packed_decide<HEATBATH>(w, u, t, bit);
#endif
}

/*
 * A group's new word from its neighbour words (+-J: xor-ed with its coupling bits) and its
 * own word: the class of lane l = 8 j + 4 h + r is byte j of adr[2 r + h], its draw output r
 * of Philox block block0 + 2 j + h (block0 = 8 g: the packed words 4 g + j, nibble 4 h + r,
 * whose blocks are 8 g + 2 j and + 1), grp the fold's group of those blocks. Each decision is
 * packed_update_word's (the same table, compare and predicated operation), on bit l of the
 * word itself: no transpose back.
 */
template <int ND, bool HEATBATH>
BITS_FN uint32_t group_update(const uint32_t (&nb)[ND], uint32_t own, uint32_t block0,
                              const struct cuda_philox_folded &draws,
                              const struct cuda_philox_group &grp, const unsigned char *table)
{
    uint32_t c0 = 0, c1 = 0, c2 = 0, adr[8];
#pragma unroll
    for (int d = 0; d < ND; d++)
        count_in(c0, c1, c2, nb[d]);
    group_addresses(c0, c1, c2, own, adr);
    uint32_t next = HEATBATH ? 0u : own;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const latmc_philox_ctr u[2] = { cuda_philox_folded_draws(draws, grp, block0 + 2 * j),
                                        cuda_philox_folded_draws(draws, grp, block0 + 2 * j + 1) };
#pragma unroll
        for (int h = 0; h < 2; h++)
#pragma unroll
            for (int r = 0; r < 4; r++)
                bits_decide<HEATBATH>(next, u[h].v[r], table_at(table, adr[2 * r + h], j),
                                      1u << (8 * j + 4 * h + r));
    }
    return next;
}

/* The threshold table in shared memory (16 distinct words: distinct banks). */
__device__ __forceinline__ void table_load(uint32_t (&table)[16],
                                           const struct cuda_ising_packed_thresholds &thr)
{
    if (threadIdx.x == 0) {
#pragma unroll
        for (int i = 0; i < 16; i++)
            table[i] = thr.t[i];
    }
    __syncthreads();
}

/* One group a thread (rows of an odd number of groups). */
template <int ND, bool HEATBATH, bool EPS>
__global__ void __launch_bounds__(CUDA_THREADS)
ising_bits_sweep_kernel(struct bits_geom p, uint32_t *own_words, const uint32_t *other,
                        const uint32_t *own_eps, struct cuda_ising_packed_thresholds thr,
                        struct cuda_philox_folded draws, int colour,
                        unsigned long long *changed)
{
    __shared__ uint32_t table[16];
    table_load(table, thr);
    unsigned long long n_changed = 0;
    for (bits_walk<> k = bits_walk_start(p); k.g < p.groups; bits_walk_next(p, k)) {
        uint32_t nb[ND];
        group_neighbours<ND, EPS>(p, other, own_eps, k, colour, nb);
        const uint32_t own = own_words[k.g];
        /* blocks 8 g .. 8 g + 7 (g the lattice's group): one group of the fold */
        const uint64_t block0 = 8 * (uint64_t)(k.g + p.name_shift);
        const struct cuda_philox_group grp = cuda_philox_group_of(draws, block0);
        const uint32_t next = group_update<ND, HEATBATH>(nb, own, (uint32_t)block0, draws, grp,
                                                         (const unsigned char *)table);
        n_changed += __popc(next ^ own);
        own_words[k.g] = next;
    }
    cuda_warp_add(changed, n_changed);
}

/*
 * Two groups a thread (rows of an even number of groups): p walks pairs (p.gpr, p.groups
 * halved), pair k.g the groups 2 k.g and 2 k.g + 1 of one row, whose own, same-x, y and z
 * neighbour words are 8-byte loads, the word beside the pair one more, their +-J coupling
 * bits 16-byte loads; the walk, the index arithmetic and the fold's group (blocks 16 k.g ..
 * 16 k.g + 15) shared by 64 sites. The same groups, draws and decisions as one a thread.
 */
template <int ND, bool HEATBATH, bool EPS>
__global__ void __launch_bounds__(CUDA_THREADS)
ising_bits_sweep2_kernel(struct bits_geom p, uint32_t *own_words, const uint32_t *other,
                         const uint32_t *own_eps, struct cuda_ising_packed_thresholds thr,
                         struct cuda_philox_folded draws, int colour,
                         unsigned long long *changed)
{
    __shared__ uint32_t table[16];
    table_load(table, thr);
    unsigned long long n_changed = 0;
    for (bits_walk<> k = bits_walk_start(p); k.g < p.groups; bits_walk_next(p, k)) {
        const int64_t w0 = 2 * k.g;
        uint32_t nb0[ND], nb1[ND];
        pair_neighbours<ND>(p, other, k, (int)((colour + k.y + k.z) & 1), nb0, nb1);
        const uint2 own = *(const uint2 *)(own_words + w0);
        if constexpr (EPS) { /* ND words a group: 2 ND from ND / 2 16-byte loads */
            const uint4 *e4 = (const uint4 *)(own_eps + (size_t)ND * (size_t)w0);
            uint32_t e[2 * ND];
#pragma unroll
            for (int i = 0; i < ND / 2; i++) {
                const uint4 v = e4[i];
                e[4 * i] = v.x; e[4 * i + 1] = v.y; e[4 * i + 2] = v.z; e[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int d = 0; d < ND; d++) {
                nb0[d] ^= e[d];
                nb1[d] ^= e[ND + d];
            }
        }
        /* blocks 8 w0 .. 8 w0 + 15 (w0 the lattice's group): one group of the fold */
        const uint64_t block0 = 8 * (uint64_t)(w0 + p.name_shift);
        const struct cuda_philox_group grp = cuda_philox_group_of(draws, block0);
        const uint32_t n0 = group_update<ND, HEATBATH>(nb0, own.x, (uint32_t)block0, draws, grp,
                                                       (const unsigned char *)table);
        const uint32_t n1 = group_update<ND, HEATBATH>(nb1, own.y, (uint32_t)block0 + 8, draws,
                                                       grp, (const unsigned char *)table);
        n_changed += (unsigned long long)(__popc(n0 ^ own.x) + __popc(n1 ^ own.y));
        *(uint2 *)(own_words + w0) = make_uint2(n0, n1);
    }
    cuda_warp_add(changed, n_changed);
}

/* ---- bytes <-> 1-bit words: thread per (row, group of the row), 64 bytes <-> one word of
 * each colour (byte q: x = 64 gi + q, of the colour of parity q & 1, lane q >> 1) ---- */

/* Item k of a launch over the groups of the rows [row0, row0 + nrows): group gi of the
 * row r = row0 + rl = y + L_y z. */
__device__ __forceinline__ void bits_row_item(int64_t k, int64_t row0, int64_t gpr, int64_t ly,
                                              int64_t &rl, int64_t &gi, int64_t &r, int64_t &y,
                                              int64_t &z)
{
    rl = latmc_div(k, gpr);
    gi = k - rl * gpr;
    r = row0 + rl;
    z = latmc_div(r, ly);
    y = r - z * ly;
}

__global__ void ising_bits_pack_kernel(int64_t row0, int64_t nrows, int64_t gpr, int64_t ly,
                                       int64_t words, const int8_t *piece, uint32_t *bits)
{
    const int64_t n = nrows * gpr, lx = 64 * gpr;
    for (int64_t k = cuda_first_item(); k < n; k += cuda_item_stride()) {
        int64_t rl, gi, r, y, z;
        bits_row_item(k, row0, gpr, ly, rl, gi, r, y, z);
        const uint4 *in = (const uint4 *)(piece + rl * lx + 64 * gi);
        uint32_t at_parity[2] = { 0, 0 };
#pragma unroll
        for (int v = 0; v < 4; v++) {
            const uint4 q4 = in[v];
            const uint32_t b[4] = { q4.x, q4.y, q4.z, q4.w };
#pragma unroll
            for (int q = 0; q < 16; q++) {
                const int byte = 16 * v + q; /* spin -1 is 0xff (bit 1 set), +1 is 0x01 */
                const uint32_t minus = (b[q >> 2] >> (8 * (q & 3) + 1)) & 1u;
                at_parity[byte & 1] |= minus << (byte >> 1);
            }
        }
        const int par0 = (int)((y + z) & 1);
        bits[r * gpr + gi] = at_parity[par0];
        bits[words + r * gpr + gi] = at_parity[par0 ^ 1];
    }
}

__global__ void ising_bits_unpack_kernel(int64_t row0, int64_t nrows, int64_t gpr, int64_t ly,
                                         int64_t words, const uint32_t *bits, int8_t *piece)
{
    const int64_t n = nrows * gpr, lx = 64 * gpr;
    for (int64_t k = cuda_first_item(); k < n; k += cuda_item_stride()) {
        int64_t rl, gi, r, y, z;
        bits_row_item(k, row0, gpr, ly, rl, gi, r, y, z);
        const int par0 = (int)((y + z) & 1);
        uint32_t at_parity[2];
        at_parity[par0] = bits[r * gpr + gi];
        at_parity[par0 ^ 1] = bits[words + r * gpr + gi];
        uint4 *out = (uint4 *)(piece + rl * lx + 64 * gi);
#pragma unroll
        for (int v = 0; v < 4; v++) {
            uint32_t b[4] = { 0, 0, 0, 0 };
#pragma unroll
            for (int q = 0; q < 16; q++) {
                const int byte = 16 * v + q;
                const uint32_t minus = (at_parity[byte & 1] >> (byte >> 1)) & 1u;
                b[q >> 2] |= (minus ? 0xffu : 0x01u) << (8 * (q & 3));
            }
            out[v] = make_uint4(b[0], b[1], b[2], b[3]);
        }
    }
}

/* ---- +-J: the coupling bits of rows straight from a window of the couplings' bytes ---- */

/* Where the couplings of a site are (as ising_packed.cu's window): plane (plane0 + k) mod
 * planes in slot k; eps[ndim i + mu] of site i at bytes[ndim (slot L_plane + i mod L_plane)
 * + mu]. */
struct bits_eps_window {
    const int8_t *bytes;
    int64_t plane0, planes, plane_sites;
};

__device__ __forceinline__ int8_t window_eps(const struct bits_eps_window &w, int nd,
                                             int64_t site, int mu)
{
    const int64_t plane = latmc_div(site, w.plane_sites);
    int64_t slot = plane - w.plane0;
    if (slot < 0)
        slot += w.planes;
    return w.bytes[nd * (slot * w.plane_sites + (site - plane * w.plane_sites)) + mu];
}

/* Colour c's coupling bits of rows [row0, row0 + nrows): thread per group g = r gpr + gi,
 * word ND g + d bit i set where the bond of lane i (x = 2 (32 gi + i) + par) in direction d
 * is -1, the directions those of the neighbour words (bits_neighbours; the packed
 * coupling words' order, ising_pack_couplings_kernel), so that these are exactly what
 * cuda_ising_bits_couplings makes from the packed words. */
template <int ND>
__global__ void ising_bits_couplings_rows_kernel(int64_t row0, int64_t nrows,
                                                 struct latmc_lattice g,
                                                 struct bits_eps_window eps, int colour,
                                                 uint32_t *out)
{
    const int64_t gpr = g.lx / 64, n = nrows * gpr, lx = g.lx, plane = g.lx * g.ly;
    for (int64_t k = cuda_first_item(); k < n; k += cuda_item_stride()) {
        int64_t rl, gi, r, y, z;
        bits_row_item(k, row0, gpr, g.ly, rl, gi, r, y, z);
        const int par = (int)((colour + y + z) & 1);
        uint32_t words[ND];
#pragma unroll
        for (int d = 0; d < ND; d++)
            words[d] = 0;
        for (int i = 0; i < 32; i++) {
            const int64_t x = 2 * (32 * gi + i) + par, site = x + lx * r;
            const int64_t xm = site - x + latmc_wrap_down(x, lx);
            const int64_t ym = site + (latmc_wrap_down(y, g.ly) - y) * lx;
            const int8_t plus_x = window_eps(eps, ND / 2, site, 0);
            const int8_t minus_x = window_eps(eps, ND / 2, xm, 0);
            int8_t bond[ND];
            bond[0] = par ? minus_x : plus_x;
            bond[1] = par ? plus_x : minus_x;
            bond[2] = window_eps(eps, ND / 2, site, 1);
            bond[3] = window_eps(eps, ND / 2, ym, 1);
            if constexpr (ND == 6) {
                const int64_t zm = site + (latmc_wrap_down(z, g.lz) - z) * plane;
                bond[4] = window_eps(eps, ND / 2, site, 2);
                bond[5] = window_eps(eps, ND / 2, zm, 2);
            }
#pragma unroll
            for (int d = 0; d < ND; d++)
                words[d] |= (uint32_t)(bond[d] < 0) << i;
        }
        const int64_t grp = r * gpr + gi;
#pragma unroll
        for (int d = 0; d < ND; d++)
            out[(size_t)ND * (size_t)grp + d] = words[d];
    }
}

/* ---- launchers ---- */

/* The sweep's grid: a few resident waves striding over the groups (cuda_wave_grid). */
template <auto Kernel> static unsigned wave_grid(int64_t items)
{
    const unsigned wave = cuda_resident_wave<Kernel>();
    return wave == 0 ? cuda_grid_capped(items) : cuda_wave_grid(items, wave);
}

template <int ND, bool HB, bool EPS>
static void launch_sweep(cudaStream_t stream, const struct latmc_lattice *g,
                         const struct cuda_ising_rows *rows, uint32_t *own,
                         const uint32_t *other, const uint32_t *own_eps,
                         const struct cuda_ising_packed_thresholds *thr,
                         const struct cuda_philox_folded &draws, int colour,
                         unsigned long long *changed)
{
    const int64_t groups = rows ? rows->nrows * (g->lx / 64) : g->nsites / 64;
    if (g->lx % 128 == 0) { /* pairs of groups: the walk's geometry in pairs */
        const unsigned grid = wave_grid<ising_bits_sweep2_kernel<ND, HB, EPS>>(groups / 2);
        ising_bits_sweep2_kernel<ND, HB, EPS><<<grid, CUDA_THREADS, 0, stream>>>(
            bits_geom_pairs(g, grid, rows), own, other, own_eps, *thr, draws, colour, changed);
        return;
    }
    const unsigned grid = wave_grid<ising_bits_sweep_kernel<ND, HB, EPS>>(groups);
    ising_bits_sweep_kernel<ND, HB, EPS><<<grid, CUDA_THREADS, 0, stream>>>(
        bits_geom_rows(g, grid, rows), own, other, own_eps, *thr, draws, colour, changed);
}

template <int ND>
static void launch_sweep_nd(cudaStream_t stream, const struct latmc_lattice *g,
                            const struct cuda_ising_rows *rows, uint32_t *own,
                            const uint32_t *other, const uint32_t *own_eps,
                            const struct cuda_ising_packed_thresholds *thr, bool hb,
                            const struct cuda_philox_folded &draws, int colour,
                            unsigned long long *changed)
{
    if (own_eps) {
        if (hb) launch_sweep<ND, true, true>(stream, g, rows, own, other, own_eps, thr, draws, colour, changed);
        else    launch_sweep<ND, false, true>(stream, g, rows, own, other, own_eps, thr, draws, colour, changed);
    } else {
        if (hb) launch_sweep<ND, true, false>(stream, g, rows, own, other, NULL, thr, draws, colour, changed);
        else    launch_sweep<ND, false, false>(stream, g, rows, own, other, NULL, thr, draws, colour, changed);
    }
}

extern "C" cudaError_t cuda_ising_bits_sweep_colour(
    cudaStream_t stream, const struct latmc_lattice *g, const struct cuda_ising_rows *rows,
    uint32_t *own, const uint32_t *other, const uint32_t *own_eps,
    const struct cuda_ising_packed_thresholds *thr, int algorithm, uint64_t seed,
    struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    if (g->lx % 64 != 0)
        return cudaErrorInvalidValue;
    if (rows && rows->nrows <= 0)
        return cudaSuccess;
    const struct cuda_philox_folded draws = cuda_philox_fold_named(seed, name);
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    if (g->ndim == 3)
        launch_sweep_nd<6>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
    else
        launch_sweep_nd<4>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
    return cudaGetLastError();
}

/* A launch over the groups of the rows [row0, row0 + nrows): the pack or the unpack. */
template <typename In, typename Out>
static cudaError_t launch_rows(void (*kernel)(int64_t, int64_t, int64_t, int64_t, int64_t,
                                              const In *, Out *),
                               cudaStream_t stream, const struct latmc_lattice *g, int64_t row0,
                               int64_t nrows, const In *in, Out *out)
{
    if (nrows <= 0)
        return cudaSuccess;
    const int64_t gpr = g->lx / 64;
    kernel<<<cuda_grid_capped(nrows * gpr), CUDA_THREADS, 0, stream>>>(row0, nrows, gpr, g->ly,
                                                                 g->nsites / 64, in, out);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ising_bits_pack_rows(cudaStream_t stream,
                                                 const struct latmc_lattice *g, int64_t row0,
                                                 int64_t nrows, const int8_t *piece,
                                                 uint32_t *bits)
{
    return launch_rows(ising_bits_pack_kernel, stream, g, row0, nrows, piece, bits);
}

extern "C" cudaError_t cuda_ising_bits_unpack_rows(cudaStream_t stream,
                                                   const struct latmc_lattice *g, int64_t row0,
                                                   int64_t nrows, const uint32_t *bits,
                                                   int8_t *piece)
{
    return launch_rows(ising_bits_unpack_kernel, stream, g, row0, nrows, bits, piece);
}

extern "C" cudaError_t cuda_ising_bits_couplings_planes(cudaStream_t stream,
                                                        const struct latmc_lattice *g,
                                                        int64_t p0, int64_t p1,
                                                        const int8_t *window,
                                                        int64_t window_plane0, uint32_t *bits0,
                                                        uint32_t *bits1)
{
    if (p1 <= p0)
        return cudaSuccess;
    if (g->lx % 64 != 0)
        return cudaErrorInvalidValue;
    const int64_t plane_rows = g->ndim == 3 ? g->ly : 1;
    const int64_t row0 = p0 * plane_rows, nrows = (p1 - p0) * plane_rows;
    struct bits_eps_window w;
    w.bytes = window;
    w.plane0 = window_plane0;
    w.planes = g->ndim == 3 ? g->lz : g->ly;
    w.plane_sites = plane_rows * g->lx;
    const unsigned grid = cuda_grid_capped(nrows * (g->lx / 64));
    for (int c = 0; c < 2; c++) {
        uint32_t *out = c == 0 ? bits0 : bits1;
        if (g->ndim == 3)
            ising_bits_couplings_rows_kernel<6><<<grid, CUDA_THREADS, 0, stream>>>(
                row0, nrows, *g, w, c, out);
        else
            ising_bits_couplings_rows_kernel<4><<<grid, CUDA_THREADS, 0, stream>>>(
                row0, nrows, *g, w, c, out);
    }
    return cudaGetLastError();
}
