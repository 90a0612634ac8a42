/*
 * The Ising layout and kernel table of the SIMD levels (issue "CPU fast paths").
 *
 * The C reference (ising_sweep.c) keeps one int8 per site in natural order and defines the
 * chain. The SIMD levels keep the same chain in a layout made for them, the "split rows":
 * every row (y, z) of the lattice is stored as two half-rows, the sites of even x and the
 * sites of odd x, one byte per site, 1 for spin +1 and 0 for -1. A half-row holds sites of
 * one colour only, in the order of their checkerboard index j = floor(x / 2) + (L_x / 2) row,
 * so that
 *   - the byte of site j of a colour is at a fixed offset from that of site j+1: one vector
 *     load gives 32 (AVX2) or 64 (AVX-512) consecutive sites of one colour, and draw j of
 *     the colour (lane j mod 4 of Philox block j / 4) belongs to the j-th byte;
 *   - the four (2D) or six (3D) neighbours of those sites are the same number of bytes in
 *     other half-rows, at offsets 0 and -1 or +1 along x, so the number of up neighbours k
 *     (the index of the decision tables, k = (n + 2 ndim) / 2) is a sum of bytes.
 * Each half-row is padded: byte -1 repeats its last site and byte L_x / 2 its first (the
 * periodic neighbours along x), refreshed by every kernel that writes the half-row; up to
 * 64 bytes after the half-row may be overwritten with anything (vector tails).
 * get/set_spins, the measurement and the hot start convert or read this layout, so nothing
 * outside the CPU backend sees it.
 *
 * +-J couplings (desc.couplings = BIMODAL) add a "bond plane" of the same geometry: the
 * byte of a site has bit mu set iff the bond of that site with its neighbour at +e_mu is
 * eps = -1 (eps[ndim i + mu] of latmc_sim_get_couplings), with the same periodic pads.
 * Since eps_ij s_j = +1 iff (byte of s_j) ^ (bond bit) = 1, the number of neighbours with
 * eps_ij s_j = +1 -- the table index k = (n + 2 ndim) / 2 of the coupled sum
 * (lib/ising_rules.h) -- is the sum of the neighbour bytes xor-ed with their bond bits.
 * The bonds to +e_mu are bits of the site's own byte, the bond to -e_mu is bit mu of the
 * byte of the neighbour at -e_mu, at the very offset the kernels read that neighbour's
 * spin from: 1 + ndim more loads per vector of sites. One byte per site rather than one
 * per bond: the bonds cost the caches as much as the spins do (three byte planes in 3D
 * pushed the wavefront's planes out of L2 and ran at half the uniform speed).
 */
#ifndef LATMC_CPU_ISING_SPLIT_H
#define LATMC_CPU_ISING_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.h"
#include "cpu_lattice.h"
#include "ising.h"

/* Bytes before a half-row's first site and at least after its last (alignment, pads, tails). */
#define CPU_ISING_SPLIT_PAD 64

struct cpu_ising_split {
    void *alloc;         /* what to free */
    uint8_t *base;       /* half-row 0, 64-byte aligned, at base + CPU_ISING_SPLIT_PAD */
    int ndim;
    int64_t lx, ly, lz;  /* lz = 1 in 2D */
    int64_t half;        /* L_x / 2: sites per half-row */
    int64_t rows;        /* L_y L_z */
    int64_t stride;      /* bytes from one half-row to the next, a multiple of 64 */
    /* +-J: the bond plane (above), half-row r, par at the spins' offset; NULL: uniform */
    void *bond_alloc;
    uint8_t *bonds;
    /* Appended: slab-only storage (cpu_backend.h, struct cpu_slab). The rows held are
     * those of a slab and its halos; local row r is global row r + row_origin (row_origin
     * = the slab's origin plane times the rows of a plane; may be negative, but never for
     * a row a kernel updates), which names the random numbers, and plane_parity = origin
     * & 1 turns a local plane's colours into the global ones. global_rows: the whole
     * lattice's rows (for the wrap of the halo rows' names at the hot start). All 0 but
     * global_rows = rows for a sim that holds the whole lattice. */
    int64_t row_origin;
    int plane_parity;
    int64_t global_rows;
};

