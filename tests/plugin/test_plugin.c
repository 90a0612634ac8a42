/*
 * Plugin suite: the module loader with mock modules. Loading happens once per process,
 * so each case is its own run: argv[1] names the case, LATMC_MODULE_PATH (set by meson)
 * points at the directory holding that case's latmc-cuda.so.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "module_abi.h" /* LATMC_MODULE_ABI_VERSION, for the expected message */
#include "sim_helpers.h"

static const char *which;

static latmc_sim_desc cuda_desc(void)
{
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.device = LATMC_DEVICE_CUDA;
    return d;
}

static int count_of(const char *text, const char *what)
{
    int n = 0;
    for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
        n++;
    return n;
}

/* The module is refused: explicit CUDA fails with EBACKEND naming the reason, AUTO and
 * the CPU still work, and the status line says why. */
static void expect_refused(const char *reason);

/* expect_refused, and the status line says each of the NULL-terminated `parts` too. */
static void expect_refused_saying(const char *reason, ...)
{
    expect_refused(reason);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const char *status = latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA);
    va_list ap;
    va_start(ap, reason);
    for (const char *part = va_arg(ap, const char *); part; part = va_arg(ap, const char *)) {
        if (!strstr(status, part))
            print_error("'%s' does not mention '%s'\n", status ? status : "(none)", part);
        assert_non_null(strstr(status, part));
    }
    va_end(ap);
    latmc_ctx_destroy(&ctx);
}

/* The first directory of LATMC_MODULE_PATH with the module's file name. */
static const char *module_file(void)
{
    static char path[4096];
    const char *dirs = getenv("LATMC_MODULE_PATH");
    assert_non_null(dirs);
    snprintf(path, sizeof path, "%.*s/latmc-cuda.so", (int)strcspn(dirs, ":"), dirs);
    return path;
}

/* The cluster count and the largest cluster's sites of the sim's last sweep. */
static void expect_clusters(latmc_sim *sim, double clusters, double largest_sites)
{
    double v = 0.0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_OK);
    assert_true(v == clusters);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_LARGEST_CLUSTER, &v), LATMC_OK);
    assert_true(v == largest_sites / 36.0);
}

/* One sweep on the device (not read), then a field (h = 0.5): the next sweep's step is the
 * host copy's, whose get_spins the mock fails; the observables must keep the device's. */
static void device_sweep_then_failed_field_sweep(latmc_sim *sim)
{
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.5), LATMC_OK);
    setenv("MOCK_FAIL_GET_SPINS", "1", 1);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_EDEVICE);
    unsetenv("MOCK_FAIL_GET_SPINS");
}

/* The embedded clusters' sim of both cases: Heisenberg 6 x 6 on the mock module, cold. */
static latmc_sim *embed_sim(latmc_ctx *ctx, int algorithm)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 6;
    d.algorithm = algorithm;
    d.device = LATMC_DEVICE_CUDA;
    d.seed = 3;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), "mock-cuda");
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    return sim;
}

/*
 * The embedded clusters of a backend's own step (ops.embed_step; the mock's step of sweep
 * t names clusters of m = 1 + t mod 3 consecutive sites of 36): their statistics counted
 * by the core when an observable asks, always the last completed step's: after a
 * parameter change, and after a step on the host copy that failed (the CPU keeps the
 * last completed step's there too).
 */
static void embed_case(void)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = embed_sim(ctx, LATMC_ALGO_SWENDSEN_WANG);
    double v = 0.0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_ESTATE);
    /* sweeps 0, 1, 2: clusters of 1, 2, 3 sites, read after each */
    for (int t = 0; t < 3; t++) {
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        expect_clusters(sim, 36.0 / (1 + t), 1 + t);
    }
    /* two sweeps in one call (3, 4), then a parameter change: sweep 4's (m = 2) */
    assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3), LATMC_OK);
    expect_clusters(sim, 18.0, 2.0);
    /* sweep 5 on the device (m = 3), not read; then a field: sweep 6's step is the host
     * copy's, whose get_spins fails; the observables still give sweep 5's */
    device_sweep_then_failed_field_sweep(sim);
    expect_clusters(sim, 12.0, 3.0);
    /* without a field again: sweep 6 on the device (m = 1) */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.0), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    expect_clusters(sim, 36.0, 1.0);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/*
 * The same for Wolff (the mock's bonds of sweep t join no site, the rows of 6 sites or all
 * 36, m = 1 + t mod 3; a_i = 1): the core regrows the seed's cluster over the bonds --
 * every bit above the directions set, which it must ignore -- so one cluster of 1, 6 or
 * 36 sites, whichever the seed, and <M^2>: 3 A^2 / |C| / 36 = |C| / 12. In a field the
 * mock declines the ask: the host copy's step.
 */
