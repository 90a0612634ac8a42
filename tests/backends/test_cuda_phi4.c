/*
 * phi^4 on the CUDA backend (doc/models/phi4.md, "The CUDA chain"), through the public API:
 *
 * - chain: the CUDA chain re-implemented here from its documentation (sub-grids of chunks
 *   in order, in each chunk nloc passes over the colours, the CPU's draw names and hit
 *   arithmetic; or the site order where chunks do not fit) in double precision; the
 *   library's field must match it bit for bit after every sweep, and the acceptance count
 *   exactly, for default and explicit chunk shapes (2D with 8 and 5 colours, 3D, two
 *   segments per row), and the site order. Both sides use the chain's shared logarithm
 *   (lib/latmc_math.h: the CUDA kernels reach it through lib/phi4.h), so nothing differs.
 * - launch: the field and the counts do not depend on the threads per block
 *   (LATMC_CUDA_PHI4_THREADS), and a repeated run gives identical observables.
 * - gaussian: g = 0 against the exact <phi^2>, <m^2> = 1/(V mu2) and <H>/V = 1/2, on chunked
 *   lattices and in the site order, float, 2D and 3D, Lambda finite and infinite.
 * - cpu_agreement: g > 0, near the transition (2D 64x32, mu2 = -0.55, g = 2.4) and away from
 *   it (3D 64x8x8, mu2 = 0.2, g = 2.4, Lambda = 4): <e>, <phi^2>, <m^2>, <|m|> of the CPU
 *   and of CUDA with two chunk shapes agree pairwise within 4 sigma (binning errors of
 *   independent chains).
 * - long_rows_measure: the measurement and the Fourier modes of long rows (a thread a row;
 *   measured again with the modes in the tile walk, LATMC_CUDA_PHI4_MODES=walk, and beside
 *   it, =split)
 *   against the CPU's on the same field, bit for bit, float and double, 2D and 3D, one box
 *   and two.
 * - bad_environment: malformed or unfit LATMC_CUDA_PHI4_CHUNK / _THREADS are LATMC_EINVAL
 *   naming the variable, and nothing is created.
 * Exits 77 (skipped) when the CUDA backend is unavailable.
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

#include "exact_phi4.h"
#include "latmc_math.h"
#include "mc_sampling.h"
#include "phi4_spec.h"
#include "sim_helpers.h"

#define MAX_SIGMA 4.0
#define MODES_ENV "LATMC_CUDA_PHI4_MODES"
#define CHUNK_ENV "LATMC_CUDA_PHI4_CHUNK"
#define THREADS_ENV "LATMC_CUDA_PHI4_THREADS"

/* ---- the plan the module reports in its debug log ---- */

static char plan_line[512];

static void capture_plan(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "CUDA phi^4:"))
        snprintf(plan_line, sizeof plan_line, "%s", msg);
}

/* The chunk extents of the last sim created (b[2] = 1 in 2D), or 0 for the site order. */
static int reported_chunks(int b[3])
{
    if (strstr(plan_line, "site-order"))
        return 0;
    const char *p = strstr(plan_line, "chunks ");
    assert_non_null(p);
    assert_int_equal(sscanf(p, "chunks %dx%dx%d", &b[0], &b[1], &b[2]), 3);
    return 1;
}

/* ---- sims ---- */

static int64_t spec_nsites(const struct spec *sp)
{
    return sp->L[0] * sp->L[1] * (sp->ndim == 3 ? sp->L[2] : 1);
}

