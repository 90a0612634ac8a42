/*
 * Ising members of an ensemble as one batch (doc/ensembles.md "Execution"): the batch layout's
 * list of the plan's calls (ising_batch_run_steps, from ens_batch_steps.c: one launch per
 * colour step for all members; where the plan hands whole sweeps, for small members every
 * colour of up to 1024 sweeps a launch, the fused kernel, else a launch a colour), the
 * batch's requests (LATMC_STEP_MEASURE, every member's sums in one launch;
 * LATMC_STEP_OVERLAPS; a pair's move of LATMC_STEP_SWAP_PARAMS, a tempering swap without
 * device copies) for Ising members (ens_batch_steps.c routes them here: cuda_ising_batch_of).
 * The other models' batches are their leaf folders' (heisenberg/cuda_heisenberg_batch.c,
 * potts/cuda_potts_batch.c, phi4/cuda_phi4_batch.c, clusters/cuda_sw_batch.c).
 *
 * The members' own state stays theirs. Where every member can run the multi-spin coded kernel
 * (ising_batch_packed_kernels.cu: L_x a multiple of 16, thresholds that fit 32 bits) it runs on
 * the members' own packed arrays (packed first where only their bytes held the configuration),
 * which then hold it and their bytes are stale, as after a packed sweep of the sim itself: the
 * configuration stays packed on the device from call to call, and bytes are made only when a
 * member's spins or observables are read. Otherwise the byte kernel
 * (ising_batch_bytes_kernels.cu) runs on their bytes (unpacked first where needed) and their
 * packed copies are marked stale. The launches go on member 0's stream; the streams of members
 * that needed a pack or an unpack are drained before, and the batch's after, so the ensemble
 * returns with nothing in flight, as every operation of the module does.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_ising_leaf.h"
#include "ising_batch.h"
#include "ising_rules.h" /* latmc_ising_rng_name */
#include "model.h"

/*
 * The members' state, read through their leaf's accessors (ising/cuda_ising_leaf.h): each
 * Ising member is a sim of one box alone on the executor (cuda_batch_lone_box) on one of
 * the local updates' leaves. NULL for any other member: a Swendsen-Wang or Wolff member
 * (clusters/cuda_sw_leaf.c) keeps labels and bonds beside its spins and runs its own steps,
 * so the batches never take it, whatever the core asks (lib/ens_internal.h's
 * ens_batch_ops keeps such ensembles off the batched ops too).
 */
static struct cuda_box *member_box(const latmc_sim *sim, const struct cuda_leaf **leaf)
{
    struct cuda_box *b = cuda_batch_lone_box(sim, leaf);
    return b && (*leaf == &cuda_ising_packed_leaf || *leaf == &cuda_ising_bytes_leaf) ? b
                                                                                     : NULL;
}

/* Member sim's entry of the packed table (its packed arrays made current), or false with
 * nothing done where it cannot run the packed kernel. */
static bool member_packed(const latmc_sim *sim, struct cuda_ens_packed_member *out,
                          bool *enqueued, cudaError_t *err)
{
    const struct cuda_leaf *leaf;
    struct cuda_box *b = member_box(sim, &leaf);
    struct cuda_ising_member m;
    *enqueued = false;
    *err = cudaSuccess;
    if (!b || !cuda_ising_member_packed(leaf, sim, b, &m, enqueued, err))
        return false;
    for (int c = 0; c < 2; c++) {
        out->colour[c] = m.colour[c];
        out->eps[c] = m.eps_packed[c];
    }
    out->thr = m.thr;
    out->seed = sim->desc.seed;
    return true;
}

/* Member sim's entry of the byte table (its bytes made current). */
static cudaError_t member_bytes(const latmc_sim *sim, struct cuda_ens_ising_member *out,
                                bool *enqueued)
{
    const struct cuda_leaf *leaf;
    struct cuda_box *b = member_box(sim, &leaf);
    struct cuda_ising_member m;
    *enqueued = false;
    if (!b) /* batchable() admits boxes alone only */
        return cudaErrorInvalidValue;
    const cudaError_t err = cuda_ising_member_bytes(leaf, sim, b, &m, enqueued);
    out->spins = m.spins;
    out->eps = m.eps;
    out->tables = m.tables;
    out->seed = sim->desc.seed;
    return err;
}

/*
 * What an ensemble keeps between its batched sweeps (owned by its member 0's sim):
 * the device table of the members and their counters, and the host copy of the table last
 * uploaded. A call uploads the table only when it changed (a new beta, another kernel),
 * and allocates only when it grew: cudaMalloc and cudaFree synchronise the device, and
 * with the upload of thousands of members they once cost more than 20 sweeps of
 * 4096 x 16^3.
 */
