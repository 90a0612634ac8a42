/*
 * latmc-fss-bench — the finite-size-scaling observables (doc/observables.md) measured:
 *
 *   latmc-fss-bench cost [--threads T] [--repeat R] [--only TEXT] [--cuda L] [--devices N]
 *                        [--parts K] [--potts P] [--phi4 P] [--decisions D]
 *       what the finite-size-scaling observables add to a measurement, per model, on the
 *       CPU backend: two chains alike, one measured as usual (energy and m^2: the model's
 *       reduction), the other with |m(0)|^2 and |m(k_min)|^2 too (with two Heisenberg
 *       replicas also OVERLAP2_KMIN), each measurement after a sweep; the medians of R
 *       sweeps, ordinary measurements and measurements with the FSS observables, and the
 *       difference of the two measurements over a measurement and over a sweep (--only:
 *       the lattices whose name contains TEXT, e.g. "Ising"). With one thread the times
 *       are the thread's CPU time, else wall-clock time. --cuda L: instead, on the CUDA
 *       backend (one GPU, wall-clock time), 2D Ising at L^2, 3D Ising at (L / 64)^3 and 2D
 *       Potts q = 3 at (L / 4)^2, whose |m(k_min)|^2 the device counts, 2D phi^4 (float) at
 *       (L / 4)^2, whose tiles the device sums, 3D Heisenberg at (L / 256)^3 and 2D
 *       Heisenberg at (L / 4)^2 (rows wider than the sums' own count takes) with one and
 *       two replicas, whose projections the device counts (doc/observables.md); a case
 *       whose extent is below the library's minimum (2) at this L (3D at small L) is
 *       skipped with a line saying so.
 *       --devices N (with --cuda): each lattice on GPUs 0 .. N-1, one box each (the
 *       k_min observables need equal extents: the same lattice as one GPU's, cut in N).
 *       --parts K (with --cuda): each lattice as K boxes of one GPU. --potts P (with
 *       --cuda): Potts at P^2 instead of (L / 4)^2; --phi4 P likewise phi^4. --decisions D:
 *       the Ising lattices'
 *       chain (LATMC_PARAM_DECISIONS: 0, the default, or 1, the bit-sliced decisions,
 *       whose sweeps leave CUDA's configuration in the 1-bit form that is then measured).
 *
 *   latmc-fss-bench xi-at-tc [--sizes L1,L2,..] [--sweeps N] [--chains C] [--threads T]
 *       xi/L of the 2D Ising model at beta_c = ln(1 + sqrt 2) / 2 per L, Metropolis, C
 *       independent chains of N measured sweeps each (jackknife over the chains), against
 *       the infinite-volume value 0.9050488292(4) (Salas and Sokal 2000; the finite sizes
 *       approach it with corrections of order 1/L^2).
 *
 * Figures go to doc/observables.md with the machine.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latmc/latmc.h>

#define XIL_STAR 0.9050488292
#define MAX_SIZES 8
#define MAX_CHAINS 64

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The cost's clock: with one thread the thread's CPU time (on a shared machine the other
 * jobs' time slices then stay out of the figures), else wall-clock time. */
static int cost_threads = 1;
/* --cuda L: the CUDA cases at this L (0: the CPU's) */
static int64_t cost_cuda_L = 0;
/* --devices N: the CUDA cases' lattices cut in N boxes on GPUs 0 .. N - 1 (0: one GPU) */
static int cost_devices = 0;
/* --parts K: the CUDA cases' lattices as K boxes of one GPU (0: one box) */
static int cost_parts = 0;
/* --potts P: the CUDA case of Potts at P^2 (0: (L / 4)^2) */
static int64_t cost_potts_L = 0;
/* --phi4 P: the CUDA case of phi^4 (float) at P^2 (0: (L / 4)^2) */
static int64_t cost_phi4_L = 0;
/* --decisions D: the Ising cases' LATMC_PARAM_DECISIONS */
static int cost_decisions = 0;

