/*
 * The Heisenberg spin glass on several CUDA devices (desc.n_devices, desc.device_list;
 * doc/cuda.md, "Several GPUs"): the same chain as on one GPU, bit for bit.
 *
 * - same_chain: 2D and 3D; 2 slabs, uneven slabs (3 slabs as lib/plan.c cuts them), the
 *   thinnest slabs allowed (2 planes each); heat bath with nover 0 and 2, overrelaxation
 *   alone (nover 3); 1 and 2 replicas; uniform, Gaussian and +-J couplings; float and
 *   double; hot and cold start; L_x a multiple of 8 (the heat bath's shared draws) and
 *   not (12): against one GPU, the configuration (every float), every observable and the
 *   acceptance counts after each of several sweep calls, and a change of nover between
 *   calls. Slab i on GPU i mod (number of GPUs): with one GPU every slab is on GPU 0 (the
 *   same code path with device copies instead of peer copies).
 * - set_and_get: spins and couplings written with set_spins / set_couplings read back
 *   identically, and the chain from them equals one GPU's; get_couplings equals one
 *   GPU's as drawn.
 * - checkpoint: saved on several slabs, loaded (one GPU) and continued: bit-identical.
 * - parts_on_one_gpu: desc.n_parts = 3 without n_devices runs the slabs all on
 *   device_index (the last GPU), the one-GPU chain.
 * - long_calls: sweep calls of more steps than one list of the core's plan (64): one GPU
 *   against 2 slabs, and (double overrelaxation) the CPU.
 * Exits 77 (skipped, saying why) without a usable CUDA module and GPU.
 */
#include "heisenberg_test_helpers.h"
/* after the helpers: it declares the tests' ctx */
#include "cuda_devices_test.h"

static latmc_sim *make(latmc_sim_desc d, int n_devices, int start, int nover)
{
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *sim = create_on(d, n_devices);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 1.3), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.1), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, nover), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, start), LATMC_OK);
    return sim;
}

static const int obs_keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                LATMC_OBS_OVERLAP2, LATMC_OBS_ACCEPTANCE };

/* Configuration, these observables (bit for bit) and acceptance counts of a and b are
 * equal. */
static void assert_same(latmc_sim *a, latmc_sim *b, const char *what)
{
    assert_same_sims(a, b, obs_keys, sizeof obs_keys / sizeof obs_keys[0], what);
}

static const struct shape shapes[] = {
    { 2, 32, 16, 0, 2, "2D, two slabs" },
    { 2, 16, 20, 0, 3, "2D, uneven slabs" },
    { 2, 12, 16, 0, 8, "2D, the thinnest slabs (2 rows), L_x = 12" },
    { 3, 16, 8, 12, 2, "3D, two slabs" },
    { 3, 8, 6, 14, 3, "3D, uneven slabs" },
    { 3, 12, 4, 10, 5, "3D, the thinnest slabs (2 planes), L_x = 12" },
    { 3, 72, 10, 8, 2, "3D, L_x and L_y over one tile" },
};

struct variant {
    int algorithm, nover, replicas, couplings, precision;
};

static const struct variant variants[] = {
    { LATMC_ALGO_HEATBATH, 2, 2, LATMC_COUPLINGS_GAUSSIAN, LATMC_PRECISION_FLOAT },
    { LATMC_ALGO_HEATBATH, 0, 1, LATMC_COUPLINGS_UNIFORM, LATMC_PRECISION_DOUBLE },
    { LATMC_ALGO_OVERRELAX, 3, 2, LATMC_COUPLINGS_BIMODAL, LATMC_PRECISION_DOUBLE },
    { LATMC_ALGO_HEATBATH, 1, 2, LATMC_COUPLINGS_BIMODAL, LATMC_PRECISION_DOUBLE },
    { LATMC_ALGO_OVERRELAX, 1, 1, LATMC_COUPLINGS_GAUSSIAN, LATMC_PRECISION_FLOAT },
};

static void same_chain(void **state)
{
    (void)state;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const struct shape *sh = &shapes[s];
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            const struct variant *va = &variants[v];
            const int start = (s + v) % 2 ? LATMC_INIT_HOT : LATMC_INIT_COLD;
            latmc_sim_desc d = heisenberg_desc(sh->ndim, sh->lx, sh->ly, sh->lz, va->replicas,
                                               va->couplings, va->algorithm, 1, 0x4e15 + s);
            d.precision = va->precision;
            latmc_sim *one = make(d, 1, start, va->nover);
            latmc_sim *many = make(d, sh->n, start, va->nover);
            char what[200];
            snprintf(what, sizeof what, "%s, variant %zu (algo %d, nover %d, %d replicas, "
                     "couplings %d, precision %d), start %d", sh->why, v, va->algorithm,
                     va->nover, va->replicas, va->couplings, va->precision, start);
            assert_same(one, many, what);
            const uint64_t calls[] = { 1, 2, 5 };
            for (int c = 0; c < 3; c++) {
                if (c == 2) { /* a new schedule length on both */
                    assert_int_equal(latmc_sim_set_param(one, LATMC_PARAM_NOVER, 1), LATMC_OK);
                    assert_int_equal(latmc_sim_set_param(many, LATMC_PARAM_NOVER, 1), LATMC_OK);
                }
                assert_int_equal(latmc_sim_sweep(one, calls[c]), LATMC_OK);
                assert_int_equal(latmc_sim_sweep(many, calls[c]), LATMC_OK);
                assert_same(one, many, what);
            }
            latmc_sim_destroy(&one);
            latmc_sim_destroy(&many);
        }
    }
}

