/*
 * The misuse suite (issue 13): every public function of liblatmc (every latmc_* symbol
 * `nm -D` lists; tests/robustness/check-misuse-covers.sh fails when one is not named here) called with NULL pointers, bad sizes, bad enum values,
 * NaN/Inf, and in the wrong order. Each failing call must return the documented code and
 * leave a non-empty message (the thread's latmc_last_error(), and the sim's own for calls
 * that may modify a sim); void functions must accept NULL; nothing may crash, print or exit.
 * At the end every failure code the API documents must have been seen (EDEVICE comes from a
 * module: test_bad_module and test_cuda_faults; ECANCELLED is reserved and never returned).
 * Runs with LATMC_MODULE_PATH at an empty directory (no CUDA module).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../fuzz/ckpt_format.h"
#include "sim_helpers.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define UNDER_SANITIZER 1
#else
#  define UNDER_SANITIZER 0
#endif

static bool seen[16]; /* seen[-code] */
static bool cuda_usable;

/* Call, compare with the expected code, and for a failure check the thread's message. */
#define EXPECT(call, code)                                                                  \
    do {                                                                                    \
        const int got_ = (call);                                                            \
        if (got_ != (code))                                                                 \
            print_error("%s:%d: %s gave %d (%s), expected %d\n", __FILE__, __LINE__, #call, \
                        got_, latmc_last_error(), (code));                                  \
        assert_int_equal(got_, (code));                                                     \
        if ((code) < 0) {                                                                   \
            assert_true(strlen(latmc_last_error()) > 0);                                    \
            seen[-(code)] = true;                                                           \
        }                                                                                   \
    } while (0)

/* As EXPECT for a non-const call on a sim: the sim's own message is set too. */
/* The same, and the message names the function called (not one it calls inside). */
#define EXPECT_NAMED(fn, call, code)                                                        \
    do {                                                                                    \
        EXPECT(call, code);                                                                 \
        if (strncmp(latmc_last_error(), fn ": ", strlen(fn ": ")) != 0)                     \
            fail_msg("%s:%d: %s: the message '%s' does not name %s", __FILE__, __LINE__,    \
                     #call, latmc_last_error(), fn);                                        \
    } while (0)

#define EXPECT_SIM(sim, call, code)                                                         \
    do {                                                                                    \
        EXPECT(call, code);                                                                 \
        if ((code) < 0)                                                                     \
            assert_true(strlen(latmc_sim_last_error(sim)) > 0);                             \
    } while (0)

static latmc_ctx *ctx;
static char tmpdir[64];

static latmc_sim_desc desc_of(int model)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.extent[0] = d.extent[1] = 8;
    d.q = 3;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 11;
    return d;
}

static latmc_sim *sim_of(int model, int couplings, int replicas)
{
    latmc_sim_desc d = desc_of(model);
    if (model == LATMC_MODEL_POTTS)
        d.extent[0] = d.extent[1] = 6;
    d.couplings = couplings;
    d.replicas = replicas;
    latmc_sim *s = NULL;
    EXPECT(latmc_sim_create(ctx, &d, &s), LATMC_OK);
    return s;
}

