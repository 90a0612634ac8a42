/*
 * Backend conformance, Heisenberg spin glass: the backend under test against the CPU
 * reference backend (one thread), through the public API only.
 *
 * Always identical, bit for bit, on every backend: the couplings drawn from
 * coupling_seed, the hot and the cold start, a configuration and couplings set from the
 * host (and read back), every observable of an identical configuration (the reductions
 * add in the reference's order), the acceptance and sweep counts.
 *
 * The chain after sweeps: bit for bit where the backend does the reference's arithmetic,
 * i.e. the CPU backend at any thread count (the "cpu" run uses 3 threads), and CUDA
 * overrelaxation in double precision (only +, -, *, / and sqrt, all correctly rounded,
 * no fused multiply-adds). CUDA heat bath (double: the CPU's shared log/exp/sin/cos of
 * lib/latmc_math.h against
 * CUDA's, which differ in the last bit now and then; float: float arithmetic) and CUDA
 * float overrelaxation follow the same chain up to rounding: there each step is one
 * sweep from identical configurations, and at most 1 % of the spin components may differ
 * from the reference's by more than 1e-3 (a broken update, wrong draws or a wrong field
 * changes nearly all of them by O(1)); the number of differing floats is printed.
 *
 * Lattices small enough for compute-sanitizer (tests/backends/gpu_check.sh), with
 * several tiles of the CUDA kernel in x, y and z, extents of 2, L_x with and without a
 * factor 8 (the two ways of drawing the heat-bath numbers), one and two replicas, 2D
 * and 3D, all three coupling kinds, a field, nover = 0 .. 3.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_heisenberg.h"
#include "heisenberg_test_helpers.h"

#define TILE_ENV "LATMC_CUDA_HEISENBERG_TILE"
#define FAR 1e-3            /* a component this far off counts as different */
#define MAX_FAR_FRACTION 0.01

enum { HB = LATMC_ALGO_HEATBATH, OR = LATMC_ALGO_OVERRELAX };
enum { UNI = LATMC_COUPLINGS_UNIFORM, GAU = LATMC_COUPLINGS_GAUSSIAN, BIM = LATMC_COUPLINGS_BIMODAL };
enum { FLT = LATMC_PRECISION_FLOAT, DBL = LATMC_PRECISION_DOUBLE };

struct hcase {
    const char *label;
    int ndim;
    int64_t L[3];
    int replicas, couplings, algorithm, nover, precision;
    uint64_t seed;
    double beta, h;        /* from the start */
    double beta2, h2;      /* after 3 sweeps */
};

static latmc_sim_desc case_desc(const struct hcase *c, int device, int n_threads)
{
    latmc_sim_desc d = heisenberg_desc(c->ndim, c->L[0], c->L[1], c->L[2], c->replicas,
                                       c->couplings, c->algorithm, n_threads, c->seed);
    d.precision = c->precision;
    d.device = device;
    return d;
}

static void set_params(latmc_sim *sim, double beta, double h, int nover)
{
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, nover), LATMC_OK);
}

static float *get_spins(latmc_sim *sim, size_t *bytes)
{
    assert_int_equal(latmc_sim_spins_size(sim, bytes), LATMC_OK);
    float *s = malloc(*bytes);
    assert_non_null(s);
    int st = latmc_sim_get_spins(sim, s, *bytes);
    if (st != LATMC_OK)
        print_error("get_spins: %s\n", latmc_sim_last_error(sim));
    assert_int_equal(st, LATMC_OK);
    return s;
}

static void assert_same_counts(latmc_sim *ref, latmc_sim *sut, const char *label, const char *step)
{
    uint64_t acc_a = 0, att_a = 0, acc_b = 0, att_b = 0, sw_a = 0, sw_b = 0;
    assert_int_equal(latmc_sim_acceptance_counts(ref, &acc_a, &att_a), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(sut, &acc_b, &att_b), LATMC_OK);
    if (acc_a != acc_b || att_a != att_b)
        print_error("%s, %s: acceptance %llu/%llu vs %llu/%llu\n", label, step,
                    (unsigned long long)acc_a, (unsigned long long)att_a,
                    (unsigned long long)acc_b, (unsigned long long)att_b);
    assert_true(acc_a == acc_b && att_a == att_b);
    assert_int_equal(latmc_sim_sweep_count(ref, &sw_a), LATMC_OK);
    assert_int_equal(latmc_sim_sweep_count(sut, &sw_b), LATMC_OK);
    assert_true(sw_a == sw_b);
}

