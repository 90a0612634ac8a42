/*
 * The batch driver of the CUDA ensembles (exec/cuda_batch.h): what the Heisenberg, Potts,
 * phi^4 and Swendsen-Wang batches do alike, the model's part through its struct
 * cuda_batch_ops.
 *
 * The members' configurations stay in their own sims' device memory (the model's kernels
 * update them in place, so each sim's state is what its own sweeps would leave). A batch
 * kept from call to call holds the device table of the members, rebuilt on the host at
 * every call (one pass, no device work) and uploaded only when it changed (a tempering
 * swap exchanged members' parameters), and the members' counters. Batches are found by
 * the ensemble's member array (one list for every model: an array holds one model's
 * members) and freed when their first member is destroyed (cuda_batch_release_led).
 *
 * The members' LATMC_ENS_<MODEL>_BATCH=0 (Swendsen-Wang's: LATMC_ENS_SW_BATCH=0;
 * cuda_sim's ens_one_by_one, read when each was made) is asked of every member when the
 * batch is made: one made so runs the ensemble one by one (the batch kept, holding nothing
 * on the device), and the capabilities offer no batch to it.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_exec.h"

static struct cuda_batch_list batches = CUDA_BATCH_LIST_INIT;

static void batch_free(struct cuda_batch *b)
{
    if (!b)
        return;
    if (b->ops->fini)
        b->ops->fini(b);
    cudaFree(b->dev_table);
    cudaFree(b->dev_changed);
    free(b->members);
    free(b->table);
    free(b->last);
    free(b->changed);
    free(b);
}

void cuda_batch_release_led(const latmc_sim *lead)
{
    struct cuda_batch *b;
    while ((b = (struct cuda_batch *)cuda_batch_list_take_led(&batches, lead))) {
        cudaSetDevice(b->device);
        batch_free(b);
    }
}

struct cuda_box *cuda_batch_lone_box(const latmc_sim *sim, const struct cuda_leaf **leaf)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    *leaf = NULL;
    return cs && cs->exec ? cuda_exec_lone_box(cs->exec, leaf) : NULL;
}

struct cuda_box *cuda_batch_member_box(const latmc_sim *sim, int model)
{
    const struct cuda_leaf *leaf;
    struct cuda_box *b = cuda_batch_lone_box(sim, &leaf);
    return b && leaf->model == model ? b : NULL;
}

const struct latmc_lattice *cuda_batch_lattice_of(const latmc_sim *sim)
{
    return &cuda_sim_of(sim)->lattice;
}

int cuda_batch_device_of(const latmc_sim *sim)
{
    return cuda_sim_of(sim)->device;
}

cudaStream_t cuda_batch_stream_of(const latmc_sim *sim)
{
    return cuda_sim_of(sim)->stream;
}

struct cuda_lead_state **cuda_batch_lead_slot(const latmc_sim *lead)
{
    return &cuda_sim_of(lead)->ens_batch;
}

int cuda_batch_member_couplings(const latmc_sim *sim, float *buf)
{
    return cuda_exec_get_couplings(sim, cuda_sim_of(sim)->exec, buf);
}

int cuda_batch_swap_tables(const latmc_sim *a, const latmc_sim *b)
{
    return cuda_exec_swap_tables(a, cuda_sim_of(a)->exec, b, cuda_sim_of(b)->exec);
}

static int no_room(void)
{
    return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's batch");
}

/* A member made with LATMC_ENS_<MODEL>_BATCH=0 (Swendsen-Wang's: LATMC_ENS_SW_BATCH=0;
 * cuda_ens_batch_declined, read when the member was made). */
static bool one_by_one(const latmc_sim *sim)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    return cs && cs->ens_one_by_one;
}

/* The ensemble's batch, made at its first call (on the members' device); one of a member
 * made to run one by one holds nothing on the device. */
