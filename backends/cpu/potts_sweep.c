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
                             const struct latmc_potts_chain *ch, uint64_t sweep, int colour,
                             int64_t b)
{
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    return latmc_potts_update_block(g, spins, ch, sweep, colour, b, n_of);
}

/* Lanes [lane_begin, lane_end) of block b of one colour; returns how many changed. */
static uint64_t update_lanes(const struct latmc_lattice *g, uint8_t *spins,
                             const struct latmc_potts_chain *ch, uint64_t sweep, int colour,
                             int64_t b, int lane_begin, int lane_end)
{
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    return latmc_potts_update_lanes(g, spins, ch, sweep, colour, b, lane_begin, lane_end, n_of);
}

uint64_t cpu_potts_colour_range(const struct latmc_lattice *g, uint8_t *spins,
                                const struct latmc_potts_chain *ch, uint64_t sweep, int colour,
                                int64_t j0, int64_t j1, const struct cpu_team *team)
{
    if (j1 <= j0)
        return 0;
    /* Whole blocks [b0, b1), shared by the team; the partial blocks at either end lane by
     * lane, by member 0 (other lanes of them belong to the neighbouring range). */
    const int64_t b0 = (j0 + 3) / 4, b1 = j1 / 4;
    if (b1 < b0) /* j0 and j1 inside one block */
        return team->id != 0 ? 0
                             : update_lanes(g, spins, ch, sweep, colour, j0 / 4, (int)(j0 % 4),
                                            (int)(j1 - 4 * (j0 / 4)));
    uint64_t changed = 0;
    if (team->id == 0 && j0 % 4)
        changed += update_lanes(g, spins, ch, sweep, colour, j0 / 4, (int)(j0 % 4), 4);
    if (team->id == 0 && j1 % 4)
        changed += update_lanes(g, spins, ch, sweep, colour, b1, 0, (int)(j1 % 4));
    int64_t s0, s1;
    cpu_team_share(team, b1 - b0, &s0, &s1);
    for (int64_t b = b0 + s0; b < b0 + s1; b++)
        changed += update_block(g, spins, ch, sweep, colour, b);
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
