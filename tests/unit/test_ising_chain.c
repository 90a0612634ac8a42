/*
 * The Ising chain is defined by doc/conventions.md, not by the code: this test
 * re-implements that definition from scratch (its own site loops, colour numbering,
 * thresholds and Philox counters) and requires the library's configuration to match it
 * bit for bit after several sweeps. Every future backend must match the same definition.
 * The same for the +-J model (desc.couplings = BIMODAL): the couplings' draw, the coupled
 * neighbour sum and the energy of the documented definition.
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
    int pmj;                /* 1: +-J couplings drawn from coupling_seed */
    uint64_t coupling_seed;
};

/* The documented +-J couplings: eps[ndim i + mu] from draw k = ndim i + mu (block k / 4,
 * lane k mod 4) of key coupling_seed, stream 2, sweep 0, phase 0, sub 0; +1 iff the top
 * bit is 0. */
static void spec_couplings(const struct spec *sp, int8_t *eps, size_t n)
{
    const latmc_philox_key k = { { (uint32_t)sp->coupling_seed,
                                   (uint32_t)(sp->coupling_seed >> 32) } };
    for (size_t c = 0; c < n; c++) {
        const uint64_t block = c / 4;
        const latmc_philox_ctr ctr = { { (uint32_t)block, (uint32_t)(block >> 32), 0,
                                         UINT32_C(2) << 24 } };
        eps[c] = (latmc_philox4x32_10(ctr, k).v[c % 4] >> 31) ? -1 : 1;
    }
}

/* floor(p 2^32), p clamped to [0, 1]: the documented integer decision u < threshold. */
static uint64_t spec_threshold(double p)
{
    if (p <= 0)
        return 0;
    if (p >= 1)
        return UINT64_C(1) << 32;
    return (uint64_t)ldexp(p, 32);
}

/* The coupling of the bond from site (x, y, z) to its neighbour in direction mu (+-1 per
 * positive direction: d = +1 or -1); 1 without couplings. */
static int spec_eps(const struct spec *sp, const int8_t *eps, int64_t x, int64_t y, int64_t z,
                    int mu, int d)
{
    if (!eps)
        return 1;
    const int64_t lx = sp->L[0], ly = sp->L[1], lz = sp->ndim == 3 ? sp->L[2] : 1;
    if (d < 0) { /* the bond (x - e_mu) -> x, stored at the lower site */
        if (mu == 0)
            x = (x + lx - 1) % lx;
        else if (mu == 1)
            y = (y + ly - 1) % ly;
        else
            z = (z + lz - 1) % lz;
    }
    return eps[sp->ndim * (x + lx * (y + ly * z)) + mu];
}

static void spec_sweep(const struct spec *sp, int8_t *s, const int8_t *eps, uint64_t seed,
                       uint64_t sweep)
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
                    int n = spec_eps(sp, eps, x, y, z, 0, 1) * s[(x + 1) % lx + lx * (y + ly * z)]
                          + spec_eps(sp, eps, x, y, z, 0, -1) * s[(x + lx - 1) % lx + lx * (y + ly * z)]
                          + spec_eps(sp, eps, x, y, z, 1, 1) * s[x + lx * ((y + 1) % ly + ly * z)]
                          + spec_eps(sp, eps, x, y, z, 1, -1) * s[x + lx * ((y + ly - 1) % ly + ly * z)];
                    if (sp->ndim == 3)
                        n += spec_eps(sp, eps, x, y, z, 2, 1) * s[x + lx * (y + ly * ((z + 1) % lz))]
                           + spec_eps(sp, eps, x, y, z, 2, -1) * s[x + lx * (y + ly * ((z + lz - 1) % lz))];
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
    if (sp->pmj) {
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.coupling_seed = sp->coupling_seed;
    }
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, sp->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, sp->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, sp->h), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    int8_t *mine = malloc(n), *lib = malloc(n), *eps = NULL;
    const size_t nc = n * (size_t)sp->ndim;
    if (sp->pmj) {
        /* the library's couplings are the documented draw, and both signs occur */
        eps = malloc(nc);
        float *got = malloc(nc * sizeof *got);
        spec_couplings(sp, eps, nc);
        size_t count = 0;
        int negative = 0;
        assert_int_equal(latmc_sim_couplings_size(sim, &count), LATMC_OK);
        assert_int_equal(count, nc);
        assert_int_equal(latmc_sim_get_couplings(sim, got, nc), LATMC_OK);
        for (size_t c = 0; c < nc; c++) {
            assert_true(got[c] == (float)eps[c]);
            negative += eps[c] < 0;
        }
        assert_true(negative > 0 && negative < (int)nc);
        free(got);
    }
    uint64_t rng = seed ^ 0x5eed;
    for (size_t i = 0; i < n; i++)
        mine[i] = (test_rng_next(&rng) & 1) ? 1 : -1;
    assert_int_equal(latmc_sim_set_spins(sim, mine, n), LATMC_OK);
    int differs_from_start = 0;
    for (int t = 0; t < nsweeps; t++) {
        spec_sweep(sp, mine, eps, seed, (uint64_t)t);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, lib, n), LATMC_OK);
        assert_memory_equal(mine, lib, n);
    }
    /* the energy of the definition: -J sum_x sum_mu eps s_x s_{x+mu} / N - h m */
    const int64_t lx = sp->L[0], ly = sp->L[1], lz = sp->ndim == 3 ? sp->L[2] : 1;
    int64_t bonds = 0, total = 0;
    for (int64_t z = 0; z < lz; z++)
        for (int64_t y = 0; y < ly; y++)
            for (int64_t x = 0; x < lx; x++) {
                const int s0 = mine[x + lx * (y + ly * z)];
                bonds += s0 * (spec_eps(sp, eps, x, y, z, 0, 1) * mine[(x + 1) % lx + lx * (y + ly * z)]
                             + spec_eps(sp, eps, x, y, z, 1, 1) * mine[x + lx * ((y + 1) % ly + ly * z)]);
                if (sp->ndim == 3)
                    bonds += s0 * spec_eps(sp, eps, x, y, z, 2, 1) * mine[x + lx * (y + ly * ((z + 1) % lz))];
                total += s0;
            }
    double e = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
    const double want = (-sp->J * (double)bonds - sp->h * (double)total) / (double)n;
    assert_memory_equal(&e, &want, sizeof e);
    free(eps);
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
        { 2, { 4, 4, 0 }, LATMC_ALGO_METROPOLIS, 0.44, 1.0, 0.0, 0, 0 },
        { 2, { 6, 10, 0 }, LATMC_ALGO_METROPOLIS, 0.3, 1.0, 0.1, 0, 0 },
        { 2, { 2, 8, 0 }, LATMC_ALGO_HEATBATH, 0.6, 1.0, -0.2, 0, 0 },
        { 2, { 14, 6, 0 }, LATMC_ALGO_HEATBATH, 0.44, -0.7, 0.05, 0, 0 },
        { 3, { 2, 2, 2 }, LATMC_ALGO_METROPOLIS, 0.2, 1.0, 0.1, 0, 0 },
        { 3, { 6, 4, 10 }, LATMC_ALGO_METROPOLIS, 0.22, 1.3, 0.0, 0, 0 },
        { 3, { 4, 6, 2 }, LATMC_ALGO_HEATBATH, 0.25, 1.0, 0.3, 0, 0 },
        { 3, { 10, 2, 6 }, LATMC_ALGO_HEATBATH, 0.5, -1.0, 0.0, 0, 0 },
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        compare_with_spec(&specs[i], 1000 + i, 6);
}

