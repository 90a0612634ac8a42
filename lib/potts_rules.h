/*
 * Internal: the Potts chain of doc/models/potts.md as pure functions of a site's state, its
 * neighbours' states, its random draws and the core's integer tables (lib/potts.h),
 * usable from C and CUDA (LATMC_HOSTDEV). No floating point. The CPU reference backend and
 * the CUDA backend both call these very functions, so they follow bit-identical chains by
 * construction; tests/unit/test_potts_chain.c re-implements the definition independently.
 */
#ifndef LATMC_LIB_POTTS_RULES_H
#define LATMC_LIB_POTTS_RULES_H

#include <stdint.h>

#include <latmc/sim.h> /* LATMC_ALGO_* */

#include "lattice_numbering.h"
#include "potts.h"
#include "rng_streams.h"

/* What the sweep needs besides the configuration. */
struct latmc_potts_chain {
    const struct latmc_potts_tables *tables;
    int algorithm;      /* LATMC_ALGO_METROPOLIS or LATMC_ALGO_HEATBATH */
    int q;
    int colours;        /* c = 2 or 3 */
    uint64_t seed;
};

/* Draw numbers (sub) of one site in one sweep. */
enum { LATMC_POTTS_SUB_PROPOSE = 0, LATMC_POTTS_SUB_ACCEPT = 1, LATMC_POTTS_SUB_HEATBATH = 0 };

/* The states of the 2 ndim nearest neighbours of s (x+, x-, y+, y-[, z+, z-]). */
LATMC_HOSTDEV int latmc_potts_gather_neighbours(const struct latmc_lattice *g,
                                                const uint8_t *spins, struct latmc_site s,
                                                uint8_t nb[LATMC_POTTS_MAX_NB])
{
    const int64_t lx = g->lx, ly = g->ly;
    const int64_t row_start = s.index - s.x;
    nb[0] = spins[row_start + latmc_wrap_up(s.x, lx)];
    nb[1] = spins[row_start + latmc_wrap_down(s.x, lx)];
    nb[2] = spins[s.x + lx * (latmc_wrap_up(s.y, ly) + ly * s.z)];
    nb[3] = spins[s.x + lx * (latmc_wrap_down(s.y, ly) + ly * s.z)];
    if (g->ndim == 2)
        return 4;
    nb[4] = spins[s.x + lx * (s.y + ly * latmc_wrap_up(s.z, g->lz))];
    nb[5] = spins[s.x + lx * (s.y + ly * latmc_wrap_down(s.z, g->lz))];
    return 6;
}

/* n_k: how many of the n_nb neighbours are in state k. */
LATMC_HOSTDEV int latmc_potts_neighbours_in(const uint8_t *nb, int n_nb, int k)
{
    int n = 0;
    for (int i = 0; i < n_nb; i++)
        n += nb[i] == k;
    return n;
}

/* floor(u * total / 2^32), exactly, for any total: a uniform index into [0, total). */
LATMC_HOSTDEV uint64_t latmc_potts_scale_draw(uint32_t u, uint64_t total)
{
    /* u * total needs up to 72 bits: split total = hi 2^32 + lo, both products fit. */
    const uint64_t hi = total >> 32, lo = total & UINT32_MAX;
    return (uint64_t)u * hi + (((uint64_t)u * lo) >> 32);
}

/*
 * Metropolis. The proposal s' is uniform among the q - 1 other states (draw u_propose);
 * it is accepted iff u_accept < threshold of its energy change, which depends only on
 * dn = n_{s'} - n_s and dz = delta(s', 0) - delta(s, 0). Returns the new state.
 */
LATMC_HOSTDEV int latmc_potts_metropolis(const struct latmc_potts_tables *t, int ndim, int q,
                                         int s, const uint8_t *nb, int n_nb,
                                         uint32_t u_propose, uint32_t u_accept)
{
    const int step = 1 + (int)(((uint64_t)u_propose * (uint64_t)(q - 1)) >> 32);
    const int proposed = (s + step) % q;
    const int dn = latmc_potts_neighbours_in(nb, n_nb, proposed)
                 - latmc_potts_neighbours_in(nb, n_nb, s);
    const int dz = (proposed == 0) - (s == 0);
    return u_accept < t->metropolis[dn + 2 * ndim][dz + 1] ? proposed : s;
}

/* The class of higher rank (the earlier one on a tie: tied classes have equal weights). */
LATMC_HOSTDEV int latmc_potts_higher_class(const struct latmc_potts_tables *t, int a, int b)
{
    return t->rank[b] > t->rank[a] ? b : a;
}

