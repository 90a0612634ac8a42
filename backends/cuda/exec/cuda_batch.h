/*
 * Internal to the CUDA module: the batch layout of ensembles, whose members run in one
 * launch a step or whole sweeps a launch, as a model's leaf sees it (doc/ensembles.md
 * "Execution"). A model gives a table of callbacks (struct cuda_batch_ops: what a member
 * is, its entry of the device table, its launches and its measurement; Heisenberg:
 * heisenberg/cuda_heisenberg_batch.c, Potts: potts/cuda_potts_batch.c, phi^4:
 * phi4/cuda_phi4_batch.c, Swendsen-Wang's cluster steps of Ising and Potts:
 * clusters/cuda_sw_batch.c); the driver (cuda_batch.c) does, once for every model, what
 * they do alike: a batch kept from call to call per member array (cuda_batch_list.h), made
 * ready at each call (the members checked, their device table rebuilt on the host and
 * uploaded only when it changed), the plan's calls checked and run (a launch a step, or
 * whole sweeps a launch in stretches), the launch kinds logged once, the counters read
 * back, the members' sums measured. A model's own runs over the batch (tempering on the
 * device, cuda_temper.h) take it ready and give it back themselves
 * (cuda_batch_ready, cuda_batch_put_back).
 *
 * A leaf reaches a member sim's device state only through this header's functions (the
 * member's box, its lattice, device and couplings): like cuda_leaf.h, it names neither the
 * module's sim (cuda_backend.h) nor the executor's internals (cuda_exec.h).
 */
#ifndef LATMC_CUDA_BATCH_H
#define LATMC_CUDA_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "box.h"
#include "cuda_batch_list.h"
#include "cuda_leaf.h"
#include "internal.h"
#include "lattice_numbering.h"

/* A launch's kind, as a model's launch callback reports it (logged once a kind): bit 0
 * the model's code (ops->codes[bit]), CUDA_BATCH_FUSED whole sweeps in the launch. */
#define CUDA_BATCH_FUSED 2

/* A batch: the driver's part, first in the model's own struct (ops->batch_bytes). */
struct cuda_batch {
    struct cuda_batch_link link; /* first: the list's (key: the ensemble's member array) */
    const struct cuda_batch_ops *ops;
    latmc_sim **members;        /* the members it was built for (pointers compared) */
    /* The lead's (members[0]'s) stream and stored lattice: the launches'. The launches
     * read and write every member's memory on that stream alone, waiting for no member's
     * own stream: they rely on every call of a sim on this module returning with its
     * streams idle (init_spins, set_spins, params_changed and the measurements finish
     * them; a sweep waits at its last step, also after a failure), and the batch's calls
     * wait for this stream before they return, also after a failed launch. */
    cudaStream_t stream;
    const struct latmc_lattice *lattice;
    int n, device;
    bool one_by_one;            /* a member made with LATMC_ENS_<MODEL>_BATCH=0: nothing on
                                   the device, every call declines (a member's choice is
                                   fixed when it is made) */
    void *table, *last;         /* host: this call's device table, the one on the device */
    bool uploaded;
    uint64_t uploads;           /* table uploads so far (Heisenberg's device tempering: the
                                   rounds' betas to set again after one) */
    void *dev_table;            /* n entries of ops->entry_bytes */
    unsigned long long *dev_changed, *changed; /* a counter a member (ops->counts); with
                                                  ops->counts_attempted n more after them */
    unsigned logged;            /* launch kinds logged (bit 1 << kind; 16: the measurement) */
};

