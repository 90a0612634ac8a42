/*
 * Potts members of an ensemble in one launch: the host side of ens_potts_kernels.cu
 * (doc/ensembles.md, "Execution").
 *
 * The members' configurations stay in their own sims' device bytes (the kernels update
 * them in place, so each sim's state is what its own sweeps would leave), and their
 * decision tables are the sims' own device copies (refreshed by the executor whenever a
 * member's parameters change, e.g. a tempering swap's set_param). A batch kept from call
 * to call holds the device table of the members (spins, tables, seed), rebuilt on the host
 * at every call (one pass, no device work) and uploaded only when it changed, and the
 * members' counters. Batches are found by the ensemble's member array and freed when the
 * core releases it (cuda_ens_potts_release, from ens_measure with sums NULL).
 *
 * The environment's choices are read once: LATMC_ENS_POTTS_BATCH when the members are made
 * (cuda_sim's ens_one_by_one, cuda_backend.c), ENS_POTTS_SWEEP_ENV when the ensemble's
 * batch is made (its first call), kept in the batch: a process that changes them runs the
 * next ensemble it makes that way.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_exec.h"
#include "ens_batch_list.h"
#include "ens_potts_batch.h"
#include "model.h"
#include "potts.h"
#include "potts_rules.h"

/* "steps": a launch a colour step for every member size, whole sweeps too (measurements:
 * what the whole-sweep launches buy). */
#define ENS_POTTS_SWEEP_ENV "LATMC_ENS_POTTS_SWEEP"
/* Sweeps a launch: bounds one launch's time (a call of many sweeps is several). */
#define ENS_POTTS_SWEEPS_PER_LAUNCH 256

struct potts_batch {
    struct ens_batch_link link; /* first: the list's (key: the ensemble's member array) */
    latmc_sim **members;        /* the members it was built for (pointers compared) */
    int n, device;
    bool one_by_one;            /* the members' LATMC_ENS_POTTS_BATCH=0 (cuda_sim's
                                   ens_one_by_one): no launches, nothing on the device */
    bool steps_only;            /* ENS_POTTS_SWEEP_ENV "steps" when made */
    struct cuda_ens_potts_member *table, *last; /* host: this call's, the one on the device */
    bool uploaded;
    struct cuda_ens_potts_member *dev_table;
    unsigned long long *dev_changed, *changed;  /* a counter a member */
    unsigned long long *dev_sums, *sums;        /* q + 1 a member (made on first use) */
    unsigned logged;                            /* launch kinds logged (log_kind; 16:
                                                   the measurement) */
};

static struct ens_batch_list batches = ENS_BATCH_LIST_INIT;

static void batch_free(struct potts_batch *b)
{
    if (!b)
        return;
    cudaFree(b->dev_table);
    cudaFree(b->dev_changed);
    cudaFree(b->dev_sums);
    free(b->sums);
    free(b->members);
    free(b->table);
    free(b->last);
    free(b->changed);
    free(b);
}

static struct potts_batch *take_batch(latmc_sim *const *key)
{
    return (struct potts_batch *)ens_batch_take(&batches, key);
}

static void put_batch(struct potts_batch *b)
{
    ens_batch_put(&batches, &b->link);
}

void cuda_ens_potts_release(latmc_sim *const *members, int n)
{
    (void)n;
    struct potts_batch *b = take_batch(members);
    if (b) {
        cudaSetDevice(b->device);
        batch_free(b);
    }
}

static bool env_is(const char *name, const char *value)
{
    const char *env = getenv(name);
    return env && strcmp(env, value) == 0;
}

/* The ensemble's batch, made at its first call: the environment's choices read here. */
static struct potts_batch *new_batch(latmc_sim *const *members, int n, int *st)
{
    struct potts_batch *b = calloc(1, sizeof *b);
    if (!b) {
        *st = cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's batch");
        return NULL;
    }
    b->link.key = members;
    b->n = n;
    b->device = cuda_sim_of(members[0])->device;
    b->one_by_one = cuda_sim_of(members[0])->ens_one_by_one;
    b->steps_only = env_is(ENS_POTTS_SWEEP_ENV, "steps");
    b->members = malloc((size_t)n * sizeof *b->members);
    b->table = malloc((size_t)n * sizeof *b->table);
    b->last = malloc((size_t)n * sizeof *b->last);
    b->changed = malloc((size_t)n * sizeof *b->changed);
    *st = b->members && b->table && b->last && b->changed
              ? LATMC_OK
              : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's batch");
    if (*st == LATMC_OK) {
        memcpy(b->members, members, (size_t)n * sizeof *b->members);
    }
    if (*st == LATMC_OK && !b->one_by_one)
        *st = cuda_check(cudaMalloc((void **)&b->dev_table, (size_t)n * sizeof *b->table),
                         "cannot allocate device memory for the members' table");
    if (*st == LATMC_OK && !b->one_by_one)
        *st = cuda_check(cudaMalloc((void **)&b->dev_changed, (size_t)n * sizeof *b->changed),
                         "cannot allocate device memory for the members' counters");
    if (*st < 0) {
        batch_free(b);
        return NULL;
    }
    return b;
}

