/*
 * Ising reference kernels: checkerboard Metropolis and heat bath, and the hot start.
 * Plain C, written to be obviously right: the chains of every other backend and SIMD
 * level are checked against these bit for bit.
 *
 * Within one colour no two sites interact, so the sites of a colour may be updated in
 * any order or in parallel with the same result; each site's random number depends
 * only on (seed, sweep, colour, checkerboard index), never on the thread.
 */
#include "ising_ref.h"
#include "cpu_omp.h"
#include "rng_streams.h"

/* Update the (up to) four sites of Philox block b of one colour; returns how many changed. */
static inline uint64_t update_block(const struct cpu_lattice *g, int8_t *spins,
                                    const struct latmc_ising_tables *t, int algorithm,
                                    uint64_t seed, uint64_t sweep, int colour, int64_t b)
{
    const int64_t half = g->nsites / 2;
    const int two_d = 2 * g->ndim;
    const latmc_philox_ctr r = latmc_rng_block(seed, (uint64_t)b, sweep, LATMC_STREAM_UPDATE,
                                               (uint32_t)colour, 0);
    uint64_t changed = 0;
    struct cpu_site s = cpu_checkerboard_site(g, colour, 4 * b);
    for (int lane = 0; lane < 4 && 4 * b + lane < half; lane++) {
        if (lane > 0)
            cpu_checkerboard_next(g, colour, &s);
        const int k = (cpu_ising_neighbour_sum(g, spins, s) + two_d) / 2;
        const int8_t old = spins[s.index];
        const uint64_t u = r.v[lane];
        int8_t new_spin;
        if (algorithm == LATMC_ALGO_HEATBATH)
            new_spin = u < t->heatbath[k] ? 1 : -1;
        else
            new_spin = u < t->metropolis[old > 0][k] ? (int8_t)-old : old;
        changed += new_spin != old;
        spins[s.index] = new_spin;
    }
    return changed;
}

/* One pass over the sites of one colour; returns the number of spins that changed. */
static uint64_t colour_pass(const struct cpu_lattice *g, int8_t *spins,
                            const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                            uint64_t sweep, int colour, int n_threads)
{
    const int64_t half = g->nsites / 2;
    const int64_t nblocks = (half + 3) / 4;
    uint64_t changed = 0;
    if (!cpu_use_threads(n_threads, half)) {
        for (int64_t b = 0; b < nblocks; b++)
            changed += update_block(g, spins, t, algorithm, seed, sweep, colour, b);
        return changed;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static) reduction(+:changed))
    for (int64_t b = 0; b < nblocks; b++)
        changed += update_block(g, spins, t, algorithm, seed, sweep, colour, b);
    return changed;
}

uint64_t cpu_ising_sweep(const struct cpu_lattice *g, int8_t *spins,
                         const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                         uint64_t sweep, int n_threads)
{
    uint64_t changed = 0;
    for (int colour = 0; colour < 2; colour++)
        changed += colour_pass(g, spins, t, algorithm, seed, sweep, colour, n_threads);
    return changed;
}

/* Hot start: independent +-1 spins, site i from lane i mod 4 of INIT block i / 4, +1 when
 * the top bit is clear. */
static inline void hot_block(int8_t *spins, int64_t n, uint64_t seed, int64_t b)
{
    const latmc_philox_ctr r = latmc_rng_block(seed, (uint64_t)b, 0, LATMC_STREAM_INIT, 0, 0);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        spins[4 * b + lane] = (r.v[lane] >> 31) ? -1 : 1;
}

void cpu_ising_hot_start(const struct cpu_lattice *g, int8_t *spins, uint64_t seed, int n_threads)
{
    const int64_t n = g->nsites;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            hot_block(spins, n, seed, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        hot_block(spins, n, seed, b);
}
