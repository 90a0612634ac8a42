/*
 * Heisenberg's and phi^4's site values in the fixed point of the Fourier modes' projections
 * (lib/modes_exact.h, latmc_modes_fixed: q = round(v 2^25), ties to even), on the device,
 * for every kernel that counts them (mode_fixed.cu, heisenberg_sums.cu). v + 1.5 2^27,
 * rounded to nearest even, lies in [2^27, 2^28) for |v| < 2^26, where doubles are 2^-25
 * apart, so its mantissa is q + 2^51, whose low 32 bits are q's (|v| <= 1 + 1e-5,
 * latmc_sim_set_spins' bound, gives |q| < 2^26): one addition instead of a conversion.
 * phi^4's field values the same way, at their own scale (cuda_modes_field_bits).
 */
#ifndef LATMC_CUDA_MODES_FIXED_CUH
#define LATMC_CUDA_MODES_FIXED_CUH

#include <math.h>

#include "latmc_math.h"  /* latmc_math_float_bits */
#include "modes_exact.h" /* LATMC_MODES_FIELD_SCALE */

#define CUDA_MODES_FIXED_MAGIC 201326592.0 /* 1.5 2^27 */

/* A spin component's q. */
__device__ __forceinline__ int cuda_modes_fixed(double v)
{
    return __double2loint(__dadd_rn(v, CUDA_MODES_FIXED_MAGIC));
}

/* The product a b's q (exact in double for floats a, b), in the same one rounding. */
__device__ __forceinline__ int cuda_modes_fixed_product(double a, double b)
{
    return __double2loint(__fma_rn(a, b, CUDA_MODES_FIXED_MAGIC));
}

/* A sum v of fixed-point values (|v| < 2^31) added into a pair of 32-bit counters as its
 * 16-bit halves (the low one unsigned, the high one signed), so that fewer than 2^15 such
 * additions stay exact in 32-bit (shared-memory) atomics; cuda_modes_halves_value gives
 * the pair's total. */
__device__ __forceinline__ void cuda_modes_add_halves(unsigned *lo, int *hi, int v)
{
    atomicAdd(lo, (unsigned)v & 0xffffu);
    atomicAdd(hi, v >> 16);
}

__device__ __forceinline__ long long cuda_modes_halves_value(unsigned lo, int hi)
{
    return (long long)hi * 65536 + (long long)lo;
}

/*
 * phi^4's field values in fixed point (lib/modes_exact.h, latmc_modes_field_fixed:
 * q = round(phi 2^20), ties to even; phi 2^20 is exact for a float or a double). One FMA,
 * phi 2^20 + 1.5 2^52 in one rounding to nearest even, lies in [2^52, 2^53) for
 * |phi 2^20| < 2^51, where doubles are 1 apart, so its bits less CUDA_MODES_FIELD_BITS
 * (1.5 2^52's) are q. The kernels keep the raw bits: a sum of n of them less n times
 * CUDA_MODES_FIELD_BITS is the sum of the q modulo 2^64, exact where the core accepts the
 * field (every such sum below 2^62); beyond (a field it refuses after the fact) the
 * integers are wrong but every operation stays defined (unsigned, no trap).
 */
#define CUDA_MODES_FIELD_MAGIC 0x1.8p52
#define CUDA_MODES_FIELD_BITS 0x4338000000000000ull
#define CUDA_MODES_FIELD_LOW 26 /* the pieces' split (cuda_modes_field_pieces) */

__device__ __forceinline__ unsigned long long cuda_modes_field_bits(double phi)
{
    return (unsigned long long)__double_as_longlong(
        __fma_rn(phi, LATMC_MODES_FIELD_SCALE, CUDA_MODES_FIELD_MAGIC));
}

/*
 * A float field value's q without the FP64 pipe (phi4_tile_walk.cu's helpers): one FMA in
 * float, y = phi 2^20 + 1.5 2^23 in one rounding to nearest even; where y lies in
 * [2^23, 2^24), floats 1 apart, its bits less CUDA_MODES_FLOAT_BITS (1.5 2^23's) are q
 * (ties to even: the constant is even), -2^22 <= q < 2^22. Those bits are 0x4B000000 ..
 * 0x4B7FFFFF, the top nine the same: a count ors each y's bits less those into `odd`
 * (cuda_modes_float_odd), which keeps its top nine bits zero exactly when every y was one
 * of them (cuda_modes_float_ok; else |phi 2^20| was about 2^22 or more, or phi not
 * finite, and the values take the FMA's count in doubles). Host-callable for
 * tools/phi4-float-host-check.sh.
 */
#define CUDA_MODES_FLOAT_BITS 0x4B400000u /* 1.5 2^23 */
#define CUDA_MODES_FLOAT_TOP 0x4B000000u  /* 2^23: the top nine bits of every exact y */

__host__ __device__ __forceinline__ unsigned cuda_modes_float_bits(float phi)
{
    return latmc_math_float_bits(fmaf(phi, 0x1p20f, 0x1.8p23f));
}

__host__ __device__ __forceinline__ unsigned cuda_modes_float_odd(unsigned odd, unsigned b)
{
    return odd | (b ^ CUDA_MODES_FLOAT_TOP);
}

__host__ __device__ __forceinline__ bool cuda_modes_float_ok(unsigned odd)
{
    return (odd & 0xFF800000u) == 0;
}

/* The bits b's q as two 32-bit pieces whose sums over a warp (32 values) stay within 32
 * bits: q's low 26 bits (unsigned, those of b: the magic's low 48 bits are zero) and
 * q >> 26 (signed, |.| < 2^25 for |q| < 2^51), b >> 26 less the magic's. keep: ~0u, or 0
 * for a lane whose value must not count (both pieces 0). */
__device__ __forceinline__ void cuda_modes_field_pieces(unsigned long long b, unsigned keep,
                                                        unsigned *lo, unsigned *hi)
{
    *lo = (unsigned)b & (keep & ((1u << CUDA_MODES_FIELD_LOW) - 1u));
    *hi = ((unsigned)(b >> CUDA_MODES_FIELD_LOW) -
           (unsigned)(CUDA_MODES_FIELD_BITS >> CUDA_MODES_FIELD_LOW)) & keep;
}

/* A warp's sum of the pieces v (every lane calls it). */
__device__ __forceinline__ unsigned cuda_modes_warp_sum(unsigned v)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(0xffffffffu, v);
#else
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
#endif
}

/* The sum of q that the pieces' sums lo, hi stand for (modulo 2^64). */
__device__ __forceinline__ unsigned long long cuda_modes_field_value(unsigned lo, unsigned hi)
{
    return ((unsigned long long)(long long)(int)hi << CUDA_MODES_FIELD_LOW) + lo;
}

#endif
