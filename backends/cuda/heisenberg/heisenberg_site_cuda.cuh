/*
 * The Heisenberg per-site rules (lib/heisenberg_site.h) for CUDA, in double and in float: one
 * instantiation for every kernel that updates Heisenberg sites (one lattice,
 * heisenberg_kernels.cu; ensembles, ensembles/ens_heisenberg_kernels.cu), so that both make
 * the same operations in the same order and a member is bit-identical to its standalone sim.
 */
#ifndef LATMC_HEISENBERG_SITE_CUDA_CUH
#define LATMC_HEISENBERG_SITE_CUDA_CUH

#define HEIS_TWO_PI 6.283185307179586476925286766559

/* Double: the CPU reference's operations (CUDA's IEEE sqrt and division; log, log1p, exp,
 * expm1, sin, cos within an ulp or two of the CPU's shared lib/latmc_math.h). */
__device__ __forceinline__ void heis_sincos_2pi(double u, double *s, double *c)
{
    const double phi = HEIS_TWO_PI * u;
    *c = cos(phi);
    *s = sin(phi);
}

#define HEIS_R double
#define HEIS_QUAL __device__ __forceinline__
#define HEIS_SQRT sqrt
#define HEIS_LOG log
#define HEIS_LOG1P log1p
#define HEIS_EXP exp
#define HEIS_EXPM1 expm1
#define HEIS_ABS fabs
#define HEIS_SINCOS_2PI heis_sincos_2pi
#include "heisenberg_site.h"

/* Float: the float functions; the azimuth through sincospif (no large-argument
 * reduction). */
__device__ __forceinline__ void heis_sincos_2pi(float u, float *s, float *c)
{
    sincospif(2.0f * u, s, c);
}

#define HEIS_R float
#define HEIS_QUAL __device__ __forceinline__
#define HEIS_SQRT sqrtf
#define HEIS_LOG logf
#define HEIS_LOG1P log1pf
#define HEIS_EXP expf
#define HEIS_EXPM1 expm1f
#define HEIS_ABS fabsf
#define HEIS_SINCOS_2PI heis_sincos_2pi
#include "heisenberg_site.h"

#endif
