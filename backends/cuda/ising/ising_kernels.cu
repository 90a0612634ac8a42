/*
 * Ising on the GPU: hot start and the checkerboard update on the byte layout.
 *
 * These run where the multi-spin coded kernels (ising_packed.cu) do not: L_x not a multiple
 * of 16, a threshold outside 32 bits (extreme beta), or
 * LATMC_CUDA_KERNELS=reference; the Ising leaves choose (ising/). Two update kernels, both following
 * the chain of doc/conventions.md bit for bit:
 *
 * - ising_sweep_colour_kernel (any extents): one thread per Philox block of four
 *   same-colour sites, running latmc_ising_update_block(), the very function of the CPU
 *   reference. Six single-byte memory instructions per site (own spin, 4 or 6 neighbours,
 *   store), strided by 2 within a warp.
 *
 * - ising_sweep_rows_kernel (L_x a multiple of 8): one thread per segment of W = 8 or 16
 *   consecutive bytes of one row, i.e. W/2 sites of the colour, whose draws are exactly
 *   Philox blocks (W/8) s .. (W/8) s + W/8 - 1 of the colour (s: the segment's number;
 *   see ising_sweep_rows_kernel). The segment and the same segment of the rows above and
 *   below (and before/after in z) are read as vectors (uint2/uint4), one extra byte for
 *   the x neighbour across the segment's edge; the neighbour counts come from byte-wise
 *   masked additions in registers, the decisions from the same integer thresholds (a
 *   table in shared memory) and the same draws, and the segment is written back with one
 *   vector store. 2D, W = 16: 5 global memory instructions (+ 8 shared-memory table
 *   reads) per 8 sites instead of 48 global ones.
 *
 * - ising_bytes_walk_kernel (+-J couplings, and uniform couplings where L_x is not a
 *   multiple of 8): the chunk walk of ising_bytes_walk.cuh, a warp taking chunks of 128
 *   sites of the colour with the pass's folded draws (the ensembles' kernels' walk).
 *
 * The per-block kernels (ising_sweep_colour_kernel and, with +-J couplings,
 * ising_sweep_coupled_kernel: latmc_ising_update_block_coupled, one int8 coupling per bond)
 * run under LATMC_CUDA_KERNELS=reference and for lattices past the walk's 32-bit indices.
 *
 * Sites of one colour never interact, so the order in which threads run does not matter.
 */
#include "cuda_kernel_choice.cuh"
#include "cuda_kernels.h"
#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_bytes_walk.cuh"
#include "ising_rules.h"

__global__ void ising_sweep_colour_kernel(struct latmc_lattice g, int8_t *spins,
                                          const struct latmc_ising_tables *tables, int algorithm,
                                          uint64_t seed, struct latmc_rng_name name,
                                          int colour, unsigned long long *changed)
{
    const int64_t nblocks = (g.nsites / 2 + 3) / 4;
    uint64_t n_changed = 0;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride())
        n_changed += latmc_ising_update_block(&g, spins, tables, algorithm, seed, name, colour, b);
    cuda_warp_add(changed, n_changed);
}

/* The per-block kernel with +-J couplings (eps: int8 +-1, eps[ndim i + mu], on the device):
 * latmc_ising_update_block_coupled, the CPU reference's function. */
__global__ void ising_sweep_coupled_kernel(struct latmc_lattice g, int8_t *spins,
                                           const int8_t *eps,
                                           const struct latmc_ising_tables *tables,
                                           int algorithm, uint64_t seed,
                                           struct latmc_rng_name name, int colour,
                                           unsigned long long *changed)
{
    const int64_t nblocks = (g.nsites / 2 + 3) / 4;
    uint64_t n_changed = 0;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride())
        n_changed += latmc_ising_update_block_coupled(&g, spins, eps, tables, algorithm, seed,
                                                      name, colour, b);
    cuda_warp_add(changed, n_changed);
}

/* ---- the row-segment kernel ---- */

/* NW 32-bit words of spins at p (aligned to 4 NW bytes): one or two vector accesses. */
template <int NW> __device__ __forceinline__ void seg_load(const int8_t *p, uint32_t *w)
{
    if (NW == 2) {
        const uint2 v = *(const uint2 *)p;
        w[0] = v.x; w[1] = v.y;
    } else {
        for (int i = 0; i < NW / 4; i++) {
            const uint4 v = ((const uint4 *)p)[i];
            w[4 * i] = v.x; w[4 * i + 1] = v.y; w[4 * i + 2] = v.z; w[4 * i + 3] = v.w;
        }
    }
}

