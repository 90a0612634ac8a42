/*
 * Ensembles are reproducible bit for bit:
 *  - with exchanges off, every member is exactly the standalone sim created from
 *    latmc_ens_member_desc() at its beta, also when a member's configuration is read and
 *    written between sweep calls (the identity matrix's `ens` rows, tests/repro/identity,
 *    hold the members of every model without that);
 *  - with parallel tempering on, the result does not depend on the thread count;
 *  - a saved and loaded ensemble continues exactly as the one that was not saved;
 *  - the documented seed derivation (doc/ensembles.md) is what the members get.
 * With LATMC_TEST_DEVICE=cuda the members run on the CUDA backend (meson: "... cuda",
 * skipped without a GPU), a tempering ensemble of Ising +-J and of Potts must equal the
 * CPU's bit for bit, and the batched launches of Heisenberg, Potts and phi^4 members the
 * same members run one by one (LATMC_ENS_HEIS_BATCH=0, LATMC_ENS_POTTS_BATCH=0,
 * LATMC_ENS_PHI4_BATCH=0), also where one member alone was made so; Swendsen-Wang members
 * (Ising, Potts) batched (the default) the same members one by one (made with
 * LATMC_ENS_SW_BATCH=0) and the CPU's members, bit for bit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <unistd.h>

#include "../fuzz/ens_format.h"
#include "ens_test_helpers.h"
#include "latmc_math.h"
#include "philox.h"
#include "sim_helpers.h"
#include "test_files.h"

static latmc_ctx *ctx;

/* The CUDA Heisenberg, Potts and phi^4 batches' debug lines since the last potts_log_reset
 * (which code the members took: backends/cuda/exec/cuda_batch.c), so that a
 * test of the batched launches fails where the members silently ran one by one. */
static char potts_log[4096];

/* One member made with a LATMC_ENS_<MODEL>_BATCH=0 of its own (mixed_ensemble): while
 * mixed_env is set, on_log counts the sims made (lib/sim.c logs each after its backend read
 * the variable) and sets mixed_env=0 at the line of the sim made before member
 * mixed_flagged, unsetting it at that member's own. */
static const char *mixed_env;
static int mixed_flagged, mixed_made;

/* The sims made on each backend (lib/sim.c's line), counted for the placement test. */
static int made_cuda, made_cpu;

static void on_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (strstr(msg, "created a ")) {
        made_cuda += strstr(msg, "on backend cuda") != NULL;
        made_cpu += strstr(msg, "on backend cpu") != NULL;
    }
    if (mixed_env && strstr(msg, "created a ")) {
        mixed_made++;
        if (mixed_made == mixed_flagged)
            setenv(mixed_env, "0", 1);
        else if (mixed_made == mixed_flagged + 1)
            unsetenv(mixed_env);
    }
    const size_t used = strlen(potts_log);
    if ((strstr(msg, "Potts members") || strstr(msg, "phi^4 members") ||
         strstr(msg, "Heisenberg members") || strstr(msg, "Swendsen-Wang") ||
         strstr(msg, "Wolff")) &&
        used + strlen(msg) + 2 < sizeof potts_log)
        snprintf(potts_log + used, sizeof potts_log - used, "%s\n", msg);
}

static void potts_log_reset(void)
{
    potts_log[0] = '\0';
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

/* Change site 0 of a configuration read back (the state a caller's set_spins installs):
 * Ising flipped, Potts to the next state mod q. */
static void flip_first(const latmc_sim_desc *d, unsigned char *spins)
{
    if (d->model == LATMC_MODEL_ISING)
        spins[0] = (unsigned char)(int8_t)-(int8_t)spins[0];
    else if (d->model == LATMC_MODEL_POTTS)
        spins[0] = (unsigned char)((spins[0] + 1) % d->q);
    else
        spins[0] ^= 1u; /* not used by other models here */
}

/* Run an ensemble without exchanges and each member's standalone twin; compare. With
 * `poke`, member 3's configuration is read and written back with site 0 flipped between
 * the two sweep calls (and every member's read), the twin the same: a backend that keeps
 * the members in another layout between sweeps must hand out and take in the current one. */
static void members_match_standalone_poked(latmc_sim_desc desc, int param, double value,
                                           bool poke)
{
    latmc_ens_layout l = ens_test_layout(2, 3, 2, 1234, 2);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &desc, &l, &e), LATMC_OK);
    const double beta[3] = { 0.2, 0.35, 0.5 };
    const bool has_beta = desc.model != LATMC_MODEL_PHI4;
    if (has_beta)
        assert_int_equal(latmc_ens_set_temperatures(e, beta, 3), LATMC_OK);
    /* phi^4: g > 0, a normalisable weight whatever mu2 */
    if (!has_beta)
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
    if (param)
        assert_int_equal(latmc_ens_set_param(e, param, value), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 7), LATMC_OK);
    size_t bytes = 0;
    latmc_ens_spins_size(e, &bytes);
    unsigned char *a = malloc(bytes), *b = malloc(bytes);
    if (poke) {
        for (int m = 0; m < 12; m++)
            assert_int_equal(latmc_ens_get_spins(e, m, b, bytes), LATMC_OK);
        assert_int_equal(latmc_ens_get_spins(e, 3, b, bytes), LATMC_OK);
        flip_first(&desc, b);
        assert_int_equal(latmc_ens_set_spins(e, 3, b, bytes), LATMC_OK);
    }
    assert_int_equal(latmc_ens_sweep(e, 5), LATMC_OK);
    double obs[12], mag[12], acc[12];
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, obs, 12),
                     LATMC_OK);
    /* Ising, Potts and phi^4: the magnetization (CUDA Ising: the batched measurement) and
     * each member's flips over its attempts (CUDA: the batched kernels' counters, set by a
     * call's first launch) */
    const bool has_m = desc.model == LATMC_MODEL_ISING || desc.model == LATMC_MODEL_POTTS ||
                       desc.model == LATMC_MODEL_PHI4;
    /* Heisenberg: |M| / N, every component of M (CUDA: the batch's sums reduction) */
    const bool has_mag = has_m || desc.model == LATMC_MODEL_HEISENBERG;
    if (has_mag)
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_MAGNETIZATION, LATMC_ENS_BY_MEMBER,
                                               mag, 12), LATMC_OK);
    if (has_m) {
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER,
                                               acc, 12), LATMC_OK);
    }
    for (int m = 0; m < 12; m++) {
        latmc_sim_desc md = { .struct_size = sizeof md };
        assert_int_equal(latmc_ens_member_desc(e, m, &md), LATMC_OK);
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_sim_create(ctx, &md, &sim), LATMC_OK);
        int t = -1;
        assert_int_equal(latmc_ens_temperature_of(e, m, &t), LATMC_OK);
        assert_int_equal(t, (m / 2) % 3); /* home slot, no exchanges */
        if (has_beta)
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta[t]), LATMC_OK);
        if (!has_beta)
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0), LATMC_OK);
        if (param)
            assert_int_equal(latmc_sim_set_param(sim, param, value), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        if (poke && m == 3) {
            assert_int_equal(latmc_sim_sweep(sim, 7), LATMC_OK);
            assert_int_equal(latmc_sim_get_spins(sim, a, bytes), LATMC_OK);
            flip_first(&desc, a);
            assert_int_equal(latmc_sim_set_spins(sim, a, bytes), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 5), LATMC_OK);
        } else {
            assert_int_equal(latmc_sim_sweep(sim, 12), LATMC_OK);
        }
        assert_int_equal(latmc_sim_get_spins(sim, a, bytes), LATMC_OK);
        assert_int_equal(latmc_ens_get_spins(e, m, b, bytes), LATMC_OK);
        assert_memory_equal(a, b, bytes);
        double en = 0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &en), LATMC_OK);
        assert_true(en == obs[m]);
        if (has_mag) {
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &en), LATMC_OK);
            assert_true(en == mag[m]);
        }
        if (has_m) {
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &en), LATMC_OK);
            assert_true(en > 0 && en == acc[m]);
        }
        latmc_sim_destroy(&sim);
    }
    free(a);
    free(b);
    latmc_ens_destroy(&e);
}

/* The lattices of the CUDA ensembles' multi-spin coded kernel (backends/cuda/ising/
 * ising_batch_packed_kernels.cu: L_x a multiple of 16, the members kept packed between calls),
 * whose standalone sims run the packed kernels (as chains where small): 3D and 2D, uniform and
 * +-J, Metropolis and heat bath, L = 16 and 32 (two words a row), and a member read and written
 * between calls. On CUDA the fused kernel's forms: blocks of more than 256 threads, 3D 32^3
 * (2048 words a colour: 1024 threads), uniform heat bath and +-J Metropolis, 2D 96^2 +-J
 * (576 words: 288 threads) and 128 x 80 uniform heat bath in a field (640: 320); past 2048
 * words (STREAM: each word's place found where it is updated) 3D 32 x 32 x 48 (3072 words)
 * uniform heat bath and +-J, 2D 256^2 +-J (4096). Then the colour launches that whole
 * sweeps take without the fused kernel (LATMC_ENS_ISING_FUSED=0): uniform 2D 80 x 224 (rows
 * of 5 words: the word-by-word kernel) and 3D 32 x 32 x 48 heat bath (2 words: the rows
 * kernel), +-J 2D 48 x 352 heat bath (3 words) and 3D 32 x 32 x 48 (2) on the word-by-word
 * kernel (the 2D two again with items of 2 words, LATMC_ENS_ISING_WORDS=2), +-J 2D L = 256,
 * whose rows hold whole groups of 8 words, on the rows kernel and with
 * LATMC_ENS_ISING_SWEEP=words on the word-by-word one. On the CPU the same comparisons hold
 * (the variables change nothing there). */
/* 3D 32 x 32 x lz members: uniform heat bath, then +-J Metropolis. */
static void cube_pair_match_standalone(int lz)
{
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 3, 32);
    d.extent[2] = lz;
    d.algorithm = LATMC_ALGO_HEATBATH;
    members_match_standalone_poked(d, 0, 0, true);
    d.algorithm = LATMC_ALGO_METROPOLIS;
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    members_match_standalone_poked(d, 0, 0, true);
}

