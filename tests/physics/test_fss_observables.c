/*
 * The finite-size-scaling observables (doc/observables.md) against independent results:
 *
 * (a) The observable function on given configurations: LATMC_OBS_M2_K0, M2_KMIN and
 *     OVERLAP2_KMIN of random configurations of every model (2D and 3D, one and two
 *     replicas) against a direct transform here, sum_x v(x) exp(i k.x) with complex
 *     arithmetic, the Potts order parameter built as explicit simplex vectors in R^q.
 * (b) Exact enumeration: Ising 4x4 (2^16 states) and Potts q = 3 on 3x3 (3^9 states), the
 *     Boltzmann averages of |m(0)|^2 and |m(k_min)|^2 (so chi and F) against a chain within
 *     4 sigma.
 * (c) Gaussian phi^4 (g = 0): <|phi(k)|^2> = N / K(p) per mode (doc/models/phi4.md), so
 *     <M2_KMIN> = 1 / (N K(k_min)) and <M2_K0> = 1 / (N mu2), within 4 sigma at several
 *     L (so p), mu2 and Lambda.
 * (d) Bit identity of the new observables for any thread count and box count (a lattice
 *     larger than the reduction's block of planes, so several blocks and several threads).
 * (e) The jackknife helpers: latmc_acc_corr_length and latmc_ens_corr_length on rows of
 *     known means, and their refusals; the ensemble's overlap at k_min against the direct
 *     transform of its members' configurations.
 *
 * LATMC_TEST_DEVICE=cuda (meson: "test_fss_observables cuda", skipped without a GPU): (a)
 * and (b) on the CUDA backend, which counts Ising's and Potts' modes on the device (in the
 * measurement's pass from the second measurement on: measurement_pass_cuda) and reduces
 * phi^4's and Heisenberg's tiles there; phi^4's M2_KMIN on the GPU, one box and 2 boxes,
 * the same double as the CPU backend's on the same field (the same additions in the same
 * order, lib/modes_planes.c), and Heisenberg's bit for bit against the CPU backend on the
 * same configurations (one box, boxes, after the device's own sweeps); Potts q <= 3's
 * count at 2D 6500^2 and 3D 300^3 against the CPU backend (counts_against_cpu_cuda: its
 * byte counters' flushes inside a warp's part of a chunk), and Ising's packed count at 2D
 * 16384^2 (its blocks of 4 parts) and 3D 1024^3 (its chunks of 2048 rows).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mc_sampling.h"
#include "sim_helpers.h"

#define MAX_SIGMA 4.0
static const double two_pi = 6.283185307179586476925;

/* ---- the direct transform ---- */

struct lattice {
    int ndim;
    int64_t L[3];
    int64_t n;
};

static struct lattice lattice_of(int ndim, int64_t L)
{
    struct lattice g = { ndim, { L, L, ndim == 3 ? L : 1 }, 0 };
    g.n = g.L[0] * g.L[1] * g.L[2];
    return g;
}

static int64_t coord(const struct lattice *g, int64_t i, int mu)
{
    const int64_t stride = mu == 0 ? 1 : mu == 1 ? g->L[0] : g->L[0] * g->L[1];
    return (i / stride) % g->L[mu];
}

/* Sum over directions of |sum_i v(i, c) e^{i k_mu x_mu}|^2 summed over the nc components,
 * divided by ndim N^2; v(i, c) = vals[i nc + c]; k = 0 when zero_k. */
static double power_of(const struct lattice *g, const double *vals, int nc, int zero_k)
{
    double total = 0;
    for (int mu = 0; mu < g->ndim; mu++) {
        for (int c = 0; c < nc; c++) {
            double complex f = 0;
            for (int64_t i = 0; i < g->n; i++) {
                const double k = zero_k ? 0 : two_pi / (double)g->L[mu];
                f += vals[i * nc + c] * cexp(I * k * (double)coord(g, i, mu));
            }
            total += creal(f * conj(f));
        }
    }
    return total / (g->ndim * (double)g->n * (double)g->n);
}

/* Potts: explicit simplex vectors e_a = sqrt(q / (q - 1)) (u_a - (1/q) sum_b u_b) in R^q. */
static void simplex_values(const uint8_t *s, int64_t n, int q, double *vals)
{
    const double scale = sqrt((double)q / (q - 1.0));
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < q; j++)
            vals[i * q + j] = scale * ((s[i] == j ? 1.0 : 0.0) - 1.0 / q);
}

struct fourier { double k0, kmin, qkmin; };

/* Heisenberg's and phi^4's site values as the modes at k_min take them: rint(v 2^S) 2^-S,
 * S = 25 (a spin's components) or 20 (the field) (ties to even under the default
 * rounding), computed here by the C library, not by lib/modes_exact.h; v itself where
 * `fixed` is false (k = 0: the measurement's sums; the ensembles' overlaps). */
static double fixed_point_of(double v, bool fixed, double scale)
{
    return fixed ? rint(v * scale) / scale : v;
}

static double fixed_point(double v, bool fixed)
{
    return fixed_point_of(v, fixed, 0x1p25);
}

/* The three observables of a configuration in get_spins' layout; Heisenberg's modes at
 * k_min in the fixed point of `fixed`. */
static struct fourier direct_of(const struct lattice *g, int model, int q, int replicas,
                                const void *buf, bool fixed)
{
    int nc = model == LATMC_MODEL_POTTS ? q : model == LATMC_MODEL_HEISENBERG ? 3 : 1;
    double *v = malloc((size_t)g->n * (size_t)(nc > 9 ? nc : 9) * sizeof *v);
    assert_non_null(v);
    struct fourier f = { 0, 0, 0 };
    for (int at_kmin = 0; at_kmin < 2; at_kmin++) {
        for (int64_t i = 0; i < g->n; i++)
            switch (model) {
            case LATMC_MODEL_ISING:
                v[i] = ((const int8_t *)buf)[i];
                break;
            case LATMC_MODEL_PHI4:
                v[i] = fixed_point_of(((const double *)buf)[i], fixed && at_kmin, 0x1p20);
                break;
            case LATMC_MODEL_HEISENBERG:
                for (int c = 0; c < 3; c++)
                    v[3 * i + c] = fixed_point((double)((const float *)buf)[3 * i + c],
                                               fixed && at_kmin);
                break;
            default:
                break;
            }
        if (model == LATMC_MODEL_POTTS)
            simplex_values(buf, g->n, q, v);
        if (at_kmin)
            f.kmin = power_of(g, v, nc, 0);
        else
            f.k0 = power_of(g, v, nc, 1);
    }
    if (replicas == 2) {
        const float *a = buf, *b = (const float *)buf + 3 * g->n;
        for (int64_t i = 0; i < g->n; i++)
            for (int m = 0; m < 3; m++)
                for (int k = 0; k < 3; k++)
                    v[9 * i + 3 * m + k] =
                        fixed_point((double)a[3 * i + m] * (double)b[3 * i + k], fixed);
        f.qkmin = power_of(g, v, 9, 0);
    }
    free(v);
    return f;
}

/* direct_of with the sims' definition (doc/observables.md). */
static struct fourier direct(const struct lattice *g, int model, int q, int replicas,
                             const void *buf)
{
    return direct_of(g, model, q, replicas, buf, true);
}

/* ---- (a) the function on given configurations ---- */

static latmc_sim *make_on(latmc_ctx *ctx, int device, int model, int ndim, int64_t L, int q,
                          int replicas, int n_threads, int n_parts, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = ndim;
    for (int mu = 0; mu < ndim; mu++)
        d.extent[mu] = L;
    d.q = model == LATMC_MODEL_POTTS ? q : 2;
    d.replicas = replicas;
    d.device = device;
    d.n_threads = n_threads;
    d.n_parts = n_parts;
    d.seed = seed;
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (st != LATMC_OK)
        fail_msg("create model %d %dD L=%lld parts %d: %s", model, ndim, (long long)L, n_parts,
                 latmc_last_error());
    return sim;
}

static latmc_sim *make(latmc_ctx *ctx, int model, int ndim, int64_t L, int q, int replicas,
                       int n_threads, int n_parts, uint64_t seed)
{
    return make_on(ctx, test_device(), model, ndim, L, q, replicas, n_threads, n_parts, seed);
}

