/*
 * latmc-cpu-ceiling: the two roofs of the CPU Ising kernels on this machine
 * (doc/PERFORMANCE.md), measured the way the kernels use the hardware:
 *
 *   - Philox: draws per nanosecond of the scalar generator (lib/philox.h) and of each SIMD
 *     level's generator alone, as the update kernels run it (no spins, no decisions). An
 *     Ising update takes one draw, so this is the compute ceiling of an update kernel on
 *     one core.
 *   - Memory: bytes per nanosecond of a pass that reads two arrays and writes one of them
 *     (a colour pass of the split layout reads the half-rows of both colours and writes its
 *     own: 3 bytes per update per sweep), over arrays far larger than the caches, on one
 *     thread and on all of them.
 *
 * and, against them, the Ising kernels themselves (through the public API, as latmc-bench
 * runs them): L^2 or L^3, Metropolis or heat bath, at beta = 2/3 (2D) or 1/4 (3D) after a
 * hot start, each SIMD level and the C reference, one thread and all threads.
 *
 * Best of several runs, timed in CPU time (one thread: the thread's; several: the
 * process's, waiting at barriers included), so that a shared machine -- other processes
 * taking turns on the cores -- does not lower the figures; for several threads also the
 * best run in wall time (one that the machine left alone), and the memory figure for
 * several threads is wall time. Internal program: it calls the CPU backend's kernel tables.
 *
 *   latmc-cpu-ceiling [--quick] [-L L] [--dim 2|3] [--heatbath]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <latmc/latmc.h>

#include "cpu_features.h"
#include "cpu_omp.h"
#include "ising_split.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* CPU time of this thread: the rate of the core while it runs this program. */
static double cpu_now(void)
{
    return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static double process_now(void)
{
    return clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static double wall_now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static volatile uint32_t sink;

/* Draws per ns of the table's generator as the update kernels run it. */
static double philox_rate(const struct cpu_ising_dsp *dsp, int64_t groups, int reps)
{
    double best = 0;
    for (int r = 0; r < reps; r++) {
        const double t0 = cpu_now();
        sink = dsp->draws_xor(12345, 0, groups);
        const double rate = 32.0 * (double)groups / (cpu_now() - t0) * 1e-9;
        best = rate > best ? rate : best;
    }
    return best;
}

/* a ^= b over n words: reads 2 n, writes n words. */
static double memory(uint64_t *a, const uint64_t *b, int64_t n, int threads, int reps)
{
    double best = 0;
    for (int r = 0; r < reps; r++) {
        const double t0 = threads == 1 ? cpu_now() : wall_now();
        LATMC_OMP(parallel for num_threads(threads) schedule(static))
        for (int64_t i = 0; i < n; i++)
            a[i] ^= b[i];
        const double t = (threads == 1 ? cpu_now() : wall_now()) - t0;
        const double rate = 24.0 * (double)n / t * 1e-9;
        best = rate > best ? rate : best;
    }
    return best;
}

struct ising_case {
    int ndim, algorithm;
    long L;
};

/*
 * Updates per ns of the Ising case at `level` (LATMC_CPU_MASK) with `threads`: per core
 * (CPU time divided among the threads' cores), best of reps runs of `sweeps`; *wall (if not
 * NULL): the best rate in wall time, all threads together.
 */
static double ising_rate(const char *level, int threads, const struct ising_case *ic, int sweeps,
                         int reps, double *wall)
{
    const long L = ic->L;
    const double n = (double)L * L * (ic->ndim == 3 ? L : 1);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = ic->ndim;
    d.extent[0] = d.extent[1] = L;
    d.extent[2] = ic->ndim == 3 ? L : 0;
    d.algorithm = ic->algorithm;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.seed = 1;
    setenv("LATMC_CPU_MASK", level, 1);
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK)
        st = latmc_sim_create(ctx, &d, &sim);
    unsetenv("LATMC_CPU_MASK");
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, ic->ndim == 3 ? 0.25 : 2.0 / 3.0);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, 1);
    double best = 0, best_wall = 0;
    for (int r = 0; r < reps && st == LATMC_OK; r++) {
        const double t0 = threads == 1 ? cpu_now() : process_now(), w0 = wall_now();
        st = latmc_sim_sweep(sim, (uint64_t)sweeps);
        const double t = (threads == 1 ? cpu_now() : process_now()) - t0, w = wall_now() - w0;
        const double rate = n * sweeps / t * 1e-9, rate_wall = n * sweeps / w * 1e-9;
        best = rate > best ? rate : best;
        best_wall = rate_wall > best_wall ? rate_wall : best_wall;
    }
    if (wall)
        *wall = best_wall;
    if (st != LATMC_OK)
        fprintf(stderr, "latmc-cpu-ceiling: %s\n", latmc_strerror(st));
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return st == LATMC_OK ? best : 0;
}

