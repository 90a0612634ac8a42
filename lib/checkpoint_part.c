/*
 * Checkpoints of a sim that is one part of a lattice shared by processes (lib/part.h),
 * streamed in chunks of planes between part 0's file and the parts that own the planes,
 * so that no part ever holds the whole lattice (doc/mpi.md, "Checkpoints"):
 *
 * - Saving: part 0 writes the ordinary format (checkpoint_format.h) into a temporary
 *   file: the prefix, then the configuration and the couplings in file order, each chunk
 *   gathered from the part that owns its planes (get_planes, get_coupling_planes), the
 *   chain block of version 3 (decisions = 1) and the application data, the checksum
 *   folded in as the bytes go; then fsync, and the rename only once every part has agreed
 *   that all went well. The bytes are those of an ordinary sim's save.
 * - Loading: part 0 reads the file's prefix and checks it as an ordinary load does, every
 *   part creates its part from the desc, then part 0 reads the configuration chunk by
 *   chunk, checks its values and sends each chunk to the part that owns its planes
 *   (set_planes); the couplings go to every part, which keeps the planes near its slab;
 *   version 3's chain block travels with the prefix and is checked in file order; the
 *   checksum is folded in as the file is read and compared at its end. Any failure
 *   (including the checksum's) is agreed on and destroys the new parts: nothing of the
 *   caller's changes.
 *
 * Extra memory on a part: a few chunks (CHUNK_BYTES, whole planes), never the lattice.
 * The one exception is a backend without per-plane couplings (ops.get_coupling_planes
 * absent or LATMC_EUNSUPPORTED, which then holds every coupling on every part anyway):
 * part 0 copies its couplings whole for a save. A load hands the couplings to
 * ops.set_couplings, which takes the whole lattice's layout: each part passes a buffer of
 * that size whose pages beyond the planes near its slab are never written (anonymous
 * pages mapped on demand: address space, not memory).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE (sparse_floats) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "backend.h"
#include "checkpoint_format.h"
#include "desc.h"
#include "model.h"
#include "part.h"
#include "safe_file.h"

/* The bytes of one chunk of planes, unless LATMC_CHECKPOINT_CHUNK_BYTES says otherwise
 * (tests: one plane per chunk). At least one plane. */
#define CHUNK_BYTES ((size_t)4 << 20)

static size_t chunk_planes(size_t plane_bytes)
{
    size_t want = CHUNK_BYTES;
    const char *env = getenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    if (env && *env) {
        char *end = NULL;
        unsigned long long v = strtoull(env, &end, 10);
        if (end && *end == '\0' && v > 0)
            want = (size_t)v;
    }
    const size_t k = plane_bytes ? want / plane_bytes : 1;
    return k ? k : 1;
}

static int64_t plane_sites(const latmc_sim_desc *d)
{
    int64_t n = 1;
    for (int mu = 0; mu < d->ndim - 1; mu++)
        n *= d->extent[mu];
    return n;
}

/* ---- saving ---- */

/* Part 0's side of a save: the file being written and the checksum so far. `st` latches
 * the first failure; after one nothing more is written (the temporary file is gone). */
struct save_out {
    struct latmc_file_writer *w;
    uint64_t sum;
    int st;
};

static void out_bytes(struct save_out *o, const void *p, size_t n)
{
    if (o->st < 0 || !o->w)
        return;
    o->sum = ckpt_checksum_add(o->sum, p, n);
    if ((o->st = latmc_file_write(o->w, p, n)) < 0)
        o->w = NULL; /* latmc_file_write removed the file and freed the writer */
}

static void out_u64(struct save_out *o, uint64_t v)
{
    unsigned char b[8];
    struct ckpt_writer w = { b, sizeof b, 0 };
    ckpt_put_u64(&w, v);
    out_bytes(o, b, sizeof b);
}

/*
 * One pass over the planes in global order, chunk by chunk within each part's slab: the
 * owner fills `mine` with `bytes_per_plane` bytes per plane (fill: replica r's configuration
 * or the couplings), the chunk is gathered to part 0, which writes it. A local failure is
 * latched in *local (the passes go on, so that no part waits); a transport failure ends
 * the pass (returned).
 */
struct plane_source {
    int replica;        /* configuration of this replica; < 0: the couplings */
    size_t bytes;       /* bytes per plane of what is written */
    unsigned char *buf; /* k planes of get_planes (every replica) or couplings */
    unsigned char *out; /* part 0: k planes of what is written */
    size_t k;           /* planes per chunk */
};

static int fill_chunk(latmc_sim *sim, const struct plane_source *src, int64_t a, int64_t b,
                      const unsigned char **from)
{
    if (src->replica < 0) {
        *from = src->buf;
        return sim->ops->get_coupling_planes(sim, a, b, (float *)(void *)src->buf);
    }
    /* get_planes' layout: each replica's planes in turn */
    *from = src->buf + (size_t)src->replica * (size_t)(b - a) * src->bytes;
    return sim->ops->get_planes(sim, a, b, src->buf);
}

