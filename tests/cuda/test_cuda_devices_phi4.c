/*
 * phi^4 on several CUDA devices (desc.n_devices, desc.device_list; doc/cuda.md, "Several
 * GPUs"): the same chain as on one GPU, bit for bit, and, in the site order (the CPU's
 * chain, double precision), as on the CPU.
 *
 * - same_chain: both CUDA schedules: chunks (the default where L_x takes them; the slabs
 *   are whole chunk layers: default chunks and LATMC_CUDA_PHI4_CHUNK shapes with thin
 *   layers, 2D with 8 and 5 colours, 3D) and the site order (L_x that takes no chunks, and
 *   LATMC_CUDA_PHI4_CHUNK=none), on 2 slabs, uneven slabs, the thinnest slabs allowed
 *   (site order: 4 planes in 3D, 8 or 5 rows in 2D, where Philox blocks straddle two
 *   slabs; chunks: one 2-plane layer per slab); float and double, finite Lambda and
 *   Lambda = inf, hot and cold start: against one GPU, the field (every byte), every
 *   observable and the acceptance counts after each of several sweep calls, with nloc and
 *   Lambda changed between calls; site order in double also against the CPU.
 * - set_and_get: a field written with set_spins reads back identically, and the chain from
 *   it equals one GPU's.
 * - checkpoint: saved (serialized) on several slabs, loaded (one GPU) and continued:
 *   bit-identical.
 * - parts_on_one_gpu: desc.n_parts = 3 without n_devices: the slabs all on device_index.
 * - too_few_layers: more slabs than chunk layers: LATMC_EUNSUPPORTED naming the variable.
 * - out_of_memory: a lattice whose second slab does not fit the card (both on GPU 0):
 *   LATMC_ENOMEM, no sim, every slab's memory released.
 * Slab i on GPU i mod (number of GPUs). Exits 77 (skipped, saying why) without a usable
 * CUDA module and GPU.
 */
#include <math.h>

#include "cuda_devices_test.h"

#define CHUNK_ENV "LATMC_CUDA_PHI4_CHUNK"

static latmc_sim_desc phi4_desc(int ndim, int64_t lx, int64_t ly, int64_t lz, int precision)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = ndim;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.extent[2] = ndim == 3 ? lz : 0;
    d.precision = precision;
    d.device = LATMC_DEVICE_CUDA;
    d.seed = 20261122;
    return d;
}

static void set_params(latmc_sim *sim, double lambda, int nhit, int nloc)
{
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.4), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.8), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, lambda), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, 0.9), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NHIT, nhit), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, nloc), LATMC_OK);
}

/* A sim of d on n slabs (1: one device; device CPU: the CPU, one box). */
static latmc_sim *make(latmc_sim_desc d, int n, int start, double lambda, int nhit, int nloc)
{
    latmc_sim *sim = create_on(d, n);
    set_params(sim, lambda, nhit, nloc);
    assert_int_equal(latmc_sim_init_spins(sim, start), LATMC_OK);
    return sim;
}

static const int obs_keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                LATMC_OBS_PHI2, LATMC_OBS_ACCEPTANCE };

/* Configuration, these observables (bit for bit) and acceptance counts of a and b are
 * equal. */
static void assert_same(latmc_sim *a, latmc_sim *b, const char *what)
{
    assert_same_sims(a, b, obs_keys, sizeof obs_keys / sizeof obs_keys[0], what);
}

struct case_ {
    int ndim;
    int64_t lx, ly, lz;
    int n;              /* slabs */
    const char *chunk;  /* LATMC_CUDA_PHI4_CHUNK, NULL: the default */
    int site_order;     /* the schedule it runs (checked against the CPU in double) */
    const char *why;
};

static const struct case_ cases[] = {
    { 3, 64, 16, 32, 2, NULL, 0, "3D chunks (default 32x8x16), 2 slabs of one layer" },
    { 3, 64, 8, 48, 5, "32x4x4", 0, "3D chunks 32x4x4, 5 uneven slabs (2, 2, 3, 2, 3 layers)" },
    { 3, 64, 8, 16, 4, "32x4x2", 0, "3D chunks 32x4x2, 4 slabs of 2 thin layers" },
    { 3, 64, 8, 24, 3, "32x4x4", 0, "3D chunks 32x4x4, 3 slabs of 2 layers" },
    { 2, 64, 48, 0, 2, NULL, 0, "2D chunks (default 32x24), 2 slabs" },
    { 2, 64, 64, 0, 3, "32x4", 0, "2D chunks 32x4, 3 uneven slabs (5, 5, 6 layers)" },
    { 2, 40, 30, 0, 4, "20x3", 0, "2D 5 colours, chunks 20x3, 4 uneven slabs (2, 3, 2, 3 "
                                  "layers)" },
    { 2, 40, 30, 0, 2, NULL, 0, "2D 5 colours, default chunks (20x15), 2 slabs" },
    { 3, 16, 8, 16, 4, NULL, 1, "3D site order, the thinnest slabs (4 planes)" },
    { 3, 16, 8, 32, 3, NULL, 1, "3D site order, 3 uneven slabs (8, 12, 12 planes)" },
    { 2, 15, 25, 0, 5, NULL, 1, "2D site order, 5 colours, thinnest slabs (5 rows, straddling "
                                "Philox blocks)" },
    { 2, 8, 32, 0, 4, NULL, 1, "2D site order, 8 colours, L_x = 8 (a Philox block spans 4 "
                               "rows), 4 slabs" },
    { 2, 16, 40, 0, 2, NULL, 1, "2D site order, 2 uneven slabs (16, 24 rows)" },
    { 3, 64, 8, 16, 3, "none", 1, "3D site order by LATMC_CUDA_PHI4_CHUNK=none, 3 slabs" },
};