static void test_ising_packed_lattices_standalone(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 3, 16);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    members_match_standalone_poked(d, 0, 0, true);
    d = ens_test_desc(LATMC_MODEL_ISING, 2, 16);
    members_match_standalone_poked(d, LATMC_PARAM_H, -0.2, true);
    /* the fused kernel's blocks of more than 256 threads, and STREAM */
    cube_pair_match_standalone(32);
    cube_pair_match_standalone(48);
    d = ens_test_desc(LATMC_MODEL_ISING, 2, 96);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    members_match_standalone_poked(d, 0, 0, true);
    d = ens_test_desc(LATMC_MODEL_ISING, 2, 128);
    d.extent[1] = 80;
    d.algorithm = LATMC_ALGO_HEATBATH;
    members_match_standalone_poked(d, LATMC_PARAM_H, 0.15, true);
    d = ens_test_desc(LATMC_MODEL_ISING, 2, 256);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    members_match_standalone_poked(d, 0, 0, true);
    /* the colour launches of whole sweeps */
    assert_int_equal(setenv("LATMC_ENS_ISING_FUSED", "0", 1), 0);
    for (int words = 0; words < 2; words++) {
        /* then items of 2 words, which cross rows' ends (this few members: 1 a word) */
        if (words)
            assert_int_equal(setenv("LATMC_ENS_ISING_WORDS", "2", 1), 0);
        d = ens_test_desc(LATMC_MODEL_ISING, 2, 80);
        d.extent[1] = 224; /* 1120 words */
        members_match_standalone_poked(d, 0, 0, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 2, 48);
        d.extent[1] = 352; /* 1056 words */
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.algorithm = LATMC_ALGO_HEATBATH;
        members_match_standalone_poked(d, 0, 0, true);
    }
    assert_int_equal(unsetenv("LATMC_ENS_ISING_WORDS"), 0);
    cube_pair_match_standalone(48);
    d = ens_test_desc(LATMC_MODEL_ISING, 2, 256);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    members_match_standalone_poked(d, 0, 0, true);
    assert_int_equal(setenv("LATMC_ENS_ISING_SWEEP", "words", 1), 0);
    members_match_standalone_poked(d, 0, 0, true);
    assert_int_equal(unsetenv("LATMC_ENS_ISING_SWEEP"), 0);
    assert_int_equal(unsetenv("LATMC_ENS_ISING_FUSED"), 0);
}

/* Members of the byte layout (L_x not a multiple of 16: ising/ising_batch_bytes_kernels.cu):
 * on CUDA their whole sweeps run on the fused byte kernel (a block a member in shared
 * memory), and under LATMC_ENS_ISING_FUSED=0 as a launch a colour: 3D 12^3 +-J
 * Metropolis, 2D 40 x 24 heat bath in a field, 3D 24 x 12 x 8 uniform Metropolis, 3D 20^3
 * +-J heat bath and 2D 36 x 20 +-J Metropolis (L_x / 2 = 10 and 18 sites of a colour a
 * row: Philox blocks of four sites that span two rows), 2D 10 x 6 +-J heat bath (30 sites
 * a colour: a last Philox block of two), 3D 4 x 6 x 10 uniform (L_x / 2 = 2) and 3D 36^3
 * uniform (45.6 KiB of spins: past the default 48 KiB with the kernel's static shared
 * memory, the launch's opt-in). */
static void test_ising_byte_lattices_standalone(void **state)
{
    (void)state;
    for (int fused = 1; fused >= 0; fused--) {
        if (!fused)
            assert_int_equal(setenv("LATMC_ENS_ISING_FUSED", "0", 1), 0);
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 3, 12);
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        members_match_standalone_poked(d, 0, 0, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 2, 40);
        d.extent[1] = 24;
        d.algorithm = LATMC_ALGO_HEATBATH;
        members_match_standalone_poked(d, LATMC_PARAM_H, 0.25, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 3, 24);
        d.extent[1] = 12;
        d.extent[2] = 8;
        members_match_standalone_poked(d, 0, 0, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 3, 20);
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.algorithm = LATMC_ALGO_HEATBATH;
        members_match_standalone_poked(d, 0, 0, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 2, 36);
        d.extent[1] = 20;
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        members_match_standalone_poked(d, 0, 0, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 2, 10);
        d.extent[1] = 6;
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.algorithm = LATMC_ALGO_HEATBATH;
        members_match_standalone_poked(d, 0, 0, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 3, 4);
        d.extent[1] = 6;
        d.extent[2] = 10;
        members_match_standalone_poked(d, 0, 0, true);
        d = ens_test_desc(LATMC_MODEL_ISING, 3, 36);
        members_match_standalone_poked(d, 0, 0, true);
    }
    assert_int_equal(unsetenv("LATMC_ENS_ISING_FUSED"), 0);
}

/* Heisenberg members of the size the CUDA ensembles run in one launch (backends/cuda/
 * heisenberg/heisenberg_batch_kernels.cu: one block per member, its spins in shared memory):
 * 3D L = 16 Gaussian heat bath + 2 overrelaxation passes in float, with a member read and written
 * between calls; +-J in double with one pass; 2D overrelaxation alone. Each member must be its
 * standalone sim bit for bit (on CUDA: its standalone CUDA sim; on the CPU the same comparison
 * holds, the precision being the CUDA kernels' only). */
static void test_heisenberg_members_standalone(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_HEISENBERG, 3, 16);
    d.couplings = LATMC_COUPLINGS_GAUSSIAN;
    d.precision = LATMC_PRECISION_FLOAT;
    members_match_standalone_poked(d, LATMC_PARAM_NOVER, 2, true);
    /* shapes of the sums reduction's other cases (ens_heisenberg_measure_window_kernel; the
     * windows' shapes: tools/heisenberg-window-host-check.sh): windows wider than a row with a
     * partial last one (3D 10 x 12 x 6: W 32 over chunks of 120 sites), windows of 4 sites
     * with several magnetisation chains a thread (2D 64 x 48), more chunks than its
     * producers (2D 16 x 600: the other reductions), windows of 2 sites with two bond
     * chains for some consumers (2D 30 x 66: 66 chunks); a field, so that M_z enters the
     * energy. On CUDA the members must have run and been measured batched. */
    static const int shapes[][3] = { { 10, 12, 6 }, { 64, 48, 0 }, { 16, 600, 0 },
                                     { 30, 66, 0 } };
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        d = ens_test_desc(LATMC_MODEL_HEISENBERG, shapes[k][2] ? 3 : 2, shapes[k][0]);
        d.extent[1] = shapes[k][1];
        if (shapes[k][2])
            d.extent[2] = shapes[k][2];
        d.couplings = LATMC_COUPLINGS_GAUSSIAN;
        d.precision = k == 1 ? LATMC_PRECISION_DOUBLE : LATMC_PRECISION_FLOAT;
        potts_log_reset();
        members_match_standalone_poked(d, LATMC_PARAM_H, 0.3, true);
        if (ens_test_device == LATMC_DEVICE_CUDA &&
            (!strstr(potts_log, "12 Heisenberg members in batched launches") ||
             !strstr(potts_log, "12 Heisenberg members measured in one launch")))
            fail_msg("shape %zu: expected the batched launches and measurement, logged:\n%s",
                     k, potts_log);
    }
}

/* Heisenberg members too large for one block's shared memory (backends/cuda/heisenberg/
 * cuda_heisenberg_batch.c: a launch a pass over every member, the one-lattice pass kernel's
 * code): 3D 28^3 float (21,952 sites: 263 KiB of spins) heat bath + 2 overrelaxation
 * passes with a member read and written between calls, 3D 28^3 double +-J overrelaxation
 * alone (one pass a sweep), 2D 192 x 112 float overrelaxation with 3 passes a sweep
 * (21,504 sites); on CUDA also 3D 32^3 float heat bath + 2 overrelaxation, whose default
 * tiles (32 x 8 for both passes) are whole: the batch's instances with the tile's extents
 * as constants (heisenberg_kernels.cu, heisenberg_fixed_tile). Each member must be its
 * standalone sim bit for bit; on CUDA the members must have run a launch a pass and been
 * measured batched. */
static void test_heisenberg_large_members_standalone(void **state)
{
    (void)state;
    for (int k = 0; k < 4; k++) {
        if (k == 3 && ens_test_device != LATMC_DEVICE_CUDA)
            break; /* a CUDA kernel's case: on the CPU the 28^3 heat bath's path again */
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_HEISENBERG, k == 2 ? 2 : 3,
                                         k == 2 ? 192 : k == 3 ? 32 : 28);
        if (k == 2)
            d.extent[1] = 112;
        d.couplings = k == 1 ? LATMC_COUPLINGS_BIMODAL : LATMC_COUPLINGS_GAUSSIAN;
        d.precision = k == 1 ? LATMC_PRECISION_DOUBLE : LATMC_PRECISION_FLOAT;
        d.algorithm = k == 0 || k == 3 ? LATMC_ALGO_HEATBATH : LATMC_ALGO_OVERRELAX;
        potts_log_reset();
        members_match_standalone_poked(d, LATMC_PARAM_NOVER,
                                       k == 0 || k == 3 ? 2 : k == 1 ? 1 : 3, k != 1);
        if (ens_test_device == LATMC_DEVICE_CUDA &&
            (!strstr(potts_log, "12 Heisenberg members in batched launches") ||
             !strstr(potts_log, "a launch a pass") ||
             !strstr(potts_log, "12 Heisenberg members measured in one launch")))
            fail_msg("case %d: expected a launch a pass and the batched measurement, "
                     "logged:\n%s", k, potts_log);
    }
}

/* Potts members of the CUDA ensembles' batched launches (backends/cuda/potts/
 * potts_batch_kernels.cu): small members take whole sweeps in one launch, larger ones one
 * launch a colour step, on the single-lattice row kernels' code where the lattice suits
 * them (2D L = 16: 16-byte segments, q = 3 heat bath and Metropolis; 2D L = 32 q = 8: the
 * multiset table in 16-byte segments, 128^2 in its 32-byte ones; 3D L = 16 q = 4 heat
 * bath, q = 3 Metropolis; 3D 32^3 q = 3: the member left in global memory, its copy would
 * cost a block an SM; 3 colours on 24 x 15; 2D 256^2: several blocks a member, a launch a
 * step), else on the
 * reference's per-block update (3D L = 6, q = 5 heat bath; 2D 18 x 9, 3 colours). Each
 * member read and written between calls, and each must be its standalone sim bit for bit
 * (on CUDA its standalone CUDA sim; on the CPU the same comparisons hold). */