static void ctx_and_process_calls(void **state)
{
    (void)state;
    EXPECT(latmc_ctx_create(NULL), LATMC_EINVAL);
    latmc_ctx_destroy(NULL);
    latmc_ctx *none = NULL;
    latmc_ctx_destroy(&none);
    latmc_ctx_set_log(NULL, NULL, NULL, LATMC_LOG_DEBUG);
    latmc_ctx_set_log(ctx, NULL, NULL, 12345); /* min_level is not checked: no crash */
    latmc_ctx_set_log(ctx, NULL, NULL, LATMC_LOG_NONE);
    assert_non_null(latmc_last_error());
    assert_non_null(latmc_version_string());
    assert_string_equal(latmc_strerror(12345), "unknown status");
    for (int c = 0; c >= -10; c--)
        assert_true(strlen(latmc_strerror(c)) > 0);

    int count = -7;
    EXPECT(latmc_ctx_device_count(NULL, LATMC_DEVICE_CPU, &count), LATMC_EINVAL);
    EXPECT(latmc_ctx_device_count(ctx, LATMC_DEVICE_CPU, NULL), LATMC_EINVAL);
    EXPECT(latmc_ctx_device_count(ctx, LATMC_DEVICE_AUTO, &count), LATMC_EINVAL);
    EXPECT(latmc_ctx_device_count(ctx, 99, &count), LATMC_EINVAL);
    EXPECT(latmc_ctx_device_count(ctx, LATMC_DEVICE_CPU, &count), LATMC_OK);
    assert_int_equal(count, 1);
    cuda_usable = latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count) == LATMC_OK;
    if (!cuda_usable)
        EXPECT(latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count), LATMC_EBACKEND);

    latmc_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    EXPECT(latmc_ctx_device_info(NULL, LATMC_DEVICE_CPU, 0, &info), LATMC_EINVAL);
    EXPECT(latmc_ctx_device_info(ctx, LATMC_DEVICE_CPU, 0, NULL), LATMC_EINVAL);
    EXPECT_NAMED("latmc_ctx_device_info", latmc_ctx_device_info(ctx, 99, 0, &info),
                 LATMC_EINVAL);
    EXPECT(latmc_ctx_device_info(ctx, LATMC_DEVICE_CPU, 1, &info), LATMC_ENODEV);
    EXPECT(latmc_ctx_device_info(ctx, LATMC_DEVICE_CPU, -1, &info), LATMC_ENODEV);
    info.struct_size = 8;
    EXPECT(latmc_ctx_device_info(ctx, LATMC_DEVICE_CPU, 0, &info), LATMC_EINVAL);
    info.struct_size = 0xFFFFFFFFu; /* a lie: refused without touching past the struct */
    EXPECT(latmc_ctx_device_info(ctx, LATMC_DEVICE_CPU, 0, &info), LATMC_EINVAL);
    info.struct_size = sizeof info;
    EXPECT(latmc_ctx_device_info(ctx, LATMC_DEVICE_CPU, 0, &info), LATMC_OK);
    if (!cuda_usable)
        EXPECT_NAMED("latmc_ctx_device_info",
                     latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 0, &info), LATMC_EBACKEND);

    int can = -1;
    EXPECT(latmc_ctx_device_peer(NULL, LATMC_DEVICE_CPU, 0, 0, &can), LATMC_EINVAL);
    EXPECT(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, 0, 0, NULL), LATMC_EINVAL);
    EXPECT_NAMED("latmc_ctx_device_peer", latmc_ctx_device_peer(ctx, 99, 0, 0, &can),
                 LATMC_EINVAL);
    EXPECT(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, 0, 1, &can), LATMC_ENODEV);
    EXPECT(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, -1, 0, &can), LATMC_ENODEV);
    EXPECT(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, 0, 0, &can), LATMC_OK);
    assert_int_equal(can, 1);
    if (!cuda_usable)
        EXPECT(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CUDA, 0, 0, &can), LATMC_EBACKEND);

    assert_string_equal(latmc_ctx_backend_status(NULL, 99), "unknown device kind");
    assert_true(strlen(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CPU)) > 0);
    assert_true(strlen(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA)) > 0);

    int key = -5;
    EXPECT(latmc_param_by_name(NULL, &key), LATMC_EINVAL);
    EXPECT(latmc_param_by_name("beta", NULL), LATMC_EINVAL);
    EXPECT(latmc_param_by_name("Beta", &key), LATMC_EINVAL);
    EXPECT(latmc_param_by_name("", &key), LATMC_EINVAL);
    assert_int_equal(key, -5);
    assert_null(latmc_param_name(0));
    assert_null(latmc_param_name(12));
    assert_null(latmc_param_name(-1));
    assert_null(latmc_observable_name(0));
    assert_null(latmc_observable_name(LATMC_OBS_OVERLAP2_KMIN + 1));
    int model = -5;
    EXPECT(latmc_model_by_name(NULL, &model), LATMC_EINVAL);
    EXPECT(latmc_model_by_name("ising", NULL), LATMC_EINVAL);
    EXPECT(latmc_model_by_name("Ising", &model), LATMC_EINVAL);
    EXPECT(latmc_model_by_name("", &model), LATMC_EINVAL);
    assert_int_equal(model, -5);
    assert_null(latmc_model_name(0));
    assert_null(latmc_model_name(-1));
    assert_null(latmc_model_name(1000));
    double lo, hi;
    EXPECT(latmc_param_bounds(LATMC_MODEL_ISING, LATMC_PARAM_G, &lo, &hi), LATMC_EUNSUPPORTED);
    EXPECT(latmc_param_bounds(-3, LATMC_PARAM_BETA, &lo, &hi), LATMC_EINVAL);
    latmc_sim_desc_init(NULL);
    (latmc_sim_desc_init)(NULL); /* the 0.1 function itself, not the macro */
    EXPECT(latmc_sim_desc_init_size(NULL, sizeof(latmc_sim_desc)), LATMC_EINVAL);
    latmc_sim_desc d;
    EXPECT(latmc_sim_desc_init_size(&d, 3), LATMC_EINVAL);
}

static void create_refusals(void **state)
{
    (void)state;
    latmc_sim *s = (latmc_sim *)&s; /* set to NULL on failure */
    latmc_sim_desc d = desc_of(LATMC_MODEL_ISING);
    EXPECT(latmc_sim_create(NULL, &d, &s), LATMC_EINVAL);
    assert_null(s);
    EXPECT(latmc_sim_create(ctx, NULL, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_create(ctx, &d, NULL), LATMC_EINVAL);

    /* struct_size: too small; a lie far past the struct (refused before reading past it);
     * a larger struct whose unknown tail is zero (accepted) or not (unsupported). */
    struct { latmc_sim_desc d; unsigned char tail[64]; } big;
    memset(&big, 0, sizeof big);
    big.d = d;
    big.d.struct_size = 4;
    EXPECT(latmc_sim_create(ctx, &big.d, &s), LATMC_EINVAL);
    big.d.struct_size = 0x7FFFFFFFu;
    EXPECT(latmc_sim_create(ctx, &big.d, &s), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "4096"));
    big.d.struct_size = 4097;
    EXPECT(latmc_sim_create(ctx, &big.d, &s), LATMC_EINVAL);
    big.d.struct_size = (uint32_t)sizeof big;
    EXPECT(latmc_sim_create(ctx, &big.d, &s), LATMC_OK);
    latmc_sim_destroy(&s);
    big.tail[40] = 1;
    EXPECT(latmc_sim_create(ctx, &big.d, &s), LATMC_EUNSUPPORTED);

    const struct { const char *what; int field, value, code; } cases[] = {
        { "model NONE", 0, LATMC_MODEL_NONE, LATMC_EINVAL },
        { "model 99", 0, 99, LATMC_EINVAL },
        { "ndim 4", 1, 4, LATMC_EINVAL },
        { "ndim 1", 1, 1, LATMC_EINVAL },
        { "extent 1", 2, 1, LATMC_EINVAL },
        { "extent odd", 2, 7, LATMC_EINVAL },
        { "extent -8", 2, -8, LATMC_EINVAL },
        { "algorithm 99", 3, 99, LATMC_EINVAL },
        { "algorithm -1", 3, -1, LATMC_EINVAL },
        { "overrelax for Ising", 3, LATMC_ALGO_OVERRELAX, LATMC_EUNSUPPORTED },
        { "precision 5", 4, 5, LATMC_EINVAL },
        { "couplings 9", 5, 9, LATMC_EINVAL },
        { "couplings GAUSSIAN for Ising", 5, LATMC_COUPLINGS_GAUSSIAN, LATMC_EINVAL },
        { "replicas 3", 6, 3, LATMC_EINVAL },
        { "replicas 0", 6, 0, LATMC_EINVAL },
        { "replicas 2 for Ising", 6, 2, LATMC_EUNSUPPORTED },
        { "device 9", 7, 9, LATMC_EINVAL },
        { "device_index -1", 8, -1, LATMC_ENODEV },
        { "CPU device_index 1", 8, 1, LATMC_ENODEV },
        { "n_threads -1", 9, -1, LATMC_EINVAL },
        { "n_threads 5000", 9, 5000, LATMC_EINVAL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        latmc_sim_desc c = desc_of(LATMC_MODEL_ISING);
        switch (cases[i].field) {
        case 0: c.model = cases[i].value; break;
        case 1: c.ndim = cases[i].value; break;
        case 2: c.extent[1] = cases[i].value; break;
        case 3: c.algorithm = cases[i].value; break;
        case 4: c.precision = cases[i].value; break;
        case 5: c.couplings = cases[i].value; break;
        case 6: c.replicas = cases[i].value; break;
        case 7: c.device = cases[i].value; break;
        case 8: c.device_index = cases[i].value; break;
        case 9: c.n_threads = cases[i].value; break;
        }
        print_message("create with %s\n", cases[i].what);
        EXPECT(latmc_sim_create(ctx, &c, &s), cases[i].code);
        assert_null(s);
    }
    latmc_sim_desc c = desc_of(LATMC_MODEL_ISING);
    c.extent[0] = c.extent[1] = INT64_C(1) << 31;
    EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_EINVAL);
    c = desc_of(LATMC_MODEL_ISING);
    c.extent[3] = 5; /* unused extent */
    EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_EINVAL);
    c = desc_of(LATMC_MODEL_POTTS);
    c.q = 256;
    EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_EINVAL);
    c.q = 1;
    EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_EINVAL);
    c = desc_of(LATMC_MODEL_PHI4);
    c.extent[0] = c.extent[1] = 12; /* no colouring */
    EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_EINVAL);
    /* AUTO with an index no device has (issue 13 item 8): refused like the CPU does. */
    c = desc_of(LATMC_MODEL_ISING);
    c.device = LATMC_DEVICE_AUTO;
    c.device_index = 5;
    EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_ENODEV);
    c.device_index = 0;
    EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_OK);
    latmc_sim_destroy(&s);
    if (!cuda_usable) {
        c.device = LATMC_DEVICE_CUDA;
        EXPECT(latmc_sim_create(ctx, &c, &s), LATMC_EBACKEND);
    }
}

