/*
 * The batch capabilities the CUDA module declares for Ising (ising/cuda_ising_batch.c),
 * Potts, phi^4 and Heisenberg sims, and for Swendsen-Wang's Ising and Potts sims
 * (clusters/cuda_sw_batch.c)
 * (lib/box.h LATMC_STEP_CAP_BATCH, LATMC_STEP_CAP_BATCH_SWEEPS,
 * LATMC_STEP_CAP_BATCH_EXCHANGE; backends/cuda/exec/cuda_batch.c,
 * cuda_batch_caps): what an ensemble's member 0 offers decides whether lib/ens_exec.c and
 * lib/plan.c try a batch at all. Offered to sims the batch takes (whole sweeps for small
 * site-order members, phi^4's with the device's tempering rounds; Heisenberg: whole sweeps
 * and the device's tempering rounds, one block a member where its spins fit one block's
 * shared memory, else a launch a pass over every member);
 * not to a sim made with
 * LATMC_ENS_POTTS_BATCH=0 / LATMC_ENS_PHI4_BATCH=0 / LATMC_ENS_HEIS_BATCH=0 /
 * LATMC_ENS_SW_BATCH=0 (read when the sim is made: a change afterwards changes nothing),
 * nor to a
 * shape the batch never takes (Heisenberg of two replicas, or the sums' reduction past a
 * block's shared memory: such members run and are measured one by one). The batch's requests
 * (LATMC_STEP_CAP_BATCH_MEASURE, _SWAP, _OVERLAPS) are offered for every model's members,
 * whatever their steps take (the sums of members that sweep one by one are still one
 * launch), the overlaps for Ising alone, to Swendsen-Wang's members the measurement alone
 * (the core swaps cluster members the long way). Exit 77 without a usable CUDA module and GPU.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>

#include "box.h"
#include "plan.h"
#include "sim_helpers.h"

static latmc_ctx *ctx;

static latmc_sim_desc desc_of(int model, int L, int algorithm)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = L;
    d.algorithm = algorithm;
    d.device = LATMC_DEVICE_CUDA;
    if (model == LATMC_MODEL_POTTS)
        d.q = 3;
    else
        d.precision = LATMC_PRECISION_FLOAT;
    if (model == LATMC_MODEL_HEISENBERG)
        d.couplings = LATMC_COUPLINGS_GAUSSIAN; /* the spin glass */
    return d;
}

/* The batch capabilities of a sim made with `env` = value (NULL: unset), the variable set
 * to `after` once it is made (NULL: unset). */
static unsigned batch_caps(latmc_sim_desc d, const char *env, const char *value,
                           const char *after)
{
    if (value)
        assert_int_equal(setenv(env, value, 1), 0);
    else
        unsetenv(env);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (after)
        assert_int_equal(setenv(env, after, 1), 0);
    else
        unsetenv(env);
    if (st != LATMC_OK)
        fail_msg("model %d, L %d: %s", d.model, d.extent[0], latmc_last_error());
    const unsigned caps = latmc_plan_step_caps(sim);
    latmc_sim_destroy(&sim);
    unsetenv(env);
    return caps & (LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS |
                   LATMC_STEP_CAP_BATCH_EXCHANGE);
}

/* The requests' capabilities of a sim made now. */
static unsigned request_caps(latmc_sim_desc d)
{
    latmc_sim *sim = NULL;
    if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK)
        fail_msg("model %d, L %d: %s", d.model, d.extent[0], latmc_last_error());
    const unsigned caps = latmc_plan_step_caps(sim);
    latmc_sim_destroy(&sim);
    return caps & (LATMC_STEP_CAP_BATCH_MEASURE | LATMC_STEP_CAP_BATCH_OVERLAPS |
                   LATMC_STEP_CAP_BATCH_SWAP);
}

