/*
 * Parallel tempering on the device (lib/ens_temper.c, backends/cuda/exec/cuda_temper.c)
 * against the CPU ensemble, bit for bit: CUDA Ising +-J members of 16^3 (the fused
 * kernel's, whose exchange rounds run on the GPU) and the same ensemble on the CPU
 * (rounds on the host, lib/ens_exchange.c), an exchange round after every sweep, over
 * about a thousand rounds in calls of uneven length. After each call (or after two calls
 * in a row, the device going on from its own state): every member's temperature, the
 * acceptance per pair, the round trips and their mean length, the energies by
 * temperature and every configuration are the CPU's. Also: a save in the middle loaded
 * and continued, and a second device ensemble swept between the calls (the module's
 * batch state touched from outside). The ctx's debug log must say that the rounds ran
 * on the device, so the test cannot pass on the host's rounds alone. Also a round every
 * third sweep; and two shapes the resident kernel handles apart: 40 temperatures a chain
 * (more than a block's 32 warps: warps take two members) and 2D members (heat bath);
 * larger members: 32^3 and 2D 96^2 (the fused kernel's blocks of more than 256 threads,
 * 1024 and 288), 48^3 and 2D 256^2 (+-J and uniform; its STREAM form), and these without
 * the fused kernel (LATMC_ENS_ISING_FUSED=0: a launch a colour, the rounds' sums measured
 * in a launch of their own); members of the byte layout (2D 40^2, 3D 12^3: a round
 * points a member's entry at its temperature's tables in the state; the fused byte kernel
 * and the colour launches); and the ladder set again after device rounds (another device
 * ensemble swept between), on 16^3 and on byte-layout members. The meson tests run
 * it with the rounds per launch and with the chains resident (LATMC_CUDA_TEMPER).
 * Heisenberg members (their rounds on the device: cuda_heisenberg_temper.c)
 * against the same CUDA ensemble with the host's rounds (LATMC_ENS_HOST_ROUNDS=1 while it
 * sweeps; CUDA Heisenberg members are not the CPU's bit for bit, the host's rounds on
 * them are the reference): heat bath with overrelaxation passes and overrelaxation
 * alone, float and double, 3D and 2D, a round every sweep and every third sweep; lists
 * in parts of whole samples on streams of their own (3, 5 and 6 samples); and the ladder
 * set again after device rounds. A meson test runs it with the lists in four parts
 * (LATMC_ENS_TEMPER_PARTS=4; these ensembles are too small for parts by default).
 * phi^4 members with a mu2 ladder (small members of the site order, whole sweeps a
 * launch: their rounds on the device, cuda_phi4_temper.c) against the same
 * CUDA ensemble with the host's rounds, as Heisenberg's (CUDA phi^4 runs its own chain,
 * not the CPU's): 2D and 3D, float and double, nhit 2, a finite Lambda, a round every
 * sweep and every third sweep, a save in the middle loaded and continued with device
 * rounds, and the mu2 ladder set again after device rounds; a list refused while the map
 * is on the device (the call fails, the chain goes on untouched). Heisenberg and phi^4
 * lists run in parts of whole samples where the ensemble is large enough, or under
 * LATMC_ENS_TEMPER_PARTS (a meson row asks for four): each list's logged parts are checked
 * against the rule.
 * CUDA only: exit 77 (skipped) without a usable GPU or with LATMC_TEST_DEVICE unset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ens_test_helpers.h"
#include "sim_helpers.h"

/* An ensemble's shape: members of extent[0..ndim-1] sites, +-J couplings (uniform ones
 * where `uniform`), ns samples x nt temperatures x nr replicas, betas beta0 + dbeta t. */
struct shape {
    int ndim, extent[3], algorithm, ns, nt, nr;
    double beta0, dbeta;
    int uniform;
};

enum { NS = 2, NT = 8, NR = 2, M = NS * NT * NR, L = 16 };
/* 16^3 +-J Metropolis: close enough for swaps and round trips */
static const struct shape cube = { 3, { L, L, L }, LATMC_ALGO_METROPOLIS, NS, NT, NR, 0.30, 0.01,
                                    0 };

static latmc_ctx *ctx;
static int device_rounds_logged;
static int parts_logged; /* the most parts a tempering list said it ran in */

static void on_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "exchange rounds on the device"))
        device_rounds_logged++;
    static const char parts[] = "tempering list in ";
    const char *p = strstr(msg, parts);
    if (p && atoi(p + sizeof parts - 1) > parts_logged)
        parts_logged = atoi(p + sizeof parts - 1);
}

static int setup(void **state)
{
    (void)state;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return -1;
    latmc_ctx_set_log(ctx, on_log, NULL, LATMC_LOG_DEBUG);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    latmc_ctx_destroy(&ctx);
    return 0;
}

static latmc_ens *shaped_ensemble(const struct shape *sh, int device, uint64_t seed,
                                  uint64_t every)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = sh->ndim;
    for (int k = 0; k < sh->ndim; k++)
        d.extent[k] = sh->extent[k];
    d.couplings = sh->uniform ? LATMC_COUPLINGS_UNIFORM : LATMC_COUPLINGS_BIMODAL;
    d.algorithm = sh->algorithm;
    d.device = device;
    latmc_ens_layout l = ens_test_layout(sh->ns, sh->nt, sh->nr, seed, 2);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    double *beta = malloc((size_t)sh->nt * sizeof *beta);
    assert_non_null(beta);
    for (int t = 0; t < sh->nt; t++)
        beta[t] = sh->beta0 + sh->dbeta * t;
    assert_int_equal(latmc_ens_set_temperatures(e, beta, sh->nt), LATMC_OK);
    free(beta);
    assert_int_equal(latmc_ens_set_exchange(e, every), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    return e;
}