static double cost_now(void)
{
    if (cost_threads != 1 || cost_cuda_L > 0)
        return now();
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int check(int st, latmc_sim *sim, const char *what)
{
    if (st != LATMC_OK)
        fprintf(stderr, "latmc-fss-bench: %s: %s\n", what,
                sim ? latmc_sim_last_error(sim) : latmc_last_error());
    return st;
}

struct cost_case {
    const char *name;
    int model, ndim, q, replicas;
    int64_t L;
    int key, value;
};

/* The smallest extent the library takes (include/latmc/sim.h, latmc_sim_desc.extent: each
 * >= 2; lib/desc.c, check_extents). The CUDA cases' extents are derived from L (L / 64,
 * L / 256), so at a small L a case's lattice can be below it: that case is skipped, not
 * created (any other refusal still fails the run). */
#define COST_MIN_EXTENT 2

static latmc_sim *cost_sim(latmc_ctx *ctx, const struct cost_case *c, int threads)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = c->model;
    d.ndim = c->ndim;
    for (int mu = 0; mu < c->ndim; mu++)
        d.extent[mu] = c->L;
    d.q = c->q;
    d.replicas = c->replicas;
    d.couplings = c->replicas == 2 ? LATMC_COUPLINGS_GAUSSIAN : LATMC_COUPLINGS_UNIFORM;
    if (cost_cuda_L > 0 && c->model == LATMC_MODEL_PHI4)
        d.precision = LATMC_PRECISION_FLOAT; /* the GPU's production precision */
    d.device = cost_cuda_L > 0 ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
    d.n_threads = cost_cuda_L > 0 ? 0 : threads;
    if (cost_cuda_L > 0 && cost_devices > 1)
        d.n_devices = cost_devices;
    if (cost_cuda_L > 0 && cost_parts > 1)
        d.n_parts = cost_parts;
    d.seed = 1;
    latmc_sim *sim = NULL;
    int st = check(latmc_sim_create(ctx, &d, &sim), NULL, c->name);
    if (!st && c->model == LATMC_MODEL_PHI4)
        st = check(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0), sim, c->name);
    else if (!st)
        st = check(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), sim, c->name);
    if (!st && c->model == LATMC_MODEL_ISING && cost_decisions != 0)
        st = check(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, cost_decisions), sim,
                   c->name);
    if (!st)
        st = check(latmc_sim_init_spins(sim, LATMC_INIT_HOT), sim, c->name);
    if (st)
        latmc_sim_destroy(&sim);
    return sim;
}

/* The observables of one measurement: the ordinary ones (energy, m^2), and with fss also
 * |m(0)|^2, |m(k_min)|^2 (and the overlap's with two replicas). */
static int measure(latmc_sim *sim, const struct cost_case *c, int fss)
{
    int keys[6] = { LATMC_OBS_ENERGY, LATMC_OBS_M2 }, n = 2;
    if (fss) {
        keys[n++] = LATMC_OBS_M2_K0;
        keys[n++] = LATMC_OBS_M2_KMIN;
        if (c->replicas == 2)
            keys[n++] = LATMC_OBS_OVERLAP2_KMIN;
    }
    double v;
    for (int i = 0; i < n; i++)
        if (check(latmc_sim_observable(sim, keys[i], &v), sim, c->name))
            return 1;
    return 0;
}