static void null_sim(void **state)
{
    (void)state;
    latmc_sim_desc d;
    uint64_t u;
    double v;
    size_t n;
    float f[4];
    char b[16];
    latmc_sim_destroy(NULL);
    latmc_sim *none = NULL;
    latmc_sim_destroy(&none);
    assert_string_equal(latmc_sim_backend_name(NULL), "none");
    assert_string_equal(latmc_sim_last_error(NULL), "sim is NULL");
    EXPECT(latmc_sim_get_desc(NULL, &d), LATMC_EINVAL);
    EXPECT(latmc_sim_set_parts(NULL, 2), LATMC_EINVAL);
    EXPECT(latmc_sim_set_param(NULL, LATMC_PARAM_BETA, 0.1), LATMC_EINVAL);
    EXPECT(latmc_sim_get_param(NULL, LATMC_PARAM_BETA, &v), LATMC_EINVAL);
    EXPECT(latmc_sim_init_spins(NULL, LATMC_INIT_HOT), LATMC_EINVAL);
    EXPECT(latmc_sim_sweep(NULL, 1), LATMC_EINVAL);
    EXPECT(latmc_sim_sweep_count(NULL, &u), LATMC_EINVAL);
    EXPECT(latmc_sim_observable(NULL, LATMC_OBS_ENERGY, &v), LATMC_EINVAL);
    EXPECT(latmc_sim_acceptance_counts(NULL, &u, &u), LATMC_EINVAL);
    EXPECT(latmc_sim_reset_acceptance(NULL), LATMC_EINVAL);
    EXPECT(latmc_sim_spins_size(NULL, &n), LATMC_EINVAL);
    EXPECT(latmc_sim_get_spins(NULL, b, sizeof b), LATMC_EINVAL);
    EXPECT(latmc_sim_set_spins(NULL, b, sizeof b), LATMC_EINVAL);
    EXPECT(latmc_sim_couplings_size(NULL, &n), LATMC_EINVAL);
    EXPECT(latmc_sim_get_couplings(NULL, f, 4), LATMC_EINVAL);
    EXPECT(latmc_sim_set_couplings(NULL, f, 4), LATMC_EINVAL);
    EXPECT(latmc_sim_tune_epsilon(NULL, 0.5, 10), LATMC_EINVAL);
    EXPECT(latmc_sim_save(NULL, "x"), LATMC_EINVAL);
    EXPECT(latmc_sim_serialize(NULL, NULL, 0, &n), LATMC_EINVAL);
    latmc_sim *s = NULL;
    EXPECT(latmc_sim_load(NULL, "x", &s), LATMC_EINVAL);
    EXPECT(latmc_sim_load(ctx, NULL, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_load(ctx, "x", NULL), LATMC_EINVAL);
    EXPECT(latmc_sim_deserialize(NULL, b, sizeof b, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_deserialize(ctx, NULL, sizeof b, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_deserialize(ctx, b, sizeof b, NULL), LATMC_EINVAL);
    latmc_sim_desc where;
    latmc_sim_desc_init(&where);
    EXPECT(latmc_sim_load_on(NULL, "x", &where, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_load_on(ctx, NULL, &where, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_load_on(ctx, "x", NULL, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_load_on(ctx, "x", &where, NULL), LATMC_EINVAL);
    EXPECT(latmc_sim_deserialize_on(NULL, b, sizeof b, &where, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_deserialize_on(ctx, NULL, sizeof b, &where, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_deserialize_on(ctx, b, sizeof b, NULL, &s), LATMC_EINVAL);
    EXPECT(latmc_sim_deserialize_on(ctx, b, sizeof b, &where, NULL), LATMC_EINVAL);
}

static void sim_calls(void **state)
{
    (void)state;
    latmc_sim *s = sim_of(LATMC_MODEL_ISING, LATMC_COUPLINGS_UNIFORM, 1);
    double v;
    uint64_t u, a;
    size_t n;
    int8_t spins[64];
    float f[128];
    /* Wrong order: nothing to sweep, measure or read yet. */
    EXPECT_SIM(s, latmc_sim_sweep(s, 1), LATMC_ESTATE);
    EXPECT_SIM(s, latmc_sim_sweep(s, 0), LATMC_ESTATE);
    EXPECT_SIM(s, latmc_sim_observable(s, LATMC_OBS_ENERGY, &v), LATMC_ESTATE);
    EXPECT_SIM(s, latmc_sim_get_spins(s, spins, sizeof spins), LATMC_ESTATE);
    EXPECT_SIM(s, latmc_sim_observable(s, LATMC_OBS_ACCEPTANCE, &v), LATMC_ESTATE);
    /* Parameters. */
    EXPECT_SIM(s, latmc_sim_set_param(s, 0, 1.0), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, 99, 1.0), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_BETA, NAN), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_BETA, INFINITY), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_H, -INFINITY), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_J, 1e300), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_MU2, 1.0), LATMC_EUNSUPPORTED);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_NOVER, 1.0), LATMC_EUNSUPPORTED);
    /* the key's refusals name the function called */
    EXPECT_NAMED("latmc_sim_set_param", latmc_sim_set_param(s, 99, 1.0), LATMC_EINVAL);
    EXPECT_NAMED("latmc_sim_set_param", latmc_sim_set_param(s, LATMC_PARAM_MU2, 1.0),
                 LATMC_EUNSUPPORTED);
    EXPECT_NAMED("latmc_sim_get_param", latmc_sim_get_param(s, -1, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_sim_get_param", latmc_sim_get_param(s, LATMC_PARAM_NOVER, &v),
                 LATMC_EUNSUPPORTED);
    EXPECT(latmc_sim_get_param(s, LATMC_PARAM_BETA, NULL), LATMC_EINVAL);
    EXPECT(latmc_sim_get_param(s, 42, &v), LATMC_EINVAL);
    EXPECT(latmc_sim_get_param(s, LATMC_PARAM_EPSILON, &v), LATMC_EUNSUPPORTED);
    EXPECT(latmc_sim_get_desc(s, NULL), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_parts(s, -1), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_parts(s, 1 << 20), LATMC_EINVAL); /* more parts than planes */
    EXPECT(latmc_sim_sweep_count(s, NULL), LATMC_EINVAL);
    EXPECT(latmc_sim_acceptance_counts(s, NULL, &a), LATMC_EINVAL);
    EXPECT(latmc_sim_acceptance_counts(s, &u, NULL), LATMC_EINVAL);
    EXPECT(latmc_sim_spins_size(s, NULL), LATMC_EINVAL);
    /* Configurations. */
    EXPECT_SIM(s, latmc_sim_init_spins(s, 2), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_init_spins(s, -1), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_spins(s, NULL, sizeof spins), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_spins(s, spins, sizeof spins - 1), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_spins(s, spins, SIZE_MAX), LATMC_EINVAL);
    memset(spins, 1, sizeof spins);
    spins[9] = 0;
    EXPECT_SIM(s, latmc_sim_set_spins(s, spins, sizeof spins), LATMC_EINVAL);
    spins[9] = 1;
    EXPECT_SIM(s, latmc_sim_set_spins(s, spins, sizeof spins), LATMC_OK);
    EXPECT_SIM(s, latmc_sim_get_spins(s, NULL, sizeof spins), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_get_spins(s, spins, 0), LATMC_EINVAL);
    /* Observables. */
    EXPECT_SIM(s, latmc_sim_observable(s, LATMC_OBS_ENERGY, NULL), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_observable(s, 0, &v), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_observable(s, 99, &v), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_observable(s, LATMC_OBS_PHI2, &v), LATMC_EUNSUPPORTED);
    EXPECT_SIM(s, latmc_sim_observable(s, LATMC_OBS_OVERLAP2, &v), LATMC_EUNSUPPORTED);
    EXPECT_SIM(s, latmc_sim_observable(s, LATMC_OBS_ENERGY, &v), LATMC_OK);
    /* Sweeps beyond what the counters can name. */
    EXPECT_SIM(s, latmc_sim_sweep(s, UINT64_MAX), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_sweep(s, 1), LATMC_OK);
    EXPECT(latmc_sim_reset_acceptance(s), LATMC_OK);
    /* Couplings and tuning do not belong to uniform Ising. */
    EXPECT(latmc_sim_couplings_size(s, NULL), LATMC_EINVAL);
    EXPECT(latmc_sim_couplings_size(s, &n), LATMC_EUNSUPPORTED);
    EXPECT_SIM(s, latmc_sim_get_couplings(s, f, 128), LATMC_EUNSUPPORTED);
    EXPECT_SIM(s, latmc_sim_set_couplings(s, f, 128), LATMC_EUNSUPPORTED);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, 0.5, 10), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&s);
    assert_null(s);

    /* Couplings: +-J Ising takes exactly +-1, Heisenberg any finite value. */
    s = sim_of(LATMC_MODEL_ISING, LATMC_COUPLINGS_BIMODAL, 1);
    EXPECT(latmc_sim_couplings_size(s, &n), LATMC_OK);
    assert_int_equal(n, 128);
    EXPECT_SIM(s, latmc_sim_get_couplings(s, NULL, 128), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_get_couplings(s, f, 127), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_get_couplings(s, f, 128), LATMC_OK);
    f[3] = 0.5f;
    EXPECT_SIM(s, latmc_sim_set_couplings(s, f, 128), LATMC_EINVAL);
    f[3] = NAN;
    EXPECT_SIM(s, latmc_sim_set_couplings(s, f, 128), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_couplings(s, NULL, 128), LATMC_EINVAL);
    latmc_sim_destroy(&s);
    s = sim_of(LATMC_MODEL_HEISENBERG, LATMC_COUPLINGS_GAUSSIAN, 2);
    EXPECT_SIM(s, latmc_sim_get_couplings(s, f, 128), LATMC_OK);
    f[5] = INFINITY;
    EXPECT_SIM(s, latmc_sim_set_couplings(s, f, 128), LATMC_EINVAL);
    f[5] = 1e30f;
    EXPECT_SIM(s, latmc_sim_set_couplings(s, f, 128), LATMC_OK);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_NOVER, 2.5), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_NOVER, 65536), LATMC_EINVAL);
    latmc_sim_destroy(&s);

    /* Potts values below q; phi^4 tuning targets. */
    s = sim_of(LATMC_MODEL_POTTS, LATMC_COUPLINGS_UNIFORM, 1);
    uint8_t p[36] = { 0 };
    p[35] = 3;
    EXPECT_SIM(s, latmc_sim_set_spins(s, p, sizeof p), LATMC_EINVAL);
    latmc_sim_destroy(&s);
    s = sim_of(LATMC_MODEL_PHI4, LATMC_COUPLINGS_UNIFORM, 1);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, 0.0, 10), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, 1.0, 10), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, NAN, 10), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, 0.5, 10), LATMC_ESTATE); /* no configuration */
    EXPECT_SIM(s, latmc_sim_init_spins(s, LATMC_INIT_COLD), LATMC_OK);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, 0.5, 10), LATMC_ESTATE); /* g = 0, mu2 = 0 */
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_G, 1.0), LATMC_OK);
    /* more sweeps than the counters name: refused at once, none run (tuning sweeps in
     * blocks of 10, each of which latmc_sim_sweep would take: the alarm fails a call
     * that sweeps instead) */
    uint64_t count = 1;
    alarm(60);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, 0.5, UINT64_MAX), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_tune_epsilon(s, 0.5, (UINT64_C(1) << 48) + 1),
               LATMC_EINVAL);
    alarm(0);
    EXPECT_SIM(s, latmc_sim_sweep_count(s, &count), LATMC_OK);
    assert_true(count == 0);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_G, -1e-300), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_LAMBDA, 0.0), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_EPSILON, 0.0), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_NHIT, 0.0), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_NLOC, 1e9), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_set_param(s, LATMC_PARAM_BETA, 1.0), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&s);
}

