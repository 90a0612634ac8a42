/*
 * Cluster sweeps of Ising and Potts sims (lib/cluster_sweep.h, doc/clusters.md).
 *
 * One latmc_sim_sweep call copies the configuration out of the backend once, runs its n
 * sweeps on the host copy and copies it back. A Swendsen-Wang sweep: (1) every bond's
 * activation from its draw (lib/cluster_bonds.h); (2) the clusters labelled box by box
 * and merged across the boxes' faces (lib/cluster_label.h), every cluster named by its
 * smallest site; (3) each cluster's new state drawn at its name; (4) every site takes its
 * cluster's state. The boxes are the plan's slabs, each cut further into one piece per
 * thread; none of that shows in the result. A Wolff sweep grows the one cluster of a
 * drawn seed site over the same bonds and updates it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#  include <omp.h>
#endif

#include "backend.h"
#include "cluster_bonds.h"
#include "cluster_label.h"
#include "cluster_sweep.h"
#include "decision.h"
#include "model.h"
#include "plan.h"

#ifdef _OPENMP
#  define CLUSTER_PRAGMA_(x) _Pragma(#x)
#  define CLUSTER_OMP(x) CLUSTER_PRAGMA_(omp x)
#else
#  define CLUSTER_OMP(x)
#endif

/* Below this many sites one thread is quicker than waking a team (speed only). */
#define CLUSTER_MIN_PARALLEL_SITES 65536

struct latmc_cluster_work {
    int64_t nsites;
    uint8_t *spins;      /* the configuration: Ising int8 +-1 as bytes, Potts states */
    uint8_t *bonds;      /* bit mu: bond (i, mu) active; then the clusters' decisions */
    uint32_t *parent;    /* union-find; then the clusters' sizes at their names */
    uint32_t *name;      /* each site's cluster name (Wolff: the cluster's sites) */
    int64_t *msum;       /* Ising with a field: the clusters' magnetisations */
    int8_t *eps;         /* Ising +-J: the couplings, ndim per site; else NULL */
    struct latmc_cluster_stats last;
};

bool latmc_cluster_algorithm(int algorithm)
{
    return algorithm == LATMC_ALGO_SWENDSEN_WANG || algorithm == LATMC_ALGO_WOLFF;
}

int latmc_cluster_check_sim(const latmc_sim *sim)
{
    const char *algo = latmc_algorithm_name(sim->desc.algorithm);
    if (sim->ops != &latmc_cpu_backend_ops)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s algorithm runs on the CPU backend only "
                          "in this version (the %s backend has no cluster labelling yet): "
                          "use desc.device = LATMC_DEVICE_CPU or AUTO", algo, sim->ops->name);
    if (sim->part)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s algorithm does not run on a lattice "
                          "shared by processes in this version (clusters are not merged "
                          "across parts yet)", algo);
    if (sim->nsites > (int64_t)UINT32_MAX)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s algorithm labels at most 2^32 - 1 "
                          "sites in this version; the lattice has %lld", algo,
                          (long long)sim->nsites);
    return LATMC_OK;
}

int latmc_cluster_check_params(const latmc_sim *sim)
{
    if (sim->desc.model == LATMC_MODEL_POTTS && sim->param[LATMC_PARAM_J] < 0.0 &&
        sim->param[LATMC_PARAM_BETA] > 0.0)
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: the %s algorithm needs J >= 0 "
                          "for the Potts model (J = %g: the antiferromagnetic Potts model has "
                          "no Fortuin-Kasteleyn clusters); use Metropolis or heat bath",
                          latmc_algorithm_name(sim->desc.algorithm), sim->param[LATMC_PARAM_J]);
    return LATMC_OK;
}

void latmc_cluster_free(latmc_sim *sim)
{
    struct latmc_cluster_work *w = sim->cluster;
    if (!w)
        return;
    free(w->spins);
    free(w->bonds);
    free(w->parent);
    free(w->name);
    free(w->msum);
    free(w->eps);
    free(w);
    sim->cluster = NULL;
}

void latmc_cluster_last_stats(const latmc_sim *sim, struct latmc_cluster_stats *out)
{
    const struct latmc_cluster_work *w = sim->cluster;
    if (w)
        *out = w->last;
    else
        memset(out, 0, sizeof *out);
}

