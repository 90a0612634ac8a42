/*
 * desc.n_devices and desc.device_list without a GPU (runs everywhere, CI included):
 * - the CPU refuses n_devices > 1 (LATMC_EUNSUPPORTED, naming the field); AUTO without a
 *   usable CUDA backend refuses it too (LATMC_ENODEV) instead of a silent CPU run;
 * - bad values: negative or huge n_devices, a list with n_devices <= 1, n_parts that
 *   disagrees, a negative entry (each LATMC_EINVAL / LATMC_ENODEV naming the field);
 * - n_devices 0 and 1 are one device, as before (a CPU sim is made);
 * - struct_size of the desc before n_devices (104 bytes on LP64, n_parts its last field):
 *   accepted, whatever its padding holds, and latmc_sim_get_desc fills only that much;
 * - latmc_ctx_device_peer on the CPU (0 reaches 0) and its argument checks.
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

static void refused(latmc_sim_desc d, int status, const char *needle)
{
    latmc_sim *sim = (latmc_sim *)&sim;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (st != status || !strstr(latmc_last_error(), needle))
        print_error("got %d (%s), expected %d with \"%s\"\n", st, latmc_last_error(), status,
                    needle);
    assert_int_equal(st, status);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), needle));
}

static latmc_sim_desc cpu_ising(void)
{
    return ising_desc(2, 16, 16, 0, LATMC_ALGO_METROPOLIS, 1, 1);
}

static void cpu_refuses_devices(void **state)
{
    (void)state;
    latmc_sim_desc d = cpu_ising();
    d.n_devices = 2;
    refused(d, LATMC_EUNSUPPORTED, "n_devices");
    int cuda = 0;
    if (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &cuda) != LATMC_OK || cuda == 0) {
        d.device = LATMC_DEVICE_AUTO; /* no GPU: no silent run on the one CPU device */
        refused(d, LATMC_ENODEV, "n_devices");
    }
}

static void bad_values(void **state)
{
    (void)state;
    const int two[2] = { 0, 1 }, negative[2] = { 0, -1 };
    latmc_sim_desc d = cpu_ising();
    d.n_devices = -1;
    refused(d, LATMC_EINVAL, "n_devices");
    d.n_devices = 1 << 20;
    refused(d, LATMC_EINVAL, "n_devices");
    d.n_devices = 1;
    d.device_list = two;
    refused(d, LATMC_EINVAL, "device_list");
    d.device = LATMC_DEVICE_CUDA;
    d.n_devices = 2;
    d.n_parts = 4;
    refused(d, LATMC_EINVAL, "n_parts");
    d.n_parts = 0;
    d.device_list = negative;
    refused(d, LATMC_ENODEV, "device_list");
    d.device_list = NULL;
    d.n_devices = 16; /* 16 rows cannot make 16 slabs of the 2-row unit */
    refused(d, LATMC_EINVAL, "n_devices");
}

static void one_device_as_before(void **state)
{
    (void)state;
    for (int n = 0; n <= 1; n++) {
        latmc_sim_desc d = cpu_ising();
        d.n_devices = n;
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        latmc_sim_desc got;
        got.struct_size = sizeof got;
        assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
        assert_int_equal(got.n_devices, n);
        assert_null(got.device_list);
        latmc_sim_destroy(&sim);
    }
}

/* The desc of the version before n_devices: n_parts last, then padding. */
static void older_struct_size(void **state)
{
    (void)state;
    const size_t v2 = offsetof(latmc_sim_desc, n_parts) + sizeof(int);
    const size_t align = _Alignof(latmc_sim_desc);
    const size_t v2_size = (v2 + align - 1) / align * align;
    if (v2_size >= sizeof(latmc_sim_desc)) {
        print_message("the older desc is not smaller on this ABI: nothing to check\n");
        return;
    }
    unsigned char raw[sizeof(latmc_sim_desc)];
    memset(raw, 0xab, sizeof raw); /* bytes past the older struct: garbage */
    latmc_sim_desc d = cpu_ising();
    d.n_parts = 2;
    memcpy(raw, &d, v2);
    latmc_sim_desc *old = (latmc_sim_desc *)(void *)raw;
    old->struct_size = (uint32_t)v2_size;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, old, &sim), LATMC_OK);
    memset(raw, 0xcd, sizeof raw);
    old->struct_size = (uint32_t)v2_size;
    assert_int_equal(latmc_sim_get_desc(sim, old), LATMC_OK);
    assert_int_equal(old->struct_size, v2_size);
    assert_int_equal(old->n_parts, 2);
    for (size_t i = v2; i < sizeof raw; i++)
        assert_int_equal(raw[i], 0xcd); /* nothing written past the older struct's fields */
    latmc_sim_destroy(&sim);
}

static void peer_on_the_cpu(void **state)
{
    (void)state;
    int can = -1;
    assert_int_equal(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, 0, 0, &can), LATMC_OK);
    assert_int_equal(can, 1);
    assert_int_equal(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, 0, 1, &can), LATMC_ENODEV);
    assert_int_equal(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, 0, 0, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_ctx_device_peer(NULL, LATMC_DEVICE_CPU, 0, 0, &can), LATMC_EINVAL);
    assert_int_equal(latmc_ctx_device_peer(ctx, LATMC_DEVICE_AUTO, 0, 0, &can), LATMC_EINVAL);
}

int main(void)
{
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cpu_refuses_devices),
        cmocka_unit_test(bad_values),
        cmocka_unit_test(one_device_as_before),
        cmocka_unit_test(older_struct_size),
        cmocka_unit_test(peer_on_the_cpu),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed;
}
