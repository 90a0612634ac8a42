/*
 * Ensemble inputs: every bad request gives its LATMC_E* code and leaves nothing
 * half-created; addressing and the temperature map are consistent; the sample jackknife
 * of the Binder ratio matches a computation by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "ens_test_helpers.h"

static latmc_ctx *ctx;

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

/* create must fail with `want`, *out NULL, and a message. */
static void refuse_create(const latmc_sim_desc *d, const latmc_ens_layout *l, int want)
{
    latmc_ens *e = (latmc_ens *)&e; /* not NULL: create must clear it */
    assert_int_equal(latmc_ens_create(ctx, d, l, &e), want);
    assert_null(e);
    assert_true(strlen(latmc_last_error()) > 0);
}

static void test_create_refusals(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 8);
    latmc_ens_layout l = ens_test_layout(2, 2, 2, 1, 1);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(NULL, &d, &l, &e), LATMC_EINVAL);
    assert_int_equal(latmc_ens_create(ctx, NULL, &l, &e), LATMC_EINVAL);
    assert_int_equal(latmc_ens_create(ctx, &d, NULL, &e), LATMC_EINVAL);
    assert_int_equal(latmc_ens_create(ctx, &d, &l, NULL), LATMC_EINVAL);
    latmc_ens_layout bad = l;
    bad.n_samples = 0;
    refuse_create(&d, &bad, LATMC_EINVAL);
    bad = l;
    bad.n_temperatures = -3;
    refuse_create(&d, &bad, LATMC_EINVAL);
    bad = l;
    bad.n_threads = -1;
    refuse_create(&d, &bad, LATMC_EINVAL);
    bad = l;
    bad.struct_size = 8;
    refuse_create(&d, &bad, LATMC_EINVAL);
    bad = l; /* more members than an int index names */
    bad.n_samples = 1 << 14;
    bad.n_temperatures = 1 << 12;
    refuse_create(&d, &bad, LATMC_EINVAL);
    /* More members than memory: refused before anything is allocated (this would take
     * petabytes). */
    latmc_sim_desc big = ens_test_desc(LATMC_MODEL_ISING, 3, 4096);
    bad = ens_test_layout(1 << 10, 16, 2, 1, 1);
    refuse_create(&big, &bad, LATMC_ENOMEM);
    assert_non_null(strstr(latmc_last_error(), "memory"));
    /* Bad member descs: the sim's own refusals, nothing left. */
    latmc_sim_desc odd = ens_test_desc(LATMC_MODEL_ISING, 2, 7);
    refuse_create(&odd, &l, LATMC_EINVAL);
    latmc_sim_desc rep = ens_test_desc(LATMC_MODEL_HEISENBERG, 3, 4);
    rep.replicas = 2;
    refuse_create(&rep, &l, LATMC_EUNSUPPORTED);
    latmc_sim_desc none = ens_test_desc(LATMC_MODEL_NONE, 2, 8);
    refuse_create(&none, &l, LATMC_EINVAL);
}

/*
 * The layout initialisers write no byte past the caller's layout, and create takes a
 * newer header's larger layout whose unknown tail is zero (doc/ABI.md).
 */