struct cuda_ens_batch {
    struct cuda_lead_state lead; /* first: the lead sim's slot holds it (its free) */
    /* its lead's (member 0's) device, stream and stored lattice: the launches' */
    int device;
    cudaStream_t stream;
    const struct latmc_lattice *lattice;
    void *dev;           /* table, then the counters */
    size_t cap;          /* bytes of dev */
    void *last;          /* the table on the device (host copy) */
    size_t last_bytes;   /* its size; 0: nothing valid on the device */
    void *host;          /* the host side of a call (tables, counters, flags) */
    size_t host_cap;
    void *pinned;        /* page-locked: the counters or sums read back after a launch (a
                            copy into pageable memory is staged through a driver buffer) */
    size_t pinned_cap;
    /* The members prepared by the last batched sweep and cuda_ising_state_epoch() after
     * it: while no Ising state was touched since, the members are still prepared and the
     * table on the device is theirs (no pass over thousands of members per call). */
    latmc_sim *const *members;
    int n, coupled;
    bool use_packed, prepared;
    uint64_t epoch;
    /* Tempering swaps (ising_batch_swap_params) patch the swapped members' entries of the
     * host copy `last` (dirty: not yet on the device) and keep the batch prepared, instead
     * of a pass over every member at the next call: the members' indices by sim
     * (open addressing, hcap a power of two >= 2 n), built with the first prepared call. */
    latmc_sim **hkeys;
    int *hidx;
    size_t hcap;
    latmc_sim *const *hmembers; /* the member array the map was built for */
    bool dirty;
    struct cuda_ens_batch *next_live; /* every live batch (swaps look them up) */
    /* The overlaps (LATMC_STEP_OVERLAPS): the pairs, then the sums q, ql (grown only). */
    void *ov_dev;
    size_t ov_cap;
    uint64_t uploads;                 /* table uploads so far (host -> device) */
    /* Whether the packed table's arrays all start at a multiple of 16 bytes, worked out for
     * the table of upload aligned_at - 1 (0: not yet): a table changes only with an upload,
     * so a call does not walk thousands of entries to ask again. */
    uint64_t aligned_at;
    bool aligned;
};

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cuda_ens_batch *live;

static size_t hash_slot(const latmc_sim *sim, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)sim;
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

/* Member index of sim in b (-1: not a member). */
static int member_index(const struct cuda_ens_batch *b, const latmc_sim *sim)
{
    if (!b->hcap)
        return -1;
    for (size_t k = hash_slot(sim, b->hcap);; k = (k + 1) & (b->hcap - 1)) {
        if (!b->hkeys[k])
            return -1;
        if (b->hkeys[k] == sim)
            return b->hidx[k];
    }
}

/* The map of these members (built once per member array; false: no memory, and swaps then
 * take the long way). Called with live_lock held. */
static bool build_map(struct cuda_ens_batch *b, latmc_sim *const *members, int n)
{
    if (b->hmembers == members && b->hcap >= 2 * (size_t)n)
        return true;
    size_t cap = 16;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    latmc_sim **keys = calloc(cap, sizeof *keys);
    int *idx = malloc(cap * sizeof *idx);
    if (!keys || !idx) {
        free(keys);
        free(idx);
        return false;
    }
    for (int m = 0; m < n; m++) {
        size_t k = hash_slot(members[m], cap);
        while (keys[k])
            k = (k + 1) & (cap - 1);
        keys[k] = members[m];
        idx[k] = m;
    }
    free(b->hkeys);
    free(b->hidx);
    b->hkeys = keys;
    b->hidx = idx;
    b->hcap = cap;
    b->hmembers = members;
    return true;
}

/* The lead state's free (struct cuda_lead_state: the lead sim is being destroyed). */
static void batch_free(struct cuda_lead_state *state)
{
    struct cuda_ens_batch *b = (struct cuda_ens_batch *)state;
    if (!b)
        return;
    pthread_mutex_lock(&live_lock);
    for (struct cuda_ens_batch **p = &live; *p; p = &(*p)->next_live)
        if (*p == b) {
            *p = b->next_live;
            break;
        }
    pthread_mutex_unlock(&live_lock);
    free(b->hkeys);
    free(b->hidx);
    cudaFree(b->dev);
    cudaFree(b->ov_dev);
    cudaFreeHost(b->pinned);
    free(b->last);
    free(b->host);
    free(b);
}

/* The device table holding `table` (table_bytes) with count_bytes of counters after it,
 * uploaded on `stream` where it differs from what is there. */
static int batch_table(struct cuda_ens_batch *b, cudaStream_t stream, const void *table,
                       size_t table_bytes, size_t count_bytes, void **dev)
{
    const size_t need = table_bytes + count_bytes;
    if (need > b->cap) {
        cudaFree(b->dev);
        b->dev = NULL;
        b->cap = 0;
        b->last_bytes = 0;
        const int st = cuda_check(cudaMalloc(&b->dev, need),
                                  "cannot allocate device memory for the batch's table");
        if (st < 0)
            return st;
        b->cap = need;
    }
    if (b->dirty || b->last_bytes != table_bytes || memcmp(b->last, table, table_bytes) != 0) {
        b->dirty = false;
        b->last_bytes = 0; /* valid again once the copy is on its way */
        void *copy = realloc(b->last, table_bytes);
        if (!copy)
            return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's table");
        b->last = copy;
        memcpy(b->last, table, table_bytes);
        const int st = cuda_check(cudaMemcpyAsync(b->dev, b->last, table_bytes,
                                                  cudaMemcpyHostToDevice, stream),
                                  "copying the batch's table");
        if (st < 0)
            return st;
        b->last_bytes = table_bytes;
        b->uploads++;
    }
    *dev = b->dev;
    return LATMC_OK;
}

/* The swaps' patches of the host table onto the device (the table the batch's members
 * were prepared with, `table_bytes` of it). */
static int upload_dirty(struct cuda_ens_batch *b, cudaStream_t stream, size_t table_bytes)
{
    if (!b->dirty)
        return LATMC_OK;
    b->dirty = false;
    b->uploads++;
    return cuda_check(cudaMemcpyAsync(b->dev, b->last, table_bytes, cudaMemcpyHostToDevice,
                                      stream), "copying the batch's table");
}

/* The batch of the ensembles led by `lead`, with `host` bytes of host scratch (kept from
 * call to call: fresh large allocations cost page faults every call); NULL on failure. */
