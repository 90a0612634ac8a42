/*
 * libFuzzer harness for the checkpoint loader: latmc_sim_deserialize on arbitrary bytes.
 *
 * Structure-aware: a custom mutator (LLVMFuzzerCustomMutator) edits checkpoints the way
 * the format is built -- it sets a desc field, a parameter, a counter, the configuration
 * flag, a size field, a spin, a coupling or the application-data size to a value chosen
 * to sit at a boundary (0, 1, -1, powers of two, NaN, inf, +-0.5, 2^17 extents, ...), cuts
 * or extends the file at a field boundary, or lets libFuzzer mutate the bytes -- and then
 * reseals the result (size field and checksum made consistent, ckpt_format.h), because
 * random bytes almost never pass the checksum and the field checks behind it are where a
 * loader goes wrong. One mutation in 16 is left unsealed, to keep the envelope checks in
 * play. Seeded with tests/fuzz/corpus (every model variant, format versions 1 and 2).
 *
 * Each input is also tried twice: as it is, and resealed. A loaded sim must work: it is
 * measured, swept once when that is cheap, and serialized again, and the bytes must load
 * again into an identical state. Crashes, sanitizer reports, leaks, allocations past
 * -malloc_limit_mb and broken invariants (abort) are findings; refusals are not.
 *
 * Built only with clang -fsanitize=fuzzer (meson option -Dfuzz=enabled, or
 * tools/ci-fuzz.sh; tests/fuzz/README.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "ckpt_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

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

static void try_load(const uint8_t *data, size_t size)
{
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

/* ---- the structure-aware mutator ---- */

static uint64_t rng_state;

