/*
 * phi^4 with AVX-512 (F, DQ, BW, VL): the chain of doc/models/phi4.md, bit for bit,
 * sixteen sites at a time -- the step of phi4_simd_tmpl.h (written once for every level)
 * over the primitives of phi4_vec_avx512.h.
 *
 * What the width changes, none of it in the chain: a group is 16 consecutive
 * within-colour numbers j0 .. j0+15 (j0 = 16 grp), Philox blocks 4 grp .. 4 grp + 3, whose
 * eight (block, draw) pairs of a hit are the eight 64-bit lanes of one __m512i; the
 * stencil's loads, the conversions, dH and the logarithms run on 16 floats (one __m512)
 * or 16 doubles (two __m512d); lane masks are mask registers (masked stores and blends).
 * Groups that straddle rows (L_x / ncolours not a multiple of 16: e.g. 3D 64^3 has 8
 * numbers per sub-row) take the template's row-by-row path, lane for lane the same sums.
 */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "cpu_omp.h"
#include "phi4_dsp.h"
#include "phi4_vec_avx512.h"
#include "rng_streams.h"

/* The level's names (cpu_phi4_step_avx512_f, _d, cpu_phi4_dsp_init_avx512: phi4_simd_level.h);
 * groups of 16 sites per block, hits per chunk (phi4_simd_block). */
#define PHI4_ISA avx512
enum { PHI4_GROUPS = 8, PHI4_HITS = 8 };

#include "phi4_simd_level.h"
