/*
 * The phi^4 chunk schedule on the CPU (LATMC_CPU_PHI4_CHUNK; doc/models/phi4.md, "The CUDA
 * chain", its chunk schedule, and "The chunk schedule on the CPU"), through the public API:
 *
 * - chunks_match_definition: the schedule written out here from the page (sub-grids in
 *   order; in every chunk of a sub-grid nloc passes of the colours, each site of the
 *   colour inside the chunk nhit hits with the draws named as in the site order; its own
 *   loops, colours, numbering, Philox counters, sums and dH, nothing of the library's
 *   kernels); the library's field must equal it bit for bit after every sweep, and the
 *   acceptance counts exactly (accepted as counted here, attempted = N nloc nhit per
 *   sweep), for 1, 2, 3, 5 and 16 threads and every SIMD level (LATMC_CPU_MASK), float and
 *   double, 2D with 8 and 5 colours, 3D, explicit shapes and "cuda" (CUDA's default), on
 *   lattices large enough that the thread team really splits the sub-grids and, for
 *   chunks of 128 rows or more, their colour steps into pieces of rows.
 * - default_is_site_order: unset, "" and "none" run the site order (the CPU's chain, the
 *   same field as without the variable), and a chunk shape gives another field.
 * - recut_runs_site_order: a cut into boxes (latmc_sim_set_parts) runs the site order while
 *   it holds, the return to one box the chunks again.
 * - bad_values: malformed or unfit shapes, and a chunk shape with n_parts > 1, are
 *   LATMC_EINVAL naming the variable; nothing is created.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latmc_math.h" /* the chain's logarithm is part of its definition */
#include "phi4_spec.h"
#include "sim_helpers.h"

#define CHUNK_ENV "LATMC_CPU_PHI4_CHUNK"

/* ---- sims ---- */

static size_t spec_bytes(const struct spec *sp)
{
    return spec_sites(sp) * (sp->precision == LATMC_PRECISION_FLOAT ? 4 : 8);
}

/* latmc_sim_create with CHUNK_ENV = chunk and LATMC_CPU_MASK = mask (NULL: unset). */
static int try_create(latmc_ctx *ctx, const struct spec *sp, uint64_t seed, const char *chunk,
                      const char *mask, int threads, int n_parts, latmc_sim **sim)
{
    latmc_sim_desc d;
    spec_desc(sp, &d);
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.n_parts = n_parts;
    d.seed = seed;
    if (chunk)
        setenv(CHUNK_ENV, chunk, 1);
    else
        unsetenv(CHUNK_ENV);
    if (mask)
        setenv("LATMC_CPU_MASK", mask, 1);
    else
        unsetenv("LATMC_CPU_MASK");
    *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, sim);
    unsetenv(CHUNK_ENV);
    unsetenv("LATMC_CPU_MASK");
    return st;
}