/* The +-J model: couplings from the documented draw, chain, energy. */
static void pmj_chain_matches_definition(void **state)
{
    (void)state;
    const struct spec specs[] = {
        { 2, { 4, 4, 0 }, LATMC_ALGO_METROPOLIS, 0.8, 1.0, 0.0, 1, 7 },
        { 2, { 6, 10, 0 }, LATMC_ALGO_METROPOLIS, 1.1, 1.0, 0.3, 1, 8 },
        { 2, { 2, 8, 0 }, LATMC_ALGO_HEATBATH, 0.6, 1.0, -0.2, 1, 9 },
        { 2, { 14, 6, 0 }, LATMC_ALGO_HEATBATH, 1.0, -0.7, 0.05, 1, UINT64_C(0xabcdef0123456789) },
        { 3, { 2, 2, 2 }, LATMC_ALGO_METROPOLIS, 0.4, 1.0, 0.1, 1, 10 },
        { 3, { 6, 4, 10 }, LATMC_ALGO_METROPOLIS, 0.9, 1.3, 0.0, 1, 11 },
        { 3, { 4, 6, 2 }, LATMC_ALGO_HEATBATH, 0.5, 1.0, 0.3, 1, 12 },
        { 3, { 10, 2, 6 }, LATMC_ALGO_HEATBATH, 1.5, -1.0, 0.0, 1, 13 },
    };
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        compare_with_spec(&specs[i], 2000 + i, 6);
}

/* One coupling_seed, one +-1 realisation: the Heisenberg model's BIMODAL couplings equal
 * the Ising model's (the same draw, doc/models/heisenberg.md). */
static void pmj_same_realisation_as_heisenberg(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(3, 6, 4, 8, LATMC_ALGO_METROPOLIS, 1, 1);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.coupling_seed = 424242;
    latmc_sim *ising = NULL, *heisenberg = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &ising), LATMC_OK);
    d.model = LATMC_MODEL_HEISENBERG;
    d.algorithm = LATMC_ALGO_DEFAULT;
    assert_int_equal(latmc_sim_create(ctx, &d, &heisenberg), LATMC_OK);
    size_t n = 0, n2 = 0;
    assert_int_equal(latmc_sim_couplings_size(ising, &n), LATMC_OK);
    assert_int_equal(latmc_sim_couplings_size(heisenberg, &n2), LATMC_OK);
    assert_int_equal(n, n2);
    float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    assert_int_equal(latmc_sim_get_couplings(ising, a, n), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(heisenberg, b, n), LATMC_OK);
    assert_memory_equal(a, b, n * sizeof *a);
    free(a);
    free(b);
    latmc_sim_destroy(&ising);
    latmc_sim_destroy(&heisenberg);
    latmc_ctx_destroy(&ctx);
}

/* Seeds with both 32-bit halves in use, and sweep numbers past 2^32. */
static void chain_matches_definition_large_counters(void **state)
{
    (void)state;
    const struct spec sp = { 2, { 8, 6, 0 }, LATMC_ALGO_METROPOLIS, 0.4, 1.0, 0.0, 0, 0 };
    compare_with_spec(&sp, UINT64_C(0xfedcba9876543210), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_matches_definition),
        cmocka_unit_test(chain_matches_definition_large_counters),
        cmocka_unit_test(pmj_chain_matches_definition),
        cmocka_unit_test(pmj_same_realisation_as_heisenberg),
    };
    return cmocka_run_group_tests_name("ising_chain", tests, NULL, NULL);
}
