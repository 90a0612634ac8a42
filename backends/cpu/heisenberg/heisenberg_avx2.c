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

/* The level's entry (the template defines it) and its name. */
#define HEISENBERG_DSP_INIT cpu_heisenberg_dsp_init_avx2
#define HEISENBERG_LEVEL "avx2"
#include "heisenberg_simd_tmpl.h"
