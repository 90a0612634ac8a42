/*
 * latmc_sim_device_view: its argument checks and the CPU backend's refusal (every run),
 * a case of every model of the library (every run: a model without one fails, named),
 * and, with LATMC_TEST_DEVICE=cuda, the views of the CUDA sims: device, address, dtype,
 * shape and byte strides in the API's order for each model and layout (the data itself is
 * compared with latmc_sim_get_spins by python/tests/test_gpu.py, which has cupy to read
 * device memory; this program links no CUDA library). Exits 77 (skipped) on a machine
 * without a usable CUDA backend when asked for cuda.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <latmc/latmc.h>

#include "sim_helpers.h"

static latmc_ctx *ctx;

static latmc_sim *make(int model, int ndim, int64_t l, int replicas, int precision, int device)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = ndim;
    d.extent[0] = d.extent[1] = l;
    if (ndim == 3)
        d.extent[2] = l / 2;
    d.q = model == LATMC_MODEL_POTTS ? 3 : d.q;
    d.replicas = replicas;
    d.precision = precision;
    d.device = device;
    d.seed = 7;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    if (model == LATMC_MODEL_PHI4)
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0), LATMC_OK);
    else
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), LATMC_OK);
    return sim;
}

static latmc_device_view fresh_view(void)
{
    latmc_device_view v;
    memset(&v, 0xab, sizeof v); /* garbage, but for struct_size */
    v.struct_size = sizeof v;
    return v;
}

struct view_case {
    const char *what;
    int model, ndim;
    int64_t l;
    int replicas, precision;
    int dtype, elem, components;
    int soa; /* the components are separate arrays (Heisenberg) */
};

/* One case or more of each model (every_model_has_a_case checks it). */
static const struct view_case cases[] = {
    { "ising 2D (packed kernels)", LATMC_MODEL_ISING, 2, 32, 1, 0, LATMC_DTYPE_INT8, 1, 1, 0 },
    { "ising 3D", LATMC_MODEL_ISING, 3, 8, 1, 0, LATMC_DTYPE_INT8, 1, 1, 0 },
    { "potts 2D", LATMC_MODEL_POTTS, 2, 12, 1, 0, LATMC_DTYPE_UINT8, 1, 1, 0 },
    { "phi4 float", LATMC_MODEL_PHI4, 2, 16, 1, LATMC_PRECISION_FLOAT,
      LATMC_DTYPE_FLOAT32, 4, 1, 0 },
    { "phi4 double 3D", LATMC_MODEL_PHI4, 3, 16, 1, LATMC_PRECISION_DOUBLE,
      LATMC_DTYPE_FLOAT64, 8, 1, 0 },
    { "heisenberg 3D, 2 replicas", LATMC_MODEL_HEISENBERG, 3, 8, 2,
      LATMC_PRECISION_FLOAT, LATMC_DTYPE_FLOAT32, 4, 3, 1 },
    { "heisenberg 2D", LATMC_MODEL_HEISENBERG, 2, 8, 1, LATMC_PRECISION_DOUBLE,
      LATMC_DTYPE_FLOAT32, 4, 3, 1 },
};
#define N_CASES (sizeof cases / sizeof cases[0])

/* Bad arguments, no configuration yet, and the CPU backend's refusal with its reason, for
 * a sim of each case (so of every model); the view is left untouched by every failure. */
static void cpu_refuses(void **state)
{
    (void)state;
    latmc_sim *sim = make(LATMC_MODEL_ISING, 2, 8, 1, LATMC_PRECISION_DOUBLE, LATMC_DEVICE_CPU);
    latmc_device_view v = fresh_view(), before;
    assert_int_equal(latmc_sim_device_view(NULL, &v), LATMC_EINVAL);
    assert_int_equal(latmc_sim_device_view(sim, NULL), LATMC_EINVAL);
    v.struct_size = sizeof v - 1;
    assert_int_equal(latmc_sim_device_view(sim, &v), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "struct_size"));
    v.struct_size = 5000;
    assert_int_equal(latmc_sim_device_view(sim, &v), LATMC_EINVAL);
    latmc_sim_destroy(&sim);
    for (size_t i = 0; i < N_CASES; i++) {
        const struct view_case *c = &cases[i];
        print_message("%s on the CPU\n", c->what);
        sim = make(c->model, c->ndim, c->l, c->replicas, c->precision, LATMC_DEVICE_CPU);
        v = fresh_view();
        before = v;
        assert_int_equal(latmc_sim_device_view(sim, &v), LATMC_ESTATE);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_device_view(sim, &v), LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_last_error(), "host memory"));
        assert_non_null(strstr(latmc_sim_last_error(sim), "latmc_sim_get_spins"));
        assert_memory_equal(&v, &before, sizeof v);
        latmc_sim_destroy(&sim);
    }
}

