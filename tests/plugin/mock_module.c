/*
 * A mock backend module for the plugin suite, built six ways (MOCK_VARIANT):
 *   1 valid: a "CUDA" module with one fake device and a host-memory Ising backend whose
 *     sweeps change nothing (the loader and dispatch are under test, not physics);
 *   2 ABI mismatch: reports module ABI version 999;
 *   3 no symbol: exports no entry point;
 *   4 unavailable: init reports LATMC_EBACKEND through the core services;
 *   5 bad init: init returns a code outside liblatmc's list, with no message;
 *   6 batch: the valid one whose sims also run as a batch of ensemble members
 *     (LATMC_STEP_CAP_BATCH), each sweep counting a hash of its number and the sim's seed
 *     as accepted updates (alone or as a member, so both ways count alike), a list of
 *     calls counted only where it succeeds (lib/box.h); MOCK_FAIL_SWEEP=S in the
 *     environment fails the batch's lists that hold sweep S (LATMC_EDEVICE, nothing
 *     counted); a batch of Swendsen-Wang or Wolff members fails (LATMC_EBACKEND);
 *     and the member lanes (ops.ens_lanes, decisions = 2) whose sweeps change no spin
 *     and count lane m's mock_accepted of each sweep, which check the core's tables
 *     (every member's own, and the same tables_gen only with the same tables), and run
 *     their exchange rounds "on the device" (the state loaded and fetched, each round by
 *     lib/ens_exchange_rule.h's rule on the lanes' sums, as a device's module does);
 *     MOCK_ONE_BY_ONE=1 when a sim is made (as CUDA's LATMC_ENS_<MODEL>_BATCH=0): no batch
 *     capability for it, a batch that holds it declined (LATMC_EUNSUPPORTED, nothing
 *     done), one led by it failed (LATMC_EBACKEND: the core asked despite its capability);
 *     each batch list that runs logged at debug level ("mock: a batch list");
 *   7 embed: Heisenberg sims only (uniform couplings), whose sweeps change nothing and
 *     whose embedded cluster step runs "on the device" (ops.embed_step, lib/backend.h)
 *     without a field (in one the ask is declined: the host copy's step):
 *     the step of sweep t names clusters of m = 1 + t mod 3 consecutive sites, a_i = 1,
 *     which the core counts when an observable first asks (LATMC_EMBED_NAMES); Wolff's
 *     step of sweep t leaves bonds (job->bonds) that join no site (m = 1), the rows along
 *     x (m = 2) or the whole lattice (m = 3), every bit above the directions set, over
 *     which the core regrows the cluster;
 *     MOCK_FAIL_GET_SPINS=1 in the environment fails get_spins (so a step on the core's
 *     host copy fails).
 * Like a real module it never links liblatmc: only the core services are used.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ens_exchange_rule.h"
#include "ising.h"
#include "module_abi.h"

#define MOCK_EXPORT __attribute__((visibility("default")))

static const struct latmc_core_services *core;

static int mock_init(const struct latmc_core_services *services)
{
    core = services;
#if MOCK_VARIANT == 4
    return core->fail(LATMC_EBACKEND, "mock: no device present");
#elif MOCK_VARIANT == 5
    return 12345;
#else
    return LATMC_OK;
#endif
}

static int mock_device_count(int *count)
{
    *count = 1;
    return LATMC_OK;
}

static int mock_device_info(int index, struct latmc_module_device *info)
{
    (void)index;
    strcpy(info->name, "mock GPU");
    info->memory_bytes = 1u << 20;
    info->compute_major = 9;
    info->compute_minor = 0;
    info->multiprocessors = 1;
    return LATMC_OK;
}

#if MOCK_VARIANT == 7
/* A Heisenberg sim's state: its spins (the API's layout) and the last step's sweep. */
struct mock_heisenberg {
    float *spins;
    uint64_t stepped; /* the last embedded step's sweep + 1 (0: none yet) */
};

static size_t mock_heisenberg_floats(const latmc_sim *sim)
{
    return (size_t)sim->nsites * 3u * (size_t)sim->desc.replicas;
}
#endif

