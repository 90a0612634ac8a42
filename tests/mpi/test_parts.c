/*
 * The part API (latmc/part.h) without MPI: k threads of one process, each holding one part
 * sim, joined by the in-process transport of tests/support/thread_parts.h. Checks that a
 * failure on one part is the same failure on every part (bad spins, a desc that differs,
 * collective calls with a bad argument on one part, a save or load that fails), that
 * share_halos answered differently fails the create everywhere, the misuse of every
 * function of the part API, and the memory a part and its checkpoints take. That parts
 * run the single-process chain bit for bit (every model, 1 to 4 parts, halos by exchange
 * and in shared buffers, checkpoints saved by parts and loaded as one sim and the other
 * way) is the identity matrix's (tests/repro/identity). Runs in every build, sanitizers
 * included (no MPI in the process).
 */
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "mirror_transport.h"
#include "sim_helpers.h"
#include "thread_parts.h"

enum { MAX_PARTS = 4, N_SWEEPS = 6 };
_Static_assert((int)MAX_PARTS <= (int)THREAD_PARTS_MAX, "the transport takes MAX_PARTS parts");

/* run_parts' transports offer share_halos (the exchange in place) */
static bool hub_shared;

/* release calls seen by run_parts (every part sim destroyed releases its transport) */
static int released;

/* ---- the cases ---- */

/* a case: struct test_model (tests/support/sim_helpers.h); its desc has these seeds */
#define SEED 77
#define COUPLING_SEED 5

/* What one part found, checked by the main thread. */
struct result {
    int status;          /* first failing call's status, or LATMC_OK */
    char where[64];
    char msg[512];
    size_t spin_bytes;
    unsigned char *spins;
    double obs[LATMC_OBS_OVERLAP2_KMIN + 1]; /* every observable key but ACCEPTANCE ... */
    int obs_st[LATMC_OBS_OVERLAP2_KMIN + 1]; /* ... and its status (EUNSUPPORTED for the model's missing ones) */
    uint64_t acc, att;
    unsigned char *bytes; /* latmc_sim_serialize */
    size_t nbytes;
    unsigned char *reloaded; /* spins after deserialize_part of the plain bytes + 2 sweeps */
    unsigned char *streamed; /* spins after latmc_sim_load_part of load_path + 2 sweeps */
    int save_gathers;        /* the transport's gathers in latmc_sim_save */
    float *couplings;    /* latmc_sim_get_couplings (collective on parts); NULL: none */
    size_t ncouplings;
};

struct job {
    int rank, n;
    const struct test_model *cfg;
    const char *save_path;               /* part 0 saves here; NULL: no save */
    int fail_save_gather;                /* > 0: the save's k-th gather fails everywhere */
    const char *load_path;               /* latmc_sim_load_part of this file; NULL: none */
    const unsigned char *plain_bytes;    /* deserialize these as parts */
    size_t plain_n;
    int bad_spins_on;                    /* this part sets an invalid configuration (-1: none) */
    int other_seed_on;                   /* this part passes another seed (-1: none) */
    int other_beta_at;                   /* part at - 1 sets beta 0.9 after the others' (0: none) */
    int bad_couplings_on;                /* this part asks for too few couplings (-1: none) */
    int bad_set_couplings_at;            /* part + 1 that sets an invalid coupling (0: none) */
    int bad_joint_at;                    /* part + 1 whose parameters fail the joint check of
                                            phi^4 at the sweep (g = 0, mu2 <= 0; 0: none) */
    int bad_init_at;                     /* part + 1 that passes an invalid `how` to
                                            latmc_sim_init_spins (0: none) */
    int bad_serialize_at;                /* part + 1 that passes size NULL to
                                            latmc_sim_serialize (0: none) */
    int bad_tune_at;                     /* part + 1 that asks for a target acceptance out of
                                            (0, 1) in latmc_sim_tune_epsilon (0: none) */
    struct result res;
};

