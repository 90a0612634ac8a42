/*
 * The SIMD levels a kernels test compares with the C reference: which exist, which this
 * build has (meson passes the library's LATMC_HAVE_* to the tests), and which this CPU
 * can run. Shared by the per-model kernels tests.
 */
#ifndef LATMC_TESTS_SIMD_LEVELS_H
#define LATMC_TESTS_SIMD_LEVELS_H

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

#endif
