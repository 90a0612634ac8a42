/*
 * Tempering on the device of Ising members (exec/cuda_temper.h, this model's struct
 * cuda_temper_model): the members' table is the packed kernels' batch
 * (cuda_ising_batch.c, cuda_ens_packed_ready), a temperature's part of the state its
 * thresholds (the byte layout: its decision tables), taken from the host's table at the
 * load, each temperature's members checked alike. A list runs whole sweeps with the fused
 * kernel (ising_batch_packed_kernels.cu), whose launch before a round also leaves every
 * member's sums, then the round (ising_batch_temper_kernels.cu): two launches a round; or
 * the chains resident (ising_batch_temper_kernels.cu's chain kernel). Members too large
 * for the fused kernel, and a single sweep before a round of its STREAM form: a launch a
 * colour, the members' sums in one launch, then the round. Members of the byte layout:
 * their fused kernel or colour launches, their sums, the round, whose move points a
 * member's entry at the state's copy of its new temperature's decision tables.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_batch.h"
#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_temper.h"
#include "ising_batch.h"
#include "model.h"

/* The packed kernels' table of the members, tempering's view of the batch. */
CUDA_TEMPER_VIEW(struct cuda_ens_ready)

/* An exchange call: the round's decisions on the members' sums (`measured`: the launch
 * before it left them; else they are measured here first). */
static cudaError_t exchange(cudaStream_t stream, const struct latmc_lattice *lat,
                            struct cuda_ens_temper *t, const struct cuda_ens_ready *ready,
                            const latmc_sim *first, int n, const struct latmc_step_call *k,
                            bool measured, struct latmc_ising_sums *sums)
{
    cudaError_t err = cudaSuccess;
    if (!measured) {
        err = cudaMemsetAsync(sums, 0, (size_t)n * sizeof *sums, stream);
        if (err == cudaSuccess)
            err = ready->packed ? cuda_ens_packed_measure(stream, lat,
                                                          ready->dev, n, ready->coupled, sums)
                                : cuda_ens_ising_measure(stream, lat,
                                                         ready->bytes, n, sums);
    }
    const struct cuda_ens_round r = cuda_temper_round_of(t, first, k);
    if (err != cudaSuccess)
        return err;
    return ready->packed ? cuda_ens_exchange_round(stream, &t->d, &r, ready->dev)
                         : cuda_ens_bytes_exchange_round(stream, &t->d, &r, ready->bytes);
}

/* The resident kernel runs lists with a round more often than every this many sweeps. */
#define RESIDENT_SWEEPS_PER_ROUND 24

/*
 * Whether lists may run with the chains resident (ising/ising_batch_temper_kernels.cu):
 * where a block holds a chain (words a multiple of 32, the shared memory fits) and the
 * chains fill the device's blocks well (a block per chain: few chains leave SMs idle,
 * which the per-round launches, a block per member, do not). LATMC_CUDA_TEMPER=resident
 * runs them resident wherever they fit (the tests run both ways).
 */
static bool resident_fits(const struct cuda_ens_temper *t, int device,
                          const struct cuda_ens_chain_geom *g)
{
    int optin = 0, sms = 0, per_sm = 0;
    if (g->words % 32 != 0 || g->words > 1024 ||
        cuda_device_smem_optin(device, &optin) != cudaSuccess ||
        cuda_ens_chain_shared(g, t->nT) > (uint32_t)optin) {
        (void)cudaGetLastError();
        return false;
    }
    const char *env = getenv("LATMC_CUDA_TEMPER");
    if (env && strcmp(env, "resident") == 0)
        return true;
    const struct cuda_ens_round r = { .n_samples = t->n_samples, .n_temperatures = t->nT,
                                      .n_replicas = t->n_replicas };
    if (cuda_device_sm_count(device, &sms) != cudaSuccess ||
        cuda_ens_chain_run(NULL, g, &t->d, &r, NULL, NULL, NULL, &per_sm) != cudaSuccess ||
        per_sm < 1) {
        (void)cudaGetLastError();
        return false;
    }
    /* the share of the blocks' slots the chains use over their waves */
    const int64_t chains = (int64_t)t->n_samples * t->n_replicas, slots = (int64_t)sms * per_sm;
    const int64_t waves = (chains + slots - 1) / slots;
    return (double)chains >= 0.75 * (double)(waves * slots);
}

