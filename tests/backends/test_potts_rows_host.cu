/*
 * The fast CUDA Potts kernels' per-thread code (backends/cuda/potts/potts_rows.cuh) run on the
 * host, against the CPU reference backend, bit for bit, without a GPU: the same functions
 * the kernels call (segment loads, neighbour words, table build and lookup, proposals,
 * Philox draws by their folds and by their names, the grid-stride walk), driven by an
 * emulated grid of a few threads, for every kernel variant pr_dispatch() can pick: 2 and 3
 * colours, both segment widths of each (and the multiset heat bath's 32 bytes), 2D and 3D,
 * heat bath with every table layout (q = 2 .. 8 in 2D, 2 .. 4 in 3D) and Metropolis (q up
 * to 255), h != 0, J < 0, very low temperatures; after every colour pass of every sweep the
 * configuration and the count of changed sites must equal the CPU's.
 *
 * What this cannot check is the device itself (vector loads, shared memory, the launch):
 * the backends conformance suite does that on a GPU (tests/backends/
 * test_backend_conformance.c), with lattice shapes that reach every variant too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
extern "C" {
#include <cmocka.h>
}

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "potts_rows.cuh"
#include "potts_tables_of.h"
#include "sim_helpers.h"

/* The single-launch step's S drawing by the names instead of their folds (as the
 * ensembles' steps draw): the same draws, so the same chain. */
struct pr_step_by_name : pr_step_of_geom {
    static constexpr bool folded = false;
};

/* Runs the kernel pr_dispatch() picks for one colour pass, as `threads` emulated threads;
 * by_name: the draws by their names (pr_step_by_name), else by their folds. */
struct pr_emulator {
    uint8_t *spins;
    const struct latmc_potts_tables *tables;
    struct cuda_philox_keys keys;
    int64_t threads;
    uint64_t changed;
    const char *variant;
    bool by_name;

    template <int NDIM, int C, int NW, int NT, bool REPL, bool HI>
    int hb(const struct pr_geom &g)
    {
        static char name[96];
        snprintf(name, sizeof name, "heat bath %dD c=%d W=%d NT=%d %s%s", NDIM, C, 4 * NW, NT,
                 REPL ? "8 copies" : "1 copy", HI ? " lo+hi" : "");
        variant = name;
        const size_t bytes = pr_hb_table_bytes<NT, REPL>(NDIM, g.radix);
        std::vector<uint32_t> table(bytes / 4, 0xdeadbeefu); /* unset entries: garbage */
        const int64_t entries = pr_hb_table_entries(NDIM, g.radix);
        for (int64_t e = 0; e < entries; e++)
            pr_hb_build_entry<NDIM, NT, REPL>(g, tables, (uint32_t)e, table.data());
        for (int64_t t = 0; t < threads; t++) {
            if (by_name) {
                const pr_hb_step<NDIM, C, NW, NT, REPL, HI, pr_step_by_name> step = {
                    &g, spins, table.data(), (uint32_t)(t & 7), &keys, {} };
                changed += pr_walk(g, t, step);
            } else {
                const pr_hb_step<NDIM, C, NW, NT, REPL, HI> step = { &g, spins, table.data(),
                                                                     (uint32_t)(t & 7), &keys };
                changed += pr_walk(g, t, step);
            }
        }
        return 1;
    }

    template <int NDIM, int C, int NW> int metro(const struct pr_geom &g)
    {
        static char name[64];
        snprintf(name, sizeof name, "Metropolis %dD c=%d W=%d", NDIM, C, 4 * NW);
        variant = name;
        std::vector<uint64_t> thr(PR_METRO_ENTRIES * 16);
        for (int i = 0; i < PR_METRO_ENTRIES * 16; i++)
            thr[i] = pr_metro_entry(tables, i / 16);
        for (int64_t t = 0; t < threads; t++) {
            if (by_name) {
                const pr_metro_step<NDIM, C, NW, pr_step_by_name> step = {
                    &g, spins, thr.data(), (uint32_t)(t & 15), &keys, {} };
                changed += pr_walk(g, t, step);
            } else {
                const pr_metro_step<NDIM, C, NW> step = { &g, spins, thr.data(),
                                                          (uint32_t)(t & 15), &keys };
                changed += pr_walk(g, t, step);
            }
        }
        return 1;
    }
};