/* A sim's serialization with its acceptance counters set to accepted of attempted (the
 * u64 fields 28 and 20 bytes before the configuration, ckpt_format.h), resealed. */
static latmc_sim *with_counters(latmc_sim *s, uint64_t accepted, uint64_t attempted)
{
    size_t n = 0;
    EXPECT(latmc_sim_serialize(s, NULL, 0, &n), LATMC_OK);
    unsigned char *buf = malloc(n);
    assert_non_null(buf);
    EXPECT(latmc_sim_serialize(s, buf, n, &n), LATMC_OK);
    const size_t cfg = ckpt_config_offset(buf);
    ckpt_put_le(buf + cfg - 28, accepted, 8);
    ckpt_put_le(buf + cfg - 20, attempted, 8);
    ckpt_reseal(buf, n);
    latmc_sim *back = NULL;
    EXPECT(latmc_sim_deserialize(ctx, buf, n, &back), LATMC_OK);
    free(buf);
    return back;
}

/* What a sweep may change, for comparison before and after a refusal. */
struct sim_snapshot {
    uint64_t sweeps, accepted, attempted;
    int8_t spins[64];
};

static struct sim_snapshot snapshot(latmc_sim *s)
{
    struct sim_snapshot z;
    memset(&z, 0, sizeof z);
    EXPECT(latmc_sim_sweep_count(s, &z.sweeps), LATMC_OK);
    EXPECT(latmc_sim_acceptance_counts(s, &z.accepted, &z.attempted), LATMC_OK);
    EXPECT(latmc_sim_get_spins(s, z.spins, sizeof z.spins), LATMC_OK);
    return z;
}

