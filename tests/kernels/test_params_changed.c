/*
 * The kernels' own forms of the core's tables (the CPU's Ising decision planes and Potts
 * fast tables, the CUDA device copy) are rebuilt when a parameter changes, not at every
 * sweep (ops.params_changed). A chain whose parameters change between sweeps, and one
 * restored from a checkpoint into a sim created with other parameters, must then follow
 * the C reference (which reads the core's tables directly) bit for bit: a stale table
 * would show as a different configuration after the change.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "cpu_features.h"

struct chain {
    int model, q, algorithm;
    const char *name;
};

static const struct chain chains[] = {
    { LATMC_MODEL_ISING, 0, LATMC_ALGO_METROPOLIS, "Ising Metropolis" },
    { LATMC_MODEL_ISING, 0, LATMC_ALGO_HEATBATH, "Ising heat bath" },
    { LATMC_MODEL_POTTS, 3, LATMC_ALGO_METROPOLIS, "Potts q=3 Metropolis" },
    { LATMC_MODEL_POTTS, 5, LATMC_ALGO_HEATBATH, "Potts q=5 heat bath" },
};

/* Parameter points visited in turn: beta, then h. */
static const double betas[] = { 0.2, 0.6, 0.35 };
static const double fields[] = { 0.0, 0.3, -0.1 };

static latmc_sim *make_sim(latmc_ctx *ctx, const struct chain *c, const char *level)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = c->model;
    d.q = c->q;
    d.algorithm = c->algorithm;
    d.ndim = 2;
    /* large enough for the Potts heat-bath table of q = 5 (64 x 625 sites) */
    d.extent[0] = 256;
    d.extent[1] = 160;
    d.seed = 20261122;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    unsetenv("LATMC_CPU_MASK");
    return sim;
}

/* Sweeps at each parameter point in turn; a checkpoint after the second, reloaded. */
static void run(latmc_ctx *ctx, latmc_sim **psim, const char *dir, uint8_t *spins, size_t n)
{
    for (int k = 0; k < 3; k++) {
        assert_int_equal(latmc_sim_set_param(*psim, LATMC_PARAM_BETA, betas[k]), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(*psim, LATMC_PARAM_H, fields[k]), LATMC_OK);
        if (k == 0)
            assert_int_equal(latmc_sim_init_spins(*psim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(*psim, 3), LATMC_OK);
        if (k == 1) {
            /* the loaded sim is created with the default parameters, then gets these */
            char path[512];
            snprintf(path, sizeof path, "%s/ckpt", dir);
            assert_int_equal(latmc_sim_save(*psim, path), LATMC_OK);
            latmc_sim_destroy(psim);
            assert_int_equal(latmc_sim_load(ctx, path, psim), LATMC_OK);
            unlink(path);
            assert_int_equal(latmc_sim_sweep(*psim, 2), LATMC_OK);
        }
    }
    assert_int_equal(latmc_sim_get_spins(*psim, spins, n), LATMC_OK);
}

static void test_level(void **state)
{
    (void)state;
    const char *levels[] = { "avx2", "avx512" };
    const unsigned flags[] = { CPU_FLAG_AVX2, CPU_FLAG_AVX512 };
    char dir[] = "/tmp/latmc-params-XXXXXX";
    assert_non_null(mkdtemp(dir));
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    int compared = 0;
    for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
        for (int l = 0; l < 2; l++) {
            if (!(cpu_flags_detected() & flags[l]))
                continue;
            latmc_sim *ref = make_sim(ctx, &chains[i], "c");
            latmc_sim *fast = make_sim(ctx, &chains[i], levels[l]);
            const size_t n = 256 * 160;
            uint8_t *a = malloc(n), *b = malloc(n);
            assert_non_null(a);
            assert_non_null(b);
            run(ctx, &ref, dir, a, n);
            run(ctx, &fast, dir, b, n);
            if (memcmp(a, b, n) != 0)
                print_error("%s at level %s: differs from the C level after a parameter "
                            "change\n", chains[i].name, levels[l]);
            assert_memory_equal(a, b, n);
            double ea, eb;
            assert_int_equal(latmc_sim_observable(ref, LATMC_OBS_ENERGY, &ea), LATMC_OK);
            assert_int_equal(latmc_sim_observable(fast, LATMC_OBS_ENERGY, &eb), LATMC_OK);
            assert_true(ea == eb);
            free(a);
            free(b);
            latmc_sim_destroy(&ref);
            latmc_sim_destroy(&fast);
            compared++;
        }
    }
    latmc_ctx_destroy(&ctx);
    rmdir(dir);
    if (!compared)
        skip();
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(test_level) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
