/*
 * An accepted tempering swap's parameter move (lib/ens_exchange.c,
 * latmc_ens_swap_ladder_values): where the two members hold each other's ladder value and
 * every other parameter alike, their model data change places and the backend moves what
 * it derived (CUDA: device tables) for all such pairs in one run_steps call at
 * latmc_ens_swaps_end (LATMC_STEP_SWAP_PARAMS); otherwise, or where the backend declines,
 * set_param on both. Either way each member's model data must be exactly what set_param
 * would leave: checked here for every model with a ladder (phi^4's mu2 with a finite
 * Lambda and nhit, nloc set; Ising, Potts, Heisenberg's beta) on CPU sims given a copy of
 * the CPU backend's operations that declares the swaps' request and counts its calls (the
 * CPU has none), so that the in-place path runs in CI; members whose other parameters
 * differ (phi^4: nhit) take the long way; and a chain of swaps through one member (a map's
 * sync) comes out as set_param leaves it, in one call, refused, or split where a pair
 * between takes the long way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "backend.h"
#include "ens_internal.h"
#include "internal.h"
#include "model.h"

static int swaps;          /* LATMC_STEP_SWAP_PARAMS calls */
static int swap_pairs;     /* the pairs they carried */
static int swap_answer;    /* what they return */

static unsigned swap_caps(latmc_sim *sim)
{
    (void)sim;
    return LATMC_STEP_CAP_BATCH_SWAP;
}

static int counting_swaps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                          uint64_t *accepted, uint64_t *attempted)
{
    (void)sim;
    (void)accepted;
    (void)attempted;
    assert_int_equal(n_calls, 1);
    assert_int_equal(calls[0].step.kind, LATMC_STEP_SWAP_PARAMS);
    swaps++;
    swap_pairs += calls[0].request->n_pairs;
    return swap_answer;
}

/* The CPU's operations with the swaps' request, counted */
static struct latmc_backend_ops counting_ops(void)
{
    struct latmc_backend_ops ops = latmc_cpu_backend_ops;
    ops.step_caps = swap_caps;
    ops.run_steps = counting_swaps;
    return ops;
}

static latmc_ctx *ctx;

static latmc_sim *make(int model, int key, double value, const int *keys,
                       const double *values, int n)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 16;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    if (model == LATMC_MODEL_POTTS)
        d.q = 3;
    if (model == LATMC_MODEL_HEISENBERG)
        d.algorithm = LATMC_ALGO_HEATBATH;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    for (int i = 0; i < n; i++)
        assert_int_equal(latmc_sim_set_param(sim, keys[i], values[i]), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, key, value), LATMC_OK);
    return sim;
}

/* a holds key = va, b key = vb and the other parameters (keys, values; b's `differ`-th
 * one changed to `other` where differ >= 0); the swap gives a vb and b va. Expect the
 * in-place path `in_place` times (0 or 1) and each member's model data equal to a twin's
 * after set_param. */
static void swap_case(int model, int key, double va, double vb, const int *keys,
                      const double *values, int n, int differ, double other, int answer,
                      int in_place)
{
    double bvalues[8];
    memcpy(bvalues, values, (size_t)n * sizeof *values);
    if (differ >= 0)
        bvalues[differ] = other;
    latmc_sim *a = make(model, key, va, keys, values, n);
    latmc_sim *b = make(model, key, vb, keys, bvalues, n);
    latmc_sim *ta = make(model, key, vb, keys, values, n);
    latmc_sim *tb = make(model, key, va, keys, bvalues, n);
    const struct latmc_backend_ops ops = counting_ops();
    const struct latmc_backend_ops *cpu = a->ops;
    a->ops = b->ops = &ops;
    swaps = swap_pairs = 0;
    swap_answer = answer;
    latmc_sim *const pair[2] = { a, b };
    struct latmc_ens_swaps q = { 0 };
    latmc_ens_swaps_begin(&q, pair, 2, key);
    latmc_ens_swap_ladder_values(&q, 0, 1, vb, va);
    latmc_ens_swaps_end(&q);
    latmc_ens_swaps_free(&q);
    a->ops = b->ops = cpu;
    assert_int_equal(swaps, in_place);
    assert_int_equal(swap_pairs, in_place);
    const size_t size = a->model->data_size;
    assert_memory_equal(a->model_data, ta->model_data, size);
    assert_memory_equal(b->model_data, tb->model_data, size);
    double v = 0;
    assert_int_equal(latmc_sim_get_param(a, key, &v), LATMC_OK);
    assert_true(v == vb);
    assert_int_equal(latmc_sim_get_param(b, key, &v), LATMC_OK);
    assert_true(v == va);
    latmc_sim_destroy(&a);
    latmc_sim_destroy(&b);
    latmc_sim_destroy(&ta);
    latmc_sim_destroy(&tb);
}