/*
 * Whether this list runs resident: where the chains fit and fill the device (above) and its
 * rounds are frequent. The resident kernel's sweeps are a little slower than the fused
 * kernel's (one H200, 4096 x 16^3 +-J as 64 x 32 T x 2 R: ~0.7 us a sweep more, one block
 * of 32 warps an SM, a member a warp), its rounds far cheaper (~3 us against ~23 us for a
 * launched round with the fused kernel's relaunch): break-even near a round every ~30
 * sweeps (calls of 260 sweeps, both ways forced: resident ahead every 10 / 13 / 20 sweeps,
 * 935 / 936 / 942 against 861 / 888 / 922 flips/ns; calls of 20 sweeps every 13 / 20: 800 /
 * 808 against 756 / 783; every 30, lists without a round forced resident too: 780 against
 * 793). 24 keeps to the measured side of it. LATMC_CUDA_TEMPER=resident (where it fits) or
 * =launches chooses.
 */
static bool resident_list(struct cuda_ens_temper *t, const struct latmc_step_call *calls,
                          int n_calls)
{
    const char *env = getenv("LATMC_CUDA_TEMPER");
    if (!t->choice || (env && strcmp(env, "launches") == 0))
        return false;
    if (env && strcmp(env, "resident") == 0)
        return true;
    uint64_t sweeps = 0, rounds = 0;
    for (int c = 0; c < n_calls; c++) {
        if (calls[c].part == LATMC_STEP_SWEEPS)
            sweeps += calls[c].n_sweeps;
        else
            rounds++;
    }
    return rounds * RESIDENT_SWEEPS_PER_ROUND > sweeps;
}

/* One resident launch of the list gathered so far (then emptied). */
static cudaError_t resident_flush(cudaStream_t stream, struct cuda_ens_temper *t,
                                  const struct cuda_ens_ready *ready,
                                  const struct cuda_ens_chain_geom *g,
                                  const struct cuda_ens_round *r, struct cuda_ens_chain_list *list,
                                  uint64_t *in_launch)
{
    cudaError_t err = cudaSuccess;
    if (list->n > 0)
        err = cuda_ens_chain_run(stream, g, &t->d, r, list, ready->dev, ready->dev_changed, NULL);
    list->sweep0 += *in_launch;
    list->n = 0;
    list->clear = 0;
    *in_launch = 0;
    return err;
}

/* A list with the chains resident: its calls as segments of sweeps and rounds, a launch per
 * CUDA_ENS_CHAIN_SEGMENTS segments or CUDA_ENS_CHAIN_MAX_SWEEPS sweeps. */
static cudaError_t run_resident(cudaStream_t stream, struct cuda_ens_temper *t,
                                const struct cuda_ens_ready *ready,
                                const struct cuda_ens_chain_geom *g, const latmc_sim *first,
                                const struct latmc_step_call *calls, int n_calls)
{
    struct cuda_ens_chain_list list;
    memset(&list, 0, sizeof list);
    list.sweep0 = calls[0].sweep;
    list.clear = 1;
    const struct cuda_ens_round r = cuda_temper_round_of(t, first, &calls[0]);
    uint64_t in_launch = 0;
    cudaError_t err = cudaSuccess;
    for (int c = 0; c < n_calls && err == cudaSuccess; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_SWEEPS) {
            if (k->sweep != list.sweep0 + in_launch) /* not the next sweep: a new launch */
                err = resident_flush(stream, t, ready, g, &r, &list, &in_launch);
            list.sweep0 = k->sweep - in_launch;
            for (uint64_t left = k->n_sweeps; left > 0 && err == cudaSuccess;) {
                if (list.n == CUDA_ENS_CHAIN_SEGMENTS || in_launch == CUDA_ENS_CHAIN_MAX_SWEEPS)
                    err = resident_flush(stream, t, ready, g, &r, &list, &in_launch);
                const uint64_t room = CUDA_ENS_CHAIN_MAX_SWEEPS - in_launch;
                const uint64_t chunk = left < room ? left : room;
                list.n_sweeps[list.n] = (uint32_t)chunk;
                list.round_after[list.n] = 0;
                list.n++;
                in_launch += chunk;
                left -= chunk;
            }
            continue;
        }
        if (list.n == 0 || list.round_after[list.n - 1]) { /* a round with no sweeps before */
            if (list.n == CUDA_ENS_CHAIN_SEGMENTS)
                err = resident_flush(stream, t, ready, g, &r, &list, &in_launch);
            list.n_sweeps[list.n++] = 0;
        }
        list.round_after[list.n - 1] = 1;
        list.round[list.n - 1] = k->round;
        list.round_sweeps[list.n - 1] = k->round_sweeps;
    }
    if (err == cudaSuccess)
        err = resident_flush(stream, t, ready, g, &r, &list, &in_launch);
    return err;
}

