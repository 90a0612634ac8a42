/*
 * The bit-sliced decisions' kernel (cuda_ising_bitsliced.h) on the 1-bit layout and on the
 * packed layout.
 *
 * One thread takes one group of 32 sites of the updated colour (on the 1-bit layout with
 * an even number of words a row, two neighbouring groups; for 2D Metropolis and heat bath
 * at h = 0 the same pair column of a band of rows, ising_bitsliced_march_kernel) and, per
 * neighbour
 * direction, one 32-bit word of the other colour that holds the 32 neighbours in that
 * direction, one per bit:
 * - 1-bit layout: the group is one word in the lane order (bit i: lane i); its neighbours
 *   are the same word of the other colour, that word shifted by one bit (the missing bit
 *   from the next or previous word of the row), and the words of the rows y +- 1 and
 *   planes z +- 1.
 * - packed layout: the group is 4 words of nibbles; each direction's 4 words (as the
 *   packed kernels find them) interleaved, word k shifted left by k, give one word in the
 *   order p = 4 m + k ("interleaved order"), and four delta swaps bring the count bits
 *   into the lane order i = 8 k + m (and the accept mask back).
 * +-J couplings (EPS): each neighbour word is first xor-ed with the group's coupling bits of
 * its direction (set where J = -1), so that a bit means eps_ij s_j = -1 (pair_couplings,
 * group_couplings, packed_couplings); nothing after that depends on the couplings.
 * The neighbour counts are a bit-sliced adder (count bits c0, c1, c2 of 32 sites at once);
 * the lanes' classes (count, and spin where the thresholds depend on it) are ANDs of those
 * masks; classes of equal thresholds are merged on the host, so a plane of thresholds is
 * one AND-OR per open class (2D Metropolis at h = 0: 2; there the classes come from the
 * inputs in ten logic operations, in 3D from two full adders, KEY_RUN; heat bath at h = 0
 * folds the counts m and 2 ndim - m into one class, KEY_SYM: ndim a plane, 2D's from the
 * inputs in nine operations, 3D's from two full adders). Then the planes, four per Philox block
 * (lib/bitslice_decision.h's step; the leading planes that are zero in every open class
 * two at a time, Metropolis at h = 0; KEY_SYM compares planes 0 .. 7 from the bottom, one
 * majority a plane, group_planes_first_sym): blocks 0 and 1 for every group, the groups still
 * undecided queued in their warp's queue in shared memory and finished by the warp's
 * lanes together (doc/models/ising-decisions.md, "The tail"), and the accept mask into
 * the words.
 */
#include "cuda_ising_bitsliced.h"

#include <stdlib.h>
#include <string.h>
#include <type_traits>

#include <latmc/sim.h> /* LATMC_ALGO_*, LATMC_COUPLINGS_* */

#include "bitslice_decision.h"
#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_bits_walk.cuh"
#include "ising_decision_rules.h"

/*
 * What a site's threshold depends on (classes_of, on the host): the count m of neighbours
 * at -1 alone (heat bath: KEY_M), the count of neighbours that differ from the site
 * (Metropolis at h = 0: KEY_DIFF, the inputs of the adder xor-ed with the own spin), or
 * both spin and count (KEY_FULL: code 7 own + m). KEY_RUN: KEY_DIFF where the counts
 * d < KB are each their own open class (class d) and every d >= KB accepts (Metropolis at
 * h = 0 and finite beta: 2D KB = 2, 3D 3), so the classes are the count's equalities, no
 * table: 2D's come from the four inputs in ten logic operations, 3D's (one group of the
 * 1-bit layout) from two full adders of three inputs each (group_classes).
 */
/*
 * KEY_SYM: heat bath at h = 0 (sym_classes, on the host), where the thresholds of the
 * counts m and 2 ndim - m are each other's complement (T_{2 ndim - m} = 2^32 - 1 - T_m, as
 * floor(p 2^32) + floor((1 - p) 2^32) is wherever p 2^32 is not whole) and T_ndim = 2^31:
 * a lane with m > ndim (mask s) compares with the complement of the threshold of m' =
 * 2 ndim - m, so threshold plane b is s ^ OR_{m' < ndim} (lanes of m' & bit b of T_m')
 * (plane 0: ~s, every T_m' >= 2^31; T_ndim's lanes have no bit past plane 0): ndim open
 * classes a plane instead of 2 ndim + 1 (the classes A, B (, C) of m' = 0, 1 (, 2) in
 * open_mask[0 .. KB - 2], s in open_mask[KB - 1]).
 */
enum { KEY_M = 0, KEY_DIFF = 1, KEY_FULL = 2, KEY_RUN = 3, KEY_SYM = 4 };
#define BS_CODES 14

/* FOLD (the pair kernels of Metropolis and heat bath at h = 0, KEY_RUN and KEY_SYM, and the
 * 1-bit layout's kernels of more than 3 classes, where every block of the launch has the
 * same block >> 32, fold_blocks on the host): block q's
 * draws from cuda_philox.cuh's fold of its name, the first two rounds' shared products
 * computed on the host: two wide multiplies a block instead of four, and no counter words
 * to assemble. */
struct bs_fold {
    uint32_t p1_lo_k1, c3_k0;   /* cuda_philox_folded's */
    struct cuda_philox_group g; /* the launch's block >> 32 */
};

