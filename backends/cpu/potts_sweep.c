/*
 * Potts reference kernels: colour-by-colour Metropolis and heat bath, and the hot start.
 * Plain C, written to be obviously right: every other backend and SIMD level is checked
 * against these bit for bit.
 *
 * Within one colour no two sites interact, so the sites of a colour may be updated in any
 * order or in parallel with the same result; each site's random numbers depend only on
 * (seed, sweep, colour, within-colour index, sub), never on the thread.
 */
#include <string.h>

#include "cpu_omp.h"
#include "potts_lattice.h"
#include "potts_ref.h"
#include "potts_rules.h"
#include "rng_streams.h"

/* Draw numbers (sub) of one site in one sweep. */
enum { SUB_PROPOSE = 0, SUB_ACCEPT = 1, SUB_HEATBATH = 0 };

/* Update the (up to) four sites of Philox block b of one colour; returns how many changed. */
static uint64_t update_block(const struct cpu_lattice *g, uint8_t *spins,
                             const struct potts_chain *ch, uint64_t sweep, int colour, int64_t b)
{
    const int64_t per_colour = g->nsites / ch->colours;
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_UPDATE, 0);
    const int metropolis = ch->algorithm == LATMC_ALGO_METROPOLIS;
    const latmc_philox_ctr r0 = latmc_rng_block(ch->seed, (uint64_t)b, sweep, stream,
                                                (uint32_t)colour, metropolis ? SUB_PROPOSE
                                                                             : SUB_HEATBATH);
    latmc_philox_ctr r1 = { { 0, 0, 0, 0 } };
    if (metropolis)
        r1 = latmc_rng_block(ch->seed, (uint64_t)b, sweep, stream, (uint32_t)colour, SUB_ACCEPT);
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    uint64_t changed = 0;
    struct cpu_site s = potts_colour_site(g, ch->colours, colour, 4 * b);
    for (int lane = 0; lane < 4 && 4 * b + lane < per_colour; lane++) {
        if (lane > 0)
            potts_colour_next(g, ch->colours, colour, &s);
        uint8_t nb[LATMC_POTTS_MAX_NB];
        const int n_nb = potts_gather_neighbours(g, spins, s, nb);
        const int old = spins[s.index];
        const int new_state = metropolis
            ? potts_metropolis(ch->tables, g->ndim, ch->q, old, nb, n_nb, r0.v[lane], r1.v[lane])
            : potts_heatbath(ch->tables, ch->q, nb, n_nb, r0.v[lane], n_of);
        changed += new_state != old;
        spins[s.index] = (uint8_t)new_state;
    }
    return changed;
}

/* One pass over the sites of one colour; returns the number of sites that changed. */
static uint64_t colour_pass(const struct cpu_lattice *g, uint8_t *spins,
                            const struct potts_chain *ch, uint64_t sweep, int colour,
                            int n_threads)
{
    const int64_t per_colour = g->nsites / ch->colours;
    const int64_t nblocks = (per_colour + 3) / 4;
    uint64_t changed = 0;
    if (!cpu_use_threads(n_threads, per_colour)) {
        for (int64_t b = 0; b < nblocks; b++)
            changed += update_block(g, spins, ch, sweep, colour, b);
        return changed;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static) reduction(+:changed))
    for (int64_t b = 0; b < nblocks; b++)
        changed += update_block(g, spins, ch, sweep, colour, b);
    return changed;
}

uint64_t cpu_potts_sweep(const struct cpu_lattice *g, uint8_t *spins,
                         const struct potts_chain *chain, uint64_t sweep, int n_threads)
{
    uint64_t changed = 0;
    for (int colour = 0; colour < chain->colours; colour++)
        changed += colour_pass(g, spins, chain, sweep, colour, n_threads);
    return changed;
}

/* Hot start: site i takes state floor(u q / 2^32), u = lane i mod 4 of INIT block i / 4. */
static void hot_block(uint8_t *spins, int64_t n, int q, uint64_t seed, int64_t b)
{
    const latmc_philox_ctr r = latmc_rng_block(seed, (uint64_t)b, 0,
                                               latmc_rng_stream(LATMC_STREAM_INIT, 0), 0, 0);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        spins[4 * b + lane] = (uint8_t)(((uint64_t)r.v[lane] * (uint64_t)q) >> 32);
}

void cpu_potts_hot_start(const struct cpu_lattice *g, uint8_t *spins, int q, uint64_t seed,
                         int n_threads)
{
    const int64_t n = g->nsites;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            hot_block(spins, n, q, seed, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        hot_block(spins, n, q, seed, b);
}
