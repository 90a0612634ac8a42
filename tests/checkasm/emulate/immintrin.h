/*
 * Test-only stand-in for <immintrin.h>: the real header, then SIMDe
 * (https://github.com/simd-everywhere/simde) with native aliases, so that the AVX-512
 * kernels compile for, and run on, a CPU without AVX-512 (each _mm512_* call becomes
 * SIMDe's portable implementation). Used by checkasm's copies of ising_avx512.c and
 * phi4_avx512.c only.
 */
/* guarded: SIMDe includes <immintrin.h> again, which is then this file */
#ifndef LATMC_CHECKASM_EMULATE_IMMINTRIN_H
#define LATMC_CHECKASM_EMULATE_IMMINTRIN_H
#include_next <immintrin.h>
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/x86/avx512.h>

/* Intrinsics this SIMDe lacks (0.7.4 has none of these six), lane by lane in plain C:
 * the C conversions int32 -> float and double -> float round to nearest as vcvtdq2ps and
 * vcvtpd2ps do (int32 -> double and float -> double are exact), masked stores write only
 * the lanes of the mask. */
#include <stdint.h>
#ifndef _mm512_cvtepi32_ps
static inline simde__m512 latmc_emu_mm512_cvtepi32_ps(simde__m512i a)
{
    int32_t in[16];
    float out[16];
    simde_mm512_storeu_si512(in, a);
    for (int i = 0; i < 16; i++)
        out[i] = (float)in[i];
    return simde_mm512_loadu_ps(out);
}
#define _mm512_cvtepi32_ps(a) latmc_emu_mm512_cvtepi32_ps(a)
#endif
#ifndef _mm512_cvtepi32_pd
static inline simde__m512d latmc_emu_mm512_cvtepi32_pd(simde__m256i a)
{
    int32_t in[8];
    double out[8];
    simde_mm256_storeu_si256(in, a);
    for (int i = 0; i < 8; i++)
        out[i] = (double)in[i];
    return simde_mm512_loadu_pd(out);
}
#define _mm512_cvtepi32_pd(a) latmc_emu_mm512_cvtepi32_pd(a)
#endif
#ifndef _mm512_mask_storeu_ps
static inline void latmc_emu_mm512_mask_storeu_ps(void *p, simde__mmask16 m, simde__m512 v)
{
    float in[16];
    simde_mm512_storeu_ps(in, v);
    for (int i = 0; i < 16; i++)
        if (m >> i & 1)
            ((float *)p)[i] = in[i];
}
#define _mm512_mask_storeu_ps(p, m, v) latmc_emu_mm512_mask_storeu_ps(p, m, v)
#endif
#ifndef _mm512_mask_storeu_pd
static inline void latmc_emu_mm512_mask_storeu_pd(void *p, simde__mmask8 m, simde__m512d v)
{
    double in[8];
    simde_mm512_storeu_pd(in, v);
    for (int i = 0; i < 8; i++)
        if (m >> i & 1)
            ((double *)p)[i] = in[i];
}
#define _mm512_mask_storeu_pd(p, m, v) latmc_emu_mm512_mask_storeu_pd(p, m, v)
#endif

#ifndef _mm512_cvtpd_ps
static inline simde__m256 latmc_emu_mm512_cvtpd_ps(simde__m512d a)
{
    double in[8];
    float out[8];
    simde_mm512_storeu_pd(in, a);
    for (int i = 0; i < 8; i++)
        out[i] = (float)in[i];
    return simde_mm256_loadu_ps(out);
}
#define _mm512_cvtpd_ps(a) latmc_emu_mm512_cvtpd_ps(a)
#endif
#ifndef _mm512_cvtps_pd
static inline simde__m512d latmc_emu_mm512_cvtps_pd(simde__m256 a)
{
    float in[8];
    double out[8];
    simde_mm256_storeu_ps(in, a);
    for (int i = 0; i < 8; i++)
        out[i] = (double)in[i];
    return simde_mm512_loadu_pd(out);
}
#define _mm512_cvtps_pd(a) latmc_emu_mm512_cvtps_pd(a)
#endif


/* For phi^4's AVX-512 Philox (the last round's swap of 32-bit halves), its quick unit value
 * (uint32 -> float, rounded to nearest as vcvtudq2ps) and quick logarithm (exponent and
 * mantissa of positive normal floats, as vgetexpps and vgetmantps with [1, 2) and the
 * source's sign), and its decisions' mask logic; lane by lane in plain C (needs <math.h>,
 * included here). */
#include <math.h>
#include <string.h>
/* The getexp and getmant stand-ins below read a normal float's exponent and fraction from
 * its bits, as the instructions do (the same values as through frexpf, which took most of
 * checkasm's time in the exhaustive phi4.quick_log_f check: 2^28 floats); zeros,
 * subnormals, infinities and NaNs still go through frexpf. */