static latmc_sim *make_sim(latmc_ctx *ctx, const struct spec *sp, uint64_t seed,
                           const char *chunk, const char *mask, int threads)
{
    latmc_sim *sim = NULL;
    const int st = try_create(ctx, sp, seed, chunk, mask, threads, 1, &sim);
    if (st != LATMC_OK)
        print_error("creating the sim: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    assert_int_equal(spec_set_params(sim, sp), LATMC_OK);
    return sim;
}

/* A start field in (-1.2, 1.2) of the spec's type. */
static void *start_field(const struct spec *sp, uint64_t seed)
{
    const size_t n = spec_sites(sp);
    void *f = malloc(spec_bytes(sp));
    assert_non_null(f);
    uint64_t rng = seed ^ 0x5eed;
    for (size_t i = 0; i < n; i++) {
        const double v = ldexp((double)(test_rng_next(&rng) >> 11), -53) * 2.4 - 1.2;
        if (sp->precision == LATMC_PRECISION_FLOAT)
            ((float *)f)[i] = (float)v;
        else
            ((double *)f)[i] = v;
    }
    return f;
}

struct chunk_case {
    struct spec sp;
    const char *chunk;  /* the variable's value */
    int b[3];           /* the shape it means (b[2] = 1 in 2D) */
};

enum { SWEEPS = 2 };

static void run_case(latmc_ctx *ctx, const struct chunk_case *cc, uint64_t seed)
{
    const struct spec *sp = &cc->sp;
    const size_t bytes = spec_bytes(sp);
    /* the definition's fields after each sweep and its accepted hits */
    void *start = start_field(sp, seed), *mine = malloc(bytes), *lib = malloc(bytes);
    void *want[SWEEPS];
    assert_non_null(mine);
    assert_non_null(lib);
    memcpy(mine, start, bytes);
    uint64_t accepted = 0;
    for (int t = 0; t < SWEEPS; t++) {
        accepted += spec_sweep(sp, cc->b, mine, seed, (uint64_t)t);
        want[t] = malloc(bytes);
        assert_non_null(want[t]);
        memcpy(want[t], mine, bytes);
    }
    const uint64_t attempted = (uint64_t)spec_sites(sp) * (uint64_t)sp->nloc *
                               (uint64_t)sp->nhit * SWEEPS;
    assert_true(accepted > 0 && accepted < attempted); /* a real chain */
    static const char *const masks[] = { "c", NULL }; /* the C level; the CPU's best */
    /* 5 and 16: teams larger than some sub-grids' chunk counts, members claiming whole
     * chunks in turn and then taking pieces of the others' */
    static const int team[] = { 1, 2, 3, 5, 16 };
    for (int m = 0; m < 2; m++)
        for (size_t ti = 0; ti < sizeof team / sizeof team[0]; ti++) {
            const int threads = team[ti];
            latmc_sim *sim = make_sim(ctx, sp, seed, cc->chunk, masks[m], threads);
            printf("  %dD %lldx%lldx%lld %s nloc %d nhit %d, %s=%s, level %s, %d thread(s)\n",
                   sp->ndim, (long long)sp->L[0], (long long)sp->L[1],
                   (long long)(sp->ndim == 3 ? sp->L[2] : 1),
                   sp->precision == LATMC_PRECISION_FLOAT ? "float" : "double", sp->nloc,
                   sp->nhit, CHUNK_ENV, cc->chunk, masks[m] ? masks[m] : "the CPU's best", threads);
            assert_int_equal(latmc_sim_set_spins(sim, start, bytes), LATMC_OK);
            for (int t = 0; t < SWEEPS; t++) {
                assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
                assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
                assert_memory_equal(want[t], lib, bytes);
            }
            uint64_t acc = 0, att = 0;
            assert_int_equal(latmc_sim_acceptance_counts(sim, &acc, &att), LATMC_OK);
            assert_int_equal(acc, accepted);
            assert_int_equal(att, attempted);
            latmc_sim_destroy(&sim);
        }
    for (int t = 0; t < SWEEPS; t++)
        free(want[t]);
    free(start);
    free(mine);
    free(lib);
}

static void chunks_match_definition(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int F = LATMC_PRECISION_FLOAT, D = LATMC_PRECISION_DOUBLE;
    const struct chunk_case cases[] = {
        /* 2D, 8 colours: rows of 4 numbers per colour and chunk (two rows a paired AVX2
         * group) */
        { { 2, { 64, 32, 0 }, D, -0.5, 2.0, 2.0, 0.9, 3, 2 }, "32x8", { 32, 8, 1 } },
        /* 2D, 5 colours: W = 20 */
        { { 2, { 40, 20, 0 }, F, 0.3, 1.0, INFINITY, 1.1, 2, 2 }, "20x5", { 20, 5, 1 } },
        /* 3D, CUDA's default shape: 32 x 8 x 8 on 64 x 16 x 16 */
        { { 3, { 64, 16, 16 }, F, -0.5, 1.5, 4.0, 1.0, 2, 3 }, "cuda", { 32, 8, 8 } },
        /* 3D, rows of 8 numbers per colour (whole AVX2 groups, paired AVX-512 groups), 65536
         * sites: the team splits every sub-grid's 64 chunks */
        { { 3, { 128, 32, 16 }, F, 0.25, 0.0, 0.5, 0.5, 2, 2 }, "64x4x4", { 64, 4, 4 } },
        { { 3, { 128, 32, 16 }, D, -1.0, 2.0, INFINITY, 1.2, 1, 2 }, "32x8x2", { 32, 8, 2 } },
        /* 3D, 200 rows a chunk: a team cuts each colour step into pieces of 66, 67 and 67
         * rows, so that a piece may start or end inside a paired AVX-512 group (s = 8) */
        { { 3, { 128, 40, 40 }, F, -0.2, 1.0, 2.0, 0.8, 2, 2 }, "64x20x10", { 64, 20, 10 } },
        /* 2D, 65536 sites, whole AVX2 groups, chunks taller than one batch of rows */
        { { 2, { 256, 256, 0 }, F, -0.3, 1.0, 1.5, 1.0, 1, 2 }, "64x64", { 64, 64, 1 } },
        { { 2, { 256, 1024, 0 }, D, 0.4, 0.5, INFINITY, 1.0, 1, 1 }, "128x512", { 128, 512, 1 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(ctx, &cases[i], 7100 + i);
    latmc_ctx_destroy(&ctx);
}

/* The field after two sweeps from a fixed start with CHUNK_ENV = chunk. */
static void two_sweeps(latmc_ctx *ctx, const struct spec *sp, const char *chunk, void *out)
{
    latmc_sim *sim = make_sim(ctx, sp, 31, chunk, NULL, 2);
    void *start = start_field(sp, 31);
    assert_int_equal(latmc_sim_set_spins(sim, start, spec_bytes(sp)), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, out, spec_bytes(sp)), LATMC_OK);
    free(start);
    latmc_sim_destroy(&sim);
}

static void default_is_site_order(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct spec sp = { 3, { 64, 16, 16 }, LATMC_PRECISION_FLOAT, -0.5, 1.5, 4.0, 1.0, 2, 2 };
    const size_t bytes = spec_bytes(&sp);
    void *unset = malloc(bytes), *other = malloc(bytes);
    assert_non_null(unset);
    assert_non_null(other);
    two_sweeps(ctx, &sp, NULL, unset);
    two_sweeps(ctx, &sp, "", other);
    assert_memory_equal(unset, other, bytes);
    two_sweeps(ctx, &sp, "none", other);
    assert_memory_equal(unset, other, bytes);
    two_sweeps(ctx, &sp, "32x4x4", other);
    assert_true(memcmp(unset, other, bytes) != 0);
    free(unset);
    free(other);
    latmc_ctx_destroy(&ctx);
}

/*
 * latmc_sim_set_parts(k > 1) on a chunked sim: the site order while the cut holds (sweep 1
 * equals a site-order sim's sweep 1 from the same field); back to one box with the
 * variable set again: the chunks (sweep 2 equals the definition's).
 */
static void recut_runs_site_order(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct spec sp = { 3, { 64, 16, 16 }, LATMC_PRECISION_FLOAT, -0.5, 1.5, 4.0, 1.0, 2, 2 };
    const int b[3] = { 32, 4, 4 };
    const size_t bytes = spec_bytes(&sp);
    void *start = start_field(&sp, 44), *mine = malloc(bytes), *lib = malloc(bytes);
    assert_non_null(mine);
    assert_non_null(lib);
    latmc_sim *sim = make_sim(ctx, &sp, 44, "32x4x4", NULL, 2);
    assert_int_equal(latmc_sim_set_spins(sim, start, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK); /* sweep 0: chunks */
    memcpy(mine, start, bytes);
    spec_sweep(&sp, b, mine, 44, 0);
    assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
    assert_memory_equal(mine, lib, bytes);
    /* sweep 1 on two boxes, with the variable still set: the site order */
    setenv(CHUNK_ENV, "32x4x4", 1);
    assert_int_equal(latmc_sim_set_parts(sim, 2), LATMC_OK);
    const int st = latmc_sim_sweep(sim, 1);
    if (st != LATMC_OK)
        print_error("sweep on 2 boxes: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    latmc_sim *site = make_sim(ctx, &sp, 44, NULL, NULL, 1);
    assert_int_equal(latmc_sim_set_spins(site, mine, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(site, 1), LATMC_OK); /* its sweep 0: to reach 1 */
    assert_int_equal(latmc_sim_set_spins(site, mine, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(site, 1), LATMC_OK); /* sweep 1 from the same field */
    assert_int_equal(latmc_sim_get_spins(site, mine, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
    assert_memory_equal(mine, lib, bytes);
    /* back to one box: the variable's chunks again (make_sim unset it) */
    setenv(CHUNK_ENV, "32x4x4", 1);
    assert_int_equal(latmc_sim_set_parts(sim, 1), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    unsetenv(CHUNK_ENV);
    spec_sweep(&sp, b, mine, 44, 2);
    assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
    assert_memory_equal(mine, lib, bytes);
    latmc_sim_destroy(&site);
    latmc_sim_destroy(&sim);
    free(start);
    free(mine);
    free(lib);
    latmc_ctx_destroy(&ctx);
}

static void bad_values(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int F = LATMC_PRECISION_FLOAT, D = LATMC_PRECISION_DOUBLE;
    const struct spec s2 = { 2, { 64, 32, 0 }, D, 0.5, 0.0, INFINITY, 1.0, 1, 1 };
    const struct spec s3 = { 3, { 64, 16, 16 }, F, 0.5, 0.0, INFINITY, 1.0, 1, 1 };
    static const struct { int three; const char *chunk; int n_parts; const char *says; } cases[] = {
        { 0, "abc", 1, "expected" },
        { 0, "32x8x8", 1, "expected" },      /* 3 extents in 2D */
        { 1, "32x8", 1, "expected" },        /* 2 in 3D */
        { 0, "32x8y", 1, "expected" },
        { 0, "16x8", 1, "multiple of 32" },  /* x not a multiple of W */
        { 0, "64x8", 1, "divide L_x" },      /* one chunk along x */
        { 0, "32x3", 1, "divide L_y" },
        { 0, "32x1", 1, "at least 2" },
        { 1, "32x4x16", 1, "divide L_z" },
        { 0, "32x8", 2, "n_parts" },         /* the chunks need the whole lattice */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        latmc_sim *sim = NULL;
        const int st = try_create(ctx, cases[i].three ? &s3 : &s2, 5, cases[i].chunk, NULL, 1,
                                  cases[i].n_parts, &sim);
        const char *msg = latmc_last_error();
        printf("  %s=\"%s\" (n_parts %d): %s\n", CHUNK_ENV, cases[i].chunk, cases[i].n_parts,
               msg);
        assert_int_equal(st, LATMC_EINVAL);
        assert_null(sim);
        assert_non_null(strstr(msg, CHUNK_ENV));
        assert_non_null(strstr(msg, cases[i].says));
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chunks_match_definition),
        cmocka_unit_test(default_is_site_order),
        cmocka_unit_test(recut_runs_site_order),
        cmocka_unit_test(bad_values),
    };
    return cmocka_run_group_tests_name("phi4_chunks", tests, NULL, NULL);
}
