/*
 * phi^4 members of an ensemble in one launch: the host side of phi4_batch_kernels.cu
 * (doc/ensembles.md, "Execution"), the model's part of the batch driver
 * (exec/cuda_batch.c: the batch kept between calls, its table, the run of the plan's
 * calls, the measurement's frame).
 *
 * Each member runs by its own plan (phi4/cuda_phi4_plan.c: the members of one batch must
 * have the same one, which they do unless the environment changed between their
 * creations). A member's entry is its field (its sim's device values, updated in place),
 * its coefficients (the sim's model data: a tempering swap exchanges those,
 * lib/ens_exchange.c) and its seed's round keys. The batch keeps the measurement's
 * scratch besides.
 *
 * LATMC_ENS_PHI4_BATCH=0 when the members are made (cuda_sim's ens_one_by_one,
 * cuda_ens_batch_declined) runs them one by one (the tests' reference).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_leaf.h"
#include "cuda_phi4_plan.h"
#include "phi4_batch.h"
#include "model.h"

#define NSUMS 5 /* struct latmc_phi4_sums */
/* Where a device tempering round's sum phi^2 comes from (read at every list): unset, its
 * own launch (cuda_ens_phi4_phi2); "measure", the batch's measurement (two launches, every
 * sum); "check", both, compared bit for bit on the device (a difference fails the list). */
#define ENS_PHI4_ROUND_SUMS_ENV "LATMC_ENS_PHI4_ROUND_SUMS"
enum { ROUND_PHI2, ROUND_MEASURE, ROUND_CHECK };
/* Hits a site a launch of whole sweeps (nloc x nhit a sweep; at least one sweep): bounds
 * one launch's work (members of at most ENS_PHI4_FUSED_SITES sites: fused_fits), a call
 * of many sweeps being several launches. */
#define ENS_PHI4_HITS_PER_LAUNCH 64

struct phi4_batch {
    struct cuda_batch b;               /* first: the driver's */
    double *dev_partials;             /* 5 doubles a row a member (made on first use) */
    struct latmc_phi4_sums *dev_sums; /* a member each */
    /* ENS_PHI4_ROUND_SUMS_ENV=check: the round's own phi2 of each member, and the count of
     * members whose phi2 differed from the measurement's (made on first use) */
    struct latmc_phi4_sums *dev_check;
    unsigned long long *dev_diffs;
    int round_sums;                   /* ROUND_*, this list's */
    bool logged_phi2;                 /* the round's own launch logged (once a batch) */
};

static void phi4_fini(struct cuda_batch *b)
{
    struct phi4_batch *p = (struct phi4_batch *)b;
    cudaFree(p->dev_partials);
    cudaFree(p->dev_sums);
    cudaFree(p->dev_check);
    cudaFree(p->dev_diffs);
}

static const struct cuda_phi4_plan *plan_of(const latmc_sim *sim)
{
    return cuda_phi4_box_plan(cuda_batch_member_box(sim, LATMC_MODEL_PHI4));
}

static const struct latmc_phi4_tables *tables_of(const latmc_sim *sim)
{
    return sim->model_data;
}

/* The batch's kernels of its plan made ready (the shared memory they take). */
static int phi4_init(struct cuda_batch *b)
{
    return cuda_check(cuda_ens_phi4_prepare(plan_of(b->members[0])),
                      "setting the phi^4 batch's shared memory");
}

/* The chunk kernel's shared memory fits beside the batch's round keys (a shape of
 * LATMC_CUDA_PHI4_CHUNK at the device's limit does not: those members run one by one).
 * Asked at every capability query: the device's limit is kept (cuda_device.h). */
static bool shared_fits(const struct cuda_phi4_plan *p, int device)
{
    int limit = 0;
    return p->schedule != CUDA_PHI4_CHUNKS ||
           (cuda_device_smem_optin(device, &limit) == cudaSuccess &&
            p->smem_bytes + sizeof(struct cuda_phi4_keys) <= (size_t)limit);
}

/* A member 0: phi^4 Metropolis, a box alone whose plan's kernels the batch can launch. */
static bool phi4_member_ok(const latmc_sim *sim)
{
    return sim->desc.model == LATMC_MODEL_PHI4 &&
           sim->desc.algorithm == LATMC_ALGO_METROPOLIS &&
           cuda_batch_member_box(sim, LATMC_MODEL_PHI4) &&
           shared_fits(plan_of(sim), cuda_batch_device_of(sim));
}

