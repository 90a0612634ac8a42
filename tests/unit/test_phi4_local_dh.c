/*
 * The local energy change of phi^4, written once in lib/phi4.h and used by every kernel,
 * against the difference of the full Hamiltonian computed independently
 * (tests/support/exact_phi4.c, long double) on random fields: 2D (8 and 5 colours) and
 * 3D, several Lambda including +inf, g != 0, mu2 of both signs.
 *   - double: the library's corona + delta_h with the coefficients the core computes
 *     (sim->model_data) equals H(after) - H(before) to 1e-12 relative to the size of
 *     the terms; so does the documented formula typed in literally;
 *   - float: the same to 1e-5;
 *   - the backend's neighbour sums give bit-identical c01, c02, c11 (float and double);
 *   - Lambda = +inf switches the 1/Lambda terms off exactly (no inf or NaN leaks in);
 *   - the random-number conversions have the documented ranges and symmetry.
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
#include "internal.h"
#include "phi4.h"
#include "phi4_lattice.h"
#include "sim_helpers.h"

struct case_ {
    int ndim;
    int64_t L[3];
    double mu2, g, lambda;
};

static latmc_sim *make_sim(latmc_ctx *ctx, const struct case_ *c, int precision)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = c->ndim;
    d.extent[0] = c->L[0];
    d.extent[1] = c->L[1];
    d.extent[2] = c->ndim == 3 ? c->L[2] : 0;
    d.precision = precision;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, c->mu2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, c->g), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, c->lambda), LATMC_OK);
    return sim;
}

static double uniform(uint64_t *rng, double lo, double hi)
{
    return lo + (hi - lo) * ldexp((double)(test_rng_next(rng) >> 11), -53);
}

/* c01, c02, c11 of site x, from coordinates, in the documented order: c01 and c02 over
 * +e_0, -e_0, +e_1, ...; c11 over the planes (0,1), (0,2), (1,2), signs ++, +-, -+, --. */
#define NEIGHBOURHOOD(R, NAME)                                                              \
    static void NAME(const struct exact_phi4_lattice *lat, const R *phi, const int64_t *x,  \
                     R *c01, R *c02, R *c11)                                                \
    {                                                                                       \
        *c01 = *c02 = *c11 = 0;                                                             \
        for (int mu = 0; mu < lat->ndim; mu++)                                              \
            for (int s = 1; s >= -1; s -= 2) {                                              \
                int64_t y[3] = { x[0], x[1], x[2] };                                        \
                y[mu] += s;                                                                 \
                *c01 += phi[exact_phi4_index(lat, y)];                                      \
                y[mu] += s;                                                                 \
                *c02 += phi[exact_phi4_index(lat, y)];                                      \
            }                                                                               \
        for (int mu = 0; mu < lat->ndim; mu++)                                              \
            for (int nu = mu + 1; nu < lat->ndim; nu++)                                     \
                for (int a = 1; a >= -1; a -= 2)                                            \
                    for (int b = 1; b >= -1; b -= 2) {                                      \
                        int64_t y[3] = { x[0], x[1], x[2] };                                \
                        y[mu] += a;                                                         \
                        y[nu] += b;                                                         \
                        *c11 += phi[exact_phi4_index(lat, y)];                              \
                    }                                                                       \
    }

NEIGHBOURHOOD(double, neighbourhood)
NEIGHBOURHOOD(float, neighbourhood_f)

