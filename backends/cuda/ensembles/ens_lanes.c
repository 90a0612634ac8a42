/*
 * ops.ens_lanes of the CUDA module (lib/backend.h; doc/ensembles.md "Member lanes"): the
 * group words of an ensemble's member lanes in device memory between calls, kept in member
 * 0's cuda_sim and freed with it; the sweeps and the rounds' sums by Ising's kernels
 * (ising/ising_lanes_kernels.cu). The exchange rounds on the device: the tempering state
 * of exec/cuda_temper.c (the map, the round trips, the acceptance per pair, each
 * temperature's tables), loaded and fetched by the core (lib/ens_temper.c), and a call's
 * sweeps up to each round (that launch leaving the lanes' sums) and the round
 * (ising/ising_lanes_round.cu) one launch after another on the stream, nothing read back
 * until the call's counters.
 * Every member must be a lattice alone on member 0's device (an ensemble's members are).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_device.h"
#include "cuda_temper.h"
#include "ens_lanes.h"
#include "ens_lanes_sliced.h" /* latmc_ens_lanes_symmetric */
#include "ising_lanes.h"

struct cuda_ens_lanes {
    int groups, ndim;
    int64_t nsites;
    bool coupled;
    int in_shared;                       /* the words fit a block's shared memory (2: and
                                            the sites' table, cuda_ens_lanes_sweeps) */
    uint32_t *spin, *bond;               /* groups x N, groups x ndim N (or NULL) */
    uint32_t *table;                     /* the sites' table (4 N words) where in_shared 2 */
    struct latmc_ising_tables *tables;   /* groups x 32 */
    /* the core's generation of the tables last copied into `tables` (0: none), and the
     * kernel's form and register-form instance they give (tables_scan) */
    uint64_t sent_gen;
    int sent_mode, sent_zeros;
    unsigned long long *changed;         /* groups x 32 */
    long long *sums;                     /* groups x 64 */
    /* page-locked host memory: a launch's counters (groups x 32), the tables on their way
     * in (groups x 32) and the rounds' sums on their way out (groups x 64): copies of
     * pageable memory go through the driver's own staging, some 2x slower a round */
    unsigned long long *chunk;
    struct latmc_ising_tables *tables_host;
    long long *sums_host;
    struct cuda_ens_temper *temper;      /* the exchange rounds' state, or NULL */
};

/* The member lanes' part of tempering on the device (exec/cuda_temper.h): no batch to open,
 * each temperature's part its tables, given with the load (the job's temp_tables); the sums
 * and the moves the lanes' own (cuda_ens_lanes_sums, cuda_ens_lanes_round). */
static const struct cuda_temper_model lanes_temper = {
    .ladder_key = LATMC_PARAM_BETA,
    .param_bytes = sizeof(struct latmc_ising_tables),
};

/* Sweeps per launch: a launch stays short (as the fused ensemble kernels'). */
#define LANES_MAX_SWEEPS 1024u

void cuda_ens_lanes_free(struct cuda_ens_lanes *l)
{
    if (!l)
        return;
    cudaFree(l->spin);
    cudaFree(l->bond);
    cudaFree(l->table);
    cudaFree(l->tables);
    cudaFree(l->changed);
    cudaFree(l->sums);
    cudaFreeHost(l->chunk);
    cudaFreeHost(l->tables_host);
    cudaFreeHost(l->sums_host);
    cuda_temper_free(l->temper);
    free(l);
}

static struct latmc_lattice lattice_of(const struct latmc_ens_lanes_job *job)
{
    struct latmc_lattice g;
    g.ndim = job->ndim;
    g.lx = job->extent[0];
    g.ly = job->extent[1];
    g.lz = job->extent[2];
    g.nsites = g.lx * g.ly * g.lz;
    return g;
}

/* The sites' table (ising_lanes.h) onto the device; where the host cannot make it, none (the
 * kernel computes the sites: the same words). */
static int table_load(struct cuda_ens_lanes *l, const struct latmc_lattice *g)
{
    const size_t bytes = (size_t)g->nsites * 4 * sizeof(uint32_t);
    uint32_t *t = malloc(bytes);
    int st = LATMC_OK;
    if (t && cuda_ens_lanes_table_make(g, t) == 0) {
        st = cuda_check(cudaMalloc((void **)&l->table, bytes), "the member lanes' sites");
        if (st == LATMC_OK)
            st = cuda_check(cudaMemcpy(l->table, t, bytes, cudaMemcpyHostToDevice),
                            "the member lanes' sites");
    }
    free(t);
    return st;
}

