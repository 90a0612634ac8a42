// Host check (no GPU needed) of the 1-bit Ising leaf's group arithmetic
// (backends/cuda/ising/ising_bits.cu compiled with BITS_HOST_CHECK: its walk, neighbour
// words (ising_bits_walk.cuh) and class words host-callable, the intrinsics emulated):
//  - the grid-stride walk (bits_geom_rows, bits_walk_at, bits_walk_next) visits every group
//    of a colour once, each with its (gi, y, z), for grids far smaller than the lattice,
//    and over whole rows of a box (bits_geom_rows, bits_geom_pairs) those rows' groups alone
//    (the large lattices' case, which the identity rows never reach), and its 31-bit form
//    (bits_walk<uint32_t>, the bit-sliced kernels' on small lattices) the same groups;
//  - bits_neighbours gives lane i of group g (the colour's site 32 g + i in the
//    checkerboard numbering, lib/lattice_numbering.h) its neighbours' spins in the
//    directions the coupling bits follow (same word, other x side, y + 1, y - 1, z + 1,
//    z - 1), on 2D and 3D shapes with several words a row and odd / even rows and planes,
//    and pair_neighbours (a walk over pairs of groups, rows of an even number) the same
//    words as bits_neighbours for both groups of each pair;
//  - count_in and group_addresses give each lane's class as its table address (byte j of
//    address word 2 r + h: 4 x (count of neighbours at -1 + 8 own) of lane 8 j + 4 h + r,
//    the rest of the word zero);
//  - group_update (one group, as either sweep kernel runs it; the second group of a pair
//    with the pair's fold group) gives each lane j = 32 g + i of a colour the packed chain's
//    decision by its definition (ising_bits.h): output j % 4 of Philox block j / 4 of the
//    step's name (latmc_rng_name_block, unfolded), against the table entry of its class,
//    Metropolis and heat bath, groups on both sides of the fold's 2^32-block boundaries;
//  - the column counters of the measurement's projections (ising_bits_count.cuh): batches
//    of 2, 4 and 8 rows' words added by carry-save additions (the chunk's last batch short,
//    its missing rows zero words, as the kernel passes them) and the waiting word added at
//    the chunk's end give each lane its count of set bits over the chunk (1 to 2047 rows),
//    and transpose32 of the counters of both parities gives word l lane l's two counts;
//  - the host path's conversions of a box with halos (ising_bits_host.h: a part's halo
//    exchange, small set/get_spins of boxes) give, for boxes on even planes, the lattice's
//    words of each local row by the layout's definition, and back the same bytes (on an
//    odd plane they would not: the leaves refuse such boxes).
// Run: tools/bits-host-check.sh BUILD_DIR (a configured build tree, for generated headers).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "ising_bits.cu"

/* The module's per-device cache (cuda_device.c, C11 atomics) stands outside this host
 * program: the launchers' one call asks the runtime directly. */
extern "C" cudaError_t cuda_device_sm_count(int device, int *count)
{
    return cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device);
}
#include "ising_bits_host.h"
#include "ising_bits_count.cuh"

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }

/* every group once, with its coordinates, for each grid */
static int check_walk(int64_t gpr, int64_t ly, int64_t lz, int nd)
{
    latmc_lattice g; g.ndim = nd; g.lx = 64 * gpr; g.ly = ly; g.lz = nd == 3 ? lz : 1;
    g.nsites = g.lx * g.ly * g.lz;
    long bad = 0;
    for (unsigned grid : {1u, 2u, 3u, 7u}) {
        const bits_geom p = bits_geom_rows(&g, grid);
        std::vector<int> seen((size_t)p.groups, 0);
        for (int64_t t = 0; t < (int64_t)grid * CUDA_THREADS; t++) {
            /* the 31-bit walk (the bit-sliced kernels' SMALL) beside it, step for step */
            bits_walk<uint32_t> k32 = bits_walk_at<uint32_t>(p, t);
            for (bits_walk<> k = bits_walk_at(p, t); k.g < p.groups; bits_walk_next(p, k)) {
                const int64_t r = k.g / p.gpr;
                bad += k.gi != k.g % p.gpr || k.y != r % ly || k.z != r / ly;
                bad += k32.g != k.g || k32.gi != k.gi || k32.y != k.y || k32.z != k.z;
                bits_walk_next(p, k32);
                seen[(size_t)k.g]++;
            }
        }
        for (int v : seen)
            bad += v != 1;
    }
    printf("walk %dD L_x %lld x %lld x %lld: %s\n", nd, (long long)g.lx, (long long)ly,
           (long long)g.lz, bad ? "DIFFER" : "same");
    return bad != 0;
}

