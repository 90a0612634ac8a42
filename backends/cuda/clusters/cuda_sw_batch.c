/*
 * Swendsen-Wang and Wolff members of an ensemble in one launch a cluster step: the host
 * side of cuda_sw_batch_kernels.cu (cuda_sw_batch.h), the cluster members' part of the batch
 * driver (exec/cuda_batch.c). Ising and q-state Potts members alike (four tables of the
 * driver, one per model and algorithm, the same callbacks; Wolff's third step flips the
 * seed site's cluster and counts its sites as the updates attempted).
 *
 * A member's entry is its sim's device bytes (updated in place), its cluster leaf's bonds,
 * labels and Ising +-J couplings (clusters/cuda_sw_member.h; each member its own sample),
 * its seed and its bonds' threshold, which its own beta J gives (members at different
 * temperatures differ): the core's formula of the plan's bond step (lib/cluster_steps.c),
 * so every member's draws decide as they do when it sweeps alone, and its beta h (in a
 * field its clusters' decisions weigh their sums). The members take uniform couplings
 * (Ising: or +-J), of at most CUDA_ENS_SW_MAX_SITES sites (Swendsen-Wang's in a field at
 * most CUDA_ENS_SW_SHARED_SITES); any other ensemble runs its members one by one, as do
 * members made with LATMC_ENS_SW_BATCH=0 (cuda_ens_batch_declined: the reference of
 * tests/ensemble/test_ens_identity.c, test_sw_tempering_batched; doc/ensembles.md). Their
 * measurement is one launch too (sw_measure); their overlaps and tempering swaps are one
 * by one.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_leaf.h"
#include "cuda_sw_member.h"
#include "ising_batch.h"
#include "potts_batch.h"
#include "cuda_sw_batch.h"
#include "model.h"

/* The batch: the driver's, and the measurement's tables (made at the first measurement):
 * the members as the Ising or Potts members' measurement kernel reads them (their spins,
 * Ising's couplings), and its sums (Ising: struct latmc_ising_sums a member; Potts: q + 1
 * counters, read back into counts). */
struct sw_batch {
    struct cuda_batch b; /* first: the driver's */
    void *host_members, *dev_members, *dev_sums;
    unsigned long long *counts;
};

static void sw_fini(struct cuda_batch *b)
{
    struct sw_batch *w = (struct sw_batch *)b;
    cudaFree(w->dev_members); /* dev_sums lies after the members */
    free(w->host_members);
    free(w->counts);
}

/* A member 0 of a batch of `model` and `algorithm` (Swendsen-Wang or Wolff): uniform
 * couplings (Ising: or +-J), one replica, 2D or 3D, a box alone whose sites fit a block (the
 * box asked first, as the other batches' member_ok do: it answers NULL for a sim without a
 * backend or executor, and cuda_sim's lattice is the box's only for a box alone). */
static bool sw_member_ok_of(const latmc_sim *sim, int model, int algorithm)
{
    return sim->desc.model == model && sim->desc.algorithm == algorithm &&
           (sim->desc.couplings == LATMC_COUPLINGS_UNIFORM ||
            (model == LATMC_MODEL_ISING && sim->desc.couplings == LATMC_COUPLINGS_BIMODAL)) &&
           sim->desc.replicas == 1 &&
           sim->desc.ndim >= 2 && sim->desc.ndim <= 3 && cuda_batch_member_box(sim, model) &&
           cuda_ens_sw_fits(cuda_batch_lattice_of(sim));
}

static bool sw_ising_member_ok(const latmc_sim *sim)
{
    return sw_member_ok_of(sim, LATMC_MODEL_ISING, LATMC_ALGO_SWENDSEN_WANG);
}

static bool sw_potts_member_ok(const latmc_sim *sim)
{
    return sw_member_ok_of(sim, LATMC_MODEL_POTTS, LATMC_ALGO_SWENDSEN_WANG);
}

