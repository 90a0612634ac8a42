/*
 * The cluster updates' definition, checked without statistics where it can be:
 *
 * 1. Labelling (lib/cluster_label.c): random bond configurations on small lattices, cut
 *    into 1 .. planes boxes, the faces merged in forward and reverse order: every site's
 *    name is the smallest site of its connected component, found here by an independent
 *    breadth-first search.
 * 2. The transition kernel of one sweep. For Ising 4x2 (with a field, uniform and +-J
 *    couplings), Potts q = 3 2x2 (with a field) and both algorithms, the test builds the
 *    exact transition matrix T(s -> s') from the definition in doc/clusters.md, summing
 *    over every bond configuration, and checks (a) that the Boltzmann distribution is
 *    stationary, pi T = pi, to 1e-12 (detailed balance of the definition), and (b) that
 *    the library's chain makes the transitions T predicts: the counts of (s, s') pairs
 *    along 2^19 sweeps against n_s T(s, s'), a chi-square over all bins with expected
 *    count >= 5, within 5 standard deviations of its number of degrees of freedom.
 * 3. The random-number names. The library's configuration after each of a few sweeps,
 *    bit for bit, against sweeps done here from the definition in lib/cluster_bonds.h
 *    (the draw of each bond and each cluster name; labels by breadth-first search):
 *    Ising 2D and 3D with a field and +-J couplings, Potts with a field, SW and Wolff, and
 *    2D and 3D without a field, uniform and +-J, Potts (Swendsen-Wang's row passes,
 *    lib/cluster_sw_rows.c and lib/cluster_sw_planes.c, on one box and several);
 *    and the sweep's statistics (clusters, the largest, the sum of squared sizes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "cluster_bonds.h"
#include "cluster_label.h"
#include "cluster_sweep.h"
#include "decision.h"
#include "sim_helpers.h"

/* ---- 1. labelling ---- */

/* Independent labels: breadth-first search over the active bonds, name = smallest site. */
static void bfs_names(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                      uint32_t *name)
{
    const int64_t n = g->nsites;
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    int64_t *comp = malloc((size_t)n * sizeof *comp);
    char *seen = calloc((size_t)n, 1);
    assert_non_null(queue);
    assert_non_null(comp);
    assert_non_null(seen);
    for (int64_t s = 0; s < n; s++) {
        if (seen[s])
            continue;
        int64_t head = 0, tail = 0, smallest = s;
        queue[tail++] = s;
        seen[s] = 1;
        while (head < tail) {
            const int64_t i = queue[head++];
            smallest = i < smallest ? i : smallest;
            for (int mu = 0; mu < g->ndim; mu++) {
                /* bond (i, mu) joins i and up(i); bond (down(i), mu) joins down(i) and i */
                const int64_t up = latmc_cluster_up(g, i, mu), dn = latmc_cluster_down(g, i, mu);
                if ((bonds[i] >> mu & 1) && !seen[up]) {
                    seen[up] = 1;
                    queue[tail++] = up;
                }
                if ((bonds[dn] >> mu & 1) && !seen[dn]) {
                    seen[dn] = 1;
                    queue[tail++] = dn;
                }
            }
        }
        memcpy(comp, queue, (size_t)tail * sizeof *comp);
        for (int64_t k = 0; k < tail; k++)
            name[comp[k]] = (uint32_t)smallest;
    }
    free(queue);
    free(comp);
    free(seen);
}

