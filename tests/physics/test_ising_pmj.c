/*
 * The Ising +-J model (desc.couplings = LATMC_COUPLINGS_BIMODAL) against exact results:
 *
 * - Mattis gauge: couplings eps_ij = xi_i xi_j (xi = +-1 per site) map the model onto the
 *   ferromagnet. With Metropolis at h = 0 the map is exact draw by draw: the flip
 *   probability depends on s_i n_i only, which the gauge keeps (bit for bit, also in the
 *   double arithmetic of the tables), so the gauged chain started from xi_i s_i is, after
 *   every sweep, exactly xi_i times the ferromagnet's chain of the same seed; the energies
 *   are equal and so are the acceptance counts. (Heat bath sets s = +1 iff u < T(n); the
 *   gauge would need u >= T(-n) instead, the same law but another decision: no draw-by-
 *   draw identity, it is covered by the enumeration below.) The ferromagnet runs at every
 *   SIMD level this CPU has and with 1 to 3 threads (the gauged sim always runs the C
 *   level: +-J sims do), or both on CUDA.
 * - All couplings -1 at J equal the uniform model at -J (n -> -n; T_J[k(-n)] and
 *   T_{-J}[k(n)] are the same doubles): bit for bit, both algorithms, with a field.
 * - Exact enumeration of a 4x4 lattice with a fixed random +-J realisation (2^16 states):
 *   <e>, <|m|>, <m^2>, <m^4> (and <m> with a field) within 4 binning sigma, both
 *   algorithms, two temperatures; the enumerator checked first against the independent
 *   histogram enumerator of the uniform model (tests/support/exact_ising.c).
 *
 * Runs on the backend LATMC_TEST_DEVICE names (meson: "test_ising_pmj cuda", skipped
 * without a GPU). The enumeration runs on the CPU only; on CUDA it is left out, with a
 * line saying so, and "test_ising_pmj cuda enumeration" reports it as skipped (see main).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exact_ising.h"
#include "exact_ising_coupled.h"
#include "mc_sampling.h"
#include "sim_helpers.h"

#define NMEAS (UINT64_C(1) << 19)
#define MAX_SIGMA 4.0

struct lattice {
    int ndim;
    int64_t l[3];
};

static size_t sites_of(const struct lattice *g)
{
    return (size_t)(g->l[0] * g->l[1] * (g->ndim == 3 ? g->l[2] : 1));
}

static latmc_sim_desc make_desc(const struct lattice *g, int algorithm, int device, int threads,
                                uint64_t seed, int couplings)
{
    latmc_sim_desc d = ising_desc(g->ndim, g->l[0], g->l[1], g->l[2], algorithm, threads, seed);
    d.device = device;
    d.couplings = couplings;
    d.coupling_seed = seed ^ 0xc0u;
    return d;
}

static void set_params(latmc_sim *sim, double beta, double J, double h)
{
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_J, J), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_H, h), LATMC_OK);
}

static double energy(latmc_sim *sim)
{
    double e = 0;
    assert_int_equal(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), LATMC_OK);
    return e;
}

/* The Mattis couplings eps[ndim i + mu] = xi_i xi_{i + e_mu}. */
static void mattis_couplings(const struct lattice *g, const int8_t *xi, float *eps)
{
    const int64_t lx = g->l[0], ly = g->l[1], lz = g->ndim == 3 ? g->l[2] : 1;
    for (int64_t z = 0; z < lz; z++)
        for (int64_t y = 0; y < ly; y++)
            for (int64_t x = 0; x < lx; x++) {
                const int64_t i = x + lx * (y + ly * z);
                const int64_t up[3] = { (x + 1) % lx + lx * (y + ly * z),
                                        x + lx * ((y + 1) % ly + ly * z),
                                        x + lx * (y + ly * ((z + 1) % lz)) };
                for (int mu = 0; mu < g->ndim; mu++)
                    eps[g->ndim * i + mu] = (float)(xi[i] * xi[up[mu]]);
            }
}

