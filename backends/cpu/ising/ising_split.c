/*
 * The split-row Ising layout of the SIMD levels (ising_split.h): allocation, conversion to
 * and from the natural order, cold and hot starts, the measurement, the decision tables of
 * a colour pass and the threaded sweep driver. Plain C, built for every CPU; the update
 * kernels themselves are in ising_avx2.c and ising_avx512.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"
#include "cpu_omp.h"
#include "error.h"
#include "ising_rules.h" /* LATMC_ALGO_*, latmc_rng_block */
#include "ising_split.h"

/* ---- the kernel table ---- */

/* The C level's generator entries: the scalar Philox (lib/philox.h) by the table's
 * contract (ising_split.h), block numbers mod 2^32 in counter word 0. */
static void draws_c(uint64_t seed, struct latmc_rng_name name, uint64_t first_block, int64_t n,
                    uint32_t *out)
{
    const latmc_philox_key key = latmc_rng_key(seed);
    for (int64_t b = 0; b < 8 * n; b++) {
        const latmc_philox_ctr cnt = { { (uint32_t)(first_block + (uint64_t)b), name.c1,
                                         name.c2, name.c3 } };
        const latmc_philox_ctr u = latmc_philox4x32_10(cnt, key);
        memcpy(out + 4 * b, u.v, sizeof u.v);
    }
}

static uint32_t draws_xor_c(uint64_t seed, uint64_t first_block, int64_t n)
{
    const latmc_philox_key key = latmc_rng_key(seed);
    uint32_t x = 0;
    for (int64_t b = 0; b < 8 * n; b++) {
        const latmc_philox_ctr cnt = { { (uint32_t)(first_block + (uint64_t)b), 0, 0, 0 } };
        const latmc_philox_ctr u = latmc_philox4x32_10(cnt, key);
        x ^= u.v[0] ^ u.v[1] ^ u.v[2] ^ u.v[3];
    }
    return x;
}

/* The C level's measurement of split rows (below, from ising_measure_tmpl.h). */
static void measure_rows_c(const struct cpu_ising_split *s, int64_t r0, int64_t r1,
                           uint8_t *cols, uint64_t *row_up, uint64_t *unequal, uint64_t *up);

void cpu_ising_dsp_init(struct cpu_ising_dsp *dsp, unsigned flags)
{
    /* The C level: the generator entries and the split rows' measurement (checkasm's
     * reference level). The split layout is the SIMD levels'; at the C level (prepare and
     * colour_rows NULL) ising_kernels.c runs the reference sweep on the natural layout. */
    memset(dsp, 0, sizeof *dsp);
    dsp->draws = draws_c;
    dsp->draws_xor = draws_xor_c;
    dsp->measure_rows = measure_rows_c;
    dsp->level = "c";
    CPU_DSP_LEVELS(cpu_ising_dsp_init, dsp, flags);
}

/* ---- decision tables of one pass ---- */

void cpu_ising_decisions_build(struct cpu_ising_decisions *d, const struct latmc_ising_tables *t,
                               int ndim, int algorithm)
{
    memset(d, 0, sizeof *d);
    d->algorithm = algorithm;
    for (int idx = 0; idx < 16; idx++) {
        const int k = idx & 7, up = idx >> 3;
        uint64_t thr = 0; /* indices no site can have: never read, any value */
        if (k <= 2 * ndim)
            thr = algorithm == LATMC_ALGO_HEATBATH ? (up ? 0 : t->heatbath[k])
                                                   : t->metropolis[up][k];
        const int reachable = k <= 2 * ndim && (algorithm != LATMC_ALGO_HEATBATH || !up);
        /* accept iff u < thr iff not (u > thr - 1). thr = 0 wraps to "always", so that a
         * kernel that forgot the never mask fails the kernels test at once. */
        d->below[idx] = (uint32_t)(thr - 1);
        const uint32_t v = d->below[idx] ^ 0x80000000u;
        for (int b = 0; b < 4; b++)
            d->plane[b][idx] = (uint8_t)(v >> (8 * b));
        if (thr == 0) {
            d->never[idx] = 0xff;
            d->any_never |= reachable;
        }
    }
}

