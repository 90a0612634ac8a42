/* latmc front end — parsing option values, with the usage messages for bad ones. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <latmc/latmc.h>

#include "cli_values.h"
#include "numparse.h"

/* Limits checked here (the library checks the rest). */
#define MAX_EXTENT INT64_C(2147483647)

void cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("latmc: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nUsage: latmc [--model M] [-L SIZE] [--beta B] [--sweeps N] [OPTION]...  "
          "('latmc --help' lists all options)\n", stderr);
}

/* Message for a failed number parse of option `opt`. */
static void number_error(const char *opt, const char *arg, enum num_status st, const char *what)
{
    if (st == NUM_SYNTAX)
        cli_usage_error("%s: '%s' is not %s", opt, arg, what);
    else
        cli_usage_error("%s: '%s' is out of range (%s)", opt, arg, what);
}

bool get_u64(const char *opt, const char *arg, uint64_t lo, uint64_t hi, const char *what,
             uint64_t *out)
{
    enum num_status st = parse_u64(arg, lo, hi, out);
    if (st != NUM_OK) {
        number_error(opt, arg, st, what);
        return false;
    }
    return true;
}

bool get_open_interval(const char *opt, const char *arg, double lo, double hi, double *out)
{
    double v = 0.0;
    enum num_status st = parse_double(arg, false, &v);
    if (st == NUM_SYNTAX) {
        cli_usage_error("%s: '%s' is not a number", opt, arg);
        return false;
    }
    if (st == NUM_RANGE || !(v > lo && v < hi)) {
        cli_usage_error("%s: '%s' is out of range (between %g and %g, exclusive)", opt, arg,
                        lo, hi);
        return false;
    }
    *out = v;
    return true;
}

bool get_name(const char *opt, const char *arg, const struct name_value *table, int *out)
{
    if (!names_lookup(table, arg, out)) {
        cli_usage_error("%s: unknown value '%s' (expected %s)", opt, arg, names_list(table));
        return false;
    }
    return true;
}

bool get_path(const char *opt, const char *arg, const char **out)
{
    if (arg[0] == '\0') {
        cli_usage_error("%s: empty file name", opt);
        return false;
    }
    *out = arg;
    return true;
}

bool set_param(struct cli_options *opt, int key, double value)
{
    for (int i = 0; i < opt->n_params; i++) {
        if (opt->params[i].key == key) {
            opt->params[i].value = value;
            return true;
        }
    }
    if (opt->n_params >= CLI_MAX_PARAMS) {
        cli_usage_error("too many different parameters");
        return false;
    }
    opt->params[opt->n_params].key = key;
    opt->params[opt->n_params].value = value;
    opt->n_params++;
    return true;
}

bool cli_param_given(const struct cli_options *opt, int key, double *value)
{
    for (int i = 0; i < opt->n_params; i++) {
        if (opt->params[i].key == key) {
            if (value != NULL)
                *value = opt->params[i].value;
            return true;
        }
    }
    return false;
}

bool get_param(struct cli_options *opt, const char *optname, int key, const char *arg)
{
    const char *name = latmc_param_name(key);
    bool allow_inf = key == LATMC_PARAM_LAMBDA;
    double v = 0.0;
    enum num_status st = parse_double(arg, allow_inf, &v);
    if (st == NUM_SYNTAX) {
        cli_usage_error("%s: '%s' is not a number", optname, arg);
        return false;
    }
    if (st == NUM_RANGE || (isinf(v) && v < 0)) {
        cli_usage_error("%s: '%s' is out of range (%s must be finite%s)", optname, arg,
                        name != NULL ? name : "the value", allow_inf ? " or +inf" : "");
        return false;
    }
    if (key == LATMC_PARAM_BETA && v < 0) {
        cli_usage_error("%s: '%s' is out of range (beta must be >= 0)", optname, arg);
        return false;
    }
    return set_param(opt, key, v);
}

bool get_named_param(struct cli_options *opt, const char *arg)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL || eq == arg) {
        cli_usage_error("--param: '%s' is not NAME=VALUE", arg);
        return false;
    }
    char name[64];
    size_t len = (size_t)(eq - arg);
    int key = 0;
    if (len >= sizeof name) {
        cli_usage_error("--param: unknown parameter name in '%s'", arg);
        return false;
    }
    memcpy(name, arg, len);
    name[len] = '\0';
    if (latmc_param_by_name(name, &key) != LATMC_OK) { /* the library lists the names */
        cli_usage_error("--param: %s", latmc_last_error());
        return false;
    }
    char optname[96];
    snprintf(optname, sizeof optname, "--param %s", name);
    return get_param(opt, optname, key, eq + 1);
}

bool get_size(const char *arg, int64_t extent[3], int *n)
{
    char buf[128];
    if (strlen(arg) >= sizeof buf || arg[0] == '\0') {
        cli_usage_error("--size: '%s' is not L, LxL or LxLxL", arg);
        return false;
    }
    strcpy(buf, arg);
    int count = 0;
    char *p = buf;
    for (;;) {
        char *sep = p + strcspn(p, "xX");
        bool last = *sep == '\0';
        *sep = '\0';
        uint64_t v = 0;
        enum num_status st = parse_u64(p, 1, (uint64_t)MAX_EXTENT, &v);
        if (st == NUM_SYNTAX) {
            cli_usage_error("--size: '%s' is not L, LxL or LxLxL with positive integers L", arg);
            return false;
        }
        if (st == NUM_RANGE) {
            cli_usage_error("--size: extent %s is out of range (1..%lld)", p,
                            (long long)MAX_EXTENT);
            return false;
        }
        if (count == 3) {
            cli_usage_error("--size: '%s' has more than 3 extents", arg);
            return false;
        }
        extent[count++] = (int64_t)v;
        if (last)
            break;
        p = sep + 1;
    }
    *n = count;
    return true;
}