/* Whether members of this lattice can take whole sweeps in one launch (the batch may still
 * run them a launch a colour step: steps_only). */
static bool whole_sweeps(const latmc_sim *sim)
{
    return cuda_ens_potts_fused_fits(&cuda_sim_of(sim)->lattice);
}

/* The box of a member that is one box alone on the executor (cuda_exec_lone_box), or NULL. */
static struct cuda_box *member_box(const latmc_sim *sim)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    const struct cuda_leaf *leaf = NULL;
    struct cuda_box *b = cs->exec ? cuda_exec_lone_box(cs->exec, &leaf) : NULL;
    return b && leaf->model == LATMC_MODEL_POTTS ? b : NULL;
}

/* The local update's algorithms (the cluster algorithms run their own steps). */
static bool local_algorithm(const latmc_sim *sim)
{
    return sim->desc.algorithm == LATMC_ALGO_METROPOLIS ||
           sim->desc.algorithm == LATMC_ALGO_HEATBATH;
}

/* Can these members run in one launch: Potts, a local algorithm, one device, each one box
 * alone, fewer than 2^31 sites, all at the same sweep (same_sweeps). */
static bool batchable(latmc_sim *const *members, int n, bool same_sweeps)
{
    const latmc_sim *first = members[0];
    if (first->desc.model != LATMC_MODEL_POTTS || !local_algorithm(first) ||
        first->desc.replicas != 1 || first->desc.ndim < 2 || first->desc.ndim > 3 ||
        first->nsites >= ((int64_t)1 << 31))
        return false;
    const int device = cuda_sim_of(first)->device;
    for (int m = 0; m < n; m++) {
        if (!member_box(members[m]) || cuda_sim_of(members[m])->device != device ||
            (same_sweeps && members[m]->sweeps != first->sweeps) ||
            members[m]->desc.algorithm != first->desc.algorithm ||
            members[m]->desc.q != first->desc.q)
            return false;
    }
    return true;
}

/*
 * The batch of these members with this call's table on the device (uploaded on cs0's
 * stream where it changed). NULL with *st set when they cannot run together or on a
 * failure; the caller gives the batch back with put_batch.
 */
static struct potts_batch *ready_batch(latmc_sim *const *members, int n, bool same_sweeps,
                                       int *st)
{
    if (n < 1 || !batchable(members, n, same_sweeps)) {
        *st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these members");
        return NULL;
    }
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    if ((*st = cuda_check(cudaSetDevice(cs0->device), "cudaSetDevice")) < 0)
        return NULL;
    struct potts_batch *b = take_batch(members);
    if (b && (b->n != n || memcmp(b->members, members, (size_t)n * sizeof *members) != 0)) {
        batch_free(b); /* another ensemble's array at the same address */
        b = NULL;
    }
    if (!b && !(b = new_batch(members, n, st)))
        return NULL;
    if (b->one_by_one) { /* kept (the ensemble's choice), nothing launched */
        put_batch(b);
        *st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these members");
        return NULL;
    }
    for (int m = 0; m < n; m++) {
        const latmc_sim *sim = members[m];
        const struct cuda_box *box = member_box(sim); /* batchable: a box alone */
        struct cuda_ens_potts_member *e = &b->table[m];
        memset(e, 0, sizeof *e);
        e->spins = box->data;
        e->tables = box->tables;
        e->seed = sim->desc.seed;
    }
    const size_t table_bytes = (size_t)n * sizeof *b->table;
    int s = LATMC_OK;
    if (!b->uploaded || memcmp(b->table, b->last, table_bytes) != 0) {
        struct cuda_ens_potts_member *t = b->last; /* the old one may still be in flight */
        b->last = b->table;
        b->table = t;
        b->uploaded = false;
        s = cuda_check(cudaMemcpyAsync(b->dev_table, b->last, table_bytes,
                                       cudaMemcpyHostToDevice, cs0->stream),
                       "copying the members' table");
        b->uploaded = s == LATMC_OK;
    }
    *st = s;
    return b;
}