/* Spins and every observable identical, bit for bit. */
static void assert_identical(latmc_sim *ref, latmc_sim *sut, const struct hcase *c,
                             const char *step)
{
    size_t n = 0, n2 = 0;
    float *a = get_spins(ref, &n), *b = get_spins(sut, &n2);
    assert_int_equal(n, n2);
    if (memcmp(a, b, n) != 0) {
        const size_t floats = n / sizeof(float), per_rep = floats / (size_t)c->replicas;
        size_t first = floats, count = 0;
        for (size_t k = 0; k < floats; k++)
            if (memcmp(&a[k], &b[k], sizeof(float)) != 0) {
                first = first == floats ? k : first;
                count++;
            }
        const size_t site = (first % per_rep) / 3;
        print_error("%s, %s: %zu of %zu floats differ; the first: replica %zu, site %zu "
                    "(x %lld, y %lld, z %lld), component %zu: %.9g vs %.9g\n", c->label, step,
                    count, floats, first / per_rep, site, (long long)(site % (size_t)c->L[0]),
                    (long long)((site / (size_t)c->L[0]) % (size_t)c->L[1]),
                    (long long)(site / (size_t)(c->L[0] * c->L[1])), first % 3, a[first],
                    b[first]);
    }
    assert_memory_equal(a, b, n);
    free(a);
    free(b);
    static const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                LATMC_OBS_OVERLAP2 };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        if (keys[k] == LATMC_OBS_OVERLAP2 && c->replicas < 2)
            continue;
        double x = 0, y = 0;
        assert_int_equal(latmc_sim_observable(ref, keys[k], &x), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sut, keys[k], &y), LATMC_OK);
        if (memcmp(&x, &y, sizeof x) != 0)
            print_error("%s, %s: %s %.17g vs %.17g\n", c->label, step,
                        latmc_observable_name(keys[k]), x, y);
        assert_memory_equal(&x, &y, sizeof x);
    }
    assert_same_counts(ref, sut, c->label, step);
}

/* The same chain up to rounding: at most MAX_FAR_FRACTION of the components off by > FAR. */
static void assert_rounding_close(latmc_sim *ref, latmc_sim *sut, const struct hcase *c,
                                  const char *step)
{
    size_t n = 0, n2 = 0;
    float *a = get_spins(ref, &n), *b = get_spins(sut, &n2);
    assert_int_equal(n, n2);
    const size_t floats = n / sizeof(float);
    size_t differ = 0, far = 0;
    double worst = 0.0;
    for (size_t k = 0; k < floats; k++) {
        const double d = fabs((double)a[k] - (double)b[k]);
        differ += memcmp(&a[k], &b[k], sizeof(float)) != 0;
        far += d > FAR;
        worst = d > worst ? d : worst;
    }
    printf("    %s, %s: %zu of %zu floats differ from the reference, largest difference "
           "%.2e, %zu above %.0e\n", c->label, step, differ, floats, worst, far, FAR);
    assert_true((double)far <= MAX_FAR_FRACTION * (double)floats);
    free(a);
    free(b);
    assert_same_counts(ref, sut, c->label, step);
}

/* Both sims to the reference's configuration (so that a comparison covers one step). */
static void resync(latmc_sim *ref, latmc_sim *sut)
{
    size_t n = 0;
    float *a = get_spins(ref, &n);
    assert_int_equal(latmc_sim_set_spins(ref, a, n), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(sut, a, n), LATMC_OK);
    free(a);
}

static void sweep_one(latmc_sim *sim, uint64_t n)
{
    int st = latmc_sim_sweep(sim, n);
    if (st != LATMC_OK)
        print_error("%s sweep: %s\n", latmc_sim_backend_name(sim), latmc_sim_last_error(sim));
    assert_int_equal(st, LATMC_OK);
}

/* n sweeps of both, compared: identical chains in one go, the others sweep by sweep. */
static void sweep_and_compare(latmc_sim *ref, latmc_sim *sut, const struct hcase *c, bool exact,
                              uint64_t n, const char *step)
{
    if (exact) {
        sweep_one(ref, n);
        sweep_one(sut, n);
        assert_identical(ref, sut, c, step);
        return;
    }
    for (uint64_t k = 0; k < n; k++) {
        resync(ref, sut);
        sweep_one(ref, 1);
        sweep_one(sut, 1);
        assert_rounding_close(ref, sut, c, step);
    }
}