static int stream_planes_out(latmc_sim *sim, const struct plane_source *src,
                             struct save_out *o, int *local)
{
    struct latmc_part *part = sim->part;
    size_t *bytes = part->gather_bytes;
    unsigned char dummy = 0;
    for (int owner = 0; owner < part->n_parts; owner++) {
        for (int64_t a = part->first[owner]; a < part->first[owner + 1];
             a += (int64_t)src->k) {
            const int64_t left = part->first[owner + 1] - a;
            const int64_t b = a + (left < (int64_t)src->k ? left : (int64_t)src->k);
            const size_t n = (size_t)(b - a) * src->bytes;
            const unsigned char *mine = &dummy;
            if (part->rank == owner && *local == LATMC_OK) {
                const int st = fill_chunk(sim, src, a, b, &mine);
                if (st < 0) {
                    *local = st;
                    mine = src->buf; /* sent anyway: the save fails at the agreement */
                }
            } else if (part->rank == owner) {
                mine = src->buf;
            }
            if (owner == 0) { /* part 0's own planes: nothing to send */
                if (part->rank == 0)
                    out_bytes(o, mine, n);
                continue;
            }
            for (int p = 0; p < part->n_parts; p++)
                bytes[p] = p == owner ? n : 0;
            int st = latmc_part_gather(part, "gather (checkpoint chunk)", 0, mine,
                                       part->rank == 0 ? src->out : NULL, bytes);
            if (st < 0)
                return st;
            if (part->rank == 0)
                out_bytes(o, src->out, n);
        }
    }
    return LATMC_OK;
}

/* Whether this part's backend gives its couplings plane by plane: asked on its first
 * plane (every part has the same backend and model, so every part answers alike). */
static int couplings_by_plane(latmc_sim *sim, float *probe, bool *planes)
{
    *planes = latmc_part_has_coupling_planes(sim);
    if (!*planes)
        return LATMC_OK;
    const int64_t p0 = sim->part->p0;
    int st = sim->ops->get_coupling_planes(sim, p0, p0 + 1, probe);
    if (st == LATMC_EUNSUPPORTED) {
        *planes = false;
        st = LATMC_OK;
    }
    return st;
}

int ckpt_part_save(latmc_sim *sim, const char *path, const struct app_section *app,
                   const char *fn)
{
    struct latmc_part *part = sim->part;
    const bool writer = part->rank == 0;
    int local = LATMC_OK;
    if (writer && (!path || !*path))
        local = SIM_FAIL(sim, LATMC_EINVAL, "%s: path is %s", fn, !path ? "NULL" : "empty");
    else if (writer && app->present && app->size && !app->data)
        local = SIM_FAIL(sim, LATMC_EINVAL, "%s: data is NULL and size is %zu", fn, app->size);
    else if (!sim->have_config &&
             (uint64_t)sim->nsites * (uint64_t)sim->desc.replicas > CKPT_MAX_EMPTY_SITES)
        local = SIM_FAIL(sim, LATMC_ESTATE, "%s: the sim has no configuration yet and more "
                         "than %d sites x replicas: such a checkpoint could not be loaded (the "
                         "file would not hold the lattice it declares); call "
                         "latmc_sim_init_spins or latmc_sim_set_spins first", fn,
                         CKPT_MAX_EMPTY_SITES);
    size_t spin_bytes = 0, ncouplings = 0;
    ckpt_state_sizes(sim, &spin_bytes, &ncouplings);
    const size_t app_bytes = app->present ? 8 + app->size : 0;
    /* the chain's parameters (decisions = 1: version 3) are the same on every part (set
     * collectively), so every part computes the same file */
    const bool chain = ckpt_version_of(sim, app->present) == CKPT_VERSION_CHAIN;
    const uint64_t total = CKPT_PREFIX_BYTES + spin_bytes + 8 + ncouplings * sizeof(float) +
                           (chain ? CKPT_CHAIN_BYTES : 0) + app_bytes + 8;

    const int R = sim->desc.replicas;
    const size_t one = part->plane_bytes / (size_t)R;          /* a plane of one replica */
    const size_t cplane = (size_t)plane_sites(&sim->desc) * (size_t)sim->desc.ndim *
                          sizeof(float);                        /* a plane's couplings */
    const size_t ks = chunk_planes(part->plane_bytes);
    const size_t kc = chunk_planes(cplane);
    const size_t buf_bytes = ks * part->plane_bytes > kc * cplane ? ks * part->plane_bytes
                                                                   : kc * cplane;
    const size_t out_bytes_max = ks * one > kc * cplane ? ks * one : kc * cplane;
    unsigned char *buf = malloc(buf_bytes);
    unsigned char *out = writer ? malloc(out_bytes_max) : NULL;
    if (local == LATMC_OK && (!buf || (writer && !out)))
        local = SIM_FAIL(sim, LATMC_ENOMEM, "%s: cannot allocate a chunk of %zu bytes", fn,
                         buf_bytes);
    bool coupling_planes = false;
    if (local == LATMC_OK && ncouplings)
        local = couplings_by_plane(sim, (float *)(void *)buf, &coupling_planes);
    float *whole = NULL; /* a backend without per-plane couplings: part 0 copies them */
    if (local == LATMC_OK && ncouplings && !coupling_planes && writer &&
        !(whole = malloc(ncouplings * sizeof *whole)))
        local = SIM_FAIL(sim, LATMC_ENOMEM, "%s: cannot allocate a copy of the couplings", fn);

    /* part 0 starts the file: whether it can is agreed on before any chunk moves */
    struct save_out o = { NULL, CKPT_CHECKSUM_START, LATMC_OK };
    if (writer && local == LATMC_OK && (local = latmc_file_begin(path, fn, &o.w)) == LATMC_OK) {
        unsigned char prefix[CKPT_PREFIX_BYTES];
        struct ckpt_writer w = { prefix, sizeof prefix, 0 };
        ckpt_put_prefix(&w, sim, total, spin_bytes, app->present);
        out_bytes(&o, prefix, w.len);
    }
    int st = latmc_part_agree(sim, local < 0 ? local : o.st);
    if (st == LATMC_OK && spin_bytes) {
        for (int r = 0; st == LATMC_OK && r < R; r++) {
            const struct plane_source src = { r, one, buf, out, ks };
            st = stream_planes_out(sim, &src, &o, &local);
        }
    }
    if (st == LATMC_OK) {
        out_u64(&o, ncouplings);
        if (ncouplings && coupling_planes) {
            const struct plane_source src = { -1, cplane, buf, out, kc };
            st = stream_planes_out(sim, &src, &o, &local);
        } else if (ncouplings && writer && local == LATMC_OK && whole) {
            if ((local = sim->ops->get_couplings(sim, whole)) == LATMC_OK)
                out_bytes(&o, whole, ncouplings * sizeof *whole);
        }
    }
    if (st == LATMC_OK && writer) {
        if (chain) {
            unsigned char block[CKPT_CHAIN_BYTES];
            struct ckpt_writer w = { block, sizeof block, 0 };
            ckpt_put_chain_block(&w, sim, app->present);
            out_bytes(&o, block, w.len);
        }
        if (app->present) {
            out_u64(&o, app->size);
            if (app->size)
                out_bytes(&o, app->data, app->size);
        }
        const uint64_t sum = o.sum;
        out_u64(&o, sum);
        if (o.st == LATMC_OK && (o.st = latmc_file_flush(o.w)) < 0)
            o.w = NULL;
    }
    free(whole);
    free(out);
    free(buf);
    if (st == LATMC_OK) {
        /* the file is complete and synced on part 0: rename it only if every part did
         * its share, and agree again on the rename */
        st = latmc_part_agree(sim, local < 0 ? local : o.st);
        if (st == LATMC_OK) { /* on every part alike */
            if (writer) {
                st = latmc_file_commit(o.w);
                o.w = NULL;
            }
            st = latmc_part_agree(sim, st);
        }
    }
    latmc_file_abort(o.w);
    return st < 0 ? latmc_sim_record_failure(sim, st) : st;
}

