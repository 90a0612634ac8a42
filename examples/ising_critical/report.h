/* ising_critical — what the study prints and writes. */
#ifndef ISING_CRITICAL_REPORT_H
#define ISING_CRITICAL_REPORT_H

#include <stdbool.h>

#include "analysis.h"
#include "study.h"

/* What the study is compared with, per dimension: the critical temperature, the values
 * at Tc of U4 = 1 - <m^4>/(3<m^2>^2) and of the second-moment xi/L on periodic lattices in
 * infinite volume, and gamma/nu = 2 - eta (chi ~ L^(gamma/nu) at Tc).
 * 2D: Tc = 2 / ln(1 + sqrt 2) (Onsager), U4* = 1 - 1/(3 * 0.856216), xi/L = 0.9050488292(4)
 *     (Salas and Sokal 2000), gamma/nu = 7/4.
 * 3D: beta_c = 0.221654626(5) (Ferrenberg, Xu and Landau 2018), <m^4>/<m^2>^2 = 1.6036(1)
 *     and xi/L = 0.6431(1) (Hasenbusch 2010), eta = 0.0363. */
struct critical_refs {
    double tc, u4_star, xil_star, gamma_nu;
    const char *tc_source;
};

const struct critical_refs *critical_refs(int dim);

/* Print the table of U4 and the crossings on stdout. */
void report_print(const struct study *s, const struct analysis *a);

/* Write ising_critical.dat, ising_critical_crossings.dat and ising_critical.gp in
 * dir. False (with a message) on a write error. */
bool report_write(const struct study *s, const struct analysis *a, const char *dir);

#endif