/* The calls a Potts batch takes: colour steps on the whole box, and whole sweeps where the
 * members run them in one launch and the model names the sweeps' steps as the kernel does
 * (lib/model_potts.c, potts_step_of: colour c at phase c, the algorithm's first sub). */
static bool potts_calls_ok(const latmc_sim *first, const struct latmc_step_call *calls,
                           int n_calls, uint32_t *sub)
{
    const int colours = first->model->sweep_schedule(first);
    *sub = 0;
    for (int c = 0; c < n_calls; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_WHOLE && k->step.kind == LATMC_STEP_COLOUR)
            continue;
        if (k->part != LATMC_STEP_SWEEPS || !whole_sweeps(first))
            return false;
        for (int s = 0; s < colours; s++) {
            const struct latmc_step step = first->model->step_of(first, k->sweep, s);
            const struct latmc_rng_name name = latmc_rng_update_name(k->sweep, (uint32_t)s,
                                                                     step.sub);
            if (step.kind != LATMC_STEP_COLOUR || step.colour != s || step.sub != k->step.sub ||
                memcmp(&name, &step.rng, sizeof name) != 0)
                return false;
        }
        *sub = k->step.sub;
    }
    return true;
}

/* Log each kind of launch a batch runs once (debug level: which code the members took; the
 * tests check it). */
static void log_kind(struct potts_batch *b, const latmc_sim *first, int rows, bool fused)
{
    const unsigned kind = 1u << ((rows ? 1 : 0) | (fused ? 2 : 0));
    if (b->logged & kind)
        return;
    b->logged |= kind;
    cuda_core->log(first->ctx, LATMC_LOG_DEBUG, "CUDA ensembles: %d Potts members in batched "
                   "launches, the %s, %s", b->n, rows ? "row kernels' code" : "reference update",
                   fused ? "whole sweeps a launch" : "a launch a colour step");
}

/*
 * A list of the plan's calls for the batch calls[0].members (lib/box.h): each colour step
 * one launch over every member, each LATMC_STEP_SWEEPS call (small members) one launch a
 * stretch of up to ENS_POTTS_SWEEPS_PER_LAUNCH sweeps. LATMC_EUNSUPPORTED with nothing done
 * for other calls or members that cannot run together. The counters are read once.
 */
int cuda_ens_potts_run_steps(const struct latmc_step_call *calls, int n_calls,
                             uint64_t *accepted, uint64_t *attempted)
{
    latmc_sim *const *members = calls[0].members;
    const int n = calls[0].n_members;
    const latmc_sim *first = members[0];
    uint32_t sub = 0;
    if (first->desc.model != LATMC_MODEL_POTTS || !potts_calls_ok(first, calls, n_calls, &sub))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these steps");
    int st = LATMC_OK;
    struct potts_batch *b = ready_batch(members, n, true, &st);
    if (!b)
        return st;
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    const size_t count_bytes = (size_t)n * sizeof *b->changed;
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(b->dev_changed, 0, count_bytes, cs0->stream),
                        "clearing the members' counters");
    struct cuda_ens_potts_run run;
    memset(&run, 0, sizeof run);
    run.algorithm = first->desc.algorithm;
    run.q = first->desc.q;
    run.colours = first->model->sweep_schedule(first);
    run.sub = sub;
    uint64_t tried = 0; /* site updates of each member (one shape) */
    for (int c = 0; c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_SWEEPS && b->steps_only) {
            /* the same steps a launch each, named as the whole-sweep kernel names them */
            run.n_sweeps = 0;
            for (uint64_t s = 0; s < k->n_sweeps && st == LATMC_OK; s++)
                for (int col = 0; col < run.colours && st == LATMC_OK; col++) {
                    run.rng = latmc_rng_update_name(k->sweep + s, (uint32_t)col, sub);
                    run.colour = col;
                    int rows = 0;
                    st = cuda_check(cuda_ens_potts_steps(cs0->stream, &cs0->lattice,
                                                         b->dev_table, n, &run, b->dev_changed,
                                                         &rows),
                                    "launching the members' step");
                    log_kind(b, first, rows, false);
                }
            tried += k->n_sweeps * (uint64_t)first->nsites;
            continue;
        }
        if (k->part == LATMC_STEP_SWEEPS) {
            for (uint64_t done = 0; done < k->n_sweeps && st == LATMC_OK;) {
                const uint64_t left = k->n_sweeps - done;
                run.sweep0 = k->sweep + done;
                run.n_sweeps = left < ENS_POTTS_SWEEPS_PER_LAUNCH ? left
                                                                  : ENS_POTTS_SWEEPS_PER_LAUNCH;
                int rows = 0;
                st = cuda_check(cuda_ens_potts_steps(cs0->stream, &cs0->lattice, b->dev_table,
                                                     n, &run, b->dev_changed, &rows),
                                "launching the members' sweeps");
                log_kind(b, first, rows, true);
                done += run.n_sweeps;
            }
            tried += k->n_sweeps * (uint64_t)first->nsites;
            continue;
        }
        /* a colour step, its draws named by the plan */
        run.n_sweeps = 0;
        run.rng = k->step.rng;
        run.colour = k->step.colour;
        int rows = 0;
        st = cuda_check(cuda_ens_potts_steps(cs0->stream, &cs0->lattice, b->dev_table, n, &run,
                                             b->dev_changed, &rows),
                        "launching the members' step");
        log_kind(b, first, rows, false);
        if (k->step.index == 0) /* as the executor counts a sweep (cuda_exec_run_steps) */
            tried += (uint64_t)first->nsites;
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(b->changed, b->dev_changed, count_bytes,
                                        cudaMemcpyDeviceToHost, cs0->stream),
                        "reading the members' counters");
    /* Waited for even after a failed launch: the launches before it run on the members'
     * bytes, and none may outlive the call (as cuda_ens_heis_run_steps). A failure leaves
     * every member's counts as they were (lib/ens_exec.c). */
    const cudaError_t fin = cudaStreamSynchronize(cs0->stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "sweeping the members");
    if (st == LATMC_OK)
        for (int m = 0; m < n; m++) {
            accepted[m] += b->changed[m];
            attempted[m] += tried;
        }
    put_batch(b);
    return st;
}

