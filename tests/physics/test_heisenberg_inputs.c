/*
 * Heisenberg bad inputs: refused with the right code and a message that says why, and a
 * refused call changes nothing. Odd extents, three replicas, Metropolis, parameters of
 * other models, non-unit / non-finite spins in set_spins, NaN / inf couplings, wrong
 * counts, OVERLAP2 with one replica; and what OVERRELAX alone reports as acceptance.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heisenberg_test_helpers.h"

static void create_fails(const latmc_sim_desc *d, int want, const char *needle)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = (latmc_sim *)ctx; /* must be reset to NULL */
    assert_int_equal(latmc_sim_create(ctx, d, &sim), want);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), needle));
    latmc_ctx_destroy(&ctx);
}

static void bad_descs(void **state)
{
    (void)state;
    latmc_sim_desc d = heisenberg_desc(3, 4, 5, 4, 1, LATMC_COUPLINGS_GAUSSIAN,
                                       LATMC_ALGO_HEATBATH, 1, 1);
    create_fails(&d, LATMC_EINVAL, "odd");
    d = heisenberg_desc(2, 7, 4, 0, 1, LATMC_COUPLINGS_GAUSSIAN, LATMC_ALGO_HEATBATH, 1, 1);
    create_fails(&d, LATMC_EINVAL, "extent[0]");
    d = heisenberg_desc(3, 4, 4, 4, 3, LATMC_COUPLINGS_GAUSSIAN, LATMC_ALGO_HEATBATH, 1, 1);
    create_fails(&d, LATMC_EINVAL, "replicas");
    d = heisenberg_desc(3, 4, 4, 4, 1, LATMC_COUPLINGS_GAUSSIAN, LATMC_ALGO_METROPOLIS, 1, 1);
    create_fails(&d, LATMC_EUNSUPPORTED, "Metropolis");
    d = heisenberg_desc(3, 4, 4, 4, 1, 7, LATMC_ALGO_HEATBATH, 1, 1);
    create_fails(&d, LATMC_EINVAL, "couplings");
}

struct fixture {
    latmc_ctx *ctx;
    latmc_sim *sim;
    size_t bytes, nc;
    float *spins, *J;
};

static void fixture_open(struct fixture *f, int replicas)
{
    assert_int_equal(latmc_ctx_create(&f->ctx), LATMC_OK);
    latmc_sim_desc d = heisenberg_desc(2, 4, 6, 0, replicas, LATMC_COUPLINGS_GAUSSIAN,
                                       LATMC_ALGO_DEFAULT, 1, 11);
    assert_int_equal(latmc_sim_create(f->ctx, &d, &f->sim), LATMC_OK);
    assert_int_equal(latmc_sim_get_desc(f->sim, &d), LATMC_OK);
    assert_int_equal(d.algorithm, LATMC_ALGO_HEATBATH); /* the default */
    assert_int_equal(latmc_sim_spins_size(f->sim, &f->bytes), LATMC_OK);
    assert_int_equal(f->bytes, 24u * 12u * (size_t)replicas);
    assert_int_equal(latmc_sim_couplings_size(f->sim, &f->nc), LATMC_OK);
    assert_int_equal(f->nc, 48u);
    f->spins = malloc(f->bytes);
    f->J = malloc(f->nc * sizeof *f->J);
    assert_non_null(f->spins);
    assert_non_null(f->J);
    assert_int_equal(latmc_sim_init_spins(f->sim, LATMC_INIT_HOT), LATMC_OK);
}

static void fixture_close(struct fixture *f)
{
    free(f->spins);
    free(f->J);
    latmc_sim_destroy(&f->sim);
    latmc_ctx_destroy(&f->ctx);
}

