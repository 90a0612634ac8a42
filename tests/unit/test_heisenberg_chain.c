/*
 * The Heisenberg chain is defined by doc/models/heisenberg.md, not by the code: this test
 * re-implements that definition (its own site loops, colouring, checkerboard numbering,
 * Philox counters and streams, local-field sums, pass structure, coupling draws and hot
 * start) and requires the library to match it bit for bit. Only the per-site rules
 * (heat-bath spin, reflection, uniform conversion: lib/heisenberg_rules.h) and
 * the shared transcendental functions (lib/latmc_math.h, part of the chain's definition)
 * are shared, because they are floating-point formulas that are tested on their own in
 * test_heisenberg_sampling.c and test_latmc_math.c; everything that places a random
 * number or a neighbour is written here again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "philox.h"
#include "heisenberg_rules.h"
#include "heisenberg_test_helpers.h"

struct spec {
    int ndim;
    int64_t L[3];
    int replicas, couplings, algorithm, nover;
    double beta, h;
};

/* Draw j of (key, sweep, stream, phase, sub) as doc/conventions.md lays out the counter. */
static uint32_t spec_draw(uint64_t key, uint64_t j, uint64_t sweep, uint32_t stream,
                          uint32_t phase, uint32_t sub)
{
    const uint64_t block = j / 4;
    latmc_philox_ctr c = { { (uint32_t)block,
                             (uint32_t)((block >> 32) & 0xffff) | (uint32_t)(sweep >> 32) << 16,
                             (uint32_t)sweep, stream << 24 | phase << 16 | sub } };
    latmc_philox_key k = { { (uint32_t)key, (uint32_t)(key >> 32) } };
    return latmc_philox4x32_10(c, k).v[j % 4];
}

static void spec_couplings(const struct spec *sp, const struct test_lattice *g, uint64_t cseed,
                           float *J)
{
    for (int64_t k = 0; k < g->n * sp->ndim; k++) {
        const uint32_t r0 = spec_draw(cseed, (uint64_t)k, 0, 2, 0, 0);
        const uint32_t r1 = spec_draw(cseed, (uint64_t)k, 0, 2, 0, 1);
        if (sp->couplings == LATMC_COUPLINGS_UNIFORM)
            J[k] = 1.0f;
        else if (sp->couplings == LATMC_COUPLINGS_BIMODAL)
            J[k] = r0 < 0x80000000u ? 1.0f : -1.0f;
        else {
            /* Box-Muller with the chain's own log and cos(2 pi u) (lib/latmc_math.h) */
            double sin_phi, cos_phi;
            latmc_math_sincos_2pi((r1 + 0.5) / 4294967296.0, &sin_phi, &cos_phi);
            J[k] = (float)(sqrt(-2.0 * latmc_math_log((r0 + 0.5) / 4294967296.0)) * cos_phi);
        }
    }
}

/* One pass over one replica: colour 0 then colour 1; heat bath or reflection. */
static void spec_pass(const struct spec *sp, const struct test_lattice *g, float *s,
                      const float *J, bool heatbath, uint64_t seed, uint32_t stream,
                      uint64_t sweep)
{
    for (int colour = 0; colour < 2; colour++)
        for (int64_t z = 0; z < g->L[2]; z++)
            for (int64_t y = 0; y < g->L[1]; y++)
                for (int64_t x = 0; x < g->L[0]; x++) {
                    if ((x + y + z) % 2 != colour)
                        continue;
                    const int64_t i = x + g->L[0] * (y + g->L[1] * z);
                    double field[3] = { 0.0, 0.0, 0.0 };
                    for (int mu = 0; mu < sp->ndim; mu++) {
                        const int64_t f = test_neighbour(g, i, mu, +1);
                        const int64_t b = test_neighbour(g, i, mu, -1);
                        const double jf = J[sp->ndim * i + mu], jb = J[sp->ndim * b + mu];
                        for (int c = 0; c < 3; c++) {
                            field[c] += jf * s[3 * f + c];
                            field[c] += jb * s[3 * b + c];
                        }
                    }
                    field[2] += sp->h;
                    if (!heatbath) {
                        latmc_heisenberg_overrelax_spin(field, s + 3 * i);
                        continue;
                    }
                    const uint64_t j = (uint64_t)i / 2;
                    const uint32_t rc = spec_draw(seed, j, sweep, stream, (uint32_t)colour, 0);
                    const uint32_t rp = spec_draw(seed, j, sweep, stream, (uint32_t)colour, 1);
                    latmc_heisenberg_heatbath_spin(field, sp->beta, latmc_heisenberg_uniform(rc),
                                                 latmc_heisenberg_uniform(rp), s + 3 * i);
                }
}

