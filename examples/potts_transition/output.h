/* potts_transition — data files and the gnuplot script. */
#ifndef POTTS_OUTPUT_H
#define POTTS_OUTPUT_H

#include <stdbool.h>

#include "potts.h"
#include "reweight.h"

/* Everything one case produced, for the files. */
struct case_result {
    const struct potts_case *c;
    const struct scan_point *pts;
    struct binned at_beta_c;
    bool have_reweighted;     /* q > 4 with a double peak: the distribution at beta_eqw */
    double beta_eqw;
    struct binned at_eqw;
};

/* potts_scan.dat, potts_hist.dat and potts_transition.gp in dir (ncases blocks each). */
bool output_write(const struct case_result *r, int ncases, const char *dir);

#endif