static void test_request_caps(void **state)
{
    (void)state;
    const unsigned reads = LATMC_STEP_CAP_BATCH_MEASURE | LATMC_STEP_CAP_BATCH_SWAP;
    const unsigned both = reads | LATMC_STEP_CAP_BATCH_OVERLAPS;
    assert_int_equal(request_caps(desc_of(LATMC_MODEL_ISING, 16, LATMC_ALGO_METROPOLIS)), both);
    /* 512^2: past the sizes whose steps run as one batch; measured and swapped together all
     * the same */
    assert_int_equal(request_caps(desc_of(LATMC_MODEL_ISING, 512, LATMC_ALGO_HEATBATH)), both);
    const int others[3] = { LATMC_MODEL_POTTS, LATMC_MODEL_PHI4, LATMC_MODEL_HEISENBERG };
    const int algos[3] = { LATMC_ALGO_HEATBATH, LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    for (int k = 0; k < 3; k++)
        assert_int_equal(request_caps(desc_of(others[k], 16, algos[k])), reads);
    assert_int_equal(request_caps(desc_of(LATMC_MODEL_ISING, 64, LATMC_ALGO_SWENDSEN_WANG)),
                     LATMC_STEP_CAP_BATCH_MEASURE);
}

/* Ising (ising/cuda_ising_batch.c): whole sweeps and the device's tempering rounds for
 * members of any size below 2^32 sites, packed (2D 64^2 on the fused kernel, 512^2 past
 * it) or of the byte layout (L_x 40); the bit-sliced decisions none (their draws are not
 * the batch's). */
static void test_ising_caps(void **state)
{
    (void)state;
    const unsigned all = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS |
                         LATMC_STEP_CAP_BATCH_EXCHANGE;
    const char *env = "LATMC_CUDA_KERNELS"; /* unset: the default kernels */
    assert_int_equal(batch_caps(desc_of(LATMC_MODEL_ISING, 64, LATMC_ALGO_METROPOLIS), env, NULL,
                                NULL), all);
    assert_int_equal(batch_caps(desc_of(LATMC_MODEL_ISING, 512, LATMC_ALGO_HEATBATH), env, NULL,
                                NULL), all);
    assert_int_equal(batch_caps(desc_of(LATMC_MODEL_ISING, 40, LATMC_ALGO_METROPOLIS), env, NULL,
                                NULL), all);
    latmc_sim_desc d = desc_of(LATMC_MODEL_ISING, 64, LATMC_ALGO_METROPOLIS);
    latmc_sim *sim = NULL;
    if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK)
        fail_msg("%s", latmc_last_error());
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1.0), LATMC_OK);
    assert_int_equal(latmc_plan_step_caps(sim) & all, 0u);
    latmc_sim_destroy(&sim);
}

static void test_potts_caps(void **state)
{
    (void)state;
    const char *env = "LATMC_ENS_POTTS_BATCH";
    const unsigned both = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS;
    const latmc_sim_desc small = desc_of(LATMC_MODEL_POTTS, 16, LATMC_ALGO_HEATBATH);
    const latmc_sim_desc big = desc_of(LATMC_MODEL_POTTS, 256, LATMC_ALGO_METROPOLIS);
    assert_int_equal(batch_caps(small, env, NULL, NULL), both);
    assert_int_equal(batch_caps(big, env, NULL, NULL), LATMC_STEP_CAP_BATCH);
    assert_int_equal(batch_caps(small, env, "1", NULL), both);
    /* made one by one: nothing offered, whatever the variable says later */
    assert_int_equal(batch_caps(small, env, "0", NULL), 0u);
    assert_int_equal(batch_caps(big, env, "0", "1"), 0u);
    assert_int_equal(batch_caps(small, env, NULL, "0"), both);
    /* Swendsen-Wang and Wolff: the cluster steps' batch (test_sw_caps), which
     * LATMC_ENS_SW_BATCH rules, not this variable */
    assert_int_equal(batch_caps(desc_of(LATMC_MODEL_POTTS, 16, LATMC_ALGO_WOLFF), env, "0",
                                NULL),
                     LATMC_STEP_CAP_BATCH);
}

/* Swendsen-Wang and Wolff members (Ising, Potts): a batch a launch a cluster step (no whole sweeps,
 * no tempering on the device) for members of at most 65536 sites, not past that size, not
 * for a sim made with LATMC_ENS_SW_BATCH=0 (read when the sim is made); Ising's +-J
 * couplings too (each member its own). */
