/*
 * Internal: the member lanes' chain (lib/ens_lanes_rules.h) computed bit-sliced, the form a
 * fast kernel takes (host-and-device C, LATMC_HOSTDEV): the same words, bit for bit, with
 * no per-lane loop.
 *
 * Per group and call (the lanes' tables do not change inside a call) the thresholds are
 * sorted into classes: key = (spin, k) for Metropolis (2 (2 ndim + 1) keys), k for heat bath
 * (2 ndim + 1), and for each key three lane masks and 32 threshold planes:
 *   always[key]  lanes whose threshold is 2^32 (accept without a plane)
 *   open[key]    lanes with 0 < T < 2^32
 *   plane[key][b] bit l = bit 31 - b of lane l's threshold
 * so a site's threshold plane b is the OR over keys of (the site's lanes of that key) &
 * plane[key][b]: each lane gets the bit of its own threshold, as the reference's
 * latmc_bitslice_threshold_plane, in one AND-OR a key present.
 * A site's keys come from a bit-sliced count of the neighbours at -1 after the couplings
 * (s_j XOR c_ij, the lane's eps_ij s_j = -1): cnt in 0 .. 2 ndim, k = 2 ndim - cnt.
 *
 * Metropolis where every lane's tables are symmetric, metropolis[1][k] =
 * metropolis[0][2 ndim - k] (h = 0: the flip's cost depends on s_i n alone), takes the
 * kernels' form: key u = the count of unsatisfied bonds (s_i XOR s_j XOR c_ij, bit set
 * where eps_ij s_i s_j = -1), one key per u whatever the spin: a lane with spin -1 has
 * k = u, one with spin +1 k = 2 ndim - u, and both thresholds are metropolis[0][u]. Half
 * the keys (three open in 3D at the usual temperatures, u = 0, 1, 2), the same words.
 */
#ifndef LATMC_LIB_ENS_LANES_SLICED_H
#define LATMC_LIB_ENS_LANES_SLICED_H

#include "ens_lanes_rules.h"

#define LATMC_ENS_LANES_KEYS (2 * LATMC_ISING_MAX_K)

struct latmc_ens_lanes_classes {
    int heatbath;                                  /* keys k; else (spin < 0) * 7 + k */
    int by_unsat;                                  /* Metropolis, symmetric: keys u */
    int nk;                                        /* 2 ndim + 1 */
    uint32_t always[LATMC_ENS_LANES_KEYS];
    uint32_t open[LATMC_ENS_LANES_KEYS];
    uint32_t plane[LATMC_ENS_LANES_KEYS][LATMC_BITSLICE_PLANES];
};

/* Whether a lane's Metropolis tables are symmetric (metropolis[1][k] = metropolis[0][2 ndim
 * - k] for every k): then its thresholds depend only on the unsatisfied bonds, and the keys
 * by unsatisfied bonds serve it (the one test of the CPU, the kernels and their host). */
LATMC_HOSTDEV int latmc_ens_lanes_symmetric(const struct latmc_ising_tables *t, int ndim)
{
    for (int k = 0; k <= 2 * ndim; k++)
        if (t->metropolis[1][k] != t->metropolis[0][2 * ndim - k])
            return 0;
    return 1;
}

/* The classes of a group's `active` lanes from their tables. */
LATMC_HOSTDEV void latmc_ens_lanes_classes_make(struct latmc_ens_lanes_classes *c,
                                                const struct latmc_ising_tables *tables,
                                                uint32_t active, int algorithm, int ndim)
{
    c->heatbath = algorithm == LATMC_ALGO_HEATBATH;
    c->nk = 2 * ndim + 1;
    c->by_unsat = !c->heatbath;
    for (int l = 0; l < LATMC_ENS_LANES && c->by_unsat; l++)
        if (((active >> l) & 1u) && !latmc_ens_lanes_symmetric(&tables[l], ndim))
            c->by_unsat = 0;
    for (int key = 0; key < LATMC_ENS_LANES_KEYS; key++) {
        c->always[key] = c->open[key] = 0;
        for (int b = 0; b < LATMC_BITSLICE_PLANES; b++)
            c->plane[key][b] = 0;
        const int neg = key / LATMC_ISING_MAX_K, k = key % LATMC_ISING_MAX_K;
        if (k >= c->nk || ((c->heatbath || c->by_unsat) && neg))
            continue;
        for (int l = 0; l < LATMC_ENS_LANES; l++) {
            if (!((active >> l) & 1u))
                continue;
            /* by_unsat: key u's threshold, metropolis[0][u] (spin -1, k = u) */
            const uint64_t t = latmc_ising_site_threshold(
                &tables[l], algorithm, (int8_t)(neg || c->by_unsat ? -1 : 1), k);
            if (t >> 32)
                c->always[key] |= 1u << l;
            else if (t != 0)
                c->open[key] |= 1u << l;
            for (int b = 0; b < LATMC_BITSLICE_PLANES; b++)
                c->plane[key][b] |= (uint32_t)((t >> (31 - b)) & 1u) << l;
        }
    }
}

