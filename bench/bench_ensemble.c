/*
 * latmc-bench --ensemble: M members of L^d Ising, Potts, Heisenberg or phi^4 (an ensemble, threads
 * over members, each member single-threaded) against one lattice of the same number of sites (the
 * sim's own threads), in one run. The lattice's extent (--big B, else the d-th root of
 * M L^d) must be even (the checkerboard): the root is rounded to the nearest even extent,
 * and a note printed where that lattice has another number of sites (rates are per site,
 * so the comparison stands; e.g. 40 x 16^3 compares with 54^3, not 54.72^3); an odd --big
 * is refused. Runs alternate (ensemble, lattice, ensemble, ...) so a
 * machine loaded by others slows both alike; the best of each is reported, as
 * flips (site updates) per nanosecond.
 *
 *   latmc-bench --ensemble [--members M] [-L L] [--dim 2|3] [--big B] [--threads T]
 *                          [--sweeps N] [--repeat R] [--beta B] [--bimodal] [--device cpu|cuda]
 *                          [--temperatures T --replicas R --exchange K]
 *                          [--model ising|potts|heisenberg|phi4 --q Q --gaussian
 *                           --precision float|double
 *                           --algo metropolis|heatbath|overrelax|sw|wolff --nover K --lattice-replicas R]
 *                          [--param NAME=VALUE]...
 *
 * Ising: Metropolis, or heat bath with --algo heatbath. Potts (--model potts, --q Q, default
 * 3; heat bath, or Metropolis with --algo metropolis): rates are site updates per ns. Ising
 * or Potts with --algo sw: Swendsen-Wang (on CUDA batched up to 65536 sites a member,
 * one by one with LATMC_ENS_SW_BATCH=0), a sweep one update a site; --algo wolff: Wolff,
 * batched alike, rates per site and sweep (a sweep one cluster).
 *
 * --param NAME=VALUE: latmc_ens_set_param on the ensemble after its temperatures (before the
 * first sweep), e.g. --param decisions=2 for the chain of member lanes (doc/ensembles.md);
 * the lattice keeps its own parameters (a sim refuses decisions = 2). At most 8 of them
 * (more are refused, saying so).
 *
 * phi^4 (--model phi4, --precision float|double, default float; Metropolis, g = 1 and mu2 =
 * -0.5 unless --param says otherwise, which the lattice takes too; --temperatures T: a mu2
 * ladder from -0.6 to -0.4): rates are hits (site updates x nhit x nloc) per ns. With
 * LATMC_ENS_PHI4_BATCH=0 in the environment the CUDA members run one by one.
 *
 * Heisenberg (--model heisenberg; couplings +-J with --bimodal, Gaussian with --gaussian,
 * else uniform; heat bath + nover overrelaxation passes, float by default): rates are
 * spin updates (sites x replicas x passes) per ns, and ps per spin update; the lattice
 * has --lattice-replicas replicas (default 2, the spin-glass setup; the ensemble's
 * replicas are members).
 *
 * --temperatures T, --replicas R: the members as M / (T R) samples x T temperatures x R
 * replicas, beta_t = beta (0.6 + 0.8 t / (T - 1)); --exchange K: a parallel-tempering round
 * after every K sweeps (the whole round on the device for CUDA Ising and Heisenberg members
 * with a beta ladder and for CUDA phi^4 members of whole sweeps with their mu2 ladder;
 * LATMC_ENS_HOST_ROUNDS=1 keeps it on the host), the spin-glass
 * layout of issue 18 (2 replicas x 32 temperatures x 64 samples). With --exchange, the
 * round's cost is printed after the runs (tempering_breakdown below says what each figure
 * is and how it is timed).
 *
 * With --device cuda both run on the GPU: the ensemble's members in one launch per colour
 * (lib/ens_exec.c, backends/cuda/ising/cuda_ising_batch.c), the lattice with the module's own
 * kernels.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latmc/latmc.h>

#include "bench_ensemble.h"

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the whole process (all threads): robust where the wall clock is not, on a
 * machine shared with other work (descheduled threads cost wall time, not CPU time). */
