/*
 * Swendsen-Wang and Wolff sweeps of a part of a lattice shared by processes
 * (include/latmc/part.h; doc/clusters.md, "Parts"). The chain is the one-box chain bit for
 * bit: the bonds are drawn by their global names, a cluster is named by its smallest
 * global site and decided from that name, and only the labelling is spread over the parts.
 *
 * Each part holds its slab of planes [p0, p1) and one halo plane above it (p1, its upper
 * neighbour's first plane, exchanged once per call and then kept up to date from the
 * decisions, which every part knows for the clusters that reach a boundary). One sweep:
 *   1. the part's bonds, the bonds from its last plane upwards included, and its own
 *      clusters (lib/cluster_sw.c's units, every cluster named by its local root);
 *   2. the boundary: each part sends every part the labels of its first and last planes,
 *      the upward bonds of its last plane, and its local clusters that touch those planes
 *      (their label, size and magnetisation) -- two gathers, one of the counts, one of the
 *      data;
 *   3. every part joins the same boundary graph (union-find over the boundary clusters of
 *      all parts, the smaller label winning, so a joined cluster's root is its smallest
 *      site: its name) and adds the sizes: all parts reach the same fixed point, that of
 *      label propagation across the faces, in one round;
 *   4. each local cluster's decision from its name (interior: its local root; boundary:
 *      the graph's root), its sites and the halo plane updated.
 * Wolff: the same labelling, and only the cluster of the seed site is updated (its part
 * broadcasts the cluster's name, size and magnetisation). That costs a Swendsen-Wang
 * labelling per Wolff step, not the cluster's size: it keeps the one rule for every
 * layout (the seed's cluster is the component of the same bonds), at a price.
 *
 * Cost per sweep and part: the slab's passes, plus 2 gathers of O(n_parts P) bytes (P
 * sites a plane) and a union-find over up to 2 n_parts P boundary clusters, the same on
 * every part. Failures: a local one before the sweeps is agreed on; the transport's are
 * every part's (lib/part.h).
 */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cluster_bonds.h"
#include "cluster_boundary.h"
#include "cluster_job.h"
#include "part.h"
#include "thread_probe.h"

/* A local cluster that touches its part's first or last plane, as the parts send it. */
struct edge_root {
    uint32_t label; /* its local root, as a global site index */
    uint32_t size;
    int64_t msum;   /* its magnetisation (Ising in a field; else 0) */
};

/* Each part's fixed message: its boundary clusters and its interior clusters' statistics. */
struct part_head {
    uint64_t n_roots;
    uint64_t clusters, largest, size2;
};

/* The work space of one call. */
struct part_call {
    struct latmc_part *part;
    struct latmc_cluster_job *job;
    struct latmc_cluster_work *w;
    int n, rank, up;              /* parts, this one, its upper neighbour */
    int64_t P, L;                 /* sites a plane, planes of the slab */
    size_t max_bytes;             /* the largest message of a part */
    unsigned char *mine, *all;    /* this part's message; every part's, in part order */
    struct part_head *heads;
    uint8_t *scratch;             /* the lower neighbour's plane (not needed) */
    uint64_t *counts;             /* each part's boundary clusters */
    struct latmc_boundary b;      /* the boundary graph of the sweep (lib/cluster_boundary.h) */
    uint64_t *tot_size;
    int64_t *tot_m;
    int16_t *dec;                 /* a root node's decision, -1: not drawn yet */
};

/* The slab's own work space (sim->cluster), sized for the slab and its halo plane. */
static int part_work_of(latmc_sim *sim, int64_t local, int64_t P, bool field,
                        struct latmc_cluster_work **out)
{
    struct latmc_cluster_work *w = sim->cluster;
    if (!w) {
        const size_t n = (size_t)local;
        w = calloc(1, sizeof *w);
        if (w) {
            sim->cluster = w;
            w->nsites = local;
            w->spins = malloc(n + (size_t)P);
            w->bonds = malloc(n);
            w->parent = malloc(n * sizeof *w->parent);
            w->name = malloc(n * sizeof *w->name);
        }
        if (!w || !w->spins || !w->bonds || !w->parent || !w->name) {
            latmc_cluster_free(sim);
            return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster "
                              "labels of a slab of %lld sites", (long long)local);
        }
    }
    if (field && !w->msum && !(w->msum = malloc((size_t)local * sizeof *w->msum)))
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the clusters' "
                          "magnetisations");
    *out = w;
    return LATMC_OK;
}

