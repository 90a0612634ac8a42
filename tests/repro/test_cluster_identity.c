/*
 * Cluster updates are decomposition-independent (DESIGN.md section 12, doc/clusters.md):
 * the configuration after n Swendsen-Wang or Wolff sweeps is bit-identical for 1, 2 and 3
 * threads, for 1 .. 5 boxes (desc.n_parts) and a cut changed between sweeps
 * (latmc_sim_set_parts), whether the sweeps come in one call or several, and across a
 * checkpoint (save, load, go on); ensemble members follow their own sims' chains and
 * temper. Lattices of at least 65536 sites, so that the threaded
 * labelling runs. Also the refusals: an unknown algorithm, Potts with J < 0, a backend
 * without cluster labelling.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_helpers.h"

struct config {
    const char *name;
    latmc_sim_desc d;
    double beta, h;
};

static latmc_sim *make(latmc_ctx *ctx, const struct config *c, int n_threads, int n_parts)
{
    latmc_sim_desc d = c->d;
    d.n_threads = n_threads;
    d.n_parts = n_parts;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, c->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, c->h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    return sim;
}

static uint8_t *spins_of(latmc_sim *sim, size_t *n)
{
    assert_int_equal(latmc_sim_spins_size(sim, n), LATMC_OK);
    uint8_t *s = malloc(*n);
    assert_non_null(s);
    assert_int_equal(latmc_sim_get_spins(sim, s, *n), LATMC_OK);
    return s;
}

static void check_config(const struct config *c, uint64_t sweeps)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *ref = make(ctx, c, 1, 0);
    size_t n = 0;
    uint8_t *start = spins_of(ref, &n);
    assert_int_equal(latmc_sim_sweep(ref, sweeps), LATMC_OK);
    uint8_t *want = spins_of(ref, &n);
    assert_true(memcmp(start, want, n) != 0); /* the chain moved */
    double want_acc = 0;
    assert_int_equal(latmc_sim_observable(ref, LATMC_OBS_ACCEPTANCE, &want_acc), LATMC_OK);
    printf("%s: %llu sweeps, acceptance %.3f\n", c->name, (unsigned long long)sweeps, want_acc);

    const int threads[] = { 1, 2, 3, 2 }, parts[] = { 2, 0, 3, 5 };
    for (int k = 0; k < 4; k++) {
        latmc_sim *sim = make(ctx, c, threads[k], parts[k]);
        /* in two calls, and (k odd) with the cut changed between them */
        assert_int_equal(latmc_sim_sweep(sim, sweeps / 2), LATMC_OK);
        if (k % 2)
            assert_int_equal(latmc_sim_set_parts(sim, 4 - k), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, sweeps - sweeps / 2), LATMC_OK);
        uint8_t *got = spins_of(sim, &n);
        double acc = 0;
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
        printf("  %d threads, %d parts: %s\n", threads[k], parts[k],
               memcmp(got, want, n) == 0 ? "identical" : "DIFFERENT");
        assert_memory_equal(got, want, n);
        assert_true(acc == want_acc);
        free(got);
        latmc_sim_destroy(&sim);
    }

    /* a checkpoint half way */
    char dir[] = "/tmp/latmc_cluster_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[sizeof dir + 16];
    snprintf(path, sizeof path, "%s/half.ckpt", dir);
    latmc_sim *sim = make(ctx, c, 2, 0);
    assert_int_equal(latmc_sim_sweep(sim, sweeps / 2), LATMC_OK);
    assert_int_equal(latmc_sim_save(sim, path), LATMC_OK);
    latmc_sim_destroy(&sim);
    assert_int_equal(latmc_sim_load(ctx, path, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, sweeps - sweeps / 2), LATMC_OK);
    uint8_t *got = spins_of(sim, &n);
    assert_memory_equal(got, want, n);
    printf("  checkpoint half way: identical\n");
    free(got);
    latmc_sim_destroy(&sim);
    unlink(path);
    rmdir(dir);

    free(start);
    free(want);
    latmc_sim_destroy(&ref);
    latmc_ctx_destroy(&ctx);
}

static struct config ising(const char *name, int algorithm, int ndim, int64_t lx, int64_t ly,
                           int64_t lz, double beta, double h)
{
    struct config c = { name, ising_desc(ndim, lx, ly, lz, algorithm, 1, 20261123), beta, h };
    return c;
}

static void swendsen_wang(void **state)
{
    (void)state;
    const struct config uniform = ising("Ising 2D 256x258 SW beta_c", LATMC_ALGO_SWENDSEN_WANG,
                                        2, 256, 258, 0, 0.4406868, 0.0);
    check_config(&uniform, 12);
    /* without a field the sizes are counted in a call's last sweep only */
    const struct config uniform3 = ising("Ising 3D 44x40x42 SW beta_c", LATMC_ALGO_SWENDSEN_WANG,
                                         3, 44, 40, 42, 0.2216546, 0.0);
    check_config(&uniform3, 8);
    struct config pmj = ising("Ising 3D +-J 40x42x44 SW h=0.1", LATMC_ALGO_SWENDSEN_WANG, 3,
                              40, 42, 44, 0.3, 0.1);
    pmj.d.couplings = LATMC_COUPLINGS_BIMODAL;
    pmj.d.coupling_seed = 7;
    check_config(&pmj, 8);
    struct config potts = ising("Potts q=5 2D 270x252 SW h=0.05", LATMC_ALGO_SWENDSEN_WANG, 2,
                                270, 252, 0, 1.1, 0.05);
    potts.d.model = LATMC_MODEL_POTTS;
    potts.d.q = 5;
    check_config(&potts, 8);
}

static void wolff(void **state)
{
    (void)state;
    const struct config uniform = ising("Ising 2D 256x256 Wolff beta=0.43", LATMC_ALGO_WOLFF,
                                        2, 256, 256, 0, 0.43, 0.0);
    check_config(&uniform, 40);
    struct config potts = ising("Potts q=3 3D 42x42x42 Wolff", LATMC_ALGO_WOLFF, 3, 42, 42, 42,
                                0.55, 0.0);
    potts.d.model = LATMC_MODEL_POTTS;
    potts.d.q = 3;
    check_config(&potts, 40);
}

/* Ensemble members run the cluster chain of a sim of their own desc, and tempering
 * exchanges their temperatures as for any algorithm. */
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

static void refusals(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    /* (phi^4 and Heisenberg: tests/repro/test_cluster_embed_identity.c) */
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

    /* a backend without cluster labelling: refused at creation, never run */
    d = ising_desc(2, 8, 8, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.device = LATMC_DEVICE_CUDA;
    if (latmc_sim_create(ctx, &d, &sim) == LATMC_OK) {
        latmc_sim_destroy(&sim);
        d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_last_error(), "CPU backend only"));
        /* AUTO takes the CPU */
        d.device = LATMC_DEVICE_AUTO;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cpu");
        latmc_sim_destroy(&sim);
    } else {
        printf("no CUDA backend here: its refusal of cluster algorithms not checked\n");
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(swendsen_wang),
        cmocka_unit_test(wolff),
        cmocka_unit_test(ensembles),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests_name("cluster_identity", tests, NULL, NULL);
}