/* The batch layout's capabilities for Potts sims (lib/box.h): a box alone, a local
 * algorithm; whole sweeps for members small enough for one block each (whatever the
 * environment: a batch of LATMC_ENS_POTTS_SWEEP=steps runs them a launch a step). */
unsigned cuda_ens_potts_caps(const latmc_sim *sim)
{
    if (sim->desc.model != LATMC_MODEL_POTTS || !local_algorithm(sim) || !member_box(sim))
        return 0u;
    return LATMC_STEP_CAP_BATCH | (whole_sweeps(sim) ? LATMC_STEP_CAP_BATCH_SWEEPS : 0u);
}

/*
 * The ens_measure operation for Potts members: every member's sums in one launch (q + 1
 * counters each read back), spread into struct latmc_potts_sums (the counts of states >= q
 * are 0, as the single-lattice measurement leaves them). LATMC_EUNSUPPORTED, nothing done,
 * where the members do not run as a batch (the core measures them one by one).
 */
int cuda_ens_potts_measure_all(latmc_sim *const *members, int n, void *sums)
{
    int st = LATMC_OK;
    struct potts_batch *b = ready_batch(members, n, false, &st);
    if (!b)
        return st;
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    const int q = members[0]->desc.q;
    const size_t per = (size_t)q + 1, bytes = (size_t)n * per * sizeof *b->sums;
    if (st == LATMC_OK && !b->dev_sums) {
        if (!b->sums) /* kept where the device's allocation failed before */
            b->sums = malloc(bytes);
        st = b->sums ? cuda_check(cudaMalloc((void **)&b->dev_sums, bytes),
                                  "cannot allocate device memory for the members' sums")
                     : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the members' sums");
    }
    if (st == LATMC_OK)
        st = cuda_check(cuda_ens_potts_measure(cs0->stream, &cs0->lattice, b->dev_table, n, q,
                                               b->dev_sums),
                        "launching the members' measurement");
    if (st == LATMC_OK && !(b->logged & 16u)) {
        b->logged |= 16u;
        cuda_core->log(members[0]->ctx, LATMC_LOG_DEBUG, "CUDA ensembles: %d Potts members "
                       "measured in one launch", n);
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(b->sums, b->dev_sums, bytes, cudaMemcpyDeviceToHost,
                                        cs0->stream), "reading the members' sums");
    const cudaError_t fin = cudaStreamSynchronize(cs0->stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "measuring the members");
    for (int m = 0; m < n && st == LATMC_OK; m++) {
        struct latmc_potts_sums *out = (struct latmc_potts_sums *)sums + m;
        const unsigned long long *mine = b->sums + (size_t)m * per;
        memset(out, 0, sizeof *out);
        out->matches = (int64_t)mine[0];
        for (int k = 0; k < q; k++)
            out->count[k] = (int64_t)mine[1 + k];
    }
    put_batch(b);
    return st;
}