static void random_config(latmc_sim *sim, int model, int q, int64_t count, void *buf,
                          uint64_t *rng)
{
    for (int64_t i = 0; i < count; i++) {
        const uint64_t r = test_rng_next(rng);
        switch (model) {
        case LATMC_MODEL_ISING:
            ((int8_t *)buf)[i] = r & 1 ? 1 : -1;
            break;
        case LATMC_MODEL_POTTS:
            /* biased towards state 0, so that |m(0)| is not tiny */
            ((uint8_t *)buf)[i] = (uint8_t)(r % 4 == 0 ? 0 : (r >> 8) % (uint64_t)q);
            break;
        case LATMC_MODEL_PHI4:
            ((double *)buf)[i] = ((double)(r >> 11) * 0x1p-53 - 0.3) * 2.5;
            break;
        default: {
            double x, y, z, n2;
            do {
                x = (double)(test_rng_next(rng) >> 11) * 0x1p-52 - 1;
                y = (double)(test_rng_next(rng) >> 11) * 0x1p-52 - 1 + 0.3;
                z = (double)(test_rng_next(rng) >> 11) * 0x1p-52 - 1;
                n2 = x * x + y * y + z * z;
            } while (n2 < 0.01 || n2 > 4);
            const double s = 1 / sqrt(n2);
            float *v = (float *)buf + 3 * i;
            v[0] = (float)(x * s);
            v[1] = (float)(y * s);
            v[2] = (float)(z * s);
            break;
        }
        }
    }
    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(sim, buf, bytes), LATMC_OK);
}

/* A phi^4 sim of L^ndim sites on the CPU (sims[0]), on CUDA as one box (sims[1]) and as 2
 * boxes (sims[2]), float or double, the same seed. */
static void phi4_cpu_and_cuda(latmc_ctx *ctx, int ndim, int64_t L, int single, uint64_t seed,
                              latmc_sim *sims[3])
{
    for (int k = 0; k < 3; k++) {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        d.model = LATMC_MODEL_PHI4;
        d.ndim = ndim;
        for (int mu = 0; mu < ndim; mu++)
            d.extent[mu] = L;
        d.precision = single ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
        d.device = k == 0 ? LATMC_DEVICE_CPU : LATMC_DEVICE_CUDA;
        d.n_parts = k == 2 ? 2 : 0;
        d.seed = seed;
        sims[k] = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sims[k]), LATMC_OK);
    }
}

/* M2_KMIN of the three sims of phi4_cpu_and_cuda (their configurations set): the CUDA
 * ones' bit for bit the CPU's. */
static void phi4_same_kmin(latmc_sim *sims[3], const char *label)
{
    double v[3];
    for (int k = 0; k < 3; k++)
        assert_int_equal(latmc_sim_observable(sims[k], LATMC_OBS_M2_KMIN, &v[k]), LATMC_OK);
    printf("phi^4 %s: M2_KMIN %.17g (CPU), %.17g (CUDA), %.17g (CUDA, 2 boxes)\n", label, v[0],
           v[1], v[2]);
    assert_true(v[0] > 0);
    assert_memory_equal(&v[1], &v[0], sizeof v[0]);
    assert_memory_equal(&v[2], &v[0], sizeof v[0]);
}

/* phi^4's M2_KMIN of one field (float or double) on the CUDA backend, as one box and as
 * 2 boxes (desc.n_parts), and on the CPU backend: bit for bit the same. */
static void phi4_modes_as_cpu(latmc_ctx *ctx, int ndim, int single)
{
    /* 3D: the chunk schedule, boxes of whole chunk layers; 2D: the site order */
    latmc_sim *sims[3];
    phi4_cpu_and_cuda(ctx, ndim, ndim == 3 ? 64 : 40, single, 7, sims);
    size_t bytes = 0;
    void *field = NULL;
    for (int k = 0; k < 3; k++)
        test_share_config(sims[k], field, bytes);
    char label[32];
    snprintf(label, sizeof label, "%dD %s", ndim, single ? "float" : "double");
    phi4_same_kmin(sims, label);
    free(field);
    for (int k = 0; k < 3; k++)
        latmc_sim_destroy(&sims[k]);
}

/* phi^4's fixed point holds the field within its bound (lib/modes_exact.h: here, on 40^2
 * sites, while sum phi^2 <= 2^60): a field of zeros but for one site of 2^29 and one of
 * -3 2^27 + 2^-21 (fixed points of 2^49 and less, a tie among them) gives the definition's
 * |m(k_min)|^2 exactly; a site of 2^31 (sum phi^2 = 2^62) makes M2_KMIN refuse, with the
 * reason, while the other observables stay. Both backends (this test's device). */
static void phi4_field_bound(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const struct lattice g = lattice_of(2, 40);
    latmc_sim *sim = make(ctx, LATMC_MODEL_PHI4, 2, 40, 2, 1, 1, 0, 1);
    double *field = calloc((size_t)g.n, sizeof *field);
    assert_non_null(field);
    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
    field[41] = 0x1p29;
    field[1000] = -0x3p27 + 0x1p-21;
    field[1001] = 0x1p-21; /* a tie: rounds to 0 */
    assert_int_equal(latmc_sim_set_spins(sim, field, bytes), LATMC_OK);
    double kmin = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &kmin), LATMC_OK);
    const struct fourier want = direct(&g, LATMC_MODEL_PHI4, 2, 1, field);
    assert_close(kmin, want.kmin, 1e-12 * want.kmin);
    field[41] = 0x1p31;
    assert_int_equal(latmc_sim_set_spins(sim, field, bytes), LATMC_OK);
    double m2 = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &kmin), LATMC_EUNSUPPORTED);
    assert_non_null(strstr(latmc_last_error(), "too large"));
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), LATMC_OK);
    free(field);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* phi^4's projections counted in the CUDA tile walk (2D rows of at least 4096 rows: the
 * measurement once the modes are wanted) against the CPU's, bit for bit, one box and 2 of
 * 4096 rows: a float field mostly in [-2, 2], with some rows holding values the walk's
 * float count does not take (|phi| >= 4 and thereabouts: their chunk's row or column
 * counted again by the exact FMA), ties and the count's edge (-4: exact). The first read
 * of M2_KMIN takes the projections' own kernel, the second (the field negated) the walk,
 * whose helper warps count floats' projections. */
static void phi4_walk_against_cpu(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const int64_t L = 8192, n = L * L;
    latmc_sim *sims[3];
    phi4_cpu_and_cuda(ctx, 2, L, 1, 5, sims);
    float *field = malloc((size_t)n * sizeof *field);
    assert_non_null(field);
    uint64_t rng = 77;
    for (int64_t i = 0; i < n; i++)
        field[i] = (float)((double)(test_rng_next(&rng) >> 11) * 0x1p-51 - 2.0);
    static const float odd[] = { 4.0f,       -5.5f,     3.9999998f, -1000.25f,
                                 0x1p22f,    0x3p-21f,  -0x5p-21f,  123456.78f,
                                 -4.0f,      -0x1.000002p2f, -24.0f };
    for (int64_t r = 100; r < L; r += 397) /* rows of several warps and chunks */
        for (int64_t x = r % 61; x < L; x += 523)
            field[r * L + x] = odd[(r + x) % (int64_t)(sizeof odd / sizeof odd[0])];
    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(sims[0], &bytes), LATMC_OK);
    assert_int_equal(bytes, (size_t)n * sizeof *field);
    for (int round = 0; round < 2; round++) {
        if (round == 1)
            for (int64_t i = 0; i < n; i++)
                field[i] = -field[i];
        for (int k = 0; k < 3; k++)
            assert_int_equal(latmc_sim_set_spins(sims[k], field, bytes), LATMC_OK);
        phi4_same_kmin(sims, round ? "8192^2 float, negated" : "8192^2 float");
    }
    free(field);
    for (int k = 0; k < 3; k++)
        latmc_sim_destroy(&sims[k]);
    latmc_ctx_destroy(&ctx);
}