/* ---- loading ---- */

/* What part 0 found in the file's prefix, for every part. */
struct load_head {
    int32_t status;
    uint32_t version;
    uint64_t size;
    unsigned char prefix[CKPT_PREFIX_BYTES];
    unsigned char chain[CKPT_CHAIN_BYTES]; /* version 3: the chain block, as stored */
    char msg[LATMC_ERRMSG_SIZE];
};

/* Part 0's reading of the file and the checksum of what it read so far. */
struct load_in {
    int fd;
    uint64_t pos, sum;
    const char *path, *fn;
    int st; /* the first failure to read (then nothing more is read) */
    bool count_fault; /* the couplings' count is wrong: the verdict no later check replaces */
};

static void in_bytes(struct load_in *in, void *p, size_t n)
{
    if (in->st < 0)
        return;
    if ((in->st = latmc_file_read_at(in->fd, p, n, in->pos, in->path, in->fn)) == LATMC_OK)
        in->sum = ckpt_checksum_add(in->sum, p, n);
    in->pos += n;
}

static uint64_t in_u64(struct load_in *in)
{
    unsigned char b[8] = { 0 };
    in_bytes(in, b, sizeof b);
    struct ckpt_reader r = { b, sizeof b, 0, false };
    return ckpt_get_u64(&r);
}

/* The checksum of the whole file against its last 8 bytes, read from the start: whether a
 * failure of the prefix's checks is rather a damaged file (an ordinary load checks the
 * checksum first, so says that). LATMC_OK, LATMC_ECORRUPT (mismatch) or a read failure. */
static int whole_file_checksum(int fd, uint64_t size, const char *path, const char *fn)
{
    if (size < 8)
        return LATMC_OK;
    /* never skipped (latmc_checkpoint_app_data has no other check of the bytes): without
     * the chunk, in small pieces */
    unsigned char small[4096];
    unsigned char *heap = malloc(CHUNK_BYTES);
    unsigned char *chunk = heap ? heap : small;
    const size_t cap = heap ? CHUNK_BYTES : sizeof small;
    struct load_in in = { fd, 0, CKPT_CHECKSUM_START, path, fn, LATMC_OK, false };
    for (uint64_t left = size - 8; left > 0 && in.st == LATMC_OK;) {
        const size_t n = left < cap ? (size_t)left : cap;
        in_bytes(&in, chunk, n);
        left -= n;
    }
    const uint64_t sum = in.sum;
    const uint64_t stored = in_u64(&in);
    free(heap);
    if (in.st < 0)
        return in.st;
    return stored == sum ? LATMC_OK : ckpt_corrupt("checksum mismatch (the file is damaged)");
}

