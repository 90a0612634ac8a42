/*
 * Internal: the Fourier modes at k_min behind the finite-size-scaling observables
 * (LATMC_OBS_M2_KMIN, LATMC_OBS_OVERLAP2_KMIN; doc/observables.md).
 *
 * Every model sums projections onto each axis, P_mu[x] = the sum of a site value over the
 * sites with x_mu = x: Ising the spin, Potts each state's indicator (q sets), phi^4 the
 * field in fixed point (latmc_modes_field_fixed), Heisenberg each spin component in fixed
 * point (latmc_modes_fixed; with two replicas also the nine products). Integers, whose
 * sums do not depend on their order at all, so any thread, box or part may add any
 * planes; the modes are then sum_x P_mu[x] e^{i k_mu x}, k_mu = 2 pi / L_mu, summed
 * exactly (latmc_modes_exact_sum), once, times the fixed point's scale
 * (latmc_modes_scale). So the result depends on the configuration only, never on
 * threads, boxes or ranks. A backend may count the projections on its own layout
 * (ops.mode_projections), in the measurement's pass (ops.measure_modes), or transform
 * them itself (ops.measure_kmin: the exact sums, which the core scales).
 *
 * Components: Ising 1 (the spin), phi^4 1 (the field), Potts q (the indicator of each
 * state; the simplex order parameter is built from them), Heisenberg 3 (replica 0's
 * spin), and with two replicas 9 more (s^0_mu s^1_nu, the tensor overlap).
 * A part's partial result is its projections (latmc_modes_partial), and the whole
 * lattice's modes come from every part's (latmc_modes_combine).
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

/* Components of the model's site values (see above). */
int latmc_modes_components(const latmc_sim_desc *d);

/* Doubles of the modes: components x ndim x 2 (re, im). */
size_t latmc_modes_doubles(const latmc_sim_desc *d);

/*
 * Plane p's fixed-point projections of a phi^4 sim of desc d added into proj
 * (latmc_modes_projection_entries int64) from the plane's sites at `plane` (natural
 * order, floats or doubles as d->precision): exactly what latmc_modes_projections adds
 * for that plane, for a backend that counts them in its measurement's pass
 * (ops.measure_modes).
 */
void latmc_modes_phi4_project(const latmc_sim_desc *d, const void *plane, int64_t p,
                              int64_t *proj);

/* The scale of the modes of the model's projections: 1 (Ising, Potts), 2^-20 (phi^4's
 * fixed point), 2^-25 (Heisenberg's). */
double latmc_modes_scale(const latmc_sim_desc *d);

/*
 * phi^4: whether the field whose sum of phi^2 is phi2 lies within the fixed point's
 * bound (lib/modes_exact.h, LATMC_MODES_FIELD_SCALE), so that the modes counted from it
 * are exact: LATMC_OK, else LATMC_EUNSUPPORTED with the reason. Other models: LATMC_OK.
 */
int latmc_modes_field_range(const latmc_sim *sim, double phi2);

/*
 * Plane p's fixed-point projections of a Heisenberg sim of desc d added into proj
 * (latmc_modes_projection_entries int64) from the plane's sites of replica 0 at r0 and,
 * with two replicas, of replica 1 at r1 (3 floats a site, natural order): exactly what
 * latmc_modes_projections adds for that plane, for a backend that counts them in its
 * measurement's pass (ops.measure_modes).
 */
void latmc_modes_heisenberg_project(const latmc_sim_desc *d, const float *r0, const float *r1,
                                    int64_t p, int64_t *proj);

/* Entries of the projections, L_0 + ... + L_{d-1} (axis mu's after those of the axes
 * before it), one such block per component (Potts: state a's at a (L_0 + ... + L_{d-1})). */
int64_t latmc_modes_projection_entries(const latmc_sim_desc *d);

/* The projections of planes [p0, p1) added into proj (integers: in any order), from
 * ops.get_planes, sim->n_threads threads over the planes. */
int latmc_modes_projections(latmc_sim *sim, int64_t p0, int64_t p1, int64_t *proj);

/* The sim's phase tables, cos then sin of 2 pi x / L_mu for each axis in turn, made on
 * first use and kept (sim->mode_phases); NULL after latmc_fail(LATMC_ENOMEM). */
const double *latmc_modes_sim_phases(latmc_sim *sim);

/* The modes (each component) from the whole lattice's projections,
 * sum_x P_mu[x] e^{2 pi i x / L_mu}, each of the real and imaginary parts by
 * latmc_modes_exact_sum, times latmc_modes_scale; phases: latmc_modes_sim_phases, or NULL
 * (made here). LATMC_OK or LATMC_ENOMEM. */
int latmc_modes_of_projections(const latmc_sim_desc *d, const double *phases,
                               const int64_t *proj, double *modes);

/*
 * sum_x proj[x] table[x], x in [0, L), exactly: each phase as its fixed-point weight and
 * the products summed in 128-bit integers (lib/modes_exact.h), then made a double by one
 * fixed rule, so that any backend or part may sum its own projections and the sums add up
 * to the same bits (ops.measure_kmin).
 */
double latmc_modes_exact_sum(const int64_t *proj, const double *table, int64_t L);

/* Bytes of a partial result: the projections (the same for any planes). */
size_t latmc_modes_partial_bytes(const latmc_sim_desc *d);

/* The partial result of planes [p0, p1) into out (latmc_modes_partial_bytes). */
int latmc_modes_partial(latmc_sim *sim, int64_t p0, int64_t p1, void *out);

/* The whole lattice's modes (latmc_modes_doubles doubles) from the partial results of
 * n_parts parts, one after the other: their projections summed and transformed. */
int latmc_modes_combine(const latmc_sim_desc *d, const void *all, int n_parts, double *modes);
/* The same with the sim's phase tables (latmc_modes_sim_phases, or NULL). */
int latmc_modes_combine_phases(const latmc_sim_desc *d, const double *phases, const void *all,
                               int n_parts, double *modes);

/*
 * The whole lattice's modes into `modes` (latmc_modes_doubles doubles) from its
 * projections. A part of a shared lattice (lib/part.h) gathers the parts' projections
 * (collective). LATMC_EUNSUPPORTED for backends without the host reduction.
 */
int latmc_modes_measure(latmc_sim *sim, double *modes);

/*
 * Whether the backend measures the model's sums and the modes in one pass for this sim
 * (ops.measure_modes: the CPU backend, one box, a model whose kernels have it; the CUDA
 * backend). A part of a shared lattice: every model, the same answer on every part (latmc_part_measure_modes; one pass where the part's backend can,
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
