/*
 * phi^4's fixed-point projections of one plane (latmc_modes_phi4_project,
 * lib/modes_planes.c, with its AVX2 rows where the CPU has AVX2: lib/modes_phi4_avx2.c)
 * against the definition typed in here from doc/observables.md: each site's field value
 * phi counts as round(phi 2^20), to the nearest integer, ties to even (here by rint() in
 * the default rounding mode, not by the library's code), added into P_x[x], in 3D into
 * P_y[y], and into P_last[p]. Bit for bit: float and double fields, row lengths around the
 * vector width (1 .. 20, 64, 67), 2D and 3D, values drawn at random, values whose fixed
 * point is a tie (k + 1/2), zeros, subnormals, and values up to the bound's per-site end
 * (|phi 2^20| just below 2^51). Then the bound itself (latmc_modes_field_range): a field
 * at it is accepted, one beyond it, or NaN, refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "modes.h"
#include "sim_helpers.h"

/* The definition: plane p's values v (as doubles) into proj. */
static void definition(const latmc_sim_desc *d, const double *v, int64_t p, int64_t *proj)
{
    const int64_t lx = d->extent[0], rows = d->ndim == 3 ? d->extent[1] : 1;
    const int64_t n = latmc_modes_projection_entries(d), last = n - d->extent[d->ndim - 1];
    for (int64_t y = 0; y < rows; y++)
        for (int64_t x = 0; x < lx; x++) {
            const int64_t q = (int64_t)rint(v[y * lx + x] * 0x1p20); /* |t| < 2^51: exact */
            proj[x] += q;
            if (d->ndim == 3)
                proj[lx + y] += q;
            proj[last + p] += q;
        }
}

static uint64_t rng_state = 0x2545f4914f6cdd1du;

/* A field value: mostly uniform in [-4, 4], sometimes a tie, an end or a large value. */
static double value(int single)
{
    const uint64_t r = test_rng_next(&rng_state);
    const double sign = (r >> 40) & 1 ? -1.0 : 1.0;
    switch (r % 8) {
    case 0: /* (2k + 1) 2^-21: t = k + 1/2 exactly (k < 2^20: a float too) */
        return sign * (double)(2 * (int64_t)((r >> 8) % (1 << 20)) + 1) * 0x1p-21;
    case 1: {
        static const double ends[] = { 0.0, -0.0, 0x1p-149, -0x1p-126, 0x1p-21, 0x3p-22,
                                       0x1p-20, 1.0, 0x1.fffffep29, 0x1.ffffffffffffp29 };
        const double e = ends[(r >> 8) % (sizeof ends / sizeof ends[0])];
        return sign * (single ? (double)(float)e : e);
    }
    case 2: /* large: |t| up to 2^50 */
        return sign * (double)(r >> 14) * 0x1p-20;
    default:
        return (double)(r >> 11) * 0x1p-50 - 4.0;
    }
}

static void check_shape(int ndim, int64_t lx, int64_t ly, int64_t lz, int precision)
{
    const int single = precision == LATMC_PRECISION_FLOAT;
    const latmc_sim_desc d = phi4_test_desc(ndim, lx, ly, lz, precision, 1, 5);
    const int64_t rows = ndim == 3 ? ly : 1, sites = lx * rows;
    const int64_t entries = latmc_modes_projection_entries(&d);
    assert_int_equal(entries, lx + ly + (ndim == 3 ? lz : 0));
    double *v = malloc((size_t)sites * sizeof *v);
    float *vf = malloc((size_t)sites * sizeof *vf);
    int64_t *got = calloc((size_t)entries, sizeof *got);
    int64_t *want = calloc((size_t)entries, sizeof *want);
    assert_non_null(v);
    assert_non_null(vf);
    assert_non_null(got);
    assert_non_null(want);
    const int64_t planes = ndim == 3 ? lz : ly;
    for (int64_t p = 0; p < planes && p < 3; p++) {
        for (int64_t i = 0; i < sites; i++) {
            vf[i] = (float)value(single);
            v[i] = single ? (double)vf[i] : value(0);
        }
        latmc_modes_phi4_project(&d, single ? (const void *)vf : v, p, got);
        definition(&d, v, p, want);
        for (int64_t e = 0; e < entries; e++)
            if (got[e] != want[e])
                fail_msg("%dD %lld x %lld, %s, plane %lld: entry %lld is %lld, the "
                         "definition's %lld", ndim, (long long)lx, (long long)ly,
                         single ? "float" : "double", (long long)p, (long long)e,
                         (long long)got[e], (long long)want[e]);
    }
    free(v);
    free(vf);
    free(got);
    free(want);
}

static void rows_2d(void **state)
{
    (void)state;
    for (int f = 0; f < 2; f++) {
        const int precision = f ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
        for (int64_t lx = 1; lx <= 20; lx++)
            check_shape(2, lx, 4, 0, precision);
        check_shape(2, 64, 3, 0, precision);
        check_shape(2, 67, 5, 0, precision);
    }
}

static void planes_3d(void **state)
{
    (void)state;
    for (int f = 0; f < 2; f++) {
        const int precision = f ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
        check_shape(3, 8, 5, 4, precision);
        check_shape(3, 13, 7, 3, precision);
        check_shape(3, 32, 6, 2, precision);
    }
}

/* latmc_modes_field_range on a 16^2 sim (N = 2^8): the bound is 2^20 sqrt(N phi2) <= 2^61,
 * i.e. phi2 <= 2^74, and 2^20 sqrt(phi2) <= 2^50, i.e. phi2 <= 2^60, the tighter here. */
static void field_bound(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const latmc_sim_desc d = phi4_test_desc(2, 16, 16, 0, LATMC_PRECISION_DOUBLE, 1, 5);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_modes_field_range(sim, 0.0), LATMC_OK);
    assert_int_equal(latmc_modes_field_range(sim, 0x1p60), LATMC_OK);
    assert_int_equal(latmc_modes_field_range(sim, 0x1.0000000000001p60), LATMC_EUNSUPPORTED);
    assert_non_null(strstr(latmc_last_error(), "too large"));
    assert_int_equal(latmc_modes_field_range(sim, NAN), LATMC_EUNSUPPORTED);
    assert_int_equal(latmc_modes_field_range(sim, INFINITY), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&sim);
    /* N = 2^24 (4096^2): 2^20 sqrt(2^24 phi2) <= 2^61 is phi2 <= 2^58, the tighter */
    const latmc_sim_desc big = phi4_test_desc(2, 4096, 4096, 0, LATMC_PRECISION_FLOAT, 1, 5);
    assert_int_equal(latmc_sim_create(ctx, &big, &sim), LATMC_OK);
    assert_int_equal(latmc_modes_field_range(sim, 0x1p58), LATMC_OK);
    assert_int_equal(latmc_modes_field_range(sim, 0x1.000001p58), LATMC_EUNSUPPORTED);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_2d),
        cmocka_unit_test(planes_3d),
        cmocka_unit_test(field_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
