/*
 * One Swendsen-Wang sweep on the host copy (doc/clusters.md): (1) every bond's activation
 * from its draw; (2) the clusters labelled box by box and merged across the boxes' faces
 * (lib/cluster_label.h), every cluster named by its smallest site; (3) each cluster's new
 * state drawn at its name; (4) every site takes its cluster's state. The boxes are the
 * plan's slabs, each cut further into one piece per thread; none of that shows in the
 * result.
 */
#include <stdlib.h>

#ifdef _OPENMP
#  include <omp.h>
#endif

#include "cluster_bonds.h"
#include "cluster_job.h"

bool latmc_cluster_threaded(const struct latmc_cluster_job *job)
{
#ifdef _OPENMP
    return job->n_threads > 1 && job->g.nsites >= CLUSTER_MIN_PARALLEL_SITES &&
           !omp_in_parallel();
#else
    (void)job;
    return false;
#endif
}

int latmc_cluster_sw_sweep(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                           uint64_t sweep, uint64_t *changed)
{
    const struct latmc_cluster_lattice *g = &job->g;
    const int64_t N = g->nsites, P = g->plane;
    uint8_t *s = w->spins, *bonds = w->bonds;
    uint32_t *parent = w->parent, *name = w->name;
    const int U = job->n_units;
    const int nt = latmc_cluster_threaded(job) ? job->n_threads : 1;
    (void)nt;
    /* (1) bonds and (2a) each unit's own clusters */
    int failed = 0;
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1) reduction(|:failed))
    for (int u = 0; u < U; u++) {
        const int64_t i0 = job->unit_p[u] * P, i1 = job->unit_p[u + 1] * P;
        if (latmc_cluster_draw_bonds(job, sweep, s, bonds, i0, i1) < 0)
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
     * LATMC_CLUSTER_BATCH at a time. The statistics are integers (sum |C|^2 <= N^2 < 2^64),
     * the same
     * for any cut. */
    int64_t clusters = 0, largest = 0;
    uint64_t size2 = 0;
    CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) if(nt > 1) \
                reduction(+:clusters, size2) reduction(max:largest))
    for (int u = 0; u < U; u++) {
        uint64_t blk[LATMC_CLUSTER_BATCH];
        int64_t root[LATMC_CLUSTER_BATCH];
        uint32_t draw[4 * LATMC_CLUSTER_BATCH];
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
            if (k == LATMC_CLUSTER_BATCH || (k > 0 && i + 1 >= i1)) {
                for (int j = k; j < LATMC_CLUSTER_BATCH; j++)
                    blk[j] = blk[0];
                latmc_cluster_batch(job->seed, sweep, LATMC_CLUSTER_PHASE_DECIDE, blk, draw);
                for (int j = 0; j < k; j++) {
                    const int64_t r = root[j];
                    bonds[r] = latmc_cluster_decide(job, draw[4 * j + (r & 3)], parent[r],
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

