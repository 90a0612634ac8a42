/*
 * The multi-spin coded Ising kernels (layout and decisions: ising_packed.h).
 *
 * One thread takes a group of NW (8, 4, 2 or 1) consecutive words of one row of the colour being updated
 * (8 NW sites, 2 NW Philox blocks). Every neighbour of those sites is a site of the other
 * colour, and the neighbours in one direction form, nibble for nibble, one word of the
 * other colour's array:
 *   x, one side   the same words of the same row (par = 1: x - 1, par = 0: x + 1)
 *   x, other side the same words shifted by one nibble, the missing nibble taken from
 *                 the word next to the group (a funnel shift)
 *   y +- 1, z +- 1 the same words of the neighbouring rows (periodic)
 * so adding the 2 ndim neighbour words and 8 x the own word gives, in every nibble, the
 * site's class (ising_packed.h): at most 6 + 8 = 14, no carry between nibbles.
 *
 * Per site the class selects a threshold: the class nibble times four is pulled out with
 * one byte permute from one of two pre-shifted copies of the class word, and read from a
 * 16-entry table in shared memory (16 distinct words: distinct banks, no conflicts), then
 * compared with the site's 32-bit Philox draw. Count per update (2D): the Philox4x32-10
 * block (20 wide multiplies, 20 three-way xors, per 4 sites), then per site a permute, a
 * shared load, a compare and a predicated xor (or or); per 8 sites about 16 more integer
 * operations (sums, shifts, population count) and per group 5 vector loads, one 32-bit
 * load and one vector store: 1/16 byte of spins per site per load.
 */
#include "cuda_kernel_choice.cuh"
#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_packed.cuh"
#include "ising_packed_groups.cuh"
#include "ising_packed_waves.cuh"

#include <latmc/sim.h> /* LATMC_ALGO_* */

/* A block's part of a colour's update: the thresholds into shared memory, then the
 * walk (packed_sweep_groups; EARLY: its loads all issued first). */
template <int NW, int ND, bool HEATBATH, int CW, bool EARLY>
__device__ __forceinline__ void packed_sweep_block(const struct packed_geom &p,
                                                   const struct packed_stride &st,
                                                   uint32_t *own_words, const uint32_t *other,
                                                   const uint32_t *own_eps,
                                                   const struct cuda_ising_packed_thresholds &thr,
                                                   const struct cuda_philox_folded &draws,
                                                   int colour, unsigned long long *changed)
{
    __shared__ uint32_t table[16];
    if (threadIdx.x == 0) {
#pragma unroll
        for (int i = 0; i < 16; i++)  /* constant indices: no local copy of thr */
            table[i] = thr.t[i];
    }
    __syncthreads();
    const unsigned long long n_changed = packed_sweep_groups<NW, ND, HEATBATH, CW, EARLY>(
        p, st, own_words, other, own_eps, (const unsigned char *)table, draws, colour);
    cuda_warp_add(changed, n_changed);
}

template <int NW, int ND, bool HEATBATH, int CW>
__global__ void __launch_bounds__(CUDA_THREADS)
ising_packed_sweep_kernel(struct packed_geom p, struct packed_stride st, uint32_t *own_words,
                          const uint32_t *other, const uint32_t *own_eps,
                          struct cuda_ising_packed_thresholds thr,
                          struct cuda_philox_folded draws, int colour,
                          unsigned long long *changed)
{
    packed_sweep_block<NW, ND, HEATBATH, CW, false>(p, st, own_words, other, own_eps, thr,
                                                    draws, colour, changed);
}

/*
 * 3D +-J: all loads of a group issued first (packed_sweep_groups' EARLY) and three blocks
 * an SM (at most 80 registers, none spilled), 24 warps to hide them instead of 16: on an
 * H200 3D +-J 1024^3 906 flips/ns against 846, 512^3 827 against 761, 256^3 (with
 * sweep_grid's one group a thread) 649 against 602 (doc/PERFORMANCE.md).
 */