/* latmc_sim_sweep refuses a sim holding more than 2^62 attempted updates (the loader takes
 * up to 2^63, so that whatever a sim saves loads again): at 2^62 a sweep runs and passes
 * it, the file it then writes loads, and the next sweep is refused (LATMC_ESTATE, the
 * message naming latmc_sim_reset_acceptance) with nothing changed. */
static void sweep_past_the_counters_bound(void **state)
{
    (void)state;
    const uint64_t bound = UINT64_C(1) << 62;
    latmc_sim *s = sim_of(LATMC_MODEL_ISING, LATMC_COUPLINGS_UNIFORM, 1); /* 8 x 8 */
    EXPECT_SIM(s, latmc_sim_init_spins(s, LATMC_INIT_HOT), LATMC_OK);
    latmc_sim *at = with_counters(s, bound / 2, bound);
    latmc_sim_destroy(&s);
    EXPECT_SIM(at, latmc_sim_sweep(at, 1), LATMC_OK); /* at the bound: not more than it */
    struct sim_snapshot z = snapshot(at);
    assert_true(z.attempted == bound + 64);
    latmc_sim *past = with_counters(at, z.accepted, z.attempted); /* the saved file loads */
    latmc_sim_destroy(&at);
    z = snapshot(past);
    EXPECT_NAMED("latmc_sim_sweep", latmc_sim_sweep(past, 1), LATMC_ESTATE);
    assert_non_null(strstr(latmc_last_error(), "latmc_sim_reset_acceptance"));
    assert_non_null(strstr(latmc_sim_last_error(past), "latmc_sim_reset_acceptance"));
    const struct sim_snapshot after = snapshot(past);
    assert_memory_equal(&after, &z, sizeof z);
    EXPECT(latmc_sim_reset_acceptance(past), LATMC_OK);
    EXPECT_SIM(past, latmc_sim_sweep(past, 1), LATMC_OK);
    latmc_sim_destroy(&past);
}

