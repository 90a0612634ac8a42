/*
 * A sim on several CUDA devices (desc.n_devices, desc.device_list; doc/cuda.md, "Several
 * GPUs"): the same chain as on one GPU and as on the CPU, bit for bit.
 *
 * The chains themselves (one GPU, several devices, slabs on one GPU, checkpoints of slabs
 * continued elsewhere: bit for bit against one GPU, and the CPU where its chain is
 * CUDA's) are rows of the identity matrix (tests/repro/identity, `--layout cuda`).
 *
 * - couplings (+-J): get_couplings equal to one GPU's, set_couplings then the same chain.
 * - set_and_get: a configuration written with set_spins reads back identically, and the
 *   chain from it equals one GPU's.
 * - bad_requests: more devices than exist (ENODEV), a split the lattice cannot take
 *   (EINVAL, Potts too), n_devices on the CPU (EUNSUPPORTED), each with a message naming
 *   the field.
 * - out_of_memory: with the packed arrays forced (LATMC_CUDA_ISING_FORM=packed), a lattice
 *   whose second slab does not fit the card (both slabs on GPU 0): LATMC_ENOMEM, no sim,
 *   and every slab's memory released (a sim of the first slab's size fits again
 *   afterwards); unforced, the same lattice is made at 1 bit a spin and sweeps. Under
 *   LATMC_CUDA_KERNELS=reference (the byte layout everywhere) the first part at a byte a
 *   site.
 * - peer: latmc_ctx_device_peer answers for every pair; a == b is 1.
 * - set_parts_refused: latmc_sim_set_parts is LATMC_EUNSUPPORTED on one GPU and on slabs.
 * - long_calls: sweep calls of more steps than one list of the core's plan (64): one GPU
 *   against the CPU and 2 slabs, packed and byte kernels.
 * Exits 77 (skipped, saying why) without a usable CUDA module and GPU.
 */
#include "sim_helpers.h"
/* after the helpers: it declares the tests' ctx */
#include "cuda_devices_test.h"
#include "cuda_devices_cases.h"

/* the chain of every case: 2D's critical point */
static const struct test_params ising_chain = { { { LATMC_PARAM_BETA, 0.4406868 } } };

static const int obs_keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                LATMC_OBS_ACCEPTANCE };

/* Configuration, these observables (bit for bit) and acceptance counts of a and b are
 * equal. */
static void assert_same(latmc_sim *a, latmc_sim *b, const char *what)
{
    assert_same_sims(a, b, obs_keys, sizeof obs_keys / sizeof obs_keys[0], what);
}

static void set_and_get(void **state)
{
    (void)state;
    latmc_sim_desc d = ising_desc(2, 64, 24, 0, LATMC_ALGO_METROPOLIS, 1, 77);
    latmc_sim *one = make_on(d, LATMC_DEVICE_CUDA, 1, &ising_chain, LATMC_INIT_COLD);
    latmc_sim *many = make_on(d, LATMC_DEVICE_CUDA, 3, &ising_chain, LATMC_INIT_COLD);
    const size_t n = 64 * 24;
    int8_t *buf = malloc(n);
    assert_non_null(buf);
    uint64_t rng = 12345;
    for (size_t i = 0; i < n; i++)
        buf[i] = (test_rng_next(&rng) >> 63) ? 1 : -1;
    check_set_and_get(one, many, buf, n, 5, assert_same, "set_spins");
    free(buf);
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
}

/* +-1 couplings from *rng. */
static void fill_bimodal(float *j, size_t n, uint64_t *rng)
{
    for (size_t i = 0; i < n; i++)
        j[i] = (test_rng_next(rng) >> 63) ? 1.0f : -1.0f;
}