struct bs_params {
    int64_t words;         /* packed words of one colour's array (1-bit: 4 per group) */
    int64_t groups;        /* the end of the groups updated (the lattice's: ceil(words / 4)) */
    int64_t g_begin;       /* the first group updated (a range of a box: its first row's) */
    int64_t name_shift;    /* a group's name (lattice_numbering.h) less its local index: a
                              box's local row 0 is the lattice's row name_shift / gpr */
    int64_t wpr, ly, lz;   /* words per row (packed: L_x / 16, 1-bit: L_x / 64), rows, planes */
    /* every group in one row (packed: L_x / 16 a multiple of 4; 1-bit: always): the groups
     * per row, and a grid stride of `stride` groups as (groups, rows, planes) to walk
     * without divisions */
    bool rows4;
    int64_t gpr;
    int64_t stride, stride_g, stride_y, stride_z;
    int n_open;            /* open classes: 0 < T < 2^32 */
    /* all-ones or zero: code c in open class q (member[q][c]), in T = 2^32 (always[c]),
     * and bit 31 - b of class q's threshold (plane[q][b]); zero for q >= n_open */
    uint32_t member[BS_CODES][BS_CODES];
    uint32_t always[BS_CODES];
    uint32_t plane[BS_CODES][LATMC_BITSLICE_PLANES];
    struct latmc_rng_name names[LATMC_ISING_DECISION_BLOCKS]; /* planes 4q .. 4q + 3 */
    struct cuda_philox_keys keys;
    /* (after the tables and keys that every kernel reads: fields added here leave the
     * other kernels' parameter offsets, and so their code, as they were) */
    int zero_planes;       /* the leading planes where every open class's bit is 0 */
    int64_t row0, nrows, bands, rpb; /* the march: its rows, bands and rows a band */
    /* +-J (the kernels' EPS): the updated colour's coupling bits, a bond's bit set where
     * J = -1. 1-bit layout: ND words a group (word ND g + d: bit i the bond of lane i in
     * direction d; cuda_ising_bits_couplings); packed layout: the packed coupling words
     * (ising_packed.h). NULL: uniform couplings. */
    const uint32_t *eps;
    /* FOLD: block q's fold (bs_fold, fold_blocks) */
    struct bs_fold fold[LATMC_ISING_DECISION_BLOCKS];
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

/* The neighbour words of one word wi (row start rs, word w of its row, parity par of the
 * updated colour in the row) into the interleaved inputs nb_p, shifted by k. */
template <int ND>
__device__ __forceinline__ void word_neighbours(const struct bs_params &p, const uint32_t *other,
                                                int64_t wi, int64_t rs, int64_t w, int64_t y,
                                                int64_t z, int par, int k, uint32_t (&nb_p)[ND])
{
    uint32_t nb[ND];
    nb[0] = other[wi];
    if (par) /* x + 1: nibble m + 1, the last from the next word */
        nb[1] = __funnelshift_r(nb[0], other[rs + (w + 1 == p.wpr ? 0 : w + 1)], 4);
    else     /* x - 1: nibble m - 1, the first from the previous */
        nb[1] = __funnelshift_l(other[rs + (w == 0 ? p.wpr - 1 : w - 1)], nb[0], 4);
    nb[2] = other[wi + (y + 1 == p.ly ? -(p.ly - 1) : 1) * p.wpr];
    nb[3] = other[wi + (y == 0 ? p.ly - 1 : -1) * p.wpr];
    if (ND == 6) {
        const int64_t plane = p.ly * p.wpr;
        nb[4] = other[wi + (z + 1 == p.lz ? -(p.lz - 1) : 1) * plane];
        nb[5] = other[wi + (z == 0 ? p.lz - 1 : -1) * plane];
    }
#pragma unroll
    for (int d = 0; d < ND; d++)
        nb_p[d] |= (nb[d] & 0x11111111u) << k;
}

/* The same for the 4 words of a group in one row (L_x / 16 a multiple of 4): vector loads. */
__device__ __forceinline__ uint32_t interleave4(uint4 v)
{
    return (v.x & 0x11111111u) | (v.y & 0x11111111u) << 1 | (v.z & 0x11111111u) << 2 |
           (v.w & 0x11111111u) << 3;
}

template <int ND>
__device__ __forceinline__ void row_neighbours(const struct bs_params &p, const uint32_t *other,
                                               int64_t wi, int64_t rs, int64_t w, int64_t y,
                                               int64_t z, int par, uint32_t (&nb_p)[ND])
{
    const uint4 v = *(const uint4 *)(other + wi);
    nb_p[0] = interleave4(v);
    uint4 s;
    if (par) {
        const uint32_t next = other[rs + (w + 4 == p.wpr ? 0 : w + 4)];
        s = make_uint4(__funnelshift_r(v.x, v.y, 4), __funnelshift_r(v.y, v.z, 4),
                       __funnelshift_r(v.z, v.w, 4), __funnelshift_r(v.w, next, 4));
    } else {
        const uint32_t prev = other[rs + (w == 0 ? p.wpr - 1 : w - 1)];
        s = make_uint4(__funnelshift_l(prev, v.x, 4), __funnelshift_l(v.x, v.y, 4),
                       __funnelshift_l(v.y, v.z, 4), __funnelshift_l(v.z, v.w, 4));
    }
    nb_p[1] = interleave4(s);
    nb_p[2] = interleave4(*(const uint4 *)(other + wi + (y + 1 == p.ly ? -(p.ly - 1) : 1) * p.wpr));
    nb_p[3] = interleave4(*(const uint4 *)(other + wi + (y == 0 ? p.ly - 1 : -1) * p.wpr));
    if (ND == 6) {
        const int64_t plane = p.ly * p.wpr;
        nb_p[4] = interleave4(*(const uint4 *)(other + wi + (z + 1 == p.lz ? -(p.lz - 1) : 1) * plane));
        nb_p[5] = interleave4(*(const uint4 *)(other + wi + (z == 0 ? p.lz - 1 : -1) * plane));
    }
}

/* A group's state between its phases: its words, the lanes' classes and the comparison. */
template <int KB> struct bs_group {
    uint32_t own[4];
    uint32_t open_mask[KB];
    struct latmc_bitslice s;
};

/* Where a thread's group lies when every group lies in one row (p.rows4): bits_walk
 * (ising_bits_walk.cuh, as the packed kernels' walk), int64_t or, where every index of the
 * launch fits 31 bits, uint32_t (SMALL). The 1-bit layout's neighbour words:
 * bits_neighbours there. */

/*
 * +-J: the bond bits of the updated sites XOR-ed into their neighbour words, so that a bit
 * of nb[d] is set where eps_ij s_j = -1 (spin bit XOR bond bit): what the adder counts,
 * and what "differs from the site" means with couplings (own XOR nb XOR bond). Stored at
 * the updated site's end of each bond, in the direction order of the neighbour words, so
 * the bits are aligned with the group: no shifts, one load per direction or fewer.
 */
/* 1-bit layout, the pair of groups g0 (even), g0 + 1: ND words each, 2 ND words from
 * ND / 2 16-byte loads (ND g0 words: a multiple of 8, so 16-byte aligned). */
template <int ND, bool EPS>
__device__ __forceinline__ void pair_couplings(const struct bs_params &p, int64_t g0,
                                               uint32_t (&nb0)[ND], uint32_t (&nb1)[ND])
{
    if constexpr (EPS) {
        const uint4 *e = (const uint4 *)(p.eps + (size_t)ND * (size_t)g0);
        uint32_t w[2 * ND];
#pragma unroll
        for (int i = 0; i < ND / 2; i++) {
            const uint4 v = e[i];
            w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
        }
#pragma unroll
        for (int d = 0; d < ND; d++) {
            nb0[d] ^= w[d];
            nb1[d] ^= w[ND + d];
        }
    }
}

/* 1-bit layout, group g alone: its ND words (2D: one 16-byte load; 3D: 8-byte loads). */
template <int ND, bool EPS>
__device__ __forceinline__ void group_couplings(const struct bs_params &p, int64_t g,
                                                uint32_t (&nb)[ND])
{
    if constexpr (EPS) {
        const uint32_t *e = p.eps + (size_t)ND * (size_t)g;
        if constexpr (ND == 4) {
            const uint4 v = *(const uint4 *)e;
            nb[0] ^= v.x, nb[1] ^= v.y, nb[2] ^= v.z, nb[3] ^= v.w;
        } else {
#pragma unroll
            for (int i = 0; i < ND / 2; i++) {
                const uint2 v = ((const uint2 *)e)[i];
                nb[2 * i] ^= v.x;
                nb[(2 * i + 1) % ND] ^= v.y;
            }
        }
    }
}

/* The packed layout, the group's 4 words w0 .. w0 + 3 in one row: CW packed coupling words
 * a spin word (bit b of nibble m of word q: direction 4 q + b, ising_packed.h), each
 * direction's bits interleaved as the neighbour words are (interleave4 of bit b). */
template <int ND, bool EPS>
__device__ __forceinline__ void packed_couplings(const struct bs_params &p, int64_t w0,
                                                 uint32_t (&nb_p)[ND])
{
    if constexpr (EPS) {
        constexpr int CW = ND == 6 ? 2 : 1;
        const uint4 *e = (const uint4 *)(p.eps + (size_t)CW * (size_t)w0);
        uint32_t w[4 * CW]; /* word k's q-th coupling word at CW k + q */
#pragma unroll
        for (int i = 0; i < CW; i++) {
            const uint4 v = e[i];
            w[4 * i] = v.x, w[4 * i + 1] = v.y, w[4 * i + 2] = v.z, w[4 * i + 3] = v.w;
        }
#pragma unroll
        for (int d = 0; d < ND; d++) {
            const int q = d / 4, b = d % 4;
            nb_p[d] ^= interleave4(make_uint4(w[q] >> b, w[CW + q] >> b, w[2 * CW + q] >> b,
                                              w[3 * CW + q] >> b));
        }
    }
}

/* A group's own word and neighbour words (the lane order, or interleaved: !BITS) into its
 * classes and the comparison's start. */
template <int ND, int KEY, int KB, bool BITS>
__device__ __forceinline__ void group_classes(const struct bs_params &p, uint32_t own_p,
                                              const uint32_t (&nb_p)[ND], int nvalid,
                                              bs_group<KB> &st)
{
    constexpr int NCODES = KEY == KEY_FULL ? BS_CODES : ND + 1;
    const uint32_t active = BITS || nvalid == 4 ? ~0u : (1u << (8 * nvalid)) - 1u;
    st.s.planes = 0;
    if (KEY == KEY_RUN && ND == 4 && KB == 2 && BITS) {
        /* y_d = nb_d ^ own (differs), by pairs: s = y0 ^ y1 = nb0 ^ nb1, c = y0 & y1 */
        const uint32_t s01 = nb_p[0] ^ nb_p[1], s23 = nb_p[2] ^ nb_p[3];
        const uint32_t c01 = (nb_p[0] ^ own_p) & (nb_p[1] ^ own_p);
        const uint32_t c23 = (nb_p[2] ^ own_p) & (nb_p[3] ^ own_p);
        const uint32_t two = c01 | c23 | (s01 & s23);    /* d >= 2 */
        const uint32_t one = (s01 ^ s23) & ~(c01 | c23); /* d = 1 */
        st.s.accept = two;
        st.open_mask[0] = ~(two | one);                   /* d = 0 */
        st.open_mask[KB - 1] = one;
        st.s.undecided = ~two;
        return;
    }
    if (KEY == KEY_RUN && ND == 6 && KB == 3 && BITS) {
        /* 3D at h = 0, classes d = 0, 1, 2 of the count d of y_d = nb_d ^ own: two full
         * adders, y0 + y1 + y2 = sa + 2 ca and y3 + y4 + y5 = sb + 2 cb (a sum of three
         * y's is that of the nb's xor own, and so is their majority: complementing all
         * three inputs complements it), d = sa + sb + 2 (ca + cb) */
        const uint32_t sa = nb_p[0] ^ nb_p[1] ^ nb_p[2] ^ own_p;
        const uint32_t sb = nb_p[3] ^ nb_p[4 % ND] ^ nb_p[5 % ND] ^ own_p;
        const uint32_t ca = ((nb_p[0] & nb_p[1]) | (nb_p[2] & (nb_p[0] ^ nb_p[1]))) ^ own_p;
        const uint32_t cb =
            ((nb_p[3] & nb_p[4 % ND]) | (nb_p[5 % ND] & (nb_p[3] ^ nb_p[4 % ND]))) ^ own_p;
        const uint32_t no_c = ~(ca | cb);
        const uint32_t d0 = ~(sa | sb) & no_c;
        const uint32_t d1 = (sa ^ sb) & no_c;
        const uint32_t d2 = (sa & sb & no_c) | (~(sa | sb) & (ca ^ cb));
        st.open_mask[0] = d0;
        st.open_mask[1] = d1;
        st.open_mask[KB - 1] = d2;
        st.s.undecided = d0 | d1 | d2;
        st.s.accept = ~st.s.undecided;
        return;
    }
    if (KEY == KEY_SYM && ND == 4 && BITS) {
        /* m (neighbours at -1) in {0, 4}: all four equal; {1, 3}: odd; s: m >= 3 */
        const uint32_t x = nb_p[0] ^ nb_p[1], y = nb_p[2] ^ nb_p[3];
        const uint32_t c01 = nb_p[0] & nb_p[1], c23 = nb_p[2] & nb_p[3];
        st.open_mask[0] = ~(x | y | (nb_p[0] ^ nb_p[2]));
        st.open_mask[1] = x ^ y;
        st.open_mask[KB - 1] = (c01 & (c23 | y)) | (c23 & x);
        st.s.accept = 0;
        st.s.undecided = ~0u; /* every lane open (sym_classes) */
        return;
    }
    if (KEY == KEY_SYM && ND == 6 && BITS) {
        /* m = sa + sb + 2 (ca + cb) from two full adders, its bits c0, c1, c2: m' = 0 (m 0
         * or 6: c0 = 0, c1 = c2), 1 (1 or 5: c0 = 1, c1 = 0), 2 (2 or 4: c0 = 0, c1 != c2);
         * s: m >= 4 = c2 */
        const uint32_t sa = nb_p[0] ^ nb_p[1] ^ nb_p[2];
        const uint32_t sb = nb_p[3] ^ nb_p[4 % ND] ^ nb_p[5 % ND];
        const uint32_t ca = (nb_p[0] & nb_p[1]) | (nb_p[2] & (nb_p[0] ^ nb_p[1]));
        const uint32_t cb = (nb_p[3] & nb_p[4 % ND]) | (nb_p[5 % ND] & (nb_p[3] ^ nb_p[4 % ND]));
        const uint32_t k = sa & sb, c0 = sa ^ sb, c1 = ca ^ cb ^ k;
        const uint32_t c2 = (ca & cb) | (k & (ca ^ cb));
        st.open_mask[0] = ~c0 & ~(c1 ^ c2);
        st.open_mask[1] = c0 & ~c1;
        st.open_mask[2 % KB] = ~c0 & (c1 ^ c2);
        st.open_mask[KB - 1] = c2;
        st.s.accept = 0;
        st.s.undecided = ~0u;
        return;
    }
    /* bit-sliced counts of the neighbours at -1 (KEY_DIFF, KEY_RUN: that differ from the
     * site) */
    uint32_t c0 = 0, c1 = 0, c2 = 0;
#pragma unroll
    for (int d = 0; d < ND; d++)
        count_add(c0, c1, c2, KEY == KEY_DIFF || KEY == KEY_RUN ? nb_p[d] ^ own_p : nb_p[d]);
    if (!BITS) {
        c0 = to_lanes(c0);
        c1 = to_lanes(c1);
        c2 = to_lanes(c2);
    }
    if (KEY == KEY_RUN) { /* class d: the count d < KB; the others accept */
        st.s.undecided = 0;
#pragma unroll
        for (int q = 0; q < KB; q++) {
            st.open_mask[q] = (q & 1 ? c0 : ~c0) & (q & 2 ? c1 : ~c1) & (q & 4 ? c2 : ~c2) &
                              active;
            st.s.undecided |= st.open_mask[q];
        }
        st.s.accept = ~st.s.undecided & active;
        return;
    }
    const uint32_t o = KEY != KEY_FULL ? 0u : BITS ? own_p : to_lanes(own_p);
    /* the codes' lanes, then the classes' */
    uint32_t code_mask[NCODES];
#pragma unroll
    for (int c = 0; c < NCODES; c++) {
        const int m = c % 7;
        uint32_t eq = (m & 1 ? c0 : ~c0) & (m & 2 ? c1 : ~c1) & (m & 4 ? c2 : ~c2) & active;
        if (KEY == KEY_FULL)
            eq &= c >= 7 ? o : ~o;
        code_mask[c] = m <= ND ? eq : 0u;
    }
    st.s.accept = 0;
    st.s.undecided = 0;
#pragma unroll
    for (int c = 0; c < NCODES; c++)
        st.s.accept |= code_mask[c] & p.always[c];
#pragma unroll
    for (int q = 0; q < KB; q++) { /* classes q >= p.n_open: no member, no lane */
        st.open_mask[q] = 0;
#pragma unroll
        for (int c = 0; c < NCODES; c++)
            st.open_mask[q] |= code_mask[c] & p.member[q][c];
        st.s.undecided |= st.open_mask[q];
    }
}

/* TWO (the 1-bit layout, an even number of groups a row): the pair of groups g0 (even),
 * g0 + 1 from words already loaded: own the pair's words, c the other colour's pair, side
 * its word beyond the pair in x (the next for par, else the previous), up and dn the rows
 * y +- 1, zu and zd the planes z +- 1 (3D). */
template <int ND, int KEY, int KB, bool EPS>
__device__ __forceinline__ void pair_from_words(const struct bs_params &p, int64_t g0, uint2 ow,
                                                uint2 c, uint32_t side, int par, uint2 up,
                                                uint2 dn, uint2 zu, uint2 zd,
                                                bs_group<KB> &st0, bs_group<KB> &st1)
{
    uint32_t nb0[ND], nb1[ND];
    nb0[0] = c.x;
    nb1[0] = c.y;
    if (par) { /* x + 1: lane i + 1, lane 31's from the next word */
        nb0[1] = __funnelshift_r(c.x, c.y, 1);
        nb1[1] = __funnelshift_r(c.y, side, 1);
    } else { /* x - 1: lane i - 1, lane 0's from the previous word */
        nb0[1] = __funnelshift_l(side, c.x, 1);
        nb1[1] = __funnelshift_l(c.x, c.y, 1);
    }
    nb0[2] = up.x, nb1[2] = up.y, nb0[3] = dn.x, nb1[3] = dn.y;
    if (ND == 6)
        nb0[4 % ND] = zu.x, nb1[4 % ND] = zu.y, nb0[5 % ND] = zd.x, nb1[5 % ND] = zd.y;
    pair_couplings<ND, EPS>(p, g0, nb0, nb1);
    st0.own[0] = ow.x;
    st1.own[0] = ow.y;
    st0.own[1] = st0.own[2] = st0.own[3] = st1.own[1] = st1.own[2] = st1.own[3] = 0;
    group_classes<ND, KEY, KB, true>(p, ow.x, nb0, 4, st0);
    group_classes<ND, KEY, KB, true>(p, ow.y, nb1, 4, st1);
}

/* The same loading its words: pair k.g of a row is the groups 2 k.g and 2 k.g + 1 (k.gi: the
 * pair's index in its row), one 64-bit load per direction and one word beyond the pair. */
template <int ND, int KEY, int KB, bool EPS, typename I>
__device__ __forceinline__ void pair_start(const struct bs_params &p, const uint32_t *own_words,
                                           const uint32_t *other, int colour,
                                           const bits_walk<I> &k, bs_group<KB> &st0,
                                           bs_group<KB> &st1)
{
    /* unsigned I: modular arithmetic, the sums below are the indices */
    const I g0 = 2 * k.g, w0 = 2 * k.gi, rs = g0 - w0, wpr = (I)p.wpr, ly = (I)p.ly;
    const int par = (int)((colour + k.y + k.z) & 1);
    const uint2 ow = *(const uint2 *)(own_words + g0);
    const uint2 c = *(const uint2 *)(other + g0);
    const uint32_t side = par ? other[rs + (w0 + 2 == wpr ? 0 : w0 + 2)]
                              : other[rs + (w0 == 0 ? wpr - 1 : w0 - 1)];
    const I up_i = k.y + 1 == ly ? g0 - (ly - 1) * wpr : g0 + wpr;
    const I dn_i = k.y == 0 ? g0 + (ly - 1) * wpr : g0 - wpr;
    const uint2 up = *(const uint2 *)(other + up_i);
    const uint2 dn = *(const uint2 *)(other + dn_i);
    uint2 zu = make_uint2(0, 0), zd = make_uint2(0, 0);
    if (ND == 6) {
        const I plane = ly * wpr, lz = (I)p.lz;
        const I zu_i = k.z + 1 == lz ? g0 - (lz - 1) * plane : g0 + plane;
        const I zd_i = k.z == 0 ? g0 + (lz - 1) * plane : g0 - plane;
        zu = *(const uint2 *)(other + zu_i);
        zd = *(const uint2 *)(other + zd_i);
    }
    pair_from_words<ND, KEY, KB, EPS>(p, (int64_t)g0, ow, c, side, par, up, dn, zu, zd, st0,
                                      st1);
}

/* Group g's words and neighbours into its classes and the comparison's start: the packed
 * layout's 4 words (BITS false) or the 1-bit layout's word (BITS, own[0]). */
template <int ND, int KEY, int KB, bool BITS, bool EPS>
__device__ __forceinline__ void group_start(const struct bs_params &p, const uint32_t *own_words,
                                            const uint32_t *other, int colour,
                                            const bits_walk<> &k, int nvalid,
                                            bs_group<KB> &st)
{
    const int64_t g = k.g, w0 = 4 * g;
    uint32_t own_p = 0, nb_p[ND];
#pragma unroll
    for (int d = 0; d < ND; d++)
        nb_p[d] = 0;
    if (BITS) { /* lane order already: no interleaving, no swaps */
        st.own[0] = own_words[g];
        st.own[1] = st.own[2] = st.own[3] = 0;
        own_p = st.own[0];
        bits_neighbours<ND>(p, other, k, (int)((colour + k.y + k.z) & 1), nb_p);
        group_couplings<ND, EPS>(p, g, nb_p);
    } else if (p.rows4) { /* the group's 4 words in one row */
        const int64_t w = 4 * k.gi, y = k.y, z = k.z;
        const uint4 v = *(const uint4 *)(own_words + w0);
        st.own[0] = v.x; st.own[1] = v.y; st.own[2] = v.z; st.own[3] = v.w;
        own_p = interleave4(v);
        row_neighbours<ND>(p, other, w0, w0 - w, w, y, z, (int)((colour + y + z) & 1), nb_p);
        packed_couplings<ND, EPS>(p, w0, nb_p);
    } else { /* (never +-J: the host takes those where every group lies in one row) */
        /* the first word's row r, its word w, y and z; then stepped word by word */
        int64_t r = latmc_div(w0, p.wpr), w = w0 - r * p.wpr;
        int64_t z = ND == 6 ? latmc_div(r, p.ly) : 0, y = r - z * p.ly;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            st.own[k] = 0;
            if (k >= nvalid)
                continue;
            if (k > 0 && ++w == p.wpr) { /* the next row */
                w = 0;
                r++;
                if (++y == p.ly) {
                    y = 0;
                    z++;
                }
            }
            st.own[k] = own_words[w0 + k];
            own_p |= st.own[k] << k;
            word_neighbours<ND>(p, other, w0 + k, r * p.wpr, w, y, z,
                                (int)((colour + y + z) & 1), k, nb_p);
        }
    }
    group_classes<ND, KEY, KB, BITS>(p, own_p, nb_p, nvalid, st);
}