static int ising_open(struct cuda_temper_batch *tb)
{
    struct cuda_ens_ready *ready = view_of(tb);
    const int st = cuda_ens_packed_ready(tb->members, tb->n, ready);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not the packed kernels' members */
    tb->uploads = ready->uploads;
    return LATMC_OK;
}

static void ising_close(struct cuda_temper_batch *tb)
{
    (void)tb; /* the Ising batch stays with the lead */
}

/* The thresholds of each temperature from the table the device holds (the byte layout: the
 * decision tables of the members' parameters, lib/ising.h): every member at one
 * temperature must have the same. */
static int ising_stage(const struct cuda_temper_batch *tb, const struct latmc_ens_temper *job,
                       void *param_of_t)
{
    const int n = tb->n;
    if (!view_in(tb)->packed) {
        struct latmc_ising_tables *tab = param_of_t;
        for (int k = 0; k < job->n_temperatures; k++)
            tab[k] = *(const struct latmc_ising_tables *)tb->members[job->member_at[
                cuda_temper_slot(job, 0, k, 0)]]->model_data;
        for (int m = 0; m < n; m++)
            if (memcmp(tb->members[m]->model_data, &tab[job->temp_of[m]], sizeof tab[0]) != 0)
                return LATMC_EUNSUPPORTED;
        return LATMC_OK;
    }
    const struct cuda_ens_packed_member *host = view_in(tb)->host;
    struct cuda_ising_packed_thresholds *thr = param_of_t;
    for (int k = 0; k < job->n_temperatures; k++)
        thr[k] = host[job->member_at[cuda_temper_slot(job, 0, k, 0)]].thr;
    for (int m = 0; m < n; m++)
        if (memcmp(&host[m].thr, &thr[job->temp_of[m]], sizeof thr[0]) != 0)
            return LATMC_EUNSUPPORTED;
    return LATMC_OK;
}

static cudaError_t ising_place(const struct cuda_temper_batch *tb,
                               const struct cuda_ens_temper_dev *d)
{
    const struct cuda_ens_ready *ready = view_in(tb);
    if (!ready->packed)
        return cuda_ens_bytes_temper_tables(tb->stream, d, ready->bytes, tb->n);
    return cuda_ens_temper_thresholds(tb->stream, d, ready->dev, tb->n);
}

/* Whether whole sweeps call k runs on the fused kernel: where it takes the members, but
 * for a single sweep of its STREAM form (then a launch a colour and the round's
 * measurement launch cost less than its reload of the members). */
static bool ising_fused_call(const struct cuda_ens_ready *ready, const struct latmc_step_call *k)
{
    return k->part == LATMC_STEP_SWEEPS && ready->fused && !(ready->stream && k->n_sweeps < 2);
}