static int mock_create(latmc_sim *sim)
{
#if MOCK_VARIANT == 7
    if (sim->desc.model != LATMC_MODEL_HEISENBERG ||
        sim->desc.couplings != LATMC_COUPLINGS_UNIFORM)
        return core->fail(LATMC_EUNSUPPORTED, "mock: only Heisenberg, uniform couplings");
    struct mock_heisenberg *h = calloc(1, sizeof *h);
    if (h)
        h->spins = calloc(mock_heisenberg_floats(sim), sizeof *h->spins);
    if (!h || !h->spins) {
        free(h);
        return core->fail(LATMC_ENOMEM, "mock: out of memory");
    }
    sim->backend = h;
    sim->n_threads = 1;
    return LATMC_OK;
#endif
    if (sim->desc.model != LATMC_MODEL_ISING)
        return core->fail(LATMC_EUNSUPPORTED, "mock: only the Ising model");
    /* variant 6: a byte after the spins, MOCK_ONE_BY_ONE=1 when the sim was made */
    unsigned char *bytes = malloc((size_t)sim->nsites + 1);
    if (!bytes)
        return core->fail(LATMC_ENOMEM, "mock: out of memory");
    const char *one = getenv("MOCK_ONE_BY_ONE");
    bytes[sim->nsites] = one && strcmp(one, "1") == 0;
    sim->backend = bytes;
    sim->n_threads = 1;
    return LATMC_OK;
}

#if MOCK_VARIANT == 6
static void mock_lanes_forget(const latmc_sim *sim);
#endif

static void mock_destroy(latmc_sim *sim)
{
#if MOCK_VARIANT == 6
    mock_lanes_forget(sim);
#endif
#if MOCK_VARIANT == 7
    if (sim->backend)
        free(((struct mock_heisenberg *)sim->backend)->spins);
#endif
    free(sim->backend);
    sim->backend = NULL;
}

static int mock_init_spins(latmc_sim *sim, int how)
{
#if MOCK_VARIANT == 7
    struct mock_heisenberg *h = sim->backend;
    (void)how;
    for (size_t k = 0; k < mock_heisenberg_floats(sim); k++)
        h->spins[k] = k % 3 == 2 ? 1.0f : 0.0f; /* every spin along z */
    return LATMC_OK;
#endif
    memset(sim->backend, how == LATMC_INIT_COLD ? 1 : -1, (size_t)sim->nsites);
    return LATMC_OK;
}

#if MOCK_VARIANT == 6
/* A sweep's accepted updates of a sim (0 .. 7): a hash of its sweep number and seed, so
 * that counts a list lost, counted twice or numbered from the wrong sweep show in the
 * totals (tests/plugin/test_plugin.c computes the same). */
static uint64_t mock_accepted(const latmc_sim *sim, uint64_t sweep)
{
    return ((sweep + 1) * UINT64_C(0x9E3779B97F4A7C15) + sim->desc.seed) >> 61;
}

/* Made with MOCK_ONE_BY_ONE=1 (mock_create). */
static bool mock_one_by_one(const latmc_sim *sim)
{
    return ((const unsigned char *)sim->backend)[sim->nsites] != 0;
}

/* No batch of cluster sims (their steps run as a sim's, lib/cluster_sweep.c): the core
 * batches a cluster sim's sweeps only where the backend says so (lib/ens_exec.c). */
static unsigned mock_step_caps(latmc_sim *sim)
{
    const int algo = sim->desc.algorithm;
    return mock_one_by_one(sim) || algo == LATMC_ALGO_SWENDSEN_WANG || algo == LATMC_ALGO_WOLFF
               ? 0u
               : LATMC_STEP_CAP_BATCH;
}

/* A batch's list (calls[0].members, lib/box.h): every member's counts added once the whole
 * list succeeded; the lists with sweep MOCK_FAIL_SWEEP fail with nothing counted. */
