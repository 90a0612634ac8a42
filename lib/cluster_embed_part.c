/*
 * Embedded cluster steps (lib/cluster_embed.h) of a part of a lattice shared by processes
 * (include/latmc/part.h; doc/clusters.md, "Parts"): Heisenberg (any field, any couplings)
 * and phi^4 with Lambda = inf, whose coupled pairs are nearest neighbours. The step is the
 * one-box step bit for bit -- the same bonds (drawn by their global names from the same
 * a_i and K), the same clusters named by their smallest global site, the same decisions
 * and flips, the same statistics (exact sums) -- but each part labels only its own planes
 * and joins the clusters that reach its faces with the other parts', as lib/cluster_part.c
 * joins Ising's, instead of gathering the whole configuration:
 *   1. the part's configuration (get_planes) and the replica's a_i; the a_i of the upper
 *      neighbour's first plane (one exchange);
 *   2. the bonds of its sites (those from its last plane upwards included) and its local
 *      clusters, each named by its smallest site;
 *   3. its boundary clusters (those that reach its first or last plane: label, size, the
 *      decision's sum Q_C and the statistics' S_C) with the face's bonds, and the sums of
 *      its interior clusters' statistics, to every part (two gathers);
 *   4. every part joins the same boundary graph (the smaller label winning) and adds the
 *      sizes and sums: each cluster's name, size, Q_C and S_C are those of one box;
 *   5. the decisions drawn at the names, the flips of its own sites (Wolff: the seed's
 *      cluster, its name and sums from the part that holds the seed); set_planes.
 * Cost per part and step: its planes, plus O(n_parts P) boundary data (P sites a plane);
 * memory: its planes and one plane more, plus the boundary graph's O(n_parts P) (sized
 * for 2 P boundary clusters a part; a gathering part holds the whole lattice).
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

/* A local cluster that reaches its part's first or last plane, as the parts send it. */
struct emb_root {
    uint32_t label; /* its local root, a global site index */
    uint32_t size;
    int64_t q;      /* the decision's sum Q_C over the part's sites (Heisenberg in a field) */
    int64_t s;      /* the statistics' sum S_C over the part's sites */
};

/* Each part's fixed message: its boundary clusters' count and its interior clusters'
 * statistics. */
struct emb_head {
    uint64_t n_roots, clusters, largest;
    struct latmc_embed_w2 w2;
};

/* The step's work space (one call). */
struct emb_call {
    latmc_sim *sim;
    struct latmc_part *part;
    struct latmc_embed_problem p;
    int n, rank, nd;
    int64_t P, L, site0, nsites;  /* sites a plane, own planes, first own site, all sites */
    void *field;                  /* own planes, every replica (get_planes' layout) */
    double *a;                    /* L P own a_i, then P of the upper neighbour's first plane */
    double *scratch;              /* the lower neighbour's last plane (not needed) */
    double *kbond;                /* Heisenberg: beta J of the own sites' bonds (nd a site) */
    uint8_t *bonds;               /* bit d: bond (i, d); bit 7: a boundary root */
    uint32_t *parent;             /* local union-find over L P sites */
    uint32_t *size;
    int64_t *q, *s;               /* per local root */
    unsigned char *mine, *all;    /* this part's message; every part's */
    size_t max_bytes;
    struct emb_head *heads;
    uint64_t *counts;             /* each part's boundary clusters */
    struct latmc_boundary b;      /* the boundary graph (lib/cluster_boundary.h) */
    uint64_t *tot_size;
    int64_t *tot_q, *tot_s;
};

/* Everything but the configuration (set_planes reads it last). */
static void free_call_arrays_but_field(struct emb_call *c)
{
    free(c->a);
    free(c->scratch);
    free(c->kbond);
    free(c->bonds);
    free(c->parent);
    free(c->size);
    free(c->q);
    free(c->s);
    free(c->mine);
    free(c->all);
    free(c->heads);
    free(c->counts);
    latmc_boundary_free(&c->b);
    free(c->tot_size);
    free(c->tot_q);
    free(c->tot_s);
}

