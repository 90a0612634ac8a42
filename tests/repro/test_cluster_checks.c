/*
 * Cluster updates (doc/clusters.md) beyond the identity matrix's layouts
 * (tests/repro/identity: threads, boxes, recuts, checkpoints, parts over threads and MPI
 * ranks, ensemble members, each bit for bit against the one-box chain): tempering of an
 * ensemble of Swendsen-Wang members, members on a ladder of another parameter (phi^4's
 * mu2), tempering of embedded-cluster members (Heisenberg in beta, phi^4 in mu2,
 * Swendsen-Wang and Wolff) across a save and load on 1 and 3 threads, and the refusals --
 * an unknown algorithm, Potts with J < 0 (on one sim, and agreed on by every part of a
 * shared lattice), phi^4's joint parameter rule, a backend without cluster labelling, and
 * CUDA parts of a lattice shared by processes (a field refused on every part, then swept
 * without one).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_helpers.h"
#include "thread_parts.h"

static uint8_t *spins_of(latmc_sim *sim, size_t *n)
{
    assert_int_equal(latmc_sim_spins_size(sim, n), LATMC_OK);
    uint8_t *s = malloc(*n);
    assert_non_null(s);
    assert_int_equal(latmc_sim_get_spins(sim, s, *n), LATMC_OK);
    return s;
}

static latmc_sim_desc phi4_desc(int ndim, int64_t lx, int64_t ly, int64_t lz, int precision,
                                int algorithm)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = ndim;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.extent[2] = ndim == 3 ? lz : 0;
    d.precision = precision;
    d.algorithm = algorithm;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 20261123;
    return d;
}

static latmc_sim_desc heisenberg_desc(int ndim, int64_t l, int algorithm)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = ndim;
    d.extent[0] = d.extent[1] = l;
    d.extent[2] = ndim == 3 ? l : 0;
    d.replicas = 2;
    d.couplings = LATMC_COUPLINGS_GAUSSIAN;
    d.coupling_seed = 4;
    d.algorithm = algorithm;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 20261124;
    return d;
}

/* An ensemble member runs the cluster chain of a sim of its own desc (also the identity
 * matrix's ens rows), and tempering exchanges the members' temperatures as for any
 * algorithm. */
static void ensembles(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(2, 16, 16, 0, LATMC_ALGO_SWENDSEN_WANG, 1, 0);
    latmc_ens_layout layout;
    latmc_ens_layout_init(&layout);
    layout.n_temperatures = 4;
    layout.seed = 99;
    layout.n_threads = 2;
    latmc_ens *ens = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &layout, &ens), LATMC_OK);
    const double betas[4] = { 0.38, 0.42, 0.44, 0.47 };
    assert_int_equal(latmc_ens_set_temperatures(ens, betas, 4), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(ens, LATMC_INIT_HOT), LATMC_OK);
    /* no exchanges: each member is the sim of its desc */
    uint8_t start[256], got[256], want[256];
    assert_int_equal(latmc_ens_get_spins(ens, 2, start, sizeof start), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(ens, 10), LATMC_OK);
    assert_int_equal(latmc_ens_get_spins(ens, 2, got, sizeof got), LATMC_OK);
    latmc_sim_desc md;
    latmc_sim_desc_init(&md);
    assert_int_equal(latmc_ens_member_desc(ens, 2, &md), LATMC_OK);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &md, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[2]), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(sim, start, sizeof start), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 10), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, want, sizeof want), LATMC_OK);
    assert_memory_equal(got, want, sizeof got);
    latmc_sim_destroy(&sim);
    /* tempering */
    assert_int_equal(latmc_ens_set_exchange(ens, 2), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(ens, 200), LATMC_OK);
    uint64_t accepted[3] = { 0 }, attempted[3] = { 0 };
    assert_int_equal(latmc_ens_exchange_counts(ens, accepted, attempted, 3), LATMC_OK);
    printf("ensemble of 4 SW members, exchanges every 2 sweeps: %llu/%llu, %llu/%llu, "
           "%llu/%llu accepted\n", (unsigned long long)accepted[0],
           (unsigned long long)attempted[0], (unsigned long long)accepted[1],
           (unsigned long long)attempted[1], (unsigned long long)accepted[2],
           (unsigned long long)attempted[2]);
    assert_true(attempted[0] > 0 && accepted[0] > 0);
    latmc_ens_destroy(&ens);
    latmc_ctx_destroy(&ctx);
}

