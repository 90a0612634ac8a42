/*
 * The phi^4 reference kernels of the CPU backend, one set per field precision
 * (suffix _f: float, _d: double). Each is generated from one type-generic source
 * (phi4_sweep_impl.h, phi4_measure_impl.h), so the two precisions run the same code.
 */
#ifndef LATMC_CPU_PHI4_REF_H
#define LATMC_CPU_PHI4_REF_H

#include "phi4_lattice.h"
#include "rng_streams.h" /* struct latmc_rng_name */

struct cpu_team;

/* One step of the plan: colour `colour` of the step whose first draws (hit 0, draw 0) are
 * `name` (struct latmc_step's rng: its pass's sweep word, latmc_phi4_rng_sweep) on the
 * boxes' within-colour numbers, team member `team`'s share (cpu_omp.h); returns its
 * accepted hits. */
uint64_t cpu_phi4_step_f(const struct phi4_geom *g, float *phi, const struct latmc_phi4_tables *t,
                         uint64_t seed, struct latmc_rng_name name, int colour,
                         const struct phi4_range *boxes, int n_boxes,
                         const struct cpu_team *team);
uint64_t cpu_phi4_step_d(const struct phi4_geom *g, double *phi,
                         const struct latmc_phi4_tables *t, uint64_t seed,
                         struct latmc_rng_name name, int colour,
                         const struct phi4_range *boxes, int n_boxes,
                         const struct cpu_team *team);

/* The chunk schedule's colour step on the segments' numbers, by the caller alone
 * (phi4_dsp.h, segments_f/_d). */
uint64_t cpu_phi4_segments_f(const struct phi4_geom *g, float *phi,
                             const struct latmc_phi4_tables *t, uint64_t seed,
                             struct latmc_rng_name name, int colour,
                             const struct phi4_range *segs, int n_segs);
uint64_t cpu_phi4_segments_d(const struct phi4_geom *g, double *phi,
                             const struct latmc_phi4_tables *t, uint64_t seed,
                             struct latmc_rng_name name, int colour,
                             const struct phi4_range *segs, int n_segs);

/* Hot start: independent uniforms in (-1, 1) from the INIT stream. */
void cpu_phi4_hot_start_f(const struct phi4_geom *g, float *phi, uint64_t seed, int n_threads);
void cpu_phi4_hot_start_d(const struct phi4_geom *g, double *phi, uint64_t seed, int n_threads);
/* Slab-only storage: sites [i0, i1) of the global hot start into out[0 ..). */
void cpu_phi4_hot_range_f(float *out, int64_t i0, int64_t i1, uint64_t seed);
void cpu_phi4_hot_range_d(double *out, int64_t i0, int64_t i1, uint64_t seed);

/* The reduction of lib/phi4.h for each plane p0 <= p < p1 along the last axis (a row in
 * 2D, L_y rows in 3D) into planes[p - p0]; `partials` holds PHI4_NPARTIALS doubles per
 * row of those planes, so the sum order does not depend on the thread count. */
enum { PHI4_NPARTIALS = 5 };
void cpu_phi4_measure_planes_f(const struct phi4_geom *g, const float *phi, double *partials,
                               int64_t p0, int64_t p1, struct latmc_phi4_sums *planes,
                               int n_threads);
void cpu_phi4_measure_planes_d(const struct phi4_geom *g, const double *phi, double *partials,
                               int64_t p0, int64_t p1, struct latmc_phi4_sums *planes,
                               int n_threads);
/* The same from the SIMD levels' colour-transposed field (phi4_dsp.h: each row's sites of
 * colour r at r L_x / ncolours + m), read in place: the same doubles. */
void cpu_phi4_measure_planes_transposed_f(const struct phi4_geom *g, const float *phi,
                                          double *partials, int64_t p0, int64_t p1,
                                          struct latmc_phi4_sums *planes, int n_threads);
void cpu_phi4_measure_planes_transposed_d(const struct phi4_geom *g, const double *phi,
                                          double *partials, int64_t p0, int64_t p1,
                                          struct latmc_phi4_sums *planes, int n_threads);

/* The same for every plane of the lattice (p0 = 0, p1 = L) and, in the same pass, the
 * fixed-point projections of the Fourier modes at k_min (latmc_modes_phi4_project,
 * lib/modes.h) into proj (latmc_modes_projection_entries of desc d, set here), each
 * thread into its own, added up after; the field in natural order (nc 0) or the SIMD
 * levels' colour-transposed one with nc colours, read in place: the same doubles and
 * integers. LATMC_OK or LATMC_ENOMEM. */
int cpu_phi4_measure_projections_f(const latmc_sim_desc *d, const struct phi4_geom *g,
                                   const float *phi, int nc, double *partials,
                                   struct latmc_phi4_sums *planes, int64_t *proj,
                                   int n_threads);
int cpu_phi4_measure_projections_d(const latmc_sim_desc *d, const struct phi4_geom *g,
                                   const double *phi, int nc, double *partials,
                                   struct latmc_phi4_sums *planes, int64_t *proj,
                                   int n_threads);

#endif
