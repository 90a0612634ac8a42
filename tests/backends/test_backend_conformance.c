/*
 * Backend conformance: the backend named on the command line ("cpu" or "cuda") against the
 * CPU reference backend (one thread), through the public API only. For Ising (2D and 3D,
 * Metropolis and heat bath, h != 0, J < 0, extents that are not powers of two, several
 * seeds; extents for each CUDA Ising kernel: L_x a multiple of 16, of 8 only, neither;
 * random +-J couplings, also set from the host)
 * and Potts (q = 2 to 255; the 2- and the 3-colouring; both algorithms; shapes for every
 * variant of the CUDA Potts row kernels and for their per-block fallback): hot
 * start, 20 sweeps in chunks with a parameter change on the way, then a configuration set
 * through set_spins and a cold start; after every step the configuration bytes, every
 * observable (as exactly equal doubles), the acceptance counts and the sweep count must be
 * identical, bit for bit (doc/conventions.md, "Reproducibility"). The Heisenberg spin glass
 * (conformance_heisenberg.c): bit for bit where the backend does the reference's
 * arithmetic, equal up to rounding elsewhere (that file says which is which).
 *
 * The "cpu" run checks the suite itself and thread-count identity (it runs on 3 threads).
 * The "cuda" run exits 77 (skipped) when the CUDA backend is unavailable: no module, no
 * driver, no GPU. It also checks devices, refusals and out-of-memory on the device,
 * phi^4 (phi4_cuda: every kernel on small lattices, so that gpu_check.sh runs them under
 * compute-sanitizer; the statistics are in test_cuda_phi4.c) and the Heisenberg kernels'
 * independence of their launch geometry (cuda_heisenberg_launch_geometry).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance_heisenberg.h"
#include "sim_helpers.h"

#define SKIP 77

static int backend_device = LATMC_DEVICE_CPU;
static const char *backend_name = "cpu";

struct params {
    double beta, J, h;
};

struct chain_case {
    const char *label;
    int model, ndim, q, algorithm;
    int64_t extent[3];
    uint64_t seed;
    struct params p;       /* from the start */
    struct params later;   /* after the first 10 sweeps */
    int couplings;         /* Ising: LATMC_COUPLINGS_UNIFORM or BIMODAL (+-J) */
};

static latmc_sim_desc case_desc(const struct chain_case *c, int device, int n_threads)
{
    latmc_sim_desc d = ising_desc(c->ndim, c->extent[0], c->extent[1], c->extent[2],
                                  c->algorithm, n_threads, c->seed);
    d.model = c->model;
    d.q = c->model == LATMC_MODEL_POTTS ? c->q : d.q;
    d.device = device;
    d.couplings = c->couplings;
    d.coupling_seed = c->seed * 3 + 1;
    return d;
}

static void set_params(latmc_sim *sim, const struct params *p)
{
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, p->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, p->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, p->h), LATMC_OK);
}

/* Everything observable of the two sims is identical, bit for bit. */
static void assert_same_state(latmc_sim *ref, latmc_sim *sut, const char *label, const char *step)
{
    size_t n = 0, n2 = 0;
    assert_int_equal(latmc_sim_spins_size(ref, &n), LATMC_OK);
    assert_int_equal(latmc_sim_spins_size(sut, &n2), LATMC_OK);
    assert_int_equal(n, n2);
    unsigned char *a = malloc(n), *b = malloc(n);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(latmc_sim_get_spins(ref, a, n), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sut, b, n), LATMC_OK);
    if (memcmp(a, b, n) != 0) {
        size_t first = 0, count = 0;
        for (size_t i = n; i-- > 0;)
            if (a[i] != b[i]) {
                first = i;
                count++;
            }
        print_error("%s, %s: %zu of %zu sites differ, the first is site %zu (%d vs %d)\n",
                    label, step, count, n, first, a[first], b[first]);
    }
    assert_memory_equal(a, b, n);
    free(a);
    free(b);

    static const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4 };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        double x = 0, y = 0;
        assert_int_equal(latmc_sim_observable(ref, keys[k], &x), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sut, keys[k], &y), LATMC_OK);
        if (memcmp(&x, &y, sizeof x) != 0)
            print_error("%s, %s: %s %.17g vs %.17g\n", label, step,
                        latmc_observable_name(keys[k]), x, y);
        assert_memory_equal(&x, &y, sizeof x);
    }
    uint64_t acc_a = 0, att_a = 0, acc_b = 0, att_b = 0;
    assert_int_equal(latmc_sim_acceptance_counts(ref, &acc_a, &att_a), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(sut, &acc_b, &att_b), LATMC_OK);
    if (acc_a != acc_b || att_a != att_b)
        print_error("%s, %s: acceptance %llu/%llu vs %llu/%llu\n", label, step,
                    (unsigned long long)acc_a, (unsigned long long)att_a,
                    (unsigned long long)acc_b, (unsigned long long)att_b);
    assert_true(acc_a == acc_b);
    assert_true(att_a == att_b);
    if (att_a > 0) {
        double x = 0, y = 0;
        assert_int_equal(latmc_sim_observable(ref, LATMC_OBS_ACCEPTANCE, &x), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sut, LATMC_OBS_ACCEPTANCE, &y), LATMC_OK);
        assert_memory_equal(&x, &y, sizeof x);
    }
    uint64_t sw_a = 0, sw_b = 0;
    assert_int_equal(latmc_sim_sweep_count(ref, &sw_a), LATMC_OK);
    assert_int_equal(latmc_sim_sweep_count(sut, &sw_b), LATMC_OK);
    assert_true(sw_a == sw_b);
}

static void sweep_both(latmc_sim *ref, latmc_sim *sut, uint64_t n)
{
    assert_int_equal(latmc_sim_sweep(ref, n), LATMC_OK);
    int st = latmc_sim_sweep(sut, n);
    if (st != LATMC_OK)
        print_error("%s sweep: %s\n", backend_name, latmc_sim_last_error(sut));
    assert_int_equal(st, LATMC_OK);
}

/* A random configuration of the model, from the tests' own generator. */
static void random_config(const struct chain_case *c, unsigned char *buf, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rng_next(&seed);
        if (c->model == LATMC_MODEL_ISING)
            buf[i] = (unsigned char)(int8_t)((r >> 63) ? -1 : 1);
        else
            buf[i] = (unsigned char)(r % (uint64_t)c->q);
    }
}

