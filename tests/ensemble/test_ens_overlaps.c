/*
 * The two-replica overlaps of Ising ensembles (latmc_ens_overlaps) after tempering swaps:
 * q, q^2, q^4 and the link overlap of every (sample, temperature), the replicas 0 and 1
 * at that temperature, must equal bit for bit
 *  - the overlaps computed here from the members' spins (latmc_ens_get_spins through the
 *    temperature-to-member map), an independent reference;
 *  - the library's host path (LATMC_ENS_OVERLAPS_HOST=1);
 *  - the same ensemble on the CPU (whose chains are the CUDA members' bit for bit).
 * With LATMC_TEST_DEVICE=cuda (meson: "test_ens_overlaps cuda", skipped without a GPU)
 * the members run on the CUDA backend, whose overlaps are computed on the device (a
 * LATMC_STEP_OVERLAPS request of the batch): 3D +-J L = 4, 6, 8 (the byte layout's batched
 * kernels) and 16 (the packed layout), 2D L = 6 and 16. The device call must leave the
 * chains as they are (the final configurations against the CPU's), and the batched
 * energies of the byte layout (exchange rounds, observables) must be the CPU's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>

#include "ens_test_helpers.h"
#include "sim_helpers.h"

static latmc_ctx *ctx;

enum { NS = 3, NT = 4, NR = 2, NST = NS * NT };

static int setup(void **state)
{
    (void)state;
    return latmc_ctx_create(&ctx) == LATMC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    latmc_ctx_destroy(&ctx);
    return 0;
}

static latmc_ens *tempering_ensemble(latmc_sim_desc d, const double *beta)
{
    latmc_ens_layout l = ens_test_layout(NS, NT, NR, 4242, 1);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    assert_int_equal(latmc_ens_set_temperatures(e, beta, NT), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    return e;
}

/* The reference: key of (s, t) from the two replicas' spins, as doc/ensembles.md defines
 * it (q = sum_i a_i b_i / N, q_l = sum_{i,mu} a_i b_i a_j b_j / (N ndim), j = i + mu). */
static void reference(latmc_ens *e, const latmc_sim_desc *d, int key, double *values)
{
    size_t bytes = 0;
    assert_int_equal(latmc_ens_spins_size(e, &bytes), LATMC_OK);
    int8_t *a = malloc(bytes), *b = malloc(bytes);
    assert_non_null(a);
    assert_non_null(b);
    const int64_t n = (int64_t)bytes;
    const int64_t lx = d->extent[0], ly = d->extent[1], lz = d->ndim == 3 ? d->extent[2] : 1;
    for (int s = 0; s < NS; s++)
        for (int t = 0; t < NT; t++) {
            int ma = -1, mb = -1;
            assert_int_equal(latmc_ens_member_at(e, s, t, 0, &ma), LATMC_OK);
            assert_int_equal(latmc_ens_member_at(e, s, t, 1, &mb), LATMC_OK);
            assert_int_equal(latmc_ens_get_spins(e, ma, a, bytes), LATMC_OK);
            assert_int_equal(latmc_ens_get_spins(e, mb, b, bytes), LATMC_OK);
            int64_t q = 0, ql = 0;
            for (int64_t z = 0; z < lz; z++)
                for (int64_t y = 0; y < ly; y++)
                    for (int64_t x = 0; x < lx; x++) {
                        const int64_t i = x + lx * (y + ly * z);
                        const int64_t nb[3] = { (x + 1) % lx + lx * (y + ly * z),
                                                x + lx * ((y + 1) % ly + ly * z),
                                                x + lx * (y + ly * ((z + 1) % lz)) };
                        const int c = a[i] * b[i];
                        q += c;
                        for (int mu = 0; mu < d->ndim; mu++)
                            ql += c * a[nb[mu]] * b[nb[mu]];
                    }
            const double qv = (double)q / (double)n;
            double v = (double)ql / ((double)n * d->ndim);
            if (key == LATMC_ENS_Q)
                v = qv;
            else if (key == LATMC_ENS_Q2)
                v = qv * qv;
            else if (key == LATMC_ENS_Q4)
                v = (qv * qv) * (qv * qv);
            values[s * NT + t] = v;
        }
    free(a);
    free(b);
}

/* Every key: the ensemble's overlaps (twice: the second call on an unchanged batch), its
 * host path, the CPU ensemble's and the reference, bit for bit. */
