/*
 * Whether the CPU runs AVX2, for the lib/ functions that carry an AVX2 form of their own
 * (`__attribute__((target("avx2")))`, compiled for every x86-64 by a GNU C compiler and
 * called only where latmc_have_avx2() says so): the cluster draws' batches
 * (lib/cluster_draws.c), the Swendsen-Wang row passes (lib/cluster_sw_rows_avx2.c) and the
 * Fourier modes' rows (lib/modes_phi4_avx2.c, lib/modes_heisenberg_avx2.c).
 */
#ifndef LATMC_X86_AVX2_H
#define LATMC_X86_AVX2_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__)
#  define LATMC_X86_AVX2 1

/* Whether the CPU runs AVX2 (decided once). */
bool latmc_have_avx2(void);
#endif

#endif