void cpu_ising_pass_setup(struct cpu_ising_pass *p, const struct cpu_ising_decisions *d,
                          uint64_t seed, const struct latmc_step *step)
{
    memset(p, 0, offsetof(struct cpu_ising_pass, prepared));
    p->dec = *d;
    p->colour = step->colour;
    p->seed = seed;
    p->name = step->rng; /* the kernels fold it per value of block >> 32 */
}

/* ---- layout ---- */

int cpu_ising_split_alloc(struct cpu_ising_split *s, const struct latmc_lattice *g)
{
    memset(s, 0, sizeof *s);
    s->ndim = g->ndim;
    s->lx = g->lx;
    s->ly = g->ly;
    s->lz = g->lz;
    s->half = g->lx / 2;
    s->rows = g->ly * g->lz;
    s->global_rows = s->rows;
    s->stride = (s->half + 2 * CPU_ISING_SPLIT_PAD + 63) / 64 * 64;
    /* zeroed: the bytes past each half-row that vector tails read are defined */
    const size_t bytes = (size_t)(2 * s->rows) * (size_t)s->stride + 64;
    s->alloc = calloc(1, bytes);
    if (!s->alloc)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of spins", bytes);
    s->base = (uint8_t *)(((uintptr_t)s->alloc + 63) & ~(uintptr_t)63);
    return LATMC_OK;
}

void cpu_ising_split_free(struct cpu_ising_split *s)
{
    free(s->alloc);
    free(s->bond_alloc);
    s->alloc = s->bond_alloc = NULL;
    s->base = s->bonds = NULL;
}

int cpu_ising_split_alloc_bonds(struct cpu_ising_split *s)
{
    /* zeroed: the tails that vector loads read past each half-row are defined */
    const size_t bytes = (size_t)(2 * s->rows) * (size_t)s->stride + 64;
    s->bond_alloc = calloc(1, bytes);
    if (!s->bond_alloc)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of couplings",
                          bytes);
    s->bonds = (uint8_t *)(((uintptr_t)s->bond_alloc + 63) & ~(uintptr_t)63);
    return LATMC_OK;
}

/* The periodic neighbours along x of a half-row's ends (ising_split.h). */
static inline void refresh_pads(const struct cpu_ising_split *s, uint8_t *h)
{
    h[-1] = h[s->half - 1];
    h[s->half] = h[0];
}

/* Row r from its sites in natural order, in[0 .. L_x). */
static void row_from_natural_at(const struct cpu_ising_split *s, const int8_t *in, int64_t r)
{
    uint8_t *even = cpu_ising_split_row(s, r, 0), *odd = cpu_ising_split_row(s, r, 1);
    for (int64_t j = 0; j < s->half; j++) {
        even[j] = in[2 * j] > 0;
        odd[j] = in[2 * j + 1] > 0;
    }
    refresh_pads(s, even);
    refresh_pads(s, odd);
}

static void row_from_natural(const struct cpu_ising_split *s, const int8_t *spins, int64_t r)
{
    row_from_natural_at(s, spins + r * s->lx, r);
}

static void row_to_natural_at(const struct cpu_ising_split *s, int8_t *out, int64_t r)
{
    const uint8_t *even = cpu_ising_split_row(s, r, 0), *odd = cpu_ising_split_row(s, r, 1);
    for (int64_t j = 0; j < s->half; j++) {
        out[2 * j] = (int8_t)(2 * even[j] - 1);
        out[2 * j + 1] = (int8_t)(2 * odd[j] - 1);
    }
}

static void row_to_natural(const struct cpu_ising_split *s, int8_t *spins, int64_t r)
{
    row_to_natural_at(s, spins + r * s->lx, r);
}

