/*
 * Internal: the Fourier modes at k_min behind the finite-size-scaling observables
 * (LATMC_OBS_M2_KMIN, LATMC_OBS_OVERLAP2_KMIN; doc/observables.md).
 *
 * The reduction is by planes along the last axis, like the model's sums (model.h
 * add_sums): each plane p gives a tile, for every component c of the model's order
 * parameter and every direction mu, the complex sum over the plane's sites of
 * v_c(x) e^{i k_mu x_mu}, k_mu = 2 pi / L_mu. Along the in-plane axes the phases come from
 * one table per axis, summed in the plane's site order; along the last axis the plane's
 * total times the phase of its index p. Tiles are added in plane order from zeros. So the
 * result depends on the configuration only, never on threads, boxes or ranks. A backend
 * may make the tiles on its own layout (ops.mode_tiles), in this same order of operations
 * within each plane, so that they are these bit for bit, and add them itself in plane
 * order, with the measurement (ops.measure_kmin). Only phi^4 takes tiles now.
 *
 * Components: Ising 1 (the spin), phi^4 1 (the field), Potts q (the indicator of each
 * state; the simplex order parameter is built from them), Heisenberg 3 (replica 0's
 * spin), and with two replicas 9 more (s^0_mu s^1_nu, the tensor overlap).
 *
 * Ising, Potts and Heisenberg instead sum projections onto each axis, P_mu[x] = sum of s
 * over the sites with x_mu = x (Potts: of each state's indicator, q sets; Heisenberg: of
 * each component's fixed point, latmc_modes_fixed): integers, whose sums do
 * not depend on their order at all, so any thread or part may add any planes; the modes
 * are then sum_x P_mu[x] e^{i k_mu x}, summed exactly (latmc_modes_exact_sum), once.
 * (Cheaper: an integer addition per site instead of the phases' products; and a backend
 * can count them on its own layout in the measurement's pass, ops.measure_modes, or
 * transform them itself, ops.measure_kmin.)
 * A part's partial result is its tiles (in plane order) or its projections
 * (latmc_modes_partial), and the whole lattice's modes come from every part's
 * (latmc_modes_combine).
 */
#ifndef LATMC_LIB_MODES_H
#define LATMC_LIB_MODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "internal.h"

/* Whether every extent in use is the same (one k_min for every direction). */
bool latmc_modes_cubic(const latmc_sim_desc *d);

/* c[x] = cos(2 pi x / L), s[x] = sin(2 pi x / L) for x = 0 .. L - 1. */
void latmc_modes_phases(int64_t L, double *c, double *s);

/* Components of the model's order parameter in a tile (see above). */
int latmc_modes_components(const latmc_sim_desc *d);

/* Doubles of one plane's tile: components x ndim x 2 (re, im). */
size_t latmc_modes_tile_doubles(const latmc_sim_desc *d);

/*
 * The tiles of planes [p0, p1) into tiles + (p - p0) * latmc_modes_tile_doubles, from the
 * backend's per-plane configuration copies (ops.get_planes), sim->n_threads threads over
 * the planes. LATMC_OK, or the backend's failure, or LATMC_ENOMEM.
 */
int latmc_modes_tiles(latmc_sim *sim, int64_t p0, int64_t p1, double *tiles);

/*
 * Plane p's tile of a phi^4 sim (zeroed here; latmc_modes_tile_doubles doubles) from the
 * plane's sites at `plane` (natural order, the sim's precision) and the sim's phase tables
 * (latmc_modes_sim_phases; not NULL): exactly latmc_modes_tiles' tile of that plane, for a
 * backend that makes the tiles in its measurement's pass (ops.measure_modes).
 */
void latmc_modes_phi4_tile(const latmc_sim *sim, const double *phases, const void *plane,
                           int64_t p, double *tile);

/*
 * Plane p's fixed-point projections of a Heisenberg sim of desc d added into proj
 * (latmc_modes_projection_entries int64) from the plane's sites of replica 0 at r0 and,
 * with two replicas, of replica 1 at r1 (3 floats a site, natural order): exactly what
 * latmc_modes_projections adds for that plane, for a backend that counts them in its
 * measurement's pass (ops.measure_modes).
 */
void latmc_modes_heisenberg_project(const latmc_sim_desc *d, const float *r0, const float *r1,
                                    int64_t p, int64_t *proj);

