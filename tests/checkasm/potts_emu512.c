/*
 * The Potts SIMD template (backends/cpu/potts/potts_simd.h) compiled at the AVX-512 width with
 * the AVX-512 primitives of backends/cpu/potts/potts_avx512.c written out in plain C: 64-byte
 * vectors, compares into 64-bit masks, masked adds, pshufb within 128-bit lanes. This
 * runs the AVX-512 level's chunk geometry (64 sites, 16 Philox blocks, masks as bits) on
 * any machine, so checkasm (level avx512-emu) checks it even where the CPU lacks
 * AVX-512; what it cannot check is only the one-to-one mapping of each primitive onto its
 * intrinsic.
 *
 * The primitives are functions, not inlined: the template inlines everything into a dozen
 * instances, and with every 64-byte loop inlined (and instrumented, in sanitizer builds)
 * the file would take minutes to compile. Speed does not matter here.
 */
#include <stdint.h>
#include <string.h>

#include "potts_emu512.h"

typedef struct {
    union {
        uint8_t b[64];
        uint16_t w[32];
        uint32_t d[16];
        uint64_t q[8];
    };
} vec;
typedef uint64_t vmask;
#define VW 64
#define EMU static __attribute__((noinline, unused))

EMU vec v_load(const void *p) { vec r; memcpy(r.b, p, 64); return r; }
EMU void v_store(void *p, vec a) { memcpy(p, a.b, 64); }
EMU vec v_zero(void) { vec r; memset(&r, 0, sizeof r); return r; }
EMU vec v_set1_8(int x) { vec r; memset(r.b, x & 0xff, 64); return r; }
EMU vec v_set1_32(uint32_t x)
{
    vec r;
    for (int i = 0; i < 16; i++)
        r.d[i] = x;
    return r;
}
/* _mm512_broadcast_i32x4 */
EMU vec v_bcast16(const uint8_t *t)
{
    vec r;
    for (int i = 0; i < 64; i++)
        r.b[i] = t[i & 15];
    return r;
}
#define BYTEWISE(name, expr)                                                                \
    EMU vec name(vec a, vec b)                                                    \
    {                                                                                       \
        vec r;                                                                              \
        for (int i = 0; i < 64; i++)                                                        \
            r.b[i] = (uint8_t)(expr);                                                       \
        return r;                                                                           \
    }
BYTEWISE(v_add8, a.b[i] + b.b[i])
BYTEWISE(v_sub8, a.b[i] - b.b[i])
BYTEWISE(v_adds_u8, a.b[i] + b.b[i] > 255 ? 255 : a.b[i] + b.b[i])
BYTEWISE(v_and, a.b[i] & b.b[i])
BYTEWISE(v_or, a.b[i] | b.b[i])
BYTEWISE(v_xor, a.b[i] ^ b.b[i])
/* _mm512_shuffle_epi8: within each 128-bit lane; 0 where the control's top bit is set */
BYTEWISE(v_shuffle8, (b.b[i] & 0x80) ? 0 : a.b[(i & ~15) + (b.b[i] & 15)])
EMU vec v_xor3(vec a, vec b, vec c) { return v_xor(a, v_xor(b, c)); }

#define MASKWISE(name, expr)                                                                \
    EMU vmask name(vec a, vec b)                                                  \
    {                                                                                       \
        vmask m = 0;                                                                        \
        for (int i = 0; i < 64; i++)                                                        \
            if (expr)                                                                       \
                m |= UINT64_C(1) << i;                                                      \
        return m;                                                                           \
    }
