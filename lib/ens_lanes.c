/*
 * The ensemble chain of member lanes (ensemble parameter decisions = 2, doc/ensembles.md,
 * "Member lanes"): whether an ensemble can run it, and its sweeps on the CPU.
 *
 * The members are packed into one word per site and group of 32 members (couplings once,
 * spins at the first call and after a member was written from outside) and the words
 * kept between calls. A call runs its sweeps group by group on the ensemble's OpenMP
 * threads, bit-sliced (lib/ens_lanes_sliced.h; with SIMD, several groups a vector by the CPU
 * backend's ops.ens_lanes, its width from ASK; LATMC_ENS_LANES=reference: the per-lane
 * reference of lib/ens_lanes_rules.h), a group's n sweeps depending on nothing outside
 * the group, so any thread count and schedule gives the same words; the members'
 * counters advance as latmc_sim_sweep's would (sweeps, accepted = spins changed,
 * attempted = sites). Their configurations follow when something reads a member
 * (latmc_ens_lanes_flush, from latmc_ens_sync); the exchange rounds take their energies
 * from the words (latmc_ens_lanes_round_values). Between the calls and the readers the
 * members are ordinary sims: observables, overlaps, spins and files read them unchanged.
 * Members on another backend run the chain through its ops.ens_lanes (lib/backend.h): the
 * same packing and bookkeeping here, the words kept on the device between calls (loaded
 * when packed, fetched when flushed), the sweeps and the rounds' sums counted there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ens_internal.h"
#include "ens_lanes_rules.h"
#include "ens_lanes_sliced.h"
#include "ens_lanes_sums.h"
#include "model.h"
#include "thread_probe.h"

#ifdef _OPENMP
#  include <omp.h>
#  define LANES_PRAGMA_(x) _Pragma(#x)
#  define LANES_OMP(x) LANES_PRAGMA_(omp x)
#else
#  define LANES_OMP(x)
#endif

/* As lib/ens_exec.c: below this many site updates a call runs on the calling thread. */
#define LANES_OMP_MIN_ITEMS 32768.0

int latmc_ens_lanes_check_chain(const latmc_ens *e, const char *fn)
{
    const latmc_sim *m0 = e->members[0];
    if (e->desc.model != LATMC_MODEL_ISING)
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: decisions = 2 (member lanes) is an Ising "
                          "chain; the members are %s", fn, m0->model->name);
    if (e->desc.algorithm != LATMC_ALGO_METROPOLIS && e->desc.algorithm != LATMC_ALGO_HEATBATH)
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: decisions = 2 (member lanes) runs "
                          "Metropolis and heat bath, not %s", fn,
                          latmc_algorithm_name(e->desc.algorithm));
    if (e->desc.ndim != 2 && e->desc.ndim != 3)
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: decisions = 2 (member lanes) runs 2D and 3D "
                          "lattices, not ndim = %d", fn, e->desc.ndim);
    const uint64_t groups = ((uint64_t)e->n_members + LATMC_ENS_LANES - 1) / LATMC_ENS_LANES;
    /* blocks 0 .. groups N - 1 (exact in doubles below 2^53) */
    if ((double)groups * (double)e->nsites > (double)LATMC_RNG_MAX_BLOCK + 1.0)
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: decisions = 2 (member lanes): %llu groups "
                          "of %lld sites name more blocks than the counter holds (2^48)", fn,
                          (unsigned long long)groups, (long long)e->nsites);
    return LATMC_OK;
}

typedef int (*lanes_op)(latmc_sim *const *members, int n_members,
                        struct latmc_ens_lanes_job *job);

/* The members' backend's ops.ens_lanes, NULL on the CPU backend (the chain runs here). */
static lanes_op device_op(const latmc_ens *e)
{
    const struct latmc_backend_ops *ops = e->members[0]->ops;
    return ops == &latmc_cpu_backend_ops ? NULL : LATMC_BACKEND_OP(ops, ens_lanes);
}

/* A job of `what` with the ensemble's shape filled in. */
static struct latmc_ens_lanes_job job_of(const latmc_ens *e, int what)
{
    struct latmc_ens_lanes_job j;
    memset(&j, 0, sizeof j);
    j.what = what;
    j.ndim = e->desc.ndim;
    j.extent[0] = e->desc.extent[0];
    j.extent[1] = e->desc.extent[1];
    j.extent[2] = e->desc.ndim == 3 ? e->desc.extent[2] : 1;
    j.n_members = e->n_members;
    j.groups = (e->n_members + LATMC_ENS_LANES - 1) / LATMC_ENS_LANES;
    j.algorithm = e->desc.algorithm;
    j.seed = e->layout.seed;
    return j;
}