/* Ising and Potts: entries of the projections, L_0 + ... + L_{d-1} (axis mu's after those
 * of the axes before it), Potts: q such blocks, state a's at a (L_0 + ... + L_{d-1}). */
int64_t latmc_modes_projection_entries(const latmc_sim_desc *d);

/* Ising and Potts: the projections of planes [p0, p1) added into proj (integers: in any
 * order), from ops.get_planes, sim->n_threads threads over the planes. */
int latmc_modes_projections(latmc_sim *sim, int64_t p0, int64_t p1, int64_t *proj);

/* The sim's phase tables, cos then sin of 2 pi x / L_mu for each axis in turn, made on
 * first use and kept (sim->mode_phases); NULL after latmc_fail(LATMC_ENOMEM). */
const double *latmc_modes_sim_phases(latmc_sim *sim);

/* Ising and Potts: the modes (each component) from the whole lattice's projections,
 * sum_x P_mu[x] e^{2 pi i x / L_mu}, each of the real and imaginary parts by
 * latmc_modes_exact_sum; phases: latmc_modes_sim_phases, or NULL (made here). LATMC_OK or
 * LATMC_ENOMEM. */
int latmc_modes_of_projections(const latmc_sim_desc *d, const double *phases,
                               const int64_t *proj, double *modes);

/*
 * sum_x proj[x] table[x], x in [0, L), exactly: each phase as its fixed-point weight and
 * the products summed in 128-bit integers (lib/modes_exact.h), then made a double by one
 * fixed rule, so that any backend or part may sum its own projections and the sums add up
 * to the same bits (ops.measure_kmin).
 */
double latmc_modes_exact_sum(const int64_t *proj, const double *table, int64_t L);

/* Add one tile into a total (tiles in plane order, from zeros). */
void latmc_modes_add(const latmc_sim_desc *d, double *total, const double *tile);

/* Bytes of the partial result of `planes` planes: tiles, or Ising's projections (the
 * same for any planes). */
size_t latmc_modes_partial_bytes(const latmc_sim_desc *d, int64_t planes);

/* The partial result of planes [p0, p1) into out (latmc_modes_partial_bytes). */
int latmc_modes_partial(latmc_sim *sim, int64_t p0, int64_t p1, void *out);

/* The whole lattice's modes (latmc_modes_tile_doubles doubles) from the partial results of
 * n_parts parts, one after the other in part order (the parts cut the planes in order):
 * tiles added in plane order, or projections summed and transformed. */
int latmc_modes_combine(const latmc_sim_desc *d, const void *all, int n_parts, double *modes);
/* The same with the sim's phase tables (latmc_modes_sim_phases, or NULL). */
int latmc_modes_combine_phases(const latmc_sim_desc *d, const double *phases, const void *all,
                               int n_parts, double *modes);

/*
 * The whole lattice's modes into `modes` (latmc_modes_tile_doubles doubles): tiles of every
 * plane added in plane order (Ising: the projections'). A part of a shared lattice
 * (lib/part.h) gathers the parts' tiles (collective). LATMC_EUNSUPPORTED for backends
 * without the host reduction.
 */
int latmc_modes_measure(latmc_sim *sim, double *modes);

/*
 * Whether the backend measures the model's sums and the modes in one pass for this sim
 * (ops.measure_modes: the CPU backend, one box, a model whose kernels have it; the CUDA
 * backend, Ising and Potts). A part of a shared lattice: Ising and Potts, the same answer
 * on every part (latmc_part_measure_modes; one pass where the part's backend can,
 * ops.measure_planes_modes).
 */
bool latmc_modes_with_sums_possible(latmc_sim *sim);

/*
 * The model's sums (as ops.measure) and the whole lattice's modes (as latmc_modes_measure)
 * in one pass of the backend, where latmc_modes_with_sums_possible. LATMC_OK, the
 * backend's failure or LATMC_ENOMEM.
 */
int latmc_modes_measure_with_sums(latmc_sim *sim, void *sums, double *modes);

/*
 * Observable `key` (M2_KMIN or OVERLAP2_KMIN) from the whole lattice's modes. The caller
 * has checked that the model defines it and the lattice is cubic.
 */
int latmc_modes_observable(const latmc_sim *sim, const double *modes, int key, double *value);

/*
 * |m(0)|^2 of the Potts simplex order parameter from the state populations count[0 .. q):
 * (q sum_a (n_a / N)^2 - 1) / (q - 1).
 */
double latmc_potts_simplex_m2(const int64_t *count, int q, int64_t n);

#endif