/* Part 0: open the file and check its prefix as an ordinary load would. */
static int read_head(const char *path, const char *fn, int *fd, struct load_head *h)
{
    int st = ckpt_open_file(path, fn, fd, &h->size);
    if (st < 0)
        return st;
    if (h->size < CKPT_PREFIX_BYTES + 16) {
        /* too short for any checkpoint: the ordinary parse of its few bytes says why */
        unsigned char small[CKPT_PREFIX_BYTES + 16];
        struct ckpt_parsed c;
        if ((st = latmc_file_read_at(*fd, small, (size_t)h->size, 0, path, fn)) < 0)
            return st;
        st = ckpt_parse(small, (size_t)h->size, &c);
        return st < 0 ? st : ckpt_corrupt("truncated");
    }
    if ((st = latmc_file_read_at(*fd, h->prefix, sizeof h->prefix, 0, path, fn)) < 0 ||
        (st = ckpt_check_head(h->prefix, (size_t)h->size, &h->version)) < 0)
        return st;
    struct ckpt_reader r = { h->prefix, sizeof h->prefix, CKPT_HEADER_BYTES, false };
    latmc_sim_desc d, valid;
    int64_t nsites = 0;
    struct ckpt_state state;
    if ((st = ckpt_read_desc(&r, &d)) == LATMC_OK &&
        (st = latmc_desc_validate(&d, &valid, &nsites)) == LATMC_EINVAL) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        st = latmc_fail(LATMC_ECORRUPT, "its desc is invalid: %s", why);
    }
    if (st == LATMC_OK)
        st = ckpt_parse_head(&r, &valid, nsites, &state);
    if (st == LATMC_OK && h->version == CKPT_VERSION_CHAIN) {
        /* the chain block, for every part (its values are checked in file order, after
         * the couplings, as an ordinary load checks them: finish_in). It lies where the
         * prefix says, and ckpt_open_file checked that the file's size agrees. */
        const struct latmc_model_def *model = latmc_model_get(valid.model);
        const uint64_t ncouplings = latmc_model_has_couplings(model, &valid)
                                        ? (uint64_t)nsites * (uint64_t)valid.ndim : 0;
        const uint64_t at = CKPT_PREFIX_BYTES + state.spin_bytes + 8 +
                            ncouplings * sizeof(float);
        st = latmc_file_read_at(*fd, h->chain, sizeof h->chain, at, path, fn);
    }
    if (st == LATMC_ECORRUPT) {
        /* the checksum first, as an ordinary load: keep this message if it matches */
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        const int sum = whole_file_checksum(*fd, h->size, path, fn);
        if (sum == LATMC_OK)
            latmc_fail(st, "%s", why);
        else
            st = sum;
    }
    return st;
}

/* The planes near part's slab whose couplings its backend may read (its halos and more:
 * every backend's halo is within 2 planes), from the global plane g. */
static bool near_slab(const struct latmc_part *part, int64_t g)
{
    const int64_t L = part->planes, margin = 2 * (int64_t)part->halo + 2;
    int64_t d = (g - part->p0) % L;
    d += d < 0 ? L : 0;
    return d < part->p1 - part->p0 + margin || d >= L - margin;
}

/* A stand-in sim for the model's value checks of `sites` sites of one replica. */
static void chunk_probe(latmc_sim *probe, const latmc_sim *sim, int64_t sites)
{
    memset(probe, 0, sizeof *probe);
    probe->desc = sim->desc;
    probe->desc.replicas = 1;
    probe->nsites = sites;
    probe->model = sim->model;
}

/* Part 0: a chunk's values as an ordinary load checks them; latches in *values. */
static void check_spin_chunk(const latmc_sim *sim, const void *data, int64_t sites,
                             int *values)
{
    if (*values < 0)
        return;
    latmc_sim probe;
    chunk_probe(&probe, sim, sites);
    if (sim->model->check_spins(&probe, data) < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        *values = latmc_fail(LATMC_ECORRUPT, "the configuration holds invalid "
                             "values (%s)", why);
    }
}

static void check_coupling_chunk(const latmc_sim *sim, const float *c, size_t count,
                                 int *values)
{
    if (*values < 0)
        return;
    for (size_t i = 0; i < count; i++)
        if (!isfinite(c[i])) {
            *values = ckpt_corrupt("a coupling is not finite");
            return;
        }
    latmc_sim probe;
    chunk_probe(&probe, sim, 0);
    if (sim->model->check_couplings &&
        sim->model->check_couplings(&probe, c, count, "in the file") < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        *values = latmc_fail(LATMC_ECORRUPT, "a coupling is not a value the "
                             "model takes (%s)", why);
    }
}

/*
 * A buffer of n floats in the whole lattice's couplings layout of which a part writes
 * only the planes near its slab: anonymous pages mapped on demand (zero until written),
 * so the rest costs address space, not memory, whatever the allocator would do to a
 * calloc (glibc's MALLOC_PERTURB_ fills it).
 */
