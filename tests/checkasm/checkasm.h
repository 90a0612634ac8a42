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

/* --quick: the --bench and --ceiling lattices and runs small (a smoke run of the timing
 * code, what the CI runs). */
bool checkasm_quick(void);

/*
 * --ceiling (implies --bench; checkasm_ceiling.c): beside each --bench row of a function
 * that declared its work, the kernel's time per update and the ideals that leave parts of
 * it out, "Philox alone" (the chain's draws at the level's generator: memory and logic
 * removed) and "memory alone" (one pass over the call's bytes at the same size:
 * randomness and logic removed); and the kernel once more on a lattice in cache (memory
 * removed, checkasm_in_cache_rows).
 */
bool checkasm_ceiling_on(void);
struct checkasm_work {
    double updates;     /* updates (flips, hits, spin updates) per call */
    double draws;       /* 32-bit Philox draws per update the chain takes; 0: not probed */
    double read_bytes;  /* bytes per call that the kernel's arrays give it to read ... */
    double write_bytes; /* ... and to write (0, 0: not probed) */
};
/* --ceiling without --quick: each kernel also benched on a lattice that fits the L1 or L2
 * cache (the kernel with memory's cost removed), rows of their own. */
bool checkasm_in_cache_rows(void);
/* Declare the work of each call of func (the rows of func that follow get probe lines). */
void checkasm_ceiling_work(const char *func, const struct checkasm_work *w);
/* The machine's roofs (the --ceiling header) and one probe line (checkasm_bench calls it). */
void checkasm_ceiling_machine(void);
void checkasm_ceiling_row(const char *func, const char *level, double ns_per_call);

/* The model checks (each listed in checkasm.c's table). */
void checkasm_check_ising_decisions(void);
void checkasm_check_ising(void);
void checkasm_check_potts(void);
void checkasm_check_phi4(void);
void checkasm_check_heisenberg(void);
void checkasm_check_couplings(void);

#endif