static void test_potts_members_standalone(void **state)
{
    (void)state;
    /* rows: the row kernels' code (else the reference's update); fused: whole sweeps a
     * launch (else a launch a colour step) */
    static const struct {
        int ndim, lx, ly, q, algorithm, rows, fused;
    } cases[] = {
        { 2, 16, 16, 3, LATMC_ALGO_HEATBATH, 1, 1 },
        { 2, 16, 16, 3, LATMC_ALGO_METROPOLIS, 1, 1 },
        { 2, 32, 32, 8, LATMC_ALGO_HEATBATH, 1, 1 },
        { 3, 16, 16, 4, LATMC_ALGO_HEATBATH, 1, 1 },
        { 3, 16, 16, 3, LATMC_ALGO_METROPOLIS, 1, 1 },
        { 2, 24, 15, 3, LATMC_ALGO_HEATBATH, 1, 1 },
        { 2, 256, 256, 3, LATMC_ALGO_METROPOLIS, 1, 0 },
        { 3, 6, 6, 5, LATMC_ALGO_HEATBATH, 0, 1 },
        { 2, 18, 9, 4, LATMC_ALGO_METROPOLIS, 0, 1 },
        { 2, 128, 128, 8, LATMC_ALGO_HEATBATH, 1, 1 },
        { 3, 32, 32, 3, LATMC_ALGO_HEATBATH, 1, 1 },
    };
    /* all of them, then two small ones again a launch a colour step (LATMC_ENS_POTTS_SWEEP=
     * steps: the row kernels' code and the reference's update in the per-step launch) */
    const size_t n_cases = sizeof cases / sizeof cases[0];
    for (size_t j = 0; j < n_cases + 2; j++) {
        const size_t k = j < n_cases ? j : j == n_cases ? 0 : 7;
        const bool steps = j >= n_cases;
        if (steps)
            assert_int_equal(setenv("LATMC_ENS_POTTS_SWEEP", "steps", 1), 0);
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_POTTS, cases[k].ndim, cases[k].lx);
        d.extent[1] = cases[k].ly;
        d.q = cases[k].q;
        d.algorithm = cases[k].algorithm;
        potts_log_reset();
        members_match_standalone_poked(d, LATMC_PARAM_H, 0.1, true);
        unsetenv("LATMC_ENS_POTTS_SWEEP");
        if (ens_test_device != LATMC_DEVICE_CUDA)
            continue;
        char want[160];
        snprintf(want, sizeof want, "12 Potts members in batched launches, the %s, %s",
                 cases[k].rows ? "row kernels' code" : "reference update",
                 cases[k].fused && !steps ? "whole sweeps a launch" : "a launch a colour step");
        if (!strstr(potts_log, want) || !strstr(potts_log, "12 Potts members measured in one"))
            fail_msg("case %zu%s: expected \"%s\" and the batched measurement, logged:\n%s", k,
                     steps ? " (steps)" : "", want, potts_log);
    }
}

/* phi^4 members of the CUDA ensembles' batched launches (backends/cuda/phi4/
 * phi4_batch_kernels.cu): the chunk schedule a launch a sub-grid (2D 8 colours, 2D 5 colours,
 * 3D; with LATMC_CUDA_PHI4_THREADS=32 a thread several segments), the site order a launch a
 * colour step (2D 264 x 136) or, for small members, whole sweeps a launch (3D 16^3, 2D
 * 20 x 15 with 5 colours, 2D 64^2 with LATMC_CUDA_PHI4_CHUNK=none: the member in shared
 * memory; 2D 176^2 double, too large for it: in global memory); float and double, nhit,
 * nloc, a finite Lambda and mu2 set on the ensemble. Each member read and written between
 * calls, and each must be its standalone sim bit for bit (on CUDA its standalone CUDA sim;
 * on the CPU the same comparisons hold). */
static void test_phi4_members_standalone(void **state)
{
    (void)state;
    static const struct {
        int ndim, lx, ly, lz, precision, param;
        double value;
        const char *env, *env_value;
        int chunks, fused;
    } cases[] = {
        { 3, 16, 16, 16, LATMC_PRECISION_FLOAT, LATMC_PARAM_NHIT, 3, NULL, NULL, 0, 1 },
        { 3, 16, 16, 16, LATMC_PRECISION_DOUBLE, LATMC_PARAM_LAMBDA, 2, NULL, NULL, 0, 1 },
        { 2, 64, 64, 1, LATMC_PRECISION_FLOAT, LATMC_PARAM_NLOC, 2, NULL, NULL, 1, 0 },
        { 2, 64, 64, 1, LATMC_PRECISION_DOUBLE, LATMC_PARAM_LAMBDA, 3, NULL, NULL, 1, 0 },
        { 3, 64, 8, 8, LATMC_PRECISION_FLOAT, LATMC_PARAM_LAMBDA, 2, NULL, NULL, 1, 0 },
        { 3, 64, 8, 8, LATMC_PRECISION_DOUBLE, LATMC_PARAM_NHIT, 2, NULL, NULL, 1, 0 },
        { 2, 80, 30, 1, LATMC_PRECISION_FLOAT, LATMC_PARAM_MU2, -0.5, NULL, NULL, 1, 0 },
        { 2, 20, 15, 1, LATMC_PRECISION_DOUBLE, LATMC_PARAM_NLOC, 2, NULL, NULL, 0, 1 },
        { 2, 264, 136, 1, LATMC_PRECISION_FLOAT, LATMC_PARAM_LAMBDA, 2, NULL, NULL, 0, 0 },
        { 2, 64, 128, 1, LATMC_PRECISION_FLOAT, LATMC_PARAM_NHIT, 2, "LATMC_CUDA_PHI4_THREADS",
          "32", 1, 0 },
        { 2, 64, 64, 1, LATMC_PRECISION_DOUBLE, LATMC_PARAM_MU2, -0.5, "LATMC_CUDA_PHI4_CHUNK",
          "none", 0, 1 },
        { 2, 176, 176, 1, LATMC_PRECISION_DOUBLE, LATMC_PARAM_NHIT, 2, NULL, NULL, 0, 1 },
    };
    /* LATMC_TEST_PHI4_CASES="0,2": only those cases (e.g. under compute-sanitizer) */
    const char *only = getenv("LATMC_TEST_PHI4_CASES");
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char key[16];
        snprintf(key, sizeof key, ",%zu,", k);
        char list[128];
        snprintf(list, sizeof list, ",%s,", only ? only : "");
        if (only && !strstr(list, key))
            continue;
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_PHI4, cases[k].ndim, cases[k].lx);
        d.extent[1] = cases[k].ly;
        if (cases[k].ndim == 3)
            d.extent[2] = cases[k].lz;
        d.precision = cases[k].precision;
        if (cases[k].env)
            assert_int_equal(setenv(cases[k].env, cases[k].env_value, 1), 0);
        potts_log_reset();
        members_match_standalone_poked(d, cases[k].param, cases[k].value, true);
        if (cases[k].env)
            unsetenv(cases[k].env);
        if (ens_test_device != LATMC_DEVICE_CUDA)
            continue;
        char want[160];
        snprintf(want, sizeof want, "12 phi^4 members in batched launches, the %s, %s",
                 cases[k].chunks ? "chunk schedule" : "site order",
                 cases[k].fused ? "whole sweeps a launch" : "a launch a step");
        if (!strstr(potts_log, want) ||
            !strstr(potts_log, "12 phi^4 members measured in two launches"))
            fail_msg("case %zu: expected \"%s\" and the batched measurement, logged:\n%s", k,
                     want, potts_log);
    }
}

/* The derivation doc/ensembles.md states, recomputed here from Philox itself. */
static void test_seed_derivation(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 4);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    latmc_ens_layout l = ens_test_layout(3, 2, 2, UINT64_C(0x123456789abc), 1);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    float c0[32], c1[32];
    for (int m = 0; m < 12; m++) {
        latmc_sim_desc md = { .struct_size = sizeof md };
        assert_int_equal(latmc_ens_member_desc(e, m, &md), LATMC_OK);
        latmc_philox_key k = { { (uint32_t)l.seed, (uint32_t)(l.seed >> 32) } };
        latmc_philox_ctr c = { { (uint32_t)m, 0, 0, 13u << 24 } };
        latmc_philox_ctr r = latmc_philox4x32_10(c, k);
        assert_true(md.seed == ((uint64_t)r.v[0] | (uint64_t)r.v[1] << 32));
        const int s = m / 4;
        latmc_philox_key kc = { { (uint32_t)l.coupling_seed, (uint32_t)(l.coupling_seed >> 32) } };
        latmc_philox_ctr cc = { { (uint32_t)s, 0, 0, 14u << 24 } };
        r = latmc_philox4x32_10(cc, kc);
        assert_true(md.coupling_seed == ((uint64_t)r.v[0] | (uint64_t)r.v[1] << 32));
        assert_int_equal(md.n_threads, 1);
        int back = -1;
        assert_int_equal(latmc_ens_member_index(e, s, (m / 2) % 2, m % 2, &back), LATMC_OK);
        assert_int_equal(back, m);
    }
    /* Replicas and temperatures of a sample share its couplings; samples differ. */
    latmc_ens_destroy(&e);
    latmc_sim_desc md0 = { .struct_size = sizeof md0 }, md1 = { .struct_size = sizeof md1 };
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    latmc_ens_member_desc(e, 0, &md0);
    latmc_ens_member_desc(e, 3, &md1);
    latmc_sim *s0 = NULL, *s1 = NULL;
    assert_int_equal(latmc_sim_create(ctx, &md0, &s0), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, &md1, &s1), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(s0, c0, 32), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(s1, c1, 32), LATMC_OK);
    assert_memory_equal(c0, c1, sizeof c0);
    latmc_sim_destroy(&s1);
    latmc_ens_member_desc(e, 4, &md1); /* sample 1 */
    assert_int_equal(latmc_sim_create(ctx, &md1, &s1), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(s1, c1, 32), LATMC_OK);
    assert_memory_not_equal(c0, c1, sizeof c0);
    latmc_sim_destroy(&s0);
    latmc_sim_destroy(&s1);
    latmc_ens_destroy(&e);
}