static latmc_sim *make_sim(latmc_ctx *ctx, const struct spec *sp, int device, uint64_t seed)
{
    latmc_sim_desc d;
    spec_desc(sp, &d);
    d.device = device;
    d.n_threads = 1;
    d.seed = seed;
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (st != LATMC_OK)
        print_error("creating the sim: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    if (device == LATMC_DEVICE_CUDA)
        assert_string_equal(latmc_sim_backend_name(sim), "cuda");
    assert_int_equal(spec_set_params(sim, sp), LATMC_OK);
    return sim;
}

/* A CUDA sim with LATMC_CUDA_PHI4_CHUNK / _THREADS set to chunk / threads (NULL: unset). */
static latmc_sim *make_cuda_sim(latmc_ctx *ctx, const struct spec *sp, uint64_t seed,
                                const char *chunk, const char *threads)
{
    if (chunk)
        setenv(CHUNK_ENV, chunk, 1);
    else
        unsetenv(CHUNK_ENV);
    if (threads)
        setenv(THREADS_ENV, threads, 1);
    else
        unsetenv(THREADS_ENV);
    plan_line[0] = '\0';
    latmc_sim *sim = make_sim(ctx, sp, LATMC_DEVICE_CUDA, seed);
    unsetenv(CHUNK_ENV);
    unsetenv(THREADS_ENV);
    return sim;
}

/* ---- the CUDA chain of doc/models/phi4.md, written out: phi4_spec.h's spec_sweep ---- */

struct chain_case {
    struct spec sp;
    const char *chunk;       /* LATMC_CUDA_PHI4_CHUNK, NULL: the default */
    int want_chunks[3];      /* the chunks expected (0: the site order) */
};

static void run_chain_case(latmc_ctx *ctx, const struct chain_case *cc, uint64_t seed)
{
    const struct spec *sp = &cc->sp;
    latmc_sim *sim = make_cuda_sim(ctx, sp, seed, cc->chunk, NULL);
    int b[3] = { 0, 0, 0 };
    const int chunked = reported_chunks(b);
    printf("  %dD %lldx%lldx%lld nhit %d nloc %d: %s\n", sp->ndim, (long long)sp->L[0],
           (long long)sp->L[1], (long long)(sp->ndim == 3 ? sp->L[2] : 1), sp->nhit, sp->nloc,
           plan_line);
    assert_int_equal(chunked, cc->want_chunks[0] != 0);
    if (chunked)
        for (int mu = 0; mu < sp->ndim; mu++)
            assert_int_equal(b[mu], cc->want_chunks[mu]);
    const size_t n = (size_t)spec_nsites(sp), bytes = n * sizeof(double);
    double *mine = malloc(bytes), *lib = malloc(bytes), *start = malloc(bytes);
    assert_non_null(mine);
    assert_non_null(lib);
    assert_non_null(start);
    uint64_t rng = seed ^ 0x77;
    for (size_t i = 0; i < n; i++)
        mine[i] = ldexp((double)(test_rng_next(&rng) >> 11), -53) * 2.4 - 1.2;
    memcpy(start, mine, bytes);
    assert_int_equal(latmc_sim_set_spins(sim, mine, bytes), LATMC_OK);
    uint64_t accepted = 0;
    const int nsweeps = 3;
    for (int t = 0; t < nsweeps; t++) {
        accepted += spec_sweep(sp, chunked ? b : NULL, mine, seed, (uint64_t)t);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
        if (memcmp(mine, lib, bytes) != 0) {
            size_t bad = 0, first = n;
            for (size_t i = 0; i < n; i++)
                if (memcmp(&mine[i], &lib[i], sizeof(double)) != 0) {
                    bad++;
                    first = first < n ? first : i;
                }
            print_error("sweep %d: %zu of %zu sites differ, first %zu: %.17g vs %.17g\n", t, bad, n,
                        first, mine[first], lib[first]);
        }
        assert_memory_equal(mine, lib, bytes);
    }
    uint64_t acc = 0, att = 0;
    assert_int_equal(latmc_sim_acceptance_counts(sim, &acc, &att), LATMC_OK);
    assert_true(att == (uint64_t)n * (uint64_t)sp->nhit * (uint64_t)sp->nloc * nsweeps);
    assert_true(acc == accepted);
    assert_true(accepted > 0 && accepted < att);
    assert_true(memcmp(start, mine, bytes) != 0);
    free(mine);
    free(lib);
    free(start);
    latmc_sim_destroy(&sim);
}

#define D LATMC_PRECISION_DOUBLE
#define F LATMC_PRECISION_FLOAT

static void chain(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_ctx_set_log(ctx, capture_plan, NULL, LATMC_LOG_DEBUG);
    static const struct chain_case cases[] = {
        /* the default chunks: x one segment, y and z the largest divisor of L/2 up to a cap */
        { { 2, { 64, 16, 1 }, D, -0.3, 1.0, 1.5, 0.9, 3, 2 }, NULL, { 32, 8, 1 } },
        { { 2, { 40, 10, 1 }, D, 0.4, 0.0, INFINITY, 1.1, 2, 1 }, NULL, { 20, 5, 1 } },
        { { 3, { 64, 8, 16 }, D, 0.2, 2.0, 3.0, 0.8, 2, 2 }, NULL, { 32, 4, 8 } },
        /* explicit shapes: thin chunks, two segments per row, 5 colours */
        { { 3, { 64, 16, 8 }, D, -0.5, 3.0, INFINITY, 0.7, 1, 3 }, "32x4x2", { 32, 4, 2 } },
        { { 2, { 128, 24, 1 }, D, 0.1, 1.0, 0.8, 0.6, 2, 1 }, "64x6", { 64, 6, 1 } },
        { { 2, { 80, 20, 1 }, D, 0.3, 0.5, 2.0, 1.0, 2, 2 }, "40x2", { 40, 2, 1 } },
        /* the site order: extents without chunks (L_x not a multiple of 2 x 32 or 2 x 20,
         * or an odd L_y with 5 colours: no even number of chunks), or asked */
        { { 2, { 8, 8, 1 }, D, 0.5, 1.0, 2.0, 1.0, 2, 2 }, NULL, { 0, 0, 0 } },
        { { 2, { 40, 15, 1 }, D, 0.5, 1.0, 2.0, 1.0, 2, 1 }, NULL, { 0, 0, 0 } },
        { { 2, { 15, 10, 1 }, D, 0.5, 0.5, INFINITY, 1.0, 3, 1 }, NULL, { 0, 0, 0 } },
        { { 3, { 8, 8, 16 }, D, 0.0, 2.0, 4.0, 0.9, 1, 2 }, NULL, { 0, 0, 0 } },
        { { 2, { 64, 16, 1 }, D, -0.3, 1.0, 1.5, 0.9, 2, 1 }, "none", { 0, 0, 0 } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_chain_case(ctx, &cases[i], 4100 + i);
    latmc_ctx_destroy(&ctx);
}

/* ---- launch independence and repeatability ---- */

static void field_and_counts(latmc_sim *sim, void *buf, size_t bytes, uint64_t counts[2])
{
    assert_int_equal(latmc_sim_get_spins(sim, buf, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(sim, &counts[0], &counts[1]), LATMC_OK);
}

static void launch(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    static const struct { struct spec sp; const char *chunk; } cases[] = {
        { { 3, { 64, 8, 16 }, F, -0.2, 2.0, 3.0, 0.8, 3, 2 }, NULL },
        { { 2, { 128, 64, 1 }, F, 0.1, 1.0, INFINITY, 1.0, 2, 3 }, "32x16" },
        { { 2, { 40, 20, 1 }, D, 0.1, 1.0, 2.0, 1.0, 2, 1 }, NULL },
        { { 2, { 16, 24, 1 }, F, 0.1, 1.0, 2.0, 1.0, 2, 1 }, NULL }, /* site order */
    };
    static const char *threads[] = { NULL, "32", "64", "256" };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct spec *sp = &cases[c].sp;
        const size_t bytes = (size_t)spec_nsites(sp) * (sp->precision == F ? 4 : 8);
        unsigned char *ref = malloc(bytes), *got = malloc(bytes);
        assert_non_null(ref);
        assert_non_null(got);
        uint64_t ref_counts[2] = { 0, 0 };
        double ref_obs[5];
        static const int keys[5] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2,
                                     LATMC_OBS_PHI2, LATMC_OBS_ACCEPTANCE };
        for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
            /* each configuration twice: the repeat must be identical too */
            for (int rep = 0; rep < (t == 0 ? 2 : 1); rep++) {
                latmc_sim *sim = make_cuda_sim(ctx, sp, 99 + c, cases[c].chunk, threads[t]);
                assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
                assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
                assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
                uint64_t counts[2];
                double obs[5];
                field_and_counts(sim, got, bytes, counts);
                for (int k = 0; k < 5; k++)
                    assert_int_equal(latmc_sim_observable(sim, keys[k], &obs[k]), LATMC_OK);
                if (t == 0 && rep == 0) {
                    memcpy(ref, got, bytes);
                    memcpy(ref_counts, counts, sizeof counts);
                    memcpy(ref_obs, obs, sizeof obs);
                    assert_true(counts[0] > 0 && counts[0] < counts[1]);
                } else {
                    printf("  case %zu, threads %s%s: identical\n", c, threads[t] ? threads[t]
                           : "default", rep ? " (repeat)" : "");
                    assert_memory_equal(ref, got, bytes);
                    assert_true(counts[0] == ref_counts[0] && counts[1] == ref_counts[1]);
                    assert_memory_equal(ref_obs, obs, sizeof obs);
                }
                latmc_sim_destroy(&sim);
            }
        }
        free(ref);
        free(got);
    }
    latmc_ctx_destroy(&ctx);
}

/* ---- statistics ---- */

enum { C_E, C_PHI2, C_M2, C_ABSM, NC };

/* Tune epsilon, thermalise, and record NC observables after each of nmeas sweeps. */
static latmc_acc *sample(latmc_sim *sim, uint64_t nmeas)
{
    static const int keys[NC] = { LATMC_OBS_ENERGY, LATMC_OBS_PHI2, LATMC_OBS_M2,
                                  LATMC_OBS_ABS_MAGNETIZATION };
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_tune_epsilon(sim, 0.5, 400), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 600), LATMC_OK);
    assert_int_equal(latmc_sim_reset_acceptance(sim), LATMC_OK);
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, NC), LATMC_OK);
    for (uint64_t t = 0; t < nmeas; t++) {
        double row[NC];
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        for (int c = 0; c < NC; c++)
            assert_int_equal(latmc_sim_observable(sim, keys[c], &row[c]), LATMC_OK);
        assert_int_equal(latmc_acc_push(acc, row, NC), LATMC_OK);
    }
    double a = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &a), LATMC_OK);
    assert_true(a > 0.4 && a < 0.6);
    return acc;
}