static struct cuda_batch *new_batch(const struct cuda_batch_ops *ops, latmc_sim *const *members,
                                    int n, int *st)
{
    struct cuda_batch *b = calloc(1, ops->batch_bytes);
    if (!b) {
        *st = no_room();
        return NULL;
    }
    b->link.key = members;
    b->link.lead = members[0];
    b->ops = ops;
    b->n = n;
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    b->device = cs0->device;
    b->stream = cs0->stream;
    b->lattice = &cs0->lattice;
    b->members = malloc((size_t)n * sizeof *b->members);
    b->table = malloc((size_t)n * ops->entry_bytes);
    b->last = malloc((size_t)n * ops->entry_bytes);
    const size_t counters = (size_t)n * (ops->counts_attempted ? 2u : 1u);
    if (ops->counts)
        b->changed = malloc(counters * sizeof *b->changed);
    *st = b->members && b->table && b->last && (b->changed || !ops->counts) ? LATMC_OK
                                                                          : no_room();
    if (*st == LATMC_OK)
        memcpy(b->members, members, (size_t)n * sizeof *b->members);
    for (int m = 0; m < n && *st == LATMC_OK && !b->one_by_one; m++)
        b->one_by_one = one_by_one(members[m]);
    /* the model's part first: one that declines the members (Heisenberg's spins past a
     * block's shared memory, choose_geometry) does so at every call, and a cudaFree of the
     * table here would wait for the whole device each time */
    if (*st == LATMC_OK && !b->one_by_one && ops->init)
        *st = ops->init(b);
    if (*st == LATMC_OK && !b->one_by_one)
        *st = cuda_check(cudaMalloc(&b->dev_table, (size_t)n * ops->entry_bytes),
                         "cannot allocate device memory for the members' table");
    if (*st == LATMC_OK && !b->one_by_one && ops->counts)
        *st = cuda_check(cudaMalloc((void **)&b->dev_changed, counters * sizeof *b->changed),
                         "cannot allocate device memory for the members' counters");
    if (*st < 0) {
        batch_free(b);
        return NULL;
    }
    return b;
}

/* Whether the model takes whole sweeps a launch for sim's lattice (ops->whole_sweeps). */
static bool whole_sweeps(const struct cuda_batch_ops *ops, const latmc_sim *sim)
{
    return ops->whole_sweeps && ops->whole_sweeps(sim);
}

unsigned cuda_batch_caps(const struct cuda_batch_ops *ops, const latmc_sim *sim)
{
    if (sim->desc.model != ops->model || !ops->member_ok(sim) || one_by_one(sim))
        return 0u;
    return LATMC_STEP_CAP_BATCH | (whole_sweeps(ops, sim) ? LATMC_STEP_CAP_BATCH_SWEEPS : 0u);
}

/* Can these members run in one launch: member 0 one the model takes, every member a box
 * alone of the model on its device, one chain (same_chain), all at the same sweep
 * (same_sweeps). (Whether one was made to run one by one is asked once, new_batch: the pass
 * here runs at every call and reads no more of a member than its entry does.) */
static bool batchable(const struct cuda_batch_ops *ops, latmc_sim *const *members, int n,
                      bool same_sweeps)
{
    const latmc_sim *first = members[0];
    if (first->desc.model != ops->model || !ops->member_ok(first))
        return false;
    const int device = cuda_sim_of(first)->device;
    for (int m = 0; m < n; m++) {
        const latmc_sim *sim = members[m];
        if (!cuda_batch_member_box(sim, ops->model) || cuda_sim_of(sim)->device != device ||
            (same_sweeps && sim->sweeps != first->sweeps) ||
            sim->desc.algorithm != first->desc.algorithm || !ops->same_chain(first, sim))
            return false;
    }
    return true;
}

void cuda_batch_put_back(struct cuda_batch *b)
{
    cuda_batch_list_put(&batches, &b->link);
}

