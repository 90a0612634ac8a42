/*
 * The walk of the Ising byte layout's chunk kernels (the ensembles' fused and colour
 * kernels, ising/ising_batch_bytes_kernels.cu; a whole lattice's, ising_kernels.cu): the
 * chain of the CPU reference's rule (lib/ising_rules.h, latmc_ising_update_lanes[_coupled]:
 * site j of a colour takes lane j mod 4 of Philox block j / 4 of the pass's draws, decided
 * by latmc_ising_new_spin's comparison with the tables) without calling it. A warp takes
 * chunks of 128 consecutive sites of a colour: each lane draws one of the chunk's 32
 * Philox blocks from the pass's fold of its name (cuda_philox.cuh) into the warp's slots
 * in shared memory, then decides sites lane, lane + 32, lane + 64, lane + 96 with the
 * draws read back, so that a warp's loads of a step are 32 consecutive sites of a colour
 * (a few banks apart); places (x / 2, y, z) are stepped by 32-bit additions, so a lattice
 * here has fewer than 2^32 sites and ndim N + mu < 2^32 for its couplings.
 */
#ifndef LATMC_CUDA_ISING_BYTES_WALK_CUH
#define LATMC_CUDA_ISING_BYTES_WALK_CUH

#include <stdint.h>

#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising.h"
#include "ising_rules.h"

/* A checkerboard site of the walk: its half-x index hx = x / 2, y and z (both colours
 * number their sites alike, lattice_numbering.h; x = 2 hx + (colour + y + z) mod 2). */
struct bytes_place {
    uint32_t hx, y, z;
};

/* A walk's step of a fixed number of sites of a colour as increments of hx (< L_x / 2),
 * y (< L_y) and z. */
struct bytes_step {
    uint32_t hx, y, z;
};

/* A member's geometry in 32 bits and the walk's two steps: 32 sites (a lane's next site
 * in its warp's chunk) and BYTES_CHUNK x (warps a block) sites (the warp's next chunk). */
struct bytes_walk_geom {
    uint32_t lx, ly, lz, hxn, plane, n; /* hxn = L_x / 2, plane = L_x L_y, n sites */
    uint32_t half, blocks;              /* sites of a colour, Philox blocks of a colour */
    struct bytes_step lane_step, chunk_step; /* chunk_step: warps a block chunks */
    struct bytes_step chunk_step_one;        /* one chunk */
};

#define BYTES_CHUNK 128 /* sites of a warp's chunk: 32 Philox blocks */

/* The place of site j of a colour (two divisions: a walk's start). */
__device__ __forceinline__ struct bytes_place bytes_place_of(const struct bytes_walk_geom &g,
                                                             uint32_t j)
{
    const uint32_t row = j / g.hxn;
    struct bytes_place p;
    p.hx = j - row * g.hxn;
    p.z = row / g.ly;
    p.y = row - p.z * g.ly;
    return p;
}

__device__ __forceinline__ void bytes_advance(const struct bytes_walk_geom &g,
                                              const struct bytes_step &d,
                                              struct bytes_place &p)
{
    p.hx += d.hx;
    const uint32_t carry = p.hx >= g.hxn;
    if (carry)
        p.hx -= g.hxn;
    p.y += d.y + carry; /* at most 2 L_y - 1 */
    const uint32_t wrap = p.y >= g.ly;
    if (wrap)
        p.y -= g.ly;
    p.z += d.z + wrap;
}

/* The decision of site p of `colour` with draw u: latmc_ising_new_spin on the neighbour
 * sums of latmc_ising_neighbour_sum / latmc_ising_coupled_sum (the same integers from the
 * walk's 32-bit place), as latmc_ising_update_lanes[_coupled]; 1 where the spin changed. */
template <bool COUPLED, int ND, bool HEATBATH>
__device__ __forceinline__ uint32_t bytes_update_site(const struct bytes_walk_geom &g,
                                                      int8_t *s, const int8_t *eps,
                                                      const struct latmc_ising_tables *t,
                                                      int colour, const struct bytes_place &p,
                                                      uint32_t u)
{
    const uint32_t x = 2 * p.hx + ((colour + p.y + p.z) & 1u);
    const uint32_t i = x + g.lx * (p.y + g.ly * p.z);
    const uint32_t xp = x + 1 == g.lx ? i + 1 - g.lx : i + 1;
    const uint32_t xm = x == 0 ? i + g.lx - 1 : i - 1;
    const uint32_t yp = p.y + 1 == g.ly ? i + g.lx - g.plane : i + g.lx;
    const uint32_t ym = p.y == 0 ? i + g.plane - g.lx : i - g.lx;
    int sum;
    if constexpr (COUPLED) {
        const int8_t *own = eps + ND * i;
        sum = own[0] * s[xp] + eps[ND * xm] * s[xm] + own[1] * s[yp] + eps[ND * ym + 1] * s[ym];
    } else {
        sum = s[xp] + s[xm] + s[yp] + s[ym];
    }
    if constexpr (ND == 3) {
        const uint32_t zp = p.z + 1 == g.lz ? i + g.plane - g.n : i + g.plane;
        const uint32_t zm = p.z == 0 ? i + g.n - g.plane : i - g.plane;
        if constexpr (COUPLED)
            sum += eps[ND * i + 2] * s[zp] + eps[ND * zm + 2] * s[zm];
        else
            sum += s[zp] + s[zm];
    }
    const int k = (sum + 2 * ND) >> 1; /* sum + 2 ndim >= 0 */
    const int8_t old = s[i];
    const int8_t next = latmc_ising_new_spin(
        t, HEATBATH ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS, old, k, u);
    s[i] = next;
    return next != old;
}

