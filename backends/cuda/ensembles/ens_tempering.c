/*
 * Parallel tempering on the device (lib/ens_temper.c): the batch's LATMC_STEP_TEMPER_STATE
 * requests (lib/backend.h, struct latmc_ens_temper) load the host's state here and fetch
 * it back, and the batch layout
 * routes the plan's tempering lists here (ens_batch_steps.c: calls with device_map,
 * lib/box.h). Each round (LATMC_STEP_EXCHANGE) is one launch of ens_exchange_kernels.cu on
 * the batch's stream and nothing read back, so the host waits once per list, not once per
 * round. The map, the round trips and the acceptance per pair stay here (struct
 * cuda_ens_temper, kept with member 0: cuda_sim.ens_temper) until the core fetches them.
 *
 * The state, its load and fetch and the round are the models' alike; what a model adds
 * is a row of temper_models below: how its batch is opened (the members' device table
 * ready), the parameter its ladder sets (beta; phi^4: mu2; the load declines another),
 * what a temperature puts into a member's table entry (Ising: the thresholds of its beta,
 * taken from the host's table at the load, each temperature's members checked alike (the
 * byte layout: its decision tables, from the members' own);
 * Heisenberg: the beta itself, the ladder's, checked equal; phi^4: the coefficients of its
 * mu2, as Ising's thresholds), and how a list runs.
 *   - Ising: whole sweeps with the fused kernel (ising_batch_packed_kernels.cu), whose
 *     launch before a round also leaves every member's sums; or the chains resident
 *     (ising/ising_batch_temper_kernels.cu). Two launches a round. Members too large for the fused
 *     kernel, and a single sweep before a round of its STREAM form: a launch a colour,
 *     the members' sums in one launch, then the round. Members of the byte layout: their
 *     fused kernel or colour launches, their sums, the round, whose move points a
 *     member's entry at the state's copy of its new temperature's decision tables.
 *   - Heisenberg: whole sweeps with the batch's kernel (heisenberg_batch_kernels.cu), the
 *     members' bonds and M_z by the batch's reduction in its round's form (the very sums a
 *     host round reads), then the round: three launches a round, each programmatic (its
 *     blocks start as the last launch's leave and wait for it; the sweeps after a round
 *     copy their spins in meanwhile). With LATMC_ENS_HEIS_SUMS=1
 *     (heisenberg/cuda_heisenberg_batch.c) the sweeps' launch before a round leaves the
 *     same sums from the spins it holds in shared memory, where its shared memory takes
 *     their partials: two launches. The
 *     list runs in parts of whole samples (run_in_parts). Members
 *     too large for one block run a launch a pass instead, at the betas of the batch's
 *     table (copied into the passes' arguments on the device), which then names where
 *     each configuration lies for the reduction.
 *   - phi^4 (members that take whole sweeps: site order, at most 32768 sites): whole
 *     sweeps with the batch's kernel (phi4_batch_kernels.cu), the members' sum phi^2 in one
 *     launch (the very double the host's round reads from the batch's measurement, sum
 *     phi^2 / N its value; LATMC_ENS_PHI4_ROUND_SUMS=measure|check: the measurement's two
 *     launches, or both compared), then the round with Delta's factor 1/2: three launches
 *     a round; in parts of whole samples where the sums take their own launch.
 * Both lists run in parts of whole samples, each on a stream of its own, so that one part's
 * sums and round overlap another part's sweeps (run_in_parts: the same chain bit for bit).
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

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_device.h"
#include "ens_temper_models.h"
#include "ens_tempering.h"
#include "model.h"

#define TEMPER_PARTS_MAX 8 /* LATMC_ENS_TEMPER_PARTS */

