/*
 * The AVX-512 Ising kernels (backends/cpu/ising_avx512.c) against the C reference, bit for
 * bit, on any x86-64 CPU: the kernel file is compiled a second time with its AVX-512
 * intrinsics emulated by SIMDe (emulate/immintrin.h; built only where SIMDe's headers are
 * installed), so a machine without AVX-512 still checks that level's logic. The real
 * AVX-512 build runs in test_ising_simd on CPUs that have it.
 *
 * Same cases as test_ising_simd, on the internal functions: the reference sweep on the
 * natural layout, the emulated kernels on the split layout, compared after every sweep
 * (spins, changed count, bond and spin sums); and the generator alone. The same for +-J
 * couplings: the coupled reference sweep and measurement against the emulated coupled
 * kernels and the split layout's bond plane, the couplings redrawn (and the plane rebuilt)
 * between sweeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_omp.h"
#include "decision.h"
#include "ising_ref.h"
#include "ising_rules.h"
#include "ising_split.h"
#include "sim_helpers.h"

void cpu_ising_dsp_init_avx512_emulated(struct cpu_ising_dsp *dsp);

static uint64_t rng = 20261121;

/* The core's tables (lib/model_ising.c), rebuilt here from the model's definition. */
static void tables(struct latmc_ising_tables *t, int ndim, double beta, double J, double h)
{
    memset(t, 0, sizeof *t);
    for (int k = 0; k <= 2 * ndim; k++) {
        const int n = 2 * k - 2 * ndim;
        for (int up = 0; up < 2; up++) {
            const double de = 2.0 * (up ? 1 : -1) * (J * n + h);
            t->metropolis[up][k] =
                latmc_threshold_u32(beta == 0.0 || de <= 0.0 ? 1.0 : exp(-beta * de));
        }
        t->heatbath[k] = latmc_threshold_u32(beta == 0.0 ? 0.5
                                             : 1.0 / (1.0 + exp(-2.0 * beta * (J * n + h))));
    }
}

/* New +-1 couplings after sweep k of a +-J run: random, all -1, a random third flipped. */
static void redraw(int8_t *eps, int64_t n, int k)
{
    for (int64_t i = 0; i < n; i++) {
        if (k % 3 == 0)
            eps[i] = (test_rng_next(&rng) >> 63) ? 1 : -1;
        else if (k % 3 == 1)
            eps[i] = -1;
        else if (test_rng_next(&rng) % 3 == 0)
            eps[i] = (int8_t)-eps[i];
    }
}

/* The reference sweep: colour 0, then colour 1, each on all its checkerboard numbers (the
 * C level's steps on one box). eps NULL: uniform couplings. */
static uint64_t reference_sweep(const struct latmc_lattice *g, int8_t *spins, const int8_t *eps,
                                const struct latmc_ising_tables *t, int algorithm,
                                uint64_t seed, uint64_t sweep)
{
    const struct cpu_team alone = cpu_team_alone();
    uint64_t changed = 0;
    for (int colour = 0; colour < 2; colour++)
        changed += cpu_ising_colour_range(g, spins, eps, t, algorithm, seed, sweep, colour, 0,
                                          g->nsites / 2, &alone);
    return changed;
}

/* One sweep of the split layout as the library runs it on one box: the plan's fused pair
 * (LATMC_STEP_PAIR_WHOLE, cpu_run_steps), on `threads` members where OpenMP is there. */
static uint64_t split_sweep(const struct cpu_ising_split *s, const struct cpu_ising_dsp *dsp,
                            const struct cpu_ising_decisions *d, uint64_t seed, uint64_t sweep,
                            int threads)
{
    struct latmc_box box = { .axis = s->ndim - 1, .halo = 1 };
    box.extent[box.axis] = s->ndim == 3 ? s->rows / s->ly : s->rows; /* units */
    uint64_t changed = 0;
    if (!cpu_use_threads(threads, s->rows * s->half)) {
        const struct cpu_team alone = cpu_team_alone();
        return cpu_ising_split_boxes_interior(s, dsp, d, seed, sweep, &box, 1, true, &alone);
    }
#ifdef _OPENMP
    LATMC_OMP(parallel num_threads(threads) reduction(+:changed))
    {
        const struct cpu_team team = { omp_get_thread_num(), omp_get_num_threads() };
        changed += cpu_ising_split_boxes_interior(s, dsp, d, seed, sweep, &box, 1, true, &team);
    }
#endif
    return changed;
}

