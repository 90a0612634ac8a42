/*
 * Heisenberg members of an ensemble in one launch: the host side of heisenberg_batch_kernels.cu
 * (doc/ensembles.md, "Execution"), the model's part of the batch driver
 * (exec/cuda_batch.c: the batch kept between calls, its table, the run of the plan's
 * calls, the measurement's frame), and the batch's launches for tempering on the device
 * (cuda_heisenberg_temper.c).
 *
 * The members' configurations stay in their own sims' device buffers (the kernel updates
 * the buffer that holds it in place, so the sims' state is what their own sweeps would
 * leave). What the launch needs besides lives in the batch:
 *   - the members' couplings, copied once from the members themselves (the executor's host
 *     copy, cuda_batch_member_couplings: the authoritative values, whatever set them) into one
 *     device array, structure of arrays, consecutive members with equal couplings (the
 *     temperatures and replicas of a sample) sharing one copy: fewer bytes, and the copies
 *     a launch reads stay in L2;
 *   - the device table of the members (pointers, seed, beta, h, nover), rebuilt on the
 *     host at every call (one pass over the members, no device work) and uploaded only
 *     when it differs from what is on the device (a tempering swap changed a beta); with
 *     the rounds on the device (cuda_heisenberg_temper.c) the round writes a moved member's beta
 *     into the device's table itself, and the count of uploads tells it when one from the
 *     host's lagging parameters overwrote them.
 * Members whose spins one block's shared memory does not hold run a launch a pass over
 * every member instead (launch_passes: the one-lattice pass kernel's code,
 * heisenberg/heisenberg_kernels.cu's cuda_heisenberg_pass_batch, on each member's own two
 * buffers, couplings and geometry); with the rounds on the device their passes take the
 * betas from the device's table, and the table then names where each configuration lies
 * (the round's sums read it there).
 * LATMC_ENS_HEIS_BATCH=0 when the members are made (cuda_sim's ens_one_by_one,
 * cuda_ens_batch_declined) runs them one by one, any member so made the whole ensemble (the
 * driver's rule); LATMC_ENS_HEIS_GEOM and LATMC_ENS_HEIS_SUMS are read when the batch is
 * made (its first call), for the kernel of whole sweeps only.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_heisenberg_leaf.h"
#include "heisenberg_batch.h"
#include "heisenberg.h"
#include "heisenberg_cuda.h"

/* The kernel writes each member's sums as 13 consecutive doubles. */
_Static_assert(sizeof(struct latmc_heisenberg_sums) == 13 * sizeof(double),
               "struct latmc_heisenberg_sums is not 13 packed doubles");

/* Sweeps per launch: bounds one launch's time (a call of many sweeps is several). */
#define ENS_HEISENBERG_SWEEPS_PER_LAUNCH 256

/* The geometry override: "THREADS,JSMEM" (threads a multiple of 32 up to 1024; JSMEM 1:
 * the couplings in shared memory as well), for measurements. */
#define ENS_HEISENBERG_GEOM_ENV "LATMC_ENS_HEIS_GEOM"

/* Where a tempering round's sums come from: unset or "0", the reduction launch after the
 * sweeps (cuda_ens_heisenberg_measure); "1", the sweep kernel's last launch before the round
 * (where its shared memory takes the partials; else the reduction); "check", both, each
 * fused sum compared with the reduction's bit for bit on the device and a list with any
 * difference failed (LATMC_EDEVICE): the check that the two codes give the same doubles
 * (the reduction's round form, cuda_ens_heisenberg_measure_round, compared as well).
 * Read when the batch is made. The fused sums are not the default: both their first form
 * (every lane of a warp on one shared-memory bank) and the lane-skewed one made a round
 * slower than the reduction does, and a form by rows (a thread a column forming the terms,
 * a thread a chunk adding them) made the launch as much longer as the reduction takes: at
 * two blocks an SM the chunks' chains of dependent additions bind it (doc/ensembles.md,
 * doc/PERFORMANCE.md). */
#define ENS_HEISENBERG_SUMS_ENV "LATMC_ENS_HEIS_SUMS"

struct heisenberg_batch {
    struct cuda_batch b; /* first: the driver's (its table: struct cuda_ens_heisenberg_member) */
    int dbl, heatbath;
    ens_heisenberg_shape shape;
    int threads, jsmem;
    float *J;                   /* device: the distinct couplings, SoA each */
    const float **member_J;     /* host: member m's copy in J */
    double *dev_sums;           /* 13 doubles a member (LATMC_STEP_MEASURE) */
    ens_heisenberg_chunks ch;         /* the reduction's, the leaf's */
    bool fused;                 /* the sweep kernel can leave the sums (its shared memory) */
    bool check;                 /* LATMC_ENS_HEIS_SUMS=check */
    double *dev_check;          /* check: the reduction's sums, 13 doubles a member */
    unsigned long long *dev_diffs; /* check: the fused sums that differed, so far */
    /* Members whose spins one block's shared memory does not hold: a launch a pass over
     * every member, the one-lattice pass kernel's code (cuda_heisenberg_pass_batch), each
     * member's buffers, couplings and geometry its own box's (one geometry for all) */
    bool passes;
    struct cuda_heisenberg_geom geom[2];        /* [heat bath?] member 0's */
    struct cuda_heisenberg_pass_args *pass_host, *pass_dev; /* a member's each */
    unsigned long long *pass_count; /* the heat bath's count (per_sweep counts the members) */
};

