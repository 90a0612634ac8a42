/*
 * Checkpoints of the bit-sliced Ising chain (decisions = 1): format version 3
 * (doc/checkpoints.md, "The chain block"). A sim saved while it runs the chain loads with
 * the parameter set and continues bit for bit, from a file or from memory, on another SIMD
 * level than the one that saved it; the default chain still writes versions 1 and 2;
 * application data rides along in version 3; every damage of the chain block and every
 * cut of a version-3 file is LATMC_ECORRUPT with a message that says what.
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

#include "latmc/latmc.h"
#include "test_files.h"

#define LX 64
#define LY 12

static latmc_sim *make(latmc_ctx *ctx, const char *level, int couplings)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = LX;
    d.extent[1] = LY;
    d.algorithm = LATMC_ALGO_METROPOLIS;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 2026;
    d.couplings = couplings;
    d.coupling_seed = 7;
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    unsetenv("LATMC_CPU_MASK");
    assert_int_equal(st, LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.42), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    return sim;
}

/* A temporary directory of this test and a file in it. */
static char dir[64];
static char *path_in_dir(const char *name)
{
    static char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/latmc_ckpt_chainXXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    static const char *const names[] = { "a.ckpt", "b.ckpt", "bad.ckpt" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        unlink(path_in_dir(names[i]));
    return rmdir(dir);
}

static void expect_same(latmc_sim *a, latmc_sim *b)
{
    int8_t sa[LX * LY], sb[LX * LY];
    assert_int_equal(latmc_sim_get_spins(a, sa, sizeof sa), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(b, sb, sizeof sb), LATMC_OK);
    assert_memory_equal(sa, sb, sizeof sa);
    uint64_t aa, at, ba, bt;
    assert_int_equal(latmc_sim_acceptance_counts(a, &aa, &at), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(b, &ba, &bt), LATMC_OK);
    assert_true(aa == ba && at == bt);
}

/* Save while running the chain, go on; the loaded sim goes on alike, on any level. */
static void test_restart(void **state)
{
    (void)state;
    static const char *const levels[][2] = { { "avx2", "c" }, { "c", "avx2" }, { "avx2", "avx2" } };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int c = 0; c < 2; c++)
        for (size_t l = 0; l < sizeof levels / sizeof *levels; l++) {
            const int couplings = c ? LATMC_COUPLINGS_BIMODAL : LATMC_COUPLINGS_UNIFORM;
            latmc_sim *sim = make(ctx, levels[l][0], couplings);
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
            const char *path = path_in_dir("a.ckpt");
            assert_int_equal(latmc_sim_save(sim, path), LATMC_OK);
            size_t n = 0;
            unsigned char *bytes = test_read_file(path, &n);
            assert_int_equal(bytes[8], 3); /* format version 3 */
            assert_int_equal(latmc_sim_sweep(sim, 4), LATMC_OK);

            setenv("LATMC_CPU_MASK", levels[l][1], 1);
            latmc_sim *from_file = NULL, *from_memory = NULL;
            assert_int_equal(latmc_sim_load(ctx, path, &from_file), LATMC_OK);
            assert_int_equal(latmc_sim_deserialize(ctx, bytes, n, &from_memory), LATMC_OK);
            unsetenv("LATMC_CPU_MASK");
            double v = 0;
            assert_int_equal(latmc_sim_get_param(from_file, LATMC_PARAM_DECISIONS, &v), LATMC_OK);
            assert_true(v == 1.0);
            assert_int_equal(latmc_sim_sweep(from_file, 4), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(from_memory, 4), LATMC_OK);
            expect_same(sim, from_file);
            expect_same(sim, from_memory);
            /* a loaded sim saves the same bytes as the one it came from */
            size_t again = 0;
            latmc_sim *twin = NULL;
            assert_int_equal(latmc_sim_deserialize(ctx, bytes, n, &twin), LATMC_OK);
            unsigned char *copy = malloc(n);
            assert_non_null(copy);
            assert_int_equal(latmc_sim_serialize(twin, copy, n, &again), LATMC_OK);
            assert_int_equal(again, n);
            assert_int_equal(memcmp(copy + 40, bytes + 40, n - 40), 0); /* past the header */
            free(copy);
            free(bytes);
            latmc_sim_destroy(&twin);
            latmc_sim_destroy(&from_file);
            latmc_sim_destroy(&from_memory);
            latmc_sim_destroy(&sim);
        }
    latmc_ctx_destroy(&ctx);
}

/* Versions: 1 and 2 for the default chain (loadable by older libraries), 3 with the chain;
 * application data in version 3, present or not. */
