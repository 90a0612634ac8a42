/*
 * The Heisenberg spin glass on several CUDA devices (desc.n_devices, desc.device_list;
 * doc/cuda.md, "Several GPUs"): the same chain as on one GPU, bit for bit.
 *
 * The chains themselves (one GPU, several devices, slabs on one GPU, checkpoints of slabs
 * continued elsewhere: bit for bit against one GPU, and the CPU where its chain is
 * CUDA's) are rows of the identity matrix (tests/repro/identity, `--layout cuda`).
 *
 * - set_and_get: spins and couplings written with set_spins / set_couplings read back
 *   identically, and the chain from them equals one GPU's; get_couplings equals one
 *   GPU's as drawn.
 * - long_calls: sweep calls of more steps than one list of the core's plan (64): one GPU
 *   against 2 slabs, and (double overrelaxation) the CPU.
 * Exits 77 (skipped, saying why) without a usable CUDA module and GPU.
 */
#include "heisenberg_test_helpers.h"
/* after the helpers: it declares the tests' ctx */
#include "cuda_devices_test.h"
#include "cuda_devices_cases.h"

/* The chain of every case: the spin glass's low temperature in a field, nover passes. */
static struct test_params heisenberg_chain(int nover)
{
    const struct test_params p = { { { LATMC_PARAM_BETA, 1.3 }, { LATMC_PARAM_H, 0.1 },
                                     { LATMC_PARAM_NOVER, nover } } };
    return p;
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


/* The long-calls case's algorithms, and its comparisons after each call. */
static const int long_calls_algos[2] = { LATMC_ALGO_HEATBATH, LATMC_ALGO_OVERRELAX };

static void long_calls_same(latmc_sim *one, latmc_sim *many, latmc_sim *cpu, int k)
{
    assert_same(many, one, k ? "long calls, overrelaxation" : "long calls, heat bath");
    if (long_calls_algos[k] == LATMC_ALGO_OVERRELAX)
        assert_same(cpu, one, "long calls, overrelaxation, CPU");
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
    const int nover[2] = { 40, 33 };
    const uint64_t calls[] = { 1, 3 };
    for (int k = 0; k < 2; k++) {
        latmc_sim_desc d = heisenberg_desc(3, 8, 6, 8, 2, LATMC_COUPLINGS_GAUSSIAN,
                                           long_calls_algos[k], 1, 0x4e16 + k);
        d.precision = LATMC_PRECISION_DOUBLE;
        const struct test_params chain = heisenberg_chain(nover[k]);
        check_long_calls(d, &chain, calls, sizeof calls / sizeof calls[0], long_calls_same, k);
    }
}

/* Gaussian couplings from *rng. */
static void fill_gaussian(float *j, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        j[i] = (float)test_gaussian(rng);
}

static void set_and_get(void **state)
{
    (void)state;
    latmc_sim_desc d = heisenberg_desc(3, 8, 6, 10, 2, LATMC_COUPLINGS_GAUSSIAN,
                                       LATMC_ALGO_HEATBATH, 1, 31);
    const struct test_params chain = heisenberg_chain(1);
    latmc_sim *one = make_on(d, LATMC_DEVICE_CUDA, 1, &chain, LATMC_INIT_COLD);
    latmc_sim *many = make_on(d, LATMC_DEVICE_CUDA, 3, &chain, LATMC_INIT_COLD);
    uint64_t rng = 4711;
    check_couplings_get_set(one, many, (size_t)8 * 6 * 10 * 3, fill_gaussian, &rng);
    const size_t n = (size_t)8 * 6 * 10 * 2 * 3; /* floats: 2 replicas */
    float *s = malloc(n * sizeof *s);
    assert_non_null(s);
    for (size_t i = 0; i < n; i += 3)
        test_unit_vector(&rng, s + i);
    check_set_and_get(one, many, s, n * sizeof *s, 4, assert_same, "set_spins, set_couplings");
    free(s);
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_and_get),
        cmocka_unit_test(long_calls),
    };
    return devices_main(tests, sizeof tests / sizeof tests[0]);
}