#define PACKED_PMJ3_BLOCKS_PER_SM 3
template <int NW, bool HEATBATH>
__global__ void __launch_bounds__(CUDA_THREADS, PACKED_PMJ3_BLOCKS_PER_SM)
ising_packed_pmj3_kernel(struct packed_geom p, struct packed_stride st, uint32_t *own_words,
                         const uint32_t *other, const uint32_t *own_eps,
                         struct cuda_ising_packed_thresholds thr,
                         struct cuda_philox_folded draws, int colour,
                         unsigned long long *changed)
{
    packed_sweep_block<NW, 6, HEATBATH, 2, true>(p, st, own_words, other, own_eps, thr,
                                                 draws, colour, changed);
}

/*
 * Sums from the packed layout. Every bond joins a colour-0 site to a colour-1 site, so
 * walking the colour-0 words and their 2 ndim neighbour words counts each bond once:
 * bonds = ndim N - 2 (bonds with eps s_i s_j = -1), spins = N - 2 (spins at -1).
 */
template <int NW, int ND, int CW>
__global__ void ising_packed_measure_kernel(struct packed_geom p, struct packed_stride st,
                                            const uint32_t *colour0,
                                            const uint32_t *colour1, const uint32_t *eps0,
                                            struct latmc_ising_sums *sums)
{
    uint64_t anti = 0, neg = 0, groups = 0;
    for (struct packed_walk wk = packed_walk_start(p); wk.s < st.items;
         packed_walk_next(p, st, wk)) {
        const struct packed_site at = packed_locate<NW>(p, wk, 0);
        uint32_t own[NW], mine[NW], nb[ND][NW];
        words_load<NW>(colour0 + at.base, own);
        words_load<NW>(colour1 + at.base, mine);
        packed_neighbours<NW, ND>(colour1, p, at, nb);
        packed_apply_couplings<NW, ND, CW>(eps0, at.base, nb);
#pragma unroll
        for (int k = 0; k < NW; k++) {
            neg += __popc(own[k]) + __popc(mine[k]);
#pragma unroll
            for (int d = 0; d < ND; d++)
                anti += __popc(own[k] ^ nb[d][k]);
        }
        groups++;
    }
    /* a group: 8 NW colour-0 sites with 2 ndim bonds each, 16 NW sites in all */
    const int64_t bonds = (int64_t)groups * 8 * NW * ND - 2 * (int64_t)anti;
    const int64_t spins = (int64_t)groups * 16 * NW - 2 * (int64_t)neg;
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)spins);
}

/* ---- layout conversion: thread per (row, word), 16 bytes <-> one word of each colour ---- */

/* Rows [p.row0, p.row0 + p.nrows) only: row r of the byte piece is at
 * piece + (r - p.row0) L_x (the whole lattice: row0 0, piece = the byte array). */
__global__ void ising_pack_kernel(struct packed_geom p, int64_t lx, const int8_t *piece,
                                  uint32_t *colour0, uint32_t *colour1)
{
    const int64_t n = p.nrows * p.wpr;
    for (int64_t k = cuda_first_item(); k < n; k += cuda_item_stride()) {
        const int64_t rl = latmc_div(k, p.wpr), w = k - rl * p.wpr;
        const int64_t r = p.row0 + rl, i = p.row0 * p.wpr + k;
        const int64_t z = latmc_div(r, p.ly), y = r - z * p.ly;
        const uint4 v = *(const uint4 *)(piece + rl * lx + 16 * w);
        const uint32_t b[4] = { v.x, v.y, v.z, v.w };
        uint32_t at_parity[2] = { 0, 0 };
#pragma unroll
        for (int q = 0; q < 16; q++) {
            /* byte q: x = 16 w + q, parity q & 1, nibble q >> 1; spin -1 is 0xff (bit 1) */
            const uint32_t minus = (b[q >> 2] >> (8 * (q & 3) + 1)) & 1u;
            at_parity[q & 1] |= minus << (4 * (q >> 1));
        }
        const int par0 = (int)((y + z) & 1);
        colour0[i] = at_parity[par0];
        colour1[i] = at_parity[par0 ^ 1];
    }
}