static void check_labels(int ndim, const int64_t *extent, double density, uint64_t *rng)
{
    const struct latmc_cluster_lattice g = latmc_cluster_lattice_of(ndim, extent);
    const size_t n = (size_t)g.nsites;
    uint8_t *bonds = malloc(n);
    uint32_t *parent = malloc(n * sizeof *parent), *name = malloc(n * sizeof *name);
    uint32_t *want = malloc(n * sizeof *want);
    assert_true(bonds && parent && name && want);
    for (size_t i = 0; i < n; i++) {
        bonds[i] = 0;
        for (int mu = 0; mu < ndim; mu++)
            if ((double)(test_rng_next(rng) >> 11) * 0x1p-53 < density)
                bonds[i] |= (uint8_t)(1u << mu);
    }
    bfs_names(&g, bonds, want);
    for (int64_t k = 1; k <= g.planes; k++)
        for (int reverse = 0; reverse < 2; reverse++) {
            int64_t p[65];
            for (int64_t b = 0; b <= k; b++)
                p[b] = g.planes * b / k;
            for (int64_t b = k - 1; b >= 0; b--) /* boxes in any order */
                latmc_cluster_label_box(&g, bonds, parent, p[b], p[b + 1]);
            for (int64_t b = 0; b < k; b++)
                latmc_cluster_merge_face(&g, bonds, parent,
                                         (reverse ? p[k - b] : p[b + 1]) - 1);
            for (int64_t b = 0; b < k; b++)
                latmc_cluster_resolve(parent, name, p[b] * g.plane, p[b + 1] * g.plane);
            for (size_t i = 0; i < n; i++)
                if (name[i] != want[i]) {
                    printf("site %zu: name %u, component minimum %u (%d boxes, %s)\n", i,
                           name[i], want[i], (int)k, reverse ? "reverse" : "forward");
                    fail();
                }
        }
    free(bonds);
    free(parent);
    free(name);
    free(want);
}

static void labels_match_components(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    const int64_t e2[][2] = { { 5, 4 }, { 2, 2 }, { 7, 9 }, { 16, 16 }, { 3, 64 } };
    const int64_t e3[][3] = { { 3, 4, 5 }, { 2, 2, 2 }, { 6, 5, 8 } };
    const double densities[] = { 0.2, 0.45, 0.5, 0.7, 1.0 };
    for (size_t d = 0; d < sizeof densities / sizeof densities[0]; d++) {
        for (size_t e = 0; e < sizeof e2 / sizeof e2[0]; e++)
            for (int rep = 0; rep < 5; rep++)
                check_labels(2, e2[e], densities[d], &rng);
        for (size_t e = 0; e < sizeof e3 / sizeof e3[0]; e++)
            for (int rep = 0; rep < 5; rep++)
                check_labels(3, e3[e], densities[d], &rng);
    }
}

/* ---- 2. the transition kernel ---- */

enum { MAXS = 8, MAXB = 16 };

struct system {
    int potts, q, wolff;
    int lx, ly;            /* 2D, lx x ly */
    double beta, J, h;
    double eps[MAXB];      /* Ising couplings, bond b = 2 i + mu */
    int n, nb, nstates;
};

static int site_of_bond_end(const struct system *s, int b, int end)
{
    const int i = b / 2, mu = b % 2;
    if (!end)
        return i;
    const int x = i % s->lx, y = i / s->lx;
    return mu == 0 ? (x + 1) % s->lx + s->lx * y : x + s->lx * ((y + 1) % s->ly);
}

static void state_of(const struct system *s, int code, int *v)
{
    for (int i = 0; i < s->n; i++) {
        const int d = code % (s->potts ? s->q : 2);
        code /= s->potts ? s->q : 2;
        v[i] = s->potts ? d : (d ? -1 : 1);
    }
}

static int code_of(const struct system *s, const int *v)
{
    int code = 0;
    for (int i = s->n - 1; i >= 0; i--)
        code = code * (s->potts ? s->q : 2) + (s->potts ? v[i] : (v[i] < 0));
    return code;
}

static double energy(const struct system *s, const int *v)
{
    double e = 0;
    for (int b = 0; b < s->nb; b++) {
        const int a = v[site_of_bond_end(s, b, 0)], c = v[site_of_bond_end(s, b, 1)];
        e -= s->potts ? s->J * (a == c) : s->J * s->eps[b] * a * c;
    }
    for (int i = 0; i < s->n; i++)
        e -= s->potts ? s->h * (v[i] == 0) : s->h * v[i];
    return e;
}

/* Probability that bond b can be and is active in state v. */
static double bond_probability(const struct system *s, const int *v, int b)
{
    const int a = v[site_of_bond_end(s, b, 0)], c = v[site_of_bond_end(s, b, 1)];
    if (s->potts)
        return a == c ? 1.0 - exp(-s->beta * s->J) : 0.0;
    const double k = s->beta * s->J * s->eps[b];
    return k * a * c > 0 ? 1.0 - exp(-2.0 * fabs(k)) : 0.0;
}

