/*
 * One embedded-Ising cluster step (lib/cluster_embed.h defines it): the bonds from their
 * draws, the clusters by union-find (the smaller root wins, so a root is its cluster's
 * smallest site, its name), each cluster's decision from the draw at its name. Wolff grows
 * the one cluster of a drawn seed site over the same bonds. The bonds are drawn in
 * parallel (each from its own name); the union-find runs in one thread (its result, the
 * partition and the names, does not depend on the order of the unions anyway). exp and
 * expm1 are liblatmc's own (lib/latmc_math.h), so the chain does not depend on the C
 * library.
 */
#include <math.h>
#include <string.h>

#include "cluster_bonds.h"
#include "cluster_embed.h"
#include "cluster_embed_sum.h"
#include "decision.h"
#include "latmc_math.h"
#include "rng_streams.h"

#ifdef _OPENMP
#  include <omp.h>
#  define EMBED_PRAGMA_(x) _Pragma(#x)
#  define EMBED_OMP(x) EMBED_PRAGMA_(omp x)
#else
#  define EMBED_OMP(x)
#endif

/* Below this many sites one thread is quicker than waking a team (speed only). */
#define EMBED_MIN_PARALLEL_SITES 16384

/* The name of phase `phase` of the problem's draws. */
static struct latmc_rng_name embed_name(const struct latmc_embed_problem *p, uint32_t phase)
{
    return latmc_rng_cluster_name(p->sweep, p->replica, phase, LATMC_EMBED_SUB);
}

uint32_t latmc_embed_draw(const struct latmc_embed_problem *p, uint32_t phase, uint64_t n)
{
    const latmc_philox_ctr r = latmc_rng_name_block(p->seed, embed_name(p, phase), n >> 2);
    return r.v[n & 3u];
}

/* Every partner of site i (sign +1) or the sites whose partner i is (-1), from one
 * decoding of i's coordinates. */
static void partners_of(const struct latmc_embed_problem *p, int64_t i, int sign, int64_t *out)
{
    const int64_t *l = p->g.l;
    const int64_t x = i % l[0], y = (i / l[0]) % l[1], z = i / (l[0] * l[1]);
    for (int d = 0; d < p->n_dirs; d++) {
        const int *o = p->off[d];
        out[d] = latmc_embed_ring(x, sign * o[0], l[0]) +
                 l[0] * (latmc_embed_ring(y, sign * o[1], l[1]) + l[1] * latmc_embed_ring(z, sign * o[2], l[2]));
    }
}


static double coupling(const struct latmc_embed_problem *p, int64_t i, int d)
{
    return p->kbond ? p->kbond[(int64_t)p->n_dirs * i + d] : p->k[d];
}

int latmc_embed_bond_on(const struct latmc_embed_problem *p, double k, double ai, double aj,
                        uint64_t n, struct latmc_embed_draw_cache *c)
{
    const double x = k * ai * aj;
    if (!(x > 0.0))
        return 0;
    /* beyond 2x = 50, p rounds to 1 (and latmc_math_expm1 keeps to its domain) */
    const uint64_t thr =
        x > 25.0 ? UINT64_C(1) << 32 : latmc_threshold_u32(-latmc_math_expm1(-2.0 * x));
    if (c->block != n >> 2) {
        c->block = n >> 2;
        c->r = latmc_rng_name_block(p->seed, embed_name(p, LATMC_CLUSTER_PHASE_BONDS), n >> 2);
    }
    return (uint64_t)c->r.v[n & 3u] < thr;
}

/* Whether bond (i, d), from i to its partner j, is active (latmc_embed_bond_on). */
static int bond_on(const struct latmc_embed_problem *p, const double *a, int64_t i, int d,
                   int64_t j, struct latmc_embed_draw_cache *c)
{
    return latmc_embed_bond_on(p, coupling(p, i, d), a[i], a[j],
                               (uint64_t)p->n_dirs * (uint64_t)i + (uint64_t)d, c);
}

static uint32_t find_root(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]]; /* halving keeps parent[y] <= y */
        x = parent[x];
    }
    return x;
}