static int mock_batch_steps(const struct latmc_step_call *calls, int n_calls,
                            uint64_t *accepted, uint64_t *attempted)
{
    /* members that label clusters as steps never come here (mock_step_caps offers them no
     * batch) */
    if (calls[0].members[0]->desc.algorithm == LATMC_ALGO_SWENDSEN_WANG ||
        calls[0].members[0]->desc.algorithm == LATMC_ALGO_WOLFF)
        return core->fail(LATMC_EBACKEND, "mock: cluster members in a batch");
    /* the core asks member 0's capabilities first (lib/plan.c, batch_queue) */
    if (mock_one_by_one(calls[0].members[0]))
        return core->fail(LATMC_EBACKEND, "mock: a batch of a member 0 that offers none");
    for (int m = 1; m < calls[0].n_members; m++)
        if (mock_one_by_one(calls[0].members[m]))
            return core->fail(LATMC_EUNSUPPORTED, "mock: member %d runs one by one", m);
    core->log(calls[0].members[0]->ctx, LATMC_LOG_DEBUG, "mock: a batch list of %d members",
              calls[0].n_members);
    const char *fail = getenv("MOCK_FAIL_SWEEP");
    for (int c = 0; c < n_calls && fail && *fail; c++)
        if (calls[c].sweep == strtoull(fail, NULL, 10))
            return core->fail(LATMC_EDEVICE, "mock: sweep %s fails", fail);
    for (int c = 0; c < n_calls; c++)
        if (calls[c].step.index == 0)
            for (int m = 0; m < calls[c].n_members; m++) {
                const latmc_sim *sim = calls[c].members[m];
                accepted[m] += mock_accepted(sim, calls[c].sweep);
                attempted[m] += (uint64_t)sim->nsites;
            }
    return LATMC_OK;
}
#endif

#if MOCK_VARIANT == 6
/* ops.ens_lanes: the words kept here (one ensemble at a time); SWEEPS fails
 * (LATMC_EBACKEND) where the lanes' tables are not the members' model data, each lane
 * one member's (its own, or another's after the host rounds' swaps), or where a
 * tables_gen seen before comes with other tables than then, else counts mock_accepted of
 * lane m's member for each sweep and changes nothing (MOCK_FAIL_SWEEP=S: a call holding
 * sweep S fails, LATMC_EDEVICE); SUMS gives every lane's spin sum and
 * the bonds of a uniform state (as mock_measure). */
static struct {
    const latmc_sim *owner; /* member 0 of the ensemble loaded (as CUDA keeps it per sim) */
    uint32_t *spin;
    struct latmc_ising_tables *tables; /* the tables last seen with gen */
    uint64_t gen;
    size_t words, lanes;
} lanes;

/* Member 0's state goes with it (a later sim at its address is another's). */
static void mock_lanes_forget(const latmc_sim *sim)
{
    if (sim == lanes.owner)
        lanes.owner = NULL;
}

/* The member lanes' exchange rounds "on the device": the state a load gives (its map, round
 * trips, acceptance per pair, each temperature's tables), the lanes' tables as the rounds
 * move them (`dev`: the host's copy, lanes.tables, lags them until the core fetches the
 * map, as a device's), and a call's failure drops it (live). */
static struct {
    bool live;
    int n, nT, nS, nR;
    uint64_t seed;
    uint32_t stream;
    double scale;
    int *at, *temp;
    signed char *dir;
    uint64_t *start, *acc, rt_count, rt_sum;
    double *ladder;
    struct latmc_ising_tables *per_t, *dev;
} mt;

