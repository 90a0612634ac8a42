/*
 * Internal: the Ising chain of doc/conventions.md as pure functions, usable from C and
 * CUDA (LATMC_HOSTDEV). The CPU reference backend and the CUDA backend both call these
 * very functions, so they take the same integer decisions from the same Philox draws:
 * the configuration after n sweeps is bit-identical by construction. A faster kernel
 * (SIMD, multi-spin coding) must reproduce update_block exactly; tests/unit/
 * test_ising_chain.c re-implements the definition independently and checks the library.
 */
#ifndef LATMC_LIB_ISING_RULES_H
#define LATMC_LIB_ISING_RULES_H

#include <stdint.h>

#include <latmc/sim.h> /* LATMC_ALGO_* */

#include "ising.h"
#include "lattice_numbering.h"
#include "rng_streams.h"

/* Sum of the 2 ndim nearest-neighbour spins of s (-2 ndim .. 2 ndim). */
LATMC_HOSTDEV int latmc_ising_neighbour_sum(const struct latmc_lattice *g, const int8_t *spin,
                                            struct latmc_site s)
{
    const int64_t lx = g->lx, ly = g->ly;
    const int64_t row = s.index - s.x;         /* index of (0, y, z) */
    int sum = spin[row + latmc_wrap_up(s.x, lx)] + spin[row + latmc_wrap_down(s.x, lx)]
            + spin[s.x + lx * (latmc_wrap_up(s.y, ly) + ly * s.z)]
            + spin[s.x + lx * (latmc_wrap_down(s.y, ly) + ly * s.z)];
    if (g->ndim == 3)
        sum += spin[s.x + lx * (s.y + ly * latmc_wrap_up(s.z, g->lz))]
             + spin[s.x + lx * (s.y + ly * latmc_wrap_down(s.z, g->lz))];
    return sum;
}

/*
 * The new value of spin `old` whose neighbour sum has table index k = (n + 2 ndim) / 2,
 * from the draw u: heat bath sets +1 iff u < heatbath[k]; Metropolis flips iff
 * u < metropolis[old == +1][k].
 */
LATMC_HOSTDEV int8_t latmc_ising_new_spin(const struct latmc_ising_tables *t, int algorithm,
                                          int8_t old, int k, uint64_t u)
{
    if (algorithm == LATMC_ALGO_HEATBATH)
        return u < t->heatbath[k] ? (int8_t)1 : (int8_t)-1;
    return u < t->metropolis[old > 0][k] ? (int8_t)-old : old;
}

/*
 * The name of colour `colour`'s draws in sweep `sweep` (UPDATE stream, phase = the colour,
 * sub 0): what lib/model_ising.c's step_of names its steps, for the kernels that are
 * handed a sweep and a colour instead of the step (the CUDA launchers).
 */
LATMC_HOSTDEV struct latmc_rng_name latmc_ising_rng_name(uint64_t sweep, int colour)
{
    return latmc_rng_update_name(sweep, (uint32_t)colour, 0);
}

/*
 * Update lanes [lane0, lane1) of Philox block b of one colour (latmc_ising_update_block:
 * all four): checkerboard numbers 4b + lane0 .. 4b + lane1 - 1 (a box may start or end
 * inside a block), lane j mod 4 of block j / 4 of the step's draws `name`
 * (latmc_ising_rng_name: UPDATE stream, the sweep, phase = colour, sub = 0). Returns how
 * many spins changed.
 */
LATMC_HOSTDEV uint64_t latmc_ising_update_lanes(const struct latmc_lattice *g, int8_t *spins,
                                                const struct latmc_ising_tables *t,
                                                int algorithm, uint64_t seed,
                                                struct latmc_rng_name name, int colour, int64_t b,
                                                int lane0, int lane1)
{
    const int64_t half = g->nsites / 2;
    const int two_d = 2 * g->ndim;
    const latmc_philox_ctr r = latmc_rng_name_block(seed, name, (uint64_t)b);
    uint64_t changed = 0;
    struct latmc_site s = latmc_checkerboard_site(g, colour, 4 * b + lane0);
    for (int lane = lane0; lane < lane1 && 4 * b + lane < half; lane++) {
        if (lane > lane0)
            latmc_checkerboard_next(g, colour, &s);
        const int k = (latmc_ising_neighbour_sum(g, spins, s) + two_d) / 2;
        const int8_t old = spins[s.index];
        const int8_t new_spin = latmc_ising_new_spin(t, algorithm, old, k, r.v[lane]);
        changed += new_spin != old;
        spins[s.index] = new_spin;
    }
    return changed;
}

/* All four lanes of block b (the whole block). */
LATMC_HOSTDEV uint64_t latmc_ising_update_block(const struct latmc_lattice *g, int8_t *spins,
                                                const struct latmc_ising_tables *t,
                                                int algorithm, uint64_t seed,
                                                struct latmc_rng_name name, int colour, int64_t b)
{
    return latmc_ising_update_lanes(g, spins, t, algorithm, seed, name, colour, b, 0, 4);
}

/* ---- random +-1 couplings (desc.couplings = LATMC_COUPLINGS_BIMODAL) ---- */

/*
 * The coupled neighbour sum n = sum_j eps_ij s_j over the 2 ndim neighbours j of s, with
 * eps[ndim i + mu] = +-1 the coupling of site i with i + e_mu (the layout of
 * latmc_sim_get_couplings): the bond to i - e_mu is eps[ndim (i - e_mu) + mu]. Still an
 * integer in -2 ndim .. 2 ndim of the parity of 2 ndim, so the table index
 * k = (n + 2 ndim) / 2 and the decision tables are those of the uniform model.
 */
