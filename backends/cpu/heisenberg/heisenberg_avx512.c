/*
 * Heisenberg spin glass with AVX-512 (F, DQ, BW, VL): the chain of
 * doc/models/heisenberg.md, bit for bit, on the SoA layout of heisenberg_dsp.h, eight sites
 * (one __m512d) per vector -- the steps of heisenberg_simd_tmpl.h (written once for every
 * level) over the primitives of heisenberg_vec_avx512.h. Rows are walked as whole vectors
 * where L_x / 2 is a multiple of 8 (and only there is the pair of a pass offered,
 * dsp.row_lanes), else the flat numbering in groups of 32 sites.
 */
#include <immintrin.h>

#include "cpu_omp.h"
#include "heisenberg_dsp.h"
#include "heisenberg_vec_avx512.h"
#include "rng_streams.h"

#include "heisenberg_simd_tmpl.h"

void cpu_heisenberg_dsp_init_avx512(struct cpu_heisenberg_dsp *dsp)
{
    dsp->level = "avx512";
    dsp->soa = true;
    dsp->step = step_boxes_simd;
    dsp->pair_soa = pair_boxes_simd;
    dsp->or_passes_soa = or_passes_simd;
    dsp->row_lanes = HEIS_W;
}