template <int NW> __device__ __forceinline__ void seg_store(int8_t *p, const uint32_t *w)
{
    if (NW == 2) {
        *(uint2 *)p = make_uint2(w[0], w[1]);
    } else {
        for (int i = 0; i < NW / 4; i++)
            ((uint4 *)p)[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
    }
}

/*
 * Spins +1 / -1 are the bytes 0x01 / 0xff: bit 1 of a byte is set iff the spin is -1, so
 * w & NEG2 holds 2 per -1 spin, 0 per +1 spin, byte by byte. Adding such words adds the
 * bytes independently (at most 2 * 6 = 12 per byte, no carry into the next byte).
 */
#define NEG2 0x02020202u

/* m[] += 2 x (the -1 spins of the NW words at p), byte by byte. */
template <int NW> __device__ __forceinline__ void seg_add_neg(const int8_t *p, uint32_t *m)
{
    uint32_t v[NW];
    seg_load<NW>(p, v);
    for (int i = 0; i < NW; i++)
        m[i] += v[i] & NEG2;
}

/*
 * Segment s (0 <= s < N / W, W = 4 NW bytes) is bytes [W s, W s + W) of the lattice: row
 * r = s / (L_x / W) (r = y + L_y z), x from x0 = W (s mod L_x / W). Its sites of colour c
 * are at byte offsets p = 2 m + par, m = 0 .. W/2 - 1, par = (c + y + z) & 1, with
 * within-colour numbers j = x0 / 2 + m + (L_x / 2) r = (W / 2) s + m (L_x / 2 is a multiple
 * of W / 2): Philox block (W / 8) s + m / 4, lane m mod 4, exactly as
 * latmc_ising_update_block numbers them. Needs L_x a multiple of W.
 *
 * Decision of a site: its byte of the word "idx" = 2 (-1 neighbours) + 16 (own spin is -1),
 * an index into a 32-entry table in shared memory (filled from the core's tables: a
 * site with m neighbours at -1 has neighbour sum 2 ndim - 2 m, table index k = 2 ndim - m).
 */
template <int NW, bool HEATBATH>
__global__ void __launch_bounds__(CUDA_THREADS, 4)   /* <= 64 registers: 4 blocks per SM */
ising_sweep_rows_kernel(struct latmc_lattice g, int8_t *spins,
                        const struct latmc_ising_tables *tables, struct cuda_philox_keys keys,
                        struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    constexpr int W = 4 * NW;
    const int two_d = 2 * g.ndim;
    /* thr[2 m + 16 neg]: Metropolis metropolis[own == +1][k], heat bath heatbath[k];
     * k = 2 ndim - m; entries that no site can reach are 0. */
    __shared__ uint64_t thr[32];
    for (int i = threadIdx.x; i < 32; i += blockDim.x) {
        const int m = (i & 15) >> 1, neg = i >> 4, k = two_d - m;
        uint64_t t = 0;
        if ((i & 1) == 0 && k >= 0)
            t = HEATBATH ? tables->heatbath[k] : tables->metropolis[!neg][k];
        thr[i] = t;
    }
    __syncthreads();
    const int64_t lx = g.lx, ly = g.ly, plane = g.lx * g.ly;
    const int64_t seg_per_row = lx / W, nseg = g.nsites / W;
    uint64_t n_changed = 0;
    for (int64_t s = cuda_first_item(); s < nseg; s += cuda_item_stride()) {
        const int64_t r = latmc_div(s, seg_per_row);
        const int64_t x0 = W * (s - r * seg_per_row);
        const int64_t z = g.ndim == 3 ? latmc_div(r, ly) : 0, y = r - z * ly;
        const int par = (int)((colour + y + z) & 1);
        const int64_t row = r * lx;            /* index of (0, y, z) */
        int8_t *const own = spins + row + x0;

        uint32_t w[NW], idx[NW];
        for (int i = 0; i < NW; i++)
            idx[i] = 0;
        seg_load<NW>(own, w);
        /* y neighbours: the same x range of rows y +- 1 (periodic, same z) */
        seg_add_neg<NW>(own + (latmc_wrap_up(y, ly) - y) * lx, idx);
        seg_add_neg<NW>(own + (latmc_wrap_down(y, ly) - y) * lx, idx);
        if (g.ndim == 3) {
            seg_add_neg<NW>(own + (latmc_wrap_up(z, g.lz) - z) * plane, idx);
            seg_add_neg<NW>(own + (latmc_wrap_down(z, g.lz) - z) * plane, idx);
        }
        /* x neighbours: the row shifted by one byte each way. The one byte outside the
         * segment that a site of this colour needs: x0 - 1 for par = 0 (offset 0 looks
         * left), x0 + W for par = 1 (offset W - 1 looks right); periodic in x. The other
         * end gets the same byte but only feeds sites of the other colour, never used. */
        const uint32_t edge = (uint8_t)spins[row + (par == 0 ? (x0 == 0 ? lx - 1 : x0 - 1)
                                                             : (x0 + W == lx ? 0 : x0 + W))];
        for (int i = 0; i < NW; i++) {
            const uint32_t below = i > 0 ? w[i - 1] : edge << 24;    /* byte 3 = left of byte 0 */
            const uint32_t above = i < NW - 1 ? w[i + 1] : edge;     /* byte 0 = right of byte 3 */
            const uint32_t left = __funnelshift_l(below, w[i], 8);   /* byte q = spin q - 1 */
            const uint32_t right = __funnelshift_r(w[i], above, 8);  /* byte q = spin q + 1 */
            idx[i] += (left & NEG2) + (right & NEG2) + ((w[i] & NEG2) << 3);
        }

        for (int blk = 0; blk < W / 8; blk++) {
            const latmc_philox_ctr u =
                cuda_philox_named_draws(keys, name, (uint64_t)(W / 8) * (uint64_t)s + blk);
            for (int lane = 0; lane < 4; lane++) {
                /* byte offset p = 8 blk + 2 lane + par: word p / 4, byte p mod 4 */
                const int wi = 2 * blk + (lane >> 1), sh = 8 * (2 * (lane & 1) + par);
                const uint32_t i = (idx[wi] >> sh) & 31u;
                const bool below = u.v[lane] < thr[i];
                /* Metropolis: flip iff below; heat bath: new spin +1 iff below, a change iff
                 * that differs from the old spin (-1 iff i >= 16). A change of a +-1 byte is
                 * an xor with 0xfe. */
                const bool flip = HEATBATH ? below == (i >= 16) : below;
                if (flip) {
                    w[wi] ^= 0xfeu << sh;
                    n_changed++;
                }
            }
        }
        seg_store<NW>(own, w);
    }
    cuda_warp_add(changed, n_changed);
}

template <int NW>
static void launch_rows(cudaStream_t stream, const struct latmc_lattice *g, int8_t *spins,
                        const struct latmc_ising_tables *tables, int algorithm, uint64_t seed,
                        struct latmc_rng_name name, int colour, unsigned long long *changed)
{
    const struct cuda_philox_keys keys = cuda_philox_round_keys(seed);
    /* resident waves of blocks (cuda_wave_grid: up to 4, 16 segments a thread a wave):
     * each thread strides over many segments, and a block's table copy and barrier, whose
     * loads wait on the tables in global memory, are paid once per many (capped at
     * CUDA_CAPPED_BLOCKS, a thread took one or two segments below 64 M sites and the
     * blocks' starts dominated: doc/PERFORMANCE.md) */
    const int64_t items = g->nsites / (4 * NW);
    const unsigned wave = algorithm == LATMC_ALGO_HEATBATH
                              ? cuda_resident_wave<ising_sweep_rows_kernel<NW, true>>()
                              : cuda_resident_wave<ising_sweep_rows_kernel<NW, false>>();
    const unsigned grid = wave == 0 ? cuda_grid_capped(items) : cuda_wave_grid(items, wave);
    if (algorithm == LATMC_ALGO_HEATBATH)
        ising_sweep_rows_kernel<NW, true><<<grid, CUDA_THREADS, 0, stream>>>(
            *g, spins, tables, keys, name, colour, changed);
    else
        ising_sweep_rows_kernel<NW, false><<<grid, CUDA_THREADS, 0, stream>>>(
            *g, spins, tables, keys, name, colour, changed);
}

/*
 * One colour of a whole lattice by the chunk walk (ising_bytes_walk.cuh): the grid's warps
 * take chunks c = its warp, + the grid's warps, ..., each lane's place stepped by `stride`
 * (the grid's warps' chunks of sites). f: the pass's fold of its name under the seed.
 */
template <bool COUPLED, int ND, bool HEATBATH>
__global__ void __launch_bounds__(CUDA_THREADS)
ising_bytes_walk_kernel(struct bytes_walk_geom g, struct bytes_step stride, int8_t *spins,
                        const int8_t *eps, const struct latmc_ising_tables *tables,
                        struct cuda_philox_folded f, int colour, unsigned long long *changed)
{
    constexpr unsigned WARPS = CUDA_THREADS / 32;
    __shared__ uint4 slots[WARPS][32];
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    const uint32_t chunks = (g.half + BYTES_CHUNK - 1) / BYTES_CHUNK,
                   first = blockIdx.x * WARPS + warp;
    const struct cuda_philox_group grp = cuda_philox_group_of(f, 0);
    struct bytes_place at = bytes_place_of(g, BYTES_CHUNK * first + lane);
    uint32_t n = 0;
    for (uint32_t c = first; c < chunks; c += gridDim.x * WARPS) { /* the same for a warp */
        n += bytes_chunk<COUPLED, ND, HEATBATH>(g, spins, eps, tables, colour, f, grp,
                                                slots[warp], c, at);
        bytes_advance(g, stride, at);
    }
    cuda_warp_add(changed, n);
}

template <typename Form>
static cudaError_t launch_walk(Form, cudaStream_t stream, const struct latmc_lattice *g,
                               int8_t *spins, const int8_t *eps,
                               const struct latmc_ising_tables *tables, uint64_t seed,
                               struct latmc_rng_name name, int colour,
                               unsigned long long *changed)
{
    constexpr auto kernel = ising_bytes_walk_kernel<Form::COUPLED, Form::ND, Form::HEATBATH>;
    const struct bytes_walk_geom w = bytes_walk_geom_of(g);
    const int64_t chunks = (w.half + BYTES_CHUNK - 1) / BYTES_CHUNK;
    /* resident waves of blocks (cuda_wave_grid, as the row-segment kernel's): a warp's
     * fold and first place are paid once for many chunks */
    const unsigned wave = cuda_resident_wave<kernel>();
    const unsigned grid =
        wave == 0 ? cuda_grid_capped(chunks * 32) : cuda_wave_grid(chunks * 32, wave);
    /* the sites of a round of the grid's warps' chunks */
    const uint64_t stride_sites = (uint64_t)grid * (CUDA_THREADS / 32) * BYTES_CHUNK;
    const struct bytes_step stride =
        bytes_step_of(&w, (uint32_t)(stride_sites < w.half ? stride_sites : w.half));
    kernel<<<grid, CUDA_THREADS, 0, stream>>>(w, stride, spins, eps, tables,
                                              cuda_philox_fold_named(seed, name), colour,
                                              changed);
    return cudaGetLastError();
}

/* The chunk walk takes this lattice: indices of spins and couplings below 2^32. */
static bool walk_takes(const struct latmc_lattice *g, bool coupled)
{
    return !cuda_reference_kernels_only() &&
           g->nsites * (coupled ? g->ndim : 1) < ((int64_t)1 << 32);
}

extern "C" cudaError_t cuda_ising_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                               int8_t *spins, const int8_t *eps,
                                               const struct latmc_ising_tables *tables,
                                               int algorithm, uint64_t seed,
                                               struct latmc_rng_name name, int colour,
                                               unsigned long long *changed)
{
    /* +-J couplings: the chunk walk (the per-block kernel with couplings past its indices
     * or when LATMC_CUDA_KERNELS=reference). Uniform: the row-segment kernel where L_x
     * allows it (16-byte segments, else 8), the chunk walk otherwise, the per-block
     * reference kernel past its indices or when LATMC_CUDA_KERNELS=reference. */
    const bool rows = g->lx % 8 == 0 && !cuda_reference_kernels_only();
    if ((eps || !rows) && walk_takes(g, eps != NULL)) {
        return bytes_form_launch(eps != NULL, g->ndim, algorithm, [&](auto form) {
            return launch_walk(form, stream, g, spins, eps, tables, seed, name, colour,
                               changed);
        });
    } else if (eps) {
        const int64_t nblocks = (g->nsites / 2 + 3) / 4;
        ising_sweep_coupled_kernel<<<cuda_grid(nblocks), CUDA_THREADS, 0, stream>>>(
            *g, spins, eps, tables, algorithm, seed, name, colour, changed);
    } else if (cuda_reference_kernels_only()) {
        const int64_t nblocks = (g->nsites / 2 + 3) / 4;
        ising_sweep_colour_kernel<<<cuda_grid(nblocks), CUDA_THREADS, 0, stream>>>(
            *g, spins, tables, algorithm, seed, name, colour, changed);
    } else if (g->lx % 16 == 0) {
        launch_rows<4>(stream, g, spins, tables, algorithm, seed, name, colour, changed);
    } else if (g->lx % 8 == 0) {
        launch_rows<2>(stream, g, spins, tables, algorithm, seed, name, colour, changed);
    } else {
        const int64_t nblocks = (g->nsites / 2 + 3) / 4;
        ising_sweep_colour_kernel<<<cuda_grid(nblocks), CUDA_THREADS, 0, stream>>>(
            *g, spins, tables, algorithm, seed, name, colour, changed);
    }
    return cudaGetLastError();
}