static void test_sw_caps(void **state)
{
    (void)state;
    const char *env = "LATMC_ENS_SW_BATCH";
    const int models[2] = { LATMC_MODEL_ISING, LATMC_MODEL_POTTS };
    for (int k = 0; k < 2; k++) {
        const latmc_sim_desc small = desc_of(models[k], 64, LATMC_ALGO_SWENDSEN_WANG);
        /* 128^2: labels past a block's shared memory, in the members' own arrays; 512^2:
         * past the batch's members (one by one, a whole GPU a step) */
        const latmc_sim_desc mid = desc_of(models[k], 128, LATMC_ALGO_SWENDSEN_WANG);
        const latmc_sim_desc big = desc_of(models[k], 512, LATMC_ALGO_SWENDSEN_WANG);
        assert_int_equal(batch_caps(small, env, NULL, NULL), LATMC_STEP_CAP_BATCH);
        assert_int_equal(batch_caps(small, env, "1", NULL), LATMC_STEP_CAP_BATCH);
        assert_int_equal(batch_caps(mid, env, NULL, NULL), LATMC_STEP_CAP_BATCH);
        assert_int_equal(batch_caps(big, env, NULL, NULL), 0u);
        assert_int_equal(batch_caps(small, env, "0", NULL), 0u);
        assert_int_equal(batch_caps(small, env, NULL, "0"), LATMC_STEP_CAP_BATCH);
        assert_int_equal(batch_caps(small, env, "0", "1"), 0u);
        /* Wolff: the same steps but the third (the seed's cluster flipped) */
        const latmc_sim_desc wolff = desc_of(models[k], 64, LATMC_ALGO_WOLFF);
        const latmc_sim_desc wolff_big = desc_of(models[k], 512, LATMC_ALGO_WOLFF);
        assert_int_equal(batch_caps(wolff, env, NULL, NULL), LATMC_STEP_CAP_BATCH);
        assert_int_equal(batch_caps(wolff_big, env, NULL, NULL), 0u);
        assert_int_equal(batch_caps(wolff, env, "0", NULL), 0u);
    }
    latmc_sim_desc pmj = desc_of(LATMC_MODEL_ISING, 16, LATMC_ALGO_SWENDSEN_WANG);
    pmj.couplings = LATMC_COUPLINGS_BIMODAL;
    assert_int_equal(batch_caps(pmj, env, NULL, NULL), LATMC_STEP_CAP_BATCH);
    assert_int_equal(batch_caps(pmj, env, "0", NULL), 0u);
}

static void test_phi4_caps(void **state)
{
    (void)state;
    const char *env = "LATMC_ENS_PHI4_BATCH";
    /* 16^2: the site order, whole sweeps a launch and the device's tempering rounds (whole
     * sweeps and rounds: a mu2 ladder's); 64^2: the chunk schedule, steps only */
    const unsigned both = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS |
                          LATMC_STEP_CAP_BATCH_EXCHANGE;
    const latmc_sim_desc small = desc_of(LATMC_MODEL_PHI4, 16, LATMC_ALGO_METROPOLIS);
    const latmc_sim_desc chunks = desc_of(LATMC_MODEL_PHI4, 64, LATMC_ALGO_METROPOLIS);
    assert_int_equal(batch_caps(small, env, NULL, NULL), both);
    assert_int_equal(batch_caps(chunks, env, NULL, NULL), LATMC_STEP_CAP_BATCH);
    assert_int_equal(batch_caps(small, env, "0", NULL), 0u);
    assert_int_equal(batch_caps(chunks, env, "0", "1"), 0u);
    assert_int_equal(batch_caps(chunks, env, NULL, "0"), LATMC_STEP_CAP_BATCH);
}