#define STEP(job, what, call)                                                              \
    do {                                                                                   \
        if ((job)->res.status == LATMC_OK) {                                               \
            int st_ = (call);                                                              \
            if (st_ != LATMC_OK) {                                                         \
                (job)->res.status = st_;                                                   \
                snprintf((job)->res.where, sizeof (job)->res.where, "%s", (what));         \
                snprintf((job)->res.msg, sizeof (job)->res.msg, "%s", latmc_last_error()); \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* Every observable (collective on parts: each part asks for the same keys). */
static void observe(latmc_sim *sim, struct result *r)
{
    for (int key = LATMC_OBS_ENERGY; key <= LATMC_OBS_OVERLAP2_KMIN; key++)
        if (key != LATMC_OBS_ACCEPTANCE)
            r->obs_st[key] = latmc_sim_observable(sim, key, &r->obs[key]);
}

static void run_part(int rank, int n, const latmc_transport *tp, void *arg)
{
    struct job *job = arg;
    struct result *r = &job->res;
    job->rank = rank;
    job->n = n;
    latmc_transport t = *tp;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL, *back = NULL;
    latmc_sim_desc d = test_model_desc(job->cfg, SEED, COUPLING_SEED);
    if (job->rank == job->other_seed_on)
        d.seed++;
    STEP(job, "ctx", latmc_ctx_create(&ctx));
    STEP(job, "create", latmc_sim_create_part(ctx, &d, job->rank, job->n, &t, &sim));
    STEP(job, "params", test_set_params(sim, &job->cfg->params));
    if (job->rank == job->other_beta_at - 1)
        STEP(job, "params", latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.9));
    STEP(job, "init",
         latmc_sim_init_spins(sim, job->rank == job->bad_init_at - 1 ? 7 : LATMC_INIT_HOT));
    if (job->rank == job->bad_joint_at - 1)
        STEP(job, "g = 0", latmc_sim_set_param(sim, LATMC_PARAM_G, 0.0));
    STEP(job, "sweep", latmc_sim_sweep(sim, 2));
    STEP(job, "sweep", latmc_sim_sweep(sim, N_SWEEPS - 2));
    STEP(job, "spins_size", latmc_sim_spins_size(sim, &r->spin_bytes));
    if (r->status == LATMC_OK)
        r->spins = malloc(r->spin_bytes);
    STEP(job, "get_spins", latmc_sim_get_spins(sim, r->spins, r->spin_bytes));
    if (r->status == LATMC_OK)
        observe(sim, r);
    STEP(job, "acceptance", latmc_sim_acceptance_counts(sim, &r->acc, &r->att));
    if (job->cfg->couplings != LATMC_COUPLINGS_UNIFORM) {
        STEP(job, "couplings_size", latmc_sim_couplings_size(sim, &r->ncouplings));
        if (r->status == LATMC_OK)
            r->couplings = malloc(r->ncouplings * sizeof *r->couplings);
        STEP(job, "get_couplings",
             latmc_sim_get_couplings(sim, r->couplings,
                                     r->ncouplings - (job->rank == job->bad_couplings_on)));
    }
    if (job->bad_set_couplings_at && r->status == LATMC_OK) {
        float *bad = malloc(r->ncouplings * sizeof *bad);
        memcpy(bad, r->couplings, r->ncouplings * sizeof *bad);
        if (job->rank == job->bad_set_couplings_at - 1)
            bad[5] = 0.5f; /* not a +-J coupling */
        STEP(job, "bad set_couplings", latmc_sim_set_couplings(sim, bad, r->ncouplings));
        free(bad);
    }
    if (job->bad_tune_at)
        STEP(job, "bad tune_epsilon",
             latmc_sim_tune_epsilon(sim, job->rank == job->bad_tune_at - 1 ? 1.5 : 0.4, 10));
    STEP(job, "serialize size", latmc_sim_serialize(sim, NULL, 0, &r->nbytes));
    if (r->status == LATMC_OK)
        r->bytes = malloc(r->nbytes);
    STEP(job, "serialize",
         latmc_sim_serialize(sim, r->bytes, r->nbytes,
                             job->rank == job->bad_serialize_at - 1 ? NULL : &r->nbytes));
    thread_parts_fail_gather_in(&t, job->fail_save_gather);
    const int gathers = thread_parts_gathers(&t);
    if (job->save_path)
        STEP(job, "save", latmc_sim_save(sim, job->save_path));
    r->save_gathers = thread_parts_gathers(&t) - gathers;
    thread_parts_fail_gather_in(&t, 0);
    if (job->bad_spins_on >= 0 && r->status == LATMC_OK) {
        unsigned char *bad = malloc(r->spin_bytes);
        memcpy(bad, r->spins, r->spin_bytes);
        if (job->rank == job->bad_spins_on)
            bad[3] = 0; /* not an Ising spin */
        STEP(job, "bad set_spins", latmc_sim_set_spins(sim, bad, r->spin_bytes));
        free(bad);
    }
    if (job->plain_bytes) {
        STEP(job, "deserialize_part",
             latmc_sim_deserialize_part(ctx, job->plain_bytes, job->plain_n, job->rank,
                                        job->n, &t, &back));
        STEP(job, "sweep loaded", latmc_sim_sweep(back, 2));
        if (r->status == LATMC_OK)
            r->reloaded = malloc(r->spin_bytes);
        STEP(job, "get_spins loaded", latmc_sim_get_spins(back, r->reloaded, r->spin_bytes));
    }
    latmc_sim_destroy(&back);
    if (job->load_path) {
        STEP(job, "load_part",
             latmc_sim_load_part(ctx, job->load_path, job->rank, job->n, &t, &back));
        STEP(job, "sweep streamed", latmc_sim_sweep(back, 2));
        if (r->status == LATMC_OK)
            r->streamed = malloc(r->spin_bytes);
        STEP(job, "get_spins streamed", latmc_sim_get_spins(back, r->streamed, r->spin_bytes));
    }
    latmc_sim_destroy(&back);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void run_parts(struct job *jobs, int n)
{
    void *args[MAX_PARTS];
    for (int p = 0; p < n; p++)
        args[p] = &jobs[p];
    struct thread_parts_opts opts = { hub_shared, -1 };
    struct thread_parts_stats stats;
    assert_int_equal(thread_parts_run(n, &opts, run_part, args, &stats), 0);
    released += stats.released;
    /* the halos went through the shared buffers (several parts), or by exchange */
    if (n > 1 && jobs[0].res.status == LATMC_OK)
        assert_true(hub_shared ? stats.syncs > 0 : stats.syncs == 0);
}

static void free_result(struct result *r)
{
    free(r->couplings);
    free(r->spins);
    free(r->bytes);
    free(r->reloaded);
    free(r->streamed);
}

/* The single-process sim: the same calls. */
static void plain_run(const struct test_model *c, struct result *r, uint64_t extra_after_load,
                      const unsigned char *load, size_t load_n, unsigned char **reloaded)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = test_model_desc(c, SEED, COUPLING_SEED);
    memset(r, 0, sizeof *r);
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(test_set_params(sim, &c->params), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, N_SWEEPS), LATMC_OK);
    assert_int_equal(latmc_sim_spins_size(sim, &r->spin_bytes), LATMC_OK);
    r->spins = malloc(r->spin_bytes);
    assert_int_equal(latmc_sim_get_spins(sim, r->spins, r->spin_bytes), LATMC_OK);
    observe(sim, r);
    assert_int_equal(r->obs_st[LATMC_OBS_ENERGY], LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(sim, &r->acc, &r->att), LATMC_OK);
    if (c->couplings != LATMC_COUPLINGS_UNIFORM) {
        assert_int_equal(latmc_sim_couplings_size(sim, &r->ncouplings), LATMC_OK);
        r->couplings = malloc(r->ncouplings * sizeof *r->couplings);
        assert_int_equal(latmc_sim_get_couplings(sim, r->couplings, r->ncouplings), LATMC_OK);
    }
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &r->nbytes), LATMC_OK);
    r->bytes = malloc(r->nbytes);
    assert_int_equal(latmc_sim_serialize(sim, r->bytes, r->nbytes, &r->nbytes), LATMC_OK);
    latmc_sim_destroy(&sim);
    if (load) {
        assert_int_equal(latmc_sim_deserialize(ctx, load, load_n, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, extra_after_load), LATMC_OK);
        *reloaded = malloc(r->spin_bytes);
        assert_int_equal(latmc_sim_get_spins(sim, *reloaded, r->spin_bytes), LATMC_OK);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

static const struct test_model cfgs[] = {
    { LATMC_MODEL_ISING, 2, { 32, 24, 0 }, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 0,
      false, { { { LATMC_PARAM_BETA, 0.4 } } }, 0 },
    { LATMC_MODEL_ISING, 2, { 64, 16, 0 }, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL, 1, 0,
      false, { { { LATMC_PARAM_BETA, 0.4 } } }, 0 },
    { LATMC_MODEL_ISING, 3, { 8, 6, 8 }, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 0,
      false, { { { LATMC_PARAM_BETA, 0.4 } } }, 0 },
    /* phi^4 (cfgs[3]: its joint parameter check and tune_epsilon) */
    { LATMC_MODEL_PHI4, 2, { 40, 40, 0 }, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 0,
      false, { { { LATMC_PARAM_MU2, -1.0 }, { LATMC_PARAM_G, 6.0 } } }, 0 },
};

static void write_file(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

static unsigned char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    const long size = ftell(f);
    assert_true(size >= 0);
    rewind(f);
    unsigned char *b = malloc(size ? (size_t)size : 1);
    assert_non_null(b);
    assert_int_equal(fread(b, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    *n = (size_t)size;
    return b;
}

/* A failure on one part is that failure on every part, named after the part. */
/* n jobs on configuration cfg with no fault planted (the caller plants one). */
static void clean_jobs(struct job *jobs, int n, const struct test_model *cfg)
{
    memset(jobs, 0, sizeof *jobs * MAX_PARTS);
    for (int p = 0; p < n; p++) {
        jobs[p].cfg = cfg;
        jobs[p].bad_spins_on = -1;
        jobs[p].other_seed_on = -1;
        jobs[p].bad_couplings_on = -1;
    }
}

/* Every part failed with `status` at `where`, and every other part's message names the
 * part that failed (`bad`) as part `bad` of n. */
static void expect_agreed(struct job *jobs, int n, int status, const char *where, int bad)
{
    char name[32];
    snprintf(name, sizeof name, "part %d of %d", bad, n);
    for (int p = 0; p < n; p++) {
        assert_int_equal(jobs[p].res.status, status);
        assert_string_equal(jobs[p].res.where, where);
        if (p != bad && !strstr(jobs[p].res.msg, name))
            fail_msg("part %d: %s", p, jobs[p].res.msg);
        free_result(&jobs[p].res);
    }
}

/* A part's create alone (no sweep: parts that disagree about the halos would wait for
 * each other in it). */
struct create_job {
    int status;
    char msg[512];
};

static void create_only(int rank, int n, const latmc_transport *t, void *arg)
{
    struct create_job *job = arg;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = test_model_desc(&cfgs[0], SEED, COUPLING_SEED);
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    job->status = latmc_sim_create_part(ctx, &d, rank, n, t, &sim);
    snprintf(job->msg, sizeof job->msg, "%s", latmc_last_error());
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* share_halos answered 0 on one part and 1 on the others (a transport's bug): the create
 * fails on every part, saying so, rather than some parts calling sync_halos and the
 * others exchange (each waiting for the other forever). */
static void shared_halos_answer_agreed(void **state)
{
    (void)state;
    for (int n = 2; n <= 3; n++)
        for (int declines = 0; declines < n; declines++) {
            struct create_job jobs[MAX_PARTS];
            memset(jobs, 0, sizeof jobs);
            void *args[MAX_PARTS];
            for (int p = 0; p < n; p++)
                args[p] = &jobs[p];
            struct thread_parts_opts opts = { true, declines };
            assert_int_equal(thread_parts_run(n, &opts, create_only, args, NULL), 0);
            for (int p = 0; p < n; p++) {
                if (jobs[p].status != LATMC_EBACKEND ||
                    !strstr(jobs[p].msg, "share_halos offered shared halo buffers on"))
                    fail_msg("%d parts, part %d declining: part %d: %d %s", n, declines, p,
                             jobs[p].status, jobs[p].msg);
            }
        }
}

static void failures_are_agreed(void **state)
{
    (void)state;
    const int n = 3;
    struct job jobs[MAX_PARTS];
    clean_jobs(jobs, n, &cfgs[0]);
    for (int p = 0; p < n; p++)
        jobs[p].bad_spins_on = 1;
    run_parts(jobs, n);
    expect_agreed(jobs, n, LATMC_EINVAL, "bad set_spins", 1);
    clean_jobs(jobs, n, &cfgs[0]);
    for (int p = 0; p < n; p++)
        jobs[p].other_seed_on = 2;
    released = 0;
    run_parts(jobs, n);
    for (int p = 0; p < n; p++) {
        assert_int_equal(jobs[p].res.status, LATMC_EINVAL);
        assert_string_equal(jobs[p].res.where, "create");
        if (!strstr(jobs[p].res.msg, "part 2 of 3 passed a desc other than part 0's"))
            fail_msg("part %d: %s", p, jobs[p].res.msg);
        free_result(&jobs[p].res);
    }
    assert_int_equal(released, 0); /* a failed create leaves the transport the caller's */
    /* latmc_sim_get_couplings is collective: a bad count on one part fails it on every
     * part, none left waiting in the gather (+-J Ising) */
    clean_jobs(jobs, n, &cfgs[1]);
    for (int p = 0; p < n; p++)
        jobs[p].bad_couplings_on = 1;
    run_parts(jobs, n);
    expect_agreed(jobs, n, LATMC_EINVAL, "get_couplings", 1);
    /* latmc_sim_set_couplings is collective: a bad coupling on one part fails it on every
     * part, and no part takes the new couplings (a part holding its slab only holds its
     * halos' couplings too: parts that took them would disagree with the failed one
     * about the bonds between their slabs) */
    clean_jobs(jobs, n, &cfgs[1]);
    for (int p = 0; p < n; p++)
        jobs[p].bad_set_couplings_at = 2 + 1;
    run_parts(jobs, n);
    expect_agreed(jobs, n, LATMC_EINVAL, "bad set_couplings", 2);
    /* latmc_sim_sweep is collective: parameters that fail the joint check on one part
     * (set_param is not collective) fail the sweep on every part, none left waiting in
     * the others' halo exchanges */
    clean_jobs(jobs, n, &cfgs[3]);
    for (int p = 0; p < n; p++)
        jobs[p].bad_joint_at = 1 + 1;
    run_parts(jobs, n);
    expect_agreed(jobs, n, LATMC_ESTATE, "sweep", 1);
    /* parameters set differently on one part (set_param is local): the first sweep
     * fails on every part, with one message naming the part and the parameter, before
     * any part runs a chain no one asked for (on 995e5fe: LATMC_OK everywhere) */
    for (int bad = 0; bad < n; bad++) {
        clean_jobs(jobs, n, &cfgs[0]);
        for (int p = 0; p < n; p++)
            jobs[p].other_beta_at = bad + 1;
        run_parts(jobs, n);
        const int named = bad == 0 ? 1 : bad; /* part 0 differs from all the others */
        char name[64];
        snprintf(name, sizeof name, "part %d of %d has beta = ", named, n);
        for (int p = 0; p < n; p++) {
            if (jobs[p].res.status != LATMC_EINVAL || strcmp(jobs[p].res.where, "sweep") ||
                !strstr(jobs[p].res.msg, name) ||
                strcmp(jobs[p].res.msg, jobs[0].res.msg) != 0)
                fail_msg("beta differing on part %d: part %d: %d at %s: %s", bad, p,
                         jobs[p].res.status, jobs[p].res.where, jobs[p].res.msg);
        }
        for (int p = 0; p < n; p++)
            free_result(&jobs[p].res);
    }
    /* latmc_sim_init_spins is collective: a bad `how` on one part fails it on every part
     * (none goes on to sweep alone) */
    clean_jobs(jobs, n, &cfgs[0]);
    for (int p = 0; p < n; p++)
        jobs[p].bad_init_at = 2 + 1;
    run_parts(jobs, n);
    expect_agreed(jobs, n, LATMC_EINVAL, "init", 2);
    /* latmc_sim_serialize is collective: size NULL on one part fails it on every part
     * (none left waiting in the gathers of the configuration) */
    clean_jobs(jobs, n, &cfgs[1]);
    for (int p = 0; p < n; p++)
        jobs[p].bad_serialize_at = 1 + 1;
    run_parts(jobs, n);
    expect_agreed(jobs, n, LATMC_EINVAL, "serialize", 1);
    /* latmc_sim_tune_epsilon is collective: a bad target on one part fails it on every
     * part, none left waiting in the halo exchange of the others' sweeps (phi^4) */
    clean_jobs(jobs, n, &cfgs[3]);
    for (int p = 0; p < n; p++)
        jobs[p].bad_tune_at = 0 + 1;
    run_parts(jobs, n);
    expect_agreed(jobs, n, LATMC_EINVAL, "bad tune_epsilon", 0);
}

/* The entries of directory dir (. and .. aside). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* Whether the file holds exactly `text`. */
static int holds(const char *path, const char *text)
{
    size_t n = 0;
    unsigned char *b = read_file(path, &n);
    const int same = n == strlen(text) && memcmp(b, text, n) == 0;
    free(b);
    return same;
}

/* Three parts (+-J Ising: configuration and couplings) saving over `path`. */
static void save_jobs(struct job *jobs, const char *path, int fail_at)
{
    clean_jobs(jobs, 3, &cfgs[1]);
    for (int p = 0; p < 3; p++) {
        jobs[p].save_path = path;
        jobs[p].fail_save_gather = fail_at;
    }
    run_parts(jobs, 3);
}

/*
 * A save of parts streams chunk by chunk into part 0's temporary file: a failure at any
 * point (the transport at any of the save's gathers, part 0's disk) is the same failure
 * on every part and leaves the old file as it was, and no temporary file.
 */
static void checkpoint_save_failures(void **state)
{
    (void)state;
    char dir[] = "/tmp/latmc-ckfail-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1); /* one plane per chunk: many gathers */
    struct job jobs[MAX_PARTS];
    save_jobs(jobs, path, 0);
    const int total = jobs[0].res.save_gathers;
    for (int p = 0; p < 3; p++) {
        assert_int_equal(jobs[p].res.status, LATMC_OK);
        assert_int_equal(jobs[p].res.save_gathers, total);
        free_result(&jobs[p].res);
    }
    /* the first agreement, every chunk of the configuration and the couplings, the
     * agreement before the rename; the last gather (the agreement on the rename) comes
     * after the new file is in place */
    assert_true(total > 20);
    for (int k = 1; k < total; k++) {
        write_file(path, "old", 3);
        save_jobs(jobs, path, k);
        for (int p = 0; p < 3; p++) {
            if (jobs[p].res.status != LATMC_EIO || strcmp(jobs[p].res.where, "save") != 0 ||
                !strstr(jobs[p].res.msg, "injected"))
                fail_msg("gather %d of %d failing, part %d: %s at %s: %s", k, total, p,
                         latmc_strerror(jobs[p].res.status), jobs[p].res.where,
                         jobs[p].res.msg);
            free_result(&jobs[p].res);
        }
        if (!holds(path, "old") || entries(dir) != 1)
            fail_msg("gather %d of %d failing: the old file changed or a file was left", k,
                     total);
    }
    /* part 0 cannot write past 1000 bytes (RLIMIT_FSIZE, in a child): the old file stays */
    write_file(path, "old", 3);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = { 1000, 1000 };
        int bad = setrlimit(RLIMIT_FSIZE, &lim) != 0;
        save_jobs(jobs, path, 0);
        for (int p = 0; p < 3; p++) {
            bad |= jobs[p].res.status != LATMC_EIO || strcmp(jobs[p].res.where, "save") != 0;
            bad |= p > 0 && !strstr(jobs[p].res.msg, "part 0 of 3");
            if (bad)
                fprintf(stderr, "part %d: %s\n", p, jobs[p].res.msg);
        }
        _exit(bad);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(holds(path, "old"));
    assert_int_equal(entries(dir), 1);
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    unlink(path);
    rmdir(dir);
}

/* FNV-1a 64 (doc/checkpoints.md), to craft files with valid checksums. */
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

/*
 * A load of parts checks the file as an ordinary load does, as it streams: a damaged
 * byte (the checksum), an invalid spin or coupling in a file of a valid checksum; each is
 * the same failure on every part, naming part 0, and leaves no sim.
 */
static void checkpoint_load_failures(void **state)
{
    (void)state;
    char dir[] = "/tmp/latmc-ckload-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/bad.ckpt", dir);
    struct result ref;
    plain_run(&cfgs[1], &ref, 0, NULL, 0, NULL);
    const size_t n = ref.nbytes;
    /* the layout's tail: configuration, couplings' count, couplings, checksum */
    const size_t couplings_at = n - 8 - ref.ncouplings * sizeof(float);
    const size_t spins_at = couplings_at - 8 - ref.spin_bytes;
    static const char *const want[] = { "checksum mismatch", "invalid values",
                                        "not a value the model takes" };
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "1", 1);
    for (int kind = 0; kind < 3; kind++) {
        unsigned char *b = malloc(n);
        memcpy(b, ref.bytes, n);
        if (kind == 0) {
            b[spins_at + ref.spin_bytes / 2] ^= 2; /* -1 to +1 or back: still a spin */
        } else if (kind == 1) {
            b[spins_at + ref.spin_bytes - 3] = 0; /* not an Ising spin, in the last part's slab */
            reseal(b, n);
        } else {
            const float half = 0.5f; /* not a +-J coupling */
            memcpy(b + couplings_at + 40, &half, sizeof half);
            reseal(b, n);
        }
        write_file(path, b, n);
        free(b);
        struct job jobs[MAX_PARTS];
        clean_jobs(jobs, 3, &cfgs[1]);
        for (int p = 0; p < 3; p++)
            jobs[p].load_path = path;
        released = 0;
        run_parts(jobs, 3);
        for (int p = 0; p < 3; p++) {
            struct result *r = &jobs[p].res;
            if (r->status != LATMC_ECORRUPT || strcmp(r->where, "load_part") != 0 ||
                !strstr(r->msg, want[kind]) || (p > 0 && !strstr(r->msg, "part 0 of 3")))
                fail_msg("kind %d, part %d: %s at %s: %s", kind, p, latmc_strerror(r->status),
                         r->where, r->msg);
            free_result(r);
        }
        assert_int_equal(released, 3); /* the sims; a failed load leaves the transport */
        /* latmc_checkpoint_app_data (streamed too) finds the same fault as a plain load */
        size_t app = 0;
        assert_int_equal(latmc_checkpoint_app_data(path, NULL, 0, &app), LATMC_ECORRUPT);
        if (!strstr(latmc_last_error(), want[kind]))
            fail_msg("kind %d, app data: %s", kind, latmc_last_error());
        latmc_ctx *ctx = NULL;
        latmc_sim *sim = NULL;
        assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
        assert_int_equal(latmc_sim_load(ctx, path, &sim), LATMC_ECORRUPT);
        if (!strstr(latmc_last_error(), want[kind]))
            fail_msg("kind %d, plain load: %s", kind, latmc_last_error());
        latmc_ctx_destroy(&ctx);
    }
    /* the sound file has no section (ESTATE; test_checkpoint.c reads one back) */
    write_file(path, ref.bytes, n);
    size_t app = 1;
    assert_int_equal(latmc_checkpoint_app_data(path, NULL, 0, &app), LATMC_ESTATE);
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    free_result(&ref);
    unlink(path);
    rmdir(dir);
}

static int nop_exchange(void *u, const void *a, const void *b, void *c, void *d, size_t n)
{
    (void)u, (void)a, (void)b, (void)c, (void)d, (void)n;
    return 0;
}

static int nop_gather(void *u, int root, const void *mine, void *all, const size_t *bytes)
{
    (void)root;
    (void)u;
    memcpy(all, mine, bytes[0]);
    return 0;
}

static int nop_broadcast(void *u, int root, void *buf, size_t n)
{
    (void)u, (void)root, (void)buf, (void)n;
    return 0;
}

static int nop_share_halos(void *u, size_t bytes, void *send[4], void *recv[4])
{
    (void)u, (void)bytes, (void)send, (void)recv;
    return 0;
}

/* Bad arguments: the message names what is wrong, nothing is left allocated. */
static void misuse(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = test_model_desc(&cfgs[0], SEED, COUPLING_SEED);
    latmc_transport t;
    memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.exchange = nop_exchange;
    t.gather = nop_gather;
    t.broadcast = nop_broadcast;
    latmc_sim *sim = (latmc_sim *)&d; /* set to NULL on failure */
    assert_int_equal(latmc_sim_create_part(NULL, &d, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_null(sim);
    assert_int_equal(latmc_sim_create_part(ctx, NULL, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, &t, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, NULL, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "transport is NULL"));
    assert_int_equal(latmc_sim_create_part(ctx, &d, 1, 1, &t, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "rank 1 of n_parts 1"));
    assert_int_equal(latmc_sim_create_part(ctx, &d, -1, 2, &t, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 0, &t, &sim), LATMC_EINVAL);
    t.struct_size = sizeof t - 8;
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "struct_size"));
    /* an older header's transport (without share_halos and sync_halos) is taken */
    t.struct_size = offsetof(latmc_transport, share_halos);
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, &t, &sim), LATMC_OK);
    latmc_sim_destroy(&sim);
    t.struct_size = sizeof t;
    t.share_halos = nop_share_halos; /* without sync_halos */
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "sync_halos"));
    t.share_halos = NULL;
    t.gather = NULL;
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "transport->gather is NULL"));
    t.gather = nop_gather;
    /* desc.n_parts other than 0 or n_parts */
    d.n_parts = 2;
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "desc.n_parts = 2"));
    d.n_parts = 0;
    /* one part of one: an ordinary sim with a transport it never needs */
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 1, &t, &sim), LATMC_OK);
    int rank = -1, n = -1;
    int64_t first = -1, planes = -1;
    assert_int_equal(latmc_sim_part_info(sim, &rank, &n, &first, &planes), LATMC_OK);
    assert_int_equal(rank, 0);
    assert_int_equal(n, 1);
    assert_int_equal(first, 0);
    assert_int_equal(planes, 24);
    assert_int_equal(latmc_sim_part_info(sim, NULL, NULL, NULL, NULL), LATMC_OK);
    assert_int_equal(latmc_sim_part_info(NULL, &rank, &n, &first, &planes), LATMC_EINVAL);
    size_t nb = 0;
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &nb), LATMC_OK);
    unsigned char *b = malloc(nb);
    assert_int_equal(latmc_sim_serialize(sim, b, nb, &nb), LATMC_OK);
    latmc_sim_destroy(&sim);
    /* deserialize_part: NULLs, a damaged buffer (ECORRUPT, agreed) */
    assert_int_equal(latmc_sim_deserialize_part(NULL, b, nb, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_null(sim);
    assert_int_equal(latmc_sim_deserialize_part(ctx, NULL, nb, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_deserialize_part(ctx, b, nb, 0, 1, NULL, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_deserialize_part(ctx, b, nb, 0, 1, &t, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_deserialize_part(ctx, b, nb, 3, 2, &t, &sim), LATMC_EINVAL);
    /* n_parts 0 is no count of parts (it made an ordinary sim and dropped the transport) */
    sim = (latmc_sim *)&t;
    assert_int_equal(latmc_sim_deserialize_part(ctx, b, nb, 0, 0, &t, &sim), LATMC_EINVAL);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), "latmc_sim_deserialize_part: "));
    assert_non_null(strstr(latmc_last_error(), "n_parts 0"));
    assert_int_equal(latmc_sim_deserialize_part(ctx, b, nb, -1, 1, &t, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "rank -1"));
    b[nb / 2] ^= 1;
    assert_int_equal(latmc_sim_deserialize_part(ctx, b, nb, 0, 1, &t, &sim), LATMC_ECORRUPT);
    assert_null(sim);
    b[nb / 2] ^= 1;
    assert_int_equal(latmc_sim_deserialize_part(ctx, b, nb, 0, 1, &t, &sim), LATMC_OK);
    latmc_sim_destroy(&sim);
    /* load_part: NULLs, ranks, transports (no communication), a missing file (EIO), a
     * file of one part (the ordinary load) */
    char dir[] = "/tmp/latmc-ldmis-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/one.ckpt", dir);
    write_file(path, b, nb);
    sim = (latmc_sim *)&t; /* set to NULL by every failure */
    assert_int_equal(latmc_sim_load_part(NULL, path, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_null(sim);
    assert_int_equal(latmc_sim_load_part(ctx, NULL, 0, 1, &t, &sim), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "path is NULL"));
    assert_int_equal(latmc_sim_load_part(ctx, path, 0, 1, NULL, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_load_part(ctx, path, 0, 1, &t, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_sim_load_part(ctx, path, 2, 2, &t, &sim), LATMC_EINVAL);
    assert_int_equal(latmc_sim_load_part(ctx, path, 0, 0, &t, &sim), LATMC_EINVAL);
    latmc_transport bad_t = t;
    bad_t.gather = NULL;
    assert_int_equal(latmc_sim_load_part(ctx, path, 0, 1, &bad_t, &sim), LATMC_EINVAL);
    char missing[160];
    snprintf(missing, sizeof missing, "%s/missing.ckpt", dir);
    assert_int_equal(latmc_sim_load_part(ctx, missing, 0, 1, &t, &sim), LATMC_EIO);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), "missing.ckpt"));
    assert_int_equal(latmc_sim_load_part(ctx, path, 0, 1, &t, &sim), LATMC_OK);
    size_t nb2 = 0;
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &nb2), LATMC_OK);
    assert_int_equal(nb2, nb);
    latmc_sim_destroy(&sim);
    unlink(path);
    rmdir(dir);
    free(b);
    /* latmc_record_failure: the message and status as given; nonsense becomes EINVAL */
    assert_int_equal(latmc_record_failure(LATMC_EIO, "disk on fire"), LATMC_EIO);
    assert_string_equal(latmc_last_error(), "disk on fire");
    assert_int_equal(latmc_record_failure(5, NULL), LATMC_EINVAL);
    assert_string_equal(latmc_last_error(), "(no message)");
    latmc_ctx_destroy(&ctx);
}

