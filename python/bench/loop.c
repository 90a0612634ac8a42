/* The C side of python/bench/overhead.py: the same loops the Python layer runs, timed.
 * usage: loop sweep L N THREADS   -> ns per latmc_sim_sweep(sim, 1) call
 *        loop sweep0 L N THREADS  -> ns per latmc_sim_sweep(sim, 0) call (the call alone)
 *        loop series L N THREADS  -> s for N x (sweep 1 + energy, |m|, m^2, m^4) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <latmc/ctx.h>
#include <latmc/sim.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    long L = atol(argv[2]), n = atol(argv[3]);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = L;
    d.algorithm = LATMC_ALGO_METROPOLIS;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = atoi(argv[4]);
    d.seed = 1;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    if (latmc_ctx_create(&ctx) || latmc_sim_create(ctx, &d, &sim) ||
        latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4406868) ||
        latmc_sim_init_spins(sim, LATMC_INIT_HOT) || latmc_sim_sweep(sim, 1000)) {
        fprintf(stderr, "loop: %s\n", latmc_last_error());
        return 1;
    }
    static const int keys[4] = { LATMC_OBS_ENERGY, LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2,
                                 LATMC_OBS_M4 };
    double *out = malloc(sizeof(double) * 4 * (size_t)n);
    double t0 = now();
    if (strcmp(argv[1], "sweep") == 0 || strcmp(argv[1], "sweep0") == 0) {
        uint64_t k = strcmp(argv[1], "sweep") == 0;
        for (long i = 0; i < n; i++)
            if (latmc_sim_sweep(sim, k))
                return 1;
        printf("%.3f\n", (now() - t0) / (double)n * 1e9);
    } else {
        for (long i = 0; i < n; i++) {
            if (latmc_sim_sweep(sim, 1))
                return 1;
            for (int k = 0; k < 4; k++)
                if (latmc_sim_observable(sim, keys[k], &out[4 * i + k]))
                    return 1;
        }
        printf("%.6f\n", now() - t0);
    }
    free(out);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return 0;
}