/* Every model of the library has a case (checked in every run, the GPU's or not). */
static void every_model_has_a_case(void **state)
{
    (void)state;
    const int uncovered = test_model_without_case(cases, N_CASES, model);
    if (uncovered != LATMC_MODEL_NONE)
        fail_msg("model %s has no case in cases[]", latmc_model_name(uncovered));
}

/* The expected shape and strides, written out from doc/conventions.md's order. */
static void check_view(const struct view_case *c, const latmc_device_view *v)
{
    print_message("%s: ndim %d, shape", c->what, v->ndim);
    for (int k = 0; k < v->ndim; k++)
        print_message(" %lld(%lld B)", (long long)v->shape[k], (long long)v->strides[k]);
    print_message("\n");
    const int64_t lx = c->l, ly = c->l, lz = c->ndim == 3 ? c->l / 2 : 1, n = lx * ly * lz;
    int64_t shape[5], strides[5];
    int nd = 0;
    const int64_t site = c->soa ? c->elem : (int64_t)c->elem * c->components;
    if (c->replicas == 2) {
        shape[nd] = 2;
        strides[nd++] = n * c->elem * c->components;
    }
    if (c->ndim == 3) {
        shape[nd] = lz;
        strides[nd++] = site * lx * ly;
    }
    shape[nd] = ly;
    strides[nd++] = site * lx;
    shape[nd] = lx;
    strides[nd++] = site;
    if (c->components > 1) {
        shape[nd] = c->components;
        strides[nd++] = c->soa ? n * c->elem : c->elem;
    }
    assert_int_equal(v->struct_size, sizeof *v);
    assert_int_equal(v->device, LATMC_DEVICE_CUDA);
    assert_int_equal(v->index, 0);
    assert_true(v->data != 0);
    assert_int_equal(v->dtype, c->dtype);
    assert_int_equal(v->readonly, 1);
    assert_int_equal(v->ndim, nd);
    for (int k = 0; k < nd; k++) {
        assert_int_equal(v->shape[k], shape[k]);
        assert_int_equal(v->strides[k], strides[k]);
    }
    for (int k = nd; k < LATMC_VIEW_MAX_NDIM; k++)
        assert_int_equal(v->shape[k], 0);
}

/* Each model's view after a hot start and after a sweep (for Ising on a lattice the
 * multi-spin coded kernels take: the view is of the bytes, unpacked on the device). */
static void cuda_views(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_CASES; i++) {
        const struct view_case *c = &cases[i];
        latmc_sim *sim = make(c->model, c->ndim, c->l, c->replicas, c->precision,
                              LATMC_DEVICE_CUDA);
        latmc_device_view v = fresh_view();
        assert_int_equal(latmc_sim_device_view(sim, &v), LATMC_ESTATE);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_device_view(sim, &v), LATMC_OK);
        check_view(c, &v);
        assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
        v = fresh_view();
        assert_int_equal(latmc_sim_device_view(sim, &v), LATMC_OK);
        check_view(c, &v);
        latmc_sim_destroy(&sim);
    }
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    const int pre = test_device_check();
    if (pre != 0)
        return pre;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    int failed;
    if (test_device() == LATMC_DEVICE_CUDA) {
        const struct CMUnitTest tests[] = { cmocka_unit_test(every_model_has_a_case),
                                            cmocka_unit_test(cuda_views) };
        failed = cmocka_run_group_tests_name("device_view_cuda", tests, NULL, NULL);
    } else {
        const struct CMUnitTest tests[] = { cmocka_unit_test(every_model_has_a_case),
                                            cmocka_unit_test(cpu_refuses) };
        failed = cmocka_run_group_tests_name("device_view_cpu", tests, NULL, NULL);
    }
    latmc_ctx_destroy(&ctx);
    return failed;
}
