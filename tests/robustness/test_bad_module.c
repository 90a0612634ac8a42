/*
 * Status codes from a backend module are checked before they reach the caller (issue 13
 * item 11), and device AUTO refuses a device_index it cannot honour (item 8). Runs with
 * LATMC_MODULE_PATH at tests/robustness/bad_module (bad_module.c says what each of its
 * operations returns). Every public call here must return a documented code for the call,
 * with a message that names what went wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sim_helpers.h"

static latmc_sim_desc bad_desc(int device, int index)
{
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, LATMC_ALGO_METROPOLIS, 1, 3);
    d.device = device;
    d.device_index = index;
    return d;
}

static void module_codes_checked(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    int count = -1;
    assert_int_equal(latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count), LATMC_OK);
    assert_int_equal(count, 1);
    latmc_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 0, &info), LATMC_EBACKEND);
    assert_non_null(strstr(latmc_last_error(), "-99"));
    assert_non_null(strstr(latmc_last_error(), "device_info"));

    latmc_sim_desc d = bad_desc(LATMC_DEVICE_CUDA, 0);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), "bad-cuda");
    /* A positive status is not success. */
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_EBACKEND);
    assert_non_null(strstr(latmc_sim_last_error(sim), "status 7"));
    double e;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_ESTATE);
    int8_t spins[64];
    memset(spins, 1, sizeof spins);
    assert_int_equal(latmc_sim_set_spins(sim, spins, sizeof spins), LATMC_OK);
    /* A real code that a backend may not report. */
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_EBACKEND);
    assert_non_null(strstr(latmc_sim_last_error(sim), "sweep"));
    assert_non_null(strstr(latmc_sim_last_error(sim), latmc_strerror(LATMC_ECORRUPT)));
    uint64_t sweeps = 9;
    assert_int_equal(latmc_sim_sweep_count(sim, &sweeps), LATMC_OK);
    assert_true(sweeps == 0);
    /* A fitting code with no message: the core supplies one. */
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_EDEVICE);
    assert_non_null(strstr(latmc_sim_last_error(sim), "gave no detail"));
    assert_non_null(strstr(latmc_last_error(), "measure"));
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void auto_device_index(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    /* The module sees one device; the CPU has only device 0: AUTO 1 and 5 name nothing. */
    const int bad[] = { 1, 5 };
    for (int i = 0; i < 2; i++) {
        latmc_sim_desc d = bad_desc(LATMC_DEVICE_AUTO, bad[i]);
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENODEV);
        assert_null(sim);
        assert_non_null(strstr(latmc_last_error(), "device_index"));
        d.device = LATMC_DEVICE_CPU;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENODEV);
        d.device = LATMC_DEVICE_CUDA;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENODEV);
    }
    /* AUTO 0: the module's device. A model the module has no kernels for moves to the
     * CPU at index 0 ... */
    latmc_sim_desc d = bad_desc(LATMC_DEVICE_AUTO, 0);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), "bad-cuda");
    latmc_sim_destroy(&sim);
    d.model = LATMC_MODEL_POTTS;
    d.q = 3;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), "cpu");
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(module_codes_checked),
        cmocka_unit_test(auto_device_index),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
