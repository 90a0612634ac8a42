/*
 * The Potts chain is defined by doc/models/potts.md, not by the code: this test
 * re-implements that definition from scratch (its own colouring, site loops, Philox
 * counters, decision tables and heat-bath selection, in a deliberately naive O(q) form with
 * 128-bit arithmetic) and requires the library's configuration to match it bit for bit
 * after several sweeps, for both colourings (c = 2 and c = 3), 2D and 3D, q from 2 to 255,
 * and temperatures low enough that a site's weights span far more than 2^32.
 * It also checks the documented accuracy of the heat bath's integer probabilities.
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
    int q;
    int algorithm;
    double beta, J, h;
};

static latmc_sim_desc potts_desc(const struct spec *sp, uint64_t seed)
{
    latmc_sim_desc d = ising_desc(sp->ndim, sp->L[0], sp->L[1], sp->L[2], sp->algorithm, 1, seed);
    d.model = LATMC_MODEL_POTTS;
    d.q = sp->q;
    return d;
}

/* Draw number j of (stream, sweep, phase, sub): lane j mod 4 of Philox block j / 4. */
static uint32_t draw(uint64_t seed, uint32_t stream, uint64_t sweep, uint32_t phase,
                     uint32_t sub, uint64_t j)
{
    const uint64_t block = j / 4;
    latmc_philox_ctr c = { { (uint32_t)block,
                             (uint32_t)(block >> 32) | (uint32_t)(sweep >> 32) << 16,
                             (uint32_t)sweep, stream << 24 | phase << 16 | sub } };
    latmc_philox_key k = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
    return latmc_philox4x32_10(c, k).v[j % 4];
}

/* floor(p 2^32), p clamped to [0, 1]. */
static uint64_t spec_threshold(double p)
{
    if (p <= 0)
        return 0;
    if (p >= 1)
        return UINT64_C(1) << 32;
    return (uint64_t)ldexp(p, 32);
}

static int spec_colours(const struct spec *sp)
{
    int even = 1, thirds = 1;
    for (int mu = 0; mu < sp->ndim; mu++) {
        even = even && sp->L[mu] % 2 == 0;
        thirds = thirds && sp->L[mu] % 3 == 0;
    }
    return even ? 2 : thirds ? 3 : 0;
}

/* The heat-bath weights of the q states of one site, n[k] neighbours in state k: relative
 * to the largest J n_k + h delta(k, 0), floor(2^32 exp(beta (a_k - a_max))) in
 * [0, 2^32 - 1]. */
static void spec_heatbath_weights(const struct spec *sp, const int *n, uint64_t *w)
{
    double a[256], amax = -INFINITY;
    for (int k = 0; k < sp->q; k++) {
        a[k] = sp->J * (double)n[k] + sp->h * (double)(k == 0);
        amax = a[k] > amax ? a[k] : amax;
    }
    for (int k = 0; k < sp->q; k++) {
        const double x = sp->beta * (a[k] - amax);
        if (!(x < 0)) {
            w[k] = UINT32_MAX;
        } else {
            const double v = floor(ldexp(exp(x), 32));
            w[k] = v > UINT32_MAX ? UINT32_MAX : (uint64_t)v;
        }
    }
}

/* The first k whose cumulative weight exceeds floor(u total / 2^32). */
static int spec_heatbath_pick(int q, const uint64_t *w, uint32_t u)
{
    unsigned __int128 total = 0;
    for (int k = 0; k < q; k++)
        total += w[k];
    const unsigned __int128 target = ((unsigned __int128)u * total) >> 32;
    unsigned __int128 cum = 0;
    for (int k = 0; k < q; k++) {
        cum += w[k];
        if (cum > target)
            return k;
    }
    fail_msg("heat bath picked no state");
    return -1;
}

static void spec_sweep(const struct spec *sp, uint8_t *s, uint64_t seed, uint64_t sweep)
{
    const int64_t lx = sp->L[0], ly = sp->L[1], lz = sp->ndim == 3 ? sp->L[2] : 1;
    const int c = spec_colours(sp), q = sp->q;
    for (int colour = 0; colour < c; colour++)
        for (int64_t z = 0; z < lz; z++)
            for (int64_t y = 0; y < ly; y++)
                for (int64_t x = 0; x < lx; x++) {
                    if ((x + y + z) % c != colour)
                        continue;
                    const int64_t i = x + lx * (y + ly * z);
                    const uint64_t j = (uint64_t)(i / c); /* index within the colour */
                    int64_t nbr[6] = {
                        (x + 1) % lx + lx * (y + ly * z), (x + lx - 1) % lx + lx * (y + ly * z),
                        x + lx * ((y + 1) % ly + ly * z), x + lx * ((y + ly - 1) % ly + ly * z),
                        x + lx * (y + ly * ((z + 1) % lz)), x + lx * (y + ly * ((z + lz - 1) % lz)),
                    };
                    int n[256] = { 0 };
                    for (int a = 0; a < 2 * sp->ndim; a++)
                        n[s[nbr[a]]]++;
                    if (sp->algorithm == LATMC_ALGO_METROPOLIS) {
                        const uint32_t u0 = draw(seed, 0, sweep, (uint32_t)colour, 0, j);
                        const uint32_t u1 = draw(seed, 0, sweep, (uint32_t)colour, 1, j);
                        const int old = s[i];
                        const int prop = (int)((old + 1 + (((uint64_t)u0 * (uint64_t)(q - 1)) >> 32)) % (uint64_t)q);
                        const int dn = n[prop] - n[old], dz = (prop == 0) - (old == 0);
                        const double de = -(sp->J * dn + sp->h * dz);
                        const double p = de <= 0 ? 1.0 : exp(-sp->beta * de);
                        if (u1 < spec_threshold(p))
                            s[i] = (uint8_t)prop;
                    } else {
                        const uint32_t u = draw(seed, 0, sweep, (uint32_t)colour, 0, j);
                        uint64_t w[256];
                        spec_heatbath_weights(sp, n, w);
                        s[i] = (uint8_t)spec_heatbath_pick(q, w, u);
                    }
                }
}

