/*
 * tests/fuzz — what the fuzzing tools know of the ensemble file format (doc/ensembles.md,
 * lib/ens_io.c's layout, format version 1): where the fields and the member checkpoints
 * sit, and how to make the envelope consistent again after an edit (the file's size field
 * and checksum, and each member checkpoint's own), so that damaged files reach the checks
 * behind the checksums. Only the documented layout; nothing from lib/.
 *
 *   "LATMCENS" u32 version u32 byte-order mark u64 total size
 *   u32 n_samples n_temperatures n_replicas n_threads; u64 seed coupling_seed
 *   u32 16 + 16 u64 member desc; u32 ladder; n_T f64; u64 every sweeps rounds
 *   M u32 temperature of each member; n_T u64 accepted; n_T u64 attempted
 *   M u8 round-trip direction + 1; M u64 round-trip start; u64 count; u64 sum
 *   M x (u64 size, a checkpoint of that size); u64 FNV-1a of everything before it
 */
#ifndef LATMC_FUZZ_ENS_FORMAT_H
#define LATMC_FUZZ_ENS_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "ckpt_format.h"

enum {
    ENS_OFF_VERSION = 8,
    ENS_OFF_MARK = 12,
    ENS_OFF_SIZE = 16,
    ENS_OFF_SAMPLES = 24,
    ENS_OFF_TEMPS = 28,
    ENS_OFF_REPLICAS = 32,
    ENS_OFF_THREADS = 36,
    ENS_OFF_SEED = 40,
    ENS_OFF_COUPLING_SEED = 48,
    ENS_OFF_DESC = 56,        /* u32 16, then 16 u64 (ckpt_format.h's DESC_* order) */
    ENS_OFF_LADDER = 56 + 4 + 16 * 8,
    ENS_OFF_LADDER_VALUES = ENS_OFF_LADDER + 4,
    ENS_MIN_SIZE = ENS_OFF_LADDER_VALUES + 8,
    ENS_MAX_WALK_MEMBERS = 1 << 16,
};

/* Where the variable-length parts of a file start (0: the counts do not fit the file). */
struct ens_layout {
    size_t n_temps, n_members;
    size_t every, temp_of, accepted, attempted, rt_dir, rt_start, rt_count, members;
};

static inline struct ens_layout ens_layout_of(const unsigned char *p, size_t n)
{
    struct ens_layout l = { 0 };
    if (n < ENS_MIN_SIZE)
        return l;
    const uint64_t ns = ckpt_get_le(p + ENS_OFF_SAMPLES, 4), nt = ckpt_get_le(p + ENS_OFF_TEMPS, 4),
                   nr = ckpt_get_le(p + ENS_OFF_REPLICAS, 4);
    if (ns == 0 || nt == 0 || nr == 0 || ns * nt * nr > ENS_MAX_WALK_MEMBERS || nt > n)
        return l;
    l.n_temps = (size_t)nt;
    l.n_members = (size_t)(ns * nt * nr);
    l.every = ENS_OFF_LADDER_VALUES + 8 * l.n_temps;
    l.temp_of = l.every + 24;
    l.accepted = l.temp_of + 4 * l.n_members;
    l.attempted = l.accepted + 8 * l.n_temps;
    l.rt_dir = l.attempted + 8 * l.n_temps;
    l.rt_start = l.rt_dir + l.n_members;
    l.rt_count = l.rt_start + 8 * l.n_members;
    l.members = l.rt_count + 16;
    if (l.members + 8 > n)
        l.members = 0;
    return l;
}

/* Offset of member m's size field (0: not inside the file). */
static inline size_t ens_member_offset(const unsigned char *p, size_t n,
                                       const struct ens_layout *l, size_t m)
{
    if (!l->members || m >= l->n_members)
        return 0;
    size_t at = l->members;
    for (size_t k = 0; k < m; k++) {
        if (at + 8 > n - 8)
            return 0;
        const uint64_t size = ckpt_get_le(p + at, 8);
        if (size > n - 8 - at - 8)
            return 0;
        at += 8 + (size_t)size;
    }
    return at + 8 <= n - 8 ? at : 0;
}

/* Make the envelopes consistent: every member checkpoint that fits is resealed (its size
 * field and checksum), then the file's size field and checksum. Needs n >= 32. */
static inline void ens_reseal(unsigned char *p, size_t n)
{
    const struct ens_layout l = ens_layout_of(p, n);
    for (size_t m = 0; l.members && m < l.n_members; m++) {
        const size_t at = ens_member_offset(p, n, &l, m);
        if (!at)
            break;
        const uint64_t size = ckpt_get_le(p + at, 8);
        if (size >= 32 && size <= n - 8 - at - 8)
            ckpt_reseal(p + at + 8, (size_t)size);
    }
    ckpt_put_le(p + ENS_OFF_SIZE, (uint64_t)n, 8);
    ckpt_put_le(p + n - 8, ckpt_fnv1a(p, n - 8), 8);
}

#endif
