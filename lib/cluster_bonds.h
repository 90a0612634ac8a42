/*
 * Internal: the random numbers and the decisions of the cluster updates (Swendsen-Wang,
 * Wolff) of the Ising and Potts models, as pure functions usable from C and CUDA
 * (LATMC_HOSTDEV). Every draw is named by global quantities only -- the sweep, a global
 * site index, a direction -- never by a box, thread or device, so that the configuration
 * after a cluster sweep does not depend on how the lattice was cut (DESIGN.md section 12,
 * doc/clusters.md). Changing anything here changes every cluster chain.
 *
 * Names (lib/rng_streams.h; stream LATMC_STREAM_CLUSTER, sub 0):
 *   bond (i, mu), the bond from global site i to its neighbour in direction +mu:
 *       draw d = ndim i + mu, lane d mod 4 of block d / 4, phase LATMC_CLUSTER_PHASE_BONDS;
 *   the cluster named r (its smallest global site index):
 *       lane r mod 4 of block r / 4, phase LATMC_CLUSTER_PHASE_DECIDE;
 *   Wolff's seed site: lanes 0 and 1 of block 0, phase LATMC_CLUSTER_PHASE_SEED.
 * A bond is active iff its two ends are "satisfied" (Ising: K eps s_i s_j > 0 with
 * K = beta J; Potts: s_i = s_j) and its draw u < threshold = floor(p 2^32), with
 * p = 1 - exp(-2 |K|) (Ising) or 1 - exp(-K) (Potts, K >= 0).
 */
#ifndef LATMC_LIB_CLUSTER_BONDS_H
#define LATMC_LIB_CLUSTER_BONDS_H

#include <stdint.h>

#include "latmc_math.h"
#include "rng_streams.h"

/* The phases of LATMC_STREAM_CLUSTER: what the draw decides. Never renumber. */
enum latmc_cluster_phase {
    LATMC_CLUSTER_PHASE_BONDS = 0,  /* one draw per bond (site, direction) */
    LATMC_CLUSTER_PHASE_DECIDE = 1, /* one draw per cluster, at its name */
    LATMC_CLUSTER_PHASE_SEED = 2    /* Wolff: the seed site of the sweep's cluster */
};

/* Draw index n of phase `phase` of the sweep: lane n mod 4 of block n / 4. */
LATMC_HOSTDEV uint32_t latmc_cluster_draw(uint64_t seed, uint64_t sweep, uint32_t phase,
                                          uint64_t n)
{
    const latmc_philox_ctr r =
        latmc_rng_name_block(seed, latmc_rng_cluster_name(sweep, 0, phase, 0), n >> 2);
    return r.v[n & 3u];
}

/* The draw of bond (i, mu) of a lattice of ndim dimensions. */
LATMC_HOSTDEV uint32_t latmc_cluster_bond_draw(uint64_t seed, uint64_t sweep, int ndim,
                                               int64_t i, int mu)
{
    return latmc_cluster_draw(seed, sweep, LATMC_CLUSTER_PHASE_BONDS,
                              (uint64_t)i * (uint64_t)ndim + (uint64_t)mu);
}

/* The decision draw of the cluster named r. */
LATMC_HOSTDEV uint32_t latmc_cluster_decide_draw(uint64_t seed, uint64_t sweep, int64_t r)
{
    return latmc_cluster_draw(seed, sweep, LATMC_CLUSTER_PHASE_DECIDE, (uint64_t)r);
}

/* A Wolff seed site from the draws of `name` (its phase LATMC_CLUSTER_PHASE_SEED):
 * (2^32 d0 + d1) mod nsites, d0 and d1 lanes 0 and 1 of block 0 -- uniform on
 * [0, nsites) to 2^-64 nsites. The embedded clusters' seeds (lib/cluster_embed.h) name
 * their replica and sub. */
LATMC_HOSTDEV int64_t latmc_cluster_seed_of(uint64_t seed, struct latmc_rng_name name,
                                            int64_t nsites)
{
    const latmc_philox_ctr r = latmc_rng_name_block(seed, name, 0);
    const uint64_t u = (uint64_t)r.v[0] << 32 | r.v[1];
    return (int64_t)(u % (uint64_t)nsites);
}

/* Wolff's seed site of the sweep. */
LATMC_HOSTDEV int64_t latmc_cluster_seed_site(uint64_t seed, uint64_t sweep, int64_t nsites)
{
    return latmc_cluster_seed_of(
        seed, latmc_rng_cluster_name(sweep, 0, LATMC_CLUSTER_PHASE_SEED, 0), nsites);
}

/* An Ising bond of coupling sign eps (+1, or the +-J value) between spins a and b can be
 * active: K eps a b > 0 (K = beta J; its sign is sign_k). */
