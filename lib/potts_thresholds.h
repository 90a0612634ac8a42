/*
 * Internal: the Potts heat bath of one neighbourhood as thresholds on its draw, for kernels
 * that look the choice up in a table instead of scanning the states (the CUDA table
 * kernels, backends/cuda/potts/potts_rows.cuh). Usable from C and CUDA (LATMC_HOSTDEV).
 *
 * For a fixed neighbourhood (the states nb of the 2 ndim neighbours) the heat bath of
 * lib/potts_rules.h picks, from the draw u,
 *
 *     k(u) = the first k <= q - 2 with C_k > target(u), else q - 1,
 *     C_k = W_0 + ... + W_k,  target(u) = floor(u T / 2^32),  T = W_0 + ... + W_{q-1}.
 *
 * C_k does not decrease with k, so k(u) = #{ k <= q - 2 : C_k <= target(u) }; target(u)
 * does not decrease with u, so C_k <= target(u) holds exactly for u >= t_k with
 *
 *     t_k = min { u : target(u) >= C_k }    (2^32 when no 32-bit u reaches it).
 *
 * Hence k(u) = #{ k <= q - 2 : u >= t_k } for every u: q - 1 integers per neighbourhood
 * decide every draw, bit for bit as the scan does. The thresholds are computed from the
 * very weights of the scan (latmc_potts_heatbath_weights) and the very function
 * target(u) (latmc_potts_scale_draw), so nothing can drift; tests/unit/
 * test_potts_thresholds.c checks the identity for every neighbourhood at both sides of
 * every threshold.
 *
 * Stored form, 32-bit words only: word 0 = base = #{ k : t_k = 0 } (states 0 .. k of
 * weight 0), words 1 .. q-1: word = 2^32 - t_k modulo 2^32, which is 0 exactly for
 * t_k = 2^32 (never reached) and for t_k = 0 (counted in base instead). Then u >= t_k is
 * the carry of the 32-bit addition u + word, and
 *
 *     k(u) = base + #{ j : u + word[1 + j] >= 2^32 },
 *
 * one add-with-carry per threshold on a GPU.
 */
#ifndef LATMC_LIB_POTTS_THRESHOLDS_H
#define LATMC_LIB_POTTS_THRESHOLDS_H

#include <stdint.h>

#include "potts_rules.h"

/*
 * t = min { u in [0, 2^32] : floor(u total / 2^32) >= c } for 0 < c <= total (2^32 when no
 * u < 2^32 reaches c). The exact answer is ceil(c 2^32 / total); a double gives a first
 * guess within one unit of it (both operands are exact doubles, the relative error of the
 * two roundings is ~2^-52), and the integer search around the guess returns the exact
 * minimum whatever the guess was: the result never depends on floating-point rounding.
 */
LATMC_HOSTDEV uint64_t latmc_potts_first_draw_reaching(uint64_t c, uint64_t total)
{
    const uint64_t two32 = UINT64_C(1) << 32;
    const double guess = (double)c * (4294967296.0 / (double)total);
    uint64_t u = guess >= 4294967296.0 ? two32 : guess <= 0.0 ? 0 : (uint64_t)guess;
    while (u > 0 && latmc_potts_scale_draw((uint32_t)(u - 1), total) >= c)
        u--;
    while (u < two32 && latmc_potts_scale_draw((uint32_t)u, total) < c)
        u++;
    return u;
}

/*
 * The thresholds of the heat bath for neighbourhood nb (n_nb states, each < q): word[0] =
 * base, word[1 + k] for k = 0 .. q - 2 as above, word[q .. n_words - 1] = 0 (padding that
 * never counts); n_words >= q. n_of: as for latmc_potts_heatbath (all 0 on entry and on
 * return; q entries suffice here, since every index is a state < q).
 */
LATMC_HOSTDEV void latmc_potts_heatbath_thresholds(const struct latmc_potts_tables *t, int q,
                                                   const uint8_t *nb, int n_nb, uint8_t *n_of,
                                                   uint32_t *word, int n_words)
{
    uint64_t total;
    const uint32_t *w = latmc_potts_heatbath_weights(t, q, nb, n_nb, n_of, &total);
    uint32_t base = 0;
    uint64_t cumulative = 0;
    for (int k = 0; k + 1 < n_words; k++) {
        uint32_t v = 0;
        if (k < q - 1) {
            cumulative += w[latmc_potts_class(n_of[k], k == 0)];
            if (cumulative == 0)
                base++; /* t_k = 0: every draw passes state k */
            else        /* t_k >= 1 (target(0) = 0); 2^32 - t_k, 0 for t_k = 2^32 */
                v = (uint32_t)((UINT64_C(1) << 32) -
                               latmc_potts_first_draw_reaching(cumulative, total));
        }
        word[1 + k] = v;
    }
    word[0] = base;
    for (int i = 0; i < n_nb; i++)
        n_of[nb[i]] = 0;
}

/* [u >= t] for the stored word 2^32 - t: the carry of u + word. */
LATMC_HOSTDEV uint32_t latmc_potts_carry(uint32_t u, uint32_t word)
{
    return (uint32_t)(((uint64_t)u + word) >> 32);
}

/* The choice from the stored thresholds: latmc_potts_heatbath(..., u, ...) for every u. */
LATMC_HOSTDEV int latmc_potts_heatbath_lookup(const uint32_t *word, int n_words, uint32_t u)
{
    uint32_t k = word[0];
    for (int j = 1; j < n_words; j++)
        k += latmc_potts_carry(u, word[j]);
    return (int)k;
}

/*
 * The same choice by binary search, for q <= 8 (seven thresholds). From the stored words
 * (n_words = 8): the thresholds that can be passed, a_i = t_{base + i} (i = 0 .. 6, t = 2^32
 * past q - 2), do not decrease with i, so the number passed is found with three
 * comparisons. Tree order: top = { base, a_3, a_1, a_5 }, bottom = { a_0, a_2, a_4, a_6 }
 * (as stored words 2^32 - a_i, 0 for 2^32): a kernel reads the top at once and then one
 * word of the bottom.
 */
LATMC_HOSTDEV void latmc_potts_heatbath_tree7(const uint32_t *word, int q, uint32_t *top,
                                              uint32_t *bottom)
{
    const int base = (int)word[0];
    uint32_t a[7];
    for (int i = 0; i < 7; i++)
        a[i] = base + i < q - 1 ? word[1 + base + i] : 0;
    top[0] = (uint32_t)base;
    top[1] = a[3];
    top[2] = a[1];
    top[3] = a[5];
    bottom[0] = a[0];
    bottom[1] = a[2];
    bottom[2] = a[4];
    bottom[3] = a[6];
}

LATMC_HOSTDEV int latmc_potts_heatbath_lookup_tree7(const uint32_t *top, const uint32_t *bottom,
                                                    uint32_t u)
{
    const uint32_t above3 = latmc_potts_carry(u, top[1]);                  /* u >= a_3 */
    const uint32_t above = latmc_potts_carry(u, above3 ? top[3] : top[2]); /* a_5 or a_1 */
    const uint32_t j = 2 * above3 + above;                                 /* a_{2j} next */
    return (int)(top[0] + 2 * j + latmc_potts_carry(u, bottom[j]));
}

#endif /* LATMC_LIB_POTTS_THRESHOLDS_H */
