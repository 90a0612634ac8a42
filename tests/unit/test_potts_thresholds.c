/*
 * The heat bath as thresholds on its draw (lib/potts_thresholds.h) against the heat bath
 * itself (latmc_potts_heatbath, the scan every backend runs): for every neighbourhood of
 * the lattices the CUDA table kernels serve (2D q = 2 .. 8, 3D q = 2 .. 4: all q^(2 ndim)
 * ordered neighbour tuples) and random neighbourhoods for larger q, at parameters from
 * beta = 0 to very low temperature, J < 0, strong fields of both signs (states of weight 0,
 * first and last), the lookup must pick the scan's state at u = 0, u = 2^32 - 1 and on
 * both sides of every threshold. Both are non-decreasing step functions of u, so agreement
 * there is agreement for all 2^32 draws. Plus latmc_potts_first_draw_reaching against a
 * 128-bit ceil(c 2^32 / total).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "potts_thresholds.h"
#include "sim_helpers.h"

struct point {
    double beta, J, h;
};

static const struct point points[] = {
    { 0.0, 1.0, 0.0 },    /* every weight equal */
    { 0.6, 1.0, 0.0 },
    { 1.2, 1.0, 0.3 },
    { 1.0, -1.0, 0.2 },   /* antiferromagnet */
    { 30.0, 1.0, 0.0 },   /* weights far below 2^-32 of the largest: zeros */
    { 25.0, 1.0, -3.0 },  /* state 0 suppressed: leading zero weights (base > 0) */
    { 25.0, -1.0, 2.5 },  /* state 0 favoured, others suppressed: trailing zeros */
    { 3.0, 0.5, 1.0 / 3.0 },
};

/* The sim's heat-bath tables at point p (the core builds them; a CPU sim is enough). */
static latmc_sim *make_sim(latmc_ctx *ctx, int ndim, int q, const struct point *p)
{
    latmc_sim_desc d = ising_desc(ndim, 4, 4, 4, LATMC_ALGO_HEATBATH, 1, 1);
    d.model = LATMC_MODEL_POTTS;
    d.q = q;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, p->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, p->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, p->h), LATMC_OK);
    return sim;
}

static uint64_t g_checked, g_base_nonzero, g_never;

/* Lookup == scan for neighbourhood nb at every step of either function. */
static void check_neighbourhood(const struct latmc_potts_tables *t, int q, const uint8_t *nb,
                                int n_nb)
{
    static uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    uint32_t word[LATMC_POTTS_MAX_Q + 1];
    const int n_words = q + 1; /* one word of padding: it must never count */
    latmc_potts_heatbath_thresholds(t, q, nb, n_nb, n_of, word, n_words);
    for (int i = 0; i <= LATMC_POTTS_MAX_Q; i++)
        assert_int_equal(n_of[i], 0); /* the scratch is left clean */
    assert_true(word[n_words - 1] == 0);
    g_base_nonzero += word[0] > 0;
    uint32_t probes[2 * LATMC_POTTS_MAX_Q + 4];
    int n = 0;
    probes[n++] = 0;
    probes[n++] = UINT32_MAX;
    probes[n++] = 0x80000000u;
    for (int j = 1; j < n_words; j++) {
        if (word[j] == 0) {
            g_never += j < q; /* not the padding */
            continue;
        }
        const uint32_t th = (uint32_t)((UINT64_C(1) << 32) - word[j]); /* 1 .. 2^32 - 1 */
        probes[n++] = th - 1; /* not yet past the threshold */
        probes[n++] = th;     /* past it */
    }
    for (int i = 0; i < n; i++) {
        const int want = latmc_potts_heatbath(t, q, nb, n_nb, probes[i], n_of);
        const int got = latmc_potts_heatbath_lookup(word, n_words, probes[i]);
        if (q <= 8) { /* the binary search of the CUDA tables for q <= 8 */
            uint32_t word8[8], top[4], bottom[4];
            for (int j = 0; j < 8; j++)
                word8[j] = j < n_words ? word[j] : 0;
            latmc_potts_heatbath_tree7(word8, q, top, bottom);
            const int tree = latmc_potts_heatbath_lookup_tree7(top, bottom, probes[i]);
            if (tree != want)
                print_error("q = %d, u = %u: scan %d, binary search %d\n", q, probes[i], want,
                            tree);
            assert_int_equal(tree, want);
        }
        if (want != got) {
            print_error("q = %d, neighbours", q);
            for (int a = 0; a < n_nb; a++)
                print_error(" %d", nb[a]);
            print_error(", u = %u: scan %d, lookup %d\n", probes[i], want, got);
        }
        assert_int_equal(want, got);
        g_checked++;
    }
}

