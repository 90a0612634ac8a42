/*
 * Sweeps of phi^4 and Heisenberg sims whose algorithm is a cluster update
 * (doc/clusters.md, "Embedded clusters"): sweep t is the model's local passes -- the very
 * plan sweep t of the local algorithm (phi^4: nloc Metropolis passes; Heisenberg: one
 * heat-bath pass and nover overrelaxation passes) -- followed by one embedded cluster step
 * named by t: on the backend's own configuration where it runs the step (ops.embed_step;
 * the CUDA module: Heisenberg Swendsen-Wang and Wolff in any field and phi^4 at any Lambda
 * on one box alone on a GPU, Heisenberg and phi^4 at Lambda = inf on the boxes of one
 * process, one GPU or several), else on a host copy of the configuration (get_spins, the
 * step, set_spins): the CPU, phi^4 at a finite Lambda on boxes, and a step the backend
 * declines (no room on the GPU, LATMC_CUDA_EMBED=host); on the parts of a lattice shared
 * by processes on each part's own planes (lib/cluster_embed_part.c). doc/clusters.md,
 * "Embedded clusters on CUDA" and "Parts".
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cluster_embed.h"
#include "cluster_job.h"
#include "model.h"
#include "part.h"
#include "plan.h"

int latmc_embed_applies(const latmc_sim *sim)
{
    return latmc_cluster_algorithm(sim->desc.algorithm) &&
           (sim->desc.model == LATMC_MODEL_PHI4 || sim->desc.model == LATMC_MODEL_HEISENBERG);
}

/* The whole-lattice arrays freed (whole_arrays makes them again when asked). */
static void free_whole(struct latmc_embed_work *w)
{
    free(w->field);
    free(w->a);
    free(w->flip);
    free(w->bonds);
    free(w->parent);
    free(w->name);
    free(w->ssum);
    free(w->qsum);
    w->field = NULL;
    w->a = NULL;
    w->flip = NULL;
    w->bonds = NULL;
    w->parent = NULL;
    w->name = NULL;
    w->ssum = NULL;
    w->qsum = NULL;
}

void latmc_embed_free(latmc_sim *sim)
{
    struct latmc_embed_work *w = sim->embed;
    if (!w)
        return;
    free_whole(w);
    free(w->kbond);
    free(w);
    sim->embed = NULL;
}

/* The work space: its arrays of the whole lattice (the host copy's step) are made at the
 * first step that needs them, so that a part whose steps run on its own planes
 * (lib/cluster_embed_part.c) never holds them. */
static int work_of(latmc_sim *sim, struct latmc_embed_work **out)
{
    struct latmc_embed_work *w = sim->embed;
    if (!w && (w = calloc(1, sizeof *w)) != NULL) {
        sim->embed = w;
        w->nsites = sim->nsites;
    }
    /* the cluster observables (lib/cluster_sweep.c) read sim->cluster's statistics */
    if (w && !sim->cluster)
        sim->cluster = calloc(1, sizeof *sim->cluster);
    if (!w || !sim->cluster) {
        latmc_embed_free(sim);
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster "
                          "work space");
    }
    *out = w;
    return LATMC_OK;
}

static int whole_arrays(latmc_sim *sim, struct latmc_embed_work *w)
{
    if (w->field)
        return LATMC_OK;
    const size_t n = (size_t)sim->nsites;
    const size_t field = n * (size_t)sim->desc.replicas * sim->model->site_bytes(&sim->desc);
    w->field = malloc(field);
    w->a = malloc(n * sizeof *w->a);
    w->flip = malloc(n);
    w->bonds = malloc(n * sizeof *w->bonds);
    w->parent = malloc(n * sizeof *w->parent);
    w->name = malloc(n * sizeof *w->name);
    w->ssum = malloc(n * sizeof *w->ssum);
    /* the decisions' sums in a field (phi^4 has none) */
    if (sim->desc.model == LATMC_MODEL_HEISENBERG)
        w->qsum = malloc(n * sizeof *w->qsum);
    if (!w->field || !w->a || !w->flip || !w->bonds || !w->parent || !w->name || !w->ssum ||
        (sim->desc.model == LATMC_MODEL_HEISENBERG && !w->qsum)) {
        free_whole(w);
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster "
                          "work space of %lld sites", (long long)sim->nsites);
    }
    return LATMC_OK;
}

/* A step's statistics, for the cluster observables. */
static void record_stats(latmc_sim *sim, struct latmc_embed_work *w,
                         const struct latmc_embed_stats *stats)
{
    struct latmc_cluster_work *c = sim->cluster;
    c->last.clusters = stats->clusters;
    c->last.largest = stats->largest;
    c->last.size2_sum = stats->w2;
    c->have_stats = true;
    w->names_on_backend = false;
}

/*
 * One cluster step of sweep `sweep`; records the statistics. A part of a lattice shared by
 * processes steps its own planes, the clusters joined across the parts
 * (latmc_embed_part_step); anything else the host copy of the whole lattice.
 */