/* Frees the model's part (also of a batch whose init failed part way: calloc'ed). */
static void heisenberg_fini(struct cuda_batch *eb)
{
    struct heisenberg_batch *b = (struct heisenberg_batch *)eb;
    cudaFree(b->J);
    cudaFree(b->dev_sums);
    cudaFree(b->dev_check);
    cudaFree(b->dev_diffs);
    cudaFree(b->pass_dev);
    cudaFree(b->pass_count);
    free(b->pass_host);
    free(b->member_J);
}

/* Threads and jsmem of the launch: the override, or the defaults: the couplings in shared
 * memory beside the spins where they fit (16^3: 96 KiB a block, two blocks an SM), and as
 * many threads as two blocks' registers allow (float 3D: 80 registers, 384 threads;
 * double: 118, 256; ptxas -v of CUDA 13.0 since the copies by cp.async). */
static int choose_geometry(struct heisenberg_batch *b)
{
    int threads = b->dbl ? 256 : 384, jsmem = 1;
    const char *env = getenv(ENS_HEISENBERG_GEOM_ENV);
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
                                   ENS_HEISENBERG_GEOM_ENV, env);
        threads = (int)t;
        jsmem = (int)j;
        forced = true;
    }
    for (;; jsmem--) {
        const cudaError_t err = cuda_ens_heisenberg_prepare(b->dbl, b->shape.ndim,
                                                      cuda_ens_heisenberg_smem(&b->shape, jsmem),
                                                      threads);
        if (err == cudaSuccess)
            break;
        if (err != cudaErrorInvalidConfiguration)
            return cuda_check(err, "preparing the ensembles' Heisenberg kernel");
        if (forced)
            return cuda_core->fail(LATMC_EINVAL,
                                   "%s=\"%s\": this device cannot launch the "
                                   "ensembles' Heisenberg kernel with %d threads for members "
                                   "of %d sites",
                                   ENS_HEISENBERG_GEOM_ENV, env, threads, b->shape.n);
        if (jsmem == 0)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: members of %d sites do not fit "
                                   "one block's shared memory", b->shape.n);
    }
    b->threads = threads;
    b->jsmem = jsmem;
    return LATMC_OK;
}