/* Every ordered tuple of 2 ndim states (q^(2 ndim) of them). */
static void all_neighbourhoods(const struct latmc_potts_tables *t, int ndim, int q)
{
    const int n_nb = 2 * ndim;
    long count = 1;
    for (int a = 0; a < n_nb; a++)
        count *= q;
    for (long e = 0; e < count; e++) {
        uint8_t nb[LATMC_POTTS_MAX_NB];
        long r = e;
        for (int a = 0; a < n_nb; a++, r /= q)
            nb[a] = (uint8_t)(r % q);
        check_neighbourhood(t, q, nb, n_nb);
    }
}

static void random_neighbourhoods(const struct latmc_potts_tables *t, int ndim, int q, int count,
                                  uint64_t seed)
{
    const int n_nb = 2 * ndim;
    for (int e = 0; e < count; e++) {
        uint8_t nb[LATMC_POTTS_MAX_NB];
        const uint64_t r = test_rng_next(&seed);
        /* few distinct states, often 0 and q - 1: the interesting classes */
        for (int a = 0; a < n_nb; a++) {
            const uint64_t v = (r >> (8 * a)) & 0xff;
            nb[a] = (uint8_t)(v < 64 ? 0 : v < 128 ? (uint64_t)q - 1 : v < 160 ? 1 : v % (uint64_t)q);
        }
        check_neighbourhood(t, q, nb, n_nb);
    }
}

static void table_lattices(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++) {
        for (int q = 2; q <= 8; q++) {
            latmc_sim *sim = make_sim(ctx, 2, q, &points[p]);
            all_neighbourhoods(sim->model_data, 2, q);
            latmc_sim_destroy(&sim);
        }
        for (int q = 2; q <= 4; q++) {
            latmc_sim *sim = make_sim(ctx, 3, q, &points[p]);
            all_neighbourhoods(sim->model_data, 3, q);
            latmc_sim_destroy(&sim);
        }
    }
    printf("%llu draws checked; %llu neighbourhoods with leading zero weights; %llu thresholds "
           "never reached\n", (unsigned long long)g_checked, (unsigned long long)g_base_nonzero,
           (unsigned long long)g_never);
    /* the extreme points must really produce both kinds of zero weights */
    assert_true(g_base_nonzero > 0);
    assert_true(g_never > 0);
    latmc_ctx_destroy(&ctx);
}

static void large_q(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int qs[] = { 9, 17, 200, 255 };
    for (size_t p = 0; p < sizeof points / sizeof points[0]; p++)
        for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++)
            for (int ndim = 2; ndim <= 3; ndim++) {
                latmc_sim *sim = make_sim(ctx, ndim, qs[i], &points[p]);
                random_neighbourhoods(sim->model_data, ndim, qs[i], 300, 77 + p + 10 * i);
                latmc_sim_destroy(&sim);
            }
    latmc_ctx_destroy(&ctx);
}

/* ceil(c 2^32 / total), capped at 2^32, in 128-bit arithmetic. */
static uint64_t first_draw_reference(uint64_t c, uint64_t total)
{
    const unsigned __int128 num = (unsigned __int128)c << 32;
    unsigned __int128 t = num / total + (num % total != 0);
    return t > ((unsigned __int128)1 << 32) ? UINT64_C(1) << 32 : (uint64_t)t;
}

static void first_draw(void **state)
{
    (void)state;
    uint64_t seed = 5;
    const uint64_t max_total = UINT64_C(255) * UINT32_MAX;
    const uint64_t totals[] = { UINT32_MAX, UINT64_C(1) << 32, 3 * (uint64_t)UINT32_MAX,
                                max_total, UINT64_C(0x123456789a) };
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        const uint64_t T = totals[i];
        const uint64_t cs[] = { 1, 2, T / 2, T / 3, T - 1, T, UINT32_MAX % T + 1 };
        for (size_t j = 0; j < sizeof cs / sizeof cs[0]; j++)
            assert_true(latmc_potts_first_draw_reaching(cs[j], T) ==
                        first_draw_reference(cs[j], T));
    }
    for (int i = 0; i < 200000; i++) {
        const uint64_t T = UINT32_MAX + test_rng_next(&seed) % (max_total - UINT32_MAX + 1);
        const uint64_t c = 1 + test_rng_next(&seed) % T;
        assert_true(latmc_potts_first_draw_reaching(c, T) == first_draw_reference(c, T));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(first_draw),
        cmocka_unit_test(table_lattices),
        cmocka_unit_test(large_q),
    };
    return cmocka_run_group_tests_name("potts_thresholds", tests, NULL, NULL);
}
