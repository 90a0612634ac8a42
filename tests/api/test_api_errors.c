/*
 * Every bad input returns its documented code, leaves the object unchanged, and says why
 * (latmc_last_error / latmc_sim_last_error). Public API only, through the shared library.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "sim_helpers.h"

struct fixture {
    latmc_ctx *ctx;
    latmc_sim *sim;  /* 4x4 Ising, no configuration yet */
};

static int setup(void **state)
{
    static struct fixture f;
    memset(&f, 0, sizeof f);
    if (latmc_ctx_create(&f.ctx) != LATMC_OK)
        return -1;
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    if (latmc_sim_create(f.ctx, &d, &f.sim) != LATMC_OK)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    latmc_sim_destroy(&f->sim);
    latmc_ctx_destroy(&f->ctx);
    return 0;
}

/* Create with `d` must fail with `code`, leave out NULL and leave a message. */
static void expect_create_fails(latmc_ctx *ctx, const latmc_sim_desc *d, int code)
{
    latmc_sim *sim = (latmc_sim *)(uintptr_t)1; /* must be overwritten with NULL */
    int st = latmc_sim_create(ctx, d, &sim);
    if (st != code)
        print_error("expected %d (%s), got %d: %s\n", code, latmc_strerror(code), st,
                    latmc_last_error());
    assert_int_equal(st, code);
    assert_null(sim);
    assert_true(strlen(latmc_last_error()) > 0);
}