static int work_of(latmc_sim *sim, struct latmc_cluster_work **out)
{
    struct latmc_cluster_work *w = sim->cluster;
    const size_t n = (size_t)sim->nsites;
    if (!w) {
        w = calloc(1, sizeof *w);
        if (w) {
            w->nsites = sim->nsites;
            w->spins = malloc(n);
            w->bonds = malloc(n);
            w->parent = malloc(n * sizeof *w->parent);
            w->name = malloc(n * sizeof *w->name);
        }
        if (!w || !w->spins || !w->bonds || !w->parent || !w->name) {
            sim->cluster = w;
            latmc_cluster_free(sim);
            return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster "
                              "labels of %lld sites", (long long)sim->nsites);
        }
        sim->cluster = w;
    }
    *out = w;
    return LATMC_OK;
}

/* Everything one sweep needs, read once per latmc_sim_sweep call. */
struct cluster_job {
    struct latmc_cluster_lattice g;
    uint64_t seed;
    int potts;                /* else Ising */
    int q;
    int wolff;
    int sign_k;               /* Ising: sign of beta J (0: no bonds) */
    uint64_t bond_threshold;  /* floor(p 2^32) */
    double beta_h;            /* the field's weight, beta h */
    const int8_t *eps;        /* Ising +-J couplings or NULL */
    int n_units;              /* labelling pieces: planes [unit_p[u], unit_p[u + 1]) */
    int64_t *unit_p;
    int n_threads;
};

/* ---- bonds ---- */

/* Whether bond (i, mu) to site j can be active (its ends satisfied). */
static int satisfied(const struct cluster_job *job, const uint8_t *s, int64_t i, int64_t j,
                     int mu)
{
    if (job->potts)
        return s[i] == s[j];
    const int eps = job->eps ? job->eps[(int64_t)job->g.ndim * i + mu] : 1;
    return latmc_cluster_ising_satisfied(job->sign_k, eps, (int8_t)s[i], (int8_t)s[j]);
}

/* The bonds of sites [i0, i1) of sweep `sweep`. */
static void draw_bonds(const struct cluster_job *job, uint64_t sweep, const uint8_t *s,
                       uint8_t *bonds, int64_t i0, int64_t i1)
{
    const int nd = job->g.ndim;
    uint64_t have = UINT64_MAX; /* the block in r */
    latmc_philox_ctr r = { { 0, 0, 0, 0 } };
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_CLUSTER, 0);
    for (int64_t i = i0; i < i1; i++) {
        uint8_t b = 0;
        for (int mu = 0; mu < nd; mu++) {
            const int64_t j = latmc_cluster_up(&job->g, i, mu);
            if (!satisfied(job, s, i, j, mu))
                continue;
            const uint64_t d = (uint64_t)i * (uint64_t)nd + (uint64_t)mu;
            if (d >> 2 != have) {
                have = d >> 2;
                r = latmc_rng_block(job->seed, have, sweep, stream, LATMC_CLUSTER_PHASE_BONDS, 0);
            }
            if ((uint64_t)r.v[d & 3u] < job->bond_threshold)
                b |= (uint8_t)(1u << mu);
        }
        bonds[i] = b;
    }
}

/* ---- decisions ---- */

/* Ising: keep the cluster named r of magnetisation m (1) or flip it (0). */
static int ising_keep(const struct cluster_job *job, uint64_t sweep, int64_t r, int64_t m)
{
    if (job->wolff && job->beta_h == 0.0)
        return 0;
    const uint32_t u = latmc_cluster_decide_draw(job->seed, sweep, r);
    const uint64_t t = job->beta_h == 0.0
                           ? UINT64_C(1) << 31
                           : latmc_threshold_u32(1.0 / (1.0 + exp(-2.0 * job->beta_h * (double)m)));
    return latmc_cluster_ising_keep(u, t);
}

/* Potts: the new colour of the cluster named r, of `size` sites in colour `old`. */
static int potts_colour(const struct cluster_job *job, uint64_t sweep, int64_t r, int64_t size,
                        int old)
{
    const uint32_t u = latmc_cluster_decide_draw(job->seed, sweep, r);
    if (job->beta_h == 0.0)
        return job->wolff ? latmc_cluster_potts_other(u, old, job->q)
                          : latmc_cluster_potts_uniform(u, job->q);
    const double p0 = 1.0 / (1.0 + (double)(job->q - 1) * exp(-job->beta_h * (double)size));
    return latmc_cluster_potts_colour(u, latmc_threshold_u32(p0), job->q);
}

/* ---- Swendsen-Wang ---- */

static bool threaded(const struct cluster_job *job)
{
#ifdef _OPENMP
    return job->n_threads > 1 && job->g.nsites >= CLUSTER_MIN_PARALLEL_SITES &&
           !omp_in_parallel();
#else
    (void)job;
    return false;
#endif
}