void cpu_ising_split_rows_from_natural(const struct cpu_ising_split *s, const int8_t *spins,
                                       int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; r++)
        row_from_natural_at(s, spins + (r - r0) * s->lx, r);
}

void cpu_ising_split_rows_to_natural(const struct cpu_ising_split *s, int8_t *spins,
                                     int64_t r0, int64_t r1)
{
    for (int64_t r = r0; r < r1; r++)
        row_to_natural_at(s, spins + (r - r0) * s->lx, r);
}

/* The bond byte of site i: bit mu set iff eps[ndim i + mu] = -1 (ising_split.h). */
static inline uint8_t bond_byte(const int8_t *e, int nd)
{
    unsigned b = 0;
    for (int mu = 0; mu < nd; mu++)
        b |= (unsigned)(e[mu] < 0) << mu;
    return (uint8_t)b;
}

/* A half-row pair's bond bytes, nd a constant at each call below so that the loop over mu
 * unrolls (with nd a variable the conversion cost a creation as much as the draw). */
static inline void bonds_of_row(uint8_t *even, uint8_t *odd, const int8_t *in, int64_t half,
                                int nd)
{
    for (int64_t j = 0; j < half; j++) {
        even[j] = bond_byte(in + nd * (2 * j), nd);
        odd[j] = bond_byte(in + nd * (2 * j + 1), nd);
    }
}

static void row_bonds_from_eps(const struct cpu_ising_split *s, const int8_t *eps, int64_t r)
{
    const int nd = s->ndim;
    const int8_t *in = eps + nd * s->lx * r;
    uint8_t *even = cpu_ising_split_bond_row(s, r, 0), *odd = cpu_ising_split_bond_row(s, r, 1);
    if (nd == 2)
        bonds_of_row(even, odd, in, s->half, 2);
    else
        bonds_of_row(even, odd, in, s->half, 3);
    refresh_pads(s, even);
    refresh_pads(s, odd);
}

void cpu_ising_split_bonds_from_eps(const struct cpu_ising_split *s, const int8_t *eps,
                                    int n_threads)
{
    const int64_t rows = s->rows;
    if (!cpu_use_threads(n_threads, rows * s->lx)) {
        for (int64_t r = 0; r < rows; r++)
            row_bonds_from_eps(s, eps, r);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t r = 0; r < rows; r++)
        row_bonds_from_eps(s, eps, r);
}

void cpu_ising_split_from_natural(const struct cpu_ising_split *s, const int8_t *spins,
                                  int n_threads)
{
    const int64_t rows = s->rows;
    if (!cpu_use_threads(n_threads, rows * s->lx)) {
        for (int64_t r = 0; r < rows; r++)
            row_from_natural(s, spins, r);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t r = 0; r < rows; r++)
        row_from_natural(s, spins, r);
}

void cpu_ising_split_to_natural(const struct cpu_ising_split *s, int8_t *spins, int n_threads)
{
    const int64_t rows = s->rows;
    if (!cpu_use_threads(n_threads, rows * s->lx)) {
        for (int64_t r = 0; r < rows; r++)
            row_to_natural(s, spins, r);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t r = 0; r < rows; r++)
        row_to_natural(s, spins, r);
}

void cpu_ising_split_cold(const struct cpu_ising_split *s)
{
    for (int64_t r = 0; r < s->rows; r++)
        for (int par = 0; par < 2; par++)
            memset(cpu_ising_split_row(s, r, par) - 1, 1, (size_t)s->half + 2);
}

/*
 * Hot start of row r: site i = x + L_x r takes lane i mod 4 of INIT block i / 4 (sweep 0,
 * phase 0, sub 0), +1 when the draw's top bit is clear -- latmc_ising_hot_block's rule.
 */