static latmc_ens *tempering_ensemble(int device, uint64_t seed, uint64_t every)
{
    return shaped_ensemble(&cube, device, seed, every);
}

struct state {
    int m, nt;
    int *temp;
    uint64_t *acc, *att, trips;
    double trip_mean, *energy;
    unsigned char *spins;
    size_t bytes;
};

static void capture(latmc_ens *e, struct state *s)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    assert_int_equal(latmc_ens_get_layout(e, &l), LATMC_OK);
    const int nt = l.n_temperatures;
    s->m = l.n_samples * nt * l.n_replicas;
    s->nt = nt;
    s->temp = malloc((size_t)s->m * sizeof *s->temp);
    s->energy = malloc((size_t)s->m * sizeof *s->energy);
    s->acc = calloc((size_t)nt, sizeof *s->acc);
    s->att = calloc((size_t)nt, sizeof *s->att);
    assert_true(s->temp && s->energy && s->acc && s->att);
    for (int m = 0; m < s->m; m++)
        assert_int_equal(latmc_ens_temperature_of(e, m, &s->temp[m]), LATMC_OK);
    assert_int_equal(latmc_ens_exchange_counts(e, s->acc, s->att, nt - 1), LATMC_OK);
    assert_int_equal(latmc_ens_round_trips(e, &s->trips, &s->trip_mean), LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_TEMPERATURE,
                                           s->energy, s->m), LATMC_OK);
    s->spins = ens_test_all_spins(e, &s->bytes);
    assert_non_null(s->spins);
}

static void release(struct state *s)
{
    free(s->temp);
    free(s->energy);
    free(s->acc);
    free(s->att);
    free(s->spins);
}

static void assert_same(latmc_ens *gpu, latmc_ens *cpu)
{
    struct state a, b;
    capture(gpu, &a);
    capture(cpu, &b);
    assert_int_equal(a.m, b.m);
    assert_memory_equal(a.temp, b.temp, (size_t)a.m * sizeof *a.temp);
    assert_memory_equal(a.acc, b.acc, (size_t)(a.nt - 1) * sizeof *a.acc);
    assert_memory_equal(a.att, b.att, (size_t)(a.nt - 1) * sizeof *a.att);
    assert_int_equal(a.trips, b.trips);
    assert_true(a.trip_mean == b.trip_mean);
    assert_memory_equal(a.energy, b.energy, (size_t)a.m * sizeof *a.energy);
    assert_int_equal(a.bytes, b.bytes);
    assert_memory_equal(a.spins, b.spins, a.bytes);
    release(&a);
    release(&b);
}

static void test_every_sweep_matches_cpu(void **state)
{
    (void)state;
    char dir[] = "/tmp/latmc-ens-temper-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/mid.ens", dir);
    latmc_ens *gpu = tempering_ensemble(LATMC_DEVICE_CUDA, 4242, 1);
    latmc_ens *cpu = tempering_ensemble(LATMC_DEVICE_CPU, 4242, 1);
    latmc_ens *other = tempering_ensemble(LATMC_DEVICE_CUDA, 77, 1);
    device_rounds_logged = 0;
    /* uneven calls; compared after the calls marked (else the device goes on alone) */
    static const uint64_t calls[] = { 1, 2, 97, 150, 250, 3, 500 };
    static const bool compare[] = { true, true, true, false, true, true, true };
    enum { N_CALLS = sizeof calls / sizeof calls[0], SAVE_AFTER = 2 };
    for (int k = 0; k < N_CALLS; k++) {
        assert_int_equal(latmc_ens_sweep(gpu, calls[k]), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(cpu, calls[k]), LATMC_OK);
        if (k == 3) /* another device ensemble between two device calls */
            assert_int_equal(latmc_ens_sweep(other, 5), LATMC_OK);
        if (compare[k])
            assert_same(gpu, cpu);
        if (k == SAVE_AFTER)
            assert_int_equal(latmc_ens_save(gpu, path), LATMC_OK);
    }
    assert_true(device_rounds_logged >= 5); /* the rounds did run on the device */
    struct state s;
    capture(cpu, &s);
    assert_int_equal(s.m, M);
    uint64_t total_acc = 0;
    for (int t = 0; t < NT - 1; t++) {
        assert_true(s.acc[t] > 0 && s.acc[t] < s.att[t]); /* every pair swapped, not always */
        total_acc += s.acc[t];
    }
    assert_true(s.trips > 0); /* round trips happened, and agree */
    printf("1003 rounds: %llu swaps, %llu round trips of %.1f sweeps on average\n",
           (unsigned long long)total_acc, (unsigned long long)s.trips, s.trip_mean);
    release(&s);

    /* the saved ensemble continues as the one that went on */
    latmc_ens *loaded = NULL;
    assert_int_equal(latmc_ens_load(ctx, path, &loaded), LATMC_OK);
    for (int k = SAVE_AFTER + 1; k < N_CALLS; k++)
        assert_int_equal(latmc_ens_sweep(loaded, calls[k]), LATMC_OK);
    assert_same(loaded, cpu);
    remove(path);
    rmdir(dir);
    latmc_ens_destroy(&loaded);
    latmc_ens_destroy(&other);
    latmc_ens_destroy(&gpu);
    latmc_ens_destroy(&cpu);
}

/* A round every third sweep: calls that end between rounds and lists whose sweeps run on
 * past their last round. */
