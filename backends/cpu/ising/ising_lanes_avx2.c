/*
 * The member lanes' sweeps (ising_lanes.h) at the AVX2 level: four groups a vector, one
 * 64-bit lane each (the word in its low half, where philox_lanes_avx2.h's blocks give
 * theirs).
 */
#include <immintrin.h>
#include <stdint.h>

#include "ising_lanes.h"
#include "philox_lanes_avx2.h"
#include "rng_streams.h"

#define LV __m256i
#define LW 4
typedef uint64_t ls_e;
#define LANES_ENTRY cpu_ising_lanes_run_avx2
#define LANES_KEEP cpu_ising_lanes_keep_avx2
#define LANES_SUMS cpu_ising_lanes_sums_avx2
#define LANES_KEYS latmc_philox_x4_keys
#define LANES_KEYS_INIT latmc_philox_x4_keys_init

static inline LV v_loadw(const uint32_t *p)
{
    return _mm256_cvtepu32_epi64(_mm_load_si128((const __m128i *)p));
}
static inline void v_storew(uint32_t *p, LV x)
{
    /* the low halves of the four lanes: dwords 0, 2, 4, 6 */
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    _mm_store_si128((__m128i *)p, _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(x, idx)));
}
static inline LV v_loadt(const ls_e *p) { return _mm256_load_si256((const __m256i *)p); }
static inline LV v_zero(void) { return _mm256_setzero_si256(); }
static inline LV v_ones32(void) { return _mm256_set1_epi64x(0xffffffffll); }
static inline LV v_and(LV a, LV b) { return _mm256_and_si256(a, b); }
static inline LV v_or(LV a, LV b) { return _mm256_or_si256(a, b); }
static inline LV v_xor(LV a, LV b) { return _mm256_xor_si256(a, b); }
static inline LV v_andnot(LV a, LV b) { return _mm256_andnot_si256(a, b); }
static inline int v_any(LV a) { return !_mm256_testz_si256(a, a); }

/* The four lanes' blocks gN[l] + i (lib/rng_streams.h's counter words of the name). */
static inline void ls_draw(const struct LANES_KEYS *keys, const uint64_t *gN, int nl,
                           int64_t i, struct latmc_rng_name name, int q, LV r[4])
{
    (void)nl;
    latmc_philox_x4_counters(_mm256_add_epi64(_mm256_load_si256((const __m256i *)gN),
                                              _mm256_set1_epi64x((long long)i)),
                             name.c1, name.c2, latmc_rng_name_sub(name, (uint32_t)q).c3, r);
    latmc_philox_x4(keys, &r[0], &r[1], &r[2], &r[3]);
}

#define LANES_DSP_INIT cpu_ising_lanes_dsp_init_avx2
#define LANES_LEVEL "avx2"
#include "ising_lanes_simd_tmpl.h"