static void sw_sweep(const struct cluster_job *job, struct latmc_cluster_work *w,
                     uint64_t sweep, uint64_t *changed)
{
    const struct latmc_cluster_lattice *g = &job->g;
    const int64_t N = g->nsites, P = g->plane;
    uint8_t *s = w->spins, *bonds = w->bonds;
    uint32_t *parent = w->parent, *name = w->name;
    const int U = job->n_units;
    const int nt = threaded(job) ? job->n_threads : 1;
    (void)nt;
    /* (1) bonds and (2a) each unit's own clusters */
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1))
    for (int u = 0; u < U; u++) {
        draw_bonds(job, sweep, s, bonds, job->unit_p[u] * P, job->unit_p[u + 1] * P);
        latmc_cluster_label_box(g, bonds, parent, job->unit_p[u], job->unit_p[u + 1]);
    }
    /* (2b) the faces above each unit, in turn */
    for (int u = 0; u < U; u++)
        latmc_cluster_merge_face(g, bonds, parent, job->unit_p[u + 1] - 1);
    /* (2c) names */
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1))
    for (int u = 0; u < U; u++)
        latmc_cluster_resolve(parent, name, job->unit_p[u] * P, job->unit_p[u + 1] * P);
    /* sizes (and magnetisations) at the names: parent is free now */
    int64_t *msum = w->msum;
    for (int64_t i = 0; i < N; i++)
        if (name[i] == (uint32_t)i) {
            parent[i] = 0;
            if (msum)
                msum[i] = 0;
        }
    for (int64_t i = 0; i < N; i++) {
        parent[name[i]]++;
        if (msum)
            msum[name[i]] += (int8_t)s[i];
    }
    struct latmc_cluster_stats st = { 0, 0, 0.0 };
    /* (3) each cluster's decision at its name, into bonds (free now) */
    for (int64_t i = 0; i < N; i++) {
        if (name[i] != (uint32_t)i)
            continue;
        const int64_t size = parent[i];
        st.clusters++;
        st.largest = size > st.largest ? size : st.largest;
        st.size2_sum += (double)size * (double)size;
        bonds[i] = job->potts ? (uint8_t)potts_colour(job, sweep, i, size, s[i])
                              : (uint8_t)ising_keep(job, sweep, i, msum ? msum[i] : 0);
    }
    w->last = st;
    /* (4) every site takes its cluster's decision */
    uint64_t diff = 0;
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1) reduction(+:diff))
    for (int u = 0; u < U; u++) {
        for (int64_t i = job->unit_p[u] * P; i < job->unit_p[u + 1] * P; i++) {
            const uint8_t d = bonds[name[i]];
            const uint8_t v = job->potts ? d : d ? s[i] : (uint8_t)(-(int8_t)s[i]);
            diff += v != s[i];
            s[i] = v;
        }
    }
    *changed += diff;
}

/* ---- Wolff ---- */

/* Whether bond (i, mu) is active in sweep `sweep` (drawn on demand). */
static int bond_active(const struct cluster_job *job, uint64_t sweep, const uint8_t *s,
                       int64_t i, int64_t j, int mu)
{
    return satisfied(job, s, i, j, mu) &&
           (uint64_t)latmc_cluster_bond_draw(job->seed, sweep, job->g.ndim, i, mu) <
               job->bond_threshold;
}

static void wolff_sweep(const struct cluster_job *job, struct latmc_cluster_work *w,
                        uint64_t sweep, uint64_t *changed, uint64_t *size_out)
{
    const struct latmc_cluster_lattice *g = &job->g;
    uint8_t *s = w->spins, *mark = w->bonds;
    uint32_t *stack = w->name;
    const int64_t seed_site = latmc_cluster_seed_site(job->seed, sweep, g->nsites);
    int64_t n = 0, top = 0, smallest = seed_site, m = 0;
    stack[n++] = (uint32_t)seed_site;
    mark[seed_site] = 1;
    while (top < n) {
        const int64_t i = stack[top++];
        m += (int8_t)s[i];
        smallest = i < smallest ? i : smallest;
        for (int mu = 0; mu < g->ndim; mu++) {
            const int64_t up = latmc_cluster_up(g, i, mu), dn = latmc_cluster_down(g, i, mu);
            if (!mark[up] && bond_active(job, sweep, s, i, up, mu)) {
                mark[up] = 1;
                stack[n++] = (uint32_t)up;
            }
            if (!mark[dn] && bond_active(job, sweep, s, dn, i, mu)) {
                mark[dn] = 1;
                stack[n++] = (uint32_t)dn;
            }
        }
    }
    const uint8_t old = s[seed_site];
    uint8_t colour = old;
    int keep = 1;
    if (job->potts)
        colour = (uint8_t)potts_colour(job, sweep, smallest, n, old);
    else
        keep = ising_keep(job, sweep, smallest, m);
    uint64_t diff = 0;
    for (int64_t k = 0; k < n; k++) {
        const int64_t i = stack[k];
        const uint8_t v = job->potts ? colour : keep ? s[i] : (uint8_t)(-(int8_t)s[i]);
        diff += v != s[i];
        s[i] = v;
        mark[i] = 0;
    }
    w->last.clusters = 1;
    w->last.largest = n;
    w->last.size2_sum = (double)n;
    *changed += diff;
    *size_out += (uint64_t)n;
}

