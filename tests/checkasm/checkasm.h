/*
 * checkasm: every SIMD level of every CPU kernel table ("dsp") against the C reference, on
 * the same random inputs, bit for bit; with --bench, the time per call of each function at
 * each level. Written for liblatmc in the spirit of dav1d's tool of the same name.
 *
 * One check file per model (check_<model>.c) registers one function, which for each dsp
 * function runs the C reference and every level in checkasm_levels() on identical inputs,
 * reports each mismatch with checkasm_fail() and, when checkasm_bench_on(), times the calls
 * with checkasm_now_ns() and reports them with checkasm_bench(). A level is lowered by
 * building the model's table with that level's flags (cpu_<model>_dsp_init(dsp, flags)),
 * never through the environment.
 */
#ifndef LATMC_CHECKASM_H
#define LATMC_CHECKASM_H

#include <stdbool.h>
#include <stdint.h>

/* A level under test. emulated: the AVX-512 kernels with emulated intrinsics (SIMDe, or
 * the plain-C primitives of potts_emu512.c), run on any x86-64 CPU. */
struct checkasm_level {
    const char *name;   /* "avx2", "avx512", "avx512-emu" */
    unsigned flags;     /* CPU_FLAG_* to build the table with (0 for emulated levels) */
    bool emulated;
};

/* The levels to compare with C: those built and on this CPU, then the emulated ones. */
int checkasm_levels(const struct checkasm_level **levels);

/* The harness's generator (xoshiro-style, seeded by --seed): the random inputs. */
uint64_t checkasm_rand(void);
/* A draw of +1 or -1. */
int checkasm_rand_pm1(void);

/* Record a mismatch of `func` at `level` (printed; checkasm exits 1 at the end). */
void checkasm_fail(const char *func, const char *level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The number of failures so far (a check may stop early once its function failed). */
int checkasm_failures(void);
/* "func: level ok (what)" after a function passed at a level. */
void checkasm_ok(const char *func, const char *level, const char *what);

bool checkasm_bench_on(void);
double checkasm_now_ns(void);
/* One --bench row: ns per call of func at level (the C row first, the others as ratios).
 * Emulated levels are not benched: their speed is SIMDe's or plain C's, not the level's. */
void checkasm_bench(const char *func, const char *level, double ns_per_call);

/* The model checks (each listed in checkasm.c's table). */
void checkasm_check_ising_decisions(void);
void checkasm_check_ising(void);
void checkasm_check_potts(void);
void checkasm_check_phi4(void);
void checkasm_check_heisenberg(void);
void checkasm_check_couplings(void);

#endif