/* Ensemble members (a mu2 ladder of phi^4) run their own sims' chains. */
static void ensemble_members(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const latmc_sim_desc member = phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE,
                                            LATMC_ALGO_SWENDSEN_WANG);
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_temperatures = 2;
    l.seed = 31;
    l.n_threads = 2;
    latmc_ens *ens = NULL;
    assert_int_equal(latmc_ens_create(ctx, &member, &l, &ens), LATMC_OK);
    const double mu2[2] = { -0.9, -0.5 };
    assert_int_equal(latmc_ens_set_ladder(ens, LATMC_PARAM_MU2, mu2, 2), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(ens, LATMC_PARAM_G, 1.0), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(ens, LATMC_PARAM_LAMBDA, 1.0), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(ens, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(ens, 6), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_ens_spins_size(ens, &n), LATMC_OK);
    uint8_t *got = malloc(n);
    assert_non_null(got);
    for (int m = 0; m < 2; m++) {
        latmc_sim_desc d;
        assert_int_equal(latmc_ens_member_desc(ens, m, &d), LATMC_OK);
        latmc_sim *alone = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &alone), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(alone, LATMC_PARAM_MU2, mu2[m]), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(alone, LATMC_PARAM_G, 1.0), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(alone, LATMC_PARAM_LAMBDA, 1.0), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(alone, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(alone, 6), LATMC_OK);
        uint8_t *want = spins_of(alone, &n);
        assert_int_equal(latmc_ens_get_spins(ens, m, got, n), LATMC_OK);
        assert_memory_equal(got, want, n);
        free(want);
        latmc_sim_destroy(&alone);
    }
    printf("ensemble members: identical to their own sims\n");
    free(got);
    latmc_ens_destroy(&ens);
    latmc_ctx_destroy(&ctx);
}


/*
 * Tempering of embedded-cluster members: a Heisenberg beta ladder and a phi^4 mu2 ladder,
 * Swendsen-Wang and Wolff, an exchange round after every sweep. Each case runs three
 * times: 1 thread straight through, and 1 and 3 threads with a save and load between two
 * sweep calls (a file in a directory of its own, removed). The members' configurations,
 * the temperature of every member, the exchange and round-trip statistics and the sweep
 * count are the same in the three runs; the map when saved is not the home one and the
 * load gives it back (so a load that dropped the map, its statistics or the interval fails
 * here twice: at the load and in the runs' comparison); swaps were accepted in every pair
 * of temperatures, and every member's configuration moved. 16 members of 32 x 64 sites:
 * 32768 site updates a sweep, the least that the ensemble runs on a team of threads
 * (ENS_OMP_MIN_ITEMS, lib/ens_exec.c), so the 3-thread runs do sweep on 3 threads.
 */
enum { TEMPER_NT = 4, TEMPER_FIRST = 9, TEMPER_SECOND = 11 };

struct temper_case {
    const char *name;
    latmc_sim_desc member;
    latmc_ens_layout layout;
    int ladder_key;
    double ladder[TEMPER_NT];
    double lambda; /* phi^4: set with g = 1 (0: Lambda left at its default, infinity) */
};

struct temper_run {
    int n_members;
    size_t bytes;     /* one member's configuration */
    uint8_t *start;   /* every member's after the hot start */
    uint8_t *spins;   /* every member's at the end */
    int *temp_of;     /* every member's temperature index at the end */
    uint64_t accepted[TEMPER_NT - 1], attempted[TEMPER_NT - 1], trips, sweeps;
    double trip_sweeps;
};

static void temper_map(latmc_ens *e, int M, int *temp_of)
{
    for (int m = 0; m < M; m++)
        assert_int_equal(latmc_ens_temperature_of(e, m, &temp_of[m]), LATMC_OK);
}

