/*
 * Heisenberg members of an ensemble in one launch: the host side of ens_heisenberg_kernels.cu
 * (doc/ensembles.md, "Execution").
 *
 * The members' configurations stay in their own sims' device buffers (the kernel updates
 * the buffer that holds it in place, so the sims' state is what their own sweeps would
 * leave). What the launch needs besides lives in a batch kept from call to call:
 *   - the members' couplings, copied once from the members themselves (the executor's host
 *     copy, cuda_exec_get_couplings: the authoritative values, whatever set them) into one device array, structure of
 *     arrays, consecutive members with equal couplings (the temperatures and replicas of
 *     a sample) sharing one copy: fewer bytes, and the copies a launch reads stay in L2;
 *   - the device table of the members (pointers, seed, beta, h, nover), rebuilt on the
 *     host at every call (one pass over the members, no device work) and uploaded only
 *     when it differs from what is on the device (a tempering swap changed a beta); with
 *     the rounds on the device (ens_tempering.c) the round writes a moved member's beta
 *     into the device's table itself, and the count of uploads tells it when one from the
 *     host's lagging parameters overwrote them.
 * Batches are found by the ensemble's member array and freed when the core releases it
 * (cuda_ens_heis_release, from ens_measure with sums NULL: lib/ens.c before it destroys
 * the members).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_exec.h"
#include "ens_batch_list.h"
#include "cuda_heisenberg_leaf.h"
#include "ens_heisenberg_batch.h"
#include "heisenberg.h"

/* The kernel writes each member's sums as 13 consecutive doubles. */
_Static_assert(sizeof(struct latmc_heisenberg_sums) == 13 * sizeof(double),
               "struct latmc_heisenberg_sums is not 13 packed doubles");

/* Sweeps per launch: bounds one launch's time (a call of many sweeps is several). */
#define ENS_HEIS_SWEEPS_PER_LAUNCH 256

/* The geometry override: "THREADS,JSMEM" (threads a multiple of 32 up to 1024; JSMEM 1:
 * the couplings in shared memory as well), for measurements. */
#define ENS_HEIS_GEOM_ENV "LATMC_ENS_HEIS_GEOM"

/* Where a tempering round's sums come from: unset or "0", the reduction launch after the
 * sweeps (cuda_ens_heis_measure); "1", the sweep kernel's last launch before the round
 * (where its shared memory takes the partials; else the reduction); "check", both, each
 * fused sum compared with the reduction's bit for bit on the device and a list with any
 * difference failed (LATMC_EDEVICE): the check that the two codes give the same doubles.
 * Read when the batch is made. The fused sums are not the default yet: their first form
 * (every lane of a warp on one shared-memory bank) was measured slower than the reduction
 * (doc/ensembles.md), and the lane-skewed form is checked on the host only
 * (tools/heis-sums-host-check.sh) until a GPU run times it. */
#define ENS_HEIS_SUMS_ENV "LATMC_ENS_HEIS_SUMS"

struct heis_batch {
    struct ens_batch_link link; /* first: the list's (key: the ensemble's member array) */
    latmc_sim **members;        /* the members it was built for (pointers compared) */
    int n, device, dbl, heatbath;
    ens_heis_shape shape;
    int threads, jsmem;
    float *J;                   /* device: the distinct couplings, SoA each */
    const float **member_J;     /* host: member m's copy in J */
    struct cuda_ens_heis_member *table, *last; /* host: this call's, the one on the device */
    bool uploaded;
    uint64_t uploads;           /* table uploads so far (tempering: the betas to set again) */
    struct cuda_ens_heis_member *dev_table;
    double *dev_sums;           /* 13 doubles a member (ens_measure) */
    ens_heis_chunks ch;         /* the reduction's, the leaf's */
    bool fused;                 /* the sweep kernel can leave the sums (its shared memory) */
    bool check;                 /* LATMC_ENS_HEIS_SUMS=check */
    double *dev_check;          /* check: the reduction's sums, 13 doubles a member */
    unsigned long long *dev_diffs; /* check: the fused sums that differed, so far */
};

