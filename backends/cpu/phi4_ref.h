/*
 * The phi^4 reference kernels of the CPU backend, one set per field precision
 * (suffix _f: float, _d: double). Each is generated from one type-generic source
 * (phi4_sweep_impl.h, phi4_measure_impl.h), so the two precisions run the same code.
 */
#ifndef LATMC_CPU_PHI4_REF_H
#define LATMC_CPU_PHI4_REF_H

#include "phi4_lattice.h"

/* One sweep numbered `sweep` (nloc passes over the colours, nhit hits per site and
 * pass); returns the number of accepted hits. */
uint64_t cpu_phi4_sweep_f(const struct phi4_geom *g, float *phi,
                          const struct latmc_phi4_tables *t, uint64_t seed, uint64_t sweep,
                          int n_threads);
uint64_t cpu_phi4_sweep_d(const struct phi4_geom *g, double *phi,
                          const struct latmc_phi4_tables *t, uint64_t seed, uint64_t sweep,
                          int n_threads);

/* Hot start: independent uniforms in (-1, 1) from the INIT stream. */
void cpu_phi4_hot_start_f(const struct phi4_geom *g, float *phi, uint64_t seed, int n_threads);
void cpu_phi4_hot_start_d(const struct phi4_geom *g, double *phi, uint64_t seed, int n_threads);

/* The reduction of lib/phi4.h; `partials` holds PHI4_NPARTIALS doubles per row
 * (L_y L_z rows), so the sum order does not depend on the thread count. */
enum { PHI4_NPARTIALS = 5 };
struct latmc_phi4_sums cpu_phi4_measure_f(const struct phi4_geom *g, const float *phi,
                                          double *partials, int n_threads);
struct latmc_phi4_sums cpu_phi4_measure_d(const struct phi4_geom *g, const double *phi,
                                          double *partials, int n_threads);

#endif
