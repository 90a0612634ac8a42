/*
 * Ensemble files: the whole ensemble in one checksummed file, replaced atomically
 * (lib/safe_file.c). Layout (little-endian, doc/ensembles.md):
 *
 *   "LATMCENS"  u32 format version (1, or 2 with member lanes)  u32 byte-order mark
 *   u64 total size
 *   layout: u32 n_samples, n_temperatures, n_replicas, n_threads; u64 seed, coupling_seed
 *   member desc: u32 16, then 16 u64 fields (as in a checkpoint)
 *   u32 ladder: 0 no temperatures yet, 1 beta, 2 phi^4's mu2; n_T f64 its values
 *   u64 every, sweeps, rounds
 *   version 2 only: u32 the ensemble's chain, 2 = member lanes (lib/ens_lanes.c)
 *   M u32 temperature of each member
 *   n_T u64 accepted, n_T u64 attempted (per pair; the last entry unused)
 *   M u8 round-trip direction + 1, M u64 round-trip start, u64 count, u64 sum
 *   M x (u64 size, that many bytes of latmc_sim_serialize())
 *   u64 FNV-1a checksum of everything before it
 *
 * Members are ordinary checkpoints, so a member's file is checked by the sim loader
 * itself; the loader here checks that each belongs where it sits (desc, seeds, sweep
 * count, beta or mu2) and that the temperature map is a permutation per (sample, replica).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "checkpoint_desc.h"
#include "checkpoint_format.h"
#include "checkpoint_io.h"
#include "ens_internal.h"
#include "model.h"
#include "safe_file.h"

#define ENS_MAGIC "LATMCENS"
#define ENS_FORMAT_VERSION 1u
/* Files of the member lanes' chain (decisions = 2): version 2, the chain after the
 * rounds; all others stay version 1, byte for byte what they were. */
#define ENS_FORMAT_VERSION_LANES 2u
#define ENS_CHAIN_LANES 2u
#define ENS_ENDIAN_MARK 0x01020304u
#define ENS_HEADER_BYTES (8 + 4 + 4 + 8)

/* Everything but the members and the checksum. */
static void put_head(struct ckpt_writer *w, const latmc_ens *e)
{
    const int M = e->n_members, nT = e->layout.n_temperatures;
    ckpt_put_bytes(w, ENS_MAGIC, 8);
    ckpt_put_u32(w, e->lanes ? ENS_FORMAT_VERSION_LANES : ENS_FORMAT_VERSION);
    const uint32_t mark = ENS_ENDIAN_MARK;
    ckpt_put_bytes(w, &mark, 4);
    ckpt_put_u64(w, 0); /* total size, patched */
    ckpt_put_u32(w, (uint32_t)e->layout.n_samples);
    ckpt_put_u32(w, (uint32_t)nT);
    ckpt_put_u32(w, (uint32_t)e->layout.n_replicas);
    ckpt_put_u32(w, (uint32_t)e->layout.n_threads);
    ckpt_put_u64(w, e->layout.seed);
    ckpt_put_u64(w, e->layout.coupling_seed);
    ckpt_put_desc(w, &e->desc);
    ckpt_put_u32(w, !e->have_temps ? 0u : e->ladder_key == LATMC_PARAM_MU2 ? 2u : 1u);
    for (int t = 0; t < nT; t++)
        ckpt_put_f64(w, e->beta[t]);
    ckpt_put_u64(w, e->every);
    ckpt_put_u64(w, e->sweeps);
    ckpt_put_u64(w, e->rounds);
    if (e->lanes)
        ckpt_put_u32(w, ENS_CHAIN_LANES);
    for (int m = 0; m < M; m++)
        ckpt_put_u32(w, (uint32_t)e->temp_of[m]);
    for (int t = 0; t < nT; t++)
        ckpt_put_u64(w, e->pair_accepted[t]);
    for (int t = 0; t < nT; t++)
        ckpt_put_u64(w, e->pair_attempted[t]);
    for (int m = 0; m < M; m++) {
        const unsigned char dir = (unsigned char)(e->rt_dir[m] + 1);
        ckpt_put_bytes(w, &dir, 1);
    }
    for (int m = 0; m < M; m++)
        ckpt_put_u64(w, e->rt_start[m]);
    ckpt_put_u64(w, e->rt_count);
    ckpt_put_u64(w, e->rt_sum_sweeps);
}

