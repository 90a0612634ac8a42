/*
 * The Potts row-segment update: the per-thread work of the fast Potts kernels
 * (potts_rows.cu), as host-and-device functions so that a host program can run exactly
 * this code over a lattice and compare it with the CPU reference without a GPU
 * (tests/backends/test_potts_rows_host.cu).
 *
 * Geometry. With c colours (2 or 3), the four draws of Philox block b of a colour belong to
 * the sites with within-colour numbers 4b .. 4b+3, i.e. (j = floor(i / c)) to the 4c
 * consecutive bytes [4cb, 4cb + 4c) of the lattice: one whole group of 4 sites of each
 * colour. When L_x is a multiple of the segment width W = 4 NW bytes (NW 32-bit words,
 * NW a multiple of c), segment s = bytes [W s, W s + W) lies in one row and holds the
 * B = NW / c Philox blocks B s .. B s + B - 1 of every colour, lanes in order: its sites
 * of colour `colour` are at byte offsets p = c m + off, m = 0 .. 4B - 1, with
 * off = (colour - y - z) mod c (lib/lattice_numbering.h), and site m has lane m mod 4 of
 * block B s + m / 4. Exactly the sites and draws of latmc_potts_step_lanes.
 *
 * One thread loads its segment and the same segment of the rows y +- 1 (and z +- 1) as
 * vectors, plus the one byte across the segment's edge that its colour needs; the x
 * neighbours are the row shifted by one byte (funnel shifts). `off` is a template
 * parameter, so that every byte position is a compile-time constant.
 *
 * Heat bath (q <= 8 in 2D, q <= 4 in 3D): the choice at a site depends only on its
 * neighbours' states and its draw u. Every ordered neighbour tuple gets a table entry
 * (lib/potts_thresholds.h): base and q - 1 thresholds stored as 2^32 - t, with
 * choice = base + (number of carries of u + word), the scan's choice for every u. The
 * entry's index is the tuple in radix R (R = q, or 8 for 5 <= q <= 8 in 2D), digits (x-,
 * x+, y+, y-, z+, z-); the digits of four sites are combined at once by whole-word
 * multiply-adds of the neighbour words, byte by byte without carries since every partial
 * index is < 256 ("lo": up to four digits; "hi": the others, index = lo + R^(digits in
 * lo) hi). The table is built in shared memory by every block from the core's tables
 * (device copy). Tables of 16-byte entries with up to 256 (2D q <= 4) or 729 (3D q <= 3)
 * entries are stored 8 times, one copy per 16-byte bank group, and thread t reads copy
 * t mod 8: the 8 threads of each quarter warp then always hit 8 different bank groups,
 * whatever their entries (no bank conflicts). 3D q = 4: 4096 entries of 16 bytes, one
 * copy. 2D 5 <= q <= 8: a binary search (pr_entry_words below), with 2 colours on the
 * table of the sorted neighbour multiset (330 entries, tops copied 8 times), in segments of
 * 32 bytes where L_x allows (pr_words_hb), 768 threads a block.
 *
 * Metropolis (any q): the proposal as the reference; n_{s'} - n_s from the neighbours'
 * four bytes in one word (three byte permutes) compared bytewise with s and s' (counts of
 * differing bytes, popc); the threshold from the core's table in shared memory, indexed
 * by dn and min(s, 1), min(s', 1) (which give dz), 16 copies (64-bit entries: one per
 * bank pair of a half warp).
 *
 * Every decision is an integer comparison with the core's tables or values derived from
 * them exactly; a changed site's byte is rewritten, the other colours' bytes are stored
 * back unchanged.
 */
#ifndef LATMC_CUDA_POTTS_ROWS_CUH
#define LATMC_CUDA_POTTS_ROWS_CUH

#include <stdint.h>
#include <string.h>

#include "cuda_philox.cuh"
#include "potts_thresholds.h"

#define PR_HD __host__ __device__ __forceinline__
/* Full unrolling, so that every register array is indexed by constants (device pass only:
 * the host compiler does not know the pragma). */
#ifdef __CUDA_ARCH__
#  define PR_UNROLL _Pragma("unroll")
#else
#  define PR_UNROLL
#endif

/* Threads per block of the row kernels: one block per multiprocessor (<= 64 registers),
 * the whole block shares one table. */
#define PR_THREADS 1024
/* ... and of the multiset heat bath's 32-byte segments (pr_words_hb): 24 warps of up to 80
 * registers, which hold a segment's rows without spilling. (At 1024 threads and 64
 * registers the wider segment spilled and ran below the 16-byte one: one H200, 32768^2
 * q = 8, 514-523 against 534 updates/ns; 896 threads, 72 registers: 502-506; 768: 556.) */
#define PR_THREADS_WIDE 768

PR_HD int pr_threads(int nw)
{
    return nw == 8 ? PR_THREADS_WIDE : PR_THREADS;
}

/* What a launch of the row kernels needs to know (host-computed, passed by value). */
struct pr_geom {
    int ndim, q, colour;
    uint32_t radix;         /* heat-bath table: digits of the neighbour tuple */
    uint32_t hi_mult;       /* radix^(digits in "lo") */
    uint32_t entries;       /* heat-bath table entries, radix^(2 ndim) */
    uint32_t lx, ly, lz;    /* lz = 1 in 2D; all < 2^31 */
    uint32_t spr;           /* segments per row, L_x / W */
    int64_t nseg;           /* segments in the lattice */
    int64_t y_up, y_up_wrap, y_dn, y_dn_wrap;   /* byte offsets to the row y +- 1 */
    int64_t z_up, z_up_wrap, z_dn, z_dn_wrap;   /* ... and to z +- 1 (3D) */
    /* the step's draws (lib/step.h: its own sub, the proposal's or the heat bath's) and,
     * for Metropolis, the acceptance's (sub LATMC_POTTS_SUB_ACCEPT), as latmc_potts_draws */
    struct latmc_rng_name draws, accept;
    /* ... their folds under the sim's keys (pr_geom_fold), from which the steps of one
     * launch (pr_step_of_geom) draw: the same blocks, fewer instructions (pr_draws) */
    struct cuda_philox_name_fold draws_fold, accept_fold;
    /* a grid stride of `stride` segments moves (xs, y, z) by (st_x, st_y, st_z) */
    int64_t stride;
    uint32_t st_x, st_y, st_z;
    /* added to a segment's index to name its draws: 0 for a whole lattice; for a plane
     * range of a box (cuda_potts_rows_sweep_range), the lattice's index of the range's
     * first segment */
    int64_t s_draw;
    /* the multiset slot's weights as pr_sort_slots uses them: kernel parameters, which the
     * dot products read from the constant bank (as literals they take a uniform move each) */
    uint32_t sort_w[4];
};

