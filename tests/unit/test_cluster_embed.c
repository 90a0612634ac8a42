/*
 * The embedded cluster steps of phi^4 and Heisenberg (doc/clusters.md, "Embedded
 * clusters"), checked without statistics:
 *
 * 1. phi^4's couplings. The page's pairs and couplings (nearest neighbours 1 + 4k/Lambda,
 *    x + 2 e_mu -1/Lambda, planar diagonals -2/Lambda) must carry all of H's dependence on
 *    the field's signs: for random fields and random sets of flipped signs, the change of
 *    H computed by tests/support/exact_phi4.c from its definition equals
 *    -sum over the pairs of K (phi_i phi_j - phi'_i phi'_j), to 1e-9 of the terms' size;
 *    2D 8x8 and 5x10, 3D 8x8x8, Lambda finite and infinite.
 * 2. The chain, bit for bit. A sim with a cluster algorithm and one with the local
 *    algorithm alone (same seed and start) make the same local passes; applying to the
 *    second's configuration a cluster step written here from the definition (draw names,
 *    bonds, breadth-first clusters named by their smallest site, decisions) must give the
 *    first's configuration exactly, sweep after sweep, and the same cluster statistics:
 *    phi^4 2D (8 and 5 colours) and 3D, float and double, Lambda finite and infinite;
 *    Heisenberg 2D and 3D with Gaussian couplings, a field and two replicas; SW and Wolff.
 *    A backend's Wolff step: the seed helper's names against the page, and the core's
 *    statistics regrown from all of a step's bonds (latmc_embed_wolff_regrow) against
 *    the definition's step, the sum of a in the growth's order. A backend without
 *    get_couplings: the Heisenberg step on the host copy refuses (LATMC_EUNSUPPORTED).
 *    The sum in a field (lib/cluster_embed_sum.h): the library's term against llrint,
 *    and the core's steps in a field where the definition of the sum decides.
 * 3. The same chains on CUDA (skipped without a GPU): the local passes the GPU's, the
 *    cluster step still the definition's bit for bit (Swendsen-Wang and Wolff of
 *    Heisenberg, in a field too, and of phi^4 with Lambda = inf on the device, the rest
 *    on the host copy), with its statistics; and the device's step against the host
 *    copy's of the same sim (LATMC_CUDA_EMBED=host), configuration and cluster
 *    observables bit for bit, a parameter changed between a step and the read of its
 *    statistics, with and without a field.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "backend.h"
#include "cluster_bonds.h"
#include "cluster_embed.h"
#include "cluster_embed_sum.h"
#include "exact_phi4.h"
#include "latmc_math.h"
#include "plan.h"
#include "rng_streams.h"
#include "sim_helpers.h"

/* ---- the definition, written from the page ---- */

struct pairs {
    int n;
    int off[12][3];
    double k[12];           /* uniform couplings (phi^4) */
    const double *kbond;    /* or per bond, n per site (Heisenberg: beta J) */
};

/* phi^4: +e_mu; for finite Lambda +2 e_mu, then per plane (mu < nu) +e_mu+e_nu, +e_mu-e_nu */
static struct pairs phi4_pairs(int ndim, double lambda)
{
    struct pairs p;
    memset(&p, 0, sizeof p);
    for (int mu = 0; mu < ndim; mu++, p.n++) {
        p.off[p.n][mu] = 1;
        p.k[p.n] = isfinite(lambda) ? 1.0 + 4.0 * ndim / lambda : 1.0;
    }
    if (!isfinite(lambda))
        return p;
    for (int mu = 0; mu < ndim; mu++, p.n++) {
        p.off[p.n][mu] = 2;
        p.k[p.n] = -1.0 / lambda;
    }
    for (int mu = 0; mu < ndim; mu++)
        for (int nu = mu + 1; nu < ndim; nu++)
            for (int s = 1; s >= -1; s -= 2, p.n++) {
                p.off[p.n][mu] = 1;
                p.off[p.n][nu] = s;
                p.k[p.n] = -2.0 / lambda;
            }
    return p;
}

struct lat {
    int ndim;
    int64_t L[3], n;
};

static struct lat lat_of(int ndim, int64_t lx, int64_t ly, int64_t lz)
{
    struct lat g = { ndim, { lx, ly, ndim == 3 ? lz : 1 }, 0 };
    g.n = g.L[0] * g.L[1] * g.L[2];
    return g;
}

static int64_t partner(const struct lat *g, const struct pairs *p, int64_t i, int d, int sign)
{
    int64_t x[3] = { i % g->L[0], (i / g->L[0]) % g->L[1], i / (g->L[0] * g->L[1]) };
    for (int a = 0; a < 3; a++)
        x[a] = ((x[a] + sign * p->off[d][a]) % g->L[a] + g->L[a]) % g->L[a];
    return x[0] + g->L[0] * (x[1] + g->L[1] * x[2]);
}

static double kof(const struct pairs *p, int64_t i, int d)
{
    return p->kbond ? p->kbond[p->n * i + d] : p->k[d];
}

/* Draw n of phase `phase`: stream 3 of the replica, sweep t, sub 1, lane n mod 4. */
static uint32_t draw(uint64_t seed, uint64_t t, uint32_t replica, uint32_t phase, uint64_t n)
{
    return latmc_rng_block(seed, n / 4, t, latmc_rng_stream(3, replica), phase, 1).v[n % 4];
}

static uint64_t threshold(double p)
{
    return p <= 0.0 ? 0 : p >= 1.0 ? UINT64_C(1) << 32 : (uint64_t)ldexp(p, 32);
}

static int bond(const struct pairs *p, const double *a, uint64_t seed, uint64_t t,
                uint32_t rep, int64_t i, int d, int64_t j)
{
    const double x = kof(p, i, d) * a[i] * a[j];
    if (!(x > 0.0))
        return 0;
    const uint64_t thr = x > 25.0 ? UINT64_C(1) << 32 : threshold(-latmc_math_expm1(-2.0 * x));
    return draw(seed, t, rep, 0, (uint64_t)p->n * (uint64_t)i + (uint64_t)d) < thr;
}

struct stats {
    int64_t clusters, largest;
    double w2;             /* sum_C A_C^2 (Wolff: A_C^2 / |C|), A_C = sum of a over C,
                              each a_i rounded to a multiple of 2^-20 (stat_term) */
};

/* The statistics' sum: each a_i rounded to the nearest multiple of 2^-20 (ties to even:
 * llrint in the default rounding mode), the integers added exactly, the total times
 * 2^-20 (lib/cluster_embed_sum.h's latmc_embed_stat_term, written here with the C
 * library). */
static int64_t stat_term(double a)
{
    return (int64_t)llrint(ldexp(a, 20));
}

/* The sum that weighs a cluster's orientation in a field: each a_i rounded to the
 * nearest multiple of 2^-30 (ties to even: the C library's llrint in the default
 * rounding mode, checked by the tests that use it), the integers added exactly, the
 * total times 2^-30. */