static bool wolff_ising_member_ok(const latmc_sim *sim)
{
    return sw_member_ok_of(sim, LATMC_MODEL_ISING, LATMC_ALGO_WOLFF);
}

static bool wolff_potts_member_ok(const latmc_sim *sim)
{
    return sw_member_ok_of(sim, LATMC_MODEL_POTTS, LATMC_ALGO_WOLFF);
}

/* One chain: the same q, couplings and algorithm; for Potts every member with J >= 0 (else
 * latmc_sim_sweep refuses it, which the members one by one then report). A field is each
 * member's own (its entry's beta h), Swendsen-Wang's only where its clusters' sums fit a
 * block's shared memory (else the members one by one). */
static bool sw_same_chain(const latmc_sim *first, const latmc_sim *sim)
{
    const double *p = sim->param;
    const bool in_field = p[LATMC_PARAM_BETA] * p[LATMC_PARAM_H] != 0.0;
    return sim->desc.q == first->desc.q && sim->desc.couplings == first->desc.couplings &&
           sim->desc.algorithm == first->desc.algorithm &&
           !(in_field && sim->desc.algorithm == LATMC_ALGO_SWENDSEN_WANG &&
             !cuda_ens_sw_shared_fits(cuda_batch_lattice_of(first))) &&
           !(sim->desc.model == LATMC_MODEL_POTTS && p[LATMC_PARAM_J] < 0.0 &&
             p[LATMC_PARAM_BETA] > 0.0);
}

/* The plan's three cluster steps of a whole box (lib/cluster_steps.c; Wolff's third the
 * seed's cluster's flip; no tempering on the device: the capabilities do not declare it);
 * their draws' names are the sweep's, alike for every member. */
static bool sw_call_ok(const latmc_sim *first, const struct latmc_step_call *k)
{
    const int third = first->desc.algorithm == LATMC_ALGO_WOLFF ? LATMC_STEP_CLUSTER_FLIP_SEED
                                                                : LATMC_STEP_CLUSTER_FLIP;
    return k->part == LATMC_STEP_WHOLE && !k->device_map &&
           (k->step.kind == LATMC_STEP_CLUSTER_BONDS ||
            k->step.kind == LATMC_STEP_CLUSTER_LABEL || k->step.kind == third);
}

/* As the leaf counts (sw_attempted): every site once a sweep (Wolff's counted by its flip,
 * ops.counts_attempted). */
static uint64_t sw_per_sweep(const latmc_sim *first)
{
    return (uint64_t)first->nsites;
}

static void sw_entry(struct cuda_batch *b, int m, void *entry)
{
    const latmc_sim *sim = b->members[m];
    const struct cuda_box *box = cuda_batch_member_box(sim, sim->desc.model); /* batchable */
    struct cuda_ens_sw_member *e = entry;
    e->spins = box->data;
    int8_t *eps;
    cuda_sw_member_arrays(box, &e->bonds, &e->labels, &eps, &e->wolff);
    e->eps = eps;
    e->seed = sim->desc.seed;
    e->bond_threshold =
        cuda_ens_sw_bond_threshold(sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_J],
                                   sim->desc.model == LATMC_MODEL_POTTS);
    e->flip = sim->desc.model == LATMC_MODEL_ISING &&
              sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_J] < 0.0;
    e->beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H]; /* as the leaf's */
}

