/*
 * phi^4 on several CUDA devices (desc.n_devices, desc.device_list; doc/cuda.md, "Several
 * GPUs"): the same chain as on one GPU, bit for bit, and, in the site order (the CPU's
 * chain, double precision), as on the CPU.
 *
 * The chains themselves (one GPU, several devices, slabs on one GPU, checkpoints of slabs
 * continued elsewhere: bit for bit against one GPU, and the CPU where its chain is
 * CUDA's) are rows of the identity matrix (tests/repro/identity, `--layout cuda`).
 *
 * - set_and_get: a field written with set_spins reads back identically, and the chain from
 *   it equals one GPU's.
 * - too_few_layers: more slabs than chunk layers: LATMC_EUNSUPPORTED naming the variable.
 * - out_of_memory: a lattice whose second slab does not fit the card (both on GPU 0):
 *   LATMC_ENOMEM, no sim, every slab's memory released.
 * Slab i on GPU i mod (number of GPUs). Exits 77 (skipped, saying why) without a usable
 * CUDA module and GPU.
 */
#include <math.h>

#include "cuda_devices_test.h"

#define CHUNK_ENV "LATMC_CUDA_PHI4_CHUNK"

#define SEED 20261122

static const int obs_keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                LATMC_OBS_PHI2, LATMC_OBS_ACCEPTANCE };

/* Configuration, these observables (bit for bit) and acceptance counts of a and b are
 * equal. */
static void assert_same(latmc_sim *a, latmc_sim *b, const char *what)
{
    assert_same_sims(a, b, obs_keys, sizeof obs_keys / sizeof obs_keys[0], what);
}



static void with_chunk(const char *chunk)
{
    if (chunk)
        setenv(CHUNK_ENV, chunk, 1);
    else
        unsetenv(CHUNK_ENV);
}

static void set_and_get(void **state)
{
    (void)state;
    for (int site_order = 0; site_order < 2; site_order++) {
        const latmc_sim_desc d = phi4_test_desc(3, 64, 8, 32, LATMC_PRECISION_DOUBLE, 1, SEED);
        const struct test_params chain = phi4_test_params(2.5, 2, 1);
        with_chunk(site_order ? "none" : "32x4x4");
        latmc_sim *one = make_on(d, LATMC_DEVICE_CUDA, 1, &chain, LATMC_INIT_COLD);
        latmc_sim *many = make_on(d, LATMC_DEVICE_CUDA, 3, &chain, LATMC_INIT_COLD);
        with_chunk(NULL);
        const size_t n = (size_t)64 * 8 * 32;
        double *f = malloc(n * sizeof *f);
        assert_non_null(f);
        uint64_t x = 88172645463325252ull;
        for (size_t i = 0; i < n; i++) { /* xorshift: values in [-2, 2) */
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            f[i] = (double)(x >> 11) * 0x1p-51 - 2.0;
        }
        check_set_and_get(one, many, f, n * sizeof *f, 3, assert_same, "set_spins");
        free(f);
        latmc_sim_destroy(&one);
        latmc_sim_destroy(&many);
    }
}

/* 3D 64 x 8 x 16: the default chunks are 8 planes deep (2 layers); 4 slabs are refused
 * with the reason, and taken with thinner layers. */
static void too_few_layers(void **state)
{
    (void)state;
    latmc_sim_desc d = phi4_test_desc(3, 64, 8, 16, LATMC_PRECISION_FLOAT, 1, SEED);
    d.device = LATMC_DEVICE_CUDA;
    d.n_devices = 4;
    d.device_list = devices_for(4);
    latmc_sim *sim = (latmc_sim *)&sim;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EUNSUPPORTED);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), CHUNK_ENV));
    with_chunk("32x4x4");
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    with_chunk(NULL);
    latmc_sim_destroy(&sim);
}

/* Double: 8 bytes a site (whole chunk layers of at most 256 rows: half_rows a multiple
 * of 512). */
static void out_of_memory(void **state)
{
    (void)state;
    check_slabs_out_of_memory(8.0, 512,
                              phi4_test_desc(2, 0, 0, 0, LATMC_PRECISION_DOUBLE, 1, SEED));
}

int main(void)
{
    const int skip = devices_open();
    if (skip)
        return skip;
    unsetenv(CHUNK_ENV);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_and_get),
        cmocka_unit_test(too_few_layers),
        cmocka_unit_test(out_of_memory),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed;
}