struct variant {
    int precision;
    double lambda;
    int nhit, nloc;
};

static const struct variant variants[] = {
    { LATMC_PRECISION_DOUBLE, 2.5, 2, 1 },
    { LATMC_PRECISION_FLOAT, INFINITY, 1, 2 },
    { LATMC_PRECISION_FLOAT, 0.7, 3, 1 },
};

static void with_chunk(const char *chunk)
{
    if (chunk)
        setenv(CHUNK_ENV, chunk, 1);
    else
        unsetenv(CHUNK_ENV);
}

static void same_chain(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct case_ *cs = &cases[c];
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            const struct variant *va = &variants[v];
            const int start = (c + v) % 2 ? LATMC_INIT_HOT : LATMC_INIT_COLD;
            const latmc_sim_desc d = phi4_desc(cs->ndim, cs->lx, cs->ly, cs->lz, va->precision);
            with_chunk(cs->chunk);
            latmc_sim *one = make(d, 1, start, va->lambda, va->nhit, va->nloc);
            latmc_sim *many = make(d, cs->n, start, va->lambda, va->nhit, va->nloc);
            with_chunk(NULL);
            latmc_sim *cpu = NULL;
            const bool vs_cpu = cs->site_order && va->precision == LATMC_PRECISION_DOUBLE;
            if (vs_cpu) {
                latmc_sim_desc dc = d;
                dc.device = LATMC_DEVICE_CPU;
                cpu = make(dc, 1, start, va->lambda, va->nhit, va->nloc);
            }
            char what[240];
            snprintf(what, sizeof what, "%s, variant %zu (precision %d, Lambda %g, nhit %d, "
                     "nloc %d), start %d", cs->why, v, va->precision, va->lambda, va->nhit,
                     va->nloc, start);
            assert_same(one, many, what);
            const uint64_t calls[] = { 1, 2, 3 };
            for (int k = 0; k < 3; k++) {
                if (k == 1) { /* a new schedule length */
                    set_params(one, va->lambda, va->nhit, va->nloc + 1);
                    set_params(many, va->lambda, va->nhit, va->nloc + 1);
                    if (cpu)
                        set_params(cpu, va->lambda, va->nhit, va->nloc + 1);
                }
                if (k == 2) { /* a new Lambda (finite <-> infinite) */
                    const double l = isfinite(va->lambda) ? INFINITY : 1.5;
                    set_params(one, l, va->nhit, va->nloc);
                    set_params(many, l, va->nhit, va->nloc);
                    if (cpu)
                        set_params(cpu, l, va->nhit, va->nloc);
                }
                assert_int_equal(latmc_sim_sweep(one, calls[k]), LATMC_OK);
                assert_int_equal(latmc_sim_sweep(many, calls[k]), LATMC_OK);
                assert_same(one, many, what);
                if (cpu) {
                    assert_int_equal(latmc_sim_sweep(cpu, calls[k]), LATMC_OK);
                    assert_same(cpu, many, what);
                }
            }
            latmc_sim_destroy(&one);
            latmc_sim_destroy(&many);
            latmc_sim_destroy(&cpu);
        }
    }
}

static void set_and_get(void **state)
{
    (void)state;
    for (int site_order = 0; site_order < 2; site_order++) {
        const latmc_sim_desc d = phi4_desc(3, 64, 8, 32, LATMC_PRECISION_DOUBLE);
        with_chunk(site_order ? "none" : "32x4x4");
        latmc_sim *one = make(d, 1, LATMC_INIT_COLD, 2.5, 2, 1);
        latmc_sim *many = make(d, 3, LATMC_INIT_COLD, 2.5, 2, 1);
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

static void checkpoint(void **state)
{
    (void)state;
    const latmc_sim_desc d = phi4_desc(2, 64, 64, 0, LATMC_PRECISION_FLOAT);
    with_chunk("32x8"); /* read where a sim is created: the loaded one too */
    latmc_sim *one = make(d, 1, LATMC_INIT_HOT, 2.5, 2, 2);
    latmc_sim *many = make(d, 3, LATMC_INIT_HOT, 2.5, 2, 2);
    check_checkpoint(one, many, 3, 4, assert_same, false);
    with_chunk(NULL);
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&many);
}

static void parts_on_one_gpu(void **state)
{
    (void)state;
    const latmc_sim_desc d = phi4_desc(3, 64, 16, 48, LATMC_PRECISION_FLOAT);
    latmc_sim *one = make(d, 1, LATMC_INIT_HOT, 2.5, 1, 1);
    latmc_sim *parts = make(as_three_parts(d), 1, LATMC_INIT_HOT, 2.5, 1, 1);
    check_parts(one, parts, assert_same);
}

/* 3D 64 x 8 x 16: the default chunks are 8 planes deep (2 layers); 4 slabs are refused
 * with the reason, and taken with thinner layers. */
static void too_few_layers(void **state)
{
    (void)state;
    latmc_sim_desc d = phi4_desc(3, 64, 8, 16, LATMC_PRECISION_FLOAT);
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
static latmc_sim_desc oom_desc(int64_t lx, int64_t ly)
{
    return phi4_desc(2, lx, ly, 0, LATMC_PRECISION_DOUBLE);
}

static void out_of_memory(void **state)
{
    (void)state;
    check_slabs_out_of_memory(8.0, 512, oom_desc);
}

int main(void)
{
    const int skip = devices_open();
    if (skip)
        return skip;
    unsetenv(CHUNK_ENV);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_chain),
        cmocka_unit_test(set_and_get),
        cmocka_unit_test(checkpoint),
        cmocka_unit_test(parts_on_one_gpu),
        cmocka_unit_test(too_few_layers),
        cmocka_unit_test(out_of_memory),
    };
    const int failed = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return failed;
}