static struct cuda_ens_batch *batch_of(const latmc_sim *lead, size_t host)
{
    struct cuda_lead_state **slot = cuda_batch_lead_slot(lead);
    struct cuda_ens_batch *b = (struct cuda_ens_batch *)*slot;
    if (!b) {
        if (!(b = calloc(1, sizeof *b)))
            return NULL;
        b->lead.free = batch_free;
        *slot = &b->lead;
        b->device = cuda_batch_device_of(lead);
        b->stream = cuda_batch_stream_of(lead);
        b->lattice = cuda_batch_lattice_of(lead);
        pthread_mutex_lock(&live_lock);
        b->next_live = live;
        live = b;
        pthread_mutex_unlock(&live_lock);
    }
    if (host > b->host_cap) {
        void *h = realloc(b->host, host);
        if (!h)
            return NULL;
        b->host = h;
        b->host_cap = host;
    }
    return b;
}

/* At least `bytes` of page-locked memory of the batch (kept; grown only): NULL when
 * cudaMallocHost fails, and the caller reads back into pageable memory instead. */
static void *batch_pinned(struct cuda_ens_batch *b, size_t bytes)
{
    if (bytes > b->pinned_cap) {
        cudaFreeHost(b->pinned);
        b->pinned = NULL;
        b->pinned_cap = 0;
        if (cudaMallocHost(&b->pinned, bytes) != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky: clear it */
            b->pinned = NULL;
            return NULL;
        }
        b->pinned_cap = bytes;
    }
    return b->pinned;
}

/* Bytes of host scratch of a call with n members: both tables, counters, pending flags. */
static size_t host_scratch(int n)
{
    return (size_t)n * (sizeof(struct cuda_ens_packed_member) +
                        sizeof(struct cuda_ens_ising_member) + sizeof(unsigned long long) +
                        sizeof(bool));
}

/* Can these members run as one batch: Ising, a box alone (the members' one desc gives
 * them one layout below 2^29 sites: member 0's is checked, as a per-member look into every
 * executor costs a few percent of a small ensemble's call; member_bytes refuses any other),
 * on one device, one sweep count. */
static bool batchable(latmc_sim *const *members, int n)
{
    const latmc_sim *first = members[0];
    const struct cuda_leaf *leaf;
    if (first->desc.model != LATMC_MODEL_ISING || !member_box(first, &leaf))
        return false;
    /* the bit-sliced decisions: each member runs its own steps (the batched kernels
     * draw chain 0's) */
    if (first->param[LATMC_PARAM_DECISIONS] != 0.0)
        return false;
    /* members of a lattice whose packed arrays reach 1 GiB may differ: one created when
     * they no longer fit the device took the 1-bit leaf (cuda_ising_leaf.c), which has no
     * entry in either table; each is checked there (smaller ones never look at memory) */
    const bool each = first->nsites >= ((int64_t)1 << 29);
    const int device = cuda_batch_device_of(first);
    for (int m = 1; m < n; m++)
        if (cuda_batch_device_of(members[m]) != device || members[m]->sweeps != first->sweeps ||
            (each && !member_box(members[m], &leaf)))
            return false;
    return true;
}

/* Is the batch still prepared for these members (its last call's, no Ising state touched
 * since): then they were batchable then and are now (a member's device never changes;
 * the core sweeps them together, lib/ens_exec.c), and its table on the device is theirs. */
static bool still_prepared(const struct cuda_ens_batch *b, latmc_sim *const *members, int n)
{
    return b->prepared && b->members == members && b->n == n &&
           b->epoch == cuda_ising_state_epoch();
}

/*
 * Prepare every member for the packed kernel (ising_batch_packed_kernels.cu) into packed[], or,
 * where one of them cannot run it (thresholds that do not fit 32 bits, a lattice without the
 * packed layout, LATMC_CUDA_KERNELS=reference), every member for the byte kernel into bytes[].
 * *use_packed says which; pending[m]: member m's stream got work.
 */
static int prepare_members(latmc_sim *const *members, int n, struct cuda_ens_packed_member *packed,
                           struct cuda_ens_ising_member *bytes, bool *pending, bool *use_packed,
                           int *coupled)
{
    int st = LATMC_OK;
    /* the packed kernel numbers a member's blocks in 32 bits */
    *use_packed = members[0]->nsites < ((int64_t)1 << 32);
    for (int m = 0; m < n && *use_packed && st == LATMC_OK; m++) {
        cudaError_t err = cudaSuccess;
        *use_packed = member_packed(members[m], &packed[m], &pending[m], &err);
        st = cuda_check(err, "preparing a member's packed spins");
        *coupled = packed[m].eps[0] != NULL; /* one desc: all members alike */
    }
    if (st < 0 || *use_packed)
        return st;
    for (int m = 0; m < n && st == LATMC_OK; m++) {
        bool enqueued = false;
        st = cuda_check(member_bytes(members[m], &bytes[m], &enqueued),
                        "preparing a member's spins");
        pending[m] = pending[m] || enqueued;
        *coupled = bytes[m].eps != NULL;
    }
    return st;
}

/*
 * The device table of these members as the batched kernels take it (their packed arrays,
 * or their bytes: batch->use_packed after the call), with room for n sums after it, in
 * *dev: reused where the batch is still prepared for them (no Ising state touched since
 * its last call: the swaps' patches uploaded), else every member prepared (packed or
 * unpacked where needed, their streams drained) and the table uploaded; the batch is then
 * prepared for them. Uses the batch's host scratch (both tables and the pending flags).
 */