/* A model's part. Callbacks marked optional may be NULL. */
struct cuda_batch_ops {
    int model;                /* LATMC_MODEL_* */
    const char *name;         /* in the debug lines (the tests look for them) */
    const char *codes[2];     /* the code a launch of kind bit 0 = 0 / 1 runs */
    const char *step_launch;  /* how a launch of a step is named ("a launch a step"; NULL
                                 where the model takes no steps) */
    const char *measure_launches; /* how the measurement is launched ("in one launch") */
    size_t batch_bytes;       /* the model's batch struct, struct cuda_batch first */
    size_t entry_bytes;       /* a member's entry of the device table */
    bool counts;              /* the launches count accepted updates a member (else the
                                 accepted count is the attempted one) */
    bool counts_attempted;    /* with counts: they also count the attempted ones, member m's
                                 into changed[n + m] (Wolff: its cluster's sites; else
                                 per_sweep's a sweep) */
    /* A sim that can be a batch's member 0: the model's algorithm, a box alone
     * (cuda_batch_member_box), a shape the kernels take (also the capabilities' question). */
    bool (*member_ok)(const latmc_sim *sim);
    /* Whether sim (a box alone of the model) runs in one launch with member 0 `first`. */
    bool (*same_chain)(const latmc_sim *first, const latmc_sim *sim);
    /* Optional: whether members of sim's lattice take whole sweeps a launch (NULL: never;
     * then sweeps_per_launch and sweeps are not asked for either). */
    bool (*whole_sweeps)(const latmc_sim *sim);
    /* Whether the batch takes call k: a step (LATMC_STEP_WHOLE), or whole sweeps
     * (LATMC_STEP_SWEEPS, asked only where whole_sweeps) named as the kernel names them. */
    bool (*call_ok)(const latmc_sim *first, const struct latmc_step_call *k);
    /* Attempted updates of a member a sweep (counted once a sweep, at step index 0). */
    uint64_t (*per_sweep)(const latmc_sim *first);
    /* Whole sweeps a launch at most: bounds a launch's work (with whole_sweeps). */
    uint64_t (*sweeps_per_launch)(const latmc_sim *first);
    /* Optional: the model's part of a new batch (members, n and device set, the current
     * device its own; before the driver's device memory: dev_table and dev_changed not
     * yet made); a failure frees the batch. */
    int (*init)(struct cuda_batch *b);
    /* Optional: frees the model's part (also of a batch init failed on). */
    void (*fini)(struct cuda_batch *b);
    /* Member m's entry (zeroed) of this call's table. */
    void (*entry)(struct cuda_batch *b, int m, void *entry);
    /* The launches of step call k on every member (*kind: its code, CUDA_BATCH_FUSED not
     * set; NULL where call_ok takes no step), and of n whole sweeps from sweep0 on (of
     * call k, *kind with CUDA_BATCH_FUSED where they ran as whole sweeps). On the lead's
     * stream; dev_changed counts. */
    cudaError_t (*step)(struct cuda_batch *b, const struct latmc_step_call *k, int *kind);
    cudaError_t (*sweeps)(struct cuda_batch *b, const struct latmc_step_call *k,
                          uint64_t sweep0, uint64_t n, int *kind);
    /* The measurement's launches and read-back on the lead's stream (the driver waits for
     * it; NULL: the members are measured one by one); optional measured: after the wait,
     * what the model does with what it read. */
    int (*measure)(struct cuda_batch *b, void *sums);
    void (*measured)(struct cuda_batch *b, void *sums);
};

/* The box of a member of this model that is one box alone on the executor
 * (cuda_exec_lone_box), or NULL. */
struct cuda_box *cuda_batch_member_box(const latmc_sim *sim, int model);

/* The box of a sim that is one box alone on the executor and its leaf in *leaf, whatever
 * the leaf's model (a model with several leaves tells them apart), or NULL (*leaf NULL). */
struct cuda_box *cuda_batch_lone_box(const latmc_sim *sim, const struct cuda_leaf **leaf);

/* A member's stored lattice (the module's sim's: a box alone's, also before any batch is
 * made), device and own stream (its calls' work, e.g. a pack of its spins; the batch's
 * launches run on the lead's). */
const struct latmc_lattice *cuda_batch_lattice_of(const latmc_sim *sim);
int cuda_batch_device_of(const latmc_sim *sim);
cudaStream_t cuda_batch_stream_of(const latmc_sim *sim);

/* The batch state a model keeps itself, one a lead reused by every member array it leads
 * (Ising's, ising/cuda_ising_batch.c): first in the model's own struct, with the function
 * that frees it. */
struct cuda_lead_state {
    void (*free)(struct cuda_lead_state *state);
};

/* Where the lead sim keeps it: NULL until the model fills the slot; the sim frees it (its
 * `free`) when it is destroyed. */
struct cuda_lead_state **cuda_batch_lead_slot(const latmc_sim *lead);

/* A tempering swap's move of the parameters of members a and b: the executor's boxes swap
 * their tables (cuda_exec_swap_tables). */
int cuda_batch_swap_tables(const latmc_sim *a, const latmc_sim *b);

/* A member's couplings as floats, ndim a site (the executor's authoritative values,
 * whatever set them: cuda_exec_get_couplings). */
int cuda_batch_member_couplings(const latmc_sim *sim, float *buf);

/* The batch layout's capabilities for a sim (lib/box.h): none where it cannot be a member
 * 0 or was made to run one by one (cuda_sim's ens_one_by_one), else a batch, and whole
 * sweeps a launch where its lattice takes them. */
unsigned cuda_batch_caps(const struct cuda_batch_ops *ops, const latmc_sim *sim);

/*
 * A list of the plan's calls for the batch calls[0].members (lib/box.h): each step call
 * the model's launches over every member, each LATMC_STEP_SWEEPS call launches of up to
 * ops->sweeps_per_launch whole sweeps. LATMC_EUNSUPPORTED with nothing done for other
 * calls or members that cannot run together. The counters are read once.
 */
int cuda_batch_run_steps(const struct cuda_batch_ops *ops, const struct latmc_step_call *calls,
                         int n_calls, uint64_t *accepted, uint64_t *attempted);