/* pmj: 0 uniform; 1 +-J couplings; 2 +-J, redrawn after every sweep but the last. */
static void run_impl(int ndim, int64_t lx, int64_t ly, int64_t lz, int algorithm, double beta,
                     double J, double h, int sweeps, uint64_t first_sweep, int threads, int pmj)
{
    struct latmc_lattice g = { ndim, lx, ly, ndim == 3 ? lz : 1, 0 };
    g.nsites = g.lx * g.ly * g.lz;
    struct latmc_ising_tables t;
    tables(&t, ndim, beta, J, h);
    struct cpu_ising_decisions dec;
    cpu_ising_decisions_build(&dec, &t, ndim, algorithm);
    int8_t *ref = malloc((size_t)g.nsites), *out = malloc((size_t)g.nsites);
    assert_non_null(ref);
    assert_non_null(out);
    for (int64_t i = 0; i < g.nsites; i++)
        ref[i] = (test_rng_next(&rng) >> 63) ? 1 : -1;
    struct cpu_ising_split s;
    assert_int_equal(cpu_ising_split_alloc(&s, &g), 0);
    cpu_ising_split_from_natural(&s, ref, 1);
    int8_t *eps = NULL;
    if (pmj) {
        eps = malloc((size_t)(g.nsites * ndim));
        assert_non_null(eps);
        cpu_ising_draw_couplings(&g, eps, test_rng_next(&rng), 1);
        assert_int_equal(cpu_ising_split_alloc_bonds(&s), 0);
        cpu_ising_split_bonds_from_eps(&s, eps, threads);
    }
    struct cpu_ising_dsp dsp;
    memset(&dsp, 0, sizeof dsp);
    cpu_ising_dsp_init_avx512_emulated(&dsp);
    const uint64_t seed = test_rng_next(&rng);
    for (int k = 0; k < sweeps; k++) {
        const uint64_t a = reference_sweep(&g, ref, pmj ? eps : NULL, &t, algorithm, seed,
                                           first_sweep + k);
        const uint64_t b = split_sweep(&s, &dsp, &dec, seed, first_sweep + k, threads);
        cpu_ising_split_to_natural(&s, out, 1);
        if (a != b || memcmp(ref, out, (size_t)g.nsites) != 0)
            print_error("%dD %lldx%lldx%lld algorithm %d beta %g h %g pmj %d: sweep %d "
                        "differs\n", ndim, (long long)lx, (long long)ly, (long long)lz,
                        algorithm, beta, h, pmj, k);
        assert_memory_equal(ref, out, (size_t)g.nsites);
        assert_true(a == b);
        if (pmj == 2 && k + 1 < sweeps) {
            redraw(eps, g.nsites * ndim, k);
            cpu_ising_split_bonds_from_eps(&s, eps, threads);
        }
        const struct latmc_ising_sums ma =
            pmj ? cpu_ising_measure_coupled(&g, ref, eps, 1) : cpu_ising_measure(&g, ref, 1);
        const struct latmc_ising_sums mb = cpu_ising_split_measure(&s, threads);
        assert_true(ma.bonds == mb.bonds && ma.spins == mb.spins);
    }
    free(eps);
    cpu_ising_split_free(&s);
    free(ref);
    free(out);
}

static void run(int ndim, int64_t lx, int64_t ly, int64_t lz, int algorithm, double beta,
                double J, double h, int sweeps, uint64_t first_sweep, int threads)
{
    run_impl(ndim, lx, ly, lz, algorithm, beta, J, h, sweeps, first_sweep, threads, 0);
}