/* the walk over whole rows of a box with halos (bits_geom_rows, and in pairs): exactly the
 * groups of rows [row0, row0 + nrows), once each, and the lattice's numbers of their draws */
static int check_walk_rows(int64_t gpr, int64_t ly, int64_t lz, int nd)
{
    latmc_lattice g; g.ndim = nd; g.lx = 64 * gpr; g.ly = ly; g.lz = nd == 3 ? lz : 1;
    g.nsites = g.lx * g.ly * g.lz;
    const int64_t rows_all = g.nsites / g.lx;
    long bad = 0;
    for (unsigned grid : {1u, 3u}) {
        for (int64_t row0 = 0; row0 < rows_all; row0 += 1 + rows_all / 5)
        for (int64_t off : {(int64_t)-2 * (nd == 3 ? ly : 1), (int64_t)0, (int64_t)6}) {
            /* off: box 0's rows (origin 0, 2 halo planes: negative), none, a later box */
            const cuda_ising_rows rows = { row0, (rows_all - row0 + 1) / 2, off };
            for (int pairs = 0; pairs < (gpr % 2 == 0 ? 2 : 1); pairs++) {
                const bits_geom p = pairs ? bits_geom_pairs(&g, grid, &rows)
                                          : bits_geom_rows(&g, grid, &rows);
                const int64_t per = pairs ? 2 : 1; /* groups an item */
                std::vector<int> seen((size_t)(g.nsites / 64), 0);
                for (int64_t t = 0; t < (int64_t)grid * CUDA_THREADS; t++)
                    for (bits_walk<> k = bits_walk_at(p, p.g0 + t); k.g < p.groups;
                         bits_walk_next(p, k)) {
                        const int64_t r = k.g / p.gpr;
                        bad += k.gi != k.g % p.gpr || k.y != r % ly || k.z != r / ly;
                        /* the lattice's group of the item's first: its draws' name */
                        bad += per * k.g + p.name_shift != (r + off) * gpr + per * k.gi;
                        for (int64_t q = 0; q < per; q++)
                            seen[(size_t)(per * k.g + q)]++;
                    }
                for (int64_t w = 0; w < (int64_t)seen.size(); w++) {
                    const int64_t r = w / gpr;
                    bad += seen[(size_t)w] != (r >= rows.row0 && r < rows.row0 + rows.nrows);
                }
            }
        }
    }
    printf("walk over rows %dD L_x %lld x %lld x %lld: %s\n", nd, (long long)g.lx,
           (long long)ly, (long long)g.lz, bad ? "DIFFER" : "same");
    return bad != 0;
}

/* the host path's words of local rows of a box with halos (2 planes a side) from an
 * origin: the lattice's words of those rows by the layout's definition (even origin), and
 * back the bytes; returns the words that differ from the lattice's */
