/*
 * latmc-cluster-time: the CPU time of Swendsen-Wang sweeps, comparing builds of the
 * library in one process (doc/PERFORMANCE.md, "CPU, cluster updates"). On a machine
 * shared with other work the wall clock spreads by 2x; the process's CPU time counts only
 * the time it ran. Each library given is loaded with dlopen and the runs alternate
 * between them, so the two see the same load.
 *
 *   latmc-cluster-time [--dim D] [-L L] [--threads T] [--warm W] [--sweeps S]
 *                      [--rounds R] [--potts Q] [--beta B] [--pmj] LIB...
 *
 * A run: latmc_sim_create (Ising, or Potts with --potts; +-J couplings of coupling seed 3
 * with --pmj; hot start, seed 11, beta at
 * the 2D critical point unless given), W untimed sweeps in one call, then one timed call
 * of S sweeps. Prints the CPU time (CLOCK_PROCESS_CPUTIME_ID: every thread of the
 * process) and the wall time per site per sweep of each run, then each library's medians
 * and their ratios to the first, and a hash of the final configuration: the same chain
 * gives the same hash in every build.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latmc/latmc.h"

enum { MAX_LIBS = 8, MAX_ROUNDS = 64 };

/* The library calls a run makes, from one dlopen'ed build. */
struct lib {
    const char *path;
    int (*ctx_create)(latmc_ctx **);
    void (*ctx_destroy)(latmc_ctx **);
    int (*desc_init_size)(latmc_sim_desc *, size_t);
    int (*sim_create)(latmc_ctx *, const latmc_sim_desc *, latmc_sim **);
    void (*sim_destroy)(latmc_sim **);
    int (*set_param)(latmc_sim *, int, double);
    int (*init_spins)(latmc_sim *, int);
    int (*sweep)(latmc_sim *, uint64_t);
    int (*spins_size)(const latmc_sim *, size_t *);
    int (*get_spins)(latmc_sim *, void *, size_t);
    double cpu[MAX_ROUNDS], wall[MAX_ROUNDS];
    uint64_t hash;
};

struct opts {
    int dim, threads, rounds, q, pmj;
    int64_t L;
    uint64_t warm, sweeps;
    double beta;
};

static int load(struct lib *b, const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "latmc-cluster-time: %s\n", dlerror());
        return -1;
    }
    b->path = path;
#define SYM(field, name)                                                                   \
    if (!(*(void **)&b->field = dlsym(h, name))) {                                         \
        fprintf(stderr, "latmc-cluster-time: %s has no %s\n", path, name);                 \
        return -1;                                                                         \
    }
    SYM(ctx_create, "latmc_ctx_create")
    SYM(ctx_destroy, "latmc_ctx_destroy")
    SYM(desc_init_size, "latmc_sim_desc_init_size")
    SYM(sim_create, "latmc_sim_create")
    SYM(sim_destroy, "latmc_sim_destroy")
    SYM(set_param, "latmc_sim_set_param")
    SYM(init_spins, "latmc_sim_init_spins")
    SYM(sweep, "latmc_sim_sweep")
    SYM(spins_size, "latmc_sim_spins_size")
    SYM(get_spins, "latmc_sim_get_spins")
#undef SYM
    return 0;
}

static double seconds(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* FNV-1a over the configuration's bytes. */
static uint64_t hash_of(const unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t k = 0; k < n; k++)
        h = (h ^ p[k]) * UINT64_C(1099511628211);
    return h;
}