/* Planes 4q .. 4q + 3 of group g (named g + name_shift); FOLD: the same draws from block
 * q's fold (bs_fold: only the block's low 32 bits vary), its words read at index q + z (z:
 * zero, queue_finish's opaque zero). */
template <bool FOLD = false>
__device__ __forceinline__ latmc_philox_ctr group_block(const struct bs_params &p, int64_t g,
                                                        int q, int z = 0)
{
    if constexpr (FOLD) {
        struct cuda_philox_folded f;
        f.keys = p.keys;
        f.c1_high = f.p1_hi_k0 = 0; /* (group_of's words: on the host) */
        f.p1_lo_k1 = p.fold[q + z].p1_lo_k1;
        f.c3_k0 = p.fold[q + z].c3_k0;
        return cuda_philox_folded_draws(f, p.fold[q + z].g, (uint32_t)(g + p.name_shift));
    }
    return cuda_philox_named_draws(p.keys, p.names[q], (uint64_t)(g + p.name_shift));
}

/* Plane b of the lanes' thresholds from their classes: one AND-OR per open class (zero
 * beyond p.n_open), or KEY_SYM's s ^ (A & T_0's bit) ^ (B & T_1's bit) ...; the table read
 * at b + z (z: zero, queue_finish's opaque zero). */
