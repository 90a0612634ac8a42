/*
 * The SIMD levels a kernels test compares with the C reference: which exist, which this
 * build has (meson passes the library's LATMC_HAVE_* to the tests), and which this CPU
 * can run. Shared by the per-model kernels tests.
 */
#ifndef LATMC_TESTS_SIMD_LEVELS_H
#define LATMC_TESTS_SIMD_LEVELS_H

#include <stdio.h>

#include "cpu_features.h"

#ifndef LATMC_HAVE_AVX2
#define LATMC_HAVE_AVX2 0
#endif
#ifndef LATMC_HAVE_AVX512
#define LATMC_HAVE_AVX512 0
#endif

enum { SIMD_LEVELS = 2 };
static const char *const level_name[SIMD_LEVELS] = { "avx2", "avx512" };
static const unsigned level_flag[SIMD_LEVELS] = { CPU_FLAG_AVX2,
                                                   CPU_FLAG_AVX2 | CPU_FLAG_AVX512 };
static const int level_built[SIMD_LEVELS] = { LATMC_HAVE_AVX2, LATMC_HAVE_AVX512 };

/* A level is compared when it is built and the CPU has it. */
static inline int level_runs(int level)
{
    return level_built[level] && (cpu_flags_detected() & level_flag[level]) == level_flag[level];
}

/* Print which levels the test compares and which it skips (and why); 0 when none runs,
 * so that main() can exit 77 (skipped). */
static inline int report_levels(const char *test)
{
    int any = 0;
    for (int level = 0; level < SIMD_LEVELS; level++) {
        const int ok = level_runs(level);
        any |= ok;
        printf("%s: level %s %s\n", test, level_name[level],
               ok ? "present: compared with the C reference"
                  : level_built[level] ? "not on this CPU: skipped" : "not built: skipped");
    }
    return any;
}

#endif