/* The members' couplings into b->J (one copy per run of equal neighbours). */
static int copy_couplings(struct heisenberg_batch *b)
{
    latmc_sim *const *members = b->b.members;
    const cudaStream_t stream = b->b.stream; /* the sweeps' */
    const size_t n = (size_t)b->shape.n, per = n * (size_t)b->shape.ndim;
    float *aos = malloc(per * sizeof *aos), *prev = malloc(per * sizeof *prev);
    float *soa = malloc(per * sizeof *soa);
    size_t *slot = malloc((size_t)b->b.n * sizeof *slot);
    int st = aos && prev && soa && slot ? LATMC_OK
                                        : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate "
                                                          "the members' couplings");
    /* first pass: which members start a new copy */
    size_t copies = 0;
    for (int m = 0; m < b->b.n && st == LATMC_OK; m++) {
        st = cuda_batch_member_couplings(members[m], aos);
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
    for (int m = 0; m < b->b.n && st == LATMC_OK; m++) {
        b->member_J[m] = b->J + slot[m] * per;
        if (m > 0 && slot[m] == slot[m - 1])
            continue;
        st = cuda_batch_member_couplings(members[m], aos);
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

/* Whether the sweep kernel leaves the round's sums (ENS_HEISENBERG_SUMS_ENV; where the launch's
 * shared memory takes the chunks' partials besides: 4 doubles a chunk) and, checking,
 * the check's buffers. */
static int choose_sums(struct heisenberg_batch *b)
{
    const char *env = getenv(ENS_HEISENBERG_SUMS_ENV);
    const bool off = !env || !*env || strcmp(env, "0") == 0;
    b->check = env && strcmp(env, "check") == 0;
    if (env && *env && !off && !b->check && strcmp(env, "1") != 0)
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": expected 0, 1 or check",
                               ENS_HEISENBERG_SUMS_ENV, env);
    b->fused = false;
    if (!off) {
        const cudaError_t err = cuda_ens_heisenberg_prepare_sums(
            b->dbl, b->shape.ndim, cuda_ens_heisenberg_sums_smem(&b->shape, b->jsmem, &b->ch),
            cuda_ens_heisenberg_smem(&b->shape, b->jsmem), b->threads);
        if (err != cudaSuccess && err != cudaErrorInvalidConfiguration)
            return cuda_check(err, "preparing the ensembles' Heisenberg kernel");
        (void)cudaGetLastError();
        b->fused = err == cudaSuccess; /* else the reduction launch, as with "0" */
    }
    int st = LATMC_OK;
    if (b->check && b->fused)
        st = cuda_check(cudaMalloc((void **)&b->dev_check, (size_t)b->b.n * 13 * sizeof(double)),
                        "cannot allocate device memory for the sums' check");
    if (st == LATMC_OK && b->check && b->fused)
        st = cuda_check(cudaMalloc((void **)&b->dev_diffs, sizeof *b->dev_diffs),
                        "cannot allocate device memory for the sums' check");
    if (st == LATMC_OK && b->check && b->fused) /* on the stream of the launches */
        st = cuda_check(cudaMemsetAsync(b->dev_diffs, 0, sizeof *b->dev_diffs,
                                        b->b.stream),
                        "clearing the sums' check");
    return st;
}

/* The members' shape and the reduction's chunks, the one-device sim's (lib/heisenberg.h). */
static ens_heisenberg_shape heisenberg_shape_of(const latmc_sim *sim)
{
    const ens_heisenberg_shape g = {
        .ndim = sim->desc.ndim,
        .lx = (int)sim->desc.extent[0],
        .ly = (int)sim->desc.extent[1],
        .lz = sim->desc.ndim == 3 ? (int)sim->desc.extent[2] : 1,
        .n = (int)sim->nsites,
    };
    return g;
}

static ens_heisenberg_chunks heisenberg_chunks_of(const ens_heisenberg_shape *g)
{
    const int rows_per_plane = g->ndim == 3 ? g->ly : 1;
    const int rpc = (int)latmc_heisenberg_rows_per_chunk(g->lx, rows_per_plane);
    const ens_heisenberg_chunks ch = { .rows_per_chunk = rpc,
                                 .nchunks = (g->ly * g->lz + rpc - 1) / rpc,
                                 .chunks_per_plane = rows_per_plane / rpc };
    return ch;
}

/* The shared memory a block of sim's device may opt in to, in *optin: no device work (the
 * device's limit, kept: cuda_device.h); false where it is not known (the callers then say
 * yes, and choose_geometry decides when the batch is made). */
static bool device_optin(const latmc_sim *sim, int *optin)
{
    *optin = 0;
    if (cuda_device_smem_optin(cuda_batch_device_of(sim), optin) == cudaSuccess)
        return true;
    (void)cudaGetLastError();
    return false;
}

/* Whether one block's shared memory holds a member's spins (choose_geometry's smallest
 * need: the couplings read from global memory; the kernels have no static shared memory),
 * so that whole sweeps run in one launch; else a launch a pass (init_passes). */
static bool spins_fit(const latmc_sim *sim)
{
    const ens_heisenberg_shape g = heisenberg_shape_of(sim);
    int optin;
    return !device_optin(sim, &optin) || cuda_ens_heisenberg_smem(&g, 0) <= (size_t)optin;
}

/* The batch of members too large for one block: each member's couplings its own box's
 * (no copy), member 0's geometry of both kinds of pass, the table of the passes' arguments
 * and the heat bath's counter. */
static int init_passes(struct heisenberg_batch *b)
{
    for (int m = 0; m < b->b.n; m++)
        b->member_J[m] = cuda_heisenberg_member_couplings(
            cuda_batch_member_box(b->b.members[m], LATMC_MODEL_HEISENBERG));
    const struct cuda_box *box0 = cuda_batch_member_box(b->b.members[0], LATMC_MODEL_HEISENBERG);
    for (int hb = 0; hb < 2; hb++)
        b->geom[hb] = *cuda_heisenberg_member_geom(box0, hb);
    b->threads = b->geom[b->heatbath].threads;
    b->jsmem = b->geom[b->heatbath].jsmem;
    const size_t bytes = (size_t)b->b.n * sizeof *b->pass_host;
    b->pass_host = malloc(bytes);
    int st = b->pass_host ? LATMC_OK
                          : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's "
                                            "batch");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&b->pass_dev, bytes),
                        "cannot allocate device memory for the members' passes");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&b->pass_count, sizeof *b->pass_count),
                        "cannot allocate device memory for a counter");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(b->pass_count, 0, sizeof *b->pass_count,
                                        b->b.stream),
                        "clearing a counter");
    return st;
}

/* The model's part of a new batch (members, n and device set, the current device its
 * own): the members' shape, the launch's geometry, the sums' buffers and the couplings. */
