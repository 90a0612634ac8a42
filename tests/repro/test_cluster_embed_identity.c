/*
 * phi^4 and Heisenberg with embedded cluster steps are decomposition-independent
 * (doc/clusters.md, "Embedded clusters"): the configuration, the acceptance and the
 * cluster statistics after n sweeps are bit-identical for 1, 2 and 3 threads, for 1 .. 4
 * boxes (desc.n_parts) and a cut changed between sweeps, whether the sweeps come in one
 * call or two, and across a checkpoint (save, load, go on); an ensemble's members follow
 * their own sims' chains. One lattice of 16384 sites, so that the threaded bond pass
 * runs. Also the refusals: the joint rule of phi^4's parameters still applies, a backend
 * without cluster steps is refused at creation.
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

struct config {
    const char *name;
    latmc_sim_desc d;
    double p[3][2]; /* parameters (key, value), key 0: none */
};

static latmc_sim *make(latmc_ctx *ctx, const struct config *c, int n_threads, int n_parts)
{
    latmc_sim_desc d = c->d;
    d.n_threads = n_threads;
    d.n_parts = n_parts;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    for (int k = 0; k < 3 && c->p[k][0] > 0; k++)
        assert_int_equal(latmc_sim_set_param(sim, (int)c->p[k][0], c->p[k][1]), LATMC_OK);
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

struct result {
    double acceptance, clusters, largest, m2;
};

static struct result result_of(latmc_sim *sim)
{
    struct result r;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &r.acceptance), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &r.clusters), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_LARGEST_CLUSTER, &r.largest), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTER_M2, &r.m2), LATMC_OK);
    return r;
}

static void same_result(const struct result *a, const struct result *b)
{
    assert_true(a->acceptance == b->acceptance && a->clusters == b->clusters &&
                a->largest == b->largest && a->m2 == b->m2);
}

static void check_config(const struct config *c, uint64_t sweeps, const int *threads,
                         const int *parts, int n_layouts)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *ref = make(ctx, c, 1, 0);
    size_t n = 0;
    uint8_t *start = spins_of(ref, &n);
    assert_int_equal(latmc_sim_sweep(ref, sweeps), LATMC_OK);
    uint8_t *want = spins_of(ref, &n);
    assert_true(memcmp(start, want, n) != 0); /* the chain moved */
    const struct result want_r = result_of(ref);
    printf("%s: %llu sweeps, %g clusters\n", c->name, (unsigned long long)sweeps,
           want_r.clusters);
    for (int k = 0; k < n_layouts; k++) {
        latmc_sim *sim = make(ctx, c, threads[k], parts[k]);
        assert_int_equal(latmc_sim_sweep(sim, sweeps / 2), LATMC_OK);
        if (k % 2 && parts[k] > 1)
            assert_int_equal(latmc_sim_set_parts(sim, parts[k] - 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, sweeps - sweeps / 2), LATMC_OK);
        uint8_t *got = spins_of(sim, &n);
        printf("  %d threads, %d parts: %s\n", threads[k], parts[k],
               memcmp(got, want, n) == 0 ? "identical" : "DIFFERENT");
        assert_memory_equal(got, want, n);
        const struct result r = result_of(sim);
        same_result(&r, &want_r);
        free(got);
        latmc_sim_destroy(&sim);
    }
    /* a checkpoint half way */
    char dir[] = "/tmp/latmc_embed_XXXXXX";
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

static latmc_sim_desc heis_desc(int ndim, int64_t l, int algorithm)
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

static const int small_threads[] = { 1, 2, 3, 2 }, small_parts[] = { 2, 0, 3, 4 };

static void phi4_layouts(void **state)
{
    (void)state;
    const struct config cs[] = {
        { "phi4 2D 16x32 double SW Lambda=0.8",
          phi4_desc(2, 16, 32, 0, LATMC_PRECISION_DOUBLE, LATMC_ALGO_SWENDSEN_WANG),
          { { LATMC_PARAM_MU2, -0.9 }, { LATMC_PARAM_G, 2.0 }, { LATMC_PARAM_LAMBDA, 0.8 } } },
        { "phi4 3D 8x8x16 float Wolff Lambda=2",
          phi4_desc(3, 8, 8, 16, LATMC_PRECISION_FLOAT, LATMC_ALGO_WOLFF),
          { { LATMC_PARAM_MU2, -0.9 }, { LATMC_PARAM_G, 2.0 }, { LATMC_PARAM_LAMBDA, 2.0 } } },
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
        check_config(&cs[k], 10, small_threads, small_parts, 4);
    /* 128^2 = 16384 sites: the threaded bond pass */
    const struct config big = {
        "phi4 2D 128x128 float SW Lambda=1.5",
        phi4_desc(2, 128, 128, 0, LATMC_PRECISION_FLOAT, LATMC_ALGO_SWENDSEN_WANG),
        { { LATMC_PARAM_MU2, -0.5 }, { LATMC_PARAM_G, 1.0 }, { LATMC_PARAM_LAMBDA, 1.5 } } };
    const int threads[] = { 3, 2 }, parts[] = { 0, 2 };
    check_config(&big, 2, threads, parts, 2);
}

static void heisenberg_layouts(void **state)
{
    (void)state;
    const struct config cs[] = {
        { "Heisenberg 2D 16x16 Gaussian SW h=0.4", heis_desc(2, 16, LATMC_ALGO_SWENDSEN_WANG),
          { { LATMC_PARAM_BETA, 1.2 }, { LATMC_PARAM_H, 0.4 }, { LATMC_PARAM_NOVER, 2 } } },
        { "Heisenberg 3D 8x8x8 Gaussian Wolff", heis_desc(3, 8, LATMC_ALGO_WOLFF),
          { { LATMC_PARAM_BETA, 0.9 }, { 0, 0 } } },
    };
    for (size_t k = 0; k < sizeof cs / sizeof cs[0]; k++)
        check_config(&cs[k], 10, small_threads, small_parts, 4);
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

static void refusals(void **state)
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

    /* a backend without cluster steps: refused at creation */
    const int models[] = { LATMC_MODEL_PHI4, LATMC_MODEL_HEISENBERG };
    for (int k = 0; k < 2; k++) {
        d = k == 0 ? phi4_desc(2, 8, 8, 0, LATMC_PRECISION_DOUBLE, LATMC_ALGO_METROPOLIS)
                   : heis_desc(2, 8, LATMC_ALGO_HEATBATH);
        assert_int_equal(d.model, models[k]);
        d.device = LATMC_DEVICE_CUDA;
        if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK) {
            printf("no CUDA backend here: its refusal of cluster steps not checked\n");
            continue;
        }
        latmc_sim_destroy(&sim);
        d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_last_error(), "CPU backend only"));
        d.device = LATMC_DEVICE_AUTO; /* AUTO takes the CPU */
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_string_equal(latmc_sim_backend_name(sim), "cpu");
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phi4_layouts),
        cmocka_unit_test(heisenberg_layouts),
        cmocka_unit_test(ensemble_members),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