/* The slab's +-J couplings as signs (ndim per site, local order). */
static int part_couplings(latmc_sim *sim, struct latmc_cluster_work *w, int64_t local)
{
    const size_t count = (size_t)local * (size_t)sim->desc.ndim;
    if (!w->eps && !(w->eps = malloc(count)))
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the couplings of "
                          "the cluster update");
    float *c = NULL;
    size_t off = 0;
    const int st = latmc_part_own_couplings(sim, &c, &off);
    for (size_t k = 0; st == LATMC_OK && k < count; k++)
        w->eps[k] = c[off + k] > 0.0f ? 1 : -1;
    free(c);
    return st;
}

static int alloc_call(struct part_call *c)
{
    const int n = c->n;
    const size_t M = (size_t)n * 2 * (size_t)c->P; /* at most 2 P boundary roots a part */
    c->max_bytes = latmc_boundary_msg_bytes(c->P, sizeof(struct edge_root), 2 * (uint64_t)c->P);
    const bool graph = latmc_boundary_alloc(&c->b, n, c->P, sizeof(struct edge_root));
    c->mine = malloc(c->max_bytes);
    c->all = malloc((size_t)n * c->max_bytes);
    c->heads = malloc((size_t)n * sizeof *c->heads);
    c->scratch = malloc((size_t)c->P);
    c->counts = malloc((size_t)n * sizeof *c->counts);
    c->tot_size = malloc(M * sizeof *c->tot_size);
    c->tot_m = malloc(M * sizeof *c->tot_m);
    c->dec = malloc(M * sizeof *c->dec);
    if (!c->mine || !c->all || !c->heads || !c->scratch || !c->counts || !graph ||
        !c->tot_size || !c->tot_m || !c->dec)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the boundary "
                          "graph of %d parts of %lld sites a plane", n, (long long)c->P);
    return LATMC_OK;
}

static void free_call(struct part_call *c)
{
    free(c->mine);
    free(c->all);
    free(c->heads);
    free(c->scratch);
    free(c->counts);
    latmc_boundary_free(&c->b);
    free(c->tot_size);
    free(c->tot_m);
    free(c->dec);
}

/*
 * Steps 2 and 3: this part's message (after the labelling and the flattening: parent[i]
 * is i's local root), the two gathers, the boundary graph joined. Marks the boundary
 * roots (bit 7 of their bonds byte) and counts the interior clusters.
 */
