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

/* Float: the float functions; the azimuth through sincospif (no large-argument
 * reduction). */
__device__ __forceinline__ void heisenberg_sincos_2pi(float u, float *s, float *c)
{
    sincospif(2.0f * u, s, c);
}

#define HEISENBERG_R float
#define HEISENBERG_QUAL __device__ __forceinline__
#define HEISENBERG_SQRT sqrtf
#define HEISENBERG_LOG logf
#define HEISENBERG_LOG1P log1pf
#define HEISENBERG_EXP expf
#define HEISENBERG_EXPM1 expm1f
#define HEISENBERG_ABS fabsf
#define HEISENBERG_SINCOS_2PI heisenberg_sincos_2pi
#include "heisenberg_site.h"

#endif