int latmc_ens_lanes_check(const latmc_ens *e, const char *fn)
{
    int st = latmc_ens_lanes_check_chain(e, fn);
    if (st < 0)
        return st;
    const latmc_sim *m0 = e->members[0];
    if (m0->ops == &latmc_cpu_backend_ops)
        return LATMC_OK;
    const lanes_op op = device_op(e);
    if (!op)
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: decisions = 2 (member lanes) does not run "
                          "on the %s backend (the members')", fn, m0->ops->name);
    struct latmc_ens_lanes_job ask = job_of(e, LATMC_ENS_LANES_ASK);
    st = op(e->members, e->n_members, &ask);
    if (st == LATMC_EUNSUPPORTED) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_last_error());
        return latmc_fail(st, "%s: decisions = 2 (member lanes) on the %s backend: %s", fn,
                          m0->ops->name, why);
    }
    return st;
}

/*
 * The words, kept between calls: `current` while they hold the members' configurations
 * (packed at the first call, dropped when a member's spins are written from outside:
 * latmc_ens_lanes_drop), `stale` while the members lag them (a call's sweeps; every
 * reader of a member flushes first through latmc_ens_sync). The coupling words are
 * packed once: an ensemble's members never change their couplings. The tables are copied
 * from the members where their parameters changed since the last call (`dirty`,
 * latmc_ens_lanes_params_changed: set_param, the ladder, the exchanges' swaps), not at
 * every call: 4096 members' tables are 0.7 MB read from 4096 sims.
 */
struct latmc_ens_lanes_words {
    struct latmc_lattice geom;
    int groups;
    uint32_t *spin;                        /* groups x N */
    uint32_t *bond;                        /* groups x ndim N, or NULL */
    struct latmc_ising_tables *tables;     /* groups x 32 (absent lanes zero) */
    uint64_t *changed;                     /* groups x 32 */
    int64_t *sums;                         /* groups x 64: a round's sums (made at the
                                              first round, kept) */
    int8_t *bytes;                         /* N: one member's configuration */
    bool current, stale;
    /* a device's call of sweeps failed: its words may have advanced past the members'
     * counters (a call is several launches), so nothing reads or continues them */
    bool lost;
    lanes_op dev;                          /* the backend's: the words live there */
    /* the CPU backend's vectors of groups: their words in its layout between calls (one
     * per vector, made before a call's sweeps: lib/backend.h's latmc_ens_lanes_keep), and
     * the count of this file's writes to spin (pack) that they compare with */
    struct latmc_ens_lanes_keep *keeps;
    int n_keeps;
    uint64_t spin_gen;
    /* the members whose tables changed since they were copied (n_members bytes), any of
     * them, or all (at the first call) */
    unsigned char *dirty;
    bool any_dirty, all_dirty;
};

/* LATMC_ESTATE once a device's call of sweeps failed (w->lost); fn names the caller. */
static int lanes_lost(latmc_ens *e, const char *fn)
{
    return ENS_FAIL(e, LATMC_ESTATE, "%s: the member lanes' configurations on the device "
                    "were lost with a failed call of sweeps; load the ensemble from a "
                    "checkpoint", fn);
}

/* The call's state as the group loops read it. */
typedef struct latmc_ens_lanes_words lanes_state;

void latmc_ens_lanes_free(latmc_ens *e)
{
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (!w)
        return;
    free(w->spin);
    free(w->bond);
    free(w->tables);
    free(w->changed);
    free(w->sums);
    free(w->bytes);
    free(w->dirty);
    for (int c = 0; c < w->n_keeps; c++)
        free(w->keeps[c].mem);
    free(w->keeps);
    free(w);
    e->lanes_words = NULL;
}

