/*
 * phi^4 energies through the public API, against the Hamiltonian computed here from its
 * definition (tests/support/exact_phi4.c):
 *   (a) changing one site of a random field (latmc_sim_set_spins before and after)
 *       changes N * energy by the documented local dH, which in turn equals the
 *       difference of the full H: 2D (8 and 5 colours) and 3D, double fields, several
 *       Lambda including +inf, to 1e-12 relative to the size of dH's terms;
 *   (c) every observable (energy, m, |m|, m^2, m^4, phi^2) equals its definition
 *       evaluated on latmc_sim_get_spins, for random fields and after sweeps, float and
 *       double.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "exact_phi4.h"
#include "sim_helpers.h"

struct shape {
    int ndim;
    int64_t L[3];
};

static latmc_sim *phi4_sim(latmc_ctx *ctx, const struct shape *s, int precision, double mu2,
                           double g, double lambda, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = s->ndim;
    d.extent[0] = s->L[0];
    d.extent[1] = s->L[1];
    d.extent[2] = s->ndim == 3 ? s->L[2] : 0;
    d.precision = precision;
    d.device = LATMC_DEVICE_CPU;
    d.seed = seed;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, mu2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, g), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, lambda), LATMC_OK);
    return sim;
}

static double uniform(uint64_t *rng, double lo, double hi)
{
    return lo + (hi - lo) * ldexp((double)(test_rng_next(rng) >> 11), -53);
}

static double n_times_energy(latmc_sim *sim, int64_t n)
{
    double e = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
    return e * (double)n;
}

/* (a) */
static void one_site_change_is_local_dh(void **state)
{
    (void)state;
    const struct shape shapes[] = { { 2, { 8, 8, 1 } }, { 2, { 10, 5, 1 } }, { 3, { 8, 8, 8 } } };
    const double lambdas[] = { INFINITY, 4.0, 0.6 };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    uint64_t rng = 31;
    double worst_lib = 0, worst_formula = 0;
    for (int s = 0; s < 3; s++)
        for (int l = 0; l < 3; l++) {
            const struct shape *sh = &shapes[s];
            const struct exact_phi4_lattice lat = { sh->ndim, { sh->L[0], sh->L[1], sh->L[2] } };
            const int64_t n = exact_phi4_nsites(&lat);
            const double mu2 = -0.6 + 0.5 * s, g = 1.5, lambda = lambdas[l], k = sh->ndim;
            latmc_sim *sim = phi4_sim(ctx, sh, LATMC_PRECISION_DOUBLE, mu2, g, lambda, 1);
            double *phi = malloc((size_t)n * sizeof *phi);
            assert_non_null(phi);
            for (int64_t i = 0; i < n; i++)
                phi[i] = uniform(&rng, -1.0, 1.0);
            for (int trial = 0; trial < 12; trial++) {
                const int64_t i = (int64_t)(test_rng_next(&rng) % (uint64_t)n);
                const double o = phi[i], nv = o + uniform(&rng, -1.0, 1.0);
                assert_int_equal(latmc_sim_set_spins(sim, phi, (size_t)n * sizeof *phi), LATMC_OK);
                const double e0 = n_times_energy(sim, n);
                const long double h0 = exact_phi4_hamiltonian(&lat, phi, mu2, g, lambda);
                phi[i] = nv;
                assert_int_equal(latmc_sim_set_spins(sim, phi, (size_t)n * sizeof *phi), LATMC_OK);
                const double e1 = n_times_energy(sim, n);
                const long double h1 = exact_phi4_hamiltonian(&lat, phi, mu2, g, lambda);
                /* the documented local dH, with c01, c02, c11 from the coordinates of i */
                int64_t x[3] = { i % sh->L[0], (i / sh->L[0]) % sh->L[1], i / (sh->L[0] * sh->L[1]) };
                double c01 = 0, c02 = 0, c11 = 0;
                for (int mu = 0; mu < sh->ndim; mu++)
                    for (int sg = -1; sg <= 1; sg += 2) {
                        int64_t y[3] = { x[0], x[1], x[2] };
                        y[mu] += sg;
                        c01 += phi[exact_phi4_index(&lat, y)];
                        y[mu] += sg;
                        c02 += phi[exact_phi4_index(&lat, y)];
                        for (int nu = mu + 1; nu < sh->ndim; nu++)
                            for (int sn = -1; sn <= 1; sn += 2) {
                                int64_t z[3] = { x[0], x[1], x[2] };
                                z[mu] += sg;
                                z[nu] += sn;
                                c11 += phi[exact_phi4_index(&lat, z)];
                            }
                    }
                const double fin = isfinite(lambda);
                const double c = fin ? c01 - (c02 - 4 * k * c01 + 2 * c11) / lambda : c01;
                const double a = k + mu2 / 2 + (fin ? k * (1 + 2 * k) / lambda : 0);
                const double dh = -(nv - o) * c + (nv * nv - o * o) * a +
                                  g / 24 * (nv * nv * nv * nv - o * o * o * o);
                const double scale = fabs((nv - o) * c) + fabs((nv * nv - o * o) * a) +
                                     fabs(g / 24 * (nv * nv * nv * nv - o * o * o * o));
                const double full = (double)(h1 - h0);
                assert_close(dh, full, 1e-12 * scale);
                assert_close(e1 - e0, dh, 1e-12 * scale);
                if (fabs(e1 - e0 - full) / scale > worst_lib)
                    worst_lib = fabs(e1 - e0 - full) / scale;
                if (fabs(dh - full) / scale > worst_formula)
                    worst_formula = fabs(dh - full) / scale;
            }
            free(phi);
            latmc_sim_destroy(&sim);
        }
    printf("largest relative deviation: library N*energy difference %.2e, formula %.2e\n",
           worst_lib, worst_formula);
    latmc_ctx_destroy(&ctx);
}

