/*
 * The phi^4 kernel table of the CPU backend (cpu_features.h: C reference first, then
 * overwritten by each SIMD level the CPU has), and the field layout the SIMD levels use.
 *
 * Colour-transposed layout: each row (fixed y, z) of L_x values is stored as ncolours
 * sub-rows of n = L_x / ncolours values, x = ncolours m + r at position r n + m of its
 * row. The sites of one colour in one row (all x with the same r) are then contiguous and
 * in the order of their within-colour numbers j (which name their random numbers), and
 * every neighbour a site's energy change reads -- x +- 1, 2 (the sub-row r +- 1, 2, shifted
 * by one place where it wraps), other rows (the same r) -- is a contiguous run too: whole
 * vectors load where the reference gathers with stride ncolours. The chain is the same
 * (doc/models/phi4.md); only the storage differs, so get/set_spins and the measurement
 * convert. The buffer has PHI4_PAD values of slack before and after, which the vector
 * loads at the row ends may touch (their values are then replaced).
 */
#ifndef LATMC_CPU_PHI4_DSP_H
#define LATMC_CPU_PHI4_DSP_H

#include <stdbool.h>
#include <stdint.h>

#include "phi4_lattice.h"
#include "rng_streams.h" /* struct latmc_rng_name */

/* (the AVX-512 level's loads reach 16 values past a row's ends: 32 leaves room) */
enum { PHI4_PAD = 32 };

struct cpu_team;

struct cpu_phi4_dsp {
    const char *level;   /* "c", "avx2", "avx512": which kernels these are */
    bool transposed;     /* the field is stored colour-transposed (above), else natural */
    /* One step of the plan on the boxes' numbers, a team member's share, as
     * cpu_phi4_step_f/_d (phi4_ref.h). */
    uint64_t (*step_f)(const struct phi4_geom *g, float *phi, const struct latmc_phi4_tables *t,
                       uint64_t seed, struct latmc_rng_name name, int colour,
                       const struct phi4_range *boxes, int n_boxes, const struct cpu_team *team);
    uint64_t (*step_d)(const struct phi4_geom *g, double *phi, const struct latmc_phi4_tables *t,
                       uint64_t seed, struct latmc_rng_name name, int colour,
                       const struct phi4_range *boxes, int n_boxes, const struct cpu_team *team);
    /* The chunk schedule (phi4_chunks.c): colour `colour` of the step named `name` on the
     * numbers of the segments segs[0 .. n_segs), by the calling thread alone (no team, no
     * OpenMP construct); returns the accepted hits. Each segment lies in one row (the
     * colour's numbers of one row of a chunk), and the segments of one call are disjoint;
     * the order of the numbers does not matter (sites of one colour do not interact), so
     * this is cpu_phi4_step_f/_d on boxes = the segments, with the SIMD levels' groups
     * gathered from the segments instead of from consecutive numbers (two consecutive
     * segments of W/2 numbers, each from a multiple of W/2, share one group). */
    uint64_t (*segments_f)(const struct phi4_geom *g, float *phi,
                           const struct latmc_phi4_tables *t, uint64_t seed,
                           struct latmc_rng_name name, int colour, const struct phi4_range *segs,
                           int n_segs);
    uint64_t (*segments_d)(const struct phi4_geom *g, double *phi,
                           const struct latmc_phi4_tables *t, uint64_t seed,
                           struct latmc_rng_name name, int colour, const struct phi4_range *segs,
                           int n_segs);
};

void cpu_phi4_dsp_init(struct cpu_phi4_dsp *dsp, unsigned simd_flags);
/* The flags a sim on geometry g builds its table with: simd_flags without AVX-512 where
 * its 16-site groups would straddle the rows that AVX2's 8-site groups fill (L_x /
 * ncolours a multiple of 8 but not of 16, e.g. 3D 64^3: every group would take the
 * row-by-row path). Every level computes the same chain: this chooses speed only. */
unsigned cpu_phi4_dsp_flags(const struct phi4_geom *g, unsigned simd_flags);
/* The same for a sim on the chunk schedule whose segments hold s numbers of a colour
 * (cpu_phi4_chunk_segment): the SIMD levels fill a group of W with one segment's W
 * numbers, or with two segments of W/2 (paired groups, phi4_simd_tmpl.h), so s = 8
 * (b_x = 64 with 8 colours) takes AVX-512 and s = 4 (b_x = 32) AVX2; otherwise the rule
 * above on s (s a multiple of 8 but not of 16, e.g. 24: AVX2). */
unsigned cpu_phi4_chunk_dsp_flags(int64_t s, unsigned simd_flags);
void cpu_phi4_dsp_init_avx2(struct cpu_phi4_dsp *dsp);   /* in phi4_avx2.c (-mavx2) */
void cpu_phi4_dsp_init_avx512(struct cpu_phi4_dsp *dsp); /* in phi4_avx512.c */
/* How many floats with bit patterns [first, last] a level's quick logarithm misses by more
 * than its bound (phi4_vec_avx2.h, phi4_vec_avx512.h: two forms of the polynomial; the test
 * checks every unit value on each). */
int64_t cpu_phi4_avx2_logq_violations(uint32_t first, uint32_t last);
int64_t cpu_phi4_avx512_logq_violations(uint32_t first, uint32_t last);
/* How many draws r in [first, last] (W consecutive every `step`) give a quick logarithm of
 * the level's quick unit value beyond the bound its decision uses (phi4_vec_hit.h). */
int64_t cpu_phi4_avx2_unitq_violations(uint64_t first, uint64_t last, uint64_t step);
int64_t cpu_phi4_avx512_unitq_violations(uint64_t first, uint64_t last, uint64_t step);

/* Position of site (x, row) in the colour-transposed layout. */
static inline int64_t phi4_transposed_pos(const struct phi4_geom *g, int64_t x, int64_t row)
{
    const int nc = g->colouring.ncolours;
    return row * g->lat.lx + (x % nc) * (g->lat.lx / nc) + x / nc;
}

/* Natural order <-> colour-transposed layout (`size` bytes per value: 4 or 8). */
void cpu_phi4_to_transposed(const struct phi4_geom *g, const void *natural, void *transposed,
                            int size, int n_threads);
void cpu_phi4_from_transposed(const struct phi4_geom *g, const void *transposed, void *natural,
                              int size, int n_threads);
/* The same for rows [r0, r1) only (row = y + L_y z): `natural` holds just those rows in
 * natural order, `transposed` is the whole field. */
void cpu_phi4_rows_to_transposed(const struct phi4_geom *g, const void *natural, void *transposed,
                                 int size, int64_t r0, int64_t r1, int n_threads);
void cpu_phi4_rows_from_transposed(const struct phi4_geom *g, const void *transposed,
                                   void *natural, int size, int64_t r0, int64_t r1,
                                   int n_threads);

#endif
