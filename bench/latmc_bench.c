/*
 * latmc-bench: update rate of one configuration, or of two run alternately in one process
 * (both see the same machine state), with their ratio.
 *
 *   latmc-bench [--model ising|potts|phi4|heisenberg] [--q Q] [--dim 2|3] [-L L]
 *               [--extents AxB[xC]] [--algo metropolis|heatbath|overrelax|sw|wolff] [--beta B]
 *               [--param NAME=VALUE]... [--NAME VALUE]... [--precision float|double]
 *               [--couplings uniform|gaussian|bimodal] [--replicas 1|2]
 *               [--device cpu|cuda] [--threads T] [--simd c|avx2|avx512] [--env VAR=VALUE]...
 *               [--parts K] [--sweeps N] [--repeat R]
 *               [--compare-device cpu|cuda] [--compare-threads T] [--compare-simd LEVEL]
 *               [--compare-parts K] [--devices N] [--compare-devices N]
 *               [--boxes-per-device M] [--compare-boxes-per-device M]
 *               [--compare-env VAR=VALUE]... [--timed call|sweeps|create] [--clock wall|cpu]
 *
 * Updates per sweep, the field's conventions: Ising and Potts one per site; phi^4 one per
 * hit, sites x nloc x nhit (the phi^4 seed paper's eq. 10: time per hit); Heisenberg one
 * per spin and pass, sites x replicas x passes (heat bath: 1 + nover; overrelax:
 * max(nover, 1)). Each configuration gets one untimed warm-up run, then R timed runs of N
 * sweeps, alternating between the two configurations; the median is reported. A timed run
 * ends with a measurement, which waits for a device to finish. The sweeps (latmc_sim_sweep
 * returns when the device is done) and the measurement are also timed apart: each line
 * gives the sweeps' rate alone and the measurement's median time, and --timed sweeps makes
 * the sweeps alone the reported rate and the ratio (the default, call, keeps the whole
 * call: sweeps and one measurement, the figures of earlier runs). --timed create times
 * latmc_sim_create alone (allocation, the couplings drawn, a device's copies), R times
 * alternating A and B, one sim alive at a time, and reports the median in ms.
 *
 * --clock cpu times with the process's CPU time (every thread's, CLOCK_PROCESS_CPUTIME_ID)
 * instead of the wall clock: on a shared, loaded machine the wall clock counts the time the
 * run waits for a core; the CPU time does much less so. For CPU sims (a device's work is not
 * the host's CPU time).
 *
 * --parts K is desc.n_parts: the sim runs as K slabs along its last axis (the same chain;
 * doc/architecture.md), to measure what the boxes cost. --devices N is desc.n_devices: the
 * sim runs on CUDA devices 0 .. N-1, one slab each (doc/cuda.md, "Several GPUs").
 * --boxes-per-device M runs M slabs on each of those devices (N M slabs in all, slab i on
 * device i / M: desc.device_list naming each device M times; one device too), to measure
 * what several boxes a GPU buy (their steps run side by side on the device).
 *
 * --NAME VALUE, for every parameter name (--nhit 8, --nloc 50, --mu2 -1, --nover 2, ...), is
 * --param NAME=VALUE.
 *
 * --simd LEVEL is --env LATMC_CPU_MASK=LEVEL: the CPU backend reads the variable at each
 * sim creation, so the two configurations may run different SIMD levels. --env and
 * --compare-env set variables just before creating configuration A or B (a module reading
 * its own tuning variable at sim creation sees them), and restore them after.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latmc/latmc.h>
#include "bench_ensemble.h"

#define MAX_REPEAT 64
#define MAX_SETTINGS 16
#define MAX_LISTED 1024

/* A NAME=VALUE pair: a parameter, or an environment variable. */
struct setting {
    char name[64];
    char value[64];
};