__global__ void ising_unpack_kernel(struct packed_geom p, int64_t lx, const uint32_t *colour0,
                                    const uint32_t *colour1, int8_t *piece)
{
    const int64_t n = p.nrows * p.wpr;
    for (int64_t k = cuda_first_item(); k < n; k += cuda_item_stride()) {
        const int64_t rl = latmc_div(k, p.wpr), w = k - rl * p.wpr;
        const int64_t r = p.row0 + rl, i = p.row0 * p.wpr + k;
        const int64_t z = latmc_div(r, p.ly), y = r - z * p.ly;
        const int par0 = (int)((y + z) & 1);
        uint32_t at_parity[2];
        at_parity[par0] = colour0[i];
        at_parity[par0 ^ 1] = colour1[i];
        uint32_t b[4] = { 0, 0, 0, 0 };
#pragma unroll
        for (int q = 0; q < 16; q++) {
            const uint32_t minus = (at_parity[q & 1] >> (4 * (q >> 1))) & 1u;
            b[q >> 2] |= (minus ? 0xffu : 0x01u) << (8 * (q & 3));
        }
        *(uint4 *)(piece + rl * lx + 16 * w) = make_uint4(b[0], b[1], b[2], b[3]);
    }
}

/*
 * Where the couplings of a site are: a window of whole planes of the last axis (3D: z
 * planes, 2D: rows), plane (plane0 + k) mod L_last in slot k; eps[ndim i + mu] of site i
 * at window[ndim (slot L_plane + i mod L_plane) + mu]. The whole lattice in natural order
 * is the window of plane0 0 and all planes.
 */
struct eps_window {
    const int8_t *bytes;
    int64_t plane0;
    int64_t planes;       /* L_last: the wrap of the slot */
    int64_t plane_sites;
};

__device__ __forceinline__ int8_t eps_of(const struct eps_window &w, int nd, int64_t site,
                                         int mu)
{
    const int64_t plane = latmc_div(site, w.plane_sites);
    int64_t slot = plane - w.plane0;
    if (slot < 0)
        slot += w.planes;
    return w.bytes[nd * (slot * w.plane_sites + (site - plane * w.plane_sites)) + mu];
}

/*
 * +-J couplings into the packed coupling words of colour c (CW per spin word), rows
 * [p.row0, p.row0 + p.nrows): thread per spin word; for each of its 8 sites the 2 ndim
 * bonds in packed_neighbours' direction order (0: the x neighbour at the same nibble index,
 * x - 1 for par = 1, x + 1 for par = 0; 1: the other x neighbour; 2, 3: y + 1, y - 1; 4, 5:
 * z + 1, z - 1), from eps[ndim i + mu], the coupling of site i with i + e_mu (through the
 * window: the site's plane and the one below must be in it).
 */
__global__ void ising_pack_couplings_kernel(struct packed_geom p, struct latmc_lattice g,
                                            struct eps_window eps, int colour, int cw,
                                            uint32_t *out)
{
    const int64_t n = p.nrows * p.wpr, lx = g.lx, ly = g.ly, plane = g.lx * g.ly;
    const int nd = g.ndim;
    for (int64_t k = cuda_first_item(); k < n; k += cuda_item_stride()) {
        const int64_t i = p.row0 * p.wpr + k;
        const int64_t r = latmc_div(i, p.wpr), w = i - r * p.wpr;
        const int64_t z = latmc_div(r, p.ly), y = r - z * p.ly;
        const int par = (int)((colour + y + z) & 1);
        uint32_t words[2] = { 0, 0 };
        for (int m = 0; m < 8; m++) {
            const int64_t x = 2 * (8 * w + m) + par, site = x + lx * r;
            const int64_t xm = site - x + latmc_wrap_down(x, lx);
            const int64_t ym = site + (latmc_wrap_down(y, ly) - y) * lx;
            const int64_t zm = nd == 3 ? site + (latmc_wrap_down(z, g.lz) - z) * plane : 0;
            int8_t bond[6];
            const int8_t plus_x = eps_of(eps, nd, site, 0), minus_x = eps_of(eps, nd, xm, 0);
            bond[0] = par ? minus_x : plus_x;
            bond[1] = par ? plus_x : minus_x;
            bond[2] = eps_of(eps, nd, site, 1);
            bond[3] = eps_of(eps, nd, ym, 1);
            if (nd == 3) {
                bond[4] = eps_of(eps, nd, site, 2);
                bond[5] = eps_of(eps, nd, zm, 2);
            }
            for (int d = 0; d < 2 * nd; d++)
                if (bond[d] < 0)
                    words[d / 4] |= 1u << (4 * m + d % 4);
        }
        for (int q = 0; q < cw; q++)
            out[cw * i + q] = words[q];
    }
}

/* ---- launchers ---- */