void cuda_batch_table_moved(latmc_sim *const *members)
{
    struct cuda_batch *b = (struct cuda_batch *)cuda_batch_list_take(&batches, members);
    if (!b)
        return;
    b->uploaded = false;
    cuda_batch_put_back(b);
}

struct cuda_batch *cuda_batch_ready(const struct cuda_batch_ops *ops, latmc_sim *const *members,
                                    int n, bool same_sweeps, int *st)
{
    if (n < 1 || !batchable(ops, members, n, same_sweeps)) {
        *st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these members");
        return NULL;
    }
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    if ((*st = cuda_check(cudaSetDevice(cs0->device), "cudaSetDevice")) < 0)
        return NULL;
    struct cuda_batch *b = (struct cuda_batch *)cuda_batch_list_take(&batches, members);
    if (b && (b->ops != ops || b->n != n ||
              memcmp(b->members, members, (size_t)n * sizeof *members) != 0)) {
        batch_free(b); /* another ensemble's array at the same address */
        b = NULL;
    }
    if (!b && !(b = new_batch(ops, members, n, st)))
        return NULL;
    if (b->one_by_one) { /* kept (the ensemble's choice), nothing launched */
        cuda_batch_put_back(b);
        *st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these members");
        return NULL;
    }
    const size_t table_bytes = (size_t)n * ops->entry_bytes;
    memset(b->table, 0, table_bytes); /* the padding too: tables are compared by their bytes */
    for (int m = 0; m < n; m++)
        ops->entry(b, m, (char *)b->table + (size_t)m * ops->entry_bytes);
    int s = LATMC_OK;
    if (!b->uploaded || memcmp(b->table, b->last, table_bytes) != 0) {
        void *t = b->last; /* the old one may still be in flight */
        b->last = b->table;
        b->table = t;
        b->uploaded = false;
        s = cuda_check(cudaMemcpyAsync(b->dev_table, b->last, table_bytes,
                                       cudaMemcpyHostToDevice, cs0->stream),
                       "copying the members' table");
        b->uploaded = s == LATMC_OK;
        b->uploads++;
    }
    *st = s;
    return b;
}

/* The calls a batch takes: steps and, where the members take them, whole sweeps, each as
 * the model says. */
static bool calls_ok(const struct cuda_batch_ops *ops, const latmc_sim *first,
                     const struct latmc_step_call *calls, int n_calls)
{
    for (int c = 0; c < n_calls; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part != LATMC_STEP_WHOLE &&
            (k->part != LATMC_STEP_SWEEPS || !whole_sweeps(ops, first)))
            return false;
        if (!ops->call_ok(first, k))
            return false;
    }
    return true;
}

void cuda_batch_log_kind(struct cuda_batch *b, int kind)
{
    const unsigned bit = 1u << kind;
    if (b->logged & bit)
        return;
    b->logged |= bit;
    cuda_core->log(b->members[0]->ctx, LATMC_LOG_DEBUG, "CUDA ensembles: %d %s members in "
                   "batched launches, the %s, %s", b->n, b->ops->name, b->ops->codes[kind & 1],
                   kind & CUDA_BATCH_FUSED ? "whole sweeps a launch" : b->ops->step_launch);
}

void cuda_batch_log_measure(struct cuda_batch *b)
{
    if (b->logged & 16u)
        return;
    b->logged |= 16u;
    cuda_core->log(b->members[0]->ctx, LATMC_LOG_DEBUG, "CUDA ensembles: %d %s members "
                   "measured %s", b->n, b->ops->name, b->ops->measure_launches);
}