/* Components of bond set `mask` (naive relabelling). */
static void components(const struct system *s, unsigned mask, int *comp)
{
    for (int i = 0; i < s->n; i++)
        comp[i] = i;
    for (int changed = 1; changed;) {
        changed = 0;
        for (int b = 0; b < s->nb; b++)
            if (mask >> b & 1) {
                const int i = site_of_bond_end(s, b, 0), j = site_of_bond_end(s, b, 1);
                const int m = comp[i] < comp[j] ? comp[i] : comp[j];
                if (comp[i] != m || comp[j] != m) {
                    comp[i] = comp[j] = m;
                    changed = 1;
                }
            }
    }
}

/*
 * Add weight w times the distribution of the new states of the clusters in `todo` (a
 * cluster per bit of its root) to row[], the others kept, starting at cluster r0.
 * Ising: each cluster keeps its spins with probability 1 / (1 + exp(-2 beta h M)) (Wolff
 * without a field: flips); Potts: colour 0 with 1 / (1 + (q - 1) exp(-beta h n)), the
 * others evenly (Wolff without a field: one of the q - 1 others, evenly).
 */
static void spread(const struct system *s, const int *comp, const int *v, int r, double w,
                   unsigned todo, double *row)
{
    while (r < s->n && !(todo >> r & 1))
        r++;
    if (r == s->n) {
        row[code_of(s, v)] += w;
        return;
    }
    int nv[MAXS];
    int size = 0, m = 0;
    for (int i = 0; i < s->n; i++)
        if (comp[i] == r) {
            size++;
            m += s->potts ? 0 : v[i];
        }
    const int old = v[r];
    if (!s->potts) {
        double keep = 1.0 / (1.0 + exp(-2.0 * s->beta * s->h * m));
        if (s->wolff && s->h == 0.0)
            keep = 0.0;
        for (int flip = 0; flip < 2; flip++) {
            const double p = flip ? 1.0 - keep : keep;
            if (p == 0.0)
                continue;
            for (int i = 0; i < s->n; i++)
                nv[i] = comp[i] == r && flip ? -v[i] : v[i];
            spread(s, comp, nv, r + 1, w * p, todo, row);
        }
        return;
    }
    for (int k = 0; k < s->q; k++) {
        double p;
        if (s->wolff && s->h == 0.0) {
            p = k == old ? 0.0 : 1.0 / (s->q - 1);
        } else {
            const double p0 = 1.0 / (1.0 + (s->q - 1) * exp(-s->beta * s->h * size));
            p = k == 0 ? p0 : (1.0 - p0) / (s->q - 1);
        }
        if (p == 0.0)
            continue;
        for (int i = 0; i < s->n; i++)
            nv[i] = comp[i] == r ? k : v[i];
        spread(s, comp, nv, r + 1, w * p, todo, row);
    }
}

/* T[from * nstates + to] of one sweep. */
static void transition_matrix(const struct system *s, double *T)
{
    memset(T, 0, (size_t)s->nstates * (size_t)s->nstates * sizeof *T);
    for (int from = 0; from < s->nstates; from++) {
        int v[MAXS], comp[MAXS];
        state_of(s, from, v);
        double *row = T + (size_t)from * (size_t)s->nstates;
        double p[MAXB];
        unsigned possible = 0; /* the bonds that can be active: every mask is a subset */
        for (int b = 0; b < s->nb; b++) {
            p[b] = bond_probability(s, v, b);
            possible |= (p[b] > 0.0 ? 1u : 0u) << b;
        }
        for (unsigned mask = possible;; mask = (mask - 1) & possible) {
            double w = 1.0;
            for (int b = 0; b < s->nb; b++)
                if (possible >> b & 1)
                    w *= (mask >> b & 1) ? p[b] : 1.0 - p[b];
            components(s, mask, comp);
            if (!s->wolff) {
                unsigned roots = 0;
                for (int i = 0; i < s->n; i++)
                    roots |= 1u << comp[i];
                spread(s, comp, v, 0, w, roots, row);
            } else {
                for (int seed = 0; seed < s->n; seed++)
                    spread(s, comp, v, 0, w / s->n, 1u << comp[seed], row);
            }
            if (mask == 0)
                break;
        }
    }
}

