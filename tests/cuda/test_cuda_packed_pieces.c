/*
 * Ising sims that keep only the packed layout resident on the GPU (doc/cuda.md, "Memory"):
 * the bytes of the API are made a piece of rows at a time. With
 * LATMC_CUDA_ISING_PIECE_BYTES forcing pieces of a few rows, small lattices cross piece
 * boundaries (inside a plane in 3D, and a short last piece), and every conversion must
 * equal the CPU's configuration bit for bit:
 * - hot and cold start, get_spins after sweeps (observables and acceptance counts too);
 * - set_spins of a random configuration, then sweeps; +-J: set_couplings of random
 *   couplings (packed from the host a window of planes at a time), then sweeps;
 * - a checkpoint (serialize) of the CUDA sim, loaded as a CUDA sim and on the CPU,
 *   continued;
 * each on one GPU and as slabs (n_devices 2 and 3, all on the GPUs there are), uniform
 * and +-J couplings, Metropolis and heat bath.
 * - device_view on a packed-only sim makes its byte array on demand (the view exists,
 *   int8, and the chain after it is still the CPU's).
 * - out_of_memory: a packed lattice larger than the card gives LATMC_ENOMEM and no sim,
 *   and the card runs a sim afterwards.
 * Exits 77 (skipped, saying why) without a usable CUDA module and GPU.
 */
#include "sim_helpers.h"
/* after the helpers: it declares the tests' ctx */
#include "cuda_devices_test.h"

static const int obs_keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2 };

/* Configuration, observables and acceptance counts of a (CUDA) and b (CPU) equal. */
static void assert_same(latmc_sim *a, latmc_sim *b, const char *what)
{
    assert_same_sims(a, b, obs_keys, sizeof obs_keys / sizeof obs_keys[0], what);
}

static void set_piece_rows(int64_t lx, int rows)
{
    char v[32];
    snprintf(v, sizeof v, "%lld", (long long)(lx * rows));
    assert_int_equal(setenv("LATMC_CUDA_ISING_PIECE_BYTES", v, 1), 0);
}

/* A random +-1 configuration of n sites. */
static int8_t *random_spins(size_t n, uint64_t seed)
{
    int8_t *s = malloc(n);
    assert_non_null(s);
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++)
        s[i] = (test_rng_next(&state) >> 40) & 1 ? (int8_t)1 : (int8_t)-1;
    return s;
}

struct piece_case {
    int ndim;
    int64_t lx, ly, lz;
    int piece_rows; /* rows of L_x sites per piece */
    const char *why;
};

static const struct piece_case cases[] = {
    { 2, 64, 18, 0, 5, "2D, pieces of 5 rows (last piece 3)" },
    { 2, 16, 10, 0, 1, "2D, one word per row, pieces of one row" },
    { 2, 128, 12, 0, 64, "2D, one piece larger than the lattice" },
    { 3, 32, 6, 8, 7, "3D, pieces of 7 rows (across planes of 6)" },
    { 3, 64, 4, 6, 3, "3D, pieces of 3 rows" },
};

static void run_one(const struct piece_case *c, int couplings, int algo, int n_devices,
                    int start)
{
    char what[200];
    snprintf(what, sizeof what, "%s, %s, %s, %d device(s), %s start", c->why,
             couplings == LATMC_COUPLINGS_BIMODAL ? "+-J" : "uniform",
             algo == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis", n_devices,
             start == LATMC_INIT_HOT ? "hot" : "cold");
    set_piece_rows(c->lx, c->piece_rows);
    latmc_sim_desc d = ising_desc(c->ndim, c->lx, c->ly, c->lz, algo, 1, 17);
    d.couplings = couplings;
    d.coupling_seed = 5;
    const double beta = c->ndim == 3 ? 0.2216 : 0.4406868;
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *gpu = create_on(d, n_devices);
    d.device = LATMC_DEVICE_CPU;
    latmc_sim *cpu = create_on(d, 1);
    latmc_sim *both[2] = { gpu, cpu };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_BETA, beta), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(both[k], start), LATMC_OK);
    }
    size_t n = 0, first = 0;
    assert_int_equal(spin_bytes_differing(gpu, cpu, &n, &first), 0);
    for (int k = 0; k < 2; k++)
        assert_int_equal(latmc_sim_sweep(both[k], 3), LATMC_OK);
    assert_same(gpu, cpu, what);

    /* set_spins, then the chain from there */
    int8_t *s = random_spins(n, 99 + (uint64_t)c->lx);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_sim_set_spins(both[k], s, n), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(both[k], 2), LATMC_OK);
    }
    free(s);
    assert_same(gpu, cpu, what);

    /* +-J: couplings set from the host (packed a window of planes at a time), then sweeps */
    if (couplings == LATMC_COUPLINGS_BIMODAL) {
        size_t nc = 0;
        assert_int_equal(latmc_sim_couplings_size(gpu, &nc), LATMC_OK);
        float *eps = malloc(nc * sizeof *eps), *back = malloc(nc * sizeof *back);
        assert_non_null(eps);
        assert_non_null(back);
        uint64_t state = 7 + (uint64_t)c->ly;
        for (size_t i = 0; i < nc; i++)
            eps[i] = (test_rng_next(&state) >> 41) & 1 ? 1.0f : -1.0f;
        for (int k = 0; k < 2; k++) {
            assert_int_equal(latmc_sim_set_couplings(both[k], eps, nc), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(both[k], 2), LATMC_OK);
        }
        assert_int_equal(latmc_sim_get_couplings(gpu, back, nc), LATMC_OK);
        assert_memory_equal(eps, back, nc * sizeof *eps);
        free(eps);
        free(back);
        assert_same(gpu, cpu, what);
    }

    /* a checkpoint of the CUDA sim, loaded (one GPU, as stored) and on the CPU */
    void *bytes = NULL;
    latmc_sim *loaded = serialized_copy(gpu, &bytes);
    size_t size = 0;
    assert_int_equal(latmc_sim_serialize(gpu, NULL, 0, &size), LATMC_OK);
    void *cpu_bytes = malloc(size);
    assert_non_null(cpu_bytes);
    assert_int_equal(latmc_sim_serialize(cpu, cpu_bytes, size, &size), LATMC_OK);
    latmc_sim *cpu_loaded = NULL;
    assert_int_equal(latmc_sim_deserialize(ctx, cpu_bytes, size, &cpu_loaded), LATMC_OK);
    free(bytes);
    free(cpu_bytes);
    assert_int_equal(latmc_sim_sweep(loaded, 2), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(cpu_loaded, 2), LATMC_OK);
    assert_same(loaded, cpu_loaded, what);
    latmc_sim_destroy(&loaded);
    latmc_sim_destroy(&cpu_loaded);
    latmc_sim_destroy(&gpu);
    latmc_sim_destroy(&cpu);
}