/* ---- the sweeps of one call ---- */

/* The labelling pieces: each of the plan's boxes cut into up to n_threads runs of planes. */
static int64_t *cut_units(const latmc_sim *sim, int pieces, int *n_units)
{
    const struct latmc_plan *plan = sim->plan;
    const int axis = sim->desc.ndim - 1;
    int64_t *p = malloc(((size_t)plan->n_boxes * (size_t)pieces + 1) * sizeof *p);
    if (!p)
        return NULL;
    int n = 0;
    for (int b = 0; b < plan->n_boxes; b++) {
        const int64_t b0 = plan->boxes[b].origin[axis], len = plan->boxes[b].extent[axis];
        const int k = len < pieces ? (int)len : pieces;
        for (int j = 0; j < k; j++)
            p[n++] = b0 + len * j / k;
    }
    p[n] = sim->desc.extent[axis];
    *n_units = n;
    return p;
}

static int load_couplings(latmc_sim *sim, struct latmc_cluster_work *w)
{
    const size_t count = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    float *c = malloc(count * sizeof *c);
    if (!w->eps)
        w->eps = malloc(count);
    if (!c || !w->eps) {
        free(c);
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the couplings of "
                          "the cluster update");
    }
    int st = sim->ops->get_couplings(sim, c);
    for (size_t k = 0; st == LATMC_OK && k < count; k++)
        w->eps[k] = c[k] > 0.0f ? 1 : -1;
    free(c);
    return st;
}

int latmc_cluster_sweeps(latmc_sim *sim, uint64_t n, uint64_t *accepted, uint64_t *attempted)
{
    int st = latmc_cluster_check_params(sim);
    struct latmc_cluster_work *w = NULL;
    if (st == LATMC_OK)
        st = work_of(sim, &w);
    if (st < 0)
        return st;
    struct cluster_job job;
    memset(&job, 0, sizeof job);
    job.g = latmc_cluster_lattice_of(sim->desc.ndim, sim->desc.extent);
    job.seed = sim->desc.seed;
    job.potts = sim->desc.model == LATMC_MODEL_POTTS;
    job.q = sim->desc.q;
    job.wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    job.n_threads = sim->n_threads;
    const double beta = sim->param[LATMC_PARAM_BETA], J = sim->param[LATMC_PARAM_J];
    const double K = beta * J;
    job.beta_h = beta * sim->param[LATMC_PARAM_H];
    job.sign_k = K > 0.0 ? 1 : K < 0.0 ? -1 : 0;
    job.bond_threshold = latmc_threshold_u32(job.potts ? -expm1(-K) : -expm1(-2.0 * fabs(K)));
    if (!job.potts && job.beta_h != 0.0 && !w->msum &&
        !(w->msum = malloc((size_t)sim->nsites * sizeof *w->msum)))
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the clusters' "
                          "magnetisations");
    if (!job.potts && sim->desc.couplings == LATMC_COUPLINGS_BIMODAL) {
        if ((st = load_couplings(sim, w)) < 0)
            return st;
        job.eps = w->eps;
    }
    const int pieces = threaded(&job) ? job.n_threads : 1;
    job.unit_p = cut_units(sim, pieces, &job.n_units);
    if (!job.unit_p)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster boxes");
    st = sim->ops->get_spins(sim, w->spins);
    if (st == LATMC_OK && job.wolff)
        memset(w->bonds, 0, (size_t)sim->nsites);
    for (uint64_t k = 0; st == LATMC_OK && k < n; k++) {
        const uint64_t sweep = sim->sweeps + k;
        if (job.wolff) {
            wolff_sweep(&job, w, sweep, accepted, attempted);
        } else {
            sw_sweep(&job, w, sweep, accepted);
            *attempted += (uint64_t)sim->nsites;
        }
    }
    if (st == LATMC_OK)
        st = sim->ops->set_spins(sim, w->spins);
    free(job.unit_p);
    return st;
}
