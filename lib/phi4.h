/*
 * Internal: the phi^4 model's definitions shared by the core (lib/model_phi4.c), every
 * backend and the unit tests. The chain is defined in doc/models/phi4.md; everything
 * arithmetic about one Metropolis hit lives here, written once and generated for the
 * two field precisions (suffix _f: float, _d: double), so that the kernels and the tests
 * cannot drift apart.
 *
 *   H = sum_x [ 1/2 sum_mu (phi(x+mu) - phi(x))^2 + mu2/2 phi^2 + g/24 phi^4
 *             + 1/(2 Lambda) (sum_mu (phi(x+mu) - 2 phi(x) + phi(x-mu)))^2 ],  weight exp(-H)
 *
 * Only plain C here (no sim, no OpenMP), so that SIMD and CUDA code can include it: every
 * function is LATMC_HOSTDEV (lib/philox.h), i.e. static inline in C and
 * __host__ __device__ in CUDA, so the CUDA kernels run this very arithmetic.
 */
#ifndef LATMC_LIB_PHI4_H
#define LATMC_LIB_PHI4_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include <latmc/sim.h>

#include "latmc_math.h"
#include "philox.h" /* LATMC_HOSTDEV */
#include "rng_streams.h" /* struct latmc_rng_name */

/* ---------------------------------------------------------------------------------- */
/* Colouring                                                                           */

/*
 * Sites that interact must not be updated together. The energy change at x involves the
 * sites x +- e_mu, x +- 2 e_mu and x +- e_mu +- e_nu (mu != nu), so a colouring must give
 * all of these a colour different from x's. Two linear colourings do:
 *   8 colours: colour = (x + 3y + 2z) mod 8   (2D and 3D; every extent divisible by 8)
 *   5 colours: colour = (x + 2y) mod 5        (2D only; both extents divisible by 5)
 * The offsets above map to colour differences 1..7 (mod 8) and 1..4 (mod 5), never 0;
 * divisibility makes the colouring periodic, so the wrap adds no conflict
 * (tests/unit/test_phi4_colouring.c checks both by enumeration).
 */
struct latmc_phi4_colouring {
    int ncolours;   /* 8 or 5; 0 when no colouring fits the extents */
    int ay, az;     /* colour = (x + ay y + az z) mod ncolours */
};

/* The colouring for these extents (8 colours preferred), or ncolours = 0. */
LATMC_HOSTDEV struct latmc_phi4_colouring latmc_phi4_colouring_of(int ndim,
                                                                 const int64_t *extent)
{
    struct latmc_phi4_colouring c = { 0, 0, 0 };
    bool by8 = true, by5 = ndim == 2;
    for (int mu = 0; mu < ndim; mu++) {
        by8 = by8 && extent[mu] % 8 == 0;
        by5 = by5 && extent[mu] % 5 == 0;
    }
    if (by8) {
        c.ncolours = 8;
        c.ay = 3;
        c.az = 2;
    } else if (by5) {
        c.ncolours = 5;
        c.ay = 2;
        c.az = 0;
    }
    return c;
}

/* Colour of site (x, y, z) (z = 0 in 2D); coordinates >= 0. */
LATMC_HOSTDEV int latmc_phi4_colour(const struct latmc_phi4_colouring *c, int64_t x, int64_t y,
                                   int64_t z)
{
    return (int)((x + c->ay * y + c->az * z) % c->ncolours);
}

/* ---------------------------------------------------------------------------------- */
/* Random-number names (doc/models/phi4.md, "Random numbers")                         */

/* Two draws per hit: the proposal and the acceptance test. */
enum { LATMC_PHI4_DRAW_ETA = 0, LATMC_PHI4_DRAW_ACCEPT = 1 };

/*
 * The counter's sweep field: pass `pass` (0 .. nloc-1) of sweep `sweep` is
 * sweep * nloc + pass. It names 2^48 values (LATMC_RNG_MAX_SWEEP + 1), so a sim can run
 * 2^48 / nloc sweeps before the names repeat (documented limit).
 */
LATMC_HOSTDEV uint64_t latmc_phi4_rng_sweep(uint64_t sweep, uint32_t nloc, uint32_t pass)
{
    return sweep * nloc + pass;
}