static void check_case(latmc_ctx *ctx, const struct case_ *c, uint64_t *rng, double *worst_d,
                       double *worst_f)
{
    const struct exact_phi4_lattice lat = { c->ndim, { c->L[0], c->L[1], c->ndim == 3 ? c->L[2] : 1 } };
    const int64_t n = exact_phi4_nsites(&lat);
    latmc_sim *sd = make_sim(ctx, c, LATMC_PRECISION_DOUBLE);
    latmc_sim *sf = make_sim(ctx, c, LATMC_PRECISION_FLOAT);
    const struct latmc_phi4_tables *td = sd->model_data, *tf = sf->model_data;
    const double k = c->ndim;
    const double site_doc = k + c->mu2 / 2 + (isfinite(c->lambda) ? k * (1 + 2 * k) / c->lambda : 0);
    struct latmc_lattice cl = { c->ndim, lat.L[0], lat.L[1], lat.L[2], n };
    const struct phi4_geom g = phi4_geom_of(&cl);

    double *phi = malloc((size_t)n * sizeof *phi);
    assert_non_null(phi);
    for (int64_t i = 0; i < n; i++)
        phi[i] = uniform(rng, -1.5, 1.5);
    for (int trial = 0; trial < 40; trial++) {
        const int64_t i = (int64_t)(test_rng_next(rng) % (uint64_t)n);
        int64_t x[3] = { 0, 0, 0 };
        for (int mu = 0, r = (int)i; mu < c->ndim; mu++) {
            x[mu] = r % lat.L[mu];
            r /= (int)lat.L[mu];
        }
        double c01, c02, c11;
        neighbourhood(&lat, phi, x, &c01, &c02, &c11);
        /* the backend's neighbour sums give the same bits */
        struct phi4_site s = { { x[0], x[1], x[2] }, i };
        double b01, b02, b11;
        phi4_neighbour_sums_d(&g, phi, &s, &b01, &b02, &b11);
        assert_true(b01 == c01 && b02 == c02 && b11 == c11);

        const double o = phi[i], nv = trial % 4 == 0 ? uniform(rng, -3, 3) : o + uniform(rng, -0.5, 0.5);
        const long double h0 = exact_phi4_hamiltonian(&lat, phi, c->mu2, c->g, c->lambda);
        phi[i] = nv;
        const long double h1 = exact_phi4_hamiltonian(&lat, phi, c->mu2, c->g, c->lambda);
        phi[i] = o;
        const double exact = (double)(h1 - h0);

        /* double: the library's function with the core's coefficients */
        const double cc = latmc_phi4_corona_d(&td->d, c01, c02, c11);
        const double dh = latmc_phi4_delta_h_d(&td->d, cc, o, nv);
        const double scale = fabs(nv - o) * (fabs(cc) + fabs(nv + o) * (fabs(site_doc) +
                             fabs(c->g) / 24 * (nv * nv + o * o)));
        assert_close(dh, exact, 1e-12 * scale);
        if (fabs(dh - exact) / scale > *worst_d)
            *worst_d = fabs(dh - exact) / scale;
        /* the documented formula, typed in literally */
        const double c_doc = isfinite(c->lambda) ? c01 - (c02 - 4 * k * c01 + 2 * c11) / c->lambda : c01;
        const double dh_doc = -(nv - o) * c_doc + (nv * nv - o * o) * site_doc +
                              c->g / 24 * (nv * nv * nv * nv - o * o * o * o);
        assert_close(dh_doc, exact, 1e-12 * scale);

        /* float: the same function for float fields, against H of the rounded values */
        float *fphi = malloc((size_t)n * sizeof *fphi);
        double *rphi = malloc((size_t)n * sizeof *rphi);
        assert_non_null(fphi);
        assert_non_null(rphi);
        for (int64_t q = 0; q < n; q++)
            rphi[q] = fphi[q] = (float)phi[q];
        float f01, f02, f11, g01, g02, g11;
        neighbourhood_f(&lat, fphi, x, &f01, &f02, &f11);
        phi4_neighbour_sums_f(&g, fphi, &s, &g01, &g02, &g11);
        assert_true(f01 == g01 && f02 == g02 && f11 == g11);
        const float fo = fphi[i], fn = (float)nv;
        const long double g0 = exact_phi4_hamiltonian(&lat, rphi, c->mu2, c->g, c->lambda);
        rphi[i] = fn;
        const long double g1 = exact_phi4_hamiltonian(&lat, rphi, c->mu2, c->g, c->lambda);
        const double fexact = (double)(g1 - g0);
        const float fdh = latmc_phi4_delta_h_f(&tf->f, latmc_phi4_corona_f(&tf->f, f01, f02, f11), fo, fn);
        assert_close(fdh, fexact, 1e-5 * scale);
        if (fabs(fdh - fexact) / scale > *worst_f)
            *worst_f = fabs(fdh - fexact) / scale;
        free(fphi);
        free(rphi);
        phi[i] = nv; /* walk on: later trials see changed fields */
    }
    free(phi);
    latmc_sim_destroy(&sd);
    latmc_sim_destroy(&sf);
}

static void delta_h_matches_full_hamiltonian(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double lambdas[] = { INFINITY, 5.0, 0.8, 0.15 };
    const struct case_ shapes[] = {
        { 2, { 8, 8, 1 }, 0.5, 1.3, 0 },
        { 2, { 5, 10, 1 }, -0.7, 2.0, 0 },
        { 3, { 8, 8, 8 }, 0.2, 0.6, 0 },
        { 3, { 8, 16, 8 }, -1.1, 0.0, 0 },
    };
    uint64_t rng = 2024;
    double worst_d = 0, worst_f = 0;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int l = 0; l < 4; l++) {
            struct case_ c = shapes[s];
            c.lambda = lambdas[l];
            check_case(ctx, &c, &rng, &worst_d, &worst_f);
        }
    printf("largest |dH - (H1 - H0)| / (size of the terms): double %.2e, float %.2e\n", worst_d,
           worst_f);
    latmc_ctx_destroy(&ctx);
}

