/*
 * Embedded cluster steps (lib/cluster_embed.h) of a part of a lattice shared by processes
 * (include/latmc/part.h; doc/clusters.md, "Parts"): Heisenberg (any field, any couplings)
 * and phi^4 (any Lambda: with a finite one its pairs reach two planes up and, across the
 * diagonals, one plane down). The step is the
 * one-box step bit for bit -- the same bonds (drawn by their global names from the same
 * a_i and K), the same clusters named by their smallest global site, the same decisions
 * and flips, the same statistics (exact sums) -- but each part labels only its own planes
 * and joins the clusters that reach its faces with the other parts', as lib/cluster_part.c
 * joins Ising's, instead of gathering the whole configuration:
 *   1. the part's configuration (get_planes) and the replica's a_i; those of the H planes
 *      on each side that its pairs reach (H = 1, or 2 for phi^4's further pairs: one
 *      exchange);
 *   2. the bonds of its sites (those to the neighbours' planes included) and its local
 *      clusters, each named by its smallest site;
 *   3. its boundary clusters (those that reach its first or last H planes: label, size,
 *      the decision's sum Q_C and the statistics' S_C), the labels of those planes and
 *      its bonds into the neighbours' planes (its root's label, the partner's global
 *      site), and the sums of its interior clusters' statistics, to every part (two
 *      gathers);
 *   4. every part joins the same boundary graph (the smaller label winning) and adds the
 *      sizes and sums: each cluster's name, size, Q_C and S_C are those of one box;
 *   5. the decisions drawn at the names, the flips of its own sites (Wolff: the seed's
 *      cluster, its name and sums from the part that holds the seed); set_planes.
 * Cost per part and step: its planes, plus O(n_parts P) boundary data (P sites a plane);
 * memory: its planes and 2 H planes more, plus the boundary graph's O(n_parts H P). A
 * part thinner than H planes is refused (LATMC_EUNSUPPORTED; the slab rules do not make
 * one).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cluster_bonds.h"
#include "cluster_boundary.h"
#include "cluster_embed.h"
#include "cluster_embed_sum.h"
#include "heisenberg_rules.h"
#include "model.h"
#include "part.h"

/* A local cluster that reaches its part's first or last H planes, as the parts send it. */
struct emb_root {
    uint32_t label; /* its local root, a global site index */
    uint32_t size;
    int64_t q;      /* the decision's sum Q_C over the part's sites (Heisenberg in a field) */
    int64_t s;      /* the statistics' sum S_C over the part's sites */
};

/* Each part's fixed message: its boundary clusters' and cross bonds' counts and its
 * interior clusters' statistics. */
struct emb_head {
    uint64_t n_roots, n_cross, clusters, largest;
    struct latmc_embed_w2 w2;
};

/* Bit 15 of a site's bonds word: its local root reaches the first or last H planes. */
#define EMB_BOUNDARY 0x8000u

/* The step's work space (one call). */
struct emb_call {
    latmc_sim *sim;
    struct latmc_part *part;
    struct latmc_embed_problem p;
    int n, rank, nd, H;           /* parts, this one, dimensions, planes the pairs reach */
    int64_t P, L, site0, nsites;  /* sites a plane, own planes, first own site, all sites */
    void *field;                  /* own planes, every replica (get_planes' layout) */
    double *a;                    /* H P of the lower neighbour's, L P own, H P upper a_i */
    double *kbond;                /* Heisenberg: beta J of the own sites' bonds (nd a site) */
    uint16_t *bonds;              /* bit d: bond (i, d); EMB_BOUNDARY: a boundary root */
    uint32_t *cross;              /* bonds into the neighbours' planes: (site i, partner) */
    uint64_t n_cross;
    uint32_t *parent;             /* local union-find over L P sites */
    uint32_t *size;
    int64_t *q, *s;               /* per local root */
    unsigned char *mine, *all;    /* this part's message; every part's */
    size_t max_bytes;
    struct emb_head *heads;
    struct latmc_boundary b;      /* the boundary graph (lib/cluster_boundary.h) */
    uint64_t *tot_size;
    int64_t *tot_q, *tot_s;
};

