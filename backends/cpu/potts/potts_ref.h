/* The Potts reference kernels of the CPU backend (potts_sweep.c, potts_measure.c). */
#ifndef LATMC_CPU_POTTS_REF_H
#define LATMC_CPU_POTTS_REF_H

#include "cpu_lattice.h"
#include "potts_rules.h"

/* The step of colour `colour` whose draws are `name` (struct latmc_step's rng) on the
 * sites of that colour with within-colour numbers j0 <= j < j1 (a box: its planes), team
 * member `team`'s share (cpu_omp.h); returns how many its share changed. Each site's
 * update is named by the site, so any cut of [0, N / c) into ranges gives the same
 * chain. */
struct cpu_team;
uint64_t cpu_potts_colour_range(const struct latmc_lattice *g, uint8_t *spins,
                                const struct latmc_potts_chain *ch, struct latmc_rng_name name,
                                int colour, int64_t j0, int64_t j1, const struct cpu_team *team);
void cpu_potts_hot_start(const struct latmc_lattice *g, uint8_t *spins, int q, uint64_t seed,
                         int n_threads);
void cpu_potts_measure(const struct latmc_lattice *g, const uint8_t *spins, int n_threads,
                       struct latmc_potts_sums *sums);
/* The sums of each plane p0 <= p < p1 along the last axis (its sites' +x, +y, +z bonds and
 * states) into sums[p - p0]; adding them in plane order gives cpu_potts_measure. */
void cpu_potts_measure_planes(const struct latmc_lattice *g, const uint8_t *spins, int64_t p0,
                              int64_t p1, int n_threads, struct latmc_potts_sums *sums);

/*
 * Slab-only storage (cpu_backend.h): cpu_potts_colour_range for a slab held as the local
 * lattice `local` whose plane 0 is global plane `origin` (a multiple of 4 sites of a
 * colour before it): j0, j1 and the draws are the global lattice's numbers, the spins the
 * local lattice's (lib/potts_rules.h, the rule on a box); and sites [i0, i1) of the
 * global hot start into out[0 ..).
 */
uint64_t cpu_potts_colour_range_slab(const struct latmc_lattice *global,
                                     const struct latmc_lattice *local, int64_t origin,
                                     uint8_t *spins, const struct latmc_potts_chain *ch,
                                     struct latmc_rng_name name, int colour, int64_t j0,
                                     int64_t j1, const struct cpu_team *team);
void cpu_potts_hot_range(uint8_t *out, int64_t i0, int64_t i1, int q, uint64_t seed);

#endif
