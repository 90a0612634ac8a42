/*
 * latmc-bench: site updates per nanosecond of one configuration, or of two run
 * alternately in one process (both see the same machine state), with their ratio.
 *
 *   latmc-bench [--model ising|potts|phi4] [--q Q] [--dim 2|3] [-L L]
 *               [--algo metropolis|heatbath] [--beta B] [--device cpu|cuda] [--threads T]
 *               [--sweeps N] [--repeat R] [--compare-device cpu|cuda] [--compare-threads T]
 *               phi^4: [--nhit H] [--nloc P] [--mu2 M] [--g G] [--lambda L] [--epsilon E]
 *                      [--precision float|double]
 *
 * Updates per ns = sites x sweeps / time (one offered update per site per sweep, the
 * field's convention). Each configuration gets one untimed warm-up run, then R timed runs
 * of N sweeps, alternating between the two configurations; the median is reported.
 * A timed run of Ising or Potts ends with a measurement, which waits for a device to
 * finish. phi^4 times the sweeps alone (latmc_sim_sweep returns when the device is done)
 * and also reports ps per hit = time / (sites x sweeps x nloc x nhit), the figure of the
 * phi^4 GPU papers, and the time of one measurement (the observables' reduction).
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latmc/latmc.h>

#define MAX_REPEAT 64

struct config {
    latmc_sim_desc desc;
    latmc_sim *sim;
    double sites;
    double ns[MAX_REPEAT];
};

/* phi^4's parameters (defaults: the symmetric phase, with the 1/Lambda term on so that the
 * whole corona is computed). */
struct phi4_params {
    double nhit, nloc, mu2, g, lambda, epsilon;
};
static struct phi4_params phi4 = { 8, 50, 0.2, 2.4, 4.0, 0.5 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int parse_device(const char *s)
{
    if (strcmp(s, "cuda") == 0)
        return LATMC_DEVICE_CUDA;
    if (strcmp(s, "cpu") == 0)
        return LATMC_DEVICE_CPU;
    fprintf(stderr, "latmc-bench: unknown device %s (cpu or cuda)\n", s);
    exit(2);
}

static long parse_long(const char *s, long lo, long hi, const char *what)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "latmc-bench: %s = %s is not an integer in [%ld, %ld]\n", what, s, lo, hi);
        exit(2);
    }
    return v;
}

static int setup(latmc_ctx *ctx, struct config *c, double beta)
{
    int st = latmc_sim_create(ctx, &c->desc, &c->sim);
    if (st == LATMC_OK && c->desc.model == LATMC_MODEL_PHI4) {
        const int keys[] = { LATMC_PARAM_NHIT, LATMC_PARAM_NLOC, LATMC_PARAM_MU2, LATMC_PARAM_G,
                             LATMC_PARAM_LAMBDA, LATMC_PARAM_EPSILON };
        const double values[] = { phi4.nhit, phi4.nloc, phi4.mu2, phi4.g, phi4.lambda,
                                  phi4.epsilon };
        for (int k = 0; k < 6 && st == LATMC_OK; k++)
            st = latmc_sim_set_param(c->sim, keys[k], values[k]);
    } else if (st == LATMC_OK) {
        st = latmc_sim_set_param(c->sim, LATMC_PARAM_BETA, beta);
    }
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(c->sim, LATMC_INIT_HOT);
    if (st != LATMC_OK) {
        fprintf(stderr, "latmc-bench: %s: %s\n", latmc_strerror(st),
                c->sim ? latmc_sim_last_error(c->sim) : latmc_last_error());
        return st;
    }
    c->sites = 1.0;
    for (int mu = 0; mu < c->desc.ndim; mu++)
        c->sites *= (double)c->desc.extent[mu];
    latmc_sim_get_desc(c->sim, &c->desc);
    return LATMC_OK;
}

