/*
 * phi^4 members of an ensemble in one launch: the host side of ens_phi4_kernels.cu
 * (doc/ensembles.md, "Execution").
 *
 * The members' fields stay in their own sims' device memory (the kernels update them in
 * place, so each sim's state is what its own sweeps would leave); each runs by its own
 * plan (phi4/cuda_phi4_plan.c: the members of one batch must have the same one, which they
 * do unless the environment changed between their creations). A batch kept from call to
 * call holds the device table of the members (field, coefficients, round keys), rebuilt on
 * the host at every call from the members' model data (a tempering swap exchanges those:
 * lib/ens_exchange.c) and uploaded only when it changed, the members' counters and the
 * measurement's scratch. Batches are found by the ensemble's member array and freed when
 * the core releases it (cuda_ens_phi4_release, from ens_measure with sums NULL).
 *
 * LATMC_ENS_PHI4_BATCH=0 when the members are made (cuda_sim's ens_one_by_one,
 * cuda_backend.c) runs them one by one (the tests' reference).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_exec.h"
#include "cuda_phi4_plan.h"
#include "ens_batch_list.h"
#include "ens_phi4_batch.h"
#include "model.h"

#define NSUMS 5 /* struct latmc_phi4_sums */
/* Sweeps a launch: bounds one launch's time (a call of many sweeps is several). */
#define ENS_PHI4_SWEEPS_PER_LAUNCH 64

struct phi4_batch {
    struct ens_batch_link link; /* first: the list's (key: the ensemble's member array) */
    latmc_sim **members;        /* the members it was built for (pointers compared) */
    int n, device;
    bool one_by_one;            /* the members' LATMC_ENS_PHI4_BATCH=0: nothing launched */
    bool prepared;              /* cuda_ens_phi4_prepare done */
    struct cuda_ens_phi4_member *table, *last; /* host: this call's, the one on the device */
    bool uploaded;
    struct cuda_ens_phi4_member *dev_table;
    unsigned long long *dev_changed, *changed; /* a counter a member */
    double *dev_partials;                      /* 5 doubles a row a member (made on first use) */
    struct latmc_phi4_sums *dev_sums;          /* a member each */
    unsigned logged;                           /* launch kinds logged (log_kind; 16: the
                                                  measurement) */
};

static struct ens_batch_list batches = ENS_BATCH_LIST_INIT;

static void batch_free(struct phi4_batch *b)
{
    if (!b)
        return;
    cudaFree(b->dev_table);
    cudaFree(b->dev_changed);
    cudaFree(b->dev_partials);
    cudaFree(b->dev_sums);
    free(b->members);
    free(b->table);
    free(b->last);
    free(b->changed);
    free(b);
}

void cuda_ens_phi4_release(latmc_sim *const *members, int n)
{
    (void)n;
    struct phi4_batch *b = (struct phi4_batch *)ens_batch_take(&batches, members);
    if (b) {
        cudaSetDevice(b->device);
        batch_free(b);
    }
}

static void put_batch(struct phi4_batch *b)
{
    ens_batch_put(&batches, &b->link);
}

/* The ensemble's batch, made at its first call. */
static struct phi4_batch *new_batch(latmc_sim *const *members, int n, int *st)
{
    struct phi4_batch *b = calloc(1, sizeof *b);
    if (!b) {
        *st = cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's batch");
        return NULL;
    }
    b->link.key = members;
    b->n = n;
    b->device = cuda_sim_of(members[0])->device;
    b->one_by_one = cuda_sim_of(members[0])->ens_one_by_one;
    b->members = malloc((size_t)n * sizeof *b->members);
    b->table = malloc((size_t)n * sizeof *b->table);
    b->last = malloc((size_t)n * sizeof *b->last);
    b->changed = malloc((size_t)n * sizeof *b->changed);
    *st = b->members && b->table && b->last && b->changed
              ? LATMC_OK
              : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's batch");
    if (*st == LATMC_OK)
        memcpy(b->members, members, (size_t)n * sizeof *b->members);
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

/* The box of a phi^4 member that is one box alone on the executor, or NULL. */
static struct cuda_box *member_box(const latmc_sim *sim)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    const struct cuda_leaf *leaf = NULL;
    struct cuda_box *b = cs && cs->exec ? cuda_exec_lone_box(cs->exec, &leaf) : NULL;
    return b && leaf->model == LATMC_MODEL_PHI4 ? b : NULL;
}

