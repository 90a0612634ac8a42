/*
 * checkasm's driver: options, the levels, the random inputs, failures and the --bench
 * table (checkasm.h).
 *
 *   checkasm [--bench] [--ceiling] [--quick] [--test MODEL] [--seed N] [--list]
 *
 * --ceiling: --bench with the probes of checkasm_ceiling.c beside each row; --quick: the
 * timed lattices small (the CI's smoke run of the timing code, figures meaningless).
 *
 * Exit status: 0 when every level compared matched C; 1 on a mismatch; 2 on a bad option;
 * 77 (meson's "skipped") when no level other than C could be compared on this machine.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "checkasm.h"
#include "cpu_features.h"

/* meson passes the library's LATMC_HAVE_<ISA>=1 for the levels it built */
#if defined(LATMC_HAVE_AVX2) && LATMC_HAVE_AVX2
#define BUILT_AVX2 1
#else
#define BUILT_AVX2 0
#endif
#if defined(LATMC_HAVE_AVX512) && LATMC_HAVE_AVX512
#define BUILT_AVX512 1
#else
#define BUILT_AVX512 0
#endif

/* The models: one check_<model>.c each beside this file (tests/checkasm/meson.build lists
 * the sources). */
static const struct {
    const char *name;
    void (*check)(void);
} models[] = {
    { "ising-decisions", checkasm_check_ising_decisions },
    { "ising", checkasm_check_ising },
    { "potts", checkasm_check_potts },
    { "phi4", checkasm_check_phi4 },
    { "heisenberg", checkasm_check_heisenberg },
    { "couplings", checkasm_check_couplings },
};

static struct {
    bool bench;
    bool ceiling;
    bool quick;
    int failures;
    uint64_t rng[2];
    struct checkasm_level levels[3];
    int n_levels;
    char skipped[160]; /* the native levels not compared, and why (the summary names them) */
    int compared;    /* functions found bit-identical at a level other than C */
    double c_ns;     /* the C row of the function being benched */
    double prev_ns;  /* its row of the level below the one being benched */
    const char *prev_level;
    int slower;      /* rows slower than the level below theirs */
} state;

uint64_t checkasm_rand(void)
{
    /* xorshift128+: enough for inputs, and the same sequence for the same --seed */
    uint64_t a = state.rng[0];
    const uint64_t b = state.rng[1];
    state.rng[0] = b;
    a ^= a << 23;
    state.rng[1] = a ^ b ^ (a >> 17) ^ (b >> 26);
    return state.rng[1] + b;
}

int checkasm_rand_pm1(void)
{
    return (checkasm_rand() >> 63) ? 1 : -1;
}

void checkasm_fail(const char *func, const char *level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "FAIL %s at %s: ", func, level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    state.failures++;
}

int checkasm_failures(void)
{
    return state.failures;
}

void checkasm_ok(const char *func, const char *level, const char *what)
{
    printf("  %-22s %-11s ok (%s)\n", func, level, what);
    if (strcmp(level, "c") != 0)
        state.compared++;
}

bool checkasm_bench_on(void)
{
    return state.bench;
}

bool checkasm_ceiling_on(void)
{
    return state.ceiling;
}

bool checkasm_quick(void)
{
    return state.quick;
}

bool checkasm_in_cache_rows(void)
{
    return state.ceiling && !state.quick;
}

double checkasm_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* the core's time: a shared machine's
                                                  other processes do not count */
    return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

void checkasm_bench(const char *func, const char *level, double ns_per_call)
{
    if (strcmp(level, "c") == 0) {
        state.c_ns = ns_per_call;
        printf("  bench %-22s %-11s %12.1f ns/call\n", func, level, ns_per_call);
    } else {
        /* the goal: no level slower than the level below it (2 % for the noise of a best
         * of 5) */
        const int slower = state.prev_level && ns_per_call > 1.02 * state.prev_ns;
        state.slower += slower;
        printf("  bench %-22s %-11s %12.1f ns/call  %6.2fx the C reference%s%s\n", func, level,
               ns_per_call, state.c_ns > 0 ? state.c_ns / ns_per_call : 0.0,
               slower ? "  SLOWER than " : "", slower ? state.prev_level : "");
    }
    state.prev_ns = ns_per_call;
    state.prev_level = level;
    checkasm_ceiling_row(func, level, ns_per_call);
}

