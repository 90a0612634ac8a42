/*
 * The couplings' block kernels (coupling_fill.h) with AVX2: Philox on four blocks per
 * vector (philox_lanes_avx2.h), two vectors' rounds interleaved (one Philox is a serial
 * chain of ~55 cycles: a second one in flight is 25 % faster), then the same conversions as the
 * C level lane by lane: the sign bit for +-1, and for Gaussian couplings the AVX2
 * logarithm and sine/cosine that equal lib/latmc_math.h's bit for bit (math_avx2.h). The
 * blocks past a kernel's last whole group run the C level's code (coupling_fill_blocks.h).
 * Built with -mavx2.
 */
#include <immintrin.h>

#include "coupling_fill.h"
#include "coupling_fill_blocks.h"
#include "heisenberg_rules_avx2.h"
#include "philox_lanes_avx2.h"

/* Two sets s of four blocks b[s] .. b[s] + 3 of the draws named n[s] (latmc_rng_coupling_name,
 * lib/rng_streams.h), their rounds interleaved. The draws: lo[s] holds blocks b[s] and
 * b[s] + 2 (words 0..3 each), hi[s] blocks b[s] + 1 and b[s] + 3. */
static inline __attribute__((always_inline)) void draws_x4x2(const struct latmc_philox_x4_keys *k,
                                                             const int64_t b[2],
                                                             const struct latmc_rng_name n[2],
                                                             __m256i lo[2], __m256i hi[2])
{
    __m256i c[2][4];
    for (int s = 0; s < 2; s++)
        latmc_philox_x4_counters(_mm256_add_epi64(_mm256_set1_epi64x(b[s]),
                                                  _mm256_setr_epi64x(0, 1, 2, 3)),
                                 n[s].c1, n[s].c2, n[s].c3, c[s]);
#pragma GCC unroll 10
    for (int r = 0; r < 10; r++)
#pragma GCC unroll 2
        for (int s = 0; s < 2; s++)
            LATMC_PHILOX_X4_ROUND(k, r, c[s][0], c[s][1], c[s][2], c[s][3]);
    for (int s = 0; s < 2; s++) {
        __m256i o01, o23;
        latmc_philox_x4_pack(c[s][0], c[s][1], c[s][2], c[s][3], &o01, &o23);
        lo[s] = _mm256_unpacklo_epi64(o01, o23);
        hi[s] = _mm256_unpackhi_epi64(o01, o23);
    }
}

/* int8 +-1: eight blocks (32 couplings) per step, one 32-byte store. */
static void i8_bimodal_avx2(void *out, int64_t b0, int64_t nb, uint64_t seed)
{
    int8_t *o = out;
    struct latmc_philox_x4_keys k;
    latmc_philox_x4_keys_init(&k, seed);
    const struct latmc_rng_name w[2] = { latmc_rng_coupling_name(0), latmc_rng_coupling_name(0) };
    const __m256i one = _mm256_set1_epi8(1), fe = _mm256_set1_epi8((char)0xfe);
    const __m256i order = _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7);
    int64_t j = 0;
    for (; j + 8 <= nb; j += 8) {
        const int64_t b[2] = { b0 + j, b0 + j + 4 };
        __m256i lo[2], hi[2];
        draws_x4x2(&k, b, w, lo, hi);
        /* -1 where the top bit is set, else 0; narrowed to bytes (saturating keeps -1 and
         * 0), the 128-bit halves put back in block order, then 0 -> 1, -1 -> -1 */
        const __m256i p = _mm256_packs_epi16(
            _mm256_packs_epi32(_mm256_srai_epi32(lo[0], 31), _mm256_srai_epi32(hi[0], 31)),
            _mm256_packs_epi32(_mm256_srai_epi32(lo[1], 31), _mm256_srai_epi32(hi[1], 31)));
        const __m256i s = _mm256_or_si256(
            one, _mm256_and_si256(_mm256_permutevar8x32_epi32(p, order), fe));
        _mm256_storeu_si256((__m256i *)(void *)(o + 4 * j), s);
    }
    cpu_couplings_i8_blocks(o + 4 * j, b0 + j, nb - j, seed);
}

