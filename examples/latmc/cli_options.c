/* latmc front end — command-line parsing (getopt_long), defaults, cross-option checks. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "cli_values.h"
#include "names.h"

enum {
    OPT_MODEL = 256, OPT_DIM, OPT_BETA, OPT_J, OPT_H, OPT_PARAM, OPT_ALGO, OPT_SWEEPS,
    OPT_THERM, OPT_EVERY, OPT_SEED, OPT_THREADS, OPT_DEVICE, OPT_START, OPT_CSV, OPT_Q,
    OPT_COUPLINGS, OPT_COUPLING_SEED, OPT_PRECISION, OPT_REPLICAS, OPT_TUNE_EPSILON,
    OPT_CHECKPOINT, OPT_CHECKPOINT_EVERY, OPT_RESUME, OPT_JSON, OPT_HDF5, OPT_STRICT,
    OPT_CHECKPOINT_FAILURE, OPT_DEVICES
};

static const char short_opts[] = ":L:qvhV";

static const struct option long_opts[] = {
    { "model",            required_argument, NULL, OPT_MODEL },
    { "dim",              required_argument, NULL, OPT_DIM },
    { "size",             required_argument, NULL, 'L' },
    { "beta",             required_argument, NULL, OPT_BETA },
    { "J",                required_argument, NULL, OPT_J },
    { "h",                required_argument, NULL, OPT_H },
    { "param",            required_argument, NULL, OPT_PARAM },
    { "algo",             required_argument, NULL, OPT_ALGO },
    { "sweeps",           required_argument, NULL, OPT_SWEEPS },
    { "therm",            required_argument, NULL, OPT_THERM },
    { "every",            required_argument, NULL, OPT_EVERY },
    { "seed",             required_argument, NULL, OPT_SEED },
    { "threads",          required_argument, NULL, OPT_THREADS },
    { "device",           required_argument, NULL, OPT_DEVICE },
    { "devices",          required_argument, NULL, OPT_DEVICES },
    { "start",            required_argument, NULL, OPT_START },
    { "csv",              required_argument, NULL, OPT_CSV },
    { "q",                required_argument, NULL, OPT_Q },
    { "couplings",        required_argument, NULL, OPT_COUPLINGS },
    { "coupling-seed",    required_argument, NULL, OPT_COUPLING_SEED },
    { "precision",        required_argument, NULL, OPT_PRECISION },
    { "replicas",         required_argument, NULL, OPT_REPLICAS },
    { "tune-epsilon",     required_argument, NULL, OPT_TUNE_EPSILON },
    { "checkpoint",       required_argument, NULL, OPT_CHECKPOINT },
    { "checkpoint-every", required_argument, NULL, OPT_CHECKPOINT_EVERY },
    { "resume",           required_argument, NULL, OPT_RESUME },
    { "checkpoint-failure", required_argument, NULL, OPT_CHECKPOINT_FAILURE },
    { "json",             required_argument, NULL, OPT_JSON },
    { "hdf5",             required_argument, NULL, OPT_HDF5 },
    { "strict",           no_argument,       NULL, OPT_STRICT },
    { "quiet",            no_argument,       NULL, 'q' },
    { "verbose",          no_argument,       NULL, 'v' },
    { "help",             no_argument,       NULL, 'h' },
    { "version",          no_argument,       NULL, 'V' },
    { NULL, 0, NULL, 0 },
};

#define MAX_SITES    (INT64_C(1) << 46)
/* The library's random-number counters name 2^48 sweeps (phi^4: 2^48 / nloc): more could
 * never run, so they are refused here at once instead of after years of sweeping. */
#define MAX_SWEEPS   (UINT64_C(1) << 48)
#define MAX_THREADS  4096
#define SWEEPS_WHAT  "a non-negative integer up to 2^48"