/* Everything but the configuration (set_planes reads it last). */
static void free_call_arrays_but_field(struct emb_call *c)
{
    free(c->a);
    free(c->kbond);
    free(c->cross);
    free(c->bonds);
    free(c->parent);
    free(c->size);
    free(c->q);
    free(c->s);
    free(c->mine);
    free(c->all);
    free(c->heads);
    latmc_boundary_free(&c->b);
    free(c->tot_size);
    free(c->tot_q);
    free(c->tot_s);
}

/* A part's message: the labels of its first and last H planes, its boundary clusters, its
 * cross bonds (two words each). */
static size_t msg_bytes(const struct emb_call *c, uint64_t n_roots, uint64_t n_cross)
{
    return 2 * (size_t)c->H * (size_t)c->P * sizeof(uint32_t) +
           (size_t)n_roots * sizeof(struct emb_root) + 2 * (size_t)n_cross * sizeof(uint32_t);
}

/* The most cross bonds a part can have: a direction whose offset along the last axis is o
 * crosses from |o| planes (|o| <= H <= every part's planes), one bond a site of those. */
static uint64_t max_cross_of(const struct emb_call *c)
{
    uint64_t planes = 0;
    for (int d = 0; d < c->p.n_dirs; d++) {
        const int o = c->p.off[d][c->nd - 1];
        planes += (uint64_t)(o < 0 ? -o : o);
    }
    return planes * (uint64_t)c->P;
}

static int alloc_call(struct emb_call *c, size_t field_bytes, bool heisenberg)
{
    const size_t N = (size_t)(c->L * c->P), HP = (size_t)c->H * (size_t)c->P,
                 n = (size_t)c->n;
    /* at most 2 H P boundary clusters a part (one a site of the boundary planes), and
     * max_cross_of's cross bonds */
    const uint64_t max_roots = 2 * (uint64_t)HP, max_cross = max_cross_of(c);
    const size_t M = n * (size_t)max_roots;
    c->max_bytes = msg_bytes(c, max_roots, max_cross);
    /* the graph's arrays (first/last: each part's labels and cross bonds; face unused) */
    const bool graph = latmc_boundary_alloc(&c->b, c->n, c->H * c->P, sizeof(struct emb_root));
    c->field = malloc(field_bytes);
    c->a = malloc((N + 2 * HP) * sizeof *c->a);
    c->kbond = heisenberg ? malloc(N * (size_t)c->nd * sizeof *c->kbond) : NULL;
    c->cross = malloc(2 * (size_t)max_cross * sizeof *c->cross);
    c->bonds = malloc(N * sizeof *c->bonds);
    c->parent = malloc(N * sizeof *c->parent);
    c->size = malloc(N * sizeof *c->size);
    c->q = malloc(N * sizeof *c->q);
    c->s = malloc(N * sizeof *c->s);
    c->mine = malloc(c->max_bytes);
    c->all = malloc(n * c->max_bytes);
    c->heads = malloc(n * sizeof *c->heads);
    c->tot_size = malloc(M * sizeof *c->tot_size);
    c->tot_q = malloc(M * sizeof *c->tot_q);
    c->tot_s = malloc(M * sizeof *c->tot_s);
    if (!c->field || !c->a || !c->cross || (heisenberg && !c->kbond) || !c->bonds ||
        !c->parent || !c->size || !c->q || !c->s || !c->mine || !c->all || !c->heads ||
        !graph ||
        !c->tot_size || !c->tot_q || !c->tot_s)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the embedded "
                          "clusters of a part of %lld sites (%d parts)",
                          (long long)(c->L * c->P), c->n);
    return LATMC_OK;
}

/* beta J of the own sites' bonds, from the part's couplings (its planes where the backend
 * gives them so, else the whole lattice's). */
static int part_kbond(struct emb_call *c)
{
    latmc_sim *sim = c->sim;
    const size_t count = (size_t)(c->L * c->P) * (size_t)c->nd;
    if (!sim->ops->get_couplings)
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: the %s backend gives no "
                          "couplings (ops.get_couplings) for the host's cluster step of the "
                          "%s model", sim->ops->name, sim->model->name);
    float *k = NULL;
    size_t off = 0;
    const int st = latmc_part_own_couplings(sim, &k, &off);
    const double beta = sim->param[LATMC_PARAM_BETA];
    for (size_t i = 0; st == LATMC_OK && i < count; i++)
        c->kbond[i] = beta * (double)k[off + i];
    free(k);
    return st;
}

