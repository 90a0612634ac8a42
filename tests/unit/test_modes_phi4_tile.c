/*
 * phi^4's Fourier-mode tile of one plane (latmc_modes_phi4_tile, lib/modes_planes.c, with
 * its AVX2 rows where the CPU has AVX2: lib/modes_phi4_avx2.c) against the definition typed
 * in here from doc/observables.md: in each row (fixed y, z) site x adds v cos(k x),
 * v sin(k x) and v into lane x mod 4 (a product, then an addition, from zero), the lanes
 * combined as (l0 + l1) + (l2 + l3) at the row's end; the x entries add each row's two in
 * row order, in 3D the y entries each row's total times the phases of y, and the last
 * axis's entries are the plane's total (its rows' totals in order) times the phases of p.
 * Bit for bit, float and double fields, 2D and 3D, rows of 5 .. 75 sites (every length
 * mod 4).
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

/* The definition: plane p's tile (re, im of each direction) from the values v. */
static void definition(int ndim, const int64_t *L, const double *v, int64_t p,
                       const double *const *c, const double *const *s, double *tile)
{
    const int64_t lx = L[0], rows = ndim == 3 ? L[1] : 1;
    const int last = ndim - 1;
    memset(tile, 0, (size_t)(2 * ndim) * sizeof *tile);
    double total = 0;
    for (int64_t y = 0; y < rows; y++) {
        double re[4] = { 0 }, im[4] = { 0 }, sum[4] = { 0 };
        for (int64_t x = 0; x < lx; x++) {
            const double u = v[y * lx + x];
            const double tc = u * c[0][x], ts = u * s[0][x];
            re[x % 4] += tc;
            im[x % 4] += ts;
            sum[x % 4] += u;
        }
        tile[0] += (re[0] + re[1]) + (re[2] + re[3]);
        tile[1] += (im[0] + im[1]) + (im[2] + im[3]);
        const double row = (sum[0] + sum[1]) + (sum[2] + sum[3]);
        if (ndim == 3) {
            const double ty = row * c[1][y], tsy = row * s[1][y];
            tile[2] += ty;
            tile[3] += tsy;
        }
        total += row;
    }
    tile[2 * last] = total * c[last][p];
    tile[2 * last + 1] = total * s[last][p];
}

static void check_shape(int ndim, int64_t lx, int64_t ly, int64_t lz, int precision,
                        uint64_t *rng)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const latmc_sim_desc d = phi4_test_desc(ndim, lx, ly, lz, precision, 1, 5);
    latmc_sim *sim = NULL;
    if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK)
        fail_msg("creating %dD %lld x %lld: %s", ndim, (long long)lx, (long long)ly,
                 latmc_last_error());
    const int64_t L[3] = { lx, ly, lz };
    const int64_t rows = ndim == 3 ? ly : 1, sites = lx * rows, planes = L[ndim - 1];
    double *ph[3][2], *v = malloc((size_t)sites * sizeof *v);
    float *vf = malloc((size_t)sites * sizeof *vf);
    assert_non_null(v);
    assert_non_null(vf);
    for (int mu = 0; mu < ndim; mu++) {
        for (int k = 0; k < 2; k++) {
            ph[mu][k] = malloc((size_t)L[mu] * sizeof *ph[mu][k]);
            assert_non_null(ph[mu][k]);
        }
        latmc_modes_phases(L[mu], ph[mu][0], ph[mu][1]);
    }
    const double *c[3] = { ph[0][0], ph[1][0], ndim == 3 ? ph[2][0] : NULL };
    const double *s[3] = { ph[0][1], ph[1][1], ndim == 3 ? ph[2][1] : NULL };
    double got[6], want[6];
    for (int64_t p = 0; p < planes && p < 3; p++) {
        for (int64_t i = 0; i < sites; i++) {
            const double u = ((double)(test_rng_next(rng) >> 11) * 0x1p-53 - 0.5) * 6.0;
            vf[i] = (float)u;
            v[i] = precision == LATMC_PRECISION_FLOAT ? (double)vf[i] : u;
        }
        const double *phases = latmc_modes_sim_phases(sim); /* as the CPU's kernel passes */
        assert_non_null(phases);
        latmc_modes_phi4_tile(sim, phases, precision == LATMC_PRECISION_FLOAT ? (void *)vf : v,
                              p, got);
        definition(ndim, L, v, p, c, s, want);
        for (int e = 0; e < 2 * ndim; e++)
            if (memcmp(&got[e], &want[e], sizeof got[e]) != 0)
                fail_msg("%dD %lld x %lld, %s, plane %lld: entry %d is %a, the definition's %a",
                         ndim, (long long)lx, (long long)ly,
                         precision == LATMC_PRECISION_FLOAT ? "float" : "double",
                         (long long)p, e, got[e], want[e]);
    }
    for (int mu = 0; mu < ndim; mu++)
        for (int k = 0; k < 2; k++)
            free(ph[mu][k]);
    free(v);
    free(vf);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void rows_2d(void **state)
{
    (void)state;
    uint64_t rng = 11;
    for (int f = 0; f < 2; f++) {
        const int precision = f ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
        /* phi^4's colourings: both extents multiples of 5, or of 8 */
        for (int64_t lx = 5; lx <= 75; lx += 5)
            check_shape(2, lx, 5, 0, precision, &rng);
        for (int64_t lx = 8; lx <= 64; lx += 8)
            check_shape(2, lx, 8, 0, precision, &rng);
    }
}

static void planes_3d(void **state)
{
    (void)state;
    uint64_t rng = 12;
    for (int f = 0; f < 2; f++) {
        const int precision = f ? LATMC_PRECISION_FLOAT : LATMC_PRECISION_DOUBLE;
        check_shape(3, 8, 8, 8, precision, &rng); /* every extent a multiple of 8 */
        check_shape(3, 24, 8, 8, precision, &rng);
        check_shape(3, 40, 16, 8, precision, &rng);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_2d),
        cmocka_unit_test(planes_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
