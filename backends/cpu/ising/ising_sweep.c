/*
 * Ising reference kernels: checkerboard Metropolis and heat bath (uniform and +-J
 * couplings), the hot start and the +-J couplings' draw.
 * Plain C, written to be obviously right: the chains of every other backend and SIMD
 * level are checked against these bit for bit.
 *
 * Within one colour no two sites interact, so the sites of a colour may be updated in
 * any order or in parallel with the same result; each site's random number depends
 * only on (seed, name, colour, checkerboard index), never on the thread.
 */
#include "ising_ref.h"
#include "cpu_omp.h"
#include "ising_rules.h" /* the per-block update and hot start, shared with every backend */

/* Block b of a colour: the uniform rule, or the +-J rule when eps is not NULL. */
static inline uint64_t update_block(const struct latmc_lattice *g, int8_t *spins,
                                    const int8_t *eps, const struct latmc_ising_tables *t,
                                    int algorithm, uint64_t seed, struct latmc_rng_name name,
                                    int colour, int64_t b)
{
    if (eps)
        return latmc_ising_update_block_coupled(g, spins, eps, t, algorithm, seed, name,
                                                colour, b);
    return latmc_ising_update_block(g, spins, t, algorithm, seed, name, colour, b);
}

/* Lanes [l0, l1) of block b of a colour: the uniform rule, or the +-J rule with eps. */
static inline uint64_t update_lanes(const struct latmc_lattice *g, int8_t *spins,
                                    const int8_t *eps, const struct latmc_ising_tables *t,
                                    int algorithm, uint64_t seed, struct latmc_rng_name name,
                                    int colour, int64_t b, int l0, int l1)
{
    if (eps)
        return latmc_ising_update_lanes_coupled(g, spins, eps, t, algorithm, seed, name,
                                                colour, b, l0, l1);
    return latmc_ising_update_lanes(g, spins, t, algorithm, seed, name, colour, b, l0, l1);
}

uint64_t cpu_ising_colour_range(const struct latmc_lattice *g, int8_t *spins, const int8_t *eps,
                                const struct latmc_ising_tables *t, int algorithm,
                                uint64_t seed, struct latmc_rng_name name, int colour,
                                int64_t j0, int64_t j1, const struct cpu_team *team)
{
    const struct cpu_block_share share = cpu_team_blocks(team, j0, j1);
    uint64_t changed = 0;
    for (int k = 0; k < share.n_partial; k++)
        changed += update_lanes(g, spins, eps, t, algorithm, seed, name, colour,
                                share.partial[k].b, share.partial[k].l0, share.partial[k].l1);
    for (int64_t b = share.whole_begin; b < share.whole_end; b++)
        changed += update_block(g, spins, eps, t, algorithm, seed, name, colour, b);
    return changed;
}

void cpu_ising_hot_start(const struct latmc_lattice *g, int8_t *spins, uint64_t seed,
                         int n_threads)
{
    const int64_t n = g->nsites;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            latmc_ising_hot_block(spins, n, seed, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        latmc_ising_hot_block(spins, n, seed, b);
}

/* ---- slab-only storage (cpu_backend.h, struct cpu_slab) ---- */

uint64_t cpu_ising_colour_range_slab(const struct latmc_lattice *global,
                                     const struct latmc_lattice *local, int64_t origin,
                                     int8_t *spins, const int8_t *eps,
                                     const struct latmc_ising_tables *t, int algorithm,
                                     uint64_t seed, struct latmc_rng_name name, int colour,
                                     int64_t j0, int64_t j1, const struct cpu_team *team)
{
    /* the partition of cpu_ising_colour_range; the box's rule (lib/ising_rules.h) */
    const struct latmc_box_geom g = { *global, *local, origin };
    const struct cpu_block_share share = cpu_team_blocks(team, j0, j1);
    uint64_t changed = 0;
    for (int k = 0; k < share.n_partial; k++)
        changed += latmc_ising_update_lanes_box(&g, spins, eps, t, algorithm, seed, name,
                                                colour, share.partial[k].b,
                                                share.partial[k].l0, share.partial[k].l1);
    for (int64_t b = share.whole_begin; b < share.whole_end; b++)
        changed += latmc_ising_update_lanes_box(&g, spins, eps, t, algorithm, seed, name,
                                                colour, b, 0, 4);
    return changed;
}

/* Sites [i0, i1) of the global hot start into out[0 ..): latmc_ising_hot_block's rule. */
void cpu_ising_hot_range(int8_t *out, int64_t i0, int64_t i1, uint64_t seed)
{
    for (int64_t b = i0 / 4; 4 * b < i1; b++) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane;
            if (i >= i0 && i < i1)
                out[i - i0] = (r.v[lane] >> 31) ? (int8_t)-1 : (int8_t)1;
        }
    }
}
