/*
 * Potts members of an ensemble in one launch: the host side of potts_batch_kernels.cu
 * (doc/ensembles.md, "Execution"), the model's part of the batch driver
 * (exec/cuda_batch.c: the batch kept between calls, its table, the run of the plan's
 * calls, the measurement's frame).
 *
 * A member's entry is its sim's device bytes (updated in place), its decision tables (the
 * sim's own device copy, refreshed by the executor whenever a member's parameters change,
 * e.g. a tempering swap's set_param) and its seed.
 *
 * The environment's choices are read once: LATMC_ENS_POTTS_BATCH when the members are made
 * (cuda_sim's ens_one_by_one, cuda_ens_batch_declined), ENS_POTTS_SWEEP_ENV when the ensemble's
 * batch is made (its first call), kept in the batch: a process that changes them runs the
 * next ensemble it makes that way.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_leaf.h"
#include "cuda_temper.h"
#include "potts_batch.h"
#include "model.h"
#include "potts.h"

/* "steps": a launch a colour step for every member size, whole sweeps too (measurements:
 * what the whole-sweep launches buy). */
#define ENS_POTTS_SWEEP_ENV "LATMC_ENS_POTTS_SWEEP"
/* Whole sweeps a launch: bounds one launch's work (a sweep is one update a site, of
 * members of at most 32768 sites: cuda_ens_potts_fused_fits). */
#define ENS_POTTS_SWEEPS_PER_LAUNCH 256

struct potts_batch {
    struct cuda_batch b;   /* first: the driver's */
    bool steps_only;      /* ENS_POTTS_SWEEP_ENV "steps" when made */
    unsigned long long *dev_sums, *sums; /* q + 1 a member (made on first use) */
};

static int potts_init(struct cuda_batch *b)
{
    const char *env = getenv(ENS_POTTS_SWEEP_ENV);
    ((struct potts_batch *)b)->steps_only = env && strcmp(env, "steps") == 0;
    return LATMC_OK;
}

static void potts_fini(struct cuda_batch *b)
{
    struct potts_batch *p = (struct potts_batch *)b;
    cudaFree(p->dev_sums);
    free(p->sums);
}

/* Whether members of this lattice can take whole sweeps in one launch (the batch may still
 * run them a launch a colour step: steps_only). */
static bool potts_whole_sweeps(const latmc_sim *sim)
{
    return cuda_ens_potts_fused_fits(cuda_batch_lattice_of(sim));
}

/* A member 0: Potts of a local update (the cluster algorithms run their own steps), one
 * replica, 2D or 3D, a box alone, fewer than 2^31 sites. */
static bool potts_member_ok(const latmc_sim *sim)
{
    return sim->desc.model == LATMC_MODEL_POTTS &&
           (sim->desc.algorithm == LATMC_ALGO_METROPOLIS ||
            sim->desc.algorithm == LATMC_ALGO_HEATBATH) &&
           sim->desc.replicas == 1 && sim->desc.ndim >= 2 && sim->desc.ndim <= 3 &&
           sim->nsites < ((int64_t)1 << 31) && cuda_batch_member_box(sim, LATMC_MODEL_POTTS);
}

static bool potts_same_chain(const latmc_sim *first, const latmc_sim *sim)
{
    return sim->desc.q == first->desc.q;
}

/* The calls a Potts batch takes: colour steps on the whole box, and whole sweeps where the
 * model names the sweeps' steps as the kernel does (lib/model_potts.c, potts_step_of:
 * colour c at phase c, the algorithm's first sub). */
static bool potts_call_ok(const latmc_sim *first, const struct latmc_step_call *k)
{
    if (k->part == LATMC_STEP_WHOLE)
        return k->step.kind == LATMC_STEP_COLOUR;
    const int colours = first->model->sweep_schedule(first);
    for (int s = 0; s < colours; s++) {
        const struct latmc_step step = first->model->step_of(first, k->sweep, s);
        const struct latmc_rng_name name = latmc_rng_update_name(k->sweep, (uint32_t)s,
                                                                 step.sub);
        if (step.kind != LATMC_STEP_COLOUR || step.colour != s || step.sub != k->step.sub ||
            memcmp(&name, &step.rng, sizeof name) != 0)
            return false;
    }
    return true;
}

/* As the executor counts (cuda_exec_run_steps): every site once a sweep. */
static uint64_t potts_per_sweep(const latmc_sim *first)
{
    return (uint64_t)first->nsites;
}

static uint64_t potts_sweeps_per_launch(const latmc_sim *first)
{
    (void)first;
    return ENS_POTTS_SWEEPS_PER_LAUNCH;
}

static void potts_entry(struct cuda_batch *b, int m, void *entry)
{
    const latmc_sim *sim = b->members[m];
    const struct cuda_box *box = cuda_batch_member_box(sim, LATMC_MODEL_POTTS); /* batchable */
    struct cuda_ens_potts_member *e = entry;
    e->spins = box->data;
    e->tables = box->tables;
    e->seed = sim->desc.seed;
}

/* The members' chain (algorithm, q, colours): what every launch runs. */
static struct cuda_ens_potts_run potts_run(const struct cuda_batch *b, uint32_t sub)
{
    const latmc_sim *first = b->members[0];
    struct cuda_ens_potts_run run;
    memset(&run, 0, sizeof run);
    run.algorithm = first->desc.algorithm;
    run.q = first->desc.q;
    run.colours = first->model->sweep_schedule(first);
    run.sub = sub;
    return run;
}

static cudaError_t potts_launch(struct cuda_batch *b, const struct cuda_ens_potts_run *run,
                                int *rows)
{
    return cuda_ens_potts_steps(b->stream, b->lattice, b->dev_table, b->n, run,
                                b->dev_changed, rows);
}

