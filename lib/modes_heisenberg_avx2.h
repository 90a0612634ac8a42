/*
 * The AVX2 form of a row of Heisenberg's fixed-point projections (lib/modes_heisenberg_avx2.c).
 */
#ifndef LATMC_MODES_HEISENBERG_AVX2_H
#define LATMC_MODES_HEISENBERG_AVX2_H

#include <stdint.h>

#include "x86_avx2.h"

#ifdef LATMC_X86_AVX2
/*
 * Sites [0, x) of a row, x the largest multiple of 8 <= lx (returned): a (replica 0) and,
 * unless NULL, b (replica 1), 3 floats a site. Adds the fixed point of each site's
 * component c (c < 3: a's components; with b, 3 + 3 m + k: a_m b_k) into col[c stride +
 * site] and the row's sum of each into row[c] (12 entries with b, else 3): what
 * heisenberg_project_plane (lib/modes_planes.c) adds for those sites, the same integers.
 * Only where latmc_have_avx2().
 */
int64_t latmc_modes_heisenberg_row_avx2(const float *a, const float *b, int64_t lx, int64_t stride,
                                        int64_t *col, int64_t *row);
#endif

#endif
