/* The CPU's AVX2, asked once (lib/x86_avx2.h). */
#include "x86_avx2.h"

#ifdef LATMC_X86_AVX2
bool latmc_have_avx2(void)
{
    static int known; /* 0 not yet, 1 no, 2 yes (a race stores the same value) */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
        __builtin_cpu_init();
        k = __builtin_cpu_supports("avx2") ? 2 : 1;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 2;
}
#else
typedef int latmc_x86_avx2_unused; /* ISO C: a translation unit declares something */
#endif
