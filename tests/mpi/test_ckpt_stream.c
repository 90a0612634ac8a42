/*
 * The streamed checkpoint loads (lib/checkpoint_part.c: latmc_sim_load_part, which part 0
 * reads in chunks, and latmc_checkpoint_app_data) give a damaged or crafted file the
 * verdict a plain latmc_sim_load gives it, in the same order of checks
 * (doc/checkpoints.md, "Reading"): the checksum before anything the damaged bytes make
 * of the desc (a sim that cannot be created) or of the values; then the couplings' count,
 * the couplings' values, the configuration's values (format version 3: the chain block's
 * values between the count and the couplings' values). And the checksum is never
 * skipped, not even where its chunk buffer cannot be had. Files of the bit-sliced chain
 * (version 3) are saved by parts bit for bit as by one sim, and loaded and continued.
 *
 * Parts are threads of this process joined by a transport of shared slots and barriers
 * (as in test_parts.c); no MPI. This executable interposes malloc to fail the checksum's
 * chunk on demand (see below).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "library_code.h"

/* ---- malloc and calloc, interposed ----
 * Two ways to fail: every allocation of exactly fail_size bytes (any caller), and, on a
 * thread that armed itself, liblatmc's allocation number fail_at (counted per thread:
 * liblatmc's code only, found by the return address). */

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void (*real_free)(void *);
static _Atomic size_t fail_size; /* 0: none fails */
static long fail_at = -1;
static _Thread_local bool armed;
static _Thread_local long lib_calls;
static _Thread_local bool injected;
/* dlsym may allocate before the real functions are known: from here, never freed */
static unsigned char bootstrap[8192] __attribute__((aligned(64)));
static size_t bootstrap_used;
static int resolving;

static void resolve(void)
{
    if (real_free || resolving)
        return;
    resolving = 1;
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    resolving = 0;
}

static void *bootstrap_alloc(size_t n)
{
    const size_t k = (n + 63) & ~(size_t)63;
    if (bootstrap_used + k > sizeof bootstrap)
        return NULL;
    void *p = bootstrap + bootstrap_used; /* static: zeroed */
    bootstrap_used += k;
    return p;
}

static bool fails(size_t n, const void *ret)
{
    if (n && n == fail_size)
        return true;
    if (!armed)
        return false;
    if (!library_code_has(ret) || lib_calls++ != fail_at)
        return false;
    injected = true;
    return true;
}

void *malloc(size_t n)
{
    resolve();
    if (!real_malloc)
        return bootstrap_alloc(n);
    if (fails(n, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return real_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    resolve();
    if (!real_calloc)
        return bootstrap_alloc(n * size);
    if (fails(n * size, __builtin_return_address(0))) {
        errno = ENOMEM;
        return NULL;
    }
    return real_calloc(n, size);
}

void free(void *p)
{
    if (!p || ((unsigned char *)p >= bootstrap && (unsigned char *)p < bootstrap + sizeof bootstrap))
        return;
    resolve();
    if (real_free)
        real_free(p);
}

/* ---- the threads' transport ---- */

enum { MAX_PARTS = 4 };

struct hub {
    int n;
    pthread_barrier_t barrier;
    const void *send[MAX_PARTS][2];
};

struct link {
    struct hub *hub;
    int rank;
};

static int hub_exchange(void *user, const void *to_lower, const void *to_upper,
                        void *from_lower, void *from_upper, size_t bytes)
{
    struct link *l = user;
    struct hub *h = l->hub;
    h->send[l->rank][0] = to_lower;
    h->send[l->rank][1] = to_upper;
    pthread_barrier_wait(&h->barrier);
    memcpy(from_lower, h->send[(l->rank + h->n - 1) % h->n][1], bytes);
    memcpy(from_upper, h->send[(l->rank + 1) % h->n][0], bytes);
    pthread_barrier_wait(&h->barrier);
    return 0;
}

static int hub_gather(void *user, int root, const void *mine, void *all, const size_t *bytes)
{
    struct link *l = user;
    struct hub *h = l->hub;
    h->send[l->rank][0] = mine;
    pthread_barrier_wait(&h->barrier);
    if (root < 0 || root == l->rank) {
        unsigned char *out = all;
        for (int p = 0; p < h->n; p++) {
            memcpy(out, h->send[p][0], bytes[p]);
            out += bytes[p];
        }
    }
    pthread_barrier_wait(&h->barrier);
    return 0;
}

static int hub_broadcast(void *user, int root, void *buf, size_t bytes)
{
    struct link *l = user;
    struct hub *h = l->hub;
    h->send[l->rank][0] = buf;
    pthread_barrier_wait(&h->barrier);
    if (l->rank != root)
        memcpy(buf, h->send[root][0], bytes);
    pthread_barrier_wait(&h->barrier);
    return 0;
}

/* A transport over the hub for one part (link: the hub and the part's rank). */
static latmc_transport hub_transport(struct link *link)
{
    latmc_transport t;
    memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.user = link;
    t.exchange = hub_exchange;
    t.gather = hub_gather;
    t.broadcast = hub_broadcast;
    return t;
}

/* Run fn on n parts over one hub, each on its own thread with its job (jobs: n structs
 * of `size` bytes, each with its hub pointer and rank already set), and wait for them. */
static void run_parts(struct hub *hub, int n, void *(*fn)(void *), void *jobs, size_t size)
{
    pthread_t th[MAX_PARTS];
    memset(hub, 0, sizeof *hub);
    hub->n = n;
    pthread_barrier_init(&hub->barrier, NULL, (unsigned)n);
    for (int p = 0; p < n; p++)
        assert_int_equal(pthread_create(&th[p], NULL, fn, (char *)jobs + (size_t)p * size), 0);
    for (int p = 0; p < n; p++)
        pthread_join(th[p], NULL);
    pthread_barrier_destroy(&hub->barrier);
}

/* ---- a load on n parts ---- */

struct job {
    struct hub *hub;
    int rank;
    const char *path;
    int status;
    char msg[512];
    bool got_sim;
};

static void *load_part(void *arg)
{
    struct job *job = arg;
    struct link link = { job->hub, job->rank };
    latmc_transport t = hub_transport(&link);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    job->status = latmc_ctx_create(&ctx);
    if (job->status == LATMC_OK)
        job->status = latmc_sim_load_part(ctx, job->path, job->rank, job->hub->n, &t, &sim);
    snprintf(job->msg, sizeof job->msg, "%s", latmc_last_error());
    job->got_sim = sim != NULL;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return NULL;
}

/* `path` loaded by latmc_sim_load_part on n parts over one hub, each with its job. */
static void load_on_parts(struct hub *hub, struct job *jobs, int n, const char *path)
{
    for (int p = 0; p < n; p++) {
        memset(&jobs[p], 0, sizeof jobs[p]);
        jobs[p].hub = hub;
        jobs[p].rank = p;
        jobs[p].path = path;
    }
    run_parts(hub, n, load_part, jobs, sizeof jobs[0]);
}

/*
 * The file loaded by latmc_sim_load and on n parts by latmc_sim_load_part: every part
 * must fail with the plain load's status, its message holding `want` (which the plain
 * load's holds too), and leave no sim.
 */
static void expect_load_verdict(const char *path, int n, int status, const char *want,
                                const char *what)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int plain = latmc_sim_load(ctx, path, &sim);
    if (plain != status || !strstr(latmc_last_error(), want))
        fail_msg("%s: the plain load: %s: %s (the test expects %s, '%s')", what,
                 latmc_strerror(plain), latmc_last_error(), latmc_strerror(status), want);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);

    struct hub hub;
    struct job jobs[MAX_PARTS];
    load_on_parts(&hub, jobs, n, path);
    for (int p = 0; p < n; p++)
        if (jobs[p].status != status || !strstr(jobs[p].msg, want) || jobs[p].got_sim)
            fail_msg("%s: part %d of %d: %s: %s (the plain load: %s, '%s')", what, p, n,
                     latmc_strerror(jobs[p].status), jobs[p].msg, latmc_strerror(status),
                     want);
}

