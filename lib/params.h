/* Internal: the parameter table (names, defaults, ranges) and the rules between them. */
#ifndef LATMC_LIB_PARAMS_H
#define LATMC_LIB_PARAMS_H

#include "internal.h"

/* Check a value for a key: LATMC_OK or LATMC_EINVAL with a message naming the range.
 * The ranges do not depend on the model (latmc_param_bounds()); set_param and the
 * checkpoint loader both use this one check. */
int latmc_param_check(int key, double value);

/* The rules between parameters of one model that single values cannot break alone
 * (phi^4: g = 0 needs mu2 > 0). LATMC_OK or LATMC_ESTATE with a message; checked before
 * every sweep, not by set_param (which sees one value at a time, in any order). */
int latmc_params_check_joint(int model, const double param[LATMC_PARAM_MAX + 1]);

/* Fill param[] with every parameter's default. */
void latmc_param_defaults(double param[LATMC_PARAM_MAX + 1]);

#endif