/* A colour step, its draws named by the plan. */
static cudaError_t potts_step(struct cuda_batch *b, const struct latmc_step_call *k, int *kind)
{
    struct cuda_ens_potts_run run = potts_run(b, k->step.sub);
    run.rng = k->step.rng;
    run.colour = k->step.colour;
    return potts_launch(b, &run, kind);
}

/* Whole sweeps in one launch, or (steps_only) their steps a launch each, named as the
 * whole-sweep kernel names them. */
static cudaError_t potts_sweeps(struct cuda_batch *b, const struct latmc_step_call *k,
                                uint64_t sweep0, uint64_t n, int *kind)
{
    struct cuda_ens_potts_run run = potts_run(b, k->step.sub);
    cudaError_t err = cudaSuccess;
    if (!((struct potts_batch *)b)->steps_only) {
        run.sweep0 = sweep0;
        run.n_sweeps = n;
        err = potts_launch(b, &run, kind);
        *kind |= CUDA_BATCH_FUSED;
        return err;
    }
    for (uint64_t s = 0; s < n && err == cudaSuccess; s++)
        for (int col = 0; col < run.colours && err == cudaSuccess; col++) {
            run.rng = latmc_rng_update_name(sweep0 + s, (uint32_t)col, run.sub);
            run.colour = col;
            err = potts_launch(b, &run, kind);
        }
    return err;
}

/* Every member's sums in one launch: q + 1 counters each, read back into the batch. */
static int potts_measure(struct cuda_batch *b, void *sums)
{
    (void)sums;
    struct potts_batch *p = (struct potts_batch *)b;
    const int q = b->members[0]->desc.q;
    const size_t bytes = (size_t)b->n * ((size_t)q + 1) * sizeof *p->sums;
    int st = LATMC_OK;
    if (!p->dev_sums) {
        if (!p->sums) /* kept where the device's allocation failed before */
            p->sums = malloc(bytes);
        st = p->sums ? cuda_check(cudaMalloc((void **)&p->dev_sums, bytes),
                                  "cannot allocate device memory for the members' sums")
                     : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the members' sums");
    }
    if (st == LATMC_OK)
        st = cuda_check(cuda_ens_potts_measure(b->stream, b->lattice, b->dev_table, b->n,
                                               q, p->dev_sums),
                        "launching the members' measurement");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(p->sums, p->dev_sums, bytes, cudaMemcpyDeviceToHost,
                                        b->stream), "reading the members' sums");
    return st;
}

void cuda_ens_potts_sums_of(const unsigned long long *counters, int n, int q, void *sums)
{
    for (int m = 0; m < n; m++) {
        struct latmc_potts_sums *out = (struct latmc_potts_sums *)sums + m;
        const unsigned long long *mine = counters + (size_t)m * ((size_t)q + 1);
        memset(out, 0, sizeof *out);
        out->matches = (int64_t)mine[0];
        for (int s = 0; s < q; s++)
            out->count[s] = (int64_t)mine[1 + s];
    }
}

static void potts_measured(struct cuda_batch *b, void *sums)
{
    const struct potts_batch *p = (const struct potts_batch *)b;
    cuda_ens_potts_sums_of(p->sums, b->n, b->members[0]->desc.q, sums);
}

static const struct cuda_batch_ops potts_ops = {
    .model = LATMC_MODEL_POTTS,
    .name = "Potts",
    .codes = { "reference update", "row kernels' code" },
    .step_launch = "a launch a colour step",
    .measure_launches = "in one launch",
    .batch_bytes = sizeof(struct potts_batch),
    .entry_bytes = sizeof(struct cuda_ens_potts_member),
    .counts = true,
    .member_ok = potts_member_ok,
    .same_chain = potts_same_chain,
    .whole_sweeps = potts_whole_sweeps,
    .call_ok = potts_call_ok,
    .per_sweep = potts_per_sweep,
    .sweeps_per_launch = potts_sweeps_per_launch,
    .init = potts_init,
    .fini = potts_fini,
    .entry = potts_entry,
    .step = potts_step,
    .sweeps = potts_sweeps,
    .measure = potts_measure,
    .measured = potts_measured,
};

static int potts_batch_run_steps(const struct latmc_step_call *calls, int n_calls,
                                 uint64_t *accepted, uint64_t *attempted)
{
    return cuda_batch_run_steps(&potts_ops, calls, n_calls, accepted, attempted);
}

static unsigned potts_batch_caps(const latmc_sim *sim)
{
    return cuda_batch_caps(&potts_ops, sim);
}

static int potts_batch_measure_all(latmc_sim *const *members, int n, void *sums)
{
    return cuda_batch_measure(&potts_ops, members, n, sums);
}

static const struct cuda_batch_model potts_batch_model = {
    .one_by_one_env = "LATMC_ENS_POTTS_BATCH",
    .caps = potts_batch_caps,
    .run_steps = potts_batch_run_steps,
    .measure_all = potts_batch_measure_all,
    .swaps = true,
};

/* Every Potts sim that reaches it (a Swendsen-Wang or Wolff sim takes the cluster steps'
 * batch first, cuda_batch_model_of; the capabilities tell the rest). */
const struct cuda_batch_model *cuda_potts_batch_of(const latmc_sim *sim)
{
    (void)sim;
    return &potts_batch_model;
}

/* No tempering on the device for Potts members (exec/cuda_temper.h): the host's rounds. */
const struct cuda_temper_model *cuda_potts_temper_of(const latmc_sim *sim)
{
    (void)sim;
    return NULL;
}
