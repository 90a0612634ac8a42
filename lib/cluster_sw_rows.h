/*
 * Internal to the Swendsen-Wang row passes: the pieces of a row that the 2D pass A
 * (lib/cluster_sw_rows.c) and the 3D one (lib/cluster_sw_planes.c) share, and the AVX2
 * steps (lib/cluster_sw_rows_avx2.c, on x86-64 with a GNU C compiler; each returns how far
 * it got in whole vector steps, and the caller finishes in C).
 */
#ifndef LATMC_LIB_CLUSTER_SW_ROWS_H
#define LATMC_LIB_CLUSTER_SW_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster_job.h"
#include "x86_avx2.h"

/* The words of draw buffer for `draws` consecutive draws that start anywhere in a block. */
size_t latmc_rows_draw_words(int64_t draws);

/* Join the clusters of a and b (union by the smaller root). */
void latmc_rows_unite(uint32_t *parent, uint32_t a, uint32_t b);

/* The draws of the row of L sites from site `base` of a lattice of `dirs` bond directions:
 * its bonds' into bond_draws, its sites' decisions' into decide_draws (whole Philox
 * blocks), *u and *ud at the row's first of each. */
void latmc_rows_row_draws(const struct latmc_cluster_job *job, uint64_t sweep, int64_t base,
                          int64_t L, int dirs, uint32_t *bond_draws, uint32_t *decide_draws,
                          const uint32_t **u, const uint32_t **ud);

/* The decisions of the L sites of a row as if each named its cluster (no field), from
 * their draws ud: Ising 1 keep, 0 flip; Potts the colour floor(u q / 2^32). */
void latmc_rows_decisions(const struct latmc_cluster_job *job, const uint32_t *ud, int64_t L,
                          uint8_t *t);

/* A row's runs along x: parent[base + x] = the start of x's run (hx: the row's x bonds,
 * hx[-1] = 0); with v_below, the bits of the bonds from below to search into need as
 * latmc_rows_need. */
void latmc_rows_runs(uint32_t *parent, int64_t base, const uint8_t *hx,
                     const uint8_t *hx_below, const uint8_t *v_below, int64_t L,
                     uint32_t *need);

/* Bit x of need ((L + 31) / 32 words): the bond from below at x (v_below[x]) is active and
 * not implied -- the bond from below at x - 1 active and x - 1 joined to x in both rows
 * (hx[x - 1], hx_below[x - 1]). Byte -1 of each reads 0. */
void latmc_rows_need(const uint8_t *hx, const uint8_t *hx_below, const uint8_t *v_below,
                     int64_t L, uint32_t *need);

/* 3D pass A on unit u (lib/cluster_sw_planes.c), its words and its face to the next unit
 * (the bonds of its last plane upwards, a byte per site of the plane). */
size_t latmc_cluster_sw_planes_words(const struct latmc_cluster_lattice *g);
void latmc_cluster_sw_planes_label(const struct latmc_cluster_job *job,
                                   struct latmc_cluster_work *w, uint64_t sweep, int u);
const uint8_t *latmc_cluster_sw_planes_face(const struct latmc_cluster_job *job, int u);

#ifdef LATMC_X86_AVX2
#  define LATMC_ROWS_X86 1

/* A row's bonds of sites [0, n) (n <= L - 1: the x bond's right end in the row): hx
 * (to x + 1) and vy (to the row above, su), 0 or 1, from the draws u[2 x + mu] and, where
 * e is not NULL, the row's +-J couplings e[2 x + mu]. */
int64_t latmc_rows_bonds_avx2(const uint8_t *si, const uint8_t *su, const uint32_t *u,
                              const int8_t *e, uint32_t last_draw, uint8_t flip, int64_t n,
                              uint8_t *hx, uint8_t *vy);

/* A 3D row's bonds of sites [0, n) (n <= L - 1): hx (to x + 1), vy (to the row above in
 * the plane, su) and vz (to the plane above, sv) from the draws u[3 x + mu] and, where e is
 * not NULL, the couplings e[3 x + mu]. */
int64_t latmc_rows_bonds3_avx2(const uint8_t *si, const uint8_t *su, const uint8_t *sv,
                               const uint32_t *u, const int8_t *e, uint32_t last_draw,
                               uint8_t flip, int64_t n, uint8_t *hx, uint8_t *vy,
                               uint8_t *vz);

/* latmc_rows_need of sites [0, n), whole words of 32. */
int64_t latmc_rows_need_avx2(const uint8_t *hx, const uint8_t *hx_below,
                             const uint8_t *v_below, int64_t n, uint32_t *need);

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
