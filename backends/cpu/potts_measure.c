/* Potts reduction: the exact integer sums behind every observable. */
#include <string.h>

#include "cpu_omp.h"
#include "potts_ref.h"

/*
 * Bonds are counted per site and positive direction, sum_x sum_mu delta(s_x, s_{x+mu}), so
 * on an extent of 2 both bonds between the same pair count (doc/conventions.md).
 */
/* Satisfied bond terms and state populations of one row (fixed y, z) of the lattice. */
static void row_sums(const struct latmc_lattice *g, const uint8_t *spins, int64_t row,
                     int64_t *matches, int64_t *count)
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int64_t y = row % ly, z = row / ly;
    const uint8_t *s = spins + lx * row;
    const uint8_t *up_y = spins + lx * (latmc_wrap_up(y, ly) + ly * z);
    const uint8_t *up_z = spins + lx * (y + ly * latmc_wrap_up(z, lz));
    int64_t m = 0;
    for (int64_t x = 0; x < lx; x++) {
        m += (s[x] == s[latmc_wrap_up(x, lx)]) + (s[x] == up_y[x]);
        if (g->ndim == 3)
            m += s[x] == up_z[x];
        count[s[x]]++;
    }
    *matches += m;
}

void cpu_potts_measure(const struct latmc_lattice *g, const uint8_t *spins, int n_threads,
                       struct latmc_potts_sums *sums)
{
    const int64_t rows = g->ly * g->lz;
    int64_t matches = 0;
    int64_t count[LATMC_POTTS_MAX_Q + 1];
    memset(count, 0, sizeof count);
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &matches, count);
    } else {
        /* integer sums: the reduction's order cannot change the result */
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static)
                  reduction(+:matches, count[:LATMC_POTTS_MAX_Q + 1]))
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &matches, count);
    }
    sums->matches = matches;
    memcpy(sums->count, count, sizeof count);
}

/* Rows of one plane: L_y in 3D (the plane is z), 1 in 2D (the plane is y). */
static int64_t rows_per_plane(const struct latmc_lattice *g)
{
    return g->ndim == 3 ? g->ly : 1;
}

static void plane_sums(const struct latmc_lattice *g, const uint8_t *spins, int64_t plane,
                       struct latmc_potts_sums *sums)
{
    const int64_t rows = rows_per_plane(g);
    memset(sums, 0, sizeof *sums);
    for (int64_t row = plane * rows; row < (plane + 1) * rows; row++)
        row_sums(g, spins, row, &sums->matches, sums->count);
}

void cpu_potts_measure_planes(const struct latmc_lattice *g, const uint8_t *spins, int64_t p0,
                              int64_t p1, int n_threads, struct latmc_potts_sums *sums)
{
    if (!cpu_use_threads(n_threads, (p1 - p0) * g->lx * rows_per_plane(g))) {
        for (int64_t p = p0; p < p1; p++)
            plane_sums(g, spins, p, &sums[p - p0]);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t p = p0; p < p1; p++)
        plane_sums(g, spins, p, &sums[p - p0]);
}
