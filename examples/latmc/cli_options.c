/* latmc front end — command-line parsing (getopt_long) and the --help text. */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "names.h"
#include "numparse.h"

#define STR_(x) #x
#define STR(x) STR_(x)

enum {
    OPT_MODEL = 256, OPT_DIM, OPT_BETA, OPT_J, OPT_H, OPT_PARAM, OPT_ALGO, OPT_SWEEPS,
    OPT_THERM, OPT_EVERY, OPT_SEED, OPT_THREADS, OPT_DEVICE, OPT_START, OPT_CSV, OPT_Q,
    OPT_COUPLINGS, OPT_COUPLING_SEED
};

static const char short_opts[] = ":L:qvhV";

static const struct option long_opts[] = {
    { "model",         required_argument, NULL, OPT_MODEL },
    { "dim",           required_argument, NULL, OPT_DIM },
    { "size",          required_argument, NULL, 'L' },
    { "beta",          required_argument, NULL, OPT_BETA },
    { "J",             required_argument, NULL, OPT_J },
    { "h",             required_argument, NULL, OPT_H },
    { "param",         required_argument, NULL, OPT_PARAM },
    { "algo",          required_argument, NULL, OPT_ALGO },
    { "sweeps",        required_argument, NULL, OPT_SWEEPS },
    { "therm",         required_argument, NULL, OPT_THERM },
    { "every",         required_argument, NULL, OPT_EVERY },
    { "seed",          required_argument, NULL, OPT_SEED },
    { "threads",       required_argument, NULL, OPT_THREADS },
    { "device",        required_argument, NULL, OPT_DEVICE },
    { "start",         required_argument, NULL, OPT_START },
    { "csv",           required_argument, NULL, OPT_CSV },
    { "q",             required_argument, NULL, OPT_Q },
    { "couplings",     required_argument, NULL, OPT_COUPLINGS },
    { "coupling-seed", required_argument, NULL, OPT_COUPLING_SEED },
    { "quiet",         no_argument,       NULL, 'q' },
    { "verbose",       no_argument,       NULL, 'v' },
    { "help",          no_argument,       NULL, 'h' },
    { "version",       no_argument,       NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

/* Limits checked here (the library checks the rest). */
#define MAX_EXTENT   INT64_C(2147483647)
#define MAX_SITES    (INT64_C(1) << 46)
#define MAX_SWEEPS   (UINT64_C(1) << 62)
#define MAX_THREADS  4096

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

void cli_print_help(FILE *f)
{
    fprintf(f,
"Usage: latmc [OPTION]...\n"
"Markov-chain Monte Carlo of a lattice model with liblatmc: thermalize, measure,\n"
"print means, errors and autocorrelation times.\n"
"\n"
"Without simulation options (only --seed, --threads, --device, --start, --csv,\n"
"--quiet, --verbose), latmc runs the default demo: the 2D Ising model at the\n"
"critical point beta_c = ln(1+sqrt 2)/2 on a " STR(DEMO_L) "x" STR(DEMO_L) " lattice,\n"
STR(DEMO_THERM) " + " STR(DEMO_SWEEPS) " sweeps, measured every " STR(DEMO_EVERY) ".\n"
"\n"
"Model:\n"
"  --model M          ising, potts, phi4 or heisenberg (default ising)\n"
"  --dim D            2 or 3 (default 2, or the number of extents in --size)\n"
"  -L, --size SIZE    L (an L^D lattice) or LxL or LxLxL (default " STR(DEFAULT_L) ")\n"
"  --q Q              Potts states, 2..255 (default 2)\n"
"  --couplings C      Heisenberg couplings: uniform, gaussian or bimodal\n"
"  --coupling-seed S  seed of the disorder realisation (default 0)\n"
"Parameters (default: the library's; beta 0, J 1, h 0):\n"
"  --beta B           inverse temperature, >= 0\n"
"  --J J              coupling\n"
"  --h H              external field\n"
"  --param NAME=VAL   any parameter by name: beta, J, h, mu2, g, lambda,\n"
"                     epsilon, nhit, nloc, nover (repeatable; the last value\n"
"                     given for a name wins)\n"
"Run:\n"
"  --algo A           default, metropolis, heatbath or overrelax (default: the\n"
"                     model's default)\n"
"  --therm N          thermalization sweeps, not measured (default " STR(DEFAULT_THERM) ")\n"
"  --sweeps N         measured sweeps (default " STR(DEFAULT_SWEEPS) ")\n"
"  --every K          measure every K sweeps, K >= 1 (default 1)\n"
"  --start S          hot (random) or cold (ordered) start (default hot)\n"
"  --seed S           Monte Carlo seed, 0..2^64-1 (default " STR(DEFAULT_SEED) ")\n"
"  --threads T        CPU threads, 0 = the library's default (default 0)\n"
"  --device D         auto, cpu or cuda (default auto)\n"
"Output:\n"
"  --csv FILE         write the time series of the measurements to FILE: a\n"
"                     header, then one row per measurement (index, energy, m,\n"
"                     absm, m2, m4)\n"
"  -q, --quiet        no progress bar and no banner: only the results\n"
"  -v, --verbose      also print the library's informational messages\n"
"  -h, --help         print this help and exit\n"
"  -V, --version      print the version and exit\n"
"\n"
"The progress bar goes to stderr, and only when stderr is a terminal. Errors of\n"
"the means come from logarithmic binning; tau_int is in units of measurements;\n"
"the Binder cumulant U4 = 1 - <m^4>/(3 <m^2>^2), chi = beta N (<m^2> - <|m|>^2)\n"
"and C = beta^2 N (<e^2> - <e>^2) come with jackknife errors. Ctrl-C stops early\n"
"and prints the results of what was done.\n"
"\n"
"Exit status: 0 success, 1 the library refused or failed, 2 bad command line,\n"
"130 interrupted.\n");
}

static void print_version(void)
{
    printf("latmc (liblatmc) %s\n", latmc_version_string());
    if (strcmp(latmc_version_string(), LATMC_VERSION_STRING) != 0)
        printf("built against liblatmc headers %s\n", LATMC_VERSION_STRING);
}

/* Message for a failed number parse of option `opt`. */
static void number_error(const char *opt, const char *arg, enum num_status st, const char *what)
{
    if (st == NUM_SYNTAX)
        cli_usage_error("%s: '%s' is not %s", opt, arg, what);
    else
        cli_usage_error("%s: '%s' is out of range (%s)", opt, arg, what);
}

static bool get_u64(const char *opt, const char *arg, uint64_t lo, uint64_t hi,
                    const char *what, uint64_t *out)
{
    enum num_status st = parse_u64(arg, lo, hi, out);
    if (st != NUM_OK) {
        number_error(opt, arg, st, what);
        return false;
    }
    return true;
}

static bool get_name(const char *opt, const char *arg, const struct name_value *table, int *out)
{
    if (!names_lookup(table, arg, out)) {
        cli_usage_error("%s: unknown value '%s' (expected %s)", opt, arg, names_list(table));
        return false;
    }
    return true;
}

static bool set_param(struct cli_options *opt, int key, double value)
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

/* A parameter value: finite (lambda may also be +inf); beta >= 0. */
static bool get_param(struct cli_options *opt, const char *optname, int key, const char *arg)
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

/* --param NAME=VALUE */
static bool get_named_param(struct cli_options *opt, const char *arg)
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
    if (latmc_param_by_name(name, &key) != LATMC_OK) {
        cli_usage_error("--param: unknown parameter '%s' (expected beta, J, h, mu2, g, lambda, "
                        "epsilon, nhit, nloc or nover)", name);
        return false;
    }
    char optname[96];
    snprintf(optname, sizeof optname, "--param %s", name);
    return get_param(opt, optname, key, eq + 1);
}

/* -L: "L", "LxL" or "LxLxL" ('x' or 'X'). Sets extent[] and *n (1..3). */
static bool get_size(const char *arg, int64_t extent[3], int *n)
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

static void set_defaults(struct cli_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->model = LATMC_MODEL_ISING;
    opt->ndim = 2;
    opt->q = 2;
    opt->algorithm = LATMC_ALGO_DEFAULT;
    opt->device = LATMC_DEVICE_AUTO;
    opt->start = LATMC_INIT_HOT;
    opt->couplings = LATMC_COUPLINGS_UNIFORM;
    opt->therm = DEFAULT_THERM;
    opt->sweeps = DEFAULT_SWEEPS;
    opt->every = 1;
    opt->seed = DEFAULT_SEED;
    opt->threads = 0;
}

/* After getopt_long returned '?': an unknown option, an ambiguous abbreviation, or a
 * value given to an option that takes none. */
static void report_long(const char *name)
{
    if (strncmp(name, "--", 2) != 0 || name[2] == '\0' || name[2] == '-') {
        cli_usage_error("unknown option '%s'", name);
        return;
    }
    /* an abbreviation of several long options, or of none */
    char matches[256];
    size_t len = 0;
    int count = 0;
    matches[0] = '\0';
    for (const struct option *lo = long_opts; lo->name != NULL; lo++) {
        if (strncmp(lo->name, name + 2, strlen(name + 2)) != 0)
            continue;
        int w = snprintf(matches + len, sizeof matches - len, "%s--%s", count ? ", " : "",
                         lo->name);
        if (w > 0 && (size_t)w < sizeof matches - len)
            len += (size_t)w;
        count++;
    }
    if (count > 1)
        cli_usage_error("ambiguous option '%s' (could be %s)", name, matches);
    else
        cli_usage_error("unknown option '%s'", name);
}

static void report_unknown(int argc, char **argv)
{
    const char *o = optind - 1 >= 1 && optind - 1 < argc ? argv[optind - 1] : "?";
    char name[128];
    size_t n = strcspn(o, "=");
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, o, n);
    name[n] = '\0';
    if (optopt == 'q' || optopt == 'v' || optopt == 'h' || optopt == 'V') {
        /* getopt_long matched a flag spelled --flag=value (optopt is the flag's value) */
        cli_usage_error("option '%s' takes no value", name);
    } else if (optopt != 0) {
        if (optopt > ' ' && optopt < 127)
            cli_usage_error("unknown option '-%c'", optopt);
        else
            cli_usage_error("unknown option");
    } else {
        report_long(name);
    }
}