static int cost(int threads, int repeat, const char *only)
{
    char ising_name[64], ising3_name[64], potts_name[64], phi4_name[64], heisenberg_name[64],
        heisenberg2_name[64], heisenberg2d_name[64], heisenberg2d2_name[64], gpus[24] = "";
    if (cost_devices > 1)
        snprintf(gpus, sizeof gpus, " on %d GPUs", cost_devices);
    else if (cost_parts > 1)
        snprintf(gpus, sizeof gpus, " as %d boxes", cost_parts);
    snprintf(ising_name, sizeof ising_name, "CUDA Ising 2D %lld^2%s", (long long)cost_cuda_L,
             gpus);
    snprintf(ising3_name, sizeof ising3_name, "CUDA Ising 3D %lld^3%s",
             (long long)(cost_cuda_L / 64), gpus);
    const int64_t potts_L = cost_potts_L > 0 ? cost_potts_L : cost_cuda_L / 4;
    snprintf(potts_name, sizeof potts_name, "CUDA Potts q=3 2D %lld^2%s", (long long)potts_L,
             gpus);
    const int64_t phi4_L = cost_phi4_L > 0 ? cost_phi4_L : cost_cuda_L / 4;
    snprintf(phi4_name, sizeof phi4_name, "CUDA phi^4 2D %lld^2 float%s", (long long)phi4_L,
             gpus);
    snprintf(heisenberg_name, sizeof heisenberg_name, "CUDA Heisenberg 3D %lld^3%s",
             (long long)(cost_cuda_L / 256), gpus);
    snprintf(heisenberg2_name, sizeof heisenberg2_name, "CUDA Heisenberg 3D %lld^3 x 2%s",
             (long long)(cost_cuda_L / 256), gpus);
    /* 2D at (L / 4)^2: rows wider than the sums' own count takes (doc/observables.md) */
    snprintf(heisenberg2d_name, sizeof heisenberg2d_name, "CUDA Heisenberg 2D %lld^2%s",
             (long long)(cost_cuda_L / 4), gpus);
    snprintf(heisenberg2d2_name, sizeof heisenberg2d2_name, "CUDA Heisenberg 2D %lld^2 x 2%s",
             (long long)(cost_cuda_L / 4), gpus);
    const struct cost_case on_cuda[] = {
        { ising_name, LATMC_MODEL_ISING, 2, 2, 1, cost_cuda_L, LATMC_PARAM_BETA, 0 },
        { ising3_name, LATMC_MODEL_ISING, 3, 2, 1, cost_cuda_L / 64, LATMC_PARAM_BETA, 0 },
        { potts_name, LATMC_MODEL_POTTS, 2, 3, 1, potts_L, LATMC_PARAM_BETA, 0 },
        { phi4_name, LATMC_MODEL_PHI4, 2, 2, 1, phi4_L, LATMC_PARAM_MU2, 0 },
        { heisenberg_name, LATMC_MODEL_HEISENBERG, 3, 2, 1, cost_cuda_L / 256, LATMC_PARAM_BETA,
          0 },
        { heisenberg2_name, LATMC_MODEL_HEISENBERG, 3, 2, 2, cost_cuda_L / 256, LATMC_PARAM_BETA,
          0 },
        { heisenberg2d_name, LATMC_MODEL_HEISENBERG, 2, 2, 1, cost_cuda_L / 4, LATMC_PARAM_BETA,
          0 },
        { heisenberg2d2_name, LATMC_MODEL_HEISENBERG, 2, 2, 2, cost_cuda_L / 4, LATMC_PARAM_BETA,
          0 },
    };
    const struct cost_case on_cpu[] = {
        { "Ising 2D 2048^2", LATMC_MODEL_ISING, 2, 2, 1, 2048, LATMC_PARAM_BETA, 0 },
        { "Ising 3D 128^3", LATMC_MODEL_ISING, 3, 2, 1, 128, LATMC_PARAM_BETA, 0 },
        { "Potts q=3 2D 2052^2", LATMC_MODEL_POTTS, 2, 3, 1, 2052, LATMC_PARAM_BETA, 0 },
        { "phi^4 2D 1040^2", LATMC_MODEL_PHI4, 2, 2, 1, 1040, LATMC_PARAM_MU2, 0 },
        { "Heisenberg 3D 64^3", LATMC_MODEL_HEISENBERG, 3, 2, 1, 64, LATMC_PARAM_BETA, 0 },
        { "Heisenberg 3D 64^3 x 2", LATMC_MODEL_HEISENBERG, 3, 2, 2, 64, LATMC_PARAM_BETA, 0 },
    };
    const struct cost_case *cases = cost_cuda_L > 0 ? on_cuda : on_cpu;
    const size_t n_cases = cost_cuda_L > 0 ? sizeof on_cuda / sizeof on_cuda[0]
                                           : sizeof on_cpu / sizeof on_cpu[0];
    latmc_ctx *ctx = NULL;
    if (check(latmc_ctx_create(&ctx), NULL, "ctx"))
        return 1;
    double *ts = malloc(3 * (size_t)repeat * sizeof *ts);
    if (!ts)
        return 1;
    cost_threads = threads;
    printf("# %s time\n", threads == 1 && cost_cuda_L == 0 ? "the thread's CPU" : "wall-clock");
    printf("%-24s %8s %11s %11s %11s %9s %9s\n", "lattice", "threads", "sweep ms", "measure ms",
           "+FSS ms", "FSS/meas", "FSS/sweep");
    int rc = 0;
    for (size_t k = 0; k < n_cases && !rc; k++) {
        const struct cost_case *c = &cases[k];
        if (only && !strstr(c->name, only))
            continue;
        if (c->L < COST_MIN_EXTENT) {
            printf("# %s: skipped, the lattice is too small at L = %lld (extents must be "
                   ">= %d)\n", c->name, (long long)cost_cuda_L, COST_MIN_EXTENT);
            continue;
        }
        /* two chains alike: one measured as usual, one with the FSS observables too */
        latmc_sim *plain = cost_sim(ctx, c, threads), *fss = cost_sim(ctx, c, threads);
        double *sw = ts, *me = ts + repeat, *fo = ts + 2 * repeat;
        rc = !plain || !fss;
        for (int r = -1; !rc && r < repeat; r++) { /* r = -1: the first, not timed */
            const double t0 = cost_now();
            rc = check(latmc_sim_sweep(plain, 1), plain, c->name);
            const double t1 = cost_now();
            rc = rc || measure(plain, c, 0);
            const double t2 = cost_now();
            rc = rc || check(latmc_sim_sweep(fss, 1), fss, c->name);
            const double t3 = cost_now();
            rc = rc || measure(fss, c, 1);
            const double t4 = cost_now();
            if (r >= 0) {
                sw[r] = t1 - t0;
                me[r] = t2 - t1;
                fo[r] = t4 - t3;
            }
        }
        if (!rc) {
            const double s = median(sw, repeat), m = median(me, repeat),
                         f = median(fo, repeat);
            latmc_sim_desc got;
            latmc_sim_desc_init(&got);
            latmc_sim_get_desc(plain, &got);
            printf("%-24s %8d %11.3f %11.3f %11.3f %9.3f %9.3f\n", c->name, got.n_threads,
                   1e3 * s, 1e3 * m, 1e3 * f, (f - m) / m, (f - m) / s);
        }
        latmc_sim_destroy(&plain);
        latmc_sim_destroy(&fss);
    }
    free(ts);
    latmc_ctx_destroy(&ctx);
    return rc;
}