static void run_case(const struct chain_case *c)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc dr = case_desc(c, LATMC_DEVICE_CPU, 1);
    latmc_sim_desc ds = case_desc(c, backend_device, backend_device == LATMC_DEVICE_CPU ? 3 : 0);
    latmc_sim *ref = NULL, *sut = NULL;
    assert_int_equal(latmc_sim_create(ctx, &dr, &ref), LATMC_OK);
    int st = latmc_sim_create(ctx, &ds, &sut);
    if (st != LATMC_OK)
        print_error("%s: creating the %s sim: %s\n", c->label, backend_name, latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sut), backend_name); /* no silent fallback */
    set_params(ref, &c->p);
    set_params(sut, &c->p);

    /* hot start, then 20 sweeps in chunks; the parameters change after 10 */
    assert_int_equal(latmc_sim_init_spins(ref, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sut, LATMC_INIT_HOT), LATMC_OK);
    assert_same_state(ref, sut, c->label, "hot start");
    static const uint64_t chunks[] = { 1, 2, 7, 10 };
    uint64_t done = 0;
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++) {
        sweep_both(ref, sut, chunks[k]);
        done += chunks[k];
        char step[64];
        snprintf(step, sizeof step, "after %llu sweeps", (unsigned long long)done);
        assert_same_state(ref, sut, c->label, step);
        if (done == 10) {
            set_params(ref, &c->later);
            set_params(sut, &c->later);
            assert_same_state(ref, sut, c->label, "after the parameter change");
        }
    }
    /* a chain must really move for the comparison to mean anything */
    double acc = 0;
    assert_int_equal(latmc_sim_observable(ref, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
    assert_true(acc > 0.0);

    /* +-J: the same couplings, then new ones set from the host on both */
    size_t nc = 0;
    if (c->couplings == LATMC_COUPLINGS_BIMODAL) {
        assert_int_equal(latmc_sim_couplings_size(ref, &nc), LATMC_OK);
        float *ja = malloc(nc * sizeof *ja), *jb = malloc(nc * sizeof *jb);
        assert_non_null(ja);
        assert_non_null(jb);
        assert_int_equal(latmc_sim_get_couplings(ref, ja, nc), LATMC_OK);
        assert_int_equal(latmc_sim_get_couplings(sut, jb, nc), LATMC_OK);
        assert_memory_equal(ja, jb, nc * sizeof *ja);
        uint64_t rng = c->seed ^ UINT64_C(0xc0c0);
        for (size_t i = 0; i < nc; i++)
            ja[i] = (test_rng_next(&rng) >> 63) ? -1.0f : 1.0f;
        assert_int_equal(latmc_sim_set_couplings(ref, ja, nc), LATMC_OK);
        assert_int_equal(latmc_sim_set_couplings(sut, ja, nc), LATMC_OK);
        assert_int_equal(latmc_sim_get_couplings(sut, jb, nc), LATMC_OK);
        assert_memory_equal(ja, jb, nc * sizeof *ja);
        assert_same_state(ref, sut, c->label, "after set_couplings");
        free(ja);
        free(jb);
    }

    /* a configuration set from the host, then 3 more sweeps */
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(ref, &n), LATMC_OK);
    unsigned char *buf = malloc(n);
    assert_non_null(buf);
    random_config(c, buf, n, c->seed ^ UINT64_C(0x5eed));
    assert_int_equal(latmc_sim_set_spins(ref, buf, n), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(sut, buf, n), LATMC_OK);
    assert_same_state(ref, sut, c->label, "after set_spins");
    sweep_both(ref, sut, 3);
    assert_same_state(ref, sut, c->label, "3 sweeps after set_spins");
    free(buf);

    /* the cold start, and 2 sweeps from it */
    assert_int_equal(latmc_sim_init_spins(ref, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sut, LATMC_INIT_COLD), LATMC_OK);
    assert_same_state(ref, sut, c->label, "cold start");
    sweep_both(ref, sut, 2);
    assert_same_state(ref, sut, c->label, "2 sweeps after the cold start");

    latmc_sim_destroy(&ref);
    latmc_sim_destroy(&sut);
    latmc_ctx_destroy(&ctx);
}

static void run_cases(const struct chain_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        printf("  %s\n", cases[i].label);
        fflush(stdout);
        run_case(&cases[i]);
    }
}

#define ISING(label_, ndim_, lx_, ly_, lz_, algo_, seed_, beta_, J_, h_, beta2_, J2_, h2_)      \
    { label_, LATMC_MODEL_ISING, ndim_, 0, algo_, { lx_, ly_, lz_ }, seed_,                    \
      { beta_, J_, h_ }, { beta2_, J2_, h2_ }, LATMC_COUPLINGS_UNIFORM }
/* Ising with random +-1 couplings drawn from the coupling seed */
#define ISING_PMJ(label_, ndim_, lx_, ly_, lz_, algo_, seed_, beta_, J_, h_, beta2_, J2_, h2_)  \
    { label_, LATMC_MODEL_ISING, ndim_, 0, algo_, { lx_, ly_, lz_ }, seed_,                    \
      { beta_, J_, h_ }, { beta2_, J2_, h2_ }, LATMC_COUPLINGS_BIMODAL }
#define POTTS(label_, ndim_, lx_, ly_, lz_, q_, algo_, seed_, beta_, J_, h_, beta2_, J2_, h2_)  \
    { label_, LATMC_MODEL_POTTS, ndim_, q_, algo_, { lx_, ly_, lz_ }, seed_,                   \
      { beta_, J_, h_ }, { beta2_, J2_, h2_ }, LATMC_COUPLINGS_UNIFORM }

enum { METRO = LATMC_ALGO_METROPOLIS, HEATB = LATMC_ALGO_HEATBATH };