static void given_configurations(void **state)
{
    (void)state;
    struct c { int model, ndim; int64_t L; int q, replicas; } cases[] = {
        { LATMC_MODEL_ISING, 2, 4, 2, 1 },       { LATMC_MODEL_ISING, 3, 6, 2, 1 },
        { LATMC_MODEL_POTTS, 2, 6, 3, 1 },       { LATMC_MODEL_POTTS, 3, 6, 5, 1 },
        { LATMC_MODEL_POTTS, 2, 9, 4, 1 },       { LATMC_MODEL_PHI4, 2, 40, 2, 1 },
        { LATMC_MODEL_PHI4, 3, 8, 2, 1 },        { LATMC_MODEL_HEISENBERG, 2, 6, 2, 1 },
        { LATMC_MODEL_HEISENBERG, 3, 4, 2, 2 },  { LATMC_MODEL_HEISENBERG, 2, 8, 2, 2 },
        /* L_x a multiple of 16: CUDA's packed Ising layout (the others: its bytes) */
        { LATMC_MODEL_ISING, 2, 32, 2, 1 },      { LATMC_MODEL_ISING, 3, 16, 2, 1 },
    };
    const bool cuda = test_device() == LATMC_DEVICE_CUDA;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    uint64_t rng = 2026;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct c *c = &cases[k];
        const struct lattice g = lattice_of(c->ndim, c->L);
        latmc_sim *sim = make(ctx, c->model, c->ndim, c->L, c->q, c->replicas, 1, 0, 1);
        void *buf = malloc((size_t)g.n * 2 * 3 * sizeof(double));
        assert_non_null(buf);
        for (int rep = 0; rep < 3; rep++) {
            random_config(sim, c->model, c->q, g.n * c->replicas, buf, &rng);
            const struct fourier want = direct(&g, c->model, c->q, c->replicas, buf);
            double k0 = 0, kmin = 0, qk = 0;
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &k0), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &kmin), LATMC_OK);
            printf("model %d %dD L=%lld: |m(0)|^2 %.12g (direct %.12g), |m(kmin)|^2 %.12g "
                   "(direct %.12g)\n", c->model, c->ndim, (long long)c->L, k0, want.k0, kmin,
                   want.kmin);
            assert_close(k0, want.k0, 1e-12 * (want.k0 + 1e-3));
            assert_close(kmin, want.kmin, 1e-12 * (want.kmin + 1e-3));
            if (c->replicas == 2) {
                assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2_KMIN, &qk),
                                 LATMC_OK);
                assert_close(qk, want.qkmin, 1e-12 * (want.qkmin + 1e-3));
            } else if (c->model == LATMC_MODEL_HEISENBERG) {
                assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2_KMIN, &qk),
                                 LATMC_EUNSUPPORTED);
            }
            if (c->model != LATMC_MODEL_POTTS) { /* the same vector as M2 */
                double m2 = 0;
                assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), LATMC_OK);
                assert_memory_equal(&m2, &k0, sizeof m2);
            }
        }
        free(buf);
        latmc_sim_destroy(&sim);
    }
    /* the ordered states: |m(0)|^2 = 1, |m(k_min)|^2 = 0 */
    latmc_sim *potts = make(ctx, LATMC_MODEL_POTTS, 2, 6, 4, 1, 1, 0, 1);
    assert_int_equal(latmc_sim_init_spins(potts, LATMC_INIT_COLD), LATMC_OK);
    double v = 0;
    assert_int_equal(latmc_sim_observable(potts, LATMC_OBS_M2_K0, &v), LATMC_OK);
    assert_close(v, 1.0, 1e-14);
    assert_int_equal(latmc_sim_observable(potts, LATMC_OBS_M2_KMIN, &v), LATMC_OK);
    assert_close(v, 0.0, 1e-14);
    latmc_sim_destroy(&potts);
    if (cuda) /* phi^4 on the GPU (one box, 2 boxes) and on the CPU: the same doubles */
        for (int ndim = 2; ndim <= 3; ndim++)
            for (int single = 0; single < 2; single++)
                phi4_modes_as_cpu(ctx, ndim, single);
    /* unequal extents: no single k_min */
    latmc_sim_desc d = ising_desc(2, 8, 4, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    latmc_sim *rect = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &rect), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(rect, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_observable(rect, LATMC_OBS_M2_KMIN, &v), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_sim_observable(rect, LATMC_OBS_M2_K0, &v), LATMC_OK);
    assert_int_equal(latmc_sim_observable(rect, LATMC_OBS_OVERLAP2_KMIN, &v), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&rect);
    assert_string_equal(latmc_observable_name(LATMC_OBS_M2_KMIN), "m2_kmin");
    latmc_ctx_destroy(&ctx);
}

/*
 * The measurement's own pass (the modes once asked for: ops.measure_modes) on both CPU
 * layouts (LATMC_CPU_MASK=c: the natural order; else the SIMD levels' split rows or colour
 * arrays), 1 and 2 threads; Ising with uniform and +-J couplings, Potts with few states
 * (byte counters) and many (q = 20: 64-bit counts), two colours and three; extents whose rows end in a partial
 * vector (L = 6, 34) or not (200): every later measurement equals the first one's separate
 * reduction's bit for bit across the layouts, and the direct transform.
 */
/* Ising with uniform couplings J = 1, h = 0: H / N and m^2 of spins (site order), counted
 * on the host, independent of every device kernel. */
static void ising_host_sums(const struct lattice *g, const int8_t *s, double *e, double *m2)
{
    int64_t bonds = 0, spins = 0;
    for (int64_t i = 0; i < g->n; i++) {
        spins += s[i];
        int64_t stride = 1;
        for (int mu = 0; mu < g->ndim; mu++) {
            const int64_t c = coord(g, i, mu);
            const int64_t j = c + 1 == g->L[mu] ? i - c * stride : i + stride;
            bonds += s[i] * s[j];
            stride *= g->L[mu];
        }
    }
    const double n = (double)g->n;
    *e = -(double)bonds / n;
    *m2 = ((double)spins / n) * ((double)spins / n);
}

/*
 * CUDA: the same measurements in a chain, each after a sweep, the sums first: from the
 * second on the modes are counted in the measurement's pass. Against the direct transform
 * of the configuration read back, and the energy and m^2 against a second sim of that
 * configuration that never asked for the modes (the measurement alone). Layouts: the
 * packed Ising words (L_x a multiple of 16: 1, 2 and 4 words a thread; two blocks of a
 * row; +-J; rows of exactly 32, 64 and 128 groups, a block each: L_x 512 to 8192, 3D 512^3),
 * Ising's and Potts' bytes (many chunks of rows, a row of two blocks), Potts beyond the
 * fused kernel's 32 states (two passes), and k boxes on the one GPU (n_parts). Ising with
 * uniform couplings: the energy and m^2 also against the host's count of the spins read.
 */