/* A batch's measurement (LATMC_STEP_MEASURE): the model's sums of every member,
 * LATMC_EUNSUPPORTED with nothing done where they do not run as a batch (the core measures
 * them one by one). */
int cuda_batch_measure(const struct cuda_batch_ops *ops, latmc_sim *const *members, int n,
                       void *sums);

/* The batches made with `lead` as member 0, if any, freed (the sim is being destroyed). */
void cuda_batch_release_led(const latmc_sim *lead);

/*
 * The batch of these members (made at their first call) with this call's table on the
 * device, uploaded on the lead's stream where it changed (same_sweeps: every member at
 * member 0's sweep). NULL with *st set (LATMC_EUNSUPPORTED: they cannot run together, or a
 * member was made to run one by one) or a batch with *st a failure of the upload; either
 * batch is given back with cuda_batch_put_back (no other thread uses it meanwhile).
 */
struct cuda_batch *cuda_batch_ready(const struct cuda_batch_ops *ops, latmc_sim *const *members,
                                    int n, bool same_sweeps, int *st);
void cuda_batch_put_back(struct cuda_batch *b);

/* The device's table of this member array's batch (if any) no longer what the host
 * uploaded (Heisenberg's tempering rounds wrote into it): its next call uploads. */
void cuda_batch_table_moved(latmc_sim *const *members);

/* Debug lines, each once a batch (which code the members took; the tests check them):
 * a launch of `kind` ran (after it was launched), the measurement ran. */
void cuda_batch_log_kind(struct cuda_batch *b, int kind);
void cuda_batch_log_measure(struct cuda_batch *b);

/* A =check mode's count of differences (dev_diffs, on the device), after a list's launches
 * on `stream` were waited for, whatever the list answered (status): where it succeeded,
 * the count read and LATMC_EDEVICE "CUDA: <env>=check: <count> of <what>" if it is not 0;
 * the count cleared wherever it may hold some (a difference, or the launches of a list that
 * failed before its count was read), so that the next list counts only its own. Returns
 * the list's status where it failed. */
int cuda_batch_check_count(unsigned long long *dev_diffs, cudaStream_t stream, int status,
                           const char *env, const char *what);

/*
 * A model's batch as the ensembles' routing (ensembles/ens_batch_steps.c) calls it, given
 * for a sim by its model's cuda_<m>_batch_of (below), so that the routing names no model.
 */
struct cuda_batch_model {
    /* The environment variable that, "0" when a sim is made, has the ensembles it belongs
     * to run one by one (cuda_sim's ens_one_by_one; NULL: none). */
    const char *one_by_one_env;
    /* The batch layout's capabilities for a sim (LATMC_STEP_CAP_BATCH, _SWEEPS,
     * _EXCHANGE); the routing adds the requests' (every member's sums; tempering swaps'
     * moves where `swaps`; pairs' overlaps where `overlaps`). */
    unsigned (*caps)(const latmc_sim *sim);
    /* A list of the plan's calls over every member (lib/box.h). */
    int (*run_steps)(const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                     uint64_t *attempted);
    /* LATMC_STEP_MEASURE: every member's sums (n_members >= 1). */
    int (*measure_all)(latmc_sim *const *members, int n_members, void *sums);
    /* LATMC_STEP_SWAP_PARAMS taken (false: the core swaps the members the long way); by
     * swap_params where the model keeps more than the boxes' tables (NULL: the boxes swap
     * their tables, cuda_batch_swap_tables). */
    bool swaps;
    int (*swap_params)(latmc_sim *a, latmc_sim *b);
    /* Optional: LATMC_STEP_OVERLAPS on the device (NULL: none). */
    int (*overlaps)(latmc_sim *const *members, int n_members, const int32_t *pairs,
                    int n_pairs, int64_t *q, int64_t *ql);
};

/* The batch of a sim's ensembles (cuda_models.c): the cluster steps' where it runs one
 * (cuda_cluster_batch_of), else its model's, or NULL (its ensembles run one by one). Asked
 * of the sim's description alone (also while it is being made). */
const struct cuda_batch_model *cuda_batch_model_of(const latmc_sim *sim);

/* Each model's batch for a sim of that model, one function per line of lib/model_list.h,
 * defined in the model's folder (its cuda_<m>_batch.c), NULL where it has none;
 * cuda_models.c calls the one of the sim's model, so adding a model edits neither file. */
#define LATMC_MODEL(m) const struct cuda_batch_model *cuda_##m##_batch_of(const latmc_sim *sim);
#include "model_list.h"
#undef LATMC_MODEL

/* The cluster steps' batch (clusters/cuda_sw_batch.c) where the sim's algorithm is
 * Swendsen-Wang or Wolff on a model they run (Ising, Potts), else NULL. */
const struct cuda_batch_model *cuda_cluster_batch_of(const latmc_sim *sim);

#endif
