/*
 * Tempering on the device of Heisenberg members (exec/cuda_temper.h, this model's struct
 * cuda_temper_model): the members' table is their batch's (cuda_heisenberg_batch.c), a
 * member's beta the ladder's (checked at the load, bit for bit: the round writes the
 * ladder's value), so the state keeps no part of a temperature. A list runs whole sweeps
 * with the batch's kernel (heisenberg_batch_kernels.cu), the members' bonds and M_z by
 * the batch's reduction in its round's form (the very sums a host round reads), then the
 * round: three launches a round, each programmatic (its blocks start as the last launch's
 * leave and wait for it; the sweeps after a round copy their spins in meanwhile). With
 * LATMC_ENS_HEIS_SUMS=1 (cuda_heisenberg_batch.c) the sweeps' launch before a round leaves
 * the same sums from the spins it holds in shared memory, where its shared memory takes
 * their partials: two launches. The list runs in parts of whole samples
 * (cuda_temper_run_in_parts). Members too large for one block run a launch a pass instead,
 * at the betas of the batch's table (copied into the passes' arguments on the device),
 * which then names where each configuration lies for the reduction.
 */
#include <string.h>

#include "cuda_check.h"
#include "cuda_temper.h"
#include "heisenberg_batch.h"
#include "model.h"

/* The batch's view (cuda_ens_heisenberg_open), tempering's view of the batch. */
CUDA_TEMPER_VIEW(struct cuda_ens_heisenberg_view)

static int heisenberg_open(struct cuda_temper_batch *tb)
{
    struct cuda_ens_heisenberg_view *v = view_of(tb);
    const int st = cuda_ens_heisenberg_open(tb->members, tb->n, v);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not one batch */
    tb->uploads = v->uploads;
    return LATMC_OK;
}

static void heisenberg_close(struct cuda_temper_batch *tb)
{
    cuda_ens_heisenberg_close(view_of(tb));
}

/* The batch compares each call's table with its copy of the last upload, which the rounds'
 * betas never reached: once the map leaves the device the members may come back to exactly
 * that copy (a ladder set again) while the device's table still holds the rounds' betas,
 * so its next call uploads whatever it builds. */
static void heisenberg_moved(latmc_sim *const *members, int n)
{
    cuda_ens_heisenberg_table_moved(members, n);
}

/* No part of its own a temperature: a member's beta is the ladder's (checked, bit for
 * bit: the round writes the ladder's value). */
static int heisenberg_stage(const struct cuda_temper_batch *tb,
                            const struct latmc_ens_temper *job, void *param_of_t)
{
    (void)param_of_t;
    const struct cuda_ens_heisenberg_member *host = view_in(tb)->host;
    for (int m = 0; m < tb->n; m++)
        if (memcmp(&host[m].beta, &job->ladder[job->temp_of[m]], sizeof host[m].beta) != 0)
            return LATMC_EUNSUPPORTED;
    return LATMC_OK;
}

static cudaError_t heisenberg_place(const struct cuda_temper_batch *tb,
                                    const struct cuda_ens_temper_dev *d)
{
    return cuda_ens_heisenberg_temper_betas(tb->stream, d, view_in(tb)->dev, tb->n);
}

/* The parts of a Heisenberg list: the batch's members take a block each, and no
 * LATMC_ENS_HEIS_SUMS=check (which compares every member's sums in one launch). */
static cudaError_t heisenberg_sweeps_of(const struct cuda_temper_batch *tb, cudaStream_t stream,
                                        int m0, int n, const struct latmc_step_call *k,
                                        bool round_next, bool after_round, bool *sums)
{
    const struct cuda_ens_heisenberg_view *v = view_in(tb);
    /* a round next: the last launch leaves the members' sums (where it can) */
    *sums = v->fused_sums && k->n_sweeps > 0 && round_next;
    return cuda_ens_heisenberg_launch_sweeps_of(v, stream, m0, n, k->sweep, k->n_sweeps, *sums,
                                                after_round);
}