/* The exchange rule of doc/ensembles.md recomputed from Philox itself: round r offers
 * the pairs (t, t+1), t = r mod 2, r mod 2 + 2, ..., of each (sample, replica), accepts
 * with u < floor(exp(Delta) 2^32), u = output j mod 4 of Philox block j / 4 of key seed,
 * stream 15, sweep field r, j = (sample n_R + replica)(n_T - 1) + t, Delta =
 * (beta[t+1] - beta[t]) (E_b - E_a). Each round's map is predicted from the previous
 * one and the energies after the sweep (swaps move betas, not configurations). */
static void test_exchange_rule(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 4);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    enum { NS = 3, NT = 5, NR = 2, M = NS * NT * NR };
    latmc_ens_layout l = ens_test_layout(NS, NT, NR, UINT64_C(0xfeedbeef12), 1);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    const double beta[NT] = { 0.2, 0.3, 0.4, 0.5, 0.6 };
    assert_int_equal(latmc_ens_set_temperatures(e, beta, NT), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    int at[M]; /* member at (s, t, r) */
    for (int i = 0; i < M; i++)
        at[i] = i; /* home map */
    uint64_t accepted = 0;
    for (uint64_t r = 0; r < 40; r++) {
        assert_int_equal(latmc_ens_sweep(e, 1), LATMC_OK); /* sweep r + 1, then round r */
        double en[M];
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, en, M),
                         LATMC_OK);
        for (int s = 0; s < NS; s++)
            for (int rep = 0; rep < NR; rep++)
                for (int t = (int)(r % 2); t + 1 < NT; t += 2) {
                    const int ia = (s * NT + t) * NR + rep, ib = (s * NT + t + 1) * NR + rep;
                    const double delta = (beta[t + 1] - beta[t]) *
                                         (en[at[ib]] * 16.0 - en[at[ia]] * 16.0);
                    const uint64_t j = (uint64_t)(s * NR + rep) * (NT - 1) + (uint64_t)t;
                    latmc_philox_key k = { { (uint32_t)l.seed, (uint32_t)(l.seed >> 32) } };
                    latmc_philox_ctr c = { { (uint32_t)(j / 4), 0, (uint32_t)r, 15u << 24 } };
                    const uint32_t u = latmc_philox4x32_10(c, k).v[j % 4];
                    bool yes = delta >= 0;
                    if (!yes) {
                        const double p = latmc_math_exp(delta) * 4294967296.0;
                        yes = (uint64_t)u < (p >= 4294967296.0 ? UINT64_C(4294967296)
                                                              : (uint64_t)p);
                    }
                    if (yes) {
                        const int x = at[ia];
                        at[ia] = at[ib];
                        at[ib] = x;
                        accepted++;
                    }
                }
        for (int s = 0; s < NS; s++)
            for (int t = 0; t < NT; t++)
                for (int rep = 0; rep < NR; rep++) {
                    int m = -1;
                    assert_int_equal(latmc_ens_member_at(e, s, t, rep, &m), LATMC_OK);
                    assert_int_equal(m, at[(s * NT + t) * NR + rep]);
                }
    }
    assert_true(accepted > 20); /* the rule was exercised */
    latmc_ens_destroy(&e);
}

/* A tempering ensemble of the 3D +-J model; returns its state after `sweeps`. */
struct ens_state {
    unsigned char *spins;
    size_t bytes;
    int map[64];
    uint64_t acc[3], att[3], trips;
    double trip_mean;
};

static void capture(latmc_ens *e, struct ens_state *s)
{
    s->spins = ens_test_all_spins(e, &s->bytes);
    assert_non_null(s->spins);
    for (int m = 0; m < 32; m++)
        assert_int_equal(latmc_ens_temperature_of(e, m, &s->map[m]), LATMC_OK);
    assert_int_equal(latmc_ens_exchange_counts(e, s->acc, s->att, 3), LATMC_OK);
    assert_int_equal(latmc_ens_round_trips(e, &s->trips, &s->trip_mean), LATMC_OK);
}

static void assert_same_state(const struct ens_state *a, const struct ens_state *b)
{
    assert_int_equal(a->bytes, b->bytes);
    assert_memory_equal(a->spins, b->spins, a->bytes);
    assert_memory_equal(a->map, b->map, 32 * sizeof(int));
    assert_memory_equal(a->acc, b->acc, sizeof a->acc);
    assert_memory_equal(a->att, b->att, sizeof a->att);
    assert_int_equal(a->trips, b->trips);
    assert_true(a->trip_mean == b->trip_mean);
}

/* The ladder of tempering_ensemble_of (the L = 16 members need a closer one). */
static const double wide_ladder[4] = { 0.3, 0.5, 0.7, 0.9 };
static const double *ladder = wide_ladder;

static latmc_ens *tempering_ensemble_of(latmc_sim_desc d, int threads)
{
    latmc_ens_layout l = ens_test_layout(4, 4, 2, 99, threads);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    const double *beta = ladder;
    assert_int_equal(latmc_ens_set_temperatures(e, beta, 4), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    return e;
}

static latmc_ens *tempering_ensemble(int threads)
{
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 3, 4);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    return tempering_ensemble_of(d, threads);
}

/* Tempering ensembles of every model with a beta: 1, 2 and 3 threads, the same state. */
static void threads_identical(latmc_sim_desc d)
{
    struct ens_state s[3];
    const int threads[3] = { 1, 2, 3 };
    for (int i = 0; i < 3; i++) {
        latmc_ens *e = tempering_ensemble_of(d, threads[i]);
        /* uneven calls: rounds follow the sweep count, not the calls */
        assert_int_equal(latmc_ens_sweep(e, i == 0 ? 200 : 101), LATMC_OK);
        if (i > 0)
            assert_int_equal(latmc_ens_sweep(e, 99), LATMC_OK);
        capture(e, &s[i]);
        latmc_ens_destroy(&e);
    }
    uint64_t attempted = 0, accepted = 0;
    for (int t = 0; t < 3; t++) {
        attempted += s[0].att[t];
        accepted += s[0].acc[t];
    }
    assert_true(attempted > 0 && accepted > 0 && accepted < attempted); /* PT did act */
    assert_same_state(&s[0], &s[1]);
    assert_same_state(&s[0], &s[2]);
    for (int i = 0; i < 3; i++)
        free(s[i].spins);
}

static void test_threads_identical(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 3, 4);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    threads_identical(d);
    d = ens_test_desc(LATMC_MODEL_POTTS, 3, 4);
    d.q = 3;
    threads_identical(d);
    d = ens_test_desc(LATMC_MODEL_HEISENBERG, 3, 4);
    d.couplings = LATMC_COUPLINGS_GAUSSIAN;
    threads_identical(d);
    /* members large enough that the calls between exchanges take a thread team (lib/
     * ens_exec.c runs smaller calls on the calling thread), L = 16 on the SIMD levels'
     * narrow-row kernels, uniform and +-J */
    static const double close_ladder[4] = { 0.2, 0.205, 0.21, 0.215 };
    ladder = close_ladder;
    d = ens_test_desc(LATMC_MODEL_ISING, 3, 16);
    threads_identical(d);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    threads_identical(d);
    ladder = wide_ladder;
}

/* A fresh temporary directory (dir: "/tmp/latmc-ens-XXXXXX") and the path run.ens in it. */
static void temp_ens_path(char *dir, char *path, size_t size)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, size, "%s/run.ens", dir);
}

static void test_save_load_continues(void **state)
{
    (void)state;
    char dir[] = "/tmp/latmc-ens-XXXXXX", path[256];
    temp_ens_path(dir, path, sizeof path);
    latmc_ens *a = tempering_ensemble(2);
    assert_int_equal(latmc_ens_sweep(a, 61), LATMC_OK);
    assert_int_equal(latmc_ens_save(a, path), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(a, 80), LATMC_OK);
    latmc_ens *b = NULL;
    assert_int_equal(latmc_ens_load(ctx, path, &b), LATMC_OK);
    uint64_t count = 0;
    assert_int_equal(latmc_ens_sweep_count(b, &count), LATMC_OK);
    assert_int_equal(count, 61);
    assert_int_equal(latmc_ens_sweep(b, 80), LATMC_OK);
    struct ens_state sa, sb;
    capture(a, &sa);
    capture(b, &sb);
    assert_same_state(&sa, &sb);
    free(sa.spins);
    free(sb.spins);

    /* Damaged files: refused, nothing created. */
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(c ^ 0x10, f);
    fclose(f);
    latmc_ens *bad = (latmc_ens *)&bad;
    assert_int_equal(latmc_ens_load(ctx, path, &bad), LATMC_ECORRUPT);
    assert_null(bad);
    assert_int_equal(truncate(path, size - 9), 0);
    assert_int_equal(latmc_ens_load(ctx, path, &bad), LATMC_ECORRUPT);
    assert_int_equal(remove(path), 0);
    assert_int_equal(latmc_ens_load(ctx, path, &bad), LATMC_EIO);
    assert_null(bad);
    /* A sim checkpoint is not an ensemble file. */
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 4);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_save(sim, path), LATMC_OK);
    assert_int_equal(latmc_ens_load(ctx, path, &bad), LATMC_ECORRUPT);
    latmc_sim_destroy(&sim);
    remove(path);
    rmdir(dir);
    latmc_ens_destroy(&a);
    latmc_ens_destroy(&b);
}

/* The next sweep of e is refused (LATMC_ESTATE, past 2^62, naming `what` and `remedy`)
 * with nothing changed. */
