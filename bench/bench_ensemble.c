/*
 * latmc-bench --ensemble: M members of L^d Ising (an ensemble, threads over members,
 * each member single-threaded) against one lattice of the same number of sites (the
 * sim's own threads), in one run. Runs alternate (ensemble, lattice, ensemble, ...) so a
 * machine loaded by others slows both alike; the best of each is reported, as
 * flips (site updates) per nanosecond.
 *
 *   latmc-bench --ensemble [--members M] [-L L] [--dim 2|3] [--big B] [--threads T]
 *                          [--sweeps N] [--repeat R] [--beta B] [--bimodal] [--device cpu|cuda]
 *                          [--temperatures T --replicas R --exchange K]
 *
 * --temperatures T, --replicas R: the members as M / (T R) samples x T temperatures x R
 * replicas, beta_t = beta (0.6 + 0.8 t / (T - 1)); --exchange K: a parallel-tempering round
 * after every K sweeps (its energies measured on the device for CUDA Ising), the spin-glass
 * layout of issue 18 (2 replicas x 32 temperatures x 64 samples).
 *
 * With --device cuda both run on the GPU: the ensemble's members in one launch per colour
 * (lib/ens_exec.c, backends/cuda/ens_cuda.c), the lattice with the module's own kernels.
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

int bench_ensemble_main(int argc, char **argv)
{
    long members = 64, L = 16, dim = 3, big = 0, threads = 2, sweeps = 50, repeat = 5;
    long n_temps = 1, n_reps = 1, exchange = 0;
    double beta = 0.6666666666666666;
    bool bimodal = false;
    int device = LATMC_DEVICE_CPU;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--bimodal") == 0) {
            bimodal = true;
            continue;
        }
        if (strcmp(a, "--help") == 0) {
            printf("usage: latmc-bench --ensemble [--members M] [-L L] [--dim 2|3] [--big B]\n"
                   "         [--threads T] [--sweeps N] [--repeat R] [--beta B] [--bimodal]\n"
                   "         [--device cpu|cuda] [--temperatures T] [--replicas R] [--exchange K]\n");
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
        else if (strcmp(a, "--device") == 0 && v && (!strcmp(v, "cpu") || !strcmp(v, "cuda")))
            device = strcmp(v, "cuda") == 0 ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
        else {
            fprintf(stderr, "latmc-bench --ensemble: unknown option %s\n", a);
            return 2;
        }
    }
    const double nsmall = pow((double)L, (double)dim);
    if (big == 0) /* the lattice of the same number of sites, where one exists */
        big = lround(pow((double)members * nsmall, 1.0 / (double)dim));
    const double nbig = pow((double)big, (double)dim);

    latmc_ctx *ctx = NULL;
    latmc_ens *e = NULL;
    latmc_sim *sim = NULL;
    int rc = 1;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return fail("ctx", latmc_last_error());
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = (int)dim;
    d.device = device;
    d.couplings = bimodal ? LATMC_COUPLINGS_BIMODAL : LATMC_COUPLINGS_UNIFORM;
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
        betas[t] = n_temps == 1 ? beta : beta * (0.6 + 0.8 * (double)t / (double)(n_temps - 1));
    l.seed = 1;
    l.n_threads = (int)threads;
    if (latmc_ens_create(ctx, &d, &l, &e) != LATMC_OK ||
        latmc_ens_set_temperatures(e, betas, (int)n_temps) ||
        (exchange > 0 && latmc_ens_set_exchange(e, (uint64_t)exchange)) ||
        latmc_ens_init_spins(e, LATMC_INIT_HOT) || latmc_ens_sweep(e, 1)) {
        free(betas);
        rc = fail("ensemble", e ? latmc_ens_last_error(e) : latmc_last_error());
        goto out;
    }
    free(betas);
    for (int mu = 0; mu < dim; mu++)
        d.extent[mu] = big;
    d.n_threads = (int)threads;
    if (latmc_sim_create(ctx, &d, &sim) || latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta) ||
        latmc_sim_init_spins(sim, LATMC_INIT_HOT) || latmc_sim_sweep(sim, 1)) {
        rc = fail("lattice", sim ? latmc_sim_last_error(sim) : latmc_last_error());
        goto out;
    }
    double best_e = 0, best_s = 0, cpu_e = 1e300, cpu_s = 1e300;
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
        printf("run %ld: ensemble %.3f flips/ns, lattice %.3f flips/ns\n", r + 1, fe, fs);
    }
    const char *where = device == LATMC_DEVICE_CUDA ? "CUDA" : "CPU";
    printf("ensemble: %ld x %ld^%ld Ising%s (%.0f sites), %s, %ld threads over members: "
           "best %.3f flips/ns (%.3f ns/flip)\n", members, L, dim, bimodal ? " +-J" : "",
           (double)members * nsmall, where, threads, best_e, 1.0 / best_e);
    if (n_temps > 1 || n_reps > 1)
        printf("ensemble layout: %ld samples x %ld temperatures x %ld replicas, exchange %s%ld\n",
               members / (n_temps * n_reps), n_temps, n_reps, exchange ? "every " : "off ",
               exchange);
    printf("lattice:  %ld^%ld Ising%s (%.0f sites), %s, %ld threads: best %.3f flips/ns "
           "(%.3f ns/flip)\n", big, dim, bimodal ? " +-J" : "", nbig, where, threads, best_s,
           1.0 / best_s);
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