static void measurement_pass_cuda(void **state)
{
    (void)state;
    struct c { int model, ndim; int64_t L; int q, couplings, boxes; } cases[] = {
        { LATMC_MODEL_ISING, 2, 6, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 200, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 528, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 4112, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 512, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 1024, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 2048, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 4096, 2, LATMC_COUPLINGS_UNIFORM, 2 },
        { LATMC_MODEL_ISING, 2, 8192, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 2, 1024, 2, LATMC_COUPLINGS_BIMODAL, 1 },
        { LATMC_MODEL_ISING, 3, 512, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 3, 512, 2, LATMC_COUPLINGS_UNIFORM, 2 },
        { LATMC_MODEL_ISING, 2, 1024, 2, LATMC_COUPLINGS_BIMODAL, 2 },
        { LATMC_MODEL_ISING, 2, 528, 2, LATMC_COUPLINGS_UNIFORM, 3 },
        { LATMC_MODEL_ISING, 3, 34, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 3, 48, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_ISING, 3, 48, 2, LATMC_COUPLINGS_UNIFORM, 2 },
        { LATMC_MODEL_ISING, 2, 200, 2, LATMC_COUPLINGS_BIMODAL, 1 },
        { LATMC_MODEL_ISING, 3, 34, 2, LATMC_COUPLINGS_BIMODAL, 1 },
        { LATMC_MODEL_ISING, 2, 64, 2, LATMC_COUPLINGS_BIMODAL, 1 },
        { LATMC_MODEL_ISING, 2, 64, 2, LATMC_COUPLINGS_BIMODAL, 2 },
        { LATMC_MODEL_ISING, 3, 32, 2, LATMC_COUPLINGS_BIMODAL, 2 },
        { LATMC_MODEL_POTTS, 2, 6, 3, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 204, 4, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 300, 3, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 204, 4, LATMC_COUPLINGS_UNIFORM, 3 },
        { LATMC_MODEL_POTTS, 3, 36, 3, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 3, 36, 3, LATMC_COUPLINGS_UNIFORM, 2 },
        { LATMC_MODEL_POTTS, 2, 60, 20, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 60, 40, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 15, 3, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 1040, 3, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 2048, 4, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 2, 1024, 2, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 3, 40, 4, LATMC_COUPLINGS_UNIFORM, 1 },
        { LATMC_MODEL_POTTS, 3, 9, 5, LATMC_COUPLINGS_UNIFORM, 1 },
    };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct c *c = &cases[k];
        const struct lattice g = lattice_of(c->ndim, c->L);
        printf("measurement pass (CUDA): model %d %dD L=%lld q=%d couplings %d, %d boxes\n",
               c->model, c->ndim, (long long)c->L, c->q, c->couplings, c->boxes);
        fflush(stdout);
        latmc_sim_desc d = ising_desc(c->ndim, c->L, c->L, c->ndim == 3 ? c->L : 0,
                                      LATMC_ALGO_METROPOLIS, 1, 5);
        d.model = c->model;
        d.q = c->q;
        d.couplings = c->couplings;
        d.coupling_seed = 9;
        d.device = LATMC_DEVICE_CUDA;
        d.n_parts = c->boxes > 1 ? c->boxes : 0;
        latmc_sim *sim = NULL, *plain = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_create(ctx, &d, &plain), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        double e = 0, m2 = 0, k0 = 0, kmin = 0;
        for (int t = 0; t < 3; t++) {
            assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &k0), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &kmin), LATMC_OK);
        }
        size_t bytes = 0;
        assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
        uint8_t *spins = malloc(bytes);
        assert_non_null(spins);
        assert_int_equal(latmc_sim_get_spins(sim, spins, bytes), LATMC_OK);
        const struct fourier want = direct(&g, c->model, c->q, 1, spins);
        assert_close(k0, want.k0, 1e-12 * (want.k0 + 1e-3));
        assert_close(kmin, want.kmin, 1e-12 * (want.kmin + 1e-3));
        /* the measurement alone, of the same configuration (and couplings: same seed) */
        double e_plain = 0, m2_plain = 0;
        assert_int_equal(latmc_sim_set_spins(plain, spins, bytes), LATMC_OK);
        assert_int_equal(latmc_sim_observable(plain, LATMC_OBS_ENERGY, &e_plain), LATMC_OK);
        assert_int_equal(latmc_sim_observable(plain, LATMC_OBS_M2, &m2_plain), LATMC_OK);
        assert_memory_equal(&e, &e_plain, sizeof e);
        assert_memory_equal(&m2, &m2_plain, sizeof m2);
        if (c->model == LATMC_MODEL_ISING && c->couplings == LATMC_COUPLINGS_UNIFORM) {
            double e_host, m2_host;
            ising_host_sums(&g, (const int8_t *)spins, &e_host, &m2_host);
            assert_close(e, e_host, 1e-13);
            assert_close(m2, m2_host, 1e-13);
        }
        free(spins);
        latmc_sim_destroy(&plain);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

/*
 * CUDA counts against the CPU backend's. Potts q <= 3's count of the states' sums
 * (potts_planes.cu): a thread's byte counters of the columns take up to 2 a row and are
 * flushed after at most 127 rows of its warp's part of a chunk, which only long parts
 * reach: a chunk is the rows over the resident blocks (at most 2048), a part a half to an
 * eighth of it, so the cubic lattices above
 * never flush inside a part. On GPUs of 114 to 170 SMs (H100, H200: 132), 2D 6500^2 (4
 * sites a thread: L_x not a multiple of 16) and 3D 300^3 make parts of 133 to 241 rows:
 * flushes inside them, and last groups of an odd number of rows (H200: 3 and 3); 2D
 * 16384^2 (16 sites a thread, 3 blocks an SM: chunks of 683 rows, 4 warps down) parts of
 * 171 rows, a last group of 3 (H200). Stripes of state 2 (x < L / 2) fill the stripes'
 * bytes at 2 a row: a flush too late overflows them, which changes those columns only,
 * so M2_KMIN along x. Against the CPU backend on the same configuration (its own count
 * and the core's exact sums; the direct transform above is too slow at 27-268 M sites),
 * and hot configurations of q = 3 and q = 2. Ising (q 0), hot, the packed count's shapes
 * (measure_projections.cu): 2D 16384^2, rows of 256 groups in blocks of 4 parts of 64
 * threads, one box and +-J on 2 boxes; 3D 1024^3, chunks past ROW_WINDOW rows (2048). The
 * modes compared come from the count that weighs (limbs); the same shapes' projections
 * (a part's measure_modes, or where the limbs would overflow) are not run here.
 */
static void counts_against_cpu_cuda(void **state)
{
    (void)state;
    const struct { int ndim; int64_t L; int q, stripes, couplings, boxes; } cases[] = {
        { 2, 6500, 3, 1, LATMC_COUPLINGS_UNIFORM, 1 },
        { 3, 300, 3, 1, LATMC_COUPLINGS_UNIFORM, 1 },
        { 2, 6500, 3, 0, LATMC_COUPLINGS_UNIFORM, 1 },
        { 3, 300, 2, 0, LATMC_COUPLINGS_UNIFORM, 1 },
        { 2, 16384, 3, 1, LATMC_COUPLINGS_UNIFORM, 1 },
        { 2, 16384, 0, 0, LATMC_COUPLINGS_UNIFORM, 1 },
        { 2, 16384, 0, 0, LATMC_COUPLINGS_BIMODAL, 2 },
        { 3, 1024, 0, 0, LATMC_COUPLINGS_UNIFORM, 1 },
    };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const int ndim = cases[k].ndim, q = cases[k].q, stripes = cases[k].stripes;
        const struct lattice g = lattice_of(ndim, cases[k].L);
        printf("%s count (CUDA): %dD L=%lld q=%d%s, couplings %d, %d boxes\n",
               q ? "Potts" : "Ising", ndim, (long long)g.L[0], q,
               stripes ? ", stripes of state 2" : ", hot", cases[k].couplings, cases[k].boxes);
        fflush(stdout);
        latmc_sim_desc d = ising_desc(ndim, g.L[0], g.L[1], ndim == 3 ? g.L[2] : 0,
                                      LATMC_ALGO_METROPOLIS, 2, 7);
        d.model = q ? LATMC_MODEL_POTTS : LATMC_MODEL_ISING;
        d.q = q ? q : 2;
        d.couplings = cases[k].couplings;
        d.coupling_seed = 9;
        latmc_sim *cpu = NULL, *gpu = NULL;
        assert_int_equal(latmc_sim_create(ctx, &d, &cpu), LATMC_OK);
        d.device = LATMC_DEVICE_CUDA;
        d.n_parts = cases[k].boxes > 1 ? cases[k].boxes : 0;
        assert_int_equal(latmc_sim_create(ctx, &d, &gpu), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(gpu, LATMC_PARAM_BETA, stripes ? 3.0 : 0.3),
                         LATMC_OK);
        uint8_t *spins = malloc((size_t)g.n);
        assert_non_null(spins);
        if (stripes) {
            for (int64_t i = 0; i < g.n; i++)
                spins[i] = coord(&g, i, 0) < g.L[0] / 2 ? 2 : 0;
            assert_int_equal(latmc_sim_set_spins(gpu, spins, (size_t)g.n), LATMC_OK);
        } else {
            assert_int_equal(latmc_sim_init_spins(gpu, LATMC_INIT_HOT), LATMC_OK);
        }
        double v[3] = { 0 }, w[3] = { 0 };
        for (int t = 0; t < 2; t++) { /* the second's modes from the measurement's pass */
            assert_int_equal(latmc_sim_sweep(gpu, 1), LATMC_OK);
            assert_int_equal(latmc_sim_observable(gpu, LATMC_OBS_ENERGY, &v[0]), LATMC_OK);
            assert_int_equal(latmc_sim_observable(gpu, LATMC_OBS_M2_K0, &v[1]), LATMC_OK);
            assert_int_equal(latmc_sim_observable(gpu, LATMC_OBS_M2_KMIN, &v[2]), LATMC_OK);
        }
        assert_int_equal(latmc_sim_get_spins(gpu, spins, (size_t)g.n), LATMC_OK);
        int64_t twos = 0;
        for (int64_t i = 0; i < g.n; i++)
            twos += spins[i] == 2;
        if (q)
            printf("  state 2 at %.3f of the sites; M2_KMIN %.12g\n",
                   (double)twos / (double)g.n, v[2]);
        assert_int_equal(latmc_sim_set_spins(cpu, spins, (size_t)g.n), LATMC_OK);
        assert_int_equal(latmc_sim_observable(cpu, LATMC_OBS_ENERGY, &w[0]), LATMC_OK);
        assert_int_equal(latmc_sim_observable(cpu, LATMC_OBS_M2_K0, &w[1]), LATMC_OK);
        assert_int_equal(latmc_sim_observable(cpu, LATMC_OBS_M2_KMIN, &w[2]), LATMC_OK);
        for (int i = 0; i < 3; i++)
            assert_close(v[i], w[i], 1e-12 * (fabs(w[i]) + 1e-3));
        free(spins);
        latmc_sim_destroy(&gpu);
        latmc_sim_destroy(&cpu);
    }
    latmc_ctx_destroy(&ctx);
}

