/*
 * The couplings API of the Ising +-J model (desc.couplings = LATMC_COUPLINGS_BIMODAL):
 * refused kinds and values (each with its code and a message naming the problem, the sim
 * unchanged), the get/set round trip, and checkpoints that carry the couplings: a restart
 * from a sim whose couplings were set by hand continues bit for bit, and a file whose
 * couplings are not +-1 is refused as corrupt. On the CPU backend.
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

#include "sim_helpers.h"

enum { LX = 6, LY = 4, LZ = 4, NDIM = 3, NSITES = LX * LY * LZ, NC = NSITES * NDIM };

static latmc_sim_desc pmj_desc(void)
{
    latmc_sim_desc d = ising_desc(NDIM, LX, LY, LZ, LATMC_ALGO_METROPOLIS, 1, 99);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.coupling_seed = 5;
    return d;
}

static latmc_sim *new_sim(latmc_ctx *ctx, const latmc_sim_desc *d)
{
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, d, &sim), LATMC_OK);
    return sim;
}

/* GAUSSIAN couplings are not an Ising model; random kinds on models without couplings. */
static void refused_kinds(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = pmj_desc();
    d.couplings = LATMC_COUPLINGS_GAUSSIAN;
    latmc_sim *sim = (latmc_sim *)(uintptr_t)1;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EINVAL);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), "GAUSSIAN"));
    assert_non_null(strstr(latmc_last_error(), "Ising"));
    d = pmj_desc();
    d.model = LATMC_MODEL_POTTS;
    d.q = 3;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "Potts"));
    d.model = LATMC_MODEL_PHI4;
    d.extent[0] = d.extent[1] = d.extent[2] = 8;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_EINVAL);
    latmc_ctx_destroy(&ctx);
}

/* A uniform Ising sim has no couplings, as before. */
static void uniform_sim_has_none(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = pmj_desc();
    d.couplings = LATMC_COUPLINGS_UNIFORM;
    latmc_sim *sim = new_sim(ctx, &d);
    size_t count = 7;
    float buf[NC];
    assert_int_equal(latmc_sim_couplings_size(sim, &count), LATMC_EUNSUPPORTED);
    assert_int_equal(count, 7);
    assert_non_null(strstr(latmc_last_error(), "no couplings")); /* const call: the thread's */
    assert_int_equal(latmc_sim_get_couplings(sim, buf, NC), LATMC_EUNSUPPORTED);
    for (int i = 0; i < NC; i++)
        buf[i] = 1.0f;
    assert_int_equal(latmc_sim_set_couplings(sim, buf, NC), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Exactly +1 or -1; anything else (0.5, NaN, -1 + 1 ulp, 0, 2) is refused with the index,
 * and so is a wrong count; the couplings stay as they were. */
static void set_refuses_other_values(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = pmj_desc();
    latmc_sim *sim = new_sim(ctx, &d);
    size_t count = 0;
    assert_int_equal(latmc_sim_couplings_size(sim, &count), LATMC_OK);
    assert_int_equal(count, NC);
    float before[NC], buf[NC], after[NC];
    assert_int_equal(latmc_sim_get_couplings(sim, before, NC), LATMC_OK);
    const float bad[] = { 0.5f, NAN, nextafterf(-1.0f, 0.0f), 0.0f, 2.0f, INFINITY };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        for (int i = 0; i < NC; i++)
            buf[i] = -before[i]; /* valid values, all different from the current ones */
        buf[37] = bad[k];
        assert_int_equal(latmc_sim_set_couplings(sim, buf, NC), LATMC_EINVAL);
        assert_non_null(strstr(latmc_sim_last_error(sim), "coupling 37"));
        assert_int_equal(latmc_sim_get_couplings(sim, after, NC), LATMC_OK);
        assert_memory_equal(before, after, sizeof before);
    }
    for (int i = 0; i < NC; i++)
        buf[i] = -before[i];
    assert_int_equal(latmc_sim_set_couplings(sim, buf, NC - 1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_get_couplings(sim, after, NC + 1), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_couplings(sim, NULL, NC), LATMC_EINVAL);
    /* and the valid ones are taken */
    assert_int_equal(latmc_sim_set_couplings(sim, buf, NC), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(sim, after, NC), LATMC_OK);
    assert_memory_equal(buf, after, sizeof buf);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Hand-set couplings survive a checkpoint; the restart continues bit for bit. */
static void checkpoint_carries_the_couplings(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = pmj_desc();
    latmc_sim *sim = new_sim(ctx, &d);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.9), LATMC_OK);
    float mine[NC], got[NC];
    uint64_t rng = 31337;
    for (int i = 0; i < NC; i++)
        mine[i] = (test_rng_next(&rng) >> 63) ? -1.0f : 1.0f;
    assert_int_equal(latmc_sim_set_couplings(sim, mine, NC), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 5), LATMC_OK);

    size_t size = 0;
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &size), LATMC_OK);
    unsigned char *bytes = malloc(size);
    assert_int_equal(latmc_sim_serialize(sim, bytes, size, &size), LATMC_OK);
    latmc_sim *back = NULL;
    assert_int_equal(latmc_sim_deserialize(ctx, bytes, size, &back), LATMC_OK);
    assert_int_equal(latmc_sim_get_couplings(back, got, NC), LATMC_OK);
    assert_memory_equal(mine, got, sizeof mine);
    /* not merely the couplings a fresh sim of this desc draws */
    latmc_sim *fresh = new_sim(ctx, &d);
    assert_int_equal(latmc_sim_get_couplings(fresh, got, NC), LATMC_OK);
    assert_memory_not_equal(mine, got, sizeof mine);
    latmc_sim_destroy(&fresh);

    assert_int_equal(latmc_sim_sweep(sim, 7), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(back, 7), LATMC_OK);
    int8_t a[NSITES], b[NSITES];
    assert_int_equal(latmc_sim_get_spins(sim, a, NSITES), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(back, b, NSITES), LATMC_OK);
    assert_memory_equal(a, b, NSITES);
    double ea = 0, eb = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &ea), LATMC_OK);
    assert_int_equal(latmc_sim_observable(back, LATMC_OBS_ENERGY, &eb), LATMC_OK);
    assert_memory_equal(&ea, &eb, sizeof ea);
    latmc_sim_destroy(&back);

    /* a file whose coupling 3 is 0.5 (checksum made valid) is corrupt: the couplings are
     * the last NC floats before the 8-byte checksum (doc/checkpoints.md) */
    const float half = 0.5f;
    memcpy(bytes + size - 8 - NC * sizeof(float) + 3 * sizeof(float), &half, sizeof half);
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a 64, written independently */
    for (size_t i = 0; i < size - 8; i++) {
        h ^= bytes[i];
        h *= UINT64_C(0x100000001b3);
    }
    for (int i = 0; i < 8; i++)
        bytes[size - 8 + i] = (unsigned char)(h >> (8 * i));
    back = (latmc_sim *)(uintptr_t)1;
    assert_int_equal(latmc_sim_deserialize(ctx, bytes, size, &back), LATMC_ECORRUPT);
    assert_null(back);
    assert_non_null(strstr(latmc_last_error(), "coupling"));
    free(bytes);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refused_kinds),
        cmocka_unit_test(uniform_sim_has_none),
        cmocka_unit_test(set_refuses_other_values),
        cmocka_unit_test(checkpoint_carries_the_couplings),
    };
    return cmocka_run_group_tests_name("ising_couplings", tests, NULL, NULL);
}
