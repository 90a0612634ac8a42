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
    return job->n_threads > 1 && job->box.nsites >= CLUSTER_MIN_PARALLEL_SITES &&
           !omp_in_parallel();
#else
    (void)job;
    return false;
#endif
}

/* The root of x, reading only (parent is final when this runs, and shared by the threads). */
static inline uint32_t root_of(const uint32_t *parent, uint32_t x)
{
    while (parent[x] != x)
        x = parent[x];
    return x;
}

/*
 * After the box-local labelling: the local roots that a face union may join to another
 * box's cluster are those of the boxes' first and last planes. Each goes once (flagged in
 * bit 7 of its bonds byte, which the face merge does not read) into job->cand.
 */
static int64_t collect_face_roots(const struct latmc_cluster_job *job, uint8_t *bonds,
                                  const uint32_t *parent)
{
    const int64_t P = job->box.plane;
    int64_t n = 0;
    for (int u = 0; u < job->n_units; u++) {
        const int64_t planes[2] = { job->unit_p[u], job->unit_p[u + 1] - 1 };
        for (int k = 0; k < 2; k++)
            for (int64_t i = planes[k] * P; i < (planes[k] + 1) * P; i++) {
                const uint32_t r = parent[i];
                if (!(bonds[r] & 0x80u)) {
                    bonds[r] |= 0x80u;
                    job->cand[n++] = r;
                }
            }
    }
    return n;
}

/* The decisions of the k <= LATMC_CLUSTER_BATCH clusters named root[0 .. k) into their
 * bonds bytes (free after the labelling), from one batch of draws. */
static void decide_batch(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                         uint64_t sweep, const uint32_t *size, const int64_t *root, int k)
{
    uint64_t blk[LATMC_CLUSTER_BATCH];
    uint32_t draw[4 * LATMC_CLUSTER_BATCH];
    for (int j = 0; j < LATMC_CLUSTER_BATCH; j++)
        blk[j] = (uint64_t)root[j < k ? j : 0] >> 2;
    latmc_cluster_batch(job->seed, sweep, LATMC_CLUSTER_PHASE_DECIDE, blk, draw);
    for (int j = 0; j < k; j++) {
        const int64_t r = root[j];
        w->bonds[r] = latmc_cluster_decide(job, draw[4 * j + (r & 3)], size ? size[r] : 0,
                                           size && w->msum ? w->msum[r] : 0, w->spins[r]);
    }
}

/*
 * (3) each cluster's decision, drawn at its name (its root), into bonds (free now), and
 * (4) every site takes its cluster's decision. size: the clusters' sizes at their roots
 * (with w->msum their magnetisations in a field), or NULL where no decision needs them and
 * the sweep keeps no statistics (no field, not the call's last sweep).
 */
