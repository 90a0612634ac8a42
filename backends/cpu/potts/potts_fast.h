/*
 * Internal to the CPU backend: the Potts fast paths (SIMD levels, doc/PERFORMANCE.md).
 *
 * The C level runs the reference kernels (potts_sweep.c) on the natural site order. The
 * SIMD levels keep the states in a split layout instead: one array per colour,
 *
 *     sub[col][j],  j = floor(x / c) + (L_x / c) (y + L_y z)   (the within-colour index),
 *
 * so that the W sites of one colour whose random numbers come from W/4 consecutive Philox
 * blocks are W consecutive bytes, and every neighbour of them is W consecutive bytes of
 * another colour's array (one byte aside at the periodic x boundary). get/set_spins
 * convert; the chain stays that of doc/models/potts.md bit for bit.
 *
 * A colour pass is cut into chunks of W sites (j = W k .. W k + W - 1), W = 32 (AVX2) or
 * 64 (AVX-512). Threads take contiguous ranges of chunks; which chunk a thread takes never
 * changes a random number (they are named by j), so every thread count gives the same
 * configuration.
 *
 * Decisions. Every decision of the chain is `u < T` or `u >= U` for a 32-bit draw u and a
 * threshold T in [0, 2^32]. The kernels compare the top 16 bits of u with those of the
 * threshold (clamped to 2^32 - 1), 32 or 64 sites at once in bytes; when the top 16 bits
 * are equal (about one site in 2^16 per threshold) the site is redone by the shared scalar
 * rule of lib/potts_rules.h with the full draw. So the clamp and every rounding question
 * are settled by the reference code itself.
 *
 * Heat bath thresholds (q <= 3). The heat-bath state is a function of the neighbours'
 * state counts (n_0, .., n_{q-1}) and the draw u: state = #{k <= q-2 : u >= U_k}, U_k =
 * ceil(cum_k 2^32 / total) the first draw that reaches the cumulative weight cum_k
 * (lib/potts_thresholds.h, shared with the CUDA table kernels). U_k is tabulated per count
 * vector, indexed by hash = sum over neighbours of f(state), f = (2 ndim + 1, 1, 0) for
 * q = 3 and (1, 0) for q = 2. 4 <= q <= 9 on large lattices: per site, the thresholds of
 * its neighbour tuple (struct cpu_potts_hb_table), compared with the draw in one 8-lane
 * compare. Otherwise: the shared scalar rule per site, with vector random numbers
 * (documented in doc/PERFORMANCE.md).
 */
#ifndef LATMC_CPU_POTTS_FAST_H
#define LATMC_CPU_POTTS_FAST_H

#include <stdint.h>

#include "cpu_lattice.h"
#include "potts.h"
#include "potts_rules.h"
#include "potts_measure_modes.h"

/* Bytes before and after each colour array: chunk loads may reach W bytes beyond it. */
#define CPU_POTTS_PAD 64
/* Largest byte table the kernels look up (3 levels of 16 entries). */
#define CPU_POTTS_TABLE 48

/* Per-parameter tables of the fast paths, derived from struct latmc_potts_tables. */
struct cpu_potts_fast_tables {
    /* Metropolis: bytes 3 and 2 of min(T, 2^32 - 1), each XOR 0x80 (signed compares), at
     * index 3 (dn + 2 ndim) + dz + 1. */
    uint8_t metro_b3[CPU_POTTS_TABLE], metro_b2[CPU_POTTS_TABLE];
    int metro_levels;                       /* table levels of 16 entries in use */
    /* Heat bath, q <= 3: f(state) for the hash (states >= q: 0), and bytes 3 and 2 of
     * min(U_k, 2^32 - 1) XOR 0x80 for k = 0 .. q-2, at index hash. */
    uint8_t hb_f[16];
    uint8_t hb_b3[2][CPU_POTTS_TABLE], hb_b2[2][CPU_POTTS_TABLE];
    int hb_levels;
    int hb_vector;                          /* 1: q <= 3, the tables above are valid */
};

/*
 * Heat bath, 4 <= q <= 9: for every tuple of neighbour states (x+, x-, y+, y-[, z+, z-],
 * the digits of index = sum_d state_d q^d, q^(2 ndim) entries), the thresholds t_k of
 * lib/potts_thresholds.h, k = 0 .. q-2, clamped to 2^32 - 1, XOR 2^31 (signed compares),
 * padded to 8 words with 2^31 - 1 (never passed). The t_k do not decrease with k, so the
 * new state is the number of leading words the draw reaches; a draw of 2^32 - 1 (the
 * clamp) goes to the shared rule.
 */
