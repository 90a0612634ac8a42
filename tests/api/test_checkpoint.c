/*
 * Checkpoints: a restart continues bit-identically; damaged, truncated, wrong-version,
 * other-byte-order and inconsistent files are refused with LATMC_ECORRUPT and leave
 * nothing allocated (ASan checks the latter); a failed save leaves the old file intact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_helpers.h"

/* The format's checksum, written here independently: FNV-1a 64 of all but the last 8
 * bytes, stored little-endian in the last 8 (doc/checkpoints.md). */
static void fix_checksum(unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n - 8; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    for (int i = 0; i < 8; i++)
        p[n - 8 + i] = (unsigned char)(h >> (8 * i));
}

static latmc_sim *new_ising(latmc_ctx *ctx, int ndim, int algorithm)
{
    latmc_sim_desc d = ising_desc(ndim, 6, 8, 4, algorithm, 1, 424242);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.37), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, 0.05), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, 0.9), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    return sim;
}

static char *temp_path(const char *name)
{
    static char dir[64];
    if (!dir[0]) {
        strcpy(dir, "/tmp/latmc-ckpt-XXXXXX");
        assert_non_null(mkdtemp(dir));
    }
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static void restart_continues_bit_identically(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    char *path = temp_path("restart.ckpt");
    for (int ndim = 2; ndim <= 3; ndim++)
        for (int algorithm = LATMC_ALGO_METROPOLIS; algorithm <= LATMC_ALGO_HEATBATH; algorithm++) {
            latmc_sim *a = new_ising(ctx, ndim, algorithm);
            assert_int_equal(latmc_sim_sweep(a, 15), LATMC_OK);
            assert_int_equal(latmc_sim_save(a, path), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(a, 20), LATMC_OK);

            latmc_sim *b = NULL;
            assert_int_equal(latmc_sim_load(ctx, path, &b), LATMC_OK);
            uint64_t count = 0;
            assert_int_equal(latmc_sim_sweep_count(b, &count), LATMC_OK);
            assert_int_equal(count, 15);
            double v;
            assert_int_equal(latmc_sim_get_param(b, LATMC_PARAM_J, &v), LATMC_OK);
            assert_true(v == 0.9);
            assert_int_equal(latmc_sim_sweep(b, 20), LATMC_OK);

            size_t n = 0;
            assert_int_equal(latmc_sim_spins_size(a, &n), LATMC_OK);
            int8_t *sa = malloc(n), *sb = malloc(n);
            assert_int_equal(latmc_sim_get_spins(a, sa, n), LATMC_OK);
            assert_int_equal(latmc_sim_get_spins(b, sb, n), LATMC_OK);
            assert_memory_equal(sa, sb, n);
            double acc_a, acc_b;
            assert_int_equal(latmc_sim_observable(a, LATMC_OBS_ACCEPTANCE, &acc_a), LATMC_OK);
            assert_int_equal(latmc_sim_observable(b, LATMC_OBS_ACCEPTANCE, &acc_b), LATMC_OK);
            assert_true(acc_a == acc_b);
            latmc_sim_desc da, db;
            latmc_sim_get_desc(a, &da);
            latmc_sim_get_desc(b, &db);
            assert_memory_equal(&da.extent, &db.extent, sizeof da.extent);
            assert_int_equal(da.algorithm, db.algorithm);
            assert_true(da.seed == db.seed);
            free(sa);
            free(sb);
            latmc_sim_destroy(&a);
            latmc_sim_destroy(&b);
        }
    remove(path);
    free(path);
    latmc_ctx_destroy(&ctx);
}

/* Serialised bytes of a small sim. */
static unsigned char *snapshot(latmc_ctx *ctx, size_t *size)
{
    latmc_sim *sim = new_ising(ctx, 2, LATMC_ALGO_METROPOLIS);
    assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, size), LATMC_OK);
    unsigned char *bytes = malloc(*size);
    assert_int_equal(latmc_sim_serialize(sim, bytes, *size, size), LATMC_OK);
    latmc_sim_destroy(&sim);
    return bytes;
}

static void expect_corrupt(latmc_ctx *ctx, const unsigned char *p, size_t n, const char *why)
{
    latmc_sim *sim = (latmc_sim *)(uintptr_t)1;
    int st = latmc_sim_deserialize(ctx, p, n, &sim);
    if (st != LATMC_ECORRUPT)
        print_error("%s: expected LATMC_ECORRUPT, got %d (%s)\n", why, st, latmc_last_error());
    assert_int_equal(st, LATMC_ECORRUPT);
    assert_null(sim);
}

