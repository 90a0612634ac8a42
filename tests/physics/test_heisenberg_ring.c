/*
 * Heisenberg heat bath + overrelaxation against exact energies.
 *
 * Rings: with every y and z coupling set to 0 through latmc_sim_set_couplings, a lattice
 * L_x x L_y (x L_z) falls apart into L_y L_z independent periodic rings along x. Each
 * ring's exact <H> comes from Z = (4 pi)^n sum_l (2l+1) prod_k i_l(beta J_k)
 * (tests/support/exact_heisenberg.c); the lattice's energy per site is the sum of the
 * rings' <H> divided by N, which is what LATMC_OBS_ENERGY estimates (H of the whole
 * lattice over N, averaged over sweeps). Rings of 4 (3D 4x2x2: 4 rings) and of 8 (2D
 * 8x4: 4 rings), uniform J = 1 and Gaussian J along x (the test's own draws, a different
 * J on every bond), two temperatures each, h = 0, nover = 2; then heat bath alone
 * (nover = 0), nover = 5, and rings of 2 (2D 2x2, each pair coupled twice).
 *
 * Free spins in a field: all couplings 0, h != 0, so every spin is independent with
 * <s_z> = L(beta h), L(a) = coth(a) - 1/a: checks the field's direction and size.
 *
 * Each mean within 4 binning sigma. Fixed seeds: deterministic, and fails if the
 * sampled distribution is wrong. LATMC_TEST_POINT_STRIDE (tests/support/sim_helpers.h)
 * runs about one ring lattice in that many, each as in the full run.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "heisenberg_rings.h"
#include "mc_sampling.h"

#define MAX_SIGMA 4.0
#define THERM 500
#define NMEAS (UINT64_C(1) << 16)
#define RING_SEED 4100 /* the first ring lattice's seed; the next ones count up */

/* Hot start, THERM sweeps, then the energy per site after each of nmeas sweeps. */
static latmc_acc *sample_energy(latmc_sim *sim, uint64_t nmeas)
{
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, 1), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, THERM), LATMC_OK);
    for (uint64_t t = 0; t < nmeas; t++) {
        double e = 0.0;
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
        assert_int_equal(latmc_acc_push(acc, &e, 1), LATMC_OK);
    }
    return acc;
}

/*
 * One lattice of rings along x: x couplings from `gaussian` (else 1), y and z couplings 0;
 * returns |deviation| in sigma.
 */
static double check_rings(latmc_ctx *ctx, int ndim, int64_t lx, int64_t ly, int64_t lz,
                          bool gaussian, double beta, int nover, uint64_t seed)
{
    latmc_sim_desc d = heisenberg_desc(ndim, lx, ly, lz, 1, LATMC_COUPLINGS_UNIFORM,
                                       LATMC_ALGO_HEATBATH, 1, seed);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, nover), LATMC_OK);
    const double exact = heisenberg_set_rings(sim, &d, gaussian, beta, seed);

    latmc_acc *acc = sample_energy(sim, NMEAS);
    char label[128];
    snprintf(label, sizeof label, "%dD %lldx%lldx%lld %s beta=%.2f nover=%d <e>", ndim,
             (long long)lx, (long long)ly, (long long)(ndim == 3 ? lz : 1),
             gaussian ? "gauss" : "J=1  ", beta, nover);
    const double dev = mc_deviation(acc, 0, exact, label);
    double acceptance = 0.0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acceptance), LATMC_OK);
    assert_true(acceptance == 1.0); /* heat bath: every update is accepted */
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
    return fabs(dev);
}

/* One ring lattice as a parameter point: run when LATMC_TEST_POINT_STRIDE selects it (the
 * point number is its seed's offset from the first, so a point keeps its seed and chain). */
static void ring_point(latmc_ctx *ctx, int ndim, int64_t lx, int64_t ly, int64_t lz,
                       bool gaussian, double beta, int nover, uint64_t seed, double *worst)
{
    if (!test_point_selected((unsigned)(seed - RING_SEED)))
        return;
    const double dev = check_rings(ctx, ndim, lx, ly, lz, gaussian, beta, nover, seed);
    *worst = dev > *worst ? dev : *worst;
    assert_true(dev < MAX_SIGMA);
}

static void rings(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double betas[] = { 0.6, 2.5 };
    double worst = 0.0;
    uint64_t seed = RING_SEED;
    for (int b = 0; b < 2; b++)
        for (int gauss = 0; gauss < 2; gauss++) {
            ring_point(ctx, 3, 4, 2, 2, gauss, betas[b], 2, seed++, &worst);
            ring_point(ctx, 2, 8, 4, 0, gauss, betas[b], 2, seed++, &worst);
        }
    /* Heat bath alone, and many overrelaxation passes per heat-bath pass. */
    ring_point(ctx, 2, 8, 4, 0, true, 1.5, 0, seed++, &worst);
    ring_point(ctx, 3, 4, 2, 2, true, 1.5, 5, seed++, &worst);
    /* Rings of 2 (2D 2x2): each pair is coupled twice, by two different couplings, as
     * the bond convention says for an extent of 2; the ring formula holds for n = 2. */
    ring_point(ctx, 2, 2, 2, 0, true, 1.5, 1, seed++, &worst);
    printf("largest ring deviation: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

/* Langevin function coth(a) - 1/a. */
static double langevin(double a)
{
    return fabs(a) < 1e-3 ? a / 3.0 : 1.0 / tanh(a) - 1.0 / a;
}

static void free_spins_in_a_field(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double cases[][2] = { { 0.5, 0.8 }, { 2.0, -1.5 } }; /* beta, h */
    for (int c = 0; c < 2; c++) {
        const double beta = cases[c][0], h = cases[c][1];
        latmc_sim_desc d = heisenberg_desc(2, 8, 8, 0, 1, LATMC_COUPLINGS_UNIFORM,
                                           LATMC_ALGO_HEATBATH, 1, 4200 + (uint64_t)c);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 1), LATMC_OK);
        float J[128] = { 0 };
        assert_int_equal(latmc_sim_set_couplings(sim, J, 128), LATMC_OK);
        /* e = -h <s_z>, and the spins are independent: <e> = -h L(beta h). */
        latmc_acc *acc = sample_energy(sim, UINT64_C(1) << 13);
        char label[96];
        snprintf(label, sizeof label, "free spins beta=%.1f h=%.1f <e>", beta, h);
        const double dev = mc_deviation(acc, 0, -h * langevin(beta * h), label);
        assert_true(fabs(dev) < MAX_SIGMA);
        latmc_acc_destroy(&acc);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    /* LATMC_TEST_POINT_STRIDE (the sanitizer build runs one ring lattice in three) */
    if (test_point_stride_check() != 0)
        return 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rings),
        cmocka_unit_test(free_spins_in_a_field),
    };
    return cmocka_run_group_tests_name("heisenberg_ring", tests, NULL, NULL);
}