static void embed_wolff_case(void)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = embed_sim(ctx, LATMC_ALGO_WOLFF);
    const double size[3] = { 1.0, 6.0, 36.0 };
    double v = 0.0;
    for (int t = 0; t < 6; t++) {
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        expect_clusters(sim, 1.0, size[t % 3]);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTER_M2, &v), LATMC_OK);
        assert_true(v == size[t % 3] / 12.0);
    }
    /* sweeps 6, 7 (m = 2), beta changed: sweep 7's */
    assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3), LATMC_OK);
    expect_clusters(sim, 1.0, 6.0);
    /* sweep 8 (m = 3) not read; in a field sweep 9 is the host copy's, whose get_spins
     * fails: still sweep 8's */
    device_sweep_then_failed_field_sweep(sim);
    expect_clusters(sim, 1.0, 36.0);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void expect_refused(const char *reason)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = cuda_desc();
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EBACKEND);
    assert_null(sim);
    if (!strstr(latmc_last_error(), reason))
        print_error("'%s' does not mention '%s'\n", latmc_last_error(), reason);
    assert_non_null(strstr(latmc_last_error(), reason));
    assert_non_null(strstr(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA), reason));
    int count = -1;
    assert_int_equal(latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count), LATMC_EBACKEND);
    d.device = LATMC_DEVICE_AUTO;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_string_equal(latmc_sim_backend_name(sim), "cpu");
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* ---- ensemble members as one batch (mock variant 6) ---- */

enum { ENS_M = 6, ENS_SITES = 64 };

/* What the mock counts (tests/plugin/mock_module.c, mock_accepted) and what each member's
 * counters must hold: every sweep that succeeded, once, numbered from the ensemble's count. */
struct ens_expect {
    uint64_t seed[ENS_M], accepted[ENS_M], attempted[ENS_M];
};

/* Nothing counted yet, each member's seed (what the mock's counts derive from). */
static struct ens_expect ens_expect_of(const latmc_ens *e)
{
    struct ens_expect x;
    memset(&x, 0, sizeof x);
    for (int m = 0; m < ENS_M; m++) {
        latmc_sim_desc md;
        latmc_sim_desc_init(&md);
        assert_int_equal(latmc_ens_member_desc(e, m, &md), LATMC_OK);
        x.seed[m] = md.seed;
    }
    return x;
}

static void ens_expect_sweeps(struct ens_expect *x, uint64_t from, uint64_t n)
{
    for (int m = 0; m < ENS_M; m++)
        for (uint64_t s = from; s < from + n; s++) {
            x->accepted[m] += ((s + 1) * UINT64_C(0x9E3779B97F4A7C15) + x->seed[m]) >> 61;
            x->attempted[m] += ENS_SITES;
        }
}

static void ens_check(latmc_ens *e, const struct ens_expect *x, uint64_t sweeps)
{
    uint64_t count = 0;
    assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
    assert_int_equal(count, sweeps);
    double v[ENS_M];
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER, v,
                                           ENS_M), LATMC_OK);
    for (int m = 0; m < ENS_M; m++)
        if (v[m] != (double)x->accepted[m] / (double)x->attempted[m])
            fail_msg("member %d after %llu sweeps: acceptance %.17g, expected %llu / %llu", m,
                     (unsigned long long)sweeps, v[m], (unsigned long long)x->accepted[m],
                     (unsigned long long)x->attempted[m]);
}

/* A batched call of n sweeps that fails at sweep `at` (MOCK_FAIL_SWEEP): nothing counted,
 * the ensemble's count where it was. */