static long host_words_box(int64_t gpr, int64_t ly, int64_t L, int nd, int64_t origin,
                           int64_t own, long *bad_back)
{
    latmc_lattice G; G.ndim = nd; G.lx = 64 * gpr; G.ly = nd == 3 ? ly : L;
    G.lz = nd == 3 ? L : 1; G.nsites = G.lx * G.ly * G.lz;
    const int64_t pr = nd == 3 ? ly : 1, gwords = G.nsites / 64;
    std::vector<int8_t> spins((size_t)G.nsites);
    for (auto &v : spins) v = rnd() & 1u ? (int8_t)-1 : (int8_t)1;
    std::vector<uint32_t> words(2 * (size_t)gwords, 0);
    for (int c = 0; c < 2; c++)
        for (int64_t j = 0; j < G.nsites / 2; j++)
            if (spins[(size_t)latmc_checkerboard_site(&G, c, j).index] < 0)
                words[(size_t)(c * gwords + j / 32)] |= 1u << (j % 32);
    latmc_lattice loc = G;
    if (nd == 3) loc.lz = own + 4; else loc.ly = own + 4;
    loc.nsites = loc.lx * loc.ly * loc.lz;
    const int64_t rows_loc = loc.nsites / loc.lx;
    /* local plane p: the lattice's plane origin - 2 + p (mod L) */
    std::vector<int8_t> bytes((size_t)loc.nsites);
    for (int64_t r = 0; r < rows_loc; r++) {
        const int64_t P = ((origin - 2 + r / pr) % L + L) % L, R = P * pr + r % pr;
        for (int64_t x = 0; x < G.lx; x++)
            bytes[(size_t)(r * G.lx + x)] = spins[(size_t)(R * G.lx + x)];
    }
    long bad = 0;
    *bad_back = 0;
    for (int64_t row0 = 0; row0 < rows_loc; row0 += 1 + rows_loc / 4) {
        const int64_t rows = rows_loc - row0 < 3 * pr ? rows_loc - row0 : 3 * pr;
        std::vector<uint32_t> w0((size_t)(rows * gpr)), w1((size_t)(rows * gpr));
        uint32_t *const w[2] = { w0.data(), w1.data() };
        cuda_ising_bits_host_pack(&loc, row0, rows, bytes.data() + row0 * G.lx, w);
        for (int64_t k = 0; k < rows; k++) {
            const int64_t r = row0 + k;
            const int64_t P = ((origin - 2 + r / pr) % L + L) % L, R = P * pr + r % pr;
            for (int c = 0; c < 2; c++)
                for (int64_t gi = 0; gi < gpr; gi++)
                    bad += w[c][k * gpr + gi] != words[(size_t)(c * gwords + R * gpr + gi)];
        }
        std::vector<int8_t> back((size_t)(rows * G.lx), 0);
        cuda_ising_bits_host_unpack(&loc, row0, rows, w, back.data());
        for (int64_t q = 0; q < rows * G.lx; q++)
            *bad_back += back[(size_t)q] != bytes[(size_t)(row0 * G.lx + q)];
    }
    return bad;
}

static int check_host_words(int64_t gpr, int64_t ly, int64_t L, int nd)
{
    long bad = 0, odd_differ = 0;
    for (int64_t origin = 0; origin < L; origin += 2)
        for (int64_t own = 2; origin + own <= L; own += 2) {
            long back = 0;
            bad += host_words_box(gpr, ly, L, nd, origin, own, &back) + back;
            /* an odd origin turns the rows' parity: the lattice's words differ (bytes back
             * the same); what the leaves' refusal of such boxes prevents */
            if (origin + 1 + own <= L) {
                odd_differ += host_words_box(gpr, ly, L, nd, origin + 1, own, &back) > 0;
                bad += back;
                bad += odd_differ == 0;
            }
        }
    printf("host path's words of boxes %dD L_x %lld x %lld, %lld planes: %s\n", nd,
           (long long)(64 * gpr), (long long)(nd == 3 ? ly : L), (long long)L,
           bad ? "DIFFER" : "same");
    return bad != 0;
}