static cudaError_t sw_step(struct cuda_batch *b, const struct latmc_step_call *k, int *kind)
{
    const latmc_sim *first = b->members[0];
    struct cuda_ens_sw_run run;
    memset(&run, 0, sizeof run);
    run.kind = k->step.kind == LATMC_STEP_CLUSTER_BONDS   ? CUDA_ENS_SW_BONDS
               : k->step.kind == LATMC_STEP_CLUSTER_LABEL ? CUDA_ENS_SW_LABEL
               : k->step.kind == LATMC_STEP_CLUSTER_FLIP  ? CUDA_ENS_SW_FLIP
                                                          : CUDA_ENS_SW_FLIP_SEED;
    run.rng = k->step.rng;
    run.keep_threshold = k->step.cluster_threshold; /* the flip's: alike for every member */
    run.q = first->desc.model == LATMC_MODEL_POTTS ? first->desc.q : 0;
    run.sweep = k->step.rng_sweep;
    const struct cuda_ens_sw_member *entries = b->last; /* this call's table (sw_entry) */
    for (int m = 0; m < b->n && !run.field; m++)
        run.field = entries[m].beta_h != 0.0;
    *kind = 0;
    const cudaError_t err = cuda_ens_sw_step(b->stream, b->lattice, b->dev_table, b->n,
                                             &run, b->dev_changed);
    /* the leaf's statistics describe the labels this flip leaves (as after its own) */
    if (err == cudaSuccess && (run.kind == CUDA_ENS_SW_FLIP || run.kind == CUDA_ENS_SW_FLIP_SEED))
        for (int m = 0; m < b->n; m++)
            cuda_sw_member_swept(cuda_batch_member_box(b->members[m], first->desc.model),
                                 k->step.rng_sweep);
    return err;
}

/* Every member's sums in one launch, by the Ising or Potts members' measurement kernel
 * (ising_batch_bytes_kernels.cu, potts_batch_kernels.cu: integers, each member's exactly its
 * own measurement's) over a table of the members' spins (and Ising's couplings). */
static int sw_measure(struct cuda_batch *b, void *sums)
{
    struct sw_batch *w = (struct sw_batch *)b;
    const int model = b->members[0]->desc.model, q = b->members[0]->desc.q, n = b->n;
    const bool potts = model == LATMC_MODEL_POTTS;
    const size_t entry = potts ? sizeof(struct cuda_ens_potts_member)
                               : sizeof(struct cuda_ens_ising_member);
    const size_t sums_bytes = potts ? (size_t)n * ((size_t)q + 1) * sizeof *w->counts
                                    : (size_t)n * sizeof(struct latmc_ising_sums);
    int st = LATMC_OK;
    if (!w->dev_members) {
        if (!w->host_members)
            w->host_members = calloc((size_t)n, entry);
        if (potts && !w->counts)
            w->counts = malloc(sums_bytes);
        st = w->host_members && (w->counts || !potts)
                 ? cuda_check(cudaMalloc(&w->dev_members, (size_t)n * entry + sums_bytes),
                              "cannot allocate device memory for the members' sums")
                 : cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the members' sums");
        if (st == LATMC_OK)
            w->dev_sums = (char *)w->dev_members + (size_t)n * entry;
    }
    for (int m = 0; m < n && st == LATMC_OK; m++) {
        const struct cuda_box *box = cuda_batch_member_box(b->members[m], model); /* batchable */
        uint8_t *bonds;
        uint32_t *labels;
        int8_t *eps;
        struct cuda_wolff_counts *wolff;
        cuda_sw_member_arrays(box, &bonds, &labels, &eps, &wolff);
        if (potts) {
            struct cuda_ens_potts_member *e = (struct cuda_ens_potts_member *)w->host_members + m;
            e->spins = box->data;
        } else {
            struct cuda_ens_ising_member *e = (struct cuda_ens_ising_member *)w->host_members + m;
            e->spins = box->data;
            e->eps = eps;
        }
    }
    const cudaStream_t stream = b->stream;
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(w->dev_members, w->host_members, (size_t)n * entry,
                                        cudaMemcpyHostToDevice, stream),
                        "copying the members' measurement table");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(w->dev_sums, 0, sums_bytes, stream),
                        "clearing the members' sums");
    if (st == LATMC_OK)
        st = cuda_check(potts ? cuda_ens_potts_measure(stream, b->lattice, w->dev_members, n,
                                                       q, w->dev_sums)
                              : cuda_ens_ising_measure(stream, b->lattice, w->dev_members, n,
                                                       w->dev_sums),
                        "launching the members' measurement");
    if (st == LATMC_OK) /* the driver waits for the stream before `measured` */
        st = cuda_check(cudaMemcpyAsync(potts ? (void *)w->counts : sums, w->dev_sums,
                                        sums_bytes, cudaMemcpyDeviceToHost, stream),
                        "reading the members' sums");
    return st;
}