static void temper_run(latmc_ctx *ctx, const struct temper_case *c, int n_threads,
                       bool save_mid, struct temper_run *out)
{
    latmc_ens_layout l = c->layout;
    l.n_threads = n_threads;
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &c->member, &l, &e), LATMC_OK);
    if (c->member.model == LATMC_MODEL_PHI4) {
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
        if (c->lambda > 0)
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_LAMBDA, c->lambda), LATMC_OK);
    }
    assert_int_equal(latmc_ens_set_ladder(e, c->ladder_key, c->ladder, TEMPER_NT), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    const int M = l.n_samples * l.n_temperatures * l.n_replicas;
    size_t n = 0;
    assert_int_equal(latmc_ens_spins_size(e, &n), LATMC_OK);
    out->n_members = M;
    out->bytes = n;
    out->start = malloc((size_t)M * n);
    out->spins = malloc((size_t)M * n);
    out->temp_of = malloc((size_t)M * sizeof *out->temp_of);
    assert_true(out->start && out->spins && out->temp_of);
    for (int m = 0; m < M; m++)
        assert_int_equal(latmc_ens_get_spins(e, m, out->start + (size_t)m * n, n), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, TEMPER_FIRST), LATMC_OK);
    if (save_mid) {
        /* what the file must give back: the map (not the home one, so that a load which
         * dropped it would show), the statistics, the interval and the ladder */
        int before[64];
        assert_true(M <= 64);
        temper_map(e, M, before);
        bool away = false;
        for (int m = 0; m < M; m++)
            away = away || before[m] != (m / l.n_replicas) % l.n_temperatures;
        assert_true(away);
        uint64_t acc[TEMPER_NT - 1], att[TEMPER_NT - 1];
        assert_int_equal(latmc_ens_exchange_counts(e, acc, att, TEMPER_NT - 1), LATMC_OK);
        char dir[] = "/tmp/latmc-cluster-temper-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char path[sizeof dir + 16];
        snprintf(path, sizeof path, "%s/ens.latmc", dir);
        assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
        latmc_ens_destroy(&e);
        const int st = latmc_ens_load(ctx, path, &e);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
        assert_int_equal(st, LATMC_OK);
        int after[64];
        temper_map(e, M, after);
        assert_memory_equal(before, after, (size_t)M * sizeof *before);
        uint64_t acc2[TEMPER_NT - 1], att2[TEMPER_NT - 1], every = 0;
        assert_int_equal(latmc_ens_exchange_counts(e, acc2, att2, TEMPER_NT - 1), LATMC_OK);
        assert_memory_equal(acc, acc2, sizeof acc);
        assert_memory_equal(att, att2, sizeof att);
        assert_int_equal(latmc_ens_get_exchange(e, &every), LATMC_OK);
        assert_int_equal(every, 1);
        int key = 0;
        double values[TEMPER_NT];
        assert_int_equal(latmc_ens_get_ladder(e, &key, values, TEMPER_NT), LATMC_OK);
        assert_int_equal(key, c->ladder_key);
        assert_memory_equal(values, c->ladder, sizeof values);
        latmc_ens_layout got;
        latmc_ens_layout_init(&got);
        assert_int_equal(latmc_ens_get_layout(e, &got), LATMC_OK);
        assert_int_equal(got.n_threads, n_threads);
    }
    assert_int_equal(latmc_ens_sweep(e, TEMPER_SECOND), LATMC_OK);
    for (int m = 0; m < M; m++)
        assert_int_equal(latmc_ens_get_spins(e, m, out->spins + (size_t)m * n, n), LATMC_OK);
    temper_map(e, M, out->temp_of);
    assert_int_equal(latmc_ens_exchange_counts(e, out->accepted, out->attempted, TEMPER_NT - 1),
                     LATMC_OK);
    assert_int_equal(latmc_ens_round_trips(e, &out->trips, &out->trip_sweeps), LATMC_OK);
    assert_int_equal(latmc_ens_sweep_count(e, &out->sweeps), LATMC_OK);
    latmc_ens_destroy(&e);
}

static void temper_run_free(struct temper_run *r)
{
    free(r->start);
    free(r->spins);
    free(r->temp_of);
}