static void row_hot(const struct cpu_ising_split *s, uint64_t seed, int64_t r)
{
    /* the global row's sites name the draws (slab storage: row_origin, cpu_backend.h) */
    int64_t rg = (r + s->row_origin) % s->global_rows;
    rg += rg < 0 ? s->global_rows : 0;
    const int64_t i0 = rg * s->lx, i1 = i0 + s->lx;
    uint8_t *h[2] = { cpu_ising_split_row(s, r, 0), cpu_ising_split_row(s, r, 1) };
    for (int64_t b = i0 / 4; 4 * b < i1; b++) {
        const latmc_philox_ctr u = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane;
            if (i >= i0 && i < i1)
                h[(i - i0) & 1][(i - i0) >> 1] = (uint8_t)((u.v[lane] >> 31) == 0);
        }
    }
    refresh_pads(s, h[0]);
    refresh_pads(s, h[1]);
}

void cpu_ising_split_hot(const struct cpu_ising_split *s, uint64_t seed, int n_threads)
{
    const int64_t rows = s->rows;
    if (!cpu_use_threads(n_threads, rows * s->lx)) {
        for (int64_t r = 0; r < rows; r++)
            row_hot(s, seed, r);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t r = 0; r < rows; r++)
        row_hot(s, seed, r);
}

/* ---- measurement ---- */

/*
 * Unequal nearest-neighbour pairs (per site and positive direction) and up spins, by a
 * level's measure_rows (ising_measure_tmpl.h). With bytes 0 / 1, s_a s_b = 1 - 2 (a ^ b):
 * the bond sum is N ndim - 2 (unequal pairs). +-J: eps s_a s_b = 1 - 2 (a ^ b ^ f) with f
 * the pair's bond bit, so "unequal" counts the frustrated bonds, and the bond sum is
 * N ndim - 2 (that count).
 */
#define ISING_MEASURE_ROWS_FN measure_rows_c
#include "ising_measure_tmpl.h"

static struct latmc_ising_sums sums_of(const struct cpu_ising_split *s, int64_t rows,
                                       uint64_t unequal, uint64_t up)
{
    const int64_t n = rows * s->lx;
    struct latmc_ising_sums sums = { n * s->ndim - 2 * (int64_t)unequal, 2 * (int64_t)up - n };
    return sums;
}

struct latmc_ising_sums cpu_ising_split_measure(const struct cpu_ising_split *s,
                                                cpu_ising_measure_rows_fn rows, int n_threads)
{
    uint64_t unequal = 0, up = 0;
    if (!cpu_use_threads(n_threads, s->rows * s->lx) || s->rows < n_threads) {
        rows(s, 0, s->rows, NULL, NULL, &unequal, &up);
    } else { /* a contiguous run of rows a thread */
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static, 1)
                  reduction(+ : unequal, up))
        for (int t = 0; t < n_threads; t++)
            rows(s, s->rows * t / n_threads, s->rows * (t + 1) / n_threads, NULL, NULL,
                 &unequal, &up);
    }
    return sums_of(s, s->rows, unequal, up);
}

struct latmc_ising_sums cpu_ising_split_measure_rows(const struct cpu_ising_split *s,
                                                     cpu_ising_measure_rows_fn rows,
                                                     int64_t r0, int64_t r1)
{
    uint64_t unequal = 0, up = 0;
    rows(s, r0, r1, NULL, NULL, &unequal, &up);
    return sums_of(s, r1 - r0, unequal, up);
}

/* ---- sweep ---- */

/*
 * Order of a sweep. Colour 0 of a site reads colour 1 of its neighbours before they are
 * updated, colour 1 reads colour 0 after; so with "units" of the lattice that interact only
 * with the next and previous unit (rows in 2D, planes z in 3D), colour 1 of unit u - 1 may
 * be updated as soon as colour 0 of units u - 2 .. u is, and before colour 0 of unit u + 1
 * is needed. A sweep is then one pass over memory in wavefront order,
 *     c0(a), c0(a+1), c0(a+2), c1(a+1), c0(a+3), c1(a+2), ..., c0(b-1), c1(b-2)
 * followed by c1(a) and c1(b-1) -- which need colour 0 of the units before a and after
 * b - 1 -- once every thread has finished its band [a, b) (units taken round the periodic
 * lattice by the same argument, with band 0..units-1 for one thread). Each site still sees
 * exactly the neighbour values of the two-pass order and draws its own random number, so
 * the chain is the same; the lattice is read once per sweep instead of twice (from memory,
 * 2 bytes per update instead of 3: doc/PERFORMANCE.md).
 */
