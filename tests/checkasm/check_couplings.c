/*
 * checkasm, couplings (backends/cpu/coupling_fill.h): each drawn layout's block kernel
 * (int8 +-1, float +-1, float Gaussian) at every level against the C level's, on the same
 * random seeds and block ranges, compared byte for byte, with guard bytes after the range
 * that no kernel may touch. Ranges: 1 to 300 blocks (the vector kernels' whole groups and
 * tails), first blocks near 0, around 2^32 (counter word 1 takes the block's bits 32..47)
 * and anywhere below 2^48. The level has no AVX-512 kernels: AVX2's serve there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkasm.h"
#include "checkasm_bench.h"
#include "coupling_fill.h"
#include "rng_streams.h" /* LATMC_RNG_MAX_BLOCK */

enum { MAX_BLOCKS = 300, GUARD = 64, BENCH_BLOCKS = 4096 };

static const struct {
    int layout;
    const char *func;
    size_t bytes; /* per coupling */
} layouts[] = {
    { CPU_COUPLINGS_I8_BIMODAL, "couplings.i8_bimodal", 1 },
    { CPU_COUPLINGS_F32_BIMODAL, "couplings.f32_bimodal", 4 },
    { CPU_COUPLINGS_F32_GAUSSIAN, "couplings.f32_gaussian", 4 },
};

/* The level's table, or 0 when this build has no couplings kernels of that level. */
static int level_dsp(const struct checkasm_level *lv, struct cpu_couplings_dsp *dsp)
{
    if (lv->emulated)
        return 0;
    cpu_couplings_dsp_init(dsp, lv->flags);
    return strcmp(dsp->level, lv->name) == 0;
}

/* A first block: near 0, just below 2^32 (the range crosses it), or anywhere. */
static int64_t first_block(int trial)
{
    const uint64_t r = checkasm_rand();
    switch (trial % 3) {
    case 0: return (int64_t)(r & 0xfff);
    case 1: return (int64_t)((UINT64_C(1) << 32) - 1 - (r & 0xff));
    default: return (int64_t)(r % (LATMC_RNG_MAX_BLOCK - MAX_BLOCKS));
    }
}

static void check_layout(const struct checkasm_level *lv, const struct cpu_couplings_dsp *c_dsp,
                         const struct cpu_couplings_dsp *dsp, int i)
{
    const size_t bytes = layouts[i].bytes, cap = 4 * MAX_BLOCKS * bytes + GUARD;
    unsigned char *want = malloc(cap), *got = malloc(cap);
    if (!want || !got) {
        checkasm_fail(layouts[i].func, lv->name, "out of memory");
        free(want);
        free(got);
        return;
    }
    const cpu_couplings_blocks_fn c_fn = c_dsp->blocks[layouts[i].layout];
    const cpu_couplings_blocks_fn fn = dsp->blocks[layouts[i].layout];
    const int before = checkasm_failures();
    for (int trial = 0; trial < 60; trial++) {
        const uint64_t seed = checkasm_rand();
        const int64_t b0 = first_block(trial);
        const int64_t nb = 1 + (int64_t)(checkasm_rand() % MAX_BLOCKS);
        const size_t n = (size_t)(4 * nb) * bytes;
        memset(want, 0xa5, cap);
        memset(got, 0xa5, cap);
        c_fn(want, b0, nb, seed);
        fn(got, b0, nb, seed);
        if (memcmp(want, got, cap) != 0) {
            size_t at = 0;
            while (want[at] == got[at])
                at++;
            checkasm_fail(layouts[i].func, lv->name,
                          "seed %llu blocks %lld + %lld: first difference at byte %zu of %zu%s",
                          (unsigned long long)seed, (long long)b0, (long long)nb, at, n,
                          at >= n ? " (past the range)" : "");
            break;
        }
    }
    if (checkasm_failures() == before)
        checkasm_ok(layouts[i].func, lv->name, "60 ranges of 1 to 300 blocks");
    free(want);
    free(got);
}

static volatile unsigned char bench_sink;

/* BENCH_BLOCKS blocks (16 Ki couplings, one thread's chunk; 64 with --quick) per call,
 * other blocks each call. */
static void bench_layout(int i)
{
    const int64_t blocks = checkasm_quick() ? 64 : BENCH_BLOCKS;
    void *out = malloc(4 * BENCH_BLOCKS * layouts[i].bytes);
    if (!out)
        return;
    char func[64];
    snprintf(func, sizeof func, "%s %lld blocks", layouts[i].func, (long long)blocks);
    struct cpu_couplings_dsp dsp;
    cpu_couplings_dsp_init(&dsp, 0);
    const cpu_couplings_blocks_fn c_fn = dsp.blocks[layouts[i].layout];
    checkasm_bench(func, "c", CHECKASM_BEST_NS(4, {
        c_fn(out, (int64_t)call_ * blocks, blocks, 7);
        bench_sink ^= *(volatile unsigned char *)out;
    }));
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    for (int l = 0; l < nl; l++) {
        if (!level_dsp(&levels[l], &dsp))
            continue;
        const cpu_couplings_blocks_fn fn = dsp.blocks[layouts[i].layout];
        checkasm_bench(func, levels[l].name, CHECKASM_BEST_NS(16, {
            fn(out, (int64_t)call_ * blocks, blocks, 7);
            bench_sink ^= *(volatile unsigned char *)out;
        }));
    }
    free(out);
}

void checkasm_check_couplings(void)
{
    struct cpu_couplings_dsp c_dsp;
    cpu_couplings_dsp_init(&c_dsp, 0);
    const struct checkasm_level *levels;
    const int nl = checkasm_levels(&levels);
    const size_t n_layouts = sizeof layouts / sizeof layouts[0];
    for (int l = 0; l < nl; l++) {
        struct cpu_couplings_dsp dsp;
        if (!level_dsp(&levels[l], &dsp)) {
            printf("  couplings: level %s has no kernels of its own: skipped\n",
                   levels[l].name);
            continue;
        }
        for (size_t i = 0; i < n_layouts; i++)
            check_layout(&levels[l], &c_dsp, &dsp, (int)i);
    }
    if (checkasm_bench_on())
        for (size_t i = 0; i < n_layouts; i++)
            bench_layout((int)i);
}