static void every_truncation_and_bit_flip_is_refused(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    size_t size = 0;
    unsigned char *good = snapshot(ctx, &size);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_deserialize(ctx, good, size, &sim), LATMC_OK);
    latmc_sim_destroy(&sim);
    for (size_t len = 0; len < size; len++)
        expect_corrupt(ctx, good, len, "truncated");
    unsigned char *bad = malloc(size + 1);
    for (size_t i = 0; i < size; i++)
        for (int bit = 0; bit < 8; bit++) {
            memcpy(bad, good, size);
            bad[i] ^= (unsigned char)(1u << bit);
            expect_corrupt(ctx, bad, size, "bit flip");
        }
    memcpy(bad, good, size);
    bad[size] = 0;
    expect_corrupt(ctx, bad, size + 1, "extended");
    free(bad);
    free(good);
    latmc_ctx_destroy(&ctx);
}

/* Files with a valid checksum but a wrong version, byte order or content. */
static void well_formed_but_wrong_files_are_refused(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    size_t size = 0;
    unsigned char *good = snapshot(ctx, &size);
    unsigned char *bad = malloc(size);

    memcpy(bad, good, size);
    bad[8] = 2; /* format version 2 */
    fix_checksum(bad, size);
    expect_corrupt(ctx, bad, size, "version");
    assert_non_null(strstr(latmc_last_error(), "format version 2"));

    memcpy(bad, good, size);
    for (int i = 0; i < 4; i++) /* the byte-order mark, reversed */
        bad[12 + i] = good[15 - i];
    fix_checksum(bad, size);
    expect_corrupt(ctx, bad, size, "byte order");
    assert_non_null(strstr(latmc_last_error(), "byte order"));

    /* Desc starts after magic, version, mark, size, library version (40 bytes) and its
     * field count (4): field 2 is extent[0] (6), make it odd. */
    memcpy(bad, good, size);
    bad[44 + 2 * 8] = 7;
    fix_checksum(bad, size);
    expect_corrupt(ctx, bad, size, "odd extent");

    /* The last configuration byte (before the coupling count and checksum): 5 is no spin. */
    memcpy(bad, good, size);
    bad[size - 8 - 8 - 1] = 5;
    fix_checksum(bad, size);
    expect_corrupt(ctx, bad, size, "spin value");

    memcpy(bad, good, size);
    memcpy(bad, "NOTLATMC", 8);
    expect_corrupt(ctx, bad, size, "magic");
    free(bad);
    free(good);
    latmc_ctx_destroy(&ctx);
}

static void failed_save_keeps_the_old_file(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    char *path = temp_path("keep.ckpt");
    char *tmp = temp_path("keep.ckpt.tmp");
    latmc_sim *a = new_ising(ctx, 2, LATMC_ALGO_HEATBATH);
    assert_int_equal(latmc_sim_save(a, path), LATMC_OK);
    struct stat before, after;
    assert_int_equal(stat(path, &before), 0);
    /* Block the temporary file: the save must fail and leave `path` as it was. */
    assert_int_equal(mkdir(tmp, 0700), 0);
    assert_int_equal(latmc_sim_sweep(a, 5), LATMC_OK);
    assert_int_equal(latmc_sim_save(a, path), LATMC_EIO);
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    assert_true(before.st_ino == after.st_ino);
    latmc_sim *b = NULL;
    assert_int_equal(latmc_sim_load(ctx, path, &b), LATMC_OK);
    uint64_t count = 99;
    assert_int_equal(latmc_sim_sweep_count(b, &count), LATMC_OK);
    assert_int_equal(count, 0);
    latmc_sim_destroy(&b);
    latmc_sim_destroy(&a);
    rmdir(tmp);
    remove(path);
    free(path);
    free(tmp);
    latmc_ctx_destroy(&ctx);
}

/* A sim saved before it has a configuration loads without one. */
static void no_configuration_round_trip(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(3, 4, 4, 6, LATMC_ALGO_METROPOLIS, 1, 5);
    latmc_sim *a = NULL, *b = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &a), LATMC_OK);
    size_t size = 0;
    assert_int_equal(latmc_sim_serialize(a, NULL, 0, &size), LATMC_OK);
    unsigned char *bytes = malloc(size);
    assert_int_equal(latmc_sim_serialize(a, bytes, size, &size), LATMC_OK);
    assert_int_equal(latmc_sim_deserialize(ctx, bytes, size, &b), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(b, 1), LATMC_ESTATE);
    free(bytes);
    latmc_sim_destroy(&a);
    latmc_sim_destroy(&b);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(restart_continues_bit_identically),
        cmocka_unit_test(every_truncation_and_bit_flip_is_refused),
        cmocka_unit_test(well_formed_but_wrong_files_are_refused),
        cmocka_unit_test(failed_save_keeps_the_old_file),
        cmocka_unit_test(no_configuration_round_trip),
    };
    return cmocka_run_group_tests_name("checkpoint", tests, NULL, NULL);
}