static int heisenberg_init(struct cuda_batch *eb)
{
    struct heisenberg_batch *b = (struct heisenberg_batch *)eb;
    const latmc_sim *first = eb->members[0];
    b->dbl = first->desc.precision == LATMC_PRECISION_DOUBLE;
    b->heatbath = first->desc.algorithm == LATMC_ALGO_HEATBATH;
    b->shape = heisenberg_shape_of(first);
    b->ch = heisenberg_chunks_of(&b->shape);
    b->member_J = malloc((size_t)eb->n * sizeof *b->member_J);
    b->passes = !spins_fit(first);
    int st = !b->member_J ? cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate an ensemble's "
                                            "batch")
             : b->passes ? init_passes(b)
                         : choose_geometry(b);
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&b->dev_sums, (size_t)eb->n * 13 * sizeof(double)),
                        "cannot allocate device memory for the members' sums");
    if (st == LATMC_OK && !b->passes)
        st = choose_sums(b);
    if (st == LATMC_OK && !b->passes)
        st = copy_couplings(b);
    return st;
}

/* Whether the batch can measure this member (the reduction's shared memory: a 2D strip's
 * many chunks may fit no block, and every measurement and device round would fail); its
 * spins run in one block or, where they do not fit one (spins_fit), a launch a pass. */
static bool batch_fits(const latmc_sim *sim)
{
    const ens_heisenberg_shape g = heisenberg_shape_of(sim);
    const ens_heisenberg_chunks ch = heisenberg_chunks_of(&g);
    int optin;
    return !device_optin(sim, &optin) || cuda_ens_heisenberg_measure_fits(&g, ch.nchunks, optin);
}

/* A member 0: Heisenberg of the local passes (an embedded cluster step is not the
 * batch's), one replica, 2D or 3D, L_x even, small enough for 32-bit indices, a box alone,
 * its sums' reduction launchable. The driver asks every member for a box alone of member
 * 0's algorithm. */
static bool heisenberg_member_ok(const latmc_sim *sim)
{
    return sim->desc.model == LATMC_MODEL_HEISENBERG &&
           sim->desc.algorithm != LATMC_ALGO_SWENDSEN_WANG &&
           sim->desc.algorithm != LATMC_ALGO_WOLFF && sim->desc.replicas == 1 &&
           sim->desc.ndim >= 2 && sim->desc.ndim <= 3 && sim->nsites <= (1 << 24) &&
           sim->desc.extent[0] % 2 == 0 && cuda_batch_member_box(sim, LATMC_MODEL_HEISENBERG) &&
           batch_fits(sim);
}

/* Members of one ensemble share their chain's description; their couplings and
 * parameters are their entries'. A launch a pass (members too large for one block) takes
 * every member through the same passes of one geometry: one nover, and each box's
 * geometry member 0's. */
static bool heisenberg_same_chain(const latmc_sim *first, const latmc_sim *sim)
{
    if (spins_fit(first))
        return true;
    const struct latmc_heisenberg_params *p0 = first->model_data, *p = sim->model_data;
    const struct cuda_box *b0 = cuda_batch_member_box(first, LATMC_MODEL_HEISENBERG),
                          *b = cuda_batch_member_box(sim, LATMC_MODEL_HEISENBERG);
    if (p->nover != p0->nover || !b0 || !b)
        return false;
    for (int hb = 0; hb < 2; hb++)
        if (memcmp(cuda_heisenberg_member_geom(b0, hb), cuda_heisenberg_member_geom(b, hb),
                   sizeof(struct cuda_heisenberg_geom)) != 0)
            return false;
    return true;
}

/* The kernel runs every step of a sweep: whole sweeps only, of every lattice it takes. */
static bool heisenberg_whole_sweeps(const latmc_sim *sim)
{
    (void)sim;
    return true;
}

static bool heisenberg_call_ok(const latmc_sim *first, const struct latmc_step_call *k)
{
    (void)first;
    return k->part == LATMC_STEP_SWEEPS;
}

/* Heat bath: every site of the replica is updated (and counted accepted) once per sweep,
 * as heisenberg_sweep's counter; overrelaxation counts neither. */
static uint64_t heisenberg_per_sweep(const latmc_sim *first)
{
    return first->desc.algorithm == LATMC_ALGO_HEATBATH ? (uint64_t)first->nsites : 0;
}

static uint64_t heisenberg_sweeps_per_launch(const latmc_sim *first)
{
    (void)first;
    return ENS_HEISENBERG_SWEEPS_PER_LAUNCH;
}

/* Member m's entry: the buffer that holds its configuration now, its couplings' copy, its
 * seed and parameters. */