/* One chain's means of |m(0)|^2 and |m(k_min)|^2. */
static int chain(latmc_ctx *ctx, int64_t L, uint64_t seed, uint64_t sweeps, int threads,
                 double *k0, double *kmin)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = L;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.seed = seed;
    latmc_sim *sim = NULL;
    int st = check(latmc_sim_create(ctx, &d, &sim), NULL, "create");
    const double beta_c = 0.5 * log(1.0 + sqrt(2.0));
    if (!st)
        st = check(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta_c), sim, "beta");
    if (!st)
        st = check(latmc_sim_init_spins(sim, LATMC_INIT_HOT), sim, "init");
    /* Metropolis near Tc: tau ~ L^2.17 sweeps; thermalise 4 L^2 + 1000 */
    if (!st)
        st = check(latmc_sim_sweep(sim, (uint64_t)(4 * L * L) + 1000), sim, "therm");
    double s0 = 0, sk = 0;
    for (uint64_t i = 0; !st && i < sweeps; i++) {
        double a, b;
        st = check(latmc_sim_sweep(sim, 1), sim, "sweep");
        if (!st)
            st = check(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &a), sim, "m2_k0");
        if (!st)
            st = check(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &b), sim, "m2_kmin");
        s0 += a;
        sk += b;
    }
    *k0 = s0 / (double)sweeps;
    *kmin = sk / (double)sweeps;
    latmc_sim_destroy(&sim);
    return st;
}

static int xi_at_tc(const int64_t *sizes, int n, uint64_t sweeps, int chains, int threads)
{
    latmc_ctx *ctx = NULL;
    if (check(latmc_ctx_create(&ctx), NULL, "ctx"))
        return 1;
    printf("2D Ising at beta_c, Metropolis, %d chains x %llu measured sweeps per L; "
           "xi/L = sqrt(<m^2>/<|m(kmin)|^2> - 1) / (2 L sin(pi/L)), jackknife over chains\n"
           "%6s %12s %10s %12s %8s %8s\n", chains, (unsigned long long)sweeps, "L", "xi/L",
           "error", "- 0.90505", "sigma", "s");
    for (int i = 0; i < n; i++) {
        const int64_t L = sizes[i];
        double k0[MAX_CHAINS], km[MAX_CHAINS];
        const double t0 = now();
        for (int c = 0; c < chains; c++)
            if (chain(ctx, L, (uint64_t)(1000 * L + c + 1), sweeps, threads, &k0[c], &km[c])) {
                latmc_ctx_destroy(&ctx);
                return 1;
            }
        double xi = 0, err = 0;
        if (check(latmc_ens_corr_length(k0, km, chains, L, &xi, &err), NULL, "xi")) {
            latmc_ctx_destroy(&ctx);
            return 1;
        }
        xi /= (double)L;
        err /= (double)L;
        printf("%6lld %12.6f %10.6f %+12.6f %8.2f %8.1f\n", (long long)L, xi, err,
               xi - XIL_STAR, (xi - XIL_STAR) / err, now() - t0);
        fflush(stdout);
    }
    latmc_ctx_destroy(&ctx);
    return 0;
}