/* the neighbour words of every group of both colours against the spins at the sites */
template <int ND>
static int check_neighbours(int64_t gpr, int64_t ly, int64_t lz)
{
    const int nd = ND / 2;
    latmc_lattice g; g.ndim = nd; g.lx = 64 * gpr; g.ly = ly; g.lz = nd == 3 ? lz : 1;
    g.nsites = g.lx * g.ly * g.lz;
    const int64_t words = g.nsites / 64;
    std::vector<uint8_t> minus((size_t)g.nsites);
    for (auto &m : minus) m = rnd() & 1u;
    /* the 1-bit layout by its definition: colour c's site j = 32 w + i is bit i of word w */
    std::vector<uint32_t> bits(2 * (size_t)words, 0);
    for (int c = 0; c < 2; c++)
        for (int64_t j = 0; j < g.nsites / 2; j++)
            if (minus[(size_t)latmc_checkerboard_site(&g, c, j).index])
                bits[(size_t)(c * words + j / 32)] |= 1u << (j % 32);
    const bits_geom p = bits_geom_rows(&g, 1);
    long bad = 0;
    for (int c = 0; c < 2; c++) {
        const uint32_t *other = bits.data() + (c ^ 1) * words;
        for (int64_t w = 0; w < words; w++) {
            const bits_walk<> k = bits_walk_at(p, w);
            const int par = (int)((c + k.y + k.z) & 1);
            uint32_t nb[ND];
            bits_neighbours<ND>(p, other, k, par, nb);
            for (int i = 0; i < 32; i++) {
                const latmc_site s = latmc_checkerboard_site(&g, c, 32 * w + i);
                const int64_t xp = latmc_wrap_up(s.x, g.lx), xm = latmc_wrap_down(s.x, g.lx);
                const int64_t at[6] = {
                    (par ? xm : xp) + g.lx * s.row, (par ? xp : xm) + g.lx * s.row,
                    s.x + g.lx * (latmc_wrap_up(s.y, ly) + ly * s.z),
                    s.x + g.lx * (latmc_wrap_down(s.y, ly) + ly * s.z),
                    s.x + g.lx * (s.y + ly * latmc_wrap_up(s.z, g.lz)),
                    s.x + g.lx * (s.y + ly * latmc_wrap_down(s.z, g.lz)) };
                bad += s.y != k.y || s.z != k.z;
                for (int d = 0; d < ND; d++)
                    bad += ((nb[d] >> i) & 1u) != minus[(size_t)at[d]];
            }
        }
    }
    if (gpr % 2 == 0) { /* pairs: both groups' words as bits_neighbours gives them */
        const bits_geom pp = bits_geom_pairs(&g, 1);
        for (int c = 0; c < 2; c++) {
            const uint32_t *other = bits.data() + (c ^ 1) * words;
            for (int64_t w = 0; w < pp.groups; w++) {
                const bits_walk<> k = bits_walk_at(pp, w);
                const int par = (int)((c + k.y + k.z) & 1);
                uint32_t nb0[ND], nb1[ND], want0[ND], want1[ND];
                pair_neighbours<ND>(pp, other, k, par, nb0, nb1);
                bits_neighbours<ND>(p, other, bits_walk_at(p, 2 * w), par, want0);
                bits_neighbours<ND>(p, other, bits_walk_at(p, 2 * w + 1), par, want1);
                for (int d = 0; d < ND; d++)
                    bad += nb0[d] != want0[d] || nb1[d] != want1[d];
            }
        }
    }
    printf("neighbour words %dD L_x %lld x %lld x %lld: %s\n", nd, (long long)g.lx,
           (long long)ly, (long long)g.lz, bad ? "DIFFER" : "same");
    return bad != 0;
}

/* the class addresses of random neighbour and own words */
static int check_classes()
{
    long bad = 0;
    for (int n = 0; n < 200000; n++) {
        const int nb_n = n % 2 ? 6 : 4;
        uint32_t nb[6], c0 = 0, c1 = 0, c2 = 0, adr[8];
        for (int d = 0; d < nb_n; d++) {
            nb[d] = (uint32_t)rnd();
            count_in(c0, c1, c2, nb[d]);
        }
        const uint32_t own = (uint32_t)rnd();
        group_addresses(c0, c1, c2, own, adr);
        for (int j = 0; j < 4; j++)
            for (int h = 0; h < 2; h++)
                for (int r = 0; r < 4; r++) {
                    const int l = 8 * j + 4 * h + r;
                    uint32_t want = 8u * ((own >> l) & 1u);
                    for (int d = 0; d < nb_n; d++)
                        want += (nb[d] >> l) & 1u;
                    bad += ((adr[2 * r + h] >> (8 * j)) & 0xffu) != 4u * want;
                }
    }
    printf("class addresses: %s\n", bad ? "DIFFER" : "same");
    return bad != 0;
}