int cuda_batch_run_steps(const struct cuda_batch_ops *ops, const struct latmc_step_call *calls,
                         int n_calls, uint64_t *accepted, uint64_t *attempted)
{
    latmc_sim *const *members = calls[0].members;
    const int n = calls[0].n_members;
    const latmc_sim *first = members[0];
    if (first->desc.model != ops->model || !ops->member_ok(first) ||
        !calls_ok(ops, first, calls, n_calls))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these steps");
    int st = LATMC_OK;
    struct cuda_batch *b = cuda_batch_ready(ops, members, n, true, &st);
    if (!b)
        return st;
    const cudaStream_t stream = b->stream;
    const size_t count_bytes =
        (size_t)n * (ops->counts_attempted ? 2u : 1u) * sizeof *b->changed;
    if (st == LATMC_OK && ops->counts)
        st = cuda_check(cudaMemsetAsync(b->dev_changed, 0, count_bytes, stream),
                        "clearing the members' counters");
    const uint64_t per_sweep = ops->per_sweep(first);
    const uint64_t most = whole_sweeps(ops, first) ? ops->sweeps_per_launch(first) : 0;
    uint64_t tried = 0; /* updates attempted on each member (one shape) */
    for (int c = 0; c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *k = &calls[c];
        int kind = 0;
        if (k->part == LATMC_STEP_SWEEPS) {
            for (uint64_t done = 0; done < k->n_sweeps && st == LATMC_OK;) {
                const uint64_t left = k->n_sweeps - done, count = left < most ? left : most;
                st = cuda_check(ops->sweeps(b, k, k->sweep + done, count, &kind),
                                "launching the members' sweeps");
                if (st == LATMC_OK)
                    cuda_batch_log_kind(b, kind);
                done += count;
            }
            tried += k->n_sweeps * per_sweep;
            continue;
        }
        st = cuda_check(ops->step(b, k, &kind), "launching the members' step");
        if (st == LATMC_OK)
            cuda_batch_log_kind(b, kind);
        if (k->step.index == 0) /* as the executor counts a sweep (cuda_exec_run_steps) */
            tried += per_sweep;
    }
    if (st == LATMC_OK && ops->counts)
        st = cuda_check(cudaMemcpyAsync(b->changed, b->dev_changed, count_bytes,
                                        cudaMemcpyDeviceToHost, stream),
                        "reading the members' counters");
    /* Waited for even after a failed launch: the launches before it run on the members'
     * memory, and none may outlive the call. A failure leaves every member's counts as
     * they were (lib/ens_exec.c), all members alike: each launch covers every member. */
    const cudaError_t fin = cudaStreamSynchronize(stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "sweeping the members");
    if (st == LATMC_OK)
        for (int m = 0; m < n; m++) {
            accepted[m] += ops->counts ? b->changed[m] : tried;
            attempted[m] += ops->counts && ops->counts_attempted ? b->changed[n + m] : tried;
        }
    cuda_batch_put_back(b);
    return st;
}

int cuda_batch_measure(const struct cuda_batch_ops *ops, latmc_sim *const *members, int n,
                       void *sums)
{
    if (!ops->measure)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched measure for these members");
    int st = LATMC_OK;
    struct cuda_batch *b = cuda_batch_ready(ops, members, n, false, &st);
    if (!b)
        return st;
    if (st == LATMC_OK)
        st = ops->measure(b, sums);
    if (st == LATMC_OK)
        cuda_batch_log_measure(b);
    const cudaError_t fin = cudaStreamSynchronize(b->stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "measuring the members");
    if (st == LATMC_OK && ops->measured)
        ops->measured(b, sums);
    cuda_batch_put_back(b);
    return st;
}

int cuda_batch_check_count(unsigned long long *dev_diffs, cudaStream_t stream, int status,
                           const char *env, const char *what)
{
    unsigned long long diffs = 0;
    int st = status;
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpy(&diffs, dev_diffs, sizeof diffs, cudaMemcpyDeviceToHost),
                        "reading a check's count of differences");
    if (st < 0 || diffs != 0) /* a failure of its own stands: the list's is the one told */
        (void)cudaMemsetAsync(dev_diffs, 0, sizeof diffs, stream);
    if (st == LATMC_OK && diffs != 0)
        st = cuda_core->fail(LATMC_EDEVICE, "CUDA: %s=check: %llu of %s", env, diffs, what);
    return st;
}
