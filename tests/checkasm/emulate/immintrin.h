/*
 * Test-only stand-in for <immintrin.h>: the real header, then SIMDe
 * (https://github.com/simd-everywhere/simde) with native aliases, so that the AVX-512
 * kernels compile for, and run on, a CPU without AVX-512 (each _mm512_* call becomes
 * SIMDe's portable implementation). Used by checkasm's copy of ising_avx512.c only.
 */
#include_next <immintrin.h>
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>