static uint64_t wave_first(const struct cpu_ising_split *s, struct cpu_ising_pair_runner *run,
                           int64_t unit, int64_t a, int64_t b)
{
    /* k units a call where the runner asks for more sites: colour 0 of units [u, e), then
     * colour 1 of [u - 1, e - 1) (from a + 1), which reads colour 0 of units up to e - 1
     * only; k = 1 is the order above */
    const int64_t per_unit = unit * s->half;
    const int64_t k = run->min_sites > per_unit ? (run->min_sites + per_unit - 1) / per_unit : 1;
    uint64_t changed = 0;
    for (int64_t u = a; u < b; u += k) {
        const int64_t e = u + k < b ? u + k : b;
        changed += run->rows(run, s, 0, u * unit, e * unit);
        const int64_t c1 = u - 1 > a + 1 ? u - 1 : a + 1;
        if (e - 1 > c1)
            changed += run->rows(run, s, 1, c1 * unit, (e - 1) * unit);
    }
    return changed;
}

static uint64_t wave_last(const struct cpu_ising_split *s, struct cpu_ising_pair_runner *run,
                          int64_t unit, int64_t a, int64_t b)
{
    uint64_t changed = 0;
    if (b > a)
        changed += run->rows(run, s, 1, a * unit, (a + 1) * unit);
    if (b - 1 > a)
        changed += run->rows(run, s, 1, (b - 1) * unit, b * unit);
    return changed;
}

/* ---- the boxes of a plan (lib/box.h): the PAIR parts of the core's schedule ---- */

static int64_t box_lo(const struct latmc_box *box)
{
    return box->origin[box->axis];
}

static int64_t box_hi(const struct latmc_box *box)
{
    return box->origin[box->axis] + box->extent[box->axis];
}

static uint64_t pair_simd_rows(struct cpu_ising_pair_runner *run, const struct cpu_ising_split *s,
                               int c, int64_t r0, int64_t r1)
{
    const struct cpu_ising_pair_simd *p = (const struct cpu_ising_pair_simd *)run;
    return p->dsp->colour_rows(s, &p->pass[c], r0, r1);
}

void cpu_ising_pair_simd_setup(struct cpu_ising_pair_simd *p, const struct cpu_ising_dsp *dsp,
                               const struct cpu_ising_decisions *d, uint64_t seed,
                               const struct latmc_step pair[2])
{
    p->runner.rows = pair_simd_rows;
    p->runner.min_sites = 0;
    p->dsp = dsp;
    for (int c = 0; c < 2; c++) {
        cpu_ising_pass_setup(&p->pass[c], d, seed, &pair[c]);
        dsp->prepare(&p->pass[c]);
    }
}

/* The units of boxes[0 .. n_boxes) in all. */
static int64_t boxes_units(const struct latmc_box *boxes, int n_boxes)
{
    int64_t units = 0;
    for (int i = 0; i < n_boxes; i++)
        units += box_hi(&boxes[i]) - box_lo(&boxes[i]);
    return units;
}

/*
 * The units [u0, u1) of the boxes' concatenation (units counted box after box), piece by
 * piece: runs the statement after it for each non-empty piece [a, b) inside box i.
 */
#define FOR_BOX_PIECES(boxes, n_boxes, u0, u1, i, a, b)                                     \
    for (int64_t i = 0, off_ = 0; i < (n_boxes); off_ += box_hi(&(boxes)[i]) -              \
                                                         box_lo(&(boxes)[i]), i++)           \
        for (int64_t a = box_lo(&(boxes)[i]) + (off_ > (u0) ? 0 : (u0) - off_),            \
                     b = box_lo(&(boxes)[i]) +                                            \
                         ((u1) - off_ < box_hi(&(boxes)[i]) - box_lo(&(boxes)[i])           \
                              ? (u1) - off_ : box_hi(&(boxes)[i]) - box_lo(&(boxes)[i]));  \
             a < b; a = b)

