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

#endif