/* ---- files ---- */

/* The checkpoint's layout (doc/checkpoints.md) */
enum { DESC_AT = 44, DEVICE_INDEX_FIELD = 13 };

struct ckpt {
    unsigned char *bytes;
    size_t n;
    size_t spins_at, spin_bytes; /* the configuration */
    size_t count_at;             /* the couplings' count, then the couplings */
    size_t ncouplings;
};

/* A 2D Ising +-J lattice of lx x ly on the CPU, one thread. */
static latmc_sim_desc pmj2d_desc(int64_t lx, int64_t ly, uint64_t coupling_seed, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.coupling_seed = coupling_seed;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = seed;
    return d;
}

/* A 2D Ising +-J sim of 16 x 12 on the CPU, hot and swept, serialized. */
static void make_ckpt(struct ckpt *c)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = pmj2d_desc(16, 12, 3, 11);
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 3), LATMC_OK);
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &c->n), LATMC_OK);
    c->bytes = malloc(c->n);
    assert_non_null(c->bytes);
    assert_int_equal(latmc_sim_serialize(sim, c->bytes, c->n, &c->n), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    c->spin_bytes = 16 * 12;
    c->ncouplings = 16 * 12 * 2;
    c->count_at = c->n - 8 - c->ncouplings * sizeof(float) - 8;
    c->spins_at = c->count_at - c->spin_bytes;
}

/* FNV-1a 64 of every byte but the last 8, into the last 8 (a crafted file's checksum). */
static void reseal(unsigned char *b, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i + 8 < n; i++) {
        h ^= b[i];
        h *= UINT64_C(0x100000001b3);
    }
    for (int i = 0; i < 8; i++)
        b[n - 8 + (size_t)i] = (unsigned char)(h >> (8 * i));
}

static void write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

struct dir {
    char name[64];
    char path[128];
};

static void make_dir(struct dir *d)
{
    snprintf(d->name, sizeof d->name, "/tmp/latmc-ckstream-XXXXXX");
    assert_non_null(mkdtemp(d->name));
    snprintf(d->path, sizeof d->path, "%s/run.ckpt", d->name);
}

static void remove_dir(struct dir *d)
{
    unlink(d->path);
    rmdir(d->name);
}

/* ---- the tests ---- */

/*
 * A damaged byte in the desc that still validates but names a device there is not (the
 * CPU's device_index 0 -> 1): a plain load checks the checksum first and says the file is
 * damaged; the parts said ENODEV ("the CPU backend has only device 0"), creating the sim
 * before the checksum was known.
 */