static int batch_ready(latmc_sim *const *members, int n, struct cuda_ens_batch *batch,
                       void **dev)
{
    const size_t packed_bytes = (size_t)n * sizeof(struct cuda_ens_packed_member);
    const size_t byte_bytes = (size_t)n * sizeof(struct cuda_ens_ising_member);
    struct cuda_ens_packed_member *packed = batch->host;
    struct cuda_ens_ising_member *bytes = (void *)((char *)batch->host + packed_bytes);
    bool *pending = (void *)((char *)batch->host + host_scratch(n) - (size_t)n * sizeof(bool));
    int st = LATMC_OK;
    *dev = NULL;
    bool use_packed = batch->use_packed;
    int coupled = batch->coupled;
    const bool reuse = still_prepared(batch, members, n);
    batch->prepared = false; /* until this call's table is on its way */
    if (!reuse) {
        memset(pending, 0, (size_t)n * sizeof *pending);
        st = prepare_members(members, n, packed, bytes, pending, &use_packed, &coupled);
    }
    const size_t table_bytes = use_packed ? packed_bytes : byte_bytes;
    const void *table = use_packed ? (const void *)packed : (const void *)bytes;
    /* only the streams that got work (a stream sync costs microseconds even when idle,
     * and there may be thousands of members) */
    for (int m = 0; m < n && st == LATMC_OK && !reuse; m++)
        if (pending[m])
            st = cuda_check(cudaStreamSynchronize(cuda_batch_stream_of(members[m])),
                            "preparing a member's spins");
    if (st == LATMC_OK && reuse) {
        *dev = batch->dev;
        st = upload_dirty(batch, batch->stream, table_bytes);
    } else if (st == LATMC_OK) {
        st = batch_table(batch, batch->stream, table, table_bytes,
                         (size_t)n * sizeof(struct latmc_ising_sums), dev);
        pthread_mutex_lock(&live_lock);
        if (!build_map(batch, members, n))
            batch->hmembers = NULL; /* no map: swaps take the long way */
        pthread_mutex_unlock(&live_lock);
    }
    if (st == LATMC_OK) {
        batch->members = members;
        batch->n = n;
        batch->use_packed = use_packed;
        batch->coupled = coupled;
        batch->epoch = cuda_ising_state_epoch();
        batch->prepared = true;
    }
    return st;
}

/*
 * The batch of these members opened for a call, the one way every batched operation of
 * Ising members starts: LATMC_EUNSUPPORTED (no message) where they cannot run as one batch
 * (batchable), else member 0's device made current, the ensemble's batch (*batch, kept by
 * member 0) and the members prepared with their table on the device (batch_ready: *dev).
 * The per-member checks run only where the batch is not still prepared for them, so a call
 * right after the last touches no member. On a failure *batch is set where batch_ready
 * ran (work may be in flight on its lead's stream).
 */
static int batch_open(latmc_sim *const *members, int n, struct cuda_ens_batch **batch,
                      void **dev)
{
    const struct cuda_leaf *leaf;
    *batch = NULL;
    *dev = NULL;
    if (n < 1 || members[0]->desc.model != LATMC_MODEL_ISING || !member_box(members[0], &leaf))
        return LATMC_EUNSUPPORTED;
    const int st = cuda_check(cudaSetDevice(cuda_batch_device_of(members[0])), "cudaSetDevice");
    if (st < 0)
        return st;
    struct cuda_ens_batch *b = batch_of(members[0], host_scratch(n));
    if (!b)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the table of %d members", n);
    if (!still_prepared(b, members, n) && !batchable(members, n))
        return LATMC_EUNSUPPORTED;
    *batch = b;
    return batch_ready(members, n, b, dev);
}

/* The calls an Ising batch takes: colour steps on the whole box, or whole sweeps (the
 * fused kernel where the members run it, else a launch a colour: chosen once the batch
 * is open). */
static bool ising_calls_ok(const struct latmc_step_call *calls, int n_calls)
{
    for (int c = 0; c < n_calls; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part != LATMC_STEP_SWEEPS &&
            (k->part != LATMC_STEP_WHOLE || k->step.kind != LATMC_STEP_COLOUR))
            return false;
    }
    return true;
}

cudaError_t cuda_ens_colour_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                   const void *table, bool use_packed, int n, int coupled,
                                   int algorithm, uint64_t sweep0, uint64_t n_sweeps,
                                   unsigned long long *changed)
{
    cudaError_t err = cudaSuccess;
    for (uint64_t k = 0; k < n_sweeps && err == cudaSuccess; k++)
        for (int colour = 0; colour < 2 && err == cudaSuccess; colour++) {
            const struct latmc_rng_name name = latmc_ising_rng_name(sweep0 + k, colour);
            err = use_packed
                      ? cuda_ens_packed_sweep_colour(stream, g, table, n, coupled, algorithm,
                                                     name, colour, changed)
                      : cuda_ens_ising_sweep_colour(stream, g, table, n, coupled, algorithm,
                                                    name, colour, changed);
        }
    return err;
}

cudaError_t cuda_ens_bytes_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                  int device, const struct cuda_ens_ising_member *table, int n,
                                  int coupled, int algorithm, uint64_t sweep0,
                                  uint64_t n_sweeps, unsigned long long *changed,
                                  struct latmc_ising_sums *sums, bool *measured)
{
    if (measured)
        *measured = false;
    if (cuda_ens_ising_fused_fits(g, coupled, device)) {
        if (measured)
            *measured = sums != NULL && n_sweeps > 0;
        return cuda_ens_ising_sweeps(stream, g, table, n, coupled, algorithm, sweep0, n_sweeps,
                                     changed, sums);
    }
    return cuda_ens_colour_sweeps(stream, g, table, false, n, coupled, algorithm, sweep0,
                                  n_sweeps, changed);
}