static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long arg_long(const char *opt, const char *v, long lo, long hi)
{
    char *end = NULL;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || x < lo || x > hi) {
        fprintf(stderr, "latmc-bench --ensemble: %s needs an integer in %ld..%ld\n", opt, lo, hi);
        exit(2);
    }
    return x;
}

static int fail(const char *what, const char *detail)
{
    fprintf(stderr, "latmc-bench --ensemble: %s: %s\n", what, detail);
    return 1;
}

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0 .. n) (v is sorted). */
static double median_of(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/*
 * Where a tempering period's time goes (--exchange K), printed in us per period of K
 * sweeps. Each repeat times, back to back on the same members: P = max(1, N / K) periods
 * with the exchange off, the same P periods with a round after each, and one energy
 * measurement of every member (latmc_ens_observables). Every timed call returns only when
 * its work is done (latmc_ens_sweep waits for the device; the observables are read back).
 * The round is the difference of the two sweep calls of the same repeat over P: what the
 * rounds add to a period (on a device, also whatever differs between the kernels that run
 * with rounds and without), as noisy as the calls are: the median and the range over the
 * repeats are printed, and "not resolved" where the range reaches zero or below (a round
 * cheaper than the calls' noise), never a difference of two separately chosen best times.
 * The same difference in process CPU time (all threads) is printed too: what a round
 * costs on a shared machine, where descheduling inflates the wall clock.
 * The measurement is what a round on the host pays for its energies (lib/ens_exchange.c);
 * rounds on the device measure on the device instead (CUDA Ising inside the sweep kernel,
 * CUDA Heisenberg a reduction launch of the batch, CUDA phi^4 a launch of the sums phi^2
 * alone, nothing read back), so there it is a reference, not a part of the round.
 */
static int tempering_breakdown(latmc_ens *e, long members, long exchange, long sweeps,
                               long repeat)
{
    const long periods = sweeps / exchange > 0 ? sweeps / exchange : 1;
    const uint64_t n = (uint64_t)periods * (uint64_t)exchange;
    double *t = malloc((size_t)(6 * repeat + members) * sizeof *t);
    if (!t)
        return fail("round breakdown", "out of memory");
    double *t_off = t, *t_on = t + repeat, *t_round = t + 2 * repeat, *t_meas = t + 3 * repeat;
    double *c_off = t + 4 * repeat, *c_round = t + 5 * repeat; /* process CPU time */
    double *en = t + 6 * repeat;
    int st = 0;
    for (long r = 0; r < repeat && !st; r++) {
        /* the map read first: where the device runs the rounds, the host's copy of it (and
         * the members' betas) comes back here, untimed */
        int t_of = 0;
        st = latmc_ens_set_exchange(e, 0) || latmc_ens_temperature_of(e, 0, &t_of);
        double c0 = cpu_seconds(), t0 = seconds();
        st = st || latmc_ens_sweep(e, n);
        t_off[r] = seconds() - t0;
        c_off[r] = cpu_seconds() - c0;
        t0 = seconds();
        st = st || latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, en,
                                         (size_t)members);
        t_meas[r] = seconds() - t0;
        st = st || latmc_ens_set_exchange(e, (uint64_t)exchange);
        /* align to a period boundary: the next call ends each of its periods with a round
         * (at least one untimed call with rounds first: a device then loads its state
         * there and goes on from it, as in a run that reads nothing between calls) */
        uint64_t count = 0;
        st = st || latmc_ens_sweep_count(e, &count);
        if (!st)
            st = latmc_ens_sweep(e, (uint64_t)exchange - count % (uint64_t)exchange);
        c0 = cpu_seconds();
        t0 = seconds();
        st = st || latmc_ens_sweep(e, n);
        t_on[r] = seconds() - t0;
        t_round[r] = (t_on[r] - t_off[r]) / (double)periods;
        c_round[r] = (cpu_seconds() - c0 - c_off[r]) / (double)periods;
    }
    if (st) {
        free(t);
        return fail("round breakdown", latmc_ens_last_error(e));
    }
    const double us = 1e6 / (double)periods;
    const double off = median_of(t_off, repeat) * us, on = median_of(t_on, repeat) * us;
    const double meas = median_of(t_meas, repeat) * 1e6;
    const double per_round = median_of(t_round, repeat) * 1e6;
    const double lo = t_round[0] * 1e6, hi = t_round[repeat - 1] * 1e6; /* sorted above */
    printf("tempering period of %ld sweeps (medians of %ld repeats of %ld periods): %.1f us "
           "without the round, %.1f us with it\n", exchange, repeat, periods, off, on);
    if (lo > 0)
        printf("tempering round: %.1f us (repeats %.1f .. %.1f us)\n", per_round, lo, hi);
    else
        printf("tempering round: not resolved (repeats %.1f .. %.1f us: within the sweep "
               "calls' noise)\n", lo, hi);
    printf("tempering round, process CPU time: %.1f us (median of the repeats)\n",
           median_of(c_round, repeat) * 1e6);
    printf("energies of every member (latmc_ens_observables): %.1f us\n", meas);
    free(t);
    return 0;
}

