/*
 * The per-site rules of the Heisenberg chain on AVX2 vectors of four sites: the rules of
 * heisenberg_rules_simd.h over the primitives of heisenberg_vec_avx2.h, under the names
 * tests/kernels/test_simd_rules.c checks against the scalar originals. Include only where
 * -mavx2 is on.
 */
#ifndef LATMC_CPU_HEISENBERG_RULES_AVX2_H
#define LATMC_CPU_HEISENBERG_RULES_AVX2_H

#include "heisenberg_vec_avx2.h"

#define heisenberg_overrelax_avx2 heisenberg_overrelax
#define heisenberg_uniform_avx2 heisenberg_uniform
#define heisenberg_sample_cos_pair_avx2 heisenberg_sample_cos_pair
#define heisenberg_heatbath_spin_avx2 heisenberg_heatbath_spin
#define heisenberg_heatbath_pair_avx2 heisenberg_heatbath_pair

#endif
