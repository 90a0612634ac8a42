/*
 * Internal: the exact sums behind Ising's, Potts' and Heisenberg's Fourier modes (lib/modes.h,
 * doc/observables.md "The reduction"). Host code of the core and of a backend's module
 * share these rules (static inline: the module does not link the core's functions).
 *
 * The mode of a projection P[x] (integers, x in [0, L)) is sum_x P[x] w[x] with the fixed
 * point weights w[x] = trunc(table[x] 2^62) of the phase tables (cos or sin of 2 pi x / L:
 * the product by 2^62 is exact, the truncation the C cast's), summed exactly in 128-bit
 * two's complement: an integer sum, the same for any order of the terms and any grouping
 * into parts, so a backend or a part may sum its own projections and the parts' sums add
 * up to the whole lattice's (|P[x]| <= N < 2^41 and |w| <= 2^62: the sum stays below
 * 2^103). The mode is that sum as a double times 2^-62 (latmc_i128_value: one fixed
 * rule, within an ulp), which every backend repeats on the host.
 */
#ifndef LATMC_LIB_MODES_EXACT_H
#define LATMC_LIB_MODES_EXACT_H

#include <stdint.h>

/* Bits of the weights' fixed point. */
#define LATMC_MODES_WEIGHT_BITS 62

/*
 * Heisenberg's site values (a spin's components, and with two replicas the products of
 * theirs) in fixed point: q(t) = round(t), ties to even, of t = v 2^25 (and of the
 * products times 2^25: a float times a float is exact in double, and so is the scaling),
 * whatever the floating-point environment: the truncation and the remainder are exact.
 * |v| <= 1 + 1e-5 (a spin's components; latmc_sim_set_spins' bound) gives |q| < 2^26, so
 * that 32 values' sum fits 32 bits (the CUDA kernels' warp sums), a line's projection of
 * at most N / L sites fits int64, and the exact mode sum of |P| |w| <= N 2^88 stays within
 * 128 bits for N < 2^35 (LATMC_MODES_FIXED_MAX_SITES, which leaves room).
 * The mode is the sum's value (latmc_i128_value) times 2^-25 (LATMC_MODES_SPIN_SCALE).
 */
#define LATMC_MODES_SPIN_SCALE 0x1p25
#define LATMC_MODES_FIXED_MAX_SITES ((int64_t)1 << 35)
static inline int64_t latmc_modes_fixed(double t)
{
    const double a = t < 0 ? -t : t;
    int64_t i = (int64_t)a; /* |t| < 2^62 */
    const double r = a - (double)i;
    /* without branches (a spin's values fall on either side at random): the comparisons'
     * 0 or 1 combined bitwise */
    i += (int64_t)((r > 0.5) | ((r == 0.5) & (int)(i & 1)));
    const int64_t s = -(int64_t)(t < 0); /* 0 or all ones */
    return (i ^ s) - s;
}

/*
 * phi^4's field values in fixed point: q(phi) = round(phi 2^20), ties to even, as
 * latmc_modes_fixed (the scaling is exact for a float or a double field). The field is
 * unbounded, so the modes hold only where the whole pipeline stays exact, which the
 * measurement's own sum of phi^2 bounds (Cauchy-Schwarz: sum |phi| <= sqrt(N sum phi^2),
 * and every |phi| <= sqrt(sum phi^2)): 2^20 sqrt(N sum phi^2) <= 2^61 keeps the sum of
 * every |q| below 2^62 (each projection, each partial sum in int64, the mode sum of
 * |P| |w| below 2^124), and 2^20 sqrt(sum phi^2) <= 2^50 keeps each |phi 2^20| below 2^51
 * (the CUDA kernels' rounding by the addition of 1.5 2^52). Fields beyond are refused
 * (latmc_modes_field_range). The clamp below only keeps the conversion defined for such
 * fields (and NaN): it never applies to a field within the bound.
 */
