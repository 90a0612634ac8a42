/*
 * Parallel tempering on the device (exec/cuda_temper.h; lib/ens_temper.c): the batch's
 * LATMC_STEP_TEMPER_STATE requests (lib/backend.h, struct latmc_ens_temper) load the host's
 * state here and fetch it back, and the routing of the plan's calls
 * (ensembles/ens_batch_steps.c: calls with device_map, lib/box.h) hands the tempering
 * lists here, each run by the members' model (struct cuda_temper_model) on the batch's
 * stream with nothing read back, so the host waits once per list, not once per round. The
 * map, the round trips and the acceptance per pair stay on the device (struct
 * cuda_ens_temper, kept with member 0: cuda_sim.ens_temper) until the core fetches them.
 *
 * The state, its load and fetch, the rounds' constants and the lists in parts are the
 * models' alike; what a model adds (its leaf's cuda_<m>_temper.c) is how its batch is
 * opened (the members' device table ready), the parameter its ladder sets (beta; phi^4:
 * mu2; the load declines another), what a temperature puts into a member's table entry
 * (Ising: the thresholds of its beta, taken from the host's table at the load, each
 * temperature's members checked alike (the byte layout: its decision tables, from the
 * members' own); Heisenberg: the beta itself, the ladder's, checked equal; phi^4: the
 * coefficients of its mu2, as Ising's thresholds), and how a list runs.
 *
 * A round moves temperatures by writing the new temperature's part into the member's
 * entry of the batch's table. The members' own parameters (host) lag behind until the
 * core's fetch moves them; should the batch upload its table from them meanwhile
 * (Ising: another ensemble touched the module's Ising state), the entries are set again
 * from the device's map. Once the map is fetched (or a list fails) the batch's host copy
 * of its table may not be what the device holds: the model's `failed` and `fetched` make
 * its next call upload (a ladder set again brings the members back to exactly that copy;
 * Ising's swaps patch the copy or mark it, patch_batches).
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_temper.h"
#include "model.h"

/* Byte offsets of the state in one block (dev and host alike): the part copied both ways
 * first (rt_start, stats, member_at, temp_of, rt_dir), then the ladder and the model's
 * part of each temperature (uploaded), then the model's sums of each member (device
 * only). */
struct layout {
    size_t rt_start, stats, member_at, temp_of, rt_dir, shared_end;
    size_t ladder, thr, upload_end, sums, total;
};

static size_t up16(size_t x)
{
    return (x + 15) & ~(size_t)15;
}

static struct layout layout_of(const struct cuda_temper_model *tm, int n, int nT)
{
    struct layout l;
    l.rt_start = 0;
    l.stats = up16(l.rt_start + (size_t)n * sizeof(unsigned long long));
    l.member_at = up16(l.stats + (size_t)(nT + 1) * sizeof(unsigned long long));
    l.temp_of = up16(l.member_at + (size_t)n * sizeof(int32_t));
    l.rt_dir = up16(l.temp_of + (size_t)n * sizeof(int32_t));
    l.shared_end = up16(l.rt_dir + (size_t)n);
    l.ladder = l.shared_end;
    l.thr = up16(l.ladder + (size_t)nT * sizeof(double));
    l.upload_end = up16(l.thr + (size_t)nT * tm->param_bytes);
    l.sums = l.upload_end;
    l.total = up16(l.sums + (size_t)n * tm->sums_bytes);
    return l;
}

void cuda_temper_free(struct cuda_ens_temper *t)
{
    if (!t)
        return;
    for (int p = 0; p < CUDA_TEMPER_PARTS_MAX - 1; p++) {
        if (t->side[p])
            cudaStreamDestroy(t->side[p]);
        if (t->join[p])
            cudaEventDestroy(t->join[p]);
    }
    if (t->fork)
        cudaEventDestroy(t->fork);
    cudaFree(t->dev);
    if (t->host_pinned)
        cudaFreeHost(t->host);
    else
        free(t->host);
    free(t);
}

