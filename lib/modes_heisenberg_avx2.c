/*
 * The AVX2 form of a row of Heisenberg's fixed-point projections (lib/modes_planes.c,
 * heisenberg_project_plane, which says what is counted): eight sites a step, the same
 * integers. Compiled for every x86-64 by a GNU C compiler (the function carries the
 * target); called only where latmc_have_avx2().
 *
 * Why the integers are the same: a value's fixed point is latmc_modes_fixed(t), t = v 2^25
 * (a spin component, float) or t = v w 2^25 (a product of two replicas' components, exact
 * in double: 24 + 24 significant bits), i.e. t rounded to the nearest integer, ties to
 * even. The vector form computes the same t exactly (a float times a power of two is a
 * float; the product of two floats widened to double is exact) and rounds it by ROUNDPS /
 * ROUNDPD with the rounding named in the instruction (to nearest, ties to even; the
 * MXCSR's mode is not read, as latmc_modes_fixed reads no mode), then converts the
 * integral value (|t| <= 2^25) by truncation, exactly. Sums of integers: any order.
 */
#include "modes_heisenberg_avx2.h"

#include "modes_exact.h"

#ifdef LATMC_X86_AVX2
#  include <immintrin.h>

#  define NEAREST (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/*
 * Eight sites' components from 24 floats (x0 y0 z0 x1 ... z7) into the vectors of their x,
 * y and z components: each lane's float comes from one of the three loads (two blends),
 * then one permute puts the lanes in site order.
 */
__attribute__((target("avx2"))) static inline void components8(const float *p, __m256 c[3])
{
    const __m256 v0 = _mm256_loadu_ps(p), v1 = _mm256_loadu_ps(p + 8),
                 v2 = _mm256_loadu_ps(p + 16);
    const __m256 tx = _mm256_blend_ps(_mm256_blend_ps(v0, v1, 0x92), v2, 0x24);
    const __m256 ty = _mm256_blend_ps(_mm256_blend_ps(v0, v1, 0x24), v2, 0x49);
    const __m256 tz = _mm256_blend_ps(_mm256_blend_ps(v0, v1, 0x49), v2, 0x92);
    c[0] = _mm256_permutevar8x32_ps(tx, _mm256_setr_epi32(0, 3, 6, 1, 4, 7, 2, 5));
    c[1] = _mm256_permutevar8x32_ps(ty, _mm256_setr_epi32(1, 4, 7, 2, 5, 0, 3, 6));
    c[2] = _mm256_permutevar8x32_ps(tz, _mm256_setr_epi32(2, 5, 0, 3, 6, 1, 4, 7));
}

/* Four fixed points, as 64-bit integers, added into the column entries col[0..3] and into
 * the row's lanes acc. */
__attribute__((target("avx2"))) static inline void add4(__m128i q, int64_t *col, __m256i *acc)
{
    const __m256i w = _mm256_cvtepi32_epi64(q);
    __m256i *const at = (__m256i *)(void *)col;
    _mm256_storeu_si256(at, _mm256_add_epi64(_mm256_loadu_si256(at), w));
    *acc = _mm256_add_epi64(*acc, w);
}

/* The fixed points of 8 floats v (t = v 2^25, exact), added as add4 does for x .. x + 7. */
__attribute__((target("avx2"))) static inline void add_singles(__m256 v, int64_t *col,
                                                               __m256i *acc)
{
    const __m256 t = _mm256_mul_ps(v, _mm256_set1_ps((float)LATMC_MODES_SPIN_SCALE));
    const __m256i q = _mm256_cvttps_epi32(_mm256_round_ps(t, NEAREST));
    add4(_mm256_castsi256_si128(q), col, acc);
    add4(_mm256_extracti128_si256(q, 1), col + 4, acc);
}

/* The fixed point of four products a b 2^25 (a already times 2^25: exact either way). */
__attribute__((target("avx2"))) static inline __m128i product4(__m256d a, __m256d b)
{
    return _mm256_cvttpd_epi32(_mm256_round_pd(_mm256_mul_pd(a, b), NEAREST));
}

__attribute__((target("avx2"))) int64_t
latmc_modes_heisenberg_row_avx2(const float *a, const float *b, int64_t lx, int64_t stride,
                                int64_t *col, int64_t *row)
{
    const int nc = b ? 12 : 3;
    __m256i acc[12];
    for (int c = 0; c < nc; c++)
        acc[c] = _mm256_setzero_si256();
    int64_t x = 0;
    for (; x + 8 <= lx; x += 8) {
        __m256 s0[3];
        components8(a + 3 * x, s0);
        for (int m = 0; m < 3; m++)
            add_singles(s0[m], col + m * stride + x, &acc[m]);
        if (!b)
            continue;
        __m256 s1[3];
        components8(b + 3 * x, s1);
        for (int h = 0; h < 2; h++) { /* sites x + 4 h .. x + 4 h + 3 */
            __m256d u[3], w[3];
            for (int m = 0; m < 3; m++) {
                const __m128 lo0 = h ? _mm256_extractf128_ps(s0[m], 1)
                                     : _mm256_castps256_ps128(s0[m]);
                const __m128 lo1 = h ? _mm256_extractf128_ps(s1[m], 1)
                                     : _mm256_castps256_ps128(s1[m]);
                u[m] = _mm256_mul_pd(_mm256_cvtps_pd(lo0), _mm256_set1_pd(LATMC_MODES_SPIN_SCALE));
                w[m] = _mm256_cvtps_pd(lo1);
            }
            for (int m = 0; m < 3; m++)
                for (int k = 0; k < 3; k++) {
                    const int c = 3 + 3 * m + k;
                    add4(product4(u[m], w[k]), col + c * stride + x + 4 * h, &acc[c]);
                }
        }
    }
    for (int c = 0; c < nc; c++) {
        int64_t lane[4];
        _mm256_storeu_si256((__m256i *)(void *)lane, acc[c]);
        row[c] += (lane[0] + lane[1]) + (lane[2] + lane[3]);
    }
    return x;
}
#else
typedef int latmc_modes_heisenberg_avx2_unused; /* ISO C: a unit declares something */
#endif