/* Add the one-bit word x into the bit-sliced count (c0, c1, c2) (at most 7). */
LATMC_HOSTDEV void latmc_ens_lanes_count(uint32_t *c0, uint32_t *c1, uint32_t *c2, uint32_t x)
{
    const uint32_t carry0 = *c0 & x;
    *c0 ^= x;
    const uint32_t carry1 = *c1 & carry0;
    *c1 ^= carry0;
    *c2 |= carry1;
}

/*
 * latmc_ens_lanes_update_site, bit-sliced: the same new word (returned: the lanes that
 * changed) from the same planes. `c` from latmc_ens_lanes_classes_make with the group's
 * tables and active lanes.
 */
LATMC_HOSTDEV uint32_t latmc_ens_lanes_update_site_sliced(const struct latmc_lattice *g,
                                                          const struct latmc_ens_lanes_group *grp,
                                                          const struct latmc_ens_lanes_classes *c,
                                                          uint64_t seed, struct latmc_rng_name name,
                                                          uint64_t group, struct latmc_site s,
                                                          int *planes)
{
    const int nd = g->ndim;
    uint32_t nbw[6];
    latmc_ens_lanes_neighbours(g, grp, s, nbw);
    const uint32_t w = grp->spin[s.index];
    /* the neighbours at -1 after the couplings, or (by_unsat) the unsatisfied bonds */
    const uint32_t own = c->by_unsat ? w : 0u;
    uint32_t c0 = 0, c1 = 0, c2 = 0;
    for (int d = 0; d < 2 * nd; d++)
        latmc_ens_lanes_count(&c0, &c1, &c2, nbw[d] ^ own);
    /* the site's lanes of each key present */
    uint32_t lanes[LATMC_ENS_LANES_KEYS];
    int key_of[LATMC_ENS_LANES_KEYS], n = 0;
    struct latmc_bitslice st;
    st.accept = st.undecided = 0;
    st.planes = 0;
    for (int cnt = 0; cnt <= 2 * nd; cnt++) {
        const uint32_t m = ((cnt & 1) ? c0 : ~c0) & ((cnt & 2) ? c1 : ~c1) &
                           ((cnt & 4) ? c2 : ~c2) & grp->active;
        if (!m)
            continue;
        const int k = c->by_unsat ? cnt : 2 * nd - cnt; /* by_unsat: the key u = cnt */
        const int one_key = c->heatbath || c->by_unsat;
        for (int neg = 0; neg < (one_key ? 1 : 2); neg++) {
            const uint32_t lk = one_key ? m : m & (neg ? w : ~w);
            const int key = neg * LATMC_ISING_MAX_K + k;
            if (!lk)
                continue;
            st.accept |= lk & c->always[key];
            if (lk & c->open[key]) {
                st.undecided |= lk & c->open[key];
                lanes[n] = lk & c->open[key];
                key_of[n++] = key;
            }
        }
    }
    const uint64_t block = latmc_ens_lanes_block(group, (uint64_t)g->nsites, (uint64_t)s.index);
    for (int q = 0; q < LATMC_ISING_DECISION_BLOCKS && st.undecided; q++) {
        const latmc_philox_ctr r = latmc_ens_lanes_planes(seed, name, block, q);
        for (int p = 0; p < LATMC_ISING_PLANES_PER_BLOCK && st.undecided; p++) {
            uint32_t tb = 0;
            for (int i = 0; i < n; i++)
                tb |= lanes[i] & c->plane[key_of[i]][4 * q + p];
            latmc_bitslice_plane(&st, r.v[p], tb);
        }
    }
    *planes = st.planes;
    /* Metropolis: accepted lanes flip; heat bath: accepted lanes +1, the others -1 */
    const uint32_t nw = c->heatbath ? (w & ~grp->active) | (grp->active & ~st.accept)
                                    : w ^ st.accept;
    grp->spin[s.index] = nw;
    return w ^ nw;
}

#endif /* LATMC_LIB_ENS_LANES_SLICED_H */
