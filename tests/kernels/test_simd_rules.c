/*
 * The vector functions of the SIMD kernels against their scalar originals, lane by lane,
 * bit for bit (simd_rules_avx2.c: the shared log, exp and sine/cosine, the phi^4 draw
 * conversions and hit, the Heisenberg heat bath, reflection and uniforms). The checks of
 * a level run only on a CPU that has it (this file is built without ISA flags and asks
 * first); with no such level the test exits 77 (skipped).
 */
#include <stdio.h>

#include "cpu_features.h"
#include "simd_rules.h"

int main(void)
{
    const unsigned have = cpu_flags_detected();
    if (!(have & CPU_FLAG_AVX2)) {
        printf("simd rules: no AVX2 on this CPU: skipped\n");
        return 77;
    }
    printf("simd rules: avx2 (avx512 kernels: none)\n");
    const long bad = simd_rules_check_avx2();
    printf("simd rules: %ld lanes differ\n", bad);
    return bad == 0 ? 0 : 1;
}