static void ising_2d(void **state)
{
    (void)state;
    static const struct chain_case cases[] = {
        ISING("Ising 2D 6x10 Metropolis", 2, 6, 10, 0, METRO, 1, 0.44, 1, 0, 0.3, 1, 0.2),
        ISING("Ising 2D 6x10 heat bath", 2, 6, 10, 0, HEATB, 2, 0.44, 1, 0, 0.6, 1, -0.1),
        ISING("Ising 2D 130x66 Metropolis h", 2, 130, 66, 0, METRO, 3, 0.44, 1, 0.1, 0.5, 1, 0.1),
        ISING("Ising 2D 130x66 heat bath h", 2, 130, 66, 0, HEATB, UINT64_C(0x123456789abcdef),
              0.4, 1, -0.3, 0.44, 1, 0),
        ISING("Ising 2D 2x2 Metropolis", 2, 2, 2, 0, METRO, 5, 0.3, 1, 0.1, 0.3, -1, 0.1),
        ISING("Ising 2D 64x4 heat bath J<0", 2, 64, 4, 0, HEATB, 6, 0.5, -1, 0.2, 0.5, -0.5, 0.4),
        ISING("Ising 2D 512x384 Metropolis", 2, 512, 384, 0, METRO, 7, 0.4406868, 1, 0, 0.5, 1, 0),
        ISING("Ising 2D 512x384 heat bath J<0 h", 2, 512, 384, 0, HEATB, 8, 0.7, -1, 0.5, 0.2, -1,
              1.5),
        /* CUDA: the row-segment kernel with 8-byte segments (L_x % 8 == 0 only; its 16-byte
         * segments run where L_x % 16 == 0 and beta is extreme, cases at the end), the
         * multi-spin coded kernels where L_x % 16 == 0, rows that wrap in x on both sides
         * (L_x = 8, 16), L_y = 2 (both y neighbours in one row); 130x66 and 6x10 above take
         * the per-block fallback. */
        ISING("Ising 2D 16x2 Metropolis (packed, 1 word)", 2, 16, 2, 0, METRO, 71, 0.3, 1, 0.1, 0.5,
              1, 0),
        ISING("Ising 2D 8x6 heat bath (8-byte rows)", 2, 8, 6, 0, HEATB, 72, 0.44, 1, 0.1, 0.3, -1,
              0),
        ISING("Ising 2D 72x10 Metropolis h (8-byte rows)", 2, 72, 10, 0, METRO, 73, 0.44, 1, 0.1,
              0.6, 1, -0.2),
        ISING("Ising 2D 72x10 heat bath (8-byte rows)", 2, 72, 10, 0, HEATB, 74, 0.44, 1, 0, 0.5, 1,
              0.1),
        ISING("Ising 2D 1024x1030 Metropolis (packed, 8 words)", 2, 1024, 1030, 0, METRO,
              UINT64_C(0xfedcba9876543210), 0.4406868, 1, 0, 0.6, 1, 0.05),
        ISING("Ising 2D 1032x514 heat bath h (8-byte rows)", 2, 1032, 514, 0, HEATB, 76, 0.4406868,
              1, 0.05, 0.3, 1, 0),
        ISING("Ising 2D 1030x516 Metropolis (fallback)", 2, 1030, 516, 0, METRO, 77, 0.4406868, 1,
              0, 0.5, -1, 0.1),
        /* The CUDA multi-spin coded kernels (L_x % 16 == 0: 8 words per thread where
         * L_x % 128 == 0, 4 where L_x % 64 == 0, 2 where L_x % 32 == 0, else 1; 16x2,
         * 64x4, 512x384 and 1024x1030 above take them too), and the switch between them and the byte kernels when beta
         * is so large that a threshold leaves 32 bits (Metropolis 0, heat bath 2^32). */
        ISING("Ising 2D 32x6 heat bath h (packed, 2 words)", 2, 32, 6, 0, HEATB, 78, 0.44, 1, 0.2,
              0.3, 1, -0.1),
        ISING("Ising 2D 64x8 Metropolis beta 3, then 0.4 (byte, then packed)", 2, 64, 8, 0, METRO,
              79, 3.0, 1, 0, 0.4, 1, 0.1),
        ISING("Ising 2D 96x4 heat bath beta 0.4, then 5 (packed, then byte)", 2, 96, 4, 0, HEATB,
              80, 0.4, 1, 0, 5.0, 1, 0),
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void ising_3d(void **state)
{
    (void)state;
    static const struct chain_case cases[] = {
        ISING("Ising 3D 18x10x14 Metropolis", 3, 18, 10, 14, METRO, 11, 0.2216, 1, 0, 0.3, 1, 0.05),
        ISING("Ising 3D 18x10x14 heat bath h", 3, 18, 10, 14, HEATB, 12, 0.2216, 1, 0.05, 0.25, 1,
              -0.05),
        ISING("Ising 3D 2x2x2 Metropolis", 3, 2, 2, 2, METRO, 13, 0.3, 1, 0.2, 0.4, 1, 0),
        ISING("Ising 3D 8x6x4 heat bath J<0", 3, 8, 6, 4, HEATB, 14, 0.4, -1, 0.3, 0.4, -2, 0.3),
        ISING("Ising 3D 8x6x4 Metropolis J<0", 3, 8, 6, 4, METRO, 15, 0.4, -1, -0.3, 1.0, -1, 0),
        ISING("Ising 3D 34x30x26 Metropolis", 3, 34, 30, 26, METRO, 16, 0.2216, 1, 0.01, 0.2, 1, 0),
        ISING("Ising 3D 34x30x26 heat bath", 3, 34, 30, 26, HEATB, 17, 0.2216, 1, 0, 0.3, 1, 0.1),
        ISING("Ising 3D 64x48x66 heat bath h", 3, 64, 48, 66, HEATB, 18, 0.2216, 1, 0.02, 0.23, 1,
              0),
        /* CUDA in 3D: the multi-spin coded kernels at 8, 2 and 1 words per thread, the
         * row-segment kernel with 8-byte segments; L_y = L_z = 2 */
        ISING("Ising 3D 128x4x6 heat bath h (packed, 8 words)", 3, 128, 4, 6, HEATB, 86, 0.2216,
              1, 0.1, 0.3, 1, -0.05),
        ISING("Ising 3D 32x4x6 Metropolis h (packed, 2 words)", 3, 32, 4, 6, METRO, 85, 0.2216, 1,
              0.1, 0.3, -1, 0),
        ISING("Ising 3D 16x2x2 Metropolis (packed, 1 word)", 3, 16, 2, 2, METRO, 81, 0.3, 1, 0.1,
              0.2, 1, 0),
        ISING("Ising 3D 24x6x10 heat bath h (8-byte rows)", 3, 24, 6, 10, HEATB, 82, 0.2216, 1,
              0.05, 0.3, -1, 0),
        ISING("Ising 3D 24x6x10 Metropolis J<0 (8-byte rows)", 3, 24, 6, 10, METRO, 83, 0.3, -1,
              0.1, 0.2, 1, 0),
        ISING("Ising 3D 48x34x20 Metropolis (packed, 1 word)", 3, 48, 34, 20, METRO, 84, 0.2216, 1,
              0, 0.25, 1, 0.02),
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* Ising +-J (desc.couplings = BIMODAL): every shape class of the uniform cases above (on
 * CUDA the multi-spin coded kernels where L_x % 64 == 0, else the per-block kernel with
 * couplings; on the CPU the C level). */
static void ising_pmj(void **state)
{
    (void)state;
    static const struct chain_case cases[] = {
        ISING_PMJ("Ising +-J 2D 6x10 Metropolis", 2, 6, 10, 0, METRO, 201, 1.0, 1, 0, 0.6, 1, 0.2),
        ISING_PMJ("Ising +-J 2D 6x10 heat bath", 2, 6, 10, 0, HEATB, 202, 1.0, 1, 0.1, 0.8, -1, 0),
        ISING_PMJ("Ising +-J 2D 2x2 Metropolis", 2, 2, 2, 0, METRO, 203, 0.5, 1, 0.1, 0.5, -1, 0),
        ISING_PMJ("Ising +-J 2D 130x66 heat bath h", 2, 130, 66, 0, HEATB, 204, 1.2, 1, 0.3, 0.9,
                  1, 0),
        ISING_PMJ("Ising +-J 2D 1024x514 Metropolis", 2, 1024, 514, 0, METRO,
                  UINT64_C(0xfedcba9876543210), 1.0, 1, 0, 1.5, 1, 0.05),
        ISING_PMJ("Ising +-J 3D 2x2x2 heat bath", 3, 2, 2, 2, HEATB, 205, 0.6, 1, 0.2, 0.4, 1, 0),
        ISING_PMJ("Ising +-J 3D 18x10x14 Metropolis h", 3, 18, 10, 14, METRO, 206, 0.8, 1, 0.1,
                  1.1, 1, 0),
        ISING_PMJ("Ising +-J 3D 48x34x20 heat bath J<0", 3, 48, 34, 20, HEATB, 207, 0.9, -1, 0,
                  1.2, -1, 0.1),
        /* the CUDA multi-spin coded kernels with couplings (L_x % 64 == 0: 8 or 4 words per
         * thread; 1024x514 above too), and a beta at which they hand over to the byte
         * kernels and back */
        ISING_PMJ("Ising +-J 2D 256x6 heat bath h (packed, 8 words)", 2, 256, 6, 0, HEATB, 208,
                  1.0, 1, 0.2, 0.7, 1, -0.1),
        ISING_PMJ("Ising +-J 2D 64x10 Metropolis, beta 4 then 0.8 (byte, then packed)", 2, 64, 10,
                  0, METRO, 209, 4.0, 1, 0, 0.8, 1, 0.1),
        ISING_PMJ("Ising +-J 3D 128x4x6 Metropolis h (packed, 8 words)", 3, 128, 4, 6, METRO, 210,
                  0.8, 1, 0.1, 1.0, -1, 0),
        ISING_PMJ("Ising +-J 3D 64x6x4 heat bath (packed, 4 words)", 3, 64, 6, 4, HEATB, 211, 0.7,
                  1, 0, 0.9, 1, 0.2),
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void potts_two_colours(void **state)
{
    (void)state;
    static const struct chain_case cases[] = {
        POTTS("Potts q=2 2D 6x10 Metropolis", 2, 6, 10, 0, 2, METRO, 21, 0.88, 1, 0, 0.8, 1, 0.1),
        POTTS("Potts q=2 2D 6x10 heat bath", 2, 6, 10, 0, 2, HEATB, 22, 0.88, 1, 0.1, 0.5, 1, 0),
        POTTS("Potts q=3 2D 130x66 Metropolis", 2, 130, 66, 0, 3, METRO, 23, 1.005, 1, 0.05, 1.2, 1,
              0),
        POTTS("Potts q=3 2D 130x66 heat bath", 2, 130, 66, 0, 3, HEATB, 24, 1.005, 1, 0, 0.9, 1,
              0.05),
        POTTS("Potts q=8 2D 64x32 Metropolis", 2, 64, 32, 0, 8, METRO, 25, 1.3, 1, 0, 1.4, 1, 0.1),
        POTTS("Potts q=8 2D 64x32 heat bath J<0", 2, 64, 32, 0, 8, HEATB, 26, 1.3, -1, 0.2, 1.3, 1,
              0),
        POTTS("Potts q=200 2D 40x20 Metropolis", 2, 40, 20, 0, 200, METRO, 27, 3.0, 1, 0.05, 5.0, 1,
              0),
        POTTS("Potts q=200 2D 40x20 heat bath", 2, 40, 20, 0, 200, HEATB, 28, 3.0, 1, 0.05, 8.0, 1,
              0.5),
        POTTS("Potts q=3 3D 18x10x14 Metropolis", 3, 18, 10, 14, 3, METRO, 29, 0.55, 1, 0, 0.6, 1,
              0.1),
        POTTS("Potts q=3 3D 18x10x14 heat bath", 3, 18, 10, 14, 3, HEATB, 30, 0.55, 1, 0.05, 0.5, 1,
              0),
        POTTS("Potts q=200 3D 8x6x4 heat bath", 3, 8, 6, 4, 200, HEATB, 31, 2.0, 1, 0, 20.0, 1, 0),
        POTTS("Potts q=8 3D 2x2x2 Metropolis", 3, 2, 2, 2, 8, METRO, 32, 0.7, 1, 0.1, 0.7, -1, 0.1),
        POTTS("Potts q=8 2D 768x510 heat bath", 2, 768, 510, 0, 8, HEATB, 33, 1.35, 1, 0, 1.4, 1,
              0.05),
        POTTS("Potts q=3 2D 768x510 Metropolis h", 2, 768, 510, 0, 3, METRO, 34, 1.0, 1, 0.05, 1.0,
              1, 0),
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void potts_three_colours(void **state)
{
    (void)state;
    static const struct chain_case cases[] = {
        POTTS("Potts q=3 2D 9x15 Metropolis (c=3)", 2, 9, 15, 0, 3, METRO, 41, 1.005, 1, 0, 0.9, 1,
              0.1),
        POTTS("Potts q=3 2D 9x15 heat bath (c=3)", 2, 9, 15, 0, 3, HEATB, 42, 1.005, 1, 0.05, 1.1, 1,
              0),
        POTTS("Potts q=2 2D 3x3 Metropolis (c=3)", 2, 3, 3, 0, 2, METRO, 43, 0.5, 1, 0.2, 0.5, 1, 0),
        POTTS("Potts q=8 2D 63x33 heat bath (c=3)", 2, 63, 33, 0, 8, HEATB, 44, 1.3, 1, 0, 1.5, 1,
              0.2),
        POTTS("Potts q=8 2D 63x33 Metropolis J<0 (c=3)", 2, 63, 33, 0, 8, METRO, 45, 1.0, -1, 0.1,
              1.0, -0.5, 0),
        POTTS("Potts q=200 2D 6x9 heat bath (c=3)", 2, 6, 9, 0, 200, HEATB, 46, 3.0, 1, 0, 10.0, 1,
              0.3),
        POTTS("Potts q=200 2D 6x9 Metropolis (c=3)", 2, 6, 9, 0, 200, METRO, 47, 3.0, 1, 0.1, 3.0, 1,
              0),
        POTTS("Potts q=3 3D 9x6x15 Metropolis (c=3)", 3, 9, 6, 15, 3, METRO, 48, 0.55, 1, 0, 0.6, 1,
              0.05),
        POTTS("Potts q=3 3D 9x6x15 heat bath (c=3)", 3, 9, 6, 15, 3, HEATB, 49, 0.55, 1, 0.1, 0.5, 1,
              0),
        POTTS("Potts q=8 3D 3x3x3 heat bath J<0 (c=3)", 3, 3, 3, 3, 8, HEATB, 50, 0.8, -1, 0, 0.8, 1,
              0.1),
        POTTS("Potts q=3 3D 33x27x45 Metropolis (c=3)", 3, 33, 27, 45, 3, METRO, 51, 0.55, 1, 0.02,
              0.55, 1, 0),
        POTTS("Potts q=200 3D 33x27x45 heat bath (c=3)", 3, 33, 27, 45, 200, HEATB, 52, 2.0, 1, 0,
              2.5, 1, 0.1),
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/*
 * The CUDA Potts row-segment kernels (backends/cuda/potts/potts_rows.cuh), one or more lattices
 * for each variant: 2 colours with 16-byte segments (L_x % 16 == 0) and 8-byte ones
 * (L_x % 8 only), 3 colours with 24-byte (L_x % 24) and 12-byte (L_x % 12 only); heat
 * bath with each table layout (2D q <= 3, q = 4, 5 <= q <= 8; 3D q <= 3, q = 4), tables
 * with zero weights (very low temperature, strong fields), Metropolis from q = 2 to 255;
 * plus shapes and q that must take the per-block kernel (3D heat bath q = 8, 2D q = 9,
 * L_x not a multiple of 8 or 12). On the CPU they are just more chains.
 */
static void potts_row_kernels(void **state)
{
    (void)state;
    static const struct chain_case cases[] = {
        POTTS("Potts q=3 2D 48x34 heat bath (rows 16)", 2, 48, 34, 0, 3, HEATB, 101, 1.005, 1, 0,
              1.1, 1, 0.1),
        POTTS("Potts q=2 2D 40x6 heat bath h (rows 8)", 2, 40, 6, 0, 2, HEATB, 102, 0.9, 1, 0.3,
              0.5, -1, 0),
        POTTS("Potts q=4 2D 48x10 heat bath (rows 16)", 2, 48, 10, 0, 4, HEATB, 103, 1.1, 1, -0.2,
              1.2, 1, 0),
        POTTS("Potts q=5 2D 32x32 heat bath (rows 16, radix 8)", 2, 32, 32, 0, 5, HEATB, 104, 1.2,
              1, 0.1, 1.3, 1, 0),
        POTTS("Potts q=7 2D 40x14 heat bath J<0 (rows 8, radix 8)", 2, 40, 14, 0, 7, HEATB, 105,
              1.3, -1, 0.2, 1.3, 1, 0),
        POTTS("Potts q=8 2D 1040x516 heat bath (rows 16, radix 8)", 2, 1040, 516, 0, 8, HEATB, 106,
              1.4, 1, 0, 1.5, 1, 0.05),
        POTTS("Potts q=3 2D 1032x514 heat bath h (rows 8)", 2, 1032, 514, 0, 3, HEATB, 107, 1.005,
              1, 0.05, 1.005, 1, 0),
        POTTS("Potts q=3 2D 32x16 heat bath, zero weights", 2, 32, 16, 0, 3, HEATB, 108, 25.0, 1,
              -3.0, 30.0, 1, 0),
        POTTS("Potts q=8 2D 32x16 heat bath J<0, zero weights", 2, 32, 16, 0, 8, HEATB, 109, 25.0,
              -1, 2.5, 0, 1, 0),
        POTTS("Potts q=3 2D 48x45 heat bath (c=3, rows 24)", 2, 48, 45, 0, 3, HEATB, 110, 1.005, 1,
              0.05, 1.2, 1, 0),
        POTTS("Potts q=8 2D 36x27 heat bath (c=3, rows 12, radix 8)", 2, 36, 27, 0, 8, HEATB, 111,
              1.4, 1, 0, 1.4, 1, 0.1),
        POTTS("Potts q=4 2D 12x9 heat bath J<0 (c=3, rows 12)", 2, 12, 9, 0, 4, HEATB, 112, 1.0,
              -1, 0.3, 1.0, 1, 0),
        POTTS("Potts q=3 3D 16x6x4 heat bath (rows 16)", 3, 16, 6, 4, 3, HEATB, 113, 0.55, 1, 0,
              0.6, 1, 0.1),
        POTTS("Potts q=2 3D 24x10x6 heat bath h (rows 8)", 3, 24, 10, 6, 2, HEATB, 114, 0.45, 1,
              0.1, 0.5, 1, 0),
        POTTS("Potts q=4 3D 16x4x2 heat bath (rows 16, one copy)", 3, 16, 4, 2, 4, HEATB, 115, 0.6,
              1, -0.1, 0.7, -1, 0),
        POTTS("Potts q=3 3D 24x9x15 heat bath (c=3, rows 24)", 3, 24, 9, 15, 3, HEATB, 116, 0.55, 1,
              0.05, 0.6, 1, 0),
        POTTS("Potts q=4 3D 12x6x9 heat bath J<0 (c=3, rows 12)", 3, 12, 6, 9, 4, HEATB, 117, 0.7,
              -1, 0.2, 0.7, 1, 0),
        POTTS("Potts q=3 2D 48x34 Metropolis h (rows 16)", 2, 48, 34, 0, 3, METRO, 121, 1.005, 1,
              0.05, 1.2, 1, 0),
        POTTS("Potts q=2 2D 40x6 Metropolis (rows 8)", 2, 40, 6, 0, 2, METRO, 122, 0.9, 1, 0.3, 0.9,
              -1, 0),
        POTTS("Potts q=8 2D 1040x516 Metropolis J<0 (rows 16)", 2, 1040, 516, 0, 8, METRO, 123,
              1.4, -1, 0.1, 1.4, 1, 0),
        POTTS("Potts q=200 2D 32x8 Metropolis (rows 16)", 2, 32, 8, 0, 200, METRO, 124, 3.0, 1,
              0.05, 3.0, 1, 0),
        POTTS("Potts q=255 2D 16x2 Metropolis (rows 16)", 2, 16, 2, 0, 255, METRO, 125, 2.0, 1, 0,
              30.0, 1, 0),
        POTTS("Potts q=3 2D 48x45 Metropolis (c=3, rows 24)", 2, 48, 45, 0, 3, METRO, 126, 1.005, 1,
              0, 1.005, 1, 0.1),
        POTTS("Potts q=255 2D 12x9 Metropolis h (c=3, rows 12)", 2, 12, 9, 0, 255, METRO, 127, 5.0,
              1, 0.5, 5.0, 1, 0),
        POTTS("Potts q=3 3D 16x6x4 Metropolis (rows 16)", 3, 16, 6, 4, 3, METRO, 128, 0.55, 1, 0,
              0.55, 1, 0.1),
        POTTS("Potts q=9 3D 24x10x6 Metropolis J<0 (rows 8)", 3, 24, 10, 6, 9, METRO, 129, 0.8, -1,
              0.1, 0.8, 1, 0),
        POTTS("Potts q=3 3D 24x9x15 Metropolis (c=3, rows 24)", 3, 24, 9, 15, 3, METRO, 130, 0.55,
              1, 0.05, 0.55, 1, 0),
        POTTS("Potts q=200 3D 12x6x9 Metropolis h (c=3, rows 12)", 3, 12, 6, 9, 200, METRO, 131,
              2.0, 1, 0.3, 2.0, 1, 0),
        /* the per-block kernel: no table for these q, or L_x not a multiple of 8 / 12 */
        POTTS("Potts q=8 3D 16x6x4 heat bath (per-block)", 3, 16, 6, 4, 8, HEATB, 141, 0.8, 1, 0.1,
              0.9, 1, 0),
        POTTS("Potts q=9 2D 32x16 heat bath (per-block)", 2, 32, 16, 0, 9, HEATB, 142, 1.4, 1, 0,
              1.5, 1, 0.1),
        POTTS("Potts q=3 2D 36x10 heat bath (per-block: 36 % 8 != 0)", 2, 36, 10, 0, 3, HEATB, 143,
              1.005, 1, 0, 1.005, 1, 0.1),
        POTTS("Potts q=3 2D 30x27 Metropolis (c=3, per-block: 30 % 12 != 0)", 2, 30, 27, 0, 3,
              METRO, 144, 1.005, 1, 0.05, 1.005, 1, 0),
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

/* Two sims of the backend, interleaved, follow the same chain as the reference. */
static void interleaved_sims(void **state)
{
    (void)state;
    const struct chain_case c = ISING("Ising 2D 130x66 interleaved", 2, 130, 66, 0, METRO, 61,
                                      0.44, 1, 0.05, 0.44, 1, 0.05);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc dr = case_desc(&c, LATMC_DEVICE_CPU, 1), ds = case_desc(&c, backend_device, 0);
    latmc_sim *ref = NULL, *a = NULL, *b = NULL;
    assert_int_equal(latmc_sim_create(ctx, &dr, &ref), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, &ds, &a), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, &ds, &b), LATMC_OK);
    latmc_sim *all[] = { ref, a, b };
    for (int i = 0; i < 3; i++) {
        set_params(all[i], &c.p);
        assert_int_equal(latmc_sim_init_spins(all[i], LATMC_INIT_HOT), LATMC_OK);
    }
    for (int k = 0; k < 5; k++)
        for (int i = 0; i < 3; i++)
            assert_int_equal(latmc_sim_sweep(all[i], 1 + (uint64_t)k), LATMC_OK);
    assert_same_state(ref, a, c.label, "sim a");
    assert_same_state(ref, b, c.label, "sim b");
    for (int i = 0; i < 3; i++)
        latmc_sim_destroy(&all[i]);
    latmc_ctx_destroy(&ctx);
}

/* The Heisenberg spin glass (conformance_heisenberg.c). */
static void heisenberg(void **state)
{
    (void)state;
    heisenberg_conformance(backend_device, backend_name);
}

static void cuda_heisenberg_launch_geometry(void **state)
{
    (void)state;
    heisenberg_cuda_launch_geometry();
}

/* CUDA only: devices, refusals, errors. */
static void cuda_devices_and_refusals(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    int count = 0;
    assert_int_equal(latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count), LATMC_OK);
    assert_true(count >= 1);
    for (int i = 0; i < count; i++) {
        latmc_device_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, i, &info), LATMC_OK);
        printf("  CUDA device %d: %s, %.1f GiB, compute %d.%d, %d multiprocessors\n", i,
               info.name, (double)info.memory_bytes / (1024.0 * 1024.0 * 1024.0),
               info.compute_major, info.compute_minor, info.multiprocessors);
        assert_true(info.name[0] != '\0');
        assert_true(info.memory_bytes > 0);
        assert_true(info.compute_major >= 1);
        assert_true(info.multiprocessors >= 1);
    }
    printf("  %s\n", latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA));

    latmc_sim *sim = NULL;
    /* a device that is not there */
    latmc_sim_desc d = ising_desc(2, 16, 16, 0, METRO, 0, 1);
    d.device = LATMC_DEVICE_CUDA;
    d.device_index = count;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENODEV);
    assert_null(sim);

    /* every model has CUDA kernels now (a model without them is refused with
     * LATMC_EUNSUPPORTED, cuda_backend.c): AUTO takes the GPU for phi^4 and Heisenberg */
    static const int gpu_models[] = { LATMC_MODEL_PHI4, LATMC_MODEL_HEISENBERG };
    for (size_t k = 0; k < sizeof gpu_models / sizeof gpu_models[0]; k++) {
        d = ising_desc(2, 16, 16, 0, LATMC_ALGO_DEFAULT, 0, 1);
        d.model = gpu_models[k];
        d.device = LATMC_DEVICE_AUTO;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cuda");
        latmc_sim_destroy(&sim);
    }

    /* the CUDA sim reports one host thread */
    d = ising_desc(2, 16, 16, 0, METRO, 8, 1);
    d.device = LATMC_DEVICE_CUDA;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    latmc_sim_desc got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_threads, 1);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* CUDA only: a lattice larger than any GPU's memory fails with LATMC_ENOMEM and leaves the
 * backend fully usable. */
static void cuda_out_of_memory(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    latmc_sim_desc d = ising_desc(2, INT64_C(1) << 20, INT64_C(1) << 20, 0, METRO, 0, 1);
    d.device = LATMC_DEVICE_CUDA;
    /* 2^40 sites (the most a lattice may have) with +-J couplings: at least 5/8 of a byte
     * a site even on the 1-bit leaf (640 GiB; uniform couplings, 128 GiB, fit one H200) */
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENOMEM);
    printf("  %s\n", latmc_last_error());
    assert_null(sim);
    /* Potts, too (a byte a site: 1 TiB) */
    d.couplings = LATMC_COUPLINGS_UNIFORM;
    d.model = LATMC_MODEL_POTTS;
    d.q = 3;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENOMEM);
    assert_null(sim);
    latmc_ctx_destroy(&ctx);
    /* and everything still works */
    const struct chain_case c = ISING("Ising 2D 64x64 after out-of-memory", 2, 64, 64, 0, HEATB,
                                      71, 0.44, 1, 0, 0.44, 1, 0);
    run_case(&c);
}

/*
 * CUDA only: phi^4 (doc/models/phi4.md, "The CUDA chain"), small enough for
 * compute-sanitizer, every kernel (chunks 2D with 8 and 5 colours and 3D, the site order;
 * float and double; hot start, reduction). Against the CPU reference, bit for bit: the hot
 * start, every observable of the same field (the reduction runs in the CPU's order), the
 * field set from the host and the cold start; the site-order schedule in double also the
 * field and counts after sweeps (the CPU's chain, with CUDA's log instead of the C
 * library's: a decision could differ only for -dH within an ulp of log u). For every case
 * the attempted count is exactly N nloc nhit per sweep, and a second CUDA sim with 32
 * threads per block (LATMC_CUDA_PHI4_THREADS) reaches the same field and counts.
 */
struct phi4_case {
    const char *label;
    int ndim, precision;
    int64_t extent[3];
    int site_order;          /* the extents take no chunks: the CPU's order */
};

static latmc_sim *phi4_sim(latmc_ctx *ctx, const struct phi4_case *c, int device)
{
    latmc_sim_desc d = ising_desc(c->ndim, c->extent[0], c->extent[1], c->extent[2],
                                  LATMC_ALGO_DEFAULT, 1, 4242);
    d.model = LATMC_MODEL_PHI4;
    d.precision = c->precision;
    d.device = device;
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (st != LATMC_OK)
        print_error("%s: %s\n", c->label, latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), device == LATMC_DEVICE_CUDA ? "cuda" : "cpu");
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.4), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.5), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, 2.5), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, 0.8), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NHIT, 2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, 2), LATMC_OK);
    return sim;
}