static void assert_sweep_refused(latmc_ens *e, const char *what, const char *remedy)
{
    struct ens_state before, after;
    uint64_t count = 0, count_after = 0;
    capture(e, &before);
    assert_int_equal(latmc_ens_sweep_count(e, &count), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_ESTATE);
    print_message("refused: %s\n", latmc_ens_last_error(e));
    assert_true(strncmp(latmc_last_error(), "latmc_ens_sweep: ", 17) == 0);
    assert_non_null(strstr(latmc_last_error(), what));
    assert_non_null(strstr(latmc_last_error(), "2^62"));
    assert_non_null(strstr(latmc_ens_last_error(e), remedy));
    capture(e, &after);
    assert_int_equal(latmc_ens_sweep_count(e, &count_after), LATMC_OK);
    assert_int_equal(count_after, count);
    assert_same_state(&before, &after);
    free(before.spins);
    free(after.spins);
}

/* An ensemble loaded from `bytes` (resealed, ens_format.h) sweeps once (3 sweeps, one
 * exchange round) past latmc_sim_sweep's bound on attempted updates (2^62); what it saves
 * then loads, and the next sweep is refused (naming `what` and `remedy`) with nothing
 * changed. Returns the refused ensemble. */
static latmc_ens *past_the_bound(const char *path, unsigned char *bytes, size_t n,
                                 const char *what, const char *remedy)
{
    ens_reseal(bytes, n);
    test_write_file(path, bytes, n);
    latmc_ens *e = NULL, *back = NULL;
    assert_int_equal(latmc_ens_load(ctx, path, &e), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
    assert_int_equal(latmc_ens_load(ctx, path, &back), LATMC_OK);
    latmc_ens_destroy(&e);
    assert_sweep_refused(back, what, remedy);
    return back;
}

/* A tempering ensemble swept 6 times (2 exchange rounds) saved at `path` in a new
 * temporary directory: its bytes, a buffer of their size to edit, their layout. */
struct saved_ens {
    char dir[32], path[256];
    unsigned char *bytes, *copy;
    size_t n;
    struct ens_layout l;
};

static void saved_tempering(struct saved_ens *s)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/latmc-ens-XXXXXX");
    temp_ens_path(s->dir, s->path, sizeof s->path);
    latmc_ens *e = tempering_ensemble(1);
    assert_int_equal(latmc_ens_sweep(e, 6), LATMC_OK);
    assert_int_equal(latmc_ens_save(e, s->path), LATMC_OK);
    latmc_ens_destroy(&e);
    s->bytes = test_read_file(s->path, &s->n);
    s->copy = malloc(s->n);
    assert_true(s->bytes && s->copy);
    s->l = ens_layout_of(s->bytes, s->n);
    assert_true(s->l.members != 0 && s->l.n_temps == 4 && s->l.n_members == 32);
}

static void saved_free(struct saved_ens *s)
{
    free(s->copy);
    free(s->bytes);
    remove(s->path);
    rmdir(s->dir);
}

/* The acceptance counters the ensemble file keeps, its exchange pairs' and its members',
 * bound as a sim's (latmc_sim_sweep refuses past 2^62 attempted, the loader past 2^63), so
 * that what an ensemble saves it loads again: members on the CUDA backend sweep as one
 * batch, whose bookkeeping is the ensemble's own. */
static void test_counters_bound(void **state)
{
    (void)state;
    const uint64_t bound = UINT64_C(1) << 62;
    struct saved_ens s;
    saved_tempering(&s);
    const char *path = s.path;
    unsigned char *saved = s.bytes, *p = s.copy;
    const size_t n = s.n;
    const struct ens_layout l = s.l;
    latmc_ens *e = NULL;

    /* the pairs' attempts at the bound; latmc_ens_set_ladder empties them */
    memcpy(p, saved, n);
    for (size_t t = 0; t < 3; t++)
        ckpt_put_le(p + l.attempted + 8 * t, bound, 8);
    e = past_the_bound(path, p, n, "exchange counters", "latmc_ens_set_ladder");
    assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_BETA, ladder, 4), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    latmc_ens_destroy(&e);
    /* past the loader's bound: the file is refused (an exchange round could wrap it) */
    ckpt_put_le(p + l.attempted, (bound << 1) + 1, 8);
    ens_reseal(p, n);
    test_write_file(path, p, n);
    latmc_ens *bad = (latmc_ens *)&bad;
    assert_int_equal(latmc_ens_load(ctx, path, &bad), LATMC_ECORRUPT);
    assert_null(bad);

    /* member 5's updates at the bound; its own configuration given back empties them */
    memcpy(p, saved, n);
    const size_t at = ens_member_offset(p, n, &l, 5) + 8;
    assert_true(at > 8);
    ckpt_put_le(p + ckpt_config_offset(p + at) + at - 20, bound, 8);
    e = past_the_bound(path, p, n, "acceptance counters", "latmc_ens_set_spins");
    size_t bytes = 0;
    assert_int_equal(latmc_ens_spins_size(e, &bytes), LATMC_OK);
    unsigned char *spins = malloc(bytes);
    assert_non_null(spins);
    assert_int_equal(latmc_ens_get_spins(e, 5, spins, bytes), LATMC_OK);
    assert_int_equal(latmc_ens_set_spins(e, 5, spins, bytes), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
    latmc_ens_destroy(&e);
    free(spins);
    saved_free(&s);
}

/* The saved ensemble's bytes with the 8-byte field at `off` set to v, written to its path
 * and loaded: the load's status (the ensemble in *out where it loaded). */
static int load_with(struct saved_ens *s, size_t off, uint64_t v, latmc_ens **out)
{
    memcpy(s->copy, s->bytes, s->n);
    ckpt_put_le(s->copy + off, v, 8);
    ens_reseal(s->copy, s->n);
    test_write_file(s->path, s->copy, s->n);
    *out = (latmc_ens *)out;
    const int st = latmc_ens_load(ctx, s->path, out);
    if (st != LATMC_OK)
        assert_null(*out);
    return st;
}

/* The round-trip statistics the ensemble file keeps (the count, the sum of the trips'
 * sweeps, each member's start) and its round count, bound as the exchange counters: the
 * loader refuses what the next rounds could wrap around 2^64 (a count or sum past 2^63, a
 * trip started after the ensemble's sweep count, more rounds than sweeps), latmc_ens_sweep
 * refuses a count or sum past 2^62 (latmc_ens_set_ladder empties them) before any member
 * sweeps. */
static void test_round_trips_bound(void **state)
{
    (void)state;
    const uint64_t bound = UINT64_C(1) << 62;
    struct saved_ens s;
    saved_tempering(&s);
    latmc_ens *e = NULL;
    const size_t count = s.l.rt_count, sum = s.l.rt_count + 8, sweeps = s.l.every + 8,
                 rounds = s.l.every + 16;
    assert_int_equal(ckpt_get_le(s.bytes + sweeps, 8), 6);
    assert_int_equal(ckpt_get_le(s.bytes + rounds, 8), 2);

    /* past the loader's bounds: refused, naming the statistics */
    const struct field_value {
        size_t off;
        uint64_t v;
    } refused[] = { { count, (bound << 1) + 1 }, { sum, (bound << 1) + 1 },
                    { count, UINT64_MAX }, { sum, UINT64_MAX },
                    { s.l.rt_start + 8 * 5, 7 }, { rounds, 7 } };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        assert_int_equal(load_with(&s, refused[i].off, refused[i].v, &e), LATMC_ECORRUPT);
        assert_non_null(strstr(latmc_last_error(), "statistics"));
    }
    /* at the bounds: loads and sweeps (a count or sum of 2^62, a trip started at the sweep
     * count, as many rounds as sweeps); a count of 2^63 loads */
    const struct field_value taken[] = { { count, bound },
                                         { sum, bound },
                                         { s.l.rt_start + 8 * 5, 6 },
                                         { rounds, 6 } };
    for (size_t i = 0; i < sizeof taken / sizeof *taken; i++) {
        assert_int_equal(load_with(&s, taken[i].off, taken[i].v, &e), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
        latmc_ens_destroy(&e);
    }
    assert_int_equal(load_with(&s, count, bound << 1, &e), LATMC_OK);
    latmc_ens_destroy(&e);

    /* past latmc_sim_sweep's bound: the sweep is refused with nothing changed, the remedy
     * sweeps again */
    const size_t past[2] = { count, sum };
    for (int i = 0; i < 2; i++) {
        assert_int_equal(load_with(&s, past[i], bound + 1, &e), LATMC_OK);
        assert_sweep_refused(e, "round-trip statistics", "latmc_ens_set_ladder");
        assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_BETA, ladder, 4), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 3), LATMC_OK);
        latmc_ens_destroy(&e);
    }
    saved_free(&s);
}

/* CUDA members against CPU members: the same ensemble, the same state (Ising, Potts). */
static void test_cpu_cuda_identical(void **state)
{
    (void)state;
    static const double close_ladder[4] = { 0.2, 0.205, 0.21, 0.215 };
    for (int model = 0; model < 5; model++) {
        /* +-J Ising L = 4, Potts L = 4 (CUDA: the batched reference update), uniform Ising
         * L = 16 (CPU: the narrow-row kernels), +-J Ising L = 16 (CUDA: the ensembles' packed
         * kernel, energies read from the packed state between sweeps), Potts 2D L = 16 heat
         * bath (CUDA: the batched row kernel, whole sweeps in one launch) */
        const bool potts = model == 1 || model == 4;
        latmc_sim_desc d = ens_test_desc(potts ? LATMC_MODEL_POTTS : LATMC_MODEL_ISING,
                                         model == 4 ? 2 : 3, model >= 2 ? 16 : 4);
        ladder = model == 3 ? close_ladder : wide_ladder;
        if (model == 0 || model == 3)
            d.couplings = LATMC_COUPLINGS_BIMODAL;
        else if (potts)
            d.q = 3;
        if (model == 4)
            d.algorithm = LATMC_ALGO_HEATBATH;
        latmc_ens *gpu = tempering_ensemble_of(d, 1);
        d.device = LATMC_DEVICE_CPU;
        latmc_ens *cpu = tempering_ensemble_of(d, 2);
        assert_int_equal(latmc_ens_sweep(gpu, 60), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(cpu, 60), LATMC_OK);
        struct ens_state a, b;
        capture(gpu, &a);
        capture(cpu, &b);
        assert_same_state(&a, &b);
        free(a.spins);
        free(b.spins);
        latmc_ens_destroy(&gpu);
        latmc_ens_destroy(&cpu);
    }
    ladder = wide_ladder;
}