int latmc_ens_save(latmc_ens *e, const char *path)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_save: ens is NULL");
    if (!path || !*path) /* as latmc_sim_save: a bad argument, not a failed write */
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_save: path is %s", !path ? "NULL" : "empty");
    const int sync = latmc_ens_sync(e); /* the map and the statistics from the device */
    if (sync < 0)
        return sync;
    const int M = e->n_members;
    size_t *sizes = calloc((size_t)M, sizeof *sizes);
    if (!sizes)
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_save: cannot allocate");
    struct ckpt_writer count = { NULL, 0, 0 };
    put_head(&count, e);
    size_t total = count.len + 8;
    for (int m = 0; m < M; m++) {
        int st = latmc_sim_serialize(e->members[m], NULL, 0, &sizes[m]);
        if (st < 0) {
            free(sizes);
            return ENS_FAIL(e, st, "latmc_ens_save: member %d: %s", m,
                            latmc_sim_last_error(e->members[m]));
        }
        total += 8 + sizes[m];
    }
    unsigned char *bytes = malloc(total);
    if (!bytes) {
        free(sizes);
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_save: cannot allocate %zu bytes", total);
    }
    struct ckpt_writer w = { bytes, total, 0 };
    put_head(&w, e);
    int st = LATMC_OK;
    for (int m = 0; m < M && st == LATMC_OK; m++) {
        ckpt_put_u64(&w, sizes[m]);
        size_t got = 0;
        st = latmc_sim_serialize(e->members[m], bytes + w.len, sizes[m], &got);
        if (st < 0)
            st = ENS_FAIL(e, st, "latmc_ens_save: member %d: %s", m,
                          latmc_sim_last_error(e->members[m]));
        w.len += sizes[m];
    }
    if (st == LATMC_OK) {
        struct ckpt_writer patch = { bytes + 16, 8, 0 };
        ckpt_put_u64(&patch, total);
        ckpt_put_u64(&w, ckpt_checksum(bytes, w.len));
        st = latmc_file_replace(path, bytes, total, "latmc_ens_save");
        if (st < 0)
            latmc_ens_record_failure(e, st);
    }
    free(bytes);
    free(sizes);
    return st;
}

static int corrupt(const char *path, const char *what)
{
    return latmc_fail(LATMC_ECORRUPT, "latmc_ens_load: '%s': %s", path, what);
}

/* The stored member must be the member this position names. */
static bool member_fits(const latmc_ens *e, int m, const latmc_sim *sim)
{
    /* this version's struct, said so (the functions honour a caller's older size) */
    latmc_sim_desc want = { .struct_size = sizeof want }, have = { .struct_size = sizeof have };
    latmc_ens_member_desc(e, m, &want);
    latmc_sim_get_desc(sim, &have);
    bool same = want.model == have.model && want.ndim == have.ndim && want.q == have.q &&
                want.algorithm == have.algorithm && want.precision == have.precision &&
                want.couplings == have.couplings && want.coupling_seed == have.coupling_seed &&
                want.replicas == have.replicas && want.seed == have.seed;
    for (int mu = 0; mu < 4; mu++)
        same = same && want.extent[mu] == have.extent[mu];
    uint64_t sweeps = 0;
    latmc_sim_sweep_count(sim, &sweeps);
    same = same && sweeps == e->sweeps;
    if (e->have_temps) {
        double value = -1;
        same = same && latmc_sim_get_param(sim, e->ladder_key, &value) == LATMC_OK &&
               value == e->beta[e->temp_of[m]];
    }
    return same;
}