static void compare_with_spec(const struct spec *sp, uint64_t seed, int nsweeps, int from_hot)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = potts_desc(sp, seed);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, sp->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, sp->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, sp->h), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    uint8_t *mine = malloc(n), *lib = malloc(n), *start = malloc(n);
    assert_non_null(mine);
    assert_non_null(lib);
    assert_non_null(start);
    if (from_hot) {
        /* hot start: state floor(u q / 2^32), u = INIT draw number i, sweep 0 */
        for (size_t i = 0; i < n; i++)
            mine[i] = (uint8_t)(((uint64_t)draw(seed, 1, 0, 0, 0, i) * (uint64_t)sp->q) >> 32);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, lib, n), LATMC_OK);
        assert_memory_equal(mine, lib, n);
    } else {
        uint64_t rng = seed ^ 0x5eed;
        for (size_t i = 0; i < n; i++)
            mine[i] = (uint8_t)(test_rng_next(&rng) % (uint64_t)sp->q);
        assert_int_equal(latmc_sim_set_spins(sim, mine, n), LATMC_OK);
    }
    memcpy(start, mine, n);
    uint64_t changed_total = 0;
    for (int t = 0; t < nsweeps; t++) {
        uint8_t *before = malloc(n);
        assert_non_null(before);
        memcpy(before, mine, n);
        spec_sweep(sp, mine, seed, (uint64_t)t);
        uint64_t changed = 0;
        for (size_t i = 0; i < n; i++)
            changed += before[i] != mine[i];
        free(before);
        changed_total += changed;
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, lib, n), LATMC_OK);
        assert_memory_equal(mine, lib, n);
    }
    /* the acceptance counter counts exactly the changed sites (both rules only propose
     * or pick changes that show in the configuration, one per site at most) */
    double acc = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
    assert_true(acc == (double)changed_total / (double)(n * (size_t)nsweeps));
    assert_true(memcmp(start, mine, n) != 0); /* the chain moved: the comparison meant something */
    free(start);
    free(mine);
    free(lib);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

enum { M = LATMC_ALGO_METROPOLIS, HB = LATMC_ALGO_HEATBATH };

static const struct spec specs[] = {
    /* c = 2, 2D */
    { 2, { 4, 4, 0 }, 3, M, 1.0, 1.0, 0.0 },
    { 2, { 6, 10, 0 }, 4, HB, 0.9, 1.0, 0.2 },
    { 2, { 2, 8, 0 }, 2, M, 0.6, 1.0, -0.3 },
    { 2, { 8, 6, 0 }, 2, HB, 0.8, -1.0, 0.1 },
    { 2, { 10, 4, 0 }, 255, M, 1.2, 1.0, 0.5 },
    { 2, { 10, 4, 0 }, 255, HB, 1.2, 1.0, 0.5 },
    /* c = 3, 2D */
    { 2, { 3, 3, 0 }, 3, M, 1.0, 1.0, 0.0 },
    { 2, { 3, 3, 0 }, 3, HB, 1.0, 1.0, -0.4 },
    { 2, { 6, 9, 0 }, 5, HB, 0.7, -0.8, 0.3 },
    { 2, { 9, 3, 0 }, 7, M, 0.5, 1.5, -0.2 },
    { 2, { 12, 15, 0 }, 200, HB, 2.0, 1.0, 1.0 },
    /* 3D, both colourings */
    { 3, { 2, 2, 2 }, 3, M, 0.5, 1.0, 0.1 },
    { 3, { 4, 6, 2 }, 4, HB, 0.55, 1.0, 0.0 },
    { 3, { 3, 3, 3 }, 3, HB, 0.6, 1.0, 0.2 },
    { 3, { 6, 3, 9 }, 3, M, 0.6, -1.0, 0.0 },
    { 3, { 6, 6, 3 }, 255, HB, 0.4, 1.0, -0.5 },
    /* cold: a site's weights span far more than 2^32 (J > 0 and J < 0, with a field) */
    { 2, { 6, 6, 0 }, 8, HB, 12.0, 1.0, 0.3 },
    { 2, { 6, 6, 0 }, 3, HB, 40.0, -1.0, 0.05 },
    { 3, { 4, 4, 4 }, 10, HB, 9.0, 1.0, -0.7 },
    { 2, { 9, 6, 0 }, 4, M, 9.0, 1.0, 0.0 },
    /* beta = 0 and no interaction */
    { 2, { 4, 6, 0 }, 6, HB, 0.0, 1.0, 0.0 },
    { 2, { 4, 6, 0 }, 6, M, 0.0, 1.0, 0.0 },
    { 3, { 3, 6, 3 }, 4, HB, 1.0, 0.0, 0.7 },
};

