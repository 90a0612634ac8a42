/*
 * The ensemble chain of member lanes (ensemble parameter decisions = 2, doc/ensembles.md,
 * "Member lanes"): whether an ensemble can run it, and its sweeps on the CPU.
 *
 * A call packs the members' configurations (and +-J couplings) into one word per site
 * and group of 32 members, runs its sweeps group by group with the reference of
 * lib/ens_lanes_rules.h on the ensemble's OpenMP threads (a group's n sweeps depend on
 * nothing outside the group, so any thread count and schedule gives the same words), and
 * writes each member's configuration back with its counters advanced as latmc_sim_sweep
 * would (sweeps, accepted = spins changed, attempted = sites): between calls the members
 * are ordinary sims, so the exchange rounds, observables, overlaps, spins and files read
 * them unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ens_internal.h"
#include "ens_lanes_rules.h"
#include "ens_lanes_sliced.h"
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

int latmc_ens_lanes_check(const latmc_ens *e, const char *fn)
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
    if (m0->ops != &latmc_cpu_backend_ops)
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: decisions = 2 (member lanes) runs on the CPU "
                          "backend only in this version; the members are on the %s backend",
                          fn, m0->ops->name);
    const uint64_t groups = ((uint64_t)e->n_members + LATMC_ENS_LANES - 1) / LATMC_ENS_LANES;
    if ((double)groups * (double)e->nsites > (double)LATMC_RNG_MAX_BLOCK)
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: decisions = 2 (member lanes): %llu groups "
                          "of %lld sites name more blocks than the counter holds (2^48)", fn,
                          (unsigned long long)groups, (long long)e->nsites);
    return LATMC_OK;
}

/* The packed state of one call. */
struct lanes_state {
    struct latmc_lattice geom;
    int groups;
    uint32_t *spin;                        /* groups x N */
    uint32_t *bond;                        /* groups x ndim N, or NULL */
    struct latmc_ising_tables *tables;     /* groups x 32 (absent lanes zero) */
    uint64_t *changed;                     /* groups x 32 */
};

static void lanes_free(struct lanes_state *s)
{
    free(s->spin);
    free(s->bond);
    free(s->tables);
    free(s->changed);
}

/* The members' spins, couplings and tables into the words. */
static int pack(latmc_ens *e, struct lanes_state *s, int8_t *spins, float *eps)
{
    const int64_t N = e->nsites;
    const int nd = e->desc.ndim;
    for (int m = 0; m < e->n_members; m++) {
        latmc_sim *sim = e->members[m];
        const size_t g = (size_t)(m / LATMC_ENS_LANES);
        const uint32_t bit = 1u << (m % LATMC_ENS_LANES);
        int st = latmc_sim_get_spins(sim, spins, (size_t)N);
        if (st < 0)
            return ENS_FAIL(e, st, "latmc_ens_sweep: member %d's spins: %s", m,
                            latmc_sim_last_error(sim));
        uint32_t *w = s->spin + g * (size_t)N;
        for (int64_t i = 0; i < N; i++)
            w[i] |= spins[i] < 0 ? bit : 0u;
        if (s->bond) {
            if ((st = latmc_sim_get_couplings(sim, eps, (size_t)N * (size_t)nd)) < 0)
                return ENS_FAIL(e, st, "latmc_ens_sweep: member %d's couplings: %s", m,
                                latmc_sim_last_error(sim));
            uint32_t *b = s->bond + g * (size_t)N * (size_t)nd;
            for (int64_t i = 0; i < N * nd; i++)
                b[i] |= eps[i] < 0.0f ? bit : 0u;
        }
        memcpy(&s->tables[m], sim->model_data, sizeof s->tables[m]);
    }
    return LATMC_OK;
}