/* Lambda = inf: the 1/Lambda terms are absent by a branch, whatever c02 and c11 hold. */
static void infinite_lambda_is_exact(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct case_ c = { 2, { 8, 8, 1 }, 0.3, 0.0, INFINITY };
    latmc_sim *sim = make_sim(ctx, &c, LATMC_PRECISION_DOUBLE);
    const struct latmc_phi4_tables *t = sim->model_data;
    assert_int_equal(t->d.finite_lambda, 0);
    assert_int_equal(t->f.finite_lambda, 0);
    assert_true(t->d.site == 2.0 + 0.3 / 2);
    assert_true(latmc_phi4_corona_d(&t->d, 1.25, INFINITY, NAN) == 1.25);
    assert_true(latmc_phi4_corona_f(&t->f, 1.25f, INFINITY, NAN) == 1.25f);
    /* back to a finite Lambda and to +inf again through the API */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, 2.0), LATMC_OK);
    assert_int_equal(t->d.finite_lambda, 1);
    assert_true(t->d.site == 2.0 + 0.3 / 2 + 2.0 * 5.0 / 2.0);
    assert_true(t->d.inv_lambda == 0.5);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, INFINITY), LATMC_OK);
    assert_int_equal(t->d.finite_lambda, 0);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* The documented conversions of 32-bit draws. */
static void draw_conversions(void **state)
{
    (void)state;
    assert_true(latmc_phi4_unit_d(0) == 0x1p-32);
    assert_true(latmc_phi4_unit_d(UINT32_MAX) == 1.0);
    assert_true(latmc_phi4_unit_f(0) == 0x1p-32f);
    assert_true(latmc_phi4_unit_f(UINT32_MAX) == 1.0f);
    assert_true(latmc_phi4_signed_d(0) == -1.0 + 0x1p-32);
    assert_true(latmc_phi4_signed_d(UINT32_MAX) == 1.0 - 0x1p-32);
    assert_true(latmc_phi4_signed_d(UINT32_C(0x80000000)) == 0x1p-32);
    uint64_t rng = 5;
    for (int k = 0; k < 200000; k++) {
        const uint32_t r = (uint32_t)test_rng_next(&rng);
        const double u = latmc_phi4_unit_d(r), s = latmc_phi4_signed_d(r);
        assert_true(u > 0 && u <= 1);
        assert_true(s > -1 && s < 1);
        assert_true(s == 2 * ((r + 0.5) * 0x1p-32) - 1);   /* the documented formula */
        /* exact symmetry of the proposal: r and 2^32 - 1 - r give opposite values */
        assert_true(latmc_phi4_signed_d(~r) == -s);
        assert_true(latmc_phi4_signed_f(~r) == -latmc_phi4_signed_f(r));
        const float fu = latmc_phi4_unit_f(r), fs = latmc_phi4_signed_f(r);
        assert_true(fu > 0 && fu <= 1);
        assert_true(fs >= -1 && fs <= 1);
        assert_true(fabs(fs - s) <= 0x1p-24);
    }
    /* the counter layout helpers */
    assert_int_equal(latmc_phi4_rng_sub(0, LATMC_PHI4_DRAW_ETA), 0);
    assert_int_equal(latmc_phi4_rng_sub(5, LATMC_PHI4_DRAW_ACCEPT), 11);
    assert_int_equal(latmc_phi4_rng_sub(32767, LATMC_PHI4_DRAW_ACCEPT), 65535);
    assert_int_equal(latmc_phi4_rng_phase(3, 32767), 3);
    assert_int_equal(latmc_phi4_rng_phase(3, 32768), 11);
    assert_int_equal(latmc_phi4_rng_sub(32768, LATMC_PHI4_DRAW_ETA), 0);
    assert_true(latmc_phi4_rng_sweep(7, 3, 2) == 23);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(delta_h_matches_full_hamiltonian),
        cmocka_unit_test(infinite_lambda_is_exact),
        cmocka_unit_test(draw_conversions),
    };
    return cmocka_run_group_tests_name("phi4_local_dh", tests, NULL, NULL);
}