struct config {
    latmc_sim_desc desc;
    latmc_sim *sim;
    struct setting env[MAX_SETTINGS];
    int nenv;
    double updates_per_sweep;
    const char *unit;   /* "update", "hit", "spin update" */
    double ns[MAX_REPEAT];          /* the reported figure: the call, or --timed sweeps */
    double sweep_ns[MAX_REPEAT];    /* ns per update of the sweeps alone */
    double measure_ms[MAX_REPEAT];  /* the measurement after them (the observables' reduction) */
    int boxes_per_device;           /* --boxes-per-device (0, 1: one slab a device) */
    int device_list[MAX_LISTED];    /* desc.device_list with boxes_per_device > 1 */
};

static int cpu_clock; /* --clock cpu */

static double now(void)
{
    struct timespec t;
    clock_gettime(cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "latmc-bench: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (--help lists the options)\n");
    exit(2);
}

/* The index of `s` in the NULL-terminated `names`, or an error naming `what`. */
static int pick(const char *s, const char *const *names, const char *what)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return i;
    fprintf(stderr, "latmc-bench: unknown %s \"%s\"; one of:", what, s);
    for (int i = 0; names[i]; i++)
        fprintf(stderr, " %s", names[i]);
    fprintf(stderr, "\n");
    exit(2);
}

static int parse_device(const char *s)
{
    static const char *const names[] = { "cpu", "cuda", NULL };
    return pick(s, names, "device") == 0 ? LATMC_DEVICE_CPU : LATMC_DEVICE_CUDA;
}

static long parse_long(const char *s, long lo, long hi, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno || v < lo || v > hi) {
        fprintf(stderr, "latmc-bench: %s = %s is not an integer in [%ld, %ld]\n", what, s, lo, hi);
        exit(2);
    }
    return v;
}

static double parse_double(const char *s, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (*s == '\0' || *end != '\0' || errno) {
        fprintf(stderr, "latmc-bench: %s = %s is not a number\n", what, s);
        exit(2);
    }
    return v;
}

static void parse_setting(const char *s, struct setting *list, int *n, const char *what)
{
    const char *eq = strchr(s, '=');
    if (!eq || eq == s || (size_t)(eq - s) >= sizeof list->name ||
        strlen(eq + 1) >= sizeof list->value)
        usage_error("%s is not NAME=VALUE (names and values up to 63 characters)", s);
    if (*n == MAX_SETTINGS)
        usage_error("more than 16 %s settings", what);
    snprintf(list[*n].name, sizeof list->name, "%.*s", (int)(eq - s), s);
    snprintf(list[*n].value, sizeof list->value, "%s", eq + 1);
    (*n)++;
}

/* "AxB" or "AxBxC" into desc's extents and ndim. */
static void parse_extents(const char *s, latmc_sim_desc *d)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    int n = 0;
    for (char *tok = strtok(buf, "x"); tok; tok = strtok(NULL, "x")) {
        if (n == 3)
            usage_error("--extents %s: at most three extents", s);
        d->extent[n++] = parse_long(tok, 2, 1L << 24, "extent");
    }
    if (n < 2)
        usage_error("--extents %s: two or three extents, as 256x128 or 64x64x32", s);
    d->ndim = n;
}

/* Set (or restore) the environment variables of a configuration around its creation. */
static void apply_env(const struct config *c, char saved[][256], int *had)
{
    for (int i = 0; i < c->nenv; i++) {
        const char *old = getenv(c->env[i].name);
        had[i] = old != NULL;
        if (old)
            snprintf(saved[i], 256, "%s", old);
        setenv(c->env[i].name, c->env[i].value, 1);
    }
}

static void restore_env(const struct config *c, char saved[][256], const int *had)
{
    for (int i = c->nenv - 1; i >= 0; i--) {
        if (had[i])
            setenv(c->env[i].name, saved[i], 1);
        else
            unsetenv(c->env[i].name);
    }
}