static int64_t page_term(double a)
{
    return (int64_t)llrint(ldexp(a, 30));
}

/* Other definitions of the sum in a field, only to show that a test sees the difference:
 * the sum of the a_i in doubles in the growth's order (which an earlier definition used),
 * and that sum rounded once to a multiple of 2^-30 (rounding the total, not the terms). */
enum { SUM_PAGE, SUM_DOUBLES, SUM_DOUBLES_ROUNDED };

/* One cluster step: flip[i] = 1 where a_i changes sign. field: F of the orientation
 * weight exp(F A_C), A_C the page's sum (or `sum`'s other definition). */
static void reference_step(const struct lat *g, const struct pairs *p, const double *a,
                           double field, uint64_t seed, uint64_t t, uint32_t rep, int wolff,
                           int sum, char *flip, struct stats *st)
{
    const int64_t n = g->n;
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    char *seen = calloc((size_t)n, 1);
    assert_non_null(queue);
    assert_non_null(seen);
    memset(flip, 0, (size_t)n);
    memset(st, 0, sizeof *st);
    int64_t first = 0, last = n;
    if (wolff) {
        const uint64_t u = (uint64_t)draw(seed, t, rep, 2, 0) << 32 | draw(seed, t, rep, 2, 1);
        first = (int64_t)(u % (uint64_t)n);
        last = first + 1;
    }
    for (int64_t s = first; s < last; s++) {
        if (seen[s])
            continue;
        int64_t head = 0, tail = 0, smallest = s, Q = 0, S = 0;
        double A = 0.0;
        queue[tail++] = s;
        seen[s] = 1;
        while (head < tail) {
            const int64_t i = queue[head++];
            smallest = i < smallest ? i : smallest;
            A += a[i];
            Q += page_term(a[i]);
            S += stat_term(a[i]);
            for (int d = 0; d < p->n; d++) {
                const int64_t up = partner(g, p, i, d, 1), dn = partner(g, p, i, d, -1);
                if (!seen[up] && bond(p, a, seed, t, rep, i, d, up)) {
                    seen[up] = 1;
                    queue[tail++] = up;
                }
                if (!seen[dn] && bond(p, a, seed, t, rep, dn, d, i)) {
                    seen[dn] = 1;
                    queue[tail++] = dn;
                }
            }
        }
        const double A_C = sum == SUM_DOUBLES           ? A
                           : sum == SUM_DOUBLES_ROUNDED ? ldexp(nearbyint(ldexp(A, 30)), -30)
                                                        : ldexp((double)Q, -30);
        const double arg = fmin(-2.0 * field * A_C, 700.0);
        const uint64_t keep_thr = field == 0.0 ? UINT64_C(1) << 31
                                               : threshold(1.0 / (1.0 + latmc_math_exp(arg)));
        const int flips = wolff && field == 0.0 ? 1 : draw(seed, t, rep, 1, (uint64_t)smallest) >= keep_thr;
        for (int64_t k = 0; k < tail; k++)
            flip[queue[k]] = (char)flips;
        st->clusters++;
        st->largest = tail > st->largest ? tail : st->largest;
        const double A_stat = ldexp((double)S, -20);
        st->w2 += wolff ? A_stat * A_stat / (double)tail : A_stat * A_stat;
    }
    free(queue);
    free(seen);
}

/* The Wolff cluster's sum of a in doubles, added in the growth's order (the order of
 * reference_step's queue), to show where the order of a sum in doubles matters. */
static void reference_growth_sum(const struct lat *g, const struct pairs *p, const double *a,
                                 uint64_t seed, uint64_t t, double *sum)
{
    const int64_t n = g->n;
    int64_t *queue = malloc((size_t)n * sizeof *queue);
    char *seen = calloc((size_t)n, 1);
    assert_non_null(queue);
    assert_non_null(seen);
    const uint64_t u = (uint64_t)draw(seed, t, 0, 2, 0) << 32 | draw(seed, t, 0, 2, 1);
    const int64_t s = (int64_t)(u % (uint64_t)n);
    int64_t head = 0, tail = 0;
    double A = 0.0;
    queue[tail++] = s;
    seen[s] = 1;
    while (head < tail) {
        const int64_t i = queue[head++];
        A += a[i];
        for (int d = 0; d < p->n; d++) {
            const int64_t up = partner(g, p, i, d, 1), dn = partner(g, p, i, d, -1);
            if (!seen[up] && bond(p, a, seed, t, 0, i, d, up)) {
                seen[up] = 1;
                queue[tail++] = up;
            }
            if (!seen[dn] && bond(p, a, seed, t, 0, dn, d, i)) {
                seen[dn] = 1;
                queue[tail++] = dn;
            }
        }
    }
    *sum = A;
    free(queue);
    free(seen);
}

/* ---- 1. phi^4's couplings against H ---- */

static double uniform(uint64_t *rng)
{
    return ((double)(test_rng_next(rng) >> 11) + 0.5) * 0x1p-53;
}

static void couplings_carry_the_signs(void **state)
{
    (void)state;
    const struct { int ndim; int64_t L[3]; } lats[] = {
        { 2, { 8, 8, 1 } }, { 2, { 5, 10, 1 } }, { 3, { 8, 8, 8 } },
    };
    const double lambdas[] = { INFINITY, 3.0, 0.4 };
    uint64_t rng = 12345;
    for (size_t l = 0; l < sizeof lats / sizeof lats[0]; l++)
        for (size_t m = 0; m < sizeof lambdas / sizeof lambdas[0]; m++) {
            const struct lat g = lat_of(lats[l].ndim, lats[l].L[0], lats[l].L[1], lats[l].L[2]);
            const struct exact_phi4_lattice el = { g.ndim, { g.L[0], g.L[1], g.L[2] } };
            const struct pairs p = phi4_pairs(g.ndim, lambdas[m]);
            double *phi = malloc((size_t)g.n * sizeof *phi);
            double *flipped = malloc((size_t)g.n * sizeof *flipped);
            assert_non_null(phi);
            assert_non_null(flipped);
            for (int trial = 0; trial < 4; trial++) {
                for (int64_t i = 0; i < g.n; i++) {
                    phi[i] = 3.0 * (uniform(&rng) - 0.5);
                    flipped[i] = uniform(&rng) < 0.3 ? -phi[i] : phi[i];
                }
                const long double dh = exact_phi4_hamiltonian(&el, flipped, 0.3, 1.2, lambdas[m]) -
                                       exact_phi4_hamiltonian(&el, phi, 0.3, 1.2, lambdas[m]);
                double want = 0.0, scale = 0.0;
                for (int64_t i = 0; i < g.n; i++)
                    for (int d = 0; d < p.n; d++) {
                        const int64_t j = partner(&g, &p, i, d, 1);
                        want -= p.k[d] * (flipped[i] * flipped[j] - phi[i] * phi[j]);
                        scale += fabs(p.k[d] * phi[i] * phi[j]);
                    }
                assert_true(fabs((double)dh - want) <= 1e-9 * scale);
            }
            free(phi);
            free(flipped);
        }
}