/* The geometry restricted to rows->row0 .. (NULL: the whole lattice). */
static struct packed_geom geom_rows(const struct latmc_lattice *g, int nw,
                                    const struct cuda_ising_rows *rows)
{
    struct packed_geom p = packed_geom_of(g, nw);
    if (rows) {
        p.row0 = rows->row0;
        p.nrows = rows->nrows;
        p.word_offset = rows->row_offset * p.wpr;
    }
    return p;
}

extern "C" bool cuda_ising_packed_allowed(void)
{
    return !cuda_reference_kernels_only();
}

extern "C" bool cuda_ising_packed_fits(const struct latmc_lattice *g)
{
    return g->lx % 16 == 0; /* the other extents are even: the core requires it of Ising */
}

extern "C" int cuda_ising_packed_coupling_words(const struct latmc_lattice *g)
{
    return g->ndim == 3 ? 2 : 1;
}

extern "C" cudaError_t cuda_ising_pack_couplings_planes(cudaStream_t stream,
                                                        const struct latmc_lattice *g,
                                                        int64_t p0, int64_t p1,
                                                        const int8_t *window,
                                                        int64_t window_plane0,
                                                        uint32_t *colour0, uint32_t *colour1)
{
    if (p1 <= p0)
        return cudaSuccess;
    struct packed_geom p = packed_geom_of(g, 1);
    const int64_t plane_rows = g->ndim == 3 ? g->ly : 1;
    p.row0 = p0 * plane_rows;
    p.nrows = (p1 - p0) * plane_rows;
    struct eps_window w;
    w.bytes = window;
    w.plane0 = window_plane0;
    w.planes = g->ndim == 3 ? g->lz : g->ly;
    w.plane_sites = plane_rows * g->lx;
    const int cw = cuda_ising_packed_coupling_words(g);
    for (int c = 0; c < 2; c++)
        ising_pack_couplings_kernel<<<cuda_grid_capped(p.nrows * p.wpr), CUDA_THREADS, 0, stream>>>(
            p, *g, w, c, cw, c == 0 ? colour0 : colour1);
    return cudaGetLastError();
}

extern "C" int64_t cuda_ising_packed_words(const struct latmc_lattice *g)
{
    return g->nsites / 16;
}

extern "C" bool cuda_ising_packed_thresholds_of(const struct latmc_ising_tables *t,
                                                int algorithm, int ndim,
                                                struct cuda_ising_packed_thresholds *out)
{
    const int two_d = 2 * ndim;
    for (int cls = 0; cls < 16; cls++) {
        const int m = cls & 7, minus = cls >> 3;
        out->t[cls] = 0;
        if (m > two_d)
            continue; /* no site has this class */
        const int k = two_d - m;
        if (algorithm == LATMC_ALGO_HEATBATH) {
            const uint64_t v = t->heatbath[k];
            if (v > UINT32_MAX)
                return false;
            out->t[cls] = (uint32_t)v;
        } else {
            const uint64_t v = t->metropolis[!minus][k];
            if (v == 0 || v > (uint64_t)UINT32_MAX + 1)
                return false;
            out->t[cls] = (uint32_t)(v - 1);
        }
    }
    return true;
}

extern "C" cudaError_t cuda_ising_pack(cudaStream_t stream, const struct latmc_lattice *g,
                                       const int8_t *spins, uint32_t *colour0, uint32_t *colour1)
{
    return cuda_ising_pack_rows(stream, g, 0, g->nsites / g->lx, spins, colour0, colour1);
}

extern "C" cudaError_t cuda_ising_unpack(cudaStream_t stream, const struct latmc_lattice *g,
                                         const uint32_t *colour0, const uint32_t *colour1,
                                         int8_t *spins)
{
    return cuda_ising_unpack_rows(stream, g, 0, g->nsites / g->lx, colour0, colour1, spins);
}