static void test_every_third_sweep_matches_cpu(void **state)
{
    (void)state;
    latmc_ens *gpu = tempering_ensemble(LATMC_DEVICE_CUDA, 99, 3);
    latmc_ens *cpu = tempering_ensemble(LATMC_DEVICE_CPU, 99, 3);
    static const uint64_t calls[] = { 1, 2, 4, 31, 200, 5 };
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++) {
        assert_int_equal(latmc_ens_sweep(gpu, calls[k]), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(cpu, calls[k]), LATMC_OK);
        if (k % 2 == 1 || k + 1 == sizeof calls / sizeof calls[0])
            assert_same(gpu, cpu);
    }
    latmc_ens_destroy(&gpu);
    latmc_ens_destroy(&cpu);
}

/* A shape against the CPU: a round after every `every` sweeps in uneven calls, compared
 * after each; swaps must have happened at every pair (else the maps agree trivially), and
 * the rounds on the device (the log says so). */
static void shape_matches_cpu_rounds(const struct shape *sh, uint64_t seed, uint64_t every)
{
    latmc_ens *gpu = shaped_ensemble(sh, LATMC_DEVICE_CUDA, seed, every);
    latmc_ens *cpu = shaped_ensemble(sh, LATMC_DEVICE_CPU, seed, every);
    static const uint64_t calls[] = { 1, 2, 37, 60 };
    device_rounds_logged = 0;
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++) {
        assert_int_equal(latmc_ens_sweep(gpu, calls[k]), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(cpu, calls[k]), LATMC_OK);
        assert_same(gpu, cpu);
    }
    assert_true(device_rounds_logged >= 1); /* the rounds did run on the device */
    struct state s;
    capture(cpu, &s);
    for (int t = 0; t < sh->nt - 1; t++)
        assert_true(s.acc[t] > 0 && s.acc[t] < s.att[t]);
    release(&s);
    latmc_ens_destroy(&gpu);
    latmc_ens_destroy(&cpu);
}

static void shape_matches_cpu(const struct shape *sh, uint64_t seed)
{
    shape_matches_cpu_rounds(sh, seed, 1);
}

/* 40 temperatures a chain: more members than a resident block's 32 warps (warps 0-7 take
 * members k and k + 32), the round's pairs and round trips past lane 31. 16x8x8 +-J
 * (64 words a colour). */
static void test_many_temperatures_match_cpu(void **state)
{
    (void)state;
    const struct shape sh = { 3, { 16, 8, 8 }, LATMC_ALGO_METROPOLIS, 1, 40, 2, 0.28, 0.004, 0 };
    shape_matches_cpu(&sh, 515);
}

/* 2D members (no z neighbours, one coupling word), heat bath: 64^2 +-J, 256 words a
 * colour. */
static void test_2d_heatbath_matches_cpu(void **state)
{
    (void)state;
    const struct shape sh = { 2, { 64, 64, 1 }, LATMC_ALGO_HEATBATH, 2, 8, 2, 0.40, 0.02, 0 };
    shape_matches_cpu(&sh, 2024);
}

/* Larger members on the fused kernel: 32^3 (2048 words a colour: blocks of 1024 threads)
 * Metropolis, 2D 96^2 (576 words: 288 threads) heat bath; past 2048 words (STREAM) 3D 48^3
 * (6912 words) Metropolis, 2D 256^2 (4096) heat bath, +-J, and 2D 256^2 Metropolis with
 * uniform couplings, a round every sweep (a launch a colour before each round: a single
 * sweep of STREAM repays no reload) and every third; then 48^3 and the uniform 256^2
 * without the fused kernel
 * (LATMC_ENS_ISING_FUSED=0): their sweeps a launch a colour and each round's sums in a
 * measurement launch of their own. */
static void test_large_members_match_cpu(void **state)
{
    (void)state;
    const struct shape cube32 = { 3, { 32, 32, 32 }, LATMC_ALGO_METROPOLIS, 1, 8, 2, 0.30, 0.004,
                                  0 };
    shape_matches_cpu(&cube32, 3232);
    const struct shape sq96 = { 2, { 96, 96, 1 }, LATMC_ALGO_HEATBATH, 2, 8, 2, 0.40, 0.01, 0 };
    shape_matches_cpu(&sq96, 9696);
    const struct shape cube48 = { 3, { 48, 48, 48 }, LATMC_ALGO_METROPOLIS, 1, 8, 2, 0.30, 0.002,
                                  0 };
    shape_matches_cpu(&cube48, 4848);
    const struct shape flat = { 2, { 256, 256, 1 }, LATMC_ALGO_HEATBATH, 1, 8, 2, 0.40, 0.0035, 0 };
    shape_matches_cpu(&flat, 256256);
    const struct shape uni = { 2, { 256, 256, 1 }, LATMC_ALGO_METROPOLIS, 1, 8, 2, 0.30, 0.003,
                               1 };
    shape_matches_cpu(&uni, 2562560);
    /* rounds every third sweep: STREAM's launches of 2 and 3 sweeps leave the round's sums
     * (a round after a single sweep takes the colour launches: the calls of 1 sweep) */
    shape_matches_cpu_rounds(&cube48, 4850, 3);
    shape_matches_cpu_rounds(&uni, 2562562, 3);
    /* without the fused kernel: whole sweeps a launch a colour, each round's sums in a
     * measurement launch of their own */
    assert_int_equal(setenv("LATMC_ENS_ISING_FUSED", "0", 1), 0);
    shape_matches_cpu(&cube48, 4849);
    shape_matches_cpu(&uni, 2562561);
    assert_int_equal(unsetenv("LATMC_ENS_ISING_FUSED"), 0);
}

/* Members of the byte layout (L_x not a multiple of 16: no packed layout): rounds on the
 * device, a move pointing a member's entry at its new temperature's decision tables in the
 * state; their sweeps on the fused byte kernel, and under LATMC_ENS_ISING_FUSED=0 as a
 * launch a colour. 2D 40^2 Metropolis, 3D 12^3 heat bath, +-J; rounds every sweep and
 * every third. */