/* Potts: the counters into the members' sums (Ising's were read into them). */
static void sw_measured(struct cuda_batch *b, void *sums)
{
    const struct sw_batch *w = (const struct sw_batch *)b;
    if (b->members[0]->desc.model == LATMC_MODEL_POTTS)
        cuda_ens_potts_sums_of(w->counts, b->n, b->members[0]->desc.q, sums);
}

/* A launch a step (no whole sweeps), the measurement in one launch; Wolff's flips count
 * the updates attempted (its cluster's sites). */
#define SW_OPS(MODEL, NAME, MEMBER_OK, WOLFF)                                                \
    {                                                                                          \
        .model = MODEL, .name = NAME, .codes = { "cluster kernels", "cluster kernels" },      \
        .step_launch = "a launch a cluster step", .measure_launches = "in one launch",       \
        .batch_bytes = sizeof(struct sw_batch), .fini = sw_fini, .measure = sw_measure,        \
        .measured = sw_measured,                                                               \
        .entry_bytes = sizeof(struct cuda_ens_sw_member), .counts = true,                     \
        .counts_attempted = WOLFF, .member_ok = MEMBER_OK, .same_chain = sw_same_chain,       \
        .call_ok = sw_call_ok, .per_sweep = sw_per_sweep, .entry = sw_entry, .step = sw_step, \
    }

static const struct cuda_batch_ops sw_ops[4] = {
    SW_OPS(LATMC_MODEL_ISING, "Swendsen-Wang Ising", sw_ising_member_ok, false),
    SW_OPS(LATMC_MODEL_POTTS, "Swendsen-Wang Potts", sw_potts_member_ok, false),
    SW_OPS(LATMC_MODEL_ISING, "Wolff Ising", wolff_ising_member_ok, true),
    SW_OPS(LATMC_MODEL_POTTS, "Wolff Potts", wolff_potts_member_ok, true),
};

static const struct cuda_batch_ops *sw_ops_of(const latmc_sim *sim)
{
    return &sw_ops[(sim->desc.model == LATMC_MODEL_POTTS ? 1 : 0) +
                   (sim->desc.algorithm == LATMC_ALGO_WOLFF ? 2 : 0)];
}

static unsigned sw_batch_caps(const latmc_sim *sim)
{
    return cuda_batch_caps(sw_ops_of(sim), sim);
}

static int sw_batch_measure_all(latmc_sim *const *members, int n, void *sums)
{
    return cuda_batch_measure(sw_ops_of(members[0]), members, n, sums);
}

static int sw_batch_run_steps(const struct latmc_step_call *calls, int n_calls,
                              uint64_t *accepted, uint64_t *attempted)
{
    return cuda_batch_run_steps(sw_ops_of(calls[0].members[0]), calls, n_calls, accepted,
                               attempted);
}

/* "0" when a Swendsen-Wang or Wolff sim is made: its ensembles run one by one. */
#define ENS_SW_BATCH_ENV "LATMC_ENS_SW_BATCH"

/* The cluster steps' batch: their sums too, not their swaps (the core swaps cluster
 * members the long way). */
static const struct cuda_batch_model sw_batch_model = {
    .one_by_one_env = ENS_SW_BATCH_ENV,
    .caps = sw_batch_caps,
    .run_steps = sw_batch_run_steps,
    .measure_all = sw_batch_measure_all,
};

const struct cuda_batch_model *cuda_cluster_batch_of(const latmc_sim *sim)
{
    return cuda_ens_sw_kind(sim->desc.model, sim->desc.algorithm) ? &sw_batch_model : NULL;
}