static int mock_temper_load(int n, int nT, const struct latmc_ens_lanes_job *job)
{
    const struct latmc_ens_temper *t = job->temper;
    free(mt.at);
    free(mt.dir);
    free(mt.start);
    free(mt.ladder);
    free(mt.per_t);
    free(mt.dev);
    mt.live = false;
    mt.at = malloc(2 * (size_t)n * sizeof *mt.at);
    mt.dir = malloc((size_t)n);
    mt.start = malloc(((size_t)n + (size_t)nT) * sizeof *mt.start);
    mt.ladder = malloc((size_t)nT * sizeof *mt.ladder);
    mt.per_t = malloc((size_t)nT * sizeof *mt.per_t);
    mt.dev = malloc((size_t)job->groups * 32 * sizeof *mt.dev);
    if (!mt.at || !mt.dir || !mt.start || !mt.ladder || !mt.per_t || !mt.dev)
        return core->fail(LATMC_ENOMEM, "mock: out of memory");
    mt.temp = mt.at + n;
    mt.acc = mt.start + n;
    mt.n = n;
    mt.nT = nT;
    mt.nS = t->n_samples;
    mt.nR = t->n_replicas;
    mt.seed = t->seed;
    mt.stream = t->stream;
    mt.scale = t->scale;
    memcpy(mt.at, t->member_at, (size_t)n * sizeof *mt.at);
    memcpy(mt.temp, t->temp_of, (size_t)n * sizeof *mt.temp);
    memcpy(mt.dir, t->rt_dir, (size_t)n);
    memcpy(mt.start, t->rt_start, (size_t)n * sizeof *mt.start);
    memcpy(mt.acc, t->pair_accepted, (size_t)(nT - 1) * sizeof *mt.acc);
    mt.rt_count = *t->rt_count;
    mt.rt_sum = *t->rt_sum_sweeps;
    memcpy(mt.ladder, t->ladder, (size_t)nT * sizeof *mt.ladder);
    memcpy(mt.per_t, job->temp_tables, (size_t)nT * sizeof *mt.per_t);
    memcpy(mt.dev, lanes.tables, (size_t)job->groups * 32 * sizeof *mt.dev);
    mt.live = true;
    return LATMC_OK;
}

/* The state back; every lane's tables its member's temperature's, or the rounds moved them
 * wrong (LATMC_EBACKEND). */
static int mock_temper_fetch(int n, const struct latmc_ens_lanes_job *job)
{
    const struct latmc_ens_temper *t = job->temper;
    if (!mt.live || mt.n != n || mt.nT != t->n_temperatures)
        return core->fail(LATMC_ESTATE, "mock: no tempering state");
    for (int m = 0; m < n; m++)
        if (memcmp(&mt.dev[m], &mt.per_t[mt.temp[m]], sizeof mt.dev[m]))
            return core->fail(LATMC_EBACKEND, "mock: lane %d's tables are not its "
                              "temperature's", m);
    memcpy(t->member_at, mt.at, (size_t)n * sizeof *mt.at);
    memcpy(t->temp_of, mt.temp, (size_t)n * sizeof *mt.temp);
    memcpy(t->rt_dir, mt.dir, (size_t)n);
    memcpy(t->rt_start, mt.start, (size_t)n * sizeof *mt.start);
    memcpy(t->pair_accepted, mt.acc, (size_t)(mt.nT - 1) * sizeof *mt.acc);
    *t->rt_count = mt.rt_count;
    *t->rt_sum_sweeps = mt.rt_sum;
    return LATMC_OK;
}

/* Member m's energy per site from its lane's sums (the words' spins, a uniform state's
 * bonds: what SUMS gives) with member 0's J and h, as the host's round reads them. */
static double mock_lane_energy(latmc_sim *const *members, const struct latmc_ens_lanes_job *job,
                               int64_t N, int m)
{
    int64_t spins = 0;
    const uint32_t *w = lanes.spin + (size_t)(m / 32) * (size_t)N;
    for (int64_t i = 0; i < N; i++)
        spins += w[i] >> (m % 32) & 1u ? -1 : 1;
    return latmc_ising_energy_per_site(members[0]->param[LATMC_PARAM_J],
                                       members[0]->param[LATMC_PARAM_H],
                                       (int64_t)job->ndim * N, spins, (double)N);
}

/* Round `round` at the ensemble's sweep count `sweeps` (lib/ens_exchange.c's, by the rule's
 * functions, chain by chain). */