static struct ens_batch_list batches = ENS_BATCH_LIST_INIT;

static void batch_free(struct heis_batch *b)
{
    if (!b)
        return;
    cudaFree(b->J);
    cudaFree(b->dev_table);
    cudaFree(b->dev_sums);
    cudaFree(b->dev_check);
    cudaFree(b->dev_diffs);
    free(b->members);
    free(b->member_J);
    free(b->table);
    free(b->last);
    free(b);
}

static struct heis_batch *take_batch(latmc_sim *const *key)
{
    return (struct heis_batch *)ens_batch_take(&batches, key);
}

static void put_batch(struct heis_batch *b)
{
    ens_batch_put(&batches, &b->link);
}

void cuda_ens_heis_release(latmc_sim *const *members, int n)
{
    (void)n;
    struct heis_batch *b = take_batch(members);
    if (b) {
        cudaSetDevice(b->device);
        batch_free(b);
    }
}

/* Threads and jsmem of the launch: the override, or the defaults: the couplings in shared
 * memory beside the spins where they fit (16^3: 96 KiB a block, two blocks an SM), and as
 * many threads as two blocks' registers allow (float 3D: 72 registers, 384 threads;
 * double: 93, 256). */
static int choose_geometry(struct heis_batch *b)
{
    int threads = b->dbl ? 256 : 384, jsmem = 1;
    const char *env = getenv(ENS_HEIS_GEOM_ENV);
    bool forced = false;
    if (env && *env) {
        char *end = NULL;
        const long t = strtol(env, &end, 10);
        long j = 1;
        if (end && *end == ',')
            j = strtol(end + 1, &end, 10);
        if (!end || *end || t < 32 || t > 1024 || t % 32 || (j != 0 && j != 1))
            return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": expected \"THREADS,JSMEM\" with "
                                   "THREADS a multiple of 32 in [32, 1024] and JSMEM 0 or 1",
                                   ENS_HEIS_GEOM_ENV, env);
        threads = (int)t;
        jsmem = (int)j;
        forced = true;
    }
    for (;; jsmem--) {
        const cudaError_t err = cuda_ens_heis_prepare(b->dbl, b->shape.ndim,
                                                      cuda_ens_heis_smem(&b->shape, jsmem),
                                                      threads);
        if (err == cudaSuccess)
            break;
        if (err != cudaErrorInvalidConfiguration)
            return cuda_check(err, "preparing the ensembles' Heisenberg kernel");
        if (forced)
            return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": this device cannot launch the "
                                   "ensembles' Heisenberg kernel with %d threads for members "
                                   "of %d sites", ENS_HEIS_GEOM_ENV, env, threads, b->shape.n);
        if (jsmem == 0)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: members of %d sites do not fit "
                                   "one block's shared memory", b->shape.n);
    }
    b->threads = threads;
    b->jsmem = jsmem;
    return LATMC_OK;
}