static void heisenberg_entry(struct cuda_batch *eb, int m, void *entry)
{
    const struct heisenberg_batch *b = (const struct heisenberg_batch *)eb;
    const latmc_sim *sim = eb->members[m];
    const struct latmc_heisenberg_params *p = sim->model_data;
    struct cuda_ens_heisenberg_member *e = entry;
    /* batchable: a box alone of the model */
    e->spins = cuda_heisenberg_member_spins(cuda_batch_member_box(sim, LATMC_MODEL_HEISENBERG));
    e->J = b->member_J[m];
    e->seed = sim->desc.seed;
    e->beta = p->beta;
    e->h = p->h;
    e->nover = p->nover;
}

/* A launch's kind for the driver's debug line: the couplings in shared memory or not,
 * whole sweeps. */
static int heisenberg_kind(const struct heisenberg_batch *b)
{
    return (b->jsmem ? 1 : 0) | (b->passes ? 0 : CUDA_BATCH_FUSED);
}

/* The members' table on the device (the driver keeps it untyped). */
static const struct cuda_ens_heisenberg_member *table_of(const struct heisenberg_batch *b)
{
    return (const struct cuda_ens_heisenberg_member *)b->b.dev_table;
}

/* n_sweeps sweeps from sweep0 of members [m0, m0 + n) on `stream`,
 * ENS_HEISENBERG_SWEEPS_PER_LAUNCH at most a launch (one launch's time bounded); with sums
 * (b->fused), the last launch leaves the members' sums there (sums[13 m] member m's). */
static cudaError_t launch_sweeps(const struct heisenberg_batch *b, cudaStream_t stream, int m0,
                                 int n, uint64_t sweep0, uint64_t count, double *sums,
                                 bool after_round)
{
    cudaError_t err = cudaSuccess;
    for (uint64_t done = 0; done < count && err == cudaSuccess;) {
        const uint64_t k = count - done < ENS_HEISENBERG_SWEEPS_PER_LAUNCH
                               ? count - done : ENS_HEISENBERG_SWEEPS_PER_LAUNCH;
        /* only the first launch follows the round; the next ones follow sweeps */
        err = cuda_ens_heisenberg_sweeps(stream, &b->shape, table_of(b) + m0, n, b->dbl,
                                   b->heatbath, b->jsmem, b->threads, sweep0 + done, k,
                                   done + k == count && sums ? sums + 13 * (size_t)m0 : NULL,
                                   &b->ch, after_round && done == 0);
        done += k;
    }
    return err;
}

/*
 * n_sweeps sweeps from sweep0 of members too large for one block: a launch a pass over
 * every member (the heat bath, then nover overrelaxation passes, or max(nover, 1) of them,
 * as a member's own sweep), each member's pass the one its own sweep launches (the same
 * kernel code, geometry, buffers, couplings and draws), the buffers alternating; each box
 * is then told where its configuration lies, after the passes launched (also where one
 * failed to launch: those before it run). With `tempering` (rounds on the device,
 * cuda_heisenberg_temper.c) the betas are the device table's, which the rounds move (the members'
 * own lag behind until the core fetches the map), and the table's spins then name each
 * member's configuration after the passes, as the round's sums read it.
 */
