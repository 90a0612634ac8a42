/*
 * The CUDA module's faults, each a clean error with a message (issue 13, "the CUDA module
 * gets the same"); needs a GPU, skipped (exit 77, saying why) without a usable CUDA module:
 *  - device indices past the last GPU, and negative, for sims (CUDA and AUTO) and
 *    latmc_ctx_device_info: LATMC_ENODEV;
 *  - a lattice larger than the card (a phi^4 double field of twice the device memory):
 *    LATMC_ENOMEM, *out NULL, and the device still works afterwards (a small sim runs);
 *  - status codes the module returns are checked (lib/backend_result.c): every code seen
 *    here is one the call documents.
 * A module built for another module ABI is refused by the loader: the plugin suite's
 * abi_mismatch case covers it (tests/plugin).
 * Run: meson test -C <build with -Dcuda=enabled> test_cuda_faults --print-errorlogs
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sim_helpers.h"

static latmc_ctx *ctx;
static int ngpus;

/* sqrt without libm (Newton's method; plenty for picking an extent). */
static double sqrt_approx(double x)
{
    double r = x > 1 ? x : 1;
    for (int i = 0; i < 200; i++)
        r = 0.5 * (r + x / r);
    return r;
}

static latmc_sim_desc cuda_desc(int device, int index)
{
    latmc_sim_desc d = ising_desc(2, 64, 64, 0, LATMC_ALGO_METROPOLIS, 1, 5);
    d.device = device;
    d.device_index = index;
    return d;
}

static void bad_device_index(void **state)
{
    (void)state;
    const int bad[] = { ngpus, ngpus + 3, -1 };
    for (int i = 0; i < 3; i++) {
        for (int dev = LATMC_DEVICE_AUTO; dev <= LATMC_DEVICE_CUDA; dev += 2) {
            latmc_sim_desc d = cuda_desc(dev, bad[i]);
            latmc_sim *sim = (latmc_sim *)&sim;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENODEV);
            assert_null(sim);
            assert_non_null(strstr(latmc_last_error(), "device_index"));
        }
        latmc_device_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, bad[i], &info),
                         LATMC_ENODEV);
        assert_true(strlen(latmc_last_error()) > 0);
    }
}

static void larger_than_the_card(void **state)
{
    (void)state;
    latmc_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 0, &info), LATMC_OK);
    assert_true(info.memory_bytes > 0);
    /* A 2D phi^4 double field of about twice the card: 8 bytes a site. */
    const double sites = 2.0 * (double)info.memory_bytes / 8.0;
    int64_t l = (int64_t)(sqrt_approx(sites) / 8.0 + 1.0) * 8;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.extent[0] = d.extent[1] = l;
    d.device = LATMC_DEVICE_CUDA;
    d.seed = 1;
    latmc_sim *sim = (latmc_sim *)&sim;
    const int st = latmc_sim_create(ctx, &d, &sim);
    printf("%s: %.1f GB of device memory; a %lld^2 double field (%.1f GB): %s (%s)\n",
           info.name, (double)info.memory_bytes / 1e9, (long long)l,
           8.0 * (double)l * (double)l / 1e9, latmc_strerror(st), latmc_last_error());
    assert_int_equal(st, LATMC_ENOMEM);
    assert_null(sim);
    assert_true(strlen(latmc_last_error()) > 0);
    /* Nothing sticky: the device runs a small sim after the failure. */
    latmc_sim_desc small = cuda_desc(LATMC_DEVICE_CUDA, 0);
    assert_int_equal(latmc_sim_create(ctx, &small, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 10), LATMC_OK);
    double e;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
    latmc_sim_destroy(&sim);
}

int main(void)
{
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    const int st = latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &ngpus);
    if (st != LATMC_OK || ngpus < 1) {
        printf("skipped: no usable CUDA module or GPU (%s)\n",
               st != LATMC_OK ? latmc_last_error() : "no device");
        latmc_ctx_destroy(&ctx);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_device_index),
        cmocka_unit_test(larger_than_the_card),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed;
}
