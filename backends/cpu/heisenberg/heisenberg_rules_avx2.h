/*
 * The per-site rules of the Heisenberg chain on AVX2 vectors of four sites: the rules of
 * heisenberg_rules_simd.h over the primitives of heisenberg_vec_avx2.h, under the names
 * tests/kernels/test_simd_rules.c checks against the scalar originals. Include only where
 * -mavx2 is on.
 */
#ifndef LATMC_CPU_HEISENBERG_RULES_AVX2_H
#define LATMC_CPU_HEISENBERG_RULES_AVX2_H

#include "heisenberg_vec_avx2.h"

#define heis_overrelax_avx2 heis_overrelax
#define heis_uniform_avx2 heis_uniform
#define heis_sample_cos_pair_avx2 heis_sample_cos_pair
#define heis_heatbath_spin_avx2 heis_heatbath_spin
#define heis_heatbath_pair_avx2 heis_heatbath_pair

#endif
