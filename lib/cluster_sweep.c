/*
 * Cluster sweeps of Ising and Potts sims (lib/cluster_sweep.h, doc/clusters.md): the
 * checks, the work space, the observables, and the sweeps of one latmc_sim_sweep call,
 * which copies the configuration out of the backend once, runs its n sweeps on the host
 * copy (cluster_sw.c, cluster_wolff.c) and copies it back.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cluster_embed.h"
#include "cluster_job.h"
#include "decision.h"
#include "model.h"
#include "part.h"
#include "plan.h"

bool latmc_cluster_algorithm(int algorithm)
{
    return algorithm == LATMC_ALGO_SWENDSEN_WANG || algorithm == LATMC_ALGO_WOLFF;
}

int latmc_cluster_check_sim(const latmc_sim *sim)
{
    const char *algo = latmc_algorithm_name(sim->desc.algorithm);
    /* Off the CPU backend, Swendsen-Wang and Wolff of Ising and Potts run as steps of the
     * plan (latmc_cluster_as_steps): on one process, and on parts of a lattice shared by
     * processes only where the backend joins clusters across the parts (ops.cluster_faces;
     * refused here otherwise); the backend refuses at create what its steps lack. The
     * embedded clusters of phi^4 and Heisenberg run on any backend that sweeps the model:
     * its local passes, then the cluster step, the backend's own where it runs it
     * (ops.embed_step), else the core's on a host copy (lib/cluster_embed_sweep.c). */
    const struct latmc_backend_ops *ops = sim->ops;
    const bool joins_parts = LATMC_BACKEND_OP(ops, cluster_faces) != NULL;
    if (ops != &latmc_cpu_backend_ops && !latmc_embed_applies(sim) && sim->part && !joins_parts)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s algorithm runs on parts on the CPU "
                          "backend only in this version (the %s backend labels the clusters "
                          "of Ising and Potts sims in one process only): use desc.device = "
                          "LATMC_DEVICE_CPU or AUTO", algo, ops->name);
    if (sim->nsites > (int64_t)UINT32_MAX)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s algorithm labels at most 2^32 - 1 "
                          "sites in this version; the lattice has %lld", algo,
                          (long long)sim->nsites);
    return LATMC_OK;
}

