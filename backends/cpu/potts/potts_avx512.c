/*
 * Potts kernels, AVX-512 level (F, BW, DQ, VL): 64 sites per vector, compares into mask
 * registers, three-way XOR in one instruction (vpternlogd) for Philox. Built with the
 * AVX-512 flags (top-level meson.build), reached only through
 * cpu_potts_dsp_init_avx512(). The primitives are those listed in potts_avx2.c, with the
 * same meaning; tests/kernels/potts_emu512.c runs the same template with these meanings
 * written in plain C, so the template is checked at this width on any machine.
 */
#include <immintrin.h>
#include <stdint.h>

typedef __m512i vec;
typedef __mmask64 vmask;
#define VW 64

static inline vec v_load(const void *p) { return _mm512_loadu_si512(p); }
static inline void v_store(void *p, vec a) { _mm512_storeu_si512(p, a); }
static inline vec v_zero(void) { return _mm512_setzero_si512(); }
static inline vec v_set1_8(int x) { return _mm512_set1_epi8((char)x); }
static inline vec v_set1_32(uint32_t x) { return _mm512_set1_epi32((int)x); }
static inline vec v_bcast16(const uint8_t *t)
{
    return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)t));
}
static inline vec v_add8(vec a, vec b) { return _mm512_add_epi8(a, b); }
static inline vec v_sub8(vec a, vec b) { return _mm512_sub_epi8(a, b); }
static inline vec v_adds_u8(vec a, vec b) { return _mm512_adds_epu8(a, b); }
static inline vec v_and(vec a, vec b) { return _mm512_and_si512(a, b); }
static inline vec v_or(vec a, vec b) { return _mm512_or_si512(a, b); }
static inline vec v_xor(vec a, vec b) { return _mm512_xor_si512(a, b); }
static inline vec v_xor3(vec a, vec b, vec c) { return _mm512_ternarylogic_epi32(a, b, c, 0x96); }
static inline vec v_shuffle8(vec table, vec ctl) { return _mm512_shuffle_epi8(table, ctl); }

static inline vmask m_eq8(vec a, vec b) { return _mm512_cmpeq_epi8_mask(a, b); }
static inline vmask m_gt8(vec a, vec b) { return _mm512_cmpgt_epi8_mask(a, b); }
static inline vmask m_ge_u8(vec a, vec b) { return _mm512_cmpge_epu8_mask(a, b); }
static inline vmask m_and(vmask a, vmask b) { return a & b; }
static inline vmask m_or(vmask a, vmask b) { return a | b; }
static inline vmask m_none(void) { return 0; }
static inline vmask m_all(void) { return ~(vmask)0; }
static inline uint64_t m_bits(vmask m) { return (uint64_t)m; }
/* lanes lo <= lane < hi, 0 <= lo <= hi <= VW */
static inline vmask m_lanes(int lo, int hi)
{
    const uint64_t below_hi = hi >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << hi) - 1;
    const uint64_t below_lo = lo >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << lo) - 1;
    return (vmask)(below_hi & ~below_lo);
}
static inline vec v_blend(vec a, vec b, vmask m) { return _mm512_mask_blend_epi8(m, a, b); }
static inline vec v_add_m(vec a, vmask m) { return _mm512_mask_add_epi8(a, m, a, _mm512_set1_epi8(1)); }
static inline vec v_sub_m(vec a, vmask m) { return _mm512_mask_sub_epi8(a, m, a, _mm512_set1_epi8(1)); }

static inline vec v_add32(vec a, vec b) { return _mm512_add_epi32(a, b); }
static inline vec v_mul_u32(vec a, vec b) { return _mm512_mul_epu32(a, b); }
static inline vec v_srl32(vec a, int n) { return _mm512_srl_epi32(a, _mm_cvtsi32_si128(n)); }
#define V_SRLI64(a, n) _mm512_srli_epi64((a), (n))
#define V_SLLI64(a, n) _mm512_slli_epi64((a), (n))
#define V_SRLI32(a, n) _mm512_srli_epi32((a), (n))
#define V_SLLI32(a, n) _mm512_slli_epi32((a), (n))
#define V_SRLI16(a, n) _mm512_srli_epi16((a), (n))
#define V_SLLI16(a, n) _mm512_slli_epi16((a), (n))
static inline vec v_blend32_odd(vec a, vec b) { return _mm512_mask_blend_epi32(0xaaaa, a, b); }
static inline vec v_blend16_odd(vec a, vec b)
{
    return _mm512_mask_blend_epi16(0xaaaaaaaau, a, b);
}
static inline vec v_blend8_odd(vec a, vec b)
{
    return _mm512_mask_blend_epi8(UINT64_C(0xaaaaaaaaaaaaaaaa), a, b);
}
static inline vec v_even_offsets(void) { return _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14); }
static inline uint64_t v_sum_u8(vec a)
{
    return (uint64_t)_mm512_reduce_add_epi64(_mm512_sad_epu8(a, _mm512_setzero_si512()));
}

static inline int count_reached8(const uint32_t *t, uint32_t ub)
{
    const __mmask8 gt = _mm256_cmpgt_epi32_mask(_mm256_load_si256((const __m256i *)t),
                                                _mm256_set1_epi32((int)ub));
    return __builtin_ctz((unsigned)gt | 0x100u);
}

#define POTTS_DSP_INIT cpu_potts_dsp_init_avx512
#define POTTS_LEVEL "avx512"
#include "potts_simd.h"