static const struct cuda_phi4_plan *plan_of(const latmc_sim *sim)
{
    return cuda_phi4_box_plan(member_box(sim));
}

static const struct latmc_phi4_tables *tables_of(const latmc_sim *sim)
{
    return sim->model_data;
}

/* The chunk kernel's shared memory fits beside the batch's round keys (a shape of
 * LATMC_CUDA_PHI4_CHUNK at the device's limit does not: those members run one by one). */
static bool shared_fits(const struct cuda_phi4_plan *p, int device)
{
    int limit = 0;
    return p->schedule != CUDA_PHI4_CHUNKS ||
           (cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) ==
                cudaSuccess &&
            p->smem_bytes + sizeof(struct cuda_phi4_keys) <= (size_t)limit);
}

/* Can these members run in one launch: phi^4 Metropolis, one device, each one box alone,
 * one plan, one nhit and nloc, all at the same sweep (same_sweeps). */
static bool batchable(latmc_sim *const *members, int n, bool same_sweeps)
{
    const latmc_sim *first = members[0];
    if (first->desc.model != LATMC_MODEL_PHI4 ||
        first->desc.algorithm != LATMC_ALGO_METROPOLIS || !member_box(first))
        return false;
    const int device = cuda_sim_of(first)->device;
    const struct cuda_phi4_plan *p0 = plan_of(first);
    const struct latmc_phi4_tables *t0 = tables_of(first);
    for (int m = 0; m < n; m++) {
        const latmc_sim *sim = members[m];
        if (!member_box(sim) || cuda_sim_of(sim)->device != device ||
            (same_sweeps && sim->sweeps != first->sweeps) ||
            sim->desc.algorithm != first->desc.algorithm ||
            memcmp(plan_of(sim), p0, sizeof *p0) != 0 || tables_of(sim)->nhit != t0->nhit ||
            tables_of(sim)->nloc != t0->nloc)
            return false;
    }
    return true;
}

/*
 * The batch of these members with this call's table on the device (uploaded on cs0's
 * stream where it changed). NULL with *st set when they cannot run together or on a
 * failure; the caller gives the batch back with put_batch.
 */