/* ---- 2. the chain, bit for bit ---- */

/* The boxes of one process the sims below are made as (desc.n_parts; 0: one box). */
static int test_boxes;

static latmc_sim *make_phi4(latmc_ctx *ctx, int device, int ndim, int64_t lx, int64_t ly,
                            int64_t lz, int precision, double lambda, int algorithm, int nloc)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = ndim;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.extent[2] = ndim == 3 ? lz : 0;
    d.precision = precision;
    d.algorithm = algorithm;
    d.device = device;
    d.n_threads = 1;
    d.n_parts = test_boxes;
    d.seed = 77;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, -0.8), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 2.0), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, lambda), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, nloc), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_EPSILON, 1.5), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    return sim;
}

static void check_stats(latmc_sim *sim, const struct stats *st, int64_t n, int wolff)
{
    double v = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &v), LATMC_OK);
    assert_true(v == (double)st->clusters);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_LARGEST_CLUSTER, &v), LATMC_OK);
    assert_true(v == (double)st->largest / (double)n);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_CLUSTER_M2, &v), LATMC_OK);
    const double want = wolff ? st->w2 / (double)n : st->w2 / ((double)n * (double)n);
    assert_true(fabs(v - want) <= 1e-12 * want);
}

static void phi4_case(latmc_ctx *ctx, int device, int ndim, int64_t lx, int64_t ly, int64_t lz,
                      int precision, double lambda, int algorithm, int nloc)
{
    const int wolff = algorithm == LATMC_ALGO_WOLFF;
    latmc_sim *cl = make_phi4(ctx, device, ndim, lx, ly, lz, precision, lambda, algorithm, nloc);
    latmc_sim *loc = make_phi4(ctx, device, ndim, lx, ly, lz, precision, lambda,
                               LATMC_ALGO_METROPOLIS, nloc);
    const struct lat g = lat_of(ndim, lx, ly, lz);
    const struct pairs p = phi4_pairs(ndim, lambda);
    const size_t bytes = (size_t)g.n * (precision == LATMC_PRECISION_FLOAT ? 4 : 8);
    void *want = malloc(bytes), *got = malloc(bytes);
    double *a = malloc((size_t)g.n * sizeof *a);
    char *flip = malloc((size_t)g.n);
    assert_true(want && got && a && flip);
    int64_t flipped = 0, unflipped = 0;
    for (uint64_t t = 0; t < 4; t++) {
        assert_int_equal(latmc_sim_sweep(cl, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(loc, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(loc, want, bytes), LATMC_OK);
        for (int64_t i = 0; i < g.n; i++)
            a[i] = precision == LATMC_PRECISION_FLOAT ? ((float *)want)[i] : ((double *)want)[i];
        struct stats st;
        reference_step(&g, &p, a, 0.0, 77, t, 0, wolff, SUM_PAGE, flip, &st);
        for (int64_t i = 0; i < g.n; i++) {
            flipped += flip[i] != 0;
            unflipped += !flip[i];
            if (!flip[i])
                continue;
            if (precision == LATMC_PRECISION_FLOAT)
                ((float *)want)[i] = -((float *)want)[i];
            else
                ((double *)want)[i] = -((double *)want)[i];
        }
        assert_int_equal(latmc_sim_get_spins(cl, got, bytes), LATMC_OK);
        assert_memory_equal(got, want, bytes);
        check_stats(cl, &st, g.n, wolff);
        assert_int_equal(latmc_sim_set_spins(loc, want, bytes), LATMC_OK);
    }
    assert_true(flipped > 0 && unflipped > 0); /* the comparison saw both outcomes */
    free(want);
    free(got);
    free(a);
    free(flip);
    latmc_sim_destroy(&cl);
    latmc_sim_destroy(&loc);
}

static void phi4_cases(latmc_ctx *ctx, int device)
{
    phi4_case(ctx, device, 2, 8, 8, 0, LATMC_PRECISION_DOUBLE, 0.7, LATMC_ALGO_SWENDSEN_WANG, 1);
    phi4_case(ctx, device, 2, 10, 5, 0, LATMC_PRECISION_FLOAT, 2.0, LATMC_ALGO_SWENDSEN_WANG, 2);
    phi4_case(ctx, device, 2, 8, 16, 0, LATMC_PRECISION_FLOAT, INFINITY, LATMC_ALGO_WOLFF, 1);
    phi4_case(ctx, device, 2, 8, 8, 0, LATMC_PRECISION_DOUBLE, 0.7, LATMC_ALGO_WOLFF, 1);
    phi4_case(ctx, device, 3, 8, 8, 8, LATMC_PRECISION_DOUBLE, 1.5, LATMC_ALGO_SWENDSEN_WANG, 1);
    phi4_case(ctx, device, 3, 8, 8, 8, LATMC_PRECISION_FLOAT, 1.5, LATMC_ALGO_WOLFF, 1);
}

static void phi4_chain(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    phi4_cases(ctx, LATMC_DEVICE_CPU);
    phi4_case(ctx, LATMC_DEVICE_CPU, 2, 8, 8, 0, LATMC_PRECISION_DOUBLE, INFINITY,
              LATMC_ALGO_SWENDSEN_WANG, 1);
    latmc_ctx_destroy(&ctx);
}

static latmc_sim *make_heisenberg(latmc_ctx *ctx, int device, int ndim, int64_t l, int algorithm,
                            double h)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = ndim;
    d.extent[0] = d.extent[1] = l;
    d.extent[2] = ndim == 3 ? l : 0;
    d.replicas = 2;
    d.couplings = LATMC_COUPLINGS_GAUSSIAN;
    d.coupling_seed = 99;
    d.algorithm = algorithm;
    d.device = device;
    d.n_threads = 1;
    d.n_parts = test_boxes;
    d.seed = 5;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 1.3), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 1), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    return sim;
}

/* A ferromagnet near its transition (uniform J, beta 0.693, 3D): clusters of every size,
 * one spanning, so that the device's sums in a field add clusters of every size, a warp's
 * hot cluster among them. */
static latmc_sim *make_ferro(latmc_ctx *ctx, int64_t l, int algorithm, double h)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = 3;
    d.extent[0] = d.extent[1] = d.extent[2] = l;
    d.algorithm = algorithm;
    d.device = LATMC_DEVICE_CUDA;
    d.n_threads = 1;
    d.n_parts = test_boxes;
    d.seed = 6;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.693), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, 0), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
    return sim;
}

