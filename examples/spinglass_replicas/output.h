/* spinglass_replicas — the table, the data files and the gnuplot script. */
#ifndef SG_OUTPUT_H
#define SG_OUTPUT_H

#include <stdbool.h>

#include "analysis.h"

void sg_print(const struct sg_study *s, const struct sg_point *pts);
bool sg_write(const struct sg_study *s, const struct sg_point *pts, const char *dir);

#endif
