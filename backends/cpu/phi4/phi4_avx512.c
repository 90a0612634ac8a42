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

/* The exported steps' names (cpu_phi4_step_avx512_f, _d); groups of 16 sites per block,
 * hits per chunk (phi4_simd_block). */
#define PHI4_ISA avx512
enum { PHI4_GROUPS = 8, PHI4_HITS = 8 };

#define PHI4_BODY "phi4_simd_tmpl.h"
#include "phi4_precisions.h"

/* The quick logarithm's misses of its bound (phi4_vec_hit.h), for checkasm: this level's
 * own form of the polynomial (phi4_vec_avx512.h), so its own check. */
int64_t cpu_phi4_avx512_logq_violations(uint32_t first, uint32_t last)
{
    return phi4_logq_violations(first, last);
}

/* The quick unit value's draws (phi4_vec_hit.h), for checkasm. */
int64_t cpu_phi4_avx512_unitq_violations(uint64_t first, uint64_t last, uint64_t step)
{
    return phi4_unitq_violations(first, last, step);
}

void cpu_phi4_dsp_init_avx512(struct cpu_phi4_dsp *dsp)
{
    dsp->level = "avx512";
    dsp->transposed = true;
    dsp->step_f = cpu_phi4_step_avx512_f;
    dsp->step_d = cpu_phi4_step_avx512_d;
    dsp->segments_f = cpu_phi4_segments_avx512_f;
    dsp->segments_d = cpu_phi4_segments_avx512_d;
}