static void ens_sweep_failing(latmc_ens *e, uint64_t n, uint64_t at)
{
    char s[32];
    snprintf(s, sizeof s, "%llu", (unsigned long long)at);
    assert_int_equal(setenv("MOCK_FAIL_SWEEP", s, 1), 0);
    const int st = latmc_ens_sweep(e, n);
    unsetenv("MOCK_FAIL_SWEEP");
    assert_int_equal(st, LATMC_EDEVICE);
    assert_non_null(strstr(latmc_ens_last_error(e), "mock: sweep"));
}

/* A call of the member lanes on the mock (decisions = 2): LATMC_OK, or the failure's message. */
static void lanes_sweep(latmc_ens *e, uint64_t n)
{
    if (latmc_ens_sweep(e, n) != LATMC_OK)
        fail_msg("member lanes: %s", latmc_ens_last_error(e));
}

/* The member lanes on a device's module (mock variant 6, ops.ens_lanes), the host's rounds
 * (LATMC_ENS_HOST_ROUNDS=1, set by the caller): the tables the
 * core hands its calls are the members' own, each lane one member's (after the host
 * rounds' swaps another's: the members' betas lag the map), after each way of changing
 * them (the exchange rounds' swaps: uniform states, every swap taken; a new ladder; set_param; the
 * chain switched off and on; a load), a tables_gen never reused for other tables (the
 * mock fails a call otherwise), and the calls' counts (kept by the ensemble between them)
 * reach each member once, numbered from the right sweep. */
static void ens_lanes_case(latmc_ctx *ctx, const latmc_ens_layout *l)
{
    latmc_sim_desc d = cuda_desc();
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, l, &e), LATMC_OK);
    const double betas[3] = { 0.3, 0.4, 0.5 }, other[3] = { 0.2, 0.35, 0.6 };
    assert_int_equal(latmc_ens_set_temperatures(e, betas, 3), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
    struct ens_expect x = ens_expect_of(e);
    lanes_sweep(e, 3); /* no rounds */
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
    for (int k = 0; k < 3; k++)
        lanes_sweep(e, 2); /* a round after every sweep */
    assert_int_equal(latmc_ens_set_exchange(e, 2), LATMC_OK);
    lanes_sweep(e, 1);
    lanes_sweep(e, 1);
    ens_expect_sweeps(&x, 0, 11);
    ens_check(e, &x, 11);
    assert_int_equal(latmc_ens_set_temperatures(e, other, 3), LATMC_OK);
    lanes_sweep(e, 3);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, 0.25), LATMC_OK);
    lanes_sweep(e, 3);
    /* decisions 0 (the members' own sweeps, the rounds swapping their tables), then 2 */
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 0), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
    lanes_sweep(e, 5);
    ens_expect_sweeps(&x, 11, 14);
    ens_check(e, &x, 25);
    /* a load: new words and a new count of the tables' generations, the module's kept */
    char dir[] = "/tmp/latmc-plugin-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/lanes.ens", dir);
    assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
    latmc_ens_destroy(&e);
    const int st = latmc_ens_load(ctx, path, &e);
    unlink(path);
    rmdir(dir);
    assert_int_equal(st, LATMC_OK);
    lanes_sweep(e, 4);
    ens_expect_sweeps(&x, 25, 4);
    ens_check(e, &x, 29);
    /* a failed call: recorded once, as the member lanes' (not again as a batched sweep's);
     * the words on the device are lost, so the next call is refused */
    assert_int_equal(setenv("MOCK_FAIL_SWEEP", "30", 1), 0);
    const int failed = latmc_ens_sweep(e, 3);
    unsetenv("MOCK_FAIL_SWEEP");
    assert_int_equal(failed, LATMC_EDEVICE);
    const char *why = latmc_ens_last_error(e);
    if (strncmp(why, "latmc_ens_sweep: the member lanes on the mock-cuda device: mock: sweep 30 "
                "fails", 74) != 0 || count_of(why, "latmc_ens_sweep") != 1)
        fail_msg("a failed call of the member lanes: %s", why);
    assert_int_equal(latmc_ens_sweep(e, 1), LATMC_ESTATE);
    assert_non_null(strstr(latmc_ens_last_error(e), "were lost"));
    latmc_ens_destroy(&e);
}

/* The loads of an exchange rounds' state onto a device (the core's debug line). */
static int device_rounds_logged;