/*
 * The Philox blocks base + i, i < B, of the draws named n, where B (a segment's blocks of a
 * colour: 1, 2 or 4) divides base: they share block >> 32, so they are one group of the
 * fold (cuda_philox.cuh). FOLD: drawn by the fold w of n under the keys' seed, the
 * group's words once; else by the name. The same draws either way.
 */
template <bool FOLD> struct pr_draws {
    const struct cuda_philox_keys &keys;
    const struct latmc_rng_name &n;
    uint64_t base;
    PR_HD pr_draws(const struct cuda_philox_keys &k, const struct cuda_philox_name_fold &,
                   const struct latmc_rng_name &name, uint64_t b)
        : keys(k), n(name), base(b)
    {
    }
    PR_HD latmc_philox_ctr block(int i) const
    {
        return cuda_philox_named_draws(keys, n, base + (uint64_t)i);
    }
};

template <> struct pr_draws<true> {
    struct cuda_philox_folded f;
    struct cuda_philox_group group;
    uint32_t base_low;
    PR_HD pr_draws(const struct cuda_philox_keys &k, const struct cuda_philox_name_fold &w,
                   const struct latmc_rng_name &, uint64_t b)
        : f(cuda_philox_folded_of(k, w)), group(cuda_philox_group_of(f, b)),
          base_low((uint32_t)b)
    {
    }
    PR_HD latmc_philox_ctr block(int i) const
    {
        return cuda_philox_folded_draws(f, group, base_low + (uint32_t)i);
    }
};

/* ---- small integer helpers, host and device ---- */

PR_HD uint32_t pr_popc(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__popc(x);
#else
    return (uint32_t)__builtin_popcount(x);
#endif
}

