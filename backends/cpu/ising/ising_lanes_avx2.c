/*
 * The member lanes' sweeps (ising_lanes.h) at the AVX2 level: four groups a vector, one
 * 64-bit lane each, Philox by philox_lanes_avx2.h.
 */
#include <immintrin.h>
#include <stdint.h>

#include "ising_lanes.h"
#include "philox_lanes_avx2.h"

#define LV __m256i
#define LW 4
#define LANES_ENTRY cpu_ising_lanes_run_avx2
#define LANES_KEYS latmc_philox_x4_keys
#define LANES_KEYS_INIT latmc_philox_x4_keys_init
#define LANES_PHILOX latmc_philox_x4

static inline LV v_load32(const uint32_t *p)
{
    return _mm256_cvtepu32_epi64(_mm_load_si128((const __m128i *)p));
}
static inline void v_store32(uint32_t *p, LV x)
{
    /* the low halves of the four lanes: dwords 0, 2, 4, 6 */
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    _mm_store_si128((__m128i *)p, _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, idx)));
}
static inline LV v_load64(const uint64_t *p) { return _mm256_load_si256((const __m256i *)p); }
static inline LV v_set1(uint64_t x) { return _mm256_set1_epi64x((long long)x); }
static inline LV v_and(LV a, LV b) { return _mm256_and_si256(a, b); }
static inline LV v_or(LV a, LV b) { return _mm256_or_si256(a, b); }
static inline LV v_xor(LV a, LV b) { return _mm256_xor_si256(a, b); }
static inline LV v_andnot(LV a, LV b) { return _mm256_andnot_si256(a, b); }
static inline LV v_add64(LV a, LV b) { return _mm256_add_epi64(a, b); }
static inline LV v_srl32(LV a) { return _mm256_srli_epi64(a, 32); }
static inline int v_any(LV a) { return !_mm256_testz_si256(a, a); }

int cpu_ising_lanes_run_avx2(const struct latmc_ens_lanes_job *job);
#include "ising_lanes_simd_tmpl.h"

void cpu_ising_lanes_dsp_init_avx2(struct cpu_ising_lanes_dsp *dsp)
{
    dsp->run = cpu_ising_lanes_run_avx2;
    dsp->width = LW;
    dsp->level = "avx2";
}