/* One plan, one nhit and nloc. */
static bool phi4_same_chain(const latmc_sim *first, const latmc_sim *sim)
{
    return memcmp(plan_of(sim), plan_of(first), sizeof(struct cuda_phi4_plan)) == 0 &&
           tables_of(sim)->nhit == tables_of(first)->nhit &&
           tables_of(sim)->nloc == tables_of(first)->nloc;
}

/* Small site-order members (one block each). */
static bool phi4_whole_sweeps(const latmc_sim *sim)
{
    return cuda_ens_phi4_fused_fits(plan_of(sim), cuda_batch_lattice_of(sim));
}

/* The calls a phi^4 batch takes: the chunk schedule's own steps, the site order's colour
 * steps, and whole sweeps where the model names the sweeps' steps as the kernel does
 * (lib/model_phi4.c, phi4_step_of). */
static bool phi4_call_ok(const latmc_sim *first, const struct latmc_step_call *k)
{
    const struct cuda_phi4_plan *p = plan_of(first);
    if (k->part == LATMC_STEP_WHOLE)
        return p->schedule == CUDA_PHI4_CHUNKS
                   ? k->step.kind == LATMC_STEP_OWN && k->step.index >= 0 && k->step.index <= 1
                   : k->step.kind == LATMC_STEP_COLOUR;
    const int steps = first->model->sweep_schedule(first);
    for (int s = 0; s < steps; s++) {
        const struct latmc_step step = first->model->step_of(first, k->sweep, s);
        const int pass = s / p->ncolours, colour = s % p->ncolours;
        const struct latmc_rng_name name =
            latmc_phi4_rng_name(k->sweep, tables_of(first)->nloc, (uint32_t)pass, colour);
        if (step.kind != LATMC_STEP_COLOUR || step.colour != colour ||
            memcmp(&name, &step.rng, sizeof name) != 0)
            return false;
    }
    return true;
}

/* The executor's count: every hit of every site, once a sweep (phi4_attempted). */
static uint64_t phi4_per_sweep(const latmc_sim *first)
{
    const struct latmc_phi4_tables *t = tables_of(first);
    return (uint64_t)first->nsites * t->nloc * t->nhit;
}

static uint64_t phi4_sweeps_per_launch(const latmc_sim *first)
{
    const struct latmc_phi4_tables *t = tables_of(first);
    const uint64_t hits = (uint64_t)t->nloc * t->nhit;
    return hits > 0 && hits < ENS_PHI4_HITS_PER_LAUNCH ? ENS_PHI4_HITS_PER_LAUNCH / hits : 1;
}

static void phi4_entry(struct cuda_batch *b, int m, void *entry)
{
    const latmc_sim *sim = b->members[m];
    const struct latmc_phi4_tables *t = tables_of(sim);
    struct cuda_ens_phi4_member *e = entry;
    e->phi = cuda_batch_member_box(sim, LATMC_MODEL_PHI4)->data; /* batchable: a box alone */
    e->f = t->f;
    e->d = t->d;
    cuda_phi4_keys_of(sim->desc.seed, &e->keys);
}

/* The members' nhit and nloc: what every launch runs. */
static struct cuda_ens_phi4_run phi4_run(const struct cuda_batch *b)
{
    const struct latmc_phi4_tables *t0 = tables_of(b->members[0]);
    struct cuda_ens_phi4_run run;
    memset(&run, 0, sizeof run);
    run.nhit = t0->nhit;
    run.nloc = t0->nloc;
    return run;
}

static cudaError_t phi4_launch(struct cuda_batch *b, const struct cuda_phi4_plan *plan,
                               const struct cuda_ens_phi4_run *run)
{
    return cuda_ens_phi4_steps(b->stream, plan, b->lattice, b->dev_table, b->n, run,
                               b->dev_changed);
}

/* The chunk schedule's step: the sub-grids of cut parity step.index, in the one-device
 * order, a launch each; the site order's colour step, one launch. */
static cudaError_t phi4_step(struct cuda_batch *b, const struct latmc_step_call *k, int *kind)
{
    const struct cuda_phi4_plan *plan = plan_of(b->members[0]);
    struct cuda_ens_phi4_run run = phi4_run(b);
    cudaError_t err = cudaSuccess;
    *kind = plan->schedule == CUDA_PHI4_CHUNKS;
    if (*kind) {
        const int nsub = 1 << (plan->ndim - 1);
        run.sweep = k->sweep;
        for (int s = 0; s < nsub && err == cudaSuccess; s++) {
            run.sub = nsub * k->step.index + s;
            err = phi4_launch(b, plan, &run);
        }
        return err;
    }
    run.rng = k->step.rng;
    run.colour = k->step.colour;
    return phi4_launch(b, plan, &run);
}

