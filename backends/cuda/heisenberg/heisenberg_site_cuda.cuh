/*
 * The Heisenberg per-site rules (lib/heisenberg_site.h) for CUDA, in double and in float: one
 * instantiation for every kernel that updates Heisenberg sites (one lattice,
 * heisenberg_kernels.cu; ensembles, heisenberg/heisenberg_batch_kernels.cu), so that both make
 * the same operations in the same order and a member is bit-identical to its standalone sim.
 */
#ifndef LATMC_HEISENBERG_SITE_CUDA_CUH
#define LATMC_HEISENBERG_SITE_CUDA_CUH

#include <stdint.h>

#include "cuda_philox.cuh" /* cuda_philox10_wide */
#include "rng_streams.h"

#define HEISENBERG_TWO_PI 6.283185307179586476925286766559

/* Double: the CPU reference's operations (CUDA's IEEE sqrt and division; log, log1p, exp,
 * expm1, sin, cos within an ulp or two of the CPU's shared lib/latmc_math.h). */
__device__ __forceinline__ void heisenberg_sincos_2pi(double u, double *s, double *c)
{
    const double phi = HEISENBERG_TWO_PI * u;
    *c = cos(phi);
    *s = sin(phi);
}

#define HEISENBERG_R double
#define HEISENBERG_QUAL __device__ __forceinline__
#define HEISENBERG_SQRT sqrt
#define HEISENBERG_LOG log
#define HEISENBERG_LOG1P log1p
#define HEISENBERG_EXP exp
#define HEISENBERG_EXPM1 expm1
#define HEISENBERG_ABS fabs
#define HEISENBERG_SINCOS_2PI heisenberg_sincos_2pi
#include "heisenberg_site.h"

/*
 * Float: the precision chosen for speed, so the special function unit's approximations (a
 * few ulp each, sin, cos and lg2 near 1 about 2^-21 absolute: PTX's div, sqrt, rsqrt, lg2,
 * ex2, sin and cos .approx, with denormals flushed to zero, which spares each its fix-up
 * of tiny arguments; bounded errors only, so one GPU architecture's) and fused multiply-adds,
 * which keep each update's chain of dependent operations short; the IEEE forms (a division
 * or a square root some 8 instructions with a branch each, sincospif some 30) made the pass
 * latency-bound. log1pf and expm1f stay where a < 0.5, whose cancellation the approximate
 * log would not survive. exp and log go through base 2 (log2 e and ln 2 rounded to float);
 * the azimuth's sine and cosine of 2 pi u = pi + 2 pi (u - 1/2), an argument within
 * [-pi, pi] (pi itself, rounded up, at u = 1) where the approximations' error is least.
 * Overrelaxation leaves a spin whose field's square is subnormal as it is (the flushed
 * divisor would make it NaN), as one whose field is zero.
 */
__device__ __forceinline__ float heisenberg_fast_div(float a, float b)
{
    float r;
    asm("div.approx.ftz.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
}

__device__ __forceinline__ float heisenberg_fast_sqrt(float x)
{
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float heisenberg_fast_rsqrt(float x)
{
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float heisenberg_fast_log(float x)
{
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r * 0.693147180559945309f;
}

__device__ __forceinline__ float heisenberg_fast_exp(float x)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x * 1.44269504088896341f));
    return r;
}

__device__ __forceinline__ void heisenberg_sincos_2pi(float u, float *s, float *c)
{
    const float phi = (u - 0.5f) * 6.28318530717958647692f;
    float sn, cs;
    asm("sin.approx.ftz.f32 %0, %1;" : "=f"(sn) : "f"(phi));
    asm("cos.approx.ftz.f32 %0, %1;" : "=f"(cs) : "f"(phi));
    *s = -sn;
    *c = -cs;
}

