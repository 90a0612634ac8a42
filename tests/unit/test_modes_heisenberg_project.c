/*
 * Heisenberg's fixed-point projections of one plane (latmc_modes_heisenberg_project,
 * lib/modes_planes.c, with its AVX2 rows where the CPU has AVX2: lib/modes_heisenberg_avx2.c)
 * against the definition typed in here from doc/observables.md: each site's value v (a
 * component of replica 0; with two replicas also the products v_m w_k, component 3 + 3 m +
 * k) counts as round(v 2^25), to the nearest integer, ties to even (here by rint() in the
 * default rounding mode, not by the library's code), added into P_x[x], in 3D into P_y[y],
 * and into P_last[p]. Bit for bit: row lengths around the vector width (1 .. 20, 64, 67),
 * 2D and 3D, one and two replicas, values drawn at random and values whose fixed point is
 * a tie (k + 1/2) or at the range's ends (+-1, +-0, the smallest floats).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heisenberg_test_helpers.h"
#include "modes.h"

static int64_t fixed_of(double t)
{
    return (int64_t)rint(t); /* |t| <= 2^25: exact */
}

/* The definition: plane p's sites (r0, r1 as the library reads them) into proj. */
static void definition(const latmc_sim_desc *d, const float *r0, const float *r1, int64_t p,
                       int64_t *proj)
{
    const int64_t lx = d->extent[0], rows = d->ndim == 3 ? d->extent[1] : 1;
    const int nc = r1 ? 12 : 3;
    /* one component's entries, L_x + L_y (+ L_z) */
    const int64_t n = latmc_modes_projection_entries(d) / nc, last = n - d->extent[d->ndim - 1];
    for (int64_t y = 0; y < rows; y++)
        for (int64_t x = 0; x < lx; x++) {
            const float *v = r0 + 3 * (y * lx + x), *w = r1 ? r1 + 3 * (y * lx + x) : NULL;
            for (int c = 0; c < nc; c++) {
                const double t = c < 3 ? (double)v[c] * 0x1p25
                                       : (double)v[(c - 3) / 3] * (double)w[(c - 3) % 3] * 0x1p25;
                const int64_t q = fixed_of(t);
                proj[c * n + x] += q;
                if (d->ndim == 3)
                    proj[c * n + lx + y] += q;
                proj[c * n + last + p] += q;
            }
        }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

/* A spin component: mostly uniform in [-1, 1], sometimes a value whose fixed point (or,
 * against 1, a product's) is a tie, or an end of the range. */
static float component(void)
{
    const uint64_t r = test_rng_next(&rng_state);
    switch (r % 8) {
    case 0: /* (2k + 1) 2^-26: t = k + 1/2 exactly */
        return (float)((double)(2 * (int64_t)((r >> 8) % (1 << 20)) + 1) * 0x1p-26) *
               ((r >> 40) & 1 ? -1.0f : 1.0f);
    case 1: {
        static const float ends[] = { 1.0f, -1.0f, 0.0f, -0.0f, 0x1p-149f, -0x1p-126f,
                                      0x1p-25f, 0x1p-26f, 0x3p-27f, 0.5f };
        return ends[(r >> 8) % (sizeof ends / sizeof ends[0])];
    }
    default:
        return (float)((double)(r >> 11) * 0x1p-52 - 1.0);
    }
}

static void check_shape(int ndim, int64_t lx, int64_t ly, int64_t lz, int replicas)
{
    const latmc_sim_desc d = heisenberg_desc(ndim, lx, ly, lz, replicas, LATMC_COUPLINGS_GAUSSIAN,
                                             LATMC_ALGO_OVERRELAX, 1, 1);
    const int64_t rows = ndim == 3 ? ly : 1, sites = lx * rows;
    const int64_t entries = latmc_modes_projection_entries(&d);
    float *r0 = malloc((size_t)(3 * sites) * sizeof *r0);
    float *r1 = malloc((size_t)(3 * sites) * sizeof *r1);
    int64_t *got = calloc((size_t)entries, sizeof *got);
    int64_t *want = calloc((size_t)entries, sizeof *want);
    assert_non_null(r0);
    assert_non_null(r1);
    assert_non_null(got);
    assert_non_null(want);
    const int64_t planes = ndim == 3 ? lz : ly;
    for (int64_t p = 0; p < planes && p < 3; p++) {
        for (int64_t i = 0; i < 3 * sites; i++) {
            r0[i] = component();
            r1[i] = component();
        }
        latmc_modes_heisenberg_project(&d, r0, replicas == 2 ? r1 : NULL, p, got);
        definition(&d, r0, replicas == 2 ? r1 : NULL, p, want);
        for (int64_t e = 0; e < entries; e++)
            if (got[e] != want[e])
                fail_msg("%dD %lld x %lld, %d replica(s), plane %lld: entry %lld is %lld, "
                         "the definition's %lld", ndim, (long long)lx, (long long)ly, replicas,
                         (long long)p, (long long)e, (long long)got[e], (long long)want[e]);
    }
    free(r0);
    free(r1);
    free(got);
    free(want);
}

static void rows_2d(void **state)
{
    (void)state;
    for (int replicas = 1; replicas <= 2; replicas++) {
        for (int64_t lx = 2; lx <= 20; lx++)
            check_shape(2, lx, 4, 0, replicas);
        check_shape(2, 64, 3, 0, replicas);
        check_shape(2, 67, 5, 0, replicas);
    }
}

static void planes_3d(void **state)
{
    (void)state;
    for (int replicas = 1; replicas <= 2; replicas++) {
        check_shape(3, 8, 5, 4, replicas);
        check_shape(3, 13, 7, 3, replicas);
        check_shape(3, 32, 6, 2, replicas);
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