bool latmc_cluster_as_steps(const latmc_sim *sim)
{
    return latmc_cluster_algorithm(sim->desc.algorithm) && sim->ops != &latmc_cpu_backend_ops &&
           !latmc_embed_applies(sim);
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
    /* a backend's embedded step leaves its statistics to be counted at the first ask */
    const int st = latmc_embed_settle_stats((latmc_sim *)sim);
    if (st < 0) {
        memset(out, 0, sizeof *out);
        return st;
    }
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
    struct latmc_cluster_stats last;
    if (latmc_cluster_as_steps(sim)) { /* the backend's, from its labels */
        const struct latmc_backend_ops *ops = sim->ops;
        if (ops->size < offsetof(struct latmc_backend_ops, cluster_stats) +
                            sizeof ops->cluster_stats || !ops->cluster_stats)
            return latmc_fail(LATMC_EUNSUPPORTED, "observable %s: the %s backend does not "
                              "count the clusters in this version (the CPU does)", name,
                              ops->name);
        const int st = ops->cluster_stats((latmc_sim *)sim, &last);
        if (st < 0)
            return st;
    } else {
        const int st = latmc_embed_settle_stats((latmc_sim *)sim); /* a backend's step */
        if (st < 0)
            return st;
        const struct latmc_cluster_work *w = sim->cluster;
        if (!w || !w->have_stats)
            return latmc_fail(LATMC_ESTATE, "observable %s: no cluster sweep yet (it "
                              "describes the clusters of the last sweep)", name);
        last = w->last;
    }
    const double n = (double)sim->nsites;
    switch (key) {
    case LATMC_OBS_CLUSTERS:
        *value = (double)last.clusters;
        break;
    case LATMC_OBS_LARGEST_CLUSTER:
        *value = (double)last.largest / n;
        break;
    default: /* LATMC_OBS_CLUSTER_M2 */
        *value = sim->desc.algorithm == LATMC_ALGO_WOLFF ? last.size2_sum / n
                                                        : last.size2_sum / (n * n);
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

void latmc_cluster_job_init(const latmc_sim *sim, struct latmc_cluster_job *job)
{
    memset(job, 0, sizeof *job);
    job->g = latmc_cluster_lattice_of(sim->desc.ndim, sim->desc.extent);
    job->box = job->g;
    job->seed = sim->desc.seed;
    job->potts = sim->desc.model == LATMC_MODEL_POTTS;
    job->q = sim->desc.q;
    job->wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    job->n_threads = sim->n_threads;
    const double beta = sim->param[LATMC_PARAM_BETA], J = sim->param[LATMC_PARAM_J];
    const double K = beta * J;
    job->beta_h = beta * sim->param[LATMC_PARAM_H];
    job->sign_k = K > 0.0 ? 1 : K < 0.0 ? -1 : 0;
    job->bond_threshold =
        latmc_threshold_u32(job->potts ? -expm1(-K) : -expm1(-2.0 * fabs(K)));
}

int latmc_cluster_sweeps(latmc_sim *sim, uint64_t n, uint64_t *accepted, uint64_t *attempted)
{
    if (latmc_part_many(sim)) /* a lattice shared by processes: lib/cluster_part.c */
        return latmc_cluster_part_sweeps(sim, n, accepted, attempted);
    int st = latmc_cluster_check_params(sim);
    struct latmc_cluster_work *w = NULL;
    if (st == LATMC_OK)
        st = work_of(sim, &w);
    if (st < 0)
        return st;
    struct latmc_cluster_job job;
    latmc_cluster_job_init(sim, &job);
    if (!job.potts && job.beta_h != 0.0 && !w->msum &&
        !(w->msum = malloc((size_t)sim->nsites * sizeof *w->msum)))
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the clusters' "
                          "magnetisations");
    if (!job.potts && sim->desc.couplings == LATMC_COUPLINGS_BIMODAL) {
        if ((st = load_couplings(sim, w)) < 0)
            return st;
        job.eps = w->eps;
    }
    const int pieces = latmc_cluster_threaded(&job) ? job.n_threads : 1;
    job.unit_p = cut_units(sim, pieces, &job.n_units);
    const bool rows = job.unit_p && latmc_cluster_sw_rows_fits(&job);
    if (rows) {
        job.rows_words = latmc_cluster_sw_rows_words(&job.g);
        job.rows_work = malloc((size_t)job.n_units * job.rows_words * sizeof *job.rows_work);
        job.face_pairs = malloc(latmc_cluster_sw_rows_pair_words(&job.g, job.n_units) *
                                sizeof *job.face_pairs);
    } else if (job.unit_p && !job.wolff) {
        job.row_words = latmc_cluster_row_words(&job.g);
        job.row_draws = malloc((size_t)job.n_units * job.row_words * sizeof *job.row_draws);
        job.cand = malloc((size_t)job.n_units * 2 * (size_t)job.g.plane * sizeof *job.cand);
    }
    if (!job.unit_p || (rows && (!job.rows_work || !job.face_pairs)) ||
        (!rows && !job.wolff && (!job.row_draws || !job.cand))) {
        free(job.unit_p);
        free(job.row_draws);
        free(job.cand);
        free(job.rows_work);
        free(job.face_pairs);
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster boxes");
    }
    st = sim->ops->get_spins(sim, w->spins);
    if (st == LATMC_OK && job.wolff)
        memset(w->bonds, 0, (size_t)sim->nsites);
    for (uint64_t k = 0; st == LATMC_OK && k < n; k++) {
        const uint64_t sweep = sim->sweeps + k;
        if (job.wolff) {
            latmc_cluster_wolff_sweep(&job, w, sweep, accepted, attempted);
        } else {
            job.count_sizes = job.beta_h != 0.0 || k + 1 == n;
            if (rows)
                latmc_cluster_sw_rows_sweep(&job, w, sweep, accepted);
            else
                st = latmc_cluster_sw_sweep(&job, w, sweep, accepted);
            *attempted += (uint64_t)sim->nsites;
        }
    }
    if (st == LATMC_OK)
        st = sim->ops->set_spins(sim, w->spins);
    free(job.unit_p);
    free(job.row_draws);
    free(job.cand);
    free(job.rows_work);
    free(job.face_pairs);
    return st;
}
