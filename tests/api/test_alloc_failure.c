/*
 * Every allocation failed in turn (issue 13, "Keep the campaigns"): for sims of every model
 * (Ising, Ising +-J, Potts, phi^4 float, Heisenberg with couplings and two replicas; the
 * test fails naming a model of the library that has no variant here),
 * each operation -- create and initialise, sweep and measure, save, load, deserialize --
 * is run with its 1st, 2nd, 3rd, ... allocation made by liblatmc failing, until it runs
 * with none failed; so is an ensemble's first call of sweeps on the member lanes
 * (decisions = 2: its words, the CPU's kept site-major copies), which on failure must
 * leave the ensemble as it was (its spins and sweep count) and then run as if it had not
 * failed. Each run must end cleanly: LATMC_ENOMEM (or LATMC_OK where the library
 * falls back to a path that needs no memory: counted and printed), the output pointer NULL
 * on failure, no crash, and no block that liblatmc allocated left behind once the sim is
 * destroyed (checked here in every build, and by LeakSanitizer in the ASan build).
 *
 * How: this executable defines malloc, calloc, realloc, aligned_alloc and posix_memalign
 * (and free), which the dynamic linker binds ahead of the C library's (or ASan's) for
 * every caller, and forwards to the next definition (dlsym RTLD_NEXT). Only calls whose
 * return address lies in liblatmc.so are counted, failed and tracked: the C library, the
 * OpenMP runtime and this test allocate as usual (libgomp aborts on a failed allocation of
 * its own, which is not the library's doing). The tracking table stores pointers
 * complemented, so that it never hides a leak from LeakSanitizer.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/latmc.h>

#include "library_code.h"
#include "sim_helpers.h"

/* ---- the interposed allocator ---- */

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void (*real_free)(void *);

/* dlsym may allocate before the real functions are known: from here, never freed. */
static unsigned char bootstrap[8192] __attribute__((aligned(64)));
static size_t bootstrap_used;
static int resolving;

static void *bootstrap_alloc(size_t n)
{
    n = (n + 63) & ~(size_t)63;
    if (bootstrap_used + n > sizeof bootstrap)
        return NULL;
    void *p = bootstrap + bootstrap_used;
    bootstrap_used += n;
    return p;
}

static bool from_bootstrap(const void *p)
{
    return (const unsigned char *)p >= bootstrap &&
           (const unsigned char *)p < bootstrap + sizeof bootstrap;
}

static void resolve(void)
{
    if (real_free || resolving)
        return;
    resolving = 1;
    real_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    real_calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real_posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    resolving = 0;
}

/* Failure injection: while armed, the library's allocation number fail_at fails. */
static atomic_bool armed;
static atomic_long lib_calls;
static long fail_at = -1;
static atomic_bool injected;

static bool inject(const void *ret)
{
    if (!atomic_load(&armed) || !library_code_has(ret))
        return false;
    if (atomic_fetch_add(&lib_calls, 1) != fail_at)
        return false;
    atomic_store(&injected, true);
    return true;
}

/* Live blocks liblatmc allocated: an open-addressing set of complemented pointers. */
#define TABLE_SIZE (1u << 16)
static uintptr_t table[TABLE_SIZE]; /* 0: empty, 1: deleted, else ~pointer */
static long live;
static bool table_full;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(uintptr_t key)
{
    return (size_t)((key * UINT64_C(0x9E3779B97F4A7C15)) >> 48) & (TABLE_SIZE - 1);
}

static void track(void *p, const void *ret)
{
    if (!p || !library_code_count() || !library_code_has(ret))
        return;
    uintptr_t key = ~(uintptr_t)p;
    pthread_mutex_lock(&table_lock);
    size_t i = slot_of(key);
    for (size_t probes = 0; probes < TABLE_SIZE; probes++, i = (i + 1) & (TABLE_SIZE - 1))
        if (table[i] <= 1) {
            table[i] = key;
            live++;
            break;
        }
    if (live >= (long)TABLE_SIZE / 2)
        table_full = true;
    pthread_mutex_unlock(&table_lock);
}