static int join_boundary(struct part_call *c)
{
    const struct latmc_cluster_job *job = c->job;
    struct latmc_cluster_work *w = c->w;
    const int64_t P = c->P, L = c->L, site0 = job->site0;
    uint8_t *bonds = w->bonds;
    const uint32_t *parent = w->parent;
    uint32_t *first = (uint32_t *)(void *)c->mine, *last = first + P;
    struct edge_root *roots = (struct edge_root *)(void *)(last + P);
    uint64_t nr = 0;
    for (int k = 0; k < 2; k++) {
        const int64_t i0 = k == 0 ? 0 : (L - 1) * P;
        uint32_t *lab = k == 0 ? first : last;
        for (int64_t s = 0; s < P; s++) {
            const uint32_t r = parent[i0 + s];
            lab[s] = r + (uint32_t)site0;
            if (!(bonds[r] & 0x80u)) {
                bonds[r] |= 0x80u;
                roots[nr].label = r + (uint32_t)site0;
                roots[nr].size = w->name[r];
                roots[nr].msum = w->msum ? w->msum[r] : 0;
                nr++;
            }
        }
    }
    qsort(roots, (size_t)nr, sizeof *roots, latmc_boundary_by_label);
    uint8_t *face = (uint8_t *)(roots + nr);
    const unsigned bit = 1u << (job->g.ndim - 1);
    memset(face, 0, ((size_t)P + 7) & ~(size_t)7);
    for (int64_t s = 0; s < P; s++)
        face[s] = (bonds[(L - 1) * P + s] & bit) != 0;
    /* the interior clusters' statistics (the boundary's are every part's, below) */
    struct part_head head = { nr, 0, 0, 0 };
    for (int64_t i = 0; i < L * P; i++)
        if (parent[i] == (uint32_t)i && !(bonds[i] & 0x80u)) {
            const uint64_t sz = w->name[i];
            head.clusters++;
            head.largest = sz > head.largest ? sz : head.largest;
            head.size2 += sz * sz;
        }
    size_t *bytes = c->part->gather_bytes;
    for (int p = 0; p < c->n; p++)
        bytes[p] = sizeof head;
    int st = latmc_part_gather(c->part, "gather (cluster boundary counts)", -1, &head,
                               c->heads, bytes);
    if (st < 0)
        return st;
    for (int p = 0; p < c->n; p++) {
        if (c->heads[p].n_roots > 2 * (uint64_t)P)
            return latmc_fail(LATMC_EBACKEND, "part transport: gather (cluster boundary "
                              "counts) delivered %llu boundary clusters from part %d (at "
                              "most %lld)", (unsigned long long)c->heads[p].n_roots, p,
                              (long long)(2 * P));
        bytes[p] = latmc_boundary_msg_bytes(P, sizeof(struct edge_root), c->heads[p].n_roots);
        c->counts[p] = c->heads[p].n_roots;
    }
    st = latmc_part_gather(c->part, "gather (cluster boundaries)", -1, c->mine, c->all, bytes);
    if (st < 0)
        return st;
    /* the graph (lib/cluster_boundary.h): the faces joined, the smaller node winning */
    latmc_boundary_join(&c->b, c->all, bytes, c->counts);
    const int64_t M = c->b.base[c->n];
    for (int64_t k = 0; k < M; k++) {
        c->tot_size[k] = 0;
        c->tot_m[k] = 0;
        c->dec[k] = -1;
    }
    for (int p = 0; p < c->n; p++)
        for (int64_t k = c->b.base[p]; k < c->b.base[p + 1]; k++) {
            const uint32_t r = latmc_cluster_find_halving(c->b.uf, (uint32_t)k);
            const struct edge_root *e = latmc_boundary_record(&c->b, p, k);
            c->tot_size[r] += e->size;
            c->tot_m[r] += e->msum;
        }
    if (job->wolff)
        return LATMC_OK;
    /* the statistics: every part's interior clusters, then the joined boundary ones */
    uint64_t clusters = 0, largest = 0, size2 = 0;
    for (int p = 0; p < c->n; p++) {
        clusters += c->heads[p].clusters;
        largest = c->heads[p].largest > largest ? c->heads[p].largest : largest;
        size2 += c->heads[p].size2;
    }
    for (int64_t k = 0; k < M; k++)
        if (c->b.uf[k] == (uint32_t)k) {
            const uint64_t sz = c->tot_size[k];
            clusters++;
            largest = sz > largest ? sz : largest;
            size2 += sz * sz;
        }
    w->last.clusters = (int64_t)clusters;
    w->last.largest = (int64_t)largest;
    w->last.size2_sum = (double)size2;
    w->have_stats = true;
    return LATMC_OK;
}

/* The decision of the joined boundary cluster at root node r (drawn once). */
static uint8_t boundary_decision(struct part_call *c, uint64_t sweep, uint32_t r)
{
    if (c->dec[r] < 0)
        c->dec[r] = latmc_cluster_decide_one(c->job, sweep, latmc_boundary_label(&c->b, r),
                                             (int64_t)c->tot_size[r], c->tot_m[r], 0);
    return (uint8_t)c->dec[r];
}

/* A site's new state from its cluster's decision d (Ising: keep or flip; Potts: colour). */
static uint8_t apply(const struct latmc_cluster_job *job, uint8_t d, uint8_t v)
{
    return job->potts ? d : d ? v : (uint8_t)(-(int8_t)v);
}

/* The root node of the halo plane's site s (the upper part's first plane). */
static uint32_t halo_root(struct part_call *c, int64_t s)
{
    return latmc_cluster_find_halving(c->b.uf, (uint32_t)latmc_boundary_node(&c->b, c->up, c->b.first[c->up][s]));
}