/* The words back into the members, with latmc_sim_sweep's bookkeeping of n sweeps. */
static int unpack(latmc_ens *e, const struct lanes_state *s, uint64_t n, int8_t *spins)
{
    const int64_t N = e->nsites;
    for (int m = 0; m < e->n_members; m++) {
        latmc_sim *sim = e->members[m];
        const uint32_t *w = s->spin + (size_t)(m / LATMC_ENS_LANES) * (size_t)N;
        const int l = m % LATMC_ENS_LANES;
        for (int64_t i = 0; i < N; i++)
            spins[i] = (int8_t)latmc_ens_lanes_spin(w[i], l);
        const uint64_t accepted = sim->accepted, attempted = sim->attempted;
        const int st = latmc_sim_set_spins(sim, spins, (size_t)N); /* empties the counters */
        if (st < 0)
            return ENS_FAIL(e, st, "latmc_ens_sweep: member %d's spins: %s", m,
                            latmc_sim_last_error(sim));
        sim->sweeps += n;
        sim->accepted = accepted + s->changed[m];
        sim->attempted = attempted + n * (uint64_t)N;
    }
    return LATMC_OK;
}

/* n sweeps of group g by the bit-sliced form (lib/ens_lanes_sliced.h): the reference's
 * words from class masks and threshold planes instead of a loop over lanes. */
static void run_group_sliced(const latmc_ens *e, const struct lanes_state *s,
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

static void run_group(const latmc_ens *e, const struct lanes_state *s, int g, uint64_t n,
                      bool reference)
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
    uint64_t *changed = s->changed + (size_t)g * LATMC_ENS_LANES;
    if (!reference) {
        run_group_sliced(e, s, &grp, g, n, changed);
        return;
    }
    for (uint64_t k = 0; k < n; k++)
        (void)latmc_ens_lanes_sweep_group(&s->geom, &grp, e->desc.algorithm, e->layout.seed,
                                          e->sweeps + k, (uint64_t)g, changed);
}

int latmc_ens_lanes_sweeps(latmc_ens *e, uint64_t n)
{
    int st = latmc_ens_lanes_check(e, "latmc_ens_sweep");
    if (st < 0)
        return latmc_ens_record_failure(e, st);
    const int64_t N = e->nsites;
    const int nd = e->desc.ndim;
    const bool coupled = e->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    struct lanes_state s = { 0 };
    s.geom.ndim = nd;
    s.geom.lx = e->desc.extent[0];
    s.geom.ly = e->desc.extent[1];
    s.geom.lz = nd == 3 ? e->desc.extent[2] : 1;
    s.geom.nsites = N;
    s.groups = (e->n_members + LATMC_ENS_LANES - 1) / LATMC_ENS_LANES;
    const size_t lanes = (size_t)s.groups * LATMC_ENS_LANES;
    s.spin = calloc((size_t)s.groups * (size_t)N, sizeof *s.spin);
    s.bond = coupled ? calloc((size_t)s.groups * (size_t)N * (size_t)nd, sizeof *s.bond) : NULL;
    s.tables = calloc(lanes, sizeof *s.tables);
    s.changed = calloc(lanes, sizeof *s.changed);
    int8_t *spins = malloc((size_t)N);
    float *eps = coupled ? malloc((size_t)N * (size_t)nd * sizeof *eps) : NULL;
    if (!s.spin || (coupled && (!s.bond || !eps)) || !s.tables || !s.changed || !spins) {
        st = ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_sweep: cannot allocate the words of %d "
                      "groups of %lld sites", s.groups, (long long)N);
        goto out;
    }
    if ((st = pack(e, &s, spins, eps)) < 0)
        goto out;
    const double items = (double)e->n_members * (double)N * (double)n;
    int nt = items < LANES_OMP_MIN_ITEMS ? 1 : e->layout.n_threads;
    if (nt > s.groups)
        nt = s.groups;
    if (nt > 1 && (st = latmc_team_ready(nt)) < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        st = ENS_FAIL(e, st, "latmc_ens_sweep: the team over member groups: %s", why);
        goto out;
    }
    const bool reference = use_reference();
    if (nt == 1)
        for (int g = 0; g < s.groups; g++)
            run_group(e, &s, g, n, reference);
    else {
        const int G = s.groups;
        LANES_OMP(parallel for num_threads(nt) schedule(dynamic, 1))
        for (int g = 0; g < G; g++)
            run_group(e, &s, g, n, reference);
    }
    st = unpack(e, &s, n, spins);
out:
    free(spins);
    free(eps);
    lanes_free(&s);
    return st;
}
