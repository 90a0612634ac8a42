/*
 * tests/fuzz — what the fuzzing tools know of the checkpoint format (doc/checkpoints.md,
 * format versions 1 to 3): the header offsets and the checksum, so that they can make damaged
 * files that still pass the envelope checks and reach the field checks behind them.
 * Only the format's documented layout; nothing from lib/.
 */
#ifndef LATMC_FUZZ_CKPT_FORMAT_H
#define LATMC_FUZZ_CKPT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

enum {
    CKPT_OFF_VERSION = 8,     /* u32 format version */
    CKPT_OFF_SIZE = 16,       /* u64 total size, checksum included */
    CKPT_OFF_NFIELDS = 40,    /* u32 number of desc fields (16) */
    CKPT_OFF_DESC = 44,       /* 16 x i64: model, ndim, extent[0..3], q, algorithm, ... */
    CKPT_OFF_NPARAMS = 172,   /* u32 number of parameters P */
    CKPT_OFF_PARAMS = 176,    /* P x f64, keys 1..P */
    CKPT_MIN_SIZE = 8 + 4 + 4 + 8 + 16 + 4 + 16 * 8 + 4,  /* through the parameter count */
};

/* desc field indices (each an i64 at CKPT_OFF_DESC + 8 * index) */
enum { DESC_MODEL, DESC_NDIM, DESC_EXTENT0, DESC_EXTENT1, DESC_EXTENT2, DESC_EXTENT3, DESC_Q,
       DESC_ALGORITHM, DESC_PRECISION, DESC_COUPLINGS, DESC_COUPLING_SEED, DESC_REPLICAS,
       DESC_DEVICE, DESC_DEVICE_INDEX, DESC_N_THREADS, DESC_SEED };

static inline uint64_t ckpt_get_le(const unsigned char *p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

static inline void ckpt_put_le(unsigned char *p, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, v >>= 8)
        p[i] = (unsigned char)(v & 0xff);
}

/* FNV-1a 64 of n bytes. */
static inline uint64_t ckpt_fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* Make the envelope consistent again after an edit: the size field says n, and the last 8
 * bytes are the checksum of the others. Needs n >= 32. */
static inline void ckpt_reseal(unsigned char *p, size_t n)
{
    ckpt_put_le(p + CKPT_OFF_SIZE, (uint64_t)n, 8);
    ckpt_put_le(p + n - 8, ckpt_fnv1a(p, n - 8), 8);
}

/* Offset of the configuration bytes: after the parameters, the sweep number, the two
 * acceptance counters, the has-configuration flag and the configuration size. */
static inline size_t ckpt_config_offset(const unsigned char *p)
{
    size_t nparams = (size_t)ckpt_get_le(p + CKPT_OFF_NPARAMS, 4);
    return CKPT_OFF_PARAMS + 8 * nparams + 8 + 8 + 8 + 4 + 8;
}

/* Offset of version 3's chain block (after the configuration, the coupling count and the
 * couplings): u32 K, then K - 10 parameters as f64 (keys 11 .. K), then u32 1 or 0 (an
 * application-data section follows or not). n: the file's size; 0 where it lies beyond. */
static inline size_t ckpt_chain_offset(const unsigned char *p, size_t n)
{
    if (n < CKPT_MIN_SIZE + 8)
        return 0;
    size_t cfg = ckpt_config_offset(p);
    if (cfg > n)
        return 0;
    uint64_t spins = ckpt_get_le(p + cfg - 8, 8);
    if (spins > n - cfg || n - cfg - spins < 8)
        return 0;
    size_t at = cfg + (size_t)spins;
    uint64_t couplings = ckpt_get_le(p + at, 8);
    if (couplings > (n - at - 8) / 4)
        return 0;
    at += 8 + 4 * (size_t)couplings;
    return at + 16 <= n ? at : 0;
}

/* Whether the file has an application-data section: version 2, or version 3 with the flag
 * of its chain block set (one later parameter: the flag 12 bytes into the block). */
static inline int ckpt_has_app_section(const unsigned char *p, size_t n)
{
    if (n <= 8)
        return 0;
    if (p[8] == 2)
        return 1;
    size_t at = p[8] == 3 ? ckpt_chain_offset(p, n) : 0;
    return at && ckpt_get_le(p + at, 4) == 11 && ckpt_get_le(p + at + 12, 4) == 1;
}

#endif