static void test_versions(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, "avx2", LATMC_COUPLINGS_UNIFORM);
    const char *a = path_in_dir("a.ckpt");
    const unsigned char app[5] = { 1, 2, 3, 4, 5 };
    size_t n = 0, size = 99;
    unsigned char *bytes;
    for (int dec = 0; dec <= 1; dec++) {
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, dec), LATMC_OK);
        assert_int_equal(latmc_sim_save(sim, a), LATMC_OK);
        bytes = test_read_file(a, &n);
        assert_int_equal(bytes[8], dec ? 3 : 1);
        free(bytes);
        assert_int_equal(latmc_checkpoint_app_data(a, NULL, 0, &size), LATMC_ESTATE);
        assert_int_equal(latmc_sim_save_app_data(sim, a, app, sizeof app), LATMC_OK);
        bytes = test_read_file(a, &n);
        assert_int_equal(bytes[8], dec ? 3 : 2);
        free(bytes);
        unsigned char back[5] = { 0 };
        assert_int_equal(latmc_checkpoint_app_data(a, back, sizeof back, &size), LATMC_OK);
        assert_int_equal(size, sizeof app);
        assert_memory_equal(back, app, sizeof app);
        latmc_sim *loaded = NULL;
        assert_int_equal(latmc_sim_load(ctx, a, &loaded), LATMC_OK);
        double v = -1;
        assert_int_equal(latmc_sim_get_param(loaded, LATMC_PARAM_DECISIONS, &v), LATMC_OK);
        assert_true(v == dec);
        latmc_sim_destroy(&loaded);
    }
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* FNV-1a 64 (doc/checkpoints.md) and the reseal of an edited file: size field, checksum. */
static void reseal(unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n - 8; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    for (int i = 0; i < 8; i++) {
        p[16 + i] = (unsigned char)((uint64_t)n >> (8 * i));
        p[n - 8 + i] = (unsigned char)(h >> (8 * i));
    }
}

/* The file damaged, loaded from the file and from memory: ECORRUPT, the message naming
 * `what` (NULL: any). */
static void expect_corrupt(latmc_ctx *ctx, const unsigned char *p, size_t n, const char *what)
{
    const char *bad = path_in_dir("bad.ckpt");
    test_write_file(bad, p, n);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_load(ctx, bad, &sim), LATMC_ECORRUPT);
    assert_null(sim);
    if (what && !strstr(latmc_last_error(), what))
        fail_msg("load: '%s' lacks '%s'", latmc_last_error(), what);
    assert_int_equal(latmc_sim_deserialize(ctx, p, n, &sim), LATMC_ECORRUPT);
    assert_null(sim);
    if (what && !strstr(latmc_last_error(), what))
        fail_msg("deserialize: '%s' lacks '%s'", latmc_last_error(), what);
    size_t size = 1;
    const int st = latmc_checkpoint_app_data(bad, NULL, 0, &size);
    if (st != LATMC_ECORRUPT)
        fail_msg("app data of %zu bytes (%s): %d, %s", n, what ? what : "-", st,
                 latmc_last_error());
}

static void test_damage(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, "c", LATMC_COUPLINGS_BIMODAL);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
    const char *a = path_in_dir("a.ckpt");
    const unsigned char app[3] = { 9, 8, 7 };
    for (int with_app = 0; with_app <= 1; with_app++) {
        assert_int_equal(with_app ? latmc_sim_save_app_data(sim, a, app, sizeof app)
                                  : latmc_sim_save(sim, a), LATMC_OK);
        size_t n = 0;
        unsigned char *good = test_read_file(a, &n);
        unsigned char *p = malloc(n + 16);
        assert_non_null(p);
        /* the chain block: after the configuration (1 byte a site), the coupling count and
         * the couplings (2 floats a site) */
        const size_t prefix = n - 8 - (with_app ? 8 + sizeof app : 0) - 16 -
                              (size_t)LX * LY * 2 * 4 - 8 - (size_t)LX * LY;
        const size_t block = prefix + (size_t)LX * LY + 8 + (size_t)LX * LY * 2 * 4;
        assert_int_equal(good[block], 11); /* u32 11: the keys it holds */
        assert_int_equal(good[block + 12], with_app);

        /* cuts anywhere: at the block, in it, after it, and the last byte */
        const size_t cuts[] = { block, block + 3, block + 11, block + 15, n - 9, n - 1 };
        for (size_t c = 0; c < sizeof cuts / sizeof *cuts; c++) {
            expect_corrupt(ctx, good, cuts[c], NULL);
            memcpy(p, good, cuts[c]);
            reseal(p, cuts[c]);
            expect_corrupt(ctx, p, cuts[c], NULL);
        }
        /* the block's fields, resealed so that they reach its checks */
        memcpy(p, good, n);
        p[block] = 12;
        reseal(p, n);
        expect_corrupt(ctx, p, n, "chain block");
        memcpy(p, good, n);
        p[block + 12] = 2;
        reseal(p, n);
        expect_corrupt(ctx, p, n, "application-data flag");
        memcpy(p, good, n);
        const double two = 2.0; /* decisions = 2: out of range */
        memcpy(p + block + 4, &two, 8);
        reseal(p, n);
        expect_corrupt(ctx, p, n, "out of range");
        memcpy(p, good, n);
        p[block + 12] = (unsigned char)!with_app; /* the flag disagrees with the sizes */
        reseal(p, n);
        expect_corrupt(ctx, p, n, NULL);
        memcpy(p, good, n);
        p[8] = 4; /* a version this library does not know */
        reseal(p, n);
        expect_corrupt(ctx, p, n, "format version 4");
        memcpy(p, good, n);
        p[n / 2] ^= 0x10; /* a flipped bit */
        expect_corrupt(ctx, p, n, NULL);
        free(p);
        free(good);
    }
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restart),
        cmocka_unit_test(test_versions),
        cmocka_unit_test(test_damage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
