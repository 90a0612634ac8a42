/*
 * Internal: the ensemble chain of member lanes (ensemble parameter decisions = 2,
 * doc/ensembles.md, "Member lanes") as pure functions for C and CUDA (LATMC_HOSTDEV): the
 * reference every backend reproduces bit for bit.
 *
 * Members are grouped by index: group g = floor(m / 32) holds members 32 g + l in lanes
 * l = 0 .. 31 (the last group's lanes past the last member are absent). A group stores one
 * 32-bit word per site (bit l set where member 32 g + l's spin is -1) and, with +-J
 * couplings, one word per bond (word ndim i + mu: bit l set where that member's coupling
 * of i with i + e_mu is -1, the order of latmc_sim_get_couplings).
 *
 * In sweep s (the ensemble's sweep count before it) colour c = 0, 1, the site i of colour
 * c of group g decides all 32 lanes at once from the planes
 *     W_b = output (b mod 4) of Philox block (block g N + i, key layout.seed, sweep s,
 *           stream LATMC_STREAM_ENS_LANES, phase c, sub floor(b / 4)),   b = 0 .. 31
 * lane l's uniform number being u_l = sum_b bit_l(W_b) 2^(31 - b); member 32 g + l takes
 * the decision u_l < T_l with T_l its own integer threshold (lib/ising.h's tables of its
 * beta, J and h, at the index k of its own neighbour sum and couplings, and its own spin
 * for Metropolis): the comparison of lib/bitslice_decision.h, planes drawn four at a time
 * until every lane is settled. Each decision has probability T_l / 2^32, as in chain 0.
 */
#ifndef LATMC_LIB_ENS_LANES_RULES_H
#define LATMC_LIB_ENS_LANES_RULES_H

#include <stdint.h>

#include "bitslice_decision.h"
#include "ising_decision_rules.h" /* latmc_ising_site_threshold, latmc_ising_decided_spin */
#include "lattice_numbering.h"
#include "rng_streams.h"

/* Members per group (one per bit of a word). */
#define LATMC_ENS_LANES 32
/* The Philox stream of the planes (keyed by the ensemble's layout.seed; lib/ens_internal.h
 * numbers the ensemble's other streams 13, 14, 15). */
#define LATMC_STREAM_ENS_LANES 12u

/* The name of colour `colour`'s planes in sweep `sweep` (sub 0: planes 0 .. 3). */
LATMC_HOSTDEV struct latmc_rng_name latmc_ens_lanes_name(uint64_t sweep, int colour)
{
    return latmc_rng_name_of(sweep, latmc_rng_stream(LATMC_STREAM_ENS_LANES, 0),
                             (uint32_t)colour, 0);
}

/* The block of site `site` (natural index x + L_x (y + L_y z)) of group `group`. */
LATMC_HOSTDEV uint64_t latmc_ens_lanes_block(uint64_t group, uint64_t nsites, uint64_t site)
{
    return group * nsites + site;
}

/* Planes 4q .. 4q + 3 of a block. */
LATMC_HOSTDEV latmc_philox_ctr latmc_ens_lanes_planes(uint64_t seed, struct latmc_rng_name name,
                                                      uint64_t block, int q)
{
    return latmc_rng_name_block(seed, latmc_rng_name_sub(name, (uint32_t)q), block);
}

/*
 * The accept mask of the `active` lanes with thresholds t[l] at block `block` of the
 * colour's name `name`; *planes: the planes read (0 when no active lane needed one).
 */
LATMC_HOSTDEV uint32_t latmc_ens_lanes_decide(const uint64_t t[LATMC_ENS_LANES], uint32_t active,
                                              uint64_t seed, struct latmc_rng_name name,
                                              uint64_t block, int *planes)
{
    struct latmc_bitslice s = latmc_bitslice_start(t, active);
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS && s.undecided; q++) {
        const latmc_philox_ctr r = latmc_ens_lanes_planes(seed, name, block, q);
        for (int p = 0; p < LATMC_ISING_PLANES_PER_BLOCK && s.undecided; p++)
            latmc_bitslice_plane(&s, r.v[p], latmc_bitslice_threshold_plane(t, 4 * q + p));
    }
    *planes = s.planes;
    return s.accept;
}

/* One group's state as the reference reads it. */
struct latmc_ens_lanes_group {
    uint32_t *spin;                            /* N words, bit l set: member's spin -1 */
    const uint32_t *bond;                      /* ndim N words, or NULL (uniform) */
    const struct latmc_ising_tables *tables;   /* [LATMC_ENS_LANES] each lane's member's */
    uint32_t active;                           /* lanes holding a member */
};

/* Lane l's spin (+1 or -1) in word w. */
LATMC_HOSTDEV int latmc_ens_lanes_spin(uint32_t w, int l)
{
    return ((w >> l) & 1u) ? -1 : 1;
}

/* Site s's 2 ndim neighbours (+x, -x, +y, -y, +z, -z) into nb; the bond between s and
 * neighbour d is word nd nb[d] + d / 2 for odd d (-e_mu: the neighbour's bond mu), else
 * nd s.index + d / 2 (+e_mu: the site's own). The one neighbour rule of the reference, the
 * bit-sliced form and the CPU's vectors of groups. */
