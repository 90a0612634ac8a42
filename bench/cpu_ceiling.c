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
 * Best of several runs; the one-thread figures are timed in the thread's CPU time, so that
 * a shared machine (other processes taking turns on the core) does not lower them.
 * Internal program: it calls the CPU backend's kernel tables directly.
 *
 *   latmc-cpu-ceiling [--quick]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu_features.h"
#include "cpu_omp.h"
#include "ising_split.h"
#include "rng_streams.h"

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

static double wall_now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static volatile uint32_t sink;

static double scalar_philox(int64_t blocks, int reps)
{
    double best = 0;
    for (int r = 0; r < reps; r++) {
        uint32_t acc = 0;
        const double t0 = cpu_now();
        for (int64_t b = 0; b < blocks; b++) {
            const latmc_philox_ctr u = latmc_rng_block(12345, (uint64_t)b, 7, 0, 1, 0);
            acc ^= u.v[0] ^ u.v[1] ^ u.v[2] ^ u.v[3];
        }
        const double rate = 4.0 * (double)blocks / (cpu_now() - t0) * 1e-9;
        sink = acc;
        best = rate > best ? rate : best;
    }
    return best;
}

static double simd_philox(const struct cpu_ising_dsp *dsp, int64_t groups, int reps)
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
        const double rate = 24.0 * (double)n / ((threads == 1 ? cpu_now() : wall_now()) - t0) * 1e-9;
        best = rate > best ? rate : best;
    }
    return best;
}

int main(int argc, char **argv)
{
    const int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    if (argc > 1 && !quick) {
        fprintf(stderr, "usage: latmc-cpu-ceiling [--quick]\n");
        return 2;
    }
    const int reps = quick ? 1 : 7;
    printf("CPU: %s\n", cpu_status());
    printf("Philox4x32-10, draws per ns on one core:\n");
    printf("  scalar C (lib/philox.h): %.3f\n", scalar_philox(quick ? 1000 : 4000000, reps));
    static const struct { const char *name; unsigned flags; } levels[] = {
        { "avx2", CPU_FLAG_AVX2 },
        { "avx512", CPU_FLAG_AVX2 | CPU_FLAG_AVX512 },
    };
    for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
        struct cpu_ising_dsp dsp;
        cpu_ising_dsp_init(&dsp, levels[l].flags);
        if (!dsp.name || strcmp(dsp.name, levels[l].name) != 0)
            printf("  %s: not built\n", levels[l].name);
        else if ((cpu_flags_detected() & levels[l].flags) != levels[l].flags)
            printf("  %s: not on this CPU\n", levels[l].name);
        else
            printf("  %s (the Ising kernels' generator): %.3f\n", levels[l].name,
                   simd_philox(&dsp, quick ? 64 : 1 << 20, reps));
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
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
#endif
    printf("memory, a ^= b over 2 x %lld MiB (read 2, write 1), bytes per ns:\n",
           (long long)(n * 8 >> 20));
    printf("  1 thread (CPU time): %.2f\n", memory(a, b, n, 1, reps));
    if (threads > 1)
        printf("  %d threads (wall time): %.2f\n", threads, memory(a, b, n, threads, reps));
    free(a);
    free(b);
    return 0;
}