static void sw_decide(struct part_call *c, uint64_t sweep, uint64_t *changed)
{
    const struct latmc_cluster_job *job = c->job;
    struct latmc_cluster_work *w = c->w;
    const int64_t P = c->P, N = c->L * P, site0 = job->site0;
    uint8_t *s = w->spins, *bonds = w->bonds;
    const uint32_t *parent = w->parent;
    for (int64_t i = 0; i < N; i++) {
        if (parent[i] != (uint32_t)i)
            continue;
        if (bonds[i] & 0x80u) {
            const uint32_t r = latmc_cluster_find_halving(c->b.uf, (uint32_t)latmc_boundary_node(&c->b, c->rank,
                                                                (uint32_t)(i + site0)));
            bonds[i] = boundary_decision(c, sweep, r);
        } else {
            bonds[i] = latmc_cluster_decide_one(job, sweep, i + site0, w->name[i],
                                                w->msum ? w->msum[i] : 0, 0);
        }
    }
    uint64_t diff = 0;
    for (int64_t i = 0; i < N; i++) {
        const uint8_t v = apply(job, bonds[parent[i]], s[i]);
        diff += v != s[i];
        s[i] = v;
    }
    for (int64_t k = 0; k < P; k++)
        s[N + k] = apply(job, boundary_decision(c, sweep, halo_root(c, k)), s[N + k]);
    *changed += diff;
}

static int wolff_decide(struct part_call *c, uint64_t sweep, uint64_t *changed,
                        uint64_t *attempted)
{
    const struct latmc_cluster_job *job = c->job;
    struct latmc_cluster_work *w = c->w;
    const int64_t P = c->P, N = c->L * P, site0 = job->site0;
    uint8_t *s = w->spins, *bonds = w->bonds;
    const uint32_t *parent = w->parent;
    /* the seed's cluster: its name, size, magnetisation and colour, from its part */
    const int64_t seed = latmc_cluster_seed_site(job->seed, sweep, job->g.nsites);
    const int64_t *first = c->part->first;
    int owner = 0;
    while (first[owner + 1] * P <= seed)
        owner++;
    int64_t cl[4] = { 0, 0, 0, 0 }; /* name, size, magnetisation, colour */
    if (owner == c->rank) {
        const uint32_t r = parent[seed - site0];
        if (bonds[r] & 0x80u) {
            const uint32_t R = latmc_cluster_find_halving(c->b.uf, (uint32_t)latmc_boundary_node(&c->b, c->rank, r + (uint32_t)site0));
            cl[0] = latmc_boundary_label(&c->b, R);
            cl[1] = (int64_t)c->tot_size[R];
            cl[2] = c->tot_m[R];
        } else {
            cl[0] = (int64_t)r + site0;
            cl[1] = w->name[r];
            cl[2] = w->msum ? w->msum[r] : 0;
        }
        cl[3] = s[seed - site0];
    }
    const int st = latmc_part_broadcast(c->part, "broadcast (Wolff cluster)", owner, cl,
                                        sizeof cl);
    if (st < 0)
        return st;
    const uint8_t d = latmc_cluster_decide_one(job, sweep, cl[0], cl[1], cl[2], (int)cl[3]);
    /* which local clusters are the seed's, then their sites */
    for (int64_t i = 0; i < N; i++) {
        if (parent[i] != (uint32_t)i)
            continue;
        int64_t name = i + site0;
        if (bonds[i] & 0x80u)
            name = latmc_boundary_label(&c->b, latmc_cluster_find_halving(c->b.uf, (uint32_t)latmc_boundary_node(&c->b, c->rank,
                                                                  (uint32_t)name)));
        bonds[i] = name == cl[0];
    }
    uint64_t diff = 0, size = 0;
    for (int64_t i = 0; i < N; i++)
        if (bonds[parent[i]]) {
            const uint8_t v = apply(job, d, s[i]);
            diff += v != s[i];
            size++;
            s[i] = v;
        }
    for (int64_t k = 0; k < P; k++)
        if (latmc_boundary_label(&c->b, halo_root(c, k)) == (uint32_t)cl[0])
            s[N + k] = apply(job, d, s[N + k]);
    w->last.clusters = 1;
    w->last.largest = cl[1];
    w->last.size2_sum = (double)cl[1];
    w->have_stats = true;
    *changed += diff;
    *attempted += size;
    return LATMC_OK;
}

