/*
 * Heisenberg reduction: bond sum and magnetisation of replica 0, and the overlap tensor
 * of the two replicas, in double.
 *
 * Floating-point sums depend on their order, so the order is fixed by the lattice alone,
 * in tiles that no cut into boxes splits: each plane along the last axis is a run of
 * chunks of whole rows (cpu_heisenberg_rows_per_chunk, a divisor of the plane's rows);
 * each chunk is summed serially, site by site, into its own record, a plane's chunks are
 * added in chunk order into the plane's record, and the planes in plane order into the
 * total (model add_sums). Threads only decide who fills which chunk record, and boxes only
 * which planes one asks for, so the result is bit-identical for any thread count and any
 * decomposition. (The chunks keep the GPU's reduction parallel: the CUDA module sums the
 * same chunks the same way.)
 *
 * Bonds are counted per site and positive direction, sum_x sum_mu J_{x,mu} s_x . s_{x+mu},
 * so on an extent of 2 both bonds between the same pair count (doc/conventions.md).
 */
#include <stdlib.h>
#include <string.h>

#include "heisenberg_ref.h"
#include "cpu_omp.h"
#include "cpu_projections.h"
#include "modes.h"

int64_t cpu_heisenberg_rows_per_chunk(const struct latmc_lattice *g)
{
    return latmc_heisenberg_rows_per_chunk(g->lx, cpu_heisenberg_rows_per_plane(g));
}