static void decide_and_flip(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                            uint64_t sweep, uint64_t *changed, const uint32_t *size)
{
    const int64_t P = job->box.plane;
    uint8_t *s = w->spins, *bonds = w->bonds;
    const uint32_t *parent = w->parent;
    const int U = job->n_units;
    const int nt = latmc_cluster_threaded(job) ? job->n_threads : 1;
    /* the roots' draws LATMC_CLUSTER_BATCH at a time. The statistics are integers
     * (sum |C|^2 <= N^2 < 2^64), the same for any cut. */
    int64_t clusters = 0, largest = 0;
    uint64_t size2 = 0;
    CLUSTER_FOR_UNITS(nt, reduction(+:clusters, size2) reduction(max:largest), u, U, {
        int64_t root[LATMC_CLUSTER_BATCH];
        int k = 0;
        const int64_t i1 = job->unit_p[u + 1] * P;
        /* the roots gathered without a branch per site (a root is written, and kept
         * where it is one), decided LATMC_CLUSTER_BATCH at a time */
        for (int64_t i = job->unit_p[u] * P; i < i1; i++) {
            root[k] = i;
            k += parent[i] == (uint32_t)i;
            if (k == LATMC_CLUSTER_BATCH) {
                decide_batch(job, w, sweep, size, root, k);
                k = 0;
            }
        }
        if (k > 0)
            decide_batch(job, w, sweep, size, root, k);
        if (size) {
            for (int64_t i = job->unit_p[u] * P; i < i1; i++)
                if (parent[i] == (uint32_t)i) {
                    clusters++;
                    const int64_t sz = size[i];
                    largest = sz > largest ? sz : largest;
                    size2 += (uint64_t)sz * (uint64_t)sz;
                }
        }
    });
    if (size) {
        w->last.clusters = clusters;
        w->last.largest = largest;
        w->last.size2_sum = (double)size2;
        w->have_stats = true;
    }
    /* (4) every site takes its cluster's decision (a site's parent is its local root,
     * whose parent is the root unless a face joined it further) */
    uint64_t diff = 0;
    CLUSTER_FOR_UNITS(nt, reduction(+:diff), u, U, {
        for (int64_t i = job->unit_p[u] * P; i < job->unit_p[u + 1] * P; i++) {
            const uint8_t d = bonds[root_of(parent, parent[i])];
            const uint8_t v = job->potts ? d : d ? s[i] : (uint8_t)(-(int8_t)s[i]);
            diff += v != s[i];
            s[i] = v;
        }
    });
    *changed += diff;
}

void latmc_cluster_sw_label(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                            uint64_t sweep)
{
    const struct latmc_cluster_lattice *g = &job->box;
    const int64_t P = g->plane;
    uint8_t *s = w->spins, *bonds = w->bonds;
    uint32_t *parent = w->parent, *size = w->name; /* Swendsen-Wang needs no names */
    int64_t *msum = w->msum;
    const int U = job->n_units;
    const int nt = latmc_cluster_threaded(job) ? job->n_threads : 1;
    /* the faces merged here: every unit's upper one, but a part's last (its neighbour's) */
    const int faces = job->halo_up ? U - 1 : U;
    /* (1) bonds and (2a) each unit's own clusters, with their sizes at the local roots */
    CLUSTER_FOR_UNITS(nt, , u, U, {
        const int64_t i0 = job->unit_p[u] * P, i1 = job->unit_p[u + 1] * P;
        latmc_cluster_draw_bonds_into(job, sweep, s, bonds, i0, i1,
                                      job->row_draws + (size_t)u * job->row_words);
        if (job->count_sizes)
            latmc_cluster_label_box_sizes(g, bonds, parent, s, size, msum, job->unit_p[u],
                                          job->unit_p[u + 1]);
        else
            latmc_cluster_label_box(g, bonds, parent, job->unit_p[u], job->unit_p[u + 1]);
    });
    if (!job->count_sizes) {
        for (int u = 0; u < faces; u++)
            latmc_cluster_merge_face(g, bonds, parent, job->unit_p[u + 1] - 1);
        return;
    }
    /* (2b) the faces above each unit, in turn; then the local clusters that a face joined
     * to another give their counts to the root they now have (each root once), and lose
     * their flag (bit 7 of the bonds byte, which a part's boundary uses next). */
    const int64_t n_cand = collect_face_roots(job, bonds, parent);
    for (int u = 0; u < faces; u++)
        latmc_cluster_merge_face(g, bonds, parent, job->unit_p[u + 1] - 1);
    for (int64_t k = 0; k < n_cand; k++) {
        const uint32_t r = job->cand[k];
        bonds[r] &= 0x7fu;
        const uint32_t root = latmc_cluster_find_halving(parent, r);
        if (root != r) {
            size[root] += size[r];
            if (msum)
                msum[root] += msum[r];
        }
    }
}

int latmc_cluster_sw_sweep(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                           uint64_t sweep, uint64_t *changed)
{
    latmc_cluster_sw_label(job, w, sweep);
    decide_and_flip(job, w, sweep, changed, job->count_sizes ? w->name : NULL);
    return LATMC_OK;
}