static void damaged_desc_is_a_checksum_mismatch(void **state)
{
    (void)state;
    struct ckpt c;
    make_ckpt(&c);
    struct dir dir;
    make_dir(&dir);
    c.bytes[DESC_AT + 8 * DEVICE_INDEX_FIELD] ^= 1;
    write_file(dir.path, c.bytes, c.n);
    for (int n = 2; n <= 3; n++)
        expect_load_verdict(dir.path, n, LATMC_ECORRUPT, "checksum mismatch", "device_index");
    /* the same desc in a sound file (resealed) is the creation's refusal, as in a plain load */
    reseal(c.bytes, c.n);
    write_file(dir.path, c.bytes, c.n);
    expect_load_verdict(dir.path, 3, LATMC_ENODEV, "device_index", "resealed device_index");
    free(c.bytes);
    remove_dir(&dir);
}

static unsigned char *read_whole(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    const long size = ftell(f);
    assert_true(size > 0);
    rewind(f);
    unsigned char *b = malloc((size_t)size);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return b;
}

/* ---- the bit-sliced chain (Ising decisions = 1: checkpoint format version 3) ---- */

enum { CHAIN_SWEEPS1 = 2, CHAIN_SWEEPS2 = 3 };
static const char chain_app[] = "the program's state at the save";

/* A 2D Ising +-J sim of 64 x 12 on the CPU running the bit-sliced chain (decisions = 1). */
static int chain_sim(latmc_ctx *ctx, latmc_sim **out)
{
    latmc_sim_desc d = pmj2d_desc(64, 12, 5, 12);
    int st = latmc_sim_create(ctx, &d, out);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(*out, LATMC_PARAM_BETA, 0.6);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(*out, LATMC_PARAM_DECISIONS, 1);
    return st;
}

static unsigned char *serialized(latmc_sim *sim, size_t *n)
{
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, n), LATMC_OK);
    unsigned char *b = malloc(*n);
    assert_non_null(b);
    assert_int_equal(latmc_sim_serialize(sim, b, *n, n), LATMC_OK);
    return b;
}

/* One part of the chain: from the plain sim's bytes (deserialize_part), save plainly and
 * with application data (save, save_app); then the plain file loaded on the parts
 * (load_part), its parameter read back, CHAIN_SWEEPS2 sweeps and serialized (end). */
struct chain_job {
    struct hub *hub;
    int rank;
    const unsigned char *bytes;
    size_t n;
    const char *load, *save, *save_app;
    int status;
    char msg[512];
    double decisions;
    unsigned char *end;
    size_t nend;
};

/* One step of a part's job (a struct with status and msg): run while all went well, and
 * keep the first failure's call and message. */
#define PART_STEP(j, call)                                                                 \
    do {                                                                                   \
        if ((j)->status == LATMC_OK && ((j)->status = (call)) != LATMC_OK)                 \
            snprintf((j)->msg, sizeof (j)->msg, "%s: %s", #call, latmc_last_error());      \
    } while (0)

static void *chain_part(void *arg)
{
    struct chain_job *j = arg;
    struct link link = { j->hub, j->rank };
    latmc_transport t = hub_transport(&link);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    j->status = LATMC_OK;
    PART_STEP(j, latmc_ctx_create(&ctx));
    PART_STEP(j, latmc_sim_deserialize_part(ctx, j->bytes, j->n, j->rank, j->hub->n, &t,
                                            &sim));
    PART_STEP(j, latmc_sim_save(sim, j->save));
    PART_STEP(j, latmc_sim_save_app_data(sim, j->save_app, chain_app, sizeof chain_app));
    latmc_sim_destroy(&sim);
    PART_STEP(j, latmc_sim_load_part(ctx, j->load, j->rank, j->hub->n, &t, &sim));
    PART_STEP(j, latmc_sim_get_param(sim, LATMC_PARAM_DECISIONS, &j->decisions));
    PART_STEP(j, latmc_sim_sweep(sim, CHAIN_SWEEPS2));
    size_t n = 0;
    PART_STEP(j, latmc_sim_serialize(sim, NULL, 0, &n));
    if (j->status == LATMC_OK && !(j->end = malloc(n)))
        j->status = LATMC_ENOMEM;
    PART_STEP(j, latmc_sim_serialize(sim, j->end, n, &n));
    j->nend = n;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return NULL;
}

static void expect_same_file(const char *a, const char *b, const char *what, int n)
{
    size_t na = 0, nb = 0;
    unsigned char *x = read_whole(a, &na), *y = read_whole(b, &nb);
    if (na != nb || memcmp(x, y, na) != 0)
        fail_msg("%s on %d parts: %zu bytes, the plain sim's %zu, not the same", what, n, nb,
                 na);
    free(x);
    free(y);
}

/*
 * The bit-sliced chain through files on parts: a save on 2 and 3 parts (with and without
 * application data) writes the plain sim's file bit for bit (format version 3: the chain
 * block), and the plain file streamed into 2 and 3 parts runs the chain (decisions = 1)
 * and ends where the plain sim's uninterrupted chain ends, bit for bit. Chunks of 4 MiB
 * and of one plane.
 */
static void chain_files_stream_bit_for_bit(void **state)
{
    (void)state;
    struct dir dir;
    make_dir(&dir);
    char app_path[160], save[160], save_app[160];
    snprintf(app_path, sizeof app_path, "%s/app.ckpt", dir.name);
    snprintf(save, sizeof save, "%s/parts.ckpt", dir.name);
    snprintf(save_app, sizeof save_app, "%s/parts-app.ckpt", dir.name);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    assert_int_equal(chain_sim(ctx, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, CHAIN_SWEEPS1), LATMC_OK);
    assert_int_equal(latmc_sim_save(sim, dir.path), LATMC_OK);
    assert_int_equal(latmc_sim_save_app_data(sim, app_path, chain_app, sizeof chain_app),
                     LATMC_OK);
    size_t n = 0, nend = 0;
    unsigned char *bytes = serialized(sim, &n);
    assert_int_equal(bytes[8], 3); /* format version 3 */
    assert_int_equal(latmc_sim_sweep(sim, CHAIN_SWEEPS2), LATMC_OK);
    unsigned char *end = serialized(sim, &nend);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);

    for (int chunks = 0; chunks < 2; chunks++) {
        if (chunks)
            setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
        for (int parts = 2; parts <= 3; parts++) {
            struct hub hub;
            struct chain_job jobs[MAX_PARTS];
            for (int p = 0; p < parts; p++) {
                memset(&jobs[p], 0, sizeof jobs[p]);
                jobs[p].hub = &hub;
                jobs[p].rank = p;
                jobs[p].bytes = bytes;
                jobs[p].n = n;
                jobs[p].load = dir.path;
                jobs[p].save = save;
                jobs[p].save_app = save_app;
            }
            run_parts(&hub, parts, chain_part, jobs, sizeof jobs[0]);
            for (int p = 0; p < parts; p++) {
                if (jobs[p].status != LATMC_OK)
                    fail_msg("part %d of %d: %s", p, parts, jobs[p].msg);
                if (jobs[p].decisions != 1.0)
                    fail_msg("part %d of %d loaded decisions = %g", p, parts,
                             jobs[p].decisions);
                if (jobs[p].nend != nend || memcmp(jobs[p].end, end, nend) != 0)
                    fail_msg("part %d of %d: the chain continued from the file differs from "
                             "the uninterrupted one", p, parts);
                free(jobs[p].end);
            }
            expect_same_file(dir.path, save, "save", parts);
            expect_same_file(app_path, save_app, "save_app_data", parts);
            /* the section reads back from the parts' file */
            char got[sizeof chain_app];
            size_t size = 0;
            assert_int_equal(latmc_checkpoint_app_data(save_app, got, sizeof got, &size),
                             LATMC_OK);
            assert_int_equal(size, sizeof chain_app);
            assert_memory_equal(got, chain_app, size);
            unlink(save);
            unlink(save_app);
        }
        unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    }
    free(bytes);
    free(end);
    unlink(app_path);
    remove_dir(&dir);
}