#define LATMC_MODES_FIELD_SCALE 0x1p20
static inline int64_t latmc_modes_field_fixed(double v)
{
    const double t = v * LATMC_MODES_FIELD_SCALE;
    const double a = t < 0 ? -t : t, m = a <= 0x1p51 ? a : 0x1p51; /* NaN: 2^51 */
    return latmc_modes_fixed(t < 0 ? -m : m);
}

/* A 128-bit two's complement integer, hi * 2^64 + lo (hi read as signed). */
typedef struct {
    uint64_t lo, hi;
} latmc_i128;

/* The weight of one phase: trunc(phase 2^62), |phase| <= 1. */
static inline int64_t latmc_modes_weight(double phase)
{
    return (int64_t)(phase * 0x1p62);
}

static inline latmc_i128 latmc_i128_of(int64_t v)
{
    latmc_i128 r = { (uint64_t)v, v < 0 ? ~(uint64_t)0 : 0 };
    return r;
}

static inline latmc_i128 latmc_i128_add(latmc_i128 a, latmc_i128 b)
{
    latmc_i128 r;
    r.lo = a.lo + b.lo;
    r.hi = a.hi + b.hi + (r.lo < a.lo);
    return r;
}

/* a b exactly, from 32-bit halves (any C11 compiler). */
static inline latmc_i128 latmc_i128_mul_portable(int64_t a, int64_t b)
{
    const uint64_t ua = (uint64_t)a, ub = (uint64_t)b, m = 0xffffffffu;
    const uint64_t ll = (ua & m) * (ub & m), lh = (ua & m) * (ub >> 32);
    const uint64_t hl = (ua >> 32) * (ub & m), hh = (ua >> 32) * (ub >> 32);
    const uint64_t mid = (ll >> 32) + (lh & m) + (hl & m);
    latmc_i128 r;
    r.lo = (mid << 32) | (ll & m);
    r.hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
    /* the unsigned product, less 2^64 b where a < 0 and 2^64 a where b < 0 */
    r.hi -= (a < 0 ? ub : 0) + (b < 0 ? ua : 0);
    return r;
}

/* a b exactly (the compiler's 128-bit integers where it has them: the same value). */
static inline latmc_i128 latmc_i128_mul(int64_t a, int64_t b)
{
#ifdef __SIZEOF_INT128__
    const unsigned __int128 p = (unsigned __int128)((__int128)a * (__int128)b);
    latmc_i128 r = { (uint64_t)p, (uint64_t)(p >> 64) };
    return r;
#else
    return latmc_i128_mul_portable(a, b);
#endif
}

/*
 * A device's partial sum in three limbs, s = l[0] + l[1] 2^43 + l[2] 2^86 (l[0] and l[1]
 * in [0, 2^43), l[2] signed), each limb added up over at most LATMC_MODES_LIMB_SUMS sums
 * by 64-bit atomics without overflow: the sum of such limb triples.
 */
#define LATMC_MODES_LIMB_BITS 43
#define LATMC_MODES_LIMB_SUMS (1 << 20)
static inline latmc_i128 latmc_i128_of_limbs(const int64_t l[3])
{
    const latmc_i128 a = latmc_i128_of(l[0]), b = latmc_i128_of(l[1]),
                     c = latmc_i128_of(l[2]);
    const latmc_i128 b43 = { b.lo << 43, (b.hi << 43) | (b.lo >> 21) };
    const latmc_i128 c86 = { 0, c.lo << 22 };
    return latmc_i128_add(latmc_i128_add(a, b43), c86);
}

/* The mode: sign times (double(hi) 2^64 + double(lo)) of the magnitude, times 2^-62 (each
 * conversion and the addition rounded to nearest; the scalings exact). */
static inline double latmc_i128_value(latmc_i128 s)
{
    const int neg = (int)(s.hi >> 63);
    if (neg) { /* the magnitude, -s */
        s.lo = ~s.lo + 1;
        s.hi = ~s.hi + (s.lo == 0);
    }
    const double v = (double)s.hi * 0x1p64 + (double)s.lo;
    return (neg ? -v : v) * 0x1p-62;
}

#endif