/* The state's memory for n members and nT temperatures (grown only). */
static int temper_alloc(struct cuda_ens_temper **slot, int n, int nT, const struct layout *l)
{
    struct cuda_ens_temper *t = *slot;
    if (!t && !(t = *slot = calloc(1, sizeof *t)))
        return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the tempering state");
    if (l->total > t->dev_cap) {
        cudaFree(t->dev);
        t->dev = NULL;
        t->dev_cap = 0;
        t->live = false;
        const int st = cuda_check(cudaMalloc(&t->dev, l->total),
                                  "cannot allocate device memory for the tempering state");
        if (st < 0)
            return st;
        t->dev_cap = l->total;
    }
    if (l->upload_end > t->host_cap) {
        if (t->host_pinned)
            cudaFreeHost(t->host);
        else
            free(t->host);
        t->host = NULL;
        t->host_cap = 0;
        t->host_pinned = cudaMallocHost(&t->host, l->upload_end) == cudaSuccess;
        if (!t->host_pinned) {
            (void)cudaGetLastError(); /* not sticky */
            t->host = malloc(l->upload_end);
        }
        if (!t->host)
            return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the tempering state");
        t->host_cap = l->upload_end;
    }
    char *d = t->dev;
    t->d.member_at = (int32_t *)(d + l->member_at);
    t->d.temp_of = (int32_t *)(d + l->temp_of);
    t->d.rt_dir = (signed char *)(d + l->rt_dir);
    t->d.rt_start = (unsigned long long *)(d + l->rt_start);
    t->d.stats = (unsigned long long *)(d + l->stats);
    t->d.ladder = (const double *)(d + l->ladder);
    t->d.param_of_t = d + l->thr;
    t->d.sums = d + l->sums;
    t->n = n;
    t->nT = nT;
    return LATMC_OK;
}

/* The host's state into the staging block, each temperature's part from the table the
 * device holds (the model's stage: LATMC_EUNSUPPORTED where a member's is not its
 * temperature's; then the host's rounds run). */
static int stage_state(struct cuda_ens_temper *t, const struct layout *l,
                       const struct cuda_temper_model *tm,
                       const struct cuda_temper_batch *tb, const struct latmc_ens_temper *job,
                       const void *parts)
{
    const int n = t->n, nT = t->nT;
    char *h = t->host;
    if (parts)
        memcpy(h + l->thr, parts, (size_t)nT * tm->param_bytes);
    const int st = parts ? LATMC_OK : tm->stage(tb, job, h + l->thr);
    if (st < 0)
        return st;
    unsigned long long *rt_start = (void *)(h + l->rt_start), *stats = (void *)(h + l->stats);
    int32_t *at = (void *)(h + l->member_at), *temp = (void *)(h + l->temp_of);
    signed char *dir = (void *)(h + l->rt_dir);
    for (int m = 0; m < n; m++) {
        rt_start[m] = job->rt_start[m];
        at[m] = job->member_at[m];
        temp[m] = job->temp_of[m];
        dir[m] = job->rt_dir[m];
    }
    stats[0] = *job->rt_count;
    stats[1] = *job->rt_sum_sweeps;
    for (int k = 0; k + 1 < nT; k++)
        stats[2 + k] = job->pair_accepted[k];
    memcpy(h + l->ladder, job->ladder, (size_t)nT * sizeof(double));
    return LATMC_OK;
}

/* The members' batch opened by the model on the lead's stream (a model without a batch:
 * nothing to open). */
static int open_batch(const struct cuda_temper_model *tm, const struct cuda_temper_lead *lead,
                      latmc_sim *const *members, int n, struct cuda_temper_batch *tb)
{
    memset(tb, 0, sizeof *tb);
    tb->members = members;
    tb->n = n;
    tb->stream = lead->stream;
    return tm->open ? tm->open(tb) : LATMC_OK;
}

static void close_batch(const struct cuda_temper_model *tm, struct cuda_temper_batch *tb)
{
    if (tm->close)
        tm->close(tb);
}

/* LATMC_ENS_TEMPER_LOAD: the host's state onto the device, on the stream of the batch's
 * launches (the members' table made ready there too); each temperature's part from
 * `parts` where not NULL, else the model's stage. */