/* The members' couplings into b->J (one copy per run of equal neighbours). */
static int copy_couplings(struct heis_batch *b)
{
    latmc_sim *const *members = b->members;
    const cudaStream_t stream = cuda_sim_of(members[0])->stream; /* the sweeps' */
    const size_t n = (size_t)b->shape.n, per = n * (size_t)b->shape.ndim;
    float *aos = malloc(per * sizeof *aos), *prev = malloc(per * sizeof *prev);
    float *soa = malloc(per * sizeof *soa);
    size_t *slot = malloc((size_t)b->n * sizeof *slot);
    int st = aos && prev && soa && slot ? LATMC_OK
                                        : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate "
                                                          "the members' couplings");
    /* first pass: which members start a new copy */
    size_t copies = 0;
    for (int m = 0; m < b->n && st == LATMC_OK; m++) {
        st = cuda_exec_get_couplings(members[m], cuda_sim_of(members[m])->exec, aos);
        if (st < 0)
            break;
        if (m == 0 || memcmp(aos, prev, per * sizeof *aos) != 0) {
            copies++;
            memcpy(prev, aos, per * sizeof *aos);
        }
        slot[m] = copies - 1;
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&b->J, copies * per * sizeof(float)),
                        "cannot allocate device memory for the members' couplings");
    /* second pass: upload each copy (the members are read again: no host copy of all) */
    for (int m = 0; m < b->n && st == LATMC_OK; m++) {
        b->member_J[m] = b->J + slot[m] * per;
        if (m > 0 && slot[m] == slot[m - 1])
            continue;
        st = cuda_exec_get_couplings(members[m], cuda_sim_of(members[m])->exec, aos);
        for (size_t i = 0; i < n && st == LATMC_OK; i++)
            for (int mu = 0; mu < b->shape.ndim; mu++)
                soa[(size_t)mu * n + i] = aos[(size_t)b->shape.ndim * i + (size_t)mu];
        /* on the stream the sweeps run on, and waited for: a cudaMemcpy (the legacy
         * stream, a pageable source) returns before its DMA lands, and the sims' streams
         * are non-blocking, so a sweep could read couplings not yet there; the wait also
         * lets soa be refilled for the next copy (once per batch: no cost that matters) */
        if (st == LATMC_OK)
            st = cuda_check(cudaMemcpyAsync(b->J + slot[m] * per, soa, per * sizeof(float),
                                            cudaMemcpyHostToDevice, stream),
                            "copying couplings");
        if (st == LATMC_OK)
            st = cuda_check(cudaStreamSynchronize(stream),
                            "copying couplings");
    }
    free(aos);
    free(prev);
    free(soa);
    free(slot);
    return st;
}

/* Whether the sweep kernel leaves the round's sums (ENS_HEIS_SUMS_ENV; where the launch's
 * shared memory takes the chunks' partials besides: 4 doubles a chunk) and, checking,
 * the check's buffers. */
static int choose_sums(struct heis_batch *b)
{
    const char *env = getenv(ENS_HEIS_SUMS_ENV);
    const bool off = !env || !*env || strcmp(env, "0") == 0;
    b->check = env && strcmp(env, "check") == 0;
    if (env && *env && !off && !b->check && strcmp(env, "1") != 0)
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": expected 0, 1 or check",
                               ENS_HEIS_SUMS_ENV, env);
    b->fused = false;
    if (!off) {
        const cudaError_t err = cuda_ens_heis_prepare_sums(
            b->dbl, b->shape.ndim, cuda_ens_heis_sums_smem(&b->shape, b->jsmem, &b->ch),
            cuda_ens_heis_smem(&b->shape, b->jsmem), b->threads);
        if (err != cudaSuccess && err != cudaErrorInvalidConfiguration)
            return cuda_check(err, "preparing the ensembles' Heisenberg kernel");
        (void)cudaGetLastError();
        b->fused = err == cudaSuccess; /* else the reduction launch, as with "0" */
    }
    int st = LATMC_OK;
    if (b->check && b->fused)
        st = cuda_check(cudaMalloc((void **)&b->dev_check, (size_t)b->n * 13 * sizeof(double)),
                        "cannot allocate device memory for the sums' check");
    if (st == LATMC_OK && b->check && b->fused)
        st = cuda_check(cudaMalloc((void **)&b->dev_diffs, sizeof *b->dev_diffs),
                        "cannot allocate device memory for the sums' check");
    if (st == LATMC_OK && b->check && b->fused) /* on the stream of the launches */
        st = cuda_check(cudaMemsetAsync(b->dev_diffs, 0, sizeof *b->dev_diffs,
                                        cuda_sim_of(b->members[0])->stream),
                        "clearing the sums' check");
    return st;
}

/* A new batch for these members, or NULL with the failure in *st (LATMC_EUNSUPPORTED:
 * they cannot run together). */