/* The first site of half-row `par` (0: even x, 1: odd x) of row r = y + L_y z. */
static inline uint8_t *cpu_ising_split_row(const struct cpu_ising_split *s, int64_t r, int par)
{
    return s->base + (2 * r + par) * s->stride + CPU_ISING_SPLIT_PAD;
}

/* Byte j = 0 of half-row (r, par) of the bond plane (+-J sims only). */
static inline uint8_t *cpu_ising_split_bond_row(const struct cpu_ising_split *s, int64_t r,
                                                int par)
{
    return s->bonds + (2 * r + par) * s->stride + CPU_ISING_SPLIT_PAD;
}

/*
 * The decision tables in the kernels' form, derived from the core's tables when a
 * parameter changes (ising_params_changed), not at every sweep.
 *
 * The decision "u < T" (T in [0, 2^32]) is taken as "not (u > T - 1)", with T - 1 in 32
 * bits, and a "never" mask for the entries with T = 0 (beta so large that exp underflows).
 * The kernels compare signed, so both sides carry the sign bit flipped. Table index: heat
 * bath k, Metropolis k + 8 [s == +1], always below 16 (one _mm256_shuffle_epi8 per byte).
 */
struct cpu_ising_decisions {
    uint32_t below[16];     /* T - 1 (32 bits) for each table index (AVX-512: compared
                               unsigned) */
    uint8_t plane[4][16];   /* byte b of (T - 1) ^ 0x80000000 (AVX2: bytes, signed) */
    uint8_t never[16];      /* 0xff where T = 0: never accept */
    int any_never;          /* some entry is 0: the kernels apply `never` */
    int algorithm;          /* LATMC_ALGO_METROPOLIS or LATMC_ALGO_HEATBATH */
};

void cpu_ising_decisions_build(struct cpu_ising_decisions *d, const struct latmc_ising_tables *t,
                               int ndim, int algorithm);

/*
 * One colour pass as the kernels need it: the decision tables and the Philox counter
 * words. Filled by cpu_ising_pass_setup().
 */
struct cpu_ising_pass {
    struct cpu_ising_decisions dec;
    int colour;
    uint64_t seed;
    struct latmc_rng_name name; /* the step's draws (lib/step.h) */
    /*
     * The level's own ready-to-use form of the above (round keys and tables as vectors),
     * written by dsp->prepare once per pass, so that colour_rows can be called for a
     * single row at no setup cost (the sweep's wavefront order).
     */
    _Alignas(64) unsigned char prepared[2048];
};

void cpu_ising_pass_setup(struct cpu_ising_pass *p, const struct cpu_ising_decisions *d,
                          uint64_t seed, const struct latmc_step *step);

/*
 * The Ising kernel table (cpu_features.h, dav1d's pattern): the C entries first, then
 * each SIMD level the flags allow overwrites them; `level` names the highest. The C level
 * has the generator entries (draws, draws_xor) only: prepare and colour_rows are the split
 * layout's, which only the SIMD levels use (NULL at the C level, which runs the reference
 * sweep on the natural layout, ising_kernels.c).
 */
/*
 * The measurement of rows [r0, r1) (ising_measure_tmpl.h, each level's vectors): their
 * unequal bonds (+-J: s->bonds, bonds whose sign does not favour the pair) added to
 * *unequal and their up spins to *up; with cols not NULL, also each row's up spins in
 * row_up[r - r0] and each up site one more in its column's byte counter, cols[j] for even
 * x = 2 j, cols[half + j] for odd x = 2 j + 1 (modulo 256: at most 255 rows a call
 * between the caller's flushes).
 */