/*
 * Sweep calls of more steps than one list of the core's plan (64, lib/plan.c): heat bath
 * with nover 40 (82 steps a sweep: on one GPU 41 fused pairs, one launch each, enqueued
 * before the call's one wait) and overrelaxation with nover 33, double precision, sweep
 * calls of 1 and 3: one GPU against 2 slabs after each call, and for overrelaxation
 * against the CPU too (double overrelaxation is the CPU's arithmetic, bit for bit; the
 * heat bath's log/exp/sin/cos are CUDA's: conformance_heisenberg.c).
 */
static void long_calls(void **state)
{
    (void)state;
    const int algos[2] = { LATMC_ALGO_HEATBATH, LATMC_ALGO_OVERRELAX }, nover[2] = { 40, 33 };
    for (int k = 0; k < 2; k++) {
        latmc_sim_desc d = heisenberg_desc(3, 8, 6, 8, 2, LATMC_COUPLINGS_GAUSSIAN, algos[k],
                                           1, 0x4e16 + k);
        d.precision = LATMC_PRECISION_DOUBLE;
        latmc_sim *one = make(d, 1, LATMC_INIT_HOT, nover[k]);
        latmc_sim *many = make(d, 2, LATMC_INIT_HOT, nover[k]);
        d.device = LATMC_DEVICE_CPU;
        latmc_sim *cpu = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &cpu), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(cpu, LATMC_PARAM_BETA, 1.3), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(cpu, LATMC_PARAM_H, 0.1), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(cpu, LATMC_PARAM_NOVER, nover[k]), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(cpu, LATMC_INIT_HOT), LATMC_OK);
        const uint64_t calls[] = { 1, 3 };
        for (int c = 0; c < 2; c++) {
            assert_int_equal(latmc_sim_sweep(one, calls[c]), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(many, calls[c]), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(cpu, calls[c]), LATMC_OK);
            assert_same(many, one, k ? "long calls, overrelaxation" : "long calls, heat bath");
            if (algos[k] == LATMC_ALGO_OVERRELAX)
                assert_same(cpu, one, "long calls, overrelaxation, CPU");
        }
        latmc_sim_destroy(&one);
        latmc_sim_destroy(&many);
        latmc_sim_destroy(&cpu);
    }
}

static void set_and_get(void **state)
{
    (void)state;
    latmc_sim_desc d = heisenberg_desc(3, 8, 6, 10, 2, LATMC_COUPLINGS_GAUSSIAN,
                                       LATMC_ALGO_HEATBATH, 1, 31);
    latmc_sim *one = make(d, 1, LATMC_INIT_COLD, 1);
    latmc_sim *many = make(d, 3, LATMC_INIT_COLD, 1);
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(many, &nc), LATMC_OK);
    assert_int_equal(nc, (size_t)8 * 6 * 10 * 3);
    float *ja = malloc(nc * sizeof *ja), *jb = malloc(nc * sizeof *jb);
    assert_non_null(ja);
    assert_non_null(jb);
    assert_int_equal(latmc_sim_get_couplings(one, ja, nc), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(many, jb, nc), LATMC_OK);
    assert_memory_equal(ja, jb, nc * sizeof *ja);
    uint64_t rng = 4711;
    for (size_t i = 0; i < nc; i++)
        ja[i] = (float)test_gaussian(&rng);
    assert_int_equal(latmc_sim_set_couplings(one, ja, nc), LATMC_OK);
    assert_int_equal(latmc_sim_set_couplings(many, ja, nc), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(many, jb, nc), LATMC_OK);
    assert_memory_equal(ja, jb, nc * sizeof *ja);

    const size_t n = (size_t)8 * 6 * 10 * 2 * 3; /* floats: 2 replicas */
    float *s = malloc(n * sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i < n; i += 3)
        test_unit_vector(&rng, s + i);
    check_set_and_get(one, many, s, n * sizeof *s, 4, assert_same, "set_spins, set_couplings");
    free(ja);
    free(jb);
    free(s);
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
}

static void checkpoint(void **state)
{
    (void)state;
    latmc_sim_desc d = heisenberg_desc(3, 16, 4, 8, 2, LATMC_COUPLINGS_BIMODAL,
                                       LATMC_ALGO_HEATBATH, 1, 5);
    latmc_sim *one = make(d, 1, LATMC_INIT_HOT, 2);
    latmc_sim *many = make(d, 2, LATMC_INIT_HOT, 2);
    check_checkpoint(one, many, 3, 4, assert_same, false);
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
}

/* desc.n_parts > 1 on CUDA without n_devices: the same slabs, all on device_index (also
 * on a machine with one GPU), the one-GPU chain. */
static void parts_on_one_gpu(void **state)
{
    (void)state;
    const latmc_sim_desc d = heisenberg_desc(3, 16, 4, 12, 2, LATMC_COUPLINGS_GAUSSIAN,
                                             LATMC_ALGO_HEATBATH, 1, 17);
    latmc_sim *one = make(d, 1, LATMC_INIT_HOT, 1);
    latmc_sim *parts = make(as_three_parts(d), 1, LATMC_INIT_HOT, 1);
    assert_same(one, parts, "n_parts = 3");
    check_parts(one, parts, assert_same);
}

int main(void)
{
    const int skip = devices_open();
    if (skip)
        return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_chain),
        cmocka_unit_test(set_and_get),
        cmocka_unit_test(checkpoint),
        cmocka_unit_test(parts_on_one_gpu),
        cmocka_unit_test(long_calls),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed;
}