template <int KEY, int KB>
__device__ __forceinline__ uint32_t threshold_plane(const struct bs_params &p,
                                                    const uint32_t (&mask)[KB], int b, int z = 0)
{
    uint32_t tb = 0;
    if constexpr (KEY == KEY_SYM) {
        tb = ~mask[KB - 1];
        if (b > 0) {
            tb = mask[KB - 1];
#pragma unroll
            for (int c = 0; c < KB - 1; c++)
                tb ^= mask[c] & p.plane[c][b + z];
        }
    } else {
#pragma unroll
        for (int c = 0; c < KB; c++)
            tb |= mask[c] & p.plane[c][b + z];
    }
    return tb;
}

/* The planes of blocks [Q0, Q1) (lib/bitslice_decision.h), four per block, while a lane of
 * the group is undecided. */
template <int KB, int Q0, int Q1, int KEY = KEY_M, bool FOLD = false>
__device__ __forceinline__ void group_planes(const struct bs_params &p, int64_t g,
                                             bs_group<KB> &st, int z = 0)
{
#pragma unroll
    for (int q = Q0; q < Q1; q++) {
        if (!st.s.undecided)
            break;
        const latmc_philox_ctr u = group_block<FOLD>(p, g, q, z);
#pragma unroll
        for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK; l++)
        {
            uint32_t tb = 0;
            if constexpr (KEY == KEY_SYM) {
                tb = threshold_plane<KEY, KB>(p, st.open_mask, 4 * q + l, z);
            } else {
#pragma unroll
                for (int c = 0; c < KB; c++) /* zero beyond p.n_open */
                    tb |= st.open_mask[c] & p.plane[c][4 * q + l + z];
            }
            latmc_bitslice_plane(&st.s, u.v[l], tb);
        }
    }
}

/* Planes 0 .. 7 (blocks 0 and 1), the two blocks drawn together whatever the group needs:
 * two independent chains of Philox rounds side by side (a warp almost always needs both),
 * and planes past the last undecided lane change nothing. */
/* KEY_SYM (every lane open): the 8 planes compared from the bottom, u's top byte less than
 * T's iff at plane b (7 .. 0) T's bit is 1 and u's 0, or they are equal and the planes
 * below say less: the majority of (t, ~w, less), one operation a plane instead of two;
 * the lanes equal on all 8 stay undecided. The same state as 8 steps from the top: a lane
 * accepted iff its first differing plane has T's bit 1. */
template <int KB>
__device__ __forceinline__ void group_planes_first_sym(const struct bs_params &p,
                                                       const latmc_philox_ctr &u0,
                                                       const latmc_philox_ctr &u1,
                                                       bs_group<KB> &st)
{
    uint32_t less = 0, equal = ~0u;
#pragma unroll
    for (int b = 2 * LATMC_ISING_PLANES_PER_BLOCK - 1; b >= 0; b--) {
        const uint32_t w = b < 4 ? u0.v[b] : u1.v[b - 4];
        const uint32_t t = threshold_plane<KEY_SYM, KB>(p, st.open_mask, b);
        less = (t & ~w) | ((t | ~w) & less);
        equal &= ~(w ^ t);
    }
    st.s.accept |= st.s.undecided & less;
    st.s.undecided &= equal;
    st.s.planes = 2 * LATMC_ISING_PLANES_PER_BLOCK;
}

template <int KB, int ZP = 0, int KEY = KEY_M, bool FOLD = false>
__device__ __forceinline__ void group_planes_first(const struct bs_params &p, int64_t g,
                                                   bs_group<KB> &st)
{
    const latmc_philox_ctr u0 = group_block<FOLD>(p, g, 0);
    const latmc_philox_ctr u1 = group_block<FOLD>(p, g, 1);
    if constexpr (KEY == KEY_SYM) {
        group_planes_first_sym<KB>(p, u0, u1, st);
    } else {
        /* planes b < ZP: every open class's threshold bit is 0 (p.zero_planes >= ZP), so
         * no lane is accepted there and a lane stays undecided iff its bit is 0: two
         * planes an operation */
#pragma unroll
        for (int b = 0; b < ZP; b += 2) {
            const uint32_t w0 = b < 4 ? u0.v[b] : u1.v[b - 4];
            const uint32_t w1 = b + 1 >= ZP ? 0u : b + 1 < 4 ? u0.v[b + 1] : u1.v[b - 3];
            st.s.undecided &= ~(w0 | w1);
        }
#pragma unroll
        for (int b = ZP; b < 2 * LATMC_ISING_PLANES_PER_BLOCK; b++) {
            uint32_t tb = 0;
#pragma unroll
            for (int c = 0; c < KB; c++) /* zero beyond p.n_open */
                tb |= st.open_mask[c] & p.plane[c][b];
            latmc_bitslice_plane(&st.s, b < 4 ? u0.v[b] : u1.v[b - 4], tb);
        }
    }
}

/* The group's decisions into its words: Metropolis flips the accepted lanes, heat bath sets
 * -1 where not accepted; the spins changed. */
template <bool HEATBATH, bool BITS>
__device__ __forceinline__ unsigned long long group_write(uint32_t *own_words, bool rows4,
                                                          int64_t g, int nvalid,
                                                          const uint32_t (&own)[4],
                                                          uint32_t accept)
{
    if (BITS) {
        const uint32_t nw = HEATBATH ? ~accept : own[0] ^ accept;
        own_words[g] = nw;
        return (unsigned long long)__popc(nw ^ own[0]);
    }
    const uint32_t acc_p = to_interleaved(accept);
    uint32_t nw[4];
    unsigned long long n = 0;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        const uint32_t bits = ((HEATBATH ? ~acc_p : acc_p) >> k) & 0x11111111u;
        nw[k] = HEATBATH ? bits : own[k] ^ bits;
        if (k < nvalid)
            n += (unsigned long long)__popc(nw[k] ^ own[k]);
    }
    if (rows4) {
        *(uint4 *)(own_words + 4 * g) = make_uint4(nw[0], nw[1], nw[2], nw[3]);
    } else {
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (k < nvalid && nw[k] != own[k])
                own_words[4 * g + k] = nw[k];
    }
    return n;
}

/* Blocks per SM the kernel is compiled for (registers: 65536 / (256 x blocks)): 4 (64
 * registers: the two-group kernels of at most 3 classes and the one-group kernels of at most
 * 2 (2D) or 3 (3D) fit without spilling; 48 spilled with the warps' queues), 3D's 14
 * classes 3. Left to the compiler they take 77 to 92 registers, and heat bath runs 13 %
 * slower. */
#define BS_MIN_BLOCKS(nd, kb) ((nd) == 6 && (kb) > 7 ? 3 : 4)

/*
 * A block takes tiles of CUDA_THREADS consecutive groups (TWO: pairs of groups), one per
 * thread (grid-stride over tiles). Each thread draws its group's first two blocks (planes
 * 0 .. 7, all a group needs with probability about 0.88) and writes it; the groups still
 * undecided go to its warp's queue in shared memory (32 entries), which the warp empties
 * with all its lanes when the next groups would not fit, and once at the end: a warp does
 * not wait for its slowest group's planes 8 and beyond, and no barrier stops the block
 * (doc/models/ising-decisions.md, "The tail").
 */
template <int KB> struct bs_queue {
    int64_t group[32];
    uint32_t accept[32], undecided[32];
    uint32_t own[4][32], mask[KB][32];
};

/* Entry `slot` of the queue: its remaining planes, and the words written. */
template <int KB, bool HEATBATH, bool BITS, bool F23 = false, int KEY = KEY_M,
          bool FOLD = false>
__device__ __forceinline__ unsigned long long queue_finish(const struct bs_params &p,
                                                           uint32_t *own_words, bool rows4,
                                                           const bs_queue<KB> &q, int slot)
{
    const int64_t qg = q.group[slot];
    const int nvalid = p.words - 4 * qg < 4 ? (int)(p.words - 4 * qg) : 4;
    bs_group<KB> st;
    st.s.accept = q.accept[slot];
    st.s.undecided = q.undecided[slot];
    st.s.planes = 8;
#pragma unroll
    for (int k = 0; k < 4; k++)
        st.own[k] = BITS && k > 0 ? 0u : q.own[k][slot];
#pragma unroll
    for (int c = 0; c < KB; c++)
        st.open_mask[c] = q.mask[c][slot];
    /* FOLD: the tables and fold words indexed by a zero that the compiler cannot know
     * (qg < 2^62), so that they are loaded here, where a flush needs them, and not hoisted
     * into uniform registers reloaded on every row of the kernel's loop */
    const int z = FOLD ? (int)(qg >> 62) : 0;
    if (F23) { /* blocks 2 and 3 side by side: a warp's 32 queued groups almost always
                  need block 3 in one of them */
        const latmc_philox_ctr u2 = group_block<FOLD>(p, qg, 2, z);
        const latmc_philox_ctr u3 = group_block<FOLD>(p, qg, 3, z);
#pragma unroll
        for (int b = 8; b < 16; b++) {
            uint32_t tb = 0;
            if constexpr (KEY == KEY_SYM) {
                tb = threshold_plane<KEY, KB>(p, st.open_mask, b, z);
            } else {
#pragma unroll
                for (int c = 0; c < KB; c++)
                    tb |= st.open_mask[c] & p.plane[c][b + z];
            }
            latmc_bitslice_plane(&st.s, b < 12 ? u2.v[b - 8] : u3.v[b - 12], tb);
        }
        group_planes<KB, 4, LATMC_ISING_DECISION_BLOCKS, KEY, FOLD>(p, qg, st, z);
    } else {
        group_planes<KB, 2, LATMC_ISING_DECISION_BLOCKS, KEY, FOLD>(p, qg, st, z);
    }
    return group_write<HEATBATH, BITS>(own_words, rows4, qg, nvalid, st.own, st.s.accept);
}

