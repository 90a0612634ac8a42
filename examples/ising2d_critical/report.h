/* ising2d_critical — what the study prints and writes. */
#ifndef ISING2D_REPORT_H
#define ISING2D_REPORT_H

#include <stdbool.h>

#include "analysis.h"
#include "study.h"

/* The exact critical temperature, 2 / ln(1 + sqrt 2) (Onsager), and the Binder cumulant at
 * criticality of the periodic square lattice, U4* = 1 - 1/(3 * 0.856216) (Salas & Sokal). */
#define TC_EXACT 2.269185314213022
#define U4_STAR 0.61069
/* The second-moment correlation length over L at Tc in infinite volume, 0.9050488292(4)
 * (Salas and Sokal 2000). */
#define XIL_STAR 0.9050488292

/* Print the table of U4 and the crossings on stdout. */
void report_print(const struct study *s, const struct analysis *a);

/* Write ising2d_critical.dat, ising2d_critical_crossings.dat and ising2d_critical.gp in
 * dir. False (with a message) on a write error. */
bool report_write(const struct study *s, const struct analysis *a, const char *dir);

#endif