/*
 * Damaged and crafted chain blocks (format version 3) streamed into parts: the plain
 * load's verdict in its order of checks -- sizes and the block's key count and flag
 * first (the file's size), the checksum before any value, then the couplings' count, the
 * block's values, the couplings' values, the configuration's values.
 */
static void chain_block_verdicts(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    assert_int_equal(chain_sim(ctx, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    size_t n = 0;
    unsigned char *good = serialized(sim, &n);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    /* the layout: ... configuration, count, couplings, block (16), checksum */
    const size_t block_at = n - 8 - 16, ncouplings = 64 * 12 * 2;
    const size_t count_at = block_at - ncouplings * sizeof(float) - 8;
    const size_t spins_at = count_at - 64 * 12;
    struct dir dir;
    make_dir(&dir);
    unsigned char *b = malloc(n);
    assert_non_null(b);
    const double two = 2.0, half = 0.5;
    const float not_pmj = 0.5f;
    struct {
        const char *what, *want;
        int status;
        bool reseal, bad_value, whole, bad_spin, bad_coupling, bad_count, keys, flag;
    } cases[] = {
        { "decisions = 2", "chain block", LATMC_ECORRUPT, true, true, false, false, false,
          false, false, false },
        { "decisions = 0.5", "chain block", LATMC_ECORRUPT, true, false, true, false, false,
          false, false, false },
        { "decisions damaged", "checksum mismatch", LATMC_ECORRUPT, false, true, false, false,
          false, false, false, false },
        { "block and spin", "chain block", LATMC_ECORRUPT, true, true, false, true, false,
          false, false, false },
        { "block and coupling", "chain block", LATMC_ECORRUPT, true, true, false, false, true,
          false, false, false },
        { "block and count", "couplings where the desc implies", LATMC_ECORRUPT, true, true,
          false, false, false, true, false, false },
        { "spin and coupling", "not a value the model takes", LATMC_ECORRUPT, true, false,
          false, true, true, false, false, false },
        { "spin", "invalid values", LATMC_ECORRUPT, true, false, false, true, false, false,
          false, false },
        { "keys 12", "up to key 12", LATMC_ECORRUPT, true, false, false, false, false, false,
          true, false },
        { "flag 2", "application-data flag", LATMC_ECORRUPT, true, false, false, false, false,
          false, false, true },
    };
    for (int chunks = 0; chunks < 2; chunks++) {
        if (chunks)
            setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
            memcpy(b, good, n);
            if (cases[i].bad_value)
                memcpy(b + block_at + 4, &two, sizeof two);
            if (cases[i].whole)
                memcpy(b + block_at + 4, &half, sizeof half);
            if (cases[i].bad_spin)
                b[spins_at + 64 * 11 + 3] = 0; /* in the last part's slab */
            if (cases[i].bad_coupling)
                memcpy(b + count_at + 8 + 4 * 700, &not_pmj, sizeof not_pmj);
            if (cases[i].bad_count)
                b[count_at] ^= 2;
            if (cases[i].keys)
                b[block_at] = 12;
            if (cases[i].flag)
                b[block_at + 12] = 2;
            if (cases[i].reseal)
                reseal(b, n);
            write_file(dir.path, b, n);
            for (int parts = 2; parts <= 3; parts++)
                expect_load_verdict(dir.path, parts, cases[i].status, cases[i].want,
                                    cases[i].what);
            size_t app = 1;
            assert_int_equal(latmc_checkpoint_app_data(dir.path, NULL, 0, &app),
                             cases[i].status);
        }
        unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    }
    free(b);
    free(good);
    remove_dir(&dir);
}

/*
 * The fuzz corpus's files of the bit-sliced chain (tests/fuzz/corpus: valid-ising-decisions*,
 * bad-chain-*: every cut and field damage of version 3's chain block), streamed into 2
 * parts: the plain load's status, and its reason in every part's message (no sim where
 * it fails). The corpus directory comes from the environment (meson sets it).
 */
static void chain_corpus_verdicts(void **state)
{
    (void)state;
    const char *dir = getenv("LATMC_TEST_FUZZ_CORPUS");
    if (!dir || !*dir) {
        printf("SKIP: LATMC_TEST_FUZZ_CORPUS (tests/fuzz/corpus) is not set\n");
        skip();
    }
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open the corpus %s", dir);
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strstr(e->d_name, "bad-chain-") && !strstr(e->d_name, "valid-ising-decisions"))
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        latmc_ctx *ctx = NULL;
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        const int plain = latmc_sim_load(ctx, path, &sim);
        char why[512], named[600];
        const char *msg = latmc_last_error();
        snprintf(named, sizeof named, "latmc_sim_load: '%s': ", path); /* the reason after */
        snprintf(why, sizeof why, "%s",
                 strncmp(msg, named, strlen(named)) == 0 ? msg + strlen(named) : msg);
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&ctx);
        const bool valid = strncmp(e->d_name, "valid-", 6) == 0;
        if ((plain == LATMC_OK) != valid)
            fail_msg("%s: the plain load says %s: %s", e->d_name, latmc_strerror(plain), why);
        /* the corpus's lattices have 4 planes: 2 parts of 2 */
        enum { n = 2 };
        struct hub hub;
        struct job jobs[n];
        load_on_parts(&hub, jobs, n, path);
        for (int p = 0; p < n; p++)
            if (jobs[p].status != plain || jobs[p].got_sim != valid ||
                (!valid && !strstr(jobs[p].msg, why)))
                fail_msg("%s: part %d of %d: %s: %s (the plain load: %s: %s)", e->d_name, p,
                         n, latmc_strerror(jobs[p].status), jobs[p].msg,
                         latmc_strerror(plain), why);
        files++;
    }
    closedir(d);
    if (files < 10)
        fail_msg("%d files of the chain in the corpus %s (expected at least 10)", files, dir);
}