/* ---- a part's memory ---- */

/* The line `key` of /proc/self/status (Linux) in KiB, -1 if unknown. */
static long status_kib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    const size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 && line[n] == ':' &&
            sscanf(line + n + 1, "%ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* The process's resident memory in KiB, -1 if unknown. */
static long rss_kib(void)
{
    return status_kib("VmRSS");
}

/* The parent's side of a measurement in a child: the child's one long through the pipe
 * fd (its write end closed here), the child reaped. */
static long child_result(int fd[2], pid_t pid)
{
    close(fd[1]);
    long grown = -1;
    assert_int_equal(read(fd[0], &grown, sizeof grown), (ssize_t)sizeof grown);
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return grown;
}

/* Resident memory a sim of desc d adds once started hot and swept (rank < 0: an ordinary
 * sim; else part rank of n), measured in a child process of its own, so that what the
 * allocator kept from an earlier measurement does not count. */
static long sim_rss_kib(const latmc_sim_desc *d, int rank, int n)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        latmc_transport t = mirror_transport(&n);
        latmc_ctx *ctx = NULL;
        latmc_sim *sim = NULL;
        long grown = -1;
        if (latmc_ctx_create(&ctx) == LATMC_OK) {
            const long before = rss_kib();
            const int st = rank < 0 ? latmc_sim_create(ctx, d, &sim)
                                    : latmc_sim_create_part(ctx, d, rank, n, &t, &sim);
            const int mass = d->model != LATMC_MODEL_PHI4 ||
                             latmc_sim_set_param(sim, LATMC_PARAM_MU2, 1.0) == LATMC_OK;
            if (st == LATMC_OK && mass && latmc_sim_init_spins(sim, LATMC_INIT_HOT) == LATMC_OK &&
                latmc_sim_sweep(sim, 1) == LATMC_OK)
                grown = rss_kib() - before;
        }
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&ctx);
        _exit(write(fd[1], &grown, sizeof grown) == (ssize_t)sizeof grown ? 0 : 1);
    }
    const long grown = child_result(fd, pid);
    assert_true(grown >= 0);
    return grown;
}