static void null_arguments(void **state)
{
    struct fixture *f = *state;
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    latmc_sim *sim = NULL;
    double v;
    int8_t buf[16];
    size_t bytes;
    uint64_t count;
    assert_int_equal(latmc_ctx_create(NULL), LATMC_EINVAL);
    latmc_ctx_destroy(NULL);
    latmc_ctx *null_ctx = NULL;
    latmc_ctx_destroy(&null_ctx);
    latmc_ctx_set_log(NULL, NULL, NULL, 0);
    assert_int_equal(latmc_sim_create(NULL, &d, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_create(f->ctx, NULL, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_create(f->ctx, &d, NULL), LATMC_EINVAL);
    latmc_sim_destroy(NULL);
    latmc_sim_destroy(&sim);
    latmc_sim_desc_init(NULL);
    assert_int_equal(latmc_sim_set_param(NULL, LATMC_PARAM_BETA, 1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_param(NULL, LATMC_PARAM_BETA, &v), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_param(f->sim, LATMC_PARAM_BETA, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_init_spins(NULL, LATMC_INIT_COLD), LATMC_EINVAL);
    assert_int_equal(latmc_sim_sweep(NULL, 1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_observable(NULL, LATMC_OBS_ENERGY, &v), LATMC_EINVAL);
    assert_int_equal(latmc_sim_observable(f->sim, LATMC_OBS_ENERGY, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_spins(NULL, buf, sizeof buf), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_spins(NULL, buf, sizeof buf), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_spins(f->sim, NULL, 16), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_spins(f->sim, NULL, 16), LATMC_EINVAL);
    assert_int_equal(latmc_sim_spins_size(NULL, &bytes), LATMC_EINVAL);
    assert_int_equal(latmc_sim_spins_size(f->sim, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_sweep_count(NULL, &count), LATMC_EINVAL);
    assert_int_equal(latmc_sim_sweep_count(f->sim, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_reset_acceptance(NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_desc(NULL, &d), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_desc(f->sim, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_save(NULL, "x"), LATMC_EINVAL);
    assert_int_equal(latmc_sim_save(f->sim, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_load(NULL, "x", &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_load(f->ctx, NULL, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_load(f->ctx, "x", NULL), LATMC_EINVAL);
    assert_int_equal(latmc_param_by_name(NULL, &(int){0}), LATMC_EINVAL);
    assert_int_equal(latmc_param_by_name("beta", NULL), LATMC_EINVAL);
    assert_non_null(latmc_sim_last_error(NULL));
    assert_non_null(latmc_sim_backend_name(NULL));
}

static void bad_model_and_dimension(void **state)
{
    struct fixture *f = *state;
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.model = LATMC_MODEL_NONE;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.model = 99;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.model = -1;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    const int bad_ndim[] = { 0, 1, 4, -2 };
    for (int i = 0; i < 4; i++) {
        d = ising_desc(2, 4, 4, 0, 0, 1, 1);
        d.ndim = bad_ndim[i];
        expect_create_fails(f->ctx, &d, LATMC_EINVAL);
        assert_non_null(strstr(latmc_last_error(), "ndim"));
    }
}

static void bad_extents(void **state)
{
    struct fixture *f = *state;
    const int64_t bad[] = { 0, -4, -1, 1, 3, 5, 17, INT64_MAX, INT64_MIN };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int mu = 0; mu < 3; mu++) {
            latmc_sim_desc d = ising_desc(3, 4, 4, 4, 0, 1, 1);
            d.extent[mu] = bad[i];
            expect_create_fails(f->ctx, &d, LATMC_EINVAL);
            assert_non_null(strstr(latmc_last_error(), "extent"));
        }
    }
    /* Unused extents must be 0 or 1. */
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.extent[2] = 4;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.extent[2] = 0;
    d.extent[3] = -1;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    /* Too many sites overall (each extent alone is fine). */
    d = ising_desc(3, INT64_C(1) << 20, INT64_C(1) << 20, INT64_C(1) << 20, 0, 1, 1);
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
}

static void bad_desc_fields(void **state)
{
    struct fixture *f = *state;
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.struct_size = 0;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.struct_size = offsetof(latmc_sim_desc, n_parts) - 8; /* no version had this size */
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);

    d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.algorithm = LATMC_ALGO_OVERRELAX;
    expect_create_fails(f->ctx, &d, LATMC_EUNSUPPORTED);
    d.algorithm = 17;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.algorithm = -1;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);

    d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.replicas = 0;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.replicas = 3;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.replicas = 2; /* two replicas exist for the Heisenberg overlap only */
    expect_create_fails(f->ctx, &d, LATMC_EUNSUPPORTED);

    d = ising_desc(2, 4, 4, 0, 0, -1, 1);
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.precision = 5;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.couplings = 9;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
}

/* A caller built against a newer, larger desc: zero tail accepted, non-zero tail refused. */
static void larger_desc_from_newer_headers(void **state)
{
    struct fixture *f = *state;
    struct { latmc_sim_desc d; uint64_t future[2]; } big;
    memset(&big, 0, sizeof big);
    big.d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    big.d.struct_size = sizeof big;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(f->ctx, &big.d, &sim), LATMC_OK);
    latmc_sim_destroy(&sim);
    big.future[1] = 7;
    expect_create_fails(f->ctx, &big.d, LATMC_EUNSUPPORTED);
}

static void devices(void **state)
{
    struct fixture *f = *state;
    latmc_sim_desc d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.device = LATMC_DEVICE_CUDA; /* no CUDA backend in this version: never a silent CPU run */
    expect_create_fails(f->ctx, &d, LATMC_EBACKEND);
    d.device = 7;
    expect_create_fails(f->ctx, &d, LATMC_EINVAL);
    d.device = LATMC_DEVICE_CPU;
    d.device_index = 1;
    expect_create_fails(f->ctx, &d, LATMC_ENODEV);
    d.device_index = -1;
    expect_create_fails(f->ctx, &d, LATMC_ENODEV);
    d.device = LATMC_DEVICE_AUTO;
    d.device_index = 0;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(f->ctx, &d, &sim), LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), "cpu");
    latmc_sim_destroy(&sim);
}

static void bad_parameters(void **state)
{
    struct fixture *f = *state;
    latmc_sim *s = f->sim;
    assert_int_equal(latmc_sim_set_param(s, LATMC_PARAM_BETA, 0.3), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(s, LATMC_PARAM_H, 0.1), LATMC_OK);
    const struct { int key; double v; int code; } cases[] = {
        { LATMC_PARAM_BETA, NAN, LATMC_EINVAL },
        { LATMC_PARAM_BETA, INFINITY, LATMC_EINVAL },
        { LATMC_PARAM_BETA, -INFINITY, LATMC_EINVAL },
        { LATMC_PARAM_BETA, -0.5, LATMC_EINVAL },
        { LATMC_PARAM_J, NAN, LATMC_EINVAL },
        { LATMC_PARAM_J, INFINITY, LATMC_EINVAL },
        { LATMC_PARAM_H, -INFINITY, LATMC_EINVAL },
        { LATMC_PARAM_H, NAN, LATMC_EINVAL },
        { LATMC_PARAM_H, 1e200, LATMC_EINVAL },    /* |value| <= 1e100 */
        { LATMC_PARAM_J, -1e101, LATMC_EINVAL },
        { LATMC_PARAM_BETA, 1e150, LATMC_EINVAL },
        { 0, 1.0, LATMC_EINVAL },
        { 12, 1.0, LATMC_EINVAL },
        { LATMC_PARAM_DECISIONS, 2.0, LATMC_EINVAL },
        { -3, 1.0, LATMC_EINVAL },
        { LATMC_PARAM_MU2, 1.0, LATMC_EUNSUPPORTED },    /* phi^4 parameters */
        { LATMC_PARAM_LAMBDA, 1.0, LATMC_EUNSUPPORTED },
        { LATMC_PARAM_NHIT, 2.0, LATMC_EUNSUPPORTED },
        { LATMC_PARAM_NOVER, 2.0, LATMC_EUNSUPPORTED },  /* Heisenberg */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int st = latmc_sim_set_param(s, cases[i].key, cases[i].v);
        if (st != cases[i].code)
            print_error("case %zu: expected %d, got %d\n", i, cases[i].code, st);
        assert_int_equal(st, cases[i].code);
        assert_true(strlen(latmc_sim_last_error(s)) > 0);
    }
    double v;
    assert_int_equal(latmc_sim_get_param(s, LATMC_PARAM_BETA, &v), LATMC_OK);
    assert_true(v == 0.3); /* unchanged by the failures */
    assert_int_equal(latmc_sim_get_param(s, LATMC_PARAM_H, &v), LATMC_OK);
    assert_true(v == 0.1);
    assert_int_equal(latmc_sim_get_param(s, 99, &v), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_param(s, LATMC_PARAM_G, &v), LATMC_EUNSUPPORTED);
}

static void parameter_names(void **state)
{
    (void)state;
    const char *names[] = { "beta", "J", "h", "mu2", "g", "lambda", "epsilon", "nhit", "nloc",
                            "nover", "decisions" };
    for (int i = 0; i < 11; i++) {
        int key = -1;
        assert_int_equal(latmc_param_by_name(names[i], &key), LATMC_OK);
        assert_int_equal(key, i + 1);
        assert_string_equal(latmc_param_name(key), names[i]);
    }
    const char *bad[] = { "", "Beta", "BETA", "j", "beta ", "temperature" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int key = 42;
        assert_int_equal(latmc_param_by_name(bad[i], &key), LATMC_EINVAL);
        assert_int_equal(key, 42);
    }
    assert_null(latmc_param_name(0));
    assert_null(latmc_param_name(12));
    assert_null(latmc_param_name(-1));
    assert_null(latmc_observable_name(0));
    assert_null(latmc_observable_name(LATMC_OBS_OVERLAP2_KMIN + 1));
    assert_string_equal(latmc_observable_name(LATMC_OBS_ENERGY), "energy");
}

/* Calls in the wrong state: before any configuration exists. */
static void wrong_state(void **state)
{
    struct fixture *f = *state;
    latmc_sim *s = f->sim;
    double v = 12345;
    int8_t buf[16];
    assert_int_equal(latmc_sim_sweep(s, 1), LATMC_ESTATE);
    assert_non_null(strstr(latmc_sim_last_error(s), "configuration"));
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ENERGY, &v), LATMC_ESTATE);
    assert_true(v == 12345);
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &v), LATMC_ESTATE);
    assert_int_equal(latmc_sim_get_spins(s, buf, sizeof buf), LATMC_ESTATE);
    uint64_t count = 99;
    assert_int_equal(latmc_sim_sweep_count(s, &count), LATMC_OK);
    assert_int_equal(count, 0);
    /* A configuration, but nothing attempted since the reset: acceptance undefined. */
    assert_int_equal(latmc_sim_init_spins(s, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &v), LATMC_ESTATE);
    assert_int_equal(latmc_sim_sweep(s, 0), LATMC_OK);
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &v), LATMC_ESTATE);
    assert_int_equal(latmc_sim_sweep(s, 2), LATMC_OK);
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &v), LATMC_OK);
    assert_int_equal(latmc_sim_reset_acceptance(s), LATMC_OK);
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &v), LATMC_ESTATE);
}

