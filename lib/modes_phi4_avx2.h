/*
 * The AVX2 form of a row of phi^4's Fourier-mode tiles (lib/modes_phi4_avx2.c).
 */
#ifndef LATMC_MODES_PHI4_AVX2_H
#define LATMC_MODES_PHI4_AVX2_H

#include <stdint.h>

#include "x86_avx2.h"

#ifdef LATMC_X86_AVX2
/*
 * Sites [0, x) of a row of lx values v (float or double), x the largest multiple of 4 <=
 * lx (returned): site x' adds v cx[x'], v sx[x'] and v into lane x' mod 4 of re, im and sum
 * (4 doubles each), each a product then an addition in the lane's own order: what the
 * dense plane of lib/modes_planes.c adds for those sites, the same doubles. Only where
 * latmc_have_avx2().
 */
int64_t latmc_modes_phi4_row_avx2_f(const float *v, int64_t lx, const double *cx,
                                    const double *sx, double *re, double *im, double *sum);
int64_t latmc_modes_phi4_row_avx2_d(const double *v, int64_t lx, const double *cx,
                                    const double *sx, double *re, double *im, double *sum);
#endif

#endif