static void set_defaults(struct cli_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->model = LATMC_MODEL_ISING;
    opt->ndim = 2;
    opt->q = 2;
    opt->algorithm = LATMC_ALGO_DEFAULT;
    opt->precision = LATMC_PRECISION_DOUBLE;
    opt->replicas = 1;
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
    char matches[512];
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
    if (optopt == 'q' || optopt == 'v' || optopt == 'h' || optopt == 'V' ||
        optopt == OPT_STRICT) {
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

static void report_missing_value(int argc, char **argv)
{
    /* the option is the last element getopt looked at */
    const char *o = optind - 1 < argc && optind - 1 >= 0 ? argv[optind - 1] : "?";
    if (optopt != 0 && optopt < 256 && strncmp(o, "--", 2) != 0)
        cli_usage_error("option '-%c' needs a value", optopt);
    else
        cli_usage_error("option '%s' needs a value", o);
}

/* What the loop collects besides *opt. */
struct parse_state {
    bool sim_option; /* any option that defines the simulation: no demo */
    int64_t size_ext[3];
    int size_n;
    const char *size_arg;
};

/* One option. Returns CLI_RUN to go on. */
static enum cli_action parse_one(int c, const char *arg, struct cli_options *opt,
                                 struct parse_state *ps)
{
    uint64_t u = 0;
    bool ok = true;
    bool sim = true; /* does this option define the simulation? */
    switch (c) {
    case OPT_MODEL:
        ok = get_name("--model", arg, names_models(), &opt->model);
        opt->model_given = true;
        break;
    case OPT_DIM:
        ok = get_u64("--dim", arg, 2, 3, "2 or 3", &u);
        opt->ndim = (int)u;
        opt->dim_given = true;
        break;
    case 'L':
        ok = get_size(arg, ps->size_ext, &ps->size_n);
        ps->size_arg = arg;
        opt->size_given = true;
        break;
    case OPT_BETA: ok = get_param(opt, "--beta", LATMC_PARAM_BETA, arg); break;
    case OPT_J: ok = get_param(opt, "--J", LATMC_PARAM_J, arg); break;
    case OPT_H: ok = get_param(opt, "--h", LATMC_PARAM_H, arg); break;
    case OPT_PARAM: ok = get_named_param(opt, arg); break;
    case OPT_ALGO:
        ok = get_name("--algo", arg, names_algorithm, &opt->algorithm);
        opt->algo_given = true;
        break;
    case OPT_SWEEPS: ok = get_u64("--sweeps", arg, 0, MAX_SWEEPS, SWEEPS_WHAT, &opt->sweeps); break;
    case OPT_THERM: ok = get_u64("--therm", arg, 0, MAX_SWEEPS, SWEEPS_WHAT, &opt->therm); break;
    case OPT_EVERY:
        ok = get_u64("--every", arg, 1, MAX_SWEEPS, "a positive integer", &opt->every);
        break;
    case OPT_Q:
        ok = get_u64("--q", arg, 2, 255, "an integer 2..255", &u);
        opt->q = (int)u;
        opt->q_given = true;
        break;
    case OPT_COUPLINGS:
        ok = get_name("--couplings", arg, names_couplings, &opt->couplings);
        opt->couplings_given = true;
        break;
    case OPT_COUPLING_SEED:
        ok = get_u64("--coupling-seed", arg, 0, UINT64_MAX, "an integer 0..2^64-1",
                     &opt->coupling_seed);
        opt->coupling_seed_given = true;
        break;
    case OPT_PRECISION:
        ok = get_name("--precision", arg, names_precision, &opt->precision);
        opt->precision_given = true;
        break;
    case OPT_REPLICAS:
        ok = get_u64("--replicas", arg, 1, 2, "1 or 2", &u);
        opt->replicas = (int)u;
        opt->replicas_given = true;
        break;
    case OPT_TUNE_EPSILON:
        ok = get_open_interval("--tune-epsilon", arg, 0.0, 1.0, &opt->tune_target);
        break;
    default:
        sim = false;
        break;
    }
    if (sim) {
        ps->sim_option = true;
        return ok ? CLI_RUN : CLI_EXIT_USAGE;
    }

    switch (c) {
    case OPT_SEED:
        ok = get_u64("--seed", arg, 0, UINT64_MAX, "an integer 0..2^64-1", &opt->seed);
        opt->seed_given = true;
        break;
    case OPT_THREADS:
        ok = get_u64("--threads", arg, 0, MAX_THREADS, "an integer 0..4096", &u);
        opt->threads = (int)u;
        opt->threads_given = true;
        break;
    case OPT_DEVICE:
        ok = get_name("--device", arg, names_device, &opt->device);
        opt->device_given = true;
        break;
    case OPT_DEVICES:
        ok = get_u64("--devices", arg, 1, 1024, "an integer 1..1024", &u);
        opt->devices = (int)u;
        break;
    case OPT_START: ok = get_name("--start", arg, names_start, &opt->start); break;
    case OPT_CSV: ok = get_path("--csv", arg, &opt->csv_path); break;
    case OPT_CHECKPOINT: ok = get_path("--checkpoint", arg, &opt->checkpoint_path); break;
    case OPT_CHECKPOINT_EVERY:
        ok = get_u64("--checkpoint-every", arg, 1, MAX_SWEEPS, "a positive integer",
                     &opt->checkpoint_every);
        break;
    case OPT_RESUME: ok = get_path("--resume", arg, &opt->resume_path); break;
    case OPT_JSON: ok = get_path("--json", arg, &opt->json_path); break;
    case OPT_HDF5:
#if LATMC_CLI_HDF5
        ok = get_path("--hdf5", arg, &opt->hdf5_path);
#else
        cli_usage_error("--hdf5: this latmc was built without HDF5 (configure with "
                        "-Dhdf5=enabled; needs libhdf5-dev)");
        ok = false;
#endif
        break;
    case OPT_STRICT: opt->strict = true; break;
    case OPT_CHECKPOINT_FAILURE: {
        static const struct name_value policies[] = { { "retry", 0 }, { "stop", 1 },
                                                      { NULL, 0 } };
        int v = 0;
        ok = get_name("--checkpoint-failure", arg, policies, &v);
        opt->checkpoint_stop = v == 1;
        break;
    }
    case 'q': opt->quiet = true; break;
    case 'v': opt->verbose = true; break;
    case 'h':
        cli_print_help(stdout);
        return CLI_EXIT_OK;
    case 'V':
        cli_print_version();
        return CLI_EXIT_OK;
    default: /* ':' and '?' are handled by the caller */
        ok = false;
        break;
    }
    return ok ? CLI_RUN : CLI_EXIT_USAGE;
}

/* The lattice from --dim, --size and the model's defaults. */
static bool finish_lattice(struct cli_options *opt, const struct parse_state *ps)
{
    int64_t L = !ps->sim_option ? DEMO_L
              : opt->model == LATMC_MODEL_PHI4 ? DEFAULT_L_PHI4
              : opt->model == LATMC_MODEL_HEISENBERG ? DEFAULT_L_HEISENBERG : DEFAULT_L;
    if (!opt->dim_given && opt->model == LATMC_MODEL_HEISENBERG)
        opt->ndim = DEFAULT_DIM_HEISENBERG;
    /* --size decides the dimension unless it is a single L */
    if (opt->size_given && ps->size_n == 1) {
        L = ps->size_ext[0];
    } else if (opt->size_given) {
        if (opt->dim_given && ps->size_n != opt->ndim) {
            cli_usage_error("--size '%s' has %d extents but --dim is %d", ps->size_arg,
                            ps->size_n, opt->ndim);
            return false;
        }
        opt->ndim = ps->size_n;
        opt->dim_given = true;
    }
    int64_t sites = 1;
    for (int d = 0; d < opt->ndim; d++) {
        opt->extent[d] = (opt->size_given && ps->size_n > 1) ? ps->size_ext[d] : L;
        if (opt->extent[d] > MAX_SITES / sites) {
            cli_usage_error("--size: lattice too large (more than 2^46 sites)");
            return false;
        }
        sites *= opt->extent[d];
    }
    return true;
}

/* An option of some models only (the library ignores its desc field for the others):
 * `models` a mask of (1 << model), `names` how the message lists them. */
static bool only_for(const struct cli_options *opt, bool given, unsigned models,
                     const char *names, const char *option)
{
    if (given && !(models & (1u << opt->model))) {
        cli_usage_error("%s applies to the %s only (this is %s)", option, names,
                        names_of(names_models(), opt->model, "?"));
        return false;
    }
    return true;
}

static bool check_combinations(const struct cli_options *opt)
{
    /* the models with couplings: Ising (uniform or +-J), Heisenberg (also Gaussian); the
     * library says which kinds a model takes */
    const unsigned coupled = (1u << LATMC_MODEL_ISING) | (1u << LATMC_MODEL_HEISENBERG);
    if (!only_for(opt, opt->q_given, 1u << LATMC_MODEL_POTTS, "potts model", "--q") ||
        !only_for(opt, opt->precision_given, 1u << LATMC_MODEL_PHI4, "phi4 model",
                  "--precision") ||
        !only_for(opt, opt->couplings_given, coupled, "ising and heisenberg models",
                  "--couplings") ||
        !only_for(opt, opt->coupling_seed_given, coupled, "ising and heisenberg models",
                  "--coupling-seed"))
        return false;
    if (opt->therm + opt->sweeps > MAX_SWEEPS) { /* each at most 2^48: no overflow */
        cli_usage_error("--therm %" PRIu64 " plus --sweeps %" PRIu64 " pass the 2^48 sweeps "
                        "the library's random-number counters can name", opt->therm,
                        opt->sweeps);
        return false;
    }
    if (opt->checkpoint_every != 0 && opt->checkpoint_path == NULL) {
        cli_usage_error("--checkpoint-every needs --checkpoint FILE");
        return false;
    }
    if (opt->csv_path != NULL && opt->json_path != NULL &&
        strcmp(opt->csv_path, opt->json_path) == 0) {
        cli_usage_error("--csv and --json name the same %s",
                        strcmp(opt->csv_path, "-") == 0 ? "standard output" : "file");
        return false;
    }
    const char *outs[3] = { opt->csv_path, opt->json_path, opt->hdf5_path };
    for (int i = 0; i < 3; i++) {
        const char *p = outs[i];
        if (p != NULL && ((opt->checkpoint_path && strcmp(p, opt->checkpoint_path) == 0) ||
                          (opt->resume_path && strcmp(p, opt->resume_path) == 0))) {
            cli_usage_error("%s %s would overwrite the checkpoint",
                            i == 0 ? "--csv" : i == 1 ? "--json" : "--hdf5", p);
            return false;
        }
    }
    return true;
}

/*
 * The temperature rule: a fresh run must say where in its phase diagram it runs. The
 * library's defaults are no physics choice (beta = 0 is infinite temperature, where
 * Metropolis flips every spin every sweep: a periodic chain whose "errors" are exactly
 * 0), so they are never used silently. Ising, Potts and Heisenberg need beta; phi^4 has
 * no beta (its weight is exp(-H)), and mu2 and g play that role. A resumed run takes
 * them from the checkpoint.
 */
static bool check_temperature(const struct cli_options *opt)
{
    if (opt->resume_path != NULL)
        return true;
    if (opt->model != LATMC_MODEL_PHI4) {
        if (cli_param_given(opt, LATMC_PARAM_BETA, NULL))
            return true;
        cli_usage_error("the %s model needs --beta B, the inverse temperature (no default: "
                        "beta = 0 is infinite temperature, where Metropolis is degenerate)",
                        names_of(names_models(), opt->model, "?"));
        return false;
    }
    double mu2 = 0.0, g = 0.0;
    bool have_mu2 = cli_param_given(opt, LATMC_PARAM_MU2, &mu2);
    bool have_g = cli_param_given(opt, LATMC_PARAM_G, &g);
    if (!have_mu2 || !have_g) {
        cli_usage_error("the phi4 model needs --param mu2=M and --param g=G (they place it in "
                        "its phase diagram, as beta does for the other models; missing: %s)",
                        !have_mu2 && !have_g ? "mu2 and g" : !have_mu2 ? "mu2" : "g");
        return false;
    }
    if (g == 0.0 && mu2 <= 0.0) {
        cli_usage_error("phi4 with g = 0 and mu2 = %g <= 0 has no normalisable weight (the "
                        "zero mode is free): give g > 0 or mu2 > 0", mu2);
        return false;
    }
    return true;
}

enum cli_action cli_parse(int argc, char **argv, struct cli_options *opt)
{
    set_defaults(opt);
    struct parse_state ps;
    memset(&ps, 0, sizeof ps);
    ps.size_arg = "";

    opterr = 0; /* our own messages */
    optind = 1;
    for (;;) {
        int c = getopt_long(argc, argv, short_opts, long_opts, NULL);
        if (c == -1)
            break;
        if (c == ':') {
            report_missing_value(argc, argv);
            return CLI_EXIT_USAGE;
        }
        if (c == '?') {
            report_unknown(argc, argv);
            return CLI_EXIT_USAGE;
        }
        enum cli_action a = parse_one(c, optarg, opt, &ps);
        if (a != CLI_RUN)
            return a;
    }
    if (optind < argc) {
        cli_usage_error("unexpected argument '%s' (all settings are options)", argv[optind]);
        return CLI_EXIT_USAGE;
    }
    if (!finish_lattice(opt, &ps) || !check_combinations(opt))
        return CLI_EXIT_USAGE;

    opt->demo = !ps.sim_option;
    if (!opt->demo && !check_temperature(opt))
        return CLI_EXIT_USAGE;
    if (opt->demo) {
        opt->therm = DEMO_THERM;
        opt->sweeps = DEMO_SWEEPS;
        opt->every = DEMO_EVERY;
        opt->n_params = 0;
        set_param(opt, LATMC_PARAM_BETA, ISING2D_BETA_C);
        opt->model_given = opt->size_given = opt->dim_given = true; /* for --resume */
    }
    return CLI_RUN;
}