/* Every observable of the sim's current field against its definition. */
static void check_observables(latmc_sim *sim, const struct exact_phi4_lattice *lat, int precision,
                              double mu2, double g, double lambda, double *worst)
{
    const int64_t n = exact_phi4_nsites(lat);
    double *phi = malloc((size_t)n * sizeof *phi);
    assert_non_null(phi);
    if (precision == LATMC_PRECISION_FLOAT) {
        float *f = malloc((size_t)n * sizeof *f);
        assert_non_null(f);
        assert_int_equal(latmc_sim_get_spins(sim, f, (size_t)n * sizeof *f), LATMC_OK);
        for (int64_t i = 0; i < n; i++)
            phi[i] = f[i];
        free(f);
    } else {
        assert_int_equal(latmc_sim_get_spins(sim, phi, (size_t)n * sizeof *phi), LATMC_OK);
    }
    long double sum = 0, sum2 = 0;
    for (int64_t i = 0; i < n; i++) {
        sum += phi[i];
        sum2 += (long double)phi[i] * phi[i];
    }
    const double m = (double)(sum / n), h = (double)exact_phi4_hamiltonian(lat, phi, mu2, g, lambda);
    const double want[] = { h / (double)n, m, fabs(m), m * m, m * m * m * m, (double)(sum2 / n) };
    const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_ABS_MAGNETIZATION,
                         LATMC_OBS_M2, LATMC_OBS_M4, LATMC_OBS_PHI2 };
    for (int k = 0; k < 6; k++) {
        double v = 0;
        assert_int_equal(latmc_sim_observable(sim, keys[k], &v), LATMC_OK);
        /* per-site sums of N terms of size ~1, in double: 1e-12 relative, or absolute
         * for values near 0 */
        const double scale = fabs(want[k]) + 1;
        assert_close(v, want[k], 1e-12 * scale);
        if (fabs(v - want[k]) / scale > *worst)
            *worst = fabs(v - want[k]) / scale;
    }
    free(phi);
}

/* (c) */
static void observables_match_definitions(void **state)
{
    (void)state;
    const struct shape shapes[] = { { 2, { 16, 8, 1 } }, { 2, { 5, 15, 1 } }, { 3, { 8, 8, 16 } } };
    const double lambdas[] = { INFINITY, 1.5 };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    uint64_t rng = 8;
    double worst = 0;
    for (int s = 0; s < 3; s++)
        for (int l = 0; l < 2; l++)
            for (int prec = 0; prec < 2; prec++) {
                const struct shape *sh = &shapes[s];
                const struct exact_phi4_lattice lat = { sh->ndim, { sh->L[0], sh->L[1], sh->L[2] } };
                const int64_t n = exact_phi4_nsites(&lat);
                const double mu2 = -0.8, g = 2.4, lambda = lambdas[l];
                latmc_sim *sim = phi4_sim(ctx, sh, prec, mu2, g, lambda, 100 + (uint64_t)s);
                /* a random field, shifted so that m is not ~0 */
                double *phi = malloc((size_t)n * sizeof *phi);
                float *fphi = malloc((size_t)n * sizeof *fphi);
                assert_non_null(phi);
                assert_non_null(fphi);
                for (int64_t i = 0; i < n; i++)
                    fphi[i] = (float)(phi[i] = uniform(&rng, -1.2, 2.0));
                if (prec == LATMC_PRECISION_FLOAT)
                    assert_int_equal(latmc_sim_set_spins(sim, fphi, (size_t)n * 4), LATMC_OK);
                else
                    assert_int_equal(latmc_sim_set_spins(sim, phi, (size_t)n * 8), LATMC_OK);
                check_observables(sim, &lat, prec, mu2, g, lambda, &worst);
                /* after sweeps (new configuration, cache invalidated), and after a
                 * parameter change without a new configuration */
                assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
                check_observables(sim, &lat, prec, mu2, g, lambda, &worst);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 0.7), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, 0.3), LATMC_OK);
                check_observables(sim, &lat, prec, 0.3, 0.7, lambda, &worst);
                /* hot and cold starts */
                assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
                check_observables(sim, &lat, prec, 0.3, 0.7, lambda, &worst);
                assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
                double e = 1;
                assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
                assert_true(e == 0.0);
                free(phi);
                free(fphi);
                latmc_sim_destroy(&sim);
            }
    printf("largest observable deviation: %.2e relative\n", worst);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_site_change_is_local_dh),
        cmocka_unit_test(observables_match_definitions),
    };
    return cmocka_run_group_tests_name("phi4_local_energy", tests, NULL, NULL);
}