static void tempering_embedded(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    struct temper_case cases[4];
    for (int k = 0; k < 4; k++) {
        struct temper_case *c = &cases[k];
        memset(c, 0, sizeof *c);
        const int algo = k % 2 == 0 ? LATMC_ALGO_SWENDSEN_WANG : LATMC_ALGO_WOLFF;
        latmc_ens_layout_init(&c->layout);
        c->layout.n_temperatures = TEMPER_NT;
        c->layout.seed = 1201 + (uint64_t)k;
        if (k < 2) { /* Heisenberg, Gaussian couplings: 2 samples of 2 replicas */
            c->name = algo == LATMC_ALGO_WOLFF ? "Heisenberg Wolff" : "Heisenberg SW";
            c->member = heisenberg_desc(2, 32, algo);
            c->member.extent[1] = 64;
            c->member.replicas = 1;
            c->layout.n_samples = 2;
            c->layout.n_replicas = 2;
            c->layout.coupling_seed = 17;
            c->ladder_key = LATMC_PARAM_BETA;
            const double beta[TEMPER_NT] = { 0.6, 0.64, 0.68, 0.72 };
            memcpy(c->ladder, beta, sizeof beta);
        } else { /* phi^4, 4 samples; Swendsen-Wang at Lambda = 1 (the pairs beyond the
                    nearest neighbours), Wolff at Lambda = inf */
            c->name = algo == LATMC_ALGO_WOLFF ? "phi^4 Wolff" : "phi^4 SW";
            c->member = phi4_desc(2, 32, 64, 0, LATMC_PRECISION_DOUBLE, algo);
            c->layout.n_samples = 4;
            c->ladder_key = LATMC_PARAM_MU2;
            const double mu2[TEMPER_NT] = { -1.0, -0.9, -0.8, -0.7 };
            memcpy(c->ladder, mu2, sizeof mu2);
            c->lambda = algo == LATMC_ALGO_SWENDSEN_WANG ? 1.0 : 0.0;
        }
    }
    for (int k = 0; k < 4; k++) {
        const struct temper_case *c = &cases[k];
        struct temper_run r[3]; /* 1 thread straight; 1 and 3 threads saved and loaded */
        temper_run(ctx, c, 1, false, &r[0]);
        temper_run(ctx, c, 1, true, &r[1]);
        temper_run(ctx, c, 3, true, &r[2]);
        const int M = r[0].n_members;
        const size_t n = r[0].bytes;
        for (int j = 1; j < 3; j++) {
            assert_int_equal(r[j].n_members, M);
            assert_memory_equal(r[j].start, r[0].start, (size_t)M * n);
            assert_memory_equal(r[j].spins, r[0].spins, (size_t)M * n);
            assert_memory_equal(r[j].temp_of, r[0].temp_of, (size_t)M * sizeof *r[0].temp_of);
            assert_memory_equal(r[j].accepted, r[0].accepted, sizeof r[0].accepted);
            assert_memory_equal(r[j].attempted, r[0].attempted, sizeof r[0].attempted);
            assert_int_equal(r[j].trips, r[0].trips);
            assert_memory_equal(&r[j].trip_sweeps, &r[0].trip_sweeps, sizeof(double));
            assert_int_equal(r[j].sweeps, r[0].sweeps);
        }
        /* not vacuous: swaps accepted in every pair, every member's configuration moved */
        assert_int_equal(r[0].sweeps, TEMPER_FIRST + TEMPER_SECOND);
        for (int t = 0; t < TEMPER_NT - 1; t++)
            assert_true(r[0].accepted[t] > 0 && r[0].accepted[t] <= r[0].attempted[t]);
        for (int m = 0; m < M; m++)
            assert_memory_not_equal(r[0].spins + (size_t)m * n, r[0].start + (size_t)m * n, n);
        printf("tempering %s members (%d), a round every sweep, saved and loaded: 1 = 3 "
               "threads = no file; accepted %llu/%llu, %llu/%llu, %llu/%llu\n", c->name, M,
               (unsigned long long)r[0].accepted[0], (unsigned long long)r[0].attempted[0],
               (unsigned long long)r[0].accepted[1], (unsigned long long)r[0].attempted[1],
               (unsigned long long)r[0].accepted[2], (unsigned long long)r[0].attempted[2]);
        for (int j = 0; j < 3; j++)
            temper_run_free(&r[j]);
    }
    latmc_ctx_destroy(&ctx);
}


/* An ensemble of 2 samples x 4 temperatures of desc d's members (d.device = CUDA, 64
 * sites) against the same ensemble on the CPU: every member's configuration, energy and
 * cluster count, and the exchanges, equal after tempering with a round every 2 sweeps and a
 * field set between the calls. */