/*
 * Colour 0 on every box and colour 1 on each box's interior units (all but its first and
 * last), in the wavefront order above; colour 1 of a box's first and
 * last units reads colour 0 of the neighbouring boxes and is left to
 * cpu_ising_split_boxes_border. Boxes never write what another box reads in this part, so
 * the team takes bands of all the boxes at once, with the one barrier of a sweep of one
 * box: a band's own first and last units wait for it.
 */
uint64_t cpu_ising_split_boxes_interior(const struct cpu_ising_split *s,
                                        struct cpu_ising_pair_runner *run,
                                        const struct latmc_box *boxes, int n_boxes,
                                        bool borders_too, const struct cpu_team *team)
{
    const int64_t unit = s->ndim == 3 ? s->ly : 1;
    const int64_t units = boxes_units(boxes, n_boxes);
    uint64_t changed = 0;
    /* Bands of whole units per member in wavefront order when there are enough units to
     * keep every member busy; else the two-pass order on rows. */
    const int wave = units >= 4 * (int64_t)team->size;
    int64_t u0, u1;
    cpu_team_share(team, units, &u0, &u1);
    if (wave) {
        FOR_BOX_PIECES(boxes, n_boxes, u0, u1, i, a, b)
            changed += wave_first(s, run, unit, a, b);
        cpu_team_barrier(team);
        /* wave_last of each piece, but for its box's own first and last units (unless
         * borders_too: colour 0 of every box is done) */
        FOR_BOX_PIECES(boxes, n_boxes, u0, u1, i, a, b) {
            const int64_t first = borders_too ? -1 : box_lo(&boxes[i]);
            const int64_t last = borders_too ? -1 : box_hi(&boxes[i]) - 1;
            if (a != first && a != last)
                changed += run->rows(run, s, 1, a * unit, (a + 1) * unit);
            if (b - 1 > a && b - 1 != last)
                changed += run->rows(run, s, 1, (b - 1) * unit, b * unit);
        }
    } else {
        /* the two-pass order on rows: colour 0 everywhere, colour 1 inside the boxes */
        FOR_BOX_PIECES(boxes, n_boxes, u0, u1, i, a, b)
            changed += run->rows(run, s, 0, a * unit, b * unit);
        cpu_team_barrier(team);
        FOR_BOX_PIECES(boxes, n_boxes, u0, u1, i, a, b) {
            const int64_t lo = a > box_lo(&boxes[i]) || borders_too ? a : box_lo(&boxes[i]) + 1;
            const int64_t hi = b < box_hi(&boxes[i]) || borders_too ? b : box_hi(&boxes[i]) - 1;
            if (hi > lo)
                changed += run->rows(run, s, 1, lo * unit, hi * unit);
        }
    }
    return changed;
}

/* Colour 1 on the first and last units of every box (each box at least 2 units). */
uint64_t cpu_ising_split_boxes_border(const struct cpu_ising_split *s,
                                      struct cpu_ising_pair_runner *run,
                                      const struct latmc_box *boxes, int n_boxes,
                                      const struct cpu_team *team)
{
    const int64_t unit = s->ndim == 3 ? s->ly : 1;
    uint64_t changed = 0;
    int64_t i0, i1;
    cpu_team_share(team, n_boxes, &i0, &i1);
    for (int64_t i = i0; i < i1; i++)
        changed += wave_last(s, run, unit, box_lo(&boxes[i]), box_hi(&boxes[i]));
    return changed;
}

/* ---- the fused pair on boxes with their own memory (cpu_boxes.c) ---- */

/*
 * Colour c of global unit g, held as local unit `from` of box src, written into local unit
 * `to` of box dst (a halo unit): one half-row per row, the whole stride with its pads
 * (ising_split.h: the half-row's own bytes, the pads and vector tails included), so that
 * only sites of colour c are written. The colours of a step read the other colour only.
 */
