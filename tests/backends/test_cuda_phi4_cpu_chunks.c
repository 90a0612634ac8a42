/*
 * The phi^4 chunk schedule on both devices (doc/models/phi4.md, "The CUDA chain" and "The
 * chunk schedule on the CPU"): for the same chunk shape (LATMC_CPU_PHI4_CHUNK on the CPU,
 * LATMC_CUDA_PHI4_CHUNK on CUDA), the CPU's chain and CUDA's must be one chain, bit for
 * bit: the field after every sweep and the acceptance counts, from the same start, float
 * and double, 2D with 8 and 5 colours and 3D, explicit shapes and CUDA's default ("cuda" on
 * the CPU, the CUDA variable unset), nloc and nhit > 1, finite and infinite Lambda. Both
 * devices compute lib/phi4.h's arithmetic with the shared logarithm; CUDA's quicker float
 * decision provably decides as it does, so nothing may differ. The CPU side runs 2 threads
 * at its best SIMD level. Exits 77 (skipped) when the CUDA backend is unavailable.
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

#include "phi4_spec.h"
#include "sim_helpers.h"

struct chunk_case {
    struct spec sp;
    const char *chunk; /* the shape on both devices; "cuda": CUDA's default */
};

static latmc_sim *make_sim(latmc_ctx *ctx, const struct spec *sp, int device, const char *chunk)
{
    latmc_sim_desc d;
    spec_desc(sp, &d);
    d.device = device;
    d.n_threads = 2;
    d.seed = 20261123;
    unsetenv("LATMC_CPU_PHI4_CHUNK");
    unsetenv("LATMC_CUDA_PHI4_CHUNK");
    if (device == LATMC_DEVICE_CPU)
        setenv("LATMC_CPU_PHI4_CHUNK", chunk, 1);
    else if (strcmp(chunk, "cuda") != 0)
        setenv("LATMC_CUDA_PHI4_CHUNK", chunk, 1);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    unsetenv("LATMC_CPU_PHI4_CHUNK");
    unsetenv("LATMC_CUDA_PHI4_CHUNK");
    if (st != LATMC_OK)
        print_error("creating the sim: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim),
                        device == LATMC_DEVICE_CPU ? "cpu" : "cuda");
    assert_int_equal(spec_set_params(sim, sp), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    return sim;
}

enum { SWEEPS = 3 };

static void one_case(latmc_ctx *ctx, const struct chunk_case *cc)
{
    const struct spec *sp = &cc->sp;
    const size_t bytes = spec_sites(sp) * (sp->precision == LATMC_PRECISION_FLOAT ? 4 : 8);
    printf("  %dD %lldx%lldx%lld %s, chunks %s, nloc %d nhit %d, Lambda %g\n", sp->ndim,
           (long long)sp->L[0], (long long)sp->L[1], (long long)(sp->ndim == 3 ? sp->L[2] : 1),
           sp->precision == LATMC_PRECISION_FLOAT ? "float" : "double", cc->chunk, sp->nloc,
           sp->nhit, sp->lambda);
    latmc_sim *cpu = make_sim(ctx, sp, LATMC_DEVICE_CPU, cc->chunk);
    latmc_sim *gpu = make_sim(ctx, sp, LATMC_DEVICE_CUDA, cc->chunk);
    unsigned char *a = malloc(bytes), *b = malloc(bytes), *start = malloc(bytes);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(start);
    assert_int_equal(latmc_sim_get_spins(cpu, start, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(gpu, b, bytes), LATMC_OK);
    assert_memory_equal(start, b, bytes); /* the same hot start */
    for (int t = 0; t < SWEEPS; t++) {
        assert_int_equal(latmc_sim_sweep(cpu, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(gpu, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(cpu, a, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(gpu, b, bytes), LATMC_OK);
        if (memcmp(a, b, bytes) != 0) {
            size_t i = 0;
            const size_t vb = sp->precision == LATMC_PRECISION_FLOAT ? 4 : 8;
            while (memcmp(a + i * vb, b + i * vb, vb) == 0)
                i++;
            print_error("sweep %d: first differing site %zu of %zu\n", t, i, spec_sites(sp));
        }
        assert_memory_equal(a, b, bytes);
    }
    assert_true(memcmp(start, a, bytes) != 0); /* the chain moved */
    uint64_t acc[2], att[2];
    assert_int_equal(latmc_sim_acceptance_counts(cpu, &acc[0], &att[0]), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(gpu, &acc[1], &att[1]), LATMC_OK);
    assert_int_equal(acc[0], acc[1]);
    assert_int_equal(att[0], att[1]);
    assert_int_equal(att[0], (uint64_t)spec_sites(sp) * (uint64_t)sp->nloc *
                                 (uint64_t)sp->nhit * SWEEPS);
    assert_true(acc[0] > 0 && acc[0] < att[0]);
    free(a);
    free(b);
    free(start);
    latmc_sim_destroy(&cpu);
    latmc_sim_destroy(&gpu);
}

static void cpu_equals_cuda(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int F = LATMC_PRECISION_FLOAT, D = LATMC_PRECISION_DOUBLE;
    const struct chunk_case cases[] = {
        /* 2D, 8 colours: CUDA's default (32 x 256 here) and explicit shapes */
        { { 2, { 256, 512, 0 }, F, -0.5, 2.0, 2.0, 0.9, 3, 2 }, "cuda" },
        { { 2, { 256, 512, 0 }, D, -0.5, 2.0, 2.0, 0.9, 3, 2 }, "cuda" },
        { { 2, { 256, 128, 0 }, F, 0.3, 1.0, INFINITY, 1.1, 2, 3 }, "64x16" },
        { { 2, { 256, 128, 0 }, D, 0.3, 1.0, 1.5, 1.1, 2, 3 }, "32x8" },
        /* 2D, 5 colours: W = 20 */
        { { 2, { 40, 30, 0 }, F, -0.3, 1.2, 4.0, 1.0, 2, 2 }, "20x5" },
        { { 2, { 40, 30, 0 }, D, -0.3, 1.2, INFINITY, 1.0, 2, 2 }, "20x3" },
        /* 3D: CUDA's default (32 x 16 x 16 here) and shapes with rows of whole AVX2
         * groups (x extent 64) */
        { { 3, { 128, 32, 32 }, F, 0.25, 0.0, 0.5, 0.5, 8, 2 }, "cuda" },
        { { 3, { 128, 32, 32 }, D, -1.0, 2.0, INFINITY, 1.2, 2, 2 }, "cuda" },
        { { 3, { 128, 32, 16 }, F, -0.5, 1.5, 4.0, 1.0, 2, 4 }, "64x4x4" },
        { { 3, { 128, 32, 16 }, D, -0.5, 1.5, 4.0, 1.0, 2, 3 }, "64x8x2" },
        { { 3, { 64, 16, 16 }, F, 0.1, 5.0, 0.5, 0.8, 3, 2 }, "32x4x8" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        one_case(ctx, &cases[i]);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 8;
    d.device = LATMC_DEVICE_CUDA;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    const int st = latmc_sim_create(ctx, &d, &sim);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    if (st == LATMC_EBACKEND || st == LATMC_ENODEV) {
        const char *why = latmc_last_error();
        const char *prefix = "CUDA backend unavailable: ";
        printf("%s%s\n", strncmp(why, prefix, strlen(prefix)) == 0 ? "" : prefix, why);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_equals_cuda),
    };
    return cmocka_run_group_tests_name("cuda_phi4_cpu_chunks", tests, NULL, NULL);
}