/*
 * Heat bath: the new state is k with probability W_k / sum W, W_k the integer weight of
 * k's class c_k = (n_k, delta(k, 0)) relative to the highest-ranked class present at this
 * site. One draw u picks target = floor(u total / 2^32) and the first k whose cumulative
 * weight W_0 + ... + W_k exceeds it. The old state does not enter. O(2 ndim + k): only
 * state 0 and the neighbours' states have special weights; every other state is in
 * class (0, 0).
 *
 * latmc_potts_heatbath_weights() is the first half: it counts the neighbours' states into
 * n_of (all 0 on entry; the caller clears them again), sets *total = W_0 + ... + W_{q-1}
 * and returns the reference class's weight row w, so that W_k = w[class(n_of[k], k == 0)].
 * The scan below is the second half; lib/potts_thresholds.h derives lookup tables from the
 * same first half.
 */
LATMC_HOSTDEV const uint32_t *latmc_potts_heatbath_weights(const struct latmc_potts_tables *t,
                                                           int q, const uint8_t *nb, int n_nb,
                                                           uint8_t *n_of, uint64_t *total)
{
    uint8_t others[LATMC_POTTS_MAX_NB]; /* the distinct non-zero neighbour states */
    int n_others = 0;
    for (int i = 0; i < n_nb; i++)
        if (n_of[nb[i]]++ == 0 && nb[i] != 0)
            others[n_others++] = nb[i];
    const int64_t n_free = q - 1 - n_others; /* non-zero states no neighbour is in */
    const int free_class = latmc_potts_class(0, 0);

    int ref = latmc_potts_class(n_of[0], 1);
    if (n_free > 0)
        ref = latmc_potts_higher_class(t, ref, free_class);
    for (int i = 0; i < n_others; i++)
        ref = latmc_potts_higher_class(t, ref, latmc_potts_class(n_of[others[i]], 0));
    const uint32_t *w = t->heatbath[ref];

    uint64_t sum = w[latmc_potts_class(n_of[0], 1)] + (uint64_t)n_free * w[free_class];
    for (int i = 0; i < n_others; i++)
        sum += w[latmc_potts_class(n_of[others[i]], 0)];
    /* sum >= w[ref] = 2^32 - 1 > 0, and < 256 * 2^32 */
    *total = sum;
    return w;
}

/* n_of: scratch of LATMC_POTTS_MAX_Q + 1 counters, all 0 on entry and again on return. */
LATMC_HOSTDEV int latmc_potts_heatbath(const struct latmc_potts_tables *t, int q,
                                       const uint8_t *nb, int n_nb, uint32_t u, uint8_t *n_of)
{
    uint64_t total;
    const uint32_t *w = latmc_potts_heatbath_weights(t, q, nb, n_nb, n_of, &total);
    const uint64_t target = latmc_potts_scale_draw(u, total);

    /* The cumulative weight of all q states is total > target: the last state takes the
     * rest when no earlier one is chosen. */
    int k = 0;
    uint64_t cumulative = 0;
    for (; k < q - 1; k++) {
        cumulative += w[latmc_potts_class(n_of[k], k == 0)];
        if (cumulative > target)
            break;
    }
    for (int i = 0; i < n_nb; i++)
        n_of[nb[i]] = 0;
    return k;
}

/*
 * The name of colour `colour`'s first draws in sweep `sweep` (UPDATE stream, phase = the
 * colour, sub SUB_PROPOSE for Metropolis, SUB_HEATBATH for heat bath): what
 * lib/model_potts.c's step_of names its steps, for the kernels that are handed a sweep and
 * a colour instead of the step.
 */
LATMC_HOSTDEV struct latmc_rng_name latmc_potts_rng_name(uint64_t sweep, int colour,
                                                         int algorithm)
{
    return latmc_rng_update_name(sweep, (uint32_t)colour,
                                 algorithm == LATMC_ALGO_METROPOLIS ? LATMC_POTTS_SUB_PROPOSE
                                                                    : LATMC_POTTS_SUB_HEATBATH);
}

/* The draws of lanes of block b of a step named `name`: r0 (the proposal or the heat-bath
 * draw, the step's own sub) and, for Metropolis, r1 (the acceptance, sub SUB_ACCEPT). */
LATMC_HOSTDEV void latmc_potts_draws(const struct latmc_potts_chain *ch,
                                     struct latmc_rng_name name, int64_t b,
                                     latmc_philox_ctr *r0, latmc_philox_ctr *r1)
{
    *r0 = latmc_rng_name_block(ch->seed, name, (uint64_t)b);
    if (ch->algorithm == LATMC_ALGO_METROPOLIS)
        *r1 = latmc_rng_name_block(ch->seed, latmc_rng_name_sub(name, LATMC_POTTS_SUB_ACCEPT),
                                   (uint64_t)b);
}