struct rows_case {
    int ndim;
    int64_t extent[3];
    int q, algorithm;
    double beta, J, h;
    uint64_t seed;
};

static int g_variants_run;

/* Sweeps of the CPU sim and of the emulated kernel from the same hot start: identical. */
static void run_case(const struct rows_case *c, int nw, int64_t threads)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(c->ndim, c->extent[0], c->extent[1], c->extent[2],
                                  c->algorithm, 1, c->seed);
    d.model = LATMC_MODEL_POTTS;
    d.q = c->q;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, c->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, c->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, c->h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);

    struct latmc_lattice lat;
    lat.ndim = c->ndim;
    lat.lx = c->extent[0];
    lat.ly = c->extent[1];
    lat.lz = c->ndim == 3 ? c->extent[2] : 1;
    lat.nsites = lat.lx * lat.ly * lat.lz;
    const int colours = latmc_potts_colours(c->ndim, c->extent);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    std::vector<uint8_t> emu(n), ref(n);
    assert_int_equal(latmc_sim_get_spins(sim, emu.data(), n), LATMC_OK);

    pr_emulator em;
    em.spins = emu.data();
    em.tables = test_potts_tables_of(sim);
    em.keys = cuda_philox_round_keys(c->seed);
    em.threads = threads;
    em.variant = "";
    for (int sweep = 0; sweep < 4; sweep++) {
        uint64_t sweep_no = 0, acc0 = 0, att = 0, acc1 = 0;
        assert_int_equal(latmc_sim_sweep_count(sim, &sweep_no), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(sim, &acc0, &att), LATMC_OK);
        em.changed = 0;
        em.by_name = sweep % 2 == 1; /* sweeps 1 and 3 by the names, 0 and 2 by the folds */
        for (int colour = 0; colour < colours; colour++) {
            struct pr_geom g;
            /* the step's name (lib/model_potts.c step_of; test_step checks they agree) */
            const struct latmc_rng_name rng =
                latmc_potts_rng_name(sweep_no, colour, c->algorithm);
            assert_true(pr_geom_init(&g, &lat, colours, nw, c->q, colour, rng, threads));
            pr_geom_fold(&g, em.keys);
            assert_int_equal(pr_dispatch(em, g, colours, nw, c->algorithm), 1);
        }
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(sim, &acc1, &att), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, ref.data(), n), LATMC_OK);
        if (memcmp(ref.data(), emu.data(), n) != 0) {
            size_t first = 0, count = 0;
            for (size_t i = n; i-- > 0;)
                if (ref[i] != emu[i]) {
                    first = i;
                    count++;
                }
            print_error("%s, q = %d, %lld x %lld x %lld, sweep %d: %zu of %zu sites differ, the "
                        "first is %zu (%d vs %d)\n", em.variant, c->q, (long long)lat.lx,
                        (long long)lat.ly, (long long)lat.lz, sweep, count, n, first, ref[first],
                        emu[first]);
        }
        assert_memory_equal(ref.data(), emu.data(), n);
        if (acc1 - acc0 != em.changed)
            print_error("%s: %llu changed, the CPU says %llu\n", em.variant,
                        (unsigned long long)em.changed, (unsigned long long)(acc1 - acc0));
        assert_true(acc1 - acc0 == em.changed);
        assert_true(sweep < 1 || em.changed > 0 || c->beta > 10); /* the chain moves */
    }
    printf("  %-44s q=%3d %4lld x %3lld x %3lld, %lld threads: identical\n", em.variant, c->q,
           (long long)lat.lx, (long long)lat.ly, (long long)lat.lz, (long long)threads);
    g_variants_run++;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Every segment width the lattice allows, each with 1 emulated thread and with a stride
 * that wraps rows and planes in odd steps. */