/* LATMC_CPU_MASK set to `mask`, or unset (NULL). */
static void set_cpu_mask(const char *mask)
{
    if (mask)
        setenv("LATMC_CPU_MASK", mask, 1);
    else
        unsetenv("LATMC_CPU_MASK");
}

/*
 * phi^4 and Heisenberg on the CPU: from the second measurement on, one box makes its
 * planes' tiles (phi^4) or fixed-point projections (Heisenberg) in the measurement's pass
 * (the kernels' measure_modes); 2 boxes keep the separate reduction (lib/modes_planes.c from
 * the boxes' planes). On one configuration, both layouts (masks "c": the natural order;
 * default: the SIMD levels' colour arrays), 1 and 2 threads, 2D and 3D, phi^4 in float and
 * double, L_x a multiple of 4 and not (phi^4's 3D takes multiples of 8), Heisenberg with one
 * replica and two: the sums and M2_KMIN (OVERLAP2_KMIN) bit for bit the same, the first
 * measurement's (both separate) and the second's.
 */
static void floating_measurement_pass(void **state)
{
    (void)state;
    struct c { int model, ndim; int64_t L; int precision, replicas; } cases[] = {
        { LATMC_MODEL_PHI4, 2, 30, LATMC_PRECISION_DOUBLE, 1 },
        { LATMC_MODEL_PHI4, 2, 64, LATMC_PRECISION_FLOAT, 1 },
        { LATMC_MODEL_PHI4, 3, 16, LATMC_PRECISION_DOUBLE, 1 },
        { LATMC_MODEL_PHI4, 3, 24, LATMC_PRECISION_FLOAT, 1 },
        /* 32768 sites and more: the threads' planes (fewer: one thread) */
        { LATMC_MODEL_PHI4, 2, 190, LATMC_PRECISION_DOUBLE, 1 },
        { LATMC_MODEL_PHI4, 3, 32, LATMC_PRECISION_FLOAT, 1 },
        { LATMC_MODEL_HEISENBERG, 3, 12, LATMC_PRECISION_FLOAT, 1 },
        { LATMC_MODEL_HEISENBERG, 3, 10, LATMC_PRECISION_FLOAT, 2 },
        { LATMC_MODEL_HEISENBERG, 2, 30, LATMC_PRECISION_FLOAT, 2 },
        { LATMC_MODEL_HEISENBERG, 3, 32, LATMC_PRECISION_FLOAT, 2 },
        { LATMC_MODEL_HEISENBERG, 2, 190, LATMC_PRECISION_FLOAT, 1 },
    };
    static const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_M2, LATMC_OBS_M2_KMIN,
                                LATMC_OBS_PHI2, LATMC_OBS_OVERLAP2_KMIN };
    enum { NK = sizeof keys / sizeof keys[0] };
    const char *masks[] = { "c", NULL };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const char *saved = getenv("LATMC_CPU_MASK");
    char *restore = saved ? strdup(saved) : NULL;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        for (int m = 0; m < 2; m++)
            for (int threads = 1; threads <= 2; threads++) {
                const struct c *c = &cases[k];
                const bool phi4 = c->model == LATMC_MODEL_PHI4;
                set_cpu_mask(masks[m]);
                latmc_sim *sim[2] = { NULL, NULL }; /* one box, 2 boxes */
                size_t bytes = 0;
                void *field = NULL;
                for (int b = 0; b < 2; b++) {
                    latmc_sim_desc d;
                    latmc_sim_desc_init(&d);
                    d.model = c->model;
                    d.ndim = c->ndim;
                    for (int mu = 0; mu < d.ndim; mu++)
                        d.extent[mu] = c->L;
                    d.precision = c->precision;
                    d.replicas = c->replicas;
                    d.device = LATMC_DEVICE_CPU;
                    d.n_threads = threads;
                    d.n_parts = b ? 2 : 0;
                    d.seed = 41 + k;
                    if (latmc_sim_create(ctx, &d, &sim[b]) != LATMC_OK)
                        fail_msg("create model %d %dD L=%lld, %d boxes: %s", c->model, d.ndim,
                                 (long long)d.extent[0], b ? 2 : 1, latmc_last_error());
                    if (phi4)
                        assert_int_equal(latmc_sim_set_param(sim[b], LATMC_PARAM_G, 1.1),
                                         LATMC_OK);
                    test_share_config(sim[b], field, bytes);
                }
                double v[2][2][NK] = { { { 0 } } }; /* round, box count, key */
                for (int round = 0; round < 2; round++)
                    for (int b = 0; b < 2; b++) {
                        if (round == 1) /* measured again: the modes wanted since round 0 */
                            assert_int_equal(latmc_sim_set_spins(sim[b], field, bytes),
                                             LATMC_OK);
                        for (int i = 0; i < NK; i++) {
                            if ((keys[i] == LATMC_OBS_PHI2 && !phi4) ||
                                (keys[i] == LATMC_OBS_OVERLAP2_KMIN && c->replicas != 2))
                                continue;
                            assert_int_equal(latmc_sim_observable(sim[b], keys[i],
                                                                  &v[round][b][i]),
                                             LATMC_OK);
                        }
                    }
                printf("measurement pass: model %d %dD L=%lld %s x %d, %s, %d threads: M2_KMIN "
                       "%.17g, then %.17g (2 boxes %.17g)\n", c->model, c->ndim,
                       (long long)c->L, c->precision == LATMC_PRECISION_FLOAT ? "float" : "double",
                       c->replicas, masks[m] ? masks[m] : "default mask", threads, v[0][0][2],
                       v[1][0][2], v[1][1][2]);
                assert_true(v[0][0][2] > 0);
                assert_memory_equal(v[0][1], v[0][0], sizeof v[0][0]);
                assert_memory_equal(v[1][0], v[0][0], sizeof v[0][0]);
                assert_memory_equal(v[1][1], v[0][0], sizeof v[0][0]);
                free(field);
                latmc_sim_destroy(&sim[0]);
                latmc_sim_destroy(&sim[1]);
            }
    set_cpu_mask(restore);
    free(restore);
    latmc_ctx_destroy(&ctx);
}

