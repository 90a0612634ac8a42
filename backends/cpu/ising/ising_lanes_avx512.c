/*
 * The member lanes' sweeps (ising_lanes.h) at the AVX-512 level: eight groups a vector, one
 * 64-bit lane each, Philox by philox_lanes_avx512.h.
 */
#include <immintrin.h>
#include <stdint.h>

#include "ising_lanes.h"
#include "philox_lanes_avx512.h"

#define LV __m512i
#define LW 8
#define LANES_ENTRY cpu_ising_lanes_run_avx512
#define LANES_KEYS latmc_philox_x8_keys
#define LANES_KEYS_INIT latmc_philox_x8_keys_init
#define LANES_PHILOX latmc_philox_x8

static inline LV v_load32(const uint32_t *p)
{
    return _mm512_cvtepu32_epi64(_mm256_load_si256((const __m256i *)p));
}
static inline void v_store32(uint32_t *p, LV x)
{
    _mm256_store_si256((__m256i *)p, _mm512_cvtepi64_epi32(x));
}
static inline LV v_load64(const uint64_t *p) { return _mm512_load_si512((const void *)p); }
static inline LV v_set1(uint64_t x) { return _mm512_set1_epi64((long long)x); }
static inline LV v_and(LV a, LV b) { return _mm512_and_si512(a, b); }
static inline LV v_or(LV a, LV b) { return _mm512_or_si512(a, b); }
static inline LV v_xor(LV a, LV b) { return _mm512_xor_si512(a, b); }
static inline LV v_andnot(LV a, LV b) { return _mm512_andnot_si512(a, b); }
static inline LV v_add64(LV a, LV b) { return _mm512_add_epi64(a, b); }
static inline LV v_srl32(LV a) { return _mm512_srli_epi64(a, 32); }
static inline int v_any(LV a) { return _mm512_test_epi64_mask(a, a) != 0; }

int cpu_ising_lanes_run_avx512(const struct latmc_ens_lanes_job *job);
#include "ising_lanes_simd_tmpl.h"

void cpu_ising_lanes_dsp_init_avx512(struct cpu_ising_lanes_dsp *dsp)
{
    dsp->run = cpu_ising_lanes_run_avx512;
    dsp->width = LW;
    dsp->level = "avx512";
}
