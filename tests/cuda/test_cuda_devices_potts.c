/*
 * The q-state Potts model, and Ising on the byte layout, on several CUDA devices (desc.n_devices, desc.device_list;
 * doc/cuda.md, "Several GPUs"): the chain of one GPU and of the CPU, bit for bit.
 *
 * The chains themselves (one GPU, several devices, slabs on one GPU, checkpoints of slabs
 * continued elsewhere: bit for bit against one GPU, and the CPU where its chain is
 * CUDA's) are rows of the identity matrix (tests/repro/identity, `--layout cuda`).
 *
 * - set_and_get: spins written with set_spins read back identically, and the chain from
 *   them equals one GPU's.
 * - out_of_memory: a lattice whose second slab does not fit the card (both slabs on GPU
 *   0): LATMC_ENOMEM naming the device, no sim, and every slab's memory released (a sim
 *   of the first slab's size fits again afterwards).
 * - ising_bytes: Ising where the multi-spin coded slabs do not fit (L_x not a multiple of
 *   16) runs on the same byte slabs: 2D and 3D, uniform and +-J (L_x 10, 12), Metropolis
 *   and heat bath, hot and cold, 2 slabs, uneven and thinnest slabs (and +-J at L_x 32,
 *   48 on the packed slabs),
 *   against one GPU and the CPU after every sweep call; +-J couplings read back as drawn,
 *   set_couplings then the same chain; set/get spins.
 * - long_calls: sweep calls of more steps than one list of the core's plan (64), 2 and 3
 *   colours: one GPU against the CPU and 3 slabs.
 * Under LATMC_CUDA_KERNELS=reference every range runs the reference kernel (and every
 * Ising slab the byte layout). Exits 77 (skipped, saying why) without a usable CUDA module and GPU.
 */
#include "sim_helpers.h"
/* after the helpers: it declares the tests' ctx */
#include "cuda_devices_test.h"

/* The chain: near the transition (beta_c = ln(1 + sqrt q) in 2D), with a field on state
 * 0. */
static const struct test_params potts_chain_2d = { { { LATMC_PARAM_BETA, 1.0 },
                                                     { LATMC_PARAM_H, 0.05 } } };
static const struct test_params potts_chain_3d = { { { LATMC_PARAM_BETA, 0.55 },
                                                     { LATMC_PARAM_H, 0.05 } } };
/* The Ising cases' chain: 2D's critical point. */
static const struct test_params ising_chain = { { { LATMC_PARAM_BETA, 0.4406868 } } };

static const struct test_params *potts_chain(const latmc_sim_desc *d)
{
    return d->ndim == 2 ? &potts_chain_2d : &potts_chain_3d;
}

static const int obs_keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                LATMC_OBS_ACCEPTANCE };

/* Configuration, these observables (bit for bit) and acceptance counts of a and b are
 * equal. */
static void assert_same(latmc_sim *a, latmc_sim *b, const char *what)
{
    assert_same_sims(a, b, obs_keys, sizeof obs_keys / sizeof obs_keys[0], what);
}

/*
 * Sweep calls of more steps than one list of the core's plan (64, lib/plan.c; one GPU
 * enqueues them all before the call's one wait): 33 and 70 sweeps with 2 and 3 colours
 * (66 to 210 steps), one GPU against the CPU and 3 slabs after each call.
 */
static void long_calls(void **state)
{
    (void)state;
    const struct shape cases[] = {
        { 2, 32, 16, 0, 3, "2D, 2 colours, long calls" },
        { 2, 24, 27, 0, 3, "2D, 3 colours, long calls" },
    };
    for (int k = 0; k < 2; k++) {
        const latmc_sim_desc d = potts_test_desc(cases[k].ndim, cases[k].lx, cases[k].ly,
                                            cases[k].lz, 3, LATMC_ALGO_HEATBATH, 1, 0x5077 + k);
        latmc_sim *one = make_on(d, LATMC_DEVICE_CUDA, 1, potts_chain(&d), LATMC_INIT_HOT);
        latmc_sim *many = make_on(d, LATMC_DEVICE_CUDA, cases[k].n, potts_chain(&d),
                                  LATMC_INIT_HOT);
        latmc_sim *cpu = make_on(d, LATMC_DEVICE_CPU, 1, potts_chain(&d), LATMC_INIT_HOT);
        const uint64_t calls[] = { 33, 70 };
        for (int c = 0; c < 2; c++) {
            assert_int_equal(latmc_sim_sweep(one, calls[c]), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(many, calls[c]), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(cpu, calls[c]), LATMC_OK);
            assert_same(cpu, one, cases[k].why);
            assert_same(many, one, cases[k].why);
        }
        latmc_sim_destroy(&one);
        latmc_sim_destroy(&many);
        latmc_sim_destroy(&cpu);
    }
}

static const struct shape ising_shapes[] = {
    { 2, 24, 16, 0, 2, "2D, L_x = 24 (one GPU: 8-byte row kernel), two slabs" },
    { 2, 10, 22, 0, 3, "2D, L_x = 10, uneven slabs (blocks across rows)" },
    { 2, 40, 16, 0, 8, "2D, L_x = 40, the thinnest slabs (2 rows)" },
    { 3, 12, 4, 14, 3, "3D, L_x = 12, uneven slabs" },
    { 3, 6, 6, 10, 5, "3D, L_x = 6, the thinnest slabs (blocks across planes)" },
    { 2, 32, 12, 0, 3, "2D, +-J with L_x = 32 (packed slabs)" },
    { 3, 48, 4, 8, 2, "3D, +-J with L_x = 48 (packed slabs)" },
};

