/* The phi^4 reduction, generated for float and double fields from the one type-generic
 * body in phi4_measure_impl.h. */
#include "phi4_ref.h"
#include "cpu_omp.h"

#define PHI4_R float
#define PHI4_S f
#include "phi4_measure_impl.h"
#undef PHI4_R
#undef PHI4_S

#define PHI4_R double
#define PHI4_S d
#include "phi4_measure_impl.h"
#undef PHI4_R
#undef PHI4_S