static void copy_colour(const struct cpu_ising_split *src, int64_t from,
                        const struct cpu_ising_split *dst, int64_t to, int64_t g, int c,
                        int64_t unit)
{
    for (int64_t y = 0; y < unit; y++) {
        /* in 2D the unit is row g itself (y = 0); in 3D plane g's row y */
        const int par = c ^ (int)((y + g) & 1);
        memcpy(cpu_ising_split_row(dst, to * unit + y, par) - CPU_ISING_SPLIT_PAD,
               cpu_ising_split_row(src, from * unit + y, par) - CPU_ISING_SPLIT_PAD,
               (size_t)src->stride);
    }
}

/* The global unit of box s's local unit 0. */
static int64_t unit_origin(const struct cpu_ising_split *s, int64_t unit)
{
    return s->row_origin / unit;
}

/* Box i's first unit into the upper halo of box i - 1 and its last into the lower halo of
 * box i + 1 (as asked), colour c: the halo is one unit. */
static void write_through(cpu_ising_split_of split_of, void *ctx, const struct latmc_box *boxes,
                          int n_boxes, int64_t i, int c, int64_t unit, bool first, bool last)
{
    const struct cpu_ising_split *me = split_of(ctx, (int)i);
    const int64_t o = unit_origin(me, unit);
    if (first) {
        const int64_t j = (i + n_boxes - 1) % n_boxes, g = box_lo(&boxes[i]);
        const struct cpu_ising_split *to = split_of(ctx, (int)j);
        copy_colour(me, g - o, to, box_hi(&boxes[j]) - unit_origin(to, unit), g, c, unit);
    }
    if (last) {
        const int64_t j = (i + 1) % n_boxes, g = box_hi(&boxes[i]) - 1;
        const struct cpu_ising_split *to = split_of(ctx, (int)j);
        copy_colour(me, g - o, to, box_lo(&boxes[j]) - 1 - unit_origin(to, unit), g, c, unit);
    }
}

uint64_t cpu_ising_split_own_boxes(cpu_ising_split_of split_of, void *ctx,
                                   struct cpu_ising_pair_runner *run,
                                   const struct latmc_box *boxes, int n_boxes,
                                   const struct cpu_team *team)
{
    const struct cpu_ising_split *s0 = split_of(ctx, 0);
    const int64_t unit = s0->ndim == 3 ? s0->ly : 1;
    const int64_t units = boxes_units(boxes, n_boxes);
    uint64_t changed = 0;
    /* the bands and the two orders of cpu_ising_split_boxes_interior (borders_too) */
    const int wave = units >= 4 * (int64_t)team->size;
    int64_t u0, u1;
    cpu_team_share(team, units, &u0, &u1);
    FOR_BOX_PIECES(boxes, n_boxes, u0, u1, i, a, b) {
        const struct cpu_ising_split *si = split_of(ctx, (int)i);
        const int64_t o = unit_origin(si, unit);
        changed += wave ? wave_first(si, run, unit, a - o, b - o)
                        : run->rows(run, si, 0, (a - o) * unit, (b - o) * unit);
        write_through(split_of, ctx, boxes, n_boxes, i, 0, unit, a == box_lo(&boxes[i]),
                      b == box_hi(&boxes[i]));
    }
    cpu_team_barrier(team);
    FOR_BOX_PIECES(boxes, n_boxes, u0, u1, i, a, b) {
        const struct cpu_ising_split *si = split_of(ctx, (int)i);
        const int64_t o = unit_origin(si, unit);
        changed += wave ? wave_last(si, run, unit, a - o, b - o)
                        : run->rows(run, si, 1, (a - o) * unit, (b - o) * unit);
        write_through(split_of, ctx, boxes, n_boxes, i, 1, unit, a == box_lo(&boxes[i]),
                      b == box_hi(&boxes[i]));
    }
    return changed;
}