struct cuda_ens_temper {
    void *dev;                   /* the state (struct cuda_ens_temper_dev points into it) */
    size_t dev_cap;
    void *host;                  /* page-locked staging of the state (or malloc'ed) */
    size_t host_cap;
    bool host_pinned;
    struct cuda_ens_temper_dev d;
    int n, nT;
    int model;                   /* the members' (LATMC_MODEL_*) */
    bool live;                   /* the device holds a state of these members */
    int resident;                /* lists run resident (1) or per round (0); -1: not asked */
    uint64_t uploads;            /* the batch's uploads when its table last matched the map */
    /* the rounds' constants, from the load */
    int n_samples, n_replicas;
    uint64_t seed;
    uint32_t stream;
    double scale;                /* the ladder's factor in Delta */
    /* lists in parts (run_in_parts): the streams of parts 1 .. and the events that start
     * them after the batch's stream and join them to it; made at first use */
    cudaStream_t side[TEMPER_PARTS_MAX - 1];
    cudaEvent_t fork, join[TEMPER_PARTS_MAX - 1];
};

/* Byte offsets of the state in one block (dev and host alike): the part copied both ways
 * first (rt_start, stats, member_at, temp_of, rt_dir), then the ladder and the model's
 * part of each temperature (uploaded), then the model's sums of each member (device
 * only). */
struct layout {
    size_t rt_start, stats, member_at, temp_of, rt_dir, shared_end;
    size_t ladder, thr, upload_end, sums, total;
};

/* A batch opened for a tempering call: what the model's batch has ready (its table on the
 * device, on cs0's stream) and the generic part uses. */
struct temper_batch {
    struct cuda_sim *cs0;
    latmc_sim *const *members;       /* the batch's members (Ising's byte layout: their
                                        tables) */
    struct cuda_ens_temper **temper; /* cs0's tempering state (cuda_sim.ens_temper) */
    uint64_t uploads;                /* the batch's table uploads so far */
    union {
        struct cuda_ens_ready ising;
        struct cuda_ens_heisenberg_view heisenberg;
        struct cuda_ens_phi4_view phi4;
    } u;
};

/* A model's part of tempering on the device. */
struct temper_model {
    int model;
    int ladder_key;     /* the parameter whose ladder it moves (LATMC_PARAM_*) */
    size_t param_bytes; /* the state's part of a temperature (what a round writes) */
    size_t sums_bytes;  /* the state's sums of a member (0: the batch keeps them) */
    /* its batch of these members ready (LATMC_EUNSUPPORTED: not batched as tempering
     * needs), and given back */
    int (*open)(latmc_sim *const *members, int n, struct temper_batch *tb);
    void (*close)(struct temper_batch *tb);
    /* optional: whether its batch runs these calls (else LATMC_EUNSUPPORTED before anything
     * is launched: the state stays on the device) */
    bool (*calls_ok)(const struct latmc_step_call *calls, int n_calls);
    /* each temperature's part (param_bytes) from the table the batch uploaded, into
     * param_of_t: LATMC_EUNSUPPORTED where a member's entry is not its temperature's */
    int (*stage)(const struct temper_batch *tb, const struct latmc_ens_temper *job, int n,
                 void *param_of_t);
    /* every member's entry its map temperature's (after an upload from the host) */
    cudaError_t (*place)(const struct temper_batch *tb, const struct cuda_ens_temper_dev *d,
                         int n);
    /* a list of whole sweeps and rounds, waited for; the members' counts added */
    int (*run)(struct cuda_ens_temper *t, struct temper_batch *tb, const struct layout *l,
               const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
               uint64_t *attempted);
    /* a list failed, or the map was fetched: the batch's host copy of its table may no
     * longer say what the device's holds, so its next call uploads (NULL after a fetch:
     * the core's swaps keep the batch's copy in step, Ising's patch_batches) */
    void (*failed)(latmc_sim *const *members, int n);
    void (*fetched)(latmc_sim *const *members, int n);
};

static size_t up16(size_t x)
{
    return (x + 15) & ~(size_t)15;
}

static struct layout layout_of(const struct temper_model *tm, int n, int nT)
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

