/*
 * Heisenberg spin glass with AVX2: the chain of doc/models/heisenberg.md, bit for bit, on
 * the SoA layout of heisenberg_dsp.h, four sites (one __m256d) per vector -- the steps of
 * heisenberg_simd_tmpl.h (written once for every level) over the primitives of
 * heisenberg_vec_avx2.h.
 */
#include <immintrin.h>

#include "cpu_omp.h"
#include "heisenberg_dsp.h"
#include "heisenberg_vec_avx2.h"
#include "rng_streams.h"

#include "heisenberg_simd_tmpl.h"

void cpu_heisenberg_dsp_init_avx2(struct cpu_heisenberg_dsp *dsp)
{
    dsp->level = "avx2";
    dsp->soa = true;
    dsp->step = step_boxes_simd;
    dsp->pair_soa = pair_boxes_simd;
    dsp->or_passes_soa = or_passes_simd;
    dsp->row_lanes = HEIS_W;
}