/* The warp's groups whose lanes are `queued` into its queue (of n entries, the same in
 * every lane), the queue emptied by the warp first where they would not fit. */
template <int KB, bool HEATBATH, bool BITS, bool F23 = false, typename C = unsigned long long,
          int KEY = KEY_M, bool FOLD = false>
__device__ __forceinline__ void queue_put(const struct bs_params &p, uint32_t *own_words,
                                          bool rows4, bs_queue<KB> &q, int &n, int lane,
                                          bool queued, int64_t g, const bs_group<KB> &st,
                                          C &n_changed)
{
    const unsigned ballot = __ballot_sync(0xffffffffu, queued);
    const int add = __popc(ballot);
    if (n + add > 32) {
        __syncwarp();
        if (lane < n)
            n_changed += (C)queue_finish<KB, HEATBATH, BITS, F23, KEY, FOLD>(p, own_words,
                                                                             rows4, q, lane);
        n = 0;
        __syncwarp();
    }
    if (queued) {
        const int slot = n + __popc(ballot & ((1u << lane) - 1u));
        q.group[slot] = g;
        q.accept[slot] = st.s.accept;
        q.undecided[slot] = st.s.undecided;
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (!BITS || j == 0)
                q.own[j][slot] = st.own[j];
#pragma unroll
        for (int c = 0; c < KB; c++)
            q.mask[c][slot] = st.open_mask[c];
    }
    n += add;
}

/* A word's new value from its decisions: Metropolis flips the accepted lanes, heat bath sets
 * -1 where not accepted. */
template <bool HEATBATH>
__device__ __forceinline__ uint32_t decided_word(uint32_t own, uint32_t accept)
{
    return HEATBATH ? ~accept : own ^ accept;
}

/* ND neighbours, KEY what the thresholds depend on, KB the most open classes (p.n_open <=
 * KB), TWO (1-bit layout, an even number of words a row, KB <= 3) two groups per thread:
 * their words by 64-bit loads, four independent chains of Philox rounds side by side. */
/* F23: the flush draws blocks 2 and 3 side by side (queue_finish); ZP: planes 0 .. ZP - 1
 * are zero in every open class (p.zero_planes >= ZP; group_planes_first); FOLD: the blocks
 * from their names' fold (bs_fold; KEY_RUN and KEY_SYM pairs, the 1-bit layout's kernels of
 * more than 3 classes). */
template <int ND, int KEY, int KB, bool HEATBATH, bool EPS, bool BITS, bool TWO, bool SMALL,
          bool F23 = false, int ZP = 0, bool FOLD = false>
__global__ void __launch_bounds__(CUDA_THREADS, BS_MIN_BLOCKS(ND, KB))
ising_bitsliced_kernel(const struct bs_params p, uint32_t *own_words, const uint32_t *other,
                       int colour, unsigned long long *changed)
{
    using I = std::conditional_t<SMALL, uint32_t, int64_t>;
    __shared__ bs_queue<KB> queues[CUDA_THREADS / 32];
    const int lane = (int)(threadIdx.x & 31u);
    bs_queue<KB> &q = queues[threadIdx.x >> 5];
    int q_n = 0;
    unsigned long long n_changed = 0;
    const bool rows4 = p.rows4;
    const int64_t first = p.g_begin + (int64_t)blockIdx.x * CUDA_THREADS;
    bits_walk<I> k = {};
    if (rows4)
        k = bits_walk_at<I>(p, first + threadIdx.x);
    for (I base = (I)first; base < (I)p.groups; base += (I)p.stride) {
        if (!rows4)
            k.g = base + (I)threadIdx.x;
        else if (base != (I)first)
            bits_walk_next(p, k);
        if constexpr (TWO) { /* pair k.g: groups 2 k.g and 2 k.g + 1 */
            const int64_t g0 = 2 * (int64_t)k.g;
            const bool in = k.g < (I)p.groups;
            bs_group<KB> st0, st1;
            bool q0 = false, q1 = false;
            if (in) {
                pair_start<ND, KEY, KB, EPS>(p, own_words, other, colour, k, st0, st1);
                group_planes_first<KB, ZP, KEY, FOLD>(p, g0, st0);
                group_planes_first<KB, ZP, KEY, FOLD>(p, g0 + 1, st1);
                q0 = st0.s.undecided != 0;
                q1 = st1.s.undecided != 0;
            }
            queue_put<KB, HEATBATH, true, F23, unsigned long long, KEY, FOLD>(
                p, own_words, rows4, q, q_n, lane, q0, g0, st0, n_changed);
            queue_put<KB, HEATBATH, true, F23, unsigned long long, KEY, FOLD>(
                p, own_words, rows4, q, q_n, lane, q1, g0 + 1, st1, n_changed);
            if (in && !q0 && !q1) {
                const uint32_t n0 = decided_word<HEATBATH>(st0.own[0], st0.s.accept);
                const uint32_t n1 = decided_word<HEATBATH>(st1.own[0], st1.s.accept);
                *(uint2 *)(own_words + 2 * k.g) = make_uint2(n0, n1);
                n_changed += (unsigned long long)(__popc(n0 ^ st0.own[0]) +
                                                  __popc(n1 ^ st1.own[0]));
            } else if (in) {
                if (!q0)
                    n_changed += group_write<HEATBATH, true>(own_words, rows4, g0, 4, st0.own,
                                                             st0.s.accept);
                if (!q1)
                    n_changed += group_write<HEATBATH, true>(own_words, rows4, g0 + 1, 4,
                                                             st1.own, st1.s.accept);
            }
        } else {
            const int64_t g = k.g;
            bool queued = false;
            bs_group<KB> st;
            int nvalid = 4;
            if (g < p.groups) {
                nvalid = p.words - 4 * g < 4 ? (int)(p.words - 4 * g) : 4;
                group_start<ND, KEY, KB, BITS, EPS>(p, own_words, other, colour, k, nvalid, st);
                group_planes_first<KB, 0, KEY, FOLD>(p, g, st);
                queued = st.s.undecided != 0;
            }
            queue_put<KB, HEATBATH, BITS, false, unsigned long long, KEY, FOLD>(
                p, own_words, rows4, q, q_n, lane, queued, g, st, n_changed);
            if (!queued && g < p.groups)
                n_changed += group_write<HEATBATH, BITS>(own_words, rows4, g, nvalid, st.own,
                                                         st.s.accept);
        }
    }
    __syncwarp();
    if (lane < q_n)
        n_changed += queue_finish<KB, HEATBATH, BITS, F23, KEY, FOLD>(p, own_words, rows4, q,
                                                                      lane);
    cuda_warp_add(changed, n_changed);
}

/*
 * The march (1-bit layout, an even number of words a row, indices in 31 bits): thread t
 * takes the pair column c = t mod P (P pairs a row) of a band of p.rpb consecutive rows
 * (band t / P) and walks down its rows: the other colour's rows y and y + 1 of one row are
 * the rows y - 1 and y of the next, kept in registers, so a row loads its own pair, the
 * row y + 1, the word beside the pair and the planes z +- 1 (3D). Rows p.row0 ..
 * p.row0 + p.nrows - 1 of the box (local), the bands' rows consecutive; the queue as in
 * ising_bitsliced_kernel (every lane runs p.rpb rows, idle where its band has ended).
 * FOLD (Metropolis and heat bath at h = 0): the blocks from their names' fold (bs_fold).
 */