enum cli_action cli_parse(int argc, char **argv, struct cli_options *opt)
{
    set_defaults(opt);

    bool sim_option = false;        /* any option that defines the simulation */
    bool dim_given = false, size_given = false;
    int64_t size_ext[3] = { 0, 0, 0 };
    int size_n = 0;
    const char *size_arg = "";
    uint64_t u = 0;

    opterr = 0; /* our own messages */
    optind = 1;
    for (;;) {
        int c = getopt_long(argc, argv, short_opts, long_opts, NULL);
        if (c == -1)
            break;
        const char *arg = optarg;
        switch (c) {
        case OPT_MODEL:
            if (!get_name("--model", arg, names_model, &opt->model))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_DIM:
            if (!get_u64("--dim", arg, 2, 3, "2 or 3", &u))
                return CLI_EXIT_USAGE;
            opt->ndim = (int)u;
            dim_given = true;
            sim_option = true;
            break;
        case 'L':
            if (!get_size(arg, size_ext, &size_n))
                return CLI_EXIT_USAGE;
            size_arg = arg;
            size_given = true;
            sim_option = true;
            break;
        case OPT_BETA:
            if (!get_param(opt, "--beta", LATMC_PARAM_BETA, arg))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_J:
            if (!get_param(opt, "--J", LATMC_PARAM_J, arg))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_H:
            if (!get_param(opt, "--h", LATMC_PARAM_H, arg))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_PARAM:
            if (!get_named_param(opt, arg))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_ALGO:
            if (!get_name("--algo", arg, names_algorithm, &opt->algorithm))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_SWEEPS:
            if (!get_u64("--sweeps", arg, 0, MAX_SWEEPS, "a non-negative integer up to 2^62",
                         &opt->sweeps))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_THERM:
            if (!get_u64("--therm", arg, 0, MAX_SWEEPS, "a non-negative integer up to 2^62",
                         &opt->therm))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_EVERY:
            if (!get_u64("--every", arg, 1, MAX_SWEEPS, "a positive integer", &opt->every))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case OPT_SEED:
            if (!get_u64("--seed", arg, 0, UINT64_MAX, "an integer 0..2^64-1", &opt->seed))
                return CLI_EXIT_USAGE;
            break;
        case OPT_THREADS:
            if (!get_u64("--threads", arg, 0, MAX_THREADS, "an integer 0..4096", &u))
                return CLI_EXIT_USAGE;
            opt->threads = (int)u;
            break;
        case OPT_DEVICE:
            if (!get_name("--device", arg, names_device, &opt->device))
                return CLI_EXIT_USAGE;
            break;
        case OPT_START:
            if (!get_name("--start", arg, names_start, &opt->start))
                return CLI_EXIT_USAGE;
            break;
        case OPT_CSV:
            if (arg[0] == '\0') {
                cli_usage_error("--csv: empty file name");
                return CLI_EXIT_USAGE;
            }
            opt->csv_path = arg;
            break;
        case OPT_Q:
            if (!get_u64("--q", arg, 2, 255, "an integer 2..255", &u))
                return CLI_EXIT_USAGE;
            opt->q = (int)u;
            opt->q_given = true;
            sim_option = true;
            break;
        case OPT_COUPLINGS:
            if (!get_name("--couplings", arg, names_couplings, &opt->couplings))
                return CLI_EXIT_USAGE;
            opt->couplings_given = true;
            sim_option = true;
            break;
        case OPT_COUPLING_SEED:
            if (!get_u64("--coupling-seed", arg, 0, UINT64_MAX, "an integer 0..2^64-1",
                         &opt->coupling_seed))
                return CLI_EXIT_USAGE;
            sim_option = true;
            break;
        case 'q':
            opt->quiet = true;
            break;
        case 'v':
            opt->verbose = true;
            break;
        case 'h':
            cli_print_help(stdout);
            return CLI_EXIT_OK;
        case 'V':
            print_version();
            return CLI_EXIT_OK;
        case ':': {
            /* missing value: the option is the last element getopt looked at */
            const char *o = optind - 1 < argc && optind - 1 >= 0 ? argv[optind - 1] : "?";
            if (optopt != 0 && optopt < 256 && strncmp(o, "--", 2) != 0)
                cli_usage_error("option '-%c' needs a value", optopt);
            else
                cli_usage_error("option '%s' needs a value", o);
            return CLI_EXIT_USAGE;
        }
        case '?':
        default:
            report_unknown(argc, argv);
            return CLI_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        cli_usage_error("unexpected argument '%s' (all settings are options)", argv[optind]);
        return CLI_EXIT_USAGE;
    }

    /* Lattice: --size decides the dimension unless it is a single L. */
    int64_t L = sim_option ? DEFAULT_L : DEMO_L;
    if (size_given && size_n == 1) {
        L = size_ext[0];
    } else if (size_given) {
        if (dim_given && size_n != opt->ndim) {
            cli_usage_error("--size '%s' has %d extents but --dim is %d", size_arg, size_n,
                            opt->ndim);
            return CLI_EXIT_USAGE;
        }
        opt->ndim = size_n;
    }
    int64_t sites = 1;
    for (int d = 0; d < opt->ndim; d++) {
        opt->extent[d] = (size_given && size_n > 1) ? size_ext[d] : L;
        if (opt->extent[d] > MAX_SITES / sites) {
            cli_usage_error("--size: lattice too large (more than 2^46 sites)");
            return CLI_EXIT_USAGE;
        }
        sites *= opt->extent[d];
    }

    opt->demo = !sim_option;
    if (opt->demo) {
        opt->therm = DEMO_THERM;
        opt->sweeps = DEMO_SWEEPS;
        opt->every = DEMO_EVERY;
        opt->n_params = 0;
        set_param(opt, LATMC_PARAM_BETA, ISING2D_BETA_C);
    }
    return CLI_RUN;
}