static void mock_round(latmc_sim *const *members, const struct latmc_ens_lanes_job *job,
                       int64_t N, uint64_t round, uint64_t sweeps)
{
    const int nT = mt.nT, nR = mt.nR;
    for (int s = 0; s < mt.nS; s++)
        for (int r = 0; r < nR; r++) {
            const uint64_t chain = (uint64_t)s * (uint64_t)nR + (uint64_t)r;
            for (int t = (int)(round % 2); t + 1 < nT; t += 2) {
                const int ia = (s * nT + t) * nR + r, ib = ia + nR;
                const int a = mt.at[ia], b = mt.at[ib];
                const double delta = latmc_ens_exchange_delta(
                    mt.scale, mt.ladder[t], mt.ladder[t + 1],
                    mock_lane_energy(members, job, N, a), mock_lane_energy(members, job, N, b),
                    (double)N);
                const uint32_t u = latmc_ens_exchange_draw(mt.seed, mt.stream, round,
                                                           chain * (uint64_t)(nT - 1) +
                                                               (uint64_t)t);
                if (!latmc_ens_exchange_accept(delta, u))
                    continue;
                mt.acc[t]++;
                mt.at[ia] = b;
                mt.at[ib] = a;
                mt.temp[a] = t + 1;
                mt.temp[b] = t;
                mt.dev[a] = mt.per_t[t + 1];
                mt.dev[b] = mt.per_t[t];
            }
        }
    for (int m = 0; m < mt.n; m++) {
        uint64_t trip = 0;
        if (latmc_ens_trip_step(&mt.dir[m], &mt.start[m], mt.temp[m], nT - 1, sweeps, &trip)) {
            mt.rt_count++;
            mt.rt_sum += trip;
        }
    }
}

static int mock_ens_lanes(latmc_sim *const *members, int n, struct latmc_ens_lanes_job *job)
{
    const int64_t N = job->extent[0] * job->extent[1] * job->extent[2];
    const size_t words = (size_t)job->groups * (size_t)N, lanes_n = (size_t)job->groups * 32;
    const size_t tsize = sizeof(struct latmc_ising_tables);
    switch (job->what) {
    case LATMC_ENS_LANES_ASK:
        return LATMC_OK;

    case LATMC_ENS_LANES_LOAD:
        if (lanes.owner != members[0] || lanes.words != words || lanes.lanes != lanes_n) {
            free(lanes.spin);
            free(lanes.tables);
            lanes.spin = malloc(words * sizeof *lanes.spin);
            lanes.tables = malloc(lanes_n * tsize);
            lanes.words = words;
            lanes.lanes = lanes_n;
            lanes.gen = 0;
            lanes.owner = NULL;
            if (!lanes.spin || !lanes.tables)
                return core->fail(LATMC_ENOMEM, "mock: out of memory");
            lanes.owner = members[0];
        }
        memcpy(lanes.spin, job->spin, words * sizeof *lanes.spin);
        return LATMC_OK;
    default:
        break;
    }
    if (lanes.owner != members[0])
        return core->fail(LATMC_ESTATE, "mock: the member lanes were not loaded");
    switch (job->what) {
    case LATMC_ENS_LANES_TEMPER_LOAD:
        return mock_temper_load(n, job->temper->n_temperatures, job);
    case LATMC_ENS_LANES_TEMPER_FETCH:
        return mock_temper_fetch(n, job);
    case LATMC_ENS_LANES_SWEEPS:
        if (job->every && (!mt.live || mt.n != n))
            return core->fail(LATMC_ESTATE, "mock: no tempering state for the rounds");
        if (job->tables_gen == 0)
            return core->fail(LATMC_EBACKEND, "mock: tables_gen 0");
        unsigned char *taken = calloc((size_t)n, 1);
        if (!taken)
            return core->fail(LATMC_ENOMEM, "mock: out of memory");
        const char *fail = getenv("MOCK_FAIL_SWEEP");
        if (fail && *fail && strtoull(fail, NULL, 10) - job->sweep0 < job->n_sweeps) {
            free(taken);
            mt.live = false; /* the rounds' state goes with a failed call, as CUDA's */
            return core->fail(LATMC_EDEVICE, "mock: sweep %s fails", fail);
        }
        /* each lane's table some member's own, each member's taken once: the members'
         * tables, or while the host's rounds leave the members' betas lagging the map
         * (lib/ens_exchange.c) the same tables moved between lanes by the rounds' swaps */
        for (int m = 0; m < n; m++) {
            int j = 0;
            while (j < n && (taken[j] || memcmp(&job->tables[m], members[j]->model_data, tsize)))
                j++;
            if (j == n) {
                free(taken);
                return core->fail(LATMC_EBACKEND, "mock: lane %d's table is no member's "
                                  "(tables_gen %llu)", m, (unsigned long long)job->tables_gen);
            }
            taken[j] = 1;
        }
        free(taken);
        if (job->tables_gen == lanes.gen && memcmp(lanes.tables, job->tables, lanes_n * tsize))
            return core->fail(LATMC_EBACKEND, "mock: tables_gen %llu again with other tables",
                              (unsigned long long)job->tables_gen);
        if (job->tables_gen != lanes.gen && mt.dev) /* sent again: the device's copy */
            memcpy(mt.dev, job->tables, lanes_n * tsize);
        memcpy(lanes.tables, job->tables, lanes_n * tsize);
        lanes.gen = job->tables_gen;
        for (size_t i = 0; i < lanes_n; i++)
            job->changed[i] = 0;
        for (int m = 0; m < n; m++)
            for (uint64_t k = 0; k < job->n_sweeps; k++)
                job->changed[m] += mock_accepted(members[m], job->sweep0 + k);
        for (uint64_t k = 0, round = job->round0; job->every && k < job->n_sweeps; k++)
            if ((job->sweep0 + k + 1) % job->every == 0)
                mock_round(members, job, N, round++, job->sweep0 + k + 1);
        return LATMC_OK;
    case LATMC_ENS_LANES_SUMS:
        for (int g = 0; g < job->groups; g++)
            for (int l = 0; l < 32; l++) {
                int64_t spins = 0;
                for (int64_t i = 0; i < N; i++)
                    spins += lanes.spin[(size_t)g * (size_t)N + (size_t)i] >> l & 1u ? -1 : 1;
                job->sums[64 * g + l] = (int64_t)job->ndim * N;
                job->sums[64 * g + 32 + l] = spins;
            }
        return LATMC_OK;
    case LATMC_ENS_LANES_FETCH:
        memcpy(job->spin, lanes.spin, words * sizeof *lanes.spin);
        return LATMC_OK;
    default:
        return core->fail(LATMC_EINVAL, "mock: member lanes job %d", job->what);
    }
}
#endif