static void files_and_bytes(void **state)
{
    (void)state;
    latmc_sim *s = sim_of(LATMC_MODEL_ISING, LATMC_COUPLINGS_UNIFORM, 1);
    char path[256];
    size_t n = 0;
    snprintf(path, sizeof path, "%s/no/such/dir/x.ckpt", tmpdir);
    EXPECT_SIM(s, latmc_sim_save(s, NULL), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_save(s, path), LATMC_EIO);
    EXPECT_SIM(s, latmc_sim_serialize(s, NULL, 0, NULL), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_serialize(s, NULL, 0, &n), LATMC_OK);
    unsigned char *buf = malloc(n);
    assert_non_null(buf);
    size_t small = 0;
    EXPECT_SIM(s, latmc_sim_serialize(s, buf, n - 1, &small), LATMC_EINVAL);
    assert_int_equal(small, n);
    EXPECT_SIM(s, latmc_sim_serialize(s, buf, n, &n), LATMC_OK);
    latmc_sim *back = (latmc_sim *)&back;
    EXPECT(latmc_sim_deserialize(ctx, buf, n - 1, &back), LATMC_ECORRUPT);
    assert_null(back);
    EXPECT(latmc_sim_deserialize(ctx, buf, 0, &back), LATMC_ECORRUPT);
    buf[n / 2] ^= 0x40;
    EXPECT(latmc_sim_deserialize(ctx, buf, n, &back), LATMC_ECORRUPT);
    EXPECT(latmc_sim_load(ctx, path, &back), LATMC_EIO);
    snprintf(path, sizeof path, "%s/garbage.ckpt", tmpdir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite("not a checkpoint at all", 1, 23, f);
    fclose(f);
    EXPECT(latmc_sim_load(ctx, path, &back), LATMC_ECORRUPT);
    remove(path);
    free(buf);
    latmc_sim_destroy(&s);
}

static double mean_of_first(const double *means, const double *sq, void *user)
{
    (void)sq;
    (void)user;
    return means[0];
}

static double nan_fn(const double *means, const double *sq, void *user)
{
    (void)means;
    (void)sq;
    (void)user;
    return NAN;
}

static void acc_calls(void **state)
{
    (void)state;
    latmc_acc *acc = (latmc_acc *)&acc;
    EXPECT_NAMED("latmc_acc_create", latmc_acc_create(NULL, 2), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_create", latmc_acc_create(&acc, 0), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_create", latmc_acc_create(&acc, 65), LATMC_EINVAL);
    EXPECT(latmc_acc_create(&acc, 3), LATMC_OK);
    latmc_acc_destroy(NULL);
    latmc_acc *none = NULL;
    latmc_acc_destroy(&none);
    latmc_acc_clear(NULL);
    EXPECT_NAMED("latmc_acc_ncols", latmc_acc_ncols(NULL), LATMC_EINVAL);
    assert_int_equal(latmc_acc_ncols(acc), 3);
    assert_true(latmc_acc_count(NULL) == 0);
    double row[3] = { 1, 2, 3 }, v, e;
    EXPECT_NAMED("latmc_acc_mean", latmc_acc_mean(acc, 0, &v), LATMC_ESTATE);
    EXPECT_NAMED("latmc_acc_push", latmc_acc_push(NULL, row, 3), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_push", latmc_acc_push(acc, NULL, 3), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_push", latmc_acc_push(acc, row, 2), LATMC_EINVAL);
    row[1] = NAN;
    EXPECT_NAMED("latmc_acc_push", latmc_acc_push(acc, row, 3), LATMC_EINVAL);
    row[1] = INFINITY;
    EXPECT_NAMED("latmc_acc_push", latmc_acc_push(acc, row, 3), LATMC_EINVAL);
    for (int i = 0; i < 64; i++) {
        row[0] = i % 3;
        row[1] = (i % 5) * 0.5;
        row[2] = row[1] * row[1];
        EXPECT(latmc_acc_push(acc, row, 3), LATMC_OK);
    }
    EXPECT_NAMED("latmc_acc_row", latmc_acc_row(NULL, 0, row, 3), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_row", latmc_acc_row(acc, 64, row, 3), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_row", latmc_acc_row(acc, 0, NULL, 3), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_row", latmc_acc_row(acc, 0, row, 4), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_mean", latmc_acc_mean(NULL, 0, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_mean", latmc_acc_mean(acc, 3, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_mean", latmc_acc_mean(acc, -1, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_mean", latmc_acc_mean(acc, 0, NULL), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_binning_error", latmc_acc_binning_error(acc, 0, -1, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_binning_error", latmc_acc_binning_error(NULL, 0, 0, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_binning_error", latmc_acc_binning_error(acc, 0, 0, NULL), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_error", latmc_acc_error(acc, 7, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_error", latmc_acc_error(NULL, 0, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_tau_int", latmc_acc_tau_int(acc, 7, &v), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_tau_int", latmc_acc_tau_int(acc, 0, NULL), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_jackknife", latmc_acc_jackknife(acc, 8, NULL, NULL, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_jackknife", latmc_acc_jackknife(acc, 1, mean_of_first, NULL, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_jackknife", latmc_acc_jackknife(NULL, 8, mean_of_first, NULL, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_jackknife", latmc_acc_jackknife(acc, 8, mean_of_first, NULL, NULL, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_jackknife", latmc_acc_jackknife(acc, 8, nan_fn, NULL, &v, &e),
                 LATMC_EINVAL);
    EXPECT(latmc_acc_jackknife(acc, 8, mean_of_first, NULL, &v, &e), LATMC_OK);
    EXPECT_NAMED("latmc_acc_binder", latmc_acc_binder(acc, 1, 9, 8, &v, &e), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_binder", latmc_acc_binder(NULL, 1, 2, 8, &v, &e), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_binder", latmc_acc_binder(acc, 1, 2, 8, NULL, &e), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_corr_length", latmc_acc_corr_length(NULL, 1, 2, 8, 8, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_corr_length", latmc_acc_corr_length(acc, 1, 9, 8, 8, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_corr_length", latmc_acc_corr_length(acc, 1, 2, 1, 8, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_corr_length", latmc_acc_corr_length(acc, 1, 2, 8, 1, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_corr_length", latmc_acc_corr_length(acc, 1, 2, 8, 8, &v, NULL),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_susceptibility", latmc_acc_susceptibility(acc, 1, 2, NAN, 8, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_susceptibility", latmc_acc_susceptibility(acc, -1, 2, 1.0, 8, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_specific_heat", latmc_acc_specific_heat(acc, 0, INFINITY, 8, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_specific_heat", latmc_acc_specific_heat(acc, 5, 1.0, 8, &v, &e),
                 LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_specific_heat", latmc_acc_specific_heat(NULL, 0, 1.0, 8, &v, &e),
                 LATMC_EINVAL);
    /* the derived quantities' jackknife refusals name the function called, not the
     * jackknife inside it */
    EXPECT_NAMED("latmc_acc_binder", latmc_acc_binder(acc, 1, 2, 1, &v, &e), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_susceptibility",
                 latmc_acc_susceptibility(acc, 0, 2, 1.0, 65, &v, &e), LATMC_ESTATE);
    EXPECT_NAMED("latmc_acc_specific_heat", latmc_acc_specific_heat(acc, 0, 1.0, 8, &v, NULL),
                 LATMC_EINVAL);
    /* <|q(kmin)|^2> above <q^2> (columns 2 and 1 swapped): no real correlation length */
    EXPECT_NAMED("latmc_acc_corr_length", latmc_acc_corr_length(acc, 1, 2, 8, 8, &v, &e),
                 LATMC_EINVAL);
    char path[256];
    EXPECT_NAMED("latmc_acc_write_csv", latmc_acc_write_csv(NULL, "x", NULL), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_write_csv", latmc_acc_write_csv(acc, NULL, NULL), LATMC_EINVAL);
    EXPECT_NAMED("latmc_acc_write_csv", latmc_acc_write_csv(acc, "", NULL), LATMC_EINVAL);
    const char *names[3] = { "a", NULL, "c" };
    snprintf(path, sizeof path, "%s/series.csv", tmpdir);
    EXPECT_NAMED("latmc_acc_write_csv", latmc_acc_write_csv(acc, path, names), LATMC_EINVAL);
    snprintf(path, sizeof path, "%s/none/series.csv", tmpdir);
    EXPECT_NAMED("latmc_acc_write_csv", latmc_acc_write_csv(acc, path, NULL), LATMC_EIO);
    latmc_acc_clear(acc);
    assert_true(latmc_acc_count(acc) == 0);
    EXPECT_NAMED("latmc_acc_error", latmc_acc_error(acc, 0, &v), LATMC_ESTATE);
    latmc_acc_destroy(&acc);
    assert_null(acc);
}

/* ENOMEM: a lattice the (capped) address space cannot hold, in a child process. */
/* The functions added in 0.2: application data, the device view, accumulator state and
 * warnings, ensembles. */
static void app_data_acc_and_ensemble_calls(void **state)
{
    (void)state;
    char path[256];
    size_t n = 99;
    latmc_sim *s = sim_of(LATMC_MODEL_ISING, LATMC_COUPLINGS_UNIFORM, 1);
    snprintf(path, sizeof path, "%s/app.ckpt", tmpdir);
    EXPECT_SIM(s, latmc_sim_save_app_data(s, NULL, "x", 1), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_save_app_data(s, path, NULL, 1), LATMC_EINVAL);
    EXPECT(latmc_sim_save_app_data(NULL, path, "x", 1), LATMC_EINVAL);
    EXPECT(latmc_checkpoint_app_data(NULL, NULL, 0, &n), LATMC_EINVAL);
    EXPECT(latmc_checkpoint_app_data(path, NULL, 0, NULL), LATMC_EINVAL);
    EXPECT(latmc_checkpoint_app_data(path, NULL, 0, &n), LATMC_EIO); /* nothing saved yet */
    assert_int_equal(n, 0);
    EXPECT_SIM(s, latmc_sim_save(s, path), LATMC_OK);
    EXPECT(latmc_checkpoint_app_data(path, NULL, 0, &n), LATMC_ESTATE); /* no section */
    EXPECT_SIM(s, latmc_sim_save_app_data(s, path, "abc", 3), LATMC_OK);
    char two[2];
    EXPECT(latmc_checkpoint_app_data(path, two, sizeof two, &n), LATMC_EINVAL);
    assert_int_equal(n, 3);
    remove(path);
    latmc_device_view v;
    memset(&v, 0, sizeof v);
    v.struct_size = sizeof v;
    EXPECT(latmc_sim_device_view(NULL, &v), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_device_view(s, NULL), LATMC_EINVAL);
    EXPECT_SIM(s, latmc_sim_device_view(s, &v), LATMC_ESTATE); /* no configuration yet */
    EXPECT_SIM(s, latmc_sim_init_spins(s, LATMC_INIT_COLD), LATMC_OK);
    EXPECT_SIM(s, latmc_sim_device_view(s, &v), LATMC_EUNSUPPORTED); /* a CPU sim */
    v.struct_size = 4;
    EXPECT_SIM(s, latmc_sim_device_view(s, &v), LATMC_EINVAL);
    latmc_sim_destroy(&s);

    latmc_acc *acc = NULL;
    unsigned flags = 0;
    EXPECT(latmc_acc_warnings(NULL, 0, &flags), LATMC_EINVAL);
    EXPECT(latmc_acc_create(&acc, 2), LATMC_OK);
    EXPECT(latmc_acc_warnings(acc, 0, NULL), LATMC_EINVAL);
    EXPECT(latmc_acc_warnings(acc, 2, &flags), LATMC_EINVAL);
    EXPECT(latmc_acc_warnings(acc, -1, &flags), LATMC_EINVAL);
    EXPECT(latmc_acc_serialize(NULL, NULL, 0, &n), LATMC_EINVAL);
    EXPECT(latmc_acc_serialize(acc, NULL, 0, NULL), LATMC_EINVAL);
    EXPECT(latmc_acc_serialize(acc, NULL, 0, &n), LATMC_OK);
    unsigned char *buf = malloc(n);
    assert_non_null(buf);
    size_t got = 0;
    EXPECT(latmc_acc_serialize(acc, buf, n - 1, &got), LATMC_EINVAL);
    EXPECT(latmc_acc_serialize(acc, buf, n, &got), LATMC_OK);
    latmc_acc *back = NULL;
    EXPECT(latmc_acc_deserialize(NULL, n, &back), LATMC_EINVAL);
    EXPECT(latmc_acc_deserialize(buf, n, NULL), LATMC_EINVAL);
    EXPECT(latmc_acc_deserialize(buf, n - 1, &back), LATMC_ECORRUPT);
    assert_null(back);
    buf[n / 2] ^= 0x10;
    EXPECT(latmc_acc_deserialize(buf, n, &back), LATMC_ECORRUPT);
    assert_null(back);
    free(buf);
    latmc_acc_destroy(&acc);

    latmc_ens_layout_init(NULL); /* documented: does nothing */
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 4;
    d.device = LATMC_DEVICE_CPU;
    l.n_temperatures = 2;
    latmc_ens *e = NULL;
    EXPECT(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    uint64_t u = 0;
    double mean = 0;
    latmc_sim_desc md = { .struct_size = sizeof md };
    EXPECT(latmc_ens_get_layout(NULL, &l), LATMC_EINVAL);
    EXPECT(latmc_ens_get_layout(e, NULL), LATMC_EINVAL);
    EXPECT(latmc_ens_member_desc(NULL, 0, &md), LATMC_EINVAL);
    EXPECT(latmc_ens_member_desc(e, 2, &md), LATMC_EINVAL);
    EXPECT(latmc_ens_member_desc(e, -1, &md), LATMC_EINVAL);
    EXPECT(latmc_ens_member_desc(e, 0, NULL), LATMC_EINVAL);
    EXPECT(latmc_ens_sweep_count(NULL, &u), LATMC_EINVAL);
    EXPECT(latmc_ens_sweep_count(e, NULL), LATMC_EINVAL);
    EXPECT(latmc_ens_round_trips(NULL, &u, &mean), LATMC_EINVAL);
    EXPECT(latmc_ens_round_trips(e, NULL, &mean), LATMC_EINVAL);
    EXPECT(latmc_ens_save(NULL, path), LATMC_EINVAL);
    EXPECT(latmc_ens_save(e, NULL), LATMC_EINVAL);
    /* an empty path is a bad argument, as for latmc_sim_save (not a failed write) */
    EXPECT_NAMED("latmc_ens_save", latmc_ens_save(e, ""), LATMC_EINVAL);
    snprintf(path, sizeof path, "%s/no/such/dir/x.ens", tmpdir);
    EXPECT(latmc_ens_save(e, path), LATMC_EIO);
    latmc_ens *back_e = (latmc_ens *)&back_e;
    EXPECT(latmc_ens_load(NULL, path, &back_e), LATMC_EINVAL);
    EXPECT(latmc_ens_load(ctx, NULL, &back_e), LATMC_EINVAL);
    EXPECT(latmc_ens_load(ctx, path, NULL), LATMC_EINVAL);
    EXPECT(latmc_ens_load(ctx, path, &back_e), LATMC_EIO);
    assert_null(back_e);
    /* more sweeps than the counters name, with rounds (the members sweep a period at a
     * time, each of which latmc_sim_sweep would take): refused at once, nothing run */
    const double betas[2] = { 0.3, 0.4 };
    EXPECT(latmc_ens_set_temperatures(e, betas, 2), LATMC_OK);
    EXPECT(latmc_ens_set_exchange(e, 1), LATMC_OK);
    EXPECT(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    alarm(60);
    EXPECT_NAMED("latmc_ens_sweep", latmc_ens_sweep(e, UINT64_C(1) << 50), LATMC_EINVAL);
    alarm(0);
    EXPECT(latmc_ens_sweep_count(e, &u), LATMC_OK);
    assert_true(u == 0);
    latmc_ens_destroy(&e);
}

static void out_of_memory(void **state)
{
    (void)state;
    if (UNDER_SANITIZER) {
        print_message("ENOMEM case skipped under a sanitizer (no address-space cap)\n");
        seen[-LATMC_ENOMEM] = true; /* covered by the plain build's run */
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = { (rlim_t)1 << 30, (rlim_t)1 << 30 };
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(3);
        latmc_sim_desc d = desc_of(LATMC_MODEL_ISING);
        d.extent[0] = d.extent[1] = 1 << 16; /* 4 Gi sites */
        latmc_sim *s = NULL;
        const int st = latmc_sim_create(ctx, &d, &s);
        _exit(st == LATMC_ENOMEM && s == NULL && strlen(latmc_last_error()) > 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    seen[-LATMC_ENOMEM] = true;
}

static void every_documented_code_seen(void **state)
{
    (void)state;
    const int codes[] = { LATMC_EINVAL, LATMC_EUNSUPPORTED, LATMC_EBACKEND, LATMC_ENODEV,
                          LATMC_ENOMEM, LATMC_EIO, LATMC_ECORRUPT, LATMC_ESTATE };
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        if (codes[i] == LATMC_EBACKEND && cuda_usable)
            continue; /* a CUDA module is usable here: nothing to refuse */
        if (!seen[-codes[i]])
            print_error("%s was never returned\n", latmc_strerror(codes[i]));
        assert_true(seen[-codes[i]]);
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/latmc-misuse-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    return latmc_ctx_create(&ctx) == LATMC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    latmc_ctx_destroy(&ctx);
    return rmdir(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ctx_and_process_calls),
        cmocka_unit_test(create_refusals),
        cmocka_unit_test(null_sim),
        cmocka_unit_test(sim_calls),
        cmocka_unit_test(files_and_bytes),
        cmocka_unit_test(sweep_past_the_counters_bound),
        cmocka_unit_test(acc_calls),
        cmocka_unit_test(app_data_acc_and_ensemble_calls),
        cmocka_unit_test(out_of_memory),
        cmocka_unit_test(every_documented_code_seen),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
