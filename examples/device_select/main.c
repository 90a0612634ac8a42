/*
 * device_select — which devices liblatmc can use here, and a short Ising simulation on each.
 *
 * Lists the CPU and the CUDA devices (when the CUDA module cannot be used, says why, from
 * latmc_ctx_backend_status), then runs the same Ising chain (same seed, same lattice) on
 * every device and on LATMC_DEVICE_AUTO, and compares the final configurations: Ising
 * chains are bit-identical across backends (doc/physics.md), so any difference is a bug and
 * the program exits 1.
 *
 *   device_select            L = 256, 500 sweeps per device
 *   device_select --quick    L = 32, 50 sweeps (the test)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "ex_util.h"

struct run_result {
    const char *backend;
    double seconds, energy;
    uint64_t hash;            /* FNV-1a of the final configuration */
};

/* Library messages (e.g. why AUTO chose the CPU) as they come. */
static void log_line(void *user, int level, const char *msg)
{
    (void)user;
    static const char *names[] = { "debug", "info", "warn", "error" };
    printf("    [liblatmc %s] %s\n", level >= 0 && level <= 3 ? names[level] : "?", msg);
}

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static void list_devices(latmc_ctx *ctx, int kind, const char *name, int *count)
{
    printf("%s backend: %s\n", name, latmc_ctx_backend_status(ctx, kind));
    *count = 0;
    int st = latmc_ctx_device_count(ctx, kind, count);
    if (st != LATMC_OK) {
        printf("  no %s devices: %s\n", name, latmc_strerror(st));
        *count = 0;
        return;
    }
    for (int i = 0; i < *count; i++) {
        latmc_device_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        if (ex_check(latmc_ctx_device_info(ctx, kind, i, &info), NULL, "device info"))
            continue;
        if (kind == LATMC_DEVICE_CPU)
            printf("  cpu %d: %s, %d logical processors\n", i, info.name, info.multiprocessors);
        else
            printf("  cuda %d: %s, %.1f GiB, compute capability %d.%d, %d multiprocessors\n", i,
                   info.name, (double)info.memory_bytes / (1024.0 * 1024.0 * 1024.0),
                   info.compute_major, info.compute_minor, info.multiprocessors);
    }
}

/* The same Ising chain on (kind, index); false if it could not run. */
static bool run_on(latmc_ctx *ctx, int kind, int index, int L, uint64_t sweeps,
                   struct run_result *r)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = L;
    d.algorithm = LATMC_ALGO_METROPOLIS;
    d.device = kind;
    d.device_index = index;
    d.seed = 12345;
    latmc_sim *sim = NULL;
    int8_t *spins = malloc((size_t)L * (size_t)L);
    bool ok = spins != NULL &&
              !ex_check(latmc_sim_create(ctx, &d, &sim), NULL, "latmc_sim_create") &&
              !ex_check(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4406868), sim, "beta") &&
              !ex_check(latmc_sim_init_spins(sim, LATMC_INIT_HOT), sim, "init");
    double t0 = ex_now();
    ok = ok && !ex_check(latmc_sim_sweep(sim, sweeps), sim, "sweep") &&
         !ex_check(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &r->energy), sim, "energy");
    r->seconds = ex_now() - t0;
    ok = ok && !ex_check(latmc_sim_get_spins(sim, spins, (size_t)L * (size_t)L), sim, "spins");
    if (ok) {
        r->backend = latmc_sim_backend_name(sim);
        r->hash = fnv1a((const unsigned char *)spins, (size_t)L * (size_t)L);
    }
    free(spins);
    latmc_sim_destroy(&sim);
    return ok;
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (argc > 2 || (argc == 2 && !quick)) {
        printf("Usage: %s [--quick]\nList the devices and run the same Ising chain on each.\n",
               argv[0]);
        return argc == 2 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    int L = quick ? 32 : 256;
    uint64_t sweeps = quick ? 50 : 500;
    latmc_ctx *ctx = NULL;
    if (ex_check(latmc_ctx_create(&ctx), NULL, "latmc_ctx_create"))
        return 1;
    latmc_ctx_set_log(ctx, log_line, NULL, LATMC_LOG_INFO);
    printf("liblatmc %s\n", latmc_version_string());
    int ncpu = 0, ncuda = 0;
    list_devices(ctx, LATMC_DEVICE_CPU, "CPU", &ncpu);
    list_devices(ctx, LATMC_DEVICE_CUDA, "CUDA", &ncuda);

    printf("\n2D Ising %dx%d at beta_c, Metropolis, seed 12345, %" PRIu64 " sweeps from the "
           "same hot start on each device:\n", L, L, sweeps);
    struct run_result ref = { 0 };
    int failures = 0;
    for (int k = 0; k < 1 + ncuda + 1; k++) {
        /* the CPU first (the reference), then every GPU, then AUTO */
        int kind = k == 0 ? LATMC_DEVICE_CPU : k <= ncuda ? LATMC_DEVICE_CUDA : LATMC_DEVICE_AUTO;
        int index = kind == LATMC_DEVICE_CUDA ? k - 1 : 0;
        const char *label = kind == LATMC_DEVICE_CPU ? "cpu" : kind == LATMC_DEVICE_CUDA
                            ? "cuda" : "auto";
        struct run_result r = { 0 };
        printf("  %s %d:\n", label, index);
        if (!run_on(ctx, kind, index, L, sweeps, &r)) {
            failures++;
            continue;
        }
        if (k == 0)
            ref = r;
        bool same = r.hash == ref.hash;
        printf("    backend %s: %.3f s, %.3f site updates/ns, E/N = %.10f, configuration "
               "%016" PRIx64 " %s\n", r.backend, r.seconds,
               (double)L * L * (double)sweeps / (r.seconds * 1e9), r.energy, r.hash,
               k == 0 ? "(reference)" : same ? "= the CPU's" : "DIFFERS from the CPU's");
        failures += !same;
    }
    latmc_ctx_destroy(&ctx);
    if (failures > 0) {
        printf("\n%d run(s) failed or differ from the CPU reference\n", failures);
        return 1;
    }
    printf("\nevery device gave the same configuration\n");
    return 0;
}