static void rounds_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "exchange rounds on the device"))
        device_rounds_logged++;
}

/*
 * The member lanes' exchange rounds on the device (the mock runs them as a device's module
 * does: the state loaded and fetched, each round by lib/ens_exchange_rule.h's rule on the
 * lanes' sums, its moves checked at every fetch) against the host's rounds
 * (LATMC_ENS_HOST_ROUNDS=1) on the same ensemble: hot states in a field, so that the
 * decisions differ from pair to pair; calls splitting a period, a reader between two calls
 * (the map fetched, then loaded again), the period changed; the same temperatures,
 * acceptance per pair and round trips both ways, and the device's way logged.
 */
static void ens_lanes_rounds_case(const latmc_ens_layout *l)
{
    enum { M = 6 };
    int temp[2][M];
    uint64_t acc[2][2], att[2][2], trips[2];
    double mean[2], energy[M];
    for (int way = 0; way < 2; way++) {
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        latmc_ctx_set_log(ctx, rounds_log, NULL, LATMC_LOG_DEBUG);
        device_rounds_logged = 0;
        if (way == 0)
            assert_int_equal(setenv("LATMC_ENS_HOST_ROUNDS", "1", 1), 0);
        latmc_sim_desc d = cuda_desc();
        latmc_ens *e = NULL;
        assert_int_equal(latmc_ens_create(ctx, &d, l, &e), LATMC_OK);
        assert_int_equal(l->n_samples * l->n_temperatures * l->n_replicas, M);
        const double betas[3] = { 0.3, 0.45, 0.6 };
        assert_int_equal(latmc_ens_set_temperatures(e, betas, 3), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
        /* member m with 3 m + 1 of its 64 spins down: energies apart (the mock's own start is
         * uniform) */
        for (int m = 0; m < M; m++) {
            int8_t spins[64];
            for (int i = 0; i < 64; i++)
                spins[i] = (int8_t)(i < 3 * m + 1 ? -1 : 1);
            assert_int_equal(latmc_ens_set_spins(e, m, spins, sizeof spins), LATMC_OK);
        }
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, 0.4), LATMC_OK);
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2), LATMC_OK);
        assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
        lanes_sweep(e, 3);
        lanes_sweep(e, 2);
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, energy,
                                               M), LATMC_OK);
        lanes_sweep(e, 4);
        assert_int_equal(latmc_ens_set_exchange(e, 2), LATMC_OK);
        lanes_sweep(e, 5);
        lanes_sweep(e, 1);
        unsetenv("LATMC_ENS_HOST_ROUNDS");
        for (int m = 0; m < M; m++)
            assert_int_equal(latmc_ens_temperature_of(e, m, &temp[way][m]), LATMC_OK);
        assert_int_equal(latmc_ens_exchange_counts(e, acc[way], att[way], 2), LATMC_OK);
        assert_int_equal(latmc_ens_round_trips(e, &trips[way], &mean[way]), LATMC_OK);
        /* loaded at the first call, and again after the reader and after set_exchange */
        if (way == 0 ? device_rounds_logged != 0 : device_rounds_logged < 2)
            fail_msg("way %d: %d loads of the rounds' state on the device", way,
                     device_rounds_logged);
        latmc_ens_destroy(&e);
        latmc_ctx_destroy(&ctx);
    }
    assert_memory_equal(temp[0], temp[1], sizeof temp[0]);
    assert_memory_equal(acc[0], acc[1], sizeof acc[0]);
    assert_memory_equal(att[0], att[1], sizeof att[0]);
    assert_true(trips[0] == trips[1] && mean[0] == mean[1]);
    /* decisions both ways: some swaps taken, some not */
    assert_true(acc[0][0] + acc[0][1] > 0 && acc[0][0] + acc[0][1] < att[0][0] + att[0][1]);
}

/* The mock's batch lists run (its debug lines) and the sims made since mixed_reset, member
 * `mixed_flagged` of them made with MOCK_ONE_BY_ONE=1 (set at the line of the sim made
 * before it, unset at its own: lib/sim.c logs each sim after its backend read the
 * variable; -1: none). */
static int mixed_lists, mixed_made, mixed_flagged;