/* The words of every group, the couplings packed. */
static int lanes_alloc(latmc_ens *e)
{
    const int64_t N = e->nsites;
    const int nd = e->desc.ndim;
    const bool coupled = e->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    struct latmc_ens_lanes_words *w = calloc(1, sizeof *w);
    if (!w)
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the member lanes");
    e->lanes_words = w;
    w->dev = device_op(e);
    w->spin_gen = 1;
    w->geom.ndim = nd;
    w->geom.lx = e->desc.extent[0];
    w->geom.ly = e->desc.extent[1];
    w->geom.lz = nd == 3 ? e->desc.extent[2] : 1;
    w->geom.nsites = N;
    w->groups = (e->n_members + LATMC_ENS_LANES - 1) / LATMC_ENS_LANES;
    const size_t lanes = (size_t)w->groups * LATMC_ENS_LANES;
    w->spin = calloc((size_t)w->groups * (size_t)N, sizeof *w->spin);
    w->bond = coupled ? calloc((size_t)w->groups * (size_t)N * (size_t)nd, sizeof *w->bond)
                      : NULL;
    w->tables = calloc(lanes, sizeof *w->tables);
    w->changed = calloc(lanes, sizeof *w->changed);
    w->bytes = malloc((size_t)N);
    w->dirty = calloc((size_t)e->n_members, 1);
    w->all_dirty = true;
    float *eps = coupled ? malloc((size_t)N * (size_t)nd * sizeof *eps) : NULL;
    if (!w->spin || (coupled && (!w->bond || !eps)) || !w->tables || !w->changed || !w->bytes ||
        !w->dirty) {
        free(eps);
        latmc_ens_lanes_free(e);
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the words of %d "
                        "groups of %lld sites", (int)(lanes / LATMC_ENS_LANES), (long long)N);
    }
    for (int m = 0; coupled && m < e->n_members; m++) {
        latmc_sim *sim = e->members[m];
        const int st = latmc_sim_get_couplings(sim, eps, (size_t)N * (size_t)nd);
        if (st < 0) {
            free(eps);
            latmc_ens_lanes_free(e);
            return ENS_FAIL(e, st, "latmc_ens_sweep: member %d's couplings: %s", m,
                            latmc_sim_last_error(sim));
        }
        uint32_t *b = w->bond + (size_t)(m / LATMC_ENS_LANES) * (size_t)N * (size_t)nd;
        const uint32_t bit = 1u << (m % LATMC_ENS_LANES);
        for (int64_t i = 0; i < N * nd; i++)
            b[i] |= eps[i] < 0.0f ? bit : 0u;
    }
    free(eps);
    return LATMC_OK;
}

/* The members' configurations into the words. */
static int pack(latmc_ens *e, struct latmc_ens_lanes_words *w)
{
    const int64_t N = e->nsites;
    w->spin_gen++; /* the kept copies of the words copy them again */
    memset(w->spin, 0, (size_t)w->groups * (size_t)N * sizeof *w->spin);
    for (int m = 0; m < e->n_members; m++) {
        latmc_sim *sim = e->members[m];
        const int st = latmc_sim_get_spins(sim, w->bytes, (size_t)N);
        if (st < 0)
            return ENS_FAIL(e, st, "latmc_ens_sweep: member %d's spins: %s", m,
                            latmc_sim_last_error(sim));
        uint32_t *word = w->spin + (size_t)(m / LATMC_ENS_LANES) * (size_t)N;
        const uint32_t bit = 1u << (m % LATMC_ENS_LANES);
        for (int64_t i = 0; i < N; i++)
            word[i] |= w->bytes[i] < 0 ? bit : 0u;
    }
    if (w->dev) { /* the device's words from now on */
        struct latmc_ens_lanes_job job = job_of(e, LATMC_ENS_LANES_LOAD);
        job.spin = w->spin;
        job.bond = w->bond;
        const int st = w->dev(e->members, e->n_members, &job);
        if (st < 0)
            return ENS_FAIL(e, st, "latmc_ens_sweep: the member lanes onto the %s device: %s",
                            e->members[0]->ops->name, latmc_last_error());
    }
    w->current = true;
    return LATMC_OK;
}