/*
 * The batch of Ising members calls[0].members runs a list of the plan's calls (lib/box.h,
 * lib/plan.c latmc_plan_sweep_batch): each colour step one launch over every member (the
 * packed kernel or the byte kernel, the step's draws as the plan named them), each
 * LATMC_STEP_SWEEPS call the fused kernel (every colour of up to 1024 sweeps a launch,
 * small members on the packed layout) or, for the others, a launch a colour
 * (cuda_ens_colour_sweeps). The members' counters are read once at the end of the list.
 */
static int ising_batch_run_steps(const struct latmc_step_call *calls, int n_calls,
                                 uint64_t *accepted, uint64_t *attempted)
{
    latmc_sim *const *members = calls[0].members;
    const int n = calls[0].n_members;
    if (!ising_calls_ok(calls, n_calls))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these steps");
    struct cuda_ens_batch *batch;
    void *dev;
    int st = batch_open(members, n, &batch, &dev);
    if (st == LATMC_EUNSUPPORTED)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched sweep for these members");
    if (!batch)
        return st;
    const size_t packed_bytes = (size_t)n * sizeof(struct cuda_ens_packed_member);
    const size_t byte_bytes = (size_t)n * sizeof(struct cuda_ens_ising_member);
    const size_t count_bytes = (size_t)n * sizeof(unsigned long long);
    unsigned long long *changed = batch_pinned(batch, count_bytes);
    if (!changed) /* the counters' part of the host scratch */
        changed = (void *)((char *)batch->host + packed_bytes + byte_bytes);
    const bool use_packed = batch->use_packed;
    const int coupled = batch->coupled;
    const size_t table_bytes = use_packed ? packed_bytes : byte_bytes;
    unsigned long long *dev_changed =
        dev ? (unsigned long long *)((char *)dev + table_bytes) : NULL;
    const latmc_sim *first = members[0];
    const bool fits = use_packed && cuda_ens_packed_fused_fits(batch->lattice, batch->device);
    /* a list that starts with the fused kernel's sweeps sets the counters in its first
     * launch (no clearing launch) */
    const bool clear_first = calls[0].part == LATMC_STEP_SWEEPS && fits;
    if (st == LATMC_OK && !clear_first)
        st = cuda_check(cudaMemsetAsync(dev_changed, 0, count_bytes, batch->stream),
                        "clearing the acceptance counters");
    uint64_t tried = 0; /* site updates of each member (one shape) */
    for (int c = 0; c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_SWEEPS) {
            st = cuda_check(
                fits ? cuda_ens_packed_sweeps(batch->stream, batch->lattice, dev, n, coupled,
                                              first->desc.algorithm, k->sweep, k->n_sweeps,
                                              dev_changed, c == 0 && clear_first, NULL)
                : use_packed
                    ? cuda_ens_colour_sweeps(batch->stream, batch->lattice, dev, true, n, coupled,
                                             first->desc.algorithm, k->sweep, k->n_sweeps,
                                             dev_changed)
                    : cuda_ens_bytes_sweeps(batch->stream, batch->lattice, batch->device, dev, n,
                                            coupled, first->desc.algorithm, k->sweep,
                                            k->n_sweeps, dev_changed, NULL, NULL),
                "launching a batched sweep");
            tried += k->n_sweeps * (uint64_t)first->nsites;
            continue;
        }
        /* a colour step, its draws named by the plan (lib/model_ising.c) */
        st = cuda_check(
            use_packed
                ? cuda_ens_packed_sweep_colour(batch->stream, batch->lattice, dev, n, coupled,
                                               first->desc.algorithm, k->step.rng,
                                               k->step.colour, dev_changed)
                : cuda_ens_ising_sweep_colour(batch->stream, batch->lattice, dev, n, coupled,
                                              first->desc.algorithm, k->step.rng,
                                              k->step.colour, dev_changed),
            "launching a batched sweep");
        tried += (uint64_t)first->nsites / 2; /* a colour: half the sites (even extents) */
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(changed, dev_changed, count_bytes,
                                        cudaMemcpyDeviceToHost, batch->stream),
                        "reading the acceptance counters");
    /* waited for even after a failed launch: the launches before it run on the members'
     * configurations, and none may outlive the call (as the Heisenberg batch's run_steps) */
    const cudaError_t fin = cudaStreamSynchronize(batch->stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "sweeping the members");
    if (st == LATMC_OK)
        for (int m = 0; m < n; m++) {
            accepted[m] += changed[m];
            attempted[m] += tried;
        }
    return st;
}

/* The batch layout's capabilities for Ising sims (lib/box.h): a box alone, the colour
 * kernels (not the bit-sliced decisions, whose draws the batched kernels do not make);
 * whole sweeps (the fused kernels where they take the lattice, else a launch a colour)
 * and exchange rounds between them (cuda_ising_temper.c), packed or byte layout. */
static unsigned ising_batch_caps(const latmc_sim *sim)
{
    const struct cuda_leaf *leaf;
    if (sim->desc.model != LATMC_MODEL_ISING || !member_box(sim, &leaf) ||
        sim->param[LATMC_PARAM_DECISIONS] != 0.0)
        return 0u;
    if (sim->nsites >= ((int64_t)1 << 32))
        return LATMC_STEP_CAP_BATCH;
    return LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS | LATMC_STEP_CAP_BATCH_EXCHANGE;
}

/* Every member's packed arrays at a multiple of 16 bytes (they are where each member owns
 * its allocations). */