static void cuda_cluster_ensemble(latmc_ctx *ctx, const latmc_sim_desc *d, int algorithm)
{
    latmc_ens_layout layout;
    latmc_ens_layout_init(&layout);
    layout.n_samples = 2;
    layout.n_temperatures = 4;
    layout.seed = 7;
    latmc_ens *e[2] = { NULL, NULL };
    const double betas[4] = { 0.3, 0.38, 0.44, 0.5 };
    for (int k = 0; k < 2; k++) {
        latmc_sim_desc m = *d;
        m.algorithm = algorithm;
        m.device = k == 0 ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
        assert_int_equal(latmc_ens_create(ctx, &m, &layout, &e[k]), LATMC_OK);
        assert_int_equal(latmc_ens_set_temperatures(e[k], betas, 4), LATMC_OK);
        assert_int_equal(latmc_ens_set_exchange(e[k], 2), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(e[k], LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e[k], 7), LATMC_OK);
        assert_int_equal(latmc_ens_set_param(e[k], LATMC_PARAM_H, 0.05), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e[k], 6), LATMC_OK);
    }
    uint8_t a[64], b[64];
    for (int mbr = 0; mbr < 8; mbr++) {
        assert_int_equal(latmc_ens_get_spins(e[0], mbr, a, sizeof a), LATMC_OK);
        assert_int_equal(latmc_ens_get_spins(e[1], mbr, b, sizeof b), LATMC_OK);
        assert_memory_equal(a, b, sizeof a);
    }
    double va[8], vb[8];
    const int keys[2] = { LATMC_OBS_ENERGY, LATMC_OBS_CLUSTERS };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_ens_observables(e[0], keys[k], LATMC_ENS_BY_MEMBER, va, 8),
                         LATMC_OK);
        assert_int_equal(latmc_ens_observables(e[1], keys[k], LATMC_ENS_BY_MEMBER, vb, 8),
                         LATMC_OK);
        assert_memory_equal(va, vb, sizeof va);
    }
    uint64_t acc[2][3], att[2][3];
    for (int k = 0; k < 2; k++)
        assert_int_equal(latmc_ens_exchange_counts(e[k], acc[k], att[k], 3), LATMC_OK);
    assert_memory_equal(acc[0], acc[1], sizeof acc[0]);
    assert_memory_equal(att[0], att[1], sizeof att[0]);
    assert_true(att[0][0] > 0);
    latmc_ens_destroy(&e[0]);
    latmc_ens_destroy(&e[1]);
}
static void refusals_ising_potts(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    /* (phi^4 and Heisenberg: refusals_embedded) */
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, LATMC_ALGO_SWENDSEN_WANG, 1, 1);
    d.algorithm = 6; /* past the last algorithm */
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EINVAL);

    /* the antiferromagnetic Potts model has no FK clusters */
    d = ising_desc(2, 6, 6, 0, LATMC_ALGO_SWENDSEN_WANG, 1, 1);
    d.model = LATMC_MODEL_POTTS;
    d.q = 3;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.5), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, -1.0), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_EUNSUPPORTED);
    assert_non_null(strstr(latmc_sim_last_error(sim), "J >= 0"));
    uint64_t accepted = 1, attempted = 1;
    assert_int_equal(latmc_sim_acceptance_counts(sim, &accepted, &attempted), LATMC_OK);
    assert_true(accepted == 0 && attempted == 0); /* nothing ran */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, 1.0), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    latmc_sim_destroy(&sim);

    /* CUDA runs Swendsen-Wang and Wolff of Ising (uniform or +-J couplings) and Potts
     * sims, one box, any field (the identity matrix compares its chains, and its cluster
     * observables, with the CPU's); it refuses the rest at creation */
    d = ising_desc(2, 8, 8, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.device = LATMC_DEVICE_CUDA;
    if (latmc_sim_create(ctx, &d, &sim) == LATMC_OK) {
        latmc_sim_destroy(&sim);
        d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cuda");
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), LATMC_OK);
        double v = 0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_ESTATE);
        assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_OK);
        assert_true(v >= 1.0 && v <= 64.0 && v == (double)(int64_t)v);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK); /* in a field too */
        uint64_t sweeps = 0;
        assert_int_equal(latmc_sim_sweep_count(sim, &sweeps), LATMC_OK);
        assert_true(sweeps == 3);
        latmc_sim_destroy(&sim);
        /* Wolff: the updates attempted are its clusters' sites (counted on the device),
         * every one flipped without a field */
        d.algorithm = LATMC_ALGO_WOLFF;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cuda");
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 5), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(sim, &accepted, &attempted), LATMC_OK);
        assert_true(attempted >= 5 && attempted <= 5 * 64 && accepted == attempted);
        /* the last cluster, counted from the labels, is the last sweep's attempts (counted
         * by its flip) */
        assert_int_equal(latmc_sim_reset_acceptance(sim), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(sim, &accepted, &attempted), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_LARGEST_CLUSTER, &v), LATMC_OK);
        assert_true(v * 64.0 == (double)attempted);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTER_M2, &v), LATMC_OK);
        assert_true(v * 64.0 == (double)attempted);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_OK);
        assert_true(v == 1.0);
        latmc_sim_destroy(&sim);
        d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
        /* Potts: its sweeps; J < 0 at beta > 0 (no Fortuin-Kasteleyn clusters) refused at
         * the sweep, running nothing; a field runs */
        latmc_sim_desc pd = ising_desc(2, 12, 12, 0, LATMC_ALGO_SWENDSEN_WANG, 1, 1);
        pd.device = LATMC_DEVICE_CUDA;
        pd.model = LATMC_MODEL_POTTS;
        pd.q = 3;
        assert_int_equal(latmc_sim_create(ctx, &pd, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        /* beta > 0: the refusal of J < 0 is of K = beta J < 0 (beta's default is 0) */
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.5), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, -1.0), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_sim_last_error(sim), "J >= 0"));
        assert_int_equal(latmc_sim_sweep_count(sim, &sweeps), LATMC_OK);
        assert_true(sweeps == 2); /* the refused call ran nothing */
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, 1.0), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        latmc_sim_destroy(&sim);
        /* boxes on the GPU (their labels joined across the faces, in a field with the
         * pieces' sums; the identity matrix compares the chains and the cluster
         * observables with the CPU's): sweeps run, in a field too, and the clusters are
         * counted */
        d.n_parts = 3;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_ESTATE);
        assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_OK);
        assert_true(v >= 1.0 && v <= 64.0 && v == (double)(int64_t)v);
        double largest = 0, m2 = 0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_LARGEST_CLUSTER, &largest),
                         LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTER_M2, &m2), LATMC_OK);
        /* sum of squared sizes of v clusters of 64 sites, the largest L: between
         * 64^2 / v and L 64 */
        assert_true(largest > 0.0 && largest <= 1.0 && m2 * v >= 1.0 - 1e-12 &&
                    m2 <= largest + 1e-12);
        latmc_sim_destroy(&sim);
        d.n_parts = 0;
        /* Wolff on boxes (Ising uniform and +-J, Potts): sweeps run (the identity matrix
         * compares the chains), in a field too; the last cluster, counted on the boxes,
         * is the last sweep's attempts */
        struct {
            int model, couplings, n_parts;
        } boxes[] = {
            { LATMC_MODEL_ISING, LATMC_COUPLINGS_UNIFORM, 2 },
            { LATMC_MODEL_POTTS, LATMC_COUPLINGS_UNIFORM, 3 },
            { LATMC_MODEL_ISING, LATMC_COUPLINGS_BIMODAL, 2 },
        };
        for (size_t k = 0; k < sizeof boxes / sizeof boxes[0]; k++) {
            latmc_sim_desc r = ising_desc(2, 12, 12, 0, LATMC_ALGO_WOLFF, 1, 1);
            r.device = LATMC_DEVICE_CUDA;
            r.model = boxes[k].model;
            r.q = boxes[k].model == LATMC_MODEL_POTTS ? 3 : 0;
            r.couplings = boxes[k].couplings;
            r.n_parts = boxes[k].n_parts;
            assert_int_equal(latmc_sim_create(ctx, &r, &sim), LATMC_OK);
            assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.1), LATMC_OK);
            assert_int_equal(latmc_sim_reset_acceptance(sim), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
            assert_int_equal(latmc_sim_acceptance_counts(sim, &accepted, &attempted), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_LARGEST_CLUSTER, &v),
                             LATMC_OK);
            assert_true(v * 144.0 == (double)attempted && attempted >= 1);
            latmc_sim_destroy(&sim);
        }
        /* ensembles of CUDA Swendsen-Wang and Wolff members: run member by member on the
         * GPU, the CPU ensemble's chain (tempering, a field set between the calls) */
        cuda_cluster_ensemble(ctx, &d, LATMC_ALGO_SWENDSEN_WANG);
        cuda_cluster_ensemble(ctx, &d, LATMC_ALGO_WOLFF);
        /* and Potts q = 3 members, which the module's Potts batch must leave to the one by
         * one path too (its launches and its measurement are the local updates') */
        latmc_sim_desc potts8 = d;
        potts8.model = LATMC_MODEL_POTTS;
        potts8.q = 3;
        cuda_cluster_ensemble(ctx, &potts8, LATMC_ALGO_SWENDSEN_WANG);
        latmc_ens_layout layout;
        latmc_ens_layout_init(&layout);
        layout.n_temperatures = 2;
        latmc_ens *ens = NULL;
        /* AUTO takes the GPU for one box and for several (any field); the CPU for the
         * members of ensembles: the same chains */
        d.device = LATMC_DEVICE_AUTO;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cuda");
        latmc_sim_destroy(&sim);
        latmc_sim_desc w = d;
        for (int k = 0; k < 2; k++) {
            w.algorithm = k == 0 ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG;
            w.n_parts = 2;
            assert_int_equal(latmc_sim_create(ctx, &w, &sim), LATMC_OK);
            assert_string_equal(latmc_sim_backend_name(sim), "cuda");
            latmc_sim_destroy(&sim);
        }
        assert_int_equal(latmc_ens_create(ctx, &d, &layout, &ens), LATMC_OK);
        const double betas[2] = { 0.3, 0.4 };
        assert_int_equal(latmc_ens_set_temperatures(ens, betas, 2), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(ens, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(ens, 2), LATMC_OK);
        char dir[] = "/tmp/latmc-cluster-auto-XXXXXX";
        assert_non_null(mkdtemp(dir));
        char path[sizeof dir + 16];
        snprintf(path, sizeof path, "%s/ens.latmc", dir);
        assert_int_equal(latmc_ens_save(ens, path), LATMC_OK);
        latmc_ens *back = NULL;
        assert_int_equal(latmc_ens_load(ctx, path, &back), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(back, 1), LATMC_OK);
        latmc_ens_destroy(&back);
        assert_int_equal(unlink(path), 0);
        assert_int_equal(rmdir(dir), 0);
        latmc_ens_destroy(&ens);
    } else {
        printf("no CUDA backend here: its cluster steps and refusals not checked\n");
    }
    latmc_ctx_destroy(&ctx);
}