static int one_run(struct lib *b, const struct opts *o, int r)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    int st = b->ctx_create(&ctx);
    if (st == LATMC_OK) {
        b->desc_init_size(&d, sizeof d);
        d.model = o->q ? LATMC_MODEL_POTTS : LATMC_MODEL_ISING;
        d.q = o->q ? o->q : d.q;
        d.ndim = o->dim;
        for (int mu = 0; mu < o->dim; mu++)
            d.extent[mu] = o->L;
        d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
        d.device = LATMC_DEVICE_CPU;
        d.n_threads = o->threads;
        d.seed = 11;
        if (o->pmj) {
            d.couplings = LATMC_COUPLINGS_BIMODAL;
            d.coupling_seed = 3;
        }
        st = b->sim_create(ctx, &d, &sim);
    }
    if (st == LATMC_OK)
        st = b->set_param(sim, LATMC_PARAM_BETA, o->beta);
    if (st == LATMC_OK)
        st = b->init_spins(sim, LATMC_INIT_HOT);
    if (st == LATMC_OK && o->warm)
        st = b->sweep(sim, o->warm);
    const double c0 = seconds(CLOCK_PROCESS_CPUTIME_ID), w0 = seconds(CLOCK_MONOTONIC);
    if (st == LATMC_OK)
        st = b->sweep(sim, o->sweeps);
    const double c1 = seconds(CLOCK_PROCESS_CPUTIME_ID), w1 = seconds(CLOCK_MONOTONIC);
    size_t bytes = 0;
    unsigned char *spins = NULL;
    if (st == LATMC_OK && (st = b->spins_size(sim, &bytes)) == LATMC_OK) {
        spins = malloc(bytes);
        st = spins ? b->get_spins(sim, spins, bytes) : LATMC_ENOMEM;
    }
    if (st == LATMC_OK)
        b->hash = hash_of(spins, bytes);
    free(spins);
    b->sim_destroy(&sim);
    b->ctx_destroy(&ctx);
    if (st != LATMC_OK) {
        fprintf(stderr, "latmc-cluster-time: %s failed (%d)\n", b->path, st);
        return -1;
    }
    double sites = (double)o->sweeps;
    for (int mu = 0; mu < o->dim; mu++)
        sites *= (double)o->L;
    b->cpu[r] = (c1 - c0) * 1e9 / sites;
    b->wall[r] = (w1 - w0) * 1e9 / sites;
    printf("round %d %s: %.2f ns CPU, %.2f ns wall per site per sweep\n", r, b->path,
           b->cpu[r], b->wall[r]);
    fflush(stdout);
    return 0;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, by_value);
    return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

static int usage(void)
{
    fprintf(stderr, "usage: latmc-cluster-time [--dim D] [-L L] [--threads T] [--warm W] "
                    "[--sweeps S] [--rounds R] [--potts Q] [--beta B] [--pmj] LIB...\n");
    return 2;
}

int main(int argc, char **argv)
{
    struct opts o = { 2, 1, 5, 0, 0, 1024, 6, 3, 0.44068679350977147 };
    struct lib libs[MAX_LIBS];
    int n = 0;
    for (int k = 1; k < argc; k++) {
        const char *a = argv[k], *v = k + 1 < argc ? argv[k + 1] : NULL;
        if (!strcmp(a, "--dim") && v)
            o.dim = atoi(v), k++;
        else if (!strcmp(a, "-L") && v)
            o.L = atoll(v), k++;
        else if (!strcmp(a, "--threads") && v)
            o.threads = atoi(v), k++;
        else if (!strcmp(a, "--warm") && v)
            o.warm = strtoull(v, NULL, 10), k++;
        else if (!strcmp(a, "--sweeps") && v)
            o.sweeps = strtoull(v, NULL, 10), k++;
        else if (!strcmp(a, "--rounds") && v)
            o.rounds = atoi(v), k++;
        else if (!strcmp(a, "--potts") && v)
            o.q = atoi(v), k++;
        else if (!strcmp(a, "--beta") && v)
            o.beta = atof(v), k++;
        else if (!strcmp(a, "--pmj"))
            o.pmj = 1;
        else if (a[0] == '-' || n == MAX_LIBS)
            return usage();
        else if (load(&libs[n++], a) < 0)
            return 1;
    }
    if (n == 0 || o.rounds < 1 || o.rounds > MAX_ROUNDS || o.sweeps < 1 || o.L < 2 ||
        (o.dim != 2 && o.dim != 3))
        return usage();
    for (int r = 0; r < o.rounds; r++)
        for (int k = 0; k < n; k++)
            if (one_run(&libs[(k + r) % n], &o, r) < 0) /* the first of a round alternates */
                return 1;
    const double c0 = median(libs[0].cpu, o.rounds), w0 = median(libs[0].wall, o.rounds);
    for (int k = 0; k < n; k++) {
        const double c = median(libs[k].cpu, o.rounds), w = median(libs[k].wall, o.rounds);
        printf("%s: median %.2f ns CPU (%.3f of the first), %.2f ns wall (%.3f), "
               "configuration hash %016llx\n", libs[k].path, c, c / c0, w, w / w0,
               (unsigned long long)libs[k].hash);
    }
    return 0;
}
