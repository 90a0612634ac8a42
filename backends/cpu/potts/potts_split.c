/* The split layout of the Potts states (potts_split.h). */
#include <stdlib.h>
#include <string.h>

#include "cpu_omp.h"
#include "error.h"
#include "potts_fast.h"
#include "potts_split.h"

/* Bytes of one colour array with its padding, a multiple of 64 (alignment). */
static size_t array_bytes(int64_t per_colour)
{
    return ((size_t)per_colour + 2 * CPU_POTTS_PAD + 63) & ~(size_t)63;
}

int cpu_potts_split_alloc(struct cpu_potts_split *s, const struct latmc_lattice *g,
                          int colours)
{
    memset(s, 0, sizeof *s);
    s->colours = colours;
    s->per_row = g->lx / colours;
    s->per_colour = g->nsites / colours;
    const size_t each = array_bytes(s->per_colour), total = each * (size_t)colours;
    s->block = aligned_alloc(64, total);
    if (!s->block)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Potts "
                          "states", total);
    memset(s->block, 0, total);   /* the padding is read by lanes whose results are dropped */
    for (int c = 0; c < colours; c++)
        s->sub[c] = s->block + each * (size_t)c + CPU_POTTS_PAD;
    return LATMC_OK;
}

void cpu_potts_split_free(struct cpu_potts_split *s)
{
    free(s->block);
    memset(s, 0, sizeof *s);
}

/* x = c t + offset(colour) in row (y, z) */
static int colour_offset(int colour, int c, int64_t y, int64_t z)
{
    return (int)((colour + c - (y + z) % c) % c);
}

/* Row `row` of the lattice between the split layout and `nat`, that row's L_x states in
 * natural order. */
static void row_convert(const struct latmc_lattice *g, const struct cpu_potts_split *s,
                        int64_t row, uint8_t *nat, int to_natural)
{
    const int c = s->colours;
    const int64_t P = s->per_row, y = row % g->ly, z = row / g->ly;
    for (int col = 0; col < c; col++) {
        uint8_t *a = s->sub[col] + P * row;
        const int off = colour_offset(col, c, y, z);
        if (to_natural)
            for (int64_t t = 0; t < P; t++)
                nat[c * t + off] = a[t];
        else
            for (int64_t t = 0; t < P; t++)
                a[t] = nat[c * t + off];
    }
}

/* Rows [row0, row1) between the split layout and `natural`, their states in natural order
 * (row row0 first). */
static void convert(const struct latmc_lattice *g, const struct cpu_potts_split *s,
                    int64_t row0, int64_t row1, uint8_t *natural, int to_natural,
                    int n_threads)
{
    const int64_t lx = g->lx;
    if (!cpu_use_threads(n_threads, (row1 - row0) * lx)) {
        for (int64_t row = row0; row < row1; row++)
            row_convert(g, s, row, natural + lx * (row - row0), to_natural);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t row = row0; row < row1; row++)
        row_convert(g, s, row, natural + lx * (row - row0), to_natural);
}

void cpu_potts_split_from_natural(const struct latmc_lattice *g, struct cpu_potts_split *s,
                                  const uint8_t *natural, int n_threads)
{
    /* only read when !to_natural */
    convert(g, s, 0, g->ly * g->lz, (uint8_t *)natural, 0, n_threads);
}

void cpu_potts_split_to_natural(const struct latmc_lattice *g, const struct cpu_potts_split *s,
                                uint8_t *natural, int n_threads)
{
    convert(g, s, 0, g->ly * g->lz, natural, 1, n_threads);
}

void cpu_potts_split_rows_from_natural(const struct latmc_lattice *g,
                                       struct cpu_potts_split *s, int64_t row0, int64_t row1,
                                       const uint8_t *natural, int n_threads)
{
    convert(g, s, row0, row1, (uint8_t *)natural, 0, n_threads);
}

void cpu_potts_split_rows_to_natural(const struct latmc_lattice *g,
                                     const struct cpu_potts_split *s, int64_t row0,
                                     int64_t row1, uint8_t *natural, int n_threads)
{
    convert(g, s, row0, row1, natural, 1, n_threads);
}

void cpu_potts_split_cold_start(struct cpu_potts_split *s)
{
    for (int c = 0; c < s->colours; c++)
        memset(s->sub[c], 0, (size_t)s->per_colour);
}

/* Sites of one row: state floor(u q / 2^32), u = lane i mod 4 of INIT block i / 4. */
static void row_hot(const struct latmc_lattice *g, struct cpu_potts_split *s, int64_t row,
                    int q, uint64_t seed)
{
    const int c = s->colours;
    const int64_t lx = g->lx, y = row % g->ly, z = row / g->ly;
    uint8_t *a[3];
    for (int col = 0; col < c; col++)
        a[col] = s->sub[col] + s->per_row * row;
    int col = (int)((y + z) % c);   /* colour of x = 0 */
    int within = 0;                 /* x mod c */
    int64_t t = 0;                  /* x / c */
    latmc_philox_ctr r = { { 0, 0, 0, 0 } };
    for (int64_t x = 0; x < lx; x++) {
        const int64_t i = lx * row + x;
        if (x == 0 || (i & 3) == 0)
            r = latmc_rng_init_block(seed, 0, 0, (uint64_t)i >> 2);
        a[col][t] = (uint8_t)(((uint64_t)r.v[i & 3] * (uint64_t)q) >> 32);
        if (++col == c)
            col = 0;
        if (++within == c) {
            within = 0;
            t++;
        }
    }
}

void cpu_potts_split_hot_start(const struct latmc_lattice *g, struct cpu_potts_split *s, int q,
                               uint64_t seed, int n_threads)
{
    const int64_t rows = g->ly * g->lz;
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t row = 0; row < rows; row++)
            row_hot(g, s, row, q, seed);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t row = 0; row < rows; row++)
        row_hot(g, s, row, q, seed);
}
