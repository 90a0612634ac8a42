/* The Ising reference kernels of the CPU backend (ising_sweep.c, ising_measure.c). */
#ifndef LATMC_CPU_ISING_REF_H
#define LATMC_CPU_ISING_REF_H

#include "cpu_lattice.h"
#include "ising.h"
#include "rng_streams.h" /* struct latmc_rng_name */

struct cpu_team;

void cpu_ising_hot_start(const struct latmc_lattice *g, int8_t *spins, uint64_t seed,
                         int n_threads);
struct latmc_ising_sums cpu_ising_measure(const struct latmc_lattice *g, const int8_t *spins,
                                          int n_threads);

/* (Random +-1 couplings, desc.couplings = BIMODAL: eps[ndim i + mu] couples site i with
 * i + e_mu, the layout of latmc_sim_get_couplings, one int8 +-1 each; drawn by
 * coupling_fill.h.) */
/*
 * Colour `colour` on its checkerboard numbers [j0, j1) only, each with its own draw (lane
 * j mod 4 of block j / 4 of the step's draws `name`, struct latmc_step's rng): one step
 * of the sweep on one box (a box of planes [p0, p1) along the last axis is j in [p0, p1)
 * times the colour's sites per plane), team member `team`'s share (cpu_omp.h). Returns
 * how many spins its share changed. eps NULL: uniform couplings.
 */
uint64_t cpu_ising_colour_range(const struct latmc_lattice *g, int8_t *spins, const int8_t *eps,
                                const struct latmc_ising_tables *t, int algorithm,
                                uint64_t seed, struct latmc_rng_name name, int colour,
                                int64_t j0, int64_t j1, const struct cpu_team *team);
struct latmc_ising_sums cpu_ising_measure_coupled(const struct latmc_lattice *g,
                                                  const int8_t *spins, const int8_t *eps,
                                                  int n_threads);
/* The sums of rows [r0, r1) alone (rows r = y + L_y z; bonds to +e_mu of those rows'
 * sites, whatever row they reach): a tile of the reduction (eps NULL: uniform). */
struct latmc_ising_sums cpu_ising_measure_rows(const struct latmc_lattice *g,
                                               const int8_t *spins, const int8_t *eps,
                                               int64_t r0, int64_t r1);

/*
 * Slab-only storage (cpu_backend.h): cpu_ising_colour_range for a slab held as the local
 * lattice `local` whose plane 0 is global plane `origin`: j0, j1 and the draws are the
 * global lattice's numbers, the spins (and eps) the local lattice's.
 */
uint64_t cpu_ising_colour_range_slab(const struct latmc_lattice *global,
                                     const struct latmc_lattice *local, int64_t origin,
                                     int8_t *spins, const int8_t *eps,
                                     const struct latmc_ising_tables *t, int algorithm,
                                     uint64_t seed, struct latmc_rng_name name, int colour,
                                     int64_t j0, int64_t j1, const struct cpu_team *team);
/* Sites [i0, i1) of the global hot start into out[0 ..). (A slab's couplings:
 * latmc_ising_bimodal_range, lib/coupling_draws.h.) */
void cpu_ising_hot_range(int8_t *out, int64_t i0, int64_t i1, uint64_t seed);

#endif
