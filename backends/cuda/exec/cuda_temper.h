/*
 * Internal to the CUDA module: parallel tempering on the device (lib/ens_temper.c;
 * doc/ensembles.md "Exchange rule") as a model's leaf sees it. The state of the map, its
 * load and fetch, the lists' driver and the lists in parts of whole samples are the
 * models' alike (cuda_temper.c); the round is one kernel template over a model's energy and
 * move (cuda_temper_round.cuh). A model adds a table (struct cuda_temper_model, given by
 * its cuda_<m>_temper_of) and its round's kernels, both in its leaf folder:
 * ising/cuda_ising_temper.c, heisenberg/cuda_heisenberg_temper.c, phi4/cuda_phi4_temper.c.
 *
 * Like cuda_batch.h, this header names neither the module's sim (cuda_backend.h) nor the
 * executor's internals (cuda_exec.h); the routing of the plan's calls
 * (ensembles/ens_batch_steps.c) hands the lead's slot and stream in.
 */
#ifndef LATMC_CUDA_TEMPER_H
#define LATMC_CUDA_TEMPER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The state of the map of an ensemble in device memory (slot i = (s n_T + t) n_R + r as
 * lib/ens_internal.h), as the round kernels read and write it. */
struct cuda_ens_temper_dev {
    int32_t *member_at, *temp_of;      /* n_members each */
    signed char *rt_dir;               /* n_members */
    unsigned long long *rt_start;      /* n_members */
    unsigned long long *stats;         /* rt_count, rt_sum_sweeps, pair_accepted[n_T - 1] */
    const double *ladder;              /* the ladder's value of each temperature (beta, mu2) */
    const void *param_of_t;            /* the model's part of each temperature (param_bytes
                                          each: Ising's thresholds or decision tables, phi^4's
                                          coefficients) */
    void *sums;                        /* the model's sums of each member (sums_bytes each;
                                          Ising's struct latmc_ising_sums, left there by the
                                          round's sweep launch, read by the round) */
};

/* What a round needs besides the state. */
struct cuda_ens_round {
    int n_samples, n_temperatures, n_replicas;
    uint64_t seed;       /* the draws' key */
    uint32_t stream;     /* their stream word */
    uint64_t round;      /* the round number */
    uint64_t sweeps;     /* the ensemble's sweep count at the round (round trips) */
    double J, h, nsites; /* the members' energy per site from their sums */
    double scale;        /* the ladder's factor in Delta (struct latmc_ens_temper's) */
    int first_sample;    /* samples first_sample .. + n_samples - 1 of the ensemble's */
};

#ifdef __cplusplus
}
#else /* the host's side */

#include "backend.h" /* struct latmc_ens_temper */
#include "box.h"     /* struct latmc_step_call */
#include "internal.h"

#define CUDA_TEMPER_PARTS_MAX 8   /* LATMC_ENS_TEMPER_PARTS */
#define CUDA_TEMPER_VIEW_BYTES 256 /* a model's view of its batch (struct cuda_temper_batch) */

struct cuda_temper_model;

/* The tempering state of an ensemble, kept with its member 0 (cuda_sim.ens_temper). A
 * model's run reads d (its sums written by its launches) and the rounds' constants, and
 * keeps `choice`; the rest is cuda_temper.c's. */
struct cuda_ens_temper {
    struct cuda_ens_temper_dev d;
    int n, nT;
    int n_samples, n_replicas;   /* the rounds' constants, from the load */
    uint64_t seed;
    uint32_t stream;
    double scale;                /* the ladder's factor in Delta */
    int choice;                  /* the model's way of running these lists, -1 until it asks
                                    after a load (Ising: the chains resident or not) */
    const struct cuda_temper_model *model; /* the members' (a state of other members is
                                              not theirs) */
    bool live;                   /* the device holds a state of these members */
    uint64_t uploads;            /* the batch's uploads when its table last matched the map */
    void *dev;                   /* the state's memory (d points into it) */
    size_t dev_cap;
    void *host;                  /* page-locked staging of the state (or malloc'ed) */
    size_t host_cap;
    bool host_pinned;
    /* lists in parts (cuda_temper_run_in_parts): the streams of parts 1 .. and the events
     * that start them after the batch's stream and join them to it; made at first use */
    cudaStream_t side[CUDA_TEMPER_PARTS_MAX - 1];
    cudaEvent_t fork, join[CUDA_TEMPER_PARTS_MAX - 1];
};