typedef void (*cpu_ising_measure_rows_fn)(const struct cpu_ising_split *s, int64_t r0,
                                          int64_t r1, uint8_t *cols, uint64_t *row_up,
                                          uint64_t *unequal, uint64_t *up);

struct cpu_ising_dsp {
    /* Fill p->prepared from the rest of *p. */
    void (*prepare)(struct cpu_ising_pass *p);
    /* Update the sites of p->colour in rows [r0, r1); returns how many spins changed.
     * With s->bonds set, the +-J variant (neighbour bytes xor-ed with the bond bytes). */
    uint64_t (*colour_rows)(const struct cpu_ising_split *s, const struct cpu_ising_pass *p,
                            int64_t r0, int64_t r1);
    /*
     * out[m] = lane m mod 4 of the Philox counter ((first_block + m / 4) mod 2^32, the
     * words c1, c2, c3 of `name`) for m < 32 n: latmc_rng_name_block's draws while the
     * blocks stay below 2^32; first_block a multiple of 8. The level's generator alone,
     * for the kernels test and the Philox ceiling of doc/PERFORMANCE.md.
     */
    void (*draws)(uint64_t seed, struct latmc_rng_name name, uint64_t first_block, int64_t n,
                  uint32_t *out);
    /*
     * The generator alone as the update kernels run it, 32 n draws xored together (n even;
     * the name whose counter words 1..3 are 0): the Philox ceiling of doc/PERFORMANCE.md
     * (`checkasm --ceiling`).
     */
    uint32_t (*draws_xor)(uint64_t seed, uint64_t first_block, int64_t n);
    /* The split layout's measurement of rows (every level, the C level's too). */
    cpu_ising_measure_rows_fn measure_rows;
    const char *level;      /* "c", "avx2", "avx512": which kernels these are */
};

void cpu_ising_dsp_init(struct cpu_ising_dsp *dsp, unsigned flags);
void cpu_ising_dsp_init_avx2(struct cpu_ising_dsp *dsp);
void cpu_ising_dsp_init_avx512(struct cpu_ising_dsp *dsp);

/* Layout and whole-lattice operations (ising_split.c, plain C, threaded over rows). */
int cpu_ising_split_alloc(struct cpu_ising_split *s, const struct latmc_lattice *g);
void cpu_ising_split_free(struct cpu_ising_split *s);
/* +-J: allocate the bond plane (then the kernels take the coupled variant) and fill it
 * from eps[ndim i + mu] = +-1; bonds_from_eps again after every change of eps. */
int cpu_ising_split_alloc_bonds(struct cpu_ising_split *s);
void cpu_ising_split_bonds_from_eps(const struct cpu_ising_split *s, const int8_t *eps,
                                    int n_threads);
void cpu_ising_split_from_natural(const struct cpu_ising_split *s, const int8_t *spins,
                                  int n_threads);
void cpu_ising_split_to_natural(const struct cpu_ising_split *s, int8_t *spins, int n_threads);
void cpu_ising_split_cold(const struct cpu_ising_split *s);
void cpu_ising_split_hot(const struct cpu_ising_split *s, uint64_t seed, int n_threads);
/* The sums, measured by `rows` (a level's measure_rows); with s->bonds set the +-J sums
 * (bonds = sum eps_ij s_i s_j), as cpu_ising_measure_coupled. */
struct latmc_ising_sums cpu_ising_split_measure(const struct cpu_ising_split *s,
                                                cpu_ising_measure_rows_fn rows, int n_threads);
/* Rows [r0, r1) alone: their sums (a tile of the reduction, as cpu_ising_measure_rows),
 * and their spins from / to natural order (spins[0] is the first site of row r0). */
struct latmc_ising_sums cpu_ising_split_measure_rows(const struct cpu_ising_split *s,
                                                     cpu_ising_measure_rows_fn rows,
                                                     int64_t r0, int64_t r1);
