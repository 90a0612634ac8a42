/*
 * Tempering on the device of phi^4 members along a mu2 ladder (exec/cuda_temper.h, this
 * model's struct cuda_temper_model), for members that take whole sweeps (site order, at
 * most 32768 sites): the members' table is their batch's (cuda_phi4_batch.c), a
 * temperature's part of the state the coefficients its mu2 gives (taken from the host's
 * table at the load, each temperature's members checked alike). A list runs whole sweeps
 * with the batch's kernel (phi4_batch_kernels.cu), the members' sum phi^2 in one launch
 * (the very double the host's round reads from the batch's measurement, sum phi^2 / N its
 * value; LATMC_ENS_PHI4_ROUND_SUMS=measure|check: the measurement's two launches, or both
 * compared), then the round with Delta's factor 1/2: three launches a round; in parts of
 * whole samples (cuda_temper_run_in_parts) where the sums take their own launch.
 */
#include <string.h>

#include "cuda_check.h"
#include "cuda_temper.h"
#include "model.h"
#include "phi4_batch.h"

/* The batch's view (cuda_ens_phi4_open), tempering's view of the batch. */
CUDA_TEMPER_VIEW(struct cuda_ens_phi4_view)

static int phi4_open(struct cuda_temper_batch *tb)
{
    struct cuda_ens_phi4_view *v = view_of(tb);
    const int st = cuda_ens_phi4_open(tb->members, tb->n, v);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not one batch of whole sweeps */
    tb->uploads = v->uploads;
    return LATMC_OK;
}

static void phi4_close(struct cuda_temper_batch *tb)
{
    cuda_ens_phi4_close(view_of(tb));
}

/* Every sweeps call named as the batch's kernel names its steps (the plan's calls of the
 * model: always, unless the model's step names changed). */
static bool phi4_calls_ok(const struct latmc_step_call *calls, int n_calls)
{
    for (int c = 0; c < n_calls; c++)
        if (calls[c].part == LATMC_STEP_SWEEPS &&
            !cuda_ens_phi4_sweeps_ok(calls[c].members[0], &calls[c]))
            return false;
    return true;
}

/* The coefficients compared field by field, bit for bit (the structs' padding is not
 * theirs to compare). */
static bool coefs_equal(const struct cuda_ens_phi4_coefs *a, const struct cuda_ens_phi4_member *b)
{
    return memcmp(&a->f.site, &b->f.site, sizeof a->f.site) == 0 &&
           memcmp(&a->f.quartic, &b->f.quartic, sizeof a->f.quartic) == 0 &&
           memcmp(&a->f.inv_lambda, &b->f.inv_lambda, sizeof a->f.inv_lambda) == 0 &&
           memcmp(&a->f.four_k, &b->f.four_k, sizeof a->f.four_k) == 0 &&
           memcmp(&a->f.epsilon, &b->f.epsilon, sizeof a->f.epsilon) == 0 &&
           a->f.finite_lambda == b->f.finite_lambda &&
           memcmp(&a->d.site, &b->d.site, sizeof a->d.site) == 0 &&
           memcmp(&a->d.quartic, &b->d.quartic, sizeof a->d.quartic) == 0 &&
           memcmp(&a->d.inv_lambda, &b->d.inv_lambda, sizeof a->d.inv_lambda) == 0 &&
           memcmp(&a->d.four_k, &b->d.four_k, sizeof a->d.four_k) == 0 &&
           memcmp(&a->d.epsilon, &b->d.epsilon, sizeof a->d.epsilon) == 0 &&
           a->d.finite_lambda == b->d.finite_lambda;
}

/* The coefficients of each temperature from the table the device holds (those of the
 * member at it in sample 0, replica 0): every member at one temperature must have the
 * same (a function of mu2 and the members' other parameters, which agree). */
static int phi4_stage(const struct cuda_temper_batch *tb, const struct latmc_ens_temper *job,
                      void *param_of_t)
{
    const int n = tb->n;
    const struct cuda_ens_phi4_member *host = view_in(tb)->host;
    struct cuda_ens_phi4_coefs *coefs = param_of_t;
    memset(coefs, 0, (size_t)job->n_temperatures * sizeof *coefs);
    for (int k = 0; k < job->n_temperatures; k++) {
        const struct cuda_ens_phi4_member *e =
            &host[job->member_at[cuda_temper_slot(job, 0, k, 0)]];
        coefs[k].f = e->f;
        coefs[k].d = e->d;
    }
    for (int m = 0; m < n; m++)
        if (!coefs_equal(&coefs[job->temp_of[m]], &host[m]))
            return LATMC_EUNSUPPORTED;
    return LATMC_OK;
}

/* The state's part of each temperature (param_of_t) holds phi^4's coefficients. */
static const struct cuda_ens_phi4_coefs *phi4_coefs_of_t(const struct cuda_ens_temper_dev *d)
{
    return (const struct cuda_ens_phi4_coefs *)d->param_of_t;
}