static float *sparse_floats(size_t n)
{
#if defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
    void *p = mmap(NULL, n * sizeof(float), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
#else
    return calloc(n, sizeof(float));
#endif
}

static void sparse_free(float *p, size_t n)
{
    if (!p)
        return;
#if defined(MAP_ANONYMOUS) && defined(MAP_NORESERVE)
    munmap(p, n * sizeof(float));
#else
    (void)n;
    free(p);
#endif
}

/* A chunk's message: part 0's verdict so far (nonzero: set it), then the bytes. */
#define CHUNK_FLAG 8

/* Part 0: the next n bytes of the file into `into` where nothing failed so far (true:
 * read, and read whole), else skipped, so that the checksum's verdict still comes. */
static bool read_chunk(struct load_in *in, int local, unsigned char *into, size_t n)
{
    if (local != LATMC_OK || in->st != LATMC_OK) {
        in->pos += n;
        return false;
    }
    in_bytes(in, into, n);
    return in->st == LATMC_OK;
}

/* Part 0: the chunk message's flag, nonzero where the chunk was read and every value so
 * far was sound (its receivers set it). */
static void chunk_verdict(unsigned char *msg, int local, const struct load_in *in, int values)
{
    memset(msg, 0, CHUNK_FLAG);
    msg[0] = (unsigned char)(local == LATMC_OK && in->st == LATMC_OK && values == LATMC_OK);
}

/* Set replica r of planes [a, b) from data: the other replicas' bytes kept. */
static int set_replica_planes(latmc_sim *sim, int r, int64_t a, int64_t b,
                              const unsigned char *data, unsigned char *planes)
{
    const int R = sim->desc.replicas;
    if (R == 1)
        return sim->ops->set_planes(sim, a, b, data);
    const size_t n = (size_t)(b - a) * (sim->part->plane_bytes / (size_t)R);
    int st = sim->ops->get_planes(sim, a, b, planes);
    if (st == LATMC_OK) {
        memcpy(planes + (size_t)r * n, data, n);
        st = sim->ops->set_planes(sim, a, b, planes);
    }
    return st;
}

/*
 * Every part: the file's configuration and couplings into the new part sim, part 0
 * reading (in: its file, NULL elsewhere). *local latches this part's failure, *values part
 * 0's verdict on the file's values; a transport failure is returned.
 */
static int stream_in(latmc_sim *sim, const struct ckpt_state *state, struct load_in *in,
                     int *local, int *values)
{
    struct latmc_part *part = sim->part;
    const bool reader = part->rank == 0;
    const int R = sim->desc.replicas;
    const size_t one = part->plane_bytes / (size_t)R;
    const int64_t psites = plane_sites(&sim->desc);
    const size_t cplane = (size_t)psites * (size_t)sim->desc.ndim * sizeof(float);
    const size_t ks = chunk_planes(part->plane_bytes), kc = chunk_planes(cplane);
    const size_t msg_bytes = CHUNK_FLAG + (ks * one > kc * cplane ? ks * one : kc * cplane);
    unsigned char *msg = malloc(msg_bytes);
    unsigned char *planes = R > 1 ? malloc(ks * part->plane_bytes) : NULL;
    size_t *bytes = part->gather_bytes;
    int st = LATMC_OK;
    unsigned char dummy[CHUNK_FLAG] = { 0 };
    /* every part needs its chunk buffer before any chunk moves: agreed */
    if (!msg || (R > 1 && !planes))
        *local = latmc_fail(LATMC_ENOMEM, "latmc_sim_load_part: cannot allocate a chunk of "
                            "%zu bytes", msg_bytes);
    if ((st = latmc_part_agree(sim, *local)) < 0) {
        free(planes);
        free(msg);
        return st;
    }
    /* the configuration: each chunk from part 0 to the part that owns its planes */
    for (int r = 0; state->have_config && st == LATMC_OK && r < R; r++)
        for (int owner = 0; st == LATMC_OK && owner < part->n_parts; owner++)
            for (int64_t a = part->first[owner]; st == LATMC_OK && a < part->first[owner + 1];
                 a += (int64_t)ks) {
                const int64_t left = part->first[owner + 1] - a;
                const int64_t b = a + (left < (int64_t)ks ? left : (int64_t)ks);
                const size_t n = (size_t)(b - a) * one;
                if (reader) {
                    /* read on after a bad value: the checksum's verdict goes first */
                    if (read_chunk(in, *local, msg + CHUNK_FLAG, n))
                        check_spin_chunk(sim, msg + CHUNK_FLAG, (b - a) * psites, values);
                    chunk_verdict(msg, *local, in, *values);
                }
                if (owner != 0) {
                    for (int p = 0; p < part->n_parts; p++)
                        bytes[p] = p == 0 ? CHUNK_FLAG + n : 0;
                    st = latmc_part_gather(part, "gather (checkpoint chunk to its part)",
                                           owner, reader ? msg : dummy,
                                           part->rank == owner ? msg : NULL, bytes);
                }
                if (st == LATMC_OK && part->rank == owner && msg[0] &&
                    *local == LATMC_OK)
                    *local = set_replica_planes(sim, r, a, b, msg + CHUNK_FLAG, planes);
            }
    free(planes);
    if (st < 0) {
        free(msg);
        return st;
    }
    /* the couplings: every chunk to every part, which keeps the planes near its slab.
     * Their faults go before the configuration's, as an ordinary load checks them: the
     * count first, then the values (each verdict replaces a lesser one, its message the
     * last recorded) */
    bool coupling_fault = false;
    if (reader) {
        const uint64_t count = in_u64(in);
        coupling_fault = in->st == LATMC_OK && count != state->ncouplings;
        in->count_fault = coupling_fault;
        if (coupling_fault)
            *values = latmc_fail(LATMC_ECORRUPT, "%llu couplings where the desc "
                                 "implies %llu", (unsigned long long)count,
                                 (unsigned long long)state->ncouplings);
    }
    /* a backend that gives no couplings plane by plane holds them all (the save then
     * copies part 0's whole, latmc_sim_get_couplings reads them): every plane is kept */
    bool by_plane = true;
    if (state->ncouplings && *local == LATMC_OK)
        *local = couplings_by_plane(sim, (float *)(void *)(msg + CHUNK_FLAG), &by_plane);
    float *whole = NULL;
    if (state->ncouplings && *local == LATMC_OK &&
        !(whole = sparse_floats((size_t)state->ncouplings)))
        *local = latmc_fail(LATMC_ENOMEM, "latmc_sim_load_part: cannot allocate the "
                            "couplings' buffer");
    for (int64_t a = 0; state->ncouplings && st == LATMC_OK && a < part->planes;
         a += (int64_t)kc) {
        const int64_t b = a + (part->planes - a < (int64_t)kc ? part->planes - a : (int64_t)kc);
        const size_t n = (size_t)(b - a) * cplane;
        if (reader) {
            if (read_chunk(in, *local, msg + CHUNK_FLAG, n) && !coupling_fault) {
                int cv = LATMC_OK;
                check_coupling_chunk(sim, (const float *)(void *)(msg + CHUNK_FLAG),
                                     n / sizeof(float), &cv);
                if (cv < 0) {
                    *values = cv;
                    coupling_fault = true;
                }
            }
            chunk_verdict(msg, *local, in, *values);
        }
        st = latmc_part_broadcast(part, "broadcast (checkpoint couplings)", 0, msg,
                                  CHUNK_FLAG + n);
        if (st == LATMC_OK && whole && msg[0])
            for (int64_t g = a; g < b; g++)
                if (!by_plane || near_slab(part, g))
                    memcpy((unsigned char *)whole + (size_t)g * cplane,
                           msg + CHUNK_FLAG + (size_t)(g - a) * cplane, cplane);
    }
    free(msg);
    if (whole && st == LATMC_OK && *local == LATMC_OK)
        *local = sim->ops->set_couplings(sim, whole);
    sparse_free(whole, (size_t)state->ncouplings);
    return st;
}

/*
 * Part 0 after the couplings: version 3's chain block (its values checked as an ordinary
 * load checks them: after the couplings' count, before the couplings' and the
 * configuration's values, so its verdict replaces theirs), the application data (into the
 * checksum only) and the checksum itself. h holds the block every part will take.
 */
static void finish_in(struct load_in *in, const struct load_head *h,
                      const latmc_sim_desc *d, int *values)
{
    bool has_app = h->version == CKPT_VERSION_APP_DATA;
    if (h->version == CKPT_VERSION_CHAIN) {
        unsigned char block[CKPT_CHAIN_BYTES] = { 0 };
        in_bytes(in, block, sizeof block);
        struct ckpt_reader r = { block, sizeof block, sizeof block - 4, false };
        has_app = ckpt_get_u32(&r) == 1; /* 0 or 1: ckpt_open_file checked it */
        if (in->st == LATMC_OK && memcmp(block, h->chain, sizeof block) != 0) {
            *values = ckpt_corrupt("the chain block changed while the file was read");
        } else if (in->st == LATMC_OK && !in->count_fault) {
            struct ckpt_state scratch;
            memset(&scratch, 0, sizeof scratch);
            r.pos = 0;
            const int cv = ckpt_parse_chain_block(&r, d, &scratch);
            if (cv < 0)
                *values = cv;
        }
    }
    if (has_app) {
        uint64_t left = in_u64(in); /* ckpt_open_file checked it against the size */
        unsigned char chunk[4096];
        while (left > 0 && in->st == LATMC_OK) {
            const size_t n = left < sizeof chunk ? (size_t)left : sizeof chunk;
            in_bytes(in, chunk, n);
            left -= n;
        }
    }
    const uint64_t sum = in->sum;
    const uint64_t stored = in_u64(in);
    /* a damaged file says so before whatever its damaged values say */
    if (in->st == LATMC_OK && stored != sum)
        *values = ckpt_corrupt("checksum mismatch (the file is damaged)");
}

/*
 * Every part, after the stored desc's creation failed alike on every part (its failure
 * `st`): a damaged file says so instead, as an ordinary load checks the checksum before it
 * creates the sim (a flipped bit of the desc may name a device that is not there). Part 0
 * checks the whole file's checksum (`size` bytes), every part learns the verdict. A sound
 * file keeps the creation's failure, its message naming the file as an ordinary load's.
 */
static int refused_or_damaged(int st, int fd, uint64_t size, int rank,
                              const latmc_transport *transport, const char *path,
                              const char *fn)
{
    struct load_head v;
    memset(&v, 0, sizeof v);
    if (rank == 0 && (v.status = whole_file_checksum(fd, size, path, fn)) < 0) {
        ckpt_name_file(v.status, fn, path);
        snprintf(v.msg, sizeof v.msg, "%s", latmc_thread_error());
    }
    const unsigned long fails = latmc_fail_count();
    const int bst = transport->broadcast(transport->user, 0, &v, sizeof v);
    if (bst < 0)
        return latmc_fail_count() != fails && latmc_status_known(bst)
                   ? bst
                   : latmc_fail(latmc_status_known(bst) ? bst : LATMC_EBACKEND, "%s: part "
                                "transport: broadcast (checkpoint checksum) failed", fn);
    if (v.status < 0) {
        v.msg[sizeof v.msg - 1] = '\0';
        return rank == 0 ? v.status : latmc_fail(v.status, "%s", v.msg);
    }
    return ckpt_name_file(st, fn, path);
}

int ckpt_part_check_args(const char *fn, const latmc_ctx *ctx, const void *src,
                         const char *src_name, int rank, int n_parts,
                         const latmc_transport *transport, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !src || !transport || !out)
        return latmc_fail(LATMC_EINVAL, "%s: %s is NULL", fn,
                          !ctx ? "ctx" : !src ? src_name : !transport ? "transport" : "out");
    /* n_parts 0 is no count of parts: an ordinary sim is latmc_sim_load's or _deserialize's */
    if (n_parts < 1 || rank < 0 || rank >= n_parts)
        return latmc_fail(LATMC_EINVAL, "%s: rank %d of n_parts %d (need n_parts >= 1 and "
                          "0 <= rank < n_parts)", fn, rank, n_parts);
    return latmc_part_check_transport(transport);
}

