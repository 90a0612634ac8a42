/*
 * Heisenberg initial state: cold and hot starts (the couplings: coupling_fill.h). Draw i
 * of a (stream, phase, sub) is lane i mod 4 of Philox block i / 4, i the site index; the
 * layout is in doc/models/heisenberg.md. The per-block draws are in heisenberg_rules.h.
 */
#include "heisenberg_ref.h"
#include "heisenberg_rules.h"
#include "cpu_omp.h"
#include "rng_streams.h"

void cpu_heisenberg_hot_start(const struct latmc_lattice *g, float *spins, uint64_t seed,
                              int replica, int n_threads)
{
    const int64_t n = g->nsites;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            latmc_heisenberg_hot_block(spins, n, seed, (uint32_t)replica, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        latmc_heisenberg_hot_block(spins, n, seed, (uint32_t)replica, b);
}

void cpu_heisenberg_cold_start(const struct latmc_lattice *g, float *spins)
{
    for (int64_t i = 0; i < g->nsites; i++) {
        float *s = spins + LATMC_HEISENBERG_COMPONENTS * i;
        s[0] = 0.0f;
        s[1] = 0.0f;
        s[2] = 1.0f;
    }
}
