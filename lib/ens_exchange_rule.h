/*
 * Internal: the arithmetic of the exchange rule (doc/ensembles.md, "Exchange rule"), one
 * definition for the host's round (lib/ens_exchange.c) and the CUDA module's round on the
 * device (backends/cuda/exec/cuda_temper_round.cuh), so both take the very same
 * decisions. Host-and-device code (LATMC_HOSTDEV); device code is built without fused
 * multiply-adds (-fmad=false), so every double below rounds as on the host.
 */
#ifndef LATMC_LIB_ENS_EXCHANGE_RULE_H
#define LATMC_LIB_ENS_EXCHANGE_RULE_H

#include <stdbool.h>
#include <stdint.h>

#include "latmc_math.h"
#include "rng_streams.h"

/* Draw j of round `round`: output j mod 4 of block j / 4 (key seed, sweep field = round,
 * `stream` = latmc_rng_stream(LATMC_STREAM_ENS_EXCHANGE, 0), phase 0, sub 0). */
LATMC_HOSTDEV uint32_t latmc_ens_exchange_draw(uint64_t seed, uint32_t stream, uint64_t round,
                                               uint64_t j)
{
    return latmc_rng_name_block(seed, latmc_rng_ens_name(stream, round), j / 4).v[j % 4];
}

/* Delta of the pair (a at lo, b at hi): scale (hi - lo) (E_b - E_a), E = value x nsites
 * (the observable is per site). */
LATMC_HOSTDEV double latmc_ens_exchange_delta(double scale, double lo, double hi, double value_a,
                                              double value_b, double nsites)
{
    return scale * (hi - lo) * (value_b * nsites - value_a * nsites);
}

/* Accept <=> u < floor(p 2^32), p = min(1, exp(delta)) with liblatmc's exp. */
LATMC_HOSTDEV bool latmc_ens_exchange_accept(double delta, uint32_t u)
{
    if (delta >= 0)
        return true;
    const double p = latmc_math_exp(delta);
    const double scaled = p * 4294967296.0;
    const uint64_t threshold = scaled >= 4294967296.0 ? UINT64_C(4294967296) : (uint64_t)scaled;
    return (uint64_t)u < threshold;
}

/*
 * Round-trip bookkeeping of one member now at temperature t (top: n_T - 1) after a round
 * at ensemble sweep `sweeps`: *dir is +1 once it left temperature 0 going up, -1 once it
 * reached the top since, 0 before either; *start the sweep it left 0. True when this
 * completes a round trip (back at 0 after the top), its length in *trip. Calling it again
 * with the same t changes nothing.
 */
LATMC_HOSTDEV bool latmc_ens_trip_step(signed char *dir, uint64_t *start, int t, int top,
                                       uint64_t sweeps, uint64_t *trip)
{
    bool done = false;
    if (t == 0) {
        if (*dir == -1) {
            done = true;
            *trip = sweeps - *start;
        }
        if (*dir != 1) {
            *dir = 1;
            *start = sweeps;
        }
    } else if (t == top && *dir == 1) {
        *dir = -1;
    }
    return done;
}

#endif