static void test_byte_members_match_cpu(void **state)
{
    (void)state;
    const struct shape flat = { 2, { 40, 40, 1 }, LATMC_ALGO_METROPOLIS, 2, 8, 2, 0.40, 0.02,
                                0 };
    const struct shape cube12 = { 3, { 12, 12, 12 }, LATMC_ALGO_HEATBATH, 2, 8, 2, 0.30, 0.02,
                                  0 };
    for (int fused = 1; fused >= 0; fused--) {
        if (!fused)
            assert_int_equal(setenv("LATMC_ENS_ISING_FUSED", "0", 1), 0);
        shape_matches_cpu(&flat, 4040 + (uint64_t)fused);
        shape_matches_cpu_rounds(&cube12, 1212 + (uint64_t)fused, 3);
    }
    assert_int_equal(unsetenv("LATMC_ENS_ISING_FUSED"), 0);
}

/* Whether some member of e is no longer at its temperature in first[] (the map fetched:
 * a sync, and nothing else; the other's temperatures must be e's). */
static bool map_moved(latmc_ens *e, latmc_ens *other, const int *first, int m_all)
{
    bool moved = false;
    for (int m = 0; m < m_all; m++) {
        int t = -1, u = -1;
        assert_int_equal(latmc_ens_temperature_of(e, m, &t), LATMC_OK);
        assert_int_equal(latmc_ens_temperature_of(other, m, &u), LATMC_OK);
        assert_int_equal(t, u);
        moved = moved || t != first[m];
    }
    return moved;
}

/*
 * The ladder set again after device rounds: the next calls must run at the thresholds the
 * map gives again, not at those the rounds left in the batch's device table. The batch
 * uploads a table only where it differs from its host copy `last` (or is marked dirty),
 * and the device's rounds never reach that copy: the fetch's swaps patch it, except where
 * the batch is no longer prepared (the Ising state touched since its call: here a third
 * device ensemble swept and read). Once they skipped it unmarked, and the ladder set again
 * (every member back to exactly `last`) was not uploaded. So nothing here may upload a
 * table between the fetch and the ladder: device calls of one sweep until a member has
 * moved, the map read by latmc_ens_temperature_of alone (no measurement: a batched one
 * would upload the members' table on its own).
 */
static void ladder_set_again_matches_cpu(const struct shape *sh)
{
    latmc_ens *gpu = shaped_ensemble(sh, LATMC_DEVICE_CUDA, 5150, 1);
    latmc_ens *cpu = shaped_ensemble(sh, LATMC_DEVICE_CPU, 5150, 1);
    latmc_ens *other = shaped_ensemble(sh, LATMC_DEVICE_CUDA, 78, 1);
    size_t bytes = 0;
    assert_int_equal(latmc_ens_spins_size(other, &bytes), LATMC_OK);
    void *buf = malloc(bytes);
    assert_non_null(buf);
    const int m_all = sh->ns * sh->nt * sh->nr;
    assert_true(m_all <= M);
    int first[M];
    for (int m = 0; m < m_all; m++)
        assert_int_equal(latmc_ens_temperature_of(gpu, m, &first[m]), LATMC_OK);
    bool moved = false;
    for (int k = 0; k < 60 && !moved; k++) {
        device_rounds_logged = 0;
        assert_int_equal(latmc_ens_sweep(gpu, 1), LATMC_OK);
        assert_int_equal(device_rounds_logged, 1);
        assert_int_equal(latmc_ens_sweep(cpu, 1), LATMC_OK);
        /* the Ising state touched after gpu's call: other's members (prepared as members
         * by its batched sweep) swept and read */
        assert_int_equal(latmc_ens_sweep(other, 1), LATMC_OK);
        assert_int_equal(latmc_ens_get_spins(other, 0, buf, bytes), LATMC_OK);
        moved = map_moved(gpu, cpu, first, m_all);
    }
    assert_true(moved);
    double beta[NT];
    assert_true(sh->nt <= NT);
    for (int t = 0; t < sh->nt; t++)
        beta[t] = sh->beta0 + sh->dbeta * t;
    assert_int_equal(latmc_ens_set_temperatures(gpu, beta, sh->nt), LATMC_OK);
    assert_int_equal(latmc_ens_set_temperatures(cpu, beta, sh->nt), LATMC_OK);
    device_rounds_logged = 0;
    assert_int_equal(latmc_ens_sweep(gpu, 4), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(cpu, 4), LATMC_OK);
    assert_int_equal(device_rounds_logged, 1);
    assert_same(gpu, cpu);
    free(buf);
    latmc_ens_destroy(&gpu);
    latmc_ens_destroy(&cpu);
    latmc_ens_destroy(&other);
}

static void test_ladder_set_again_matches_cpu(void **state)
{
    (void)state;
    ladder_set_again_matches_cpu(&cube);
}

/* The same on members of the byte layout (3D 12^3 +-J): a round points a member's entry
 * at its new temperature's tables in the state, so after the map's fetch the batch must
 * upload its own table again (cuda_ens_bytes_table_fetched), or the ladder set again
 * would not reach the device. */
static void test_byte_ladder_set_again_matches_cpu(void **state)
{
    (void)state;
    const struct shape sh = { 3, { 12, 12, 12 }, LATMC_ALGO_METROPOLIS, NS, NT, NR, 0.30, 0.02,
                              0 };
    ladder_set_again_matches_cpu(&sh);
}

/* ---- Heisenberg members: device rounds = host rounds ---- */

struct heisenberg_shape {
    int ndim, l, algorithm, nover, precision, couplings, nt;
    uint64_t every;
    double h, beta0, dbeta;
    int ns; /* samples */
};