static bool packed_aligned(const struct cuda_ens_packed_member *table, int n, bool coupled)
{
    uintptr_t bits = 0;
    for (int m = 0; m < n; m++)
        for (int c = 0; c < 2; c++)
            bits |= (uintptr_t)table[m].colour[c] | (coupled ? (uintptr_t)table[m].eps[c] : 0u);
    return (bits & 15u) == 0;
}

/*
 * For cuda_ising_temper.c: the members' table on the device as a batched sweep uses it
 * (batch_ready), packed (out->fused: the fused kernel takes them) or the byte layout's;
 * LATMC_EUNSUPPORTED, with at most the preparation done, where they are not one batch.
 */
int cuda_ens_packed_ready(latmc_sim *const *members, int n, struct cuda_ens_ready *out)
{
    memset(out, 0, sizeof *out);
    struct cuda_ens_batch *batch;
    void *dev;
    const int st = batch_open(members, n, &batch, &dev);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not one batch */
    out->packed = batch->use_packed;
    out->fused = out->packed && cuda_ens_packed_fused_fits(batch->lattice, batch->device);
    out->stream = out->fused && cuda_ens_packed_fused_stream(batch->lattice);
    const size_t packed_bytes = (size_t)n * sizeof(struct cuda_ens_packed_member);
    const size_t table_bytes =
        out->packed ? packed_bytes : (size_t)n * sizeof(struct cuda_ens_ising_member);
    /* the table on the device, and as the host built it */
    out->dev = out->packed ? dev : NULL;
    out->host = out->packed ? batch->last : NULL;
    out->bytes = out->packed ? NULL : dev;
    out->bytes_host = out->packed ? NULL : batch->last;
    out->dev_changed = (unsigned long long *)((char *)dev + table_bytes);
    out->changed = batch_pinned(batch, (size_t)n * sizeof(unsigned long long));
    if (!out->changed) /* the counters' part of the host scratch */
        out->changed = (void *)((char *)batch->host + packed_bytes +
                                (size_t)n * sizeof(struct cuda_ens_ising_member));
    out->coupled = batch->coupled;
    out->uploads = batch->uploads;
    if (!out->packed)
        return LATMC_OK; /* the resident chains (aligned16) take packed tables alone */
    if (batch->aligned_at != batch->uploads + 1) {
        batch->aligned = packed_aligned(out->host, n, batch->coupled != 0);
        batch->aligned_at = batch->uploads + 1;
    }
    out->aligned16 = batch->aligned;
    return LATMC_OK;
}

/*
 * For cuda_ising_temper.c, after a tempering list failed: the device's table may hold
 * thresholds the rounds wrote, which the host copy `last` does not (the map stays the
 * host's: no swap patches it), so the next call uploads its table (dirty) even where it
 * equals `last`. After a fetch nothing is needed: the core's swaps move the members to the
 * device's map, and each swap patches `last` or marks the batch dirty (patch_batches).
 */
void cuda_ens_packed_table_moved(latmc_sim *const *members, int n)
{
    (void)n;
    struct cuda_ens_batch *b = (struct cuda_ens_batch *)*cuda_batch_lead_slot(members[0]);
    if (b)
        b->dirty = true;
}

void cuda_ens_bytes_table_fetched(latmc_sim *const *members, int n)
{
    (void)n;
    struct cuda_ens_batch *b = (struct cuda_ens_batch *)*cuda_batch_lead_slot(members[0]);
    if (b && !b->use_packed)
        b->dirty = true;
}

/* Read `bytes` of device results at src into dst (through the batch's page-locked
 * buffer where it has one) and wait for the stream. */
static int read_back(struct cuda_ens_batch *b, cudaStream_t stream, void *dst, const void *src,
                     size_t bytes, const char *what)
{
    void *pinned = batch_pinned(b, bytes);
    int st = cuda_check(cudaMemcpyAsync(pinned ? pinned : dst, src, bytes,
                                        cudaMemcpyDeviceToHost, stream), what);
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(stream), what);
    if (st == LATMC_OK && pinned)
        memcpy(dst, pinned, bytes);
    return st;
}

/*
 * The measurement of members that run the byte layout's batched kernel
 * (ising_batch_bytes_kernels.cu): their table as a batched sweep has it (batch_ready), the sums
 * after it, one launch (cuda_ens_ising_measure). LATMC_EUNSUPPORTED where the members run the
 * packed kernel but the packed measurement does not take their lattice (the core measures one
 * by one), or they are not one batch (several sweep counts).
 */
static int measure_bytes(latmc_sim *const *members, int n, struct cuda_ens_batch *batch,
                         void *sums)
{
    if (!still_prepared(batch, members, n) && !batchable(members, n))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: members at several sweep counts");
    void *dev = NULL;
    int st = batch_ready(members, n, batch, &dev);
    if (st < 0)
        return st;
    const size_t table_bytes = (size_t)n * sizeof(struct cuda_ens_ising_member);
    const size_t sums_bytes = (size_t)n * sizeof(struct latmc_ising_sums);
    if (batch->use_packed || batch->cap < table_bytes + sums_bytes)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched measure for this lattice");
    struct latmc_ising_sums *dev_sums = (void *)((char *)dev + table_bytes);
    st = cuda_check(cudaMemsetAsync(dev_sums, 0, sums_bytes, batch->stream), "clearing the sums");
    if (st == LATMC_OK)
        st = cuda_check(cuda_ens_ising_measure(batch->stream, batch->lattice, dev, n, dev_sums),
                        "launching a batched measure");
    if (st == LATMC_OK)
        st = read_back(batch, batch->stream, sums, dev_sums, sums_bytes, "measuring the members");
    return st;
}