/*
 * Chunk c of a colour (sites 128 c .. 128 c + 127 of its numbering) by one warp, its lanes
 * at `at` (site 128 c + lane): each lane draws Philox block 32 c + lane of the pass (f,
 * grp) into the warp's slots, then decides sites 128 c + 32 k + lane (k = 0 .. 3) with
 * lane j mod 4 of block j / 4 read back. Returns the lane's flips.
 */
template <bool COUPLED, int ND, bool HEATBATH, bool WHOLE>
__device__ __forceinline__ uint32_t bytes_chunk_of(const struct bytes_walk_geom &g, int8_t *s,
                                                const int8_t *eps,
                                                const struct latmc_ising_tables *t, int colour,
                                                const struct cuda_philox_folded &f,
                                                const struct cuda_philox_group &grp,
                                                uint4 *slots, uint32_t c, struct bytes_place p)
{
    const unsigned lane = threadIdx.x & 31u;
    const uint32_t b = 32 * c + lane; /* the lane's Philox block */
    if (WHOLE || b < g.blocks) {
        const latmc_philox_ctr r = cuda_philox_folded_draws(f, grp, b);
        slots[lane] = make_uint4(r.v[0], r.v[1], r.v[2], r.v[3]);
    }
    __syncwarp();
    const uint32_t *drawn = (const uint32_t *)slots;
    uint32_t n = 0;
#pragma unroll
    for (int k = 0; k < BYTES_CHUNK / 32; k++) {
        if (WHOLE || BYTES_CHUNK * c + 32 * k + lane < g.half)
            n += bytes_update_site<COUPLED, ND, HEATBATH>(g, s, eps, t, colour, p,
                                                          drawn[32 * k + lane]);
        if (k + 1 < BYTES_CHUNK / 32)
            bytes_advance(g, g.lane_step, p);
    }
    __syncwarp(); /* the slots read before the next chunk's draws */
    return n;
}

/* The same, with no test a site where the chunk lies inside the colour (all but the
 * last chunk: the tests and their branches are some 5 % of a site's instructions). */
template <bool COUPLED, int ND, bool HEATBATH>
__device__ __forceinline__ uint32_t bytes_chunk(const struct bytes_walk_geom &g, int8_t *s,
                                                const int8_t *eps,
                                                const struct latmc_ising_tables *t, int colour,
                                                const struct cuda_philox_folded &f,
                                                const struct cuda_philox_group &grp,
                                                uint4 *slots, uint32_t c, struct bytes_place p)
{
    if (BYTES_CHUNK * (c + 1) <= g.half)
        return bytes_chunk_of<COUPLED, ND, HEATBATH, true>(g, s, eps, t, colour, f, grp, slots,
                                                           c, p);
    return bytes_chunk_of<COUPLED, ND, HEATBATH, false>(g, s, eps, t, colour, f, grp, slots, c,
                                                        p);
}

/* A step of `sites` sites of a colour of w's lattice. */
static inline struct bytes_step bytes_step_of(const struct bytes_walk_geom *w, uint32_t sites)
{
    const uint32_t rows = sites / w->hxn;
    struct bytes_step d;
    d.hx = sites - rows * w->hxn;
    d.z = rows / w->ly;
    d.y = rows - d.z * w->ly;
    return d;
}

/* A kernel instance of the walk: couplings, dimension and rule as template constants. */
template <bool COUPLED_, int ND_, bool HEATBATH_> struct bytes_form {
    static constexpr bool COUPLED = COUPLED_, HEATBATH = HEATBATH_;
    static constexpr int ND = ND_;
};

/* launch(bytes_form<...>{}) for the instance of a run-time form: the one place that turns
 * couplings, dimension and algorithm into template constants (latmc_ising_new_spin: heat
 * bath, else Metropolis). */
template <typename Launch>
static inline cudaError_t bytes_form_launch(bool coupled, int ndim, int algorithm,
                                            Launch &&launch)
{
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    if (ndim == 3) {
        if (coupled)
            return hb ? launch(bytes_form<true, 3, true>{}) : launch(bytes_form<true, 3, false>{});
        return hb ? launch(bytes_form<false, 3, true>{}) : launch(bytes_form<false, 3, false>{});
    }
    if (coupled)
        return hb ? launch(bytes_form<true, 2, true>{}) : launch(bytes_form<true, 2, false>{});
    return hb ? launch(bytes_form<false, 2, true>{}) : launch(bytes_form<false, 2, false>{});
}

/* The walk's geometry of a lattice of fewer than 2^32 sites. */
static inline struct bytes_walk_geom bytes_walk_geom_of(const struct latmc_lattice *g)
{
    struct bytes_walk_geom w;
    w.lx = (uint32_t)g->lx;
    w.ly = (uint32_t)g->ly;
    w.lz = (uint32_t)g->lz;
    w.hxn = w.lx / 2;
    w.plane = w.lx * w.ly;
    w.n = (uint32_t)g->nsites;
    w.half = w.n / 2;
    w.blocks = (w.half + 3) / 4;
    w.lane_step = bytes_step_of(&w, 32);
    w.chunk_step = bytes_step_of(&w, BYTES_CHUNK * (CUDA_THREADS / 32));
    w.chunk_step_one = bytes_step_of(&w, BYTES_CHUNK);
    return w;
}

#endif
