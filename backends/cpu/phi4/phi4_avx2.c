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

/* The level's names (cpu_phi4_step_avx2_f, _d, cpu_phi4_dsp_init_avx2: phi4_simd_level.h);
 * groups of 8 sites per block, hits per chunk (phi4_simd_block). */
#define PHI4_ISA avx2
enum { PHI4_GROUPS = 8, PHI4_HITS = 8 };

#include "phi4_simd_level.h"