/* The --param settings on the ensemble: the first failure's status. */
static int set_params(latmc_ens *e, const int *key, const double *value, int n)
{
    for (int k = 0; k < n; k++) {
        const int st = latmc_ens_set_param(e, key[k], value[k]);
        if (st != LATMC_OK)
            return st;
    }
    return LATMC_OK;
}

int bench_ensemble_main(int argc, char **argv)
{
    long members = 64, L = 16, dim = 3, big = 0, threads = 2, sweeps = 50, repeat = 5;
    long n_temps = 1, n_reps = 1, exchange = 0;
    double beta = 0.6666666666666666;
    bool bimodal = false, gaussian = false, heisenberg = false, dbl = false, overrelax = false;
    bool potts = false, metropolis = false, algo_given = false, phi4 = false, sw = false;
    bool wolff = false; /* with sw: Wolff's steps instead of Swendsen-Wang's third */
    long q = 3;
    long nover = 2, lattice_reps = 0;
    int device = LATMC_DEVICE_CPU;
    enum { MAX_PARAMS = 8 };
    int param_key[MAX_PARAMS];
    double param_value[MAX_PARAMS];
    int n_params = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--bimodal") == 0 || strcmp(a, "--gaussian") == 0) {
            bimodal = strcmp(a, "--bimodal") == 0;
            gaussian = !bimodal;
            continue;
        }
        if (strcmp(a, "--help") == 0) {
            printf("usage: latmc-bench --ensemble [--members M] [-L L] [--dim 2|3] [--big B]\n"
                   "         [--threads T] [--sweeps N] [--repeat R] [--beta B] [--bimodal]\n"
                   "         [--device cpu|cuda] [--temperatures T] [--replicas R] [--exchange K]\n"
                   "         [--model ising|potts|heisenberg|phi4] [--q Q] [--gaussian]\n"
                   "         [--precision float|double]\n"
                   "         [--algo metropolis|heatbath|overrelax|sw|wolff] [--nover K] [--lattice-replicas R]\n"
                   "         [--param NAME=VALUE]... (the ensemble's; decisions=2: member lanes)\n"
                   "Rates: best of R alternating runs of N sweeps each. With --exchange K, also\n"
                   "per period of K sweeps (medians over R repeats of max(1, N/K) periods):\n"
                   "  the sweeps without and with the round; the round, their difference in\n"
                   "  each repeat, what the rounds add (on a device also any difference of\n"
                   "  the kernels that run with and without them; its range printed; 'not\n"
                   "  resolved' where it reaches zero: cheaper than the calls' noise); the\n"
                   "  energies of every member measured once (what a host round pays; a\n"
                   "  device round, CUDA Ising or Heisenberg, measures them on the device:\n"
                   "  Ising inside its sweep kernel, Heisenberg in a launch of its own;\n"
                   "  LATMC_ENS_HOST_ROUNDS=1 runs the rounds on the host). Every timed call\n"
                   "  waits for its device.\n");
            return 0;
        }
        i++;
        if (strcmp(a, "--members") == 0) members = arg_long(a, v, 1, 1 << 20);
        else if (strcmp(a, "--temperatures") == 0) n_temps = arg_long(a, v, 1, 1 << 16);
        else if (strcmp(a, "--replicas") == 0) n_reps = arg_long(a, v, 1, 1 << 16);
        else if (strcmp(a, "--exchange") == 0) exchange = arg_long(a, v, 0, 1L << 30);
        else if (strcmp(a, "-L") == 0) L = arg_long(a, v, 2, 4096);
        else if (strcmp(a, "--dim") == 0) dim = arg_long(a, v, 2, 3);
        else if (strcmp(a, "--big") == 0) big = arg_long(a, v, 2, 1 << 16);
        else if (strcmp(a, "--threads") == 0) threads = arg_long(a, v, 1, 4096);
        else if (strcmp(a, "--sweeps") == 0) sweeps = arg_long(a, v, 1, 1L << 30);
        else if (strcmp(a, "--repeat") == 0) repeat = arg_long(a, v, 1, 1000);
        else if (strcmp(a, "--beta") == 0 && v) beta = atof(v);
        else if (strcmp(a, "--nover") == 0) nover = arg_long(a, v, 0, 1000);
        else if (strcmp(a, "--lattice-replicas") == 0) lattice_reps = arg_long(a, v, 1, 2);
        else if (strcmp(a, "--model") == 0 && v &&
                 (!strcmp(v, "ising") || !strcmp(v, "heisenberg") || !strcmp(v, "potts") ||
                  !strcmp(v, "phi4"))) {
            heisenberg = strcmp(v, "heisenberg") == 0;
            potts = strcmp(v, "potts") == 0;
            phi4 = strcmp(v, "phi4") == 0;
        } else if (strcmp(a, "--q") == 0) q = arg_long(a, v, 2, 255);
        else if (strcmp(a, "--precision") == 0 && v && (!strcmp(v, "float") || !strcmp(v, "double")))
            dbl = strcmp(v, "double") == 0;
        else if (strcmp(a, "--algo") == 0 && v && (!strcmp(v, "heatbath") || !strcmp(v, "overrelax") ||
                                                    !strcmp(v, "metropolis") || !strcmp(v, "sw") ||
                                                    !strcmp(v, "wolff"))) {
            overrelax = strcmp(v, "overrelax") == 0;
            metropolis = strcmp(v, "metropolis") == 0;
            wolff = strcmp(v, "wolff") == 0;
            sw = strcmp(v, "sw") == 0 || wolff;
            algo_given = true;
        }
        else if (strcmp(a, "--device") == 0 && v && (!strcmp(v, "cpu") || !strcmp(v, "cuda")))
            device = strcmp(v, "cuda") == 0 ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
        else if (strcmp(a, "--param") == 0 && v) {
            if (n_params == MAX_PARAMS) {
                fprintf(stderr, "latmc-bench --ensemble: --param: at most %d settings\n",
                        (int)MAX_PARAMS);
                return 2;
            }
            const char *eq = strchr(v, '=');
            char name[64];
            char *end = NULL;
            const size_t len = eq ? (size_t)(eq - v) : 0;
            if (!eq || len == 0 || len >= sizeof name)
                return fail("--param", "needs NAME=VALUE");
            memcpy(name, v, len);
            name[len] = '\0';
            param_value[n_params] = strtod(eq + 1, &end);
            if (end == eq + 1 || *end || latmc_param_by_name(name, &param_key[n_params]) != 0)
                return fail("--param", "unknown name or bad value");
            n_params++;
        } else {
            fprintf(stderr, "latmc-bench --ensemble: unknown option %s\n", a);
            return 2;
        }
    }
    /* the algorithms each model has here: nothing taken for another silently */
    if ((!heisenberg && overrelax) || (heisenberg && (metropolis || sw)) ||
        (phi4 && algo_given && !metropolis)) {
        fprintf(stderr, "latmc-bench --ensemble: --algo %s: the %s members run %s\n",
                overrelax ? "overrelax"
                : wolff   ? "wolff"
                : sw      ? "sw"
                          : "metropolis",
                potts        ? "Potts"
                : heisenberg ? "Heisenberg"
                : phi4       ? "phi^4"
                             : "Ising",
                heisenberg ? "heatbath or overrelax"
                : phi4     ? "metropolis"
                           : "metropolis, heatbath, sw or wolff");
        return 2;
    }
    if (lattice_reps == 0)
        lattice_reps = heisenberg ? 2 : 1;
    /* updates per site and replica in a sweep: Heisenberg's passes */
    double passes = !heisenberg ? 1.0 : overrelax ? (nover < 1 ? 1.0 : (double)nover)
                                           : 1.0 + (double)nover;
    double nsmall = pow((double)L, (double)dim) * passes;
    if (big % 2 != 0) {
        fprintf(stderr, "latmc-bench --ensemble: --big %ld is odd (the lattice's checkerboard "
                "needs even extents)\n", big);
        return 2;
    }
    if (big == 0) { /* the even lattice nearest the same number of sites */
        const double same = (double)members * pow((double)L, (double)dim);
        const double root = pow(same, 1.0 / (double)dim);
        big = 2 * lround(root / 2.0);
        big = big < 2 ? 2 : big;
        if (fabs(pow((double)big, (double)dim) - same) > 0.5)
            printf("lattice: %ld^%ld, the even extent nearest %.2f^%ld = %ld x %ld^%ld sites "
                   "(rates are per site)\n", big, dim, root, dim, members, L, dim);
    }
    double nbig = pow((double)big, (double)dim) * passes * (double)(heisenberg ? lattice_reps : 1);

    latmc_ctx *ctx = NULL;
    latmc_ens *e = NULL;
    latmc_sim *sim = NULL;
    int rc = 1;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return fail("ctx", latmc_last_error());
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = heisenberg    ? LATMC_MODEL_HEISENBERG
              : potts ? LATMC_MODEL_POTTS
              : phi4  ? LATMC_MODEL_PHI4
                      : LATMC_MODEL_ISING;
    if (phi4) {
        d.precision = dbl ? LATMC_PRECISION_DOUBLE : LATMC_PRECISION_FLOAT;
        d.algorithm = LATMC_ALGO_METROPOLIS;
    }
    if (potts) {
        d.q = (int)q;
        d.algorithm = metropolis ? LATMC_ALGO_METROPOLIS : LATMC_ALGO_HEATBATH;
    }
    if (heisenberg) {
        d.precision = dbl ? LATMC_PRECISION_DOUBLE : LATMC_PRECISION_FLOAT;
        d.algorithm = overrelax ? LATMC_ALGO_OVERRELAX : LATMC_ALGO_HEATBATH;
    }
    if (!potts && !heisenberg && !phi4) /* Ising: Metropolis unless --algo heatbath */
        d.algorithm = algo_given && !metropolis ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
    if (sw) /* Ising or Potts: Swendsen-Wang or Wolff */
        d.algorithm = wolff ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG;
    d.ndim = (int)dim;
    d.device = device;
    d.couplings = bimodal ? LATMC_COUPLINGS_BIMODAL
                : gaussian ? LATMC_COUPLINGS_GAUSSIAN : LATMC_COUPLINGS_UNIFORM;
    d.seed = 1;
    for (int mu = 0; mu < dim; mu++)
        d.extent[mu] = L;
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    if (members % (n_temps * n_reps) != 0 || (exchange > 0 && n_temps < 2)) {
        fprintf(stderr, "latmc-bench --ensemble: --members must be a multiple of temperatures x "
                "replicas, and --exchange needs two temperatures or more\n");
        return 2;
    }
    l.n_samples = (int)(members / (n_temps * n_reps));
    l.n_temperatures = (int)n_temps;
    l.n_replicas = (int)n_reps;
    double *betas = malloc((size_t)n_temps * sizeof *betas);
    if (!betas)
        return fail("temperatures", "out of memory");
    for (long t = 0; t < n_temps; t++)
        betas[t] = phi4 ? (n_temps == 1 ? -0.5 : -0.6 + 0.2 * (double)t / (double)(n_temps - 1))
                 : n_temps == 1 ? beta
                                : beta * (0.6 + 0.8 * (double)t / (double)(n_temps - 1));
    l.seed = 1;
    l.n_threads = (int)threads;
    /* phi^4: g = 1 and the mu2 ladder (or mu2 alone) before the --param settings */
    if (latmc_ens_create(ctx, &d, &l, &e) != LATMC_OK ||
        (!phi4 && latmc_ens_set_temperatures(e, betas, (int)n_temps)) ||
        (phi4 && (latmc_ens_set_param(e, LATMC_PARAM_G, 1.0) ||
                  (n_temps > 1 ? latmc_ens_set_ladder(e, LATMC_PARAM_MU2, betas, (int)n_temps)
                               : latmc_ens_set_param(e, LATMC_PARAM_MU2, betas[0])))) ||
        (heisenberg && latmc_ens_set_param(e, LATMC_PARAM_NOVER, (double)nover)) ||
        (exchange > 0 && latmc_ens_set_exchange(e, (uint64_t)exchange)) ||
        set_params(e, param_key, param_value, n_params) ||
        latmc_ens_init_spins(e, LATMC_INIT_HOT) || latmc_ens_sweep(e, 1)) {
        free(betas);
        rc = fail("ensemble", e ? latmc_ens_last_error(e) : latmc_last_error());
        goto out;
    }
    free(betas);
    for (int mu = 0; mu < dim; mu++)
        d.extent[mu] = big;
    d.n_threads = (int)threads;
    if (heisenberg)
        d.replicas = (int)lattice_reps;
    if (latmc_sim_create(ctx, &d, &sim) ||
        (!phi4 && latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta)) ||
        (phi4 && (latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0) ||
                  latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.5))) ||
        (heisenberg && latmc_sim_set_param(sim, LATMC_PARAM_NOVER, (double)nover))) {
        rc = fail("lattice", sim ? latmc_sim_last_error(sim) : latmc_last_error());
        goto out;
    }
    for (int k = 0; phi4 && k < n_params; k++) /* the lattice takes phi^4's settings too */
        if (latmc_sim_set_param(sim, param_key[k], param_value[k])) {
            rc = fail("lattice", latmc_sim_last_error(sim));
            goto out;
        }
    if (latmc_sim_init_spins(sim, LATMC_INIT_HOT) || latmc_sim_sweep(sim, 1)) {
        rc = fail("lattice", latmc_sim_last_error(sim));
        goto out;
    }
    if (phi4) { /* hits a site and sweep: nhit x nloc */
        double nhit = 1, nloc = 1;
        latmc_sim_get_param(sim, LATMC_PARAM_NHIT, &nhit);
        latmc_sim_get_param(sim, LATMC_PARAM_NLOC, &nloc);
        passes = nhit * nloc;
        nsmall *= passes;
        nbig *= passes;
    }
    double best_e = 0, best_s = 0, cpu_e = 1e300, cpu_s = 1e300;
    const char *unit = heisenberg ? "spin updates/ns"
                       : potts    ? "updates/ns"
                       : phi4     ? "hits/ns"
                                  : "flips/ns";
    for (long r = 0; r < repeat; r++) {
        double t0 = seconds(), c0 = cpu_seconds();
        if (latmc_ens_sweep(e, (uint64_t)sweeps)) {
            rc = fail("ensemble sweep", latmc_ens_last_error(e));
            goto out;
        }
        const double fe = (double)members * nsmall * (double)sweeps / ((seconds() - t0) * 1e9);
        const double ce = (cpu_seconds() - c0) * 1e9 / ((double)members * nsmall * (double)sweeps);
        t0 = seconds();
        c0 = cpu_seconds();
        if (latmc_sim_sweep(sim, (uint64_t)sweeps)) {
            rc = fail("lattice sweep", latmc_sim_last_error(sim));
            goto out;
        }
        const double fs = nbig * (double)sweeps / ((seconds() - t0) * 1e9);
        const double cs = (cpu_seconds() - c0) * 1e9 / (nbig * (double)sweeps);
        best_e = fe > best_e ? fe : best_e;
        best_s = fs > best_s ? fs : best_s;
        cpu_e = ce < cpu_e ? ce : cpu_e;
        cpu_s = cs < cpu_s ? cs : cpu_s;
        printf("run %ld: ensemble %.3f %s, lattice %.3f %s\n", r + 1, fe, unit, fs, unit);
    }
    if (exchange > 0 && (rc = tempering_breakdown(e, members, exchange, sweeps, repeat)) != 0)
        goto out;
    const char *where = device == LATMC_DEVICE_CUDA ? "CUDA" : "CPU";
    const char *model = heisenberg ? "Heisenberg" : potts ? "Potts" : phi4 ? "phi^4" : "Ising";
    const char *cpl = bimodal ? " +-J" : gaussian ? " Gaussian" : "";
    if (potts)
        printf("Potts: q = %ld, %s\n", q, wolff ? "Wolff" : sw ? "Swendsen-Wang"
                                           : metropolis ? "Metropolis" : "heat bath");
    if (phi4)
        printf("phi^4: Metropolis, %s, %.0f hits a site and sweep, %s\n",
               dbl ? "double" : "float", passes,
               device != LATMC_DEVICE_CUDA ? "members on host threads"
               : getenv("LATMC_ENS_PHI4_BATCH") && !strcmp(getenv("LATMC_ENS_PHI4_BATCH"), "0")
                   ? "members one by one (LATMC_ENS_PHI4_BATCH=0)"
                   : "members batched");
    if (!potts && !heisenberg && !phi4)
        printf("Ising: %s\n", wolff ? "Wolff" : sw ? "Swendsen-Wang"
                               : d.algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis");
    if (sw) /* LATMC_ENS_SW_BATCH=0 declines the batch (clusters/cuda_sw_batch.c) */
        printf("%s: %s\n", wolff ? "Wolff (rates per site and sweep: one cluster a sweep)"
                                  : "Swendsen-Wang",
               device != LATMC_DEVICE_CUDA ? "members on host threads"
               : getenv("LATMC_ENS_SW_BATCH") && !strcmp(getenv("LATMC_ENS_SW_BATCH"), "0")
                   ? "members one by one (LATMC_ENS_SW_BATCH=0)"
                   : "members batched up to 65536 sites (LATMC_ENS_SW_BATCH=0: one by one)");
    if (heisenberg)
        printf("Heisenberg: %s, %s, nover %ld (%.0f passes a sweep)\n",
               overrelax ? "overrelaxation" : "heat bath", dbl ? "double" : "float", nover, passes);
    printf("ensemble: %ld x %ld^%ld %s%s (%.0f sites), %s, %ld threads over members: "
           "best %.3f %s (%.2f ps per update)\n", members, L, dim, model, cpl,
           (double)members * pow((double)L, (double)dim), where, threads, best_e, unit,
           1000.0 / best_e);
    if (n_temps > 1 || n_reps > 1)
        printf("ensemble layout: %ld samples x %ld temperatures x %ld replicas, exchange %s%ld\n",
               members / (n_temps * n_reps), n_temps, n_reps, exchange ? "every " : "off ",
               exchange);
    printf("lattice:  %ld^%ld %s%s (%.0f sites, %ld replica%s), %s, %ld threads: best %.3f %s "
           "(%.2f ps per update)\n",
           big, dim, model, cpl, pow((double)big, (double)dim), heisenberg ? lattice_reps : 1,
           heisenberg && lattice_reps > 1 ? "s" : "", where, threads, best_s, unit,
           1000.0 / best_s);
    for (int k = 0; k < n_params; k++)
        printf("ensemble parameter: %s = %g\n", latmc_param_name(param_key[k]), param_value[k]);
    printf("ensemble / lattice = %.3f (best of %ld alternating runs of %ld sweeps, beta %g)\n",
           best_e / best_s, repeat, sweeps, beta);
    if (device == LATMC_DEVICE_CPU)
        printf("host CPU time per flip (all threads, best): ensemble %.3f ns, lattice %.3f ns, "
               "lattice / ensemble = %.3f\n", cpu_e, cpu_s, cpu_s / cpu_e);
    rc = 0;
out:
    latmc_ens_destroy(&e);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return rc;
}
