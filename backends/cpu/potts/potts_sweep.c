/*
 * Potts reference kernels: one colour of a sweep (a step of the core's plan) by Metropolis
 * or heat bath, and the hot start.
 * Plain C, written to be obviously right: every other backend and SIMD level is checked
 * against these bit for bit.
 *
 * Within one colour no two sites interact, so the sites of a colour may be updated in any
 * order or in parallel with the same result; each site's random numbers depend only on
 * (seed, sweep, colour, within-colour index, sub), never on the thread.
 */
#include <string.h>

#include "cpu_omp.h"
#include "potts_ref.h"
#include "potts_rules.h" /* the per-block update and hot start, shared with every backend */

/* Update the (up to) four sites of Philox block b of one colour; returns how many changed. */
static uint64_t update_block(const struct latmc_lattice *g, uint8_t *spins,
                             const struct latmc_potts_chain *ch, struct latmc_rng_name name,
                             int colour, int64_t b)
{
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    return latmc_potts_step_lanes(g, spins, ch, name, colour, b, 0, 4, n_of);
}

/* Lanes [lane_begin, lane_end) of block b of one colour; returns how many changed. */
static uint64_t update_lanes(const struct latmc_lattice *g, uint8_t *spins,
                             const struct latmc_potts_chain *ch, struct latmc_rng_name name,
                             int colour, int64_t b, int lane_begin, int lane_end)
{
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    return latmc_potts_step_lanes(g, spins, ch, name, colour, b, lane_begin, lane_end, n_of);
}

uint64_t cpu_potts_colour_range(const struct latmc_lattice *g, uint8_t *spins,
                                const struct latmc_potts_chain *ch, struct latmc_rng_name name,
                                int colour, int64_t j0, int64_t j1, const struct cpu_team *team)
{
    const struct cpu_block_share share = cpu_team_blocks(team, j0, j1);
    uint64_t changed = 0;
    for (int k = 0; k < share.n_partial; k++)
        changed += update_lanes(g, spins, ch, name, colour, share.partial[k].b,
                                share.partial[k].l0, share.partial[k].l1);
    for (int64_t b = share.whole_begin; b < share.whole_end; b++)
        changed += update_block(g, spins, ch, name, colour, b);
    return changed;
}

void cpu_potts_hot_start(const struct latmc_lattice *g, uint8_t *spins, int q, uint64_t seed,
                         int n_threads)
{
    const int64_t n = g->nsites;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            latmc_potts_hot_block(spins, n, q, seed, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        latmc_potts_hot_block(spins, n, q, seed, b);
}

/* ---- slab-only storage (cpu_backend.h, struct cpu_slab) ---- */

uint64_t cpu_potts_colour_range_slab(const struct latmc_lattice *global,
                                     const struct latmc_lattice *local, int64_t origin,
                                     uint8_t *spins, const struct latmc_potts_chain *ch,
                                     struct latmc_rng_name name, int colour, int64_t j0,
                                     int64_t j1, const struct cpu_team *team)
{
    /* the partition of cpu_potts_colour_range; the box's rule (lib/potts_rules.h) */
    const struct latmc_box_geom g = { *global, *local, origin };
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    const struct cpu_block_share share = cpu_team_blocks(team, j0, j1);
    uint64_t changed = 0;
    for (int k = 0; k < share.n_partial; k++)
        changed += latmc_potts_step_lanes_box(&g, spins, ch, name, colour,
                                                share.partial[k].b, share.partial[k].l0,
                                                share.partial[k].l1, n_of);
    for (int64_t b = share.whole_begin; b < share.whole_end; b++)
        changed += latmc_potts_step_lanes_box(&g, spins, ch, name, colour, b, 0, 4, n_of);
    return changed;
}

void cpu_potts_hot_range(uint8_t *out, int64_t i0, int64_t i1, int q, uint64_t seed)
{
    for (int64_t b = i0 / 4; 4 * b < i1; b++) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane;
            if (i >= i0 && i < i1) /* latmc_potts_hot_block's rule */
                out[i - i0] = (uint8_t)(((uint64_t)r.v[lane] * (uint64_t)q) >> 32);
        }
    }
}