/*
 * Phase and sub of draw `draw` of hit `hit` (0 .. nhit-1) in colour `colour`:
 * sub = 2 (hit mod 2^15) + draw (16 bits), phase = colour + 8 floor(hit / 2^15).
 * For nhit <= 32768 the phase is the colour; the parameter range allows nhit up to
 * 65535, and the hits past 32767 move to phases 8..15 instead of wrapping onto the
 * names of earlier hits.
 */
LATMC_HOSTDEV uint32_t latmc_phi4_rng_phase(int colour, uint32_t hit)
{
    return (uint32_t)colour + 8u * (hit >> 15);
}

LATMC_HOSTDEV uint32_t latmc_phi4_rng_sub(uint32_t hit, uint32_t draw)
{
    return 2u * (hit & 0x7fffu) + draw;
}

/* The name of colour `colour`'s draws in pass `pass` of sweep `sweep` (hit 0, draw 0; the
 * other hits and draws: latmc_rng_name_at with the phase and sub above): what
 * lib/model_phi4.c's step_of names its steps, for the kernels that run a sweep's passes
 * themselves (CUDA's chunk chain). */
LATMC_HOSTDEV struct latmc_rng_name latmc_phi4_rng_name(uint64_t sweep, uint32_t nloc,
                                                        uint32_t pass, int colour)
{
    return latmc_rng_update_name(latmc_phi4_rng_sweep(sweep, nloc, pass),
                                 latmc_phi4_rng_phase(colour, 0), latmc_phi4_rng_sub(0, 0));
}

/* ---------------------------------------------------------------------------------- */
/* Coefficients (the sim's model_data), computed by the core from the parameters       */

/*
 * The constants of the local energy change, in double, then rounded once to the field
 * type:
 *   site       = (k + mu2 / 2) + k (1 + 2k) / Lambda    (the last term absent for Lambda = inf)
 *   quartic    = g / 24
 *   inv_lambda = 1 / Lambda                             (0, and unused, for Lambda = inf)
 *   four_k     = 4 k
 *   epsilon    = the proposal half-width
 * finite_lambda = 0 switches the 1/Lambda terms off by a branch, never by 1/inf = 0.
 */
struct latmc_phi4_coef_f {
    float site, quartic, inv_lambda, four_k, epsilon;
    int finite_lambda;
};

struct latmc_phi4_coef_d {
    double site, quartic, inv_lambda, four_k, epsilon;
    int finite_lambda;
};

struct latmc_phi4_tables {
    uint32_t nhit;   /* hits per site per pass, 1 .. 65535 */
    uint32_t nloc;   /* passes per sweep, 1 .. 65535 */
    struct latmc_phi4_coef_f f;
    struct latmc_phi4_coef_d d;
};

/*
 * The reduction behind every observable, parameter-free (so a parameter change needs no
 * new reduction), accumulated in double whatever the field precision:
 *   phi   = sum_x phi(x)            phi2 = sum_x phi(x)^2       phi4 = sum_x phi(x)^4
 *   grad2 = sum_x sum_mu (phi(x+mu) - phi(x))^2
 *   lap2  = sum_x (sum_mu (phi(x+mu) - 2 phi(x) + phi(x-mu)))^2
 * H = grad2 / 2 + mu2 / 2 phi2 + g / 24 phi4 + lap2 / (2 Lambda).
 */
struct latmc_phi4_sums {
    double phi, phi2, phi4, grad2, lap2;
};

/* ---------------------------------------------------------------------------------- */
/* One Metropolis hit, for both precisions                                             */

