/*
 * phi^4 with AVX2: the chain of doc/models/phi4.md, bit for bit, eight sites at a time.
 *
 * Work unit: a group of 8 consecutive within-colour numbers j0 .. j0+7 (j0 = 8 grp),
 * i.e. Philox blocks 2 grp and 2 grp + 1, whose lanes are exactly the group's sites. The
 * field is colour-transposed (phi4_dsp.h), so when the group lies in one row its sites and
 * every neighbour set are contiguous runs of 8 values: 24 (3D) vector loads give the
 * three neighbourhood sums, in the reference's order, lane by lane. Groups that straddle
 * two rows (L_x / ncolours not a multiple of 8) or run past the end of the colour gather
 * their sums with scalar code in the same order. Then the nhit hits run on the 8 lanes:
 * the four Philox blocks of a hit (proposal and acceptance of both blocks) in one
 * four-lane Philox (philox_lanes_avx2.h, with the hit-independent part of the first rounds
 * computed once per group), the draw conversions, dH in the reference's order, and the
 * shared logarithm (math_avx2.h). float fields use one __m256, double fields two __m256d
 * per group; the kernel body below is written once for both (phi4_avx2_impl.h).
 *
 * Threads: one parallel region per sweep; each colour is a static loop over groups with a
 * barrier after it. Every draw is named by (pass, colour, hit, j), never by thread.
 */
#include <immintrin.h>
#include <string.h>

#include "cpu_omp.h"
#include "math_avx2.h"
#include "philox_lanes_avx2.h"
#include "phi4_dsp.h"
#include "rng_streams.h"

/* ---------------------------------------------------------------------------------- */
/* Eight field values as vectors: float (one __m256) and double (two __m256d)         */

typedef __m256 vec8_f;
typedef __m256 mask8_f;
typedef struct { __m256d lo, hi; } vec8_d;
typedef vec8_d mask8_d;

static inline vec8_f load8_f(const float *p) { return _mm256_loadu_ps(p); }
static inline void store8_f(float *p, vec8_f v) { _mm256_storeu_ps(p, v); }
static inline vec8_f set1_f(float s) { return _mm256_set1_ps(s); }
static inline vec8_f add_f(vec8_f a, vec8_f b) { return _mm256_add_ps(a, b); }
static inline vec8_f sub_f(vec8_f a, vec8_f b) { return _mm256_sub_ps(a, b); }
static inline vec8_f mul_f(vec8_f a, vec8_f b) { return _mm256_mul_ps(a, b); }
static inline vec8_f neg_f(vec8_f a) { return _mm256_xor_ps(a, _mm256_set1_ps(-0.0f)); }
static inline mask8_f gt_f(vec8_f a, vec8_f b) { return _mm256_cmp_ps(a, b, _CMP_GT_OQ); }
static inline vec8_f select_f(mask8_f m, vec8_f a, vec8_f b) { return _mm256_blendv_ps(b, a, m); }
static inline unsigned bits_f(mask8_f m) { return (unsigned)_mm256_movemask_ps(m); }
static inline vec8_f lane0_f(vec8_f v, float s) { return _mm256_blend_ps(v, _mm256_set1_ps(s), 0x01); }
static inline vec8_f lane7_f(vec8_f v, float s) { return _mm256_blend_ps(v, _mm256_set1_ps(s), 0x80); }

/* latmc_phi4_signed_f: (float)(2r + 1 - 2^32) 2^-32. With s = r - 2^31 (int32), the odd
 * integer 2s + 1 = 2 hi + lo, hi = s with its low 8 bits cleared (24 significant bits:
 * exact as a float), lo = 2 (s & 255) + 1: one rounded addition of two exact floats. */
static inline vec8_f signed8_f(__m256i r)
{
    const __m256i s = _mm256_xor_si256(r, _mm256_set1_epi32((int)0x80000000u));
    const __m256i hi = _mm256_and_si256(s, _mm256_set1_epi32(~0xff));
    const __m256i lo = _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(s, _mm256_set1_epi32(0xff)), 1),
                                       _mm256_set1_epi32(1));
    const __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(hi), _mm256_set1_ps(2.0f)),
                                   _mm256_cvtepi32_ps(lo));
    return _mm256_mul_ps(v, _mm256_set1_ps(0x1p-32f));
}

/* latmc_phi4_unit_f: (float)(r + 1) 2^-32, r + 1 = 256 (r >> 8) + ((r & 255) + 1), both
 * parts exact as floats, one rounded addition. */
static inline vec8_f unit8_f(__m256i r)
{
    const __m256 hi = _mm256_cvtepi32_ps(_mm256_srli_epi32(r, 8));
    const __m256 lo = _mm256_cvtepi32_ps(_mm256_add_epi32(_mm256_and_si256(r, _mm256_set1_epi32(0xff)),
                                                          _mm256_set1_epi32(1)));
    return _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(hi, _mm256_set1_ps(256.0f)), lo),
                         _mm256_set1_ps(0x1p-32f));
}

/* LATMC_LOG_AVX2_N logarithms at once (math_avx2.h). */
enum { PHI4_LOG_N = LATMC_LOG_AVX2_N };
static inline __attribute__((always_inline)) void logn_f(const vec8_f x[PHI4_LOG_N], vec8_f out[PHI4_LOG_N])
{
    latmc_logf_avx2_n(x, out);
}