static void phi4_same_observables(latmc_sim *ref, latmc_sim *sut, const char *label,
                                  const char *step)
{
    static const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION,
                                LATMC_OBS_ABS_MAGNETIZATION, LATMC_OBS_M2, LATMC_OBS_M4,
                                LATMC_OBS_PHI2 };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        double x = 0, y = 0;
        assert_int_equal(latmc_sim_observable(ref, keys[k], &x), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sut, keys[k], &y), LATMC_OK);
        if (memcmp(&x, &y, sizeof x) != 0)
            print_error("%s, %s: %s %.17g vs %.17g\n", label, step,
                        latmc_observable_name(keys[k]), x, y);
        assert_memory_equal(&x, &y, sizeof x);
    }
}

static void phi4_same_field(latmc_sim *a, latmc_sim *b, size_t bytes, const char *label,
                            const char *step)
{
    unsigned char *x = malloc(bytes), *y = malloc(bytes);
    assert_non_null(x);
    assert_non_null(y);
    assert_int_equal(latmc_sim_get_spins(a, x, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(b, y, bytes), LATMC_OK);
    if (memcmp(x, y, bytes) != 0)
        print_error("%s, %s: the fields differ\n", label, step);
    assert_memory_equal(x, y, bytes);
    free(x);
    free(y);
}

static void phi4_cuda(void **state)
{
    (void)state;
    static const struct phi4_case cases[] = {
        { "phi^4 2D 64x16 float (chunks, 8 colours)", 2, LATMC_PRECISION_FLOAT, { 64, 16, 0 }, 0 },
        { "phi^4 2D 40x10 double (chunks, 5 colours)", 2, LATMC_PRECISION_DOUBLE, { 40, 10, 0 }, 0 },
        { "phi^4 3D 64x8x8 double (chunks)", 3, LATMC_PRECISION_DOUBLE, { 64, 8, 8 }, 0 },
        { "phi^4 3D 64x8x8 float (chunks)", 3, LATMC_PRECISION_FLOAT, { 64, 8, 8 }, 0 },
        { "phi^4 2D 8x8 double (site order)", 2, LATMC_PRECISION_DOUBLE, { 8, 8, 0 }, 1 },
        { "phi^4 2D 15x10 double (site order, 5 colours)", 2, LATMC_PRECISION_DOUBLE,
          { 15, 10, 0 }, 1 },
        { "phi^4 3D 8x8x16 double (site order)", 3, LATMC_PRECISION_DOUBLE, { 8, 8, 16 }, 1 },
        { "phi^4 2D 24x16 float (site order)", 2, LATMC_PRECISION_FLOAT, { 24, 16, 0 }, 1 },
    };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct phi4_case *c = &cases[i];
        printf("  %s\n", c->label);
        fflush(stdout);
        latmc_sim *ref = phi4_sim(ctx, c, LATMC_DEVICE_CPU), *sut = phi4_sim(ctx, c, LATMC_DEVICE_CUDA);
        setenv("LATMC_CUDA_PHI4_THREADS", "32", 1);
        latmc_sim *sut32 = phi4_sim(ctx, c, LATMC_DEVICE_CUDA);
        unsetenv("LATMC_CUDA_PHI4_THREADS");
        size_t bytes = 0;
        assert_int_equal(latmc_sim_spins_size(sut, &bytes), LATMC_OK);
        const int64_t n = c->extent[0] * c->extent[1] * (c->ndim == 3 ? c->extent[2] : 1);
        assert_int_equal(bytes, (size_t)n * (c->precision == LATMC_PRECISION_FLOAT ? 4 : 8));

        latmc_sim *all[] = { ref, sut, sut32 };
        for (int k = 0; k < 3; k++)
            assert_int_equal(latmc_sim_init_spins(all[k], LATMC_INIT_HOT), LATMC_OK);
        phi4_same_field(ref, sut, bytes, c->label, "hot start");
        phi4_same_observables(ref, sut, c->label, "hot start");

        for (int k = c->site_order ? 0 : 1; k < 3; k++)
            assert_int_equal(latmc_sim_sweep(all[k], 3), LATMC_OK);
        uint64_t acc = 0, att = 0, acc32 = 0, att32 = 0;
        assert_int_equal(latmc_sim_acceptance_counts(sut, &acc, &att), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(sut32, &acc32, &att32), LATMC_OK);
        assert_true(att == (uint64_t)n * 2 * 2 * 3);
        assert_true(acc > 0 && acc < att);
        assert_true(acc32 == acc && att32 == att);
        phi4_same_field(sut, sut32, bytes, c->label, "3 sweeps, 32 threads per block");
        if (c->site_order && c->precision == LATMC_PRECISION_DOUBLE) {
            uint64_t acc_ref = 0, att_ref = 0;
            assert_int_equal(latmc_sim_acceptance_counts(ref, &acc_ref, &att_ref), LATMC_OK);
            assert_true(acc_ref == acc && att_ref == att);
            phi4_same_field(ref, sut, bytes, c->label, "3 sweeps (site order)");
            phi4_same_observables(ref, sut, c->label, "3 sweeps (site order)");
        }

        /* a field from the host: copied exactly, observed exactly as on the CPU */
        unsigned char *buf = malloc(bytes);
        assert_non_null(buf);
        uint64_t rng = 77 + i;
        for (int64_t s = 0; s < n; s++) {
            const double v = ldexp((double)(test_rng_next(&rng) >> 11), -53) * 3.0 - 1.5;
            if (c->precision == LATMC_PRECISION_FLOAT)
                ((float *)buf)[s] = (float)v;
            else
                ((double *)buf)[s] = v;
        }
        assert_int_equal(latmc_sim_set_spins(ref, buf, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_set_spins(sut, buf, bytes), LATMC_OK);
        phi4_same_field(ref, sut, bytes, c->label, "set_spins");
        phi4_same_observables(ref, sut, c->label, "set_spins");
        assert_int_equal(latmc_sim_sweep(sut, 1), LATMC_OK);
        free(buf);

        assert_int_equal(latmc_sim_init_spins(ref, LATMC_INIT_COLD), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sut, LATMC_INIT_COLD), LATMC_OK);
        phi4_same_field(ref, sut, bytes, c->label, "cold start");
        phi4_same_observables(ref, sut, c->label, "cold start");
        for (int k = 0; k < 3; k++)
            latmc_sim_destroy(&all[k]);
    }
    latmc_ctx_destroy(&ctx);
}