/*
 * A part of n stores its slab and halos only (every model: cpu_backend.h's slab storage),
 * not the whole lattice: 2D 4096^2 (16 MiB of spins, 32 MiB more of +-J couplings),
 * 64 x 64 x 256 x 2 replicas and 2048 x 1024 doubles cut into 64 parts. The ordinary
 * sim's growth shows that the measure sees the lattice at all.
 */
static void part_holds_its_slab_only(void **state)
{
    (void)state;
    if (rss_kib() < 0)
        skip();
    /* Ising uniform, Ising +-J, Potts q = 3, Heisenberg (two replicas, 64 x 64 x 256),
     * phi^4 (2048 x 1024 in double: 16 MiB, and as much again for the AVX2 layout's copy) */
    static const char *const name[] = { "Ising", "Ising +-J", "Potts", "Heisenberg", "phi^4" };
    for (int kind = 0; kind < 5; kind++) {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        d.model = kind < 2 ? LATMC_MODEL_ISING : kind == 2 ? LATMC_MODEL_POTTS
                  : kind == 3 ? LATMC_MODEL_HEISENBERG : LATMC_MODEL_PHI4;
        if (kind == 2)
            d.q = 3;
        d.ndim = 2;
        d.extent[0] = d.extent[1] = 4096;
        if (kind == 3) {
            d.ndim = 3;
            d.replicas = 2;
            d.extent[0] = d.extent[1] = 64;
            d.extent[2] = 256;
        }
        if (kind == 4) {
            d.extent[0] = 2048;
            d.extent[1] = 1024;
        }
        d.device = LATMC_DEVICE_CPU;
        d.n_threads = 1;
        d.couplings = kind == 1 ? LATMC_COUPLINGS_BIMODAL
                      : kind == 3 ? LATMC_COUPLINGS_GAUSSIAN : LATMC_COUPLINGS_UNIFORM;
        const long whole = sim_rss_kib(&d, -1, 1);
        const long part = sim_rss_kib(&d, 5, 64);
        print_message("%s: an ordinary sim adds %ld KiB, part 5 of 64 %ld KiB\n", name[kind],
                      whole, part);
        /* the spins alone are 12 to 16 MiB; a slab of 1/64 of the planes and its halos a
         * few per cent of it, and the rest of the process (sanitizers: 2 to 3 MiB) */
        if (whole < 12 * 1024 || part > whole / 4)
            fail_msg("%s: an ordinary sim adds %ld KiB, part 5 of 64 %ld KiB", name[kind],
                     whole, part);
    }
}

