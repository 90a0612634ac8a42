/*
 * The Heisenberg reference kernels of the CPU backend: state layout and the lattice-wide
 * operations (heisenberg_init.c, heisenberg_sweep.c, heisenberg_measure.c). The per-site
 * rules live in heisenberg_rules.h.
 */
#ifndef LATMC_CPU_HEISENBERG_REF_H
#define LATMC_CPU_HEISENBERG_REF_H

#include "cpu_lattice.h"
#include "heisenberg.h"

/*
 * Storage is the layout of latmc_sim_get_spins / latmc_sim_get_couplings, so copies in
 * and out are plain memcpy:
 *   spins      3 floats (x, y, z) per site in natural site order, replica r at
 *              offset 3 N r;
 *   couplings  ndim floats per site: couplings[ndim i + mu] couples site i with its
 *              neighbour in the positive direction mu.
 */
struct cpu_heisenberg_state {
    int replicas;
    float *spins;
    float *couplings;
    /* Measurement: one partial-sum record per fixed chunk of rows (the chunks depend
     * only on the lattice), summed serially in chunk order, so that the result is
     * bit-identical for any thread count. */
    int64_t rows_per_chunk, nchunks;
    struct latmc_heisenberg_sums *partials;
};

/*
 * The 2 ndim nearest neighbours of site s: fwd[mu] = s + e_mu, bwd[mu] = s - e_mu
 * (periodic), for mu < ndim.
 */
static inline void cpu_heisenberg_neighbours(const struct latmc_lattice *g, struct latmc_site s,
                                             int64_t fwd[3], int64_t bwd[3])
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int64_t row = s.index - s.x; /* index of (0, y, z) */
    fwd[0] = row + latmc_wrap_up(s.x, lx);
    bwd[0] = row + latmc_wrap_down(s.x, lx);
    fwd[1] = s.x + lx * (latmc_wrap_up(s.y, ly) + ly * s.z);
    bwd[1] = s.x + lx * (latmc_wrap_down(s.y, ly) + ly * s.z);
    fwd[2] = bwd[2] = s.index;
    if (g->ndim == 3) {
        fwd[2] = s.x + lx * (s.y + ly * latmc_wrap_up(s.z, lz));
        bwd[2] = s.x + lx * (s.y + ly * latmc_wrap_down(s.z, lz));
    }
}

/* Rows of L_x sites per measurement chunk: about 1024 sites, at least one row. */
int64_t cpu_heisenberg_rows_per_chunk(const struct latmc_lattice *g);

/* Couplings drawn from coupling_seed for desc.couplings (doc/models/heisenberg.md). */
void cpu_heisenberg_draw_couplings(const struct latmc_lattice *g, float *couplings, int kind,
                                   uint64_t coupling_seed, int n_threads);

/* Hot start of one replica: independent spins uniform on the sphere. */
void cpu_heisenberg_hot_start(const struct latmc_lattice *g, float *spins, uint64_t seed,
                              int replica, int n_threads);

/* Cold start of one replica: every spin e_z. */
void cpu_heisenberg_cold_start(const struct latmc_lattice *g, float *spins);

/*
 * One sweep of one replica (spins of that replica, its update stream): for HEATBATH one
 * heat-bath pass then p->nover overrelaxation passes; for OVERRELAX max(p->nover, 1)
 * overrelaxation passes. Each pass visits colour 0, then colour 1. Returns the number of
 * heat-bath updates (N per heat-bath pass).
 */
uint64_t cpu_heisenberg_sweep(const struct latmc_lattice *g, float *spins, const float *couplings,
                              const struct latmc_heisenberg_params *p, int algorithm,
                              uint64_t seed, int replica, uint64_t sweep, int n_threads);

/* The reduction of the current state into *sums (lib/heisenberg.h). */
void cpu_heisenberg_measure(const struct latmc_lattice *g, struct cpu_heisenberg_state *hs,
                            struct latmc_heisenberg_sums *sums, int n_threads);

#endif