static void compare_overlaps(latmc_ens *dev, latmc_ens *cpu, const latmc_sim_desc *d)
{
    static const int keys[4] = { LATMC_ENS_Q, LATMC_ENS_Q2, LATMC_ENS_Q4, LATMC_ENS_QL };
    double v[5][NST];
    for (int k = 0; k < 4; k++) {
        assert_int_equal(latmc_ens_overlaps(dev, keys[k], v[0], NST), LATMC_OK);
        assert_int_equal(latmc_ens_overlaps(dev, keys[k], v[1], NST), LATMC_OK);
        assert_int_equal(setenv("LATMC_ENS_OVERLAPS_HOST", "1", 1), 0);
        assert_int_equal(latmc_ens_overlaps(dev, keys[k], v[2], NST), LATMC_OK);
        assert_int_equal(unsetenv("LATMC_ENS_OVERLAPS_HOST"), 0);
        assert_int_equal(latmc_ens_overlaps(cpu, keys[k], v[3], NST), LATMC_OK);
        reference(dev, d, keys[k], v[4]);
        for (int i = 1; i < 5; i++)
            assert_memory_equal(v[0], v[i], sizeof v[0]);
    }
}

static void test_overlaps_after_swaps(void **state)
{
    (void)state;
    static const double beta3[NT] = { 0.3, 0.5, 0.7, 0.9 }, beta2[NT] = { 0.3, 0.4, 0.5, 0.6 };
    static const struct { int ndim, L; bool pmj; } cases[] = {
        { 3, 4, true }, { 3, 6, true }, { 3, 8, true }, { 3, 16, true },
        { 2, 6, false }, { 2, 16, false },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        if (!test_point_selected((unsigned)c))
            continue; /* LATMC_TEST_POINT_STRIDE (compute-sanitizer: 3, two cases) */
        printf("%dD L = %d%s\n", cases[c].ndim, cases[c].L, cases[c].pmj ? " +-J" : "");
        latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, cases[c].ndim, cases[c].L);
        if (cases[c].pmj)
            d.couplings = LATMC_COUPLINGS_BIMODAL;
        const double *beta = cases[c].ndim == 3 ? beta3 : beta2;
        latmc_ens *dev = tempering_ensemble(d, beta);
        latmc_sim_desc dc = d;
        dc.device = LATMC_DEVICE_CPU;
        latmc_ens *cpu = tempering_ensemble(dc, beta);
        /* sweeps, overlaps right after them (the device path on the sweep's member table),
         * then again after the spins were read (every member prepared anew) */
        for (int round = 0; round < 3; round++) {
            const uint64_t n = round == 0 ? 15 : 7;
            assert_int_equal(latmc_ens_sweep(dev, n), LATMC_OK);
            assert_int_equal(latmc_ens_sweep(cpu, n), LATMC_OK);
            compare_overlaps(dev, cpu, &d);
        }
        uint64_t acc[NT - 1], att[NT - 1];
        assert_int_equal(latmc_ens_exchange_counts(dev, acc, att, NT - 1), LATMC_OK);
        assert_true(acc[0] + acc[1] + acc[2] > 0); /* temperatures did move */
        /* the chains went on untouched by the overlaps: the CPU's, energies included */
        double e_dev[NST * NR], e_cpu[NST * NR];
        assert_int_equal(latmc_ens_sweep(dev, 3), LATMC_OK);
        assert_int_equal(latmc_ens_sweep(cpu, 3), LATMC_OK);
        assert_int_equal(latmc_ens_observables(dev, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER,
                                               e_dev, NST * NR), LATMC_OK);
        assert_int_equal(latmc_ens_observables(cpu, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER,
                                               e_cpu, NST * NR), LATMC_OK);
        assert_memory_equal(e_dev, e_cpu, sizeof e_dev);
        size_t bd = 0, bc = 0;
        unsigned char *sd = ens_test_all_spins(dev, &bd), *sc = ens_test_all_spins(cpu, &bc);
        assert_non_null(sd);
        assert_non_null(sc);
        assert_int_equal(bd, bc);
        assert_memory_equal(sd, sc, bd);
        int map_dev, map_cpu;
        for (int m = 0; m < NST * NR; m++) {
            assert_int_equal(latmc_ens_temperature_of(dev, m, &map_dev), LATMC_OK);
            assert_int_equal(latmc_ens_temperature_of(cpu, m, &map_cpu), LATMC_OK);
            assert_int_equal(map_dev, map_cpu);
        }
        free(sd);
        free(sc);
        latmc_ens_destroy(&dev);
        latmc_ens_destroy(&cpu);
    }
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    const int skip = test_device_check();
    if (skip)
        return skip;
    ens_test_device = test_device();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_overlaps_after_swaps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