static void gaussian(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    static const struct { struct spec sp; uint64_t nmeas; } runs[] = {
        { { 2, { 64, 16, 1 }, F, 0.5, 0.0, INFINITY, 0.5, 1, 1 }, 1 << 14 },
        { { 2, { 64, 16, 1 }, F, 0.5, 0.0, 2.0, 0.5, 2, 2 }, 1 << 14 },
        { { 2, { 40, 10, 1 }, F, 0.5, 0.0, 1.5, 0.5, 1, 1 }, 1 << 14 },
        { { 3, { 64, 8, 8 }, F, 0.5, 0.0, INFINITY, 0.5, 2, 1 }, 1 << 13 },
        { { 3, { 64, 8, 8 }, D, 0.5, 0.0, 3.0, 0.5, 1, 2 }, 1 << 13 },
        { { 2, { 10, 10, 1 }, F, 0.5, 0.0, 2.0, 0.5, 1, 1 }, 1 << 14 }, /* site order */
    };
    double worst = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        const struct spec *sp = &runs[r].sp;
        latmc_sim *sim = make_cuda_sim(ctx, sp, 7700 + r, NULL, NULL);
        latmc_acc *acc = sample(sim, runs[r].nmeas);
        const struct exact_phi4_lattice lat = { sp->ndim, { sp->L[0], sp->L[1],
                                                            sp->ndim == 3 ? sp->L[2] : 1 } };
        const double want[3] = { 0.5, exact_phi4_gaussian_phi2(&lat, sp->mu2, sp->lambda),
                                 exact_phi4_gaussian_m2(&lat, sp->mu2) };
        static const char *names[3] = { "<H>/V", "<phi^2>", "<m^2>" };
        for (int c = 0; c < 3; c++) {
            char label[128];
            snprintf(label, sizeof label, "  cuda %dD %lldx%lld %s L=%g %s", sp->ndim,
                     (long long)sp->L[0], (long long)sp->L[1], sp->precision == F ? "f" : "d",
                     sp->lambda, names[c]);
            const double dev = fabs(mc_deviation(acc, c, want[c], label));
            worst = dev > worst ? dev : worst;
            assert_true(dev < MAX_SIGMA);
        }
        latmc_acc_destroy(&acc);
        latmc_sim_destroy(&sim);
    }
    printf("largest deviation: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

/* |a - b| in units of the combined binning error, printed. */
static double compare_means(const latmc_acc *a, const latmc_acc *b, int col, const char *label)
{
    double ma = 0, mb = 0, ea = 0, eb = 0;
    assert_int_equal(latmc_acc_mean(a, col, &ma), LATMC_OK);
    assert_int_equal(latmc_acc_mean(b, col, &mb), LATMC_OK);
    assert_int_equal(latmc_acc_error(a, col, &ea), LATMC_OK);
    assert_int_equal(latmc_acc_error(b, col, &eb), LATMC_OK);
    const double z = (ma - mb) / sqrt(ea * ea + eb * eb);
    printf("  %-40s %.6f +- %.6f vs %.6f +- %.6f  %+5.2f sigma\n", label, ma, ea, mb, eb, z);
    return fabs(z);
}

static void cpu_agreement(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    static const struct { struct spec sp; const char *chunk2; uint64_t nmeas; const char *what; }
    points[] = {
        { { 2, { 64, 32, 1 }, F, -0.55, 2.4, INFINITY, 0.5, 4, 1 }, "32x4", 1 << 15,
          "near the transition" },
        { { 3, { 64, 8, 8 }, F, 0.2, 2.4, 4.0, 0.5, 2, 2 }, "32x2x2", 1 << 13,
          "away from it" },
    };
    static const char *names[NC] = { "<e>", "<phi^2>", "<m^2>", "<|m|>" };
    double worst = 0;
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
        const struct spec *sp = &points[p].sp;
        latmc_sim *cpu = make_sim(ctx, sp, LATMC_DEVICE_CPU, 8100 + p);
        latmc_sim *gpu = make_cuda_sim(ctx, sp, 8200 + p, NULL, NULL);
        latmc_sim *gpu2 = make_cuda_sim(ctx, sp, 8300 + p, points[p].chunk2, NULL);
        latmc_acc *a = sample(cpu, points[p].nmeas), *b = sample(gpu, points[p].nmeas),
                  *c = sample(gpu2, points[p].nmeas);
        printf("%dD mu2=%g g=%g Lambda=%g (%s): CPU vs CUDA (default chunks), CPU vs CUDA "
               "(chunks %s), CUDA vs CUDA\n", sp->ndim, sp->mu2, sp->g, sp->lambda,
               points[p].what, points[p].chunk2);
        for (int col = 0; col < NC; col++) {
            const double z[3] = { compare_means(a, b, col, names[col]),
                                  compare_means(a, c, col, names[col]),
                                  compare_means(b, c, col, names[col]) };
            for (int i = 0; i < 3; i++) {
                worst = z[i] > worst ? z[i] : worst;
                assert_true(z[i] < MAX_SIGMA);
            }
        }
        latmc_acc_destroy(&a);
        latmc_acc_destroy(&b);
        latmc_acc_destroy(&c);
        latmc_sim_destroy(&cpu);
        latmc_sim_destroy(&gpu);
        latmc_sim_destroy(&gpu2);
    }
    printf("largest difference: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

/* ---- bad environment ---- */

/*
 * The measurement of long rows, a thread a row (backends/cuda/phi4/phi4_device.cuh,
 * phi4_row_walk: L_x >= 256 and a multiple of 4, at least 4096 rows), against the CPU
 * backend's on the same field bit for bit: every observable that reads the sums, float and
 * double, 2D and 3D, one box and two (the box kernel and its halo rows), 1/Lambda on.
 */
static void long_rows_measure(void **state)
{
    (void)state;
    static const struct {
        int ndim, precision, parts;
        int64_t L[3];
    } cases[] = {
        { 2, F, 1, { 256, 4096, 1 } }, { 2, D, 1, { 260, 4100, 1 } },
        { 3, F, 1, { 256, 16, 256 } }, { 2, F, 2, { 512, 8192, 1 } },
        { 3, D, 2, { 256, 32, 256 } }, { 2, F, 1, { 4096, 4096, 1 } },
        { 3, D, 2, { 256, 256, 256 } }, { 2, D, 1, { 4160, 4160, 1 } },
        { 2, F, 2, { 8192, 8192, 1 } }, { 2, F, 1, { 4100, 4100, 1 } },
    };
    /* M2_KMIN on lattices of equal extents (else LATMC_EUNSUPPORTED) */
    static const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2,
                                LATMC_OBS_M4, LATMC_OBS_PHI2, LATMC_OBS_M2_K0,
                                LATMC_OBS_M2_KMIN };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        latmc_sim *sim[2] = { NULL, NULL };
        size_t bytes = 0;
        void *field = NULL;
        for (int dev = 0; dev < 2; dev++) {
            latmc_sim_desc d;
            latmc_sim_desc_init(&d);
            d.model = LATMC_MODEL_PHI4;
            d.ndim = cases[i].ndim;
            for (int mu = 0; mu < d.ndim; mu++)
                d.extent[mu] = cases[i].L[mu];
            d.precision = cases[i].precision;
            d.device = dev ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
            d.n_threads = dev ? 0 : 1;
            d.n_parts = dev ? cases[i].parts : 0;
            d.seed = 77 + i;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim[dev]), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim[dev], LATMC_PARAM_MU2, -0.4), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim[dev], LATMC_PARAM_G, 1.3), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim[dev], LATMC_PARAM_LAMBDA, 2.5), LATMC_OK);
            /* one field for both: the CPU's hot start, taken as it is */
            test_share_config(sim[dev], field, bytes);
        }
        const bool square = cases[i].L[1] == cases[i].L[0] &&
                            (cases[i].ndim == 2 || cases[i].L[2] == cases[i].L[0]);
        /* three times on a square lattice: once the modes were asked for, the field set
         * again is measured with its modes in one pass where the device can (2D: the tile
         * walk, its boxes' rows too; 4100^2 floats: rows it does not take; named, though
         * the default: LATMC_CUDA_PHI4_MODES=walk), then with the modes' kernel beside the
         * measurement (split) */
        for (int round = 0; round < (square ? 3 : 1); round++) {
            if (round > 0) {
                setenv(MODES_ENV, round == 1 ? "walk" : "split", 1);
                for (int dev = 0; dev < 2; dev++)
                    assert_int_equal(latmc_sim_set_spins(sim[dev], field, bytes), LATMC_OK);
            }
            for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
                double v[2];
                if (keys[k] == LATMC_OBS_M2_KMIN && !square)
                    continue;
                for (int dev = 0; dev < 2; dev++)
                    assert_int_equal(latmc_sim_observable(sim[dev], keys[k], &v[dev]),
                                     LATMC_OK);
                if (memcmp(&v[0], &v[1], sizeof v[0]) != 0)
                    print_error("case %zu round %d key %d: CPU %.17g, CUDA %.17g\n", i, round,
                                keys[k], v[0], v[1]);
                assert_memory_equal(&v[0], &v[1], sizeof v[0]);
            }
        }
        unsetenv(MODES_ENV);
        free(field);
        latmc_sim_destroy(&sim[0]);
        latmc_sim_destroy(&sim[1]);
    }
    latmc_ctx_destroy(&ctx);
}