/* CUDA Potts members with tempering on (betas moving between members: their device tables
 * change between calls): the batched launches against the members run one by one
 * (LATMC_ENS_POTTS_BATCH=0), the same state bit for bit; 2D L = 16 heat bath (row kernel,
 * whole sweeps in one launch), 3D L = 4 Metropolis (the reference's update), 2D 256^2 q = 3
 * heat bath (a launch a colour step). */
static void test_potts_tempering_batched(void **state)
{
    (void)state;
    static const double close_ladder[4] = { 0.9, 0.91, 0.92, 0.93 };
    static const double big_ladder[4] = { 0.9, 0.9005, 0.901, 0.9015 };
    for (int c = 0; c < 3; c++) {
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_POTTS, c == 1 ? 3 : 2,
                                         c == 0 ? 16 : c == 1 ? 4 : 256);
        d.q = 3;
        d.algorithm = c == 1 ? LATMC_ALGO_METROPOLIS : LATMC_ALGO_HEATBATH;
        ladder = c == 0 ? close_ladder : c == 1 ? wide_ladder : big_ladder;
        struct ens_state s[2];
        for (int i = 0; i < 2; i++) {
            if (i == 1)
                assert_int_equal(setenv("LATMC_ENS_POTTS_BATCH", "0", 1), 0);
            potts_log_reset();
            latmc_ens *e = tempering_ensemble_of(d, 1);
            assert_int_equal(latmc_ens_sweep(e, c == 2 ? 7 : 31), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, c == 2 ? 5 : 29), LATMC_OK);
            capture(e, &s[i]);
            latmc_ens_destroy(&e);
            unsetenv("LATMC_ENS_POTTS_BATCH");
            /* batched (launches and the rounds' energies) the first time, not the second */
            assert_true((strstr(potts_log, "32 Potts members in batched launches") != NULL &&
                         strstr(potts_log, "32 Potts members measured in one") != NULL) ==
                        (i == 0));
        }
        assert_true(s[0].acc[0] + s[0].acc[1] + s[0].acc[2] > 0); /* swaps did happen */
        assert_same_state(&s[0], &s[1]);
        free(s[0].spins);
        free(s[1].spins);
    }
    ladder = wide_ladder;
}

/* CUDA phi^4 members with tempering in mu2 on (the members' coefficients swapped between
 * calls: lib/ens_exchange.c, LATMC_STEP_SWAP_PARAMS): the batched launches against the members
 * run one by one (LATMC_ENS_PHI4_BATCH=0), the same state bit for bit; 2D L = 16 float (site
 * order, whole sweeps a launch; batched, its rounds on the device, cuda_phi4_temper.c), 2D 64^2
 * double (the chunk schedule), 3D 64 x 8 x 8 float with a finite Lambda (3D chunks). */
static void test_phi4_tempering_batched(void **state)
{
    (void)state;
    static const double mu2[3][4] = { { -0.6, -0.58, -0.56, -0.54 },
                                      { -0.6, -0.595, -0.59, -0.585 },
                                      { -0.6, -0.597, -0.594, -0.591 } };
    for (int c = 0; c < 3; c++) {
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_PHI4, c == 2 ? 3 : 2, c == 0 ? 16 : 64);
        if (c == 2)
            d.extent[1] = d.extent[2] = 8;
        d.precision = c == 1 ? LATMC_PRECISION_DOUBLE : LATMC_PRECISION_FLOAT;
        struct ens_state s[2];
        for (int i = 0; i < 2; i++) {
            if (i == 1)
                assert_int_equal(setenv("LATMC_ENS_PHI4_BATCH", "0", 1), 0);
            potts_log_reset();
            latmc_ens_layout l = ens_test_layout(4, 4, 2, 99, 1);
            latmc_ens *e = NULL;
            assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
            assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, mu2[c], 4), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
            if (c == 2)
                assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_LAMBDA, 2.0), LATMC_OK);
            assert_int_equal(latmc_ens_set_exchange(e, 3), LATMC_OK);
            assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 31), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 29), LATMC_OK);
            capture(e, &s[i]);
            latmc_ens_destroy(&e);
            unsetenv("LATMC_ENS_PHI4_BATCH");
            /* batched (launches and the rounds' sums) the first time, not the second: the
             * site order's rounds on the device (their sum phi^2 in a launch of its own, or
             * one a part of the list's samples), the chunk schedule's on the host (the
             * batch's measurement) */
            const bool sums =
                c == 0 ? strstr(potts_log, "32 phi^4 members measured in one launch") != NULL &&
                             strstr(potts_log, "for a tempering round") != NULL
                       : strstr(potts_log, "32 phi^4 members measured in two launches") != NULL;
            assert_true((strstr(potts_log, "32 phi^4 members in batched launches") != NULL &&
                         sums) == (i == 0));
        }
        assert_true(s[0].acc[0] + s[0].acc[1] + s[0].acc[2] > 0); /* swaps did happen */
        assert_same_state(&s[0], &s[1]);
        free(s[0].spins);
        free(s[1].spins);
    }
}

/* Every member's cluster observables (the clusters of its last sweep) and acceptance (the
 * sites the flips changed over the sites swept: the batch's counters), in member order. */
static void cluster_counts(latmc_ens *e, double out[3][32])
{
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_CLUSTERS, LATMC_ENS_BY_MEMBER, out[0],
                                           32),
                     LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_LARGEST_CLUSTER, LATMC_ENS_BY_MEMBER,
                                           out[1], 32),
                     LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER,
                                           out[2], 32),
                     LATMC_OK);
}

/* CUDA Swendsen-Wang and Wolff members with tempering on (their betas, so their bonds'
 * thresholds, moving between members): the batched launches of the cluster steps (a block
 * a member, backends/cuda/clusters/cuda_sw_batch.c; the default) against the members run
 * one by one (made with LATMC_ENS_SW_BATCH=0) and against the CPU's members, the same state
 * and the same clusters, acceptance (Wolff's attempted: its clusters' sites) and
 * measured energies and magnetisations (batched: one launch for every member) bit for
 * bit. Swendsen-Wang: Ising 2D 16^2 and 3D 8^3 (antiferromagnetic J in 3D: bonds join
 * unequal spins), uniform and +-J (each sample its couplings), Potts q = 3 2D 24^2 and
 * q = 4 3D 16^3, and members of the largest size whose labels a block's shared memory
 * holds (12288 sites: 48 KiB), Ising 2D 128 x 96 and Potts q = 3 3D 16 x 16 x 48
 * (closer ladders); Wolff: Ising 2D 16^2, Potts q = 3 3D 8^3, Ising +-J 3D 8^3; past a
 * block's shared memory (the labels in each member's own array) Swendsen-Wang Ising 2D
 * 128^2 and Wolff Potts q = 3 2D 160^2. After the
 * tempering, a call of 25 sweeps without exchanges: 75 step calls, two of the plan's lists
 * (lib/plan.c, PLAN_BATCH), the second starting at sweep 21's label step, the counts kept
 * by the call (lib/ens_exec.c, batch_counts); then (2D) two sweeps in a field h = 0.05
 * (batched too: each member's clusters' sums weigh their decisions) and two without. */
static void test_sw_tempering_batched(void **state)
{
    (void)state;
    static const double sw_ladder[4] = { 0.3, 0.4, 0.45, 0.5 };
    static const double potts_ladder[4] = { 0.9, 0.95, 1.0, 1.05 };
    static const double big_ising_ladder[4] = { 0.4, 0.401, 0.402, 0.403 };
    static const double big_potts_ladder[4] = { 0.55, 0.551, 0.552, 0.553 };
    for (int c = 0; c < 13; c++) {
        const bool potts = c == 2 || c == 3 || c == 5 || c == 9 || c == 12;
        /* Wolff: Ising 2D, Potts q = 3 3D, Ising +-J 3D, and past a block's shared memory
         * (labels in the members' own arrays) Potts q = 3 2D 160^2 beside Swendsen-Wang's
         * Ising 2D 128^2 */
        const bool wolff = (c >= 8 && c <= 10) || c == 12;
        latmc_sim_desc d = ens_test_desc(potts ? LATMC_MODEL_POTTS : LATMC_MODEL_ISING,
                                         (c % 2 && c != 11) || c == 10 ? 3 : 2,
                                         c == 1 || c == 7 || c == 9 || c == 10 ? 8
                                         : c == 2                              ? 24
                                         : c == 11                             ? 128
                                         : c == 12                             ? 160
                                                                               : 16);
        if (c == 6 || c == 7 || c == 10) /* +-J: each sample its own couplings */
            d.couplings = LATMC_COUPLINGS_BIMODAL;
        if (c == 4) { /* 12288 sites, the largest in shared memory */
            d.extent[0] = 128;
            d.extent[1] = 96;
        }
        if (c == 5)
            d.extent[2] = 48; /* 16 x 16 x 48: 12288 sites */
        d.q = c == 2 || c == 5 || c == 9 || c == 12 ? 3 : c == 3 ? 4 : 2;
        d.algorithm = wolff ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG;
        ladder = c == 4 || c == 11 ? big_ising_ladder : c == 5 || c == 12 ? big_potts_ladder
                 : potts ? potts_ladder : sw_ladder;
        struct ens_state s[3];
        double clusters[3][3][32], obs[3][2][32];
        for (int i = 0; i < 3; i++) {
            if (i == 1) /* declining the batch: one by one */
                assert_int_equal(setenv("LATMC_ENS_SW_BATCH", "0", 1), 0);
            if (i == 2)
                d.device = LATMC_DEVICE_CPU;
            potts_log_reset();
            latmc_ens *e = tempering_ensemble_of(d, 1);
            if (c == 1 || c == 7)
                assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_J, -1.0), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 13), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 11), LATMC_OK);
            /* one call of 25 sweeps: two lists of the plan */
            assert_int_equal(latmc_ens_set_exchange(e, 0), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 25), LATMC_OK);
            /* in a field (batched: the clusters' sums in the flip's shared memory, Wolff's
             * cluster reduced in its block; Swendsen-Wang's 128^2 one by one, its sums past
             * shared memory; one by one the leaf's field path) and without again (2D: the
             * field's chains the identity matrix checks CUDA against the CPU for,
             * tests/repro/identity/specs.c) */
            if (c != 10 && (c % 2 == 0 || c == 11)) {
                assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, 0.05), LATMC_OK);
                assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
                assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, 0.0), LATMC_OK);
                assert_int_equal(latmc_ens_sweep(e, 2), LATMC_OK);
            }
            capture(e, &s[i]);
            cluster_counts(e, clusters[i]);
            /* the measurement: batched in one launch (the rounds' energies too) */
            assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER,
                                                   obs[i][0], 32),
                             LATMC_OK);
            assert_int_equal(latmc_ens_observables(e, LATMC_OBS_MAGNETIZATION,
                                                   LATMC_ENS_BY_MEMBER, obs[i][1], 32),
                             LATMC_OK);
            latmc_ens_destroy(&e);
            unsetenv("LATMC_ENS_SW_BATCH");
            /* batched the first time only, sweeps and measurements */
            char line[80];
            snprintf(line, sizeof line, "32 %s %s members in batched launches",
                     wolff ? "Wolff" : "Swendsen-Wang", potts ? "Potts" : "Ising");
            assert_true((strstr(potts_log, line) != NULL) == (i == 0));
            snprintf(line, sizeof line, "32 %s %s members measured in one launch",
                     wolff ? "Wolff" : "Swendsen-Wang", potts ? "Potts" : "Ising");
            assert_true((strstr(potts_log, line) != NULL) == (i == 0));
        }
        assert_true(s[0].acc[0] + s[0].acc[1] + s[0].acc[2] > 0); /* swaps did happen */
        for (int i = 1; i < 3; i++) {
            assert_same_state(&s[0], &s[i]);
            assert_memory_equal(clusters[0], clusters[i], sizeof clusters[0]);
            assert_memory_equal(obs[0], obs[i], sizeof obs[0]);
        }
        for (int i = 0; i < 3; i++)
            free(s[i].spins);
    }
    ladder = wide_ladder;
}