void cpu_ising_split_rows_from_natural(const struct cpu_ising_split *s, const int8_t *spins,
                                       int64_t r0, int64_t r1);
void cpu_ising_split_rows_to_natural(const struct cpu_ising_split *s, int8_t *spins,
                                     int64_t r0, int64_t r1);
/*
 * The boxes of a plan (lib/box.h; units: rows in 2D, planes z in 3D, boxes in order, each
 * at least 2 units): boxes_interior is the LATMC_STEP_PAIR_INTERIOR part (colour 0 on the
 * boxes, colour 1 on all their units but each box's first and last), boxes_border the
 * LATMC_STEP_PAIR_BORDER part (colour 1 on those), run after the interior of every box;
 * boxes_interior with borders_too is both (LATMC_STEP_PAIR_WHOLE: the boxes share one
 * memory, so colour 1 of a box's ends needs only the team's barrier after colour 0).
 * Each runs team member `team`'s share (cpu_omp.h) and returns how many spins it changed.
 */
struct cpu_team;

/*
 * The two colour passes of a fused pair as these run them: rows(run, s, c, r0, r1) updates
 * colour c of local rows [r0, r1) of s (c = 0: the pair's first step, 1: its second), as
 * one team member alone, and returns how many spins changed. A pass may be called for one
 * row at a time, so the runner holds both passes prepared. Chain 0: cpu_ising_pair_simd
 * below; the bit-sliced decisions: cpu_ising_dec_pair (ising_decisions.h).
 */
struct cpu_ising_pair_runner {
    uint64_t (*rows)(struct cpu_ising_pair_runner *run, const struct cpu_ising_split *s, int c,
                     int64_t r0, int64_t r1);
    /* the wavefront's calls take at least this many sites of a colour (whole units) where
     * it can: rows of a few sites would leave the runner's batches part empty */
    int64_t min_sites;
};

/* Chain 0's pair at a SIMD level: dsp->colour_rows on the pair's two prepared passes. */
struct cpu_ising_pair_simd {
    struct cpu_ising_pair_runner runner; /* first */
    const struct cpu_ising_dsp *dsp;
    struct cpu_ising_pass pass[2];
};
void cpu_ising_pair_simd_setup(struct cpu_ising_pair_simd *p, const struct cpu_ising_dsp *dsp,
                               const struct cpu_ising_decisions *d, uint64_t seed,
                               const struct latmc_step pair[2]);

uint64_t cpu_ising_split_boxes_interior(const struct cpu_ising_split *s,
                                        struct cpu_ising_pair_runner *run,
                                        const struct latmc_box *boxes, int n_boxes,
                                        bool borders_too,
                                        const struct cpu_team *team);
uint64_t cpu_ising_split_boxes_border(const struct cpu_ising_split *s,
                                      struct cpu_ising_pair_runner *run,
                                      const struct latmc_box *boxes, int n_boxes,
                                      const struct cpu_team *team);

/*
 * The same fused pair (LATMC_STEP_PAIR_WHOLE) on boxes with their own memory (cpu_boxes.c):
 * box i (boxes[i], global units) is held by split_of(ctx, i), whose local unit u is global
 * unit u + row_origin / (rows per unit), with one halo unit each side. Each member writes the border units of its
 * band into the neighbouring boxes' halos, colour by colour, as soon as they are final
 * (colour 0 before the sweep's one barrier, colour 1 before the caller's), so the boxes
 * meet as often as one memory does. Returns how many spins member `team` changed.
 */
typedef const struct cpu_ising_split *(*cpu_ising_split_of)(void *ctx, int box);
uint64_t cpu_ising_split_own_boxes(cpu_ising_split_of split_of, void *ctx,
                                   struct cpu_ising_pair_runner *run,
                                   const struct latmc_box *boxes, int n_boxes,
                                   const struct cpu_team *team);

#endif