/* A damaged spin that is no spin at all (not resealed): the checksum's verdict, not the
 * values', in every chunk size. */
static void damaged_values_are_a_checksum_mismatch(void **state)
{
    (void)state;
    struct ckpt c;
    make_ckpt(&c);
    struct dir dir;
    make_dir(&dir);
    c.bytes[c.spins_at + c.spin_bytes - 5] = 7;
    c.bytes[c.count_at + 8 + 4 * 17 + 1] ^= 0x10; /* and a coupling: -1 or 1 -> another */
    write_file(dir.path, c.bytes, c.n);
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
    expect_load_verdict(dir.path, 3, LATMC_ECORRUPT, "checksum mismatch", "bad values, 1 plane");
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    expect_load_verdict(dir.path, 3, LATMC_ECORRUPT, "checksum mismatch", "bad values");
    free(c.bytes);
    remove_dir(&dir);
}

/*
 * Crafted files (valid checksums) with more than one fault: the plain load's first
 * finding wins, in its order: the couplings' count, then the couplings' values, then the
 * configuration's; the parts read the configuration first (file order) and said what it
 * found there.
 */
static void crafted_faults_in_the_plain_order(void **state)
{
    (void)state;
    struct ckpt c;
    make_ckpt(&c);
    struct dir dir;
    make_dir(&dir);
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
    for (int kind = 0; kind < 2; kind++) {
        unsigned char *b = malloc(c.n);
        assert_non_null(b);
        memcpy(b, c.bytes, c.n);
        b[c.spins_at + 20] = 0; /* not an Ising spin, in part 0's slab */
        if (kind == 0) {
            const float half = 0.5f; /* not a +-J coupling */
            memcpy(b + c.count_at + 8 + 4 * 300, &half, sizeof half);
        } else {
            b[c.count_at] ^= 1; /* a count the desc does not imply */
        }
        reseal(b, c.n);
        write_file(dir.path, b, c.n);
        free(b);
        expect_load_verdict(dir.path, 3, LATMC_ECORRUPT,
                            kind == 0 ? "not a value the model takes"
                                      : "couplings where the desc implies",
                            kind == 0 ? "bad spin and coupling" : "bad spin and count");
        size_t app = 1;
        assert_int_equal(latmc_checkpoint_app_data(dir.path, NULL, 0, &app), LATMC_ECORRUPT);
    }
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    free(c.bytes);
    remove_dir(&dir);
}