static cudaError_t phi4_sweeps(struct cuda_batch *b, const struct latmc_step_call *k,
                               uint64_t sweep0, uint64_t n, int *kind)
{
    (void)k;
    struct cuda_ens_phi4_run run = phi4_run(b);
    run.sweep0 = sweep0;
    run.n_sweeps = n;
    *kind = CUDA_BATCH_FUSED; /* the site order */
    return phi4_launch(b, plan_of(b->members[0]), &run);
}

/* The measurement's scratch: each member's row partials and its sums (made on first use;
 * after a failure, again at the next). */
static int sums_ready(struct phi4_batch *p)
{
    if (p->dev_sums)
        return LATMC_OK;
    const int64_t rows = p->b.lattice->ly * p->b.lattice->lz;
    const size_t n = (size_t)p->b.n;
    int st = cuda_check(cudaMalloc((void **)&p->dev_partials,
                                   n * (size_t)rows * NSUMS * sizeof(double)),
                        "cannot allocate device memory for the members' row sums");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&p->dev_sums, n * sizeof *p->dev_sums),
                        "cannot allocate device memory for the members' sums");
    if (st < 0) {
        phi4_fini(&p->b);
        p->dev_partials = NULL;
        p->dev_sums = NULL;
        p->dev_check = NULL;
        p->dev_diffs = NULL;
    }
    return st;
}

/* The members' sums into dev_sums: two launches (its rows, then one block a member adding
 * them in the single lattice's order). */
static cudaError_t launch_measure(const struct phi4_batch *p)
{
    return cuda_ens_phi4_measure(p->b.stream, plan_of(p->b.members[0]), p->b.lattice,
                                 p->b.dev_table, p->b.n, p->dev_partials, p->dev_sums);
}

/* Every member's sums, read back as struct latmc_phi4_sums each. */
static int phi4_measure(struct cuda_batch *b, void *sums)
{
    struct phi4_batch *p = (struct phi4_batch *)b;
    const size_t n = (size_t)b->n;
    int st = sums_ready(p);
    if (st == LATMC_OK)
        st = cuda_check(launch_measure(p), "launching the members' measurement");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(sums, p->dev_sums, n * sizeof *p->dev_sums,
                                        cudaMemcpyDeviceToHost, b->stream),
                        "reading the members' sums");
    return st;
}

static const struct cuda_batch_ops phi4_ops = {
    .model = LATMC_MODEL_PHI4,
    .name = "phi^4",
    .codes = { "site order", "chunk schedule" },
    .step_launch = "a launch a step",
    .measure_launches = "in two launches",
    .batch_bytes = sizeof(struct phi4_batch),
    .entry_bytes = sizeof(struct cuda_ens_phi4_member),
    .counts = true,
    .member_ok = phi4_member_ok,
    .same_chain = phi4_same_chain,
    .whole_sweeps = phi4_whole_sweeps,
    .call_ok = phi4_call_ok,
    .per_sweep = phi4_per_sweep,
    .sweeps_per_launch = phi4_sweeps_per_launch,
    .init = phi4_init,
    .fini = phi4_fini,
    .entry = phi4_entry,
    .step = phi4_step,
    .sweeps = phi4_sweeps,
    .measure = phi4_measure,
    .measured = NULL,
};

static int phi4_batch_run_steps(const struct latmc_step_call *calls, int n_calls,
                                uint64_t *accepted, uint64_t *attempted)
{
    return cuda_batch_run_steps(&phi4_ops, calls, n_calls, accepted, attempted);
}

static int phi4_batch_measure_all(latmc_sim *const *members, int n, void *sums)
{
    return cuda_batch_measure(&phi4_ops, members, n, sums);
}

/* The batch layout's capabilities for phi^4 sims (lib/box.h): the driver's, and exchange
 * rounds of a mu2 ladder between them on the device (cuda_phi4_temper.c) where they take
 * whole sweeps (the plan's tempering lists are whole sweeps and rounds; the state's load
 * checks that the members' coefficients are their temperatures'). */
static unsigned phi4_batch_caps(const latmc_sim *sim)
{
    const unsigned caps = cuda_batch_caps(&phi4_ops, sim);
    return caps & LATMC_STEP_CAP_BATCH_SWEEPS ? caps | LATMC_STEP_CAP_BATCH_EXCHANGE : caps;
}