static uint64_t next_random(void)
{
    rng_state += UINT64_C(0x9E3779B97F4A7C15); /* splitmix64 */
    uint64_t z = rng_state;
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static size_t below(size_t n)
{
    return n ? (size_t)(next_random() % n) : 0;
}

static uint64_t f64_bits(double v)
{
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

/* 64-bit values at the edges of what the fields take (integers and doubles). */
static uint64_t interesting64(void)
{
    static const int64_t ints[] = { 0, 1, 2, 3, 4, 5, 7, 8, 9, 10, 15, 16, 17, 64, 255, 256,
                                    65535, 65536, 65537, INT64_C(1) << 17, INT64_C(1) << 20,
                                    INT64_C(1) << 21, INT32_MAX, INT64_C(1) << 31,
                                    INT64_C(1) << 32, INT64_C(1) << 40, INT64_C(1) << 46,
                                    INT64_MAX, INT64_MIN, -1, -2, -8 };
    static const double dbls[] = { 0.0, -0.0, 1.0, -1.0, 0.5, 1e-300, 1e300, 1e100, 1e101,
                                   65535.0, 65536.0, 2.5, 1e-5 };
    switch (below(4)) {
    case 0:
        return (uint64_t)ints[below(sizeof ints / sizeof ints[0])];
    case 1:
        return f64_bits(dbls[below(sizeof dbls / sizeof dbls[0])]);
    case 2: {
        static const uint64_t special[] = { UINT64_C(0x7ff8000000000000),   /* NaN */
                                            UINT64_C(0x7ff0000000000000),   /* inf */
                                            UINT64_C(0xfff0000000000000),   /* -inf */
                                            UINT64_C(0x0000000000000001) }; /* denormal */
        return special[below(4)];
    }
    default:
        return next_random();
    }
}

/* 32-bit values for floats (couplings, spins) and 32-bit fields. */
static uint32_t interesting32(void)
{
    static const uint32_t v[] = { 0x3f800000u, 0xbf800000u, 0x3f000000u, 0x00000000u,
                                  0x80000000u, 0x7fc00000u, 0x7f800000u, 0xff800000u,
                                  0x40000000u, 0x00000001u, 0x7f7fffffu, 0u, 1u, 2u, 3u,
                                  16u, 0xffffffffu };
    return below(4) ? v[below(sizeof v / sizeof v[0])] : (uint32_t)next_random();
}

/* Offsets of the fields of a (long enough) checkpoint, from its own size fields; 0 where
 * the file is too short to hold the field. */
struct layout {
    size_t after_params;   /* sweeps, accepted, attempted, flag, configuration size */
    size_t config, config_bytes;
    size_t couplings_count, couplings, couplings_bytes;
    size_t app_size;       /* version 2 */
};

static struct layout layout_of(const uint8_t *p, size_t n)
{
    struct layout l = { 0, 0, 0, 0, 0, 0, 0 };
    if (n < CKPT_MIN_SIZE + 8)
        return l;
    size_t cfg = ckpt_config_offset(p);
    if (cfg > n)
        return l;
    l.after_params = cfg - 36;
    l.config = cfg;
    uint64_t cb = ckpt_get_le(p + cfg - 8, 8);
    if (cb > n - cfg)
        return l;
    l.config_bytes = (size_t)cb;
    size_t cc = cfg + (size_t)cb;
    if (cc + 8 > n)
        return l;
    l.couplings_count = cc;
    uint64_t nc = ckpt_get_le(p + cc, 8);
    if (nc > (n - cc - 8) / 4)
        return l;
    l.couplings = cc + 8;
    l.couplings_bytes = (size_t)nc * 4;
    if (p[CKPT_OFF_VERSION] == 2 && l.couplings + l.couplings_bytes + 8 <= n)
        l.app_size = l.couplings + l.couplings_bytes;
    return l;
}

/* One field edit: an 8-byte header field, a parameter, a counter, a 4-byte field, a value
 * in the configuration or the couplings. */
static void edit_field(uint8_t *p, size_t n)
{
    struct layout l = layout_of(p, n);
    size_t nparams = (size_t)ckpt_get_le(p + CKPT_OFF_NPARAMS, 4);
    switch (below(7)) {
    case 0: /* a desc field */
        ckpt_put_le(p + CKPT_OFF_DESC + 8 * below(16), interesting64(), 8);
        break;
    case 1: /* a parameter */
        if (nparams <= 16 && CKPT_OFF_PARAMS + 8 * nparams <= n && nparams)
            ckpt_put_le(p + CKPT_OFF_PARAMS + 8 * below(nparams), interesting64(), 8);
        break;
    case 2: /* sweeps, accepted, attempted, configuration size */
        if (l.after_params) {
            static const size_t at[] = { 0, 8, 16, 28 };
            ckpt_put_le(p + l.after_params + at[below(4)], interesting64(), 8);
        }
        break;
    case 3: /* the 4-byte fields: version, desc count, parameter count, flag */
        switch (below(4)) {
        case 0: ckpt_put_le(p + CKPT_OFF_VERSION, below(4), 4); break;
        case 1: ckpt_put_le(p + CKPT_OFF_NFIELDS, interesting32(), 4); break;
        case 2: ckpt_put_le(p + CKPT_OFF_NPARAMS, interesting32(), 4); break;
        default:
            if (l.after_params)
                ckpt_put_le(p + l.after_params + 24, below(3), 4);
        }
        break;
    case 4: /* a value in the configuration: one byte or one float/double */
        if (l.config_bytes) {
            size_t at = l.config + below(l.config_bytes);
            if (below(2) || at + 8 > l.config + l.config_bytes)
                p[at] = (uint8_t)interesting32();
            else if (below(2))
                ckpt_put_le(p + (at & ~(size_t)3), interesting32(), 4);
            else
                ckpt_put_le(p + (at & ~(size_t)7), interesting64(), 8);
        }
        break;
    case 5: /* a coupling, or the coupling count */
        if (l.couplings_bytes && below(4))
            ckpt_put_le(p + l.couplings + 4 * below(l.couplings_bytes / 4), interesting32(), 4);
        else if (l.couplings_count)
            ckpt_put_le(p + l.couplings_count, interesting64(), 8);
        break;
    default: /* the application-data size */
        if (l.app_size)
            ckpt_put_le(p + l.app_size, interesting64(), 8);
        break;
    }
}

/* Cut or extend the file at a field boundary (the end of the configuration, of the
 * couplings, of the section), or by a few bytes. */
static size_t resize(uint8_t *p, size_t n, size_t max)
{
    struct layout l = layout_of(p, n);
    size_t to = n;
    switch (below(4)) {
    case 0: to = l.config ? l.config + 8 : n; break;
    case 1: to = l.couplings ? l.couplings + 8 : n; break;
    case 2: to = l.app_size ? l.app_size + 16 : n + 8; break;
    default: to = n + below(17) - 8; break;
    }
    if (to > max)
        to = max;
    if (to < CKPT_MIN_SIZE + 8)
        to = CKPT_MIN_SIZE + 8;
    if (to > n)
        memset(p + n, 0, to - n);
    return to;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    rng_state = seed;
    if (size < CKPT_MIN_SIZE + 8 || max_size < CKPT_MIN_SIZE + 8)
        return LLVMFuzzerMutate(data, size, max_size);
    size_t edits = 1 + below(3);
    for (size_t i = 0; i < edits; i++) {
        switch (below(8)) {
        case 0:
        case 1:
            size = LLVMFuzzerMutate(data, size, max_size);
            break;
        case 2:
            size = resize(data, size, max_size);
            break;
        default:
            edit_field(data, size);
            break;
        }
        if (size < CKPT_MIN_SIZE + 8)
            return size;
    }
    if (below(16))
        ckpt_reseal(data, size);
    return size;
}
