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
    bool have_stats;     /* a cluster sweep filled `last` */
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

int latmc_cluster_last_stats(const latmc_sim *sim, struct latmc_cluster_stats *out)
{
    const struct latmc_cluster_work *w = sim->cluster;
    if (!w || !w->have_stats) {
        memset(out, 0, sizeof *out);
        return latmc_fail(LATMC_ESTATE, "the sim has made no cluster sweep yet");
    }
    *out = w->last;
    return LATMC_OK;
}

bool latmc_cluster_observable_key(int key)
{
    return key == LATMC_OBS_CLUSTERS || key == LATMC_OBS_LARGEST_CLUSTER ||
           key == LATMC_OBS_CLUSTER_M2;
}

int latmc_cluster_observable(const latmc_sim *sim, int key, double *value)
{
    const char *name = latmc_observable_name(key);
    if (!latmc_cluster_algorithm(sim->desc.algorithm))
        return latmc_fail(LATMC_EUNSUPPORTED, "observable %s: only the cluster algorithms "
                          "(Swendsen-Wang, Wolff) build clusters; this sim runs %s", name,
                          latmc_algorithm_name(sim->desc.algorithm));
    const struct latmc_cluster_work *w = sim->cluster;
    if (!w || !w->have_stats)
        return latmc_fail(LATMC_ESTATE, "observable %s: no cluster sweep yet (it describes "
                          "the clusters of the last sweep)", name);
    const double n = (double)sim->nsites;
    switch (key) {
    case LATMC_OBS_CLUSTERS:
        *value = (double)w->last.clusters;
        break;
    case LATMC_OBS_LARGEST_CLUSTER:
        *value = (double)w->last.largest / n;
        break;
    default: /* LATMC_OBS_CLUSTER_M2 */
        *value = sim->desc.algorithm == LATMC_ALGO_WOLFF ? w->last.size2_sum / n
                                                        : w->last.size2_sum / (n * n);
        break;
    }
    return LATMC_OK;
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

/* The same for the bonds of one row: "same state" flipped where K eps < 0 (Ising). */
static inline int can_bond(const struct cluster_job *job, const uint8_t *s, int64_t i,
                           int64_t j, int mu, int flip)
{
    int same = s[i] == s[j];
    if (job->eps) /* the same branch for every site */
        same ^= job->eps[(int64_t)job->g.ndim * i + mu] < 0;
    return same ^ flip;
}

/*
 * The draws of the BATCH blocks blk[k] of phase `phase` of the sweep (lib/cluster_bonds.h)
 * into out[4 k + lane]: latmc_rng_block's numbers, computed together so that the rounds
 * of independent blocks overlap (one block's ten rounds are one long chain of dependent
 * multiplications; the compiler also vectorises these loops).
 */
enum { BATCH = 8 };
static void cluster_batch(uint64_t seed, uint64_t sweep, uint32_t phase, const uint64_t *blk,
                          uint32_t *out)
{
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_CLUSTER, 0);
    const latmc_philox_key key = latmc_rng_key(seed);
    uint32_t x0[BATCH], x1[BATCH], x2[BATCH], x3[BATCH];
    for (int k = 0; k < BATCH; k++) {
        const latmc_philox_ctr c = latmc_rng_counter(blk[k], sweep, stream, phase, 0);
        x0[k] = c.v[0], x1[k] = c.v[1], x2[k] = c.v[2], x3[k] = c.v[3];
    }
    uint32_t key0 = key.v[0], key1 = key.v[1];
    for (int round = 0; round < 10; round++) {
        for (int k = 0; k < BATCH; k++) {
            const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * x0[k];
            const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * x2[k];
            const uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1[k] ^ key0;
            const uint32_t y2 = (uint32_t)(p0 >> 32) ^ x3[k] ^ key1;
            x1[k] = (uint32_t)p1;
            x3[k] = (uint32_t)p0;
            x0[k] = y0;
            x2[k] = y2;
        }
        key0 += LATMC_PHILOX_W0;
        key1 += LATMC_PHILOX_W1;
    }
    for (int k = 0; k < BATCH; k++) {
        out[4 * k] = x0[k], out[4 * k + 1] = x1[k], out[4 * k + 2] = x2[k];
        out[4 * k + 3] = x3[k];
    }
}