/* One run of `sweeps` sweeps; ns per site update. */
static double run(struct config *c, uint64_t sweeps)
{
    double e;
    double t0 = now();
    int st = latmc_sim_sweep(c->sim, sweeps);
    if (st == LATMC_OK && c->desc.model != LATMC_MODEL_PHI4)
        st = latmc_sim_observable(c->sim, LATMC_OBS_ENERGY, &e);
    double t1 = now();
    if (st != LATMC_OK) {
        fprintf(stderr, "latmc-bench: %s: %s\n", latmc_strerror(st), latmc_sim_last_error(c->sim));
        exit(1);
    }
    return (t1 - t0) * 1e9 / (c->sites * (double)sweeps);
}

/* Wall time of one measurement (the reduction behind the observables), in ms; called
 * after a timed run, which left no cached reduction. */
static double measure_ms(struct config *c)
{
    double e, t0 = now();
    if (latmc_sim_observable(c->sim, LATMC_OBS_ENERGY, &e) != LATMC_OK)
        return -1;
    return (now() - t0) * 1e3;
}

static void report(struct config *c, int repeat, const char *label, double *median)
{
    double sorted[MAX_REPEAT];
    memcpy(sorted, c->ns, sizeof(double) * (size_t)repeat);
    qsort(sorted, (size_t)repeat, sizeof(double), cmp_double);
    *median = sorted[repeat / 2];
    if (c->desc.model == LATMC_MODEL_PHI4) {
        const double hits = phi4.nloc * phi4.nhit;
        printf("%s: %s, phi^4 %dD L=%lld %s, nhit %g nloc %g, %d thread(s): %.2f ps/hit, "
               "%.2f hits/ns, %.4f ns per site sweep (median of %d; min %.2f, max %.2f ps/hit); "
               "one measurement %.3f ms\n",
               label, latmc_sim_backend_name(c->sim), c->desc.ndim, (long long)c->desc.extent[0],
               c->desc.precision == LATMC_PRECISION_FLOAT ? "float" : "double", phi4.nhit,
               phi4.nloc, c->desc.n_threads, *median * 1e3 / hits, hits / *median, *median,
               repeat, sorted[0] * 1e3 / hits, sorted[repeat - 1] * 1e3 / hits, measure_ms(c));
        return;
    }
    printf("%s: %s, %s %dD L=%lld, %s, %d thread(s): %.4f updates/ns, %.4f ns/update "
           "(median of %d; min %.4f, max %.4f ns)\n",
           label, latmc_sim_backend_name(c->sim),
           c->desc.model == LATMC_MODEL_POTTS ? "Potts" : "Ising", c->desc.ndim,
           (long long)c->desc.extent[0],
           c->desc.algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
           c->desc.n_threads, 1.0 / *median, *median, repeat, sorted[0], sorted[repeat - 1]);
}

