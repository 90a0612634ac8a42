/* spinglass_replicas — disorder averages with jackknife errors over the samples. */
#ifndef SG_ANALYSIS_H
#define SG_ANALYSIS_H

#include "sg.h"

struct sg_point {
    double e, de;             /* [<e>] */
    double q2, dq2;           /* [<q^2>] */
    double chi, dchi;         /* chi_SG = N [<q^2>] */
    double g, dg;             /* 1/2 (11 - 9 [<q^4>] / [<q^2>]^2): 0 for Gaussian q_{mu nu} */
    double q2_late;           /* [<q^2>] from the second halves of the chains */
    double e_tree;            /* -ndim [J L(beta J)]: the high-temperature limit (see .c) */
    double p[SG_QBINS];       /* [P(log10 q^2)], a density in log10(q^2) (sg.h) */
};

void sg_analyse(const struct sg_study *s, const struct sg_chain *res, struct sg_point *pts);

#endif