static int parse(latmc_ctx *ctx, const unsigned char *p, size_t size, const char *path,
                 latmc_ens **out)
{
    if (size < ENS_HEADER_BYTES + 8 || memcmp(p, ENS_MAGIC, 8) != 0)
        return corrupt(path, "not a liblatmc ensemble file");
    struct ckpt_reader r = { p, size, 8, false };
    const uint32_t version = ckpt_get_u32(&r);
    if (version != ENS_FORMAT_VERSION && version != ENS_FORMAT_VERSION_LANES)
        return corrupt(path, "unknown format version");
    uint32_t mark;
    ckpt_get_bytes(&r, &mark, 4);
    if (mark != ENS_ENDIAN_MARK)
        return corrupt(path, "written on a machine of the other byte order");
    if (ckpt_get_u64(&r) != size)
        return corrupt(path, "its header names another size (truncated or extended)");
    struct ckpt_reader tail = { p, size, size - 8, false };
    if (ckpt_get_u64(&tail) != ckpt_checksum(p, size - 8))
        return corrupt(path, "checksum mismatch (the file is damaged)");
    latmc_ens_layout layout;
    latmc_ens_layout_init(&layout);
    layout.n_samples = (int)ckpt_get_u32(&r);
    layout.n_temperatures = (int)ckpt_get_u32(&r);
    layout.n_replicas = (int)ckpt_get_u32(&r);
    layout.n_threads = (int)ckpt_get_u32(&r);
    layout.seed = ckpt_get_u64(&r);
    layout.coupling_seed = ckpt_get_u64(&r);
    latmc_sim_desc desc;
    if (ckpt_get_desc(&r, &desc) != NULL || r.truncated)
        return corrupt(path, "bad member desc");
    latmc_ens *e = NULL;
    int st = latmc_ens_alloc(ctx, &desc, &layout, &e);
    if (st < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        /* a layout or member desc this library never writes (as the checkpoint loader
         * refuses a desc it cannot run): the file's fault, not the caller's */
        return st == LATMC_EINVAL || st == LATMC_EUNSUPPORTED
                   ? corrupt(path, why)
                   : latmc_fail(st, "latmc_ens_load: %s", why);
    }
    const int M = e->n_members, nT = layout.n_temperatures;
    const uint32_t have_temps = ckpt_get_u32(&r);
    e->have_temps = have_temps == 1 || have_temps == 2;
    e->ladder_key = have_temps == 2 ? LATMC_PARAM_MU2 : LATMC_PARAM_BETA;
    for (int t = 0; t < nT; t++)
        e->beta[t] = ckpt_get_f64(&r);
    e->every = ckpt_get_u64(&r);
    e->sweeps = ckpt_get_u64(&r);
    e->rounds = ckpt_get_u64(&r);
    const uint32_t chain = version == ENS_FORMAT_VERSION_LANES ? ckpt_get_u32(&r) : 0u;
    e->lanes = chain == ENS_CHAIN_LANES;
    const struct latmc_model_def *model = latmc_model_get(e->desc.model);
    /* a round follows at least one sweep (lib/ens.c, lib/ens_temper.c): more rounds than
     * sweeps never were, and a round number past the sweeps' would name draws beyond them */
    bool bad = have_temps > 2 || (e->every > 0 && (!e->have_temps || nT < 2)) ||
               (e->have_temps && !(model->params & (1u << e->ladder_key))) ||
               e->rounds > e->sweeps ||
               (version == ENS_FORMAT_VERSION_LANES && chain != ENS_CHAIN_LANES);
    /* The map: a permutation of 0..n_T-1 over each (sample, replica). */
    for (int m = 0; m < M; m++) {
        const uint32_t t = ckpt_get_u32(&r);
        bad = bad || t >= (uint32_t)nT;
        e->temp_of[m] = bad ? 0 : (int)t;
    }
    for (int i = 0; i < M; i++)
        e->member_at[i] = -1;
    for (int m = 0; m < M && !bad; m++) {
        const int i = ens_slot_index(e, ens_sample_of(e, m), e->temp_of[m], ens_replica_of(e, m));
        bad = e->member_at[i] != -1;
        e->member_at[i] = m;
    }
    for (int t = 0; t < nT; t++)
        e->pair_accepted[t] = ckpt_get_u64(&r);
    for (int t = 0; t < nT; t++) {
        e->pair_attempted[t] = ckpt_get_u64(&r);
        /* the sim loader's bound on its counters, and for the same reason: more could wrap
         * around in the next rounds (latmc_ens_sweep refuses past half of it) */
        bad = bad || e->pair_accepted[t] > e->pair_attempted[t] ||
              e->pair_attempted[t] > CKPT_MAX_ATTEMPTED;
    }
    for (int m = 0; m < M; m++) {
        unsigned char dir = 0;
        ckpt_get_bytes(&r, &dir, 1);
        bad = bad || dir > 2;
        e->rt_dir[m] = (signed char)(dir - 1);
    }
    /* A trip starts at a sweep already done (a later start would make the next trip's
     * length, sweeps - start, wrap around 2^64); the count and the sum of the trips'
     * sweeps within the exchange counters' bound, for the same reason as theirs
     * (latmc_ens_sweep refuses past half of it). */
    for (int m = 0; m < M; m++) {
        e->rt_start[m] = ckpt_get_u64(&r);
        bad = bad || e->rt_start[m] > e->sweeps;
    }
    e->rt_count = ckpt_get_u64(&r);
    e->rt_sum_sweeps = ckpt_get_u64(&r);
    bad = bad || e->rt_count > CKPT_MAX_ATTEMPTED || e->rt_sum_sweeps > CKPT_MAX_ATTEMPTED;
    if (bad || r.truncated) {
        latmc_ens_destroy(&e);
        return corrupt(path, "inconsistent temperatures, map or statistics");
    }
    for (int m = 0; m < M; m++) {
        const uint64_t n = ckpt_get_u64(&r);
        /* r.pos may already sit in the checksum's 8 bytes: compare without wrapping */
        if (r.truncated || r.pos > r.len - 8 || n > r.len - 8 - r.pos) {
            latmc_ens_destroy(&e);
            return corrupt(path, "truncated member");
        }
        /* placed as latmc_ens_create places them (a file written before it did stores
         * AUTO for cluster members, which would now pick the GPU) */
        latmc_sim_desc placed = { .struct_size = sizeof placed };
        const bool moved = latmc_ens_member_placed(e, m, &placed);
        st = ckpt_deserialize(ctx, r.buf + r.pos, (size_t)n, NULL, moved ? &placed : NULL,
                              "latmc_ens_load", &e->members[m]);
        r.pos += (size_t)n;
        if (st < 0 || !member_fits(e, m, e->members[m])) {
            char why[LATMC_ERRMSG_SIZE];
            snprintf(why, sizeof why, "member %d: %s", m, st < 0 ? latmc_thread_error()
                     : "not the member of this position (desc, seed, sweeps or the ladder's value differ)");
            latmc_ens_destroy(&e);
            return st < 0 && st != LATMC_ECORRUPT ? latmc_fail(st, "latmc_ens_load: %s", why)
                                                  : corrupt(path, why);
        }
    }
    if (r.pos != size - 8) {
        latmc_ens_destroy(&e);
        return corrupt(path, "trailing bytes");
    }
    /* the member lanes: of members that have the chain (else the file is damaged: this
     * library writes no other), continued only where they run, never as another chain */
    if (e->lanes && (st = latmc_ens_lanes_check_chain(e, "latmc_ens_load")) < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        latmc_ens_destroy(&e);
        return corrupt(path, why);
    }
    if (e->lanes && (st = latmc_ens_lanes_check(e, "latmc_ens_load")) < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        latmc_ens_destroy(&e);
        return latmc_fail(st, "latmc_ens_load: '%s': %s", path, why);
    }
    e->desc.n_threads = 1;
    *out = e;
    return LATMC_OK;
}

int latmc_ens_load(latmc_ctx *ctx, const char *path, latmc_ens **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !path || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_load: %s is NULL",
                          !ctx ? "ctx" : !path ? "path" : "out");
    int fd = -1;
    uint64_t size = 0;
    int st = latmc_file_open_regular(path, "latmc_ens_load", &fd, &size);
    if (st < 0)
        return st;
    unsigned char *bytes = size <= (uint64_t)SIZE_MAX / 2 ? malloc(size ? (size_t)size : 1) : NULL;
    if (!bytes) {
        close(fd);
        return latmc_fail(LATMC_ENOMEM, "latmc_ens_load: cannot allocate %llu bytes for '%s'",
                          (unsigned long long)size, path);
    }
    st = latmc_file_read_at(fd, bytes, (size_t)size, 0, path, "latmc_ens_load");
    close(fd);
    if (st == LATMC_OK)
        st = parse(ctx, bytes, (size_t)size, path, out);
    free(bytes);
    if (st < 0)
        latmc_log(ctx, LATMC_LOG_ERROR, "%s", latmc_thread_error());
    return st;
}
