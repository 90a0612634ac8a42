/*
 * The AVX2 form of a row of phi^4's fixed-point projections (lib/modes_planes.c,
 * latmc_modes_phi4_project, which says what is counted): four sites a step, the same integers.
 * Compiled for every x86-64 by a GNU C compiler (the function carries the target); called
 * only where latmc_have_avx2().
 *
 * Why the integers are the same: a value's fixed point is latmc_modes_field_fixed(v),
 * t = v 2^20 (exact) rounded to the nearest integer, ties to even. Here t is computed the
 * same way, clamped to [-2^51, 2^51] (never binding for a field within the modes' bound,
 * lib/modes_exact.h), rounded by ROUNDPD with the rounding named in the instruction (the
 * MXCSR's mode is not read, as latmc_modes_fixed reads no mode); the integral value r
 * plus 1.5 2^52 is exact, and its bits less those of 1.5 2^52 are r as a 64-bit integer
 * (AVX2 converts doubles to 32-bit integers only). Sums of integers: any order.
 */
#include "modes_phi4_avx2.h"

#include "modes_exact.h"

#ifdef LATMC_X86_AVX2
#  include <immintrin.h>

#  define NEAREST (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#  define MAGIC 0x1.8p52

/* Four values' fixed points added into col[0..3] and the row's lanes acc. */
__attribute__((target("avx2"))) static inline void add4(__m256d v, int64_t *col, __m256i *acc)
{
    __m256d t = _mm256_mul_pd(v, _mm256_set1_pd(LATMC_MODES_FIELD_SCALE));
    t = _mm256_min_pd(_mm256_max_pd(t, _mm256_set1_pd(-0x1p51)), _mm256_set1_pd(0x1p51));
    const __m256d d = _mm256_add_pd(_mm256_round_pd(t, NEAREST), _mm256_set1_pd(MAGIC));
    const __m256i q = _mm256_sub_epi64(_mm256_castpd_si256(d),
                                       _mm256_castpd_si256(_mm256_set1_pd(MAGIC)));
    __m256i *const at = (__m256i *)(void *)col;
    _mm256_storeu_si256(at, _mm256_add_epi64(_mm256_loadu_si256(at), q));
    *acc = _mm256_add_epi64(*acc, q);
}

/* The row's lanes into *row. */
__attribute__((target("avx2"))) static inline void row_total(__m256i acc, uint64_t *row)
{
    uint64_t lane[4];
    _mm256_storeu_si256((__m256i *)(void *)lane, acc);
    *row += (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

__attribute__((target("avx2"))) int64_t
latmc_modes_phi4_row_avx2_f(const float *v, int64_t lx, int64_t *col, uint64_t *row)
{
    __m256i acc = _mm256_setzero_si256();
    int64_t x = 0;
    for (; x + 4 <= lx; x += 4)
        add4(_mm256_cvtps_pd(_mm_loadu_ps(v + x)), col + x, &acc);
    row_total(acc, row);
    return x;
}

__attribute__((target("avx2"))) int64_t
latmc_modes_phi4_row_avx2_d(const double *v, int64_t lx, int64_t *col, uint64_t *row)
{
    __m256i acc = _mm256_setzero_si256();
    int64_t x = 0;
    for (; x + 4 <= lx; x += 4)
        add4(_mm256_loadu_pd(v + x), col + x, &acc);
    row_total(acc, row);
    return x;
}
#else
typedef int latmc_modes_phi4_avx2_unused; /* ISO C: a unit declares something */
#endif