/* The core's plan hands every sweep as steps (lib/plan.c): each site attempted once per
 * sweep, counted at its first step; nothing changes. */
static int mock_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                          uint64_t *accepted, uint64_t *attempted)
{
    (void)accepted;
#if MOCK_VARIANT == 6
    if (n_calls > 0 && calls[0].n_members > 0)
        return mock_batch_steps(calls, n_calls, accepted, attempted);
#endif
    for (int c = 0; c < n_calls; c++)
        if (calls[c].step.index == 0) {
            *attempted += (uint64_t)sim->nsites;
#if MOCK_VARIANT == 6
            *accepted += mock_accepted(sim, calls[c].sweep);
#endif
        }
    return LATMC_OK;
}

#if MOCK_VARIANT == 7
/* ops.embed_step: every ask without a field taken (one in a field declined: the core's
 * host copy steps); the step records its sweep; the
 * names are those of clusters of m = 1 + t mod 3 consecutive sites (t the last step's
 * sweep), Wolff's bonds join no site, the rows along x or every site, a_i = 1. */
static int mock_embed_step(latmc_sim *sim, int what, struct latmc_embed_job *job)
{
    struct mock_heisenberg *h = sim->backend;
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    const bool field = job->field[0] != 0.0 || job->field[1] != 0.0;
    if (what == LATMC_EMBED_ASK)
        return field ? LATMC_EUNSUPPORTED : LATMC_OK;
    if (what == LATMC_EMBED_STEP) {
        h->stepped = job->sweep + 1;
        return LATMC_OK;
    }
    if (what != LATMC_EMBED_NAMES || !h->stepped)
        return core->fail(LATMC_EBACKEND, "mock: embed_step %d before any step", what);
    if (wolff ? !job->bonds || job->name : !job->name || job->bonds)
        return core->fail(LATMC_EBACKEND, "mock: %s asked for the wrong arrays",
                          wolff ? "Wolff" : "Swendsen-Wang");
    const int64_t m = 1 + (int64_t)((h->stepped - 1) % 3);
    const unsigned dirs = (1u << sim->desc.ndim) - 1u;
    for (int64_t i = 0; i < sim->nsites; i++) {
        job->a[i] = 1.0;
        if (wolff)
            job->bonds[i] = (uint8_t)(~dirs | (m == 2 ? 1u : m == 3 ? dirs : 0u));
        else
            job->name[i] = (uint32_t)(i - i % m);
    }
    return LATMC_OK;
}
#endif