/* +-J: the emulated coupled kernels; J < 0, h != 0 and extreme beta reach every entry. */
static void test_kernels_pmj(void **state)
{
    (void)state;
    for (int a = 0; a < 2; a++) {
        const int alg = a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
        for (int pmj = 1; pmj <= 2; pmj++) {
            /* rows on groups of 8 Philox blocks, 64- and 32-site steps */
            run_impl(2, 64, 64, 1, alg, 0.44, 1, 0, 4, 0, 1, pmj);
            run_impl(2, 192, 10, 1, alg, 0.3, -0.7, 0.25, 4, 7, 1, pmj);
            run_impl(2, 200, 2, 1, alg, 0.5, 1, 0.1, 4, 0, 1, pmj);
            /* general path: rows start inside a group, tails, extents of 2 */
            run_impl(2, 96, 8, 1, alg, 0.2, -1, 1.5, 4, 0, 1, pmj);
            run_impl(2, 130, 66, 1, alg, 0.44, 1, 0.1, 4, 1, 1, pmj);
            run_impl(2, 6, 4, 1, alg, 0.44, 1, 0, 6, 0, 1, pmj);
            run_impl(2, 2, 2, 1, alg, 0.3, -1, 0.2, 6, 0, 1, pmj);
            run_impl(2, 10, 14, 1, alg, 0.1, 1, -3, 4, 0, 1, pmj);
            /* beta = 0, thresholds 0 ("never"), sweep numbers beyond 2^32 */
            run_impl(2, 64, 8, 1, alg, 0, 1, 0, 3, 0, 1, pmj);
            run_impl(2, 64, 8, 1, alg, 50, -1, 0.3, 4, 0, 1, pmj);
            run_impl(2, 18, 6, 1, alg, 1e6, 1, 0.7, 4, 0, 1, pmj);
            run_impl(2, 70, 16, 1, alg, 0.44, 1, 0.2, 3, (UINT64_C(1) << 40) + 5, 1, pmj);
            /* 3D */
            run_impl(3, 64, 4, 6, alg, 0.22, 1, 0, 4, 0, 1, pmj);
            run_impl(3, 128, 6, 4, alg, 0.3, -1, 0.2, 4, 3, 1, pmj);
            run_impl(3, 10, 6, 4, alg, 0.22, 1, 0.3, 4, 0, 1, pmj);
            run_impl(3, 2, 2, 2, alg, 0.4, 1, 0.1, 5, 0, 1, pmj);
            run_impl(3, 66, 4, 2, alg, 0.5, -1, -0.6, 4, 0, 1, pmj);
            run_impl(3, 64, 4, 4, alg, 40, 1, 0.5, 3, 0, 1, pmj);
            /* narrow rows (L_x 16, 32: several rows per vector) */
            run_impl(3, 16, 16, 4, alg, 0.3, 1, 0, 4, 0, 1, pmj);
            run_impl(3, 32, 4, 6, alg, 0.3, -1, 0.2, 4, 5, 1, pmj);
            run_impl(3, 16, 8, 2, alg, 40, 1, 0.5, 3, 0, 1, pmj);
            run_impl(3, 16, 2048, 2, alg, 0.3, 1, 0.1, 3, 0, 3, pmj);
            /* threads (>= 32768 sites per colour) */
            run_impl(2, 256, 260, 1, alg, 0.44, 1, 0.01, 3, 0, 2, pmj);
            run_impl(2, 258, 256, 1, alg, 0.44, -1, 0.1, 3, 0, 3, pmj);
            run_impl(3, 128, 128, 4, alg, 0.3, 1, 0, 3, 0, 3, pmj);
            run_impl(3, 64, 34, 16, alg, 0.3, 1, 0.1, 3, 0, 2, pmj);
        }
    }
}

