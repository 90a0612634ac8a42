/*
 * The Ising chain is defined by doc/conventions.md, not by the code: this test
 * re-implements that definition from scratch (its own site loops, colour numbering,
 * thresholds and Philox counters) and requires the library's configuration to match it
 * bit for bit after several sweeps. Every future backend must match the same definition.
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
#include "sim_helpers.h"

struct spec {
    int ndim;
    int64_t L[3];
    int algorithm;
    double beta, J, h;
};

/* floor(p 2^32), p clamped to [0, 1]: the documented integer decision u < threshold. */
static uint64_t spec_threshold(double p)
{
    if (p <= 0)
        return 0;
    if (p >= 1)
        return UINT64_C(1) << 32;
    return (uint64_t)ldexp(p, 32);
}

static void spec_sweep(const struct spec *sp, int8_t *s, uint64_t seed, uint64_t sweep)
{
    const int64_t lx = sp->L[0], ly = sp->L[1], lz = sp->ndim == 3 ? sp->L[2] : 1;
    for (int colour = 0; colour < 2; colour++) {
        for (int64_t z = 0; z < lz; z++)
            for (int64_t y = 0; y < ly; y++)
                for (int64_t x = 0; x < lx; x++) {
                    if ((x + y + z) % 2 != colour)
                        continue;
                    const int64_t i = x + lx * (y + ly * z);
                    const int64_t j = i / 2; /* index within the colour */
                    const uint64_t block = (uint64_t)j / 4;
                    latmc_philox_ctr c = { { (uint32_t)block,
                                             (uint32_t)(block >> 32) | (uint32_t)(sweep >> 32) << 16,
                                             (uint32_t)sweep,
                                             (uint32_t)colour << 16 } };
                    latmc_philox_key k = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
                    const uint32_t u = latmc_philox4x32_10(c, k).v[j % 4];
                    int n = s[(x + 1) % lx + lx * (y + ly * z)] + s[(x + lx - 1) % lx + lx * (y + ly * z)]
                          + s[x + lx * ((y + 1) % ly + ly * z)] + s[x + lx * ((y + ly - 1) % ly + ly * z)];
                    if (sp->ndim == 3)
                        n += s[x + lx * (y + ly * ((z + 1) % lz))] + s[x + lx * (y + ly * ((z + lz - 1) % lz))];
                    const double local = sp->J * n + sp->h;
                    if (sp->algorithm == LATMC_ALGO_METROPOLIS) {
                        const double de = 2.0 * s[i] * local;
                        const double p = de <= 0 ? 1.0 : exp(-sp->beta * de);
                        if (u < spec_threshold(p))
                            s[i] = (int8_t)-s[i];
                    } else {
                        const double p_up = 1.0 / (1.0 + exp(-2.0 * sp->beta * local));
                        s[i] = u < spec_threshold(p_up) ? 1 : -1;
                    }
                }
    }
}

static void compare_with_spec(const struct spec *sp, uint64_t seed, int nsweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(sp->ndim, sp->L[0], sp->L[1], sp->L[2], sp->algorithm, 1, seed);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, sp->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, sp->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, sp->h), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    int8_t *mine = malloc(n), *lib = malloc(n);
    uint64_t rng = seed ^ 0x5eed;
    for (size_t i = 0; i < n; i++)
        mine[i] = (test_rng_next(&rng) & 1) ? 1 : -1;
    assert_int_equal(latmc_sim_set_spins(sim, mine, n), LATMC_OK);
    int differs_from_start = 0;
    for (int t = 0; t < nsweeps; t++) {
        spec_sweep(sp, mine, seed, (uint64_t)t);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, lib, n), LATMC_OK);
        assert_memory_equal(mine, lib, n);
    }
    rng = seed ^ 0x5eed;
    for (size_t i = 0; i < n; i++)
        differs_from_start += mine[i] != ((test_rng_next(&rng) & 1) ? 1 : -1);
    assert_true(differs_from_start > 0); /* the chain moved: the comparison meant something */
    free(mine);
    free(lib);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void chain_matches_definition(void **state)
{
    (void)state;
    const struct spec specs[] = {
        { 2, { 4, 4, 0 }, LATMC_ALGO_METROPOLIS, 0.44, 1.0, 0.0 },
        { 2, { 6, 10, 0 }, LATMC_ALGO_METROPOLIS, 0.3, 1.0, 0.1 },
        { 2, { 2, 8, 0 }, LATMC_ALGO_HEATBATH, 0.6, 1.0, -0.2 },
        { 2, { 14, 6, 0 }, LATMC_ALGO_HEATBATH, 0.44, -0.7, 0.05 },
        { 3, { 2, 2, 2 }, LATMC_ALGO_METROPOLIS, 0.2, 1.0, 0.1 },
        { 3, { 6, 4, 10 }, LATMC_ALGO_METROPOLIS, 0.22, 1.3, 0.0 },
        { 3, { 4, 6, 2 }, LATMC_ALGO_HEATBATH, 0.25, 1.0, 0.3 },
        { 3, { 10, 2, 6 }, LATMC_ALGO_HEATBATH, 0.5, -1.0, 0.0 },
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        compare_with_spec(&specs[i], 1000 + i, 6);
}

/* Seeds with both 32-bit halves in use, and sweep numbers past 2^32. */
static void chain_matches_definition_large_counters(void **state)
{
    (void)state;
    const struct spec sp = { 2, { 8, 6, 0 }, LATMC_ALGO_METROPOLIS, 0.4, 1.0, 0.0 };
    compare_with_spec(&sp, UINT64_C(0xfedcba9876543210), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_matches_definition),
        cmocka_unit_test(chain_matches_definition_large_counters),
    };
    return cmocka_run_group_tests_name("ising_chain", tests, NULL, NULL);
}