static void check_stationary(const struct system *s, const double *T)
{
    double *pi = malloc((size_t)s->nstates * sizeof *pi);
    assert_non_null(pi);
    double z = 0;
    for (int c = 0; c < s->nstates; c++) {
        int v[MAXS];
        state_of(s, c, v);
        pi[c] = exp(-s->beta * energy(s, v));
        z += pi[c];
    }
    double worst = 0;
    for (int c = 0; c < s->nstates; c++) {
        double row = 0, flow = 0;
        for (int d = 0; d < s->nstates; d++) {
            row += T[(size_t)c * s->nstates + d];
            flow += pi[d] / z * T[(size_t)d * s->nstates + c];
        }
        assert_true(fabs(row - 1.0) < 1e-12);
        const double dev = fabs(flow - pi[c] / z);
        worst = dev > worst ? dev : worst;
    }
    printf("  stationarity: largest |(pi T - pi)(s)| = %.2e\n", worst);
    assert_true(worst < 1e-12);
    free(pi);
}

/* The library's chain: counts of its transitions against T. */
static void check_chain(const struct system *s, const double *T, uint64_t seed)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(2, s->lx, s->ly, 0,
                                  s->wolff ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG, 1,
                                  seed);
    if (s->potts) {
        d.model = LATMC_MODEL_POTTS;
        d.q = s->q;
    }
    int pmj = 0;
    for (int b = 0; b < s->nb && !s->potts; b++)
        pmj |= s->eps[b] != 1.0;
    if (pmj)
        d.couplings = LATMC_COUPLINGS_BIMODAL;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    if (pmj) {
        float c[MAXB];
        for (int b = 0; b < s->nb; b++)
            c[b] = (float)s->eps[b];
        assert_int_equal(latmc_sim_set_couplings(sim, c, (size_t)s->nb), LATMC_OK);
    }
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, s->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, s->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, s->h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    const size_t ns = (size_t)s->nstates;
    uint64_t *count = calloc(ns * ns, sizeof *count), *visits = calloc(ns, sizeof *visits);
    assert_true(count && visits);
    const uint64_t steps = UINT64_C(1) << 19;
    int8_t spins[MAXS];
    int v[MAXS];
    assert_int_equal(latmc_sim_get_spins(sim, spins, (size_t)s->n), LATMC_OK);
    for (int i = 0; i < s->n; i++)
        v[i] = s->potts ? (uint8_t)spins[i] : spins[i];
    int from = code_of(s, v);
    for (uint64_t t = 0; t < steps; t++) {
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, spins, (size_t)s->n), LATMC_OK);
        for (int i = 0; i < s->n; i++)
            v[i] = s->potts ? (uint8_t)spins[i] : spins[i];
        const int to = code_of(s, v);
        count[(size_t)from * ns + (size_t)to]++;
        visits[from]++;
        from = to;
    }
    double chi2 = 0;
    int dof = 0;
    for (size_t a = 0; a < ns; a++) {
        if (visits[a] == 0)
            continue;
        double rest_expected = 0, rest_observed = 0;
        for (size_t b = 0; b < ns; b++) {
            const double e = (double)visits[a] * T[a * ns + b];
            const double o = (double)count[a * ns + b];
            if (e >= 5.0) {
                chi2 += (o - e) * (o - e) / e;
                dof++;
            } else {
                rest_expected += e;
                rest_observed += o;
            }
        }
        if (rest_expected >= 5.0) {
            chi2 += (rest_observed - rest_expected) * (rest_observed - rest_expected) /
                    rest_expected;
            dof++;
        } else {
            assert_true(rest_observed <= 5.0 + 10.0 * sqrt(rest_expected + 1.0));
        }
        dof--; /* each row's counts add up to its visits */
    }
    const double z = (chi2 - dof) / sqrt(2.0 * dof);
    printf("  chain: chi2 = %.1f for %d degrees of freedom (%+.2f sd)\n", chi2, dof, z);
    assert_true(dof > 10);
    assert_true(fabs(z) < 5.0);
    free(count);
    free(visits);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void check_system(struct system *s, uint64_t seed)
{
    s->n = s->lx * s->ly;
    s->nb = 2 * s->n;
    s->nstates = 1;
    for (int i = 0; i < s->n; i++)
        s->nstates *= s->potts ? s->q : 2;
    if (!s->potts && s->eps[0] == 0.0)
        for (int b = 0; b < s->nb; b++)
            s->eps[b] = 1.0;
    printf("%s %dx%d %s beta=%.2f J=%.1f h=%.2f\n", s->potts ? "Potts" : "Ising", s->lx, s->ly,
           s->wolff ? "Wolff" : "SW", s->beta, s->J, s->h);
    double *T = malloc((size_t)s->nstates * (size_t)s->nstates * sizeof *T);
    assert_non_null(T);
    transition_matrix(s, T);
    check_stationary(s, T);
    check_chain(s, T, seed);
    free(T);
}