static void test_layout_sizes(void **state)
{
    (void)state;
    enum { PAD = 32, CANARY = 0x5A };
    union {
        latmc_ens_layout l;
        unsigned char bytes[sizeof(latmc_ens_layout) + 2 * PAD];
    } b;
    const size_t sizes[] = { sizeof(latmc_ens_layout), sizeof(latmc_ens_layout) + PAD };
    for (int i = 0; i < 3; i++) {
        const size_t size = i < 2 ? sizes[i] : sizeof(latmc_ens_layout);
        memset(b.bytes, CANARY, sizeof b.bytes);
        if (i < 2)
            assert_int_equal(latmc_ens_layout_init_size(&b.l, size), LATMC_OK);
        else
            (latmc_ens_layout_init)(&b.l); /* the symbol, not the macro */
        assert_int_equal(b.l.struct_size, size);
        assert_int_equal(b.l.n_samples, 1);
        for (size_t k = sizeof(latmc_ens_layout); k < size; k++)
            assert_int_equal(b.bytes[k], 0);
        for (size_t k = size; k < sizeof b.bytes; k++)
            assert_int_equal(b.bytes[k], CANARY);
    }
    /* a larger layout, its tail zero, is created from */
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 8);
    assert_int_equal(latmc_ens_layout_init_size(&b.l, sizeof(latmc_ens_layout) + PAD), LATMC_OK);
    b.l.n_temperatures = 2;
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &b.l, &e), LATMC_OK);
    latmc_ens_destroy(&e);
    /* a field this version does not know set: refused */
    b.bytes[sizeof(latmc_ens_layout) + 3] = 1;
    refuse_create(&d, &b.l, LATMC_EUNSUPPORTED);
    assert_non_null(strstr(latmc_last_error(), "does not know"));
    b.bytes[sizeof(latmc_ens_layout) + 3] = 0;
    b.l.struct_size = 5000;
    refuse_create(&d, &b.l, LATMC_EINVAL);
    /* sizes of no version, NULL: EINVAL, nothing written */
    memset(b.bytes, CANARY, sizeof b.bytes);
    assert_int_equal(latmc_ens_layout_init_size(&b.l, sizeof(latmc_ens_layout) - 4), LATMC_EINVAL);
    assert_int_equal(latmc_ens_layout_init_size(&b.l, 4097), LATMC_EINVAL);
    for (size_t k = 0; k < sizeof b.bytes; k++)
        assert_int_equal(b.bytes[k], CANARY);
    assert_int_equal(latmc_ens_layout_init_size(NULL, sizeof(latmc_ens_layout)), LATMC_EINVAL);
}