static void test_kernels(void **state)
{
    (void)state;
    for (int a = 0; a < 2; a++) {
        const int alg = a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
        /* rows on groups of 8 Philox blocks, 64- and 32-site steps */
        run(2, 64, 64, 1, alg, 0.44, 1, 0, 4, 0, 1);
        run(2, 128, 6, 1, alg, 0.44, 1, 0.1, 3, 0, 1);
        run(2, 192, 10, 1, alg, 0.3, -0.7, 0.25, 3, 7, 1);
        run(2, 200, 2, 1, alg, 0.5, 1, 0.1, 3, 0, 1);
        /* general path: rows start inside a group, tails */
        run(2, 96, 8, 1, alg, 0.2, -1, 1.5, 3, 0, 1);
        run(2, 130, 66, 1, alg, 0.44, 1, 0, 3, 1, 1);
        run(2, 330, 4, 1, alg, 0.5, 1, 0.1, 3, 0, 1);
        run(2, 6, 4, 1, alg, 0.44, 1, 0, 6, 0, 1);
        run(2, 2, 2, 1, alg, 0.3, 1, 0.2, 6, 0, 1);
        run(2, 34, 2, 1, alg, 1.0, 1, 0, 4, 0, 1);
        run(2, 10, 14, 1, alg, 0.1, 1, -3, 4, 0, 1);
        /* beta = 0, thresholds 0 ("never"), sweep numbers beyond 2^32 */
        run(2, 64, 8, 1, alg, 0, 1, 0, 3, 0, 1);
        run(2, 64, 8, 1, alg, 50, 1, 0.3, 3, 0, 1);
        run(2, 18, 6, 1, alg, 1e6, -1, 0.7, 3, 0, 1);
        run(2, 64, 16, 1, alg, 0.44, 1, 0, 3, UINT64_C(0xffffffff), 1);
        run(2, 70, 16, 1, alg, 0.44, 1, 0.2, 3, (UINT64_C(1) << 40) + 5, 1);
        /* 3D */
        run(3, 64, 4, 6, alg, 0.22, 1, 0, 3, 0, 1);
        run(3, 96, 4, 4, alg, 0.3, 1, 0.1, 3, 0, 1);
        run(3, 128, 6, 4, alg, 0.3, -1, 0.2, 3, 3, 1);
        run(3, 10, 6, 4, alg, 0.22, 1, 0.3, 3, 0, 1);
        run(3, 2, 2, 2, alg, 0.4, 1, 0, 5, 0, 1);
        run(3, 66, 4, 2, alg, 0.5, 1, -0.6, 3, 0, 1);
        run(3, 64, 4, 4, alg, 40, 1, 0.5, 2, 0, 1);
        /* narrow rows (L_x 16, 32: several rows per vector), L_y not a multiple of them */
        run(3, 16, 16, 4, alg, 0.22, 1, 0, 3, 0, 1);
        run(3, 32, 12, 2, alg, 0.3, -1, 0.2, 3, 5, 1);
        run(3, 16, 12, 2, alg, 0.3, 1, 0.1, 3, 0, 1);
        run(3, 16, 8, 2, alg, 40, 1, 0.5, 2, 0, 1);
        run(3, 16, 8, 4, alg, 0.4, 1, 0, 3, (UINT64_C(1) << 40) + 5, 1);
        run(3, 16, 2048, 2, alg, 0.22, 1, 0, 2, 0, 3);
        /* threads (>= 32768 sites per colour) */
        run(2, 256, 260, 1, alg, 0.44, 1, 0.01, 2, 0, 2);
        run(2, 258, 256, 1, alg, 0.44, 1, 0, 2, 0, 3);
        run(3, 128, 128, 4, alg, 0.22, 1, 0, 2, 0, 3);
        run(3, 64, 34, 16, alg, 0.22, 1, 0.1, 2, 0, 2);
    }
}

static void test_draws(void **state)
{
    (void)state;
    struct cpu_ising_dsp dsp;
    memset(&dsp, 0, sizeof dsp);
    cpu_ising_dsp_init_avx512_emulated(&dsp);
    uint32_t out[32 * 5];
    for (int trial = 0; trial < 100; trial++) {
        const uint64_t seed = test_rng_next(&rng), r = test_rng_next(&rng);
        const uint32_t c1 = (uint32_t)r, c2 = (uint32_t)(r >> 32);
        const uint32_t c3 = (uint32_t)test_rng_next(&rng);
        uint64_t first = test_rng_next(&rng) & UINT64_C(0xfffffffffff8);
        if (trial % 3 == 0)
            first &= 0xff8;
        else if (trial % 3 == 1)
            first = UINT64_C(0xffffffe0) - 8 * (uint64_t)(trial & 3);
        dsp.draws(seed, c1, c2, c3, first, 5, out);
        for (int m = 0; m < 32 * 5; m++) {
            const latmc_philox_ctr cnt = { { (uint32_t)(first + (uint64_t)(m / 4)), c1, c2, c3 } };
            assert_int_equal(out[m], latmc_philox4x32_10(cnt, latmc_rng_key(seed)).v[m % 4]);
        }
    }
    /* the ceiling's entry: the xor of 64 blocks' draws */
    uint32_t want = 0;
    for (uint64_t b = 64; b < 128; b++) {
        const latmc_philox_ctr cnt = { { (uint32_t)b, 0, 0, 0 } };
        const latmc_philox_ctr u = latmc_philox4x32_10(cnt, latmc_rng_key(777));
        want ^= u.v[0] ^ u.v[1] ^ u.v[2] ^ u.v[3];
    }
    assert_int_equal(dsp.draws_xor(777, 64, 8), want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_draws),
        cmocka_unit_test(test_kernels),
        cmocka_unit_test(test_kernels_pmj),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
