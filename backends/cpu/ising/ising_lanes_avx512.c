/*
 * The member lanes' sweeps (ising_lanes.h) at the AVX-512 level: sixteen groups a vector,
 * one 32-bit lane each; their blocks drawn eight at a time by philox_lanes_avx512.h (one
 * block per 64-bit lane) and each output's low halves put in lane order by one vpermt2d.
 */
#include <immintrin.h>
#include <stdint.h>

#include "ising_lanes.h"
#include "philox_lanes_avx512.h"
#include "rng_streams.h"

#define LW 16
typedef uint32_t ls_e;
#include "ising_lanes_avx512.h"
#define LANES_ENTRY cpu_ising_lanes_run_avx512
#define LANES_KEEP cpu_ising_lanes_keep_avx512
#define LANES_SUMS cpu_ising_lanes_sums_avx512
#define LANES_KEYS latmc_philox_x8_keys
#define LANES_KEYS_INIT latmc_philox_x8_keys_init

static inline LV v_loadw(const uint32_t *p) { return _mm512_load_si512((const void *)p); }
static inline void v_storew(uint32_t *p, LV x) { _mm512_store_si512((void *)p, x); }
static inline LV v_ones32(void) { return _mm512_set1_epi32(-1); }
static inline int v_any(LV a) { return _mm512_test_epi32_mask(a, a) != 0; }

/* Lanes 0 .. 7's blocks and lanes 8 .. 15's (lib/rng_streams.h's counter words of the
 * name), then each output's low halves: dword l of r[p] from lane l's block. Where no
 * lane from 8 on holds a group, their dwords repeat lanes 0 .. 7's (never read). */
static inline void ls_draw(const struct LANES_KEYS *keys, const uint64_t *gN, int nl,
                           int64_t i, struct latmc_rng_name name, int q, LV r[4])
{
    __m512i h[2][4];
    const int halves = nl > 8 ? 2 : 1; /* lanes 8 .. 15 without a group: not drawn */
    for (int half = 0; half < halves; half++) {
        __m512i *c = h[half];
        const __m512i b = _mm512_add_epi64(_mm512_load_si512((const void *)(gN + 8 * half)),
                                           _mm512_set1_epi64(i));
        latmc_philox_x8_counters(b, name.c1, name.c2, latmc_rng_name_sub(name, (uint32_t)q).c3, c);
        latmc_philox_x8(keys, &c[0], &c[1], &c[2], &c[3]);
    }
    const __m512i idx = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26,
                                          28, 30);
    for (int p = 0; p < 4; p++)
        r[p] = _mm512_permutex2var_epi32(h[0][p], idx, h[halves - 1][p]);
}

#define LANES_DSP_INIT cpu_ising_lanes_dsp_init_avx512
#define LANES_LEVEL "avx512"
/* at most eight groups: eight 64-bit lanes (one set of blocks, not two) */
#define LANES_NARROW 8
#define LANES_RUN_NARROW cpu_ising_lanes_run_avx512_x8
#define LANES_KEEP_NARROW cpu_ising_lanes_keep_avx512_x8
#define LANES_SUMS_NARROW cpu_ising_lanes_sums_avx512_x8
#include "ising_lanes_simd_tmpl.h"