static cudaError_t phi4_place(const struct cuda_temper_batch *tb,
                              const struct cuda_ens_temper_dev *d)
{
    return cuda_ens_phi4_temper_coefs(tb->stream, d, view_in(tb)->dev, phi4_coefs_of_t(d), tb->n);
}

/* The parts of a phi^4 list: the round's sums phi^2 in a launch of their own. */
static cudaError_t phi4_sweeps_of(const struct cuda_temper_batch *tb, cudaStream_t stream, int m0,
                                  int n, const struct latmc_step_call *k, bool round_next,
                                  bool after_round, bool *sums)
{
    (void)round_next;
    (void)after_round;
    *sums = false;
    return cuda_ens_phi4_launch_sweeps_of(view_in(tb), stream, m0, n, k->sweep, k->n_sweeps);
}

static cudaError_t phi4_sums_of(const struct cuda_temper_batch *tb, cudaStream_t stream, int m0,
                                int n)
{
    return cuda_ens_phi4_launch_round_sums_of(view_in(tb), stream, m0, n);
}

static cudaError_t phi4_round_of(const struct cuda_temper_batch *tb, cudaStream_t stream,
                                 const struct cuda_ens_temper_dev *d,
                                 const struct cuda_ens_round *r)
{
    return cuda_ens_phi4_exchange_round(stream, d, r, view_in(tb)->dev, view_in(tb)->sums,
                                        phi4_coefs_of_t(d));
}

static const struct cuda_temper_part_ops phi4_part_ops = {
    phi4_sweeps_of, phi4_sums_of, phi4_round_of,
};

/* Whole sweeps (their accepted hits counted on the device), and before each round the
 * members' sum phi^2 (its own launch, exactly the double the host's round reads through
 * the batch's measure_all; LATMC_ENS_PHI4_ROUND_SUMS), then the round. */
static int phi4_run(struct cuda_ens_temper *t, struct cuda_temper_batch *tb,
                    const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                    uint64_t *attempted)
{
    const struct cuda_ens_phi4_view *v = view_in(tb);
    const int n = calls[0].n_members;
    const latmc_sim *first = calls[0].members[0];
    cudaStream_t stream = tb->stream; /* the batch's lead's */
    const size_t count_bytes = (size_t)n * sizeof *v->changed;
    const int parts = cuda_temper_parts(t, cuda_ens_phi4_splits(v), n);
    uint64_t sweeps = 0;
    int st = cuda_check(cudaMemsetAsync(v->dev_changed, 0, count_bytes, stream),
                        "clearing the members' counters");
    if (parts > 1 && st == LATMC_OK)
        st = cuda_temper_run_in_parts(t, tb, &phi4_part_ops, parts, calls, n_calls, &sweeps);
    for (int c = 0; parts == 1 && c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_SWEEPS) {
            st = cuda_check(cuda_ens_phi4_launch_sweeps(v, k->sweep, k->n_sweeps),
                            "launching the members' sweeps");
            sweeps += k->n_sweeps;
            continue;
        }
        cudaError_t err = cuda_ens_phi4_launch_round_sums(v);
        if (err == cudaSuccess) {
            const struct cuda_ens_round r = cuda_temper_round_of(t, first, k);
            err = cuda_ens_phi4_exchange_round(stream, &t->d, &r, v->dev, v->sums,
                                               phi4_coefs_of_t(&t->d));
        }
        st = cuda_check(err, "launching an exchange round");
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(v->changed, v->dev_changed, count_bytes,
                                        cudaMemcpyDeviceToHost, stream),
                        "reading the members' counters");
    /* waited for even after a failed launch: none may outlive the call */
    const cudaError_t fin = cudaStreamSynchronize(stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "sweeping and exchanging the members");
    st = cuda_ens_phi4_check_result(v, st); /* its count cleared whatever happened */
    if (st < 0)
        return st;
    for (int m = 0; m < n; m++) {
        accepted[m] += v->changed[m];
        attempted[m] += sweeps * v->updates_per_sweep;
    }
    return LATMC_OK;
}

static const struct cuda_temper_model phi4_temper = {
    .ladder_key = LATMC_PARAM_MU2,
    .param_bytes = sizeof(struct cuda_ens_phi4_coefs),
    .open = phi4_open,
    .close = phi4_close,
    .calls_ok = phi4_calls_ok,
    .stage = phi4_stage,
    .place = phi4_place,
    .run = phi4_run,
    .failed = cuda_ens_phi4_table_moved,
    .fetched = cuda_ens_phi4_table_moved,
};

const struct cuda_temper_model *cuda_phi4_temper_of(const latmc_sim *sim)
{
    (void)sim; /* the open declines members that are not one batch of whole sweeps */
    return &phi4_temper;
}