static void ising_kernel(void **state)
{
    (void)state;
    for (int wolff = 0; wolff < 2; wolff++)
        for (int f = 0; f < 2; f++) {
            struct system s = { 0, 2, wolff, 4, 2, 0.35, 1.0, f ? 0.3 : 0.0, { 0 }, 0, 0, 0 };
            check_system(&s, 40 + (uint64_t)(2 * wolff + f));
        }
    /* antiferromagnet in a field */
    struct system afm = { 0, 2, 0, 4, 2, 0.3, -1.0, 0.2, { 0 }, 0, 0, 0 };
    check_system(&afm, 50);
}

static void ising_pmj_kernel(void **state)
{
    (void)state;
    uint64_t rng = 99;
    for (int wolff = 0; wolff < 2; wolff++) {
        struct system s = { 0, 2, wolff, 4, 2, 0.4, 1.0, 0.25, { 0 }, 0, 0, 0 };
        for (int b = 0; b < 16; b++)
            s.eps[b] = (test_rng_next(&rng) >> 63) ? -1.0 : 1.0;
        s.eps[0] = 1.0, s.eps[1] = -1.0; /* both signs, whatever the draws */
        check_system(&s, 60 + (uint64_t)wolff);
    }
}

static void potts_kernel(void **state)
{
    (void)state;
    for (int wolff = 0; wolff < 2; wolff++)
        for (int f = 0; f < 2; f++) {
            struct system s = { 1, 3, wolff, 2, 2, 0.6, 1.0, f ? 0.4 : 0.0, { 0 }, 0, 0, 0 };
            check_system(&s, 70 + (uint64_t)(2 * wolff + f));
        }
}

/* ---- 3. the random-number names ---- */

struct ref_chain {
    int potts, q, wolff, ndim;
    int64_t extent[3];
    double beta, J, h;
    uint64_t seed;
};

/* One sweep of the definition on spins v (Ising +-1 as int8, Potts states), and what
 * it built (clusters updated, the largest, the sum of their squared sizes). */