/*
 * Update lanes [lane_begin, lane_end) of Philox block b of one colour of the step whose
 * draws are `name` (struct latmc_step's rng, or latmc_potts_rng_name): within-colour
 * numbers 4b + lane, lane j mod 4 of block j / 4 of the draws r0, r1 of
 * latmc_potts_draws; lanes past the colour's last site are skipped. Returns how many
 * sites changed. A block's lanes may be updated by separate calls (a box boundary inside
 * the block): each lane's draws and rule do not depend on the others. n_of: as for
 * latmc_potts_heatbath. A part of the lattice held as memory of its own: the rule on a
 * box, latmc_potts_step_lanes_box below.
 */
LATMC_HOSTDEV uint64_t latmc_potts_step_lanes(const struct latmc_lattice *g, uint8_t *spins,
                                              const struct latmc_potts_chain *ch,
                                              struct latmc_rng_name name, int colour,
                                              int64_t b, int lane_begin, int lane_end,
                                              uint8_t *n_of)
{
    const int64_t per_colour = g->nsites / ch->colours;
    const int metropolis = ch->algorithm == LATMC_ALGO_METROPOLIS;
    latmc_philox_ctr r0, r1 = { { 0, 0, 0, 0 } };
    latmc_potts_draws(ch, name, b, &r0, &r1);
    uint64_t changed = 0;
    struct latmc_site s = latmc_colour_site(g, ch->colours, colour, 4 * b + lane_begin);
    for (int lane = lane_begin; lane < lane_end && 4 * b + lane < per_colour; lane++) {
        if (lane > lane_begin)
            latmc_colour_next(g, ch->colours, colour, &s);
        uint8_t nb[LATMC_POTTS_MAX_NB];
        const int n_nb = latmc_potts_gather_neighbours(g, spins, s, nb);
        const int old = spins[s.index];
        const int new_state = metropolis
            ? latmc_potts_metropolis(ch->tables, g->ndim, ch->q, old, nb, n_nb, r0.v[lane],
                                     r1.v[lane])
            : latmc_potts_heatbath(ch->tables, ch->q, nb, n_nb, r0.v[lane], n_of);
        changed += new_state != old;
        spins[s.index] = (uint8_t)new_state;
    }
    return changed;
}

/*
 * The rule on a box (lattice_numbering.h, struct latmc_box_geom): lanes [lane0, lane1) of
 * Philox block b of the whole lattice's within-colour numbering, each with its draws (as
 * latmc_potts_step_lanes), the site and its neighbours in the box's memory. The caller
 * passes only lanes whose sites lie in the box's own planes. So a box writes what the
 * whole lattice's update writes there, bit for bit: the CPU's slab-only storage and the
 * CUDA slabs' reference kernel run it. n_of: as for latmc_potts_heatbath.
 */
LATMC_HOSTDEV uint64_t latmc_potts_step_lanes_box(const struct latmc_box_geom *g,
                                                  uint8_t *spins,
                                                  const struct latmc_potts_chain *ch,
                                                  struct latmc_rng_name name, int colour,
                                                  int64_t b, int lane0, int lane1,
                                                  uint8_t *n_of)
{
    const int metropolis = ch->algorithm == LATMC_ALGO_METROPOLIS;
    latmc_philox_ctr r0, r1 = { { 0, 0, 0, 0 } };
    latmc_potts_draws(ch, name, b, &r0, &r1);
    uint64_t changed = 0;
    for (int lane = lane0; lane < lane1; lane++) {
        const struct latmc_site s = latmc_box_colour_site(g, ch->colours, colour, 4 * b + lane);
        uint8_t nb[LATMC_POTTS_MAX_NB];
        const int n_nb = latmc_potts_gather_neighbours(&g->local, spins, s, nb);
        const int old = spins[s.index];
        const int new_state = metropolis
            ? latmc_potts_metropolis(ch->tables, g->global.ndim, ch->q, old, nb, n_nb,
                                     r0.v[lane], r1.v[lane])
            : latmc_potts_heatbath(ch->tables, ch->q, nb, n_nb, r0.v[lane], n_of);
        changed += new_state != old;
        spins[s.index] = (uint8_t)new_state;
    }
    return changed;
}

/* Hot start of block b: site i takes state floor(u q / 2^32), u = lane i mod 4 of INIT
 * block i / 4 (sweep 0, phase 0, sub 0). */
LATMC_HOSTDEV void latmc_potts_hot_block(uint8_t *spins, int64_t n, int q, uint64_t seed,
                                         int64_t b)
{
    const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        spins[4 * b + lane] = (uint8_t)(((uint64_t)r.v[lane] * (uint64_t)q) >> 32);
}

#endif /* LATMC_LIB_POTTS_RULES_H */