static latmc_ens *heisenberg_ensemble(const struct heisenberg_shape *sh, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = sh->ndim;
    for (int k = 0; k < sh->ndim; k++)
        d.extent[k] = sh->l;
    d.couplings = sh->couplings;
    d.algorithm = sh->algorithm;
    d.precision = sh->precision;
    d.device = LATMC_DEVICE_CUDA;
    latmc_ens_layout l = ens_test_layout(sh->ns, sh->nt, 2, seed, 2);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    double beta[16];
    assert_true(sh->nt <= 16);
    for (int t = 0; t < sh->nt; t++)
        beta[t] = sh->beta0 + sh->dbeta * t;
    assert_int_equal(latmc_ens_set_temperatures(e, beta, sh->nt), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_NOVER, sh->nover), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, sh->h), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, sh->every), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    return e;
}

/* n sweeps of e with the host's rounds forced, or not; the log must say which ran (any
 * model's ensemble). */
static void heisenberg_sweep(latmc_ens *e, uint64_t n, bool host)
{
    device_rounds_logged = 0;
    if (host)
        assert_int_equal(setenv("LATMC_ENS_HOST_ROUNDS", "1", 1), 0);
    assert_int_equal(latmc_ens_sweep(e, n), LATMC_OK);
    if (host) {
        unsetenv("LATMC_ENS_HOST_ROUNDS");
        assert_int_equal(device_rounds_logged, 0);
    } else {
        assert_int_equal(device_rounds_logged, 1); /* loaded once: the map was on the host */
    }
}

/* The two ensembles after uneven calls, compared after each (the device's state fetched
 * by the comparison, loaded again by the next call); swaps must have happened. */
static void heisenberg_matches_host_rounds(const struct heisenberg_shape *sh, uint64_t seed)
{
    latmc_ens *dev = heisenberg_ensemble(sh, seed);
    latmc_ens *host = heisenberg_ensemble(sh, seed);
    static const uint64_t calls[] = { 1, 2, 3, 25, 40 };
    for (size_t k = 0; k < sizeof calls / sizeof calls[0]; k++) {
        heisenberg_sweep(dev, calls[k], false);
        heisenberg_sweep(host, calls[k], true);
        assert_same(dev, host);
    }
    struct state s;
    capture(host, &s);
    uint64_t swaps = 0, offered = 0;
    for (int t = 0; t < sh->nt - 1; t++) {
        assert_true(s.att[t] > 0);
        swaps += s.acc[t];
        offered += s.att[t];
    }
    assert_true(swaps > 0 && swaps < offered); /* swaps, not all: the decisions mattered */
    release(&s);
    latmc_ens_destroy(&dev);
    latmc_ens_destroy(&host);
}

/* 8^3 Gaussian, float: heat bath + 2 overrelaxation passes, a field, a round every sweep;
 * the same every third sweep; 16^3 every sweep (the round's sums by rows:
 * ens_heisenberg_round_rows_kernel, a chunk a plane and a window a row). */
static void test_heisenberg_heatbath_matches_host_rounds(void **state)
{
    (void)state;
    struct heisenberg_shape sh = { 3, 8, LATMC_ALGO_HEATBATH, 2, LATMC_PRECISION_FLOAT,
                             LATMC_COUPLINGS_GAUSSIAN, 8, 1, 0.25, 0.5, 0.1, 2 };
    heisenberg_matches_host_rounds(&sh, 31);
    sh.every = 3;
    heisenberg_matches_host_rounds(&sh, 32);
    sh.l = 16; /* 8 times the volume: a closer ladder, so that swaps happen */
    sh.every = 1;
    sh.dbeta = 0.03;
    heisenberg_matches_host_rounds(&sh, 33);
}

/* Lists in parts of whole samples (cuda_temper.c; the meson row that asks for four with
 * LATMC_ENS_TEMPER_PARTS: these ensembles are too small for parts by default): 5 samples
 * (parts of 1, 1, 1 and 2 samples) at 8^3, a round every sweep and every second; 6
 * samples at 16^3 (the round's sums by rows), every sweep; 3 samples (two parts). Without
 * the variable (and under LATMC_ENS_HEIS_SUMS=check, whose comparison takes every member
 * at once) the same lists in one part; the parts each list logs must be those. */
/* The parts a list of ns samples and n members must log (cuda_temper.c's cuda_temper_parts:
 * unless LATMC_ENS_TEMPER_PARTS asks, up to four, at least one member per multiprocessor
 * a part; 0: one part, no line), or one part where the batch keeps every member together
 * (one_part). */
static int expected_parts(int ns, int n, bool one_part)
{
    const char *env = getenv("LATMC_ENS_TEMPER_PARTS");
    int want = 4;
    if (one_part) {
        want = 1;
    } else if (env && *env) {
        want = atoi(env);
    } else {
        latmc_device_info info = { .struct_size = sizeof info };
        assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 0, &info), LATMC_OK);
        assert_true(info.multiprocessors > 0);
        if (n / info.multiprocessors < want)
            want = n / info.multiprocessors;
    }
    return want < 2 ? 0 : ns >= want ? want : ns >= 2 ? 2 : 0;
}

static void heisenberg_parts_match(const struct heisenberg_shape *sh, uint64_t seed)
{
    const char *sums = getenv("LATMC_ENS_HEIS_SUMS");
    parts_logged = 0;
    heisenberg_matches_host_rounds(sh, seed);
    assert_int_equal(parts_logged, expected_parts(sh->ns, sh->ns * sh->nt * 2,
                                                  sums && strcmp(sums, "check") == 0));
}

