/* Ising reduction: the exact integer bond and spin sums behind every observable. */
#include "cpu_backend.h"
#include "cpu_omp.h"

/*
 * Bonds are counted per site and positive direction, sum_x sum_mu s_x s_{x+mu}, so on an
 * extent of 2 both bonds between the same pair count (doc/conventions.md).
 */
struct latmc_ising_sums cpu_ising_measure(const struct cpu_lattice *g, const int8_t *spins,
                                          int n_threads)
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int64_t rows = ly * lz;
    int64_t bonds = 0, total = 0;
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static) reduction(+:bonds, total)
              if(n_threads > 1 && g->nsites >= LATMC_OMP_MIN_ITEMS))
    for (int64_t row = 0; row < rows; row++) {
        const int64_t y = row % ly, z = row / ly;
        const int8_t *s = spins + lx * row;
        const int8_t *up_y = spins + lx * (cpu_wrap_up(y, ly) + ly * z);
        const int8_t *up_z = spins + lx * (y + ly * cpu_wrap_up(z, lz));
        for (int64_t x = 0; x < lx; x++) {
            int nb = s[cpu_wrap_up(x, lx)] + up_y[x];
            if (g->ndim == 3)
                nb += up_z[x];
            bonds += s[x] * nb;
            total += s[x];
        }
    }
    struct latmc_ising_sums sums = { bonds, total };
    return sums;
}