template <int ND, int KEY, int KB, bool HEATBATH, bool EPS, int ZP, bool FOLD = false>
__global__ void __launch_bounds__(CUDA_THREADS, BS_MIN_BLOCKS(ND, KB))
ising_bitsliced_march_kernel(const struct bs_params p, uint32_t *own_words,
                             const uint32_t *other, int colour, unsigned long long *changed)
{
    constexpr bool F23 = true;
    __shared__ bs_queue<KB> queues[CUDA_THREADS / 32];
    const int lane = (int)(threadIdx.x & 31u);
    bs_queue<KB> &q = queues[threadIdx.x >> 5];
    int q_n = 0;
    /* at most 64 a row; a band has at most 2^20 + 1 rows (< 2^28 pairs over >= 256 threads) */
    uint32_t n_changed = 0;
    const uint32_t P = (uint32_t)p.gpr, wpr = 2 * P, ly = (uint32_t)p.ly, lz = (uint32_t)p.lz;
    const uint32_t t = blockIdx.x * CUDA_THREADS + threadIdx.x;
    const uint32_t band = t / P, c = t - band * P;
    const uint32_t rpb = (uint32_t)p.rpb;
    /* local rows of the band: [r, r_end) */
    uint32_t r = (uint32_t)p.row0 + band * rpb;
    const uint32_t r_last = (uint32_t)(p.row0 + p.nrows);
    const uint32_t r_end = band < (uint32_t)p.bands ? (r + rpb < r_last ? r + rpb : r_last) : r;
    uint32_t z = r / ly, y = r - z * ly;
    uint2 cen = make_uint2(0, 0), up = make_uint2(0, 0);
    bool fresh = true; /* a band's first row: nothing kept */
    for (uint32_t i = 0; i < rpb; i++, r++) {
        const bool in = r < r_end;
        const uint32_t g0 = r * wpr + 2 * c, rs = r * wpr;
        const int par = (int)((colour + y + z) & 1);
        bs_group<KB> st0, st1;
        bool q0 = false, q1 = false;
        if (in) {
            const uint32_t up_i = y + 1 == ly ? g0 - (ly - 1) * wpr : g0 + wpr;
            uint2 dn;
            if (fresh || y == 0) { /* a band's or a plane's first row */
                const uint32_t dn_i = y == 0 ? g0 + (ly - 1) * wpr : g0 - wpr;
                cen = *(const uint2 *)(other + g0);
                dn = *(const uint2 *)(other + dn_i);
            } else {
                dn = cen;
                cen = up;
            }
            up = *(const uint2 *)(other + up_i);
            fresh = false;
            const uint2 ow = *(const uint2 *)(own_words + g0);
            const uint32_t side = par ? other[rs + (2 * c + 2 == wpr ? 0 : 2 * c + 2)]
                                      : other[rs + (c == 0 ? wpr - 1 : 2 * c - 1)];
            uint2 zu = make_uint2(0, 0), zd = make_uint2(0, 0);
            if (ND == 6) {
                const uint32_t plane = ly * wpr;
                const uint32_t zu_i = z + 1 == lz ? g0 - (lz - 1) * plane : g0 + plane;
                const uint32_t zd_i = z == 0 ? g0 + (lz - 1) * plane : g0 - plane;
                zu = *(const uint2 *)(other + zu_i);
                zd = *(const uint2 *)(other + zd_i);
            }
            pair_from_words<ND, KEY, KB, EPS>(p, g0, ow, cen, side, par, up, dn, zu, zd, st0, st1);
            group_planes_first<KB, ZP, KEY, FOLD>(p, g0, st0);
            group_planes_first<KB, ZP, KEY, FOLD>(p, g0 + 1, st1);
            q0 = st0.s.undecided != 0;
            q1 = st1.s.undecided != 0;
        }
        queue_put<KB, HEATBATH, true, F23, uint32_t, KEY, FOLD>(p, own_words, true, q, q_n, lane,
                                                                q0, g0, st0, n_changed);
        queue_put<KB, HEATBATH, true, F23, uint32_t, KEY, FOLD>(p, own_words, true, q, q_n, lane,
                                                                q1, g0 + 1, st1, n_changed);
        if (in && !q0 && !q1) {
            const uint32_t n0 = decided_word<HEATBATH>(st0.own[0], st0.s.accept);
            const uint32_t n1 = decided_word<HEATBATH>(st1.own[0], st1.s.accept);
            *(uint2 *)(own_words + g0) = make_uint2(n0, n1);
            n_changed += (uint32_t)(__popc(n0 ^ st0.own[0]) + __popc(n1 ^ st1.own[0]));
        } else if (in) {
            if (!q0)
                n_changed += (uint32_t)group_write<HEATBATH, true>(own_words, true, g0, 4,
                                                                   st0.own, st0.s.accept);
            if (!q1)
                n_changed += (uint32_t)group_write<HEATBATH, true>(own_words, true, g0 + 1, 4,
                                                                   st1.own, st1.s.accept);
        }
        if (++y == ly) {
            y = 0;
            z++;
        }
    }
    __syncwarp();
    if (lane < q_n)
        n_changed += (uint32_t)queue_finish<KB, HEATBATH, true, F23, KEY, FOLD>(p, own_words,
                                                                                true, q, lane);
    cuda_warp_add(changed, (unsigned long long)n_changed);
}

extern "C" bool cuda_ising_bitsliced_fits(const struct latmc_lattice *g, int couplings)
{
    if (g->ndim != 2 && g->ndim != 3)
        return false;
    if (couplings == LATMC_COUPLINGS_BIMODAL) /* the packed coupling words' groups */
        return g->lx % 64 == 0;
    return g->lx % 16 == 0 && couplings == LATMC_COUPLINGS_UNIFORM;
}

/* The classes of the tables (bs_params): what the thresholds depend on, and each code's
 * threshold, codes of equal open thresholds merged into one class. */
static int classes_of(const struct latmc_ising_tables *tables, int algorithm, int nd,
                      struct bs_params *p)
{
    const int nn = 2 * nd;
    uint64_t t[2][7]; /* [own at -1][m] */
    for (int own = 0; own < 2; own++)
        for (int m = 0; m <= nn; m++)
            t[own][m] = latmc_ising_site_threshold(tables, algorithm,
                                                   own ? (int8_t)-1 : (int8_t)1, nn - m);
    bool by_m = true, by_diff = true;
    for (int m = 0; m <= nn; m++) {
        by_m = by_m && t[0][m] == t[1][m];
        by_diff = by_diff && t[0][m] == t[1][nn - m]; /* at -1, m - nn neighbours differ */
    }
    const int key = by_m ? KEY_M : by_diff ? KEY_DIFF : KEY_FULL;
    const int ncodes = key == KEY_FULL ? BS_CODES : nn + 1;
    p->n_open = 0;
    for (int c = 0; c < ncodes; c++) {
        const int m = c % 7;
        if (m > nn)
            continue;
        const uint64_t tc = t[c >= 7][m]; /* KEY_M, KEY_DIFF: the site at +1's */
        if (tc >> 32) {
            p->always[c] = ~0u;
            continue;
        }
        if (tc == 0)
            continue;
        /* a class is its threshold: compare all planes */
        int q;
        for (q = 0; q < p->n_open; q++) {
            bool same = true;
            for (int b = 0; b < LATMC_BITSLICE_PLANES; b++)
                same = same && p->plane[q][b] == (0u - (uint32_t)((tc >> (31 - b)) & 1u));
            if (same)
                break;
        }
        if (q == p->n_open) {
            for (int b = 0; b < LATMC_BITSLICE_PLANES; b++)
                p->plane[q][b] = 0u - (uint32_t)((tc >> (31 - b)) & 1u);
            p->n_open++;
        }
        p->member[q][c] = ~0u;
    }
    p->zero_planes = 0;
    for (int b = 0; b < LATMC_BITSLICE_PLANES; b++) {
        uint32_t any = 0;
        for (int q = 0; q < p->n_open; q++)
            any |= p->plane[q][b];
        if (any)
            break;
        p->zero_planes = b + 1;
    }
    if (key != KEY_DIFF || p->n_open < 1 || p->n_open > 3)
        return key;
    /* KEY_RUN: class d = count d < n_open, every count from n_open on accepts */
    bool run = true;
    for (int c = 0; c <= nn; c++)
        for (int q = 0; q < BS_CODES; q++)
            run = run && p->member[q][c] == (c < p->n_open && q == c ? ~0u : 0u) &&
                  p->always[c] == (c >= p->n_open ? ~0u : 0u);
    return run ? KEY_RUN : key;
}

/* KEY_SYM's conditions (heat bath, the thresholds by the count m of neighbours at -1):
 * T_m = 2^32 - 1 - T_{2 ndim - m} and 2^31 < T_m < 2^32 for m < ndim, T_ndim = 2^31; then
 * p->plane[q] holds T_q's bits, q < ndim (threshold_plane). Anything else (a field, beta 0
 * or infinite, J < 0, p 2^32 whole) keeps KEY_M. */
static bool sym_classes(const struct latmc_ising_tables *tables, int nd, struct bs_params *p)
{
    const int nn = 2 * nd;
    uint64_t t[7];
    for (int m = 0; m <= nn; m++)
        t[m] = latmc_ising_site_threshold(tables, LATMC_ALGO_HEATBATH, 1, nn - m);
    if (t[nd] != (UINT64_C(1) << 31))
        return false;
    for (int m = 0; m < nd; m++)
        if (t[m] <= (UINT64_C(1) << 31) || t[m] >> 32 || t[m] + t[nn - m] != UINT32_MAX)
            return false;
    for (int q = 0; q < nd; q++)
        for (int b = 0; b < LATMC_BITSLICE_PLANES; b++)
            p->plane[q][b] = 0u - (uint32_t)((t[q] >> (31 - b)) & 1u);
    return true;
}

/* Blocks of one resident wave of Kernel on the current device (cuda_resident_wave; 132, an
 * H100's or H200's SMs, where it cannot be asked: the launch reports a real problem). */
template <auto Kernel> static int64_t wave_blocks(void)
{
    const unsigned wave = cuda_resident_wave<Kernel>();
    return wave == 0 ? 132 : (int64_t)wave;
}

template <int ND, int KEY, int KB, bool HB, bool EPS, bool BITS, bool TWO, bool SMALL,
          bool F23 = false, int ZP = 0, bool FOLD = false>
static void launch_two(cudaStream_t stream, struct bs_params &p, uint32_t *own,
                       const uint32_t *other, int colour, unsigned long long *changed)
{
    /* a few resident waves striding over the groups (cuda_wave_grid) */
    const int64_t blocks = cuda_wave_grid(
        p.groups - p.g_begin,
        wave_blocks<
            ising_bitsliced_kernel<ND, KEY, KB, HB, EPS, BITS, TWO, SMALL, F23, ZP, FOLD>>());
    p.stride = blocks * CUDA_THREADS;
    if (p.rows4)
        bits_walk_stride(p);
    ising_bitsliced_kernel<ND, KEY, KB, HB, EPS, BITS, TWO, SMALL, F23, ZP, FOLD>
        <<<(unsigned)blocks, CUDA_THREADS, 0, stream>>>(p, own, other, colour, changed);
}