static void test_heisenberg_parts_match_host_rounds(void **state)
{
    (void)state;
    struct heisenberg_shape sh = { 3, 8, LATMC_ALGO_HEATBATH, 2, LATMC_PRECISION_FLOAT,
                                   LATMC_COUPLINGS_GAUSSIAN, 8, 1, 0.25, 0.5, 0.1, 5 };
    heisenberg_parts_match(&sh, 61);
    sh.every = 2;
    heisenberg_parts_match(&sh, 62);
    sh.ns = 3;
    heisenberg_parts_match(&sh, 63);
    sh.l = 16;
    sh.ns = 6;
    sh.every = 1;
    sh.dbeta = 0.03;
    heisenberg_parts_match(&sh, 64);
}

/* Overrelaxation alone (3 passes), +-J in double, 8^3, every sweep and every third; 2D
 * 16^2 heat bath alone every second sweep. */
static void test_heisenberg_overrelax_matches_host_rounds(void **state)
{
    (void)state;
    struct heisenberg_shape sh = { 3, 8, LATMC_ALGO_OVERRELAX, 3, LATMC_PRECISION_DOUBLE,
                             LATMC_COUPLINGS_BIMODAL, 6, 1, 0.0, 0.4, 0.15, 2 };
    heisenberg_matches_host_rounds(&sh, 41);
    sh.every = 3;
    heisenberg_matches_host_rounds(&sh, 42);
    const struct heisenberg_shape flat = { 2, 16, LATMC_ALGO_HEATBATH, 0, LATMC_PRECISION_FLOAT,
                                     LATMC_COUPLINGS_GAUSSIAN, 8, 2, 0.1, 0.8, 0.15, 2 };
    heisenberg_matches_host_rounds(&flat, 43);
}

/* Members too large for one block's shared memory (3D 28^3 float, 21,952 sites: a launch a
 * pass over every member, heisenberg/cuda_heisenberg_batch.c), a close ladder so that swaps happen:
 * heat bath + 2 overrelaxation passes (3 passes a sweep: the configurations change buffers
 * every sweep), a round every sweep; overrelaxation alone, 2 passes, +-J in double, every
 * second sweep. */
static void test_heisenberg_large_members_match_host_rounds(void **state)
{
    (void)state;
    const struct heisenberg_shape hb = { 3, 28, LATMC_ALGO_HEATBATH, 2, LATMC_PRECISION_FLOAT,
                                         LATMC_COUPLINGS_GAUSSIAN, 4, 1, 0.0, 0.3, 0.002, 2 };
    heisenberg_matches_host_rounds(&hb, 51);
    const struct heisenberg_shape over = { 3, 28, LATMC_ALGO_OVERRELAX, 2,
                                           LATMC_PRECISION_DOUBLE, LATMC_COUPLINGS_BIMODAL, 4,
                                           2, 0.0, 0.3, 0.002, 2 };
    heisenberg_matches_host_rounds(&over, 52);
}

/* The betas of a Heisenberg shape's ladder set again (the map back to each member's
 * first temperature: the members' betas exactly those of the state's first load). */
static void heisenberg_set_ladder_again(latmc_ens *e, const struct heisenberg_shape *sh)
{
    double beta[16];
    for (int t = 0; t < sh->nt; t++)
        beta[t] = sh->beta0 + sh->dbeta * t;
    assert_int_equal(latmc_ens_set_temperatures(e, beta, sh->nt), LATMC_OK);
}

/* Device rounds until a member has left its first temperature (the map read by
 * latmc_ens_temperature_of alone: a measurement would upload the batch's table on its
 * own), then the ladder set again on both ensembles: the next calls' sweeps must run at
 * the betas the map gives again, not at those the device's rounds wrote into the batch's
 * table (which once stayed there: the batch skipped the upload of a table equal to its
 * copy of the first load's). */
static void test_heisenberg_ladder_set_again_matches_host_rounds(void **state)
{
    (void)state;
    const struct heisenberg_shape sh = { 3, 8, LATMC_ALGO_HEATBATH, 2, LATMC_PRECISION_FLOAT,
                                   LATMC_COUPLINGS_GAUSSIAN, 8, 1, 0.25, 0.5, 0.1, 2 };
    latmc_ens *dev = heisenberg_ensemble(&sh, 61);
    latmc_ens *host = heisenberg_ensemble(&sh, 61);
    const int m_all = 2 * sh.nt * 2;
    int first[64];
    assert_true(m_all <= 64);
    for (int m = 0; m < m_all; m++)
        assert_int_equal(latmc_ens_temperature_of(dev, m, &first[m]), LATMC_OK);
    bool moved = false;
    for (int k = 0; k < 60 && !moved; k++) {
        heisenberg_sweep(dev, 1, false);
        heisenberg_sweep(host, 1, true);
        moved = map_moved(dev, host, first, m_all);
    }
    assert_true(moved);
    heisenberg_set_ladder_again(dev, &sh);
    heisenberg_set_ladder_again(host, &sh);
    heisenberg_sweep(dev, 4, false);
    heisenberg_sweep(host, 4, true);
    assert_same(dev, host);
    latmc_ens_destroy(&dev);
    latmc_ens_destroy(&host);
}

/* ---- phi^4 members, a mu2 ladder: device rounds = host rounds ---- */

struct phi4_shape {
    int ndim, lx, ly, lz, precision, nt, nhit;
    uint64_t every;
    double lambda, mu2_0, dmu2; /* lambda 0: Lambda = inf (the default) */
};

static void phi4_ladder(const struct phi4_shape *sh, double *mu2)
{
    for (int t = 0; t < sh->nt; t++)
        mu2[t] = sh->mu2_0 + sh->dmu2 * t;
}

