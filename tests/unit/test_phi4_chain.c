/*
 * The phi^4 chain is defined by doc/models/phi4.md, not by the code: this test
 * re-implements that definition from scratch (its own site loops in natural order, its
 * own colours and within-colour numbering, Philox counters assembled by hand, the
 * documented conversions of the draws, neighbourhood sums, coefficients and energy
 * change) and requires the library's field to match it bit for bit after every sweep,
 * for float and double fields, 2D (8 and 5 colours) and 3D, several nhit, nloc and
 * Lambda, and the acceptance to match the count of accepted hits exactly.
 * It also checks the documented hot and cold starts.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latmc_math.h" /* the chain's logarithm is part of its definition */
#include "phi4_spec.h"
#include "sim_helpers.h"

static latmc_sim *spec_sim(latmc_ctx *ctx, const struct spec *sp, uint64_t seed)
{
    latmc_sim_desc d;
    spec_desc(sp, &d);
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = seed;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(spec_set_params(sim, sp), LATMC_OK);
    return sim;
}

static void compare_with_spec(const struct spec *sp, uint64_t seed, int nsweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = spec_sim(ctx, sp, seed);
    const int single = sp->precision == LATMC_PRECISION_FLOAT;
    const size_t nsites = (size_t)(sp->L[0] * sp->L[1] * (sp->ndim == 3 ? sp->L[2] : 1));
    const size_t bytes = nsites * (single ? sizeof(float) : sizeof(double));
    size_t want = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &want), LATMC_OK);
    assert_int_equal(want, bytes);
    void *mine = malloc(bytes), *lib = malloc(bytes), *start = malloc(bytes);
    assert_non_null(mine);
    assert_non_null(lib);
    assert_non_null(start);
    uint64_t rng = seed ^ 0x9e4;
    for (size_t i = 0; i < nsites; i++) {
        const double v = ldexp((double)(test_rng_next(&rng) >> 11), -53) * 2.4 - 1.2;
        if (single)
            ((float *)mine)[i] = (float)v;
        else
            ((double *)mine)[i] = v;
    }
    memcpy(start, mine, bytes);
    assert_int_equal(latmc_sim_set_spins(sim, mine, bytes), LATMC_OK);
    uint64_t accepted = 0;
    for (int t = 0; t < nsweeps; t++) {
        accepted += spec_sweep(sp, NULL, mine, seed, (uint64_t)t);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, lib, bytes), LATMC_OK);
        assert_memory_equal(mine, lib, bytes);
    }
    const uint64_t attempted = (uint64_t)nsites * (uint64_t)(sp->nloc * sp->nhit) * (uint64_t)nsweeps;
    double acc = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
    assert_true(acc == (double)accepted / (double)attempted);
    assert_true(accepted > 0 && accepted < attempted); /* a real chain: moves and rejections */
    assert_true(memcmp(start, mine, bytes) != 0);
    free(mine);
    free(lib);
    free(start);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void chain_matches_definition(void **state)
{
    (void)state;
    const int F = LATMC_PRECISION_FLOAT, D = LATMC_PRECISION_DOUBLE;
    const struct spec specs[] = {
        { 2, { 8, 8, 0 }, D, 0.5, 0.0, INFINITY, 1.0, 1, 1 },
        { 2, { 8, 8, 0 }, F, 0.5, 0.0, INFINITY, 1.0, 1, 1 },
        { 2, { 5, 10, 0 }, F, -0.4, 1.2, 0.9, 0.8, 3, 2 },
        { 2, { 15, 5, 0 }, D, 0.1, 2.5, 4.0, 1.3, 2, 1 },
        { 2, { 16, 24, 0 }, D, -1.0, 6.0, 1.5, 0.6, 1, 3 },
        { 3, { 8, 8, 8 }, D, -0.5, 2.0, 2.0, 0.7, 2, 1 },
        { 3, { 8, 8, 16 }, F, 0.3, 0.5, INFINITY, 1.1, 1, 3 },
        { 3, { 16, 8, 8 }, F, 0.3, 0.0, 0.5, 0.4, 4, 2 },
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        compare_with_spec(&specs[i], 4000 + i, 4);
}

/* Seeds with both 32-bit halves in use. */
static void chain_matches_definition_large_seed(void **state)
{
    (void)state;
    const struct spec sp = { 2, { 8, 16, 0 }, LATMC_PRECISION_DOUBLE, 0.2, 1.0, 3.0, 0.9, 2, 2 };
    compare_with_spec(&sp, UINT64_C(0xfedcba9876543210), 3);
    const struct spec sf = { 3, { 8, 8, 8 }, LATMC_PRECISION_FLOAT, 0.2, 1.0, 3.0, 0.9, 1, 1 };
    compare_with_spec(&sf, UINT64_C(0x8000000180000001), 2);
}

/* More than 32768 hits: the hits past 32767 draw from phases 8 + colour. */
static void chain_matches_definition_many_hits(void **state)
{
    (void)state;
    const struct spec sp = { 2, { 5, 5, 0 }, LATMC_PRECISION_DOUBLE, 0.5, 0.5, INFINITY, 1.0, 32770, 1 };
    compare_with_spec(&sp, 99, 1);
}

/* Cold start: phi = 0. Hot start: site i takes lane i mod 4 of INIT block i / 4
 * (stream 1, sweep 0, phase 0, sub 0), mapped to (2r + 1 - 2^32) 2^-32 in the field type. */
static void starts_match_definition(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int prec = 0; prec < 2; prec++) {
        const struct spec sp = { 2, { 10, 15, 0 }, prec, 0.5, 0.0, INFINITY, 1.0, 1, 1 };
        const uint64_t seed = UINT64_C(0x1234567887654321);
        latmc_sim *sim = spec_sim(ctx, &sp, seed);
        const size_t n = 150, bytes = n * (prec == LATMC_PRECISION_FLOAT ? 4 : 8);
        unsigned char *buf = malloc(bytes), *zero = calloc(1, bytes);
        assert_non_null(buf);
        assert_non_null(zero);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, buf, bytes), LATMC_OK);
        for (size_t i = 0; i < n; i++)
            assert_true(prec == LATMC_PRECISION_FLOAT ? ((float *)buf)[i] == 0.0f
                                                      : ((double *)buf)[i] == 0.0);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, buf, bytes), LATMC_OK);
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            latmc_philox_ctr c = { { (uint32_t)(i / 4), 0, 0, 1u << 24 } };
            latmc_philox_key k = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
            const uint32_t r = latmc_philox4x32_10(c, k).v[i % 4];
            const int64_t odd = 2 * (int64_t)r + 1 - 4294967296;
            if (prec == LATMC_PRECISION_FLOAT) {
                assert_true(((float *)buf)[i] == (float)odd * 0x1p-32f);
                sum += ((float *)buf)[i];
            } else {
                assert_true(((double *)buf)[i] == (double)odd * 0x1p-32);
                assert_true(fabs(((double *)buf)[i]) < 1);
                sum += ((double *)buf)[i];
            }
        }
        assert_true(fabs(sum / (double)n) < 0.25); /* centred: 4 sigma of uniform(-1,1) */
        free(buf);
        free(zero);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_matches_definition),
        cmocka_unit_test(chain_matches_definition_large_seed),
        cmocka_unit_test(chain_matches_definition_many_hits),
        cmocka_unit_test(starts_match_definition),
    };
    return cmocka_run_group_tests_name("phi4_chain", tests, NULL, NULL);
}