extern "C" cudaError_t cuda_ising_pack_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                            int64_t row0, int64_t nrows, const int8_t *piece,
                                            uint32_t *colour0, uint32_t *colour1)
{
    if (nrows <= 0)
        return cudaSuccess;
    struct packed_geom p = packed_geom_of(g, 1);
    p.row0 = row0;
    p.nrows = nrows;
    ising_pack_kernel<<<cuda_grid_capped(p.nrows * p.wpr), CUDA_THREADS, 0, stream>>>(
        p, g->lx, piece, colour0, colour1);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ising_unpack_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                              int64_t row0, int64_t nrows,
                                              const uint32_t *colour0, const uint32_t *colour1,
                                              int8_t *piece)
{
    if (nrows <= 0)
        return cudaSuccess;
    struct packed_geom p = packed_geom_of(g, 1);
    p.row0 = row0;
    p.nrows = nrows;
    ising_unpack_kernel<<<cuda_grid_capped(p.nrows * p.wpr), CUDA_THREADS, 0, stream>>>(
        p, g->lx, colour0, colour1, piece);
    return cudaGetLastError();
}

/*
 * The grid of a sweep kernel: a few resident waves striding over the groups
 * (cuda_wave_grid). Where a thread of one wave would take fewer than two groups (few
 * groups: 3D +-J 256^3 has 131,072 of 8 words against 101,376 threads of three blocks an
 * SM), one group a thread: the hardware then gives each SM its next block as one finishes,
 * where the wave's walk would leave some threads two groups and others one (256^3 on an
 * H200: 649 flips/ns against 578). Only the 3D +-J kernel (few_by_items) sizes its grid so.
 */
template <auto Kernel>
static unsigned sweep_grid(int64_t items, bool few_by_items)
{
    const unsigned wave = resident_grid<Kernel>(items);
    if (few_by_items && items < 2 * (int64_t)wave * CUDA_THREADS)
        return cuda_grid(items);
    return cuda_wave_grid(items, wave);
}

template <auto Kernel>
static void launch_kernel(cudaStream_t stream, const struct packed_geom &p, bool few_by_items,
                          uint32_t *own, const uint32_t *other, const uint32_t *own_eps,
                          const struct cuda_ising_packed_thresholds *thr,
                          const struct cuda_philox_folded &draws, int colour,
                          unsigned long long *changed)
{
    const unsigned grid = sweep_grid<Kernel>(p.nrows * p.groups, few_by_items);
    Kernel<<<grid, CUDA_THREADS, 0, stream>>>(p, packed_stride_of(p, grid), own, other,
                                              own_eps, *thr, draws, colour, changed);
}

template <int NW, int ND, bool HB, int CW>
static void launch_one(cudaStream_t stream, const struct packed_geom &p, uint32_t *own,
                       const uint32_t *other, const uint32_t *own_eps,
                       const struct cuda_ising_packed_thresholds *thr,
                       const struct cuda_philox_folded &draws, int colour,
                       unsigned long long *changed)
{
    if constexpr (ND == 6 && CW > 0)
        launch_kernel<ising_packed_pmj3_kernel<NW, HB>>(stream, p, true, own, other, own_eps,
                                                        thr, draws, colour, changed);
    else
        launch_kernel<ising_packed_sweep_kernel<NW, ND, HB, CW>>(stream, p, false, own, other,
                                                                 own_eps, thr, draws, colour,
                                                                 changed);
}

/* +-J where own_eps is set (CW coupling words a spin word), uniform couplings else. */
template <int NW, int ND>
static void launch_sweep(cudaStream_t stream, const struct latmc_lattice *g,
                         const struct cuda_ising_rows *rows, uint32_t *own,
                         const uint32_t *other, const uint32_t *own_eps,
                         const struct cuda_ising_packed_thresholds *thr, bool heatbath,
                         const struct cuda_philox_folded &draws, int colour,
                         unsigned long long *changed)
{
    constexpr int CW = ND == 6 ? 2 : 1;
    const struct packed_geom p = geom_rows(g, NW, rows);
    if (own_eps) {
        if (heatbath)
            launch_one<NW, ND, true, CW>(stream, p, own, other, own_eps, thr, draws, colour,
                                         changed);
        else
            launch_one<NW, ND, false, CW>(stream, p, own, other, own_eps, thr, draws, colour,
                                          changed);
        return;
    }
    if (heatbath)
        launch_one<NW, ND, true, 0>(stream, p, own, other, NULL, thr, draws, colour, changed);
    else
        launch_one<NW, ND, false, 0>(stream, p, own, other, NULL, thr, draws, colour, changed);
}