static void test_temperatures_and_exchange(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 4);
    latmc_ens_layout l = ens_test_layout(2, 3, 1, 1, 1);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    /* exchanges before temperatures: state error */
    assert_int_equal(latmc_ens_set_exchange(e, 1), LATMC_ESTATE);
    const double unordered[3] = { 0.2, 0.5, 0.4 };
    const double repeated[3] = { 0.2, 0.2, 0.4 };
    const double negative[3] = { -0.1, 0.2, 0.4 };
    const double nan3[3] = { 0.1, NAN, 0.4 };
    const double up[3] = { 0.1, 0.2, 0.4 }, down[3] = { 0.4, 0.2, 0.1 };
    assert_int_equal(latmc_ens_set_temperatures(e, unordered, 3), LATMC_EINVAL);
    assert_non_null(strstr(latmc_ens_last_error(e), "order"));
    assert_int_equal(latmc_ens_set_temperatures(e, repeated, 3), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_temperatures(e, negative, 3), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_temperatures(e, nan3, 3), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_temperatures(e, up, 2), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_temperatures(e, NULL, 3), LATMC_EINVAL);
    double got[3] = { 9, 9, 9 };
    assert_int_equal(latmc_ens_get_temperatures(e, got, 3), LATMC_OK);
    assert_true(got[0] == 0 && got[1] == 0 && got[2] == 0); /* refusals changed nothing */
    assert_int_equal(latmc_ens_set_temperatures(e, down, 3), LATMC_OK);
    assert_int_equal(latmc_ens_set_temperatures(e, up, 3), LATMC_OK);
    assert_int_equal(latmc_ens_get_temperatures(e, got, 3), LATMC_OK);
    assert_memory_equal(got, up, sizeof up);
    uint64_t every = 99;
    assert_int_equal(latmc_ens_get_exchange(e, &every), LATMC_OK);
    assert_int_equal(every, 0); /* off by default */
    assert_int_equal(latmc_ens_set_exchange(e, 2), LATMC_OK);
    assert_int_equal(latmc_ens_get_exchange(e, &every), LATMC_OK);
    assert_int_equal(every, 2);
    assert_int_equal(latmc_ens_get_exchange(e, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_ens_get_exchange(NULL, &every), LATMC_EINVAL);
    /* beta only through the temperatures; parameters of other models refused */
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_BETA, 0.3), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_MU2, 0.3), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_ens_set_param(e, LATMC_PARAM_H, NAN), LATMC_EINVAL);
    /* sweeping before a configuration */
    assert_int_equal(latmc_ens_sweep(e, 1), LATMC_ESTATE);
    assert_int_equal(latmc_ens_init_spins(e, 7), LATMC_EINVAL);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_COLD), LATMC_OK);
    assert_int_equal(latmc_ens_sweep(e, 4), LATMC_OK);
    /* the map is a permutation per sample and agrees with temperature_of */
    for (int s = 0; s < 2; s++) {
        int seen = 0;
        for (int t = 0; t < 3; t++) {
            int m = -1, back = -1;
            assert_int_equal(latmc_ens_member_at(e, s, t, 0, &m), LATMC_OK);
            assert_int_equal(latmc_ens_temperature_of(e, m, &back), LATMC_OK);
            assert_int_equal(back, t);
            assert_int_equal(m / 3, s);
            seen |= 1 << (m % 3);
        }
        assert_int_equal(seen, 7);
    }
    int m;
    assert_int_equal(latmc_ens_member_at(e, 2, 0, 0, &m), LATMC_EINVAL);
    assert_int_equal(latmc_ens_member_at(e, 0, 3, 0, &m), LATMC_EINVAL);
    assert_int_equal(latmc_ens_member_at(e, 0, 0, 1, &m), LATMC_EINVAL);
    assert_int_equal(latmc_ens_member_index(e, 0, 0, 0, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_ens_temperature_of(e, 6, &m), LATMC_EINVAL);
    uint64_t acc[2], att[2];
    assert_int_equal(latmc_ens_exchange_counts(e, acc, att, 3), LATMC_EINVAL);
    assert_int_equal(latmc_ens_exchange_counts(e, acc, att, 2), LATMC_OK);
    assert_int_equal(att[0] + att[1], 2 * 2); /* rounds at sweeps 2 and 4, one pair each */
    /* Spins: a buffer of another shape is refused; a member out of range too. */
    size_t bytes = 0;
    assert_int_equal(latmc_ens_spins_size(e, &bytes), LATMC_OK);
    assert_int_equal(bytes, 16);
    int8_t spins[36];
    for (int i = 0; i < 36; i++)
        spins[i] = 1;
    assert_int_equal(latmc_ens_set_spins(e, 0, spins, 36), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_spins(e, 6, spins, 16), LATMC_EINVAL);
    assert_int_equal(latmc_ens_get_spins(e, -1, spins, 16), LATMC_EINVAL);
    spins[3] = 0;
    assert_int_equal(latmc_ens_set_spins(e, 1, spins, 16), LATMC_EINVAL);
    spins[3] = -1;
    assert_int_equal(latmc_ens_set_spins(e, 1, spins, 16), LATMC_OK);
    int8_t back[16];
    assert_int_equal(latmc_ens_get_spins(e, 1, back, 16), LATMC_OK);
    assert_memory_equal(back, spins, 16);
    /* observables: wrong count, order, key */
    double v[6];
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, 0, v, 5), LATMC_EINVAL);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_ENERGY, 2, v, 6), LATMC_EINVAL);
    assert_int_equal(latmc_ens_observables(e, 99, 0, v, 6), LATMC_EINVAL);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_PHI2, 0, v, 6), LATMC_EUNSUPPORTED);
    /* BY_TEMPERATURE reorders BY_MEMBER through the map */
    double bm[6], bt[6];
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_M2, LATMC_ENS_BY_MEMBER, bm, 6), LATMC_OK);
    assert_int_equal(latmc_ens_observables(e, LATMC_OBS_M2, LATMC_ENS_BY_TEMPERATURE, bt, 6),
                     LATMC_OK);
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < 3; t++) {
            assert_int_equal(latmc_ens_member_at(e, s, t, 0, &m), LATMC_OK);
            assert_true(bt[s * 3 + t] == bm[m]);
        }
    /* overlaps need two replicas */
    assert_int_equal(latmc_ens_overlaps(e, LATMC_ENS_Q, v, 6), LATMC_EUNSUPPORTED);
    latmc_ens_destroy(&e);
    assert_null(e);
    latmc_ens_destroy(&e);
    latmc_ens_destroy(NULL);

    /* one temperature: no exchanges */
    l = ens_test_layout(2, 1, 2, 1, 1);
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    const double one = 0.3;
    assert_int_equal(latmc_ens_set_temperatures(e, &one, 1), LATMC_OK);
    assert_int_equal(latmc_ens_set_exchange(e, 5), LATMC_EINVAL);
    assert_non_null(strstr(latmc_ens_last_error(e), "two temperatures"));
    assert_int_equal(latmc_ens_set_exchange(e, 0), LATMC_OK);
    latmc_ens_destroy(&e);

    /* phi^4 has no beta to temper */
    latmc_sim_desc p = ens_test_desc(LATMC_MODEL_PHI4, 2, 8);
    l = ens_test_layout(1, 2, 1, 1, 1);
    assert_int_equal(latmc_ens_create(ctx, &p, &l, &e), LATMC_OK);
    assert_int_equal(latmc_ens_set_temperatures(e, up, 2), LATMC_EUNSUPPORTED);
    /* ... its ladder is in mu2 (test_ens_mu2.c has the rest); misuse of the ladder calls */
    const double mu2[2] = { -0.2, 0.1 };
    int key = -1;
    double vals[2] = { 9, 9 };
    assert_int_equal(latmc_ens_set_ladder(NULL, LATMC_PARAM_MU2, mu2, 2), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, NULL, 2), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_ladder(e, 99, mu2, 2), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, mu2, 3), LATMC_EINVAL);
    assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_BETA, up, 2), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_ens_get_ladder(NULL, &key, vals, 2), LATMC_EINVAL);
    assert_int_equal(latmc_ens_get_ladder(e, NULL, vals, 2), LATMC_EINVAL);
    assert_int_equal(latmc_ens_get_ladder(e, &key, NULL, 2), LATMC_EINVAL);
    assert_int_equal(latmc_ens_get_ladder(e, &key, vals, 1), LATMC_EINVAL);
    assert_int_equal(latmc_ens_get_ladder(e, &key, vals, 2), LATMC_OK);
    assert_true(key == LATMC_PARAM_BETA && vals[0] == 0 && vals[1] == 0); /* none set yet */
    assert_int_equal(latmc_ens_set_ladder(e, LATMC_PARAM_MU2, mu2, 2), LATMC_OK);
    assert_int_equal(latmc_ens_get_ladder(e, &key, vals, 2), LATMC_OK);
    assert_int_equal(key, LATMC_PARAM_MU2);
    assert_memory_equal(vals, mu2, sizeof mu2);
    latmc_ens_destroy(&e);
    assert_string_equal(latmc_ens_last_error(NULL), "ens is NULL");
}