/* one group's decisions against the chain's definition */
template <int ND, bool HB>
static long update_cases(const uint32_t *thr, const cuda_philox_folded &f, uint64_t seed,
                         latmc_rng_name name, uint64_t g, bool second)
{
    uint32_t nb[ND];
    for (int d = 0; d < ND; d++)
        nb[d] = (uint32_t)rnd();
    const uint32_t own = (uint32_t)rnd();
    /* a pair's second group: the pair's fold group (block 8 (g - 1)), blocks 8 g + ... */
    const cuda_philox_group grp = cuda_philox_group_of(f, 8 * (second ? g - 1 : g));
    const uint32_t next = group_update<ND, HB>(nb, own, (uint32_t)(8 * g), f, grp,
                                               (const unsigned char *)thr);
    long bad = 0;
    for (int i = 0; i < 32; i++) {
        uint32_t cls = 8u * ((own >> i) & 1u);
        for (int d = 0; d < ND; d++)
            cls += (nb[d] >> i) & 1u;
        const uint64_t j = 32 * g + (uint64_t)i;
        const uint32_t u = latmc_rng_name_block(seed, name, j / 4).v[j % 4], t = thr[cls];
        const uint32_t want = HB ? (u >= t) : (((own >> i) & 1u) ^ (u <= t));
        bad += ((next >> i) & 1u) != want;
    }
    return bad;
}

static int check_update()
{
    long bad = 0, n = 0;
    for (int s = 0; s < 4; s++) {
        const uint64_t seed = rnd();
        const latmc_rng_name name = latmc_rng_name_of(rnd() & 0xffffffffffffull, 1, s & 1, 0);
        const cuda_philox_folded f = cuda_philox_fold_named(seed, name);
        alignas(4) uint32_t thr[16];
        for (auto &t : thr) t = (uint32_t)rnd();
        thr[3] = 0; thr[12] = 0xffffffffu; /* the ends: never / always */
        for (int k = 0; k < 3000; k++) {
            /* groups near 0, anywhere below 2^40 groups, and at the fold's boundaries
             * (block 2^32 m: group 2^29 m) */
            uint64_t g = k % 3 == 0 ? rnd() % 4096 : k % 3 == 1 ? rnd() % (1ull << 40)
                                                   : (1ull << 29) * (1 + rnd() % 64) - 2 + rnd() % 4;
            g &= ~1ull; /* a pair's first group; g + 1 its second */
            bad += update_cases<4, false>(thr, f, seed, name, g, false);
            bad += update_cases<4, true>(thr, f, seed, name, g + 1, true);
            bad += update_cases<6, false>(thr, f, seed, name, g + 1, true);
            bad += update_cases<6, true>(thr, f, seed, name, g, false);
            n += 4 * 32;
        }
    }
    printf("decisions against the chain's definition (%ld lanes): %s\n", n,
           bad ? "DIFFER" : "same");
    return bad != 0;
}

/* transpose32: m[r] bit c -> m[c] bit r, on random matrices */
static int check_transpose()
{
    long bad = 0;
    for (int t = 0; t < 20; t++) {
        uint32_t m[32], was[32];
        for (int r = 0; r < 32; r++)
            m[r] = was[r] = (uint32_t)rnd();
        transpose32(m);
        for (int r = 0; r < 32; r++)
            for (int c = 0; c < 32; c++)
                bad += ((m[c] >> r) & 1u) != ((was[r] >> c) & 1u);
    }
    return bad != 0;
}

/* The counters of a chunk of n rows of random words (density by `keep`), batches of AHEAD
 * as the kernel adds them: each lane's count of set bits, and two parities' counters
 * transposed into a word a lane (bits 0 .., 16 ..). */
