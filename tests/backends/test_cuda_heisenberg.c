/*
 * Physics of the Heisenberg spin glass on the CUDA backend, in double and in float
 * arithmetic (desc.precision):
 *
 * - agreement with the CPU reference: an 8^3 Gaussian spin glass, two replicas, heat bath
 *   + 2 overrelaxation passes, the same couplings (coupling_seed) and independent Monte
 *   Carlo seeds, at beta = 0.5 and 2; <e>, <q^2> and <m^2> of CPU and CUDA within 4 sigma
 *   of each other (binning errors of both runs added in quadrature);
 * - exact results on the GPU: decoupled rings (y and z couplings 0) against the exact ring
 *   energy, as tests/physics/test_heisenberg_ring.c does on the CPU;
 * - overrelaxation conserves the energy on the GPU: 1000 passes from a heat-bath
 *   thermalised configuration at beta = 1, h = 0 and h = 0.7. Double: the CPU's
 *   arithmetic (conformance: bit for bit), so the CPU's bound, 1e-5 relative. Float: each
 *   update rounds the field and the reflected spin in float, an error of a few 2^-24 in s
 *   and so ~|H| 3 2^-24 ~ 5e-7 in the site's energy, of random sign: over P passes of N
 *   sites ~5e-7 sqrt(P N) in the total, 4e-7 relative for P = 1000, N = 512, |e| ~ 1.6;
 *   the bound 1e-4 is 250 times that and still 3 times below the drift if every rounding
 *   had the same sign (P 5e-7 / |e| = 3e-4). A wrong field or reflection changes the
 *   energy by O(1).
 *
 * Fixed seeds: deterministic, and fails when the sampled distribution is wrong. Exits 77
 * (skipped) when the CUDA backend is unavailable.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact_heisenberg.h"
#include "heisenberg_test_helpers.h"
#include "mc_sampling.h"

#define MAX_SIGMA 4.0
#define SKIP 77

enum { HCOL_E, HCOL_Q2, HCOL_M2, NCOL };

static const char *precision_name(int p)
{
    return p == LATMC_PRECISION_DOUBLE ? "double" : "float";
}

/* Hot start, `therm` sweeps, then e, q^2 (or 0 with one replica) and m^2 after each of
 * `nmeas` sweeps. */
static latmc_acc *sample(latmc_sim *sim, int replicas, uint64_t therm, uint64_t nmeas)
{
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, NCOL), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    int st = latmc_sim_sweep(sim, therm);
    if (st != LATMC_OK)
        print_error("sweeping on %s: %s\n", latmc_sim_backend_name(sim), latmc_sim_last_error(sim));
    assert_int_equal(st, LATMC_OK);
    for (uint64_t t = 0; t < nmeas; t++) {
        double row[NCOL] = { 0 };
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &row[HCOL_E]), LATMC_OK);
        if (replicas == 2)
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &row[HCOL_Q2]),
                             LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &row[HCOL_M2]), LATMC_OK);
        assert_int_equal(latmc_acc_push(acc, row, NCOL), LATMC_OK);
    }
    return acc;
}

/* |mean_a - mean_b| in units of their combined binning error, printed. */
static double difference_sigma(const latmc_acc *a, const latmc_acc *b, int col, const char *label)
{
    double ma = 0, mb = 0, ea = 0, eb = 0, ta = 0, tb = 0;
    assert_int_equal(latmc_acc_mean(a, col, &ma), LATMC_OK);
    assert_int_equal(latmc_acc_mean(b, col, &mb), LATMC_OK);
    assert_int_equal(latmc_acc_error(a, col, &ea), LATMC_OK);
    assert_int_equal(latmc_acc_error(b, col, &eb), LATMC_OK);
    assert_int_equal(latmc_acc_tau_int(a, col, &ta), LATMC_OK);
    assert_int_equal(latmc_acc_tau_int(b, col, &tb), LATMC_OK);
    const double err = sqrt(ea * ea + eb * eb);
    assert_true(err > 0);
    const double dev = (mb - ma) / err;
    printf("%-40s cpu %.6f +- %.6f (tau %.1f)  cuda %.6f +- %.6f (tau %.1f)  %+5.2f sigma\n",
           label, ma, ea, ta, mb, eb, tb, dev);
    return fabs(dev);
}

