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

/* The level's entry (the template defines it) and its name. */
#define HEISENBERG_DSP_INIT cpu_heisenberg_dsp_init_avx512
#define HEISENBERG_LEVEL "avx512"
#include "heisenberg_simd_tmpl.h"