static void bad_observables_and_init(void **state)
{
    struct fixture *f = *state;
    latmc_sim *s = f->sim;
    double v;
    assert_int_equal(latmc_sim_init_spins(s, 2), LATMC_EINVAL);
    assert_int_equal(latmc_sim_init_spins(s, -1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_init_spins(s, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_observable(s, 0, &v), LATMC_EINVAL);
    assert_int_equal(latmc_sim_observable(s, 99, &v), LATMC_EINVAL);
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_PHI2, &v), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_observable(s, LATMC_OBS_OVERLAP2, &v), LATMC_EUNSUPPORTED);
}

static void bad_spin_buffers(void **state)
{
    struct fixture *f = *state;
    latmc_sim *s = f->sim;
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(s, &n), LATMC_OK);
    assert_int_equal(n, 16);
    int8_t buf[32];
    memset(buf, 1, sizeof buf);
    assert_int_equal(latmc_sim_set_spins(s, buf, 16), LATMC_OK);
    const size_t wrong[] = { 0, 1, 15, 17, 32, SIZE_MAX };
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        assert_int_equal(latmc_sim_set_spins(s, buf, wrong[i]), LATMC_EINVAL);
        assert_int_equal(latmc_sim_get_spins(s, buf, wrong[i]), LATMC_EINVAL);
    }
    /* Invalid spin values: refused, nothing changes. */
    const int8_t bad_values[] = { 0, 2, -2, 127, -128 };
    for (size_t i = 0; i < sizeof bad_values; i++) {
        int8_t in[16];
        memset(in, -1, sizeof in);
        in[7] = bad_values[i];
        assert_int_equal(latmc_sim_set_spins(s, in, sizeof in), LATMC_EINVAL);
        assert_non_null(strstr(latmc_sim_last_error(s), "entry 7"));
        int8_t out[16];
        assert_int_equal(latmc_sim_get_spins(s, out, sizeof out), LATMC_OK);
        for (int k = 0; k < 16; k++)
            assert_int_equal(out[k], 1);
    }
}