/* The state for the job's shape (a new one where the shape changed). */
static int state_for(struct cuda_sim *cs, const struct latmc_ens_lanes_job *job, bool coupled)
{
    struct cuda_ens_lanes *l = cs->ens_lanes;
    const struct latmc_lattice g = lattice_of(job);
    if (l && l->groups == job->groups && l->ndim == job->ndim && l->nsites == g.nsites &&
        l->coupled == coupled)
        return LATMC_OK;
    cuda_ens_lanes_free(l);
    cs->ens_lanes = l = calloc(1, sizeof *l);
    if (!l)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the member lanes' state");
    l->groups = job->groups;
    l->ndim = job->ndim;
    l->nsites = g.nsites;
    l->coupled = coupled;
    const size_t words = (size_t)job->groups * (size_t)g.nsites;
    const size_t lanes = (size_t)job->groups * 32;
    int st = cuda_check(cudaMalloc((void **)&l->spin, words * sizeof *l->spin),
                        "the member lanes' spin words");
    if (st == LATMC_OK && coupled)
        st = cuda_check(cudaMalloc((void **)&l->bond,
                                   words * (size_t)job->ndim * sizeof *l->bond),
                        "the member lanes' bond words");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&l->tables, lanes * sizeof *l->tables),
                        "the member lanes' tables");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&l->changed, lanes * sizeof *l->changed),
                        "the member lanes' counters");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&l->sums, lanes * 2 * sizeof *l->sums),
                        "the member lanes' sums");
    if (st == LATMC_OK)
        st = cuda_check(cudaMallocHost((void **)&l->chunk, lanes * sizeof *l->chunk),
                        "the member lanes' counters (host)");
    if (st == LATMC_OK)
        st = cuda_check(cudaMallocHost((void **)&l->tables_host,
                                       lanes * sizeof *l->tables_host),
                        "the member lanes' tables (host)");
    if (st == LATMC_OK)
        st = cuda_check(cudaMallocHost((void **)&l->sums_host, lanes * 2 * sizeof *l->sums_host),
                        "the member lanes' sums (host)");
    int optin = 0;
    if (st == LATMC_OK)
        st = cuda_check(cuda_device_smem_optin(cs->device, &optin), "the device's shared memory");
    /* the kernel's static shared memory (the classes, the counters, the sums' counters,
     * the tail queue) beside the words */
    const size_t fixed = sizeof(uint32_t) * (2 + 2 * 7 * 34) + 3 * 32 * 8 + 1024 +
                         CUDA_ENS_LANES_QUEUE * 16 + 8;
    const size_t table = cuda_ens_lanes_shared_bytes(&g, coupled, 1);
    l->in_shared = cuda_ens_lanes_shared_bytes(&g, coupled, 0) + fixed > (size_t)optin ? 0
                 : table && table + fixed <= (size_t)optin ? 2 : 1;
    if (st == LATMC_OK && l->in_shared == 2)
        st = table_load(l, &g);
    if (st < 0) {
        cuda_ens_lanes_free(l);
        cs->ens_lanes = NULL;
    }
    return st;
}

/* LATMC_ENS_LANES=plain in the environment: the kernel's plain form; =keys: the default
 * form without its register form (mode 1 where 3 would serve). The tests compare. */
static int form_is(const char *name)
{
    const char *v = getenv("LATMC_ENS_LANES");
    return v && strcmp(v, name) == 0;
}

/*
 * The kernel's form (ising_lanes.h) the tables allow, *mode: 0 heat bath, 1 Metropolis with
 * every present lane's tables symmetric (latmc_ens_lanes_symmetric), 2 other Metropolis, 3
 * as 1 where moreover every lane accepts at u >= ndim unsatisfied bonds (metropolis[0][u]
 * = 2^32: h = 0 and dE <= 0 there), the register form; *zeros, the register form's instance
 * (CUDA_ENS_LANES_ZEROS) they allow: 0 unless every member is open (a threshold below 2^32
 * and not 0) at every key u < ndim, then the largest whose top planes left out are zero in
 * all those thresholds (mode 3 only). One pass over every member's tables, worked out when
 * they change (cuda_ens_lanes keeps both with their generation: after every exchange round).
 */