static int alloc_call(struct emb_call *c, size_t field_bytes, bool heisenberg)
{
    const size_t N = (size_t)(c->L * c->P), P = (size_t)c->P, n = (size_t)c->n;
    const size_t M = n * 2 * P; /* at most 2 P boundary clusters a part */
    c->max_bytes = latmc_boundary_msg_bytes(c->P, sizeof(struct emb_root), 2 * (uint64_t)c->P);
    const bool graph = latmc_boundary_alloc(&c->b, c->n, c->P, sizeof(struct emb_root));
    c->field = malloc(field_bytes);
    c->a = malloc((N + P) * sizeof *c->a);
    c->scratch = malloc(P * sizeof *c->scratch);
    c->kbond = heisenberg ? malloc(N * (size_t)c->nd * sizeof *c->kbond) : NULL;
    c->bonds = malloc(N);
    c->parent = malloc(N * sizeof *c->parent);
    c->size = malloc(N * sizeof *c->size);
    c->q = malloc(N * sizeof *c->q);
    c->s = malloc(N * sizeof *c->s);
    c->mine = malloc(c->max_bytes);
    c->all = malloc(n * c->max_bytes);
    c->heads = malloc(n * sizeof *c->heads);
    c->counts = malloc(n * sizeof *c->counts);
    c->tot_size = malloc(M * sizeof *c->tot_size);
    c->tot_q = malloc(M * sizeof *c->tot_q);
    c->tot_s = malloc(M * sizeof *c->tot_s);
    if (!c->field || !c->a || !c->scratch || (heisenberg && !c->kbond) || !c->bonds ||
        !c->parent || !c->size || !c->q || !c->s || !c->mine || !c->all || !c->heads ||
        !c->counts || !graph ||
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
    const bool planes = latmc_part_has_coupling_planes(sim);
    float *k = malloc((planes ? count : (size_t)c->nsites * (size_t)c->nd) * sizeof *k);
    if (!k)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the couplings of "
                          "the cluster step");
    int st = planes ? sim->ops->get_coupling_planes(sim, c->part->p0, c->part->p1, k)
                    : LATMC_EUNSUPPORTED;
    size_t off = 0;
    if (st == LATMC_EUNSUPPORTED) { /* the backend holds them all */
        float *all = planes ? realloc(k, (size_t)c->nsites * (size_t)c->nd * sizeof *k) : k;
        if (!all) {
            free(k);
            return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the couplings");
        }
        k = all;
        st = sim->ops->get_couplings(sim, k);
        off = (size_t)c->site0 * (size_t)c->nd;
    }
    const double beta = sim->param[LATMC_PARAM_BETA];
    for (size_t i = 0; st == LATMC_OK && i < count; i++)
        c->kbond[i] = beta * (double)k[off + i];
    free(k);
    return st;
}

/* Steps 1 (after the a_i) and 2: the bonds of the own sites and the local clusters, each
 * site's parent its local root (flat), every root's size and sums. */
