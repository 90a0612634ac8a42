/*
 * Potts kernels, AVX2 level: 32 sites per vector. Built with -mavx2 -mfma -mbmi -mbmi2
 * (top-level meson.build) and reached only through cpu_potts_dsp_init_avx2().
 *
 * The primitives potts_simd.h is written in (AVX-512 defines the same in potts_avx512.c):
 *   vec, vmask             a vector of VW bytes; a per-byte lane mask
 *   v_load/v_store         unaligned VW bytes
 *   v_zero, v_set1_8/32, v_bcast16 (a 16-byte table in every 128-bit lane)
 *   v_add8, v_sub8, v_adds_u8, v_and, v_or, v_xor, v_xor3
 *   v_shuffle8             pshufb: per 128-bit lane, zero where the control's top bit is set
 *   m_eq8, m_gt8 (signed), m_ge_u8, m_and, m_or, m_none, m_all, m_lanes(lo, hi), m_bits
 *   v_blend(a, b, m)       b where m; v_add_m / v_sub_m: +1 / -1 where m
 *   v_add32, v_mul_u32 (even 32-bit lanes -> 64-bit products), v_srl32 (variable count),
 *   V_SRLI64, V_SLLI64, V_SRLI32, V_SLLI32, V_SRLI16, V_SLLI16 (immediate counts)
 *   v_blend32_odd, v_blend16_odd, v_blend8_odd: odd elements from the second operand
 *   v_even_offsets()       64-bit lanes 0, 2, 4, ...
 *   v_sum_u8               the sum of all bytes
 *   count_reached8(t, ub)  of 8 signed words t[0..7] (32-byte aligned, not decreasing),
 *                          how many are <= ub: the leading ones (scalar result)
 */
#include <immintrin.h>
#include <stdint.h>

typedef __m256i vec;
typedef __m256i vmask;
#define VW 32

static inline vec v_load(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline void v_store(void *p, vec a) { _mm256_storeu_si256((__m256i *)p, a); }
static inline vec v_zero(void) { return _mm256_setzero_si256(); }
static inline vec v_set1_8(int x) { return _mm256_set1_epi8((char)x); }
static inline vec v_set1_32(uint32_t x) { return _mm256_set1_epi32((int)x); }
static inline vec v_bcast16(const uint8_t *t)
{
    return _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)t));
}
static inline vec v_add8(vec a, vec b) { return _mm256_add_epi8(a, b); }
static inline vec v_sub8(vec a, vec b) { return _mm256_sub_epi8(a, b); }
static inline vec v_adds_u8(vec a, vec b) { return _mm256_adds_epu8(a, b); }
static inline vec v_and(vec a, vec b) { return _mm256_and_si256(a, b); }
static inline vec v_or(vec a, vec b) { return _mm256_or_si256(a, b); }
static inline vec v_xor(vec a, vec b) { return _mm256_xor_si256(a, b); }
/* a ^ (b ^ c): b and c are known first (the previous round, a key), a last */
static inline vec v_xor3(vec a, vec b, vec c) { return v_xor(a, v_xor(b, c)); }
static inline vec v_shuffle8(vec table, vec ctl) { return _mm256_shuffle_epi8(table, ctl); }

static inline vmask m_eq8(vec a, vec b) { return _mm256_cmpeq_epi8(a, b); }
static inline vmask m_gt8(vec a, vec b) { return _mm256_cmpgt_epi8(a, b); }
static inline vmask m_ge_u8(vec a, vec b) { return _mm256_cmpeq_epi8(_mm256_max_epu8(a, b), a); }
static inline vmask m_and(vmask a, vmask b) { return _mm256_and_si256(a, b); }
static inline vmask m_or(vmask a, vmask b) { return _mm256_or_si256(a, b); }
static inline vmask m_none(void) { return _mm256_setzero_si256(); }
static inline vmask m_all(void) { return _mm256_set1_epi8(-1); }
static inline uint64_t m_bits(vmask m) { return (uint32_t)_mm256_movemask_epi8(m); }
/* lanes lo <= lane < hi, 0 <= lo <= hi <= VW */
static inline vmask m_lanes(int lo, int hi)
{
    static const uint8_t window[3 * VW] = {
        [VW] = 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff,
    };
    return _mm256_and_si256(v_load(window + VW - lo), v_load(window + 2 * VW - hi));
}
static inline vec v_blend(vec a, vec b, vmask m) { return _mm256_blendv_epi8(a, b, m); }
static inline vec v_add_m(vec a, vmask m) { return _mm256_sub_epi8(a, m); }
static inline vec v_sub_m(vec a, vmask m) { return _mm256_add_epi8(a, m); }

static inline vec v_add32(vec a, vec b) { return _mm256_add_epi32(a, b); }
static inline vec v_mul_u32(vec a, vec b) { return _mm256_mul_epu32(a, b); }
static inline vec v_srl32(vec a, int n) { return _mm256_srl_epi32(a, _mm_cvtsi32_si128(n)); }
#define V_SRLI64(a, n) _mm256_srli_epi64((a), (n))
#define V_SLLI64(a, n) _mm256_slli_epi64((a), (n))
#define V_SRLI32(a, n) _mm256_srli_epi32((a), (n))
#define V_SLLI32(a, n) _mm256_slli_epi32((a), (n))
#define V_SRLI16(a, n) _mm256_srli_epi16((a), (n))
#define V_SLLI16(a, n) _mm256_slli_epi16((a), (n))
static inline vec v_blend32_odd(vec a, vec b) { return _mm256_blend_epi32(a, b, 0xaa); }
static inline vec v_blend16_odd(vec a, vec b) { return _mm256_blend_epi16(a, b, 0xaa); }
static inline vec v_blend8_odd(vec a, vec b)
{
    return _mm256_blendv_epi8(a, b, _mm256_set1_epi16((short)0xff00));
}
static inline vec v_even_offsets(void) { return _mm256_setr_epi64x(0, 2, 4, 6); }
static inline uint64_t v_sum_u8(vec a)
{
    const __m256i s = _mm256_sad_epu8(a, _mm256_setzero_si256());   /* 4 x 64-bit sums */
    const __m128i t = _mm_add_epi64(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    return (uint64_t)_mm_cvtsi128_si64(t) + (uint64_t)_mm_extract_epi64(t, 1);
}

/* t > ub in the lanes past the leading ones: the mask's trailing zeros count them */
static inline int count_reached8(const uint32_t *t, uint32_t ub)
{
    const __m256i gt = _mm256_cmpgt_epi32(_mm256_load_si256((const __m256i *)t),
                                          _mm256_set1_epi32((int)ub));
    return __builtin_ctz((unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(gt)) | 0x100u);
}

#define POTTS_DSP_INIT cpu_potts_dsp_init_avx2
#define POTTS_LEVEL "avx2"
#include "potts_simd.h"