static void run_cases(const struct rows_case *cases, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct rows_case *c = &cases[i];
        struct latmc_lattice lat;
        lat.ndim = c->ndim;
        lat.lx = c->extent[0];
        const int colours = latmc_potts_colours(c->ndim, c->extent);
        assert_true(colours != 0);
        const int widths[2][2] = { { 4, 2 }, { 6, 3 } };
        int ran = 0;
        for (int k = 0; k < 2; k++) {
            const int nw = widths[colours - 2][k];
            if (lat.lx % (4 * nw) != 0)
                continue;
            run_case(c, nw, 1);
            run_case(c, nw, 37);
            ran = 1;
        }
        if (pr_words_hb(&lat, colours, c->algorithm, c->q) == 8) { /* the multiset's 32 bytes */
            run_case(c, 8, 1);
            run_case(c, 8, 37);
        }
        assert_true(ran); /* every case is meant for the row kernels */
    }
}

enum { METRO = LATMC_ALGO_METROPOLIS, HEATB = LATMC_ALGO_HEATBATH };

static void heat_bath_2d(void **state)
{
    (void)state;
    static const struct rows_case cases[] = {
        /* 2 colours: 48 (16-byte and 8-byte segments), 40 (8-byte only) */
        { 2, { 48, 34, 0 }, 3, HEATB, 1.005, 1, 0, 1 },
        { 2, { 40, 6, 0 }, 2, HEATB, 0.9, 1, 0.3, 2 },
        { 2, { 48, 10, 0 }, 4, HEATB, 1.1, 1, -0.2, 3 },
        { 2, { 32, 32, 0 }, 5, HEATB, 1.2, 1, 0.1, 4 },
        { 2, { 40, 14, 0 }, 7, HEATB, 1.3, -1, 0.2, 5 },
        { 2, { 64, 18, 0 }, 8, HEATB, 1.4, 1, 0, 6 },
        { 2, { 16, 2, 0 }, 8, HEATB, 0.7, 1, 0.5, 7 },
        { 2, { 48, 12, 0 }, 6, HEATB, 1.25, 1, -0.4, 12 },  /* multiset table, q = 6 */
        { 2, { 96, 10, 0 }, 7, HEATB, 1.3, 1, 0.3, 13 },    /* ... 32-byte segments, q = 7 */
        { 2, { 8, 4, 0 }, 3, HEATB, 0.5, 1, 0, 8 },
        { 2, { 32, 16, 0 }, 3, HEATB, 25.0, 1, -3.0, 9 },  /* zero weights */
        { 2, { 32, 16, 0 }, 8, HEATB, 25.0, -1, 2.5, 10 },
        { 2, { 16, 16, 0 }, 2, HEATB, 0.0, 1, 0, 11 },     /* beta = 0 */
        /* 3 colours: 48 (24- and 12-byte segments), 36 (12-byte only) */
        { 2, { 48, 45, 0 }, 3, HEATB, 1.005, 1, 0.05, 21 },
        { 2, { 36, 27, 0 }, 8, HEATB, 1.4, 1, 0, 22 },
        { 2, { 12, 9, 0 }, 4, HEATB, 1.0, -1, 0.3, 23 },
        { 2, { 24, 3, 0 }, 6, HEATB, 1.2, 1, 0.2, 24 },
        { 2, { 72, 15, 0 }, 2, HEATB, 0.8, 1, -0.1, 25 },
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void heat_bath_3d(void **state)
{
    (void)state;
    static const struct rows_case cases[] = {
        { 3, { 16, 6, 4 }, 3, HEATB, 0.55, 1, 0, 31 },
        { 3, { 24, 10, 6 }, 2, HEATB, 0.45, 1, 0.1, 32 },
        { 3, { 16, 4, 2 }, 4, HEATB, 0.6, 1, -0.1, 33 },
        { 3, { 8, 2, 2 }, 3, HEATB, 30.0, 1, 0, 34 },
        { 3, { 24, 9, 15 }, 3, HEATB, 0.55, 1, 0.05, 35 },
        { 3, { 12, 6, 9 }, 4, HEATB, 0.7, -1, 0.2, 36 },
        { 3, { 12, 3, 3 }, 2, HEATB, 0.3, 1, 0, 37 },
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
}

static void metropolis(void **state)
{
    (void)state;
    static const struct rows_case cases[] = {
        { 2, { 48, 34, 0 }, 3, METRO, 1.005, 1, 0.05, 41 },
        { 2, { 40, 6, 0 }, 2, METRO, 0.9, 1, 0.3, 42 },
        { 2, { 64, 18, 0 }, 8, METRO, 1.4, -1, 0.1, 43 },
        { 2, { 32, 8, 0 }, 200, METRO, 3.0, 1, 0.05, 44 },
        { 2, { 16, 2, 0 }, 255, METRO, 2.0, 1, 0, 45 },
        { 2, { 48, 45, 0 }, 3, METRO, 1.005, 1, 0, 46 },
        { 2, { 36, 27, 0 }, 8, METRO, 1.2, 1, 0.2, 47 },
        { 2, { 12, 9, 0 }, 255, METRO, 5.0, 1, 0.5, 48 },
        { 3, { 16, 6, 4 }, 3, METRO, 0.55, 1, 0, 51 },
        { 3, { 24, 10, 6 }, 9, METRO, 0.8, -1, 0.1, 52 },
        { 3, { 24, 9, 15 }, 3, METRO, 0.55, 1, 0.05, 53 },
        { 3, { 12, 6, 9 }, 200, METRO, 2.0, 1, 0.3, 54 },
        { 3, { 8, 2, 2 }, 4, METRO, 30.0, 1, 0, 55 },
    };
    run_cases(cases, sizeof cases / sizeof cases[0]);
    printf("%d kernel runs identical to the CPU reference\n", g_variants_run);
}

/* The multiset table's slots (2D 5 <= q <= 8, 2 colours): one per sorted tuple of four
 * states < 8, all distinct and inside the table; the table fits a block of an H200 (227 KiB). */
static void multiset_slots(void **state)
{
    (void)state;
    std::vector<int> seen(PR_SORT_SLOTS, 0);
    int tuples = 0;
    for (uint32_t a = 0; a < 8; a++)
        for (uint32_t b = a; b < 8; b++)
            for (uint32_t c = b; c < 8; c++)
                for (uint32_t d = c; d < 8; d++) {
                    const uint32_t slot = pr_sort_slot(a, b, c, d);
                    assert_true(slot < PR_SORT_SLOTS);
                    assert_int_equal(seen[slot], 0);
                    seen[slot] = 1;
                    tuples++;
                }
    assert_int_equal(tuples, 330);
    assert_true(PR_SORT_BYTES <= 227 * 1024);
    /* the word-wise sort and slot of pr_sort_slots against pr_sort_slot, both site offsets,
     * with the other sites' bytes (the low bytes of the halves) set to every state */
    uint32_t weights[4];
    pr_sort_weights(weights);
    for (uint32_t t = 0; t < 4096; t++) {
        const uint32_t v[4] = { t & 7, (t >> 3) & 7, (t >> 6) & 7, (t >> 9) & 7 };
        uint32_t s[4] = { v[0], v[1], v[2], v[3] };
        for (int i = 0; i < 4; i++)
            for (int j = i + 1; j < 4; j++)
                if (s[j] < s[i]) {
                    const uint32_t x = s[i];
                    s[i] = s[j];
                    s[j] = x;
                }
        const uint32_t want = pr_sort_slot(s[0], s[1], s[2], s[3]);
        const uint32_t junk = (t * 5) & 7;
        uint32_t got[2];
        /* OFF = 1: states in bytes 1 and 3 of l, r, u, d (w unused) */
        const uint32_t hi = 0x01000100u, lo = junk * 0x00010001u;
        pr_sort_slots<1>(0, v[0] * hi + lo, v[1] * hi + lo, v[2] * hi + lo, v[3] * hi + lo, weights,
                         got);
        assert_int_equal(got[0], want);
        assert_int_equal(got[1], want);
        /* OFF = 0: states in bytes 0 and 2 of l, u, d; x+ is bytes 1 and 3 of w */
        const uint32_t lo0 = 0x00010001u, hi0 = junk * 0x01000100u;
        pr_sort_slots<0>(v[1] * hi + lo, v[0] * lo0 + hi0, 0, v[2] * lo0 + hi0, v[3] * lo0 + hi0,
                         weights, got);
        assert_int_equal(got[0], want);
        assert_int_equal(got[1], want);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(multiset_slots),
        cmocka_unit_test(heat_bath_2d),
        cmocka_unit_test(heat_bath_3d),
        cmocka_unit_test(metropolis),
    };
    return cmocka_run_group_tests_name("potts_rows_host", tests, NULL, NULL);
}