/* The draws of blocks b0 .. b0 + n - 1 into out[4 (b - b0) + lane] (room for n rounded
 * up to a multiple of BATCH blocks). */
static void cluster_blocks(uint64_t seed, uint64_t sweep, uint32_t phase, uint64_t b0, int64_t n,
                           uint32_t *out)
{
    for (int64_t k0 = 0; k0 < n; k0 += BATCH) {
        uint64_t blk[BATCH];
        for (int k = 0; k < BATCH; k++)
            blk[k] = b0 + (uint64_t)(k0 + k);
        cluster_batch(seed, sweep, phase, blk, out + 4 * k0);
    }
}

/* The bonds of sites [i0, i1) of sweep `sweep`, i0 and i1 at the start of rows, from the
 * draws of lib/cluster_bonds.h (a row's blocks computed together). */
static int draw_bonds(const struct cluster_job *job, uint64_t sweep, const uint8_t *s,
                      uint8_t *bonds, int64_t i0, int64_t i1)
{
    const int nd = job->g.ndim;
    const int64_t lx = job->g.l[0], ly = job->g.l[1], lz = job->g.l[2];
    if (job->bond_threshold == 0) { /* K = 0: no bond */
        memset(bonds + i0, 0, (size_t)(i1 - i0));
        return LATMC_OK;
    }
    const int flip = !job->potts && job->sign_k < 0;
    const int64_t row_blocks = (lx * nd + 3) / 4 + 1; /* a row's draws span at most these */
    uint32_t *draws = malloc((size_t)(row_blocks + BATCH) * 4 * sizeof *draws);
    if (!draws)
        return LATMC_ENOMEM;
    for (int64_t row = i0 / lx; row < i1 / lx; row++) {
        const int64_t y = row % ly, z = row / ly, base = row * lx;
        const int64_t up_y = y + 1 == ly ? -(ly - 1) * lx : lx;
        const int64_t up_z = nd == 3 ? (z + 1 == lz ? -(lz - 1) * lx * ly : lx * ly) : 0;
        const uint64_t d0 = (uint64_t)base * (uint64_t)nd, b0 = d0 >> 2;
        const uint64_t b1 = ((uint64_t)(base + lx) * (uint64_t)nd + 3) >> 2;
        cluster_blocks(job->seed, sweep, LATMC_CLUSTER_PHASE_BONDS, b0, (int64_t)(b1 - b0),
                       draws);
        const uint32_t *u = draws + (d0 - 4 * b0); /* u[d - d0]: draw d */
        /* without branches on the spins or the draws: they are unpredictable */
        for (int64_t x = 0; x < lx; x++) {
            const int64_t i = base + x;
            const int64_t j[3] = { x + 1 == lx ? base : i + 1, i + up_y, i + up_z };
            unsigned b = 0;
            for (int mu = 0; mu < nd; mu++) {
                const unsigned on = (unsigned)can_bond(job, s, i, j[mu], mu, flip) &
                                    (unsigned)((uint64_t)u[x * nd + mu] < job->bond_threshold);
                b |= on << mu;
            }
            bonds[i] = (uint8_t)b;
        }
    }
    free(draws);
    return LATMC_OK;
}

/* ---- decisions ---- */

/* The threshold below which Ising keeps a cluster of magnetisation m (heat bath on the
 * field energy; 2^31 without a field). */
static uint64_t keep_threshold(const struct cluster_job *job, int64_t m)
{
    if (job->beta_h == 0.0)
        return UINT64_C(1) << 31;
    return latmc_threshold_u32(1.0 / (1.0 + exp(-2.0 * job->beta_h * (double)m)));
}

/* The decision of the cluster named r from its draw u: Ising 1 keep, 0 flip; Potts the
 * new colour. size: its sites, m: its magnetisation (Ising), old: its colour (Potts). */
static uint8_t decide(const struct cluster_job *job, uint32_t u, int64_t size, int64_t m,
                      int old)
{
    if (!job->potts) {
        if (job->wolff && job->beta_h == 0.0)
            return 0;
        return (uint8_t)latmc_cluster_ising_keep(u, keep_threshold(job, m));
    }
    if (job->beta_h == 0.0)
        return (uint8_t)(job->wolff ? latmc_cluster_potts_other(u, old, job->q)
                                    : latmc_cluster_potts_uniform(u, job->q));
    const double p0 = 1.0 / (1.0 + (double)(job->q - 1) * exp(-job->beta_h * (double)size));
    return (uint8_t)latmc_cluster_potts_colour(u, latmc_threshold_u32(p0), job->q);
}