static void mixed_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "mock: a batch list"))
        mixed_lists++;
    if (strstr(msg, "created a ")) {
        mixed_made++;
        if (mixed_made == mixed_flagged)
            setenv("MOCK_ONE_BY_ONE", "1", 1);
        else if (mixed_made == mixed_flagged + 1)
            unsetenv("MOCK_ONE_BY_ONE");
    }
}

/* Ensembles of which one member was made with MOCK_ONE_BY_ONE=1 (the mock's
 * LATMC_ENS_<MODEL>_BATCH=0): member 0 (the mock offers it no batch capability, and the core
 * asks member 0's) or another (the mock declines every batch that holds it, with nothing
 * done, as the CUDA batch driver does): the members run one by one, no batch list runs,
 * each member counted once from the right sweep, calls of one list and of several, with
 * exchange rounds on the host between; the same ensemble made without one runs batched. */
static void ens_one_by_one_case(const latmc_ens_layout *l)
{
    static const int flagged[4] = { -1, 0, ENS_M - 1, 2 };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_ctx_set_log(ctx, mixed_log, NULL, LATMC_LOG_DEBUG);
    const double betas[3] = { 0.3, 0.4, 0.5 };
    for (int i = 0; i < 4; i++) {
        latmc_sim_desc d = cuda_desc();
        mixed_lists = mixed_made = 0;
        mixed_flagged = flagged[i];
        if (flagged[i] == 0)
            assert_int_equal(setenv("MOCK_ONE_BY_ONE", "1", 1), 0);
        latmc_ens *e = NULL;
        const int st = latmc_ens_create(ctx, &d, l, &e);
        mixed_flagged = -1;
        unsetenv("MOCK_ONE_BY_ONE");
        assert_int_equal(st, LATMC_OK);
        assert_int_equal(mixed_made, ENS_M); /* the variable set for member flagged[i] alone */
        assert_int_equal(latmc_ens_set_temperatures(e, betas, 3), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
        struct ens_expect x = ens_expect_of(e);
        assert_int_equal(latmc_ens_sweep(e, 10), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 40), LATMC_OK);
        ens_expect_sweeps(&x, 0, 50);
        ens_check(e, &x, 50);
        assert_int_equal(latmc_ens_set_exchange(e, 4), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 13), LATMC_OK);
        ens_expect_sweeps(&x, 50, 13);
        ens_check(e, &x, 63);
        if ((mixed_lists > 0) != (flagged[i] < 0))
            fail_msg("member %d made one by one: %d batch lists ran", flagged[i], mixed_lists);
        latmc_ens_destroy(&e);
    }
    latmc_ctx_destroy(&ctx);
}

/* The counts lib/ens_exec.c keeps for the members between batched calls reach each member
 * once and numbered from the right sweep: calls of one list of the plan (the backend adds
 * to the pending counts) and of several (the call's own, added once it succeeded), reads
 * between them, failed calls of one list and of several after pending counts (nothing of
 * the failed call counted, nothing before it lost), exchange rounds on the host, and a
 * save and load (which refuses members whose sweep count is not the ensemble's); and
 * Swendsen-Wang members on the module run one by one, never as a batch; and members made
 * to run one by one (ens_one_by_one_case). */