/* Steps 1 (after the a_i) and 2: the bonds of the own sites (a cross bond for each active
 * one into a neighbour's planes) and the local clusters, each site's parent its local root
 * (flat), every root's size and sums. */
static void label(struct emb_call *c)
{
    const struct latmc_embed_problem *p = &c->p;
    const int nd = c->nd, last = nd - 1;
    const int64_t P = c->P, N = c->L * c->P, L = c->L, H = c->H;
    const int64_t lx = p->g.l[0], ly = nd == 3 ? p->g.l[1] : 1;
    const double *a = c->a; /* a[(z + H) P + s]: local plane z in [-H, L + H) */
    c->n_cross = 0;
    for (int64_t i = 0; i < N; i++) {
        struct latmc_embed_draw_cache dc = LATMC_EMBED_DRAW_CACHE_INIT;
        const int64_t gi = c->site0 + i;
        const int64_t x = i % lx, y = nd == 3 ? (i / lx) % ly : 0, z = i / P;
        unsigned b = 0;
        for (int d = 0; d < p->n_dirs; d++) {
            const int64_t xp = latmc_embed_ring(x, p->off[d][0], lx);
            const int64_t yp = nd == 3 ? latmc_embed_ring(y, p->off[d][1], ly) : 0;
            const int64_t zp = z + p->off[d][last];
            const int64_t sp = xp + lx * yp;
            const double k = c->kbond ? c->kbond[(int64_t)nd * i + d] : p->k[d];
            const int on = latmc_embed_bond_on(p, k, a[H * P + i], a[(zp + H) * P + sp],
                                               (uint64_t)p->n_dirs * (uint64_t)gi +
                                                   (uint64_t)d,
                                               &dc);
            b |= (unsigned)on << d;
            if (on && (zp < 0 || zp >= L)) { /* into a neighbour's planes */
                const int64_t planes = p->g.planes;
                int64_t gz = c->part->p0 + zp;
                gz = gz < 0 ? gz + planes : gz >= planes ? gz - planes : gz;
                c->cross[2 * c->n_cross] = (uint32_t)i;
                c->cross[2 * c->n_cross + 1] = (uint32_t)(gz * P + sp);
                c->n_cross++;
            }
        }
        c->bonds[i] = (uint16_t)b;
        c->parent[i] = (uint32_t)i;
    }
    /* the unions inside the own planes */
    for (int64_t i = 0; i < N; i++) {
        if (!c->bonds[i])
            continue;
        const int64_t x = i % lx, y = nd == 3 ? (i / lx) % ly : 0, z = i / P;
        for (int d = 0; d < p->n_dirs; d++) {
            if (!(c->bonds[i] >> d & 1u))
                continue;
            const int64_t zp = z + p->off[d][last];
            if (zp < 0 || zp >= L)
                continue;
            const int64_t j = zp * P + latmc_embed_ring(x, p->off[d][0], lx) +
                              lx * (nd == 3 ? latmc_embed_ring(y, p->off[d][1], ly) : 0);
            const uint32_t ra = latmc_cluster_find_halving(c->parent, (uint32_t)i),
                           rb = latmc_cluster_find_halving(c->parent, (uint32_t)j);
            if (ra < rb)
                c->parent[rb] = ra;
            else if (rb < ra)
                c->parent[ra] = rb;
        }
    }
    /* flat: a parent is never above its site, so in increasing order it is final */
    for (int64_t i = 0; i < N; i++)
        c->parent[i] = c->parent[c->parent[i]];
    for (int64_t i = 0; i < N; i++)
        if (c->parent[i] == (uint32_t)i) {
            c->size[i] = 0;
            c->q[i] = c->s[i] = 0;
        }
    const bool field = p->field != 0.0;
    for (int64_t i = 0; i < N; i++) {
        const uint32_t r = c->parent[i];
        c->size[r]++;
        c->s[r] += latmc_embed_stat_term(a[H * P + i]);
        if (field)
            c->q[r] += latmc_embed_sum_term(a[H * P + i]);
    }
}

/* The local root label of global site g as its part sent it (g in that part's first or
 * last H planes: the planes the other parts' bonds reach). */