static void chain_matches_definition_from_random(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++)
        compare_with_spec(&specs[i], 7000 + i, 5, 0);
}

static void chain_matches_definition_from_hot_start(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i += 2)
        compare_with_spec(&specs[i], 9100 + i, 3, 1);
}

/* Seeds with both 32-bit halves in use. */
static void chain_matches_definition_large_seed(void **state)
{
    (void)state;
    const struct spec m = { 2, { 6, 6, 0 }, 5, M, 0.9, 1.0, 0.1 };
    const struct spec hb = { 3, { 3, 6, 3 }, 5, HB, 0.9, 1.0, 0.1 };
    compare_with_spec(&m, UINT64_C(0xfedcba9876543210), 3, 1);
    compare_with_spec(&hb, UINT64_C(0x0123456789abcdef), 3, 1);
}

/*
 * doc/models/potts.md: the integer heat bath picks state k with a probability P_int
 * within (2 + q p_k) 2^-32 of the exact p_k = exp(beta a_k) / sum exp(beta a_k). P_int is
 * counted exactly over all 2^32 draws: k wins for the u with floor(u T / 2^32) in
 * [C_{k-1}, C_k), i.e. for ceil(C_k 2^32 / T) - ceil(C_{k-1} 2^32 / T) values of u.
 */
static void heatbath_probabilities_are_close_to_exact(void **state)
{
    (void)state;
    const struct spec sp[] = {
        { 2, { 4, 4, 0 }, 3, HB, 1.0, 1.0, 0.3 },
        { 3, { 4, 4, 4 }, 7, HB, 2.5, 1.0, -0.4 },
        { 3, { 4, 4, 4 }, 255, HB, 0.8, -1.0, 0.9 },
        { 3, { 4, 4, 4 }, 255, HB, 3.0, 1.0, 0.0 },
        { 2, { 4, 4, 4 }, 4, HB, 30.0, 1.0, 0.0 },
    };
    const int neighbourhoods[][6] = { { 0, 0, 1, 2, 0, 0 }, { 1, 1, 1, 2, 3, 0 },
                                      { 2, 2, 2, 2, 2, 2 }, { 0, 1, 2, 3, 0, 1 } };
    double worst = 0;
    for (size_t a = 0; a < sizeof sp / sizeof sp[0]; a++)
        for (size_t b = 0; b < sizeof neighbourhoods / sizeof neighbourhoods[0]; b++) {
            const int q = sp[a].q;
            int n[256] = { 0 };
            for (int i = 0; i < 2 * sp[a].ndim; i++)
                n[neighbourhoods[b][i] % q]++;
            uint64_t w[256];
            spec_heatbath_weights(&sp[a], n, w);
            double lw[256], lmax = -INFINITY, zsum = 0;
            for (int k = 0; k < q; k++) {
                lw[k] = sp[a].beta * (sp[a].J * n[k] + sp[a].h * (k == 0));
                lmax = lw[k] > lmax ? lw[k] : lmax;
            }
            for (int k = 0; k < q; k++)
                zsum += exp(lw[k] - lmax);
            unsigned __int128 total = 0, cum = 0, prev_first = 0;
            for (int k = 0; k < q; k++)
                total += w[k];
            for (int k = 0; k < q; k++) {
                cum += w[k];
                /* first u with floor(u T / 2^32) >= cum: ceil(cum 2^32 / T) */
                const unsigned __int128 first = (((cum << 32) + total - 1) / total);
                const double p_int = ldexp((double)(first - prev_first), -32);
                const double p_exact = exp(lw[k] - lmax) / zsum;
                /* the bound, with slack for T = 2^32 - 1 instead of 2^32 and for p_exact */
                const double bound = ldexp(2.0 + q * p_exact, -32) * (1.0 + 1e-6);
                const double err = fabs(p_int - p_exact);
                worst = err / bound > worst ? err / bound : worst;
                assert_true(err <= bound);
                prev_first = first;
            }
            assert_true(prev_first == (unsigned __int128)1 << 32); /* probabilities sum to 1 */
        }
    print_message("largest |P_integer - P_exact| / ((2 + q p) 2^-32) = %.3f\n", worst);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_matches_definition_from_random),
        cmocka_unit_test(chain_matches_definition_from_hot_start),
        cmocka_unit_test(chain_matches_definition_large_seed),
        cmocka_unit_test(heatbath_probabilities_are_close_to_exact),
    };
    return cmocka_run_group_tests_name("potts_chain", tests, NULL, NULL);
}
