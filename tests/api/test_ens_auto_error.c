/*
 * Device AUTO for an ensemble of cluster members (Swendsen-Wang, Wolff) asks where a sim
 * of member 0's desc would go (a sim made and destroyed: lib/ens.c, auto_batches_clusters).
 * With no CUDA module (LATMC_MODULE_PATH an empty directory of the test's own,
 * LATMC_MODULE_SYSTEM_PATH empty, both set before the library's first call) that probe
 * meets AUTO's CUDA failure and the members go to the CPU; a latmc_ens_create or
 * latmc_ens_load that then succeeds leaves the thread's latmc_last_error() as it was:
 * "" when nothing had failed, else the last failure's message, never the probe's; so
 * does a sim made under AUTO that settles on the CPU. Public API only, through the shared
 * library.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/latmc.h>

static char module_dir[] = "/tmp/latmc-no-module-XXXXXX";

static latmc_sim_desc cluster_member(int model, int algorithm)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 8;
    d.algorithm = algorithm;
    d.device = LATMC_DEVICE_AUTO;
    d.seed = 5;
    return d;
}

static latmc_ens *ens_of(latmc_ctx *ctx, const latmc_sim_desc *d)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_temperatures = 2;
    l.seed = 11;
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, d, &l, &e), LATMC_OK);
    assert_non_null(e);
    assert_string_equal(latmc_ens_last_error(e), "");
    return e;
}

/* First in the process: nothing has failed on this thread, and nothing is left. */
static void create_leaves_none(void **state)
{
    (void)state;
    assert_string_equal(latmc_last_error(), "");
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const latmc_sim_desc d = cluster_member(LATMC_MODEL_ISING, LATMC_ALGO_SWENDSEN_WANG);
    latmc_ens *e = ens_of(ctx, &d);
    assert_string_equal(latmc_last_error(), "");
    /* the members went to the CPU (a CUDA request names what is missing) */
    latmc_sim_desc cuda = d;
    cuda.device = LATMC_DEVICE_CUDA;
    latmc_sim *sim = NULL;
    assert_int_not_equal(latmc_sim_create(ctx, &cuda, &sim), LATMC_OK);
    assert_true(strlen(latmc_last_error()) > 0);
    latmc_ens_destroy(&e);
    latmc_ctx_destroy(&ctx);
}

/* After a failure: its message stays, through a create and a load of cluster members
 * (the load places them as the create does, asking again). */
static void create_and_load_keep_the_last(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int models[2] = { LATMC_MODEL_HEISENBERG, LATMC_MODEL_POTTS };
    const int algos[2] = { LATMC_ALGO_WOLFF, LATMC_ALGO_SWENDSEN_WANG };
    for (int k = 0; k < 2; k++) {
        latmc_sim_desc d = cluster_member(models[k], algos[k]);
        if (models[k] == LATMC_MODEL_POTTS)
            d.q = 3;
        latmc_sim_desc out;
        latmc_sim_desc_init(&out);
        assert_int_equal(latmc_ens_member_desc(NULL, 0, &out), LATMC_EINVAL);
        char before[512];
        snprintf(before, sizeof before, "%s", latmc_last_error());
        assert_true(strlen(before) > 0);
        latmc_ens *e = ens_of(ctx, &d);
        assert_string_equal(latmc_last_error(), before);
        const double beta[2] = { 0.3, 0.4 };
        assert_int_equal(latmc_ens_set_temperatures(e, beta, 2), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
        char dir[] = "/tmp/latmc-ens-auto-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char path[sizeof dir + 16];
        snprintf(path, sizeof path, "%s/ens.latmc", dir);
        assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
        latmc_ens *back = NULL;
        const int st = latmc_ens_load(ctx, path, &back);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
        assert_int_equal(st, LATMC_OK);
        assert_string_equal(latmc_last_error(), before);
        assert_string_equal(latmc_ens_last_error(back), "");
        assert_int_equal(latmc_ens_sweep(back, 1), LATMC_OK);
        latmc_ens_destroy(&back);
        latmc_ens_destroy(&e);
    }
    latmc_ctx_destroy(&ctx);
}

/* A sim of one process under AUTO meets the missing CUDA module and settles on the CPU:
 * the create succeeds and leaves the last failure's message as it was (lib/sim.c), for
 * a local algorithm as for a cluster one, and so does an ensemble of such members. */
static void sim_create_keeps_the_last(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int algos[2] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_SWENDSEN_WANG };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_sim_create(NULL, NULL, NULL), LATMC_EINVAL);
        char before[512];
        snprintf(before, sizeof before, "%s", latmc_last_error());
        assert_true(strlen(before) > 0);
        const latmc_sim_desc d = cluster_member(LATMC_MODEL_ISING, algos[k]);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_last_error(), before);
        assert_string_equal(latmc_sim_backend_name(sim), "cpu");
        latmc_sim_destroy(&sim);
        latmc_ens *e = ens_of(ctx, &d);
        assert_string_equal(latmc_last_error(), before);
        latmc_ens_destroy(&e);
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    /* no CUDA module anywhere, whatever this machine has, before liblatmc's first call
     * (modules are looked for once per process) */
    if (!mkdtemp(module_dir)) {
        perror("mkdtemp");
        return 1;
    }
    setenv("LATMC_MODULE_PATH", module_dir, 1);
    setenv("LATMC_MODULE_SYSTEM_PATH", "", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(create_leaves_none),
        cmocka_unit_test(create_and_load_keep_the_last),
        cmocka_unit_test(sim_create_keeps_the_last),
    };
    const int failed = cmocka_run_group_tests_name("ens_auto_error", tests, NULL, NULL);
    rmdir(module_dir);
    return failed;
}