static void checkpoint_bad_paths(void **state)
{
    struct fixture *f = *state;
    latmc_sim *loaded = (latmc_sim *)(uintptr_t)1;
    assert_int_equal(latmc_sim_save(f->sim, "/nonexistent-dir/x.ckpt"), LATMC_EIO);
    assert_non_null(strstr(latmc_sim_last_error(f->sim), "/nonexistent-dir/x.ckpt.tmp"));
    assert_int_equal(latmc_sim_load(f->ctx, "/nonexistent-dir/x.ckpt", &loaded), LATMC_EIO);
    assert_null(loaded);
    size_t size = 0;
    assert_int_equal(latmc_sim_serialize(NULL, NULL, 0, &size), LATMC_EINVAL);
    assert_int_equal(latmc_sim_serialize(f->sim, NULL, 0, NULL), LATMC_EINVAL);
    unsigned char small[8];
    assert_int_equal(latmc_sim_serialize(f->sim, NULL, 0, &size), LATMC_OK);
    assert_true(size > sizeof small);
    assert_int_equal(latmc_sim_serialize(f->sim, small, sizeof small, &size), LATMC_EINVAL);
    loaded = (latmc_sim *)(uintptr_t)1;
    assert_int_equal(latmc_sim_deserialize(NULL, small, sizeof small, &loaded), LATMC_EINVAL);
    assert_null(loaded);
    assert_int_equal(latmc_sim_deserialize(f->ctx, NULL, 8, &loaded), LATMC_EINVAL);
    assert_int_equal(latmc_sim_deserialize(f->ctx, small, sizeof small, NULL), LATMC_EINVAL);
    memset(small, 0, sizeof small);
    assert_int_equal(latmc_sim_deserialize(f->ctx, small, sizeof small, &loaded), LATMC_ECORRUPT);
    assert_null(loaded);
}

