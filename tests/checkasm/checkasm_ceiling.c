/*
 * checkasm --ceiling: the probes that bound each kernel from below (checkasm.h).
 *
 * A kernel's time per update has two ideals that leave parts of it out:
 *
 *   - Philox alone: the draws the chain takes per update, at the level's generator (the
 *     Ising table's draws_xor: Philox4x32-10 as the level's kernels run it, no spins and
 *     no decisions) -- the kernel with memory and logic removed;
 *   - memory alone: one pass over the bytes the kernel call reads and writes, at the
 *     same size (so from the same cache level), on one core -- the kernel with
 *     randomness and logic removed.
 *
 * (--ceiling also benches each kernel on a lattice in cache: memory removed.)
 *
 * Each --bench row of a function that declared its work (checkasm_ceiling_work) gets a
 * line beside it: the kernel's ns and cycles per update and each probe's, with the share
 * of the kernel's time the probe accounts for. The machine's roofs (the core's clock,
 * Philox per level, read bandwidth from three cache levels and memory) come first.
 * Timings are CPU time of the thread, best of 5, as the --bench rows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "cpu_features.h"
#include "ising_split.h" /* struct cpu_ising_dsp: draws_xor, the generator alone */

static struct {
    char func[96];              /* the function whose rows get probe lines */
    struct checkasm_work work;
    double ghz;                 /* cycles per ns of this core (0: not measured) */
    struct philox_probe {
        const char *level;
        double ns_per_draw;
    } philox[4];
    int n_philox;
} ceil_state;

static volatile uint64_t ceiling_sink;

/* ---- the core's clock ---- */

/*
 * Cycles per ns: a chain of dependent integer adds (one cycle each on every x86-64 core
 * of this decade) in CPU time. 0 elsewhere (the lines then give no cycles).
 */
static double clock_ghz(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    const int n = checkasm_quick() ? 10000 : 4000000;
    double best = 0;
    for (int rep = 0; rep < 5; rep++) {
        uint64_t x = 0;
        const double t0 = checkasm_now_ns();
        for (int i = 0; i < n; i++)
            __asm__ volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                             "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                             : "+r"(x));
        const double ghz = 8.0 * n / (checkasm_now_ns() - t0);
        ceiling_sink += x;
        best = ghz > best ? ghz : best;
    }
    return best;
#else
    return 0;
#endif
}

/* ---- Philox alone ---- */

/* The Ising table of `level` ("c" or a level of checkasm_levels), 0 when not built. */
static int ising_table(const char *level, struct cpu_ising_dsp *dsp)
{
    if (strcmp(level, "c") == 0) {
        cpu_ising_dsp_init(dsp, 0);
        return 1;
    }
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++)
        if (!levels[l].emulated && strcmp(levels[l].name, level) == 0) {
            cpu_ising_dsp_init(dsp, levels[l].flags);
            return strcmp(dsp->level, level) == 0;
        }
    return 0;
}

/* ns per 32-bit draw of the level's generator (0: the level has no Ising table). */
static double philox_ns_per_draw(const char *level)
{
    for (int i = 0; i < ceil_state.n_philox; i++)
        if (strcmp(ceil_state.philox[i].level, level) == 0)
            return ceil_state.philox[i].ns_per_draw;
    struct cpu_ising_dsp dsp;
    double best = 0;
    if (ising_table(level, &dsp)) {
        const int64_t groups = checkasm_quick() ? 8 : 4096; /* 32 draws a group */
        best = 1e300;
        for (int rep = 0; rep < 5; rep++) {
            const double t0 = checkasm_now_ns();
            /* other blocks every time: the same call again could be computed once */
            ceiling_sink += dsp.draws_xor(7, (uint64_t)rep * 8 * (uint64_t)groups, groups);
            const double t = (checkasm_now_ns() - t0) / (32.0 * (double)groups);
            best = t < best ? t : best;
        }
    }
    if (ceil_state.n_philox < (int)(sizeof ceil_state.philox / sizeof ceil_state.philox[0]))
        ceil_state.philox[ceil_state.n_philox++] = (struct philox_probe){ level, best };
    return best;
}

/* ---- memory alone ---- */

typedef uint64_t stream_vec __attribute__((vector_size(16), aligned(16)));

/*
 * ns of one pass that reads `read` bytes and writes the first `write` of them (read >=
 * write, multiples of 32): the written part read, changed and stored, the rest read and
 * folded into the change. Passes are repeated to 4 MiB or more per timing (not with --quick) (the thread's
 * CPU clock costs a system call, ~0.3 us), best of 5 after a first pass (warm, as the
 * kernels' --bench rows). -1 when out of memory.
 */