int latmc_ens_lanes_flush(latmc_ens *e)
{
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (!w || !w->stale)
        return LATMC_OK;
    if (w->lost)
        return lanes_lost(e, "ensemble");
    const int64_t N = e->nsites;
    if (w->dev) {
        struct latmc_ens_lanes_job job = job_of(e, LATMC_ENS_LANES_FETCH);
        job.spin = w->spin;
        const int st = w->dev(e->members, e->n_members, &job);
        if (st < 0)
            return ENS_FAIL(e, st, "ensemble: the member lanes from the %s device: %s",
                            e->members[0]->ops->name, latmc_last_error());
    }
    for (int m = 0; m < e->n_members; m++) {
        latmc_sim *sim = e->members[m];
        const uint32_t *word = w->spin + (size_t)(m / LATMC_ENS_LANES) * (size_t)N;
        const int l = m % LATMC_ENS_LANES;
        for (int64_t i = 0; i < N; i++)
            w->bytes[i] = (int8_t)latmc_ens_lanes_spin(word[i], l);
        /* set_spins empties the counters: the sweeps' own, kept */
        const uint64_t accepted = sim->accepted, attempted = sim->attempted;
        const int st = latmc_sim_set_spins(sim, w->bytes, (size_t)N);
        if (st < 0)
            return ENS_FAIL(e, st, "ensemble: member %d's configuration from the member "
                            "lanes: %s", m, latmc_sim_last_error(sim));
        sim->accepted = accepted;
        sim->attempted = attempted;
    }
    w->stale = false;
    return LATMC_OK;
}

int latmc_ens_lanes_drop(latmc_ens *e)
{
    const int st = latmc_ens_lanes_flush(e);
    if (st == LATMC_OK && e->lanes_words)
        e->lanes_words->current = false;
    return st;
}

/* Group g's view of the words. */
static struct latmc_ens_lanes_group group_of(const latmc_ens *e, const lanes_state *s, int g)
{
    const int64_t N = e->nsites;
    const int nd = e->desc.ndim;
    const int M = e->n_members;
    const int present = M - g * LATMC_ENS_LANES < LATMC_ENS_LANES ? M - g * LATMC_ENS_LANES
                                                                 : LATMC_ENS_LANES;
    const struct latmc_ens_lanes_group grp = {
        .spin = s->spin + (size_t)g * (size_t)N,
        .bond = s->bond ? s->bond + (size_t)g * (size_t)N * (size_t)nd : NULL,
        .tables = s->tables + (size_t)g * LATMC_ENS_LANES,
        .active = present == LATMC_ENS_LANES ? 0xffffffffu : (1u << present) - 1u,
    };
    return grp;
}

/* Threads for `items` site updates over the groups (1 below a team's worth). */
static int group_threads(const latmc_ens *e, const lanes_state *s, double items)
{
    int nt = items < LANES_OMP_MIN_ITEMS ? 1 : e->layout.n_threads;
    return nt > s->groups ? s->groups : nt;
}

static int team(latmc_ens *e, int nt, const char *what)
{
    const int st = nt > 1 ? latmc_team_ready(nt) : LATMC_OK;
    if (st == LATMC_OK)
        return LATMC_OK;
    char why[LATMC_ERRMSG_SIZE];
    snprintf(why, sizeof why, "%s", latmc_thread_error());
    return ENS_FAIL(e, st, "%s: the team over member groups: %s", what, why);
}

/* Group g's lanes' bonds and spins into sums[64 g ..] (32 bonds, then 32 spins). */
static void group_sums(const latmc_ens *e, const lanes_state *w, int g, int64_t *sums)
{
    const struct latmc_ens_lanes_group grp = group_of(e, w, g);
    int64_t *b = sums + (size_t)g * LATMC_ENS_LANES * 2;
    latmc_ens_lanes_sums(&w->geom, &grp, b, b + LATMC_ENS_LANES);
}

/* The CPU backend's ops.ens_lanes where it runs vectors of groups (ASK's width `*per` > 1,
 * the members' SIMD level), else NULL with *per 1; the reference's switch; the end of
 * vector c of `per` groups among G (below). */
static lanes_op simd_op(latmc_ens *e, int *per);
static bool use_reference(void);
static int chunk_end(int c, int per, int G);

/* A job `what` of the CPU backend's vector c, groups g0 .. g1 - 1 on the words it keeps. */
static struct latmc_ens_lanes_job vector_job(const latmc_ens *e, const lanes_state *s, int what,
                                             int c, int g0, int g1)
{
    struct latmc_ens_lanes_job job = job_of(e, what);
    job.keep = &s->keeps[c];
    job.spin_gen = s->spin_gen;
    job.group0 = g0;
    job.groups = g1;
    job.bond = s->bond;
    return job;
}