static void run_case(const struct hcase *c, int device, const char *name)
{
    const bool exact = device == LATMC_DEVICE_CPU ||
                       (c->algorithm == OR && c->precision == DBL);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc dr = case_desc(c, LATMC_DEVICE_CPU, 1);
    latmc_sim_desc ds = case_desc(c, device, device == LATMC_DEVICE_CPU ? 3 : 0);
    latmc_sim *ref = NULL, *sut = NULL;
    assert_int_equal(latmc_sim_create(ctx, &dr, &ref), LATMC_OK);
    int st = latmc_sim_create(ctx, &ds, &sut);
    if (st != LATMC_OK)
        print_error("%s: creating the %s sim: %s\n", c->label, name, latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sut), name);

    /* the couplings drawn from coupling_seed */
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(sut, &nc), LATMC_OK);
    float *ja = malloc(nc * sizeof *ja), *jb = malloc(nc * sizeof *jb);
    assert_non_null(ja);
    assert_non_null(jb);
    assert_int_equal(latmc_sim_get_couplings(ref, ja, nc), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(sut, jb, nc), LATMC_OK);
    assert_memory_equal(ja, jb, nc * sizeof *ja);

    set_params(ref, c->beta, c->h, c->nover);
    set_params(sut, c->beta, c->h, c->nover);
    assert_int_equal(latmc_sim_init_spins(ref, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sut, LATMC_INIT_HOT), LATMC_OK);
    assert_identical(ref, sut, c, "hot start");

    sweep_and_compare(ref, sut, c, exact, 1, "sweep 1");
    sweep_and_compare(ref, sut, c, exact, 2, "sweeps 2-3");
    set_params(ref, c->beta2, c->h2, c->nover + 1);
    set_params(sut, c->beta2, c->h2, c->nover + 1);
    sweep_and_compare(ref, sut, c, exact, 2, "2 sweeps after a parameter change");

    /* a configuration from the host: read back as it was written, same observables */
    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(sut, &bytes), LATMC_OK);
    float *buf = malloc(bytes), *back = malloc(bytes);
    assert_non_null(buf);
    assert_non_null(back);
    uint64_t rng = c->seed ^ UINT64_C(0x5eed);
    for (size_t k = 0; k < bytes / (3 * sizeof(float)); k++)
        test_unit_vector(&rng, buf + 3 * k);
    assert_int_equal(latmc_sim_set_spins(ref, buf, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(sut, buf, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sut, back, bytes), LATMC_OK);
    assert_memory_equal(buf, back, bytes);
    assert_identical(ref, sut, c, "after set_spins");
    sweep_and_compare(ref, sut, c, exact, 2, "2 sweeps after set_spins");

    /* couplings from the host (the test's own Gaussians), read back as written */
    for (size_t k = 0; k < nc; k++)
        ja[k] = (float)test_gaussian(&rng);
    assert_int_equal(latmc_sim_set_couplings(ref, ja, nc), LATMC_OK);
    assert_int_equal(latmc_sim_set_couplings(sut, ja, nc), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(sut, jb, nc), LATMC_OK);
    assert_memory_equal(ja, jb, nc * sizeof *ja);
    resync(ref, sut);
    assert_identical(ref, sut, c, "after set_couplings");
    sweep_and_compare(ref, sut, c, exact, 2, "2 sweeps after set_couplings");

    /* the cold start */
    assert_int_equal(latmc_sim_init_spins(ref, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sut, LATMC_INIT_COLD), LATMC_OK);
    assert_identical(ref, sut, c, "cold start");
    sweep_and_compare(ref, sut, c, exact, 1, "a sweep after the cold start");

    free(buf);
    free(back);
    free(ja);
    free(jb);
    latmc_sim_destroy(&ref);
    latmc_sim_destroy(&sut);
    latmc_ctx_destroy(&ctx);
}

#define HC(label_, ndim_, lx_, ly_, lz_, rep_, coup_, algo_, nover_, prec_, seed_, beta_, h_,   \
           beta2_, h2_)                                                                     \
    { label_, ndim_, { lx_, ly_, lz_ }, rep_, coup_, algo_, nover_, prec_, seed_, beta_, h_,  \
      beta2_, h2_ }