/* The decision of the one cluster named r (Wolff). */
static uint8_t decide_one(const struct cluster_job *job, uint64_t sweep, int64_t r, int64_t size,
                          int64_t m, int old)
{
    return decide(job, latmc_cluster_decide_draw(job->seed, sweep, r), size, m, old);
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

static int sw_sweep(const struct cluster_job *job, struct latmc_cluster_work *w,
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
    int failed = 0;
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1) reduction(|:failed))
    for (int u = 0; u < U; u++) {
        if (draw_bonds(job, sweep, s, bonds, job->unit_p[u] * P, job->unit_p[u + 1] * P) < 0)
            failed = 1;
        else
            latmc_cluster_label_box(g, bonds, parent, job->unit_p[u], job->unit_p[u + 1]);
    }
    if (failed)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster "
                          "update's draws");
    /* (2b) the faces above each unit, in turn */
    for (int u = 0; u < U; u++)
        latmc_cluster_merge_face(g, bonds, parent, job->unit_p[u + 1] - 1);
    /* (2c) names */
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1))
    for (int u = 0; u < U; u++)
        latmc_cluster_resolve(parent, name, job->unit_p[u] * P, job->unit_p[u + 1] * P);
    /* sizes (and magnetisations) at the names, for the decisions in a field and the
     * statistics: parent is free now. Zeroed box by box; counted in one pass in site
     * order (a site's name may lie in another box). */
    int64_t *msum = w->msum;
    {
        CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1))
        for (int u = 0; u < U; u++)
            for (int64_t i = job->unit_p[u] * P; i < job->unit_p[u + 1] * P; i++)
                if (name[i] == (uint32_t)i) {
                    parent[i] = 0;
                    if (msum)
                        msum[i] = 0;
                }
        if (msum)
            for (int64_t i = 0; i < N; i++) {
                parent[name[i]]++;
                msum[name[i]] += (int8_t)s[i];
            }
        else
            for (int64_t i = 0; i < N; i++)
                parent[name[i]]++;
    }
    /* (3) each cluster's decision at its name, into bonds (free now): the names' draws
     * BATCH at a time. The statistics are integers (sum |C|^2 <= N^2 < 2^64): the same
     * for any cut. */
    int64_t clusters = 0, largest = 0;
    uint64_t size2 = 0;
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1) \
                reduction(+:clusters, size2) reduction(max:largest))
    for (int u = 0; u < U; u++) {
        uint64_t blk[BATCH];
        int64_t root[BATCH];
        uint32_t draw[4 * BATCH];
        int k = 0;
        const int64_t i1 = job->unit_p[u + 1] * P;
        for (int64_t i = job->unit_p[u] * P; i < i1 || k > 0; i++) {
            if (i < i1 && name[i] == (uint32_t)i) {
                root[k] = i;
                blk[k++] = (uint64_t)i >> 2;
                clusters++;
                const int64_t size = parent[i];
                largest = size > largest ? size : largest;
                size2 += (uint64_t)size * (uint64_t)size;
            }
            if (k == BATCH || (k > 0 && i + 1 >= i1)) {
                for (int j = k; j < BATCH; j++)
                    blk[j] = blk[0];
                cluster_batch(job->seed, sweep, LATMC_CLUSTER_PHASE_DECIDE, blk, draw);
                for (int j = 0; j < k; j++) {
                    const int64_t r = root[j];
                    bonds[r] = decide(job, draw[4 * j + (r & 3)], parent[r],
                                      msum ? msum[r] : 0, s[r]);
                }
                k = 0;
            }
        }
    }
    w->last.clusters = clusters;
    w->last.largest = largest;
    w->last.size2_sum = (double)size2;
    w->have_stats = true;
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
    return LATMC_OK;
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
        colour = decide_one(job, sweep, smallest, n, 0, old);
    else
        keep = decide_one(job, sweep, smallest, n, m, old);
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
    w->have_stats = true;
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
            st = sw_sweep(&job, w, sweep, accepted);
            *attempted += (uint64_t)sim->nsites;
        }
    }
    if (st == LATMC_OK)
        st = sim->ops->set_spins(sim, w->spins);
    free(job.unit_p);
    return st;
}