/* Exit 77 when the CUDA backend cannot run here, saying why. */
static int cuda_available(void)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 0;
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, METRO, 0, 1);
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, &d, &sim);
    if (st == LATMC_EBACKEND || st == LATMC_ENODEV) {
        const char *why = latmc_last_error();
        const char *prefix = "CUDA backend unavailable: ";
        printf("%s%s\n", strncmp(why, prefix, strlen(prefix)) == 0 ? "" : prefix, why);
        latmc_ctx_destroy(&ctx);
        return 0;
    }
    if (st != LATMC_OK) /* anything else is a failure of the backend: run, and fail */
        printf("creating a CUDA sim: %s (%s)\n", latmc_strerror(st), latmc_last_error());
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return 1;
}

int main(int argc, char **argv)
{
    const char *name = argc > 1 ? argv[1] : getenv("LATMC_TEST_BACKEND");
    if (!name || (strcmp(name, "cpu") != 0 && strcmp(name, "cuda") != 0)) {
        fprintf(stderr, "usage: %s cpu|cuda (or LATMC_TEST_BACKEND)\n", argv[0]);
        return 2;
    }
    backend_name = name;
    /* LATMC_TEST_FILTER: run only the tests whose names match (cmocka's pattern), e.g.
     * phi4_cuda or heisenberg under a sanitizer */
    if (getenv("LATMC_TEST_FILTER"))
        cmocka_set_test_filter(getenv("LATMC_TEST_FILTER"));
    backend_device = strcmp(name, "cuda") == 0 ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
    if (backend_device == LATMC_DEVICE_CUDA && !cuda_available())
        return SKIP;

    const struct CMUnitTest common[] = {
        cmocka_unit_test(ising_2d),
        cmocka_unit_test(ising_3d),
        cmocka_unit_test(ising_pmj),
        cmocka_unit_test(potts_two_colours),
        cmocka_unit_test(potts_three_colours),
        cmocka_unit_test(potts_row_kernels),
        cmocka_unit_test(interleaved_sims),
        cmocka_unit_test(heisenberg),
    };
    const struct CMUnitTest cuda_only[] = {
        cmocka_unit_test(cuda_devices_and_refusals),
        cmocka_unit_test(phi4_cuda),
        cmocka_unit_test(cuda_heisenberg_launch_geometry),
        cmocka_unit_test(cuda_out_of_memory),
    };
    const struct CMUnitTest cuda_only_no_oom[] = {
        cmocka_unit_test(cuda_devices_and_refusals),
        cmocka_unit_test(phi4_cuda),
        cmocka_unit_test(cuda_heisenberg_launch_geometry),
    };
    int failed = cmocka_run_group_tests_name(backend_device == LATMC_DEVICE_CUDA
                                                 ? "conformance_cuda" : "conformance_cpu",
                                             common, NULL, NULL);
    /* LATMC_TEST_NO_OOM: under compute-sanitizer, whose report of the deliberately failing
     * cudaMalloc would count as an error. */
    if (backend_device == LATMC_DEVICE_CUDA && getenv("LATMC_TEST_NO_OOM"))
        failed += cmocka_run_group_tests_name("cuda_backend", cuda_only_no_oom, NULL, NULL);
    else if (backend_device == LATMC_DEVICE_CUDA)
        failed += cmocka_run_group_tests_name("cuda_backend", cuda_only, NULL, NULL);
    return failed ? 1 : 0;
}