/* +-J: the couplings read back as drawn, and new ones set on both give the same chain. */
static void couplings(void **state)
{
    (void)state;
    latmc_sim_desc d = ising_desc(3, 64, 4, 12, LATMC_ALGO_METROPOLIS, 1, 21);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.coupling_seed = 8;
    latmc_sim *one = make_on(d, LATMC_DEVICE_CUDA, 1, &ising_chain, LATMC_INIT_HOT);
    latmc_sim *many = make_on(d, LATMC_DEVICE_CUDA, 3, &ising_chain, LATMC_INIT_HOT);
    uint64_t rng = 777;
    check_couplings_get_set(one, many, (size_t)64 * 4 * 12 * 3, fill_bimodal, &rng);
    assert_same(one, many, "set_couplings");
    assert_int_equal(latmc_sim_sweep(one, 6), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(many, 6), LATMC_OK);
    assert_same(one, many, "set_couplings, 6 sweeps");
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
}

static void expect_refusal(latmc_sim_desc d, int status, const char *needle)
{
    latmc_sim *sim = (latmc_sim *)&sim;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (st != status || !strstr(latmc_last_error(), needle))
        print_error("got %d (%s), expected %d with \"%s\"\n", st, latmc_last_error(), status,
                    needle);
    assert_int_equal(st, status);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), needle));
}

static void bad_requests(void **state)
{
    (void)state;
    latmc_sim_desc d = ising_desc(2, 32, 16, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.device = LATMC_DEVICE_CUDA;
    d.n_devices = ngpus + 1; /* one more than exist, named by device_index + slab */
    expect_refusal(d, LATMC_ENODEV, "n_devices");
    int bad_list[2] = { 0, ngpus };
    d.n_devices = 2;
    d.device_list = bad_list;
    expect_refusal(d, LATMC_ENODEV, "n_devices");
    bad_list[1] = -1;
    expect_refusal(d, LATMC_ENODEV, "device_list");
    d.device_list = devices_for(16);
    d.n_devices = 16; /* 16 rows in 16 slabs of one: thinner than the 2-row unit */
    expect_refusal(d, LATMC_EINVAL, "n_devices");
    d.n_devices = 2;
    d.n_parts = 4;
    expect_refusal(d, LATMC_EINVAL, "n_parts");
    d.n_parts = 0;
    d.device = LATMC_DEVICE_CPU;
    expect_refusal(d, LATMC_EUNSUPPORTED, "n_devices");
    d.device = LATMC_DEVICE_CUDA;
    /* L_x not a multiple of 16 (64 with +-J) runs the byte slabs: test_cuda_devices_potts.c */
    latmc_sim_desc p; /* Potts runs on slabs (test_cuda_devices_potts.c), of c planes */
    latmc_sim_desc_init(&p);
    p.model = LATMC_MODEL_POTTS;
    p.q = 3;
    p.extent[0] = p.extent[1] = 16;
    p.device = LATMC_DEVICE_CUDA;
    p.n_devices = 16; /* 16 rows in 16 slabs of one: thinner than the 2 colours */
    p.device_list = devices_for(16);
    expect_refusal(p, LATMC_EINVAL, "n_devices");
    d.n_devices = 1;
    d.device_list = devices_for(1); /* a list needs n_devices > 1 */
    expect_refusal(d, LATMC_EINVAL, "device_list");
}

/* The long-calls case's comparisons after each call (k: the lattice, 64 x 32 or 48 x 20:
 * the packed and the byte kernels, or the byte kernels both under
 * LATMC_CUDA_KERNELS=reference, so named by the lattice). */
static void long_calls_same(latmc_sim *one, latmc_sim *many, latmc_sim *cpu, int k)
{
    assert_same(cpu, one, k ? "long calls, 48 x 20" : "long calls, 64 x 32");
    assert_same(many, one, k ? "long calls, 48 x 20, slabs" : "long calls, 64 x 32, slabs");
}

/*
 * Sweep calls of many steps: the core hands the steps to the backend up to 64 at a time
 * (lib/plan.c), and one GPU enqueues every list of a call before the call's one wait
 * (cuda_backend.c): calls of 33 and 70 sweeps (66 and 140 steps) against the CPU and 2
 * slabs, the packed kernels (64 x 32) and the byte kernels (48 x 20), the configuration,
 * every observable and the acceptance counts after each call.
 */
static void long_calls(void **state)
{
    (void)state;
    const int64_t lx[2] = { 64, 48 }, ly[2] = { 32, 20 };
    const uint64_t calls[] = { 33, 70 };
    for (int k = 0; k < 2; k++) {
        const latmc_sim_desc d = ising_desc(2, lx[k], ly[k], 0, LATMC_ALGO_METROPOLIS, 1,
                                            0x10a6 + k);
        check_long_calls(d, &ising_chain, calls, sizeof calls / sizeof calls[0],
                         long_calls_same, k);
    }
}

/*
 * latmc_sim_set_parts on CUDA: refused, whatever the sim (the boxes own their memory, cut
 * at creation), also for a one-device sim, whose backend takes the core's step lists
 * (run_steps) as the CPU's does; the sim sweeps on as before after the refusal.
 */
static void set_parts_refused(void **state)
{
    (void)state;
    latmc_sim_desc d = ising_desc(2, 32, 16, 0, LATMC_ALGO_METROPOLIS, 1, 5);
    d.device = LATMC_DEVICE_CUDA;
    for (int n = 1; n <= 2; n++) {
        latmc_sim *sim = create_on(d, n);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        const int st = latmc_sim_set_parts(sim, 2);
        const char *needle = n == 1 ? "fixed at creation" : "several devices";
        if (st != LATMC_EUNSUPPORTED || !strstr(latmc_last_error(), needle))
            print_error("%d device(s): got %d (%s)\n", n, st, latmc_last_error());
        assert_int_equal(st, LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_last_error(), needle));
        assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
        latmc_sim_destroy(&sim);
    }
}