/* __byte_perm(x, y, s): byte i of the result is byte (s >> 4i) & 7 of y:x. */
PR_HD uint32_t pr_perm(uint32_t x, uint32_t y, uint32_t s)
{
#ifdef __CUDA_ARCH__
    return __byte_perm(x, y, s);
#else
    const uint64_t v = (uint64_t)y << 32 | x;
    uint32_t r = 0;
    for (int i = 0; i < 4; i++)
        r |= (uint32_t)((v >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
    return r;
#endif
}

PR_HD uint32_t pr_umin(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    return umin(a, b);
#else
    return a < b ? a : b;
#endif
}

PR_HD uint32_t pr_umulhi(uint32_t a, uint32_t b)
{
    return (uint32_t)(((uint64_t)a * b) >> 32);
}

/* c + the sum of the products of the four bytes of a and b (one IDP.4A). */
PR_HD uint32_t pr_dp4a(uint32_t a, uint32_t b, uint32_t c)
{
#ifdef __CUDA_ARCH__
    return __dp4a(a, b, c);
#else
    for (int i = 0; i < 4; i++)
        c += ((a >> (8 * i)) & 0xffu) * ((b >> (8 * i)) & 0xffu);
    return c;
#endif
}

/* Lane-wise minimum and maximum of the two 16-bit halves (one VIMNMX.U16x2 each on sm_90). */
PR_HD uint32_t pr_min_u16x2(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    return __vminu2(a, b);
#else
    const uint32_t lo = (a & 0xffffu) < (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
    const uint32_t hi = (a >> 16) < (b >> 16) ? a >> 16 : b >> 16;
    return hi << 16 | lo;
#endif
}

PR_HD uint32_t pr_max_u16x2(uint32_t a, uint32_t b)
{
#ifdef __CUDA_ARCH__
    return __vmaxu2(a, b);
#else
    const uint32_t lo = (a & 0xffffu) > (b & 0xffffu) ? a & 0xffffu : b & 0xffffu;
    const uint32_t hi = (a >> 16) > (b >> 16) ? a >> 16 : b >> 16;
    return hi << 16 | lo;
#endif
}

/* Byte 3 of `prev` then bytes 0..2 of w: byte b = byte b - 1 of the row (left neighbours). */
PR_HD uint32_t pr_shift_left(uint32_t prev, uint32_t w)
{
    return (w << 8) | (prev >> 24);
}

/* Bytes 1..3 of w then byte 0 of `next`: byte b = byte b + 1 of the row (right neighbours). */
PR_HD uint32_t pr_shift_right(uint32_t w, uint32_t next)
{
    return (w >> 8) | (next << 24);
}

/* How many of the four bytes of x differ from byte v. */
PR_HD uint32_t pr_bytes_differing(uint32_t x, uint32_t v)
{
    const uint32_t d = x ^ (v * 0x01010101u);
    /* bit 7 of each byte: set iff the byte of d is not 0 (no carries between bytes) */
    const uint32_t nz = (((d & 0x7f7f7f7fu) + 0x7f7f7f7fu) | d) & 0x80808080u;
    return pr_popc(nz);
}

/* NW words at p (aligned to the largest power of two dividing 4 NW, at most 16). */
template <int NW> PR_HD void pr_load(const uint8_t *p, uint32_t *w)
{
#ifdef __CUDA_ARCH__
    if (NW % 4 == 0) {
PR_UNROLL
        for (int i = 0; i < NW / 4; i++) {
            const uint4 v = ((const uint4 *)p)[i];
            w[4 * i] = v.x; w[4 * i + 1] = v.y; w[4 * i + 2] = v.z; w[4 * i + 3] = v.w;
        }
    } else if (NW % 2 == 0) {
PR_UNROLL
        for (int i = 0; i < NW / 2; i++) {
            const uint2 v = ((const uint2 *)p)[i];
            w[2 * i] = v.x; w[2 * i + 1] = v.y;
        }
    } else {
PR_UNROLL
        for (int i = 0; i < NW; i++)
            w[i] = ((const uint32_t *)p)[i];
    }
#else
    memcpy(w, p, 4 * NW); /* little-endian, as the GPU */
#endif
}

template <int NW> PR_HD void pr_store(uint8_t *p, const uint32_t *w)
{
#ifdef __CUDA_ARCH__
    if (NW % 4 == 0) {
PR_UNROLL
        for (int i = 0; i < NW / 4; i++)
            ((uint4 *)p)[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
    } else if (NW % 2 == 0) {
PR_UNROLL
        for (int i = 0; i < NW / 2; i++)
            ((uint2 *)p)[i] = make_uint2(w[2 * i], w[2 * i + 1]);
    } else {
PR_UNROLL
        for (int i = 0; i < NW; i++)
            ((uint32_t *)p)[i] = w[i];
    }
#else
    memcpy(p, w, 4 * NW);
#endif
}

/* The bytes of word i that are NOT sites of the colour (offset OFF): kept as they are. */
template <int C, int OFF> PR_HD uint32_t pr_keep_mask(int i)
{
    uint32_t keep = 0;
    for (int b = 0; b < 4; b++)
        if ((4 * i + b) % C != OFF)
            keep |= 0xffu << (8 * b);
    return keep;
}

/* ---- the loaded neighbourhood of one segment ---- */

template <int NDIM, int NW> struct pr_rows {
    uint32_t w[NW];          /* the segment */
    uint32_t l[NW], r[NW];   /* x - 1, x + 1 */
    uint32_t u[NW], d[NW];   /* y + 1, y - 1 */
    uint32_t f[NDIM == 3 ? NW : 1], b[NDIM == 3 ? NW : 1]; /* z + 1, z - 1 */
};

/*
 * Load segment s (row y, z; xs-th of its row) and its neighbour rows. OFF decides which
 * byte across the segment's edge is needed: the one before it (OFF = 0: the first site
 * looks left), the one after it (OFF = c - 1: the last site looks right); periodic in x.
 * The other end's shifted-in byte feeds only sites of other colours (never used).
 */
template <int NDIM, int C, int NW, int OFF>
PR_HD void pr_load_rows(const struct pr_geom &g, const uint8_t *own, uint32_t xs, uint32_t y,
                        uint32_t z, pr_rows<NDIM, NW> &n)
{
    constexpr int W = 4 * NW;
    pr_load<NW>(own, n.w);
    pr_load<NW>(own + (y + 1 == g.ly ? g.y_up_wrap : g.y_up), n.u);
    pr_load<NW>(own + (y == 0 ? g.y_dn_wrap : g.y_dn), n.d);
    if (NDIM == 3) {
        pr_load<NW>(own + (z + 1 == g.lz ? g.z_up_wrap : g.z_up), n.f);
        pr_load<NW>(own + (z == 0 ? g.z_dn_wrap : g.z_dn), n.b);
    }
    uint32_t before = 0, after = 0;
    if (OFF == 0)
        before = own[xs == 0 ? (int64_t)g.lx - 1 : -1];
    if (OFF == C - 1)
        after = own[xs + 1 == g.spr ? (int64_t)W - (int64_t)g.lx : W];
PR_UNROLL
    for (int i = 0; i < NW; i++) {
        n.l[i] = pr_shift_left(i > 0 ? n.w[i - 1] : before << 24, n.w[i]);
        n.r[i] = pr_shift_right(n.w[i], i < NW - 1 ? n.w[i + 1] : after);
    }
}

/*
 * How many of the colour's sites differ between the words `now` and `was` (states < 8, the
 * other colours' bytes equal). A byte of the xor is 0 .. 7, so (x + 0x7f) & 0x80 tests it
 * without carries. With 2 colours only bytes OFF and OFF + 2 of a word can differ: a byte
 * permute packs the bytes of two words into one, and two packed words share one word as
 * nibbles (x < 8: (x + 7) & 8 per nibble): one count for four words. 2D only: the 3D
 * kernels keep their word-by-word count and the SASS they had (their registers are full).
 */
template <int NDIM, int C, int NW, int OFF>
PR_HD uint32_t pr_count_changed(const uint32_t *now, const uint32_t *was)
{
    uint32_t changed = 0;
    if (NDIM == 2 && C == 2 && NW % 2 == 0) {
        constexpr uint32_t sel = OFF | (OFF + 2) << 4 | (OFF + 4) << 8 | (OFF + 6) << 12;
        uint32_t packed[NW / 2];
PR_UNROLL
        for (int i = 0; i < NW / 2; i++)
            packed[i] = pr_perm(now[2 * i] ^ was[2 * i], now[2 * i + 1] ^ was[2 * i + 1], sel);
PR_UNROLL
        for (int i = 0; i + 1 < NW / 2; i += 2)
            changed += pr_popc(((packed[i] | packed[i + 1] << 4) + 0x77777777u) & 0x88888888u);
        if (NW / 2 % 2 != 0)
            changed += pr_popc((packed[NW / 2 - 1] + 0x7f7f7f7fu) & 0x80808080u);
    } else {
PR_UNROLL
        for (int i = 0; i < NW; i++)
            changed += pr_popc(((now[i] ^ was[i]) + 0x7f7f7f7fu) & 0x80808080u);
    }
    return changed;
}

/* ---- heat bath through the threshold table ---- */

/*
 * Table variants: NT thresholds per site (2: q <= 3, 3: q = 4, 7: q <= 8); REPL: 8 copies
 * of every 16-byte entry (base and up to 3 thresholds, compared one by one); HI: the index
 * has a "hi" part. NT = 7 (2D, 5 <= q <= 8): 4096 entries, too many for copies, each split
 * for a binary search (latmc_potts_heatbath_tree7): the 16-byte tops of all entries, then
 * their 16-byte bottoms, of which a site reads one word; 20 bytes per site instead of 32,
 * in fewer shared-memory wavefronts.
 */
template <int NT> struct pr_entry_words {
    static const int value = NT <= 3 ? 4 : 8;
};

/*
 * 2D 5 <= q <= 8 with 2 colours (NT = 7, REPL): the table of the neighbour MULTISET. The
 * heat bath's thresholds depend on the neighbours' states only through how many
 * neighbours are in each state (latmc_potts_heatbath_weights counts them), so a site's
 * entry can be looked up by its four neighbour states sorted, a <= b <= c <= d: 330
 * multisets instead of 4096 ordered tuples, few enough to copy the 16-byte top of every
 * entry 8 times (conflict-free, as the small tables). Slot = a + 7 b + 72 c + 125 d, one
 * to one on sorted tuples of states < 8 (checked by tests/backends/test_potts_rows_host.cu)
 * and < PR_SORT_SLOTS; slots of no sorted tuple are never read. Layout: the tops, slot s
 * copy k at 16 (8 s + k); then the bottoms, one copy, slot s at PR_SORT_TOP_BYTES + 16 s.
 */
#define PR_SORT_W1 7u
#define PR_SORT_W2 72u
#define PR_SORT_W3 125u
#define PR_SORT_SLOTS (7 * (1 + PR_SORT_W1 + PR_SORT_W2 + PR_SORT_W3) + 1)
#define PR_SORT_TOP_BYTES ((size_t)PR_SORT_SLOTS * 16 * 8)
#define PR_SORT_BYTES (PR_SORT_TOP_BYTES + (size_t)PR_SORT_SLOTS * 16)

PR_HD uint32_t pr_sort_slot(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    return a + PR_SORT_W1 * b + PR_SORT_W2 * c + PR_SORT_W3 * d;
}

/* pr_geom's sort_w: the dot products' weights for [a0, a1, b0, b1] and [c0, c1, d0, d1]
 * (pr_sort_slots), a + W1 b and W2 c + W3 d of the first site, then of the second. */
static inline void pr_sort_weights(uint32_t w[4])
{
    w[0] = 1u | PR_SORT_W1 << 16;
    w[1] = PR_SORT_W2 | PR_SORT_W3 << 16;
    w[2] = w[0] << 8;
    w[3] = w[1] << 8;
}

/* Entries of the table (radix^(2 ndim)) and its bytes in shared memory. */
PR_HD int64_t pr_hb_table_entries(int ndim, uint32_t radix)
{
    int64_t e = 1;
    for (int a = 0; a < 2 * ndim; a++)
        e *= radix;
    return e;
}

template <int NT, bool REPL> static inline size_t pr_hb_table_bytes(int ndim, uint32_t radix)
{
    if (NT == 7 && REPL)
        return PR_SORT_BYTES;
    return (size_t)pr_hb_table_entries(ndim, radix) * pr_entry_words<NT>::value * 4 *
           (REPL ? 8 : 1);
}

/*
 * Entry e of the table: the neighbour tuple with digits (x-, x+, y+, y-, z+, z-) of e in
 * radix g.radix. Tuples with a digit >= q (radix 8 > q) cannot occur and are left unset.
 */
template <int NDIM, int NT, bool REPL>
PR_HD void pr_hb_build_entry(const struct pr_geom &g, const struct latmc_potts_tables *t,
                             uint32_t e, uint32_t *table)
{
    constexpr int NE = pr_entry_words<NT>::value;
    uint8_t digit[2 * NDIM];
    uint32_t rest = e;
    for (int a = 0; a < 2 * NDIM; a++) {
        digit[a] = (uint8_t)(rest % g.radix);
        rest /= g.radix;
        if (digit[a] >= g.q)
            return;
    }
    /* the reference's order: x+, x-, y+, y-, z+, z- */
    uint8_t nb[LATMC_POTTS_MAX_NB] = { digit[1], digit[0], digit[2], digit[3], 0, 0 };
    if (NDIM == 3) {
        nb[4] = digit[4];
        nb[5] = digit[5];
    }
    uint8_t n_of[8] = { 0 }; /* q <= 8: indices are states < q */
    uint32_t word[NE];
    latmc_potts_heatbath_thresholds(t, g.q, nb, 2 * NDIM, n_of, word, NE);
    if (NT == 7 && REPL) { /* the multiset table: sorted tuples only */
        if (!(digit[0] <= digit[1] && digit[1] <= digit[2] && digit[2] <= digit[3]))
            return;
        const uint32_t slot = pr_sort_slot(digit[0], digit[1], digit[2], digit[3]);
        uint32_t top[4], bottom[4];
        latmc_potts_heatbath_tree7(word, g.q, top, bottom);
        top[0] -= 8 * slot; /* pr_multiset_choice's form */
        top[1] = ~top[1];
        for (int i = 0; i < 4; i++) {
            for (int copy = 0; copy < 8; copy++)
                table[((size_t)slot * 8 + copy) * 4 + i] = top[i];
            table[PR_SORT_TOP_BYTES / 4 + (size_t)slot * 4 + i] = bottom[i];
        }
    } else if (NT == 7) { /* binary-search layout: tops of all entries, then their bottoms */
        uint32_t top[4], bottom[4];
        latmc_potts_heatbath_tree7(word, g.q, top, bottom);
        for (int i = 0; i < 4; i++) {
            table[(size_t)e * 4 + i] = top[i];
            table[((size_t)g.entries + e) * 4 + i] = bottom[i];
        }
    } else if (REPL) {
        for (int copy = 0; copy < 8; copy++)
            for (int i = 0; i < NE; i++)
                table[((size_t)e * 8 + copy) * NE + i] = word[i];
    } else {
        for (int i = 0; i < NE; i++)
            table[(size_t)e * NE + i] = word[i];
    }
}

/* The four words at byte offset `off` of the table (one 16-byte shared-memory load). */
PR_HD void pr_entry4_at(const uint32_t *table, uint32_t off, uint32_t *v)
{
#ifdef __CUDA_ARCH__
    const uint4 x = *(const uint4 *)((const char *)table + off);
    v[0] = x.x; v[1] = x.y; v[2] = x.z; v[3] = x.w;
#else
    memcpy(v, (const char *)table + off, 16);
#endif
}

/* a M + c + [u + w >= 2^32]: the carry of u + w added in the multiply-add (an add with
 * carry out, then IMAD.X) instead of a comparison, a select and an add. */
template <uint32_t M> PR_HD uint32_t pr_mad_carry(uint32_t a, uint32_t c, uint32_t u, uint32_t w)
{
#ifdef __CUDA_ARCH__
    uint32_t r;
    asm("{\n\t.reg .u32 t;\n\tadd.cc.u32 t, %1, %2;\n\tmadc.lo.u32 %0, %3, %5, %4;\n\t}"
        : "=r"(r) : "r"(u), "r"(w), "r"(a), "r"(c), "n"(M));
    return r;
#else
    return a * M + c + latmc_potts_carry(u, w);
#endif
}

/*
 * latmc_potts_heatbath_lookup_tree7(top, bottom, u) on the multiset table (PR_SORT_*), in 12
 * instructions a site (from 17). The carry of u + W (W = 2^32 - t the word of
 * lib/potts_thresholds.h, 0 for t = 2^32) is [u >= t]; where it picks a value it is a
 * comparison, u > ~W (~W = t - 1 for W != 0, and ~0 = 2^32 - 1, which no u exceeds), and
 * where it is counted it is added by the multiply-add that needs it anyway. Top of slot m:
 * { base - 8 m, ~W(a_3), W(a_1), W(a_5) }; bottom: W(a_0), W(a_2), W(a_4), W(a_6).
 * aw = 4 m + j is the word of the bottom to read (a_{2j}), and
 * choice = base + 2 j + [u >= a_{2j}] = 2 aw + (base - 8 m) + carry.
 * mine: the byte offset of this thread's copy of slot 0's top (copy * 16).
 */
PR_HD uint32_t pr_multiset_choice(const uint32_t *table, uint32_t mine, uint32_t m, uint32_t u)
{
    uint32_t top[4];
    pr_entry4_at(table, m * 128 + mine, top);
    const bool above3 = u > top[1];
    const uint32_t aw = pr_mad_carry<4>(m, above3 ? 2u : 0u, u, above3 ? top[3] : top[2]);
    return pr_mad_carry<2>(aw, top[0], u, table[PR_SORT_TOP_BYTES / 4 + aw]);
}

/*
 * The multiset slots of the 2 x 2 sites of one word (2D, 2 colours, sites at bytes OFF and
 * OFF + 2): slot[0] of the site at byte OFF, slot[1] of the one at OFF + 2. The
 * four neighbour words are arranged so that each site's neighbour is the HIGH byte of its
 * 16-bit half (the low byte is another site's state, < 8: it can only break ties between
 * equal high bytes), then sorted half by half with a 5-comparator network of 16-bit
 * min / max; the high bytes are then a <= b <= c <= d.
 */
template <int OFF> PR_HD void pr_sort_slots(uint32_t w, uint32_t l, uint32_t r, uint32_t u,
                                            uint32_t d, const uint32_t *sort_w, uint32_t slot[2])
{
    uint32_t a, b, c, e;
    if (OFF == 0) { /* sites at bytes 0, 2: x+ is byte 1, 3 of the segment itself */
        a = l << 8;
        b = w;
        c = u << 8;
        e = d << 8;
    } else {        /* sites at bytes 1, 3 */
        a = l;
        b = r;
        c = u;
        e = d;
    }
    uint32_t t;
    t = pr_min_u16x2(a, b); b = pr_max_u16x2(a, b); a = t;
    t = pr_min_u16x2(c, e); e = pr_max_u16x2(c, e); c = t;
    t = pr_min_u16x2(a, c); c = pr_max_u16x2(a, c); a = t;
    t = pr_min_u16x2(b, e); e = pr_max_u16x2(b, e); b = t;
    t = pr_min_u16x2(b, c); c = pr_max_u16x2(b, c); b = t;
    /* the high bytes [a0, a1, b0, b1] and [c0, c1, e0, e1]; each site's slot is a dot
     * product with the weights (one IDP.4A per pair of words and site) */
    const uint32_t ab = pr_perm(a, b, 0x7531), ce = pr_perm(c, e, 0x7531);
    slot[0] = pr_dp4a(ab, sort_w[0], pr_dp4a(ce, sort_w[1], 0));
    slot[1] = pr_dp4a(ab, sort_w[2], pr_dp4a(ce, sort_w[3], 0));
}

/*
 * One segment, heat bath, with the draws of the step st (pr_step_of_geom below: g's for a
 * launch of one step), FOLD by their fold. slot: the thread's table copy (thread index
 * mod 8) for REPL. Returns how many sites changed.
 */
template <int NDIM, int C, int NW, int OFF, int NT, bool REPL, bool HI, bool FOLD, class S>
PR_HD uint32_t pr_hb_segment(const struct pr_geom &g, const S &st, uint8_t *spins, int64_t s,
                             uint32_t xs, uint32_t y, uint32_t z, const uint32_t *table,
                             uint32_t slot, const struct cuda_philox_keys &keys)
{
    constexpr int W = 4 * NW, B = NW / C;
    uint8_t *const own = spins + W * s;
    pr_rows<NDIM, NW> n;
    pr_load_rows<NDIM, C, NW, OFF>(g, own, xs, y, z, n);

    /* per byte: lo = the first digits of the tuple, hi = the rest (radix R); for the
     * multiset table, lo = the slots of the word's two sites (16 bits each) */
    const uint32_t R = g.radix;
    uint32_t lo[NW], hi[HI ? NW : 1], ms[NT == 7 && REPL ? NW : 1][2];
PR_UNROLL
    for (int i = 0; i < NW; i++) {
        if (NT == 7 && REPL) {
            static_assert(NT != 7 || !REPL || (NDIM == 2 && C == 2), "multiset table: 2D, 2 colours");
            pr_sort_slots<OFF>(n.w[i], n.l[i], n.r[i], n.u[i], n.d[i], g.sort_w, ms[i]);
        } else if (NDIM == 2 && HI) { /* 2D, radix 8: lo = x-, x+; hi = y+, y- */
            lo[i] = n.l[i] + R * n.r[i];
            hi[i] = n.u[i] + R * n.d[i];
        } else {
            lo[i] = n.l[i] + R * (n.r[i] + R * (n.u[i] + R * n.d[i]));
            if (HI)
                hi[i] = n.f[i] + R * n.b[i];
        }
    }

    /* 2D, 2 colours: the choices of a word's two sites (bytes OFF and OFF + 2), merged into
     * the word by one byte permute each; else added to the kept bytes as they come (in 3D
     * the choices kept for the permutes cost a register spill: 3D 512^3 heat bath 2 %
     * slower) */
    constexpr bool MERGE = C == 2 && NDIM == 2;
    uint32_t nw[NW], chosen[MERGE ? NW : 1][2];
PR_UNROLL
    for (int i = 0; i < NW; i++)
        nw[i] = n.w[i] & pr_keep_mask<C, OFF>(i);
    const uint64_t base = (uint64_t)B * (uint64_t)(s + g.s_draw);
    const pr_draws<FOLD> drawn(keys, st.draws_fold_of(g), st.draws_of(g), base);
PR_UNROLL
    for (int blk = 0; blk < B; blk++) {
        const latmc_philox_ctr u = drawn.block(blk);
PR_UNROLL
        for (int lane = 0; lane < 4; lane++) {
            const int p = C * (4 * blk + lane) + OFF, wi = p / 4, sh = 8 * (p % 4);
            uint32_t k;
            if (NT == 7 && REPL) {
                /* 2D q <= 8, 2 colours: the multiset's top (own copy), one word of its bottom */
                k = pr_multiset_choice(table, slot * 16, ms[wi][sh >> 4], u.v[lane]);
            } else if (NT == 7) {
                /* 2D q <= 8: top of the entry (16 bytes), then one word of its bottom */
                const uint32_t idx = ((lo[wi] >> sh) & 0xffu) + g.hi_mult * ((hi[wi] >> sh) & 0xffu);
                uint32_t top[4];
                pr_entry4_at(table, idx * 16, top);
                k = (uint32_t)latmc_potts_heatbath_lookup_tree7(top, table + 4 * (g.entries + idx),
                                                                u.v[lane]);
            } else {
                uint32_t e[4];
                if (REPL && !HI) {
                    /* byte offset of the entry's copy: idx * 128 + slot * 16, from lo directly */
                    const uint32_t off = (sh >= 7 ? lo[wi] >> (sh - 7) : lo[wi] << (7 - sh)) & 0x7f80u;
                    pr_entry4_at(table, off | slot << 4, e);
                } else {
                    uint32_t idx = (lo[wi] >> sh) & 0xffu;
                    if (HI)
                        idx += g.hi_mult * ((hi[wi] >> sh) & 0xffu);
                    pr_entry4_at(table, REPL ? (idx * 8 + slot) * 16 : idx * 16, e);
                }
                /* the very lookup tests/unit/test_potts_thresholds.c checks against the scan */
                k = (uint32_t)latmc_potts_heatbath_lookup(e, NT + 1, u.v[lane]);
            }
            if (MERGE)
                chosen[MERGE ? wi : 0][sh >> 4] = k;
            else
                nw[wi] += k << sh;
        }
    }
    if (MERGE) /* k < 8: byte 1 of the first choice is 0 */
PR_UNROLL
        for (int i = 0; i < NW; i++)
            nw[i] |= pr_perm(chosen[MERGE ? i : 0][0], chosen[MERGE ? i : 0][1],
                             OFF == 0 ? 0x1410u : 0x4101u);
    pr_store<NW>(own, nw);
    return pr_count_changed<NDIM, C, NW, OFF>(nw, n.w);
}

/* ---- Metropolis ---- */

/*
 * The Metropolis thresholds in shared memory: entry 4 row + 2 a + b = the core's
 * metropolis[row][a - b + 1] (row = dn + 2 ndim; a = min(old, 1), b = min(proposal, 1),
 * so a - b = dz; a = b = 0 cannot occur), 16 copies: entry * 16 + copy.
 */
#define PR_METRO_ENTRIES (LATMC_POTTS_METRO_ROWS * 4)

PR_HD uint64_t pr_metro_entry(const struct latmc_potts_tables *t, int entry)
{
    const int row = entry / 4, a = (entry / 2) % 2, b = entry % 2;
    return t->metropolis[row][a - b + 1];
}

/* One segment, Metropolis, the proposals' and the acceptances' draws of the step st (g's
 * for a launch of one step), FOLD by their folds. */
template <int NDIM, int C, int NW, int OFF, bool FOLD, class S>
PR_HD uint32_t pr_metro_segment(const struct pr_geom &g, const S &st, uint8_t *spins, int64_t s,
                                uint32_t xs, uint32_t y, uint32_t z, const uint64_t *thr,
                                uint32_t slot, const struct cuda_philox_keys &keys)
{
    constexpr int W = 4 * NW, B = NW / C;
    uint8_t *const own = spins + W * s;
    pr_rows<NDIM, NW> n;
    pr_load_rows<NDIM, C, NW, OFF>(g, own, xs, y, z, n);
    const uint32_t q = (uint32_t)g.q;

    uint32_t nw[NW];
PR_UNROLL
    for (int i = 0; i < NW; i++)
        nw[i] = n.w[i] & pr_keep_mask<C, OFF>(i);
    uint32_t accepted = 0;
    const uint64_t base = (uint64_t)B * (uint64_t)(s + g.s_draw);
    const pr_draws<FOLD> drawn(keys, st.draws_fold_of(g), st.draws_of(g), base);
    const pr_draws<FOLD> drawn_accept(keys, st.accept_fold_of(g), st.accept_of(g), base);
PR_UNROLL
    for (int blk = 0; blk < B; blk++) {
        const latmc_philox_ctr u0 = drawn.block(blk);
        const latmc_philox_ctr u1 = drawn_accept.block(blk);
PR_UNROLL
        for (int lane = 0; lane < 4; lane++) {
            const int p = C * (4 * blk + lane) + OFF, wi = p / 4, bi = p % 4, sh = 8 * bi;
            const uint32_t old = (n.w[wi] >> sh) & 0xffu;
            /* proposal (old + 1 + floor(u0 (q - 1) / 2^32)) mod q: at most 2q - 2, so one
             * subtraction of q; as unsigned min(p, p - q) */
            const uint32_t p1 = old + 1 + pr_umulhi(u0.v[lane], q - 1);
            const uint32_t prop = pr_umin(p1, p1 - q);
            /* the neighbours' states, one byte each: x-, x+, y+, y- */
            const uint32_t sel = (uint32_t)bi | (uint32_t)(4 + bi) << 4;
            const uint32_t nb = pr_perm(pr_perm(n.l[wi], n.r[wi], sel),
                                        pr_perm(n.u[wi], n.d[wi], sel), 0x5410);
            uint32_t neq_old = pr_bytes_differing(nb, old), neq_prop = pr_bytes_differing(nb, prop);
            if (NDIM == 3) {
                /* z+, z- and two bytes 0xff, which no state (< 255) equals: they count for
                 * both and cancel in the difference */
                const uint32_t nb2 = pr_perm(n.f[wi], n.b[wi], sel) | 0xffff0000u;
                neq_old += pr_bytes_differing(nb2, old);
                neq_prop += pr_bytes_differing(nb2, prop);
            }
            /* dn = n_prop - n_old = neq_old - neq_prop; the table's row dn + 2 ndim, its
             * column from min(old, 1) and min(prop, 1) (dz = the first minus the second) */
            const uint32_t key = (neq_old + 2 * NDIM - neq_prop) * 4 + pr_umin(old, 1) * 2 +
                                 pr_umin(prop, 1);
            const bool accept = u1.v[lane] < thr[key * 16 + slot];
            accepted += accept;
            nw[wi] += (accept ? prop : old) << sh;
        }
    }
    pr_store<NW>(own, nw);
    return accepted;
}

/* ---- one thread's segments ---- */

/* off = (colour - y - z) mod c: the offset of the colour's sites in groups of c bytes. */
template <int C> PR_HD int pr_offset(int colour, uint32_t y, uint32_t z)
{
    if (C == 2)
        return (int)((colour + y + z) & 1u);
    const int t = (int)((y % 3 + z % 3) % 3);
    return colour >= t ? colour - t : colour + 3 - t;
}

/*
 * Segments first, first + stride, ... of the lattice (stride as in g): the thread's share
 * of a grid-stride loop. Segment s is the xs-th of row (y, z); a stride advances
 * (xs, y, z) as a mixed-radix counter, without divisions.
 */
template <class Segment>
PR_HD uint64_t pr_walk(const struct pr_geom &g, int64_t first, Segment segment)
{
    uint64_t count = 0;
    if (first >= g.nseg)
        return 0;
    uint32_t xs = (uint32_t)(first % g.spr);
    const int64_t row = first / g.spr;
    uint32_t y = (uint32_t)(row % g.ly), z = (uint32_t)(row / g.ly);
    for (int64_t s = first; s < g.nseg; s += g.stride) {
        /* 2D: z = 0 as a constant, and y passes L_y only when s passes the last segment */
        count += segment(s, xs, y, Segment::ndim == 2 ? 0u : z);
        xs += g.st_x;
        y += g.st_y;
        if (xs >= g.spr) {
            xs -= g.spr;
            y++;
        }
        if (Segment::ndim == 3) {
            z += g.st_z;
            if (y >= g.ly) {
                y -= g.ly;
                z++;
            }
        }
    }
    return count;
}

/*
 * One segment's update with the template offset of its row, for the step st (S below: its
 * colour and draws, which the steps below take from g and the ensembles' whole sweeps give
 * step by step); FOLD: drawn by the folds st gives (pr_draws).
 */
template <int NDIM, int C, int NW, int NT, bool REPL, bool HI, bool FOLD, class S>
PR_HD uint32_t pr_hb_colour(const struct pr_geom &g, const S &st, uint8_t *spins, int64_t s,
                            uint32_t xs, uint32_t y, uint32_t z, const uint32_t *table,
                            uint32_t slot, const struct cuda_philox_keys &keys)
{
    switch (pr_offset<C>(st.colour_of(g), y, z)) {
    case 0:
        return pr_hb_segment<NDIM, C, NW, 0, NT, REPL, HI, FOLD>(g, st, spins, s, xs, y, z, table,
                                                                 slot, keys);
    case 1:
        return pr_hb_segment<NDIM, C, NW, 1, NT, REPL, HI, FOLD>(g, st, spins, s, xs, y, z, table,
                                                                 slot, keys);
    default:
        return pr_hb_segment<NDIM, C, NW, C - 1, NT, REPL, HI, FOLD>(g, st, spins, s, xs, y, z,
                                                                     table, slot, keys);
    }
}

template <int NDIM, int C, int NW, bool FOLD, class S>
PR_HD uint32_t pr_metro_colour(const struct pr_geom &g, const S &st, uint8_t *spins, int64_t s,
                               uint32_t xs, uint32_t y, uint32_t z, const uint64_t *thr,
                               uint32_t slot, const struct cuda_philox_keys &keys)
{
    switch (pr_offset<C>(st.colour_of(g), y, z)) {
    case 0:
        return pr_metro_segment<NDIM, C, NW, 0, FOLD>(g, st, spins, s, xs, y, z, thr, slot, keys);
    case 1:
        return pr_metro_segment<NDIM, C, NW, 1, FOLD>(g, st, spins, s, xs, y, z, thr, slot, keys);
    default:
        return pr_metro_segment<NDIM, C, NW, C - 1, FOLD>(g, st, spins, s, xs, y, z, thr, slot,
                                                          keys);
    }
}

/*
 * Where a segment's step (its colour, draws and Metropolis' acceptances) comes from, the S
 * of pr_hb_step and pr_metro_step: the launch's geometry g (pr_step_of_geom: one step a
 * launch, potts_rows.cu), or a holder of its own set step by step (the ensembles' whole
 * sweeps, potts_batch_kernels.cu), any struct with these functions and `folded` (whether
 * the segments draw by the folds draws_fold_of and accept_fold_of give, pr_draws, or by
 * the names).
 */
struct pr_step_of_geom {
    static constexpr bool folded = true;
    PR_HD int colour_of(const struct pr_geom &g) const { return g.colour; }
    PR_HD const struct latmc_rng_name &draws_of(const struct pr_geom &g) const
    {
        return g.draws;
    }
    PR_HD const struct latmc_rng_name &accept_of(const struct pr_geom &g) const
    {
        return g.accept;
    }
    PR_HD const struct cuda_philox_name_fold &draws_fold_of(const struct pr_geom &g) const
    {
        return g.draws_fold;
    }
    PR_HD const struct cuda_philox_name_fold &accept_fold_of(const struct pr_geom &g) const
    {
        return g.accept_fold;
    }
};

/* The update of one segment of a launch (the walks' segment(s, xs, y, z)). */
template <int NDIM, int C, int NW, int NT, bool REPL, bool HI, class S = pr_step_of_geom>
struct pr_hb_step {
    static constexpr int ndim = NDIM;
    const struct pr_geom *g;
    uint8_t *spins;
    const uint32_t *table;
    uint32_t slot;
    const struct cuda_philox_keys *keys;
    S step = {}; /* the step's colour and draws (pr_step_of_geom: g's) */
    /* The multiset table's segments (2D 5 <= q <= 8) draw by the names: their kernel holds
     * its rows in 80 registers, which the fold's words made spill (doc/PERFORMANCE.md). */
    static constexpr bool fold = S::folded && !(NT == 7 && REPL);
    PR_HD uint32_t operator()(int64_t s, uint32_t xs, uint32_t y, uint32_t z) const
    {
        return pr_hb_colour<NDIM, C, NW, NT, REPL, HI, fold>(*g, step, spins, s, xs, y, z, table,
                                                             slot, *keys);
    }
};

template <int NDIM, int C, int NW, class S = pr_step_of_geom> struct pr_metro_step {
    static constexpr int ndim = NDIM;
    const struct pr_geom *g;
    uint8_t *spins;
    const uint64_t *thr;
    uint32_t slot;
    const struct cuda_philox_keys *keys;
    S step = {}; /* the step's colour and draws (pr_step_of_geom: g's) */
    PR_HD uint32_t operator()(int64_t s, uint32_t xs, uint32_t y, uint32_t z) const
    {
        return pr_metro_colour<NDIM, C, NW, S::folded>(*g, step, spins, s, xs, y, z, thr, slot,
                                                        *keys);
    }
};

/* ---- which kernel (host) ---- */

/* The widest segment the lattice allows: 16 or 8 bytes (2 colours), 24 or 12 (3). 0: none. */
static inline int pr_words(const struct latmc_lattice *lat, int colours)
{
    if (colours == 2)
        return lat->lx % 16 == 0 ? 4 : lat->lx % 8 == 0 ? 2 : 0;
    return lat->lx % 24 == 0 ? 6 : lat->lx % 12 == 0 ? 3 : 0;
}

/*
 * The segment width of the 2D multiset heat bath (5 <= q <= 8, 2 colours): 32 bytes (16
 * sites of the colour, four Philox blocks) where L_x allows, else pr_words'. The row
 * loads, offsets, the walk and the count are then paid once per 16 updates instead of 8,
 * and a thread has four independent Philox blocks to interleave with the lookups.
 */
static inline int pr_words_hb(const struct latmc_lattice *lat, int colours, int algorithm, int q)
{
    if (algorithm == LATMC_ALGO_HEATBATH && lat->ndim == 2 && colours == 2 && q >= 5 && q <= 8 &&
        lat->lx % 32 == 0)
        return 8;
    return pr_words(lat, colours);
}

/* The heat bath has a table kernel for q <= 8 (2D) and q <= 4 (3D). */
static inline bool pr_hb_table_q(int ndim, int q)
{
    return q <= (ndim == 2 ? 8 : 4);
}

/*
 * Call r.hb<NDIM, C, NW, NT, REPL, HI>(g) or r.metro<NDIM, C, NW>(g) for the kernel that
 * serves (g.ndim, colours, nw, g.q, algorithm), after setting the table radix in g. The
 * one place that maps a lattice to a kernel: the launcher and the host test both use it.
 * Heat-bath tables: 2D q <= 3 (NT 2) and q = 4 (NT 3): radix q, all four digits in "lo",
 * 8 copies; 2D 5 <= q <= 8: 2 colours, the multiset table (PR_SORT_*; the radix 8 only
 * enumerates the tuples while the table is built); 3 colours, radix 8, lo = x-, x+,
 * hi = y+, y-, 32-byte entries, one copy;
 * 3D q <= 3: radix q, lo = x-, x+, y+, y-, hi = z+, z-, 8 copies; 3D q = 4: the same
 * digits, one copy.
 */
template <int NDIM, int C, int NW, class Runner>
static auto pr_dispatch_rows(Runner &r, struct pr_geom &g, int algorithm)
{
    if constexpr (NW == 8) { /* pr_words_hb: the multiset heat bath only */
        (void)algorithm;
        g.radix = 8;
        g.hi_mult = 64;
        g.entries = (uint32_t)pr_hb_table_entries(NDIM, g.radix);
        return r.template hb<2, 2, 8, 7, true, false>(g);
    } else {
        const int q = g.q;
        if (algorithm != LATMC_ALGO_HEATBATH)
            return r.template metro<NDIM, C, NW>(g);
        if constexpr (NDIM == 2) {
            if (q <= 4) {
                g.radix = (uint32_t)q;
                g.hi_mult = 0;
                g.entries = (uint32_t)pr_hb_table_entries(NDIM, g.radix);
                return q <= 3 ? r.template hb<NDIM, C, NW, 2, true, false>(g)
                              : r.template hb<NDIM, C, NW, 3, true, false>(g);
            }
            g.radix = 8;
            g.hi_mult = 64;
            g.entries = (uint32_t)pr_hb_table_entries(NDIM, g.radix);
            if constexpr (C == 2)
                return r.template hb<NDIM, C, NW, 7, true, false>(g); /* the multiset table */
            else
                return r.template hb<NDIM, C, NW, 7, false, true>(g);
        } else {
            g.radix = (uint32_t)q;
            g.hi_mult = (uint32_t)(q * q * q * q);
            g.entries = (uint32_t)pr_hb_table_entries(NDIM, g.radix);
            return q <= 3 ? r.template hb<NDIM, C, NW, 2, true, true>(g)
                          : r.template hb<NDIM, C, NW, 3, false, true>(g);
        }
    }
}

template <int NDIM, class Runner>
static auto pr_dispatch_dim(Runner &r, struct pr_geom &g, int colours, int nw, int algorithm)
{
    if (colours == 2) {
        if constexpr (NDIM == 2)
            if (nw == 8)
                return pr_dispatch_rows<NDIM, 2, 8>(r, g, algorithm);
        return nw == 4 ? pr_dispatch_rows<NDIM, 2, 4>(r, g, algorithm)
                       : pr_dispatch_rows<NDIM, 2, 2>(r, g, algorithm);
    }
    return nw == 6 ? pr_dispatch_rows<NDIM, 3, 6>(r, g, algorithm)
                   : pr_dispatch_rows<NDIM, 3, 3>(r, g, algorithm);
}

template <class Runner>
static auto pr_dispatch(Runner &r, struct pr_geom &g, int colours, int nw, int algorithm)
{
    return g.ndim == 2 ? pr_dispatch_dim<2>(r, g, colours, nw, algorithm)
                       : pr_dispatch_dim<3>(r, g, colours, nw, algorithm);
}

/* ---- launch geometry (host) ---- */

/*
 * Fill g for segments of NW words and c colours, or return 0 when the lattice does not
 * suit them (L_x not a multiple of the width, extents >= 2^31). stride: threads of the
 * grid.
 */
static inline int pr_geom_init(struct pr_geom *g, const struct latmc_lattice *lat, int colours,
                               int nw, int q, int colour, struct latmc_rng_name rng,
                               int64_t stride)
{
    const int64_t w = 4 * nw;
    memset(g, 0, sizeof *g);
    if (nw % colours != 0 || lat->lx % w != 0 || lat->lx >= (INT64_C(1) << 31) ||
        lat->ly >= (INT64_C(1) << 31) || lat->lz >= (INT64_C(1) << 31))
        return 0;
    g->ndim = lat->ndim;
    g->q = q;
    g->colour = colour;
    g->lx = (uint32_t)lat->lx;
    g->ly = (uint32_t)lat->ly;
    g->lz = (uint32_t)lat->lz;
    g->spr = (uint32_t)(lat->lx / w);
    g->nseg = lat->nsites / w;
    const int64_t lx = lat->lx, plane = lat->lx * lat->ly;
    g->y_up = lx;
    g->y_up_wrap = -(lat->ly - 1) * lx;
    g->y_dn = -lx;
    g->y_dn_wrap = (lat->ly - 1) * lx;
    g->z_up = plane;
    g->z_up_wrap = -(lat->lz - 1) * plane;
    g->z_dn = -plane;
    g->z_dn_wrap = (lat->lz - 1) * plane;
    g->draws = rng;
    g->accept = latmc_rng_name_sub(rng, LATMC_POTTS_SUB_ACCEPT);
    g->stride = stride;
    g->st_x = (uint32_t)(stride % g->spr);
    const int64_t rows = stride / g->spr;
    g->st_y = (uint32_t)(rows % lat->ly);
    g->st_z = (uint32_t)(rows / lat->ly < lat->lz ? rows / lat->ly : lat->lz);
    pr_sort_weights(g->sort_w);
    return 1;
}

/* g's folds of its draws' and acceptances' names under the keys the launch passes (the
 * sim's seed's), which the launches of one step draw from. */
static inline void pr_geom_fold(struct pr_geom *g, const struct cuda_philox_keys &keys)
{
    g->draws_fold = cuda_philox_name_fold_by(keys, g->draws);
    g->accept_fold = cuda_philox_name_fold_by(keys, g->accept);
}

/*
 * Launch the row kernel for one colour where the lattice and the parameters suit it (L_x a
 * multiple of 8 with 2 colours, of 12 with 3; heat bath: q <= 8 in 2D, q <= 4 in 3D):
 * returns 1 and the launch status in *err; 0 (nothing launched) otherwise.
 */
extern "C" int cuda_potts_rows_sweep_colour(cudaStream_t stream, const struct latmc_lattice *lat,
                                            uint8_t *spins, const struct latmc_potts_chain *chain,
                                            struct latmc_rng_name rng, int colour,
                                            unsigned long long *changed, cudaError_t *err);

#endif