static cudaError_t launch_passes(struct heisenberg_batch *b, uint64_t sweep0, uint64_t n_sweeps,
                                 bool tempering)
{
    const cudaStream_t stream = b->b.stream;
    const int n = b->b.n;
    for (int m = 0; m < n; m++) {
        const latmc_sim *sim = b->b.members[m];
        const struct latmc_heisenberg_params *p = sim->model_data;
        struct cuda_heisenberg_pass_args *a = &b->pass_host[m];
        float *cur, *other;
        cuda_heisenberg_member_buffers(cuda_batch_member_box(sim, LATMC_MODEL_HEISENBERG), &cur,
                                       &other);
        memset(a, 0, sizeof *a);
        a->src = cur;
        a->dst = other;
        a->J = b->member_J[m];
        a->beta = p->beta;
        a->h = p->h;
        a->seed = sim->desc.seed;
        /* the tile copies move pairs of floats, and 16-byte pieces of the spins in the
         * float fixed-tile instances, as cuda_heisenberg_pass checks (a member's buffers are
         * its box's own allocation, arrays of L_x L_y z floats, a multiple of 4) */
        if ((((uintptr_t)cur | (uintptr_t)other) & 15u) != 0 || ((uintptr_t)a->J & 7u) != 0)
            return cudaErrorMisalignedAddress;
    }
    /* a pageable source: the call returns once it has read it */
    cudaError_t err = cudaMemcpyAsync(b->pass_dev, b->pass_host, (size_t)n * sizeof *b->pass_host,
                                      cudaMemcpyHostToDevice, stream);
    struct cuda_ens_heisenberg_member *table = b->b.dev_table;
    if (err == cudaSuccess && tempering) /* each member's beta the table's: a strided copy */
        err = cudaMemcpy2DAsync(&b->pass_dev[0].beta, sizeof *b->pass_dev, &table[0].beta,
                                sizeof *table, sizeof table[0].beta, (size_t)n,
                                cudaMemcpyDeviceToDevice, stream);
    const struct latmc_heisenberg_params *p0 = b->b.members[0]->model_data;
    const int nover = b->heatbath || p0->nover > 0 ? p0->nover : 1;
    const int dbl = b->dbl;
    uint64_t passes = 0;
    for (uint64_t t = 0; t < n_sweeps && err == cudaSuccess; t++) {
        if (b->heatbath) {
            /* the heat bath's draws: the sweep word of its colour-0 step (the leaf's) */
            const uint64_t word = latmc_rng_name_sweep(latmc_heisenberg_rng_name(sweep0 + t, 0));
            err = cuda_heisenberg_pass_batch(stream, &b->geom[1], b->pass_dev, n,
                                             (int)(passes & 1u), word, b->pass_count, dbl, 1);
            passes += err == cudaSuccess;
        }
        for (int k = 0; k < nover && err == cudaSuccess; k++) {
            err = cuda_heisenberg_pass_batch(stream, &b->geom[0], b->pass_dev, n,
                                             (int)(passes & 1u), 0, b->pass_count, dbl, 0);
            passes += err == cudaSuccess;
        }
    }
    for (int m = 0; m < n; m++)
        cuda_heisenberg_member_passed(
            cuda_batch_member_box(b->b.members[m], LATMC_MODEL_HEISENBERG), passes);
    /* the table's spins where the configurations now lie: the passes' last destinations
     * (an odd count), else their first sources */
    const void *now = (passes & 1u) ? (const void *)&b->pass_dev[0].dst
                                    : (const void *)&b->pass_dev[0].src;
    if (err == cudaSuccess && tempering)
        err = cudaMemcpy2DAsync(&table[0].spins, sizeof *table, now, sizeof *b->pass_dev,
                                sizeof table[0].spins, (size_t)n, cudaMemcpyDeviceToDevice,
                                stream);
    return err;
}

static cudaError_t heisenberg_sweeps(struct cuda_batch *eb, const struct latmc_step_call *k,
                                     uint64_t sweep0, uint64_t n, int *kind)
{
    (void)k;
    struct heisenberg_batch *b = (struct heisenberg_batch *)eb;
    *kind = heisenberg_kind(b);
    return b->passes ? launch_passes(b, sweep0, n, false)
                     : launch_sweeps(b, b->b.stream, 0, b->b.n, sweep0, n,
                                     NULL, false);
}

/* The members' sums into dev_sums (bonds and M; the overlap left as it was). */
static cudaError_t launch_measure(const struct heisenberg_batch *b)
{
    return cuda_ens_heisenberg_measure(b->b.stream, &b->shape, b->b.dev_table,
                                 b->b.n, b->ch.rows_per_chunk, b->ch.nchunks,
                                 b->ch.chunks_per_plane, b->dev_sums);
}

/* A round's sums into `sums`: the bonds and M_z (cuda_ens_heisenberg_measure_round; M_x, M_y
 * and the overlap left as they were: a round reads the bonds and M_z alone). */
/* The round's sums (bonds and M_z) of members [m0, m0 + n) on `stream` into sums[13 m ..]. */
static cudaError_t launch_round_sums(const struct heisenberg_batch *b, cudaStream_t stream, int m0,
                                     int n, double *sums)
{
    return cuda_ens_heisenberg_measure_round(stream, &b->shape, table_of(b) + m0, n,
                                             b->ch.rows_per_chunk, b->ch.nchunks,
                                             b->ch.chunks_per_plane, sums + 13 * (size_t)m0);
}

/* Every member's 13 sums (zeroed first) in one launch, read back into sums. */
static int heisenberg_measure(struct cuda_batch *eb, void *sums)
{
    const struct heisenberg_batch *b = (const struct heisenberg_batch *)eb;
    const cudaStream_t stream = eb->stream;
    const size_t bytes = (size_t)eb->n * 13 * sizeof(double);
    int st = cuda_check(cudaMemsetAsync(b->dev_sums, 0, bytes, stream), "clearing the sums");
    if (st == LATMC_OK)
        st = cuda_check(launch_measure(b), "launching the members' measurement");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(sums, b->dev_sums, bytes, cudaMemcpyDeviceToHost,
                                        stream), "reading the members' sums");
    return st;
}