/* ---- a checkpoint's memory ---- */

/* The process's peak resident memory in KiB since the last reset_peak (VmHWM), -1 if
 * unknown. */
static long peak_kib(void)
{
    return status_kib("VmHWM");
}

/* Reset the peak to the current resident memory (Linux >= 4.0); 0 on success. */
static int reset_peak(void)
{
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f)
        return -1;
    const int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

enum { SAVE_PART, LOAD_PART, LOAD_WHOLE, SAVE_PLAIN };

/*
 * In a child process: what one step adds to the peak resident memory, in KiB. SAVE_PART:
 * part `rank` of 64 (the mirror transport standing in for the others), started hot, saves
 * to path; LOAD_PART: part 0 of 64 loads path with latmc_sim_load_part; LOAD_WHOLE: the
 * same through the whole file's bytes (latmc_sim_deserialize_part, the former route);
 * SAVE_PLAIN: an ordinary sim writes path (not measured).
 */
static long checkpoint_peak_kib(const latmc_sim_desc *d, int what, int rank, const char *path)
{
    int fd[2];
    assert_int_equal(pipe(fd), 0);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fd[0]);
        int n = 64;
        latmc_transport t = mirror_transport(&n);
        latmc_ctx *ctx = NULL;
        latmc_sim *sim = NULL;
        long grown = -1;
        int st = latmc_ctx_create(&ctx);
        if (st == LATMC_OK && (what == SAVE_PART || what == SAVE_PLAIN)) {
            st = what == SAVE_PLAIN ? latmc_sim_create(ctx, d, &sim)
                                    : latmc_sim_create_part(ctx, d, rank, n, &t, &sim);
            if (st == LATMC_OK)
                st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
            const long before = rss_kib();
            if (st == LATMC_OK && reset_peak() == 0 && latmc_sim_save(sim, path) == LATMC_OK)
                grown = peak_kib() - before;
        } else if (st == LATMC_OK && what == LOAD_PART) {
            const long before = rss_kib();
            if (reset_peak() == 0 &&
                latmc_sim_load_part(ctx, path, 0, n, &t, &sim) == LATMC_OK)
                grown = peak_kib() - before;
        } else if (st == LATMC_OK) {
            const long before = rss_kib();
            FILE *f = fopen(path, "rb");
            unsigned char *b = NULL;
            long size = -1;
            if (f && reset_peak() == 0 && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0) {
                rewind(f);
                b = malloc((size_t)size);
                if (b && fread(b, 1, (size_t)size, f) == (size_t)size &&
                    latmc_sim_deserialize_part(ctx, b, (size_t)size, 0, n, &t, &sim) ==
                        LATMC_OK)
                    grown = peak_kib() - before;
            }
            free(b);
            if (f)
                fclose(f);
        }
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&ctx);
        _exit(write(fd[1], &grown, sizeof grown) == (ssize_t)sizeof grown ? 0 : 1);
    }
    return child_result(fd, pid);
}