void cuda_ens_temper_free(struct cuda_ens_temper *t)
{
    if (!t)
        return;
    for (int p = 0; p < TEMPER_PARTS_MAX - 1; p++) {
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
    t->d.thr_of_t = (const struct cuda_ising_packed_thresholds *)(d + l->thr); /* Ising's */
    t->d.sums = (const struct latmc_ising_sums *)(d + l->sums);
    t->n = n;
    t->nT = nT;
    return LATMC_OK;
}

static int64_t slot_of(const struct latmc_ens_temper *job, int s, int t, int r)
{
    return ((int64_t)s * job->n_temperatures + t) * job->n_replicas + r;
}

/* The host's state into the staging block, each temperature's part from the table the
 * device holds (the model's stage: LATMC_EUNSUPPORTED where a member's is not its
 * temperature's; then the host's rounds run). */
static int stage_state(struct cuda_ens_temper *t, const struct layout *l,
                       const struct temper_model *tm, const struct temper_batch *tb,
                       const struct latmc_ens_temper *job)
{
    const int n = t->n, nT = t->nT;
    char *h = t->host;
    const int st = tm->stage(tb, job, n, h + l->thr);
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

/* LATMC_ENS_TEMPER_LOAD: the host's state onto the device, on the stream of the batch's
 * launches (the members' table made ready there too). */
static int load(const struct temper_model *tm, latmc_sim *const *members, int n,
                const struct latmc_ens_temper *job)
{
    if (job->ladder_key != tm->ladder_key)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device along "
                               "this ladder's parameter (%d)", job->ladder_key);
    struct temper_batch tb;
    int st = tm->open(members, n, &tb);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not the batch tempering runs on */
    const int nT = job->n_temperatures;
    const struct layout l = layout_of(tm, n, nT);
    struct cuda_ens_temper *t = NULL;
    if ((st = temper_alloc(tb.temper, n, nT, &l)) == LATMC_OK) {
        t = *tb.temper;
        t->live = false;
        t->model = tm->model;
        st = stage_state(t, &l, tm, &tb, job);
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(t->dev, t->host, l.upload_end, cudaMemcpyHostToDevice,
                                        tb.cs0->stream), "loading the tempering state");
    /* the staging block is reused by a fetch: the copy must be done when this returns */
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(tb.cs0->stream), "loading the tempering state");
    tm->close(&tb);
    if (st < 0)
        return st;
    t->n_samples = job->n_samples;
    t->n_replicas = job->n_replicas;
    t->seed = job->seed;
    t->stream = job->stream;
    t->scale = job->scale;
    t->uploads = tb.uploads;
    t->resident = -1;
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

/* The round of exchange call k: the state's constants, the round's number and clock, the
 * members' energy per site from their sums (member 0's J and h: the members are alike). */
static struct cuda_ens_round round_of(const struct cuda_ens_temper *t, const latmc_sim *first,
                                      const struct latmc_step_call *k)
{
    const struct cuda_ens_round r = {
        .n_samples = t->n_samples, .n_temperatures = t->nT, .n_replicas = t->n_replicas,
        .seed = t->seed, .stream = t->stream, .round = k->round, .sweeps = k->round_sweeps,
        .J = first->param[LATMC_PARAM_J], .h = first->param[LATMC_PARAM_H],
        .nsites = (double)first->nsites, .scale = t->scale,
    };
    return r;
}

/* An exchange call: the round's decisions on the members' sums (`measured`: the launch
 * before it left them; else they are measured here first). */
static cudaError_t exchange(cudaStream_t stream, const struct latmc_lattice *lat,
                            struct cuda_ens_temper *t, const struct cuda_ens_ready *ready,
                            const latmc_sim *first, int n,
                            const struct latmc_step_call *k, bool measured,
                            struct latmc_ising_sums *sums)
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
    const struct cuda_ens_round r = round_of(t, first, k);
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
    if (!t->resident || (env && strcmp(env, "launches") == 0))
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
    const struct cuda_ens_round r = round_of(t, first, &calls[0]);
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

/* ---- lists in parts of whole samples (Heisenberg, phi^4) ---- */

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
struct temper_part_ops {
    /* the whole sweeps of call k; *sums set where the last launch left the members' sums
     * for the round next (round_next) */
    cudaError_t (*sweeps)(const struct temper_batch *tb, cudaStream_t stream, int m0, int n,
                          const struct latmc_step_call *k, bool round_next, bool after_round,
                          bool *sums);
    /* the sums the round reads */
    cudaError_t (*sums)(const struct temper_batch *tb, cudaStream_t stream, int m0, int n);
    /* the round of r's samples */
    cudaError_t (*round)(const struct temper_batch *tb, cudaStream_t stream,
                         const struct cuda_ens_temper_dev *d, const struct cuda_ens_round *r);
};

/* The parts a list of n members runs in where the model's batch allows them (splits): up
 * to four, as many as leave a part at least one member per multiprocessor of the device
 * (a part's launches then still fill it: smaller parts only multiply the launches, measured
 * 2-2.5x slower at 128 members of 8^3 on an H200, 0.85x at 128 of 16^3, 1.03x at 512 of
 * 16^3); LATMC_ENS_TEMPER_PARTS=1|2|4|8 (doc/environment.md) asks for a count whatever the
 * size. Never more than the samples, else two, or one with one sample. */
static int temper_parts(const struct cuda_ens_temper *t, bool splits, int n)
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

/* The list's calls in `parts` parts, joined back into `stream` (nothing waited for there;
 * a part's stream that could not be joined is waited for here); *sweeps gains the list's
 * sweeps. */
static int run_in_parts(struct cuda_ens_temper *t, const struct temper_batch *tb,
                        const struct temper_part_ops *ops, int parts, cudaStream_t stream,
                        const latmc_sim *first, int n, const struct latmc_step_call *calls,
                        int n_calls, uint64_t *sweeps)
{
    const int per_sample = n / t->n_samples;
    /* part p: samples [s0[p], s0[p + 1]), their members [s0[p], s0[p + 1]) x per_sample */
    int s0[TEMPER_PARTS_MAX + 1];
    for (int p = 0; p <= parts; p++)
        s0[p] = (int)((int64_t)t->n_samples * p / parts);
    cudaStream_t on[TEMPER_PARTS_MAX] = { stream };
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
    bool sums[TEMPER_PARTS_MAX] = { false }, after_round[TEMPER_PARTS_MAX] = { false };
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
                struct cuda_ens_round r = round_of(t, first, k);
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

/* ---- Ising members: the packed kernels' table (ising/cuda_ising_batch.c) ---- */

static int ising_open(latmc_sim *const *members, int n, struct temper_batch *tb)
{
    memset(tb, 0, sizeof *tb);
    const int st = cuda_ens_packed_ready(members, n, &tb->u.ising);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not the packed kernels' members */
    tb->cs0 = cuda_sim_of(members[0]); /* the batch's lead */
    tb->members = members;
    tb->temper = &tb->cs0->ens_temper;
    tb->uploads = tb->u.ising.uploads;
    return LATMC_OK;
}

static void ising_close(struct temper_batch *tb)
{
    (void)tb; /* the Ising batch stays with cs0 */
}

/* The thresholds of each temperature from the table the device holds (the byte layout: the
 * decision tables of the members' parameters, lib/ising.h): every member at one
 * temperature must have the same. */
static int ising_stage(const struct temper_batch *tb, const struct latmc_ens_temper *job, int n,
                       void *param_of_t)
{
    if (!tb->u.ising.packed) {
        struct latmc_ising_tables *tab = param_of_t;
        for (int k = 0; k < job->n_temperatures; k++)
            tab[k] = *(const struct latmc_ising_tables *)tb->members[job->member_at[
                slot_of(job, 0, k, 0)]]->model_data;
        for (int m = 0; m < n; m++)
            if (memcmp(tb->members[m]->model_data, &tab[job->temp_of[m]], sizeof tab[0]) != 0)
                return LATMC_EUNSUPPORTED;
        return LATMC_OK;
    }
    const struct cuda_ens_packed_member *host = tb->u.ising.host;
    struct cuda_ising_packed_thresholds *thr = param_of_t;
    for (int k = 0; k < job->n_temperatures; k++)
        thr[k] = host[job->member_at[slot_of(job, 0, k, 0)]].thr;
    for (int m = 0; m < n; m++)
        if (memcmp(&host[m].thr, &thr[job->temp_of[m]], sizeof thr[0]) != 0)
            return LATMC_EUNSUPPORTED;
    return LATMC_OK;
}

static cudaError_t ising_place(const struct temper_batch *tb, const struct cuda_ens_temper_dev *d,
                               int n)
{
    if (!tb->u.ising.packed)
        return cuda_ens_bytes_temper_tables(tb->cs0->stream, d, tb->u.ising.bytes, n);
    return cuda_ens_temper_thresholds(tb->cs0->stream, d, tb->u.ising.dev, n);
}

/* Whether whole sweeps call k runs on the fused kernel: where it takes the members, but
 * for a single sweep of its STREAM form (then a launch a colour and the round's
 * measurement launch cost less than its reload of the members). */
static bool ising_fused_call(const struct cuda_ens_ready *ready, const struct latmc_step_call *k)
{
    return k->part == LATMC_STEP_SWEEPS && ready->fused && !(ready->stream && k->n_sweeps < 2);
}

static int ising_run(struct cuda_ens_temper *t, struct temper_batch *tb, const struct layout *l,
                     const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                     uint64_t *attempted)
{
    const struct cuda_ens_ready ready = tb->u.ising;
    const int n = calls[0].n_members;
    const struct cuda_sim *cs0 = tb->cs0; /* the batch's lead: its stream, lattice, device */
    cudaStream_t stream = cs0->stream;
    int st = LATMC_OK;
    const latmc_sim *first = calls[0].members[0];
    struct latmc_ising_sums *sums = (struct latmc_ising_sums *)((char *)t->dev + l->sums);
    const struct cuda_ens_chain_geom g =
        cuda_ens_chain_geom_of(&cs0->lattice, ready.coupled, first->desc.algorithm);
    if (t->resident < 0)
        t->resident = resident_fits(t, cs0->device, &g);
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
            st = cuda_check(cuda_ens_bytes_sweeps(stream, &cs0->lattice,
                                                  cs0->device, ready.bytes, n,
                                                  ready.coupled, first->desc.algorithm, k->sweep,
                                                  k->n_sweeps, ready.dev_changed,
                                                  round_next ? sums : NULL, &measured),
                            "launching a batched sweep");
            continue;
        }
        if (k->part == LATMC_STEP_SWEEPS && !ising_fused_call(&ready, k)) {
            /* members the fused kernel does not take (or a single sweep of its STREAM
             * form): a launch a colour, then the round measures them (exchange) */
            st = cuda_check(cuda_ens_colour_sweeps(stream, &cs0->lattice, ready.dev, true,
                                                   n, ready.coupled, first->desc.algorithm,
                                                   k->sweep, k->n_sweeps, ready.dev_changed),
                            "launching a batched sweep");
            measured = false;
            continue;
        }
        if (k->part == LATMC_STEP_SWEEPS) {
            /* a round next: the launch leaves the members' sums after its last sweep */
            measured = c + 1 < n_calls && calls[c + 1].part != LATMC_STEP_SWEEPS;
            st = cuda_check(cuda_ens_packed_sweeps(stream, &cs0->lattice, ready.dev, n,
                                                   ready.coupled, first->desc.algorithm,
                                                   k->sweep, k->n_sweeps, ready.dev_changed,
                                                   !counting, measured ? sums : NULL),
                            "launching a batched sweep");
            counting = true;
            continue;
        }
        st = cuda_check(exchange(stream, &cs0->lattice, t, &ready, first, n, k, measured, sums),
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

/* ---- Heisenberg members: the batch of heisenberg/cuda_heisenberg_batch.c ---- */

static int heisenberg_open(latmc_sim *const *members, int n, struct temper_batch *tb)
{
    memset(tb, 0, sizeof *tb);
    const int st = cuda_ens_heisenberg_open(members, n, &tb->u.heisenberg);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not one batch */
    tb->cs0 = cuda_sim_of(members[0]); /* the batch's lead */
    tb->temper = &tb->cs0->ens_temper;
    tb->uploads = tb->u.heisenberg.uploads;
    return LATMC_OK;
}

static void heisenberg_close(struct temper_batch *tb)
{
    cuda_ens_heisenberg_close(&tb->u.heisenberg);
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
static int heisenberg_stage(const struct temper_batch *tb, const struct latmc_ens_temper *job,
                            int n, void *param_of_t)
{
    (void)param_of_t;
    const struct cuda_ens_heisenberg_member *host = tb->u.heisenberg.host;
    for (int m = 0; m < n; m++)
        if (memcmp(&host[m].beta, &job->ladder[job->temp_of[m]], sizeof host[m].beta) != 0)
            return LATMC_EUNSUPPORTED;
    return LATMC_OK;
}

static cudaError_t heisenberg_place(const struct temper_batch *tb,
                                    const struct cuda_ens_temper_dev *d, int n)
{
    return cuda_ens_heisenberg_temper_betas(tb->cs0->stream, d, tb->u.heisenberg.dev, n);
}

/* The parts of a Heisenberg list: the batch's members take a block each, and no
 * LATMC_ENS_HEIS_SUMS=check (which compares every member's sums in one launch). */
static cudaError_t heisenberg_sweeps_of(const struct temper_batch *tb, cudaStream_t stream,
                                        int m0, int n, const struct latmc_step_call *k,
                                        bool round_next, bool after_round, bool *sums)
{
    const struct cuda_ens_heisenberg_view *v = &tb->u.heisenberg;
    /* a round next: the last launch leaves the members' sums (where it can) */
    *sums = v->fused_sums && k->n_sweeps > 0 && round_next;
    return cuda_ens_heisenberg_launch_sweeps_of(v, stream, m0, n, k->sweep, k->n_sweeps, *sums,
                                                after_round);
}

static cudaError_t heisenberg_sums_of(const struct temper_batch *tb, cudaStream_t stream, int m0,
                                      int n)
{
    return cuda_ens_heisenberg_launch_measure_of(&tb->u.heisenberg, stream, m0, n);
}

static cudaError_t heisenberg_round_of(const struct temper_batch *tb, cudaStream_t stream,
                                       const struct cuda_ens_temper_dev *d,
                                       const struct cuda_ens_round *r)
{
    return cuda_ens_heisenberg_exchange_round(stream, d, r, tb->u.heisenberg.dev,
                                              tb->u.heisenberg.sums);
}

static const struct temper_part_ops heisenberg_part_ops = {
    heisenberg_sweeps_of, heisenberg_sums_of, heisenberg_round_of,
};

/* Whole sweeps, and before each round the members' sums (left by the sweeps' last launch,
 * or the batch's reduction where it cannot or no sweeps came before: either way exactly
 * what the host's round reads, the batch's measure_all), then the round; in parts
 * of whole samples where the batch allows (run_in_parts). */
static int heisenberg_run(struct cuda_ens_temper *t, struct temper_batch *tb,
                          const struct layout *l, const struct latmc_step_call *calls, int n_calls,
                          uint64_t *accepted, uint64_t *attempted)
{
    (void)l;
    const struct cuda_ens_heisenberg_view *v = &tb->u.heisenberg;
    const int n = calls[0].n_members;
    const latmc_sim *first = calls[0].members[0];
    cudaStream_t stream = tb->cs0->stream; /* the batch's lead's */
    const int parts = temper_parts(t, cuda_ens_heisenberg_splits(v), n);
    uint64_t sweeps = 0;
    int st = LATMC_OK;
    bool measured = false, after_round = false;
    if (parts > 1)
        st = run_in_parts(t, tb, &heisenberg_part_ops, parts, stream, first, n, calls, n_calls,
                          &sweeps);
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
            const struct cuda_ens_round r = round_of(t, first, k);
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

/* ---- phi^4 members: the batch of phi4/cuda_phi4_batch.c, a mu2 ladder ---- */

static int phi4_open(latmc_sim *const *members, int n, struct temper_batch *tb)
{
    memset(tb, 0, sizeof *tb);
    const int st = cuda_ens_phi4_open(members, n, &tb->u.phi4);
    if (st < 0)
        return st; /* LATMC_EUNSUPPORTED: not one batch of whole sweeps */
    tb->cs0 = cuda_sim_of(members[0]); /* the batch's lead */
    tb->temper = &tb->cs0->ens_temper;
    tb->uploads = tb->u.phi4.uploads;
    return LATMC_OK;
}

static void phi4_close(struct temper_batch *tb)
{
    cuda_ens_phi4_close(&tb->u.phi4);
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
static int phi4_stage(const struct temper_batch *tb, const struct latmc_ens_temper *job, int n,
                      void *param_of_t)
{
    const struct cuda_ens_phi4_member *host = tb->u.phi4.host;
    struct cuda_ens_phi4_coefs *coefs = param_of_t;
    memset(coefs, 0, (size_t)job->n_temperatures * sizeof *coefs);
    for (int k = 0; k < job->n_temperatures; k++) {
        const struct cuda_ens_phi4_member *e = &host[job->member_at[slot_of(job, 0, k, 0)]];
        coefs[k].f = e->f;
        coefs[k].d = e->d;
    }
    for (int m = 0; m < n; m++)
        if (!coefs_equal(&coefs[job->temp_of[m]], &host[m]))
            return LATMC_EUNSUPPORTED;
    return LATMC_OK;
}

/* The state's part of each temperature (thr_of_t's bytes) holds phi^4's coefficients. */
static const struct cuda_ens_phi4_coefs *phi4_coefs_of_t(const struct cuda_ens_temper_dev *d)
{
    return (const struct cuda_ens_phi4_coefs *)(const void *)d->thr_of_t;
}

static cudaError_t phi4_place(const struct temper_batch *tb, const struct cuda_ens_temper_dev *d,
                              int n)
{
    return cuda_ens_phi4_temper_coefs(tb->cs0->stream, d, tb->u.phi4.dev, phi4_coefs_of_t(d), n);
}

/* The parts of a phi^4 list: the round's sums phi^2 in a launch of their own. */
static cudaError_t phi4_sweeps_of(const struct temper_batch *tb, cudaStream_t stream, int m0,
                                  int n, const struct latmc_step_call *k, bool round_next,
                                  bool after_round, bool *sums)
{
    (void)round_next;
    (void)after_round;
    *sums = false;
    return cuda_ens_phi4_launch_sweeps_of(&tb->u.phi4, stream, m0, n, k->sweep, k->n_sweeps);
}

static cudaError_t phi4_sums_of(const struct temper_batch *tb, cudaStream_t stream, int m0,
                                int n)
{
    return cuda_ens_phi4_launch_round_sums_of(&tb->u.phi4, stream, m0, n);
}

static cudaError_t phi4_round_of(const struct temper_batch *tb, cudaStream_t stream,
                                 const struct cuda_ens_temper_dev *d,
                                 const struct cuda_ens_round *r)
{
    return cuda_ens_phi4_exchange_round(stream, d, r, tb->u.phi4.dev, tb->u.phi4.sums,
                                        phi4_coefs_of_t(d));
}

static const struct temper_part_ops phi4_part_ops = {
    phi4_sweeps_of, phi4_sums_of, phi4_round_of,
};

/* Whole sweeps (their accepted hits counted on the device), and before each round the
 * members' sum phi^2 (its own launch, exactly the double the host's round reads through
 * the batch's measure_all; LATMC_ENS_PHI4_ROUND_SUMS), then the round. */
static int phi4_run(struct cuda_ens_temper *t, struct temper_batch *tb, const struct layout *l,
                    const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                    uint64_t *attempted)
{
    (void)l;
    const struct cuda_ens_phi4_view *v = &tb->u.phi4;
    const int n = calls[0].n_members;
    const latmc_sim *first = calls[0].members[0];
    cudaStream_t stream = tb->cs0->stream; /* the batch's lead's */
    const size_t count_bytes = (size_t)n * sizeof *v->changed;
    const int parts = temper_parts(t, cuda_ens_phi4_splits(v), n);
    uint64_t sweeps = 0;
    int st = cuda_check(cudaMemsetAsync(v->dev_changed, 0, count_bytes, stream),
                        "clearing the members' counters");
    if (parts > 1 && st == LATMC_OK)
        st = run_in_parts(t, tb, &phi4_part_ops, parts, stream, first, n, calls, n_calls,
                          &sweeps);
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
            const struct cuda_ens_round r = round_of(t, first, k);
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

/* ---- the models ---- */

static const struct temper_model temper_models[] = {
    /* a temperature's part: the packed thresholds, or the byte layout's decision tables */
    { LATMC_MODEL_ISING, LATMC_PARAM_BETA,
      sizeof(struct latmc_ising_tables) > sizeof(struct cuda_ising_packed_thresholds)
          ? sizeof(struct latmc_ising_tables) : sizeof(struct cuda_ising_packed_thresholds),
      sizeof(struct latmc_ising_sums), ising_open, ising_close, NULL, ising_stage, ising_place,
      ising_run, cuda_ens_packed_table_moved, cuda_ens_bytes_table_fetched },
    { LATMC_MODEL_HEISENBERG, LATMC_PARAM_BETA, 0, 0, heisenberg_open, heisenberg_close, NULL,
      heisenberg_stage, heisenberg_place, heisenberg_run, heisenberg_moved, heisenberg_moved },
    { LATMC_MODEL_PHI4, LATMC_PARAM_MU2, sizeof(struct cuda_ens_phi4_coefs), 0, phi4_open,
      phi4_close, phi4_calls_ok, phi4_stage, phi4_place, phi4_run, cuda_ens_phi4_table_moved,
      cuda_ens_phi4_table_moved },
};

static const struct temper_model *temper_model(int model)
{
    for (size_t k = 0; k < sizeof temper_models / sizeof temper_models[0]; k++)
        if (temper_models[k].model == model)
            return &temper_models[k];
    return NULL;
}

int cuda_ens_temper_run_steps(const struct latmc_step_call *calls, int n_calls,
                              uint64_t *accepted, uint64_t *attempted)
{
    latmc_sim *const *members = calls[0].members;
    const int n = calls[0].n_members;
    const struct temper_model *tm = temper_model(members[0]->desc.model);
    if (!temper_calls_ok(calls, n_calls) || !tm ||
        (tm->calls_ok && !tm->calls_ok(calls, n_calls)))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering list of these steps");
    struct temper_batch tb;
    int st = tm->open(members, n, &tb);
    if (st == LATMC_EUNSUPPORTED)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device for "
                               "these members (not batched as tempering needs)");
    if (st < 0)
        return st;
    struct cuda_ens_temper *t = *tb.temper;
    if (!t || !t->live || t->n != n || t->model != tm->model) {
        tm->close(&tb);
        return cuda_core->fail(LATMC_ESTATE, "CUDA: the ensemble's tempering state is not on "
                               "the device");
    }
    const struct layout l = layout_of(tm, n, t->nT);
    /* the table was uploaded from the members' own parameters, which lag behind the map */
    if (tb.uploads != t->uploads) {
        st = cuda_check(tm->place(&tb, &t->d, n), "setting the members' temperatures");
        if (st < 0) /* nothing may outlive the call */
            (void)cudaStreamSynchronize(tb.cs0->stream);
    }
    t->uploads = tb.uploads;
    if (st == LATMC_OK)
        st = tm->run(t, &tb, &l, calls, n_calls, accepted, attempted);
    tm->close(&tb);
    if (st < 0) {
        t->live = false; /* the state may be half a round old: the core's call fails */
        tm->failed(members, n); /* the rounds that ran may have moved the table's entries */
    }
    return st;
}

static int fetch(latmc_sim *const *members, int n, struct latmc_ens_temper *job)
{
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    struct cuda_ens_temper *t = cs0->ens_temper; /* no table work to read it */
    if (!t || !t->live || t->n != n || t->nT != job->n_temperatures ||
        t->model != members[0]->desc.model)
        return cuda_core->fail(LATMC_ESTATE, "CUDA: the ensemble's tempering state is not on "
                               "the device");
    const struct temper_model *tm = temper_model(t->model);
    const struct layout l = layout_of(tm, n, t->nT);
    int st = cuda_check(cudaSetDevice(cs0->device), "cudaSetDevice");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(t->host, t->dev, l.shared_end, cudaMemcpyDeviceToHost,
                                        cs0->stream), "reading the tempering state");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(cs0->stream), "reading the tempering state");
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

int cuda_ens_temper(latmc_sim *const *members, int n, struct latmc_ens_temper *job)
{
    const struct temper_model *tm = n < 1 ? NULL : temper_model(members[0]->desc.model);
    if (!tm || job->n_temperatures < 2)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no tempering on the device for these "
                               "members");
    if (job->what == LATMC_ENS_TEMPER_FETCH)
        return fetch(members, n, job);
    return load(tm, members, n, job);
}
