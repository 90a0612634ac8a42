/* Parameter names, defaults and ranges; the model table. */
#include <math.h>
#include <string.h>

#include "params.h"

enum param_kind {
    PARAM_ANY,          /* any finite value */
    PARAM_NONNEG,       /* finite, >= 0 */
    PARAM_POSITIVE,     /* finite, > 0 */
    PARAM_POSITIVE_INF, /* > 0, +inf allowed */
    PARAM_COUNT_1,      /* integer in [1, 65535] (16 bits of the RNG counter) */
    PARAM_COUNT_0,      /* integer in [0, 65535] */
};

struct param_def {
    const char *name;
    double def;
    enum param_kind kind;
};

static const struct param_def param_defs[LATMC_PARAM_MAX + 1] = {
    [LATMC_PARAM_BETA]    = { "beta",    0.0,      PARAM_NONNEG },
    [LATMC_PARAM_J]       = { "J",       1.0,      PARAM_ANY },
    [LATMC_PARAM_H]       = { "h",       0.0,      PARAM_ANY },
    [LATMC_PARAM_MU2]     = { "mu2",     0.0,      PARAM_ANY },
    [LATMC_PARAM_G]       = { "g",       0.0,      PARAM_ANY },
    [LATMC_PARAM_LAMBDA]  = { "lambda",  INFINITY, PARAM_POSITIVE_INF },
    [LATMC_PARAM_EPSILON] = { "epsilon", 0.5,      PARAM_POSITIVE },
    [LATMC_PARAM_NHIT]    = { "nhit",    1.0,      PARAM_COUNT_1 },
    [LATMC_PARAM_NLOC]    = { "nloc",    1.0,      PARAM_COUNT_1 },
    [LATMC_PARAM_NOVER]   = { "nover",   0.0,      PARAM_COUNT_0 },
};

static bool key_known(int key)
{
    return key >= 1 && key <= LATMC_PARAM_MAX && param_defs[key].name;
}

const char *latmc_param_name(int key)
{
    return key_known(key) ? param_defs[key].name : NULL;
}

int latmc_param_by_name(const char *name, int *key)
{
    if (!name || !key)
        return latmc_fail(LATMC_EINVAL, "latmc_param_by_name: %s is NULL", name ? "key" : "name");
    for (int k = 1; k <= LATMC_PARAM_MAX; k++) {
        if (param_defs[k].name && strcmp(param_defs[k].name, name) == 0) {
            *key = k;
            return LATMC_OK;
        }
    }
    return latmc_fail(LATMC_EINVAL, "unknown parameter name \"%s\" (known: beta J h mu2 g lambda "
                      "epsilon nhit nloc nover)", name);
}

void latmc_param_defaults(double param[LATMC_PARAM_MAX + 1])
{
    param[0] = 0.0;
    for (int k = 1; k <= LATMC_PARAM_MAX; k++)
        param[k] = param_defs[k].def;
}

/*
 * Real parameters are bounded by |value| <= 1e100: no physical coupling, field or
 * temperature is near it, and squares of sums of such values (local fields of vector
 * models) stay finite in double precision.
 */
#define PARAM_MAX_MAGNITUDE 1e100

int latmc_param_check(int key, double v)
{
    if (!key_known(key))
        return latmc_fail(LATMC_EINVAL, "unknown parameter key %d", key);
    const char *name = param_defs[key].name;
    if (isnan(v))
        return latmc_fail(LATMC_EINVAL, "parameter %s: NaN is not a value", name);
    if (isfinite(v) && fabs(v) > PARAM_MAX_MAGNITUDE)
        return latmc_fail(LATMC_EINVAL, "parameter %s = %g: |value| must be <= %g", name, v,
                          PARAM_MAX_MAGNITUDE);
    switch (param_defs[key].kind) {
    case PARAM_POSITIVE_INF:
        if (!(v > 0))
            return latmc_fail(LATMC_EINVAL, "parameter %s = %g must be > 0 (+inf allowed)", name, v);
        return LATMC_OK;
    case PARAM_ANY:
        if (!isfinite(v))
            return latmc_fail(LATMC_EINVAL, "parameter %s = %g must be finite", name, v);
        return LATMC_OK;
    case PARAM_NONNEG:
        if (!isfinite(v) || v < 0)
            return latmc_fail(LATMC_EINVAL, "parameter %s = %g must be finite and >= 0", name, v);
        return LATMC_OK;
    case PARAM_POSITIVE:
        if (!isfinite(v) || v <= 0)
            return latmc_fail(LATMC_EINVAL, "parameter %s = %g must be finite and > 0", name, v);
        return LATMC_OK;
    case PARAM_COUNT_1:
    case PARAM_COUNT_0: {
        double lo = param_defs[key].kind == PARAM_COUNT_1 ? 1.0 : 0.0;
        if (!isfinite(v) || v != floor(v) || v < lo || v > 65535.0)
            return latmc_fail(LATMC_EINVAL, "parameter %s = %g must be an integer in [%g, 65535]",
                              name, v, lo);
        return LATMC_OK;
    }
    }
    return latmc_fail(LATMC_EINVAL, "parameter %s: no rule", name);
}