static const struct hcase cases[] = {
    /* overrelaxation in double: bit for bit on CUDA too */
    HC("3D 8x6x4 OR 2 replicas gauss", 3, 8, 6, 4, 2, GAU, OR, 0, DBL, 101, 1.0, 0.0, 1.0, 0.3),
    HC("3D 2x2x2 OR bimodal h", 3, 2, 2, 2, 1, BIM, OR, 2, DBL, 102, 1.0, 0.5, 1.0, -0.2),
    HC("3D 34x10x6 OR 2 replicas gauss (2 tiles in x)", 3, 34, 10, 6, 2, GAU, OR, 1, DBL, 103,
       1.0, 0.1, 1.0, 0.0),
    HC("3D 40x18x36 OR uniform (tiles in x, y, z)", 3, 40, 18, 36, 1, UNI, OR, 3, DBL, 104, 1.0,
       0.2, 1.0, 0.0),
    HC("3D 16x2x70 OR 2 replicas gauss (3 z chunks)", 3, 16, 2, 70, 2, GAU, OR, 0, DBL, 105,
       1.0, 0.0, 1.0, 0.1),
    HC("2D 6x10 OR 2 replicas gauss", 2, 6, 10, 0, 2, GAU, OR, 1, DBL, 106, 1.0, 0.3, 1.0, 0.0),
    HC("2D 66x20 OR bimodal (tiles in x, y)", 2, 66, 20, 0, 1, BIM, OR, 2, DBL, 107, 1.0, 0.0,
       1.0, 0.4),
    /* heat bath, double */
    HC("3D 8x6x4 HB nover=2 2 replicas gauss", 3, 8, 6, 4, 2, GAU, HB, 2, DBL, 111, 1.0, 0.0,
       3.0, 0.2),
    HC("3D 10x6x4 HB gauss h (L_x not a multiple of 8)", 3, 10, 6, 4, 1, GAU, HB, 0, DBL, 112,
       0.5, 0.4, 2.0, 0.0),
    HC("3D 40x6x10 HB nover=1 2 replicas bimodal (2 tiles in x)", 3, 40, 6, 10, 2, BIM, HB, 1,
       DBL, 113, 2.0, 0.0, 0.3, 0.1),
    HC("3D 2x2x2 HB uniform h", 3, 2, 2, 2, 2, UNI, HB, 1, DBL, 114, 1.5, 0.3, 0.0, 0.0),
    HC("2D 16x10 HB nover=1 2 replicas gauss", 2, 16, 10, 0, 2, GAU, HB, 1, DBL, 115, 1.0, 0.2,
       2.5, 0.0),
    /* float arithmetic on CUDA (the CPU ignores the precision) */
    HC("3D 16x6x4 HB nover=2 2 replicas gauss float", 3, 16, 6, 4, 2, GAU, HB, 2, FLT, 121, 1.0,
       0.0, 3.0, 0.1),
    HC("3D 10x4x6 HB gauss float (L_x not a multiple of 8)", 3, 10, 4, 6, 1, GAU, HB, 0, FLT,
       122, 0.7, 0.2, 2.0, 0.0),
    HC("3D 8x8x8 OR 2 replicas gauss float", 3, 8, 8, 8, 2, GAU, OR, 2, FLT, 123, 1.0, 0.1, 1.0,
       0.0),
    HC("2D 24x6 HB uniform float", 2, 24, 6, 0, 1, UNI, HB, 1, FLT, 124, 0.8, 0.5, 0.2, 0.0),
};

void heisenberg_conformance(int device, const char *backend_name)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        printf("  Heisenberg %s\n", cases[i].label);
        fflush(stdout);
        run_case(&cases[i], device, backend_name);
    }
}

/* ---- CUDA launch geometry ---- */

struct outcome {
    float *spins;
    size_t bytes;
    double obs[3];
    uint64_t accepted, attempted;
};

/* Create under the geometry `tile` (NULL: the default), hot start, heat bath + nover
 * overrelaxation for 3 sweeps, a parameter change, 2 more. */
static int run_geometry(latmc_ctx *ctx, const latmc_sim_desc *d, const char *tile,
                        struct outcome *out)
{
    if (tile)
        assert_int_equal(setenv(TILE_ENV, tile, 1), 0);
    else
        assert_int_equal(unsetenv(TILE_ENV), 0);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    assert_int_equal(unsetenv(TILE_ENV), 0);
    if (st != LATMC_OK)
        return st;
    set_params(sim, 1.2, 0.1, 2);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    sweep_one(sim, 3);
    set_params(sim, 0.6, 0.0, 1);
    sweep_one(sim, 2);
    out->spins = get_spins(sim, &out->bytes);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &out->obs[0]), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &out->obs[1]), LATMC_OK);
    out->obs[2] = 0.0;
    if (d->replicas == 2)
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &out->obs[2]), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(sim, &out->accepted, &out->attempted), LATMC_OK);
    latmc_sim_destroy(&sim);
    return LATMC_OK;
}