MASKWISE(m_eq8, a.b[i] == b.b[i])
MASKWISE(m_gt8, (int8_t)a.b[i] > (int8_t)b.b[i])
MASKWISE(m_ge_u8, a.b[i] >= b.b[i])
EMU vmask m_and(vmask a, vmask b) { return a & b; }
EMU vmask m_or(vmask a, vmask b) { return a | b; }
EMU vmask m_none(void) { return 0; }
EMU vmask m_all(void) { return ~(vmask)0; }
EMU uint64_t m_bits(vmask m) { return m; }
EMU vmask m_lanes(int lo, int hi)
{
    vmask m = 0;
    for (int i = lo; i < hi; i++)
        m |= UINT64_C(1) << i;
    return m;
}
/* _mm512_mask_blend_epi8(m, a, b), _mm512_mask_add_epi8 / _sub_epi8 with 1 */
EMU vec v_blend(vec a, vec b, vmask m)
{
    for (int i = 0; i < 64; i++)
        if (m >> i & 1)
            a.b[i] = b.b[i];
    return a;
}
EMU vec v_add_m(vec a, vmask m)
{
    for (int i = 0; i < 64; i++)
        a.b[i] = (uint8_t)(a.b[i] + (m >> i & 1));
    return a;
}
EMU vec v_sub_m(vec a, vmask m)
{
    for (int i = 0; i < 64; i++)
        a.b[i] = (uint8_t)(a.b[i] - (m >> i & 1));
    return a;
}

EMU vec v_add32(vec a, vec b)
{
    for (int i = 0; i < 16; i++)
        a.d[i] += b.d[i];
    return a;
}
/* _mm512_mul_epu32: the low 32 bits of each 64-bit lane, full 64-bit products */
EMU vec v_mul_u32(vec a, vec b)
{
    for (int i = 0; i < 8; i++)
        a.q[i] = (a.q[i] & UINT32_MAX) * (b.q[i] & UINT32_MAX);
    return a;
}
/* _mm512_srl_epi32: counts above 31 give 0 */
EMU vec v_srl32(vec a, int n)
{
    for (int i = 0; i < 16; i++)
        a.d[i] = n > 31 ? 0 : a.d[i] >> n;
    return a;
}
#define SHIFT(name, field, count, op)                                                        \
    EMU vec name(vec a, int n)                                                    \
    {                                                                                       \
        for (int i = 0; i < count; i++)                                                     \
            a.field[i] = (__typeof__(a.field[i]))(a.field[i] op n);                          \
        return a;                                                                           \
    }
SHIFT(srli64, q, 8, >>)
SHIFT(slli64, q, 8, <<)
SHIFT(srli32, d, 16, >>)
SHIFT(slli32, d, 16, <<)
SHIFT(srli16, w, 32, >>)
SHIFT(slli16, w, 32, <<)
#define V_SRLI64(a, n) srli64((a), (n))
#define V_SLLI64(a, n) slli64((a), (n))
#define V_SRLI32(a, n) srli32((a), (n))
#define V_SLLI32(a, n) slli32((a), (n))
#define V_SRLI16(a, n) srli16((a), (n))
#define V_SLLI16(a, n) slli16((a), (n))
EMU vec v_blend32_odd(vec a, vec b)
{
    for (int i = 1; i < 16; i += 2)
        a.d[i] = b.d[i];
    return a;
}
EMU vec v_blend16_odd(vec a, vec b)
{
    for (int i = 1; i < 32; i += 2)
        a.w[i] = b.w[i];
    return a;
}
EMU vec v_blend8_odd(vec a, vec b)
{
    for (int i = 1; i < 64; i += 2)
        a.b[i] = b.b[i];
    return a;
}
EMU vec v_even_offsets(void)
{
    vec r;
    for (int i = 0; i < 8; i++)
        r.q[i] = 2 * (uint64_t)i;
    return r;
}
EMU uint64_t v_sum_u8(vec a)
{
    uint64_t s = 0;
    for (int i = 0; i < 64; i++)
        s += a.b[i];
    return s;
}

EMU int count_reached8(const uint32_t *t, uint32_t ub)
{
    int k = 0;
    while (k < 8 && (int32_t)t[k] <= (int32_t)ub)
        k++;
    return k;
}

#define POTTS_DSP_INIT potts_emu512_dsp_init
#define POTTS_LEVEL "emu512"
#include "potts_simd.h"