static struct heis_batch *new_batch(latmc_sim *const *members, int n, int *st)
{
    const latmc_sim *first = members[0];
    struct heis_batch *b = calloc(1, sizeof *b);
    if (!b) {
        *st = cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's batch");
        return NULL;
    }
    b->link.key = members;
    b->n = n;
    b->device = cuda_sim_of(first)->device;
    b->dbl = first->desc.precision == LATMC_PRECISION_DOUBLE;
    b->heatbath = first->desc.algorithm == LATMC_ALGO_HEATBATH;
    b->shape.ndim = first->desc.ndim;
    b->shape.lx = (int)first->desc.extent[0];
    b->shape.ly = (int)first->desc.extent[1];
    b->shape.lz = first->desc.ndim == 3 ? (int)first->desc.extent[2] : 1;
    b->shape.n = (int)first->nsites;
    b->members = malloc((size_t)n * sizeof *b->members);
    b->member_J = malloc((size_t)n * sizeof *b->member_J);
    b->table = malloc((size_t)n * sizeof *b->table);
    b->last = malloc((size_t)n * sizeof *b->last);
    *st = b->members && b->member_J && b->table && b->last
              ? LATMC_OK
              : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's batch");
    if (*st == LATMC_OK) {
        memcpy(b->members, members, (size_t)n * sizeof *b->members);
        *st = choose_geometry(b);
    }
    if (*st == LATMC_OK)
        *st = cuda_check(cudaMalloc((void **)&b->dev_table, (size_t)n * sizeof *b->table),
                         "cannot allocate device memory for the members' table");
    if (*st == LATMC_OK)
        *st = cuda_check(cudaMalloc((void **)&b->dev_sums, (size_t)n * 13 * sizeof(double)),
                         "cannot allocate device memory for the members' sums");
    /* the reduction's chunks, the one-device sim's (lib/heisenberg.h) */
    const int rows_per_plane = b->shape.ndim == 3 ? b->shape.ly : 1;
    const int rpc = (int)latmc_heisenberg_rows_per_chunk(b->shape.lx, rows_per_plane);
    b->ch.rows_per_chunk = rpc;
    b->ch.nchunks = (b->shape.ly * b->shape.lz + rpc - 1) / rpc;
    b->ch.chunks_per_plane = rows_per_plane / rpc;
    if (*st == LATMC_OK)
        *st = choose_sums(b);
    if (*st == LATMC_OK)
        *st = copy_couplings(b);
    if (*st < 0) {
        batch_free(b);
        return NULL;
    }
    return b;
}

/* The box of a member that is one box alone on the executor (cuda_exec_lone_box), or NULL. */
static struct cuda_box *member_box(const latmc_sim *sim)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    const struct cuda_leaf *leaf = NULL;
    struct cuda_box *b = cs->exec ? cuda_exec_lone_box(cs->exec, &leaf) : NULL;
    /* the local passes' leaf only (an embedded cluster step is not the batch's) */
    return b && leaf->model == LATMC_MODEL_HEISENBERG &&
                   sim->desc.algorithm != LATMC_ALGO_SWENDSEN_WANG &&
                   sim->desc.algorithm != LATMC_ALGO_WOLFF
               ? b
               : NULL;
}

/* A member's shape the launch takes: Heisenberg, one replica, 2D or 3D, L_x even, small
 * enough for 32-bit indices. */
static bool shape_batchable(const latmc_sim *sim)
{
    return sim->desc.model == LATMC_MODEL_HEISENBERG && sim->desc.replicas == 1 &&
           sim->desc.ndim >= 2 && sim->desc.ndim <= 3 && sim->nsites <= (1 << 24) &&
           sim->desc.extent[0] % 2 == 0;
}

/* Can these members run in one launch: their shape, one device, each one box alone. */
static bool batchable(latmc_sim *const *members, int n, bool same_sweeps)
{
    const latmc_sim *first = members[0];
    if (!shape_batchable(first))
        return false;
    const int device = cuda_sim_of(first)->device;
    for (int m = 0; m < n; m++) {
        const struct cuda_sim *cs = cuda_sim_of(members[m]);
        if (!member_box(members[m]) || cs->device != device ||
            (same_sweeps && members[m]->sweeps != first->sweeps))
            return false;
    }
    return true;
}