/*
 * latmc_checkpoint_app_data checks the checksum in chunks of 4 MiB; where that buffer
 * could not be had, the checksum was skipped and a damaged file's section came back with
 * LATMC_OK.
 */
static void app_data_checksum_is_never_skipped(void **state)
{
    (void)state;
    struct ckpt c;
    make_ckpt(&c);
    struct dir dir;
    make_dir(&dir);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    assert_int_equal(latmc_sim_deserialize(ctx, c.bytes, c.n, &sim), LATMC_OK);
    static const char data[] = "the program's accumulators";
    assert_int_equal(latmc_sim_save_app_data(sim, dir.path, data, sizeof data), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    FILE *f = fopen(dir.path, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, (long)(c.spins_at + 3), SEEK_SET), 0);
    const int s = fgetc(f);
    assert_true(s == 1 || s == 0xff);
    assert_int_equal(fseek(f, (long)(c.spins_at + 3), SEEK_SET), 0);
    assert_int_equal(fputc(s == 1 ? 0xff : 1, f), s == 1 ? 0xff : 1); /* still a spin */
    assert_int_equal(fclose(f), 0);
    char got[64];
    size_t size = 0;
    /* chunks of one plane: the only allocation of 4 MiB is the checksum's buffer */
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
    assert_int_equal(latmc_checkpoint_app_data(dir.path, got, sizeof got, &size),
                     LATMC_ECORRUPT);
    assert_non_null(strstr(latmc_last_error(), "checksum mismatch"));
    fail_size = (size_t)4 << 20;
    const int st = latmc_checkpoint_app_data(dir.path, got, sizeof got, &size);
    fail_size = 0;
    if (st == LATMC_OK)
        fail_msg("a damaged file's section returned without its checksum checked");
    assert_int_equal(st, LATMC_ECORRUPT);
    assert_non_null(strstr(latmc_last_error(), "checksum mismatch"));
    assert_int_equal(size, 0);
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    free(c.bytes);
    remove_dir(&dir);
}

/* ---- a load's couplings, read back and saved again ---- */

struct trip {
    struct hub *hub;
    int rank;
    const char *path, *again; /* load path, save again (part 0 writes) */
    size_t ncouplings;
    float *couplings;         /* latmc_sim_get_couplings of the loaded parts */
    int status;
    char msg[512];
};

static void *round_trip_part(void *arg)
{
    struct trip *t = arg;
    struct link link = { t->hub, t->rank };
    latmc_transport tr = hub_transport(&link);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    t->couplings = calloc(t->ncouplings, sizeof(float));
    t->status = t->couplings ? LATMC_OK : LATMC_ENOMEM;
    PART_STEP(t, latmc_ctx_create(&ctx));
    PART_STEP(t, latmc_sim_load_part(ctx, t->path, t->rank, t->hub->n, &tr, &sim));
    PART_STEP(t, latmc_sim_get_couplings(sim, t->couplings, t->ncouplings));
    PART_STEP(t, latmc_sim_save(sim, t->again));
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return NULL;
}

/*
 * A sim of desc saved plainly, loaded on n parts (latmc_sim_load_part): the parts'
 * couplings (latmc_sim_get_couplings) are the plain sim's, and the loaded parts save the
 * same file again, byte for byte.
 */
static void couplings_round_trip(const latmc_sim_desc *d, int n, const char *what)
{
    struct dir dir;
    make_dir(&dir);
    char again[160];
    snprintf(again, sizeof again, "%s/again.ckpt", dir.name);
    latmc_ctx *ctx = NULL;
    latmc_sim *one = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, d, &one), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(one, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(one, 2), LATMC_OK);
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(one, &nc), LATMC_OK);
    assert_true(nc > 0);
    float *ref = malloc(nc * sizeof *ref);
    assert_non_null(ref);
    assert_int_equal(latmc_sim_get_couplings(one, ref, nc), LATMC_OK);
    assert_int_equal(latmc_sim_save(one, dir.path), LATMC_OK);
    latmc_sim_destroy(&one);
    latmc_ctx_destroy(&ctx);

    struct hub hub;
    struct trip trips[MAX_PARTS];
    for (int p = 0; p < n; p++) {
        memset(&trips[p], 0, sizeof trips[p]);
        trips[p].hub = &hub;
        trips[p].rank = p;
        trips[p].path = dir.path;
        trips[p].again = again;
        trips[p].ncouplings = nc;
    }
    run_parts(&hub, n, round_trip_part, trips, sizeof trips[0]);
    for (int p = 0; p < n; p++) {
        if (trips[p].status != LATMC_OK)
            fail_msg("%s: part %d of %d: %s", what, p, n, trips[p].msg);
        for (size_t i = 0; i < nc; i++)
            if (trips[p].couplings[i] != ref[i])
                fail_msg("%s: part %d of %d: coupling %zu is %g, the plain sim's %g", what, p,
                         n, i, (double)trips[p].couplings[i], (double)ref[i]);
        free(trips[p].couplings);
    }
    size_t na = 0, nb = 0;
    unsigned char *a = read_whole(dir.path, &na), *b = read_whole(again, &nb);
    assert_int_equal(na, nb);
    if (memcmp(a, b, na) != 0)
        fail_msg("%s: the loaded parts' save differs from the file they loaded", what);
    free(a);
    free(b);
    free(ref);
    unlink(again);
    remove_dir(&dir);
}

