/*
 * libFuzzer harness for the checkpoint loader: latmc_sim_deserialize on arbitrary bytes.
 *
 * Each input is tried twice: as it is, and "resealed" (the size field and the checksum made
 * consistent, ckpt_format.h), because random bytes almost never pass the checksum and the
 * field checks behind it are where a loader goes wrong. A loaded sim must work: it is
 * measured, swept once when that is cheap, and serialized again, and the bytes must load
 * again into an identical state. Crashes, sanitizer reports, leaks and broken invariants
 * (abort) are findings; refusals are not.
 *
 * Known finding (reported): the loader creates the sim, and allocates its lattice, from the
 * desc before it checks that the file holds that lattice, so a few hundred bytes can ask for
 * gigabytes. To fuzz past it, set FUZZ_CHECKPOINT_MAX_SITES=N: inputs whose desc asks for
 * more than N sites are then skipped. Unset, nothing is skipped.
 *
 * Built only with clang -fsanitize=fuzzer (meson option -Dfuzz=enabled, tests/fuzz/README.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "ckpt_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static latmc_ctx *ctx;

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_checkpoint: invariant broken: %s\n", what);
        abort();
    }
}

/* A sweep is cheap unless the parameters multiply the work (phi^4 nhit x nloc up to 65535^2,
 * Heisenberg nover up to 65535): skip it then, the fuzzer looks for bugs, not for timeouts. */
static int cheap_to_sweep(latmc_sim *sim)
{
    double nhit = 1, nloc = 1, nover = 0;
    latmc_sim_get_param(sim, LATMC_PARAM_NHIT, &nhit);
    latmc_sim_get_param(sim, LATMC_PARAM_NLOC, &nloc);
    latmc_sim_get_param(sim, LATMC_PARAM_NOVER, &nover);
    size_t bytes = 0;
    latmc_sim_spins_size(sim, &bytes);
    return nhit * nloc <= 16 && nover <= 16 && bytes <= 65536;
}

static void exercise(latmc_sim *sim)
{
    double v;
    for (int key = LATMC_OBS_ENERGY; key <= LATMC_OBS_OVERLAP2; key++)
        latmc_sim_observable(sim, key, &v);
    if (cheap_to_sweep(sim))
        latmc_sim_sweep(sim, 1);

    /* Round trip: what loaded must serialize, and load again to the same bytes. */
    size_t n = 0;
    require(latmc_sim_serialize(sim, NULL, 0, &n) == LATMC_OK, "serialize size");
    unsigned char *a = malloc(n), *b = NULL;
    require(a != NULL, "allocation");
    require(latmc_sim_serialize(sim, a, n, &n) == LATMC_OK, "serialize");
    latmc_sim *again = NULL;
    require(latmc_sim_deserialize(ctx, a, n, &again) == LATMC_OK, "reload of own bytes");
    size_t m = 0;
    require(latmc_sim_serialize(again, NULL, 0, &m) == LATMC_OK && m == n, "reload size");
    b = malloc(m);
    require(b != NULL, "allocation");
    require(latmc_sim_serialize(again, b, m, &m) == LATMC_OK && memcmp(a, b, n) == 0,
            "reload gives the same bytes");
    latmc_sim_destroy(&again);
    free(a);
    free(b);
}

/* Sites the desc of a (long enough) input asks for, saturating; 0 if it is too short. */
static double desc_sites(const uint8_t *data, size_t size)
{
    if (size < CKPT_MIN_SIZE)
        return 0.0;
    double sites = 1.0;
    for (int k = 0; k < 4; k++) {
        int64_t e = (int64_t)ckpt_get_le(data + CKPT_OFF_DESC + 8 * (DESC_EXTENT0 + k), 8);
        sites *= e > 1 ? (double)e : 1.0;
    }
    return sites;
}

static int skipped(const uint8_t *data, size_t size)
{
    static double max_sites = -1.0;
    if (max_sites < 0.0) {
        const char *env = getenv("FUZZ_CHECKPOINT_MAX_SITES");
        max_sites = env != NULL ? strtod(env, NULL) : 0.0;
    }
    return max_sites > 0.0 && desc_sites(data, size) > max_sites;
}

static void try_load(const uint8_t *data, size_t size)
{
    if (skipped(data, size))
        return;
    latmc_sim *sim = NULL;
    int st = latmc_sim_deserialize(ctx, data, size, &sim);
    require((st == LATMC_OK) == (sim != NULL), "*out set exactly on success");
    require(st <= 0 && st != LATMC_EIO, "a status of the list, never EIO for bytes");
    if (sim != NULL)
        exercise(sim);
    latmc_sim_destroy(&sim);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ctx == NULL && latmc_ctx_create(&ctx) != LATMC_OK)
        abort();
    try_load(data, size);
    if (size >= CKPT_MIN_SIZE + 8) {
        unsigned char *copy = malloc(size);
        if (copy == NULL)
            return 0;
        memcpy(copy, data, size);
        ckpt_reseal(copy, size);
        try_load(copy, size);
        free(copy);
    }
    return 0;
}