static void usage(void)
{
    printf("Usage: latmc-fss-bench cost [--threads T] [--repeat R] [--only TEXT] [--cuda L] "
           "[--devices N] [--parts K] [--potts P] [--phi4 P] [--decisions D]\n"
           "       latmc-fss-bench xi-at-tc [--sizes L1,L2,..] [--sweeps N] [--chains C] "
           "[--threads T]\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0) {
        usage();
        return argc < 2 ? 2 : 0;
    }
    int threads = 1, repeat = 21, chains = 16, n = 3;
    const char *only = NULL;
    uint64_t sweeps = 20000;
    int64_t sizes[MAX_SIZES] = { 16, 32, 64 };
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "latmc-fss-bench: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (strcmp(a, "--threads") == 0)
            threads = atoi(v);
        else if (strcmp(a, "--repeat") == 0)
            repeat = atoi(v);
        else if (strcmp(a, "--only") == 0)
            only = v;
        else if (strcmp(a, "--cuda") == 0)
            cost_cuda_L = atoll(v);
        else if (strcmp(a, "--potts") == 0)
            cost_potts_L = atoll(v);
        else if (strcmp(a, "--phi4") == 0)
            cost_phi4_L = atoll(v);
        else if (strcmp(a, "--decisions") == 0)
            cost_decisions = strcmp(v, "0") == 0 ? 0 : strcmp(v, "1") == 0 ? 1 : -1;
        else if (strcmp(a, "--devices") == 0 || strcmp(a, "--parts") == 0) {
            char *end = NULL;
            const long k = strtol(v, &end, 10);
            *(strcmp(a, "--parts") == 0 ? &cost_parts : &cost_devices) =
                *v && *end == '\0' && k >= 1 && k <= 64 ? (int)k : -1;
        }
        else if (strcmp(a, "--chains") == 0)
            chains = atoi(v);
        else if (strcmp(a, "--sweeps") == 0)
            sweeps = strtoull(v, NULL, 10);
        else if (strcmp(a, "--sizes") == 0) {
            n = 0;
            for (const char *p = v; *p && n < MAX_SIZES; p = strchr(p, ',') ? strchr(p, ',') + 1 : "")
                sizes[n++] = atoll(p);
        } else {
            fprintf(stderr, "latmc-fss-bench: unknown option %s\n", a);
            return 2;
        }
    }
    if (cost_devices < 0 || cost_parts < 0 || ((cost_devices > 1 || cost_parts > 1) &&
                                              (cost_cuda_L == 0 ||
                                               (cost_devices > 1 && cost_parts > 1)))) {
        fprintf(stderr, "latmc-fss-bench: --devices N or --parts K (1 to 64) goes with "
                        "--cuda L, one of them\n");
        return 2;
    }
    if (cost_cuda_L < 0 || (cost_cuda_L > 0 && cost_cuda_L % 64 != 0)) {
        fprintf(stderr, "latmc-fss-bench: --cuda L needs L a multiple of 64\n");
        return 2;
    }
    if (cost_potts_L < 0 || (cost_potts_L > 0 && (cost_cuda_L == 0 || cost_potts_L % 64 != 0))) {
        fprintf(stderr, "latmc-fss-bench: --potts P goes with --cuda L, P a multiple of 64\n");
        return 2;
    }
    if (cost_phi4_L < 0 || (cost_phi4_L > 0 && (cost_cuda_L == 0 || cost_phi4_L % 64 != 0))) {
        fprintf(stderr, "latmc-fss-bench: --phi4 P goes with --cuda L, P a multiple of 64\n");
        return 2;
    }
    if (cost_decisions < 0) {
        fprintf(stderr, "latmc-fss-bench: --decisions is 0 or 1\n");
        return 2;
    }
    if (threads < 0 || repeat < 1 || chains < 2 || chains > MAX_CHAINS || sweeps < 1 || n < 1) {
        fprintf(stderr, "latmc-fss-bench: need --threads >= 0, --repeat >= 1, 2 <= --chains "
                        "<= %d, --sweeps >= 1, a size\n", MAX_CHAINS);
        return 2;
    }
    for (int i = 0; i < n; i++)
        if (sizes[i] < 2 || sizes[i] % 2) {
            fprintf(stderr, "latmc-fss-bench: sizes are even and >= 2\n");
            return 2;
        }
    if (strcmp(argv[1], "cost") == 0)
        return cost(threads, repeat, only);
    if (strcmp(argv[1], "xi-at-tc") == 0)
        return xi_at_tc(sizes, n, sweeps, chains, threads);
    usage();
    return 2;
}
