/*
 * Heisenberg's site values in the fixed point of the Fourier modes' projections
 * (lib/modes_exact.h, latmc_modes_fixed: q = round(v 2^25), ties to even), on the device,
 * for every kernel that counts them (mode_fixed.cu, heisenberg_sums.cu). v + 1.5 2^27,
 * rounded to nearest even, lies in [2^27, 2^28) for |v| < 2^26, where doubles are 2^-25
 * apart, so its mantissa is q + 2^51, whose low 32 bits are q's (|v| <= 1 + 1e-5,
 * latmc_sim_set_spins' bound, gives |q| < 2^26): one addition instead of a conversion.
 */
#ifndef LATMC_CUDA_MODES_FIXED_CUH
#define LATMC_CUDA_MODES_FIXED_CUH

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

#endif
