/*
 * Internal: the sum of a over an embedded cluster that weighs its two orientations in a
 * field (doc/clusters.md, "Embedded clusters", step 3 and "The sum in a field"), as pure
 * functions usable from C and CUDA (LATMC_HOSTDEV), so that the core's step and a
 * device's decide alike:
 *
 *   q_i = a_i 2^30 rounded to the nearest integer, ties to even (latmc_embed_sum_term);
 *   Q_C = sum of q_i over the cluster, in int64 (exact: any order, any grouping, atomics
 *         included, gives the same integer);
 *   A_C = Q_C 2^-30 (one rounding, of Q_C to double: exact while |Q_C| < 2^53);
 *   the cluster keeps its signs iff its draw u < floor(2^32 / (1 + exp(-2 F A_C)))
 *         (latmc_embed_keep_threshold; F = 0: 2^31).
 *
 * No overflow: the embedded clusters run on Heisenberg spins only in a field (phi^4 has
 * none), a_i = r . s_i with |r| = 1 and |s_i| within 1e-5 of 1 (lib/heisenberg.h's
 * LATMC_HEISENBERG_UNIT_TOLERANCE, the most latmc_sim_set_spins accepts), so |a_i| < 2
 * and |q_i| <= 2^31; a cluster sim has at most 2^32 - 1 sites (lib/cluster_sweep.c), so
 * |Q_C| <= (2^32 - 1) 2^31 < 2^63. The term is clamped to +-2^31 all the same, so the
 * bound holds for any input (a NaN counts 0).
 *
 * Odd under the flip: the rounding is symmetric (round(-x) = -round(x), ties to even on
 * both sides) and so are the clamp and the conversion to double, so a flipped cluster
 * (every a_i -> -a_i) has exactly -A_C: the decision is a heat bath over the two
 * orientations with weights exp(+-F A_C).
 */
#ifndef LATMC_LIB_CLUSTER_EMBED_SUM_H
#define LATMC_LIB_CLUSTER_EMBED_SUM_H

#include <stdint.h>

#include "cluster_bonds.h" /* latmc_cluster_threshold, LATMC_HOSTDEV, latmc_math_exp */

/* The scale of the terms: a unit of q is 2^-LATMC_EMBED_SUM_BITS of a. */
#define LATMC_EMBED_SUM_BITS 30

/* x rounded to nearest, ties to even, clamped to [-2^31, 2^31] (a NaN: 0). Every step is
 * exact but the choice between k and k +- 1 (a truncating conversion of |x| < 2^31, the
 * fraction x - k), so no rounding mode or contraction can change it: the C library's
 * llrint under the default mode gives the same integer. */
LATMC_HOSTDEV int64_t latmc_embed_round_clamped(double x)
{
    if (x >= 0x1p31)
        return INT64_C(1) << 31;
    if (x <= -0x1p31)
        return -(INT64_C(1) << 31);
    if (!(x == x))
        return 0;
    const int64_t k = (int64_t)x;   /* toward zero */
    const double f = x - (double)k; /* the fraction, of x's sign, |f| < 1 */
    if (f > 0.5 || (f == 0.5 && (k & 1)))
        return k + 1;
    if (f < -0.5 || (f == -0.5 && (k & 1)))
        return k - 1;
    return k;
}

/* q = a 2^30 so rounded (a power-of-two scaling: exact). */
LATMC_HOSTDEV int64_t latmc_embed_sum_term(double a)
{
    return latmc_embed_round_clamped(a * 0x1p30);
}

/* The statistics' terms (doc/clusters.md, "Observables"): the cluster sums of the
 * improved estimator, a 2^20 so rounded (|a| up to 2048 before the clamp: phi^4's field
 * as well as Heisenberg's projections), added as integers, so that every route and
 * every cut of the lattice counts the same sums; a sum S is the value S 2^-20. */
#define LATMC_EMBED_STAT_BITS 20
LATMC_HOSTDEV int64_t latmc_embed_stat_term(double a)
{
    return latmc_embed_round_clamped(a * 0x1p20);
}

/* A_C from Q_C: Q_C 2^-30. */
LATMC_HOSTDEV double latmc_embed_sum_value(int64_t q)
{
    return (double)q * 0x1p-30;
}

/* The keep threshold of a cluster of sum Q_C in the field F: floor(2^32 / (1 + exp(-2 F
 * A_C))) with liblatmc's exp (an argument above 700 gives a threshold of 0 either way);
 * 2^31 for F = 0. */
LATMC_HOSTDEV uint64_t latmc_embed_keep_threshold(double field, int64_t q)
{
    if (field == 0.0)
        return UINT64_C(1) << 31;
    const double arg = -2.0 * field * latmc_embed_sum_value(q);
    return latmc_cluster_threshold(1.0 / (1.0 + latmc_math_exp(arg < 700.0 ? arg : 700.0)));
}

#endif /* LATMC_LIB_CLUSTER_EMBED_SUM_H */