static int cluster_step(latmc_sim *sim, struct latmc_embed_work *w, uint64_t sweep)
{
    /* where the backend steps the sim itself (CUDA: Heisenberg Swendsen-Wang and Wolff
     * with or without a field, on one box or the boxes of one process; phi^4 with any
     * Lambda on one box, with Lambda = inf on boxes), no copy: the
     * statistics are counted when asked for (w->names_on_backend: set by a step there,
     * cleared by one here; a step that fails here leaves the last step's statistics, as
     * on the CPU) */
    const int on_backend = sim->desc.model == LATMC_MODEL_PHI4
                               ? latmc_embed_phi4_backend_step(sim, w, sweep)
                               : latmc_embed_heisenberg_backend_step(sim, w, sweep);
    if (on_backend != LATMC_EUNSUPPORTED)
        return on_backend;
    struct latmc_embed_stats stats;
    memset(&stats, 0, sizeof stats);
    /* parts: each on its own planes, the clusters joined across them
     * (lib/cluster_embed_part.c; collective, its failures agreed on) */
    int st = latmc_part_many(sim) ? latmc_embed_part_step(sim, sweep, &stats)
                                  : whole_arrays(sim, w);
    if (st == LATMC_OK && !latmc_part_many(sim)) {
        st = sim->ops->get_spins(sim, w->field);
        if (st == LATMC_OK)
            st = sim->desc.model == LATMC_MODEL_PHI4
                     ? latmc_embed_phi4_step(sim, w, sweep, &stats)
                     : latmc_embed_heisenberg_step(sim, w, sweep, &stats);
        if (st == LATMC_OK)
            st = sim->ops->set_spins(sim, w->field);
    }
    if (st == LATMC_OK)
        record_stats(sim, w, &stats);
    return st;
}

int latmc_embed_settle_stats(latmc_sim *sim)
{
    struct latmc_embed_work *w = sim->embed;
    if (!w || !w->names_on_backend)
        return LATMC_OK;
    const int made = whole_arrays(sim, w); /* the names and a_i read into them */
    if (made < 0)
        return made;
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    struct latmc_embed_job job = { 0 };
    job.a = w->a;
    /* Wolff: the step's bonds, into the work space's (free between steps) */
    /* phi^4 with a finite Lambda: more directions than a byte holds, so none read back;
     * the regrowth draws them (the step's draws and K: the same bonds) */
    const bool far = sim->desc.model == LATMC_MODEL_PHI4 && isfinite(w->names_lambda);
    if (wolff && !far)
        job.bonds = (uint8_t *)w->bonds;
    else if (!wolff)
        job.name = w->name;
    int st = sim->ops->embed_step(sim, LATMC_EMBED_NAMES, &job);
    if (st < 0)
        return st;
    struct latmc_embed_stats one;
    if (wolff) {
        /* the device's pairs are the nearest neighbours (Heisenberg, phi^4 with Lambda =
         * inf); K is not needed: the bonds are the step's */
        struct latmc_embed_problem p = { 0 };
        p.g = latmc_cluster_lattice_of(sim->desc.ndim, sim->desc.extent);
        p.n_dirs = sim->desc.ndim;
        for (int mu = 0; mu < p.n_dirs; mu++)
            p.off[mu][mu] = 1;
        if (far) /* the step's pairs and K, the bonds drawn as the step drew them */
            latmc_embed_phi4_dirs(sim->desc.ndim, w->names_lambda, &p);
        p.seed = sim->desc.seed;
        p.sweep = w->names_sweep;
        p.wolff = 1;
        latmc_embed_wolff_regrow(&p, w, job.bonds, &one);
    } else {
        latmc_embed_sw_stats(sim->nsites, w->name, w->a, w->ssum, w->parent, &one);
    }
    struct latmc_cluster_work *c = sim->cluster;
    c->last.clusters = one.clusters;
    c->last.largest = one.largest;
    /* Heisenberg: as latmc_embed_heisenberg_step's, <(r . M)^2> = <|M|^2> / 3 */
    c->last.size2_sum = sim->desc.model == LATMC_MODEL_HEISENBERG ? 3.0 * one.w2 : one.w2;
    c->have_stats = true;
    w->names_on_backend = false;
    return LATMC_OK;
}

int latmc_embed_sweeps(latmc_sim *sim, uint64_t n, uint64_t *accepted, uint64_t *attempted)
{
    struct latmc_embed_work *w = NULL;
    int st = work_of(sim, &w);
    if (latmc_part_many(sim))
        st = latmc_part_agree(sim, st);
    if (st < 0)
        return st;
    if (!latmc_plan_runs_sweeps(sim, sim->plan))
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: the %s backend has no sweep "
                          "of the %s model", sim->ops->name, sim->model->name);
    /* The plan names its sweeps from sim->sweeps: it is set to each sweep's number in turn
     * and given back (latmc_sim_sweep adds n once all have run). */
    const uint64_t first = sim->sweeps;
    for (uint64_t k = 0; st == LATMC_OK && k < n; k++) {
        sim->sweeps = first + k;
        st = latmc_part_many(sim) ? latmc_part_sweep(sim, 1, accepted, attempted)
                                  : latmc_plan_sweep(sim, sim->plan, 1, accepted, attempted);
        if (st == LATMC_OK)
            st = cluster_step(sim, w, first + k);
    }
    sim->sweeps = first;
    return st;
}
