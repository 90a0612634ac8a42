/* The phi^4 reduction, generated for float and double fields from the one type-generic
 * body in phi4_measure_impl.h. */
#include "phi4_ref.h"
#include "cpu_omp.h"

#define PHI4_BODY "phi4_measure_impl.h"
#include "phi4_precisions.h"