/* Couplings and epsilon tuning belong to other models: refused on Ising, NULLs caught. */
static void model_specific_calls(void **state)
{
    struct fixture *f = *state;
    size_t count = 99;
    float j[32] = { 0 };
    assert_int_equal(latmc_sim_couplings_size(NULL, &count), LATMC_EINVAL);
    assert_int_equal(latmc_sim_couplings_size(f->sim, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_couplings_size(f->sim, &count), LATMC_EUNSUPPORTED);
    assert_int_equal(count, 99);
    /* A const call's failure is the calling thread's message, not the sim's. */
    assert_non_null(strstr(latmc_last_error(), "Ising"));
    assert_int_equal(latmc_sim_get_couplings(NULL, j, 32), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_couplings(f->sim, j, 32), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_set_couplings(NULL, j, 32), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_couplings(f->sim, j, 32), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_tune_epsilon(NULL, 0.5, 10), LATMC_EINVAL);
    assert_int_equal(latmc_sim_tune_epsilon(f->sim, 0.5, 10), LATMC_EUNSUPPORTED);
    assert_non_null(strstr(latmc_sim_last_error(f->sim), "epsilon"));
}

static void status_strings(void **state)
{
    (void)state;
    const int codes[] = { LATMC_OK, LATMC_EINVAL, LATMC_EUNSUPPORTED, LATMC_EBACKEND,
                          LATMC_ENODEV, LATMC_EDEVICE, LATMC_ENOMEM, LATMC_EIO, LATMC_ECORRUPT,
                          LATMC_ESTATE, LATMC_ECANCELLED };
    /* Explicit numbers are ABI: they must never move. */
    for (int i = 0; i < 11; i++)
        assert_int_equal(codes[i], -i);
    for (int i = 0; i < 11; i++) {
        assert_non_null(latmc_strerror(codes[i]));
        assert_string_not_equal(latmc_strerror(codes[i]), "unknown status");
        for (int j = 0; j < i; j++)
            assert_string_not_equal(latmc_strerror(codes[i]), latmc_strerror(codes[j]));
    }
    assert_string_equal(latmc_strerror(1), "unknown status");
    assert_string_equal(latmc_strerror(-11), "unknown status");
    assert_string_equal(latmc_strerror(INT32_MIN), "unknown status");
}

struct log_record {
    int calls;
    int last_level;
    char last[512];
};

static void record_log(void *user, int level, const char *msg)
{
    struct log_record *r = user;
    r->calls++;
    r->last_level = level;
    strncpy(r->last, msg, sizeof r->last - 1);
}

static void logging(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    struct log_record rec = { 0, -1, "" };
    latmc_sim_desc d = ising_desc(1, 4, 4, 0, 0, 1, 1); /* ndim 1: fails */
    latmc_sim *sim = NULL;
    /* Silent by default: nothing to observe but the absence of a crash or output. */
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EINVAL);
    /* Refusals are logged at DEBUG: filtered at INFO, delivered at DEBUG. */
    latmc_ctx_set_log(ctx, record_log, &rec, LATMC_LOG_INFO);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EINVAL);
    assert_int_equal(rec.calls, 0);
    latmc_ctx_set_log(ctx, record_log, &rec, LATMC_LOG_DEBUG);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EINVAL);
    assert_int_equal(rec.calls, 1);
    assert_int_equal(rec.last_level, LATMC_LOG_DEBUG);
    assert_non_null(strstr(rec.last, "ndim"));
    /* AUTO logs its choice at INFO: filtered at WARN, delivered at INFO. */
    d = ising_desc(2, 4, 4, 0, 0, 1, 1);
    d.device = LATMC_DEVICE_AUTO;
    latmc_ctx_set_log(ctx, record_log, &rec, LATMC_LOG_WARN);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(rec.calls, 1);
    latmc_sim_destroy(&sim);
    latmc_ctx_set_log(ctx, record_log, &rec, LATMC_LOG_INFO);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(rec.calls, 2);
    assert_int_equal(rec.last_level, LATMC_LOG_INFO);
    assert_non_null(strstr(rec.last, "CUDA"));
    /* A failure of a file operation reaches the log at ERROR. */
    latmc_ctx_set_log(ctx, record_log, &rec, LATMC_LOG_ERROR);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_ESTATE);
    assert_int_equal(rec.calls, 2);
    assert_int_equal(latmc_sim_save(sim, "/nonexistent-dir/c.ckpt"), LATMC_EIO);
    assert_int_equal(rec.calls, 3);
    assert_int_equal(rec.last_level, LATMC_LOG_ERROR);
    latmc_ctx_set_log(ctx, NULL, NULL, LATMC_LOG_DEBUG);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_ESTATE);
    assert_int_equal(rec.calls, 3);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    assert_null(ctx);
}

/* Destroying the ctx first is safe: each sim keeps it alive. */
static void ctx_outlived_by_sim(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, 0, 1, 3);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    latmc_ctx_destroy(&ctx);
    assert_null(ctx);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
    latmc_sim_destroy(&sim);
    assert_null(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(null_arguments, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_model_and_dimension, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_extents, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_desc_fields, setup, teardown),
        cmocka_unit_test_setup_teardown(larger_desc_from_newer_headers, setup, teardown),
        cmocka_unit_test_setup_teardown(devices, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_parameters, setup, teardown),
        cmocka_unit_test(parameter_names),
        cmocka_unit_test_setup_teardown(wrong_state, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_observables_and_init, setup, teardown),
        cmocka_unit_test_setup_teardown(bad_spin_buffers, setup, teardown),
        cmocka_unit_test_setup_teardown(checkpoint_bad_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(model_specific_calls, setup, teardown),
        cmocka_unit_test(status_strings),
        cmocka_unit_test(logging),
        cmocka_unit_test(ctx_outlived_by_sim),
    };
    return cmocka_run_group_tests_name("api_errors", tests, NULL, NULL);
}