int latmc_sim_load_part(latmc_ctx *ctx, const char *path, int rank, int n_parts,
                        const latmc_transport *transport, latmc_sim **out)
{
    const char *fn = "latmc_sim_load_part";
    int st = ckpt_part_check_args(fn, ctx, path, "path", rank, n_parts, transport, out);
    if (st < 0)
        return st;
    if (n_parts == 1) {
        /* one part holds the whole lattice anyway (and may lack per-plane forms): the
         * ordinary load, with the transport */
        unsigned char *bytes = NULL;
        size_t len = 0;
        st = ckpt_read_file(path, fn, &bytes, &len);
        if (st == LATMC_OK)
            st = ckpt_deserialize(ctx, bytes, len, &(struct ckpt_part_args){ 0, 1, transport },
                                  NULL, fn, out);
        free(bytes);
        if (st < 0) {
            st = ckpt_name_file(st, fn, path);
            latmc_log(ctx, LATMC_LOG_ERROR, "%s", latmc_thread_error());
        }
        return st;
    }
    /* part 0 reads and checks the prefix; every part learns the verdict and the prefix
     * (on the stack: a part that returned here for want of memory would leave the others
     * waiting in the broadcast) */
    struct load_head head;
    struct load_head *h = &head;
    memset(h, 0, sizeof *h);
    int fd = -1;
    if (rank == 0) {
        if ((h->status = read_head(path, fn, &fd, h)) < 0) {
            ckpt_name_file(h->status, fn, path);
            snprintf(h->msg, sizeof h->msg, "%s", latmc_thread_error());
        }
    }
    const unsigned long fails = latmc_fail_count();
    st = transport->broadcast(transport->user, 0, h, sizeof *h);
    if (st < 0 || h->status < 0) {
        if (st >= 0) {
            st = h->status;
            h->msg[sizeof h->msg - 1] = '\0';
            if (rank != 0)
                latmc_fail(st, "%s", h->msg);
        } else if (latmc_fail_count() == fails || !latmc_status_known(st)) {
            st = latmc_fail(latmc_status_known(st) ? st : LATMC_EBACKEND, "%s: part "
                            "transport: broadcast (checkpoint head) failed", fn);
        }
        if (fd >= 0)
            close(fd);
        latmc_log(ctx, LATMC_LOG_ERROR, "%s", latmc_thread_error());
        return st;
    }
    /* every part parses the same prefix (checked on part 0) */
    struct ckpt_reader r = { h->prefix, sizeof h->prefix, CKPT_HEADER_BYTES, false };
    latmc_sim_desc stored, valid;
    int64_t nsites = 0;
    struct ckpt_state state;
    st = ckpt_read_desc(&r, &stored);
    if (st == LATMC_OK)
        st = latmc_desc_validate(&stored, &valid, &nsites);
    if (st == LATMC_OK)
        st = ckpt_parse_head(&r, &valid, nsites, &state);
    if (st == LATMC_OK) {
        const struct latmc_model_def *model = latmc_model_get(valid.model);
        state.ncouplings = latmc_model_has_couplings(model, &valid)
                               ? (uint64_t)nsites * (uint64_t)valid.ndim : 0;
        stored.n_parts = 0; /* a checkpoint's desc is an ordinary sim's */
    }
    latmc_sim *sim = NULL;
    const int parsed = st;
    st = latmc_part_create(ctx, &stored, rank, n_parts, transport, st, &sim);
    if (st < 0 && parsed == LATMC_OK)
        st = refused_or_damaged(st, fd, h->size, rank, transport, path, fn);
    int local = LATMC_OK, values = LATMC_OK;
    struct load_in in = { fd, CKPT_PREFIX_BYTES, CKPT_CHECKSUM_START, path, fn, LATMC_OK, false };
    if (rank == 0)
        in.sum = ckpt_checksum_add(in.sum, h->prefix, sizeof h->prefix);
    if (st == LATMC_OK)
        st = stream_in(sim, &state, rank == 0 ? &in : NULL, &local, &values);
    if (st == LATMC_OK) {
        if (rank == 0 && local == LATMC_OK) {
            finish_in(&in, h, &valid, &values);
            if ((local = in.st < 0 ? in.st : values) < 0)
                ckpt_name_file(local, fn, path);
        }
        /* the file is sound and every part has its planes: then the rest of the state
         * and the halos (collective: only once every part knows) */
        if ((st = latmc_part_agree(sim, local)) == LATMC_OK) {
            /* version 3: the chain's parameters from the block part 0 checked */
            if (h->version == CKPT_VERSION_CHAIN) {
                struct ckpt_reader b = { h->chain, sizeof h->chain, 0, false };
                local = ckpt_parse_chain_block(&b, &valid, &state);
            }
            if (local == LATMC_OK)
                local = ckpt_apply_counters(sim, &state);
            const int xst = state.have_config && n_parts > 1 ? latmc_part_fill_halos(sim)
                                                               : LATMC_OK;
            st = latmc_part_agree(sim, local < 0 ? local : xst);
        }
    }
    if (fd >= 0)
        close(fd);
    if (st < 0 && sim) {
        sim->part->tr.release = NULL; /* the caller keeps its transport's user */
        latmc_sim_destroy(&sim);
    }
    if (st < 0)
        latmc_log(ctx, LATMC_LOG_ERROR, "%s", latmc_thread_error());
    *out = sim;
    return st;
}

