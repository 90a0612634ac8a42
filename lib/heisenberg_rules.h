/*
 * Internal: the per-site rules of the Heisenberg chain (doc/models/heisenberg.md) in
 * double on the host, as pure functions of the local field and the random numbers: heat
 * bath and overrelaxation (heisenberg_site.h, the one body every backend and precision
 * instantiates) and the conversions from 32-bit draws. Spins are stored as floats,
 * normalised in double just before rounding. The transcendental functions are the shared
 * ones of lib/latmc_math.h (not libm's), so that every SIMD level computes the same bits;
 * sqrt is IEEE's, correctly rounded everywhere. The CPU's lattice loops only gather local
 * fields and call these; the unit tests call them directly. The per-block draws of the
 * hot start live here too (the couplings' in heisenberg_couplings.h): the CUDA module runs
 * them on its host side, so that both backends get the very same hot starts.
 */
#ifndef LATMC_LIB_HEISENBERG_RULES_H
#define LATMC_LIB_HEISENBERG_RULES_H

#include <math.h>
#include <stdint.h>

#include <latmc/sim.h> /* LATMC_COUPLINGS_* */

#include "coupling_draws.h"
#include "heisenberg.h"
#include "heisenberg_couplings.h" /* latmc_heisenberg_uniform, the couplings' lanes */
#include "latmc_math.h"
#include "rng_streams.h"

#define HEISENBERG_R double
#define HEISENBERG_QUAL static inline
#define HEISENBERG_SQRT sqrt
#define HEISENBERG_LOG latmc_math_log
#define HEISENBERG_LOG1P latmc_math_log1p
#define HEISENBERG_EXP latmc_math_exp
#define HEISENBERG_EXPM1 latmc_math_expm1
#define HEISENBERG_ABS fabs
#define HEISENBERG_SINCOS_2PI latmc_math_sincos_2pi
#include "heisenberg_site.h"

/* A spin uniform on the sphere (hot start): cos(theta) = 2 u_z - 1 to e_z, azimuth 2 pi u_phi. */
static inline void latmc_heisenberg_uniform_spin(double u_z, double u_phi, float out[3])
{
    const double z = 2.0 * u_z - 1.0;
    const double r = sqrt((1.0 - z) * (1.0 + z));
    double sin_phi, cos_phi;
    latmc_math_sincos_2pi(u_phi, &sin_phi, &cos_phi);
    const double v[3] = { r * cos_phi, r * sin_phi, z };
    latmc_heisenberg_store_unit(v, out);
}

/* Couplings 4b .. 4b + 3 of n into couplings[4b ..]. */
static inline void latmc_heisenberg_couplings_block(float *couplings, int64_t n, int kind,
                                                  uint64_t coupling_seed, int64_t b)
{
    float j[4];
    latmc_heisenberg_couplings_lanes(j, kind, coupling_seed, b);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        couplings[4 * b + lane] = j[lane];
}

/* Couplings [e0, e1) of the lattice into out[e - e0]. */
static inline void latmc_heisenberg_couplings_range(float *out, int64_t e0, int64_t e1,
                                                    int kind, uint64_t coupling_seed)
{
    for (int64_t b = e0 / 4; 4 * b < e1; b++) {
        float j[4];
        latmc_heisenberg_couplings_lanes(j, kind, coupling_seed, b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t e = 4 * b + lane;
            if (e >= e0 && e < e1)
                out[e - e0] = j[lane];
        }
    }
}

/* Hot start of sites 4b .. 4b + 3 (3 floats per site) into s[0 .. 11]: the hot start's
 * draws of replica `replica` (latmc_rng_init_name); sub 0 gives cos(theta) = 2u - 1 to
 * e_z, sub 1 the azimuth. As the couplings: the whole lattice (_block) or a range of it
 * (_range). */
static inline void latmc_heisenberg_hot_lanes(float s[4 * LATMC_HEISENBERG_COMPONENTS],
                                              uint64_t seed, uint32_t replica, int64_t b)
{
    const latmc_philox_ctr rz = latmc_rng_init_block(seed, replica, 0, (uint64_t)b);
    const latmc_philox_ctr rphi = latmc_rng_init_block(seed, replica, 1, (uint64_t)b);
    for (int lane = 0; lane < 4; lane++)
        latmc_heisenberg_uniform_spin(latmc_heisenberg_uniform(rz.v[lane]),
                                      latmc_heisenberg_uniform(rphi.v[lane]),
                                      s + LATMC_HEISENBERG_COMPONENTS * lane);
}

/* Sites 4b .. 4b + 3 of n into spins[3 (4b) ..]. */
static inline void latmc_heisenberg_hot_block(float *spins, int64_t n, uint64_t seed,
                                            uint32_t replica, int64_t b)
{
    float s[4 * LATMC_HEISENBERG_COMPONENTS];
    latmc_heisenberg_hot_lanes(s, seed, replica, b);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        for (int c = 0; c < LATMC_HEISENBERG_COMPONENTS; c++)
            spins[LATMC_HEISENBERG_COMPONENTS * (4 * b + lane) + c] =
                s[LATMC_HEISENBERG_COMPONENTS * lane + c];
}

/* Sites [i0, i1) of replica `replica`'s hot start into out[3 (i - i0) ..]. */
static inline void latmc_heisenberg_hot_range(float *out, int64_t i0, int64_t i1, uint64_t seed,
                                              int replica)
{
    for (int64_t b = i0 / 4; 4 * b < i1; b++) {
        float s[4 * LATMC_HEISENBERG_COMPONENTS];
        latmc_heisenberg_hot_lanes(s, seed, (uint32_t)replica, b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane;
            for (int c = 0; i >= i0 && i < i1 && c < LATMC_HEISENBERG_COMPONENTS; c++)
                out[LATMC_HEISENBERG_COMPONENTS * (i - i0) + c] =
                    s[LATMC_HEISENBERG_COMPONENTS * lane + c];
        }
    }
}

#endif