void heisenberg_cuda_launch_geometry(void)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    /* TX,TY,ZC,THREADS[,PREFETCH[,JSMEM]]: the default; small tiles (many blocks, partial
     * tiles, tiles of width 4: the per-lane draws); odd thread counts; one z plane per
     * block; with and without the prefetch of the next plane and the couplings in shared
     * memory */
    static const char *const tiles[] = { "32,8,32,256", "64,8,32,256", "32,8,32,128",
                                         "32,8,32,256,0", "32,8,32,256,1,1", "32,6,32,256,0,1",
                                         "32,6,32,192", "64,4,32,256,1,1", "32,4,16,128",
                                         "64,8,32,512,1,1", "8,4,3,64", "4,2,1,32,1,0",
                                         "16,2,2,96,0,0", "8,8,5,128,1,1", "64,2,7,384" };
    struct lattice {
        int ndim;
        int64_t L[3];
        int replicas, precision, algorithm;
    };
    static const struct lattice lattices[] = {
        { 3, { 16, 12, 10 }, 2, DBL, HB },
        { 3, { 16, 12, 10 }, 2, FLT, HB },
        { 3, { 10, 6, 6 }, 1, DBL, HB },
        { 3, { 24, 10, 4 }, 1, FLT, OR },
        { 2, { 24, 18, 0 }, 2, DBL, HB },
        { 2, { 14, 6, 0 }, 1, FLT, HB },
        /* the default tiles whole (heisenberg_kernels.cu, heisenberg_fixed_tile): the
         * instances with the tile's extents as constants (heat bath with nover 2: both
         * passes) against the run-time-tile kernels of the tiles above. Two replicas
         * float 32 x 16, double 32 x 8; one replica float heat bath 32 x 8 and
         * overrelaxation 64 x 8, or 32 x 8 where L_x = 32 halves the default */
        { 3, { 32, 16, 6 }, 2, FLT, HB },
        { 3, { 32, 8, 4 }, 2, DBL, HB },
        { 3, { 64, 8, 4 }, 1, FLT, HB },
        { 3, { 32, 8, 4 }, 1, FLT, HB },
    };
    for (size_t l = 0; l < sizeof lattices / sizeof lattices[0]; l++) {
        const struct lattice *lt = &lattices[l];
        latmc_sim_desc d = heisenberg_desc(lt->ndim, lt->L[0], lt->L[1], lt->L[2], lt->replicas,
                                           GAU, lt->algorithm, 0, 300 + l);
        d.device = LATMC_DEVICE_CUDA;
        d.precision = lt->precision;
        struct outcome base;
        assert_int_equal(run_geometry(ctx, &d, NULL, &base), LATMC_OK);
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
            struct outcome o;
            const int st = run_geometry(ctx, &d, tiles[t], &o);
            if (st != LATMC_OK)
                print_error("tile %s: %s\n", tiles[t], latmc_last_error());
            assert_int_equal(st, LATMC_OK);
            const bool same = o.bytes == base.bytes &&
                              memcmp(o.spins, base.spins, base.bytes) == 0 &&
                              memcmp(o.obs, base.obs, sizeof o.obs) == 0 &&
                              o.accepted == base.accepted && o.attempted == base.attempted;
            printf("    Heisenberg %dD %lldx%lldx%lld %s %s, %d replica(s), tile %s: %s\n",
                   lt->ndim, (long long)lt->L[0], (long long)lt->L[1],
                   (long long)(lt->ndim == 3 ? lt->L[2] : 1),
                   lt->algorithm == HB ? "HB" : "OR", lt->precision == DBL ? "double" : "float",
                   lt->replicas, tiles[t], same ? "identical" : "DIFFERENT");
            assert_true(same);
            free(o.spins);
        }
        free(base.spins);
    }

    /* malformed or impossible geometries: refused at creation, naming the variable */
    static const char *const bad[] = { "abc", "32,8,32", "33,8,32,256", "32,8,32,100",
                                       "32,8,32,256,2", "32,8,32,256,1,", "32,8,32,256,1,1,1", "32,8,0,256", "1024,1024,1,1024",
                                       "32,8,32,2048", " 32,8,32,256x" };
    latmc_sim_desc d = heisenberg_desc(3, 8, 8, 8, 2, GAU, HB, 0, 399);
    d.device = LATMC_DEVICE_CUDA;
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        assert_int_equal(setenv(TILE_ENV, bad[b], 1), 0);
        latmc_sim *sim = NULL;
        const int st = latmc_sim_create(ctx, &d, &sim);
        assert_int_equal(unsetenv(TILE_ENV), 0);
        printf("    %s=\"%s\": %s\n", TILE_ENV, bad[b], latmc_last_error());
        assert_int_equal(st, LATMC_EINVAL);
        assert_null(sim);
        assert_non_null(strstr(latmc_last_error(), TILE_ENV));
    }
    latmc_ctx_destroy(&ctx);
}