/*
 * The overlaps (LATMC_STEP_OVERLAPS, lib/box.h) of Ising members (ens_batch_steps.c routes
 * them here; LATMC_EUNSUPPORTED, with a message, for members of no batch): the pairs'
 * overlap sums in one launch on the members' table as a batched sweep has it (packed
 * arrays or bytes, batch_ready: right after a sweep no pass over the members and no
 * change to their state), so that a tempering run's measurements copy no configuration
 * to the host.
 */
static int ising_batch_overlaps(latmc_sim *const *members, int n, const int32_t *pairs,
                                int n_pairs, int64_t *q, int64_t *ql)
{
    struct cuda_ens_batch *batch;
    void *dev;
    int st = n < 1 || (members[0]->desc.ndim != 2 && members[0]->desc.ndim != 3)
                 ? LATMC_EUNSUPPORTED
                 : batch_open(members, n, &batch, &dev);
    if (st == LATMC_EUNSUPPORTED)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no device overlaps for these members");
    if (st < 0)
        return st;
    const size_t pair_bytes = 2 * (size_t)n_pairs * sizeof *pairs; /* a multiple of 8 */
    const size_t sum_bytes = 2 * (size_t)n_pairs * sizeof(unsigned long long);
    if (pair_bytes + sum_bytes > batch->ov_cap) {
        cudaFree(batch->ov_dev);
        batch->ov_dev = NULL;
        batch->ov_cap = 0;
        if ((st = cuda_check(cudaMalloc(&batch->ov_dev, pair_bytes + sum_bytes),
                             "cannot allocate device memory for the overlaps")) < 0)
            return st;
        batch->ov_cap = pair_bytes + sum_bytes;
    }
    int32_t *dev_pairs = batch->ov_dev;
    unsigned long long *dev_q = (void *)((char *)batch->ov_dev + pair_bytes);
    unsigned long long *dev_ql = dev_q + n_pairs;
    st = cuda_check(cudaMemcpyAsync(dev_pairs, pairs, pair_bytes, cudaMemcpyHostToDevice,
                                    batch->stream), "copying the overlaps' pairs");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(dev_q, 0, sum_bytes, batch->stream),
                        "clearing the overlaps");
    if (st == LATMC_OK)
        st = cuda_check(batch->use_packed
                            ? cuda_ens_overlaps_packed(batch->stream, batch->lattice, dev,
                                                       dev_pairs, n_pairs, dev_q, dev_ql)
                            : cuda_ens_overlaps_bytes(batch->stream, batch->lattice, dev,
                                                      dev_pairs, n_pairs, dev_q, dev_ql),
                        "launching the overlaps");
    /* q then ql, contiguous on the device: one read into the caller's two arrays */
    int64_t *both = n_pairs > 0 ? malloc(sum_bytes) : NULL;
    if (st == LATMC_OK && n_pairs > 0 && !both)
        st = cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the overlaps of %d pairs",
                             n_pairs);
    if (st == LATMC_OK && n_pairs > 0)
        st = read_back(batch, batch->stream, both, dev_q, sum_bytes, "computing the overlaps");
    if (st == LATMC_OK && n_pairs > 0) {
        memcpy(q, both, (size_t)n_pairs * sizeof *q);
        memcpy(ql, both + n_pairs, (size_t)n_pairs * sizeof *ql);
    }
    free(both);
    return st;
}

/*
 * The measurement (LATMC_STEP_MEASURE) of Ising members (ens_batch_steps.c routes them
 * here, n >= 1): the sums of every member in one launch from their packed arrays (packed
 * first where only their bytes held the configuration), the exchange rounds' energies
 * without a measurement per member. Members whose packed arrays exist; the others from
 * their bytes (measure_bytes).
 */
static int ising_batch_measure_all(latmc_sim *const *members, int n, void *sums)
{
    const int device = cuda_batch_device_of(members[0]);
    int st = cuda_check(cudaSetDevice(device), "cudaSetDevice");
    if (st < 0)
        return st;
    struct cuda_ens_batch *batch = batch_of(members[0], host_scratch(n));
    if (!batch)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the table of %d members", n);
    const bool prepared = still_prepared(batch, members, n); /* then on one device */
    for (int m = 1; m < n && !prepared; m++)
        if (cuda_batch_device_of(members[m]) != device)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: members on several devices");
    if (members[0]->nsites >= ((int64_t)1 << 32))
        return measure_bytes(members, n, batch, sums);
    struct cuda_ens_packed_member *packed = batch->host;
    bool *pending = (void *)((char *)batch->host + host_scratch(n) - (size_t)n * sizeof(bool));
    int coupled = 0;
    const size_t table_bytes = (size_t)n * sizeof *packed;
    const size_t sums_bytes = (size_t)n * sizeof(struct latmc_ising_sums);
    void *dev = NULL;
    /* The members as the last batched sweep prepared them, no Ising state touched since
     * (an exchange round's measurement right after the sweep): their packed table is on
     * the device already, with room for the sums after it; no pass over the members. */
    if (prepared && batch->use_packed && batch->cap >= table_bytes + sums_bytes) {
        dev = batch->dev;
        coupled = batch->coupled;
        st = upload_dirty(batch, batch->stream, table_bytes);
    }
    /* members on the byte layout (L_x not a multiple of 16, ...): from their bytes */
    if (!dev && prepared && !batch->use_packed)
        return measure_bytes(members, n, batch, sums);
    if (!dev)
        memset(pending, 0, (size_t)n * sizeof *pending);
    for (int m = 0; m < n && st == LATMC_OK && !dev; m++) {
        cudaError_t err = cudaSuccess;
        if (!member_packed(members[m], &packed[m], &pending[m], &err))
            return measure_bytes(members, n, batch, sums);
        st = cuda_check(err, "preparing a member's packed spins");
        coupled = packed[m].eps[0] != NULL;
    }
    for (int m = 0; m < n && st == LATMC_OK && !dev; m++)
        if (pending[m])
            st = cuda_check(cudaStreamSynchronize(cuda_batch_stream_of(members[m])),
                            "preparing a member's spins");
    if (st == LATMC_OK && !dev) {
        batch->prepared = false; /* the table may change: the next sweep prepares again */
        st = batch_table(batch, batch->stream, packed, table_bytes, sums_bytes, &dev);
    }
    struct latmc_ising_sums *dev_sums =
        dev ? (struct latmc_ising_sums *)((char *)dev + table_bytes) : NULL;
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(dev_sums, 0, sums_bytes, batch->stream),
                        "clearing the sums");
    if (st == LATMC_OK)
        st = cuda_check(cuda_ens_packed_measure(batch->stream, batch->lattice, dev, n, coupled,
                                                dev_sums), "launching a batched measure");
    void *pinned = batch_pinned(batch, sums_bytes);
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(pinned ? pinned : sums, dev_sums, sums_bytes,
                                        cudaMemcpyDeviceToHost, batch->stream), "reading the sums");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(batch->stream), "measuring the members");
    if (st == LATMC_OK && pinned)
        memcpy(sums, pinned, sums_bytes);
    return st;
}