/* ENS_PHI4_ROUND_SUMS_ENV for this list, and in check mode its buffers (the count of
 * differences cleared on the launches' stream when made). */
static int round_sums_ready(struct phi4_batch *p)
{
    const char *env = getenv(ENS_PHI4_ROUND_SUMS_ENV);
    if (!env || !*env)
        p->round_sums = ROUND_PHI2;
    else if (strcmp(env, "measure") == 0)
        p->round_sums = ROUND_MEASURE;
    else if (strcmp(env, "check") == 0)
        p->round_sums = ROUND_CHECK;
    else
        return cuda_core->fail(LATMC_EINVAL, "%s=\"%s\": expected measure or check (unset: "
                               "the round's own launch)", ENS_PHI4_ROUND_SUMS_ENV, env);
    if (p->round_sums != ROUND_CHECK || p->dev_diffs)
        return LATMC_OK;
    int st = cuda_check(cudaMalloc((void **)&p->dev_check, (size_t)p->b.n * sizeof *p->dev_check),
                        "cannot allocate device memory for the round sums' check");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&p->dev_diffs, sizeof *p->dev_diffs),
                        "cannot allocate device memory for the round sums' check");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(p->dev_diffs, 0, sizeof *p->dev_diffs,
                                        p->b.stream),
                        "clearing the round sums' check");
    if (st < 0) { /* made again at the next list */
        cudaFree(p->dev_check);
        cudaFree(p->dev_diffs);
        p->dev_check = NULL;
        p->dev_diffs = NULL;
    }
    return st;
}

int cuda_ens_phi4_open(latmc_sim *const *members, int n, struct cuda_ens_phi4_view *v)
{
    memset(v, 0, sizeof *v);
    if (n < 1 || members[0]->desc.model != LATMC_MODEL_PHI4 || !phi4_member_ok(members[0]) ||
        !phi4_whole_sweeps(members[0]))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no whole-sweep phi^4 batch for "
                               "these members");
    int st = LATMC_OK;
    struct cuda_batch *eb = cuda_batch_ready(&phi4_ops, members, n, true, &st);
    if (!eb)
        return st;
    struct phi4_batch *p = (struct phi4_batch *)eb;
    if (st == LATMC_OK)
        st = sums_ready(p);
    if (st == LATMC_OK)
        st = round_sums_ready(p);
    if (st < 0) {
        cuda_batch_put_back(eb);
        return st;
    }
    v->batch = eb;
    v->dev = eb->dev_table;
    v->host = eb->last; /* what cuda_batch_ready uploaded, or found on the device */
    v->sums = p->dev_sums;
    v->dev_changed = eb->dev_changed;
    v->changed = eb->changed;
    v->uploads = eb->uploads;
    v->updates_per_sweep = phi4_per_sweep(members[0]);
    return LATMC_OK;
}

void cuda_ens_phi4_close(struct cuda_ens_phi4_view *v)
{
    if (v->batch)
        cuda_batch_put_back(v->batch);
    v->batch = NULL;
}

bool cuda_ens_phi4_sweeps_ok(const latmc_sim *first, const struct latmc_step_call *k)
{
    return k->part == LATMC_STEP_SWEEPS && phi4_call_ok(first, k);
}

/* Launches of up to the batch's sweeps a launch, as cuda_batch_run_steps splits a call. */
cudaError_t cuda_ens_phi4_launch_sweeps(const struct cuda_ens_phi4_view *v, uint64_t sweep0,
                                        uint64_t n_sweeps)
{
    const struct cuda_batch *b = v->batch;
    return cuda_ens_phi4_launch_sweeps_of(v, b->stream, 0, b->n, sweep0, n_sweeps);
}

bool cuda_ens_phi4_splits(const struct cuda_ens_phi4_view *v)
{
    return ((const struct phi4_batch *)v->batch)->round_sums == ROUND_PHI2;
}

cudaError_t cuda_ens_phi4_launch_sweeps_of(const struct cuda_ens_phi4_view *v,
                                           cudaStream_t stream, int m0, int n, uint64_t sweep0,
                                           uint64_t n_sweeps)
{
    struct cuda_batch *b = v->batch;
    const uint64_t most = phi4_sweeps_per_launch(b->members[0]);
    struct cuda_ens_phi4_run run = phi4_run(b);
    cudaError_t err = cudaSuccess;
    for (uint64_t done = 0; done < n_sweeps && err == cudaSuccess;) {
        const uint64_t left = n_sweeps - done, count = left < most ? left : most;
        run.sweep0 = sweep0 + done;
        run.n_sweeps = count;
        err = cuda_ens_phi4_steps(stream, plan_of(b->members[0]), b->lattice,
                                  v->dev + m0, n, &run, b->dev_changed + m0);
        if (err == cudaSuccess)
            cuda_batch_log_kind(b, CUDA_BATCH_FUSED);
        done += count;
    }
    return err;
}