/* Device AUTO places Swendsen-Wang and Wolff members where the GPU's batch takes their
 * cluster steps on the GPU (lib/ens.c, latmc_ens_member_placed: one sim more made there
 * to ask), else on the CPU: members past the batch's size (512^2) and members made with
 * LATMC_ENS_SW_BATCH=0. The chain is the CPU's either way (compared for the GPU's). */
static void test_cluster_auto_placement(void **state)
{
    (void)state;
    static const double sw_ladder[4] = { 0.3, 0.4, 0.45, 0.5 };
    ladder = sw_ladder;
    for (int c = 0; c < 4; c++) {
        const bool potts = c == 1;
        latmc_sim_desc d = ens_test_desc(potts ? LATMC_MODEL_POTTS : LATMC_MODEL_ISING, 2,
                                         c == 2 ? 512 : 16);
        d.q = potts ? 3 : 2;
        d.algorithm = potts ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG;
        d.device = LATMC_DEVICE_AUTO;
        const bool gpu = c < 2;
        if (c == 3)
            assert_int_equal(setenv("LATMC_ENS_SW_BATCH", "0", 1), 0);
        made_cuda = made_cpu = 0;
        latmc_ens *e = tempering_ensemble_of(d, 1);
        unsetenv("LATMC_ENS_SW_BATCH");
        if (gpu && (made_cuda != 33 || made_cpu != 0))
            fail_msg("case %d: %d members and sims made on CUDA, %d on the CPU (33 and 0 "
                     "expected)", c, made_cuda, made_cpu);
        if (!gpu && made_cpu != 32)
            fail_msg("case %d: %d members made on the CPU (32 expected)", c, made_cpu);
        assert_int_equal(latmc_ens_sweep(e, 5), LATMC_OK);
        if (gpu) {
            struct ens_state s[2];
            capture(e, &s[0]);
            d.device = LATMC_DEVICE_CPU;
            latmc_ens *cpu = tempering_ensemble_of(d, 1);
            assert_int_equal(latmc_ens_sweep(cpu, 5), LATMC_OK);
            capture(cpu, &s[1]);
            assert_same_state(&s[0], &s[1]);
            free(s[0].spins);
            free(s[1].spins);
            latmc_ens_destroy(&cpu);
        }
        latmc_ens_destroy(&e);
    }
    ladder = wide_ladder;
}

/* A tempering ensemble of 32 members (Potts, Heisenberg: in beta; phi^4: in mu2, the
 * ladder's 4 values)
 * of which member `flagged` alone (-1: none) was made with `env`=0 (on_log), every member
 * seen made. */
static latmc_ens *mixed_ensemble(latmc_sim_desc d, const double *ladder4, const char *env,
                                 int flagged)
{
    mixed_made = 0;
    mixed_flagged = flagged;
    mixed_env = flagged >= 0 ? env : NULL;
    if (flagged == 0)
        assert_int_equal(setenv(env, "0", 1), 0);
    latmc_ens_layout l = ens_test_layout(4, 4, 2, 99, 1);
    latmc_ens *e = NULL;
    const int st = latmc_ens_create(ctx, &d, &l, &e);
    const bool seen = !mixed_env || mixed_made == 32;
    mixed_env = NULL;
    unsetenv(env);
    assert_int_equal(st, LATMC_OK);
    assert_true(seen); /* the variable was set for member `flagged` alone */
    if (d.model == LATMC_MODEL_PHI4) {
        assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, ladder4, 4), LATMC_OK);
        assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
    } else {
        assert_int_equal(latmc_ens_set_temperatures(e, ladder4, 4), LATMC_OK);
    }
    assert_int_equal(latmc_ens_set_exchange(e, 3), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    return e;
}

/* CUDA Potts, phi^4 and Heisenberg ensembles of which one member was made with
 * LATMC_ENS_POTTS_BATCH=0 / LATMC_ENS_PHI4_BATCH=0 / LATMC_ENS_HEIS_BATCH=0 (members made at
 * different times under different environments) run, are measured and swap that member's
 * parameters one by one: member 0 (the batch capability is not offered to it, and
 * lib/plan.c asks member 0's), member 31 and member 13 (the batch driver declines a batch
 * that holds one, exec/cuda_batch.c; Heisenberg: the device's tempering too, whose load
 * takes the batch), none of their launches or measurements batched, the same chain as the
 * ensemble whose members all run batched, bit for bit. Potts 2D 16^2 q = 3 heat bath (whole
 * sweeps a launch), phi^4 2D 16^2 float (site order, whole sweeps a launch) and 2D 64^2
 * double (the chunk schedule), Heisenberg 3D 4^3 Gaussian float heat bath (rounds on the
 * device where batched): the ladders of test_potts_tempering_batched,
 * test_phi4_tempering_batched and tempering_ensemble_of. */
static void test_mixed_one_by_one(void **state)
{
    (void)state;
    static const int flagged[4] = { -1, 0, 31, 13 };
    static const double ladders[4][4] = { { 0.9, 0.91, 0.92, 0.93 },
                                          { -0.6, -0.58, -0.56, -0.54 },
                                          { -0.6, -0.595, -0.59, -0.585 },
                                          { 0.3, 0.5, 0.7, 0.9 } };
    for (int c = 0; c < 4; c++) {
        const bool potts = c == 0, heisenberg = c == 3;
        latmc_sim_desc d = ens_test_desc(potts  ? LATMC_MODEL_POTTS
                                         : heisenberg ? LATMC_MODEL_HEISENBERG
                                                : LATMC_MODEL_PHI4,
                                         heisenberg ? 3 : 2, heisenberg ? 4 : c == 2 ? 64 : 16);
        if (potts) {
            d.q = 3;
            d.algorithm = LATMC_ALGO_HEATBATH;
        } else if (heisenberg) {
            d.couplings = LATMC_COUPLINGS_GAUSSIAN;
            d.precision = LATMC_PRECISION_FLOAT;
            d.algorithm = LATMC_ALGO_HEATBATH;
        } else {
            d.precision = c == 1 ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
        }
        const char *env = potts  ? "LATMC_ENS_POTTS_BATCH"
                          : heisenberg ? "LATMC_ENS_HEIS_BATCH"
                                 : "LATMC_ENS_PHI4_BATCH";
        const char *name = potts ? "Potts" : heisenberg ? "Heisenberg" : "phi^4";
        char launches[80], measured[80];
        snprintf(launches, sizeof launches, "32 %s members in batched launches", name);
        snprintf(measured, sizeof measured, "32 %s members measured in", name);
        struct ens_state s[4];
        for (int i = 0; i < 4; i++) {
            potts_log_reset();
            latmc_ens *e = mixed_ensemble(d, ladders[c], env, flagged[i]);
            assert_int_equal(latmc_ens_sweep(e, 31), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 29), LATMC_OK);
            capture(e, &s[i]);
            latmc_ens_destroy(&e);
            const bool ran = strstr(potts_log, launches) != NULL,
                       measured_so = strstr(potts_log, measured) != NULL;
            if (flagged[i] < 0 ? !ran || !measured_so : ran || measured_so)
                fail_msg("case %d, member %d made one by one: batched launches %s expected, "
                         "logged:\n%s", c, flagged[i], flagged[i] < 0 ? "were" : "were not",
                         potts_log);
            if (i > 0) {
                assert_same_state(&s[0], &s[i]);
                free(s[i].spins);
            }
        }
        assert_true(s[0].acc[0] + s[0].acc[1] + s[0].acc[2] > 0); /* swaps did happen */
        free(s[0].spins);
    }
}

/* CUDA phi^4 members whose whole-sweep launches hold fewer sweeps than a call asks
 * (phi4/cuda_phi4_batch.c: 64 / (nloc nhit) sweeps a launch, at least one): 2D 16^2 float (site
 * order, whole sweeps a launch) with nhit 5, nloc 3 (4 sweeps a launch) and with nhit 70
 * (one), calls of 23 and 9 sweeps (launches from a sweep inside a call, a shorter last
 * one) with tempering in mu2 every 3 sweeps: the batched launches against the members run
 * one by one (LATMC_ENS_PHI4_BATCH=0), the same state bit for bit. */
