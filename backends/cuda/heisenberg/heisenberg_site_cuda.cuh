/*
 * The Heisenberg per-site rules (lib/heisenberg_site.h) for CUDA, in double and in float: one
 * instantiation for every kernel that updates Heisenberg sites (one lattice,
 * heisenberg_kernels.cu; ensembles, ensembles/ens_heisenberg_kernels.cu), so that both make
 * the same operations in the same order and a member is bit-identical to its standalone sim.
 */
#ifndef LATMC_HEISENBERG_SITE_CUDA_CUH
#define LATMC_HEISENBERG_SITE_CUDA_CUH

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
 * Float: the precision chosen for speed, so the hardware's approximate functions (the
 * special function unit, a few ulp each: CUDA's __fdividef, rsqrtf, sqrt.approx, __expf,
 * __logf, __sincosf) and fused multiply-adds, which keep each update's chain of dependent
 * operations short; the IEEE forms (a division or a square root some 8 instructions with a
 * branch each, sincospif some 30) made the pass latency-bound. log1pf and expm1f stay
 * where a < 0.5, whose cancellation the approximate log would not survive. The azimuth:
 * sin and cos of 2 pi u = pi + 2 pi (u - 1/2), the argument of __sincosf within [-pi, pi)
 * where its error is least.
 */
__device__ __forceinline__ void heisenberg_sincos_2pi(float u, float *s, float *c)
{
    float sn, cs;
    __sincosf((u - 0.5f) * 6.28318530717958647692f, &sn, &cs);
    *s = -sn;
    *c = -cs;
}

__device__ __forceinline__ float heisenberg_sqrt_approx(float x)
{
    float r;
    asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

#define HEISENBERG_R float
#define HEISENBERG_QUAL __device__ __forceinline__
#define HEISENBERG_SQRT heisenberg_sqrt_approx
#define HEISENBERG_LOG __logf
#define HEISENBERG_LOG1P log1pf
#define HEISENBERG_EXP __expf
#define HEISENBERG_EXPM1 expm1f
#define HEISENBERG_ABS fabsf
#define HEISENBERG_SINCOS_2PI heisenberg_sincos_2pi
#define HEISENBERG_DIV(a, b) __fdividef(a, b)
#define HEISENBERG_RSQRT(x) rsqrtf(x)
#define HEISENBERG_MADD(a, b, c) __fmaf_rn(a, b, c)
#include "heisenberg_site.h"

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

#endif