/* The round's sums' line, once a batch (as the driver's lines; the tests read them). */
static void log_round_sums(struct phi4_batch *p, int n)
{
    if (p->logged_phi2)
        return;
    p->logged_phi2 = true;
    cuda_core->log(p->b.members[0]->ctx, LATMC_LOG_DEBUG, "CUDA ensembles: %d phi^4 members "
                   "measured in one launch%s for a tempering round (the sum phi^2 alone)",
                   p->b.n, n < p->b.n ? " a part" : "");
}

cudaError_t cuda_ens_phi4_launch_round_sums_of(const struct cuda_ens_phi4_view *v,
                                               cudaStream_t stream, int m0, int n)
{
    struct phi4_batch *p = v->batch;
    const size_t rows = (size_t)(p->b.lattice->ly * p->b.lattice->lz);
    const cudaError_t err =
        cuda_ens_phi4_phi2(stream, plan_of(p->b.members[0]), p->b.lattice, v->dev + m0, n,
                           p->dev_partials + (size_t)m0 * rows * NSUMS, p->dev_sums + m0);
    if (err == cudaSuccess)
        log_round_sums(p, n);
    return err;
}

/* The round's sum phi^2 of every member into dev_sums[m].phi2: its own launch, or the
 * measurement (every sum), or both with the check (ENS_PHI4_ROUND_SUMS_ENV). */
cudaError_t cuda_ens_phi4_launch_round_sums(const struct cuda_ens_phi4_view *v)
{
    struct phi4_batch *p = v->batch;
    const struct cuda_phi4_plan *plan = plan_of(p->b.members[0]);
    if (p->round_sums == ROUND_PHI2)
        return cuda_ens_phi4_launch_round_sums_of(v, p->b.stream, 0, p->b.n);
    cudaError_t err = launch_measure(p);
    if (err == cudaSuccess)
        cuda_batch_log_measure(&p->b);
    if (err == cudaSuccess && p->round_sums == ROUND_CHECK)
        err = cuda_ens_phi4_phi2(p->b.stream, plan, p->b.lattice, p->b.dev_table, p->b.n,
                                 p->dev_partials, p->dev_check);
    if (err == cudaSuccess && p->round_sums == ROUND_CHECK)
        err = cuda_ens_phi4_phi2_compare(p->b.stream, p->dev_sums, p->dev_check, p->b.n,
                                         p->dev_diffs);
    return err;
}

/* After the list's launches were waited for: LATMC_EDEVICE where a checked phi2 differed
 * from the measurement's (cuda_batch_check_count). */
int cuda_ens_phi4_check_result(const struct cuda_ens_phi4_view *v, int status)
{
    const struct phi4_batch *p = v->batch;
    if (p->round_sums != ROUND_CHECK)
        return status;
    return cuda_batch_check_count(p->dev_diffs, p->b.stream, status, ENS_PHI4_ROUND_SUMS_ENV,
                                 "the phi^4 members' sums phi^2 of a tempering round differ "
                                 "from the measurement's");
}

/* The device's table no longer what the host uploaded (cuda_phi4_temper.c: the rounds wrote
 * coefficients into it, and the map they follow went back to the host or was lost): the
 * next call uploads its table even where it equals the host's copy of the last upload. */
void cuda_ens_phi4_table_moved(latmc_sim *const *members, int n)
{
    (void)n;
    cuda_batch_table_moved(members);
}

static const struct cuda_batch_model phi4_batch_model = {
    .one_by_one_env = "LATMC_ENS_PHI4_BATCH",
    .caps = phi4_batch_caps,
    .run_steps = phi4_batch_run_steps,
    .measure_all = phi4_batch_measure_all,
    .swaps = true,
};

/* Every phi^4 sim (the capabilities tell which members run as a batch; those of the
 * embedded clusters do not, but are measured and swap as a batch). */
const struct cuda_batch_model *cuda_phi4_batch_of(const latmc_sim *sim)
{
    (void)sim;
    return &phi4_batch_model;
}