static void test_phi4(void **state)
{
    (void)state;
    static const int keys[] = { LATMC_PARAM_G, LATMC_PARAM_LAMBDA, LATMC_PARAM_NHIT,
                                LATMC_PARAM_NLOC, LATMC_PARAM_EPSILON };
    static const double values[] = { 1.0, 2.0, 3, 2, 0.7 };
    /* in place; declined (undone, the long way); another parameter differs (nhit) */
    swap_case(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, -0.6, -0.55, keys, values, 5, -1, 0,
              LATMC_OK, 1);
    swap_case(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, -0.6, -0.55, keys, values, 5, -1, 0,
              LATMC_EUNSUPPORTED, 1);
    swap_case(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, -0.6, -0.55, keys, values, 5, 2, 4,
              LATMC_OK, 0);
    /* Lambda infinite (the 1/Lambda term off: another set of coefficients) */
    static const double inf_values[] = { 1.0, INFINITY, 1, 1, 0.5 };
    swap_case(LATMC_MODEL_PHI4, LATMC_PARAM_MU2, -0.6, -0.55, keys, inf_values, 5, -1, 0,
              LATMC_OK, 1);
}

static void test_beta_models(void **state)
{
    (void)state;
    static const int keys[] = { LATMC_PARAM_J, LATMC_PARAM_H };
    static const double values[] = { 1.0, 0.1 };
    swap_case(LATMC_MODEL_ISING, LATMC_PARAM_BETA, 0.3, 0.4, keys, values, 2, -1, 0,
              LATMC_OK, 1);
    swap_case(LATMC_MODEL_ISING, LATMC_PARAM_BETA, 0.3, 0.4, keys, values, 2, 1, 0.2,
              LATMC_OK, 0);
    swap_case(LATMC_MODEL_POTTS, LATMC_PARAM_BETA, 0.9, 0.95, keys, values, 1, -1, 0,
              LATMC_OK, 1);
    static const int hkeys[] = { LATMC_PARAM_NOVER };
    static const double hvalues[] = { 2 };
    swap_case(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA, 0.5, 0.7, hkeys, hvalues, 1, -1, 0,
              LATMC_OK, 1);
    swap_case(LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA, 0.5, 0.7, hkeys, hvalues, 1, 0, 3,
              LATMC_OK, 0);
}

static int setup(void **state)
{
    (void)state;
    return latmc_ctx_create(&ctx) == LATMC_OK ? 0 : -1;
}

/* Three Ising members at beta 0.3, 0.4, 0.5 (z's h = hz, the others' 0.1): x and y swap,
 * then y and z (y in both, as a map's sync moves it), so x ends at 0.4, y at 0.5, z at 0.3,
 * each member's model data as set_param leaves it; `calls` calls carrying `pairs` pairs. */
static void chain_case(double hz, int answer, int calls, int pairs)
{
    static const int keys[] = { LATMC_PARAM_J, LATMC_PARAM_H };
    const double vx[] = { 1.0, 0.1 }, vz[] = { 1.0, hz };
    const int key = LATMC_PARAM_BETA;
    latmc_sim *m[3] = { make(LATMC_MODEL_ISING, key, 0.3, keys, vx, 2),
                        make(LATMC_MODEL_ISING, key, 0.4, keys, vx, 2),
                        make(LATMC_MODEL_ISING, key, 0.5, keys, vz, 2) };
    latmc_sim *twin[3] = { make(LATMC_MODEL_ISING, key, 0.4, keys, vx, 2),
                           make(LATMC_MODEL_ISING, key, 0.5, keys, vx, 2),
                           make(LATMC_MODEL_ISING, key, 0.3, keys, vz, 2) };
    const struct latmc_backend_ops ops = counting_ops();
    const struct latmc_backend_ops *cpu = m[0]->ops;
    for (int k = 0; k < 3; k++)
        m[k]->ops = &ops;
    swaps = swap_pairs = 0;
    swap_answer = answer;
    struct latmc_ens_swaps q = { 0 };
    latmc_ens_swaps_begin(&q, m, 3, key);
    latmc_ens_swap_ladder_values(&q, 0, 1, 0.4, 0.3);
    latmc_ens_swap_ladder_values(&q, 1, 2, 0.5, 0.3);
    latmc_ens_swaps_end(&q);
    latmc_ens_swaps_free(&q);
    assert_int_equal(swaps, calls);
    assert_int_equal(swap_pairs, pairs);
    for (int k = 0; k < 3; k++) {
        m[k]->ops = cpu;
        assert_memory_equal(m[k]->model_data, twin[k]->model_data, m[k]->model->data_size);
        double v = 0, t = 0;
        assert_int_equal(latmc_sim_get_param(m[k], key, &v), LATMC_OK);
        assert_int_equal(latmc_sim_get_param(twin[k], key, &t), LATMC_OK);
        assert_true(v == t);
        latmc_sim_destroy(&m[k]);
        latmc_sim_destroy(&twin[k]);
    }
}

static void test_chain(void **state)
{
    (void)state;
    chain_case(0.1, LATMC_OK, 1, 2);            /* both pairs in one call */
    chain_case(0.1, LATMC_EUNSUPPORTED, 1, 2);  /* refused: undone, the long way */
    chain_case(0.2, LATMC_OK, 1, 1);            /* y, z the long way: x, y's call first */
}

static int teardown(void **state)
{
    (void)state;
    latmc_ctx_destroy(&ctx);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phi4),
        cmocka_unit_test(test_beta_models),
        cmocka_unit_test(test_chain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
