/*
 * phi^4 with AVX2: the chain of doc/models/phi4.md, bit for bit, eight sites at a time --
 * the step of phi4_simd_tmpl.h (written once for every level) over the primitives of
 * phi4_vec_avx2.h.
 *
 * Work unit: a group of 8 consecutive within-colour numbers j0 .. j0+7 (j0 = 8 grp),
 * i.e. Philox blocks 2 grp and 2 grp + 1, whose lanes are exactly the group's sites. The
 * field is colour-transposed (phi4_dsp.h), so when the group lies in one row its sites and
 * every neighbour set are contiguous runs of 8 values: 24 (3D) vector loads give the
 * three neighbourhood sums, in the reference's order, lane by lane. Groups that straddle
 * two rows (L_x / ncolours not a multiple of 8) or run past the end of the colour gather
 * their sums with scalar code in the same order. Then the nhit hits run on the 8 lanes:
 * the four Philox blocks of a hit (proposal and acceptance of both blocks) in one
 * four-lane Philox (philox_lanes_avx2.h, with the hit-independent part of the first rounds
 * computed once per group), the draw conversions, dH in the reference's order, and the
 * shared logarithm (math_avx2.h). float fields use one __m256, double fields two __m256d
 * per group.
 *
 * Steps of the core's plan (lib/box.h): a sweep is nloc passes of the colours, each colour
 * of a pass one step, run on the boxes' numbers: the same blocks with the lanes outside a
 * box masked (a block cut by a box boundary runs in both boxes, each on its own lanes),
 * all boxes' blocks shared by the members of the CPU's thread team (cpu_omp.h), which
 * keeps one barrier between steps. Every draw is named by (pass, colour, hit, j), never by
 * thread. No fused steps: WHOLE steps only.
 */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "cpu_omp.h"
#include "phi4_dsp.h"
#include "phi4_vec_avx2.h"
#include "rng_streams.h"

/* The exported steps' names (cpu_phi4_step_avx2_f, _d); groups of 8 sites per block,
 * hits per chunk (phi4_simd_block). */
#define PHI4_ISA avx2
enum { PHI4_GROUPS = 8, PHI4_HITS = 8 };

#define PHI4_BODY "phi4_simd_tmpl.h"
#include "phi4_precisions.h"

/* The quick logarithm's misses of its bound (phi4_vec_hit.h), for checkasm. */
int64_t cpu_phi4_avx2_logq_violations(uint32_t first, uint32_t last)
{
    return phi4_logq_violations(first, last);
}

int64_t cpu_phi4_avx2_unitq_violations(uint64_t first, uint64_t last, uint64_t step)
{
    return phi4_unitq_violations(first, last, step);
}

void cpu_phi4_dsp_init_avx2(struct cpu_phi4_dsp *dsp)
{
    dsp->level = "avx2";
    dsp->transposed = true;
    dsp->step_f = cpu_phi4_step_avx2_f;
    dsp->step_d = cpu_phi4_step_avx2_d;
    dsp->segments_f = cpu_phi4_segments_avx2_f;
    dsp->segments_d = cpu_phi4_segments_avx2_d;
}