/* The sums of vector c's groups g0 .. g1 - 1: the CPU backend's from the words it keeps
 * (SUMS) as far as they go, the rest here group by group. */
static void chunk_sums(latmc_ens *e, const lanes_state *w, lanes_op simd, int c, int g0,
                       int g1, int64_t *sums)
{
    int done = 0;
    if (simd && c < w->n_keeps) {
        struct latmc_ens_lanes_job job = vector_job(e, w, LATMC_ENS_LANES_SUMS, c, g0, g1);
        job.sums = sums;
        done = simd(e->members, e->n_members, &job);
        done = done < 0 ? 0 : done;
    }
    for (int g = g0 + done; g < g1; g++)
        group_sums(e, w, g, sums);
}

int latmc_ens_lanes_round_values(latmc_ens *e, int key, double *values)
{
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (!w || !w->current || !w->stale)
        return LATMC_EUNSUPPORTED; /* the members hold it: measure them */
    if (w->lost)
        return lanes_lost(e, "exchange round");
    const int G = w->groups;
    const int nt = w->dev ? 1 : group_threads(e, w, (double)e->n_members * (double)e->nsites);
    int st = team(e, nt, "exchange round");
    if (st < 0)
        return st;
    if (!w->sums && !(w->sums = malloc((size_t)G * LATMC_ENS_LANES * 2 * sizeof *w->sums)))
        return ENS_FAIL(e, LATMC_ENOMEM, "exchange round: cannot allocate the lanes' sums");
    int64_t *sums = w->sums;
    if (w->dev) {
        struct latmc_ens_lanes_job job = job_of(e, LATMC_ENS_LANES_SUMS);
        job.sums = sums;
        if ((st = w->dev(e->members, e->n_members, &job)) < 0) {
            return ENS_FAIL(e, st, "exchange round: the member lanes' sums on the %s device: "
                            "%s", e->members[0]->ops->name, latmc_last_error());
        }
    } else {
        /* by the vectors of groups the sweeps ran (their kept words), on the team */
        int per = 1;
        const lanes_op simd = use_reference() ? NULL : simd_op(e, &per);
        const int chunks = (G + per - 1) / per;
        const int nc = nt < chunks ? nt : chunks;
        if (nc <= 1) /* a serial loop never enters the construct (lib/ens_exec.c says why) */
            for (int c = 0; c < chunks; c++)
                chunk_sums(e, w, simd, c, c * per, chunk_end(c, per, G), sums);
        else {
            LANES_OMP(parallel for num_threads(nc) schedule(dynamic, 1))
            for (int c = 0; c < chunks; c++)
                chunk_sums(e, w, simd, c, c * per, chunk_end(c, per, G), sums);
        }
    }
    /* the energies by the Ising observable's own formula, without a call a member; where
     * the members' parameters but beta are alike (a lagging map: swap_ready checked), with
     * member 0's J and h (4096 members' sims are as many cache misses a round) */
    const latmc_sim *m0 = e->members[0];
    for (int m = 0; m < e->n_members && st == LATMC_OK; m++) {
        const int64_t *b = sums + (size_t)(m / LATMC_ENS_LANES) * LATMC_ENS_LANES * 2;
        const struct latmc_ising_sums one = { b[m % LATMC_ENS_LANES],
                                              b[LATMC_ENS_LANES + m % LATMC_ENS_LANES] };
        latmc_sim *sim = e->members[m];
        const latmc_sim *p = e->map_lagging ? m0 : sim;
        if (key == LATMC_OBS_ENERGY)
            values[m] = latmc_ising_energy_per_site(p->param[LATMC_PARAM_J],
                                                    p->param[LATMC_PARAM_H], one.bonds,
                                                    one.spins, (double)e->nsites);
        else
            st = sim->model->observable(sim, &one, key, &values[m]);
    }
    if (st < 0)
        return ENS_FAIL(e, st, "exchange round: an observable: %s", latmc_thread_error());
    return LATMC_OK;
}

/* n sweeps of group g by the bit-sliced form (lib/ens_lanes_sliced.h): the reference's
 * words from class masks and threshold planes instead of a loop over lanes. */