static inline double dot_ff(const float *a, const float *b)
{
    return (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
}

/*
 * Add row `row` (fixed y, z) of the lattice to *acc, site by site in x order. The row
 * and its +y and +z neighbour rows are walked with fixed offsets (the +x neighbour
 * wraps at the row's end only), so a site costs its products and the sums' additions:
 * the bond sum's chain of ndim additions a site sets the pace.
 */
static inline void row_sums(const struct latmc_lattice *g, const struct cpu_heisenberg_state *hs,
                            int64_t row, struct latmc_heisenberg_sums *acc)
{
    enum { C = LATMC_HEISENBERG_COMPONENTS };
    const int ndim = g->ndim;
    const int64_t lx = g->lx, ly = g->ly, y = row % ly, z = row / ly;
    const float *s0 = hs->spins;
    const float *restrict si = s0 + C * lx * row;
    const float *restrict sy = s0 + C * lx * (latmc_wrap_up(y, ly) + ly * z);
    const float *restrict sz = ndim == 3 ? s0 + C * lx * (y + ly * latmc_wrap_up(z, g->lz)) : si;
    const float *restrict ti =
        hs->replicas == 2 ? s0 + C * (g->nsites + lx * row) : NULL;
    const float *restrict J = hs->couplings + ndim * lx * row;
    struct latmc_heisenberg_sums a = *acc;
    for (int64_t x = 0; x < lx; x++) {
        const float *v = si + C * x;
        const float *right = si + C * (x + 1 < lx ? x + 1 : 0);
        a.bonds += (double)J[ndim * x] * dot_ff(v, right);
        a.bonds += (double)J[ndim * x + 1] * dot_ff(v, sy + C * x);
        if (ndim == 3)
            a.bonds += (double)J[ndim * x + 2] * dot_ff(v, sz + C * x);
        for (int c = 0; c < 3; c++)
            a.mag[c] += v[c];
        if (ti)
            for (int mu = 0; mu < 3; mu++)
                for (int nu = 0; nu < 3; nu++)
                    a.overlap[mu][nu] += (double)v[mu] * ti[C * x + nu];
    }
    *acc = a;
}

static inline void chunk_sums(const struct latmc_lattice *g, struct cpu_heisenberg_state *hs,
                              int64_t chunk)
{
    const int64_t first = chunk * hs->rows_per_chunk;
    struct latmc_heisenberg_sums *acc = &hs->partials[chunk];
    memset(acc, 0, sizeof *acc);
    for (int64_t row = first; row < first + hs->rows_per_chunk; row++)
        row_sums(g, hs, row, acc);
}

/* b += a, member by member (the order of model add_sums). */
static inline void add_into(struct latmc_heisenberg_sums *b, const struct latmc_heisenberg_sums *a)
{
    b->bonds += a->bonds;
    for (int mu = 0; mu < 3; mu++) {
        b->mag[mu] += a->mag[mu];
        for (int nu = 0; nu < 3; nu++)
            b->overlap[mu][nu] += a->overlap[mu][nu];
    }
}

/* Plane p's sums: its per_plane chunks' records added in chunk order from zero. */
static void plane_of_chunks(const struct cpu_heisenberg_state *hs, int64_t per_plane, int64_t p,
                            struct latmc_heisenberg_sums *plane)
{
    memset(plane, 0, sizeof *plane);
    for (int64_t k = p * per_plane; k < (p + 1) * per_plane; k++)
        add_into(plane, &hs->partials[k]);
}

void cpu_heisenberg_measure_planes(const struct latmc_lattice *g, struct cpu_heisenberg_state *hs,
                                   int64_t p0, int64_t p1, struct latmc_heisenberg_sums *out,
                                   int n_threads)
{
    const int64_t per_plane = cpu_heisenberg_rows_per_plane(g) / hs->rows_per_chunk;
    const int64_t k0 = p0 * per_plane, k1 = p1 * per_plane;
    if (!cpu_use_threads(n_threads, (p1 - p0) * cpu_heisenberg_rows_per_plane(g) * g->lx)) {
        for (int64_t k = k0; k < k1; k++)
            chunk_sums(g, hs, k);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
        for (int64_t k = k0; k < k1; k++)
            chunk_sums(g, hs, k);
    }
    for (int64_t p = p0; p < p1; p++)
        plane_of_chunks(hs, per_plane, p, &out[p - p0]);
}

/* What plane_with_projections needs (cpu_count_planes' context). */
struct projections_ctx {
    const latmc_sim_desc *d;
    const struct latmc_lattice *g;
    struct cpu_heisenberg_state *hs;
};

/* Plane p's chunks, then (the plane still in the cache) its projections into proj. */
static void plane_with_projections(void *ctx, int64_t p, int64_t *proj)
{
    const struct projections_ctx *c = ctx;
    const struct latmc_lattice *g = c->g;
    struct cpu_heisenberg_state *hs = c->hs;
    const int64_t per_plane = cpu_heisenberg_rows_per_plane(g) / hs->rows_per_chunk;
    const int64_t plane_sites = cpu_heisenberg_rows_per_plane(g) * g->lx;
    for (int64_t k = p * per_plane; k < (p + 1) * per_plane; k++)
        chunk_sums(g, hs, k);
    const float *r0 = hs->spins + LATMC_HEISENBERG_COMPONENTS * plane_sites * p;
    const float *r1 = hs->replicas == 2 ? r0 + LATMC_HEISENBERG_COMPONENTS * g->nsites : NULL;
    latmc_modes_heisenberg_project(c->d, r0, r1, p, proj);
}

int cpu_heisenberg_measure_projections(const latmc_sim_desc *d, const struct latmc_lattice *g,
                                       struct cpu_heisenberg_state *hs,
                                       struct latmc_heisenberg_sums *out, int64_t *proj,
                                       int n_threads)
{
    const int64_t planes = cpu_heisenberg_planes(g);
    struct projections_ctx ctx = { d, g, hs };
    const int st = cpu_count_planes(planes, latmc_modes_projection_entries(d),
                                    cpu_use_threads(n_threads, g->nsites) ? n_threads : 1,
                                    plane_with_projections, &ctx, proj);
    if (st < 0)
        return st;
    const int64_t per_plane = cpu_heisenberg_rows_per_plane(g) / hs->rows_per_chunk;
    for (int64_t p = 0; p < planes; p++)
        plane_of_chunks(hs, per_plane, p, &out[p]);
    return LATMC_OK;
}
