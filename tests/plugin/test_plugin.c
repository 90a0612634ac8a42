/*
 * Plugin suite: the module loader with mock modules. Loading happens once per process,
 * so each case is its own run: argv[1] names the case, LATMC_MODULE_PATH (set by meson)
 * points at the directory holding that case's latmc-cuda.so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "sim_helpers.h"

static const char *which;

static latmc_sim_desc cuda_desc(void)
{
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.device = LATMC_DEVICE_CUDA;
    return d;
}

/* The module is refused: explicit CUDA fails with EBACKEND naming the reason, AUTO and
 * the CPU still work, and the status line says why. */
static void expect_refused(const char *reason)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = cuda_desc();
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EBACKEND);
    assert_null(sim);
    if (!strstr(latmc_last_error(), reason))
        print_error("'%s' does not mention '%s'\n", latmc_last_error(), reason);
    assert_non_null(strstr(latmc_last_error(), reason));
    assert_non_null(strstr(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA), reason));
    int count = -1;
    assert_int_equal(latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count), LATMC_EBACKEND);
    d.device = LATMC_DEVICE_AUTO;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), "cpu");
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void plugin_case(void **state)
{
    (void)state;
    if (strcmp(which, "valid") == 0) {
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        assert_non_null(strstr(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA), "loaded"));
        int count = 0;
        assert_int_equal(latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count), LATMC_OK);
        assert_int_equal(count, 1);
        latmc_device_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 0, &info), LATMC_OK);
        assert_string_equal(info.name, "mock GPU");
        assert_int_equal(info.compute_major, 9);
        assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 1, &info), LATMC_ENODEV);
        latmc_sim_desc d = cuda_desc();
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "mock-cuda");
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
        double e = 0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
        assert_true(e == -2.0);
        latmc_sim_destroy(&sim);
        d.device_index = 1; /* one device only */
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENODEV);
        /* AUTO takes the module when it has kernels for the model... */
        d.device_index = 0;
        d.device = LATMC_DEVICE_AUTO;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "mock-cuda");
        latmc_sim_destroy(&sim);
        /* ...and the CPU when it has none (the mock runs only Ising). */
        d.model = LATMC_MODEL_POTTS;
        d.q = 3;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cpu");
        latmc_sim_destroy(&sim);
        d.device = LATMC_DEVICE_CUDA; /* explicit: never a silent CPU run */
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EUNSUPPORTED);
        latmc_ctx_destroy(&ctx);
    } else if (strcmp(which, "abi_mismatch") == 0) {
        expect_refused("ABI version 999");
    } else if (strcmp(which, "no_symbol") == 0) {
        expect_refused("no symbol latmc_module_entry");
    } else if (strcmp(which, "unavailable") == 0) {
        expect_refused("mock: no device present");
    } else if (strcmp(which, "missing") == 0) {
        expect_refused("no latmc-cuda.so");
    } else {
        fail_msg("unknown case %s", which);
    }
}

int main(int argc, char **argv)
{
    which = argc > 1 ? argv[1] : "";
    const struct CMUnitTest tests[] = { cmocka_unit_test(plugin_case) };
    return cmocka_run_group_tests_name(which, tests, NULL, NULL);
}