static const struct cuda_batch_ops heisenberg_ops = {
    .model = LATMC_MODEL_HEISENBERG,
    .name = "Heisenberg",
    .codes = { "couplings read from global memory", "couplings in shared memory" },
    .step_launch = "a launch a pass", /* whole sweeps: members too large for a block */
    .measure_launches = "in one launch",
    .batch_bytes = sizeof(struct heisenberg_batch),
    .entry_bytes = sizeof(struct cuda_ens_heisenberg_member),
    .counts = false,
    .member_ok = heisenberg_member_ok,
    .same_chain = heisenberg_same_chain,
    .whole_sweeps = heisenberg_whole_sweeps,
    .call_ok = heisenberg_call_ok,
    .per_sweep = heisenberg_per_sweep,
    .sweeps_per_launch = heisenberg_sweeps_per_launch,
    .init = heisenberg_init,
    .fini = heisenberg_fini,
    .entry = heisenberg_entry,
    .step = NULL,
    .sweeps = heisenberg_sweeps,
    .measure = heisenberg_measure,
    .measured = NULL,
};

/*
 * A list of the plan's calls for the batch calls[0].members (lib/box.h): whole sweeps
 * only (LATMC_STEP_SWEEPS; the kernel runs every step of a sweep, one block per member,
 * up to ENS_HEISENBERG_SWEEPS_PER_LAUNCH sweeps a launch), LATMC_EUNSUPPORTED with nothing
 * done for steps one by one or members that cannot run together.
 */
static int heisenberg_batch_run_steps(const struct latmc_step_call *calls, int n_calls,
                                      uint64_t *accepted, uint64_t *attempted)
{
    return cuda_batch_run_steps(&heisenberg_ops, calls, n_calls, accepted, attempted);
}

static int heisenberg_batch_measure_all(latmc_sim *const *members, int n, void *sums)
{
    return cuda_batch_measure(&heisenberg_ops, members, n, sums);
}

/* The batch layout's capabilities for Heisenberg sims (lib/box.h): the driver's (none for
 * a member the batch never takes, the sums' reduction past a block's shared memory
 * included, or one made to run one by one; else whole sweeps), and exchange rounds between
 * them on the device (cuda_heisenberg_temper.c; the tempering state's load checks that the members'
 * betas are the ladder's): beside the kernel of whole sweeps, or beside a launch a pass for
 * members too large for one block. */
static unsigned heisenberg_batch_caps(const latmc_sim *sim)
{
    const unsigned caps = cuda_batch_caps(&heisenberg_ops, sim);
    return caps ? caps | LATMC_STEP_CAP_BATCH_EXCHANGE : caps;
}

int cuda_ens_heisenberg_open(latmc_sim *const *members, int n, struct cuda_ens_heisenberg_view *v)
{
    memset(v, 0, sizeof *v);
    int st = LATMC_OK;
    struct cuda_batch *eb = cuda_batch_ready(&heisenberg_ops, members, n, true, &st);
    if (!eb)
        return st;
    if (st < 0) {
        cuda_batch_put_back(eb);
        return st;
    }
    const struct heisenberg_batch *b = (const struct heisenberg_batch *)eb;
    v->batch = eb;
    v->dev = eb->dev_table;
    v->host = eb->last; /* what cuda_batch_ready uploaded, or found on the device */
    v->sums = b->dev_sums;
    v->uploads = eb->uploads;
    v->fused_sums = b->fused;
    v->updates_per_sweep = heisenberg_per_sweep(members[0]); /* as run_steps counts */
    return LATMC_OK;
}

void cuda_ens_heisenberg_close(struct cuda_ens_heisenberg_view *v)
{
    if (v->batch)
        cuda_batch_put_back(v->batch);
    v->batch = NULL;
}

/* The device's table no longer what the host uploaded (cuda_heisenberg_temper.c: the rounds wrote
 * betas into it, and the map they follow went back to the host or was lost): the next call
 * uploads its table even where it equals the host's copy of the last upload, since the
 * members' own betas may have come back to exactly that copy (a ladder set again) while
 * the device still holds the rounds' betas. */
void cuda_ens_heisenberg_table_moved(latmc_sim *const *members, int n)
{
    (void)n;
    cuda_batch_table_moved(members);
}

cudaError_t cuda_ens_heisenberg_launch_sweeps(const struct cuda_ens_heisenberg_view *v,
                                              uint64_t sweep0, uint64_t n_sweeps, bool sums,
                                              bool after_round)
{
    struct heisenberg_batch *b = v->batch;
    if (!b->passes)
        return cuda_ens_heisenberg_launch_sweeps_of(v, b->b.stream, 0, b->b.n, sweep0,
                                                    n_sweeps, sums, after_round);
    const cudaError_t err = launch_passes(b, sweep0, n_sweeps, true);
    if (err == cudaSuccess)
        cuda_batch_log_kind(&b->b, heisenberg_kind(b));
    return err;
}

bool cuda_ens_heisenberg_splits(const struct cuda_ens_heisenberg_view *v)
{
    const struct heisenberg_batch *b = v->batch;
    return !b->passes && !b->check;
}