/* One comparison: the ferromagnet (on `device`, `threads`) and its gauge copy. */
static void mattis_case(const struct lattice *g, int device, int threads, double beta,
                        uint64_t seed, const char *label)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc df = make_desc(g, LATMC_ALGO_METROPOLIS, device, threads, seed,
                                  LATMC_COUPLINGS_UNIFORM);
    latmc_sim_desc dg = make_desc(g, LATMC_ALGO_METROPOLIS, device, threads, seed,
                                  LATMC_COUPLINGS_BIMODAL);
    latmc_sim *ferro = NULL, *gauged = NULL;
    assert_int_equal(latmc_sim_create(ctx, &df, &ferro), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, &dg, &gauged), LATMC_OK);
    set_params(ferro, beta, 1.0, 0.0);
    set_params(gauged, beta, 1.0, 0.0);

    const size_t n = sites_of(g), nc = n * (size_t)g->ndim;
    int8_t *xi = malloc(n), *s = malloc(n), *a = malloc(n), *b = malloc(n);
    float *eps = malloc(nc * sizeof *eps);
    assert_non_null(xi);
    assert_non_null(s);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(eps);
    uint64_t rng = seed * 77 + 1;
    for (size_t i = 0; i < n; i++) {
        xi[i] = (test_rng_next(&rng) >> 63) ? -1 : 1;
        s[i] = (test_rng_next(&rng) >> 63) ? -1 : 1;
    }
    mattis_couplings(g, xi, eps);
    assert_int_equal(latmc_sim_set_couplings(gauged, eps, nc), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(ferro, s, n), LATMC_OK);
    for (size_t i = 0; i < n; i++)
        s[i] = (int8_t)(xi[i] * s[i]);
    assert_int_equal(latmc_sim_set_spins(gauged, s, n), LATMC_OK);

    static const uint64_t chunks[] = { 1, 1, 3, 5 };
    size_t moved = 0;
    for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
        assert_int_equal(latmc_sim_sweep(ferro, chunks[c]), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(gauged, chunks[c]), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(ferro, a, n), LATMC_OK);
        assert_int_equal(latmc_sim_get_spins(gauged, b, n), LATMC_OK);
        size_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad += b[i] != xi[i] * a[i];
        if (bad)
            print_error("%s: %zu of %zu sites are not xi_i times the ferromagnet's\n", label,
                        bad, n);
        assert_int_equal(bad, 0);
        const double ef = energy(ferro), eg = energy(gauged);
        if (ef != eg)
            print_error("%s: energy %.17g (ferromagnet) vs %.17g (gauged)\n", label, ef, eg);
        assert_memory_equal(&ef, &eg, sizeof ef);
        uint64_t acc_f, att_f, acc_g, att_g;
        assert_int_equal(latmc_sim_acceptance_counts(ferro, &acc_f, &att_f), LATMC_OK);
        assert_int_equal(latmc_sim_acceptance_counts(gauged, &acc_g, &att_g), LATMC_OK);
        assert_true(acc_f == acc_g && att_f == att_g);
    }
    for (size_t i = 0; i < n; i++)
        moved += b[i] != s[i];
    assert_true(moved > 0); /* the chains moved: the comparison meant something */
    free(xi);
    free(s);
    free(a);
    free(b);
    free(eps);
    latmc_sim_destroy(&ferro);
    latmc_sim_destroy(&gauged);
    latmc_ctx_destroy(&ctx);
}

static const struct lattice mattis_lattices[] = {
    { 2, { 16, 12, 0 } }, { 2, { 130, 66, 0 } }, { 3, { 8, 6, 4 } }, { 3, { 16, 10, 6 } },
};

static void mattis_gauge(void **state)
{
    (void)state;
    const int device = test_device();
    /* on the CPU: the ferromagnet at every SIMD level (LATMC_CPU_MASK, read at sim
     * creation; a level the CPU lacks runs the next lower one) and 1 to 3 threads */
    static const char *const masks[] = { "c", "avx2", "avx512" };
    const int nmasks = device == LATMC_DEVICE_CPU ? 3 : 1;
    for (int mk = 0; mk < nmasks; mk++) {
        if (device == LATMC_DEVICE_CPU)
            setenv("LATMC_CPU_MASK", masks[mk], 1);
        for (int threads = 1; threads <= (device == LATMC_DEVICE_CPU ? 3 : 1); threads++)
            for (size_t k = 0; k < sizeof mattis_lattices / sizeof mattis_lattices[0]; k++) {
                const double beta = k % 2 ? 0.44 : 1.0;
                char label[96];
                snprintf(label, sizeof label, "%dD %lldx%lld%s mask %s, %d thread(s)",
                         mattis_lattices[k].ndim, (long long)mattis_lattices[k].l[0],
                         (long long)mattis_lattices[k].l[1],
                         mattis_lattices[k].ndim == 3 ? "x.." : "",
                         device == LATMC_DEVICE_CPU ? masks[mk] : "cuda", threads);
                mattis_case(&mattis_lattices[k], device, threads, beta, 300 + k, label);
            }
    }
    unsetenv("LATMC_CPU_MASK");
}