/* The step's direction from the page: z = 2 u0 - 1, azimuth 2 pi u1, u = (r + 1/2) 2^-32. */
static void axis(uint64_t seed, uint64_t t, uint32_t rep, double r[3])
{
    const double z = 2.0 * (((double)draw(seed, t, rep, 3, 0) + 0.5) * 0x1p-32) - 1.0;
    const double rho = sqrt((1.0 - z) * (1.0 + z));
    double s, c;
    latmc_math_sincos_2pi(((double)draw(seed, t, rep, 3, 1) + 0.5) * 0x1p-32, &s, &c);
    r[0] = rho * c;
    r[1] = rho * s;
    r[2] = z;
}

static void heisenberg_case(latmc_ctx *ctx, int device, int ndim, int64_t l, int algorithm,
                            double h)
{
    const int wolff = algorithm == LATMC_ALGO_WOLFF;
    latmc_sim *cl = make_heisenberg(ctx, device, ndim, l, algorithm, h);
    latmc_sim *loc = make_heisenberg(ctx, device, ndim, l, LATMC_ALGO_HEATBATH, h);
    const struct lat g = lat_of(ndim, l, l, l);
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(cl, &nc), LATMC_OK);
    float *J = malloc(nc * sizeof *J);
    double *kb = malloc(nc * sizeof *kb);
    assert_true(J && kb);
    assert_int_equal(latmc_sim_get_couplings(cl, J, nc), LATMC_OK);
    for (size_t k = 0; k < nc; k++)
        kb[k] = 1.3 * (double)J[k];
    struct pairs p;
    memset(&p, 0, sizeof p);
    p.n = ndim;
    for (int mu = 0; mu < ndim; mu++)
        p.off[mu][mu] = 1;
    p.kbond = kb;
    const size_t count = (size_t)g.n * 2 * 3, bytes = count * sizeof(float);
    float *want = malloc(bytes), *got = malloc(bytes);
    double *a = malloc((size_t)g.n * sizeof *a);
    char *flip = malloc((size_t)g.n);
    assert_true(want && got && a && flip);
    int64_t flipped = 0;
    for (uint64_t t = 0; t < 12; t++) {
        assert_int_equal(latmc_sim_sweep(cl, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(loc, 1), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(loc, want, bytes), LATMC_OK);
        for (uint32_t rep = 0; rep < 2; rep++) {
            float *s = want + (size_t)g.n * 3 * rep;
            double r[3];
            axis(5, t, rep, r);
            for (int64_t i = 0; i < g.n; i++)
                a[i] = r[0] * s[3 * i] + r[1] * s[3 * i + 1] + r[2] * s[3 * i + 2];
            struct stats st;
            reference_step(&g, &p, a, 1.3 * h * r[2], 5, t, rep, wolff, SUM_PAGE, flip, &st);
            for (int64_t i = 0; i < g.n; i++) {
                if (!flip[i])
                    continue;
                flipped++;
                double v[3];
                for (int c = 0; c < 3; c++)
                    v[c] = (double)s[3 * i + c] - 2.0 * a[i] * r[c];
                const double inv = 1.0 / sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
                for (int c = 0; c < 3; c++)
                    s[3 * i + c] = (float)(v[c] * inv);
            }
            if (rep == 0) {
                st.w2 *= 3.0;
                assert_int_equal(latmc_sim_get_spins(cl, got, bytes), LATMC_OK);
                check_stats(cl, &st, g.n, wolff);
            }
        }
        assert_int_equal(latmc_sim_get_spins(cl, got, bytes), LATMC_OK);
        assert_memory_equal(got, want, bytes);
        assert_int_equal(latmc_sim_set_spins(loc, want, bytes), LATMC_OK);
    }
    assert_true(flipped > 0);
    free(J);
    free(kb);
    free(want);
    free(got);
    free(a);
    free(flip);
    latmc_sim_destroy(&cl);
    latmc_sim_destroy(&loc);
}

static void heisenberg_cases(latmc_ctx *ctx, int device)
{
    heisenberg_case(ctx, device, 2, 6, LATMC_ALGO_SWENDSEN_WANG, 0.0);
    heisenberg_case(ctx, device, 2, 6, LATMC_ALGO_SWENDSEN_WANG, 0.7);
    heisenberg_case(ctx, device, 3, 4, LATMC_ALGO_WOLFF, 0.0);
    heisenberg_case(ctx, device, 3, 4, LATMC_ALGO_WOLFF, 0.7);
}

static void heisenberg_chain(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    heisenberg_cases(ctx, LATMC_DEVICE_CPU);
    latmc_ctx_destroy(&ctx);
}

/* A backend without get_couplings (optional, lib/backend.h): the host copy's step cannot
 * have the couplings, and the sweep says so (LATMC_EUNSUPPORTED, the op named) instead of
 * calling through NULL; the sim sweeps again with its own ops. */
static void no_couplings_op(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int algorithms[] = { LATMC_ALGO_SWENDSEN_WANG, LATMC_ALGO_WOLFF };
    for (int k = 0; k < 2; k++) {
        latmc_sim *sim = make_heisenberg(ctx, LATMC_DEVICE_CPU, 2, 6, algorithms[k], 0.0);
        const struct latmc_backend_ops *own = sim->ops;
        struct latmc_backend_ops ops = *own;
        ops.get_couplings = NULL;
        sim->ops = &ops;
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_EUNSUPPORTED);
        assert_non_null(strstr(latmc_last_error(), "get_couplings"));
        sim->ops = own;
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

/* ---- 2b. a backend's Wolff step: the seed and the statistics regrown from its bonds ---- */

/* The seed helper's names (lib/cluster_bonds.h) against the page: the embedded step's
 * seed from draws 0 and 1 of phase 2 of the replica's stream, sub 1; Ising Wolff's (the
 * labelled models) from stream 3 of replica 0, sub 0 -- (2^32 d0 + d1) mod n in 64 bits,
 * lattices past 2^32 sites included. */
static void wolff_seed_names(void **state)
{
    (void)state;
    const int64_t sizes[] = { 1, 7, 4096, 24 * 24 * 24, (INT64_C(1) << 33) + 5 };
    for (uint64_t seed = 1; seed < 4; seed++)
        for (uint64_t t = 0; t < 40; t += 13)
            for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
                const uint64_t n = (uint64_t)sizes[k];
                for (uint32_t rep = 0; rep < 2; rep++) {
                    const uint64_t u = (uint64_t)draw(seed, t, rep, 2, 0) << 32 |
                                       draw(seed, t, rep, 2, 1);
                    assert_int_equal(latmc_cluster_seed_of(seed,
                                                           latmc_rng_cluster_name(
                                                               t, rep, 2, LATMC_EMBED_SUB),
                                                           (int64_t)n),
                                     (int64_t)(u % n));
                }
                const latmc_philox_ctr r =
                    latmc_rng_block(seed, 0, t, latmc_rng_stream(3, 0), 2, 0);
                const uint64_t u = (uint64_t)r.v[0] << 32 | r.v[1];
                assert_int_equal(latmc_cluster_seed_site(seed, t, (int64_t)n), (int64_t)(u % n));
            }
}