struct cpu_potts_hb_table {
    uint32_t *entry;                        /* entries x 8 words, 32-byte aligned, or NULL */
    int64_t entries;
};

/* Whether a table pays for a lattice of nsites (it is rebuilt at each parameter change)
 * and fits (q^(2 ndim) <= 8192); 0 otherwise. */
int cpu_potts_hb_table_wanted(int ndim, int q, int64_t nsites);
/* (Re)build for the core's tables; LATMC_OK, or LATMC_ENOMEM without a message (then
 * h->entry is NULL and the kernels take the shared rule: only speed depends on it). */
int cpu_potts_hb_table_build(struct cpu_potts_hb_table *h, const struct latmc_potts_tables *t,
                             int ndim, int q);
void cpu_potts_hb_table_free(struct cpu_potts_hb_table *h);

/* Words of a Philox counter that are the same for every block of a pass with one value of
 * block >> 32, and the values the first rounds compute from them (potts_simd.h). */
struct cpu_potts_philox {
    uint32_t block_hi;                      /* block >> 32 these were made for */
    uint32_t k0[10], k1[10];                /* the round keys */
    uint32_t a1, a2, a3, a4, m0u0_hi, u3;   /* lib/philox_fold.h: a1..a4, M0 u0 */
};

/* One colour pass, as the SIMD kernels see it. */
struct cpu_potts_pass {
    const struct latmc_lattice *g;
    int colours, colour, q, ndim;
    int64_t per_row;                        /* P = L_x / c */
    int64_t per_colour;                     /* N / c */
    uint8_t *sub[3];                        /* the colour arrays (split layout) */
    const struct latmc_potts_tables *tables;  /* for the scalar rule */
    const struct cpu_potts_fast_tables *fast;
    const uint32_t *hb_entry;               /* struct cpu_potts_hb_table, or NULL */
    struct cpu_potts_philox rng[2];         /* sub 0 (proposal / heat bath), sub 1 (accept) */
    struct latmc_rng_name name[2];          /* their names (the step's, lib/step.h) */
    uint64_t seed;
    int scalar_every_site;                  /* tests: take the scalar rule at every site */
    /* The sites the pass updates (or measures) within its chunks: j_begin <= j < j_end,
     * 0 <= j_begin <= j_end <= per_colour (a whole colour: 0 and per_colour; a box: its
     * planes). A chunk only partly inside keeps the other lanes' states: its store writes
     * them back unchanged, so no other thread may run that chunk at the same time. */
    int64_t j_begin, j_end;
    /* Appended: the global within-colour number of local j = 0 (slab-only storage,
     * cpu_backend.h: origin plane x sites of the colour per plane, a multiple of every
     * chunk width, so chunks and Philox blocks line up; 0 for the whole lattice). The
     * draws of site j are those of j + j_origin; geometry and colours are local. */
    int64_t j_origin;
};

/* Returns the number of sites in chunks [chunk_begin, chunk_end) that changed. */
typedef uint64_t (*cpu_potts_pass_fn)(const struct cpu_potts_pass *p, int64_t chunk_begin,
                                      int64_t chunk_end);

/* Adds the satisfied +x, +y, +z bond terms of the sites of chunks [chunk_begin, chunk_end)
 * of one colour to *matches and their states to count[]. */
typedef void (*cpu_potts_measure_fn)(const struct cpu_potts_pass *p, int64_t chunk_begin,
                                     int64_t chunk_end, int64_t *matches, int64_t *count);

/* The dispatch table (cpu_features.h). width == 0: no fast path, the C reference runs. */
struct cpu_potts_dsp {
    int width;                              /* sites per chunk W */
    const char *level;
    cpu_potts_pass_fn metropolis, heatbath;
    cpu_potts_measure_fn measure;
    /* measure's bond terms alone (count[] untouched): with the Fourier modes, whose
     * projections give the populations */
    cpu_potts_measure_fn measure_bonds;
    cpu_potts_count_fn count_state; /* the projections' byte counting (all levels) */
};

void cpu_potts_dsp_init(struct cpu_potts_dsp *dsp, unsigned flags);
void cpu_potts_dsp_init_avx2(struct cpu_potts_dsp *dsp);
void cpu_potts_dsp_init_avx512(struct cpu_potts_dsp *dsp);

/* The level-independent parts (potts_fast.c). */
void cpu_potts_fast_tables_build(struct cpu_potts_fast_tables *f,
                                 const struct latmc_potts_tables *t, int ndim, int q);
void cpu_potts_philox_init(struct cpu_potts_philox *r, uint64_t seed,
                           struct latmc_rng_name name, uint32_t block_hi);

#endif