/*
 * Generated once per field type R with suffix S and its log function LOG:
 *
 * latmc_phi4_log_S(u): the one logarithm of the acceptance test, the shared
 *   latmc_math_logf / latmc_math_log of lib/latmc_math.h (not libm's: every backend and
 *   SIMD level must compute the same bits; nothing else calls log).
 * latmc_phi4_unit_S(r): (r + 1) 2^-32 in R, a uniform in (0, 1] (never 0: no log(0)).
 *   Exact in double; in float the integer r + 1 is rounded to nearest first.
 * latmc_phi4_signed_S(r): (2r + 1 - 2^32) 2^-32 in R = 2 (r + 1/2) 2^-32 - 1, a uniform
 *   in (-1, 1). The odd integer 2r + 1 - 2^32 is converted to R (exact in double,
 *   rounded to nearest in float, which can give +-1 exactly with probability ~2^-25) and
 *   scaled by a power of two. The set of odd integers is symmetric and rounding to
 *   nearest is odd, so the distribution is exactly symmetric about 0 in both types:
 *   the proposal is symmetric.
 * latmc_phi4_corona_S(k, c01, c02, c11): the field's linear coefficient at a site,
 *   c = c01 - (c02 - 4k c01 + 2 c11) / Lambda, evaluated as
 *   c01 - (c02 - four_k * c01 + 2 * c11) * inv_lambda, and exactly c01 for Lambda = inf.
 * latmc_phi4_delta_h_S(k, c, o, n): the change of H when the site goes from o to n,
 *   dH = -(n - o) c + (n^2 - o^2) site + quartic (n^4 - o^4),
 *   evaluated factorised as (n - o) ((n + o) (site + quartic (n n + o o)) - c): no
 *   cancellation between large terms, and dH(o -> n) = -dH(n -> o) exactly.
 * latmc_phi4_hit_S(k, c, o, r_eta, r_u, &phi): the Metropolis hit: propose
 *   n = o + epsilon * signed(r_eta), accept iff -dH > log(unit(r_u)); writes the new
 *   value (n or o) and returns 1 if accepted.
 */
#define LATMC_PHI4_DEFINE_HIT(R, S, LOG)                                                   \
    LATMC_HOSTDEV R latmc_phi4_log_##S(R u)                                                \
    {                                                                                      \
        return LOG(u);                                                                     \
    }                                                                                      \
                                                                                           \
    LATMC_HOSTDEV R latmc_phi4_unit_##S(uint32_t r)                                        \
    {                                                                                      \
        return (R)((uint64_t)r + 1u) * (R)0x1p-32;                                         \
    }                                                                                      \
                                                                                           \
    LATMC_HOSTDEV R latmc_phi4_signed_##S(uint32_t r)                                      \
    {                                                                                      \
        return (R)(2 * (int64_t)r + 1 - (INT64_C(1) << 32)) * (R)0x1p-32;                  \
    }                                                                                      \
                                                                                           \
    LATMC_HOSTDEV R latmc_phi4_corona_##S(const struct latmc_phi4_coef_##S *k, R c01,      \
                                          R c02, R c11)                                    \
    {                                                                                      \
        if (!k->finite_lambda)                                                             \
            return c01;                                                                    \
        return c01 - (c02 - k->four_k * c01 + (R)2 * c11) * k->inv_lambda;                 \
    }                                                                                      \
                                                                                           \
    LATMC_HOSTDEV R latmc_phi4_delta_h_##S(const struct latmc_phi4_coef_##S *k, R c, R o,  \
                                           R n)                                            \
    {                                                                                      \
        return (n - o) * ((n + o) * (k->site + k->quartic * (n * n + o * o)) - c);         \
    }                                                                                      \
                                                                                           \
    LATMC_HOSTDEV int latmc_phi4_hit_##S(const struct latmc_phi4_coef_##S *k, R c, R o,    \
                                         uint32_t r_eta, uint32_t r_u, R *phi)             \
    {                                                                                      \
        const R n = o + k->epsilon * latmc_phi4_signed_##S(r_eta);                         \
        const R dh = latmc_phi4_delta_h_##S(k, c, o, n);                                   \
        if (-dh > latmc_phi4_log_##S(latmc_phi4_unit_##S(r_u))) {                          \
            *phi = n;                                                                      \
            return 1;                                                                      \
        }                                                                                  \
        *phi = o;                                                                          \
        return 0;                                                                          \
    }

LATMC_PHI4_DEFINE_HIT(float, f, latmc_math_logf)
LATMC_PHI4_DEFINE_HIT(double, d, latmc_math_log)

#undef LATMC_PHI4_DEFINE_HIT

#endif /* LATMC_LIB_PHI4_H */