/* One sweep of the part (collective). */
static int part_sweep(struct part_call *c, uint64_t sweep, uint64_t *changed,
                      uint64_t *attempted)
{
    latmc_cluster_sw_label(c->job, c->w, sweep);
    /* flat: a parent is never above its site, so in increasing order it is final */
    uint32_t *parent = c->w->parent;
    for (int64_t i = 0; i < c->L * c->P; i++)
        parent[i] = parent[parent[i]];
    int st = join_boundary(c);
    if (st < 0)
        return st;
    if (c->job->wolff)
        return wolff_decide(c, sweep, changed, attempted);
    sw_decide(c, sweep, changed);
    *attempted += (uint64_t)(c->L * c->P);
    return LATMC_OK;
}

int latmc_cluster_part_sweeps(latmc_sim *sim, uint64_t n, uint64_t *accepted,
                              uint64_t *attempted)
{
    struct latmc_part *part = sim->part;
    struct latmc_cluster_job job;
    latmc_cluster_job_init(sim, &job);
    const int64_t P = job.g.plane, L = part->p1 - part->p0;
    job.site0 = part->p0 * P;
    job.halo_up = 1;
    job.box = job.g;
    job.box.l[job.g.ndim - 1] = L;
    job.box.planes = L;
    job.box.nsites = L * P;
    job.count_sizes = 1; /* the boundary clusters' sizes and the statistics */
    struct part_call c;
    memset(&c, 0, sizeof c);
    c.part = part;
    c.job = &job;
    c.n = part->n_parts;
    c.rank = part->rank;
    c.up = (part->rank + 1) % part->n_parts;
    c.P = P;
    c.L = L;
    /* everything that can fail here, before any communication of the sweeps */
    int st = latmc_cluster_check_params(sim);
    if (st == LATMC_OK)
        st = latmc_team_ready(sim->n_threads);
    if (st == LATMC_OK)
        st = part_work_of(sim, L * P, P, !job.potts && job.beta_h != 0.0, &c.w);
    if (st == LATMC_OK && !job.potts && sim->desc.couplings == LATMC_COUPLINGS_BIMODAL &&
        (st = part_couplings(sim, c.w, L * P)) == LATMC_OK)
        job.eps = c.w->eps;
    if (st == LATMC_OK)
        st = alloc_call(&c);
    if (st == LATMC_OK) {
        const int pieces = latmc_cluster_threaded(&job) ? job.n_threads : 1;
        const int k = L < pieces ? (int)L : pieces;
        job.n_units = k;
        job.unit_p = malloc(((size_t)k + 1) * sizeof *job.unit_p);
        job.row_words = latmc_cluster_row_words(&job.g);
        job.row_draws = malloc((size_t)k * job.row_words * sizeof *job.row_draws);
        job.cand = malloc((size_t)k * 2 * (size_t)P * sizeof *job.cand);
        if (!job.unit_p || !job.row_draws || !job.cand)
            st = latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the cluster "
                            "units");
        for (int u = 0; st == LATMC_OK && u <= k; u++)
            job.unit_p[u] = L * u / k;
    }
    if (st == LATMC_OK)
        st = sim->ops->get_planes(sim, part->p0, part->p1, c.w->spins);
    st = latmc_part_agree(sim, st);
    /* the halo plane: the upper neighbour's first plane (it sends its first downwards) */
    if (st == LATMC_OK)
        st = latmc_part_exchange(part, "exchange (cluster halo plane)", c.w->spins,
                                 c.w->spins + (L - 1) * P, c.scratch, c.w->spins + L * P,
                                 (size_t)P);
    uint64_t count[2] = { 0, 0 };
    for (uint64_t k = 0; st == LATMC_OK && k < n; k++)
        st = part_sweep(&c, sim->sweeps + k, &count[0], &count[1]);
    free_call(&c);
    free(job.unit_p);
    free(job.row_draws);
    free(job.cand);
    if (st < 0) /* agreed on, or the transport's (every part's) */
        return st;
    st = sim->ops->set_planes(sim, part->p0, part->p1, c.w->spins);
    const int halo_st = latmc_part_fill_halos(sim);
    st = latmc_part_agree_counts(sim, st < 0 ? st : halo_st, count);
    if (st < 0)
        return st;
    *accepted += count[0];
    *attempted += count[1];
    return LATMC_OK;
}
