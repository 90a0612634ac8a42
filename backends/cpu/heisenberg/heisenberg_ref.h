/*
 * The Heisenberg reference kernels of the CPU backend: state layout and the lattice-wide
 * operations (heisenberg_init.c, heisenberg_sweep.c, heisenberg_measure.c). The per-site
 * rules live in heisenberg_rules.h.
 */
#ifndef LATMC_CPU_HEISENBERG_REF_H
#define LATMC_CPU_HEISENBERG_REF_H

#include <stdbool.h>

#include <latmc/sim.h>

#include "box.h"
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
    /* Measurement (heisenberg_measure.c): one partial-sum record per fixed chunk of rows
     * (rows_per_chunk rows, never across a plane; the chunks depend only on the lattice)
     * and one per plane, so that the result is bit-identical for any thread count and any
     * cut into boxes. */
    int64_t rows_per_chunk, nchunks;
    struct latmc_heisenberg_sums *partials; /* nchunks */
    struct latmc_heisenberg_sums *planes;   /* one per plane along the last axis */
};

/* Rows (L_x sites of fixed y, z) per plane along the last axis: L_y in 3D, 1 in 2D. */
static inline int64_t cpu_heisenberg_rows_per_plane(const struct latmc_lattice *g)
{
    return g->ndim == 3 ? g->ly : 1;
}

/* Planes along the last axis: L_z in 3D, L_y in 2D. */
static inline int64_t cpu_heisenberg_planes(const struct latmc_lattice *g)
{
    return g->ndim == 3 ? g->lz : g->ly;
}

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

/* Rows of L_x sites per measurement chunk: the largest divisor of the rows of a plane
 * that keeps a chunk at most 1024 sites (at least one row). The CUDA module's reduction
 * uses the same chunks. */
int64_t cpu_heisenberg_rows_per_chunk(const struct latmc_lattice *g);

/* (The couplings, drawn from coupling_seed for desc.couplings: coupling_fill.h.) */

/* Hot start of one replica: independent spins uniform on the sphere. */
void cpu_heisenberg_hot_start(const struct latmc_lattice *g, float *spins, uint64_t seed,
                              int replica, int n_threads);

/* Cold start of one replica: every spin e_z. */
void cpu_heisenberg_cold_start(const struct latmc_lattice *g, float *spins);

struct cpu_team;

/*
 * The reduction of planes [p0, p1) of the current state (lib/heisenberg.h), plane p into
 * out[p - p0]. A plane's sums are its chunks' (rows_per_chunk rows, site by site in site
 * order, from zero) added in chunk order from zero; the whole lattice's are the planes'
 * added in plane order from zero (model add_sums). Reads replica 0's plane p1 (mod the
 * extent) too: the bonds to the forward neighbours.
 */
void cpu_heisenberg_measure_planes(const struct latmc_lattice *g, struct cpu_heisenberg_state *hs,
                                   int64_t p0, int64_t p1, struct latmc_heisenberg_sums *out,
                                   int n_threads);

/*
 * The same for every plane of the lattice of desc d and, in the same pass, the Fourier
 * modes' fixed-point projections (lib/modes.h, latmc_modes_heisenberg_project: each plane
 * while it is in the cache) into proj (latmc_modes_projection_entries int64, set here),
 * exactly latmc_modes_projections' integers. LATMC_OK, or LATMC_ENOMEM (the threads'
 * scratch; no message).
 */
int cpu_heisenberg_measure_projections(const latmc_sim_desc *d, const struct latmc_lattice *g,
                                       struct cpu_heisenberg_state *hs,
                                       struct latmc_heisenberg_sums *out, int64_t *proj,
                                       int n_threads);

/*
 * One step of the core's plan (lib/box.h) for every replica (spins: replica r at offset
 * 3 N r; its update stream): colour `colour` of the boxes' sites, by heat bath or
 * overrelaxation (lib/heisenberg.h, the schedule), its draws the step's `name` (struct
 * latmc_step's rng: replica 0, sub 0; the replica's stream and sub 1 derived from it),
 * team member `team`'s share (cpu_omp.h). Returns the step's heat-bath updates (the
 * colour's sites in the boxes times the replicas; 0 for overrelaxation), the same for
 * every member. The whole lattice: j_origin 0. Slab-only storage (cpu_backend.h): the
 * slab's local lattice g and boxes, the draws of local number j those of global j +
 * j_origin (a multiple of 4, the local origin an even plane). The slab's couplings and
 * hot start are ranges of the global draws: latmc_heisenberg_couplings_range,
 * latmc_heisenberg_hot_range (lib/heisenberg_rules.h, which the CUDA module's parts call
 * too).
 */
uint64_t cpu_heisenberg_step_boxes_at(const struct latmc_lattice *g, float *spins, int replicas,
                                      const float *couplings,
                                      const struct latmc_heisenberg_params *p, bool heatbath,
                                      int colour, uint64_t seed, struct latmc_rng_name name,
                                      const struct latmc_box *boxes, int n_boxes,
                                      int64_t j_origin, const struct cpu_team *team);

#endif
