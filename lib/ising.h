/* Internal: Ising model pieces shared by all backends (decision tables, observables). */
#ifndef LATMC_LIB_ISING_H
#define LATMC_LIB_ISING_H

#include "internal.h"

/* Rebuild the acceptance thresholds from beta, J, h (see struct latmc_ising_tables). */
void latmc_ising_tables_compute(struct latmc_ising_tables *t, int ndim, double beta, double J,
                                double h);

/* Observable `key` of a configuration from its exact sums; LATMC_EUNSUPPORTED if the key is
 * not an Ising observable handled here. */
int latmc_ising_observable(const struct latmc_ising_sums *s, int64_t nsites, double J, double h,
                           int key, double *value);

#endif