static void test_heisenberg_caps(void **state)
{
    (void)state;
    const char *env = "LATMC_ENS_HEIS_BATCH";
    const unsigned sweeps = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS;
    const unsigned all = sweeps | LATMC_STEP_CAP_BATCH_EXCHANGE;
    /* 16^2: 3 KiB of spins a block, whole sweeps a launch; 256^2: 768 KiB, more than any
     * block's shared memory: a launch a pass over every member (cuda_heisenberg_pass_batch),
     * whole sweeps and the device's rounds too */
    const latmc_sim_desc small = desc_of(LATMC_MODEL_HEISENBERG, 16, LATMC_ALGO_HEATBATH);
    const latmc_sim_desc big = desc_of(LATMC_MODEL_HEISENBERG, 256, LATMC_ALGO_HEATBATH);
    assert_int_equal(batch_caps(small, env, NULL, NULL), all);
    assert_int_equal(batch_caps(desc_of(LATMC_MODEL_HEISENBERG, 16, LATMC_ALGO_OVERRELAX), env,
                                NULL, NULL),
                     all);
    assert_int_equal(batch_caps(big, env, NULL, NULL), all);
    assert_int_equal(batch_caps(small, env, "1", NULL), all);
    /* made one by one: nothing offered, whatever the variable says later */
    assert_int_equal(batch_caps(small, env, "0", NULL), 0u);
    assert_int_equal(batch_caps(big, env, "0", "1"), 0u);
    assert_int_equal(batch_caps(small, env, NULL, "0"), all);
    /* two replicas: a shape the kernel does not take (an ensemble's replicas are members) */
    latmc_sim_desc two = small;
    two.replicas = 2;
    assert_int_equal(batch_caps(two, env, NULL, NULL), 0u);
    /* the embedded cluster steps run their own steps */
    assert_int_equal(batch_caps(desc_of(LATMC_MODEL_HEISENBERG, 16, LATMC_ALGO_WOLFF), env,
                                NULL, NULL),
                     0u);
}

/* A 2D strip whose spins fit one block's shared memory but whose sums' reduction (a chunk
 * a row: 2048 of them) fits none (heisenberg_batch_kernels.cu, cuda_ens_heisenberg_measure_fits):
 * 8 x 2048 float, 192 KiB of spins (an H100's or H200's block takes 227 KiB), the fast
 * kernel's terms 336 KiB, the sequential kernel's partials 64 KiB launched without opting
 * in. The batch declines it (its capabilities offer none), so the ensemble's sweeps,
 * tempering rounds and observables run one member at a time and succeed (a batch made for
 * it failed every measurement's launch: LATMC_EDEVICE), each energy its member's own. */
static void test_heisenberg_strip_measured(void **state)
{
    (void)state;
    latmc_sim_desc d = desc_of(LATMC_MODEL_HEISENBERG, 8, LATMC_ALGO_HEATBATH);
    d.extent[1] = 2048;
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = 1;
    l.n_temperatures = 2;
    l.n_replicas = 1;
    l.seed = 11;
    l.coupling_seed = 5;
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    const double beta[2] = { 0.5, 1.0 };
    assert_int_equal(latmc_ens_set_temperatures(e, beta, 2), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    int st = latmc_ens_sweep(e, 2);
    if (st != LATMC_OK)
        fail_msg("sweeps of 8 x 2048 Heisenberg members: %d %s", st, latmc_last_error());
    double energy[2];
    st = latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, energy, 2);
    if (st != LATMC_OK)
        fail_msg("energies of 8 x 2048 Heisenberg members: %d %s", st, latmc_last_error());
    for (int m = 0; m < 2; m++) {
        latmc_sim_desc md;
        assert_int_equal(latmc_ens_member_desc(e, m, &md), LATMC_OK);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &md, &sim), LATMC_OK);
        size_t bytes = 0;
        assert_int_equal(latmc_ens_spins_size(e, &bytes), LATMC_OK);
        void *buf = malloc(bytes);
        assert_non_null(buf);
        assert_int_equal(latmc_ens_get_spins(e, m, buf, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_set_spins(sim, buf, bytes), LATMC_OK);
        double own = 0.0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &own), LATMC_OK);
        assert_memory_equal(&own, &energy[m], sizeof own);
        free(buf);
        latmc_sim_destroy(&sim);
    }
    latmc_ens_destroy(&e);
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    if (test_device() != LATMC_DEVICE_CUDA) {
        printf("LATMC_TEST_DEVICE is not cuda: nothing to test\n");
        return 77;
    }
    const int skip = test_device_check();
    if (skip)
        return skip;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_caps),
        cmocka_unit_test(test_ising_caps),
        cmocka_unit_test(test_potts_caps),
        cmocka_unit_test(test_sw_caps),
        cmocka_unit_test(test_phi4_caps),
        cmocka_unit_test(test_heisenberg_caps),
        cmocka_unit_test(test_heisenberg_strip_measured),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed ? 1 : 0;
}
