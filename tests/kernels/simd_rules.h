/* The per-level checks of test_simd_rules.c, each in a translation unit built for its ISA. */
#ifndef LATMC_TEST_SIMD_RULES_H
#define LATMC_TEST_SIMD_RULES_H

/* Lanes that differ from the scalar reference, over all checks (0: all bit-identical). */
long simd_rules_check_avx2(void);

#endif