static void pieces_against_cpu(void **state)
{
    (void)state;
    const int algos[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    const int devices[] = { 1, 2, 3 };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct piece_case *c = &cases[i];
        const int64_t last = c->ndim == 3 ? c->lz : c->ly;
        for (int a = 0; a < 2; a++)
            for (int pm = 0; pm < 2; pm++)
                for (size_t k = 0; k < sizeof devices / sizeof devices[0]; k++) {
                    if (devices[k] > 1 && last / devices[k] < 2)
                        continue; /* slabs thinner than 2 planes */
                    run_one(c, pm ? LATMC_COUPLINGS_BIMODAL : LATMC_COUPLINGS_UNIFORM,
                            algos[a], devices[k], (a + (int)k) % 2 ? LATMC_INIT_COLD
                                                                    : LATMC_INIT_HOT);
                }
    }
    unsetenv("LATMC_CUDA_ISING_PIECE_BYTES");
}

/* device_view makes the byte array of a packed-only sim; the chain goes on unchanged. */
static void device_view_on_demand(void **state)
{
    (void)state;
    set_piece_rows(64, 3);
    latmc_sim_desc d = ising_desc(2, 64, 20, 0, LATMC_ALGO_METROPOLIS, 1, 23);
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *gpu = create_on(d, 1);
    d.device = LATMC_DEVICE_CPU;
    latmc_sim *cpu = create_on(d, 1);
    latmc_sim *both[2] = { gpu, cpu };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_BETA, 0.4), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(both[k], LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(both[k], 2), LATMC_OK);
    }
    for (int round = 0; round < 2; round++) {
        latmc_device_view v;
        memset(&v, 0, sizeof v);
        v.struct_size = sizeof v;
        assert_int_equal(latmc_sim_device_view(gpu, &v), LATMC_OK);
        assert_int_equal(v.dtype, LATMC_DTYPE_INT8);
        assert_true(v.data != 0);
        for (int k = 0; k < 2; k++)
            assert_int_equal(latmc_sim_sweep(both[k], 2), LATMC_OK);
        assert_same(gpu, cpu, "after a device view");
    }
    latmc_sim_destroy(&gpu);
    latmc_sim_destroy(&cpu);
    unsetenv("LATMC_CUDA_ISING_PIECE_BYTES");
}

/* Half a byte a site: a lattice of twice the card's memory in packed words does not fit:
 * LATMC_ENOMEM, no sim, and the card still runs a sim. The packed leaf is asked for
 * (LATMC_CUDA_ISING_FORM=packed): else the 1-bit leaf takes that lattice (an eighth of a
 * byte a site, half the card). */
static void out_of_memory(void **state)
{
    (void)state;
    const double memory = gpu0_memory_bytes();
    const int64_t lx = 65536;
    int64_t rows = (int64_t)(2.0 * memory / 0.5 / (double)lx);
    rows -= rows % 2;
    latmc_sim_desc d = ising_desc(2, lx, rows, 0, LATMC_ALGO_METROPOLIS, 1, 3);
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *sim = (latmc_sim *)&sim;
    assert_int_equal(setenv("LATMC_CUDA_ISING_FORM", "packed", 1), 0);
    const int st = latmc_sim_create(ctx, &d, &sim);
    unsetenv("LATMC_CUDA_ISING_FORM");
    assert_int_equal(st, LATMC_ENOMEM);
    assert_null(sim);
    printf("%lld x %lld: %s\n", (long long)lx, (long long)rows, latmc_last_error());
    /* 0.6 of the card in packed words fits afterwards (nothing was kept) */
    rows = (int64_t)(0.6 * memory / 0.5 / (double)lx);
    rows -= rows % 2;
    d = ising_desc(2, lx, rows, 0, LATMC_ALGO_METROPOLIS, 1, 3);
    d.device = LATMC_DEVICE_CUDA;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    double m = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
    assert_true(m == 1.0);
    latmc_sim_destroy(&sim);
}

int main(void)
{
    const int open = devices_open();
    if (open != 0)
        return open;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pieces_against_cpu),
        cmocka_unit_test(device_view_on_demand),
        cmocka_unit_test(out_of_memory),
    };
    const int failed = cmocka_run_group_tests_name("cuda_packed_pieces", tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed ? 1 : 0;
}