LATMC_HOSTDEV int latmc_cluster_ising_satisfied(int sign_k, int eps, int a, int b)
{
    return sign_k * eps * a * b > 0;
}

/*
 * The decisions of a cluster from its draw u (its name's). A cluster's new state is drawn
 * by heat bath over the states the update may give it, weighted by the field energy only
 * (given the bonds, the couplings' weight is the same for all of them):
 *   Ising: keep iff u < keep_threshold, keep_threshold = floor(2^32 / (1 + exp(-2 beta h M)))
 *     (M: the cluster's magnetisation now; latmc_cluster_keep_threshold), 2^31 without a
 *     field; Wolff without a field
 *     always flips (the single-cluster proposal is its own inverse).
 *   Potts: colour 0 iff u < zero_threshold = floor(2^32 / (1 + (q - 1) exp(-beta h n)))
 *     (n: the cluster's size; latmc_cluster_zero_threshold), else colour 1 + floor((u - t0) (q - 1) / (2^32 - t0));
 *     without a field floor(u q / 2^32); Wolff without a field the colour
 *     (old + 1 + floor(u (q - 1) / 2^32)) mod q (one of the q - 1 others).
 */
/* floor(p 2^32) for p in [0, 1] (latmc_threshold_u32's value, in device code too). */
LATMC_HOSTDEV uint64_t latmc_cluster_threshold(double p)
{
    if (!(p > 0.0))
        return 0;
    if (p >= 1.0)
        return UINT64_C(1) << 32;
    return (uint64_t)(p * 4294967296.0); /* exact: a power of two */
}

/* The thresholds above from the field's weight beta_h = beta h, with liblatmc's own exp
 * (lib/latmc_math.h: the same bits on the CPU and on CUDA; an argument above 700 gives a
 * probability below 2^-1000, whose threshold is 0 either way). */
LATMC_HOSTDEV uint64_t latmc_cluster_keep_threshold(double beta_h, int64_t m)
{
    if (beta_h == 0.0)
        return UINT64_C(1) << 31;
    const double x = -2.0 * beta_h * (double)m;
    return latmc_cluster_threshold(1.0 / (1.0 + latmc_math_exp(x < 700.0 ? x : 700.0)));
}

LATMC_HOSTDEV uint64_t latmc_cluster_zero_threshold(double beta_h, int q, int64_t size)
{
    const double x = -beta_h * (double)size;
    return latmc_cluster_threshold(
        1.0 / (1.0 + (double)(q - 1) * latmc_math_exp(x < 700.0 ? x : 700.0)));
}

LATMC_HOSTDEV int latmc_cluster_ising_keep(uint32_t u, uint64_t keep_threshold)
{
    return (uint64_t)u < keep_threshold;
}

LATMC_HOSTDEV int latmc_cluster_potts_colour(uint32_t u, uint64_t zero_threshold, int q)
{
    if ((uint64_t)u < zero_threshold)
        return 0;
    const uint64_t rest = (UINT64_C(1) << 32) - zero_threshold; /* > 0 here */
    return 1 + (int)(((uint64_t)u - zero_threshold) * (uint64_t)(q - 1) / rest);
}

LATMC_HOSTDEV int latmc_cluster_potts_uniform(uint32_t u, int q)
{
    return (int)(((uint64_t)u * (uint64_t)q) >> 32);
}

LATMC_HOSTDEV int latmc_cluster_potts_other(uint32_t u, int old, int q)
{
    return (old + 1 + (int)(((uint64_t)u * (uint64_t)(q - 1)) >> 32)) % q;
}

/* A cluster's decision from its draw u, the rules above put together (q = 0: Ising, 1
 * keep, 0 flip; else Potts, the new colour): without a field (beta_h = 0) Swendsen-Wang's
 * keep-or-flip or uniform colour, Wolff's flip or one of the q - 1 colours other than old;
 * in a field the heat bath over the cluster's states from its magnetisation m (Ising) or
 * its sites `size` (Potts). The CPU's (cluster_draws.c, latmc_cluster_decide) and the CUDA
 * ensembles' (cuda_sw_batch_kernels.cu). */
LATMC_HOSTDEV int latmc_cluster_decision(uint32_t u, double beta_h, int q, int wolff,
                                         int64_t size, int64_t m, int old)
{
    if (!q)
        return wolff && beta_h == 0.0
                   ? 0
                   : latmc_cluster_ising_keep(u, latmc_cluster_keep_threshold(beta_h, m));
    if (beta_h == 0.0)
        return wolff ? latmc_cluster_potts_other(u, old, q) : latmc_cluster_potts_uniform(u, q);
    return latmc_cluster_potts_colour(u, latmc_cluster_zero_threshold(beta_h, q, size), q);
}

#endif /* LATMC_LIB_CLUSTER_BONDS_H */