static void measurement_pass(void **state)
{
    (void)state;
    struct c { int model, ndim; int64_t L; int q, couplings; } cases[] = {
        { LATMC_MODEL_ISING, 2, 6, 2, LATMC_COUPLINGS_UNIFORM },
        { LATMC_MODEL_ISING, 2, 200, 2, LATMC_COUPLINGS_UNIFORM },
        { LATMC_MODEL_ISING, 3, 34, 2, LATMC_COUPLINGS_UNIFORM },
        { LATMC_MODEL_ISING, 3, 34, 2, LATMC_COUPLINGS_BIMODAL },
        { LATMC_MODEL_ISING, 2, 200, 2, LATMC_COUPLINGS_BIMODAL },
        { LATMC_MODEL_POTTS, 2, 6, 3, LATMC_COUPLINGS_UNIFORM },
        { LATMC_MODEL_POTTS, 2, 204, 4, LATMC_COUPLINGS_UNIFORM },
        { LATMC_MODEL_POTTS, 3, 36, 3, LATMC_COUPLINGS_UNIFORM },
        { LATMC_MODEL_POTTS, 2, 60, 20, LATMC_COUPLINGS_UNIFORM },
        { LATMC_MODEL_POTTS, 2, 15, 3, LATMC_COUPLINGS_UNIFORM },  /* three colours */
        { LATMC_MODEL_POTTS, 3, 9, 5, LATMC_COUPLINGS_UNIFORM },
    };
    const char *masks[] = { "c", NULL };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const char *saved = getenv("LATMC_CPU_MASK");
    char *restore = saved ? strdup(saved) : NULL;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct c *c = &cases[k];
        const struct lattice g = lattice_of(c->ndim, c->L);
        double ref[3][2];
        uint8_t *spins = malloc((size_t)g.n);
        assert_non_null(spins);
        for (int m = 0; m < 2; m++)
            for (int threads = 1; threads <= 2; threads++) {
                set_cpu_mask(masks[m]);
                latmc_sim_desc d = ising_desc(c->ndim, c->L, c->L, c->ndim == 3 ? c->L : 0,
                                              LATMC_ALGO_METROPOLIS, threads, 5);
                d.model = c->model;
                d.q = c->q;
                d.couplings = c->couplings;
                d.coupling_seed = 9;
                printf("measurement pass: model %d %dD L=%lld q=%d couplings %d, %s, %d "
                       "threads\n", c->model, c->ndim, (long long)c->L, c->q, c->couplings,
                       masks[m] ? masks[m] : "default mask", threads);
                fflush(stdout);
                latmc_sim *sim = NULL;
                assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3), LATMC_OK);
                assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
                double v[3][2];
                for (int t = 0; t < 3; t++) {
                    assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
                    double e; /* the sums first: the modes come with them from t = 1 on */
                    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e),
                                     LATMC_OK);
                    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &v[t][0]),
                                     LATMC_OK);
                    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &v[t][1]),
                                     LATMC_OK);
                }
                assert_int_equal(latmc_sim_get_spins(sim, spins, (size_t)g.n), LATMC_OK);
                const struct fourier want = direct(&g, c->model, c->q, 1, spins);
                assert_close(v[2][0], want.k0, 1e-12 * (want.k0 + 1e-3));
                assert_close(v[2][1], want.kmin, 1e-12 * (want.kmin + 1e-3));
                if (m == 0 && threads == 1)
                    memcpy(ref, v, sizeof ref);
                else
                    assert_memory_equal(v, ref, sizeof ref);
                latmc_sim_destroy(&sim);
            }
        free(spins);
    }
    set_cpu_mask(restore);
    free(restore);
    latmc_ctx_destroy(&ctx);
}

/* ---- (b) exact enumeration ---- */

struct exact { double k0, kmin; };

/* Boltzmann averages over every state of an Ising L x L lattice (J = 1, h = 0). */
static struct exact enumerate_ising(int64_t L, double beta)
{
    const struct lattice g = lattice_of(2, L);
    const int64_t n = g.n;
    int8_t *s = malloc((size_t)n);
    assert_non_null(s);
    double z = 0, a0 = 0, ak = 0;
    for (uint64_t bits = 0; bits < (UINT64_C(1) << n); bits++) {
        for (int64_t i = 0; i < n; i++)
            s[i] = (bits >> i) & 1 ? 1 : -1;
        int bonds = 0;
        for (int64_t y = 0; y < L; y++)
            for (int64_t x = 0; x < L; x++)
                bonds += s[y * L + x] * (s[y * L + (x + 1) % L] + s[((y + 1) % L) * L + x]);
        const double w = exp(beta * bonds);
        const struct fourier f = direct(&g, LATMC_MODEL_ISING, 2, 1, s);
        z += w;
        a0 += w * f.k0;
        ak += w * f.kmin;
    }
    free(s);
    return (struct exact){ a0 / z, ak / z };
}

/* The same for Potts (H = -J sum delta, J = 1). */
static struct exact enumerate_potts(int64_t L, int q, double beta)
{
    const struct lattice g = lattice_of(2, L);
    const int64_t n = g.n;
    uint8_t *s = calloc((size_t)n, 1);
    assert_non_null(s);
    double z = 0, a0 = 0, ak = 0;
    for (;;) {
        int matches = 0;
        for (int64_t y = 0; y < L; y++)
            for (int64_t x = 0; x < L; x++)
                matches += (s[y * L + x] == s[y * L + (x + 1) % L]) +
                           (s[y * L + x] == s[((y + 1) % L) * L + x]);
        const double w = exp(beta * matches);
        const struct fourier f = direct(&g, LATMC_MODEL_POTTS, q, 1, s);
        z += w;
        a0 += w * f.k0;
        ak += w * f.kmin;
        int64_t i = 0; /* the next state, an odometer in base q */
        while (i < n && ++s[i] == q)
            s[i++] = 0;
        if (i == n)
            break;
    }
    free(s);
    return (struct exact){ a0 / z, ak / z };
}

static double chain_check(latmc_sim *sim, struct exact ex, uint64_t nmeas, const char *what)
{
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, 200), LATMC_OK);
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, 2), LATMC_OK);
    for (uint64_t t = 0; t < nmeas; t++) {
        double row[2];
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &row[0]), LATMC_OK);
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &row[1]), LATMC_OK);
        assert_int_equal(latmc_acc_push(acc, row, 2), LATMC_OK);
    }
    char label[96];
    snprintf(label, sizeof label, "%s <|m(0)|^2>", what);
    const double d0 = mc_deviation(acc, 0, ex.k0, label);
    snprintf(label, sizeof label, "%s <|m(kmin)|^2>", what);
    const double dk = mc_deviation(acc, 1, ex.kmin, label);
    assert_true(fabs(d0) < MAX_SIGMA);
    assert_true(fabs(dk) < MAX_SIGMA);
    latmc_acc_destroy(&acc);
    return fmax(fabs(d0), fabs(dk));
}

static void enumeration(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const double betas[] = { 0.3, 0.44 };
    for (int b = 0; b < 2; b++) {
        const struct exact ex = enumerate_ising(4, betas[b]);
        latmc_sim *sim = make(ctx, LATMC_MODEL_ISING, 2, 4, 2, 1, 1, 0, 11 + b);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[b]), LATMC_OK);
        char what[64];
        snprintf(what, sizeof what, "Ising 4x4 beta %.2f", betas[b]);
        chain_check(sim, ex, UINT64_C(1) << 16, what);
        latmc_sim_destroy(&sim);
    }
    const double pbetas[] = { 0.7, 1.1 };
    for (int b = 0; b < 2; b++) {
        const struct exact ex = enumerate_potts(3, 3, pbetas[b]);
        latmc_sim *sim = make(ctx, LATMC_MODEL_POTTS, 2, 3, 3, 1, 1, 0, 21 + b);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, pbetas[b]), LATMC_OK);
        char what[64];
        snprintf(what, sizeof what, "Potts q=3 3x3 beta %.2f", pbetas[b]);
        chain_check(sim, ex, UINT64_C(1) << 16, what);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

/* ---- (c) Gaussian phi^4 ---- */

/* K(p) at p = k_min e_mu: p^2 = 4 sin^2(pi / L) (one direction), doc/models/phi4.md. */
static double kernel(int64_t L, double mu2, double lambda)
{
    const double s = sin(two_pi / (2.0 * (double)L)), p2 = 4 * s * s;
    return p2 + mu2 + (isfinite(lambda) ? p2 * p2 / lambda : 0);
}

static void gaussian_phi4(void **state)
{
    (void)state;
    /* Measured every second sweep: a measurement (the model's reduction, then the modes)
     * costs about a sweep here, and with autocorrelation times of 3.5 to 26 sweeps the
     * error of the means is nearly that of measuring every sweep. */
    struct run { int ndim; int64_t L; double mu2, lambda; uint64_t nmeas; } runs[] = {
        { 2, 40, 0.5, INFINITY, UINT64_C(1) << 12 },
        { 2, 40, 0.25, 2.0, UINT64_C(1) << 12 },
        { 3, 8, 0.5, 3.0, UINT64_C(1) << 13 },
        { 3, 8, 0.3, INFINITY, UINT64_C(1) << 13 },
    };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        const struct run *r = &runs[k];
        latmc_sim *sim = make(ctx, LATMC_MODEL_PHI4, r->ndim, r->L, 2, 1, 1, 0, 31 + k);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_MU2, r->mu2), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 0.0), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_LAMBDA, r->lambda), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_NLOC, 2), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_tune_epsilon(sim, 0.5, 300), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 200), LATMC_OK);
        latmc_acc *acc = NULL;
        assert_int_equal(latmc_acc_create(&acc, 2), LATMC_OK);
        for (uint64_t t = 0; t < r->nmeas; t++) {
            double row[2];
            assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &row[0]), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &row[1]), LATMC_OK);
            assert_int_equal(latmc_acc_push(acc, row, 2), LATMC_OK);
        }
        const double n = pow((double)r->L, r->ndim);
        char label[96];
        snprintf(label, sizeof label, "phi4 %dD L=%lld mu2=%g Lambda=%g |phi(0)|^2/N^2",
                 r->ndim, (long long)r->L, r->mu2, r->lambda);
        const double d0 = mc_deviation(acc, 0, 1.0 / (n * r->mu2), label);
        snprintf(label, sizeof label, "phi4 %dD L=%lld mu2=%g Lambda=%g |phi(kmin)|^2/N^2",
                 r->ndim, (long long)r->L, r->mu2, r->lambda);
        const double dk = mc_deviation(acc, 1, 1.0 / (n * kernel(r->L, r->mu2, r->lambda)),
                                       label);
        assert_true(fabs(d0) < MAX_SIGMA);
        assert_true(fabs(dk) < MAX_SIGMA);
        latmc_acc_destroy(&acc);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