static void run_group_sliced(const latmc_ens *e, const lanes_state *s,
                             const struct latmc_ens_lanes_group *grp, int g, uint64_t n,
                             uint64_t *changed)
{
    struct latmc_ens_lanes_classes cls;
    latmc_ens_lanes_classes_make(&cls, grp->tables, grp->active, e->desc.algorithm,
                                 e->desc.ndim);
    const int64_t half = s->geom.nsites / 2;
    for (uint64_t k = 0; k < n; k++)
        for (int c = 0; c < 2; c++) {
            const struct latmc_rng_name name = latmc_ens_lanes_name(e->sweeps + k, c);
            for (int64_t j = 0; j < half; j++) {
                int planes = 0;
                uint32_t ch = latmc_ens_lanes_update_site_sliced(
                    &s->geom, grp, &cls, e->layout.seed, name, (uint64_t)g,
                    latmc_checkerboard_site(&s->geom, c, j), &planes);
                for (; ch; ch &= ch - 1)
                    changed[__builtin_ctz(ch)]++;
            }
        }
}

/* LATMC_ENS_LANES=reference in the environment: the per-lane reference instead (the
 * tests compare both; the chain is the same). */
static bool use_reference(void)
{
    const char *v = getenv("LATMC_ENS_LANES");
    return v && strcmp(v, "reference") == 0;
}

static void run_group(const latmc_ens *e, const lanes_state *s, int g, uint64_t n,
                      bool reference)
{
    const struct latmc_ens_lanes_group grp = group_of(e, s, g);
    uint64_t *changed = s->changed + (size_t)g * LATMC_ENS_LANES;
    if (!reference) {
        run_group_sliced(e, s, &grp, g, n, changed);
        return;
    }
    for (uint64_t k = 0; k < n; k++)
        (void)latmc_ens_lanes_sweep_group(&s->geom, &grp, e->desc.algorithm, e->layout.seed,
                                          e->sweeps + k, (uint64_t)g, changed);
}

/* n sweeps of groups g0 .. g1 - 1 (vector c): the CPU backend's vectors of groups (its
 * ens_lanes, backends/cpu/ising/ising_lanes.c, at the members' SIMD level, on the words it
 * keeps in s->keeps[c]) as far as they go, the rest here one by one. The same words either
 * way (test_ens_lanes compares the levels). */
static void run_chunk(latmc_ens *e, const lanes_state *s, lanes_op simd, int c, int g0,
                      int g1, uint64_t n, bool reference)
{
    int done = 0;
    if (simd) {
        struct latmc_ens_lanes_job job = vector_job(e, s, LATMC_ENS_LANES_SWEEPS, c, g0, g1);
        job.sweep0 = e->sweeps;
        job.n_sweeps = n;
        job.spin = s->spin;
        job.tables = s->tables;
        job.changed = s->changed;
        done = simd(e->members, e->n_members, &job);
        done = done < 0 ? 0 : done;
        if (done < g1 - g0) /* the words written here: the kept spins are behind them */
            s->keeps[c].spin_gen = 0;
    }
    for (int g = g0 + done; g < g1; g++)
        run_group(e, s, g, n, reference);
}

/* The end of vector c of `per` groups among G. */
static int chunk_end(int c, int per, int G)
{
    return (c + 1) * per < G ? (c + 1) * per : G;
}

/* The CPU backend's kept words of every vector of `per` groups (`chunks` of them), made
 * before any sweep so that a failure leaves the chain as it was. */
static int keeps_ready(latmc_ens *e, lanes_state *w, lanes_op simd, int per, int chunks)
{
    if (w->n_keeps != chunks) {
        struct latmc_ens_lanes_keep *k = calloc((size_t)chunks, sizeof *k);
        if (!k)
            return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the member "
                            "lanes' %d vectors of groups", chunks);
        for (int c = 0; c < w->n_keeps; c++)
            free(w->keeps[c].mem);
        free(w->keeps);
        w->keeps = k;
        w->n_keeps = chunks;
    }
    for (int c = 0; c < chunks; c++) {
        struct latmc_ens_lanes_job job = job_of(e, LATMC_ENS_LANES_KEEP);
        job.group0 = c * per;
        job.groups = chunk_end(c, per, w->groups);
        job.bond = w->bond;
        job.keep = &w->keeps[c];
        const int st = simd(e->members, e->n_members, &job);
        if (st < 0)
            return ENS_FAIL(e, st, "latmc_ens_sweep: the member lanes' vectors of groups: %s",
                            latmc_last_error());
    }
    return LATMC_OK;
}