static void bad_environment(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    static const struct { struct spec sp; const char *chunk, *threads, *says; } cases[] = {
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "abc", NULL, "expected" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32", NULL, "expected" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x8x2", NULL, "expected" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x8y", NULL, "expected" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "33x8", NULL, "multiple of 32" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "16x8", NULL, "multiple of 32" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x16", NULL, "even number" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x3", NULL, "even number" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x1", NULL, "at least 2" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "64x8", NULL, "even number" },
        { { 2, { 40, 10, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x5", NULL, "multiple of 20" },
        { { 3, { 64, 8, 8 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x4", NULL, "expected" },
        { { 3, { 64, 8, 8 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x4x0", NULL, "at least 2" },
        { { 2, { 64, 16384, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, "32x8192", NULL,
          "shared memory" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, NULL, "0", "multiple of 32" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, NULL, "48", "multiple of 32" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, NULL, "512", "multiple of 32" },
        { { 2, { 64, 16, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, NULL, "64k", "multiple of 32" },
        { { 2, { 8, 8, 1 }, F, 0.5, 0, INFINITY, 0.5, 1, 1 }, NULL, "-32", "multiple of 32" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct spec *sp = &cases[i].sp;
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        d.model = LATMC_MODEL_PHI4;
        d.ndim = sp->ndim;
        for (int mu = 0; mu < sp->ndim; mu++)
            d.extent[mu] = sp->L[mu];
        d.precision = sp->precision;
        d.device = LATMC_DEVICE_CUDA;
        if (cases[i].chunk)
            setenv(CHUNK_ENV, cases[i].chunk, 1);
        if (cases[i].threads)
            setenv(THREADS_ENV, cases[i].threads, 1);
        latmc_sim *sim = NULL;
        const int st = latmc_sim_create(ctx, &d, &sim);
        unsetenv(CHUNK_ENV);
        unsetenv(THREADS_ENV);
        const char *msg = latmc_last_error();
        printf("  %s=%s: %s\n", cases[i].chunk ? CHUNK_ENV : THREADS_ENV,
               cases[i].chunk ? cases[i].chunk : cases[i].threads, msg);
        assert_int_equal(st, LATMC_EINVAL);
        assert_null(sim);
        assert_non_null(strstr(msg, cases[i].chunk ? CHUNK_ENV : THREADS_ENV));
        assert_non_null(strstr(msg, cases[i].says));
    }
    /* and a good value after the bad ones */
    setenv(CHUNK_ENV, "32x4", 1);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = 2;
    d.extent[0] = 64;
    d.extent[1] = 16;
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    unsetenv(CHUNK_ENV);
    /* g > 0: the default g = mu2 = 0 is not normalisable and is refused at the sweep */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 8;
    d.device = LATMC_DEVICE_CUDA;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    int st = latmc_sim_create(ctx, &d, &sim);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    if (st == LATMC_EBACKEND || st == LATMC_ENODEV) {
        const char *why = latmc_last_error();
        const char *prefix = "CUDA backend unavailable: ";
        printf("%s%s\n", strncmp(why, prefix, strlen(prefix)) == 0 ? "" : prefix, why);
        return 77;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain),
        cmocka_unit_test(launch),
        cmocka_unit_test(bad_environment),
        cmocka_unit_test(gaussian),
        cmocka_unit_test(cpu_agreement),
        cmocka_unit_test(long_rows_measure),
    };
    return cmocka_run_group_tests_name("cuda_phi4", tests, NULL, NULL);
}