/* ---- (d) bit identity over threads and boxes ---- */

static void observe(latmc_sim *sim, int replicas, double out[3])
{
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &out[0]), LATMC_OK);
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &out[1]), LATMC_OK);
    out[2] = 0;
    if (replicas == 2)
        assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2_KMIN, &out[2]),
                         LATMC_OK);
}

static void bit_identity(void **state)
{
    (void)state;
    struct c { int model, ndim; int64_t L; int q, replicas, parts; uint64_t sweeps; } cases[] = {
        /* 2.25 MiB of spins: three blocks of the reduction, threads in each */
        { LATMC_MODEL_ISING, 2, 1536, 2, 1, 4, 2 },
        { LATMC_MODEL_POTTS, 3, 24, 3, 1, 2, 3 },
        { LATMC_MODEL_PHI4, 3, 16, 2, 1, 2, 2 },
        { LATMC_MODEL_HEISENBERG, 3, 32, 2, 2, 4, 1 },
    };
    const double params[][2] = { { LATMC_PARAM_BETA, 0.44 }, { LATMC_PARAM_BETA, 0.55 },
                                 { LATMC_PARAM_MU2, 0.3 }, { LATMC_PARAM_BETA, 1.0 } };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct c *c = &cases[k];
        double ref[2][3] = { { 0 } };
        const int layouts[][2] = { { 1, 0 }, { 2, 0 }, { 3, c->parts }, { 1, c->parts } };
        for (int l = 0; l < 4; l++) {
            latmc_sim *sim = make(ctx, c->model, c->ndim, c->L, c->q, c->replicas,
                                  layouts[l][0], layouts[l][1], 77);
            assert_int_equal(latmc_sim_set_param(sim, (int)params[k][0], params[k][1]),
                             LATMC_OK);
            if (c->model == LATMC_MODEL_PHI4)
                assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_G, 1.0), LATMC_OK);
            assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, c->sweeps), LATMC_OK);
            /* the first measurement reduces the modes after the sums; the next, the modes
             * once asked for, in the same pass where the backend can (one box) */
            double v[2][3];
            observe(sim, c->replicas, v[0]);
            assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
            observe(sim, c->replicas, v[1]);
            printf("model %d, %d threads, %d parts: %.17g %.17g %.17g, then %.17g %.17g "
                   "%.17g\n", c->model, layouts[l][0], layouts[l][1], v[0][0], v[0][1],
                   v[0][2], v[1][0], v[1][1], v[1][2]);
            if (l == 0)
                memcpy(ref, v, sizeof ref);
            else
                assert_memory_equal(v, ref, sizeof ref);
            latmc_sim_destroy(&sim);
        }
    }
    latmc_ctx_destroy(&ctx);
}

/*
 * CUDA: Heisenberg's modes, counted on the device as fixed-point projections, against the
 * CPU backend's on the same configuration, bit for bit: one box and several (desc.n_parts
 * on one device), one and two replicas, 2D and 3D, L_x not a multiple of 32 (a kernel of
 * their own, mode_fixed.cu; rows of up to 2600 sites, cut among several blocks where
 * wider than 8 strips of 32) and a multiple of 32 (one replica: counted in the
 * measurement's kernel, heisenberg_sums.cu, on one box and on several, the columns in
 * shared memory or, past 1,344 sites, straight into P_x; two replicas on
 * mode_fixed.cu at every L_x), after the hot start
 * and after the device's own sweeps (the configuration in the other of its two
 * buffers), read back and set on a CPU sim.
 */
static void heisenberg_against_cpu(void **state)
{
    (void)state;
    struct c { int ndim; int64_t L; int replicas, parts; } cases[] = {
        { 3, 18, 2, 1 }, { 3, 18, 2, 3 }, { 3, 12, 1, 2 }, { 2, 70, 1, 1 }, { 2, 70, 2, 2 },
        { 2, 64, 2, 1 }, { 3, 32, 1, 1 }, { 3, 32, 2, 1 }, { 3, 64, 2, 1 }, { 2, 96, 1, 1 },
        { 3, 32, 1, 2 }, { 3, 64, 2, 3 }, { 2, 64, 1, 3 },
        /* rows past 1024 sites on the projections' own kernel (more than one pass of a
         * warp's 32 x 32 values): L_x not a multiple of 32, and two replicas (which take it
         * at every L_x) */
        { 2, 1100, 1, 1 }, { 2, 1056, 2, 2 },
        /* ... whose rows' strips the kernel cuts among several blocks (grid.y), the last
         * group short, the rows among ranges of several chunks of 32 (3D 264^3: 352 rows
         * a range on an H200), chunks that cross planes (L_y not a multiple of 32) */
        { 3, 264, 2, 1 }, { 2, 2600, 1, 1 }, { 2, 2598, 2, 3 },
        /* one replica, L_x a multiple of 32 whose columns do not fit the measurement
         * kernel's shared memory: its steps' columns straight into P_x */
        { 2, 1408, 1, 1 }, { 2, 1408, 1, 2 },
    };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const struct c *c = &cases[k];
        latmc_sim *gpu = make_on(ctx, LATMC_DEVICE_CUDA, LATMC_MODEL_HEISENBERG, c->ndim, c->L,
                                 2, c->replicas, 1, c->parts, 99 + k);
        latmc_sim *cpu = make_on(ctx, LATMC_DEVICE_CPU, LATMC_MODEL_HEISENBERG, c->ndim, c->L,
                                 2, c->replicas, 1, 0, 5);
        assert_int_equal(latmc_sim_set_param(gpu, LATMC_PARAM_BETA, 1.2), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(gpu, LATMC_INIT_HOT), LATMC_OK);
        size_t bytes = 0;
        assert_int_equal(latmc_sim_spins_size(gpu, &bytes), LATMC_OK);
        void *buf = malloc(bytes);
        assert_non_null(buf);
        for (int round = 0; round < 3; round++) {
            if (round > 0)
                assert_int_equal(latmc_sim_sweep(gpu, (uint64_t)round), LATMC_OK);
            double on_gpu[3], on_cpu[3];
            observe(gpu, c->replicas, on_gpu);
            assert_int_equal(latmc_sim_get_spins(gpu, buf, bytes), LATMC_OK);
            assert_int_equal(latmc_sim_set_spins(cpu, buf, bytes), LATMC_OK);
            observe(cpu, c->replicas, on_cpu);
            printf("Heisenberg %dD L=%lld, %d replicas, %d boxes, after %d sweeps: CUDA "
                   "%.17g %.17g, CPU %.17g %.17g\n", c->ndim, (long long)c->L, c->replicas,
                   c->parts ? c->parts : 1, round * (round + 1) / 2, on_gpu[1], on_gpu[2],
                   on_cpu[1], on_cpu[2]);
            assert_true(on_gpu[1] > 0);
            assert_memory_equal(on_gpu, on_cpu, sizeof on_gpu);
        }
        free(buf);
        latmc_sim_destroy(&cpu);
        latmc_sim_destroy(&gpu);
    }
    latmc_ctx_destroy(&ctx);
}

/* ---- (e) the jackknife helpers and the ensemble's overlap ---- */