static int load(const struct cuda_temper_model *tm, const struct cuda_temper_lead *lead,
                latmc_sim *const *members, int n, const struct latmc_ens_temper *job,
                const void *parts)
{
    if (job->ladder_key != tm->ladder_key)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device along "
                               "this ladder's parameter (%d)", job->ladder_key);
    struct cuda_temper_batch tb;
    int st = open_batch(tm, lead, members, n, &tb);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not the batch tempering runs on */
    const int nT = job->n_temperatures;
    const struct layout l = layout_of(tm, n, nT);
    struct cuda_ens_temper *t = NULL;
    if ((st = temper_alloc(lead->state, n, nT, &l)) == LATMC_OK) {
        t = *lead->state;
        t->live = false;
        t->model = tm;
        st = stage_state(t, &l, tm, &tb, job, parts);
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(t->dev, t->host, l.upload_end, cudaMemcpyHostToDevice,
                                        tb.stream), "loading the tempering state");
    /* the staging block is reused by a fetch: the copy must be done when this returns */
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(tb.stream), "loading the tempering state");
    close_batch(tm, &tb);
    if (st < 0)
        return st;
    t->n_samples = job->n_samples;
    t->n_replicas = job->n_replicas;
    t->seed = job->seed;
    t->stream = job->stream;
    t->scale = job->scale;
    t->uploads = tb.uploads;
    t->choice = -1;
    t->live = true;
    return LATMC_OK;
}

/* The calls a tempering list holds: whole sweeps and exchange rounds. */
static bool temper_calls_ok(const struct latmc_step_call *calls, int n_calls)
{
    for (int c = 0; c < n_calls; c++)
        if (calls[c].part != LATMC_STEP_SWEEPS && (calls[c].part != LATMC_STEP_WHOLE ||
                                                   calls[c].step.kind != LATMC_STEP_EXCHANGE))
            return false;
    return true;
}

struct cuda_ens_round cuda_temper_round_of(const struct cuda_ens_temper *t,
                                           const latmc_sim *first,
                                           const struct latmc_step_call *k)
{
    return cuda_temper_round_at(t, first, k->round, k->round_sweeps);
}

struct cuda_ens_round cuda_temper_round_at(const struct cuda_ens_temper *t,
                                           const latmc_sim *first, uint64_t round,
                                           uint64_t sweeps)
{
    const struct cuda_ens_round r = {
        .n_samples = t->n_samples, .n_temperatures = t->nT, .n_replicas = t->n_replicas,
        .seed = t->seed, .stream = t->stream, .round = round, .sweeps = sweeps,
        .J = first->param[LATMC_PARAM_J], .h = first->param[LATMC_PARAM_H],
        .nsites = (double)first->nsites, .scale = t->scale,
    };
    return r;
}

/* The parts a list of n members runs in where the model's batch allows them (splits): up
 * to four, as many as leave a part at least one member per multiprocessor of the device
 * (a part's launches then still fill it: smaller parts only multiply the launches, measured
 * 2-2.5x slower at 128 members of 8^3 on an H200, 0.85x at 128 of 16^3, 1.03x at 512 of
 * 16^3); LATMC_ENS_TEMPER_PARTS=1|2|4|8 (doc/environment.md) asks for a count whatever the
 * size. Never more than the samples, else two, or one with one sample. */
int cuda_temper_parts(const struct cuda_ens_temper *t, bool splits, int n)
{
    if (!splits)
        return 1;
    const char *env = getenv("LATMC_ENS_TEMPER_PARTS");
    int want = 4, device = 0, sms = 0;
    if (env && *env)
        want = atoi(env);
    else if (cudaGetDevice(&device) == cudaSuccess &&
             cuda_device_sm_count(device, &sms) == cudaSuccess && sms > 0)
        want = n / sms < want ? n / sms : want;
    else
        (void)cudaGetLastError(); /* not sticky: four parts */
    if (want < 2)
        return 1;
    return t->n_samples >= want ? want : t->n_samples >= 2 ? 2 : 1;
}