static void untrack(void *p)
{
    if (!p || !library_code_count()) /* before main: ASan may not even have its mutexes yet */
        return;
    uintptr_t key = ~(uintptr_t)p;
    pthread_mutex_lock(&table_lock);
    size_t i = slot_of(key);
    for (size_t probes = 0; probes < TABLE_SIZE && table[i] != 0;
         probes++, i = (i + 1) & (TABLE_SIZE - 1))
        if (table[i] == key) {
            table[i] = 1;
            live--;
            break;
        }
    pthread_mutex_unlock(&table_lock);
}

static long live_blocks(void)
{
    pthread_mutex_lock(&table_lock);
    long n = live;
    pthread_mutex_unlock(&table_lock);
    return n;
}

void *malloc(size_t n)
{
    resolve();
    if (!real_malloc)
        return bootstrap_alloc(n);
    const void *ret = __builtin_return_address(0);
    if (inject(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = real_malloc(n);
    track(p, ret);
    return p;
}

void *calloc(size_t n, size_t size)
{
    resolve();
    if (!real_calloc)
        return bootstrap_alloc(n * size); /* static storage: zeroed */
    const void *ret = __builtin_return_address(0);
    if (inject(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = real_calloc(n, size);
    track(p, ret);
    return p;
}

void *realloc(void *old, size_t n)
{
    resolve();
    const void *ret = __builtin_return_address(0);
    if (from_bootstrap(old)) {
        void *p = malloc(n);
        size_t room = (size_t)(bootstrap + sizeof bootstrap - (unsigned char *)old);
        if (p)
            memcpy(p, old, n < room ? n : room);
        return p;
    }
    if (inject(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = real_realloc(old, n);
    if (p) {
        untrack(old);
        track(p, ret);
    }
    return p;
}

void *aligned_alloc(size_t align, size_t n)
{
    resolve();
    const void *ret = __builtin_return_address(0);
    if (inject(ret)) {
        errno = ENOMEM;
        return NULL;
    }
    void *p = real_aligned_alloc(align, n);
    track(p, ret);
    return p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
    resolve();
    const void *ret = __builtin_return_address(0);
    if (inject(ret))
        return ENOMEM;
    int st = real_posix_memalign(out, align, n);
    if (st == 0)
        track(*out, ret);
    return st;
}

void free(void *p)
{
    if (!p || from_bootstrap(p))
        return;
    resolve();
    untrack(p);
    real_free(p);
}

/* ---- the operations ---- */

static latmc_ctx *ctx;
static char dir[64], path[128], scratch[128];
static int failures, fallbacks;

struct variant {
    const char *name;
    latmc_sim_desc desc;
};

static latmc_sim *make_sim(const struct variant *v, int *st)
{
    latmc_sim *sim = NULL;
    *st = latmc_sim_create(ctx, &v->desc, &sim);
    if (*st == LATMC_OK)
        *st = v->desc.model == LATMC_MODEL_PHI4 ? latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0)
                                                : latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3);
    if (*st == LATMC_OK)
        *st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (*st != LATMC_OK)
        latmc_sim_destroy(&sim);
    return sim;
}

/* One operation under failure number k; its result code, *made any sim it created. */
enum op { OP_CREATE, OP_SWEEP, OP_SAVE, OP_LOAD, OP_DESERIALIZE, OP_RECUT, OP_COUNT };
static const char *const op_names[] = { "create+init", "sweep+measure", "save", "load",
                                        "deserialize", "cut into 2 boxes+sweep" };

struct fixture {
    latmc_sim *sim;          /* a ready sim for sweep and save */
    unsigned char *bytes;    /* its serialization, for deserialize */
    size_t size;
};

static int run_op(enum op op, const struct variant *v, struct fixture *f, latmc_sim **made)
{
    int st = LATMC_OK;
    *made = NULL;
    switch (op) {
    case OP_CREATE:
        *made = make_sim(v, &st);
        break;
    case OP_SWEEP: {
        double e;
        st = latmc_sim_sweep(f->sim, 2);
        if (st == LATMC_OK)
            st = latmc_sim_observable(f->sim, LATMC_OBS_ENERGY, &e);
        break;
    }
    case OP_SAVE:
        st = latmc_sim_save(f->sim, scratch);
        break;
    case OP_LOAD:
        *made = (latmc_sim *)(uintptr_t)1; /* the call must reset it */
        st = latmc_sim_load(ctx, path, made);
        break;
    case OP_DESERIALIZE:
        *made = (latmc_sim *)(uintptr_t)1;
        st = latmc_sim_deserialize(ctx, f->bytes, f->size, made);
        break;
    case OP_RECUT: /* the new cut's storage is made at the first step */
        st = latmc_sim_set_parts(f->sim, 2);
        if (st == LATMC_OK)
            st = latmc_sim_sweep(f->sim, 1);
        break;
    default:
        break;
    }
    return st;
}

static void check(bool ok, const char *variant, const char *op, long k, const char *what)
{
    if (!ok) {
        printf("FAIL %s %s, allocation %ld failed: %s\n", variant, op, k, what);
        failures++;
    }
}

static void fixture_make(const struct variant *v, struct fixture *f)
{
    int st;
    f->sim = make_sim(v, &st);
    if (!f->sim) {
        printf("FAIL %s: cannot create the fixture: %s\n", v->name, latmc_last_error());
        exit(1);
    }
    f->size = 0;
    f->bytes = NULL;
}

static void fixture_free(struct fixture *f)
{
    latmc_sim_destroy(&f->sim);
}

static void fail_each_allocation(const struct variant *v, enum op op, unsigned char *bytes,
                                 size_t size)
{
    const char *opname = op_names[op];
    long k;
    for (k = 0; k < 100000; k++) {
        struct fixture f;
        fixture_make(v, &f);
        f.bytes = bytes;
        f.size = size;
        long before = live_blocks();
        latmc_sim *made = NULL;
        atomic_store(&lib_calls, 0);
        atomic_store(&injected, false);
        fail_at = k;
        atomic_store(&armed, true);
        int st = run_op(op, v, &f, &made);
        atomic_store(&armed, false);
        bool hit = atomic_load(&injected);
        if (hit && st == LATMC_OK)
            fallbacks++;
        check(st == LATMC_OK || (hit && st == LATMC_ENOMEM), v->name, opname, k,
              latmc_strerror(st));
        if (st != LATMC_OK && st != LATMC_ENOMEM)
            printf("     message: %s\n", latmc_last_error());
        if (op == OP_CREATE || op == OP_LOAD || op == OP_DESERIALIZE)
            check((st == LATMC_OK) == (made != NULL), v->name, opname, k,
                  "output set exactly on success");
        /* A sim whose new cut failed keeps working (its old storage is made again). */
        if (op == OP_RECUT && st != LATMC_OK) {
            double e;
            check(latmc_sim_sweep(f.sim, 1) == LATMC_OK &&
                      latmc_sim_observable(f.sim, LATMC_OBS_ENERGY, &e) == LATMC_OK,
                  v->name, opname, k, "the sim does not sweep after the failed cut");
        }
        if (st == LATMC_OK && made)
            latmc_sim_destroy(&made);
        else if (made == (latmc_sim *)(uintptr_t)1)
            made = NULL;
        /* Nothing the operation allocated outlives it (the sim it made is destroyed,
         * the fixture's sim keeps what it had). */
        long after = live_blocks();
        if (op == OP_CREATE || op == OP_LOAD || op == OP_DESERIALIZE)
            check(after == before, v->name, opname, k, "blocks left allocated");
        fixture_free(&f);
        if (!hit)
            break;
    }
    printf("ok   %s %s: %ld allocations, each failed in turn\n", v->name, opname, k);
}

/* ---- the member lanes (ensemble decisions = 2) ---- */

/* 3D +-J, 5 x 8 x 2 = 80 members (three groups of 32, the last partial) on the member
 * lanes, hot start; tempering off, so that a call is the lanes' one call of sweeps. */
static latmc_ens *lanes_make(void)
{
    static const double betas[8] = { 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0 };
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 3;
    d.extent[0] = d.extent[1] = d.extent[2] = 4;
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.algorithm = LATMC_ALGO_METROPOLIS;
    d.device = LATMC_DEVICE_CPU;
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = 5;
    l.n_temperatures = 8;
    l.n_replicas = 2;
    l.seed = 11;
    l.coupling_seed = 12;
    l.n_threads = 2;
    latmc_ens *e = NULL;
    if (latmc_ens_create(ctx, &d, &l, &e) != LATMC_OK ||
        latmc_ens_set_temperatures(e, betas, 8) != LATMC_OK ||
        latmc_ens_set_param(e, LATMC_PARAM_DECISIONS, 2) != LATMC_OK ||
        latmc_ens_init_spins(e, LATMC_INIT_HOT) != LATMC_OK) {
        printf("FAIL lanes: cannot make the ensemble: %s\n",
               e ? latmc_ens_last_error(e) : latmc_last_error());
        exit(1);
    }
    return e;
}

enum { LANES_M = 80, LANES_N = 64 };

/* Every member's spins, concatenated. */
static void lanes_spins(latmc_ens *e, int8_t *out)
{
    for (int m = 0; m < LANES_M; m++)
        if (latmc_ens_get_spins(e, m, out + (size_t)m * LANES_N, LANES_N) != LATMC_OK) {
            printf("FAIL lanes: member %d's spins: %s\n", m, latmc_ens_last_error(e));
            exit(1);
        }
}

static void lanes_each_allocation(void)
{
    static int8_t ref[LANES_M * LANES_N], start[LANES_M * LANES_N], now[LANES_M * LANES_N];
    latmc_ens *r = lanes_make();
    if (latmc_ens_sweep(r, 5) != LATMC_OK) {
        printf("FAIL lanes: the run without failures: %s\n", latmc_ens_last_error(r));
        exit(1);
    }
    lanes_spins(r, ref);
    latmc_ens_destroy(&r);
    long k;
    for (k = 0; k < 100000; k++) {
        latmc_ens *e = lanes_make();
        lanes_spins(e, start);
        atomic_store(&lib_calls, 0);
        atomic_store(&injected, false);
        fail_at = k;
        atomic_store(&armed, true);
        int st = latmc_ens_sweep(e, 5);
        atomic_store(&armed, false);
        const bool hit = atomic_load(&injected);
        if (hit && st == LATMC_OK)
            fallbacks++;
        check(st == LATMC_OK || (hit && st == LATMC_ENOMEM), "lanes", "sweep", k,
              latmc_strerror(st));
        if (st != LATMC_OK && st != LATMC_ENOMEM)
            printf("     message: %s\n", latmc_ens_last_error(e));
        if (st == LATMC_ENOMEM) {
            /* the message names the allocation (a cause passed up through the thread's own
             * last message, as the vectors' kept words' is, must survive its formatting) */
            check(strstr(latmc_ens_last_error(e), "cannot allocate") != NULL, "lanes", "sweep",
                  k, latmc_ens_last_error(e));
            uint64_t count = 1;
            check(latmc_ens_sweep_count(e, &count) == LATMC_OK && count == 0, "lanes",
                  "sweep", k, "the failed call counted sweeps");
            lanes_spins(e, now);
            check(memcmp(now, start, sizeof now) == 0, "lanes", "sweep", k,
                  "the failed call changed the members' spins");
            st = latmc_ens_sweep(e, 5);
            check(st == LATMC_OK, "lanes", "sweep again", k, latmc_ens_last_error(e));
        }
        lanes_spins(e, now);
        check(memcmp(now, ref, sizeof now) == 0, "lanes", "sweep", k,
              "the spins differ from the run without failures");
        latmc_ens_destroy(&e);
        if (!hit)
            break;
    }
    printf("ok   lanes sweep: %ld allocations, each failed in turn\n", k);
}

static struct variant make_variant(const char *name, int model, int ndim, int64_t l,
                                   int algorithm)
{
    struct variant v;
    v.name = name;
    latmc_sim_desc_init(&v.desc);
    v.desc.model = model;
    v.desc.ndim = ndim;
    for (int mu = 0; mu < ndim; mu++)
        v.desc.extent[mu] = l;
    v.desc.algorithm = algorithm;
    v.desc.device = LATMC_DEVICE_CPU;
    v.desc.n_threads = 2;
    v.desc.seed = 7;
    return v;
}

int main(void)
{
    resolve();
    if (library_code_find() == 0) {
        printf("SKIP: liblatmc.so is not loaded (a static build?)\n");
        return 77;
    }
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    strcpy(dir, "/tmp/latmc-alloc-XXXXXX");
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/sim.ckpt", dir);
    snprintf(scratch, sizeof scratch, "%s/scratch.ckpt", dir);

    struct variant variants[6];
    int nv = 0;
    variants[nv++] = make_variant("ising-2d", LATMC_MODEL_ISING, 2, 16, LATMC_ALGO_METROPOLIS);
    variants[nv] = make_variant("ising-pmj-3d", LATMC_MODEL_ISING, 3, 8, LATMC_ALGO_HEATBATH);
    variants[nv].desc.couplings = LATMC_COUPLINGS_BIMODAL;
    variants[nv++].desc.coupling_seed = 3;
    variants[nv] = make_variant("potts-q5-2d", LATMC_MODEL_POTTS, 2, 12, LATMC_ALGO_HEATBATH);
    variants[nv++].desc.q = 5;
    variants[nv] = make_variant("phi4-float-3d", LATMC_MODEL_PHI4, 3, 8, LATMC_ALGO_DEFAULT);
    variants[nv++].desc.precision = LATMC_PRECISION_FLOAT;
    variants[nv] = make_variant("heisenberg-gauss-2rep", LATMC_MODEL_HEISENBERG, 3, 4,
                                LATMC_ALGO_HEATBATH);
    variants[nv].desc.couplings = LATMC_COUPLINGS_GAUSSIAN;
    variants[nv].desc.coupling_seed = 4;
    variants[nv++].desc.replicas = 2;
    /* every model of the library has a variant here (a model added without one fails) */
    const int uncovered = test_model_without_case(variants, (size_t)nv, desc.model);
    if (uncovered != LATMC_MODEL_NONE) {
        printf("FAIL: the model %s has no variant in main's list\n",
               latmc_model_name(uncovered));
        failures++;
    }

    for (int i = 0; i < nv; i++) {
        /* A checkpoint of this variant, for load and deserialize; one unarmed run of every
         * operation first, so that one-time set-ups are not counted as leaks. */
        struct fixture f;
        fixture_make(&variants[i], &f);
        latmc_sim_sweep(f.sim, 1);
        if (latmc_sim_save(f.sim, path) != LATMC_OK ||
            latmc_sim_serialize(f.sim, NULL, 0, &f.size) != LATMC_OK ||
            !(f.bytes = malloc(f.size)) ||
            latmc_sim_serialize(f.sim, f.bytes, f.size, &f.size) != LATMC_OK) {
            printf("FAIL %s: cannot write its checkpoint: %s\n", variants[i].name,
                   latmc_sim_last_error(f.sim));
            return 1;
        }
        unsigned char *bytes = f.bytes;
        size_t size = f.size;
        bool cuts = true; /* whether this model's sims take latmc_sim_set_parts */
        for (int op = 0; op < OP_COUNT; op++) {
            latmc_sim *made = NULL;
            const int st = run_op((enum op)op, &variants[i], &f, &made);
            if (st == LATMC_OK && made)
                latmc_sim_destroy(&made);
            if (op == OP_RECUT && st != LATMC_OK)
                cuts = false;
        }
        fixture_free(&f);
        for (int op = 0; op < OP_COUNT; op++)
            if (op != OP_RECUT || cuts)
                fail_each_allocation(&variants[i], (enum op)op, bytes, size);
        free(bytes);
    }
    lanes_each_allocation();
    latmc_ctx_destroy(&ctx);
    unlink(path);
    unlink(scratch);
    rmdir(dir);
    if (table_full) {
        printf("FAIL: the tracking table filled up\n");
        failures++;
    }
    printf("%d failures, %d allocation failures absorbed by a fallback\n", failures,
           fallbacks);
    return failures == 0 ? 0 : 1;
}