static uint32_t sent_label(const struct emb_call *c, const uint32_t *const *labels, uint64_t g)
{
    const int64_t *first = c->part->first;
    const int64_t gz = (int64_t)(g / (uint64_t)c->P), s = (int64_t)(g % (uint64_t)c->P);
    int q = 0;
    while (first[q + 1] <= gz)
        q++;
    const int64_t z = gz - first[q], Lq = first[q + 1] - first[q];
    const int64_t row = z < c->H ? z : c->H + z - (Lq - c->H); /* first H, then last H */
    return labels[q][row * c->P + s];
}

/* Steps 3 and 4: the messages, the gathers, the boundary graph joined; the statistics
 * (every part's interior clusters, then the joined boundary ones) into *stats. */
static int join(struct emb_call *c, struct latmc_embed_stats *stats)
{
    const int64_t P = c->P, L = c->L, HP = (int64_t)c->H * c->P;
    uint32_t *lab = (uint32_t *)(void *)c->mine; /* first H planes' labels, last H planes' */
    struct emb_root *roots = (struct emb_root *)(void *)(lab + 2 * HP);
    uint64_t nr = 0;
    for (int k = 0; k < 2; k++) {
        const int64_t i0 = k == 0 ? 0 : (L - c->H) * P;
        for (int64_t t = 0; t < HP; t++) {
            const uint32_t r = c->parent[i0 + t];
            lab[k * HP + t] = r + (uint32_t)c->site0;
            if (!(c->bonds[r] & EMB_BOUNDARY)) {
                c->bonds[r] |= EMB_BOUNDARY;
                roots[nr].label = r + (uint32_t)c->site0;
                roots[nr].size = c->size[r];
                roots[nr].q = c->q[r];
                roots[nr].s = c->s[r];
                nr++;
            }
        }
    }
    qsort(roots, (size_t)nr, sizeof *roots, latmc_boundary_by_label);
    /* the cross bonds: the origin's local root (a boundary root: the bonds into the
     * neighbours' planes start in the first or last H planes) and the partner site */
    uint32_t *cross = (uint32_t *)(void *)(roots + nr);
    for (uint64_t k = 0; k < c->n_cross; k++) {
        cross[2 * k] = c->parent[c->cross[2 * k]] + (uint32_t)c->site0;
        cross[2 * k + 1] = c->cross[2 * k + 1];
    }
    struct emb_head head;
    memset(&head, 0, sizeof head);
    head.n_roots = nr;
    head.n_cross = c->n_cross;
    for (int64_t i = 0; i < L * P; i++)
        if (c->parent[i] == (uint32_t)i && !(c->bonds[i] & EMB_BOUNDARY)) {
            head.clusters++;
            head.largest = c->size[i] > head.largest ? c->size[i] : head.largest;
            latmc_embed_w2_add(&head.w2, c->s[i]);
        }
    size_t *bytes = c->part->gather_bytes;
    for (int p = 0; p < c->n; p++)
        bytes[p] = sizeof head;
    int st = latmc_part_gather(c->part, "gather (embedded cluster boundary counts)", -1,
                               &head, c->heads, bytes);
    if (st < 0)
        return st;
    const uint64_t max_roots = 2 * (uint64_t)HP, max_cross = max_cross_of(c);
    for (int p = 0; p < c->n; p++) {
        if (c->heads[p].n_roots > max_roots || c->heads[p].n_cross > max_cross)
            return latmc_fail(LATMC_EBACKEND, "part transport: gather (embedded cluster "
                              "boundary counts) delivered %llu boundary clusters and %llu "
                              "bonds from part %d (at most %llu and %llu)",
                              (unsigned long long)c->heads[p].n_roots,
                              (unsigned long long)c->heads[p].n_cross, p,
                              (unsigned long long)max_roots, (unsigned long long)max_cross);
        bytes[p] = msg_bytes(c, c->heads[p].n_roots, c->heads[p].n_cross);
    }
    st = latmc_part_gather(c->part, "gather (embedded cluster boundaries)", -1, c->mine,
                           c->all, bytes);
    if (st < 0)
        return st;
    /* the graph (lib/cluster_boundary.h's nodes): each part's labels in b.first, its
     * records in b.roots, its cross bonds in b.last */
    const unsigned char *at = c->all;
    c->b.base[0] = 0;
    for (int p = 0; p < c->n; p++) {
        const uint64_t n_roots = c->heads[p].n_roots;
        c->b.first[p] = (const uint32_t *)(const void *)at;
        c->b.roots[p] = (const unsigned char *)(c->b.first[p] + 2 * HP);
        c->b.last[p] = (const uint32_t *)(const void *)(c->b.roots[p] +
                                                        (size_t)n_roots * c->b.stride);
        c->b.base[p + 1] = c->b.base[p] + (int64_t)n_roots;
        at += bytes[p];
    }
    const int64_t M = c->b.base[c->n];
    for (int64_t k = 0; k < M; k++) {
        c->b.uf[k] = (uint32_t)k;
        c->tot_size[k] = 0;
        c->tot_q[k] = c->tot_s[k] = 0;
    }
    /* every part's cross bonds, the smaller node winning (nodes are numbered in label
     * order, so the smaller node is the smaller label) */
    for (int p = 0; p < c->n; p++)
        for (uint64_t k = 0; k < c->heads[p].n_cross; k++) {
            const uint32_t *e = c->b.last[p] + 2 * k;
            const uint32_t u = latmc_cluster_find_halving(c->b.uf,
                                                   (uint32_t)latmc_boundary_node(&c->b, p, e[0]));
            const uint32_t lb = sent_label(c, c->b.first, e[1]);
            int q = 0;
            while (c->part->first[q + 1] * c->P <= (int64_t)e[1])
                q++;
            const uint32_t v = latmc_cluster_find_halving(c->b.uf,
                                                   (uint32_t)latmc_boundary_node(&c->b, q, lb));
            if (u < v)
                c->b.uf[v] = u;
            else if (v < u)
                c->b.uf[u] = v;
        }
    for (int p = 0; p < c->n; p++)
        for (int64_t k = c->b.base[p]; k < c->b.base[p + 1]; k++) {
            const uint32_t r = latmc_cluster_find_halving(c->b.uf, (uint32_t)k);
            const struct emb_root *e = latmc_boundary_record(&c->b, p, k);
            c->tot_size[r] += e->size;
            c->tot_q[r] += e->q;
            c->tot_s[r] += e->s;
        }
    if (c->p.wolff)
        return LATMC_OK;
    uint64_t clusters = 0, largest = 0;
    struct latmc_embed_w2 w2 = { 0, 0 };
    for (int p = 0; p < c->n; p++) {
        clusters += c->heads[p].clusters;
        largest = c->heads[p].largest > largest ? c->heads[p].largest : largest;
        latmc_embed_w2_merge(&w2, &c->heads[p].w2);
    }
    for (int64_t k = 0; k < M; k++)
        if (c->b.uf[k] == (uint32_t)k) {
            clusters++;
            largest = c->tot_size[k] > largest ? c->tot_size[k] : largest;
            latmc_embed_w2_add(&w2, c->tot_s[k]);
        }
    stats->clusters = (int64_t)clusters;
    stats->largest = (int64_t)largest;
    stats->w2 = latmc_embed_w2_value(&w2);
    stats->size = c->nsites;
    return LATMC_OK;
}