template <int ND, int KEY, int KB, bool HB, bool EPS, int ZP, bool FOLD = false>
static void launch_march(cudaStream_t stream, struct bs_params &p, uint32_t *own,
                         const uint32_t *other, int colour, unsigned long long *changed)
{
    const int64_t P = p.gpr; /* pairs a row */
    p.row0 = p.g_begin / P;
    p.nrows = (p.groups - p.g_begin) / P;
    const int64_t one =
        wave_blocks<ising_bitsliced_march_kernel<ND, KEY, KB, HB, EPS, ZP, FOLD>>() *
        CUDA_THREADS; /* threads of one wave */
    const int64_t bands_of_one = one / P < 1 ? 1 : one / P;
    const int64_t wave = one * cuda_waves(p.nrows / bands_of_one); /* rows a band a wave */
    int64_t bands = wave / P;
    if (bands < 1)
        bands = 1;
    if (bands > p.nrows)
        bands = p.nrows;
    p.rpb = (p.nrows + bands - 1) / bands;
    p.bands = (p.nrows + p.rpb - 1) / p.rpb;
    const int64_t blocks = (p.bands * P + CUDA_THREADS - 1) / CUDA_THREADS;
    ising_bitsliced_march_kernel<ND, KEY, KB, HB, EPS, ZP, FOLD>
        <<<(unsigned)blocks, CUDA_THREADS, 0, stream>>>(p, own, other, colour, changed);
}

/* LATMC_CUDA_BITS_FOLD=0: the unfolded draws everywhere, the kernels that lattices with more
 * than 2^32 groups a colour run (no test lattice has that many: the tests compare this way). */
static bool fold_allowed(void)
{
    const char *v = getenv("LATMC_CUDA_BITS_FOLD");
    return !v || strcmp(v, "0") != 0;
}

/* FOLD's words (bs_fold) where the blocks of the launch, the groups p.g_begin ..
 * p.groups - 1 (pairs: 2 p.g_begin .. 2 p.groups - 1) named + p.name_shift, have one
 * block >> 32; else false (a box whose names cross a multiple of 2^32: more than 2^32
 * groups a colour). */
static bool fold_blocks(struct bs_params &p, bool pairs = true)
{
    const int64_t per = pairs ? 2 : 1;
    const uint64_t first = (uint64_t)(per * p.g_begin + p.name_shift);
    const uint64_t last = (uint64_t)(per * p.groups - 1 + p.name_shift);
    if (first >> 32 != last >> 32 || !fold_allowed())
        return false;
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS; q++) {
        struct cuda_philox_folded f;
        f.keys = p.keys;
        cuda_philox_refold_named(&f, p.names[q]);
        p.fold[q].p1_lo_k1 = f.p1_lo_k1;
        p.fold[q].c3_k0 = f.c3_k0;
        p.fold[q].g = cuda_philox_group_of(f, first);
    }
    return true;
}

/* Metropolis at h = 0 on pairs with indices in 31 bits (2D: two open classes, 3D: three):
 * 2D marches down bands of rows, 3D walks (in 3D the march's rows are short and its bands
 * split a warp: 4 % slower in an A/B); both take the leading planes that are zero in every
 * open class two at a time (at most 3: the 12 % of groups that go on reach block 2 anyway),
 * draw the flush's blocks 2 and 3 side by side, and draw their blocks from the fold of their
 * names (FOLD) where fold_blocks allows (KEY_RUN's pair classes read no member). */
template <int ND, int KEY, int KB, bool HB, bool EPS, int ZP>
static void launch_run_pairs(cudaStream_t stream, struct bs_params &p, uint32_t *own,
                             const uint32_t *other, int colour, unsigned long long *changed)
{
    const bool fold = fold_blocks(p);
    if constexpr (ND == 4) {
        if (fold)
            launch_march<ND, KEY, KB, HB, EPS, ZP, true>(stream, p, own, other, colour, changed);
        else
            launch_march<ND, KEY, KB, HB, EPS, ZP>(stream, p, own, other, colour, changed);
    } else if (fold) {
        launch_two<ND, KEY, KB, HB, EPS, true, true, true, true, ZP, true>(stream, p, own, other,
                                                                           colour, changed);
    } else {
        launch_two<ND, KEY, KB, HB, EPS, true, true, true, true, ZP>(stream, p, own, other,
                                                                     colour, changed);
    }
}

template <int ND, int KEY, int KB, bool HB, bool EPS>
static void launch_run_pairs(cudaStream_t stream, struct bs_params &p, uint32_t *own,
                             const uint32_t *other, int colour, unsigned long long *changed)
{
    switch (p.zero_planes < 3 ? p.zero_planes : 3) {
    case 0:
        launch_run_pairs<ND, KEY, KB, HB, EPS, 0>(stream, p, own, other, colour, changed);
        break;
    case 1:
        launch_run_pairs<ND, KEY, KB, HB, EPS, 1>(stream, p, own, other, colour, changed);
        break;
    case 2:
        launch_run_pairs<ND, KEY, KB, HB, EPS, 2>(stream, p, own, other, colour, changed);
        break;
    default:
        launch_run_pairs<ND, KEY, KB, HB, EPS, 3>(stream, p, own, other, colour, changed);
        break;
    }
}

/* Heat bath at h = 0 with its classes folded (KEY_SYM) on pairs with indices in 31 bits: 2D
 * marches down bands of rows as Metropolis does, 3D walks; the flush draws blocks 2 and 3
 * side by side; the draws from the fold of their names (FOLD) where fold_blocks allows. */
template <int ND, int KB, bool HB, bool EPS>
static void launch_sym_pairs(cudaStream_t stream, struct bs_params &p, uint32_t *own,
                             const uint32_t *other, int colour, unsigned long long *changed)
{
    const bool fold = fold_blocks(p);
    if constexpr (ND == 4) {
        if (fold)
            launch_march<ND, KEY_SYM, KB, HB, EPS, 0, true>(stream, p, own, other, colour,
                                                            changed);
        else
            launch_march<ND, KEY_SYM, KB, HB, EPS, 0>(stream, p, own, other, colour, changed);
    } else if (fold) {
        launch_two<ND, KEY_SYM, KB, HB, EPS, true, true, true, true, 0, true>(stream, p, own,
                                                                              other, colour,
                                                                              changed);
    } else {
        launch_two<ND, KEY_SYM, KB, HB, EPS, true, true, true, true, 0>(stream, p, own, other,
                                                                        colour, changed);
    }
}

/* The 1-bit layout with an even number of words a row and at most 3 open classes (more
 * spill with two groups; KEY_SYM: 3D's 3 and s): pairs of groups (p's walk, first and end
 * count pairs). */
template <int ND, int KEY, int KB, bool HB, bool EPS, bool BITS>
static void launch(cudaStream_t stream, struct bs_params &p, uint32_t *own,
                   const uint32_t *other, int colour, unsigned long long *changed)
{
    if constexpr (BITS && (KB <= 3 || KEY == KEY_SYM)) {
        if (p.wpr % 2 == 0) {
            p.gpr = p.wpr / 2;
            p.g_begin /= 2;
            p.groups /= 2;
            /* SMALL: the pairs, a wave's stride beyond them and the words in 31 bits */
            if (p.groups + ((int64_t)1 << 24) < ((int64_t)1 << 31) &&
                p.words < ((int64_t)1 << 31)) {
                if constexpr (KEY == KEY_RUN && KB == ND / 2)
                    launch_run_pairs<ND, KEY, KB, HB, EPS>(stream, p, own, other, colour, changed);
                else if constexpr (KEY == KEY_SYM)
                    launch_sym_pairs<ND, KB, HB, EPS>(stream, p, own, other, colour, changed);
                else
                    launch_two<ND, KEY, KB, HB, EPS, BITS, true, true>(stream, p, own, other,
                                                                       colour, changed);
            }
            else
                launch_two<ND, KEY, KB, HB, EPS, BITS, true, false>(stream, p, own, other,
                                                                    colour, changed);
            return;
        }
    }
    /* the 1-bit layout's kernels of more than 3 classes (in a field): one group a thread,
     * the draws from the fold of their names where fold_blocks allows */
    if constexpr (BITS && KB > 3 && KEY != KEY_SYM) {
        if (fold_blocks(p, false)) {
            launch_two<ND, KEY, KB, HB, EPS, BITS, false, false, false, 0, true>(
                stream, p, own, other, colour, changed);
            return;
        }
    }
    launch_two<ND, KEY, KB, HB, EPS, BITS, false, false>(stream, p, own, other, colour, changed);
}

/* Heat bath's thresholds depend on the count of neighbours at -1 alone (KEY_M). */
template <int ND, bool BITS, bool EPS>
static void launch_key(cudaStream_t stream, struct bs_params &p, int key, bool hb,
                       uint32_t *own, const uint32_t *other, int colour,
                       unsigned long long *changed)
{
    if constexpr (BITS) {
        if (hb && key == KEY_SYM) { /* the classes m' < ndim and s */
            launch<ND, KEY_SYM, ND / 2 + 1, true, EPS, BITS>(stream, p, own, other, colour,
                                                             changed);
            return;
        }
    }
    if (hb && key == KEY_M && p.n_open <= 2)
        launch<ND, KEY_M, 2, true, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (hb && key == KEY_M)
        launch<ND, KEY_M, ND + 1, true, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (hb)
        launch<ND, KEY_FULL, BS_CODES, true, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_FULL && p.n_open <= ND + 1) /* Metropolis in a field (J > 0: at most
                                                      ND + 1 open classes); 14 spilled */
        launch<ND, KEY_FULL, ND + 1, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_FULL)
        launch<ND, KEY_FULL, BS_CODES, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_RUN && p.n_open == 2) /* Metropolis at h = 0 */
        launch<ND, KEY_RUN, 2, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_RUN && p.n_open == 3)
        launch<ND, KEY_RUN, 3, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_RUN) /* n_open 1: one class */
        launch<ND, KEY_RUN, 1, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_DIFF && p.n_open <= 2)
        launch<ND, KEY_DIFF, 2, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_DIFF && p.n_open <= 3) /* 3D Metropolis at h = 0 */
        launch<ND, KEY_DIFF, 3, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (key == KEY_DIFF)
        launch<ND, KEY_DIFF, ND + 1, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else if (p.n_open <= 2)
        launch<ND, KEY_M, 2, false, EPS, BITS>(stream, p, own, other, colour, changed);
    else
        launch<ND, KEY_M, ND + 1, false, EPS, BITS>(stream, p, own, other, colour, changed);
}

