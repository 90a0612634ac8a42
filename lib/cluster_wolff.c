/*
 * One Wolff sweep on the host copy (doc/clusters.md): the one cluster of the sweep's seed
 * site, grown over the Swendsen-Wang bonds (drawn where the growth reaches them), and its
 * new state drawn at its name.
 */
#include "cluster_bonds.h"
#include "cluster_job.h"

/* Whether bond (i, mu) is active in sweep `sweep` (drawn on demand). */
static int bond_active(const struct latmc_cluster_job *job, uint64_t sweep, const uint8_t *s,
                       int64_t i, int64_t j, int mu)
{
    return latmc_cluster_can_join(job, s, i, j, mu) &&
           (uint64_t)latmc_cluster_bond_draw(job->seed, sweep, job->g.ndim, i, mu) <
               job->bond_threshold;
}

void latmc_cluster_wolff_sweep(const struct latmc_cluster_job *job,
                               struct latmc_cluster_work *w, uint64_t sweep,
                               uint64_t *changed, uint64_t *size_out)
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
        colour = latmc_cluster_decide_one(job, sweep, smallest, n, 0, old);
    else
        keep = latmc_cluster_decide_one(job, sweep, smallest, n, m, old);
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