/* Potts with J < 0 on a lattice shared by parts: every part refuses the sweep with the
 * same status, none is left waiting, and nothing ran. */
static void antiferro_part(int rank, int n, const latmc_transport *t, void *arg)
{
    int *status = arg;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = ising_desc(2, 8, 12, 0, LATMC_ALGO_SWENDSEN_WANG, 1, 1);
    d.model = LATMC_MODEL_POTTS;
    d.q = 3;
    d.device = LATMC_DEVICE_CPU;
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK)
        st = latmc_sim_create_part(ctx, &d, rank, n, t, &sim);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.5);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_J, -1.0);
    if (st == LATMC_OK) {
        st = latmc_sim_sweep(sim, 1);
        uint64_t sweeps = 1;
        latmc_sim_sweep_count(sim, &sweeps);
        if (st == LATMC_EUNSUPPORTED && (sweeps != 0 ||
                                         !strstr(latmc_sim_last_error(sim), "J >= 0")))
            st = LATMC_EBACKEND; /* refused, but not as expected */
    }
    status[rank] = st;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* CUDA parts of a lattice shared by processes, Swendsen-Wang and Wolff: swept in a field
 * (the pieces' sums joined across the parts with their names) and without one; the
 * cluster observables answered on every part. status[rank]: LATMC_OK where all went as
 * expected, 77 without a CUDA backend. (The chains and the observables' values: the
 * identity matrix's cuda,parts and mpi,cuda rows, test_cluster_stats_parts cuda.) */
static void cuda_cluster_part(int rank, int n, const latmc_transport *t, void *arg)
{
    int *status = arg;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = ising_desc(2, 8, 12, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.device = LATMC_DEVICE_CUDA;
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK && latmc_sim_create(ctx, &d, &sim) != LATMC_OK)
        st = 77;
    latmc_sim_destroy(&sim);
    const int algorithms[2] = { LATMC_ALGO_SWENDSEN_WANG, LATMC_ALGO_WOLFF };
    for (int a = 0; a < 2 && st == LATMC_OK; a++) {
        d.algorithm = algorithms[a];
        st = latmc_sim_create_part(ctx, &d, rank, n, t, &sim);
        if (st == LATMC_OK)
            st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
        if (st == LATMC_OK)
            st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4);
        if (st == LATMC_OK)
            st = latmc_sim_set_param(sim, LATMC_PARAM_H, 0.1);
        if (st == LATMC_OK && (st = latmc_sim_sweep(sim, 2)) != LATMC_OK)
            printf("part %d, algorithm %d in a field: status %d (%s)\n", rank, d.algorithm,
                   st, latmc_last_error());
        if (st == LATMC_OK)
            st = latmc_sim_set_param(sim, LATMC_PARAM_H, 0.0);
        if (st == LATMC_OK && (st = latmc_sim_sweep(sim, 2)) != LATMC_OK)
            printf("part %d, algorithm %d without a field: status %d (%s)\n", rank,
                   d.algorithm, st, latmc_last_error());
        uint64_t sweeps = 0;
        if (st == LATMC_OK && (latmc_sim_sweep_count(sim, &sweeps) != LATMC_OK || sweeps != 4))
            st = LATMC_EBACKEND;
        double v = 0;
        if (st == LATMC_OK && (latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v) != LATMC_OK ||
                               v < 1.0)) {
            printf("part %d, algorithm %d: no cluster count (%s)\n", rank, d.algorithm,
                   latmc_last_error());
            st = LATMC_EBACKEND;
        }
        latmc_sim_destroy(&sim);
    }
    status[rank] = st;
    latmc_ctx_destroy(&ctx);
}

