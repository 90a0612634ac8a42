/* The phi^4 reduction, generated for float and double fields from the one type-generic
 * body in phi4_measure_impl.h. */
#include "phi4_ref.h"
#include "cpu_omp.h"
#include "cpu_projections.h"
#include "modes.h"

#include <stdlib.h>
#include <string.h>

/* A plane's sums: its rows' partials (PHI4_NPARTIALS each) added in order, from zero. */
static struct latmc_phi4_sums phi4_plane_total(const double *rows, int64_t n)
{
    struct latmc_phi4_sums s = { 0, 0, 0, 0, 0 };
    for (int64_t k = 0; k < n; k++) {
        const double *p = rows + PHI4_NPARTIALS * k;
        s.phi += p[0];
        s.phi2 += p[1];
        s.phi4 += p[2];
        s.grad2 += p[3];
        s.lap2 += p[4];
    }
    return s;
}

#define PHI4_BODY "phi4_measure_impl.h"
#include "phi4_precisions.h"