/* A batch opened for a tempering call: set by cuda_temper.c (members, n, stream) and by
 * the model's open (uploads, and its view of its batch in `view`). */
struct cuda_temper_batch {
    latmc_sim *const *members;
    int n;
    cudaStream_t stream;         /* the lead's: every launch and copy of the call */
    uint64_t uploads;            /* the batch's table uploads so far */
    struct {
        _Alignas(max_align_t) unsigned char bytes[CUDA_TEMPER_VIEW_BYTES];
    } view;
};

/* A model's view of its batch, type T, in a struct cuda_temper_batch (only ever accessed as
 * T: the bytes are its storage): its accessors view_of and view_in, and the checks that T
 * fits and is aligned there. */
#define CUDA_TEMPER_VIEW(T)                                                                  \
    _Static_assert(sizeof(T) <= CUDA_TEMPER_VIEW_BYTES, #T " fits a tempering view");         \
    _Static_assert(_Alignof(T) <= _Alignof(max_align_t), #T " aligned in a tempering view");  \
    static T *view_of(struct cuda_temper_batch *tb)                                           \
    {                                                                                         \
        return (T *)(void *)tb->view.bytes;                                                   \
    }                                                                                         \
    static const T *view_in(const struct cuda_temper_batch *tb)                               \
    {                                                                                         \
        return (const T *)(const void *)tb->view.bytes;                                       \
    }

/* A model's part of tempering on the device. Callbacks marked optional may be NULL. */
struct cuda_temper_model {
    int ladder_key;     /* the parameter whose ladder it moves (LATMC_PARAM_*) */
    size_t param_bytes; /* the state's part of a temperature (what a round writes) */
    size_t sums_bytes;  /* the state's sums of a member (0: the batch keeps them) */
    /* its batch of these members ready (LATMC_EUNSUPPORTED: not batched as tempering
     * needs), and given back */
    int (*open)(struct cuda_temper_batch *tb);
    void (*close)(struct cuda_temper_batch *tb);
    /* optional: whether its batch runs these calls (else LATMC_EUNSUPPORTED before anything
     * is launched: the state stays on the device) */
    bool (*calls_ok)(const struct latmc_step_call *calls, int n_calls);
    /* each temperature's part (param_bytes) from the table the batch uploaded, into
     * param_of_t: LATMC_EUNSUPPORTED where a member's entry is not its temperature's */
    int (*stage)(const struct cuda_temper_batch *tb, const struct latmc_ens_temper *job,
                 void *param_of_t);
    /* every member's entry its map temperature's (after an upload from the host) */
    cudaError_t (*place)(const struct cuda_temper_batch *tb, const struct cuda_ens_temper_dev *d);
    /* a list of whole sweeps and rounds, waited for; the members' counts added */
    int (*run)(struct cuda_ens_temper *t, struct cuda_temper_batch *tb,
               const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
               uint64_t *attempted);
    /* a list failed, or the map was fetched: the batch's host copy of its table may no
     * longer say what the device's holds, so its next call uploads (optional fetched:
     * the core's swaps keep the batch's copy in step, Ising's packed table) */
    void (*failed)(latmc_sim *const *members, int n);
    void (*fetched)(latmc_sim *const *members, int n);
};

/* Each model's tempering for a sim of that model, one function per line of
 * lib/model_list.h, defined in the model's folder, NULL where it has none (or not for this
 * sim); cuda_models.c's cuda_temper_model_of calls the one of the sim's model (NULL where
 * a cluster step runs it). */
#define LATMC_MODEL(m) \
    const struct cuda_temper_model *cuda_##m##_temper_of(const latmc_sim *sim);
#include "model_list.h"
#undef LATMC_MODEL
const struct cuda_temper_model *cuda_temper_model_of(const latmc_sim *sim);

/* Where the lead keeps the state, and its device and stream (the routing's, from the
 * module's sim). */
struct cuda_temper_lead {
    struct cuda_ens_temper **state;
    int device;
    cudaStream_t stream;
};

/* The LATMC_STEP_TEMPER_STATE request (lib/backend.h, struct latmc_ens_temper: the state
 * loaded or fetched) and a tempering list (lib/box.h: whole sweeps and LATMC_STEP_EXCHANGE
 * calls, each with device_map; LATMC_EUNSUPPORTED, nothing done, where the members' batch
 * cannot run them) of the model tm (NULL: refused), and the state's end (a lead sim's,
 * freed with it). */
int cuda_temper_state(const struct cuda_temper_model *tm, const struct cuda_temper_lead *lead,
                      latmc_sim *const *members, int n, struct latmc_ens_temper *job);
/* The same with each temperature's part (tm->param_bytes each) given in `parts` (host
 * memory) for the load, where a model has no batch to stage them from (open, close and
 * stage may then be NULL): the member lanes' (ensembles/ens_lanes.c). */
int cuda_temper_state_parts(const struct cuda_temper_model *tm,
                            const struct cuda_temper_lead *lead, latmc_sim *const *members,
                            int n, struct latmc_ens_temper *job, const void *parts);
int cuda_temper_run_steps(const struct cuda_temper_model *tm, const struct cuda_temper_lead *lead,
                          const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                          uint64_t *attempted);
void cuda_temper_free(struct cuda_ens_temper *t);

/* For the models' runs. Slot (s, t, r) of the host's map. */
static inline int64_t cuda_temper_slot(const struct latmc_ens_temper *job, int s, int t, int r)
{
    return ((int64_t)s * job->n_temperatures + t) * job->n_replicas + r;
}

/* The round of exchange call k: the state's constants, the round's number and clock, the
 * members' J and h (member 0's: the members are alike); cuda_temper_round_at, the same of
 * round number `round` at the ensemble's sweep count `sweeps` (a call's own rounds: the
 * member lanes'). */
struct cuda_ens_round cuda_temper_round_of(const struct cuda_ens_temper *t,
                                           const latmc_sim *first,
                                           const struct latmc_step_call *k);
struct cuda_ens_round cuda_temper_round_at(const struct cuda_ens_temper *t,
                                           const latmc_sim *first, uint64_t round,
                                           uint64_t sweeps);

/*
 * A list in parts of whole samples: part 0 on the batch's stream, each other part on a
 * stream of its own, forked from the batch's stream at the list's start and joined back
 * into it at its end, each part's sweeps, sums and rounds in the list's order. Members move
 * only within their sample (a round's map is a permutation of each (sample, replica)
 * chain; member m is in sample m / (nT nR)), so a part's launches read and write its own
 * members, its rows of the map and the shared counters (added atomically) alone: the
 * chain is the one-part list's bit for bit, but one part's sums and round -- launches
 * that are latency-bound and alone leave the device half idle -- run beside another
 * part's sweeps. A model's launches for a part, members [m0, m0 + n) on a stream:
 */
struct cuda_temper_part_ops {
    /* the whole sweeps of call k; *sums set where the last launch left the members' sums
     * for the round next (round_next) */
    cudaError_t (*sweeps)(const struct cuda_temper_batch *tb, cudaStream_t stream, int m0, int n,
                          const struct latmc_step_call *k, bool round_next, bool after_round,
                          bool *sums);
    /* the sums the round reads */
    cudaError_t (*sums)(const struct cuda_temper_batch *tb, cudaStream_t stream, int m0, int n);
    /* the round of r's samples */
    cudaError_t (*round)(const struct cuda_temper_batch *tb, cudaStream_t stream,
                         const struct cuda_ens_temper_dev *d, const struct cuda_ens_round *r);
};

/* The parts a list of n members runs in where the model's batch allows them (splits). */
int cuda_temper_parts(const struct cuda_ens_temper *t, bool splits, int n);

/* The list's calls in `parts` parts (cuda_temper_parts > 1), joined back into tb's stream
 * (nothing waited for there; a part's stream that could not be joined is waited for
 * here); *sweeps gains the list's sweeps. */
int cuda_temper_run_in_parts(struct cuda_ens_temper *t, const struct cuda_temper_batch *tb,
                             const struct cuda_temper_part_ops *ops, int parts,
                             const struct latmc_step_call *calls, int n_calls, uint64_t *sweeps);

#endif

#endif
