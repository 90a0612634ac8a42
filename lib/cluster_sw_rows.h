/*
 * Internal: the AVX2 steps of the Swendsen-Wang row passes (lib/cluster_sw_rows_avx2.c),
 * on x86-64 with a GNU C compiler. Each returns how far it got (whole vector steps); the
 * caller finishes in C.
 */
#ifndef LATMC_LIB_CLUSTER_SW_ROWS_H
#define LATMC_LIB_CLUSTER_SW_ROWS_H

#include <stdbool.h>
#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#  define LATMC_ROWS_X86 1

/* Whether the CPU runs AVX2 (decided once). */
bool latmc_rows_have_avx2(void);

/* A row's bonds of sites [0, n) (n <= L - 1: the x bond's right end in the row): hx
 * (to x + 1) and vy (to the row above, su), 0 or 1, from the draws u[2 x + mu] and, where
 * e is not NULL, the row's +-J couplings e[2 x + mu]. */
int64_t latmc_rows_bonds_avx2(const uint8_t *si, const uint8_t *su, const uint32_t *u,
                              const int8_t *e, uint32_t last_draw, uint8_t flip, int64_t n,
                              uint8_t *hx, uint8_t *vy);

/* Ising decisions of sites [0, n) from their draws: 1 keep (u < 2^31), 0 flip. */
int64_t latmc_rows_keep_avx2(const uint32_t *ud, int64_t n, uint8_t *t);

/* A row's run starts into parent[base + x] and the bits of the bonds from below to search
 * into need (none without vy_below), sites [0, n); *run: the start at the returned x - 1
 * (base where it returns 0). */
int64_t latmc_rows_runs_avx2(uint32_t *parent, int64_t base, const uint8_t *hx,
                             const uint8_t *hx_below, const uint8_t *vy_below, int64_t n,
                             uint32_t *need, uint32_t *run);

/* Pass B of unit [start, end) from start, without sizes and counting sizes: returns the
 * sites changed, *next the first site left. */
uint64_t latmc_rows_flip_avx2(const uint32_t *parent, uint8_t *table, uint8_t *s, int potts,
                              uint32_t start, uint32_t end, uint32_t *next);
uint64_t latmc_rows_count_avx2(uint32_t *parent, const uint8_t *table, uint8_t *s, int potts,
                               uint32_t *size, uint32_t start, uint32_t end, uint32_t *next);
#endif

#endif /* LATMC_LIB_CLUSTER_SW_ROWS_H */
