/* Ising reduction: the exact integer bond and spin sums behind every observable. */
#include "ising_ref.h"
#include "cpu_omp.h"

/*
 * Bonds are counted per site and positive direction, sum_x sum_mu s_x s_{x+mu}, so on an
 * extent of 2 both bonds between the same pair count (doc/conventions.md).
 */
/* Bond and spin sums of one row (fixed y, z) of the lattice. */
static inline void row_sums(const struct latmc_lattice *g, const int8_t *spins, int64_t row,
                            int64_t *bonds, int64_t *total)
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int64_t y = row % ly, z = row / ly;
    const int8_t *s = spins + lx * row;
    const int8_t *up_y = spins + lx * (latmc_wrap_up(y, ly) + ly * z);
    const int8_t *up_z = spins + lx * (y + ly * latmc_wrap_up(z, lz));
    int64_t b = 0, t = 0;
    for (int64_t x = 0; x < lx; x++) {
        int nb = s[latmc_wrap_up(x, lx)] + up_y[x];
        if (g->ndim == 3)
            nb += up_z[x];
        b += s[x] * nb;
        t += s[x];
    }
    *bonds += b;
    *total += t;
}

/* The same with +-J couplings: bonds = sum_x sum_mu eps[ndim x + mu] s_x s_{x+mu}. */
static inline void row_sums_coupled(const struct latmc_lattice *g, const int8_t *spins,
                                    const int8_t *eps, int64_t row, int64_t *bonds,
                                    int64_t *total)
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int nd = g->ndim;
    const int64_t y = row % ly, z = row / ly;
    const int8_t *s = spins + lx * row;
    const int8_t *e = eps + nd * lx * row;
    const int8_t *up_y = spins + lx * (latmc_wrap_up(y, ly) + ly * z);
    const int8_t *up_z = spins + lx * (y + ly * latmc_wrap_up(z, lz));
    int64_t b = 0, t = 0;
    for (int64_t x = 0; x < lx; x++) {
        int nb = e[nd * x] * s[latmc_wrap_up(x, lx)] + e[nd * x + 1] * up_y[x];
        if (nd == 3)
            nb += e[nd * x + 2] * up_z[x];
        b += s[x] * nb;
        t += s[x];
    }
    *bonds += b;
    *total += t;
}

struct latmc_ising_sums cpu_ising_measure_coupled(const struct latmc_lattice *g,
                                                  const int8_t *spins, const int8_t *eps,
                                                  int n_threads)
{
    const int64_t rows = g->ly * g->lz;
    int64_t bonds = 0, total = 0;
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t row = 0; row < rows; row++)
            row_sums_coupled(g, spins, eps, row, &bonds, &total);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static) reduction(+:bonds, total))
        for (int64_t row = 0; row < rows; row++)
            row_sums_coupled(g, spins, eps, row, &bonds, &total);
    }
    struct latmc_ising_sums sums = { bonds, total };
    return sums;
}

struct latmc_ising_sums cpu_ising_measure(const struct latmc_lattice *g, const int8_t *spins,
                                          int n_threads)
{
    const int64_t rows = g->ly * g->lz;
    int64_t bonds = 0, total = 0;
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &bonds, &total);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static) reduction(+:bonds, total))
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &bonds, &total);
    }
    struct latmc_ising_sums sums = { bonds, total };
    return sums;
}

struct latmc_ising_sums cpu_ising_measure_rows(const struct latmc_lattice *g,
                                               const int8_t *spins, const int8_t *eps,
                                               int64_t r0, int64_t r1)
{
    int64_t bonds = 0, total = 0;
    for (int64_t row = r0; row < r1; row++) {
        if (eps)
            row_sums_coupled(g, spins, eps, row, &bonds, &total);
        else
            row_sums(g, spins, row, &bonds, &total);
    }
    struct latmc_ising_sums sums = { bonds, total };
    return sums;
}