int main(int argc, char **argv)
{
    int quick = 0;
    struct ising_case ic = { 2, LATMC_ALGO_METROPOLIS, 0 };
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = 1;
        } else if (strcmp(argv[i], "-L") == 0 && i + 1 < argc) {
            ic.L = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--dim") == 0 && i + 1 < argc) {
            ic.ndim = (int)strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--heatbath") == 0) {
            ic.algorithm = LATMC_ALGO_HEATBATH;
        } else {
            fprintf(stderr, "usage: latmc-cpu-ceiling [--quick] [-L L] [--dim 2|3] "
                            "[--heatbath]\n");
            return 2;
        }
    }
    if (ic.L == 0)
        ic.L = quick ? 16 : ic.ndim == 3 ? 256 : 4096;
    if (ic.L < 2 || ic.L % 2 || ic.L > 65536 || (ic.ndim != 2 && ic.ndim != 3)) {
        fprintf(stderr, "latmc-cpu-ceiling: -L must be even, 2 .. 65536; --dim 2 or 3\n");
        return 2;
    }
    const long L = ic.L;
    const double nsites = (double)L * L * (ic.ndim == 3 ? L : 1);
    const int reps = quick ? 1 : 7;
    printf("CPU: %s\n", cpu_status());
    printf("Philox4x32-10, draws per ns on one core:\n");
    struct cpu_ising_dsp c_dsp;
    cpu_ising_dsp_init(&c_dsp, 0);
    printf("  scalar C (lib/philox.h): %.3f\n", philox_rate(&c_dsp, quick ? 64 : 1 << 19, reps));
    static const struct { const char *name; unsigned flags; } levels[] = {
        { "avx2", CPU_FLAG_AVX2 },
        { "avx512", CPU_FLAG_AVX2 | CPU_FLAG_AVX512 },
    };
    double ceiling[2] = { 0, 0 };
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        struct cpu_ising_dsp dsp;
        cpu_ising_dsp_init(&dsp, levels[l].flags);
        if (strcmp(dsp.level, levels[l].name) != 0) {
            printf("  %s: not built\n", levels[l].name);
        } else if ((cpu_flags_detected() & levels[l].flags) != levels[l].flags) {
            printf("  %s: not on this CPU\n", levels[l].name);
        } else {
            ceiling[l] = philox_rate(&dsp, quick ? 64 : 1 << 20, reps);
            printf("  %s (the Ising kernels' generator): %.3f\n", levels[l].name, ceiling[l]);
        }
    }
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    const int sweeps = quick ? 2 : (int)(4.0 * 4096 * 4096 / nsites) + 1;
    printf("Ising %dD L = %ld %s, beta %s, updates per ns per core (%d sweeps per run):\n",
           ic.ndim, L, ic.algorithm == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis",
           ic.ndim == 3 ? "1/4" : "2/3", sweeps);
    printf("  c, 1 thread: %.3f\n",
           ising_rate("c", 1, &ic, quick ? 1 : 2, reps > 3 ? 3 : reps, NULL));
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        if (ceiling[l] == 0)
            continue;
        double one_wall, all_wall;
        const double one = ising_rate(levels[l].name, 1, &ic, sweeps, reps, &one_wall);
        printf("  %s, 1 thread: %.3f (%.0f %% of its Philox ceiling)\n", levels[l].name, one,
               100 * one / ceiling[l]);
        if (threads > 1) {
            const double all = ising_rate(levels[l].name, threads, &ic, sweeps, reps, &all_wall);
            printf("  %s, %d threads: %.3f per core (%.0f %% of 1 thread); wall time, best run: "
                   "%.3f updates/ns against %.3f for 1 thread (%.0f %% of %d x)\n",
                   levels[l].name, threads, all, 100 * all / one, all_wall, one_wall,
                   100 * all_wall / (threads * one_wall), threads);
        }
    }
    const int64_t n = quick ? 1 << 16 : INT64_C(1) << 25; /* 2 x 256 MiB */
    uint64_t *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "latmc-cpu-ceiling: out of memory\n");
        return 1;
    }
    for (int64_t i = 0; i < n; i++) {
        a[i] = (uint64_t)i;
        b[i] = (uint64_t)i * 3;
    }
    printf("memory, a ^= b over 2 x %lld MiB (read 2, write 1), bytes per ns:\n",
           (long long)(n * 8 >> 20));
    printf("  1 thread (CPU time): %.2f\n", memory(a, b, n, 1, reps));
    if (threads > 1)
        printf("  %d threads (wall time): %.2f\n", threads, memory(a, b, n, threads, reps));
    free(a);
    free(b);
    return 0;
}
