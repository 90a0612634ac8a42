/*
 * Headers suite, run time part: the C and C++ views of the public structs agree.
 * The compile time part is the build itself: every public header is compiled alone as
 * C99 (-pedantic-errors) and as C++11 by this suite's meson.build.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <latmc/latmc.h>

void latmc_test_layout_cxx(size_t *out, int *n);

static void c_and_cxx_layouts_agree(void **state)
{
    (void)state;
    size_t c[32], cxx[32];
    int n = 0, ncxx = 0;
    c[n++] = sizeof(latmc_sim_desc);
    c[n++] = offsetof(latmc_sim_desc, struct_size);
    c[n++] = offsetof(latmc_sim_desc, model);
    c[n++] = offsetof(latmc_sim_desc, ndim);
    c[n++] = offsetof(latmc_sim_desc, extent);
    c[n++] = offsetof(latmc_sim_desc, q);
    c[n++] = offsetof(latmc_sim_desc, algorithm);
    c[n++] = offsetof(latmc_sim_desc, precision);
    c[n++] = offsetof(latmc_sim_desc, couplings);
    c[n++] = offsetof(latmc_sim_desc, coupling_seed);
    c[n++] = offsetof(latmc_sim_desc, replicas);
    c[n++] = offsetof(latmc_sim_desc, device);
    c[n++] = offsetof(latmc_sim_desc, device_index);
    c[n++] = offsetof(latmc_sim_desc, n_threads);
    c[n++] = offsetof(latmc_sim_desc, seed);
    c[n++] = offsetof(latmc_sim_desc, n_parts);
    c[n++] = offsetof(latmc_sim_desc, n_devices);
    c[n++] = offsetof(latmc_sim_desc, device_list);
    c[n++] = sizeof(enum latmc_status);
    c[n++] = (size_t)(LATMC_ECANCELLED + 100);
    c[n++] = (size_t)LATMC_OBS_OVERLAP2;
    c[n++] = (size_t)LATMC_PARAM_NOVER;
    c[n++] = sizeof(latmc_device_view);
    c[n++] = offsetof(latmc_device_view, data);
    c[n++] = offsetof(latmc_device_view, shape);
    c[n++] = offsetof(latmc_device_view, readonly);
    c[n++] = (size_t)LATMC_DTYPE_FLOAT64;
    latmc_test_layout_cxx(cxx, &ncxx);
    assert_int_equal(n, ncxx);
    for (int i = 0; i < n; i++)
        assert_int_equal(c[i], cxx[i]);
    /* The desc layout is ABI (doc/ABI.md): pin it on LP64. v1 (0.1) ended after seed at
     * 96 bytes; v2 appends n_parts there (104 bytes with the padding); v3 puts n_devices
     * in that padding and appends device_list (lib/desc.h: a struct_size of 104 is v2). */
    if (sizeof(void *) == 8) {
        assert_int_equal(offsetof(latmc_sim_desc, seed), 88);
        assert_int_equal(offsetof(latmc_sim_desc, n_parts), 96);
        assert_int_equal(offsetof(latmc_sim_desc, n_devices), 100);
        assert_int_equal(offsetof(latmc_sim_desc, device_list), 104);
        assert_int_equal(sizeof(latmc_sim_desc), 112);
        /* and the device view's (python/latmc/_lib.py's DeviceView mirrors it) */
        assert_int_equal(sizeof(latmc_device_view), 120);
        assert_int_equal(offsetof(latmc_device_view, shape), 32);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(c_and_cxx_layouts_agree),
    };
    return cmocka_run_group_tests_name("headers", tests, NULL, NULL);
}