/* Ising slabs cost half a byte a site (the packed words only; doc/cuda.md, "Memory"), or a
 * byte a site on the byte layout (LATMC_CUDA_KERNELS=reference). */
static void out_of_memory(void **state)
{
    (void)state;
    const latmc_sim_desc model = ising_desc(2, 0, 0, 0, LATMC_ALGO_METROPOLIS, 1, 3);
    const char *kernels = getenv("LATMC_CUDA_KERNELS");
    if (kernels && strcmp(kernels, "reference") == 0) {
        /* every box on the byte layout (1 byte a site), whatever the form asked */
        check_slabs_out_of_memory(1.0, 2, model);
        return;
    }
    /* the packed arrays (0.5 bytes a site) forced: the second slab does not fit */
    assert_int_equal(setenv("LATMC_CUDA_ISING_FORM", "packed", 1), 0);
    check_slabs_out_of_memory(0.5, 2, model);
    assert_int_equal(unsetenv("LATMC_CUDA_ISING_FORM"), 0);
    /* unforced, the same two slabs (1.2 x the card at 0.5 bytes a site) are made at 1 bit
     * a spin (doc/cuda.md, "One bit a spin": chosen where one device's packed boxes do not
     * fit its free memory) and sweep */
    const int64_t lx = 65536;
    int64_t half_rows = (int64_t)(0.6 * gpu0_memory_bytes() / 0.5 / (double)lx);
    half_rows -= half_rows % 2;
    latmc_sim_desc d = model;
    d.device = LATMC_DEVICE_CUDA;
    d.extent[0] = lx;
    d.extent[1] = 2 * half_rows;
    d.n_devices = 2;
    const int zeros[2] = { 0, 0 };
    d.device_list = zeros;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    latmc_sim_destroy(&sim);
}

static void peer(void **state)
{
    (void)state;
    for (int a = 0; a < ngpus; a++)
        for (int b = 0; b < ngpus; b++) {
            int can = -1;
            assert_int_equal(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CUDA, a, b, &can),
                             LATMC_OK);
            assert_true(can == 0 || can == 1);
            if (a == b)
                assert_int_equal(can, 1);
        }
    int can = 0;
    assert_int_equal(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CUDA, 0, ngpus, &can),
                     LATMC_ENODEV);
    assert_int_equal(latmc_ctx_device_peer(ctx, LATMC_DEVICE_CPU, 0, 0, &can), LATMC_OK);
    assert_int_equal(can, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_and_get),
        cmocka_unit_test(couplings),
        cmocka_unit_test(bad_requests),
        cmocka_unit_test(peer),
        cmocka_unit_test(set_parts_refused),
        cmocka_unit_test(long_calls),
        cmocka_unit_test(out_of_memory),
    };
    return devices_main(tests, sizeof tests / sizeof tests[0]);
}