static void tables_scan(const struct latmc_ens_lanes_job *job, int *mode, int *zeros)
{
    *mode = *zeros = 0;
    if (job->algorithm == LATMC_ALGO_HEATBATH)
        return;
    const int nd = job->ndim;
    bool regs = true, open = true;
    /* the largest threshold of each key u < ndim (the fewest leading zero bits) */
    uint64_t largest[LATMC_ISING_MAX_K] = { 0 };
    for (int m = 0; m < job->n_members; m++) {
        const struct latmc_ising_tables *t = &job->tables[m];
        if (!latmc_ens_lanes_symmetric(t, nd)) {
            *mode = 2;
            return;
        }
        for (int u = nd; u <= 2 * nd; u++)
            regs = regs && latmc_ising_site_threshold(t, LATMC_ALGO_METROPOLIS, -1, u) >> 32;
        for (int u = 0; u < nd; u++) {
            const uint64_t v = latmc_ising_site_threshold(t, LATMC_ALGO_METROPOLIS, -1, u);
            open = open && v != 0 && !(v >> 32);
            largest[u] = v > largest[u] ? v : largest[u];
        }
    }
    *mode = regs ? 3 : 1;
    if (!regs || !open)
        return;
    int all = 32, most = 32; /* leading zero bits: of every key, of the keys u < ndim - 1 */
    for (int u = 0; u < nd; u++) {
        int z = 0;
        while (!((largest[u] << z) & 0x80000000u))
            z++;
        if (z < all)
            all = z;
        if (u < nd - 1 && z < most)
            most = z;
    }
    for (int z = 1; z < CUDA_ENS_LANES_ZEROS; z++)
        if (CUDA_ENS_LANES_ZEROS_ALL(z) <= all && CUDA_ENS_LANES_ZEROS_MOST(z) <= most)
            *zeros = z;
}

/* The form a launch runs: the tables' (tables_scan), or the tests' choice of the plain form
 * (-1) or of the keys' form (1) where the register form (3) would serve. */
static int kernel_mode(int mode)
{
    if (form_is("plain"))
        return -1;
    return mode == 3 && form_is("keys") ? 1 : mode;
}

/* The register form's instance a launch runs: the tables' (tables_scan), or 0 where the
 * tests ask for the instance that knows no zero planes (LATMC_ENS_LANES=nozeros). */
static int kernel_zeros(int mode, int zeros)
{
    return mode == 3 && !form_is("nozeros") ? zeros : 0;
}

/*
 * A call's sweeps in launches of at most LANES_MAX_SWEEPS, each ending at the next round
 * where the job has rounds (every > 0: after each sweep numbered s with (s + 1) % every ==
 * 0), that launch leaving the lanes' sums, then the round, numbered from round0, each at
 * the ensemble's sweep count after its sweep (the round trips' clock, as the host's round
 * reads it). Launched on the stream, nothing waited for.
 */
static int sweeps_and_rounds(struct cuda_ens_lanes *l, const struct latmc_lattice *g,
                             const struct latmc_ens_lanes_job *job, const latmc_sim *first,
                             cudaStream_t s)
{
    const uint64_t every = job->every;
    uint64_t round = job->round0;
    int st = LATMC_OK;
    for (uint64_t done = 0; st == LATMC_OK && done < job->n_sweeps;) {
        const uint64_t at = job->sweep0 + done;
        uint64_t k = job->n_sweeps - done < LANES_MAX_SWEEPS ? job->n_sweeps - done
                                                             : LANES_MAX_SWEEPS;
        if (every && every - at % every < k)
            k = every - at % every;
        const bool round_next = every && (at + k) % every == 0;
        const int mode = kernel_mode(l->sent_mode);
        /* a launch before a round leaves the round's sums too */
        st = cuda_check(cuda_ens_lanes_sweeps(s, g, job->n_members, job->algorithm, job->seed,
                                              at, k, l->spin, l->bond, l->tables, l->changed,
                                              l->table, l->in_shared, mode,
                                              kernel_zeros(mode, l->sent_zeros),
                                              round_next ? l->sums : NULL),
                        "the member lanes' sweeps");
        done += k;
        if (st < 0 || !round_next)
            continue;
        const struct cuda_ens_round r = cuda_temper_round_at(l->temper, first, round++, at + k);
        st = cuda_check(cuda_ens_lanes_round(s, &l->temper->d, &r, l->sums, l->tables),
                        "the member lanes' exchange round");
    }
    return st;
}

static int ask(latmc_sim *const *members, int n)
{
    const struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    for (int m = 0; m < n; m++) {
        const struct cuda_sim *cs = cuda_sim_of(members[m]);
        if (!cs->stream || cs->device != cs0->device)
            return cuda_core->fail(LATMC_EUNSUPPORTED, "member %d is not a lattice alone on "
                                   "device %d (member 0's)", m, cs0->device);
    }
    return LATMC_OK;
}