static struct phi4_batch *ready_batch(latmc_sim *const *members, int n, bool same_sweeps,
                                      int *st)
{
    if (n < 1 || !batchable(members, n, same_sweeps)) {
        *st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these members");
        return NULL;
    }
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    if ((*st = cuda_check(cudaSetDevice(cs0->device), "cudaSetDevice")) < 0)
        return NULL;
    struct phi4_batch *b = (struct phi4_batch *)ens_batch_take(&batches, members);
    if (b && (b->n != n || memcmp(b->members, members, (size_t)n * sizeof *members) != 0)) {
        batch_free(b); /* another ensemble's array at the same address */
        b = NULL;
    }
    if (!b && !(b = new_batch(members, n, st)))
        return NULL;
    const struct cuda_phi4_plan *plan = plan_of(members[0]);
    if (b->one_by_one || !shared_fits(plan, cs0->device)) {
        put_batch(b);
        *st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these members");
        return NULL;
    }
    if (!b->prepared) {
        *st = cuda_check(cuda_ens_phi4_prepare(plan), "setting the phi^4 batch's shared memory");
        if (*st < 0) {
            put_batch(b);
            return NULL;
        }
        b->prepared = true;
    }
    for (int m = 0; m < n; m++) {
        const latmc_sim *sim = members[m];
        const struct latmc_phi4_tables *t = tables_of(sim);
        struct cuda_ens_phi4_member *e = &b->table[m];
        memset(e, 0, sizeof *e);
        e->phi = member_box(sim)->data;
        e->f = t->f;
        e->d = t->d;
        cuda_phi4_keys_of(sim->desc.seed, &e->keys);
    }
    const size_t table_bytes = (size_t)n * sizeof *b->table;
    int s = LATMC_OK;
    if (!b->uploaded || memcmp(b->table, b->last, table_bytes) != 0) {
        struct cuda_ens_phi4_member *t = b->last; /* the old one may still be in flight */
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

/* The calls a phi^4 batch takes: the chunk schedule's own steps, the site order's colour
 * steps, and whole sweeps where the members run them in one launch and the model names
 * the sweeps' steps as the kernel does (lib/model_phi4.c, phi4_step_of). */
static bool phi4_calls_ok(const latmc_sim *first, const struct latmc_step_call *calls,
                          int n_calls)
{
    const struct cuda_phi4_plan *p = plan_of(first);
    const bool chunks = p->schedule == CUDA_PHI4_CHUNKS;
    const uint32_t nloc = tables_of(first)->nloc;
    for (int c = 0; c < n_calls; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_WHOLE) {
            if (chunks ? k->step.kind != LATMC_STEP_OWN || k->step.index < 0 || k->step.index > 1
                       : k->step.kind != LATMC_STEP_COLOUR)
                return false;
            continue;
        }
        if (k->part != LATMC_STEP_SWEEPS ||
            !cuda_ens_phi4_fused_fits(p, &cuda_sim_of(first)->lattice))
            return false;
        const int steps = first->model->sweep_schedule(first);
        for (int s = 0; s < steps; s++) {
            const struct latmc_step step = first->model->step_of(first, k->sweep, s);
            const int pass = s / p->ncolours, colour = s % p->ncolours;
            const struct latmc_rng_name name =
                latmc_phi4_rng_name(k->sweep, nloc, (uint32_t)pass, colour);
            if (step.kind != LATMC_STEP_COLOUR || step.colour != colour ||
                memcmp(&name, &step.rng, sizeof name) != 0)
                return false;
        }
    }
    return true;
}

/* Log each kind of launch a batch runs once (debug level: which code the members took; the
 * tests check it). */
static void log_kind(struct phi4_batch *b, const latmc_sim *first, bool chunks, bool fused)
{
    const unsigned kind = 1u << ((chunks ? 1 : 0) | (fused ? 2 : 0));
    if (b->logged & kind)
        return;
    b->logged |= kind;
    cuda_core->log(first->ctx, LATMC_LOG_DEBUG, "CUDA ensembles: %d phi^4 members in batched "
                   "launches, the %s, %s", b->n, chunks ? "chunk schedule" : "site order",
                   fused ? "whole sweeps a launch" : "a launch a step");
}

/*
 * A list of the plan's calls for the batch calls[0].members (lib/box.h): each chunk step
 * one launch a sub-grid over every member, each colour step one launch, each
 * LATMC_STEP_SWEEPS call (small site-order members) one launch a stretch of up to
 * ENS_PHI4_SWEEPS_PER_LAUNCH sweeps. LATMC_EUNSUPPORTED with nothing done for other calls or
 * members that cannot run together. The counters are read once.
 */
int cuda_ens_phi4_run_steps(const struct latmc_step_call *calls, int n_calls,
                            uint64_t *accepted, uint64_t *attempted)
{
    latmc_sim *const *members = calls[0].members;
    const int n = calls[0].n_members;
    const latmc_sim *first = members[0];
    if (first->desc.model != LATMC_MODEL_PHI4 || !member_box(first) ||
        !phi4_calls_ok(first, calls, n_calls))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these steps");
    int st = LATMC_OK;
    struct phi4_batch *b = ready_batch(members, n, true, &st);
    if (!b)
        return st;
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    const struct cuda_phi4_plan *plan = plan_of(first);
    const struct latmc_phi4_tables *t0 = tables_of(first);
    const bool chunks = plan->schedule == CUDA_PHI4_CHUNKS;
    const size_t count_bytes = (size_t)n * sizeof *b->changed;
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(b->dev_changed, 0, count_bytes, cs0->stream),
                        "clearing the members' counters");
    struct cuda_ens_phi4_run run;
    memset(&run, 0, sizeof run);
    run.nhit = t0->nhit;
    run.nloc = t0->nloc;
    /* the executor's count: every hit of every site, once a sweep (phi4_attempted) */
    const uint64_t per_sweep = (uint64_t)first->nsites * t0->nloc * t0->nhit;
    uint64_t tried = 0;
    for (int c = 0; c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_SWEEPS) {
            for (uint64_t done = 0; done < k->n_sweeps && st == LATMC_OK;) {
                const uint64_t left = k->n_sweeps - done;
                run.sweep0 = k->sweep + done;
                run.n_sweeps = left < ENS_PHI4_SWEEPS_PER_LAUNCH ? left
                                                                 : ENS_PHI4_SWEEPS_PER_LAUNCH;
                st = cuda_check(cuda_ens_phi4_steps(cs0->stream, plan, &cs0->lattice,
                                                    b->dev_table, n, &run, b->dev_changed),
                                "launching the members' sweeps");
                log_kind(b, first, false, true);
                done += run.n_sweeps;
            }
            tried += k->n_sweeps * per_sweep;
            continue;
        }
        run.n_sweeps = 0;
        if (chunks) { /* the sub-grids of cut parity step.index, in the one-device order */
            const int nsub = 1 << (plan->ndim - 1);
            run.sweep = k->sweep;
            for (int s = 0; s < nsub && st == LATMC_OK; s++) {
                run.sub = nsub * k->step.index + s;
                st = cuda_check(cuda_ens_phi4_steps(cs0->stream, plan, &cs0->lattice,
                                                    b->dev_table, n, &run, b->dev_changed),
                                "launching the members' step");
            }
        } else {
            run.rng = k->step.rng;
            run.colour = k->step.colour;
            st = cuda_check(cuda_ens_phi4_steps(cs0->stream, plan, &cs0->lattice, b->dev_table,
                                                n, &run, b->dev_changed),
                            "launching the members' step");
        }
        log_kind(b, first, chunks, false);
        if (k->step.index == 0) /* as the executor counts a sweep (cuda_exec_run_steps) */
            tried += per_sweep;
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(b->changed, b->dev_changed, count_bytes,
                                        cudaMemcpyDeviceToHost, cs0->stream),
                        "reading the members' counters");
    /* Waited for even after a failed launch: the launches before it run on the members'
     * fields, and none may outlive the call (as cuda_ens_potts_run_steps). A failure leaves
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

/* The batch layout's capabilities for phi^4 sims (lib/box.h): a box alone, Metropolis;
 * whole sweeps for small site-order members (one block each). */