template <int LOG_AHEAD> static int check_counts(int n, uint32_t keep)
{
    constexpr int AHEAD = 1 << LOG_AHEAD;
    std::vector<uint32_t> rows(2 * (size_t)n);
    for (auto &w : rows)
        w = (uint32_t)rnd() & ((uint32_t)rnd() | keep);
    uint32_t cx[BITS_LEVELS] = {}, co[BITS_LEVELS] = {}, pend_x = 0, pend_o = 0;
    bool half = false;
    for (int r0 = 0; r0 < n; r0 += AHEAD) {
        uint32_t wx[AHEAD], wo[AHEAD];
        for (int i = 0; i < AHEAD; i++) {
            wx[i] = r0 + i < n ? rows[2 * (size_t)(r0 + i)] : 0;
            wo[i] = r0 + i < n ? rows[2 * (size_t)(r0 + i) + 1] : 0;
        }
        count_batch<AHEAD, LOG_AHEAD>(cx, wx, pend_x, half);
        count_batch<AHEAD, LOG_AHEAD>(co, wo, pend_o, half);
        half = !half;
    }
    count_finish<LOG_AHEAD>(cx, pend_x, half);
    count_finish<LOG_AHEAD>(co, pend_o, half);
    uint32_t m[32] = {};
    for (int k = 0; k < BITS_LEVELS; k++) {
        m[k] = cx[k];
        m[16 + k] = co[k];
    }
    transpose32(m);
    long bad = 0;
    for (int l = 0; l < 32; l++) {
        uint32_t want_x = 0, want_o = 0;
        for (int r = 0; r < n; r++) {
            want_x += (rows[2 * (size_t)r] >> l) & 1u;
            want_o += (rows[2 * (size_t)r + 1] >> l) & 1u;
        }
        bad += (m[l] & 0xFFFFu) != want_x || (m[l] >> 16) != want_o;
    }
    if (bad)
        printf("counts: %ld lanes wrong (batches of %d, %d rows)\n", bad, AHEAD, n);
    return bad != 0;
}

int main()
{
    int f = check_transpose();
    for (int n : { 1, 2, 3, 7, 8, 9, 17, 64, 993, 1024, 2047 }) {
        f |= check_counts<1>(n, 0u);
        f |= check_counts<2>(n, 0xFFFFFFFFu);
        f |= check_counts<3>(n, n % 2 ? 0xFFFFFFFFu : 0u);
    }
    f |= check_classes();
    f |= check_update();
    f |= check_walk(1, 2, 1, 2);
    f |= check_walk(3, 10, 1, 2);
    f |= check_walk(2, 6, 10, 3);
    f |= check_walk(5, 4, 4, 3);
    f |= check_walk(16, 2048, 1, 2);
    f |= check_walk(1, 64, 64, 3);
    f |= check_walk_rows(1, 24, 1, 2);
    f |= check_walk_rows(2, 40, 1, 2);
    f |= check_walk_rows(3, 6, 10, 3);
    f |= check_walk_rows(4, 6, 12, 3);
    f |= check_host_words(1, 1, 12, 2);
    f |= check_host_words(3, 1, 10, 2);
    f |= check_host_words(2, 6, 8, 3);
    f |= check_host_words(1, 4, 10, 3);
    f |= check_neighbours<4>(1, 2, 1);
    f |= check_neighbours<4>(1, 40, 1);
    f |= check_neighbours<4>(3, 10, 1);
    f |= check_neighbours<6>(1, 6, 10);
    f |= check_neighbours<6>(2, 8, 6);
    f |= check_neighbours<6>(3, 2, 4);
    f |= check_neighbours<6>(1, 4, 2);
    f |= check_neighbours<4>(2, 40, 1);
    f |= check_neighbours<4>(4, 6, 1);
    f |= check_neighbours<6>(2, 6, 10);
    f |= check_neighbours<6>(6, 4, 2);
    printf("%s\n", f ? "FAIL" : "ALL SAME");
    return f;
}
