/*
 * Run-time SIMD dispatch of the CPU backend (DESIGN.md section 5, dav1d's pattern).
 *
 * The CPU's features are detected once (cpuid + xgetbv: the OS must save the wider
 * registers, not only the CPU have them), then masked by the environment variable
 * LATMC_CPU_MASK, which can only lower the level. Each model's kernels keep a table of
 * function pointers ("dsp"), filled with the C reference first and then overwritten level
 * by level, its `level` naming the highest:
 *
 *     void cpu_<model>_dsp_init(struct cpu_<model>_dsp *dsp, unsigned flags)
 *     {
 *         dsp->fn = fn_c;
 *         dsp->level = "c";
 *         CPU_DSP_LEVELS(cpu_<model>_dsp_init, dsp, flags);
 *     }
 *
 * which calls cpu_<model>_dsp_init_avx2(dsp) (in <model>_avx2.c, built with -mavx2) and
 * then cpu_<model>_dsp_init_avx512(dsp) for the levels this build has and flags allow.
 * Every level computes the same Markov chain as the C reference, bit for bit (checkasm,
 * tests/checkasm, checks each level the machine has), so the level changes speed only.
 */
#ifndef LATMC_CPU_FEATURES_H
#define LATMC_CPU_FEATURES_H

/* Feature flags; a level's flag is set only when everything its kernels use is there. */
enum {
    /* AVX2 + FMA + BMI1/2 (Haswell, Zen and later), with OS support for the ymm state */
    CPU_FLAG_AVX2 = 1u << 0,
    /* AVX-512 F, BW, DQ, VL (Skylake-SP, Ice Lake, Zen 4 and later), with zmm/opmask state */
    CPU_FLAG_AVX512 = 1u << 1,
    CPU_FLAG_ALL = CPU_FLAG_AVX2 | CPU_FLAG_AVX512,
};

/* The levels' part of a table's init (above): init##_avx2, then init##_avx512, each where
 * the build has the level (LATMC_HAVE_<ISA>) and flags ask for it. CPU_DSP_AVX2 alone
 * for a table without AVX-512 kernels. */
#define CPU_DSP_LEVEL_(init, dsp, flags, flag)                                              \
    do {                                                                                    \
        if ((flags) & (flag))                                                               \
            init(dsp);                                                                      \
    } while (0)
#if defined(LATMC_HAVE_AVX2) && LATMC_HAVE_AVX2
#define CPU_DSP_AVX2(init, dsp, flags) CPU_DSP_LEVEL_(init##_avx2, dsp, flags, CPU_FLAG_AVX2)
#else
#define CPU_DSP_AVX2(init, dsp, flags) ((void)(flags))
#endif
#if defined(LATMC_HAVE_AVX512) && LATMC_HAVE_AVX512
#define CPU_DSP_AVX512(init, dsp, flags) CPU_DSP_LEVEL_(init##_avx512, dsp, flags, CPU_FLAG_AVX512)
#else
#define CPU_DSP_AVX512(init, dsp, flags) ((void)(flags))
#endif
#define CPU_DSP_LEVELS(init, dsp, flags)                                                    \
    do {                                                                                    \
        CPU_DSP_AVX2(init, dsp, flags);                                                     \
        CPU_DSP_AVX512(init, dsp, flags);                                                   \
    } while (0)

/* What the CPU and OS support (detected once, thread-safe). */
unsigned cpu_flags_detected(void);

/*
 * The flags a new sim uses: the detected ones masked by LATMC_CPU_MASK, read at each call
 * (a program may change it between sim creations). The variable names a level -- "c" (the
 * plain C reference), "avx2", "avx512" -- which keeps the levels up to it, or a number
 * (decimal or 0x hex) ANDed with the flags above. Returns LATMC_OK, or LATMC_EINVAL through
 * latmc_fail() naming a value that is neither.
 */
int cpu_flags(unsigned *flags);

/* "built in; SIMD level ... (the CPU has ...)": the CPU backend's status line. */
const char *cpu_status(void);

/* The name of the highest level in `flags`: "avx512", "avx2" or "c". */
const char *cpu_level_name(unsigned flags);

/*
 * Parse a LATMC_CPU_MASK value into a mask; 0 on success, -1 when it is not one. Exposed
 * for the tests.
 */
int cpu_mask_parse(const char *value, unsigned *mask);

#endif