template <bool EPS>
static void launch_layout(cudaStream_t stream, struct bs_params &p, int ndim, bool bits,
                          int key, bool hb, uint32_t *own, const uint32_t *other, int colour,
                          unsigned long long *changed)
{
    if (ndim == 3 && bits)
        launch_key<6, true, EPS>(stream, p, key, hb, own, other, colour, changed);
    else if (ndim == 3)
        launch_key<6, false, EPS>(stream, p, key, hb, own, other, colour, changed);
    else if (bits)
        launch_key<4, true, EPS>(stream, p, key, hb, own, other, colour, changed);
    else
        launch_key<4, false, EPS>(stream, p, key, hb, own, other, colour, changed);
}

/* A step on either layout: words w_per_row a row (packed: L_x / 16; bits: L_x / 64), on
 * the rows `rows` (NULL: all; else groups lie in rows, cuda_ising_bitsliced_rows_fit). */
static cudaError_t bitsliced_step(cudaStream_t stream, const struct latmc_lattice *g,
                                  const struct cuda_ising_rows *rows, bool bits, uint32_t *own,
                                  const uint32_t *other, const uint32_t *own_eps,
                                  const struct latmc_ising_tables *tables, int algorithm,
                                  uint64_t seed, const struct latmc_step *step,
                                  unsigned long long *changed)
{
    struct bs_params p = {};
    p.ly = g->ly;
    p.lz = g->lz;
    if (bits) { /* a word per group, 4 "words" of the packed numbering */
        p.wpr = g->lx / 64;
        p.groups = g->nsites / 64;
        p.words = 4 * p.groups;
        p.rows4 = true;
        p.gpr = p.wpr;
    } else {
        p.wpr = g->lx / 16;
        p.words = g->nsites / 16;
        p.groups = (p.words + 3) / 4;
        p.rows4 = (p.wpr & 3) == 0;
        p.gpr = p.wpr / 4;
    }
    if ((rows || own_eps) && !p.rows4) /* +-J: L_x a multiple of 64 (bitsliced_fits) */
        return cudaErrorInvalidValue;
    p.eps = own_eps;
    if (rows) { /* whole rows of groups, named by the lattice's rows */
        p.g_begin = rows->row0 * p.gpr;
        p.groups = (rows->row0 + rows->nrows) * p.gpr;
        p.name_shift = rows->row_offset * p.gpr;
        if (p.groups <= p.g_begin)
            return cudaSuccess;
    }
    int key = classes_of(tables, algorithm, g->ndim, &p);
    if (bits && algorithm == LATMC_ALGO_HEATBATH && key == KEY_M &&
        sym_classes(tables, g->ndim, &p))
        key = KEY_SYM;
    const struct latmc_ising_plane_names names = latmc_ising_plane_names_step(seed, step);
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS; q++)
        p.names[q] = latmc_ising_plane_name(&names, q);
    p.keys = cuda_philox_round_keys(seed);
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    const int c = step->colour;
    if (own_eps)
        launch_layout<true>(stream, p, g->ndim, bits, key, hb, own, other, c, changed);
    else
        launch_layout<false>(stream, p, g->ndim, bits, key, hb, own, other, c, changed);
    return cudaGetLastError();
}

extern "C" bool cuda_ising_bitsliced_rows_fit(const struct latmc_lattice *g)
{
    return g->lx % 64 == 0;
}

extern "C" cudaError_t cuda_ising_bitsliced_colour(cudaStream_t stream,
                                                   const struct latmc_lattice *g,
                                                   const struct cuda_ising_rows *rows,
                                                   uint32_t *own, const uint32_t *other,
                                                   const uint32_t *own_eps,
                                                   const struct latmc_ising_tables *tables,
                                                   int algorithm, uint64_t seed,
                                                   const struct latmc_step *step,
                                                   unsigned long long *changed)
{
    return bitsliced_step(stream, g, rows, false, own, other, own_eps, tables, algorithm, seed,
                          step, changed);
}

extern "C" cudaError_t cuda_ising_bitsliced_bits_colour(
    cudaStream_t stream, const struct latmc_lattice *g, const struct cuda_ising_rows *rows,
    uint32_t *own, const uint32_t *other, const uint32_t *own_eps,
    const struct latmc_ising_tables *tables, int algorithm, uint64_t seed,
    const struct latmc_step *step, unsigned long long *changed)
{
    return bitsliced_step(stream, g, rows, true, own, other, own_eps, tables, algorithm, seed,
                          step, changed);
}

/* ---- the 1-bit layout <-> the packed layout (group g: packed words 4 g .. 4 g + 3) ---- */

__global__ void bits_from_packed_kernel(int64_t groups, const uint32_t *packed, uint32_t *bits)
{
    for (int64_t g = cuda_first_item(); g < groups; g += cuda_item_stride())
        bits[g] = to_lanes(interleave4(*(const uint4 *)(packed + 4 * g)));
}

__global__ void bits_to_packed_kernel(int64_t groups, const uint32_t *bits, uint32_t *packed)
{
    for (int64_t g = cuda_first_item(); g < groups; g += cuda_item_stride()) {
        const uint32_t p = to_interleaved(bits[g]);
        *(uint4 *)(packed + 4 * g) = make_uint4(p & 0x11111111u, (p >> 1) & 0x11111111u,
                                                (p >> 2) & 0x11111111u, (p >> 3) & 0x11111111u);
    }
}

extern "C" bool cuda_ising_bits_fits(const struct latmc_lattice *g)
{
    return (g->ndim == 2 || g->ndim == 3) && g->lx % 64 == 0;
}

extern "C" int64_t cuda_ising_bits_words(const struct latmc_lattice *g)
{
    return g->nsites / 64;
}

extern "C" cudaError_t cuda_ising_bits_from_packed(cudaStream_t stream,
                                                   const struct latmc_lattice *g,
                                                   const uint32_t *colour0,
                                                   const uint32_t *colour1, uint32_t *bits)
{
    const int64_t groups = cuda_ising_bits_words(g);
    const unsigned grid = cuda_grid_capped(groups);
    bits_from_packed_kernel<<<grid, CUDA_THREADS, 0, stream>>>(groups, colour0, bits);
    bits_from_packed_kernel<<<grid, CUDA_THREADS, 0, stream>>>(groups, colour1, bits + groups);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ising_bits_to_packed(cudaStream_t stream,
                                                 const struct latmc_lattice *g,
                                                 const uint32_t *bits, uint32_t *colour0,
                                                 uint32_t *colour1)
{
    const int64_t groups = cuda_ising_bits_words(g);
    const unsigned grid = cuda_grid_capped(groups);
    bits_to_packed_kernel<<<grid, CUDA_THREADS, 0, stream>>>(groups, bits, colour0);
    bits_to_packed_kernel<<<grid, CUDA_THREADS, 0, stream>>>(groups, bits + groups, colour1);
    return cudaGetLastError();
}

/* ---- +-J: the packed coupling words -> the 1-bit layout's (cuda_ising_bits_couplings) ---- */

/* Group g of a colour: its 4 spin words' CW coupling words each (word k's q-th at
 * CW (4 g + k) + q), direction d's bits (bit d % 4 of each nibble of word q = d / 4)
 * interleaved and brought into the lane order, as the spins are (bits_from_packed_kernel). */
template <int ND>
__global__ void bits_couplings_kernel(int64_t groups, const uint32_t *packed, uint32_t *bits)
{
    constexpr int CW = ND == 6 ? 2 : 1;
    for (int64_t g = cuda_first_item(); g < groups; g += cuda_item_stride()) {
        const uint32_t *e = packed + (size_t)CW * (size_t)(4 * g);
#pragma unroll
        for (int d = 0; d < ND; d++) {
            const int q = d / 4, b = d % 4;
            bits[(size_t)ND * (size_t)g + d] =
                to_lanes(interleave4(make_uint4(e[q] >> b, e[CW + q] >> b, e[2 * CW + q] >> b,
                                                e[3 * CW + q] >> b)));
        }
    }
}

/* Both colours': 2 ndim words a group each, a colour's rounded up to a multiple of 4 words
 * so that colour 1's start as 16-byte aligned as colour 0's (pair_couplings' loads). */
extern "C" int64_t cuda_ising_bits_coupling_words(const struct latmc_lattice *g)
{
    const int64_t colour = 2 * (int64_t)g->ndim * cuda_ising_bits_words(g);
    return 2 * ((colour + 3) / 4 * 4);
}

extern "C" cudaError_t cuda_ising_bits_couplings(cudaStream_t stream,
                                                 const struct latmc_lattice *g,
                                                 const uint32_t *eps0, const uint32_t *eps1,
                                                 uint32_t *bits0, uint32_t *bits1)
{
    const int64_t groups = cuda_ising_bits_words(g);
    const unsigned grid = cuda_grid_capped(groups);
    for (int c = 0; c < 2; c++) {
        const uint32_t *in = c == 0 ? eps0 : eps1;
        uint32_t *out = c == 0 ? bits0 : bits1;
        if (g->ndim == 3)
            bits_couplings_kernel<6><<<grid, CUDA_THREADS, 0, stream>>>(groups, in, out);
        else
            bits_couplings_kernel<4><<<grid, CUDA_THREADS, 0, stream>>>(groups, in, out);
    }
    return cudaGetLastError();
}
