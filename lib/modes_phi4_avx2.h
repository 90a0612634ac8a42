/*
 * The AVX2 form of a row of phi^4's fixed-point projections (lib/modes_phi4_avx2.c).
 */
#ifndef LATMC_MODES_PHI4_AVX2_H
#define LATMC_MODES_PHI4_AVX2_H

#include <stdint.h>

#include "x86_avx2.h"

#ifdef LATMC_X86_AVX2
/*
 * Sites [0, x) of a row of lx field values v (float or double), x the largest multiple of
 * 4 <= lx (returned): site x' adds its fixed point latmc_modes_field_fixed(v[x']) into
 * the column entry col[x'] and into *row, by wrapping 64-bit additions: what
 * lib/modes_planes.c's latmc_modes_phi4_project adds for those sites, the same integers. Only
 * where latmc_have_avx2().
 */
int64_t latmc_modes_phi4_row_avx2_f(const float *v, int64_t lx, int64_t *col, uint64_t *row);
int64_t latmc_modes_phi4_row_avx2_d(const double *v, int64_t lx, int64_t *col, uint64_t *row);
#endif

#endif