static void swendsen_wang(const struct latmc_embed_problem *p, struct latmc_embed_work *w,
                          struct latmc_embed_stats *out)
{
    const int64_t N = p->g.nsites;
    const double *a = w->a;
    int nt = 1;
#ifdef _OPENMP
    if (p->n_threads > 1 && N >= EMBED_MIN_PARALLEL_SITES && !omp_in_parallel())
        nt = p->n_threads;
#endif
    (void)nt;
    EMBED_OMP(parallel for num_threads(nt) schedule(static) if(nt > 1))
    for (int64_t i = 0; i < N; i++) {
        struct latmc_embed_draw_cache c = LATMC_EMBED_DRAW_CACHE_INIT;
        int64_t j[LATMC_EMBED_MAX_DIRS];
        partners_of(p, i, 1, j);
        unsigned b = 0;
        for (int d = 0; d < p->n_dirs; d++)
            b |= (unsigned)bond_on(p, a, i, d, j[d], &c) << d;
        w->bonds[i] = (uint16_t)b;
        w->parent[i] = (uint32_t)i;
    }
    for (int64_t i = 0; i < N; i++) {
        if (!w->bonds[i])
            continue;
        int64_t j[LATMC_EMBED_MAX_DIRS];
        partners_of(p, i, 1, j);
        for (int d = 0; d < p->n_dirs; d++) {
            if (!(w->bonds[i] >> d & 1u))
                continue;
            const uint32_t ra = find_root(w->parent, (uint32_t)i);
            const uint32_t rb = find_root(w->parent, (uint32_t)j[d]);
            if (ra < rb)
                w->parent[rb] = ra;
            else if (rb < ra)
                w->parent[ra] = rb;
        }
    }
    for (int64_t i = 0; i < N; i++)
        w->name[i] = find_root(w->parent, (uint32_t)i);
    /* sizes counted in parent (free now) */
    latmc_embed_sw_stats(N, w->name, a, w->ssum, w->parent, out);
    /* in a field each cluster's Q_C (lib/cluster_embed_sum.h: integers, so the order of
     * the additions does not matter) at its name */
    const bool field = p->field != 0.0;
    if (field) {
        for (int64_t i = 0; i < N; i++)
            if (w->name[i] == (uint32_t)i)
                w->qsum[i] = 0;
        for (int64_t i = 0; i < N; i++)
            w->qsum[w->name[i]] += latmc_embed_sum_term(a[i]);
    }
    for (int64_t i = 0; i < N; i++) {
        if (w->name[i] != (uint32_t)i)
            continue;
        const uint32_t u = latmc_embed_draw(p, LATMC_CLUSTER_PHASE_DECIDE, (uint64_t)i);
        w->flip[i] =
            (uint64_t)u < latmc_embed_keep_threshold(p->field, field ? w->qsum[i] : 0) ? 0 : 1;
    }
    EMBED_OMP(parallel for num_threads(nt) schedule(static) if(nt > 1))
    for (int64_t i = 0; i < N; i++)
        if (w->name[i] != (uint32_t)i)
            w->flip[i] = w->flip[w->name[i]];
}

void latmc_embed_w2_add(struct latmc_embed_w2 *acc, int64_t s)
{
    /* |s|^2 as 128 bits from 32-bit halves, then added with its carry */
    const uint64_t m = s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s;
    const uint64_t l = m & 0xffffffffu, h = m >> 32;
    const uint64_t ll = l * l, lh = l * h, hh = h * h;
    const uint64_t mid_lo = lh << 33, mid_hi = lh >> 31; /* 2 lh 2^32 */
    uint64_t lo = ll + mid_lo;
    uint64_t hi = hh + mid_hi + (lo < ll);
    acc->lo += lo;
    acc->hi += hi + (acc->lo < lo);
}

void latmc_embed_w2_merge(struct latmc_embed_w2 *acc, const struct latmc_embed_w2 *b)
{
    acc->lo += b->lo;
    acc->hi += b->hi + (acc->lo < b->lo);
}

double latmc_embed_w2_value(const struct latmc_embed_w2 *acc)
{
    /* 2^-40: the squares of sums in units of 2^-20 */
    return ((double)acc->hi * 0x1p64 + (double)acc->lo) * 0x1p-40;
}

double latmc_embed_wolff_w2(int64_t s, int64_t size)
{
    const double a = (double)s * 0x1p-20;
    return a * a / (double)size;
}