/* A cluster's name and sums: a boundary root's from the joined graph, else its own. */
static void cluster_of(struct emb_call *c, uint32_t r, int64_t out[4])
{
    if (c->bonds[r] & EMB_BOUNDARY) {
        const uint32_t R = latmc_cluster_find_halving(
            c->b.uf, (uint32_t)latmc_boundary_node(&c->b, c->rank, r + (uint32_t)c->site0));
        out[0] = latmc_boundary_label(&c->b, R);
        out[1] = (int64_t)c->tot_size[R];
        out[2] = c->tot_q[R];
        out[3] = c->tot_s[R];
    } else {
        out[0] = (int64_t)r + c->site0;
        out[1] = c->size[r];
        out[2] = c->q[r];
        out[3] = c->s[r];
    }
}

/* Step 5: each local root's flip (in bonds[r], bit 0: flip) and, for Wolff, the statistics. */
static int decide(struct emb_call *c, struct latmc_embed_stats *stats)
{
    const struct latmc_embed_problem *p = &c->p;
    const int64_t N = c->L * c->P;
    if (!p->wolff) {
        for (int64_t i = 0; i < N; i++) {
            if (c->parent[i] != (uint32_t)i)
                continue;
            int64_t cl[4];
            cluster_of(c, (uint32_t)i, cl);
            const uint32_t u = latmc_embed_draw(p, LATMC_CLUSTER_PHASE_DECIDE, (uint64_t)cl[0]);
            c->bonds[i] = (uint64_t)u < latmc_embed_keep_threshold(p->field, cl[2]) ? 0 : 1;
        }
        return LATMC_OK;
    }
    /* Wolff: the seed's cluster (its name, size and sums, from its part) */
    const int64_t seed = latmc_cluster_seed_of(
        p->seed, latmc_rng_cluster_name(p->sweep, p->replica, LATMC_CLUSTER_PHASE_SEED,
                                        LATMC_EMBED_SUB),
        c->nsites);
    const int64_t *first = c->part->first;
    int owner = 0;
    while (first[owner + 1] * c->P <= seed)
        owner++;
    int64_t cl[4] = { 0, 0, 0, 0 };
    if (owner == c->rank)
        cluster_of(c, c->parent[seed - c->site0], cl);
    const int st = latmc_part_broadcast(c->part, "broadcast (embedded Wolff cluster)", owner,
                                        cl, sizeof cl);
    if (st < 0)
        return st;
    /* without a field it flips; in one, kept by the draw at its name (its smallest site) */
    const int keep = p->field != 0.0 &&
                     (uint64_t)latmc_embed_draw(p, LATMC_CLUSTER_PHASE_DECIDE, (uint64_t)cl[0]) <
                         latmc_embed_keep_threshold(p->field, cl[2]);
    for (int64_t i = 0; i < N; i++) {
        if (c->parent[i] != (uint32_t)i)
            continue;
        int64_t mine[4];
        cluster_of(c, (uint32_t)i, mine);
        c->bonds[i] = !keep && mine[0] == cl[0];
    }
    stats->clusters = 1;
    stats->largest = cl[1];
    stats->w2 = latmc_embed_wolff_w2(cl[3], cl[1]);
    stats->size = cl[1];
    return LATMC_OK;
}