static void test_phi4_hits_per_launch(void **state)
{
    (void)state;
    static const double mu2[4] = { -0.6, -0.58, -0.56, -0.54 };
    static const struct {
        int nhit, nloc;
    } cases[] = { { 5, 3 }, { 70, 1 } };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_PHI4, 2, 16);
        d.precision = LATMC_PRECISION_FLOAT;
        struct ens_state s[2];
        for (int i = 0; i < 2; i++) {
            if (i == 1)
                assert_int_equal(setenv("LATMC_ENS_PHI4_BATCH", "0", 1), 0);
            potts_log_reset();
            latmc_ens_layout l = ens_test_layout(4, 4, 2, 99, 1);
            latmc_ens *e = NULL;
            assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
            unsetenv("LATMC_ENS_PHI4_BATCH");
            assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, mu2, 4), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_NHIT, cases[c].nhit),
                             LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_NLOC, cases[c].nloc),
                             LATMC_OK);
            assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 23), LATMC_OK); /* no rounds */
            assert_int_equal(latmc_ens_set_exchange(e, 3), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 9), LATMC_OK);
            capture(e, &s[i]);
            latmc_ens_destroy(&e);
            const bool fused = strstr(potts_log, "32 phi^4 members in batched launches, the "
                                                 "site order, whole sweeps a launch") != NULL;
            if (fused != (i == 0))
                fail_msg("nhit %d, nloc %d: whole sweeps a launch %s expected, logged:\n%s",
                         cases[c].nhit, cases[c].nloc, i == 0 ? "were" : "were not",
                         potts_log);
        }
        assert_same_state(&s[0], &s[1]);
        free(s[0].spins);
        free(s[1].spins);
    }
}

/* Every member's energy, magnetization and acceptance (the batched measurement on CUDA). */
struct member_obs {
    double energy[32], mag[32], acc[32];
};

static void member_obs_of(latmc_ens *e, struct member_obs *o)
{
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, o->energy,
                                           32), LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_MAGNETIZATION, LATMC_ENS_BY_MEMBER,
                                           o->mag, 32), LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ACCEPTANCE, LATMC_ENS_BY_MEMBER, o->acc,
                                           32), LATMC_OK);
}

/* On CUDA with the batch on: the members ran and were measured in batched launches since
 * the last potts_log_reset (else nothing is asked). */
static void assert_phi4_batched(bool batched, const char *when)
{
    if (ens_test_device != LATMC_DEVICE_CUDA)
        return;
    const bool seen = strstr(potts_log, "32 phi^4 members in batched launches") != NULL &&
                      strstr(potts_log, "32 phi^4 members measured in two launches") != NULL;
    if (seen != batched)
        fail_msg("%s: batched launches %s expected, logged:\n%s", when,
                 batched ? "were" : "were not", potts_log);
}

/* phi^4 members with tempering in mu2 whose parameters change between calls (nhit, then
 * Lambda from infinite to 2 and nloc: the batch's member table, counts and whole-sweep
 * steps follow them) and whose ensemble is saved and loaded in between: the loaded one
 * continues as the saved one does, and on CUDA the batched launches equal the members run
 * one by one (LATMC_ENS_PHI4_BATCH=0, for the loaded members too), bit for bit; 2D 16^2
 * float (site order, whole sweeps a launch, the member in shared memory), 2D 64^2 double
 * (the chunk schedule), 3D 16^3 double (site order, whole sweeps). On the CPU (where the
 * variable changes nothing) the first run alone, 32^2 for 64^2: the load's and the
 * changes' comparisons. */
static void test_phi4_changes_and_load(void **state)
{
    (void)state;
    static const double mu2[3][4] = { { -0.6, -0.58, -0.56, -0.54 },
                                      { -0.6, -0.595, -0.59, -0.585 },
                                      { -0.6, -0.597, -0.594, -0.591 } };
    for (int c = 0; c < 3; c++) {
        const bool cuda = ens_test_device == LATMC_DEVICE_CUDA;
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_PHI4, c == 2 ? 3 : 2,
                                         c == 1 ? (cuda ? 64 : 32) : 16);
        d.precision = c == 0 ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
        char dir[] = "/tmp/latmc-ens-XXXXXX", path[256];
        temp_ens_path(dir, path, sizeof path);
        struct ens_state s[2], loaded;
        struct member_obs o[2], lo;
        const int runs = cuda ? 2 : 1;
        for (int i = 0; i < runs; i++) {
            if (i == 1)
                assert_int_equal(setenv("LATMC_ENS_PHI4_BATCH", "0", 1), 0);
            potts_log_reset();
            latmc_ens_layout l = ens_test_layout(4, 4, 2, 99, 1);
            latmc_ens *e = NULL, *back = NULL;
            assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
            assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, mu2[c], 4), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_G, 1.0), LATMC_OK);
            assert_int_equal(latmc_ens_set_exchange(e, 3), LATMC_OK);
            assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 7), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_NHIT, 3), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 5), LATMC_OK);
            assert_int_equal(latmc_ens_save(e, path), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_LAMBDA, 2.0), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_NLOC, 2), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 6), LATMC_OK);
            capture(e, &s[i]);
            member_obs_of(e, &o[i]);
            assert_phi4_batched(i == 0, "the ensemble");
            latmc_ens_destroy(&e);
            /* the saved one, loaded (its members made again, a new batch) */
            potts_log_reset();
            assert_int_equal(latmc_ens_load(ctx, path, &back), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(back, LATMC_PARAM_LAMBDA, 2.0), LATMC_OK);
            assert_int_equal(latmc_ens_set_param(back, LATMC_PARAM_NLOC, 2), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(back, 6), LATMC_OK);
            capture(back, &loaded);
            member_obs_of(back, &lo);
            assert_phi4_batched(i == 0, "the loaded ensemble");
            latmc_ens_destroy(&back);
            unsetenv("LATMC_ENS_PHI4_BATCH");
            assert_same_state(&s[i], &loaded);
            assert_memory_equal(&o[i], &lo, sizeof lo);
            free(loaded.spins);
            assert_int_equal(remove(path), 0);
        }
        rmdir(dir);
        assert_true(s[0].acc[0] + s[0].acc[1] + s[0].acc[2] > 0); /* swaps did happen */
        for (int m = 0; m < 32; m++)
            assert_true(o[0].acc[m] > 0 && o[0].acc[m] < 1);
        if (runs == 2) {
            assert_same_state(&s[0], &s[1]);
            assert_memory_equal(&o[0], &o[1], sizeof o[0]);
            free(s[1].spins);
        }
        free(s[0].spins);
    }
}

/* CUDA Heisenberg members with tempering on (betas moving between members, so the
 * batched launch's member table changes between calls): the batched launch against the
 * members run one by one (LATMC_ENS_HEIS_BATCH=0), the same state bit for bit; members
 * of 4^3 and of 28^3, too large for one block (a launch a pass, the host's rounds). */
static void test_heisenberg_tempering_batched(void **state)
{
    (void)state;
    /* 28^3: a ladder close enough for swaps between members of 21,952 sites */
    static const double big_ladder[4] = { 0.3, 0.302, 0.304, 0.306 };
    for (int c = 0; c < 4; c++) {
        const int prec = c % 2;
        const bool big = c >= 2;
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_HEISENBERG, 3, big ? 28 : 4);
        d.couplings = prec ? LATMC_COUPLINGS_BIMODAL : LATMC_COUPLINGS_GAUSSIAN;
        d.precision = prec ? LATMC_PRECISION_DOUBLE : LATMC_PRECISION_FLOAT;
        ladder = big ? big_ladder : wide_ladder;
        struct ens_state s[2];
        for (int i = 0; i < 2; i++) {
            potts_log_reset();
            if (i == 1)
                assert_int_equal(setenv("LATMC_ENS_HEIS_BATCH", "0", 1), 0);
            latmc_ens *e = tempering_ensemble_of(d, 1);
            assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_NOVER, 2), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 31), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(e, 29), LATMC_OK);
            capture(e, &s[i]);
            latmc_ens_destroy(&e);
            unsetenv("LATMC_ENS_HEIS_BATCH");
            if (i == 0 && big && !strstr(potts_log, "a launch a pass"))
                fail_msg("28^3: expected a launch a pass, logged:\n%s", potts_log);
        }
        ladder = wide_ladder;
        assert_true(s[0].acc[0] + s[0].acc[1] + s[0].acc[2] > 0); /* swaps did happen */
        assert_same_state(&s[0], &s[1]);
        free(s[0].spins);
        free(s[1].spins);
    }
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    const int skip = test_device_check();
    if (skip)
        return skip;
    ens_test_device = test_device();
    /* LATMC_TEST_FILTER=test_potts*: only the tests whose names match (cmocka's pattern),
     * e.g. under compute-sanitizer */
    if (getenv("LATMC_TEST_FILTER"))
        cmocka_set_test_filter(getenv("LATMC_TEST_FILTER"));
    const struct CMUnitTest cuda_tests[] = {
        cmocka_unit_test(test_cpu_cuda_identical),
        cmocka_unit_test(test_heisenberg_tempering_batched),
        cmocka_unit_test(test_potts_tempering_batched),
        cmocka_unit_test(test_phi4_tempering_batched),
        cmocka_unit_test(test_sw_tempering_batched),
        cmocka_unit_test(test_cluster_auto_placement),
        cmocka_unit_test(test_mixed_one_by_one),
        cmocka_unit_test(test_phi4_hits_per_launch),
    };
    if (ens_test_device == LATMC_DEVICE_CUDA &&
        cmocka_run_group_tests(cuda_tests, setup, teardown) != 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ising_packed_lattices_standalone),
        cmocka_unit_test(test_ising_byte_lattices_standalone),
        cmocka_unit_test(test_heisenberg_members_standalone),
        cmocka_unit_test(test_heisenberg_large_members_standalone),
        cmocka_unit_test(test_potts_members_standalone),
        cmocka_unit_test(test_phi4_members_standalone),
        cmocka_unit_test(test_phi4_changes_and_load),
        cmocka_unit_test(test_seed_derivation),
        cmocka_unit_test(test_exchange_rule),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_save_load_continues),
        cmocka_unit_test(test_counters_bound),
        cmocka_unit_test(test_round_trips_bound),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