LATMC_HOSTDEV int latmc_ising_coupled_sum(const struct latmc_lattice *g, const int8_t *spin,
                                          const int8_t *eps, struct latmc_site s)
{
    const int64_t lx = g->lx, ly = g->ly;
    const int nd = g->ndim;
    const int64_t row = s.index - s.x;         /* index of (0, y, z) */
    const int64_t xp = row + latmc_wrap_up(s.x, lx), xm = row + latmc_wrap_down(s.x, lx);
    const int64_t yp = s.x + lx * (latmc_wrap_up(s.y, ly) + ly * s.z);
    const int64_t ym = s.x + lx * (latmc_wrap_down(s.y, ly) + ly * s.z);
    const int8_t *own = eps + nd * s.index;
    int sum = own[0] * spin[xp] + eps[nd * xm] * spin[xm]
            + own[1] * spin[yp] + eps[nd * ym + 1] * spin[ym];
    if (nd == 3) {
        const int64_t zp = s.x + lx * (s.y + ly * latmc_wrap_up(s.z, g->lz));
        const int64_t zm = s.x + lx * (s.y + ly * latmc_wrap_down(s.z, g->lz));
        sum += own[2] * spin[zp] + eps[nd * zm + 2] * spin[zm];
    }
    return sum;
}

/*
 * latmc_ising_update_block with couplings: the same sites, draws, tables and decisions,
 * the neighbour sum replaced by the coupled sum. (A separate function, not a NULL test
 * inside the uniform one, so that the uniform chain's code stays exactly as it was.)
 */
LATMC_HOSTDEV uint64_t latmc_ising_update_lanes_coupled(const struct latmc_lattice *g,
                                                        int8_t *spins, const int8_t *eps,
                                                        const struct latmc_ising_tables *t,
                                                        int algorithm, uint64_t seed,
                                                        struct latmc_rng_name name, int colour,
                                                        int64_t b, int lane0, int lane1)
{
    const int64_t half = g->nsites / 2;
    const int two_d = 2 * g->ndim;
    const latmc_philox_ctr r = latmc_rng_name_block(seed, name, (uint64_t)b);
    uint64_t changed = 0;
    struct latmc_site s = latmc_checkerboard_site(g, colour, 4 * b + lane0);
    for (int lane = lane0; lane < lane1 && 4 * b + lane < half; lane++) {
        if (lane > lane0)
            latmc_checkerboard_next(g, colour, &s);
        const int k = (latmc_ising_coupled_sum(g, spins, eps, s) + two_d) / 2;
        const int8_t old = spins[s.index];
        const int8_t new_spin = latmc_ising_new_spin(t, algorithm, old, k, r.v[lane]);
        changed += new_spin != old;
        spins[s.index] = new_spin;
    }
    return changed;
}

LATMC_HOSTDEV uint64_t latmc_ising_update_block_coupled(const struct latmc_lattice *g,
                                                        int8_t *spins, const int8_t *eps,
                                                        const struct latmc_ising_tables *t,
                                                        int algorithm, uint64_t seed,
                                                        struct latmc_rng_name name, int colour,
                                                        int64_t b)
{
    return latmc_ising_update_lanes_coupled(g, spins, eps, t, algorithm, seed, name, colour,
                                            b, 0, 4);
}

/* Hot start of block b: site i from lane i mod 4 of INIT block i / 4 (sweep 0, phase 0,
 * sub 0), +1 when the draw's top bit is clear. */
/*
 * The rule on a box (lattice_numbering.h, struct latmc_box_geom): lanes [lane0, lane1)
 * of Philox block b of the whole lattice's numbering, each with its draw (lane j mod 4
 * of block j / 4, as latmc_ising_update_lanes), the site and its neighbours in the box's
 * memory (spins, and eps: NULL uniform, else the +-J couplings of the local lattice,
 * eps[ndim i + mu]). The caller passes only lanes whose sites lie in the box's own
 * planes. So a box writes what the whole lattice's update writes there, bit for bit: the
 * CPU's slab-only storage and the CUDA byte leaf's boxes run it.
 */
LATMC_HOSTDEV uint64_t latmc_ising_update_lanes_box(const struct latmc_box_geom *g,
                                                    int8_t *spins, const int8_t *eps,
                                                    const struct latmc_ising_tables *t,
                                                    int algorithm, uint64_t seed,
                                                    struct latmc_rng_name name, int colour,
                                                    int64_t b, int lane0, int lane1)
{
    const int two_d = 2 * g->global.ndim;
    const latmc_philox_ctr r = latmc_rng_name_block(seed, name, (uint64_t)b);
    uint64_t changed = 0;
    for (int lane = lane0; lane < lane1; lane++) {
        const struct latmc_site s = latmc_box_checkerboard_site(g, colour, 4 * b + lane);
        const int sum = eps ? latmc_ising_coupled_sum(&g->local, spins, eps, s)
                            : latmc_ising_neighbour_sum(&g->local, spins, s);
        const int8_t old = spins[s.index];
        const int8_t new_spin = latmc_ising_new_spin(t, algorithm, old, (sum + two_d) / 2,
                                                     r.v[lane]);
        changed += new_spin != old;
        spins[s.index] = new_spin;
    }
    return changed;
}

LATMC_HOSTDEV void latmc_ising_hot_block(int8_t *spins, int64_t n, uint64_t seed, int64_t b)
{
    const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        spins[4 * b + lane] = (r.v[lane] >> 31) ? (int8_t)-1 : (int8_t)1;
}

#endif /* LATMC_LIB_ISING_RULES_H */