int cuda_ens_lanes(latmc_sim *const *members, int n, struct latmc_ens_lanes_job *job)
{
    if (job->what == LATMC_ENS_LANES_ASK)
        return ask(members, n);
    struct cuda_sim *cs = cuda_sim_of(members[0]);
    int st = cuda_check(cudaSetDevice(cs->device), "cudaSetDevice");
    if (st < 0)
        return st;
    const struct latmc_lattice g = lattice_of(job);
    const size_t words = (size_t)job->groups * (size_t)g.nsites;
    const size_t lanes = (size_t)job->groups * 32;
    const cudaStream_t s = cs->stream;
    if (job->what == LATMC_ENS_LANES_LOAD) {
        if ((st = state_for(cs, job, job->bond != NULL)) < 0)
            return st;
        struct cuda_ens_lanes *l = cs->ens_lanes;
        st = cuda_check(cudaMemcpyAsync(l->spin, job->spin, words * sizeof *l->spin,
                                        cudaMemcpyHostToDevice, s), "the member lanes' spins");
        if (st == LATMC_OK && job->bond)
            st = cuda_check(cudaMemcpyAsync(l->bond, job->bond,
                                            words * (size_t)g.ndim * sizeof *l->bond,
                                            cudaMemcpyHostToDevice, s),
                            "the member lanes' bonds");
        return st == LATMC_OK ? cuda_check(cudaStreamSynchronize(s), "loading the member lanes")
                              : st;
    }
    struct cuda_ens_lanes *l = cs->ens_lanes;
    if (!l || l->groups != job->groups || l->nsites != g.nsites)
        return cuda_core->fail(LATMC_ESTATE, "CUDA: the member lanes were not loaded");
    struct cuda_temper_lead lead = { &l->temper, cs->device, s };
    switch (job->what) {
    case LATMC_ENS_LANES_TEMPER_LOAD:
    case LATMC_ENS_LANES_TEMPER_FETCH:
        return cuda_temper_state_parts(&lanes_temper, &lead, members, n, job->temper,
                                       job->temp_tables);
    case LATMC_ENS_LANES_SWEEPS:
        if (job->every && (!l->temper || !l->temper->live || l->temper->n != n))
            return cuda_core->fail(LATMC_ESTATE, "CUDA: the member lanes' tempering state is "
                                   "not on the device");
        /* the tables change only with the members' parameters (exchanges, set_param):
         * copied (4096 members: about 0.7 MB) where the core's generation of them is not
         * the one last copied, so that a call without a change neither compares nor
         * copies them */
        if (job->tables_gen == 0 || l->sent_gen != job->tables_gen) {
            l->sent_gen = 0;
            /* through page-locked memory (the call waits for its stream before it returns,
             * so the next call's copy finds it free) */
            memcpy(l->tables_host, job->tables, lanes * sizeof *l->tables);
            st = cuda_check(cudaMemcpyAsync(l->tables, l->tables_host,
                                            lanes * sizeof *l->tables, cudaMemcpyHostToDevice,
                                            s),
                            "the member lanes' tables");
            if (st == LATMC_OK) {
                tables_scan(job, &l->sent_mode, &l->sent_zeros);
                l->sent_gen = job->tables_gen;
            }
        }
        if (st == LATMC_OK)
            st = cuda_check(cudaMemsetAsync(l->changed, 0, lanes * sizeof *l->changed, s),
                            "the member lanes' counters");
        st = st == LATMC_OK ? sweeps_and_rounds(l, &g, job, members[0], s) : st;
        /* the counters the launches added, read once */
        if (st == LATMC_OK)
            st = cuda_check(cudaMemcpyAsync(l->chunk, l->changed, lanes * sizeof *l->changed,
                                            cudaMemcpyDeviceToHost, s),
                            "the member lanes' counters");
        if (st == LATMC_OK)
            st = cuda_check(cudaStreamSynchronize(s), "the member lanes' sweeps");
        for (size_t i = 0; st == LATMC_OK && i < lanes; i++)
            job->changed[i] = l->chunk[i];
        if (st < 0) {
            (void)cudaStreamSynchronize(s); /* no launch outlives the call */
            l->sent_gen = 0; /* the rounds may have moved the tables: sent again */
            if (job->every) /* the map may be half a round old: the core's call fails */
                l->temper->live = false;
        }
        return st;
    case LATMC_ENS_LANES_SUMS:
        st = cuda_check(cuda_ens_lanes_sums(s, &g, job->n_members, l->spin, l->bond, l->sums),
                        "the member lanes' sums");
        if (st == LATMC_OK)
            st = cuda_check(cudaMemcpyAsync(l->sums_host, l->sums, lanes * 2 * sizeof *l->sums,
                                            cudaMemcpyDeviceToHost, s),
                            "the member lanes' sums");
        if (st == LATMC_OK)
            st = cuda_check(cudaStreamSynchronize(s), "the member lanes' sums");
        if (st == LATMC_OK)
            memcpy(job->sums, l->sums_host, lanes * 2 * sizeof *l->sums);
        return st; /* the stream waited for already */
    case LATMC_ENS_LANES_FETCH:
        st = cuda_check(cudaMemcpyAsync(job->spin, l->spin, words * sizeof *l->spin,
                                        cudaMemcpyDeviceToHost, s), "the member lanes' spins");
        break;
    default:
        return cuda_core->fail(LATMC_EINVAL, "CUDA: member lanes job %d", job->what);
    }
    return st == LATMC_OK ? cuda_check(cudaStreamSynchronize(s), "the member lanes") : st;
}
