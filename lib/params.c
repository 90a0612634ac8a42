/*
 * Parameter names, defaults and valid ranges. Every range is a closed interval
 * [lo, hi] (latmc_param_bounds()), the same for every model that has the key; integer
 * parameters must also be whole numbers. Rules that tie several parameters together
 * (the phi^4 weight must be normalisable) are checked before sweeping
 * (latmc_params_check_joint()), since set_param sees one value at a time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "params.h"

/*
 * Real parameters are bounded by |value| <= 1e100: no physical coupling, field or
 * temperature is near it, and squares of sums of such values (local fields of vector
 * models) stay finite in double precision. Positive scales (lambda, epsilon) are bounded
 * below by 1e-100 for the same reason: 1/lambda must stay finite.
 */
#define PARAM_MAX_MAGNITUDE 1e100
#define PARAM_MIN_SCALE     1e-100
/* Counts name a 16-bit field of the random-number counter (hits, passes). */
#define PARAM_MAX_COUNT     65535.0

struct param_def {
    const char *name;
    double def;
    double lo, hi;      /* closed: lo <= value <= hi */
    bool integer;       /* whole numbers only */
    const char *why;    /* what the range protects, for the message */
};

static const struct param_def param_defs[LATMC_PARAM_MAX + 1] = {
    [LATMC_PARAM_BETA]    = { "beta", 0.0, 0.0, PARAM_MAX_MAGNITUDE, false,
                              "an inverse temperature" },
    [LATMC_PARAM_J]       = { "J", 1.0, -PARAM_MAX_MAGNITUDE, PARAM_MAX_MAGNITUDE, false, NULL },
    [LATMC_PARAM_H]       = { "h", 0.0, -PARAM_MAX_MAGNITUDE, PARAM_MAX_MAGNITUDE, false, NULL },
    [LATMC_PARAM_MU2]     = { "mu2", 0.0, -PARAM_MAX_MAGNITUDE, PARAM_MAX_MAGNITUDE, false, NULL },
    [LATMC_PARAM_G]       = { "g", 0.0, 0.0, PARAM_MAX_MAGNITUDE, false,
                              "g < 0 gives no normalisable weight" },
    [LATMC_PARAM_LAMBDA]  = { "lambda", INFINITY, PARAM_MIN_SCALE, INFINITY, false,
                              "+inf switches the 1/Lambda term off" },
    [LATMC_PARAM_EPSILON] = { "epsilon", 0.5, PARAM_MIN_SCALE, PARAM_MAX_MAGNITUDE, false,
                              "the proposal half-width" },
    [LATMC_PARAM_NHIT]    = { "nhit", 1.0, 1.0, PARAM_MAX_COUNT, true, "hits per site per pass" },
    [LATMC_PARAM_NLOC]    = { "nloc", 1.0, 1.0, PARAM_MAX_COUNT, true, "passes per sweep" },
    [LATMC_PARAM_NOVER]   = { "nover", 0.0, 0.0, PARAM_MAX_COUNT, true,
                              "overrelaxation passes per sweep" },
    [LATMC_PARAM_DECISIONS] = { "decisions", 0.0, 0.0, 1.0, true,
                                "0: one 32-bit draw per site, 1: bit-sliced decisions" },
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
    /* the known names from the table itself, so that a new parameter is listed */
    char known[256] = "";
    size_t used = 0;
    for (int k = 1; k <= LATMC_PARAM_MAX; k++)
        if (param_defs[k].name && used < sizeof known)
            used += (size_t)snprintf(known + used, sizeof known - used, "%s%s",
                                     used ? " " : "", param_defs[k].name);
    return latmc_fail(LATMC_EINVAL, "latmc_param_by_name: unknown parameter name \"%.64s\" "
                      "(known: %s)", name, known);
}

void latmc_param_defaults(double param[LATMC_PARAM_MAX + 1])
{
    param[0] = 0.0;
    for (int k = 1; k <= LATMC_PARAM_MAX; k++)
        param[k] = param_defs[k].def;
}

int latmc_param_bounds(int model, int key, double *lo, double *hi)
{
    if (!lo || !hi)
        return latmc_fail(LATMC_EINVAL, "latmc_param_bounds: %s is NULL", !lo ? "lo" : "hi");
    const struct latmc_model_def *m = latmc_model_get(model);
    if (!m)
        return latmc_fail(LATMC_EINVAL, "latmc_param_bounds: model = %d is not a "
                          "LATMC_MODEL_* value", model);
    if (!key_known(key))
        return latmc_fail(LATMC_EINVAL, "latmc_param_bounds: unknown parameter key %d", key);
    if (!(m->params & (1u << key)))
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_param_bounds: parameter %s does not "
                          "belong to the %s model", param_defs[key].name, m->name);
    *lo = param_defs[key].lo;
    *hi = param_defs[key].hi;
    return LATMC_OK;
}

int latmc_param_check(int key, double v)
{
    if (!key_known(key))
        return latmc_fail(LATMC_EINVAL, "unknown parameter key %d", key);
    const struct param_def *p = &param_defs[key];
    const char *why = p->why ? p->why : "";
    const char *sep = p->why ? ": " : "";
    if (isnan(v) || v < p->lo || v > p->hi)
        return latmc_fail(LATMC_EINVAL, "parameter %s = %g is outside its range [%g, %g]%s%s",
                          p->name, v, p->lo, p->hi, sep, why);
    if (p->integer && v != floor(v))
        return latmc_fail(LATMC_EINVAL, "parameter %s = %g must be a whole number in [%g, %g]%s%s",
                          p->name, v, p->lo, p->hi, sep, why);
    return LATMC_OK;
}

int latmc_params_check_joint(int model, const double param[LATMC_PARAM_MAX + 1])
{
    if (model != LATMC_MODEL_PHI4)
        return LATMC_OK;
    /* exp(-H) is integrable iff g > 0 (the quartic term wins in every direction), or
     * g = 0 and the Gaussian kernel K(p) = p^2 + mu2 + (p^2)^2/Lambda is positive at every
     * lattice momentum. Its minimum is K(0) = mu2 (p^2 >= 0, Lambda > 0): the 1/Lambda term
     * never helps the uniform mode, so g = 0 needs mu2 > 0. */
    const double mu2 = param[LATMC_PARAM_MU2], g = param[LATMC_PARAM_G];
    if (g == 0.0 && !(mu2 > 0.0))
        return latmc_fail(LATMC_ESTATE, "phi^4 with g = 0 and mu2 = %g: the weight exp(-H) is "
                          "not normalisable (the uniform mode has K(0) = mu2 <= 0, whatever "
                          "lambda); set mu2 > 0 or g > 0 before sweeping", mu2);
    return LATMC_OK;
}