extern "C" cudaError_t cuda_ising_packed_sweep_colour(
    cudaStream_t stream, const struct latmc_lattice *g, uint32_t *own, const uint32_t *other,
    const uint32_t *own_eps, const struct cuda_ising_packed_thresholds *thr, int algorithm, uint64_t seed,
    struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    return cuda_ising_packed_sweep_rows(stream, g, NULL, own, other, own_eps, thr, algorithm,
                                        seed, name, colour, changed);
}

extern "C" cudaError_t cuda_ising_packed_sweep_rows(
    cudaStream_t stream, const struct latmc_lattice *g, const struct cuda_ising_rows *rows,
    uint32_t *own, const uint32_t *other, const uint32_t *own_eps,
    const struct cuda_ising_packed_thresholds *thr, int algorithm, uint64_t seed,
    struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    if (rows && rows->nrows <= 0)
        return cudaSuccess;
    const struct cuda_philox_folded draws = cuda_philox_fold_named(seed, name);
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    const int nw = packed_words_per_thread(g);
    if (nw == 8) {
        if (g->ndim == 3) launch_sweep<8, 6>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
        else              launch_sweep<8, 4>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
        return cudaGetLastError();
    }
    if (g->ndim == 3) {
        if (nw == 4)      launch_sweep<4, 6>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
        else if (nw == 2) launch_sweep<2, 6>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
        else              launch_sweep<1, 6>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
    } else {
        if (nw == 4)      launch_sweep<4, 4>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
        else if (nw == 2) launch_sweep<2, 4>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
        else              launch_sweep<1, 4>(stream, g, rows, own, other, own_eps, thr, hb, draws, colour, changed);
    }
    return cudaGetLastError();
}

template <int NW, int ND>
static void launch_measure(cudaStream_t stream, const struct latmc_lattice *g,
                           const struct cuda_ising_rows *rows,
                           const uint32_t *colour0, const uint32_t *colour1,
                           const uint32_t *eps0, struct latmc_ising_sums *sums)
{
    const struct packed_geom p = geom_rows(g, NW, rows);
    const unsigned grid = cuda_grid_capped(p.nrows * p.groups);
    constexpr int CW = ND == 6 ? 2 : 1;
    if (eps0) {
        ising_packed_measure_kernel<NW, ND, CW><<<grid, CUDA_THREADS, 0, stream>>>(
            p, packed_stride_of(p, grid), colour0, colour1, eps0, sums);
        return;
    }
    ising_packed_measure_kernel<NW, ND, 0><<<grid, CUDA_THREADS, 0, stream>>>(
        p, packed_stride_of(p, grid), colour0, colour1, NULL, sums);
}

extern "C" cudaError_t cuda_ising_packed_measure(cudaStream_t stream,
                                                 const struct latmc_lattice *g,
                                                 const uint32_t *colour0, const uint32_t *colour1,
                                                 const uint32_t *eps0,
                                                 struct latmc_ising_sums *sums)
{
    return cuda_ising_packed_measure_rows(stream, g, NULL, colour0, colour1, eps0, sums);
}

extern "C" cudaError_t cuda_ising_packed_measure_rows(cudaStream_t stream,
                                                      const struct latmc_lattice *g,
                                                      const struct cuda_ising_rows *rows,
                                                      const uint32_t *colour0,
                                                      const uint32_t *colour1,
                                                      const uint32_t *eps0,
                                                      struct latmc_ising_sums *sums)
{
    if (rows && rows->nrows <= 0)
        return cudaSuccess;
    const int nw = packed_words_per_thread(g) == 8 ? 4 : packed_words_per_thread(g); /* 4 is plenty here */
    if (g->ndim == 3) {
        if (nw == 4)      launch_measure<4, 6>(stream, g, rows, colour0, colour1, eps0, sums);
        else if (nw == 2) launch_measure<2, 6>(stream, g, rows, colour0, colour1, eps0, sums);
        else              launch_measure<1, 6>(stream, g, rows, colour0, colour1, eps0, sums);
    } else {
        if (nw == 4)      launch_measure<4, 4>(stream, g, rows, colour0, colour1, eps0, sums);
        else if (nw == 2) launch_measure<2, 4>(stream, g, rows, colour0, colour1, eps0, sums);
        else              launch_measure<1, 4>(stream, g, rows, colour0, colour1, eps0, sums);
    }
    return cudaGetLastError();
}
