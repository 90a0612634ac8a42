/* CPU feature detection for the SIMD dispatch (cpu_features.h). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"
#include "error.h"

#if defined(__x86_64__) || defined(__i386__)
#  include <cpuid.h>

/* The extended control register XCR0: which register states the OS saves. */
static unsigned long long read_xcr0(void)
{
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}

static unsigned detect(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    const int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, fma = (c >> 12) & 1;
    if (!osxsave || !avx)
        return 0;
    const unsigned long long xcr0 = read_xcr0();
    if ((xcr0 & 0x6) != 0x6) /* xmm and ymm state */
        return 0;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, a, b, c, d);
    const int avx2 = (b >> 5) & 1, bmi1 = (b >> 3) & 1, bmi2 = (b >> 8) & 1;
    const int avx512f = (b >> 16) & 1, avx512dq = (b >> 17) & 1, avx512bw = (b >> 30) & 1,
              avx512vl = (b >> 31) & 1;
    unsigned flags = 0;
    if (avx2 && fma && bmi1 && bmi2)
        flags |= CPU_FLAG_AVX2;
    /* opmask, upper halves of zmm0-15, zmm16-31 */
    if ((flags & CPU_FLAG_AVX2) && avx512f && avx512dq && avx512bw && avx512vl &&
        (xcr0 & 0xe0) == 0xe0)
        flags |= CPU_FLAG_AVX512;
    return flags;
}
#else
static unsigned detect(void)
{
    return 0;
}
#endif

static unsigned detected;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void detect_once(void)
{
    detected = detect();
}

int cpu_mask_parse(const char *value, unsigned *out)
{
    static const struct { const char *name; unsigned mask; } levels[] = {
        { "c", 0 }, { "avx2", CPU_FLAG_AVX2 }, { "avx512", CPU_FLAG_AVX2 | CPU_FLAG_AVX512 },
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strcmp(value, levels[i].name) == 0) {
            *out = levels[i].mask;
            return 0;
        }
    char *end;
    errno = 0;
    unsigned long v = strtoul(value, &end, 0);
    if (value[0] < '0' || value[0] > '9' || *end != '\0' || errno || v > 0xffffffffUL)
        return -1;
    *out = (unsigned)v;
    return 0;
}

unsigned cpu_flags_detected(void)
{
    pthread_once(&once, detect_once);
    return detected;
}

/* The mask is read at every call, not once: a program (latmc-bench) may create sims at
 * different levels, one after the other, by setting the variable in between. */
/* The mask LATMC_CPU_MASK asks for (all flags when unset); -1 when it is malformed. The
 * variable's value, or NULL, in *env. */
static int env_mask(unsigned *mask, const char **env)
{
    *mask = CPU_FLAG_ALL;
    *env = getenv("LATMC_CPU_MASK");
    return *env ? cpu_mask_parse(*env, mask) : 0;
}

int cpu_flags(unsigned *flags)
{
    unsigned mask;
    const char *env;
    *flags = 0;
    if (env_mask(&mask, &env) < 0)
        return latmc_fail(LATMC_EINVAL, "LATMC_CPU_MASK=\"%.40s\": not a SIMD level (c, avx2, "
                          "avx512) or a number", env);
    *flags = cpu_flags_detected() & mask;
    return LATMC_OK;
}

/* The SIMD levels this build has kernels of (meson's LATMC_HAVE_*; -Dsimd=false: none):
 * a level the CPU has but the build lacks runs the C kernels. */
static unsigned levels_built(void)
{
    unsigned built = 0;
#if defined(LATMC_HAVE_AVX2) && LATMC_HAVE_AVX2
    built |= CPU_FLAG_AVX2;
#endif
#if defined(LATMC_HAVE_AVX512) && LATMC_HAVE_AVX512
    built |= CPU_FLAG_AVX512;
#endif
    return built;
}

const char *cpu_status(void)
{
    static _Thread_local char text[240];
    unsigned mask;
    const char *env;
    const int bad = env_mask(&mask, &env) < 0;
    const unsigned built = levels_built();
    const unsigned runs = cpu_flags_detected() & mask &
                          (built | ~(unsigned)(CPU_FLAG_AVX2 | CPU_FLAG_AVX512));
    snprintf(text, sizeof text, "built in; SIMD level %s (the CPU has %s; levels built: c%s%s%s"
             "%.40s%s)", bad ? "none: sims are refused" : cpu_level_name(runs),
             cpu_level_name(cpu_flags_detected()), built & CPU_FLAG_AVX2 ? ", avx2" : "",
             built & CPU_FLAG_AVX512 ? ", avx512" : "", env ? "; LATMC_CPU_MASK=" : "",
             env ? env : "", bad ? ", not a level" : "");
    return text;
}

const char *cpu_level_name(unsigned flags)
{
    if (flags & CPU_FLAG_AVX512)
        return "avx512";
    if (flags & CPU_FLAG_AVX2)
        return "avx2";
    return "c";
}