/* latmc_embed_wolff_regrow over every bond of a step (drawn here from the page, the bits
 * above the directions and bit 7 -- the CUDA labelling's tile marks -- set at random, as
 * lib/backend.h leaves them undefined) against the definition's Wolff step: the same
 * cluster, and its statistics bit for bit. The a_i are of mixed sizes, so that their
 * sum in doubles would round differently in site order than in the growth's order in
 * some steps: the statistics' integer sums give the same w2 in either order (counted:
 * the steps where the doubles differ). K and the a_i are chosen so that clusters are
 * large; the last lattice's K and positive a_i make every bond active (one cluster
 * spanning the lattice). */
static void wolff_regrow_case(int ndim, int64_t lx, int64_t ly, int64_t lz, double k,
                              int *order_matters)
{
    const struct lat g = lat_of(ndim, lx, ly, lz);
    const int64_t n = g.n;
    struct pairs p;
    memset(&p, 0, sizeof p);
    for (int mu = 0; mu < ndim; mu++, p.n++) {
        p.off[p.n][mu] = 1;
        p.k[p.n] = k;
    }
    double *a = malloc((size_t)n * sizeof *a);
    uint8_t *bonds = malloc((size_t)n);
    char *flip = malloc((size_t)n);
    struct latmc_embed_work w;
    memset(&w, 0, sizeof w);
    w.nsites = n;
    w.a = a;
    w.flip = malloc((size_t)n);
    w.parent = malloc((size_t)n * sizeof *w.parent);
    assert_true(a && bonds && flip && w.flip && w.parent);
    uint64_t rng = 0x5eed0000u + (uint64_t)n;
    const int spanning = k > 1e5; /* every a_i > 0, every bond active */
    for (uint64_t t = 0; t < 12; t++) {
        const uint64_t seed = 11 + t % 3;
        for (int64_t i = 0; i < n; i++) {
            const double mag = ldexp(1.0 + uniform(&rng), (int)(test_rng_next(&rng) % 9) - 4);
            a[i] = spanning || test_rng_next(&rng) % 8 ? mag : -mag;
        }
        for (int64_t i = 0; i < n; i++) {
            unsigned b = (unsigned)(test_rng_next(&rng) & 0xffu) & ~((1u << ndim) - 1u);
            for (int d = 0; d < ndim; d++)
                b |= (unsigned)bond(&p, a, seed, t, 0, i, d, partner(&g, &p, i, d, 1)) << d;
            bonds[i] = (uint8_t)b;
        }
        struct stats want;
        reference_step(&g, &p, a, 0.0, seed, t, 0, 1, SUM_PAGE, flip, &want);
        struct latmc_embed_problem prob;
        memset(&prob, 0, sizeof prob);
        prob.g = latmc_cluster_lattice_of(ndim, g.L);
        prob.n_dirs = ndim;
        for (int mu = 0; mu < ndim; mu++)
            prob.off[mu][mu] = 1;
        prob.seed = seed;
        prob.sweep = t;
        prob.wolff = 1;
        struct latmc_embed_stats got;
        latmc_embed_wolff_regrow(&prob, &w, bonds, &got);
        assert_int_equal(got.clusters, 1);
        assert_int_equal(got.largest, want.largest);
        assert_int_equal(got.size, want.largest);
        if (spanning)
            assert_int_equal(got.largest, n);
        assert_memory_equal(&got.w2, &want.w2, sizeof got.w2);
        double site_order = 0.0, growth_order = 0.0;
        int64_t S_site = 0;
        for (int64_t i = 0; i < n; i++) {
            assert_int_equal(w.flip[i], flip[i]); /* the cluster: without a field it flips */
            if (flip[i]) {
                site_order += a[i];
                S_site += stat_term(a[i]);
            }
        }
        /* the integer sum in site order: the same statistic */
        const double A_site = ldexp((double)S_site, -20);
        const double w2_site = A_site * A_site / (double)want.largest;
        assert_memory_equal(&w2_site, &want.w2, sizeof w2_site);
        /* where the doubles in the growth's order would have differed */
        reference_growth_sum(&g, &p, a, seed, t, &growth_order);
        if (memcmp(&site_order, &growth_order, sizeof site_order) != 0)
            (*order_matters)++;
    }
    free(a);
    free(bonds);
    free(flip);
    free(w.flip);
    free(w.parent);
}

static void wolff_regrow(void **state)
{
    (void)state;
    int order_matters = 0;
    wolff_regrow_case(3, 6, 5, 7, 1.5, &order_matters);
    wolff_regrow_case(2, 9, 7, 1, 1.5, &order_matters);
    wolff_regrow_case(3, 8, 8, 8, 0.7, &order_matters);
    wolff_regrow_case(2, 5, 5, 1, 1e6, &order_matters); /* every active bond: x > 25 */
    /* steps whose sum of a in doubles depends on the order were among them */
    assert_true(order_matters > 0);
}

/* ---- 2c. the sum in a field: the library's against the page's ---- */

/* The library's term (lib/cluster_embed_sum.h, written without the C library) against
 * llrint's: random a of a Heisenberg projection's range, every tie (2m + 1) 2^-31 near
 * random and small m (ties to even, both signs), the ends and zeros; odd in a; the clamp
 * beyond |a| = 2 and a NaN; the value Q 2^-30. */
static void field_sum_terms(void **state)
{
    (void)state;
    assert_int_equal(fegetround(), FE_TONEAREST);
    uint64_t rng = 2718;
    int64_t ties_up = 0, ties_down = 0;
    for (int k = 0; k < 200000; k++) {
        double a;
        if (k % 4 == 0)
            a = 2.0002 * (uniform(&rng) - 0.5);
        else if (k % 4 == 1) /* a tie near a random value */
            a = ldexp(2.0 * (double)(int64_t)(test_rng_next(&rng) % (UINT64_C(1) << 31)) + 1.0,
                      -31) * (test_rng_next(&rng) & 1 ? 1.0 : -1.0);
        else if (k % 4 == 2) /* a small tie */
            a = ldexp((double)(k % 64) - 31.5, -30);
        else /* a neighbour of a tie */
            a = nextafter(ldexp((double)(k % 64) - 31.5, -30), k & 4 ? 1.0 : -1.0);
        const int64_t want = page_term(a);
        assert_int_equal(latmc_embed_sum_term(a), want);
        assert_int_equal(latmc_embed_sum_term(-a), -want);
        const double x = ldexp(a, 30);
        if (x - floor(x) == 0.5) {
            ties_up += (double)want > x;
            ties_down += (double)want < x;
        }
    }
    assert_true(ties_up > 1000 && ties_down > 1000); /* the ties went both ways */
    const double ends[] = { 0.0, -0.0, 1.0, -1.0, 1.0 + 1e-5, -(1.0 + 1e-5), 0x1p-31,
                            -0x1p-31, 3 * 0x1p-31, -3 * 0x1p-31, 0x1p-1074,
                            nextafter(2.0, 0.0), nextafter(-2.0, 0.0) };
    for (size_t k = 0; k < sizeof ends / sizeof *ends; k++)
        assert_int_equal(latmc_embed_sum_term(ends[k]), page_term(ends[k]));
    const double beyond[] = { 2.0, 5.0, 1e300, INFINITY };
    for (size_t k = 0; k < sizeof beyond / sizeof *beyond; k++) {
        assert_int_equal(latmc_embed_sum_term(beyond[k]), INT64_C(1) << 31);
        assert_int_equal(latmc_embed_sum_term(-beyond[k]), -(INT64_C(1) << 31));
    }
    assert_int_equal(latmc_embed_sum_term(NAN), 0);
    const int64_t qs[] = { 0, 1, -1, INT64_C(3) << 40, (INT64_C(1) << 62) + 12345,
                           -((INT64_C(1) << 62) + 12345) };
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
        const double v = latmc_embed_sum_value(qs[k]), w = ldexp((double)qs[k], -30);
        assert_memory_equal(&v, &w, sizeof v);
        assert_true(latmc_embed_sum_value(-qs[k]) == -v); /* odd after the rounding too */
    }
}