/* The streams of parts 1 .. parts - 1 and their events, made once. */
static int sides_ready(struct cuda_ens_temper *t, int parts)
{
    cudaError_t err = cudaSuccess;
    if (!t->fork)
        err = cudaEventCreateWithFlags(&t->fork, cudaEventDisableTiming);
    for (int p = 0; p < parts - 1 && err == cudaSuccess; p++) {
        if (!t->side[p])
            err = cudaStreamCreateWithFlags(&t->side[p], cudaStreamNonBlocking);
        if (err == cudaSuccess && !t->join[p])
            err = cudaEventCreateWithFlags(&t->join[p], cudaEventDisableTiming);
    }
    return cuda_check(err, "making the tempering list's streams");
}

int cuda_temper_run_in_parts(struct cuda_ens_temper *t, const struct cuda_temper_batch *tb,
                             const struct cuda_temper_part_ops *ops, int parts,
                             const struct latmc_step_call *calls, int n_calls, uint64_t *sweeps)
{
    cudaStream_t stream = tb->stream;
    const latmc_sim *first = calls[0].members[0];
    const int n = calls[0].n_members;
    const int per_sample = n / t->n_samples;
    /* part p: samples [s0[p], s0[p + 1]), their members [s0[p], s0[p + 1]) x per_sample */
    int s0[CUDA_TEMPER_PARTS_MAX + 1];
    for (int p = 0; p <= parts; p++)
        s0[p] = (int)((int64_t)t->n_samples * p / parts);
    cudaStream_t on[CUDA_TEMPER_PARTS_MAX] = { stream };
    int st = sides_ready(t, parts);
    if (st == LATMC_OK)
        st = cuda_check(cudaEventRecord(t->fork, stream), "starting the list's parts");
    int forked = 1;
    for (; forked < parts && st == LATMC_OK; forked++) {
        on[forked] = t->side[forked - 1];
        st = cuda_check(cudaStreamWaitEvent(on[forked], t->fork, 0), "starting the list's parts");
    }
    if (st == LATMC_OK)
        cuda_core->log(first->ctx, LATMC_LOG_DEBUG, "CUDA tempering list in %d parts of whole "
                       "samples", parts);
    bool sums[CUDA_TEMPER_PARTS_MAX] = { false }, after_round[CUDA_TEMPER_PARTS_MAX] = { false };
    for (int c = 0; c < n_calls && st == LATMC_OK; c++) {
        const struct latmc_step_call *k = &calls[c];
        for (int p = 0; p < parts && st == LATMC_OK; p++) {
            const int m0 = s0[p] * per_sample, mn = (s0[p + 1] - s0[p]) * per_sample;
            if (k->part == LATMC_STEP_SWEEPS) {
                const bool round_next = c + 1 < n_calls && calls[c + 1].part != LATMC_STEP_SWEEPS;
                st = cuda_check(ops->sweeps(tb, on[p], m0, mn, k, round_next, after_round[p],
                                            &sums[p]),
                                "launching the members' sweeps");
                after_round[p] = false;
                continue;
            }
            cudaError_t err = sums[p] ? cudaSuccess : ops->sums(tb, on[p], m0, mn);
            sums[p] = false;
            if (err == cudaSuccess) {
                struct cuda_ens_round r = cuda_temper_round_of(t, first, k);
                r.first_sample = s0[p];
                r.n_samples = s0[p + 1] - s0[p];
                err = ops->round(tb, on[p], &t->d, &r);
            }
            st = cuda_check(err, "launching an exchange round");
            after_round[p] = true; /* the next sweeps' launch follows the round's */
        }
        if (k->part == LATMC_STEP_SWEEPS)
            *sweeps += k->n_sweeps;
    }
    /* joined even after a failed launch: none may outlive the call */
    for (int p = 1; p < forked; p++) {
        cudaError_t join = cudaEventRecord(t->join[p - 1], on[p]);
        if (join == cudaSuccess)
            join = cudaStreamWaitEvent(stream, t->join[p - 1], 0);
        if (join != cudaSuccess) {
            (void)cudaStreamSynchronize(on[p]);
            if (st == LATMC_OK)
                st = cuda_check(join, "joining the list's parts");
        }
    }
    return st;
}