static inline vec8_d load8_d(const double *p) { return (vec8_d){ _mm256_loadu_pd(p), _mm256_loadu_pd(p + 4) }; }
static inline void store8_d(double *p, vec8_d v)
{
    _mm256_storeu_pd(p, v.lo);
    _mm256_storeu_pd(p + 4, v.hi);
}
static inline vec8_d set1_d(double s) { return (vec8_d){ _mm256_set1_pd(s), _mm256_set1_pd(s) }; }
static inline vec8_d add_d(vec8_d a, vec8_d b) { return (vec8_d){ _mm256_add_pd(a.lo, b.lo), _mm256_add_pd(a.hi, b.hi) }; }
static inline vec8_d sub_d(vec8_d a, vec8_d b) { return (vec8_d){ _mm256_sub_pd(a.lo, b.lo), _mm256_sub_pd(a.hi, b.hi) }; }
static inline vec8_d mul_d(vec8_d a, vec8_d b) { return (vec8_d){ _mm256_mul_pd(a.lo, b.lo), _mm256_mul_pd(a.hi, b.hi) }; }
static inline vec8_d neg_d(vec8_d a)
{
    const __m256d m = _mm256_set1_pd(-0.0);
    return (vec8_d){ _mm256_xor_pd(a.lo, m), _mm256_xor_pd(a.hi, m) };
}
static inline mask8_d gt_d(vec8_d a, vec8_d b)
{
    return (vec8_d){ _mm256_cmp_pd(a.lo, b.lo, _CMP_GT_OQ), _mm256_cmp_pd(a.hi, b.hi, _CMP_GT_OQ) };
}
static inline vec8_d select_d(mask8_d m, vec8_d a, vec8_d b)
{
    return (vec8_d){ _mm256_blendv_pd(b.lo, a.lo, m.lo), _mm256_blendv_pd(b.hi, a.hi, m.hi) };
}
static inline unsigned bits_d(mask8_d m)
{
    return (unsigned)_mm256_movemask_pd(m.lo) | (unsigned)_mm256_movemask_pd(m.hi) << 4;
}
static inline vec8_d lane0_d(vec8_d v, double s)
{
    v.lo = _mm256_blend_pd(v.lo, _mm256_set1_pd(s), 0x1);
    return v;
}
static inline vec8_d lane7_d(vec8_d v, double s)
{
    v.hi = _mm256_blend_pd(v.hi, _mm256_set1_pd(s), 0x8);
    return v;
}

/* latmc_phi4_signed_d: 2r + 1 - 2^32 = 2s + 1 (s = r - 2^31) is exact in double. */
static inline vec8_d signed8_d(__m256i r)
{
    const __m256i s = _mm256_xor_si256(r, _mm256_set1_epi32((int)0x80000000u));
    const __m256d two = _mm256_set1_pd(2.0), one = _mm256_set1_pd(1.0), scale = _mm256_set1_pd(0x1p-32);
    const __m256d lo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(s));
    const __m256d hi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(s, 1));
    return (vec8_d){ _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(lo, two), one), scale),
                     _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(hi, two), one), scale) };
}

/* latmc_phi4_unit_d: r + 1 = (r - 2^31) + (2^31 + 1), exact in double. */
static inline vec8_d unit8_d(__m256i r)
{
    const __m256i s = _mm256_xor_si256(r, _mm256_set1_epi32((int)0x80000000u));
    const __m256d off = _mm256_set1_pd(2147483649.0), scale = _mm256_set1_pd(0x1p-32);
    const __m256d lo = _mm256_cvtepi32_pd(_mm256_castsi256_si128(s));
    const __m256d hi = _mm256_cvtepi32_pd(_mm256_extracti128_si256(s, 1));
    return (vec8_d){ _mm256_mul_pd(_mm256_add_pd(lo, off), scale),
                     _mm256_mul_pd(_mm256_add_pd(hi, off), scale) };
}

/* Each vector's halves are the two chains of one latmc_log_avx2_n call. */
_Static_assert(LATMC_LOG_AVX2_N == 2, "logn_d pairs the halves of a vec8_d");
static inline __attribute__((always_inline)) void logn_d(const vec8_d x[PHI4_LOG_N], vec8_d out[PHI4_LOG_N])
{
    for (int i = 0; i < PHI4_LOG_N; i++) {
        const __m256d in[2] = { x[i].lo, x[i].hi };
        __m256d res[2];
        latmc_log_avx2_n(in, res);
        out[i].lo = res[0];
        out[i].hi = res[1];
    }
}

/* ---------------------------------------------------------------------------------- */

/* Groups of 8 sites per block, hits per chunk (phi4_avx2_block). */
enum { PHI4_AVX2_GROUPS = 8, PHI4_AVX2_HITS = 8 };

#define PHI4_R float
#define PHI4_S f
#include "phi4_avx2_impl.h"
#undef PHI4_R
#undef PHI4_S

#define PHI4_R double
#define PHI4_S d
#include "phi4_avx2_impl.h"
#undef PHI4_R
#undef PHI4_S

void cpu_phi4_dsp_init_avx2(struct cpu_phi4_dsp *dsp)
{
    dsp->level = "avx2";
    dsp->transposed = true;
    dsp->sweep_f = cpu_phi4_sweep_avx2_f;
    dsp->sweep_d = cpu_phi4_sweep_avx2_d;
}