/* Updates per sweep in the model's convention (top of the file). */
static void count_updates(struct config *c)
{
    double sites = 1.0, v;
    for (int mu = 0; mu < c->desc.ndim; mu++)
        sites *= (double)c->desc.extent[mu];
    c->updates_per_sweep = sites;
    c->unit = "update";
    if (c->desc.model == LATMC_MODEL_PHI4) {
        double nloc = 1, nhit = 1;
        if (latmc_sim_get_param(c->sim, LATMC_PARAM_NLOC, &v) == LATMC_OK)
            nloc = v;
        if (latmc_sim_get_param(c->sim, LATMC_PARAM_NHIT, &v) == LATMC_OK)
            nhit = v;
        c->updates_per_sweep = sites * nloc * nhit;
        c->unit = "hit";
    } else if (c->desc.model == LATMC_MODEL_HEISENBERG) {
        double nover = 0;
        if (latmc_sim_get_param(c->sim, LATMC_PARAM_NOVER, &v) == LATMC_OK)
            nover = v;
        double passes = c->desc.algorithm == LATMC_ALGO_OVERRELAX ? (nover > 1 ? nover : 1)
                                                                 : 1 + nover;
        c->updates_per_sweep = sites * c->desc.replicas * passes;
        c->unit = "spin update";
    }
}

/* --boxes-per-device M: the desc's N devices (device_index .. + N - 1) as N M slabs, slab i
 * on device device_index + i / M. */
static void place_boxes(struct config *c)
{
    const int m = c->boxes_per_device, n = c->desc.n_devices > 1 ? c->desc.n_devices : 1;
    if (m <= 1)
        return;
    if ((long)n * m > MAX_LISTED)
        usage_error("--devices x --boxes-per-device is more than %s slabs", "1024");
    for (int i = 0; i < n * m; i++)
        c->device_list[i] = c->desc.device_index + i / m;
    c->desc.n_devices = n * m;
    c->desc.device_list = c->device_list;
}

static int setup(latmc_ctx *ctx, struct config *c, double beta, const struct setting *params,
                 int nparams)
{
    char saved[MAX_SETTINGS][256];
    int had[MAX_SETTINGS];
    apply_env(c, saved, had);
    int st = latmc_sim_create(ctx, &c->desc, &c->sim);
    restore_env(c, saved, had);
    if (st == LATMC_OK && c->desc.model != LATMC_MODEL_PHI4)
        st = latmc_sim_set_param(c->sim, LATMC_PARAM_BETA, beta);
    for (int i = 0; st == LATMC_OK && i < nparams; i++) {
        int key;
        if (latmc_param_by_name(params[i].name, &key) != LATMC_OK)
            usage_error("--param: %s", latmc_last_error());
        st = latmc_sim_set_param(c->sim, key, parse_double(params[i].value, params[i].name));
    }
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(c->sim, LATMC_INIT_HOT);
    if (st != LATMC_OK) {
        fprintf(stderr, "latmc-bench: %s: %s\n", latmc_strerror(st),
                c->sim ? latmc_sim_last_error(c->sim) : latmc_last_error());
        return st;
    }
    latmc_sim_get_desc(c->sim, &c->desc);
    count_updates(c);
    return LATMC_OK;
}

/* One run of `sweeps` sweeps and a measurement, as timed run r (r < 0: the warm-up, not
 * kept): ns per update of both (or of the sweeps alone: sweeps_only) into c->ns[r], of the
 * sweeps alone into c->sweep_ns[r], the measurement's ms into c->measure_ms[r]. */
static void run(struct config *c, uint64_t sweeps, int r, int sweeps_only)
{
    double e;
    const double t0 = now();
    int st = latmc_sim_sweep(c->sim, sweeps);
    const double t1 = now();
    if (st == LATMC_OK)
        st = latmc_sim_observable(c->sim, LATMC_OBS_ENERGY, &e);
    const double t2 = now();
    if (st != LATMC_OK) {
        fprintf(stderr, "latmc-bench: %s: %s\n", latmc_strerror(st), latmc_sim_last_error(c->sim));
        exit(1);
    }
    if (r < 0)
        return;
    const double updates = c->updates_per_sweep * (double)sweeps;
    c->sweep_ns[r] = (t1 - t0) * 1e9 / updates;
    c->measure_ms[r] = (t2 - t1) * 1e3;
    c->ns[r] = sweeps_only ? c->sweep_ns[r] : (t2 - t0) * 1e9 / updates;
}

