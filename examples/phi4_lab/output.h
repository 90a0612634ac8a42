/* phi4_lab — the table on stdout, the data file and the gnuplot script. */
#ifndef PHI4_LAB_OUTPUT_H
#define PHI4_LAB_OUTPUT_H

#include <stdbool.h>

#include "lab.h"

void lab_print(const struct lab *lab, const struct lab_point *res);

/* phi4_lab.dat and phi4_lab.gp in dir. */
bool lab_write(const struct lab *lab, const struct lab_point *res, const char *dir);

#endif