unsigned cuda_ens_phi4_caps(const latmc_sim *sim)
{
    if (sim->desc.model != LATMC_MODEL_PHI4 || sim->desc.algorithm != LATMC_ALGO_METROPOLIS ||
        !member_box(sim))
        return 0u;
    return LATMC_STEP_CAP_BATCH |
           (cuda_ens_phi4_fused_fits(plan_of(sim), &cuda_sim_of(sim)->lattice)
                ? LATMC_STEP_CAP_BATCH_SWEEPS
                : 0u);
}

/*
 * The ens_measure operation for phi^4 members: every member's sums in two launches (its
 * rows, then one block a member adding them in the single lattice's order), read back as
 * struct latmc_phi4_sums each. LATMC_EUNSUPPORTED, nothing done, where the members do not
 * run as a batch (the core measures them one by one).
 */
int cuda_ens_phi4_measure_all(latmc_sim *const *members, int n, void *sums)
{
    int st = LATMC_OK;
    struct phi4_batch *b = ready_batch(members, n, false, &st);
    if (!b)
        return st;
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    const int64_t rows = cs0->lattice.ly * cs0->lattice.lz;
    if (st == LATMC_OK && !b->dev_sums) {
        st = cuda_check(cudaMalloc((void **)&b->dev_partials,
                                   (size_t)n * (size_t)rows * NSUMS * sizeof(double)),
                        "cannot allocate device memory for the members' row sums");
        if (st == LATMC_OK)
            st = cuda_check(cudaMalloc((void **)&b->dev_sums,
                                       (size_t)n * sizeof(struct latmc_phi4_sums)),
                            "cannot allocate device memory for the members' sums");
        if (st < 0) { /* made again at the next call */
            cudaFree(b->dev_partials);
            cudaFree(b->dev_sums);
            b->dev_partials = NULL;
            b->dev_sums = NULL;
        }
    }
    if (st == LATMC_OK)
        st = cuda_check(cuda_ens_phi4_measure(cs0->stream, plan_of(members[0]), &cs0->lattice,
                                              b->dev_table, n, b->dev_partials, b->dev_sums),
                        "launching the members' measurement");
    if (st == LATMC_OK && !(b->logged & 16u)) {
        b->logged |= 16u;
        cuda_core->log(members[0]->ctx, LATMC_LOG_DEBUG, "CUDA ensembles: %d phi^4 members "
                       "measured in one launch", n);
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(sums, b->dev_sums,
                                        (size_t)n * sizeof(struct latmc_phi4_sums),
                                        cudaMemcpyDeviceToHost, cs0->stream),
                        "reading the members' sums");
    const cudaError_t fin = cudaStreamSynchronize(cs0->stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "measuring the members");
    put_batch(b);
    return st;
}