static void ref_sweep(const struct ref_chain *c, const int8_t *eps, int8_t *v, uint64_t sweep,
                      struct latmc_cluster_stats *stats)
{
    const struct latmc_cluster_lattice g = latmc_cluster_lattice_of(c->ndim, c->extent);
    const int64_t n = g.nsites;
    uint8_t *bonds = calloc((size_t)n, 1);
    uint32_t *name = malloc((size_t)n * sizeof *name);
    assert_true(bonds && name);
    const double K = c->beta * c->J, bh = c->beta * c->h;
    const uint64_t t = latmc_threshold_u32(c->potts ? 1.0 - exp(-K) : 1.0 - exp(-2.0 * fabs(K)));
    for (int64_t i = 0; i < n; i++)
        for (int mu = 0; mu < c->ndim; mu++) {
            const int64_t j = latmc_cluster_up(&g, i, mu);
            const int e = eps ? eps[c->ndim * i + mu] : 1;
            const int ok = c->potts ? v[i] == v[j] : K * e * v[i] * v[j] > 0;
            if (ok && latmc_cluster_bond_draw(c->seed, sweep, c->ndim, i, mu) < t)
                bonds[i] |= (uint8_t)(1u << mu);
        }
    bfs_names(&g, bonds, name);
    const int64_t seed_site = latmc_cluster_seed_site(c->seed, sweep, n);
    memset(stats, 0, sizeof *stats);
    for (int64_t r = 0; r < n; r++) {
        if (name[r] != (uint32_t)r || (c->wolff && name[seed_site] != (uint32_t)r))
            continue;
        int64_t size = 0, m = 0;
        for (int64_t i = 0; i < n; i++)
            if (name[i] == (uint32_t)r) {
                size++;
                m += v[i];
            }
        stats->clusters++;
        stats->largest = size > stats->largest ? size : stats->largest;
        stats->size2_sum += c->wolff ? (double)size : (double)size * (double)size;
        const uint32_t u = latmc_cluster_decide_draw(c->seed, sweep, r);
        int new_colour = 0, flip = 0;
        if (c->potts) {
            if (bh != 0.0)
                new_colour = latmc_cluster_potts_colour(
                    u, latmc_threshold_u32(1.0 / (1.0 + (c->q - 1) * exp(-bh * (double)size))),
                    c->q);
            else if (c->wolff)
                new_colour = (v[r] + 1 + (int)(((uint64_t)u * (uint64_t)(c->q - 1)) >> 32)) % c->q;
            else
                new_colour = (int)(((uint64_t)u * (uint64_t)c->q) >> 32);
        } else if (c->wolff && bh == 0.0) {
            flip = 1;
        } else {
            const double keep = 1.0 / (1.0 + exp(-2.0 * bh * (double)m));
            flip = !((uint64_t)u < (bh == 0.0 ? UINT64_C(1) << 31 : latmc_threshold_u32(keep)));
        }
        for (int64_t i = 0; i < n; i++)
            if (name[i] == (uint32_t)r)
                v[i] = c->potts ? (int8_t)new_colour : (int8_t)(flip ? -v[i] : v[i]);
    }
    free(bonds);
    free(name);
}