static void ens_batch_case(void)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = cuda_desc();
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = 2;
    l.n_temperatures = 3;
    l.seed = 5;
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    const double betas[3] = { 0.3, 0.4, 0.5 };
    assert_int_equal(latmc_ens_set_temperatures(e, betas, 3), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    struct ens_expect x = ens_expect_of(e);
    /* 10 sweeps: one list (20 colour steps); 40: two (80); two calls pending at once */
    assert_int_equal(latmc_ens_sweep(e, 10), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 40), LATMC_OK);
    ens_expect_sweeps(&x, 0, 50);
    ens_check(e, &x, 50);
    assert_int_equal(latmc_ens_sweep(e, 6), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 5), LATMC_OK);
    ens_expect_sweeps(&x, 50, 11);
    ens_check(e, &x, 61);
    /* pending counts, then a call of one list that fails, then one of two lists failing in
     * its second (its first list's counts not kept either) */
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    ens_expect_sweeps(&x, 61, 3);
    ens_sweep_failing(e, 4, 66);
    ens_check(e, &x, 64);
    assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
    ens_expect_sweeps(&x, 64, 2);
    ens_sweep_failing(e, 50, 66 + 40);
    ens_check(e, &x, 66);
    /* batched again after the failures */
    assert_int_equal(latmc_ens_sweep(e, 9), LATMC_OK);
    ens_expect_sweeps(&x, 66, 9);
    /* exchange rounds on the host (the mock has no device rounds): the members read between
     * the calls of a sweep (uniform states: every swap taken) */
    assert_int_equal(latmc_ens_set_exchange(e, 4), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 13), LATMC_OK);
    ens_expect_sweeps(&x, 75, 13);
    ens_check(e, &x, 88);
    assert_int_equal(latmc_ens_set_exchange(e, 0), LATMC_OK);
    /* a save with counts pending, then the loaded ensemble continues as the saved one */
    assert_int_equal(latmc_ens_sweep(e, 7), LATMC_OK);
    ens_expect_sweeps(&x, 88, 7);
    char dir[] = "/tmp/latmc-plugin-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/ens.ckpt", dir);
    assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
    latmc_ens *loaded = NULL;
    const int st = latmc_ens_load(ctx, path, &loaded);
    unlink(path);
    rmdir(dir);
    assert_int_equal(st, LATMC_OK);
    ens_check(loaded, &x, 95);
    for (int k = 0; k < 2; k++)
        assert_int_equal(latmc_ens_sweep(k ? loaded : e, 5), LATMC_OK);
    ens_expect_sweeps(&x, 95, 5);
    ens_check(e, &x, 100);
    ens_check(loaded, &x, 100);
    latmc_ens_destroy(&loaded);
    latmc_ens_destroy(&e);
    /* Swendsen-Wang members on the module (its steps as a sim's, lib/cluster_sweep.c) run
     * one by one: the mock offers no batch of them (its capabilities) and fails one it is
     * handed anyway, so the core asking its capabilities is what this checks */
    d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    assert_int_equal(latmc_ens_set_temperatures(e, betas, 3), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 2), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    const int sw = latmc_ens_sweep(e, 5);
    if (sw != LATMC_OK)
        fail_msg("Swendsen-Wang members: %s", latmc_ens_last_error(e));
    memset(x.accepted, 0, sizeof x.accepted);
    memset(x.attempted, 0, sizeof x.attempted);
    ens_expect_sweeps(&x, 0, 5);
    ens_check(e, &x, 5);
    latmc_ens_destroy(&e);
    /* the host's rounds (their lag of the members' betas) */
    assert_int_equal(setenv("LATMC_ENS_HOST_ROUNDS", "1", 1), 0);
    ens_lanes_case(ctx, &l);
    unsetenv("LATMC_ENS_HOST_ROUNDS");
    ens_lanes_rounds_case(&l);
    latmc_ctx_destroy(&ctx);
    ens_one_by_one_case(&l);
}