/*
 * The core's step (latmc_embed_step, Swendsen-Wang and Wolff) in a field strong enough
 * that the definition of the sum decides: a_i = m_i 2^-33 (m_i in -12 .. 12, not 0; q_i =
 * m_i / 8 rounded, m_i = +-4 and +-12 ties, to 0 and +-2), F = 2^29, so that -2 F A_C =
 * -Q_C, an integer, where the sum of the a_i in doubles would give -(sum of m_i) / 8. K
 * (x = k m_i m_j) makes clusters of a few sites (Swendsen-Wang k = 0.1: some larger;
 * Wolff k = 0.005: small ones, whose decisions are not certain; 768 steps, one decision
 * each, so that enough clusters of two sites and more are decided). The flips and the
 * statistics against the page's step; the page's step with either other sum -- the a_i
 * in doubles, or that total rounded once to a multiple of 2^-30 (rounding the total, not
 * each term) -- must differ in some steps (so the comparison sees the definition).
 */
static void field_sum_chain_case(int ndim, int64_t lx, int64_t ly, int64_t lz, int wolff,
                                 int differs[2])
{
    const struct lat g = lat_of(ndim, lx, ly, lz);
    const int64_t n = g.n;
    struct pairs p;
    memset(&p, 0, sizeof p);
    for (int mu = 0; mu < ndim; mu++, p.n++) {
        p.off[p.n][mu] = 1;
        p.k[p.n] = (wolff ? 0.005 : 0.1) * 0x1p66;
    }
    double *a = malloc((size_t)n * sizeof *a);
    char *flip = malloc((size_t)n), *old_flip = malloc((size_t)n);
    struct latmc_embed_work w;
    memset(&w, 0, sizeof w);
    w.nsites = n;
    w.a = a;
    w.flip = malloc((size_t)n);
    w.bonds = malloc((size_t)n * sizeof *w.bonds);
    w.parent = malloc((size_t)n * sizeof *w.parent);
    w.name = malloc((size_t)n * sizeof *w.name);
    w.ssum = malloc((size_t)n * sizeof *w.ssum);
    w.qsum = malloc((size_t)n * sizeof *w.qsum);
    assert_true(a && flip && old_flip && w.flip && w.bonds && w.parent && w.name && w.ssum &&
                w.qsum);
    uint64_t rng = 0xf1e1d000u + (uint64_t)n + (uint64_t)wolff;
    for (uint64_t t = 0; t < (wolff ? 768u : 24u); t++) {
        for (int64_t i = 0; i < n; i++) {
            const int m = 1 + (int)(test_rng_next(&rng) % 12);
            a[i] = ldexp(test_rng_next(&rng) & 1 ? m : -m, -33);
        }
        struct latmc_embed_problem prob;
        memset(&prob, 0, sizeof prob);
        prob.g = latmc_cluster_lattice_of(ndim, g.L);
        prob.n_dirs = ndim;
        for (int mu = 0; mu < ndim; mu++) {
            prob.off[mu][mu] = 1;
            prob.k[mu] = p.k[mu];
        }
        prob.field = 0x1p29;
        prob.seed = 21;
        prob.sweep = t;
        prob.wolff = wolff;
        prob.n_threads = 1;
        struct latmc_embed_stats got;
        latmc_embed_step(&prob, &w, &got);
        struct stats want, other;
        reference_step(&g, &p, a, prob.field, 21, t, 0, wolff, SUM_PAGE, flip, &want);
        for (int alt = 0; alt < 2; alt++) {
            reference_step(&g, &p, a, prob.field, 21, t, 0, wolff,
                           alt ? SUM_DOUBLES_ROUNDED : SUM_DOUBLES, old_flip, &other);
            differs[alt] += memcmp(flip, old_flip, (size_t)n) != 0;
        }
        for (int64_t i = 0; i < n; i++)
            assert_int_equal(w.flip[i] != 0, flip[i] != 0);
        assert_int_equal(got.clusters, want.clusters);
        assert_int_equal(got.largest, want.largest);
        if (!wolff) /* the page adds A_C in its growth's order, the core in site order */
            assert_true(fabs(got.w2 - want.w2) <= 1e-12 * want.w2);
        else
            assert_memory_equal(&got.w2, &want.w2, sizeof got.w2);
    }
    free(a);
    free(flip);
    free(old_flip);
    free(w.flip);
    free(w.bonds);
    free(w.parent);
    free(w.name);
    free(w.ssum);
    free(w.qsum);
}

static void field_sum_chain(void **state)
{
    (void)state;
    assert_int_equal(fegetround(), FE_TONEAREST);
    for (int wolff = 0; wolff < 2; wolff++) {
        int differs[2] = { 0, 0 };
        field_sum_chain_case(2, 16, 12, 1, wolff, differs);
        field_sum_chain_case(3, 6, 5, 7, wolff, differs);
        print_message("field_sum_chain %s: %d and %d steps decided otherwise by the other sums\n",
                      wolff ? "Wolff" : "Swendsen-Wang", differs[0], differs[1]);
        assert_true(differs[0] > 0 && differs[1] > 0);
    }
}

/* ---- 3. the same on CUDA ---- */

/* A context whose CUDA backend has a GPU, or NULL (the test then skips). */
static latmc_ctx *cuda_ctx(void)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    int n = 0;
    if (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &n) != LATMC_OK || n < 1)
        latmc_ctx_destroy(&ctx);
    return ctx;
}

/* The sims dev (the device's step, checked to be taken before the parameter changes) and
 * host (made with LATMC_CUDA_EMBED=host: the host copy's) of one desc, swept alike in
 * calls of 1, 3 and 2 sweeps: after each call the
 * configuration and the three cluster observables bit for bit (memcmp: the sums of a
 * round alike only in the same order -- Wolff's its growth's). Before the second read
 * key is set to value on both: the statistics are the last step's, not the parameters'
 * now (the device's are counted when first read). */
