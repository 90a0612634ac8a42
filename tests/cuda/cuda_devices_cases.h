/*
 * The case bodies that the Ising and the Heisenberg tests of a sim on several CUDA devices
 * (test_cuda_devices.c, test_cuda_devices_heisenberg.c) share: the couplings read and
 * written on one GPU and on slabs, and sweep calls of many steps on one GPU, on slabs and
 * on the CPU, and the program's run (skipped without a GPU). Each file keeps its lattices,
 * chains and comparisons. Header only (static inline): include it after the file's helpers
 * (sim_helpers.h or heisenberg_test_helpers.h), like cuda_devices_test.h.
 */
#ifndef LATMC_TEST_CUDA_DEVICES_CASES_H
#define LATMC_TEST_CUDA_DEVICES_CASES_H

#include "cuda_devices_test.h"

/* n couplings into j, drawn from *rng. */
typedef void (*couplings_fill_fn)(float *j, size_t n, uint64_t *rng);

/*
 * one's (one GPU) and many's (slabs) couplings: many has `expected` of them, both read the
 * same as drawn; new ones (fill, from *rng, which goes on from there) set on both, and many
 * reads them back as set.
 */
static inline void check_couplings_get_set(latmc_sim *one, latmc_sim *many, size_t expected,
                                           couplings_fill_fn fill, uint64_t *rng)
{
    size_t n = 0;
    assert_int_equal(latmc_sim_couplings_size(many, &n), LATMC_OK);
    assert_int_equal(n, expected);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(latmc_sim_get_couplings(one, a, n), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(many, b, n), LATMC_OK);
    assert_memory_equal(a, b, n * sizeof *a);
    fill(a, n, rng);
    assert_int_equal(latmc_sim_set_couplings(one, a, n), LATMC_OK);
    assert_int_equal(latmc_sim_set_couplings(many, a, n), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(many, b, n), LATMC_OK);
    assert_memory_equal(a, b, n * sizeof *a);
    free(a);
    free(b);
}

/* The comparisons after each sweep call of the long-calls case (k: the caller's case). */
typedef void (*long_calls_check_fn)(latmc_sim *one, latmc_sim *many, latmc_sim *cpu, int k);

/*
 * The long-calls case: the sims of d on one GPU, on 2 slabs and on the CPU, params set and
 * a hot start; the sweep calls calls[0 .. n_calls) on all three, check after each.
 */
static inline void check_long_calls(latmc_sim_desc d, const struct test_params *params,
                                    const uint64_t *calls, size_t n_calls,
                                    long_calls_check_fn check, int k)
{
    latmc_sim *one = make_on(d, LATMC_DEVICE_CUDA, 1, params, LATMC_INIT_HOT);
    latmc_sim *many = make_on(d, LATMC_DEVICE_CUDA, 2, params, LATMC_INIT_HOT);
    latmc_sim *cpu = make_on(d, LATMC_DEVICE_CPU, 1, params, LATMC_INIT_HOT);
    for (size_t c = 0; c < n_calls; c++) {
        assert_int_equal(latmc_sim_sweep(one, calls[c]), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(many, calls[c]), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(cpu, calls[c]), LATMC_OK);
        check(one, many, cpu, k);
    }
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
    latmc_sim_destroy(&cpu);
}

/*
 * A test program's exit status: without a GPU devices_open's (77: skipped, saying why; 1:
 * no context) before any case runs, else the cases tests[0 .. n) run as the group "tests"
 * and the context released. (cmocka_run_group_tests(tests, NULL, NULL) is this call of
 * _cmocka_run_group_tests, but takes the array itself, not a pointer to it.)
 */
static inline int devices_main(const struct CMUnitTest *tests, size_t n)
{
    const int skip = devices_open();
    if (skip)
        return skip;
    const int failed = _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed;
}

#endif