static double stream_ns(size_t read, size_t write)
{
    const size_t nr = read / sizeof(stream_vec), nw = write / sizeof(stream_vec);
    const size_t least = checkasm_quick() ? 0 : (size_t)4 << 20;
    const int passes = read >= least ? 1 : (int)(least / read);
    stream_vec *a = aligned_alloc(64, (nr * sizeof(stream_vec) + 63) / 64 * 64 + 64);
    if (!a)
        return -1;
    for (size_t i = 0; i < nr; i++)
        a[i] = (stream_vec){ i, 3 * i };
    double best = 1e300;
    for (int rep = 0; rep < 6; rep++) {
        const double t0 = checkasm_now_ns();
        for (int pass = 0; pass < passes; pass++) {
            /* four chains of xors: the loads, not the xors' latency, set the pace */
            stream_vec x0 = { 0, 0 }, x1 = { 0, 0 }, x2 = { 0, 0 }, x3 = { 0, 0 };
            size_t i = nw;
            for (; i + 4 <= nr; i += 4) {
                x0 ^= a[i];
                x1 ^= a[i + 1];
                x2 ^= a[i + 2];
                x3 ^= a[i + 3];
            }
            for (; i < nr; i++)
                x0 ^= a[i];
            const stream_vec x = (x0 ^ x1) ^ (x2 ^ x3);
            for (size_t j = 0; j < nw; j++)
                a[j] += x;
            ceiling_sink += (uint64_t)x[0];
        }
        const double t = (checkasm_now_ns() - t0) / passes;
        if (rep > 0)
            best = t < best ? t : best;
    }
    ceiling_sink += nr ? (uint64_t)a[0][1] : 0;
    free(a);
    return best;
}

static size_t round32(double bytes)
{
    const size_t b = bytes > 32 ? (size_t)bytes : 32;
    return (b + 31) / 32 * 32;
}

/* ---- the rows ---- */

void checkasm_ceiling_machine(void)
{
    ceil_state.ghz = clock_ghz();
    printf("ceiling: the machine's roofs on one core (CPU time, best of 5)\n");
    if (ceil_state.ghz > 0)
        printf("  clock: %.2f GHz (dependent integer adds)\n", ceil_state.ghz);
    printf("  Philox4x32-10 as the Ising kernels run it (draws_xor), draws per ns:");
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = -1; l < nl; l++) {
        const char *name = l < 0 ? "c" : levels[l].name;
        if (l >= 0 && levels[l].emulated)
            continue;
        const double ns = philox_ns_per_draw(name);
        if (ns > 0)
            printf(" %s %.3f", name, 1.0 / ns);
    }
    printf("\n  read, GB/s:");
    static const size_t quick_sizes[] = { (size_t)64 << 10 };
    static const size_t sizes[] = { (size_t)1 << 20, (size_t)12 << 20, (size_t)512 << 20 };
    const size_t *s = checkasm_quick() ? quick_sizes : sizes; /* L2, L3, memory on EPYC 2 */
    const int ns = checkasm_quick() ? 1 : 3;
    for (int i = 0; i < ns; i++) {
        const double t = stream_ns(s[i], 0);
        if (t > 0)
            printf(" %zu KiB %.1f", s[i] >> 10, (double)s[i] / t);
        else
            checkasm_fail("ceiling.read", "c", "%zu KiB: out of memory", s[i] >> 10);
    }
    printf("\n");
}

void checkasm_ceiling_work(const char *func, const struct checkasm_work *w)
{
    snprintf(ceil_state.func, sizeof ceil_state.func, "%s", func);
    ceil_state.work = *w;
}

/* "0.512 ns = 1.52 cycles" */
static void print_ns(const char *what, double ns)
{
    printf("%s %.3f ns", what, ns);
    if (ceil_state.ghz > 0)
        printf(" = %.2f cycles", ns * ceil_state.ghz);
}

void checkasm_ceiling_row(const char *func, const char *level, double ns_per_call)
{
    const struct checkasm_work *w = &ceil_state.work;
    if (!checkasm_ceiling_on() || strcmp(func, ceil_state.func) != 0 || w->updates <= 0)
        return;
    const double kernel = ns_per_call / w->updates;
    print_ns("        per update:", kernel);
    if (w->draws > 0) {
        const double draw = philox_ns_per_draw(level);
        if (draw > 0) {
            const double p = w->draws * draw;
            print_ns("; Philox alone", p);
            printf(" (%.3g draws: %.0f %%)", w->draws, 100 * p / kernel);
        }
    }
    if (w->read_bytes > 0) {
        const double t = stream_ns(round32(w->read_bytes), round32(w->write_bytes));
        if (t < 0)
            checkasm_fail(func, level, "the memory probe: out of memory");
        if (t > 0) {
            const double m = t / w->updates;
            print_ns("; memory alone", m);
            printf(" (%.3g B read, %.3g written: %.0f %%)", w->read_bytes / w->updates,
                   w->write_bytes / w->updates, 100 * m / kernel);
        }
    }
    printf("\n");
}