/* The chain of c on `boxes` boxes (desc.n_parts; 0: the default, one). */
static void check_names_on(const struct ref_chain *c, int pmj, int boxes)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = ising_desc(c->ndim, c->extent[0], c->extent[1], c->extent[2],
                                  c->wolff ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG, 1,
                                  c->seed);
    if (c->potts) {
        d.model = LATMC_MODEL_POTTS;
        d.q = c->q;
    }
    if (pmj) {
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.coupling_seed = 3;
    }
    if (boxes)
        d.n_parts = boxes;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, c->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, c->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, c->h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &n), LATMC_OK);
    int8_t *v = malloc(n), *got = malloc(n), *eps = NULL;
    assert_true(v && got);
    if (pmj) {
        float *f = malloc(n * (size_t)c->ndim * sizeof *f);
        eps = malloc(n * (size_t)c->ndim);
        assert_true(f && eps);
        assert_int_equal(latmc_sim_get_couplings(sim, f, n * (size_t)c->ndim), LATMC_OK);
        for (size_t k = 0; k < n * (size_t)c->ndim; k++)
            eps[k] = f[k] > 0 ? 1 : -1;
        free(f);
    }
    assert_int_equal(latmc_sim_get_spins(sim, v, n), LATMC_OK);
    struct latmc_cluster_stats none;
    assert_int_equal(latmc_cluster_last_stats(sim, &none), LATMC_ESTATE);
    int moved = 0;
    for (uint64_t sweep = 0; sweep < 6; sweep++) {
        struct latmc_cluster_stats want, have;
        ref_sweep(c, eps, v, sweep, &want);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(sim, got, n), LATMC_OK);
        assert_memory_equal(got, v, n);
        assert_int_equal(latmc_cluster_last_stats(sim, &have), LATMC_OK);
        assert_true(have.clusters == want.clusters && have.largest == want.largest &&
                    have.size2_sum == want.size2_sum);
        uint64_t acc = 0, att = 0;
        assert_int_equal(latmc_sim_acceptance_counts(sim, &acc, &att), LATMC_OK);
        moved |= acc > 0;
    }
    assert_true(moved);
    /* the same 6 sweeps in one call (Swendsen-Wang counts the sizes in its last sweep
     * only): the same configuration and the last sweep's statistics */
    latmc_sim *once = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &once), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(once, LATMC_PARAM_BETA, c->beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(once, LATMC_PARAM_J, c->J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(once, LATMC_PARAM_H, c->h), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(once, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(once, 6), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(once, got, n), LATMC_OK);
    assert_memory_equal(got, v, n);
    struct latmc_cluster_stats last_one, last_six;
    assert_int_equal(latmc_cluster_last_stats(sim, &last_one), LATMC_OK);
    assert_int_equal(latmc_cluster_last_stats(once, &last_six), LATMC_OK);
    assert_true(last_one.clusters == last_six.clusters && last_one.largest == last_six.largest &&
                last_one.size2_sum == last_six.size2_sum);
    latmc_sim_destroy(&once);
    free(v);
    free(got);
    free(eps);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void check_names(const struct ref_chain *c, int pmj)
{
    check_names_on(c, pmj, 0);
}

static void random_number_names(void **state)
{
    (void)state;
    for (int wolff = 0; wolff < 2; wolff++) {
        const struct ref_chain ising2 = { 0, 2, wolff, 2, { 10, 6, 0 }, 0.4, 1.0, 0.2, 11 };
        check_names(&ising2, 0);
        check_names(&ising2, 1);
        const struct ref_chain ising3 = { 0, 2, wolff, 3, { 4, 6, 8 }, 0.25, -1.0, 0.0, 12 };
        check_names(&ising3, 0);
        const struct ref_chain potts = { 1, 4, wolff, 2, { 8, 6, 0 }, 1.0, 1.0, 0.3, 13 };
        check_names(&potts, 0);
        const struct ref_chain potts0 = { 1, 3, wolff, 3, { 6, 6, 6 }, 0.6, 1.0, 0.0, 14 };
        check_names(&potts0, 0);
        /* 2D without a field: Swendsen-Wang's row passes (lib/cluster_sw_rows.c); an
         * antiferromagnet, and rows of odd length (a row's draws start mid-block) */
        const struct ref_chain ising2_0 = { 0, 2, wolff, 2, { 10, 6, 0 }, 0.44, 1.0, 0.0, 15 };
        check_names(&ising2_0, 0);
        check_names(&ising2_0, 1);
        const struct ref_chain ising2_af = { 0, 2, wolff, 2, { 12, 8, 0 }, 0.5, -1.0, 0.0, 16 };
        check_names(&ising2_af, 0);
        check_names(&ising2_af, 1);
        const struct ref_chain potts2_0 = { 1, 3, wolff, 2, { 9, 6, 0 }, 1.0, 1.0, 0.0, 17 };
        check_names(&potts2_0, 0);
        /* rows longer than the vector steps (32 sites), with tails */
        const struct ref_chain ising2_long = { 0, 2, wolff, 2, { 40, 6, 0 }, 0.44, 1.0, 0.0, 18 };
        check_names(&ising2_long, 0);
        check_names(&ising2_long, 1); /* +-J in the vector steps and their tails */
        const struct ref_chain potts2_long = { 1, 3, wolff, 2, { 69, 6, 0 }, 1.0, 1.0, 0.0, 19 };
        check_names(&potts2_long, 0);
        /* enough rows that chains of runs joined inside 8 sites occur (pass B's vector
         * steps follow them) */
        const struct ref_chain ising2_big = { 0, 2, wolff, 2, { 64, 64, 0 }, 0.44, 1.0, 0.0, 20 };
        check_names(&ising2_big, 0);
        check_names(&ising2_big, 1);
        const struct ref_chain potts2_big = { 1, 3, wolff, 2, { 48, 48, 0 }, 1.0, 1.0, 0.0, 21 };
        check_names(&potts2_big, 0);
    }
}

/* 3D without a field: the row passes plane by plane (lib/cluster_sw_planes.c) -- rows
 * joined in a plane, the wrap along y, the bonds from the plane below, the faces between
 * boxes and the wrap along z -- against the definition, as random_number_names. */
static void random_number_names_3d(void **state)
{
    (void)state;
    /* extents 2 mod 4 (Ising needs even extents): a row's draws start at lane 0, 2 or 1
     * of a block; Potts odd extents (multiples of 3, its colouring's rule): any lane */
    const struct ref_chain mid = { 0, 2, 0, 3, { 6, 10, 6 }, 0.3, 1.0, 0.0, 30 };
    check_names(&mid, 0);
    check_names(&mid, 1);
    const struct ref_chain odd = { 1, 3, 0, 3, { 9, 3, 15 }, 1.0, 1.0, 0.0, 31 };
    check_names(&odd, 0);
    /* the smallest extents: 3 (Potts), 2 (a pair joined by two bonds) and 4 */
    const struct ref_chain l3 = { 1, 2, 0, 3, { 3, 3, 3 }, 1.2, 1.0, 0.0, 32 };
    check_names(&l3, 0);
    const struct ref_chain l2 = { 0, 2, 0, 3, { 4, 2, 2 }, 0.4, 1.0, 0.0, 33 };
    check_names(&l2, 0);
    check_names(&l2, 1);
    const struct ref_chain l2x = { 0, 2, 0, 3, { 2, 4, 6 }, 0.4, 1.0, 0.0, 44 };
    check_names(&l2x, 0);
    const struct ref_chain l4 = { 0, 2, 0, 3, { 4, 4, 4 }, 0.3, 1.0, 0.0, 34 };
    check_names(&l4, 0);
    check_names(&l4, 1);
    /* an antiferromagnet */
    const struct ref_chain af = { 0, 2, 0, 3, { 4, 6, 8 }, 0.35, -1.0, 0.0, 35 };
    check_names(&af, 0);
    check_names(&af, 1);
    /* Potts q = 3 and 4 */
    const struct ref_chain potts = { 1, 3, 0, 3, { 6, 9, 3 }, 1.0, 1.0, 0.0, 36 };
    check_names(&potts, 0);
    const struct ref_chain potts4 = { 1, 4, 0, 3, { 4, 2, 6 }, 1.2, 1.0, 0.0, 37 };
    check_names(&potts4, 0);
    /* rows longer than the vector steps (8 sites for the bonds, 32 for the searched
     * bonds), with tails; +-J in the vector steps */
    const struct ref_chain longer = { 0, 2, 0, 3, { 42, 4, 6 }, 0.3, 1.0, 0.0, 38 };
    check_names(&longer, 0);
    check_names(&longer, 1);
    const struct ref_chain potts_long = { 1, 3, 0, 3, { 69, 3, 3 }, 1.0, 1.0, 0.0, 39 };
    check_names(&potts_long, 0);
    /* near the critical coupling, large clusters: chains of runs joined inside 8 sites
     * (pass B's vector steps), bonds from both the row and the plane below */
    const struct ref_chain crit = { 0, 2, 0, 3, { 32, 16, 12 }, 0.2216546, 1.0, 0.0, 40 };
    check_names(&crit, 0);
    check_names(&crit, 1);
    /* boxes: units of 2 to 6 planes (Ising slabs take whole 2-plane units), the faces
     * between them joined (the wrap along z among them) */
    const struct ref_chain boxes = { 0, 2, 0, 3, { 10, 6, 10 }, 0.25, 1.0, 0.0, 41 };
    check_names_on(&boxes, 0, 3);
    check_names_on(&boxes, 1, 3);
    const struct ref_chain boxes_long = { 0, 2, 0, 3, { 40, 6, 8 }, 0.2216546, 1.0, 0.0, 42 };
    check_names_on(&boxes_long, 0, 4);
    const struct ref_chain potts_boxes = { 1, 3, 0, 3, { 9, 3, 15 }, 1.0, 1.0, 0.0, 43 };
    check_names_on(&potts_boxes, 0, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(labels_match_components),
        cmocka_unit_test(ising_kernel),
        cmocka_unit_test(ising_pmj_kernel),
        cmocka_unit_test(potts_kernel),
        cmocka_unit_test(random_number_names),
        cmocka_unit_test(random_number_names_3d),
    };
    return cmocka_run_group_tests_name("cluster_rules", tests, NULL, NULL);
}