static latmc_ens *phi4_ensemble(const struct phi4_shape *sh, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = sh->ndim;
    d.extent[0] = sh->lx;
    d.extent[1] = sh->ly;
    if (sh->ndim == 3)
        d.extent[2] = sh->lz;
    d.precision = sh->precision;
    d.device = LATMC_DEVICE_CUDA;
    latmc_ens_layout l = ens_test_layout(2, sh->nt, 2, seed, 2);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    double mu2[16];
    assert_true(sh->nt <= 16);
    phi4_ladder(sh, mu2);
    assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, mu2, sh->nt), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_NHIT, sh->nhit), LATMC_OK);
    if (sh->lambda > 0)
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_LAMBDA, sh->lambda), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, sh->every), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    return e;
}

/* Uneven calls, compared after each (the device's state fetched by the comparison, loaded
 * again by the next call); a save of the device ensemble after the third call, loaded and
 * continued with device rounds, compared at the end; swaps must have happened, not all. */
static void phi4_pass_matches_host_rounds(const struct phi4_shape *sh, uint64_t seed)
{
    char dir[] = "/tmp/latmc-ens-temper-phi4-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[300];
    snprintf(path, sizeof path, "%s/mid.ens", dir);
    latmc_ens *dev = phi4_ensemble(sh, seed);
    latmc_ens *host = phi4_ensemble(sh, seed);
    static const uint64_t calls[] = { 1, 2, 3, 25, 40 };
    enum { N_CALLS = sizeof calls / sizeof calls[0], SAVE_AFTER = 2 };
    for (int k = 0; k < N_CALLS; k++) {
        heisenberg_sweep(dev, calls[k], false);
        heisenberg_sweep(host, calls[k], true);
        assert_same(dev, host);
        if (k == SAVE_AFTER)
            assert_int_equal(latmc_ens_save(dev, path), LATMC_OK);
    }
    struct state s;
    capture(host, &s);
    uint64_t swaps = 0, offered = 0;
    for (int t = 0; t < sh->nt - 1; t++) {
        assert_true(s.att[t] > 0);
        swaps += s.acc[t];
        offered += s.att[t];
    }
    assert_true(swaps > 0 && swaps < offered); /* swaps, not all: the decisions mattered */
    release(&s);
    latmc_ens *loaded = NULL;
    assert_int_equal(latmc_ens_load(ctx, path, &loaded), LATMC_OK);
    device_rounds_logged = 0;
    for (int k = SAVE_AFTER + 1; k < N_CALLS; k++) /* the device going on from its state */
        assert_int_equal(latmc_ens_sweep(loaded, calls[k]), LATMC_OK);
    assert_int_equal(device_rounds_logged, 1); /* loaded once, kept by the second call */
    assert_same(loaded, host);
    remove(path);
    rmdir(dir);
    latmc_ens_destroy(&loaded);
    latmc_ens_destroy(&dev);
    latmc_ens_destroy(&host);
}

/* The same twice: the rounds' sum phi^2 from its own launch (the default), then from the
 * batch's measurement with the own launch's compared with it bit for bit on the device
 * (LATMC_ENS_PHI4_ROUND_SUMS=check: a difference fails the call). */
static void phi4_matches_host_rounds(const struct phi4_shape *sh, uint64_t seed)
{
    parts_logged = 0;
    phi4_pass_matches_host_rounds(sh, seed);
    assert_int_equal(parts_logged, expected_parts(2, 2 * sh->nt * 2, false)); /* sums' launch */
    assert_int_equal(setenv("LATMC_ENS_PHI4_ROUND_SUMS", "check", 1), 0);
    parts_logged = 0;
    phi4_pass_matches_host_rounds(sh, seed);
    unsetenv("LATMC_ENS_PHI4_ROUND_SUMS");
    assert_int_equal(parts_logged, 0); /* the measurement's sums: one part */
}

/* 2D 16^2 float, a round every sweep; 2D 20 x 15 double (five colours), nhit 2, every
 * third sweep. */
static void test_phi4_2d_matches_host_rounds(void **state)
{
    (void)state;
    const struct phi4_shape flat = { 2, 16, 16, 1, LATMC_PRECISION_FLOAT, 8, 1, 1, 0.0, -0.6,
                                     0.02 };
    phi4_matches_host_rounds(&flat, 71);
    const struct phi4_shape odd = { 2, 20, 15, 1, LATMC_PRECISION_DOUBLE, 6, 2, 3, 0.0, -0.6,
                                    0.02 };
    phi4_matches_host_rounds(&odd, 72);
}

/* 3D 8^3 double with Lambda = 2, a round every sweep; 3D 16^3 float, every third sweep. */
static void test_phi4_3d_matches_host_rounds(void **state)
{
    (void)state;
    const struct phi4_shape small = { 3, 8, 8, 8, LATMC_PRECISION_DOUBLE, 8, 1, 1, 2.0, -0.6,
                                      0.01 };
    phi4_matches_host_rounds(&small, 81);
    const struct phi4_shape cube16 = { 3, 16, 16, 16, LATMC_PRECISION_FLOAT, 6, 1, 3, 0.0,
                                       -0.6, 0.004 };
    phi4_matches_host_rounds(&cube16, 82);
}

/* Device rounds until a member has left its first temperature (the map read alone), then
 * the mu2 ladder set again on both: the next calls must run at the coefficients the map
 * gives again, not at those the device's rounds wrote into the batch's table. */