static void bad_spins(void **state)
{
    (void)state;
    struct fixture f;
    fixture_open(&f, 2);
    float *before = malloc(f.bytes);
    assert_non_null(before);
    assert_int_equal(latmc_sim_get_spins(f.sim, before, f.bytes), LATMC_OK);
    /* what get_spins gives, set_spins takes */
    assert_int_equal(latmc_sim_set_spins(f.sim, before, f.bytes), LATMC_OK);

    const size_t last = f.bytes / sizeof(float) - 3; /* replica 1, last site */
    const float bad_values[][3] = {
        { 1.0f, 1.0f, 0.0f },          /* length sqrt 2 */
        { 0.0f, 0.0f, 0.0f },          /* zero */
        { 0.0f, 0.0f, 1.0001f },       /* 1e-4 off */
        { NAN, 0.0f, 1.0f },
        { 0.0f, INFINITY, 0.0f },
    };
    for (size_t k = 0; k < sizeof bad_values / sizeof bad_values[0]; k++) {
        memcpy(f.spins, before, f.bytes);
        memcpy(f.spins + last, bad_values[k], sizeof bad_values[k]);
        assert_int_equal(latmc_sim_set_spins(f.sim, f.spins, f.bytes), LATMC_EINVAL);
        const char *msg = latmc_sim_last_error(f.sim);
        assert_non_null(strstr(msg, "replica 1"));
        assert_true(strstr(msg, "unit") != NULL || strstr(msg, "finite") != NULL);
        assert_int_equal(latmc_sim_get_spins(f.sim, f.spins, f.bytes), LATMC_OK);
        assert_memory_equal(f.spins, before, f.bytes); /* nothing changed */
    }
    /* within the tolerance 1e-5: accepted */
    memcpy(f.spins, before, f.bytes);
    const float nearly[3] = { 0.0f, 0.0f, 1.000004f };
    memcpy(f.spins, nearly, sizeof nearly);
    assert_int_equal(latmc_sim_set_spins(f.sim, f.spins, f.bytes), LATMC_OK);
    /* wrong size */
    assert_int_equal(latmc_sim_set_spins(f.sim, f.spins, f.bytes - 12), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_spins(f.sim, f.spins, f.bytes / 2), LATMC_EINVAL);
    free(before);
    fixture_close(&f);
}

static void bad_couplings(void **state)
{
    (void)state;
    struct fixture f;
    fixture_open(&f, 1);
    float *before = malloc(f.nc * sizeof *before);
    assert_non_null(before);
    assert_int_equal(latmc_sim_get_couplings(f.sim, before, f.nc), LATMC_OK);
    const float bad[] = { NAN, INFINITY, -INFINITY };
    for (size_t k = 0; k < 3; k++) {
        memcpy(f.J, before, f.nc * sizeof *f.J);
        f.J[17] = bad[k];
        assert_int_equal(latmc_sim_set_couplings(f.sim, f.J, f.nc), LATMC_EINVAL);
        assert_non_null(strstr(latmc_sim_last_error(f.sim), "17"));
        assert_int_equal(latmc_sim_get_couplings(f.sim, f.J, f.nc), LATMC_OK);
        assert_memory_equal(f.J, before, f.nc * sizeof *f.J);
    }
    assert_int_equal(latmc_sim_set_couplings(f.sim, before, f.nc - 1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_couplings(f.sim, f.J, f.nc + 1), LATMC_EINVAL);
    free(before);
    fixture_close(&f);
}

static void bad_params_and_observables(void **state)
{
    (void)state;
    struct fixture f;
    fixture_open(&f, 1);
    double v = 0.0;
    assert_int_equal(latmc_sim_set_param(f.sim, LATMC_PARAM_J, 1.0), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_set_param(f.sim, LATMC_PARAM_EPSILON, 1.0), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_set_param(f.sim, LATMC_PARAM_NOVER, -1.0), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_param(f.sim, LATMC_PARAM_NOVER, 1.5), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_param(f.sim, LATMC_PARAM_BETA, NAN), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_param(f.sim, LATMC_PARAM_H, INFINITY), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_param(f.sim, LATMC_PARAM_NOVER, &v), LATMC_OK);
    assert_true(v == 0.0);
    assert_int_equal(latmc_sim_observable(f.sim, LATMC_OBS_OVERLAP2, &v), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_observable(f.sim, LATMC_OBS_PHI2, &v), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_tune_epsilon(f.sim, 0.5, 10), LATMC_EUNSUPPORTED);
    /* heat bath: every update accepted */
    assert_int_equal(latmc_sim_set_param(f.sim, LATMC_PARAM_NOVER, 2.0), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(f.sim, 3), LATMC_OK);
    assert_int_equal(latmc_sim_observable(f.sim, LATMC_OBS_ACCEPTANCE, &v), LATMC_OK);
    assert_true(v == 1.0);
    fixture_close(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_descs),
        cmocka_unit_test(bad_spins),
        cmocka_unit_test(bad_couplings),
        cmocka_unit_test(bad_params_and_observables),
    };
    return cmocka_run_group_tests_name("heisenberg_inputs", tests, NULL, NULL);
}