/*
 * The batch of these members with this call's table on the device (uploaded on cs0's
 * stream where it changed): the buffer that holds each configuration now, its seed and
 * parameters. NULL with *st set when they cannot run together or on a failure; the
 * caller gives the batch back with put_batch.
 */
static struct heis_batch *ready_batch(latmc_sim *const *members, int n, bool same_sweeps,
                                      int *st)
{
    if (n < 1 || !batchable(members, n, same_sweeps) ||
        cuda_sim_of(members[0])->ens_one_by_one) { /* LATMC_ENS_HEIS_BATCH=0 (cuda_backend.c) */
        *st = cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched launch for these members");
        return NULL;
    }
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    if ((*st = cuda_check(cudaSetDevice(cs0->device), "cudaSetDevice")) < 0)
        return NULL;
    struct heis_batch *b = take_batch(members);
    if (b && (b->n != n || memcmp(b->members, members, (size_t)n * sizeof *members) != 0)) {
        batch_free(b); /* another ensemble's array at the same address */
        b = NULL;
    }
    if (!b && !(b = new_batch(members, n, st)))
        return NULL;
    int s = LATMC_OK;
    for (int m = 0; m < n && s == LATMC_OK; m++) {
        latmc_sim *sim = members[m];
        const struct latmc_heisenberg_params *p = sim->model_data;
        struct cuda_ens_heis_member *e = &b->table[m];
        memset(e, 0, sizeof *e);
        e->spins = cuda_heis_member_spins(member_box(sim)); /* batchable: a box alone */
        e->J = b->member_J[m];
        e->seed = sim->desc.seed;
        e->beta = p->beta;
        e->h = p->h;
        e->nover = p->nover;
    }
    const size_t table_bytes = (size_t)n * sizeof *b->table;
    if (s == LATMC_OK && (!b->uploaded || memcmp(b->table, b->last, table_bytes) != 0)) {
        struct cuda_ens_heis_member *t = b->last; /* the old one may still be in flight */
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

/* n_sweeps sweeps from sweep0 of every member, ENS_HEIS_SWEEPS_PER_LAUNCH at most a
 * launch (one launch's time bounded); with sums (b->fused), the last launch leaves the
 * members' sums there. */
static cudaError_t launch_sweeps(const struct heis_batch *b, cudaStream_t stream, uint64_t sweep0,
                                 uint64_t count, double *sums)
{
    cudaError_t err = cudaSuccess;
    for (uint64_t done = 0; done < count && err == cudaSuccess;) {
        const uint64_t k = count - done < ENS_HEIS_SWEEPS_PER_LAUNCH
                               ? count - done : ENS_HEIS_SWEEPS_PER_LAUNCH;
        err = cuda_ens_heis_sweeps(stream, &b->shape, b->dev_table, b->n, b->dbl, b->heatbath,
                                   b->jsmem, b->threads, sweep0 + done, k,
                                   done + k == count ? sums : NULL, &b->ch);
        done += k;
    }
    return err;
}

/*
 * A list of the plan's calls for the batch calls[0].members (lib/box.h): whole sweeps
 * only (LATMC_STEP_SWEEPS; the kernel runs every step of a sweep, one block per member,
 * up to ENS_HEIS_SWEEPS_PER_LAUNCH sweeps a launch), LATMC_EUNSUPPORTED with nothing
 * done for steps one by one or members that cannot run together.
 */
int cuda_ens_heis_run_steps(const struct latmc_step_call *calls, int n_calls,
                            uint64_t *accepted, uint64_t *attempted)
{
    latmc_sim *const *members = calls[0].members;
    const int n = calls[0].n_members;
    for (int c = 0; c < n_calls; c++)
        if (calls[c].part != LATMC_STEP_SWEEPS)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: Heisenberg members run as a "
                                   "batch by whole sweeps only");
    int st = LATMC_OK;
    struct heis_batch *b = ready_batch(members, n, true, &st);
    if (!b)
        return st;
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    uint64_t sweeps = 0;
    for (int c = 0; c < n_calls && st == LATMC_OK; c++) {
        st = cuda_check(launch_sweeps(b, cs0->stream, calls[c].sweep, calls[c].n_sweeps, NULL),
                        "launching the members' sweeps");
        sweeps += calls[c].n_sweeps;
    }
    /* Waited for even after a failed launch: the launches before it run on the members'
     * buffers, and none may outlive the call. A failure leaves every member's sweep count
     * as it was (lib/ens_exec.c), as a failed latmc_sim_sweep does (latmc/sim.h: the
     * configuration may be partly updated, the count is not advanced), and all members
     * alike: each launch covers every member. */
    const cudaError_t fin = cudaStreamSynchronize(cs0->stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "sweeping the members");
    /* heat bath: every site of the replica is updated (and counted accepted) once per
     * sweep, as heis_sweep's counter; overrelaxation counts neither */
    const uint64_t per = b->heatbath ? (uint64_t)members[0]->nsites : 0;
    put_batch(b);
    if (st < 0)
        return st;
    for (int m = 0; m < n; m++) {
        accepted[m] += sweeps * per;
        attempted[m] += sweeps * per;
    }
    return LATMC_OK;
}

/* Whether the batch can ever hold this member: not made one by one (LATMC_ENS_HEIS_BATCH=0),
 * a shape the launch takes, its spins in one block's shared memory (choose_geometry's
 * smallest: the couplings read from global memory; the kernels have no static shared
 * memory). No device work: an attribute query. */
static bool member_batchable(const latmc_sim *sim)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    if (cs->ens_one_by_one || !shape_batchable(sim))
        return false;
    const ens_heis_shape g = { .ndim = sim->desc.ndim, .n = (int)sim->nsites };
    int optin = 0;
    if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, cs->device) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return true; /* unknown: ready_batch decides per call, as before */
    }
    return cuda_ens_heis_smem(&g, 0) <= (size_t)optin;
}