static void routes_agree(latmc_sim *dev, latmc_sim *host, size_t bytes, int key, double value)
{
    void *a = malloc(bytes), *b = malloc(bytes);
    assert_true(a && b);
    /* the layout compared is the one asked for (test_boxes: k boxes, whose step is
     * cuda_embed_boxes.c's; else one box alone, cuda_embed.c's) */
    assert_int_equal(dev->plan->n_boxes, test_boxes ? test_boxes : 1);
    assert_int_equal(host->plan->n_boxes, dev->plan->n_boxes);
    const uint64_t calls[] = { 1, 3, 2 };
    for (int c = 0; c < 3; c++) {
        assert_int_equal(latmc_sim_sweep(dev, calls[c]), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(host, calls[c]), LATMC_OK);
        /* the routes are the ones compared (a device that declined the ask would leave
         * both sims on the host copy, and the comparison would see nothing): until the
         * parameter changes (phi^4's finite Lambda goes to the host copy on boxes) dev's
         * last step ran on the backend, host's never does; read before the observables
         * settle the statistics */
        if (c <= 1)
            assert_true(dev->embed && dev->embed->names_on_backend);
        assert_true(host->embed && !host->embed->names_on_backend);
        if (c == 1) {
            assert_int_equal(latmc_sim_set_param(dev, key, value), LATMC_OK);
            assert_int_equal(latmc_sim_set_param(host, key, value), LATMC_OK);
        }
        const int keys[] = { LATMC_OBS_CLUSTERS, LATMC_OBS_LARGEST_CLUSTER,
                             LATMC_OBS_CLUSTER_M2 };
        for (int k = 0; k < 3; k++) {
            double u = -1.0, v = -2.0;
            assert_int_equal(latmc_sim_observable(dev, keys[k], &u), LATMC_OK);
            assert_int_equal(latmc_sim_observable(host, keys[k], &v), LATMC_OK);
            assert_memory_equal(&u, &v, sizeof u);
        }
        assert_int_equal(latmc_sim_get_spins(dev, a, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(host, b, bytes), LATMC_OK);
        assert_memory_equal(a, b, bytes);
    }
    free(a);
    free(b);
}

/* routes_agree for a phi^4 sim of make_phi4 with Lambda = lambda, nloc 1, Lambda set to
 * then after a step (its statistics are still the step's: Wolff's regrown over the step's
 * pairs, not the new ones); then one sweep more, which runs on the device for one box
 * whatever Lambda, and on k boxes only with Lambda = inf. */
static void phi4_routes(latmc_ctx *ctx, int ndim, int64_t lx, int64_t ly, int64_t lz,
                        int precision, int algorithm, double lambda, double then)
{
    assert_int_equal(setenv("LATMC_CUDA_EMBED", "device", 1), 0); /* the default, named */
    latmc_sim *dev = make_phi4(ctx, LATMC_DEVICE_CUDA, ndim, lx, ly, lz, precision, lambda,
                               algorithm, 1);
    assert_int_equal(setenv("LATMC_CUDA_EMBED", "host", 1), 0);
    latmc_sim *host = make_phi4(ctx, LATMC_DEVICE_CUDA, ndim, lx, ly, lz, precision, lambda,
                                algorithm, 1);
    unsetenv("LATMC_CUDA_EMBED");
    const size_t sites = (size_t)lx * (size_t)ly * (size_t)(ndim == 3 ? lz : 1);
    routes_agree(dev, host,
                 sites * (precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double)),
                 LATMC_PARAM_LAMBDA, then);
    assert_true(dev->embed && !dev->embed->names_on_backend); /* read: settled */
    assert_int_equal(latmc_sim_sweep(dev, 1), LATMC_OK);
    assert_true(dev->embed->names_on_backend == (!test_boxes || isinf(then)));
    latmc_sim_destroy(&dev);
    latmc_sim_destroy(&host);
}

/* routes_agree for a 3D Heisenberg sim of make_heisenberg, L^3, two replicas (beta set to 0.7
 * after a step). */
static void heisenberg_routes(latmc_ctx *ctx, int64_t l, int algorithm, double h)
{
    assert_int_equal(setenv("LATMC_CUDA_EMBED", "device", 1), 0); /* the default, named */
    latmc_sim *dev = make_heisenberg(ctx, LATMC_DEVICE_CUDA, 3, l, algorithm, h);
    assert_int_equal(setenv("LATMC_CUDA_EMBED", "host", 1), 0);
    latmc_sim *host = make_heisenberg(ctx, LATMC_DEVICE_CUDA, 3, l, algorithm, h);
    unsetenv("LATMC_CUDA_EMBED");
    routes_agree(dev, host, (size_t)(l * l * l) * 2 * 3 * sizeof(float), LATMC_PARAM_BETA,
                 0.7);
    latmc_sim_destroy(&dev);
    latmc_sim_destroy(&host);
}

/* routes_agree for the ferromagnet of make_ferro, 40^3 in the field h = 0.05 (h set to 0.2
 * after a step); the device's last step's largest cluster (a fraction of the sites). */
static double ferro_routes(latmc_ctx *ctx, int algorithm)
{
    latmc_sim *dev = make_ferro(ctx, 40, algorithm, 0.05);
    assert_int_equal(setenv("LATMC_CUDA_EMBED", "host", 1), 0);
    latmc_sim *host = make_ferro(ctx, 40, algorithm, 0.05);
    unsetenv("LATMC_CUDA_EMBED");
    routes_agree(dev, host, (size_t)40 * 40 * 40 * 3 * sizeof(float), LATMC_PARAM_H, 0.2);
    double largest = 0.0;
    assert_int_equal(latmc_sim_observable(dev, LATMC_OBS_LARGEST_CLUSTER, &largest), LATMC_OK);
    latmc_sim_destroy(&dev);
    latmc_sim_destroy(&host);
    return largest;
}

/* The CUDA sims' local passes are the GPU's (phi^4's chunk schedule, Heisenberg's heat
 * bath with CUDA's functions), both sims' alike; the cluster step applied to the local
 * sim's configuration must still be the definition's, bit for bit, with its statistics. */