/*
 * A part's save and load stream the checkpoint in chunks: the peak memory they add is
 * about a slab and a few chunks (256 KiB here), not the lattice: part 0 of 64 (the writer
 * and the reader) and part 5 of 64 (a part that sends its planes) of 2D Ising 4096^2 (a
 * 16 MiB file), Ising +-J 2048^2 (4 MiB of spins and 16 MiB of couplings) and the
 * Heisenberg spin glass 64 x 64 x 256 with two replicas (24 MiB of spins, 12 MiB of
 * couplings). The former route (the whole file's bytes on every part, a gather of the
 * whole lattice on the writer) adds more than the file: shown for the load.
 */
static void checkpoint_holds_a_chunk_only(void **state)
{
    (void)state;
    if (rss_kib() < 0 || reset_peak() != 0 || peak_kib() < 0)
        skip();
    char dir[] = "/tmp/latmc-ckmem-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/big.ckpt", dir);
    setenv("LATMC_CHECKPOINT_CHUNK_BYTES", "262144", 1);
    static const char *const name[] = { "Ising", "Ising +-J", "Heisenberg" };
    for (int kind = 0; kind < 3; kind++) {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        d.model = kind < 2 ? LATMC_MODEL_ISING : LATMC_MODEL_HEISENBERG;
        d.ndim = 2;
        d.extent[0] = d.extent[1] = kind == 0 ? 4096 : 2048;
        if (kind == 2) {
            d.ndim = 3;
            d.replicas = 2;
            d.extent[0] = d.extent[1] = 64;
            d.extent[2] = 256;
        }
        d.device = LATMC_DEVICE_CPU;
        d.n_threads = 1;
        d.couplings = kind == 1 ? LATMC_COUPLINGS_BIMODAL
                      : kind == 2 ? LATMC_COUPLINGS_GAUSSIAN : LATMC_COUPLINGS_UNIFORM;
        const long save0 = checkpoint_peak_kib(&d, SAVE_PART, 0, path);
        const long save5 = checkpoint_peak_kib(&d, SAVE_PART, 5, path);
        checkpoint_peak_kib(&d, SAVE_PLAIN, 0, path);
        size_t file_n = 0;
        free(read_file(path, &file_n));
        const long file_kib = (long)(file_n >> 10);
        const long load0 = checkpoint_peak_kib(&d, LOAD_PART, 0, path);
        const long whole = checkpoint_peak_kib(&d, LOAD_WHOLE, 0, path);
        print_message("%s (a %ld KiB file): part 0 of 64 saves in %ld KiB, part 5 in %ld "
                      "KiB, part 0 loads in %ld KiB (through the whole file: %ld KiB)\n",
                      name[kind], file_kib, save0, save5, load0, whole);
        assert_true(save0 >= 0 && save5 >= 0 && load0 >= 0 && whole >= 0);
        /* the slab (1/64 of the planes, halos and the backend's lower planes) and a few
         * chunks, the rest of the process (sanitizers: 2 to 3 MiB) */
        if (save0 > file_kib / 4 || save5 > file_kib / 4 || load0 > file_kib / 4 ||
            whole < file_kib)
            fail_msg("%s: a %ld KiB file: save %ld and %ld KiB, load %ld KiB (whole file: "
                     "%ld KiB)", name[kind], file_kib, save0, save5, load0, whole);
        unlink(path);
    }
    unsetenv("LATMC_CHECKPOINT_CHUNK_BYTES");
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(misuse),
        cmocka_unit_test(failures_are_agreed),
        cmocka_unit_test(shared_halos_answer_agreed),
        cmocka_unit_test(checkpoint_save_failures),
        cmocka_unit_test(checkpoint_load_failures),
        cmocka_unit_test(part_holds_its_slab_only),
        cmocka_unit_test(checkpoint_holds_a_chunk_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