void latmc_embed_sw_stats(int64_t N, const uint32_t *name, const double *a, int64_t *ssum,
                          uint32_t *size, struct latmc_embed_stats *out)
{
    /* each cluster's size and S_C at its name (integers: any order) */
    for (int64_t i = 0; i < N; i++)
        if (name[i] == (uint32_t)i) {
            ssum[i] = 0;
            size[i] = 0;
        }
    for (int64_t i = 0; i < N; i++) {
        ssum[name[i]] += latmc_embed_stat_term(a[i]);
        size[name[i]]++;
    }
    int64_t clusters = 0, largest = 0;
    struct latmc_embed_w2 w2 = { 0, 0 };
    for (int64_t i = 0; i < N; i++) {
        if (name[i] != (uint32_t)i)
            continue;
        clusters++;
        largest = (int64_t)size[i] > largest ? (int64_t)size[i] : largest;
        latmc_embed_w2_add(&w2, ssum[i]);
    }
    out->clusters = clusters;
    out->largest = largest;
    out->w2 = latmc_embed_w2_value(&w2);
    out->size = N;
}

/* Wolff's cluster grown breadth-first from the seed site, forward bonds (i, d) and
 * backward ones (i - off_d, d) in turn: a bond drawn only where the growth reaches it, or
 * read from `known` (bit d of known[i]: bond (i, d) active) where a backend ran the step;
 * either way the same cluster, grown in the same order (its sums S_C and Q_C are
 * integers: any order gives them). */
static void wolff(const struct latmc_embed_problem *p, struct latmc_embed_work *w,
                  const uint8_t *known, struct latmc_embed_stats *out)
{
    const int64_t N = p->g.nsites;
    const double *a = w->a;
    uint8_t *in = w->flip; /* membership; then the flips */
    uint32_t *stack = w->parent;
    memset(in, 0, (size_t)N);
    const int64_t s0 = latmc_cluster_seed_of(p->seed, embed_name(p, LATMC_CLUSTER_PHASE_SEED),
                                             N);
    int64_t n = 0, top = 0, smallest = s0;
    int64_t ssum = 0; /* S_C of the statistics */
    int64_t qsum = 0; /* Q_C of the decision in a field */
    stack[n++] = (uint32_t)s0;
    in[s0] = 1;
    struct latmc_embed_draw_cache c = LATMC_EMBED_DRAW_CACHE_INIT;
    while (top < n) {
        const int64_t i = stack[top++];
        smallest = i < smallest ? i : smallest;
        ssum += latmc_embed_stat_term(a[i]);
        qsum += latmc_embed_sum_term(a[i]);
        int64_t ups[LATMC_EMBED_MAX_DIRS], dns[LATMC_EMBED_MAX_DIRS];
        partners_of(p, i, 1, ups);
        partners_of(p, i, -1, dns);
        for (int d = 0; d < p->n_dirs; d++) {
            const int64_t up = ups[d], dn = dns[d];
            if (!in[up] && (known ? (int)(known[i] >> d & 1u) : bond_on(p, a, i, d, up, &c))) {
                in[up] = 1;
                stack[n++] = (uint32_t)up;
            }
            if (!in[dn] && (known ? (int)(known[dn] >> d & 1u) : bond_on(p, a, dn, d, i, &c))) {
                in[dn] = 1;
                stack[n++] = (uint32_t)dn;
            }
        }
    }
    int keep = 0;
    if (p->field != 0.0)
        keep = (uint64_t)latmc_embed_draw(p, LATMC_CLUSTER_PHASE_DECIDE, (uint64_t)smallest) <
               latmc_embed_keep_threshold(p->field, qsum);
    if (keep)
        for (int64_t k = 0; k < n; k++)
            in[stack[k]] = 0;
    out->clusters = 1;
    out->largest = n;
    out->w2 = latmc_embed_wolff_w2(ssum, n);
    out->size = n;
}

void latmc_embed_wolff_regrow(const struct latmc_embed_problem *p, struct latmc_embed_work *w,
                              const uint8_t *bonds, struct latmc_embed_stats *out)
{
    wolff(p, w, bonds, out);
}

void latmc_embed_step(const struct latmc_embed_problem *p, struct latmc_embed_work *w,
                      struct latmc_embed_stats *out)
{
    if (p->wolff)
        wolff(p, w, NULL, out);
    else
        swendsen_wang(p, w, out);
}