/* The batch layout's capabilities for Heisenberg sims (lib/box.h): a box alone, by whole
 * sweeps (ready_batch checks the rest per call), and exchange rounds between them on the
 * device (ens_tempering.c; the tempering state's load checks that the members' betas are
 * the ladder's) only where the batch can hold the member at all: else every call's load
 * would be refused, after a pass over the members. */
unsigned cuda_ens_heis_caps(const latmc_sim *sim)
{
    if (sim->desc.model != LATMC_MODEL_HEISENBERG || !member_box(sim))
        return 0u;
    const unsigned batch = LATMC_STEP_CAP_BATCH | LATMC_STEP_CAP_BATCH_SWEEPS;
    return member_batchable(sim) ? batch | LATMC_STEP_CAP_BATCH_EXCHANGE : batch;
}

int cuda_ens_heis_open(latmc_sim *const *members, int n, struct cuda_ens_heis_view *v)
{
    memset(v, 0, sizeof *v);
    int st = LATMC_OK;
    struct heis_batch *b = ready_batch(members, n, true, &st);
    if (!b)
        return st;
    if (st < 0) {
        put_batch(b);
        return st;
    }
    v->batch = b;
    v->cs0 = cuda_sim_of(members[0]);
    v->dev = b->dev_table;
    v->host = b->last; /* what ready_batch uploaded, or found on the device */
    v->sums = b->dev_sums;
    v->uploads = b->uploads;
    v->fused_sums = b->fused;
    /* heat bath: every site updated and counted once a sweep (as run_steps counts) */
    v->updates_per_sweep = b->heatbath ? (uint64_t)members[0]->nsites : 0;
    return LATMC_OK;
}

void cuda_ens_heis_close(struct cuda_ens_heis_view *v)
{
    if (v->batch)
        put_batch(v->batch);
    v->batch = NULL;
}

/* The device's table no longer what the host uploaded (ens_tempering.c: the rounds wrote
 * betas into it, and the map they follow went back to the host or was lost): the next call
 * uploads its table even where it equals the host's copy of the last upload, since the
 * members' own betas may have come back to exactly that copy (a ladder set again) while
 * the device still holds the rounds' betas. */
