/* Internal: the parameter table (names, defaults, ranges). */
#ifndef LATMC_LIB_PARAMS_H
#define LATMC_LIB_PARAMS_H

#include "internal.h"

/* Check a value for a key: LATMC_OK or LATMC_EINVAL with a message naming the rule. */
int latmc_param_check(int key, double value);

/* Fill param[] with every parameter's default. */
void latmc_param_defaults(double param[LATMC_PARAM_MAX + 1]);

#endif