/* ---- the application data of a file, without the file in memory ---- */

/*
 * latmc_checkpoint_app_data: every check of an ordinary load in its order (sizes, header,
 * the checksum, desc, fields, the couplings' values, the configuration's values), read in
 * chunks, then the section into buf (NULL: the size only). A program that resumes on many
 * ranks asks every rank for it, so it must not cost a copy of the lattice either.
 */
int ckpt_file_app_data(const char *path, const char *fn, void *buf, size_t capacity,
                       size_t *size)
{
    struct load_head *h = calloc(1, sizeof *h);
    unsigned char *chunk = NULL;
    int fd = -1;
    if (!h)
        return latmc_fail(LATMC_ENOMEM, "%s: out of memory", fn);
    int st = read_head(path, fn, &fd, h);
    if (st == LATMC_OK)
        st = whole_file_checksum(fd, h->size, path, fn);
    latmc_sim base;
    memset(&base, 0, sizeof base);
    struct ckpt_state state;
    memset(&state, 0, sizeof state);
    int64_t nsites = 0;
    if (st == LATMC_OK) {
        struct ckpt_reader r = { h->prefix, sizeof h->prefix, CKPT_HEADER_BYTES, false };
        latmc_sim_desc stored;
        if ((st = ckpt_read_desc(&r, &stored)) == LATMC_OK &&
            (st = latmc_desc_validate(&stored, &base.desc, &nsites)) == LATMC_OK)
            st = ckpt_parse_head(&r, &base.desc, nsites, &state);
        base.model = latmc_model_get(base.desc.model);
        base.nsites = nsites;
    }
    const int64_t planes = st == LATMC_OK ? base.desc.extent[base.desc.ndim - 1] : 0;
    const int64_t psites = st == LATMC_OK ? plane_sites(&base.desc) : 0;
    const size_t sbytes = st == LATMC_OK ? (size_t)psites * base.model->site_bytes(&base.desc)
                                         : 0;
    const size_t cplane = (size_t)psites * (size_t)base.desc.ndim * sizeof(float);
    const size_t ks = chunk_planes(sbytes), kc = chunk_planes(cplane);
    if (st == LATMC_OK &&
        !(chunk = malloc(ks * sbytes > kc * cplane ? ks * sbytes : kc * cplane)))
        st = latmc_fail(LATMC_ENOMEM, "%s: cannot allocate a chunk", fn);
    struct load_in in = { fd, CKPT_PREFIX_BYTES + state.spin_bytes, 0, path, fn, LATMC_OK, false };
    const uint64_t ncouplings = st == LATMC_OK && latmc_model_has_couplings(base.model,
                                                                            &base.desc)
                                    ? (uint64_t)nsites * (uint64_t)base.desc.ndim : 0;
    int values = LATMC_OK;
    if (st == LATMC_OK) {
        const uint64_t count = in_u64(&in);
        if (in.st == LATMC_OK && count != ncouplings)
            values = latmc_fail(LATMC_ECORRUPT, "%llu couplings where the desc "
                                "implies %llu", (unsigned long long)count,
                                (unsigned long long)ncouplings);
    }
    /* the couplings' values, then the configuration's, as an ordinary load checks them */
    for (int64_t a = 0; ncouplings && st == LATMC_OK && values == LATMC_OK && in.st == LATMC_OK &&
                        a < planes; a += (int64_t)kc) {
        const int64_t b = a + (planes - a < (int64_t)kc ? planes - a : (int64_t)kc);
        in_bytes(&in, chunk, (size_t)(b - a) * cplane);
        if (in.st == LATMC_OK)
            check_coupling_chunk(&base, (const float *)(void *)chunk,
                                 (size_t)(b - a) * cplane / sizeof(float), &values);
    }
    const uint64_t app_at = in.pos;
    in.pos = CKPT_PREFIX_BYTES;
    const int64_t rows = state.have_config ? planes * base.desc.replicas : 0;
    for (int64_t a = 0; st == LATMC_OK && values == LATMC_OK && in.st == LATMC_OK && a < rows;
         a += (int64_t)ks) {
        const int64_t b = a + (rows - a < (int64_t)ks ? rows - a : (int64_t)ks);
        in_bytes(&in, chunk, (size_t)(b - a) * sbytes);
        if (in.st == LATMC_OK)
            check_spin_chunk(&base, chunk, (b - a) * psites, &values);
    }
    if (st == LATMC_OK)
        st = in.st < 0 ? in.st : values;
    if (st < 0 && st != LATMC_EINVAL && st != LATMC_ESTATE)
        st = ckpt_name_file(st, fn, path);
    uint64_t app_at_field = app_at;
    bool has_app = h->version == CKPT_VERSION_APP_DATA;
    if (st == LATMC_OK && h->version == CKPT_VERSION_CHAIN) {
        /* the chain block (ckpt_open_file checked its key count and flag) */
        unsigned char block[CKPT_CHAIN_BYTES];
        in.pos = app_at;
        in_bytes(&in, block, sizeof block);
        struct ckpt_reader b = { block, sizeof block, 0, false };
        if (in.st < 0)
            st = ckpt_name_file(in.st, fn, path);
        else if ((st = ckpt_parse_chain_block(&b, &base.desc, &state)) < 0)
            st = ckpt_name_file(st, fn, path); /* its values, as an ordinary load */
        has_app = state.has_app;
        app_at_field = app_at + sizeof block;
    }
    if (st == LATMC_OK && !has_app)
        st = latmc_fail(LATMC_ESTATE, "%s: '%s' is a valid checkpoint without an "
                        "application-data section (written by latmc_sim_save, not "
                        "latmc_sim_save_app_data)", fn, path);
    if (st == LATMC_OK) {
        in.pos = app_at_field;
        const uint64_t app = in_u64(&in); /* ckpt_open_file checked it against the size */
        *size = (size_t)app;
        if (in.st < 0)
            st = ckpt_name_file(in.st, fn, path);
        else if (!buf)
            ; /* a query of the size */
        else if (capacity < *size)
            st = latmc_fail(LATMC_EINVAL, "%s: buffer of %zu bytes, the section of '%s' has %zu",
                            fn, capacity, path, *size);
        else if (*size && (st = latmc_file_read_at(fd, buf, *size, in.pos, path, fn)) < 0)
            st = ckpt_name_file(st, fn, path);
        if (st < 0 && st != LATMC_EINVAL) /* a too small buffer: the size says how much */
            *size = 0;
    }
    if (fd >= 0)
        close(fd);
    free(chunk);
    free(h);
    return st;
}