static int mock_measure(latmc_sim *sim, void *out)
{
#if MOCK_VARIANT == 7
    (void)out;
    return core->fail(LATMC_EUNSUPPORTED, "mock: no measurement of Heisenberg sims");
#endif
    const int8_t *s = sim->backend;
    struct latmc_ising_sums sums = { 0, 0 };
    for (int64_t i = 0; i < sim->nsites; i++)
        sums.spins += s[i];
    sums.bonds = (int64_t)sim->desc.ndim * sim->nsites; /* uniform states only */
    memcpy(out, &sums, sizeof sums);
    return LATMC_OK;
}

static int mock_get_spins(latmc_sim *sim, void *buf)
{
#if MOCK_VARIANT == 7
    const char *fail = getenv("MOCK_FAIL_GET_SPINS");
    if (fail && strcmp(fail, "1") == 0)
        return core->fail(LATMC_EDEVICE, "mock: get_spins fails (MOCK_FAIL_GET_SPINS=1)");
    memcpy(buf, ((struct mock_heisenberg *)sim->backend)->spins,
           mock_heisenberg_floats(sim) * sizeof(float));
    return LATMC_OK;
#endif
    memcpy(buf, sim->backend, (size_t)sim->nsites);
    return LATMC_OK;
}

static int mock_set_spins(latmc_sim *sim, const void *buf)
{
#if MOCK_VARIANT == 7
    memcpy(((struct mock_heisenberg *)sim->backend)->spins, buf,
           mock_heisenberg_floats(sim) * sizeof(float));
    return LATMC_OK;
#endif
    memcpy(sim->backend, buf, (size_t)sim->nsites);
    return LATMC_OK;
}

static const struct latmc_backend_ops mock_ops = {
    .size = sizeof(struct latmc_backend_ops),
    .name = "mock-cuda",
    .create = mock_create,
    .destroy = mock_destroy,
    .init_spins = mock_init_spins,
    .measure = mock_measure,
    .get_spins = mock_get_spins,
    .set_spins = mock_set_spins,
    .run_steps = mock_run_steps,
#if MOCK_VARIANT == 6
    .step_caps = mock_step_caps,
    .ens_lanes = mock_ens_lanes,
#endif
#if MOCK_VARIANT == 7
    .embed_step = mock_embed_step,
#endif
};

static const struct latmc_module mock_module = {
    .size = sizeof(struct latmc_module),
#if MOCK_VARIANT == 2
    .abi_version = 999,
#else
    .abi_version = LATMC_MODULE_ABI_VERSION,
#endif
    .name = "mock",
    .device_kind = LATMC_DEVICE_CUDA,
    .init = mock_init,
    .device_count = mock_device_count,
    .device_info = mock_device_info,
    .ops = &mock_ops,
};

#if MOCK_VARIANT != 3
MOCK_EXPORT const struct latmc_module *latmc_module_entry(void);
MOCK_EXPORT const struct latmc_module *latmc_module_entry(void)
{
    return &mock_module;
}
#else
MOCK_EXPORT const struct latmc_module *not_the_entry(void);
MOCK_EXPORT const struct latmc_module *not_the_entry(void)
{
    return &mock_module;
}
#endif