static cudaError_t heisenberg_sums_of(const struct cuda_temper_batch *tb, cudaStream_t stream,
                                      int m0, int n)
{
    return cuda_ens_heisenberg_launch_measure_of(view_in(tb), stream, m0, n);
}

static cudaError_t heisenberg_round_of(const struct cuda_temper_batch *tb, cudaStream_t stream,
                                       const struct cuda_ens_temper_dev *d,
                                       const struct cuda_ens_round *r)
{
    return cuda_ens_heisenberg_exchange_round(stream, d, r, view_in(tb)->dev, view_in(tb)->sums);
}

static const struct cuda_temper_part_ops heisenberg_part_ops = {
    heisenberg_sweeps_of, heisenberg_sums_of, heisenberg_round_of,
};

/* Whole sweeps, and before each round the members' sums (left by the sweeps' last launch,
 * or the batch's reduction where it cannot or no sweeps came before: either way exactly
 * what the host's round reads, the batch's measure_all), then the round; in parts
 * of whole samples where the batch allows (cuda_temper_run_in_parts). */
static int heisenberg_run(struct cuda_ens_temper *t, struct cuda_temper_batch *tb,
                          const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                          uint64_t *attempted)
{
    const struct cuda_ens_heisenberg_view *v = view_in(tb);
    const int n = calls[0].n_members;
    const latmc_sim *first = calls[0].members[0];
    cudaStream_t stream = tb->stream; /* the batch's lead's */
    const int parts = cuda_temper_parts(t, cuda_ens_heisenberg_splits(v), n);
    uint64_t sweeps = 0;
    int st = LATMC_OK;
    bool measured = false, after_round = false;
    if (parts > 1)
        st = cuda_temper_run_in_parts(t, tb, &heisenberg_part_ops, parts, calls, n_calls, &sweeps);
    for (int c = 0; parts == 1 && c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_SWEEPS) {
            /* a round next: the last launch leaves the members' sums (where it can) */
            measured = v->fused_sums && k->n_sweeps > 0 && c + 1 < n_calls &&
                       calls[c + 1].part != LATMC_STEP_SWEEPS;
            st = cuda_check(cuda_ens_heisenberg_launch_sweeps(v, k->sweep, k->n_sweeps, measured,
                                                        after_round),
                            "launching the members' sweeps");
            sweeps += k->n_sweeps;
            after_round = false;
            continue;
        }
        cudaError_t err =
            measured ? cuda_ens_heisenberg_launch_check(v) : cuda_ens_heisenberg_launch_measure(v);
        measured = false;
        if (err == cudaSuccess) {
            const struct cuda_ens_round r = cuda_temper_round_of(t, first, k);
            err = cuda_ens_heisenberg_exchange_round(stream, &t->d, &r, v->dev, v->sums);
        }
        st = cuda_check(err, "launching an exchange round");
        after_round = true; /* the next sweeps' launch follows the round's */
    }
    /* waited for even after a failed launch: none may outlive the call */
    const cudaError_t fin = cudaStreamSynchronize(stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "sweeping and exchanging the members");
    st = cuda_ens_heisenberg_check_result(v, st); /* its count cleared whatever happened */
    if (st < 0)
        return st;
    for (int m = 0; m < n; m++) {
        accepted[m] += sweeps * v->updates_per_sweep;
        attempted[m] += sweeps * v->updates_per_sweep;
    }
    return LATMC_OK;
}

static const struct cuda_temper_model heisenberg_temper = {
    .ladder_key = LATMC_PARAM_BETA,
    .open = heisenberg_open,
    .close = heisenberg_close,
    .stage = heisenberg_stage,
    .place = heisenberg_place,
    .run = heisenberg_run,
    .failed = heisenberg_moved,
    .fetched = heisenberg_moved,
};

const struct cuda_temper_model *cuda_heisenberg_temper_of(const latmc_sim *sim)
{
    (void)sim; /* the open declines members that are not one batch */
    return &heisenberg_temper;
}
