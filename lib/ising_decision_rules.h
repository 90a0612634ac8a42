/*
 * Internal: the Ising chain with bit-sliced decisions (parameter decisions = 1,
 * doc/models/ising-decisions.md) as pure functions for C and CUDA (LATMC_HOSTDEV).
 *
 * Sites: the checkerboard numbering of lib/lattice_numbering.h; group g of colour c holds
 * the sites j = 32 g + i, lane i = j mod 32, of that colour (global numbers, so a box, a
 * thread or a device holding part of a group draws the same words for it).
 * Draws: plane b (0 .. 31) of group g is output b mod 4 of the Philox block
 *   (block g, sweep, stream UPDATE, phase c, sub b / 4)          (rng_streams.h)
 * so one Philox call gives four planes. Lane i's number u_i has bit 31 - b equal to bit i
 * of plane b, and the site's decision is u_i < t_i with t_i today's threshold for the site
 * (lib/ising.h's tables): the chain of decisions = 0 with the u of each site drawn
 * differently, each decision with exactly the same probability t_i / 2^32.
 */
#ifndef LATMC_LIB_ISING_DECISION_RULES_H
#define LATMC_LIB_ISING_DECISION_RULES_H

#include <stdint.h>

#include <latmc/sim.h> /* LATMC_ALGO_* */

#include "bitslice_decision.h"
#include "ising.h"
#include "ising_rules.h" /* latmc_ising_rng_name */
#include "rng_streams.h"
#include "step.h"

/* Planes per Philox block, and blocks for all 32 planes. */
#define LATMC_ISING_PLANES_PER_BLOCK 4
#define LATMC_ISING_DECISION_BLOCKS (LATMC_BITSLICE_PLANES / LATMC_ISING_PLANES_PER_BLOCK)

/* The threshold of a site with spin `old` and table index k: heat bath sets +1 iff
 * u < heatbath[k], Metropolis flips iff u < metropolis[old == +1][k] (latmc_ising_new_spin). */
LATMC_HOSTDEV uint64_t latmc_ising_site_threshold(const struct latmc_ising_tables *t,
                                                  int algorithm, int8_t old, int k)
{
    return algorithm == LATMC_ALGO_HEATBATH ? t->heatbath[k] : t->metropolis[old > 0][k];
}

/* The new spin from the site's decision (as latmc_ising_new_spin with u < t = accept). */
LATMC_HOSTDEV int8_t latmc_ising_decided_spin(int algorithm, int8_t old, int accept)
{
    if (algorithm == LATMC_ALGO_HEATBATH)
        return accept ? (int8_t)1 : (int8_t)-1;
    return accept ? (int8_t)-old : old;
}

/*
 * The names of a step's planes (lib/step.h's LATMC_STEP_COLOUR_BITSLICED): block = the
 * group, the step's draws `name` (its sweep word, stream and phase) with sub = sub0 +
 * plane / 4, sub0 the step's sub. The Ising chain's steps name them (sweep, UPDATE, the
 * colour, 0): latmc_ising_rng_name.
 */
struct latmc_ising_plane_names {
    uint64_t seed;
    struct latmc_rng_name name;
    uint32_t sub0;
};

/* The names of the planes 4q .. 4q + 3 (sub sub0 + q). */
LATMC_HOSTDEV struct latmc_rng_name latmc_ising_plane_name(const struct latmc_ising_plane_names *n,
                                                           int q)
{
    return latmc_rng_name_sub(n->name, n->sub0 + (uint32_t)q);
}

/* Planes 4q .. 4q + 3 of group `group`. */
LATMC_HOSTDEV latmc_philox_ctr latmc_ising_plane_block(const struct latmc_ising_plane_names *n,
                                                       uint64_t group, int q)
{
    return latmc_rng_name_block(n->seed, latmc_ising_plane_name(n, q), group);
}

/* The names of a step (its rng and sub, lib/step.h). */
LATMC_HOSTDEV struct latmc_ising_plane_names latmc_ising_plane_names_step(
    uint64_t seed, const struct latmc_step *step)
{
    struct latmc_ising_plane_names n;
    n.seed = seed;
    n.name = step->rng;
    n.sub0 = step->sub;
    return n;
}

/* The Ising chain's names of colour `colour` in sweep `sweep` (kernels and tests handed no
 * step). */
LATMC_HOSTDEV struct latmc_ising_plane_names latmc_ising_plane_names_of(uint64_t seed,
                                                                        uint64_t sweep,
                                                                        int colour)
{
    struct latmc_ising_plane_names n;
    n.seed = seed;
    n.name = latmc_ising_rng_name(sweep, colour);
    n.sub0 = 0;
    return n;
}

/*
 * The accept mask of the `active` lanes of group `group` of colour `colour` in sweep
 * `sweep`, lane i with threshold t[i]; *planes: the planes it drew (1 .. 32, or 0 when no
 * active lane needed one). Planes are drawn four at a time, one Philox block each.
 */
LATMC_HOSTDEV uint32_t latmc_ising_group_decide(const uint64_t t[LATMC_BITSLICE_LANES],
                                                uint32_t active, uint64_t seed,
                                                uint64_t sweep, int colour, uint64_t group,
                                                int *planes)
{
    const struct latmc_ising_plane_names names = latmc_ising_plane_names_of(seed, sweep, colour);
    struct latmc_bitslice s = latmc_bitslice_start(t, active);
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS && s.undecided; q++) {
        const latmc_philox_ctr r = latmc_ising_plane_block(&names, group, q);
        for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK && s.undecided; l++)
            latmc_bitslice_plane(&s, r.v[l],
                                 latmc_bitslice_threshold_plane(t, 4 * q + l));
    }
    *planes = s.planes;
    return s.accept;
}

/*
 * latmc_ising_group_decide with the lanes given by threshold class (lanes mask[c] have
 * threshold t[c], c < n; latmc_bitslice_start_classes) and the names of a step: the same
 * decisions, the same planes, in fewer operations when a group has fewer classes than
 * lanes.
 */
LATMC_HOSTDEV uint32_t latmc_ising_group_decide_classes(const uint64_t *t, const uint32_t *mask,
                                                        int n,
                                                        const struct latmc_ising_plane_names *names,
                                                        uint64_t group, int *planes)
{
    struct latmc_bitslice s = latmc_bitslice_start_classes(t, mask, n);
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS && s.undecided; q++) {
        const latmc_philox_ctr r = latmc_ising_plane_block(names, group, q);
        for (int l = 0; l < LATMC_ISING_PLANES_PER_BLOCK && s.undecided; l++)
            latmc_bitslice_plane(&s, r.v[l], latmc_bitslice_class_plane(t, mask, n, 4 * q + l));
    }
    *planes = s.planes;
    return s.accept;
}

#endif /* LATMC_LIB_ISING_DECISION_RULES_H */