static void cpu_cuda_agreement(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double betas[] = { 0.5, 2.0 };
    const uint64_t therm = 1000, nmeas = UINT64_C(1) << 14;
    double worst = 0;
    for (int b = 0; b < 2; b++) {
        /* one disorder realisation: coupling_seed from the first seed, for all runs */
        latmc_sim_desc d = heisenberg_desc(3, 8, 8, 8, 2, LATMC_COUPLINGS_GAUSSIAN,
                                           LATMC_ALGO_HEATBATH, 0, 8100 + (uint64_t)b);
        latmc_sim *cpu = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &cpu), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(cpu, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(cpu, LATMC_PARAM_NOVER, 2), LATMC_OK);
        latmc_acc *ref = sample(cpu, 2, therm, nmeas);
        latmc_sim_destroy(&cpu);
        for (int p = 0; p < 2; p++) {
            latmc_sim_desc dc = d;
            dc.device = LATMC_DEVICE_CUDA;
            dc.precision = p == 0 ? LATMC_PRECISION_DOUBLE : LATMC_PRECISION_FLOAT;
            dc.seed = d.seed + 1000 * (uint64_t)(p + 1); /* independent chains */
            latmc_sim *gpu = NULL;
            assert_int_equal(latmc_sim_create(ctx, &dc, &gpu), LATMC_OK);
            assert_string_equal(latmc_sim_backend_name(gpu), "cuda");
            assert_int_equal(latmc_sim_set_param(gpu, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(gpu, LATMC_PARAM_NOVER, 2), LATMC_OK);
            latmc_acc *acc = sample(gpu, 2, therm, nmeas);
            static const char *const names[NCOL] = { "<e>", "<q^2>", "<m^2>" };
            for (int col = 0; col < NCOL; col++) {
                char label[96];
                snprintf(label, sizeof label, "8^3 beta=%.1f %s %s", betas[b],
                         precision_name(dc.precision), names[col]);
                const double dev = difference_sigma(ref, acc, col, label);
                worst = dev > worst ? dev : worst;
                assert_true(dev < MAX_SIGMA);
            }
            double acceptance = 0;
            assert_int_equal(latmc_sim_observable(gpu, LATMC_OBS_ACCEPTANCE, &acceptance),
                             LATMC_OK);
            assert_true(acceptance == 1.0);
            latmc_acc_destroy(&acc);
            latmc_sim_destroy(&gpu);
        }
        latmc_acc_destroy(&ref);
    }
    printf("largest CPU-CUDA difference: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

/* Rings along x (y, z couplings 0) against the exact ring energy; |deviation| in sigma. */
static double check_rings(latmc_ctx *ctx, int ndim, int64_t lx, int64_t ly, int64_t lz,
                          bool gaussian, double beta, int nover, int precision, uint64_t seed)
{
    latmc_sim_desc d = heisenberg_desc(ndim, lx, ly, lz, 1, LATMC_COUPLINGS_UNIFORM,
                                       LATMC_ALGO_HEATBATH, 0, seed);
    d.device = LATMC_DEVICE_CUDA;
    d.precision = precision;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, nover), LATMC_OK);
    const struct test_lattice g = test_lattice_of(&d);
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(sim, &nc), LATMC_OK);
    float *J = calloc(nc, sizeof *J);
    assert_non_null(J);
    uint64_t rng = seed * 7919u + 1;
    for (int64_t i = 0; i < g.n; i++)
        J[ndim * i + 0] = gaussian ? (float)test_gaussian(&rng) : 1.0f;
    assert_int_equal(latmc_sim_set_couplings(sim, J, nc), LATMC_OK);
    double exact_total = 0.0;
    for (int64_t row = 0; row < g.L[1] * g.L[2]; row++) {
        double ring[EXACT_HEISENBERG_MAX_RING];
        for (int64_t x = 0; x < lx; x++)
            ring[x] = J[ndim * (x + lx * row) + 0];
        double e_ring = 0.0;
        assert_int_equal(exact_heisenberg_ring_energy((int)lx, ring, beta, &e_ring), 0);
        exact_total += e_ring;
    }
    latmc_acc *acc = sample(sim, 1, 500, UINT64_C(1) << 15);
    char label[128];
    snprintf(label, sizeof label, "cuda %s %dD %lldx%lldx%lld %s beta=%.1f nover=%d <e>",
             precision_name(precision), ndim, (long long)lx, (long long)ly,
             (long long)(ndim == 3 ? lz : 1), gaussian ? "gauss" : "J=1", beta, nover);
    const double dev = mc_deviation(acc, HCOL_E, exact_total / (double)g.n, label);
    latmc_acc_destroy(&acc);
    free(J);
    latmc_sim_destroy(&sim);
    return fabs(dev);
}