/* Overlaps of hand-made configurations: q, q^2, q^4 and the link overlap. */
static void test_overlaps_by_hand(void **state)
{
    (void)state;
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 4);
    latmc_ens_layout l = ens_test_layout(1, 1, 2, 1, 1);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    int8_t a[16], b[16];
    for (int i = 0; i < 16; i++) {
        a[i] = 1;
        b[i] = i == 5 ? -1 : 1; /* one site differs */
    }
    assert_int_equal(latmc_ens_set_spins(e, 0, a, 16), LATMC_OK);
    assert_int_equal(latmc_ens_set_spins(e, 1, b, 16), LATMC_OK);
    double q, q2, q4, ql;
    assert_int_equal(latmc_ens_overlaps(e, LATMC_ENS_Q, &q, 1), LATMC_OK);
    assert_int_equal(latmc_ens_overlaps(e, LATMC_ENS_Q2, &q2, 1), LATMC_OK);
    assert_int_equal(latmc_ens_overlaps(e, LATMC_ENS_Q4, &q4, 1), LATMC_OK);
    assert_int_equal(latmc_ens_overlaps(e, LATMC_ENS_QL, &ql, 1), LATMC_OK);
    assert_true(fabs(q - 14.0 / 16) < 1e-15);
    assert_true(fabs(q2 - q * q) < 1e-15 && fabs(q4 - q2 * q2) < 1e-15);
    /* 32 bonds, the 4 touching site 5 have s^a s^b products -1 at one end: -1 each */
    assert_true(fabs(ql - 24.0 / 32) < 1e-15);
    assert_int_equal(latmc_ens_overlaps(e, 0, &q, 1), LATMC_EINVAL);
    assert_int_equal(latmc_ens_overlaps(e, LATMC_ENS_Q, &q, 2), LATMC_EINVAL);
    latmc_ens_destroy(&e);
}