static void label(struct emb_call *c)
{
    const struct latmc_embed_problem *p = &c->p;
    const int64_t P = c->P, N = c->L * c->P;
    const int64_t lx = p->g.l[0], ly = p->g.l[1];
    const double *a = c->a;
    for (int64_t i = 0; i < N; i++) {
        struct latmc_embed_draw_cache dc = LATMC_EMBED_DRAW_CACHE_INIT;
        const int64_t gi = c->site0 + i;
        const int64_t x = i % lx, y = (i / lx) % ly;
        unsigned b = 0;
        for (int d = 0; d < c->nd; d++) {
            /* the partner one site up along d, in the own planes or the halo plane */
            int64_t j;
            if (d == c->nd - 1)
                j = i + P;
            else if (d == 0)
                j = i - x + (x + 1 == lx ? 0 : x + 1);
            else
                j = i - x - lx * y + x + lx * (y + 1 == ly ? 0 : y + 1);
            const double k = c->kbond ? c->kbond[(int64_t)c->nd * i + d] : p->k[d];
            b |= (unsigned)latmc_embed_bond_on(p, k, a[i], a[j],
                                               (uint64_t)c->nd * (uint64_t)gi + (uint64_t)d,
                                               &dc)
                 << d;
        }
        c->bonds[i] = (uint8_t)b;
        c->parent[i] = (uint32_t)i;
    }
    /* the unions inside the own planes (the bonds into the halo plane are the face's) */
    for (int64_t i = 0; i < N; i++) {
        if (!c->bonds[i])
            continue;
        const int64_t x = i % lx, y = (i / lx) % ly;
        for (int d = 0; d < c->nd; d++) {
            if (!(c->bonds[i] >> d & 1u))
                continue;
            int64_t j;
            if (d == c->nd - 1) {
                j = i + P;
                if (j >= N)
                    continue;
            } else if (d == 0) {
                j = i - x + (x + 1 == lx ? 0 : x + 1);
            } else {
                j = i - x - lx * y + x + lx * (y + 1 == ly ? 0 : y + 1);
            }
            const uint32_t ra = latmc_boundary_find(c->parent, (uint32_t)i), rb = latmc_boundary_find(c->parent, (uint32_t)j);
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
        c->s[r] += latmc_embed_stat_term(a[i]);
        if (field)
            c->q[r] += latmc_embed_sum_term(a[i]);
    }
}

/* Steps 3 and 4: the messages, the gathers, the boundary graph joined; the statistics
 * (every part's interior clusters, then the joined boundary ones) into *stats. */
static int join(struct emb_call *c, struct latmc_embed_stats *stats)
{
    const int64_t P = c->P, L = c->L;
    uint32_t *first = (uint32_t *)(void *)c->mine, *last = first + P;
    struct emb_root *roots = (struct emb_root *)(void *)(last + P);
    uint64_t nr = 0;
    for (int k = 0; k < 2; k++) {
        const int64_t i0 = k == 0 ? 0 : (L - 1) * P;
        uint32_t *lab = k == 0 ? first : last;
        for (int64_t x = 0; x < P; x++) {
            const uint32_t r = c->parent[i0 + x];
            lab[x] = r + (uint32_t)c->site0;
            if (!(c->bonds[r] & 0x80u)) {
                c->bonds[r] |= 0x80u;
                roots[nr].label = r + (uint32_t)c->site0;
                roots[nr].size = c->size[r];
                roots[nr].q = c->q[r];
                roots[nr].s = c->s[r];
                nr++;
            }
        }
    }
    qsort(roots, (size_t)nr, sizeof *roots, latmc_boundary_by_label);
    uint8_t *face = (uint8_t *)(roots + nr);
    const unsigned up_bit = 1u << (c->nd - 1);
    memset(face, 0, ((size_t)P + 7) & ~(size_t)7);
    for (int64_t x = 0; x < P; x++)
        face[x] = (c->bonds[(L - 1) * P + x] & up_bit) != 0;
    struct emb_head head;
    memset(&head, 0, sizeof head);
    head.n_roots = nr;
    for (int64_t i = 0; i < L * P; i++)
        if (c->parent[i] == (uint32_t)i && !(c->bonds[i] & 0x80u)) {
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
    for (int p = 0; p < c->n; p++) {
        if (c->heads[p].n_roots > 2 * (uint64_t)P)
            return latmc_fail(LATMC_EBACKEND, "part transport: gather (embedded cluster "
                              "boundary counts) delivered %llu boundary clusters from part "
                              "%d (at most %lld)", (unsigned long long)c->heads[p].n_roots,
                              p, (long long)(2 * P));
        bytes[p] = latmc_boundary_msg_bytes(P, sizeof(struct emb_root), c->heads[p].n_roots);
        c->counts[p] = c->heads[p].n_roots;
    }
    st = latmc_part_gather(c->part, "gather (embedded cluster boundaries)", -1, c->mine,
                           c->all, bytes);
    if (st < 0)
        return st;
    latmc_boundary_join(&c->b, c->all, bytes, c->counts);
    const int64_t M = c->b.base[c->n];
    for (int64_t k = 0; k < M; k++) {
        c->tot_size[k] = 0;
        c->tot_q[k] = c->tot_s[k] = 0;
    }
    for (int p = 0; p < c->n; p++)
        for (int64_t k = c->b.base[p]; k < c->b.base[p + 1]; k++) {
            const uint32_t r = latmc_boundary_find(c->b.uf, (uint32_t)k);
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
    if (c->bonds[r] & 0x80u) {
        const uint32_t R = latmc_boundary_find(
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

bool latmc_embed_part_applies(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return latmc_part_many(sim) && d->ndim >= 2 &&
           (d->model == LATMC_MODEL_HEISENBERG ||
            (d->model == LATMC_MODEL_PHI4 && !isfinite(sim->param[LATMC_PARAM_LAMBDA])));
}

int latmc_embed_part_step(latmc_sim *sim, uint64_t sweep, struct latmc_embed_stats *stats)
{
    const latmc_sim_desc *d = &sim->desc;
    const bool heisenberg = d->model == LATMC_MODEL_HEISENBERG;
    if (!latmc_embed_part_applies(sim))
        return LATMC_EUNSUPPORTED;
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
    const size_t own = (size_t)(c.L * c.P);
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
                c.a[i] = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
            }
        } else {
            for (size_t i = 0; i < own; i++)
                c.a[i] = single ? (double)((const float *)c.field)[i]
                                : ((const double *)c.field)[i];
        }
        /* the upper neighbour's first plane's a_i (it sends its first plane downwards) */
        st = latmc_part_exchange(part, "exchange (embedded cluster halo plane)", c.a,
                                 c.a + own - (size_t)c.P, c.scratch, c.a + own,
                                 (size_t)c.P * sizeof *c.a);
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
                const double two_a = 2.0 * c.a[i];
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