/* float +-1: eight blocks per step; the sign bit of the draw onto 1.0f. */
static void f32_bimodal_avx2(void *out, int64_t b0, int64_t nb, uint64_t seed)
{
    float *o = out;
    struct latmc_philox_x4_keys k;
    latmc_philox_x4_keys_init(&k, seed);
    const struct latmc_rng_name w[2] = { latmc_rng_coupling_name(0), latmc_rng_coupling_name(0) };
    const __m256i sign = _mm256_set1_epi32((int)0x80000000u);
    const __m256i onef = _mm256_set1_epi32(0x3f800000);
    int64_t j = 0;
    for (; j + 8 <= nb; j += 8) {
        const int64_t b[2] = { b0 + j, b0 + j + 4 };
        __m256i lo[2], hi[2];
        draws_x4x2(&k, b, w, lo, hi);
        for (int s = 0; s < 2; s++) {
            float *d = o + 4 * j + 16 * s;
            const __m256i l = _mm256_or_si256(onef, _mm256_and_si256(lo[s], sign));
            const __m256i h = _mm256_or_si256(onef, _mm256_and_si256(hi[s], sign));
            _mm256_storeu_si256((__m256i *)(void *)d, _mm256_permute2x128_si256(l, h, 0x20));
            _mm256_storeu_si256((__m256i *)(void *)(d + 8), _mm256_permute2x128_si256(l, h, 0x31));
        }
    }
    cpu_couplings_f32_blocks(o + 4 * j, b0 + j, nb - j, seed, LATMC_COUPLINGS_BIMODAL);
}

/* Gaussian: four blocks per step; sqrt(-2 log u1) cos(2 pi u2) in double, then to float
 * (latmc_heisenberg_gaussian_coupling, the same operations in the same order). */
static void f32_gaussian_avx2(void *out, int64_t b0, int64_t nb, uint64_t seed)
{
    float *o = out;
    struct latmc_philox_x4_keys k;
    latmc_philox_x4_keys_init(&k, seed);
    /* u1 from sub 0, u2 from sub 1 */
    const struct latmc_rng_name w[2] = { latmc_rng_coupling_name(0), latmc_rng_coupling_name(1) };
    _Static_assert(LATMC_LOG_AVX2_N == 2, "two logarithms per call: blocks 2h and 2h + 1");
    int64_t j = 0;
    for (; j + 4 <= nb; j += 4) {
        const int64_t b[2] = { b0 + j, b0 + j };
        __m256i lo[2], hi[2];
        draws_x4x2(&k, b, w, lo, hi);
        /* r1: sub 0, r2: sub 1; [0]: blocks 0 and 2, [1]: blocks 1 and 3 */
        const __m256i r1[2] = { lo[0], hi[0] }, r2[2] = { lo[1], hi[1] };
        for (int h = 0; h < 2; h++) { /* h = 0: blocks 0, 1; h = 1: blocks 2, 3 */
            __m256d u1[LATMC_LOG_AVX2_N], lg[LATMC_LOG_AVX2_N];
            for (int i = 0; i < 2; i++) /* block 2h + i */
                u1[i] = heisenberg_uniform_avx2(h ? _mm256_extracti128_si256(r1[i], 1)
                                            : _mm256_castsi256_si128(r1[i]));
            latmc_log_avx2_n(u1, lg);
            for (int i = 0; i < 2; i++) {
                const __m256d u2 = heisenberg_uniform_avx2(h ? _mm256_extracti128_si256(r2[i], 1)
                                                       : _mm256_castsi256_si128(r2[i]));
                __m256d sn, cs;
                latmc_sincos_2pi_avx2(u2, &sn, &cs);
                const __m256d rad = _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(-2.0), lg[i]));
                _mm_storeu_ps(o + 4 * (j + 2 * h + i), _mm256_cvtpd_ps(_mm256_mul_pd(rad, cs)));
            }
        }
    }
    cpu_couplings_f32_blocks(o + 4 * j, b0 + j, nb - j, seed, LATMC_COUPLINGS_GAUSSIAN);
}

void cpu_couplings_dsp_init_avx2(struct cpu_couplings_dsp *dsp)
{
    dsp->blocks[CPU_COUPLINGS_I8_BIMODAL] = i8_bimodal_avx2;
    dsp->blocks[CPU_COUPLINGS_F32_BIMODAL] = f32_bimodal_avx2;
    dsp->blocks[CPU_COUPLINGS_F32_GAUSSIAN] = f32_gaussian_avx2;
    dsp->level = "avx2";
}