static void test_binder_jackknife(void **state)
{
    (void)state;
    const double q2[4] = { 0.30, 0.25, 0.40, 0.35 }, q4[4] = { 0.12, 0.09, 0.20, 0.15 };
    double g, err;
    assert_int_equal(latmc_ens_binder_g(q2, q4, 4, 1, &g, &err), LATMC_OK);
    /* by hand: sample means, leave-one-out values, jackknife variance */
    const double Q2 = 1.30 / 4, Q4 = 0.56 / 4;
    assert_true(fabs(g - 0.5 * (3 - Q4 / (Q2 * Q2))) < 1e-14);
    double gj[4], mean = 0, var = 0;
    for (int s = 0; s < 4; s++) {
        const double a = (1.30 - q2[s]) / 3, b = (0.56 - q4[s]) / 3;
        gj[s] = 0.5 * (3 - b / (a * a));
        mean += gj[s] / 4;
    }
    for (int s = 0; s < 4; s++)
        var += (gj[s] - mean) * (gj[s] - mean);
    assert_true(fabs(err - sqrt(var * 3 / 4)) < 1e-14);
    assert_int_equal(latmc_ens_binder_g(q2, q4, 4, 3, &g, &err), LATMC_OK);
    assert_true(fabs(g - 0.5 * (11 - 9 * Q4 / (Q2 * Q2))) < 1e-14);
    assert_int_equal(latmc_ens_binder_g(q2, q4, 1, 1, &g, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_binder_g(q2, q4, 4, 2, &g, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_binder_g(NULL, q4, 4, 1, &g, &err), LATMC_EINVAL);
    const double zero[2] = { 0, 0 }, nan2[2] = { NAN, 1 };
    assert_int_equal(latmc_ens_binder_g(zero, zero, 2, 1, &g, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_binder_g(nan2, q4, 2, 1, &g, &err), LATMC_EINVAL);
    /* the spin-glass correlation length: refusals (values: test_fss_observables) */
    assert_int_equal(latmc_ens_corr_length(NULL, q4, 4, 8, &g, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_corr_length(q2, q4, 1, 8, &g, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_corr_length(q2, q4, 4, 1, &g, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_corr_length(nan2, q4, 2, 8, &g, &err), LATMC_EINVAL);
    assert_int_equal(latmc_ens_corr_length(q4, q2, 4, 8, &g, &err), LATMC_EINVAL); /* q2 < qk2 */
    assert_int_equal(latmc_ens_corr_length(q2, q4, 4, 8, &g, NULL), LATMC_EINVAL);
    assert_int_equal(latmc_ens_corr_length(q2, q4, 4, 8, &g, &err), LATMC_OK);
}

/*
 * Moments no chain can give are refused: a thermal mean of q^2 is >= 0 and, by Jensen's
 * inequality, <q^4> >= <q^2>^2 (on 995e5fe a negative <q^2> gave LATMC_OK and g = 1.28).
 * Moments equal up to rounding (q^2 the same in every measurement) are accepted.
 */
static void test_binder_moments(void **state)
{
    (void)state;
    double g = -9, err = -9;
    const double good2[3] = { 0.30, 0.25, 0.40 }, good4[3] = { 0.12, 0.09, 0.20 };
    const struct {
        double q2, q4; /* sample 1's moments; samples 0 and 2 are good */
    } bad[] = {
        { -0.25, 0.09 },  /* <q^2> < 0 (the campaign's case) */
        { 0.25, -0.09 },  /* <q^4> < 0 */
        { 0.25, 0.06 },   /* <q^4> < <q^2>^2 = 0.0625 */
        { -0.5, 0.25 },   /* <q^4> = <q^2>^2 but <q^2> < 0 */
        { 0.0, -1e-300 }, /* a tiny negative <q^4> */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        double q2[3], q4[3];
        memcpy(q2, good2, sizeof q2);
        memcpy(q4, good4, sizeof q4);
        q2[1] = bad[i].q2;
        q4[1] = bad[i].q4;
        for (int ncomp = 1; ncomp <= 3; ncomp += 2) {
            g = err = -9;
            if (latmc_ens_binder_g(q2, q4, 3, ncomp, &g, &err) != LATMC_EINVAL)
                fail_msg("case %zu (q2 %g, q4 %g), %d components: accepted, g = %g", i,
                         bad[i].q2, bad[i].q4, ncomp, g);
            assert_non_null(strstr(latmc_last_error(), "sample 1"));
            assert_true(g == -9 && err == -9); /* outputs unchanged */
        }
    }
    /* the edge: q^2 = 0.3 in every measurement of a sample, moments from sums */
    double q2[3], q4[3];
    memcpy(q2, good2, sizeof q2);
    memcpy(q4, good4, sizeof q4);
    double s2 = 0, s4 = 0;
    for (int k = 0; k < 7; k++) {
        s2 += 0.3;
        s4 += 0.3 * 0.3;
    }
    q2[1] = s2 / 7;
    q4[1] = s4 / 7;
    assert_int_equal(latmc_ens_binder_g(q2, q4, 3, 1, &g, &err), LATMC_OK);
    q2[1] = 0; /* a sample whose overlap is always 0 */
    q4[1] = 0;
    assert_int_equal(latmc_ens_binder_g(q2, q4, 3, 1, &g, &err), LATMC_OK);
}

/*
 * The functions that fill a caller's struct write no more than its struct_size says:
 * latmc_ens_member_desc() into the desc of an older header (the 0.1 one ends before
 * n_parts, the next after n_parts), as latmc_sim_get_desc() does, and
 * latmc_ens_get_layout() into a layout that says its size (smaller: LATMC_EINVAL, nothing
 * written; larger: this version's fields, the rest untouched). On 995e5fe both wrote the
 * whole current struct whatever it said (ASan: a 112-byte write into 96 bytes).
 */
static void test_struct_size_out(void **state)
{
    (void)state;
    enum { CANARY = 0xA7, ROOM = 512 };
    latmc_sim_desc d = ens_test_desc(LATMC_MODEL_ISING, 2, 8);
    latmc_ens_layout l = ens_test_layout(1, 2, 1, 3, 1);
    latmc_ens *e = NULL;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    latmc_sim_desc full = { .struct_size = sizeof full };
    assert_int_equal(latmc_ens_member_desc(e, 1, &full), LATMC_OK);
    /* the 0.1 desc (up to seed) and the n_parts-era desc (its fields up to n_parts; its
     * size rounded to the struct's alignment) */
    const size_t v2_fields = offsetof(latmc_sim_desc, n_devices);
    const size_t align = _Alignof(latmc_sim_desc);
    const size_t sizes[2] = { offsetof(latmc_sim_desc, n_parts),
                              (v2_fields + align - 1) / align * align };
    const size_t written[2] = { sizes[0], v2_fields };
    for (int v = 0; v < 2; v++) {
        /* on the heap, exactly as large as the older struct: ASan sees any overrun */
        unsigned char *old = malloc(sizes[v]);
        assert_non_null(old);
        memset(old, CANARY, sizes[v]);
        const uint32_t size = (uint32_t)sizes[v];
        memcpy(old, &size, sizeof size); /* struct_size is the first field */
        assert_int_equal(latmc_ens_member_desc(e, 1, (latmc_sim_desc *)(void *)old), LATMC_OK);
        uint32_t back = 0;
        memcpy(&back, old, sizeof back);
        assert_int_equal(back, size);
        assert_memory_equal(old + sizeof size, (const unsigned char *)&full + sizeof size,
                            written[v] - sizeof size);
        for (size_t k = written[v]; k < sizes[v]; k++)
            assert_int_equal(old[k], CANARY); /* padding of the older struct: untouched */
        free(old);
    }
    /* get_layout: a struct that says this version's size or more */
    union {
        latmc_ens_layout l;
        unsigned char bytes[ROOM];
    } b;
    memset(b.bytes, CANARY, sizeof b.bytes);
    b.l.struct_size = sizeof(latmc_ens_layout) + 32;
    assert_int_equal(latmc_ens_get_layout(e, &b.l), LATMC_OK);
    assert_int_equal(b.l.struct_size, sizeof(latmc_ens_layout) + 32);
    assert_int_equal(b.l.n_temperatures, 2);
    for (size_t k = sizeof(latmc_ens_layout); k < sizeof b.bytes; k++)
        assert_int_equal(b.bytes[k], CANARY);
    const uint32_t bad[] = { 0, 8, (uint32_t)sizeof(latmc_ens_layout) - 4, 4097 };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(b.bytes, CANARY, sizeof b.bytes);
        b.l.struct_size = bad[i];
        assert_int_equal(latmc_ens_get_layout(e, &b.l), LATMC_EINVAL);
        assert_non_null(strstr(latmc_ens_last_error(e), "struct_size"));
        for (size_t k = sizeof b.l.struct_size; k < sizeof b.bytes; k++)
            assert_int_equal(b.bytes[k], CANARY);
    }
    latmc_ens_destroy(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_refusals),
        cmocka_unit_test(test_layout_sizes),
        cmocka_unit_test(test_struct_size_out),
        cmocka_unit_test(test_temperatures_and_exchange),
        cmocka_unit_test(test_overlaps_by_hand),
        cmocka_unit_test(test_binder_jackknife),
        cmocka_unit_test(test_binder_moments),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