/*
 * After a swap of Ising members a and b: where a batch holds both, prepared with no state
 * touched since but by this swap (its epoch was `epoch0` before it), their entries of the
 * batch's host table are made again (as the next call's pass over every member would make
 * them) and the batch stays prepared, its table dirty (uploaded once by the next call).
 * Otherwise nothing: the next call prepares every member, as always.
 */
static void patch_batches(latmc_sim *a, latmc_sim *b, uint64_t epoch0)
{
    pthread_mutex_lock(&live_lock);
    for (struct cuda_ens_batch *t = live; t; t = t->next_live) {
        /* the map is only written under the lock; the rest of a batch belongs to the
         * thread of its ensemble, which is this one once a and b are found in it */
        const int ia = member_index(t, a);
        const int ib = ia >= 0 ? member_index(t, b) : -1;
        if (ib < 0)
            continue;
        /* Not patched below (the members' batch, not reusable anyway): `last` no longer
         * follows the members, and the device's table may hold thresholds the tempering
         * rounds wrote (cuda_ising_temper.c), so the next call, which prepares every member,
         * uploads its table even where it equals `last` (a ladder set again brings the
         * members back to exactly it). */
        if (t->hmembers != t->members || !t->prepared || t->epoch != epoch0) {
            t->dirty = t->dirty || !t->prepared || t->epoch != epoch0;
            break;
        }
        latmc_sim *sims[2] = { a, b };
        const int idx[2] = { ia, ib };
        for (int k = 0; k < 2 && t->prepared; k++) {
            bool enqueued = false;
            cudaError_t err = cudaSuccess;
            if (t->use_packed) {
                struct cuda_ens_packed_member e;
                if (!member_packed(sims[k], &e, &enqueued, &err)) {
                    t->prepared = false;
                    break;
                }
                ((struct cuda_ens_packed_member *)t->last)[idx[k]] = e;
            } else {
                struct cuda_ens_ising_member e;
                err = member_bytes(sims[k], &e, &enqueued);
                ((struct cuda_ens_ising_member *)t->last)[idx[k]] = e;
            }
            if (enqueued && err == cudaSuccess) /* a pack or unpack went on the member's
                                                   stream: finish it */
                err = cudaStreamSynchronize(cuda_batch_stream_of(sims[k]));
            if (enqueued || err != cudaSuccess) {
                (void)cudaGetLastError();
                t->prepared = false; /* the next call prepares (and reports) */
            }
        }
        if (t->prepared)
            t->epoch = cuda_ising_state_epoch();
        /* prepared: the patches uploaded once by the next call (it reuses the batch); not
         * (a patch failed): the next call prepares every member and uploads, as above */
        t->dirty = true;
        break;
    }
    pthread_mutex_unlock(&live_lock);
}

/* A tempering swap's move (a pair of LATMC_STEP_SWAP_PARAMS) for Ising members
 * (ens_batch_steps.c routes them here, neither made one by one): the boxes' tables
 * swapped, and the packed thresholds of the batches holding both members rebuilt from the
 * swapped tables (patch_batches). */
static int ising_batch_swap_params(latmc_sim *a, latmc_sim *b)
{
    const uint64_t epoch0 = cuda_ising_state_epoch();
    /* the one executor's boxes swap their tables (else the core falls back to
     * params_changed), then the batches holding both are patched */
    const int st = cuda_batch_swap_tables(a, b);
    if (st == LATMC_OK)
        patch_batches(a, b, epoch0);
    return st;
}

static const struct cuda_batch_model ising_batch_model = {
    .one_by_one_env = NULL,
    .caps = ising_batch_caps,
    .run_steps = ising_batch_run_steps,
    .measure_all = ising_batch_measure_all,
    .swaps = true,
    .swap_params = ising_batch_swap_params,
    .overlaps = ising_batch_overlaps,
};

/* Every Ising sim that reaches it, whatever its leaf (a Swendsen-Wang or Wolff sim takes
 * the cluster steps' batch first, cuda_batch_model_of; the capabilities tell the rest). */
const struct cuda_batch_model *cuda_ising_batch_of(const latmc_sim *sim)
{
    (void)sim;
    return &ising_batch_model;
}