LATMC_HOSTDEV void latmc_ens_lanes_neighbour_sites(const struct latmc_lattice *g,
                                                   struct latmc_site s, int64_t nb[6])
{
    const int64_t lx = g->lx, ly = g->ly;
    const int64_t row = s.index - s.x;
    nb[0] = row + latmc_wrap_up(s.x, lx);
    nb[1] = row + latmc_wrap_down(s.x, lx);
    nb[2] = s.x + lx * (latmc_wrap_up(s.y, ly) + ly * s.z);
    nb[3] = s.x + lx * (latmc_wrap_down(s.y, ly) + ly * s.z);
    if (g->ndim == 3) {
        nb[4] = s.x + lx * (s.y + ly * latmc_wrap_up(s.z, g->lz));
        nb[5] = s.x + lx * (s.y + ly * latmc_wrap_down(s.z, g->lz));
    }
}

/* Site s's neighbour words after their bonds: s_j XOR (J = -1), each lane's bit set where
 * its eps_ij s_j is -1. */
LATMC_HOSTDEV void latmc_ens_lanes_neighbours(const struct latmc_lattice *g,
                                              const struct latmc_ens_lanes_group *grp,
                                              struct latmc_site s, uint32_t nbw[6])
{
    const int nd = g->ndim;
    int64_t nb[6];
    latmc_ens_lanes_neighbour_sites(g, s, nb);
    for (int d = 0; d < 2 * nd; d++) {
        nbw[d] = grp->spin[nb[d]];
        if (grp->bond)
            nbw[d] ^= grp->bond[(d & 1) ? nd * nb[d] + d / 2 : nd * s.index + d / 2];
    }
}

/*
 * Site s of the group in the colour pass named `name`: every active lane's threshold from
 * its member's neighbour sum n = sum_j eps_ij s_j (k = (n + 2 ndim) / 2), spin and tables,
 * the decisions of block (group, s), the word rewritten. Returns the lanes whose spin
 * changed; *planes the planes read.
 */
LATMC_HOSTDEV uint32_t latmc_ens_lanes_update_site(const struct latmc_lattice *g,
                                                   const struct latmc_ens_lanes_group *grp,
                                                   int algorithm, uint64_t seed,
                                                   struct latmc_rng_name name, uint64_t group,
                                                   struct latmc_site s, int *planes)
{
    const int nd = g->ndim;
    uint32_t nbw[6];
    latmc_ens_lanes_neighbours(g, grp, s, nbw);
    const uint32_t w = grp->spin[s.index];
    uint64_t t[LATMC_ENS_LANES];
    for (int l = 0; l < LATMC_ENS_LANES; l++) {
        t[l] = 0;
        if (!((grp->active >> l) & 1u))
            continue;
        int n = 0;
        for (int d = 0; d < 2 * nd; d++)
            n += latmc_ens_lanes_spin(nbw[d], l);
        const int8_t old = (int8_t)latmc_ens_lanes_spin(w, l);
        t[l] = latmc_ising_site_threshold(&grp->tables[l], algorithm, old, (n + 2 * nd) / 2);
    }
    const uint32_t accept = latmc_ens_lanes_decide(
        t, grp->active, seed, name, latmc_ens_lanes_block(group, (uint64_t)g->nsites,
                                                          (uint64_t)s.index), planes);
    uint32_t nw = w;
    for (int l = 0; l < LATMC_ENS_LANES; l++) {
        if (!((grp->active >> l) & 1u))
            continue;
        const int8_t now = latmc_ising_decided_spin(algorithm,
                                                    (int8_t)latmc_ens_lanes_spin(w, l),
                                                    (int)((accept >> l) & 1u));
        nw = (nw & ~(1u << l)) | ((uint32_t)(now < 0) << l);
    }
    grp->spin[s.index] = nw;
    return w ^ nw;
}

/*
 * One sweep (number `sweep`) of group `group`: colour 0's sites, then colour 1's, in
 * checkerboard order (sites of one colour do not read each other: any order gives the
 * same words). changed[l] += the lane's spins that changed. Returns the planes read.
 */
LATMC_HOSTDEV uint64_t latmc_ens_lanes_sweep_group(const struct latmc_lattice *g,
                                                   const struct latmc_ens_lanes_group *grp,
                                                   int algorithm, uint64_t seed, uint64_t sweep,
                                                   uint64_t group,
                                                   uint64_t changed[LATMC_ENS_LANES])
{
    uint64_t planes_read = 0;
    const int64_t half = g->nsites / 2;
    for (int c = 0; c < 2; c++) {
        const struct latmc_rng_name name = latmc_ens_lanes_name(sweep, c);
        for (int64_t j = 0; j < half; j++) {
            int planes = 0;
            uint32_t ch = latmc_ens_lanes_update_site(g, grp, algorithm, seed, name, group,
                                                      latmc_checkerboard_site(g, c, j), &planes);
            planes_read += (uint64_t)planes;
            for (int l = 0; l < LATMC_ENS_LANES; l++)
                changed[l] += (ch >> l) & 1u;
        }
    }
    return planes_read;
}

#endif /* LATMC_LIB_ENS_LANES_RULES_H */