static void phi4_chain_cuda(void **state)
{
    (void)state;
    latmc_ctx *ctx = cuda_ctx();
    if (!ctx)
        skip();
    phi4_cases(ctx, LATMC_DEVICE_CUDA);
    /* Swendsen-Wang with Lambda = inf: the device's step (ops.embed_step); larger, so that
     * the clusters span the GPU's tiles and blocks */
    phi4_case(ctx, LATMC_DEVICE_CUDA, 2, 8, 8, 0, LATMC_PRECISION_DOUBLE, INFINITY,
              LATMC_ALGO_SWENDSEN_WANG, 1);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 2, 64, 64, 0, LATMC_PRECISION_FLOAT, INFINITY,
              LATMC_ALGO_SWENDSEN_WANG, 1);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 3, 16, 16, 32, LATMC_PRECISION_DOUBLE, INFINITY,
              LATMC_ALGO_SWENDSEN_WANG, 2);
    /* Wolff with Lambda = inf: the device's step too (the seed's cluster of the labels) */
    phi4_case(ctx, LATMC_DEVICE_CUDA, 2, 64, 64, 0, LATMC_PRECISION_FLOAT, INFINITY,
              LATMC_ALGO_WOLFF, 1);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 3, 16, 16, 32, LATMC_PRECISION_DOUBLE, INFINITY,
              LATMC_ALGO_WOLFF, 2);
    /* a finite Lambda: the device's step too, the further pairs united after the
     * labelling (extents that are and are not multiples of the tiles) */
    phi4_case(ctx, LATMC_DEVICE_CUDA, 2, 64, 40, 0, LATMC_PRECISION_FLOAT, 2.0,
              LATMC_ALGO_SWENDSEN_WANG, 1);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 2, 40, 64, 0, LATMC_PRECISION_DOUBLE, 0.7,
              LATMC_ALGO_WOLFF, 1);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 3, 16, 24, 32, LATMC_PRECISION_DOUBLE, 2.0,
              LATMC_ALGO_SWENDSEN_WANG, 2);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 3, 24, 16, 16, LATMC_PRECISION_FLOAT, 1.5,
              LATMC_ALGO_WOLFF, 1);
    /* the device's step against the host copy's: Lambda = inf changed to 3, and Lambda =
     * 2 changed to 0.7 (a finite Lambda stays on the device), 2D and 3D */
    for (int algo = 0; algo < 2; algo++) {
        const int a = algo ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG;
        phi4_routes(ctx, 3, 24, 24, 24, LATMC_PRECISION_DOUBLE, a, INFINITY, 3.0);
        phi4_routes(ctx, 3, 24, 24, 24, LATMC_PRECISION_FLOAT, a, 2.0, 0.7);
        phi4_routes(ctx, 2, 64, 64, 0, LATMC_PRECISION_FLOAT, a, 2.0, 0.7);
    }
    latmc_ctx_destroy(&ctx);
}

static void heisenberg_chain_cuda(void **state)
{
    (void)state;
    latmc_ctx *ctx = cuda_ctx();
    if (!ctx)
        skip();
    heisenberg_cases(ctx, LATMC_DEVICE_CUDA);
    /* larger, so that the clusters span the GPU's tiles, blocks and the flattening
     * across them (the device's step, ops.embed_step, in a field too) */
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 3, 32, LATMC_ALGO_SWENDSEN_WANG, 0.0);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 3, 48, LATMC_ALGO_SWENDSEN_WANG, 0.0);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 2, 128, LATMC_ALGO_SWENDSEN_WANG, 0.0);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 2, 96, LATMC_ALGO_WOLFF, 0.0);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 3, 32, LATMC_ALGO_WOLFF, 0.0);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 3, 32, LATMC_ALGO_SWENDSEN_WANG, 0.4);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 3, 24, LATMC_ALGO_WOLFF, 0.4);
    /* a case of the device's step forced to the host copy (LATMC_CUDA_EMBED=host, read at
     * create): the same definition, so both routes of one sim stay checked */
    assert_int_equal(setenv("LATMC_CUDA_EMBED", "host", 1), 0);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 3, 32, LATMC_ALGO_SWENDSEN_WANG, 0.0);
    heisenberg_case(ctx, LATMC_DEVICE_CUDA, 3, 32, LATMC_ALGO_WOLFF, 0.0);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 2, 64, 64, 0, LATMC_PRECISION_FLOAT, INFINITY,
              LATMC_ALGO_SWENDSEN_WANG, 1);
    phi4_case(ctx, LATMC_DEVICE_CUDA, 2, 64, 64, 0, LATMC_PRECISION_FLOAT, INFINITY,
              LATMC_ALGO_WOLFF, 1);
    unsetenv("LATMC_CUDA_EMBED");
    /* the device's step against the host copy's, beta changed after a step (the
     * statistics are the step's: Wolff's regrown from its bonds, not from beta J now);
     * in a field too (the clusters' sums of a by atomics: many small clusters and
     * large ones) */
    for (int c = 0; c < 4; c++)
        heisenberg_routes(ctx, c >= 2 ? 32 : 24,
                          c % 2 ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG, c >= 2 ? 0.4 : 0.0);
    /* the ferromagnet in a small field from a cold start: a spanning cluster
     * (Swendsen-Wang: many warps' sites in one cluster, hot in each), a large one (Wolff) */
    assert_true(ferro_routes(ctx, LATMC_ALGO_SWENDSEN_WANG) * 64000.0 > 256.0);
    (void)ferro_routes(ctx, LATMC_ALGO_WOLFF);
    latmc_ctx_destroy(&ctx);
}

/* The device's step on k boxes of one GPU (cuda_embed_boxes.c) against the host
 * copy's of the same layout, which is the core's step: Heisenberg Swendsen-Wang and Wolff
 * with Gaussian couplings and two replicas, with and without a field; phi^4 with Lambda =
 * inf; the ferromagnet's spanning clusters across the faces in a field; 2 and 3 boxes
 * (uneven slabs). routes_agree checks that the device's step ran. */
static void boxes_cuda(void **state)
{
    (void)state;
    latmc_ctx *ctx = cuda_ctx();
    if (!ctx)
        skip();
    for (int c = 0; c < 8; c++) {
        test_boxes = c % 2 ? 3 : 2;
        heisenberg_routes(ctx, c % 2 ? 20 : 24,
                    c / 2 % 2 ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG, c >= 4 ? 0.4 : 0.0);
    }
    /* the ferromagnet's spanning cluster across the faces (Swendsen-Wang) */
    test_boxes = 2;
    assert_true(ferro_routes(ctx, LATMC_ALGO_SWENDSEN_WANG) * 64000.0 > 256.0);
    (void)ferro_routes(ctx, LATMC_ALGO_WOLFF);
    /* phi^4 (96 planes: the chunk schedule's layers cut into two boxes) */
    for (int c = 0; c < 2; c++)
        phi4_routes(ctx, 2, 128, 96, 0, LATMC_PRECISION_FLOAT,
                    c ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG, INFINITY, 3.0);
    test_boxes = 0;
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(couplings_carry_the_signs),
        cmocka_unit_test(phi4_chain),
        cmocka_unit_test(heisenberg_chain),
        cmocka_unit_test(no_couplings_op),
        cmocka_unit_test(wolff_seed_names),
        cmocka_unit_test(wolff_regrow),
        cmocka_unit_test(field_sum_terms),
        cmocka_unit_test(field_sum_chain),
        cmocka_unit_test(phi4_chain_cuda),
        cmocka_unit_test(heisenberg_chain_cuda),
        cmocka_unit_test(boxes_cuda),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
