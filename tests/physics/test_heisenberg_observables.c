/*
 * Heisenberg observables against values computed in the test from get_spins and
 * get_couplings (its own loops and neighbours, double sums):
 *  - energy H/N = (-sum_i sum_mu J_{i,mu} s_i . s_{i+mu} - h sum_i s_i^z) / N,
 *    magnetisation |M|/N, m^2, m^4, on random configurations (set_spins), Gaussian and
 *    +-1 couplings, h != 0, 2D and 3D, one and two replicas (replica 0), and again after
 *    heat-bath sweeps; also after the couplings are replaced;
 *  - overlap: two replicas set to the same random configuration give
 *    OVERLAP2 = sum_{mu,nu} q_{mu nu}^2 as computed here; after sweeps the replicas,
 *    with their own random streams, differ, and OVERLAP2 still matches.
 * Tolerance 1e-12: the two computations differ only in the order of double sums.
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

#include "heisenberg_test_helpers.h"

#define TOL 1e-12

struct config {
    latmc_sim_desc d;
    struct test_lattice g;
    size_t bytes, nc;
    float *spins, *J;
};

static void read_state(latmc_sim *sim, struct config *c)
{
    assert_int_equal(latmc_sim_get_spins(sim, c->spins, c->bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(sim, c->J, c->nc), LATMC_OK);
}

/* Every single-replica observable of the sim against the test's own numbers (replica 0). */
static void check_observables(latmc_sim *sim, const struct config *c, double h)
{
    double e = 0.0, m = 0.0, am = 0.0, m2 = 0.0, m4 = 0.0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &m), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ABS_MAGNETIZATION, &am), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M4, &m4), LATMC_OK);
    double mv[3] = { 0.0, 0.0, 0.0 };
    for (int64_t i = 0; i < c->g.n; i++)
        for (int k = 0; k < 3; k++)
            mv[k] += c->spins[3 * i + k];
    const double n = (double)c->g.n;
    const double want_m2 = (mv[0] * mv[0] + mv[1] * mv[1] + mv[2] * mv[2]) / (n * n);
    assert_close(e, test_energy_per_site(&c->g, c->spins, c->J, h), TOL);
    assert_close(m, sqrt(want_m2), TOL);
    assert_close(am, sqrt(want_m2), TOL);
    assert_close(m2, want_m2, TOL);
    assert_close(m4, want_m2 * want_m2, TOL);
}

static void check_energy_case(int ndim, int64_t lx, int64_t ly, int64_t lz, int replicas,
                              int couplings, double h, uint64_t seed)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    struct config c;
    c.d = heisenberg_desc(ndim, lx, ly, lz, replicas, couplings, LATMC_ALGO_HEATBATH, 1, seed);
    c.g = test_lattice_of(&c.d);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &c.d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.8), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 1), LATMC_OK);
    assert_int_equal(latmc_sim_spins_size(sim, &c.bytes), LATMC_OK);
    assert_int_equal(latmc_sim_couplings_size(sim, &c.nc), LATMC_OK);
    c.spins = malloc(c.bytes);
    c.J = malloc(c.nc * sizeof *c.J);
    assert_non_null(c.spins);
    assert_non_null(c.J);
    uint64_t rng = seed * 31u + 7u;
    for (int64_t i = 0; i < c.g.n * replicas; i++)
        test_unit_vector(&rng, c.spins + 3 * i);
    assert_int_equal(latmc_sim_set_spins(sim, c.spins, c.bytes), LATMC_OK);
    read_state(sim, &c);
    /* the disorder the desc asked for */
    int n_neg = 0, n_unit = 0;
    for (size_t k = 0; k < c.nc; k++) {
        n_neg += c.J[k] < 0.0f;
        n_unit += c.J[k] == 1.0f || c.J[k] == -1.0f;
    }
    assert_true(n_neg > 0 && (size_t)n_neg < c.nc);
    assert_true(couplings == LATMC_COUPLINGS_BIMODAL ? (size_t)n_unit == c.nc : n_unit == 0);
    check_observables(sim, &c, h);
    /* after heat-bath sweeps: the library's own configuration */
    assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
    read_state(sim, &c);
    check_observables(sim, &c, h);
    /* after replacing the couplings: the cached reduction must be recomputed */
    for (size_t k = 0; k < c.nc; k++)
        c.J[k] = (float)(0.5 + test_uniform(&rng));
    assert_int_equal(latmc_sim_set_couplings(sim, c.J, c.nc), LATMC_OK);
    read_state(sim, &c);
    check_observables(sim, &c, h);
    free(c.spins);
    free(c.J);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void energy_matches_hamiltonian(void **state)
{
    (void)state;
    check_energy_case(3, 6, 4, 8, 1, LATMC_COUPLINGS_GAUSSIAN, 0.37, 9001);
    check_energy_case(3, 2, 2, 2, 2, LATMC_COUPLINGS_GAUSSIAN, -1.1, 9002);
    check_energy_case(2, 10, 6, 0, 2, LATMC_COUPLINGS_GAUSSIAN, 0.8, 9003);
    check_energy_case(2, 2, 8, 0, 1, LATMC_COUPLINGS_BIMODAL, 0.25, 9004);
    /* larger than one measurement chunk (1024 sites), rows of odd count per chunk */
    check_energy_case(3, 24, 30, 6, 2, LATMC_COUPLINGS_BIMODAL, 0.6, 9005);
}

static void overlap_matches_definition(void **state)
{
    (void)state;
    const int ndims[] = { 3, 2 };
    for (int k = 0; k < 2; k++) {
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        latmc_sim_desc d = heisenberg_desc(ndims[k], 8, 6, 4, 2, LATMC_COUPLINGS_GAUSSIAN,
                                           LATMC_ALGO_HEATBATH, 1, 9100 + (uint64_t)k);
        const struct test_lattice g = test_lattice_of(&d);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.5), LATMC_OK);
        const size_t bytes = (size_t)g.n * 2u * 3u * sizeof(float);
        float *s = malloc(bytes);
        assert_non_null(s);
        /* the same hot configuration in both replicas */
        uint64_t rng = 9200 + (uint64_t)k;
        for (int64_t i = 0; i < g.n; i++)
            test_unit_vector(&rng, s + 3 * i);
        memcpy(s + 3 * g.n, s, (size_t)g.n * 3u * sizeof(float));
        assert_int_equal(latmc_sim_set_spins(sim, s, bytes), LATMC_OK);
        double q2 = 0.0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &q2), LATMC_OK);
        const double want_same = test_overlap2(g.n, s, s);
        printf("%dD identical replicas: overlap2 %.15f, test %.15f\n", ndims[k], q2, want_same);
        assert_close(q2, want_same, TOL);
        /* sum q^2 >= 1/3 for identical replicas (trace q = 1, q symmetric) */
        assert_true(q2 >= 1.0 / 3.0 - 1e-12);
        /* independent streams: after sweeping, the replicas differ */
        assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, s, bytes), LATMC_OK);
        assert_true(memcmp(s, s + 3 * g.n, (size_t)g.n * 3u * sizeof(float)) != 0);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &q2), LATMC_OK);
        const double want = test_overlap2(g.n, s, s + 3 * g.n);
        printf("%dD after 2 sweeps: overlap2 %.15f, test %.15f\n", ndims[k], q2, want);
        assert_close(q2, want, TOL);
        assert_true(want < want_same);
        free(s);
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&ctx);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(energy_matches_hamiltonian),
        cmocka_unit_test(overlap_matches_definition),
    };
    return cmocka_run_group_tests_name("heisenberg_observables", tests, NULL, NULL);
}