void cuda_ens_heis_table_moved(latmc_sim *const *members, int n)
{
    (void)n;
    struct heis_batch *b = take_batch(members);
    if (!b)
        return;
    b->uploaded = false;
    put_batch(b);
}

cudaError_t cuda_ens_heis_launch_sweeps(const struct cuda_ens_heis_view *v, uint64_t sweep0,
                                        uint64_t n_sweeps, bool sums)
{
    const struct heis_batch *b = v->batch;
    return launch_sweeps(b, v->cs0->stream, sweep0, n_sweeps,
                         sums && b->fused ? b->dev_sums : NULL);
}

/* The members' sums (bonds and M; the overlap left as it was: a round reads the bonds and
 * M_z alone). */
cudaError_t cuda_ens_heis_launch_measure(const struct cuda_ens_heis_view *v)
{
    const struct heis_batch *b = v->batch;
    return cuda_ens_heis_measure(v->cs0->stream, &b->shape, b->dev_table, b->n,
                                 b->ch.rows_per_chunk, b->ch.nchunks, b->ch.chunks_per_plane,
                                 b->dev_sums);
}

/* LATMC_ENS_HEIS_SUMS=check, after a launch that left the sums: the reduction's into the
 * check's buffer and each compared with the fused one (nothing waited for). */
cudaError_t cuda_ens_heis_launch_check(const struct cuda_ens_heis_view *v)
{
    const struct heis_batch *b = v->batch;
    if (!b->check || !b->fused)
        return cudaSuccess;
    cudaError_t err = cuda_ens_heis_measure(v->cs0->stream, &b->shape, b->dev_table, b->n,
                                            b->ch.rows_per_chunk, b->ch.nchunks,
                                            b->ch.chunks_per_plane, b->dev_check);
    if (err == cudaSuccess)
        err = cuda_ens_heis_sums_compare(v->cs0->stream, b->dev_sums, b->dev_check, b->n,
                                         b->dev_diffs);
    return err;
}

/* After the list's launches were waited for: LATMC_EDEVICE where a checked fused sum
 * differed from the reduction's (the count cleared again). */
int cuda_ens_heis_check_result(const struct cuda_ens_heis_view *v)
{
    const struct heis_batch *b = v->batch;
    if (!b->check || !b->fused)
        return LATMC_OK;
    unsigned long long diffs = 0;
    int st = cuda_check(cudaMemcpy(&diffs, b->dev_diffs, sizeof diffs, cudaMemcpyDeviceToHost),
                        "reading the sums' check");
    if (st == LATMC_OK && diffs != 0) {
        (void)cudaMemsetAsync(b->dev_diffs, 0, sizeof diffs, v->cs0->stream);
        st = cuda_core->fail(LATMC_EDEVICE, "CUDA: %s=check: %llu of the sums the sweep kernel "
                             "left differ from the reduction's", ENS_HEIS_SUMS_ENV, diffs);
    }
    return st;
}

int cuda_ens_heis_measure_all(latmc_sim *const *members, int n, void *sums)
{
    int st = LATMC_OK;
    struct heis_batch *b = ready_batch(members, n, false, &st);
    if (!b)
        return st;
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    const size_t bytes = (size_t)n * 13 * sizeof(double);
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(b->dev_sums, 0, bytes, cs0->stream), "clearing the sums");
    if (st == LATMC_OK)
        st = cuda_check(cuda_ens_heis_measure(cs0->stream, &b->shape, b->dev_table, n,
                                              b->ch.rows_per_chunk, b->ch.nchunks,
                                              b->ch.chunks_per_plane, b->dev_sums),
                        "launching the members' measurement");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(sums, b->dev_sums, bytes, cudaMemcpyDeviceToHost,
                                        cs0->stream), "reading the members' sums");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(cs0->stream), "measuring the members");
    put_batch(b);
    return st;
}