static void ising_bytes(void **state)
{
    (void)state;
    const int algos[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    for (size_t s = 0; s < sizeof ising_shapes / sizeof ising_shapes[0]; s++) {
        const struct shape *sh = &ising_shapes[s];
        /* +-J: on the byte slabs at L_x 10 and 12, on the packed ones at 32 and 48 */
        const int pmj = sh->lx % 16 == 0 || sh->lx == 10 || sh->lx == 12;
        for (int a = 0; a < 2; a++)
            for (int start = LATMC_INIT_COLD; start <= LATMC_INIT_HOT; start++) {
                latmc_sim_desc d = ising_desc(sh->ndim, sh->lx, sh->ly, sh->lz, algos[a], 1,
                                              0x15e + s);
                if (pmj) {
                    d.couplings = LATMC_COUPLINGS_BIMODAL;
                    d.coupling_seed = 31 + s;
                }
                latmc_sim *sims[3];
                for (int k = 0; k < 3; k++)
                    sims[k] = make_on(d, k == 2 ? LATMC_DEVICE_CPU : LATMC_DEVICE_CUDA,
                                      k == 1 ? sh->n : 1, &ising_chain, start);
                char what[200];
                snprintf(what, sizeof what, "Ising %s, algo %d, start %d", sh->why, algos[a],
                         start);
                assert_same(sims[0], sims[1], what);
                assert_same(sims[2], sims[1], what);
                const uint64_t calls[] = { 1, 3, 4 };
                for (int c = 0; c < 3; c++) {
                    for (int k = 0; k < 3; k++)
                        assert_int_equal(latmc_sim_sweep(sims[k], calls[c]), LATMC_OK);
                    assert_same(sims[0], sims[1], what);
                    assert_same(sims[2], sims[1], what);
                }
                if (pmj && a == 0 && start == LATMC_INIT_HOT) {
                    /* couplings: as drawn, then new ones on all three */
                    size_t n = 0;
                    assert_int_equal(latmc_sim_couplings_size(sims[1], &n), LATMC_OK);
                    float *ja = malloc(n * sizeof *ja), *jb = malloc(n * sizeof *jb);
                    assert_non_null(ja);
                    assert_non_null(jb);
                    assert_int_equal(latmc_sim_get_couplings(sims[0], ja, n), LATMC_OK);
                    assert_int_equal(latmc_sim_get_couplings(sims[1], jb, n), LATMC_OK);
                    assert_memory_equal(ja, jb, n * sizeof *ja);
                    uint64_t rng = 99 + s;
                    for (size_t i = 0; i < n; i++)
                        ja[i] = (test_rng_next(&rng) >> 63) ? 1.0f : -1.0f;
                    for (int k = 0; k < 3; k++)
                        assert_int_equal(latmc_sim_set_couplings(sims[k], ja, n), LATMC_OK);
                    assert_int_equal(latmc_sim_get_couplings(sims[1], jb, n), LATMC_OK);
                    assert_memory_equal(ja, jb, n * sizeof *ja);
                    for (int k = 0; k < 3; k++)
                        assert_int_equal(latmc_sim_sweep(sims[k], 3), LATMC_OK);
                    assert_same(sims[0], sims[1], "set_couplings");
                    assert_same(sims[2], sims[1], "set_couplings");
                    free(ja);
                    free(jb);
                }
                if (s == 1 && a == 1 && start == LATMC_INIT_COLD) {
                    /* set_spins, get_spins */
                    const size_t n = (size_t)(sh->lx * sh->ly);
                    int8_t *buf = malloc(n), *back = malloc(n);
                    assert_non_null(buf);
                    assert_non_null(back);
                    uint64_t rng = 5;
                    for (size_t i = 0; i < n; i++)
                        buf[i] = (test_rng_next(&rng) >> 63) ? 1 : -1;
                    for (int k = 0; k < 3; k++)
                        assert_int_equal(latmc_sim_set_spins(sims[k], buf, n), LATMC_OK);
                    assert_int_equal(latmc_sim_get_spins(sims[1], back, n), LATMC_OK);
                    assert_memory_equal(buf, back, n);
                    for (int k = 0; k < 3; k++)
                        assert_int_equal(latmc_sim_sweep(sims[k], 2), LATMC_OK);
                    assert_same(sims[0], sims[1], "set_spins");
                    assert_same(sims[2], sims[1], "set_spins");
                    free(buf);
                    free(back);
                }
                for (int k = 0; k < 3; k++)
                    latmc_sim_destroy(&sims[k]);
            }
    }
}

static void set_and_get(void **state)
{
    (void)state;
    const int64_t lx = 24, ly = 18;
    latmc_sim_desc d = potts_test_desc(2, lx, ly, 0, 4, LATMC_ALGO_HEATBATH, 1, 77);
    latmc_sim *one = make_on(d, LATMC_DEVICE_CUDA, 1, potts_chain(&d), LATMC_INIT_COLD);
    latmc_sim *many = make_on(d, LATMC_DEVICE_CUDA, 3, potts_chain(&d), LATMC_INIT_COLD);
    const size_t n = (size_t)(lx * ly);
    uint8_t *buf = malloc(n);
    assert_non_null(buf);
    uint64_t rng = 12345;
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(test_rng_next(&rng) % 4);
    check_set_and_get(one, many, buf, n, 5, assert_same, "set_spins");
    free(buf);
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
}

/* Potts slabs cost 1 byte a site. */
static void out_of_memory(void **state)
{
    (void)state;
    check_slabs_out_of_memory(1.0, 2,
                              potts_test_desc(2, 0, 0, 0, 3, LATMC_ALGO_METROPOLIS, 1, 3));
}

int main(void)
{
    const int skip = devices_open();
    if (skip)
        return skip;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_and_get),
        cmocka_unit_test(out_of_memory),
        cmocka_unit_test(ising_bytes),
        cmocka_unit_test(long_calls),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed;
}