static lanes_op simd_op(latmc_ens *e, int *per)
{
    lanes_op simd = LATMC_BACKEND_OP(e->members[0]->ops, ens_lanes);
    *per = 1;
    if (simd) {
        struct latmc_ens_lanes_job ask = job_of(e, LATMC_ENS_LANES_ASK);
        const int width = simd(e->members, e->n_members, &ask);
        *per = width > 1 ? width : 1;
        simd = width > 1 ? simd : NULL;
    }
    return simd;
}

/* n sweeps of every group on the ensemble's threads. */
static int run_groups(latmc_ens *e, lanes_state *w, uint64_t n, bool reference)
{
    /* the CPU backend's vectors of groups: its width (ASK), a thread's turn one vector */
    int per = 1;
    lanes_op simd = reference ? NULL : simd_op(e, &per);
    const int G = w->groups;
    const int chunks = (G + per - 1) / per;
    int nt = group_threads(e, w, (double)e->n_members * (double)e->nsites * (double)n);
    nt = nt > chunks ? chunks : nt;
    int st = team(e, nt, "latmc_ens_sweep");
    if (st < 0 || (simd && (st = keeps_ready(e, w, simd, per, chunks)) < 0))
        return st;
    if (nt == 1)
        for (int c = 0; c < chunks; c++)
            run_chunk(e, w, simd, c, c * per, chunk_end(c, per, G), n, reference);
    else {
        LANES_OMP(parallel for num_threads(nt) schedule(dynamic, 1))
        for (int c = 0; c < chunks; c++)
            run_chunk(e, w, simd, c, c * per, chunk_end(c, per, G), n, reference);
    }
    return LATMC_OK;
}

void latmc_ens_lanes_params_changed(latmc_ens *e, int m)
{
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (!w) /* the first call copies them all */
        return;
    if (m < 0) {
        w->all_dirty = true;
    } else {
        w->dirty[m] = 1;
        w->any_dirty = true;
    }
}

/* The tables of the members whose parameters changed into the words' (all at the first
 * call); a new generation where any was copied. */
static void tables_update(latmc_ens *e, struct latmc_ens_lanes_words *w)
{
    if (!w->all_dirty && !w->any_dirty)
        return;
    for (int m = 0; m < e->n_members; m++)
        if (w->all_dirty || w->dirty[m]) {
            memcpy(&w->tables[m], e->members[m]->model_data, sizeof w->tables[m]);
            w->dirty[m] = 0;
        }
    w->all_dirty = w->any_dirty = false;
    e->lanes_tables_gen++;
}

bool latmc_ens_lanes_swap_ready(latmc_ens *e)
{
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (!w || !w->current || w->lost)
        return false;
    if (e->map_lagging) /* checked when it began: every setter of a parameter syncs first */
        return true;
    for (int m = 1; m < e->n_members; m++)
        if (!latmc_ens_params_alike(e->members[0], e->members[m], e->ladder_key))
            return false;
    tables_update(e, w); /* the words' tables the members' own before they lag */
    return true;
}

void latmc_ens_lanes_swap_tables(latmc_ens *e, int a, int b)
{
    struct latmc_ens_lanes_words *w = e->lanes_words;
    const struct latmc_ising_tables t = w->tables[a];
    w->tables[a] = w->tables[b];
    w->tables[b] = t;
    e->lanes_tables_gen++;
}

/* The words made (their placement and the chain's bounds checked once: neither changes
 * during an ensemble's life, whose members, sizes and devices are fixed) and holding the
 * members' configurations. */
static int lanes_ready(latmc_ens *e)
{
    int st = LATMC_OK;
    if (!e->lanes_words) {
        if ((st = latmc_ens_lanes_check(e, "latmc_ens_sweep")) < 0)
            return latmc_ens_record_failure(e, st);
        if ((st = lanes_alloc(e)) < 0)
            return st;
    }
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (w->lost)
        return lanes_lost(e, "latmc_ens_sweep");
    return w->current ? LATMC_OK : pack(e, w);
}

int latmc_ens_lanes_temper_ready(latmc_ens *e)
{
    return device_op(e) ? lanes_ready(e) : LATMC_EUNSUPPORTED;
}