static void plugin_case(void **state)
{
    (void)state;
    if (strcmp(which, "ens_batch") == 0) {
        ens_batch_case();
    } else if (strcmp(which, "valid") == 0) {
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        assert_non_null(strstr(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA), "loaded"));
        int count = 0;
        assert_int_equal(latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count), LATMC_OK);
        assert_int_equal(count, 1);
        latmc_device_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 0, &info), LATMC_OK);
        assert_string_equal(info.name, "mock GPU");
        assert_int_equal(info.compute_major, 9);
        assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 1, &info), LATMC_ENODEV);
        latmc_sim_desc d = cuda_desc();
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "mock-cuda");
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
        double e = 0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
        assert_true(e == -2.0);
        /* a module whose ops leave device_view NULL: refused with the reason */
        latmc_device_view view;
        memset(&view, 0, sizeof view);
        view.struct_size = sizeof view;
        assert_int_equal(latmc_sim_device_view(sim, &view), LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_last_error(), "mock-cuda backend"));
        assert_non_null(strstr(latmc_last_error(), "offers no view"));
        assert_true(view.data == 0);
        latmc_sim_destroy(&sim);
        d.device_index = 1; /* one device only */
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENODEV);
        /* AUTO takes the module when it has kernels for the model... */
        d.device_index = 0;
        d.device = LATMC_DEVICE_AUTO;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "mock-cuda");
        latmc_sim_destroy(&sim);
        /* ...and the CPU when it has none (the mock runs only Ising). */
        d.model = LATMC_MODEL_POTTS;
        d.q = 3;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cpu");
        latmc_sim_destroy(&sim);
        d.device = LATMC_DEVICE_CUDA; /* explicit: never a silent CPU run */
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EUNSUPPORTED);
        latmc_ctx_destroy(&ctx);
    } else if (strcmp(which, "embed") == 0) {
        embed_case();
        embed_wolff_case();
    } else if (strcmp(which, "fallback") == 0) {
        /* The rejected module is named, the good one after it is used. */
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        const char *status = latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA);
        assert_non_null(strstr(status, "module ABI version 999"));
        assert_non_null(strstr(status, "loaded "));
        assert_null(strstr(status, "set LATMC_MODULE_PATH"));
        latmc_sim_desc d = cuda_desc();
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "mock-cuda");
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&ctx);
    } else if (strcmp(which, "abi_mismatch") == 0) {
        /* the file, both ABI numbers, and what to do */
        char needs[64];
        snprintf(needs, sizeof needs, "needs module ABI version %u", LATMC_MODULE_ABI_VERSION);
        expect_refused_saying("ABI version 999", module_file(), needs,
                              "set LATMC_MODULE_PATH", (const char *)NULL);
    } else if (strcmp(which, "no_symbol") == 0) {
        expect_refused_saying("no symbol latmc_module_entry", module_file(),
                              "set LATMC_MODULE_PATH", (const char *)NULL);
    } else if (strcmp(which, "unavailable") == 0) {
        /* The module is fine, the machine has no device: no advice to move the module. */
        expect_refused_saying("mock: no device present", module_file(), (const char *)NULL);
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        assert_null(strstr(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA),
                           "set LATMC_MODULE_PATH"));
        latmc_ctx_destroy(&ctx);
    } else if (strcmp(which, "duplicate") == 0) {
        /* One file reached twice is tried, and reported, once. */
        expect_refused("mock: no device present");
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        assert_int_equal(count_of(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA),
                                  "mock: no device present"), 1);
        latmc_ctx_destroy(&ctx);
    } else if (strcmp(which, "bad_init") == 0) {
        /* a code outside the list is named as such, never passed on */
        expect_refused_saying("init returned 12345, not a liblatmc status code",
                              module_file(), "the module gave no reason", (const char *)NULL);
    } else if (strcmp(which, "cannot_load") == 0) {
        /* the file and dlerror's reason (glibc: "invalid ELF header" or "file too short") */
        expect_refused_saying("cannot load: ", module_file(), "set LATMC_MODULE_PATH",
                              (const char *)NULL);
        latmc_ctx *ctx = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        const char *status = latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA);
        assert_true(strstr(status, "ELF") || strstr(status, "too short"));
        latmc_ctx_destroy(&ctx);
    } else if (strcmp(which, "missing") == 0) {
        /* the directories searched, and what to set */
        const char *searched = getenv("LATMC_MODULE_PATH");
        assert_non_null(searched); /* the test sets it (tests/plugin/meson.build) */
        char dir[4096];
        snprintf(dir, sizeof dir, "searched: %s", searched);
        expect_refused_saying("no latmc-cuda.so", dir, "LATMC_MODULE_PATH is set",
                              "set LATMC_MODULE_PATH to the directory that holds latmc-cuda.so",
                              (const char *)NULL);
    } else if (strcmp(which, "missing_unset") == 0) {
        expect_refused_saying("no latmc-cuda.so", getenv("LATMC_MODULE_SYSTEM_PATH"),
                              "LATMC_MODULE_PATH is not set",
                              "set LATMC_MODULE_PATH to the directory that holds latmc-cuda.so",
                              (const char *)NULL);
    } else {
        fail_msg("unknown case %s", which);
    }
}

int main(int argc, char **argv)
{
    which = argc > 1 ? argv[1] : "";
    const struct CMUnitTest tests[] = { cmocka_unit_test(plugin_case) };
    return cmocka_run_group_tests_name(which, tests, NULL, NULL);
}