static void desc_for(latmc_sim_desc *d, int model, int device)
{
    latmc_sim_desc_init(d);
    d->model = model;
    d->device = device;
    d->n_threads = 1;
    d->seed = 9;
    d->coupling_seed = 4;
    if (model == LATMC_MODEL_ISING) { /* +-J, heat bath (a GPU rank's test case) */
        d->ndim = 2;
        d->extent[0] = 64;
        d->extent[1] = 24;
        d->algorithm = LATMC_ALGO_HEATBATH;
        d->couplings = LATMC_COUPLINGS_BIMODAL;
    } else { /* the spin glass, two replicas */
        d->ndim = 3;
        d->extent[0] = 8;
        d->extent[1] = 6;
        d->extent[2] = 16;
        d->replicas = 2;
        d->couplings = LATMC_COUPLINGS_GAUSSIAN;
    }
}

/* CPU parts (couplings by plane; each part keeps the planes near its slab), chunks of one
 * plane. */
static void loaded_couplings_are_whole(void **state)
{
    (void)state;
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
    latmc_sim_desc d;
    desc_for(&d, LATMC_MODEL_ISING, LATMC_DEVICE_CPU);
    couplings_round_trip(&d, 3, "CPU Ising +-J on 3 parts");
    desc_for(&d, LATMC_MODEL_HEISENBERG, LATMC_DEVICE_CPU);
    couplings_round_trip(&d, 2, "CPU Heisenberg on 2 parts");
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
}

/*
 * GPU parts (slab storage: couplings gathered plane by plane, ops.get_coupling_planes):
 * a streamed load gives every part its couplings, and the next save gives them back.
 */
static void cuda_loaded_couplings_are_whole(void **state)
{
    (void)state;
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
    latmc_sim_desc d;
    desc_for(&d, LATMC_MODEL_ISING, LATMC_DEVICE_CUDA);
    couplings_round_trip(&d, 2, "CUDA Ising +-J, slab storage");
    desc_for(&d, LATMC_MODEL_HEISENBERG, LATMC_DEVICE_CUDA);
    couplings_round_trip(&d, 2, "CUDA Heisenberg, slab storage");
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
}

/* ---- one part short of memory ---- */

enum { CAMPAIGN_PARTS = 3, OP_SAVE = 0, OP_LOAD = 1 };

struct short_job {
    struct hub *hub;
    int rank, target, op;
    const latmc_sim_desc *desc;
    const char *path;
    int status;
    bool injected, got_sim;
    char msg[512];
};

static void *short_part(void *arg)
{
    struct short_job *j = arg;
    struct link link = { j->hub, j->rank };
    latmc_transport t = hub_transport(&link);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    j->status = latmc_ctx_create(&ctx);
    if (j->op == OP_SAVE) {
        if (j->status == LATMC_OK)
            j->status = latmc_sim_create_part(ctx, j->desc, j->rank, j->hub->n, &t, &sim);
        if (j->status == LATMC_OK)
            j->status = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
        if (j->status == LATMC_OK) {
            lib_calls = 0;
            armed = j->rank == j->target;
            j->status = latmc_sim_save(sim, j->path);
            armed = false;
        }
    } else if (j->status == LATMC_OK) {
        lib_calls = 0;
        armed = j->rank == j->target;
        j->status = latmc_sim_load_part(ctx, j->path, j->rank, j->hub->n, &t, &sim);
        armed = false;
        j->got_sim = sim != NULL;
    }
    j->injected = injected;
    snprintf(j->msg, sizeof j->msg, "%s", latmc_last_error());
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return NULL;
}

/* In a child: the operation with liblatmc's allocation k of part `target` failing. Exit
 * 0: every part alike and clean; 2: nothing was failed (k is past the last allocation);
 * 1: a fault (said on stderr). A part left waiting is the child's SIGALRM. */
static int short_run(const latmc_sim_desc *d, int op, int target, long k, const char *dir,
                     const char *path)
{
    alarm(30); /* a part left waiting: SIGALRM */
    fail_at = k;
    struct hub hub;
    memset(&hub, 0, sizeof hub);
    hub.n = CAMPAIGN_PARTS;
    pthread_barrier_init(&hub.barrier, NULL, CAMPAIGN_PARTS);
    struct short_job jobs[CAMPAIGN_PARTS];
    pthread_t th[CAMPAIGN_PARTS];
    for (int p = 0; p < CAMPAIGN_PARTS; p++) {
        memset(&jobs[p], 0, sizeof jobs[p]);
        jobs[p].hub = &hub;
        jobs[p].rank = p;
        jobs[p].target = target;
        jobs[p].op = op;
        jobs[p].desc = d;
        jobs[p].path = path;
        if (pthread_create(&th[p], NULL, short_part, &jobs[p]) != 0)
            return 1;
    }
    for (int p = 0; p < CAMPAIGN_PARTS; p++)
        pthread_join(th[p], NULL);
    const int st = jobs[0].status;
    const bool injected_any = jobs[target].injected;
    for (int p = 0; p < CAMPAIGN_PARTS; p++)
        if (jobs[p].status != st || (st != LATMC_OK && st != LATMC_ENOMEM) ||
            (op == OP_LOAD && jobs[p].got_sim != (st == LATMC_OK))) {
            fprintf(stderr, "%s, allocation %ld of part %d failing: part %d: %s: %s\n",
                    op == OP_SAVE ? "save" : "load", k, target, p,
                    latmc_strerror(jobs[p].status), jobs[p].msg);
            return 1;
        }
    /* a save that failed left the old file and no other; one that did not, the new one */
    DIR *dd = opendir(dir);
    int entries = 0;
    for (struct dirent *e; dd && (e = readdir(dd));)
        entries += e->d_name[0] != '.';
    if (dd)
        closedir(dd);
    FILE *f = fopen(path, "rb");
    char head[4] = { 0 };
    const size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    const bool old = got == 3 && memcmp(head, "old", 3) == 0;
    if (entries != 1 || (op == OP_SAVE && old != (st != LATMC_OK))) {
        fprintf(stderr, "save, allocation %ld of part %d failing (%s): %d files, %s\n", k,
                target, latmc_strerror(st), entries, old ? "the old one" : "not the old one");
        return 1;
    }
    return injected_any ? 0 : 2;
}