static void jackknife_helpers(void **state)
{
    (void)state;
    latmc_acc *acc = NULL;
    assert_int_equal(latmc_acc_create(&acc, 2), LATMC_OK);
    /* rows alternating around means 0.5 and 0.1: xi = sqrt(5 - 1) / (2 sin(pi / 16)) */
    for (int i = 0; i < 64; i++) {
        const double row[2] = { 0.5 + (i % 2 ? 0.01 : -0.01), 0.1 + (i % 2 ? -0.001 : 0.001) };
        assert_int_equal(latmc_acc_push(acc, row, 2), LATMC_OK);
    }
    const double want = 2.0 / (2 * sin(two_pi / 32));
    double xi = 0, err = 0;
    assert_int_equal(latmc_acc_corr_length(acc, 0, 1, 16, 8, &xi, &err), LATMC_OK);
    assert_close(xi, want, 1e-12 * want);
    assert_close(err, 0.0, 1e-12); /* blocks of even length: every block has the same means */
    assert_int_equal(latmc_acc_corr_length(acc, 1, 0, 16, 8, &xi, &err), LATMC_EINVAL);
    assert_int_equal(latmc_acc_corr_length(acc, 0, 1, 1, 8, &xi, &err), LATMC_EINVAL);
    assert_int_equal(latmc_acc_corr_length(acc, 0, 2, 16, 8, &xi, &err), LATMC_EINVAL);
    assert_int_equal(latmc_acc_corr_length(NULL, 0, 1, 16, 8, &xi, &err), LATMC_EINVAL);
    latmc_acc_destroy(&acc);

    /* over samples: one sample off, the jackknife error from the spread it makes */
    const double q2[4] = { 0.5, 0.5, 0.5, 0.7 }, qk[4] = { 0.1, 0.1, 0.1, 0.1 };
    assert_int_equal(latmc_ens_corr_length(q2, qk, 4, 8, &xi, &err), LATMC_OK);
    const double scale = 1 / (2 * sin(two_pi / 16));
    assert_close(xi, sqrt(0.55 / 0.1 - 1) * scale, 1e-12);
    double loo[4], mean = 0, var = 0;
    for (int s = 0; s < 4; s++) {
        loo[s] = sqrt((2.2 - q2[s]) / 3 / 0.1 - 1) * scale;
        mean += loo[s] / 4;
    }
    for (int s = 0; s < 4; s++)
        var += (loo[s] - mean) * (loo[s] - mean);
    assert_close(err, sqrt(var * 3 / 4), 1e-12);
    assert_true(err > 0);
    assert_int_equal(latmc_ens_corr_length(qk, q2, 4, 8, &xi, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_corr_length(q2, qk, 1, 8, &xi, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_corr_length(q2, NULL, 4, 8, &xi, &err), LATMC_EINVAL);
}

static void ensemble_overlap(void **state)
{
    (void)state;
    const int models[2] = { LATMC_MODEL_ISING, LATMC_MODEL_HEISENBERG };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    for (int k = 0; k < 2; k++) {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        d.model = models[k];
        d.ndim = 3;
        d.extent[0] = d.extent[1] = d.extent[2] = 4;
        d.couplings = models[k] == LATMC_MODEL_ISING ? LATMC_COUPLINGS_BIMODAL
                                                     : LATMC_COUPLINGS_GAUSSIAN;
        d.device = LATMC_DEVICE_CPU;
        latmc_ens_layout l;
        latmc_ens_layout_init(&l);
        l.n_samples = 2;
        l.n_temperatures = 2;
        l.n_replicas = 2;
        l.seed = 5;
        l.n_threads = 1;
        latmc_ens *e = NULL;
        assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
        const double betas[2] = { 0.5, 1.0 };
        assert_int_equal(latmc_ens_set_temperatures(e, betas, 2), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 5), LATMC_OK);
        double v[4];
        assert_int_equal(latmc_ens_overlaps(e, LATMC_ENS_QKMIN2, v, 4), LATMC_OK);
        const struct lattice g = lattice_of(3, 4);
        size_t bytes = 0;
        assert_int_equal(latmc_ens_spins_size(e, &bytes), LATMC_OK);
        unsigned char *ab = malloc(2 * bytes);
        assert_non_null(ab);
        for (int s = 0; s < 2; s++)
            for (int t = 0; t < 2; t++) {
                int ma = -1, mb = -1;
                assert_int_equal(latmc_ens_member_at(e, s, t, 0, &ma), LATMC_OK);
                assert_int_equal(latmc_ens_member_at(e, s, t, 1, &mb), LATMC_OK);
                assert_int_equal(latmc_ens_get_spins(e, ma, ab, bytes), LATMC_OK);
                assert_int_equal(latmc_ens_get_spins(e, mb, ab + bytes, bytes), LATMC_OK);
                double want;
                if (models[k] == LATMC_MODEL_ISING) {
                    double *w = malloc((size_t)g.n * sizeof *w);
                    assert_non_null(w);
                    for (int64_t i = 0; i < g.n; i++)
                        w[i] = (double)((int8_t *)ab)[i] * ((int8_t *)(ab + bytes))[i];
                    want = power_of(&g, w, 1, 0);
                    free(w);
                } else {
                    /* the ensembles' overlap: the products' doubles themselves */
                    want = direct_of(&g, LATMC_MODEL_HEISENBERG, 2, 2, ab, false).qkmin;
                }
                assert_close(v[s * 2 + t], want, 1e-12 * (want + 1e-3));
            }
        free(ab);
        latmc_ens_destroy(&e);
    }
    latmc_ctx_destroy(&ctx);
}

/* Ensemble members: with exchanges off, member m is the sim made from its desc
 * (latmc_ens_member_desc), so its Fourier observables through latmc_ens_observables are that
 * sim's, bit for bit, whatever the ensemble's thread count. */
static void ensemble_members(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_POTTS;
    d.q = 3;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 12;
    d.device = LATMC_DEVICE_CPU;
    for (int threads = 1; threads <= 2; threads++) {
        latmc_ens_layout l;
        latmc_ens_layout_init(&l);
        l.n_samples = 2;
        l.n_temperatures = 2;
        l.n_replicas = 1;
        l.seed = 9;
        l.n_threads = threads;
        latmc_ens *e = NULL;
        assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
        const double betas[2] = { 0.8, 1.1 };
        assert_int_equal(latmc_ens_set_temperatures(e, betas, 2), LATMC_OK);
        assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(e, 7), LATMC_OK);
        double k0[4], km[4];
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_M2_K0, LATMC_ENS_BY_MEMBER, k0, 4),
                         LATMC_OK);
        assert_int_equal(latmc_ens_observables(e, LATMC_OBS_M2_KMIN, LATMC_ENS_BY_MEMBER, km, 4),
                         LATMC_OK);
        for (int m = 0; m < 4; m++) {
            latmc_sim_desc md;
            latmc_sim_desc_init(&md);
            assert_int_equal(latmc_ens_member_desc(e, m, &md), LATMC_OK);
            latmc_sim *sim = NULL;
            assert_int_equal(latmc_sim_create(ctx, &md, &sim), LATMC_OK);
            /* member m = sample * n_T + slot: slot m mod 2 */
            assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, betas[m % 2]), LATMC_OK);
            assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(sim, 7), LATMC_OK);
            double a, b;
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &a), LATMC_OK);
            assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &b), LATMC_OK);
            assert_memory_equal(&a, &k0[m], sizeof a);
            assert_memory_equal(&b, &km[m], sizeof b);
            latmc_sim_destroy(&sim);
        }
        latmc_ens_destroy(&e);
    }
    latmc_ctx_destroy(&ctx);
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    const int device_status = test_device_check(); /* LATMC_TEST_DEVICE: 77 without a GPU */
    if (device_status != 0)
        return device_status;
    if (test_device() == LATMC_DEVICE_CUDA) {
        const struct CMUnitTest on_cuda[] = {
            cmocka_unit_test(given_configurations),
            cmocka_unit_test(measurement_pass_cuda),
            cmocka_unit_test(counts_against_cpu_cuda),
            cmocka_unit_test(enumeration),
            cmocka_unit_test(heisenberg_against_cpu),
            cmocka_unit_test(phi4_field_bound),
            cmocka_unit_test(phi4_walk_against_cpu),
        };
        return cmocka_run_group_tests_name("fss_observables cuda", on_cuda, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(given_configurations),
        cmocka_unit_test(jackknife_helpers),
        cmocka_unit_test(ensemble_overlap),
        cmocka_unit_test(ensemble_members),
        cmocka_unit_test(bit_identity),
        cmocka_unit_test(measurement_pass),
        cmocka_unit_test(floating_measurement_pass),
        cmocka_unit_test(enumeration),
        cmocka_unit_test(gaussian_phi4),
        cmocka_unit_test(phi4_field_bound),
    };
    return cmocka_run_group_tests_name("fss_observables", tests, NULL, NULL);
}
