/*
 * The two Potts update rules for one site, as pure functions of the site's state, its
 * neighbours' states, its random draws and the core's integer tables (lib/potts.h). No
 * floating point: every backend that feeds the same inputs takes the same decision.
 * doc/models/potts.md states the rules; tests/unit/test_potts_chain.c re-implements them.
 */
#ifndef LATMC_CPU_POTTS_RULES_H
#define LATMC_CPU_POTTS_RULES_H

#include <stdint.h>

#include "potts.h"

/* n_k: how many of the n_nb neighbours are in state k. */
static inline int potts_neighbours_in(const uint8_t *nb, int n_nb, int k)
{
    int n = 0;
    for (int i = 0; i < n_nb; i++)
        n += nb[i] == k;
    return n;
}

/* floor(u * total / 2^32), exactly, for any total: a uniform index into [0, total). */
static inline uint64_t potts_scale_draw(uint32_t u, uint64_t total)
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
static inline int potts_metropolis(const struct latmc_potts_tables *t, int ndim, int q, int s,
                                   const uint8_t *nb, int n_nb, uint32_t u_propose,
                                   uint32_t u_accept)
{
    const int step = 1 + (int)(((uint64_t)u_propose * (uint64_t)(q - 1)) >> 32);
    const int proposed = (s + step) % q;
    const int dn = potts_neighbours_in(nb, n_nb, proposed) - potts_neighbours_in(nb, n_nb, s);
    const int dz = (proposed == 0) - (s == 0);
    return u_accept < t->metropolis[dn + 2 * ndim][dz + 1] ? proposed : s;
}

/* The class of higher rank (the earlier one on a tie: tied classes have equal weights). */
static inline int potts_higher_class(const struct latmc_potts_tables *t, int a, int b)
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
 * n_of: scratch of LATMC_POTTS_MAX_Q + 1 counters, all 0 on entry and again on return.
 */
static inline int potts_heatbath(const struct latmc_potts_tables *t, int q, const uint8_t *nb,
                                 int n_nb, uint32_t u, uint8_t *n_of)
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
        ref = potts_higher_class(t, ref, free_class);
    for (int i = 0; i < n_others; i++)
        ref = potts_higher_class(t, ref, latmc_potts_class(n_of[others[i]], 0));
    const uint32_t *w = t->heatbath[ref];

    uint64_t total = w[latmc_potts_class(n_of[0], 1)] + (uint64_t)n_free * w[free_class];
    for (int i = 0; i < n_others; i++)
        total += w[latmc_potts_class(n_of[others[i]], 0)];
    /* total >= w[ref] = 2^32 - 1 > 0, and < 256 * 2^32 */
    const uint64_t target = potts_scale_draw(u, total);

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

#endif