int main(int argc, char **argv)
{
    struct config a, b;
    memset(&a, 0, sizeof a);
    latmc_sim_desc_init(&a.desc);
    a.desc.model = LATMC_MODEL_ISING;
    a.desc.ndim = 2;
    a.desc.device = LATMC_DEVICE_CPU;
    a.desc.seed = 1;
    a.desc.precision = LATMC_PRECISION_FLOAT; /* phi^4: the GPU papers' precision */
    long L = 1024, sweeps = 100, repeat = 5;
    double beta = 0.6666666666666666; /* T = 1.5, the usual benchmark point */
    int compare_device = 0, compare_threads = -1;
    static const struct option opts[] = {
        { "model", required_argument, 0, 'm' }, { "q", required_argument, 0, 'q' },
        { "dim", required_argument, 0, 'd' },   { "size", required_argument, 0, 'L' },
        { "algo", required_argument, 0, 'a' },  { "beta", required_argument, 0, 'b' },
        { "device", required_argument, 0, 'D' }, { "threads", required_argument, 0, 't' },
        { "sweeps", required_argument, 0, 's' }, { "repeat", required_argument, 0, 'r' },
        { "compare-device", required_argument, 0, 'C' },
        { "compare-threads", required_argument, 0, 'T' }, { "help", no_argument, 0, 'h' },
        { "nhit", required_argument, 0, 'H' }, { "nloc", required_argument, 0, 'N' },
        { "mu2", required_argument, 0, 'M' }, { "g", required_argument, 0, 'G' },
        { "lambda", required_argument, 0, 'A' }, { "epsilon", required_argument, 0, 'E' },
        { "precision", required_argument, 0, 'P' },
        { 0, 0, 0, 0 }
    };
    int o;
    while ((o = getopt_long(argc, argv, "L:h", opts, NULL)) != -1) {
        switch (o) {
        case 'm':
            a.desc.model = strcmp(optarg, "potts") == 0   ? LATMC_MODEL_POTTS
                           : strcmp(optarg, "phi4") == 0 ? LATMC_MODEL_PHI4
                                                         : LATMC_MODEL_ISING;
            break;
        case 'H': phi4.nhit = (double)parse_long(optarg, 1, 65535, "nhit"); break;
        case 'N': phi4.nloc = (double)parse_long(optarg, 1, 65535, "nloc"); break;
        case 'M': phi4.mu2 = strtod(optarg, NULL); break;
        case 'G': phi4.g = strtod(optarg, NULL); break;
        case 'A': phi4.lambda = strtod(optarg, NULL); break; /* "inf" works */
        case 'E': phi4.epsilon = strtod(optarg, NULL); break;
        case 'P':
            a.desc.precision = strcmp(optarg, "double") == 0 ? LATMC_PRECISION_DOUBLE
                                                             : LATMC_PRECISION_FLOAT;
            break;
        case 'q': a.desc.q = (int)parse_long(optarg, 2, 255, "q"); break;
        case 'd': a.desc.ndim = (int)parse_long(optarg, 2, 3, "dim"); break;
        case 'L': L = parse_long(optarg, 2, 1L << 20, "L"); break;
        case 'a':
            a.desc.algorithm = strcmp(optarg, "heatbath") == 0 ? LATMC_ALGO_HEATBATH
                                                               : LATMC_ALGO_METROPOLIS;
            break;
        case 'b': beta = strtod(optarg, NULL); break;
        case 'D': a.desc.device = parse_device(optarg); break;
        case 't': a.desc.n_threads = (int)parse_long(optarg, 0, 4096, "threads"); break;
        case 's': sweeps = parse_long(optarg, 1, 1L << 30, "sweeps"); break;
        case 'r': repeat = parse_long(optarg, 1, MAX_REPEAT, "repeat"); break;
        case 'C': compare_device = parse_device(optarg); break;
        case 'T': compare_threads = (int)parse_long(optarg, 0, 4096, "compare-threads"); break;
        case 'h':
            printf("usage: latmc-bench [--model ising|potts|phi4] [--q Q] [--dim 2|3] [-L L] "
                   "[--algo metropolis|heatbath] [--beta B] [--device cpu|cuda] [--threads T] "
                   "[--sweeps N] [--repeat R] [--compare-device cpu|cuda] [--compare-threads T]\n"
                   "  phi4: [--nhit H] [--nloc P] [--mu2 M] [--g G] [--lambda L] "
                   "[--epsilon E] [--precision float|double] (default float)\n");
            return 0;
        default:
            return 2;
        }
    }
    for (int mu = 0; mu < a.desc.ndim; mu++)
        a.desc.extent[mu] = L;
    const int compare = compare_device != 0 || compare_threads >= 0;
    b = a;
    if (compare_device)
        b.desc.device = compare_device;
    if (compare_threads >= 0)
        b.desc.n_threads = compare_threads;

    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK || setup(ctx, &a, beta) != LATMC_OK ||
        (compare && setup(ctx, &b, beta) != LATMC_OK))
        return 1;
    run(&a, sweeps);
    if (compare)
        run(&b, sweeps);
    for (int r = 0; r < repeat; r++) {
        a.ns[r] = run(&a, (uint64_t)sweeps);
        if (compare)
            b.ns[r] = run(&b, (uint64_t)sweeps);
    }
    double ma, mb;
    report(&a, (int)repeat, "A", &ma);
    if (compare) {
        report(&b, (int)repeat, "B", &mb);
        printf("ratio A/B (updates per ns): %.3f\n", mb / ma);
    }
    latmc_sim_destroy(&a.sim);
    latmc_sim_destroy(&b.sim);
    latmc_ctx_destroy(&ctx);
    return 0;
}