/*
 * Every allocation liblatmc makes in one part's save (each part in turn), then in its
 * latmc_sim_load_part, failed in turn (each run in a child process): every part returns
 * the same status (LATMC_ENOMEM, or LATMC_OK where a fallback needs no memory), no part
 * is left waiting, a failed save leaves the old file and no temporary one, a failed load
 * no sim. An agreement allocated its votes: a part short of them returned without taking
 * part, and the others waited (a save's first agreement).
 *
 * The load's first four allocations of each part are latmc_sim_create_part's room for the
 * part and its agreements, made before any communication: the one failure no part can
 * tell the others (lib/part.c); the campaign starts after them.
 */
static void one_part_short_of_memory(void **state)
{
    (void)state;
    if (library_code_find() == 0)
        skip(); /* a static build: no liblatmc.so to tell its allocations by */
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
    latmc_sim_desc descs[2];
    desc_for(&descs[0], LATMC_MODEL_ISING, LATMC_DEVICE_CPU);
    desc_for(&descs[1], LATMC_MODEL_HEISENBERG, LATMC_DEVICE_CPU);
    for (int m = 0; m < 2; m++) {
        struct dir dir;
        make_dir(&dir);
        for (int op = OP_SAVE; op <= OP_LOAD; op++) {
            if (op == OP_LOAD) { /* a sound file to load */
                unlink(dir.path);
                const pid_t pid = fork();
                assert_true(pid >= 0);
                if (pid == 0)
                    _exit(short_run(&descs[m], OP_SAVE, 0, -1, dir.name, dir.path) == 2 ? 0 : 1);
                int status = 0;
                assert_int_equal(waitpid(pid, &status, 0), pid);
                assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            }
            for (int target = 0; target < CAMPAIGN_PARTS; target++)
                for (long k = op == OP_LOAD ? 4 : 0;; k++) {
                    if (op == OP_SAVE)
                        write_file(dir.path, "old", 3);
                    const pid_t pid = fork();
                    assert_true(pid >= 0);
                    if (pid == 0)
                        _exit(short_run(&descs[m], op, target, k, dir.name, dir.path));
                    int status = 0;
                    assert_int_equal(waitpid(pid, &status, 0), pid);
                    if (WIFSIGNALED(status))
                        fail_msg("model %d, %s, allocation %ld of part %d failing: the child "
                                 "ended by signal %d (%s)", descs[m].model,
                                 op == OP_SAVE ? "save" : "load", k, target, WTERMSIG(status),
                                 WTERMSIG(status) == SIGALRM ? "a part left waiting" : "crash");
                    assert_true(WIFEXITED(status));
                    if (WEXITSTATUS(status) == 2) {
                        if (getenv("CKPT_STREAM_VERBOSE"))
                            print_message("model %d %s part %d: %ld allocations\n", descs[m].model, op == OP_SAVE ? "save" : "load", target, k);
                        break;
                    }
                    if (WEXITSTATUS(status) != 0)
                        fail_msg("model %d, %s, allocation %ld of part %d failing: see above",
                                 descs[m].model, op == OP_SAVE ? "save" : "load", k, target);
                }
        }
        remove_dir(&dir);
    }
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
}

/* Usage: test_ckpt_stream [cuda]. With "cuda": the GPU parts' test only (77 without a
 * usable GPU). */
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "cuda") == 0) {
        latmc_ctx *ctx = NULL;
        int count = 0;
        const int st = latmc_ctx_create(&ctx) == LATMC_OK
                           ? latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count)
                           : LATMC_EBACKEND;
        latmc_ctx_destroy(&ctx);
        if (st != LATMC_OK || count < 1) {
            printf("SKIP: no usable CUDA device (%s)\n",
                   st != LATMC_OK ? latmc_last_error() : "none found");
            return 77;
        }
        const struct CMUnitTest gpu[] = {
            cmocka_unit_test(cuda_loaded_couplings_are_whole),
        };
        return cmocka_run_group_tests(gpu, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(damaged_desc_is_a_checksum_mismatch),
        cmocka_unit_test(damaged_values_are_a_checksum_mismatch),
        cmocka_unit_test(crafted_faults_in_the_plain_order),
        cmocka_unit_test(app_data_checksum_is_never_skipped),
        cmocka_unit_test(chain_files_stream_bit_for_bit),
        cmocka_unit_test(chain_block_verdicts),
        cmocka_unit_test(chain_corpus_verdicts),
        cmocka_unit_test(loaded_couplings_are_whole),
        cmocka_unit_test(one_part_short_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