#define HEISENBERG_R float
#define HEISENBERG_QUAL __device__ __forceinline__
#define HEISENBERG_SQRT heisenberg_fast_sqrt
#define HEISENBERG_LOG heisenberg_fast_log
#define HEISENBERG_LOG1P log1pf
#define HEISENBERG_EXP heisenberg_fast_exp
#define HEISENBERG_EXPM1 expm1f
#define HEISENBERG_ABS fabsf
#define HEISENBERG_SINCOS_2PI heisenberg_sincos_2pi
#define HEISENBERG_DIV(a, b) heisenberg_fast_div(a, b)
#define HEISENBERG_RSQRT(x) heisenberg_fast_rsqrt(x)
#define HEISENBERG_MADD(a, b, c) __fmaf_rn(a, b, c)
#define HEISENBERG_DIVISOR_OK(x) ((x) >= 0x1p-126f)
#include "heisenberg_site.h"

/* A 32-bit draw as a uniform number, (r + 1/2) 2^-32 as the CPU's, in double; rounded to
 * float in float (in (0, 1]: u = 1 gives cos theta = 1 or azimuth 2 pi, both fine), by one
 * fused multiply-add: float(r) 2^-32 + 2^-33 is (float(r) + 1/2) rounded, times 2^-32,
 * bit for bit, since a power of two scales without rounding. The second argument picks the
 * type. */
__device__ __forceinline__ double heisenberg_uniform(uint32_t r, double)
{
    return ((double)r + 0.5) * 0x1p-32;
}

__device__ __forceinline__ float heisenberg_uniform(uint32_t r, float)
{
    return __fmaf_rn(__uint2float_rn(r), 0x1p-32f, 0x1p-33f);
}

/* The local field's term J s, added the same way by every kernel (one lattice, ensembles:
 * a member is its standalone sim bit for bit): double as the CPU adds it (the product
 * rounded, then the sum; the module has no contraction, -fmad=false), float in one fused
 * multiply-add. */
__device__ __forceinline__ double heisenberg_field_term(double h, double j, float s)
{
    return h + j * (double)s;
}

__device__ __forceinline__ float heisenberg_field_term(float h, float j, float s)
{
    return __fmaf_rn(j, s, h);
}

/* The heat bath's draws (doc/cuda.md): latmc_rng_block's blocks through the wide multiplies,
 * for the lattice's pass kernel (one instruction fewer a product there; the ensembles'
 * kernel keeps latmc_rng_name_block's C form, where the wide form measured no faster). */
__device__ __forceinline__ latmc_philox_ctr heisenberg_rng_block(uint64_t seed, uint64_t block,
                                                                 uint64_t sweep, uint32_t stream,
                                                                 uint32_t phase, uint32_t sub)
{
    return cuda_philox10_wide(latmc_rng_counter(block, sweep, stream, phase, sub),
                              latmc_rng_key(seed));
}

/* A Philox block's word k. */
__device__ __forceinline__ uint32_t heisenberg_word(const latmc_philox_ctr &v, int k)
{
    return k == 0 ? v.v[0] : k == 1 ? v.v[1] : k == 2 ? v.v[2] : v.v[3];
}

/*
 * Where four adjacent lanes update the four sites of one Philox block (the kernels' shared
 * draws): lane q of a group of four (q = lane mod 4) holds the Philox block of the group's four
 * sites for (replica q / 2, sub q mod 2). Afterwards d[t] is word q of lane t's block,
 * i.e. this lane's draw for (replica t / 2, sub t mod 2): in round r every lane publishes
 * word q ^ r of its own block and reads from lane q ^ r, which publishes word q.
 */
__device__ __forceinline__ void heisenberg_share_draws(const latmc_philox_ctr &v, int q,
                                                       uint32_t d[4])
{
    const int group = (int)(threadIdx.x & 31u) & ~3;
#pragma unroll
    for (int r = 0; r < 4; r++) {
        const int t = q ^ r;
        const uint32_t x = __shfl_sync(0xffffffffu, heisenberg_word(v, t), group | t);
        d[0] = t == 0 ? x : d[0];
        d[1] = t == 1 ? x : d[1];
        d[2] = t == 2 ? x : d[2];
        d[3] = t == 3 ? x : d[3];
    }
}

#endif