/* The planes a step's pairs reach on each side: 1 (nearest neighbours), 2 for phi^4 with
 * a finite Lambda (i + 2 e_mu; the diagonals reach one plane down). */
static int reach_of(const latmc_sim *sim)
{
    return sim->desc.model == LATMC_MODEL_PHI4 && isfinite(sim->param[LATMC_PARAM_LAMBDA])
               ? 2 : 1;
}

/* Whether every part is at least as thick as the planes the step's pairs reach (its
 * neighbours' planes are its halo); the part table is every part's, so is the answer.
 * The models' slab rules (at least 1 plane; phi^4 4 or 5) make this a guard. */
static bool parts_thick_enough(const latmc_sim *sim)
{
    const struct latmc_part *part = sim->part;
    const int H = reach_of(sim);
    for (int q = 0; q < part->n_parts; q++)
        if (part->first[q + 1] - part->first[q] < H)
            return false;
    return true;
}

int latmc_embed_part_step(latmc_sim *sim, uint64_t sweep, struct latmc_embed_stats *stats)
{
    const latmc_sim_desc *d = &sim->desc;
    const bool heisenberg = d->model == LATMC_MODEL_HEISENBERG;
    if (!latmc_part_many(sim) || (d->model != LATMC_MODEL_HEISENBERG &&
                                  d->model != LATMC_MODEL_PHI4))
        return latmc_fail(LATMC_EBACKEND, "latmc_sim_sweep: an embedded cluster step on "
                          "parts of a sim that is none (a bug in the core)");
    if (!parts_thick_enough(sim))
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: the embedded cluster step "
                          "on parts needs every part at least %d planes thick",
                          reach_of(sim));
    struct latmc_part *part = sim->part;
    struct emb_call c;
    memset(&c, 0, sizeof c);
    c.sim = sim;
    c.part = part;
    c.n = part->n_parts;
    c.rank = part->rank;
    c.nd = d->ndim;
    c.nsites = sim->nsites;
    c.p.g = latmc_cluster_lattice_of(d->ndim, d->extent);
    c.P = c.p.g.plane;
    c.L = part->p1 - part->p0;
    c.site0 = part->p0 * c.P;
    c.H = reach_of(sim);
    if (heisenberg) {
        c.p.n_dirs = d->ndim;
        for (int mu = 0; mu < d->ndim; mu++)
            c.p.off[mu][mu] = 1;
    } else {
        latmc_embed_phi4_dirs(d->ndim, sim->param[LATMC_PARAM_LAMBDA], &c.p);
    }
    c.p.seed = d->seed;
    c.p.sweep = sweep;
    c.p.wolff = d->algorithm == LATMC_ALGO_WOLFF;
    c.p.n_threads = 1;
    const int reps = heisenberg ? d->replicas : 1;
    const size_t site_bytes = sim->model->site_bytes(d);
    const size_t own = (size_t)(c.L * c.P), HP = (size_t)c.H * (size_t)c.P;
    /* everything that can fail here, agreed on before any communication of the step */
    int st = alloc_call(&c, own * (size_t)reps * site_bytes, heisenberg);
    if (st == LATMC_OK && heisenberg)
        st = part_kbond(&c);
    if (st == LATMC_OK)
        st = sim->ops->get_planes(sim, part->p0, part->p1, c.field);
    st = latmc_part_agree(sim, st);
    const double beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H];
    const bool single = d->precision == LATMC_PRECISION_FLOAT;
    for (int rep = 0; st == LATMC_OK && rep < reps; rep++) {
        double r[3] = { 0, 0, 0 };
        c.p.replica = (uint32_t)rep;
        float *hs = NULL;
        if (heisenberg) {
            latmc_embed_heisenberg_axis(&c.p, r);
            c.p.field = beta_h * r[2];
            hs = (float *)c.field + (size_t)LATMC_HEISENBERG_COMPONENTS * own * (size_t)rep;
            for (size_t i = 0; i < own; i++) {
                const float *v = hs + LATMC_HEISENBERG_COMPONENTS * i;
                c.a[HP + i] = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
            }
        } else {
            for (size_t i = 0; i < own; i++)
                c.a[HP + i] = single ? (double)((const float *)c.field)[i]
                                     : ((const double *)c.field)[i];
        }
        /* the neighbours' H planes nearest to this part: its first H planes go down, its
         * last H up; the lower neighbour's last H planes and the upper's first H come in */
        st = latmc_part_exchange(part, "exchange (embedded cluster halo planes)", c.a + HP,
                                 c.a + HP + own - HP, c.a, c.a + HP + own,
                                 HP * sizeof *c.a);
        if (st < 0)
            break;
        label(&c);
        struct latmc_embed_stats one;
        memset(&one, 0, sizeof one);
        if ((st = join(&c, &one)) < 0 || (st = decide(&c, &one)) < 0)
            break;
        if (rep == 0) {
            *stats = one;
            if (heisenberg)
                stats->w2 *= 3.0; /* <(r . M)^2> = <|M|^2> / 3, as the one-box step */
        }
        /* the flips: each site takes its local root's */
        for (size_t i = 0; i < own; i++) {
            if (!(c.bonds[c.parent[i]] & 1u))
                continue;
            if (heisenberg) {
                float *v = hs + LATMC_HEISENBERG_COMPONENTS * i;
                const double two_a = 2.0 * c.a[HP + i];
                double out[3];
                for (int k = 0; k < 3; k++)
                    out[k] = (double)v[k] - two_a * r[k];
                latmc_heisenberg_store_unit(out, v); /* as every spin the library writes */
            } else if (single) {
                float *f = c.field;
                f[i] = -f[i];
            } else {
                double *f = c.field;
                f[i] = -f[i];
            }
        }
    }
    free_call_arrays_but_field(&c);
    if (st == LATMC_OK) {
        /* the own planes back, then the halos the next sweep's local passes read (every
         * part's, collective), the status agreed on (a local failure is every part's) */
        st = sim->ops->set_planes(sim, part->p0, part->p1, c.field);
        const int halo_st = latmc_part_fill_halos(sim);
        st = latmc_part_agree(sim, st < 0 ? st : halo_st);
    }
    free(c.field);
    return st;
}
