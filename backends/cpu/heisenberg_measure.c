/*
 * Heisenberg reduction: bond sum and magnetisation of replica 0, and the overlap tensor
 * of the two replicas, in double.
 *
 * Floating-point sums depend on their order, so the order is fixed by the lattice alone:
 * each chunk of rows (cpu_heisenberg_rows_per_chunk) is summed serially into its own
 * record, then the records are added serially in chunk order. Threads only decide who
 * fills which record, so the result is bit-identical for any thread count.
 *
 * Bonds are counted per site and positive direction, sum_x sum_mu J_{x,mu} s_x . s_{x+mu},
 * so on an extent of 2 both bonds between the same pair count (doc/conventions.md).
 */
#include <string.h>

#include "heisenberg_ref.h"
#include "cpu_omp.h"

int64_t cpu_heisenberg_rows_per_chunk(const struct latmc_lattice *g)
{
    const int64_t rows = 1024 / g->lx;
    return rows > 0 ? rows : 1;
}

static inline double dot_ff(const float *a, const float *b)
{
    return (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
}

/* Add row `row` (fixed y, z) of the lattice to *acc, site by site in x order. */
static inline void row_sums(const struct latmc_lattice *g, const struct cpu_heisenberg_state *hs,
                            int64_t row, struct latmc_heisenberg_sums *acc)
{
    const int ndim = g->ndim;
    const float *s0 = hs->spins;
    const float *s1 = hs->replicas == 2 ? hs->spins + LATMC_HEISENBERG_COMPONENTS * g->nsites
                                        : NULL;
    struct latmc_site s = { 0 };
    s.row = row;
    s.y = row % g->ly;
    s.z = row / g->ly;
    for (int64_t x = 0; x < g->lx; x++) {
        s.x = x;
        s.index = x + g->lx * row;
        int64_t fwd[3], bwd[3];
        cpu_heisenberg_neighbours(g, s, fwd, bwd);
        const float *si = s0 + LATMC_HEISENBERG_COMPONENTS * s.index;
        for (int mu = 0; mu < ndim; mu++)
            acc->bonds += (double)hs->couplings[ndim * s.index + mu] *
                          dot_ff(si, s0 + LATMC_HEISENBERG_COMPONENTS * fwd[mu]);
        for (int c = 0; c < 3; c++)
            acc->mag[c] += si[c];
        if (s1) {
            const float *ti = s1 + LATMC_HEISENBERG_COMPONENTS * s.index;
            for (int mu = 0; mu < 3; mu++)
                for (int nu = 0; nu < 3; nu++)
                    acc->overlap[mu][nu] += (double)si[mu] * ti[nu];
        }
    }
}

static inline void chunk_sums(const struct latmc_lattice *g, struct cpu_heisenberg_state *hs,
                              int64_t chunk)
{
    const int64_t rows = g->ly * g->lz;
    const int64_t first = chunk * hs->rows_per_chunk;
    const int64_t last = first + hs->rows_per_chunk < rows ? first + hs->rows_per_chunk : rows;
    struct latmc_heisenberg_sums *acc = &hs->partials[chunk];
    memset(acc, 0, sizeof *acc);
    for (int64_t row = first; row < last; row++)
        row_sums(g, hs, row, acc);
}

void cpu_heisenberg_measure(const struct latmc_lattice *g, struct cpu_heisenberg_state *hs,
                            struct latmc_heisenberg_sums *sums, int n_threads)
{
    const int64_t nchunks = hs->nchunks;
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t k = 0; k < nchunks; k++)
            chunk_sums(g, hs, k);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
        for (int64_t k = 0; k < nchunks; k++)
            chunk_sums(g, hs, k);
    }
    memset(sums, 0, sizeof *sums);
    for (int64_t k = 0; k < nchunks; k++) {
        const struct latmc_heisenberg_sums *p = &hs->partials[k];
        sums->bonds += p->bonds;
        for (int mu = 0; mu < 3; mu++) {
            sums->mag[mu] += p->mag[mu];
            for (int nu = 0; nu < 3; nu++)
                sums->overlap[mu][nu] += p->overlap[mu][nu];
        }
    }
}