cudaError_t cuda_ens_heisenberg_launch_sweeps_of(const struct cuda_ens_heisenberg_view *v,
                                                 cudaStream_t stream, int m0, int n,
                                                 uint64_t sweep0, uint64_t n_sweeps, bool sums,
                                                 bool after_round)
{
    struct heisenberg_batch *b = v->batch;
    const cudaError_t err = launch_sweeps(b, stream, m0, n, sweep0, n_sweeps,
                                          sums && b->fused ? b->dev_sums : NULL, after_round);
    if (err == cudaSuccess)
        cuda_batch_log_kind(&b->b, heisenberg_kind(b));
    return err;
}

cudaError_t cuda_ens_heisenberg_launch_measure(const struct cuda_ens_heisenberg_view *v)
{
    const struct heisenberg_batch *b = v->batch;
    return cuda_ens_heisenberg_launch_measure_of(v, b->b.stream, 0, b->b.n);
}

cudaError_t cuda_ens_heisenberg_launch_measure_of(const struct cuda_ens_heisenberg_view *v,
                                                  cudaStream_t stream, int m0, int n)
{
    struct heisenberg_batch *b = v->batch;
    const cudaError_t err = launch_round_sums(b, stream, m0, n, b->dev_sums);
    if (err == cudaSuccess)
        cuda_batch_log_measure(&b->b);
    return err;
}

/* LATMC_ENS_HEIS_SUMS=check, after a launch that left the sums: the reduction's into the
 * check's buffer and each compared with the fused one, then the reduction's round form
 * likewise (nothing waited for). */
cudaError_t cuda_ens_heisenberg_launch_check(const struct cuda_ens_heisenberg_view *v)
{
    const struct heisenberg_batch *b = v->batch;
    if (!b->check || !b->fused)
        return cudaSuccess;
    /* every slot first set to a NaN no sum has (all bits one): a full form that left a
     * member's sums unwritten fails the comparison instead of passing on an earlier
     * check's values */
    cudaError_t err = cudaMemsetAsync(b->dev_check, 0xff, (size_t)b->b.n * 13 * sizeof(double),
                                      b->b.stream);
    if (err == cudaSuccess)
        err = cuda_ens_heisenberg_measure(b->b.stream, &b->shape, b->b.dev_table, b->b.n,
                                    b->ch.rows_per_chunk, b->ch.nchunks, b->ch.chunks_per_plane,
                                    b->dev_check);
    if (err == cudaSuccess)
        err = cuda_ens_heisenberg_sums_compare(b->b.stream, b->dev_sums, b->dev_check, b->b.n,
                                         b->dev_diffs);
    /* the round's form too (the reduction's launch without a fused sweep): its bonds and M_z
     * over the full reduction's in the check's buffer, M_x and M_y kept, compared again.
     * Slots 0 and 3 are first set to a NaN no sum has (all bits one), so that a round form
     * that left them unwritten fails the comparison instead of passing on the full form's.
     * Where the round's window kernel does not apply, the round form is the full one
     * (cuda_ens_heisenberg_measure_round): it writes the four slots again, the same comparison. */
    const size_t pitch = 13 * sizeof(double);
    for (int slot = 0; slot < 4 && err == cudaSuccess; slot += 3)
        err = cudaMemset2DAsync(b->dev_check + slot, pitch, 0xff, sizeof(double),
                                (size_t)b->b.n, b->b.stream);
    if (err == cudaSuccess)
        err = launch_round_sums(b, b->b.stream, 0, b->b.n, b->dev_check);
    if (err == cudaSuccess)
        err = cuda_ens_heisenberg_sums_compare(b->b.stream, b->dev_sums, b->dev_check, b->b.n,
                                         b->dev_diffs);
    return err;
}

/* After the list's launches were waited for: LATMC_EDEVICE where a checked fused sum
 * differed from the reduction's (cuda_batch_check_count). */
int cuda_ens_heisenberg_check_result(const struct cuda_ens_heisenberg_view *v, int status)
{
    const struct heisenberg_batch *b = v->batch;
    if (!b->check || !b->fused)
        return status;
    return cuda_batch_check_count(b->dev_diffs, b->b.stream, status, ENS_HEISENBERG_SUMS_ENV,
                                 "the sums the sweep kernel left differ from the reduction's "
                                 "(full or a round's form)");
}

static const struct cuda_batch_model heisenberg_batch_model = {
    .one_by_one_env = "LATMC_ENS_HEIS_BATCH",
    .caps = heisenberg_batch_caps,
    .run_steps = heisenberg_batch_run_steps,
    .measure_all = heisenberg_batch_measure_all,
    .swaps = true,
};

/* Every Heisenberg sim (the capabilities tell which members run as a batch; those of the
 * embedded clusters do not, but are measured and swap as a batch). */
const struct cuda_batch_model *cuda_heisenberg_batch_of(const latmc_sim *sim)
{
    (void)sim;
    return &heisenberg_batch_model;
}