int cuda_temper_run_steps(const struct cuda_temper_model *tm, const struct cuda_temper_lead *lead,
                          const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                          uint64_t *attempted)
{
    latmc_sim *const *members = calls[0].members;
    const int n = calls[0].n_members;
    if (!tm || !temper_calls_ok(calls, n_calls) || (tm->calls_ok && !tm->calls_ok(calls, n_calls)))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering list of these steps");
    struct cuda_temper_batch tb;
    int st = open_batch(tm, lead, members, n, &tb);
    if (st == LATMC_EUNSUPPORTED)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device for "
                               "these members (not batched as tempering needs)");
    if (st < 0)
        return st;
    struct cuda_ens_temper *t = *lead->state;
    if (!t || !t->live || t->n != n || t->model != tm) {
        close_batch(tm, &tb);
        return cuda_core->fail(LATMC_ESTATE, "CUDA: the ensemble's tempering state is not on "
                               "the device");
    }
    /* the table was uploaded from the members' own parameters, which lag behind the map */
    if (tb.uploads != t->uploads) {
        st = cuda_check(tm->place(&tb, &t->d), "setting the members' temperatures");
        if (st < 0) /* nothing may outlive the call */
            (void)cudaStreamSynchronize(tb.stream);
    }
    t->uploads = tb.uploads;
    if (st == LATMC_OK)
        st = tm->run(t, &tb, calls, n_calls, accepted, attempted);
    close_batch(tm, &tb);
    if (st < 0) {
        t->live = false; /* the state may be half a round old: the core's call fails */
        tm->failed(members, n); /* the rounds that ran may have moved the table's entries */
    }
    return st;
}

static int fetch(const struct cuda_temper_model *tm, const struct cuda_temper_lead *lead,
                 latmc_sim *const *members, int n, struct latmc_ens_temper *job)
{
    struct cuda_ens_temper *t = *lead->state; /* no table work to read it */
    if (!t || !t->live || t->n != n || t->nT != job->n_temperatures || t->model != tm)
        return cuda_core->fail(LATMC_ESTATE, "CUDA: the ensemble's tempering state is not on "
                               "the device");
    const struct layout l = layout_of(tm, n, t->nT);
    int st = cuda_check(cudaSetDevice(lead->device), "cudaSetDevice");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(t->host, t->dev, l.shared_end, cudaMemcpyDeviceToHost,
                                        lead->stream), "reading the tempering state");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(lead->stream), "reading the tempering state");
    if (st < 0)
        return st;
    const char *h = t->host;
    const unsigned long long *rt_start = (const void *)(h + l.rt_start);
    const unsigned long long *stats = (const void *)(h + l.stats);
    const int32_t *at = (const void *)(h + l.member_at), *temp = (const void *)(h + l.temp_of);
    const signed char *dir = (const void *)(h + l.rt_dir);
    for (int m = 0; m < n; m++) {
        job->rt_start[m] = rt_start[m];
        job->member_at[m] = at[m];
        job->temp_of[m] = temp[m];
        job->rt_dir[m] = dir[m];
    }
    *job->rt_count = stats[0];
    *job->rt_sum_sweeps = stats[1];
    for (int k = 0; k + 1 < t->nT; k++)
        job->pair_accepted[k] = stats[2 + k];
    if (tm->fetched) /* the core moves the members to the map now */
        tm->fetched(members, n);
    return LATMC_OK;
}

int cuda_temper_state_parts(const struct cuda_temper_model *tm,
                            const struct cuda_temper_lead *lead, latmc_sim *const *members,
                            int n, struct latmc_ens_temper *job, const void *parts)
{
    if (!tm || n < 1 || job->n_temperatures < 2)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device for these "
                               "members");
    if (job->what == LATMC_ENS_TEMPER_FETCH)
        return fetch(tm, lead, members, n, job);
    return load(tm, lead, members, n, job, parts);
}

int cuda_temper_state(const struct cuda_temper_model *tm, const struct cuda_temper_lead *lead,
                      latmc_sim *const *members, int n, struct latmc_ens_temper *job)
{
    return cuda_temper_state_parts(tm, lead, members, n, job, NULL);
}