static inline uint32_t latmc_emu_bits_f(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}
static inline float latmc_emu_float_of(uint32_t b)
{
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
}
#ifndef _mm512_shuffle_epi32
static inline simde__m512i latmc_emu_mm512_shuffle_epi32(simde__m512i a, int imm)
{
    int32_t in[16], out[16];
    simde_mm512_storeu_si512(in, a);
    for (int i = 0; i < 16; i++)
        out[i] = in[(i & ~3) + (imm >> (2 * (i & 3)) & 3)];
    return simde_mm512_loadu_si512(out);
}
#define _mm512_shuffle_epi32(a, imm) latmc_emu_mm512_shuffle_epi32(a, (int)(imm))
#endif
#ifndef _mm512_cvtepu32_ps
static inline simde__m512 latmc_emu_mm512_cvtepu32_ps(simde__m512i a)
{
    uint32_t in[16];
    float out[16];
    simde_mm512_storeu_si512(in, a);
    for (int i = 0; i < 16; i++)
        out[i] = (float)in[i];
    return simde_mm512_loadu_ps(out);
}
#define _mm512_cvtepu32_ps(a) latmc_emu_mm512_cvtepu32_ps(a)
#endif
#ifndef _mm512_getexp_ps
static inline simde__m512 latmc_emu_mm512_getexp_ps(simde__m512 a)
{
    float in[16], out[16];
    simde_mm512_storeu_ps(in, a);
    for (int i = 0; i < 16; i++) {
        int e;
        const int field = (int)(latmc_emu_bits_f(in[i]) >> 23 & 0xff);
        if (field != 0 && field != 0xff)
            out[i] = (float)(field - 127); /* a normal float: what frexpf gives, less 1 */
        else if (isnan(in[i]))
            out[i] = in[i];
        else if (in[i] == 0)
            out[i] = -INFINITY;
        else if (isinf(in[i]))
            out[i] = INFINITY;
        else {
            (void)frexpf(in[i], &e);
            out[i] = (float)(e - 1);
        }
    }
    return simde_mm512_loadu_ps(out);
}
#define _mm512_getexp_ps(a) latmc_emu_mm512_getexp_ps(a)
#endif
#ifndef _mm512_getmant_ps
/* only the interval [1, 2) with the source's sign, the one form the kernels use */
static inline simde__m512 latmc_emu_mm512_getmant_ps(simde__m512 a)
{
    float in[16], out[16];
    simde_mm512_storeu_ps(in, a);
    for (int i = 0; i < 16; i++) {
        int e;
        const uint32_t bits = latmc_emu_bits_f(in[i]), field = bits >> 23 & 0xff;
        if (field != 0 && field != 0xff) /* normal: sign and fraction, exponent of 1 */
            out[i] = latmc_emu_float_of((bits & 0x807fffffu) | 0x3f800000u);
        else
            out[i] = isfinite(in[i]) && in[i] != 0 ? 2 * frexpf(in[i], &e) : in[i];
    }
    return simde_mm512_loadu_ps(out);
}
#define _mm512_getmant_ps(a, interval, sign)                                                      \
    ((void)sizeof(char[(interval) == _MM_MANT_NORM_1_2 && (sign) == _MM_MANT_SIGN_src ? 1 : -1]), \
     latmc_emu_mm512_getmant_ps(a))
#endif
/* (GCC defines some of these as macros of its own intrinsics: replaced whatever they are) */
#undef _kor_mask16
#define _kor_mask16(a, b) ((simde__mmask16)((a) | (b)))
#undef _kand_mask16
#define _kand_mask16(a, b) ((simde__mmask16)((a) & (b)))
#undef _kortestc_mask16_u8
#define _kortestc_mask16_u8(a, b) ((unsigned char)((simde__mmask16)((a) | (b)) == 0xffff))

/* vpshufd merged under a mask (the bit-sliced decisions' lanes_of_chains): lane i of the
 * result is a's where bit i of k is clear, else b's dword 4 (i / 4) + (imm >> 2 (i % 4)) % 4. */
#ifndef _mm512_mask_shuffle_epi32
static inline simde__m512i latmc_emu_mm512_mask_shuffle_epi32(simde__m512i a, simde__mmask16 k,
                                                              simde__m512i b, int imm)
{
    uint32_t va[16], vb[16];
    simde_mm512_storeu_si512(va, a);
    simde_mm512_storeu_si512(vb, b);
    for (int i = 0; i < 16; i++)
        if (k >> i & 1)
            va[i] = vb[(i & ~3) + ((imm >> (2 * (i & 3))) & 3)];
    return simde_mm512_loadu_si512(va);
}
#define _mm512_mask_shuffle_epi32(a, k, b, imm) \
    latmc_emu_mm512_mask_shuffle_epi32(a, k, b, (int)(imm))
#endif

#ifndef _mm512_srai_epi32
/* the arithmetic shift right (phi^4's signed_f), written without C's implementation-defined
 * shift of a negative value */
static inline simde__m512i latmc_emu_mm512_srai_epi32(simde__m512i a, int imm)
{
    int32_t in[16], out[16];
    simde_mm512_storeu_si512(in, a);
    for (int i = 0; i < 16; i++)
        out[i] = in[i] < 0 ? ~(~in[i] >> imm) : in[i] >> imm;
    return simde_mm512_loadu_si512(out);
}
#define _mm512_srai_epi32(a, imm) latmc_emu_mm512_srai_epi32(a, (int)(imm))
#endif

#endif