/* The library's name of a model (latmc_model_name), "?" for none. */
static const char *model_name(int model)
{
    const char *name = latmc_model_name(model);
    return name ? name : "?";
}

/* --model: the library's names (latmc_model_by_name), so a new model needs no list here. */
static int parse_model(const char *s)
{
    int model;
    if (latmc_model_by_name(s, &model) != LATMC_OK) {
        fprintf(stderr, "latmc-bench: %s\n", latmc_last_error());
        exit(2);
    }
    return model;
}

static const char *const algo_names[] = { "metropolis", "heatbath", "overrelax", "sw", "wolff",
                                          NULL };
static const int algo_keys[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH,
                                 LATMC_ALGO_OVERRELAX, LATMC_ALGO_SWENDSEN_WANG,
                                 LATMC_ALGO_WOLFF };

/* The median of v[0 .. n), sorted into `sorted`. */
static double median_of(const double *v, int n, double *sorted)
{
    memcpy(sorted, v, sizeof(double) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    return sorted[n / 2];
}

/* --timed create: R creations of each configuration, alternating, each destroyed before the
 * next (a lattice that fills the memory fits once); medians in ms. */
static int time_creation(latmc_ctx *ctx, struct config *c, int n, int repeat)
{
    for (int r = -1; r < repeat; r++) /* r = -1: the warm-up (first touch of the library) */
        for (int k = 0; k < n; k++) {
            char saved[MAX_SETTINGS][256];
            int had[MAX_SETTINGS];
            apply_env(&c[k], saved, had);
            const double t0 = now();
            const int st = latmc_sim_create(ctx, &c[k].desc, &c[k].sim);
            const double t1 = now();
            restore_env(&c[k], saved, had);
            if (st != LATMC_OK) {
                fprintf(stderr, "latmc-bench: %s: %s\n", latmc_strerror(st), latmc_last_error());
                return st;
            }
            if (r >= 0)
                c[k].ns[r] = (t1 - t0) * 1e3;
            c[k].unit = latmc_sim_backend_name(c[k].sim); /* a static string */
            latmc_sim_destroy(&c[k].sim);
        }
    static const char *const kinds[] = { "uniform", "gaussian", "bimodal" };
    double sorted[MAX_REPEAT], med[2];
    for (int k = 0; k < n; k++) {
        const latmc_sim_desc *d = &c[k].desc;
        const char *model = model_name(d->model);
        med[k] = median_of(c[k].ns, repeat, sorted);
        printf("%c: %s, %s, %lldx%lldx%lld, %s couplings, %d thread(s) asked: creation "
               "%.1f ms (median of %d; min %.1f, max %.1f)\n", "AB"[k], c[k].unit, model,
               (long long)d->extent[0], (long long)d->extent[1],
               (long long)(d->ndim == 3 ? d->extent[2] : 1),
               d->couplings >= 0 && d->couplings < 3 ? kinds[d->couplings] : "?", d->n_threads,
               med[k], repeat, sorted[0], sorted[repeat - 1]);
    }
    if (n == 2)
        printf("ratio A/B (creation time): %.3f\n", med[0] / med[1]);
    return LATMC_OK;
}

static void report(struct config *c, int repeat, const char *label, int sweeps_only,
                   double *median)
{
    double sorted[MAX_REPEAT], scratch[MAX_REPEAT];
    const double sweep_ns = median_of(c->sweep_ns, repeat, scratch);
    const double measure_ms = median_of(c->measure_ms, repeat, scratch);
    *median = median_of(c->ns, repeat, sorted);
    const char *model = model_name(c->desc.model), *algo = "default";
    for (int i = 0; algo_names[i]; i++)
        if (algo_keys[i] == c->desc.algorithm)
            algo = algo_names[i];
    char extents[96];
    int n = snprintf(extents, sizeof extents, "%lld", (long long)c->desc.extent[0]);
    for (int mu = 1; mu < c->desc.ndim; mu++)
        n += snprintf(extents + n, sizeof extents - (size_t)n, "x%lld",
                      (long long)c->desc.extent[mu]);
    char env[256] = "";
    for (int i = 0, k = 0; i < c->nenv; i++)
        k += snprintf(env + k, sizeof env - (size_t)k, " %s=%s", c->env[i].name, c->env[i].value);
    const char *precision = c->desc.model != LATMC_MODEL_PHI4 ? ""
                            : c->desc.precision == LATMC_PRECISION_FLOAT ? " float" : " double";
    char parts[48] = "";
    if (c->boxes_per_device > 1)
        snprintf(parts, sizeof parts, ", %d device(s) x %d boxes",
                 c->desc.n_devices / c->boxes_per_device, c->boxes_per_device);
    else if (c->desc.n_devices > 1)
        snprintf(parts, sizeof parts, ", %d devices", c->desc.n_devices);
    else if (c->desc.n_parts > 1)
        snprintf(parts, sizeof parts, ", %d boxes", c->desc.n_parts);
    printf("%s: %s%s, %s%s %s, %s, %d thread(s)%s: %.4f %ss/ns, %.4f ns = %.1f ps per %s "
           "(%s%s, median of %d; min %.4f, max %.4f ns; sweeps alone %.4f %ss/ns; "
           "one measurement %.3f ms)\n",
           label, latmc_sim_backend_name(c->sim), env, model, precision, extents, algo,
           c->desc.n_threads, parts,
           1.0 / *median, c->unit, *median, 1e3 * *median, c->unit,
           sweeps_only ? "sweeps alone" : "sweeps and one measurement",
           cpu_clock ? ", CPU time" : "", repeat, sorted[0],
           sorted[repeat - 1], 1.0 / sweep_ns, c->unit, measure_ms);
}

static void usage(void)
{
    printf("usage: latmc-bench [--model ");
    for (int m = 1; latmc_model_name(m); m++) /* the library's models */
        printf("%s%s", m > 1 ? "|" : "", latmc_model_name(m));
    printf("] [--q Q] [--dim 2|3] [-L L]\n"
           "         [--extents AxB[xC]] [--algo metropolis|heatbath|overrelax|sw|wolff] [--beta B]\n"
           "         [--param NAME=VALUE]... [--NAME VALUE]... [--precision float|double]\n"
           "         [--couplings uniform|gaussian|bimodal] [--replicas 1|2]\n"
           "         [--device cpu|cuda] [--threads T] [--simd c|avx2|avx512]\n"
           "         [--env VAR=VALUE]... [--parts K] [--sweeps N] [--repeat R]\n"
           "         [--compare-device cpu|cuda] [--compare-threads T] [--compare-simd LEVEL]\n"
           "         [--compare-parts K] [--devices N] [--compare-devices N]\n"
           "         [--boxes-per-device M] [--compare-boxes-per-device M]\n"
           "         [--compare-env VAR=VALUE]... [--timed call|sweeps|create]\n"
           "         [--clock wall|cpu]\n"
           "       latmc-bench --ensemble [OPTION]... (an ensemble against one lattice:\n"
           "         latmc-bench --ensemble --help)\n");
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--ensemble") == 0) /* bench/bench_ensemble.c */
        return bench_ensemble_main(argc - 1, argv + 1);
    struct config a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    latmc_sim_desc_init(&a.desc);
    a.desc.model = LATMC_MODEL_ISING;
    a.desc.ndim = 2;
    a.desc.device = LATMC_DEVICE_CPU;
    a.desc.seed = 1;
    long L = 1024, sweeps = 100, repeat = 5;
    int extents_given = 0;
    double beta = 0.6666666666666666; /* T = 1.5, the usual benchmark point */
    int compare_device = 0, compare_threads = -1, compare_parts = -1, compare_devices = -1;
    int compare_bpd = -1;
    int timed = 0; /* --timed: call, sweeps, create */
    static const char *const timed_names[] = { "call", "sweeps", "create", NULL };
    static const char *const clock_names[] = { "wall", "cpu", NULL };
    struct setting params[MAX_SETTINGS];
    int nparams = 0;
    static const char *const precisions[] = { "float", "double", NULL };
    static const char *const couplings[] = { "uniform", "gaussian", "bimodal", NULL };
    enum { O_MODEL = 256, O_Q, O_DIM, O_EXTENTS, O_ALGO, O_BETA, O_PARAM, O_PRECISION,
           O_COUPLINGS, O_REPLICAS, O_DEVICE, O_THREADS, O_SIMD, O_ENV, O_SWEEPS, O_REPEAT,
           O_CDEVICE, O_CTHREADS, O_CSIMD, O_CENV, O_PARTS, O_CPARTS, O_DEVICES, O_CDEVICES,
           O_BPD, O_CBPD, O_TIMED, O_CLOCK,
           O_ALIAS };
    static const struct option opts[] = {
        { "model", required_argument, 0, O_MODEL },   { "q", required_argument, 0, O_Q },
        { "dim", required_argument, 0, O_DIM },       { "size", required_argument, 0, 'L' },
        { "extents", required_argument, 0, O_EXTENTS }, { "algo", required_argument, 0, O_ALGO },
        { "beta", required_argument, 0, O_BETA },     { "param", required_argument, 0, O_PARAM },
        { "precision", required_argument, 0, O_PRECISION },
        { "couplings", required_argument, 0, O_COUPLINGS },
        { "replicas", required_argument, 0, O_REPLICAS },
        { "device", required_argument, 0, O_DEVICE }, { "threads", required_argument, 0, O_THREADS },
        { "simd", required_argument, 0, O_SIMD },     { "env", required_argument, 0, O_ENV },
        { "sweeps", required_argument, 0, O_SWEEPS }, { "repeat", required_argument, 0, O_REPEAT },
        { "compare-device", required_argument, 0, O_CDEVICE },
        { "compare-threads", required_argument, 0, O_CTHREADS },
        { "parts", required_argument, 0, O_PARTS },
        { "compare-parts", required_argument, 0, O_CPARTS },
        { "devices", required_argument, 0, O_DEVICES },
        { "compare-devices", required_argument, 0, O_CDEVICES },
        { "boxes-per-device", required_argument, 0, O_BPD },
        { "compare-boxes-per-device", required_argument, 0, O_CBPD },
        { "compare-simd", required_argument, 0, O_CSIMD },
        { "compare-env", required_argument, 0, O_CENV },
        { "timed", required_argument, 0, O_TIMED },
        { "clock", required_argument, 0, O_CLOCK },
        /* --NAME VALUE for the parameters (O_ALIAS + index into alias_names) */
        { "J", required_argument, 0, O_ALIAS + 0 },   { "h", required_argument, 0, O_ALIAS + 1 },
        { "mu2", required_argument, 0, O_ALIAS + 2 }, { "g", required_argument, 0, O_ALIAS + 3 },
        { "lambda", required_argument, 0, O_ALIAS + 4 },
        { "epsilon", required_argument, 0, O_ALIAS + 5 },
        { "nhit", required_argument, 0, O_ALIAS + 6 }, { "nloc", required_argument, 0, O_ALIAS + 7 },
        { "nover", required_argument, 0, O_ALIAS + 8 },
        { "decisions", required_argument, 0, O_ALIAS + 9 },
        { "help", no_argument, 0, 'h' },              { 0, 0, 0, 0 }
    };
    static const char *const alias_names[] = { "J", "h", "mu2", "g", "lambda", "epsilon", "nhit",
                                               "nloc", "nover", "decisions" };
    char simd_a[80] = "", simd_b[80] = "";
    int o;
    while ((o = getopt_long(argc, argv, "L:h", opts, NULL)) != -1) {
        switch (o) {
        case O_MODEL: a.desc.model = parse_model(optarg); break;
        case O_Q: a.desc.q = (int)parse_long(optarg, 2, 255, "q"); break;
        case O_DIM: a.desc.ndim = (int)parse_long(optarg, 2, 3, "dim"); break;
        case 'L': L = parse_long(optarg, 2, 1L << 24, "L"); break;
        case O_EXTENTS: parse_extents(optarg, &a.desc); extents_given = 1; break;
        case O_ALGO: a.desc.algorithm = algo_keys[pick(optarg, algo_names, "algorithm")]; break;
        case O_BETA: beta = parse_double(optarg, "beta"); break;
        case O_PARAM: parse_setting(optarg, params, &nparams, "--param"); break;
        case O_PRECISION: a.desc.precision = pick(optarg, precisions, "precision") == 0
                                                 ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
            break;
        case O_COUPLINGS: {
            static const int keys[] = { LATMC_COUPLINGS_UNIFORM, LATMC_COUPLINGS_GAUSSIAN,
                                        LATMC_COUPLINGS_BIMODAL };
            a.desc.couplings = keys[pick(optarg, couplings, "couplings")];
            break;
        }
        case O_REPLICAS: a.desc.replicas = (int)parse_long(optarg, 1, 2, "replicas"); break;
        case O_DEVICE: a.desc.device = parse_device(optarg); break;
        case O_THREADS: a.desc.n_threads = (int)parse_long(optarg, 0, 4096, "threads"); break;
        case O_PARTS: a.desc.n_parts = (int)parse_long(optarg, 0, 1 << 20, "parts"); break;
        case O_CPARTS: compare_parts = (int)parse_long(optarg, 0, 1 << 20, "compare-parts"); break;
        case O_DEVICES: a.desc.n_devices = (int)parse_long(optarg, 0, 1024, "devices"); break;
        case O_BPD:
            a.boxes_per_device = (int)parse_long(optarg, 1, 1024, "boxes-per-device");
            break;
        case O_CBPD:
            compare_bpd = (int)parse_long(optarg, 1, 1024, "compare-boxes-per-device");
            break;
        case O_CDEVICES:
            compare_devices = (int)parse_long(optarg, 0, 1024, "compare-devices");
            break;
        case O_SIMD: snprintf(simd_a, sizeof simd_a, "LATMC_CPU_MASK=%.60s", optarg); break;
        case O_ENV: parse_setting(optarg, a.env, &a.nenv, "--env"); break;
        case O_SWEEPS: sweeps = parse_long(optarg, 1, 1L << 30, "sweeps"); break;
        case O_REPEAT: repeat = parse_long(optarg, 1, MAX_REPEAT, "repeat"); break;
        case O_CDEVICE: compare_device = parse_device(optarg); break;
        case O_CTHREADS: compare_threads = (int)parse_long(optarg, 0, 4096, "compare-threads");
            break;
        case O_CSIMD: snprintf(simd_b, sizeof simd_b, "LATMC_CPU_MASK=%.60s", optarg); break;
        case O_CENV: parse_setting(optarg, b.env, &b.nenv, "--compare-env"); break;
        case O_TIMED: timed = pick(optarg, timed_names, "--timed"); break;
        case O_CLOCK: cpu_clock = pick(optarg, clock_names, "--clock"); break;
        case 'h': usage(); return 0;
        default:
            if (o >= O_ALIAS && o < O_ALIAS + (int)(sizeof alias_names / sizeof *alias_names)) {
                char text[160];
                snprintf(text, sizeof text, "%s=%.60s", alias_names[o - O_ALIAS], optarg);
                parse_setting(text, params, &nparams, "--param");
                break;
            }
            return 2;
        }
    }
    if (optind < argc)
        usage_error("unexpected argument %s", argv[optind]);
    if (!extents_given)
        for (int mu = 0; mu < a.desc.ndim; mu++)
            a.desc.extent[mu] = L;
    if (simd_a[0])
        parse_setting(simd_a, a.env, &a.nenv, "--env");
    /* B is A with the compare options applied: A's variables, then B's own. */
    const int compare = compare_device != 0 || compare_threads >= 0 || compare_parts >= 0 ||
                        compare_devices >= 0 || compare_bpd >= 0 ||
                        simd_b[0] || b.nenv;
    struct setting b_only[MAX_SETTINGS];
    int nb = b.nenv;
    memcpy(b_only, b.env, sizeof b_only);
    if (simd_b[0])
        parse_setting(simd_b, b_only, &nb, "--compare-env");
    b = a;
    for (int i = 0; i < nb; i++) { /* B's own setting of a variable A sets replaces A's */
        int at = 0;
        while (at < b.nenv && strcmp(b.env[at].name, b_only[i].name) != 0)
            at++;
        if (at == MAX_SETTINGS)
            usage_error("more than 16 %s settings", "--compare-env");
        b.env[at] = b_only[i];
        if (at == b.nenv)
            b.nenv++;
    }
    if (compare_device)
        b.desc.device = compare_device;
    if (compare_threads >= 0)
        b.desc.n_threads = compare_threads;
    if (compare_parts >= 0)
        b.desc.n_parts = compare_parts;
    if (compare_devices >= 0)
        b.desc.n_devices = compare_devices;
    if (compare_bpd >= 0)
        b.boxes_per_device = compare_bpd;
    place_boxes(&a);
    place_boxes(&b);

    const int sweeps_only = timed == 1;
    latmc_ctx *ctx = NULL;
    if (timed == 2) {
        struct config both[2] = { a, b };
        for (int k = 0; k < 2; k++) /* each copy's list its own (place_boxes) */
            if (both[k].boxes_per_device > 1)
                both[k].desc.device_list = both[k].device_list;
        const int st = latmc_ctx_create(&ctx) == LATMC_OK
                           ? time_creation(ctx, both, compare ? 2 : 1, (int)repeat)
                           : LATMC_ENOMEM;
        latmc_ctx_destroy(&ctx);
        return st == LATMC_OK ? 0 : 1;
    }
    if (latmc_ctx_create(&ctx) != LATMC_OK || setup(ctx, &a, beta, params, nparams) != LATMC_OK ||
        (compare && setup(ctx, &b, beta, params, nparams) != LATMC_OK)) {
        /* nothing leaks on the way out (ASan's leak check runs on this path in the tests) */
        latmc_sim_destroy(&a.sim);
        latmc_sim_destroy(&b.sim);
        latmc_ctx_destroy(&ctx);
        return 1;
    }
    run(&a, (uint64_t)sweeps, -1, sweeps_only);
    if (compare)
        run(&b, (uint64_t)sweeps, -1, sweeps_only);
    for (int r = 0; r < repeat; r++) {
        run(&a, (uint64_t)sweeps, r, sweeps_only);
        if (compare)
            run(&b, (uint64_t)sweeps, r, sweeps_only);
    }
    double ma, mb;
    report(&a, (int)repeat, "A", sweeps_only, &ma);
    if (compare) {
        report(&b, (int)repeat, "B", sweeps_only, &mb);
        printf("ratio A/B (updates per ns): %.3f\n", mb / ma);
    }
    latmc_sim_destroy(&a.sim);
    latmc_sim_destroy(&b.sim);
    latmc_ctx_destroy(&ctx);
    return 0;
}
