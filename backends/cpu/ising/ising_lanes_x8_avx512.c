/*
 * The member lanes' sweeps (ising_lanes.h) at the AVX-512 level for at most eight groups:
 * eight a vector, one 64-bit lane each (the word in its low half, where
 * philox_lanes_avx512.h's blocks give theirs), so a call of few groups draws no blocks for
 * empty lanes (ising_lanes_avx512.c's sixteen lanes would draw two sets of eight).
 */
#include <immintrin.h>
#include <stdint.h>

#include "ising_lanes.h"
#include "philox_lanes_avx512.h"
#include "rng_streams.h"

#define LW 8
typedef uint64_t ls_e;
#include "ising_lanes_avx512.h"
#define LANES_ENTRY cpu_ising_lanes_run_avx512_x8
#define LANES_KEEP cpu_ising_lanes_keep_avx512_x8
#define LANES_SUMS cpu_ising_lanes_sums_avx512_x8
#define LANES_KEYS latmc_philox_x8_keys
#define LANES_KEYS_INIT latmc_philox_x8_keys_init

static inline LV v_loadw(const uint32_t *p)
{
    return _mm512_cvtepu32_epi64(_mm256_load_si256((const __m256i *)p));
}
static inline void v_storew(uint32_t *p, LV x)
{
    _mm256_store_si256((__m256i *)p, _mm512_cvtepi64_epi32(x));
}
static inline LV v_ones32(void) { return _mm512_set1_epi64(0xffffffffll); }
static inline int v_any(LV a) { return _mm512_test_epi64_mask(a, a) != 0; }

/* The eight lanes' blocks gN[l] + i (lib/rng_streams.h's counter words of the name). */
static inline void ls_draw(const struct LANES_KEYS *keys, const uint64_t *gN, int nl,
                           int64_t i, struct latmc_rng_name name, int q, LV r[4])
{
    (void)nl;
    latmc_philox_x8_counters(_mm512_add_epi64(_mm512_load_si512((const void *)gN),
                                              _mm512_set1_epi64(i)),
                             name.c1, name.c2, latmc_rng_name_sub(name, (uint32_t)q).c3, r);
    latmc_philox_x8(keys, &r[0], &r[1], &r[2], &r[3]);
}

#include "ising_lanes_simd_tmpl.h"