/* A Heisenberg Swendsen-Wang part under device AUTO takes the CPU (each rank resolves AUTO
 * alone, and CPU and GPU parts join clusters through different collectives), though AUTO
 * takes the GPU for the same sim in one process (refusals_embedded); and sweeps there.
 * status[rank]: LATMC_OK where all went as expected, 77 without a CUDA backend. */
static void auto_embedded_part(int rank, int n, const latmc_transport *t, void *arg)
{
    int *status = arg;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = heisenberg_desc(2, 32, LATMC_ALGO_SWENDSEN_WANG);
    d.device = LATMC_DEVICE_CUDA;
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK && latmc_sim_create(ctx, &d, &sim) != LATMC_OK)
        st = 77;
    latmc_sim_destroy(&sim);
    d.device = LATMC_DEVICE_AUTO;
    if (st == LATMC_OK)
        st = latmc_sim_create_part(ctx, &d, rank, n, t, &sim);
    if (st == LATMC_OK && strcmp(latmc_sim_backend_name(sim), "cpu") != 0) {
        printf("part %d under AUTO: backend %s, not the CPU\n", rank,
               latmc_sim_backend_name(sim));
        st = LATMC_EBACKEND;
    }
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, 2);
    status[rank] = st;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void refusals_parts(void **state)
{
    (void)state;
    int status[3] = { 1, 1, 1 };
    void *args[3] = { status, status, status };
    assert_int_equal(thread_parts_run(3, NULL, antiferro_part, args, NULL), 0);
    for (int p = 0; p < 3; p++)
        assert_int_equal(status[p], LATMC_EUNSUPPORTED);
    int cuda[2] = { 1, 1 };
    void *cuda_args[2] = { cuda, cuda };
    assert_int_equal(thread_parts_run(2, NULL, cuda_cluster_part, cuda_args, NULL), 0);
    if (cuda[0] == 77) {
        printf("no CUDA backend here: its clusters on parts not checked\n");
        return;
    }
    for (int p = 0; p < 2; p++)
        assert_int_equal(cuda[p], LATMC_OK);
    int autos[2] = { 1, 1 };
    void *auto_args[2] = { autos, autos };
    assert_int_equal(thread_parts_run(2, NULL, auto_embedded_part, auto_args, NULL), 0);
    for (int p = 0; p < 2; p++)
        assert_int_equal(autos[p], autos[0] == 77 ? 77 : LATMC_OK);
}

