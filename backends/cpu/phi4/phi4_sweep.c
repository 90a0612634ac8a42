/* The phi^4 Metropolis sweep and hot start, generated for float and double fields from
 * the one type-generic body in phi4_sweep_impl.h. */
#include "phi4_ref.h"
#include "cpu_omp.h"
#include "rng_streams.h"

#define PHI4_BODY "phi4_sweep_impl.h"
#include "phi4_precisions.h"