int checkasm_levels(const struct checkasm_level **levels)
{
    *levels = state.levels;
    return state.n_levels;
}

/* The native levels, lowest first: what the CPU must have for each. */
static const struct {
    struct checkasm_level level;
    bool built;
    const char *needs;
} native[] = {
    { { "avx2", CPU_FLAG_AVX2, false }, BUILT_AVX2, "AVX2, FMA and BMI1/2" },
    { { "avx512", CPU_FLAG_AVX2 | CPU_FLAG_AVX512, false }, BUILT_AVX512,
      "AVX-512 F, BW, DQ and VL" },
};

/* The levels to compare: each native level built and on this CPU, then the emulated
 * AVX-512 kernels; each native level left out is said, with why, here and in the summary
 * (a level not compared is never reported as passed). */
static void find_levels(void)
{
    const unsigned cpu = cpu_flags_detected();
    for (size_t i = 0; i < sizeof native / sizeof native[0]; i++) {
        const char *why = NULL;
        if (!native[i].built)
            why = "not built";
        else if ((cpu & native[i].level.flags) != native[i].level.flags)
            why = "not on this CPU";
        if (!why) {
            state.levels[state.n_levels++] = native[i].level;
            continue;
        }
        if (native[i].built)
            printf("checkasm: level %s skipped: not on this CPU (it needs %s)\n",
                   native[i].level.name, native[i].needs);
        else
            printf("checkasm: level %s skipped: not built\n", native[i].level.name);
        const size_t used = strlen(state.skipped);
        snprintf(state.skipped + used, sizeof state.skipped - used, "%s%s (%s)",
                 used ? ", " : "", native[i].level.name, why);
    }
    state.levels[state.n_levels++] = (struct checkasm_level){ "avx512-emu", 0, true };
}

static int usage(void)
{
    fprintf(stderr, "usage: checkasm [--bench] [--ceiling] [--quick] [--test MODEL] [--seed N] "
                    "[--list]\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *only = NULL;
    setvbuf(stdout, NULL, _IOLBF, 0); /* the ok lines and FAIL lines (stderr) in order */
    uint64_t seed = 20261123;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--bench") == 0) {
            state.bench = true;
        } else if (strcmp(argv[i], "--ceiling") == 0) {
            state.bench = state.ceiling = true;
        } else if (strcmp(argv[i], "--quick") == 0) {
            state.quick = true;
        } else if (strcmp(argv[i], "--test") == 0 && i + 1 < argc) {
            only = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            char *end;
            seed = strtoull(argv[++i], &end, 0);
            if (*end)
                return usage();
        } else if (strcmp(argv[i], "--list") == 0) {
            for (size_t m = 0; m < sizeof models / sizeof models[0]; m++)
                printf("%s\n", models[m].name);
            return 0;
        } else {
            return usage();
        }
    }
    state.rng[0] = seed ^ UINT64_C(0x9e3779b97f4a7c15);
    state.rng[1] = seed * UINT64_C(0xbf58476d1ce4e5b9) + 1;
    printf("checkasm: seed %llu; CPU backend: %s\n", (unsigned long long)seed, cpu_status());
    find_levels();
    printf("checkasm: levels compared with C:");
    for (int l = 0; l < state.n_levels; l++)
        printf(" %s", state.levels[l].name);
    printf("\n");
    if (state.ceiling)
        checkasm_ceiling_machine();
    int ran = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        if (only && strcmp(only, models[m].name) != 0)
            continue;
        printf("%s:\n", models[m].name);
        const int compared = state.compared, failures = state.failures;
        models[m].check();
        if (state.compared == compared && state.failures == failures)
            printf("  %s: no SIMD level compared with C here (skipped)\n", models[m].name);
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "checkasm: no model named %s (--list)\n", only);
        return 2;
    }
    if (state.failures) {
        fprintf(stderr, "checkasm: %d failure(s); rerun with --seed %llu\n", state.failures,
                (unsigned long long)seed);
        return 1;
    }
    if (state.bench)
        printf("checkasm --bench: %d row(s) slower than the level below\n", state.slower);
    if (!state.compared) {
        printf("checkasm: no SIMD level to compare with C on this machine: skipped\n");
        return 77; /* meson's "skipped", never "passed" */
    }
    printf("checkasm: every level compared is bit-identical to the C reference");
    if (state.skipped[0])
        printf("; skipped: %s", state.skipped);
    printf("\n");
    return 0;
}