static void exact_rings(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int dbl = LATMC_PRECISION_DOUBLE, flt = LATMC_PRECISION_FLOAT;
    double dev[] = {
        check_rings(ctx, 2, 8, 4, 0, true, 0.6, 2, flt, 8201),
        check_rings(ctx, 2, 8, 4, 0, true, 2.5, 2, dbl, 8202),
        check_rings(ctx, 3, 4, 2, 2, true, 2.5, 1, flt, 8203),
        check_rings(ctx, 3, 4, 2, 2, false, 0.6, 2, dbl, 8204),
        check_rings(ctx, 2, 8, 4, 0, false, 1.5, 0, flt, 8205),
        check_rings(ctx, 2, 2, 2, 0, true, 1.5, 1, dbl, 8206),
    };
    for (size_t k = 0; k < sizeof dev / sizeof dev[0]; k++)
        assert_true(dev[k] < MAX_SIGMA);
    latmc_ctx_destroy(&ctx);
}

static void energy_conserved(int precision, double h, double max_drift, uint64_t seed)
{
    enum { L = 8, NSWEEPS = 1000 };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = heisenberg_desc(3, L, L, L, 1, LATMC_COUPLINGS_GAUSSIAN,
                                       LATMC_ALGO_HEATBATH, 0, seed);
    d.device = LATMC_DEVICE_CUDA;
    d.precision = precision;
    latmc_sim *hb = NULL, *ov = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &hb), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(hb, LATMC_PARAM_BETA, 1.0), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(hb, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(hb, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(hb, 200), LATMC_OK);
    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(hb, &bytes), LATMC_OK);
    float *start = malloc(bytes), *end = malloc(bytes);
    assert_non_null(start);
    assert_non_null(end);
    assert_int_equal(latmc_sim_get_spins(hb, start, bytes), LATMC_OK);
    d.algorithm = LATMC_ALGO_OVERRELAX; /* same coupling_seed: the same disorder */
    assert_int_equal(latmc_sim_create(ctx, &d, &ov), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(ov, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(ov, start, bytes), LATMC_OK);
    double e0 = 0.0, worst = 0.0;
    assert_int_equal(latmc_sim_observable(ov, LATMC_OBS_ENERGY, &e0), LATMC_OK);
    assert_true(e0 < -0.5); /* thermalised, far below a random configuration's 0 */
    for (int t = 0; t < NSWEEPS; t += 100) {
        double e = 0.0;
        assert_int_equal(latmc_sim_sweep(ov, 100), LATMC_OK);
        assert_int_equal(latmc_sim_observable(ov, LATMC_OBS_ENERGY, &e), LATMC_OK);
        const double drift = fabs(e - e0) / fabs(e0);
        worst = drift > worst ? drift : worst;
    }
    double acc = 0.0;
    assert_int_equal(latmc_sim_observable(ov, LATMC_OBS_ACCEPTANCE, &acc), LATMC_ESTATE);
    assert_int_equal(latmc_sim_get_spins(ov, end, bytes), LATMC_OK);
    double same = 0.0;
    for (int64_t i = 0; i < L * L * L; i++)
        same += (double)start[3 * i] * end[3 * i] + (double)start[3 * i + 1] * end[3 * i + 1] +
                (double)start[3 * i + 2] * end[3 * i + 2];
    same /= L * L * L;
    printf("cuda %s, h = %.1f: e0 = %.9f, largest relative energy drift over %d passes %.2e "
           "(limit %.0e); mean s(0).s(end) = %.3f\n", precision_name(precision), h, e0,
           NSWEEPS, worst, max_drift, same);
    assert_true(worst < max_drift);
    assert_true(same < 0.5); /* the configuration moved */
    free(start);
    free(end);
    latmc_sim_destroy(&hb);
    latmc_sim_destroy(&ov);
    latmc_ctx_destroy(&ctx);
}

static void overrelaxation_conserves_energy(void **state)
{
    (void)state;
    energy_conserved(LATMC_PRECISION_DOUBLE, 0.0, 1e-5, 8301);
    energy_conserved(LATMC_PRECISION_DOUBLE, 0.7, 1e-5, 8302);
    energy_conserved(LATMC_PRECISION_FLOAT, 0.0, 1e-4, 8303);
    energy_conserved(LATMC_PRECISION_FLOAT, 0.7, 1e-4, 8304);
}

static int cuda_available(void)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 0;
    latmc_sim_desc d = heisenberg_desc(3, 4, 4, 4, 1, LATMC_COUPLINGS_GAUSSIAN,
                                       LATMC_ALGO_HEATBATH, 0, 1);
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (st == LATMC_EBACKEND || st == LATMC_ENODEV)
        printf("CUDA backend unavailable: %s\n", latmc_last_error());
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return st != LATMC_EBACKEND && st != LATMC_ENODEV;
}

int main(void)
{
    if (!cuda_available())
        return SKIP;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overrelaxation_conserves_energy),
        cmocka_unit_test(exact_rings),
        cmocka_unit_test(cpu_cuda_agreement),
    };
    return cmocka_run_group_tests_name("cuda_heisenberg", tests, NULL, NULL);
}