static void refusals_embedded(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    /* phi^4's joint rule (g = 0 needs mu2 > 0) holds for the cluster algorithms too */
    latmc_sim_desc d = phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE, LATMC_ALGO_WOLFF);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_ESTATE);
    double v = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_ESTATE);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, 0.5), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_OK);
    assert_true(v == 1.0);
    latmc_sim_destroy(&sim);

    /* CUDA: the GPU's local passes and the cluster step (their chain bit for bit:
     * tests/unit/test_cluster_embed.c, the identity matrix's embedded rows); AUTO takes
     * the GPU for Heisenberg (its step on the device in every field, one box or boxes of
     * one process; parts: refusals_parts) and for phi^4 on one box (its step on the
     * device for every Lambda), and keeps phi^4 on boxes on the CPU (the boxes' device
     * step needs Lambda = inf, the default but a parameter that may change after
     * creation) */
    const int models[] = { LATMC_MODEL_PHI4, LATMC_MODEL_HEISENBERG };
    for (int k = 0; k < 2; k++) {
        d = k == 0 ? phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE, LATMC_ALGO_METROPOLIS)
                   : heisenberg_desc(2, 8, LATMC_ALGO_HEATBATH);
        assert_int_equal(d.model, models[k]);
        d.device = LATMC_DEVICE_CUDA;
        if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK) {
            printf("no CUDA backend here: its embedded cluster sims not checked\n");
            continue;
        }
        latmc_sim_destroy(&sim);
        d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cuda");
        if (k == 0)
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, 0.5), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_OK);
        assert_true(v >= 1.0);
        latmc_sim_destroy(&sim);
        d.device = LATMC_DEVICE_AUTO; /* phi^4: the GPU for one box, the CPU for boxes;
                                         Heisenberg: the GPU */
        d.extent[0] = d.extent[1] = 32; /* two boxes of 16 planes */
        for (int parts = 0; parts <= 2; parts += 2) {
            d.n_parts = parts;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_string_equal(latmc_sim_backend_name(sim),
                                k == 0 && parts > 1 ? "cpu" : "cuda");
            latmc_sim_destroy(&sim);
        }
        d.n_parts = 0;
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ensembles),
        cmocka_unit_test(ensemble_members),
        cmocka_unit_test(tempering_embedded),
        cmocka_unit_test(refusals_ising_potts),
        cmocka_unit_test(refusals_parts),
        cmocka_unit_test(refusals_embedded),
    };
    return cmocka_run_group_tests_name("cluster_checks", tests, NULL, NULL);
}