static void spec_sweep(const struct spec *sp, const struct test_lattice *g, float *spins,
                       const float *J, uint64_t seed, uint64_t sweep)
{
    for (int r = 0; r < sp->replicas; r++) {
        float *s = spins + 3 * g->n * r;
        const uint32_t stream = 0u | (uint32_t)r << 4;
        int npasses = sp->nover;
        if (sp->algorithm == LATMC_ALGO_HEATBATH)
            spec_pass(sp, g, s, J, true, seed, stream, sweep);
        else if (npasses == 0)
            npasses = 1;
        for (int k = 0; k < npasses; k++)
            spec_pass(sp, g, s, J, false, seed, stream, sweep);
    }
}

static latmc_sim *make_sim(latmc_ctx *ctx, const struct spec *sp, uint64_t seed,
                           latmc_sim_desc *d)
{
    *d = heisenberg_desc(sp->ndim, sp->L[0], sp->L[1], sp->L[2], sp->replicas, sp->couplings,
                         sp->algorithm, 1, seed);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, sp->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, sp->h), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, sp->nover), LATMC_OK);
    return sim;
}

static void compare_with_spec(const struct spec *sp, uint64_t seed, int nsweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d;
    latmc_sim *sim = make_sim(ctx, sp, seed, &d);
    const struct test_lattice g = test_lattice_of(&d);

    /* couplings drawn at creation from coupling_seed */
    const size_t nc = (size_t)(g.n * sp->ndim);
    float *J = malloc(nc * sizeof *J), *libJ = malloc(nc * sizeof *libJ);
    assert_non_null(J);
    assert_non_null(libJ);
    spec_couplings(sp, &g, d.coupling_seed, J);
    assert_int_equal(latmc_sim_get_couplings(sim, libJ, nc), LATMC_OK);
    assert_memory_equal(J, libJ, nc * sizeof *J);

    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
    assert_int_equal(bytes, (size_t)g.n * 12u * (size_t)sp->replicas);
    float *mine = malloc(bytes), *lib = malloc(bytes), *start = malloc(bytes);
    assert_non_null(mine);
    assert_non_null(lib);
    assert_non_null(start);
    uint64_t rng = seed ^ 0x5eed;
    for (int64_t i = 0; i < g.n * sp->replicas; i++)
        test_unit_vector(&rng, mine + 3 * i);
    memcpy(start, mine, bytes);
    assert_int_equal(latmc_sim_set_spins(sim, mine, bytes), LATMC_OK);
    for (int t = 0; t < nsweeps; t++) {
        spec_sweep(sp, &g, mine, J, seed, (uint64_t)t);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
        assert_memory_equal(mine, lib, bytes);
    }
    assert_true(memcmp(mine, start, bytes) != 0); /* the chain moved */
    uint64_t count = 0;
    assert_int_equal(latmc_sim_sweep_count(sim, &count), LATMC_OK);
    assert_int_equal(count, (uint64_t)nsweeps);
    free(J);
    free(libJ);
    free(mine);
    free(lib);
    free(start);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void chain_matches_definition(void **state)
{
    (void)state;
    const struct spec specs[] = {
        { 2, { 4, 4, 1 }, 1, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH, 0, 0.7, 0.0 },
        { 2, { 6, 10, 1 }, 2, LATMC_COUPLINGS_GAUSSIAN, LATMC_ALGO_HEATBATH, 2, 1.3, 0.3 },
        { 2, { 2, 8, 1 }, 1, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_OVERRELAX, 0, 0.5, -0.2 },
        { 3, { 2, 2, 2 }, 1, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH, 1, 0.9, 0.1 },
        { 3, { 4, 6, 2 }, 2, LATMC_COUPLINGS_GAUSSIAN, LATMC_ALGO_OVERRELAX, 3, 2.0, 0.0 },
        { 3, { 6, 4, 10 }, 2, LATMC_COUPLINGS_GAUSSIAN, LATMC_ALGO_HEATBATH, 3, 0.4, 0.05 },
        { 3, { 10, 2, 6 }, 1, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH, 1, 3.0, 1.0 },
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        compare_with_spec(&specs[i], 3000 + i, 5);
}

/* Seeds with both 32-bit halves in use. */
static void chain_matches_definition_large_seed(void **state)
{
    (void)state;
    const struct spec sp = { 3, { 4, 4, 4 }, 2, LATMC_COUPLINGS_GAUSSIAN, LATMC_ALGO_HEATBATH,
                             1, 1.1, 0.0 };
    compare_with_spec(&sp, UINT64_C(0xfedcba9876543210), 3);
}

/* Hot start: site i of replica r from draw i of (seed, sweep 0, INIT stream 1 | r << 4,
 * phase 0), sub 0 -> cos(theta) = 2u - 1 to e_z, sub 1 -> azimuth 2 pi u; normalised in
 * double, rounded to float. Cold start: every spin e_z. */
static void hot_and_cold_start(void **state)
{
    (void)state;
    const struct spec sp = { 3, { 6, 4, 2 }, 2, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_HEATBATH,
                             0, 1.0, 0.0 };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d;
    latmc_sim *sim = make_sim(ctx, &sp, UINT64_C(0x123456789abc), &d);
    const struct test_lattice g = test_lattice_of(&d);
    const size_t bytes = (size_t)g.n * 12u * 2u;
    float *mine = malloc(bytes), *lib = malloc(bytes);
    assert_non_null(mine);
    assert_non_null(lib);
    for (int r = 0; r < 2; r++)
        for (int64_t i = 0; i < g.n; i++) {
            const uint32_t stream = 1u | (uint32_t)r << 4;
            const double uz = (spec_draw(d.seed, (uint64_t)i, 0, stream, 0, 0) + 0.5) / 4294967296.0;
            const double up = (spec_draw(d.seed, (uint64_t)i, 0, stream, 0, 1) + 0.5) / 4294967296.0;
            const double z = 2.0 * uz - 1.0, rho = sqrt((1.0 - z) * (1.0 + z));
            double sin_phi, cos_phi;
            latmc_math_sincos_2pi(up, &sin_phi, &cos_phi);
            const double v[3] = { rho * cos_phi, rho * sin_phi, z };
            const double inv = 1.0 / sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            for (int c = 0; c < 3; c++)
                mine[3 * (g.n * r + i) + c] = (float)(v[c] * inv);
        }
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
    assert_memory_equal(mine, lib, bytes);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
    for (int64_t k = 0; k < 2 * g.n; k++)
        assert_true(lib[3 * k] == 0.0f && lib[3 * k + 1] == 0.0f && lib[3 * k + 2] == 1.0f);
    free(mine);
    free(lib);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_matches_definition),
        cmocka_unit_test(chain_matches_definition_large_seed),
        cmocka_unit_test(hot_and_cold_start),
    };
    return cmocka_run_group_tests_name("heisenberg_chain", tests, NULL, NULL);
}