static void test_phi4_ladder_set_again_matches_host_rounds(void **state)
{
    (void)state;
    const struct phi4_shape sh = { 2, 16, 16, 1, LATMC_PRECISION_FLOAT, 8, 1, 1, 0.0, -0.6,
                                   0.02 };
    latmc_ens *dev = phi4_ensemble(&sh, 91);
    latmc_ens *host = phi4_ensemble(&sh, 91);
    const int m_all = 2 * sh.nt * 2;
    int first[64];
    assert_true(m_all <= 64);
    for (int m = 0; m < m_all; m++)
        assert_int_equal(latmc_ens_temperature_of(dev, m, &first[m]), LATMC_OK);
    bool moved = false;
    for (int k = 0; k < 60 && !moved; k++) {
        heisenberg_sweep(dev, 1, false);
        heisenberg_sweep(host, 1, true);
        moved = map_moved(dev, host, first, m_all);
    }
    assert_true(moved);
    double mu2[16];
    phi4_ladder(&sh, mu2);
    assert_int_equal(latmc_ens_set_ladder(dev, LATMC_PARAM_MU2, mu2, sh.nt), LATMC_OK);
    assert_int_equal(latmc_ens_set_ladder(host, LATMC_PARAM_MU2, mu2, sh.nt), LATMC_OK);
    heisenberg_sweep(dev, 4, false);
    heisenberg_sweep(host, 4, true);
    assert_same(dev, host);
    latmc_ens_destroy(&dev);
    latmc_ens_destroy(&host);
}

/* LATMC_ENS_PHI4_ROUND_SUMS set to what it does not take: the call fails (LATMC_EINVAL,
 * nothing swept), and goes on once it is unset. */
static void test_phi4_round_sums_refused(void **state)
{
    (void)state;
    const struct phi4_shape sh = { 2, 16, 16, 1, LATMC_PRECISION_FLOAT, 4, 1, 1, 0.0, -0.6,
                                   0.02 };
    latmc_ens *e = phi4_ensemble(&sh, 93);
    assert_int_equal(setenv("LATMC_ENS_PHI4_ROUND_SUMS", "fast", 1), 0);
    const int st = latmc_ens_sweep(e, 2);
    unsetenv("LATMC_ENS_PHI4_ROUND_SUMS");
    assert_int_equal(st, LATMC_EINVAL);
    assert_non_null(strstr(latmc_ens_last_error(e), "LATMC_ENS_PHI4_ROUND_SUMS"));
    uint64_t count = 1;
    assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
    assert_int_equal(count, 0);
    heisenberg_sweep(e, 2, false);
    latmc_ens_destroy(&e);
}

/* The same switch set between two calls, while the map is on the device: that call's list
 * is refused before anything is launched (the batch's open), so the call fails
 * (LATMC_EINVAL, nothing swept), the map comes back to the host (the device still holds
 * it: lib/ens_temper.c fetches it after a failed list), the next call loads it again, and
 * the chain is the host rounds' as if the failed call never was. */
static void test_phi4_refused_list_keeps_the_chain(void **state)
{
    (void)state;
    const struct phi4_shape sh = { 2, 16, 16, 1, LATMC_PRECISION_FLOAT, 6, 1, 1, 0.0, -0.6,
                                   0.02 };
    latmc_ens *dev = phi4_ensemble(&sh, 94);
    latmc_ens *host = phi4_ensemble(&sh, 94);
    heisenberg_sweep(dev, 3, false);
    heisenberg_sweep(host, 3, true);
    assert_int_equal(setenv("LATMC_ENS_PHI4_ROUND_SUMS", "fast", 1), 0);
    const int st = latmc_ens_sweep(dev, 2);
    unsetenv("LATMC_ENS_PHI4_ROUND_SUMS");
    assert_int_equal(st, LATMC_EINVAL);
    assert_non_null(strstr(latmc_ens_last_error(dev), "LATMC_ENS_PHI4_ROUND_SUMS"));
    uint64_t count = 0;
    assert_int_equal(latmc_ens_sweep_count(dev, &count), LATMC_OK);
    assert_int_equal(count, 3);
    heisenberg_sweep(dev, 5, false); /* loaded again: the failure fetched the map */
    heisenberg_sweep(host, 5, true);
    assert_same(dev, host);
    latmc_ens_destroy(&dev);
    latmc_ens_destroy(&host);
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    const int skip = test_device_check();
    if (skip)
        return skip;
    if (test_device() != LATMC_DEVICE_CUDA) {
        printf("a CUDA test: LATMC_TEST_DEVICE=cuda runs it\n");
        return 77;
    }
    /* LATMC_TEST_FILTER=test_heisenberg*: only the tests whose names match (cmocka's
     * pattern), e.g. under compute-sanitizer */
    if (getenv("LATMC_TEST_FILTER"))
        cmocka_set_test_filter(getenv("LATMC_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_sweep_matches_cpu),
        cmocka_unit_test(test_every_third_sweep_matches_cpu),
        cmocka_unit_test(test_many_temperatures_match_cpu),
        cmocka_unit_test(test_2d_heatbath_matches_cpu),
        cmocka_unit_test(test_large_members_match_cpu),
        cmocka_unit_test(test_byte_members_match_cpu),
        cmocka_unit_test(test_ladder_set_again_matches_cpu),
        cmocka_unit_test(test_byte_ladder_set_again_matches_cpu),
        cmocka_unit_test(test_heisenberg_heatbath_matches_host_rounds),
        cmocka_unit_test(test_heisenberg_parts_match_host_rounds),
        cmocka_unit_test(test_heisenberg_overrelax_matches_host_rounds),
        cmocka_unit_test(test_heisenberg_large_members_match_host_rounds),
        cmocka_unit_test(test_heisenberg_ladder_set_again_matches_host_rounds),
        cmocka_unit_test(test_phi4_2d_matches_host_rounds),
        cmocka_unit_test(test_phi4_3d_matches_host_rounds),
        cmocka_unit_test(test_phi4_ladder_set_again_matches_host_rounds),
        cmocka_unit_test(test_phi4_round_sums_refused),
        cmocka_unit_test(test_phi4_refused_list_keeps_the_chain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