/* All couplings -1 at J: the uniform model at -J, bit for bit, both algorithms, h != 0. */
static void all_negative_is_antiferromagnet(void **state)
{
    (void)state;
    const int device = test_device();
    const int algorithms[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    for (int a = 0; a < 2; a++)
        for (size_t k = 0; k < sizeof mattis_lattices / sizeof mattis_lattices[0]; k++) {
            const struct lattice *g = &mattis_lattices[k];
            latmc_ctx *ctx = NULL;
            assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
            latmc_sim_desc du = make_desc(g, algorithms[a], device, 0, 400 + k,
                                          LATMC_COUPLINGS_UNIFORM);
            latmc_sim_desc dn = make_desc(g, algorithms[a], device, 0, 400 + k,
                                          LATMC_COUPLINGS_BIMODAL);
            latmc_sim *afm = NULL, *neg = NULL;
            assert_int_equal(latmc_sim_create(ctx, &du, &afm), LATMC_OK);
            assert_int_equal(latmc_sim_create(ctx, &dn, &neg), LATMC_OK);
            set_params(afm, 0.5, -0.8, 0.3);
            set_params(neg, 0.5, 0.8, 0.3);
            const size_t n = sites_of(g), nc = n * (size_t)g->ndim;
            float *eps = malloc(nc * sizeof *eps);
            int8_t *x = malloc(n), *y = malloc(n);
            for (size_t i = 0; i < nc; i++)
                eps[i] = -1.0f;
            assert_int_equal(latmc_sim_set_couplings(neg, eps, nc), LATMC_OK);
            assert_int_equal(latmc_sim_init_spins(afm, LATMC_INIT_HOT), LATMC_OK);
            assert_int_equal(latmc_sim_init_spins(neg, LATMC_INIT_HOT), LATMC_OK);
            for (int t = 0; t < 4; t++) {
                assert_int_equal(latmc_sim_sweep(afm, 2), LATMC_OK);
                assert_int_equal(latmc_sim_sweep(neg, 2), LATMC_OK);
                assert_int_equal(latmc_sim_get_spins(afm, x, n), LATMC_OK);
                assert_int_equal(latmc_sim_get_spins(neg, y, n), LATMC_OK);
                assert_memory_equal(x, y, n);
                const double ea = energy(afm), en = energy(neg);
                assert_memory_equal(&ea, &en, sizeof ea);
            }
            double acc = 0;
            assert_int_equal(latmc_sim_observable(neg, LATMC_OBS_ACCEPTANCE, &acc), LATMC_OK);
            assert_true(acc > 0.0);
            free(eps);
            free(x);
            free(y);
            latmc_sim_destroy(&afm);
            latmc_sim_destroy(&neg);
            latmc_ctx_destroy(&ctx);
        }
}

/* The coupled enumerator with every coupling 1 is the uniform model's. */
static void enumerator_agrees_with_uniform(void **state)
{
    (void)state;
    const int extent[] = { 4, 4 };
    double eps[32];
    for (int i = 0; i < 32; i++)
        eps[i] = 1.0;
    struct exact_ising_moments a, b;
    assert_int_equal(exact_ising_coupled_moments(2, extent, eps, 0.44, 1.0, 0.1, &a), 0);
    assert_int_equal(exact_ising_enumerate(2, extent, 0.44, 1.0, 0.1, &b), 0);
    assert_close(a.lnz, b.lnz, 1e-12 * fabs(b.lnz));
    assert_close(a.e, b.e, 1e-12);
    assert_close(a.absm, b.absm, 1e-12);
    assert_close(a.m, b.m, 1e-12);
    assert_close(a.m2, b.m2, 1e-12);
    assert_close(a.m4, b.m4, 1e-12);
}

/* Monte Carlo on a 4x4 +-J lattice (the realisation of coupling_seed 2024) against exact
 * enumeration. */
static void enumeration_4x4(void **state)
{
    (void)state;
    const struct lattice g = { 2, { 4, 4, 0 } };
    const int extent[] = { 4, 4 };
    const double betas[] = { 0.5, 1.2 };
    const double fields[] = { 0.0, 0.2 };
    const int algorithms[] = { LATMC_ALGO_METROPOLIS, LATMC_ALGO_HEATBATH };
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    double worst = 0;
    unsigned point = 0;
    uint64_t seed = 700;
    for (int a = 0; a < 2; a++)
        for (int bt = 0; bt < 2; bt++)
            for (int f = 0; f < 2; f++) {
                if (!test_point_selected(point++)) { /* LATMC_TEST_POINT_STRIDE */
                    seed++;
                    continue;
                }
                latmc_sim_desc d = make_desc(&g, algorithms[a], test_device(), 1, seed++,
                                             LATMC_COUPLINGS_BIMODAL);
                d.coupling_seed = 2024;
                latmc_sim *sim = NULL;
                assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
                set_params(sim, betas[bt], 1.0, fields[f]);
                float epsf[32];
                double eps[32];
                int negative = 0;
                assert_int_equal(latmc_sim_get_couplings(sim, epsf, 32), LATMC_OK);
                for (int i = 0; i < 32; i++) {
                    eps[i] = epsf[i];
                    negative += epsf[i] < 0;
                }
                assert_true(negative >= 8 && negative <= 24); /* a real mixture of signs */
                struct exact_ising_moments ex;
                assert_int_equal(exact_ising_coupled_moments(2, extent, eps, betas[bt], 1.0,
                                                             fields[f], &ex), 0);
                latmc_acc *acc = NULL;
                assert_int_equal(mc_sample_ising(sim, 1000, NMEAS, &acc), LATMC_OK);
                char prefix[64];
                snprintf(prefix, sizeof prefix, "+-J 4x4 %s beta=%.1f h=%.1f",
                         a == 0 ? "metro" : "heatb", betas[bt], fields[f]);
                const double dev = mc_ising_moments_deviation(acc, &ex, fields[f] != 0.0,
                                                              prefix);
                if (dev > worst)
                    worst = dev;
                assert_true(dev < MAX_SIGMA);
                latmc_acc_destroy(&acc);
                latmc_sim_destroy(&sim);
            }
    printf("largest deviation: %.2f sigma\n", worst);
    latmc_ctx_destroy(&ctx);
}

/* The enumeration is CPU only: 2^19 sweeps per point, each a round trip to the device,
 * take minutes on CUDA, and the CUDA +-J chain is the CPU's bit for bit (conformance cuda,
 * ising_pmj), so the CPU result holds for it unchanged; the gauge tests ran on the GPU.
 * Rather than pass in silence, the CUDA run leaves it out and says so, and
 * "test_ising_pmj cuda enumeration" (argument "enumeration") reports it skipped (77). */
#define ENUMERATION_ON_CUDA_REASON \
    "enumeration_4x4 is not run on CUDA (minutes of device round trips; the CUDA +-J chain " \
    "is the CPU's bit for bit, checked by conformance cuda)"

int main(int argc, char **argv)
{
    const bool only_enumeration = argc > 1 && strcmp(argv[1], "enumeration") == 0;
    if (argc > 1 && !only_enumeration) {
        fprintf(stderr, "usage: %s [enumeration]\n", argv[0]);
        return 2;
    }
    const int device_status = test_device_check();
    if (device_status != 0)
        return device_status;
    const bool cuda = test_device() == LATMC_DEVICE_CUDA;
    if (only_enumeration && cuda) {
        printf("skipped: %s\n", ENUMERATION_ON_CUDA_REASON);
        return 77;
    }
    const struct CMUnitTest all[] = {
        cmocka_unit_test(mattis_gauge),
        cmocka_unit_test(all_negative_is_antiferromagnet),
        cmocka_unit_test(enumerator_agrees_with_uniform),
        cmocka_unit_test(enumeration_4x4),
    };
    if (only_enumeration)
        return cmocka_run_group_tests_name("ising_pmj_enumeration", all + 3, NULL, NULL);
    if (cuda) {
        printf("left out: %s; see the test \"test_ising_pmj cuda enumeration\"\n",
               ENUMERATION_ON_CUDA_REASON);
        const struct CMUnitTest on_cuda[] = { all[0], all[1], all[2] };
        return cmocka_run_group_tests_name("ising_pmj", on_cuda, NULL, NULL);
    }
    return cmocka_run_group_tests_name("ising_pmj", all, NULL, NULL);
}