static int ising_run(struct cuda_ens_temper *t, struct cuda_temper_batch *tb,
                     const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                     uint64_t *attempted)
{
    const struct cuda_ens_ready ready = *view_in(tb);
    const int n = calls[0].n_members;
    cudaStream_t stream = tb->stream; /* the batch's lead's, as its lattice and device */
    int st = LATMC_OK;
    const latmc_sim *first = calls[0].members[0];
    const struct latmc_lattice *lat = cuda_batch_lattice_of(first);
    struct latmc_ising_sums *sums = t->d.sums;
    const struct cuda_ens_chain_geom g =
        cuda_ens_chain_geom_of(lat, ready.coupled, first->desc.algorithm);
    if (t->choice < 0) /* the chains resident where they fit, asked once a load */
        t->choice = resident_fits(t, cuda_batch_device_of(first), &g);
    uint64_t tried = 0;
    for (int c = 0; c < n_calls; c++)
        if (calls[c].part == LATMC_STEP_SWEEPS)
            tried += calls[c].n_sweeps * (uint64_t)first->nsites; /* one shape */
    /* the resident kernel copies 16 bytes at a time: every member's arrays must start at a
     * multiple of 16 (they do where each member owns its allocations); packed tables alone */
    const bool resident = ready.packed && resident_list(t, calls, n_calls) && ready.aligned16;
    if (resident)
        st = cuda_check(run_resident(stream, t, &ready, &g, first, calls, n_calls),
                        "launching resident tempering chains");
    /* the fused kernel's first launch of whole sweeps sets the counters (no clearing
     * launch) */
    bool counting = !ising_fused_call(&ready, &calls[0]), measured = false;
    if (st == LATMC_OK && !resident && counting)
        st = cuda_check(cudaMemsetAsync(ready.dev_changed, 0,
                                        (size_t)n * sizeof(unsigned long long), stream),
                        "clearing the acceptance counters");
    for (int c = 0; c < n_calls && st == LATMC_OK && !resident; c++) {
        const struct latmc_step_call *k = &calls[c];
        if (k->part == LATMC_STEP_SWEEPS && !ready.packed) {
            /* the byte layout: its fused kernel where a member fits a block (leaving the
             * members' sums where a round is next), else a launch a colour, the round
             * then measuring them (exchange) */
            const bool round_next = c + 1 < n_calls && calls[c + 1].part != LATMC_STEP_SWEEPS;
            st = cuda_check(cuda_ens_bytes_sweeps(stream, lat, cuda_batch_device_of(first),
                                                  ready.bytes, n,
                                                  ready.coupled, first->desc.algorithm, k->sweep,
                                                  k->n_sweeps, ready.dev_changed,
                                                  round_next ? sums : NULL, &measured),
                            "launching a batched sweep");
            continue;
        }
        if (k->part == LATMC_STEP_SWEEPS && !ising_fused_call(&ready, k)) {
            /* members the fused kernel does not take (or a single sweep of its STREAM
             * form): a launch a colour, then the round measures them (exchange) */
            st = cuda_check(cuda_ens_colour_sweeps(stream, lat, ready.dev, true,
                                                   n, ready.coupled, first->desc.algorithm,
                                                   k->sweep, k->n_sweeps, ready.dev_changed),
                            "launching a batched sweep");
            measured = false;
            continue;
        }
        if (k->part == LATMC_STEP_SWEEPS) {
            /* a round next: the launch leaves the members' sums after its last sweep */
            measured = c + 1 < n_calls && calls[c + 1].part != LATMC_STEP_SWEEPS;
            st = cuda_check(cuda_ens_packed_sweeps(stream, lat, ready.dev, n,
                                                   ready.coupled, first->desc.algorithm,
                                                   k->sweep, k->n_sweeps, ready.dev_changed,
                                                   !counting, measured ? sums : NULL),
                            "launching a batched sweep");
            counting = true;
            continue;
        }
        st = cuda_check(exchange(stream, lat, t, &ready, first, n, k, measured, sums),
                        "launching an exchange round");
        measured = false;
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(ready.changed, ready.dev_changed,
                                        (size_t)n * sizeof(unsigned long long),
                                        cudaMemcpyDeviceToHost, stream),
                        "reading the acceptance counters");
    /* waited for even after a failed launch: none may outlive the call */
    const cudaError_t fin = cudaStreamSynchronize(stream);
    if (st == LATMC_OK)
        st = cuda_check(fin, "sweeping and exchanging the members");
    if (st < 0)
        return st;
    for (int m = 0; m < n; m++) {
        accepted[m] += ready.changed[m];
        attempted[m] += tried;
    }
    return LATMC_OK;
}

static const struct cuda_temper_model ising_temper = {
    .ladder_key = LATMC_PARAM_BETA,
    /* a temperature's part: the packed thresholds, or the byte layout's decision tables */
    .param_bytes = sizeof(struct latmc_ising_tables) > sizeof(struct cuda_ising_packed_thresholds)
                       ? sizeof(struct latmc_ising_tables)
                       : sizeof(struct cuda_ising_packed_thresholds),
    .sums_bytes = sizeof(struct latmc_ising_sums),
    .open = ising_open,
    .close = ising_close,
    .stage = ising_stage,
    .place = ising_place,
    .run = ising_run,
    .failed = cuda_ens_packed_table_moved,
    .fetched = cuda_ens_bytes_table_fetched,
};

const struct cuda_temper_model *cuda_ising_temper_of(const latmc_sim *sim)
{
    (void)sim; /* the open declines members the packed kernels' batch does not take */
    return &ising_temper;
}