int latmc_ens_lanes_temper(latmc_ens *e, struct latmc_ens_temper *temper)
{
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (!w || !w->dev)
        return latmc_fail(LATMC_EUNSUPPORTED, "the member lanes run no rounds on a device");
    if (w->lost)
        return lanes_lost(e, "ensemble");
    const bool load = temper->what == LATMC_ENS_TEMPER_LOAD;
    struct latmc_ens_lanes_job job = job_of(e, load ? LATMC_ENS_LANES_TEMPER_LOAD
                                                    : LATMC_ENS_LANES_TEMPER_FETCH);
    job.temper = temper;
    struct latmc_ising_tables *temp = NULL;
    if (load) {
        /* each temperature's tables: those of the member there, which every member there
         * has (the members' parameters but beta alike: the caller checked), so that a
         * round gives a moved member's lanes the tables set_param would */
        const int nT = e->layout.n_temperatures;
        tables_update(e, w);
        if (!(temp = malloc((size_t)nT * sizeof *temp)))
            return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the tables of "
                            "%d temperatures", nT);
        for (int t = 0; t < nT; t++)
            temp[t] = w->tables[temper->member_at[ens_slot_index(e, 0, t, 0)]];
        for (int m = 0; m < e->n_members; m++)
            if (memcmp(&w->tables[m], &temp[temper->temp_of[m]], sizeof *temp)) {
                free(temp);
                return latmc_fail(LATMC_EUNSUPPORTED, "member %d's tables are not its "
                                  "temperature's", m);
            }
        job.temp_tables = temp;
    }
    const int st = w->dev(e->members, e->n_members, &job);
    free(temp);
    return st;
}

int latmc_ens_lanes_sweeps(latmc_ens *e, uint64_t n, uint64_t *counts,
                           const struct latmc_batch_rounds *rounds)
{
    int st = lanes_ready(e);
    if (st < 0)
        return st;
    struct latmc_ens_lanes_words *w = e->lanes_words;
    if (rounds && !w->dev)
        return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_sweep: the member lanes' rounds run on a "
                        "device only");
    const int64_t N = e->nsites;
    /* a member's parameters changed while the map lags (no path does: each syncs first):
     * the members to the map, so that the tables copied are the chain's */
    if (e->map_lagging && (w->all_dirty || w->any_dirty) && (st = latmc_ens_sync_map(e)) < 0)
        return st;
    tables_update(e, w);
    memset(w->changed, 0, (size_t)w->groups * LATMC_ENS_LANES * sizeof *w->changed);
    const bool reference = use_reference();
    if (w->dev) { /* the backend's kernel: the same words (the reference is the CPU's) */
        struct latmc_ens_lanes_job job = job_of(e, LATMC_ENS_LANES_SWEEPS);
        job.sweep0 = e->sweeps;
        job.n_sweeps = n;
        job.tables = w->tables;
        job.tables_gen = e->lanes_tables_gen;
        job.changed = w->changed;
        if (rounds) {
            job.every = rounds->every;
            job.round0 = rounds->round;
        }
        if ((st = w->dev(e->members, e->n_members, &job)) < 0) {
            w->lost = w->stale = true; /* the next flush and sweep refuse (lanes_lost) */
            return ENS_FAIL(e, st, "latmc_ens_sweep: the member lanes on the %s device: %s",
                            e->members[0]->ops->name, latmc_last_error());
        }
    } else if ((st = run_groups(e, w, n, reference)) < 0)
        return st;
    w->stale = true;
    /* the reference keeps nothing between calls: every member written back, the rounds
     * measured on the members (the tests compare both ways); the counts follow only where
     * that succeeded, as a failed call counts nothing */
    if (reference && (st = latmc_ens_lanes_drop(e)) < 0)
        return st;
    /* latmc_sim_sweep's bookkeeping (the configurations follow at the next flush): into
     * the ensemble's pending counts (lib/ens_exec.c: a call touches no member sim), or the
     * members' own */
    const int M = e->n_members;
    for (int m = 0; counts && m < M; m++) {
        counts[m] += w->changed[m];
        counts[M + m] += n * (uint64_t)N;
    }
    for (int m = 0; !counts && m < M; m++) {
        latmc_sim *sim = e->members[m];
        sim->sweeps += n;
        sim->accepted += w->changed[m];
        sim->attempted += n * (uint64_t)N;
        sim->sums_valid = false;
        sim->modes_valid = false;
    }
    return LATMC_OK;
}
