/*
 * The AVX-512 primitives of ising_lanes_simd_tmpl.h that both AVX-512 lane widths share
 * (ising_lanes_avx512.c: sixteen 32-bit lanes; ising_lanes_x8_avx512.c: eight 64-bit
 * lanes): the vector and its bitwise logic, which do not depend on the lanes' width. The
 * includer defines ls_e (a lane's integer) first.
 */
#ifndef LATMC_CPU_ISING_LANES_AVX512_H
#define LATMC_CPU_ISING_LANES_AVX512_H

#include <immintrin.h>

#define LV __m512i

static inline LV v_loadt(const ls_e *p) { return _mm512_load_si512((const void *)p); }
static inline LV v_zero(void) { return _mm512_setzero_si512(); }
static inline LV v_and(LV a, LV b) { return _mm512_and_si512(a, b); }
static inline LV v_or(LV a, LV b) { return _mm512_or_si512(a, b); }
static inline LV v_xor(LV a, LV b) { return _mm512_xor_si512(a, b); }
static inline LV v_andnot(LV a, LV b) { return _mm512_andnot_si512(a, b); }

#endif
